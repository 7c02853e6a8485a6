#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Hitless IPv6 route changes: h1 streams UDP over IPv6 to h2's
# 2001:db8:100::7, carried by 2001:db8:100::/48, while about 28k other IPv6
# routes are added and deleted in a loop through route.load: the /32 to /64
# prefixes of the pyasn IPv6 table, and around the carrying prefix its
# less-specifics (/32 to /47), 127 sibling /48s, all the other /56s inside
# it, all the other /64s inside its first /56, /49 to /63 and /65 to /128
# more-specifics inside it that miss the destination, and /56s and /64s in
# the next /48s.
# Not one datagram may be lost or sent elsewhere (the churned routes lead to
# a gateway whose MAC no host answers, so a misrouted datagram would never
# reach h2). Neighbours are static on both sides, so the count is exact.
# FIB_ALGO=poptrie: on that FIB algorithm (the suite runs both).
source "$(dirname "$0")/lib.sh"
need_root
ALGO=${FIB_ALGO:-dir-24-8}

V0=dv${TAG}a V1=dv${TAG}b H1=h1-$TAG H2=h2-$TAG
netns "$H1"; netns "$H2"
veth_pair "$H1" eth0 "$V0"
veth_pair "$H2" eth0 "$V1"
for i in 1 2; do
	ns=h$i-$TAG
	ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.accept_ra=0 \
		net.ipv6.conf.default.accept_ra=0 net.ipv6.conf.eth0.accept_ra=0
	ip -n "$ns" link set eth0 address "02:00:00:00:0$i:02"
	ip -n "$ns" addr add "2001:db8:$i::2/64" dev eth0 nodad
	ip -n "$ns" link set eth0 up
	ip -n "$ns" -6 route add default via "2001:db8:$i::1"
	ip -n "$ns" -6 neigh replace "2001:db8:$i::1" lladdr "02:00:00:00:0$i:01" dev eth0 nud permanent
done
DST=2001:db8:100::7
ip -n "$H2" addr add "$DST/128" dev lo
cat > "$WORK/dpr.json" <<JSON
{
  "ports": [
    {"name": "p0", "device": "net_af_packet_${TAG}a,iface=$V0,qpairs=3",
     "mac": "02:00:00:00:01:01", "addresses": ["2001:db8:1::1/64"]},
    {"name": "p1", "device": "net_af_packet_${TAG}b,iface=$V1,qpairs=3",
     "mac": "02:00:00:00:02:01", "addresses": ["2001:db8:2::1/64"]}
  ],
  "neighbors": [
    {"address": "2001:db8:1::2", "mac": "02:00:00:00:01:02", "port": "p0"},
    {"address": "2001:db8:2::2", "mac": "02:00:00:00:02:02", "port": "p1"},
    {"address": "2001:db8:2::3", "mac": "02:00:00:00:02:99", "port": "p1"}
  ],
  "routes": [{"prefix": "2001:db8:100::/48", "via": "2001:db8:2::2"}],
  "control": {"socket": "$SOCK"},
  "fib": {"ipv4_max_routes": 1024, "ipv4_tbl8_groups": 64,
          "ipv6_max_routes": 65536, "ipv6_tbl8_groups": 32768,
          "ipv4_algorithm": "$ALGO", "ipv6_algorithm": "$ALGO"}
}
JSON

"$TOP/scripts/pyasn6-routes.py" --format prefixes 2001:db8:2::3 > "$WORK/real.tsv" 2>/dev/null ||
	die "pyasn6-routes.py failed"
python3 - "$WORK/real.tsv" "$WORK/add.txt" "$WORK/del.txt" "$DST" <<'PY'
import ipaddress, random, sys
N = ipaddress.ip_network
rnd = random.Random(3)
dst = ipaddress.ip_address(sys.argv[4])
carrier = N("2001:db8:100::/48")
def subnets(net, length, count):
    """count distinct random /length inside net that miss dst."""
    out = set()
    count = min(count, (1 << (length - net.prefixlen)) - 1)
    while len(out) < count:
        a = int(net.network_address) + (rnd.getrandbits(length - net.prefixlen) << (128 - length))
        n = N((a, length))
        if dst not in n:
            out.add(n)
    return out
churn = set()
# The pyasn table's /32 to /64 (it has nothing in 2001:db8::/32).
for l in open(sys.argv[1]):
    n = N(l.split()[0])
    if 32 <= n.prefixlen <= 64:
        churn.add(n)
# Around the carrying /48: its less-specifics, siblings, and more-specifics
# everywhere in it but on the way to dst.
churn |= {N((int(carrier.network_address), l), strict=False) for l in range(32, 48)}
churn |= {N("2001:db8:%x::/48" % i) for i in range(0xc0, 0x140)}
churn |= set(carrier.subnets(new_prefix=56))
churn |= set(N("2001:db8:100::/56").subnets(new_prefix=64))
for l in range(49, 64):
    churn |= subnets(carrier, l, 16)
for l in range(65, 129):
    churn |= subnets(N("2001:db8:100::/64"), l, 4)
for s in ("2001:db8:ff::/48", "2001:db8:101::/48"):
    churn |= set(N(s).subnets(new_prefix=56))
    churn |= set(next(N(s).subnets(new_prefix=56)).subnets(new_prefix=64))
churn = {n for n in churn if n != carrier and not (dst in n and n.prefixlen > 48)}
mine = [N("2001:db8:1::/64"), N("2001:db8:2::/64")]
churn = {n for n in churn if not any(n.prefixlen >= 64 and n.overlaps(m) for m in mine)}
order = sorted(churn, key=lambda n: (int(n.network_address), n.prefixlen))
rnd.shuffle(order)
with open(sys.argv[2], "w") as a, open(sys.argv[3], "w") as d:
    for n in order:
        a.write("%s via 2001:db8:2::3\n" % n)
        d.write("del %s\n" % n)
PY
n=$(wc -l < "$WORK/add.txt")
check "the churn set has over 25k IPv6 routes ($n)" test "$n" -gt 25000

start_dpr "$WORK/dpr.json" --lcores "0@0,1@0,2@1" -- --idle-sleep 100
check "h1 reaches h2's $DST" ip netns exec "$H1" ping -6 -c 2 -i 0.2 -W 2 -q "$DST"
v6() { ctl --json stats | python3 -c 'import json,sys; print(json.load(sys.stdin)["fib"]["ipv6_routes"])'; }
base=$(v6)
# via ADDRESS: "PREFIX VIA" of route.get
via() { ctl --json route get "$1" | python3 -c 'import json,sys; r=json.load(sys.stdin); print(r["prefix"], r.get("via"))'; }

recv_start "$H2" 6000 r --ipv6
COUNT=8000
ip netns exec "$H1" python3 "$TRAFFIC" udp-send "$DST" 6000 $COUNT --flows 16 --gap 0.0005 &
sender=$!
cycles=0 changes=0 full=0 groups=none next='' here='' up='' start=$(date +%s.%N)
# --partial: the files are this test's own, and each chunk goes once (no
# whole-file check first), so the rate is the FIB's changes, as before.
while kill -0 $sender 2>/dev/null || [ $cycles -lt 2 ]; do
	ctl route load "$WORK/add.txt" --partial >/dev/null || { not_ok "route load (add) failed"; break; }
	if [ $cycles -eq 0 ]; then
		# The churn really is in place around the destination.
		full=$(v6) groups=$(ctl --json stats | python3 -c 'import json,sys; print(json.load(sys.stdin)["fib"]["ipv6_tbl8_used"])')
		next=$(via 2001:db8:100:1::1) here=$(via "$DST") up=$(via 2001:db8:c0::1)
	fi
	ctl route load "$WORK/del.txt" --partial >/dev/null || { not_ok "route load (del) failed"; break; }
	cycles=$((cycles + 1)); changes=$((changes + 2 * n))
done
end=$(date +%s.%N)
wait $sender
got=$(recv_stop r)
count=${got% *}
echo "# $cycles add/delete cycles of $n IPv6 routes: $changes changes in $(python3 -c "print('%.1f s, %.0f changes/s' % ($end - $start, $changes / ($end - $start)))") while forwarding ($ALGO)"
check "the route churn ran ($cycles cycles)" test "$cycles" -ge 2
check "with the churn in, the FIB held all of it ($full == $base + $n; $groups tbl8 groups)" \
	test "$full" -eq $((base + n))
check "with the churn in, the next /64 led elsewhere ($next)" \
	test "$next" = "2001:db8:100:1::/64 2001:db8:2::3"
check "with the churn in, the next /48 led elsewhere ($up)" \
	test "$up" = "2001:db8:c0::/48 2001:db8:2::3"
check "with the churn in, $DST still took 2001:db8:100::/48 ($here)" \
	test "$here" = "2001:db8:100::/48 2001:db8:2::2"
check "h2 received all $COUNT datagrams (got $count)" test "$count" -eq $COUNT
check "the FIB is back to its $base IPv6 routes" test "$(v6)" -eq "$base"
stop_dpr
check "nothing dropped on the way in" test "$(counter 'port("p0")["dropped"]')" -eq 0
check_accounting
finish

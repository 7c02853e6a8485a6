#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Hitless route changes: h1 streams UDP to h2 over 198.51.100.0/24 while
# 100k other routes are added and deleted in a loop. Not one datagram may
# be lost or sent elsewhere (the churned routes lead to a gateway whose MAC
# no host answers, so a misrouted datagram would never reach h2).
# FIB_ALGO=poptrie: on that FIB algorithm (the suite runs both).
source "$(dirname "$0")/lib.sh"
need_root
ALGO=${FIB_ALGO:-dir-24-8}

two_hosts
ip -n "$H2" addr add 198.51.100.7/32 dev lo
cat > "$WORK/dpr.json" <<JSON
{
  "ports": [
    {"name": "p0", "device": "net_af_packet_${TAG}a,iface=$V0,qpairs=3",
     "mac": "02:00:00:00:01:01", "addresses": ["10.0.1.1/24"]},
    {"name": "p1", "device": "net_af_packet_${TAG}b,iface=$V1,qpairs=3",
     "mac": "02:00:00:00:02:01", "addresses": ["10.0.2.1/24"]}
  ],
  "neighbors": [
    {"address": "10.0.1.2", "mac": "02:00:00:00:01:02", "port": "p0"},
    {"address": "10.0.2.2", "mac": "02:00:00:00:02:02", "port": "p1"},
    {"address": "10.0.2.3", "mac": "02:00:00:00:02:99", "port": "p1"}
  ],
  "routes": [{"prefix": "198.51.100.0/24", "via": "10.0.2.2"}],
  "control": {"socket": "$SOCK"},
  "fib": {"ipv4_max_routes": 131072, "ipv4_tbl8_groups": 65536, "ipv4_algorithm": "$ALGO"}
}
JSON

# 100k distinct prefixes, /16 to /28 (a third need tbl8 groups), none
# covering 198.51.100.0/24 or 10/8, nor in space never forwarded (0/8,
# 127/8, 224/3: route.load refuses them); and the same as deletions.
python3 - "$WORK/add.txt" "$WORK/del.txt" <<'PY'
import ipaddress, random, sys
rnd = random.Random(3)
seen = set()
keep = [ipaddress.ip_network("198.51.100.0/24"), ipaddress.ip_network("10.0.0.0/8")]
while len(seen) < 100000:
    l = rnd.choice((16, 20, 22, 24, 24, 25, 26, 27, 28))
    n = ipaddress.ip_network((rnd.getrandbits(32) >> (32 - l) << (32 - l), l))
    if n.is_multicast or n.is_reserved or n.is_loopback or \
            n.subnet_of(ipaddress.ip_network("0.0.0.0/8")) or any(n.overlaps(k) for k in keep):
        continue
    seen.add(n)
with open(sys.argv[1], "w") as a, open(sys.argv[2], "w") as d:
    for n in seen:
        a.write("%s via 10.0.2.3\n" % n)
        d.write("del %s\n" % n)
PY

start_dpr "$WORK/dpr.json" --lcores "0@0,1@0,2@1" -- --idle-sleep 100
check "h1 reaches h2's 198.51.100.7" ip netns exec "$H1" ping -c 2 -i 0.2 -W 2 -q 198.51.100.7
base=$(ctl --json stats | python3 -c 'import json,sys; print(json.load(sys.stdin)["fib"]["ipv4_routes"])')

recv_start "$H2" 6000 r
COUNT=8000
ip netns exec "$H1" python3 "$TRAFFIC" udp-send 198.51.100.7 6000 $COUNT --flows 16 --gap 0.0005 &
sender=$!
cycles=0 changes=0 start=$(date +%s.%N)
# --partial: the files are this test's own, and each chunk goes once (no
# whole-file check first), so the rate is the FIB's changes, as before.
while kill -0 $sender 2>/dev/null || [ $cycles -lt 2 ]; do
	ctl route load "$WORK/add.txt" --partial >/dev/null || { not_ok "route load (add) failed"; break; }
	ctl route load "$WORK/del.txt" --partial >/dev/null || { not_ok "route load (del) failed"; break; }
	cycles=$((cycles + 1)); changes=$((changes + 200000))
done
end=$(date +%s.%N)
wait $sender
got=$(recv_stop r)
count=${got% *}
echo "# $cycles add/delete cycles of 100k routes: $changes changes in $(python3 -c "print('%.1f s, %.0f changes/s' % ($end - $start, $changes / ($end - $start)))") while forwarding ($ALGO)"
check "the route churn ran ($cycles cycles)" test "$cycles" -ge 2
check "h2 received all $COUNT datagrams (got $count)" test "$count" -eq $COUNT
check "the FIB is back to its $base routes" \
	test "$(ctl --json stats | python3 -c 'import json,sys; print(json.load(sys.stdin)["fib"]["ipv4_routes"])')" -eq "$base"
stop_dpr
check "nothing dropped on the way in" test "$(counter 'port("p0")["dropped"]')" -eq 0
check_accounting
finish

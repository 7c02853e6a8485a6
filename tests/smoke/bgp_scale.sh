#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# A BGP table through FRR into dpr: BIRD 2 in namespace b1 (behind dpr's
# port p1) announces the first 100k IPv4 prefixes of the pyasn RouteViews
# table, each with next hop 10.0.2.2 or 10.0.2.3 (by origin AS, as
# scripts/pyasn-routes.py assigns them), to bgpd beside dpr; zebra feeds
# them to dpr over FPM.
#   all of them arrive (route_sources.fpm.active); route.get on a sample
#   answers the longest match among them with its next hop. The time from
#   the announcement to the first and the last route in dpr's FIB is printed
#   (measured, never asserted).
source "$(dirname "$0")/lib.sh"
need_root

N=${BGP_SCALE_ROUTES:-100000}
source "$(dirname "$0")/frr.sh"
frr_need bgpd bird birdc

R=r-$TAG DPR_NETNS=r-$TAG B1=b1-$TAG V1=dv${TAG}b
B=$WORK/bird
mkdir -p "$B"
netns "$R"; netns "$B1"
# TX checksum offload off on the peer's veth (router_veth): the kernel
# behind dpr's TAP would drop BIRD's TCP segments with unfinished checksums.
router_veth "$R" "$B1" "$V1"
host_addr "$B1" eth0 02:00:00:00:02:02 10.0.2.2/24 10.0.2.1

"$TOP/scripts/pyasn-routes.py" --format prefixes --limit "$N" 10.0.2.2 10.0.2.3 \
	> "$WORK/routes.tsv" 2>/dev/null || die "pyasn-routes.py failed (apt-get install python3-pyasn)"
n=$(sort -u -k1,1 "$WORK/routes.tsv" | wc -l)
check "the pyasn table gives $N distinct IPv4 prefixes ($n)" test "$n" -eq "$N"

cat > "$WORK/dpr.json" <<JSON
{
  "ports": [
    {"name": "p1", "device": "net_af_packet_${TAG}b,iface=$V1,qpairs=2",
     "mac": "02:00:00:00:02:01", "addresses": ["10.0.2.1/24"]}
  ],
  "control": {"socket": "$SOCK"},
  "fib": {"ipv4_max_routes": $(( N < 131072 ? 262144 : 2 * N )), "ipv4_tbl8_groups": 16384,
          "ipv6_max_routes": 1024, "ipv6_tbl8_groups": 64},
  "fpm": {"listen": "127.0.0.1:$FPM_PORT", "grace_s": 30}
}
JSON
start_dpr "$WORK/dpr.json" --lcores 0@0,1@1 -- --idle-sleep 100

cat > "$FRR/bgpd.conf" <<EOF
hostname dpr-bgp-$TAG
log file $FRR/bgpd.log
router bgp 65000
 bgp router-id 10.0.2.1
 no bgp ebgp-requires-policy
 neighbor 10.0.2.2 remote-as 65001
 neighbor 10.0.2.2 timers connect 2
EOF
# The routes' static protocol starts disabled: "birdc enable" is the
# announcement the clock starts from. BGP keeps each route's own next hop
# (10.0.2.2 or 10.0.2.3, both on the shared subnet).
{
	echo "router id 10.0.2.2;"
	echo "protocol device { }"
	echo "protocol static table4 { ipv4; disabled;"
	awk -F'\t' '{ printf "route %s via %s;\n", $1, $2 }' "$WORK/routes.tsv"
	echo "}"
	cat <<EOF
protocol bgp dpr {
	local 10.0.2.2 as 65001;
	neighbor 10.0.2.1 as 65000;
	connect retry time 2;
	ipv4 { import none; export all; next hop keep; };
}
EOF
} > "$B/bird.conf"

BIRD_PID=''
bird_cleanup() { [ -z "$BIRD_PID" ] || { kill -KILL "$BIRD_PID" 2>/dev/null; wait "$BIRD_PID" 2>/dev/null; }; }
AT_EXIT+=(bird_cleanup)
frr_start
ip netns exec "$B1" bird -f -c "$B/bird.conf" -s "$B/bird.ctl" -P "$B/bird.pid" > "$B/bird.log" 2>&1 &
BIRD_PID=$!

established() { ip netns exec "$B1" birdc -s "$B/bird.ctl" show protocols dpr 2>/dev/null | grep -q Established; }
connected() { ctl call stats.get | grep -q '"connected": true'; }
check "BIRD's session with bgpd is established" wait_for 30 established
check "zebra connects to dpr's FPM port" wait_for 15 connected

# --- the announcement: from "birdc enable" to the last route in dpr ------------------------
active() { ctl --json stats | python3 -c 'import json, sys; print(json.load(sys.stdin)["route_sources"]["fpm"]["active"])'; }
base=$(active)
ip netns exec "$B1" birdc -s "$B/bird.ctl" enable table4 >/dev/null
t0=$(date +%s.%N)
first='' last='' got=$base
deadline=$(( $(date +%s) + ${BGP_SCALE_WAIT:-150} ))
while [ "$(date +%s)" -lt "$deadline" ]; do
	got=$(active)
	[ -n "$first" ] || [ "$got" -le "$base" ] || first=$(date +%s.%N)
	[ "$got" -lt $((base + N)) ] || { last=$(date +%s.%N); break; }
	sleep 0.2
done
if [ -n "$last" ]; then
	awk -v n="$N" -v a="$t0" -v f="$first" -v l="$last" 'BEGIN {
		printf "# %d prefixes: first in dpr after %.1f s, last after %.1f s, %d routes/s\n",
			n, f - a, l - a, n / (l - a) }'
fi
check "all $N prefixes arrive in dpr's FIB as source fpm ($((got - base)))" test "$got" -eq $((base + N))

# --- a sample: route.get answers the longest match with its next hop ---------------------------
python3 - "$WORK/routes.tsv" > "$WORK/sample.txt" <<'PY'
import ipaddress, random, sys
table = {}
for line in open(sys.argv[1]):
    p, gw = line.split()
    table[ipaddress.ip_network(p)] = gw
rnd = random.Random(1)
for net in rnd.sample(sorted(table, key=str), 200):
    addr = net.network_address + (net.num_addresses // 2)
    for plen in range(32, -1, -1):
        m = ipaddress.ip_network("%s/%d" % (addr, plen), strict=False)
        if m in table:
            print(addr, m, table[m])
            break
PY
# route.get over one control connection (a dprctl and a python3 a
# sample took 20 s); prints each wrong answer, then their count.
bad=$(python3 - "$SMOKE_DIR" "$SOCK" "$WORK/sample.txt" <<'PY' | tee "$WORK/sample.out" | tail -n 1
import sys
sys.path.insert(0, sys.argv[1])
from rpc_client import Conn
c, bad = Conn(sys.argv[2]), 0
for i, line in enumerate(open(sys.argv[3])):
    addr, prefix, gw = line.split()
    r = c.call("route.get", {"address": addr}, rid=i + 1) or {}
    r = r.get("result") or {}
    got = "%s %s %s %s" % (r.get("prefix"), r.get("via"), r.get("source"), r.get("protocol"))
    if got != "%s %s fpm bgp" % (prefix, gw):
        bad += 1
        print("# %s: want %s %s fpm bgp, got %s" % (addr, prefix, gw, got))
print(bad)
PY
)
grep '^#' "$WORK/sample.out"
check "route.get on 200 sampled addresses answers the right prefix and next hop, fpm bgp ($bad wrong)" \
	test "$bad" -eq 0 -a "$(wc -l < "$WORK/sample.txt")" -eq 200

kill -TERM "$DPR_PID"
wait "$DPR_PID"
rc=$?
DPR_PID=
check "dpr exits 0 on SIGTERM (got $rc)" test "$rc" -eq 0
finish

#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Control-plane protection for what cp_protect.sh (no TAPs, IPv4) leaves
# out, with dpr in a namespace of its own: h1 -- p0 dpr p1 -- h2, p2 -- h3.
#   1. A BGP session over p0's TAP (BIRD in dpr's namespace, on the TAP's
#      10.0.1.1, and BIRD on h1, a configured peer) stays Established while
#      h1 floods UDP from a spoofed source at the router's own address, port
#      179 included (class "local", rate lowered to 2000/s): the session
#      never drops (hold time 3 s, flood longer), a route h1 announces
#      during the flood arrives, and h1 still pings the router.
#   2. While atk6-ndpexhaust26 (thc-ipv6) scans p1's IPv6 /64 from h1, a
#      new IPv6 host on another link (h3) and a new IPv4 host on the
#      attacker's own link (10.0.1.4) still resolve; the scan's refusals
#      are counted (resolve_refused_budget) and p1's IPv6 budget holds.
source "$(dirname "$0")/lib.sh"
need_root
for c in bird birdc atk6-ndpexhaust26; do
	command -v "$c" >/dev/null ||
		{ echo "not ok - $T: $c missing (apt-get install bird2 thc-ipv6, or scripts/setup.sh)"; exit 1; }
done

R=r-$TAG DPR_NETNS=r-$TAG H1=h1-$TAG H2=h2-$TAG H3=h3-$TAG
V0=dv${TAG}a V1=dv${TAG}b V2=dv${TAG}c
netns "$R"; netns "$H1"; netns "$H2"; netns "$H3"
router_veth "$R" "$H1" "$V0"; router_veth "$R" "$H2" "$V1"; router_veth "$R" "$H3" "$V2"
host_addr "$H1" eth0 02:00:00:00:01:02 10.0.1.2/24 10.0.1.1 02:00:00:00:01:01
host_addr "$H2" eth0 02:00:00:00:02:02 10.0.2.2/24 10.0.2.1 02:00:00:00:02:01
host_addr "$H3" eth0 02:00:00:00:03:02 10.0.3.2/24 10.0.3.1 02:00:00:00:03:01
ip -n "$H1" addr add 10.0.1.4/24 dev eth0
# IPv6 on h1 (the scanner, which finds the router by NDP) and h3.
for h in "$H1:1" "$H3:3"; do
	ip netns exec "${h%:*}" sysctl -qw net.ipv6.conf.all.disable_ipv6=0 net.ipv6.conf.eth0.disable_ipv6=0
	ip -n "${h%:*}" addr add "2001:db8:${h#*:}::2/64" dev eth0 nodad
	ip -n "${h%:*}" -6 route add default via "2001:db8:${h#*:}::1"
done

cat > "$WORK/dpr.json" <<JSON
{
  "ports": [
    {"name": "p0", "device": "net_af_packet_${TAG}a,iface=$V0", "mac": "02:00:00:00:01:01",
     "addresses": ["10.0.1.1/24", "2001:db8:1::1/64"]},
    {"name": "p1", "device": "net_af_packet_${TAG}b,iface=$V1", "mac": "02:00:00:00:02:01",
     "addresses": ["10.0.2.1/24", "2001:db8:2::1/64"]},
    {"name": "p2", "device": "net_af_packet_${TAG}c,iface=$V2", "mac": "02:00:00:00:03:01",
     "addresses": ["10.0.3.1/24", "2001:db8:3::1/64"]}
  ],
  "neighbors": [
    {"address": "10.0.1.2", "mac": "02:00:00:00:01:02", "port": "p0"},
    {"address": "10.0.3.2", "mac": "02:00:00:00:03:02", "port": "p2"}
  ],
  "control": {"socket": "$SOCK"},
  "fib": {"ipv4_max_routes": 1024, "ipv4_tbl8_groups": 16},
  "control_plane": {"classes": {"local": {"rate": 2000, "burst": 200}},
                    "peers": ["10.0.1.2"]}
}
JSON
start_dpr "$WORK/dpr.json" --lcores 0@0,1@1 -- --idle-sleep 100

json() { # json EXPR [dprctl-args]: EXPR over the JSON dprctl prints, as J
	local expr=$1; shift
	ctl --json "$@" | python3 -c 'import json,sys; J = json.load(sys.stdin); print(eval(sys.argv[1]))' "$expr"
}
cls() { json "J['control_plane']['classes']['$1']['$2']" stats; } # cls CLASS COUNTER
exc() { json "J['exception_path']['$1']" stats; }
positive() { local v; v=$("$@"); [[ $v =~ ^[0-9]+$ ]] && [ "$v" -gt 0 ]; }
running() { kill -0 "$1" 2>/dev/null; }
JOBS=()
# BIRD on SIGTERM waits to close its session, whose peer may be gone.
stop_jobs() { local p; for p in "${JOBS[@]}"; do kill -KILL "$p" 2>/dev/null; wait "$p" 2>/dev/null; done; }
AT_EXIT+=(stop_jobs)

# --- 1. BGP over the TAP under a flood ----------------------------------------------
# bird_conf NS LOCAL AS PEER PEER_AS [ROUTE]: BIRD's config; ROUTE (announced
# by static protocol "extra", disabled until the test enables it).
bird_conf() {
	mkdir -p "$WORK/$1"
	cat > "$WORK/$1/bird.conf" <<EOF
router id $2;
protocol device { }
${6:+protocol static extra { disabled; ipv4; route $6 blackhole; \}}
protocol bgp peer {
	local $2 as $3;
	neighbor $4 as $5;
	hold time 3; keepalive time 1; connect retry time 1; error wait time 1, 2;
	ipv4 { import all; export all; };
}
EOF
	ip netns exec "$1" bird -f -c "$WORK/$1/bird.conf" -s "$WORK/$1/bird.ctl" \
		-P "$WORK/$1/bird.pid" > "$WORK/$1/bird.log" 2>&1 &
	JOBS+=($!)
}
birdc_in() { local ns=$1; shift; ip netns exec "$ns" birdc -s "$WORK/$ns/bird.ctl" "$@"; }
# The session's state and when it last changed, as dpr's side sees it.
session() { birdc_in "$R" show protocols peer | awk '$1 == "peer" {print $6, "since", $5}'; }
bird_conf "$R" 10.0.1.1 65000 10.0.1.2 65001
bird_conf "$H1" 10.0.1.2 65001 10.0.1.1 65000 10.55.0.0/16
check "BGP over p0's TAP is Established" wait_for 20 bash -c "$(declare -f session birdc_in); R=$R WORK=$WORK; session | grep -q Established"
before=$(session)
ip netns exec "$H1" python3 "$TRAFFIC" raw-send eth0 02:00:00:00:01:01 02:00:00:00:01:02 \
	10.0.1.66 10.0.1.1 100000000 --dport 179 --gap 0 &
flood=$!
JOBS+=($flood)
check "the flood is over the local class's rate" wait_for 10 positive cls local over_rate
birdc_in "$H1" enable extra >/dev/null
check "during the flood, the route h1 announces arrives over BGP" \
	wait_for 10 bash -c "ip netns exec $R birdc -s $WORK/$R/bird.ctl show route 10.55.0.0/16 | grep -q 10.55.0.0/16"
check "during the flood, h1 pings the router" wait_for 10 ip netns exec "$H1" ping -c 1 -W 1 -q 10.0.1.1
# Longer than the hold time (3 s): keepalives must get through.
sleep 4
check "  the flood was still on" running $flood
kill $flood; wait $flood 2>/dev/null
after=$(session)
# Established both times, since the same moment. BIRD keeps that moment on
# the monotonic clock and shows it as wall-clock time, so the shown value
# moves when the wall clock steps (it moved 1 ms here once): a drop would
# move it by the hold time at least, or leave the session down.
same_session() {
	python3 - "$1" "$2" <<'PY'
import sys
def parse(s):
    state, _, t = s.split()
    h, m, sec = t.split(":")
    return state, int(h) * 3600 + int(m) * 60 + float(sec)
(s1, t1), (s2, t2) = parse(sys.argv[1]), parse(sys.argv[2])
d = abs(t2 - t1)
sys.exit(0 if s1 == s2 == "Established" and min(d, 86400 - d) < 1 else 1)
PY
}
check "the session never dropped (before: $before; after: $after)" same_session "$before" "$after"
check "  the flood's drops are counted in class local" positive cls local over_rate
check "  BGP passed in class routing (a configured peer)" positive cls routing passed

# --- 2. an IPv6 scan of p1's /64 ----------------------------------------------------
ip netns exec "$H1" atk6-ndpexhaust26 eth0 2001:db8:2:: > "$WORK/scan.log" 2>&1 &
scan=$!
JOBS+=($scan)
check "the scan spends p1's resolution budget" wait_for 10 positive exc resolve_refused_budget
check "during the scan, h3 (IPv6, new on another link) resolves" \
	wait_for 10 ip netns exec "$H1" ping -6 -c 1 -W 1 -q 2001:db8:3::2
check "during the scan, 10.0.1.4 (IPv4, new on the scanner's link) resolves" \
	wait_for 10 ip netns exec "$H3" ping -c 1 -W 1 -q 10.0.1.4
check "  the scan was still on" running $scan
budget=$(json "J['control_plane']['resolving']['p1']['ipv6']" stats)
check "  p1's IPv6 addresses being resolved stay within the budget (64): $budget" test "$budget" -le 64
kill $scan; wait $scan 2>/dev/null
echo "# neighbours: refused over budget $(exc resolve_refused_budget), table full $(exc resolve_refused_full)"
stop_dpr
check_accounting
finish

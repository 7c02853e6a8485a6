#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Control-plane protection (lib/copp) and neighbour resolution under a scan
# (RFC 6583), through the real dpr: h1 -- p0 dpr p1 -- h2, p2 -- h3.
#   1. While h1 floods UDP at the router's own address (class "local", its
#      rate lowered to 2000/s so that a Python sender exceeds it), h1 still
#      pings the router (class "icmp") and dpr resolves a host new to it on
#      the flooded link (h2 -> 10.0.1.3: "resolve", then ARP "arp_nd"). The
#      flood's drops are counted in its class and as drops.control_plane.
#   2. While h1 scans 10.2.0.0/16, p1's subnet, where nobody answers, and
#      the scan has spent p1's IPv4 resolution budget
#      (resolve_refused_budget), a new host on another link (h3) and on the
#      attacker's own link (10.0.1.4) still resolve, and so does a gateway
#      of a route on the scanned link (10.99.0.0/16 via 10.2.0.3): a
#      gateway has priority over the budget.
# Outcomes only: pings answered, neighbours learned, counters.
source "$(dirname "$0")/lib.sh"
need_root

H1=h1-$TAG H2=h2-$TAG H3=h3-$TAG V0=dv${TAG}a V1=dv${TAG}b V2=dv${TAG}c
netns "$H1"; netns "$H2"; netns "$H3"
veth_pair "$H1" eth0 "$V0"; veth_pair "$H2" eth0 "$V1"; veth_pair "$H3" eth0 "$V2"
host_addr "$H1" eth0 02:00:00:00:01:02 10.0.1.2/24 10.0.1.1 02:00:00:00:01:01
host_addr "$H2" eth0 02:00:00:00:02:02 10.2.0.2/16 10.2.0.1 02:00:00:00:02:01
host_addr "$H3" eth0 02:00:00:00:03:02 10.0.3.2/24 10.0.3.1 02:00:00:00:03:01
ip -n "$H1" addr add 10.0.1.3/24 dev eth0
ip -n "$H1" addr add 10.0.1.4/24 dev eth0
# h2 is also the gateway 10.2.0.3 of 10.99.0.0/16, which it holds.
ip -n "$H2" addr add 10.2.0.3/16 dev eth0
ip -n "$H2" addr add 10.99.0.1/32 dev lo

cat > "$WORK/dpr.json" <<JSON
{
  "ports": [
    {"name": "p0", "device": "net_af_packet_${TAG}a,iface=$V0", "tap": false,
     "mac": "02:00:00:00:01:01", "addresses": ["10.0.1.1/24"]},
    {"name": "p1", "device": "net_af_packet_${TAG}b,iface=$V1", "tap": false,
     "mac": "02:00:00:00:02:01", "addresses": ["10.2.0.1/16"]},
    {"name": "p2", "device": "net_af_packet_${TAG}c,iface=$V2", "tap": false,
     "mac": "02:00:00:00:03:01", "addresses": ["10.0.3.1/24"]}
  ],
  "neighbors": [
    {"address": "10.0.1.2", "mac": "02:00:00:00:01:02", "port": "p0"},
    {"address": "10.2.0.2", "mac": "02:00:00:00:02:02", "port": "p1"}
  ],
  "routes": [{"prefix": "10.99.0.0/16", "via": "10.2.0.3"}],
  "control": {"socket": "$SOCK"},
  "fib": {"ipv4_max_routes": 1024, "ipv4_tbl8_groups": 16},
  "control_plane": {"classes": {"local": {"rate": 2000, "burst": 200}}}
}
JSON
start_dpr "$WORK/dpr.json" -l 0,1 -- --idle-sleep 100

json() { # json EXPR [dprctl-args]: EXPR over the JSON dprctl prints, as J
	local expr=$1; shift
	ctl --json "$@" | python3 -c 'import json,sys; J = json.load(sys.stdin); print(eval(sys.argv[1]))' "$expr"
}
cls() { json "J['control_plane']['classes']['$1']['$2']" stats; } # cls CLASS COUNTER
exc() { json "J['exception_path']['$1']" stats; }
state() { json "next((n['state'] for n in J if n['address'] == '$1'), 'absent')" neigh list; }
ping_ok() { ip netns exec "$1" ping -c 1 -W 1 -q "$2" >/dev/null 2>&1; } # ping_ok NS ADDRESS
positive() { local v; v=$("$@"); [[ $v =~ ^[0-9]+$ ]] && [ "$v" -gt 0 ]; }
running() { kill -0 "$1" 2>/dev/null; }
JOBS=()
stop_jobs() { [ ${#JOBS[@]} -eq 0 ] || kill "${JOBS[@]}" 2>/dev/null; }
AT_EXIT+=(stop_jobs)

# --- 1. a flood of UDP at the router ------------------------------------------------
ip netns exec "$H1" python3 "$TRAFFIC" raw-send eth0 02:00:00:00:01:01 02:00:00:00:01:02 \
	10.0.1.2 10.0.1.1 100000000 --dport 80 --gap 0 &
flood=$!
JOBS+=($flood)
wait_for 10 positive cls local over_rate || not_ok "the flood is over the local class's rate"
check "during the flood, h1 pings the router" wait_for 10 ping_ok "$H1" 10.0.1.1
check "during the flood, dpr resolves 10.0.1.3, new on the flooded link" \
	wait_for 10 ping_ok "$H2" 10.0.1.3
check "  10.0.1.3 is reachable" test "$(state 10.0.1.3)" = reachable
check "  the flood was still on" running $flood
kill $flood; wait $flood 2>/dev/null
check "  the flood's drops are counted in class local" positive cls local dropped
check "  ICMP passed in its own class" positive cls icmp passed
check "  ARP passed in its own class" positive cls arp_nd passed

# --- 2. a scan of p1's subnet -------------------------------------------------------
check "the gateway 10.2.0.3 is not resolved before the scan" \
	test "$(state 10.2.0.3)" != reachable
ip netns exec "$H1" python3 -c '
import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
while True:
    for i in range(256, 65536):
        try:
            s.sendto(b"scan", ("10.2.%d.%d" % (i >> 8, i & 255), 9))
        except OSError:
            pass
' &
scan=$!
JOBS+=($scan)
check "the scan spends p1's resolution budget" wait_for 10 positive exc resolve_refused_budget
check "during the scan, h3, new on another link, resolves" wait_for 10 ping_ok "$H1" 10.0.3.2
check "during the scan, 10.0.1.4, new on the scanner's link, resolves" \
	wait_for 10 ping_ok "$H2" 10.0.1.4
check "during the scan, the gateway 10.2.0.3 on the scanned link resolves" \
	wait_for 10 ping_ok "$H1" 10.99.0.1
check "  10.0.3.2 and 10.2.0.3 are reachable" \
	test "$(state 10.0.3.2) $(state 10.2.0.3)" = "reachable reachable"
check "  the scan was still on" running $scan
check "  a gateway took priority" positive exc resolve_priority
kill $scan; wait $scan 2>/dev/null
ctl stats | sed -n '/^CP CLASS/,$p' | sed 's/^/# /'

stop_dpr
echo "# local: $(counter 'S["control_plane"]["classes"]["local"]') "
echo "# resolve: $(counter 'S["control_plane"]["classes"]["resolve"]')"
echo "# neighbours: refused over budget $(counter 'S["exception_path"]["resolve_refused_budget"]'), table full $(counter 'S["exception_path"]["resolve_refused_full"]'), priority $(counter 'S["exception_path"]["resolve_priority"]')"
check "drops.control_plane on p0 count the flood" \
	test "$(counter 'port("p0")["drops"]["control_plane"]')" -gt 0
check_accounting
finish

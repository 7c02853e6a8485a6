#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# dprctl and telemetry against a forwarding dpr: every change is checked by
# what the hosts see (pings that start or stop crossing), plus the errors a
# person gets for mistakes.
source "$(dirname "$0")/lib.sh"
need_root

two_hosts
ip -n "$H2" addr add 198.51.100.7/32 dev lo
cat > "$WORK/dpr.json" <<JSON
{
  "ports": [
    {"name": "p0", "device": "net_af_packet_${TAG}a,iface=$V0,qpairs=2",
     "mac": "02:00:00:00:01:01", "addresses": ["10.0.1.1/24"]},
    {"name": "p1", "device": "net_af_packet_${TAG}b,iface=$V1,qpairs=2",
     "mac": "02:00:00:00:02:01", "addresses": ["10.0.2.1/24"]}
  ],
  "neighbors": [
    {"address": "10.0.1.2", "mac": "02:00:00:00:01:02", "port": "p0"},
    {"address": "10.0.2.2", "mac": "02:00:00:00:02:02", "port": "p1"}
  ],
  "control": {"socket": "$SOCK"},
  "fib": {"ipv4_max_routes": 4096, "ipv4_tbl8_groups": 64}
}
JSON
start_dpr "$WORK/dpr.json" -l 0,1 -- --idle-sleep 100

pings() { ip netns exec "$H1" ping -c 2 -i 0.2 -W 1 -q "$1" >/dev/null 2>&1; }
fails() { ! "$@"; }
# expect_error STATUS SUBSTRING dprctl-args...: dprctl fails so, saying so
expect_error() {
	local want=$1 sub=$2 out rc; shift 2
	out=$(ctl "$@" 2>&1); rc=$?
	if [ "$rc" -eq "$want" ] && grep -qF -- "$sub" <<<"$out"; then ok "dprctl $* -> $rc: $out"
	else not_ok "dprctl $*: want exit $want and \"$sub\", got $rc: $out"; fi
}

check "socket is mode 0660" test "$(stat -c %a "$SOCK")" = 660
check "port list shows both af_packet ports" \
	bash -c "'$DPRCTL' -s '$SOCK' port list | grep -q '^p1 .*net_af_packet'"

# Routes
check "no route to 198.51.100.7 yet" fails pings 198.51.100.7
check "route add" ctl route add 198.51.100.0/24 via 10.0.2.2
check "traffic follows the new route" pings 198.51.100.7
check "route get answers the matched prefix" \
	bash -c "'$DPRCTL' -s '$SOCK' route get 198.51.100.7 | grep -q '^198.51.100.0/24 .*via 10.0.2.2 .*dev p1'"
check "route get --json" bash -c "'$DPRCTL' -s '$SOCK' --json route get 198.51.100.7 | python3 -c 'import json,sys; r=json.load(sys.stdin); sys.exit(0 if r[\"prefix\"]==\"198.51.100.0/24\" and r[\"port\"]==\"p1\" else 1)'"
expect_error 1 "exists" route add 198.51.100.0/24 via 10.0.2.2
check "route replace" ctl route replace 198.51.100.0/24 via 10.0.2.2 dev p1
check "route del" ctl route del 198.51.100.0/24
check "traffic stops with the route" fails pings 198.51.100.7
expect_error 1 "route del 198.51.100.0/24: no such route" route del 198.51.100.0/24
expect_error 1 'did you mean "10.0.0.0/8"' route add 10.0.0.1/8 via 10.0.2.2
expect_error 1 "not on a connected subnet" route add 10.9.0.0/16 via 192.0.2.1
expect_error 1 "connected subnet" route del 10.0.1.0/24
expect_error 1 "no port \"p9\"" route add 10.9.0.0/16 dev p9
expect_error 2 "usage" route del
check "route list pages through every route" \
	test "$(ctl route list | wc -l)" -eq "$(ctl --json stats | python3 -c 'import json,sys; f=json.load(sys.stdin)["fib"]; print(f["ipv4_routes"] + f["ipv6_routes"])')"

# Neighbours
ctl route add 198.51.100.0/24 via 10.0.2.2 >/dev/null
check "neigh del" ctl neigh del 10.0.2.2
check "traffic goes on: dpr resolves 10.0.2.2 by ARP" pings 198.51.100.7
check "neigh list shows it learned, not static" bash -c "'$DPRCTL' -s '$SOCK' neigh list | grep -q '^10.0.2.2 .*reachable .*no$'"
check "neigh add makes it static again" ctl neigh add 10.0.2.2 02:00:00:00:02:02 dev p1
check "neigh list shows it static" bash -c "'$DPRCTL' -s '$SOCK' neigh list | grep -q '^10.0.2.2 .*yes$'"
check "traffic flows" pings 198.51.100.7
expect_error 1 "not a unicast MAC" neigh add 10.0.2.9 01:00:5e:00:00:01
expect_error 1 "no such neighbour" neigh del 10.0.2.99

# Addresses
check "addr add" ctl addr add p1 10.0.3.1/24
ip -n "$H2" addr add 10.0.3.2/24 dev eth0
ctl neigh add 10.0.3.2 02:00:00:00:02:02 >/dev/null
check "a host on the new subnet is reachable" pings 10.0.3.2
check "addr list shows it" bash -c "'$DPRCTL' -s '$SOCK' addr list | grep -q '^p1 .*10.0.3.1/24'"
expect_error 1 "overlaps" addr add p0 10.0.3.9/16
check "addr del" ctl addr del p1 10.0.3.1/24
check "the subnet is gone with its address" fails pings 10.0.3.2
expect_error 1 "no such address" addr del p1 10.0.3.1/24

# Stats and config
check "stats prints per-port counters" bash -c "'$DPRCTL' -s '$SOCK' stats | grep -q '^p0 '"
check "stats counts the no-route exceptions" \
	test "$(ctl --json stats | python3 -c 'import json,sys; print(json.load(sys.stdin)["ports"][0]["exceptions"]["no_route"])')" -ge 2
check "config shows the running ports" \
	bash -c "'$DPRCTL' -s '$SOCK' config | python3 -c 'import json,sys; c=json.load(sys.stdin); sys.exit(0 if [p[\"name\"] for p in c[\"ports\"]]==[\"p0\",\"p1\"] else 1)'"

# Telemetry: the same state and the same dispatcher
tel=$(printf '%s\n' /dpr/routes '/dpr/rpc,{"jsonrpc":"2.0","id":7,"method":"route.get","params":{"address":"198.51.100.7"}}' /dpr/stats \
	'/dpr/rpc,{"jsonrpc":"2.0","id":8,"method":"route.del","params":{"prefix":"192.0.2.0/24"}}' \
	/dpr/workers /dpr/ports |
	timeout 20 dpdk-telemetry.py -f "dpr-$T-$TAG" 2>&1)
check "telemetry /dpr/routes" grep -q '"ipv4_routes"' <<<"$tel"
check "telemetry /dpr/rpc route.get" grep -q '198.51.100.0/24' <<<"$tel"
check "telemetry /dpr/stats" grep -q '"port/p0/rx"' <<<"$tel"
check "telemetry /dpr/rpc errors like the socket" grep -q 'no such route' <<<"$tel"
check "telemetry /dpr/workers" grep -q '"worker/0/busy_cycles"' <<<"$tel"
check "telemetry /dpr/ports" grep -q '"p0/driver": "net_af_packet"' <<<"$tel"

out=$("$DPRCTL" -s "$WORK/nothing.sock" stats 2>&1); rc=$?
check "dprctl without dpr exits 3 and says so ($out)" test "$rc" -eq 3

stop_dpr
check_accounting
check "socket removed at exit" test ! -e "$SOCK"
finish

#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The control socket against broken and hostile clients: 1000 malformed
# requests each get a JSON-RPC error on a connection that stays usable; a
# 16 MiB line is served and a 17 MiB one gets -32006 and a clean close; 64
# clients are served at once and the 65th is told why not; half requests and
# clients that never read cost nothing; one that ends its input after its
# requests (socat, nc -N) still gets every answer. Afterwards dpr still runs, answers
# dprctl and forwards, and its counters add up.
source "$(dirname "$0")/lib.sh"
need_root

CLIENT="$SMOKE_DIR/rpc_client.py"
two_hosts
two_hosts_config "$WORK/dpr.json"
start_dpr "$WORK/dpr.json" -l 0,1 -- --idle-sleep 100

alive() { kill -0 "$DPR_PID" 2>/dev/null; }
# client PHASE: one phase of rpc_client.py, bounded so a hung dpr fails the test
client() { timeout 120 python3 "$CLIENT" "$SOCK" "$@"; }
# route_count: the "total" of route.list, or nothing when dpr does not answer
route_count() {
	client call route.list | python3 -c 'import json,sys; print(json.load(sys.stdin)["result"]["total"])'
}

check "the control socket is a socket" test -S "$SOCK"
mode=$(stat -c %a "$SOCK")
check "the control socket has mode 0660 (got $mode)" test "$mode" = 660
routes_before=$(route_count)
check "route.list answers before the abuse ($routes_before routes)" test "${routes_before:-0}" -gt 0

check "1000 malformed requests: each answered with a JSON-RPC error, connection stays usable" \
	client malformed
check "dpr runs after the malformed requests" alive
check "a request line of exactly 16 MiB is served" client boundary
check "a 17 MiB line gets -32006, then a clean close" client huge
check "a 17 MiB line with answers pending: -32006, nothing after it executed" \
	client huge_pending
check "dpr runs after the 17 MiB line" alive
check "64 concurrent clients served, the 65th refused with -32005" client clients
check "dpr runs after 65 clients" alive
check "half-sent requests are dropped, not executed" client half
check "dpr runs after half requests" alive
check "requests then end of input: every answer comes, then the close" client shut
check "clients that send without reading are served, then dropped" client flood
check "dpr runs after the floods" alive

# Nothing the abuse sent changed the routing table.
routes_after=$(route_count)
check "the route count is unchanged ($routes_before == ${routes_after:-none})" \
	test "${routes_before:-0}" -gt 0 -a "$routes_before" = "${routes_after:-none}"
check "dprctl stats works" ctl stats
check "dprctl route get works" ctl route get 10.0.2.2
check "h1 pings h2 through dpr" ip netns exec "$H1" ping -c 3 -i 0.2 -W 5 -q 10.0.2.2
check "dpr runs at the end" alive
stop_dpr
check_accounting
finish

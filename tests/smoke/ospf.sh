#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# OSPF end to end: BIRD 2 runs beside dpr in a router namespace, speaks
# OSPFv2 through dpr's TAP dpr-p1 with a second BIRD in namespace b1
# (10.0.2.2, behind p1), which has 10.77.0.0/24 as a stub network, and
# exports what it learns to the kernel table that dpr mirrors
# (kernel_routes); h1 sends from behind p0.
#   the neighbours reach Full on both sides (OSPF is IP, to 224.0.0.5 and
#   224.0.0.6: local exceptions to the TAP); 10.77.0.0/24 reaches dpr's FIB
#   as source kernel, protocol bird, via 10.0.2.2, and h1 pings 10.77.0.1
#   through it.
source "$(dirname "$0")/lib.sh"
need_root
command -v bird >/dev/null && command -v birdc >/dev/null ||
	die "bird missing (apt-get install bird2, or scripts/setup.sh)"

routed_peer '"kernel_routes": {}'
# dpr in the router namespace: its TAPs are created there, beside BIRD.
start_dpr "$WORK/dpr.json" --lcores 0@0,1@1 -- --idle-sleep 100

# bird_start NS ROUTER-ID OSPF-INTERFACES [MORE...]: BIRD in NS, its files in
# $WORK/NS; hellos every second (Full in seconds, not tens of them)
bird_start() {
	local ns=$1 id=$2 ifaces=$3 d=$WORK/$1
	shift 3
	mkdir -p "$d"
	printf '%s\n' "router id $id;" "protocol device { }" "$@" \
		"protocol ospf v2 {" "	ipv4 { import all; export none; };" \
		"	area 0 { $ifaces };" "}" > "$d/bird.conf"
	bg_in "$ns" "$d/bird.log" bird -f -c "$d/bird.conf" -s "$d/bird.ctl" -P "$d/bird.pid"
}
hello='hello 1; dead 4;'
bird_start "$R" 10.0.2.1 "interface \"dpr-p1\" { $hello };" \
	"protocol kernel { ipv4 { export where source = RTS_OSPF; import none; }; }"
bird_start "$B1" 10.0.2.2 "interface \"eth0\" { $hello }; interface \"s0\" { stub; };"

# full NS: NS's BIRD has its OSPF neighbour in state Full
full() { ip netns exec "$1" birdc -s "$WORK/$1/bird.ctl" show ospf neighbors | grep -q Full; }
check "dpr's BIRD has its OSPF neighbour Full on dpr-p1" wait_for 30 full "$R"
check "b1's BIRD has its OSPF neighbour Full on eth0" wait_for 10 full "$B1"

want="10.77.0.0/24 gateway 10.0.2.2 kernel bird"
# Without a neighbour there is nothing to wait for.
[ "$FAIL" -ne 0 ] || wait_for 30 is_route 10.77.0.1 "$want"
got=$(route_of 10.77.0.1)
check "10.77.0.0/24, learned over OSPF, is in dpr's FIB via b1 (got: $got)" test "$got" = "$want"
check "h1 pings 10.77.0.1 through dpr over the OSPF route" \
	ip netns exec "$H1" ping -c 3 -i 0.2 -W 2 -q 10.77.0.1

bg_stop
stop_dpr
check_accounting
finish

#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# IS-IS end to end: FRR (zebra with dplane_fpm_nl, and isisd) runs beside
# dpr in a router namespace and speaks IS-IS through dpr's TAP dpr-p1 with
# a second FRR (zebra and isisd) in namespace b1 (10.0.2.2, behind p1),
# which announces 10.77.0.0/24 (a veth of its own, redistributed);
# h1 sends from behind p0.
#   the adjacency comes Up on both sides (IS-IS hellos, 802.3 frames with
#   LLC 0xFE to the AllL2ISs group, cross dpr both ways: l2_control
#   exceptions on p1); 10.77.0.0/24 reaches dpr's FIB as source fpm,
#   protocol isis, via 10.0.2.2, and h1 pings 10.77.0.1 through it.
source "$(dirname "$0")/lib.sh"
need_root

source "$(dirname "$0")/frr.sh"
frr_need isisd

routed_peer "\"fpm\": {\"listen\": \"127.0.0.1:$FPM_PORT\"}"
# dpr in the router namespace: its TAPs are created there, beside FRR.
start_dpr "$WORK/dpr.json" --lcores 0@0,1@1 -- --idle-sleep 100

# isis_conf DIR NAME NET INTERFACE [ROUTER-LINE...]: DIR/isisd.conf, level
# 2 only, hellos every second (an adjacency in seconds, not tens of them),
# LSPs regenerated a second after a change, set before `net` starts the
# first one (FRR's default is 30 s: the LSP that lists the new adjacency,
# without which SPF uses no route of the peer's, came 30 s after it)
isis_conf() {
	local dir=$1 name=$2 net=$3 ifc=$4
	shift 4
	printf '%s\n' "hostname $name" "log file $dir/isisd.log" \
		"interface $ifc" " ip router isis 1" " isis hello-interval 1" \
		"router isis 1" " lsp-gen-interval 1" " net $net" " is-type level-2-only" \
		"$@" > "$dir/isisd.conf"
}
isis_conf "$FRR" "dpr-$TAG" 49.0001.0000.0000.0001.00 dpr-p1
frr_start

# The peer: FRR of its own in b1 (zebra without FPM, isisd), with its own
# config, pid, zserv and vty paths.
B1FRR=$WORK/frr-b1 B1_PIDS=()
mkdir -p "$B1FRR"
chown frr:frr "$B1FRR" 2>/dev/null || chmod 777 "$B1FRR"
echo "hostname b1-$TAG" > "$B1FRR/zebra.conf"
isis_conf "$B1FRR" "b1-$TAG" 49.0001.0000.0000.0002.00 eth0 \
	" redistribute ipv4 connected level-2"
b1_frr() { # b1_frr DAEMON ARGS...
	local d=$1; shift
	bg_in "$B1" "$B1FRR/$d.out" "/usr/lib/frr/$d" -f "$B1FRR/$d.conf" -i "$B1FRR/$d.pid" \
		-z "$B1FRR/zserv.api" --vty_socket "$B1FRR" -P 0 -u frr -g frr "$@"
	B1_PIDS+=("${BG_PIDS[-1]}")
}
b1_post_mortem() {
	local p
	# FRR's per-process crash-log directories (ip netns exec keeps the pid).
	for p in "${B1_PIDS[@]}"; do rm -rf "/var/tmp/frr/zebra.$p" "/var/tmp/frr/isisd.$p"; done
	[ "$FAIL" -eq 0 ] || [ ! -s "$B1FRR/isisd.log" ] ||
		{ echo "# --- b1 isisd.log ---"; tail -n 15 "$B1FRR/isisd.log" | sed 's/^/# /'; }
}
AT_EXIT+=(b1_post_mortem)
b1_frr zebra
wait_for 5 test -S "$B1FRR/zserv.api" || die "b1's zebra did not start ($B1FRR/zebra.out)"
b1_frr isisd
b1_vty() { ip netns exec "$B1" vtysh --vty_socket "$B1FRR" "$@" 2>&1; }

# up VTY IFACE: that FRR's isisd has an adjacency Up on IFACE
up() { "$1" -c "show isis neighbor" | grep -Eq "[[:space:]]$2[[:space:]]+2[[:space:]]+Up[[:space:]]"; }
# Each poll runs vtysh (a few tenths of a second): 30 is a minute or two.
check "dpr's isisd has an adjacency Up on dpr-p1" wait_for 30 up vty dpr-p1
check "b1's isisd has an adjacency Up on eth0" wait_for 10 up b1_vty eth0

want="10.77.0.0/24 gateway 10.0.2.2 fpm isis"
# Without an adjacency there is nothing to wait for.
[ "$FAIL" -ne 0 ] || wait_for 30 is_route 10.77.0.1 "$want"
got=$(route_of 10.77.0.1)
check "10.77.0.0/24, learned over IS-IS, is in dpr's FIB via b1 (got: $got)" test "$got" = "$want"
if [ "$got" != "$want" ]; then
	echo "# --- dpr's FRR: show ip route; b1's: show isis database detail ---"
	{ vty -c "show ip route"; b1_vty -c "show isis database detail"; } | sed 's/^/# /'
fi
check "h1 pings 10.77.0.1 through dpr over the IS-IS route" \
	ip netns exec "$H1" ping -c 3 -i 0.2 -W 2 -q 10.77.0.1
exc() { ctl --json stats > "$WORK/live.json" && counter 'port("p1")["exceptions"]["l2_control"]' "$WORK/live.json"; }
check "p1 counts the IS-IS hellos as l2_control exceptions ($(exc))" test "$(exc)" -gt 0

bg_stop
frr_kill TERM
stop_dpr
check_accounting
finish

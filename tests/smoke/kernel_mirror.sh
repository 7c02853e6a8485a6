#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The kernel mirror follows what the kernel forwards with, per prefix, in
# table 100 of dpr's own namespace (kernel_routes.sh covers the basics):
#   deleting a next-hop object (one, or `ip nexthop flush`) takes the
#   routes that used it away, IPv4's without an RTM_DELROUTE; deleting one
#   member of a group leaves the rest; deleting one path of an IPv6
#   multipath route keeps the other; a TAP set down leaves its paths dead
#   (unused; a route all dead is withdrawn) until it comes up; `ip route
#   append` beside a route, and routes of other metrics and TOS, leave the
#   kernel's choice in place; then a seeded random sequence of route,
#   next-hop and link changes (kroute_diff.py), both families, compared
#   with `ip -j route show` as it goes.
# Every check is on dpr's answer (`route get`, route.list) or on traffic
# reaching the host that holds the address.
source "$(dirname "$0")/lib.sh"
need_root

R=r-$TAG DPR_NETNS=r-$TAG H1=h1-$TAG G1=g1-$TAG G2=g2-$TAG V0=dv${TAG}a V1=dv${TAG}b V2=dv${TAG}c
netns "$R"; netns "$H1"; netns "$G1"; netns "$G2"

router_veth "$R" "$H1" "$V0"; router_veth "$R" "$G1" "$V1"; router_veth "$R" "$G2" "$V2"
host_addr "$H1" eth0 02:00:00:00:01:02 10.0.1.2/24 10.0.1.1 02:00:00:00:01:01
host_addr "$G1" eth0 02:00:00:00:02:02 10.0.2.2/24 10.0.2.1
host_addr "$G2" eth0 02:00:00:00:03:02 10.0.3.2/24 10.0.3.1
# Each address lives on one gateway only: a ping answered says which way
# dpr sent it.
ip -n "$G1" addr add 10.86.0.5/32 dev lo
ip -n "$G1" addr add 10.84.0.5/32 dev lo

cat > "$WORK/dpr.json" <<JSON
{
  "ports": [
    {"name": "p0", "device": "net_af_packet_${TAG}a,iface=$V0,qpairs=2",
     "mac": "02:00:00:00:01:01", "addresses": ["10.0.1.1/24"]},
    {"name": "p1", "device": "net_af_packet_${TAG}b,iface=$V1,qpairs=2",
     "mac": "02:00:00:00:02:01", "addresses": ["10.0.2.1/24", "2001:db8:2::1/64"]},
    {"name": "p2", "device": "net_af_packet_${TAG}c,iface=$V2,qpairs=2",
     "mac": "02:00:00:00:03:01", "addresses": ["10.0.3.1/24", "2001:db8:3::1/64"]}
  ],
  "neighbors": [{"address": "10.0.1.2", "mac": "02:00:00:00:01:02", "port": "p0"}],
  "control": {"socket": "$SOCK"},
  "fib": {"ipv4_max_routes": 4096, "ipv4_tbl8_groups": 64,
          "ipv6_max_routes": 1024, "ipv6_tbl8_groups": 64},
  "kernel_routes": {"table": 100}
}
JSON

start_dpr "$WORK/dpr.json" --lcores 0@0,1@1 -- --idle-sleep 100
# A TAP set down and up keeps its IPv6 addresses (the kernel's default
# drops them, and dpr puts them back only at its next TAP check, up to a
# second later): routes through it can be added again at once.
for p in p1 p2; do ip netns exec "$R" sysctl -qw "net.ipv6.conf.dpr-$p.keep_addr_on_down=1"; done

kr() { ctl call stats.get | python3 -c 'import json, sys; print(str(json.load(sys.stdin)["kernel_routes"][sys.argv[1]]).lower())' "$1"; }
# route_of ADDR: "PREFIX TYPE VIA[,VIA]" ("none" without a kernel route)
route_of() {
	ctl --json route get "$1" 2>/dev/null | python3 -c 'import json, sys
try:
    r = json.load(sys.stdin)
except ValueError:
    print("none"); sys.exit()
if r.get("source") != "kernel":
    print("none"); sys.exit()
vias = [n["via"] for n in r.get("nexthops", [])] or [r.get("via", "-")]
print(r.get("prefix"), r.get("type"), ",".join(sorted(vias)))'
}
is_route() { [ "$(route_of "$1")" = "$2" ]; }
no_route() { [ "$(route_of "$1")" = none ]; }
not_dumping() { [ "$(kr dumping)" = false ]; }
# settled: no resync under way (a TAP's link change starts one)
settled() { wait_for 10 not_dumping; }
reach() { ip netns exec "$H1" ping -c "$2" -i 0.2 -W 2 -q "$1" >/dev/null; }
x() { ip -n "$R" "$@"; }
T100=(table 100)
DIFF="$SMOKE_DIR/kroute_diff.py"
same_as_kernel() { python3 "$DIFF" compare "$R" "$SOCK" 100; }

check "the first dump is done" wait_for 10 not_dumping

# --- next-hop objects -------------------------------------------------------------
x nexthop add id 10 via 10.0.2.2 dev dpr-p1
x nexthop add id 11 via 10.0.3.2 dev dpr-p2
x nexthop add id 12 group 10/11
x route add 10.81.0.0/16 nhid 10 "${T100[@]}"
x route add 10.82.0.0/16 nhid 12 "${T100[@]}"
check "a route by next-hop object 10 ($(route_of 10.81.0.1))" \
	wait_for 5 is_route 10.81.0.1 "10.81.0.0/16 gateway 10.0.2.2"
check "a route by group 12 = 10/11 ($(route_of 10.82.0.1))" \
	wait_for 5 is_route 10.82.0.1 "10.82.0.0/16 multipath 10.0.2.2,10.0.3.2"
x nexthop del id 11
check "ip nexthop del of member 11: the group's route spreads over 10 alone ($(route_of 10.82.0.1))" \
	wait_for 5 is_route 10.82.0.1 "10.82.0.0/16 gateway 10.0.2.2"
x nexthop del id 10
check "ip nexthop del 10: the kernel's IPv4 routes by it are gone, and dpr's ($(route_of 10.81.0.1))" \
	wait_for 5 no_route 10.81.0.1
check "...and those by the group it emptied ($(route_of 10.82.0.1))" wait_for 5 no_route 10.82.0.1
check "the kernel agrees: no route left in table 100" test -z "$(x route show "${T100[@]}")"
x nexthop add id 20 via 10.0.3.2 dev dpr-p2
x -6 nexthop add id 21 via 2001:db8:2::2 dev dpr-p1
x route add 10.83.0.0/16 nhid 20 "${T100[@]}"
x -6 route add 2001:db8:83::/48 nhid 21 "${T100[@]}"
wait_for 5 is_route 2001:db8:83::1 "2001:db8:83::/48 gateway 2001:db8:2::2"
check "routes by objects 20 (IPv4) and 21 (IPv6) are in dpr" \
	is_route 10.83.0.1 "10.83.0.0/16 gateway 10.0.3.2"
x nexthop flush >/dev/null
check "ip nexthop flush: the IPv4 route by it is gone ($(route_of 10.83.0.1))" \
	wait_for 5 no_route 10.83.0.1
check "...and the IPv6 one ($(route_of 2001:db8:83::1))" wait_for 5 no_route 2001:db8:83::1

# --- IPv6 multipath: one path deleted -----------------------------------------------
x -6 route add 2001:db8:99::/48 "${T100[@]}" nexthop via 2001:db8:2::2 dev dpr-p1 \
	nexthop via 2001:db8:3::2 dev dpr-p2
check "an IPv6 two-path route ($(route_of 2001:db8:99::1))" \
	wait_for 5 is_route 2001:db8:99::1 "2001:db8:99::/48 multipath 2001:db8:2::2,2001:db8:3::2"
x -6 route del 2001:db8:99::/48 "${T100[@]}" via 2001:db8:2::2 dev dpr-p1
check "ip -6 route del of one path keeps the other, as the kernel does ($(route_of 2001:db8:99::1))" \
	wait_for 5 is_route 2001:db8:99::1 "2001:db8:99::/48 gateway 2001:db8:3::2"
x -6 route append 2001:db8:99::/48 "${T100[@]}" via 2001:db8:2::3 dev dpr-p1
check "ip -6 route append adds a path again ($(route_of 2001:db8:99::1))" \
	wait_for 5 is_route 2001:db8:99::1 "2001:db8:99::/48 multipath 2001:db8:2::3,2001:db8:3::2"

# --- a TAP set down: its paths dead -----------------------------------------------
x route add 10.84.0.0/16 "${T100[@]}" nexthop via 10.0.2.2 dev dpr-p1 nexthop via 10.0.3.2 dev dpr-p2
x route add 10.85.0.0/16 via 10.0.3.2 dev dpr-p2 "${T100[@]}"
wait_for 5 is_route 10.85.0.1 "10.85.0.0/16 gateway 10.0.3.2"
check "a two-path route through dpr-p1 and dpr-p2 ($(route_of 10.84.0.1))" \
	is_route 10.84.0.1 "10.84.0.0/16 multipath 10.0.2.2,10.0.3.2"
x link set dpr-p2 down
check "dpr-p2 down: the kernel marks its path dead" \
	wait_for 5 eval "ip -n $R route show 10.84.0.0/16 table 100 | grep -q 'dpr-p2.*dead'"
check "...and dpr spreads over the live path alone ($(route_of 10.84.0.1))" \
	wait_for 10 is_route 10.84.0.1 "10.84.0.0/16 gateway 10.0.2.2"
settled
check "h1 reaches 10.84.0.5 (on g1 only), every ping of 10" reach 10.84.0.5 10
check "the route through dpr-p2 alone, flushed by the kernel, is gone ($(route_of 10.85.0.1))" \
	no_route 10.85.0.1
check "the IPv6 route keeps its path through dpr-p1 only ($(route_of 2001:db8:99::1))" \
	is_route 2001:db8:99::1 "2001:db8:99::/48 gateway 2001:db8:2::3"
check "dpr holds what the kernel forwards with, TAP down" same_as_kernel
x link set dpr-p2 up
check "dpr-p2 up: both paths again ($(route_of 10.84.0.1))" \
	wait_for 10 is_route 10.84.0.1 "10.84.0.0/16 multipath 10.0.2.2,10.0.3.2"
settled
check "dpr holds what the kernel forwards with, TAP up again" same_as_kernel

# --- several routes for one prefix ------------------------------------------------
x route add 10.86.0.0/16 via 10.0.2.2 dev dpr-p1 "${T100[@]}"
x route append 10.86.0.0/16 via 10.0.3.2 dev dpr-p2 "${T100[@]}"
check "ip route append beside a route: dpr keeps the kernel's first ($(route_of 10.86.0.1))" \
	wait_for 5 is_route 10.86.0.1 "10.86.0.0/16 gateway 10.0.2.2"
check "h1 reaches 10.86.0.5 (on g1 only) through it" reach 10.86.0.5 3
x route del 10.86.0.0/16 via 10.0.3.2 dev dpr-p2 "${T100[@]}"
sleep 0.5
check "deleting the appended route leaves the first ($(route_of 10.86.0.1))" \
	is_route 10.86.0.1 "10.86.0.0/16 gateway 10.0.2.2"
check "h1 still reaches 10.86.0.5" reach 10.86.0.5 3
x route add 10.87.0.0/16 via 10.0.2.2 dev dpr-p1 metric 10 "${T100[@]}"
x route add 10.87.0.0/16 via 10.0.3.2 dev dpr-p2 metric 20 "${T100[@]}"
x route add 10.87.0.0/16 tos 0x10 via 10.0.3.3 dev dpr-p2 "${T100[@]}"
x route add 10.87.0.0/16 via 10.0.3.3 dev dpr-p2 metric 30 "${T100[@]}"
sleep 0.5
check "metric 10 wins over 20 and 30, a TOS 0x10 route is for its TOS only ($(route_of 10.87.0.1))" \
	is_route 10.87.0.1 "10.87.0.0/16 gateway 10.0.2.2"
x route del 10.87.0.0/16 metric 10 "${T100[@]}"
check "metric 10 deleted: metric 20 ($(route_of 10.87.0.1))" \
	wait_for 5 is_route 10.87.0.1 "10.87.0.0/16 gateway 10.0.3.2"
x -6 route add 2001:db8:87::/48 via 2001:db8:2::2 dev dpr-p1 metric 10 "${T100[@]}"
x -6 route add 2001:db8:87::/48 via 2001:db8:3::2 dev dpr-p2 metric 20 "${T100[@]}" ||
	not_ok "the kernel refused an IPv6 route through dpr-p2"
sleep 0.5
check "IPv6: metric 10 wins over 20 ($(route_of 2001:db8:87::1))" \
	is_route 2001:db8:87::1 "2001:db8:87::/48 gateway 2001:db8:2::2"
x -6 route del 2001:db8:87::/48 metric 10 "${T100[@]}"
check "IPv6: metric 10 deleted: metric 20 ($(route_of 2001:db8:87::1))" \
	wait_for 5 is_route 2001:db8:87::1 "2001:db8:87::/48 gateway 2001:db8:3::2"
check "dpr holds what the kernel forwards with" same_as_kernel

# --- an interface that is none of dpr's goes down ---------------------------------
# The kernel flushes the IPv4 routes through it without a message; a route of
# a higher metric through a TAP then takes over, in the kernel and in dpr.
x link add "ox$TAG" type veth peer name "oy$TAG"
x addr add 10.0.9.1/24 dev "ox$TAG"; x link set "ox$TAG" up; x link set "oy$TAG" up
x route add 10.88.0.0/16 via 10.0.9.2 dev "ox$TAG" metric 10 "${T100[@]}"
x route add 10.88.0.0/16 via 10.0.2.2 dev dpr-p1 metric 20 "${T100[@]}"
sleep 0.5
check "a route through another interface than dpr's wins: no dpr route ($(route_of 10.88.0.1))" \
	no_route 10.88.0.1
# Its carrier lost (the veth's peer down), the kernel removes the next-hop
# objects on it and the routes by them, again without a message.
x nexthop add id 30 via 10.0.9.2 dev "ox$TAG"
x route add 10.89.0.0/16 nhid 30 metric 10 "${T100[@]}"
x route add 10.89.0.0/16 via 10.0.2.2 dev dpr-p1 metric 20 "${T100[@]}"
sleep 0.5
check "a route by an object on that interface wins: no dpr route ($(route_of 10.89.0.1))" \
	no_route 10.89.0.1
x link set "oy$TAG" down
check "its carrier lost: the kernel's metric 20 route through dpr-p1 ($(route_of 10.89.0.1))" \
	wait_for 5 is_route 10.89.0.1 "10.89.0.0/16 gateway 10.0.2.2"
settled
x link set "ox$TAG" down
check "that interface down: the kernel's metric 20 route through dpr-p1 ($(route_of 10.88.0.1))" \
	wait_for 5 is_route 10.88.0.1 "10.88.0.0/16 gateway 10.0.2.2"
settled
x link del "ox$TAG"

# --- a resync rebuilds the same ---------------------------------------------------
x link set dpr-p1 down; x link set dpr-p1 up
settled
check "after a resync dpr still holds what the kernel forwards with" same_as_kernel

# --- random, both families, compared as it goes -----------------------------------
x route flush table 100; x -6 route flush table 100 2>/dev/null; x nexthop flush >/dev/null
SEED=${KROUTE_SEED:-$(( $(date +%s) % 100000 ))}
check "random sequence (seed $SEED, 200 steps; rerun with KROUTE_SEED=$SEED)" \
	python3 "$DIFF" random "$R" "$SOCK" 100 "$SEED" 200 ${KROUTE_VERBOSE:+-v}

stop_dpr
check_accounting
finish

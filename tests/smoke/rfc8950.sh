#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# IPv4 over IPv6 next hops (RFC 8950, FRR's unnumbered peering): dpr runs in
# a router namespace; h1 (10.0.1.2) is behind p0; g1 is behind p1, which
# has no IPv4 address at all (unnumbered): g1 speaks IPv6 link-local only
# (fe80::2) and holds 10.77-10.81.0.5, with its way back to 10.0.1.0/24
# through dpr's link-local address (`via inet6`). Each source of routes
# gives dpr an IPv4 route through fe80::2 on p1, and h1's pings cross it:
#   config ("via": "fe80::2", "port": "p1"): the very first packet is held
#   while NDP resolves fe80::2, then sent (no loss); dprctl route add;
#   the kernel mirror (`ip route add ... via inet6 fe80::2 dev dpr-p1`);
#   FPM, as RTA_VIA and as a 16-byte RTA_GATEWAY (zebra's 169.254.0.1
#   onlink form is refused under its own reason); a neighbour that never
#   answers: h1 gets host unreachable from 10.0.1.1, an IPv4 address of the
#   router; route.get shows the IPv6 gateway; the counters add up.
source "$(dirname "$0")/lib.sh"
need_root

R=r-$TAG DPR_NETNS=r-$TAG H1=h1-$TAG G1=g1-$TAG V0=dv${TAG}a V1=dv${TAG}b
FPM_PORT=2620 # the router namespace's own
netns "$R"; netns "$H1"; netns "$G1"
router_veth "$R" "$H1" "$V0"; router_veth "$R" "$G1" "$V1"
host_addr "$H1" eth0 02:00:00:00:01:02 10.0.1.2/24 10.0.1.1 02:00:00:00:01:01
# g1: IPv6 link-local only on its link to dpr, no IPv4 subnet there.
ip -n "$G1" link set eth0 address 02:00:00:00:02:02
ip netns exec "$G1" sysctl -qw net.ipv6.conf.all.disable_ipv6=0 net.ipv6.conf.eth0.disable_ipv6=0
ip -n "$G1" addr add fe80::2/64 dev eth0 nodad
ip -n "$G1" link set eth0 up
for n in 77 78 79 80 81; do ip -n "$G1" addr add "10.$n.0.5/32" dev lo; done
# dpr's p1 link-local address, EUI-64 from its MAC 02:00:00:00:02:01.
DPR_LL=fe80::ff:fe00:201
ip -n "$G1" route add 10.0.1.0/24 via inet6 "$DPR_LL" dev eth0 ||
	die "this kernel takes no IPv4 route via inet6 (Linux 5.2 and later do)"

cat > "$WORK/dpr.json" <<JSON
{
  "ports": [
    {"name": "p0", "device": "net_af_packet_${TAG}a,iface=$V0,qpairs=2",
     "mac": "02:00:00:00:01:01", "addresses": ["10.0.1.1/24"]},
    {"name": "p1", "device": "net_af_packet_${TAG}b,iface=$V1,qpairs=2",
     "mac": "02:00:00:00:02:01", "addresses": []}
  ],
  "neighbors": [{"address": "10.0.1.2", "mac": "02:00:00:00:01:02", "port": "p0"}],
  "routes": [{"prefix": "10.77.0.0/16", "via": "fe80::2", "port": "p1"}],
  "control": {"socket": "$SOCK"},
  "fib": {"ipv4_max_routes": 1024, "ipv4_tbl8_groups": 64,
          "ipv6_max_routes": 1024, "ipv6_tbl8_groups": 64},
  "kernel_routes": {"table": 254},
  "fpm": {"listen": "127.0.0.1:$FPM_PORT", "grace_s": 60}
}
JSON
start_dpr "$WORK/dpr.json" --lcores 0@0,1@1 -- --idle-sleep 100

# route_of ADDR: "PREFIX VIA PORT SOURCE" from route.get ("none" without a route)
route_of() {
	ctl --json route get "$1" 2>/dev/null | python3 -c 'import json, sys
try:
    r = json.load(sys.stdin)
except ValueError:
    print("none"); sys.exit()
print(r.get("prefix"), r.get("via", "-"), r.get("port", "-"), r.get("source", "?"))'
}
is_route() { [ "$(route_of "$1")" = "$2" ]; }
reach() { ip netns exec "$H1" ping -c "$2" -i 0.2 -W 3 -q "$1" >/dev/null; } # reach ADDR COUNT
exc() { ctl call stats.get | python3 -c 'import json, sys; print(json.load(sys.stdin)["total"]["exceptions"][sys.argv[1]])' "$1"; }

# --- config ---------------------------------------------------------------
check "route.get: 10.77.0.0/16 via fe80::2 on p1, from the config" \
	is_route 10.77.0.5 "10.77.0.0/16 fe80::2 p1 config"
u0=$(exc unresolved)
# One packet, nothing resolved yet: held while NDP asks for fe80::2.
check "the first packet through an unresolved IPv6 next hop is held, then delivered" \
	ip netns exec "$H1" ping -c 1 -W 5 -q 10.77.0.5
check "it went to the exception path as unresolved" test "$(exc unresolved)" -gt "$u0"
check "h1 reaches 10.77.0.5 over the IPv6-resolved next hop" reach 10.77.0.5 5
check "neigh.list: fe80::2 on p1 resolved to g1's MAC" \
	bash -c "'$DPRCTL' -s '$SOCK' neigh list | grep -q 'fe80::2 .*02:00:00:00:02:02'"
check "config.get keeps the route as written" \
	bash -c "'$DPRCTL' -s '$SOCK' config | grep -A1 '\"10.77.0.0/16\"' | grep -q 'fe80::2'"

# --- dprctl -------------------------------------------------------------------
check "dprctl route add 10.78.0.0/16 via fe80::2 dev p1" ctl route add 10.78.0.0/16 via fe80::2 dev p1
check "route.get: via fe80::2, from the api" is_route 10.78.0.5 "10.78.0.0/16 fe80::2 p1 api"
check "h1 reaches 10.78.0.5" reach 10.78.0.5 3
check "dprctl route add default via inet6 fe80::2 dev p1 is IPv4's default" \
	ctl route add default via inet6 fe80::2 dev p1
check "0.0.0.0/0 via fe80::2" is_route 192.0.2.7 "0.0.0.0/0 fe80::2 p1 api"
ctl route del default >/dev/null

# --- the kernel mirror ----------------------------------------------------------
ip -n "$R" route add 10.79.0.0/16 via inet6 fe80::2 dev dpr-p1 ||
	not_ok "ip route add 10.79.0.0/16 via inet6 fe80::2 dev dpr-p1 failed"
wait_for 10 is_route 10.79.0.5 "10.79.0.0/16 fe80::2 p1 kernel"
check "the kernel's route via inet6 fe80::2 dev dpr-p1 reaches dpr" \
	is_route 10.79.0.5 "10.79.0.0/16 fe80::2 p1 kernel"
check "h1 reaches 10.79.0.5" reach 10.79.0.5 3

# --- FPM ----------------------------------------------------------------------
ifx=$(ip -n "$R" -j link show dpr-p1 | python3 -c 'import json, sys; print(json.load(sys.stdin)[0]["ifindex"])')
printf 'add 10.80.0.0/16 via fe80::2 %s\nadd 10.81.0.0/16 gw fe80::2 %s\n' "$ifx" "$ifx" > "$WORK/fpm.in"
ip netns exec "$R" python3 "$SMOKE_DIR/fpm_session.py" "$FPM_PORT" < "$WORK/fpm.in" > "$WORK/fpm.out" 2>&1 ||
	not_ok "fpm_session.py: $(cat "$WORK/fpm.out")"
wait_for 10 is_route 10.81.0.5 "10.81.0.0/16 fe80::2 p1 fpm"
check "FPM RTA_VIA (AF_INET6) becomes 10.80.0.0/16 via fe80::2" \
	is_route 10.80.0.5 "10.80.0.0/16 fe80::2 p1 fpm"
check "FPM RTA_GATEWAY of 16 bytes becomes 10.81.0.0/16 via fe80::2" \
	is_route 10.81.0.5 "10.81.0.0/16 fe80::2 p1 fpm"
check "nothing refused" test "$(ctl call stats.get | python3 -c 'import json, sys; print(sum(json.load(sys.stdin)["fpm"]["refused"].values()))')" = 0
# zebra's form without next-hop objects (RTA_GATEWAY 169.254.0.1, onlink):
# no neighbour dpr can name; refused under its own reason, with the fix.
ip netns exec "$R" python3 "$SMOKE_DIR/fpm_session.py" "$FPM_PORT" \
	<<<"add 10.84.0.0/16 via 169.254.0.1 $ifx" > "$WORK/fpm.out" 2>&1
refused_ll() { [ "$(ctl call stats.get | python3 -c 'import json, sys; print(json.load(sys.stdin)["fpm"]["refused"]["gateway_169_254_0_1"])')" = 1 ]; }
check "zebra's 169.254.0.1 form is refused as gateway_169_254_0_1" wait_for 10 refused_ll
check "the log says to turn fpm use-next-hop-groups on" grep -q 'gateway_169_254_0_1.*fpm use-next-hop-groups' "$WORK/dpr.log"
check "h1 reaches 10.80.0.5 and 10.81.0.5" bash -c "$(declare -f reach); H1=$H1; reach 10.80.0.5 3 && reach 10.81.0.5 3"

# --- a neighbour that never answers ---------------------------------------------
ctl route add 10.82.0.0/16 via fe80::99 dev p1 >/dev/null
check "no answer from fe80::99: h1 gets host unreachable from 10.0.1.1" \
	bash -c "ip netns exec $H1 ping -c 1 -W 8 10.82.0.5 | grep -q 'From 10.0.1.1 .*Destination Host Unreachable'"

stop_dpr
check_accounting
finish

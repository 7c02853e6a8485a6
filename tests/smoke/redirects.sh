#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Redirects (RFC 1812 5.2.7.2, RFC 4861 8.2) to real Linux hosts: dpr's p0
# is on a bridged LAN with h1 (10.0.1.2, 2001:db8:1::2, default router dpr)
# and h3 (10.0.1.3, fe80::3), a router for 10.0.3.0/24 and 2001:db8:3::/64,
# which dpr reaches through h3 on the same LAN (a static neighbour: the
# workers forward the first packet, no hold for resolution). h1's pings to 10.0.3.5 and
# 2001:db8:3::5 go to dpr and back out of p0:
#   they arrive (dpr forwards what it redirects); h1's kernel takes dpr's
#   redirects: its route to 10.0.3.5 is via 10.0.1.3 and to 2001:db8:3::5
#   via fe80::3 (`ip route get`); counted under exceptions.redirect and the
#   exception path's icmp_redirect_sent and ipv6.redirect_sent;
#   with "redirects": false on p0: the pings arrive, no redirect is sent,
#   h1 keeps going through dpr; the counters add up.
source "$(dirname "$0")/lib.sh"
need_root

R=r-$TAG DPR_NETNS=r-$TAG L=l-$TAG H1=h1-$TAG H3=h3-$TAG V0=dv${TAG}a
netns "$R"; netns "$L"; netns "$H1"; netns "$H3"

# dpr's p0 and the two hosts on one bridge in L.
ip -n "$R" link add "$V0" type veth peer name up0 netns "$L" || die "cannot create veth $V0"
ip netns exec "$R" sysctl -qw "net.ipv6.conf.$V0.disable_ipv6=1" \
	"net.ipv4.conf.$V0.arp_ignore=8" "net.ipv4.conf.$V0.rp_filter=1"
ip -n "$R" link set "$V0" up
ip netns exec "$L" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
ip -n "$L" link add br0 type bridge forward_delay 0
ip -n "$L" link set up0 master br0 up
for h in "$H1" "$H3"; do
	ip -n "$L" link add "p-$h" type veth peer name eth0 netns "$h"
	ip -n "$L" link set "p-$h" master br0 up
	ip netns exec "$h" ethtool -K eth0 tx off >/dev/null 2>&1
done
ip -n "$L" link set br0 up
host() { # host NS MAC IPV4 IPV6 LINK-LOCAL
	ip netns exec "$1" sysctl -qw net.ipv6.conf.all.disable_ipv6=0 net.ipv6.conf.eth0.disable_ipv6=0
	ip -n "$1" link set eth0 address "$2"
	ip -n "$1" addr add "$3" dev eth0
	ip -n "$1" addr add "$4" dev eth0 nodad
	ip -n "$1" addr add "$5" dev eth0 nodad
	ip -n "$1" link set eth0 up
}
host "$H1" 02:00:00:00:01:02 10.0.1.2/24 2001:db8:1::2/64 fe80::2/64
host "$H3" 02:00:00:00:01:03 10.0.1.3/24 2001:db8:1::3/64 fe80::3/64
DPR_LL=fe80::ff:fe00:101 # p0's, from its MAC
ip -n "$H1" route add default via 10.0.1.1
ip -n "$H1" -6 route add default via "$DPR_LL" dev eth0
ip -n "$H3" addr add 10.0.3.5/32 dev lo
ip -n "$H3" addr add 2001:db8:3::5/128 dev lo
# Linux applies an ICMP redirect only when it already knows the new
# gateway's MAC (else it asks and waits for the next redirect, which dpr's
# rate limits may not send soon): h1 knows h3. ICMPv6 redirects carry it.
ip -n "$H1" neigh replace 10.0.1.3 lladdr 02:00:00:00:01:03 dev eth0 nud permanent
ip netns exec "$H1" sysctl -qw net.ipv4.conf.all.accept_redirects=1 \
	net.ipv4.conf.eth0.accept_redirects=1 net.ipv6.conf.eth0.accept_redirects=1

config() { # config REDIRECTS
	cat > "$WORK/dpr.json" <<JSON
{
  "ports": [
    {"name": "p0", "device": "net_af_packet_${TAG}a,iface=$V0,qpairs=2",
     "mac": "02:00:00:00:01:01", "addresses": ["10.0.1.1/24", "2001:db8:1::1/64"],
     "redirects": $1}
  ],
  "neighbors": [{"address": "10.0.1.3", "mac": "02:00:00:00:01:03", "port": "p0"},
                {"address": "fe80::3", "mac": "02:00:00:00:01:03", "port": "p0"}],
  "routes": [{"prefix": "10.0.3.0/24", "via": "10.0.1.3"},
             {"prefix": "2001:db8:3::/64", "via": "fe80::3", "port": "p0"}],
  "control": {"socket": "$SOCK"},
  "fib": {"ipv4_max_routes": 1024, "ipv4_tbl8_groups": 64,
          "ipv6_max_routes": 1024, "ipv6_tbl8_groups": 64}
}
JSON
}
# stat PATH: a number from stats.get ("total/exceptions/redirect", ...)
stat() {
	ctl call stats.get | python3 -c 'import json, sys
v = json.load(sys.stdin)
for k in sys.argv[1].split("/"):
    v = v[k]
print(v)' "$1"
}
via() { ip -n "$H1" route get "$1" | grep -o "via [^ ]*" | head -1; } # via ADDR
ping1() { ip netns exec "$H1" ping -c 3 -i 0.3 -W 3 -q "$1" >/dev/null; }

# --- redirects on (the default, written out) ------------------------------------
config true
start_dpr "$WORK/dpr.json" --lcores 0@0,1@1 -- --idle-sleep 100
check "h1 first goes to 10.0.3.5 through dpr" test "$(via 10.0.3.5)" = "via 10.0.1.1"
check "h1 reaches 10.0.3.5 (dpr forwards what it redirects)" ping1 10.0.3.5
check "RFC 1812 5.2.7.2: h1 took dpr's host redirect: 10.0.3.5 via 10.0.1.3" \
	test "$(via 10.0.3.5)" = "via 10.0.1.3"
check "icmp_redirect_sent counted" test "$(stat exception_path/icmp_redirect_sent)" -ge 1
check "h1 reaches 2001:db8:3::5" ping1 2001:db8:3::5
check "RFC 4861 8.2: h1 took dpr's redirect: 2001:db8:3::5 via fe80::3" \
	test "$(via 2001:db8:3::5)" = "via fe80::3"
check "ipv6.redirect_sent counted" test "$(stat exception_path/ipv6/redirect_sent)" -ge 1
check "the workers diverted them as exceptions.redirect" \
	test "$(stat total/exceptions/redirect)" -ge 1
check "a host on a subnet of p0 is no reason for a redirect: none refused" \
	test "$(stat exception_path/icmp_redirect_not_allowed)" = 0
stop_dpr
check_accounting

# --- "redirects": false ----------------------------------------------------------------
ip -n "$H1" route flush cache
ip -n "$H1" -6 route flush cache
ip -n "$H1" -6 route del 2001:db8:3::5 2>/dev/null
config false
start_dpr "$WORK/dpr.json" --lcores 0@0,1@1 -- --idle-sleep 100
check "redirects off: h1 reaches 10.0.3.5 and 2001:db8:3::5" \
	bash -c "$(declare -f ping1); H1=$H1; ping1 10.0.3.5 && ping1 2001:db8:3::5"
check "redirects off: h1 still goes through dpr (IPv4)" test "$(via 10.0.3.5)" = "via 10.0.1.1"
check "redirects off: h1 still goes through dpr (IPv6)" test "$(via 2001:db8:3::5)" = "via $DPR_LL"
check "redirects off: none sent, nothing diverted" \
	test "$(stat exception_path/icmp_redirect_sent)/$(stat exception_path/ipv6/redirect_sent)/$(stat total/exceptions/redirect)" = 0/0/0
stop_dpr
check_accounting
finish

#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# FRR's unnumbered BGP through dpr (RFC 8950): FRR (zebra with
# dplane_fpm_nl, and bgpd) runs beside dpr in a router namespace and peers
# over IPv6 link-local addresses, through dpr's TAP dpr-p1, with BIRD 2 in
# b1, whose link to dpr's p1 has no IPv4 subnet at all: fe80::2 only. The
# session carries IPv4 routes with the extended next hop capability; b1
# announces 10.77.0.0/16 and answers on 10.77.0.5 (lo). h1 sends from
# behind p0.
#   zebra installs 10.77.0.0/16 via fe80::2 on dpr-p1 and sends it over FPM
#   (next-hop objects, FRR's default): dpr takes it (source fpm, protocol
#   bgp, via fe80::2 on p1), refuses nothing, and h1's pings cross it;
#   b1 withdraws it: it leaves dpr's FIB.
source "$(dirname "$0")/lib.sh"
need_root

source "$(dirname "$0")/frr.sh"
frr_need bgpd bird birdc

R=r-$TAG DPR_NETNS=r-$TAG H1=h1-$TAG B1=b1-$TAG V0=dv${TAG}a V1=dv${TAG}b
netns "$R"; netns "$H1"; netns "$B1"
router_veth "$R" "$H1" "$V0"; router_veth "$R" "$B1" "$V1"
host_addr "$H1" eth0 02:00:00:00:01:02 10.0.1.2/24 10.0.1.1 02:00:00:00:01:01
ip -n "$B1" link set eth0 address 02:00:00:00:02:02
ip netns exec "$B1" sysctl -qw net.ipv6.conf.all.disable_ipv6=0 net.ipv6.conf.eth0.disable_ipv6=0
ip -n "$B1" addr add fe80::2/64 dev eth0 nodad
ip -n "$B1" link set eth0 up
ip -n "$B1" addr add 10.77.0.5/32 dev lo
DPR_LL=fe80::ff:fe00:201 # p1's, from its MAC
ip -n "$B1" route add 10.0.1.0/24 via inet6 "$DPR_LL" dev eth0 ||
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
  "control": {"socket": "$SOCK"},
  "fib": {"ipv4_max_routes": 1024, "ipv4_tbl8_groups": 64,
          "ipv6_max_routes": 1024, "ipv6_tbl8_groups": 64},
  "fpm": {"listen": "127.0.0.1:$FPM_PORT", "grace_s": 15}
}
JSON
start_dpr "$WORK/dpr.json" --lcores 0@0,1@1 -- --idle-sleep 100

cat > "$FRR/bgpd.conf" <<EOF
hostname dpr-bgp-$TAG
log file $FRR/bgpd.log
router bgp 65000
 bgp router-id 10.0.1.1
 no bgp ebgp-requires-policy
 neighbor fe80::2 remote-as 65001
 neighbor fe80::2 interface dpr-p1
 neighbor fe80::2 capability extended-nexthop
 neighbor fe80::2 timers 3 9
 neighbor fe80::2 timers connect 2
 address-family ipv4 unicast
  neighbor fe80::2 activate
 exit-address-family
EOF
mkdir -p "$WORK/b1"
cat > "$WORK/b1/bird.conf" <<EOF
router id 10.0.2.2;
protocol device { }
protocol static s77 { ipv4; route 10.77.0.0/16 blackhole; }
protocol bgp dpr {
	local fe80::2 as 65001;
	neighbor $DPR_LL as 65000;
	interface "eth0";
	hold time 9; keepalive time 3; connect retry time 2; error wait time 1, 5;
	ipv4 { import none; export all; extended next hop on; };
	ipv6 { import none; export none; };
}
EOF
BIRD_PID=
bird_cleanup() { [ -z "$BIRD_PID" ] || { kill "$BIRD_PID" 2>/dev/null; wait "$BIRD_PID" 2>/dev/null; }; }
AT_EXIT+=(bird_cleanup)
ip netns exec "$B1" bird -f -c "$WORK/b1/bird.conf" -s "$WORK/b1/bird.ctl" -P "$WORK/b1/bird.pid" \
	> "$WORK/b1/bird.log" 2>&1 &
BIRD_PID=$!
frr_start

fpm() { # fpm FIELD: stats.get's fpm.FIELD (a/b for nested)
	ctl call stats.get | python3 -c 'import json, sys
v = json.load(sys.stdin)["fpm"]
for k in sys.argv[1].split("/"):
    v = v[k]
print(v)' "$1"
}
# route_of ADDR: "PREFIX VIA PORT SOURCE PROTOCOL" ("none" without a route)
route_of() {
	ctl --json route get "$1" 2>/dev/null | python3 -c 'import json, sys
try:
    r = json.load(sys.stdin)
except ValueError:
    print("none"); sys.exit()
print(r.get("prefix"), r.get("via", "-"), r.get("port", "-"), r.get("source", "?"), r.get("protocol", "-"))'
}
is_route() { [ "$(route_of "$1")" = "$2" ]; }
no_route() { [ "$(route_of "$1")" = none ]; }

if wait_for 40 is_route 10.77.0.5 "10.77.0.0/16 fe80::2 p1 fpm bgp"; then
	ok "bgpd's IPv4 route over the IPv6 session reaches dpr: 10.77.0.0/16 via fe80::2 on p1, source fpm, protocol bgp"
else
	not_ok "10.77.0.0/16 via fe80::2 never reached dpr (route.get: $(route_of 10.77.0.5); zebra: $(vty -c 'show ip route 10.77.0.0/16' | tr '\n' ' '); bgp: $(vty -c 'show bgp summary' | tail -4 | tr '\n' ' '); fpm refused: $(fpm refused))"
fi
check "nothing refused over FPM" test "$(ctl call stats.get | python3 -c 'import json, sys; f = json.load(sys.stdin)["fpm"]; print(sum(f["refused"].values()) + sum(f["rejected"].values()))')" = 0
check "h1 reaches 10.77.0.5 behind the unnumbered link" \
	ip netns exec "$H1" ping -c 3 -i 0.2 -W 3 -q 10.77.0.5
ip netns exec "$B1" birdc -s "$WORK/b1/bird.ctl" disable s77 >/dev/null
check "b1 withdraws 10.77.0.0/16: it leaves dpr's FIB" wait_for 20 no_route 10.77.0.5

stop_dpr
check_accounting
finish

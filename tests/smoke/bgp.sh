#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# BGP end to end: FRR (zebra with dplane_fpm_nl, and bgpd) runs beside dpr
# in a router namespace and peers, through dpr's TAPs dpr-p1 and dpr-p2,
# with BIRD 2 in namespaces b1 (10.0.2.2, behind p1) and b2 (10.0.3.2,
# behind p2); h1 sends from behind p0. b1 announces 10.77/16, 10.78/16,
# 10.79/16, b1 and b2 both announce 10.88/16; each answers on x.x.0.5 (lo).
#   the announced prefixes reach dpr as source fpm, protocol bgp, next hop
#   the peer, and carry traffic; a withdrawn prefix leaves dpr's FIB and
#   traffic to it fails; with maximum-paths 2 the shared prefix is a dpr
#   multipath route and 64 UDP flows split across both peers, each flow at
#   one peer only; b2 going away moves every flow to b1; dpr restarted:
#   zebra reconnects and replays, traffic resumes; zebra and bgpd killed
#   and restarted within fpm.grace_s: no datagram lost, and a prefix b1
#   withdrew meanwhile is gone after the grace period.
source "$(dirname "$0")/lib.sh"
need_root

source "$(dirname "$0")/frr.sh"
frr_need bgpd bird birdc

# Covers zebra's and bgpd's restart, zebra's 3 s wait before it connects to
# dpr, and the BGP sessions coming up again and sending their routes.
GRACE=15
R=r-$TAG DPR_NETNS=r-$TAG H1=h1-$TAG B1=b1-$TAG B2=b2-$TAG V0=dv${TAG}a V1=dv${TAG}b V2=dv${TAG}c
netns "$R"; netns "$H1"; netns "$B1"; netns "$B2"

router_veth "$R" "$H1" "$V0"; router_veth "$R" "$B1" "$V1"; router_veth "$R" "$B2" "$V2"
host_addr "$H1" eth0 02:00:00:00:01:02 10.0.1.2/24 10.0.1.1 02:00:00:00:01:01
host_addr "$B1" eth0 02:00:00:00:02:02 10.0.2.2/24 10.0.2.1
host_addr "$B2" eth0 02:00:00:00:03:02 10.0.3.2/24 10.0.3.1
for a in 10.77.0.5 10.78.0.5 10.79.0.5 10.88.0.5; do ip -n "$B1" addr add $a/32 dev lo; done
ip -n "$B2" addr add 10.88.0.5/32 dev lo

cat > "$WORK/dpr.json" <<JSON
{
  "ports": [
    {"name": "p0", "device": "net_af_packet_${TAG}a,iface=$V0,qpairs=2",
     "mac": "02:00:00:00:01:01", "addresses": ["10.0.1.1/24"]},
    {"name": "p1", "device": "net_af_packet_${TAG}b,iface=$V1,qpairs=2",
     "mac": "02:00:00:00:02:01", "addresses": ["10.0.2.1/24"]},
    {"name": "p2", "device": "net_af_packet_${TAG}c,iface=$V2,qpairs=2",
     "mac": "02:00:00:00:03:01", "addresses": ["10.0.3.1/24"]}
  ],
  "neighbors": [{"address": "10.0.1.2", "mac": "02:00:00:00:01:02", "port": "p0"}],
  "control": {"socket": "$SOCK"},
  "fib": {"ipv4_max_routes": 1024, "ipv4_tbl8_groups": 64,
          "ipv6_max_routes": 1024, "ipv6_tbl8_groups": 64},
  "fpm": {"listen": "127.0.0.1:$FPM_PORT", "grace_s": $GRACE}
}
JSON

# dpr in the router namespace: its TAPs are created there, beside FRR.
dpr_start() {
	# The first run's log is kept for a failure's post-mortem.
	[ ! -s "$WORK/dpr.log" ] || mv "$WORK/dpr.log" "$WORK/dpr-first.log"
	start_dpr "$WORK/dpr.json" --lcores 0@0,1@1 -- --idle-sleep 100
}
dpr_start

# --- FRR: zebra and bgpd ---------------------------------------------------------
# Short timers so that a peer that went away or came back is seen in
# seconds; no policy needed for eBGP (FRR 8 refuses to accept or send
# eBGP routes without one by default).
cat > "$FRR/bgpd.conf" <<EOF
hostname dpr-bgp-$TAG
log file $FRR/bgpd.log
router bgp 65000
 bgp router-id 10.0.1.1
 no bgp ebgp-requires-policy
 neighbor 10.0.2.2 remote-as 65001
 neighbor 10.0.2.2 timers 3 9
 neighbor 10.0.2.2 timers connect 2
 neighbor 10.0.3.2 remote-as 65001
 neighbor 10.0.3.2 timers 3 9
 neighbor 10.0.3.2 timers connect 2
 address-family ipv4 unicast
  maximum-paths 2
 exit-address-family
EOF
# --- BIRD: one speaker per peer namespace --------------------------------------------
# bird_start NS ADDR ROUTER-PREFIX...: BIRD in NS announcing each prefix from
# a static protocol of its own (s<second octet>), so that one can be withdrawn
# with "birdc disable". eBGP: BIRD makes itself (ADDR) the next hop.
declare -A BIRD_PID=()
bird_start() {
	local ns=$1 addr=$2 p d=$WORK/$1; shift 2
	mkdir -p "$d"
	{
		echo "router id $addr;"
		echo "protocol device { }"
		for p in "$@"; do
			echo "protocol static s$(cut -d. -f2 <<<"$p") { ipv4; route $p blackhole; }"
		done
		cat <<EOF
protocol bgp dpr {
	local $addr as 65001;
	neighbor ${addr%.*}.1 as 65000;
	hold time 9; keepalive time 3; connect retry time 2; error wait time 1, 5;
	ipv4 { import none; export all; };
}
EOF
	} > "$d/bird.conf"
	ip netns exec "$ns" bird -f -c "$d/bird.conf" -s "$d/bird.ctl" -P "$d/bird.pid" \
		> "$d/bird.log" 2>&1 &
	BIRD_PID[$ns]=$!
}
birdc_in() { local ns=$1; shift; ip netns exec "$ns" birdc -s "$WORK/$ns/bird.ctl" "$@" >/dev/null; }

bird_cleanup() {
	local p
	for p in "${BIRD_PID[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
}
AT_EXIT+=(bird_cleanup)
fpm() { # fpm FIELD: stats.get's fpm.FIELD (a/b for nested)
	ctl call stats.get | python3 -c 'import json, sys
v = json.load(sys.stdin)["fpm"]
for k in sys.argv[1].split("/"):
    v = v[k]
print(str(v).lower() if isinstance(v, bool) else v)' "$1"
}
connected() { [ "$(fpm connected)" = true ]; }
reach() { ip netns exec "$H1" ping -c "$2" -i 0.2 -W 1 -q "$1" >/dev/null; } # reach ADDR COUNT
unreachable() { ! ip netns exec "$H1" ping -c 2 -i 0.2 -W 1 -q "$1" >/dev/null; }
# spread COUNT FLOWS: COUNT datagrams in FLOWS flows from h1 to 10.88.0.5,
# counted in b1 and b2: c1 f1 c2 f2 get each peer's datagrams and distinct
# flows (source ports).
c1=0 f1=0 c2=0 f2=0
spread() {
	# recv_start waits for NAME.ready: the last call's must not answer for it.
	rm -f "$WORK"/r[12] "$WORK"/r[12].ready
	recv_start "$B1" 5001 r1; recv_start "$B2" 5001 r2
	ip netns exec "$H1" python3 "$TRAFFIC" udp-send 10.88.0.5 5001 "$1" --flows "$2" --gap 0.001
	read -r c1 f1 < <(recv_stop r1); read -r c2 f2 < <(recv_stop r2)
}
disconnected() { [ "$(fpm connected)" = false ]; }
says_fpm_bgp() { ctl route get "$1" | grep -q "source fpm proto bgp"; }

frr_start
bird_start "$B1" 10.0.2.2 10.77.0.0/16 10.78.0.0/16 10.79.0.0/16 10.88.0.0/16
bird_start "$B2" 10.0.3.2 10.88.0.0/16
t0=$(date +%s.%N)
wait_for 30 is_route 10.77.0.5 "10.77.0.0/16"
t1=$(date +%s.%N)
awk -v a="$t0" -v b="$t1" 'BEGIN { printf "# first BGP route in dpr %.1f s after FRR and BIRD started\n", b - a }'
check "zebra connects to dpr's FPM port" connected

# --- announced prefixes --------------------------------------------------------------
check "b1's prefix lands in dpr as source fpm, protocol bgp, via b1 ($(route_of 10.77.0.5))" \
	is_route 10.77.0.5 "10.77.0.0/16 gateway 10.0.2.2 fpm bgp"
check "its other prefixes too" \
	wait_for 10 is_route 10.79.0.5 "10.79.0.0/16 gateway 10.0.2.2 fpm bgp"
check "dprctl route get says \"source fpm proto bgp\"" says_fpm_bgp 10.77.0.5
check "h1 reaches 10.77.0.5 in b1 through dpr" reach 10.77.0.5 3
check "h1 reaches 10.78.0.5 in b1 through dpr" reach 10.78.0.5 2

# --- withdrawal ------------------------------------------------------------------------
birdc_in "$B1" disable s78
check "b1 withdraws 10.78.0.0/16: it leaves dpr's FIB" wait_for 10 no_route 10.78.0.5
check "traffic to it fails" unreachable 10.78.0.5

# --- ECMP --------------------------------------------------------------------------------
wait_for 15 is_route 10.88.0.5 "10.88.0.0/16 multipath 10.0.2.2,10.0.3.2"
check "the prefix both peers announce is multipath in dpr ($(route_of 10.88.0.5))" \
	is_route 10.88.0.5 "10.88.0.0/16 multipath 10.0.2.2,10.0.3.2 fpm bgp"
spread 1280 64
check "64 UDP flows split across both peers (b1 $c1 datagrams in $f1 flows, b2 $c2 in $f2)" \
	test "$((c1 + c2))" -eq 1280 -a "$f1" -gt 0 -a "$f2" -gt 0
# 20 datagrams a flow: a flow seen at both peers would count twice.
check "each flow at one peer only ($f1 + $f2 flows == 64, $c1 + $c2 datagrams == 1280)" \
	test "$((f1 + f2))" -eq 64 -a "$c1" -eq $((f1 * 20)) -a "$c2" -eq $((f2 * 20))

kill -TERM "${BIRD_PID[$B2]}"; wait "${BIRD_PID[$B2]}" 2>/dev/null; unset "BIRD_PID[$B2]"
check "b2 goes away: its path leaves the multipath route" \
	wait_for 15 is_route 10.88.0.5 "10.88.0.0/16 gateway 10.0.2.2 fpm bgp"
spread 640 64
check "every flow moves to b1 (b1 $c1 datagrams in $f1 flows, b2 $c2)" \
	test "$c1" -eq 640 -a "$f1" -eq 64 -a "$c2" -eq 0

# --- dpr restarted --------------------------------------------------------------------------
stop_dpr
check_accounting
dpr_start
t0=$(date +%s.%N)
wait_for 30 is_route 10.77.0.5 "10.77.0.0/16 gateway 10.0.2.2 fpm bgp"
t1=$(date +%s.%N)
awk -v a="$t0" -v b="$t1" 'BEGIN { printf "# dpr restarted: zebra replayed BGP routes %.1f s later\n", b - a }'
check "dpr restarted: zebra reconnects" connected
check "and replays the BGP routes ($(route_of 10.77.0.5), $(route_of 10.88.0.5))" \
	is_route 10.88.0.5 "10.88.0.0/16 gateway 10.0.2.2 fpm bgp"
check "traffic resumes" wait_for 10 reach 10.77.0.5 2

# --- FRR restarted: stale routes forward, a prefix withdrawn meanwhile goes -----------------
held=$(fpm routes)
frr_kill KILL
check "dpr sees zebra go" wait_for 5 disconnected
check "its $held BGP routes stay, marked stale ($(fpm routes_stale))" \
	test "$(fpm routes_stale)" -eq "$held" -a "$held" -ge 3
birdc_in "$B1" disable s79
recv_start "$B1" 5001 nl
ip netns exec "$H1" python3 "$TRAFFIC" udp-send 10.77.0.5 5001 1000 --gap 0.01 &
SEND=$!
t0=$(date +%s.%N)
frr_start
wait_for 20 connected
t1=$(date +%s.%N)
stale_at_most() { [ "$(fpm routes_stale)" -le "$1" ]; }
wait_for "$GRACE" stale_at_most 1
t2=$(date +%s.%N)
awk -v a="$t0" -v b="$t1" -v c="$t2" \
	'BEGIN { printf "# FRR restarted: zebra connected after %.1f s, BGP routes replayed after %.1f s\n", b - a, c - a }'
wait "$SEND"
got=$(recv_stop nl | cut -d' ' -f1)
check "zebra and bgpd restarted: BGP routes replayed, not stale ($(fpm routes_stale) stale)" \
	stale_at_most 1
check "no datagram lost on 10.77.0.0/16 meanwhile (b1 got $got of 1000)" test "$got" -eq 1000
check "the prefix b1 withdrew while FRR was down goes after fpm.grace_s ($GRACE s)" \
	wait_for $((GRACE + 3)) no_route 10.79.0.5
check "the sweep removed exactly that one ($(fpm swept))" test "$(fpm swept)" -eq 1
check "the replayed routes still forward" reach 10.77.0.5 2

stop_dpr
check_accounting
finish

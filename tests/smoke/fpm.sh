#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# FRR drives dpr's FIB through FPM. dpr, zebra (with dplane_fpm_nl) and
# staticd run together in a router namespace, so zebra sees dpr's TAPs
# (their ifindexes name dpr's ports) and its kernel routes stay there; h1
# sends from behind p0, gateways g1 (p1) and g2 (p2) both hold 10.77.0.5
# and 10.88.0.5. FRR gets a private config, pid, zserv and vty directory
# and the FPM port is the namespace's own, so a system FRR is untouched.
#   a static route reaches dpr as source fpm and carries traffic to g1; an
#   ECMP static route lands as multipath; a blackhole route drops (counted);
#   a reject route answers ICMP unreachable; removing a route in FRR removes
#   it in dpr; an api route on the same prefix wins and the fpm one comes
#   back when it goes; zebra killed: routes stay (stale) and forward;
#   zebra back within fpm.grace_s: no datagram lost; a route dropped from
#   FRR's config meanwhile is gone after the grace period.
source "$(dirname "$0")/lib.sh"
need_root

source "$(dirname "$0")/frr.sh"
frr_need staticd

# zebra connects to its FPM server 3 s after it starts (dplane_fpm_nl's
# reconnect timer), then replays: the grace period must outlast both.
GRACE=6
R=r-$TAG DPR_NETNS=r-$TAG H1=h1-$TAG G1=g1-$TAG G2=g2-$TAG V0=dv${TAG}a V1=dv${TAG}b V2=dv${TAG}c
netns "$R"; netns "$H1"; netns "$G1"; netns "$G2"

router_veth "$R" "$H1" "$V0"; router_veth "$R" "$G1" "$V1"; router_veth "$R" "$G2" "$V2"
host_addr "$H1" eth0 02:00:00:00:01:02 10.0.1.2/24 10.0.1.1 02:00:00:00:01:01
host_addr "$G1" eth0 02:00:00:00:02:02 10.0.2.2/24 10.0.2.1
host_addr "$G2" eth0 02:00:00:00:03:02 10.0.3.2/24 10.0.3.1
for g in "$G1" "$G2"; do
	ip -n "$g" addr add 10.77.0.5/32 dev lo
	ip -n "$g" addr add 10.88.0.5/32 dev lo
done

cat > "$WORK/dpr.json" <<JSON
{
  "ports": [
    {"name": "p0", "device": "net_af_packet_${TAG}a,iface=$V0,qpairs=2",
     "mac": "02:00:00:00:01:01", "addresses": ["10.0.1.1/24"]},
    {"name": "p1", "device": "net_af_packet_${TAG}b,iface=$V1,qpairs=2",
     "mac": "02:00:00:00:02:01", "addresses": ["10.0.2.1/24", "2001:db8:2::1/64"]},
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

# dpr in the router namespace: its TAPs are created there, beside zebra.
start_dpr "$WORK/dpr.json" --lcores 0@0,1@1 -- --idle-sleep 100
check "config.get shows the FPM listener, table and grace period" \
	test "$(ctl config | python3 -c 'import json, sys; f = json.load(sys.stdin)["fpm"]; print(f["listen"], f["table"], f["grace_s"])')" = "127.0.0.1:$FPM_PORT 254 $GRACE"

# --- FRR ---------------------------------------------------------------------
staticd_conf() { # staticd_conf ROUTE-LINE...: staticd.conf with those routes
	{ echo "hostname dpr-fpm-$TAG"; echo "log file $FRR/staticd.log"; printf '%s\n' "$@"; } \
		> "$FRR/staticd.conf"
}
conf() { vty -c "configure terminal" "${@/#/-c}" >/dev/null; }

# fpm FIELD: stats.get's fpm.FIELD (a/b for nested)
fpm() {
	ctl call stats.get | python3 -c 'import json, sys
v = json.load(sys.stdin)["fpm"]
for k in sys.argv[1].split("/"):
    v = v[k]
print(str(v).lower() if isinstance(v, bool) else v)' "$1"
}
drops() { # drops REASON: all workers
	ctl call stats.get | python3 -c 'import json, sys; print(json.load(sys.stdin)["total"]["drops"][sys.argv[1]])' "$1"
}
# route_of ADDR: what route.get answers, as "PREFIX TYPE VIA[,VIA] SOURCE" ("none" without a route)
route_of() {
	ctl --json route get "$1" 2>/dev/null | python3 -c 'import json, sys
try:
    r = json.load(sys.stdin)
except ValueError:
    print("none"); sys.exit()
vias = [n["via"] for n in r.get("nexthops", [])] or [r.get("via", "-")]
print(r.get("prefix"), r.get("type"), ",".join(sorted(vias)), r.get("source", "?"))'
}
is_route() { [[ $(route_of "$1") == "$2"* ]]; } # is_route ADDR "PREFIX [TYPE [VIA]]"
no_route() { [ "$(route_of "$1")" = none ]; }
connected() { [ "$(fpm connected)" = true ]; }
reach() { ip netns exec "$H1" ping -c "$2" -i 0.2 -W 2 -q "$1" >/dev/null; } # reach ADDR COUNT
disconnected() { [ "$(fpm connected)" = false ]; }
from_fpm() { [[ $(route_of "$1") == *" fpm" ]]; }
listed() { ctl route list | grep -q "^$1"; } # listed "PREFIX.*VIA"
stale_at_most() { [ "$(fpm routes_stale)" -le "$1" ]; }
refused() { [ "$(fpm "refused/$1")" -eq "$2" ]; } # refused REASON COUNT
clean_counters() { # nothing refused but the one, not installed, or malformed
	ctl call stats.get | python3 -c 'import json, sys
f = json.load(sys.stdin)["fpm"]
sys.exit(sum(f["refused"].values()) != 1 or sum(f["not_installed"].values()) + f["bad_frames"] != 0)'
}

staticd_conf
frr_start
wait_for 15 connected || die "zebra did not connect to dpr's FPM port $FPM_PORT"
ok "zebra connects to dpr's FPM port"

# --- a static route ------------------------------------------------------------
conf "ip route 10.77.0.0/16 10.0.2.2"
wait_for 10 is_route 10.77.0.5 "10.77.0.0/16 gateway 10.0.2.2"
check "a static route in FRR appears in dpr (route get: $(route_of 10.77.0.5))" \
	is_route 10.77.0.5 "10.77.0.0/16 gateway 10.0.2.2"
check "route get says it comes from fpm" from_fpm 10.77.0.5
check "route list shows it" listed "10.77.0.0/16.*10.0.2.2"
check "h1 reaches 10.77.0.5 on g1 through it" \
	reach 10.77.0.5 3
conf "ipv6 route 2001:db8:77::/48 2001:db8:2::2"
check "an IPv6 static route appears too" wait_for 10 is_route 2001:db8:77::1 "2001:db8:77::/48 gateway 2001:db8:2::2"

# --- ECMP ------------------------------------------------------------------------
conf "ip route 10.88.0.0/16 10.0.2.2" "ip route 10.88.0.0/16 10.0.3.2"
wait_for 10 is_route 10.88.0.5 "10.88.0.0/16 multipath 10.0.2.2,10.0.3.2"
check "an ECMP static route lands as multipath over g1 and g2 ($(route_of 10.88.0.5))" \
	is_route 10.88.0.5 "10.88.0.0/16 multipath 10.0.2.2,10.0.3.2"
check "h1 reaches 10.88.0.5 through it" reach 10.88.0.5 3

# --- blackhole, reject, removal -------------------------------------------------
# The reject route is inside 10.77.0.0/16: without it g1 would get (and
# silently drop) what it now answers.
conf "ip route 10.99.0.0/16 blackhole" "ip route 10.77.128.0/17 reject"
check "a blackhole route appears" wait_for 10 is_route 10.99.0.1 "10.99.0.0/16"
check "a reject route appears" wait_for 10 is_route 10.77.128.1 "10.77.128.0/17"
b0=$(drops blackhole)
ip netns exec "$H1" python3 "$TRAFFIC" udp-send 10.99.0.1 5001 200 --gap 0.0005
sleep 0.3
b1=$(drops blackhole)
check "200 datagrams into the blackhole route are dropped and counted ($((b1 - b0)))" \
	test $((b1 - b0)) -eq 200
out=$(ip netns exec "$H1" ping -c 1 -W 2 10.77.128.1 2>&1)
check "the reject route answers ICMP destination unreachable" grep -q "From 10.0.1.1 .*Unreachable" <<<"$out"
conf "no ip route 10.99.0.0/16 blackhole"
check "removing the blackhole route in FRR removes it from dpr" wait_for 10 no_route 10.99.0.1

# --- a route dpr cannot use ---------------------------------------------------------
# A link in the router namespace that is none of dpr's ports.
ip -n "$R" link add "xv$TAG" type veth peer name "xw$TAG"
ip -n "$R" addr add 192.168.77.1/24 dev "xv$TAG"
ip -n "$R" link set "xw$TAG" up
ip -n "$R" link set "xv$TAG" up
conf "ip route 10.66.0.0/16 192.168.77.2"
check "a route through an interface that is no dpr port is refused and counted" \
	wait_for 10 refused interface_unknown 1
check "it is not in dpr" no_route 10.66.0.1
conf "no ip route 10.66.0.0/16 192.168.77.2"
tel=$(echo /dpr/fpm | timeout 20 dpdk-telemetry.py -f "dpr-$T-$TAG" 2>&1)
tel_has() { grep -q "\"connected\": 1" <<<"$tel" && grep -q "\"refused/interface_unknown\": 1" <<<"$tel"; }
check "telemetry /dpr/fpm shows the connection and the refusal" tel_has

# --- ownership: an api route wins over fpm's ------------------------------------
ctl route add 10.77.0.0/16 via 10.0.3.2 >/dev/null 2>&1
check "an api route on the same prefix wins ($(route_of 10.77.0.5))" \
	is_route 10.77.0.5 "10.77.0.0/16 gateway 10.0.3.2"
ctl route del 10.77.0.0/16 >/dev/null 2>&1
check "the fpm route comes back when the api one is deleted ($(route_of 10.77.0.5))" \
	is_route 10.77.0.5 "10.77.0.0/16 gateway 10.0.2.2"

# --- zebra gone: stale routes keep forwarding -------------------------------------
# staticd's running config, as it would be saved, minus 10.88.0.0/16.
staticd_conf "ip route 10.77.0.0/16 10.0.2.2" "ipv6 route 2001:db8:77::/48 2001:db8:2::2" \
	"ip route 10.77.128.0/17 reject"
held=$(fpm routes)
frr_kill KILL
check "dpr sees zebra go" wait_for 5 disconnected
stale=$(fpm routes_stale)
check "its $held routes stay, marked stale ($stale)" test "$stale" -eq "$held" -a "$held" -ge 4
check "a stale route still forwards" reach 10.77.0.5 2

# --- zebra back within the grace period: no loss; a dropped route goes -----------
recv_start "$G1" 5001 nl
ip netns exec "$H1" python3 "$TRAFFIC" udp-send 10.77.0.5 5001 600 --gap 0.01 &
SEND=$!
t0=$(date +%s.%N)
frr_start
wait_for 10 connected
t1=$(date +%s.%N)
wait_for "$GRACE" stale_at_most 1
t2=$(date +%s.%N)
awk -v a="$t0" -v b="$t1" -v c="$t2" \
	'BEGIN { printf "# zebra restarted: connected after %.1f s, replayed after %.1f s\n", b - a, c - a }'
wait "$SEND"
got=$(recv_stop nl | cut -d' ' -f1)
check "zebra reconnects" connected
check "no datagram lost while zebra restarted (g1 got $got of 600)" test "$got" -eq 600
check "the replayed routes are no longer stale (all but 10.88.0.0/16)" wait_for "$GRACE" stale_at_most 1
check "the route dropped from FRR's config goes after fpm.grace_s ($GRACE s)" \
	wait_for $((GRACE + 3)) no_route 10.88.0.5
check "the sweep removed exactly that one ($(fpm swept))" test "$(fpm swept)" -eq 1
check "the replayed route still forwards" reach 10.77.0.5 2
check "nothing else refused or failed (refused $(fpm refused), not installed $(fpm not_installed))" \
	clean_counters

frr_kill TERM
sleep 0.5
echo "# zebra stopped cleanly (SIGTERM): dpr holds $(fpm routes) fpm routes, $(fpm routes_stale) stale, withdrawn $(fpm withdrawn)"
kill -TERM "$DPR_PID"
wait "$DPR_PID"
rc=$?
DPR_PID=
check "dpr exits 0 on SIGTERM (got $rc)" test "$rc" -eq 0
check_accounting
finish

#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Route ownership across sources and the router's own addresses (dpr issue
# 50, cases 1, 3 and 5), each checked by what `dprctl route get` answers and
# by traffic from h1 (behind p0) reaching the right host. p1's wire is a
# bridge holding g1 (10.77.2.3, which owns 192.168.0.0/16) and g3
# (10.77.2.99, which owns 172.31.0.0/16 and 172.30.0.0/16); g2 (10.77.3.2)
# is behind p2 and owns 192.168.20.0/24, 172.30.0.0/16 and 10.88.0.5; the
# same in IPv6 (2001:db8:2::3, 2001:db8:2::99, 2001:db8:3::2). Datagrams to
# a multipath route are counted at its members' hosts.
#   1. A route the FIB refuses (full) costs its next hop nothing: with
#      room for 8 more routes, the kernel table mirror (table 100) gets 16,
#      single-path via g1 and multipath via g1+g2, some refused; deleting
#      some (refused and installed) leaves every other route on its own
#      gateways, also after new next hops (g3, and the group g2+g3) are
#      made, and the refused ones still in the kernel are installed once
#      the deletes make room. Today the refused routes' references are
#      dropped twice, g1's next hop and the g1+g2 group are freed while in
#      use, and g3's next hop and the g2+g3 group take their indices.
#   3. An operator's route.add shadowed by an address's connected subnet
#      (addr.add on another port) comes back when the address goes
#      (addr.del), in route get, route list and traffic; IPv4 and IPv6.
#   5. A daemon's interface route for what becomes the router's own subnet
#      (ip route add ... dev dpr-p1, then addr.add p1), withdrawn by the
#      daemon, leaves the connected subnet in place: through the kernel
#      mirror and through FPM, IPv4 and IPv6.
# After each dpr run: rib.check answers ok (skipped, with a note, on a
# dpr without that method).
source "$(dirname "$0")/lib.sh"
need_root

R=r-$TAG DPR_NETNS=r-$TAG SW=s-$TAG H1=h1-$TAG G1=g1-$TAG G2=g2-$TAG G3=g3-$TAG
V0=dv${TAG}a V1=dv${TAG}b V2=dv${TAG}c
FPM_PORT=2620 # the router namespace's own
A=10.77.2.3 B=10.77.3.2 C=10.77.2.99 A6=2001:db8:2::3 B6=2001:db8:3::2 C6=2001:db8:2::99
netns "$R"; netns "$SW"; netns "$H1"; netns "$G1"; netns "$G2"; netns "$G3"

# h1 on p0; g2 on p2; p1 into a bridge that joins g1 and g3.
router_veth "$R" "$H1" "$V0"; router_veth "$R" "$G2" "$V2"; router_veth "$R" "$SW" "$V1"
ip -n "$SW" link add br0 type bridge
ip -n "$SW" link set eth0 master br0
ip -n "$SW" link set eth0 up
for g in "$G1" "$G3"; do
	ip -n "$SW" link add "p-$g" type veth peer name eth0 netns "$g"
	ip -n "$SW" link set "p-$g" master br0
	ip -n "$SW" link set "p-$g" up
	ip netns exec "$g" ethtool -K eth0 tx off >/dev/null 2>&1
done
ip -n "$SW" link set br0 up
host_addr "$H1" eth0 02:00:00:00:01:02 10.0.1.2/24 10.0.1.1 02:00:00:00:01:01
host_addr "$G1" eth0 02:00:00:00:02:03 "$A/24" 10.77.2.1
host_addr "$G3" eth0 02:00:00:00:02:63 "$C/24" 10.77.2.1
host_addr "$G2" eth0 02:00:00:00:03:02 "$B/24" 10.77.3.1
# IPv6 too (host_addr turned it off).
host6() { # host6 NS ADDR/LEN GATEWAY
	ip netns exec "$1" sysctl -qw net.ipv6.conf.all.disable_ipv6=0 \
		net.ipv6.conf.lo.disable_ipv6=0 net.ipv6.conf.eth0.disable_ipv6=0
	ip -n "$1" addr add "$2" dev eth0 nodad
	ip -n "$1" -6 route add default via "$3"
}
host6 "$H1" 2001:db8:1::2/64 2001:db8:1::1
host6 "$G1" 2001:db8:2::3/64 2001:db8:2::1
host6 "$G2" 2001:db8:3::2/64 2001:db8:3::1
host6 "$G3" 2001:db8:2::99/64 2001:db8:2::1
# What each host owns: the only one answering for it.
ip -n "$G1" addr add 192.168.0.1/16 dev lo
ip -n "$G2" addr add 192.168.20.1/24 dev lo
ip -n "$G2" addr add 172.30.0.1/16 dev lo
ip -n "$G3" addr add 172.31.0.1/16 dev lo
ip -n "$G3" addr add 172.30.0.1/16 dev lo
for a in 2001:db8:100:6::1 2001:db8:100:7::1 2001:db8:100:20::1; do ip -n "$G1" addr add $a/128 dev lo; done
for a in 2001:db8:100:20::1 2001:db8:30::1; do ip -n "$G2" addr add $a/128 dev lo; done
for a in 2001:db8:31::1 2001:db8:30::1; do ip -n "$G3" addr add $a/128 dev lo; done
ip -n "$G2" addr add 10.88.0.5/32 dev lo
ip -n "$G2" addr add 2001:db8:88::5/128 dev lo
# On p1's wire, inside the subnets case 5 gives p1.
ip -n "$G1" addr add 10.0.9.5/24 dev eth0
ip -n "$G1" addr add 10.0.19.5/24 dev eth0
ip -n "$G1" addr add 2001:db8:9::5/64 dev eth0 nodad
ip -n "$G1" addr add 2001:db8:19::5/64 dev eth0 nodad

# dpr_config FILE FIB-MEMBERS NEIGHBOURS EXTRA: three ports, the kernel
# table mirror on table 100, this test's socket.
dpr_config() {
	cat > "$1" <<JSON
{
  "ports": [
    {"name": "p0", "device": "net_af_packet_${TAG}a,iface=$V0,qpairs=2",
     "mac": "02:00:00:00:01:01", "addresses": ["10.0.1.1/24", "2001:db8:1::1/64"]},
    {"name": "p1", "device": "net_af_packet_${TAG}b,iface=$V1,qpairs=2",
     "mac": "02:00:00:00:02:01", "addresses": ["10.77.2.1/24", "2001:db8:2::1/64"]},
    {"name": "p2", "device": "net_af_packet_${TAG}c,iface=$V2,qpairs=2",
     "mac": "02:00:00:00:03:01", "addresses": ["10.77.3.1/24", "2001:db8:3::1/64"]}
  ],
  "neighbors": [$3],
  "control": {"socket": "$SOCK"},
  "fib": {$2},
  "kernel_routes": {"table": 100}$4
}
JSON
}

# route_of ADDR: what route.get answers, as "PREFIX TYPE HOP SOURCE"; HOP is
# the gateway, the sorted gateways of a multipath route, or "dev PORT";
# "none" when there is no route.
route_of() {
	ctl --json route get "$1" 2>/dev/null | python3 -c 'import json, sys
try:
    r = json.load(sys.stdin)
except ValueError:
    print("none"); sys.exit()
if r.get("type") == "multipath":
    hop = ",".join(sorted(n["via"] for n in r.get("nexthops", [])))
else:
    hop = r.get("via") or "dev %s" % r.get("port", "-")
print(r.get("prefix"), r.get("type"), hop, r.get("source", "?"))'
}
# expect_route ADDR WANT WHAT: route get ADDR answers WANT (a prefix of the
# "PREFIX TYPE HOP SOURCE" line)
expect_route() {
	local got
	got=$(route_of "$1")
	if [[ $got == "$2"* ]]; then ok "$3: route get $1 answers \"$got\""
	else not_ok "$3: route get $1: expected \"$2\", got \"$got\""; fi
}
is_route() { [[ $(route_of "$1") == "$2"* ]]; } # is_route ADDR WANT
# expect_reach ADDR WHAT: h1's pings to ADDR are answered (by the one host
# that owns ADDR)
expect_reach() {
	local out
	if out=$(ip netns exec "$H1" ping -c 3 -i 0.2 -W 2 "$1" 2>&1); then ok "$2: h1 reaches $1 ($(grep -o '[0-9]* received' <<<"$out"))"
	else not_ok "$2: h1's pings to $1 go unanswered: $(grep -E 'received|Unreachable' <<<"$out" | head -n 2 | tr '\n' ' ')"; fi
}
UDP_N=0
# expect_udp ADDR WHAT NS...: 40 datagrams in 20 flows from h1 to ADDR all
# reach the hosts NS... (multipath: either member's host), none elsewhere
expect_udp() {
	local dst=$1 what=$2 ns got total=0 split='' i first=$UDP_N
	shift 2
	# A name of its own for each receiver: recv_start waits for its
	# ready file, which an earlier one of the same name left behind.
	for ns in "$@"; do
		UDP_N=$((UDP_N + 1))
		if [[ $dst == *:* ]]; then recv_start "$ns" 5020 "udp$UDP_N" --ipv6
		else recv_start "$ns" 5020 "udp$UDP_N"; fi
	done
	ip netns exec "$H1" python3 "$TRAFFIC" udp-send "$dst" 5020 40 --flows 20 --gap 0.002
	i=$first
	for ns in "$@"; do
		i=$((i + 1))
		got=$(recv_stop "udp$i" | cut -d' ' -f1)
		total=$((total + got))
		split="$split ${ns%-"$TAG"} $got"
	done
	if [ "$total" -eq 40 ]; then ok "$what: all 40 datagrams to $dst reach its gateways' hosts ($split)"
	else not_ok "$what: of 40 datagrams to $dst, its gateways' hosts got $total ($split)"; fi
}
# fed SECTION: the changes a feed ("kernel_routes", "fpm") has applied so far
fed() {
	ctl call stats.get | python3 -c 'import json, sys
f = json.load(sys.stdin)[sys.argv[1]]
print(f["installed"] + f["withdrawn"] + f["withdrawn_unheld"] + sum(f["not_installed"].values()))' "$1"
}
fed_at_least() { [ "$(fed "$1")" -ge "$2" ]; }
# settle SECTION BEFORE N: wait until the feed applied N more changes (the
# same on a correct and a broken dpr: what is checked next is the outcome)
settle() {
	wait_for 10 fed_at_least "$1" $(($2 + $3)) ||
		not_ok "$1 applied $(($(fed "$1") - $2)) of the $3 route changes given it within 10 s"
}
# rib_check: rib.check answers ok (a dpr without it: skipped, said so)
rib_check() {
	local out rc
	out=$(ctl call rib.check 2>&1); rc=$?
	if grep -qi "unknown method" <<<"$out"; then
		echo "# rib.check: this dpr has no such method yet ($(head -c 80 <<<"$out")...): skipped"
	elif [ "$rc" -eq 0 ] && python3 -c 'import json, sys; sys.exit(json.load(sys.stdin).get("ok") is not True)' <<<"$out" 2>/dev/null; then
		ok "rib.check answers {\"ok\": true} $1"
	else
		not_ok "rib.check $1: expected {\"ok\": true}, got (exit $rc): $(tr '\n' ' ' <<<"$out")"
	fi
}
kroute() { ip -n "$R" route "$@"; }

# === 1. routes the FIB refuses ===============================================
# fib_routes V: the routes in dpr's IPv4 (V=4) or IPv6 (V=6) FIB
fib_routes() { ctl --json stats | python3 -c 'import json, sys; print(json.load(sys.stdin)["fib"]["ipv%s_routes" % sys.argv[1]])' "$1"; }
# net V I, probe V I: the I-th of case 1's prefixes, and an address in it
net() { if [ "$1" = 4 ]; then echo "192.168.$2.0/24"; else echo "2001:db8:100:$2::/64"; fi; }
probe() { if [ "$1" = 4 ]; then echo "192.168.$2.1"; else echo "2001:db8:100:$2::1"; fi; }

# refused V BASE: case 1 in family V, BASE routes in its FIB to begin with
# (the ports' addresses, the static neighbours h1, g1 and g2), room for 8
# more: the kernel's first 8 routes; after the deletes and the 2 new routes
# 7 are used, and the eighth is for g3's host route once it is learned.
refused() {
	local v=$1 base=$2 a b c new1 new2 p1 p2 ecmp i k0 wrong gone
	if [ "$v" = 4 ]; then
		a=$A b=$B c=$C new1=172.31.0.0/16 p1=172.31.0.1 new2=172.30.0.0/16 p2=172.30.0.1
	else
		a=$A6 b=$B6 c=$C6 new1=2001:db8:31::/48 p1=2001:db8:31::1 new2=2001:db8:30::/48 p2=2001:db8:30::1
	fi
	local n0
	n0=$(fib_routes "$v")
	[ "$n0" -eq "$base" ] ||
		die "IPv$v: dpr starts with $n0 routes, not the $base this case counts on (its ports' addresses and static neighbours)"
	ecmp="nexthop via $a dev dpr-p1 nexthop via $b dev dpr-p2"
	k0=$(fed kernel_routes)
	# In this order: 1-6 and 20 fill the FIB, 7-12 and 21-23 are refused.
	{ for i in 1 2 3 4 5 6; do echo "route add $(net "$v" "$i") table 100 via $a dev dpr-p1"; done
	  for i in 20 21; do echo "route add $(net "$v" "$i") table 100 $ecmp"; done
	  for i in 7 8 9 10 11 12; do echo "route add $(net "$v" "$i") table 100 via $a dev dpr-p1"; done
	  for i in 22 23; do echo "route add $(net "$v" "$i") table 100 $ecmp"; done
	} > "$WORK/adds$v"
	ip -n "$R" -"$v" -batch "$WORK/adds$v"
	settle kernel_routes "$k0" 16
	expect_route "$(probe "$v" 6)" "$(net "$v" 6) gateway $a kernel" "IPv$v FIB filling up"
	expect_route "$(probe "$v" 20)" "$(net "$v" 20) multipath $a,$b kernel" "IPv$v FIB filling up"
	check "the IPv$v FIB is full: $(fib_routes "$v") routes of $((base + 8))" \
		test "$(fib_routes "$v")" -eq $((base + 8))
	echo "# FIB full: the kernel mirror says $(ctl call stats.get | python3 -c 'import json, sys; k = json.load(sys.stdin)["kernel_routes"]; print(k["routes"], "routes held,", k["routes_active"], "active; not installed:", k["not_installed"])')"

	# Refused multipath ones first, then refused single-path ones, then
	# installed ones: 5-8 and 20 stay.
	k0=$(fed kernel_routes)
	for i in 22 23 9 10 11 12 1 2 3 4 21; do echo "route del $(net "$v" "$i") table 100"; done \
		> "$WORK/dels$v"
	ip -n "$R" -"$v" -batch "$WORK/dels$v"
	settle kernel_routes "$k0" 11
	# New next hops: g3, and the group g2+g3.
	k0=$(fed kernel_routes)
	kroute add "$new1" table 100 via "$c" dev dpr-p1
	kroute add "$new2" table 100 nexthop via "$b" dev dpr-p2 nexthop via "$c" dev dpr-p1
	settle kernel_routes "$k0" 2

	for i in 5 6; do
		expect_route "$(probe "$v" "$i")" "$(net "$v" "$i") gateway $a kernel" \
			"installed before the IPv$v FIB filled, still via g1"
	done
	for i in 7 8; do
		expect_route "$(probe "$v" "$i")" "$(net "$v" "$i") gateway $a kernel" \
			"refused while the IPv$v FIB was full, installed once deletes made room"
	done
	expect_route "$(probe "$v" 20)" "$(net "$v" 20) multipath $a,$b kernel" \
		"IPv$v multipath route beside refused ones, still via g1 and g2"
	expect_route "$p1" "$new1 gateway $c kernel" "IPv$v: a new gateway's route"
	expect_route "$p2" "$new2 multipath $(tr ' ' '\n' <<<"$b $c" | sort | paste -sd,) kernel" \
		"IPv$v: a new multipath group's route"
	expect_route "$a" "$a/$([ "$v" = 4 ] && echo 32 || echo 128) neighbor $a" \
		"g1's static neighbour host route, still g1's"
	# Every route of table 100, by its first address: dpr answers it with
	# the kernel's gateways.
	wrong=$(ip -n "$R" -"$v" -j route show table 100 | python3 -c 'import ipaddress, json, sys
for r in json.load(sys.stdin):
    net = ipaddress.ip_network(r["dst"])
    gws = [h["gateway"] for h in r.get("nexthops", [])] or [r["gateway"]]
    kind = "multipath" if len(gws) > 1 else "gateway"
    print(net[1], "%s %s %s kernel" % (net, kind, ",".join(sorted(gws))))' |
		while read -r addr want; do
			got=$(route_of "$addr")
			[ "$got" = "$want" ] || printf '%s: expected "%s", got "%s"; ' "$addr" "$want" "$got"
		done)
	check "each of the $(ip -n "$R" -"$v" route show table 100 | wc -l) IPv$v routes in table 100 is answered with the kernel's gateways${wrong:+: $wrong}" \
		test -z "$wrong"
	gone=$(for i in 1 4 9 12 21 22 23; do
		got=$(route_of "$(probe "$v" "$i")")
		[ "$got" = none ] || printf '%s: "%s"; ' "$(probe "$v" "$i")" "$got"
	done)
	check "the IPv$v routes deleted from the kernel are gone from dpr${gone:+: $gone}" test -z "$gone"
	expect_reach "$(probe "$v" 6)" "IPv$v, via g1 (only g1 owns it)"
	expect_reach "$(probe "$v" 7)" "IPv$v, a refused route installed later, via g1"
	expect_reach "$p1" "IPv$v, via g3"
	expect_udp "$(probe "$v" 20)" "IPv$v multipath g1+g2" "$G1" "$G2"
	expect_udp "$p2" "IPv$v multipath g2+g3" "$G2" "$G3"
}

# Static neighbours h1, g1 and g2: their next hops exist before the
# kernel's routes, and their host routes are among the routes dpr starts
# with: IPv4 3 for each port's address, 3 neighbours; IPv6 4 for each port
# (its subnet, address, subnet-router anycast address and link-local
# address), 3 neighbours.
neigh() { echo "{\"address\": \"$1\", \"mac\": \"$2\", \"port\": \"$3\"}"; }
dpr_config "$WORK/dpr1.json" '"ipv4_max_routes": 20, "ipv4_tbl8_groups": 16,
          "ipv6_max_routes": 23, "ipv6_tbl8_groups": 1024' \
	"$(neigh 10.0.1.2 02:00:00:00:01:02 p0), $(neigh $A 02:00:00:00:02:03 p1),
    $(neigh $B 02:00:00:00:03:02 p2), $(neigh 2001:db8:1::2 02:00:00:00:01:02 p0),
    $(neigh $A6 02:00:00:00:02:03 p1), $(neigh $B6 02:00:00:00:03:02 p2)" ''
start_dpr "$WORK/dpr1.json" --lcores 0@0,1@1 -- --idle-sleep 100
refused 4 12
refused 6 15
rib_check "after the FIB filled up"
stop_dpr
check_accounting

# === 3 and 5: the router's own subnets =======================================
dpr_config "$WORK/dpr2.json" '"ipv4_max_routes": 1024, "ipv4_tbl8_groups": 64,
          "ipv6_max_routes": 1024, "ipv6_tbl8_groups": 1024' \
	'{"address": "10.0.1.2", "mac": "02:00:00:00:01:02", "port": "p0"}' \
	',
  "fpm": {"listen": "127.0.0.1:'$FPM_PORT'", "grace_s": 600}'
start_dpr "$WORK/dpr2.json" --lcores 0@0,1@1 -- --idle-sleep 100

# listed PREFIX VIA: route list shows PREFIX via VIA (the matching entry,
# or what it shows for PREFIX, on stdout)
listed() {
	ctl --json route list | python3 -c 'import json, sys
rs = [r for r in json.load(sys.stdin) if r.get("prefix") == sys.argv[1]]
print("; ".join("%s via %s (%s)" % (r["prefix"], r.get("via", r.get("type")), r.get("source")) for r in rs) or "nothing")
sys.exit(not any(r.get("via") == sys.argv[2] for r in rs))' "$1" "$2"
}
expect_listed() { # expect_listed PREFIX VIA WHAT
	local got
	if got=$(listed "$1" "$2"); then ok "$3: route list shows $got"
	else not_ok "$3: route list: expected $1 via $2, shows $got"; fi
}

# --- 3. an address shadows an operator's route, then goes ----------------------
shadow() { # shadow PREFIX GW ADDR/LEN PROBE
	local pf=$1 gw=$2 a=$3 probe=$4 out
	out=$(ctl route add "$pf" via "$gw" 2>&1) || not_ok "route add $pf via $gw: $out"
	expect_route "$probe" "$pf gateway $gw api" "route.add $pf via $gw"
	out=$(ctl addr add p1 "$a" 2>&1) || not_ok "addr add p1 $a: $out"
	expect_route "$probe" "$pf connected dev p1" "addr add p1 $a: its connected subnet wins"
	out=$(ctl addr del p1 "$a" 2>&1) || not_ok "addr del p1 $a: $out"
	expect_route "$probe" "$pf gateway $gw api" "addr del p1 $a: the operator's route is back"
	expect_listed "$pf" "$gw" "addr del p1 $a: the operator's route is back"
	expect_reach "$probe" "addr del p1 $a: the operator's route carries traffic to g2"
}
shadow 10.88.0.0/24 $B 10.88.0.1/24 10.88.0.5
shadow 2001:db8:88::/64 2001:db8:3::2 2001:db8:88::1/64 2001:db8:88::5

# --- 5. a daemon's interface route on the router's own subnet ----------------
# own_subnet DAEMON PREFIX ADDR/LEN PROBE ADD-CMD DEL-CMD SECTION
own_subnet() {
	local who=$1 pf=$2 a=$3 probe=$4 add=$5 del=$6 sec=$7 src=$8 out k0
	eval "$add"
	wait_for 10 is_route "$probe" "$pf connected dev p1 $src"
	expect_route "$probe" "$pf connected dev p1 $src" "$who: an interface route on p1"
	out=$(ctl addr add p1 "$a" 2>&1) || not_ok "addr add p1 $a: $out"
	expect_route "$probe" "$pf connected dev p1" "$who: addr add p1 $a"
	k0=$(fed "$sec")
	eval "$del"
	settle "$sec" "$k0" 1
	expect_route "$probe" "$pf connected dev p1" "$who withdraws its route: p1's subnet from addr add p1 $a stays"
	expect_reach "$probe" "$who withdraws its route: a host on p1's subnet $pf"
}
own_subnet "ip route (table 100)" 10.0.9.0/24 10.0.9.1/24 10.0.9.5 \
	"kroute add 10.0.9.0/24 dev dpr-p1 table 100" "kroute del 10.0.9.0/24 dev dpr-p1 table 100" \
	kernel_routes kernel
own_subnet "ip -6 route (table 100)" 2001:db8:9::/64 2001:db8:9::1/64 2001:db8:9::5 \
	"kroute add 2001:db8:9::/64 dev dpr-p1 table 100" "kroute del 2001:db8:9::/64 dev dpr-p1 table 100" \
	kernel_routes kernel

# Through FPM: one connection that stays open, as zebra's.
ifx=$(ip -n "$R" -j link show dpr-p1 | python3 -c 'import json, sys; print(json.load(sys.stdin)[0]["ifindex"])')
mkfifo "$WORK/fpm.in"
ip netns exec "$R" python3 "$SMOKE_DIR/fpm_session.py" "$FPM_PORT" < "$WORK/fpm.in" > "$WORK/fpm.out" 2>&1 &
FPM_PID=$!
fpm_stop() { exec 7>&- 2>/dev/null; [ -z "${FPM_PID:-}" ] || reap 5 "$FPM_PID"; FPM_PID=; }
AT_EXIT+=(fpm_stop)
exec 7> "$WORK/fpm.in"
fpm_connected() { [ "$(ctl call stats.get | python3 -c 'import json, sys; print(json.load(sys.stdin)["fpm"]["connected"])')" = True ]; }
wait_for 10 fpm_connected || not_ok "the FPM session did not connect: $(cat "$WORK/fpm.out")"
own_subnet "zebra (FPM)" 10.0.19.0/24 10.0.19.1/24 10.0.19.5 \
	"echo 'add 10.0.19.0/24 dev $ifx' >&7" "echo 'del 10.0.19.0/24' >&7" fpm fpm
own_subnet "zebra (FPM, IPv6)" 2001:db8:19::/64 2001:db8:19::1/64 2001:db8:19::5 \
	"echo 'add 2001:db8:19::/64 dev $ifx' >&7" "echo 'del 2001:db8:19::/64' >&7" fpm fpm
fpm_stop

rib_check "after addresses came and went over routes of every source"
stop_dpr
check_accounting
finish

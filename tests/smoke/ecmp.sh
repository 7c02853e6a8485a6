#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Multipath: a sender h1 behind p0 and two gateways, g1 on p1 and g2 on p2,
# both holding 10.9.0.5; dpr (net_af_packet on veths, 2 workers) routes
# 10.9.0.0/16 through both, resolving them by ARP. Many UDP flows reach
# both gateways, each flow only one of them, and dpr's counters match what
# arrived. With g2's link down (its veth end set down: dpr's end loses
# carrier) dpr unresolves g2 by itself, every flow goes through g1 and none
# waits for g2; once the link is back and g2 answers again it takes its
# share back. Also: dprctl's multipath syntax, route.load lines, IPv6 routes.
source "$(dirname "$0")/lib.sh"
need_root

V0=dv${TAG}a V1=dv${TAG}b V2=dv${TAG}c H1=h1-$TAG G1=g1-$TAG G2=g2-$TAG
netns "$H1"; netns "$G1"; netns "$G2"
veth_pair "$H1" eth0 "$V0"
veth_pair "$G1" eth0 "$V1"
veth_pair "$G2" eth0 "$V2"
host_addr "$H1" eth0 02:00:00:00:01:02 10.0.1.2/24 10.0.1.1 02:00:00:00:01:01
# The gateways answer dpr's ARP; both hold the destination.
host_addr "$G1" eth0 02:00:00:00:02:02 10.0.2.2/24 10.0.2.1 02:00:00:00:02:01
host_addr "$G2" eth0 02:00:00:00:03:02 10.0.3.2/24 10.0.3.1 02:00:00:00:03:01
ip -n "$G1" addr add 10.9.0.5/32 dev lo
ip -n "$G2" addr add 10.9.0.5/32 dev lo

cat > "$WORK/dpr.json" <<JSON
{
  "ports": [
    {"name": "p0", "device": "net_af_packet_${TAG}a,iface=$V0,qpairs=3",
     "mac": "02:00:00:00:01:01", "addresses": ["10.0.1.1/24"]},
    {"name": "p1", "device": "net_af_packet_${TAG}b,iface=$V1,qpairs=3",
     "mac": "02:00:00:00:02:01", "addresses": ["10.0.2.1/24", "2001:db8:2::1/64"]},
    {"name": "p2", "device": "net_af_packet_${TAG}c,iface=$V2,qpairs=3",
     "mac": "02:00:00:00:03:01", "addresses": ["10.0.3.1/24", "2001:db8:3::1/64"]}
  ],
  "neighbors": [{"address": "10.0.1.2", "mac": "02:00:00:00:01:02", "port": "p0"}],
  "control": {"socket": "$SOCK"},
  "fib": {"ipv4_max_routes": 1024, "ipv4_tbl8_groups": 64, "ipv6_max_routes": 1024}
}
JSON

# A UDP receiver that remembers each flow (source port): "count" and "ports".
cat > "$WORK/recv.py" <<'PY'
import json, os, signal, socket, sys
out = sys.argv[1]
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, getattr(socket, "SO_RCVBUFFORCE", 33), 32 << 20)
s.bind(("0.0.0.0", 5001))
s.settimeout(0.1)
ports, stop = {}, []
signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
open(out + ".ready", "w").close()
while True:
    try:
        _, src = s.recvfrom(2048)
        ports[src[1]] = ports.get(src[1], 0) + 1
    except socket.timeout:
        if stop:
            break
json.dump({"count": sum(ports.values()), "ports": sorted(ports)}, open(out, "w"))
PY

RECV_PIDS=()
recv_both() { # recv_both PHASE
	local ns
	for ns in "$G1" "$G2"; do
		rm -f "$WORK/$1-$ns" "$WORK/$1-$ns.ready"
		ip netns exec "$ns" python3 "$WORK/recv.py" "$WORK/$1-$ns" &
		RECV_PIDS+=($!)
		for _ in $(seq 100); do [ -f "$WORK/$1-$ns.ready" ] && break; sleep 0.05; done
	done
}
recv_stop() {
	sleep 0.5 # what is in flight lands
	kill -TERM "${RECV_PIDS[@]}"
	wait "${RECV_PIDS[@]}" 2>/dev/null
	RECV_PIDS=()
}
# jq-free reads of the receivers' files and of stats.get
rcount() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["count"])' "$WORK/$1"; }
rflows() { python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["ports"]))' "$WORK/$1"; }
shared_flows() {
	python3 -c 'import json,sys; a,b=(set(json.load(open(f))["ports"]) for f in sys.argv[1:]); print(len(a & b))' \
		"$WORK/$1" "$WORK/$2"
}
now() { # now PORT FIELD: that port's counter now (all workers)
	ctl call stats.get | python3 -c 'import json,sys
S = json.load(sys.stdin)
print(next(p for p in S["ports"] if p["name"] == sys.argv[1])[sys.argv[2]])' "$1" "$2"
}
# resolved GATEWAY: "true"/"false", as route get 10.9.0.5 shows it
resolved() {
	ctl --json route get 10.9.0.5 | python3 -c 'import json,sys
r = json.load(sys.stdin)
print(str(next(n["resolved"] for n in r["nexthops"] if n["via"] == sys.argv[1])).lower())' "$1"
}
is_resolved() { [ "$(resolved "$1")" = "$2" ]; } # is_resolved GATEWAY true|false
wait_resolved() { wait_for "$3" is_resolved "$1" "$2"; } # wait_resolved GATEWAY WANT SECONDS

start_dpr "$WORK/dpr.json" --lcores "0@0,1@0,2@1" -- --idle-sleep 100

# --- the API and dprctl ---------------------------------------------------------
out=$(ctl route add 10.9.0.0/16 via 10.0.2.2 via 10.0.3.2 2>&1)
check "dprctl route add with two gateways makes a multipath route" grep -q multipath <<<"$out"
out=$(ctl route get 10.9.0.5)
check "route get shows both gateways on one line" \
	test "$(grep -oE 'via 10\.0\.(2|3)\.2 dev p[12] weight 1' <<<"$out" | wc -l)" -eq 2 -a "$(wc -l <<<"$out")" -eq 1
check "route list shows the multipath route" grep -q "^10.9.0.0/16 *multipath" <(ctl route list)
printf '10.8.0.0/16 via 10.0.2.2 dev p1 weight 3 via 10.0.3.2\n' | ctl route load - >/dev/null
weights=$(ctl --json route get 10.8.0.1 | python3 -c 'import json,sys
print(" ".join("%s:%s" % (n["via"], n["weight"]) for n in json.load(sys.stdin)["nexthops"]))')
check "route load takes a weighted multipath line ($weights)" test "$weights" = "10.0.2.2:3 10.0.3.2:1"
ctl route add 2001:db8:9::/48 via 2001:db8:2::2 via 2001:db8:3::2 weight 2 >/dev/null
weights=$(ctl --json route get 2001:db8:9::1 | python3 -c 'import json,sys
r = json.load(sys.stdin)
print(r["type"], " ".join("%s:%s" % (n["via"], n["weight"]) for n in r["nexthops"]))')
check "IPv6 multipath through dprctl ($weights)" \
	test "$weights" = "multipath 2001:db8:2::2:1 2001:db8:3::2:2"
ctl route del 10.8.0.0/16 >/dev/null
ctl route del 2001:db8:9::/48 >/dev/null
twice() { ! ctl route add 10.7.0.0/16 via 10.0.2.2 via 10.0.2.2 2>/dev/null; }
check "a gateway given twice is refused" twice

# --- both gateways ------------------------------------------------------------------
# No packet asks for the gateways yet: dpr resolves them itself.
both() { wait_resolved 10.0.2.2 true 10 && wait_resolved 10.0.3.2 true 10; }
check "dpr resolves both gateways by itself" both

tx1=$(now p1 tx); tx2=$(now p2 tx)
recv_both a
ip netns exec "$H1" python3 "$TRAFFIC" udp-send 10.9.0.5 5001 4000 --flows 200 --gap 0.0002
recv_stop
c1=$(rcount "a-$G1"); c2=$(rcount "a-$G2"); f1=$(rflows "a-$G1"); f2=$(rflows "a-$G2")
d1=$(( $(now p1 tx) - tx1 )); d2=$(( $(now p2 tx) - tx2 ))
echo "# g1: $c1 datagrams, $f1 flows; g2: $c2 datagrams, $f2 flows; dpr sent $d1 + $d2"
# route get with a flow names the gateway each flow reached (net_af_packet
# gives no RSS hash: the worker hashes in software, as route.get does).
flow_agrees() { # flow_agrees RECEIVER-FILE GATEWAY PORT: for 20 of its flows
	local sp out
	for sp in $(python3 -c 'import json,sys; print(*json.load(open(sys.argv[1]))["ports"][:20])' \
		    "$WORK/$1"); do
		out=$(ctl route get 10.9.0.5 from 10.0.1.2 proto udp sport "$sp" dport 5001)
		grep -q "this flow: via $2 dev $3\$" <<<"$out" || { echo "# sport $sp: $out"; return 1; }
	done
}
check "route get ... from 10.0.1.2 proto udp sport P dport 5001 names g1 for g1's flows" \
	flow_agrees "a-$G1" 10.0.2.2 p1
check "... and g2 for g2's flows" flow_agrees "a-$G2" 10.0.3.2 p2
check "both gateways carry flows (g1 $f1, g2 $f2 of 200)" test "$f1" -ge 50 -a "$f2" -ge 50
check "all 200 flows arrived ($f1 + $f2)" test $((f1 + f2)) -eq 200
check "no flow reached both gateways" test "$(shared_flows "a-$G1" "a-$G2")" -eq 0
check "each gateway got exactly what dpr sent it (g1 $c1 == $d1, g2 $c2 == $d2)" \
	test "$c1" -eq "$d1" -a "$c2" -eq "$d2"
check "at least 95% of the 4000 datagrams crossed ($((c1 + c2)))" test $((c1 + c2)) -ge 3800

# --- g2 gone --------------------------------------------------------------------------
link_of() { # link_of PORT: "up", "down" or "unknown", as port.list shows it
	ctl --json port list | python3 -c 'import json,sys
print(next(p["link"] for p in json.load(sys.stdin) if p["name"] == sys.argv[1]))' "$1"
}
check "p2's link is up, read from its interface ($(link_of p2))" test "$(link_of p2)" = up
ip -n "$G2" link set eth0 down
# The link is polled once a second.
check "g2's link down: dpr unresolves g2 by itself" wait_resolved 10.0.3.2 false 5
check "port list shows p2's link down ($(link_of p2))" test "$(link_of p2)" = down
check "dpr logged it" grep -q "port p2: link down (kernel interface $V2)" "$WORK/dpr.log"
tx1=$(now p1 tx); tx2=$(now p2 tx); exc0=$(now p0 exception)
recv_both b
ip netns exec "$H1" python3 "$TRAFFIC" udp-send 10.9.0.5 5001 2000 --flows 200 --gap 0.0002
recv_stop
c1=$(rcount "b-$G1"); f1=$(rflows "b-$G1")
d1=$(( $(now p1 tx) - tx1 )); d2=$(( $(now p2 tx) - tx2 )); e0=$(( $(now p0 exception) - exc0 ))
echo "# g2 down: g1 $c1 datagrams, $f1 flows; dpr sent $d1 + $d2; exceptions $e0"
check "every flow goes through g1 ($f1 of 200)" test "$f1" -eq 200
check "nothing is sent towards g2 ($d2)" test "$d2" -eq 0
check "no packet waits for g2 (exceptions $e0)" test "$e0" -eq 0
check "g1 got exactly what dpr sent ($c1 == $d1, of 2000)" test "$c1" -eq "$d1" -a "$c1" -ge 1900

# --- g2 back ----------------------------------------------------------------------------
ip -n "$G2" link set eth0 up
ip -n "$G2" route replace default via 10.0.3.1
is_link() { [ "$(link_of "$1")" = "$2" ]; } # is_link PORT up|down|unknown
check "p2's link comes back up" wait_for 5 is_link p2 up
check "dpr resolves g2 again by itself" wait_resolved 10.0.3.2 true 20
recv_both c
ip netns exec "$H1" python3 "$TRAFFIC" udp-send 10.9.0.5 5001 2000 --flows 200 --gap 0.0002
recv_stop
f1=$(rflows "c-$G1"); f2=$(rflows "c-$G2")
check "g2 takes its share back (g1 $f1, g2 $f2 of 200)" test "$f1" -ge 50 -a "$f2" -ge 50
check "no flow reached both gateways" test "$(shared_flows "c-$G1" "c-$G2")" -eq 0

stop_dpr
check_accounting
finish

#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The kernel table mirror: dpr runs in a router namespace of its own (its
# TAPs live there, and so do the routes these checks add, so the machine's
# own table is never touched); h1 sends from behind p0, gateways g1 (p1)
# and g2 (p2) both hold 10.77.0.5 and 10.88.0.5.
#   a blackhole route present before dpr starts is picked up by the first
#   dump; `ip route add ... dev dpr-p1` appears as source kernel and carries
#   traffic to g1, `ip route del` removes it; a multipath route becomes a
#   dpr multipath route; a blackhole drops; an IPv6 route appears; routes in
#   another table or through a non-dpr interface are ignored and counted;
#   an api route wins over the kernel's, which comes back after route.del;
#   a burst while dpr is stopped overflows its small socket buffer: a full
#   resync leaves exactly the kernel's routes; BIRD 2's kernel protocol
#   (when bird is installed) drives dpr.
source "$(dirname "$0")/lib.sh"
need_root

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

# A small socket buffer (kernel_routes.socket_buffer) so that a burst
# overflows it: the resync is what is tested.
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
  "fib": {"ipv4_max_routes": 4096, "ipv4_tbl8_groups": 64,
          "ipv6_max_routes": 1024, "ipv6_tbl8_groups": 64},
  "kernel_routes": {"table": 254, "socket_buffer": 16384}
}
JSON

# Present before dpr starts: only the first dump can bring it.
ip -n "$R" route add blackhole 10.66.0.0/16

start_dpr "$WORK/dpr.json" --lcores 0@0,1@1 -- --idle-sleep 100
check "config.get shows the mirrored table and socket buffer" \
	test "$(ctl config | python3 -c 'import json, sys; k = json.load(sys.stdin)["kernel_routes"]; print(k["table"], k["socket_buffer"])')" = "254 16384"
BIRD_PID=
bird_cleanup() { [ -z "$BIRD_PID" ] || { kill "$BIRD_PID" 2>/dev/null; wait "$BIRD_PID" 2>/dev/null; }; }
AT_EXIT+=(bird_cleanup)

kr() { # kr FIELD: stats.get's kernel_routes.FIELD (a/b for nested)
	ctl call stats.get | python3 -c 'import json, sys
v = json.load(sys.stdin)["kernel_routes"]
for k in sys.argv[1].split("/"):
    v = v[k]
print(str(v).lower() if isinstance(v, bool) else v)' "$1"
}
drops() { ctl call stats.get | python3 -c 'import json, sys; print(json.load(sys.stdin)["total"]["drops"][sys.argv[1]])' "$1"; }
reach() { ip netns exec "$H1" ping -c "$2" -i 0.2 -W 2 -q "$1" >/dev/null; }
rip() { ip -n "$R" route "$@"; }
not_dumping() { [ "$(kr dumping)" = false ]; }
# kernel_prefixes: the prefixes dpr holds from source kernel, sorted
kernel_prefixes() { ctl route list source kernel | awk '{print $1}' | sort; }

check "the first dump is done" wait_for 10 not_dumping
check "a blackhole route present before dpr started is picked up ($(route_of 10.66.0.1))" \
	is_route 10.66.0.1 "10.66.0.0/16 blackhole - kernel"

# --- ip route add / del ------------------------------------------------------
rip add 10.77.0.0/16 via 10.0.2.2 dev dpr-p1
check "ip route add ... dev dpr-p1 appears in dpr as source kernel ($(route_of 10.77.0.5))" \
	wait_for 5 is_route 10.77.0.5 "10.77.0.0/16 gateway 10.0.2.2 kernel"
check "h1 reaches 10.77.0.5 on g1 through it" reach 10.77.0.5 3
rip del 10.77.0.0/16
check "ip route del removes it" wait_for 5 no_route 10.77.0.5

# --- multipath, blackhole, IPv6 ---------------------------------------------------
rip add 10.88.0.0/16 nexthop via 10.0.2.2 dev dpr-p1 nexthop via 10.0.3.2 dev dpr-p2
check "a multipath route becomes a dpr multipath route ($(route_of 10.88.0.5))" \
	wait_for 5 is_route 10.88.0.5 "10.88.0.0/16 multipath 10.0.2.2,10.0.3.2 kernel"
check "h1 reaches 10.88.0.5 through it" reach 10.88.0.5 3
rip add blackhole 10.99.0.0/16
wait_for 5 is_route 10.99.0.1 "10.99.0.0/16 blackhole"
b0=$(drops blackhole)
ip netns exec "$H1" python3 "$TRAFFIC" udp-send 10.99.0.1 5001 100 --gap 0.0005
sleep 0.3
b1=$(drops blackhole)
check "100 datagrams into a kernel blackhole route are dropped and counted ($((b1 - b0)))" \
	test $((b1 - b0)) -eq 100
rip add 2001:db8:77::/48 via 2001:db8:2::2 dev dpr-p1
check "an IPv6 route appears ($(route_of 2001:db8:77::1))" \
	wait_for 5 is_route 2001:db8:77::1 "2001:db8:77::/48 gateway 2001:db8:2::2 kernel"

# --- routes that are not dpr's ----------------------------------------------------
t0=$(kr ignored/table) i0=$(kr ignored/interface)
rip add 10.55.0.0/16 via 10.0.2.2 dev dpr-p1 table 100
ip -n "$R" link add "xv$TAG" type veth peer name "xw$TAG"
ip -n "$R" addr add 192.168.77.1/24 dev "xv$TAG"
ip -n "$R" link set "xw$TAG" up
ip -n "$R" link set "xv$TAG" up
rip add 10.56.0.0/16 via 192.168.77.2 dev "xv$TAG"
sleep 0.5
check "a route in another table is ignored and counted" \
	test "$(route_of 10.55.0.1)" = none -a "$(kr ignored/table)" -gt "$t0"
check "a route through a non-dpr interface is ignored and counted" \
	test "$(route_of 10.56.0.1)" = none -a "$(kr ignored/interface)" -gt "$i0"

# --- ownership: api > kernel ------------------------------------------------------
rip add 10.77.0.0/16 via 10.0.2.2 dev dpr-p1
wait_for 5 is_route 10.77.0.5 "10.77.0.0/16 gateway 10.0.2.2 kernel"
ctl route add 10.77.0.0/16 via 10.0.3.2 >/dev/null 2>&1
check "an api route on the same prefix wins ($(route_of 10.77.0.5))" \
	is_route 10.77.0.5 "10.77.0.0/16 gateway 10.0.3.2 api"
ctl route del 10.77.0.0/16 >/dev/null 2>&1
check "the kernel route comes back after route.del ($(route_of 10.77.0.5))" \
	is_route 10.77.0.5 "10.77.0.0/16 gateway 10.0.2.2 kernel"

# --- overflow: a full resync --------------------------------------------------------
# 300 routes, then, while dpr is stopped, 100 of them deleted and 300 more:
# far more events than 16 KiB hold.
for i in $(seq 0 299); do echo "route add 10.$((200 + i / 256)).$((i % 256)).0/24 via 10.0.2.2 dev dpr-p1"; done \
	> "$WORK/batch1"
{ for i in $(seq 0 99); do echo "route del 10.200.$i.0/24"; done
  for i in $(seq 0 299); do echo "route add 10.$((202 + i / 256)).$((i % 256)).0/24 via 10.0.3.2 dev dpr-p2"; done
} > "$WORK/batch2"
ip -n "$R" -batch "$WORK/batch1"
o0=$(kr resyncs/overflow)
kill -STOP "$DPR_PID"
ip -n "$R" -batch "$WORK/batch2"
kill -CONT "$DPR_PID"
# What the kernel holds that dpr should: table main, through a dpr TAP or a
# blackhole, not proto kernel.
expected() {
	{ ip -n "$R" -j -4 route show table main; echo; ip -n "$R" -j -6 route show table main; } |
		python3 -c 'import json, sys
for line in sys.stdin:
    if not line.strip():
        continue
    for r in json.loads(line):
        if r.get("protocol") == "kernel":
            continue
        devs = [r.get("dev")] if "dev" in r else [h.get("dev") for h in r.get("nexthops", [])]
        if r.get("type") == "blackhole" or (devs and all(d and d.startswith("dpr-") for d in devs)):
            print(r["dst"])' | sort
}
settled() { not_dumping && [ "$(kr resyncs/overflow)" -gt "$o0" ] && [ "$(kernel_prefixes)" = "$(expected)" ]; }
wait_for 15 settled
check "the burst overflowed the socket: resync counted ($(kr resyncs/overflow) > $o0)" \
	test "$(kr resyncs/overflow)" -gt "$o0"
check "after the resync dpr holds exactly the kernel's routes ($(kernel_prefixes | wc -l) vs $(expected | wc -l))" \
	test "$(kernel_prefixes)" = "$(expected)"
check "no kernel route is left stale" test "$(kr routes_stale)" -eq 0
# The dump after an overflow is asked for once the socket is drained: asked
# into the full buffer, its answer was lost again and again, and dpr waited
# out the dump timeout (10 s) before it had the kernel's routes.
check "no dump was lost or refused on the way ($(kr dump_errors) errors, $(kr resyncs/dump_failed) timed out)" \
	test "$(kr dump_errors)" -eq 0 -a "$(kr resyncs/dump_failed)" -eq 0
tel=$(echo /dpr/kernel_routes | timeout 20 dpdk-telemetry.py -f "dpr-$T-$TAG" 2>&1)
check "telemetry /dpr/kernel_routes shows the resyncs" grep -q '"resyncs/overflow": [1-9]' <<<"$tel"

# --- BIRD 2 -------------------------------------------------------------------------
if command -v bird >/dev/null; then
	B=$WORK/bird
	mkdir -p "$B"
	cat > "$B/bird.conf" <<EOF
router id 10.0.2.1;
protocol device { }
protocol static s4 { ipv4; route 10.44.0.0/16 via 10.0.2.2; }
protocol kernel k4 { ipv4 { export all; import none; }; }
EOF
	ip netns exec "$R" bird -f -c "$B/bird.conf" -s "$B/bird.ctl" -P "$B/bird.pid" \
		> "$B/bird.log" 2>&1 &
	BIRD_PID=$!
	wait_for 10 is_route 10.44.0.1 "10.44.0.0/16 gateway 10.0.2.2 kernel bird"
	check "BIRD's static route lands in dpr through its kernel protocol ($(route_of 10.44.0.1))" \
		is_route 10.44.0.1 "10.44.0.0/16 gateway 10.0.2.2 kernel bird"
	kill "$BIRD_PID"; wait "$BIRD_PID" 2>/dev/null; BIRD_PID=
	check "BIRD stopping withdraws it" wait_for 10 no_route 10.44.0.1
else
	echo "# bird not installed (apt-get install bird2): BIRD checks skipped"
fi

kill -TERM "$DPR_PID"
wait "$DPR_PID"
rc=$?
DPR_PID=
check "dpr exits 0 on SIGTERM (got $rc)" test "$rc" -eq 0
check_accounting
finish

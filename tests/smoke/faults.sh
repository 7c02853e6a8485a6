#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Faults pulled from under a forwarding dpr (h1 -- p0 dpr p1 -- h2,
# net_af_packet on veths), each judged by what the hosts see and the
# counters:
#   - h2's link down and up: dpr sees it (port list), gives up on h2 with
#     ICMP host unreachable, and forwards again when it is back, no restart;
#   - the host-stack TAP deleted: dpr makes it again with its addresses and
#     the host reaches h1 through it; set down on the host: reported;
#   - the FIB's tbl8 groups exhausted: route.add is refused with an error
#     that says why, existing routes forward on;
#   - the mbuf pool exhausted (dpr restarted on net_tap ports with a pool
#     smaller than the packets it is made to hold): what the device could
#     not receive is counted, and forwarding comes back once the held
#     packets are let go.
source "$(dirname "$0")/lib.sh"
need_root

T0=dk${TAG}a
two_hosts
config() { # config EXTRA-PORT-KEYS
	cat > "$WORK/dpr.json" <<JSON
{
  "ports": [
    {"name": "p0", "device": "net_af_packet_${TAG}a,iface=$V0,qpairs=2",
     "mac": "02:00:00:00:01:01", "addresses": ["10.0.1.1/24", "2001:db8:1::1/64"] $1},
    {"name": "p1", "device": "net_af_packet_${TAG}b,iface=$V1,qpairs=2",
     "mac": "02:00:00:00:02:01", "addresses": ["10.0.2.1/24"], "tap": false}
  ],
  "control": {"socket": "$SOCK"},
  "fib": {"ipv4_max_routes": 1024, "ipv4_tbl8_groups": 16}
}
JSON
}
json() { # json EXPR [dprctl-args]: EXPR over the JSON dprctl prints, as J
	local expr=$1; shift
	ctl --json "$@" | python3 -c 'import json,sys; J = json.load(sys.stdin); print(eval(sys.argv[1]))' "$expr"
}
port_field() { json "next(p for p in J if p[\"name\"] == \"$1\")[\"$2\"]" port list; }
is() { [ "$("${@:2}")" = "$1" ]; } # is VALUE COMMAND...
reach() { ip netns exec "$H1" ping -c 1 -W 1 -q "$1" >/dev/null 2>&1; }

config ", \"tap\": \"$T0\""
start_dpr "$WORK/dpr.json" -l 0,1 -- --idle-sleep 100 --stats-file "$WORK/stats.json"
LINKS+=("$T0")
check "h1 reaches h2" wait_for 10 reach 10.0.2.2

# --- link down and up ------------------------------------------------------------
ip -n "$H2" link set eth0 down
check "h2's link down: port p1 shows it" wait_for 5 is down port_field p1 link
# port list reads the link as it is now; next hops follow the once-a-second poll.
check "  and its next hops are unresolved at the next poll" \
	wait_for 5 grep -q "port p1: link down: 1 next hops unresolved" "$WORK/dpr.log"
ip netns exec "$H1" python3 "$TRAFFIC" udp-send 10.0.2.2 5001 1
unreach() { [ "$(json 'J["exception_path"]["icmp_host_unreachable"]' stats)" -ge 1 ]; }
check "a datagram for h2 gets host unreachable once resolution fails" wait_for 10 unreach
ip -n "$H2" link set eth0 up
ip -n "$H2" route replace default via 10.0.2.1
check "h2's link up: port p1 shows it" wait_for 5 is up port_field p1 link
check "h1 reaches h2 again, dpr never restarted" wait_for 10 reach 10.0.2.2

# --- the TAP deleted, and set down ---------------------------------------------------
check "port p0's TAP is up" is up port_field p0 tap_state
ip link del "$T0"
check "the TAP is made again" wait_for 5 is 1 json 'J["host_stack"]["taps_recreated"]' stats
check "with its address" bash -c "ip addr show $T0 | grep -q 'inet 10.0.1.1/24'"
check "dpr said so" grep -q "TAP $T0 is gone from the host" "$WORK/dpr.log"
before=$(json 'J["host_stack"]["to_kernel"]' stats)
check "the host reaches h1 through the new TAP" ping -c 2 -W 2 -q -I "$T0" 10.0.1.2
check "  (through dpr's host stack: to_kernel moved)" \
	test "$(json 'J["host_stack"]["to_kernel"]' stats)" -gt "$before"
check "h1 still reaches h2" reach 10.0.2.2
ip link set "$T0" down
check "the TAP set down on the host: port list shows it" wait_for 5 is down port_field p0 tap_state
check "and dpr said so" wait_for 5 grep -q "TAP $T0 was set down on the host" "$WORK/dpr.log"
ip link set "$T0" up
check "set up again: port list shows it" wait_for 5 is up port_field p0 tap_state
# Down, the kernel flushed its IPv6 addresses (a link-local one even with
# keep_addr_on_down): dpr gives them back when it sees the TAP up again.
tap6() { [ "$(ip -6 addr show dev "$T0" | grep -c -e 'inet6 2001:db8:1::1/64' -e 'inet6 fe80::')" = 2 ]; }
check "  with its IPv6 addresses again, link-local included" wait_for 5 tap6

# --- FIB blocks exhausted --------------------------------------------------------------
# 16 tbl8 groups (the fewest the config takes), 2 of them taken by the
# connected subnets' host routes: fourteen /25s in other /24s fit, the
# fifteenth does not.
for i in $(seq 14); do ctl route add "10.50.$i.0/25" via 10.0.2.2 >/dev/null; done
err=$(ctl route add 10.50.15.0/25 via 10.0.2.2 2>&1)
echo "# $err"
check "the fifteenth /25 is refused, saying why" grep -qi "tbl8" <<<"$err"
check "  and it is not in the FIB" bash -c "! $DPRCTL -s $SOCK route get 10.50.15.1 | grep -q 10.50.15.0/25"
check "a route from before forwards on" reach 10.0.2.2
check "  the fourteen that fit are there" is 14 json 'sum(1 for r in (J["routes"] if isinstance(J, dict) else J) if r["prefix"].startswith("10.50."))' route list
stop_dpr
check_accounting

# --- the mbuf pool exhausted ---------------------------------------------------------------
# net_tap ports this time (their kernel sides moved into h3 and h4): the
# PMD counts a frame that finds no mbuf (rx_nombuf); af_packet in 22.11
# leaves such frames to the kernel, which counts them nowhere dpr can read.
# A pool of 900 mbufs; 250 unresolved hosts on h4's subnet hold up to 4
# packets each.
H3=h3-$TAG H4=h4-$TAG A=df${TAG}a B=df${TAG}b
cat > "$WORK/dpr.json" <<JSON
{
  "ports": [
    {"name": "p0", "device": "net_tap_${TAG}c,iface=$A", "mac": "02:00:00:00:01:01",
     "addresses": ["10.0.1.1/24"], "tap": false},
    {"name": "p1", "device": "net_tap_${TAG}d,iface=$B", "mac": "02:00:00:00:02:01",
     "addresses": ["10.0.2.1/24"], "tap": false}
  ],
  "neighbors": [{"address": "10.0.1.2", "mac": "02:00:00:00:01:02"},
                {"address": "10.0.2.2", "mac": "02:00:00:00:02:02"}],
  "control": {"socket": "$SOCK"},
  "fib": {"ipv4_max_routes": 1024, "ipv4_tbl8_groups": 16},
  "control_plane": {"resolving_per_interface": 256}
}
JSON
# Each of the 250 hosts below is resolved at once (the budget of a link is
# 64 by default, which would keep the held packets under the pool's size).
start_dpr "$WORK/dpr.json" -l 0,1 -- --idle-sleep 100 --stats-file "$WORK/stats.json" --pool-size 900
netns "$H3"; netns "$H4"
ip link set "$A" netns "$H3" || die "cannot move $A"
ip link set "$B" netns "$H4" || die "cannot move $B"
host_addr "$H3" "$A" 02:00:00:00:01:02 10.0.1.2/24 10.0.1.1 02:00:00:00:01:01
host_addr "$H4" "$B" 02:00:00:00:02:02 10.0.2.2/24 10.0.2.1 02:00:00:00:02:01
reach3() { ip netns exec "$H3" ping -c 1 -W 1 -q "$1" >/dev/null 2>&1; }
check "h3 reaches h4" wait_for 10 reach3 10.0.2.2
base=$(json 'J["mbufs"][0]["in_use"]' stats)
echo "# mbufs in use at rest: $base of $(json 'J["mbufs"][0]["size"]' stats)"
ip netns exec "$H3" python3 - <<'PY'
import socket, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for rnd in range(4):
    for h in range(3, 253):
        s.sendto(b"x" * 64, ("10.0.2.%d" % h, 9))
        time.sleep(0.0002)
PY
lost=$(json 'sum(p["nic"]["rx_nombuf"] for p in J["ports"])' stats)
nomb=$(json 'J["exception_path"]["no_mbuf"]' stats)
peak=$(json 'J["mbufs"][0]["in_use"]' stats)
echo "# under the flood: $peak mbufs in use; frames that found no mbuf: $lost; packets dpr could not build: $nomb"
check "the pool ran dry and the device counted what it lost ($lost)" test "$lost" -gt 0
nombuf() { ctl doctor | grep -q "^warning: p[01] rx_nombuf .*found no mbuf"; }
check "dprctl doctor says the pool ran dry" wait_for 3 nombuf
ctl doctor | grep "^warning" | sed 's/^/# /'
check "and the log said so" grep -q "packets in a second found no mbuf (rx_nombuf)" "$WORK/dpr.log"
# Resolution gives up after three tries a second apart: the held packets go.
in_use() { json 'J["mbufs"][0]["in_use"]' stats; }
back() { [ "$(in_use)" -le $((base + 64)) ]; }
check "the held mbufs come back" wait_for 15 back
check "and h3 reaches h4 again" wait_for 10 reach3 10.0.2.2
stop_dpr
check_accounting
finish

#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Exception traffic cannot slow forwarding: while h1 floods dpr with TTL-1
# packets and pings to the router, a paced UDP stream h1 -> h2 must arrive
# whole. The flood is counted: as ttl_expired exceptions, ICMP errors held
# back by the rate limiter, control_plane drops over the transit and local
# classes' rates (lib/copp), and exception_full drops if the ring overflowed.
# Rates are printed, never asserted.
source "$(dirname "$0")/lib.sh"
need_root

RMAC=02:00:00:00:01:01 HMAC=02:00:00:00:01:02
two_hosts
cat > "$WORK/dpr.json" <<JSON
{
  "ports": [
    {"name": "p0", "device": "net_af_packet_${TAG}a,iface=$V0,qpairs=3,framecnt=4096", "tap": "dk${TAG}a",
     "mac": "$RMAC", "addresses": ["10.0.1.1/24"]},
    {"name": "p1", "device": "net_af_packet_${TAG}b,iface=$V1,qpairs=3,framecnt=4096", "tap": "dk${TAG}b",
     "mac": "02:00:00:00:02:01", "addresses": ["10.0.2.1/24"]}
  ],
  "neighbors": [
    {"address": "10.0.1.2", "mac": "$HMAC", "port": "p0"},
    {"address": "10.0.2.2", "mac": "02:00:00:00:02:02", "port": "p1"}
  ],
  "control": {"socket": "$SOCK"},
  "fib": {"ipv4_max_routes": 1024, "ipv4_tbl8_groups": 64}
}
JSON
start_dpr "$WORK/dpr.json" --lcores "0@0,1@0,2@1" -- --idle-sleep 100

# Rings of 4096 frames: the kernel drops what overflows an af_packet ring
# before dpr could count it (22.11 does not report those drops).
FLOOD=40000 COUNT=4000
recv_start "$H2" 5002 r
start=$(date +%s.%N)
ip netns exec "$H1" python3 "$TRAFFIC" raw-send eth0 $RMAC $HMAC 10.0.1.2 10.0.2.2 $FLOOD --ttl 1 --gap 0 &
flood1=$!
ip netns exec "$H1" python3 "$TRAFFIC" raw-send eth0 $RMAC $HMAC 10.0.1.2 10.0.1.1 $FLOOD --dport 80 --gap 0 &
flood2=$!
ip netns exec "$H1" python3 "$TRAFFIC" udp-send 10.0.2.2 5002 $COUNT --flows 8 --gap 0.0005
wait $flood1 $flood2
end=$(date +%s.%N)
got=$(recv_stop r)
count=${got% *}
stop_dpr

exc=$(counter 'port("p0")["exceptions"]["ttl_expired"] + port("p0")["exceptions"]["local"]')
full=$(counter 'port("p0")["drops"]["exception_full"] + port("p0")["drops"]["control_plane"]')
echo "# $((2 * FLOOD)) flood packets in $(python3 -c "print('%.1f s' % ($end - $start))"): $exc to the exception path, $full dropped at a full exception ring or over a protection class's rate or share; ICMP errors rate-limited: $(counter 'S["exception_path"]["icmp_rate_limited"]')"
check "the stream crossed whole during the flood ($count of $COUNT)" test "$count" -eq $COUNT
check "every flood packet is accounted for ($exc + $full)" test $((exc + full)) -ge $((2 * FLOOD))
check "ICMP time exceeded is rate-limited" test "$(counter 'S["exception_path"]["icmp_rate_limited"]')" -gt 0
check_accounting
finish

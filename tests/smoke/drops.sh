#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Packets dpr must not forward never reach the far host and are each
# counted under their reason: dropped (bad header checksum, martian source,
# another host's MAC) or handed to the exception path (TTL expiring, no
# route, unresolved neighbour, for the router); the counters add up exactly.
source "$(dirname "$0")/lib.sh"
need_root

RMAC=02:00:00:00:01:01 HMAC=02:00:00:00:01:02
two_hosts
two_hosts_config "$WORK/dpr.json"
start_dpr "$WORK/dpr.json" -l 0,1 -- --idle-sleep 100
recv_start "$H2" 7001 r

raw() { ip netns exec "$H1" python3 "$TRAFFIC" raw-send eth0 "$@" --dport 7001; }
raw $RMAC $HMAC 10.0.1.2 10.0.2.2 10 --ttl 64                      # forwarded
raw $RMAC $HMAC 10.0.1.2 10.0.2.2 20 --ttl 1                       # ttl_expired
raw $RMAC $HMAC 10.0.1.2 10.0.2.2 15 --bad-checksum                # bad_checksum
raw $RMAC $HMAC 10.0.1.2 192.0.2.9 7                               # no_route
raw $RMAC $HMAC 10.0.1.2 10.0.2.77 4                               # unresolved
raw $RMAC $HMAC 127.0.0.1 10.0.2.2 3                               # martian
raw 02:00:00:00:09:09 $HMAC 10.0.1.2 10.0.2.2 5                    # other_host
raw $RMAC $HMAC 10.0.1.2 10.0.1.1 6                                # for the router
# And from the host stack itself: UDP with TTL 1.
ip netns exec "$H1" python3 "$TRAFFIC" udp-send 10.0.2.2 7001 8 --ttl 1

got=$(recv_stop r)
stop_dpr
count=${got% *}
check "h2 received only the 10 good datagrams (got $count)" test "$count" -eq 10
check "10 forwarded" test "$(counter 'port("p0")["forwarded"]')" -eq 10
check "28 went to the exception path as ttl_expired" test "$(counter 'port("p0")["exceptions"]["ttl_expired"]')" -eq 28
check "15 counted bad_checksum" test "$(counter 'port("p0")["drops"]["bad_checksum"]')" -eq 15
check "7 went to the exception path as no_route" test "$(counter 'port("p0")["exceptions"]["no_route"]')" -eq 7
check "4 went to the exception path as unresolved" test "$(counter 'port("p0")["exceptions"]["unresolved"]')" -eq 4
check "3 counted martian" test "$(counter 'port("p0")["drops"]["martian"]')" -eq 3
check "5 counted other_host" test "$(counter 'port("p0")["drops"]["other_host"]')" -eq 5
check "6 to the router went to the exception path" \
	test "$(counter 'port("p0")["exceptions"]["local"]')" -eq 6
check "the control thread received them" test "$(counter 'S["control_exceptions"]["local"]')" -eq 6
# Beyond the 78: h1's answers to the host stack's ARP (the kernel behind the
# TAP answers the UDP sent to 10.0.1.1 with port unreachable).
check "p0 received all 78 frames (besides ARP)" \
	test "$(counter 'port("p0")["rx"] - port("p0")["exceptions"]["arp"]')" -eq 78
check_accounting
finish

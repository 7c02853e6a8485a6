#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Two hosts on net_tap ports, the TAPs' kernel sides moved into namespaces,
# ping each other through dpr (one worker).
source "$(dirname "$0")/lib.sh"
need_root

A=dt${TAG}a B=dt${TAG}b
cat > "$WORK/dpr.json" <<JSON
{
  "ports": [
    {"name": "p0", "device": "net_tap_${TAG}a,iface=$A", "mac": "02:00:00:00:01:01",
     "addresses": ["10.0.1.1/24"]},
    {"name": "p1", "device": "net_tap_${TAG}b,iface=$B", "mac": "02:00:00:00:02:01",
     "addresses": ["10.0.2.1/24"]}
  ],
  "neighbors": [
    {"address": "10.0.1.2", "mac": "02:00:00:00:01:02", "port": "p0"},
    {"address": "10.0.2.2", "mac": "02:00:00:00:02:02", "port": "p1"}
  ],
  "control": {"socket": "$SOCK"},
  "fib": {"ipv4_max_routes": 1024, "ipv4_tbl8_groups": 64}
}
JSON

start_dpr "$WORK/dpr.json" -l 0,1
netns "h1-$TAG"; netns "h2-$TAG"
ip link set "$A" netns "h1-$TAG" || die "cannot move $A"
ip link set "$B" netns "h2-$TAG" || die "cannot move $B"
host_addr "h1-$TAG" "$A" 02:00:00:00:01:02 10.0.1.2/24 10.0.1.1 02:00:00:00:01:01
host_addr "h2-$TAG" "$B" 02:00:00:00:02:02 10.0.2.2/24 10.0.2.1 02:00:00:00:02:01

check "h1 pings h2 through dpr" ip netns exec "h1-$TAG" ping -c 5 -i 0.2 -W 2 -q 10.0.2.2
check "h2 pings h1 through dpr" ip netns exec "h2-$TAG" ping -c 5 -i 0.2 -W 2 -q 10.0.1.2
# The reply's TTL shows one router hop (64 - 1).
ttl=$(ip netns exec "h1-$TAG" ping -c 1 -W 2 10.0.2.2 | sed -n 's/.*ttl=\([0-9]*\).*/\1/p')
check "replies cross one hop (ttl 63, got ${ttl:-none})" test "${ttl:-0}" = 63
# net_tap reports a moved interface's link down; dpr reads the interface
# itself (drivers-cfg "link_state": "iface"), cannot see it from here, and
# keeps forwarding (as the pings above, a second after the move, showed).
sleep 1.2 # one link poll
link=$(ctl --json port list | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["link"])')
check "a net_tap moved away: its link is unknown ($link), taken as up" test "$link" = unknown
check "h1 still pings h2 after a link poll" ip netns exec "h1-$TAG" ping -c 2 -i 0.2 -W 2 -q 10.0.2.2
# A host beyond any route gets nothing, and dpr counts why.
ip netns exec "h1-$TAG" ping -c 2 -i 0.2 -W 1 -q 192.0.2.1 >/dev/null 2>&1
check "ping without a route fails" test $? -ne 0

kill -USR1 "$DPR_PID"
for _ in $(seq 50); do grep -q "counters (SIGUSR1)" "$WORK/dpr.log" && break; sleep 0.1; done
check "SIGUSR1 prints counters" grep -q "counters (SIGUSR1)" "$WORK/dpr.log"
stop_dpr

check "p0 forwarded the 11 echo requests" test "$(counter 'port("p0")["forwarded"]')" -ge 11
check "p1 forwarded the 11 echo replies" test "$(counter 'port("p1")["forwarded"]')" -ge 11
check "no-route packets went to the exception path (2)" test "$(counter 'port("p0")["exceptions"]["no_route"]')" -eq 2
check "and were answered with net unreachable" test "$(counter 'S["exception_path"]["icmp_net_unreachable"]')" -eq 2
check "p1 sent what p0 forwarded" test "$(counter 'port("p1")["tx"]')" -eq "$(counter 'port("p0")["forwarded"]')"
check_accounting
check "nothing left in hugetlbfs" test "$(huge_leftovers)" -eq 0
finish

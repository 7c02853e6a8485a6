#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Unicast RPF (RFC 3704) against real hosts: p0 strict, p1 loose, p2 off.
# h1 (p0) and h2 (p1) send UDP to h3 (p2) with their own address and with
# spoofed ones (raw IP sockets, IP_HDRINCL); h3 counts what arrives.
#   strict on p0: h1's own source and sources routed back out of p0 (an
#     ECMP route with one member on p0) pass; a source of p1's subnet, one
#     and one of no route are dropped as drops.urpf; IPv6 likewise, and
#     NDP and ping of the router still work (link-local sources are
#     exempt);
#   loose on p1: any routed source passes (p0's subnet), one of no route
#     is dropped;
#   off on p2: nothing is counted.
source "$(dirname "$0")/lib.sh"
need_root

R=r-$TAG DPR_NETNS=r-$TAG H1=h1-$TAG H2=h2-$TAG H3=h3-$TAG
V0=dv${TAG}a V1=dv${TAG}b V2=dv${TAG}c
netns "$R"; netns "$H1"; netns "$H2"; netns "$H3"
router_veth "$R" "$H1" "$V0"; router_veth "$R" "$H2" "$V1"; router_veth "$R" "$H3" "$V2"
host_addr "$H1" eth0 02:00:00:00:01:02 10.0.1.2/24 10.0.1.1 02:00:00:00:01:01
host_addr "$H2" eth0 02:00:00:00:02:02 10.0.2.2/24 10.0.2.1 02:00:00:00:02:01
host_addr "$H3" eth0 02:00:00:00:03:02 10.0.3.2/24 10.0.3.1 02:00:00:00:03:01
for h in "$H1:1" "$H3:3"; do
	ns=${h%:*} n=${h#*:}
	ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=0 net.ipv6.conf.eth0.disable_ipv6=0
	ip -n "$ns" addr add "2001:db8:$n::2/64" dev eth0 nodad
	ip -n "$ns" -6 route add default via "2001:db8:$n::1"
done
# h1 sends from addresses it does not have.
ip netns exec "$H1" sysctl -qw net.ipv6.ip_nonlocal_bind=1

cat > "$WORK/dpr.json" <<JSON
{
  "ports": [
    {"name": "p0", "device": "net_af_packet_${TAG}a,iface=$V0", "mac": "02:00:00:00:01:01",
     "addresses": ["10.0.1.1/24", "2001:db8:1::1/64"], "urpf": "strict"},
    {"name": "p1", "device": "net_af_packet_${TAG}b,iface=$V1", "mac": "02:00:00:00:02:01",
     "addresses": ["10.0.2.1/24"], "urpf": "loose"},
    {"name": "p2", "device": "net_af_packet_${TAG}c,iface=$V2", "mac": "02:00:00:00:03:01",
     "addresses": ["10.0.3.1/24", "2001:db8:3::1/64"], "urpf": "off"}
  ],
  "routes": [
    {"prefix": "10.9.0.0/16", "nexthops": [{"via": "10.0.1.7"}, {"via": "10.0.2.7"}]},
    {"prefix": "10.8.0.0/16", "via": "10.0.2.7"}
  ],
  "neighbors": [
    {"address": "10.0.1.2", "mac": "02:00:00:00:01:02", "port": "p0"},
    {"address": "10.0.2.2", "mac": "02:00:00:00:02:02", "port": "p1"},
    {"address": "10.0.3.2", "mac": "02:00:00:00:03:02", "port": "p2"},
    {"address": "2001:db8:3::2", "mac": "02:00:00:00:03:02", "port": "p2"}
  ],
  "control": {"socket": "$SOCK"},
  "fib": {"ipv4_max_routes": 1024, "ipv4_tbl8_groups": 64}
}
JSON
start_dpr "$WORK/dpr.json" --lcores 0@0,1@1 -- --idle-sleep 100

# h3 counts the datagrams of each source that arrive on UDP port 7000.
ip netns exec "$H3" python3 - "$WORK/got.json" <<'PY' &
import json, socket, sys, time
got = {}
s4 = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s4.bind(("0.0.0.0", 7000))
s6 = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
s6.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
s6.bind(("::", 7000))
for s in (s4, s6):
    s.settimeout(0.05)
end = time.time() + 6
while time.time() < end:
    for s in (s4, s6):
        try:
            _, a = s.recvfrom(2048)
            got[a[0]] = got.get(a[0], 0) + 1
        except socket.timeout:
            pass
json.dump(got, open(sys.argv[1], "w"))
PY
RECV=$!
sleep 0.5
# send NS SRC DST: 5 UDP datagrams from SRC (raw, any source) to DST:7000.
send() {
	ip netns exec "$1" python3 - "$2" "$3" <<'PY'
import socket, struct, sys, time
src, dst = sys.argv[1], sys.argv[2]
if ":" in src:
    s = socket.socket(socket.AF_INET6, socket.SOCK_RAW, socket.IPPROTO_UDP)
    # The kernel fills in the IPv6 header; the source comes from bind
    # (IP_FREEBIND lets it be an address the host does not have).
    s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_CHECKSUM, 6)  # the UDP checksum
    s.bind((src, 0))
    for i in range(5):
        s.sendto(struct.pack("!HHHH", 7001, 7000, 8 + 4, 0) + b"urpf", (dst, 0))
        time.sleep(0.02)
    sys.exit(0)
s = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_RAW)
for i in range(5):
    udp = struct.pack("!HHHH", 7001, 7000, 8 + 4, 0) + b"urpf"
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), i, 0, 64, 17, 0,
                     socket.inet_aton(src), socket.inet_aton(dst))
    s.sendto(ip + udp, (dst, 0))
    time.sleep(0.02)
PY
}
send "$H1" 10.0.1.2 10.0.3.2     # p0 strict: its own subnet
send "$H1" 10.9.1.1 10.0.3.2     # p0 strict: ECMP, one member on p0
send "$H1" 10.0.2.99 10.0.3.2    # p0 strict: p1's subnet
send "$H1" 10.8.1.1 10.0.3.2     # p0 strict: routed out of p1
send "$H1" 198.51.100.1 10.0.3.2 # p0 strict: no route
send "$H1" 2001:db8:1::2 2001:db8:3::2   # p0 strict, IPv6: its own
send "$H1" 2001:db8:3::99 2001:db8:3::2  # p0 strict, IPv6: p2's subnet
send "$H2" 10.0.2.2 10.0.3.2     # p1 loose: its own
send "$H2" 10.0.1.99 10.0.3.2    # p1 loose: routed (out of p0)
send "$H2" 198.51.100.2 10.0.3.2 # p1 loose: no route
wait "$RECV"
got() { python3 -c 'import json, sys; print(json.load(open(sys.argv[1])).get(sys.argv[2], 0))' "$WORK/got.json" "$1"; }
check "strict: h1's own source passes (5 of 5)" test "$(got 10.0.1.2)" -eq 5
check "strict: a source of an ECMP route with a member on p0 passes" test "$(got 10.9.1.1)" -eq 5
check "strict: a source of p1's subnet is dropped" test "$(got 10.0.2.99)" -eq 0
check "strict: a source routed out of p1 is dropped" test "$(got 10.8.1.1)" -eq 0
check "strict: a source of no route is dropped" test "$(got 198.51.100.1)" -eq 0
check "strict, IPv6: h1's own source passes" test "$(got 2001:db8:1::2)" -eq 5
check "strict, IPv6: a source of p2's subnet is dropped" test "$(got 2001:db8:3::99)" -eq 0
check "loose: h2's own source passes" test "$(got 10.0.2.2)" -eq 5
check "loose: a source routed elsewhere (p0's subnet) passes" test "$(got 10.0.1.99)" -eq 5
check "loose: a source of no route is dropped" test "$(got 198.51.100.2)" -eq 0
# NDP and ping of the router from h1 (link-local NDP sources) under strict.
ip -n "$H1" -6 neigh flush dev eth0
check "strict: h1 pings 2001:db8:1::1 (NDP from link-local sources passes)" \
	ip netns exec "$H1" ping -6 -c 2 -i 0.2 -W 2 -q 2001:db8:1::1
check "strict: h1 pings 10.0.1.1" ip netns exec "$H1" ping -c 2 -i 0.2 -W 2 -q 10.0.1.1
check "config.get keeps each port's urpf" eval "ctl config show | python3 -c 'import json, sys; p = {x[\"name\"]: x for x in json.load(sys.stdin)[\"ports\"]}; sys.exit(not (p[\"p0\"][\"urpf\"] == \"strict\" and p[\"p1\"][\"urpf\"] == \"loose\" and \"urpf\" not in p[\"p2\"]))'"
stop_dpr

# 4 strict IPv4 sources x 5 on p0 (p1's subnet, routed out of p1, no
# route... and IPv6's 5) and 5 loose ones on p1.
check "p0 counted its 20 dropped datagrams as urpf" test "$(counter 'port("p0")["drops"]["urpf"]')" -eq 20
check "p1 counted its 5 as urpf" test "$(counter 'port("p1")["drops"]["urpf"]')" -eq 5
check "p2 dropped nothing as urpf" test "$(counter 'port("p2")["drops"]["urpf"]')" -eq 0
check_accounting
finish

#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# IPv6 through dpr between namespace hosts, with no static neighbours
# anywhere: the hosts find the router by neighbour discovery, and h2 has no
# configured address at all, only what dpr's router advertisements give it
# (SLAAC, RFC 4862) and a default route to dpr's link-local address.
#   ping6 through dpr and to the router (global and link-local); traceroute
#   -6 shows the router as hop 1; hop limit expiry (RFC 4443 3.3); no route
#   (3.1 code 0); packet too big with the MTU (3.2) and tracepath finding
#   it; a route through a link-local gateway; mixed IPv4/IPv6 TCP on two
#   workers with exact counters; the final advertisement (Router Lifetime
#   0) as dpr stops takes h2's default route away (RFC 4861 6.2.5).
source "$(dirname "$0")/lib.sh"
need_root

V0=dv${TAG}a V1=dv${TAG}b H1=h1-$TAG H2=h2-$TAG
netns "$H1"; netns "$H2"
veth_pair "$H1" eth0 "$V0"
veth_pair "$H2" eth0 "$V1"

# h1: a configured address and the router as its gateway, learned by NDP.
ip -n "$H1" link set eth0 address 02:00:00:00:01:02
ip -n "$H1" addr add 10.0.1.2/24 dev eth0
ip -n "$H1" addr add 2001:db8:1::2/64 dev eth0 nodad
ip -n "$H1" link set eth0 up
ip -n "$H1" route add default via 10.0.1.1
ip -n "$H1" -6 route add default via 2001:db8:1::1
# h2: SLAAC only (IPv4 configured for the mixed transfer).
ip -n "$H2" link set eth0 address 02:00:00:00:02:02
ip netns exec "$H2" sysctl -qw net.ipv6.conf.eth0.accept_ra=1 net.ipv6.conf.eth0.autoconf=1 \
	net.ipv6.conf.eth0.accept_dad=0
ip -n "$H2" addr add 10.0.2.2/24 dev eth0
ip -n "$H2" link set eth0 up
ip -n "$H2" route add default via 10.0.2.1
# A network behind h2, reached through h2's link-local address.
ip -n "$H2" addr add 2001:db8:99::1/128 dev lo
ip netns exec "$H2" sysctl -qw net.ipv6.conf.all.forwarding=0

cat > "$WORK/dpr.json" <<JSON
{
  "ports": [
    {"name": "p0", "device": "net_af_packet_${TAG}a,iface=$V0,qpairs=3",
     "mac": "02:00:00:00:01:01", "addresses": ["10.0.1.1/24", "2001:db8:1::1/64"]},
    {"name": "p1", "device": "net_af_packet_${TAG}b,iface=$V1,qpairs=3",
     "mac": "02:00:00:00:02:01", "addresses": ["10.0.2.1/24", "2001:db8:2::1/64"],
     "mtu": 1400,
     "router_advertisements": {"max_interval": 4, "min_interval": 3}}
  ],
  "control": {"socket": "$SOCK"},
  "fib": {"ipv4_max_routes": 1024, "ipv4_tbl8_groups": 64,
          "ipv6_max_routes": 1024, "ipv6_tbl8_groups": 64}
}
JSON
start_dpr "$WORK/dpr.json" --lcores=0@0,1@1,2@1 -- --idle-sleep 100

# SLAAC: h2 forms 2001:db8:2::/64 + EUI-64 from dpr's advertisement.
H2_IP=2001:db8:2::ff:fe00:202
for _ in $(seq 100); do
	ip -n "$H2" -6 addr show dev eth0 | grep -q "$H2_IP" && break
	sleep 0.1
done
check "h2 autoconfigured $H2_IP from dpr's router advertisement" \
	bash -c "ip -n $H2 -6 addr show dev eth0 | grep -q $H2_IP"
R1_LL=fe80::ff:fe00:201
check "h2's default route is dpr's link-local address ($R1_LL)" \
	bash -c "ip -n $H2 -6 route show default | grep -q 'via $R1_LL dev eth0'"
check "the advertisement carried the port's MTU (1400)" \
	bash -c "ip netns exec $H2 sysctl -n net.ipv6.conf.eth0.mtu | grep -qx 1400"

check "h1 pings the router's global address" \
	ip netns exec "$H1" ping -6 -c 2 -i 0.2 -W 2 -q 2001:db8:1::1
check "h1 pings the router's link-local address" \
	ip netns exec "$H1" ping -6 -c 2 -i 0.2 -W 2 -q fe80::ff:fe00:101%eth0
check "h1 pings the router's address on the far port" \
	ip netns exec "$H1" ping -6 -c 2 -i 0.2 -W 2 -q 2001:db8:2::1
check "h1 pings h2 through dpr (no static neighbours)" \
	ip netns exec "$H1" ping -6 -c 3 -i 0.2 -W 2 -q "$H2_IP"
check "h2 pings h1 back through dpr" \
	ip netns exec "$H2" ping -6 -c 3 -i 0.2 -W 2 -q 2001:db8:1::2
check "IPv4 still crosses dpr" ip netns exec "$H1" ping -c 2 -i 0.2 -W 2 -q 10.0.2.2

out=$(ip netns exec "$H1" traceroute -6 -n -q 1 -w 2 -m 4 "$H2_IP" 2>&1)
check "traceroute -6 shows the router as hop 1 ($(echo "$out" | sed -n 2p))" \
	bash -c "echo '$out' | grep -Eq '^ *1 +2001:db8:1::1 '"
check "traceroute -6 reaches h2 at hop 2" \
	bash -c "echo '$out' | grep -Eq '^ *2 +$H2_IP '"

out=$(ip netns exec "$H1" ping -6 -c 1 -t 1 -W 2 "$H2_IP" 2>&1)
check "hop limit 1: time exceeded from the router" \
	bash -c "echo '$out' | grep -q 'From 2001:db8:1::1 .*Time exceeded: Hop limit'"
out=$(ip netns exec "$H1" ping -6 -c 1 -W 2 2001:db8:77::1 2>&1)
check "no route: destination unreachable, no route" \
	bash -c "echo '$out' | grep -q 'From 2001:db8:1::1 .*Destination unreachable: No route'"
out=$(ip netns exec "$H1" ping -6 -c 1 -s 1420 -M do -W 2 "$H2_IP" 2>&1)
check "too big for p1: packet too big with mtu 1400 ($(echo "$out" | grep -m1 From))" \
	bash -c "echo '$out' | grep -q 'From 2001:db8:1::1 .*Packet too big: mtu=1400'"
if command -v tracepath >/dev/null; then
	# Forget what the ping above taught h1: tracepath must find it itself.
	ip -n "$H1" -6 route flush cache
	out=$(ip netns exec "$H1" tracepath -6 -n -m 4 "$H2_IP" 2>&1)
	check "tracepath -6 finds the path MTU 1400 ($(echo "$out" | grep -m1 -i pmtu))" \
		bash -c "echo '$out' | grep -qi 'pmtu 1400'"
fi

# A route through h2's link-local address needs its port.
check "a link-local gateway without its port is refused" \
	bash -c "! $DPRCTL -s $SOCK route add 2001:db8:99::/48 via fe80::ff:fe00:202 2>/dev/null"
check "route add 2001:db8:99::/48 via fe80::ff:fe00:202 dev p1" \
	ctl route add 2001:db8:99::/48 via fe80::ff:fe00:202 dev p1
check "h1 reaches 2001:db8:99::1 through the link-local gateway" \
	ip netns exec "$H1" ping -6 -c 2 -i 0.2 -W 2 -q 2001:db8:99::1
got=$(ctl --json route get 2001:db8:99::1)
check "route get answers the IPv6 route ($got)" \
	bash -c "echo '$got' | grep -q '2001:db8:99::/48' && echo '$got' | grep -q 'p1'"
got=$(ctl neigh list)
check "h1 and h2 were learned by NDP (neigh list)" \
	bash -c "echo '$got' | grep -q 2001:db8:1::2 && echo '$got' | grep -q $H2_IP"

# Mixed IPv4 and IPv6 TCP on two workers.
ip netns exec "$H2" python3 - > "$WORK/srv.log" 2>&1 <<'PY' &
import socket, threading
def serve(fam, addr):
    s = socket.socket(fam, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if fam == socket.AF_INET6:
        s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
    s.bind((addr, 7000))
    s.listen(8)
    for _ in range(4):
        c, _ = s.accept()
        n = 0
        while True:
            d = c.recv(65536)
            if not d:
                break
            n += len(d)
        c.sendall(str(n).encode())
        c.close()
        print(fam, n, flush=True)
ts = [threading.Thread(target=serve, args=(socket.AF_INET, "0.0.0.0")),
      threading.Thread(target=serve, args=(socket.AF_INET6, "::"))]
print("listening", flush=True)
for t in ts: t.start()
for t in ts: t.join()
PY
srv=$!
for _ in $(seq 50); do grep -q listening "$WORK/srv.log" && break; sleep 0.1; done
sleep 0.3
res=$(ip netns exec "$H1" python3 - "$H2_IP" <<'PY'
import socket, sys, threading
ok = []
def send(host, fam, port_off):
    c = socket.socket(fam, socket.SOCK_STREAM)
    c.settimeout(20)
    c.connect((host, 7000))
    c.sendall(b"y" * 2000000)
    c.shutdown(socket.SHUT_WR)
    ok.append(c.recv(64) == b"2000000")
ts = []
for i in range(4):
    ts.append(threading.Thread(target=send, args=("10.0.2.2", socket.AF_INET, i)))
    ts.append(threading.Thread(target=send, args=(sys.argv[1], socket.AF_INET6, i)))
for t in ts: t.start()
for t in ts: t.join()
print(sum(ok))
PY
)
reap 30 $srv
check "8 TCP transfers of 2 MB, 4 over IPv4 and 4 over IPv6, all complete ($res/8)" test "$res" = 8

# 64 UDP flows more: the port's queues are chosen per flow (af_packet's
# fanout hash), and the 8 transfers above alone left one worker without
# any, now and then (about 1 run in 25).
ip netns exec "$H1" python3 "$TRAFFIC" udp-send 10.0.2.2 7009 256 --flows 64
check "h2 still has dpr as its default router before dpr stops" \
	bash -c "ip -n $H2 -6 route show default | grep -q 'via $R1_LL dev eth0'"
stop_dpr
# RFC 4861 6.2.5: a final advertisement with Router Lifetime 0 as dpr stops;
# h2 drops the default route at once, not when the 12 s it held run out.
wait_for 2 bash -c "! ip -n $H2 -6 route show default | grep -q 'via $R1_LL'" || true
check "h2 dropped dpr as its default router on its final advertisement (RFC 4861 6.2.5)" \
	bash -c "! ip -n $H2 -6 route show default | grep -q 'via $R1_LL'"
check "both workers forwarded" \
	test "$(counter 'min(w["forwarded"] for w in S["workers"])')" -gt 0
check "neighbour solicitations were answered" \
	test "$(counter 'S["exception_path"]["ipv6"]["na_sent"]')" -gt 0
check "router advertisements were sent" \
	test "$(counter 'S["exception_path"]["ipv6"]["ra_sent"]')" -gt 0
check_accounting
finish

#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The host stack behind dpr: each port has a TAP whose kernel side carries
# the port's MAC and addresses. A TCP connection from a namespace host to
# the router's address reaches a listener on the host; data flows both ways.
# A transparent port leaves ARP and ICMP to the kernel. A TAP's link
# follows its port's.
source "$(dirname "$0")/lib.sh"
need_root

T0=dk${TAG}a T1=dk${TAG}b
two_hosts --arp
cat > "$WORK/dpr.json" <<JSON
{
  "ports": [
    {"name": "p0", "device": "net_af_packet_${TAG}a,iface=$V0,qpairs=2",
     "mac": "02:00:00:00:01:01", "addresses": ["10.0.1.1/24"], "tap": "$T0"},
    {"name": "p1", "device": "net_af_packet_${TAG}b,iface=$V1,qpairs=2",
     "mac": "02:00:00:00:02:01", "addresses": ["10.0.2.1/24"], "tap": "$T1",
     "transparent": true},
    {"name": "p2", "device": "net_tap_${TAG}c,iface=dt${TAG}c", "tap": "dk${TAG}c",
     "addresses": ["10.0.3.1/24", "2001:db8:3::1/64"]}
  ],
  "control": {"socket": "$SOCK"},
  "fib": {"ipv4_max_routes": 1024, "ipv4_tbl8_groups": 64}
}
JSON
start_dpr "$WORK/dpr.json" -l 0,1 -- --idle-sleep 100
LINKS+=("$T0" "$T1" "dk${TAG}c")

check "TAP $T0 carries the port's MAC" bash -c "ip link show $T0 | grep -q 02:00:00:00:01:01"
check "TAP $T0 carries the port's address" bash -c "ip addr show $T0 | grep -q 'inet 10.0.1.1/24'"

# An echo server on the host, bound to the TAP: it only sees what dpr hands over.
python3 - "$T0" > "$WORK/server.log" 2>&1 <<'PY' &
import socket, sys
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.setsockopt(socket.SOL_SOCKET, socket.SO_BINDTODEVICE, sys.argv[1].encode())
s.bind(("10.0.1.1", 7777))
s.listen(1)
print("listening", flush=True)
c, peer = s.accept()
data = b""
while not data.endswith(b"END"):
    chunk = c.recv(65536)
    if not chunk:
        break
    data += chunk
c.sendall(b"ECHO:" + data)
c.close()
print("served", peer[0], len(data), flush=True)
PY
server=$!
for _ in $(seq 50); do grep -q listening "$WORK/server.log" && break; sleep 0.1; done

reply=$(ip netns exec "$H1" python3 - <<'PY'
import socket
c = socket.create_connection(("10.0.1.1", 7777), timeout=10)
msg = b"x" * 100000 + b"END"
c.sendall(msg)
data = b""
while True:
    chunk = c.recv(65536)
    if not chunk:
        break
    data += chunk
print(len(data), data[:5].decode())
PY
)
reap 10 $server
check "h1's TCP connection reached the listener on the host ($(cat "$WORK/server.log" | tail -1))" \
	grep -q "served 10.0.1.2 100003" "$WORK/server.log"
check "the host's answer came back through dpr ($reply)" test "$reply" = "100008 ECHO:"

# Transparent p1: the kernel answers ARP and ping for 10.0.2.1.
# The kernel resolves h2 itself (its ARP through the TAP and dpr) before it
# answers: a bounded wait, not a two-ping window (which lost both, now and
# then, on a loaded machine).
check "h2 pings the router on a transparent port" \
	wait_for 15 ip netns exec "$H2" ping -c 1 -W 1 -q 10.0.2.1
check "h1 still reaches h2 through dpr" ip netns exec "$H1" ping -c 2 -i 0.2 -W 2 -q 10.0.2.2
# ... but only for p1's addresses (dpr's own answers are so, RFC 826 and
# 1812 3.3.2): the host's other addresses (management, containers) are not
# on p1's link, and an answer would draw their traffic into dpr.
ip link add "dd$TAG" type veth peer name "de$TAG" && LINKS+=("dd$TAG")
ip addr add 198.51.100.77/32 dev "dd$TAG"
ip link set "dd$TAG" up
ip -n "$H2" route add 198.51.100.77/32 dev eth0
ip netns exec "$H2" ping -c 1 -W 2 -q 198.51.100.77 > /dev/null 2>&1
check "the kernel behind transparent p1 answers no ARP for a host address not on p1 ($(ip -n "$H2" neigh show 198.51.100.77))" \
	bash -c "! ip -n $H2 neigh show 198.51.100.77 | grep -q lladdr"

# The TAP's link follows the port's. (af_packet reports its link as always
# up in DPDK 22.11, so p2 is a net_tap port whose wire end stays here.)
T2=dk${TAG}c
check "TAP $T2 is up with its port" bash -c "ip link show $T2 | grep -q 'UP,LOWER_UP'"
tap6() { ip -6 addr show dev "$T2" | grep -c -e 'inet6 2001:db8:3::1/64' -e 'inet6 fe80::'; }
check "TAP $T2 carries the port's IPv6 addresses, link-local included ($(tap6))" \
	test "$(tap6)" -eq 2
ip link set "dt${TAG}c" down
for _ in $(seq 40); do ip link show "$T2" | grep -q 'state DOWN' && break; sleep 0.1; done
check "port link down: TAP $T2 goes down" bash -c "ip link show $T2 | grep -q 'state DOWN'"
ip link set "dt${TAG}c" up
for _ in $(seq 40); do ip link show "$T2" | grep -q 'UP,LOWER_UP' && break; sleep 0.1; done
check "port link up: TAP $T2 comes back" bash -c "ip link show $T2 | grep -q 'UP,LOWER_UP'"
# Down, the kernel flushed the TAP's IPv6 addresses (keep_addr_on_down is
# off by default, and never keeps a link-local one): dpr gives them back.
tap6_both() { test "$(tap6)" -eq 2; }
check "... with its IPv6 addresses again, link-local included ($(tap6))" wait_for 5 tap6_both

# p2's multicast filter: a NIC drops multicast it was not given, so the
# list holds the groups of every IPv6 address (solicited-node: neighbour
# solicitations), the fixed ones, and what the host stack joins on the
# TAPs. net_tap takes a list (and filters nothing): dpr's report of it is
# what there is to check.
groups() { ctl --json port list | python3 -c 'import json, sys
p = next(p for p in json.load(sys.stdin) if p["name"] == "p2")
print(p["multicast"], " ".join(p["multicast_groups"] or []).lower())'; }
has_group() { groups | grep -qw "$1"; }
no_group() { ! has_group "$1"; }
is_list() { groups | grep -q '^groups '; }
fixed_groups() { has_group 33:33:00:00:00:01 && has_group 33:33:00:00:00:02 &&
	has_group 01:00:5e:00:00:01 && has_group 01:80:c2:00:00:0e; }
vlan_groups_gone() { no_group 33:33:ff:42:42:43 && no_group 33:33:00:00:00:06; }
check "p2's multicast filter is a list ($(groups | cut -c1-60)...)" is_list
mac2=$(ctl --json port list | python3 -c 'import json, sys
print(next(p for p in json.load(sys.stdin) if p["name"] == "p2")["mac"].lower())')
check "... with all-nodes, all-routers, IPv4 all-systems and LLDP's" fixed_groups
check "... with 2001:db8:3::1's solicited-node group" has_group 33:33:ff:00:00:01
check "... with its link-local address's (33:33:ff:${mac2:9})" has_group "33:33:ff:${mac2:9}"
ctl addr add p2 2001:db8:33::ab:cdef/64 > /dev/null
check "addr.add: the new address's solicited-node group joins the list" has_group 33:33:ff:ab:cd:ef
ctl addr del p2 2001:db8:33::ab:cdef/64 > /dev/null
check "addr.del: and leaves it" no_group 33:33:ff:ab:cd:ef
# A second IPv4 address on the first one's subnet: the kernel calls it
# secondary, and deleting the primary deletes it from the TAP as well
# (promote_secondaries off), though dpr keeps it and hands its packets up.
ctl addr add p2 10.0.3.2/24 > /dev/null
ctl addr del p2 10.0.3.1/24 > /dev/null
check "addr.del of the first address leaves the second one's on TAP $T2 ($(ip -4 -br addr show dev "$T2"))" \
	bash -c "ip -4 addr show dev $T2 | grep -q 'inet 10.0.3.2/24'"
ctl addr add p2 10.0.3.1/24 > /dev/null
ctl addr del p2 10.0.3.2/24 > /dev/null
# The port's addresses are dpr's: flushed from the TAP on the host (as a
# network manager might), they come back within a second, said.
restored() { ctl --json stats | python3 -c 'import json, sys
print(json.load(sys.stdin)["host_stack"]["tap_addresses_restored"])'; }
r0=$(restored)
ip addr flush dev "$T2" scope global
back() { ip -4 addr show dev "$T2" | grep -q 'inet 10.0.3.1/24' &&
	ip -6 addr show dev "$T2" | grep -q 'inet6 2001:db8:3::1/64'; }
check "addresses flushed from TAP $T2 on the host are put back" \
	wait_for 5 back
check "... and counted (tap_addresses_restored $r0 -> $(restored))" test "$(restored)" -ge $((r0 + 2))
check "... and logged" grep -q "TAP $T2 lost the port's address 10.0.3.1/24" "$WORK/dpr.log"
# OSPF's AllSPFRouters (224.0.0.5), as ospfd joins it on the TAP: the
# once-a-second check reads the TAP's groups.
ip maddr add 01:00:5e:00:00:05 dev "$T2"
check "a group joined on TAP $T2 joins p2's list" wait_for 5 has_group 01:00:5e:00:00:05
ip maddr del 01:00:5e:00:00:05 dev "$T2"
check "... and leaves it when the TAP leaves it" wait_for 5 no_group 01:00:5e:00:00:05
# A VLAN interface's addresses and TAP are on the same device.
ctl vlan add p2.100 dev p2 id 100 > /dev/null
ctl addr add p2.100 2001:db8:100::42:4243/64 > /dev/null
check "a VLAN interface's address: its solicited-node group on p2's list" has_group 33:33:ff:42:42:43
ip maddr add 33:33:00:00:00:06 dev dpr-p2.100
check "a group joined on the VLAN interface's TAP: on p2's list" wait_for 5 has_group 33:33:00:00:00:06
ctl vlan del p2.100 > /dev/null
check "vlan.del: both leave p2's list" vlan_groups_gone

# VLAN interfaces added at run time, each with its TAP: a TAP holds only
# the few mbufs it reads into, not a ring's worth (512 each took the pool
# that the start had sized for the config's TAPs: the workers were left a
# few hundred mbufs to receive into, and vlan.add failed with ENOMEM after
# two dozen). 20: each TAP is a DPDK port too (RTE_MAX_ETHPORTS).
added=0
for i in $(seq 1 20); do ctl vlan add "p2.$i" dev p2 id "$i" > /dev/null || break; added=$i; done
check "20 VLAN interfaces with their TAPs added at run time ($added)" test "$added" -eq 20
check "... each TAP there" test "$(ip -br link show | grep -c "^dpr-p2\.")" -eq 20
pool() { ctl call stats.get | python3 -c 'import json, sys
m = json.load(sys.stdin)["mbufs"][0]; print(m["size"] - m["in_use"], m["size"])'; }
read -r free size <<<"$(pool)"
check "... and half the mbuf pool still free for the ports ($free of $size)" \
	test "$free" -gt $((size / 2))
# Then DPDK's port ids run out (RTE_MAX_ETHPORTS: ports and TAPs
# together): vlan.add says so, and how to add the interface all the same.
out=$(for i in $(seq 21 29); do ctl vlan add "p2.$i" dev p2 id "$i" 2>&1 > /dev/null || break; added=$i; done)
check "out of DPDK port ids: vlan.add says so (${out:-nothing})" grep -q "RTE_MAX_ETHPORTS.*notap" <<<"$out"
for i in $(seq 1 "$added"); do ctl vlan del "p2.$i" > /dev/null; done

stop_dpr
check "segments went to the kernel" test "$(counter 'S["host_stack"]["to_kernel"]')" -gt 10
check "segments came from the kernel" test "$(counter 'S["host_stack"]["from_kernel"]')" -gt 10
check "dpr answered no ping on the transparent port" \
	test "$(counter 'S["exception_path"]["echo_replies"]')" -eq 0
check "TAPs removed at exit" bash -c "! ip link show $T0 2>/dev/null"
check_accounting
finish

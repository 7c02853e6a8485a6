#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Malformed and abusive traffic from a namespace host, one frame at a time
# (malformed.py): over 60 frames across Ethernet, ARP, IPv4 (versions,
# lengths, IHL, checksums, TTL, martians, broadcasts, every option kind and
# broken option lengths, source routes, fragments, MTU), ICMP, IPv6
# (lengths, martians, scope, hop-by-hop options), NDP and 802.1Q (tags for
# no interface, on a port with none, priority tags, reserved ids, S-tags,
# double tags, cut tags; VRFs that must not leak into each other), QinQ
# (pairs for no interface, the wrong outer TPID, cut inner tags), and what
# p1's input ACL must drop (L4 headers cut short, IPv6 extension chains too
# long, past the packet or cut by a fragment) or let through. Each is
# counted under the reason it must be, once, on the interface it must be;
# the exception path counts what it did with it; the hosts receive exactly
# the frames meant to cross, with the tag they must have; the counters add
# up.
#
#   h1 10.0.1.2 2001:db8:1::2 -- p0  dpr  p1 (mtu 1280) -- h2 10.0.2.2 2001:db8:2::2
#   h1 in VLAN 100 -- p0.100 (VRF red, 10.0.1.1/24, 198.51.100.0/24 via h1,
#                             no redirects: red's traffic hairpins at once)
#   h1 in VLAN 200 -- p0.200 (VRF blue, 10.0.1.1/24, no other route, mtu 1000:
#                             no IPv6, RFC 8200 5)
#   h1 in QinQ 100.7 -- p0.100.7 (10.0.7.1/24, mtu 1000: no IPv6)
#
# net_tap ports with their kernel sides moved into the hosts (every frame
# reaches dpr exactly as sent); static neighbours, and IPv6 off in the
# hosts' kernels, so that nothing but the probes reaches p0. What is for
# the router and not dpr's to answer goes to its host-stack TAP.
source "$(dirname "$0")/lib.sh"
need_root

H1=h1-$TAG H2=h2-$TAG A=dm${TAG}a B=dm${TAG}b
K0=dk${TAG}a K1=dk${TAG}b # dpr's host-stack TAPs
cat > "$WORK/dpr.json" <<JSON
{
  "ports": [
    {"name": "p0", "device": "net_tap_${TAG}a,iface=$A", "mac": "02:00:00:00:01:01", "tap": "$K0",
     "addresses": ["10.0.1.1/24", "2001:db8:1::1/64"]},
    {"name": "p1", "device": "net_tap_${TAG}b,iface=$B", "mac": "02:00:00:00:02:01", "tap": "$K1",
     "addresses": ["10.0.2.1/24", "2001:db8:2::1/64"], "mtu": 1280, "acl_in": "mal-in"}
  ],
  "acls": [{"name": "mal-in", "default": "permit", "rules": [
    {"action": "deny", "proto": "tcp", "dst_port": 23},
    {"action": "deny", "proto": "udp", "dst_port": 23}]}],
  "neighbors": [
    {"address": "10.0.1.2", "mac": "02:00:00:00:01:02"},
    {"address": "10.0.2.2", "mac": "02:00:00:00:02:02"},
    {"address": "2001:db8:1::2", "mac": "02:00:00:00:01:02"},
    {"address": "2001:db8:2::2", "mac": "02:00:00:00:02:02"},
    {"address": "10.0.1.2", "mac": "02:00:00:00:01:02", "port": "p0.100"}
  ],
  "vrfs": [{"name": "red", "table": 100,
            "fib": {"ipv4_algorithm": "poptrie", "ipv6_algorithm": "poptrie"}},
           {"name": "blue", "table": 200,
            "fib": {"ipv4_algorithm": "poptrie", "ipv6_algorithm": "poptrie"}}],
  "vlans": [
    {"name": "p0.100", "port": "p0", "id": 100, "vrf": "red", "addresses": ["10.0.1.1/24"],
     "tap": false, "redirects": false},
    {"name": "p0.200", "port": "p0", "id": 200, "vrf": "blue", "addresses": ["10.0.1.1/24"],
     "tap": false, "mtu": 1000},
    {"name": "p0.100.7", "port": "p0", "outer_id": 100, "id": 7, "addresses": ["10.0.7.1/24"],
     "tap": false, "mtu": 1000}
  ],
  "routes": [{"prefix": "192.0.2.0/24", "via": "10.0.1.2"},
             {"prefix": "198.51.100.0/24", "via": "10.0.1.2", "vrf": "red"}],
  "control": {"socket": "$SOCK"},
  "fib": {"ipv4_max_routes": 1024, "ipv4_tbl8_groups": 64,
          "ipv6_max_routes": 1024, "ipv6_tbl8_groups": 64}
}
JSON
start_dpr "$WORK/dpr.json" -l 0,1 -- --idle-sleep 100
LINKS+=("$K0" "$K1")
# The host stack knows h1: what it answers (port unreachable) needs no ARP
# that would come back to p0 among the probes.
ip neigh replace 10.0.1.2 lladdr 02:00:00:00:01:02 dev "$K0" nud permanent
netns "$H1"; netns "$H2"
ip link set "$A" netns "$H1" || die "cannot move $A"
ip link set "$B" netns "$H2" || die "cannot move $B"
host_addr "$H1" "$A" 02:00:00:00:01:02 10.0.1.2/24 10.0.1.1 02:00:00:00:01:01
host_addr "$H2" "$B" 02:00:00:00:02:02 10.0.2.2/24 10.0.2.1 02:00:00:00:02:01
ip -n "$H2" link set "$B" mtu 1280

# Whatever the hosts' kernels sent on their way up has landed before the
# first probe is judged (each probe compares p0's counters before and after).
sleep 0.5
ended=
while read -r line; do
	case $line in
	"END "*) ended=${line#END } ;;
	"ok - "*) check "${line#ok - }" true ;;
	"not ok - "*) echo "# ${line#not ok - }"; check "${line#not ok - }" false ;;
	*) echo "$line" ;;
	esac
done < <(python3 "$SMOKE_DIR/malformed.py" "$SOCK" "$H1" "$A" "$H2" "$B" RUN 2>&1)
n=$(python3 "$SMOKE_DIR/malformed.py" "$SOCK" "$H1" "$A" "$H2" "$B" LIST | wc -l)
check "malformed.py judged all $n frames and ran to its end (${ended:-it did not})" \
	test "${ended:-0}" -eq "$n"
check "at least 60 distinct frames were judged ($n)" test "$n" -ge 60

stop_dpr
check_accounting
finish

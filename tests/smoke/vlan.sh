#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# VLAN interfaces: p0 untagged with p0.100 and p0.200 on the same wire, p1
# untagged. The kernel here has no VLAN devices, so the tagged hosts on h1's
# wire are raw sockets (vlanhost.py), which see each frame's tag. dpr runs in
# a namespace of its own, so its TAPs keep their default names.
source "$(dirname "$0")/lib.sh"
need_root

R=r-$TAG DPR_NETNS=r-$TAG H1=h1-$TAG H2=h2-$TAG V0=dv${TAG}a V1=dv${TAG}b
VH="$SMOKE_DIR/vlanhost.py"
netns "$R"; netns "$H1"; netns "$H2"
router_veth "$R" "$H1" "$V0"; router_veth "$R" "$H2" "$V1"
host_addr "$H1" eth0 02:00:00:00:01:02 10.0.1.2/24 10.0.1.1 02:00:00:00:01:01
host_addr "$H2" eth0 02:00:00:00:02:02 10.0.2.2/24 10.0.2.1 02:00:00:00:02:01
# The hosts in VLANs 100 and 200 reach 10.0.2.0/24 through dpr too.
HV1=02:00:00:77:01:02 HV2=02:00:00:77:02:02 HS1=02:00:00:77:01:03 HS2=02:00:00:77:02:03
ip -n "$H2" route add 10.77.0.0/16 via 10.0.2.1

cat > "$WORK/dpr.json" <<JSON
{
  "ports": [
    {"name": "p0", "device": "net_af_packet_${TAG}a,iface=$V0,qpairs=2",
     "mac": "02:00:00:00:01:01", "addresses": ["10.0.1.1/24"]},
    {"name": "p1", "device": "net_af_packet_${TAG}b,iface=$V1,qpairs=2",
     "mac": "02:00:00:00:02:01", "addresses": ["10.0.2.1/24"]}
  ],
  "vlans": [
    {"name": "p0.100", "port": "p0", "id": 100,
     "addresses": ["10.77.1.1/24", "2001:db8:77::1/64"]},
    {"name": "p0.200", "port": "p0", "id": 200, "addresses": ["10.77.2.1/24"], "mtu": 1400}
  ],
  "neighbors": [
    {"address": "10.0.1.2", "mac": "02:00:00:00:01:02", "port": "p0"},
    {"address": "10.0.2.2", "mac": "02:00:00:00:02:02", "port": "p1"}
  ],
  "control": {"socket": "$SOCK"},
  "fib": {"ipv4_max_routes": 1024, "ipv4_tbl8_groups": 64}
}
JSON
start_dpr "$WORK/dpr.json" --lcores 0@0,1@1 -- --idle-sleep 100

# The host stack sees each VLAN interface as an interface of its own.
check "TAP dpr-p0.100 exists with 10.77.1.1/24" \
	eval "ip -n $R -4 addr show dev dpr-p0.100 | grep -q 'inet 10.77.1.1/24'"
check "TAP dpr-p0.200 exists with 10.77.2.1/24 and MTU 1400" \
	eval "ip -n $R -4 addr show dev dpr-p0.200 | grep -q 'mtu 1400.*' && ip -n $R -4 addr show dev dpr-p0.200 | grep -q 'inet 10.77.2.1/24'"
ctl --json port list > "$WORK/ports.json"
check "port list shows p0.100 as VLAN 100 on p0" python3 -c '
import json, sys
p = {x["name"]: x for x in json.load(open(sys.argv[1]))}
v = p["p0.100"]
sys.exit(not (v["type"] == "vlan" and v["parent"] == "p0" and v["vlan_id"] == 100 and
              p["p0"]["type"] == "port" and "10.77.1.1/24" in v["addresses"] and
              v["mac"] == p["p0"]["mac"]))' "$WORK/ports.json"
check "dprctl port list shows it as vlan 100@p0" eval "ctl port list | grep -q '^p0.100 *vlan 100@p0 '"

check "port show p0.100 shows its port's device" eval "ctl port show p0.100 | grep -q '^p0.100: net_af_packet'"
# af_packet's profile grants VLAN strip and insert, and p0 has VLAN
# interfaces: the PMD handles the tags (all the checks below, on the wire).
check "port show p0: VLAN strip and insert offloaded" \
	eval "ctl port show p0 | grep -q '^  vlan: *strip offload, insert offload'"
check "port show p1 (no VLAN interface): software, and why" \
	eval "ctl port show p1 | grep -q 'strip software (no VLAN interface at start)'"
check "doctor answers" eval "ctl doctor > /dev/null"
# config save keeps the VLAN interfaces, and dpr takes the file back.
check "config save" ctl config save "$WORK/saved.json"
check "the saved file has p0.200 as VLAN 200 on p0 with its MTU" python3 -c '
import json, sys
v = {x["name"]: x for x in json.load(open(sys.argv[1]))["vlans"]}["p0.200"]
sys.exit(not (v["port"] == "p0" and v["id"] == 200 and v["mtu"] == 1400 and
              v["addresses"] == ["10.77.2.1/24"] and "device" not in v))' "$WORK/saved.json"
out=$("$DPR" -- -c "$WORK/saved.json" --check 2>&1)
check "dpr --check accepts the saved file ($out)" test $? -eq 0

# probe VID MAC IP TARGET FIELD: what vlanhost.py probe answered
probe() { ip netns exec "$H1" python3 "$VH" probe eth0 "$1" "$2" "$3" "$4"; }
field() { python3 -c 'import json, sys; print(json.loads(sys.argv[1])[sys.argv[2]])' "$1" "$2"; }

# ARP and ping inside each VLAN: the answers carry the VLAN's tag.
r100=$(probe 100 $HV1 10.77.1.2 10.77.1.1)
check "ARP in VLAN 100 answered with the router's MAC ($r100)" test "$(field "$r100" mac)" = 02:00:00:00:01:01
check "the ARP reply is tagged 100" test "$(field "$r100" arp_vid)" = 100
check "10.77.1.1 answers a ping from VLAN 100, tagged 100" test "$(field "$r100" echo_vid)" = 100
r200=$(probe 200 $HV2 10.77.2.2 10.77.2.1)
check "ARP and ping in VLAN 200 answered tagged 200 ($r200)" \
	test "$(field "$r200" arp_vid)/$(field "$r200" echo_vid)" = 200/200
# NDP and ping in IPv6, inside VLAN 100.
r6=$(ip netns exec "$H1" python3 "$VH" probe6 eth0 100 $HV1 2001:db8:77::2 2001:db8:77::1)
check "NDP and ping6 in VLAN 100 answered tagged 100 ($r6)" \
	test "$(field "$r6" mac)/$(field "$r6" na_vid)/$(field "$r6" echo_vid)" = 02:00:00:00:01:01/100/100
# An address of another interface is not answered inside VLAN 100.
rx=$(probe 100 $HV1 10.77.1.2 10.0.1.1)
check "VLAN 100 gets no ARP answer for p0's 10.0.1.1 ($rx)" test "$(field "$rx" mac)" = None
# A priority tag (VLAN id 0) is the port's untagged frame: answered untagged.
r0=$(probe 0 02:00:00:00:01:02 10.0.1.2 10.0.1.1)
check "a priority-tagged ARP and ping to 10.0.1.1 are answered, untagged ($r0)" \
	test "$(field "$r0" mac)/$(field "$r0" arp_vid)/$(field "$r0" echo_vid)" = 02:00:00:00:01:01/None/None

# Forwarding between the untagged h2 and tagged hosts dpr has not heard
# from, both ways: dpr resolves them by ARP inside their VLAN, and they
# answer only what came tagged with their own id.
ip netns exec "$H1" python3 "$VH" serve eth0 6 "$WORK/served.json" \
	100,$HS1,10.77.1.3 200,$HS2,10.77.2.3 &
SERVE=$!
listening "$WORK/served.json"
check "h2 pings the host in VLAN 100 through dpr" ip netns exec "$H2" ping -c 3 -i 0.2 -W 2 -q 10.77.1.3
check "h2 pings the host in VLAN 200 through dpr" ip netns exec "$H2" ping -c 3 -i 0.2 -W 2 -q 10.77.2.3
check "h1 (untagged) pings h2 through dpr" ip netns exec "$H1" ping -c 2 -i 0.2 -W 2 -q 10.0.2.2
# A tag for no VLAN interface, and a priority-tagged packet to forward.
ip netns exec "$H1" python3 "$VH" echo eth0 300 $HV1 02:00:00:00:01:01 10.77.1.2 10.0.2.2
ip netns exec "$H1" python3 "$VH" echo eth0 0 02:00:00:00:01:02 02:00:00:00:01:01 10.0.1.2 10.0.2.2
wait "$SERVE"
check "the VLAN 100 host saw ARP and 3 echo requests, all tagged 100" python3 -c '
import json, sys
s = json.load(open(sys.argv[1]))["10.77.1.3"]
sys.exit(not (s["arp"] >= 1 and s["echo"] == 3 and set(s["vids"]) == {100}))' "$WORK/served.json"
check "the VLAN 200 host saw ARP and 3 echo requests, all tagged 200" python3 -c '
import json, sys
s = json.load(open(sys.argv[1]))["10.77.2.3"]
sys.exit(not (s["arp"] >= 1 and s["echo"] == 3 and set(s["vids"]) == {200}))' "$WORK/served.json"
# Link state follows the port: p0's veth down takes p0.100 and its TAP down.
ip -n "$R" link set "$V0" down
for _ in $(seq 40); do ip -n "$R" link show dpr-p0.100 | grep -q 'state DOWN' && break; sleep 0.1; done
check "p0 down: TAP dpr-p0.100 goes down" eval "ip -n $R link show dpr-p0.100 | grep -q 'state DOWN'"
check "p0 down: port list says p0.100's link is down" \
	eval "ctl --json port list | python3 -c 'import json, sys; sys.exit(next(p for p in json.load(sys.stdin) if p[\"name\"] == \"p0.100\")[\"link\"] != \"down\")'"
ip -n "$R" link set "$V0" up
stop_dpr

check "p0.100 received on its own counters" test "$(counter 'port("p0.100")["rx"]')" -ge 6
check "p0.100 forwarded the 3 echo replies" test "$(counter 'port("p0.100")["forwarded"]')" -eq 3
check "p0.200 forwarded the 3 echo replies" test "$(counter 'port("p0.200")["forwarded"]')" -eq 3
# The first echo request waited for ARP and left from the control thread,
# which port tx does not count.
check "p0.100 sent the other 2 echo requests" test "$(counter 'port("p0.100")["tx"]')" -eq 2
check "the frame for VLAN 300 is unknown_vlan on p0" test "$(counter 'port("p0")["drops"]["unknown_vlan"]')" -eq 1
check "and nothing was unsupported_l3" test "$(counter 'S["total"]["drops"]["unsupported_l3"]')" -eq 0
# h1's 2 pings and the priority-tagged echo request
check "p0 forwarded its untagged and priority-tagged packets (3)" test "$(counter 'port("p0")["forwarded"]')" -eq 3
check_accounting

# The same with the tags in software: a profile without vlan_strip and
# vlan_insert: ARP and ping inside VLAN 100, and the priority tag, once
# more (forwarding with software tags: tests/unit/test_ip4.c, test_vlan).
no_vlan_offloads "$WORK/sw-cfg"
start_dpr "$WORK/dpr.json" --lcores 0@0,1@1 -- --idle-sleep 100 --drivers-cfg "$WORK/sw-cfg"
check "software profile: port show p0 says software, and why" \
	eval "ctl port show p0 | grep -q '^  vlan: *strip software (profile .* does not list vlan_strip), insert software'"
r100=$(probe 100 $HV1 10.77.1.2 10.77.1.1)
check "software: ARP and ping in VLAN 100 answered tagged 100 ($r100)" \
	test "$(field "$r100" mac)/$(field "$r100" arp_vid)/$(field "$r100" echo_vid)" = 02:00:00:00:01:01/100/100
r0=$(probe 0 02:00:00:00:01:02 10.0.1.2 10.0.1.1)
check "software: a priority-tagged ping to 10.0.1.1 is answered untagged ($r0)" \
	test "$(field "$r0" arp_vid)/$(field "$r0" echo_vid)" = None/None
stop_dpr
check "software: p0.100 received the probe's ARP and echo request" \
	test "$(counter 'port("p0.100")["rx"]')" -ge 2
check_accounting
finish

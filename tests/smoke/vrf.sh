#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# VRFs: the default VRF on p0 and p1 (untagged, kernel hosts h1 and h2) and
# VRF "red" on VLAN 100 of the same two wires (p0.100, p1.100), with the
# same subnets and the same host addresses: 10.0.1.2 and 10.0.2.2 are h1 and
# h2 untagged, and raw-socket hosts (vlanhost.py) in VLAN 100. Each VRF must
# forward to its own hosts only, both ways, and keep its own routes and
# neighbours.
source "$(dirname "$0")/lib.sh"
need_root
has() { grep -q -- "$1" <<<"$2"; } # has PATTERN TEXT

vlan_rig dv
# The red hosts: same addresses, other MACs, in VLAN 100.
RH1=02:00:00:aa:01:02 RH2=02:00:00:aa:02:02

cat > "$WORK/dpr.json" <<JSON
{
  "ports": [
    {"name": "p0", "device": "net_af_packet_${TAG}a,iface=$V0,qpairs=2",
     "mac": "02:00:00:00:01:01", "addresses": ["10.0.1.1/24"]},
    {"name": "p1", "device": "net_af_packet_${TAG}b,iface=$V1,qpairs=2",
     "mac": "02:00:00:00:02:01", "addresses": ["10.0.2.1/24"]}
  ],
  "vrfs": [
    {"name": "red", "table": 100,
     "fib": {"ipv4_algorithm": "poptrie", "ipv6_algorithm": "poptrie"}}
  ],
  "vlans": [
    {"name": "p0.100", "port": "p0", "id": 100, "vrf": "red", "addresses": ["10.0.1.1/24"]},
    {"name": "p1.100", "port": "p1", "id": 100, "vrf": "red", "addresses": ["10.0.2.1/24"]}
  ],
  "routes": [
    {"prefix": "10.55.0.0/16", "via": "10.0.2.2", "vrf": "red"}
  ],
  "control": {"socket": "$SOCK"},
  "fib": {"ipv4_max_routes": 1024, "ipv4_tbl8_groups": 64}
}
JSON
start_dpr "$WORK/dpr.json" --lcores 0@0,1@1 -- --idle-sleep 100

ctl --json vrf list > "$WORK/vrfs.json"
check "vrf list: red, table 100, on p0.100 and p1.100" python3 -c '
import json, sys
v = {x["name"]: x for x in json.load(open(sys.argv[1]))}
r = v["red"]
sys.exit(not (r["table"] == 100 and r["interfaces"] == ["p0.100", "p1.100"] and
              v["default"]["interfaces"] == ["p0", "p1"] and r["ipv4_algorithm"] == "poptrie"))' "$WORK/vrfs.json"
check "port list shows p1.100 in VRF red" eval "ctl port list | grep -Eq '^p1.100 .* red +10.0.2.1/24'"

# Routes per VRF: the file's, and one from dprctl.
check "route get 10.55.1.1 vrf red: via 10.0.2.2 dev p1.100" \
	eval "ctl route get 10.55.1.1 vrf red | grep -Eq 'via +10.0.2.2 +dev +p1.100'"
out=$(ctl route get 10.55.1.1 2>&1)
check "the default VRF has no route to 10.55.1.1 ($out)" has 'no route' "$out"
check "route add 10.66.0.0/16 via 10.0.2.2 vrf red" ctl route add 10.66.0.0/16 via 10.0.2.2 vrf red
check "route list vrf red has it" eval "ctl route list vrf red | grep -Eq '^10.66.0.0/16 +via +10.0.2.2 +dev +p1.100'"
check "route list (default) has not" eval "! ctl route list | grep -q '10.66.0.0/16'"
out=$(ctl route add 10.67.0.0/16 via 10.0.2.2 dev p1 vrf red 2>&1)
check "a route in red through p1 (default VRF) is refused ($out)" \
	has 'port p1 is in VRF default, not red' "$out"
out=$(ctl route add 10.67.0.0/16 via 10.0.2.2 vrf blue 2>&1)
check "a route into a VRF that does not exist is refused ($out)" has 'no VRF "blue"' "$out"

# ARP and ping of the router inside red, tagged 100.
probe() { ip netns exec "$1" python3 "$VH" probe eth0 "$2" "$3" "$4" "$5"; }
field() { python3 -c 'import json, sys; print(json.loads(sys.argv[1])[sys.argv[2]])' "$1" "$2"; }
r=$(probe "$H1" 100 $RH1 10.0.1.2 10.0.1.1)
check "red: 10.0.1.1 answers ARP and ping in VLAN 100 ($r)" \
	test "$(field "$r" mac)/$(field "$r" arp_vid)/$(field "$r" echo_vid)" = 02:00:00:00:01:01/100/100

# Forwarding in each VRF while the red hosts listen on both wires.
ip netns exec "$H1" python3 "$VH" serve eth0 6 "$WORK/h1red.json" 100,$RH1,10.0.1.2 &
S1=$!
ip netns exec "$H2" python3 "$VH" serve eth0 6 "$WORK/h2red.json" 100,$RH2,10.0.2.2 &
S2=$!
listening "$WORK/h1red.json"
listening "$WORK/h2red.json"
check "default: h1 pings h2 (10.0.2.2) through dpr" \
	ip netns exec "$H1" ping -c 3 -i 0.2 -W 2 -q 10.0.2.2
check "default: h2 pings h1 (10.0.1.2) through dpr" \
	ip netns exec "$H2" ping -c 3 -i 0.2 -W 2 -q 10.0.1.2
# red: from the VLAN 100 host on wire 1 to 10.0.2.2, and to 10.55.1.1
# (routed via 10.0.2.2, the red host's MAC): both reach the red host's wire
# tagged 100; the replies come back to the red 10.0.1.2.
for i in 1 2 3; do
	ip netns exec "$H1" python3 "$VH" echo eth0 100 $RH1 02:00:00:00:01:01 10.0.1.2 10.0.2.2
	sleep 0.2
done
wait "$S1" "$S2"
check "red: the VLAN 100 host on wire 2 saw ARP and 3 echo requests, all tagged 100" python3 -c '
import json, sys
s = json.load(open(sys.argv[1]))["10.0.2.2"]
sys.exit(not (s["arp"] >= 1 and s["echo"] == 3 and set(s["vids"]) == {100}))' "$WORK/h2red.json"
check "red: the VLAN 100 host on wire 1 got none of the default VRF's echo requests" python3 -c '
import json, sys
s = json.load(open(sys.argv[1]))["10.0.1.2"]
sys.exit(not (s["echo"] == 0 and set(s["vids"]) <= {100}))' "$WORK/h1red.json"

# The same address is a neighbour in each VRF, each with its own MAC.
ctl --json neigh list > "$WORK/neigh.json"
check "10.0.2.2 is h2 in default and the red host in red" python3 -c '
import json, sys
n = {(x["address"], x["vrf"]): x for x in json.load(open(sys.argv[1]))}
d, r = n[("10.0.2.2", "default")], n[("10.0.2.2", "red")]
sys.exit(not (d["port"] == "p1" and d["mac"] == "02:00:00:00:02:02" and
              r["port"] == "p1.100" and r["mac"].lower() == sys.argv[2]))' "$WORK/neigh.json" $RH2
check "neigh list vrf red shows red's only" \
	eval "ctl neigh list vrf red | grep -q p1.100 && ! ctl neigh list vrf red | grep -q ' p1 '"

# stats and the saved config know the VRF.
check "stats.get has red's FIB" eval "ctl call stats.get | python3 -c 'import json, sys; v = {x[\"name\"]: x for x in json.load(sys.stdin)[\"vrfs\"]}; sys.exit(not (v[\"red\"][\"fib\"][\"ipv4_routes\"] >= 8 and v[\"red\"][\"fib\"][\"ipv4_algorithm\"] == \"poptrie\"))'"
check "config save" ctl config save "$WORK/saved.json"
check "the saved file keeps red, its interfaces and its routes" python3 -c '
import json, sys
c = json.load(open(sys.argv[1]))
v = {x["name"]: x for x in c["vlans"]}
rt = {(x["prefix"], x.get("vrf", "default")) for x in c["routes"]}
sys.exit(not (c["vrfs"][0]["name"] == "red" and c["vrfs"][0]["table"] == 100 and
              v["p1.100"]["vrf"] == "red" and ("10.55.0.0/16", "red") in rt and
              ("10.66.0.0/16", "red") in rt))' "$WORK/saved.json"
out=$("$DPR" -- -c "$WORK/saved.json" --check 2>&1)
check "dpr --check accepts the saved file ($out)" test $? -eq 0
check "rib.check holds across both VRFs" ctl rib check
stop_dpr

# The first request waited for ARP and left from the control thread.
check "p0.100 forwarded red's echo requests (at least 2 of 3)" test "$(counter 'port("p0.100")["forwarded"]')" -ge 2
check "p1.100 forwarded red's echo replies (at least 2 of 3)" test "$(counter 'port("p1.100")["forwarded"]')" -ge 2
check "p0 and p1 forwarded the default VRF's pings (at least 8 of 12)" \
	test "$(counter 'port("p0")["forwarded"] + port("p1")["forwarded"]')" -ge 8
check_accounting
finish

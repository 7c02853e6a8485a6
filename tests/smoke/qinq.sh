#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# QinQ interfaces: on p0's wire, p0.100.20 (802.1ad S-tag 100, C-tag 20),
# p0.300.30 (0x8100 outer tag 300, "double tagged") and the single-tagged
# p0.20 (VLAN 20, as p0.100.20's inner id); p1 untagged. The kernel here has
# no VLAN devices: the tagged hosts are raw sockets (vlanhost.py), which
# name double tags OUTER.INNER (qOUTER.INNER: outer TPID 0x8100).
source "$(dirname "$0")/lib.sh"
need_root
has() { grep -q -- "$1" <<<"$2"; } # has PATTERN TEXT

vlan_rig dq
HQ=02:00:00:78:01:02 HS=02:00:00:78:01:03
ip -n "$H2" route add 10.78.0.0/16 via 10.0.2.1

cat > "$WORK/dpr.json" <<JSON
{
  "ports": [
    {"name": "p0", "device": "net_af_packet_${TAG}a,iface=$V0,qpairs=2",
     "mac": "02:00:00:00:01:01", "addresses": ["10.0.1.1/24"]},
    {"name": "p1", "device": "net_af_packet_${TAG}b,iface=$V1,qpairs=2",
     "mac": "02:00:00:00:02:01", "addresses": ["10.0.2.1/24"]}
  ],
  "vlans": [
    {"name": "p0.100.20", "port": "p0", "outer_id": 100, "id": 20,
     "addresses": ["10.78.1.1/24"]},
    {"name": "p0.300.30", "port": "p0", "outer_id": 300, "id": 30, "outer_proto": "802.1q",
     "addresses": ["10.78.3.1/24"]},
    {"name": "p0.20", "port": "p0", "id": 20, "addresses": ["10.77.20.1/24"]}
  ],
  "neighbors": [{"address": "10.0.2.2", "mac": "02:00:00:00:02:02", "port": "p1"}],
  "control": {"socket": "$SOCK"},
  "fib": {"ipv4_max_routes": 1024, "ipv4_tbl8_groups": 64}
}
JSON
start_dpr "$WORK/dpr.json" --lcores 0@0,1@1 -- --idle-sleep 100

check "TAP dpr-p0.100.20 exists with 10.78.1.1/24" \
	eval "ip -n $R -4 addr show dev dpr-p0.100.20 | grep -q 'inet 10.78.1.1/24'"
ctl --json port list > "$WORK/ports.json"
check "port list shows p0.100.20 as outer 100 (802.1ad), inner 20 on p0" python3 -c '
import json, sys
p = {x["name"]: x for x in json.load(open(sys.argv[1]))}
v, w = p["p0.100.20"], p["p0.300.30"]
sys.exit(not (v["type"] == "vlan" and v["parent"] == "p0" and v["vlan_id"] == 20 and
              v["outer_id"] == 100 and v["outer_proto"] == "802.1ad" and
              w["outer_proto"] == "802.1q" and "outer_id" not in p["p0.20"]))' "$WORK/ports.json"
check "dprctl port list shows vlan 100.20@p0" eval "ctl port list | grep -q '^p0.100.20 *vlan 100.20@p0 '"
check "doctor answers" eval "ctl doctor > /dev/null"
check "config save" ctl config save "$WORK/saved.json"
check "the saved file has p0.100.20 and p0.300.30 with their outer tags" python3 -c '
import json, sys
v = {x["name"]: x for x in json.load(open(sys.argv[1]))["vlans"]}
a, b = v["p0.100.20"], v["p0.300.30"]
sys.exit(not (a["outer_id"] == 100 and a["id"] == 20 and "outer_proto" not in a and
              b["outer_id"] == 300 and b["outer_proto"] == "802.1q"))' "$WORK/saved.json"
out=$("$DPR" -- -c "$WORK/saved.json" --check 2>&1)
check "dpr --check accepts the saved file ($out)" test $? -eq 0

probe() { ip netns exec "$H1" python3 "$VH" probe eth0 "$1" "$2" "$3" "$4"; }
field() { python3 -c 'import json, sys; print(json.loads(sys.argv[1])[sys.argv[2]])' "$1" "$2"; }

# ARP and ping inside each pair: the answers carry both tags, the outer
# one with its TPID (the receiving kernel's PACKET_AUXDATA says which).
r=$(probe 100.20 $HQ 10.78.1.2 10.78.1.1)
check "ARP and ping in 100.20 answered, tagged 0x88a8 100 then 20 ($r)" \
	test "$(field "$r" mac)/$(field "$r" arp_vid)/$(field "$r" echo_vid)" = 02:00:00:00:01:01/100.20/100.20
r=$(probe q300.30 $HQ 10.78.3.2 10.78.3.1)
check "ARP and ping in 0x8100 300.30 answered, tagged 0x8100 300 then 30 ($r)" \
	test "$(field "$r" arp_vid)/$(field "$r" echo_vid)" = q300.30/q300.30
r=$(probe 20 $HQ 10.77.20.2 10.77.20.1)
check "VLAN 20 itself is answered, single-tagged ($r)" test "$(field "$r" echo_vid)" = 20

# Forwarding between the untagged h2 and a QinQ host dpr has not heard
# from, both ways (echo requests in, replies out); meanwhile isolation from
# the single-tagged VLAN 20, both ways (probes that wait 2 s for nothing).
ip netns exec "$H1" python3 "$VH" serve eth0 3 "$WORK/served.json" 100.20,$HS,10.78.1.3 &
SERVE=$!
listening "$WORK/served.json"
probe 20 $HQ 10.77.20.2 10.78.1.1 > "$WORK/iso1.json" &
ISO1=$!
probe 100.20 $HQ 10.78.1.2 10.77.20.1 > "$WORK/iso2.json" &
ISO2=$!
check "h2 pings the host in 100.20 through dpr" ip netns exec "$H2" ping -c 3 -i 0.2 -W 2 -q 10.78.1.3
# A pair no interface has, and an S-tag alone: unknown_vlan drops, which a
# capture of that reason records.
ctl capture -w "$WORK/unknown.pcapng" --drop unknown_vlan --port p0 -c 2 --seconds 8 \
	> "$WORK/cap.out" 2>&1 &
CAP=$!
wait_for 5 eval "ctl capture status | grep -q '(running)'"
ip netns exec "$H1" python3 "$VH" echo eth0 100.99 $HQ 02:00:00:00:01:01 10.78.1.2 10.0.2.2
ip netns exec "$H1" python3 "$VH" echo eth0 s100 $HQ 02:00:00:00:01:01 10.78.1.2 10.0.2.2
wait "$CAP"
sed 's/^/# /' "$WORK/cap.out"
n=$(tcpdump -r "$WORK/unknown.pcapng" -n 2>/dev/null | wc -l)
check "a capture of unknown_vlan drops on p0 has 100.99's and s100's frames ($n)" test "$n" -eq 2
wait "$SERVE" "$ISO1" "$ISO2"
r=$(cat "$WORK/iso1.json")
check "VLAN 20 gets no ARP answer for p0.100.20's 10.78.1.1 ($r)" test "$(field "$r" mac)" = None
r=$(cat "$WORK/iso2.json")
check "100.20 gets no ARP answer for p0.20's 10.77.20.1 ($r)" test "$(field "$r" mac)" = None
check "the 100.20 host saw ARP and 3 echo requests, all tagged 100.20" python3 -c '
import json, sys
s = json.load(open(sys.argv[1]))["10.78.1.3"]
sys.exit(not (s["arp"] >= 1 and s["echo"] == 3 and set(s["vids"]) == {"100.20"}))' "$WORK/served.json"

# Run time: a QinQ interface added, answering in its pair, then deleted.
check "dprctl vlan add p0.400.40 dev p0 outer 400 id 40" ctl vlan add p0.400.40 dev p0 outer 400 id 40
check "addr add 10.78.4.1/24 on it" ctl addr add 10.78.4.1/24 dev p0.400.40
out=$(ctl vlan add x dev p0 outer 400 id 40 2>&1)
check "the pair 400.40 twice is refused ($out)" has "VLAN 400.40 on port p0 is p0.400.40's already" "$out"
r=$(probe 400.40 $HQ 10.78.4.2 10.78.4.1)
check "the added p0.400.40 answers ARP and ping in 400.40 ($r)" \
	test "$(field "$r" arp_vid)/$(field "$r" echo_vid)" = 400.40/400.40
# The workers' counters hold what p0.400.40 received: they never go back
# (a Prometheus counter that does reads as a reset).
wrx() { ctl --json stats | python3 -c 'import json, sys; print(sum(w["rx"] for w in json.load(sys.stdin)["workers"]))'; }
# One after it, so that the deleted one leaves a free slot before it.
check "dprctl vlan add p0.500.50 dev p0 outer 500 id 50" ctl vlan add p0.500.50 dev p0 outer 500 id 50
before=$(wrx)
check "vlan del p0.400.40" ctl vlan del p0.400.40
after=$(wrx)
ctl --json stats > "$WORK/stats-del.json"
check "stats label p0.500.50 as its own after p0.400.40's delete (VLAN 500.50 on p0)" python3 -c '
import json, sys
p = next(x for x in json.load(open(sys.argv[1]))["ports"] if x["name"] == "p0.500.50")
print("#", p.get("parent"), p.get("outer_id"), p.get("vlan_id"), p.get("vrf"))
sys.exit(not (p.get("parent") == "p0" and p.get("outer_id") == 500 and p.get("vlan_id") == 50))' "$WORK/stats-del.json"
check "the workers' rx does not go back over vlan del ($before, then $after)" test "$after" -ge "$before"
r=$(probe 400.40 $HQ 10.78.4.2 10.78.4.1)
check "deleted: 400.40 is answered no more ($r)" test "$(field "$r" mac)" = None
stop_dpr

check "p0.100.20 received on its own counters" test "$(counter 'port("p0.100.20")["rx"]')" -ge 6
n=$(counter 'port("p0.100.20")["forwarded"]')
check "p0.100.20 forwarded the 3 echo replies ($n)" test "$n" -eq 3
# 100.99, the S-tag alone, the probes of 400.40 after its delete (ARP
# each), and what 100.20 and VLAN 20 sent each other's addresses: none.
check "100.99, s100 and the deleted 400.40 are unknown_vlan on p0" \
	test "$(counter 'port("p0")["drops"]["unknown_vlan"]')" -ge 3
check "and nothing was unsupported_l3" test "$(counter 'S["total"]["drops"]["unsupported_l3"]')" -eq 0
check_accounting

# The same with the tags in software: af_packet puts the outer tag back in
# the data as 0x8100, and dpr tags on TX.
no_vlan_offloads "$WORK/sw-cfg"
start_dpr "$WORK/dpr.json" --lcores 0@0,1@1 -- --idle-sleep 100 --drivers-cfg "$WORK/sw-cfg"
r=$(probe 100.20 $HQ 10.78.1.2 10.78.1.1)
check "software: ARP and ping in 100.20 answered, tagged 100.20 ($r)" \
	test "$(field "$r" arp_vid)/$(field "$r" echo_vid)" = 100.20/100.20
r=$(probe 20 $HQ 10.77.20.2 10.77.20.1)
check "software: VLAN 20 answered, single-tagged ($r)" test "$(field "$r" echo_vid)" = 20
stop_dpr
check_accounting
finish

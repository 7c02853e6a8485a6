#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# VRFs and VLAN interfaces added and removed at run time. h1 and h2 ping
# each other untagged through p0 and p1 (the default VRF) the whole time,
# 100 a second, while VRF "red" comes with p0.100 and p1.100 in it (the
# same subnets as the default VRF's), answers ARP and ping in VLAN 100,
# forwards between its VLANs, and goes again; not one untagged ping may be
# lost, the tables must check, and what is refused must say why.
source "$(dirname "$0")/lib.sh"
need_root
has() { grep -q -- "$1" <<<"$2"; } # has PATTERN TEXT

vlan_rig dv
RH1=02:00:00:aa:01:02 RH2=02:00:00:aa:02:02

cat > "$WORK/dpr.json" <<JSON
{
  "ports": [
    {"name": "p0", "device": "net_af_packet_${TAG}a,iface=$V0,qpairs=2",
     "mac": "02:00:00:00:01:01", "addresses": ["10.0.1.1/24"]},
    {"name": "p1", "device": "net_af_packet_${TAG}b,iface=$V1,qpairs=2",
     "mac": "02:00:00:00:02:01", "addresses": ["10.0.2.1/24"]}
  ],
  "control": {"socket": "$SOCK"},
  "fib": {"ipv4_max_routes": 1024, "ipv4_tbl8_groups": 64}
}
JSON
start_dpr "$WORK/dpr.json" --lcores 0@0,1@1 -- --idle-sleep 100
probe() { ip netns exec "$1" python3 "$VH" probe eth0 "$2" "$3" "$4" "$5"; }
field() { python3 -c 'import json, sys; print(json.loads(sys.argv[1])[sys.argv[2]])' "$1" "$2"; }

# The untagged stream, counted: 800 pings, 10 ms apart.
check "h1 reaches h2 before anything changes" ip netns exec "$H1" ping -c 1 -W 2 -q 10.0.2.2
ip netns exec "$H1" ping -c 800 -i 0.01 -W 2 -q 10.0.2.2 > "$WORK/ping.txt" 2>&1 &
PING=$!

check "vrf add red table 100 poptrie" ctl vrf add red table 100 poptrie
check "vlan add p0.100 dev p0 id 100 vrf red" ctl vlan add p0.100 dev p0 id 100 vrf red
check "vlan add p1.100 dev p1 id 100 vrf red" ctl vlan add p1.100 dev p1 id 100 vrf red
check "addr add 10.0.1.1/24 dev p0.100 (the default VRF's subnet too)" \
	ctl addr add 10.0.1.1/24 dev p0.100
check "addr add 10.0.2.1/24 dev p1.100" ctl addr add 10.0.2.1/24 dev p1.100
check "port list shows p1.100 in red" eval "ctl port list | grep -Eq '^p1.100 .* red +.*10.0.2.1/24'"
check "vrf list: red on p0.100 and p1.100" \
	eval "ctl vrf list | grep -Eq '^red +100 .* p0.100 p1.100'"
# A VRF added at run time gets its kernel device as a configured one does.
kdev=$(ctl call stats.get | python3 -c 'import json, sys
print(json.dumps(next(v for v in json.load(sys.stdin)["vrfs"] if v["name"] == "red")["kernel_device"]))')
if kernel_vrf "$R"; then KVRF=1; else KVRF=0; fi
if [ "$KVRF" = 1 ]; then
	check "kernel VRF device red made by vrf add, with p0.100's TAP in it" \
		eval "ip -n $R link show master red | grep -q dpr-p0.100:"
else
	check "stats.get: red, added at run time, says why it has no kernel device ($kdev)" \
		grep -q 'no VRF devices' <<<"$kdev"
fi
r=$(probe "$H1" 100 $RH1 10.0.1.2 10.0.1.1)
check "p0.100 answers ARP and ping in VLAN 100 ($r)" \
	test "$(field "$r" mac)/$(field "$r" arp_vid)/$(field "$r" echo_vid)" = 02:00:00:00:01:01/100/100
ip netns exec "$H2" python3 "$VH" serve eth0 3 "$WORK/h2red.json" 100,$RH2,10.0.2.2 &
S2=$!
listening "$WORK/h2red.json"
for i in 1 2 3; do
	ip netns exec "$H1" python3 "$VH" echo eth0 100 $RH1 02:00:00:00:01:01 10.0.1.2 10.0.2.2
	sleep 0.3
done
wait "$S2"
check "red forwards p0.100 to p1.100: 3 echo requests reached the red host, tagged 100" python3 -c '
import json, sys
s = json.load(open(sys.argv[1]))["10.0.2.2"]
sys.exit(not (s["arp"] >= 1 and s["echo"] == 3 and set(s["vids"]) == {100}))' "$WORK/h2red.json"

# What is refused, and why.
out=$(ctl vrf del red 2>&1)
check "vrf del red is refused while p0.100 and p1.100 are in it ($out)" \
	has 'has interfaces in it: p0.100, p1.100' "$out"
out=$(ctl vrf del default 2>&1)
check "the default VRF cannot be deleted ($out)" has 'cannot be deleted' "$out"
out=$(ctl vlan add p0.x dev p0 id 100 2>&1)
check "VLAN 100 on p0 twice is refused ($out)" has "VLAN 100 on port p0 is p0.100's already" "$out"
out=$(ctl vlan add q9.5 dev q9 id 5 2>&1)
check "a VLAN on an unknown port is refused ($out)" has 'no port "q9"' "$out"
out=$(ctl vlan add p0.5000 dev p0 id 5000 notap 2>&1)
check "VLAN id 5000 is refused ($out)" has 'expected a VLAN id from 1 to 4094' "$out"
out=$(ctl vrf add blue table 100 2>&1)
check "table 100 twice is refused ($out)" has "table 100 is VRF red's already" "$out"
check "route add 10.66.0.0/16 via 10.0.2.2 vrf red" ctl route add 10.66.0.0/16 via 10.0.2.2 vrf red
out=$(ctl vlan del p1.100 2>&1)
check "vlan del p1.100 is refused while a route goes through it ($out)" \
	has 'routes go through gateway 10.0.2.2' "$out"

# The saved file has them, and dpr takes it.
check "config save" ctl config save "$WORK/saved.json"
check "the saved file has red, p0.100 and p1.100 in it, and red's route" python3 -c '
import json, sys
c = json.load(open(sys.argv[1]))
v = {x["name"]: x for x in c["vlans"]}
sys.exit(not (c["vrfs"][0]["name"] == "red" and c["vrfs"][0]["table"] == 100 and
              v["p0.100"]["vrf"] == "red" and v["p0.100"]["id"] == 100 and
              v["p1.100"]["port"] == "p1" and v["p1.100"]["addresses"] == ["10.0.2.1/24"] and
              any(r["prefix"] == "10.66.0.0/16" and r.get("vrf") == "red" for r in c["routes"])))' \
	"$WORK/saved.json"
out=$("$DPR" -- -c "$WORK/saved.json" --check 2>&1)
check "dpr --check accepts the saved file ($out)" test $? -eq 0
check "rib check with red" ctl rib check

# And away again.
check "route del 10.66.0.0/16 vrf red" ctl route del 10.66.0.0/16 vrf red
check "vlan del p0.100" ctl vlan del p0.100
check "vlan del p1.100" ctl vlan del p1.100
check "vrf del red" ctl vrf del red
[ "$KVRF" = 0 ] || check "vrf del took kernel VRF device red away" \
	eval "! ip -n $R link show red 2>/dev/null"
check "vrf list: default only" eval "[ \"\$(ctl vrf list | tail -n +2 | awk '{print \$1}')\" = default ]"
check "port list: p0 and p1 only" eval "[ \"\$(ctl port list | tail -n +2 | awk '{print \$1}' | tr '\n' ' ')\" = 'p0 p1 ' ]"
check "rib check after" ctl rib check
r=$(probe "$H1" 100 $RH1 10.0.1.2 10.0.1.1)
check "nothing answers in VLAN 100 any more ($r)" test "$(field "$r" mac)" = None
# A slot freed is taken again, in the default VRF this time.
check "vlan add p0.200 dev p0 id 200" ctl vlan add p0.200 dev p0 id 200 notap
check "addr add 10.0.3.1/24 dev p0.200" ctl addr add 10.0.3.1/24 dev p0.200
r=$(probe "$H1" 200 $RH1 10.0.3.2 10.0.3.1)
check "p0.200 answers in VLAN 200 ($r)" \
	test "$(field "$r" arp_vid)/$(field "$r" echo_vid)" = 200/200
check "vlan del p0.200" ctl vlan del p0.200

wait "$PING"
check "the untagged stream lost nothing: $(grep transmitted "$WORK/ping.txt")" \
	grep -q '800 packets transmitted, 800 received' "$WORK/ping.txt"
check "rib check at the end" ctl rib check
stop_dpr
check "p0 and p1 forwarded the stream (800 each way at least)" \
	test "$(counter 'port("p0")["forwarded"] + port("p1")["forwarded"]')" -ge 1600
check_accounting
finish

#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Routing daemons per VRF: routes reach each VRF by their kernel table id.
# dpr runs in a namespace of its own with p0 in the default VRF and p1, p2
# in VRF red (table 100); p1 has p0's subnet (10.0.1.0/24), as VRFs allow.
#   FPM (a test client playing zebra, fpm_client.py tables): a route of
#   table 254 lands in the default VRF, one of table 100 in red (the same
#   prefix in both, each on its VRF's port), a table of no VRF is ignored and
#   counted, a table-100 route through p0's TAP (the default VRF's) is
#   refused as interface_other_vrf; route.get and route.list per VRF.
#   The kernel mirror: `ip route add ... table 100` in dpr's namespace
#   lands in red, the main table's in the default VRF, table 200's nowhere;
#   `ip route del ... table 100` removes it from red.
#   Kernel VRF devices: where the kernel has them, dpr makes "red" (table
#   100) and enslaves dpr-p1 and dpr-p2, and removes it at exit; where it
#   has none (these machines), dpr says so once and the rest works.
source "$(dirname "$0")/lib.sh"
need_root
has() { grep -q -- "$1" <<<"$2"; } # has PATTERN TEXT

R=r-$TAG DPR_NETNS=r-$TAG
FPM_PORT=2620 # the router namespace's own
netns "$R"

cat > "$WORK/dpr.json" <<JSON
{
  "ports": [
    {"name": "p0", "device": "net_null_${TAG}a", "addresses": ["10.0.1.1/24"]},
    {"name": "p1", "device": "net_null_${TAG}b", "vrf": "red", "addresses": ["10.0.1.1/24"]},
    {"name": "p2", "device": "net_null_${TAG}c", "vrf": "red", "addresses": ["10.0.2.1/24"]}
  ],
  "vrfs": [{"name": "red", "table": 100,
            "fib": {"ipv4_algorithm": "poptrie", "ipv6_algorithm": "poptrie"}}],
  "control": {"socket": "$SOCK"},
  "fib": {"ipv4_max_routes": 1024, "ipv4_tbl8_groups": 64},
  "fpm": {"listen": "127.0.0.1:$FPM_PORT", "grace_s": 60},
  "kernel_routes": {"table": 254}
}
JSON

# Does this kernel have VRF devices? (CONFIG_NET_VRF)
if kernel_vrf "$R"; then KVRF=1; else KVRF=0; fi

start_dpr "$WORK/dpr.json" --lcores 0@0,1@1 -- --idle-sleep 100

# vrf_of ROUTE-GET-ARGS...: "PREFIX VIA DEV SOURCE" of route.get, "none" without a route
route_in() {
	ctl --json route get "$@" 2>/dev/null | python3 -c 'import json, sys
try:
    r = json.load(sys.stdin)
except ValueError:
    print("none"); sys.exit()
print(r.get("prefix"), r.get("via", "-"), r.get("port", "-"), r.get("source", "?"))'
}
# st SECTION FIELD/...: stats.get's SECTION.FIELD
st() {
	ctl call stats.get | python3 -c 'import json, sys
v = json.load(sys.stdin)[sys.argv[1]]
for k in sys.argv[2].split("/"):
    v = v[k]
print(str(v).lower() if isinstance(v, bool) else v)' "$1" "$2"
}
kdev() { # kdev: stats.get's vrfs[red].kernel_device
	ctl call stats.get | python3 -c 'import json, sys
print(json.dumps(next(v for v in json.load(sys.stdin)["vrfs"] if v["name"] == "red")["kernel_device"]))'
}

# --- kernel VRF devices ------------------------------------------------------
if [ "$KVRF" = 1 ]; then
	check "kernel VRF device red, table 100" \
		eval "ip -n $R -d link show red | grep -q 'vrf table 100'"
	check "dpr-p1 and dpr-p2 are in it, dpr-p0 is not" \
		eval "ip -n $R link show master red | grep -q dpr-p1: &&
		      ip -n $R link show master red | grep -q dpr-p2: &&
		      ! ip -n $R link show master red | grep -q dpr-p0:"
	check "stats.get: red's kernel device ($(kdev))" has '"name": "red"' "$(kdev)"
else
	n=$(grep -c 'this kernel has no VRF devices' "$WORK/dpr.log")
	check "dpr says once that the kernel has no VRF devices (said $n times)" test "$n" -eq 1
	check "stats.get: red has no kernel device, and why ($(kdev))" has 'no VRF devices' "$(kdev)"
fi

# --- FPM ---------------------------------------------------------------------
P0=$(ip netns exec "$R" cat /sys/class/net/dpr-p0/ifindex)
out=$(ip netns exec "$R" python3 "$SMOKE_DIR/fpm_client.py" "$FPM_PORT" tables \
	10.77.0.0/16,10.0.1.2,254 10.77.0.0/16,10.0.1.3,100 10.78.0.0/16,10.0.2.2,100 \
	10.79.0.0/16,10.0.1.2,200 "10.80.0.0/16,10.0.1.2,100,$P0" 2>&1)
check "the FPM client sent its routes ($out)" has 'sent 5 routes' "$out"
fpm_done() { [ "$(st fpm routes_added)" -ge 3 ] && [ "$(st fpm refused/interface_other_vrf)" -ge 1 ]; }
check "dpr read them" wait_for 10 fpm_done
r=$(route_in 10.77.1.1)
check "table 254: default VRF, via 10.0.1.2 on p0 ($r)" test "$r" = "10.77.0.0/16 10.0.1.2 p0 fpm"
r=$(route_in 10.77.1.1 vrf red)
check "table 100, the same prefix: red, via 10.0.1.3 on p1 ($r)" test "$r" = "10.77.0.0/16 10.0.1.3 p1 fpm"
r=$(route_in 10.78.1.1 vrf red)
check "table 100: red, via 10.0.2.2 on p2 ($r)" test "$r" = "10.78.0.0/16 10.0.2.2 p2 fpm"
r=$(route_in 10.78.1.1)
check "...and not in the default VRF ($r)" test "$r" = none
r="$(route_in 10.79.1.1) / $(route_in 10.79.1.1 vrf red)"
check "table 200 (no VRF's): in neither ($r)" test "$r" = "none / none"
check "...counted as ignored (table)" test "$(st fpm ignored/table)" -ge 1
r=$(route_in 10.80.1.1 vrf red)
check "table 100 through p0's TAP (default VRF): refused ($r)" test "$r" = none
check "...counted (interface_other_vrf)" test "$(st fpm refused/interface_other_vrf)" -eq 1
out=$(ctl route list vrf red source fpm | awk '{print $1}' | sort | tr '\n' ' ')
check "route list vrf red source fpm: 10.77.0.0/16 10.78.0.0/16 ($out)" \
	test "$out" = "10.77.0.0/16 10.78.0.0/16 "
out=$(ctl route list source fpm | awk '{print $1}' | sort | tr '\n' ' ')
check "route list source fpm (default VRF): 10.77.0.0/16 ($out)" test "$out" = "10.77.0.0/16 "
check "stats.get fpm.vrfs: red holds 2, default 1" \
	test "$(st fpm vrfs/red/routes)/$(st fpm vrfs/default/routes)/$(st fpm vrfs/red/table)" = 2/1/100

# --- the kernel mirror -------------------------------------------------------
rip() { ip -n "$R" route "$@"; }
not_dumping() { [ "$(st kernel_routes dumping)" = false ]; }
check "the kernel mirror's first dump is done" wait_for 10 not_dumping
rip add 10.90.0.0/16 via 10.0.2.2 dev dpr-p2 table 100
rip add 10.91.0.0/16 via 10.0.1.2 dev dpr-p0
rip add 10.92.0.0/16 via 10.0.1.2 dev dpr-p0 table 200
rip add 10.93.0.0/16 via 10.0.1.2 dev dpr-p0 table 100
check "ip route add ... table 100: in red, via 10.0.2.2 on p2" \
	wait_for 5 eval '[ "$(route_in 10.90.1.1 vrf red)" = "10.90.0.0/16 10.0.2.2 p2 kernel" ]'
check "...not in the default VRF" test "$(route_in 10.90.1.1)" = none
check "the main table's route: in the default VRF, via 10.0.1.2 on p0" \
	wait_for 5 eval '[ "$(route_in 10.91.1.1)" = "10.91.0.0/16 10.0.1.2 p0 kernel" ]'
check "...not in red" test "$(route_in 10.91.1.1 vrf red)" = none
r="$(route_in 10.92.1.1) / $(route_in 10.92.1.1 vrf red)"
check "table 200's: in neither ($r)" test "$r" = "none / none"
check "...counted as ignored (table)" test "$(st kernel_routes ignored/table)" -ge 1
check "table 100 through p0's TAP: refused (interface_other_vrf)" \
	wait_for 5 eval '[ "$(st kernel_routes refused/interface_other_vrf)" -ge 1 ]'
check "...and not in red" test "$(route_in 10.93.1.1 vrf red)" = none
check "stats.get kernel_routes.vrfs: red holds 1" test "$(st kernel_routes vrfs/red/routes)" = 1
rip del 10.90.0.0/16 table 100
check "ip route del ... table 100: gone from red" \
	wait_for 5 eval '[ "$(route_in 10.90.1.1 vrf red)" = none ]'
check "the default VRF's kernel route stays" test "$(route_in 10.91.1.1)" = "10.91.0.0/16 10.0.1.2 p0 kernel"

# A VRF deleted and added again (vrf.del, vrf.add): what its table has in
# the kernel then is what it gets, whatever changed while it was gone.
in_blue() { # in_blue ADDR: "PREFIX SOURCE" of blue's route, "none" without one
	local r
	r=$(route_in "$1" vrf blue)
	if [ "$r" = none ]; then echo none; else awk '{print $1, $NF}' <<<"$r"; fi
}
check "vrf add blue table 300" ctl vrf add blue table 300
rip add blackhole 10.95.0.0/16 table 300
rip add blackhole 10.96.0.0/16 table 300
check "ip route add blackhole ... table 300: in blue" \
	wait_for 5 eval '[ "$(in_blue 10.96.1.1)" = "10.96.0.0/16 kernel" ]'
check "vrf del blue" ctl vrf del blue
rip del blackhole 10.96.0.0/16 table 300
check "vrf add blue table 300 again" ctl vrf add blue table 300
check "the route still in table 300 is in blue again" \
	wait_for 5 eval '[ "$(in_blue 10.95.1.1)" = "10.95.0.0/16 kernel" ]'
check "the one deleted while blue was gone is not ($(in_blue 10.96.1.1))" \
	wait_for 5 eval '[ "$(in_blue 10.96.1.1)" = none ]'
check "...counted: a resync for the VRF" test "$(st kernel_routes resyncs/vrf)" -ge 2
rip add unreachable 10.96.0.0/16 table 300 metric 100
check "a route added now is blue's" wait_for 5 eval '[ "$(in_blue 10.96.1.1)" = "10.96.0.0/16 kernel" ]'
r=$(ctl --json route get 10.96.1.1 vrf blue | tr -d ' \n')
check "...the unreachable one, not the blackhole the kernel deleted ($r)" has unreachable "$r"
rip flush table 300
check "vrf del blue, at last" ctl vrf del blue

stop_dpr
if [ "$KVRF" = 1 ]; then
	check "the kernel VRF device is gone with dpr" eval "! ip -n $R link show red >/dev/null 2>&1"
fi
finish

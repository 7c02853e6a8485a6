#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The kernel mirror with the full RouteViews IPv4 table (python3-pyasn,
# ~600k prefixes) in kernel table 100 of dpr's namespace:
#   written while dpr runs (`ip -batch`), dpr ends up holding every route;
#   full resyncs (a TAP down and up) rebuild the same; deleting a third
#   leaves dpr with the rest.
# Times and dpr's memory are printed (measured, never asserted).
source "$(dirname "$0")/lib.sh"
need_root

R=r-$TAG DPR_NETNS=r-$TAG G1=g1-$TAG V0=dv${TAG}a V1=dv${TAG}b H1=h1-$TAG
netns "$R"; netns "$H1"; netns "$G1"
router_veth "$R" "$H1" "$V0"; router_veth "$R" "$G1" "$V1"
# Links up: dpr keeps a port's TAP down while its link is.
host_addr "$H1" eth0 02:00:00:00:01:02 10.0.1.2/24 10.0.1.1
host_addr "$G1" eth0 02:00:00:00:02:02 10.0.2.2/24 10.0.2.1
cat > "$WORK/dpr.json" <<JSON
{
  "ports": [
    {"name": "p0", "device": "net_af_packet_${TAG}a,iface=$V0", "addresses": ["10.0.1.1/24"]},
    {"name": "p1", "device": "net_af_packet_${TAG}b,iface=$V1", "addresses": ["10.0.2.1/24"]}
  ],
  "control": {"socket": "$SOCK"},
  "fib": {"ipv4_max_routes": 1048576, "ipv4_tbl8_groups": 16384},
  "kernel_routes": {"table": 100}
}
JSON
"$TOP/scripts/pyasn-routes.py" 10.0.2.2 10.0.2.3 10.0.2.4 10.0.2.5 2>/dev/null |
	awk '$1 !~ /^10\./ {print "route add " $1 " via " $3 " dev dpr-p1 table 100"}' > "$WORK/add.batch"
n=$(wc -l < "$WORK/add.batch")
check "the pyasn table has over 500k IPv4 prefixes ($n)" test "$n" -gt 500000
# A third of them, for the deletions.
awk 'NR % 3 == 0 {print "route del " $3 " table 100"}' "$WORK/add.batch" > "$WORK/del.batch"

kr() { ctl call stats.get | python3 -c 'import json, sys; print(str(json.load(sys.stdin)["kernel_routes"][sys.argv[1]]).lower())' "$1"; }
# holds N: dpr holds N kernel routes and no resync is under way
holds() { [ "$(kr dumping)" = false ] && [ "$(kr routes)" -eq "$1" ]; }
now() { date +%s.%N; }
# within SECONDS COMMAND...: until COMMAND succeeds (a limit, not a measurement)
within() { local end=$((SECONDS + $1)); shift; while [ "$SECONDS" -lt "$end" ]; do "$@" && return 0; sleep 0.5; done; return 1; }
secs() { python3 -c "print('%.1f' % ($2 - $1))"; }
rss() { awk '/VmRSS/ {print int($2 / 1024) " MiB"}' "/proc/$DPR_PID/status"; }

# meson sets MALLOC_PERTURB_ for every test: glibc then fills each block
# it hands out and frees, which tripled ip's time over 600k routes (11.5 s
# to 37.8 s for the writes here). dpr keeps it; iproute2, which is not
# under test, goes without.
kip() { MALLOC_PERTURB_=0 ip "$@"; }
start_dpr "$WORK/dpr.json" --lcores 0@0,1@1 -- --idle-sleep 100
within 10 holds 0
rss0=$(rss)
t0=$(now)
# In batches of 100k lines: one `ip -batch` of all 600k took 67 s here
# with dpr running (ip's own time, in page faults of its heap), six of
# 100k lines 19 s in all.
split -l 100000 "$WORK/add.batch" "$WORK/add.part."
for part in "$WORK"/add.part.*; do
	kip -n "$R" -force -batch "$part" 2>/dev/null
done
t1=$(now)
n=$(kip -n "$R" route show table 100 | wc -l)
check "dpr holds all $n routes written while it runs" within 300 holds "$n"
t2=$(now)
echo "# live: ip -batch wrote $n routes in $(secs "$t0" "$t1") s; dpr held them all $(secs "$t0" "$t2") s after it started; resyncs $(kr resyncs | tr -d " '"); dpr RSS $rss0 -> $(rss)"

# A full resync over the whole table: dpr-p0 (no route uses it) set down
# (the kernel changes routes silently on link changes: dpr dumps again),
# then up (another).
d0=$(kr dumps_done)
t0=$(now)
ip -n "$R" link set dpr-p0 down
resynced() { [ "$(kr dumps_done)" -gt "$d0" ] && holds "$n"; }
check "a full resync leaves dpr holding all $n routes" within 300 resynced
t2=$(now)
echo "# resync: the dump of the full table done $(secs "$t0" "$t2") s after the link went down; dpr RSS $(rss)"
ip -n "$R" link set dpr-p0 up
d0=$(kr dumps_done)
check "and the TAP back up, still all $n" within 300 holds "$n"

t0=$(now)
kip -n "$R" -force -batch "$WORK/del.batch" 2>/dev/null
left=$(kip -n "$R" route show table 100 | wc -l)
check "a third deleted: dpr holds the other $left" within 300 holds "$left"
t2=$(now)
echo "# deletes: dpr held the other $left $(secs "$t0" "$t2") s after ip -batch started"
stop_dpr
finish

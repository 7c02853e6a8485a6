#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The IPv6 RouteViews table from python3-pyasn (about 28k prefixes) loads
# through `dprctl route load`, and route.get agrees with a reference
# longest-prefix match on 25k addresses inside, around and outside its
# prefixes; again after deleting a random third of it. Then the same for a
# synthetic table grown from it (scripts/pyasn6-routes.py --synthetic;
# 64k prefixes, 512k with FULL6_SYNTHETIC=524288). Last, one file mixing
# IPv4 and IPv6 routes loads in one `route load`, route.get agrees for both
# families, and route.list pages through both, each route once. Load times and FIB memory are printed
# (measured, never asserted), except Poptrie's memory, which has a bound.
# FIB_ALGO=poptrie runs it all on that algorithm (fib.ipv6_algorithm; the
# suite runs both); DIR-24-8's tbl8 and deep checks are then its memory's.
source "$(dirname "$0")/lib.sh"
need_root
ALGO=${FIB_ALGO:-dir-24-8}

# The router's own networks are ULA (fd00::/8, 10/8), which the pyasn
# tables never route: the reference check leaves them out.
GWS6="fd00:2::2 fd00:2::3 fd00:2::4 fd00:2::5"
GWS4="10.0.2.2 10.0.2.3 10.0.2.4 10.0.2.5"
# A synthetic table of this size too: 65536 in the suite (two builds run it;
# the 512k one takes over a minute more each), FULL6_SYNTHETIC=524288 for the
# full-size check, which prints the 512k load time (docs/benchmarks.md, IPv6 FIB).
SYN=${FULL6_SYNTHETIC:-65536}
# 512k synthetic prefixes take about 180k tbl8 groups (dpr-fib6-bench);
# 256k leave room for the groups of deleted routes waiting for their grace
# period. 1 KiB each: with tbl24 the IPv6 FIB takes 322 MiB, the IPv4 one
# 69 MiB; dpr runs in start_dpr's default 700 MB of EAL memory (and in 500).
TBL8=262144
cat > "$WORK/dpr.json" <<JSON
{
  "ports": [
    {"name": "p0", "device": "net_null_${TAG}a,no-rx=1",
     "addresses": ["10.0.1.1/24", "fd00:1::1/64"]},
    {"name": "p1", "device": "net_null_${TAG}b,no-rx=1",
     "addresses": ["10.0.2.1/24", "fd00:2::1/64"]}
  ],
  "neighbors": [
    {"address": "fd00:2::2", "mac": "02:00:00:00:02:02"},
    {"address": "fd00:2::3", "mac": "02:00:00:00:02:03"},
    {"address": "fd00:2::4", "mac": "02:00:00:00:02:04"},
    {"address": "fd00:2::5", "mac": "02:00:00:00:02:05"},
    {"address": "10.0.2.2", "mac": "02:00:00:00:02:02"},
    {"address": "10.0.2.3", "mac": "02:00:00:00:02:03"},
    {"address": "10.0.2.4", "mac": "02:00:00:00:02:04"},
    {"address": "10.0.2.5", "mac": "02:00:00:00:02:05"}
  ],
  "control": {"socket": "$SOCK"},
  "fib": {"ipv4_max_routes": 65536, "ipv4_tbl8_groups": 4096,
          "ipv6_max_routes": 1048576, "ipv6_tbl8_groups": $TBL8,
          "ipv4_algorithm": "$ALGO", "ipv6_algorithm": "$ALGO"}
}
JSON

# dprctl's "PREFIX via GATEWAY" lines from the reference "PREFIX<TAB>GATEWAY".
to_dprctl() { awk -F'\t' '{print $1 " via " $2}' "$1" > "$2"; }
# fib NAME: one figure from `dprctl --json stats`
fib() { ctl --json stats | python3 -c 'import json,sys; print(json.load(sys.stdin)["fib"][sys.argv[1]])' "$1"; }
# dir CHECK...: a check of DIR-24-8's groups, on that algorithm only.
dir() { [ "$ALGO" = dir-24-8 ] && check "$@"; return 0; }
# mem_at_most MIB WHAT: Poptrie's memory bound, on that algorithm only.
mem_at_most() {
	local mib=$(( $(fib ipv6_memory_bytes) >> 20 ))
	[ "$ALGO" = poptrie ] && check "Poptrie holds $2 in at most $1 MiB ($mib MiB)" test "$mib" -lt "$1"
	return 0
}
# split_third IN.tsv SEED DEL.txt KEPT.tsv GONE.tsv: a random third as "del PREFIX" lines
split_third() {
	python3 - "$@" <<'PY'
import random, sys
lines = open(sys.argv[1]).read().splitlines()
rnd = random.Random(int(sys.argv[2]))
gone = set(rnd.sample(range(len(lines)), len(lines) // 3))
with open(sys.argv[3], "w") as d, open(sys.argv[4], "w") as k, open(sys.argv[5], "w") as g:
    for i, l in enumerate(lines):
        if i in gone:
            d.write("del %s\n" % l.split()[0])
            g.write(l + "\n")
        else:
            k.write(l + "\n")
PY
}

# The synthetic table takes a while to grow: in the background meanwhile.
# shellcheck disable=SC2086
"$TOP/scripts/pyasn6-routes.py" --format prefixes --synthetic $SYN $GWS6 \
	> "$WORK/syn.tsv" 2>/dev/null &
syn_pid=$!
# shellcheck disable=SC2086
"$TOP/scripts/pyasn6-routes.py" --format prefixes $GWS6 > "$WORK/real.tsv" 2>/dev/null ||
	die "pyasn6-routes.py failed"
to_dprctl "$WORK/real.tsv" "$WORK/real.txt"
n=$(wc -l < "$WORK/real.txt")
check "the pyasn table has over 25k IPv6 prefixes ($n)" test "$n" -gt 25000

start_dpr "$WORK/dpr.json" -l 0,1 -- --idle-sleep 100
grep -m1 "IPv6 FIB:" "$WORK/dpr.log" | sed 's/^/# /'
base4=$(fib ipv4_routes) base6=$(fib ipv6_routes) groups=$(fib ipv6_tbl8_used)
echo "# the router's own routes: $base4 IPv4, $base6 IPv6 ($groups tbl8 groups)"
# Deep: more groups in use than ipv6_deep_groups (the L2 cache's size in
# groups), workers then read each chain's first two levels a step ahead.
deep_groups=$(fib ipv6_deep_groups)
check "stats.get names the algorithm ($ALGO)" test "$(fib ipv6_algorithm)" = "$ALGO"
dir "the router's own $groups groups leave the FIB shallow (deep from $deep_groups)" \
	test "$(fib ipv6_deep)" = False

# --- the real table -------------------------------------------------------
ctl --json route load "$WORK/real.txt" > "$WORK/load.json"
check "route load of the IPv6 table exits 0" test $? -eq 0
secs=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["seconds"])' "$WORK/load.json")
echo "# loaded $n IPv6 routes in $secs s"
check "every route is in the FIB ($(fib ipv6_routes) == $n + $base6)" \
	test "$(fib ipv6_routes)" -eq $((n + base6))
echo "# IPv6 FIB memory: $(( $(fib ipv6_memory_bytes) >> 20 )) MiB ($(fib ipv6_tbl8_used) of $TBL8 tbl8 groups in use)"
mem_at_most 8 "the IPv6 table"
dir "the table's $(fib ipv6_tbl8_used) groups make it deep (over $deep_groups)" \
	test "$(fib ipv6_deep)" = True
check "route.get matches the reference LPM on 25k addresses" \
	python3 "$SMOKE_DIR/rpc_lpm_check.py" "$SOCK" "$WORK/real.tsv" 25000 1

split_third "$WORK/real.tsv" 7 "$WORK/del.txt" "$WORK/kept.tsv" "$WORK/gone.tsv"
check "route load deletes a third" ctl route load "$WORK/del.txt"
check "two thirds are left" test "$(fib ipv6_routes)" -eq $((base6 + $(wc -l < "$WORK/kept.tsv")))
check "route.get matches the reference after the deletions" \
	python3 "$SMOKE_DIR/rpc_lpm_check.py" "$SOCK" "$WORK/kept.tsv" 25000 2
awk -F'\t' '{print "del " $1}' "$WORK/kept.tsv" > "$WORK/del.txt"
check "route load deletes the rest" ctl route load "$WORK/del.txt"
check "the FIB is back to the router's $base6 IPv6 routes" test "$(fib ipv6_routes)" -eq "$base6"
dir "and to the $groups tbl8 groups they use (no group leaked)" \
	test "$(fib ipv6_tbl8_used)" -eq "$groups"
dir "and shallow again" test "$(fib ipv6_deep)" = False

# --- a synthetic table (512k prefixes with FULL6_SYNTHETIC=524288) -------------
wait $syn_pid
to_dprctl "$WORK/syn.tsv" "$WORK/syn.txt"
n=$(wc -l < "$WORK/syn.txt")
check "the synthetic table has $SYN prefixes ($n)" test "$n" -eq $SYN
ctl --json route load "$WORK/syn.txt" > "$WORK/load.json"
check "route load of $SYN IPv6 routes exits 0" test $? -eq 0
secs=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["seconds"])' "$WORK/load.json")
echo "# loaded $n IPv6 routes in $secs s (goal for 524288: under 2 s)"
check "every route is in the FIB ($(fib ipv6_routes) == $n + $base6)" \
	test "$(fib ipv6_routes)" -eq $((n + base6))
echo "# IPv6 FIB memory: $(( $(fib ipv6_memory_bytes) >> 20 )) MiB ($(fib ipv6_tbl8_used) of $TBL8 tbl8 groups in use)"
mem_at_most 8 "$SYN synthetic IPv6 routes"
check "route.get matches the reference LPM on 25k addresses ($SYN routes)" \
	python3 "$SMOKE_DIR/rpc_lpm_check.py" "$SOCK" "$WORK/syn.tsv" 25000 3
split_third "$WORK/syn.tsv" 8 "$WORK/del.txt" "$WORK/kept.tsv" "$WORK/gone.tsv"
check "route load deletes a third" ctl route load "$WORK/del.txt"
check "two thirds are left" test "$(fib ipv6_routes)" -eq $((base6 + $(wc -l < "$WORK/kept.tsv")))
check "route.get matches the reference after the deletions ($SYN routes)" \
	python3 "$SMOKE_DIR/rpc_lpm_check.py" "$SOCK" "$WORK/kept.tsv" 25000 4

# --- both families in one file ----------------------------------------------
# 20k IPv4 routes and 20k of the deleted IPv6 ones, shuffled together.
# shellcheck disable=SC2086
"$TOP/scripts/pyasn-routes.py" --format prefixes --limit 20000 $GWS4 > "$WORK/v4.tsv" 2>/dev/null ||
	die "pyasn-routes.py failed"
head -n 20000 "$WORK/gone.tsv" > "$WORK/back6.tsv"
cat "$WORK/v4.tsv" "$WORK/back6.tsv" | shuf --random-source=<(yes) > "$WORK/mixed.tsv"
to_dprctl "$WORK/mixed.tsv" "$WORK/mixed.txt"
cat "$WORK/kept.tsv" "$WORK/mixed.tsv" > "$WORK/all.tsv"
check "one route load takes IPv4 and IPv6 routes together" ctl route load "$WORK/mixed.txt"
check "20000 more IPv4 routes" test "$(fib ipv4_routes)" -eq $((base4 + 20000))
check "20000 more IPv6 routes" \
	test "$(fib ipv6_routes)" -eq $((base6 + $(wc -l < "$WORK/kept.tsv") + 20000))
check "route.get matches the reference for both families" \
	python3 "$SMOKE_DIR/rpc_lpm_check.py" "$SOCK" "$WORK/all.tsv" 25000 5

# route.list in pages that straddle the families: every route once, IPv4
# first, each family in ascending order, the count equal to "total", and
# every loaded route with its gateway.
check "route.list pages through both families" python3 - "$SOCK" "$WORK/all.tsv" <<'PY'
import ipaddress, json, socket, sys
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
f = s.makefile("rwb")
def call(params, i):
    f.write(json.dumps({"jsonrpc": "2.0", "id": i, "method": "route.list",
                        "params": params}).encode() + b"\n")
    f.flush()
    return json.loads(f.readline())["result"]
seen, after, i, total = [], None, 0, None
while True:
    p = {"limit": 7919}
    if after:
        p["after"] = after
    r = call(p, i)
    i += 1
    total = r["total"]
    seen += [(ipaddress.ip_network(x["prefix"]), x.get("via")) for x in r["routes"]]
    after = r["next"]
    if not after:
        break
keys = [(n.version, int(n.network_address), n.prefixlen) for n, _ in seen]
want = {ipaddress.ip_network(l.split()[0]): ipaddress.ip_address(l.split()[1])
        for l in open(sys.argv[2])}
got = {n: ipaddress.ip_address(v) for n, v in seen if v}
missing = [n for n, v in want.items() if got.get(n) != v]
print("# %d pages, %d routes (%d IPv4, %d IPv6), total %d, %d loaded routes missing"
      % (i, len(seen), sum(k[0] == 4 for k in keys), sum(k[0] == 6 for k in keys), total,
         len(missing)))
ok = len(seen) == total and keys == sorted(set(keys)) and not missing
sys.exit(0 if ok else 1)
PY
check "dprctl route list shows them all" \
	test "$(ctl route list | wc -l)" -eq $((base4 + base6 + $(wc -l < "$WORK/all.tsv")))
stop_dpr
check_accounting
finish

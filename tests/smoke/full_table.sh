#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The full RouteViews IPv4 table from python3-pyasn loads through
# `dprctl route load`, and route.get agrees with a reference longest-prefix
# match on 25k addresses; again after deleting a random third of it.
# Load time and FIB memory are printed (measured, never asserted), except
# Poptrie's memory, which has a bound: FIB_ALGO=poptrie runs it all on that
# FIB algorithm (fib.ipv4_algorithm; the suite runs both).
source "$(dirname "$0")/lib.sh"
need_root
ALGO=${FIB_ALGO:-dir-24-8}

GWS="10.0.2.2 10.0.2.3 10.0.2.4 10.0.2.5"
cat > "$WORK/dpr.json" <<JSON
{
  "ports": [
    {"name": "p0", "device": "net_null_${TAG}a,no-rx=1", "addresses": ["10.0.1.1/24"]},
    {"name": "p1", "device": "net_null_${TAG}b,no-rx=1", "addresses": ["10.0.2.1/24"]}
  ],
  "neighbors": [
    {"address": "10.0.2.2", "mac": "02:00:00:00:02:02"},
    {"address": "10.0.2.3", "mac": "02:00:00:00:02:03"},
    {"address": "10.0.2.4", "mac": "02:00:00:00:02:04"},
    {"address": "10.0.2.5", "mac": "02:00:00:00:02:05"}
  ],
  "control": {"socket": "$SOCK"},
  "fib": {"ipv4_max_routes": 1048576, "ipv4_tbl8_groups": 16384, "ipv4_algorithm": "$ALGO"}
}
JSON
# shellcheck disable=SC2086
"$TOP/scripts/pyasn-routes.py" $GWS > "$WORK/routes.txt" 2>/dev/null || die "pyasn-routes.py failed"
# shellcheck disable=SC2086
"$TOP/scripts/pyasn-routes.py" --format prefixes $GWS > "$WORK/routes.tsv" 2>/dev/null
n=$(wc -l < "$WORK/routes.txt")
check "the pyasn table has over 500k IPv4 prefixes ($n)" test "$n" -gt 500000

start_dpr "$WORK/dpr.json" -l 0,1 -- --idle-sleep 100
base=$(ctl --json stats | python3 -c 'import json,sys; print(json.load(sys.stdin)["fib"]["ipv4_routes"])')
ctl --json route load "$WORK/routes.txt" > "$WORK/load.json"
check "route load of the full table exits 0" test $? -eq 0
read -r secs check total < <(python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print(j["seconds"], j["check_seconds"], j["ipv4_routes"])' "$WORK/load.json")
echo "# loaded $n routes in $secs s, $check s of it the whole-file check before any change"
check "every route is in the FIB ($total == $n + $base)" test "$total" -eq $((n + base))
mem=$(ctl --json stats | python3 -c 'import json,sys; print(json.load(sys.stdin)["fib"]["ipv4_memory_bytes"] >> 20)')
echo "# FIB memory ($ALGO, 1M-route capacity, 16384 tbl8 groups): $mem MiB"
check "stats.get names the algorithm ($ALGO)" test "$(ctl --json stats | python3 -c \
	'import json,sys; print(json.load(sys.stdin)["fib"]["ipv4_algorithm"])')" = "$ALGO"
# Poptrie's goal (issue 46): a full IPv4 table in at most 8 MiB.
[ "$ALGO" = poptrie ] && check "Poptrie holds the $n routes in at most 8 MiB ($mem MiB)" test "$mem" -lt 8

check "route.get matches the reference LPM on 25k addresses" \
	python3 "$SMOKE_DIR/rpc_lpm_check.py" "$SOCK" "$WORK/routes.tsv" 25000 1

# Delete a random third, through the same streaming path ("del PREFIX" lines).
python3 - "$WORK/routes.tsv" "$WORK/del.txt" "$WORK/kept.tsv" <<'PY'
import random, sys
lines = open(sys.argv[1]).read().splitlines()
rnd = random.Random(7)
gone = set(rnd.sample(range(len(lines)), len(lines) // 3))
with open(sys.argv[2], "w") as d, open(sys.argv[3], "w") as k:
    for i, l in enumerate(lines):
        (d.write("del %s\n" % l.split()[0]) if i in gone else k.write(l + "\n"))
PY
check "route load deletes a third" ctl route load "$WORK/del.txt"
left=$(ctl --json stats | python3 -c 'import json,sys; print(json.load(sys.stdin)["fib"]["ipv4_routes"])')
check "two thirds are left ($left)" test "$left" -eq $((base + $(wc -l < "$WORK/kept.tsv")))
check "route.get matches the reference after the deletions" \
	python3 "$SMOKE_DIR/rpc_lpm_check.py" "$SOCK" "$WORK/kept.tsv" 25000 2
stop_dpr
finish

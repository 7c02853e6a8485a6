#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Instructions per packet of one dpr binary's forwarding loop, exact, under
# callgrind: two bounded runs on the benchmark's traffic (100k and 200k
# packets), only dpr_worker_main collected; the difference over the packets
# between them cancels start-up. Needs the prepared benchmark
# (PREPARE=1 scripts/bench.sh) in BENCH_DIR (default build/bench): TABLE is
# one of its dpr-TABLE-ALGO.json configs (small, pyasn: IPv4; small6, pyasn6:
# IPv6; mix), ALGO the FIB algorithm (ALGO, default dir-24-8). CONFIG: another
# config a table, its path with %s for TABLE. Used by bench.sh and
# bench-ab.sh (INSTR=1).
#
#   scripts/callgrind-dpr.sh DPR_BIN OUT_PREFIX POOL TABLE...
#   ALGO=poptrie scripts/callgrind-dpr.sh DPR_BIN OUT_PREFIX POOL TABLE...
# Writes OUT_PREFIX-TABLE-N.out/.log; prints "TABLE INSTRUCTIONS" per table.
# BRANCHES=1: also simulate the branch predictor (--branch-sim=yes) and add
# the mispredicted conditional branches a packet ("TABLE INSTR MISPREDICTS").
set -uo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
cd "$TOP"
B=${BENCH_DIR:-build/bench}
ALGO=${ALGO:-dir-24-8}
CONFIG=${CONFIG:-$B/dpr-%s-$ALGO.json}
bin=$1 out=$2 pool=$3
shift 3
BSIM=
[ "${BRANCHES:-0}" = 1 ] && BSIM=--branch-sim=yes
for t in "$@"; do
	# The environment the prepared case "dpr TABLE ALGO" runs with: a config
	# prepared with FEED=array names the array feed's device, which is
	# a plain net_null (zeroed frames, all to the slow path) unless its
	# library is preloaded as in the timed runs.
	feed_env=()
	while IFS= read -r kv; do
		[ -n "$kv" ] && feed_env+=("$kv")
	done < <(python3 - "$B/cases.json" "$t" "$ALGO" <<'PY'
import json, sys
try:
    cases = json.load(open(sys.argv[1]))["cases"]
except (OSError, ValueError, KeyError):
    cases = []
for c in cases:
    if c.get("app") == "dpr" and c.get("name") == "dpr %s %s" % tuple(sys.argv[2:4]):
        for k, v in sorted((c.get("env") or {}).items()):
            print("%s=%s" % (k, v))
        break
PY
)
	for n in 100000 200000; do
		env "${feed_env[@]}" valgrind --tool=callgrind --callgrind-out-file="$out-$t-$n.out" $BSIM \
			--collect-atstart=no --toggle-collect=dpr_worker_main \
			"$bin" --no-pci --no-huge -m 3072 --file-prefix cg$$ -l 0,1 \
			--log-level '*:error' -- -c "$(printf "$CONFIG" "$t")" --pool-size "$pool" \
			--max-packets $n > "$out-$t-$n.log" 2>&1 || true
	done
	python3 - "$out-$t" "$t" <<'PY'
import importlib.util, sys
spec = importlib.util.spec_from_file_location("report", "scripts/bench-report.py")
report = importlib.util.module_from_spec(spec)
spec.loader.exec_module(report)
base, table = sys.argv[1:]
ipp = report.per_packet(None, [base + "-100000.out", base + "-200000.out"], 100000, 200000)
bcm = report.per_packet(None, [base + "-100000.out", base + "-200000.out"], 100000, 200000,
                        "Bcm")
print("%s %s%s" % (table, "%.2f" % ipp if ipp is not None else "n/a",
                   " %.2f" % bcm if bcm is not None else ""))
PY
done

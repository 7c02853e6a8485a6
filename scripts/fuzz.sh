#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Build the libFuzzer harnesses (tests/fuzz, clang with ASan and UBSan) in
# build-fuzz/ and run each for SECONDS from its seed corpus
# (tests/fuzz/corpus/<harness>/, never written to; what the fuzzer finds
# goes to build-fuzz/fuzz/<harness>/). A crash, leak-free abort or
# sanitizer report stops that harness; its input is kept in
# build-fuzz/fuzz/crash-<harness>-* and the script exits 1. Per harness it
# prints runs, seconds and corpus size; the last line is
# "fuzz: N harnesses, N crashes".
#
#   scripts/fuzz.sh 60              a minute each
#   scripts/fuzz.sh 0               only build
#   scripts/fuzz.sh 10 fpm rpc      only these
#   JOBS=2 scripts/fuzz.sh 600      two processes per harness, one harness at a time
#   FUZZ_PARALLEL=1 scripts/fuzz.sh 60   one harness at a time (default: two at once)
#
# To reproduce a crash: build-fuzz/tests/fuzz/fuzz_<harness> FILE
set -uo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
cd "$TOP"
SECONDS_EACH=${1:-60}
shift || true
HARNESSES=${*:-fpm fpm_small config rpc rpc_small dataplane fib acl}
JOBS=${JOBS:-1}
BUILD=${FUZZ_BUILD_DIR:-build-fuzz}
OUT=$BUILD/fuzz
say() { printf 'fuzz: %s\n' "$*"; }

case $SECONDS_EACH in
'' | *[!0-9]*) echo "usage: $0 SECONDS [HARNESS...]" >&2; exit 2 ;;
esac
scripts/setup.sh >/dev/null || { say "scripts/setup.sh failed"; exit 1; }
if [ ! -f "$BUILD/build.ninja" ]; then
	CC=clang meson setup "$BUILD" -Dbuildtype=debug -Db_sanitize=address,undefined \
		-Db_lundef=false -Dfuzz=true -Dtests=false >/dev/null || exit 1
fi
ninja -C "$BUILD" >/dev/null || ninja -C "$BUILD" || exit 1
[ "$SECONDS_EACH" -gt 0 ] || { say "built in $BUILD (0 seconds: nothing run)"; exit 0; }
mkdir -p "$OUT"

# DPDK keeps its memory to exit: no leak checks (as in scripts/test.sh).
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
# One harness: its line (and a crash's report) into $OUT/$h.result, and
# exit status 1 when it crashed.
run_one() {
	local h=$1 exe=$BUILD/tests/fuzz/fuzz_$1 seeds=tests/fuzz/corpus/${1%_small}
	local start par max_len rc secs runs size
	[ -x "$exe" ] && [ -d "$seeds" ] || { say "$h: no harness or no $seeds" > "$OUT/$h.result"; return 1; }
	mkdir -p "$OUT/$h"
	start=$(date +%s.%N)
	par=()
	[ "$JOBS" -gt 1 ] && par=(-jobs="$JOBS" -workers="$JOBS")
	# fib walks both FIBs whole after each batch of an input: inputs of
	# 64 KiB took seconds each, so a run of SECONDS took 46.
	max_len=65536
	[ "$h" = fib ] && max_len=4096
	"$exe" -max_total_time="$SECONDS_EACH" "${par[@]}" -print_final_stats=1 \
		-artifact_prefix="$OUT/crash-$h-" -max_len=$max_len -timeout=10 -rss_limit_mb=4096 \
		"$OUT/$h" "$seeds" > "$OUT/$h.log" 2>&1
	rc=$?
	secs=$(python3 -c "import time,sys; print('%.0f' % (time.time() - float(sys.argv[1])))" "$start")
	[ "$JOBS" -gt 1 ] && cat fuzz-*.log >> "$OUT/$h.log" 2>/dev/null && rm -f fuzz-*.log
	runs=$(grep -h 'stat::number_of_executed_units' "$OUT/$h.log" | awk '{s += $2} END {print s + 0}')
	size=$(ls "$OUT/$h" | wc -l)
	if [ $rc -ne 0 ]; then
		{
			say "$h: CRASH after $runs runs in $secs s (exit $rc): $(ls "$OUT"/crash-"$h"-* 2>/dev/null | head -1)"
			grep -E 'ERROR|SUMMARY|runtime error|fuzz_' "$OUT/$h.log" | head -5 | sed 's/^/fuzz:   /'
		} > "$OUT/$h.result"
		return 1
	fi
	say "$h: $runs runs in $secs s, corpus $(ls "$seeds" | wc -l) seeds + $size found, no crash" > "$OUT/$h.result"
}

# Harnesses two at a time (one process each: the machines have 2 cores);
# with JOBS > 1, one at a time (libFuzzer's workers share fuzz-*.log here).
at_once=${FUZZ_PARALLEL:-2}
[ "$JOBS" -gt 1 ] && at_once=1
crashes=0 n=0 running=0
for h in $HARNESSES; do
	n=$((n + 1))
	rm -f "$OUT/$h.result"
	run_one "$h" &
	running=$((running + 1))
	if [ "$running" -ge "$at_once" ]; then
		wait -n
		running=$((running - 1))
	fi
done
wait
for h in $HARNESSES; do
	cat "$OUT/$h.result" 2>/dev/null || say "$h: no result"
	grep -q 'CRASH\|no harness\|^$' "$OUT/$h.result" 2>/dev/null && crashes=$((crashes + 1))
	[ -s "$OUT/$h.result" ] || crashes=$((crashes + 1))
done
say "$n harnesses, $crashes crashes"
[ $crashes -eq 0 ]

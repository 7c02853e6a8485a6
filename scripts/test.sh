#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Install what is missing, build (release and ASan/UBSan), run every suite:
#   unit    crafted mbufs through each stage          (release + sanitizers)
#   config  bad and good configuration files           (release + sanitizers)
#   doctor  dpr-doctor against fake machines            (release + sanitizers)
#   smoke   the real dpr between hosts in namespaces   (release + sanitizers)
#   fuzz    each libFuzzer harness for FUZZ_SECONDS (5) from its seeds
#           (scripts/fuzz.sh: clang, ASan + UBSan, build-fuzz/)
# The last line is "N passed, N failed"; exits non-zero on any failure.
#
#   scripts/test.sh                 everything
#   SUITES="unit config" scripts/test.sh
#   SANITIZE=0 scripts/test.sh      skip the sanitizer build
#   FUZZ_SECONDS=0 scripts/test.sh  skip the fuzz harnesses
set -uo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
cd "$TOP"
# The tests' Python is Debian's, which the packages that setup.sh installs
# (python3-pyasn...) are for. A version manager's python3 first in PATH
# (pyenv's shim) would also cost 0.15 s a start, in tests that start it
# hundreds of times.
if [ -x /usr/bin/python3 ] && [ "$(command -v python3)" != /usr/bin/python3 ]; then
	PYBIN=$(mktemp -d "${TMPDIR:-/tmp}/dpr-python.XXXXXX")
	ln -s /usr/bin/python3 "$PYBIN/python3"
	export PATH="$PYBIN:$PATH"
	trap 'rm -rf "$PYBIN"' EXIT
fi
SUITES=${SUITES:-unit config doctor smoke}
SANITIZE=${SANITIZE:-1}
LOG=$TOP/build/test-logs
passed=0
failed=0
failures=()

scripts/setup.sh || { echo "0 passed, 1 failed"; exit 1; }

build() { # build DIR MESON-OPTIONS...
	local dir=$1; shift
	if [ ! -f "$dir/build.ninja" ]; then
		meson setup "$dir" "$@" >/dev/null || return 1
	fi
	ninja -C "$dir" >/dev/null || ninja -C "$dir"
}

# run_suite DIR LABEL SUITE [MESON-TEST-OPTIONS...]: one meson suite of
# build DIR, its output in $LOG/LABEL-SUITE.txt, its results in
# $LOG/LABEL-SUITE.json, its wall-clock time in $LOG/LABEL-SUITE.time;
# prints nothing
run_suite() {
	local dir=$1 label=$2 s=$3 skip= start=$SECONDS
	shift 3
	# The full-table smoke tests (suite "table") and the long table
	# churns and saves (suite "long") run in the release build only: a
	# minute or more each under the sanitizers, for checks of tables the
	# unit tests run there anyway.
	[ "$label" = asan ] && skip="--no-suite table --no-suite long"
	rm -f "$dir/meson-logs/testlog.json" "$LOG/$label-$s.json"
	# shellcheck disable=SC2086
	meson test -C "$dir" --suite "$s" $skip --print-errorlogs --num-processes 2 "$@" \
		> "$LOG/$label-$s.txt" 2>&1
	[ -s "$dir/meson-logs/testlog.json" ] && cp "$dir/meson-logs/testlog.json" "$LOG/$label-$s.json"
	echo $((SECONDS - start)) > "$LOG/$label-$s.time"
}

# report LABEL SUITE: count and print the results run_suite left
report() {
	local label=$1 s=$2 result name
	# The suite's wall-clock time (the whole run has a 15-minute budget).
	echo "# $label/$s: $(cat "$LOG/$label-$s.time" 2>/dev/null || echo '?') s"
	if [ ! -s "$LOG/$label-$s.json" ]; then
		failed=$((failed + 1))
		failures+=("$label/$s: no tests ran")
		echo "not ok - $label/$s: no tests ran"
		tail -n 20 "$LOG/$label-$s.txt"
		return
	fi
	while read -r result name; do
		if [ "$result" = OK ]; then
			passed=$((passed + 1))
			echo "ok - $label/$s/$name"
		else
			failed=$((failed + 1))
			failures+=("$label/$s/$name ($result)")
			echo "not ok - $label/$s/$name ($result)"
		fi
	done < <(python3 -c '
import json, sys
for line in open(sys.argv[1]):
    t = json.loads(line)
    print(t["result"], t["name"].split(" / ")[-1])
' "$LOG/$label-$s.json")
	# What a failed test said, where CI shows it: its failed checks
	# and the last lines of its output (a TIMEOUT says where it hung).
	python3 - "$LOG/$label-$s.json" <<'PY'
import json, sys
for line in open(sys.argv[1]):
    t = json.loads(line)
    if t["result"] == "OK":
        continue
    out = (t.get("stdout") or "").splitlines()
    bad = [l for l in out if l.startswith("not ok")]
    tail = [l for l in out[-15:] if l not in bad]
    for l in bad[:10] + tail:
        print("#   %s: %s" % (t["name"].split(" / ")[-1], l[:300]))
PY
}

run_suites() { # run_suites DIR LABEL [SUITE...]: run and report each
	local dir=$1 label=$2 s
	shift 2
	for s in "$@"; do
		run_suite "$dir" "$label" "$s"
		report "$label" "$s"
	done
}

FUZZ_SECONDS=${FUZZ_SECONDS:-5}
mkdir -p "$LOG"
# The sanitizer and fuzz builds compile at the lowest priority while the
# release build's tests run, which mostly wait on namespaces and sockets;
# each leaves its exit status in $LOG/build-*.rc.
# ASan cannot tell DPDK's hugepage heap from wild memory, and DPDK keeps
# its memory until exit: leaks are not checked, everything else is.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
# The FIB differential's 250 random batches a case, 100 under the
# sanitizers: the same code, a third of its time.
ASAN_BATCHES=${DPR_TEST_BATCHES:-100}
# Behind the release tests, at the lowest priority: the sanitizer build,
# then its unit suite (CPU-bound; the release smoke tests mostly wait on
# hosts, daemons and dpr's idle workers), then the fuzz build.
bg_builds() {
	local rc
	renice -n 19 "$BASHPID" >/dev/null
	if [ "$SANITIZE" = 1 ]; then
		build build-asan -Dbuildtype=debug -Db_sanitize=address,undefined \
			-Db_lundef=false > "$LOG/build-asan.txt" 2>&1
		rc=$?
		echo $rc > "$LOG/build-asan.rc"
		# Its time limits tripled: a test at the lowest priority
		# waits for the CPU whenever a release test wants it.
		if [ $rc = 0 ] && [[ " $SUITES " == *" unit "* ]]; then
			DPR_TEST_BATCHES=$ASAN_BATCHES run_suite build-asan asan unit \
				--timeout-multiplier 3
		fi
		touch "$LOG/asan-unit.done"
	fi
	if [ "$FUZZ_SECONDS" -gt 0 ]; then
		scripts/fuzz.sh 0 > "$LOG/build-fuzz.txt" 2>&1
		echo $? > "$LOG/build-fuzz.rc"
	fi
}
rm -f "$LOG"/build-*.rc "$LOG"/*.json "$LOG"/asan-unit.done
if build build -Dbuildtype=release; then
	echo "ok - build (release)"
	passed=$((passed + 1))
	bg_builds &
	BG=$!
	# shellcheck disable=SC2086
	run_suites build release $SUITES
else
	echo "not ok - build (release)"
	failed=$((failed + 1))
	failures+=("build (release)")
fi

if [ "$SANITIZE" = 1 ]; then
	asan_ok=1
	if [ -n "${BG:-}" ]; then
		# The sanitizer build: its unit suite and the fuzz build go on
		# behind the tests.
		while [ ! -f "$LOG/build-asan.rc" ] && kill -0 "$BG" 2>/dev/null; do sleep 1; done
		[ "$(cat "$LOG/build-asan.rc" 2>/dev/null)" = 0 ] || { asan_ok=0; tail -n 30 "$LOG/build-asan.txt"; }
	else
		build build-asan -Dbuildtype=debug -Db_sanitize=address,undefined -Db_lundef=false || asan_ok=0
	fi
	if [ "$asan_ok" = 1 ]; then
		echo "ok - build (asan+ubsan)"
		passed=$((passed + 1))
		# The unit suite ran behind the release tests (bg_builds), in the
		# same build directory: done before any other starts there.
		while [ -n "${BG:-}" ] && [ ! -f "$LOG/asan-unit.done" ] && kill -0 "$BG" 2>/dev/null; do
			sleep 1
		done
		for s in $SUITES; do
			if [ "$s" = unit ] && [ -n "${BG:-}" ]; then
				echo "# asan/unit ran behind the release tests"
			else
				DPR_TEST_BATCHES=$ASAN_BATCHES run_suite build-asan asan "$s"
			fi
			report asan "$s"
		done
	else
		echo "not ok - build (asan+ubsan)"
		failed=$((failed + 1))
		failures+=("build (asan+ubsan)")
	fi
fi

if [ "$FUZZ_SECONDS" -gt 0 ]; then
	[ -n "${BG:-}" ] && wait "$BG" 2>/dev/null
	# One result per harness: "fuzz: NAME: ... no crash" or "... CRASH ...".
	start=$SECONDS
	scripts/fuzz.sh "$FUZZ_SECONDS" > "$LOG/fuzz.txt" 2>&1
	echo "# fuzz: $((SECONDS - start)) s"
	found=0
	while read -r _ name rest; do
		name=${name%:}
		found=$((found + 1))
		case $rest in
		*"no crash") passed=$((passed + 1)); echo "ok - fuzz/$name ($rest)" ;;
		*) failed=$((failed + 1)); failures+=("fuzz/$name"); echo "not ok - fuzz/$name ($rest)" ;;
		esac
	done < <(grep -E '^fuzz: [a-z0-9_]+: ' "$LOG/fuzz.txt")
	if [ "$found" -eq 0 ]; then
		failed=$((failed + 1))
		failures+=("fuzz: nothing ran")
		echo "not ok - fuzz: nothing ran"
		tail -n 20 "$LOG/fuzz.txt"
	fi
fi

for f in "${failures[@]}"; do echo "failed: $f (logs: $LOG)"; done
echo "# total: $SECONDS s"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]

#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Interleaved A/B of two dpr binaries on the benchmark's traffic and tables:
# the way to tell whether a change helps on machines whose throughput swings
# 1.5-2x between runs. Both binaries run in every round, in a rotating order;
# per table it prints each round's Mpps, the medians, and in how many rounds
# B beat A.
#
#   cp build/app/dpr /tmp/dpr-old; (change, rebuild)
#   scripts/bench-ab.sh /tmp/dpr-old                 A = old, B = build/app/dpr
#   ROUNDS=9 DURATION=5 scripts/bench-ab.sh A_BIN B_BIN
#
# Tables: TABLES (default "small pyasn", IPv4; also small6, pyasn6: IPv6, and
# mix: both full tables 50/50; vlan, vlan6: the small tables tagged, in a
# VRF). A
# table whose config a binary rejects
# (dpr --check: a binary from before IPv6) is skipped with a note.
# INSTR=1: instructions per packet of both binaries instead (callgrind,
# exact, so one run is enough: scripts/callgrind-dpr.sh), on TABLES, default
# "small pyasn small6" (small6 only where both binaries take it).
# PERF=1 also samples the worker's CPU (perf): ns a packet in dpr's own code
# and in the rest (PMDs), per binary. BUILD_DIR: as for scripts/bench.sh
# (default build; B defaults to BUILD_DIR/app/dpr, files in BUILD_DIR/bench).
# PIPELINE=on|off: both binaries run with --pipeline fixed that way
# (default: auto, the tuner's choice, as bench.sh's "dpr TABLE ALGO" cases).
# ALGO=poptrie: both binaries with that FIB algorithm (default dir-24-8; a
# binary from before the algorithm setting gets its DIR-24-8 config without
# the setting).
set -euo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
cd "$TOP"
[ $# -ge 1 ] || { echo "usage: $0 A_DPR [B_DPR]" >&2; exit 2; }
BUILD=${BUILD_DIR:-build}
BD=$BUILD/bench
A=$(realpath "$1") B=$(realpath "${2:-$BUILD/app/dpr}")
for f in "$A" "$B"; do
	[ -x "$f" ] || { echo "bench-ab: $f is not an executable" >&2; exit 2; }
done
ROUNDS=${ROUNDS:-7} DURATION=${DURATION:-5} WARMUP=${WARMUP:-2}
case ${PIPELINE:-auto} in auto|on|off) ;; *) echo "bench-ab: PIPELINE=$PIPELINE: one of auto on off" >&2; exit 2 ;; esac
ALGO=${ALGO:-dir-24-8}
if [ "${INSTR:-0}" = 1 ]; then
	TABLES=${TABLES:-small pyasn small6}
else
	TABLES=${TABLES:-small pyasn}
fi
FAMILIES=4
for t in $TABLES; do
	case $t in small|pyasn|vlan) ;; small6|pyasn6|mix|vlan6) FAMILIES=4,6 ;;
	*) echo "bench-ab: table $t: one of small pyasn small6 pyasn6 mix vlan vlan6" >&2; exit 2 ;; esac
done

ALGOS=$ALGO FAMILIES=$FAMILIES PREPARE=1 scripts/bench.sh >&2
# Each binary's config a table, ab-A-TABLE.json and ab-B-TABLE.json: the
# prepared one, or for DIR-24-8 (every dpr's only algorithm before issue 46)
# the same without the algorithm setting where the binary rejects it.
no_algo() {
	python3 -c 'import json, sys
c = json.load(open(sys.argv[1]))
for k in ("ipv4_algorithm", "ipv6_algorithm"):
    c.get("fib", {}).pop(k, None)
json.dump(c, open(sys.argv[2], "w"))' "$1" "$2"
}
# The tables both binaries take (dpr --check parses the config only).
tables=()
for t in $TABLES; do
	ok=1
	for tag in A B; do
		f=${!tag} cfg=$BD/ab-$tag-$t.json
		cp "$BD/dpr-$t-$ALGO.json" "$cfg"
		if ! "$f" -- -c "$cfg" --check >/dev/null 2>&1 && [ "$ALGO" = dir-24-8 ]; then
			no_algo "$BD/dpr-$t-$ALGO.json" "$cfg"
		fi
		"$f" -- -c "$cfg" --check >/dev/null 2>&1 || {
			echo "bench-ab: $f rejects $BD/dpr-$t-$ALGO.json (dpr --check): table $t skipped" >&2
			ok=0
		}
	done
	[ $ok = 1 ] && tables+=("$t")
done
[ ${#tables[@]} -gt 0 ] || { echo "bench-ab: no table both binaries take" >&2; exit 1; }
if [ "${INSTR:-0}" = 1 ]; then
	pool=$(python3 -c 'import json,sys; a=[c for c in json.load(open(sys.argv[1]))["cases"] if c["app"] == "dpr"][0]["argv"]; print(a[a.index("--pool-size")+1])' \
		"$BD/cases.json")
	echo "instructions per packet, forwarding loop (callgrind)"
	echo "A = $A"; ALGO=$ALGO CONFIG=$BD/ab-A-%s.json BENCH_DIR=$BD \
		scripts/callgrind-dpr.sh "$A" "$BD/ab-callgrind-A" "$pool" "${tables[@]}"
	echo "B = $B"; ALGO=$ALGO CONFIG=$BD/ab-B-%s.json BENCH_DIR=$BD \
		scripts/callgrind-dpr.sh "$B" "$BD/ab-callgrind-B" "$pool" "${tables[@]}"
	exit 0
fi
python3 - "$A" "$B" "$BD/cases.json" "$BD/ab-cases.json" "${PIPELINE:-auto}" "$ALGO" \
	"${tables[@]}" <<'PY'
import json, os, sys
a, b, src, out, way, algo = sys.argv[1:7]
tables = sys.argv[7:]
cases = []
for c in json.load(open(src))["cases"]:
    # The case as bench.sh names it, "dpr TABLE ALGO" (--pipeline auto),
    # not its forced variants ("dpr-on", "dpr-off") nor other worker counts:
    # they would share the names "A TABLE" and "B TABLE".
    if c["app"] != "dpr" or c["table"] not in tables or \
            c["name"] != "dpr %s %s" % (c["table"], algo):
        continue
    for tag, binary in (("A", a), ("B", b)):
        d = dict(c, name="%s %s" % (tag, c["table"]))
        # dpr's own options come last (after EAL's "--"): one more there.
        d["argv"] = [binary] + c["argv"][1:] + ([] if way == "auto" else ["--pipeline", way])
        d["argv"][d["argv"].index("-c") + 1] = os.path.join(
            os.path.dirname(src), "ab-%s-%s.json" % (tag, c["table"]))
        cases.append(d)
json.dump({"cases": cases}, open(out, "w"), indent=1)
PY
PERF_ARG=()
[ "${PERF:-0}" = 1 ] && PERF_ARG=(--perf)   # perf installed by bench.sh above
# The hugepage ballast as in bench.sh (BALLAST=0: none), above the 1024
# pages bench.sh reserved for the cases.
[ "${BALLAST:-256}" -gt 0 ] && PERF_ARG+=(--ballast "${BALLAST:-256}" --ballast-leave 1024)
scripts/bench.py --cases "$BD/ab-cases.json" --rounds "$ROUNDS" --duration "$DURATION" \
	--warmup "$WARMUP" "${PERF_ARG[@]}" > "$BD/ab.json"
python3 - "$A" "$B" "$BD/ab.json" "${tables[@]}" <<'PY'
import json, statistics, sys
a, b, res = sys.argv[1:4]
by = {c["name"]: c for c in json.load(open(res))["cases"]}
print("A = %s\nB = %s" % (a, b))
for t in sys.argv[4:]:
    ra, rb = by["A " + t]["by_round"], by["B " + t]["by_round"]
    pairs = [(x, y) for x, y in zip(ra, rb) if x is not None and y is not None]
    if not pairs:
        print("%s: no round completed for both" % t)
        continue
    ma = statistics.median(x for x, _ in pairs)
    mb = statistics.median(y for _, y in pairs)
    wins = sum(y > x for x, y in pairs)
    print("%-6s A %s" % (t, " ".join("%6.2f" % x for x, _ in pairs)))
    print("%-6s B %s" % ("", " ".join("%6.2f" % y for _, y in pairs)))
    print("%-6s median A %.2f, B %.2f Mpps (B/A %.3f); B ahead in %d of %d rounds"
          % ("", ma, mb, mb / ma, wins, len(pairs)))
    oa, ob = by["A " + t].get("own_ns_per_packet_median"), by["B " + t].get("own_ns_per_packet_median")
    if oa is not None and ob is not None:
        print("%-6s ns/packet in dpr's own code A %.2f, B %.2f; in the rest (PMDs) A %.2f, B %.2f"
              % ("", oa, ob, by["A " + t]["rest_ns_per_packet_median"],
                 by["B " + t]["rest_ns_per_packet_median"]))
PY

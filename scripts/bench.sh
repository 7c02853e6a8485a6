#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# dpr against dpdk-testpmd (io, mac: the I/O ceiling) and dpdk-l3fwd (LPM,
# FIB), one worker lcore each, same pcap traffic (net_pcap infinite_rx) into
# net_null, small table (l3fwd's routes) and the full RouteViews IPv4 table.
# Cases are interleaved round by round; medians, min, max and ratios go to
# build/bench/results.json and build/bench/results.png, and a table is printed.
# Then instructions per packet under callgrind (exact, for regressions).
#
#   scripts/bench.sh                       3 rounds of 10 s
#   ROUNDS=5 DURATION=20 scripts/bench.sh
#   scripts/bench.sh --quick               1 round of 2 s, small pcap (smoke use)
#   CALLGRIND=0 scripts/bench.sh           skip instruction counts
#   PREPARE=1 scripts/bench.sh             only traffic, configs and cases
#                                          (for scripts/bench-ab.sh)
#   PERF=1 scripts/bench.sh                also sample the forwarding CPU with
#                                          perf: ns a packet in each app's own
#                                          code and in the rest (PMDs)
set -euo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
cd "$TOP"
B=build/bench
ROUNDS=${ROUNDS:-3} DURATION=${DURATION:-10} WARMUP=${WARMUP:-2} CALLGRIND=${CALLGRIND:-1}
THROUGHPUT=${THROUGHPUT:-1}   # 0: keep the last throughput.json, redo callgrind only
COUNT=65536
if [ "${1:-}" = "--quick" ]; then
	ROUNDS=1 DURATION=2 WARMUP=1 COUNT=8192
fi
say() { printf 'bench: %s\n' "$*" >&2; }

scripts/setup.sh >&2
dpkg-query -W -f='${Status}' python3-matplotlib 2>/dev/null | grep -q "install ok" ||
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q python3-matplotlib >/dev/null
[ -f build/build.ninja ] || meson setup build >/dev/null
ninja -C build >/dev/null
mkdir -p $B
L3FWD=$(scripts/build-l3fwd.sh | tail -1)

for t in small pyasn; do
	[ -f "$B/$t-v4.pcap" ] && [ "$(cat "$B/$t-v4.count" 2>/dev/null)" = "$COUNT" ] && continue
	say "traffic: $COUNT packets to the $t table's prefixes"
	scripts/make-pcap.py --table $t --count $COUNT --l3fwd-ports 1 --out "$B/$t-v4.pcap" >&2
	echo $COUNT > "$B/$t-v4.count"
done
POOL=$((COUNT + 32768))

# dpr takes its routes from the config file: installed before the ports
# start, so no packet is measured against a half-loaded table.
for t in small pyasn; do
	python3 - "$B/$t-v4.dprctl.routes" "$B/$t-v4.pcap" "$B/dpr-$t.json" <<'PY'
import json, sys
routes = [l.split() for l in open(sys.argv[1]) if l.strip()]
gws = sorted({r[2] for r in routes})
cfg = {
    "ports": [
        {"name": "in", "device": "net_pcap0,rx_pcap=%s,infinite_rx=1,tx_pcap=/dev/null,tx_pcap=/dev/null" % sys.argv[2],
         "addresses": ["10.0.1.1/24"], "tap": False},
        {"name": "out", "device": "net_null0,no-rx=1", "addresses": ["10.0.2.1/24"], "tap": False},
    ],
    "neighbors": [{"address": g, "mac": "02:00:00:00:02:%02x" % (i + 2)} for i, g in enumerate(gws)],
    "routes": [{"prefix": r[0], "via": r[2]} for r in routes],
    "control": {"socket": "/run/dpr/bench.sock"},
    "fib": {"ipv4_max_routes": 1048576, "ipv4_tbl8_groups": 16384},
}
json.dump(cfg, open(sys.argv[3], "w"))
PY
done
NROUTES_SMALL=$(wc -l < "$B/small-v4.dprctl.routes")
NROUTES_PYASN=$(wc -l < "$B/pyasn-v4.dprctl.routes")

# The cases, for scripts/bench.py; @PREFIX@ becomes a unique --file-prefix.
python3 - "$B/cases.json" "$L3FWD" "$POOL" "$NROUTES_SMALL" "$NROUTES_PYASN" <<'PY'
import json, os, sys
out, l3fwd, pool, n_small, n_pyasn = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
B = "build/bench"
eal = ["--no-pci", "--in-memory", "--file-prefix", "@PREFIX@", "--log-level", "*:warning"]
def vdevs(t):
    return ["--vdev", "net_pcap0,rx_pcap=%s/%s-v4.pcap,infinite_rx=1" % (B, t),
            "--vdev", "net_null0,no-rx=1"]
cases = []
for t, n in (("small", n_small), ("pyasn", n_pyasn)):
    cases.append({"name": "dpr %s" % t, "app": "dpr", "table": t, "routes": n, "ports": [1],
                  "argv": ["build/app/dpr"] + eal + ["-l", "0,1", "--", "-c", "%s/dpr-%s.json" % (B, t),
                           "--pool-size", pool]})
    for m in ("lpm", "fib"):
        cases.append({"name": "l3fwd-%s %s" % (m, t), "app": "l3fwd-" + m, "table": t, "routes": n,
                      "ports": [1],
                      "env": {"L3FWD_NB_MBUF": pool},
                      "argv": [l3fwd] + eal + ["-l", "1"] + vdevs(t) +
                              ["--", "-p", "0x3", "--config", "(0,0,1),(1,0,1)", "--lookup", m,
                               "--parse-ptype", "--rule_ipv4", "%s/%s-v4.l3fwd.routes" % (B, t),
                               "--rule_ipv6", "%s/l3fwd-src/lpm_default_v6.cfg" % B]})
for m in ("io", "mac"):
    cases.append({"name": "testpmd-%s" % m, "app": "testpmd-" + m, "table": "none", "routes": 0,
                  "ports": [1],
                  "argv": ["dpdk-testpmd"] + eal + ["-l", "0,1"] + vdevs("small") +
                          ["--", "--forward-mode=" + m, "--auto-start", "--stats-period", "3600",
                           "--total-num-mbufs", pool, "--nb-cores", "1"]})
json.dump({"cases": cases}, open(out, "w"), indent=1)
PY

# PERF=1 needs perf; installed here, before PREPARE returns, for bench-ab.sh too.
if [ "${PERF:-0}" = 1 ] && ! command -v perf >/dev/null; then
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q linux-perf >/dev/null
fi
[ "${PREPARE:-0}" = 1 ] && { say "prepared: $B/cases.json"; exit 0; }

[ "$THROUGHPUT" = 1 ] && say "measuring: $ROUNDS rounds x $(python3 -c "import json;print(len(json.load(open('$B/cases.json'))['cases']))") cases x ${DURATION} s"
PERF_ARG=()
[ "${PERF:-0}" = 1 ] && PERF_ARG=(--perf)
[ "$THROUGHPUT" = 1 ] && scripts/bench.py --cases "$B/cases.json" --rounds "$ROUNDS" \
	--duration "$DURATION" --warmup "$WARMUP" "${PERF_ARG[@]}" > "$B/throughput.json"

# Instructions per packet: two bounded runs under callgrind, the difference
# divided by the packets between them (start-up cancels out). Only the
# forwarding loop is counted (--toggle-collect): dpr's control thread and
# l3fwd's set-up run for time, not per packet.
if [ "$CALLGRIND" = 1 ]; then
	say "callgrind: instructions per packet (dpr, small and full table)"
	scripts/callgrind-dpr.sh build/app/dpr "$B/callgrind" "$POOL" small pyasn >/dev/null
	say "callgrind: instructions per packet (l3fwd LPM and FIB, small table; FIB, full table)"
	for c in "lpm small" "fib small" "fib pyasn"; do
		set -- $c
		for secs in 2 4; do
			L3FWD_NB_MBUF=$POOL L3FWD_SECONDS=$secs valgrind --tool=callgrind \
				--collect-atstart=no --toggle-collect='*_main_loop' \
				--callgrind-out-file="$B/callgrind-l3fwd-$1-$2-$secs.out" \
				"$L3FWD" --no-pci --no-huge -m 3072 --file-prefix cg$$ -l 1 --log-level '*:error' \
				--vdev "net_pcap0,rx_pcap=$B/$2-v4.pcap,infinite_rx=1" --vdev net_null0,no-rx=1 \
				-- -p 0x3 --config "(0,0,1),(1,0,1)" --lookup "$1" --parse-ptype \
				--rule_ipv4 "$B/$2-v4.l3fwd.routes" --rule_ipv6 "$B/l3fwd-src/lpm_default_v6.cfg" \
				> "$B/callgrind-l3fwd-$1-$2-$secs.log" 2>&1 || true
		done
	done
fi

# Debian's python3, which has python3-matplotlib.
/usr/bin/python3 scripts/bench-report.py "$B" "$CALLGRIND"

#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# dpr against dpdk-testpmd (io, mac: the I/O ceiling) and dpdk-l3fwd (LPM,
# FIB), one worker lcore each, same pcap traffic (net_pcap infinite_rx) into
# net_null: IPv4 on the small table (l3fwd's routes) and the full RouteViews
# IPv4 table; IPv6 on l3fwd's small IPv6 table and the full RouteViews IPv6
# table (dpr and l3fwd LPM); and a 50/50 IPv4/IPv6 mix on both full tables.
# Cases are interleaved round by round; medians, min, max and ratios go to
# BUILD_DIR/bench/results.json and results.png, and a table is printed.
# Then instructions per packet under callgrind (exact, for regressions).
# Each dpr case runs once per FIB algorithm (ALGOS), in the same rounds.
#
#   scripts/bench.sh                       3 rounds of 8 s
#   ROUNDS=5 DURATION=20 scripts/bench.sh
#   scripts/bench.sh --quick               1 round of 2 s, small pcap (smoke use;
#                                          QUICK=1 does the same)
#   ALGOS=poptrie scripts/bench.sh         dpr's FIB algorithms, each dpr case
#                                          once per algorithm (default
#                                          dir-24-8,poptrie): "fib":
#                                          {"ipv4_algorithm": A, "ipv6_algorithm":
#                                          A} in its config, A the last word of
#                                          the case's name (before " wN")
#   BALLAST=0 scripts/bench.sh             without the hugepage ballast: before
#                                          each case the harness holds k random
#                                          (0..BALLAST, default 256) free 2 MiB
#                                          hugepages until the case ends, so
#                                          that which pages a case's tables get
#                                          changes from round to round
#                                          (scripts/bench.py Ballast)
#   MICRO=1 scripts/bench.sh               only the FIB micro-benchmark, no I/O:
#                                          dpr DIR-24-8, dpr Poptrie and rte_lpm
#                                          (rte_lpm6) on the full tables, random
#                                          and the bench's own destinations
#                                          (tests/bench/fib_bench.c, fib6_bench.c);
#                                          BUILD_DIR/bench/micro.json
#   CALLGRIND=0 scripts/bench.sh           skip instruction counts
#   PREPARE=1 scripts/bench.sh             only traffic, configs and cases
#                                          (for scripts/bench-ab.sh)
#   PERF=1 scripts/bench.sh                also sample the forwarding CPU with
#                                          perf: ns a packet in each app's own
#                                          code and in the rest (PMDs)
#   FAMILIES=4 scripts/bench.sh            IPv4 cases only (6: IPv6 and the
#                                          mix only; default 4,6)
#   ONLY='^dpr |^l3fwd-lpm ' scripts/bench.sh
#                                          measure only the cases whose names
#                                          match (a Python regex)
#   WORKERS=1,2,4,8 scripts/bench.sh       also dpr, l3fwd LPM and testpmd io on
#                                          2, 4, 8 lcores (as many RX queues),
#                                          the small and cached full tables;
#                                          counts this machine cannot hold
#                                          (N workers + 1 CPUs) are skipped
#   SHARED_MAIN=1 WORKERS=1,2 scripts/bench.sh
#                                          also run a count equal to the CPUs,
#                                          dpr's control thread (testpmd's main
#                                          lcore) on the last worker's CPU:
#                                          how 2 workers get measured on 2 CPUs
#   COUNT=4096 scripts/bench.sh            destinations in the small, cached
#                                          and IPv6 traffic (65536): fewer keep
#                                          the full tables' lines in L2
#   DRAM=0 scripts/bench.sh                without the DRAM-bound and Zipf
#                                          full-table regimes (1M packets;
#                                          DRAM_COUNT=N); ZIPF=0: without Zipf
#   DRAM_FEED=pcap scripts/bench.sh        feed those regimes through net_pcap
#                                          like the others (~2.6 GiB of mbufs
#                                          per app, two misses a packet in
#                                          the feed) instead of the array
#                                          feed (tests/bench/feed.c)
#   FEED=array scripts/bench.sh            every regime (small, IPv6, mix and
#                                          testpmd too) fed from the array
#                                          instead of net_pcap
#   PIPELINES=0 scripts/bench.sh           without the cases that force dpr's
#                                          --pipeline on and off in each
#                                          IPv4 regime (to judge the tuner)
#   SLICE=1 scripts/bench.sh               each regime's cases side by side,
#                                          stopped and continued in turn for
#                                          slices of SLICE seconds (A B C,
#                                          C B A...): a loud neighbour then
#                                          falls on every case of a ratio
#                                          alike (scripts/bench.py run_group();
#                                          no PERF; hugepages for them all);
#                                          each slice measured after SETTLE
#                                          seconds back (0.1); the case
#                                          started first ran up to 10 %
#                                          faster DRAM-bound (benchmarks.md)
#   VLAN=0 scripts/bench.sh                without the tagged cases "dpr vlan
#                                          ALGO" and "dpr vlan6 ALGO": the
#                                          small table (IPv4, IPv6) in VRF "red"
#                                          on VLAN 100 of both ports (in.100,
#                                          out.100), every frame tagged 100 in
#                                          and out, the default VRF empty but
#                                          for its connected routes: what a
#                                          tagged VRF packet costs beside
#                                          "dpr small ALGO" and "dpr small6
#                                          ALGO" (dpr only; skipped
#                                          for a dpr without vrfs)
#   ACL=0 scripts/bench.sh                 without the ACL cases: dpr with an
#                                          input ACL of N rules (ACL_RULES,
#                                          default 100,10000; scripts/acl-rules.py,
#                                          ClassBench-like, drawn from the table's
#                                          prefixes, none matching the traffic)
#                                          on each table of ACL_TABLES (default
#                                          small; "small pyasn" adds the cached
#                                          full table), "dpr-aclN TABLE ALGO",
#                                          beside dpdk-l3fwd --lookup=acl given
#                                          the same rules and the routes as "R"
#                                          rules (on pyasn only those the
#                                          traffic uses), "l3fwd-aclN TABLE";
#                                          with the first algorithm of ALGOS
#                                          only; and each list's build time and
#                                          memory (tests/bench/dpr-acl-bench)
#   URPF=0 scripts/bench.sh                without "dpr-urpf pyasn ALGO": the
#                                          cached full table with "urpf":
#                                          "strict" on the input port, beside
#                                          "dpr pyasn ALGO" (first algorithm)
#   BUILD_DIR=build-bench scripts/bench.sh dpr from another Meson build
#                                          directory (set up and built there);
#                                          results in BUILD_DIR/bench
set -euo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
cd "$TOP"
BUILD=${BUILD_DIR:-build}
B=$BUILD/bench
ROUNDS=${ROUNDS:-3} DURATION=${DURATION:-8} WARMUP=${WARMUP:-2} CALLGRIND=${CALLGRIND:-1}
THROUGHPUT=${THROUGHPUT:-1}   # 0: keep the last throughput.json, redo callgrind only
FAMILIES=${FAMILIES:-4,6}
case ,$FAMILIES, in *,4,*|*,6,*) ;; *) echo "bench: FAMILIES must list 4, 6 or both" >&2; exit 2 ;; esac
COUNT=${COUNT:-65536}
# The full IPv4 table in two regimes: "cached", COUNT destinations whose
# tbl24 lines fit in the L3 cache, and "DRAM-bound", DRAM_COUNT of them
# spread over the address space the table covers, far past it
# (bench-report.py says how far).
DRAM=${DRAM:-1} DRAM_COUNT=${DRAM_COUNT:-1048576}
# A third full-table regime, "Zipf": DRAM_COUNT packets whose destinations are
# drawn from a universe of DRAM_COUNT by a Zipf popularity (s = ZIPF_S): a
# few destinations take most of the packets, the rest a long tail.
ZIPF=${ZIPF:-$DRAM} ZIPF_S=${ZIPF_S:-1.0}
[ "$DRAM" = 1 ] || ZIPF=0
# How those two regimes' packets reach the applications: "array", a net_null
# port into which a preloaded library (tests/bench/feed.c) writes the pcap's
# frames from one contiguous array, streamed by the hardware prefetchers; or
# "pcap", net_pcap's infinite_rx as in the other regimes, whose copy from one
# stored mbuf a packet misses twice a packet over 1M packets and then costs
# more than the routers' lookups.
DRAM_FEED=${DRAM_FEED:-array}
# FEED=array: every single-worker case fed from the array (the scaling cases
# stay on net_pcap, a queue a worker).
FEED=${FEED:-}
case $FEED in ""|array|pcap) ;; *) echo "bench: FEED must be array or pcap" >&2; exit 2 ;; esac
[ "$FEED" = pcap ] && DRAM_FEED=pcap
case $DRAM_FEED in array|pcap) ;; *) echo "bench: DRAM_FEED must be array or pcap" >&2; exit 2 ;; esac
PIPELINES=${PIPELINES:-1}
VLAN=${VLAN:-1}
ACL=${ACL:-1} ACL_RULES=${ACL_RULES:-100,10000} ACL_TABLES=${ACL_TABLES:-small}
URPF=${URPF:-1}
for t in $ACL_TABLES; do
	case $t in small|pyasn) ;; *) echo "bench: ACL_TABLES: \"$t\" is not small or pyasn" >&2; exit 2 ;; esac
done
case ,$FAMILIES, in *,4,*) ;; *) ACL=0 URPF=0 ;; esac
# Worker counts beyond 1 that this machine can hold: N workers and the
# control thread (or testpmd's main lcore) each on a CPU of their own; with
# SHARED_MAIN=1 also N workers on N CPUs, the control thread on the last
# worker's CPU (it sleeps in epoll, waking every millisecond): passed on as
# "Ns".
WORKERS_RUN=
for w in $(echo "${WORKERS:-1}" | tr ',' ' '); do
	[ "$w" -gt 1 ] 2>/dev/null || continue
	if [ $((w + 1)) -le "$(nproc)" ]; then
		WORKERS_RUN="$WORKERS_RUN $w"
	elif [ "${SHARED_MAIN:-0}" = 1 ] && [ "$w" -le "$(nproc)" ]; then
		WORKERS_RUN="$WORKERS_RUN ${w}s"
	else
		echo "bench: skipping $w workers: they need $((w + 1)) CPUs (one each and one for the control thread), this machine has $(nproc)$([ "$w" -le "$(nproc)" ] && echo "; SHARED_MAIN=1 runs them with the control thread on a worker's CPU")" >&2
	fi
done
if [ "${1:-}" = "--quick" ] || [ "${QUICK:-0}" = 1 ]; then
	ROUNDS=1 DURATION=2 WARMUP=1 COUNT=8192 DRAM=0 ZIPF=0 PIPELINES=0 ACL_RULES=100
fi
say() { printf 'bench: %s\n' "$*" >&2; }
ALGOS=${ALGOS:-dir-24-8,poptrie}
for a in ${ALGOS//,/ }; do
	case $a in dir-24-8|poptrie) ;;
	*) echo "bench: ALGOS: \"$a\" is not a FIB algorithm (dir-24-8, poptrie)" >&2; exit 2 ;;
	esac
done
BALLAST=${BALLAST:-256}
[ "$BALLAST" -ge 0 ] 2>/dev/null || { echo "bench: BALLAST must be a number of hugepages" >&2; exit 2; }
MICRO=${MICRO:-0}

# Fed through net_pcap (DRAM_FEED=pcap), the DRAM-bound cases hold
# DRAM_COUNT packets in mbufs of ~2.4 KiB (net_pcap infinite_rx stores one a
# packet): 2.6 GiB for 1M, one app at a time, and 3 GiB more for the apps'
# tables (l3fwd FIB makes IPv6 tables too) and others.
HUGE=1024
[ "$DRAM" = 1 ] && [ "$DRAM_FEED" = pcap ] && HUGE=$(( (DRAM_COUNT + 65536) * 2432 / 2097152 + 1536 ))
[ "$HUGE" -lt 1024 ] && HUGE=1024
# SLICE: up to seven applications alive at once (the small table's).
[ "${SLICE:-0}" != 0 ] && HUGE=$((HUGE * 4))
# The ballast's pages come on top: the cases keep what they had.
HUGEPAGES=$((HUGE + BALLAST)) scripts/setup.sh >&2
[ "$MICRO" = 1 ] || dpkg-query -W -f='${Status}' python3-matplotlib 2>/dev/null | grep -q "install ok" ||
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q python3-matplotlib >/dev/null
[ -f "$BUILD/build.ninja" ] || meson setup "$BUILD" >/dev/null
ninja -C "$BUILD" >/dev/null
mkdir -p $B

# Whether this dpr has the FIB algorithm setting (issue 46). One without it
# (an older BUILD_DIR) runs DIR-24-8 only, from configs that do not name it.
ALGO_KEY=1
printf '{"ports": [{"name": "p0", "device": "net_null0", "tap": false}], "fib": %s}\n' \
	'{"ipv4_algorithm": "poptrie", "ipv6_algorithm": "poptrie"}' > "$B/algo-check.json"
if [ "$MICRO" != 1 ] && ! "$BUILD/app/dpr" -- -c "$B/algo-check.json" --check >/dev/null 2>&1; then
	ALGO_KEY=0
	case ,$ALGOS, in *,dir-24-8,*) ALGOS=dir-24-8 ;; *) ALGOS= ;; esac
	say "$BUILD/app/dpr has no fib.ipv4_algorithm setting (dpr --check $B/algo-check.json): dpr runs DIR-24-8 only${ALGOS:+, its configs without the setting}"
	[ -n "$ALGOS" ] || { say "ALGOS names no algorithm this dpr has"; exit 2; }
fi

# Whether this dpr has VRFs and VLAN interfaces (issue 47): the "vlan" case.
if [ "$VLAN" = 1 ] && [ "$MICRO" != 1 ]; then
	printf '{"ports": [{"name": "p0", "device": "net_null0", "tap": false}], %s}\n' \
		'"vrfs": [{"name": "red", "table": 100}], "vlans": [{"name": "p0.100", "port": "p0", "id": 100, "vrf": "red", "tap": false}]' \
		> "$B/vlan-check.json"
	if ! "$BUILD/app/dpr" -- -c "$B/vlan-check.json" --check >/dev/null 2>&1; then
		VLAN=0
		say "$BUILD/app/dpr has no vrfs or vlans (dpr --check $B/vlan-check.json): no vlan case"
	fi
fi

# Whether this dpr has ACLs and uRPF (issue 52): the ACL and uRPF cases.
if [ "$ACL" = 1 ] || [ "$URPF" = 1 ]; then
	printf '{"ports": [{"name": "p0", "device": "net_null0", "tap": false, "urpf": "strict", "acl_in": "a"}], %s}\n' \
		'"acls": [{"name": "a", "rules": [{"action": "deny", "proto": "tcp", "dst_port": 22}]}]' \
		> "$B/acl-check.json"
	if [ "$MICRO" != 1 ] && ! "$BUILD/app/dpr" -- -c "$B/acl-check.json" --check >/dev/null 2>&1; then
		ACL=0 URPF=0
		say "$BUILD/app/dpr has no acls or urpf (dpr --check $B/acl-check.json): no ACL or uRPF case"
	fi
fi

# Traffic: TABLE-vFAMILY.pcap and its route files (make-pcap.py). The IPv4
# files are always made: the IPv6 cases give l3fwd the small IPv4 rules
# (it reads rule files only in pairs). Remade when the packet count or the
# generators change.
gen=$( (cat scripts/make-pcap.py scripts/pyasn-routes.py scripts/pyasn6-routes.py; echo "$ZIPF_S") |
	sha256sum | cut -c1-16)
TRAFFIC="small:4 pyasn:4"
[ "$VLAN" = 1 ] && case ,$FAMILIES, in *,4,*) TRAFFIC="$TRAFFIC small:4:vlan" ;; esac
case ,$FAMILIES, in *,6,*) TRAFFIC="$TRAFFIC small:6 pyasn:6 pyasn:46" ;; esac
[ "$VLAN" = 1 ] && case ,$FAMILIES, in *,6,*) TRAFFIC="$TRAFFIC small:6:vlan" ;; esac
[ "$DRAM" = 1 ] && case ,$FAMILIES, in *,4,*) TRAFFIC="$TRAFFIC pyasn:4:dram" ;; esac
[ "$ZIPF" = 1 ] && case ,$FAMILIES, in *,4,*) TRAFFIC="$TRAFFIC pyasn:4:zipf" ;; esac
# MICRO: the full tables' destinations only (IPv4 cached and DRAM-bound, IPv6).
if [ "$MICRO" = 1 ]; then
	TRAFFIC="pyasn:4 pyasn:6"
	[ "$DRAM" = 1 ] && TRAFFIC="$TRAFFIC pyasn:4:dram"
fi
for tf in $TRAFFIC; do
	IFS=: read -r t f regime <<<"$tf"
	n=$COUNT stem=$t-v$f spread=prefix
	[ "${regime:-}" = dram ] && n=$DRAM_COUNT stem=$t-dram-v$f spread=address
	[ "${regime:-}" = zipf ] && n=$DRAM_COUNT stem=$t-zipf-v$f spread=zipf
	vlan=0
	[ "${regime:-}" = vlan ] && stem=$t-vlan-v$f vlan=100
	[ -f "$B/$stem.pcap" ] && [ "$(cat "$B/$stem.count" 2>/dev/null)" = "$n $gen" ] && continue
	say "traffic: $n IPv${f/46/4+IPv6} packets to the $t table's prefixes (spread by $spread)${regime:+, $regime}"
	scripts/make-pcap.py --table $t --family $f --count $n --l3fwd-ports 1 --spread $spread \
		--zipf-s "$ZIPF_S" --vlan $vlan \
		--out "$B/$stem.pcap" >&2
	echo "$n $gen" > "$B/$stem.count"
done

# The micro-benchmark: the same full tables and destinations as the cases,
# looked up with no I/O (bench_fib.h says how); its goals are printed, they
# never fail the script.
if [ "$MICRO" = 1 ]; then
	EAL=(--no-pci --in-memory -l 0 --log-level '*:warning' --file-prefix "micro$$")
	keys=(-k "cached=$B/pyasn-v4.pcap")
	[ "$DRAM" = 1 ] && keys+=(-k "dram=$B/pyasn-dram-v4.pcap")
	say "micro: IPv4, $(wc -l < "$B/pyasn-v4.dprctl.routes") routes (rte_lpm takes a minute or two to load them)"
	"$BUILD/tests/bench/dpr-fib-bench" "${EAL[@]}" -- "$B/pyasn-v4.dprctl.routes" \
		"${keys[@]}" -r "${MICRO_ROUNDS:-$((ROUNDS + 2))}" > "$B/micro-v4.json"
	say "micro: IPv6, $(grep -c : "$B/pyasn-v6.dprctl.routes") routes"
	"$BUILD/tests/bench/dpr-fib6-bench" "${EAL[@]}" -- "$B/pyasn-v6.dprctl.routes" \
		-k "cached=$B/pyasn-v6.pcap" -r "${MICRO_ROUNDS:-$((ROUNDS + 2))}" > "$B/micro-v6.json"
	rm -rf "/var/run/dpdk/micro$$"
	exec python3 scripts/bench-report.py --micro "$B"
fi
L3FWD=$(scripts/build-l3fwd.sh "$B/l3fwd-src" | tail -1)
POOL=$((COUNT + 32768)) POOL_DRAM=$((DRAM_COUNT + 32768))
# The ACL cases' rules: acl-TABLE-N.json (dpr's "acls" entry) and
# acl-TABLE-N.l3fwd (the same rules as l3fwd "@" lines, then the routes as
# "R" lines), from the table's own prefixes (its .dprctl.routes), so that
# the traffic's destinations fall in the rules' prefixes and the classifier
# has to look at the rest; remade when the generator or the traffic change.
# l3fwd's ACL mode needs an IPv6 file with a route too: acl-v6.l3fwd. Then
# each list's build time and memory in dpr (dpr-acl-bench, 3 builds).
if [ "$ACL" = 1 ]; then
	printf 'R0:0:0:0:0:0:0:0/0\t2001:200:0:0:0:0:0:0/48\t0 : 65535\t0 : 65535\t0/0x0\t1\n' > "$B/acl-v6.l3fwd"
	agen=$( (cat scripts/acl-rules.py; cat "$B"/small-v4.count "$B"/pyasn-v4.count) | sha256sum | cut -c1-16)
	for t in $ACL_TABLES; do
		for n in ${ACL_RULES//,/ }; do
			f=$B/acl-$t-$n
			if ! [ -f "$f.l3fwd" ] || [ "$(cat "$f.gen" 2>/dev/null)" != "$agen" ]; then
				say "ACL: $n rules from the $t table's prefixes ($f.json, $f.l3fwd)"
				used=()
				[ "$t" = pyasn ] && used=(--used-by "$B/pyasn-v4.pcap")
				scripts/acl-rules.py --routes "$B/$t-v4.dprctl.routes" --count "$n" \
					--name "bench$n" --json "$f.json" --l3fwd "$f.l3fwd" \
					--l3fwd-routes "$B/$t-v4.l3fwd.routes" "${used[@]}"
				echo "$agen" > "$f.gen"
			fi
			"$BUILD/tests/bench/dpr-acl-bench" --no-pci --no-huge -m 2048 -l 0 \
				--log-level '*:error' --file-prefix "aclb$$" -- "$f.json" 3 > "$B/acl-build-$t-$n.json" ||
				say "ACL: dpr-acl-bench $f.json failed"
		done
	done
fi
# What each regime's destinations touch of a DIR-24-8 table (4-byte tbl24
# entries, 16 a cache line: dpr's and rte_lpm's), against this L3: all the
# lines, and the hottest of them that take 90 % of the packets.
python3 - "$B" $([ "$DRAM" = 1 ] && echo pyasn-dram-v4) $([ "$ZIPF" = 1 ] && echo pyasn-zipf-v4) \
	pyasn-v4 <<'PY' > "$B/regimes.json"
import collections, json, struct, sys
B, stems = sys.argv[1], sys.argv[2:]
out = {}
for stem in stems:
    try:
        data = open("%s/%s.pcap" % (B, stem), "rb").read()
    except OSError:
        continue
    off, dsts, per_line = 24, set(), collections.Counter()
    while off + 16 <= len(data):
        caplen = struct.unpack_from("<I", data, off + 8)[0]
        pkt = data[off + 16:off + 16 + caplen]
        if len(pkt) >= 34 and pkt[12:14] == b"\x08\x00":
            d = struct.unpack_from("!I", pkt, 30)[0]
            dsts.add(d)
            per_line[d >> 12] += 1
        off += 16 + caplen
    total, hot, n90 = sum(per_line.values()), 0, 0
    for _, c in per_line.most_common():
        if hot >= 0.9 * total:
            break
        hot += c
        n90 += 1
    out[stem] = {"destinations": len(dsts), "tbl24_lines": len(per_line),
                 "tbl24_mib": len(per_line) * 64 / 2 ** 20,
                 "hot90_mib": n90 * 64 / 2 ** 20}
try:
    size = open("/sys/devices/system/cpu/cpu0/cache/index3/size").read().strip()
    out["l3_mib"] = int(size[:-1]) / (1024 if size.endswith("K") else 1) if size[-1] in "KM" else None
except OSError:
    out["l3_mib"] = None
print(json.dumps(out))
PY

# dpr configs and the cases, for scripts/bench.py; @PREFIX@ becomes a unique
# --file-prefix, @CASE@ the case's name. dpr takes its routes from the config
# file: installed before the ports start, so no packet is measured against a
# half-loaded table. One config a table and FIB algorithm, dpr-TABLE-ALGO.json
# (dpr-TABLE-wN-ALGO.json for N workers).
ACL=$ACL ACL_RULES=$ACL_RULES ACL_TABLES=$ACL_TABLES URPF=$URPF \
ALGOS=$ALGOS ALGO_KEY=$ALGO_KEY VLAN=$VLAN ZIPF=$ZIPF PIPELINES=$PIPELINES DRAM_FEED=$DRAM_FEED FEED=$FEED FEED_LIB=$(readlink -f "$BUILD/tests/bench/libdpr-bench-feed.so") \
python3 - "$B" "$BUILD/app/dpr" "$L3FWD" "$POOL" "$FAMILIES" "$POOL_DRAM" "$DRAM" "$COUNT" $WORKERS_RUN <<'PY'
import hashlib, json, os, sys
B, dpr, l3fwd, pool, families, pool_dram, dram, count = sys.argv[1:9]
# "Ns": N workers on N CPUs, the main lcore sharing the last one's
# (SHARED_MAIN=1); "N": a CPU each and one for the main lcore.
scale = [int(w.rstrip("s")) for w in sys.argv[9:]]
shared = {int(w.rstrip("s")) for w in sys.argv[9:] if w.endswith("s")}


def lcores(first, w):
    """EAL lcore options for lcores first..w, the forwarding ones 1..w: one
    CPU each (-l), or for a shared count lcore k on CPU k % w, so that the
    main lcore 0 and lcore w share CPU 0."""
    if w not in shared:
        return ["-l", "%d-%d" % (first, w)]
    return ["--lcores", ",".join("%d@%d" % (k, k % w) for k in range(first, w + 1))]
families = families.split(",")
# table: (traffic stem, family); the IPv6 tables' names end in 6. "dram" is
# the full IPv4 table with 1M destinations (the DRAM-bound regime).
TABLES = {"small": ("small-v4", "4"), "pyasn": ("pyasn-v4", "4"),
          "small6": ("small-v6", "6"), "pyasn6": ("pyasn-v6", "6"), "mix": ("pyasn-v46", "46")}
if dram == "1":
    TABLES["dram"] = ("pyasn-dram-v4", "4")
if os.environ.get("ZIPF") == "1":
    TABLES["zipf"] = ("pyasn-zipf-v4", "4")
# "vlan", "vlan6": the small tables' traffic tagged 100, routed in VRF "red"
# (dpr only).
VLAN_TABLES = ("vlan", "vlan6")
if os.environ.get("VLAN") == "1":
    TABLES["vlan"] = ("small-vlan-v4", "4")
    TABLES["vlan6"] = ("small-vlan-v6", "6")
tables = [t for t, (_, f) in TABLES.items() if f == "4" and "4" in families or
          f != "4" and "6" in families]
# The regimes fed from the array (tests/bench/feed.c): their RX port is
# net_null_feed0 and every application runs with the library preloaded.
FEED = {"dram", "zipf"} if os.environ.get("DRAM_FEED") == "array" else set()
if os.environ.get("FEED") == "array":
    FEED = set(TABLES) | {"none"}
    TABLES["none"] = ("small-v4", "4")   # testpmd's traffic
POOLS = {t: pool_dram if t in ("dram", "zipf") and t not in FEED else pool for t in TABLES}


def feed_env(t):
    if t not in FEED:
        return {}
    return {"LD_PRELOAD": os.environ["FEED_LIB"], "DPR_FEED_DEVICE": "net_null_feed0",
            "DPR_FEED_PCAP": os.path.abspath("%s/%s.pcap" % (B, TABLES[t][0]))}


ALGOS = os.environ["ALGOS"].split(",")
ROUTES = {}


def routes(t):
    if t not in ROUTES:
        ROUTES[t] = [l.split() for l in open("%s/%s.dprctl.routes" % (B, TABLES[t][0]))
                     if l.strip()]
    return ROUTES[t]


def config_path(t, algo, workers=1, variant=None):
    return "%s/dpr-%s%s%s-%s.json" % (B, t, "-" + variant if variant else "",
                                      "-w%d" % workers if workers > 1 else "", algo)


# The ACL and uRPF cases (ACL, URPF): ACL_RULES lists on the ACL_TABLES,
# strict uRPF on the cached full table; with the first algorithm only (the
# FIB algorithm does not touch either).
ACL_RULES = os.environ["ACL_RULES"].split(",") if os.environ.get("ACL") == "1" else []
ACL_TABLES = os.environ.get("ACL_TABLES", "").split()
URPF = os.environ.get("URPF") == "1"
# What rte_acl's AVX-512 methods need of the CPU (its acl_check_alg_x86()).
with open("/proc/cpuinfo") as f:
    FLAGS = next((l.split(":", 1)[1].split() for l in f if l.startswith("flags")), [])
AVX512 = all(x in FLAGS for x in ("avx512f", "avx512vl", "avx512cd", "avx512bw"))


def dpr_config(t, algo, workers=1, variant=None):
    """Write dpr's config for table @t with FIB algorithm @algo; the number
    of its routes. @variant: "aclN", the input port with the N-rule ACL
    acl-TABLE-N.json bound in (acl_in); "urpf", with "urpf": "strict"."""
    feed = t in FEED and workers == 1
    stem, fam = TABLES[t]
    rs = routes(t)
    gws4 = sorted({r[2] for r in rs if ":" not in r[2]})
    gws6 = sorted({r[2] for r in rs if ":" in r[2]})
    cfg = {
        "ports": [
            # One RX queue a worker (each replays the file), one TX queue
            # a worker and one for the control thread.
            {"name": "in", "device": "net_null_feed0" if feed else
                "net_pcap0,%sinfinite_rx=1,%s" % (
                "rx_pcap=%s/%s.pcap," % (B, stem) * workers,
                ",".join(["tx_pcap=/dev/null"] * (workers + 1))),
             "addresses": ["10.0.1.1/24"], "tap": False},
            {"name": "out", "device": "net_null0,no-rx=1", "addresses": ["10.0.2.1/24"], "tap": False},
        ],
        "neighbors": [{"address": g, "mac": "02:00:00:00:02:%02x" % (i + 2)} for i, g in enumerate(gws4)],
        "routes": [{"prefix": r[0], "via": r[2]} for r in rs],
        # One socket a table and results folder: bench runs of other build
        # folders (other people's, on a shared machine) do not collide.
        "control": {"socket": "/run/dpr/bench-%s-%s-%s.sock" % (
            hashlib.sha256(os.path.abspath(B).encode()).hexdigest()[:8], t, algo)},
        "fib": {"ipv4_max_routes": 1048576, "ipv4_tbl8_groups": 16384},
    }
    # A dpr from before the algorithm setting (ALGO_KEY=0) has DIR-24-8 only.
    if os.environ["ALGO_KEY"] == "1":
        cfg["fib"].update({"ipv4_algorithm": algo, "ipv6_algorithm": algo})
    if feed:
        # The frames are addressed to net_pcap0's MAC (make-pcap.py).
        cfg["ports"][0]["mac"] = "02:70:63:61:70:00"
    if fam != "4":
        cfg["ports"][0]["addresses"].append("2001:db8:1::1/64")
        cfg["ports"][1]["addresses"].append("2001:db8:2::1/64")
        cfg["neighbors"] += [{"address": g, "mac": "02:00:00:00:06:%02x" % (i + 2)}
                             for i, g in enumerate(gws6)]
        # The pyasn IPv6 table needs about 12.4k tbl8 groups.
        cfg["fib"].update({"ipv6_max_routes": 524288, "ipv6_tbl8_groups": 65536})
    if t in VLAN_TABLES:
        # Both ports' addresses, the routes and the gateways move to VRF
        # "red" on VLAN 100 of each port; the ports keep other subnets in
        # the default VRF, untagged and unused.
        cfg["vrfs"] = [{"name": "red", "table": 100, "fib": dict(cfg["fib"])}]
        cfg["vlans"] = [dict(name=p["name"] + ".100", port=p["name"], id=100, vrf="red",
                             addresses=p["addresses"], tap=False) for p in cfg["ports"]]
        for i, p in enumerate(cfg["ports"]):
            p["addresses"] = ["10.0.%d.1/24" % (101 + i)]
        for r in cfg["routes"]:
            r["vrf"] = "red"
        for n in cfg["neighbors"]:
            n.update(vrf="red", port="out.100")
        cfg["fib"] = {"ipv4_max_routes": 1024, "ipv4_tbl8_groups": 64}
        if fam != "4":
            cfg["fib"].update({"ipv6_max_routes": 1024, "ipv6_tbl8_groups": 64})
        if os.environ["ALGO_KEY"] == "1":
            cfg["fib"].update({"ipv4_algorithm": algo, "ipv6_algorithm": algo})
            cfg["vrfs"][0]["fib"].update({"ipv4_algorithm": algo, "ipv6_algorithm": algo})
    if variant and variant.startswith("acl"):
        acl = json.load(open("%s/acl-%s-%s.json" % (B, t, variant[3:])))
        cfg["acls"] = [acl]
        cfg["ports"][0]["acl_in"] = acl["name"]
    elif variant == "urpf":
        cfg["ports"][0]["urpf"] = "strict"
    if variant:
        cfg["control"]["socket"] = cfg["control"]["socket"].replace(".sock", "-%s.sock" % variant)
    json.dump(cfg, open(config_path(t, algo, workers, variant), "w"))
    return len(rs)


eal = ["--no-pci", "--in-memory", "--file-prefix", "@PREFIX@", "--log-level", "*:warning"]
def vdevs(stem, t=None):
    if t in FEED:
        return ["--vdev", "net_null_feed0", "--vdev", "net_null0,no-rx=1"]
    return ["--vdev", "net_pcap0,rx_pcap=%s/%s.pcap,infinite_rx=1" % (B, stem),
            "--vdev", "net_null0,no-rx=1"]


def l3fwd_rules(t):
    """--rule_ipv4 and --rule_ipv6 (l3fwd reads them only as a pair)."""
    stem, fam = TABLES[t]
    v4 = "%s/%s.l3fwd.routes" % (B, stem if "4" in fam else "small-v4")
    v6 = "%s/%s.l3fwd6.routes" % (B, stem) if "6" in fam else "%s/l3fwd-src/lpm_default_v6.cfg" % B
    return ["--rule_ipv4", v4, "--rule_ipv6", v6]


cases = []
for t in tables:
    stem, fam = TABLES[t]
    common = {"table": t, "family": fam, "ports": [1], "rx_ports": [0],
              "feed": "array" if t in FEED else "pcap"}
    if t in FEED:
        common["env"] = feed_env(t)
    # dpr once per FIB algorithm, "dpr TABLE ALGO"; and in each IPv4
    # regime the tuner's choice (--pipeline auto) against both ways forced,
    # "dpr-on TABLE ALGO" and "dpr-off TABLE ALGO".
    ways = [None] + (["on", "off"] if os.environ.get("PIPELINES") == "1" and fam == "4" and
                     t not in VLAN_TABLES else [])
    for algo in ALGOS:
        common["routes"] = dpr_config(t, algo)
        for way in ways:
            cases.append(dict(common, name="dpr%s %s %s" % ("-" + way if way else "", t, algo),
                              app="dpr", algorithm=algo, **({"pipeline": way} if way else {}),
                              argv=[dpr] + eal + ["-l", "0,1", "--", "-c", config_path(t, algo),
                                                  "--pool-size", POOLS[t]] +
                                   (["--pipeline", way] if way else []) +
                                   ["--stats-file", "%s/stats-@CASE@.json" % B]))
    # l3fwd FIB on the IPv4 tables; its IPv6 side is not asked for. l3fwd
    # routes no tagged frame: dpr alone on "vlan".
    for m in ("lpm", "fib") if fam == "4" and t not in VLAN_TABLES else \
            ("lpm",) if t not in VLAN_TABLES else ():
        cases.append(dict(common, name="l3fwd-%s %s" % (m, t), app="l3fwd-" + m,
                          env=dict(feed_env(t), L3FWD_NB_MBUF=POOLS[t]),
                          argv=[l3fwd] + eal + ["-l", "1"] + vdevs(stem, t) +
                               ["--", "-p", "0x3", "--config", "(0,0,1),(1,0,1)", "--lookup", m,
                                "--parse-ptype"] + l3fwd_rules(t)))
    # ACLs: dpr with its N-rule input ACL, "dpr-aclN TABLE ALGO", beside
    # l3fwd's ACL mode given the same rules and the table's routes (on the
    # full table, the routes the traffic uses) as ACL rules, "l3fwd-aclN
    # TABLE". Strict uRPF on the cached full table, "dpr-urpf pyasn ALGO".
    variants = ["acl" + n for n in ACL_RULES] if t in ACL_TABLES else []
    variants += ["urpf"] if URPF and t == "pyasn" else []
    for v in variants:
        algo = ALGOS[0]
        common["routes"] = dpr_config(t, algo, variant=v)
        cases.append(dict(common, name="dpr-%s %s %s" % (v, t, algo), app="dpr", algorithm=algo,
                          variant=v,
                          argv=[dpr] + eal + ["-l", "0,1", "--", "-c",
                                              config_path(t, algo, variant=v),
                                              "--pool-size", POOLS[t],
                                              "--stats-file", "%s/stats-@CASE@.json" % B]))
        if v.startswith("acl"):
            rules = "%s/acl-%s-%s.l3fwd" % (B, t, v[3:])
            cases.append(dict(common, name="l3fwd-%s %s" % (v, t), app="l3fwd-acl", variant=v,
                              routes=sum(1 for l in open(rules) if l.startswith("R")),
                              env=dict(feed_env(t), L3FWD_NB_MBUF=POOLS[t]),
                              argv=[l3fwd] + eal + ["-l", "1"] + vdevs(stem, t) +
                                   ["--", "-p", "0x3", "--config", "(0,0,1),(1,0,1)",
                                    "--lookup", "acl", "--parse-ptype",
                                    "--rule_ipv4", rules,
                                    "--rule_ipv6", "%s/acl-v6.l3fwd" % B]))
            # dpr's ACLs classify with the widest SIMD the CPU has
            # (lib/acl: AVX-512's 32 lanes where it has AVX-512), l3fwd
            # with EAL's default cap (256 bits: 16 lanes): l3fwd given
            # the 32 lanes too, to compare the method alike.
            if AVX512:
                x = cases[-1]
                argv = list(x["argv"])
                argv.insert(argv.index("--"), "--force-max-simd-bitwidth=512")
                cases.append(dict(x, name="l3fwd-%s-x32 %s" % (v, t), app="l3fwd-acl-x32",
                                  argv=argv + ["--alg", "avx512x32"]))
if "4" in families:
    for m in ("io", "mac"):
        cases.append({"name": "testpmd-%s" % m, "app": "testpmd-" + m, "table": "none",
                      "family": "4", "routes": 0, "ports": [1], "rx_ports": [0],
                      "feed": "array" if "none" in FEED else "pcap", "env": feed_env("none"),
                      "argv": ["dpdk-testpmd"] + eal + ["-l", "0,1"] + vdevs("small-v4", "none") +
                              ["--", "--forward-mode=" + m, "--auto-start", "--stats-period", "3600",
                               "--total-num-mbufs", pool, "--nb-cores", "1"]})
    # The I/O ceiling on the DRAM-bound traffic, through the same feed
    # (with net_pcap, a pool as large as the routers': it fills it at start).
    if dram == "1":
        cases.append({"name": "testpmd-io dram", "app": "testpmd-io", "table": "dram",
                      "family": "4", "routes": 0, "ports": [1], "rx_ports": [0],
                      "feed": "array" if "dram" in FEED else "pcap", "env": feed_env("dram"),
                      "argv": ["dpdk-testpmd"] + eal + ["-l", "0,1"] +
                              vdevs(TABLES["dram"][0], "dram") +
                              ["--", "--forward-mode=io", "--auto-start", "--stats-period", "3600",
                               "--total-num-mbufs", POOLS["dram"], "--nb-cores", "1"]})
# Scaling: as many RX queues as workers, each replaying the file (so the
# pool holds the file once a queue); the case names end in " wN".
for w in scale:
    wpool = str(int(count) * w + 32768)
    for t in [t for t in ("small", "pyasn") if t in tables]:
        stem, _ = TABLES[t]
        common = {"table": t, "family": "4", "ports": [1], "rx_ports": [0],
                  "workers": w, "shared_main": w in shared}
        for algo in ALGOS:
            common["routes"] = dpr_config(t, algo, w)
            cases.append(dict(common, name="dpr %s %s w%d" % (t, algo, w), app="dpr",
                              algorithm=algo,
                              argv=[dpr] + eal + lcores(0, w) +
                                   ["--", "-c", config_path(t, algo, w), "--pool-size", wpool,
                                    "--stats-file", "%s/stats-@CASE@.json" % B]))
        rx = ",".join(["rx_pcap=%s/%s.pcap" % (B, stem)] * w)
        cfgs = ",".join("(0,%d,%d),(1,%d,%d)" % (q, q + 1, q, q + 1) for q in range(w))
        cases.append(dict(common, name="l3fwd-lpm %s w%d" % (t, w), app="l3fwd-lpm",
                          env={"L3FWD_NB_MBUF": wpool},
                          argv=[l3fwd] + eal + lcores(1, w) + ["--vdev",
                                                "net_pcap0,%s,infinite_rx=1" % rx,
                                                "--vdev", "net_null0,no-rx=1",
                                                "--", "-p", "0x3", "--config", cfgs, "--lookup", "lpm",
                                                "--parse-ptype"] + l3fwd_rules(t)))
    rx = ",".join(["rx_pcap=%s/small-v4.pcap" % B] * w)
    cases.append({"name": "testpmd-io w%d" % w, "app": "testpmd-io", "table": "none",
                  "family": "4", "routes": 0, "ports": [1], "rx_ports": [0], "workers": w,
                  "shared_main": w in shared,
                  "argv": ["dpdk-testpmd"] + eal + lcores(0, w) + ["--vdev", "net_pcap0,%s,infinite_rx=1" % rx,
                                                    "--vdev", "net_null0,no-rx=1",
                          "--", "--forward-mode=io", "--auto-start", "--stats-period", "3600",
                          "--total-num-mbufs", wpool, "--nb-cores", str(w),
                          "--rxq", str(w), "--txq", str(w)]})
json.dump({"cases": cases}, open("%s/cases.json" % B, "w"), indent=1)
PY

# PERF=1 needs perf; installed here, before PREPARE returns, for bench-ab.sh too.
if [ "${PERF:-0}" = 1 ] && ! command -v perf >/dev/null; then
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q linux-perf >/dev/null
fi
[ "${PREPARE:-0}" = 1 ] && { say "prepared: $B/cases.json"; exit 0; }

# ONLY: the cases to measure, by name (cases.json keeps them all, for
# callgrind and scripts/bench-ab.sh).
NCASES=$(python3 - "$B/cases.json" "$B/run-cases.json" "${ONLY:-}" <<'PY'
import json, re, sys
src, out, only = sys.argv[1:]
cases = [c for c in json.load(open(src))["cases"] if re.search(only, c["name"])]
json.dump({"cases": cases}, open(out, "w"), indent=1)
print(len(cases))
PY
)
[ "$NCASES" -gt 0 ] || { say "ONLY='${ONLY:-}' matches no case"; exit 2; }
[ "$THROUGHPUT" = 1 ] && say "measuring: $ROUNDS rounds x $NCASES cases x ${DURATION} s"
PERF_ARG=()
[ "${PERF:-0}" = 1 ] && PERF_ARG=(--perf)
# The L3 each round had, by pointer chase (tests/bench/mem_probe.c).
[ -x "$BUILD/tests/bench/dpr-mem-probe" ] && PERF_ARG+=(--probe "$BUILD/tests/bench/dpr-mem-probe")
[ "${SLICE:-0}" != 0 ] && PERF_ARG+=(--slice "$SLICE" --settle "${SETTLE:-0.1}")
# The ballast leaves the cases the HUGE pages reserved for them.
[ "$BALLAST" -gt 0 ] && PERF_ARG+=(--ballast "$BALLAST" --ballast-leave "$HUGE")
[ "$THROUGHPUT" = 1 ] && scripts/bench.py --cases "$B/run-cases.json" --rounds "$ROUNDS" \
	--duration "$DURATION" --warmup "$WARMUP" "${PERF_ARG[@]}" > "$B/throughput.json"

# Instructions per packet: two bounded runs under callgrind, the difference
# divided by the packets between them (start-up cancels out). Only the
# forwarding loop is counted (--toggle-collect): dpr's control thread and
# l3fwd's set-up run for time, not per packet.
if [ "$CALLGRIND" = 1 ]; then
	CG_DPR="" CG_L3FWD=""
	case ,$FAMILIES, in *,4,*) CG_DPR="small pyasn" CG_L3FWD="lpm:small fib:small fib:pyasn" ;; esac
	[ "$VLAN" = 1 ] && case ,$FAMILIES, in *,4,*) CG_DPR="$CG_DPR vlan" ;; esac
	case ,$FAMILIES, in *,6,*) CG_DPR="$CG_DPR small6" CG_L3FWD="$CG_L3FWD lpm:small6" ;; esac
	[ "$VLAN" = 1 ] && case ,$FAMILIES, in *,6,*) CG_DPR="$CG_DPR vlan6" ;; esac
	# The ACL and uRPF configs (dpr-TABLE-VARIANT-ALGO.json), first algorithm.
	CG_VAR=""
	if [ "$ACL" = 1 ]; then
		for t in $ACL_TABLES; do
			for n in ${ACL_RULES//,/ }; do
				CG_VAR="$CG_VAR $t-acl$n" CG_L3FWD="$CG_L3FWD acl$n:$t"
			done
		done
	fi
	[ "$URPF" = 1 ] && CG_VAR="$CG_VAR pyasn-urpf"
	for a in ${ALGOS//,/ }; do
		say "callgrind: instructions per packet (dpr $a: $CG_DPR${CG_VAR:+ $CG_VAR})"
		ALGO=$a BENCH_DIR=$B scripts/callgrind-dpr.sh "$BUILD/app/dpr" "$B/callgrind-$a" "$POOL" \
			$CG_DPR $CG_VAR >/dev/null
		CG_VAR=""
	done
	say "callgrind: instructions per packet (l3fwd: ${CG_L3FWD//:/ })"
	for c in $CG_L3FWD; do
		m=${c%:*} t=${c#*:}
		lookup=${m%%[0-9]*}   # acl100: --lookup acl
		rules=$(python3 -c 'import json,sys
c = [c for c in json.load(open(sys.argv[1]))["cases"] if c["name"] == sys.argv[2]][0]["argv"]
i = c.index("--rule_ipv4"); print(c[i + 1], c[i + 3])' "$B/cases.json" "l3fwd-$m $t")
		pcap=$(python3 -c 'import json,sys
c = [c for c in json.load(open(sys.argv[1]))["cases"] if c["name"] == sys.argv[2]][0]["argv"]
print([a for a in c if a.startswith("net_pcap0,")][0])' "$B/cases.json" "l3fwd-$m $t")
		set -- $rules
		for secs in 2 4; do
			L3FWD_NB_MBUF=$POOL L3FWD_SECONDS=$secs valgrind --tool=callgrind \
				--collect-atstart=no --toggle-collect='*_main_loop' \
				--callgrind-out-file="$B/callgrind-l3fwd-$m-$t-$secs.out" \
				"$L3FWD" --no-pci --no-huge -m 3072 --file-prefix cg$$ -l 1 --log-level '*:error' \
				--vdev "$pcap" --vdev net_null0,no-rx=1 \
				-- -p 0x3 --config "(0,0,1),(1,0,1)" --lookup "$lookup" --parse-ptype \
				--rule_ipv4 "$1" --rule_ipv6 "$2" \
				> "$B/callgrind-l3fwd-$m-$t-$secs.log" 2>&1 || true
		done
	done
	# testpmd io, the floor under every router: no packet limit and no
	# symbols to toggle on, so the whole program runs under callgrind for
	# 20 and 60 s, stopped with SIGINT, and the packets it reports at exit
	# divide the difference (its start-up and exit cancel out).
	if case ,$FAMILIES, in *,4,*) true ;; *) false ;; esac &&
		python3 -c 'import json,sys
sys.exit(0 if any(c["name"] == "testpmd-io" for c in json.load(open(sys.argv[1]))["cases"]) else 1)' "$B/cases.json"; then
		say "callgrind: instructions per packet (testpmd io, 20 and 60 s)"
		mapfile -t targv < <(python3 -c 'import json,sys
c = [c for c in json.load(open(sys.argv[1]))["cases"] if c["name"] == "testpmd-io"][0]["argv"]
a = list(c)
i = a.index("--file-prefix"); a[i + 1] = "cgt" + sys.argv[2]
i = a.index("--in-memory"); a[i:i + 1] = ["--no-huge", "-m", "3072"]
print("\n".join(a))' "$B/cases.json" "$$")
		for secs in 20 60; do
			timeout -s INT "$secs" valgrind --tool=callgrind \
				--callgrind-out-file="$B/callgrind-testpmd-io-$secs.out" \
				"${targv[@]}" > "$B/callgrind-testpmd-io-$secs.log" 2>&1 || true
		done
	fi
fi

# Debian's python3, which has python3-matplotlib.
/usr/bin/python3 scripts/bench-report.py "$B" "$CALLGRIND"

#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Build dpdk-l3fwd for the benchmark from the example sources that Debian's
# dpdk-doc package installs, patched for a full Internet table on virtual
# devices. Idempotent: an unchanged build is reused. The last line printed is
# the path of the binary.
#
#   scripts/build-l3fwd.sh [WORKDIR]      (default build/bench/l3fwd-src)
#
# The binary goes next to WORKDIR as "l3fwd" (build/bench/l3fwd by default;
# L3FWD_BIN overrides). L3FWD_LINK=static links DPDK statically (default: shared,
# like dpr's default build).
#
# Patches (each checked to apply exactly once, so a changed upstream fails loudly):
#   l3fwd_lpm.c  IPv4 LPM: 2M rules, 65536 tbl8 groups
#   l3fwd_lpm.c  IPv6 LPM: 512k rules (the pyasn IPv6 table has 27,693 and needs
#                about 12.4k of its 65536 tbl8 groups, left as they are)
#   l3fwd_fib.c  IPv4 FIB (DIR-24-8): 2M routes, 65536 tbl8 groups
#   both         no per-route printf above 64 routes; print the load time
#                (IPv4; and IPv6 for LPM)
#   main.c       RX offloads masked by what the PMD has (net_pcap/net_null lack
#                IP checksum offload), on the port and on its RX queues
#   main.c       L3FWD_NB_MBUF=N: mbuf pool of at least N (net_pcap infinite_rx
#                preloads the whole pcap into the RX pool)
#   main.c       L3FWD_SECONDS=N: stop by itself N seconds after forwarding starts
#                (route load not counted); on exit it prints per-port ethdev stats
#                and the rate over the forwarding time as "L3FWD-BENCH: ..." lines
#
# Routes: this l3fwd reads --rule_ipv4 FILE and --rule_ipv6 FILE for LPM and FIB,
# lines "R<addr>/<len> <port>" (IPv6 addresses in any inet_pton form), but only
# both together (else it silently uses its 16 built-in routes of each family);
# pass WORKDIR/lpm_default_v6.cfg or lpm_default_v4.cfg for the family not
# measured. Ports: net_pcap and net_null do not report packet types, so run it
# with --parse-ptype: it then tells IPv4 from IPv6 by EtherType (an IPv6
# packet whose lookup fails goes back out of its input port). For IPv6 it
# rewrites the MACs only: no hop-limit decrement, no header check.
set -euo pipefail

say() { printf 'build-l3fwd: %s\n' "$*" >&2; }
die() { say "$*"; exit 1; }

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
WORK=$(realpath -m "${1:-$ROOT/build/bench/l3fwd-src}")
BIN=$(realpath -m "${L3FWD_BIN:-$(dirname "$WORK")/l3fwd}")
LINK=${L3FWD_LINK:-shared}
case $LINK in shared|static) ;; *) die "L3FWD_LINK must be shared or static" ;; esac

need=()
for p in dpdk-doc libdpdk-dev pkg-config make gcc python3; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || need+=("$p")
done
if [ ${#need[@]} -gt 0 ]; then
	[ "$(id -u)" -eq 0 ] || die "missing packages ${need[*]}; run as root or install them"
	say "installing: ${need[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q >/dev/null
	apt-get install -y -q --no-install-recommends "${need[@]}" >/dev/null
fi

SRC=$(dpkg -L dpdk-doc | grep '/examples/l3fwd/main\.c$' | head -1 || true)
[ -n "$SRC" ] || die "dpkg -L dpdk-doc lists no examples/l3fwd/main.c"
SRC=$(dirname "$SRC")
COMMON=$(dirname "$SRC")/common
[ -d "$COMMON" ] || die "no $COMMON (the examples' shared headers)"
DPDK_VER=$(pkg-config --modversion libdpdk)
say "sources: $SRC (DPDK $DPDK_VER, dpdk-doc $(dpkg-query -W -f='${Version}' dpdk-doc))"

# Rebuild only when the sources, this script, DPDK or the link mode changed.
stamp=$( { cat "${BASH_SOURCE[0]}"; echo "$DPDK_VER $LINK"; \
	find "$SRC" "$COMMON" -type f | sort | xargs cat; } | sha256sum | cut -d' ' -f1)
if [ -x "$BIN" ] && [ "$(cat "$WORK/.dpr-stamp" 2>/dev/null)" = "$stamp" ]; then
	say "up to date: $BIN"
	echo "$BIN"
	exit 0
fi

say "copying to $WORK"
rm -rf "$WORK"
mkdir -p "$WORK"
cp -r "$SRC"/. "$WORK"/
cp -r "$COMMON" "$WORK/common"
chmod -R u+w "$WORK"

say "patching"
python3 - "$WORK" <<'PYEOF'
import re
import sys

work = sys.argv[1]


def patch(name, what, old, new, regex=False):
    path = "%s/%s" % (work, name)
    with open(path) as f:
        text = f.read()
    if regex:
        text, n = re.subn(old, new, text)
    else:
        n = text.count(old)
        text = text.replace(old, new)
    if n != 1:
        sys.exit("build-l3fwd: patch '%s' matched %d times in %s, expected once"
                 % (what, n, name))
    with open(path, "w") as f:
        f.write(text)
    print("build-l3fwd:   %-12s %s" % (name, what), file=sys.stderr)


# The examples' Makefile expects ../common; the copy keeps it inside WORK.
patch("Makefile", "headers from ./common", "-I../common", "-Icommon")

# (a) Full Internet table.
patch("l3fwd_lpm.c", "LPM IPv4 max rules 1024 -> 2M",
      r"(#define IPV4_L3FWD_LPM_MAX_RULES\s+)1024\b", r"\g<1>(2 << 20)", regex=True)
patch("l3fwd_lpm.c", "LPM IPv4 tbl8 groups 256 -> 65536",
      r"(#define IPV4_L3FWD_LPM_NUMBER_TBL8S\s+)\(1 << 8\)", r"\g<1>(1 << 16)", regex=True)
patch("l3fwd_lpm.c", "LPM IPv6 max rules 1024 -> 512k",
      r"(#define IPV6_L3FWD_LPM_MAX_RULES\s+)1024\b", r"\g<1>(1 << 19)", regex=True)
patch("l3fwd_fib.c", "FIB IPv4 max routes 65536 -> 2M",
      "config_ipv4.max_routes = (1 << 16);", "config_ipv4.max_routes = (2 << 20);")
patch("l3fwd_fib.c", "FIB IPv4 tbl8 groups 32768 -> 65536",
      "config_ipv4.dir24_8.num_tbl8 = (1 << 15);", "config_ipv4.dir24_8.num_tbl8 = (1 << 16);")

# Quiet per-route lines for big tables (600k printf lines), time the load.
TIMER_START = ("\t{ /* dpr bench: time the IPv4 route load */\n"
               "\tuint64_t l3b_t0 = rte_get_tsc_cycles();\n"
               "\tint l3b_n = 0;\n\n")
TIMER_END = ("\tprintf(\"L3FWD-BENCH: MODE: %d of %d IPv4 routes added (enabled ports) in %.3f s\\n\",\n"
             "\t       l3b_n, route_num_v4,\n"
             "\t       (double)(rte_get_tsc_cycles() - l3b_t0) / rte_get_tsc_hz());\n"
             "\t}\n")
for name, mode, start, count_after, end in (
        ("l3fwd_lpm.c", "LPM",
         "\t/* populate the LPM table */\n\tfor (i = 0; i < route_num_v4; i++) {",
         "\t\tin.s_addr = htonl(route_base_v4[i].ip);\n\t\tprintf(\"LPM: Adding route",
         "\t/* create the LPM6 table */"),
        ("l3fwd_fib.c", "FIB",
         "\t/* Populate the fib ipv4 table. */\n\tfor (i = 0; i < route_num_v4; i++) {",
         "\t\tin.s_addr = htonl(route_base_v4[i].ip);\n\t\tif (inet_ntop(AF_INET,",
         "\t/* >8 End of setup fib. */")):
    patch(name, "time the IPv4 route load", start, TIMER_START + start)
    patch(name, "count routes, no printf above 64 routes", count_after,
          "\t\tl3b_n++;\n\t\tif (route_num_v4 > 64)\n\t\t\tcontinue;\n" + count_after)
    patch(name, "print the load time", end, TIMER_END.replace("MODE", mode) + end)

# The same for LPM's IPv6 routes (28k printf lines for the pyasn table).
V6 = "\t/* populate the LPM table */\n\tfor (i = 0; i < route_num_v6; i++) {"
patch("l3fwd_lpm.c", "time the IPv6 route load", V6,
      TIMER_START.replace("IPv4", "IPv6") + V6)
patch("l3fwd_lpm.c", "count IPv6 routes, no printf above 64 routes",
      "\t\tprintf(\"LPM: Adding route %s / %d (%d) [%s]\\n\",\n"
      "\t\t       inet_ntop(AF_INET6,",
      "\t\tl3b_n++;\n\t\tif (route_num_v6 > 64)\n\t\t\tcontinue;\n"
      "\t\tprintf(\"LPM: Adding route %s / %d (%d) [%s]\\n\",\n"
      "\t\t       inet_ntop(AF_INET6,")
patch("l3fwd_lpm.c", "print the IPv6 load time", "\t}\n}\n\nint\nlpm_check_ptype(",
      "\t}\n" + TIMER_END.replace("MODE", "LPM").replace("IPv4", "IPv6")
      .replace("route_num_v4", "route_num_v6") + "}\n\nint\nlpm_check_ptype(")

# (c) RX checksum offload: virtual devices have none.
patch("main.c", "mask port RX offloads by the PMD's",
      "\t\tret = rte_eth_dev_configure(portid, nb_rx_queue,",
      "\t\tif ((local_port_conf.rxmode.offloads & ~dev_info.rx_offload_capa) != 0) {\n"
      "\t\t\tprintf(\"RX offloads %#\"PRIx64\" not supported, masked... \",\n"
      "\t\t\t       local_port_conf.rxmode.offloads & ~dev_info.rx_offload_capa);\n"
      "\t\t\tlocal_port_conf.rxmode.offloads &= dev_info.rx_offload_capa;\n"
      "\t\t}\n\n"
      "\t\tret = rte_eth_dev_configure(portid, nb_rx_queue,")
patch("main.c", "mask RX queue offloads by the PMD's",
      "\t\t\trxq_conf.offloads = port_conf.rxmode.offloads;",
      "\t\t\trxq_conf.offloads = port_conf.rxmode.offloads &\n"
      "\t\t\t\t\t    dev_info.rx_offload_capa;")

# (d) mbuf count, run length, stats.
patch("main.c", "L3FWD_NB_MBUF, L3FWD_SECONDS, exit stats (helpers)",
      "#define NB_MBUF(nports) RTE_MAX(",
      r'''/* dpr bench helpers */
#include <unistd.h>

static unsigned int
l3fwd_bench_nb_mbuf(void)
{
	static unsigned int n;
	const char *s;

	if (n == 0) {
		s = getenv("L3FWD_NB_MBUF");
		n = s != NULL ? (unsigned int)strtoul(s, NULL, 0) : 0;
		if (n < 8192)
			n = 8192;
		printf("L3FWD-BENCH: mbuf pool of at least %u mbufs\n", n);
	}
	return n;
}

static uint64_t l3fwd_bench_tsc0;

static void
l3fwd_bench_alarm(int signum __rte_unused)
{
	force_quit = true;
}

static void
l3fwd_bench_start(void)
{
	const char *s = getenv("L3FWD_SECONDS");
	uint16_t p;

	RTE_ETH_FOREACH_DEV(p)
		if (enabled_port_mask & (1 << p))
			rte_eth_stats_reset(p);
	if (s != NULL && atoi(s) > 0) {
		signal(SIGALRM, l3fwd_bench_alarm);
		alarm(atoi(s));
		printf("L3FWD-BENCH: forwarding for %d s\n", atoi(s));
	}
	fflush(stdout);
	l3fwd_bench_tsc0 = rte_get_tsc_cycles();
}

static void
l3fwd_bench_report(void)
{
	double sec = (double)(rte_get_tsc_cycles() - l3fwd_bench_tsc0) /
		rte_get_tsc_hz();
	uint64_t rx = 0, tx = 0;
	struct rte_eth_stats st;
	uint16_t p;

	RTE_ETH_FOREACH_DEV(p) {
		if ((enabled_port_mask & (1 << p)) == 0 ||
		    rte_eth_stats_get(p, &st) != 0)
			continue;
		printf("L3FWD-BENCH: port %u rx %" PRIu64 " tx %" PRIu64
		       " imissed %" PRIu64 " ierrors %" PRIu64
		       " oerrors %" PRIu64 " rx_nombuf %" PRIu64 "\n",
		       p, st.ipackets, st.opackets, st.imissed, st.ierrors,
		       st.oerrors, st.rx_nombuf);
		rx += st.ipackets;
		tx += st.opackets;
	}
	printf("L3FWD-BENCH: total seconds %.3f rx %" PRIu64 " tx %" PRIu64
	       " rx_mpps %.3f tx_mpps %.3f\n", sec, rx, tx,
	       sec > 0 ? rx / sec / 1e6 : 0, sec > 0 ? tx / sec / 1e6 : 0);
	fflush(stdout);
}

#define NB_MBUF(nports) RTE_MAX(''')
patch("main.c", "NB_MBUF floor 8192 -> L3FWD_NB_MBUF",
      "\tnb_lcores*MEMPOOL_CACHE_SIZE),\t\t\\\n\t(unsigned)8192)",
      "\tnb_lcores*MEMPOOL_CACHE_SIZE),\t\t\\\n\tl3fwd_bench_nb_mbuf())")
patch("main.c", "start the clock (and L3FWD_SECONDS alarm) at launch",
      "\t/* launch per-lcore init on every lcore */\n",
      "\tl3fwd_bench_start();\n\t/* launch per-lcore init on every lcore */\n")
patch("main.c", "print stats when the workers stop",
      "\t} else {\n\t\trte_eal_mp_wait_lcore();\n",
      "\t} else {\n\t\trte_eal_mp_wait_lcore();\n\t\tl3fwd_bench_report();\n")
PYEOF

say "building ($LINK) with pkg-config libdpdk"
t0=$(date +%s.%N)
make -C "$WORK" -j"$(nproc)" "$LINK" >"$WORK/build.log" 2>&1 || {
	tail -30 "$WORK/build.log" >&2
	die "make failed; full log in $WORK/build.log"
}
t1=$(date +%s.%N)
mkdir -p "$(dirname "$BIN")"
cp -f "$WORK/build/l3fwd-$LINK" "$BIN"
echo "$stamp" >"$WORK/.dpr-stamp"
say "built in $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s"
say "run with: --parse-ptype --lookup lpm|fib --rule_ipv4 FILE --rule_ipv6 FILE (or $WORK/lpm_default_v6.cfg);"
say "  env L3FWD_NB_MBUF (> pcap packets), L3FWD_SECONDS; results on 'L3FWD-BENCH:' lines"
echo "$BIN"

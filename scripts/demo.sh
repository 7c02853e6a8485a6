#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# dpr for real, on one machine: two Linux hosts in network namespaces, dpr
# between them on af_packet ports, the full RouteViews IPv4 table (python3-
# pyasn, ~606k prefixes) loaded through dprctl, and traffic crossing it.
#
# Then a drop caught by `dprctl capture` and read back with tcpdump, and
# `dprctl doctor`.
#
#   scripts/demo.sh                  runs until Ctrl-C
#   DEMO_SECONDS=30 scripts/demo.sh  runs 30 s, then cleans up and exits 0
#   DEMO_KEEP=1 scripts/demo.sh      keeps dpr's config, log and the capture
#                                    in /run/dpr-demo after it stops (until
#                                    the next run or a reboot)
#
# Needs root on Debian 12; installs only what it needs (scripts/setup.sh
# --minimal: the build, iproute2, python3-pyasn, tcpdump; the test suite's
# FRR, BIRD, clang... come with scripts/test.sh).
set -euo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
cd "$TOP"
RUN=/run/dpr-demo
SOCK=$RUN/dpr.sock
H1=dpr-demo-h1 H2=dpr-demo-h2
DPR_PID=
say() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

cleanup() {
	set +e
	if [ -n "$DPR_PID" ] && kill -0 "$DPR_PID" 2>/dev/null; then
		kill -TERM "$DPR_PID"
		wait "$DPR_PID" 2>/dev/null
	fi
	for ns in $H1 $H2; do
		ip netns pids "$ns" 2>/dev/null | xargs -r kill 2>/dev/null
		ip netns del "$ns" 2>/dev/null
	done
	ip link del dpr-demo0 2>/dev/null
	ip link del dpr-demo1 2>/dev/null
	# What EAL's --in-memory leaves: its runtime directory, empty.
	rmdir /var/run/dpdk/dpr-demo 2>/dev/null
	if [ "${DEMO_KEEP:-0}" = 1 ] && [ -n "$DPR_PID" ]; then
		rm -f "$RUN/routes.txt" # 17 MB, remade by scripts/pyasn-routes.py
		echo "kept in $RUN: dpr.json (the config), dpr.log (dpr's output and" \
			"its counters at exit), why.pcapng (the capture)"
	else
		rm -rf "$RUN"
	fi
}
trap cleanup EXIT
trap 'exit 0' INT TERM

say "Setting up this machine (packages, hugepages)"
scripts/setup.sh --minimal
say "Building dpr"
[ -f build/build.ninja ] || meson setup build >/dev/null
ninja -C build >/dev/null
echo "build/app/dpr and build/app/dprctl are ready"

cleanup
mkdir -p "$RUN"
say "Two hosts: $H1 (10.0.1.2) and $H2 (10.0.2.2, plays the Internet); they find dpr by ARP"
for i in 1 2; do
	ns=dpr-demo-h$i
	ip netns add $ns
	ip link add dpr-demo$((i - 1)) type veth peer name eth0 netns $ns
	ip link set dpr-demo$((i - 1)) up
	sysctl -qw net.ipv6.conf.dpr-demo$((i - 1)).disable_ipv6=1
	# This kernel must leave dpr's traffic alone (it never sees a DPDK NIC's).
	sysctl -qw net.ipv4.conf.dpr-demo$((i - 1)).arp_ignore=8 \
		net.ipv4.conf.dpr-demo$((i - 1)).rp_filter=1
	ip -n $ns link set lo up
	ip netns exec $ns sysctl -qw net.ipv6.conf.all.disable_ipv6=1
	ip -n $ns link set eth0 address 02:00:00:00:0$i:02
	ip -n $ns addr add 10.0.$i.2/24 dev eth0
	ip -n $ns link set eth0 up
	ip netns exec $ns ethtool -K eth0 tx off >/dev/null 2>&1 || true
	ip -n $ns route add default via 10.0.$i.1
done
# Well-known destinations live on h2, so pings across the table get answers.
DESTS="1.1.1.1 8.8.8.8 208.67.222.222 193.0.14.129 198.41.0.4 203.119.86.101"
for d in $DESTS; do ip -n $H2 addr add "$d/32" dev lo; done

cat > "$RUN/dpr.json" <<JSON
{
  "ports": [
    {"name": "inside", "device": "net_af_packet0,iface=dpr-demo0,qpairs=2",
     "mac": "02:00:00:00:01:01", "addresses": ["10.0.1.1/24"]},
    {"name": "uplink", "device": "net_af_packet1,iface=dpr-demo1,qpairs=2",
     "mac": "02:00:00:00:02:01", "addresses": ["10.0.2.1/24"]}
  ],
  "neighbors": [
    {"address": "10.0.2.3", "mac": "02:00:00:00:02:02"},
    {"address": "10.0.2.4", "mac": "02:00:00:00:02:02"},
    {"address": "10.0.2.5", "mac": "02:00:00:00:02:02"}
  ],
  "control": {"socket": "$SOCK"},
  "fib": {"ipv4_max_routes": 1048576, "ipv4_tbl8_groups": 16384}
}
JSON
say "Starting dpr: one worker lcore, af_packet ports (config: $RUN/dpr.json)"
mem="--in-memory"
free_mb=$(awk '/HugePages_Free/ {f=$2} /Hugepagesize/ {s=$2} END {print int(f*s/1024)}' /proc/meminfo)
[ "${free_mb:-0}" -ge 1200 ] || mem="--no-huge -m 1200"
# shellcheck disable=SC2086
build/app/dpr --no-pci $mem --file-prefix dpr-demo -l 0,1 -- -c "$RUN/dpr.json" \
	--idle-sleep 50 > "$RUN/dpr.log" 2>&1 &
DPR_PID=$!
for _ in $(seq 100); do grep -q "forwarding on" "$RUN/dpr.log" && break; sleep 0.1; done
grep -q "forwarding on" "$RUN/dpr.log" || { cat "$RUN/dpr.log"; exit 1; }
grep "^dpr: port" "$RUN/dpr.log"
ctl() { build/app/dprctl -s "$SOCK" "$@"; }

say "Loading the RouteViews table from python3-pyasn (next hop = hash(origin AS) mod 4)"
scripts/pyasn-routes.py 10.0.2.2 10.0.2.3 10.0.2.4 10.0.2.5 > "$RUN/routes.txt"
ctl route load "$RUN/routes.txt"

say "Where the table sends a few destinations"
for d in $DESTS; do ctl route get "$d"; done

say "Before the first ping: the next hops are unresolved"
echo "A next hop is unresolved while dpr does not know its MAC yet: 10.0.2.2 (h2) has"
echo "not been asked. The first packets to it wait on the control thread (up to 4 a"
echo "next hop) while dpr asks by ARP (NDP for IPv6), then leave; later ones go straight"
echo "through the worker. 10.0.2.3-5 are static, so resolved from the start:"
ctl neigh list

say "Traffic: $H1 pings each destination through dpr"
for d in $DESTS; do
	printf '%-16s ' "$d"
	ip netns exec $H1 ping -c 3 -i 0.2 -W 1 -q "$d" | grep -o '[0-9]* received.*loss'
done
# A steady stream in the background for the counters below.
for d in $DESTS; do ip netns exec $H1 ping -q -i 0.05 "$d" >/dev/null 2>&1 & done

say "Neighbours: the hosts were learned by ARP, the extra gateways are static"
ctl neigh list

# 198.51.100.0/24 is TEST-NET-2 (RFC 5737): no route in the Internet's table.
UNROUTED=198.51.100.7
say "Why a packet did not cross: dprctl capture of a drop and of a packet with no route"
ctl route get $UNROUTED || true
ctl capture -w "$RUN/why.pcapng" --drop martian --exception no_route -c 6 --seconds 15 &
CAP=$!
for _ in $(seq 50); do ctl capture status 2>/dev/null | grep -q "(running)" && break; sleep 0.1; done
echo "3 frames from $H1 with source 127.0.0.1, which no router may forward (RFC 1812"
echo "5.3.7): the worker drops them as 'martian'"
ip netns exec $H1 python3 tests/smoke/traffic.py raw-send eth0 02:00:00:00:01:01 \
	02:00:00:00:01:02 127.0.0.1 8.8.8.8 3
echo "3 pings to $UNROUTED: the worker hands them to the control thread (exception"
echo "'no_route'), which answers ICMP net unreachable"
ip netns exec $H1 ping -c 3 -i 0.2 -W 1 $UNROUTED | grep -i "unreachable\|received" || true
wait $CAP || true
echo "Read back with tcpdump ($RUN/why.pcapng):"
tcpdump -tttt -n -r "$RUN/why.pcapng" 2>/dev/null
echo "Each packet's comment in the file says what dpr did with it:"
python3 - "$RUN/why.pcapng" <<'PY'
import struct, sys
d, off = open(sys.argv[1], "rb").read(), 0
while off + 12 <= len(d):
    btype, blen = struct.unpack_from("<II", d, off)
    if blen < 12:
        break
    if btype == 6:  # an enhanced packet block: options after the data
        o = off + 28 + ((struct.unpack_from("<I", d, off + 20)[0] + 3) & ~3)
        while o + 4 <= off + blen - 4:
            code, ln = struct.unpack_from("<HH", d, o)
            if code == 0:
                break
            if code == 1:
                print("  " + d[o + 4:o + 4 + ln].decode(errors="replace"))
            o += 4 + ((ln + 3) & ~3)
    off += blen
PY

say "dprctl doctor: warnings going on and why (none on a healthy run)"
ctl doctor

say "Counters (dprctl stats)"
ctl stats
end=$(( $(date +%s) + ${DEMO_SECONDS:-1000000000} ))
echo
echo "Running. Try: build/app/dprctl -s $SOCK stats | route get 8.8.8.8 | port list"
echo "             dpdk-telemetry.py -f dpr-demo   then /dpr/stats"
echo "Ctrl-C to stop${DEMO_SECONDS:+ (stopping by itself after $DEMO_SECONDS s)}."
while [ "$(date +%s)" -lt "$end" ]; do
	sleep 5
	kill -0 "$DPR_PID" 2>/dev/null || { echo "dpr exited:"; tail "$RUN/dpr.log"; exit 1; }
	ctl --json stats | python3 -c '
import json, sys
s = json.load(sys.stdin)
t = s["total"]
print("forwarded %d, dropped %d, routes %d" % (t["forwarded"], t["dropped"], s["fib"]["ipv4_routes"]))'
done
say "Done"

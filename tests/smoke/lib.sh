# SPDX-License-Identifier: BSD-3-Clause
#
# Helpers for smoke tests: real dpr, real Linux hosts in network namespaces.
# A test sources this, then calls the helpers; everything it creates is
# removed on exit. Needs root.
#
#   DPR=build/app/dpr tests/smoke/NAME.sh
#   KEEP_WORK=1 ...      keep the work directory (dpr.log, configs) of a
#                        passing run too, to compare it with a failing one

set -u

DPR=${DPR:-${1:-build/app/dpr}}
DPR=$(readlink -f "$DPR")
DPRCTL=$(dirname "$DPR")/dprctl
SMOKE_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOP=$(cd "$SMOKE_DIR/../.." && pwd)
T=$(basename "$0" .sh)
# Short unique tag: interface names have at most 15 characters.
TAG=${SMOKE_TAG:-$(printf '%04x' $(( $$ % 65536 )))}
WORK=$(mktemp -d "/tmp/dpr-smoke-$T.XXXXXX")
SOCK=$WORK/dpr.sock
NETNS=()
LINKS=()
DPR_PID=
# The namespace dpr runs in (start_dpr); empty: this one.
DPR_NETNS=${DPR_NETNS:-}
# Functions cleanup runs first, for what a test started beside dpr.
AT_EXIT=()
PASS=0
FAIL=0

ok() { PASS=$((PASS + 1)); echo "ok - $T: $*"; }
not_ok() { FAIL=$((FAIL + 1)); echo "not ok - $T: $*"; }
check() { # check DESCRIPTION COMMAND...
	local what=$1; shift
	if "$@"; then ok "$what"; else not_ok "$what"; fi
}
die() { echo "not ok - $T: $*"; FAIL=$((FAIL + 1)); finish; }
# wait_for SECONDS COMMAND...: until COMMAND succeeds, polled every 0.1 s;
# the seconds are a limit for a broken router, never a measurement
wait_for() {
	local n=$(($1 * 10)); shift
	for _ in $(seq "$n"); do "$@" && return 0; sleep 0.1; done
	return 1
}

# vlan_rig PREFIX: dpr in namespace R ($DPR_NETNS), h1 (10.0.1.2) behind
# veth V0 and h2 (10.0.2.2) behind V1, named with PREFIX; VH is the raw
# socket host (vlanhost.py) that speaks tagged frames beside them
vlan_rig() {
	R=r-$TAG DPR_NETNS=r-$TAG H1=h1-$TAG H2=h2-$TAG V0=$1${TAG}a V1=$1${TAG}b
	VH="$SMOKE_DIR/vlanhost.py"
	netns "$R"; netns "$H1"; netns "$H2"
	router_veth "$R" "$H1" "$V0"; router_veth "$R" "$H2" "$V1"
	host_addr "$H1" eth0 02:00:00:00:01:02 10.0.1.2/24 10.0.1.1 02:00:00:00:01:01
	host_addr "$H2" eth0 02:00:00:00:02:02 10.0.2.2/24 10.0.2.1 02:00:00:00:02:01
}

# no_vlan_offloads DIR: the driver profiles in DIR with net_af_packet's
# offloads taken away (for --drivers-cfg DIR): VLAN tags in software
no_vlan_offloads() {
	mkdir -p "$1"
	cp "$TOP"/drivers-cfg/*.json "$1/"
	python3 - "$1/net_af_packet.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
p["rx_offloads"], p["tx_offloads"] = [], []
json.dump(p, open(sys.argv[1], "w"))
PY
}

# kernel_vrf NS: whether this kernel has VRF devices (CONFIG_NET_VRF)
kernel_vrf() {
	ip -n "$1" link add "vt$TAG" type vrf table 10 2>/dev/null || return 1
	ip -n "$1" link del "vt$TAG"
}

# listening OUT: wait until a background probe (aclprobe.py sniff,
# vlanhost.py serve) has bound its socket and created OUT.ready: python
# starts slowly on a loaded machine, and a frame sent before then is lost
listening() {
	wait_for 10 test -e "$1.ready" || die "no listener for $1 after 10 s"
}

# reap SECONDS PID: wait for a background job, killed if it is still
# running after SECONDS (a listener whose client gave up must not hang the
# test, nor a watchdog outlive it holding the test's output open)
reap() {
	wait_for "$1" eval "! kill -0 $2 2>/dev/null" || kill "$2" 2>/dev/null
	wait "$2" 2>/dev/null
}

# A test still running after SMOKE_WATCHDOG seconds (240; meson kills it
# at 300) says what it is waiting on: its processes and dpr's log's end,
# so that a TIMEOUT in CI names the command that hung.
watchdog() {
	local me=$BASHPID
	# cleanup() kills the sleep first: the test is over, nothing to say.
	sleep "${SMOKE_WATCHDOG:-240}" || exit 0
	echo "# --- $T still running after ${SMOKE_WATCHDOG:-240} s; its processes: ---"
	ps -eo pid=,ppid=,etimes=,args= | awk -v top="$TEST_PID" -v self="$me" '
		{ parent[$1] = $2; line[$1] = $0; order[NR] = $1 }
		END {
			keep[top] = 1
			for (changed = 1; changed; ) {
				changed = 0
				for (i = 1; i <= NR; i++) {
					p = order[i]
					if (!(p in keep) && (parent[p] in keep) && p != self) { keep[p] = 1; changed = 1 }
				}
			}
			for (i = 1; i <= NR; i++) if (order[i] in keep) print "#   " substr(line[order[i]], 1, 200)
		}'
	[ -f "$WORK/dpr.log" ] && tail -n 20 "$WORK/dpr.log" | sed 's/^/# dpr: /'
}
TEST_PID=$$
watchdog &
WATCHDOG_PID=$!

cleanup() {
	local h m
	pkill -P "$WATCHDOG_PID" 2>/dev/null; kill "$WATCHDOG_PID" 2>/dev/null
	for h in "${AT_EXIT[@]}"; do "$h"; done
	if [ -n "$DPR_PID" ] && kill -0 "$DPR_PID" 2>/dev/null; then
		kill -TERM "$DPR_PID" 2>/dev/null
		for _ in $(seq 50); do kill -0 "$DPR_PID" 2>/dev/null || break; sleep 0.1; done
		kill -KILL "$DPR_PID" 2>/dev/null
	fi
	for ns in "${NETNS[@]}"; do ip netns pids "$ns" 2>/dev/null | xargs -r kill 2>/dev/null; done
	for ns in "${NETNS[@]}"; do ip netns del "$ns" 2>/dev/null; done
	for l in "${LINKS[@]}"; do ip link del "$l" 2>/dev/null; done
	rm -rf "/var/run/dpdk/dpr-$T-$TAG"
	# A dpr on hugepages without --in-memory (DPR_EAL_MEM) leaves its files.
	for m in $(awk '$3 == "hugetlbfs" {print $2}' /proc/mounts); do rm -f "$m/dpr-$T-$TAG"*; done
	if [ "$FAIL" -ne 0 ] && [ -f "$WORK/dpr.log" ]; then
		echo "# --- dpr log ($WORK/dpr.log) ---"
		tail -n 60 "$WORK/dpr.log" | sed 's/^/# /'
	else
		[ -n "${KEEP_WORK:-}" ] || rm -rf "$WORK"
	fi
}
trap cleanup EXIT
trap 'exit 1' INT TERM

finish() {
	echo "$T: $PASS passed, $FAIL failed"
	[ "$FAIL" -eq 0 ] && exit 0 || exit 1
}

need_root() {
	[ "$(id -u)" -eq 0 ] || { echo "not ok - $T: needs root"; exit 1; }
	# A veth hands each packet to the receiving CPU's backlog (1000 by
	# default); with a worker spinning on that CPU the backlog overflows
	# and the kernel drops what dpr delivered. Real links have no such queue.
	[ "$(sysctl -n net.core.netdev_max_backlog)" -ge 100000 ] ||
		sysctl -qw net.core.netdev_max_backlog=100000
}

# EAL memory options: hugepages when enough are free, else plain memory.
eal_mem() {
	local free_mb
	free_mb=$(awk '/HugePages_Free/ {f=$2} /Hugepagesize/ {s=$2} END {print int(f*s/1024)}' /proc/meminfo)
	if [ "${free_mb:-0}" -ge "${1:-700}" ] && grep -qs ' hugetlbfs ' /proc/mounts; then
		echo "--in-memory"
	else
		echo "--no-huge -m ${1:-700}"
	fi
}

# netns NAME: a fresh namespace with loopback up
netns() {
	ip netns add "$1" || die "cannot create netns $1"
	NETNS+=("$1")
	ip -n "$1" link set lo up
}

# host_addr NS IFACE MAC ADDR/LEN GATEWAY [ROUTER_MAC]
# With ROUTER_MAC the host gets a static neighbour entry for the router
# (tests that count frames exactly), else it ARPs for it.
host_addr() {
	local ns=$1 ifc=$2 mac=$3 addr=$4 gw=$5 rmac=${6:-}
	ip -n "$ns" link set "$ifc" address "$mac"
	ip -n "$ns" addr add "$addr" dev "$ifc"
	ip -n "$ns" link set "$ifc" up
	ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1
	ip -n "$ns" route add default via "$gw"
	[ -z "$rmac" ] || ip -n "$ns" neigh replace "$gw" lladdr "$rmac" dev "$ifc" nud permanent
}

# two_hosts [--arp]: hosts H1 (10.0.1.2, MAC 02:00:00:00:01:02) and H2
# (10.0.2.2, 02:00:00:00:02:02) on veths whose other ends, V0 and V1, are
# dpr's ports; the router is 10.0.N.1 with MAC 02:00:00:00:0N:01. With
# --arp the hosts learn the router's MAC by ARP, else it is static.
two_hosts() {
	local i
	V0=dv${TAG}a V1=dv${TAG}b H1=h1-$TAG H2=h2-$TAG
	netns "$H1"; netns "$H2"
	veth_pair "$H1" eth0 "$V0"
	veth_pair "$H2" eth0 "$V1"
	for i in 1 2; do
		host_addr "h$i-$TAG" eth0 "02:00:00:00:0$i:02" "10.0.$i.2/24" "10.0.$i.1" \
			"$([ "${1:-}" = --arp ] || echo "02:00:00:00:0$i:01")"
	done
}

# two_hosts_config FILE [QPAIRS] [MEMBERS]: dpr's config for two_hosts on
# af_packet (QPAIRS queue pairs, default 2): p0 10.0.1.1/24 and p1
# 10.0.2.1/24 with the router MACs above, the hosts as static neighbours,
# this test's socket, a small FIB; MEMBERS (JSON object members, such as
# '"metrics": {...}') are added at the top level.
two_hosts_config() {
	local q=${2:-2} extra=${3:-}
	cat > "$1" <<JSON
{
  "ports": [
    {"name": "p0", "device": "net_af_packet_${TAG}a,iface=$V0,qpairs=$q",
     "mac": "02:00:00:00:01:01", "addresses": ["10.0.1.1/24"]},
    {"name": "p1", "device": "net_af_packet_${TAG}b,iface=$V1,qpairs=$q",
     "mac": "02:00:00:00:02:01", "addresses": ["10.0.2.1/24"]}
  ],
  "neighbors": [
    {"address": "10.0.1.2", "mac": "02:00:00:00:01:02", "port": "p0"},
    {"address": "10.0.2.2", "mac": "02:00:00:00:02:02", "port": "p1"}
  ],
  "control": {"socket": "$SOCK"},
  "fib": {"ipv4_max_routes": 1024, "ipv4_tbl8_groups": 64}${extra:+,
  $extra}
}
JSON
}

# routed_peer [MEMBERS]: dpr to run in namespace R ($DPR_NETNS), with host
# H1 (10.0.1.2, 02:00:00:00:01:02) behind p0 and a routing peer B1
# (10.0.2.2, default route via dpr) behind p1, af_packet on veths V0 and
# V1; B1 has a network of its own, 10.77.0.1/24 on veth s0. dpr's config
# for them in $WORK/dpr.json (H1 a static neighbour, this test's socket, a
# small FIB), MEMBERS (JSON object members) added at the top level.
routed_peer() {
	R=r-$TAG DPR_NETNS=r-$TAG H1=h1-$TAG B1=b1-$TAG V0=dv${TAG}a V1=dv${TAG}b
	netns "$R"; netns "$H1"; netns "$B1"
	router_veth "$R" "$H1" "$V0"; router_veth "$R" "$B1" "$V1"
	host_addr "$H1" eth0 02:00:00:00:01:02 10.0.1.2/24 10.0.1.1 02:00:00:00:01:01
	host_addr "$B1" eth0 02:00:00:00:02:02 10.0.2.2/24 10.0.2.1
	ip -n "$B1" link add s0 type veth peer name s1 || die "cannot create a veth in $B1"
	ip -n "$B1" addr add 10.77.0.1/24 dev s0
	ip -n "$B1" link set s1 up
	ip -n "$B1" link set s0 up
	cat > "$WORK/dpr.json" <<JSON
{
  "ports": [
    {"name": "p0", "device": "net_af_packet_${TAG}a,iface=$V0,qpairs=2",
     "mac": "02:00:00:00:01:01", "addresses": ["10.0.1.1/24"]},
    {"name": "p1", "device": "net_af_packet_${TAG}b,iface=$V1,qpairs=2",
     "mac": "02:00:00:00:02:01", "addresses": ["10.0.2.1/24"]}
  ],
  "neighbors": [{"address": "10.0.1.2", "mac": "02:00:00:00:01:02", "port": "p0"}],
  "control": {"socket": "$SOCK"},
  "fib": {"ipv4_max_routes": 1024, "ipv4_tbl8_groups": 64}${1:+,
  $1}
}
JSON
}

# veth_pair HOST_NS HOST_IFACE ROUTER_IFACE: the router side stays here
veth_pair() {
	ip link add "$3" type veth peer name "${3}p" netns "$1" || die "cannot create veth $3"
	LINKS+=("$3")
	ip -n "$1" link set "${3}p" name "$2"
	sysctl -qw "net.ipv6.conf.$3.disable_ipv6=1"
	# The kernel here must not act on what arrives for dpr (on a DPDK NIC it
	# never sees it): no ARP answers, and strict reverse-path filtering drops
	# IP, whose way back is through dpr's TAP, not this veth.
	sysctl -qw "net.ipv4.conf.$3.arp_ignore=8" "net.ipv4.conf.$3.rp_filter=1"
	ip link set "$3" up
	# A veth peer with TX checksum offload leaves TCP/UDP checksums unfinished;
	# the forwarded copy would then be dropped by the final receiver.
	ip netns exec "$1" ethtool -K "$2" tx off >/dev/null 2>&1
}

# router_veth ROUTER_NS HOST_NS IFACE: a veth from the namespace dpr runs in
# (IFACE there, for an af_packet port) to a host (eth0 in HOST_NS); as
# veth_pair, the kernel under dpr's port stays out of the way.
router_veth() {
	ip -n "$1" link add "$3" type veth peer name "${3}p" netns "$2" || die "cannot create veth $3"
	ip -n "$2" link set "${3}p" name eth0
	ip netns exec "$1" sysctl -qw "net.ipv6.conf.$3.disable_ipv6=1" \
		"net.ipv4.conf.$3.arp_ignore=8" "net.ipv4.conf.$3.rp_filter=1"
	ip -n "$1" link set "$3" up
	ip netns exec "$2" ethtool -K eth0 tx off >/dev/null 2>&1
}

# own_taps CONFIG: each port or VLAN interface without a "tap" key gets "d<TAG>-<port>", not
# dpr's default dpr-<port>: tests run two at a time, and dpr refuses a TAP
# name another dpr holds. Tests that name their TAPs, or run dpr in a
# namespace of its own, keep theirs.
own_taps() {
	python3 - "$1" "d$TAG-" <<'PY'
import json, sys
path, prefix = sys.argv[1], sys.argv[2]
cfg = json.load(open(path))
for p in cfg.get("ports", []) + cfg.get("vlans", []):
    if isinstance(p, dict) and "tap" not in p and isinstance(p.get("name"), str):
        p["tap"] = (prefix + p["name"])[:15]
json.dump(cfg, open(path, "w"), indent=1)
PY
}

# start_dpr CONFIG EAL-ARGS... [-- DPR-ARGS...]; waits until it forwards.
# In namespace $DPR_NETNS when set (ip netns exec keeps the pid), else with
# TAPs of this test's own (own_taps); EAL memory options $DPR_EAL_MEM when
# set, else eal_mem's.
start_dpr() {
	local cfg=$1; shift
	local eal=() app=() in=()
	[ -n "$DPR_NETNS" ] || own_taps "$cfg" || die "cannot read $cfg"
	while [ $# -gt 0 ] && [ "$1" != "--" ]; do eal+=("$1"); shift; done
	[ $# -gt 0 ] && shift
	app=("$@")
	[ -z "$DPR_NETNS" ] || in=(ip netns exec "$DPR_NETNS")
	: > "$WORK/dpr.log"
	# shellcheck disable=SC2046
	"${in[@]}" "$DPR" --no-pci ${DPR_EAL_MEM-$(eal_mem)} --file-prefix "dpr-$T-$TAG" "${eal[@]}" -- \
		-c "$cfg" --stats-file "$WORK/stats.json" "${app[@]}" \
		> "$WORK/dpr.log" 2>&1 &
	DPR_PID=$!
	for _ in $(seq 300); do
		grep -q "forwarding on" "$WORK/dpr.log" && return 0
		kill -0 "$DPR_PID" 2>/dev/null || break
		sleep 0.1
	done
	die "dpr did not start (log: $WORK/dpr.log)"
}

# stop_dpr: SIGTERM, and dpr must exit 0 having written its counters
stop_dpr() {
	local rc
	kill -TERM "$DPR_PID"
	# Bounded: a dpr that does not exit fails here, with its log's end,
	# instead of hanging the test into meson's timeout (one failure, not
	# a second one for the exit status the kill gives it).
	if ! wait_for 60 eval "! kill -0 $DPR_PID 2>/dev/null"; then
		not_ok "dpr exits 0 on SIGTERM: still running 60 s after it, killed (log: $WORK/dpr.log)"
		tail -n 20 "$WORK/dpr.log" | sed 's/^/# /'
		# Where it hangs, for the next one to look at: every thread's
		# stack (gdb is optional; the kill follows either way).
		if command -v gdb >/dev/null; then
			echo "# --- dpr's threads where it hangs ---"
			timeout 60 gdb -p "$DPR_PID" -batch -ex "thread apply all bt" 2>&1 |
				grep -E '^(Thread|#[0-9])' | head -n 120 | sed 's/^/# /'
		fi
		kill -KILL "$DPR_PID" 2>/dev/null
		wait "$DPR_PID" 2>/dev/null
		DPR_PID=
		return
	fi
	wait "$DPR_PID"
	rc=$?
	DPR_PID=
	check "dpr exits 0 on SIGTERM (got $rc)" test "$rc" -eq 0
}

# wait_dpr: for runs that end by themselves (--max-packets)
wait_dpr() {
	local rc
	wait "$DPR_PID"
	rc=$?
	DPR_PID=
	check "dpr exits 0 by itself (got $rc)" test "$rc" -eq 0
}

# bg_in NS LOG COMMAND...: a daemon beside dpr, COMMAND in namespace NS in
# the background, its output appended to LOG; bg_stop stops every one
# (SIGTERM, and waits), as the test's exit does.
BG_PIDS=()
bg_in() {
	ip netns exec "$1" "${@:3}" >> "$2" 2>&1 &
	BG_PIDS+=($!)
}
bg_stop() {
	local p
	for p in "${BG_PIDS[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
	BG_PIDS=()
}
AT_EXIT+=(bg_stop)

# ctl ARGS...: dprctl on this test's socket
ctl() { "$DPRCTL" -s "$SOCK" "$@"; }

# counter EXPR [FILE]: evaluate a Python expression over the stats JSON
# (dpr's --stats-file, or FILE) as S, with helpers port(name) and worker(i)
counter() {
	python3 - "${2:-$WORK/stats.json}" "$1" <<'PY'
import json, sys
S = json.load(open(sys.argv[1]))
port = lambda n: next(p for p in S["ports"] if p["name"] == n)
worker = lambda i: S["workers"][i]
print(eval(sys.argv[2]))
PY
}

# route_of ADDR: what route.get answers, as "PREFIX TYPE VIA[,VIA] SOURCE
# PROTOCOL" ("none" without a route)
route_of() {
	ctl --json route get "$1" 2>/dev/null | python3 -c 'import json, sys
try:
    r = json.load(sys.stdin)
except ValueError:
    print("none"); sys.exit()
vias = [n["via"] for n in r.get("nexthops", [])] or [r.get("via", "-")]
print(r.get("prefix"), r.get("type"), ",".join(sorted(vias)), r.get("source", "?"), r.get("protocol", "-"))'
}
is_route() { [[ $(route_of "$1") == "$2"* ]]; } # is_route ADDR "PREFIX [TYPE [VIA [SOURCE]]]"
no_route() { [ "$(route_of "$1")" = none ]; }

# check_accounting: rx == forwarded + exception + sum(drops), everywhere; what
# each device received, counted; every exception reached the control thread
# (dpr's exit report)
check_accounting() {
	local bad
	bad=$(python3 - "$WORK/stats.json" <<'PY'
import json, sys
S = json.load(open(sys.argv[1]))
bad = []
for kind, items in (("port", S["ports"]), ("worker", S["workers"]), ("total", [S["total"]])):
    for i, c in enumerate(items):
        s = c["forwarded"] + c["exception"] + sum(c["drops"].values())
        if c["rx"] != s or c["dropped"] != sum(c["drops"].values()):
            bad.append("%s %s: rx %d != forwarded %d + exception %d + drops %d"
                       % (kind, c.get("name", i), c["rx"], c["forwarded"], c["exception"],
                          sum(c["drops"].values())))
t = S["total"]
if t["forwarded"] != sum(w["tx"] for w in S["workers"]):
    bad.append("forwarded %d != tx %d" % (t["forwarded"], sum(w["tx"] for w in S["workers"])))
# Each packet a port's TX queue refused is a tx_full drop where it came in.
if t["tx_refused"] != t["drops"]["tx_full"]:
    bad.append("tx_refused %d != drops.tx_full %d" % (t["tx_refused"], t["drops"]["tx_full"]))
# What the ports' devices delivered, the workers counted as received (on
# a port, its VLAN interfaces or deleted ones; none is left in an RX queue
# of a stopped dpr).
nics = [p["nic"]["rx_packets"] for p in S["ports"] if "nic" in p]
if len(nics) == sum(1 for p in S["ports"] if "parent" not in p) and sum(nics) != t["rx"]:
    bad.append("the devices received %d, the workers counted %d" % (sum(nics), t["rx"]))
# What workers handed over, the control thread took off the rings, by
# class, once dpr stopped (the exit report comes after a last drain).
for cls, n in S["control_exceptions"].items():
    if n != t["exceptions"][cls]:
        bad.append("exceptions.%s %d, the control thread received %d" % (cls, t["exceptions"][cls], n))
print("; ".join(bad))
PY
)
	if [ -z "$bad" ]; then ok "counters add up (rx == forwarded + exception + drops)"
	else not_ok "counters do not add up: $bad"; fi
}

# hugetlbfs files left behind by dpr
huge_leftovers() {
	local n=0 m
	for m in $(awk '$3 == "hugetlbfs" {print $2}' /proc/mounts); do
		n=$((n + $(find "$m" -maxdepth 1 -name "dpr-$T-$TAG*" 2>/dev/null | wc -l)))
	done
	echo $n
}

TRAFFIC="$SMOKE_DIR/traffic.py"

# recv_start NS PORT NAME [--ipv6]: a UDP counter in NS; recv_stop NAME prints "count flows"
recv_start() {
	ip netns exec "$1" python3 "$TRAFFIC" udp-recv "$2" "$WORK/$3" "${@:4}" &
	eval "RECV_$3=$!"
	for _ in $(seq 100); do [ -f "$WORK/$3.ready" ] && return 0; sleep 0.05; done
	die "receiver $3 did not start"
}
recv_stop() {
	local pid
	eval "pid=\$RECV_$1"
	sleep 0.5 # let the last packets in flight land
	kill -TERM "$pid"
	wait "$pid" 2>/dev/null
	# Called as $(recv_stop ...), wait is a subshell's and returns at
	# once: the receiver may still hold its port when the next binds it.
	wait_for 10 eval "! kill -0 $pid 2>/dev/null"
	cat "$WORK/$1"
}

#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The Prometheus endpoint ("metrics": {"listen": ...}): GET /metrics answers
# text that promtool accepts without a complaint, whose values are those of
# stats.get (forwarded packets, drops by reason, exceptions by class, FIB
# routes, neighbours by state, routes by source, busy cycles); other paths
# get 404, other methods 405; a second dpr on the same address refuses to
# start and says why. With a VRF "red" on VLAN 100 of p1 (p1.100): each
# interface's series carry its VRF (the VLAN interface's too), and each
# VRF's routes, FIB memory and interface count are gauges labelled vrf;
# dprctl doctor warns about red's DIR-24-8 tables and, with p1's link down,
# about p1.100.
source "$(dirname "$0")/lib.sh"
need_root

PROMTOOL=${PROMTOOL:-/usr/bin/promtool}
[ -x "$PROMTOOL" ] || die "no promtool at $PROMTOOL (Debian package prometheus: scripts/setup.sh)"

# A port from the tag, so that parallel runs of the test do not meet.
MPORT=$((20000 + 0x$TAG % 20000))
MADDR=127.0.0.1:$MPORT
RMAC=02:00:00:00:01:01 HMAC=02:00:00:00:01:02
two_hosts
two_hosts_config "$WORK/dpr.json" 2 '"routes": [{"prefix": "198.51.100.0/24", "via": "10.0.2.2"},
    {"prefix": "10.88.0.0/16", "port": "p1.100", "vrf": "red"},
    {"prefix": "10.89.0.0/16", "port": "p1.100", "vrf": "red"}],
  "vrfs": [{"name": "red", "table": 100}],
  "vlans": [{"name": "p1.100", "port": "p1", "id": 100, "vrf": "red",
             "addresses": ["10.9.0.1/24"], "tap": false}],
  "metrics": {"listen": "'"$MADDR"'"}'
start_dpr "$WORK/dpr.json" -l 0,1 -- --idle-sleep 100
check "dpr says where it serves the metrics" \
	grep -q "serving Prometheus metrics on http://$MADDR/metrics" "$WORK/dpr.log"
check "config.get shows the endpoint" \
	test "$(ctl config | python3 -c 'import json, sys; print(json.load(sys.stdin)["metrics"]["listen"])')" = "$MADDR"

# An api route through a gateway nobody has resolved: one incomplete neighbour.
ctl route add 203.0.113.0/24 via 10.0.2.99 >/dev/null || not_ok "dprctl route add failed"

# An input ACL on p0 that denies UDP to port 7002: its rule's hits and
# the acl drops come out as metrics.
ctl acl set m '[{"action": "deny", "proto": "udp", "dst_port": 7002}]' >/dev/null ||
	not_ok "dprctl acl set failed"
ctl acl bind m p0 in >/dev/null || not_ok "dprctl acl bind failed"

recv_start "$H2" 7001 r
raw() { ip netns exec "$H1" python3 "$TRAFFIC" raw-send eth0 "$@" --dport 7001; }
raw $RMAC $HMAC 10.0.1.2 10.0.2.2 12 --ttl 64                      # forwarded
raw $RMAC $HMAC 10.0.1.2 10.0.2.2 9 --ttl 1                        # ttl_expired
raw $RMAC $HMAC 10.0.1.2 10.0.2.2 15 --bad-checksum                # bad_checksum
raw $RMAC $HMAC 127.0.0.1 10.0.2.2 3                               # martian
ip netns exec "$H1" python3 "$TRAFFIC" raw-send eth0 $RMAC $HMAC 10.0.1.2 10.0.2.2 4 --ttl 64 \
	--dport 7002                                                # acl
got=$(recv_stop r)
count=${got% *}
check "h2 received the 12 good datagrams (got $count)" test "$count" -eq 12

# scrape PATH OUT [METHOD]: prints the HTTP status and the Content-Type
scrape() {
	python3 - "http://$MADDR$1" "$2" "${3:-GET}" <<'PY'
import sys, urllib.request, urllib.error
req = urllib.request.Request(sys.argv[1], method=sys.argv[3])
try:
    r = urllib.request.urlopen(req, timeout=10)
except urllib.error.HTTPError as e:
    r = e
except Exception as e:
    print("error", e)
    sys.exit(0)
open(sys.argv[2], "wb").write(r.read())
print(r.status, r.headers.get("Content-Type"))
PY
}

# One scrape and one stats.get right after: nothing moves in between (no
# traffic, static neighbours, idle workers).
st=$(scrape /metrics "$WORK/metrics.txt")
ctl --json stats > "$WORK/live.json" || not_ok "dprctl stats failed"
check "GET /metrics answers 200 text/plain; version=0.0.4 (got $st)" \
	test "$st" = "200 text/plain; version=0.0.4; charset=utf-8"
lint=$("$PROMTOOL" check metrics < "$WORK/metrics.txt" 2>&1)
rc=$?
check "promtool check metrics accepts it without a complaint (rc $rc: ${lint:0:300})" \
	test "$rc" -eq 0 -a -z "$lint"
check "every metric has # HELP and # TYPE" python3 - "$WORK/metrics.txt" <<'PY'
import sys
helps, types, names = set(), set(), set()
for l in open(sys.argv[1]):
    if l.startswith("# HELP "): helps.add(l.split()[2])
    elif l.startswith("# TYPE "): types.add(l.split()[2])
    elif l.strip(): names.add(l.split("{")[0].split()[0])
sys.exit(0 if names and names <= helps and names <= types else 1)
PY

# metric 'NAME{LABELS}' (exactly as written) and live EXPR: one value each
metric() {
	python3 - "$WORK/metrics.txt" "$1" <<'PY'
import sys
want = sys.argv[2]
for l in open(sys.argv[1]):
    if not l.startswith("#") and l.rsplit(" ", 1)[0] == want:
        print(l.rsplit(" ", 1)[1].strip()); break
else:
    print("missing")
PY
}
live() { counter "$1" "$WORK/live.json"; }
# same 'NAME{LABELS}' EXPR [EXPECTED]: the metric equals stats.get's value
# (and EXPECTED, when given)
same() {
	local m l
	m=$(metric "$1") l=$(live "$2")
	if [ "$m" = "$l" ] && { [ -z "${3:-}" ] || [ "$m" = "$3" ]; }; then
		ok "$1 = $m, as stats.get $2${3:+ (expected $3)}"
	else
		not_ok "$1 = $m, stats.get $2 = $l${3:+, expected $3}"
	fi
}
same 'dpr_port_forwarded_packets_total{port="p0",vrf="default"}' 'port("p0")["forwarded"]' 12
same 'dpr_port_tx_packets_total{port="p1",vrf="default"}' 'port("p1")["tx"]' 12
same 'dpr_port_rx_packets_total{port="p0",vrf="default"}' 'port("p0")["rx"]'
same 'dpr_port_drops_total{port="p0",vrf="default",reason="bad_checksum"}' 'port("p0")["drops"]["bad_checksum"]' 15
same 'dpr_port_drops_total{port="p0",vrf="default",reason="martian"}' 'port("p0")["drops"]["martian"]' 3
same 'dpr_port_drops_total{port="p0",vrf="default",reason="acl"}' 'port("p0")["drops"]["acl"]' 4
same 'dpr_port_drops_total{port="p0",vrf="default",reason="urpf"}' 'port("p0")["drops"]["urpf"]' 0
same 'dpr_port_drops_total{port="p0",vrf="default",reason="control_plane"}' 'port("p0")["drops"]["control_plane"]' 0
check "dpr_acl_rule_hits_total of the deny rule on p0 in is 4 (got $(metric 'dpr_acl_rule_hits_total{acl="m",rule="0",action="deny",interface="p0",direction="in"}'))" \
	test "$(metric 'dpr_acl_rule_hits_total{acl="m",rule="0",action="deny",interface="p0",direction="in"}')" = 4
check "the ACL's default hits are there" \
	test "$(metric 'dpr_acl_rule_hits_total{acl="m",rule="default",action="permit",interface="p0",direction="in"}')" != missing
same 'dpr_port_exceptions_total{port="p0",vrf="default",class="ttl_expired"}' 'port("p0")["exceptions"]["ttl_expired"]' 9
same 'dpr_worker_forwarded_packets_total{worker="0"}' 'worker(0)["forwarded"]' 12
same 'dpr_worker_drops_total{worker="0",reason="bad_checksum"}' 'worker(0)["drops"]["bad_checksum"]' 15
same 'dpr_worker_busy_cycles_total{worker="0"}' 'worker(0)["busy_cycles"]'
check "worker 0 counted busy cycles" test "$(metric 'dpr_worker_busy_cycles_total{worker="0"}')" -gt 0
same 'dpr_port_nic_rx_packets_total{port="p0",vrf="default"}' 'port("p0")["nic"]["rx_packets"]'
same 'dpr_control_exceptions_total{class="ttl_expired"}' 'S["control_exceptions"]["ttl_expired"]' 9
same 'dpr_exception_path_events_total{event="icmp_time_exceeded"}' 'S["exception_path"]["icmp_time_exceeded"]'
same 'dpr_fib_routes{family="ipv4"}' 'S["fib"]["ipv4_routes"]'
same 'dpr_fib_memory_bytes{family="ipv4"}' 'S["fib"]["ipv4_memory_bytes"]'
same 'dpr_fib_control_bytes{family="ipv4"}' 'S["fib"]["ipv4_control_bytes"]'
same 'dpr_fib_tbl8_groups{family="ipv4"}' 'S["fib"]["ipv4_tbl8_groups"]' 64
same 'dpr_fib_routes{family="ipv6"}' 'S["fib"]["ipv6_routes"]'
same 'dpr_neighbors{state="reachable"}' 'S["neighbors"]["reachable"]' 2
same 'dpr_neighbors{state="incomplete"}' 'S["neighbors"]["incomplete"]' 1
same 'dpr_neighbors_static' 'S["neighbors"]["static"]' 2
same 'dpr_routes_active{source="config"}' 'S["route_sources"]["config"]["active"]' 1
same 'dpr_routes_active{source="api"}' 'S["route_sources"]["api"]["active"]' 1
same 'dpr_nexthops' 'S["nexthops"]'
# A host in VLAN 100 (red) resolves and pings p1.100: traffic on the VLAN
# interface.
r=$(ip netns exec "$H2" python3 "$SMOKE_DIR/vlanhost.py" probe eth0 100 02:00:00:aa:02:02 10.9.0.2 10.9.0.1)
check "p1.100 answers ARP and ping in VLAN 100 ($r)" \
	python3 -c 'import json, sys; r = json.loads(sys.argv[1]); sys.exit(not (r["arp_vid"] == 100 and r["echo_vid"] == 100))' "$r"
# Scraped again after it.
scrape /metrics "$WORK/metrics.txt" >/dev/null
ctl --json stats > "$WORK/live.json" || not_ok "dprctl stats failed"
lint=$("$PROMTOOL" check metrics < "$WORK/metrics.txt" 2>&1)
check "promtool accepts the VRF and VLAN series too (${lint:0:300})" test -z "$lint"
vrf() { echo 'next(v for v in S["vrfs"] if v["name"] == "'"$1"'")'; }
same 'dpr_port_rx_packets_total{port="p1.100",vrf="red"}' 'port("p1.100")["rx"]'
check "p1.100 counted the probe's ARP and echo ($(metric 'dpr_port_rx_packets_total{port="p1.100",vrf="red"}'))" \
	test "$(metric 'dpr_port_rx_packets_total{port="p1.100",vrf="red"}')" -ge 2
same 'dpr_vrf_info{vrf="red",table="100"}' '1' 1
same 'dpr_vrf_interfaces{vrf="red"}' '1' 1
same 'dpr_vrf_interfaces{vrf="default"}' '2' 2
same 'dpr_vrf_routes{vrf="red",family="ipv4"}' "$(vrf red)[\"fib\"][\"ipv4_routes\"]"
same 'dpr_vrf_routes{vrf="default",family="ipv4"}' 'S["fib"]["ipv4_routes"]'
same 'dpr_vrf_fib_memory_bytes{vrf="red",family="ipv4"}' "$(vrf red)[\"fib\"][\"ipv4_memory_bytes\"]"
same 'dpr_vrf_fib_memory_bytes{vrf="red",family="ipv6"}' "$(vrf red)[\"fib\"][\"ipv6_memory_bytes\"]"
check "red's routes: its connected, local and two config routes, none of the default's ($(metric 'dpr_vrf_routes{vrf="red",family="ipv4"}'))" \
	test "$(metric 'dpr_vrf_routes{vrf="red",family="ipv4"}')" -ge 2 -a \
	"$(metric 'dpr_vrf_routes{vrf="red",family="ipv4"}')" -lt "$(metric 'dpr_vrf_routes{vrf="default",family="ipv4"}')"

st=$(scrape /other "$WORK/other.txt")
check "GET /other answers 404 (got $st)" test "${st%% *}" = 404
st=$(scrape /metrics "$WORK/post.txt" POST)
check "POST /metrics answers 405 (got $st)" test "${st%% *}" = 405

# A second dpr on the same address: refuses to start, naming it.
# Its own socket, null ports and no TAPs: nothing of the first one's touched.
sed -e "s#\"$SOCK\"#\"$WORK/dpr2.sock\"#" \
	-e "s#net_af_packet_${TAG}\([ab]\),iface=[^\"]*\"#net_null_${TAG}\1\"#" \
	-e 's#"tap": "[^"]*"#"tap": false#' \
	"$WORK/dpr.json" > "$WORK/dpr2.json"
# shellcheck disable=SC2046
timeout 60 "$DPR" --no-pci $(eal_mem) --file-prefix "dpr-$T-$TAG-2" -l 0,1 -- \
	-c "$WORK/dpr2.json" > "$WORK/dpr2.log" 2>&1
rc=$?
rm -rf "/var/run/dpdk/dpr-$T-$TAG-2"
check "a second dpr on $MADDR exits non-zero (got $rc)" test "$rc" -ne 0 -a "$rc" -ne 124
check "... saying the address is in use" \
	grep -q "dpr: metrics: listen on $MADDR: Address already in use" "$WORK/dpr2.log"
st=$(scrape /metrics "$WORK/metrics2.txt")
check "the first dpr still serves its metrics (got $st)" test "${st%% *}" = 200

# The doctor knows the VRF and the VLAN interface: red on DIR-24-8 costs
# its own tables; with p1's link down, p1.100 carries nothing.
out=$(ctl doctor 2>&1)
check "dprctl doctor: VRF red's DIR-24-8 tables and their cost" \
	grep -q "warning: vrf: VRF red: its DIR-24-8 FIBs" <<<"$out"
ip link set "$V1" down
for _ in $(seq 50); do
	out=$(ctl doctor 2>&1)
	grep -q "VLAN interface p1.100" <<<"$out" && break
	sleep 0.1
done
check "dprctl doctor: p1.100's port p1 is down (${out:0:400})" \
	grep -q "warning: vlan: VLAN interface p1.100 (VLAN 100 of p1, VRF red): port p1's link is down" <<<"$out"
ip link set "$V1" up

stop_dpr
check_accounting
finish

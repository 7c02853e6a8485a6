#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The truth about each port while dpr runs (dprctl port show, dprctl
# doctor): two af_packet ports, two workers.
#   port show says what the device granted: driver, software PMD and the
#   rate to expect of it, link, queues and descriptors against the profile,
#   RSS and offloads granted and refused, NUMA; an unknown port is named;
#   doctor also gives dpr-doctor's machine checks on dpr's own config and
#   lcores; 64 flows spread over the queues raise nothing; one UDP flow puts
#   every packet on one worker's queue: doctor and telemetry list rss_skew
#   for p0, and the log says it once however long it lasts; an MTU the
#   device cannot receive is refused at start with the range it takes.
source "$(dirname "$0")/lib.sh"
need_root

two_hosts
two_hosts_config "$WORK/dpr.json" 3
start_dpr "$WORK/dpr.json" --lcores "0@0,1@0,2@1" -- --idle-sleep 100

# --- port show ------------------------------------------------------------------------------
show=$(ctl port show p0)
echo "$show" | sed 's/^/# /'
check "port show names the driver and says it is software" \
	grep -q "^p0: net_af_packet (software, bus vdev)" <<<"$show"
check "port show says what rate to expect of it" grep -q "expect: *software: .*Mpps per queue" <<<"$show"
check "port show gives the link" grep -Eq "link: +up," <<<"$show"
f() { ctl --json port show p0 | python3 -c "import json, sys; J = json.load(sys.stdin); print($1)"; }
check "3 RX queues (2 workers + the control thread's, equal_queues) of descriptors the profile asks" \
	test "$(f 'J["queues"]["rx"], J["queues"]["rx_desc"] == J["queues"]["rx_desc_profile"]')" = "3 True"
check "NUMA: the port, its mempool and both workers on one node" \
	test "$(f 'J["numa"]["ok"], len(J["numa"]["workers"])')" = "True 2"
check "RSS: af_packet's profile asks for no fields, none refused" \
	test "$(f 'J["rss"]["granted"], J["rss"]["refused"]')" = "[] []"
out=$(ctl port show p9 2>&1)
check "an unknown port is named, with the ports there are ($out)" \
	grep -q 'no port "p9" (ports: p0, p1)' <<<"$out"
# port_warnings: how many warnings dpr has about its ports (the machine's
# own, dpr-doctor's, are checked below)
port_warnings() { ctl --json doctor | python3 -c 'import json, sys; print(len(json.load(sys.stdin)["warnings"]))'; }
check "nothing to warn about at rest" test "$(port_warnings)" = 0
# dpr-doctor's machine checks, run by dpr on its own config and lcores.
mj=$(ctl --json doctor | python3 -c 'import json, sys
m = json.load(sys.stdin)["machine"]
print(" ".join(sorted({f["check"] for f in m})), sum(f["severity"] in ("warning", "error") for f in m))')
echo "# machine checks: $mj"
check "doctor runs the machine checks on dpr's config (config, hugepages among them)" \
	grep -q "config.*hugepages" <<<"$mj"
n=$(ctl doctor | grep -cE "^(warning|error): (iommu|vfio|hugepages|nic|pcie|firmware|config|isolation|numa|lcores|system): ")
check "dprctl doctor prints each machine warning and error (${mj##* } in JSON, $n printed)" \
	test "$n" -eq "${mj##* }"

# --- 64 flows: spread ---------------------------------------------------------------------------
ip netns exec "$H1" python3 "$TRAFFIC" udp-send 10.0.2.2 5001 20000 --flows 64
sleep 2
rx=$(ctl --json stats | python3 -c 'import json, sys; J = json.load(sys.stdin); print(" ".join(str(w["rx"]) for w in J["workers"]))')
echo "# per worker rx after 64 flows: $rx"
check "64 flows: no warning" test "$(port_warnings)" = 0

# --- one flow: everything on one queue ----------------------------------------------------------
# (When a condition ends is test_watch's: here it would cost its 10 quiet seconds.)
# Paced, so that the flow's ring never fills: af_packet's fanout rolls a full
# queue's packets over to the others (seen under ASan), which is a spread.
skew() { ctl doctor | grep -q "^warning: p0 rss_skew"; }
one_flow() { ip netns exec "$H1" python3 "$TRAFFIC" udp-send 10.0.2.2 5001 6000 --flows 1 --gap 0.0002; }
one_flow
check "one flow: doctor lists rss_skew for p0" wait_for 5 skew
tel=$(printf '%s\n' /dpr/port,p0 /dpr/doctor | timeout 20 dpdk-telemetry.py -f "dpr-$T-$TAG" 2>&1)
check "telemetry /dpr/port,p0 has the port's facts" grep -q '"kind": "software".*"numa/ok": 1' <<<"$(tr -d '\n' <<<"$tel")"
check "telemetry /dpr/doctor has the warning" grep -q '"p0/rss_skew"' <<<"$tel"
ctl doctor | sed 's/^/# /'
one_flow
sleep 1.5
n=$(grep -c "port p0: worker [0-9] took .* RSS puts nearly everything on one queue" "$WORK/dpr.log")
check "the log says it once, though it went on ($n)" test "$n" -eq 1

stop_dpr
check_accounting

# An MTU past what the PMD receives (af_packet: frames of 1518 bytes at
# most, max_rx_pktlen; its max_mtu says nothing) is refused with the range,
# not rte_eth_dev_configure()'s bare "Invalid argument".
sed 's/"mac": "02:00:00:00:01:01",/& "mtu": 9000,/' "$WORK/dpr.json" > "$WORK/mtu.json"
# shellcheck disable=SC2046
out=$("$DPR" --no-pci ${DPR_EAL_MEM-$(eal_mem)} --file-prefix "dpr-$T-$TAG-mtu" -l 0,1 -- \
	-c "$WORK/mtu.json" 2>&1 | grep "^dpr: config: port p0")
check "mtu 9000 on af_packet is refused with what it takes ($out)" \
	grep -q 'mtu 9000 is outside what net_af_packet supports ([0-9]* to 1500)' <<<"$out"
finish

#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Bounded run (--max-packets): a pcap replayed in a loop (net_pcap,
# infinite_rx) into net_null. dpr must stop by itself after exactly N
# packets, having forwarded and dropped exactly what the file says.
source "$(dirname "$0")/lib.sh"
need_root

# 1000 frames to net_pcap0's MAC: 900 to routed destinations, 100 with TTL 1.
python3 - "$WORK/in.pcap" <<'PY'
import socket, struct, sys
def csum(b):
    s = sum(struct.unpack("!10H", b))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff
out = open(sys.argv[1], "wb")
out.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
for i in range(1000):
    ttl = 1 if i % 10 == 9 else 64
    dst = socket.inet_aton("198.51.%d.%d" % (100 + i % 2, i % 250 + 1))
    udp = struct.pack("!HHHH", 1000 + i, 53, 26, 0) + b"x" * 18
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), i, 0, ttl, 17, 0,
                     socket.inet_aton("10.0.1.2"), dst)
    ip = ip[:10] + struct.pack("!H", csum(ip)) + ip[12:]
    frame = bytes.fromhex("027063617000") + bytes.fromhex("020000000102") + b"\x08\x00" + ip + udp
    out.write(struct.pack("<IIII", 0, i, len(frame), len(frame)) + frame)
PY

cat > "$WORK/dpr.json" <<JSON
{
  "ports": [
    {"name": "in", "device": "net_pcap_${TAG},rx_pcap=$WORK/in.pcap,tx_pcap=/dev/null,tx_pcap=/dev/null,infinite_rx=1",
     "addresses": ["10.0.1.1/24"]},
    {"name": "out", "device": "net_null_${TAG},no-rx=1", "addresses": ["10.0.2.1/24"]}
  ],
  "neighbors": [{"address": "10.0.2.2", "mac": "02:00:00:00:02:02"}],
  "routes": [
    {"prefix": "198.51.100.0/24", "via": "10.0.2.2"},
    {"prefix": "198.51.101.0/24", "via": "10.0.2.2"}
  ],
  "control": {"socket": "$SOCK"},
  "fib": {"ipv4_max_routes": 1024, "ipv4_tbl8_groups": 64}
}
JSON

start_dpr "$WORK/dpr.json" -l 0,1 -- --max-packets 50000
wait_dpr
check "logs that the limit was reached" grep -q "packet limit 50000 reached" "$WORK/dpr.log"
check "received exactly 50000" test "$(counter 'S["total"]["rx"]')" -eq 50000
check "forwarded exactly 45000" test "$(counter 'port("in")["forwarded"]')" -eq 45000
check "sent 45000 out of the other port" test "$(counter 'port("out")["tx"]')" -eq 45000
# TTL-1 packets at line rate: the exception ring takes what the transit
# class's rate and share let through (lib/copp) and the control thread keeps
# up with, the rest are counted drops.
check "the 5000 TTL-1 packets: exception path, or counted over the transit class or at a full ring" \
	test "$(counter 'port("in")["exceptions"]["ttl_expired"] + port("in")["drops"]["exception_full"] + port("in")["drops"]["control_plane"]')" -eq 5000
check "cycles per packet reported" python3 -c "import json,sys; sys.exit(0 if json.load(open('$WORK/stats.json'))['workers'][0]['cycles_per_packet'] > 0 else 1)"
check_accounting

# --pipeline on and off: the same packets forwarded and counted either way.
for mode in on off; do
	start_dpr "$WORK/dpr.json" -l 0,1 -- --max-packets 50000 --pipeline $mode
	wait_dpr
	check "--pipeline $mode: forwarded exactly 45000" test "$(counter 'port("in")["forwarded"]')" -eq 45000
	check "--pipeline $mode: reported" test "$(counter 'worker(0)["pipeline"] + " " + str(worker(0)["pipelined"])')" = \
		"$mode $([ $mode = on ] && echo True || echo False)"
	check_accounting
done

# --pipeline auto (the default) long enough for one whole probe (2^24
# packets first, then 16 windows of 2^19, the way switched between each):
# every packet accounted.
start_dpr "$WORK/dpr.json" -l 0,1 -- --max-packets 26000000
wait_dpr
check "auto: one probe finished" test "$(counter 'worker(0)["pipeline_probes"]')" -eq 1
# What the probe measured: 16 windows, 8 each way, in pairs A B, B A...,
# each with its cycles a packet, and a way that follows the median of the
# pairs' ratios (more than 4 pairs won: below 1; fewer than 4: not).
check "auto: the probe's windows alternate in pairs" test "$(counter \
	'"".join("P" if x["pipelined"] else "O" for x in worker(0)["pipeline_last_probe"]["windows"])')" \
	= "OPPOOPPOOPPOOPPO"
check "auto: each window has its cost" test "$(counter \
	'all(x["cycles_per_packet"] > 0 for x in worker(0)["pipeline_last_probe"]["windows"])')" = True
check "auto: the way follows the median ratio" test "$(counter \
	'(lambda r: r == 1 or (r < 1) == worker(0)["pipelined"])(worker(0)["pipeline_last_probe"]["pipelined_over_at_once"])')" = True
check "auto: the pairs agree with the median" test "$(counter \
	'(lambda p: (p["pairs_pipelined_cheaper"] > 4) <= (p["pipelined_over_at_once"] < 1) <= (p["pairs_pipelined_cheaper"] >= 4))(worker(0)["pipeline_last_probe"])')" = True
check "auto: reported" test "$(counter 'worker(0)["pipeline"]')" = auto
check "auto: the exit summary gives the last probe's verdict" \
	grep -Eq ' (yes|no) \(auto, last probe [0-9]+\.[0-9]{3}\)' "$WORK/dpr.log"
check "auto: received exactly 26000000" test "$(counter 'S["total"]["rx"]')" -eq 26000000
check "auto: forwarded exactly 23400000" test "$(counter 'port("in")["forwarded"]')" -eq 23400000
check "auto: sent 23400000" test "$(counter 'port("out")["tx"]')" -eq 23400000
check_accounting
"$DPR" --no-pci -- -c "$WORK/dpr.json" --pipeline maybe > "$WORK/bad.log" 2>&1
check "--pipeline maybe is refused" grep -q 'expected auto, on or off' "$WORK/bad.log"
finish

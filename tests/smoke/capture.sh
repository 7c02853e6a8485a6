#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# What dpr did with packets, captured: dprctl capture writes pcapng of the
# drops (by reason) and exceptions (by class) asked for, filtered by port,
# each packet commented with what happened to it; dpdk-dumpcap attaches to
# a running dpr (EAL on hugepages, not --in-memory).
#   3 martians and 5 frames for another MAC are captured (8, the count
#   asked), each with its reason, while bad checksums and forwarded traffic
#   are not; tcpdump reads the file; the counters are as without a capture;
#   two TTL-1 packets from p0 are captured as exceptions ttl_expired, one
#   from p1 is not (port filter); an existing file, an unknown reason and a
#   second capture are refused with a clear message; dpdk-dumpcap records
#   pings crossing p1.
source "$(dirname "$0")/lib.sh"
need_root

RMAC=02:00:00:00:01:01 HMAC=02:00:00:00:01:02
two_hosts
two_hosts_config "$WORK/dpr.json"
# On hugepages without --in-memory: dpdk-dumpcap needs EAL's multi-process
# channel (scripts/setup.sh reserves and mounts them). The secondary maps
# dpr's memory at the same addresses: --base-virtaddr puts it far above
# where either process loads its libraries. Without it an ASan dpr (whose
# shadow covers EAL's default hint) has its memory among the libraries, at
# addresses a secondary may hold already: dumpcap then fails "Cannot init
# memory" (seen in one full suite run of five; made to happen by holding
# that address in dumpcap).
free_mb=$(awk '/HugePages_Free/ {f=$2} /Hugepagesize/ {s=$2} END {print int(f*s/1024)}' /proc/meminfo)
if [ "${free_mb:-0}" -ge 700 ] && grep -qs ' hugetlbfs ' /proc/mounts; then
	HUGE=1 DPR_EAL_MEM="-m 700 --base-virtaddr 0x300000000000"
else
	HUGE=0
fi
start_dpr "$WORK/dpr.json" -l 0,1 -- --idle-sleep 100
recv_start "$H2" 7001 r
raw() { ip netns exec "$H1" python3 "$TRAFFIC" raw-send eth0 "$@" --dport 7001; }
running() { ctl capture status | grep -q "(running)"; }

# pcapng FILE: "<interfaces> <packets>" then each packet's comment and
# "src>dst" (IPv4), from the blocks (pcapng: SHB, IDB type 1, EPB type 6).
pcapng() {
	python3 - "$1" <<'PY'
import socket, struct, sys
d = open(sys.argv[1], "rb").read()
off, idb, pkts = 0, 0, []
while off + 12 <= len(d):
    btype, blen = struct.unpack_from("<II", d, off)
    if blen < 12 or off + blen > len(d) or struct.unpack_from("<I", d, off + blen - 4)[0] != blen:
        print("bad block at", off); sys.exit(1)
    if btype == 1:
        idb += 1
    elif btype == 6:
        caplen = struct.unpack_from("<I", d, off + 20)[0]
        data = d[off + 28: off + 28 + caplen]
        o, comment = off + 28 + ((caplen + 3) & ~3), ""
        while o < off + blen - 4:
            code, ln = struct.unpack_from("<HH", d, o)
            if code == 0:
                break
            if code == 1:
                comment = d[o + 4:o + 4 + ln].decode()
            o += 4 + ((ln + 3) & ~3)
        ip = data[14:34]
        pkts.append("%s|%s>%s|%s" % (comment, socket.inet_ntoa(ip[12:16]), socket.inet_ntoa(ip[16:20]),
                                     data[0:6].hex(":")))
    off += blen
print(idb, len(pkts))
print("\n".join(pkts))
PY
}

# stamps FILE: the first and last packet's time in whole seconds since the
# epoch (EPB timestamps; DPDK's interfaces say if_tsresol 9, nanoseconds).
stamps() {
	python3 - "$1" <<'PY'
import struct, sys
d = open(sys.argv[1], "rb").read()
off, ts = 0, []
while off + 12 <= len(d):
    btype, blen = struct.unpack_from("<II", d, off)
    if blen < 12:
        break
    if btype == 6:
        hi, lo = struct.unpack_from("<II", d, off + 12)
        ts.append(((hi << 32) | lo) // 10**9)
    off += blen
print(min(ts), max(ts)) if ts else print("none")
PY
}
# near_now FILE T0 T1: every packet's time within a second of [T0, T1].
near_now() {
	local t
	t=$(stamps "$1")
	echo "# $1: packets at $t, caught between $2 and $3"
	[ "$t" != none ] && awk -v a="${t% *}" -v b="${t#* }" -v t0="$2" -v t1="$3" \
		'BEGIN { exit !(a >= t0 - 1 && b <= t1 + 1) }'
}

# --- drops -----------------------------------------------------------------------------
T0=$(date +%s)
ctl capture -w "$WORK/drops.pcapng" --drop martian --drop other_host -c 8 \
	> "$WORK/cap1.out" 2>&1 &
CAP=$!
check "the capture runs" wait_for 5 running
out=$(ctl capture -w "$WORK/other.pcapng" 2>&1)
check "a second capture is refused while one runs ($out)" grep -q "one is running (to $WORK/drops.pcapng)" <<<"$out"
raw $RMAC $HMAC 10.0.1.2 10.0.2.2 2 --bad-checksum                  # bad_checksum: not asked
raw $RMAC $HMAC 10.0.1.2 10.0.2.2 4                                 # forwarded
raw $RMAC $HMAC 127.0.0.1 10.0.2.2 3                                # martian
raw 02:00:00:00:09:09 $HMAC 10.0.1.2 10.0.2.2 5                     # other_host
done_cap() { ! kill -0 "$CAP" 2>/dev/null; }
# stop_cap: a capture still running is stopped (SIGINT: dprctl asks dpr
# to stop and prints what it got), so that a missing packet fails the
# checks below instead of hanging the test.
stop_cap() {
	done_cap && return
	kill -INT "$CAP" 2>/dev/null
	wait_for 5 done_cap || kill -KILL "$CAP" 2>/dev/null
}
check "dprctl capture ends at its count" wait_for 20 done_cap
stop_cap
wait "$CAP"; rc=$?
sed 's/^/# /' "$WORK/cap1.out"
check "it exits 0 and says what it wrote (rc $rc)" \
	grep -q "drops.pcapng: 8 packets, .* (packet limit)" "$WORK/cap1.out"
got=$(pcapng "$WORK/drops.pcapng")
echo "$got" | sed 's/^/# /'
# Interfaces: 22.11 names every DPDK port (the TAPs too), 23.11 those dpr adds.
check "the file names the ports' interfaces and has 8 packets" \
	test "$(head -1 <<<"$got" | awk '{print ($1 >= 2) " " $2}')" = "1 8"
check "3 commented \"drop martian on p0\", from 127.0.0.1" \
	test "$(grep -c '^drop martian on p0|127.0.0.1>10.0.2.2|' <<<"$got")" -eq 3
check "5 commented \"drop other_host on p0\", to the other MAC" \
	test "$(grep -c '^drop other_host on p0|10.0.1.2>10.0.2.2|02:00:00:00:09:09' <<<"$got")" -eq 5
n=$(tcpdump -r "$WORK/drops.pcapng" -n 2>/dev/null | wc -l)
check "tcpdump reads the 8 packets ($n)" test "$n" -eq 8
check "each packet's time is the wall clock's when it was caught" \
	near_now "$WORK/drops.pcapng" "$T0" "$(date +%s)"
year=$(TZ=UTC tcpdump -tttt -nr "$WORK/drops.pcapng" 2>/dev/null | head -1 | cut -c1-4)
check "tcpdump shows this year ($year)" test "$year" = "$(date -u +%Y)"
sleep 0.5
check "the far host got the 4 forwarded, nothing else" test "$(recv_stop r | cut -d' ' -f1)" -eq 4
check "3 counted martian, as without a capture" test "$(ctl --json stats | python3 -c 'import json,sys; print(json.load(sys.stdin)["ports"][0]["drops"]["martian"])')" -eq 3

# --- exceptions, one port ------------------------------------------------------------------
ctl capture -w "$WORK/exc.pcapng" --exception ttl_expired --port p0 -c 2 > "$WORK/cap2.out" 2>&1 &
CAP=$!
check "the exception capture runs" wait_for 5 running
ip netns exec "$H2" python3 "$TRAFFIC" raw-send eth0 02:00:00:00:02:01 02:00:00:00:02:02 \
	10.0.2.2 10.0.1.2 1 --ttl 1 --dport 7001                     # from p1: not asked
raw $RMAC $HMAC 10.0.1.2 10.0.2.2 2 --ttl 1
check "it ends at its count" wait_for 20 done_cap
stop_cap
wait "$CAP"
sed 's/^/# /' "$WORK/cap2.out"
got=$(pcapng "$WORK/exc.pcapng")
echo "$got" | sed 's/^/# /'
check "2 packets, both \"exception ttl_expired on p0\"" \
	test "$(grep -c '^exception ttl_expired on p0|10.0.1.2>10.0.2.2' <<<"$got"), $(head -1 <<<"$got" | cut -d' ' -f2)" = "2, 2"

# --- refusals -----------------------------------------------------------------------------
out=$(ctl capture -w "$WORK/exc.pcapng" 2>&1)
check "an existing file is not overwritten ($out)" grep -q "cannot create $WORK/exc.pcapng: File exists" <<<"$out"
out=$(ctl capture -w "$WORK/x.pcapng" --drop nosuch 2>&1)
check "an unknown reason is named with the known ones ($out)" \
	grep -q "drops\[0\]: not one of: runt, other_host" <<<"$out"
out=$(ctl capture -w "$WORK/x.pcapng" --port p7 2>&1)
check "an unknown port is named ($out)" grep -q 'no port "p7"' <<<"$out"
check "status shows the last capture" grep -q "exc.pcapng: 2 packets" <<<"$(ctl capture status)"

# --- dpdk-dumpcap ------------------------------------------------------------------------------
if [ "$HUGE" = 1 ]; then
	T0=$(date +%s)
	timeout -k 5 20 dpdk-dumpcap --file-prefix "dpr-$T-$TAG" -i "net_af_packet_${TAG}b" -c 3 \
		-w "$WORK/dump.pcapng" -q > "$WORK/dumpcap.out" 2>&1 &
	DC=$!
	sleep 3
	ip netns exec "$H1" ping -c 4 -i 0.3 -W 1 -q 10.0.2.2 >/dev/null
	wait "$DC"; rc=$?
	sed 's/^/# /' "$WORK/dumpcap.out" | tail -5
	n=$(tcpdump -r "$WORK/dump.pcapng" -n icmp 2>/dev/null | wc -l)
	check "dpdk-dumpcap attached to dpr and recorded pings on p1 (rc $rc, $n packets)" \
		test "$rc" -eq 0 -a "$n" -ge 3
	check "dpdk-dumpcap's packets have the wall clock's time" \
		near_now "$WORK/dump.pcapng" "$T0" "$(date +%s)"
else
	not_ok "dpdk-dumpcap: no 700 MiB of free hugepages mounted (run scripts/setup.sh)"
fi
stop_dpr
check_accounting
finish

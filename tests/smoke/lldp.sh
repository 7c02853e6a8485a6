#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# LLDP through the host stack: lldpd runs beside dpr on its TAPs dpr-p0
# and dpr-p1, in the router namespace, and on h1 (behind p0, af_packet on
# a veth) and h2 (behind p1, net_tap, its kernel side moved to h2).
#   each host's lldpd sees dpr's (system name dpr-TAG, the port's MAC) on
#   its link, and dpr's lldpd sees each host on the TAP of the port it is
#   behind: LLDP crosses dpr both ways, counted as l2_control exceptions;
#   frames of an unrelated EtherType and an STP BPDU stay unsupported_l3,
#   one each; a capture by class holds the LLDP frames; port.list says how
#   each port lets the LLDP groups in.
source "$(dirname "$0")/lib.sh"
need_root
command -v lldpd >/dev/null && command -v lldpcli >/dev/null ||
	die "lldpd missing (apt-get install lldpd, or scripts/setup.sh)"

R=r-$TAG DPR_NETNS=r-$TAG H1=h1-$TAG H2=h2-$TAG V0=dv${TAG}a B=dt${TAG}b
netns "$R"; netns "$H1"; netns "$H2"
router_veth "$R" "$H1" "$V0"
host_addr "$H1" eth0 02:00:00:00:01:02 10.0.1.2/24 10.0.1.1 02:00:00:00:01:01

cat > "$WORK/dpr.json" <<JSON
{
  "ports": [
    {"name": "p0", "device": "net_af_packet_${TAG}a,iface=$V0,qpairs=2",
     "mac": "02:00:00:00:01:01", "addresses": ["10.0.1.1/24"]},
    {"name": "p1", "device": "net_tap_${TAG}b,iface=$B",
     "mac": "02:00:00:00:02:01", "addresses": ["10.0.2.1/24"]}
  ],
  "control": {"socket": "$SOCK"},
  "fib": {"ipv4_max_routes": 1024, "ipv4_tbl8_groups": 64}
}
JSON
start_dpr "$WORK/dpr.json" --lcores 0@0,1@1 -- --idle-sleep 100
ip -n "$R" link set "$B" netns "$H2" || die "cannot move $B to $H2"
host_addr "$H2" "$B" 02:00:00:00:02:02 10.0.2.2/24 10.0.2.1 02:00:00:00:02:01

# lldpd_start NS NAME IFACES: lldpd in NS as system NAME on IFACES, its
# socket $LLDP/NAME.sock, sending every second so that a frame lost while
# a link came up is followed by another at once. lldpcli, even root's,
# runs as user _lldpd: it must reach the sockets.
LLDP=$WORK/lldp
mkdir -p "$LLDP"
chmod a+x "$WORK"
chmod 755 "$LLDP"
lldpd_start() {
	printf '%s\n' "configure system hostname $2" "configure lldp tx-interval 1" \
		> "$LLDP/$2.conf"
	bg_in "$1" "$LLDP/$2.log" lldpd -d -u "$LLDP/$2.sock" -I "$3" -O "$LLDP/$2.conf"
}
lldp_post_mortem() {
	local p
	[ "$FAIL" -eq 0 ] || for p in "$LLDP"/*.lldp "$LLDP"/*.log; do
		[ -s "$p" ] && { echo "# --- $p ---"; sed 's/^/# /' "$p"; }
	done
}
AT_EXIT+=(lldp_post_mortem)
lldpd_start "$R" "dpr-$TAG" dpr-p0,dpr-p1
lldpd_start "$H1" "h1-$TAG" eth0
lldpd_start "$H2" "h2-$TAG" "$B"

# sees NS NAME IFACE PEER PORT-MAC: NAME's lldpd in NS has PEER as a
# neighbour on IFACE, by system name and the MAC of PEER's port (its
# chassis is one MAC for all its ports)
sees() {
	ip netns exec "$1" lldpcli -u "$LLDP/$2.sock" -f keyvalue show neighbors \
		> "$LLDP/$2.lldp" 2>&1
	grep -q "^lldp\.$3\.chassis\.name=$4\$" "$LLDP/$2.lldp" &&
		grep -q "^lldp\.$3\.port\.mac=$5\$" "$LLDP/$2.lldp"
}
check "h1's lldpd sees dpr's on eth0 (the port's MAC)" \
	wait_for 20 sees "$H1" "h1-$TAG" eth0 "dpr-$TAG" 02:00:00:00:01:01
check "h2's lldpd sees dpr's on $B (the port's MAC)" \
	wait_for 20 sees "$H2" "h2-$TAG" "$B" "dpr-$TAG" 02:00:00:00:02:01
check "dpr's lldpd sees h1 on dpr-p0" \
	wait_for 20 sees "$R" "dpr-$TAG" dpr-p0 "h1-$TAG" 02:00:00:00:01:02
check "dpr's lldpd sees h2 on dpr-p1" \
	wait_for 20 sees "$R" "dpr-$TAG" dpr-p1 "h2-$TAG" 02:00:00:00:02:02

# live EXPR: EXPR over stats.get now (counter's helpers)
live() { ctl --json stats > "$WORK/live.json" && counter "$1" "$WORK/live.json"; }
check "p0 counts LLDP as l2_control exceptions" \
	test "$(live 'port("p0")["exceptions"]["l2_control"]')" -gt 0
check "p1 counts LLDP as l2_control exceptions" \
	test "$(live 'port("p1")["exceptions"]["l2_control"]')" -gt 0
check "none was without a TAP (l2_control_unhandled 0)" \
	test "$(live 'S["exception_path"]["l2_control_unhandled"]')" -eq 0

# Not a protocol the host stack speaks: an IEEE 802 local experimental
# EtherType to the port's MAC and an STP BPDU (LLC 0x42) to the bridge
# group, from h1.
before=$(live 'port("p0")["drops"]["unsupported_l3"]')
ip netns exec "$H1" python3 - <<'PY'
import socket
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind(("eth0", 0))
src = bytes.fromhex("020000000102")
s.send(bytes.fromhex("020000000101") + src + b"\x88\xb5" + b"\x00" * 46)
s.send(bytes.fromhex("0180c2000000") + src + b"\x00\x26\x42\x42\x03" + b"\x00" * 43)
PY
unsupported() { [ "$(live 'port("p0")["drops"]["unsupported_l3"]')" -eq $((before + 2)) ]; }
check "an unrelated EtherType and an STP BPDU: 2 more unsupported_l3 on p0" wait_for 10 unsupported

mcast=$(ctl --json port list | python3 -c 'import json, sys
print(" ".join(p["multicast"] for p in json.load(sys.stdin)))')
check "port.list: af_packet has no multicast filter of its own, net_tap lists the groups ($mcast)" \
	test "$mcast" = "none groups"

# Capture by class: lldpd's frames as they came, marked with the class.
timeout 60 "$DPRCTL" -s "$SOCK" capture -w "$WORK/l2.pcapng" --exception l2_control -c 2 \
	> "$WORK/cap.out" 2>&1
captured=$(python3 -c 'import sys
d = open(sys.argv[1], "rb").read()
print(d.count(b"exception l2_control on p"), d.count(b"\x88\xcc\x02"))' "$WORK/l2.pcapng" 2>/dev/null)
check "capture --exception l2_control: 2 LLDP frames, marked l2_control ($captured)" \
	test "$captured" = "2 2"

bg_stop
stop_dpr
check_accounting
finish

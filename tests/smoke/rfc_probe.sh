#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# dpr against the rules of RFC 1812, RFC 791 and RFC 1191, probed with
# crafted frames from namespace hosts and judged by what the hosts receive:
#
#   h1 10.0.1.2 -- p0 10.0.1.1  dpr  p1 10.0.2.1 (mtu 1000) -- h2 10.0.2.2
#
# dpr's ports are net_tap ports whose kernel sides are moved into the hosts'
# namespaces, not af_packet: af_packet with several queues has the kernel
# reassemble IP fragments (PACKET_FANOUT_FLAG_DEFRAG) before dpr sees them,
# and these probes need every frame delivered exactly as sent, trailing
# bytes and all. No static neighbours: dpr learns the hosts by ARP, and the
# first probes run before it has heard from h1.
#
# Each host runs one rawprobe.py server that sends the probes and records
# every frame the host receives. A negative probe ("not forwarded", "no
# reply") is followed by a marker that takes the same way through dpr and is
# forwarded or answered; the probe is judged once the marker has arrived,
# never after a wait.
source "$(dirname "$0")/lib.sh"
need_root

H1=h1-$TAG H2=h2-$TAG
A=dr${TAG}a B=dr${TAG}b # the net_tap ports' kernel sides: h1's and h2's links
K0=dk${TAG}a K1=dk${TAG}b # dpr's host-stack TAPs
R0=02:00:00:00:01:01 R1=02:00:00:00:02:01 # dpr's MACs on p0 and p1
M1=02:00:00:00:01:02 M2=02:00:00:00:02:02 # h1's and h2's
BC=ff:ff:ff:ff:ff:ff

cat > "$WORK/dpr.json" <<JSON
{
  "ports": [
    {"name": "p0", "device": "net_tap_${TAG}a,iface=$A", "tap": "$K0",
     "mac": "$R0", "addresses": ["10.0.1.1/24"]},
    {"name": "p1", "device": "net_tap_${TAG}b,iface=$B", "tap": "$K1",
     "mac": "$R1", "addresses": ["10.0.2.1/24"], "mtu": 1000, "broadcast_echo": true}
  ],
  "routes": [{"prefix": "192.0.2.0/24", "via": "10.0.1.2"}],
  "control": {"socket": "$SOCK"},
  "fib": {"ipv4_max_routes": 1024, "ipv4_tbl8_groups": 64}
}
JSON
start_dpr "$WORK/dpr.json" -l 0,1 -- --idle-sleep 100
LINKS+=("$K0" "$K1")
netns "$H1"; netns "$H2"
ip link set "$A" netns "$H1" || die "cannot move $A"
ip link set "$B" netns "$H2" || die "cannot move $B"
# h1 knows the router's MAC (it must not ARP before the first probes: that
# would teach dpr its address); h2 ARPs for it.
host_addr "$H1" "$A" "$M1" 10.0.1.2/24 10.0.1.1 "$R0"
host_addr "$H2" "$B" "$M2" 10.0.2.2/24 10.0.2.1
ip -n "$H1" addr add 10.0.1.3/24 dev "$A"    # a second on-link source
ip -n "$H1" addr add 192.0.2.10/32 dev "$A"  # beyond h1, routed by dpr via 10.0.1.2
ip -n "$H2" link set "$B" mtu 1000           # one link, one MTU

# serve NAME NS IFACE: host NAME's probe server (rawprobe.py), from now on
serve() {
	local rq rp
	mkfifo "$WORK/$1.req" "$WORK/$1.rep"
	exec {rq}<>"$WORK/$1.req" {rp}<>"$WORK/$1.rep"
	eval "REQ_$1=$rq REP_$1=$rp"
	ip netns exec "$2" python3 "$SMOKE_DIR/rawprobe.py" serve "$3" \
		"$WORK/$1.req" "$WORK/$1.rep" --log "$WORK/$1.frames" \
		--dprctl "$DPRCTL" --sock "$SOCK" &
	at "$1" hello || die "probe server $1 did not start"
}
# at NAME REQUEST...: ask host NAME's server; prints its answer, returns its status
at() {
	local n=$1 rq rp line
	shift
	eval "rq=\$REQ_$n rp=\$REP_$n"
	{ printf '%d\0' $#; printf '%s\0' "$@"; } >&"$rq"
	while IFS= read -r -t 60 line <&"$rp"; do
		case $line in
		"= "*) return "${line#= }" ;;
		"| "*) printf '%s\n' "${line#| }" ;;
		esac
	done
	echo "# no answer from the probe server on $n"
	return 1
}
serve h1 "$H1" "$A"
serve h2 "$H2" "$B"
send1() { at h1 send --src-mac "$M1" "$@"; }
send2() { at h2 send --src-mac "$M2" "$@"; }
# seen HOST MATCH: wait for such a frame at HOST; frames HOST MATCH [PRINT]:
# all so far
seen() { at "$1" find "$2" >/dev/null; }
frames() { at "$1" list "${@:2}"; }
quiet() { "$@" >/dev/null; }
# not_seen HOST MATCH MARKER: the marker arrived and nothing MATCH did.
# Without the marker the probe proves nothing: that fails too.
not_seen() {
	local got
	seen "$1" "$3" || { echo "# marker $3 never arrived at $1"; return 1; }
	got=$(frames "$1" "$2")
	[ -z "$got" ] || { echo "$got" | sed "s/^/#   at $1: /"; return 1; }
}
# log HOST MATCH: such frames, for the log
log() { frames "$1" "$2" | sed "s/^/# at $1: /"; }
# live EXPR: a counter now (dprctl stats), as counter reads them at the end
live() { at h1 stats "$1"; }
EXC="S['exception_path']"
# Probes to h2's port 9999 land in a socket, so h2 answers none of them.
at h2 udp-listen 9999 || die "no UDP socket on h2"

# --- RFC 1812 5.3.1, RFC 1191: ICMP errors to a source not learned yet -----
check "h2 pings the router (dpr learns h2 from its ARP request)" \
	quiet ip netns exec "$H2" ping -c 1 -W 5 -q 10.0.2.1
nl=$(ctl neigh list)
echo "$nl" | sed 's/^/# neigh: /'
# (10.0.1.2 may be listed "incomplete": the static route's gateway, a next
# hop with no MAC yet.)
check "dpr has no MAC for h1 (10.0.1.2, 10.0.1.3) before the first probes" \
	test -z "$(grep -E '^10\.0\.1\.[23] +[0-9a-f]{2}:' <<<"$nl")"
r=$(live "${EXC}['resolving']")
check "dpr is resolving nothing yet (got ${r:-?})" test "${r:-1}" -eq 0
send1 --dst-mac "$R0" --src 10.0.1.2 --dst 10.0.2.2 --udp 9999 --ttl 1 --id 601
check "TTL 1 from unlearned 10.0.1.2: time exceeded reaches it" \
	seen h1 'F.icmp.type == 11 and F.icmp.inner.id == 601'
log h1 'F.icmp.inner.id == 601'
check "time exceeded is code 0, from 10.0.1.1 to 10.0.1.2, checksums valid (RFC 1812 4.3.2.4)" \
	seen h1 'F.icmp.type == 11 and F.icmp.inner.id == 601 and F.icmp.code == 0
		and F.ip.src == "10.0.1.1" and F.ip.dst == "10.0.1.2" and F.src == "'$R0'"
		and F.icmp.csum_ok and F.ip.csum_ok'
send1 --dst-mac "$R0" --src 10.0.1.3 --dst 10.0.2.2 --udp 9999 --df --len 1200 --id 602
check "DF over p1's MTU from unlearned 10.0.1.3: fragmentation needed reaches it" \
	seen h1 'F.icmp.type == 3 and F.icmp.code == 4 and F.icmp.inner.id == 602
		and F.ip.dst == "10.0.1.3"'
log h1 'F.icmp.inner.id == 602'
check "fragmentation needed says mtu 1000, from 10.0.1.1 (RFC 1191)" \
	seen h1 'F.icmp.type == 3 and F.icmp.code == 4 and F.icmp.inner.id == 602
		and F.icmp.mtu == 1000 and F.ip.src == "10.0.1.1" and F.icmp.csum_ok'
check "dpr learned 10.0.1.2 and 10.0.1.3 by asking (neigh list)" \
	test "$(ctl neigh list | grep -cE '^10\.0\.1\.[23] +02:00:00:00:01:02 ')" -eq 2
check "the DF packet was not forwarded" test -z "$(frames h2 'F.ip.id == 602')"

# --- RFC 1812 5.3.4: link-layer broadcast or multicast is not forwarded ----
drops0=$(live 'port("p0")["drops"]["other_host"]')
send1 --dst-mac $BC --src 10.0.1.2 --dst 10.0.2.2 --udp 9999 --options 01010101 --id 101
send1 --dst-mac 01:00:5e:00:00:05 --src 10.0.1.2 --dst 10.0.2.2 --udp 9999 --options 01010101 --id 102
send1 --dst-mac $BC --src 10.0.1.2 --dst 10.0.2.2 --udp 9999 --id 103
send1 --dst-mac "$R0" --src 10.0.1.2 --dst 10.0.2.2 --udp 9999 --options 01010101 --id 104
check "L2 broadcast, IP options, to unicast h2: not forwarded" \
	not_seen h2 'F.ip.id == 101' 'F.ip.id == 104'
check "L2 multicast (01:00:5e), IP options, to unicast h2: not forwarded" \
	not_seen h2 'F.ip.id == 102' 'F.ip.id == 104'
check "L2 broadcast, no options, to unicast h2: not forwarded" \
	not_seen h2 'F.ip.id == 103' 'F.ip.id == 104'
check "the same frame to p0's MAC is forwarded (control): ttl 63, from p1's MAC" \
	seen h2 'F.ip.id == 104 and F.ip.ttl == 63 and F.ip.csum_ok and F.src == "'$R1'"
		and F.ip.options == bytes([1, 1, 1, 1])'
log h2 'F.ip.id == 104'
check "no ICMP error answers a link-layer broadcast (RFC 1812 4.3.2.7)" \
	test -z "$(frames h1 'F.icmp.inner.id in (101, 102, 103)')"
d=$(( $(live 'port("p0")["drops"]["other_host"]') - drops0 ))
check "p0 counted the 3 as other_host drops (got $d)" test "$d" -eq 3

# --- RFC 1812 5.2.2: bytes past the IP total length are not the packet's ---
at h2 udp-listen 7002 || die "no UDP socket on h2"
sent=$(send1 --dst-mac "$R0" --src 10.0.1.2 --dst 10.0.2.2 --udp 7002 --len 1400 \
	--options 01010100 --trailer 40 --id 201 --digest)
got=$(at h2 udp-got 7002)
log h2 'F.ip.id == 201'
check "1400-byte datagram + 40 trailing bytes, mtu 1000: h2 gets exactly the payload ($sent / ${got:-nothing})" \
	test -n "$got" -a "$got" = "$sent"
check "it came fragmented" test "$(frames h2 'F.ip.id == 201' | wc -l)" -ge 2
check "each fragment's frame is exactly its IP total length + 14" \
	test -z "$(frames h2 'F.ip.id == 201 and F.len != F.ip.tot_len + 14')"
check "each fragment fits mtu 1000 and has a valid header checksum" \
	test -z "$(frames h2 'F.ip.id == 201 and (F.ip.tot_len > 1000 or not F.ip.csum_ok)')"
sum=$(frames h2 'F.ip.id == 201' 'F.ip.tot_len - F.ip.hlen' | awk '{s += $1} END {print s + 0}')
end=$(frames h2 'F.ip.id == 201 and not F.ip.mf' 'F.ip.off + F.ip.tot_len - F.ip.hlen')
check "the fragments carry the 1376 data bytes and no trailer (sum $sum, last ends at ${end:-?})" \
	test "$sum" -eq 1376 -a "${end:-0}" = 1376
send1 --dst-mac "$R0" --src 10.0.1.2 --dst 10.0.2.2 --udp 9999 --len 100 \
	--options 01010100 --trailer 40 --id 202
check "100-byte datagram with options + 40 trailing bytes: h2's frame is 114 bytes" \
	seen h2 'F.ip.id == 202 and F.ip.tot_len == 100 and F.len == 114 and F.ip.csum_ok'
log h2 'F.ip.id == 202'

# --- RFC 1812 5.3.7: a connected subnet's broadcast address is no source ---
m0=$(live 'port("p0")["drops"]["martian"]')
send1 --dst-mac "$R0" --src 10.0.1.255 --dst 10.0.2.2 --udp 9999 --id 301
send1 --dst-mac "$R0" --src 10.0.2.255 --dst 10.0.2.2 --udp 9999 --id 302
send1 --dst-mac "$R0" --src 10.0.1.2 --dst 10.0.2.2 --udp 9999 --id 303
check "source 10.0.1.255 (p0's subnet broadcast): not forwarded" \
	not_seen h2 'F.ip.id == 301' 'F.ip.id == 303'
check "source 10.0.2.255 (p1's subnet broadcast): not forwarded" \
	not_seen h2 'F.ip.id == 302' 'F.ip.id == 303'
d=$(( $(live 'port("p0")["drops"]["martian"]') - m0 ))
check "p0 counted both as martian drops (got $d)" test "$d" -eq 2

# --- RFC 1122 3.2.2.6, RFC 1812 4.2.2.11: echo to a subnet broadcast ------
ig0=$(live "${EXC}['echo_broadcast_ignored']")
send1 --dst-mac "$R0" --src 10.0.1.2 --dst 10.0.1.255 --echo 401 --id 401
send1 --dst-mac $BC --src 10.0.1.2 --dst 10.0.1.255 --echo 402 --id 402
send1 --dst-mac "$R0" --src 10.0.1.2 --dst 10.0.1.1 --echo 403 --id 403
check "p0 (broadcast_echo off): echo to 10.0.1.255 on p0's MAC: no reply" \
	not_seen h1 'F.icmp.type == 0 and F.icmp.id == 401' 'F.icmp.type == 0 and F.icmp.id == 403'
check "p0: echo to 10.0.1.255 on the broadcast MAC: no reply" \
	not_seen h1 'F.icmp.type == 0 and F.icmp.id == 402' 'F.icmp.type == 0 and F.icmp.id == 403'
d=$(( $(live "${EXC}['echo_broadcast_ignored']") - ig0 ))
check "echo_broadcast_ignored counted both (got $d)" test "$d" -eq 2
send2 --dst-mac "$R1" --src 10.0.2.2 --dst 10.0.2.255 --echo 404 --id 404
send2 --dst-mac $BC --src 10.0.2.2 --dst 10.0.2.255 --echo 405 --id 405
for id in 404 405; do
	how=$([ $id = 404 ] && echo "p1's MAC" || echo "the broadcast MAC")
	check "p1 (broadcast_echo on): echo to 10.0.2.255 on $how is answered" \
		seen h2 "F.icmp.type == 0 and F.icmp.id == $id"
	log h2 "F.icmp.type == 0 and F.icmp.id == $id"
	check "that reply comes from 10.0.2.1 to 10.0.2.2, checksums valid (RFC 1812 4.2.2.11)" \
		seen h2 "F.icmp.type == 0 and F.icmp.id == $id and F.ip.src == '10.0.2.1'
			and F.ip.dst == '10.0.2.2' and F.icmp.csum_ok and F.ip.csum_ok"
	check "that reply's frame goes from p1's MAC to h2's" \
		seen h2 "F.icmp.type == 0 and F.icmp.id == $id and F.src == '$R1' and F.dst == '$M2'"
done
check "nothing came from a broadcast address" \
	test -z "$(frames h1 'F.ip.src.endswith(".255")')$(frames h2 'F.ip.src.endswith(".255")')"

# --- RFC 1812 4.3.2.4: an ICMP error is sent from its output interface ----
send2 --dst-mac "$R1" --src 192.0.2.10 --dst 10.0.1.2 --udp 9999 --ttl 1 --id 501
check "TTL 1 on p1 from 192.0.2.10 (routed out p0): time exceeded reaches h1" \
	seen h1 'F.icmp.type == 11 and F.icmp.inner.id == 501 and F.ip.dst == "192.0.2.10"'
log h1 'F.icmp.inner.id == 501'
check "its source is p0's 10.0.1.1, not p1's 10.0.2.1" \
	seen h1 'F.icmp.type == 11 and F.icmp.inner.id == 501 and F.ip.src == "10.0.1.1"'

# --- RFC 791, RFC 1812 5.3.13.5: record route -----------------------------
# RR, length 11, pointer 4, two empty slots; EOL.
send1 --dst-mac "$R0" --src 10.0.1.2 --dst 10.0.2.2 --udp 9999 --options 070b040000000000000000 \
	--id 701
check "record route: forwarded to h2" seen h2 'F.ip.id == 701'
log h2 'F.ip.id == 701'
check "first slot holds 10.0.2.1 (the output interface), pointer 8, second slot empty" \
	seen h2 'F.ip.id == 701 and F.ip.options[:3] == bytes([7, 11, 8])
		and a4(F.ip.options[3:7]) == "10.0.2.1" and F.ip.options[7:] == bytes(5)'
check "record route: header checksum valid, ttl 63" \
	seen h2 'F.ip.id == 701 and F.ip.csum_ok and F.ip.ttl == 63'

# --- RFC 7126 4.3, RFC 1812 5.2.7.1, 4.3.2.3: source routes, bad options ---
sr0=$(live "${EXC}['source_routed']") bad0=$(live "${EXC}['ip_options_bad']")
# LSRR, length 7, pointer 4, one hop (h2); EOL.
send1 --dst-mac "$R0" --src 10.0.1.2 --dst 10.0.2.2 --udp 9999 --options 8307040a000202 \
	--id 801
# RR whose length (12) runs past the header's 8 option bytes: pointer 21.
send1 --dst-mac "$R0" --src 10.0.1.2 --dst 10.0.2.2 --udp 9999 --options 070c040000000000 \
	--id 802
# RR whose pointer (5) is off a slot: pointer 22.
send1 --dst-mac "$R0" --src 10.0.1.2 --dst 10.0.2.2 --udp 9999 --options 07070500000000 \
	--id 803
send1 --dst-mac "$R0" --src 10.0.1.2 --dst 10.0.2.2 --udp 9999 --options 01010101 --id 804
check "LSRR: not forwarded" not_seen h2 'F.ip.id == 801' 'F.ip.id == 804'
check "RR with its length past the header: not forwarded" not_seen h2 'F.ip.id == 802' 'F.ip.id == 804'
check "RR with its pointer off a slot: not forwarded" not_seen h2 'F.ip.id == 803' 'F.ip.id == 804'
check "LSRR: destination unreachable, code 13 (administratively prohibited), from 10.0.1.1" \
	seen h1 'F.icmp.type == 3 and F.icmp.code == 13 and F.icmp.inner.id == 801
		and F.ip.src == "10.0.1.1"'
log h1 'F.icmp.inner.id in (801, 802, 803)'
check "RR length past the header: parameter problem, pointer 21" \
	seen h1 'F.icmp.type == 12 and F.icmp.code == 0 and F.icmp.inner.id == 802
		and F.icmp.ptr == 21'
check "RR pointer off a slot: parameter problem, pointer 22" \
	seen h1 'F.icmp.type == 12 and F.icmp.code == 0 and F.icmp.inner.id == 803
		and F.icmp.ptr == 22'
check "the parameter problems quote the options as sent" \
	test "$(frames h1 'F.icmp.type == 12 and F.icmp.inner.options.hex() in
		("070c040000000000", "0707050000000000")' | wc -l)" -eq 2
d=$(( $(live "${EXC}['source_routed']") - sr0 ))
check "source_routed counted the LSRR packet (got $d)" test "$d" -eq 1
d=$(( $(live "${EXC}['ip_options_bad']") - bad0 ))
check "ip_options_bad counted the 2 malformed packets (got $d)" test "$d" -eq 2

# --- RFC 1812 5.2.7.2, RFC 792: host redirects ---------------------------------
# From 10.0.1.3 to 192.0.2.10, routed via 10.0.1.2: back out of p0, to a
# gateway on the source's own subnet.
rd0=$(live "${EXC}['icmp_redirect_sent']")
send1 --dst-mac "$R0" --src 10.0.1.3 --dst 192.0.2.10 --udp 9999 --id 901
check "a packet sent back out of p0 is still forwarded, to 10.0.1.2's MAC" \
	seen h1 'F.udp is not None and F.ip.id == 901 and F.dst == "'$M1'" and F.src == "'$R0'"'
check "10.0.1.3 gets a host redirect to 10.0.1.2 from 10.0.1.1 (RFC 792 type 5 code 1)" \
	seen h1 'F.icmp.type == 5 and F.icmp.code == 1 and F.icmp.inner.id == 901
		and F.icmp.gw == "10.0.1.2" and F.ip.src == "10.0.1.1" and F.ip.dst == "10.0.1.3"
		and F.icmp.csum_ok and F.ip.csum_ok'
check "the redirect quotes the header as sent (TTL 64) and 64 bits of data" \
	seen h1 'F.icmp.type == 5 and F.icmp.inner.id == 901 and F.icmp.inner.ttl == 64
		and len(F.icmp.inner.data) >= 8'
log h1 'F.icmp.type == 5'
# From a source on no subnet of p0 (5.2.7.2): forwarded, no redirect. The
# forwarded packet is the marker: the redirect would have gone before it.
send1 --dst-mac "$R0" --src 198.51.100.7 --dst 192.0.2.10 --udp 9999 --id 902
check "from off the subnet: forwarded, no redirect" \
	not_seen h1 'F.icmp.type == 5 and F.icmp.inner.id == 902' 'F.udp is not None and F.ip.id == 902'
d=$(( $(live "${EXC}['icmp_redirect_sent']") - rd0 ))
check "icmp_redirect_sent counted the one redirect (got $d)" test "$d" -eq 1

stop_dpr
x=$(counter "' '.join('%s=%d' % kv for kv in S['exception_path'].items() if isinstance(kv[1], int))")
for c in icmp_time_exceeded icmp_frag_needed icmp_admin_prohibited icmp_param_problem \
	echo_broadcast_ignored echo_replies; do
	check "exception counter $c counted" test "$(grep -oP "\b$c=\K[0-9]+" <<<"$x")" -ge 1
done
check "no ICMP error was rate limited or unroutable ($(grep -oE '(icmp_rate_limited|icmp_unroutable)=[0-9]+' <<<"$x" | xargs))" \
	test -z "$(grep -oE '(icmp_rate_limited|icmp_unroutable)=[1-9][0-9]*' <<<"$x")"
check_accounting
finish

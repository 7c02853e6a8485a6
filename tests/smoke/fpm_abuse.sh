#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# A hostile FPM peer (tests/smoke/fpm_client.py; no zebra) against dpr while
# it forwards a UDP stream from h1 (behind p0) to h2 (behind p1). One
# connection each: random garbage; a frame of FPM version 2; a frame cut
# short by a disconnect; a frame holding a valid route and then a truncated
# netlink message; a 64 KiB frame of 1488 valid routes; a 64 KiB frame of
# a route padded with unknown attributes; a 64 KiB frame of a valid route
# and one of nonsense attributes; 200 connections opened and closed; a
# client sending one byte every 10 ms. After each: dpr forwards (a ping
# across it), `dprctl stats` answers, the fpm counters of `dprctl --json
# stats` count what happened (bad frame and reset, or a clean close), and
# a bad frame installed nothing, not even the valid route before the bad
# message. At the end: no datagram of the stream lost, counters add up.
source "$(dirname "$0")/lib.sh"
need_root

R=r-$TAG DPR_NETNS=r-$TAG H1=h1-$TAG H2=h2-$TAG V0=dv${TAG}a V1=dv${TAG}b
FPM_PORT=2620 # the router namespace's own
CLIENT="$SMOKE_DIR/fpm_client.py"
netns "$R"; netns "$H1"; netns "$H2"

router_veth "$R" "$H1" "$V0"; router_veth "$R" "$H2" "$V1"
host_addr "$H1" eth0 02:00:00:00:01:02 10.0.1.2/24 10.0.1.1 02:00:00:00:01:01
host_addr "$H2" eth0 02:00:00:00:02:02 10.0.2.2/24 10.0.2.1 02:00:00:00:02:01
# h2 holds what the FPM routes point at it.
ip -n "$H2" addr add 10.200.0.0/13 dev lo

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
  "fib": {"ipv4_max_routes": 4096, "ipv4_tbl8_groups": 64,
          "ipv6_max_routes": 1024, "ipv6_tbl8_groups": 64},
  "fpm": {"listen": "127.0.0.1:$FPM_PORT", "grace_s": 600}
}
JSON

start_dpr "$WORK/dpr.json" --lcores 0@0,1@1 -- --idle-sleep 100

# fpm FIELD...: the fpm object's counters from `dprctl --json stats`, one a line
fpm() {
	ctl --json stats | python3 -c 'import json, sys
f = json.load(sys.stdin)["fpm"]
for k in sys.argv[1:]:
    print(f[k])' "$@"
}
# snap: remember the counters; delta FIELD: its change since
snap() { mapfile -t BEFORE < <(fpm connections closed resets bad_frames frames replaced); }
delta() {
	local i=0 f now
	for f in connections closed resets bad_frames frames replaced; do
		[ "$f" = "$1" ] && { now=$(fpm "$f"); echo $((now - BEFORE[i])); return; }
		i=$((i + 1))
	done
}
is_delta() { [ "$(delta "$1")" -eq "$2" ]; } # is_delta FIELD N
fpm_is() { [ "$(fpm "$1")" -eq "$2" ]; } # fpm_is FIELD N
client() { ip netns exec "$R" python3 "$CLIENT" "$FPM_PORT" "$@"; }
# route_of ADDR: "PREFIX TYPE VIA SOURCE", or "none"
route_of() {
	ctl --json route get "$1" 2>/dev/null | python3 -c 'import json, sys
try:
    r = json.load(sys.stdin)
except ValueError:
    print("none"); sys.exit()
print(r.get("prefix"), r.get("type"), r.get("via", "-"), r.get("source", "?"))'
}
# From the FPM routes only 10.0.0.0/8's connected subnets would match: any
# answer in 10.2xx is an FPM route.
no_route() { [ "$(route_of "$1")" = none ]; }
fpm_route() { [ "$(route_of "$1")" = "$2 gateway 10.0.2.2 fpm" ]; } # fpm_route ADDR PREFIX
stats_answer() { ctl stats >/dev/null 2>&1; }
reach() { ip netns exec "$H1" ping -c 1 -W 2 -q "$1" >/dev/null 2>&1; }
alive() { kill -0 "$DPR_PID" 2>/dev/null; }
# after WHAT: dpr alive, forwarding, answering
after() {
	check "$1: dpr still runs" alive
	check "$1: dpr still forwards (h1 pings h2)" reach 10.0.2.2
	check "$1: dprctl stats answers" stats_answer
}
# bad WHAT: one bad frame, one reset, no frame taken
bad() {
	check "$1: counted as a bad frame ($(delta bad_frames))" wait_for 5 is_delta bad_frames 1
	check "$1: the connection was reset ($(delta resets))" is_delta resets 1
	check "$1: no frame taken ($(delta frames))" is_delta frames 0
}

# The stream: h1 -> h2 throughout, one datagram every 5 ms until told to stop.
cat > "$WORK/stream.py" <<'PY'
import os, socket, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
n = 0
while not os.path.exists(sys.argv[2]):
    s.sendto(b"dpr-fpm-abuse", (sys.argv[1], 5001))
    n += 1
    time.sleep(0.005)
open(sys.argv[3], "w").write("%d\n" % n)
PY
recv_start "$H2" 5001 stream
ip netns exec "$H1" python3 "$WORK/stream.py" 10.0.2.2 "$WORK/stop" "$WORK/sent" &
STREAM=$!
check "h1 reaches h2 through dpr" reach 10.0.2.2

# --- garbage -------------------------------------------------------------------
snap
echo "# garbage: $(client garbage)"
bad "random garbage"
after "random garbage"

# --- version 2 -----------------------------------------------------------------
snap
echo "# version 2: $(client version2)"
bad "an FPM version 2 frame"
check "an FPM version 2 frame: its route is not installed" no_route 10.210.0.1
after "an FPM version 2 frame"

# --- disconnect in the middle of a frame ----------------------------------------
snap
echo "# mid-frame: $(client midframe)"
check "a frame cut short by a disconnect: counted as closed ($(delta closed))" \
	wait_for 5 is_delta closed 1
check "a frame cut short: not a bad frame, nothing taken" \
	eval 'is_delta bad_frames 0 && is_delta frames 0'
check "a frame cut short: its route is not installed" no_route 10.211.0.1
after "a frame cut short"

# --- a truncated netlink message in a well-framed frame ----------------------------
snap
echo "# truncated: $(client truncated)"
bad "a truncated netlink message"
check "a valid route before a truncated message is not installed (nothing half-applied)" \
	no_route 10.212.0.1
after "a truncated netlink message"

# --- 64 KiB of valid routes --------------------------------------------------------
snap
echo "# max frame: $(client maxroutes)"
check "a 64 KiB frame of routes is taken ($(delta frames) frame)" wait_for 5 is_delta frames 1
check "  no bad frame ($(delta bad_frames))" is_delta bad_frames 0
check "  all 1488 routes are installed ($(fpm routes))" wait_for 5 fpm_is routes 1488
check "  the first is in dpr ($(route_of 10.200.0.1))" fpm_route 10.200.0.1 10.200.0.0/24
check "  the last is in dpr ($(route_of 10.205.207.1))" fpm_route 10.205.207.1 10.205.207.0/24
check "  10.205.208.0/24 (not sent) is not" no_route 10.205.208.1
check "  h1 reaches 10.203.7.1 on h2 through an FPM route" reach 10.203.7.1
after "a 64 KiB frame of routes"

# --- 64 KiB of attributes dpr does not know -------------------------------------------
snap
echo "# unknown attributes: $(client unknown)"
check "a 64 KiB route padded with unknown attributes is taken ($(delta frames))" \
	wait_for 5 is_delta frames 1
check "  no bad frame" is_delta bad_frames 0
check "  its route is installed ($(route_of 10.213.0.1))" wait_for 3 fpm_route 10.213.0.1 10.213.0.0/24
after "unknown attributes"

# --- 64 KiB of nonsense attributes ---------------------------------------------------
snap
echo "# nonsense: $(client nonsense)"
bad "a 64 KiB frame of nonsense attributes"
check "  the valid route before the nonsense is not installed" no_route 10.215.0.1
check "  the nonsense route is not installed" no_route 10.214.0.1
check "  the routes taken before stay ($(fpm routes))" fpm_is routes 1489
after "nonsense attributes"

# --- many connections ------------------------------------------------------------
snap
echo "# many: $(client many 200)"
# Each one accepted is closed by its peer or replaced by the next one.
all_gone() {
	local c
	c=$(delta connections)
	[ "$c" -ge 1 ] && [ $(($(delta closed) + $(delta replaced))) -eq "$c" ] &&
		[ "$(fpm connected)" = False ]
}
check "200 connections opened and closed: dpr accepted $(delta connections), none left open" \
	wait_for 5 all_gone
check "  all 200 accepted ($(delta connections))" is_delta connections 200
check "  no bad frame, no reset" eval 'is_delta bad_frames 0 && is_delta resets 0'
after "200 connections"

# --- a slow client -------------------------------------------------------------
snap
client slow > "$WORK/slow.out" &
SLOW=$!
sleep 0.4
check "while a client sends one byte per 10 ms: dprctl stats answers" stats_answer
check "while a client sends one byte per 10 ms: dpr forwards" reach 10.0.2.2
wait "$SLOW"
echo "# slow: $(cat "$WORK/slow.out")"
check "the slow client's two frames are taken ($(delta frames))" wait_for 5 is_delta frames 2
check "  and their routes installed" \
	eval 'fpm_route 10.216.0.1 10.216.0.0/24 && fpm_route 10.217.0.1 10.217.0.0/24'
check "  no bad frame" is_delta bad_frames 0
after "a slow client"

# --- the stream, the totals --------------------------------------------------------
touch "$WORK/stop"
wait "$STREAM"
sent=$(cat "$WORK/sent")
got=$(recv_stop stream | cut -d' ' -f1)
check "the UDP stream crossed dpr throughout without loss ($got of $sent)" \
	test "$got" -eq "$sent" -a "$sent" -gt 100
check "in all, 4 bad frames, each a reset ($(fpm bad_frames), $(fpm resets))" \
	eval 'fpm_is bad_frames 4 && fpm_is resets 4'
n=$(grep -c "nothing of it applied, connection reset" "$WORK/dpr.log")
check "each logged with its reason ($n lines)" test "$n" -eq 4

kill -TERM "$DPR_PID"
wait "$DPR_PID"
rc=$?
DPR_PID=
check "dpr exits 0 on SIGTERM (got $rc)" test "$rc" -eq 0
check_accounting
finish

# SPDX-License-Identifier: BSD-3-Clause
#
# FRR beside dpr, for smoke tests (source after lib.sh): zebra with
# dplane_fpm_nl and one routing daemon, in dpr's namespace $R, with a
# private config, pid, zserv and vty directory ($FRR) and the namespace's
# own FPM port, so that a system FRR is untouched.
#   frr_need DAEMON [COMMAND...]  fail unless FRR, DAEMON and COMMANDs are
#                                 installed; write zebra.conf (FPM to $FPM_PORT)
#   frr_start                     zebra, then DAEMON (the caller wrote
#                                 $FRR/DAEMON.conf) once zebra listens
#   frr_kill SIGNAL               both, and wait for them
#   vty ARGS...                   vtysh on this FRR

ZEBRA=/usr/lib/frr/zebra
FPM_MOD=/usr/lib/x86_64-linux-gnu/frr/modules/dplane_fpm_nl.so
# Any port works in a namespace of our own; this one says whose it is.
FPM_PORT=$((20000 + 0x$TAG % 10000))
FRR=$WORK/frr
FRR_DAEMON='' ZEBRA_PID='' DAEMON_PID='' FRR_PIDS=()

frr_need() {
	local f c
	FRR_DAEMON=$1; shift
	for f in "$ZEBRA" "/usr/lib/frr/$FRR_DAEMON" "$FPM_MOD"; do
		[ -e "$f" ] || { echo "not ok - $T: $f missing (FRR: apt-get install frr, or scripts/setup.sh)"; exit 1; }
	done
	for c in vtysh "$@"; do
		command -v "$c" >/dev/null ||
			{ echo "not ok - $T: $c missing (apt-get install frr bird2, or scripts/setup.sh)"; exit 1; }
	done
	# The daemons drop to user frr, which must reach its files: it alone writes there.
	mkdir -p "$FRR"
	chmod a+x "$WORK"
	chown frr:frr "$FRR" 2>/dev/null || chmod 777 "$FRR"
	printf '%s\n' "hostname dpr-$T-$TAG" "log file $FRR/zebra.log" \
		"fpm address 127.0.0.1 port $FPM_PORT" > "$FRR/zebra.conf"
	AT_EXIT+=(frr_cleanup)
}

frr_start() {
	ip netns exec "$R" "$ZEBRA" -M dplane_fpm_nl -f "$FRR/zebra.conf" -i "$FRR/zebra.pid" \
		-z "$FRR/zserv.api" --vty_socket "$FRR" -P 0 -u frr -g frr \
		>> "$FRR/zebra.out" 2>&1 &
	ZEBRA_PID=$!
	for _ in $(seq 50); do [ -S "$FRR/zserv.api" ] && break; sleep 0.1; done
	ip netns exec "$R" "/usr/lib/frr/$FRR_DAEMON" -f "$FRR/$FRR_DAEMON.conf" \
		-i "$FRR/$FRR_DAEMON.pid" -z "$FRR/zserv.api" --vty_socket "$FRR" -P 0 -u frr -g frr \
		>> "$FRR/$FRR_DAEMON.out" 2>&1 &
	DAEMON_PID=$!
	FRR_PIDS+=("$ZEBRA_PID" "$DAEMON_PID")
}

frr_kill() {
	kill "-$1" "$ZEBRA_PID" "$DAEMON_PID" 2>/dev/null
	wait "$ZEBRA_PID" "$DAEMON_PID" 2>/dev/null
	ZEBRA_PID='' DAEMON_PID=''
	rm -f "$FRR/zserv.api"
}

frr_cleanup() {
	local p l
	[ -z "$ZEBRA_PID$DAEMON_PID" ] || frr_kill KILL
	# FRR's per-process crash-log directories (ip netns exec keeps the pid).
	for p in "${FRR_PIDS[@]}"; do rm -rf "/var/tmp/frr/zebra.$p" "/var/tmp/frr/$FRR_DAEMON.$p"; done
	[ "$FAIL" -eq 0 ] || for l in zebra.log "$FRR_DAEMON.log" zebra.out "$FRR_DAEMON.out"; do
		[ -s "$FRR/$l" ] && { echo "# --- $l ---"; tail -n 15 "$FRR/$l" | sed 's/^/# /'; }
	done
}

vty() { ip netns exec "$R" vtysh --vty_socket "$FRR" "$@" 2>&1; }

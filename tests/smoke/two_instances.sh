#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Two dpr on one host. A second instance with other ports and its own
# socket but the same TAP names would join the first one's TAPs (net_tap
# attaches to an existing one), set its MAC and addresses there and leave
# them down when it exits: dpr refuses to start, naming the interface and
# the setting that avoids it, and checks all that can make it refuse (the
# control socket, TAP names, net_tap ports' iface=, the metrics and FPM
# addresses, the kernel interfaces its ports name) before EAL probes a
# port. The first one's TAPs keep their MAC, addresses and state, and it
# keeps forwarding. A second instance that shares nothing starts. A clean
# start prints no line that reads like an error.
source "$(dirname "$0")/lib.sh"
need_root

two_hosts
# Below the ephemeral range (32768-60999), where a client socket could sit.
MPORT=$((20000 + 0x$TAG % 6000)) FPORT=$((26000 + 0x$TAG % 6000))
two_hosts_config "$WORK/dpr.json" 2 "\"metrics\": {\"listen\": \"127.0.0.1:$MPORT\"},
  \"fpm\": {\"listen\": \"127.0.0.1:$FPORT\"}"
start_dpr "$WORK/dpr.json" -l 0,1 -- --idle-sleep 100
TAP0=d$TAG-p0

# A clean start: nothing that reads like an error (DPDK's TAP and EAL
# noise included).
bad=$(grep -iE "error|fail|invalid|cannot|could not|unknown|no such|not created|no free" \
	"$WORK/dpr.log")
check "a clean start prints no error-looking line (${bad:-none})" test -z "$bad"

tap_state() { ip -br link show "$TAP0"; ip -br addr show "$TAP0"; }
before=$(tap_state)
echo "# $TAP0: $before" | tr '\n' ' '; echo

# second NAME MEMBERS...: a second dpr's config: null ports with the same
# names, the given members last (they replace the ones before them).
second() {
	local f=$WORK/$1.json; shift
	python3 - "$WORK/dpr.json" "$f" "$@" <<'PY'
import json, sys
cfg = json.load(open(sys.argv[1]))
for i, p in enumerate(cfg["ports"]):
    p["device"] = "net_null_2nd%d" % i
    p["tap"] = False
cfg["control"]["socket"] = sys.argv[2] + ".sock"
cfg.pop("metrics"); cfg.pop("fpm")
for m in sys.argv[3:]:
    path, value = m.split("=", 1)
    o, keys = cfg, path.split(".")
    for k in keys[:-1]:
        o = o[int(k)] if isinstance(o, list) else o.setdefault(k, {})
    o[int(keys[-1]) if isinstance(o, list) else keys[-1]] = json.loads(value)
json.dump(cfg, open(sys.argv[2], "w"), indent=1)
PY
	echo "$f"
}
# run2 CONFIG: run a second dpr to its end (it must refuse); its output.
run2() {
	# shellcheck disable=SC2046
	timeout 60 "$DPR" --no-pci $(eal_mem) --file-prefix "dpr-$T-$TAG-2" -l 0,1 -- -c "$1" 2>&1
	echo "rc=$?"
	rm -rf "/var/run/dpdk/dpr-$T-$TAG-2"
}
# refused WHAT OUTPUT PATTERN: exit 1, the message, and nothing probed
# (no EAL line: it stopped before EAL).
refused() {
	check "$1: refused, exit 1" grep -q "^rc=1$" <<<"$2"
	check "$1: it says so ($(head -1 <<<"$2"))" grep -q -- "$3" <<<"$2"
	check "$1: before EAL probed anything" bash -c '! grep -q "^EAL:" <<<"$0"' "$2"
}

out=$(run2 "$(second same_taps ports.0.tap="\"$TAP0\"" ports.1.tap="\"d$TAG-p1\"")")
refused "the same TAP names" "$out" \
	"dpr: port p0: interface $TAP0 exists already (another dpr's host-stack TAP?): dpr would take it over; stop what made it, or set ports\[0\].tap to another name (or false)"
# The same for a VLAN interface's TAP, named by its own path in the file.
out=$(run2 "$(second vlan_tap vlans="[{\"name\": \"p1.5\", \"port\": \"p1\", \"id\": 5, \"tap\": \"d$TAG-p1\"}]")")
refused "a VLAN interface's TAP of the same name" "$out" \
	"dpr: port p1.5: interface d$TAG-p1 exists already (another dpr's host-stack TAP?): dpr would take it over; stop what made it, or set vlans\[0\].tap to another name (or false)"
out=$(run2 "$(second tap_port ports.1.device="\"net_tap_2nd,iface=d$TAG-p1\"")")
refused "a net_tap port on the first one's TAP" "$out" \
	"port p1: interface d$TAG-p1 exists already (another dpr's port?): net_tap would join it; stop what made it, or give ports\[1\].device another iface="
out=$(run2 "$(second same_socket control.socket="\"$SOCK\"")")
refused "the same control socket" "$out" \
	"dpr: control socket $SOCK is in use: is another dpr running? (set control.socket to run several)"
out=$(run2 "$(second same_metrics metrics.listen="\"127.0.0.1:$MPORT\"")")
refused "the same metrics address" "$out" \
	"dpr: metrics: listen on 127.0.0.1:$MPORT: Address already in use (another dpr or exporter there? set another metrics.listen)"
out=$(run2 "$(second same_fpm fpm.listen="\"127.0.0.1:$FPORT\"")")
refused "the same FPM address" "$out" \
	"dpr: fpm: listen on 127.0.0.1:$FPORT: Address already in use"
out=$(run2 "$(second no_iface ports.0.device="\"net_af_packet_2nd,iface=nosuch$TAG\"")")
refused "a port on a missing interface" "$out" \
	"dpr: config: ports\[0\].device \"net_af_packet_2nd,iface=nosuch$TAG\": iface=nosuch$TAG: no such interface"
check "no 'Invalid port_id' after a refusal" bash -c '! grep -q "Invalid port_id" <<<"$0"' "$out"

# At run time too: a VLAN interface whose TAP name another interface has
# is refused, and told what to change (vlan.add's "tap", not a ports[] key).
ip link add "v$TAG-t9" type veth peer name "v$TAG-t9p" && LINKS+=("v$TAG-t9")
out=$(ctl call vlan.add "{\"name\": \"p1.9\", \"port\": \"p1\", \"id\": 9, \"tap\": \"v$TAG-t9\"}" 2>&1); rc=$?
check "vlan add onto an existing interface's name: refused, exit 1 ($rc)" test "$rc" -eq 1
check "... saying what to change ($out)" grep -qF \
	"port p1.9: interface v$TAG-t9 exists already (another dpr's host-stack TAP?): give p1.9 another \"tap\", or none (\"tap\": false; dprctl vlan add ... notap)" <<<"$out"
check "... and no interface p1.9 is left" bash -c "! '$DPRCTL' -s '$SOCK' port list | grep -q '^p1.9 '"

after=$(tap_state)
check "the first dpr's TAP keeps its MAC, addresses and state" test "$before" = "$after"
check "the first dpr still forwards" ip netns exec "h1-$TAG" ping -c 3 -i 0.2 -W 2 -q 10.0.2.2
check "and still answers on its socket" ctl stats

# A second dpr that shares nothing starts, and stops cleanly.
cfg2=$(second own_all ports.0.tap="\"e$TAG-p0\"")
# shellcheck disable=SC2046
"$DPR" --no-pci $(eal_mem) --file-prefix "dpr-$T-$TAG-3" -l 0,1 -- -c "$cfg2" \
	> "$WORK/dpr3.log" 2>&1 &
P3=$!
started3() { grep -q "forwarding on" "$WORK/dpr3.log"; }
check "a second dpr with its own socket and TAPs starts" wait_for 30 started3
check "... with its own TAP e$TAG-p0" ip link show "e$TAG-p0"
kill -TERM "$P3" 2>/dev/null
wait "$P3"; rc=$?
rm -rf "/var/run/dpdk/dpr-$T-$TAG-3"
check "... and exits 0 (got $rc)" test "$rc" -eq 0
check "the first dpr's TAP is as it was" test "$before" = "$(tap_state)"

# SIGTERM while it starts (held in its port profile's read, a FIFO, after
# EAL and before the TAPs): dpr finishes starting, stops at once, exits 0
# and leaves no TAP or socket (it used to die by the signal there).
drv=$WORK/drivers-cfg
cp -r "$(dirname "$0")/../../drivers-cfg" "$drv" && rm -f "$drv/net_null.json" &&
	mkfifo "$drv/net_null.json" || die "cannot make $drv"
prof=$(dirname "$0")/../../drivers-cfg/net_null.json
# The first port's read waits on the FIFO; the next ports read the file.
(exec 3>"$drv/net_null.json"; : > "$WORK/profile-opened"
 while [ ! -e "$WORK/profile-go" ]; do sleep 0.05; done
 rm -f "$drv/net_null.json"; cp "$prof" "$drv/net_null.json"; cat "$prof" >&3) &
W4=$!
# shellcheck disable=SC2046
"$DPR" --no-pci $(eal_mem) --file-prefix "dpr-$T-$TAG-4" -l 0,1 -- -c "$cfg2" \
	--drivers-cfg "$drv" > "$WORK/dpr4.log" 2>&1 &
P4=$!
opened4() { [ -e "$WORK/profile-opened" ]; }
check "a dpr starting reads its port profile" wait_for 30 opened4
kill -TERM "$P4" 2>/dev/null
: > "$WORK/profile-go"
gone4() { ! kill -0 "$P4" 2>/dev/null; }
if ! wait_for 30 gone4; then
	kill -KILL "$P4" 2>/dev/null
fi
wait "$P4"; rc=$?
wait "$W4" 2>/dev/null
rm -rf "/var/run/dpdk/dpr-$T-$TAG-4"
check "SIGTERM while starting: exits 0 (got $rc; log: $(tail -n 2 "$WORK/dpr4.log" | tr '\n' ' '))" test "$rc" -eq 0
check "... and leaves no TAP e$TAG-p0" bash -c "! ip link show 'e$TAG-p0' 2>/dev/null"
check "... nor its control socket" bash -c "! ls '$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["control"]["socket"])' "$cfg2")' 2>/dev/null"

stop_dpr
check_accounting
finish

#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# meson install into a DESTDIR: every file is where it belongs (binaries,
# port profiles, the sample config, man pages, the systemd unit, bash
# completion), the unit passes systemd-analyze verify, the completion
# offers dprctl's commands, and the installed dpr, run from the DESTDIR,
# takes its profiles from the installed share directory and forwards
# between two hosts with the installed sample adapted to af_packet ports.
source "$(dirname "$0")/lib.sh"
need_root

BUILD=$(cd "$(dirname "$DPR")/.." && pwd)
ROOT=$WORK/root
meson install -C "$BUILD" --no-rebuild --destdir "$ROOT" > "$WORK/install.log" 2>&1 ||
	{ sed 's/^/# /' "$WORK/install.log" | tail -20; die "meson install failed"; }
ok "meson install --destdir"

# Where meson put things: its options and its own list of installed files.
eval "$(meson introspect --buildoptions "$BUILD" | python3 -c '
import json, sys
o = {x["name"]: x["value"] for x in json.load(sys.stdin)}
for k in ("prefix", "bindir", "datadir", "sysconfdir", "mandir"):
    v = o[k] if o[k].startswith("/") else o["prefix"] + "/" + o[k]
    print("%s=%s" % (k.upper(), v))')"
UNIT=$(meson introspect --installed "$BUILD" | python3 -c '
import json, sys
print(next((d for d in json.load(sys.stdin).values() if d.endswith("/dpr@.service")), ""))')
check "meson installs dpr@.service ($UNIT)" test -n "$UNIT"

present() { test -s "$ROOT$1"; }
check "dpr in $BINDIR" test -x "$ROOT$BINDIR/dpr"
check "dprctl in $BINDIR" test -x "$ROOT$BINDIR/dprctl"
check "dpr-doctor in $BINDIR" test -x "$ROOT$BINDIR/dpr-doctor"
n_src=$(ls "$TOP"/drivers-cfg/*.json | wc -l)
n_inst=$(ls "$ROOT$DATADIR"/dpr/drivers-cfg/*.json 2>/dev/null | wc -l)
check "all $n_src profiles in $DATADIR/dpr/drivers-cfg ($n_inst)" test "$n_inst" -eq "$n_src"
check "sample config $SYSCONFDIR/dpr/example.json" present "$SYSCONFDIR/dpr/example.json"
check "the installed sample passes dpr --check" \
	"$ROOT$BINDIR/dpr" -- -c "$ROOT$SYSCONFDIR/dpr/example.json" --check
check "unit $UNIT" present "$UNIT"
check "bash completion" present "$DATADIR/bash-completion/completions/dprctl"
if command -v scdoc > /dev/null; then
	for page in dpr dprctl dpr-doctor; do
		f=$ROOT$MANDIR/man8/$page.8
		check "man page $page.8 renders" \
			bash -c "MANWIDTH=80 man -l '$f' 2>/dev/null | grep -q '^NAME'"
	done
else
	echo "# skip: scdoc not installed, so no man pages were built (apt-get install scdoc)"
fi

# The unit as installed, its paths moved under the DESTDIR so that the
# executables it names are checked where they are.
if command -v systemd-analyze > /dev/null; then
	mkdir -p "$WORK/unit"
	sed "s|\([ =]\)/|\1$ROOT/|g" "$ROOT$UNIT" \
		> "$WORK/unit/dpr@smoke.service"
	systemd-analyze --man=no verify "$WORK/unit/dpr@smoke.service" > "$WORK/verify.log" 2>&1
	sed 's/^/# /' "$WORK/verify.log"
	check "systemd-analyze verify dpr@.service" test ! -s "$WORK/verify.log"
	check "unit runs dpr-doctor --preflight first" \
		grep -q "^ExecStartPre=$BINDIR/dpr-doctor --preflight -c $SYSCONFDIR/dpr/%i.json" "$ROOT$UNIT"
	check "unit restarts on failure" grep -q "^Restart=on-failure" "$ROOT$UNIT"
else
	echo "# skip: systemd-analyze not installed, the unit is not verified"
fi

# complete WORDS...: what the completion offers for the last (empty or
# partial) word
complete_words() {
	bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
		COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}; _dprctl; echo "${COMPREPLY[*]}"' \
		_ "$ROOT$DATADIR/bash-completion/completions/dprctl" "$@"
}
got=$(complete_words dprctl "")
check "completion offers the commands ($got)" test "$got" = "route addr neigh vrf vlan acl port stats doctor capture config rib call help"
got=$(complete_words dprctl -s /tmp/x route "")
check "completion offers route's subcommands ($got)" test "$got" = "add replace del get list load"
got=$(complete_words dprctl acl bind edge p0 "")
check "completion offers acl bind's directions ($got)" test "$got" = "in out"
got=$(complete_words dprctl capture --drop mar)
check "completion offers capture's drop reasons ($got)" test "$got" = "martian"
got=$(complete_words dprctl neigh add 10.0.0.1 "")
check "completion offers iproute2's lladdr ($got)" test "$got" = "lladdr"
got=$(complete_words dprctl --j)
check "completion offers options ($got)" test "$got" = "--json"

# The installed dpr and dprctl, from the DESTDIR, with the installed sample
# on af_packet ports (no qpairs: dpr adds them for its 2 workers).
DPR=$ROOT$BINDIR/dpr
DPRCTL=$ROOT$BINDIR/dprctl
unset DPR_DRIVERS_CFG
two_hosts
python3 - "$ROOT$SYSCONFDIR/dpr/example.json" "$WORK/dpr.json" "$TAG" "$V0" "$V1" "$SOCK" <<'PY'
import json, sys
src, dst, tag, v0, v1, sock = sys.argv[1:]
c = json.load(open(src))
for i, (p, v) in enumerate(zip(c["ports"], (v0, v1))):
    p["device"] = "net_af_packet_%s%d,iface=%s" % (tag, i, v)
    p["mac"] = "02:00:00:00:0%d:01" % (i + 1)
    p["addresses"] = ["10.0.%d.1/24" % (i + 1)]
    p.pop("mtu", None)
names = [p["name"] for p in c["ports"]]
c["neighbors"] = [{"address": "10.0.%d.2" % (i + 1), "mac": "02:00:00:00:0%d:02" % (i + 1),
                   "port": n} for i, n in enumerate(names)]
c["routes"] = [{"prefix": "198.51.100.0/24", "via": "10.0.2.2"}]
c["control"]["socket"] = sock
c["fib"] = {"ipv4_max_routes": 1024, "ipv4_tbl8_groups": 64,
            "ipv6_max_routes": 1024, "ipv6_tbl8_groups": 64}
json.dump(c, open(dst, "w"), indent=1)
PY
start_dpr "$WORK/dpr.json" --lcores "0@0,1@0,2@1" -- --idle-sleep 100
share=$ROOT$BINDIR/../share/dpr/drivers-cfg
check "installed dpr takes the installed profiles" \
	grep -qF "port profiles from $share (beside the executable)" "$WORK/dpr.log"
check "its af_packet ports use the installed profile" \
	grep -qF "profile $share/net_af_packet.json" "$WORK/dpr.log"
check "dpr added qpairs=3 for 2 workers" grep -q "(dpr added qpairs=3 for 2 workers)" "$WORK/dpr.log"
check "h1 pings h2 through the installed dpr" \
	ip netns exec "$H1" ping -c 3 -i 0.2 -W 2 -q 10.0.2.2
check "installed dprctl lists the ports" bash -c "'$DPRCTL' -s '$SOCK' port list | grep -q net_af_packet"
stop_dpr
check_accounting
finish

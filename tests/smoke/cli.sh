#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# dprctl as an operator types it: iproute2's words and order (addr add
# ADDRESS dev PORT, route add default via GW, neigh add ADDRESS lladdr
# MAC dev PORT) and dprctl's older forms, which stay; filters (route list
# PREFIX / source / dev, neigh list dev, stats PORT); --json anywhere;
# help for every command; --version. Arguments dprctl does not use are
# errors; errors name dprctl commands and show no JSON; route add under
# the config's route says it is stored, not active; route load checks the
# whole file before any change (unless --partial) and reports deletions;
# stats shows exceptions by class, and no cycles per packet when there
# are too few packets to say.
source "$(dirname "$0")/lib.sh"
need_root

two_hosts
two_hosts_config "$WORK/dpr.json" 2 \
	'"routes": [{"prefix": "10.50.0.0/16", "via": "10.0.2.2"}]'
start_dpr "$WORK/dpr.json" -l 0,1 -- --idle-sleep 100

# expect RC SUBSTRING ARGS...: dprctl exits RC and says SUBSTRING
expect() {
	local want=$1 sub=$2 out rc; shift 2
	out=$(ctl "$@" 2>&1); rc=$?
	if [ "$rc" -eq "$want" ] && grep -qF -- "$sub" <<<"$out"; then ok "dprctl $* -> $rc: $(head -1 <<<"$out")"
	else not_ok "dprctl $*: want exit $want and \"$sub\", got $rc: $out"; fi
}
# has ARGS... -- PATTERN: dprctl's output matches the extended regex
has() {
	local args=() out
	while [ "$1" != -- ]; do args+=("$1"); shift; done
	out=$(ctl "${args[@]}" 2>&1)
	if grep -qE -- "$2" <<<"$out"; then ok "dprctl ${args[*]} shows /$2/"
	else not_ok "dprctl ${args[*]}: no /$2/ in: $out"; fi
}
lacks() {
	local args=() out
	while [ "$1" != -- ]; do args+=("$1"); shift; done
	out=$(ctl "${args[@]}" 2>&1)
	if ! grep -qE -- "$2" <<<"$out"; then ok "dprctl ${args[*]} has no /$2/"
	else not_ok "dprctl ${args[*]}: /$2/ in: $out"; fi
}

# --- version and help ---------------------------------------------------------
check "dprctl --version" grep -qE '^dprctl [0-9]+\.[0-9]+' <<<"$("$DPRCTL" --version)"
check "dpr --version names DPDK's too" grep -qE '^dpr [0-9]+\.[0-9]+.* \(DPDK [0-9]' <<<"$("$DPR" --version)"
has help -- '^  neigh add ADDRESS lladdr MAC \[dev PORT\] \[vrf NAME\]$'
has help route add -- '^example: dprctl route add default via'
has route add --help -- '^usage: dprctl route add PREFIX\|default via GATEWAY'
has help route -- '^usage: dprctl route load FILE\|- \[--partial\]'
expect 2 'help: no command "nosuch"' help nosuch
expect 2 "neigh: expected one of:" neigh
expect 2 'unknown command "frobnicate"' frobnicate

# --- arguments dprctl does not use are errors ------------------------------------
expect 2 "usage: stats [PORT]" stats p0 p1
expect 2 "usage: port list" port list extra
expect 2 "usage: doctor" doctor now
expect 2 "usage: neigh list [dev PORT]" neigh list p0 p1
expect 2 "route list: unexpected \"bogus\"" route list bogus
expect 1 'no port "p9" (ports: p0, p1)' stats p9
expect 1 'no port "p9"' neigh list dev p9

# --- addresses -------------------------------------------------------------------
check "addr add ADDRESS/LEN dev PORT" ctl addr add 10.0.3.1/24 dev p1
has addr list dev p1 -- '^p1 +10\.0\.3\.1/24$'
lacks addr list dev p0 -- '10\.0\.3\.1'
check "addr del ADDRESS/LEN dev PORT" ctl addr del 10.0.3.1/24 dev p1
lacks addr list -- '10\.0\.3\.1'
check "addr add PORT ADDRESS/LEN (the older form)" ctl addr add p1 10.0.4.1/24
has addr show p1 -- '^p1 +10\.0\.4\.1/24$'
check "addr del PORT ADDRESS/LEN" ctl addr del p1 10.0.4.1/24

# --- routes ------------------------------------------------------------------------
check "route add default via GATEWAY" ctl route add default via 10.0.2.2
has route get 198.18.7.7 -- '^0\.0\.0\.0/0 +via 10\.0\.2\.2 +dev p1'
has route list default -- '^0\.0\.0\.0/0 +via 10\.0\.2\.2'
expect 1 "route del ::/0: no such route" -6 route del default
check "route del default" ctl route del default
check "route add PREFIX dev PORT" ctl route add 10.60.0.0/16 dev p1
n=$(ctl route list 10.60.0.0/16 | wc -l)
check "route list PREFIX shows that route alone ($n line)" test "$n" -eq 1
has route list 10.60.0.0/16 -- '^10\.60\.0\.0/16 +dev p1 +connected +source api'
lacks route list 10.60.0.0/24 -- '.'
has route list dev p1 -- '^10\.60\.0\.0/16 '
lacks route list dev p0 -- '10\.60\.0\.0/16|10\.0\.2\.0/24'
has route list source api -- '^10\.60\.0\.0/16 '
lacks route list source api -- '10\.50\.0\.0/16'
expect 1 'no port "p7"' route list dev p7
# --json anywhere on the line
check "--json after the command" python3 -c 'import json,sys; r=json.load(sys.stdin); sys.exit(0 if r[0]["prefix"] == "10.60.0.0/16" else 1)' \
	< <(ctl route list 10.60.0.0/16 --json)
check "--json before it" python3 -c 'import json,sys; json.load(sys.stdin)' < <(ctl --json route list)

# Errors name dprctl's commands and show no JSON.
out=$(ctl route add 10.60.0.0/16 dev p1 2>&1); rc=$?
check "route add of an existing route: exit 1 ($out)" test "$rc" -eq 1
check "... the message names the command and what to run" grep -qF \
	'dprctl: route add 10.60.0.0/16: exists (dev p1 (connected), source api); use `dprctl route replace`' <<<"$out"
check "... and holds no JSON object" bash -c '! grep -q "[{}]" <<<"$0"' "$out"
expect 1 "capture: drops[0]: not one of" capture -w "$WORK/x.pcapng" --drop nosuch

# Under the config's route: stored, not active.
out=$(ctl route add 10.50.0.0/16 via 10.0.1.2 2>&1); rc=$?
check "route add under the config's route exits 0 ($rc)" test "$rc" -eq 0
check "... says it is stored but not active, and which one is ($out)" \
	grep -q "^note: stored but not active: the config's route above is preferred for 10.50.0.0/16" <<<"$out"
has route get 10.50.1.1 -- 'via 10\.0\.2\.2 .*source config'
check "route del gives it up" ctl route del 10.50.0.0/16

# --- neighbours -------------------------------------------------------------------------
check "neigh add ADDRESS lladdr MAC dev PORT" ctl neigh add 10.0.2.9 lladdr 02:00:00:00:02:09 dev p1
check "... with iproute2's nud permanent" \
	ctl neigh add 10.0.2.7 lladdr 02:00:00:00:02:07 dev p1 nud permanent
check "neigh add ADDRESS MAC (the older form)" ctl neigh add 10.0.2.8 02:00:00:00:02:08
has neigh list dev p1 -- '^10\.0\.2\.9 +02:00:00:00:02:09 +p1 .*yes$'
has neigh show dev p1 -- '^10\.0\.2\.8 +02:00:00:00:02:08 +p1'
lacks neigh list dev p0 -- '10\.0\.2\.[789]'
check "neigh del ADDRESS dev PORT" ctl neigh del 10.0.2.9 dev p1
lacks neigh list -- '10\.0\.2\.9 '

# --- route load: the whole file checked first ----------------------------------------------
printf '10.70.0.0/16 via 10.0.2.2\n# a comment\n10.71.0.0/16 via 10.0.2.2\n10.72.0.0/16 via nonsense\n' > "$WORK/bad.txt"
out=$(ctl route load "$WORK/bad.txt" 2>&1); rc=$?
check "a bad line: exit 1 ($out)" test "$rc" -eq 1
check "... named by file and line, nothing applied" \
	grep -q "^dprctl: $WORK/bad.txt:4: .*nothing applied" <<<"$out"
lacks route list 10.70.0.0/16 -- '.'
out=$(ctl route load "$WORK/bad.txt" --partial 2>&1); rc=$?
check "--partial: exit 1, the lines before it applied ($out)" test "$rc" -eq 1
has route list 10.71.0.0/16 -- '^10\.71\.0\.0/16 '
printf 'del 10.70.0.0/16\ndel 10.71.0.0/16\n' > "$WORK/del.txt"
has route load "$WORK/del.txt" -- '^deleted 2 routes in '
printf '10.73.0.0/16 via 10.0.2.2\n' | ctl route load - > "$WORK/load.out"
check "route load - (standard input) adds ($(cat "$WORK/load.out"))" grep -q '^loaded 1 routes' "$WORK/load.out"

# --- stats ---------------------------------------------------------------------------------
ip netns exec "h1-$TAG" ping -c 2 -i 0.2 -W 1 -q 10.0.1.1 >/dev/null
has stats p0 -- '^    exceptions: .*=[1-9]'
lacks stats p0 -- '^p1 '
has stats -- '^lcore 1 +[0-9]+ .* +- (yes|no) '
check "stats.get: no cycles per packet for a handful of packets" python3 -c \
	'import json,sys; sys.exit(0 if json.load(sys.stdin)["workers"][0]["cycles_per_packet"] is None else 1)' \
	< <(ctl --json stats)
out=$(ctl doctor)
check "doctor: \"no warnings\" only when there are none" \
	bash -c '! { grep -q "^no warnings" <<<"$0" && grep -qE "^(warning|error):" <<<"$0"; }' "$out"

stop_dpr
check_accounting
finish

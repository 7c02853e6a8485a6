#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# State that survives a restart (issue 51): dpr starts from a config, routes
# (IPv4 and IPv6, via and dev, multipath), addresses and static neighbours
# are added at run time and some of the config's deleted; `dprctl config
# save` writes a file `dpr --check` accepts, and dpr restarted from it has
# the same routes, addresses and static neighbours, and forwards through a
# route added at run time. BULK routes loaded at run time take config.get
# many pages (20,000 routes each), which dprctl pages through.
source "$(dirname "$0")/lib.sh"
need_root

two_hosts
ip -n "$H2" addr add 198.51.100.7/32 dev lo
SAVED=$WORK/saved.json
BULK=${BULK:-150000}
cat > "$WORK/dpr.json" <<JSON
{
  "ports": [
    {"name": "p0", "device": "net_af_packet_${TAG}a,iface=$V0,qpairs=2",
     "mac": "02:00:00:00:01:01", "addresses": ["10.0.1.1/24", "2001:db8:1::1/64"],
     "tap": false, "neighbor_learning": "ignore_gratuitous"},
    {"name": "p1", "device": "net_af_packet_${TAG}b,iface=$V1,qpairs=2",
     "mac": "02:00:00:00:02:01", "tap": false, "broadcast_echo": true, "mtu": 1400,
     "addresses": ["10.0.2.1/24", "2001:db8:2::1/64", "10.0.9.1/24"]}
  ],
  "routes": [
    {"prefix": "203.0.113.0/24", "via": "10.0.2.2"},
    {"prefix": "192.0.2.0/24", "port": "p1"},
    {"prefix": "2001:db8:99::/48", "via": "2001:db8:2::2"}
  ],
  "neighbors": [
    {"address": "10.0.1.2", "mac": "02:00:00:00:01:02", "port": "p0"},
    {"address": "10.0.2.2", "mac": "02:00:00:00:02:02", "port": "p1"},
    {"address": "2001:db8:2::2", "mac": "02:00:00:00:02:02"},
    {"address": "2001:db8:1::9", "mac": "02:00:00:00:01:09"}
  ],
  "control": {"socket": "$SOCK"},
  "fib": {"ipv4_max_routes": $((BULK + 65536)), "ipv4_tbl8_groups": 64, "ipv6_max_routes": 1024,
          "ipv6_tbl8_groups": 1024, "ipv6_algorithm": "poptrie"}
}
JSON
start_dpr "$WORK/dpr.json" -l 0,1 -- --idle-sleep 100

pings() { ip netns exec "$H1" ping -c 2 -i 0.2 -W 1 -q "$1" >/dev/null 2>&1; }
# state NAME: what must come back, sorted: routes without their source
# (run-time ones are the config's after the restart) or resolution,
# addresses, static neighbours
state() {
	ctl route list | sed -e 's/  source .*//' -e 's/, unresolved//' -e 's/ *$//' | sort \
		> "$WORK/$1.routes"
	ctl addr list | sort > "$WORK/$1.addrs"
	ctl neigh list | awk '$NF == "yes"' | sort > "$WORK/$1.neighs"
}
same() { # same WHAT: before and after agree, else the difference
	if diff -u "$WORK/before.$1" "$WORK/after.$1" > "$WORK/$1.diff"; then
		ok "the same $1 after the restart ($(wc -l < "$WORK/after.$1") lines)"
	else
		not_ok "$1 differ after the restart:"; sed 's/^/#   /' "$WORK/$1.diff"
	fi
}

# Run-time changes: each kind added, and one of the config's of each
# kind removed (the config's routes are its own: route.del refuses them,
# so the deleted route is one added here).
for r in "198.51.100.0/24 via 10.0.2.2" "198.18.0.0/15 dev p1" \
	 "2001:db8:77::/48 via 2001:db8:2::2" "2001:db8:78::/48 dev p1" \
	 "100.64.0.0/10 via 10.0.2.2 via 10.0.2.3 weight 3" "172.31.0.0/16 via 10.0.2.2"; do
	# shellcheck disable=SC2086
	ctl route add $r >/dev/null || not_ok "route add $r"
done
ctl route del 172.31.0.0/16 >/dev/null || not_ok "route del 172.31.0.0/16"
ctl addr add p0 10.0.5.1/24 >/dev/null || not_ok "addr add p0 10.0.5.1/24"
ctl addr add p1 2001:db8:3::1/64 >/dev/null || not_ok "addr add p1 2001:db8:3::1/64"
ctl addr del p1 10.0.9.1/24 >/dev/null || not_ok "addr del p1 10.0.9.1/24"
ctl neigh add 10.0.5.7 02:00:00:00:05:07 >/dev/null || not_ok "neigh add 10.0.5.7"
ctl neigh add 2001:db8:3::7 02:00:00:00:03:07 >/dev/null || not_ok "neigh add 2001:db8:3::7"
ctl neigh del 2001:db8:1::9 >/dev/null || not_ok "neigh del 2001:db8:1::9"
check "traffic crosses the run-time route" pings 198.51.100.7
# BULK /24s from 20.0.0.0 on, as a daemon-less operator would load them.
python3 -c "
for i in range($BULK):
    a = (20 << 24) + (i << 8)
    print('%d.%d.%d.0/24 via 10.0.2.2' % (a >> 24, a >> 16 & 255, a >> 8 & 255))
" > "$WORK/bulk.txt"
check "route load of $BULK routes" ctl route load "$WORK/bulk.txt"

# Saved: atomically, in the mode of the file it replaces, and valid.
echo '{}' > "$SAVED"
chmod 640 "$SAVED"
t0=$(date +%s%N)
check "config save" ctl config save "$SAVED"
# For the record (docs/operating.md), never judged: timing is the benchmarks'.
echo "# config save: $((BULK + 8)) routes, $(( ($(date +%s%N) - t0) / 1000000 )) ms, $(stat -c %s "$SAVED") bytes"
check "config save keeps the replaced file's mode" test "$(stat -c %a "$SAVED")" = 640
check "config save leaves no temporary file" test -z "$(find "$WORK" -name 'saved.json.*')"
check "config show prints what config save wrote" diff <(ctl config show) "$SAVED"
# Through a symbolic link (a config kept in a repository): the link stays.
ln -s saved.json "$WORK/link.json"
echo '{}' > "$SAVED"
check "config save through a symbolic link" ctl config save "$WORK/link.json"
check "...leaves the link a link to its file" test -L "$WORK/link.json" -a "$(readlink "$WORK/link.json")" = saved.json
check "...and writes that file" diff <(ctl config show) "$SAVED"
ln -s nowhere.json "$WORK/dangling.json"
out=$(ctl config save "$WORK/dangling.json" 2>&1); rc=$?
check "config save through a link to nothing: exit 2 ($rc: $out)" \
	test "$rc" -eq 2 -a -n "$(grep -F "symbolic link to nothing" <<<"$out")" -a -L "$WORK/dangling.json"
out=$("$DPR" -- -c "$SAVED" --check 2>&1); rc=$?
check "dpr --check accepts the saved file ($rc: $out)" \
	test "$rc" -eq 0 -a -n "$(grep -F "configuration OK (2 ports, $((BULK + 8)) routes, 5 neighbours)" <<<"$out")"
check "the saved file has every route once, and not the deleted ones" python3 - "$SAVED" "$BULK" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
bulk = [r["prefix"] for r in c["routes"]
        if ":" not in r["prefix"] and 20 <= int(r["prefix"].split(".")[0]) < 100 and
        r["prefix"].endswith("/24") and r.get("via") == "10.0.2.2"]
assert len(bulk) == len(set(bulk)) == int(sys.argv[2]), len(bulk)
prefixes = {r["prefix"] for r in c["routes"]} - set(bulk)
p1 = next(p for p in c["ports"] if p["name"] == "p1")
assert prefixes == {"203.0.113.0/24", "192.0.2.0/24", "2001:db8:99::/48", "198.51.100.0/24",
                    "198.18.0.0/15", "2001:db8:77::/48", "2001:db8:78::/48",
                    "100.64.0.0/10"}, prefixes
assert "10.0.9.1/24" not in p1["addresses"] and p1["mtu"] == 1400 and p1["broadcast_echo"]
assert c["fib"]["ipv6_algorithm"] == "poptrie" and c["fib"]["ipv4_tbl8_groups"] == 64
assert "2001:db8:1::9" not in [n["address"] for n in c["neighbors"]]
PY

# Bad use: exit status 2 and a line that says why, the old file untouched.
out=$(ctl config save "$WORK/no-such-dir/x.json" 2>&1); rc=$?
check "config save into a missing directory: exit 2 ($rc: $out)" \
	test "$rc" -eq 2 -a -n "$(grep -F "cannot create" <<<"$out")"
out=$(ctl config frobnicate 2>&1); rc=$?
check "config with an unknown verb: exit 2 ($rc: $out)" test "$rc" -eq 2

state before
stop_dpr
start_dpr "$SAVED" -l 0,1 -- --idle-sleep 100
state after
same routes
same addrs
same neighs
check "run-time routes are the config's now" \
	bash -c "'$DPRCTL' -s '$SOCK' route list source config | grep -q '^198.51.100.0/24 .*via 10.0.2.2'"
check "traffic crosses the run-time route after the restart" pings 198.51.100.7
stop_dpr
finish

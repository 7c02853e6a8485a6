#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# dprctl against a stand-in for dpr's control socket (Python, one JSON-RPC
# answer per request line, every route taken): text JSON cannot carry
# (not UTF-8) is refused by name, never left out of the request without a
# word: a line of route load's file, a parameter of a command. Route types
# dpr does not take from dprctl (blackhole...) are refused by name.
# Usage: dprctl_load.sh PATH_TO_DPRCTL
dprctl=${1:?usage: dprctl_load.sh PATH_TO_DPRCTL}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/dprctl-load.XXXXXX") || exit 2
server=
trap '[ -n "$server" ] && kill "$server" 2>/dev/null; rm -rf "$tmp"' EXIT
fails=0

python3 - "$tmp/sock" "$tmp/requests" <<'PY' &
import json, os, socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.bind(sys.argv[1])
s.listen(8)
log = open(sys.argv[2], "a")
while True:
    c, _ = s.accept()
    f = c.makefile("rwb")
    for line in f:
        req = json.loads(line)
        routes = req.get("params", {}).get("routes", [])
        log.write(json.dumps(req) + "\n")
        log.flush()
        n = len(routes)
        res = {"loaded": n, "added": n, "deleted": 0, "checked_only": False,
               "routes": n, "ipv4_routes": n, "ipv6_routes": 0}
        f.write((json.dumps({"jsonrpc": "2.0", "id": req.get("id"), "result": res}) + "\n").encode())
        f.flush()
    c.close()
PY
server=$!
i=0
while [ ! -S "$tmp/sock" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done

# Line 2 is not UTF-8 (a Latin-1 byte): JSON cannot carry it.
printf '10.1.0.0/16 via 10.0.1.2\n10.2.0.0/16 via 10.0.1.2 caf\351\n10.3.0.0/16 via 10.0.1.2\n' >"$tmp/routes"
for mode in "" --partial; do
	: >"$tmp/requests"
	out=$("$dprctl" -s "$tmp/sock" route load "$tmp/routes" $mode 2>&1)
	rc=$?
	case "$rc:$out" in
	1:*"routes:2: "*"UTF-8"*)
		echo "ok - route load $mode: line 2 refused by number: $out" ;;
	*)
		echo "not ok - route load $mode: want exit 1 naming line 2 (not UTF-8), got $rc: $out"
		echo "#   sent: $(cat "$tmp/requests")"
		fails=$((fails + 1)) ;;
	esac
	if grep -q '10.3.0.0/16' "$tmp/requests"; then
		echo "not ok - route load $mode: went on past the bad line"
		fails=$((fails + 1))
	fi
done
# A word that is not UTF-8: refused before anything is sent (left out,
# "vrf" would send the route to the default VRF, "dev" would let it take
# any port, "urpf" would leave it off, "default" would make an ACL permit;
# without its one parameter "addr list dev" would list every port's).
# refused_unsent WHY ARGS: dprctl ARGS exits 2 with WHY, sending nothing
refused_unsent() {
	local why=$1 args=$2 out rc
	: >"$tmp/requests"
	# shellcheck disable=SC2086 # the words of $args are the arguments
	out=$("$dprctl" -s "$tmp/sock" $args 2>&1)
	rc=$?
	if [ "$rc" -eq 2 ] && [ ! -s "$tmp/requests" ] && echo "$out" | grep -qF "$why"; then
		echo "ok - dprctl $args: refused, nothing sent"
	else
		echo "not ok - dprctl $args: want exit 2 and nothing sent, got $rc: $out"
		echo "#   sent: $(cat "$tmp/requests")"
		fails=$((fails + 1))
	fi
}
bad=$(printf 'r\351d')
for args in "route add 10.9.0.0/16 via 10.0.1.2 vrf $bad" "route add 10.9.0.0/16 via 10.0.1.2 dev $bad" \
	"vlan add x dev p0 id 5 urpf $bad" "acl set web default $bad []" "addr list dev $bad" \
	"addr add 10.9.0.1/24 dev $bad" "neigh del $bad" "acl bind web $bad in"; do
	refused_unsent "not UTF-8 text" "$args"
done
# "vrf NAME" on a command that takes none: refused, not left out of the
# request (addr list would list every VRF's addresses, addr add would put
# the address wherever its port is).
for args in "addr list vrf red" "addr add 10.9.0.1/24 dev p0 vrf red" "stats vrf red"; do
	refused_unsent 'takes no "vrf red"' "$args"
done
: >"$tmp/requests"
"$dprctl" -s "$tmp/sock" route list vrf red >/dev/null 2>&1
if grep -q '"vrf": "red"' "$tmp/requests"; then
	echo "ok - dprctl route list vrf red: sent with its VRF"
else
	echo "not ok - dprctl route list vrf red: sent $(cat "$tmp/requests")"
	fails=$((fails + 1))
fi
# iproute2's "via inet|inet6 GW": the family word must fit the gateway
# (an IPv4 gateway under "inet6" is junk, refused as route.load refuses it).
: >"$tmp/requests"
out=$("$dprctl" -s "$tmp/sock" route add 10.9.0.0/16 via inet6 10.0.1.2 2>&1)
rc=$?
if [ "$rc" -eq 2 ] && [ ! -s "$tmp/requests" ] && echo "$out" | grep -q 'not an IPv6 address'; then
	echo "ok - dprctl route add via inet6 IPV4: refused, nothing sent"
else
	echo "not ok - dprctl route add via inet6 IPV4: want exit 2 and nothing sent, got $rc: $out"
	fails=$((fails + 1))
fi
: >"$tmp/requests"
"$dprctl" -s "$tmp/sock" route add 10.9.0.0/16 via inet 10.0.1.2 >/dev/null 2>&1
if grep -q '"via": "10.0.1.2"' "$tmp/requests"; then
	echo "ok - dprctl route add via inet GW: sent"
else
	echo "not ok - dprctl route add via inet GW: sent $(cat "$tmp/requests")"
	fails=$((fails + 1))
fi
# iproute2's other route types: refused by name, not read as a prefix
# ("blackhole" as the prefix, "10.0.0.0/8" as a keyword without a value).
for args in "route add blackhole 10.0.0.0/8" "route add 10.0.0.0/8 unreachable" \
	"route replace prohibit 10.0.0.0/8"; do
	: >"$tmp/requests"
	# shellcheck disable=SC2086 # the words of $args are the arguments
	out=$("$dprctl" -s "$tmp/sock" $args 2>&1)
	rc=$?
	word=$(echo "$args" | grep -oE 'blackhole|unreachable|prohibit')
	if [ "$rc" -eq 2 ] && [ ! -s "$tmp/requests" ] &&
	   echo "$out" | grep -q "^dprctl: $word routes: dpr takes only routes via a gateway or out of a port"; then
		echo "ok - dprctl $args: refused by its type, nothing sent"
	else
		echo "not ok - dprctl $args: want exit 2 naming \"$word routes\", got $rc: $out"
		fails=$((fails + 1))
	fi
done
[ $fails -eq 0 ]

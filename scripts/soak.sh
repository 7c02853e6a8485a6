#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Soak: dpr (the ASan/UBSan build by default) between two namespace hosts
# for MINUTES under everything at once: IPv4 and IPv6 traffic to 21 hosts
# per family, route churn (route.load of 5000 IPv4 and 1000 IPv6 routes,
# then their deletion, over and over), control queries (stats, route.get,
# route.list, port.list, neigh.list, config.get), and neighbour churn
# (learned neighbours deleted and learned again, static ones added and
# removed). At the end: dpr still answers, its tables agree (rib check), it
# exits 0, no sanitizer report
# in its log, mbufs, routes, tbl8 groups, next hops and neighbours back to
# where they were after the warm-up, the counters add up exactly, and h2
# received (nearly) all h1 sent.
#
#   scripts/soak.sh 30                  thirty minutes, build-asan/
#   DPR=build/app/dpr scripts/soak.sh 5 another binary
#   taskset -c 0 env SOAK_LCORES=0@0,1@0 scripts/soak.sh 30
#                                       on CPU 0 only (dpr's two lcores as
#                                       well), leaving CPU 1 to something else
#
# Prints a summary and "soak: N passed, N failed" last; exits 1 on a failure.
set -uo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
MINUTES=${1:-30}
case $MINUTES in '' | *[!0-9]*) echo "usage: $0 MINUTES" >&2; exit 2 ;; esac
cd "$TOP"
if [ -z "${DPR:-}" ]; then
	scripts/setup.sh >/dev/null || exit 1
	[ -f build-asan/build.ninja ] ||
		meson setup build-asan -Dbuildtype=debug -Db_sanitize=address,undefined \
			-Db_lundef=false >/dev/null || exit 1
	ninja -C build-asan >/dev/null || exit 1
	DPR=build-asan/app/dpr
fi
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export DPR
# lib.sh names its work directory and messages after this script.
source tests/smoke/lib.sh
need_root

two_hosts
for i in $(seq 100 119); do
	ip -n "$H2" addr add "10.0.2.$i/24" dev eth0
done
ip netns exec "$H2" sysctl -qw net.ipv6.conf.all.disable_ipv6=0 net.ipv6.conf.eth0.disable_ipv6=0
ip netns exec "$H1" sysctl -qw net.ipv6.conf.all.disable_ipv6=0 net.ipv6.conf.eth0.disable_ipv6=0
ip -n "$H1" addr add 2001:db8:1::2/64 dev eth0 nodad
ip -n "$H1" route add default via 2001:db8:1::1
ip -n "$H2" addr add 2001:db8:2::2/64 dev eth0 nodad
for i in $(seq 100 119); do
	ip -n "$H2" addr add "2001:db8:2::$i/64" dev eth0 nodad
done
ip -n "$H2" route add default via 2001:db8:2::1
cat > "$WORK/dpr.json" <<JSON
{
  "ports": [
    {"name": "p0", "device": "net_af_packet_${TAG}a,iface=$V0,qpairs=2",
     "mac": "02:00:00:00:01:01", "addresses": ["10.0.1.1/24", "2001:db8:1::1/64"],
     "tap": "ds${TAG}a"},
    {"name": "p1", "device": "net_af_packet_${TAG}b,iface=$V1,qpairs=2",
     "mac": "02:00:00:00:02:01", "addresses": ["10.0.2.1/24", "2001:db8:2::1/64"],
     "tap": "ds${TAG}b"}
  ],
  "control": {"socket": "$SOCK"},
  "fib": {"ipv4_max_routes": 16384, "ipv4_tbl8_groups": 1024,
          "ipv6_max_routes": 4096, "ipv6_tbl8_groups": 4096}
}
JSON
start_dpr "$WORK/dpr.json" --lcores "${SOAK_LCORES:-0,1}" -- --idle-sleep 100
LINKS+=("ds${TAG}a" "ds${TAG}b")

# The hosts' traffic: h1 sends UDP to h2's 21 addresses of each family in
# turn, paced, until told to stop; h2 counts what arrives.
cat > "$WORK/send.py" <<'PY'
import json, os, socket, sys, time
stop, out = sys.argv[1], sys.argv[2]
dst = [("10.0.2.%d" % h, socket.AF_INET) for h in [2] + list(range(100, 120))] + \
      [("2001:db8:2::%d" % h, socket.AF_INET6) for h in [2] + list(range(100, 120))]
s4, s6 = socket.socket(socket.AF_INET, socket.SOCK_DGRAM), socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
sent = {"4": 0, "6": 0}
i = 0
while not os.path.exists(stop):
    a, f = dst[i % len(dst)]
    try:
        (s4 if f == socket.AF_INET else s6).sendto(b"soak" * 16, (a, 5001 + i % 8))
        sent["4" if f == socket.AF_INET else "6"] += 1
    except OSError:
        pass
    i += 1
    if i % 16 == 0:
        time.sleep(0.002)
json.dump(sent, open(out, "w"))
PY
cat > "$WORK/recv.py" <<'PY'
import json, os, select, socket, sys
stop, out = sys.argv[1], sys.argv[2]
socks = []
for port in range(5001, 5009):
    for fam, any_ in ((socket.AF_INET, "0.0.0.0"), (socket.AF_INET6, "::")):
        s = socket.socket(fam, socket.SOCK_DGRAM)
        if fam == socket.AF_INET6:
            s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
        s.setsockopt(socket.SOL_SOCKET, 33, 8 << 20)  # SO_RCVBUFFORCE
        s.bind((any_, port))
        s.setblocking(False)
        socks.append((s, "4" if fam == socket.AF_INET else "6"))
got = {"4": 0, "6": 0}
open(out + ".ready", "w").close()
idle = 0
while True:
    r, _, _ = select.select([s for s, _ in socks], [], [], 0.2)
    for s, f in socks:
        if s in r:
            while True:
                try:
                    s.recv(2048)
                    got[f] += 1
                except BlockingIOError:
                    break
    idle = idle + 1 if not r else 0
    if os.path.exists(stop) and idle >= 5:
        break
json.dump(got, open(out, "w"))
PY
# The control side: route churn, queries and neighbour churn over one
# JSON-RPC connection each, counting what they did.
cat > "$WORK/churn.py" <<'PY'
import json, os, random, socket, sys, time
sock, stop, out, what = sys.argv[1:5]
s = socket.socket(socket.AF_UNIX)
s.connect(sock)
f = s.makefile("rwb")
n = 0
def call(method, params=None):
    global n
    n += 1
    req = {"jsonrpc": "2.0", "id": n, "method": method}
    if params is not None:
        req["params"] = params
    f.write(json.dumps(req).encode() + b"\n")
    f.flush()
    r = json.loads(f.readline())
    if "error" in r and what != "neigh":
        raise SystemExit("%s: %s" % (method, r["error"]))
    return r.get("result")
rnd = random.Random(1)
done = {"calls": 0, "cycles": 0, "routes": 0, "errors": 0}
while not os.path.exists(stop):
    if what == "routes":
        v4 = ["100.%d.%d.0/24 via 10.0.2.2" % (64 + i // 256, i % 256) for i in rnd.sample(range(16384), 5000)]
        v6 = ["2001:db8:%x::/48 via 2001:db8:2::2" % (0x1000 + i) for i in rnd.sample(range(20000), 1000)]
        call("route.load", {"routes": v4 + v6})
        call("route.load", {"routes": ["del " + l.split()[0] for l in v4 + v6]})
        done["routes"] += 6000
    elif what == "queries":
        call("stats.get"); call("port.list"); call("neigh.list"); call("config.get")
        call("route.list", {"limit": 100})
        call("route.get", {"address": "10.0.2.%d" % rnd.randrange(256)})
        call("route.get", {"address": "2001:db8:2::%x" % rnd.randrange(0x200)})
        time.sleep(0.05)
    else:  # neigh: forget a learned host (it is learned again), a static comes and goes
        h = rnd.randrange(100, 120)
        for ip in ("10.0.2.%d" % h, "2001:db8:2::%x" % h):
            r = call("neigh.del", {"address": ip})
        call("neigh.add", {"address": "10.0.2.%d" % rnd.randrange(200, 210), "mac": "02:00:00:00:02:99"})
        call("neigh.del", {"address": "10.0.2.%d" % rnd.randrange(200, 210)})
        time.sleep(0.5)
    done["cycles"] += 1
if what == "neigh":  # the static ones go: the next-hop count must come back
    for h in range(200, 210):
        call("neigh.del", {"address": "10.0.2.%d" % h})
done["calls"] = n
json.dump(done, open(out, "w"))
PY

snapshot() { # snapshot FILE: what must come back to where it was (and the neighbours)
	ctl --json neigh list > "$1.neigh"
	ctl --json stats | python3 -c 'import json,sys
S = json.load(sys.stdin)
e = S["exception_path"]
json.dump({"mbufs": S["mbufs"][0]["in_use"], "ipv4_routes": S["fib"]["ipv4_routes"],
           "ipv6_routes": S["fib"]["ipv6_routes"], "ipv6_tbl8_used": S["fib"]["ipv6_tbl8_used"],
           "nexthops": S["nexthops"], "learned": e["learned"], "resolving": e["resolving"]},
          open(sys.argv[1], "w"))' "$1"
}

STOP=$WORK/stop
ip netns exec "$H2" python3 "$WORK/recv.py" "$STOP" "$WORK/recv.json" &
RECV=$!
for _ in $(seq 100); do [ -f "$WORK/recv.json.ready" ] && break; sleep 0.05; done
ip netns exec "$H1" python3 "$WORK/send.py" "$STOP" "$WORK/sent.json" &
SEND=$!
# Warm-up: every host learned, h1 too (dpr answers its pings: it needs
# h1's MAC for nothing else, and the host stack may ask for it any time),
# the pools settled.
ip netns exec "$H1" ping -c 2 -i 0.2 -q 10.0.1.1 >/dev/null 2>&1
ip netns exec "$H1" ping -6 -c 2 -i 0.2 -q 2001:db8:1::1 >/dev/null 2>&1
sleep 20
# Neighbour churn deletes learned neighbours; for the baseline, all are there.
snapshot "$WORK/start.json"
echo "# after the warm-up: $(cat "$WORK/start.json")"
CHURN=()
for w in routes queries neigh; do
	python3 "$WORK/churn.py" "$SOCK" "$STOP" "$WORK/churn-$w.json" "$w" &
	CHURN+=($!)
done
end=$(( $(date +%s) + MINUTES * 60 ))
while [ "$(date +%s)" -lt "$end" ]; do
	kill -0 "$DPR_PID" 2>/dev/null || break
	sleep 10
done
alive() { kill -0 "$DPR_PID" 2>/dev/null; }
check "dpr ran for $MINUTES minutes" alive
touch "$STOP"
for p in "${CHURN[@]}"; do wait "$p"; done
wait "$SEND"
# The churn may have just deleted a learned host: let the traffic of a last
# round learn every one again, and what is held drain.
rm -f "$STOP"
ip netns exec "$H1" python3 "$WORK/send.py" "$STOP" "$WORK/sent-last.json" &
SEND=$!
sleep 5
touch "$STOP"
wait "$SEND" "$RECV"
sleep 5
snapshot "$WORK/end.json"
echo "# at the end:       $(cat "$WORK/end.json")"
for w in routes queries neigh; do echo "# $w: $(cat "$WORK/churn-$w.json")"; done
echo "# sent: $(cat "$WORK/sent.json"), then $(cat "$WORK/sent-last.json"); received: $(cat "$WORK/recv.json")"
same() { python3 - "$WORK/start.json" "$WORK/end.json" "$1" "$2" <<'PY'
import json, sys
a, b = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
k, slack = sys.argv[3], int(sys.argv[4])
sys.exit(0 if abs(a[k] - b[k]) <= slack else 1)
PY
}
# mbufs: the per-lcore caches (256 each, two lcores) hold what they like.
check "mbufs in use back to the start (within the lcore caches)" same mbufs 512
for k in ipv4_routes ipv6_routes ipv6_tbl8_used nexthops learned; do
	check "$k back to the start" same "$k" 0
done
# Which neighbours came or went, to tell a leak from a host that spoke up.
python3 - "$WORK/start.json.neigh" "$WORK/end.json.neigh" <<'PY'
import json, sys
def keyed(f):
    j = json.load(open(f))
    rows = j.get("neighbors", j) if isinstance(j, dict) else j
    return {(r.get("address"), r.get("port")): r for r in rows}
a, b = keyed(sys.argv[1]), keyed(sys.argv[2])
for k in sorted(set(a) ^ set(b), key=str):
    print("# neighbour %s %s: %s" % ("gone" if k in a else "new", k, (a.get(k) or b.get(k))))
PY
check "no address left resolving" test "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["resolving"])' "$WORK/end.json")" -eq 0
check "dpr answers dprctl" ctl stats
# Every next hop's references against the routes, candidates and
# neighbours that hold it, after hours of churn (lib/route/check.c).
check "the router's tables agree (rib check)" ctl rib check
stop_dpr
check_accounting
check "no sanitizer report" bash -c "! grep -qE 'AddressSanitizer|runtime error|LeakSanitizer' $WORK/dpr.log"
delivered() { python3 - "$WORK/sent.json" "$WORK/sent-last.json" "$WORK/recv.json" <<'PY'
import json, sys
a, b, got = (json.load(open(f)) for f in sys.argv[1:4])
for f in "46":
    sent = a[f] + b[f]
    print("# IPv%s: h1 sent %d datagrams, h2 received %d (%.3f%%)" % (f, sent, got[f], 100.0 * got[f] / max(sent, 1)))
    # Neighbour churn holds (4 a host) and drops what it cannot hold.
    if not (0.98 * sent <= got[f] <= sent):
        sys.exit(1)
PY
}
check "h2 received at least 98% of what h1 sent, no more" delivered
echo "soak: $PASS passed, $FAIL failed"
finish

#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# ACLs between real Linux hosts: h1 (10.0.1.2, behind p0) talks to h2
# (10.0.2.2, behind p1), whose TCP listeners on 5000-5002 accept.
#   p0 in "edge-in": TCP 5001 denied (h1's connect times out), TCP 5002
#   rejected (h1 sees ICMP administratively prohibited: EHOSTUNREACH at
#   once), 5000 permitted; ICMP echo requests to 10.0.2.0/24 denied, those
#   to the router itself and echo replies pass (ICMP types); drops.acl
#   counted on p0 and the rules' hits in acl.get.
#   p1 out "web-out" (acl bind): UDP 7001 to h2 denied on the way out.
#   A 10,000-rule list replaces edge-in twice while h1 sends UDP to
#   h2: nothing permitted is lost. Refused input (an unknown field) names
#   the rule and leaves the list as it was.
source "$(dirname "$0")/lib.sh"
need_root

two_hosts
two_hosts_config "$WORK/dpr.json" 2 '"acls": [
    {"name": "edge-in", "default": "permit", "rules": [
      {"action": "deny", "proto": "tcp", "dst": "10.0.2.2/32", "dst_port": 5001},
      {"action": "reject", "proto": "tcp", "dst_port": 5002},
      {"action": "deny", "proto": "icmp", "icmp_type": 8, "dst": "10.0.2.0/24"}]}]'
python3 - "$WORK/dpr.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
c["ports"][0]["acl_in"] = "edge-in"
json.dump(c, open(sys.argv[1], "w"), indent=1)
PY
start_dpr "$WORK/dpr.json" --lcores 0@0,1@1 -- --idle-sleep 100

# TCP listeners on h2 that accept and close.
bg_in "$H2" "$WORK/listen.log" python3 -c '
import select, socket
ls = []
for p in (5000, 5001, 5002):
    s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("0.0.0.0", p)); s.listen(16); ls.append(s)
while True:
    for s in select.select(ls, [], [])[0]:
        c, _ = s.accept(); c.close()'
wait_for 5 bash -c "ip netns exec $H2 ss -ltn | grep -q :5002"
# connect PORT: "ok", or the error h1's kernel gave (Python's errno name)
connect() {
	ip netns exec "$H1" python3 -c '
import errno, socket, sys
s = socket.socket(); s.settimeout(2)
try:
    s.connect(("10.0.2.2", int(sys.argv[1]))); print("ok")
except socket.timeout:
    print("timeout")
except OSError as e:
    print(errno.errorcode.get(e.errno, e.errno))' "$1"
}
check "TCP 5000 is permitted" test "$(connect 5000)" = ok
check "TCP 5001 is denied (no answer)" test "$(connect 5001)" = timeout
# A capture of ACL drops records the rejected SYN too (drops.acl counts it).
ctl capture -w "$WORK/acl.pcapng" --drop acl --port p0 -c 1 --seconds 6 > "$WORK/cap.out" 2>&1 &
CAP=$!
wait_for 5 eval "ctl capture status | grep -q '(running)'"
check "TCP 5002 is rejected: h1 got ICMP administratively prohibited" \
	test "$(connect 5002)" = EHOSTUNREACH
wait "$CAP"
sed 's/^/# /' "$WORK/cap.out"
n=$(tcpdump -r "$WORK/acl.pcapng" -n 'tcp dst port 5002' 2>/dev/null | wc -l)
check "a capture of drops.acl on p0 has the rejected SYN ($n)" test "$n" -eq 1
check "ICMP echo request to h2 (type 8, 10.0.2.0/24) is denied" \
	bash -c "! ip netns exec $H1 ping -c 2 -i 0.2 -W 1 -q 10.0.2.2 >/dev/null"
check "ICMP echo request to the router itself passes (another destination)" \
	ip netns exec "$H1" ping -c 2 -i 0.2 -W 2 -q 10.0.1.1
check "h2's pings to h1 pass: their echo replies (type 0) enter p0" \
	ip netns exec "$H2" ping -c 2 -i 0.2 -W 2 -q 10.0.1.2
ACL=$(ctl --json acl show edge-in)
hits() { python3 -c 'import json, sys; print(json.loads(sys.argv[1])["rules"][int(sys.argv[2])]["hits"])' "$ACL" "$1"; }
check "acl show: rule 0 (TCP 5001) counted its SYNs" test "$(hits 0)" -ge 1
check "acl show: rule 1 (TCP 5002) counted" test "$(hits 1)" -ge 1
check "acl show: rule 2 (echo requests) counted" test "$(hits 2)" -ge 2
check "stats: drops.acl on p0" \
	test "$(ctl --json stats | python3 -c 'import json, sys; print(next(p for p in json.load(sys.stdin)["ports"] if p["name"] == "p0")["drops"]["acl"])')" -ge 4

# --- an output ACL, bound live --------------------------------------------------------
check "acl set web-out" ctl acl set web-out '[{"action": "deny", "proto": "udp", "dst_port": 7001}]'
check "acl bind web-out p1 out" ctl acl bind web-out p1 out
recv_start "$H2" 7000 r7000
recv_start "$H2" 7001 r7001
ip netns exec "$H1" python3 "$TRAFFIC" udp-send 10.0.2.2 7000 50 --gap 0.002
ip netns exec "$H1" python3 "$TRAFFIC" udp-send 10.0.2.2 7001 50 --gap 0.002
got0=$(recv_stop r7000); got1=$(recv_stop r7001)
check "UDP 7000 leaves p1 (50 of 50: $got0)" test "${got0%% *}" = 50
check "UDP 7001 is denied leaving p1 (got $got1)" test "${got1%% *}" = 0
check "acl list shows where each is bound" \
	bash -c "$(declare -f ctl); DPRCTL=$DPRCTL SOCK=$SOCK; ctl acl list | grep -q 'web-out: 1 rules, default permit, bound p1 out'"
check "acl list names the rte_acl method web-out classifies with" \
	bash -c "$(declare -f ctl); DPRCTL=$DPRCTL SOCK=$SOCK; ctl acl list | grep -Eq 'web-out: .*, classifier (avx512x32|avx512x16|avx2|sse|neon|altivec|scalar)$'"
check "acl unbind p1 out" ctl acl unbind p1 out
check "acl del web-out (bound nowhere now)" ctl acl del web-out

# --- replacing a 10,000-rule list under traffic ---------------------------------------
python3 - "$WORK/big.json" <<'PY'
import json, sys
rules = [{"action": "deny", "proto": "tcp", "dst": "10.0.2.2/32", "dst_port": 5001},
         {"action": "reject", "proto": "tcp", "dst_port": 5002}]
# ClassBench-like: sources from other networks, port ranges, protocols.
for i in range(10000 - len(rules)):
    r = {"action": "deny", "src": "172.%d.%d.0/24" % (16 + i // 256 % 16, i % 256),
         "proto": ("tcp", "udp")[i % 2]}
    r["dst_port"] = "%d-%d" % (1024 + i % 4000, 1024 + i % 4000 + i % 7)
    rules.append(r)
json.dump({"default": "permit", "rules": rules}, open(sys.argv[1], "w"))
PY
recv_start "$H2" 6000 r6000
fwd() { ctl --json stats > "$WORK/live.json" && counter 'port("p0")["forwarded"]' "$WORK/live.json"; }
fwd0=$(fwd)
bg_in "$H1" "$WORK/send.log" python3 "$TRAFFIC" udp-send 10.0.2.2 6000 2000 --gap 0.001
SENDER=${BG_PIDS[-1]}
# The replacements must come while the packets flow, not before the
# sender's first (python starts slowly on a loaded machine).
check "the traffic flows before the list is replaced" wait_for 10 eval '[ "$(fwd)" -gt "$fwd0" ]'
for i in 1 2; do
	check "acl set edge-in: 10,000 rules (replacement $i, under traffic)" \
		ctl acl set edge-in "$WORK/big.json"
done
# (Not `pgrep -f`: it matched the waiting shell's own command line and
# waited out the 20 s every time.)
reap 20 "$SENDER"
got=$(recv_stop r6000)
check "nothing permitted was lost while the list was replaced (2000 sent, got ${got%% *})" \
	test "${got%% *}" = 2000
check "TCP 5001 is still denied by the new list" test "$(connect 5001)" = timeout

# --- refused input keeps the list -----------------------------------------------------
ctl acl set edge-in '[{"action": "deny", "proto": "tcp", "dport": 22}]' > "$WORK/refused.out" 2>&1
check "an unknown field is refused, naming the rule" \
	grep -q 'edge-in.rules\[0\]: unknown field "dport"' "$WORK/refused.out"
ctl acl set edge-in '[{"action": "deny", "proto": "icmp", "dst_port": "1-5"}]' > "$WORK/refused.out" 2>&1
check "a port range on ICMP is refused" grep -q 'ICMP has none' "$WORK/refused.out"
check "the 10,000-rule list stayed" \
	test "$(ctl --json acl show edge-in | python3 -c 'import json, sys; print(len(json.load(sys.stdin)["rules"]))')" = 10000
check "config show has the ACLs and the binding" \
	bash -c "$(declare -f ctl); DPRCTL=$DPRCTL SOCK=$SOCK; ctl config show | grep -q '\"acl_in\": \"edge-in\"'"
stop_dpr
check "drops.acl counted in the exit counters" test "$(counter 'port("p0")["drops"]["acl"]')" -ge 4
check_accounting
finish

#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# net_af_packet on veth pairs, 2 workers (3 queue pairs per port: one per
# worker plus the control thread's TX queue). Many UDP flows cross dpr; both
# workers must forward, and every datagram dpr sent must reach the host.
# p0's devargs leave qpairs out (dpr adds qpairs=3), p1's give it.
source "$(dirname "$0")/lib.sh"
need_root

two_hosts
cat > "$WORK/dpr.json" <<JSON
{
  "ports": [
    {"name": "p0", "device": "net_af_packet_${TAG}a,iface=$V0",
     "mac": "02:00:00:00:01:01", "addresses": ["10.0.1.1/24"]},
    {"name": "p1", "device": "net_af_packet_${TAG}b,iface=$V1,qpairs=3",
     "mac": "02:00:00:00:02:01", "addresses": ["10.0.2.1/24"]}
  ],
  "neighbors": [
    {"address": "10.0.1.2", "mac": "02:00:00:00:01:02", "port": "p0"},
    {"address": "10.0.2.2", "mac": "02:00:00:00:02:02", "port": "p1"}
  ],
  "routes": [{"prefix": "198.51.100.0/24", "via": "10.0.2.2"}],
  "control": {"socket": "$SOCK"},
  "fib": {"ipv4_max_routes": 1024, "ipv4_tbl8_groups": 64}
}
JSON

# Main lcore and worker 1 share CPU 0; idle workers nap so none starves.
start_dpr "$WORK/dpr.json" --lcores "0@0,1@0,2@1" -- --idle-sleep 100
check "dpr added qpairs=3 to p0's devargs" grep -q "port p0: probing .*,iface=$V0,qpairs=3 (dpr added qpairs=3 for 2 workers)" "$WORK/dpr.log"
check "p1's own qpairs=3 left alone" test "$(grep -c "port p1: probing" "$WORK/dpr.log")" -eq 0
check "p0 has 3 queue pairs" grep -q "port p0: .* 3 rxq x .* 3 txq" "$WORK/dpr.log"
check "p1 has 3 queue pairs" grep -q "port p1: .* 3 rxq x .* 3 txq" "$WORK/dpr.log"
check "h1 pings h2 through dpr" ip netns exec "$H1" ping -c 3 -i 0.2 -W 2 -q 10.0.2.2

recv_start "$H2" 5001 r
ip netns exec "$H1" python3 "$TRAFFIC" udp-send 10.0.2.2 5001 3000 --flows 64 --gap 0.0002
got=$(recv_stop r)
stop_dpr

count=${got% *}; flows=${got#* }
echo "# h2: $(ip netns exec "$H2" awk '/^Udp:/ && ++n == 2 {print "UDP InDatagrams " $2 ", RcvbufErrors " $6}' /proc/net/snmp); eth0: $(ip -n "$H2" -s link show eth0 | awk '/RX:/ {getline; print "rx " $2 " dropped " $4}')"
w0=$(counter 'worker(0)["forwarded"]'); w1=$(counter 'worker(1)["forwarded"]')
tx1=$(counter 'port("p1")["tx"]')
echo "# h2 received $count datagrams from $flows flows; worker 0 forwarded $w0, worker 1 $w1"
check "h2 received datagrams from all 64 flows" test "$flows" -eq 64
check "worker 0 forwarded traffic ($w0)" test "$w0" -gt 100
check "worker 1 forwarded traffic ($w1)" test "$w1" -gt 100
# Every UDP datagram dpr sent out of p1 arrived (p1 tx = 3000 + 3 ping
# requests; pings are not UDP).
check "h2 received every datagram dpr sent ($count + 3 pings == $tx1)" test $((count + 3)) -eq "$tx1"
check "at least 95% of the 3000 datagrams crossed ($count)" test "$count" -ge 2850
check_accounting
finish

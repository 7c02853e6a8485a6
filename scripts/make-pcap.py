#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Write the benchmark's pcap and the matching route files.

  scripts/make-pcap.py [--table pyasn|small] [--count N] [--seed S] [--out FILE]

Packets: IPv4/UDP frames of --frame-size bytes on the wire (64 by default:
60 bytes in the file, the 4-byte FCS is not captured), destination MAC
02:70:63:61:70:00 (net_pcap0's), valid IPv4 header and UDP checksums, TTL 64.
Each packet goes to one random host inside one random prefix of the table
(prefixes drawn uniformly), all destinations distinct while the table's address
space allows it (the small table has only 4096 addresses: they repeat).

Tables:
  pyasn  the RouteViews table of Debian's python3-pyasn, read as
         scripts/pyasn-routes.py reads it (~606k IPv4 prefixes); next hop =
         gateway hash(origin AS) mod the number of gateways, as that script does
  small  dpdk-l3fwd's 16 built-in routes 198.18.I.0/24 (l3fwd_lpm.c
         ipv4_l3fwd_route_array); next hop = gateway I mod the number of gateways

Route files (same prefixes, same order, same next hop per prefix):
  --routes-dprctl  "PREFIX via GATEWAY"   (dprctl route load)
  --routes-l3fwd   "R<addr>/<len> <port>" (l3fwd --rule_ipv4), port =
                   L3FWD_PORTS[gateway index mod len(L3FWD_PORTS)]
By default they sit next to --out: NAME.dprctl.routes and NAME.l3fwd.routes.
Gateway index g in one file is port L3FWD_PORTS[g mod n] in the other. Note that
scripts/pyasn-routes.py --format l3fwd writes port = g itself (0..3), and an
l3fwd run with -p 0x3 silently skips every route to ports 2 and 3.
"""
import argparse
import collections
import gzip
import importlib.util
import ipaddress
import os
import random
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

# dpdk-l3fwd's ipv4_l3fwd_route_array (examples/l3fwd/l3fwd_lpm.c, DPDK 22.11):
# RTE_IPV4(198, 18, i, 0) / 24 -> port i, for i in 0..15.
SMALL_TABLE = [("198.18.%d.0/24" % i, i) for i in range(16)]


def load_pyasn_routes():
    spec = importlib.util.spec_from_file_location("pyasn_routes",
                                                  os.path.join(HERE, "pyasn-routes.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def read_pyasn(path, family, limit, ngw):
    """[(network, gateway index)] exactly as pyasn-routes.py picks them."""
    pr = load_pyasn_routes()
    path = path or pr.default_table()
    routes = []
    with gzip.open(path, "rt") as f:
        for line in f:
            if line.startswith(";"):
                continue
            prefix, asn = line.split()
            if (":" in prefix) != (family == 6):
                continue
            net = ipaddress.ip_network(prefix, strict=False)
            routes.append((net, pr.as_hash(asn) % ngw))
            if limit and len(routes) >= limit:
                break
    return routes, path


def csum(data):
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def mac_bytes(s):
    b = bytes(int(x, 16) for x in s.split(":"))
    if len(b) != 6:
        raise ValueError("bad MAC %s" % s)
    return b


def frame_v4(dst_mac, src_mac, src_ip, dst_ip, sport, dport, ident, length):
    """An Ethernet/IPv4/UDP frame of `length` bytes (without FCS)."""
    ip_len = length - 14
    udp_len = ip_len - 20
    payload = bytes(udp_len - 8)
    pseudo = src_ip + dst_ip + struct.pack("!BBH", 0, 17, udp_len)
    udp = struct.pack("!HHHH", sport, dport, udp_len, 0) + payload
    uc = csum(pseudo + udp) or 0xFFFF
    udp = udp[:6] + struct.pack("!H", uc) + udp[8:]
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, ip_len, ident, 0, 64, 17, 0, src_ip, dst_ip)
    ip = ip[:10] + struct.pack("!H", csum(ip)) + ip[12:]
    return dst_mac + src_mac + b"\x08\x00" + ip + udp


class Lpm:
    """Longest-prefix match over the table, to report where packets should go."""

    def __init__(self, routes):
        self.by_len = collections.defaultdict(dict)
        for net, g in routes:
            self.by_len[net.prefixlen].setdefault(int(net.network_address), g)
        self.lens = sorted(self.by_len, reverse=True)

    def get(self, addr):
        for n in self.lens:
            key = addr & ((0xFFFFFFFF << (32 - n)) & 0xFFFFFFFF)
            g = self.by_len[n].get(key)
            if g is not None:
                return g
        return None


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--table", choices=("pyasn", "small"), default="pyasn")
    p.add_argument("--table-file", help="pyasn .dat.gz (default: newest ipasn6_*, as pyasn-routes.py)")
    p.add_argument("--limit", type=int, default=0, help="pyasn: at most this many routes")
    p.add_argument("--family", choices=("4", "6"), default="4")
    p.add_argument("--count", type=int, default=65536, help="packets (default 65536)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--out", help="pcap file (default build/bench/TABLE-v4.pcap)")
    p.add_argument("--frame-size", type=int, default=64, help="bytes on the wire with FCS (64-1518)")
    p.add_argument("--dst-mac", default="02:70:63:61:70:00", help="default: net_pcap0's MAC")
    p.add_argument("--src-mac", default="02:00:00:00:01:02")
    p.add_argument("--src-ip", default="10.0.1.2")
    p.add_argument("--gateways", default="10.0.2.2,10.0.2.3,10.0.2.4,10.0.2.5",
                   help="dprctl next hops, comma-separated (default 10.0.2.2-5)")
    p.add_argument("--l3fwd-ports", default="0,1",
                   help="l3fwd port for gateway index g: LIST[g mod len] (default 0,1)")
    p.add_argument("--routes-dprctl", help="default: OUT without .pcap + .dprctl.routes")
    p.add_argument("--routes-l3fwd", help="default: OUT without .pcap + .l3fwd.routes")
    p.add_argument("--no-routes", action="store_true", help="write only the pcap")
    a = p.parse_args()

    if a.family == "6":
        sys.exit("make-pcap: IPv6 is not done yet")
    if not 64 <= a.frame_size <= 1518:
        sys.exit("make-pcap: --frame-size must be 64..1518")
    if a.count < 1:
        sys.exit("make-pcap: --count must be positive")
    gateways = [str(ipaddress.IPv4Address(g)) for g in a.gateways.split(",")]
    ports = [int(x) for x in a.l3fwd_ports.split(",")]
    if any(not 0 <= x <= 31 for x in ports):
        sys.exit("make-pcap: --l3fwd-ports: port numbers 0..31 (l3fwd's port mask)")

    if a.table == "small":
        routes = [(ipaddress.ip_network(pfx), i % len(gateways)) for pfx, i in SMALL_TABLE]
        source = "dpdk-l3fwd's built-in ipv4_l3fwd_route_array"
    else:
        routes, source = read_pyasn(a.table_file, 4, a.limit, len(gateways))
    if not routes:
        sys.exit("make-pcap: empty table")

    out = a.out or os.path.join(ROOT, "build", "bench", "%s-v4.pcap" % a.table)
    stem = out[:-5] if out.endswith(".pcap") else out
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)

    if not a.no_routes:
        rd = a.routes_dprctl or stem + ".dprctl.routes"
        rl = a.routes_l3fwd or stem + ".l3fwd.routes"
        with open(rd, "w") as fd, open(rl, "w") as fl:
            for net, g in routes:
                fd.write("%s via %s\n" % (net, gateways[g]))
                fl.write("R%s/%d %d\n" % (net.network_address, net.prefixlen,
                                          ports[g % len(ports)]))
        print("make-pcap: %d routes -> %s (dprctl), %s (l3fwd)" % (len(routes), rd, rl),
              file=sys.stderr)

    rng = random.Random(a.seed)
    dst_mac, src_mac = mac_bytes(a.dst_mac), mac_bytes(a.src_mac)
    if dst_mac[0] & 1 or src_mac[0] & 1:
        sys.exit("make-pcap: MACs must be unicast")
    src_ip = ipaddress.IPv4Address(a.src_ip).packed
    length = a.frame_size - 4
    space = sum(net.num_addresses for net, _ in routes)
    lpm = Lpm(routes)
    seen = set()
    share = collections.Counter()
    distinct = 0
    with open(out, "wb") as f:
        # pcap: microsecond timestamps, snaplen 65535, LINKTYPE_ETHERNET
        f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))
        for i in range(a.count):
            if len(seen) >= space:
                seen.clear()   # the table's addresses are used up: start again
            while True:
                net = routes[rng.randrange(len(routes))][0]
                dst = int(net.network_address) + rng.randrange(net.num_addresses)
                if dst not in seen:
                    break
            seen.add(dst)
            distinct = max(distinct, len(seen))
            share[lpm.get(dst)] += 1
            pkt = frame_v4(dst_mac, src_mac, src_ip, struct.pack("!I", dst),
                           rng.randrange(1024, 65536), 9, i & 0xFFFF, length)
            f.write(struct.pack("<IIII", i // 1000000, i % 1000000, len(pkt), len(pkt)))
            f.write(pkt)

    by_port = collections.Counter()
    for g, n in share.items():
        by_port[ports[g % len(ports)]] += n
    print("make-pcap: %d packets of %d bytes (+FCS), %d distinct destinations, from %d "
          "IPv4 prefixes of %s -> %s" % (a.count, length, distinct, len(routes), source, out),
          file=sys.stderr)
    print("make-pcap: packets per gateway (by longest match): %s; per l3fwd port: %s" % (
        ", ".join("%s %.1f%%" % (gateways[g], 100.0 * n / a.count) for g, n in sorted(share.items())),
        ", ".join("%d %.1f%%" % (pt, 100.0 * n / a.count) for pt, n in sorted(by_port.items()))),
        file=sys.stderr)
    print(out)


if __name__ == "__main__":
    main()

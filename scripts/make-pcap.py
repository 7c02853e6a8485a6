#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Write the benchmark's pcap and the matching route files.

  scripts/make-pcap.py [--table pyasn|small] [--family 4|6|46] [--count N]
                       [--seed S] [--out FILE]

Packets: UDP frames to destination MAC 02:70:63:61:70:00 (net_pcap0's), one
random host inside one random prefix of the table (prefixes drawn uniformly)
each, all destinations distinct while the table's address space allows it
(the small IPv4 table has only 4096 addresses: they repeat).
  --family 4   IPv4/UDP, valid header and UDP checksums, TTL 64; 64 bytes on
               the wire by default (60 in the file: the FCS is not captured)
  --family 6   IPv6/UDP, payload length set, hop limit 64, global source
               (--src-ip6) and destination, no extension header, UDP checksum
               (mandatory in IPv6); 66 bytes on the wire by default (62 in the
               file: Ethernet, IPv6 and UDP headers, no payload), the smallest
               IPv6/UDP frame: 64 bytes cannot hold one without padding, and
               padding makes routers trim the frame (a slow path)
  --family 46  both, 50/50 in a random order (exactly half IPv4), each family's
               destinations from its own table, each at its own default size
  --spread address  prefixes drawn in proportion to their size instead of
               uniformly: destinations spread over the covered address space
               (scripts/bench.sh's DRAM-bound regime)
  --spread zipf  a universe of --universe destinations (default: --count) drawn
               as with address, ranked at random, each packet's destination of
               rank k drawn with probability proportional to 1/k^S (--zipf-s,
               default 1.0): a few destinations take most packets and a long
               tail the rest, as Internet traffic's popularity goes
               (scripts/bench.sh's Zipf regime); destinations repeat
--frame-size sets the size for both families (at least 66 for IPv6).
--vlan VID: every frame carries an 802.1Q tag with that VLAN id (priority 0)
after the MACs, the rest of the frame unchanged (4 bytes longer: 68 on the
wire for IPv4; scripts/bench.sh's "vlan" table).

Tables (--family 6 takes the IPv6 one, 46 both):
  pyasn  the RouteViews table of Debian's python3-pyasn: IPv4 read as
         scripts/pyasn-routes.py reads it (~606k prefixes), IPv6 as
         scripts/pyasn6-routes.py does (~28k prefixes, host bits cleared,
         duplicates dropped); next hop = gateway hash(origin AS) mod the number
         of gateways, as those scripts do
  small  dpdk-l3fwd's 16 built-in routes of each family (main.c
         ipv4_l3fwd_route_array 198.18.I.0/24, ipv6_l3fwd_route_array
         2001:200:0:I::/64); next hop = gateway I mod the number of gateways

Route files (same prefixes, same order, same next hop per prefix):
  --routes-dprctl  "PREFIX via GATEWAY"   (dprctl route load; both families)
  --routes-l3fwd   "R<addr>/<len> <port>" IPv4 rules (l3fwd --rule_ipv4)
  --routes-l3fwd6  "R<addr>/<len> <port>" IPv6 rules (l3fwd --rule_ipv6)
  port = L3FWD_PORTS[gateway index mod len(L3FWD_PORTS)].
By default they sit next to --out: NAME.dprctl.routes, NAME.l3fwd.routes (with
IPv4) and NAME.l3fwd6.routes (with IPv6). Gateway index g in one file is port
L3FWD_PORTS[g mod n] in the other. Note that scripts/pyasn-routes.py --format
l3fwd writes port = g itself (0..3), and an l3fwd run with -p 0x3 silently
skips every route to ports 2 and 3. l3fwd reads rule files only when it is
given both (else it takes its built-in routes): pass an IPv4 file for an
IPv6-only run, and the other way round.
"""
import argparse
import bisect
import collections
import itertools
import gzip
import importlib.util
import ipaddress
import os
import random
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

# dpdk-l3fwd's built-in routes (examples/l3fwd/main.c, DPDK 22.11):
# ipv4_l3fwd_route_array RTE_IPV4(198, 18, i, 0) / 24 -> port i and
# ipv6_l3fwd_route_array 2001:200:0:i::/64 -> port i, for i in 0..15.
SMALL_TABLE = {
    4: [("198.18.%d.0/24" % i, i) for i in range(16)],
    6: [("2001:200:0:%x::/64" % i, i) for i in range(16)],
}


def load_script(name):
    spec = importlib.util.spec_from_file_location(name.replace("-", "_").replace(".py", ""),
                                                  os.path.join(HERE, name))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def read_pyasn6(path, limit, ngw):
    """[(network, gateway index)] exactly as pyasn6-routes.py picks them."""
    pr = load_script("pyasn6-routes.py")
    path = path or pr.default_table()
    routes = [(ipaddress.IPv6Network((ip, ln)), pr.as_hash(asn) % ngw)
              for ip, ln, asn in pr.read_table(path)]
    return (routes[:limit] if limit else routes), path


def read_pyasn(path, family, limit, ngw):
    """[(network, gateway index)] exactly as pyasn-routes.py picks them."""
    if family == 6:
        return read_pyasn6(path, limit, ngw)
    pr = load_script("pyasn-routes.py")
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


def frame_v6(dst_mac, src_mac, src_ip, dst_ip, sport, dport, length):
    """An Ethernet/IPv6/UDP frame of `length` bytes (without FCS), at least 62."""
    udp_len = length - 14 - 40
    payload = bytes(udp_len - 8)
    # RFC 8200 8.1: the pseudo-header's upper-layer length is 32 bits.
    pseudo = src_ip + dst_ip + struct.pack("!IxxxB", udp_len, 17)
    udp = struct.pack("!HHHH", sport, dport, udp_len, 0) + payload
    uc = csum(pseudo + udp) or 0xFFFF
    udp = udp[:6] + struct.pack("!H", uc) + udp[8:]
    ip = struct.pack("!IHBB16s16s", 6 << 28, udp_len, 17, 64, src_ip, dst_ip)
    return dst_mac + src_mac + b"\x86\xdd" + ip + udp


class Lpm:
    """Longest-prefix match over the table, to report where packets should go."""

    def __init__(self, routes, bits=32):
        self.bits = bits
        self.by_len = collections.defaultdict(dict)
        for net, g in routes:
            self.by_len[net.prefixlen].setdefault(int(net.network_address), g)
        self.lens = sorted(self.by_len, reverse=True)

    def get(self, addr):
        full = (1 << self.bits) - 1
        for n in self.lens:
            key = addr & ((full << (self.bits - n)) & full)
            g = self.by_len[n].get(key)
            if g is not None:
                return g
        return None


class Family:
    """One address family's table, traffic and counts."""

    def __init__(self, fam, a, gateways):
        self.fam = fam
        if a.table == "small":
            self.routes = [(ipaddress.ip_network(pfx), i % len(gateways))
                           for pfx, i in SMALL_TABLE[fam]]
            self.source = "dpdk-l3fwd's built-in ipv%d_l3fwd_route_array" % fam
        else:
            self.routes, self.source = read_pyasn(a.table_file, fam, a.limit, len(gateways))
        if not self.routes:
            sys.exit("make-pcap: empty IPv%d table" % fam)
        self.gateways = gateways
        self.space = sum(net.num_addresses for net, _ in self.routes)
        self.seen = set()
        self.share = collections.Counter()
        self.distinct = 0
        self.count = 0
        self.cum = list(itertools.accumulate(net.num_addresses for net, _ in self.routes)) \
            if a.spread in ("address", "zipf") else None
        self.zipf = None
        if a.spread == "zipf":
            n, urng = min(a.universe or a.count, self.space), random.Random(a.seed + 7919)
            self.universe = [self.draw(urng) for _ in range(n)]
            self.seen.clear()
            self.distinct = 0
            self.zipf = list(itertools.accumulate(1.0 / (k + 1) ** a.zipf_s for k in range(n)))
        self.lpm = Lpm(self.routes, 32 if fam == 4 else 128)
        size = a.frame_size or (64 if fam == 4 else 66)
        if fam == 6 and size < 66:
            sys.exit("make-pcap: --frame-size: an IPv6/UDP frame takes at least 66 bytes")
        self.length = size - 4
        if fam == 4:
            self.src = ipaddress.IPv4Address(a.src_ip).packed
        else:
            src = ipaddress.IPv6Address(a.src_ip6)
            if src.is_link_local or src.is_multicast or src.is_unspecified or src.is_loopback:
                sys.exit("make-pcap: --src-ip6 %s: routers do not forward it" % src)
            self.src = src.packed

    def destination(self, rng):
        """A random host of a random prefix, distinct while the table allows;
        with --spread address, prefixes are drawn in proportion to their
        size (uniform over the address space the table covers); with zipf,
        a member of the universe by its popularity."""
        if self.zipf is not None:
            dst = self.universe[bisect.bisect_left(self.zipf, rng.random() * self.zipf[-1])]
            self.seen.add(dst)
            self.distinct = len(self.seen)
        else:
            dst = self.draw(rng)
        self.share[self.lpm.get(dst)] += 1
        self.count += 1
        return dst

    def draw(self, rng):
        """The next distinct destination (see destination())."""
        if len(self.seen) >= self.space:
            self.seen.clear()   # the table's addresses are used up: start again
        while True:
            if self.cum is not None:
                at = rng.randrange(self.space)
                k = bisect.bisect_right(self.cum, at)
                net = self.routes[k][0]
                dst = int(net.network_address) + at - (self.cum[k - 1] if k else 0)
            else:
                net = self.routes[rng.randrange(len(self.routes))][0]
                dst = int(net.network_address) + rng.randrange(net.num_addresses)
            if dst not in self.seen:
                break
        self.seen.add(dst)
        self.distinct = max(self.distinct, len(self.seen))
        return dst

    def frame(self, rng, dst_mac, src_mac, i):
        dst = self.destination(rng)
        if self.fam == 4:
            return frame_v4(dst_mac, src_mac, self.src, struct.pack("!I", dst),
                            rng.randrange(1024, 65536), 9, i & 0xFFFF, self.length)
        return frame_v6(dst_mac, src_mac, self.src, dst.to_bytes(16, "big"),
                        rng.randrange(1024, 65536), 9, self.length)


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--table", choices=("pyasn", "small"), default="pyasn")
    p.add_argument("--table-file", help="pyasn .dat.gz (default: newest ipasn6_*, as pyasn-routes.py)")
    p.add_argument("--limit", type=int, default=0, help="pyasn: at most this many routes a family")
    p.add_argument("--family", choices=("4", "6", "46"), default="4",
                   help="IPv4, IPv6, or both 50/50 (default 4)")
    p.add_argument("--count", type=int, default=65536, help="packets (default 65536)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--zipf-s", type=float, default=1.0, help="--spread zipf: the exponent")
    p.add_argument("--universe", type=int, default=0,
                   help="--spread zipf: distinct destinations to draw from (default: --count)")
    p.add_argument("--spread", choices=("prefix", "address", "zipf"), default="prefix",
                   help="draw each destination's prefix uniformly (default), or in proportion "
                        "to its size: uniform over the covered address space, so that the "
                        "destinations touch as much of a DIR-24-8 table as they can")
    p.add_argument("--out", help="pcap file (default build/bench/TABLE-vFAMILY.pcap)")
    p.add_argument("--frame-size", type=int,
                   help="bytes on the wire with FCS, 64-1518 (default 64 for IPv4, 66 for IPv6)")
    p.add_argument("--dst-mac", default="02:70:63:61:70:00", help="default: net_pcap0's MAC")
    p.add_argument("--src-mac", default="02:00:00:00:01:02")
    p.add_argument("--src-ip", default="10.0.1.2")
    p.add_argument("--src-ip6", default="2001:db8:1::2")
    p.add_argument("--gateways", default="10.0.2.2,10.0.2.3,10.0.2.4,10.0.2.5",
                   help="IPv4 dprctl next hops, comma-separated (default 10.0.2.2-5)")
    p.add_argument("--gateways6", default="2001:db8:2::2,2001:db8:2::3,2001:db8:2::4,2001:db8:2::5",
                   help="IPv6 dprctl next hops, comma-separated (default 2001:db8:2::2-5)")
    p.add_argument("--l3fwd-ports", default="0,1",
                   help="l3fwd port for gateway index g: LIST[g mod len] (default 0,1)")
    p.add_argument("--routes-dprctl", help="default: OUT without .pcap + .dprctl.routes")
    p.add_argument("--routes-l3fwd", help="IPv4 rules; default: OUT without .pcap + .l3fwd.routes")
    p.add_argument("--routes-l3fwd6", help="IPv6 rules; default: OUT without .pcap + .l3fwd6.routes")
    p.add_argument("--no-routes", action="store_true", help="write only the pcap")
    p.add_argument("--vlan", type=int, default=0, help="802.1Q tag every frame with this VLAN id")
    a = p.parse_args()

    if a.frame_size is not None and not 64 <= a.frame_size <= 1518:
        sys.exit("make-pcap: --frame-size must be 64..1518")
    if a.count < 1:
        sys.exit("make-pcap: --count must be positive")
    if not 0 <= a.vlan <= 4094:
        sys.exit("make-pcap: --vlan must be 1..4094 (0: untagged)")
    tag = struct.pack("!HH", 0x8100, a.vlan) if a.vlan else b""
    ports = [int(x) for x in a.l3fwd_ports.split(",")]
    if any(not 0 <= x <= 31 for x in ports):
        sys.exit("make-pcap: --l3fwd-ports: port numbers 0..31 (l3fwd's port mask)")
    fams = {}
    if "4" in a.family:
        fams[4] = Family(4, a, [str(ipaddress.IPv4Address(g)) for g in a.gateways.split(",")])
    if "6" in a.family:
        fams[6] = Family(6, a, [str(ipaddress.IPv6Address(g)) for g in a.gateways6.split(",")])

    out = a.out or os.path.join(ROOT, "build", "bench", "%s-v%s.pcap" % (a.table, a.family))
    stem = out[:-5] if out.endswith(".pcap") else out
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)

    if not a.no_routes:
        rd = a.routes_dprctl or stem + ".dprctl.routes"
        rl = {4: a.routes_l3fwd or stem + ".l3fwd.routes",
              6: a.routes_l3fwd6 or stem + ".l3fwd6.routes"}
        with open(rd, "w") as fd:
            for fam, fa in fams.items():
                with open(rl[fam], "w") as fl:
                    for net, g in fa.routes:
                        fd.write("%s via %s\n" % (net, fa.gateways[g]))
                        fl.write("R%s/%d %d\n" % (net.network_address, net.prefixlen,
                                                  ports[g % len(ports)]))
                print("make-pcap: %d IPv%d routes -> %s (dprctl), %s (l3fwd)"
                      % (len(fa.routes), fam, rd, rl[fam]), file=sys.stderr)

    rng = random.Random(a.seed)
    dst_mac, src_mac = mac_bytes(a.dst_mac), mac_bytes(a.src_mac)
    if dst_mac[0] & 1 or src_mac[0] & 1:
        sys.exit("make-pcap: MACs must be unicast")
    # Which family each packet is: one, or exactly half each in a random order.
    if len(fams) == 1:
        order = [next(iter(fams))] * a.count
    else:
        order = [4] * (a.count // 2) + [6] * (a.count - a.count // 2)
        rng.shuffle(order)
    with open(out, "wb") as f:
        # pcap: microsecond timestamps, snaplen 65535, LINKTYPE_ETHERNET
        f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))
        for i, fam in enumerate(order):
            pkt = fams[fam].frame(rng, dst_mac, src_mac, i)
            if tag:
                pkt = pkt[:12] + tag + pkt[12:]
            f.write(struct.pack("<IIII", i // 1000000, i % 1000000, len(pkt), len(pkt)))
            f.write(pkt)

    for fam, fa in fams.items():
        by_port = collections.Counter()
        for g, n in fa.share.items():
            by_port[ports[g % len(ports)]] += n
        print("make-pcap: %d IPv%d packets of %d bytes (+FCS), %d distinct destinations, "
              "from %d prefixes of %s -> %s" % (fa.count, fam, fa.length, fa.distinct,
                                                len(fa.routes), fa.source, out), file=sys.stderr)
        print("make-pcap: IPv%d packets per gateway (by longest match): %s; per l3fwd port: %s" % (
            fam,
            ", ".join("%s %.1f%%" % (fa.gateways[g], 100.0 * n / fa.count)
                      for g, n in sorted(fa.share.items())),
            ", ".join("%d %.1f%%" % (pt, 100.0 * n / fa.count) for pt, n in sorted(by_port.items()))),
            file=sys.stderr)
    print(out)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""How deep the benchmark's packets walk dpr's FIB.

  scripts/walk-depth.py ROUTES PCAP

ROUTES: "PREFIX via GATEWAY" lines (dprctl route load; the benchmark's
*.dprctl.routes), PCAP: its traffic (scripts/make-pcap.py). Both FIBs are
DIR-24-8 tries: tbl24, then a tbl8 group a byte below a /L block exactly
while some route longer than /L lies in that block (lib/fib/fib.h,
fib6.h). So a lookup reads tbl24 and one tbl8 entry for each level
L = 24, 32, ... whose block around the destination holds a longer route,
whatever route matches in the end. Prints, per family, how many packets
read how many tbl8 levels, and the mean; for IPv6 also the levels past
/48, which dpr's deep-FIB walk (lib/datapath/ip6_dp.h) cannot read a step
ahead.
"""
import collections
import ipaddress
import struct
import sys


def blocks_with_longer(routes):
    """{(L, block)}: the /L blocks (L a multiple of 8 from 24) holding a route longer than L."""
    have = set()
    for net in routes:
        bits = net.max_prefixlen
        addr = int(net.network_address)
        for level in range(24, net.prefixlen, 8):
            have.add((level, addr >> (bits - level)))
    return have


def frames(path):
    data = open(path, "rb").read()
    magic = struct.unpack("<I", data[:4])[0]
    if magic not in (0xa1b2c3d4, 0xa1b23c4d):
        sys.exit("walk-depth: %s: not a little-endian pcap file" % path)
    off = 24
    while off + 16 <= len(data):
        incl = struct.unpack("<I", data[off + 8:off + 12])[0]
        yield data[off + 16:off + 16 + incl]
        off += 16 + incl


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__.strip().splitlines()[2].strip())
    nets = {4: [], 6: []}
    for line in open(sys.argv[1]):
        if line.strip() and not line.startswith("#"):
            net = ipaddress.ip_network(line.split()[0], strict=False)
            nets[net.version].append(net)
    have = {v: blocks_with_longer(n) for v, n in nets.items()}
    levels = {4: collections.Counter(), 6: collections.Counter()}
    for f in frames(sys.argv[2]):
        etype = f[12:14]
        if etype == b"\x08\x00":
            v, bits, dst = 4, 32, int.from_bytes(f[30:34], "big")
        elif etype == b"\x86\xdd":
            v, bits, dst = 6, 128, int.from_bytes(f[38:54], "big")
        else:
            continue
        n = 0
        for level in range(24, bits, 8):
            if (level, dst >> (bits - level)) not in have[v]:
                break
            n += 1
        levels[v][n] += 1
    for v in (4, 6):
        c = levels[v]
        total = sum(c.values())
        if total == 0:
            continue
        print("IPv%d: %d packets, %d routes; tbl8 levels read: %s; mean %.3f" % (
            v, total, len(nets[v]),
            ", ".join("%d: %.2f%%" % (k, 100.0 * c[k] / total) for k in sorted(c)),
            sum(k * n for k, n in c.items()) / total))
        if v == 6:
            past = sum(max(0, k - 3) * n for k, n in c.items())
            print("IPv6: past /48 (levels beyond the third): %.2f%% of the packets, "
                  "%.3f levels a packet on average" % (
                      100.0 * sum(n for k, n in c.items() if k > 3) / total, past / total))


if __name__ == "__main__":
    main()

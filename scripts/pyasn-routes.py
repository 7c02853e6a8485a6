#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Turn the RouteViews table shipped in Debian's python3-pyasn into routes.

  scripts/pyasn-routes.py [options] GATEWAY [GATEWAY ...] > routes.txt

Each prefix gets the gateway hash(origin AS) mod N, so the same AS always
leaves through the same gateway. Formats:
  dprctl   "PREFIX via GATEWAY"      (dprctl route load)
  l3fwd    "R<addr>/<len> <port>"    (dpdk-l3fwd --rule_ipv4, port = gateway index)
  prefixes "PREFIX<TAB>GATEWAY"      (reference data for tests)
"""
import argparse
import glob
import gzip
import ipaddress
import os
import socket
import struct
import sys

DATA = "/usr/lib/python3/dist-packages/data"


def default_table():
    # ipasn6_* carries both families (about 606k IPv4 and 28k IPv6 prefixes).
    files = sorted(glob.glob(os.path.join(DATA, "ipasn6_*.dat.gz")))
    if not files:
        sys.exit("pyasn-routes: no %s/ipasn6_*.dat.gz: apt-get install python3-pyasn" % DATA)
    return files[-1]


def norm4(prefix):
    """ipaddress.ip_network(prefix, strict=False) as text, for IPv4, about
    ten times faster: the full table is 606k lines."""
    addr, _, plen = prefix.partition("/")
    bits = int(plen)
    a = struct.unpack("!I", socket.inet_aton(addr))[0]
    mask = (0xFFFFFFFF << (32 - bits)) & 0xFFFFFFFF
    if a & mask == a:
        return prefix
    return "%s/%d" % (socket.inet_ntoa(struct.pack("!I", a & mask)), bits)


def as_hash(asn):
    # Knuth's multiplicative hash: stable across runs and Python versions.
    return (int(asn) * 2654435761) & 0xFFFFFFFF


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("gateways", nargs="+", help="next-hop addresses")
    p.add_argument("--table", default=None, help="pyasn .dat.gz (default: newest ipasn6_*)")
    p.add_argument("--family", choices=("4", "6"), default="4")
    p.add_argument("--format", choices=("dprctl", "l3fwd", "prefixes"), default="dprctl")
    p.add_argument("--limit", type=int, default=0, help="at most this many routes")
    a = p.parse_args()

    table = a.table or default_table()
    n = 0
    out = sys.stdout
    with gzip.open(table, "rt") as f:
        for line in f:
            if line.startswith(";"):
                continue
            prefix, asn = line.split()
            v6 = ":" in prefix
            if v6 != (a.family == "6"):
                continue
            # Normalise: some entries carry host bits.
            net = str(ipaddress.ip_network(prefix, strict=False)) if v6 else norm4(prefix)
            i = as_hash(asn) % len(a.gateways)
            if a.format == "dprctl":
                out.write("%s via %s\n" % (net, a.gateways[i]))
            elif a.format == "l3fwd":
                out.write("R%s %d\n" % (net, i))
            else:
                out.write("%s\t%s\n" % (net, a.gateways[i]))
            n += 1
            if a.limit and n >= a.limit:
                break
    print("pyasn-routes: %d IPv%s routes from %s" % (n, a.family, table), file=sys.stderr)


if __name__ == "__main__":
    main()

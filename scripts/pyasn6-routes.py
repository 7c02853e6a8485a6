#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Turn the IPv6 part of the RouteViews table in Debian's python3-pyasn into routes.

  scripts/pyasn6-routes.py [options] GATEWAY [GATEWAY ...] > routes6.txt

GATEWAYs are IPv6 addresses. Each prefix gets the gateway hash(origin AS)
mod N, so the same AS always leaves through the same gateway (as
scripts/pyasn-routes.py does for IPv4). The table holds about 28k IPv6
prefixes; --synthetic N grows it to N for sizing runs: the real prefixes
first, then new ones whose lengths follow the real table's histogram
(mostly /48, /32, /40, /44, /36, /29), each a more-specific of a real
prefix (near the start of its block, where allocations cluster) or a
sibling a few blocks away from a real prefix of the same length, with that
prefix's AS. The output is unique and the same for the same --seed.
Formats:
  dprctl   "PREFIX via GATEWAY"      (dprctl route load)
  l3fwd    "R<addr>/<len> <port>"    (dpdk-l3fwd --rule_ipv6, port = gateway index)
  prefixes "PREFIX<TAB>GATEWAY"      (reference data for tests)
"""
import argparse
import bisect
import glob
import gzip
import ipaddress
import os
import random
import sys

DATA = "/usr/lib/python3/dist-packages/data"
ALL = (1 << 128) - 1


def default_table():
    # ipasn6_* carries both families (about 606k IPv4 and 28k IPv6 prefixes).
    files = sorted(glob.glob(os.path.join(DATA, "ipasn6_*.dat.gz")))
    if not files:
        sys.exit("pyasn6-routes: no %s/ipasn6_*.dat.gz: apt-get install python3-pyasn" % DATA)
    return files[-1]


def as_hash(asn):
    # Knuth's multiplicative hash, as in pyasn-routes.py.
    return (int(asn) * 2654435761) & 0xFFFFFFFF


def read_table(path):
    """The IPv6 prefixes as [(network int, length, AS)], first occurrence kept."""
    seen = set()
    routes = []
    with gzip.open(path, "rt") as f:
        for line in f:
            if line.startswith(";"):
                continue
            prefix, asn = line.split()
            if ":" not in prefix:
                continue
            # Normalise: some entries carry host bits.
            net = ipaddress.IPv6Network(prefix, strict=False)
            key = (int(net.network_address), net.prefixlen)
            if key not in seen:
                seen.add(key)
                routes.append(key + (asn,))
    return routes


def grow(rng, ln, by_len, parents, parent_lens):
    """One candidate /ln grown from a real prefix, as (network, AS), or None."""
    if ln > 16 and by_len.get(ln) and rng.random() < 0.5:
        # A sibling: a few blocks of the same length away from a real one.
        ip, _, asn = rng.choice(by_len[ln])
        step = 1 + int(rng.expovariate(1 / 8.0))
        ip += (step if rng.random() < 0.5 else -step) << (128 - ln)
        if ip < 0 or ip > ALL:
            return None
        return ip, asn
    # A more-specific of a real prefix 4 to 24 bits shorter, low in its
    # block (offset = 2^bits * u^3 keeps most near the start).
    lo = bisect.bisect_left(parent_lens, max(ln - 24, 16))
    hi = bisect.bisect_right(parent_lens, ln - 4)
    if lo >= hi:
        return None
    pip, pln, asn = parents[rng.randrange(lo, hi)]
    bits = ln - pln
    return pip | int((1 << bits) * rng.random() ** 3) << (128 - ln), asn


def synthesize(real, n, seed):
    """n - len(real) new unique prefixes grown from the real ones."""
    rng = random.Random(seed)
    seen = {(ip, ln) for ip, ln, _ in real}
    by_len = {}
    for r in real:
        by_len.setdefault(r[1], []).append(r)
    lengths = sorted(by_len)
    weights = [len(by_len[ln]) for ln in lengths]
    parents = sorted(real, key=lambda r: r[1])
    parent_lens = [r[1] for r in parents]
    out = []
    while len(seen) < n:
        ln = rng.choices(lengths, weights)[0]
        # Retry the same length until it fits, so that the histogram holds.
        for _ in range(1000):
            got = grow(rng, ln, by_len, parents, parent_lens)
            if got is None:
                continue
            ip = got[0] & (ALL ^ ((1 << (128 - ln)) - 1))
            if (ip, ln) not in seen:
                seen.add((ip, ln))
                out.append((ip, ln, got[1]))
                break
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("gateways", nargs="+", help="next-hop IPv6 addresses")
    p.add_argument("--table", default=None, help="pyasn .dat.gz (default: newest ipasn6_*)")
    p.add_argument("--format", choices=("dprctl", "l3fwd", "prefixes"), default="dprctl")
    p.add_argument("--limit", type=int, default=0, help="at most this many routes")
    p.add_argument("--synthetic", type=int, default=0, metavar="N",
                   help="grow the table to N prefixes (e.g. 524288)")
    p.add_argument("--seed", type=int, default=1, help="for --synthetic (default 1)")
    a = p.parse_args()

    for gw in a.gateways:
        try:
            ipaddress.IPv6Address(gw)
        except ValueError:
            sys.exit("pyasn6-routes: gateway %r: not an IPv6 address" % gw)
    table = a.table or default_table()
    routes = read_table(table)
    n_real = len(routes)
    if a.synthetic > n_real:
        routes += synthesize(routes, a.synthetic, a.seed)
    elif a.synthetic:
        routes = routes[:a.synthetic]
    if a.limit:
        routes = routes[:a.limit]

    out = sys.stdout
    for ip, ln, asn in routes:
        net = "%s/%d" % (ipaddress.IPv6Address(ip), ln)
        i = as_hash(asn) % len(a.gateways)
        if a.format == "dprctl":
            out.write("%s via %s\n" % (net, a.gateways[i]))
        elif a.format == "l3fwd":
            out.write("R%s %d\n" % (net, i))
        else:
            out.write("%s\t%s\n" % (net, a.gateways[i]))
    print("pyasn6-routes: %d IPv6 routes (%d real) from %s" %
          (len(routes), min(n_real, len(routes)), table), file=sys.stderr)


if __name__ == "__main__":
    main()

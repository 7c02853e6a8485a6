#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Write a ClassBench-like ACL from a route table's prefixes.

  scripts/acl-rules.py --routes FILE --count N [--family 4|6] [--seed S]
                       [--json OUT] [--l3fwd OUT] [--name NAME]

Rules are drawn as ClassBench's "acl" seeds shape them (Taylor and Turner,
ClassBench, 2005): destination prefixes from the table, source prefixes
from it or wildcards, mostly TCP, then UDP, some any-protocol and ICMP;
destination ports exact (well-known), ranges or wildcards; source ports
mostly wildcards. Every rule denies, the default permits, and no rule
matches the benchmark's traffic (scripts/make-pcap.py: UDP to port 9 from
10.0.1.2 or 2001:db8:1::2), so that every packet is classified against all
of them and forwarded.

  --routes  lines whose first word is a prefix ("PREFIX via GW", "PREFIX<TAB>GW")
            or l3fwd's "R<prefix> <port>"
  --json    dpr's ACL ({"name", "default", "rules"}: dprctl acl set, config "acls")
  --l3fwd   the same rules as dpdk-l3fwd --lookup=acl "@" lines (ICMP rules are
            left out: l3fwd matches ports on them)
"""
import argparse
import ipaddress
import json
import random
import sys

WELL_KNOWN = (20, 21, 22, 23, 25, 53, 80, 110, 123, 135, 137, 139, 143, 161, 179, 389,
              443, 445, 465, 514, 587, 636, 993, 995, 1433, 1521, 1723, 3306, 3389, 5060,
              5432, 8080, 8443)


def read_prefixes(path, family):
    out = []
    with open(path) as f:
        for line in f:
            w = line.split()
            if not w or w[0].startswith("#"):
                continue
            try:
                net = ipaddress.ip_network(w[0].lstrip("R"), strict=False)
            except ValueError:
                continue
            if net.version == family:
                out.append(net)
    return out


def port_range(rng, exact_share, wildcard_share):
    """(lo, hi) with lo > 9 (the benchmark's port), or None for any port."""
    x = rng.random()
    if x < wildcard_share:
        return None
    if x < wildcard_share + exact_share:
        p = rng.choice(WELL_KNOWN)
        return (p, p)
    lo = rng.choice((1024, 1024, 5000, 6000, 8000, 10000, 20000, 32768, 49152,
                     rng.randrange(10, 60000)))
    return (lo, min(65535, lo + rng.choice((0, 1, 3, 7, 15, 63, 1023, 65535))))


def rule(rng, prefixes, family):
    x = rng.random()
    proto = "tcp" if x < 0.6 else "udp" if x < 0.85 else None if x < 0.95 else \
        ("icmp" if family == 4 else "icmpv6")
    r = {"action": "deny", "family": "ipv%d" % family}
    if proto is not None:
        r["proto"] = proto
    dst = rng.choice(prefixes)
    r["dst"] = str(dst)
    if rng.random() < 0.6:
        r["src"] = str(rng.choice(prefixes))
    if proto in ("tcp", "udp"):
        sp = port_range(rng, 0.02, 0.85)
        dp = port_range(rng, 0.45, 0.2)
        if proto == "udp" and sp is None and dp is None:
            dp = (53, 53)
        if sp is not None:
            r["src_port"] = sp[0] if sp[0] == sp[1] else "%d-%d" % sp
        if dp is not None:
            r["dst_port"] = dp[0] if dp[0] == dp[1] else "%d-%d" % dp
        if proto == "udp" and "src" not in r and dp is None:
            r["src"] = str(rng.choice(prefixes))
    elif proto is None:
        # Any protocol: never from the benchmark's source.
        r["src"] = str(rng.choice(prefixes))
    else:
        r["icmp_type"] = rng.choice((0, 3, 5, 8, 11) if family == 4 else (1, 2, 3, 128, 129))
    return r


def l3fwd_line(r, family):
    """dpdk-l3fwd's ACL rule: @src dst sport_lo : sport_hi dport_lo : dport_hi proto/mask."""
    any_net = "0.0.0.0/0" if family == 4 else "0:0:0:0:0:0:0:0/0"

    def ports(v):
        if v is None:
            return "0 : 65535"
        lo, _, hi = str(v).partition("-")
        return "%s : %s" % (lo, hi or lo)
    proto = {"tcp": "6/0xff", "udp": "17/0xff"}.get(r.get("proto"), "0/0x0")
    return "@%s\t%s\t%s\t%s\t%s" % (r.get("src", any_net), r["dst"], ports(r.get("src_port")),
                                    ports(r.get("dst_port")), proto)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--routes", required=True)
    p.add_argument("--count", type=int, required=True)
    p.add_argument("--family", type=int, choices=(4, 6), default=4)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--name", default="bench")
    p.add_argument("--json")
    p.add_argument("--l3fwd")
    a = p.parse_args()
    prefixes = read_prefixes(a.routes, a.family)
    if not prefixes:
        sys.exit("acl-rules: %s has no IPv%d prefix" % (a.routes, a.family))
    rng = random.Random(a.seed)
    rules = [rule(rng, prefixes, a.family) for _ in range(a.count)]
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"name": a.name, "default": "permit", "rules": rules}, f)
    if a.l3fwd:
        with open(a.l3fwd, "w") as f:
            for r in rules:
                if r.get("proto") in ("icmp", "icmpv6"):
                    continue
                f.write(l3fwd_line(r, a.family) + "\n")
    if not a.json and not a.l3fwd:
        json.dump({"name": a.name, "default": "permit", "rules": rules}, sys.stdout)


if __name__ == "__main__":
    main()

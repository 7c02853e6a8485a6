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
  --l3fwd   the same rules as dpdk-l3fwd --lookup=acl "@" lines, in the same order
            (l3fwd gives a line a higher priority than every line after it: first
            match wins, as in dpr). l3fwd's fields are fixed offsets past a 20-byte
            IPv4 (40-byte IPv6) header: its "source port" is the first two bytes of the upper
            layer, ICMP's type and code, so an ICMP rule becomes that range
            (type T: T*256 : T*256+255, protocol 1 or 58).
  --l3fwd-routes FILE
            (IPv4) after the "@" lines, routes as l3fwd ACL "R" lines (it routes in ACL mode
            with them: "R<src> <dst> 0 : 65535 0 : 65535 0/0 PORT"), from FILE's
            "R<prefix> PORT" lines (make-pcap.py's .l3fwd.routes), longest prefix
            first (a longer prefix must win, and l3fwd picks the first line)
  --used-by PCAP
            only the routes that PCAP's IPv4 destinations use (their longest
            match): what l3fwd needs to forward the benchmark's traffic on a full
            table, whose 606k routes its ACL (100,000 rules at most) cannot hold
"""
import argparse
import ipaddress
import json
import random
import struct
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

    def net(v):
        # l3fwd's IPv6 parser takes eight groups, no "::".
        n = ipaddress.ip_network(v)
        return str(n) if n.version == 4 else "%s/%d" % (n.network_address.exploded,
                                                        n.prefixlen)
    proto = {"tcp": "6/0xff", "udp": "17/0xff", "icmp": "1/0xff",
             "icmpv6": "58/0xff"}.get(r.get("proto"), "0/0x0")
    sport = ports(r.get("src_port"))
    if r.get("proto") in ("icmp", "icmpv6"):
        # The type in the high byte of l3fwd's "source port", any code.
        sport = "%d : %d" % (r["icmp_type"] * 256, r["icmp_type"] * 256 + 255)
    return "@%s\t%s\t%s\t%s\t%s" % (net(r.get("src", any_net)), net(r["dst"]), sport,
                                    ports(r.get("dst_port")), proto)


def pcap_ipv4_destinations(path):
    """The IPv4 destinations of a pcap's Ethernet frames (VLAN tags skipped)."""
    data = open(path, "rb").read()
    off, out = 24, set()
    while off + 16 <= len(data):
        caplen = struct.unpack_from("<I", data, off + 8)[0]
        pkt = data[off + 16:off + 16 + caplen]
        off += 16 + caplen
        l2 = 12
        while pkt[l2:l2 + 2] in (b"\x81\x00", b"\x88\xa8"):
            l2 += 4
        if pkt[l2:l2 + 2] == b"\x08\x00" and len(pkt) >= l2 + 22:
            out.add(struct.unpack_from("!I", pkt, l2 + 18)[0])
    return out


def l3fwd_routes(path, used_by):
    """(prefix, port) from "R<prefix> <port>" lines, longest prefix first;
    with @used_by (a pcap), only those its destinations match longest."""
    routes = []
    with open(path) as f:
        for line in f:
            w = line.split()
            if len(w) == 2 and w[0].startswith("R"):
                net = ipaddress.ip_network(w[0][1:], strict=False)
                if net.version == 4:
                    routes.append((net, int(w[1])))
    if used_by:
        by_len = {}
        for net, port in routes:
            by_len.setdefault(net.prefixlen, {})[int(net.network_address)] = (net, port)
        lens = sorted(by_len, reverse=True)
        used = {}
        for d in pcap_ipv4_destinations(used_by):
            for n in lens:
                hit = by_len[n].get(d & (0xFFFFFFFF << (32 - n)) & 0xFFFFFFFF)
                if hit:
                    used[hit[0]] = hit
                    break
        routes = list(used.values())
    routes.sort(key=lambda r: (-r[0].prefixlen, int(r[0].network_address)))
    return routes


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--routes", required=True)
    p.add_argument("--count", type=int, required=True)
    p.add_argument("--family", type=int, choices=(4, 6), default=4)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--name", default="bench")
    p.add_argument("--json")
    p.add_argument("--l3fwd")
    p.add_argument("--l3fwd-routes")
    p.add_argument("--used-by")
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
                f.write(l3fwd_line(r, a.family) + "\n")
            if a.l3fwd_routes and a.family == 4:
                for net, port in l3fwd_routes(a.l3fwd_routes, a.used_by):
                    f.write("R0.0.0.0/0\t%s\t0 : 65535\t0 : 65535\t0/0x0\t%d\n" % (net, port))
    if not a.json and not a.l3fwd:
        json.dump({"name": a.name, "default": "permit", "rules": rules}, sys.stdout)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Compare dpr's route.get with a reference longest-prefix match.

  rpc_lpm_check.py SOCKET ROUTES.tsv COUNT SEED

ROUTES.tsv holds "PREFIX<TAB>GATEWAY" lines of either family or both
(scripts/pyasn-routes.py or pyasn6-routes.py --format prefixes).
IPv4 only: half the addresses fall inside table prefixes, half are
uniformly random outside 10/8 (the test router's own networks).
With IPv6 in the table: 40% fall inside a table prefix, 30% around one (its
first and last address, the addresses just outside it, a few blocks of its
size before or after it), 15% anywhere in 2000::/3, 15% anywhere at all (in
a mixed table these outside draws alternate between the families); none in
10/8, fc00::/7 (the router's own networks), fe80::/10 or ff00::/8.
Answers are compared as addresses, not text. Prints the number of
mismatches and the first few; exits 1 if any.
"""
import ipaddress
import json
import random
import socket
import sys

BITS = {4: 32, 6: 128}
OWN = [ipaddress.ip_network(n) for n in ("10.0.0.0/8", "fc00::/7", "fe80::/10", "ff00::/8")]


def load(path):
    by_len = {4: [dict() for _ in range(33)], 6: [dict() for _ in range(129)]}
    prefixes = []
    for line in open(path):
        p, gw = line.split()
        net = ipaddress.ip_network(p)
        by_len[net.version][net.prefixlen][int(net.network_address)] = \
            (net, ipaddress.ip_address(gw))
        prefixes.append(net)
    # Only the lengths in use, longest first.
    lens = {v: [l for l in range(BITS[v], -1, -1) if by_len[v][l]] for v in BITS}
    return by_len, lens, prefixes


def lpm(by_len, lens, v, a):
    full = (1 << BITS[v]) - 1
    for l in lens[v]:
        hit = by_len[v][l].get(a & (full ^ (full >> l)))
        if hit:
            return hit
    return None


def own(v, a):
    ip = ipaddress.ip_address(a) if v == 4 else ipaddress.IPv6Address(a)
    return any(ip.version == n.version and ip in n for n in OWN)


def draw_v4_only(rnd, i, prefixes):
    if i % 2 == 0:
        net = rnd.choice(prefixes)
        return 4, int(net.network_address) + rnd.randrange(net.num_addresses)
    return 4, rnd.getrandbits(32)


def draw(rnd, i, prefixes, fams):
    k = rnd.random()
    if k < 0.70:
        net = rnd.choice(prefixes)
        v, first, size = net.version, int(net.network_address), net.num_addresses
        if k < 0.40:
            return v, first + rnd.randrange(size)
        edge = rnd.randrange(6)
        near = rnd.randrange(1, 4) * size + rnd.randrange(size)
        a = (first, first + size - 1, first - 1, first + size,
             first - near, first + size - 1 + near)[edge]
        return v, a % (1 << BITS[v])
    v = fams[i % len(fams)]
    if v == 4:
        return 4, rnd.getrandbits(32)
    if k < 0.85:
        return 6, (1 << 125) | rnd.getrandbits(125)
    return 6, rnd.getrandbits(128)


def main():
    sock_path, routes, count, seed = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    rnd = random.Random(seed)
    by_len, lens, prefixes = load(routes)
    fams = sorted({n.version for n in prefixes})
    addrs = []
    while len(addrs) < count:
        if fams == [4]:
            v, a = draw_v4_only(rnd, len(addrs), prefixes)
        else:
            v, a = draw(rnd, len(addrs), prefixes, fams)
        if own(v, a):
            continue
        addrs.append((v, a))

    s = socket.socket(socket.AF_UNIX)
    s.connect(sock_path)
    f = s.makefile("rwb", buffering=1 << 20)
    bad = []
    found = 0
    batch = 2000
    for i in range(0, len(addrs), batch):
        chunk = addrs[i:i + batch]
        for j, (v, a) in enumerate(chunk):
            req = {"jsonrpc": "2.0", "id": i + j, "method": "route.get",
                   "params": {"address": str(ipaddress.ip_address(a) if v == 4
                                             else ipaddress.IPv6Address(a))}}
            f.write(json.dumps(req).encode() + b"\n")
        f.flush()
        for v, a in chunk:
            resp = json.loads(f.readline())
            want = lpm(by_len, lens, v, a)
            ip = ipaddress.ip_address(a) if v == 4 else ipaddress.IPv6Address(a)
            if "error" in resp:
                got = None
                if resp["error"]["code"] != -32001:
                    bad.append((ip, want, resp["error"]))
                    continue
            else:
                r = resp["result"]
                try:
                    got = (ipaddress.ip_network(r["prefix"]),
                           ipaddress.ip_address(r["via"]) if "via" in r else None)
                except ValueError:
                    got = r
            found += want is not None
            if got != want:
                bad.append((ip, want, got))
    print("%d of %d lookups differ from the reference (%d have a route)"
          % (len(bad), len(addrs), found))
    for b in bad[:10]:
        print("  %s: reference %s, dpr %s" % b)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Compare dpr's route.get with a reference longest-prefix match.

  rpc_lpm_check.py SOCKET ROUTES.tsv COUNT SEED

ROUTES.tsv holds "PREFIX<TAB>GATEWAY" lines (scripts/pyasn-routes.py
--format prefixes). Half the addresses fall inside table prefixes, half are
uniformly random outside 10/8 (the test router's own networks). Prints the
number of mismatches and the first few; exits 1 if any.
"""
import ipaddress
import json
import random
import socket
import sys


def load(path):
    by_len = [dict() for _ in range(33)]
    prefixes = []
    for line in open(path):
        p, gw = line.split()
        net = ipaddress.IPv4Network(p)
        by_len[net.prefixlen][int(net.network_address)] = (p, gw)
        prefixes.append(net)
    return by_len, prefixes


def lpm(by_len, a):
    for l in range(32, -1, -1):
        m = (0xFFFFFFFF << (32 - l)) & 0xFFFFFFFF if l else 0
        hit = by_len[l].get(a & m)
        if hit:
            return hit
    return None


def main():
    sock_path, routes, count, seed = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    rnd = random.Random(seed)
    by_len, prefixes = load(routes)
    addrs = []
    while len(addrs) < count:
        if len(addrs) % 2 == 0:
            net = rnd.choice(prefixes)
            a = int(net.network_address) + rnd.randrange(net.num_addresses)
        else:
            a = rnd.getrandbits(32)
        if (a >> 24) == 10:
            continue
        addrs.append(a)

    s = socket.socket(socket.AF_UNIX)
    s.connect(sock_path)
    f = s.makefile("rwb", buffering=1 << 20)
    bad = []
    batch = 2000
    for i in range(0, len(addrs), batch):
        chunk = addrs[i:i + batch]
        for j, a in enumerate(chunk):
            req = {"jsonrpc": "2.0", "id": i + j, "method": "route.get",
                   "params": {"address": str(ipaddress.IPv4Address(a))}}
            f.write(json.dumps(req).encode() + b"\n")
        f.flush()
        for a in chunk:
            resp = json.loads(f.readline())
            want = lpm(by_len, a)
            if "error" in resp:
                got = None
                if resp["error"]["code"] != -32001:
                    bad.append((a, want, resp["error"]))
                    continue
            else:
                r = resp["result"]
                got = (r["prefix"], r.get("via"))
            if got != want:
                bad.append((ipaddress.IPv4Address(a), want, got))
    print("%d of %d lookups differ from the reference" % (len(bad), len(addrs)))
    for b in bad[:10]:
        print("  %s: reference %s, dpr %s" % b)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()

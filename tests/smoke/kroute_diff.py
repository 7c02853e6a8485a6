#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The kernel mirror against the kernel: what dpr holds from source kernel
must be what the kernel forwards with.

    kroute_diff.py compare NETNS SOCKET TABLE
    kroute_diff.py random NETNS SOCKET TABLE SEED STEPS

compare: one comparison (after waiting for dpr to settle); exit 0 when
equal, 1 with the differences printed.

random: SEED-seeded STEPS random `ip route add/append/prepend/replace/del`,
`ip nexthop add/replace/del`, TAP dpr-p2 down/up, for IPv4 and IPv6, in
namespace NETNS (dpr's, with TAPs dpr-p1 on 10.0.2.0/24, 2001:db8:2::/64
and dpr-p2 on 10.0.3.0/24, 2001:db8:3::/64), comparing every 25 steps and
at the end. Commands the kernel refuses are part of the game.

What the kernel forwards with comes from `ip -j -d route show table TABLE`
(both families) and the kernel's rules (net/ipv4/fib_trie.c
fib_table_lookup(), net/ipv6/route.c): per prefix, IPv4: the first route of
TOS 0, in the kernel's order, that is a reject kind or has a path not
marked dead (a route by next-hop object with none ends the lookup); IPv6:
the first live route of the lowest metric, with its live siblings. A dump
cannot show an IPv6 route that lies between ECMP siblings (the kernel
skips to the last sibling), so in random mode, where a rule sends the
random prefixes to TABLE and IPv6 forwarding is on (no neighbour scoring),
each IPv6 prefix's route is the kernel's own lookup: `ip -6 route get
fibmatch`, whose reject kinds answer with their errors. dpr's side is
route.list with source kernel. Waiting for dpr is bounded (a
broken mirror must fail, not hang) and never a measurement.
"""
import ipaddress
import json
import os
import random
import socket
import subprocess
import sys
import time

SETTLE_S = 15.0


class Rpc:
    def __init__(self, path):
        self.s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.s.settimeout(30)
        self.s.connect(path)
        self.buf = b""
        self.id = 0

    def call(self, method, params=None):
        self.id += 1
        req = {"jsonrpc": "2.0", "id": self.id, "method": method}
        if params is not None:
            req["params"] = params
        self.s.sendall(json.dumps(req).encode() + b"\n")
        while b"\n" not in self.buf:
            chunk = self.s.recv(1 << 20)
            if not chunk:
                raise RuntimeError("dpr closed the control socket")
            self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        r = json.loads(line)
        if "error" in r:
            raise RuntimeError("%s: %s" % (method, r["error"]))
        return r["result"]


def dpr_routes(rpc):
    """{prefix: normalised route} of source kernel."""
    out, after = {}, None
    while True:
        params = {"source": "kernel", "limit": 100000}
        if after is not None:
            params["after"] = after
        res = rpc.call("route.list", params)
        for r in res["routes"]:
            t = r.get("type")
            if t in ("gateway", "neighbor"):
                v = ("unicast", ((r["via"], r["port"], 1),))
            elif t == "multipath":
                v = ("unicast", tuple(sorted((h["via"], h["port"], h.get("weight", 1))
                                             for h in r["nexthops"])))
            elif t == "connected":
                v = ("unicast", (("-", r["port"], 1),))
            else:
                v = (t,)
            out[r["prefix"]] = v
        after = res.get("next")
        if after is None:
            return out


def ip_json(netns, family, table):
    p = subprocess.run(["ip", "-n", netns, family, "-j", "-d", "route", "show", "table",
                        str(table)], capture_output=True, text=True, check=True)
    return json.loads(p.stdout or "[]")


def port_of(dev):
    return dev[4:] if dev and dev.startswith("dpr-") else None


def paths_of(r):
    """[(gateway, port, weight, dead)] of one `ip -j` route."""
    hops = r.get("nexthops") or [r]
    out = []
    for h in hops:
        out.append((h.get("gateway", "-"), port_of(h.get("dev")), h.get("weight", 1),
                    "dead" in h.get("flags", [])))
    return out


REJECT = {"blackhole": "blackhole", "unreachable": "unreachable", "prohibit": "unreachable"}


def norm_prefix(dst, v6):
    if dst == "default":
        return "::/0" if v6 else "0.0.0.0/0"
    if "/" not in dst:
        return dst + ("/128" if v6 else "/32")
    return dst


def unicast(live):
    if any(port is None for _, port, _, _ in live):
        return None  # through an interface that is none of dpr's: not dpr's
    # Two paths to one gateway (two next-hop objects alike) are one
    # next hop with their weights summed, as dpr's multipath groups keep
    # them; one next hop alone has no weight to speak of.
    merged = {}
    for gw, port, w, _ in live:
        merged[(gw, port)] = merged.get((gw, port), 0) + w
    if len(merged) == 1:
        return ("unicast", tuple((gw, port, 1) for gw, port in merged))
    return ("unicast", tuple(sorted((gw, port, w) for (gw, port), w in merged.items())))


def kernel_ip4(routes):
    by = {}
    for r in routes:
        if r.get("protocol") == "kernel":
            continue
        by.setdefault(norm_prefix(r["dst"], False), []).append(r)
    out = {}
    for pf, rs in by.items():
        for r in rs:
            if r.get("tos", "0") not in ("0", 0, "default"):
                continue
            t = r.get("type", "unicast")
            if t != "unicast":
                out[pf] = (REJECT[t],) if t in REJECT else None
                break
            live = [p for p in paths_of(r) if not p[3]]
            if live:
                out[pf] = unicast(live)
                break
            if "nhid" in r:
                break  # fib_table_lookup(): "goto miss"
    return {k: v for k, v in out.items() if v is not None}


def kernel_ip6(routes):
    by = {}
    for r in routes:
        if r.get("protocol") == "kernel":
            continue
        by.setdefault(norm_prefix(r["dst"], True), []).append(r)
    out = {}
    for pf, rs in by.items():
        best = None
        for r in rs:
            t = r.get("type", "unicast")
            live = t != "unicast" or any(not p[3] for p in paths_of(r))
            if live and (best is None or r.get("metric", 0) < best.get("metric", 0)):
                best = r
        if best is None:
            continue
        v = route_value(best)
        if v is not None:
            out[pf] = v
    return out


def route_value(r):
    """What one IPv6 route (`ip -j`) forwards with: its kind, or its live paths."""
    t = r.get("type", "unicast")
    if t != "unicast":
        return (REJECT[t],) if t in REJECT else None
    return unicast([p for p in paths_of(r) if not p[3]])


# What `ip -6 route get` says for a reject route (ip6_rt_type_to_error()).
GET_ERRORS = {"Invalid argument": ("blackhole",), "No route to host": ("unreachable",),
              "Permission denied": ("unreachable",)}
# The random sequence's IPv6 prefixes, which a rule sends to its table.
RANDOM6 = "2001:db8:90::/56"
LOOKUP6 = False


def kernel_lookup6(netns, pf, model):
    """The kernel's own choice for IPv6 prefix @pf (see the docstring)."""
    addr = str(ipaddress.ip_network(pf).network_address + 1)
    p = subprocess.run(["ip", "-n", netns, "-6", "-j", "-d", "route", "get", "fibmatch", addr],
                       capture_output=True, text=True)
    if p.returncode != 0:
        for err, v in GET_ERRORS.items():
            if err in p.stderr:
                return v
        return model  # no route at all: as the dump says
    r = json.loads(p.stdout)[0]
    if norm_prefix(r["dst"], True) != pf:
        return model
    return route_value(r)


def kernel_routes(netns, table):
    k = kernel_ip4(ip_json(netns, "-4", table))
    routes6 = ip_json(netns, "-6", table)
    k6 = kernel_ip6(routes6)
    if LOOKUP6:
        net = ipaddress.ip_network(RANDOM6)
        for pf in {norm_prefix(r["dst"], True) for r in routes6}:
            if ipaddress.ip_network(pf).subnet_of(net):
                v = kernel_lookup6(netns, pf, k6.get(pf))
                k6.pop(pf, None)
                if v is not None:
                    k6[pf] = v
    k.update(k6)
    return k


def diff(netns, rpc, table):
    k, d = kernel_routes(netns, table), dpr_routes(rpc)
    lines = []
    for pf in sorted(set(k) | set(d)):
        if k.get(pf) != d.get(pf):
            lines.append("  %s: kernel %s, dpr %s" % (pf, k.get(pf, "none"), d.get(pf, "none")))
    return lines, len(k)


def settle(netns, rpc, table, what):
    """Wait (bounded) until dpr equals the kernel; print and return the verdict."""
    deadline = time.monotonic() + SETTLE_S
    while True:
        # Not while a resync's dump is under way: it settles at its end.
        dumping = rpc.call("stats.get")["kernel_routes"].get("dumping")
        lines, n = diff(netns, rpc, table)
        if not lines and not dumping:
            print("# %s: dpr holds what the kernel forwards with (%d prefixes)" % (what, n),
                  flush=True)
            return True
        if time.monotonic() > deadline:
            print("# %s: dpr differs from the kernel:" % what)
            print("\n".join(lines), flush=True)
            return False
        time.sleep(0.2)


# Compare every N steps (KROUTE_EVERY=1 finds the first step that differs).
EVERY = int(os.environ.get("KROUTE_EVERY", "25"))

G4 = {"p1": ["10.0.2.2", "10.0.2.3"], "p2": ["10.0.3.2", "10.0.3.3"]}
G6 = {"p1": ["2001:db8:2::2", "2001:db8:2::3"], "p2": ["2001:db8:3::2", "2001:db8:3::3"]}


def random_cmd(rnd, table):
    """One random command (a list of ip arguments, after `ip -n NETNS`)."""
    v6 = rnd.random() < 0.4
    fam = ["-6"] if v6 else ["-4"]
    gws = G6 if v6 else G4
    pf = ("2001:db8:90:%d::/64" if v6 else "10.90.%d.0/24") % rnd.randrange(6)
    x = rnd.random()
    if x < 0.06:
        return ["link", "set", "dpr-p2", rnd.choice(["down", "up", "up"])]
    if x < 0.22:
        # Next-hop objects: 1-3 IPv4, 4-5 IPv6 single, 6-7 IPv4 groups.
        nid = rnd.randrange(1, 8)
        if rnd.random() < 0.3:
            return ["nexthop", "del", "id", str(nid)]
        verb = rnd.choice(["add", "replace"])
        if nid <= 5:
            port = rnd.choice(["p1", "p2"])
            g = rnd.choice((G6 if nid >= 4 else G4)[port])
            return ["nexthop", verb, "id", str(nid), "via", g, "dev", "dpr-" + port]
        members = rnd.sample([1, 2, 3], rnd.randrange(1, 4))
        return ["nexthop", verb, "id", str(nid), "group",
                "/".join("%d,%d" % (m, rnd.randrange(1, 4)) for m in members)]
    metric = ["metric", str(rnd.choice([10, 20]))] if rnd.random() < 0.5 else []
    if x < 0.40:
        args = ["del", pf, "table", str(table)] + metric
        if rnd.random() < 0.5:
            port = rnd.choice(["p1", "p2"])
            args += ["via", rnd.choice(gws[port]), "dev", "dpr-" + port]
        return fam + ["route"] + args
    verb = rnd.choice(["add", "append", "append", "prepend", "replace"])
    y = rnd.random()
    head = [pf]
    if y < 0.1:
        head, what = [rnd.choice(["blackhole", "unreachable"]), pf], []
    elif y < 0.3:
        what = ["nhid", str(rnd.choice([4, 5] if v6 else [1, 2, 3, 6, 7]))]
    elif y < 0.5:
        what = []
        for port in rnd.sample(["p1", "p2"], 2):
            what += ["nexthop", "via", rnd.choice(gws[port]), "dev", "dpr-" + port]
    else:
        port = rnd.choice(["p1", "p2"])
        what = ["via", rnd.choice(gws[port]), "dev", "dpr-" + port]
    tos = ["tos", "0x10"] if not v6 and rnd.random() < 0.05 else []
    # A nexthop list ends the command line.
    return fam + ["route", verb] + head + ["table", str(table)] + metric + tos + what


def main():
    mode, netns, sock, table = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    rpc = Rpc(sock)
    if mode == "compare":
        sys.exit(0 if settle(netns, rpc, table, "compare") else 1)
    seed, steps = int(sys.argv[5]), int(sys.argv[6])
    global LOOKUP6
    subprocess.run(["ip", "-n", netns, "-6", "rule", "add", "to", RANDOM6, "lookup", str(table),
                    "pref", "50"], check=True)
    subprocess.run(["ip", "netns", "exec", netns, "sysctl", "-qw",
                    "net.ipv6.conf.all.forwarding=1"], check=True)
    LOOKUP6 = True
    print("# random sequence: seed %d, %d steps" % (seed, steps), flush=True)
    rnd = random.Random(seed)
    ok, refused = True, 0
    for i in range(1, steps + 1):
        cmd = random_cmd(rnd, table)
        p = subprocess.run(["ip", "-n", netns] + cmd, capture_output=True, text=True)
        refused += p.returncode != 0
        if "-v" in sys.argv:
            print("# %d: ip %s%s" % (i, " ".join(cmd), "" if p.returncode == 0 else
                                     " (refused: %s)" % p.stderr.strip()), flush=True)
        if i % EVERY == 0 or i == steps:
            if not settle(netns, rpc, table, "after step %d (seed %d)" % (i, seed)):
                ok = False
                break
    print("# %d commands, %d refused by the kernel" % (i, refused))
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()

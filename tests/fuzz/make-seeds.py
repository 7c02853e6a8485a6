#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Write the fuzz harnesses' seed corpora into tests/fuzz/corpus/<harness>/.

    python3 tests/fuzz/make-seeds.py

fpm: each zebra 8.4 recording of tests/unit/fpm_frames/ as one connection.
config: the shipped and test configurations.
rpc: one file of request lines per method, good and bad.
dataplane: bursts of frames for the rig of fuzz_dataplane.c (p0
02:00:00:00:01:01 10.0.1.1/24 2001:db8:1::1/64, p1 02:00:00:00:02:01
10.0.2.1/24 2001:db8:2::1/64 MTU 1280; VLAN 100 of both in VRF red, 200
in VRF blue, the same subnets): forwarded, unresolved, TTL 1, ARP, NDP,
echo, options, fragments, extension headers, runts; tagged for red, blue
and no interface, priority-tagged, double-tagged, tags in vlan_tci.
fib: batches of FIB ops in fuzz_fib.c's encoding: nested prefixes,
replaces and deletes, default routes, bad ops, and fills up to max_routes
and DIR-24-8's tbl8 groups.
"""
import glob, hashlib, ipaddress, os, shutil, struct, sys

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(TOP, "tests", "smoke"))
from traffic import csum  # noqa: E402  (the Internet checksum)


def put(harness, data):
    d = os.path.join(HERE, "corpus", harness)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, hashlib.sha1(data).hexdigest()[:16]), "wb") as f:
        f.write(data)


def fpm():
    for path in sorted(glob.glob(os.path.join(TOP, "tests/unit/fpm_frames/*.hex"))):
        frames = [bytes.fromhex(l.strip()) for l in open(path)
                  if l.strip() and not l.startswith("#")]
        put("fpm", b"".join(frames))


def config():
    for pat in ("config/*.json", "tests/config/good/*.json", "tests/config/bad/*.json"):
        for path in sorted(glob.glob(os.path.join(TOP, pat))):
            put("config", open(path, "rb").read())


RPC = [
    '{"jsonrpc":"2.0","id":1,"method":"route.add","params":{"prefix":"10.9.0.0/16","via":"10.0.2.2"}}',
    '{"jsonrpc":"2.0","id":2,"method":"route.add","params":{"prefix":"10.8.0.0/16","nexthops":[{"via":"10.0.2.2","weight":3},{"via":"10.0.1.2"}]}}',
    '{"jsonrpc":"2.0","id":3,"method":"route.replace","params":{"prefix":"10.9.0.0/16","via":"10.0.1.2"}}',
    '{"jsonrpc":"2.0","id":4,"method":"route.get","params":{"address":"10.9.1.1"}}',
    '{"jsonrpc":"2.0","id":5,"method":"route.get","params":{"address":"10.8.1.1","from":"10.0.1.2","proto":"udp","sport":5,"dport":7}}',
    '{"jsonrpc":"2.0","id":6,"method":"route.list","params":{"limit":3}}',
    '{"jsonrpc":"2.0","id":7,"method":"route.load","params":{"routes":["10.7.0.0/16 via 10.0.2.2","del 10.9.0.0/16","2001:db8:9::/48 via 2001:db8:2::2 via 2001:db8:1::2 weight 2"]}}',
    '{"jsonrpc":"2.0","id":8,"method":"route.del","params":{"prefix":"10.8.0.0/16"}}',
    '{"jsonrpc":"2.0","id":9,"method":"addr.add","params":{"port":"p1","address":"10.0.3.1/24"}}',
    '{"jsonrpc":"2.0","id":10,"method":"addr.del","params":{"port":"p1","address":"10.0.3.1/24"}}',
    '{"jsonrpc":"2.0","id":11,"method":"addr.list"}',
    '{"jsonrpc":"2.0","id":12,"method":"neigh.add","params":{"address":"10.0.2.9","mac":"02:00:00:00:02:09"}}',
    '{"jsonrpc":"2.0","id":13,"method":"neigh.del","params":{"address":"10.0.2.9"}}',
    '{"jsonrpc":"2.0","id":14,"method":"neigh.add","params":{"address":"fe80::9","mac":"02:00:00:00:02:09","port":"p1"}}',
    '{"jsonrpc":"2.0","id":15,"method":"neigh.list"}',
    '{"jsonrpc":"2.0","id":16,"method":"stats.get"}',
    '{"jsonrpc":"2.0","id":17,"method":"config.get"}',
    '{"jsonrpc":"2.0","id":18,"method":"port.list"}',
    '{"jsonrpc":"2.0","method":"route.list"}',
    '[{"jsonrpc":"2.0","id":19,"method":"route.list"}]',
    '{"jsonrpc":"2.0","id":20,"method":"nope"}',
    '{"jsonrpc":"1.0","id":[1],"method":5}',
    '{"jsonrpc":"2.0","id":21,"method":"route.add","params":{"prefix":"10.9.0.1/16","via":"fe80::1"}}',
    '{"jsonrpc":"2.0","id":22,"method":"vrf.list"}',
    '{"jsonrpc":"2.0","id":23,"method":"route.add","params":{"prefix":"10.9.0.0/16","via":"10.0.2.2","vrf":"red"}}',
    '{"jsonrpc":"2.0","id":24,"method":"route.list","params":{"vrf":"default","limit":2}}',
    '{"jsonrpc":"2.0","id":25,"method":"neigh.add","params":{"address":"10.0.2.9","mac":"02:00:00:00:02:09","vrf":"default"}}',
]


def rpc():
    for r in RPC:
        put("rpc", (r + "\n").encode())
    put("rpc", ("\n".join(RPC) + "\n").encode())


MAC_P = [bytes.fromhex("020000000101"), bytes.fromhex("020000000201")]
MAC_H = bytes.fromhex("020000000102")
BCAST = b"\xff" * 6


def ip4(src, dst, proto, payload, ttl=64, opts=b"", frag=0, tot=None):
    hl = 20 + len(opts)
    h = struct.pack("!BBHHHBBH4s4s", 0x40 | hl // 4, 0, tot or hl + len(payload), 0x1234, frag,
                    ttl, proto, 0, ipaddress.ip_address(src).packed,
                    ipaddress.ip_address(dst).packed) + opts
    h = h[:10] + struct.pack("!H", csum(h)) + h[12:]
    return h + payload


def ip6(src, dst, nh, payload, hlim=64):
    return struct.pack("!IHBB16s16s", 0x60000000, len(payload), nh, hlim,
                       ipaddress.ip_address(src).packed, ipaddress.ip_address(dst).packed) + payload


def icmp6(src, dst, typ, code, body):
    ph = ipaddress.ip_address(src).packed + ipaddress.ip_address(dst).packed + \
        struct.pack("!IxxxB", 4 + len(body), 58)
    m = struct.pack("!BBH", typ, code, 0) + body
    c = csum(ph + m)
    return ip6(src, dst, 58, m[:2] + struct.pack("!H", c) + m[4:], hlim=255)


def eth(dst, typ, payload, src=MAC_H):
    return dst + src + struct.pack("!H", typ) + payload


def udp(n=8):
    return struct.pack("!HHHH", 5000, 5001, 8 + n, 0) + bytes(i & 0xff for i in range(n))


def burst(port, flags, frames):
    out = bytes([port | flags << 1])
    for f in frames:
        out += struct.pack("!H", len(f)) + f
    return out


def dataplane():
    p0 = MAC_P[0]
    fwd4 = eth(p0, 0x0800, ip4("10.0.1.2", "10.0.2.2", 17, udp()))
    unres4 = eth(p0, 0x0800, ip4("10.0.1.2", "198.51.100.5", 17, udp()))
    ttl1 = eth(p0, 0x0800, ip4("10.0.1.2", "192.0.2.5", 17, udp(), ttl=1))
    echo4 = eth(p0, 0x0800, ip4("10.0.1.2", "10.0.1.1", 1,
                                 struct.pack("!BBHHH", 8, 0, 0xf7fe, 1, 0)))
    noroute = eth(p0, 0x0800, ip4("10.0.1.2", "172.16.0.1", 17, udp()))
    big = eth(MAC_P[1], 0x0800, ip4("10.0.2.2", "10.0.1.2", 17, udp(1400)))
    rr = eth(p0, 0x0800, ip4("10.0.1.2", "192.0.2.5", 17, udp(), opts=b"\x07\x07\x04" + bytes(4) + b"\x01"))
    badopt = eth(p0, 0x0800, ip4("10.0.1.2", "192.0.2.5", 17, udp(), opts=b"\x44\x28\x05\x00"))
    frag = eth(p0, 0x0800, ip4("10.0.1.2", "192.0.2.5", 17, udp(), frag=0x2000))
    arp = eth(BCAST, 0x0806, struct.pack("!HHBBH6s4s6s4s", 1, 0x0800, 6, 4, 1, MAC_H,
                                          bytes([10, 0, 1, 2]), bytes(6), bytes([10, 0, 1, 1])))
    fwd6 = eth(p0, 0x86dd, ip6("2001:db8:1::2", "2001:db8:78::5", 17, udp()))
    unres6 = eth(p0, 0x86dd, ip6("2001:db8:1::2", "2001:db8:77::5", 17, udp()))
    hl1 = eth(p0, 0x86dd, ip6("2001:db8:1::2", "2001:db8:78::5", 17, udp(), hlim=1))
    ns = eth(bytes.fromhex("3333ff000001"), 0x86dd,
             icmp6("2001:db8:1::2", "ff02::1:ff00:1", 135, 0,
                   bytes(4) + ipaddress.ip_address("2001:db8:1::1").packed + b"\x01\x01" + MAC_H))
    echo6 = eth(p0, 0x86dd, icmp6("2001:db8:1::2", "2001:db8:1::1", 128, 0, b"\x00\x01\x00\x01"))
    rs = eth(bytes.fromhex("333300000002"), 0x86dd, icmp6("fe80::2", "ff02::2", 133, 0, bytes(4)))
    hbh = eth(p0, 0x86dd, ip6("2001:db8:1::2", "2001:db8:78::5", 0,
                              b"\x11\x00\x01\x04\x00\x00\x00\x00" + udp()))
    runt = eth(p0, 0x0800, b"\x45\x00")
    vlan = p0 + MAC_H + b"\x81\x00\x00\x05\x08\x00" + ip4("10.0.1.2", "10.0.2.2", 17, udp())
    seeds = [
        burst(0, 0, [fwd4] * 4), burst(0, 1, [fwd4, unres4, ttl1, echo4, noroute]),
        burst(1, 4, [big]), burst(0, 3, [rr, badopt, frag]), burst(0, 0, [arp]),
        burst(0, 4, [fwd6, unres6, hl1]), burst(0, 0, [ns, echo6, rs]), burst(0, 0, [hbh]),
        burst(0, 2, [runt, vlan, fwd4, fwd6]), burst(0, 0, [fwd4, fwd6] * 16),
    ]
    # 802.1Q: the same frames in VLAN 100 (red), 200 (blue), 0 (priority),
    # 300 (no interface), two tags, a cut tag; and tags the PMD took off
    # (flags bits 3-4: VLAN 100, 200, 300 in vlan_tci).
    def tag(vid, f, pcp=0):
        return f[:12] + struct.pack("!HH", 0x8100, pcp << 13 | vid) + f[12:]
    for vid in (100, 200):
        seeds.append(burst(0, 0, [tag(vid, f) for f in (fwd4, unres4, ttl1, echo4, noroute, arp)]))
        seeds.append(burst(0, 0, [tag(vid, f) for f in (fwd6, unres6, hl1, ns, echo6, rs, hbh)]))
        seeds.append(burst(1, 0, [tag(vid, big), tag(vid, eth(MAC_P[1], 0x0800, ip4(
            "10.0.2.2", "192.0.2.9", 17, udp())))]))
    seeds.append(burst(0, 0, [tag(100, fwd4), fwd4, tag(200, fwd4), tag(0, fwd4, pcp=5),
                              tag(300, fwd4), tag(100, tag(100, fwd4)), tag(100, fwd4)[:16],
                              tag(200, rr), tag(4095, fwd6)]))
    seeds.append(burst(0, 8, [fwd4, unres4, echo4, arp]))
    seeds.append(burst(0, 16, [fwd4, fwd6, ns]))
    seeds.append(burst(1, 24, [big, tag(100, fwd4)]))
    for s in seeds:
        put("dataplane", s)


# fuzz_fib.c's encoding (see its header comment).
FIB_PAL = [0x00, 0x01, 0x80, 0xff]
FIB_NH = {0: 0, 2: 1, 5: 2, 6: 3, 0x1234: 4, 0xffff: 5, 0x10000: 6, 0xffffffff: 7}
ADD, PICK_ADD, PICK_DEL, DEL = 0, 1, 2, 3


def fib_addr(prefix):
    """The address bytes for an address whose bytes are all from FIB_PAL
    but at most one."""
    b = ipaddress.ip_address(prefix).packed
    odd = [i for i, x in enumerate(b) if x not in FIB_PAL]
    assert len(odd) <= 1, prefix
    pos = odd[0] if odd else 0
    sel = bytearray(len(b) // 4)
    for i, x in enumerate(b):
        if i != pos or not odd:
            sel[i // 4] |= FIB_PAL.index(x) << (2 * (i % 4))
    return bytes(sel) + bytes([pos, b[pos]])


def fib_depth(v6, depth):
    if depth > (128 if v6 else 32):
        return 0xfe
    return depth - 12 if depth >= 12 else 0xf0 + depth - 1 if depth > 0 else 0xfd


def fib_op(kind, net, nh=5, fill=False):
    """One op: kind ADD or DEL with net "a/len", PICK_* with net the pick."""
    k = kind | FIB_NH[nh] << 2 | (0xe0 if fill else 0)
    if kind in (PICK_ADD, PICK_DEL):
        return bytes([k, net])
    a, d = net.split("/")
    v6 = ":" in a
    return bytes([k, fib_depth(v6, int(d))]) + fib_addr(a)


def fib_batch(v6, ops):
    return bytes([int(v6) | (len(ops) - 1) << 1]) + b"".join(ops)


def fib():
    seeds = [
        # Nested IPv4 routes, a broadcast /32, replaces, deletes, a missing one.
        fib_batch(False, [fib_op(ADD, "10.0.0.0/8", 5), fib_op(ADD, "10.1.0.0/16", 6),
                          fib_op(ADD, "10.1.0.128/25", 0x1234), fib_op(ADD, "10.1.0.255/32", 2)])
        + fib_batch(False, [fib_op(PICK_ADD, 1, 0xffff), fib_op(PICK_DEL, 2)])
        + fib_batch(False, [fib_op(DEL, "10.1.0.0/16"), fib_op(DEL, "10.1.0.0/16")]),
        # Nested IPv6 routes down a long chain, a /65 across a byte.
        fib_batch(True, [fib_op(ADD, "2001:ff00::/32", 5), fib_op(ADD, "2001:ff00:1::/48", 6),
                         fib_op(ADD, "2001:ff00:1:ff::/64", 0), fib_op(ADD, "2001:ff00:1:ff::1/128", 2),
                         fib_op(ADD, "2001:ff00:1:ff:8000::/65", 0x1234)])
        + fib_batch(True, [fib_op(PICK_DEL, 3), fib_op(PICK_ADD, 0, 6), fib_op(DEL, "2001:ff00:1::/48")]),
        # Short routes under others, and gone again (no /0: it takes
        # DIR-24-8 a second each way with the sanitizers).
        fib_batch(False, [fib_op(ADD, "0.0.0.0/11", 6), fib_op(ADD, "0.1.0.0/16", 5),
                          fib_op(ADD, "0.1.255.0/24", 2)])
        + fib_batch(True, [fib_op(ADD, "ff00::/11", 6), fib_op(ADD, "ff01::/16", 5)])
        + fib_batch(False, [fib_op(DEL, "0.0.0.0/11")]) + fib_batch(True, [fib_op(DEL, "ff00::/11")]),
        # Bad ops: a depth past the family's, next hops past every FIB's
        # and past Poptrie's.
        fib_batch(False, [fib_op(ADD, "10.0.0.0/8"), fib_op(ADD, "10.0.0.0/33")])
        + fib_batch(False, [fib_op(ADD, "10.1.0.0/16", 0xffffffff)])
        + fib_batch(False, [fib_op(ADD, "10.1.0.0/16", 0x10000), fib_op(ADD, "10.128.0.0/16")])
        + fib_batch(True, [fib_op(ADD, "2001:ff00::/129"), fib_op(ADD, "2001:ff00::/32", 0x10000)]),
        # Fills: /25s in 16 /24 blocks and more (tbl8 groups), then /24s
        # past max_routes.
        fib_batch(False, [fib_op(ADD, "10.1.0.0/25", 5, fill=True)])
        + fib_batch(False, [fib_op(ADD, "10.128.0.0/24", 6, fill=True),
                            fib_op(ADD, "10.255.0.0/24", 6, fill=True)])
        + fib_batch(False, [fib_op(PICK_DEL, 7), fib_op(ADD, "10.0.255.0/24", 2)]),
        # /128s in different /24s until the groups run out; /48s past
        # max_routes.
        fib_batch(True, [fib_op(ADD, "2001:100::1/128"), fib_op(ADD, "2001:8000::1/128"),
                         fib_op(ADD, "2001:ff00::1/128"), fib_op(ADD, "2001::1/128"),
                         fib_op(ADD, "2001:101::1/128")])
        + fib_batch(True, [fib_op(ADD, "2001:ff00:1::/48", 5, fill=True),
                           fib_op(ADD, "2001:ff00:80::/48", 5, fill=True)])
        + fib_batch(True, [fib_op(PICK_DEL, 0), fib_op(ADD, "2001:1::1/128")]),
    ]
    for s in seeds:
        put("fib", s)


if __name__ == "__main__":
    shutil.rmtree(os.path.join(HERE, "corpus"), ignore_errors=True)
    fpm(); config(); rpc(); dataplane(); fib()
    for h in sorted(os.listdir(os.path.join(HERE, "corpus"))):
        print(h, len(os.listdir(os.path.join(HERE, "corpus", h))))

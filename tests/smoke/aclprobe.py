#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Raw frames that ACLs must see through, for tests/smoke/acl_paths.sh.

Each case is one hand-built frame whose UDP or TCP payload (or, for a
non-first fragment, its fragment data) starts with "ACLP:<case>", so a
sniffer on the far side can tell which arrived.

  aclprobe.py send IFACE SRC_MAC DST_MAC CASE...
      send each CASE once (names: see CASES below).
  aclprobe.py flood IFACE SRC_MAC DST_MAC CASE COUNT
      send CASE COUNT times, as fast as a raw socket takes them.
  aclprobe.py sniff IFACE SECONDS OUT
      (OUT.ready is created once the socket is bound) until SECONDS have
      passed or OUT.stop exists (holding a number N: once N administratively
      prohibited have been received), write to OUT (JSON) {"cases": [names of the
      markers seen], "icmp_admin": n (ICMP/ICMPv6 administratively
      prohibited received)}. A tagged frame's tag is in the socket's
      auxdata, not in the data: the IP header follows the Ethernet header.
"""
import json
import os
import select
import socket
import struct
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from traffic import sniffer  # noqa: E402

ETH_P_ALL = 0x0003
H1, H2 = "10.0.1.2", "10.0.2.2"
H1_6, H2_6 = "2001:db8:1::2", "2001:db8:2::2"
VLAN_HOST, VLAN_PEER = "10.77.1.2", "10.77.1.3"


def mac_bytes(s):
    return bytes(int(x, 16) for x in s.split(":"))


def checksum(data):
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff


def marker(name, size=0):
    m = ("ACLP:%s;" % name).encode()
    return m + b"x" * max(0, size - len(m))


def l4(proto, sport, dport, payload, pseudo):
    """A UDP or TCP header + payload with its checksum over @pseudo."""
    if proto == 17:
        h = struct.pack("!HHHH", sport, dport, 8 + len(payload), 0)
    else:
        h = struct.pack("!HHIIBBHHH", sport, dport, 1, 0, 5 << 4, 0x02, 8192, 0, 0)
    seg = h + payload
    c = checksum(pseudo(len(seg)) + seg)
    if proto == 17:
        return seg[:6] + struct.pack("!H", c or 0xffff) + seg[8:]
    return seg[:16] + struct.pack("!H", c) + seg[18:]


def ip4(src, dst, proto, payload, frag=0, tos=0, options=b""):
    """IPv4 header (+ options) and @payload; @frag: the whole flags/offset field."""
    ihl = 5 + len(options) // 4
    h = struct.pack("!BBHHHBBH4s4s", 0x40 | ihl, tos, ihl * 4 + len(payload), 0x1234, frag,
                    64, proto, 0, socket.inet_aton(src), socket.inet_aton(dst)) + options
    h = h[:10] + struct.pack("!H", checksum(h)) + h[12:]
    return 0x0800, h + payload


def udp4(src, dst, dport, payload, **kw):
    pseudo = lambda n: socket.inet_aton(src) + socket.inet_aton(dst) + struct.pack("!BBH", 0, 17, n)
    return ip4(src, dst, 17, l4(17, 40000, dport, payload, pseudo), **kw)


def ip6(src, dst, nh, payload, tc=0):
    h = struct.pack("!IHBB16s16s", (6 << 28) | (tc << 20), len(payload), nh, 64,
                    socket.inet_pton(socket.AF_INET6, src), socket.inet_pton(socket.AF_INET6, dst))
    return 0x86dd, h + payload


def pseudo6(src, dst, proto):
    return lambda n: (socket.inet_pton(socket.AF_INET6, src) + socket.inet_pton(socket.AF_INET6, dst)
                      + struct.pack("!IxxxB", n, proto))


def opts6(nh, size=8):
    """A hop-by-hop or destination options header of @size bytes: PadN."""
    return struct.pack("!BBBB", nh, size // 8 - 1, 1, size - 4) + b"\0" * (size - 4)


def frag6(nh, offset, more, ident=0x4321):
    return struct.pack("!BBHI", nh, 0, (offset << 3) | more, ident)


def case_frame(name):
    """(ethertype, L3 bytes, VLAN id or None) of case @name."""
    c, vid = None, None
    p6 = pseudo6(H1_6, H2_6, 6)
    u6 = pseudo6(H1_6, H2_6, 17)
    # IPv6: extension headers before TCP.
    if name == "v6_dst_tcp23":
        c = ip6(H1_6, H2_6, 60, opts6(6) + l4(6, 40000, 23, marker(name), p6))
    elif name == "v6_hbh_dst_tcp23":
        c = ip6(H1_6, H2_6, 0, opts6(60) + opts6(6, 16) + l4(6, 40000, 23, marker(name), p6))
    elif name == "v6_dst_tcp24":
        c = ip6(H1_6, H2_6, 60, opts6(6) + l4(6, 40000, 24, marker(name), p6))
    elif name == "v6_tcp23":
        c = ip6(H1_6, H2_6, 6, l4(6, 40000, 23, marker(name), p6))
    # IPv6 fragments.
    elif name == "v6_frag1_udp9":
        c = ip6(H1_6, H2_6, 44, frag6(17, 0, 1) + l4(17, 40000, 9, marker(name, 64), u6))
    elif name == "v6_fragN_udp9":
        c = ip6(H1_6, H2_6, 44, frag6(17, 9, 0) + marker(name, 64))
    elif name == "v6_fragN_dscp10":
        c = ip6(H1_6, H2_6, 44, frag6(17, 9, 0) + marker(name, 64), tc=10 << 2)
    elif name == "v6_frag1_udp7000_dscp10":
        c = ip6(H1_6, H2_6, 44, frag6(17, 0, 1) + l4(17, 40000, 7000, marker(name, 64), u6),
                tc=10 << 2)
    elif name == "v6_rfc7112":
        # A first fragment that ends inside its header chain: the
        # destination options header names TCP, which is not there.
        # The marker is the options header's padding.
        m = marker(name, 20)
        dst = struct.pack("!BBBB", 6, 2, 1, len(m)) + m
        c = ip6(H1_6, H2_6, 44, frag6(60, 0, 1) + dst)
    # IPv4 fragments.
    elif name == "v4_frag1_udp9":
        c = udp4(H1, H2, 9, marker(name, 64), frag=0x2000)
    elif name == "v4_fragN_udp9":
        c = ip4(H1, H2, 17, marker(name, 64), frag=9)
    elif name == "v4_fragN_dscp10":
        c = ip4(H1, H2, 17, marker(name, 64), frag=9, tos=10 << 2)
    elif name == "v4_frag1_udp7000_dscp10":
        c = udp4(H1, H2, 7000, marker(name, 64), frag=0x2000, tos=10 << 2)
    elif name == "v4_tcp_short":
        # RFC 1858: a first fragment with 8 bytes of TCP (no flags).
        c = ip4(H1, H2, 6, struct.pack("!HHI", 40000, 80, 1), frag=0x2000)
    # IPv4 options (the control thread forwards these), and packets to
    # fragment (p1's MTU is 1400; DF clear).
    elif name.startswith("v4_opt_udp"):
        c = udp4(H1, H2, int(name[10:]), marker(name, 64), options=b"\x01\x01\x01\x00")
    elif name.startswith("v4_big_udp"):
        c = udp4(H1, H2, int(name[10:]), marker(name, 1450))
    elif name.startswith("v4_udp"):
        c = udp4(H1, H2, int(name[6:]), marker(name, 32))
    # Tagged, from a host in VLAN 100.
    elif name == "vlan_echo":
        icmp = struct.pack("!BBHHH", 8, 0, 0, 7, 1) + marker(name, 32)
        icmp = icmp[:2] + struct.pack("!H", checksum(icmp)) + icmp[4:]
        c, vid = ip4(VLAN_HOST, H2, 1, icmp), 100
    elif name == "vlan_udp7000":
        c, vid = udp4(VLAN_HOST, H2, 7000, marker(name, 32)), 100
    # From h2 to the host in VLAN 100 (p0.100's output ACL).
    elif name.startswith("to_vlan_udp"):
        c = udp4(H2, VLAN_HOST, int(name[11:]), marker(name, 32))
    if c is None:
        sys.exit("aclprobe: unknown case %s" % name)
    return c[0], c[1], vid


def frame(src, dst, name):
    etype, l3, vid = case_frame(name)
    eth = mac_bytes(dst) + mac_bytes(src)
    if vid is not None:
        eth += struct.pack("!HH", 0x8100, vid)
    return eth + struct.pack("!H", etype) + l3


def sender(iface):
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    s.bind((iface, 0))
    return s


def stopped(path, admin):
    """Whether the stop file is there and asks for no more errors than seen:
    the caller writes the number the router sent, so that none still on
    its way is missed (an empty file: stop now)."""
    try:
        text = open(path).read().strip()
    except OSError:
        return False
    return not text or admin >= int(text)


def sniff(iface, seconds, out):
    s = sniffer(iface)
    # Bound: whatever arrives from now on is seen. The caller waits for this.
    open(out + ".ready", "w").close()
    seen, admin = set(), 0
    # Monotonic: a step of the wall clock must not end the window early.
    end = time.monotonic() + seconds
    while time.monotonic() < end and not stopped(out + ".stop", admin):
        if not select.select([s], [], [], 0.05)[0]:
            continue
        b, addr = s.recvfrom(65535)
        if addr[2] == socket.PACKET_OUTGOING:
            continue
        i = b.find(b"ACLP:")
        if i >= 0:
            j = b.find(b";", i)
            seen.add(b[i + 5:j].decode(errors="replace"))
        etype = struct.unpack("!H", b[12:14])[0]
        if etype == 0x0800 and len(b) > 35 and b[23] == 1:
            off = 14 + (b[14] & 0xf) * 4
            if b[off] == 3 and b[off + 1] == 13:
                admin += 1
        elif etype == 0x86dd and len(b) > 55 and b[20] == 58 and b[54] == 1 and b[55] == 1:
            admin += 1
    json.dump({"cases": sorted(seen), "icmp_admin": admin}, open(out, "w"))


def main(argv):
    if len(argv) >= 5 and argv[1] == "send":
        s = sender(argv[2])
        for name in argv[5:]:
            s.send(frame(argv[3], argv[4], name))
            time.sleep(0.01)
    elif len(argv) == 7 and argv[1] == "flood":
        s = sender(argv[2])
        f = frame(argv[3], argv[4], argv[5])
        for _ in range(int(argv[6])):
            s.send(f)
    elif len(argv) == 5 and argv[1] == "sniff":
        sniff(argv[2], float(argv[3]), argv[4])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)

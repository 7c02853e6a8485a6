#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Malformed and abusive frames through dpr, one at a time, each judged by
the counters it moved: malformed.sh's sender and judge.

  malformed.py SOCK NS1 IF1 NS2 IF2 LIST|RUN

The frames go out of IF1 in namespace NS1 (h1, on dpr's p0) from a raw
socket, a few out of IF2 in NS2 (h2, on p1); both record what reaches
them, with the 802.1Q tag the kernel reports (PACKET_AUXDATA). For each
frame: the counters of the port it enters, of that port's VLAN interfaces
and of the exception path are read (JSON-RPC stats.get on SOCK), the frame
is sent, and once the port has received it (rx of the port and its VLAN
interfaces one higher) and the exception path has done with it, the change
is compared with what the frame must do: exactly one worker counter of one
interface (forwarded, a drop reason or an exception class; "p0.100:..."
for a VLAN interface's) and, for exceptions, the control thread's counters
named. Frames meant to cross carry a marker; at the end each host must
have received exactly the markers meant for it, each with its VLAN id
(none: untagged). Prints "ok - NAME" / "not ok - NAME: why"
per frame and exits 1 if any failed. No timing decides a result: the
waits are limits for a broken router.
"""
import ctypes
import json
import os
import socket
import struct
import sys
import threading
import time

# The Internet checksum, as the other smoke traffic computes it.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from traffic import csum, sniffer  # noqa: E402

CLONE_NEWNET = 0x40000000
ETH_P_ALL = 0x0003
PACKET_OUTGOING = 4

R0 = bytes.fromhex("020000000101")  # dpr p0
M1 = bytes.fromhex("020000000102")  # h1
R1 = bytes.fromhex("020000000201")  # dpr p1
M2 = bytes.fromhex("020000000202")  # h2
OTHER = bytes.fromhex("020000000777")
BC = b"\xff" * 6
IP_H1, IP_R0, IP_H2, IP_R1 = "10.0.1.2", "10.0.1.1", "10.0.2.2", "10.0.2.1"
V6_H1, V6_R0, V6_H2 = "2001:db8:1::2", "2001:db8:1::1", "2001:db8:2::2"


def a4(s):
    return socket.inet_aton(s)


def a6(s):
    return socket.inet_pton(socket.AF_INET6, s)


def eth(payload, typ=0x0800, dst=R0, src=M1):
    return dst + src + struct.pack("!H", typ) + payload


def ip4(src, dst, proto=17, payload=b"", ttl=64, opts=b"", ihl=None, tot=None, ver=4,
        frag=0, bad_csum=False, ident=0x4242):
    hl = 20 + len(opts)
    h = struct.pack("!BBHHHBBH4s4s", ver << 4 | (ihl if ihl is not None else hl // 4), 0,
                    tot if tot is not None else hl + len(payload), ident, frag, ttl, proto, 0,
                    a4(src), a4(dst)) + opts
    c = csum(h) ^ (0x5555 if bad_csum else 0)
    return h[:10] + struct.pack("!H", c) + h[12:] + payload


def udp(tag, src=IP_H1, dst=IP_H2, size=0):
    data = tag + b"." * max(0, size - len(tag))
    return struct.pack("!HHHH", 40000, 5001, 8 + len(data), 0) + data


def icmp4(typ, code, rest=b"\0\0\0\0", data=b"", bad=False):
    m = struct.pack("!BBH", typ, code, 0) + rest + data
    c = csum(m) ^ (0x1111 if bad else 0)
    return m[:2] + struct.pack("!H", c) + m[4:]


def ip6(src, dst, nh=17, payload=b"", hlim=64, plen=None, ver=6):
    return struct.pack("!IHBB16s16s", ver << 28, plen if plen is not None else len(payload),
                       nh, hlim, a6(src), a6(dst)) + payload


def icmp6(src, dst, typ, code, body, bad=False):
    ph = a6(src) + a6(dst) + struct.pack("!IxxxB", 4 + len(body), 58)
    m = struct.pack("!BBH", typ, code, 0) + body
    c = csum(ph + m) ^ (0x1111 if bad else 0)
    return m[:2] + struct.pack("!H", c) + m[4:]


def udp6(tag):
    return struct.pack("!HHHH", 40000, 5001, 8 + len(tag), 0) + tag


def arp(op=1, sip=IP_H1, tip=IP_R0, sha=M1, hlen=6, plen=4, htype=1, ptype=0x0800, cut=None):
    a = struct.pack("!HHBBH", htype, ptype, hlen, plen, op) + sha[:6].ljust(hlen, b"\0")[:hlen] + \
        a4(sip)[:plen].ljust(plen, b"\0") + bytes(hlen) + a4(tip)[:plen].ljust(plen, b"\0")
    return eth(a[:cut] if cut else a, 0x0806, dst=BC)


def ndp_ns(target, src=V6_H1, dst=None, hlim=255, bad=False, opt=True):
    dst = dst or "ff02::1:ff00:" + target.split(":")[-1]
    body = bytes(4) + a6(target) + (b"\x01\x01" + M1 if opt else b"")
    dmac = bytes.fromhex("3333ff") + a6(dst)[13:]
    return eth(ip6(src, dst, 58, icmp6(src, dst, 135, 0, body, bad), hlim=hlim), 0x86dd, dst=dmac)


def tagged(n):
    return b"DPRMAL%03d" % n


def dot1q(vid, frame, tpid=0x8100, pcp=0):
    """@frame with an 802.1Q tag (TPID @tpid) after its MACs."""
    return frame[:12] + struct.pack("!HH", tpid, pcp << 13 | vid) + frame[12:]


# A frame: (name, bytes, worker counter, {exception-path counter: delta},
# crosses, port it enters). Worker counters: "forwarded", "drops.REASON" or
# "exceptions.CLASS" of the port, "IFACE:..." of its VLAN interface IFACE.
# crosses: False, True (reaches h2 untagged) or (host, VLAN id or None).
def frames():
    f = []

    def add(name, frame, worker, ep=None, crosses=False, via="p0"):
        f.append((name, frame, worker, ep or {}, ("h2", None) if crosses is True else crosses,
                  via))

    n = iter(range(1000))
    # --- Ethernet -----------------------------------------------------------
    add("IPv4 header cut after 3 bytes", eth(b"\x45\x00\x00"), "drops.runt")
    add("unicast to another MAC", eth(ip4(IP_H1, IP_H2, payload=udp(b"x")), dst=OTHER),
        "drops.other_host")
    add("unknown EtherType 0x88b5", eth(bytes(46), 0x88b5), "drops.unsupported_l3")
    add("802.1Q tag on a port without VLAN interfaces (p1)",
        dot1q(5, eth(ip4(IP_H2, IP_H1, payload=udp(b"v")), dst=R1, src=M2)),
        "drops.unknown_vlan", via="p1")
    add("802.3 length field instead of a type", eth(bytes(46), 0x002e), "drops.unsupported_l3")
    add("IPv4 frame with 1000 bytes of trailer", eth(ip4(IP_H1, IP_H2, payload=udp(tagged(next(n))))
                                                     + b"\xee" * 1000), "forwarded",
        crosses=True)
    # --- ARP ----------------------------------------------------------------
    add("ARP request for the router", arp(), "exceptions.arp",
        {"arp_requests_in": 1, "arp_replies_sent": 1})
    add("ARP with hardware length 7", arp(hlen=7), "exceptions.arp", {"arp_invalid": 1})
    add("ARP with protocol length 16", arp(plen=16), "exceptions.arp", {"arp_invalid": 1})
    add("ARP cut short (20 bytes)", arp(cut=20), "exceptions.arp", {"arp_invalid": 1})
    add("ARP opcode 3 (RARP)", arp(op=3), "exceptions.arp", {"arp_invalid": 1})
    add("ARP from p0's subnet broadcast address", arp(sip="10.0.1.255"), "exceptions.arp",
        {"arp_invalid": 1})
    add("ARP from a multicast sender address", arp(sip="224.0.0.9"), "exceptions.arp",
        {"arp_invalid": 1})
    add("ARP probe from 0.0.0.0 (RFC 5227)", arp(sip="0.0.0.0", tip="10.0.1.77"), "exceptions.arp",
        {"arp_requests_in": 1})
    # --- IPv4 header ----------------------------------------------------------
    add("IP version 5", eth(ip4(IP_H1, IP_H2, ver=5, payload=udp(b"x"))), "drops.bad_header")
    add("IHL 4", eth(ip4(IP_H1, IP_H2, ihl=4, payload=udp(b"x"))), "drops.bad_header")
    add("IHL 15 in a 29-byte packet", eth(ip4(IP_H1, IP_H2, ihl=15, payload=udp(b"x"))),
        "drops.runt")
    add("total length past the frame", eth(ip4(IP_H1, IP_H2, tot=600, payload=udp(b"x"))),
        "drops.bad_length")
    add("total length under the header", eth(ip4(IP_H1, IP_H2, tot=12, payload=udp(b"x"))),
        "drops.bad_length")
    add("bad header checksum", eth(ip4(IP_H1, IP_H2, bad_csum=True, payload=udp(b"x"))),
        "drops.bad_checksum")
    add("source 127.0.0.1", eth(ip4("127.0.0.1", IP_H2, payload=udp(b"x"))), "drops.martian")
    add("source 0.0.0.0 to a remote host", eth(ip4("0.0.0.0", IP_H2, payload=udp(b"x"))),
        "drops.martian")
    add("destination 0.0.0.1", eth(ip4(IP_H1, "0.0.0.1", payload=udp(b"x"))), "drops.martian")
    add("source 224.0.0.5 (multicast)", eth(ip4("224.0.0.5", IP_H2, payload=udp(b"x"))),
        "drops.martian")
    add("destination 240.0.0.1 (class E)", eth(ip4(IP_H1, "240.0.0.1", payload=udp(b"x"))),
        "drops.martian")
    add("source 255.255.255.255", eth(ip4("255.255.255.255", IP_H2, payload=udp(b"x"))),
        "drops.martian")
    add("source 127.1.2.3 to the router", eth(ip4("127.1.2.3", IP_R0, payload=udp(b"x"))),
        "drops.martian")
    add("DHCP discover from 0.0.0.0 (RFC 2131 4.1): to the host stack",
        eth(ip4("0.0.0.0", "255.255.255.255", payload=udp(b"x")), dst=BC), "exceptions.local",
        {"hs.to_kernel": 1})
    add("limited broadcast 255.255.255.255 (not forwarded)",
        eth(ip4(IP_H1, "255.255.255.255", payload=udp(b"x")), dst=BC), "exceptions.local",
        {"hs.to_kernel": 1})
    add("directed broadcast to p1's subnet (RFC 2644: not forwarded)",
        eth(ip4(IP_H1, "10.0.2.255", payload=udp(tagged(next(n))))), "exceptions.local",
        {"hs.to_kernel": 1})
    add("TTL 1", eth(ip4("192.0.2.21", IP_H2, ttl=1, payload=udp(b"x"))),
        "exceptions.ttl_expired", {"icmp_time_exceeded": 1})
    add("TTL 0", eth(ip4("192.0.2.22", IP_H2, ttl=0, payload=udp(b"x"))),
        "exceptions.ttl_expired", {"icmp_time_exceeded": 1})
    add("no route (172.16.0.1)", eth(ip4("192.0.2.23", "172.16.0.1", payload=udp(b"x"))),
        "exceptions.no_route", {"icmp_net_unreachable": 1})
    # --- IPv4 options (RFC 791, RFC 1812 5.2.4) ---------------------------------
    add("record route, room left: forwarded and recorded",
        eth(ip4(IP_H1, IP_H2, opts=b"\x07\x07\x04" + bytes(4) + b"\x00",
                payload=udp(tagged(next(n))))), "exceptions.ip_options",
        {"slow_forwarded": 1}, crosses=True)
    add("NOP and EOL only: forwarded",
        eth(ip4(IP_H1, IP_H2, opts=b"\x01\x01\x01\x00", payload=udp(tagged(next(n))))),
        "exceptions.ip_options", {"slow_forwarded": 1}, crosses=True)
    add("unknown option 0x9e: passed on (RFC 1812 5.2.4.1)",
        eth(ip4(IP_H1, IP_H2, opts=b"\x9e\x04\x00\x00", payload=udp(tagged(next(n))))),
        "exceptions.ip_options", {"slow_forwarded": 1}, crosses=True)
    add("option length 0", eth(ip4("192.0.2.31", IP_H2, opts=b"\x07\x00\x04\x00",
                                   payload=udp(b"x"))),
        "exceptions.ip_options", {"ip_options_bad": 1, "icmp_param_problem": 1})
    add("option length past the header", eth(ip4("192.0.2.32", IP_H2, opts=b"\x07\x09\x04\x00",
                                                 payload=udp(b"x"))),
        "exceptions.ip_options", {"ip_options_bad": 1, "icmp_param_problem": 1})
    add("option length 1", eth(ip4("192.0.2.33", IP_H2, opts=b"\x83\x01\x00\x00",
                                   payload=udp(b"x"))),
        "exceptions.ip_options", {"ip_options_bad": 1, "icmp_param_problem": 1})
    add("record route pointer 3", eth(ip4("192.0.2.34", IP_H2,
                                          opts=b"\x07\x07\x03" + bytes(4) + b"\x00",
                                          payload=udp(b"x"))),
        "exceptions.ip_options", {"ip_options_bad": 1, "icmp_param_problem": 1})
    add("timestamp with pointer 2", eth(ip4("192.0.2.35", IP_H2,
                                            opts=b"\x44\x08\x02\x00" + bytes(4),
                                            payload=udp(b"x"))),
        "exceptions.ip_options", {"ip_options_bad": 1, "icmp_param_problem": 1})
    add("two record route options", eth(ip4("192.0.2.36", IP_H2,
                                            opts=(b"\x07\x07\x04" + bytes(4)) * 2 + b"\x00\x00",
                                            payload=udp(b"x"))),
        "exceptions.ip_options", {"ip_options_bad": 1, "icmp_param_problem": 1})
    add("loose source route (not honoured)",
        eth(ip4("192.0.2.37", IP_H2, opts=b"\x83\x07\x04" + a4("10.0.2.9") + b"\x00",
                payload=udp(b"x"))), "exceptions.ip_options", {"source_routed": 1})
    add("strict source route (not honoured)",
        eth(ip4("192.0.2.38", IP_H2, opts=b"\x89\x07\x04" + a4("10.0.2.9") + b"\x00",
                payload=udp(b"x"))), "exceptions.ip_options", {"source_routed": 1})
    # --- fragments and MTU (p1's MTU is 1280, IPv6's least) --------------------------
    add("first fragment (MF)", eth(ip4(IP_H1, IP_H2, frag=0x2000, payload=udp(tagged(next(n))))),
        "forwarded", crosses=True)
    add("DF, 1400 bytes for p1's MTU 1280",
        eth(ip4("192.0.2.41", IP_H2, frag=0x4000, payload=udp(b"x", size=1372))),
        "exceptions.mtu_exceeded", {"icmp_frag_needed": 1})
    add("no DF, 1400 bytes: fragmented",
        eth(ip4(IP_H1, IP_H2, payload=udp(tagged(next(n)), size=1372))),
        "exceptions.mtu_exceeded", {"fragmented": 1}, crosses=True)
    # --- ICMP to the router ----------------------------------------------------------
    add("echo request to the router",
        eth(ip4(IP_H1, IP_R0, 1, icmp4(8, 0, b"\x00\x01\x00\x01", b"ping"))),
        "exceptions.local", {"echo_replies": 1})
    add("echo request with a bad ICMP checksum",
        eth(ip4(IP_H1, IP_R0, 1, icmp4(8, 0, b"\x00\x01\x00\x02", b"ping", bad=True))),
        "exceptions.local", {"echo_invalid": 1})
    add("ICMP of 3 bytes to the router", eth(ip4(IP_H1, IP_R0, 1, b"\x08\x00\x00")),
        "exceptions.local", {"echo_invalid": 1})
    add("echo request to p0's subnet broadcast (broadcast_echo off)",
        eth(ip4(IP_H1, "10.0.1.255", 1, icmp4(8, 0, b"\x00\x01\x00\x03")), dst=BC),
        "exceptions.local", {"echo_broadcast_ignored": 1})
    add("UDP to the router's address",
        eth(ip4(IP_H1, IP_R0, payload=udp(b"x", dst=IP_R0))), "exceptions.local",
        {"hs.to_kernel": 1})
    # --- IPv6 (RFC 8200, RFC 4291) ---------------------------------------------------
    add("IPv6 to h2", eth(ip6(V6_H1, V6_H2, payload=udp6(tagged(next(n)))), 0x86dd), "forwarded",
        crosses=True)
    add("IPv6 header cut after 20 bytes", eth(ip6(V6_H1, V6_H2, payload=udp6(b"x"))[:20], 0x86dd),
        "drops.runt")
    add("IPv6 version 4 under the IPv6 EtherType",
        eth(ip6(V6_H1, V6_H2, payload=udp6(b"x"), ver=4), 0x86dd), "drops.bad_header")
    add("IPv6 payload length past the frame",
        eth(ip6(V6_H1, V6_H2, payload=udp6(b"x"), plen=900), 0x86dd), "drops.bad_length")
    add("IPv6 source multicast", eth(ip6("ff02::1", V6_H2, payload=udp6(b"x")), 0x86dd),
        "drops.martian")
    add("IPv6 destination ::1", eth(ip6(V6_H1, "::1", payload=udp6(b"x")), 0x86dd),
        "drops.martian")
    add("IPv6 source ::1", eth(ip6("::1", V6_H2, payload=udp6(b"x")), 0x86dd), "drops.martian")
    add("IPv6 hop limit 1", eth(ip6("2001:db8:1::21", V6_H2, payload=udp6(b"x"), hlim=1), 0x86dd),
        "exceptions.ttl_expired", {"ipv6.time_exceeded": 1})
    add("IPv6 no route", eth(ip6("2001:db8:1::22", "2001:db8:99::1", payload=udp6(b"x")), 0x86dd),
        "exceptions.no_route", {"ipv6.no_route": 1})
    add("IPv6 link-local source to a global destination",
        eth(ip6("fe80::2", V6_H2, payload=udp6(b"x")), 0x86dd), "exceptions.beyond_scope",
        {"ipv6.beyond_scope": 1})
    add("IPv6 hop-by-hop options", eth(ip6(V6_H1, V6_H2, 0, b"\x11\x00\x01\x04\x00\x00\x00\x00"
                                           + udp6(tagged(next(n)))), 0x86dd),
        "exceptions.ip_options", {"ipv6.slow_forwarded": 1}, crosses=True)
    add("IPv6 hop-by-hop header past the packet",
        eth(ip6("2001:db8:1::23", V6_H2, 0, b"\x11\x05\x01\x04\x00\x00\x00\x00"), 0x86dd),
        "exceptions.ip_options", {"ipv6.param_problem": 1})
    add("IPv6 hop-by-hop option 0x80 (discard and tell)",
        eth(ip6("2001:db8:1::24", V6_H2, 0, b"\x11\x00\x80\x04\x00\x00\x00\x00" + udp6(b"x")),
            0x86dd), "exceptions.ip_options", {"ipv6.param_problem": 1})
    add("echo request to the router (IPv6)",
        eth(ip6(V6_H1, V6_R0, 58, icmp6(V6_H1, V6_R0, 128, 0, b"\x00\x01\x00\x01")), 0x86dd),
        "exceptions.local", {"ipv6.echo_replies": 1})
    add("echo request with a bad checksum (IPv6)",
        eth(ip6(V6_H1, V6_R0, 58, icmp6(V6_H1, V6_R0, 128, 0, b"\x00\x01\x00\x02", bad=True)),
            0x86dd), "exceptions.local", {"ipv6.echo_invalid": 1})
    # --- NDP (RFC 4861 7.1) ------------------------------------------------------------
    add("neighbour solicitation for the router", ndp_ns(V6_R0), "exceptions.local",
        {"ipv6.ns_in": 1, "ipv6.na_sent": 1})
    add("neighbour solicitation with hop limit 64", ndp_ns(V6_R0, hlim=64), "exceptions.local",
        {"ipv6.ndp_invalid": 1})
    add("neighbour solicitation with a bad checksum", ndp_ns(V6_R0, bad=True),
        "exceptions.local", {"ipv6.ndp_invalid": 1})
    add("neighbour solicitation for a multicast target", ndp_ns("ff02::1", dst="ff02::1:ff00:1"),
        "exceptions.local", {"ipv6.ndp_invalid": 1})
    add("solicitation from :: with a link-layer option", ndp_ns(V6_R0, src="::"),
        "exceptions.local", {"ipv6.ndp_invalid": 1})
    rs = icmp6("fe80::2", "ff02::2", 133, 0, bytes(4))
    add("router solicitation", eth(ip6("fe80::2", "ff02::2", 58, rs, hlim=255), 0x86dd,
                                   dst=bytes.fromhex("333300000002")),
        "exceptions.local", {"ipv6.rs_in": 1})
    # --- 802.1Q and VRFs (p0.100: red, p0.200: blue, same subnet as p0) ------------
    v4 = lambda src, dst, tag=b"x", **kw: eth(ip4(src, dst, payload=udp(tag, src, dst), **kw))
    add("VLAN 5, for which p0 has no interface", dot1q(5, v4(IP_H1, IP_H2)), "drops.unknown_vlan")
    add("VLAN 4095 (reserved)", dot1q(4095, v4(IP_H1, IP_H2)), "drops.unknown_vlan")
    add("priority tag (VLAN 0): p0's own frame, forwarded untagged",
        dot1q(0, v4(IP_H1, IP_H2, tagged(next(n)))), "forwarded", crosses=True)
    add("priority tag with priority 6: forwarded untagged",
        dot1q(0, v4(IP_H1, IP_H2, tagged(next(n))), pcp=6), "forwarded", crosses=True)
    add("802.1ad S-tag (0x88a8) alone: no interface's", dot1q(100, v4(IP_H1, IP_H2), tpid=0x88a8),
        "drops.unknown_vlan")
    add("802.1Q tag cut short (no EtherType after it): for no interface",
        R0 + M1 + b"\x81\x00\x00\x64", "drops.unknown_vlan")
    add("VLAN 100 inside VLAN 100 (double tag): a pair for no QinQ interface",
        dot1q(100, dot1q(100, v4(IP_H1, IP_H2))), "drops.unknown_vlan")
    add("VLAN 100 to another MAC", dot1q(100, eth(ip4(IP_H1, IP_H2, payload=udp(b"x")),
                                                  dst=OTHER)),
        "p0.100:drops.other_host")
    add("VLAN 100 with a bad header checksum", dot1q(100, v4(IP_H1, IP_H2, bad_csum=True)),
        "p0.100:drops.bad_checksum")
    add("VLAN 100 (red) to red's route: back out p0.100, tagged 100",
        dot1q(100, v4(IP_H1, "198.51.100.7", tagged(next(n)))), "p0.100:forwarded",
        crosses=("h1", 100))
    add("untagged to red's route: no route in the default VRF",
        v4("192.0.2.51", "198.51.100.8"), "exceptions.no_route", {"icmp_net_unreachable": 1})
    # Its ICMP error counted before the next case reads the counters (it
    # was once counted late, in the next case's window).
    add("VLAN 200 (blue) to red's route: no route in blue",
        dot1q(200, v4(IP_H1, "198.51.100.9")), "p0.200:exceptions.no_route",
        {"icmp_net_unreachable": 1})
    add("VLAN 100 (red) to h2: the default VRF's subnet is not red's",
        dot1q(100, v4(IP_H1, IP_H2)), "p0.100:exceptions.no_route", {"icmp_net_unreachable": 1})
    add("VLAN 100 (red) to the default VRF's route 192.0.2.0/24",
        dot1q(100, v4(IP_H1, "192.0.2.99")), "p0.100:exceptions.no_route",
        {"icmp_net_unreachable": 1})
    add("ARP request in VLAN 100 for the router", dot1q(100, arp()), "p0.100:exceptions.arp",
        {"arp_requests_in": 1, "arp_replies_sent": 1})
    add("echo request in VLAN 100 to the router",
        dot1q(100, eth(ip4(IP_H1, IP_R0, 1, icmp4(8, 0, b"\x00\x01\x00\x09", b"ping")))),
        "p0.100:exceptions.local", {"echo_replies": 1})
    add("echo request in VLAN 200 to the router",
        dot1q(200, eth(ip4(IP_H1, IP_R0, 1, icmp4(8, 0, b"\x00\x01\x00\x0a", b"ping")))),
        "p0.200:exceptions.local")
    add("IPv6 in VLAN 100: red has no IPv6 route, not even back to the source",
        dot1q(100, eth(ip6(V6_H1, V6_H2, payload=udp6(b"x")), 0x86dd)),
        "p0.100:exceptions.no_route", {"ipv6.unroutable": 1})
    add("IPv6 in VLAN 200, whose MTU 1000 is below IPv6's 1280 (RFC 8200 5)",
        dot1q(200, eth(ip6(V6_H1, V6_H2, payload=udp6(b"x")), 0x86dd)),
        "p0.200:drops.unsupported_l3")
    # --- QinQ (p0.100.7: 802.1ad 100, then 7; 10.0.7.1/24, default VRF) ----------
    qinq = lambda outer, inner, frame, tpid=0x88a8: dot1q(outer, dot1q(inner, frame), tpid=tpid)
    add("QinQ 100.7 to h2: forwarded untagged",
        qinq(100, 7, v4(IP_H1, IP_H2, tagged(next(n)))), "p0.100.7:forwarded", crosses=True)
    add("ARP request in QinQ 100.7 for the router",
        qinq(100, 7, arp(sip="10.0.7.2", tip="10.0.7.1")), "p0.100.7:exceptions.arp",
        {"arp_requests_in": 1, "arp_replies_sent": 1})
    add("IPv6 in QinQ 100.7, whose MTU 1000 is below IPv6's 1280 (RFC 8200 5)",
        qinq(100, 7, eth(ip6(V6_H1, V6_H2, payload=udp6(b"x")), 0x86dd)),
        "p0.100.7:drops.unsupported_l3")
    add("QinQ 100.7 to another MAC",
        qinq(100, 7, eth(ip4(IP_H1, IP_H2, payload=udp(b"x")), dst=OTHER)),
        "p0.100.7:drops.other_host")
    add("QinQ 100.8: a pair for no interface", qinq(100, 8, v4(IP_H1, IP_H2)),
        "drops.unknown_vlan")
    add("QinQ 100.7 with an 0x8100 outer tag: p0.100.7's is 802.1ad",
        qinq(100, 7, v4(IP_H1, IP_H2), tpid=0x8100), "drops.unknown_vlan")
    add("QinQ inner priority tag (100.0)", qinq(100, 0, v4(IP_H1, IP_H2)), "drops.unknown_vlan")
    add("QinQ inner tag cut short", R0 + M1 + b"\x88\xa8\x00\x64\x81\x00\x00\x07",
        "drops.unknown_vlan")
    # --- what p1's input ACL "mal-in" sees (malformed.sh binds it) ----------------
    # Its rules need L4 fields, so a packet whose L4 header cannot be read
    # is dropped (docs/security.md); the ACL runs before the screen, so what
    # it cannot parse as IP at all it leaves to the screen.
    def p1(l3, typ=0x0800):
        return eth(l3, typ, dst=R1, src=M2)

    def tcp(dport, flags=0x02):
        return struct.pack("!HHIIBBHHH", 40000, dport, 1, 0, 5 << 4, flags, 8192, 0, 0)

    def opts6(nh, size=8):
        return struct.pack("!BBBB", nh, size // 8 - 1, 1, size - 4) + bytes(size - 4)

    def frag6(nh, offset, more):
        return struct.pack("!BBHI", nh, 0, offset << 3 | more, 0x77)

    add("ACL: TCP 23 to h1 (denied)", p1(ip4(IP_H2, IP_H1, 6, tcp(23))), "drops.acl", via="p1")
    add("ACL: IPv6 TCP 23 behind hop-by-hop and destination options (denied)",
        p1(ip6(V6_H2, V6_H1, 0, opts6(60) + opts6(6, 16) + tcp(23)), 0x86dd), "drops.acl",
        via="p1")
    add("ACL: IPv6 UDP behind 9 destination options headers (past the bound of 8)",
        p1(ip6(V6_H2, V6_H1, 60, b"".join(opts6(60) for _ in range(8)) + opts6(17) +
               udp6(b"x")), 0x86dd), "drops.acl", via="p1")
    add("ACL: IPv6 destination options header longer than the packet",
        p1(ip6(V6_H2, V6_H1, 60, struct.pack("!BBBB", 17, 4, 1, 2) + bytes(4)), 0x86dd),
        "drops.acl", via="p1")
    add("ACL: IPv6 first fragment without the whole header chain (RFC 7112)",
        p1(ip6(V6_H2, V6_H1, 44, frag6(60, 0, 1) + opts6(6)), 0x86dd), "drops.acl", via="p1")
    add("ACL: IPv6 first fragment with TCP cut to 8 bytes",
        p1(ip6(V6_H2, V6_H1, 44, frag6(6, 0, 1) + tcp(80)[:8]), 0x86dd), "drops.acl", via="p1")
    add("ACL: IPv4 TCP header cut to 8 bytes (RFC 1858)",
        p1(ip4(IP_H2, IP_H1, 6, tcp(80)[:8], frag=0x2000)), "drops.acl", via="p1")
    add("ACL: IPv4 TCP fragment at offset 8 bytes (RFC 1858 3.4)",
        p1(ip4(IP_H2, IP_H1, 6, bytes(24), frag=1)), "drops.acl", via="p1")
    add("ACL: UDP header cut to 4 bytes", p1(ip4(IP_H2, IP_H1, 17, tcp(53)[:4])), "drops.acl",
        via="p1")
    add("ACL: ICMP cut to 2 bytes", p1(ip4(IP_H2, IP_H1, 1, b"\x08\x00")), "drops.acl",
        via="p1")
    add("ACL: IPv4 header length past the frame: left to the screen",
        p1(ip4(IP_H2, IP_H1, 17, b"", ihl=15)), "drops.runt", via="p1")
    add("ACL: IPv4 non-first UDP fragment (no ports: the port-23 rule cannot match)",
        p1(ip4(IP_H2, IP_H1, 17, tagged(next(n)) + bytes(16), frag=4)), "forwarded",
        crosses=("h1", None), via="p1")
    add("ACL: IPv4 UDP to h1 that no rule denies",
        p1(ip4(IP_H2, IP_H1, 17, udp(tagged(next(n))))), "forwarded", crosses=("h1", None),
        via="p1")
    return f


class Stats:
    def __init__(self, path):
        self.s = socket.socket(socket.AF_UNIX)
        self.s.connect(path)
        self.f = self.s.makefile("rwb")
        self.i = 0

    def get(self):
        self.i += 1
        self.f.write(json.dumps({"jsonrpc": "2.0", "id": self.i, "method": "stats.get"})
                     .encode() + b"\n")
        self.f.flush()
        return json.loads(self.f.readline())["result"]


def flat(s, port):
    """The counters a frame entering @port may move: the port's, its VLAN
    interfaces' ("IFACE:..."), and the exception path's. "rx": what the
    port and its VLAN interfaces received, each frame counted on one."""
    out = {"rx": 0}
    for p in s["ports"]:
        if p["name"] == port:
            pre = ""
        elif p.get("parent") == port:
            pre = p["name"] + ":"
        else:
            continue
        out["rx"] += p["rx"]
        out[pre + "forwarded"] = p["forwarded"]
        out.update({pre + "drops." + k: v for k, v in p["drops"].items()})
        out.update({pre + "exceptions." + k: v for k, v in p["exceptions"].items()})
    out.update({"ep.hs." + k: v for k, v in s["host_stack"].items() if isinstance(v, int)})
    ep = s["exception_path"]
    out.update({"ep." + k: v for k, v in ep.items() if isinstance(v, int)})
    out.update({"ep.ipv6." + k: v for k, v in ep.get("ipv6", {}).items() if isinstance(v, int)})
    return out


libc = ctypes.CDLL(None, use_errno=True)


def in_netns(name, fn):
    here = os.open("/proc/self/ns/net", os.O_RDONLY)
    there = os.open("/var/run/netns/" + name, os.O_RDONLY)
    try:
        if libc.setns(there, CLONE_NEWNET) != 0:
            raise OSError(ctypes.get_errno(), "setns " + name)
        return fn()
    finally:
        libc.setns(here, CLONE_NEWNET)
        os.close(here)
        os.close(there)


SOL_PACKET, PACKET_AUXDATA, TP_STATUS_VLAN_VALID = 263, 8, 1 << 4


class Auxdata(ctypes.Structure):
    _fields_ = [("tp_status", ctypes.c_uint32), ("tp_len", ctypes.c_uint32),
                ("tp_snaplen", ctypes.c_uint32), ("tp_mac", ctypes.c_uint16),
                ("tp_net", ctypes.c_uint16), ("tp_vlan_tci", ctypes.c_uint16),
                ("tp_vlan_tpid", ctypes.c_uint16)]


def raw(ifname):
    return sniffer(ifname, auxdata=True)


def recv_vid(s):
    """One received frame: (data, VLAN id or None), or None for our own."""
    data, anc, _, addr = s.recvmsg(65535, socket.CMSG_SPACE(ctypes.sizeof(Auxdata)))
    if addr[2] == PACKET_OUTGOING:
        return None
    vid = None
    for level, kind, cdata in anc:
        if level == SOL_PACKET and kind == PACKET_AUXDATA:
            aux = Auxdata.from_buffer_copy(cdata.ljust(ctypes.sizeof(Auxdata), b"\0"))
            if aux.tp_status & TP_STATUS_VLAN_VALID:
                vid = aux.tp_vlan_tci & 0xfff
    if vid is None and len(data) >= 18 and data[12:14] == b"\x81\x00":
        vid = struct.unpack("!H", data[14:16])[0] & 0xfff
    return data, vid


def main():
    sock, ns1, if1, ns2, if2, mode = sys.argv[1:7]
    fr = frames()
    if mode == "LIST":
        for name, *_ in fr:
            print(name)
        return 0
    tx = {"p0": in_netns(ns1, lambda: raw(if1)), "p1": in_netns(ns2, lambda: raw(if2))}
    rxs = {"h1": in_netns(ns1, lambda: raw(if1)), "h2": in_netns(ns2, lambda: raw(if2))}
    # A listener on h2's UDP port: without it h2's kernel answers each
    # crossing datagram with port unreachable, and Linux copies a record
    # route option into that error, which dpr then slow-forwards from p1
    # while the next probe is being judged.
    def listener():
        u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        u.bind(("0.0.0.0", 5001))
        return u
    # And on h1's, for what p1 sends to h1 (the ACL cases): its port
    # unreachable would carry the marker to h2.
    udp = in_netns(ns2, listener)
    udp1 = in_netns(ns1, listener)
    got, stop = set(), []

    # (host, VLAN id, marker) of every marked frame a host received.
    def sniff(host, rx):
        rx.settimeout(0.2)
        while not stop:
            try:
                r = recv_vid(rx)
            except socket.timeout:
                continue
            if r is None:
                continue
            i = r[0].find(b"DPRMAL")
            # To h1, only UDP counts: the host stack's ICMP errors for the
            # marked frames it was given quote their markers.
            if i >= 0 and (host == "h2" or r[0][12:14] == b"\x08\x00" and r[0][23] == 17):
                got.add((host, r[1], r[0][i:i + 9]))
    threads = [threading.Thread(target=sniff, args=(h, rx), daemon=True) for h, rx in rxs.items()]
    for t in threads:
        t.start()
    st = Stats(sock)
    bad = 0
    want_tags = set()
    for name, frame, worker, ep, crosses, via in fr:
        before = flat(st.get(), via)
        tx[via].send(frame)
        deadline = time.monotonic() + 5
        want = {worker: 1}
        want.update({"ep." + k: v for k, v in ep.items()})
        while True:  # until p0 received it and the exception path is done
            now = flat(st.get(), via)
            d = {k: now.get(k, 0) - before.get(k, 0) for k in set(now) | set(before)}
            if d["rx"] >= 1 and all(d.get(k, 0) >= v for k, v in want.items()):
                break
            if time.monotonic() > deadline:
                break
        moved = {k: v for k, v in d.items() if v and k != "rx" and not k.startswith("ep.")}
        why = []
        if d["rx"] != 1:
            why.append("%s received %d frames" % (via, d["rx"]))
        if moved != {worker: 1}:
            why.append("worker counters moved: %s, want {%s: 1}" % (moved, worker))
        for k, v in want.items():
            if k.startswith("ep.") and d.get(k, 0) != v:
                why.append("%s moved by %d, want %d" % (k, d.get(k, 0), v))
        tag = frame.find(b"DPRMAL")
        if tag >= 0 and crosses:
            want_tags.add(crosses + (frame[tag:tag + 9],))
        if why:
            bad += 1
            epm = {k: v for k, v in d.items() if v and k.startswith("ep.")}
            print("not ok - %s: %s (exception path: %s)" % (name, "; ".join(why), epm))
        else:
            print("ok - %s" % name)
    # What crossed: every tag meant to, and none other, once the last has landed.
    deadline = time.monotonic() + 5
    while not want_tags <= got and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.3)
    stop.append(1)
    for t in threads:
        t.join()
    udp.close()
    udp1.close()
    if got == want_tags:
        print("ok - the hosts received exactly the %d frames meant to cross, with their tags"
              % len(want_tags))
    else:
        bad += 1
        print("not ok - h2 received %s, want %s" % (sorted(got, key=str), sorted(want_tags, key=str)))
    print("# %d frames, %d not as expected" % (len(fr), bad))
    # The shell counts ok/not ok lines: this last one says the run ended
    # (a crash before it is a failure there, not fewer checks).
    print("END %d" % len(fr))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Neighbour messages a host on the link could send, crafted, and what the
host sees: the probes of neighbours.sh, with nothing but the standard
library.

  neighprobe.py arp IFACE --op request|reply --src-mac MAC --sip IP --tip IP
                [--sha MAC] [--tha MAC] [--dst-mac MAC]
        one ARP frame (sha defaults to src-mac; dst-mac to broadcast for a
        request, else required)
  neighprobe.py na IFACE --src-mac MAC --src IP6 --dst IP6 --dst-mac MAC
                --target IP6 --tlla MAC [--solicited] [--override]
        one neighbour advertisement (RFC 4861 4.4), hop limit 255
  neighprobe.py listen IFACE OUTFILE
        until SIGTERM, one line per frame IFACE receives (not what it
        sends), flushed as it comes (OUTFILE.ready once it listens):
          arp OP DST-MAC SRC-MAC SHA SIP THA TIP
          ns DST-MAC SRC-MAC IP6-DST TARGET
          na DST-MAC SRC-MAC IP6-DST TARGET FLAGS
          other DST-MAC SRC-MAC ETHERTYPE
  neighprobe.py seq-send DST PORT COUNT [--first N]
        COUNT UDP datagrams to DST:PORT, each carrying its number (N, N+1,
        ...; N is 0 unless given), from one socket
  neighprobe.py seq-recv PORT OUTFILE
        until SIGTERM, the numbers of the datagrams to PORT in the order
        they came, one a line, flushed as they come (OUTFILE.ready once
        it listens)
"""
import argparse
import ipaddress
import os
import signal
import socket
import struct
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from traffic import sniffer  # noqa: E402

ETH_P_ALL = 0x0003
PACKET_OUTGOING = 4


def mac(m):
    return bytes(int(x, 16) for x in m.split(":"))


def mac_s(b):
    return ":".join("%02x" % x for x in b)


def csum(data):
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def send(iface, frame):
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    s.bind((iface, 0))
    s.send(frame)
    s.close()


def arp(a):
    op = 1 if a.op == "request" else 2
    dst = mac(a.dst_mac) if a.dst_mac else b"\xff" * 6
    sha = mac(a.sha or a.src_mac)
    tha = mac(a.tha) if a.tha else b"\0" * 6
    body = struct.pack("!HHBBH6s4s6s4s", 1, 0x0800, 6, 4, op, sha,
                       socket.inet_aton(a.sip), tha, socket.inet_aton(a.tip))
    send(a.iface, dst + mac(a.src_mac) + b"\x08\x06" + body + b"\0" * 18)


def na(a):
    src = ipaddress.IPv6Address(a.src).packed
    dst = ipaddress.IPv6Address(a.dst).packed
    flags = (0x40 if a.solicited else 0) | (0x20 if a.override else 0)
    icmp = struct.pack("!BBHB3x16s", 136, 0, 0, flags,
                       ipaddress.IPv6Address(a.target).packed)
    icmp += bytes([2, 1]) + mac(a.tlla)
    pseudo = src + dst + struct.pack("!I3xB", len(icmp), 58)
    c = csum(pseudo + icmp)
    icmp = icmp[:2] + struct.pack("!H", c) + icmp[4:]
    ip6 = struct.pack("!IHBB", 6 << 28, len(icmp), 58, 255) + src + dst
    send(a.iface, mac(a.dst_mac) + mac(a.src_mac) + b"\x86\xdd" + ip6 + icmp)


def describe(f):
    dst, src, typ = mac_s(f[0:6]), mac_s(f[6:12]), struct.unpack("!H", f[12:14])[0]
    if typ == 0x0806 and len(f) >= 42:
        op, sha, sip, tha, tip = struct.unpack("!6xH6s4s6s4s", f[14:42])
        return "arp %d %s %s %s %s %s %s" % (op, dst, src, mac_s(sha), socket.inet_ntoa(sip),
                                             mac_s(tha), socket.inet_ntoa(tip))
    if typ == 0x86DD and len(f) >= 54 + 24 and f[20] == 58 and f[54] in (135, 136):
        d6 = str(ipaddress.IPv6Address(f[38:54]))
        target = str(ipaddress.IPv6Address(f[62:78]))
        if f[54] == 135:
            return "ns %s %s %s %s" % (dst, src, d6, target)
        return "na %s %s %s %s %02x" % (dst, src, d6, target, f[58])
    return "other %s %s %04x" % (dst, src, typ)


def stop_on_term():
    signal.signal(signal.SIGTERM, lambda *_: os._exit(0))


def listen(a):
    s = sniffer(a.iface)
    stop_on_term()
    open(a.outfile + ".ready", "w").close()
    with open(a.outfile, "w", buffering=1) as out:
        while True:
            try:
                f, addr = s.recvfrom(65535)
            except OSError:
                # The link went down (ENETDOWN): go on listening.
                time.sleep(0.05)
                continue
            if addr[2] != PACKET_OUTGOING:
                out.write(describe(f) + "\n")


def seq_send(a):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    for i in range(a.first, a.first + a.count):
        s.sendto(struct.pack("!I", i) + b"dpr-order" * 4, (a.dst, a.port))


def seq_recv(a):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, getattr(socket, "SO_RCVBUFFORCE", 33), 8 << 20)
    s.bind(("0.0.0.0", a.port))
    stop_on_term()
    open(a.outfile + ".ready", "w").close()
    with open(a.outfile, "w", buffering=1) as out:
        while True:
            d = s.recv(2048)
            if len(d) >= 4:
                out.write("%d\n" % struct.unpack("!I", d[:4]))


def main():
    p = argparse.ArgumentParser()
    sub = p.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("arp")
    s.add_argument("iface")
    s.add_argument("--op", choices=("request", "reply"), required=True)
    s.add_argument("--src-mac", required=True)
    s.add_argument("--sha")
    s.add_argument("--sip", required=True)
    s.add_argument("--tha")
    s.add_argument("--tip", required=True)
    s.add_argument("--dst-mac")
    s.set_defaults(fn=arp)
    s = sub.add_parser("na")
    s.add_argument("iface")
    s.add_argument("--src-mac", required=True)
    s.add_argument("--src", required=True)
    s.add_argument("--dst", required=True)
    s.add_argument("--dst-mac", required=True)
    s.add_argument("--target", required=True)
    s.add_argument("--tlla", required=True)
    s.add_argument("--solicited", action="store_true")
    s.add_argument("--override", action="store_true")
    s.set_defaults(fn=na)
    s = sub.add_parser("listen")
    s.add_argument("iface")
    s.add_argument("outfile")
    s.set_defaults(fn=listen)
    s = sub.add_parser("seq-send")
    s.add_argument("dst")
    s.add_argument("port", type=int)
    s.add_argument("count", type=int)
    s.add_argument("--first", type=int, default=0)
    s.set_defaults(fn=seq_send)
    s = sub.add_parser("seq-recv")
    s.add_argument("port", type=int)
    s.add_argument("outfile")
    s.set_defaults(fn=seq_recv)
    a = p.parse_args()
    if a.cmd == "arp" and a.op == "reply" and not a.dst_mac:
        p.error("arp --op reply needs --dst-mac")
    a.fn(a)


if __name__ == "__main__":
    main()

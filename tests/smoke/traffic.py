#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Traffic for smoke tests, with nothing but the standard library.

  traffic.py udp-send DST PORT COUNT [--flows N] [--ttl T] [--gap SECONDS]
                                       DST is an IPv4 or IPv6 address (--ttl
                                       sets the hop limit for IPv6)
  traffic.py udp-recv PORT OUTFILE [--ipv6]
                                       counts datagrams until SIGTERM; OUTFILE
                                       holds "<count> <distinct source ports>";
                                       IPv4 unless --ipv6 (then IPv6 only)
  traffic.py raw-send IFACE DST_MAC SRC_MAC SRC_IP DST_IP COUNT
                      [--ttl T] [--bad-checksum] [--dport P] [--gap S]
                                       crafted IPv4/UDP frames on a link
"""
import argparse
import os
import signal
import socket
import struct
import sys
import time


def udp_send(a):
    v6 = ":" in a.dst
    socks = []
    for _ in range(a.flows):
        s = socket.socket(socket.AF_INET6 if v6 else socket.AF_INET, socket.SOCK_DGRAM)
        if a.ttl and v6:
            s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_UNICAST_HOPS, a.ttl)
        elif a.ttl:
            s.setsockopt(socket.IPPROTO_IP, socket.IP_TTL, a.ttl)
        s.bind(("::" if v6 else "0.0.0.0", 0))
        socks.append(s)
    payload = b"dpr-smoke" * 4
    for i in range(a.count):
        socks[i % a.flows].sendto(payload, (a.dst, a.port))
        if a.gap:
            time.sleep(a.gap)


def udp_recv(a):
    s = socket.socket(socket.AF_INET6 if a.ipv6 else socket.AF_INET, socket.SOCK_DGRAM)
    if a.ipv6:
        s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
    # SO_RCVBUFFORCE (root) goes past net.core.rmem_max: a receiver the
    # scheduler leaves waiting must not lose what dpr delivered.
    s.setsockopt(socket.SOL_SOCKET, getattr(socket, "SO_RCVBUFFORCE", 33), 32 << 20)
    s.bind(("::" if a.ipv6 else "0.0.0.0", a.port))
    count, ports = 0, set()
    stop = []

    def save():
        # Rewritten after every burst so the count survives however the
        # process ends.
        with open(a.outfile + ".tmp", "w") as f:
            f.write("%d %d\n" % (count, len(ports)))
        os.replace(a.outfile + ".tmp", a.outfile)

    def drain(limit):
        # Whatever else the kernel has queued, without waiting (at most
        # limit datagrams: a flood must not keep it from saving, or ending).
        nonlocal count
        s.setblocking(False)
        try:
            for _ in range(limit):
                _, src = s.recvfrom(65536)
                count += 1
                ports.add(src[1])
        except BlockingIOError:
            pass
        s.settimeout(0.1)

    # SIGTERM ends the loop, and what the kernel already queued on the socket
    # (dpr delivered it; a receiver the scheduler left waiting just has not
    # read it yet) is counted before the last save.
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
    s.settimeout(0.1)
    save()
    with open(a.outfile + ".ready", "w"):
        pass
    while not stop:
        try:
            _, src = s.recvfrom(65536)
        except socket.timeout:
            continue
        count += 1
        ports.add(src[1])
        drain(4096)
        save()
    drain(1 << 20)
    save()


ETH_P_ALL = 0x0003
SOL_PACKET, PACKET_IGNORE_OUTGOING = 263, 23


def sniffer(iface, auxdata=False):
    """A packet socket that receives every frame that arrives on iface, and
    not the host's own: with them queued too, a flood the host sends fills
    the socket's buffer and the replies that arrive meanwhile are dropped
    (acl_paths: 0 of 10 ICMP errors seen under the full suite's load)."""
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
    s.setsockopt(SOL_PACKET, PACKET_IGNORE_OUTGOING, 1)
    # SO_RCVBUFFORCE (root) goes past net.core.rmem_max.
    s.setsockopt(socket.SOL_SOCKET, getattr(socket, "SO_RCVBUFFORCE", 33), 8 << 20)
    if auxdata:
        s.setsockopt(SOL_PACKET, 8, 1)  # PACKET_AUXDATA: a tag the kernel took off
    s.bind((iface, 0))
    return s


def csum(b):
    if len(b) % 2:
        b += b"\0"
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def raw_send(a):
    mac = lambda m: bytes(int(x, 16) for x in m.split(":"))
    payload = b"dpr-smoke-raw"
    udp = struct.pack("!HHHH", 40000, a.dport, 8 + len(payload), 0) + payload
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), 1, 0, a.ttl,
                     socket.IPPROTO_UDP, 0, socket.inet_aton(a.src_ip),
                     socket.inet_aton(a.dst_ip))
    c = csum(ip)
    if a.bad_checksum:
        c ^= 0x5A5A
    ip = ip[:10] + struct.pack("!H", c) + ip[12:]
    frame = mac(a.dst_mac) + mac(a.src_mac) + b"\x08\x00" + ip + udp
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    s.bind((a.iface, 0))
    for _ in range(a.count):
        s.send(frame)
        if a.gap:
            time.sleep(a.gap)


def main():
    p = argparse.ArgumentParser()
    sub = p.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("udp-send")
    s.add_argument("dst")
    s.add_argument("port", type=int)
    s.add_argument("count", type=int)
    s.add_argument("--flows", type=int, default=1)
    s.add_argument("--ttl", type=int, default=0)
    s.add_argument("--gap", type=float, default=0.0)
    s = sub.add_parser("udp-recv")
    s.add_argument("port", type=int)
    s.add_argument("outfile")
    s.add_argument("--ipv6", action="store_true")
    s = sub.add_parser("raw-send")
    for n in ("iface", "dst_mac", "src_mac", "src_ip", "dst_ip"):
        s.add_argument(n)
    s.add_argument("count", type=int)
    s.add_argument("--ttl", type=int, default=64)
    s.add_argument("--bad-checksum", action="store_true")
    s.add_argument("--dport", type=int, default=9999)
    s.add_argument("--gap", type=float, default=0.001)
    a = p.parse_args()
    {"udp-send": udp_send, "udp-recv": udp_recv, "raw-send": raw_send}[a.cmd](a)


if __name__ == "__main__":
    main()

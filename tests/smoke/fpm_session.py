#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""One FPM connection that stays open, as zebra's does, for smoke tests;
standard library only.

  fpm_session.py PORT < COMMANDS

Connects to 127.0.0.1:PORT and sends one FPM frame per command line read
from standard input, until end of input (then it closes the connection):

  add PREFIX dev IFINDEX     an interface route (RTA_OIF only, no gateway):
                             what zebra sends for a connected subnet
  add PREFIX via GW IFINDEX  a gateway route through that interface; an
                             IPv6 GW for an IPv4 PREFIX goes as RTA_VIA
                             (RFC 8950, the kernel's way)
  add PREFIX gw GW IFINDEX   the same with GW in RTA_GATEWAY whatever its
                             family (16 bytes for an IPv6 one)
  del PREFIX                 RTM_DELROUTE of PREFIX

Routes are of protocol zebra (11), table 254, IPv4 or IPv6 by the prefix.
Prints "sent N" after each frame, flushed, so a caller can follow along.
"""
import socket
import struct
import sys

RTM_NEWROUTE, RTM_DELROUTE = 24, 25
RTA_DST, RTA_OIF, RTA_GATEWAY, RTA_TABLE, RTA_VIA = 1, 4, 5, 15, 18
RTPROT_ZEBRA, RTN_UNICAST, RT_SCOPE_UNIVERSE, RT_SCOPE_LINK = 11, 1, 0, 253


def attr(kind, payload):
    a = struct.pack("=HH", 4 + len(payload), kind) + payload
    return a + b"\0" * (-len(a) % 4)


def addr(text):
    fam = socket.AF_INET6 if ":" in text else socket.AF_INET
    return fam, socket.inet_pton(fam, text)


def message(words, seq):
    op, prefix = words[0], words[1]
    net, plen = prefix.split("/")
    fam, dst = addr(net)
    body_attrs = attr(RTA_DST, dst) + attr(RTA_TABLE, struct.pack("=I", 254))
    scope = RT_SCOPE_UNIVERSE
    if op == "add" and words[2] == "dev":
        body_attrs += attr(RTA_OIF, struct.pack("=I", int(words[3])))
        scope = RT_SCOPE_LINK
    elif op == "add" and words[2] in ("via", "gw"):
        gfam, gw = addr(words[3])
        if words[2] == "via" and gfam != fam:
            body_attrs += attr(RTA_VIA, struct.pack("=H", gfam) + gw)
        else:
            body_attrs += attr(RTA_GATEWAY, gw)
        body_attrs += attr(RTA_OIF, struct.pack("=I", int(words[4])))
    elif op != "del":
        sys.exit("unknown command: " + " ".join(words))
    rtm = struct.pack("=BBBBBBBBI", fam, int(plen), 0, 0, 254, RTPROT_ZEBRA, scope,
                      RTN_UNICAST, 0)
    kind = RTM_NEWROUTE if op == "add" else RTM_DELROUTE
    # NLM_F_REQUEST | NLM_F_CREATE | NLM_F_REPLACE for an add, as zebra sends them
    flags = 0x1 | 0x400 | 0x100 if op == "add" else 0x1
    body = rtm + body_attrs
    return struct.pack("=IHHII", 16 + len(body), kind, flags, seq, 0) + body


def main():
    s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=5)
    n = 0
    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        msg = message(words, n + 1)
        s.sendall(struct.pack("!BBH", 1, 1, 4 + len(msg)) + msg)
        n += 1
        print("sent %d" % n, flush=True)
    s.close()


if __name__ == "__main__":
    main()

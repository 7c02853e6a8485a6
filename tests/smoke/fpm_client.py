#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""A hostile FPM peer for tests/smoke/fpm_abuse.sh, standard library only.

  fpm_client.py PORT CASE [GATEWAY]

One connection per case (but "many"); it sends, then waits (up to 5 s) for
dpr to close the connection, or closes it itself. Routes are RTM_NEWROUTE
messages of protocol static in table 254, via GATEWAY (10.0.2.2 unless
given). Prints one line saying what it sent.

  garbage     4 KiB of random bytes (first byte not FPM version 1)
  version2    a well-formed frame with FPM version 2 (route 10.210.0.0/24)
  midframe    a frame header announcing 1000 bytes, 100 sent (route
              10.211.0.0/24 inside), then the connection closed
  truncated   a frame: route 10.212.0.0/24, then a netlink message whose
              nlmsg_len runs past the frame
  maxroutes   one frame of 65532 bytes (the longest a 16-bit length allows
              with 4-byte alignment): routes 10.200.0.0/24, 10.200.1.0/24...
  unknown     one frame of 65532 bytes: route 10.213.0.0/24 padded with
              attributes of types netlink readers skip
  nonsense    one frame of 65532 bytes: route 10.215.0.0/24, then one for
              10.214.0.0/24 whose attributes are known types of random,
              wrong lengths
  many N      N connections opened and closed at once
  slow        routes 10.216.0.0/24 and 10.217.0.0/24, two frames, one byte
              every 10 ms
  tables SPEC...
              one frame per SPEC "PREFIX,GATEWAY,TABLE[,OIF]": a route in
              that kernel table (RTA_TABLE; a VRF's table id, as zebra
              sends a VRF's routes), through ifindex OIF when given; then
              closes (tests/smoke/vrf_routes.sh)
"""
import random
import socket
import struct
import sys
import time

RTM_NEWROUTE = 24
RTA_DST, RTA_OIF, RTA_GATEWAY, RTA_PRIORITY, RTA_TABLE = 1, 4, 5, 6, 15
RTPROT_STATIC, RTN_UNICAST = 4, 1
MAX_FRAME = 65532


def attr(kind, payload):
    a = struct.pack("=HH", 4 + len(payload), kind) + payload
    return a + b"\0" * (-len(a) % 4)


def route(prefix, gw, extra=b"", prio=None, table=254):
    net, plen = prefix.split("/")
    # Tables past 255 only fit RTA_TABLE (rtm_table RT_TABLE_UNSPEC).
    body = struct.pack("=BBBBBBBBI", socket.AF_INET, int(plen), 0, 0,
                       table if table < 256 else 0, RTPROT_STATIC, 0, RTN_UNICAST, 0)
    body += attr(RTA_DST, socket.inet_aton(net)) + attr(RTA_GATEWAY, socket.inet_aton(gw))
    if table != 254:
        body += attr(RTA_TABLE, struct.pack("=I", table))
    if prio is not None:
        body += attr(RTA_PRIORITY, struct.pack("=I", prio))
    body += extra
    # NLM_F_REQUEST | NLM_F_CREATE | NLM_F_REPLACE, as zebra sends them
    return struct.pack("=IHHII", 16 + len(body), RTM_NEWROUTE, 0x1 | 0x400 | 0x100, 1, 0) + body


def frame(payload, version=1):
    return struct.pack("!BBH", version, 1, 4 + len(payload)) + payload


def max_routes(gw):
    # n plain routes (44 bytes) and b with RTA_PRIORITY (52) filling the
    # frame exactly: 44 a + 52 b = MAX_FRAME - 4.
    need = MAX_FRAME - 4
    b = next(b for b in range(0, 64) if (need - 52 * b) % 44 == 0)
    n = (need - 52 * b) // 44 + b
    msgs = b"".join(route("10.%d.%d.0/24" % (200 + i // 256, i % 256), gw,
                          prio=20 if i < b else None) for i in range(n))
    assert len(msgs) == need, len(msgs)
    return frame(msgs), n


def pad_attrs(rnd, size, kinds, bad_len):
    """Attributes of types from kinds, exactly size bytes (a multiple of 4,
    over 16); with bad_len, none 4 bytes long (what every type dpr reads
    wants)."""
    out = b""
    while size - len(out) > 420:
        n = rnd.randrange(0, 401)
        if bad_len and n == 4:
            n = 5
        out += attr(rnd.choice(kinds), bytes(rnd.randrange(256) for _ in range(n)))
    out += attr(rnd.choice(kinds), bytes(rnd.randrange(256) for _ in range(size - len(out) - 4)))
    assert len(out) == size, (len(out), size)
    return out


def until_closed(s, timeout=5.0):
    """True when the peer closed (or reset) the connection within timeout."""
    s.settimeout(timeout)
    try:
        while s.recv(4096):
            pass
        return True
    except ConnectionResetError:
        return True
    except socket.timeout:
        return False


def main():
    port, case = int(sys.argv[1]), sys.argv[2]
    gw = sys.argv[3] if len(sys.argv) > 3 and case != "many" else "10.0.2.2"
    rnd = random.Random(4242)
    if case == "tables":
        s = socket.create_connection(("127.0.0.1", port), timeout=5)
        for spec in sys.argv[3:]:
            f = spec.split(",")
            extra = attr(RTA_OIF, struct.pack("=I", int(f[3]))) if len(f) > 3 else b""
            s.sendall(frame(route(f[0], f[1], extra=extra, table=int(f[2]))))
        s.close()
        print("sent %d routes" % (len(sys.argv) - 3))
        return
    if case == "many":
        n = int(sys.argv[3])
        for _ in range(n):
            s = socket.create_connection(("127.0.0.1", port), timeout=5)
            s.close()
        print("opened and closed %d connections" % n)
        return
    s = socket.create_connection(("127.0.0.1", port), timeout=5)
    if case == "garbage":
        data = bytearray(rnd.randrange(256) for _ in range(4096))
        data[0] |= 0x80
        s.sendall(bytes(data))
    elif case == "version2":
        s.sendall(frame(route("10.210.0.0/24", gw), version=2))
    elif case == "midframe":
        msg = route("10.211.0.0/24", gw)
        s.sendall((struct.pack("!BBH", 1, 1, 1000) + msg + b"\0" * 100)[:100])
        s.close()
        print("sent 100 of 1000 bytes, closed")
        return
    elif case == "truncated":
        cut = struct.pack("=IHHII", 44, RTM_NEWROUTE, 1, 2, 0) + b"\0" * 4
        s.sendall(frame(route("10.212.0.0/24", gw) + cut))
    elif case == "maxroutes":
        data, n = max_routes(gw)
        s.sendall(data)
        s.close()
        print("sent %d routes in one frame of %d bytes" % (n, len(data)))
        return
    elif case == "unknown":
        base = route("10.213.0.0/24", gw)
        pad = pad_attrs(rnd, MAX_FRAME - 4 - len(base), list(range(100, 16000)), False)
        msg = bytearray(base + pad)
        struct.pack_into("=I", msg, 0, len(msg))
        s.sendall(frame(bytes(msg)))
        s.close()
        print("sent a frame of %d bytes" % (4 + len(msg)))
        return
    elif case == "nonsense":
        good = route("10.215.0.0/24", gw)
        base = route("10.214.0.0/24", gw)
        pad = pad_attrs(rnd, MAX_FRAME - 4 - len(good) - len(base),
                        [RTA_DST, RTA_OIF, RTA_GATEWAY, RTA_PRIORITY, RTA_TABLE], True)
        msg = bytearray(base + pad)
        struct.pack_into("=I", msg, 0, len(msg))
        s.sendall(frame(good + bytes(msg)))
        sys.stdout.write("sent a frame of %d bytes; " % (4 + len(good) + len(msg)))
    elif case == "slow":
        data = frame(route("10.216.0.0/24", gw)) + frame(route("10.217.0.0/24", gw))
        for i in range(len(data)):
            s.sendall(data[i:i + 1])
            time.sleep(0.01)
        s.close()
        print("sent %d bytes one at a time" % len(data))
        return
    else:
        sys.exit("unknown case " + case)
    print("dpr closed the connection" if until_closed(s) else "dpr kept the connection open")


if __name__ == "__main__":
    main()

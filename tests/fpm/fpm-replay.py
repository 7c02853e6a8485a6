#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Measure how fast dpr installs routes that arrive over FPM, with no zebra
in the way (zebra and a BGP peer are far slower than dpr: docs/routing-
daemons.md). A tool, never run by the suites.

  fpm-replay.py FPM_PORT SOCKET N [GATEWAY...]

Connects to dpr's FPM listener as zebra would, sends N IPv4 /24 routes
(1.0.0.0/24, 1.0.1.0/24, ...; over the gateways in turn, default
10.0.2.2) packed as many to a frame as fit, then polls `stats.get` on the
control SOCKET until route_sources.fpm.active has grown by N, and prints
the time from the first byte sent to the last route in the FIB.
"""
import json
import socket
import struct
import sys
import time

sys.path.insert(0, __file__.rsplit("/", 3)[0] + "/tests/smoke")
from fpm_client import frame, route  # noqa: E402

MAX_PAYLOAD = 65532 - 4


def stats(path):
    s = socket.socket(socket.AF_UNIX)
    s.connect(path)
    s.sendall(b'{"jsonrpc":"2.0","id":1,"method":"stats.get"}\n')
    buf = b""
    while not buf.endswith(b"\n"):
        chunk = s.recv(1 << 20)
        if not chunk:
            break
        buf += chunk
    s.close()
    return json.loads(buf)["result"]


def active(path):
    return stats(path)["route_sources"]["fpm"]["active"]


def main():
    port, sock, n = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
    gws = sys.argv[4:] or ["10.0.2.2"]
    frames, cur = [], b""
    for i in range(n):
        net = "%d.%d.%d.0/24" % (1 + i // 65536, (i // 256) % 256, i % 256)
        m = route(net, gws[i % len(gws)])
        if len(cur) + len(m) > MAX_PAYLOAD:
            frames.append(frame(cur))
            cur = b""
        cur += m
    if cur:
        frames.append(frame(cur))
    base = active(sock)
    c = socket.create_connection(("127.0.0.1", port))
    t0 = time.monotonic()
    for f in frames:
        c.sendall(f)
    t_sent = time.monotonic() - t0
    while active(sock) < base + n:
        time.sleep(0.005)
    t = time.monotonic() - t0
    print("%d routes in %d frames: sent in %.2f s, all in the FIB after %.2f s: %.0f routes/s"
          % (n, len(frames), t_sent, t, n / t))
    c.close()


if __name__ == "__main__":
    main()

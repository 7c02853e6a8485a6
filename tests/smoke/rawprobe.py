#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Crafted IPv4 frames and what comes back, with nothing but the standard
library: the probes of rfc_probe.sh.

  rawprobe.py serve IFACE REQUESTS REPLIES [--log FILE] [--dprctl PATH --sock PATH]

One server per host namespace (started with ip netns exec), so that a test
pays for Python's start once per host, not once per probe. From the start
it records every frame IFACE receives (not what it sends; each also goes,
as a hex line, to FILE for the post-mortem). It reads requests from the
FIFO REQUESTS: a count, then that many arguments, each ended by a NUL byte
(bash: printf '%d\\0' $#; printf '%s\\0' "$@"); it answers on the FIFO
REPLIES with lines "| OUTPUT", then "= EXIT-STATUS". Requests:

  hello                        answers once the sniffer is bound
  send [options]               one Ethernet/IPv4 frame on IFACE, as built:
        --dst-mac MAC --src IP --dst IP (--udp PORT | --echo ID) [--ttl T]
        [--id N] [--df] [--options HEX] [--len TOTAL] [--trailer N]
        [--src-mac MAC] [--digest]. Options are padded to 4 bytes with EOL,
        TOTAL is the IP total length, N bytes (0xEE) follow the IP packet in
        the frame. --digest prints "<payload length> <payload sha256>".
  find MATCH [PRINT] [--timeout S]
        waits for a recorded frame for which the Python expression MATCH is
        true, prints PRINT of it (default: a summary); status 1 if none came
        within S seconds (a limit for a broken router, not a measurement).
  list MATCH [PRINT]           PRINT of every recorded frame MATCH is true for
  udp-listen PORT              a UDP socket on PORT that keeps what arrives
                               (and draws no port unreachable)
  udp-got PORT [--timeout S]   "<length> <sha256>" of the first datagram to PORT
  stats EXPR                   EXPR over "dprctl --json stats" as S, with port(name)

In MATCH and PRINT, F is the frame: F.len, F.dst, F.src (MACs), F.type;
F.ip (None unless IPv4): hlen, tos, tot_len, id, df, mf, off (bytes), ttl,
proto, csum_ok, src, dst, options (bytes), data (bytes after the header up
to the total length); F.udp (first fragments): sport, dport, len, payload;
F.icmp: type, code, csum_ok, id, seq, ptr (byte 4), mtu (bytes 6-7), inner
(the quoted header, like F.ip). a4(b) formats 4 bytes as an address. An
expression that touches a missing part (None) is false.
"""
import argparse
import hashlib
import json
import os
import shlex
import socket
import struct
import subprocess
import sys
import threading
import time
from types import SimpleNamespace

# The Internet checksum, as the other smoke traffic computes it.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from traffic import csum, sniffer  # noqa: E402

ETH_P_ALL = 0x0003
PACKET_OUTGOING = 4


def mac_bytes(m):
    return bytes(int(x, 16) for x in m.split(":"))


def mac_str(b):
    return ":".join("%02x" % x for x in b)


def a4(b):
    return socket.inet_ntoa(bytes(b))


# --- building ---------------------------------------------------------------

def build(a, iface):
    """The frame a "send" request asks for, and its layer 4 payload."""
    opts = bytes.fromhex(a.options) if a.options else b""
    opts += b"\0" * (-len(opts) % 4)
    hlen = 20 + len(opts)
    proto = socket.IPPROTO_UDP if a.udp is not None else socket.IPPROTO_ICMP
    total = a.len if a.len else hlen + 8 + 16
    n = total - hlen - 8
    if n < 0:
        raise ValueError("--len %d is shorter than the headers" % total)
    data = bytes(((a.id & 0xFF) + i * 7) & 0xFF for i in range(n))
    src, dst = socket.inet_aton(a.src), socket.inet_aton(a.dst)
    if a.udp is not None:
        udp = struct.pack("!HHHH", 40000, a.udp, 8 + n, 0) + data
        pseudo = src + dst + struct.pack("!BBH", 0, proto, len(udp))
        l4 = udp[:6] + struct.pack("!H", csum(pseudo + udp) or 0xFFFF) + udp[8:]
    else:
        icmp = struct.pack("!BBHHH", 8, 0, 0, a.echo, 1) + data
        l4 = icmp[:2] + struct.pack("!H", csum(icmp)) + icmp[4:]
    ip = struct.pack("!BBHHHBBH4s4s", 0x40 | (hlen // 4), 0, total, a.id,
                     0x4000 if a.df else 0, a.ttl, proto, 0, src, dst) + opts
    ip = ip[:10] + struct.pack("!H", csum(ip)) + ip[12:]
    src_mac = a.src_mac
    if not src_mac:
        with open("/sys/class/net/%s/address" % iface) as f:
            src_mac = f.read().strip()
    frame = mac_bytes(a.dst_mac) + mac_bytes(src_mac) + b"\x08\x00" + ip + l4
    return frame + b"\xee" * a.trailer, data


# --- parsing ----------------------------------------------------------------

def parse_ip(b, whole):
    """The IPv4 header at b; whole: the packet is all there (not a quote)."""
    if len(b) < 20 or b[0] >> 4 != 4:
        return None
    hlen = (b[0] & 0xF) * 4
    tot_len, ident, frag = struct.unpack("!HHH", b[2:8])
    return SimpleNamespace(
        hlen=hlen, tos=b[1], tot_len=tot_len, id=ident, df=bool(frag & 0x4000),
        mf=bool(frag & 0x2000), off=(frag & 0x1FFF) * 8, ttl=b[8], proto=b[9],
        csum_ok=len(b) >= hlen and csum(b[:hlen]) == 0,
        src=a4(b[12:16]), dst=a4(b[16:20]), options=bytes(b[20:hlen]),
        data=bytes(b[hlen:tot_len]) if whole else bytes(b[hlen:]))


def parse(frame):
    F = SimpleNamespace(len=len(frame), dst=mac_str(frame[0:6]), src=mac_str(frame[6:12]),
                        type=struct.unpack("!H", frame[12:14])[0], ip=None, udp=None,
                        icmp=None)
    if F.type != 0x0800:
        return F
    F.ip = parse_ip(frame[14:], True)
    if F.ip is None or F.ip.off != 0:
        return F
    d = F.ip.data
    if F.ip.proto == socket.IPPROTO_UDP and len(d) >= 8:
        sport, dport, ulen, _ = struct.unpack("!HHHH", d[:8])
        F.udp = SimpleNamespace(sport=sport, dport=dport, len=ulen, payload=d[8:ulen])
    elif F.ip.proto == socket.IPPROTO_ICMP and len(d) >= 8:
        t, c, _, i, s = struct.unpack("!BBHHH", d[:8])
        F.icmp = SimpleNamespace(type=t, code=c, csum_ok=csum(d) == 0, id=i, seq=s,
                                 ptr=d[4], mtu=struct.unpack("!H", d[6:8])[0], gw=a4(d[4:8]),
                                 inner=parse_ip(d[8:], False) if t in (3, 5, 11, 12) else None)
    return F


def evaluate(expr, F):
    try:
        # In parentheses: an expression may span lines.
        return eval("(" + expr + "\n)", {"a4": a4, "F": F})
    except (AttributeError, TypeError, IndexError):
        return None


def summary(F):
    if F.ip is None:
        return "len %d %s > %s type 0x%04x" % (F.len, F.src, F.dst, F.type)
    s = "len %d %s > %s ip %s > %s id %d ttl %d proto %d tot_len %d hlen %d off %d%s%s" % (
        F.len, F.src, F.dst, F.ip.src, F.ip.dst, F.ip.id, F.ip.ttl, F.ip.proto, F.ip.tot_len,
        F.ip.hlen, F.ip.off, " MF" if F.ip.mf else "", " DF" if F.ip.df else "")
    if F.ip.options:
        s += " options %s" % F.ip.options.hex()
    if F.icmp is not None:
        s += " icmp type %d code %d ptr %d mtu %d" % (F.icmp.type, F.icmp.code, F.icmp.ptr,
                                                       F.icmp.mtu)
        if F.icmp.inner is not None:
            s += " [quoting %s > %s id %d options %s]" % (
                F.icmp.inner.src, F.icmp.inner.dst, F.icmp.inner.id,
                F.icmp.inner.options.hex() or "-")
    return s


# --- the server -------------------------------------------------------------

class Server:
    def __init__(self, a):
        self.a = a
        self.frames = []       # parsed, in arrival order (appended by the sniffer)
        self.udp = {}          # port -> [(length, sha256)]
        self.log = open(a.log, "w") if a.log else None
        self.tx = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
        self.tx.bind((a.iface, 0))
        rx = sniffer(a.iface)
        threading.Thread(target=self.sniff, args=(rx,), daemon=True).start()
        self.parsers = self.make_parsers()

    def sniff(self, rx):
        while True:
            try:
                frame, addr = rx.recvfrom(65536)
            except OSError:  # the link went away: the test is over
                return
            if addr[2] == PACKET_OUTGOING:
                continue
            if self.log:
                self.log.write(frame.hex() + "\n")
                self.log.flush()
            self.frames.append(parse(frame))

    def udp_recv(self, s, port):
        while True:
            data = s.recv(65536)
            self.udp[port].append((len(data), hashlib.sha256(data).hexdigest()))

    @staticmethod
    def make_parsers():
        ps = {}
        p = ps["send"] = argparse.ArgumentParser(prog="send", exit_on_error=False)
        p.add_argument("--dst-mac", required=True)
        p.add_argument("--src-mac")
        p.add_argument("--src", required=True)
        p.add_argument("--dst", required=True)
        p.add_argument("--ttl", type=int, default=64)
        p.add_argument("--id", type=int, default=1)
        p.add_argument("--df", action="store_true")
        p.add_argument("--options", default="")
        g = p.add_mutually_exclusive_group(required=True)
        g.add_argument("--udp", type=int)
        g.add_argument("--echo", type=int)
        p.add_argument("--len", type=int, default=0)
        p.add_argument("--trailer", type=int, default=0)
        p.add_argument("--digest", action="store_true")
        for name in ("find", "list"):
            p = ps[name] = argparse.ArgumentParser(prog=name, exit_on_error=False)
            p.add_argument("match")
            p.add_argument("print", nargs="?")
            p.add_argument("--timeout", type=float, default=10.0)
        p = ps["udp-listen"] = argparse.ArgumentParser(prog="udp-listen", exit_on_error=False)
        p.add_argument("port", type=int)
        p = ps["udp-got"] = argparse.ArgumentParser(prog="udp-got", exit_on_error=False)
        p.add_argument("port", type=int)
        p.add_argument("--timeout", type=float, default=10.0)
        p = ps["stats"] = argparse.ArgumentParser(prog="stats", exit_on_error=False)
        p.add_argument("expr")
        return ps

    def show(self, F, expr, out):
        out.append(summary(F) if expr is None else str(evaluate(expr, F)))

    def run(self, argv, out):
        cmd = argv[0]
        if cmd == "hello":
            return 0
        a = self.parsers[cmd].parse_args(argv[1:])
        if cmd == "send":
            frame, data = build(a, self.a.iface)
            self.tx.send(frame)
            if a.digest:
                out.append("%d %s" % (len(data), hashlib.sha256(data).hexdigest()))
            return 0
        if cmd == "find":
            deadline = time.monotonic() + a.timeout
            while True:
                for F in list(self.frames):
                    if evaluate(a.match, F):
                        self.show(F, a.print, out)
                        return 0
                if time.monotonic() > deadline:
                    return 1
                time.sleep(0.02)
        if cmd == "list":
            for F in list(self.frames):
                if evaluate(a.match, F):
                    self.show(F, a.print, out)
            return 0
        if cmd == "udp-listen":
            s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            s.setsockopt(socket.SOL_SOCKET, getattr(socket, "SO_RCVBUFFORCE", 33), 8 << 20)
            s.bind(("0.0.0.0", a.port))
            self.udp[a.port] = []
            threading.Thread(target=self.udp_recv, args=(s, a.port), daemon=True).start()
            return 0
        if cmd == "udp-got":
            deadline = time.monotonic() + a.timeout
            while not self.udp[a.port]:
                if time.monotonic() > deadline:
                    return 1
                time.sleep(0.02)
            out.append("%d %s" % self.udp[a.port][0])
            return 0
        if cmd == "stats":
            r = subprocess.run([self.a.dprctl, "-s", self.a.sock, "--json", "stats"],
                               capture_output=True, text=True, timeout=30, check=True)
            S = json.loads(r.stdout)
            port = lambda n: next(p for p in S["ports"] if p["name"] == n)  # noqa: E731
            out.append(str(eval(a.expr, {"S": S, "port": port})))
            return 0
        raise ValueError("unknown request " + cmd)

    def serve(self):
        req = open(self.a.requests, "rb", buffering=0)
        rep = open(self.a.replies, "w")
        buf = b""

        def field():
            nonlocal buf
            while b"\0" not in buf:
                chunk = req.read(65536)
                if not chunk:
                    raise EOFError
                buf += chunk
            f, buf = buf.split(b"\0", 1)
            return f.decode()

        while True:
            try:
                argv = [field() for _ in range(int(field()))]
            except EOFError:
                return 0
            out = []
            try:
                rc = self.run(argv, out)
            except (Exception, SystemExit) as e:  # a bad request must not end the server
                msg = "error: %s: %s" % (shlex.join(argv), e)
                out.append(msg)
                print("# rawprobe: " + msg, file=sys.stderr, flush=True)
                rc = 2
            for line in out:
                for part in line.split("\n"):
                    rep.write("| " + part + "\n")
            rep.write("= %d\n" % rc)
            rep.flush()


def main():
    p = argparse.ArgumentParser()
    sub = p.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("serve")
    s.add_argument("iface")
    s.add_argument("requests")
    s.add_argument("replies")
    s.add_argument("--log")
    s.add_argument("--dprctl")
    s.add_argument("--sock")
    a = p.parse_args()
    sys.exit(Server(a).serve())


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""802.1Q hosts on a plain interface, for kernels without VLAN devices.

A raw AF_PACKET socket sends tagged frames as they are written; the kernel
hands a received tag in PACKET_AUXDATA (tp_status TP_STATUS_VLAN_VALID,
tp_vlan_tci), not in the data, so every frame read here comes with the VLAN
id it had on the wire (None: untagged).

  vlanhost.py serve IFACE SECONDS OUT VID,MAC,IP...
      be the hosts VID,MAC,IP (VID 0: untagged) until SECONDS have passed:
      answer ARP requests and ICMP echo requests for IP, tagged as they
      came; write to OUT (JSON) what each host saw: {"IP": {"arp": n,
      "echo": n, "vids": [...]}} and "unknown": frames for none of them.
      OUT.ready is created once the socket is bound.
  vlanhost.py probe IFACE VID MAC IP TARGET
      as host VID,MAC,IP: ARP for TARGET, then ping it once; print JSON
      {"mac": ..., "arp_vid": ..., "echo_vid": ...} (null where no answer).
  vlanhost.py probe6 IFACE VID MAC IP6 TARGET6
      the same in IPv6: a neighbour solicitation for TARGET6, then one echo
      request; {"mac": ..., "na_vid": ..., "echo_vid": ...}.
  vlanhost.py echo IFACE VID SRC_MAC DST_MAC SRC_IP DST_IP
      send one ICMP echo request tagged VID (0: priority-tagged) and leave.

VID is an 802.1Q id (0: priority-tagged), or for QinQ OUTER.INNER: an
802.1ad S-tag (TPID 0x88a8) OUTER, then a C-tag INNER; qOUTER.INNER: both
0x8100 ("double tagged"); sOUTER: an S-tag alone. Received double tags are
named the same way: the kernel takes the OUTER tag off into PACKET_AUXDATA
(tp_vlan_tci, and its TPID in tp_vlan_tpid where TP_STATUS_VLAN_TPID_VALID
says so), and the inner one stays in the data.
"""
import ctypes
import json
import os
import select
import socket
import struct
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from traffic import sniffer  # noqa: E402

SOL_PACKET = 263
PACKET_AUXDATA = 8
TP_STATUS_VLAN_VALID = 1 << 4
TP_STATUS_VLAN_TPID_VALID = 1 << 6
ETH_P_8021AD = 0x88a8
ETH_P_ALL = 0x0003
ETH_P_IP = 0x0800
ETH_P_ARP = 0x0806
ETH_P_8021Q = 0x8100
ETH_P_IPV6 = 0x86dd


class Auxdata(ctypes.Structure):
    _fields_ = [("tp_status", ctypes.c_uint32), ("tp_len", ctypes.c_uint32),
                ("tp_snaplen", ctypes.c_uint32), ("tp_mac", ctypes.c_uint16),
                ("tp_net", ctypes.c_uint16), ("tp_vlan_tci", ctypes.c_uint16),
                ("tp_vlan_tpid", ctypes.c_uint16)]


def mac_bytes(s):
    return bytes(int(x, 16) for x in s.split(":"))


def mac_str(b):
    return ":".join("%02x" % x for x in b)


def checksum(data):
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff


def open_sock(iface):
    return sniffer(iface, auxdata=True)


def recv(s, timeout):
    """One frame: (vid or None, frame as the data had it, tag removed)."""
    r, _, _ = select.select([s], [], [], timeout)
    if not r:
        return None
    data, anc, _, addr = s.recvmsg(65535, socket.CMSG_SPACE(ctypes.sizeof(Auxdata)))
    if addr[2] == socket.PACKET_OUTGOING:
        return False
    vid, tpid = None, ETH_P_8021Q
    for level, kind, cdata in anc:
        if level == SOL_PACKET and kind == PACKET_AUXDATA:
            aux = Auxdata.from_buffer_copy(cdata.ljust(ctypes.sizeof(Auxdata), b"\0"))
            if aux.tp_status & TP_STATUS_VLAN_VALID:
                vid = aux.tp_vlan_tci & 0xfff
                if aux.tp_status & TP_STATUS_VLAN_TPID_VALID:
                    tpid = aux.tp_vlan_tpid
    # A tag still in the data (no auxdata for it): take it off here.
    if vid is None and len(data) >= 18 and struct.unpack("!H", data[12:14])[0] in (ETH_P_8021Q, ETH_P_8021AD):
        tpid = struct.unpack("!H", data[12:14])[0]
        vid = struct.unpack("!H", data[14:16])[0] & 0xfff
        data = data[:12] + data[16:]
    # A second (inner) tag, in the data: a QinQ frame, named OUTER.INNER.
    if vid is not None and len(data) >= 18 and struct.unpack("!H", data[12:14])[0] == ETH_P_8021Q:
        inner = struct.unpack("!H", data[14:16])[0] & 0xfff
        data = data[:12] + data[16:]
        return ("q" if tpid == ETH_P_8021Q else "") + "%d.%d" % (vid, inner), data
    if vid is not None and tpid == ETH_P_8021AD:
        return "s%d" % vid, data
    return vid, data


def parse_vid(s):
    """An int for an 802.1Q id, the string as given for QinQ (see above)."""
    return int(s) if s.isdigit() else s


def tags(vid):
    if vid is None:
        return b""
    if isinstance(vid, int):
        return struct.pack("!HH", ETH_P_8021Q, vid)
    if vid.startswith("s"):
        return struct.pack("!HH", ETH_P_8021AD, int(vid[1:]))
    outer_tpid = ETH_P_8021Q if vid.startswith("q") else ETH_P_8021AD
    outer, inner = vid.lstrip("q").split(".")
    return struct.pack("!HHHH", outer_tpid, int(outer), ETH_P_8021Q, int(inner))


def frame(dst, src, vid, ethertype, payload):
    """vid None: untagged; 0: priority-tagged; a string: QinQ (parse_vid())."""
    return dst + src + tags(vid) + struct.pack("!H", ethertype) + payload


def arp(op, smac, sip, tmac, tip):
    return struct.pack("!HHBBH6s4s6s4s", 1, ETH_P_IP, 6, 4, op, smac, socket.inet_aton(sip),
                       tmac, socket.inet_aton(tip))


def ipv4(src, dst, proto, payload, ttl=64):
    h = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(payload), 0x1234, 0, ttl, proto, 0,
                    socket.inet_aton(src), socket.inet_aton(dst))
    h = h[:10] + struct.pack("!H", checksum(h)) + h[12:]
    return h + payload


def icmp_echo(kind, ident, seq, data=b"dpr-vlan"):
    m = struct.pack("!BBHHH", kind, 0, 0, ident, seq) + data
    return m[:2] + struct.pack("!H", checksum(m)) + m[4:]


def tagged_vid(vid):
    return None if vid == 0 else vid


def serve(iface, seconds, out, hosts):
    s = open_sock(iface)
    # Bound: the caller waits for OUT.ready before it sends anything.
    open(out + ".ready", "w").close()
    by_ip = {}
    for h in hosts:
        vid, mac, ip = h.split(",")
        by_ip[ip] = {"vid": parse_vid(vid), "mac": mac_bytes(mac), "arp": 0, "echo": 0, "vids": []}
    unknown = 0
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        got = recv(s, end - time.monotonic())
        if not got:
            continue
        vid, data = got
        et = struct.unpack("!H", data[12:14])[0]
        body = data[14:]
        if et == ETH_P_ARP and len(body) >= 28:
            op, smac, sip, _, tip = struct.unpack("!6xH6s4s6s4s", body[:28])
            h = by_ip.get(socket.inet_ntoa(tip))
            if op != 1 or h is None or (vid or 0) != h["vid"]:
                unknown += 1
                continue
            h["arp"] += 1
            h["vids"].append(vid)
            s.send(frame(smac, h["mac"], tagged_vid(h["vid"]), ETH_P_ARP,
                         arp(2, h["mac"], socket.inet_ntoa(tip), smac, socket.inet_ntoa(sip))))
        elif et == ETH_P_IP and len(body) >= 28 and body[9] == 1 and body[20] == 8:
            src, dst = socket.inet_ntoa(body[12:16]), socket.inet_ntoa(body[16:20])
            h = by_ip.get(dst)
            if h is None or (vid or 0) != h["vid"] or data[:6] != h["mac"]:
                unknown += 1
                continue
            h["echo"] += 1
            h["vids"].append(vid)
            tlen = struct.unpack("!H", body[2:4])[0]
            ident, seq = struct.unpack("!HH", body[24:28])
            reply = icmp_echo(0, ident, seq, body[28:tlen])
            s.send(frame(data[6:12], h["mac"], tagged_vid(h["vid"]), ETH_P_IP,
                         ipv4(dst, src, 1, reply)))
    res = {ip: {k: h[k] for k in ("arp", "echo", "vids")} for ip, h in by_ip.items()}
    res["unknown"] = unknown
    with open(out, "w") as f:
        json.dump(res, f)


def probe(iface, vid, mac, ip, target):
    s = open_sock(iface)
    mac = mac_bytes(mac)
    res = {"mac": None, "arp_vid": None, "echo_vid": None}
    bcast = b"\xff" * 6
    s.send(frame(bcast, mac, vid, ETH_P_ARP, arp(1, mac, ip, b"\0" * 6, target)))
    end = time.monotonic() + 2
    while time.monotonic() < end and res["mac"] is None:
        got = recv(s, end - time.monotonic())
        if not got:
            continue
        v, data = got
        body = data[14:]
        if struct.unpack("!H", data[12:14])[0] != ETH_P_ARP or data[:6] != mac:
            continue
        op, smac, sip = struct.unpack("!6xH6s4s", body[:18])
        if op == 2 and socket.inet_ntoa(sip) == target:
            res["mac"], res["arp_vid"] = mac_str(smac), v
    if res["mac"] is None:
        print(json.dumps(res))
        return
    s.send(frame(mac_bytes(res["mac"]), mac, vid, ETH_P_IP,
                 ipv4(ip, target, 1, icmp_echo(8, 0x4242, 1))))
    end = time.monotonic() + 2
    while time.monotonic() < end:
        got = recv(s, end - time.monotonic())
        if not got:
            continue
        v, data = got
        body = data[14:]
        if (struct.unpack("!H", data[12:14])[0] == ETH_P_IP and data[:6] == mac and
                len(body) >= 28 and body[9] == 1 and body[20] == 0 and
                socket.inet_ntoa(body[12:16]) == target):
            res["echo_vid"] = v
            break
    print(json.dumps(res))


def ipv6(src, dst, nh, payload, hlim=255):
    """An IPv6 packet whose ICMPv6 payload gets its checksum (RFC 4443 2.3)."""
    s, d = socket.inet_pton(socket.AF_INET6, src), socket.inet_pton(socket.AF_INET6, dst)
    pseudo = s + d + struct.pack("!I3xB", len(payload), nh)
    c = checksum(pseudo + payload)
    payload = payload[:2] + struct.pack("!H", c) + payload[4:]
    return struct.pack("!IHBB", 6 << 28, len(payload), nh, hlim) + s + d + payload


def probe6(iface, vid, mac, ip, target):
    s = open_sock(iface)
    mac = mac_bytes(mac)
    res = {"mac": None, "na_vid": None, "echo_vid": None}
    t = socket.inet_pton(socket.AF_INET6, target)
    snm = socket.inet_ntop(socket.AF_INET6, bytes.fromhex("ff0200000000000000000001ff") + t[13:])
    ns = struct.pack("!BBHI", 135, 0, 0, 0) + t + struct.pack("!BB6s", 1, 1, mac)
    s.send(frame(b"\x33\x33" + socket.inet_pton(socket.AF_INET6, snm)[12:], mac, vid,
                 ETH_P_IPV6, ipv6(ip, snm, 58, ns)))
    end = time.monotonic() + 2
    while time.monotonic() < end and res["mac"] is None:
        got = recv(s, end - time.monotonic())
        if not got:
            continue
        v, data = got
        body = data[14:]
        if (struct.unpack("!H", data[12:14])[0] == ETH_P_IPV6 and data[:6] == mac and
                len(body) >= 64 and body[6] == 58 and body[40] == 136 and body[48:64] == t):
            opts = body[64:]
            while len(opts) >= 8 and opts[1]:
                if opts[0] == 2:
                    res["mac"], res["na_vid"] = mac_str(opts[2:8]), v
                opts = opts[opts[1] * 8:]
    if res["mac"] is None:
        print(json.dumps(res))
        return
    req = struct.pack("!BBHHH", 128, 0, 0, 0x4444, 1) + b"dpr-vlan"
    s.send(frame(mac_bytes(res["mac"]), mac, vid, ETH_P_IPV6, ipv6(ip, target, 58, req, 64)))
    end = time.monotonic() + 2
    while time.monotonic() < end:
        got = recv(s, end - time.monotonic())
        if not got:
            continue
        v, data = got
        body = data[14:]
        if (struct.unpack("!H", data[12:14])[0] == ETH_P_IPV6 and data[:6] == mac and
                len(body) >= 48 and body[6] == 58 and body[40] == 129 and body[8:24] == t):
            res["echo_vid"] = v
            break
    print(json.dumps(res))


def echo(iface, vid, smac, dmac, sip, dip):
    s = open_sock(iface)
    s.send(frame(mac_bytes(dmac), mac_bytes(smac), vid, ETH_P_IP,
                 ipv4(sip, dip, 1, icmp_echo(8, 0x4343, 1))))


def main(argv):
    if len(argv) >= 5 and argv[1] == "serve":
        serve(argv[2], float(argv[3]), argv[4], argv[5:])
    elif len(argv) == 7 and argv[1] == "probe":
        probe(argv[2], parse_vid(argv[3]), argv[4], argv[5], argv[6])
    elif len(argv) == 7 and argv[1] == "probe6":
        probe6(argv[2], parse_vid(argv[3]), argv[4], argv[5], argv[6])
    elif len(argv) == 8 and argv[1] == "echo":
        echo(argv[2], parse_vid(argv[3]), *argv[4:])
    else:
        sys.stderr.write(__doc__)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

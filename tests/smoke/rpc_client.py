#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Abuse dpr's control socket the way broken or hostile clients would.

    rpc_client.py SOCKET PHASE

Phases: malformed, boundary, huge, huge_pending, clients, half, flood, call METHOD [PARAMS-JSON].
Each prints what it found and exits 0 when dpr behaved, 1 when it did not.
Timeouts are generous and only there so that a hung dpr fails instead of
hanging the test; nothing is asserted on timing.
"""
import json
import random
import socket
import sys
import time

TIMEOUT = 60.0
MAX_LINE = 16 << 20
FAILS = []


def fail(msg):
    FAILS.append(msg)
    print("#   FAIL: " + msg, flush=True)


class Conn:
    """One client connection with line-buffered reads."""

    def __init__(self, path, timeout=TIMEOUT):
        self.s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.s.settimeout(timeout)
        self.s.connect(path)
        self.buf = b""
        self.eof = None  # None, "eof" or "reset"

    def send(self, data):
        self.s.sendall(data)

    def readline(self):
        """The next line without its newline, or None at end of stream."""
        while b"\n" not in self.buf:
            if self.eof:
                return None
            try:
                chunk = self.s.recv(1 << 20)
            except ConnectionResetError:
                chunk, self.eof = b"", "reset"
            if not chunk:
                self.eof = self.eof or "eof"
                if self.buf:
                    line, self.buf = self.buf, b""
                    fail("a partial response line at end of stream: %r" % line[:200])
                    return line
                return None
            self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        return line

    def call(self, method, params=None, rid=1):
        req = {"jsonrpc": "2.0", "id": rid, "method": method}
        if params is not None:
            req["params"] = params
        self.send(json.dumps(req).encode() + b"\n")
        line = self.readline()
        return None if line is None else json.loads(line)

    def close(self):
        self.s.close()


def check_error(line, codes, rid, what):
    """@p line must be a JSON-RPC error with a code in @p codes and id @p rid."""
    try:
        r = json.loads(line)
    except ValueError as e:
        fail("%s: response is not JSON (%s): %r" % (what, e, line[:200]))
        return None
    if not isinstance(r, dict) or r.get("jsonrpc") != "2.0" or "result" in r:
        fail("%s: not a JSON-RPC error response: %r" % (what, line[:300]))
        return None
    err = r.get("error")
    if not isinstance(err, dict) or not isinstance(err.get("code"), int) or \
            not isinstance(err.get("message"), str) or not err["message"]:
        fail("%s: error object malformed: %r" % (what, line[:300]))
        return None
    if codes is not None and err["code"] not in codes:
        fail("%s: code %d, expected %s: %s" % (what, err["code"], codes, err["message"][:200]))
    if "id" not in r:
        fail("%s: no id in the response" % what)
    elif rid is not ANY and r["id"] != rid:
        fail("%s: id %r, expected %r" % (what, str(r["id"])[:80], str(rid)[:80]))
    return r


ANY = object()
PARSE, INVALID, NOMETHOD, PARAMS = -32700, -32600, -32601, -32602
NOT_OBJECT = {PARSE, INVALID}  # valid JSON that is not an object: either is fair


def req(rid, method, params=None, **extra):
    o = {"jsonrpc": "2.0", "id": rid, "method": method}
    if params is not None:
        o["params"] = params
    o.update(extra)
    return json.dumps(o, separators=(",", ":")).encode()


def malformed_cases(n, seed=1):
    """@p n (line, expected) pairs; expected is None (no answer) or (codes, id)."""
    rng = random.Random(seed)
    cases = []
    valid = [
        req(1, "route.add", {"prefix": "10.77.0.0/16", "via": "10.0.2.2"}),
        req("x", "route.del", {"prefix": "10.77.0.0/16"}),
        req(3, "neigh.add", {"address": "10.0.2.9", "mac": "02:00:00:00:02:09"}),
        req(4, "route.load", {"routes": ["10.78.0.0/16 via 10.0.2.2"]}),
    ]
    i = 0
    while len(cases) < n:
        k = i % 8
        rid = 1000 + i
        i += 1
        if k == 0:  # random bytes
            b = bytes(rng.choice(range(256)) for _ in range(rng.randint(1, 300)))
            b = b.replace(b"\n", b"")
            line = b[:-1] if b.endswith(b"\r") else b
            cases.append((b, None if not line else (None, ANY)))
        elif k == 1:  # truncated JSON
            v = rng.choice(valid)
            cases.append((v[:rng.randint(1, len(v) - 1)], ({PARSE}, None)))
        elif k == 2:  # wrong types
            t = rng.randrange(16)
            cases.append([
                (req(rid, "stats.get", jsonrpc=2), ({INVALID}, rid)),
                (req(rid, 5), ({INVALID}, rid)),
                (req(rid, "route.get", ["10.0.0.1"]), ({PARAMS}, rid)),
                (req(rid, "route.get", {"address": 5}), ({PARAMS}, rid)),
                (req(rid, "route.add", {"prefix": [], "via": {}}), ({PARAMS}, rid)),
                (req(rid, "route.list", {"limit": "10"}), ({PARAMS}, rid)),
                (req(rid, "route.load", {"routes": "x"}), ({PARAMS}, rid)),
                (req(rid, "route.load", {"routes": [1, None, {}]}), ({PARAMS}, rid)),
                (req(rid, "neigh.add", {"address": True, "mac": 1}), ({PARAMS}, rid)),
                (req(rid, "addr.add", {"port": 0, "address": 1}), ({PARAMS}, rid)),
                (req([rid], "stats.get"), ({INVALID}, None)),
                (req(rid + 0.5, "stats.get"), ({INVALID}, None)),
                (b"[1,2,3]", ({INVALID}, None)),
                (str(rid).encode(), (NOT_OBJECT, None)),
                (req(rid, "no.such.method"), ({NOMETHOD}, rid)),
                (req(rid, "stats.get", extra=1), ({INVALID}, rid)),
            ][t])
        elif k == 3:  # huge ids
            t = rng.randrange(8)
            big = "x" * rng.randint(1000, 100000)
            cases.append([
                (b'{"jsonrpc":"2.0","id":' + str(10 ** 30).encode() + b',"method":"stats.get"}',
                 ({PARSE}, None)),
                (b'{"jsonrpc":"2.0","id":-' + str(10 ** 40).encode() + b',"method":"stats.get"}',
                 ({PARSE}, None)),
                (req(2 ** 63 - 1, "no.such"), ({NOMETHOD}, 2 ** 63 - 1)),
                (req(-2 ** 63, "no.such"), ({NOMETHOD}, -2 ** 63)),
                (b'{"jsonrpc":"2.0","id":1e308,"method":"stats.get"}', ({INVALID}, None)),
                (b'{"jsonrpc":"2.0","id":1e999,"method":"stats.get"}', ({PARSE}, None)),
                (req(big, "no.such"), ({NOMETHOD}, big)),
                (req(big, "route.get", {"address": big}), ({PARAMS}, big)),
            ][t])
        elif k == 4:  # deep nesting
            t = rng.randrange(6)
            d = 100
            cases.append([
                (b"[" * 10000, ({PARSE}, None)),
                (b"[" * 10000 + b"]" * 10000, ({PARSE}, None)),
                (b'{"a":' * 5000, ({PARSE}, None)),
                (b'{"jsonrpc":"2.0","id":1,"method":"route.get","params":{"address":' +
                 b"[" * 5000 + b"]" * 5000 + b"}}", ({PARSE}, None)),
                # deep but within what a parser takes: an answer, not a crash
                (b'{"jsonrpc":"2.0","id":%d,"method":"route.get","params":{"address":' % rid +
                 b"[" * d + b"]" * d + b"}}", ({PARAMS}, rid)),
                (b'{"jsonrpc":"2.0","id":%d,"method":"route.load","params":{"routes":[' % rid +
                 b'{"prefix":' * d + b"1" + b"}" * d + b"]}}", ({PARAMS}, rid)),
            ][t])
        elif k == 5:  # invalid UTF-8 and bad escapes
            t = rng.randrange(8)
            cases.append([
                (b'{"jsonrpc":"2.0","id":1,"method":"\xff"}', ({PARSE}, None)),
                (b'{"jsonrpc":"2.0","id":1,"method":"stats.get","params":{"\xc0\xaf":1}}',
                 ({PARSE}, None)),
                (b'{"jsonrpc":"2.0","id":1,"method":"\xed\xa0\x80"}', ({PARSE}, None)),
                (b'{"jsonrpc":"2.0","id":1,"method":"\xf4\x90\x80\x80"}', ({PARSE}, None)),
                (b'{"jsonrpc":"2.0","id":1,"method":"\\ud800"}', ({PARSE}, None)),
                (b'{"jsonrpc":"2.0","id":1,"method":"route.get","params":{"address":"10.0.0.1\\u0000x"}}',
                 ({PARSE}, None)),
                (b'{"jsonrpc":"2.0","id":"\xe9t\xe9","method":"stats.get"}', ({PARSE}, None)),
                (b"\xc3", ({PARSE}, None)),
            ][t])
        elif k == 6:  # empty lines and blanks
            t = rng.randrange(4)
            cases.append([
                (b"", None),
                (b"\r", None),
                (b"   ", ({PARSE}, None)),
                (b"\t\r", ({PARSE}, None)),
            ][t])
        else:  # other oddities
            t = rng.randrange(7)
            cases.append([
                (b'{"jsonrpc":"2.0"\x00,"id":1,"method":"stats.get"}', ({PARSE}, None)),
                (b"\xef\xbb\xbf" + req(rid, "no.such"), (None, ANY)),  # a BOM
                (req(rid, "no.such") + b"\r", ({NOMETHOD}, rid)),  # CRLF
                (b'{"jsonrpc":"2.0","id":1,"id":2,"method":"stats.get"}', ({PARSE}, None)),
                (req(rid, "m" * 1000000), ({NOMETHOD}, rid)),
                (b'{"jsonrpc":"2.0","id":%d,"method":"stats.get",' % rid +
                 b",".join(b'"k%d":%d' % (j, j) for j in range(10000)) + b"}", ({INVALID}, rid)),
                (req(rid, "route.get", {"address": "10.0.0.1", "x" * 5000: 1}), ({PARAMS}, rid)),
            ][t])
    return cases[:n]


def phase_malformed(path):
    cases = malformed_cases(1000)
    c = Conn(path)
    answered = silent = 0
    for g in range(0, len(cases), 25):
        group = cases[g:g + 25]
        sentinel = "sentinel-%d" % g
        c.send(b"".join(line + b"\n" for line, _ in group) + req(sentinel, "stats.get") + b"\n")
        for j, (line, exp) in enumerate(group):
            what = "request %d (%r)" % (g + j, line[:60])
            if exp is None:
                silent += 1
                continue
            got = c.readline()
            if got is None:
                fail("%s: connection closed instead of an answer" % what)
                return
            codes, rid = exp
            check_error(got, codes, rid, what)
            answered += 1
        got = c.readline()
        if got is None:
            fail("after request %d: connection closed" % (g + len(group) - 1))
            return
        r = json.loads(got)
        if r.get("id") != sentinel or "result" not in r:
            fail("after request %d: expected the answer to %s, got %r" %
                 (g + len(group) - 1, sentinel, got[:300]))
            return
    print("# %d malformed requests: %d errors, %d empty lines unanswered; connection still usable"
          % (len(cases), answered, silent))
    c.close()


def phase_boundary(path):
    """A request line of exactly 16 MiB is served; the connection stays."""
    head = b'{"jsonrpc":"2.0","id":"big","method":"route.load","params":{"routes":['
    tail = b"]}}"
    line = head + b" " * (MAX_LINE - len(head) - len(tail)) + tail
    assert len(line) == MAX_LINE
    c = Conn(path)
    c.send(line + b"\n" + req("after", "stats.get") + b"\n")
    got = c.readline()
    r = json.loads(got) if got else None
    if not r or r.get("id") != "big" or not isinstance(r.get("result"), dict) or \
            r["result"].get("loaded") != 0:
        fail("a 16 MiB request line: expected its result, got %r" % (got or b"")[:300])
    got = c.readline()
    r = json.loads(got) if got else None
    if not r or r.get("id") != "after" or "result" not in r:
        fail("after a 16 MiB line the connection is not usable: %r" % (got or b"")[:300])
    else:
        print("# a request line of exactly 16 MiB was answered, and the next one too")
    c.close()


def phase_huge(path):
    """17 MiB without a newline, then a newline: -32006, then the server closes."""
    c = Conn(path)
    head = b'{"jsonrpc":"2.0","id":1,"method":"route.load","params":{"routes":["'
    total = 17 << 20
    sent = 0
    chunk = head + b"a" * ((1 << 20) - len(head))
    try:
        while sent < total:
            c.send(chunk)
            sent += len(chunk)
            chunk = b"a" * (1 << 20)
        c.send(b"\n")
        sent += 1
    except (BrokenPipeError, ConnectionResetError) as e:
        print("# the server closed while we sent (after %.1f MiB): %s" % (sent / (1 << 20), e))
    got = c.readline()
    if got is None:
        fail("17 MiB line: no error response before the connection closed")
        return
    r = check_error(got, {-32006}, None, "17 MiB line")
    if r and "16 MiB" not in r["error"]["message"]:
        fail("17 MiB line: message does not give the limit: %s" % r["error"]["message"])
    more = c.readline()
    if more is not None:
        fail("17 MiB line: more after the error instead of a close: %r" % more[:200])
    print("# 17 MiB line: %s; then the server closed the connection (%s)"
          % (r["error"]["message"] if r else "?", c.eof))
    c.close()
    c = Conn(path)
    r = c.call("stats.get", rid="next")
    if not r or "result" not in r:
        fail("a new connection after the 17 MiB line was not served: %r" % r)
    c.close()


def phase_huge_pending(path):
    """A 17 MiB line while earlier answers are still unread: -32006, and
    nothing sent after it on that connection is executed."""
    import threading
    c = Conn(path)
    # Answers of several MiB, more than the socket buffers hold: each
    # echoes its request's 16 KiB id (cheap requests, long answers).
    n = 320
    pad = "x" * 16384
    errors = []

    def rid(i):
        return "%d:%s" % (i, pad)

    def sender():
        try:
            c.send(b"".join(req(rid(i), "vrf.list") + b"\n" for i in range(n)))
            for _ in range(17):
                c.send(b"a" * (1 << 20))
            c.send(b"\n" + req("after", "route.add",
                                {"prefix": "10.55.0.0/16", "via": "10.0.2.2"}) + b"\n")
        except OSError as e:  # the server may close first: that is fine
            errors.append(e)

    t = threading.Thread(target=sender, daemon=True)
    t.start()
    # Read nothing while sending, so the answers stay pending in dpr. A dpr
    # that stops reading a closing connection would block the sender: start
    # reading after a while anyway (that order can only hide the bug, never
    # fail a correct dpr).
    t.join(10)
    lines = []
    while True:
        line = c.readline()
        if line is None:
            break
        lines.append(line)
    t.join(TIMEOUT)
    c.close()
    ok = 0
    for i, line in enumerate(lines[:n]):
        r = json.loads(line)
        if r.get("id") == rid(i) and "result" in r:
            ok += 1
    if ok != n:
        fail("pending answers: %d of %d vrf.list answered before the close" % (ok, n))
    if len(lines) <= n:
        fail("no -32006 error after the pending answers")
    else:
        check_error(lines[n], {-32006}, None, "17 MiB line with answers pending")
    if len(lines) > n + 1:
        fail("%d more answers after -32006 on a connection being closed, the last: %r"
             % (len(lines) - n - 1, lines[-1][:200]))
    d = Conn(path)
    r = d.call("route.get", {"address": "10.55.1.1"}, rid="chk")
    d.close()
    if not r or r.get("error", {}).get("code") != -32001:
        fail("a request sent after the oversized line was executed: route.get 10.55.1.1 -> %r" % r)
        d = Conn(path)  # put things back for the tests that follow
        d.call("route.del", {"prefix": "10.55.0.0/16"})
        d.close()
    else:
        print("# with %d answers pending, a 17 MiB line got -32006 and nothing after it ran" % n)


def phase_clients(path):
    """64 clients at once are served; the 65th is told why it is refused."""
    conns = []
    deadline = time.monotonic() + TIMEOUT
    # Earlier phases' connections may still be closing in dpr: a refusal
    # while there are fewer than 64 of ours is retried.
    while len(conns) < 64:
        c = Conn(path)
        try:
            r = c.call("route.get", {"address": "10.0.2.2"}, rid=len(conns))
        except (BrokenPipeError, ConnectionResetError) as e:
            r = {"error": {"code": -32005, "message": str(e)}}  # refused before we wrote
        if r is not None and "result" in r:
            conns.append(c)
            continue
        c.close()
        if r is None or r.get("error", {}).get("code") != -32005 or time.monotonic() > deadline:
            fail("client %d was not served: %r" % (len(conns), r))
            return
        time.sleep(0.1)
    # All 64 at once: requests first, then the answers.
    for i, c in enumerate(conns):
        c.send(req(1000 + i, "route.get", {"address": "10.0.2.2"}) + b"\n")
    for i, c in enumerate(conns):
        got = c.readline()
        r = json.loads(got) if got else None
        if not r or r.get("id") != 1000 + i or r.get("result", {}).get("prefix") != "10.0.2.2/32":
            fail("concurrent client %d: %r" % (i, got))
    extra = Conn(path)
    got = extra.readline()
    r = check_error(got, {-32005}, None, "65th client") if got is not None else None
    if got is None:
        fail("65th client: closed without the too-many-clients error")
    elif r and "too many clients" not in r["error"]["message"]:
        fail("65th client: message %r" % r["error"]["message"])
    if extra.readline() is not None:
        fail("65th client: not closed after the error")
    else:
        print("# 64 clients served at once; the 65th got: %s" % (r["error"]["message"] if r else "?"))
    extra.close()
    # The 64 still work after the refusal.
    for i, c in enumerate(conns):
        r = c.call("stats.get", rid=2000 + i)
        if not r or r.get("id") != 2000 + i or "result" not in r:
            fail("client %d after the refusal: %r" % (i, r))
    for c in conns:
        c.close()
    # Once they are gone, a client is served again.
    while True:
        c = Conn(path)
        try:
            r = c.call("stats.get", rid="again")
        except (BrokenPipeError, ConnectionResetError):
            r = None
        c.close()
        if r is not None and "result" in r:
            break
        if time.monotonic() > deadline:
            fail("no client served after the 64 left: %r" % r)
            return
        time.sleep(0.1)


def phase_half(path):
    """Half a request, then gone; or half a request and end of input."""
    for _ in range(20):
        c = Conn(path)
        c.send(b'{"jsonrpc":"2.0","id":1,"method":"route.add","params":{"prefix":"10.66.0.0/16","via":"10')
        c.close()
    c = Conn(path)
    c.send(req(1, "route.add", {"prefix": "10.66.0.0/16", "via": "10.0.2.2"}))  # no newline
    c.close()
    c = Conn(path)
    c.send(b'{"jsonrpc":"2.0","id":1,"meth')
    c.s.shutdown(socket.SHUT_WR)
    got = c.readline()
    if got is not None:
        fail("half a request then end of input: got %r, expected the connection closed" % got[:200])
    c.close()
    c = Conn(path)
    r = c.call("route.get", {"address": "10.66.1.1"}, rid="chk")
    if not r or r.get("error", {}).get("code") != -32001:
        fail("a half-sent route.add was applied, or dpr does not answer: %r" % r)
    else:
        print("# half requests were dropped, not executed; dpr still answers")
    c.close()


def phase_shut(path):
    """Requests, then end of input (shutdown(SHUT_WR), as socat and nc -N do):
    every answer still comes, then the close; more than a socket buffer holds."""
    n = 500
    c = Conn(path)
    c.send(b"".join(req(i, "stats.get") + b"\n" for i in range(n)))
    c.s.shutdown(socket.SHUT_WR)
    got = 0
    while True:
        line = c.readline()
        if line is None:
            break
        r = json.loads(line)
        if r.get("id") != got or "result" not in r:
            fail("answer %d after end of input: %r" % (got, line[:200]))
            break
        got += 1
    c.close()
    if got != n:
        fail("%d requests then end of input: %d answers before the close" % (n, got))
    else:
        print("# %d requests then end of input: all %d answered, then closed" % (n, got))


def phase_flood(path):
    """Many requests without reading the answers, then gone."""
    c = Conn(path)
    reqs = [req(i, m, p) for i, (m, p) in enumerate(
        [("stats.get", None), ("config.get", None), ("route.list", None),
         ("route.get", {"address": "10.0.2.2"})] * 500)]
    c.send(b"\n".join(reqs) + b"\n")
    c.close()
    # One that never reads until dpr gives up on it (answers over 64 MiB):
    # each answer echoes the request's 16 KiB id, so that the cap is
    # reached after about 4000 cheap requests, not 14000 stats.get.
    c = Conn(path)
    one = req("x" * 16384, "vrf.list") + b"\n"
    batch = one * 64
    sent = 0
    dropped = None
    try:
        for _ in range(200):  # at most ~200 MiB of requests
            c.send(batch)
            sent += 64
    except (BrokenPipeError, ConnectionResetError) as e:
        dropped = e
    if dropped is None:
        fail("a client that never reads was not dropped after %d requests" % sent)
    else:
        print("# a client that never read was dropped after about %d requests (%s)"
              % (sent, type(dropped).__name__))
    c.close()
    c = Conn(path)
    r = c.call("stats.get", rid="after-flood")
    if not r or "result" not in r:
        fail("not served after the floods: %r" % r)
    c.close()


def phase_call(path, method, params=None):
    c = Conn(path)
    r = c.call(method, json.loads(params) if params else None)
    print(json.dumps(r))
    c.close()
    if not r or "result" not in r:
        fail("%s: %r" % (method, r))


def main():
    path, phase = sys.argv[1], sys.argv[2]
    fn = {
        "malformed": phase_malformed, "boundary": phase_boundary, "huge": phase_huge,
        "huge_pending": phase_huge_pending,
        "clients": phase_clients, "half": phase_half, "shut": phase_shut,
        "flood": phase_flood,
        "call": phase_call,
    }[phase]
    try:
        fn(path, *sys.argv[3:])
    except (OSError, ValueError) as e:  # timeouts, refused connections, bad JSON
        fail("%s: %s: %s" % (phase, type(e).__name__, e))
    sys.exit(1 if FAILS else 0)


if __name__ == "__main__":
    main()

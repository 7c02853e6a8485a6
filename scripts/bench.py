#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""dpr against dpdk-testpmd and dpdk-l3fwd on the same traffic, in one run.

Called by scripts/bench.sh (which installs and builds first). Every case
runs on one worker lcore with traffic from net_pcap (infinite_rx) into
net_null; cases are interleaved round by round and reported as medians.
Mpps is the packets sent on all ports per second, read from DPDK telemetry
(/ethdev/stats) over the measurement window after a warm-up.
"""
import argparse
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import time

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(TOP, "build", "bench")
EAL = ["--no-pci", "--in-memory", "-l", "0,1", "--log-level", "*:warning"]


def log(*a):
    print(*a, file=sys.stderr, flush=True)


class Telemetry:
    """A minimal client of DPDK's telemetry socket (v2, SOCK_SEQPACKET)."""

    def __init__(self, prefix, timeout=60):
        path = "/var/run/dpdk/%s/dpdk_telemetry.v2" % prefix
        deadline = time.time() + timeout
        while True:
            try:
                self.s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
                self.s.connect(path)
                break
            except OSError:
                if time.time() > deadline:
                    raise
                time.sleep(0.2)
        info = json.loads(self.s.recv(16384).decode())
        self.max = info.get("max_output_len", 16384)

    def get(self, cmd):
        self.s.send(cmd.encode())
        return json.loads(self.s.recv(self.max).decode())

    def opackets(self, ports):
        """Packets sent on @ports; 0 while a port does not exist yet."""
        n = 0
        for p in ports:
            st = self.get("/ethdev/stats,%d" % p).get("/ethdev/stats")
            n += st["opackets"] if st else 0
        return n


def run_case(case, warmup, duration):
    """Start the case's command, measure, stop it. Returns Mpps."""
    prefix = "bench-%s-%d" % (case["name"].replace(" ", "_"), os.getpid())
    cmd = case["cmd"](prefix)
    with open(os.path.join(OUT, "log-%s.txt" % case["name"].replace(" ", "_")), "w") as logf:
        env = dict(os.environ, **case.get("env", {}))
        p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=logf, stderr=subprocess.STDOUT,
                             env=env, cwd=TOP)
        try:
            tel = Telemetry(prefix)
            # Ready when packets leave: route loading is not measured
            # (l3fwd's rte_lpm takes about a minute for the full table).
            deadline = time.time() + 300
            while tel.opackets(case["ports"]) == 0:
                if p.poll() is not None or time.time() > deadline:
                    raise RuntimeError("no traffic (see %s)" % logf.name)
                time.sleep(0.5)
            time.sleep(warmup)
            a, t0 = tel.opackets(case["ports"]), time.time()
            time.sleep(duration)
            b, t1 = tel.opackets(case["ports"]), time.time()
            return (b - a) / (t1 - t0) / 1e6
        finally:
            p.send_signal(signal.SIGINT)
            try:
                p.wait(timeout=30)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
            subprocess.run(["rm", "-rf", "/var/run/dpdk/" + prefix])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cases", required=True, help="JSON file describing the cases")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--warmup", type=float, default=2.0)
    ap.add_argument("--duration", type=float, default=5.0)
    a = ap.parse_args()
    spec = json.load(open(a.cases))
    cases = []
    for c in spec["cases"]:
        c = dict(c)
        argv = c["argv"]
        c["cmd"] = (lambda argv: lambda prefix: [x.replace("@PREFIX@", prefix) for x in argv])(argv)
        cases.append(c)

    results = {c["name"]: [] for c in cases}
    by_round = {c["name"]: [None] * a.rounds for c in cases}
    for r in range(a.rounds):
        # Each round starts one case later: no case always runs first
        # (after the previous round's last) or last.
        k = r % len(cases)
        for c in cases[k:] + cases[:k]:
            try:
                mpps = run_case(c, a.warmup, a.duration)
            except Exception as e:  # a failed case is reported, not fatal
                log("bench: %s: %s" % (c["name"], e))
                mpps = None
            log("bench: round %d/%d %-28s %s" % (r + 1, a.rounds, c["name"],
                "%.2f Mpps" % mpps if mpps is not None else "FAILED"))
            if mpps is not None:
                results[c["name"]].append(mpps)
                by_round[c["name"]][r] = mpps

    out = []
    for c in cases:
        runs = results[c["name"]]
        out.append({
            "name": c["name"], "app": c["app"], "table": c["table"],
            "routes": c.get("routes", 0),
            "mpps_median": statistics.median(runs) if runs else None,
            "mpps_min": min(runs) if runs else None,
            "mpps_max": max(runs) if runs else None,
            "runs": runs,
            "by_round": by_round[c["name"]],
        })
    json.dump({"cases": out, "rounds": a.rounds, "duration_s": a.duration,
               "warmup_s": a.warmup}, sys.stdout, indent=2)
    print()


if __name__ == "__main__":
    main()

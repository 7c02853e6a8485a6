#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""dpr against dpdk-testpmd and dpdk-l3fwd on the same traffic, in one run.

Called by scripts/bench.sh (which installs and builds first). Every case
runs on one worker lcore with traffic from net_pcap (infinite_rx) into
net_null; cases are interleaved round by round and reported as medians.
Mpps is the packets sent on all ports per second, read from DPDK telemetry
(/ethdev/stats) over the measurement window after a warm-up.

With --perf, `perf record -e cpu-clock` samples the forwarding lcore's CPU
over the same window, and each run also gives the share of its samples in
the application's own binary (the rest: PMDs, libraries): with the Mpps of
the window, nanoseconds a packet in the application's own code and in the
rest, the split instruction counts cannot give (they cost no cycles alike).
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
PERF_CPU = "1"   # every case forwards on lcore 1 (scripts/bench.sh)


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


def own_share(data, binary):
    """Share of the samples in @binary (a file name) in a perf.data file."""
    rep = subprocess.run(["perf", "report", "-i", data, "--stdio", "--sort", "dso"],
                         capture_output=True, text=True).stdout
    total = own = 0.0
    for line in rep.splitlines():
        f = line.split()
        if len(f) == 2 and f[0].endswith("%"):
            pct = float(f[0].rstrip("%"))
            total += pct
            if f[1] == binary:
                own += pct
    return own / total if total > 0 else None


def run_case(case, warmup, duration, perf=None):
    """Start the case's command, measure, stop it. Returns Mpps and, with
    @perf (the perf.data path), the share of samples in its own binary."""
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
            if perf:
                subprocess.run(["perf", "record", "-q", "-e", "cpu-clock", "-C", PERF_CPU,
                                "-o", perf, "--", "sleep", str(duration)],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            else:
                time.sleep(duration)
            b, t1 = tel.opackets(case["ports"]), time.time()
            share = own_share(perf, os.path.basename(cmd[0])) if perf else None
            return (b - a) / (t1 - t0) / 1e6, share
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
    ap.add_argument("--perf", action="store_true",
                    help="sample the forwarding CPU with perf over each window")
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
    own_ns = {c["name"]: [] for c in cases}
    rest_ns = {c["name"]: [] for c in cases}
    for r in range(a.rounds):
        # Each round starts one case later: no case always runs first
        # (after the previous round's last) or last.
        k = r % len(cases)
        for c in cases[k:] + cases[:k]:
            perf = os.path.join(OUT, "perf-%s-r%d.data" % (c["name"].replace(" ", "_"), r + 1)) \
                if a.perf else None
            try:
                mpps, share = run_case(c, a.warmup, a.duration, perf)
            except Exception as e:  # a failed case is reported, not fatal
                log("bench: %s: %s" % (c["name"], e))
                mpps, share = None, None
            split = ""
            if mpps and share is not None:
                own_ns[c["name"]].append(share * 1e3 / mpps)
                rest_ns[c["name"]].append((1 - share) * 1e3 / mpps)
                split = " (own code %.1f ns/packet, rest %.1f)" % (own_ns[c["name"]][-1],
                                                                   rest_ns[c["name"]][-1])
            log("bench: round %d/%d %-28s %s%s" % (r + 1, a.rounds, c["name"],
                "%.2f Mpps" % mpps if mpps is not None else "FAILED", split))
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
            "own_ns_per_packet_median": statistics.median(own_ns[c["name"]])
            if own_ns[c["name"]] else None,
            "rest_ns_per_packet_median": statistics.median(rest_ns[c["name"]])
            if rest_ns[c["name"]] else None,
        })
    json.dump({"cases": out, "rounds": a.rounds, "duration_s": a.duration,
               "warmup_s": a.warmup}, sys.stdout, indent=2)
    print()


if __name__ == "__main__":
    main()

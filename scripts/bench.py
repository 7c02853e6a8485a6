#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""dpr against dpdk-testpmd and dpdk-l3fwd on the same traffic, in one run.

Called by scripts/bench.sh (which installs and builds first). Every case
runs on one worker lcore with traffic from net_pcap (infinite_rx) into
net_null; cases are interleaved round by round and reported as medians.
Mpps is the packets sent on the case's output ports per second, read from
DPDK telemetry (/ethdev/stats) over the measurement window after a warm-up.
Every packet of the benchmark's traffic has a route out, so a case that
sends fewer packets than it receives drops or diverts some (or the harness
is wrong), and its Mpps is not a forwarding rate: that is reported and
warned about. The share is exact from the counters an application leaves at
exit (dpr's --stats-file, which also names the reasons; l3fwd's
"L3FWD-BENCH: port" lines), else approximate from /ethdev/stats of the
input ports over the window (two telemetry reads apart: on a loaded machine
a few percent either way).

Cases (JSON): name, app, table, family, routes, argv (@PREFIX@: a unique EAL
--file-prefix, @CASE@: the case's name), env, ports (output), rx_ports (input),
stats (dpr's --stats-file, after substitution). Logs and perf data go next
to the cases file.

With --perf, `perf record -e cpu-clock` samples the forwarding lcore's CPU
over the same window, and each run also gives the share of its samples in
the application's own code, its binary and DPDK's lookup libraries
(LOOKUP_DSOS; the rest: PMDs, other libraries): with the Mpps of
the window, nanoseconds a packet in the application's own code and in the
rest, the split instruction counts cannot give (they cost no cycles alike).

With --ballast N, before each case starts (before each regime's group with
--slice) the harness maps k free 2 MiB hugepages, k drawn uniformly from
0..N, touches them, and holds them until the case has stopped (Ballast).
The kernel hands out free hugepages last freed first, so every case would
otherwise get the pages the case before it gave back, round after round: on
these VMs, whose host backs the guest's pages unevenly (the memory probe's
"DRAM through 2 MiB hugepages" spread), that is a fixed bias of one case
against another. The ballast makes placement a draw each run, noise that
the medians absorb; k is recorded per case and round.
"""
import argparse
import json
import mmap
import os
import random
import signal
import socket
import statistics
import subprocess
import sys
import time

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(TOP, "build", "bench")   # the cases file's folder (main)
PERF_CPU = "1"   # every case forwards on lcore 1 (scripts/bench.sh)
SHARE_WARN = 0.999          # exact, from the counters at exit
SHARE_WARN_WINDOW = 0.95    # from telemetry over the window


def log(*a):
    print(*a, file=sys.stderr, flush=True)


class Ballast:
    """Hugepages held while a case runs: k of the free 2 MiB pages, k drawn
    from 0..@most, never leaving fewer than @leave free (what the cases were
    given: pages another user holds come out of the ballast). Anonymous
    MAP_HUGETLB memory, from the pool DPDK's --in-memory takes its own from.
    hold() returns k (None when it could not map them, which turns the
    ballast off with a message), release() gives them back."""

    SYSFS = "/sys/kernel/mm/hugepages/hugepages-2048kB/free_hugepages"
    PAGE = 2 << 20
    MAP_HUGETLB = getattr(mmap, "MAP_HUGETLB", 0x40000)   # Linux's value

    def __init__(self, most, leave):
        self.most, self.leave, self.m = most, leave, None
        self.off = None if most > 0 else "not asked for"

    def hold(self):
        if self.off:
            return None
        try:
            free = int(open(self.SYSFS).read())
        except (OSError, ValueError) as e:
            self.off = "no 2 MiB hugepages to read (%s)" % e
            log("bench: ballast off: %s" % self.off)
            return None
        k = min(random.randint(0, self.most), max(0, free - self.leave))
        if k == 0:
            return 0
        try:
            self.m = mmap.mmap(-1, k * self.PAGE, flags=mmap.MAP_PRIVATE |
                               mmap.MAP_ANONYMOUS | self.MAP_HUGETLB)
            for i in range(k):       # the pages are taken when touched
                self.m[i * self.PAGE] = 1
        except (OSError, ValueError) as e:
            self.release()
            self.off = "cannot map %d hugepages of %d free (%s)" % (k, free, e)
            log("bench: ballast off: %s" % self.off)
            return None
        return k

    def release(self):
        if self.m is not None:
            self.m.close()
            self.m = None


class Telemetry:
    """A minimal client of DPDK's telemetry socket (v2, SOCK_SEQPACKET)."""

    def __init__(self, prefix, timeout=60):
        path = "/var/run/dpdk/%s/dpdk_telemetry.v2" % prefix
        deadline = time.monotonic() + timeout
        while True:
            try:
                self.s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
                self.s.connect(path)
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.2)
        info = json.loads(self.s.recv(16384).decode())
        self.max = info.get("max_output_len", 16384)

    def get(self, cmd):
        self.s.send(cmd.encode())
        return json.loads(self.s.recv(self.max).decode())

    def count(self, ports, what="opackets"):
        """Packets sent (or @what) on @ports; 0 while a port does not exist yet."""
        n = 0
        for p in ports:
            st = self.get("/ethdev/stats,%d" % p).get("/ethdev/stats")
            n += st[what] if st else 0
        return n

    def opackets(self, ports):
        return self.count(ports)


# DPDK's lookup libraries: an application's routing work, though linked as
# shared objects. l3fwd's rte_lpm_lookup() is inline (in its binary), but
# rte_lpm6_lookup() and rte_fib_lookup_bulk() are functions of these, which
# took 17.6 % of l3fwd LPM's samples on small6 (2026-12-02): counted as "rest",
# l3fwd's own code looked that much cheaper than dpr's, whose FIBs are its own.
LOOKUP_DSOS = ("librte_lpm.so", "librte_fib.so")


def own_share(data, binary):
    """Share of the samples in @binary (a file name) and in the lookup
    libraries (LOOKUP_DSOS) in a perf.data file."""
    rep = subprocess.run(["perf", "report", "-i", data, "--stdio", "--sort", "dso"],
                         capture_output=True, text=True).stdout
    total = own = 0.0
    for line in rep.splitlines():
        f = line.split()
        if len(f) == 2 and f[0].endswith("%"):
            pct = float(f[0].rstrip("%"))
            total += pct
            if f[1] == binary or f[1].startswith(LOOKUP_DSOS):
                own += pct
    return own / total if total > 0 else None


def dpr_not_forwarded(path):
    """What dpr did with the packets it did not forward, from its
    --stats-file: {"rx": n, "forwarded": n, reason: n, ...}, or None."""
    try:
        st = json.load(open(path))
    except (OSError, ValueError):
        return None
    out = {"rx": 0, "forwarded": 0}
    for port in st.get("ports", []):
        out["rx"] += port.get("rx", 0)
        out["forwarded"] += port.get("forwarded", 0)
        for group in ("drops", "exceptions"):
            for k, v in port.get(group, {}).items():
                if v:
                    out["%s.%s" % (group, k)] = out.get("%s.%s" % (group, k), 0) + v
    return out


def dpr_tuner(tel):
    """dpr's first worker now, from telemetry: (pipelined, the probes that
    changed the way), or None (not dpr, or no answer)."""
    try:
        w = tel.get("/dpr/workers").get("/dpr/workers") or {}
    except (OSError, ValueError):
        return None
    if "worker/0/pipelined" not in w:
        return None
    return bool(w["worker/0/pipelined"]), w.get("worker/0/pipeline_changes", 0)


def window_way(start, end):
    """How dpr's first worker ran its bursts over the measured window, from
    its tuner's state at the window's start and end (dpr_tuner()): True
    (pipelined) or False (at once) when it was the same at both ends and no
    probe changed it in between (a probe that kept it ran the other way for
    2^22 packets, about 2 % of a 5-s window at 40 Mpps), "changed"
    otherwise (also when an end fell inside a probe, whose windows switch
    the way), None when unknown. A run's second probe starts after 2^28 +
    2^23 packets, about 7 s at 40 Mpps, near the window's end, so the way at
    exit need not be the window's."""
    if start is None or end is None:
        return None
    if start[0] == end[0] and start[1] == end[1]:
        return start[0]
    return "changed"


def l3fwd_share(log_path, ports, rx_ports):
    """Sent on @ports over received on @rx_ports from l3fwd's exit lines, or None."""
    rx = tx = 0
    seen = False
    try:
        for line in open(log_path):
            f = line.split()
            if line.startswith("L3FWD-BENCH: port ") and len(f) >= 7:
                seen = True
                p = int(f[2])
                rx += int(f[4]) if p in rx_ports else 0
                tx += int(f[6]) if p in ports else 0
    except (OSError, ValueError):
        return None
    return tx / rx if seen and rx else None


def stop_app(p, prefix):
    """Stop the DPDK application @p (SIGINT, then SIGKILL after 30 s) and
    remove its runtime directory (EAL --file-prefix @prefix)."""
    p.send_signal(signal.SIGINT)
    try:
        p.wait(timeout=30)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()
    subprocess.run(["rm", "-rf", "/var/run/dpdk/" + prefix])


def launch(case, own_config=False):
    """Start the case's command and wait until packets leave. Returns its
    state for measure() and finish(): the process, its EAL prefix, its
    telemetry and its log. With @own_config, a dpr case gets a copy of its
    configuration with a control socket of its own, so that several dpr
    run side by side (run_group())."""
    name = case["name"].replace(" ", "_")
    prefix = "bench-%s-%d" % (name, os.getpid())
    cmd = case["cmd"](prefix)
    if own_config and case.get("app") == "dpr" and "-c" in cmd:
        i = cmd.index("-c") + 1
        cfg = json.load(open(os.path.join(TOP, cmd[i])))
        cfg.setdefault("control", {})["socket"] = "/run/dpr/%s.sock" % prefix
        cmd[i] = os.path.join(OUT, "config-%s.json" % name)
        json.dump(cfg, open(cmd[i], "w"))
    stats = case.get("stats")
    if stats:
        stats = stats.replace("@CASE@", name)
        try:
            os.unlink(stats)
        except OSError:
            pass
    case["exact_share"] = None
    case["ready_s"] = 0
    case["pipelined"] = None
    logf = open(os.path.join(OUT, "log-%s.txt" % name), "w")
    env = dict(os.environ, **case.get("env", {}))
    p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=logf, stderr=subprocess.STDOUT,
                         env=env, cwd=TOP)
    run = {"p": p, "prefix": prefix, "cmd": cmd, "stats": stats, "log": logf, "measured": False}
    try:
        t_start = time.monotonic()
        run["tel"] = Telemetry(prefix)
        # Ready when packets leave: route loading is not measured
        # (l3fwd's rte_lpm takes about a minute for the full table).
        deadline = time.monotonic() + 300
        while run["tel"].opackets(case["ports"]) == 0:
            if p.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("no traffic (see %s)" % logf.name)
            time.sleep(0.5)
        case["ready_s"] = time.monotonic() - t_start
    except BaseException:
        finish(case, run)
        raise
    return run


def measure(case, run, duration, perf=None):
    """Packets sent on the case's ports and received on its RX ports over
    @duration seconds, and the seconds: (sent, received, seconds), with
    perf sampling the forwarding CPU into @perf meanwhile."""
    tel = run["tel"]
    a, t0 = tel.opackets(case["ports"]), time.monotonic()
    ra = tel.count(case.get("rx_ports", []), "ipackets")
    if perf:
        subprocess.run(["perf", "record", "-q", "-e", "cpu-clock", "-C", PERF_CPU,
                        "-o", perf, "--", "sleep", str(duration)],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    else:
        time.sleep(duration)
    b, t1 = tel.opackets(case["ports"]), time.monotonic()
    rb = tel.count(case.get("rx_ports", []), "ipackets")
    run["measured"] = run["measured"] or b > a
    return b - a, rb - ra, t1 - t0


def finish(case, run):
    """Stop the case's application and read what it counted at exit: the
    exact share of the packets it forwarded (case["exact_share"])."""
    stop_app(run["p"], run["prefix"])
    run["log"].close()
    rx_ports = case.get("rx_ports", [])
    stats = run["stats"]
    if case.get("app", "").startswith("l3fwd"):
        case["exact_share"] = l3fwd_share(run["log"].name, case["ports"], rx_ports)
    if stats:
        nf = dpr_not_forwarded(stats)
        if nf and nf["rx"]:
            case["exact_share"] = nf["forwarded"] / nf["rx"]
        elif nf is not None and run["measured"]:
            log("bench: WARNING: %s: dpr's counters at exit (%s) say no packet was "
                "received, though its ports sent some: a counting bug" % (case["name"], stats))
        if nf and nf["forwarded"] < nf["rx"]:
            log("bench: %s: dpr forwarded %d of %d packets received; the rest: %s" % (
                case["name"], nf["forwarded"], nf["rx"],
                ", ".join("%s %d" % (k, v) for k, v in sorted(nf.items())
                          if k not in ("rx", "forwarded")) or "uncounted"))


def run_case(case, warmup, duration, perf=None, ballast=None):
    """Start the case's command, measure, stop it. Returns Mpps, the share
    of received packets it forwarded over the window, and, with @perf (the
    perf.data path), the share of samples in its own binary. With @ballast,
    its pages are held from before the start until the case has stopped
    (case["ballast"]: how many)."""
    case["ballast"] = ballast.hold() if ballast else None
    try:
        run = launch(case)
    except BaseException:
        if ballast:
            ballast.release()
        raise
    try:
        time.sleep(warmup)
        tuner = dpr_tuner(run["tel"]) if case.get("app") == "dpr" else None
        sent, received, secs = measure(case, run, duration, perf)
        if tuner is not None:
            case["pipelined"] = window_way(tuner, dpr_tuner(run["tel"]))
        share = own_share(perf, os.path.basename(run["cmd"][0])) if perf else None
        fwd = sent / received if case.get("rx_ports") and received > 0 else None
        return sent / secs / 1e6, fwd, share
    finally:
        finish(case, run)
        if ballast:
            ballast.release()


def run_group(cases, warmup, duration, slice_s, settle, ballast=None):
    """The cases of one regime side by side: each started in turn, warmed
    up and stopped (SIGSTOP), then continued one at a time for slices of
    @slice_s seconds (measured after @settle seconds back), in the order
    A B C, C B A, A B C... until each has run @duration seconds measured.
    Every case's rate then comes from the same stretch of time, the others'
    slices between its own: noise that lasts longer than a few slices (a
    neighbour's job on a shared host) falls on all of them alike, and the
    ratios of one round compare like with like. Returns {name: (Mpps,
    forwarded share over the slices)}; a case that fails is left out. With
    @ballast, its pages are held from before the first start until every
    case has stopped (each case's "ballast": how many)."""
    runs = {}
    k = ballast.hold() if ballast else None
    for c in cases:
        c["ballast"] = k
        try:
            runs[c["name"]] = launch(c, own_config=True)
        except Exception as e:  # a failed case is reported, not fatal
            log("bench: %s: %s" % (c["name"], e))
            continue
        time.sleep(warmup)
        os.kill(runs[c["name"]]["p"].pid, signal.SIGSTOP)
    live = [c for c in cases if c["name"] in runs]
    total = {c["name"]: [0, 0, 0.0] for c in live}
    tuners = {}
    try:
        for k in range(max(1, round(duration / slice_s))):
            for c in live if k % 2 == 0 else live[::-1]:
                run = runs[c["name"]]
                os.kill(run["p"].pid, signal.SIGCONT)
                time.sleep(settle)
                if c.get("app") == "dpr" and k == 0:
                    tuners[c["name"]] = dpr_tuner(run["tel"])
                sent, received, secs = measure(c, run, slice_s)
                t = total[c["name"]]
                t[0] += sent
                t[1] += received
                t[2] += secs
                if c["name"] in tuners:
                    c["pipelined"] = window_way(tuners[c["name"]], dpr_tuner(run["tel"]))
                os.kill(run["p"].pid, signal.SIGSTOP)
    finally:
        for c in cases:
            if c["name"] in runs:
                os.kill(runs[c["name"]]["p"].pid, signal.SIGCONT)
                finish(c, runs[c["name"]])
        if ballast:
            ballast.release()
    return {n: (t[0] / t[2] / 1e6 if t[2] > 0 else None,
                t[0] / t[1] if t[1] > 0 else None) for n, t in total.items()}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cases", required=True, help="JSON file describing the cases")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--warmup", type=float, default=2.0)
    ap.add_argument("--duration", type=float, default=5.0)
    ap.add_argument("--perf", action="store_true",
                    help="sample the forwarding CPU with perf over each window")
    ap.add_argument("--probe", help="dpr-mem-probe, run before each round: the L3 "
                    "the round had (tests/bench/mem_probe.c)")
    ap.add_argument("--slice", type=float, default=0.0,
                    help="run each regime's cases side by side, in turn for slices of "
                    "this many seconds (run_group()); 0: one case after another")
    ap.add_argument("--settle", type=float, default=0.1,
                    help="with --slice: seconds a case runs before its slice is measured")
    ap.add_argument("--ballast", type=int, default=0, metavar="N",
                    help="hold 0..N random free 2 MiB hugepages while each case runs (Ballast)")
    ap.add_argument("--ballast-leave", type=int, default=0, metavar="PAGES",
                    help="with --ballast: leave at least this many hugepages free")
    a = ap.parse_args()
    ballast = Ballast(a.ballast, a.ballast_leave) if a.ballast > 0 else None
    if a.slice > 0 and a.perf:
        log("bench: --perf is not taken with --slice: the CPU's samples would "
            "mix the cases")
        a.perf = False
    global OUT
    OUT = os.path.dirname(os.path.abspath(a.cases))
    spec = json.load(open(a.cases))
    cases = []
    for c in spec["cases"]:
        c = dict(c)
        argv = c["argv"]
        name = c["name"].replace(" ", "_")
        c["cmd"] = (lambda argv, name: lambda prefix: [
            x.replace("@PREFIX@", prefix).replace("@CASE@", name) for x in argv])(argv, name)
        if c.get("app") == "dpr" and "--stats-file" in argv:
            c["stats"] = argv[argv.index("--stats-file") + 1]
        cases.append(c)

    results = {c["name"]: [] for c in cases}
    by_round = {c["name"]: [None] * a.rounds for c in cases}
    own_ns = {c["name"]: [] for c in cases}
    rest_ns = {c["name"]: [] for c in cases}
    fwd_share = {c["name"]: [] for c in cases}
    pipelined = {c["name"]: [None] * a.rounds for c in cases}
    ballast_k = {c["name"]: [None] * a.rounds for c in cases}
    probes = []
    for r in range(a.rounds):
        if a.probe:
            try:
                probes.append(json.loads(subprocess.run(
                    [a.probe], check=True, capture_output=True, text=True,
                    timeout=120).stdout))
                huge = probes[-1].get("huge_ns")
                log("bench: round %d/%d machine: a dependent multiply %s ns; effective L3 %s "
                    "MiB of %s (chase ns by MiB %s, DRAM %s%s)" % (
                        r + 1, a.rounds, probes[-1].get("mul_ns", "?"),
                        probes[-1]["effective_l3_mib"], probes[-1]["l3_mib"],
                        probes[-1]["chase_ns"], probes[-1]["dram_ns"],
                        ", through hugepages %.0f-%.0f by region" % (min(huge), max(huge))
                        if huge else ""))
            except (OSError, ValueError, subprocess.SubprocessError) as e:
                log("bench: %s: %s" % (a.probe, e))
        # Each round starts one case later: no case always runs first
        # (after the previous round's last) or last.
        k = r % len(cases)
        order = cases[k:] + cases[:k]
        sliced = {}
        if a.slice > 0:
            # A regime's cases side by side; testpmd's traffic is the
            # small table's.
            groups = {}
            for c in cases:
                groups.setdefault(c["table"] if c["table"] != "none" else "small", []).append(c)
            for g in groups.values():
                # Each round a regime's cases start one later: no case
                # always runs first (or last) in its slices.
                g = g[r % len(g):] + g[:r % len(g)]
                try:
                    sliced.update(run_group(g, a.warmup, a.duration, a.slice, a.settle,
                                            ballast))
                except Exception as e:  # the group's cases are reported failed
                    log("bench: %s: %s" % (", ".join(c["name"] for c in g), e))
        for c in order:
            perf = os.path.join(OUT, "perf-%s-r%d.data" % (c["name"].replace(" ", "_"), r + 1)) \
                if a.perf else None
            if a.slice > 0:
                mpps, fwd = sliced.get(c["name"], (None, None))
                share = None
            else:
                try:
                    mpps, fwd, share = run_case(c, a.warmup, a.duration, perf, ballast)
                except Exception as e:  # a failed case is reported, not fatal
                    log("bench: %s: %s" % (c["name"], e))
                    mpps, fwd, share = None, None, None
            exact = c.get("exact_share")
            if exact is not None or fwd is not None:
                fwd_share[c["name"]].append(exact if exact is not None else fwd)
                if exact is not None and exact < SHARE_WARN or \
                        exact is None and fwd < SHARE_WARN_WINDOW:
                    log("bench: WARNING: %s sent only %.2f%% of the packets it received%s: "
                        "not a forwarding rate (see its log)" % (
                            c["name"], 100 * (exact if exact is not None else fwd),
                            "" if exact is not None else " (over the window)"))
                fwd = exact if exact is not None else fwd
            split = ""
            if mpps and share is not None:
                own_ns[c["name"]].append(share * 1e3 / mpps)
                rest_ns[c["name"]].append((1 - share) * 1e3 / mpps)
                split = " (own code %.1f ns/packet, rest %.1f)" % (own_ns[c["name"]][-1],
                                                                   rest_ns[c["name"]][-1])
            ballast_k[c["name"]][r] = c.get("ballast")
            log("bench: round %d/%d %-28s %s%s%s%s" % (r + 1, a.rounds, c["name"],
                "%.2f Mpps" % mpps if mpps is not None else "FAILED",
                ", forwarded %.2f%%%s" % (100 * fwd, "" if exact is not None else " (window)")
                if fwd is not None else "", split,
                ", ballast %d hugepages" % c["ballast"] if c.get("ballast") is not None else ""))
            if c.get("ready_s", 0) > 10:
                log("bench: (%s took %.0f s to start forwarding)" % (c["name"], c["ready_s"]))
            if mpps is not None:
                results[c["name"]].append(mpps)
                by_round[c["name"]][r] = mpps
            pipelined[c["name"]][r] = c.get("pipelined")

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
            "family": c.get("family", "4"),
            "feed": c.get("feed", "pcap"),
            "workers": c.get("workers"),
            "shared_main": c.get("shared_main", False),
            "forwarded_share_min": min(fwd_share[c["name"]]) if fwd_share[c["name"]] else None,
            "pipelined_by_round": pipelined[c["name"]] if c.get("app") == "dpr" else None,
            "algorithm": c.get("algorithm"),
            "variant": c.get("variant"),
            "ballast_by_round": ballast_k[c["name"]],
        })
    json.dump({"cases": out, "rounds": a.rounds, "duration_s": a.duration,
               "warmup_s": a.warmup, "slice_s": a.slice, "memory_probes": probes,
               "ballast": {"max_pages": a.ballast, "leave_pages": a.ballast_leave,
                           "off": ballast.off if ballast else "not asked for (--ballast 0)"}},
              sys.stdout, indent=2)
    print()


if __name__ == "__main__":
    main()

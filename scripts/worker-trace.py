#!/usr/bin/env python3
"""Run dpr on a config and print its first worker's rate and tuner state
over time, from DPDK telemetry (/dpr/workers), without perf or a report.

  scripts/worker-trace.py [--dpr BIN] [--seconds T] [--every DT] CONFIG [DPR_ARG ...]

Each line: seconds since start, packets received, busy cycles a packet and
Mpps over the last interval, the way bursts run now (pipelined 1/0), the
tuner's probes and changes so far. For the benchmark's configs
(build-rel/bench/dpr-TABLE.json, made by `PREPARE=1 scripts/bench.sh`),
e.g. the ways on the small table, alternated:

  for i in 1 2 3 4 5; do for m in auto off on; do
    scripts/worker-trace.py --seconds 7.3 --every 2.4 build-rel/bench/dpr-small.json --pipeline $m | tail -2
  done; done

The rate is dpr's own RX count: as the benchmark's (which counts what the
output port sent) when dpr forwards everything. No perf samples the CPU, so
rates run a few % above bench.sh's PERF=1 ones. Run as root, one at a time,
with nothing else on the forwarding CPU (lcore 1).
"""
import argparse
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench import Telemetry, stop_app  # noqa: E402

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dpr", default=os.path.join(TOP, "build-rel/app/dpr"),
                    help="the dpr binary")
    ap.add_argument("--seconds", type=float, default=9.0, help="how long to run")
    ap.add_argument("--every", type=float, default=0.5, help="seconds between lines")
    ap.add_argument("config")
    ap.add_argument("dpr_args", nargs=argparse.REMAINDER,
                    help="more dpr options (after --), e.g. --pipeline off")
    a = ap.parse_args()
    prefix = "worker-trace-%d" % os.getpid()
    cmd = [os.path.abspath(a.dpr), "--no-pci", "--in-memory", "--file-prefix", prefix,
           "--log-level", "*:warning", "-l", "0,1", "--", "-c", os.path.abspath(a.config),
           "--pool-size", "98304"] + a.dpr_args
    # dpr's messages to a file, not a pipe that nobody reads while it runs.
    err = tempfile.TemporaryFile()
    p = subprocess.Popen(cmd, cwd=TOP, stdout=subprocess.DEVNULL, stderr=err)
    try:
        tel = Telemetry(prefix)
        t0, last = time.monotonic(), None
        while time.monotonic() - t0 < a.seconds:
            if p.poll() is not None:
                err.seek(0)
                sys.exit("worker-trace: dpr exited: %s" % err.read().decode()[-2000:])
            w = tel.get("/dpr/workers").get("/dpr/workers") or {}
            rx, cyc, now = w.get("worker/0/rx", 0), w.get("worker/0/busy_cycles", 0), time.monotonic() - t0
            if last and rx > last[0]:
                print("%5.2f rx %7.1fM %6.1f cycles/packet %6.2f Mpps pipelined %d probes %d "
                      "changes %d" % (now, rx / 1e6, (cyc - last[1]) / (rx - last[0]),
                                      (rx - last[0]) / (now - last[2]) / 1e6,
                                      w.get("worker/0/pipelined", 0),
                                      w.get("worker/0/pipeline_probes", 0),
                                      w.get("worker/0/pipeline_changes", 0)), flush=True)
            last = (rx, cyc, now)
            time.sleep(a.every)
    finally:
        stop_app(p, prefix)


if __name__ == "__main__":
    main()

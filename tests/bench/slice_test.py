#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""scripts/bench.py --slice on two stand-in applications of known rates.

  slice_test.py BENCH_PY

Each stand-in ("app" mode of this file) answers DPDK telemetry's v2 socket
as a DPDK application would (/ethdev/stats of its ports) and counts packets
at a fixed rate for the time it runs: a SIGCONT starts its clock again, so
the time it spent stopped is not counted, and its count does not depend on
how fast the machine schedules it. The harness must then measure each
stand-in's own rate while the other is stopped, in slices of alternating
order, and leave nothing running.
"""
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

from checks import check, finish


def app(argv):
    """A stand-in application: --file-prefix P --rate PPS --log FILE."""
    opts = dict(zip(argv[0::2], argv[1::2]))
    prefix, rate, logf = opts["--file-prefix"], float(opts["--rate"]), opts["--log"]
    run_dir = "/var/run/dpdk/" + prefix
    os.makedirs(run_dir, exist_ok=True)
    state = {"count": 0.0, "since": time.monotonic()}
    lock = threading.Lock()

    def counted():
        with lock:
            now = time.monotonic()
            state["count"] += rate * (now - state["since"])
            state["since"] = now
            return int(state["count"])

    def resumed(signum, frame):
        # The clock restarts: the stopped time is not the application's.
        with lock:
            state["since"] = time.monotonic()
        with open(logf, "a") as f:
            f.write("%s %.6f\n" % (prefix, time.monotonic()))

    signal.signal(signal.SIGCONT, resumed)
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    path = os.path.join(run_dir, "dpdk_telemetry.v2")
    srv.bind(path)
    srv.listen(4)

    def serve(conn):
        # Signals go to the main thread, whose accept() they interrupt:
        # the handler then runs at once, and SIGINT ends the stand-in.
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGCONT, signal.SIGINT})
        conn.send(json.dumps({"version": "stand-in", "pid": os.getpid(),
                              "max_output_len": 16384}).encode())
        while True:
            cmd = conn.recv(1024).decode()
            if not cmd:
                return
            n = counted()
            if cmd.startswith("/ethdev/stats,"):
                reply = {"/ethdev/stats": {"opackets": n, "ipackets": n}}
            else:
                reply = {cmd.split(",")[0]: None}
            conn.send(json.dumps(reply).encode())

    try:
        while True:
            conn, _ = srv.accept()
            threading.Thread(target=serve, args=(conn,), daemon=True).start()
    except KeyboardInterrupt:
        pass




def main():
    bench = sys.argv[1]
    with tempfile.TemporaryDirectory() as d:
        logf = os.path.join(d, "resumed.txt")
        me = os.path.abspath(__file__)
        cases = [{"name": "fast t", "app": "fake", "table": "t", "ports": [1], "rx_ports": [0],
                  "argv": [sys.executable, me, "app", "--file-prefix", "@PREFIX@",
                           "--rate", "20000000", "--log", logf]},
                 {"name": "slow t", "app": "fake", "table": "t", "ports": [1], "rx_ports": [0],
                  "argv": [sys.executable, me, "app", "--file-prefix", "@PREFIX@",
                           "--rate", "10000000", "--log", logf]}]
        cf = os.path.join(d, "cases.json")
        json.dump({"cases": cases}, open(cf, "w"))
        p = subprocess.run([sys.executable, bench, "--cases", cf, "--rounds", "1",
                            "--warmup", "0.2", "--duration", "2", "--slice", "0.2",
                            "--settle", "0.02"], capture_output=True, text=True, timeout=120)
        check(p.returncode == 0, "bench.py --slice exits 0 (%s)" % p.stderr.strip()[-300:])
        try:
            out = {c["name"]: c for c in json.loads(p.stdout)["cases"]}
        except ValueError:
            out = {}
        fast = out.get("fast t", {}).get("mpps_median")
        slow = out.get("slow t", {}).get("mpps_median")
        check(fast is not None and abs(fast - 20) < 2, "the 20 Mpps stand-in measured %s" % fast)
        check(slow is not None and abs(slow - 10) < 1, "the 10 Mpps stand-in measured %s" % slow)
        check(fast is not None and slow is not None and abs(fast / slow - 2) < 0.2,
              "their ratio %s" % (fast / slow if fast and slow else None))
        check(json.loads(p.stdout or "{}").get("slice_s") == 0.2, "slice_s in the results")
        # Continued for slices of alternating order, fast slow, slow fast,
        # fast slow... (ten slices each); then each once more to be ended,
        # which its SIGINT may overtake (not checked).
        seq = [l.split()[0].split("-")[1][0] for l in open(logf)] if os.path.exists(logf) else []
        pairs = ["".join(seq[i:i + 2]) for i in range(0, min(len(seq), 20), 2)]
        check(pairs == ["fs", "sf"] * 5, "slices in the order A B, B A...: %s" % " ".join(pairs))
        left = subprocess.run(["pgrep", "-f", me + " app"], capture_output=True, text=True).stdout
        check(left.strip() == "", "no stand-in left running")
    finish("slice_test")


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "app":
        app(sys.argv[2:])
    else:
        main()

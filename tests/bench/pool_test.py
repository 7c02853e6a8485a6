#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""scripts/bench-pool.py on two made-up runs whose ratios are known.

  pool_test.py SCRIPT
"""
import json
import os
import subprocess
import sys
import tempfile

from checks import check, finish


def run(*args):
    p = subprocess.run([sys.executable, sys.argv[1]] + list(args), capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def write(d, name, cases, probes=None):
    path = os.path.join(d, name)
    doc = {"cases": [{"name": n, "by_round": r} for n, r in cases.items()]}
    if probes is not None:
        doc["memory_probes"] = [{"dram_ns": p, "chase_ns": {"1": 9.0, "2": 14.0, "4": c}}
                                for p, c in probes]
    with open(path, "w") as f:
        json.dump(doc, f)
    return path


with tempfile.TemporaryDirectory() as d:
    # Run 1: small6 / small 0.80 0.90 0.95 (median 0.90, meets 0.85);
    # run 2: 0.70 0.80 1.00 (median 0.80, misses). Pooled: 0.70 0.80 0.80
    # 0.90 0.95 1.00, median 0.85, 3 rounds at 0.85 or more. A round with
    # no rate (None) counts in neither.
    a = write(d, "a.json", {"dpr small": [10, 10, 20, 5], "dpr small6": [8, 9, 19, None]},
              [(170, 17), (250, 17), (170, 30), (170, 17)])
    b = write(d, "b.json", {"dpr small": [10, 10, 10], "dpr small6": [7, 8, 10]})
    rc, out, err = run(a, b, "--goal", "small table (goal >= 0.85)")
    check(rc == 0, "exit status 0 (%d, %s)" % (rc, err))
    check("a.json" in out and "median 0.900" in out and "meets" in out, "run 1's median: " + out)
    check("b.json" in out and "median 0.800" in out and "misses" in out, "run 2's median: " + out)
    check("pooled: 7 rounds" not in out, "a round without a rate is left out: " + out)
    check("pooled: 6 rounds of 2 runs, median 0.850, 3 rounds at 0.85 or more, 1 of 2 runs meet it"
          in out, "pooled line: " + out)
    check("full table" not in out, "only the goal asked for: " + out)

    # The quiet rounds only: run 1's first (DRAM 170 ns) and third (but its
    # chase took 30 ns: left out by --chase-under 20); run 2 has no probes.
    rc, out, err = run(a, b, "--goal", "small table (goal", "--dram-under", "180")
    check(rc == 0 and "pooled: 2 rounds of 1 runs, median 0.875" in out,
          "rounds under --dram-under: %d %s %s" % (rc, out, err))
    rc, out, err = run(a, b, "--goal", "small table (goal", "--dram-under", "180",
                       "--chase-under", "20")
    check(rc == 0 and "pooled: 1 rounds of 1 runs, median 0.800" in out,
          "rounds under both bounds: %d %s %s" % (rc, out, err))
    rc, out, err = run(a, "--dram-under", "100")
    check(rc != 0 and "under the probe bounds" in err, "no round under the bounds: " + err)
    rc, out, err = run(a, "--dram-under", "fast")
    check(rc != 0 and "invalid float value" in err, "a bound that is not a number: " + err)

    # A run with the FIB algorithm dimension (issue 46): each algorithm's
    # goal on its own, against the same l3fwd rounds. dir-24-8 / l3fwd LPM
    # on the cached full table 1.0 1.2 1.3 (median 1.2, meets 1.1); poptrie
    # 0.8 1.0 1.05 (median 1.0, misses); and poptrie / dir-24-8 without a goal.
    c = write(d, "c.json", {"dpr pyasn dir-24-8": [10, 12, 13], "dpr pyasn poptrie": [8, 10, 10.5],
                            "l3fwd-lpm pyasn": [10, 10, 10]})
    with open(c) as f:
        doc = json.load(f)
    for case in doc["cases"]:
        case["algorithm"] = case["name"].split()[2] if case["name"].startswith("dpr") else None
    with open(c, "w") as f:
        json.dump(doc, f)
    rc, out, err = run(c, "--goal", "cached full table")
    check(rc == 0 and "[dir-24-8] cached full table: dpr / l3fwd LPM (goal >= 1.1)" in out and
          "[poptrie] cached full table" in out, "a goal a FIB algorithm: %d %s %s" % (rc, out, err))
    dir_part, pop_part = out.split("[poptrie]")[0], out.split("[poptrie]")[1]
    check("median 1.200" in dir_part and "meets" in dir_part, "dir-24-8's rounds: " + dir_part)
    check("median 1.000" in pop_part and "misses" in pop_part, "poptrie's rounds: " + pop_part)
    rc, out, err = run(c, "--goal", "poptrie / dir-24-8: pyasn")
    check(rc == 0 and "median 0.808" in out, "one algorithm against the other: %s %s" % (out, err))

    rc, out, err = run(a, "--goal", "DRAM")
    check(rc != 0 and "no goal measured" in err, "a goal the runs did not measure: %d %s" % (rc, err))
    bad = os.path.join(d, "bad.json")
    with open(bad, "w") as f:
        f.write("not json")
    rc, out, err = run(a, bad)
    check(rc != 0 and "bad.json: not a bench results file" in err, "a file that is not results: " + err)
    rc, out, err = run()
    check(rc != 0, "no file: a usage message and a failure")

finish("pool_test")

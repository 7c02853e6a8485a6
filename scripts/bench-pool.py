#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Pool the goals' per-round ratios of several scripts/bench.sh runs.

  bench-pool.py RESULTS.json... [--goal SUBSTRING] [--dram-under NS] [--chase-under NS]

Each RESULTS.json is a run's build-*/bench/results.json (copied away before
the next run overwrites it). For each goal of scripts/bench-report.py that
the runs measured, it prints each run's median of per-round ratios (as the
run's own report does), whether that run meets the goal, and over every
round of every run: the median ratio and how many rounds meet the goal.
On a loud host one run's three rounds say little; the pooled rounds say
more, and the count of runs that meet a goal says how often one run would.
dpr's goals come once per FIB algorithm the runs measured, labelled
"[ALGO] ..." as in the run's own report.

--dram-under and --chase-under keep only the rounds whose memory probe (the
bench's, at the start of each round) read DRAM, or the pointer chase over
the largest effective L3 size it tried, under NS ns: the quieter rounds, by
a measure that does not come from the cases compared. A run then counts in
"runs that meet it" by the median of its kept rounds alone, however few.
"""
import argparse
import importlib.util
import json
import os
import statistics
import sys


def report():
    """bench-report.py beside this file (its name has a dash): its goals."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bench-report.py")
    spec = importlib.util.spec_from_file_location("bench_report", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


REPORT = report()
threshold = REPORT.threshold


def quiet_rounds(probes, dram_under, chase_under):
    """Whether each round's memory probe was under the bounds (all True
    when no bound is given; False for a round without a probe)."""
    keep = []
    for p in probes:
        ok = isinstance(p, dict)
        if ok and dram_under is not None:
            ok = (p.get("dram_ns") or float("inf")) < dram_under
        if ok and chase_under is not None:
            chase = p.get("chase_ns") or {}
            ok = bool(chase) and chase[max(chase, key=float)] < chase_under
        keep.append(ok)
    return keep


def round_ratios(cases, a, b, keep):
    ra = cases.get(a, {}).get("by_round") or []
    rb = cases.get(b, {}).get("by_round") or []
    return [x / y for i, (x, y) in enumerate(zip(ra, rb))
            if x and y and (keep is None or (i < len(keep) and keep[i]))]


def main():
    ap = argparse.ArgumentParser(
        prog="bench-pool.py", description=__doc__.strip().splitlines()[0],
        epilog="See the module's text (scripts/bench-pool.py) for what it prints.")
    ap.add_argument("results", nargs="+", metavar="RESULTS.json")
    ap.add_argument("--goal", metavar="SUBSTRING",
                    help="only the goals whose label holds this")
    ap.add_argument("--dram-under", type=float, metavar="NS",
                    help="only the rounds whose probe read DRAM under NS ns")
    ap.add_argument("--chase-under", type=float, metavar="NS",
                    help="only the rounds whose probe's chase over the largest size took under NS ns")
    opt = ap.parse_args()
    want, dram_under, chase_under = opt.goal, opt.dram_under, opt.chase_under
    runs, algos = [], []
    for path in opt.results:
        try:
            with open(path) as f:
                d = json.load(f)
            keep = None
            if dram_under is not None or chase_under is not None:
                keep = quiet_rounds(d.get("memory_probes") or [], dram_under, chase_under)
            runs.append((path, {c["name"]: c for c in d["cases"]}, keep))
            for algo in REPORT.algorithms(d["cases"]):
                if algo not in algos:
                    algos.append(algo)
        except (OSError, ValueError, KeyError, TypeError) as e:
            sys.exit("bench-pool: %s: not a bench results file (%s)" % (path, e))
    shown = 0
    # dpr's goals once per FIB algorithm the runs measured ("[ALGO] ...").
    for label, a, b in REPORT.goal_pairs(algos):
        if want is not None and want not in label:
            continue
        bound = threshold(label)
        pooled, lines, met = [], [], 0
        for path, cases, keep in runs:
            r = round_ratios(cases, a, b, keep)
            if not r:
                continue
            pooled += r
            med = statistics.median(r)
            ok = bound is None or med >= bound
            met += ok
            lines.append("  %-40s median %.3f  rounds %s%s" % (
                os.path.basename(path), med, " ".join("%.3f" % x for x in r),
                "" if bound is None else ("  meets" if ok else "  misses")))
        if not pooled:
            continue
        shown += 1
        print(label)
        print("\n".join(lines))
        summary = "  pooled: %d rounds of %d runs, median %.3f" % (
            len(pooled), len(lines), statistics.median(pooled))
        if bound is not None:
            summary += ", %d rounds at %g or more, %d of %d runs meet it" % (
                sum(x >= bound for x in pooled), bound, met, len(lines))
        print(summary)
    if shown == 0:
        sys.exit("bench-pool: no goal measured in these runs%s%s" %
                 ("" if want is None else " matches '%s'" % want,
                  "" if dram_under is None and chase_under is None else
                  " (in the rounds under the probe bounds)"))


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Pool the goals' per-round ratios of several scripts/bench.sh runs.

  bench-pool.py RESULTS.json... [--goal SUBSTRING]

Each RESULTS.json is a run's build-*/bench/results.json (copied away before
the next run overwrites it). For each goal of scripts/bench-report.py that
the runs measured, it prints each run's median of per-round ratios (as the
run's own report does), whether that run meets the goal, and over every
round of every run: the median ratio and how many rounds meet the goal.
On a loud host one run's three rounds say little; the pooled rounds say
more, and the count of runs that meet a goal says how often one run would.
"""
import importlib.util
import json
import os
import re
import statistics
import sys


def goal_pairs():
    """GOAL_PAIRS from bench-report.py beside this file (its name has a dash)."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bench-report.py")
    spec = importlib.util.spec_from_file_location("bench_report", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.GOAL_PAIRS


def threshold(label):
    """The goal's bound from its label ("goal >= 1.2"), None if it has none."""
    m = re.search(r"goal >= ([0-9.]+)", label)
    return float(m.group(1)) if m else None


def round_ratios(cases, a, b):
    ra = cases.get(a, {}).get("by_round") or []
    rb = cases.get(b, {}).get("by_round") or []
    return [x / y for x, y in zip(ra, rb) if x and y]


def main():
    args, want = [], None
    it = iter(sys.argv[1:])
    for a in it:
        if a == "--goal":
            want = next(it, None)
            if want is None:
                sys.exit("bench-pool: --goal needs a substring of a goal's label")
        else:
            args.append(a)
    if not args:
        sys.exit(__doc__.strip())
    runs = []
    for path in args:
        try:
            with open(path) as f:
                d = json.load(f)
            runs.append((path, {c["name"]: c for c in d["cases"]}))
        except (OSError, ValueError, KeyError, TypeError) as e:
            sys.exit("bench-pool: %s: not a bench results file (%s)" % (path, e))
    shown = 0
    for label, a, b in goal_pairs():
        if want is not None and want not in label:
            continue
        bound = threshold(label)
        pooled, lines, met = [], [], 0
        for path, cases in runs:
            r = round_ratios(cases, a, b)
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
        sys.exit("bench-pool: no goal measured in these runs%s" %
                 ("" if want is None else " matches '%s'" % want))


if __name__ == "__main__":
    main()

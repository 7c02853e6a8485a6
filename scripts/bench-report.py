#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Turn scripts/bench.sh's measurements into results.json, a chart and a table.

  bench-report.py BENCH_DIR CALLGRIND(0|1)
  bench-report.py --micro BENCH_DIR      the FIB micro-benchmark (MICRO=1)
"""
import json
import os
import re
import statistics
import sys


# Each goal of the benchmark issues as a ratio of two cases' rates; a "dpr
# TABLE" case stands for dpr's with each FIB algorithm (goal_pairs()). The
# first eight are issue 46's (its bounds where it set them); the rest are
# earlier issues'. scripts/bench-pool.py pools their per-round ratios over
# several runs.
GOALS = (
    ("small table: dpr / l3fwd LPM (goal >= 0.95)", "dpr small", "l3fwd-lpm small"),
    ("cached full table: dpr / l3fwd LPM (goal >= 1.1)", "dpr pyasn", "l3fwd-lpm pyasn"),
    ("DRAM-bound full table: dpr / l3fwd LPM (goal >= 1.5)", "dpr dram", "l3fwd-lpm dram"),
    ("DRAM-bound / cached full table, dpr's own (goal >= 0.9)", "dpr dram", "dpr pyasn"),
    ("Zipf full table: dpr / l3fwd LPM (no goal)", "dpr zipf", "l3fwd-lpm zipf"),
    ("IPv6 small table: dpr / l3fwd LPM6 (goal >= 1.0)", "dpr small6", "l3fwd-lpm small6"),
    ("IPv6 full table: dpr / l3fwd LPM6 (goal >= 1.2)", "dpr pyasn6", "l3fwd-lpm pyasn6"),
    ("IPv4+IPv6 mix, full tables: dpr / l3fwd LPM (no goal)", "dpr mix", "l3fwd-lpm mix"),
    ("DRAM-bound full table: dpr / l3fwd FIB (goal >= 1.2)", "dpr dram", "l3fwd-fib dram"),
    ("Zipf full table: dpr / l3fwd FIB (no goal)", "dpr zipf", "l3fwd-fib zipf"),
    ("DRAM-bound: testpmd io / dpr (I/O ceiling)", "testpmd-io dram", "dpr dram"),
    ("small table: dpr / testpmd io (goal >= 0.8)", "dpr small", "testpmd-io"),
    ("dpr full / small table, cached", "dpr pyasn", "dpr small"),
    ("dpr IPv6 / IPv4, small table (goal >= 0.85)", "dpr small6", "dpr small"),
    ("dpr IPv6 / IPv4, full table (goal >= 0.85)", "dpr pyasn6", "dpr pyasn"),
    ("l3fwd LPM full / small table, cached", "l3fwd-lpm pyasn", "l3fwd-lpm small"),
    ("tagged VRF / untagged default VRF, small table (no goal)", "dpr vlan", "dpr small"),
    ("tagged VRF / untagged default VRF, small IPv6 table (no goal)", "dpr vlan6", "dpr small6"),
)
# The tables on which the algorithms are compared with each other.
ALGO_TABLES = ("small", "pyasn", "dram", "zipf", "small6", "pyasn6", "mix", "vlan", "vlan6")


def dpr_case(name, algo):
    """Case @name ("dpr TABLE", "dpr-on TABLE", or another app's) with dpr's
    FIB algorithm @algo: "dpr TABLE ALGO"; None: as named (results from
    before the algorithm dimension)."""
    return "%s %s" % (name, algo) if algo and name.startswith("dpr") else name


def algorithms(cases):
    """dpr's FIB algorithms in a run's cases, in their order; [None] for a
    run from before the algorithm dimension."""
    out = []
    for c in cases:
        if c["name"].startswith("dpr") and c.get("algorithm") not in out:
            out.append(c.get("algorithm"))
    return out or [None]


def goal_pairs(algos):
    """(label, case a, case b) for every goal: dpr's once per algorithm of
    @algos, labelled "[ALGO] ...", the others once; then, with two
    algorithms or more, each against the first on every table."""
    pairs = []
    for algo in algos:
        tag = "[%s] " % algo if algo else ""
        pairs += [(tag + label, dpr_case(a, algo), dpr_case(b, algo))
                  for label, a, b in GOALS if "dpr " in a + b]
    pairs += [(label, a, b) for label, a, b in GOALS if "dpr " not in a + b]
    for algo in [a for a in algos[1:] if a and algos[0]]:
        pairs += [("dpr %s / %s: %s (no goal)" % (algo, algos[0], t),
                   "dpr %s %s" % (t, algo), "dpr %s %s" % (t, algos[0]))
                  for t in ALGO_TABLES]
    return pairs


def variant_pairs(cases):
    """(label, case a, case b) for the ACL and uRPF cases of a run (issue
    52): dpr with each ACL against l3fwd's ACL mode with the same rules
    (goal: at or above it) and against dpr without one; strict uRPF
    against none on the cached full table (goal: at most 20 % slower)."""
    pairs = []
    for c in cases:
        v, t, algo = c.get("variant"), c["table"], c.get("algorithm")
        if c["app"] != "dpr" or not v:
            continue
        tag = "[%s] " % algo if algo else ""
        where = {"small": "small table", "pyasn": "cached full table"}.get(t, t)
        if v.startswith("acl"):
            pairs += [
                ("%sACL %s rules, %s: dpr / l3fwd ACL (goal >= 1.0)" % (tag, v[3:], where),
                 c["name"], "l3fwd-%s %s" % (v, t)),
                ("%sACL %s rules / no ACL, %s: dpr (no goal)" % (tag, v[3:], where),
                 c["name"], dpr_case("dpr " + t, algo)),
                ("ACL %s rules, %s: l3fwd ACL / l3fwd LPM (no goal)" % (v[3:], where),
                 "l3fwd-%s %s" % (v, t), "l3fwd-lpm " + t)]
            if any(x["name"] == "l3fwd-%s-x32 %s" % (v, t) for x in cases):
                pairs.append(("%sACL %s rules, %s: dpr / l3fwd ACL at AVX-512's 32 lanes "
                              "(no goal)" % (tag, v[3:], where), c["name"],
                              "l3fwd-%s-x32 %s" % (v, t)))
        elif v == "urpf":
            pairs.append(("%sstrict uRPF / none, %s: dpr (goal >= 0.8)" % (tag, where),
                          c["name"], dpr_case("dpr " + t, algo)))
    return pairs


def acl_builds(b):
    """dpr-acl-bench's results for the ACL cases' lists (acl-build-TABLE-N.json)."""
    out = {}
    for f in sorted(os.listdir(b)):
        m = re.match(r"acl-build-(\w+)-(\d+)\.json$", f)
        if not m:
            continue
        try:
            out["%s %s" % (m.group(1), m.group(2))] = json.load(open(os.path.join(b, f)))
        except (OSError, ValueError):
            pass
    return out


def threshold(label):
    """The goal's bound from its label ("goal >= 1.2"), None if it has none."""
    m = re.search(r"goal >= ([0-9.]+)", label)
    return float(m.group(1)) if m else None


def ir_total(path, event="Ir"):
    """An event's total in a callgrind run (its "totals:" or "summary:"
    line; Ir: instructions), None when the run did not count it."""
    events = ["Ir"]
    try:
        for line in open(path):
            if line.startswith("events:"):
                events = line.split()[1:]
            if line.startswith(("totals:", "summary:")) and event in events:
                return int(line.split()[1 + events.index(event)])
    except (OSError, IndexError, ValueError):
        pass
    return None


def per_packet(b, name_small_big, pkts_small, pkts_big, event="Ir", whole=False):
    """Only the forwarding loop is collected, so each run's instructions
    (or other event) over its packets is the figure; the difference of two
    runs cancels what is left of start-up when the packet counts allow it.
    @whole: each run is the whole program (start-up, forwarding, exit),
    so only the difference will do: None unless the second run forwarded
    at least 10 % more (timed runs under valgrind on a loud machine can
    come close)."""
    a, c = ir_total(name_small_big[0], event), ir_total(name_small_big[1], event)
    if a is None or c is None or pkts_big is None or pkts_small is None:
        return None
    if pkts_big > pkts_small * (1.1 if whole else 1.5):
        return (c - a) / (pkts_big - pkts_small)
    if whole:
        return None
    big = max((a, pkts_small), (c, pkts_big), key=lambda x: x[1])
    return big[0] / big[1] if big[1] else None


def l3fwd_rx(log):
    try:
        m = re.search(r"L3FWD-BENCH: total seconds \S+ rx (\d+)", open(log).read())
        return int(m.group(1)) if m else None
    except OSError:
        return None


def testpmd_rx(log):
    """The packets testpmd received, from its exit statistics."""
    try:
        text = open(log).read()
        m = re.search(r"Accumulated forward statistics for all ports\+*\s*\n\s*RX-packets:\s*(\d+)", text)
        return int(m.group(1)) if m else None
    except OSError:
        return None


def micro_report(b):
    """scripts/bench.sh MICRO=1: the FIB micro-benchmark's two runs
    (micro-v4.json, micro-v6.json) into micro.json and a table."""
    out = {}
    for fam in ("4", "6"):
        try:
            out["ipv" + fam] = json.load(open(os.path.join(b, "micro-v%s.json" % fam)))
        except (OSError, ValueError) as e:
            print("micro: IPv%s: no result (%s)" % (fam, e))
    json.dump(out, open(os.path.join(b, "micro.json"), "w"), indent=2)
    for key, m in out.items():
        sets = list(m["key_sets"])
        print("micro %s: %d routes (%s), bursts of %d, medians of %d interleaved rounds; keys: %s" % (
            key, m["routes"], m["file"], m["burst"], m["rounds"],
            "; ".join("%s %d (%s)" % (k, v["keys"], v["source"]) for k, v in m["key_sets"].items())))
        print("%-12s %10s %10s %9s  %s" % ("table", "routes/s", "changes/s", "MiB",
                                           "  ".join("%10s" % k for k in sets) + "  M lookups/s"))
        for name, t in m["tables"].items():
            print("%-12s %10.0f %10.0f %9.1f  %s%s" % (
                name, t["load_routes_per_second"], t["updates_per_second"], t["memory_mib"],
                "  ".join("%10.1f" % t["mlookups_per_second"][k] for k in sets),
                "  MISMATCHES %d" % t["lookup_mismatches"] if t["lookup_mismatches"] else ""))
        for ref, rat in ((k[len("ratio_to_"):], v) for k, v in m.items()
                         if k.startswith("ratio_to_")):
            for name, r in rat.items():
                print("%-12s / %s (median of round ratios): %s" % (
                    name, ref, "  ".join("%s %.2f" % (k, v) for k, v in r.items())))
        for g in m.get("goals", []):
            print("goal %-70s %6.2f  %s" % (g["goal"], g["ratio"],
                                            "-" if g["met"] is None else
                                            "pass" if g["met"] else "miss"))
        if m.get("missing"):
            print("not measured: %s" % m["missing"])
    print("micro: %s (route changes: %s random routes deleted and added again in batches of "
          "%s; rte_lpm and rte_lpm6 one a call)" % (
              os.path.join(b, "micro.json"),
              "/".join(str(m["changes"] // 2) for m in out.values()),
              "/".join(str(m["update_batch"]) for m in out.values())))


def main():
    if sys.argv[1] == "--micro":
        return micro_report(sys.argv[2])
    b, callgrind = sys.argv[1], sys.argv[2] == "1"
    thr = json.load(open(os.path.join(b, "throughput.json")))
    cases = thr["cases"]
    by = {c["name"]: c for c in cases}
    algos = algorithms(cases)
    ref_io = by.get("testpmd-io", {}).get("mpps_median")
    for c in cases:
        m = c["mpps_median"]
        c["ratio_testpmd_io"] = m / ref_io if m and ref_io else None
        lpm = by.get("l3fwd-lpm %s" % c["table"], {}).get("mpps_median")
        c["ratio_l3fwd_lpm"] = m / lpm if m and lpm else None

    ipp = {}
    if callgrind:
        for t in ("small", "pyasn", "small6", "vlan", "vlan6"):
            for algo in algos:
                ipp[dpr_case("dpr " + t, algo)] = per_packet(
                    b, [os.path.join(b, "callgrind-%s%s-%d.out" % (algo + "-" if algo else "", t, n))
                        for n in (100000, 200000)], 100000, 200000)
        # The ACL and uRPF cases: configs dpr-TABLE-VARIANT-ALGO.json.
        for c in cases:
            if c["app"] == "dpr" and c.get("variant"):
                ipp[c["name"]] = per_packet(
                    b, [os.path.join(b, "callgrind-%s%s-%s-%d.out" % (
                        c["algorithm"] + "-" if c.get("algorithm") else "", c["table"],
                        c["variant"], n)) for n in (100000, 200000)], 100000, 200000)
        l3fwd_cg = [(c["variant"], c["table"]) for c in cases if c["app"] == "l3fwd-acl"]
        for m, t in [("lpm", "small"), ("fib", "small"), ("fib", "pyasn"), ("lpm", "small6")] + \
                l3fwd_cg:
            f = [os.path.join(b, "callgrind-l3fwd-%s-%s-%d.%s" % (m, t, s, "%s")) for s in (2, 4)]
            ipp["l3fwd-%s %s" % (m, t)] = per_packet(b, [f[0] % "out", f[1] % "out"],
                                                      l3fwd_rx(f[0] % "log"), l3fwd_rx(f[1] % "log"))
        f = [os.path.join(b, "callgrind-testpmd-io-%d.%s" % (s, "%s")) for s in (20, 60)]
        ipp["testpmd-io"] = per_packet(b, [f[0] % "out", f[1] % "out"], testpmd_rx(f[0] % "log"),
                                       testpmd_rx(f[1] % "log"), whole=True)
    for c in cases:
        c["instructions_per_packet"] = ipp.get(c["name"])

    # The goals of the benchmark issue, as ratios measured in this run: the
    # ratio of the medians, and the median of the ratios within each round
    # (cases of one round ran minutes apart, under much the same load).
    def med(n):
        return by.get(n, {}).get("mpps_median")

    def round_ratio(a, b):
        ra, rb = by.get(a, {}).get("by_round"), by.get(b, {}).get("by_round")
        if not ra or not rb:
            return None
        q = sorted(x / y for x, y in zip(ra, rb) if x and y)
        if not q:
            return None
        return q[len(q) // 2] if len(q) % 2 else (q[len(q) // 2 - 1] + q[len(q) // 2]) / 2

    def alone(r4, r6):
        """The rate of a 50/50 mix if each packet cost what it costs in a
        run of its own family: the harmonic mean of the two rates."""
        return 2 / (1 / r4 + 1 / r6) if r4 and r6 else None

    goals, goals_by_round, goals_by_instr = {}, {}, {}
    for label, a, bb in goal_pairs(algos) + variant_pairs(cases):
        if med(a) and med(bb):
            goals[label] = med(a) / med(bb)
            goals_by_round[label] = round_ratio(a, bb)
            # What the ratio would be if every instruction cost the same:
            # exact, whatever the host's load (callgrind's counts).
            if ipp.get(a) and ipp.get(bb):
                goals_by_instr[label] = ipp[bb] / ipp[a]
    # The mix against its families measured alone: below 1, mixing costs
    # something of its own (the split by EtherType, both FIBs in the cache).
    mixes = [("%smix / IPv4 and IPv6 alone: dpr" % ("[%s] " % algo if algo else ""),
              dpr_case("dpr mix", algo), dpr_case("dpr pyasn", algo), dpr_case("dpr pyasn6", algo))
             for algo in algos]
    for label, mix, r4, r6 in mixes + [("mix / IPv4 and IPv6 alone: l3fwd LPM", "l3fwd-lpm mix",
                                        "l3fwd-lpm pyasn", "l3fwd-lpm pyasn6")]:
        if med(mix) and alone(med(r4), med(r6)):
            goals[label] = med(mix) / alone(med(r4), med(r6))
            rounds = [m / alone(x, y) for m, x, y in zip(by[mix]["by_round"], by[r4]["by_round"],
                                                         by[r6]["by_round"]) if m and x and y]
            rounds.sort()
            goals_by_round[label] = (rounds[len(rounds) // 2] if len(rounds) % 2 else
                                     (rounds[len(rounds) // 2 - 1] + rounds[len(rounds) // 2]) / 2) \
                if rounds else None
    # dpr's full/small ratio against l3fwd's (goal: at least l3fwd's, >= 1).
    for algo in algos:
        tag = "[%s] " % algo if algo else ""
        a, bb = tag + "dpr full / small table, cached", "l3fwd LPM full / small table, cached"
        label = tag + "full/small: dpr over l3fwd LPM (goal >= 1)"
        if a in goals and bb in goals:
            goals[label] = goals[a] / goals[bb]
            if goals_by_round.get(a) and goals_by_round.get(bb):
                goals_by_round[label] = goals_by_round[a] / goals_by_round[bb]
    thr["goals"] = goals
    thr["goals_median_of_round_ratios"] = goals_by_round
    thr["goals_by_instructions"] = goals_by_instr
    # Scaling (WORKERS=...): Mpps per worker count against one worker.
    scaling = {}
    shared_main = set()  # worker counts run with the main lcore on a worker's CPU
    for c in cases:
        w = c.get("workers")
        if not w or not c["mpps_median"]:
            continue
        base_name = c["name"].rsplit(" w", 1)[0]
        base = med(base_name)
        scaling.setdefault(base_name, {1: base})[w] = c["mpps_median"]
        if c.get("shared_main"):
            shared_main.add(w)
    thr["scaling"] = {k: {str(w): v for w, v in d.items()} for k, d in scaling.items()}
    # The regimes: what the destinations touch of the tables, against L3;
    # and how loud the machine was (testpmd io across the rounds).
    try:
        thr["regimes"] = json.load(open(os.path.join(b, "regimes.json")))
    except (OSError, ValueError):
        thr["regimes"] = {}
    io = by.get("testpmd-io", {})
    thr["noise_testpmd_io"] = ((io["mpps_max"] - io["mpps_min"]) / io["mpps_median"]
                               if io.get("mpps_median") else None)
    thr["acl_builds"] = acl_builds(b)
    json.dump(thr, open(os.path.join(b, "results.json"), "w"), indent=2)

    perf = any(c.get("own_ns_per_packet_median") is not None for c in cases)
    print("%-28s %4s %7s %8s %8s %8s %8s %8s %10s %6s%s" % (
        "case", "IP", "routes", "Mpps", "min", "max", "x io", "x LPM", "instr/pkt", "fwd",
        "  own ns/pkt  rest ns/pkt" if perf else ""))
    for c in cases:
        f = lambda v, fmt: (fmt % v) if v is not None else "-"
        print("%-28s %4s %7s %8s %8s %8s %8s %8s %10s %6s%s" % (
            c["name"], {"46": "4+6"}.get(c.get("family", "4"), c.get("family", "4")),
            c["routes"] or "-", f(c["mpps_median"], "%.2f"), f(c["mpps_min"], "%.2f"),
            f(c["mpps_max"], "%.2f"), f(c["ratio_testpmd_io"], "%.2f"),
            f(c["ratio_l3fwd_lpm"], "%.2f"), f(c["instructions_per_packet"], "%.0f"),
            f(c.get("forwarded_share_min"), "%.3f"),
            "  %11s  %11s" % (f(c.get("own_ns_per_packet_median"), "%.2f"),
                              f(c.get("rest_ns_per_packet_median"), "%.2f")) if perf else ""))
    short = [c["name"] for c in cases
             if c.get("forwarded_share_min") is not None and c["forwarded_share_min"] < 0.99]
    if short:
        print("WARNING: %s sent fewer packets than they received in some round (fwd: the "
              "lowest share): those Mpps are not forwarding rates" % ", ".join(short))
    for k, a in thr["acl_builds"].items():
        print("ACL build %-14s %5d rules: CPU %7.1f ms, wall-clock %7.1f ms (medians of %d "
              "builds, dpr-acl-bench), %.1f MB" % (
                  k, a["rules"], a.get("cpu_ms_median", 0), a.get("build_ms_median", 0),
                  len(a.get("build_ms", [])), a.get("memory_bytes", 0) / 1e6))
    reg = thr["regimes"]
    feeds = {"pcap": "fed by net_pcap (one stored mbuf a packet)",
             "array": "fed from one array (tests/bench/feed.c)"}
    for stem, t, name in (("pyasn-v4", "pyasn", "cached"), ("pyasn-dram-v4", "dram", "DRAM-bound"),
                          ("pyasn-zipf-v4", "zipf", "Zipf")):
        feed = next((c.get("feed", "pcap") for c in cases
                     if c["app"] == "dpr" and c["table"] == t), "pcap")
        if stem in reg:
            print("regime %-10s full IPv4 table, %7d destinations: their tbl24 lines are "
                  "%.1f MiB, the hottest taking 90%% of the packets %s MiB (L3: %s MiB); %s" % (
                      name, reg[stem]["destinations"], reg[stem]["tbl24_mib"],
                      "%.1f" % reg[stem]["hot90_mib"] if "hot90_mib" in reg[stem] else "?",
                      "%.0f" % reg["l3_mib"] if reg.get("l3_mib") else "?",
                      feeds.get(feed, "?")))
    # The tuner: --pipeline auto against both ways forced, per regime.
    for t, name, algo in [(t, n, a) for a in algos for t, n in (
            ("small", "small"), ("pyasn", "cached"), ("dram", "DRAM-bound"), ("zipf", "Zipf"))]:
        auto, on, off = (by.get(dpr_case(d + " " + t, algo)) for d in ("dpr", "dpr-on", "dpr-off"))
        name = "%s %s" % (name, algo) if algo else name
        if not (auto and on and off and on.get("mpps_median") and off.get("mpps_median")):
            continue
        # The way over each round's measured window (bench.py window_way()).
        rounds = [p for p in auto.get("pipelined_by_round") or [] if p is not None]
        ways = [p for p in rounds if p in (True, False)]
        faster = "on" if on["mpps_median"] > off["mpps_median"] else "off"
        chose = ("on" if all(ways) else "off" if not any(ways) else "both") if ways else "?"
        print("tuner %-19s auto %.2f Mpps (over the window: pipelined in %d of %d rounds, at "
              "once in %d, changed or read inside a probe in %d: %s), on %.2f, "
              "off %.2f: the faster forced way is %s by %.1f%%%s" % (
                  name, auto["mpps_median"] or 0, sum(1 for p in ways if p), len(rounds),
                  sum(1 for p in ways if not p), len(rounds) - len(ways), chose,
                  on["mpps_median"], off["mpps_median"], faster,
                  100 * abs(on["mpps_median"] / off["mpps_median"] - 1),
                  "" if chose == faster else "; auto chose otherwise" if chose in ("on", "off")
                  else ""))
    probes = thr.get("memory_probes") or []
    if probes:
        # The L3 the rounds had (tests/bench/mem_probe.c): a cached case
        # whose hot lines exceed it ran partly DRAM-bound, whatever its name.
        eff = [p["effective_l3_mib"] for p in probes]
        half = [max(p["chase_ns"].items(), key=lambda kv: float(kv[0])) for p in probes]
        print("memory: effective L3 %s MiB of %s in the rounds (the largest of L3/8, /4, /2 "
              "whose pointer chase took under a third of DRAM's time); chase over %s MiB %s ns, "
              "DRAM %s ns" % (
                  "/".join(str(e) for e in eff), probes[0]["l3_mib"], half[0][0],
                  "/".join("%.0f" % v for _, v in half),
                  "/".join("%.0f" % p["dram_ns"] for p in probes)))
        huge = [p["huge_ns"] for p in probes if p.get("huge_ns")]
        if huge:
            # The same DRAM read through different hugepages: on a VM the
            # host backs them unevenly, and a DRAM-bound case's rate goes
            # with the pages its table got, which no case chooses.
            print("memory: DRAM through 2 MiB hugepages, %d regions of 128 MiB: %s ns in the "
                  "rounds; which pages a table gets moves a DRAM-bound rate by up to that "
                  "spread" % (len(huge[0]), "/".join("%.0f-%.0f (%.0f%%)" % (
                      min(h), max(h), 100 * (max(h) / min(h) - 1)) for h in huge)))
        mul = [p["mul_ns"] for p in probes if "mul_ns" in p]
        if mul:
            print("cpu: a dependent multiply took %s ns in the rounds (the core's own speed: "
                  "a time-sliced or slowed host CPU stretches it, and every case with it)" %
                  "/".join("%.2f" % m for m in mul))
        hot = reg.get("pyasn-v4", {}).get("hot90_mib")
        if hot and statistics.median(eff) < hot:
            print("memory: the cached regime's hottest lines (%.1f MiB) did not fit that L3 in "
                  "most rounds: its cases ran partly DRAM-bound (the machine's other tenants "
                  "held the rest of the L3)" % hot)
    if thr["noise_testpmd_io"] is not None:
        print("noise: testpmd io moved %.0f%% (max - min over median) across the rounds; "
              "each case's min and max are above" % (100 * thr["noise_testpmd_io"]))
    bal = thr.get("ballast") or {}
    ks = [k for c in cases for k in (c.get("ballast_by_round") or []) if k is not None]
    if ks:
        print("ballast: k random free 2 MiB hugepages, k of 0..%d, held from before each "
              "case started until it stopped (BALLAST, scripts/bench.py Ballast), so that the "
              "pages a case's tables got were a new draw each time: k ran %d-%d (median %d), "
              "per case and round in results.json" % (
                  bal.get("max_pages", 0), min(ks), max(ks), statistics.median(ks)))
    elif bal:
        print("ballast: off (%s): each case got the hugepages the case before it freed" %
              (bal.get("off") or "?"))
    if thr.get("slice_s"):
        print("method: each regime's cases side by side, in turn for slices of %g s "
              "(SLICE, scripts/bench.py run_group()): rates of one round come from the same "
              "stretch of time" % thr["slice_s"])
    for name, d in sorted(scaling.items()):
        one = d.get(1)
        print("scaling %-20s %s" % (name, "  ".join(
            "%d: %.2f Mpps%s%s" % (w, d[w], " (%.2fx)" % (d[w] / one) if one and w > 1 else "",
                                   "*" if w in shared_main else "")
            for w in sorted(d) if d[w])))
    if shared_main:
        print("scaling *: as many workers as CPUs (SHARED_MAIN=1): dpr's control thread "
              "and testpmd's main lcore shared the last worker's CPU (l3fwd has none)")
    # The verdict is the median of the per-round ratios (the medians' ratio
    # where a round lacks one of the cases); it never fails the script.
    w = max([len(k) for k in goals] + [4])
    print("%-*s %8s %8s %8s %7s" % (w, "goal", "medians", "by round", "by instr", "verdict"))
    for k, v in goals.items():
        r, i, bound = goals_by_round.get(k), goals_by_instr.get(k), threshold(k)
        verdict = "-" if bound is None else "pass" if (r if r is not None else v) >= bound \
            else "miss"
        print("%-*s %8.2f %8s %8s %7s" % (w, k, v, "%.2f" % r if r is not None else "-",
                                           "%.2f" % i if i is not None else "-", verdict))
    if goals_by_instr:
        print("by instr: the ratio if every instruction took the same time (callgrind, "
              "exact on any host); the PMDs' copies take longer each than the routers' code")

    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("bench: no matplotlib: chart skipped", file=sys.stderr)
        return
    names = [c["name"] for c in cases]
    meds = [c["mpps_median"] or 0 for c in cases]
    lo = [m - (c["mpps_min"] or m) for m, c in zip(meds, cases)]
    hi = [(c["mpps_max"] or m) - m for m, c in zip(meds, cases)]
    colors = {"dpr": "#1f77b4", "dpr poptrie": "#9467bd", "l3fwd-lpm": "#ff7f0e",
              "l3fwd-fib": "#2ca02c", "testpmd-io": "#7f7f7f", "testpmd-mac": "#bcbcbc"}
    fig, ax = plt.subplots(figsize=(max(10, 0.75 * len(names) + 2), 5))
    bars = ax.bar(range(len(names)), meds, yerr=[lo, hi], capsize=4,
                  color=[colors.get("%s %s" % (c["app"], c.get("algorithm")),
                                    colors.get(c["app"], "#333333")) for c in cases])
    # IPv6 hatched, the mix cross-hatched: the same colour is the same app.
    for bar, c in zip(bars, cases):
        bar.set_hatch({"6": "//", "46": "xx"}.get(c.get("family", "4"), ""))
    # The median halfway up its bar, clear of the min-max whisker.
    for bar, m in zip(bars, meds):
        ax.text(bar.get_x() + bar.get_width() / 2, bar.get_height() / 2, "%.1f" % m,
                ha="center", va="center", fontsize=10, color="white", fontweight="bold")
    ax.set_xticks(range(len(names)))
    ax.set_xticklabels(names, rotation=30, ha="right")
    ax.set_ylabel("Mpps, one lcore (median, min-max)")
    ax.set_title("dpr (by FIB algorithm) vs l3fwd vs testpmd: net_pcap -> net_null, 64-byte "
                 "IPv4 / 66-byte IPv6 packets;\nsmall tables (l3fwd's), full pyasn tables (IPv4, "
                 "IPv6 = ...6), 50/50 mix on both full tables")
    fig.tight_layout()
    fig.savefig(os.path.join(b, "results.png"), dpi=100)


if __name__ == "__main__":
    main()

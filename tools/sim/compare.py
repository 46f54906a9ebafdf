#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The rocetor authors
"""Our FCT slowdowns beside the papers' (doc/evaluation.md, issues 17, 32).

Reads the report.json that tools/sim/report.py writes and prints one
markdown table: per setting (workload, load, transport) and mode, ECMP's
avg / p99 slowdown, the mode's, how much lower than ECMP ours is, and what
the mode's paper reports for that setting, where it reports one, with what
the paper's figure is relative to; then which configuration each mode ran
(the --config file and the LB section the switches ran, from each run's
summary.json params.lb_config).

The papers' figures (PAPER; avg / p99 FCT slowdown, % lower), each for
its own workload, topology, load and transport only (issue 32 item 5):
- ConWeave (SIGCOMM'23, NS-3, the 8 x 16 + 8 spine leaf-spine, 2:1, 100G,
  DCQCN), section 4.1.1: AliStorage2019 only, "at least X% compared to
  others": the smallest of ConWeave's gains over ECMP, CONGA, LetFlow and
  DRILL, not its gain over ECMP: at 50% load 23.3% / 45.8% lossless and
  12.7% / 46.2% IRN; at 80% load 17.6% / 35.8% lossless and 42.3% / 66.8%
  IRN. Beside them, "ours, as the paper counts" is the smallest of our
  gains over the rivals of the four the setting ran (ECMP, CONGA, LetFlow,
  DRILL: all four are modes since issue 33), named in the row.
- ConWeave, Meta Hadoop (FbHdp2015) at 80% load, lower than ECMP: 40.7% /
  59.4% lossless and 28.6% / 56.3% IRN, as issue 32 quotes them (the
  paper's appendix). No figure for FbHdp2015 at 50%: section 4.1.1's are
  AliStorage's and are never applied to it.
- SeqBalance (8 leaves x 12 spines, AliStorage2019): avg 16%, p99 23.6%
  lower than ECMP (load and transport not in our notes: shown beside every
  AliStorage2019 leaf-spine setting, as an order of magnitude).
- CAVER (k=4 fat-tree): avg up to 15% below ECMP (and 10% below ConWeave).
"""

import argparse
import os
import json
import sys

# The rivals section 4.1.1 counts ConWeave's "at least" over.
CW_RIVALS = ("ecmp", "conga", "letflow", "drill")
CW_411 = "at least, vs each of ECMP, CONGA, LetFlow, DRILL (ConWeave paper sec. 4.1.1)"
CW_META = "lower than ECMP (ConWeave paper's appendix, Meta Hadoop, as issue 32 quotes it)"

# Each figure: the mode, the setting it is for (None: any), the avg and p99
# (% lower), what it is relative to ("rel"; "rivals" names the modes of ours
# that stand for the paper's baseline) and a short note.
PAPER = [
    {"mode": "conweave", "workload": "AliStorage2019", "topo": "leafspine", "load": 0.5,
     "transport": "lossless", "avg": 23.3, "p99": 45.8, "rel": CW_411, "rivals": CW_RIVALS},
    {"mode": "conweave", "workload": "AliStorage2019", "topo": "leafspine", "load": 0.5,
     "transport": "irn", "avg": 12.7, "p99": 46.2, "rel": CW_411, "rivals": CW_RIVALS},
    {"mode": "conweave", "workload": "AliStorage2019", "topo": "leafspine", "load": 0.8,
     "transport": "lossless", "avg": 17.6, "p99": 35.8, "rel": CW_411, "rivals": CW_RIVALS},
    {"mode": "conweave", "workload": "AliStorage2019", "topo": "leafspine", "load": 0.8,
     "transport": "irn", "avg": 42.3, "p99": 66.8, "rel": CW_411, "rivals": CW_RIVALS},
    {"mode": "conweave", "workload": "FbHdp2015", "topo": "leafspine", "load": 0.8,
     "transport": "lossless", "avg": 40.7, "p99": 59.4, "rel": CW_META, "rivals": ("ecmp",)},
    {"mode": "conweave", "workload": "FbHdp2015", "topo": "leafspine", "load": 0.8,
     "transport": "irn", "avg": 28.6, "p99": 56.3, "rel": CW_META, "rivals": ("ecmp",)},
    {"mode": "seqbalance", "workload": "AliStorage2019", "topo": "leafspine", "load": None,
     "transport": None, "avg": 16.0, "p99": 23.6, "rivals": ("ecmp",),
     "rel": "lower than ECMP (SeqBalance paper, 8 x 12 leaf-spine; load and transport "
     "not in our notes)"},
    {"mode": "caver", "workload": None, "topo": "fattree", "load": None, "transport": None,
     "avg": 15.0, "p99": None, "rivals": ("ecmp",),
     "rel": "up to, lower than ECMP (CAVER paper, k=4 fat-tree)"},
]

# The keys of an LB section compare.py leaves out of the configurations
# (sizing, not behaviour).
CFG_SKIP = ("flow_table_size", "reorder_queues_per_port", "reorder_queue_depth",
            "dst_prefix_len6", "hold_budget")


def paper_for(mode, workload, load, transport, fattree):
    """The paper's figure (a PAPER entry) for this mode and setting, or None."""
    topo = "fattree" if fattree else "leafspine"
    for e in PAPER:
        if e["mode"] != mode or e["topo"] != topo:
            continue
        if e["load"] is not None and abs(e["load"] - load) > 1e-9:
            continue
        if e["transport"] is not None and e["transport"] != transport:
            continue
        if e["workload"] is not None and e["workload"] != workload:
            continue
        return e
    return None


def ours_as_paper(st, mode, e):
    """Our figure on the paper's terms: the smallest of our gains (avg, p99)
    over the rivals the setting ran, and which they were; None when it ran
    none of them."""
    rivals = [r for r in e["rivals"] if r in st and r != mode]
    if not rivals:
        return None
    m = st[mode]

    def gain(k, r):
        b = st[r][k]
        return 100.0 * (b - m[k]) / b if b else float("nan")

    return (min(gain("all_avg", r) for r in rivals), min(gain("all_p99", r) for r in rivals),
            rivals)


def short_path(p):
    """A config file in this checkout as a path from its top (conf/sim/...);
    any other as given."""
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    if os.path.isabs(p) and os.path.commonpath([root, os.path.abspath(p)]) == root:
        return os.path.relpath(p, root)
    return p


def config_of(m):
    """What a mode ran, from report.json: the --config files and its LB
    section's behaviour keys."""
    files = ", ".join(short_path(c) for c in m.get("configs") or [] if c) or \
        "rocetor-sim's defaults"
    lb = m.get("lb_config")
    if lb is None:
        sec = "(not recorded: a run older than params.lb_config)"
    elif isinstance(lb, str):
        sec = lb
    elif not lb:
        sec = "(no section)"
    else:
        sec = ", ".join("%s %s" % (k, lb[k]) for k in sorted(lb) if k not in CFG_SKIP)
    return files, sec


def configurations(rep, modes):
    print()
    print("Configurations (each mode's runs: --config and the LB section the switches ran):")
    print()
    print("| setting | mode | config | LB section |")
    print("|---|---|---|---|")
    for name in sorted(rep):
        workload, load, transport, extra = parse_setting(name)
        label = "%s %.0f%% %s%s" % (workload, load * 100, transport, " " + extra if extra else "")
        for m in modes:
            if m in rep[name]:
                print("| %s | %s | %s | %s |" % ((label, m) + config_of(rep[name][m])))


def parse_setting(name):
    # report.py's setting names: WORKLOAD-loadX-TRANSPORT[-...]
    parts = name.split("-")
    workload = parts[0]
    load = float(parts[1][len("load"):])
    transport = parts[2]
    return workload, load, transport, "-".join(parts[3:])


def fmt_pct(v):
    if v is None:
        return "-"
    return "%.1f%%" % v


def lower_by(x, base):
    """How much lower x is than base, in % (negative: higher)."""
    return "%.1f%%" % (100.0 * (base - x) / base) if base else "-"


def versus(rep, modes, base):
    """Each mode against `base` per setting, ECMP's figures beside them (the
    means over the seeds report.py was given, ± half their range)."""
    print("| setting | ECMP avg / p99 | %s avg / p99 | mode | avg / p99 | avg lower than %s by "
          "| p99 lower than %s by |" % (base, base, base))
    print("|---|---|---|---|---|---|---|")

    def fig(r):
        return "%.3f / %.3f" % (r["all_avg"], r["all_p99"])

    for name in sorted(rep):
        workload, load, transport, extra = parse_setting(name)
        st = rep[name]
        if base not in st:
            continue
        b = st[base]
        label = "%s %.0f%% %s%s" % (workload, load * 100, transport, " " + extra if extra else "")
        for m in modes:
            if m not in st:
                continue
            r = st[m]
            print("| %s | %s | %s | %s | %s | %s | %s |" % (
                label, fig(st["ecmp"]) if "ecmp" in st else "-", fig(b), m, fig(r),
                lower_by(r["all_avg"], b["all_avg"]), lower_by(r["all_p99"], b["all_p99"])))
    configurations({n: st for n, st in rep.items() if base in st},
                   [base] + [m for m in modes if m != base])
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("report", help="report.json of tools/sim/report.py")
    ap.add_argument("--fattree", action="store_true",
                    help="the runs are on a fat-tree (CAVER's paper setting)")
    ap.add_argument("--modes", default="conweave,seqbalance,caver")
    ap.add_argument("--versus", metavar="MODE",
                    help="instead: each of --modes against MODE (ECMP beside them), "
                    "e.g. --modes spray --versus conweave")
    a = ap.parse_args()
    rep = json.load(open(a.report))
    modes = a.modes.split(",")
    if a.versus:
        return versus(rep, modes, a.versus)
    print("| setting | ECMP avg / p99 | mode | avg / p99 | avg lower by | p99 lower by "
          "| paper: avg / p99 lower by | relative to | ours, as the paper counts |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name in sorted(rep):
        workload, load, transport, extra = parse_setting(name)
        st = rep[name]
        if "ecmp" not in st:
            continue
        e = st["ecmp"]
        label = "%s %.0f%% %s%s" % (workload, load * 100, transport, " " + extra if extra else "")
        for m in modes:
            if m not in st:
                continue
            r = st[m]
            avg_gain = r.get("all_avg_vs_ecmp")
            p99_gain = r.get("all_p99_vs_ecmp")
            # The papers' figures are for symmetric fabrics.
            p = None if extra else paper_for(m, workload, load, transport, a.fattree)
            if p is None:
                ptxt, rel, ours = "-", "-", "-"
            else:
                ptxt = "%s / %s" % (fmt_pct(p["avg"]), fmt_pct(p["p99"]))
                rel = p["rel"]
                o = ours_as_paper(st, m, p)
                ours = "-" if o is None else "%s / %s (vs %s)" % (
                    fmt_pct(o[0]), fmt_pct(o[1]), ", ".join(o[2]))
            print("| %s | %.3f / %.3f | %s | %.3f / %.3f | %s | %s | %s | %s | %s |" % (
                label, e["all_avg"], e["all_p99"], m, r["all_avg"], r["all_p99"],
                fmt_pct(avg_gain), fmt_pct(p99_gain), ptxt, rel, ours))
    configurations(rep, ["ecmp"] + [m for m in modes if m != "ecmp"])
    return 0


if __name__ == "__main__":
    sys.exit(main())

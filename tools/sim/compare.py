#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The rocetor authors
"""Our FCT slowdowns beside the papers' (doc/evaluation.md, issue 17).

Reads the report.json that tools/sim/report.py writes and prints one
markdown table: per setting (workload, load, transport) and mode, ECMP's
avg / p99 slowdown, the mode's, how much lower than ECMP ours is, and what
the mode's paper reports for that setting (where it reports one).

The papers' figures, as issue 17 quotes them ("lower than ECMP by",
avg / p99 FCT slowdown):
- ConWeave (SIGCOMM'23, NS-3, the 8 x 16 + 8 spine leaf-spine, 2:1, 100G,
  DCQCN, AliStorage2019 and FbHdp2015): at 50% load at least 23.3% /
  45.8% lossless and 12.7% / 46.2% IRN; at 80% load 17.6% / 35.8%
  lossless and 42.3% / 66.8% IRN. "At least": the smaller of the two
  workloads' gains, so each workload is held to it.
- SeqBalance (8 leaves x 12 spines, AliStorage): avg 16%, p99 23.6%
  (load and transport not in our notes: shown beside every AliStorage
  setting, as an order of magnitude).
- CAVER (k=4 fat-tree): avg up to 15% below ECMP (and 10% below ConWeave).
"""

import argparse
import json
import sys

PAPER = {
    # (mode, load, transport, workload or None): (avg %, p99 %, note)
    ("conweave", 0.5, "lossless", None): (23.3, 45.8, "at least"),
    ("conweave", 0.5, "irn", None): (12.7, 46.2, "at least"),
    ("conweave", 0.8, "lossless", None): (17.6, 35.8, "at least"),
    ("conweave", 0.8, "irn", None): (42.3, 66.8, "at least"),
    ("seqbalance", None, None, "AliStorage2019"): (16.0, 23.6, "8x12, load n/a"),
    ("caver", None, None, None): (15.0, None, "k=4 fat-tree, up to"),
}


def paper_for(mode, workload, load, transport, fattree):
    for (m, l, t, w), v in PAPER.items():
        if m != mode:
            continue
        if m == "caver" and not fattree:
            continue
        if l is not None and abs(l - load) > 1e-9:
            continue
        if t is not None and t != transport:
            continue
        if w is not None and w != workload:
            continue
        return v
    return None


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
          "| paper: avg / p99 lower by |")
    print("|---|---|---|---|---|---|---|")
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
            ptxt = "-" if p is None else "%s / %s (%s)" % (fmt_pct(p[0]), fmt_pct(p[1]), p[2])
            print("| %s | %.3f / %.3f | %s | %.3f / %.3f | %s | %s | %s |" % (
                label, e["all_avg"], e["all_p99"], m, r["all_avg"], r["all_p99"],
                fmt_pct(avg_gain), fmt_pct(p99_gain), ptxt))
    return 0


if __name__ == "__main__":
    sys.exit(main())

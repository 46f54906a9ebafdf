#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The rocetor authors
"""The ConWeave paper's comparison (doc/evaluation.md, issue 33) over seeds
1-3 when seeds 1-2 are known only as their means: the fig12 table of
doc/evaluation.md and the NAME-bins.csv files beside it (means over seeds
1 and 2), and the report.json that report.py wrote for seed 3's runs. A
mean over three seeds is (2 m12 + m3) / 3, exactly, because report.py's
figures are means of per-seed values (the seeds-1-2 table's own rounding
to 3 decimals moves a percentage by at most 0.1 point:
fig12-s12-recomputed.md is that table recomputed from its own means).

Writes fig12-s3.md (seed 3 alone), fig12-s123.md (the 3-seed means, the
fig12 table's format, for the settings seed 3 has), NAME-bins.csv and
NAME.png (3-seed means; the lossless plots leave DRILL out, as the doc's).

usage: combine_seeds.py EVALUATION_MD BINS_DIR SEED3_REPORT_JSON... --out DIR

Since the 3-seed table replaced it in doc/evaluation.md, the seeds-1-2
table and bins are in doc/eval/i33/s12/ (fig12.md, NAME-bins.csv):
  combine_seeds.py doc/eval/i33/s12/fig12.md doc/eval/i33/s12 \
      doc/eval/i33/seed3/*-report.json --out OUT
gives doc/eval/i33/s123/ and the table again.
"""
import argparse
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import report as R  # noqa: E402

ap = argparse.ArgumentParser()
ap.add_argument("evalmd"); ap.add_argument("binsdir"); ap.add_argument("reports", nargs="+")
ap.add_argument("--out", required=True)
a = ap.parse_args()
os.makedirs(a.out, exist_ok=True)
MODES = ["conga", "letflow", "drill", "conweave", "spray"]
RIVALS = ["ecmp", "conga", "letflow", "drill"]

s = open(a.evalmd).read()
tab = s[s.index("<!-- table:fig12 -->"):s.index("<!-- /table -->", s.index("<!-- table:fig12 -->"))]
m12 = {}
for line in tab.splitlines():
    m = re.match(r"\| (\S+) (\d+)% (\w+) \| ([\d.]+) / ([\d.]+) \| (\w+) \| ([\d.]+) / ([\d.]+) \|", line)
    if not m:
        continue
    wl, load, tr = m.group(1), int(m.group(2)), m.group(3)
    key = "%s-load%s-%s" % (wl, {50: "0.5", 80: "0.8"}[load], tr)
    m12.setdefault(key, {})["ecmp"] = (float(m.group(4)), float(m.group(5)))
    m12[key][m.group(6)] = (float(m.group(7)), float(m.group(8)))

s3 = {}
for rp in a.reports:
    for k, v in json.load(open(rp)).items():
        s3[k] = v

def pct(base, x):
    return (base - x) / base * 100.0

def row_table(means):
    out = ["| setting | ECMP avg / p99 | mode | avg / p99 | avg lower by | p99 lower by | ours, as the paper counts |",
           "|---|---|---|---|---|---|---|"]
    for key in sorted(means):
        mm = means[key]
        wl, load, tr = re.match(r"(\S+)-load([\d.]+)-(\w+)", key).groups()
        name = "%s %d%% %s" % (wl, round(float(load) * 100), tr)
        ea, ep = mm["ecmp"]
        for mode in MODES:
            if mode not in mm:
                continue
            va, vp = mm[mode]
            paper = "-"
            if mode == "conweave":
                if wl == "AliStorage2019":
                    riv = [r for r in RIVALS if r in mm]
                    pa = min(pct(mm[r][0], va) for r in riv)
                    pp = min(pct(mm[r][1], vp) for r in riv)
                    paper = "%.1f%% / %.1f%% (vs %s)" % (pa, pp, ", ".join(riv))
                elif wl == "FbHdp2015" and load == "0.8":
                    paper = "%.1f%% / %.1f%% (vs ecmp)" % (pct(ea, va), pct(ep, vp))
            out.append("| %s | %.3f / %.3f | %s | %.3f / %.3f | %.1f%% | %.1f%% | %s |" % (
                name, ea, ep, mode, va, vp, pct(ea, va), pct(ep, vp), paper))
    return "\n".join(out) + "\n"

# Check: the seeds 1-2 table recomputed from its own means.
open(os.path.join(a.out, "fig12-s12-recomputed.md"), "w").write(row_table(m12))
seed3 = {k: {mo: (v[mo]["all_avg"], v[mo]["all_p99"]) for mo in v} for k, v in s3.items()}
open(os.path.join(a.out, "fig12-s3.md"), "w").write(row_table(seed3))
comb = {}
for k in seed3:
    if k not in m12 or set(m12[k]) - set(seed3[k]):
        print("skip", k, "(modes missing)"); continue
    comb[k] = {mo: ((2 * m12[k][mo][0] + seed3[k][mo][0]) / 3, (2 * m12[k][mo][1] + seed3[k][mo][1]) / 3)
               for mo in m12[k]}
open(os.path.join(a.out, "fig12-s123.md"), "w").write(row_table(comb))
# Largest move of a mode's avg from the seeds-1-2 mean.
for k in sorted(comb):
    mv = max(abs(comb[k][mo][0] / m12[k][mo][0] - 1) for mo in comb[k])
    print("%s: largest avg move from the seeds 1-2 mean %.1f%%" % (k, 100 * mv))
# Bins: combined CSV + plot (lossless: DRILL left out of the plot).
for k in sorted(comb):
    rows = [l.strip().split(",") for l in open(os.path.join(a.binsdir, k + "-bins.csv")).readlines()[1:]]
    b12 = {}
    for r in rows:
        b12.setdefault(r[0], {})[int(r[1])] = dict(size=float(r[2]), avg=float(r[3]), p50=float(r[4]),
                                                    p95=float(r[5]), p99=float(r[6]))
    res = {}
    with open(os.path.join(a.out, k + "-bins.csv"), "w") as f:
        f.write("mode,bin,size,avg,p50,p95,p99\n")
        for mode in sorted(b12, key=R.mode_key):
            bins3 = s3[k][mode]["bins"]
            nb = []
            for i, b in enumerate(bins3):
                if b is None or i not in b12[mode]:
                    nb.append(None); continue
                c = {q: (2 * b12[mode][i][q] + b[q]) / 3 for q in ("size", "avg", "p50", "p95", "p99")}
                nb.append(c)
                f.write("%s,%d,%d,%.4f,%.4f,%.4f,%.4f\n" % (mode, i, round(c["size"]), c["avg"], c["p50"], c["p95"], c["p99"]))
            res[mode] = {"bins": nb}
    if k.endswith("lossless"):
        res.pop("drill", None)
    wl, load, tr = re.match(r"(\S+)-load([\d.]+)-(\w+)", k).groups()
    try:
        # report.py's setting key: (topo, scenario, workload, load, transport)
        R.plot(("", "", wl, float(load), tr), res, os.path.join(a.out, k + ".png"))
    except Exception as e:
        print("plot", k, e)

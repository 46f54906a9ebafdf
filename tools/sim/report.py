#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The rocetor authors
"""FCT slowdown report of rocetor-sim runs (doc/simulator.md, issue 17).

    tools/sim/report.py [--out DIR] [--warmup-ms 5] [--bdp BYTES] [--windows 5]
        [--censored] RUN_DIR...

Each RUN_DIR holds what rocetor-sim --out wrote:

- fct.txt, one line per finished flow:
  `src_ip dst_ip sport dport size_bytes start_ns fct_ns ideal_ns`
  (lines starting with '#' are skipped);
- summary.json with the run's parameters, at the top level or under
  "params": lb (the mode), workload (a file name: its base name without
  extension is used), load, transport, seed, and for the BDP link_gbps (or
  host_gbps), link_delay_ns and topo (leafspine, fattree); bdp_bytes or
  base_rtt_ns, when present, are taken as they are.

As the ConWeave artifact's fctAnalysis.py does: slowdown = max(1, fct /
ideal); flows that start at or before the warm-up (5 ms) are left out
(it keeps start > T); flows smaller than 1 BDP are "small", the others
"large"; the summary percentiles are numpy's (linear interpolation);
flows sorted by size (ties by slowdown) fall in 20 bins of equal count
(bin i = sorted[int(5i n / 100) : int(5(i+1) n / 100)]), each with its
largest size, the average and get_pctl(p) = sorted_slowdowns[int(len x
p)] for p = 0.5, 0.95, 0.99. (The artifact's script also drops the last
line of its sorted list, the largest flow, by slicing [:-2] of a text
ending in a newline; we keep every flow.)

The BDP is the artifact's: base RTT of the longest path (4 links in a
leaf-spine, 6 in a fat-tree) = 2 x links x delay + links x 8000 / gbps
(one 1000-byte payload's serialization per hop), times the link rate:
104,000 bytes for 1 us links at 100G in a leaf-spine, 156,000 in a
fat-tree.

Runs with the same workload, load, transport, asymmetry (link_down,
slow_link) and topo (when several are given) form a setting; each setting gets a markdown table with one row per mode
(means over the seeds, with +- half the range between the seeds, and
how much lower than ECMP's the average and p99 are, as the papers quote
them) and a PNG of slowdown (average and p99) against flow size, one line
per mode. DIR gets report.md, report.json (every number), and per
setting NAME.png and NAME-bins.csv.

Every flow counted (issue 32): a run whose summary.json says flows were
left unfinished (flows.unfinished > 0: started, never finished) or that
the drain limit stopped it (flows.drain_limit_hit) would lose its slowest
flows without a word, so report.py refuses it: it names each such run and
its counts on stderr, writes nothing and exits 4. --censored reports them
instead, as censored: every table row then counts the unfinished flows of
its runs and the runs the drain limit stopped ("censored" column; 0 and 0
when none), and report.json has "unfinished" and "drain_limit_runs" per
mode. The unfinished flows are not in the statistics (they have no FCT):
each figure is then a lower bound.

Steady state (issue 32): per setting and mode, the slowdown (avg and p99,
means over the seeds) of the flows by start time, in --windows (5) equal
windows from the warm-up to the end of arrivals (params.duration_ms; the
last start when absent): a table per setting in report.md ("windows"
per mode in report.json). A mode drifts when its last two windows' average
slowdowns differ by more than 10% of the earlier one, or their p99s by
more than 25% (a window's p99 rests on its 1% slowest flows: in one seed of
the leaf-spine matrix steady modes' last two p99s differ by up to 19%), or
when its average or its p99 rises from each window to the next; report.md
says so under the table and
report.py warns on stderr (the run is too short for its load to have
reached a steady state, or it never does).
"""

import argparse
import gzip
import json
import math
import os
import sys

N_BINS = 20
PCTLS = (0.5, 0.95, 0.99)
# Path lengths (links) of the longest host-to-host path per topology.
PATH_LINKS = {"leafspine": 4, "fattree": 6}
MODE_ORDER = ["ecmp", "conweave", "seqbalance", "caver", "letflow", "drill", "conga", "spray"]
# Exit status when a run has unfinished flows or hit the drain limit.
EXIT_CENSORED = 4
# Drift: the last two windows' averages apart by more than this fraction.
DRIFT = 0.10
DRIFT_P99 = 0.25


def np_percentile(sorted_vals, q):
    """numpy.percentile's default (linear) on a sorted list, q in 0..100."""
    n = len(sorted_vals)
    if n == 0:
        return float("nan")
    pos = (n - 1) * q / 100.0
    lo = int(math.floor(pos))
    hi = min(lo + 1, n - 1)
    return sorted_vals[lo] + (sorted_vals[hi] - sorted_vals[lo]) * (pos - lo)


def get_pctl(sorted_vals, p):
    """The artifact's bin percentile: sorted[int(len x p)]."""
    return sorted_vals[min(int(len(sorted_vals) * p), len(sorted_vals) - 1)]


def param(summary, *keys, default=None):
    for where in (summary.get("params"), summary.get("parameters"), summary):
        if isinstance(where, dict):
            for k in keys:
                if k in where:
                    return where[k]
    return default


def run_bdp(summary, override):
    if override:
        return float(override)
    bdp = param(summary, "bdp_bytes", "bdp")
    if bdp:
        return float(bdp)
    gbps = float(param(summary, "link_gbps", "host_gbps", "gbps", default=100))
    rtt = param(summary, "base_rtt_ns")
    if rtt is None:
        links = PATH_LINKS.get(str(param(summary, "topo", default="leafspine")), 4)
        delay = float(param(summary, "link_delay_ns", default=1000))
        rtt = 2 * links * delay + links * 8000.0 / gbps
    return float(rtt) * gbps / 8.0


def scenario(summary):
    """The asymmetry of the run (rocetor-sim's link_down, slow_link), or ""."""
    parts = []
    for key, tag in (("link_down", "down"), ("slow_link", "slow")):
        v = param(summary, key)
        if v:
            parts.append("%s %s" % (tag, v))
    return "; ".join(parts)


def read_run(path, warmup_ns, bdp_override):
    with open(os.path.join(path, "summary.json")) as f:
        summary = json.load(f)
    flows = []
    # fct.txt, or fct.txt.gz: a run's flows compress about 5 to 1, and a
    # matrix of 128-host runs is hundreds of MB.
    fct = os.path.join(path, "fct.txt")
    opener = open
    if not os.path.exists(fct) and os.path.exists(fct + ".gz"):
        fct, opener = fct + ".gz", gzip.open
    with opener(fct, "rt") as f:
        for line in f:
            w = line.split()
            if not w or w[0].startswith("#"):
                continue
            size, start, fct, ideal = int(w[4]), int(w[5]), int(w[6]), int(w[7])
            if start <= warmup_ns:
                continue
            flows.append((size, max(1.0, fct / ideal) if ideal > 0 else float("inf"), start))
    workload = os.path.splitext(os.path.basename(str(param(summary, "workload", default="?"))))[0]
    fl = summary.get("flows") if isinstance(summary.get("flows"), dict) else {}
    dur = param(summary, "duration_ms")
    end_ns = float(dur) * 1e6 if dur else max([x[2] for x in flows], default=warmup_ns)
    return {
        "unfinished": int(fl.get("unfinished", 0) or 0),
        "drain_limit_hit": bool(fl.get("drain_limit_hit", False)),
        "started": fl.get("started"),
        "warmup_ns": warmup_ns,
        "end_ns": end_ns,
        "config": str(param(summary, "config", default="") or ""),
        "lb_config": param(summary, "lb_config", default=None),
        "dir": path,
        "mode": str(param(summary, "lb", "mode", default="?")),
        "workload": workload,
        "load": float(param(summary, "load", default=0)),
        "transport": str(param(summary, "transport", default="?")),
        "topo": str(param(summary, "topo", default="leafspine")),
        "scenario": scenario(summary),
        "seed": param(summary, "seed", default=0),
        "bdp": run_bdp(summary, bdp_override),
        # What the load counts (rocetor-sim --load-basis; runs from before
        # it counted payload) and the links' measured utilisation over the
        # measurement window, when the run reports it.
        "load_basis": str(param(summary, "load_basis", default="payload")),
        "host_util": (summary.get("load") or {}).get("host_links_util"),
        "tor_util": (summary.get("load") or {}).get("tor_fabric_util"),
        # The ToRs' uplink imbalance (rocetor-sim --uplink-us; the
        # ConWeave paper's Fig. 14): None for runs from before it.
        "uplink": summary.get("uplink_imbalance")
        if (summary.get("uplink_imbalance") or {}).get("samples") else None,
        "uplink_file": os.path.join(path, "uplink.txt")
        if (summary.get("uplink_imbalance") or {}).get("samples") else None,
        "flows": flows,
    }


def uplink_values(run):
    """The run's uplink imbalance values (uplink.txt's third column, %),
    [] when it did not measure them."""
    if not run["uplink_file"] or not os.path.exists(run["uplink_file"]):
        return []
    with open(run["uplink_file"]) as f:
        return [float(w[2]) for w in (line.split() for line in f) if len(w) == 3]


UPLINK_CDF_PCTS = (10, 25, 50, 75, 90, 99)


def uplink_cdf(runs_by_mode):
    """Per mode, the values of all its seeds' runs pooled and sorted (the
    ConWeave paper's Fig. 14 draws the CDF of every ToR's every period)."""
    out = {}
    for mode, rs in runs_by_mode.items():
        v = sorted(x for r in rs for x in uplink_values(r))
        if v:
            out[mode] = v
    return out


def plot_uplink(key, cdf, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(5.5, 3.8))
    for mode in sorted(cdf, key=mode_key):
        v = cdf[mode]
        ax.plot(v, [(i + 1) / len(v) for i in range(len(v))], label=mode)
    ax.set_xlabel("Uplink throughput imbalance, (max - min) / mean (%)")
    ax.set_ylabel("CDF")
    ax.grid(True, linestyle=":", linewidth=0.6)
    ax.legend()
    ax.set_title("%s: every ToR, every 100 us" % setting_name(key))
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def stats_of(vals):
    s = sorted(vals)
    if not s:
        return {"n": 0, "avg": float("nan"), "p50": float("nan"), "p95": float("nan"),
                "p99": float("nan")}
    return {"n": len(s), "avg": sum(s) / len(s), "p50": np_percentile(s, 50),
            "p95": np_percentile(s, 95), "p99": np_percentile(s, 99)}


def run_windows(run, n):
    """The run's flows by start time in n equal windows from the warm-up to
    the end of arrivals: per window its bounds (ns), flow count, average and
    p99 (numpy's) slowdown."""
    lo, hi = run["warmup_ns"], max(run["end_ns"], run["warmup_ns"])
    width = (hi - lo) / n if n > 0 else 0
    parts = [[] for _ in range(n)]
    for _size, sd, start in run["flows"]:
        i = int((start - lo) / width) if width > 0 else n - 1
        parts[min(max(i, 0), n - 1)].append(sd)
    out = []
    for i, p in enumerate(parts):
        st = stats_of(p)
        out.append({"from_ns": lo + i * width, "to_ns": lo + (i + 1) * width, "n": st["n"],
                    "avg": st["avg"], "p99": st["p99"]})
    return out


def drift_of(windows):
    """Why a mode's windows are not a steady state, or None: the last two
    windows' averages apart by more than DRIFT of the earlier, or their p99s
    by more than DRIFT_P99; or the average or the p99 rising from each
    window to the next."""
    why = []
    for k, name, lim in (("avg", "average", DRIFT), ("p99", "p99", DRIFT_P99)):
        v = [w[k] for w in windows if w.get(k) is not None and not math.isnan(w[k])]
        if len(v) < 2:
            continue
        a, b = v[-2], v[-1]
        if a > 0 and abs(b - a) > lim * a:
            why.append("the last two windows' %s slowdowns differ by %.1f%% (%.3f, %.3f)"
                       % (name, 100.0 * (b - a) / a, a, b))
        if len(v) >= 3 and all(y > x for x, y in zip(v, v[1:])):
            why.append("the %s slowdown rises in every window (%s)"
                       % (name, ", ".join("%.3f" % x for x in v)))
    return "; ".join(why) or None


def run_stats(run):
    flows = sorted((x[0], x[1]) for x in run["flows"])  # by size, ties by slowdown
    n = len(flows)
    bins = []
    for i in range(N_BINS):
        part = flows[int(i * 5 * n / 100):int((i + 1) * 5 * n / 100)]
        if not part:
            bins.append(None)
            continue
        sd = sorted(x[1] for x in part)
        b = {"size": part[-1][0], "n": len(part), "avg": sum(sd) / len(sd)}
        for p in PCTLS:
            b["p%g" % (p * 100)] = get_pctl(sd, p)
        bins.append(b)
    return {
        "all": stats_of([x[1] for x in flows]),
        "small": stats_of([x[1] for x in flows if x[0] < run["bdp"]]),
        "large": stats_of([x[1] for x in flows if x[0] >= run["bdp"]]),
        "bins": bins,
    }


def mean_spread(vals):
    vals = [v for v in vals if v is not None and not math.isnan(v)]
    if not vals:
        return float("nan"), float("nan")
    return sum(vals) / len(vals), (max(vals) - min(vals)) / 2


def by_setting(runs):
    """{setting key: {mode: [runs]}}."""
    settings = {}
    topos = {r["topo"] for r in runs}
    for r in runs:
        key = (r["topo"] if len(topos) > 1 else "", r["scenario"], r["workload"], r["load"],
               r["transport"])
        settings.setdefault(key, {}).setdefault(r["mode"], []).append(r)
    return settings


def aggregate(runs, n_windows=5):
    """Per setting, per mode: the means over seeds and their spreads."""
    settings = by_setting(runs)
    out = {}
    for key, modes in settings.items():
        # Runs of one setting at different load bases offered different
        # loads (doc/simulator.md "Load basis"): never averaged together.
        bases = {r["load_basis"] for rs in modes.values() for r in rs}
        if len(bases) > 1:
            raise SystemExit("report.py: setting %s mixes load bases (%s): %s" % (
                setting_name(key), ", ".join(sorted(bases)),
                " ".join(r["dir"] for rs in modes.values() for r in rs
                         if r["load_basis"] != "wire")))
        res = {}
        for mode, rs in modes.items():
            st = [run_stats(r) for r in rs]
            m = {"seeds": sorted(str(r["seed"]) for r in rs), "bdp": rs[0]["bdp"],
                 "flows": sum(s["all"]["n"] for s in st),
                 "unfinished": sum(r["unfinished"] for r in rs),
                 "drain_limit_runs": sum(1 for r in rs if r["drain_limit_hit"]),
                 "configs": sorted({r["config"] for r in rs}),
                 "lb_config": rs[0]["lb_config"], "load_basis": rs[0]["load_basis"]}
            for k in ("host_util", "tor_util"):
                v = [r[k] for r in rs if r[k] is not None]
                m[k] = sum(v) / len(v) if v else None
            # Uplink imbalance, % ((max - min) / mean per ToR per period):
            # means over the seeds that measured it.
            for k in ("mean", "p50", "p90", "p99"):
                v = [r["uplink"][k + "_pct"] for r in rs if r["uplink"] is not None]
                m["uplink_" + k], m["uplink_%s_spread" % k] = \
                    mean_spread(v) if v else (None, None)
            # The mode's section as the switches ran it (rocetor-sim's
            # params.lb_config), when every seed ran the same one.
            if any(r["lb_config"] != rs[0]["lb_config"] for r in rs):
                m["lb_config"] = "differs between the seeds"
            wins = [run_windows(r, n_windows) for r in rs]
            m["windows"] = []
            for i in range(n_windows):
                w = {"from_ns": wins[0][i]["from_ns"], "to_ns": wins[0][i]["to_ns"],
                     "n": sum(x[i]["n"] for x in wins)}
                for k in ("avg", "p99"):
                    w[k] = mean_spread([x[i][k] for x in wins])[0]
                m["windows"].append(w)
            m["drift"] = drift_of(m["windows"])
            for cat in ("all", "small", "large"):
                for k in ("avg", "p50", "p95", "p99"):
                    m["%s_%s" % (cat, k)], m["%s_%s_spread" % (cat, k)] = \
                        mean_spread([s[cat][k] for s in st])
            bins = []
            for i in range(N_BINS):
                bs = [s["bins"][i] for s in st if s["bins"][i] is not None]
                if not bs:
                    bins.append(None)
                    continue
                b = {"size": mean_spread([x["size"] for x in bs])[0]}
                for k in ("avg", "p50", "p95", "p99"):
                    b[k] = mean_spread([x[k] for x in bs])[0]
                bins.append(b)
            m["bins"] = bins
            res[mode] = m
        base = res.get("ecmp")
        for mode, m in res.items():
            for k in ("all_avg", "all_p99"):
                m[k + "_vs_ecmp"] = (100.0 * (base[k] - m[k]) / base[k]
                                     if base and base[k] > 0 else None)
        out[key] = res
    return out


def setting_name(key):
    topo, scen, workload, load, transport = key
    name = "%s-load%g-%s" % (workload, load, transport)
    if scen:
        name += "-" + "".join(c if c.isalnum() else "-" for c in scen)
    return (topo + "-" + name) if topo else name


def fmt(v, spread=None):
    if v is None or math.isnan(v):
        return "-"
    s = "%.3f" % v
    if spread is not None and not math.isnan(spread) and spread > 0:
        s += " ±%.3f" % spread
    return s


def fmt_vs(v):
    if v is None:
        return "-"
    return "%.1f%% lower" % v if v >= 0 else "%.1f%% higher" % -v


def mode_key(mode):
    return (MODE_ORDER.index(mode) if mode in MODE_ORDER else len(MODE_ORDER), mode)


def fmt_ms(ns):
    return "%g" % round(ns / 1e6, 3)


def window_table(res, lines):
    """The slowdown by flow start time (aggregate's windows), a row per
    mode, and the modes that drift."""
    any_m = next(iter(res.values()))
    ws = any_m.get("windows") or []
    if not ws:
        return
    lines.append("Slowdown (avg / p99) by flow start time, ms:")
    lines.append("")
    lines.append("| mode | " + " | ".join("%s-%s" % (fmt_ms(w["from_ns"]), fmt_ms(w["to_ns"]))
                                         for w in ws) + " |")
    lines.append("|---|" + "---|" * len(ws))
    for mode in sorted(res, key=mode_key):
        lines.append("| %s | %s |" % (mode, " | ".join(
            "%s / %s" % (fmt(w["avg"]), fmt(w["p99"])) for w in res[mode]["windows"])))
    lines.append("")
    for mode in sorted(res, key=mode_key):
        if res[mode].get("drift"):
            lines.append("**Not steady: %s**: %s." % (mode, res[mode]["drift"]))
            lines.append("")


def uplink_table(res, lines):
    """The ToRs' uplink imbalance per mode, when the runs measured it."""
    if all(m.get("uplink_mean") is None for m in res.values()):
        return
    lines.append("Uplink imbalance (the ConWeave paper's Fig. 14): per ToR, every "
                 "rocetor-sim --uplink-us (100 us), (max - min) / mean of the bytes its "
                 "uplinks sent, in %, over the measurement window:")
    lines.append("")
    lines.append("| mode | mean | p50 | p90 | p99 |")
    lines.append("|---|---|---|---|---|")
    for mode in sorted(res, key=mode_key):
        m = res[mode]
        if m.get("uplink_mean") is None:
            lines.append("| %s | - | - | - | - |" % mode)
            continue
        lines.append("| %s | %s | %s | %s | %s |" % (
            mode, fmt(m["uplink_mean"], m["uplink_mean_spread"]), fmt(m["uplink_p50"]),
            fmt(m["uplink_p90"]), fmt(m["uplink_p99"], m["uplink_p99_spread"])))
    lines.append("")


def fmt_censored(m):
    return "%d unfinished, %d drain limit" % (m.get("unfinished", 0),
                                             m.get("drain_limit_runs", 0))


def markdown(agg, censored=False):
    lines = ["# FCT slowdown", ""]
    for key in sorted(agg):
        res = agg[key]
        topo, scen, workload, load, transport = key
        any_m = next(iter(res.values()))
        lines.append("## %s%s, load %g, %s%s" % (topo + ", " if topo else "", workload, load,
                                                  transport, ", " + scen if scen else ""))
        lines.append("")
        lines.append("Seeds: %s; 1 BDP = %d bytes; means over the seeds, ± half their range."
                     % (", ".join(any_m["seeds"]), round(any_m["bdp"])))
        lines.append("")
        hu = [m["host_util"] for m in res.values() if m.get("host_util") is not None]
        tu = [m["tor_util"] for m in res.values() if m.get("tor_util") is not None]
        load_line = "Load basis: %s" % any_m["load_basis"]
        if hu:
            load_line += ("; host links at %.3f of their rate, ToR fabric links at %.3f "
                          "(measurement window, mean over the modes)" %
                          (sum(hu) / len(hu), sum(tu) / len(tu) if tu else float("nan")))
        lines.append(load_line + ".")
        lines.append("")
        if censored:
            lines.append("Censored (--censored): the unfinished flows are not in the figures, "
                         "which are then lower bounds.")
            lines.append("")
        lines.append("| mode | flows | avg | p50 | p95 | p99 | small avg | small p99 | "
                     "large avg | large p99 | avg vs ECMP | p99 vs ECMP |" +
                     (" censored |" if censored else ""))
        lines.append("|---|---|---|---|---|---|---|---|---|---|---|---|" +
                     ("---|" if censored else ""))
        for mode in sorted(res, key=mode_key):
            m = res[mode]
            lines.append(("| %s | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" +
                          (" " + fmt_censored(m) + " |" if censored else "")) % (
                mode, m["flows"],
                fmt(m["all_avg"], m["all_avg_spread"]), fmt(m["all_p50"]), fmt(m["all_p95"]),
                fmt(m["all_p99"], m["all_p99_spread"]),
                fmt(m["small_avg"]), fmt(m["small_p99"]),
                fmt(m["large_avg"]), fmt(m["large_p99"]),
                "(baseline)" if mode == "ecmp" else fmt_vs(m["all_avg_vs_ecmp"]),
                "(baseline)" if mode == "ecmp" else fmt_vs(m["all_p99_vs_ecmp"])))
        lines.append("")
        uplink_table(res, lines)
        window_table(res, lines)
        lines.append("![%s](%s.png)" % (setting_name(key), setting_name(key)))
        lines.append("")
    return "\n".join(lines) + "\n"


def size_label(b):
    for unit, div in (("M", 1e6), ("K", 1e3)):
        if b >= div:
            v = b / div
            return ("%.0f%s" if v >= 10 else "%.1f%s") % (v, unit)
    return "%d" % b


def plot(key, res, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(11, 3.8))
    ticks = None
    for mode in sorted(res, key=mode_key):
        bins = res[mode]["bins"]
        xs = [i for i, b in enumerate(bins) if b is not None]
        if ticks is None and xs:
            ticks = (xs, [size_label(bins[i]["size"]) for i in xs])
        for ax, k in zip(axes, ("avg", "p99")):
            ax.plot(xs, [bins[i][k] for i in xs], marker="o", markersize=3, label=mode)
    for ax, title in zip(axes, ("Average", "p99")):
        ax.set_title("%s FCT slowdown" % title)
        ax.set_xlabel("Flow size (bytes)")
        ax.set_ylabel("FCT slowdown")
        ax.grid(True, linestyle=":", linewidth=0.6)
        if ticks:
            # Every other bin, the largest one included.
            ax.set_xticks(ticks[0][::-2][::-1])
            ax.set_xticklabels(ticks[1][::-2][::-1], rotation=45)
    axes[0].legend()
    fig.suptitle(setting_name(key))
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("runs", nargs="+", help="run directories (fct.txt, summary.json)")
    ap.add_argument("--out", default="report", help="output directory (default: report)")
    ap.add_argument("--warmup-ms", type=float, default=5.0,
                    help="leave out flows starting at or before this (default 5)")
    ap.add_argument("--bdp", type=float, default=None, help="1 BDP in bytes (default: per run)")
    ap.add_argument("--no-plot", action="store_true", help="no PNGs")
    ap.add_argument("--windows", type=int, default=5,
                    help="start-time windows after the warm-up (default 5)")
    ap.add_argument("--censored", action="store_true",
                    help="report runs with unfinished flows or a drain limit hit, their "
                    "counts in every row (default: refuse them, exit %d)" % EXIT_CENSORED)
    args = ap.parse_args(argv)
    if args.windows < 1:
        ap.error("--windows must be at least 1")

    runs = [read_run(d, args.warmup_ms * 1e6, args.bdp) for d in args.runs]
    bad = [r for r in runs if r["unfinished"] > 0 or r["drain_limit_hit"]]
    if bad and not args.censored:
        for r in bad:
            sys.stderr.write("report.py: %s: %d flows unfinished (of %s started)%s\n" % (
                r["dir"], r["unfinished"], r["started"],
                ", the drain limit stopped it" if r["drain_limit_hit"] else ""))
        sys.stderr.write("report.py: %d runs with flows not counted: refused (--censored "
                         "reports them, with the counts)\n" % len(bad))
        return EXIT_CENSORED
    agg = aggregate(runs, args.windows)
    settings = by_setting(runs)
    os.makedirs(args.out, exist_ok=True)
    md = markdown(agg, args.censored)
    with open(os.path.join(args.out, "report.md"), "w") as f:
        f.write(md)
    with open(os.path.join(args.out, "report.json"), "w") as f:
        json.dump({setting_name(k): v for k, v in agg.items()}, f, indent=1, sort_keys=True)
    for key, res in agg.items():
        name = setting_name(key)
        with open(os.path.join(args.out, name + "-bins.csv"), "w") as f:
            f.write("mode,bin,size,avg,p50,p95,p99\n")
            for mode in sorted(res, key=mode_key):
                for i, b in enumerate(res[mode]["bins"]):
                    if b is not None:
                        f.write("%s,%d,%d,%.4f,%.4f,%.4f,%.4f\n" % (
                            mode, i, round(b["size"]), b["avg"], b["p50"], b["p95"], b["p99"]))
        if not args.no_plot:
            plot(key, res, os.path.join(args.out, name + ".png"))
        cdf = uplink_cdf(settings[key])
        if cdf:
            # The uplink imbalance's distribution per mode, every seed's
            # every value pooled: percentiles, and the CDF as a plot.
            with open(os.path.join(args.out, name + "-uplink.csv"), "w") as f:
                f.write("mode,values,mean,%s,max\n" % ",".join("p%d" % q for q in UPLINK_CDF_PCTS))
                for mode in sorted(cdf, key=mode_key):
                    v = cdf[mode]
                    f.write("%s,%d,%.2f,%s,%.2f\n" % (
                        mode, len(v), sum(v) / len(v),
                        ",".join("%.2f" % np_percentile(v, q) for q in UPLINK_CDF_PCTS), v[-1]))
            if not args.no_plot:
                plot_uplink(key, cdf, os.path.join(args.out, name + "-uplink.png"))
        for mode in sorted(res, key=mode_key):
            if res[mode].get("drift"):
                sys.stderr.write("report.py: warning: %s, %s: not steady: %s\n" % (
                    name, mode, res[mode]["drift"]))
    sys.stdout.write(md)
    return 0


if __name__ == "__main__":
    sys.exit(main())

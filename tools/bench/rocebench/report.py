# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The rocetor authors
"""The outputs: results.json, results.csv, results.md (the table and the
scaling and data-path sections) and the Mpps vs flows plot."""

import csv
import json
import os
import re
import shutil
import subprocess

from .common import fmt_count, fnum, log, median, warn
from .config import STAGES


def md_table(ctx, rows):
    stages = [s for s in STAGES if any(s in r.get("stage_cycles", {}) for r in rows)]
    # OVS's columns only when it ran (tables of runs before it keep their shape)
    ovs = any(r["kind"] == "ovs" for r in rows)
    hdr = ["size", "flows", "mode", "Mpps/core", "min-max", "x 5tswap", "x l3fwd",
           "x macswap"] + (["x ovs"] if ovs else []) + \
        ["%s cyc" % s for s in (stages or ["stage"])] + \
        ["busy cyc", "on-CPU cyc", "x 5tswap on-CPU", "x l3fwd on-CPU"] + \
        (["x ovs on-CPU"] if ovs else []) + ["ns/pkt", "warnings"]
    out = ["| " + " | ".join(hdr) + " |", "|" + "---|" * len(hdr)]
    for r in rows:
        sc = r.get("stage_cycles", {})
        name = r["mode"] if r["kind"] == "rocetor" else "%s (%s)" % (r["mode"], r["role"])
        cells = [str(r["size"]), fmt_count(r["flows"]), name,
                 "**%s**" % fnum(r["mpps"]) if r["kind"] == "rocetor" else fnum(r["mpps"]),
                 "%s-%s" % (fnum(r["mpps_min"]), fnum(r["mpps_max"])) if r["mpps"] else "-",
                 fnum(r.get("ratio_5tswap"), "%.2f") if r["kind"] == "rocetor" else "-",
                 fnum(r.get("ratio_l3fwd"), "%.2f") if r["kind"] == "rocetor" else "-",
                 fnum(r.get("ratio_macswap"), "%.2f") if r["kind"] == "rocetor" else "-"]
        if ovs:
            cells.append(fnum(r.get("ratio_ovs"), "%.2f") if r["kind"] == "rocetor" else "-")
        cells += [fnum(sc.get(s), "%.0f") for s in (stages or ["-"])]
        cells += [fnum(r.get("busy_cycles_per_packet"), "%.0f"),
                  (fnum(r.get("oncpu_cycles_per_packet"), "%.0f") +
                   (" (%.0f%%)" % (100 * r["oncpu_frac"]) if r.get("oncpu_frac") else "")),
                  fnum(r.get("ratio_5tswap_oncpu"), "%.2f") if r["kind"] == "rocetor" else "-",
                  fnum(r.get("ratio_l3fwd_oncpu"), "%.2f") if r["kind"] == "rocetor" else "-"]
        if ovs:
            cells.append(fnum(r.get("ratio_ovs_oncpu"), "%.2f") if r["kind"] == "rocetor"
                         else "-")
        cells += [fnum(r.get("ns_per_packet_wall"), "%.1f") if r["kind"] == "rocetor" else
                  fnum(1000.0 / r["mpps"] if r["mpps"] else None, "%.1f")]
        w = list(r["warnings"])
        if r["good_runs"] < r["runs"]:
            w.insert(0, "%d of %d runs measured" % (r["good_runs"], r["runs"]))
        if r.get("reorder_held_per_pkt") is not None:
            w.append("reorder_held %.3f/pkt (pcap: %s)" % (
                r["reorder_held_per_pkt"], fnum(r.get("reorder_held_expected"), "%.3f")))
        cells.append("; ".join(w)[:160] if w else "")
        out.append("| " + " | ".join(cells) + " |")
    return "\n".join(out)


def write_outputs(ctx, rows, sources, scale, dp, elapsed):
    a = ctx.args
    os.makedirs(a.out, exist_ok=True)
    meta = ctx.meta
    meta["elapsed_s"] = round(elapsed, 1)
    meta["unavailable_modes"] = ctx.unavailable
    doc = {"meta": meta, "sources": sources, "summary": rows, "scaling": scale,
           "datapath": dp, "runs": ctx.records}
    jpath = os.path.join(a.out, "results.json")
    with open(jpath, "w") as f:
        json.dump(doc, f, indent=1, default=str)
        f.write("\n")
    # CSV: one row per (size, flows, mode)
    cpath = os.path.join(a.out, "results.csv")
    with open(cpath, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["size", "flows", "mode", "role", "runs", "good_runs", "sane_runs",
                    "mpps_median", "mpps_min", "mpps_max", "ratio_5tswap", "ratio_macswap",
                    "ratio_l3fwd", "ratio_ovs"] +
                   ["cycles_" + s for s in STAGES] + ["busy_cycles_per_packet",
                                                      "oncpu_cycles_per_packet", "oncpu_frac",
                                                      "ratio_5tswap_oncpu", "ratio_l3fwd_oncpu",
                                                      "ratio_ovs_oncpu",
                                                      "ns_per_packet", "warnings"])
        for r in rows:
            sc = r.get("stage_cycles", {})
            w.writerow([r["size"], r["flows"], r["mode"], r["role"], r["runs"], r["good_runs"],
                        r["sane_runs"], fnum(r["mpps"], "%.4f", ""),
                        fnum(r["mpps_min"], "%.4f", ""), fnum(r["mpps_max"], "%.4f", ""),
                        fnum(r.get("ratio_5tswap"), "%.4f", ""),
                        fnum(r.get("ratio_macswap"), "%.4f", ""),
                        fnum(r.get("ratio_l3fwd"), "%.4f", ""),
                        fnum(r.get("ratio_ovs"), "%.4f", "")] +
                       [fnum(sc.get(s), "%.1f", "") for s in STAGES] +
                       [fnum(r.get("busy_cycles_per_packet"), "%.1f", ""),
                        fnum(r.get("oncpu_cycles_per_packet"), "%.1f", ""),
                        fnum(r.get("oncpu_frac"), "%.3f", ""),
                        fnum(r.get("ratio_5tswap_oncpu"), "%.4f", ""),
                        fnum(r.get("ratio_l3fwd_oncpu"), "%.4f", ""),
                        fnum(r.get("ratio_ovs_oncpu"), "%.4f", ""),
                        fnum(1000.0 / r["mpps"] if r["mpps"] else None, "%.2f", ""),
                        "; ".join(r["warnings"])])
    text = report_text(ctx, rows, sources, scale, dp, elapsed)
    mpath = os.path.join(a.out, "results.md")
    with open(mpath, "w") as f:
        f.write(text)
    ppath = None
    if any(r["mpps"] for r in rows) and not a.no_plot:
        ppath = plot(ctx, rows)
    return jpath, mpath, cpath, ppath, text


def report_text(ctx, rows, sources, scale, dp, elapsed):
    a = ctx.args
    m = ctx.meta
    L = ["# rocetor benchmark results", ""]
    L.append("- date: %s; host: %s, %s, %d CPUs, kernel %s" % (
        m["date"], m["host"], m["cpu"], m["cpus"], m["kernel"]))
    L.append("- rocetor: %s (checkout %s; ran a copy, sha256 %s); testpmd: %s" % (
        m["rocetor"], m["git"], m["rocetor_sha256"][:12], m["testpmd"]))
    L.append("- l3fwd: %s" % (m.get("l3fwd") or "not run (%s)" % m.get("l3fwd_why_not")))
    if "ovs_why_not" in m:
        L.append("- ovs: %s" % (m.get("ovs") or "not run (%s)" % m.get("ovs_why_not")))
    L.append("- TSC: %s Hz (%s); cycles are TSC cycles per packet (ns = cycles / %.3f)" % (
        fnum(m["tsc_hz"], "%.0f"), m["tsc_source"], (m["tsc_hz"] or 1e9) / 1e9))
    L.append("- method: %d round(s) per (size, flows) group, each round the peers (%s) "
             "then every mode, %g s measured after %g s warm-up; Mpps = delta rx_packets of the "
             "receiving port / delta uptime between stats documents (testpmd: median of "
             "its Rx-pps samples after the first; l3fwd: delta opackets of the sink ports "
             "between two telemetry /ethdev/stats reads / delta time, --parse-ptype, LPM "
             "rules of the switch's routes); one forwarding lcore (-l 0,1 --main-lcore 1; "
             "l3fwd -l 0), hugepages (--huge-unlink); ratio = median over rounds of "
             "mode / peer of the same round (conweave-dst: the peers on %s)" % (
                 a.runs, ", ".join(["testpmd " + x for x in m["testpmd_modes"]] +
                                   (["l3fwd"] if m.get("l3fwd") else []) +
                                   (["OVS-DPDK"] if m.get("ovs") else [])) or "none",
                 a.duration, a.warmup,
                 "the DstToR port setup and pcap" if m.get("dst_baseline", "own") == "own"
                 else "the role-src setup (--dst-baseline src)"))
    for mode, why in ctx.unavailable.items():
        L.append("- %s: not available in this build (%s)" % (mode, why))
    L.append("- elapsed: %.0f s" % elapsed)
    L.append("")
    if sources:
        L.append("Traffic:")
        L.append("")
        for k, v in sources.items():
            L.append("- %s: %s" % (k, v))
        L.append("")
    if rows:
        L.append("Stage columns: cycles per packet in each pipeline stage (rocetor's "
                 "`stage_cycles`, sampled, last stats document; median over rounds); busy "
                 "cyc = `busy_cycles_per_packet`; on-CPU cyc = the worker thread's CPU time "
                 "(`worker_cpu_s`) in TSC cycles per received packet over the window, with "
                 "the share of the window the worker was on a CPU (below 100%: the machine "
                 "was shared, and Mpps and ns/pkt lost that much; on-CPU cyc did not; l3fwd's "
                 "and testpmd's from their busiest thread's /proc schedstat and telemetry "
                 "/ethdev/stats); x 5tswap on-CPU, x l3fwd on-CPU = the peer's on-CPU cyc / "
                 "this row's, median of the rounds; "
                 "ns/pkt = 1000 / Mpps (wall time per "
                 "packet on the core); `-` = not reported by this build.")
        L.append("")
        L.append(md_table(ctx, rows))
        L.append("")
    if scale:
        L.append("## Scaling: 1 vs 2 workers (%d B, %s flows)" % (
            scale["size"], fmt_count(scale["flows"])))
        L.append("")
        if not scale.get("available", True):
            L.append("Not available: %s" % scale.get("why"))
        else:
            L.append("2 workers: `-l 0,1 ... --main-forwards` (both lcores forward), two RX "
                     "queues on the pcap port (one pcap each, holding the flows its worker "
                     "owns by rocetor's RSS hash, as a NIC with rocetor's RETA delivers "
                     "them); Mpps summed over the pcap port's RX queues; on-CPU cycles per "
                     "packet = the workers' CPU time x TSC / packets (a ratio near 2 with "
                     "these equal is linear scaling); CPU = each worker's share of the "
                     "window on a CPU.")
            L.append("")
            L.append("| mode | 1 worker Mpps | 2 workers Mpps | ratio (median per round) | "
                     "on-CPU cyc 1 / 2 workers | CPU 1 / 2 workers | "
                     "hand-offs per run (2 workers) | warnings |")
            L.append("|---|---|---|---|---|---|---|---|")
            for mode, e in scale["modes"].items():
                L.append("| %s | %s | %s | %s | %s / %s | %s / %s | %s | %s |" % (
                    mode, fnum(e["w1_median"]), fnum(e["w2_median"]),
                    fnum(e["ratio_median"]),
                    fnum(e.get("w1_oncpu_median"), "%.0f"),
                    fnum(e.get("w2_oncpu_median"), "%.0f"),
                    fnum(e.get("w1_cpu_frac_median"), "%.2f"),
                    fnum(e.get("w2_cpu_frac_median"), "%.2f"),
                    fnum(median(e.get("handoff_tx", [])), "%.0f"),
                    "; ".join(e.get("warnings", []))[:200]))
        L.append("")
    if dp:
        L.append("## Data path: syscalls, allocations, locks (%s, %g s per mode)" % (
            dp.get("method"), dp["seconds"]))
        L.append("")
        if dp["errors"]:
            for e in dp["errors"]:
                L.append("- problem: %s" % e)
            L.append("")
        evs = []
        for mode, e in dp["modes"].items():
            for t in e["threads"]:
                for k in t["counts"]:
                    if k not in evs:
                        evs.append(k)
        short = [re.sub(r"^[^:]*:", "", k) for k in evs]
        L.append("| mode | thread | tid | role | " + " | ".join(short) + " |")
        L.append("|---|---|---|---|" + "---|" * len(evs))
        for mode, e in dp["modes"].items():
            for t in e["threads"]:
                L.append("| %s | %s | %d | %s | %s |" % (
                    mode, t["comm"], t["tid"], t["role"],
                    " | ".join(cnt(t["counts"].get(k)) for k in evs)))
        L.append("")
        if (dp.get("method") or "").startswith("perf"):
            L.append("nc = perf's \"not counted\": the thread did not run while counting. "
                     "The counters work: the main (control) thread's own syscalls and "
                     "allocations (it prints the stats documents) are counted.")
        else:
            L.append("strace counts one line for a thread blocked in a call when it attached.")
        for mode, e in dp["modes"].items():
            L.append("")
            L.append("- %s: forwarding thread total %s events while forwarding %s Mpps" % (
                mode, cnt(e.get("worker_total")), fnum(e.get("mpps"))))
        L.append("")
    return "\n".join(L) + "\n"


def cnt(v):
    if v is None:
        return "-"
    return v if isinstance(v, str) else "%d" % v


def ensure_matplotlib(a):
    try:
        __import__("matplotlib")
        return True
    except ImportError:
        pass
    if a.no_install or os.geteuid() != 0 or not shutil.which("apt-get"):
        warn("python3-matplotlib missing: no plot (apt-get install python3-matplotlib)")
        return False
    log("plot: installing python3-matplotlib with apt-get")
    r = subprocess.run(["apt-get", "install", "-y", "-q", "python3-matplotlib"],
                       capture_output=True, text=True)
    if r.returncode != 0:
        subprocess.run(["apt-get", "update", "-q"], capture_output=True)
        r = subprocess.run(["apt-get", "install", "-y", "-q", "python3-matplotlib"],
                           capture_output=True, text=True)
    try:
        __import__("matplotlib")
        return True
    except ImportError:
        warn("could not install python3-matplotlib: %s" % r.stderr[-300:])
        return False


def plot(ctx, rows):
    a = ctx.args
    if not ensure_matplotlib(a):
        return None
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    sizes = sorted({r["size"] for r in rows})
    fig, axes = plt.subplots(1, len(sizes), figsize=(5.2 * len(sizes), 5.0), squeeze=False)
    for ax, size in zip(axes[0], sizes):
        names = []
        for r in rows:
            if r["size"] == size and (r["mode"], r["role"]) not in names:
                names.append((r["mode"], r["role"]))
        for mode, role in names:
            pts = sorted((r["flows"], r["mpps"]) for r in rows
                         if r["size"] == size and r["mode"] == mode and r["role"] == role
                         and r["mpps"])
            if not pts:
                continue
            tp = mode.startswith("testpmd") or mode in ("l3fwd", "ovs")
            lab = "%s (%s)" % (mode, role) if tp else mode
            ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o",
                    linestyle="--" if tp else "-", linewidth=1 if tp else 2, label=lab)
        ax.set_xscale("log")
        ax.set_title("%d B %s" % (size, "frames" if size == 64 else "payload"))
        ax.set_xlabel("flows")
        ax.set_ylabel("Mpps per core (median)")
        ax.set_ylim(bottom=0)
        ax.grid(True, alpha=0.3)
    handles, labels = [], []
    for ax in axes[0]:
        for h, lab in zip(*ax.get_legend_handles_labels()):
            if lab not in labels:
                handles.append(h)
                labels.append(lab)
    fig.suptitle("rocetor: Mpps vs flows, one line per mode (%s)" % ctx.meta["date"][:10])
    fig.legend(handles, labels, loc="lower center", ncol=min(5, len(labels)), fontsize=8,
               frameon=False)
    fig.tight_layout(rect=(0, 0.06 * ((len(labels) + 4) // 5), 1, 1))
    path = os.path.join(a.out, "mpps-vs-flows.png")
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


# --------------------------------------------------------------------------
# Main

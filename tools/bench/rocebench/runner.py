# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The rocetor authors
"""The sections of an invocation: the matrix (rounds of the peers, testpmd
and l3fwd, and every mode per (size, flows) group) and its summary rows, and the 1 vs 2
workers scaling section."""

import os
import re
import time

from .common import fmt_count, fnum, log, median
from .config import MODES, PEERS, STAGES
from .l3fwd import run_l3fwd
from .ovs import run_ovs
from .runs import err_tail, run_rocetor, run_testpmd
from .traffic import Traffic, source_text


PEER_KINDS = ("testpmd", "l3fwd", "ovs")


class Ctx:
    def __init__(self, args):
        self.args = args
        self.traffic = Traffic(args)
        self.current = None
        self.unavailable = {}  # mode -> why (rocetor exits 2: not in this build)
        self.records = []
        self.t_start = time.time()
        self.done_runs = 0
        self.planned_runs = 0

    def progress(self, rec, what):
        self.done_runs += 1
        el = time.time() - self.t_start
        extra = []
        if rec.get("stage_cycles"):
            extra.append("%.0f busy cyc/pkt" % rec.get("busy_cycles_per_packet", 0))
        if rec["notes"]:
            extra.append("; ".join(rec["notes"]))
        if rec["problems"]:
            extra.append("PROBLEM: " + "; ".join(rec["problems"]))
        log("  [%d/%d %s] %s: %s Mpps%s" % (
            self.done_runs, self.planned_runs, time.strftime("%H:%M:%S", time.gmtime(el)),
            what, fnum(rec["mpps"]), (" (" + ", ".join(extra) + ")") if extra else ""))


def testpmd_available(args):
    return args.testpmd and os.path.isfile(args.testpmd) and os.access(args.testpmd, os.X_OK)


def peer_runs(ctx, tp, role, size, flows, meta, r):
    """Round r's peers on the ports and pcap of `role`: testpmd's forward
    modes, then l3fwd (when built), then OVS-DPDK (when installed)."""
    a = ctx.args
    for fwd in tp:
        rec = run_testpmd(ctx, fwd, size, flows, meta, role,
                          "testpmd-%s-%s-%d-%s-r%d" % (fwd, role, size, fmt_count(flows), r))
        rec["round"] = r
        ctx.records.append(rec)
        ctx.progress(rec, "round %d testpmd %s (%s setup)" % (r, fwd, role))
    if a.l3fwd:
        rec = run_l3fwd(ctx, size, flows, meta, role,
                        "l3fwd-%s-%d-%s-r%d" % (role, size, fmt_count(flows), r))
        rec["round"] = r
        ctx.records.append(rec)
        ctx.progress(rec, "round %d l3fwd (%s setup)" % (r, role))
    if getattr(a, "ovs", None):
        rec = run_ovs(ctx, size, flows, meta, role,
                      "ovs-%s-%d-%s-r%d" % (role, size, fmt_count(flows), r))
        rec["round"] = r
        ctx.records.append(rec)
        ctx.progress(rec, "round %d ovs (%s setup)" % (r, role))


def run_matrix(ctx):
    a = ctx.args
    roles = []
    for m in a.modes:
        if MODES[m][1] not in roles:
            roles.append(MODES[m][1])
    groups = [(s, f) for s in a.sizes for f in a.flows]
    tp = a.testpmd_modes if testpmd_available(a) else []
    sources = {}
    for gi, (size, flows) in enumerate(groups):
        log("")
        log("== size %d, %s flows ==" % (size, fmt_count(flows)))
        metas = {}
        for role in roles:
            metas[role] = ctx.traffic.get(role, size, flows)
            sources["%s %d %s" % (role, size, fmt_count(flows))] = source_text(metas[role], role)
            log("traffic (%s): %s" % (role, source_text(metas[role], role)))
        for r in range(1, a.runs + 1):
            for role in roles:
                if role == "src" or a.dst_baseline == "own":
                    peer_runs(ctx, tp, role, size, flows, metas[role], r)
                for mode in a.modes:
                    if MODES[mode][1] != role or mode in ctx.unavailable:
                        continue
                    rec = run_rocetor(ctx, mode, size, flows, metas[role],
                                      "%s-%d-%s-r%d" % (mode, size, fmt_count(flows), r))
                    rec["round"] = r
                    if rec.get("unavailable"):
                        ctx.unavailable[mode] = err_tail(rec.get("stderr_tail", ""), "", 1)
                        log("  %s: not available in this build, skipped from now on (%s)" %
                            (mode, ctx.unavailable[mode]))
                        ctx.planned_runs -= (a.runs - r + 1) + (len(groups) - gi - 1) * a.runs
                        continue
                    ctx.records.append(rec)
                    ctx.progress(rec, "round %d %s" % (r, mode))
    return sources


def summarise(ctx):
    a = ctx.args
    rows = []
    recs = [r for r in ctx.records if r.get("round")]
    groups = []
    for r in recs:
        g = (r["size"], r["flows"])
        if g not in groups:
            groups.append(g)
    for size, flows in groups:
        g = [r for r in recs if r["size"] == size and r["flows"] == flows]
        tpx = {}  # (peer, role, round) -> Mpps
        pcy = {}  # (peer, role, round) -> the peer's on-CPU cycles per packet
        for r in g:
            if r["kind"] in PEER_KINDS and r["mpps"]:
                tpx[(r.get("fwd", r["kind"]), r["role"], r["round"])] = r["mpps"]
            if r["kind"] in PEER_KINDS and r.get("oncpu_cycles_per_packet"):
                pcy[(r.get("fwd", r["kind"]), r["role"], r["round"])] = \
                    r["oncpu_cycles_per_packet"]
        names = []
        for r in g:
            key = (r["mode"], r["role"])
            if key not in names:
                names.append(key)
        # the peers' rows first (testpmd, l3fwd), then the modes in the order asked
        names.sort(key=lambda k: (0 if k[0].startswith("testpmd") else
                                  1 if k[0] == "l3fwd" else 2 if k[0] == "ovs" else 3,
                                  a.modes.index(k[0]) if k[0] in a.modes else 0))
        for mode, role in names:
            rs = [r for r in g if r["mode"] == mode and r["role"] == role]
            mp = [r["mpps"] for r in rs if r["mpps"]]
            row = {"size": size, "flows": flows, "mode": mode, "role": role,
                   "kind": rs[0]["kind"], "runs": len(rs), "good_runs": len(mp),
                   "sane_runs": sum(1 for r in rs if r["ok"]),
                   "mpps": median(mp), "mpps_min": min(mp) if mp else None,
                   "mpps_max": max(mp) if mp else None, "mpps_all": [r["mpps"] for r in rs]}
            base = role if a.dst_baseline == "own" else "src"
            for fwd in PEERS:
                ratios = [r["mpps"] / tpx[(fwd, base, r["round"])] for r in rs
                          if r["mpps"] and (fwd, base, r["round"]) in tpx]
                row["ratio_" + fwd] = median(ratios)
                row["ratios_" + fwd] = ratios
            row["oncpu_cycles_per_packet"] = median(
                [r.get("oncpu_cycles_per_packet") for r in rs])
            row["oncpu_frac"] = median([r.get("oncpu_frac") for r in rs])
            # peer / this, in on-CPU cycles, per round: the ratios a shared
            # machine does not move (the peers' thread CPU time from /proc).
            for fwd in PEERS:
                oc = [pcy[(fwd, base, r["round"])] / r["oncpu_cycles_per_packet"] for r in rs
                      if r.get("oncpu_cycles_per_packet") and (fwd, base, r["round"]) in pcy]
                row["ratio_%s_oncpu" % fwd] = median(oc)
            if rs[0]["kind"] == "rocetor":
                sc = {}
                for st in STAGES + sorted({k for r in rs for k in r.get("stage_cycles", {})
                                           if k not in STAGES and k != "sampled_packets"}):
                    v = median([r.get("stage_cycles", {}).get(st) for r in rs])
                    if v is not None:
                        sc[st] = v
                row["stage_cycles"] = sc
                row["busy_cycles_per_packet"] = median(
                    [r.get("busy_cycles_per_packet") for r in rs])

                if row["mpps"] and ctx.tsc:
                    row["ns_per_packet_wall"] = 1000.0 / row["mpps"]
                    row["cycles_per_packet_wall"] = ctx.tsc / (row["mpps"] * 1e6)
                held = median([r.get("reorder_held_per_pkt") for r in rs])
                if held is not None:
                    row["reorder_held_per_pkt"] = held
                    row["reorder_held_expected"] = rs[0].get("reorder_held_expected")
                row["handoff_tx"] = sum(r.get("handoff_tx", 0) for r in rs)
            row["warnings"] = merge_notes(rs)
            rows.append(row)
    return rows


def merge_notes(rs):
    """Notes and problems of a row's runs, once each: the same text with other
    figures becomes "TEXT (k/n runs, max X)"."""
    seen = {}
    for r in rs:
        for n in r["notes"] + r["problems"]:
            key = re.sub(r"\d+(\.\d+)?", "#", n)
            m = re.search(r"\d+(\.\d+)?", n)
            v = float(m.group(0)) if m else None
            e = seen.setdefault(key, {"text": n, "runs": set(), "max": v, "maxtext": n})
            e["runs"].add(r["label"])
            if v is not None and e["max"] is not None and v > e["max"]:
                e["max"], e["maxtext"] = v, n
    out = []
    for key, e in seen.items():
        k = len(e["runs"])
        if k == 1 and len(rs) == 1:
            out.append(e["text"])
        else:
            out.append("%s (%d/%d runs%s)" % (e["maxtext"], k, len(rs),
                                              ", the largest shown" if "#" in key else ""))
    return out


def scaling(ctx):
    """--scaling-modes at --scaling-size and --scaling-flows: 1 worker vs 2
    (--main-forwards: both lcores forward), alternated; Mpps summed over the
    pcap port's RX. The 2-worker pcaps hold the flows each worker owns by
    rocetor's RSS hash (benchgen --queues 2): what a NIC whose RETA rocetor
    programmed delivers, so no packet is handed between workers."""
    a = ctx.args
    size, flows = a.scaling_size, a.scaling_flows
    res = {"size": size, "flows": flows, "modes": {}, "sources": {}}
    log("")
    log("== scaling: 1 vs 2 workers, %d B, %s flows ==" % (size, fmt_count(flows)))
    metas = {}
    for mode in a.scaling_modes:
        role = MODES[mode][1]
        if role in metas:
            continue
        m1 = ctx.traffic.get(role, size, flows, 1)
        m2 = ctx.traffic.get(role, size, flows, 2)
        metas[role] = (m1, m2)
        res["sources"][role] = [source_text(m1, role),
                                source_text(m2, role) + " (two RX queues, one pcap each, "
                                "each the flows its worker owns by RSS)"]
        log("traffic (%s): 1 worker: %s" % (role, res["sources"][role][0]))
        log("traffic (%s): 2 workers: %s" % (role, res["sources"][role][1]))
    if "src" in res["sources"]:  # the names of the first version of this section
        res["source_1"], res["source_2"] = res["sources"]["src"]
    available = True
    runs = {}
    for mode in a.scaling_modes:
        res["modes"][mode] = {"w1": [], "w2": [], "ratios": [], "w1_oncpu": [], "w2_oncpu": [],
                              "w1_cpu_frac": [], "w2_cpu_frac": []}
    for r in range(1, a.runs + 1):
        for mode in a.scaling_modes:
            e = res["modes"][mode]
            m1, m2 = metas[MODES[mode][1]]
            r1 = run_rocetor(ctx, mode, size, flows, m1, "scale-%s-w1-r%d" % (mode, r))
            r1["section"] = "scaling"
            r1["scaling_round"] = r
            ctx.records.append(r1)
            ctx.progress(r1, "scaling round %d %s 1 worker" % (r, mode))
            e["w1"].append(r1["mpps"])
            if not available:
                continue
            r2 = run_rocetor(ctx, mode, size, flows, m2, "scale-%s-w2-r%d" % (mode, r),
                             workers=2)
            r2["section"] = "scaling"
            r2["scaling_round"] = r
            ctx.records.append(r2)
            ctx.progress(r2, "scaling round %d %s 2 workers" % (r, mode))
            if r2.get("unsupported"):
                available = False
                res["available"] = False
                res["why"] = "rocetor has no --main-forwards: " + r2["problems"][0]
                log("scaling: not available (%s)" % res["why"])
                continue
            e["w2"].append(r2["mpps"])
            e.setdefault("handoff_tx", []).append(r2.get("handoff_tx"))
            for k, rec in (("w1", r1), ("w2", r2)):
                e[k + "_oncpu"].append(rec.get("oncpu_cycles_per_packet"))
                e[k + "_cpu_frac"].append(rec.get("oncpu_frac"))
            runs.setdefault(mode, ([], []))
            runs[mode][0].append(r1)
            runs[mode][1].append(r2)
            if r1["mpps"] and r2["mpps"]:
                e["ratios"].append(r2["mpps"] / r1["mpps"])
    res.setdefault("available", True)
    for mode, (w1, w2) in runs.items():
        res["modes"][mode]["warnings"] = (["1 worker: " + x for x in merge_notes(w1)] +
                                          ["2 workers: " + x for x in merge_notes(w2)])
    for mode, e in res["modes"].items():
        e["w1_median"] = median(e["w1"])
        e["w2_median"] = median(e["w2"])
        e["ratio_median"] = median(e["ratios"])
        for k in ("w1_oncpu", "w2_oncpu", "w1_cpu_frac", "w2_cpu_frac"):
            e[k + "_median"] = median([x for x in e[k] if x is not None])
    return res

#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The rocetor authors
"""What happened inside each rocetor-sim run (doc/evaluation.md): a markdown
table, one row per run directory, of what explains a slowdown: flows
unfinished, data packets resent and retransmission timeouts, PFC XOFFs
sent, packets dropped (by reason), the most of a switch's shared buffer in
use, the reorder memory of the busiest ToR (99.9th percentile), holds
released at their deadline (ConWeave's reorder_flush_timeout, spray's
gap_timeouts), the links' measured utilisation, and the run's wall time.

    tools/sim/runinfo.py OUT/runs/*            # every run
    tools/sim/runinfo.py --match load0.8 OUT/runs/*

Reads each run's summary.json only (doc/simulator.md "summary.json")."""

import argparse
import json
import os
import sys

COLUMNS = ("run", "flows (unfinished)", "resent / timeouts", "XOFFs", "drops",
           "buffer peak", "reorder p99.9", "holds expired", "host / fabric util", "wall")

# The counter of holds released at their deadline, per mode (lb_counters;
# summary.json leaves out a counter that stayed 0).
EXPIRED = {"conweave": "reorder_flush_timeout", "spray": "gap_timeouts"}


def mb(v):
    return "-" if v is None else "%.2f MB" % (v / 1e6)


def row(d):
    with open(os.path.join(d, "summary.json")) as f:
        s = json.load(f)
    p = s.get("params", {})
    fl = s.get("flows", {})
    h = s.get("hosts", {})
    fr = s.get("frames", {})
    drops = s.get("drops", {}) or {}
    n_drop = sum(v for v in drops.values() if isinstance(v, (int, float)))
    n_drop += fr.get("egress_dropped", 0) if not drops else 0
    why = ", ".join("%s %d" % (k, v) for k, v in sorted(drops.items()) if v)
    lbc = s.get("lb_counters", {}) or {}
    exp = lbc.get(EXPIRED[p["lb"]], 0) if p.get("lb") in EXPIRED else None
    ro = s.get("reorder", {}) or {}
    ld = s.get("load", {}) or {}
    util = "-"
    if "host_links_util" in ld:
        util = "%.3f / %.3f" % (ld["host_links_util"], ld.get("tor_fabric_util", 0))
    return [os.path.basename(os.path.normpath(d)),
            "%d (%d)" % (fl.get("finished", 0) + fl.get("unfinished", 0), fl.get("unfinished", 0)),
            "%d / %d" % (h.get("data_retx", 0), h.get("timeouts", 0)),
            str(s.get("pfc", {}).get("tx_xoff", 0)),
            ("%d (%s)" % (n_drop, why)) if why else str(n_drop),
            mb((s.get("buffer") or {}).get("peak_bytes")),
            mb(ro.get("held_bytes_per_switch_p999_est")),
            "-" if exp is None else str(exp),
            util,
            "%.0f s" % s.get("speed", {}).get("wall_s", 0)]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("runs", nargs="+", help="run directories (with summary.json)")
    ap.add_argument("--match", default="", help="only runs whose name contains this")
    a = ap.parse_args(argv)
    rows = []
    for d in sorted(a.runs):
        if a.match not in os.path.basename(os.path.normpath(d)):
            continue
        if not os.path.exists(os.path.join(d, "summary.json")):
            print("runinfo: %s: no summary.json (not finished?)" % d, file=sys.stderr)
            continue
        rows.append(row(d))
    if not rows:
        print("runinfo: no run", file=sys.stderr)
        return 1
    print("| " + " | ".join(COLUMNS) + " |")
    print("|" + "---|" * len(COLUMNS))
    for r in rows:
        print("| " + " | ".join(r) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())

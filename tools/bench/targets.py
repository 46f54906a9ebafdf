#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The rocetor authors
"""Where issue 6's and issue 18's targets stand, from a tools/bench/run.py
results.json.

Usage: tools/bench/targets.py RESULTS_JSON [MORE_RESULTS_JSON ...] [--markdown]
(a later file's matrix cells, scaling and data-path sections replace an
earlier file's: e.g. the matrix of a full run, then a later --scaling run)
Prints one line (or Markdown table row) per target with the figures it is
judged on; the verdict is computed, not typed: "met" or "NOT met".
"""
import json
import sys


def main(argv):
    if len(argv) < 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    md = "--markdown" in argv
    d = {"summary": []}
    for path in [a for a in argv[1:] if not a.startswith("--")]:
        part = json.load(open(path))
        d["summary"] += part.get("summary") or []
        for key in ("scaling", "datapath"):
            if part.get(key):
                d[key] = part[key]
    cell = {(s["size"], s["flows"], s["mode"]): s for s in d["summary"]}
    rows = []

    def ratio_row(what, size, flows, mode, need, peer="5tswap"):
        s = cell.get((size, flows, mode))
        if s is None or s.get("ratio_" + peer) is None:
            rows.append((what, "not measured", "-"))
            return
        r = s["ratio_" + peer]
        rows.append((what, "%.2f x %s (%.2f Mpps; per-round %s)"
                     % (r, peer, s["mpps"], ", ".join("%.2f" % x for x in s["ratios_" + peer])),
                     "met" if r >= need else "NOT met"))

    # issue 6
    ratio_row("ECMP, 1 KB, 1K flows >= 0.9 x testpmd 5tswap", 1024, 1000, "ecmp", 0.9)
    ratio_row("ConWeave SrcToR, 1 KB, 1K flows >= 0.75 x 5tswap", 1024, 1000, "conweave-src", 0.75)
    ratio_row("ConWeave DstToR, 1 KB, 1K flows >= 0.75 x 5tswap", 1024, 1000, "conweave-dst", 0.75)
    # issue 18 (side by side in one run, on the cache-resident pcap:
    # run.py --src-packets 1)
    ratio_row("issue 18: ECMP, 1 KB, 1K flows >= 1.0 x l3fwd (LPM)", 1024, 1000, "ecmp", 1.0,
              "l3fwd")
    ratio_row("issue 18: ECMP, 1 KB, 1K flows >= 0.75 x 5tswap", 1024, 1000, "ecmp", 0.75)
    ratio_row("issue 18: ConWeave SrcToR, 1 KB, 1K flows >= 0.6 x 5tswap", 1024, 1000,
              "conweave-src", 0.6)
    # the rocetor scenarios of the results, in the order they were run (the
    # switch's modes: tools/bench/rocebench/config.py)
    modes = []
    for s in d["summary"]:
        if s.get("kind", "rocetor") == "rocetor" and not s["mode"].startswith("testpmd") \
                and s["mode"] not in modes:
            modes.append(s["mode"])
    for size in (64, 1024, 4096):
        for mode in modes:
            a, b = cell.get((size, 1000000, mode)), cell.get((size, 1000, mode))
            if a is None or b is None or not b.get("mpps"):
                continue
            r = a["mpps"] / b["mpps"]
            rows.append(("%s, %d B: 1M flows >= 0.7 x 1K flows" % (mode, size),
                         "%.2f (%.2f / %.2f Mpps)" % (r, a["mpps"], b["mpps"]),
                         "met" if r >= 0.7 else "NOT met"))
    sc = (d.get("scaling") or {}).get("modes", {})
    for mode, v in sc.items():
        if v.get("ratio_median") is None:
            continue
        r = v["ratio_median"]
        # 1.8 in the first benchmark issue, 1.9 since issue 34
        rows.append(("%s: 2 workers >= 1.9 x 1 worker" % mode,
                     "%.2f (%.2f -> %.2f Mpps)" % (r, v["w1_median"], v["w2_median"]),
                     "met" if r >= 1.9 else "NOT met"))
    dp = d.get("datapath") or {}
    for mode, v in (dp.get("modes") or {}).items():
        workers = [t for t in v.get("threads", []) if t.get("role", "").startswith("worker")]
        if not workers:
            continue
        counts = [c for t in workers for c in t["counts"].values()]
        if any(not isinstance(c, int) for c in counts):
            rows.append(("%s: no syscall, allocation or lock on the forwarding lcore" % mode,
                         "not counted", "-"))
            continue
        total = sum(counts)
        rows.append(("%s: no syscall, allocation or lock on the forwarding lcore" % mode,
                     "%d events (syscalls, malloc/free, rte_malloc, mutex) in %s s"
                     % (total, dp.get("seconds", "?")),
                     "met" if total == 0 else "NOT met"))
    if md:
        print("| target | measured | verdict |")
        print("|---|---|---|")
        for r in rows:
            print("| %s | %s | %s |" % r)
    else:
        for r in rows:
            print("%-62s %-60s %s" % r)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

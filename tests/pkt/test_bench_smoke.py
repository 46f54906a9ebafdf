#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The rocetor authors
"""bench-smoke: the benchmark suite's smoke run (tools/bench/run.py --smoke:
ecmp and ConWeave SrcToR, 1024 B, 1K flows, one round of 1 s, testpmd 5tswap
when dpdk-testpmd is installed, hugepages, -m <= 512 per process) completes,
prints the table, every mode has a positive Mpps, and every run's final stats
document is sane. Not a timed assertion: no Mpps threshold.

The runner's own checks (stats sanity, testpmd parsing) are also fed doctored
input here, so that they are seen to fail when they should."""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
import harness  # noqa: E402

SRC = os.environ.get("ROCETOR_SRC", os.path.join(os.path.dirname(__file__), "..", ".."))
RUN = os.path.join(SRC, "tools", "bench", "run.py")
BENCHGEN = os.path.join(SRC, "tools", "bench", "benchgen.py")
MODES = ["ecmp", "conweave-src"]

sys.path.insert(0, os.path.join(SRC, "tools", "bench"))


def stats_doc(rx, fwd, dropped=0, held=0, in_use=0, reason="no_route"):
    return {"ports": [{"port": 0, "rx_packets": rx}, {"port": 1, "rx_packets": 0}],
            "forwarded": fwd, "consumed": 0, "dropped": dropped,
            "drops": {"no_route": dropped if reason == "no_route" else 0,
                      "queue_full": dropped if reason == "queue_full" else 0},
            "held_packets": held, "mempool_in_use": in_use, "lb": {}}


def check_runner_checks(t):
    """run.py's parsers and sanity rules on known input."""
    import run  # tools/bench/run.py
    p, n, frac, top = run.check_final(stats_doc(1000, 1000), 0)
    t.eq(p, [], "(clean stats doc flagged)")
    t.eq(n, [], "(clean stats doc noted)")
    p, n, frac, top = run.check_final(stats_doc(1000, 1000, in_use=7), 0)
    t.check(any("mempool_in_use" in x for x in p), "mempool_in_use 7 not flagged: %r" % p)
    p, n, frac, top = run.check_final(stats_doc(1000, 1000, held=3), 0)
    t.check(any("held_packets" in x for x in p), "held_packets 3 not flagged: %r" % p)
    p, n, frac, top = run.check_final(stats_doc(1000, 950, dropped=40), 0)
    t.check(any("forwarded + consumed + dropped" in x for x in p),
            "accounting hole not flagged: %r" % p)
    p, n, frac, top = run.check_final(stats_doc(1000, 950, dropped=50, reason="queue_full"), 0)
    t.eq(p, [], "(5% drops are a warning, not a failure)")
    t.check(any("5.0%" in x and "queue_full" in x for x in n),
            "drops > 1%% must be noted with the top reason: %r" % n)
    p, n, frac, top = run.check_final(stats_doc(1000, 995, dropped=5), 0)
    t.eq(n, [], "(0.5% drops noted)")
    out = ("  ######## NIC statistics for port 0  ########\n  Rx-pps:            0   Rx-bps: 0\n"
           "  ######## NIC statistics for port 1  ########\n  Rx-pps:            0   Rx-bps: 0\n"
           "  ######## NIC statistics for port 0  ########\n  Rx-pps:     17655830   Rx-bps: 1\n"
           "  ######## NIC statistics for port 1  ########\n  Rx-pps:           12   Rx-bps: 1\n")
    t.eq(run.testpmd_samples(out.splitlines(True), 0), [0, 17655830])
    t.eq(run.testpmd_samples(out.splitlines(True), 1), [0, 12])
    docs = run.parse_docs('rocetor: start\n{"switch": "b", "uptime_s": 0.5,\n "ports": []}\n'
                          'noise\n{"switch": "b", "uptime_s": 1.0, "ports": []}\n')
    t.eq([d["uptime_s"] for d in docs], [0.5, 1.0])
    t.eq(run.n_mbufs(16000, 49152), 65535)
    t.eq(run.n_mbufs(1000000, 65536), (1 << 21) - 1)
    t.check(run.data_room(4096) - 128 >= 4158, "4 KB frames must fit one mbuf")


def main():
    t = harness.Checker("bench-smoke")
    check_runner_checks(t)
    if not os.path.isfile(BENCHGEN):
        print("bench-smoke: SKIP: %s is missing (the benchmark traffic generator)" % BENCHGEN)
        return 77
    work = tempfile.mkdtemp(prefix="rocetor-bench-smoke-")
    env = dict(os.environ)
    cmd = ["/usr/bin/python3", RUN, "--smoke", "--out", work, "--traffic-dir",
           os.path.join(work, "gen"), "--no-plot"]
    if os.environ.get("ROCETOR"):
        cmd += ["--rocetor", os.environ["ROCETOR"]]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=540, env=env)
    out = r.stdout
    t.eq(r.returncode, 0, "(run.py --smoke exit) %s" % (r.stdout[-1500:] + r.stderr[-1500:]))
    try:
        with open(os.path.join(work, "results.json")) as f:
            res = json.load(f)
    except (OSError, ValueError) as e:
        t.check(False, "no results.json: %s" % e)
        return t.done()
    rows = {(x["mode"], x["role"]): x for x in res["summary"]}
    for mode in MODES:
        row = rows.get((mode, "src"))
        if not t.check(row is not None, "no summary row for %s" % mode):
            continue
        t.check(row["mpps"] is not None and row["mpps"] > 0,
                "%s: Mpps %r" % (mode, row["mpps"]))
        t.eq(row["runs"], 1, "(%s runs)" % mode)
        t.eq(row["sane_runs"], row["runs"], "(%s: runs with sane stats) %r" %
             (mode, row["warnings"]))
        # the printed table carries the same positive figure
        m = re.search(r"^\| 1024 \| 1K \| %s \| \*\*([0-9.]+)\*\* \|" % re.escape(mode), out,
                      re.M)
        t.check(m is not None and float(m.group(1)) > 0,
                "table row for %s with a positive Mpps not printed:\n%s" % (mode, out[-2500:]))
    # every rocetor run's final stats document, read here independently
    runs = [x for x in res["runs"] if x["kind"] == "rocetor"]
    t.eq(sorted(x["mode"] for x in runs), sorted(MODES))
    for x in runs:
        path = os.path.join(work, "runs", x["label"] + ".stats.json")
        try:
            with open(path) as f:
                st = json.load(f)
        except (OSError, ValueError) as e:
            t.check(False, "%s: %s" % (path, e))
            continue
        rx = sum(p["rx_packets"] for p in st["ports"])
        t.check(rx > 0 and st["forwarded"] > 0, "%s: rx %d forwarded %d" %
                (x["label"], rx, st["forwarded"]))
        t.eq(rx, st["forwarded"] + st["consumed"] + st["dropped"], "(%s accounting)" % x["label"])
        t.eq(st["held_packets"], 0, "(%s held at exit)" % x["label"])
        t.eq(st["mempool_in_use"], 0, "(%s mempool at exit)" % x["label"])
        t.check(st["dropped"] <= 0.01 * rx, "%s: %d of %d dropped (%r)" %
                (x["label"], st["dropped"], rx, {k: v for k, v in st["drops"].items() if v}))
        t.check(x["mem_mb"] <= 512, "%s: -m %d > 512" % (x["label"], x["mem_mb"]))
        t.check("--huge-unlink" in x["cmd"] and "infinite_rx=1" in x["cmd"],
                "%s: not the benchmark setup: %s" % (x["label"], x["cmd"]))
    tp = [x for x in res["runs"] if x["kind"] == "testpmd"]
    if shutil.which("dpdk-testpmd"):
        t.eq(len(tp), 1, "(testpmd 5tswap runs)")
        for x in tp:
            t.check(x["mpps"] is not None and x["mpps"] > 0,
                    "testpmd 5tswap: %r %r" % (x["mpps"], x["problems"]))
            t.check(x["mem_mb"] <= 512, "testpmd -m %d > 512" % x["mem_mb"])
        for mode in MODES:
            row = rows.get((mode, "src"))
            if row:
                t.check(row.get("ratio_5tswap") is not None and row["ratio_5tswap"] > 0,
                        "%s: no ratio to testpmd 5tswap" % mode)
    else:
        print("bench-smoke: dpdk-testpmd not installed: no testpmd comparison")
        t.eq(len(tp), 0)
    t.check("net_pcap infinite_rx replay of" in out, "traffic source not named in the output")
    t.check(os.path.isfile(os.path.join(work, "results.md")) and
            os.path.isfile(os.path.join(work, "results.csv")), "results.md/.csv missing")
    rc = t.done()
    if rc == 0:
        shutil.rmtree(work, ignore_errors=True)
    else:
        print("bench-smoke: results kept in %s" % work)
    return rc


if __name__ == "__main__":
    sys.exit(main())

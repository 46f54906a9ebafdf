#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The rocetor authors
"""Unit test sim-report: tools/sim/report.py on synthetic runs whose
slowdowns were computed by hand.

Three runs of one setting (AliStorage2019, load 0.5, lossless; a 100G,
1 us leaf-spine: 1 BDP = (2 x 4 x 1000 + 4 x 80) ns x 100 Gb/s / 8 =
104,000 bytes). Each has 20 flows after the 5 ms warm-up (flow i = 1..20,
size 1000 i bytes for i <= 10, small; 100,000 i for i > 10, large; ideal
10,000 ns) and two before it (start 1 ms and exactly 5 ms, slowdown 100:
left out).

- ecmp seed 1: fct 10,000 i, slowdown i except flow 1 (fct 5,000: 0.5,
  clamped to 1). avg 210 / 20 = 10.5; numpy's p50 at 9.5 of 19 = 10.5,
  p95 at 18.05 = 19.05, p99 at 18.81 = 19.81; small (1..10) avg 5.5, p99
  at 8.91 = 9.91; large (11..20) avg 15.5, p99 19.91.
- ecmp seed 2: fct 10,000 (i + 1): slowdown i + 1; avg 11.5, p99 20.81.
  Means over the seeds: avg 11.0 (+- 0.5), p50 11.0, p95 (19.05 + 20.05) / 2
  = 19.55, p99 20.31 (+- 0.5), small avg (5.5 + 6.5) / 2 = 6.0.
- conweave seed 1: fct 5,000 i: slowdown max(1, i / 2) = 1, 1, 1.5, ...,
  10; avg (1 + 209 / 2) / 20 = 5.275; p99 at 18.81 between 9.5 and 10 =
  9.905, p50 5.25, p95 9.525, small avg 28 / 10 = 2.8. Lower than
  ECMP's means: avg (11 - 5.275) / 11 = 52.0%, p99 (20.31 - 9.905) /
  20.31 = 51.2%.
- Bins: 20 flows in 20 bins, one each: ecmp seed 1's bin 0 is flow 1
  (slowdown 1, size 1000), bin 19 flow 20 (20, 2,000,000); with seed 2,
  means 1.5 and 20.5; conweave's bin 19: 10.
- An ECMP run with link_down "tor0:spine1" (slowdown 3 i: avg 31.5) is a
  setting of its own.

SIM_REPORT_KEEP=DIR keeps the runs and the report in DIR.
"""

import json
import os
import subprocess
import sys
import tempfile
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
from rtrpy import checks  # noqa: E402

check = checks.check

HERE = os.path.dirname(os.path.abspath(__file__))


def near(a, b, what, eps=1e-6):
    check(a is not None and abs(a - b) <= eps, "%s: %r, want %r" % (what, a, b))


def write_run(d, mode, seed, fct_of, **extra):
    os.makedirs(d)
    params = {"lb": mode, "workload": "/x/AliStorage2019.txt", "load": 0.5,
              "transport": "lossless", "seed": seed, "link_gbps": 100, "link_delay_ns": 1000,
              "topo": "leafspine", "link_down": "", "slow_link": ""}
    params.update(extra)
    with open(os.path.join(d, "summary.json"), "w") as f:
        json.dump({"params": params}, f)
    with open(os.path.join(d, "fct.txt"), "w") as f:
        f.write("# src_ip dst_ip sport dport size_bytes start_ns fct_ns ideal_ns\n")
        f.write("10.1.0.1 10.2.0.1 1 4791 1000 1000000 1000000 10000\n")
        f.write("10.1.0.1 10.2.0.1 2 4791 1000 5000000 1000000 10000\n")
        for i in range(1, 21):
            size = 1000 * i if i <= 10 else 100000 * i
            f.write("10.1.0.1 10.2.0.1 %d 4791 %d %d %d 10000\n" % (
                100 + i, size, 6000000 + 1000 * i, fct_of(i)))


FAKE_SIM = r"""#!/usr/bin/python3
import json, os, sys
a = dict(zip(sys.argv[1::2], sys.argv[2::2]))
if a["--lb"] == "bad":
    sys.exit(3)
os.makedirs(a["--out"], exist_ok=True)
drain = a["--lb"] == "drain"
with open(os.path.join(a["--out"], "fct.txt"), "w") as f:
    for i in range(1, 21):
        fct = 10000 * i if a["--lb"] == "ecmp" else 5000 * i
        f.write("10.1.0.1 10.2.0.1 %d 4791 %d 6000000 %d 10000\n" % (i, 1000 * i, fct))
with open(os.path.join(a["--out"], "summary.json"), "w") as f:
    json.dump({"params": {"lb": a["--lb"], "workload": a["--workload"], "load": a["--load"],
               "transport": a["--transport"], "seed": int(a["--seed"]), "extra": a.get("--tors"),
               "load_basis": a.get("--load-basis", "payload"), "config": a.get("--config", "")},
               "flows": {"started": 25 if drain else 20, "finished": 20,
                         "unfinished": 5 if drain else 0, "drain_limit_hit": drain}}, f)
sys.exit(3 if drain else 0)
"""


def test_evaluate(tmp):
    """evaluate.py with a stand-in for rocetor-sim: the matrix (2 modes x 2
    seeds), extra arguments passed on, a second call that has nothing left
    to do, a failing mode reported and left out."""
    sim = os.path.join(tmp, "fake-sim")
    with open(sim, "w") as f:
        f.write(FAKE_SIM)
    os.chmod(sim, 0o755)
    out = os.path.join(tmp, "eval")
    base = [sys.executable, os.path.join(HERE, "evaluate.py"), "--out", out, "--sim", sim,
            "--workloads", "/w/FbHdp2015.txt", "--loads", "0.8", "--transports", "irn",
            "--seeds", "1,2", "--jobs", "2", "--report-args=--no-plot"]
    r = subprocess.run(base + ["--modes", "ecmp,caver", "--", "--tors", "4"],
                       capture_output=True, text=True)
    check(r.returncode == 0, "evaluate.py: %s %s" % (r.stdout, r.stderr))
    check("4 runs, 4 to do" in r.stdout, "first call:\n" + r.stdout)
    runs = sorted(os.listdir(os.path.join(out, "runs")))
    check(runs == ["FbHdp2015-load0.8-irn-caver-s1", "FbHdp2015-load0.8-irn-caver-s2",
                   "FbHdp2015-load0.8-irn-ecmp-s1", "FbHdp2015-load0.8-irn-ecmp-s2"],
          "run dirs %r" % runs)
    j = json.load(open(os.path.join(out, "runs", runs[0], "summary.json")))
    check(j["params"]["extra"] == "4", "extra arguments: %r" % j)
    # The evaluation's load basis is wire unless told (issue 32).
    check(j["params"]["load_basis"] == "wire", "load basis: %r" % j)
    j = json.load(open(os.path.join(out, "report", "report.json")))
    s = j.get("FbHdp2015-load0.8-irn", {})
    # Slowdowns 1..20 (avg 10.5) against max(1, i / 2) (avg 5.275).
    near(s.get("caver", {}).get("all_avg_vs_ecmp"), 100 * (10.5 - 5.275) / 10.5,
         "evaluate: caver vs ECMP")
    r = subprocess.run(base + ["--modes", "ecmp,caver,bad"], capture_output=True, text=True)
    check(r.returncode == 1, "a failing run: rc %d" % r.returncode)
    check("6 runs, 2 to do, 4 done already" in r.stdout, "resumed:\n" + r.stdout)
    check("irn-bad-s2" in r.stderr, "failures listed:\n" + r.stderr)
    # A run that exits 3 (the drain limit, flows unfinished) with its files
    # written: never in the report, listed with why, not run again.
    r = subprocess.run(base + ["--modes", "ecmp,caver,drain"], capture_output=True, text=True)
    check(r.returncode == 1, "a drain-limited run: rc %d" % r.returncode)
    check("FbHdp2015-load0.8-irn-drain-s1: FAILED (rocetor-sim exited 3, 5 of 25 flows "
          "unfinished, the drain limit stopped it)" in r.stdout, "the run's line:\n" + r.stdout)
    check("irn-drain-s2: rocetor-sim exited 3, 5 of 25 flows unfinished, the drain limit "
          "stopped it" in r.stderr, "listed with why:\n" + r.stderr)
    j = json.load(open(os.path.join(out, "report", "report.json")))
    check(sorted(j.get("FbHdp2015-load0.8-irn", {})) == ["caver", "ecmp"],
          "the failed runs are not reported: %r" % sorted(j.get("FbHdp2015-load0.8-irn", {})))
    r = subprocess.run(base + ["--modes", "ecmp,caver,drain"], capture_output=True, text=True)
    check(r.returncode == 1 and "6 runs, 0 to do, 6 done already" in r.stdout,
          "a failed run with its files is not run again: rc %d\n%s" % (r.returncode, r.stdout))

    # Runs of another load basis are not reused: all four again.
    r = subprocess.run(base + ["--modes", "ecmp,caver", "--load-basis", "payload"],
                       capture_output=True, text=True)
    check(r.returncode == 0 and "4 runs, 4 to do" in r.stdout, "payload basis:\n" + r.stdout)
    j = json.load(open(os.path.join(out, "runs", runs[0], "summary.json")))
    check(j["params"]["load_basis"] == "payload", "--load-basis payload: %r" % j)
    test_mode_configs(tmp, sim)
    test_conf_qos()


def test_conf_qos():
    """ConWeave's lossless config differs from the transport's only in
    its holds: the qos sections are the same text."""
    root = os.path.dirname(os.path.dirname(HERE))

    def qos(name):
        lines, on = [], False
        for ln in open(os.path.join(root, "conf", "sim", name)):
            if ln.strip() and not ln.startswith((" ", "#")):
                on = ln.startswith("qos:")
            if on:
                lines.append(ln.rstrip())
        return lines

    a, b = qos("lossless.yaml"), qos("lossless-conweave.yaml")
    check(a and a == b, "conf/sim/lossless-conweave.yaml's qos is lossless.yaml's:\n%s\n%s"
          % ("\n".join(a), "\n".join(b)))
    # The artifact-rule CONGA runs (issue 33) differ only in their conga
    # section too.
    for tr in ("lossless", "irn"):
        a, b = qos(tr + ".yaml"), qos("conga-artifact-%s.yaml" % tr)
        check(a and a == b, "conf/sim/conga-artifact-%s.yaml's qos is %s.yaml's" % (tr, tr))


def test_mode_configs(tmp, sim):
    """A mode's own config (issue 32, fair comparisons): <config>-<mode>.yaml
    beside a transport's config goes to that mode's runs of that transport
    only; a run of another config is run again; --no-mode-configs."""
    conf = os.path.join(tmp, "conf")
    os.makedirs(conf)
    for n in ("lossless.yaml", "irn.yaml", "lossless-caver.yaml"):
        open(os.path.join(conf, n), "w").close()
    out = os.path.join(tmp, "evalmc")
    base = [sys.executable, os.path.join(HERE, "evaluate.py"), "--out", out, "--sim", sim,
            "--workloads", "/w/FbHdp2015.txt", "--loads", "0.8", "--transports", "lossless,irn",
            "--modes", "ecmp,caver", "--seeds", "1", "--report-args=--no-plot",
            "--config-lossless", os.path.join(conf, "lossless.yaml"),
            "--config-irn", os.path.join(conf, "irn.yaml")]

    def configs():
        got = {}
        for r in os.listdir(os.path.join(out, "runs")):
            j = json.load(open(os.path.join(out, "runs", r, "summary.json")))
            got[r] = os.path.basename(j["params"]["config"])
        return got

    r = subprocess.run(base, capture_output=True, text=True)
    check(r.returncode == 0 and "4 runs, 4 to do" in r.stdout,
          "mode configs: rc %d\n%s%s" % (r.returncode, r.stdout, r.stderr))
    want = {"FbHdp2015-load0.8-lossless-ecmp-s1": "lossless.yaml",
            "FbHdp2015-load0.8-lossless-caver-s1": "lossless-caver.yaml",
            "FbHdp2015-load0.8-irn-ecmp-s1": "irn.yaml",
            "FbHdp2015-load0.8-irn-caver-s1": "irn.yaml"}
    check(configs() == want, "each run's config: %r" % configs())
    j = json.load(open(os.path.join(out, "report", "report.json")))
    check([os.path.basename(c) for c in
           j.get("FbHdp2015-load0.8-lossless", {}).get("caver", {}).get("configs", [])]
          == ["lossless-caver.yaml"], "report.json: caver's lossless config: %r" % j)
    check([os.path.basename(c) for c in
           j.get("FbHdp2015-load0.8-irn", {}).get("caver", {}).get("configs", [])]
          == ["irn.yaml"], "report.json: caver's IRN config: %r" % j)
    r = subprocess.run(base + ["--dry-run"], capture_output=True, text=True)
    check("4 runs, 0 to do" in r.stdout, "mode configs, resumed:\n" + r.stdout)
    # Without the mode's own config, caver's lossless run is another run.
    r = subprocess.run(base + ["--no-mode-configs"], capture_output=True, text=True)
    check(r.returncode == 0 and "4 runs, 1 to do" in r.stdout,
          "--no-mode-configs: rc %d\n%s%s" % (r.returncode, r.stdout, r.stderr))
    want["FbHdp2015-load0.8-lossless-caver-s1"] = "lossless.yaml"
    check(configs() == want, "--no-mode-configs, each run's config: %r" % configs())

def test_papers():
    """compare.py's published figures (issue 32 item 5), pinned with what
    each is relative to: section 4.1.1's for AliStorage2019 only, as "at
    least" over ECMP, CONGA, LetFlow and DRILL; the Meta Hadoop (FbHdp2015)
    80% figures as issue 32 quotes them, lower than ECMP; no AliStorage
    figure ever for FbHdp2015."""
    sys.path.insert(0, HERE)
    import compare  # noqa: E402
    cw411 = "at least, vs each of ECMP, CONGA, LetFlow, DRILL (ConWeave paper sec. 4.1.1)"
    meta = "lower than ECMP (ConWeave paper's appendix, Meta Hadoop, as issue 32 quotes it)"
    want = {
        ("AliStorage2019", 0.5, "lossless"): (23.3, 45.8, cw411),
        ("AliStorage2019", 0.5, "irn"): (12.7, 46.2, cw411),
        ("AliStorage2019", 0.8, "lossless"): (17.6, 35.8, cw411),
        ("AliStorage2019", 0.8, "irn"): (42.3, 66.8, cw411),
        ("FbHdp2015", 0.5, "lossless"): None,
        ("FbHdp2015", 0.5, "irn"): None,
        ("FbHdp2015", 0.8, "lossless"): (40.7, 59.4, meta),
        ("FbHdp2015", 0.8, "irn"): (28.6, 56.3, meta),
    }
    for (wl, load, tr), w in sorted(want.items()):
        e = compare.paper_for("conweave", wl, load, tr, False)
        got = None if e is None else (e["avg"], e["p99"], e["rel"])
        check(got == w, "ConWeave's paper figure for %s %g %s: %r, want %r" % (wl, load, tr,
                                                                          got, w))
        if e is not None:
            check(e["workload"] == wl, "%s %g %s: the figure is %s's" % (wl, load, tr,
                                                                         e["workload"]))
        # Not on a fat-tree: the papers' figures are for the leaf-spine.
        check(compare.paper_for("conweave", wl, load, tr, True) is None,
              "no leaf-spine figure on a fat-tree: %s %g %s" % (wl, load, tr))
    check(compare.paper_for("conweave", "AliStorage2019", 0.8, "irn", False)["rivals"] ==
          ("ecmp", "conga", "letflow", "drill"), "4.1.1's rivals")
    # No AliStorage2019 figure, of any mode, load or transport, for FbHdp2015.
    n = 0
    for mode in ("conweave", "seqbalance", "caver"):
        for load in (0.5, 0.8):
            for tr in ("lossless", "irn"):
                for ft in (False, True):
                    e = compare.paper_for(mode, "FbHdp2015", load, tr, ft)
                    n += 1
                    check(e is None or e["workload"] in ("FbHdp2015", None),
                          "%s FbHdp2015 %g %s: an AliStorage figure %r" % (mode, load, tr, e))
                    check(e is None or "4.1.1" not in e["rel"],
                          "%s FbHdp2015 %g %s: a section 4.1.1 figure" % (mode, load, tr))
    check(n == 24, "every combination tried")
    e = compare.paper_for("caver", "FbHdp2015", 0.8, "irn", True)
    check(e is not None and (e["avg"], e["p99"]) == (15.0, None) and "up to" in e["rel"],
          "CAVER's figure: %r" % e)
    check(compare.paper_for("caver", "FbHdp2015", 0.8, "irn", False) is None, "CAVER: fat-tree")
    e = compare.paper_for("seqbalance", "AliStorage2019", 0.5, "irn", False)
    check(e is not None and (e["avg"], e["p99"]) == (16.0, 23.6) and "ECMP" in e["rel"],
          "SeqBalance's figure: %r" % e)
    check(compare.paper_for("seqbalance", "FbHdp2015", 0.5, "irn", False) is None,
          "SeqBalance: AliStorage only")


def test_compare_workloads(tmp):
    """compare.py on a report.json of both workloads at 50% and 80%: the
    FbHdp2015 rows never carry an AliStorage figure; "ours, as the paper
    counts" is the smallest gain over the rivals run (ECMP, DRILL); each
    mode's configuration is printed."""
    def st(avg, p99, lb=None, cfgs=("conf/sim/lossless.yaml",)):
        return {"all_avg": avg, "all_p99": p99, "lb_config": lb, "configs": list(cfgs)}

    rep = {}
    for wl in ("AliStorage2019", "FbHdp2015"):
        for load in ("0.5", "0.8"):
            rep["%s-load%s-lossless" % (wl, load)] = {
                "ecmp": st(4.0, 40.0, {}, (os.path.join(os.path.dirname(os.path.dirname(HERE)),
                                                        "conf", "sim", "lossless.yaml"),)),
                "drill": st(2.0, 20.0, {}),
                "conweave": st(1.6, 10.0, {"resume_extra_us": 64, "resume_default_us": 600,
                                           "flow_table_size": 65536})}
    path = os.path.join(tmp, "both.json")
    with open(path, "w") as f:
        json.dump(rep, f)
    r = subprocess.run([sys.executable, os.path.join(HERE, "compare.py"), path, "--modes",
                        "conweave"], capture_output=True, text=True)
    check(r.returncode == 0, "compare.py on both workloads: %s" % r.stderr)
    rows = {ln.split(" | ")[0].lstrip("| "): ln for ln in r.stdout.splitlines()
            if "| conweave | 1.600" in ln}
    check(len(rows) == 4, "four ConWeave rows:\n" + r.stdout)
    for name, ln in rows.items():
        if name.startswith("FbHdp2015"):
            check("4.1.1" not in ln and "23.3%" not in ln and "17.6%" not in ln,
                  "an AliStorage figure on %s:\n%s" % (name, ln))
    check(rows.get("FbHdp2015 50% lossless", "").endswith("| - | - | - |"),
          "FbHdp2015 50%: no figure: " + rows.get("FbHdp2015 50% lossless", ""))
    check("| 40.7% / 59.4% | lower than ECMP (ConWeave paper's appendix, Meta Hadoop, as issue "
          "32 quotes it) | 60.0% / 75.0% (vs ecmp) |" in rows.get("FbHdp2015 80% lossless", ""),
          "FbHdp2015 80%: " + rows.get("FbHdp2015 80% lossless", ""))
    # 4.1.1's "at least": the smaller of the gains over ECMP (60%, 75%) and
    # DRILL (20%, 50%).
    check("| 17.6% / 35.8% | at least, vs each of ECMP, CONGA, LetFlow, DRILL (ConWeave "
          "paper sec. 4.1.1) | 20.0% / 50.0% (vs ecmp, drill) |" in
          rows.get("AliStorage2019 80% lossless", ""),
          "AliStorage 80%: " + rows.get("AliStorage2019 80% lossless", ""))
    check("| FbHdp2015 80% lossless | conweave | conf/sim/lossless.yaml | resume_default_us "
          "600, resume_extra_us 64 |" in r.stdout, "the configuration:\n" + r.stdout)
    # ECMP's runs recorded the absolute path of this checkout's file: shown
    # from the checkout's top.
    check("| FbHdp2015 80% lossless | ecmp | conf/sim/lossless.yaml | (no section) |" in r.stdout,
          "ECMP's configuration:\n" + r.stdout)


def test_censored(tmp):
    """A run with unfinished flows and the drain limit hit: refused (exit
    4, named with its counts), or with --censored reported with the counts
    in every row."""
    d = os.path.join(tmp, "x1")
    write_run(d, "conweave", 2, lambda i: 5000 * i)
    with open(os.path.join(d, "summary.json")) as f:
        j = json.load(f)
    j["flows"] = {"started": 25, "finished": 22, "unfinished": 3, "drain_limit_hit": True}
    with open(os.path.join(d, "summary.json"), "w") as f:
        json.dump(j, f)
    out = os.path.join(tmp, "cens")
    runs = [os.path.join(tmp, "e1"), d]
    r = subprocess.run([sys.executable, os.path.join(HERE, "report.py"), "--no-plot", "--out",
                        out] + runs, capture_output=True, text=True)
    check(r.returncode == 4, "a censored run refused: rc %d" % r.returncode)
    check("%s: 3 flows unfinished (of 25 started), the drain limit stopped it" % d in r.stderr
          and "--censored" in r.stderr, "the refusal:\n" + r.stderr)
    check(not os.path.exists(os.path.join(out, "report.json")), "nothing written")
    r = subprocess.run([sys.executable, os.path.join(HERE, "report.py"), "--no-plot", "--out",
                        out, "--censored"] + runs, capture_output=True, text=True)
    check(r.returncode == 0, "--censored: %s" % r.stderr)
    md = open(os.path.join(out, "report.md")).read()
    check("| 3 unfinished, 1 drain limit |" in md and "| 0 unfinished, 0 drain limit |" in md
          and "| avg vs ECMP | p99 vs ECMP | censored |" in md, "the censored rows:\n" + md)
    c = json.load(open(os.path.join(out, "report.json")))["AliStorage2019-load0.5-lossless"]
    check(c["conweave"]["unfinished"] == 3 and c["conweave"]["drain_limit_runs"] == 1 and
          c["ecmp"]["unfinished"] == 0, "report.json's counts")


def test_uplink(tmp):
    """The uplink imbalance (rocetor-sim's summary uplink_imbalance): means
    over the seeds that measured it, a table row per mode, a dash for a
    run from before it."""
    runs = []
    for seed, mean, p99 in ((1, 100.0, 180.0), (2, 120.0, 200.0)):
        d = os.path.join(tmp, "up_e%d" % seed)
        write_run(d, "ecmp", seed, lambda i: 10000 * i)
        with open(os.path.join(d, "summary.json")) as f:
            j = json.load(f)
        j["uplink_imbalance"] = {"period_ns": 100000, "samples": 80, "mean_pct": mean,
                                 "p50_pct": mean - 5, "p90_pct": mean + 30, "p99_pct": p99}
        with open(os.path.join(d, "summary.json"), "w") as f:
            json.dump(j, f)
        # uplink.txt: seed 1 has 0, 10, 20, 30; seed 2 40 .. 100 (two ToRs)
        with open(os.path.join(d, "uplink.txt"), "w") as f:
            for k, v in enumerate(range(0, 40, 10) if seed == 1 else range(40, 110, 10)):
                f.write("%d %d %.3f\n" % (100000 * (k // 2 + 1), k % 2, v))
        runs.append(d)
    d = os.path.join(tmp, "up_c1")
    write_run(d, "conweave", 1, lambda i: 5000 * i)
    runs.append(d)
    out = os.path.join(tmp, "up_out")
    r = subprocess.run([sys.executable, os.path.join(HERE, "report.py"), "--no-plot", "--out",
                        out] + runs, capture_output=True, text=True)
    check(r.returncode == 0, "report.py uplink: %s" % r.stderr)
    s = json.load(open(os.path.join(out, "report.json")))["AliStorage2019-load0.5-lossless"]
    near(s["ecmp"]["uplink_mean"], 110, "uplink mean over the seeds")
    near(s["ecmp"]["uplink_mean_spread"], 10, "its spread")
    near(s["ecmp"]["uplink_p99"], 190, "uplink p99")
    check(s["conweave"]["uplink_mean"] is None, "no uplink figures for a run without them")
    md = open(os.path.join(out, "report.md")).read()
    check("| mode | mean | p50 | p90 | p99 |" in md and "| conweave | - | - | - | - |" in md
          and "| ecmp | 110" in md, "the uplink table:\n" + md)
    # Every seed's values pooled, 0 .. 100 by 10: the CSV's percentiles
    # (numpy's linear rule on 11 values: p25 = 25, p99 = 99); no row for a
    # mode that measured none. With plotting, the CDF's PNG.
    csv = open(os.path.join(out, "AliStorage2019-load0.5-lossless-uplink.csv")).read()
    check(csv == "mode,values,mean,p10,p25,p50,p75,p90,p99,max\n"
          "ecmp,11,50.00,10.00,25.00,50.00,75.00,90.00,99.00,100.00\n", "uplink CSV:\n" + csv)
    r = subprocess.run([sys.executable, os.path.join(HERE, "report.py"), "--out", out] + runs,
                       capture_output=True, text=True)
    png = os.path.join(out, "AliStorage2019-load0.5-lossless-uplink.png")
    check(r.returncode == 0 and os.path.exists(png) and
          open(png, "rb").read(8) == b"\x89PNG\r\n\x1a\n", "the uplink CDF's PNG: %s" % r.stderr)


def test_windows(tmp):
    """The slowdown by start time: a 10 ms run, 5 windows of 1 ms after the
    5 ms warm-up, two flows in each (at 5.25 + i and 5.75 + i ms). ECMP's
    slowdowns 2 and 4 in every window (avg 3, p99 3.98): steady. ConWeave's
    window i: i + 1 and i + 2 (avg 1.5, 2.5, ..., 5.5): it rises in every
    window and its last two differ by (5.5 - 4.5) / 4.5 = 22.2%: drift.
    SeqBalance's are ECMP's but for the last window, 1 and 5.5: its average
    3.25 is within 10% of 3, but its p99 5.455 is 37.1% above 3.98: drift
    (the p99 rule; before it, SeqBalance at FbHdp2015 80% lossless passed
    with p99s of 15.6 ... 19.3, 27.1)."""
    def run(d, mode, sd):
        os.makedirs(d)
        with open(os.path.join(d, "summary.json"), "w") as f:
            json.dump({"params": {"lb": mode, "workload": "W.txt", "load": 0.8,
                                  "transport": "irn", "seed": 1, "duration_ms": 10,
                                  "config": "c.yaml", "lb_config": {"x": 1}},
                       "flows": {"started": 10, "finished": 10, "unfinished": 0,
                                 "drain_limit_hit": False}}, f)
        with open(os.path.join(d, "fct.txt"), "w") as f:
            for i in range(5):
                for k, start in enumerate((5250000 + 1000000 * i, 5750000 + 1000000 * i)):
                    f.write("1 2 %d 4791 1000 %d %d 10000\n" % (10 * i + k, start,
                                                               10000 * sd(i, k)))
    run(os.path.join(tmp, "win1"), "ecmp", lambda i, k: 2 + 2 * k)
    run(os.path.join(tmp, "win2"), "conweave", lambda i, k: i + 1 + k)
    run(os.path.join(tmp, "win3"), "seqbalance",
        lambda i, k: (1 + 4.5 * k) if i == 4 else 2 + 2 * k)
    out = os.path.join(tmp, "win")
    r = subprocess.run([sys.executable, os.path.join(HERE, "report.py"), "--no-plot", "--out",
                        out, os.path.join(tmp, "win1"), os.path.join(tmp, "win2"),
                        os.path.join(tmp, "win3")],
                       capture_output=True, text=True)
    check(r.returncode == 0, "report.py windows: %s" % r.stderr)
    s = json.load(open(os.path.join(out, "report.json")))["W-load0.8-irn"]
    ws = s["conweave"]["windows"]
    check(len(ws) == 5 and [w["n"] for w in ws] == [2] * 5, "five windows of 2 flows: %r" % ws)
    for i, w in enumerate(ws):
        near(w["avg"], i + 1.5, "conweave window %d avg" % i)
        near(w["from_ns"], 5e6 + 1e6 * i, "window %d start" % i)
    near(s["ecmp"]["windows"][4]["p99"], 3.98, "ecmp window 4 p99")
    check(s["ecmp"]["drift"] is None, "ECMP steady: %r" % s["ecmp"]["drift"])
    check(s["seqbalance"]["drift"] == "the last two windows' p99 slowdowns differ by "
          "37.1% (3.980, 5.455)", "SeqBalance's p99 drifts: %r" % s["seqbalance"]["drift"])
    check("differ by 22.2%" in (s["conweave"]["drift"] or "") and
          "rises in every window" in (s["conweave"]["drift"] or ""),
          "ConWeave drifts: %r" % s["conweave"]["drift"])
    check("warning: W-load0.8-irn, conweave: not steady" in r.stderr and
          "ecmp: not steady" not in r.stderr, "the warning:\n" + r.stderr)
    md = open(os.path.join(out, "report.md")).read()
    check("| mode | 5-6 | 6-7 | 7-8 | 8-9 | 9-10 |" in md and
          "| ecmp | 3.000 / 3.980 | 3.000 / 3.980 |" in md and
          "| conweave | 1.500 / 1.990 | 2.500 / 2.990 |" in md and
          "**Not steady: conweave**" in md, "the window table:\n" + md)
    check(s["conweave"]["lb_config"] == {"x": 1} and s["conweave"]["configs"] == ["c.yaml"],
          "the config recorded: %r" % s["conweave"].get("lb_config"))


def test_runinfo(tmp):
    """runinfo.py: one row per run from its summary.json, the numbers as
    written there; a run without summary.json is named and skipped."""
    d = os.path.join(tmp, "ri", "AliStorage2019-load0.8-lossless-conweave-s1")
    os.makedirs(d)
    with open(os.path.join(d, "summary.json"), "w") as f:
        json.dump({"params": {"lb": "conweave"},
                   "flows": {"finished": 990, "unfinished": 10},
                   "hosts": {"data_retx": 2348, "timeouts": 3},
                   "frames": {"egress_dropped": 0},
                   "drops": {"queue_full": 7},
                   "pfc": {"tx_xoff": 466},
                   "buffer": {"peak_bytes": 3116974},
                   "reorder": {"held_bytes_per_switch_p999_est": 1970010},
                   "lb_counters": {"reorder_flush_timeout": 9},
                   "load": {"host_links_util": 0.4004, "tor_fabric_util": 0.7157},
                   "speed": {"wall_s": 235.9}}, f)
    os.makedirs(os.path.join(tmp, "ri", "unfinished-run"))
    r = subprocess.run([sys.executable, os.path.join(HERE, "runinfo.py"),
                        os.path.join(tmp, "ri", "unfinished-run"), d],
                       capture_output=True, text=True)
    check(r.returncode == 0, "runinfo.py: %s" % r.stderr)
    want = ("| AliStorage2019-load0.8-lossless-conweave-s1 | 1000 (10) | 2348 / 3 | 466 | "
            "7 (queue_full 7) | 3.12 MB | 1.97 MB | 9 | 0.400 / 0.716 | 236 s |")
    check(want in r.stdout, "runinfo row:\n%s\nwant\n%s" % (r.stdout, want))
    check("unfinished-run: no summary.json" in r.stderr, "skipped run named: %s" % r.stderr)


def test_combine_seeds(tmp):
    """combine_seeds.py: the 3-seed mean (2 m12 + m3) / 3 of the table's
    avg and p99 and of every bin, the "ours, as the paper counts" column
    from the combined means, and the seeds-1-2 table recomputed."""
    d = os.path.join(tmp, "comb")
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "evaluation.md"), "w") as f:
        f.write("x\n<!-- table:fig12 -->\n| setting | ECMP avg / p99 | mode | avg / p99 | a | b | c |\n"
                "|---|---|---|---|---|---|---|\n"
                "| AliStorage2019 50% irn | 2.000 / 10.000 | conga | 1.800 / 9.000 | 10.0% | 10.0% | - |\n"
                "| AliStorage2019 50% irn | 2.000 / 10.000 | letflow | 2.000 / 10.000 | 0.0% | 0.0% | - |\n"
                "| AliStorage2019 50% irn | 2.000 / 10.000 | drill | 1.500 / 12.000 | 25.0% | -20.0% | - |\n"
                "| AliStorage2019 50% irn | 2.000 / 10.000 | conweave | 1.600 / 6.000 | 20.0% | 40.0% | x |\n"
                "<!-- /table -->\n")
    modes = {"ecmp": (2.3, 11.0), "conga": (1.5, 9.3), "letflow": (2.0, 10.0),
             "drill": (1.2, 12.3), "conweave": (1.3, 6.3)}
    rep = {"AliStorage2019-load0.5-irn": {
        m: {"all_avg": a, "all_p99": p, "bins": [{"size": 1000.0, "avg": a, "p50": 1.0, "p95": 2.0, "p99": p}]}
        for m, (a, p) in modes.items()}}
    with open(os.path.join(d, "s3.json"), "w") as f:
        json.dump(rep, f)
    with open(os.path.join(d, "AliStorage2019-load0.5-irn-bins.csv"), "w") as f:
        f.write("mode,bin,size,avg,p50,p95,p99\n")
        for m in modes:
            f.write("%s,0,1003,1.0000,1.0000,2.0000,8.0000\n" % m)
    out = os.path.join(d, "out")
    r = subprocess.run([sys.executable, os.path.join(HERE, "combine_seeds.py"),
                        os.path.join(d, "evaluation.md"), d, os.path.join(d, "s3.json"), "--out", out],
                       capture_output=True, text=True)
    check(r.returncode == 0, "combine_seeds.py: %s" % r.stderr)
    t = open(os.path.join(out, "fig12-s123.md")).read()
    # ECMP (2*2+2.3)/3 = 2.1, (2*10+11)/3 = 10.333; conweave 1.5 / 6.1;
    # rivals: ecmp 2.1, conga (3.6+1.5)/3 = 1.7, letflow 2.0, drill 1.4:
    # the smallest gain is vs DRILL, (1.4 - 1.5) / 1.4 = -7.1%; p99 vs
    # conga (18+9.3)/3 = 9.1: (9.1 - 6.1) / 9.1 = 33.0%.
    check("| AliStorage2019 50% irn | 2.100 / 10.333 | conweave | 1.500 / 6.100 | 28.6% | 41.0% | "
          "-7.1% / 33.0% (vs ecmp, conga, letflow, drill) |" in t, "combine_seeds' row:\n" + t)
    b = open(os.path.join(out, "AliStorage2019-load0.5-irn-bins.csv")).read()
    check("ecmp,0,1002,1.4333,1.0000,2.0000,9.0000" in b, "combined bins:\n" + b)
    rec = open(os.path.join(out, "fig12-s12-recomputed.md")).read()
    check("| AliStorage2019 50% irn | 2.000 / 10.000 | conweave | 1.600 / 6.000 | 20.0% | 40.0% | "
          "-6.7% / 33.3% (vs ecmp, conga, letflow, drill) |" in rec, "recomputed:\n" + rec)


def main():
    keep = os.environ.get("SIM_REPORT_KEEP")
    with tempfile.TemporaryDirectory(prefix="sim_report_") as tmp:
        tmp = keep or tmp
        write_run(os.path.join(tmp, "e1"), "ecmp", 1, lambda i: 5000 if i == 1 else 10000 * i)
        write_run(os.path.join(tmp, "e2"), "ecmp", 2, lambda i: 10000 * (i + 1))
        write_run(os.path.join(tmp, "c1"), "conweave", 1, lambda i: 5000 * i)
        # An asymmetric run is a setting of its own.
        write_run(os.path.join(tmp, "d1"), "ecmp", 1, lambda i: 30000 * i,
                  link_down="tor0:spine1")
        out = os.path.join(tmp, "out")
        # Each run alone first: seed 1 of ECMP.
        r = subprocess.run([sys.executable, os.path.join(HERE, "report.py"), "--no-plot",
                            "--out", out + "1", os.path.join(tmp, "e1")],
                           capture_output=True, text=True)
        check(r.returncode == 0, "report.py e1: %s" % r.stderr)
        j = json.load(open(os.path.join(out + "1", "report.json")))
        m = j["AliStorage2019-load0.5-lossless"]["ecmp"]
        check(m["flows"] == 20, "flows after the warm-up: %r" % m["flows"])
        near(m["bdp"], 104000, "BDP")
        near(m["all_avg"], 10.5, "avg")
        near(m["all_p50"], 10.5, "p50")
        near(m["all_p95"], 19.05, "p95")
        near(m["all_p99"], 19.81, "p99")
        near(m["small_avg"], 5.5, "small avg")
        near(m["small_p99"], 9.91, "small p99")
        near(m["large_avg"], 15.5, "large avg")
        near(m["large_p99"], 19.91, "large p99")
        near(m["bins"][0]["avg"], 1, "bin 0")
        near(m["bins"][0]["size"], 1000, "bin 0 size")
        near(m["bins"][19]["p99"], 20, "bin 19 p99")
        near(m["bins"][19]["size"], 2000000, "bin 19 size")
        near(m["all_avg_vs_ecmp"], 0, "ECMP vs itself")

        r = subprocess.run([sys.executable, os.path.join(HERE, "report.py"), "--out", out,
                            os.path.join(tmp, "e1"), os.path.join(tmp, "e2"),
                            os.path.join(tmp, "c1"), os.path.join(tmp, "d1")],
                           capture_output=True, text=True)
        check(r.returncode == 0, "report.py: %s" % r.stderr)
        j = json.load(open(os.path.join(out, "report.json")))
        s = j["AliStorage2019-load0.5-lossless"]
        e, c = s["ecmp"], s["conweave"]
        d = j.get("AliStorage2019-load0.5-lossless-down-tor0-spine1", {}).get("ecmp", {})
        near(d.get("all_avg"), 31.5, "the down-link setting: avg 3 x 10.5 (flow 1: 3)")
        check(sorted(j) == ["AliStorage2019-load0.5-lossless",
                            "AliStorage2019-load0.5-lossless-down-tor0-spine1"],
              "settings %r" % sorted(j))
        check(e["seeds"] == ["1", "2"], "seeds %r" % e["seeds"])
        check(e["flows"] == 40, "flows over two seeds %r" % e["flows"])
        near(e["all_avg"], 11.0, "ecmp mean avg")
        near(e["all_avg_spread"], 0.5, "ecmp avg spread")
        near(e["all_p99"], 20.31, "ecmp mean p99")
        near(c["all_avg"], 5.275, "conweave avg")
        near(c["all_p99"], 9.905, "conweave p99")
        near(c["all_avg_vs_ecmp"], 100 * (11 - 5.275) / 11, "avg vs ECMP")
        near(c["all_p99_vs_ecmp"], 100 * (20.31 - 9.905) / 20.31, "p99 vs ECMP")
        near(e["bins"][0]["avg"], 1.5, "ecmp bin 0 mean")
        near(e["bins"][19]["avg"], 20.5, "ecmp bin 19 mean")
        near(c["bins"][19]["avg"], 10, "conweave bin 19")
        md = open(os.path.join(out, "report.md")).read()
        check("| ecmp | 40 | 11.000 ±0.500 | 11.000 ±0.500 |" not in md, "spread on p50")
        check("| ecmp | 40 | 11.000 ±0.500 | 11.000 | 19.550 | 20.310 ±0.500 | 6.000 |" in md,
              "the ECMP row:\n" + md)
        check("| conweave | 20 | 5.275 | 5.250 | 9.525 | 9.905 | 2.800 |" in md,
              "the ConWeave row:\n" + md)
        check("| 52.0% lower | 51.2% lower |" in md, "the ratios:\n" + md)
        png = os.path.join(out, "AliStorage2019-load0.5-lossless.png")
        check(os.path.exists(png) and open(png, "rb").read(8) == b"\x89PNG\r\n\x1a\n",
              "the PNG")
        csv = open(os.path.join(out, "AliStorage2019-load0.5-lossless-bins.csv")).read()
        check("conweave,19,2000000,10.0000" in csv, "bins CSV:\n" + csv)
        # The load basis: a run of the wire basis (with its measured
        # utilisation) in a setting of payload runs is refused; alone, the
        # report names its basis and the utilisation.
        check("Load basis: payload." in md, "load basis line:\n" + md)
        write_run(os.path.join(tmp, "w1"), "ecmp", 3, lambda i: 10000 * i, load_basis="wire")
        with open(os.path.join(tmp, "w1", "summary.json")) as f:
            wj = json.load(f)
        wj["load"] = {"host_links_util": 0.401, "tor_fabric_util": 0.62}
        with open(os.path.join(tmp, "w1", "summary.json"), "w") as f:
            json.dump(wj, f)
        r = subprocess.run([sys.executable, os.path.join(HERE, "report.py"), "--no-plot",
                            "--out", out + "mix", os.path.join(tmp, "e1"),
                            os.path.join(tmp, "w1")], capture_output=True, text=True)
        check(r.returncode != 0 and "mixes load bases (payload, wire)" in r.stderr,
              "mixed load bases: rc %d %s" % (r.returncode, r.stderr))
        r = subprocess.run([sys.executable, os.path.join(HERE, "report.py"), "--no-plot",
                            "--out", out + "w", os.path.join(tmp, "w1")],
                           capture_output=True, text=True)
        check(r.returncode == 0 and "Load basis: wire; host links at 0.401 of their rate, "
              "ToR fabric links at 0.620" in r.stdout, "wire basis report: %s %s" %
              (r.stdout, r.stderr))
        # A run whose fct.txt was gzipped (evaluate.py's resume and
        # report.py read fct.txt.gz): the same report.
        import gzip  # noqa: E402
        e2 = os.path.join(tmp, "e2", "fct.txt")
        with open(e2, "rb") as fi, gzip.open(e2 + ".gz", "wb") as fo:
            fo.write(fi.read())
        os.unlink(e2)
        r = subprocess.run([sys.executable, os.path.join(HERE, "report.py"), "--no-plot",
                            "--out", out + "gz", os.path.join(tmp, "e1"),
                            os.path.join(tmp, "e2"), os.path.join(tmp, "c1")],
                           capture_output=True, text=True)
        check(r.returncode == 0, "report.py on fct.txt.gz: %s" % r.stderr)
        jg = json.load(open(os.path.join(out + "gz", "report.json")))
        eg = jg.get("AliStorage2019-load0.5-lossless", {}).get("ecmp", {})
        check(eg.get("flows") == 40 and abs(eg.get("all_avg", 0) - 11.0) < 1e-9,
              "the gzipped run read: %r" % {k: eg.get(k) for k in ("flows", "all_avg")})
        # compare.py: ConWeave's row beside its paper's 50% lossless
        # figures; the down-link setting (asymmetric) gets no paper figure.
        r = subprocess.run([sys.executable, os.path.join(HERE, "compare.py"),
                            os.path.join(out, "report.json")], capture_output=True, text=True)
        check(r.returncode == 0, "compare.py: %s" % r.stderr)
        check("| AliStorage2019 50% lossless | 11.000 / 20.310 | conweave | 5.275 / 9.905 | "
              "52.0% | 51.2% | 23.3% / 45.8% | at least, vs each of ECMP, CONGA, LetFlow, "
              "DRILL (ConWeave paper sec. 4.1.1) | 52.0% / 51.2% (vs ecmp) |" in r.stdout,
              "compare.py's ConWeave row:\n" + r.stdout)
        check("| AliStorage2019 50% lossless | conweave | rocetor-sim's defaults | (not "
              "recorded: a run older than params.lb_config) |" in r.stdout,
              "compare.py's configurations:\n" + r.stdout)
        # --versus: ECMP against ConWeave (ECMP is 108.5% / 105.0% higher).
        r = subprocess.run([sys.executable, os.path.join(HERE, "compare.py"),
                            os.path.join(out, "report.json"), "--modes", "ecmp",
                            "--versus", "conweave"], capture_output=True, text=True)
        check(r.returncode == 0, "compare.py --versus: %s" % r.stderr)
        check("| AliStorage2019 50% lossless | 11.000 / 20.310 | 5.275 / 9.905 | ecmp | "
              "11.000 / 20.310 | -108.5% | -105.0% |" in r.stdout,
              "compare.py --versus's row:\n" + r.stdout)
        check("down-tor0-spine1" not in r.stdout,
              "--versus: a setting without the base mode has no row:\n" + r.stdout)
        test_papers()
        test_compare_workloads(tmp)
        test_censored(tmp)
        test_windows(tmp)
        test_uplink(tmp)
        test_runinfo(tmp)
        test_evaluate(tmp)
        test_combine_seeds(tmp)
    return checks.summary("test_report")


if __name__ == "__main__":
    sys.exit(main())

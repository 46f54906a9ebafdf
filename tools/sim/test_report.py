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
with open(os.path.join(a["--out"], "fct.txt"), "w") as f:
    for i in range(1, 21):
        fct = 10000 * i if a["--lb"] == "ecmp" else 5000 * i
        f.write("10.1.0.1 10.2.0.1 %d 4791 %d 6000000 %d 10000\n" % (i, 1000 * i, fct))
with open(os.path.join(a["--out"], "summary.json"), "w") as f:
    json.dump({"params": {"lb": a["--lb"], "workload": a["--workload"], "load": a["--load"],
               "transport": a["--transport"], "seed": int(a["--seed"]), "extra": a.get("--tors"),
               "load_basis": a.get("--load-basis", "payload")}}, f)
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
    # Runs of another load basis are not reused: all four again.
    r = subprocess.run(base + ["--modes", "ecmp,caver", "--load-basis", "payload"],
                       capture_output=True, text=True)
    check(r.returncode == 0 and "4 runs, 4 to do" in r.stdout, "payload basis:\n" + r.stdout)
    j = json.load(open(os.path.join(out, "runs", runs[0], "summary.json")))
    check(j["params"]["load_basis"] == "payload", "--load-basis payload: %r" % j)


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
              "52.0% | 51.2% | 23.3% / 45.8% (at least) |" in r.stdout,
              "compare.py's ConWeave row:\n" + r.stdout)
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
        sys.path.insert(0, HERE)
        import compare  # noqa: E402
        check(compare.paper_for("caver", "FbHdp2015", 0.8, "irn", True) == (15.0, None,
              "k=4 fat-tree, up to") and
              compare.paper_for("caver", "FbHdp2015", 0.8, "irn", False) is None and
              compare.paper_for("seqbalance", "FbHdp2015", 0.5, "irn", False) is None and
              compare.paper_for("conweave", "FbHdp2015", 0.8, "irn", False)[:2] == (42.3, 66.8),
              "compare.paper_for")
        test_evaluate(tmp)
    return checks.summary("test_report")


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The rocetor authors
"""Run a matrix of rocetor-sim runs, then report.py (doc/simulator.md).

    tools/sim/evaluate.py --out DIR [--modes ecmp,conweave,seqbalance,caver]
        [--workloads FILE,...] [--loads 0.5,0.8] [--transports lossless,irn]
        [--seeds 1,2,3] [--jobs N] [--duration-ms 100] [--config FILE]
        [--config-lossless FILE] [--config-irn FILE] [--sim PATH]
        [--load-basis wire|payload] [--no-mode-configs] [--report-args=ARGS]
        [--dry-run] [-- EXTRA rocetor-sim ARGS (topology: --topo, --tors, ...)]

Every combination of mode x workload x load x transport x seed is one run
of `rocetor-sim ... --out DIR/runs/<workload>-load<load>-<transport>-<mode>-s<seed>`
(its output in run.log there), N at a time (--jobs, default 1: the
machine's cores are shared). Every run gets --load-basis (default wire:
the links carry the labelled load in wire bytes, headers and ACKs
included; payload is rocetor-sim's own default, the artifact generator's
definition, which loads the links 5-20% above the label: doc/simulator.md
"Load basis"). A run whose directory already holds a complete
summary.json (valid JSON) of the same load basis and fct.txt is skipped,
so a cut-off evaluation resumes where it stopped (a run of the other
basis is done again); --config gives every run a config, else
a lossless run gets --config-lossless (conf/sim/lossless.yaml) and an IRN
run --config-irn (conf/sim/irn.yaml); a run that fails keeps its log and
is left out of the report (listed at the end). Then report.py writes
DIR/report (report.md, report.json, PNGs) from every complete run.
--dry-run prints the commands.

--modes takes any mode rocetor-sim --lb accepts (the registry's: ecmp,
conweave, seqbalance, caver, spray, letflow, drill, conga); the default is the
list above.

Each mode's own configuration (issue 32, fair comparisons): where a mode
has a tuned configuration for a transport, it lies beside that
transport's config as <config>-<mode>.yaml (conf/sim/lossless.yaml ->
conf/sim/lossless-conweave.yaml: ConWeave's holds sized for lossless
queues), and that mode's runs of that transport get it instead; every
other mode and transport keeps the transport's config. The same holds
for --config and a --config-TRANSPORT given (a fat-tree's
conf/sim/fattree-lossless.yaml would take
conf/sim/fattree-lossless-conweave.yaml if there were one).
--no-mode-configs gives every mode the transport's config (the
evaluation before issue 32). A complete run whose summary.json records
another --config (params.config) than the one it would get now is run
again, as one of another load basis is.

A run failed when rocetor-sim exited non-zero (its status is kept in the
run's exit_status file) or its summary.json counts unfinished flows or a
drain limit hit (rocetor-sim exits 3 then, with fct.txt and summary.json
written): such a run is never given to report.py (issue 32: every flow
counted), is listed with why (the exit status, the unfinished flows, the
drain limit) and makes evaluate.py exit 1. A failed run that wrote its
files is not run again on a resume (it would fail the same way): remove
its directory to run it again.
"""

import argparse
import concurrent.futures
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def same_file(a, b):
    return os.path.realpath(a or "") == os.path.realpath(b or "") if (a or b) else True


def mode_config(cfg, mode):
    """The config a mode's runs get for a transport whose config is cfg:
    cfg's <name>-<mode>.yaml beside it if there is one, else cfg."""
    if not cfg:
        return cfg
    stem, ext = os.path.splitext(cfg)
    own = "%s-%s%s" % (stem, mode, ext or ".yaml")
    return own if os.path.isfile(own) else cfg


def complete(d, basis=None, config=None):
    try:
        with open(os.path.join(d, "summary.json")) as f:
            s = json.load(f)
    except (OSError, ValueError):
        return False
    # A run of another --config is not this one (summaries that record
    # none predate params.config and are taken as they are).
    if config is not None and isinstance(s, dict) and \
            "config" in s.get("params", {}) and \
            not same_file(s["params"]["config"], config):
        return False
    # Summaries from before --load-basis existed are of the payload basis.
    if basis is not None and isinstance(s, dict) and \
            s.get("params", {}).get("load_basis", "payload") != basis:
        return False
    return os.path.exists(os.path.join(d, "fct.txt")) or \
        os.path.exists(os.path.join(d, "fct.txt.gz"))


def failure(d):
    """Why a complete run may not be reported, or None: the exit status
    evaluate.py kept (exit_status), and the flows summary.json says were
    not counted."""
    why = []
    try:
        with open(os.path.join(d, "exit_status")) as f:
            rc = int(f.read().strip() or 0)
    except (OSError, ValueError):
        rc = 0
    if rc != 0:
        why.append("rocetor-sim exited %d" % rc)
    try:
        with open(os.path.join(d, "summary.json")) as f:
            fl = json.load(f).get("flows") or {}
    except (OSError, ValueError, AttributeError):
        fl = {}
    if isinstance(fl, dict):
        if (fl.get("unfinished") or 0) > 0:
            why.append("%d of %s flows unfinished" % (fl["unfinished"], fl.get("started", "?")))
        if fl.get("drain_limit_hit"):
            why.append("the drain limit stopped it")
    return ", ".join(why) or None


def split(s, conv=str):
    return [conv(x) for x in s.split(",") if x]


def run_one(cmd, d):
    os.makedirs(d, exist_ok=True)
    t0 = time.monotonic()
    with open(os.path.join(d, "run.log"), "w") as log:
        log.write(" ".join(cmd) + "\n")
        log.flush()
        rc = subprocess.run(cmd, stdout=log, stderr=subprocess.STDOUT).returncode
    with open(os.path.join(d, "exit_status"), "w") as f:
        f.write("%d\n" % rc)
    return rc, time.monotonic() - t0


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    extra = []
    if "--" in argv:
        i = argv.index("--")
        argv, extra = argv[:i], argv[i + 1:]
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--modes", default="ecmp,conweave,seqbalance,caver")
    wl_dir = os.path.join(os.path.dirname(ROOT), "shared", "data", "workloads")
    ap.add_argument("--workloads", default=",".join(
        os.path.join(wl_dir, w + ".txt") for w in ("AliStorage2019", "FbHdp2015")),
        help="CDF files (default: ../shared/data/workloads/ AliStorage2019 and FbHdp2015)")
    ap.add_argument("--loads", default="0.5,0.8")
    ap.add_argument("--transports", default="lossless,irn")
    ap.add_argument("--seeds", default="1,2,3")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--duration-ms", type=float, default=100)
    ap.add_argument("--config", help="--config for every run")
    ap.add_argument("--config-lossless", default=os.path.join(ROOT, "conf", "sim", "lossless.yaml"),
                    help="--config for the lossless runs (default conf/sim/lossless.yaml)")
    ap.add_argument("--config-irn", default=os.path.join(ROOT, "conf", "sim", "irn.yaml"),
                    help="--config for the IRN runs (default conf/sim/irn.yaml)")
    ap.add_argument("--sim", default=os.path.join(ROOT, "build", "tools", "sim", "rocetor-sim"))
    ap.add_argument("--load-basis", choices=("wire", "payload"), default="wire",
                    help="rocetor-sim --load-basis for every run (default wire: the links "
                    "carry the labelled load, doc/simulator.md \"Load basis\")")
    ap.add_argument("--no-mode-configs", action="store_true",
                    help="give every mode the transport's config, not its own "
                    "<config>-<mode>.yaml where one exists")
    ap.add_argument("--dry-run", action="store_true")
    ap.add_argument("--report-args", default="", help="extra report.py arguments, one string (--report-args=--no-plot)")
    args = ap.parse_args(argv)

    runs = []
    for wl in split(args.workloads):
        wname = os.path.splitext(os.path.basename(wl))[0]
        for load in split(args.loads, float):
            for tr in split(args.transports):
                cfg = args.config or getattr(args, "config_" + tr, None)
                for mode in split(args.modes):
                    mcfg = cfg if args.no_mode_configs else mode_config(cfg, mode)
                    for seed in split(args.seeds, int):
                        d = os.path.join(args.out, "runs", "%s-load%g-%s-%s-s%d" % (
                            wname, load, tr, mode, seed))
                        cmd = [args.sim, "--workload", wl, "--load", "%g" % load,
                               "--transport", tr, "--lb", mode, "--seed", str(seed),
                               "--duration-ms", "%g" % args.duration_ms,
                               "--load-basis", args.load_basis, "--out", d]
                        if mcfg:
                            cmd += ["--config", mcfg]
                        runs.append((cmd + extra, d, mcfg or ""))
    todo = [(c, d) for c, d, k in runs if not complete(d, args.load_basis, k)]
    print("evaluate: %d runs, %d to do, %d done already, %d at a time" % (
        len(runs), len(todo), len(runs) - len(todo), args.jobs), flush=True)
    if args.dry_run:
        for c, _ in todo:
            print(" ".join(c))
        return 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as ex:
        cfg_of = {d: k for _, d, k in runs}
        futs = {ex.submit(run_one, c, d): d for c, d in todo}
        for n, fut in enumerate(concurrent.futures.as_completed(futs), 1):
            d = futs[fut]
            rc, secs = fut.result()
            why = failure(d) if complete(d, args.load_basis, cfg_of[d]) else "rocetor-sim exited %d, no complete output" % rc
            if why is None and rc != 0:
                why = "rocetor-sim exited %d" % rc
            print("evaluate: [%d/%d] %s: %s in %.1f s" % (
                n, len(todo), os.path.basename(d),
                "done" if why is None else "FAILED (%s)" % why, secs), flush=True)
    # Only runs that completed and counted every flow go to the report.
    done, failed = [], []
    for _, d, k in runs:
        why = failure(d) if complete(d, args.load_basis, k) else "no complete output (see run.log)"
        if why is None:
            done.append(d)
        else:
            failed.append((d, why))
    if done:
        cmd = [sys.executable, os.path.join(HERE, "report.py"), "--out",
               os.path.join(args.out, "report")] + args.report_args.split() + done
        rc = subprocess.run(cmd).returncode
        if rc != 0:
            print("evaluate: report.py failed (rc %d)" % rc, file=sys.stderr)
            return rc
    if failed:
        print("evaluate: %d runs failed, left out of the report (see run.log in each):"
              % len(failed), file=sys.stderr)
        for d, why in failed:
            print("  %s: %s" % (d, why), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

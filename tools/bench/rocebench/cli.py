# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The rocetor authors
"""The command line: options, the plan's memory, --rerender and main()."""

import argparse
import json
import os
import platform
import re
import shutil
import signal
import subprocess
import sys
import time

from . import config
from .common import HERE, LOCK, SRC, fmt_count, fnum, log, parse_count, sha256, warn
from . import switch
from .config import (DEFAULT_MODES, MODE_INFO, MODES, TESTPMD_MODES, implemented, load_modes,
                     mem_mb, pool, tool)
from .datapath import check_datapath
from . import l3fwd
from . import ovs
from . import pktgen as pktgen_src
from .machine import Hugepages, tsc_hz
from .report import write_outputs
from .runner import Ctx, run_matrix, scaling, summarise, testpmd_available


def default_rocetor():
    return os.environ.get("ROCETOR") or os.path.join(
        os.environ.get("ROCETOR_BUILD") or os.path.join(SRC, "build"), "app", "rocetor")


def parse_args(argv):
    # The scenarios (--modes) are the switch's modes: ask the rocetor-info
    # of --rocetor's build before the options are defined (their help
    # names them). --rerender needs none.
    pre = argparse.ArgumentParser(add_help=False)
    pre.add_argument("--rocetor", default=default_rocetor())
    known, _ = pre.parse_known_args(argv)
    try:
        load_modes(known.rocetor)
        modes_error = None
        modes_help = "comma list of %s, or all (default: %s)" % (
            ", ".join(MODES), ",".join(DEFAULT_MODES))
    except switch.SwitchInfoError as e:
        modes_error = str(e)
        modes_help = "comma list of the switch's scenarios, or all (%s)" % modes_error
    p = argparse.ArgumentParser(
        prog="run.py", description="rocetor benchmark suite (doc/benchmarks.md)",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--modes", default=",".join(DEFAULT_MODES), help=modes_help)
    p.add_argument("--sizes", default="64,1024,4096", help="comma list of 64, 1024, 4096")
    p.add_argument("--flows", default="1K,100K,1M", help="comma list (1K, 100K, 1M, 5000..)")
    p.add_argument("--runs", type=int, default=5, help="rounds (runs of each mode), default 5")
    p.add_argument("--duration", type=float, default=2.0,
                   help="measured seconds per run (after --warmup), default 2")
    p.add_argument("--warmup", type=float, default=0.5,
                   help="seconds of each run before the measurement window, default 0.5 "
                   "(rocetor: the window starts at the first stats document at uptime >= "
                   "this)")
    p.add_argument("--smoke", action="store_true",
                   help="tiny: ecmp and conweave-src, 1024 B, 1K flows, 1 round of 1 s, "
                   "testpmd 5tswap only, l3fwd only if already built, -m <= 512 per "
                   "process")
    p.add_argument("--scaling", action="store_true",
                   help="also: 1 vs 2 workers (--scaling-modes, --scaling-size, "
                   "--scaling-flows)")
    p.add_argument("--scaling-modes", default="ecmp,conweave-src",
                   help="scenarios of --scaling (comma list, or all: every scenario of "
                   "--modes); default ecmp,conweave-src")
    p.add_argument("--scaling-size", type=int, default=1024,
                   help="frame size of --scaling: 64, 1024 or 4096 (default 1024)")
    p.add_argument("--scaling-flows", default="1K",
                   help="flows of --scaling (default 1K)")
    p.add_argument("--check-datapath", action="store_true",
                   help="also: count syscalls, malloc/free, rte_malloc/rte_free and mutex "
                   "locks per thread with perf while ecmp and conweave-src forward")
    p.add_argument("--no-matrix", action="store_true",
                   help="skip the matrix (with --scaling / --check-datapath)")
    p.add_argument("--out", default=os.path.join(SRC, "out", "bench"),
                   help="results directory (default out/bench/)")
    p.add_argument("--traffic-dir", default=None,
                   help="benchgen cache (default out/bench/gen/ of the checkout)")
    p.add_argument("--packets", type=int, default=None,
                   help="frames per pcap (benchgen --packets; default benchgen's)")
    p.add_argument("--src-packets", type=int, default=None,
                   help="frames of the role-src pcaps only (e.g. 1: one frame per flow, "
                   "so that at 1K flows the replayed frames stay in cache)")
    p.add_argument("--dst-baseline", choices=("own", "src"), default="own",
                   help="testpmd for conweave-dst: own = its own pair on the DstToR port "
                   "setup and pcap every round (default); src = reuse the role-src pair "
                   "(saves about a third of the matrix time)")
    p.add_argument("--testpmd-modes", default=",".join(TESTPMD_MODES),
                   help="testpmd forward modes to compare with (default 5tswap,macswap; "
                   "'none' to skip)")
    p.add_argument("--no-testpmd", action="store_true", help="no testpmd runs")
    p.add_argument("--no-l3fwd", action="store_true",
                   help="no l3fwd runs (DPDK's l3fwd LPM as the peer router)")
    p.add_argument("--l3fwd-build", default=l3fwd.DEFAULT_BUILD, metavar="DIR",
                   help="where l3fwd is built from Debian's dpdk source package and cached "
                   "(default %s)" % l3fwd.DEFAULT_BUILD)
    p.add_argument("--no-ovs", action="store_true",
                   help="no Open vSwitch runs (OVS-DPDK doing ECMP's job as the peer a user "
                   "would run instead; Debian's openvswitch-switch-dpdk, installed when "
                   "missing unless --no-install)")
    p.add_argument("--rocetor", default=default_rocetor())
    p.add_argument("--testpmd", default=shutil.which("dpdk-testpmd") or "/usr/bin/dpdk-testpmd")
    p.add_argument("--benchgen", default=os.environ.get("BENCHGEN",
                                                        os.path.join(HERE, "benchgen.py")))
    p.add_argument("--mbuf-headroom", type=int, default=None,
                   help="mbufs beyond the pcap's frames (default: what the switch needs "
                   "for the run's config, from rocetor-info budget)")
    p.add_argument("--mbuf-rounding", choices=("pow2", "4k"), default="4k",
                   help="pool size: 4k = frames + headroom rounded up to a multiple of "
                   "4096, minus 1 (default); pow2 = 2^k - 1 >= frames + headroom (up to "
                   "twice the memory and about 1 s more start-up per run of a big pcap)")
    p.add_argument("--max-mem", type=int, default=0,
                   help="refuse runs needing more than -m MB (smoke: 512)")
    p.add_argument("--probe-seconds", type=float, default=3.0,
                   help="--check-datapath: seconds counted per mode")
    p.add_argument("--datapath-tool", choices=("perf", "strace"), default="perf",
                   help="--check-datapath: perf (syscalls + uprobes), or strace -ff "
                   "(syscalls only; the fallback when perf fails)")
    p.add_argument("--keep-hugepages", action="store_true",
                   help="do not put vm.nr_hugepages back at the end")
    p.add_argument("--no-snapshot", action="store_true",
                   help="run --rocetor in place instead of a copy in --out")
    p.add_argument("--no-plot", action="store_true")
    p.add_argument("--rerender", metavar="RESULTS_JSON",
                   help="run nothing: write the report, CSV and plot into --out again from "
                   "a results.json")
    p.add_argument("--no-install", action="store_true", help="never apt-get install")
    p.add_argument("--port-keys", default="",
                   help="extra keys for every port of rocetor's config, e.g. "
                   "'speed_gbps: 400, nic_ring_kb: 32' (the bounded NIC ring's cost; "
                   "doc/performance.md)")
    p.add_argument("--qos", default="",
                   help="rocetor's qos map, e.g. '{hw_queues: 3}': the pcap port then gets "
                   "workers x hw_queues TX queues (tx_pcap=/dev/null)")
    g = p.add_argument_group(
        "pktgen source (optional; tools/pktgen/README.md)",
        "pktgen-DPDK replays a benchgen pcap into the DUT over two memif links: "
        "dpdk-testpmd io (the reference), rocetor ECMP and ConWeave SrcToR. Runs "
        "before the whole matrix when pktgen is found (--pktgen, $ROCETOR_PKTGEN, "
        "`pktgen` on the PATH; with --smoke only if --pktgen is given); "
        "--pktgen-only runs it alone.")
    g.add_argument("--pktgen", metavar="PATH", default=None,
                   help="the pktgen binary (tools/pktgen/build.sh prints where); the "
                   "pktgen section runs, then the matrix (the section alone: --pktgen-only)")
    g.add_argument("--pktgen-only", action="store_true",
                   help="run only the pktgen section (exit 77 when there is no pktgen)")
    g.add_argument("--pktgen-duts", default="testpmd-io,rocetor-ecmp,rocetor-conweave",
                   help="comma list of testpmd-io, rocetor-ecmp, rocetor-conweave")
    g.add_argument("--pktgen-sizes", default="64,1024", help="comma list of 64, 1024")
    g.add_argument("--pktgen-runs", type=int, default=3, help="rounds (default 3)")
    g.add_argument("--pktgen-seconds", type=int, default=10,
                   help="pktgen stats periods measured per run (default 10)")
    g.add_argument("--pktgen-warmup", type=int, default=3,
                   help="seconds of sending before measuring (default 3)")
    g.add_argument("--pktgen-flows", type=int, default=1024, help="flows in the pcap (1024)")
    g.add_argument("--pktgen-packets", type=int, default=16384,
                   help="frames in the pcap (16384; pktgen holds them all in mbufs)")
    a = p.parse_args(argv)
    try:
        a.pktgen_duts = [d.strip() for d in a.pktgen_duts.split(",") if d.strip()]
        bad = [d for d in a.pktgen_duts if d not in pktgen_src.DUTS]
        if bad or not a.pktgen_duts:
            raise ValueError("--pktgen-duts: %s: not one of %s" % (
                ",".join(bad) or "(empty)", ",".join(pktgen_src.DUTS)))
        a.pktgen_sizes = [int(x) for x in a.pktgen_sizes.split(",")]
        if any(x not in (64, 1024) for x in a.pktgen_sizes):
            raise ValueError("--pktgen-sizes: %s: only 64 and 1024" % a.pktgen_sizes)
        if a.pktgen_runs < 1 or a.pktgen_seconds < 1 or a.pktgen_warmup < 0 \
                or a.pktgen_flows < 1 or a.pktgen_packets < a.pktgen_flows:
            raise ValueError("--pktgen-runs/--pktgen-seconds >= 1, --pktgen-warmup >= 0, "
                             "--pktgen-packets >= --pktgen-flows >= 1")
    except ValueError as e:
        p.error(str(e))
    if a.smoke:
        a.modes = "ecmp,conweave-src"
        a.sizes = "1024"
        a.flows = "1K"
        a.runs = 1
        a.duration = 1.0
        a.warmup = 0.5
        a.testpmd_modes = "5tswap"
        # below the switch's own need: every process fits in -m 512
        a.mbuf_headroom = 49152 if a.mbuf_headroom is None else min(a.mbuf_headroom, 49152)
        a.packets = a.packets or 16000  # 16 per flow: the pool stays at 2^16 - 1 mbufs
        a.max_mem = a.max_mem or 512
        # OVS's fixed pool (262,144 mbufs, about 750 MB) does not fit -m 512
        a.no_ovs = True
        a.no_install = True
    if modes_error and not a.rerender:
        p.error(modes_error)
    a.modes = list(MODES) if a.modes == "all" else [m.strip() for m in a.modes.split(",")
                                                     if m.strip()]
    for m in a.modes:
        if m not in MODES and not a.rerender:
            p.error("unknown mode %r (modes: %s)" % (m, ", ".join(MODES)))
    try:
        a.sizes = [int(s) for s in a.sizes.split(",")]
        a.flows = [parse_count(f) for f in a.flows.split(",")]
    except ValueError as e:
        p.error(str(e))
    for s in a.sizes:
        if s not in (64, 1024, 4096):
            p.error("--sizes: 64, 1024 or 4096, got %d" % s)
    if a.runs < 1 or a.duration <= 0 or a.warmup < 0.5:
        p.error("--runs >= 1, --duration > 0, --warmup >= 0.5 (the first stats document "
                "comes at 0.5 s)")
    a.testpmd_modes = [] if a.no_testpmd or a.testpmd_modes == "none" else \
        [m.strip() for m in a.testpmd_modes.split(",") if m.strip()]
    for m in a.testpmd_modes:
        if m not in TESTPMD_MODES:
            p.error("--testpmd-modes: 5tswap, macswap")
    a.scaling_modes = list(a.modes) if a.scaling_modes == "all" else \
        [m.strip() for m in a.scaling_modes.split(",") if m.strip()]
    for m in a.scaling_modes:
        if m not in MODES and not a.rerender:
            p.error("--scaling-modes: unknown mode %r (modes: %s)" % (m, ", ".join(MODES)))
    if a.scaling_size not in (64, 1024, 4096):
        p.error("--scaling-size: 64, 1024 or 4096, got %d" % a.scaling_size)
    try:
        a.scaling_flows = parse_count(a.scaling_flows)
    except ValueError as e:
        p.error("--scaling-flows: %s" % e)
    a.out = os.path.abspath(a.out)
    a.traffic_dir = os.path.abspath(a.traffic_dir or os.path.join(SRC, "out", "bench", "gen"))
    a.rocetor = os.path.abspath(a.rocetor)
    return a


def planned_mem(ctx):
    """-m of the biggest process the plan will start (estimated from the
    frame counts benchgen reports)."""
    a = ctx.args
    big = 0
    plan = []
    if not a.no_matrix:
        for s in a.sizes:
            for f in a.flows:
                for m in a.modes:
                    plan.append((m, s, f, 1, 1))
    if a.scaling:
        for m in a.scaling_modes:
            plan += [(m, a.scaling_size, a.scaling_flows, 1, 1),
                     (m, a.scaling_size, a.scaling_flows, 2, 2)]
    if a.check_datapath:
        plan += [("ecmp", 1024, 1000, 1, 1), ("conweave-src", 1024, 1000, 1, 1)]
    for m, s, f, q, w in plan:
        lb, role = MODES[m]
        if not implemented(lb):
            continue  # not run (rocetor-info modes: not in this build)
        meta = ctx.traffic.get(role, s, f, q)
        mb, b = pool(m, s, f, meta["frames"], w, a.mbuf_headroom, a.mbuf_rounding)
        big = max(big, mem_mb(mb, b["data_room"], lb, f, w))
    if getattr(a, "ovs", None) and not a.no_matrix:
        big = max([big] + [ovs.mem_need(s) for s in a.sizes])
    return big


def rerender(a):
    """--rerender FILE: the report, CSV and plot again from a results.json."""
    with open(a.rerender) as f:
        doc = json.load(f)
    m = doc["meta"]
    a.modes = m["modes"]
    a.runs, a.duration, a.warmup = m["runs"], m["duration_s"], m["warmup_s"]
    a.testpmd_modes = m["testpmd_modes"]
    a.l3fwd = m.get("l3fwd")
    a.ovs = m.get("ovs")
    a.dst_baseline = m.get("dst_baseline", "own")
    ctx = Ctx(a)
    ctx.meta = m
    ctx.tsc = m.get("tsc_hz")
    ctx.records = doc["runs"]
    ctx.unavailable = m.get("unavailable_modes", {})
    rows = summarise(ctx)
    jpath, mpath, cpath, ppath, text = write_outputs(ctx, rows, doc.get("sources", {}),
                                                     doc.get("scaling"), doc.get("datapath"),
                                                     m.get("elapsed_s", 0))
    log(text)
    log("results: %s, %s, %s; plot: %s" % (jpath, mpath, cpath, ppath or "(none)"))
    return 0


def run_pktgen(a, pg):
    """The pktgen section alone (rocebench/pktgen.py): 0, or 1 when a run
    failed."""
    hp = Hugepages(keep=a.keep_hugepages)
    try:
        hp.ensure(pktgen_src.PKTGEN_MEM_MB + pktgen_src.DUT_MEM_MB)
        os.makedirs(a.out, exist_ok=True)
        try:
            _, records = pktgen_src.run(a, pg)
        except RuntimeError as e:
            warn("pktgen: %s" % e)
            return 1
    finally:
        hp.restore()
    bad = [r for r in records if not r["ok"]]
    for r in bad:
        warn("pktgen: %s %d B round %d: %s" % (r["dut"], r["size"], r["round"],
                                               "; ".join(r["problems"])))
    return 1 if bad else 0


def main(argv=None):
    # Debian's python3 (python3-matplotlib for the plot), whatever python3
    # the caller's PATH had
    deb = "/usr/bin/python3"
    if os.path.exists(deb) and os.path.realpath(sys.executable) != os.path.realpath(deb) \
            and not os.environ.get("RTRBENCH_NO_REEXEC"):
        os.environ["RTRBENCH_NO_REEXEC"] = "1"
        os.execv(deb, [deb, os.path.join(HERE, "run.py")] +
                 (sys.argv[1:] if argv is None else list(argv)))
    a = parse_args(argv)
    config.EXTRA_PORT_KEYS = a.port_keys
    config.EXTRA_QOS = a.qos
    t0 = time.time()
    if a.rerender:
        return rerender(a)
    if not os.path.isfile(a.benchgen):
        warn("%s not found: the traffic generator is needed (tools/bench/benchgen.py)" %
             a.benchgen)
        return 77 if a.smoke else 2
    if not os.access(a.rocetor, os.X_OK):
        warn("%s is not an executable (build it: ninja -C build)" % a.rocetor)
        return 2
    try:
        pg = pktgen_src.find_pktgen(a.pktgen)
    except ValueError as e:
        warn(str(e))
        return 2
    if a.pktgen_only:
        if pg is None:
            log("skipped: no pktgen (--pktgen PATH, $ROCETOR_PKTGEN or pktgen on the PATH; "
                "tools/pktgen/build.sh builds it)")
            return 77
        return run_pktgen(a, pg)
    if pg is not None and (a.pktgen or not a.smoke):
        rc = run_pktgen(a, pg)
        if rc != 0:
            return rc
    if a.testpmd_modes and not testpmd_available(a):
        log("dpdk-testpmd not found (%s): no testpmd comparison" % a.testpmd)
        a.testpmd_modes = []
    a.l3fwd, l3v, l3why = None, None, "--no-l3fwd"
    if not a.no_l3fwd and not a.no_matrix:
        # the smoke stays fast: it uses an l3fwd built before, never builds
        a.l3fwd, l3v, l3why = l3fwd.ensure(a.l3fwd_build, may_build=not a.smoke,
                                           install=not a.no_install)
        if a.l3fwd:
            log("l3fwd: %s (Debian dpdk %s source, patched: %s)" % (
                a.l3fwd, l3v, "; ".join(x[0] for x in l3fwd.PATCHES)))
        else:
            log("l3fwd: not available (%s): no l3fwd comparison" % l3why)
    a.ovs, ovsv, ovswhy = None, None, "--no-ovs"
    if not a.no_ovs and not a.no_matrix:
        # the smoke never installs; OVS runs there only if it is installed
        a.ovs, ovsv, ovswhy = ovs.ensure(install=not a.no_install and not a.smoke)
        if a.ovs:
            log("ovs: %s (Open vSwitch %s)" % (a.ovs, ovsv))
        else:
            log("ovs: not available (%s): no OVS comparison" % ovswhy)
    os.makedirs(a.out, exist_ok=True)
    built = a.rocetor
    if not a.no_snapshot:
        # the binary every run uses, copied so that a rebuild during the
        # matrix cannot change it halfway
        snap = os.path.join(a.out, "rocetor.bin")
        shutil.copy2(a.rocetor, snap + ".tmp")
        os.replace(snap + ".tmp", snap)
        a.rocetor = snap
    ctx = Ctx(a)
    ctx.probes = None
    tsc, tsc_src = tsc_hz()
    ctx.tsc = tsc
    git = subprocess.run(["git", "-C", SRC, "describe", "--always", "--dirty"],
                         capture_output=True, text=True).stdout.strip()
    cpu = "?"
    try:
        cpu = re.search(r"model name\s*:\s*(.*)", open("/proc/cpuinfo").read()).group(1)
    except (OSError, AttributeError):
        pass
    tpv = "-"
    if a.testpmd_modes:
        tpv = a.testpmd
        r = subprocess.run(["dpkg-query", "-W", "-f", "${Version}", "dpdk"],
                           capture_output=True, text=True)
        if r.returncode == 0 and r.stdout:
            tpv += " (dpdk %s)" % r.stdout.strip()
    ctx.meta = {"date": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()),
                "host": platform.node(), "cpu": cpu, "cpus": os.cpu_count(),
                "kernel": platform.release(), "rocetor": built, "rocetor_run": a.rocetor,
                "rocetor_sha256": sha256(a.rocetor), "git": git or "?",
                "testpmd": tpv, "testpmd_modes": a.testpmd_modes, "tsc_hz": tsc,
                "l3fwd": ("%s (Debian dpdk %s source, patch level %d)" % (
                    a.l3fwd, l3v, l3fwd.PATCH_LEVEL) if a.l3fwd else None),
                "l3fwd_why_not": None if a.l3fwd else l3why,
                "ovs": ("%s (Open vSwitch %s, Debian %s)" % (a.ovs, ovsv, ovs.PACKAGE)
                        if a.ovs else None),
                "ovs_why_not": None if a.ovs else ovswhy,
                "tsc_source": tsc_src, "modes": a.modes, "sizes": a.sizes, "flows": a.flows,
                "runs": a.runs, "duration_s": a.duration, "warmup_s": a.warmup,
                "dst_baseline": a.dst_baseline,
                "argv": sys.argv[1:], "lock": LOCK,
                "rocetor_info": tool(), "switch_modes": list(MODE_INFO.values())}
    log("rocetor benchmark: modes %s; sizes %s; flows %s; %d round(s) x %g s (+%g s warm-up); "
        "testpmd %s; l3fwd %s; ovs %s; out %s" % (
            ",".join(a.modes), ",".join(map(str, a.sizes)),
            ",".join(fmt_count(f) for f in a.flows), a.runs, a.duration, a.warmup,
            "/".join(a.testpmd_modes) or "none", "yes" if a.l3fwd else "no",
            "yes" if a.ovs else "no", a.out))
    log("TSC %s Hz (%s)" % (fnum(tsc, "%.0f"), tsc_src))
    hp = Hugepages(keep=a.keep_hugepages)
    rows, sources, scale, dp = [], {}, None, None
    interrupted = False

    def on_term(signum, frame):
        raise KeyboardInterrupt()
    signal.signal(signal.SIGTERM, on_term)
    rc = 0
    try:
        try:
            need = planned_mem(ctx)
        except RuntimeError as e:
            warn(str(e))
            return 1
        log("traffic ready after %.0f s" % (time.time() - t0))
        hp.ensure(need)
        n_roles = len({MODES[m][1] for m in a.modes})
        if not a.no_matrix:
            ctx.planned_runs += len(a.sizes) * len(a.flows) * a.runs * (
                len(a.modes) + (n_roles if a.dst_baseline == "own" else 1) *
                (len(a.testpmd_modes) + (1 if a.l3fwd else 0) + (1 if a.ovs else 0)))
        if a.scaling:
            ctx.planned_runs += 2 * len(a.scaling_modes) * a.runs
        if a.check_datapath:
            ctx.planned_runs += 2
        if not a.no_matrix:
            sources = run_matrix(ctx)
            rows = summarise(ctx)
        if a.scaling:
            scale = scaling(ctx)
        if a.check_datapath:
            dp = check_datapath(ctx)
    except KeyboardInterrupt:
        interrupted = True
        warn("interrupted: stopping the current run, writing what was measured")
        if ctx.current is not None:
            ctx.current.stop()
        rows = summarise(ctx)
        rc = 130
    finally:
        if ctx.probes:
            ctx.probes.cleanup()
        hp.restore()
    elapsed = time.time() - t0
    jpath, mpath, cpath, ppath, text = write_outputs(ctx, rows, sources, scale, dp, elapsed)
    log("")
    log(text)
    log("results: %s" % jpath)
    log("         %s" % mpath)
    log("         %s" % cpath)
    log("plot:    %s" % (ppath or "(none)"))
    log("elapsed: %.0f s (%.1f min)%s" % (elapsed, elapsed / 60, " (interrupted)"
                                           if interrupted else ""))
    if rc == 0:
        bad = [r for r in ctx.records if r["kind"] == "rocetor" and not r["ok"] and
               not r.get("unsupported")]
        if bad:
            warn("%d rocetor run(s) failed or were not sane: %s" % (
                len(bad), "; ".join("%s: %s" % (r["label"], ", ".join(r["problems"]))
                                    for r in bad[:5])))
            rc = 1
    return rc

# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The rocetor authors
"""The pktgen source (optional): pktgen-DPDK replays a benchgen pcap into a
device under test over two memif links and counts what comes back.

    pktgen port 0 ==memif== DUT port 0 (rocetor: host port)
    pktgen port 1 ==memif== DUT port 1 (rocetor: fabric port)

The devices under test, one after the other, round by round: dpdk-testpmd
--forward-mode=io (the reference: it only moves frames from port 0 to port
1), rocetor ECMP and rocetor ConWeave (a SrcToR). The DUT is the memif
server and starts first; pktgen (tools/pktgen/rocetor-replay.lua) sends on
port 0, receives on port 1 and prints its RESULT line; then the DUT is
stopped first (SIGINT: rocetor stops its memif ports itself) and pktgen is
let go through the script's quit file: DPDK 22.11's memif driver can crash
in the process whose peer disconnects while it polls
(tools/pktgen/README.md).

CPUs: pktgen's lcores on CPU 0 (--lcores 0@0,1@0), the DUT's on CPU 1.
pktgen is the 23.03.0 built by tools/pktgen/build.sh (never installed on
the PATH by us): --pktgen PATH, else $ROCETOR_PKTGEN, else `pktgen` on the
PATH. Over memif nothing is lost (a full ring makes the sender wait), so
rx/tx is always ~100% and the rates say who was slower: the DUT, or
pktgen itself (compare with testpmd io as the DUT).
"""

import json
import os
import re
import shutil
import statistics
import subprocess
import tempfile
import time

from rtrpy import dpdk
from rtrpy.stats import accounted

from .common import SRC, log, warn
from .machine import bench_lock, tsc_hz

LUA = os.path.join(SRC, "tools", "pktgen", "rocetor-replay.lua")
LAB_CONFIG = os.path.join(SRC, "tools", "pktgen", "rocetor-lab.yaml")
DUTS = ("testpmd-io", "rocetor-ecmp", "rocetor-conweave")
# pktgen 23.03.0 makes six mbuf pools per port, five of them 24,576 x 10 KB
# (1.2 GB a port), plus the pcap's: 3072 MB holds two ports.
PKTGEN_MEM_MB = 3072
DUT_MEM_MB = 2048
RESULT_RE = re.compile(r"rocetor-replay: RESULT periods=(\d+) tx_mpps=([0-9.]+) "
                       r"rx_mpps=([0-9.]+) ratio=([0-9.]+)")
LINE_RE = re.compile(r"t=\s*(\d+)\s+port \d+ tx\s+([0-9.]+) Mpps\s+port \d+ rx\s+([0-9.]+) Mpps")


def find_pktgen(explicit=None):
    """The pktgen binary: explicit, $ROCETOR_PKTGEN, `pktgen` on the PATH;
    None when there is none. An explicit path that is not an executable is
    an error (ValueError), not a skip."""
    for where, path in (("--pktgen", explicit), ("$ROCETOR_PKTGEN", os.environ.get("ROCETOR_PKTGEN"))):
        if path:
            if not (os.path.isfile(path) and os.access(path, os.X_OK)):
                raise ValueError("%s %s: not an executable (build it with tools/pktgen/build.sh)"
                                 % (where, path))
            return path
    return shutil.which("pktgen")


def thread_cpu(pid):
    """{tid: (comm, utime + stime in clock ticks)} of a live process."""
    out = {}
    try:
        tids = os.listdir("/proc/%d/task" % pid)
    except OSError:
        return out
    for tid in tids:
        try:
            with open("/proc/%d/task/%s/stat" % (pid, tid)) as f:
                s = f.read()
        except OSError:
            continue
        comm = s[s.index("(") + 1:s.rindex(")")]
        fields = s[s.rindex(")") + 2:].split()
        out[tid] = (comm, int(fields[11]) + int(fields[12]))
    return out


def busiest_share(c0, c1, seconds):
    """The busiest thread's CPU share between two thread_cpu() snapshots."""
    hz = os.sysconf("SC_CLK_TCK")
    best = (None, 0.0)
    for tid, (comm, t1) in c1.items():
        if tid in c0:
            share = (t1 - c0[tid][1]) / hz / seconds if seconds > 0 else 0.0
            if share > best[1]:
                best = (comm, share)
    return best


def memif_vdevs(role, socks):
    return sum((["--vdev", "net_memif%d,role=%s,socket=%s,id=0" % (i, role, s)]
                for i, s in enumerate(socks)), [])


def dut_cmd(a, dut, fp, socks, stats_json):
    if dut == "testpmd-io":
        return ["stdbuf", "-oL", a.testpmd, "--lcores", "0@1,1@1", "--file-prefix", fp,
                "-m", "1024", "--huge-unlink", "--no-pci", "--log-level", "lib.eal:error"] + \
            memif_vdevs("server", socks) + \
            ["--", "--auto-start", "--forward-mode=io", "--port-topology=paired",
             "--nb-cores=1", "--stats-period", "1"]
    mode = dut.split("-", 1)[1]
    return [a.rocetor, "--lcores", "0@1", "--file-prefix", fp, "-m", str(DUT_MEM_MB),
            "--huge-unlink", "--no-pci", "--log-level", "lib.eal:error"] + \
        memif_vdevs("server", socks) + \
        ["--", "--config", LAB_CONFIG, "--lb", mode, "--stats-interval", "1",
         "--stats-json", stats_json]


def dut_ready(dut, text):
    if dut == "testpmd-io":
        return "Press enter to exit" in text or "Start automatic packet forwarding" in text \
            or "io packet forwarding" in text
    return "rocetor: port 1 fabric" in text


def run_once(a, pktgen, dut, size, pcap, tsc):
    """One run: DUT up, pktgen's script measured, DUT stopped, pktgen let
    go. Returns a record (mpps = pktgen's transmit rate; ok False with
    problems when something failed)."""
    rec = {"kind": "pktgen", "dut": dut, "size": size, "pcap": pcap, "ok": False,
           "problems": [], "notes": [], "tx_mpps": None, "rx_mpps": None}
    work = tempfile.mkdtemp(prefix="rocetor-pktgen-")
    tag = "%d_%d" % (os.getpid(), int(time.time() * 1000) % 1000000)
    socks = ["/tmp/rtr-pg-%s-%d.sock" % (tag, i) for i in (0, 1)]
    fp_dut = dpdk.file_prefix("pgd")
    fp_pg = dpdk.file_prefix("pg")
    stats_json = os.path.join(work, "stats.json")
    quit_file = os.path.join(work, "quit")
    cmd = dut_cmd(a, dut, fp_dut, socks, stats_json)
    rec["dut_cmd"] = " ".join(cmd)
    env = dict(os.environ, ROCETOR_PG_TX="0", ROCETOR_PG_RX="1",
               ROCETOR_PG_WARMUP=str(a.pktgen_warmup), ROCETOR_PG_SECONDS=str(a.pktgen_seconds),
               ROCETOR_PG_RATE="100", ROCETOR_PG_QUIT_FILE=quit_file)
    # --huge-unlink (both processes): the hugepage files are unlinked once
    # mapped, so no pages stay taken after the run, however it ends.
    pcmd = [pktgen, "--lcores", "0@0,1@0", "--file-prefix", fp_pg, "-m", str(PKTGEN_MEM_MB),
            "--huge-unlink", "--no-pci", "--log-level", "lib.eal:error"] + \
        memif_vdevs("client", socks) + \
        ["--", "-P", "-m", "1.[0-1]", "-s", "0:" + pcap, "-f", LUA]
    rec["pktgen_cmd"] = " ".join(pcmd)
    d = p = None
    with bench_lock():
        t0 = time.time()
        try:
            d = dpdk.Proc(cmd, who="run.py")
            if not d.wait_for(lambda: dut_ready(dut, d.text()), 60):
                rec["problems"].append("%s did not come up (exit %s): %s" % (
                    dut, d.p.poll(), (d.text("err") + d.text())[-600:]))
                return rec
            p = dpdk.Proc(pcmd, env=env, who="run.py")
            first = p.wait_for(lambda: LINE_RE.search(p.text()) is not None,
                               a.pktgen_warmup + 90)
            c0, t_c0 = (thread_cpu(d.pid), time.time()) if first else (None, None)
            pg0 = thread_cpu(p.pid) if first else None
            done = first and p.wait_for(lambda: "rocetor-replay: DONE" in p.text(),
                                        a.pktgen_seconds + 30)
            if done and c0 is not None:
                c1, t_c1 = thread_cpu(d.pid), time.time()
                pg1 = thread_cpu(p.pid)
                rec["dut_busiest_thread"], rec["dut_cpu_share"] = busiest_share(
                    c0, c1, t_c1 - t_c0)
                rec["pktgen_busiest_thread"], rec["pktgen_cpu_share"] = busiest_share(
                    pg0, pg1, t_c1 - t_c0)
            # The switch first: it stops its memif ports itself.
            rec["dut_rc"] = d.stop(grace=30)
            open(quit_file, "w").close()
            rec["pktgen_rc"] = p.wait(60)
            if rec["pktgen_rc"] is None:
                rec["notes"].append("pktgen still running 60 s after its quit file: "
                                    "stopped (exit %s)" % p.returncode)
        finally:
            for proc in (d, p):
                if proc is not None and proc.alive():
                    proc.stop(grace=10)
            dpdk.drop_runtime_dir(fp_dut)
            dpdk.drop_runtime_dir(fp_pg)
        rec["wall_s"] = round(time.time() - t0, 1)
    out = p.text() if p is not None else ""
    m = RESULT_RE.search(out)
    rec["lines"] = [(int(x[0]), float(x[1]), float(x[2])) for x in LINE_RE.findall(out)]
    if m is None:
        rec["problems"].append("no RESULT line from pktgen (exit %s): %s" % (
            rec.get("pktgen_rc"), re.sub(r"\s+", " ", (p.text("err") if p else ""))[-600:]
            or "(no stderr)"))
    else:
        rec["periods"] = int(m.group(1))
        rec["tx_mpps"] = float(m.group(2))
        rec["rx_mpps"] = float(m.group(3))
        if rec["tx_mpps"] <= 0:
            rec["problems"].append("pktgen sent nothing")
    if rec.get("dut_rc") not in (0, None):
        rec["problems"].append("%s exited %s: %s" % (dut, rec["dut_rc"],
                                                     d.text("err")[-400:]))
    if p is not None and p.returncode != 0:
        # pktgen's own words (EAL, mempool and memif errors go to stderr),
        # kept with the record: the exit status alone says nothing.
        err = re.sub(r"\s+", " ", p.text("err")).strip()
        rec["pktgen_stderr_tail"] = err[-1500:]
        rec["notes"].append("pktgen exited %s: %s" % (p.returncode,
                                                      err[-300:] or "(no stderr)"))
    if dut.startswith("rocetor"):
        try:
            with open(stats_json) as f:
                st = json.load(f)
        except (OSError, ValueError) as e:
            st = None
            rec["problems"].append("no stats document: %s" % e)
        if st is not None:
            ok, why = accounted(st)
            if not ok:
                rec["problems"].append("accounting: " + why)
            rec["forwarded"] = st["forwarded"]
            rec["dropped"] = st["dropped"]
            rec["drops"] = {k: v for k, v in st["drops"].items() if v}
            rec["busy_cycles_per_packet"] = st.get("busy_cycles_per_packet")
            if rec["busy_cycles_per_packet"] and rec["rx_mpps"]:
                # the share of the window the worker spent on packets
                rec["busy_share"] = round(rec["busy_cycles_per_packet"] * rec["rx_mpps"] * 1e6
                                          / tsc, 3)
    shutil.rmtree(work, ignore_errors=True)
    rec["ok"] = not rec["problems"]
    return rec


def traffic(a, size):
    """The pcap of one size (benchgen --role src, cached in --traffic-dir)."""
    d = a.traffic_dir or os.path.join(SRC, "out", "bench", "gen")
    os.makedirs(d, exist_ok=True)
    prefix = os.path.join(d, "pktgen-src-%d-%d-%d" % (size, a.pktgen_flows, a.pktgen_packets))
    if not os.path.exists(prefix + ".pcap"):
        r = subprocess.run(["/usr/bin/python3", a.benchgen, "--role", "src", "--flows",
                            str(a.pktgen_flows), "--size", str(size), "--packets",
                            str(a.pktgen_packets), "--out", prefix],
                           capture_output=True, text=True)
        if r.returncode != 0:
            raise RuntimeError("benchgen failed: %s" % r.stderr[-500:])
    return prefix + ".pcap"


def median(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def summarise(records, duts, sizes):
    rows = []
    for size in sizes:
        ref = median([r["tx_mpps"] for r in records if r["ok"] and r["dut"] == "testpmd-io"
                      and r["size"] == size])
        for dut in duts:
            rs = [r for r in records if r["dut"] == dut and r["size"] == size]
            good = [r for r in rs if r["ok"]]
            tx = median([r["tx_mpps"] for r in good])
            rows.append({
                "dut": dut, "size": size, "runs": len(rs), "ok": len(good),
                "tx_mpps": tx, "rx_mpps": median([r["rx_mpps"] for r in good]),
                "tx_runs": [r["tx_mpps"] for r in good],
                "x_testpmd_io": (tx / ref) if tx and ref else None,
                "dut_cpu_share": median([r.get("dut_cpu_share") for r in good]),
                # Mpps per second the DUT's busiest thread was on a CPU: on a
                # shared machine the DUT gets what the scheduler leaves it
                "mpps_per_cpu_s": median([r["rx_mpps"] / r["dut_cpu_share"] for r in good
                                          if r.get("dut_cpu_share")]),
                "pktgen_cpu_share": median([r.get("pktgen_cpu_share") for r in good]),
                "busy_share": median([r.get("busy_share") for r in good]),
                "busy_cycles_per_packet": median([r.get("busy_cycles_per_packet")
                                                  for r in good]),
            })
    return rows


def fmt(v, f="%.3f"):
    return "-" if v is None else f % v


def table(rows):
    lines = ["| DUT | frame | runs ok | pktgen tx Mpps (median) | rx Mpps | x testpmd io | "
             "DUT busiest thread CPU | DUT Mpps per CPU-second | rocetor busy share | "
             "rocetor busy cycles/pkt | pktgen busiest thread CPU | tx Mpps per run |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append("| %s | %d B | %d/%d | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            r["dut"], r["size"], r["ok"], r["runs"], fmt(r["tx_mpps"]), fmt(r["rx_mpps"]),
            fmt(r["x_testpmd_io"], "%.2f"), fmt(r["dut_cpu_share"], "%.2f"),
            fmt(r.get("mpps_per_cpu_s"), "%.2f"),
            fmt(r["busy_share"], "%.2f"), fmt(r["busy_cycles_per_packet"], "%.0f"),
            fmt(r["pktgen_cpu_share"], "%.2f"),
            " ".join("%.2f" % x for x in r["tx_runs"]) or "-"))
    return "\n".join(lines)


def run(a, pktgen):
    """The pktgen section: --pktgen-runs rounds of every DUT and size;
    writes OUT/pktgen.json and OUT/pktgen.md, returns (rows, records)."""
    sizes = a.pktgen_sizes
    duts = [d for d in a.pktgen_duts]
    if "testpmd-io" in duts and not os.access(a.testpmd, os.X_OK):
        warn("pktgen: %s not found: no testpmd io reference" % a.testpmd)
        duts.remove("testpmd-io")
    tsc, _ = tsc_hz()
    pcaps = {s: traffic(a, s) for s in sizes}
    records = []
    log("pktgen: %s, DUTs %s, sizes %s, %d round(s) of %d s (+%g s warm-up)" % (
        pktgen, ",".join(duts), ",".join(map(str, sizes)), a.pktgen_runs, a.pktgen_seconds,
        a.pktgen_warmup))
    for rnd in range(a.pktgen_runs):
        for size in sizes:
            for dut in duts:
                r = run_once(a, pktgen, dut, size, pcaps[size], tsc)
                r["round"] = rnd + 1
                records.append(r)
                log("  round %d %-17s %4d B: pktgen tx %s Mpps rx %s Mpps%s%s" % (
                    rnd + 1, dut, size, fmt(r["tx_mpps"]), fmt(r["rx_mpps"]),
                    "" if r["ok"] else "  FAILED: " + "; ".join(r["problems"]),
                    ("  (" + "; ".join(r["notes"]) + ")") if r["notes"] else ""))
    rows = summarise(records, duts, sizes)
    os.makedirs(a.out, exist_ok=True)
    with open(os.path.join(a.out, "pktgen.json"), "w") as f:
        json.dump({"pktgen": pktgen, "tsc_hz": tsc, "rows": rows, "records": records}, f,
                  indent=1)
    text = ("pktgen over memif (pktgen lcores on CPU 0, the DUT on CPU 1; "
            "medians of %d round(s))\n\n" % a.pktgen_runs) + table(rows)
    with open(os.path.join(a.out, "pktgen.md"), "w") as f:
        f.write(text + "\n")
    log(text)
    return rows, records

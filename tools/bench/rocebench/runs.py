# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The rocetor authors
"""One measured run of rocetor or dpdk-testpmd: the command line, the
process under the benchmark lock, and what its output says (Mpps, stage
cycles, the sanity of rocetor's final stats document)."""

import json
import os
import re
import statistics
import time

from rtrpy import dpdk
from rtrpy.stats import exit_problems
from rtrpy.telemetry import Telemetry

from . import config, switch
from .common import fmt_count, oncpu, thread_cpu_ns
from .config import (MODES, MTU_4K, RX_PORT, implemented, mem_mb, pool, rocetor_config, tool,
                     testpmd_pool)
from .machine import bench_lock


def vdevs(meta, role, pcap_name_id=None, txq=0):
    """Port 0..4: the pcap on RX_PORT[role], net_null sinks elsewhere. txq > 0:
    the pcap port gets that many TX queues writing to /dev/null."""
    rxp = RX_PORT[role]
    out = []
    for port in range(5):
        if port == rxp:
            spec = "net_pcap%d," % port + ",".join("rx_pcap=%s" % f for f in meta["files"])
            spec += ",infinite_rx=1"
            spec += "".join(",tx_pcap=/dev/null" for _ in range(txq))
        else:
            spec = "net_null%d,no-rx=1" % port
        out += ["--vdev", spec]
    return out


def prefix(tag):
    """A unique --file-prefix: rtrbench_TAG_PID_N."""
    return dpdk.file_prefix(tag, base="rtrbench")


def eal(file_prefix, mem, workers=1):
    if workers == 1:
        lc = ["-l", "0,1", "--main-lcore", "1"]  # lcore 0 forwards, 1 = main/control
    else:
        lc = ["-l", "0,1"]  # with --main-forwards: both lcores forward
    return lc + ["--file-prefix", file_prefix, "--huge-unlink", "-m", str(mem), "--no-pci",
                 "--log-level", "lib.eal:error"]


# --------------------------------------------------------------------------

def parse_docs(text):
    """The stats documents rocetor printed (--stats-interval), in order."""
    dec = json.JSONDecoder()
    docs = []
    for m in re.finditer(r'^\{"switch"', text, re.M):
        try:
            d, _ = dec.raw_decode(text, m.start())
            docs.append(d)
        except ValueError:
            pass
    return docs


def port_entry(doc, port):
    for e in doc.get("ports", []):
        if e.get("port") == port:
            return e
    return None


def check_final(st, rx_port):
    """Sanity of the stats document written at exit (doc/counters.md)."""
    problems = []
    notes = []
    rx = sum(p["rx_packets"] for p in st["ports"])
    if rx <= 0:
        problems.append("nothing received")
        return problems, notes, 0.0, None
    problems += exit_problems(st)  # held, mempool, rx = forwarded + consumed + dropped
    if st["forwarded"] <= 0:
        problems.append("nothing forwarded")
    drops = st.get("drops", {})
    top = max(drops, key=lambda k: drops[k]) if drops and max(drops.values()) > 0 else None
    frac = st["dropped"] / float(rx)
    if frac > 0.01:
        notes.append("drops %.1f%% (top: %s)" % (100 * frac, top))
    lbc = st.get("lb") if isinstance(st.get("lb"), dict) else {}
    if lbc.get("flow_table_full", 0) > 0:
        notes.append("flow_table_full %d" % lbc["flow_table_full"])
    return problems, notes, frac, top


NOISE = re.compile(r"^(TELEMETRY|USER1|EAL: (Detected|Selected|Probe|No free)|"
                   r"rocetor: port )")


def err_tail(err, out, n=2):
    """The last lines of stderr (else stdout) that say something."""
    lines = [l.strip() for l in err.splitlines() if l.strip() and not NOISE.match(l.strip())]
    if not lines:
        lines = [l.strip() for l in out.splitlines() if l.strip() and not l.startswith(" ")]
    return " | ".join(lines[-n:])


def budget_record(b, headroom):
    """What a run's record keeps of the switch's budget."""
    return {"need": b["need"], "parts": b.get("parts"),
            "hold_budget_per_worker": b.get("hold_budget_per_worker"),
            "data_room": b["data_room"],
            "headroom": b["need"] if headroom is None else headroom,
            "headroom_from": "rocetor-info budget" if headroom is None else "--mbuf-headroom"}


def run_rocetor(ctx, mode, size, flows, meta, label, workers=1, during=None):
    """One rocetor run; returns a record. `during(proc)` is called once the
    first stats document is out (forwarding has started)."""
    a = ctx.args
    lb, role = MODES[mode]
    rxp = RX_PORT[role]
    if not implemented(lb):
        # The registry lists it, this build has no code for it: what
        # rocetor would say at start-up (exit 2), without starting it.
        why = "rocetor-info modes: %s is reserved, not implemented by this build" % lb
        return {"kind": "rocetor", "mode": mode, "lb": lb, "role": role, "size": size,
                "flows": flows, "workers": workers, "label": label, "mpps": None,
                "ok": False, "problems": [why], "notes": [], "unavailable": True,
                "stderr_tail": why}
    mbufs, budget = pool(mode, size, flows, meta["frames"], workers, a.mbuf_headroom,
                         a.mbuf_rounding)
    mem = mem_mb(mbufs, budget["data_room"], lb, flows, workers)
    rec = {"kind": "rocetor", "mode": mode, "lb": lb, "role": role, "size": size,
           "flows": flows, "workers": workers, "label": label, "mbufs": mbufs, "mem_mb": mem,
           "mpps": None, "ok": False, "problems": [], "notes": [],
           "budget": budget_record(budget, a.mbuf_headroom)}
    if a.max_mem and mem > a.max_mem:
        rec["problems"].append("needs -m %d > --max-mem %d" % (mem, a.max_mem))
        return rec
    cdir = os.path.join(a.out, "configs")
    os.makedirs(cdir, exist_ok=True)
    cfg = os.path.join(cdir, "%s-%d-%s%s.yaml" % (mode, size, fmt_count(flows),
                                                   "-w%d" % workers if workers > 1 else ""))
    with open(cfg, "w") as f:
        f.write(rocetor_config(mode, size, flows, mbufs))
    rdir = os.path.join(a.out, "runs")
    os.makedirs(rdir, exist_ok=True)
    final = os.path.join(rdir, label + ".stats.json")
    if os.path.exists(final):
        os.unlink(final)
    run_s = a.warmup + a.duration
    fp = prefix("r")
    hwq = config.hw_queues()
    if workers > 1 and len(meta["files"]) == workers:
        # benchgen's file k holds the flows worker k owns (--split rss);
        # net_pcap has no RSS, so rocetor deals its queues to workers by
        # its rule for such ports: queue q gets the file of the worker
        # rocetor-info says reads it, and no packet is handed over.
        deal = switch.budget(tool(), rocetor_config(mode, size, flows, mbufs), workers,
                             no_rss_owner=True)
        ws = [e["workers"] for e in deal.get("rx_queues", []) if e.get("port") == rxp]
        if ws and sorted(ws[0]) == list(range(workers)):
            meta = dict(meta, files=[meta["files"][w] for w in ws[0]])
            rec["rx_queue_workers"] = ws[0]
    cmd = [a.rocetor] + eal(fp, mem, workers) + \
        vdevs(meta, role, txq=workers * hwq if hwq > 1 else 0) + \
        ["--", "--config", cfg, "--duration", "%g" % run_s, "--stats-interval", "0.5",
         "--stats-json", final]
    if workers > 1:
        cmd.append("--main-forwards")
    rec["cmd"] = " ".join(cmd)
    start_allow = 60 + meta["bytes"] / 40e6 + mem / 1000.0
    rec["loadavg"] = open("/proc/loadavg").read().split()[:3]
    with bench_lock():
        t0 = time.time()
        p = dpdk.Proc(cmd, who="run.py")
        ctx.current = p
        try:
            started = p.wait_for(lambda: '{"switch"' in p.text(), start_allow)
            rec["startup_s"] = round(time.time() - t0, 2)
            if started and during is not None and p.alive():
                rec["during"] = during(p)
            t1 = time.time()
            rc = p.wait(run_s + 60 if started else 5)
            rec["after_start_s"] = round(time.time() - t1, 2)
        finally:
            if p.alive():
                p.stop()
            ctx.current = None
            dpdk.drop_runtime_dir(fp)
    rec["rc"] = rc
    rec["wall_s"] = round(time.time() - t0, 2)
    out = p.text()
    err = p.text("err")
    m = re.search(r"rocetor: mempool (\d+) mbufs", out)
    rec["mbufs_seen"] = int(m.group(1)) if m else None
    if rc != 0:
        rec["problems"].append("exit status %s: %s" % (rc, err_tail(err, out)))
        rec["stderr_tail"] = err[-2000:]
        if "unrecognized option" in err or "unknown option" in err:
            rec["unsupported"] = True
        if rc == 2 and "not available in this build" in err:
            rec["unavailable"] = True
    docs = parse_docs(out)
    rec["docs"] = len(docs)
    if len(docs) >= 2:
        first = None
        for d in docs:
            if d["uptime_s"] >= a.warmup - 1e-3:
                first = d
                break
        last = docs[-1]
        if first is not None and last is not first and last["uptime_s"] > first["uptime_s"]:
            e0, e1 = port_entry(first, rxp), port_entry(last, rxp)
            dt = last["uptime_s"] - first["uptime_s"]
            rec["window_s"] = round(dt, 3)
            rec["mpps"] = (e1["rx_packets"] - e0["rx_packets"]) / dt / 1e6
            rec["fwd_mpps"] = (last["forwarded"] - first["forwarded"]) / dt / 1e6
            # The workers' CPU time over the window (worker_cpu_s): what a
            # packet costs while the worker runs, whatever else shares the
            # machine (a polling worker that is preempted loses wall time,
            # not on-CPU time).
            c0, c1 = first.get("worker_cpu_s"), last.get("worker_cpu_s")
            pk = e1["rx_packets"] - e0["rx_packets"]
            if c0 is not None and c1 is not None and c1 > c0:
                rec["oncpu_frac"] = (c1 - c0) / dt / workers
                if pk > 0 and ctx.tsc:
                    rec["oncpu_cycles_per_packet"] = (c1 - c0) * ctx.tsc / pk
        sc = last.get("stage_cycles")
        if isinstance(sc, dict):
            rec["stage_cycles"] = sc
        if last.get("busy_cycles_per_packet") is not None:
            rec["busy_cycles_per_packet"] = last["busy_cycles_per_packet"]
    if rec["mpps"] is None:
        rec["problems"].append("no measurement window (%d stats documents)" % len(docs))
    try:
        with open(final) as f:
            st = json.load(f)
    except (OSError, ValueError) as e:
        st = None
        rec["problems"].append("no final stats document (%s)" % e)
    if st is not None:
        probs, notes, frac, top = check_final(st, rxp)
        rec["problems"] += probs
        rec["notes"] += notes
        rec["drop_fraction"] = frac
        rec["top_drop"] = top
        lbc = st.get("lb") if isinstance(st.get("lb"), dict) else {}
        rec["lb_counters"] = {k: v for k, v in lbc.items() if v}
        rec["handoff_tx"] = st.get("handoff_tx", 0)
        rec["rx_total"] = sum(e["rx_packets"] for e in st["ports"])
        rec["forwarded"] = st["forwarded"]
        rec["originated"] = st.get("originated", 0)
        if "per_pass" in meta and rec["rx_total"]:
            # what the pcap should make the DstToR count, per received frame
            # (ConWeave's reorder_held, spray's spray_held)
            key = "spray_held" if "spray_held" in meta["per_pass"] else "reorder_held"
            exp = meta["per_pass"].get(key, 0) / float(meta["frames"])
            got = lbc.get(key, 0) / float(rec["rx_total"])
            rec["reorder_held_per_pkt"] = got
            rec["reorder_held_expected"] = exp
            if exp > 0 and got < 0.5 * exp:
                rec["notes"].append("%s %.3f/pkt, pcap implies %.3f" % (key, got, exp))
    rec["ok"] = rec["mpps"] is not None and not rec["problems"]
    return rec


TP_BLOCK = re.compile(r"NIC statistics for port (\d+)")
TP_PPS = re.compile(r"Rx-pps:\s+(\d+)")


def testpmd_samples(lines, port):
    cur, samples = None, []
    for line in lines:
        m = TP_BLOCK.search(line)
        if m:
            cur = int(m.group(1))
            continue
        m = TP_PPS.search(line)
        if m and cur == port:
            samples.append(int(m.group(1)))
    return samples


def testpmd_cpu_snapshot(p, file_prefix, rxp):
    """(time, {tid: ns on a CPU}, packets received on rxp) of a running
    testpmd, from /proc and its telemetry socket; None if telemetry does not
    answer (the on-CPU figure is then left out, the Mpps stay)."""
    try:
        tel = Telemetry(file_prefix, timeout=5)
    except OSError:
        return None
    try:
        c = thread_cpu_ns(p.pid)
        t = time.monotonic()
        n = tel.cmd("/ethdev/stats,%d" % rxp)["ipackets"]
        return t, c, n
    except (OSError, ValueError, TypeError, KeyError):
        return None
    finally:
        tel.close()


def run_testpmd(ctx, fwd, size, flows, meta, role, label):
    a = ctx.args
    rxp = RX_PORT[role]
    mbufs, budget = testpmd_pool(role, size, flows, meta["frames"], a.mbuf_headroom,
                                 a.mbuf_rounding)
    mem = mem_mb(mbufs, budget["data_room"])
    rec = {"kind": "testpmd", "mode": "testpmd-" + fwd, "fwd": fwd, "role": role, "size": size,
           "flows": flows, "label": label, "mbufs": mbufs, "mem_mb": mem, "mpps": None,
           "ok": False, "problems": [], "notes": []}
    if a.max_mem and mem > a.max_mem:
        rec["problems"].append("needs -m %d > --max-mem %d" % (mem, a.max_mem))
        return rec
    nsamp = max(1, int(round(a.duration)))
    fp = prefix("t")
    cmd = ["stdbuf", "-oL", a.testpmd] + eal(fp, mem) + vdevs(meta, role) + \
        ["--", "--auto-start", "--forward-mode=%s" % fwd, "--port-topology=chained",
         "--nb-cores=1", "--total-num-mbufs=%d" % mbufs, "--stats-period", "1"]
    if size >= 4096:
        cmd += ["--mbuf-size=%d" % budget["data_room"], "--max-pkt-len=%d" % (MTU_4K + 18)]
    rec["cmd"] = " ".join(cmd)
    start_allow = 60 + meta["bytes"] / 40e6 + mem / 1000.0
    rec["loadavg"] = open("/proc/loadavg").read().split()[:3]
    with bench_lock():
        t0 = time.time()
        p = dpdk.Proc(cmd, who="run.py")
        ctx.current = p
        try:
            # the first sample of each port is 0 (no previous one); keep nsamp after it
            first = p.wait_for(lambda: len(testpmd_samples(p.lines(), rxp)) >= 1,
                               start_allow + 5)
            w0 = testpmd_cpu_snapshot(p, fp, rxp) if first else None
            got = first and p.wait_for(
                lambda: len(testpmd_samples(p.lines(), rxp)) >= 1 + nsamp, nsamp + 5)
            w1 = testpmd_cpu_snapshot(p, fp, rxp) if got and w0 else None
            if w0 and w1:
                rec["oncpu_cycles_per_packet"], rec["oncpu_frac"] = oncpu(
                    w0[1], w1[1], w1[0] - w0[0], w1[2] - w0[2], ctx.tsc)
            t1 = time.time()
            rc = p.stop()
            rec["measure_s"] = round(t1 - t0, 2)
            rec["stop_s"] = round(time.time() - t1, 2)
        finally:
            if p.alive():
                p.stop()
            ctx.current = None
            dpdk.drop_runtime_dir(fp)
    rec["wall_s"] = round(time.time() - t0, 2)
    rec["rc"] = rc
    samples = testpmd_samples(p.lines(), rxp)
    rec["samples_pps"] = samples
    use = samples[1:1 + nsamp]
    if not got or not use:
        rec["problems"].append("no Rx-pps samples for port %d (exit %s): %s" %
                               (rxp, rc, err_tail(p.text("err"), p.text())))
        rec["stderr_tail"] = p.text("err")[-2000:]
    else:
        rec["mpps"] = statistics.median(use) / 1e6
        if 0 in use:
            rec["notes"].append("a zero Rx-pps sample")
    rec["ok"] = rec["mpps"] is not None and not rec["problems"]
    return rec


# --------------------------------------------------------------------------
# Sections

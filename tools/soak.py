#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The rocetor authors
"""soak: run rocetor for a long time under changing conditions (doc/soak.md).

    soak.py [--duration SEC] [--warmup SEC] [--switch-every SEC]
            [--fault-every SEC] [--sample-every SEC] [--lcores LIST]
            [--rss-bound-kb KB] [--seed S] [--nice N] [--report FILE] [--keep]

rocetor runs one ToR with a host port (0) and four uplinks (1-4), traffic
replayed forever by net_pcap infinite_rx:
  port 0 (host)   RoCE flows 10.1/16 -> 10.2/16 from tools/bench/benchgen.py
                  (role src), in SEGMENTS segments of different flows, so
                  that within every replay loop flows start and end;
  port 1 (fabric) ConWeave-stamped flows 10.2/16 -> 10.1/16 whose phase-1
                  packets overtake their TAILs (role dst): the DstToR holds
                  and releases them when the mode is ConWeave; one flow in
                  four never gets its TAILs (held until the deadline).
Meanwhile, through telemetry (rocetor --telemetry-rw), at random times:
  - the LB mode is switched among ecmp, conweave, seqbalance, caver
    (/rocetor/lb/set; every mode once during the warm-up);
  - an uplink is set admin down for a while, then up (/rocetor/port/admin);
and every --sample-every seconds the process's VmRSS / VmHWM
(/proc/PID/status), /rocetor/stats (counters, held packets, mempool in use)
and /rocetor/ports are sampled.

Checked at the end (exit status 1 if any fails, the report says which):
  - rocetor exits 0 at --duration, "mempool in use after ports closed: 0";
  - accounting: rx = forwarded + consumed + dropped, tx - originated =
    forwarded, dropped = sum of drops by reason = sum of port drops,
    held_packets 0, mempool_in_use 0;
  - lb_switches = the switches the soak asked for, each acknowledged;
  - counters never decrease between samples, and traffic moved in every
    sample interval (no stall after a switch or a fault);
  - RSS outside DPDK's memory grows less than --rss-bound-kb (default
    2048) after the warm-up, total RSS less than --rss-bound-pct (2 %) of
    itself (DPDK's --no-huge memory is touched lazily);
  - the DPDK heap in use is identical in every sample of the same LB mode;
  - mempool in use (while running: the replayed frames plus what is in
    flight) stays within the pool and does not creep up after warm-up.

Needs root (the EAL runtime directory /var/run/dpdk, net_pcap), Debian's
python3, tools/bench/benchgen.py and a built rocetor (ROCETOR or
build/app/rocetor).
"""

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time

# rtrpy (tools/rtrpy, on the path as this script's directory): the DPDK
# process runner, the accounting rule, pcaps and the telemetry client
# shared with tools/bench and the packet tests.
from rtrpy import dpdk, pcap
from rtrpy.env import sanitized
from rtrpy.stats import accounted, mempool_back
from rtrpy.telemetry import Telemetry

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(HERE)
BENCHGEN = os.path.join(HERE, "bench", "benchgen.py")
MODES = ("ecmp", "conweave", "seqbalance", "caver")
UPLINKS = (1, 2, 3, 4)
SEGMENTS = 4          # host flow sets per replay loop
SEG_FLOWS = 256       # flows per segment
SEG_PACKETS = 4096    # frames per segment
DST_FLOWS = 128
DST_PACKETS = 16384
HOST_MAC = "02:00:00:00:01:00"
FAB_MAC = "02:00:00:00:01:01"
NEXTHOP_HOST = "02:00:00:00:aa:01"
NEXTHOP_UP = ["02:00:00:00:bb:0%d" % i for i in range(1, 5)]


def log(msg):
    print("soak: " + msg, flush=True)


# --------------------------------------------------------------------------
# Traffic
# --------------------------------------------------------------------------

def benchgen(work, role, flows, packets, seed, name):
    out = os.path.join(work, name)
    subprocess.run([sys.executable, BENCHGEN, "--role", role, "--flows", str(flows), "--size",
                    "64", "--packets", str(packets), "--seed", str(seed), "--out", out],
                   check=True, stdout=subprocess.DEVNULL)
    return out + ".pcap"


def make_traffic(work, seed):
    """(host pcap, fabric pcap, frames in both)."""
    hdr, recs = None, []
    for s in range(SEGMENTS):
        h, r = pcap.records(benchgen(work, "src", SEG_FLOWS, SEG_PACKETS, seed * 100 + s,
                                     "src%d" % s))
        hdr = hdr or h
        recs += r
    host = os.path.join(work, "host.pcap")
    pcap.write_records(host, hdr, recs)
    h, r = pcap.records(benchgen(work, "dst", DST_FLOWS, DST_PACKETS, seed, "dst"))
    # One DstToR flow in four loses its TAILs (as if dropped in the
    # fabric): its phase-1 packets stay held until their deadline, so that
    # switches away from ConWeave find packets to release.
    r = [x for x in r if not lost_tail(pcap.record_frame(x))]
    fab = os.path.join(work, "fabric.pcap")
    pcap.write_records(fab, h, r)
    return host, fab, len(recs) + len(r)


def lost_tail(frame):
    """A ConWeave DATA TAIL (IPv4, no VLAN: BTH at 42) of a flow whose UDP
    source port is a multiple of 4."""
    if len(frame) < 54:
        return False
    b8 = frame[42 + 8]
    sport = frame[34] << 8 | frame[35]
    return (b8 >> 5) & 3 == 1 and b8 & 1 and sport % 4 == 0


def config(mbufs, start_mode):
    lines = ["# rocetor soak (tools/soak.py)",
             "switch: {name: soak, id: 1, lb: %s, mbufs: %d}" % (start_mode, mbufs),
             "ports:",
             '  - {port: 0, role: host, mac: "%s", l2_filter: false}' % HOST_MAC,
             '  - {port: 1, role: fabric, mac: "%s", l2_filter: false}' % FAB_MAC]
    lines += ['  - {port: %d, role: fabric, mac: "02:00:00:00:01:0%d", l2_filter: false}' % (p, p)
              for p in (2, 3, 4)]
    lines += ["routes:",
              '  - {prefix: "10.1.0.0/16", port: 0, nexthop_mac: "%s"}' % NEXTHOP_HOST,
              '  - prefix: "10.2.0.0/16"',
              "    paths:"]
    lines += ['      - {port: %d, nexthop_mac: "%s"}' % (i + 1, NEXTHOP_UP[i]) for i in range(4)]
    lines += ["conweave: {flow_table_size: 16384, reorder_queues_per_port: 256, "
              "reorder_queue_depth: 255}",
              "seqbalance: {flow_table_size: 16384}",
              "caver: {flow_table_size: 16384}"]
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------
# Telemetry and /proc
# --------------------------------------------------------------------------

def proc_mem(pid):
    """(VmRSS, VmHWM) in kB."""
    rss = hwm = 0
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                rss = int(line.split()[1])
            elif line.startswith("VmHWM:"):
                hwm = int(line.split()[1])
    return rss, hwm


def dpdk_rss(pid):
    """kB of RSS in DPDK's memory (the --no-huge memfd, hugepage maps)."""
    kb, dpdk = 0, False
    with open("/proc/%d/smaps" % pid) as f:
        for line in f:
            first = line.split(" ", 1)[0]
            if "-" in first and ":" not in first:
                dpdk = "memfd:nohuge" in line or "rtemap" in line or "hugepages" in line
            elif dpdk and line.startswith("Rss:"):
                kb += int(line.split()[1])
    return kb


def flat(stats, ports):
    """The counters that must never decrease, as one flat dict."""
    out = {}
    for k in ("forwarded", "consumed", "originated", "originated_dropped", "dropped",
              "handoff_tx", "handoff_rx", "lb_switches", "lb_switch_released"):
        out[k] = stats.get(k, 0)
    for k, v in stats.get("drops", {}).items():
        out["drops." + k] = v
    for p, e in ports.items():
        for k in ("rx_packets", "tx_packets", "rx_bytes", "tx_bytes", "drops"):
            out["port%s.%s" % (p, k)] = e.get(k, 0)
    return out


# --------------------------------------------------------------------------
# The run
# --------------------------------------------------------------------------

def workers_of(lcores):
    """Worker lcores of an EAL lcore list: all but the main one when there
    are several (rocetor without --main-forwards)."""
    n = 0
    for part in lcores.split(","):
        part = part.split("@")[0]
        if "-" in part:
            lo, hi = part.split("-")
            n += int(hi) - int(lo) + 1
        else:
            n += 1
    return n - 1 if n > 1 else 1


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--duration", type=float, default=90, help="seconds of traffic (default 90)")
    p.add_argument("--warmup", type=float, default=None,
                   help="seconds before the RSS baseline (default min(30, duration / 4))")
    p.add_argument("--switch-every", type=float, default=3.0,
                   help="mean seconds between LB switches (default 3)")
    p.add_argument("--fault-every", type=float, default=5.0,
                   help="mean seconds between uplink admin-down faults (default 5)")
    p.add_argument("--sample-every", type=float, default=2.0)
    p.add_argument("--lcores", default="0",
                   help="EAL -l / --lcores value (default 0: one lcore forwards and controls)")
    p.add_argument("--rss-bound-kb", type=int, default=2048,
                   help="allowed growth after the warm-up of the RSS outside DPDK memory, "
                   "kB (default 2048); also the least allowed total RSS growth")
    p.add_argument("--rss-bound-pct", type=float, default=2.0,
                   help="allowed total RSS growth after the warm-up, %% of the RSS then "
                   "(default 2; DPDK memory is touched lazily with --no-huge)")
    p.add_argument("--seed", type=int, default=None)
    p.add_argument("--nice", type=int, default=10, help="niceness of rocetor (default 10)")
    p.add_argument("--report", default=None, help="write the figures as JSON here")
    p.add_argument("--keep", action="store_true", help="keep the work directory")
    a = p.parse_args(argv)
    if a.duration < 20:
        p.error("--duration must be at least 20 s")
    if a.warmup is None:
        a.warmup = min(30.0, a.duration / 4)
    if a.seed is None:
        a.seed = random.randrange(1 << 20)
    return a


def mode_tour(start, rng):
    """Switches from start that take every ordered pair of modes once (an
    Euler circuit of the complete directed graph): during the warm-up each
    mode's state is created while each other mode's is still allocated, so
    the heap reaches its high-water mark before the RSS baseline."""
    left = {m: [n for n in MODES if n != m] for m in MODES}
    for v in left.values():
        rng.shuffle(v)
    stack, circuit = [start], []
    while stack:
        v = stack[-1]
        if left[v]:
            stack.append(left[v].pop())
        else:
            circuit.append(stack.pop())
    return circuit[::-1][1:]


class Soak:
    def __init__(self, a):
        self.a = a
        self.rng = random.Random(a.seed)
        self.failures = []
        self.samples = []
        self.switches = []     # (t, from, to, released)
        self.faults = []       # (t, port, down seconds)
        self.down = {}         # port -> time to bring it up

    def fail(self, msg):
        self.failures.append(msg)
        log("FAIL: " + msg)

    def check(self, cond, msg):
        if not cond:
            self.fail(msg)
        return cond

    def switch(self, tel, t, mode):
        r = tel.cmd("/rocetor/lb/set,%s" % mode) or {}
        if self.check(r.get("ok") == 1 and r.get("mode") == mode,
                      "switch to %s at %.1f s: %r" % (mode, t, r)):
            self.switches.append((round(t, 2), r.get("from"), mode, r.get("released", 0)))
            self.mode = mode

    def sample(self, tel, pid, t):
        st = tel.cmd("/rocetor/stats") or {}
        ports = tel.cmd("/rocetor/ports") or {}
        heap = tel.cmd("/eal/heap_info,0") or {}
        rss, hwm = proc_mem(pid)
        s = {"t": round(t, 2), "rss_kb": rss, "hwm_kb": hwm, "dpdk_rss_kb": dpdk_rss(pid),
             "mode": st.get("lb", self.mode),
             "heap_alloc": heap.get("Alloc_size"), "heap_count": heap.get("Alloc_count"),
             "mempool_in_use": st.get("mempool_in_use"), "held": st.get("held_packets"),
             "counters": flat(st, ports)}
        if self.samples:
            prev = self.samples[-1]["counters"]
            dec = [k for k, v in s["counters"].items() if v < prev.get(k, 0)]
            self.check(not dec, "counters decreased at %.1f s: %s" % (t, dec[:5]))
            self.check(s["counters"]["forwarded"] > prev["forwarded"],
                       "nothing forwarded between %.1f s and %.1f s" %
                       (self.samples[-1]["t"], t))
        self.samples.append(s)
        return s

    def run(self):
        a = self.a
        work = tempfile.mkdtemp(prefix="rocetor-soak-")
        rocetor = os.environ.get("ROCETOR", os.path.join(SRC, "build", "app", "rocetor"))
        log("seed %d, duration %.0f s, warm-up %.0f s, work %s" % (a.seed, a.duration,
                                                                    a.warmup, work))
        host, fab, frames = make_traffic(work, a.seed)
        # net_pcap infinite_rx keeps every frame in an mbuf of rocetor's pool.
        mbufs = (1 << (frames + 32768 - 1).bit_length()) - 1
        self.mode = self.rng.choice(MODES)
        cfg = os.path.join(work, "soak.yaml")
        with open(cfg, "w") as f:
            f.write(config(mbufs, self.mode))
        prefix = dpdk.file_prefix("soak")
        stats_json = os.path.join(work, "stats.json")
        mem = max(512, mbufs * 2400 // (1 << 20) + 256)
        lc = ["--lcores" if "@" in a.lcores else "-l", a.lcores]
        # One TX queue per worker on every port (net_pcap: one tx_pcap each).
        txq = ",tx_pcap=/dev/null" * max(1, workers_of(a.lcores))
        cmd = ["nice", "-n", str(a.nice), rocetor] + lc + [
            "--no-pci", "--no-huge", "-m", str(mem), "--file-prefix", prefix,
            "--log-level", "lib.eal:error",
            "--vdev", "net_pcap0,rx_pcap=%s,infinite_rx=1%s" % (host, txq),
            "--vdev", "net_pcap1,rx_pcap=%s,infinite_rx=1%s" % (fab, txq)]
        for p in (2, 3, 4):
            cmd += ["--vdev", "net_null%d,no-rx=1" % p]
        cmd += ["--", "--config", cfg, "--duration", str(a.duration), "--telemetry-rw",
                "--stats-json", stats_json]
        log("%d frames replayed (%d host flows in %d segments, %d ConWeave DstToR flows), "
            "pool %d mbufs, start mode %s" % (frames, SEGMENTS * SEG_FLOWS, SEGMENTS,
                                              DST_FLOWS, mbufs, self.mode))
        proc = dpdk.Proc(cmd, who="soak")
        tel = None
        t0 = None
        try:
            tel = Telemetry(prefix, timeout=60)
            while tel.cmd("/rocetor/stats") is None:
                if not proc.alive():
                    raise RuntimeError("rocetor exited early")
                time.sleep(0.1)
            t0 = time.time()
            self.run_loop(tel, proc.pid, t0)
        except (OSError, RuntimeError, ValueError) as e:
            self.fail("telemetry: %s" % e)
        finally:
            if tel:
                tel.close()
        # Stopped with SIGINT (SIGKILL 30 s later) if it overruns.
        if proc.wait(a.duration + 120, grace=30) is None:
            self.fail("rocetor did not exit at --duration")
        out = proc.text() + proc.text("err")
        with open(os.path.join(work, "rocetor.out"), "w") as f:
            f.write(out)
        self.finish(proc.returncode, out, stats_json)
        if a.keep or self.failures:
            log("work directory kept: %s" % work)
        else:
            shutil.rmtree(work, ignore_errors=True)
        dpdk.drop_runtime_dir(prefix)
        return 0 if not self.failures else 1

    def run_loop(self, tel, pid, t0):
        a = self.a
        end = a.duration - 4  # leave the last seconds quiet: every port up again
        tour = mode_tour(self.mode, self.rng)
        tour_at = [a.warmup * (i + 1) / (len(tour) + 2) for i in range(len(tour))]
        next_switch = a.warmup + self.rng.expovariate(1 / a.switch_every)
        next_fault = self.rng.expovariate(1 / a.fault_every)
        next_sample = 0.0
        self.baseline = None
        while True:
            t = time.time() - t0
            if t >= end:
                break
            if tour and t >= tour_at[0]:
                tour_at.pop(0)
                self.switch(tel, t, tour.pop(0))
            if t >= next_switch:
                self.switch(tel, t, self.rng.choice([m for m in MODES if m != self.mode]))
                next_switch = t + self.rng.expovariate(1 / a.switch_every)
            for p, up_at in list(self.down.items()):
                if t >= up_at:
                    r = tel.cmd("/rocetor/port/admin,%d,up" % p) or {}
                    self.check(r.get("ok") == 1, "port %d up: %r" % (p, r))
                    del self.down[p]
            if t >= next_fault and t < end - 4:
                live = [p for p in UPLINKS if p not in self.down]
                if len(live) > 1:
                    p = self.rng.choice(live)
                    dur = self.rng.uniform(0.3, 3.0)
                    r = tel.cmd("/rocetor/port/admin,%d,down" % p) or {}
                    if self.check(r.get("ok") == 1, "port %d down: %r" % (p, r)):
                        self.down[p] = t + dur
                        self.faults.append((round(t, 2), p, round(dur, 2)))
                next_fault = t + self.rng.expovariate(1 / a.fault_every)
            if t >= next_sample:
                s = self.sample(tel, pid, t)
                if self.baseline is None and t >= a.warmup:
                    self.baseline = s
                next_sample = t + a.sample_every
            time.sleep(0.05)
        for p in list(self.down):
            r = tel.cmd("/rocetor/port/admin,%d,up" % p) or {}
            self.check(r.get("ok") == 1, "port %d up: %r" % (p, r))
        self.down.clear()
        self.sample(tel, pid, time.time() - t0)

    def finish(self, rc, out, stats_json):
        a = self.a
        self.check(rc == 0, "rocetor exit status %r: %s" % (rc, out[-1500:]))
        back, lines = mempool_back(out)
        self.check(back, "mempool not back to its baseline at exit: %s" % lines)
        try:
            with open(stats_json) as f:
                s = json.load(f)
        except (OSError, ValueError) as e:
            self.fail("no stats document: %s" % e)
            s = None
        rep = {"seed": a.seed, "duration_s": a.duration, "warmup_s": a.warmup,
               "lcores": a.lcores, "switches": len(self.switches), "faults": len(self.faults),
               "failures": self.failures}
        if s is not None:
            ok, why = accounted(s)
            self.check(ok, "accounting at exit: " + why)
            self.check(s["held_packets"] == 0, "held_packets %d at exit" % s["held_packets"])
            self.check(s["lb_switches"] == len(self.switches),
                       "lb_switches %d, the soak switched %d times" %
                       (s["lb_switches"], len(self.switches)))
            rx = sum(p["rx_packets"] for p in s["ports"])
            rep.update({"rx_packets": rx, "forwarded": s["forwarded"],
                        "dropped": s["dropped"],
                        "drops": {k: v for k, v in s["drops"].items() if v},
                        "lb_switches": s["lb_switches"],
                        "lb_switch_released": s["lb_switch_released"],
                        "reorder_held": s["lb"]["reorder_held"],
                        "final_mode": s["lb_mode"], "uptime_s": s["uptime_s"],
                        "mempool_in_use_at_exit": s["mempool_in_use"],
                        "accounting": why})
        # Under ASan (the sanitizer build's CI stage) freed memory sits in
        # ASan's quarantine (up to 256 MB) and the RSS climbs without a
        # leak; LeakSanitizer at exit and the heap and mempool checks below
        # stand in for the RSS bounds there.
        rss_checked = not sanitized("the soak's RSS growth bounds")
        if self.samples:
            base = self.baseline or self.samples[len(self.samples) // 2]
            after = [x for x in self.samples if x["t"] >= base["t"]]
            last = self.samples[-1]
            growth = last["rss_kb"] - base["rss_kb"]
            peak = max(x["rss_kb"] for x in after) - base["rss_kb"]
            # Process memory outside DPDK's (libc heap, thread stacks,
            # libraries): a leak there shows nowhere else.
            own = [x["rss_kb"] - x["dpdk_rss_kb"] for x in after]
            own_growth = max(own) - own[0]
            self.check(not rss_checked or own_growth < a.rss_bound_kb,
                       "RSS outside DPDK memory grew %d kB after the warm-up (bound %d kB)" %
                       (own_growth, a.rss_bound_kb))
            # DPDK memory is touched lazily with --no-huge: pages first used
            # late (an mbuf deep in the pool, a heap block placed in a hole
            # not used before) add to RSS without a leak; the heap and the
            # mempool are checked exactly below. Total RSS: a few per cent.
            bound = max(a.rss_bound_kb, base["rss_kb"] * a.rss_bound_pct / 100)
            self.check(not rss_checked or (growth < bound and peak < bound),
                       "RSS grew %d kB (peak +%d kB) after the warm-up (bound %d kB)" %
                       (growth, peak, bound))
            # The DPDK heap: with the same mode running, the same bytes in
            # the same number of blocks (an LB switch that leaked would not).
            per_mode = {}
            for x in after:
                if x["heap_alloc"] is not None:
                    per_mode.setdefault(x["mode"], set()).add((x["heap_alloc"], x["heap_count"]))
            self.check(all(len(v) == 1 for v in per_mode.values()),
                       "DPDK heap in use differs between samples of one mode: %s" %
                       {m: sorted(v) for m, v in per_mode.items() if len(v) > 1})
            rep["heap_alloc_by_mode"] = {m: sorted(v)[0][0] for m, v in per_mode.items()}
            pool = [x["mempool_in_use"] for x in after if x["mempool_in_use"] is not None]
            first = [x["mempool_in_use"] for x in self.samples if x["mempool_in_use"]]
            if pool:
                # Replayed frames are constant; what is in flight varies. A
                # leak would creep: the last third must not sit above the
                # range of the first third after warm-up.
                third = max(1, len(pool) // 3)
                lo_max = max(pool[:third])
                self.check(min(pool[-third:]) <= lo_max + 1024,
                           "mempool in use creeps up: first third max %d, last third min %d" %
                           (lo_max, min(pool[-third:])))
            rep.update({"rss_outside_dpdk_growth_kb": own_growth,
                        "dpdk_rss_growth_kb": last["dpdk_rss_kb"] - base["dpdk_rss_kb"],
                        "rss_kb_start": self.samples[0]["rss_kb"],
                        "rss_kb_after_warmup": base["rss_kb"], "rss_kb_end": last["rss_kb"],
                        "rss_growth_kb": growth, "rss_peak_growth_kb": peak,
                        "hwm_kb_end": last["hwm_kb"],
                        "mempool_in_use_min": min(first) if first else None,
                        "mempool_in_use_max": max(first) if first else None,
                        "samples": len(self.samples)})
        rep["rss_log"] = [(x["t"], x["rss_kb"]) for x in self.samples]
        rep["switch_log"] = self.switches
        rep["fault_log"] = self.faults
        self.report = rep
        if a.report:
            with open(a.report, "w") as f:
                json.dump(rep, f, indent=1)
        brief = {k: v for k, v in rep.items() if k not in ("switch_log", "fault_log", "rss_log")}
        log("report: " + json.dumps(brief))
        log("PASS" if not self.failures else "FAILED (%d)" % len(self.failures))


def main(argv=None):
    a = parse_args(argv)
    if os.geteuid() != 0:
        print("soak: needs root (EAL runtime directory, telemetry socket)", file=sys.stderr)
        return 77
    return Soak(a).run()


if __name__ == "__main__":
    sys.exit(main())

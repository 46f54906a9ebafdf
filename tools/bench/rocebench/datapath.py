# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The rocetor authors
"""--check-datapath: syscalls, allocations and locks counted per thread
(perf stat with uprobes, strace as the fallback) while rocetor forwards."""

import os
import re
import shutil
import signal
import subprocess
import time

from .common import log
from .runs import run_rocetor
from .traffic import source_text


LIBC_FUNCS = ["malloc", "calloc", "realloc", "free", "pthread_mutex_lock"]
EAL_FUNCS = ["rte_malloc_socket", "rte_zmalloc_socket", "rte_free"]


def lib_path(binary, name):
    r = subprocess.run(["ldd", binary], capture_output=True, text=True)
    for line in r.stdout.splitlines():
        if name in line and "=>" in line:
            p = line.split("=>")[1].split("(")[0].strip()
            if p:
                return os.path.realpath(p)
    return None


def thread_names(pid):
    out = {}
    try:
        for tid in os.listdir("/proc/%d/task" % pid):
            try:
                out[int(tid)] = open("/proc/%d/task/%s/comm" % (pid, tid)).read().strip()
            except OSError:
                pass
    except OSError:
        pass
    return out


def thread_role(name, pid, tid):
    # DPDK names its lcore threads lcore-worker-N (rte-worker-N in 22.11 LTS updates)
    if re.match(r"(lcore|rte)-worker-\d+$", name):
        return "worker (forwarding lcore)"
    if tid == pid:
        return "main (control plane)"
    return "other (EAL service)"


class Probes:
    def __init__(self, perf, group):
        self.perf = perf
        self.group = group
        self.events = []
        self.errors = []

    def add(self, lib, funcs):
        for fn in funcs:
            ev = "%s:%s" % (self.group, fn)
            r = subprocess.run([self.perf, "probe", "-q", "-x", lib, "-a",
                                "%s=%s" % (ev, fn)], capture_output=True, text=True)
            if r.returncode == 0:
                self.events.append(ev)
            else:
                self.errors.append("perf probe -x %s -a %s: %s" %
                                   (lib, fn, (r.stderr or r.stdout).strip()[-300:]))

    def cleanup(self):
        if self.events:
            subprocess.run([self.perf, "probe", "-q", "-d", "%s:*" % self.group],
                           capture_output=True, text=True)
            self.events = []


def perf_per_thread(perf, pid, events, seconds):
    """perf stat --per-thread -p PID for `seconds`: {tid: {event: count}}."""
    cmd = [perf, "stat", "--per-thread", "-x", ";", "-p", str(pid)]
    for e in events:
        cmd += ["-e", e]
    cmd += ["--", "sleep", "%g" % seconds]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=seconds + 60)
    counts = {}
    for line in r.stderr.splitlines():
        f = line.split(";")
        if len(f) < 4:
            continue
        m = re.match(r"(.*)-(\d+)$", f[0].strip())
        if not m:
            continue
        tid = int(m.group(2))
        try:
            v = int(float(f[1]))
        except ValueError:
            # "<not counted>": the thread never ran while counting (0 events);
            # "<not supported>": the event could not be counted
            v = "nc" if "not counted" in f[1] else None
        ev = f[3].strip()
        counts.setdefault(tid, {})[ev] = v
    return r.returncode, counts, r.stderr


def strace_per_thread(pid, seconds, outdir):
    """Fallback: strace -f attached for `seconds`, one file per thread."""
    pre = os.path.join(outdir, "strace")
    p = subprocess.Popen(["strace", "-ff", "-qq", "-o", pre, "-p", str(pid)],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    time.sleep(seconds)
    p.send_signal(signal.SIGINT)
    try:
        p.wait(timeout=20)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()
    counts = {}
    for fn in os.listdir(outdir):
        if fn.startswith("strace."):
            tid = int(fn.split(".")[-1])
            n = 0
            with open(os.path.join(outdir, fn)) as f:
                for line in f:
                    if re.match(r"\w+\(", line):
                        n += 1
            counts[tid] = {"syscalls (strace)": n}
    return counts


def check_datapath(ctx):
    a = ctx.args
    size, flows = 1024, 1000
    res = {"size": size, "flows": flows, "seconds": a.probe_seconds, "modes": {},
           "method": None, "errors": []}
    perf = shutil.which("perf") or ("/usr/bin/perf" if os.path.exists("/usr/bin/perf") else None)
    if a.datapath_tool == "strace":
        perf = None
        res["errors"].append("perf not used (--datapath-tool strace)")
    meta = ctx.traffic.get("src", size, flows)
    log("")
    log("== data path: syscalls, allocations, locks on the forwarding thread ==")
    log("traffic: %s" % source_text(meta, "src"))
    group = "rtrbench%d" % os.getpid()
    probes = Probes(perf, group) if perf else None
    ctx.probes = probes
    try:
        if perf:
            libc = lib_path(a.rocetor, "libc.so")
            leal = lib_path(a.rocetor, "librte_eal.so")
            if libc:
                probes.add(libc, LIBC_FUNCS)
            if leal:
                probes.add(leal, EAL_FUNCS)
            res["errors"] += probes.errors
            res["probes"] = list(probes.events)
        elif a.datapath_tool == "perf":
            res["errors"].append("perf not found")
        for mode in ["ecmp", "conweave-src"]:
            state = {}

            def during(p, state=state):
                time.sleep(a.warmup)
                names = thread_names(p.pid)
                state["threads"] = names
                state["pid"] = p.pid
                if perf:
                    evs = ["raw_syscalls:sys_enter"] + (probes.events if probes else [])
                    rc, counts, txt = perf_per_thread(perf, p.pid, evs, a.probe_seconds)
                    state["perf_rc"] = rc
                    if rc != 0 or not counts:
                        state["perf_error"] = txt.strip()[-600:]
                    else:
                        state["counts"] = counts
                        state["method"] = "perf stat --per-thread -p PID"
                if "counts" not in state:
                    d = os.path.join(a.out, "strace-%s" % mode)
                    shutil.rmtree(d, ignore_errors=True)
                    os.makedirs(d)
                    state["counts"] = strace_per_thread(p.pid, a.probe_seconds, d)
                    state["method"] = "strace -ff -p PID" + (" (perf failed)" if perf else "")
                names.update(thread_names(p.pid))
                return True

            save = a.duration
            a.duration = a.probe_seconds + 3
            try:
                rec = run_rocetor(ctx, mode, size, flows, meta, "datapath-%s" % mode,
                                  during=during)
            finally:
                a.duration = save
            rec["section"] = "datapath"
            ctx.records.append(rec)
            ctx.progress(rec, "data path %s" % mode)
            names = state.get("threads", {})
            per = []
            for tid, evs in sorted(state.get("counts", {}).items()):
                nm = names.get(tid, "?")
                per.append({"tid": tid, "comm": nm,
                        "role": thread_role(nm, state.get("pid", -1), tid), "counts": evs})
            res["modes"][mode] = {"threads": per, "mpps": rec["mpps"],
                                  "method": state.get("method"),
                                  "perf_error": state.get("perf_error")}
            if state.get("perf_error"):
                res["errors"].append("perf stat (%s): %s" % (mode, state["perf_error"]))
            res["method"] = res["method"] or state.get("method")
            worker = [t for t in per if t["role"].startswith("worker")]
            res["modes"][mode]["worker_total"] = sum(
                v for t in worker for v in t["counts"].values()
                if isinstance(v, int)) if worker else None
            if not worker:
                res["errors"].append("%s: no forwarding thread found among %s" % (
                    mode, ", ".join(sorted(set(names.values())))))
    finally:
        if probes:
            probes.cleanup()
            ctx.probes = None
    return res


# --------------------------------------------------------------------------
# Output

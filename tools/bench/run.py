#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The rocetor authors
"""run.py: the rocetor benchmark suite (doc/benchmarks.md, tools/bench/README).

One command runs the matrix LB mode x packet size x flow count and prints a
table: Mpps per worker core (median of --runs rounds of --duration seconds),
TSC cycles per packet per pipeline stage, and the ratio to dpdk-testpmd
(--forward-mode=5tswap and macswap) run on the same ports in the same
invocation, alternated round by round:

  per (size, flows) group, for round r = 1..R:
      testpmd 5tswap, testpmd macswap, rocetor mode 1, mode 2, ...
  ratio of a mode in round r = its Mpps / testpmd's Mpps of round r
  reported: median Mpps over rounds, median of the per-round ratios

Traffic: tools/bench/benchgen.py pcaps (cached in --traffic-dir), replayed by
net_pcap with infinite_rx=1 into the receiving port (port 0 = host port for
role src, port 1 = fabric port for the ConWeave DstToR), four net_null
(no-rx=1) sinks on the other ports. Every DPDK process runs alone: under
flock(/tmp/rocetor-bench.lock), with its own --file-prefix, hugepages
(--huge-unlink -m MB) and one forwarding lcore (-l 0,1 --main-lcore 1: lcore 0
forwards, lcore 1 is the control/main lcore), the same for testpmd.

Extra sections: --scaling (1 vs 2 workers), --check-datapath (syscalls,
allocations and locks counted on the forwarding thread with perf).
Results: DIR/results.{json,md,csv} and DIR/mpps-vs-flows.png (--out DIR).
Python standard library only (the plot uses Debian's python3-matplotlib,
installed with apt-get when missing unless --no-install).
"""

import argparse
import contextlib
import csv
import errno
import fcntl
import json
import math
import os
import platform
import re
import shutil
import signal
import statistics
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.normpath(os.path.join(HERE, "..", ".."))
LOCK = "/tmp/rocetor-bench.lock"

# mode -> (switch.lb, traffic role)
MODES = {
    "ecmp": ("ecmp", "src"),
    "conweave-src": ("conweave", "src"),
    "conweave-dst": ("conweave", "dst"),
    "seqbalance": ("seqbalance", "src"),
    "caver": ("caver", "src"),
    "spray": ("spray", "src"),
}
DEFAULT_MODES = ["ecmp", "conweave-src", "conweave-dst", "seqbalance", "caver"]
MODE_TEXT = {
    "ecmp": "ECMP (SrcToR)",
    "conweave-src": "ConWeave as SrcToR",
    "conweave-dst": "ConWeave as DstToR, reordering active",
    "seqbalance": "SeqBalance as SrcToR",
    "caver": "CAVER as SrcToR",
    "spray": "per-packet spray (SrcToR)",
}
TESTPMD_MODES = ["5tswap", "macswap"]
RX_PORT = {"src": 0, "dst": 1}  # the port the pcap is replayed into
STAGES = ["rx", "parse", "route", "lb", "egress", "tx"]
FLOW_LB = ("conweave", "seqbalance", "caver")
MTU_4K = 4200  # 4096-byte payload frames are 4154 B (4158 with the ConWeave header)
MBUF_OVERHEAD = 320  # per mbuf beyond its data room: rte_mbuf, private area, pool header
SLACK_MB = 256
REORDER_MB = 32  # ConWeave reorder rings per worker and host port at the defaults
NEXTHOP_HOST = "02:00:00:00:aa:01"
NEXTHOP_UP = ["02:00:00:00:bb:0%d" % i for i in range(1, 5)]


def log(msg=""):
    print(msg, flush=True)


def warn(msg):
    print("run.py: " + msg, file=sys.stderr, flush=True)


def parse_count(s):
    s = s.strip().upper()
    mult = 1
    if s.endswith("K"):
        mult, s = 1000, s[:-1]
    elif s.endswith("M"):
        mult, s = 1000000, s[:-1]
    return int(float(s) * mult)


def fmt_count(n):
    if n >= 1000000 and n % 1000000 == 0:
        return "%dM" % (n // 1000000)
    if n >= 1000 and n % 1000 == 0:
        return "%dK" % (n // 1000)
    return str(n)


def pow2_at_least(n):
    p = 1
    while p < n:
        p <<= 1
    return p


def sha256(path):
    import hashlib
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for b in iter(lambda: f.read(1 << 20), b""):
            h.update(b)
    return h.hexdigest()


def median(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def fnum(x, fmt="%.2f", none="-"):
    return none if x is None else fmt % x


# --------------------------------------------------------------------------
# Machine: lock, hugepages, TSC, processes
# --------------------------------------------------------------------------

@contextlib.contextmanager
def bench_lock():
    """flock(/tmp/rocetor-bench.lock): benchmark processes never overlap."""
    fd = os.open(LOCK, os.O_RDWR | os.O_CREAT, 0o666)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as e:
            if e.errno not in (errno.EWOULDBLOCK, errno.EAGAIN):
                raise
            t0 = time.time()
            log("    (waiting for %s: another benchmark is running)" % LOCK)
            fcntl.flock(fd, fcntl.LOCK_EX)
            log("    (got the lock after %.1f s)" % (time.time() - t0))
        yield
    finally:
        os.close(fd)  # releases the lock


def meminfo():
    d = {}
    with open("/proc/meminfo") as f:
        for line in f:
            k, v = line.split(":", 1)
            d[k] = int(v.split()[0])
    return d


class Hugepages:
    """Raise vm.nr_hugepages to what the biggest run needs (and mount
    hugetlbfs), and put it back at the end."""

    PATH = "/proc/sys/vm/nr_hugepages"

    def __init__(self, keep=False):
        self.keep = keep
        self.orig = None
        self.set_to = None

    def ensure(self, need_mb):
        mi = meminfo()
        page_kb = mi.get("Hugepagesize", 2048)
        need = int(math.ceil(need_mb * 1024.0 / page_kb)) + 8
        if not any(line.split()[2] == "hugetlbfs" for line in open("/proc/mounts")
                   if len(line.split()) > 2):
            if os.geteuid() != 0:
                warn("no hugetlbfs mounted and not root: runs will fail")
                return False
            os.makedirs("/dev/hugepages", exist_ok=True)
            r = subprocess.run(["mount", "-t", "hugetlbfs", "nodev", "/dev/hugepages"],
                               capture_output=True, text=True)
            log("hugepages: mounted hugetlbfs on /dev/hugepages%s" %
                ("" if r.returncode == 0 else " FAILED: " + r.stderr.strip()))
        free = mi.get("HugePages_Free", 0)
        total = mi.get("HugePages_Total", 0)
        if free >= need:
            log("hugepages: %d of %d free (%d kB pages); the biggest run needs %d (%d MB)" %
                (free, total, page_kb, need, need_mb))
            return True
        if os.geteuid() != 0:
            warn("hugepages: %d free, the biggest run needs %d (%d MB); not root, cannot "
                 "raise %s: those runs will fail" % (free, need, need_mb, self.PATH))
            return False
        new = total + need - free
        if self.orig is None:
            self.orig = total
        try:
            with open(self.PATH, "w") as f:
                f.write("%d\n" % new)
        except OSError as e:
            warn("hugepages: cannot write %s: %s" % (self.PATH, e))
            return False
        got = int(open(self.PATH).read())
        self.set_to = got
        log("hugepages: raised %s from %d to %d (asked %d; the biggest run needs %d MB, "
            "%d pages were free)%s" % (self.PATH, total, got, new, need_mb, free,
                                       "" if self.keep else "; put back at the end"))
        if got < new:
            warn("hugepages: the kernel gave %d of %d pages (memory fragmented or short): "
                 "the biggest runs may fail" % (got, new))
        return got >= new

    def restore(self):
        if self.orig is None or self.keep:
            return
        try:
            cur = int(open(self.PATH).read())
            if cur != self.set_to:
                log("hugepages: %s is %d now (someone changed it), left alone" %
                    (self.PATH, cur))
                return
            with open(self.PATH, "w") as f:
                f.write("%d\n" % self.orig)
            log("hugepages: %s put back to %d" % (self.PATH, int(open(self.PATH).read())))
        except OSError as e:
            warn("hugepages: could not put %s back: %s" % (self.PATH, e))
        self.orig = None


def tsc_hz(startup_text=""):
    """(Hz, where from): rocetor's own line if it prints one, the kernel's
    calibration (dmesg), else /proc/cpuinfo (constant_tsc)."""
    m = re.search(r"tsc[^\n0-9]*?([0-9]+(?:\.[0-9]+)?)\s*(GHz|MHz|Hz)", startup_text, re.I)
    if m:
        v = float(m.group(1)) * {"ghz": 1e9, "mhz": 1e6, "hz": 1.0}[m.group(2).lower()]
        return v, "rocetor start-up line"
    try:
        r = subprocess.run(["dmesg"], capture_output=True, text=True, timeout=10)
        m = re.search(r"tsc: (?:Refined TSC clocksource calibration|Detected)[^0-9]*"
                      r"([0-9.]+) MHz", r.stdout)
        found = re.findall(r"tsc: (?:Refined TSC clocksource calibration|Detected)[^0-9]*"
                           r"([0-9.]+) MHz", r.stdout)
        if m and found:
            return float(found[-1]) * 1e6, "kernel TSC calibration (dmesg)"
    except (OSError, subprocess.SubprocessError):
        pass
    try:
        txt = open("/proc/cpuinfo").read()
        m = re.search(r"cpu MHz\s*:\s*([0-9.]+)", txt)
        if m:
            return float(m.group(1)) * 1e6, "/proc/cpuinfo cpu MHz (constant_tsc)"
    except OSError:
        pass
    return None, "unknown"


class Proc:
    """A child process whose stdout/stderr are read by threads (line by
    line, with the time each line arrived). Stopped only by its own PID."""

    def __init__(self, cmd, env=None):
        self.cmd = cmd
        self.t0 = time.time()
        self.p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, env=env, text=True,
                                  errors="replace", bufsize=1)
        self.pid = self.p.pid
        self.out = []
        self.err = []
        self.lock = threading.Lock()
        self.threads = [threading.Thread(target=self._read, args=(self.p.stdout, self.out),
                                         daemon=True),
                        threading.Thread(target=self._read, args=(self.p.stderr, self.err),
                                         daemon=True)]
        for t in self.threads:
            t.start()

    def _read(self, stream, into):
        for line in stream:
            with self.lock:
                into.append((time.time(), line))

    def lines(self, which="out"):
        with self.lock:
            return [l for _, l in (self.out if which == "out" else self.err)]

    def text(self, which="out"):
        return "".join(self.lines(which))

    def alive(self):
        return self.p.poll() is None

    def wait_for(self, pred, timeout):
        end = time.time() + timeout
        while time.time() < end:
            if pred():
                return True
            if not self.alive():
                return pred()
            time.sleep(0.05)
        return False

    def stop(self, sig=signal.SIGINT, grace=20.0):
        """SIGINT (clean exit), then SIGKILL after `grace` seconds."""
        if self.alive():
            try:
                os.kill(self.pid, sig)
            except ProcessLookupError:
                pass
        try:
            self.p.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            warn("pid %d did not exit %.0f s after signal %d: SIGKILL" % (self.pid, grace, sig))
            try:
                os.kill(self.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            self.p.wait()
        self.join()
        return self.p.returncode

    def wait(self, timeout):
        try:
            self.p.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            warn("pid %d still running after %.0f s: stopping it" % (self.pid, timeout))
            self.stop()
            return None
        self.join()
        return self.p.returncode

    def join(self):
        for t in self.threads:
            t.join(timeout=5)


# --------------------------------------------------------------------------
# Traffic
# --------------------------------------------------------------------------

class Traffic:
    def __init__(self, args):
        self.benchgen = args.benchgen
        self.dir = args.traffic_dir
        self.packets = args.packets
        self.src_packets = args.src_packets
        self.cache = {}

    def get(self, role, size, flows, queues=1):
        key = (role, size, flows, queues)
        if key in self.cache:
            return self.cache[key]
        os.makedirs(self.dir, exist_ok=True)
        prefix = os.path.join(self.dir, "%s-%d-%s%s" % (role, size, fmt_count(flows),
                                                        "-q%d" % queues if queues > 1 else ""))
        cmd = [sys.executable, self.benchgen, "--role", role, "--flows", str(flows),
               "--size", str(size), "--out", prefix]
        if queues > 1:
            cmd += ["--queues", str(queues)]
        packets = self.src_packets if role == "src" and self.src_packets else self.packets
        if packets:
            cmd += ["--packets", str(packets)]
        t0 = time.time()
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            raise RuntimeError("benchgen failed (%s): %s" % (" ".join(cmd),
                                                              (r.stdout + r.stderr)[-800:]))
        with open(prefix + ".json") as f:
            meta = json.load(f)
        files = []
        for p in meta["files"]:
            if not os.path.isabs(p) and not os.path.exists(p):
                p = os.path.join(os.path.dirname(prefix), os.path.basename(p))
            files.append(os.path.abspath(p))
            if not os.path.exists(files[-1]):
                raise RuntimeError("benchgen's %s names %s, which does not exist" %
                                   (prefix + ".json", p))
        meta["files"] = files
        meta["frames"] = sum(meta["packets"])
        meta["bytes"] = sum(os.path.getsize(p) for p in files)
        dt = time.time() - t0
        if dt > 2:
            log("traffic: %s: %d frames in %d file(s), %.0f MB, generated in %.0f s" %
                (os.path.basename(prefix), meta["frames"], len(files), meta["bytes"] / 1e6, dt))
        self.cache[key] = meta
        return meta


def source_text(meta, role):
    return ("net_pcap infinite_rx replay of %s (%d frames, %s) into port %d, net_null sinks "
            "(no-rx=1) on the other ports" % (meta["description"], meta["frames"],
                                               ", ".join(os.path.basename(f)
                                                         for f in meta["files"]),
                                               RX_PORT[role]))


# --------------------------------------------------------------------------
# Sizing and command lines
# --------------------------------------------------------------------------

def mtu_for(size):
    return MTU_4K if size >= 4096 else 0


def data_room(size):
    """rocetor's mbuf data room (app/ports.c): headroom + max(2048, mtu + 30)."""
    return 128 + max(2048, mtu_for(size) + 14 + 8 + 4 + 4)


def n_mbufs(frames, headroom, rounding="pow2"):
    """net_pcap infinite_rx keeps every frame of the pcap in an mbuf of the
    app's pool for the whole run: frames + what the app needs; pow2: 2^k - 1
    (the mempool's best size), else rounded up to a multiple of 4096, minus 1
    (half the memory, and start-up time, for pcaps just above 2^k frames)."""
    if rounding == "pow2":
        return max(1023, pow2_at_least(frames + headroom) - 1)
    return -(-(frames + headroom) // 4096) * 4096 - 1


def flow_table_size(flows):
    """4 x flows (power of two): the tables are 8-way set associative, and
    at 2 x flows (half full) about 1% of the flows find their bucket full
    (flow_table_full) and go without state."""
    return max(1024, min(16777216, pow2_at_least(4 * flows)))


def mem_mb(mbufs, size, lb=None, flows=0, workers=1):
    b = mbufs * (data_room(size) + MBUF_OVERHEAD)
    if lb in FLOW_LB:
        entries = pow2_at_least(flow_table_size(flows))
        b += entries * (128 + 4) + 64 * workers
    if lb == "conweave":
        b += REORDER_MB * workers * (1 << 20)
    mb = int(math.ceil(b / float(1 << 20))) + SLACK_MB
    return mb + (mb & 1)


def vdevs(meta, role, pcap_name_id=None):
    """Port 0..4: the pcap on RX_PORT[role], net_null sinks elsewhere."""
    rxp = RX_PORT[role]
    out = []
    for port in range(5):
        if port == rxp:
            spec = "net_pcap%d," % port + ",".join("rx_pcap=%s" % f for f in meta["files"])
            spec += ",infinite_rx=1"
        else:
            spec = "net_null%d,no-rx=1" % port
        out += ["--vdev", spec]
    return out


_seq = [0]


def prefix(tag):
    _seq[0] += 1
    return "rtrbench_%s_%d_%d" % (tag, os.getpid(), _seq[0])


def drop_runtime_dir(file_prefix):
    """The EAL leaves /var/run/dpdk/PREFIX (about 2 MB) behind; remove ours
    once the process has exited."""
    base = "/var/run/dpdk" if os.geteuid() == 0 else os.path.join(
        os.environ.get("XDG_RUNTIME_DIR", "/tmp"), "dpdk")
    if file_prefix.startswith("rtrbench_"):
        shutil.rmtree(os.path.join(base, file_prefix), ignore_errors=True)


def eal(file_prefix, mem, workers=1):
    if workers == 1:
        lc = ["-l", "0,1", "--main-lcore", "1"]  # lcore 0 forwards, 1 = main/control
    else:
        lc = ["-l", "0,1"]  # with --main-forwards: both lcores forward
    return lc + ["--file-prefix", file_prefix, "--huge-unlink", "-m", str(mem), "--no-pci",
                 "--log-level", "lib.eal:error"]


def rocetor_config(mode, size, flows, mbufs):
    lb, role = MODES[mode]
    mtu = mtu_for(size)
    lines = ["# rocetor benchmark config: mode %s (%s), %d B, %s flows (tools/bench/run.py)" %
             (mode, MODE_TEXT[mode], size, fmt_count(flows)),
             "switch: {name: bench, id: 1, lb: %s, mbufs: %d}" % (lb, mbufs),
             "ports:"]
    for p in range(5):
        e = "  - {port: %d, role: %s, l2_filter: false" % (p, "host" if p == 0 else "fabric")
        if mtu and p == RX_PORT[role]:
            e += ", mtu: %d" % mtu
        lines.append(e + "}")
    lines += ["routes:",
              '  - {prefix: "10.1.0.0/16", port: 0, nexthop_mac: "%s"}' % NEXTHOP_HOST,
              '  - prefix: "10.2.0.0/16"',
              "    paths:"]
    for i in range(4):
        lines.append('      - {port: %d, nexthop_mac: "%s"}' % (i + 1, NEXTHOP_UP[i]))
    if lb in FLOW_LB:
        lines.append("%s: {flow_table_size: %d}" % (lb, flow_table_size(flows)))
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------
# Runs
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
    if st.get("held_packets", 0) != 0:
        problems.append("held_packets %d at exit" % st["held_packets"])
    if st.get("mempool_in_use", 0) != 0:
        problems.append("mempool_in_use %d at exit" % st["mempool_in_use"])
    if rx != st["forwarded"] + st["consumed"] + st["dropped"]:
        problems.append("rx %d != forwarded + consumed + dropped %d" %
                        (rx, st["forwarded"] + st["consumed"] + st["dropped"]))
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


def run_rocetor(ctx, mode, size, flows, meta, label, workers=1, during=None):
    """One rocetor run; returns a record. `during(proc)` is called once the
    first stats document is out (forwarding has started)."""
    a = ctx.args
    lb, role = MODES[mode]
    rxp = RX_PORT[role]
    mbufs = n_mbufs(meta["frames"], a.mbuf_headroom, a.mbuf_rounding)
    mem = mem_mb(mbufs, size, lb, flows, workers)
    rec = {"kind": "rocetor", "mode": mode, "lb": lb, "role": role, "size": size,
           "flows": flows, "workers": workers, "label": label, "mbufs": mbufs, "mem_mb": mem,
           "mpps": None, "ok": False, "problems": [], "notes": []}
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
    cmd = [a.rocetor] + eal(fp, mem, workers) + vdevs(meta, role) + \
        ["--", "--config", cfg, "--duration", "%g" % run_s, "--stats-interval", "0.5",
         "--stats-json", final]
    if workers > 1:
        cmd.append("--main-forwards")
    rec["cmd"] = " ".join(cmd)
    start_allow = 60 + meta["bytes"] / 40e6 + mem / 1000.0
    rec["loadavg"] = open("/proc/loadavg").read().split()[:3]
    with bench_lock():
        t0 = time.time()
        p = Proc(cmd)
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
            drop_runtime_dir(fp)
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
            exp = meta["per_pass"].get("reorder_held", 0) / float(meta["frames"])
            got = lbc.get("reorder_held", 0) / float(rec["rx_total"])
            rec["reorder_held_per_pkt"] = got
            rec["reorder_held_expected"] = exp
            if exp > 0 and got < 0.5 * exp:
                rec["notes"].append("reorder_held %.3f/pkt, pcap implies %.3f" % (got, exp))
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


def run_testpmd(ctx, fwd, size, flows, meta, role, label):
    a = ctx.args
    rxp = RX_PORT[role]
    mbufs = n_mbufs(meta["frames"], a.mbuf_headroom, a.mbuf_rounding)
    mem = mem_mb(mbufs, size)
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
        cmd += ["--mbuf-size=%d" % data_room(size), "--max-pkt-len=%d" % (MTU_4K + 18)]
    rec["cmd"] = " ".join(cmd)
    start_allow = 60 + meta["bytes"] / 40e6 + mem / 1000.0
    rec["loadavg"] = open("/proc/loadavg").read().split()[:3]
    with bench_lock():
        t0 = time.time()
        p = Proc(cmd)
        ctx.current = p
        try:
            # the first sample of each port is 0 (no previous one); keep nsamp after it
            got = p.wait_for(lambda: len(testpmd_samples(p.lines(), rxp)) >= 1 + nsamp,
                             start_allow + nsamp + 5)
            t1 = time.time()
            rc = p.stop()
            rec["measure_s"] = round(t1 - t0, 2)
            rec["stop_s"] = round(time.time() - t1, 2)
        finally:
            if p.alive():
                p.stop()
            ctx.current = None
            drop_runtime_dir(fp)
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
# --------------------------------------------------------------------------

class Ctx:
    def __init__(self, args):
        self.args = args
        self.traffic = Traffic(args)
        self.current = None
        self.unavailable = {}  # mode -> why (rocetor exits 2: not in this build)
        self.records = []
        self.t_start = time.time()
        self.done_runs = 0
        self.planned_runs = 0

    def progress(self, rec, what):
        self.done_runs += 1
        el = time.time() - self.t_start
        extra = []
        if rec.get("stage_cycles"):
            extra.append("%.0f busy cyc/pkt" % rec.get("busy_cycles_per_packet", 0))
        if rec["notes"]:
            extra.append("; ".join(rec["notes"]))
        if rec["problems"]:
            extra.append("PROBLEM: " + "; ".join(rec["problems"]))
        log("  [%d/%d %s] %s: %s Mpps%s" % (
            self.done_runs, self.planned_runs, time.strftime("%H:%M:%S", time.gmtime(el)),
            what, fnum(rec["mpps"]), (" (" + ", ".join(extra) + ")") if extra else ""))


def testpmd_available(args):
    return args.testpmd and os.path.isfile(args.testpmd) and os.access(args.testpmd, os.X_OK)


def run_matrix(ctx):
    a = ctx.args
    roles = []
    for m in a.modes:
        if MODES[m][1] not in roles:
            roles.append(MODES[m][1])
    groups = [(s, f) for s in a.sizes for f in a.flows]
    tp = a.testpmd_modes if testpmd_available(a) else []
    sources = {}
    for gi, (size, flows) in enumerate(groups):
        log("")
        log("== size %d, %s flows ==" % (size, fmt_count(flows)))
        metas = {}
        for role in roles:
            metas[role] = ctx.traffic.get(role, size, flows)
            sources["%s %d %s" % (role, size, fmt_count(flows))] = source_text(metas[role], role)
            log("traffic (%s): %s" % (role, source_text(metas[role], role)))
        for r in range(1, a.runs + 1):
            for role in roles:
                for fwd in (tp if role == "src" or a.dst_baseline == "own" else []):
                    rec = run_testpmd(ctx, fwd, size, flows, metas[role], role,
                                      "testpmd-%s-%s-%d-%s-r%d" % (fwd, role, size,
                                                                   fmt_count(flows), r))
                    rec["round"] = r
                    ctx.records.append(rec)
                    ctx.progress(rec, "round %d testpmd %s (%s setup)" % (r, fwd, role))
                for mode in a.modes:
                    if MODES[mode][1] != role or mode in ctx.unavailable:
                        continue
                    rec = run_rocetor(ctx, mode, size, flows, metas[role],
                                      "%s-%d-%s-r%d" % (mode, size, fmt_count(flows), r))
                    rec["round"] = r
                    if rec.get("unavailable"):
                        ctx.unavailable[mode] = err_tail(rec.get("stderr_tail", ""), "", 1)
                        log("  %s: not available in this build, skipped from now on (%s)" %
                            (mode, ctx.unavailable[mode]))
                        ctx.planned_runs -= (a.runs - r + 1) + (len(groups) - gi - 1) * a.runs
                        continue
                    ctx.records.append(rec)
                    ctx.progress(rec, "round %d %s" % (r, mode))
    return sources


def summarise(ctx):
    a = ctx.args
    rows = []
    recs = [r for r in ctx.records if r.get("round")]
    groups = []
    for r in recs:
        g = (r["size"], r["flows"])
        if g not in groups:
            groups.append(g)
    for size, flows in groups:
        g = [r for r in recs if r["size"] == size and r["flows"] == flows]
        tpx = {}
        for r in g:
            if r["kind"] == "testpmd" and r["mpps"]:
                tpx[(r["fwd"], r["role"], r["round"])] = r["mpps"]
        names = []
        for r in g:
            key = (r["mode"], r["role"])
            if key not in names:
                names.append(key)
        # testpmd rows first, then the modes in the order asked
        names.sort(key=lambda k: (0 if k[0].startswith("testpmd") else 1,
                                  a.modes.index(k[0]) if k[0] in a.modes else 0))
        for mode, role in names:
            rs = [r for r in g if r["mode"] == mode and r["role"] == role]
            mp = [r["mpps"] for r in rs if r["mpps"]]
            row = {"size": size, "flows": flows, "mode": mode, "role": role,
                   "kind": rs[0]["kind"], "runs": len(rs), "good_runs": len(mp),
                   "sane_runs": sum(1 for r in rs if r["ok"]),
                   "mpps": median(mp), "mpps_min": min(mp) if mp else None,
                   "mpps_max": max(mp) if mp else None, "mpps_all": [r["mpps"] for r in rs]}
            base = role if a.dst_baseline == "own" else "src"
            for fwd in TESTPMD_MODES:
                ratios = [r["mpps"] / tpx[(fwd, base, r["round"])] for r in rs
                          if r["mpps"] and (fwd, base, r["round"]) in tpx]
                row["ratio_" + fwd] = median(ratios)
                row["ratios_" + fwd] = ratios
            if rs[0]["kind"] == "rocetor":
                sc = {}
                for st in STAGES + sorted({k for r in rs for k in r.get("stage_cycles", {})
                                           if k not in STAGES and k != "sampled_packets"}):
                    v = median([r.get("stage_cycles", {}).get(st) for r in rs])
                    if v is not None:
                        sc[st] = v
                row["stage_cycles"] = sc
                row["busy_cycles_per_packet"] = median(
                    [r.get("busy_cycles_per_packet") for r in rs])
                if row["mpps"] and ctx.tsc:
                    row["ns_per_packet_wall"] = 1000.0 / row["mpps"]
                    row["cycles_per_packet_wall"] = ctx.tsc / (row["mpps"] * 1e6)
                held = median([r.get("reorder_held_per_pkt") for r in rs])
                if held is not None:
                    row["reorder_held_per_pkt"] = held
                    row["reorder_held_expected"] = rs[0].get("reorder_held_expected")
                row["handoff_tx"] = sum(r.get("handoff_tx", 0) for r in rs)
            row["warnings"] = merge_notes(rs)
            rows.append(row)
    return rows


def merge_notes(rs):
    """Notes and problems of a row's runs, once each: the same text with other
    figures becomes "TEXT (k/n runs, max X)"."""
    seen = {}
    for r in rs:
        for n in r["notes"] + r["problems"]:
            key = re.sub(r"\d+(\.\d+)?", "#", n)
            m = re.search(r"\d+(\.\d+)?", n)
            v = float(m.group(0)) if m else None
            e = seen.setdefault(key, {"text": n, "runs": set(), "max": v, "maxtext": n})
            e["runs"].add(r["label"])
            if v is not None and e["max"] is not None and v > e["max"]:
                e["max"], e["maxtext"] = v, n
    out = []
    for key, e in seen.items():
        k = len(e["runs"])
        if k == 1 and len(rs) == 1:
            out.append(e["text"])
        else:
            out.append("%s (%d/%d runs%s)" % (e["maxtext"], k, len(rs),
                                              ", the largest shown" if "#" in key else ""))
    return out


def scaling(ctx):
    """ECMP and ConWeave SrcToR at 1024 B, 1K flows: 1 worker vs 2 (--main-forwards:
    both lcores forward), alternated; Mpps summed over the pcap port's RX."""
    a = ctx.args
    size, flows = 1024, 1000
    res = {"size": size, "flows": flows, "modes": {}}
    m1 = ctx.traffic.get("src", size, flows, 1)
    m2 = ctx.traffic.get("src", size, flows, 2)
    res["source_1"] = source_text(m1, "src")
    res["source_2"] = source_text(m2, "src") + " (two RX queues, one pcap each)"
    log("")
    log("== scaling: 1 vs 2 workers, %d B, %s flows ==" % (size, fmt_count(flows)))
    log("traffic: 1 worker: %s" % res["source_1"])
    log("traffic: 2 workers: %s" % res["source_2"])
    available = True
    runs = {}
    for mode in a.scaling_modes:
        res["modes"][mode] = {"w1": [], "w2": [], "ratios": []}
    for r in range(1, a.runs + 1):
        for mode in a.scaling_modes:
            e = res["modes"][mode]
            r1 = run_rocetor(ctx, mode, size, flows, m1, "scale-%s-w1-r%d" % (mode, r))
            r1["section"] = "scaling"
            r1["scaling_round"] = r
            ctx.records.append(r1)
            ctx.progress(r1, "scaling round %d %s 1 worker" % (r, mode))
            e["w1"].append(r1["mpps"])
            if not available:
                continue
            r2 = run_rocetor(ctx, mode, size, flows, m2, "scale-%s-w2-r%d" % (mode, r),
                             workers=2)
            r2["section"] = "scaling"
            r2["scaling_round"] = r
            ctx.records.append(r2)
            ctx.progress(r2, "scaling round %d %s 2 workers" % (r, mode))
            if r2.get("unsupported"):
                available = False
                res["available"] = False
                res["why"] = "rocetor has no --main-forwards: " + r2["problems"][0]
                log("scaling: not available (%s)" % res["why"])
                continue
            e["w2"].append(r2["mpps"])
            e.setdefault("handoff_tx", []).append(r2.get("handoff_tx"))
            runs.setdefault(mode, ([], []))
            runs[mode][0].append(r1)
            runs[mode][1].append(r2)
            if r1["mpps"] and r2["mpps"]:
                e["ratios"].append(r2["mpps"] / r1["mpps"])
    res.setdefault("available", True)
    for mode, (w1, w2) in runs.items():
        res["modes"][mode]["warnings"] = (["1 worker: " + x for x in merge_notes(w1)] +
                                          ["2 workers: " + x for x in merge_notes(w2)])
    for mode, e in res["modes"].items():
        e["w1_median"] = median(e["w1"])
        e["w2_median"] = median(e["w2"])
        e["ratio_median"] = median(e["ratios"])
    return res


# ---- data-path check -----------------------------------------------------

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
# --------------------------------------------------------------------------

def md_table(ctx, rows):
    stages = [s for s in STAGES if any(s in r.get("stage_cycles", {}) for r in rows)]
    hdr = ["size", "flows", "mode", "Mpps/core", "min-max", "x 5tswap", "x macswap"] + \
        ["%s cyc" % s for s in (stages or ["stage"])] + ["busy cyc", "ns/pkt", "warnings"]
    out = ["| " + " | ".join(hdr) + " |", "|" + "---|" * len(hdr)]
    for r in rows:
        sc = r.get("stage_cycles", {})
        name = r["mode"] if r["kind"] == "rocetor" else "%s (%s)" % (r["mode"], r["role"])
        cells = [str(r["size"]), fmt_count(r["flows"]), name,
                 "**%s**" % fnum(r["mpps"]) if r["kind"] == "rocetor" else fnum(r["mpps"]),
                 "%s-%s" % (fnum(r["mpps_min"]), fnum(r["mpps_max"])) if r["mpps"] else "-",
                 fnum(r.get("ratio_5tswap"), "%.2f") if r["kind"] == "rocetor" else "-",
                 fnum(r.get("ratio_macswap"), "%.2f") if r["kind"] == "rocetor" else "-"]
        cells += [fnum(sc.get(s), "%.0f") for s in (stages or ["-"])]
        cells += [fnum(r.get("busy_cycles_per_packet"), "%.0f"),
                  fnum(r.get("ns_per_packet_wall"), "%.1f") if r["kind"] == "rocetor" else
                  fnum(1000.0 / r["mpps"] if r["mpps"] else None, "%.1f")]
        w = list(r["warnings"])
        if r["good_runs"] < r["runs"]:
            w.insert(0, "%d of %d runs measured" % (r["good_runs"], r["runs"]))
        if r.get("reorder_held_per_pkt") is not None:
            w.append("reorder_held %.3f/pkt (pcap: %s)" % (
                r["reorder_held_per_pkt"], fnum(r.get("reorder_held_expected"), "%.3f")))
        cells.append("; ".join(w)[:160] if w else "")
        out.append("| " + " | ".join(cells) + " |")
    return "\n".join(out)


def write_outputs(ctx, rows, sources, scale, dp, elapsed):
    a = ctx.args
    os.makedirs(a.out, exist_ok=True)
    meta = ctx.meta
    meta["elapsed_s"] = round(elapsed, 1)
    meta["unavailable_modes"] = ctx.unavailable
    doc = {"meta": meta, "sources": sources, "summary": rows, "scaling": scale,
           "datapath": dp, "runs": ctx.records}
    jpath = os.path.join(a.out, "results.json")
    with open(jpath, "w") as f:
        json.dump(doc, f, indent=1, default=str)
        f.write("\n")
    # CSV: one row per (size, flows, mode)
    cpath = os.path.join(a.out, "results.csv")
    with open(cpath, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["size", "flows", "mode", "role", "runs", "good_runs", "sane_runs",
                    "mpps_median", "mpps_min", "mpps_max", "ratio_5tswap", "ratio_macswap"] +
                   ["cycles_" + s for s in STAGES] + ["busy_cycles_per_packet",
                                                      "ns_per_packet", "warnings"])
        for r in rows:
            sc = r.get("stage_cycles", {})
            w.writerow([r["size"], r["flows"], r["mode"], r["role"], r["runs"], r["good_runs"],
                        r["sane_runs"], fnum(r["mpps"], "%.4f", ""),
                        fnum(r["mpps_min"], "%.4f", ""), fnum(r["mpps_max"], "%.4f", ""),
                        fnum(r.get("ratio_5tswap"), "%.4f", ""),
                        fnum(r.get("ratio_macswap"), "%.4f", "")] +
                       [fnum(sc.get(s), "%.1f", "") for s in STAGES] +
                       [fnum(r.get("busy_cycles_per_packet"), "%.1f", ""),
                        fnum(1000.0 / r["mpps"] if r["mpps"] else None, "%.2f", ""),
                        "; ".join(r["warnings"])])
    text = report_text(ctx, rows, sources, scale, dp, elapsed)
    mpath = os.path.join(a.out, "results.md")
    with open(mpath, "w") as f:
        f.write(text)
    ppath = None
    if any(r["mpps"] for r in rows) and not a.no_plot:
        ppath = plot(ctx, rows)
    return jpath, mpath, cpath, ppath, text


def report_text(ctx, rows, sources, scale, dp, elapsed):
    a = ctx.args
    m = ctx.meta
    L = ["# rocetor benchmark results", ""]
    L.append("- date: %s; host: %s, %s, %d CPUs, kernel %s" % (
        m["date"], m["host"], m["cpu"], m["cpus"], m["kernel"]))
    L.append("- rocetor: %s (checkout %s; ran a copy, sha256 %s); testpmd: %s" % (
        m["rocetor"], m["git"], m["rocetor_sha256"][:12], m["testpmd"]))
    L.append("- TSC: %s Hz (%s); cycles are TSC cycles per packet (ns = cycles / %.3f)" % (
        fnum(m["tsc_hz"], "%.0f"), m["tsc_source"], (m["tsc_hz"] or 1e9) / 1e9))
    L.append("- method: %d round(s) per (size, flows) group, each round testpmd %s then every "
             "mode, %g s measured after %g s warm-up; Mpps = delta rx_packets of the "
             "receiving port / delta uptime between stats documents (testpmd: median of "
             "its Rx-pps samples after the first); one forwarding lcore (-l 0,1 "
             "--main-lcore 1), hugepages (--huge-unlink); ratio = median over rounds of "
             "mode / testpmd of the same round (conweave-dst: testpmd on %s)" % (
                 a.runs, "/".join(m["testpmd_modes"]) or "(none)", a.duration, a.warmup,
                 "the DstToR port setup and pcap" if m.get("dst_baseline", "own") == "own"
                 else "the role-src setup (--dst-baseline src)"))
    for mode, why in ctx.unavailable.items():
        L.append("- %s: not available in this build (%s)" % (mode, why))
    L.append("- elapsed: %.0f s" % elapsed)
    L.append("")
    if sources:
        L.append("Traffic:")
        L.append("")
        for k, v in sources.items():
            L.append("- %s: %s" % (k, v))
        L.append("")
    if rows:
        L.append("Stage columns: cycles per packet in each pipeline stage (rocetor's "
                 "`stage_cycles`, sampled, last stats document; median over rounds); busy "
                 "cyc = `busy_cycles_per_packet`; ns/pkt = 1000 / Mpps (wall time per "
                 "packet on the core); `-` = not reported by this build.")
        L.append("")
        L.append(md_table(ctx, rows))
        L.append("")
    if scale:
        L.append("## Scaling: 1 vs 2 workers (%d B, %s flows)" % (
            scale["size"], fmt_count(scale["flows"])))
        L.append("")
        if not scale.get("available", True):
            L.append("Not available: %s" % scale.get("why"))
        else:
            L.append("2 workers: `-l 0,1 ... --main-forwards` (both lcores forward), two RX "
                     "queues on the pcap port (one pcap each); Mpps summed over the pcap "
                     "port's RX queues.")
            L.append("")
            L.append("| mode | 1 worker Mpps | 2 workers Mpps | ratio (median per round) | "
                     "hand-offs per run (2 workers) | warnings |")
            L.append("|---|---|---|---|---|---|")
            for mode, e in scale["modes"].items():
                L.append("| %s | %s | %s | %s | %s | %s |" % (
                    mode, fnum(e["w1_median"]), fnum(e["w2_median"]),
                    fnum(e["ratio_median"]),
                    fnum(median(e.get("handoff_tx", [])), "%.0f"),
                    "; ".join(e.get("warnings", []))[:200]))
        L.append("")
    if dp:
        L.append("## Data path: syscalls, allocations, locks (%s, %g s per mode)" % (
            dp.get("method"), dp["seconds"]))
        L.append("")
        if dp["errors"]:
            for e in dp["errors"]:
                L.append("- problem: %s" % e)
            L.append("")
        evs = []
        for mode, e in dp["modes"].items():
            for t in e["threads"]:
                for k in t["counts"]:
                    if k not in evs:
                        evs.append(k)
        short = [re.sub(r"^[^:]*:", "", k) for k in evs]
        L.append("| mode | thread | tid | role | " + " | ".join(short) + " |")
        L.append("|---|---|---|---|" + "---|" * len(evs))
        for mode, e in dp["modes"].items():
            for t in e["threads"]:
                L.append("| %s | %s | %d | %s | %s |" % (
                    mode, t["comm"], t["tid"], t["role"],
                    " | ".join(cnt(t["counts"].get(k)) for k in evs)))
        L.append("")
        if (dp.get("method") or "").startswith("perf"):
            L.append("nc = perf's \"not counted\": the thread did not run while counting. "
                     "The counters work: the main (control) thread's own syscalls and "
                     "allocations (it prints the stats documents) are counted.")
        else:
            L.append("strace counts one line for a thread blocked in a call when it attached.")
        for mode, e in dp["modes"].items():
            L.append("")
            L.append("- %s: forwarding thread total %s events while forwarding %s Mpps" % (
                mode, cnt(e.get("worker_total")), fnum(e.get("mpps"))))
        L.append("")
    return "\n".join(L) + "\n"


def cnt(v):
    if v is None:
        return "-"
    return v if isinstance(v, str) else "%d" % v


def ensure_matplotlib(a):
    try:
        __import__("matplotlib")
        return True
    except ImportError:
        pass
    if a.no_install or os.geteuid() != 0 or not shutil.which("apt-get"):
        warn("python3-matplotlib missing: no plot (apt-get install python3-matplotlib)")
        return False
    log("plot: installing python3-matplotlib with apt-get")
    r = subprocess.run(["apt-get", "install", "-y", "-q", "python3-matplotlib"],
                       capture_output=True, text=True)
    if r.returncode != 0:
        subprocess.run(["apt-get", "update", "-q"], capture_output=True)
        r = subprocess.run(["apt-get", "install", "-y", "-q", "python3-matplotlib"],
                           capture_output=True, text=True)
    try:
        __import__("matplotlib")
        return True
    except ImportError:
        warn("could not install python3-matplotlib: %s" % r.stderr[-300:])
        return False


def plot(ctx, rows):
    a = ctx.args
    if not ensure_matplotlib(a):
        return None
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    sizes = sorted({r["size"] for r in rows})
    fig, axes = plt.subplots(1, len(sizes), figsize=(5.2 * len(sizes), 5.0), squeeze=False)
    for ax, size in zip(axes[0], sizes):
        names = []
        for r in rows:
            if r["size"] == size and (r["mode"], r["role"]) not in names:
                names.append((r["mode"], r["role"]))
        for mode, role in names:
            pts = sorted((r["flows"], r["mpps"]) for r in rows
                         if r["size"] == size and r["mode"] == mode and r["role"] == role
                         and r["mpps"])
            if not pts:
                continue
            tp = mode.startswith("testpmd")
            lab = "%s (%s)" % (mode, role) if tp else mode
            ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o",
                    linestyle="--" if tp else "-", linewidth=1 if tp else 2, label=lab)
        ax.set_xscale("log")
        ax.set_title("%d B %s" % (size, "frames" if size == 64 else "payload"))
        ax.set_xlabel("flows")
        ax.set_ylabel("Mpps per core (median)")
        ax.set_ylim(bottom=0)
        ax.grid(True, alpha=0.3)
    handles, labels = [], []
    for ax in axes[0]:
        for h, lab in zip(*ax.get_legend_handles_labels()):
            if lab not in labels:
                handles.append(h)
                labels.append(lab)
    fig.suptitle("rocetor: Mpps vs flows, one line per mode (%s)" % ctx.meta["date"][:10])
    fig.legend(handles, labels, loc="lower center", ncol=min(5, len(labels)), fontsize=8,
               frameon=False)
    fig.tight_layout(rect=(0, 0.06 * ((len(labels) + 4) // 5), 1, 1))
    path = os.path.join(a.out, "mpps-vs-flows.png")
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


# --------------------------------------------------------------------------
# Main
# --------------------------------------------------------------------------

def parse_args(argv):
    p = argparse.ArgumentParser(
        prog="run.py", description="rocetor benchmark suite (doc/benchmarks.md)",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--modes", default=",".join(DEFAULT_MODES),
                   help="comma list of %s, or all (default: %s)" %
                   (", ".join(MODES), ",".join(DEFAULT_MODES)))
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
                   "testpmd 5tswap only, -m <= 512 per process")
    p.add_argument("--scaling", action="store_true",
                   help="also: 1 vs 2 workers, ecmp and conweave-src, 1024 B, 1K flows")
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
    p.add_argument("--rocetor", default=os.environ.get("ROCETOR") or os.path.join(
        os.environ.get("ROCETOR_BUILD") or os.path.join(SRC, "build"), "app", "rocetor"))
    p.add_argument("--testpmd", default=shutil.which("dpdk-testpmd") or "/usr/bin/dpdk-testpmd")
    p.add_argument("--benchgen", default=os.environ.get("BENCHGEN",
                                                        os.path.join(HERE, "benchgen.py")))
    p.add_argument("--mbuf-headroom", type=int, default=65536,
                   help="mbufs beyond the pcap's frames (default 65536; pool = 2^k - 1)")
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
    a = p.parse_args(argv)
    if a.smoke:
        a.modes = "ecmp,conweave-src"
        a.sizes = "1024"
        a.flows = "1K"
        a.runs = 1
        a.duration = 1.0
        a.warmup = 0.5
        a.testpmd_modes = "5tswap"
        a.mbuf_headroom = min(a.mbuf_headroom, 49152)
        a.packets = a.packets or 16000  # 16 per flow: the pool stays at 2^16 - 1 mbufs
        a.max_mem = a.max_mem or 512
        a.no_install = True
    a.modes = list(MODES) if a.modes == "all" else [m.strip() for m in a.modes.split(",")
                                                     if m.strip()]
    for m in a.modes:
        if m not in MODES:
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
    a.scaling_modes = ["ecmp", "conweave-src"]
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
            plan += [(m, 1024, 1000, 1, 1), (m, 1024, 1000, 2, 2)]
    if a.check_datapath:
        plan += [("ecmp", 1024, 1000, 1, 1), ("conweave-src", 1024, 1000, 1, 1)]
    for m, s, f, q, w in plan:
        lb, role = MODES[m]
        meta = ctx.traffic.get(role, s, f, q)
        mb = n_mbufs(meta["frames"], a.mbuf_headroom, a.mbuf_rounding)
        big = max(big, mem_mb(mb, s, lb, f, w))
    return big


def rerender(a):
    """--rerender FILE: the report, CSV and plot again from a results.json."""
    with open(a.rerender) as f:
        doc = json.load(f)
    m = doc["meta"]
    a.modes = m["modes"]
    a.runs, a.duration, a.warmup = m["runs"], m["duration_s"], m["warmup_s"]
    a.testpmd_modes = m["testpmd_modes"]
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


def main(argv=None):
    # Debian's python3 (python3-matplotlib for the plot), whatever python3
    # the caller's PATH had
    deb = "/usr/bin/python3"
    if os.path.exists(deb) and os.path.realpath(sys.executable) != os.path.realpath(deb) \
            and not os.environ.get("RTRBENCH_NO_REEXEC"):
        os.environ["RTRBENCH_NO_REEXEC"] = "1"
        os.execv(deb, [deb, os.path.abspath(__file__)] +
                 (sys.argv[1:] if argv is None else list(argv)))
    a = parse_args(argv)
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
    if a.testpmd_modes and not testpmd_available(a):
        log("dpdk-testpmd not found (%s): no testpmd comparison" % a.testpmd)
        a.testpmd_modes = []
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
                "tsc_source": tsc_src, "modes": a.modes, "sizes": a.sizes, "flows": a.flows,
                "runs": a.runs, "duration_s": a.duration, "warmup_s": a.warmup,
                "dst_baseline": a.dst_baseline,
                "argv": sys.argv[1:], "lock": LOCK}
    log("rocetor benchmark: modes %s; sizes %s; flows %s; %d round(s) x %g s (+%g s warm-up); "
        "testpmd %s; out %s" % (",".join(a.modes), ",".join(map(str, a.sizes)),
                                ",".join(fmt_count(f) for f in a.flows), a.runs, a.duration,
                                a.warmup, "/".join(a.testpmd_modes) or "none", a.out))
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
                len(a.testpmd_modes))
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


if __name__ == "__main__":
    sys.exit(main())

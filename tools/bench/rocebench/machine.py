# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The rocetor authors
"""The machine around the runs: the benchmark lock, hugepages and the TSC
frequency (the child processes are rtrpy.dpdk.Proc)."""

import contextlib
import errno
import fcntl
import math
import os
import re
import subprocess
import time

from .common import LOCK, log, warn


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

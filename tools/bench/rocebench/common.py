# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The rocetor authors
"""Small helpers every part of the runner uses: logging, counts, medians,
the checkout's paths and the benchmark lock's name."""

import os
import statistics
import sys


HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # tools/bench
SRC = os.path.normpath(os.path.join(HERE, "..", ".."))
LOCK = "/tmp/rocetor-bench.lock"


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


def thread_cpu_ns(pid):
    """{tid: ns on a CPU} of every thread of pid (/proc schedstat): the
    forwarding thread is the one that gained most over a window."""
    out = {}
    try:
        tids = os.listdir("/proc/%d/task" % pid)
    except OSError:
        return out
    for t in tids:
        try:
            with open("/proc/%d/task/%s/schedstat" % (pid, t)) as f:
                out[t] = int(f.read().split()[0])
        except (OSError, ValueError, IndexError):
            pass
    return out


def oncpu(c0, c1, window_s, packets, tsc):
    """(on-CPU TSC cycles per packet, share of the window on a CPU) of the
    busiest thread between two thread_cpu_ns samples; (None, None) when
    nothing can be said."""
    gains = [c1[t] - c0[t] for t in c1 if t in c0]
    if not gains or max(gains) <= 0 or window_s <= 0:
        return None, None
    busy_s = max(gains) / 1e9
    cyc = busy_s * tsc / packets if packets > 0 and tsc else None
    return cyc, busy_s / window_s

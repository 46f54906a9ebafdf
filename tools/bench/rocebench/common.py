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

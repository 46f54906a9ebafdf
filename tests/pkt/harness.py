# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The rocetor authors
"""Run rocetor on net_pcap ports, hand it frames, collect what came out.

Every port is a net_pcap vdev with its own rx_pcap (the frames the test
injects, possibly none) and tx_pcap (what rocetor sent). rocetor runs with
--exit-on-idle so it stops once the inputs are consumed, and writes its
stats document, which the tests check for exact accounting.
"""
import json
import os
import shutil  # noqa: F401  (tests use harness.shutil)
import subprocess
import sys
import tempfile

# tools/: rocegen and rtrpy, the helpers shared with tools/bench and
# tools/soak.py (the DPDK process runner, the accounting rule, pcaps,
# telemetry).
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools"))
import rocegen  # noqa: E402,F401  (tests use harness.rocegen)
from rtrpy import dpdk, pcap  # noqa: E402
from rtrpy.env import HOGGED, SANITIZED, hogged, sanitized  # noqa: E402,F401
from rtrpy.stats import accounted  # noqa: E402,F401
from rtrpy.telemetry import Telemetry, telemetry_socket  # noqa: E402,F401

# What the tests use, the helpers of tools/ among them (re-exported).
__all__ = ["SRC_ROOT", "ROCETOR", "eal_prefix", "write_pcap", "read_pcap_ts", "read_pcap",
           "Result", "run", "interrupt", "telemetry", "Checker", "dpdk", "pcap", "rocegen",
           "shutil", "HOGGED", "SANITIZED", "hogged", "sanitized", "accounted", "Telemetry",
           "telemetry_socket"]

# meson test sets ROCETOR (and ROCETOR_BUILD) to the binary of the build
# directory it runs in (build/, build-san/, ...); run by hand, a test takes
# $ROCETOR_BUILD/app/rocetor, else build/ of this checkout.
SRC_ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
ROCETOR = os.environ.get("ROCETOR") or os.path.join(
    os.environ.get("ROCETOR_BUILD") or os.path.join(SRC_ROOT, "build"), "app", "rocetor")


def eal_prefix(tag):
    """A unique EAL --file-prefix (rtr_TAG_PID_N)."""
    return dpdk.file_prefix(tag)


def write_pcap(path, frames):
    """frames: list of bytes or scapy packets (may be empty)."""
    pcap.write_pcap(path, [bytes(f) for f in frames])


def read_pcap_ts(path):
    """(time in seconds, frame bytes) of every frame of a classic pcap
    (net_pcap writes nanosecond TX timestamps); [] if there is none."""
    return pcap.read_output(path)


def read_pcap(path):
    return [f for _, f in read_pcap_ts(path)]


class Result:
    def __init__(self, rc, stdout, stderr, stats, outputs_ts, workdir):
        self.rc = rc
        self.stdout = stdout
        self.stderr = stderr
        self.stats = stats
        # port index -> list of frames (bytes), queue by queue
        self.outputs = [[f for _, f in port] for port in outputs_ts]
        # port index -> list of (TX time, frame), in time order
        self.outputs_ts = [sorted(port, key=lambda x: x[0]) for port in outputs_ts]
        self.workdir = workdir

    def drops(self, reason):
        return self.stats["drops"][reason]

    def port(self, p):
        for e in self.stats["ports"]:
            if e["port"] == p:
                return e
        raise KeyError(p)


def run(config_text, inputs, tag="pkt", lcores="0", args=(), idle_ms=400,
        timeout=120, keep=False, ext="yaml", env=None, huge=False, queues=1, rxq=None):
    """inputs: list (one per port, in port order) of frame lists. rxq: a
    function (port, frame bytes) -> RX queue, a fake NIC's RSS; by default
    the frames are dealt round-robin over the queues."""
    work = tempfile.mkdtemp(prefix="rocetor-%s-" % tag)
    cfg = os.path.join(work, "switch." + ext)
    with open(cfg, "w") as f:
        f.write(config_text)
    # "0-2" needs 3 CPUs; "0@0,1@1,2@1" maps 3 lcores onto this 2-core machine.
    eal = [ROCETOR, "--lcores" if "@" in lcores else "-l", lcores, "--no-pci", "--file-prefix", eal_prefix(tag),
           "--log-level", "lib.eal:error"]
    eal += ["--huge-unlink", "-m", "512"] if huge else ["--no-huge", "-m", "1024"]
    for i, frames in enumerate(inputs):
        # queues > 1: one rx_pcap/tx_pcap pair per queue; the input frames
        # are dealt round-robin over the RX queues.
        vdev = "net_pcap%d" % i
        for q in range(queues):
            rx = os.path.join(work, "in%d_%d.pcap" % (i, q))
            tx = os.path.join(work, "out%d_%d.pcap" % (i, q))
            if rxq is None:
                write_pcap(rx, frames[q::queues])
            else:
                write_pcap(rx, [f for f in frames if rxq(i, bytes(f)) == q])
            vdev += ",rx_pcap=%s,tx_pcap=%s" % (rx, tx)
        eal += ["--vdev", vdev]
    stats_path = os.path.join(work, "stats.json")
    cmd = eal + ["--", "--config", cfg, "--exit-on-idle", str(idle_ms),
                 "--stats-json", stats_path] + list(args)
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                       env=env)
    stats = None
    if os.path.exists(stats_path):
        with open(stats_path) as f:
            stats = json.load(f)
    outputs_ts = [sum((read_pcap_ts(os.path.join(work, "out%d_%d.pcap" % (i, q)))
                       for q in range(queues)), [])
                  for i in range(len(inputs))]
    res = Result(p.returncode, p.stdout, p.stderr, stats, outputs_ts, work)
    if not keep:
        shutil.rmtree(work, ignore_errors=True)
    return res


def interrupt(proc, timeout=30):
    """SIGINT to our own child, wait (SIGKILL after timeout); returns
    (stdout, stderr). proc.returncode is then set."""
    return dpdk.interrupt(proc, timeout)


def telemetry(prefix, commands, timeout=20):
    """Ask a running rocetor (EAL --file-prefix prefix) the telemetry
    commands (list of strings) through dpdk-telemetry.py; returns
    {command path: reply} for the replies that parsed ("/x,1" answers
    under "/x")."""
    replies = {}
    q = subprocess.run(["/usr/bin/dpdk-telemetry.py", "-f", prefix],
                       input="".join(c + "\n" for c in commands), capture_output=True,
                       text=True, timeout=timeout)
    for line in q.stdout.splitlines():
        line = line.strip()
        if line.startswith("{") and line.endswith("}"):
            try:
                replies.update(json.loads(line))
            except ValueError:
                continue
    return replies


class Checker:
    """CHECK-style assertions that report every failure, like rtr_test.h."""

    def __init__(self, name):
        self.name = name
        self.passed = 0
        self.failed = 0

    def check(self, cond, msg=""):
        if cond:
            self.passed += 1
        else:
            self.failed += 1
            caller = sys._getframe(1)
            print("FAIL %s:%d: %s" % (os.path.basename(caller.f_code.co_filename),
                                      caller.f_lineno, msg), file=sys.stderr)
        return cond

    def eq(self, a, b, msg=""):
        return self.check(a == b, "%r != %r %s" % (a, b, msg))

    def json_file(self, path, what=None):
        """The JSON document in path, or None after a failed check that
        names it (what, else the path) and why it could not be read."""
        try:
            with open(path) as f:
                return json.load(f)
        except (OSError, ValueError) as e:
            self.failed += 1
            caller = sys._getframe(1)
            print("FAIL %s:%d: %s: %s" % (os.path.basename(caller.f_code.co_filename),
                                          caller.f_lineno, what or path, e), file=sys.stderr)
            return None

    def done(self):
        print("%s: %d passed, %d failed" % (self.name, self.passed, self.failed))
        return 0 if self.failed == 0 and self.passed > 0 else 1

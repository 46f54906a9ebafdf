#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The rocetor authors
"""The traffic generator (tools/rocegen.py, no scapy) checked by the scapy
oracle (tools/rocecheck.py): every generated RoCE packet has a valid ICRC
and IPv4 checksum, in every mode; the real capture checks clean; a corrupted
packet is caught (the oracle can fail)."""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
import harness  # noqa: E402
from test_capture import CAPTURE  # noqa: E402

SRC = os.environ.get("ROCETOR_SRC", os.path.join(os.path.dirname(__file__), "..", ".."))
PY = "/usr/bin/python3"
GEN = os.path.join(SRC, "tools", "rocegen.py")
CHECK = os.path.join(SRC, "tools", "rocecheck.py")
WORKLOAD = os.path.join(SRC, "..", "shared", "data", "workloads", "FbHdp2015.txt")

MODES = [
    ["--flows", "8", "--messages", "3", "--op", "send", "--size", "5000"],
    ["--flows", "8", "--messages", "3", "--op", "write", "--size", "3000", "--imm"],
    ["--flows", "4", "--messages", "2", "--op", "read", "--size", "4096"],
    ["--flows", "6", "--messages", "2", "--op", "mix", "--acks", "2"],
    ["--flows", "4", "--packets", "10", "--dst-net", "fd00:2::/64", "--src-net", "fd00:1::/64"],
    ["--flows", "4", "--packets", "10", "--vlan", "100"],
    ["--flows", "4", "--packets", "10", "--frame-size", "64"],
    ["--flows", "4", "--packets", "10", "--frame-size", "4096", "--mtu", "4096"],
    ["--flows", "4", "--messages", "2", "--subflows", "4", "--size", "8192"],
    ["--flows", "2", "--packets", "20", "--spray"],
    ["--flows", "16", "--messages", "1", "--workload", WORKLOAD],
]


def check(t, path, what):
    r = subprocess.run([PY, CHECK, "--summary", "--expect-icrc-valid", path],
                       capture_output=True, text=True, timeout=300)
    t.eq(r.returncode, 0, "(%s: rocecheck) %s" % (what, (r.stdout + r.stderr)[-300:]))
    try:
        s = json.loads(r.stdout)
        return s.get("summary", s)
    except ValueError:
        t.check(False, "%s: rocecheck output is not JSON" % what)
        return None


def main():
    t = harness.Checker("tools")
    work = tempfile.mkdtemp(prefix="rocetor-tools-")
    s = check(t, CAPTURE, "real capture")
    if s:
        t.eq(s["roce"], 105)
        t.eq(s["icrc_bad"], 0)
    for i, args in enumerate(MODES):
        out = os.path.join(work, "g%d.pcap" % i)
        r = subprocess.run([PY, GEN, "-o", out, "--seed", str(i + 1)] + args,
                           capture_output=True, text=True, timeout=300)
        if not t.eq(r.returncode, 0, "(rocegen %s) %s" % (args, r.stderr[-300:])):
            continue
        s = check(t, out, " ".join(args))
        if s:
            t.check(s["roce"] > 0, "%s: no RoCE packets" % args)
            t.eq(s["icrc_bad"], 0, "(%s)" % args)
            t.eq(s["ipcsum_bad"], 0, "(%s)" % args)
        # Same seed, same bytes: the generator is deterministic.
        out2 = out + ".again"
        subprocess.run([PY, GEN, "-o", out2, "--seed", str(i + 1)] + args,
                       capture_output=True, timeout=300)
        with open(out, "rb") as a, open(out2, "rb") as b:
            t.check(a.read() == b.read(), "%s: output differs between runs" % args)
    # The oracle must be able to fail: flip one payload byte of a packet.
    src = os.path.join(work, "g0.pcap")
    bad = os.path.join(work, "bad.pcap")
    data = bytearray(open(src, "rb").read())
    data[24 + 16 + 14 + 20 + 8 + 12 + 5] ^= 0xff  # first packet, inside its payload
    open(bad, "wb").write(bytes(data))
    r = subprocess.run([PY, CHECK, "--summary", "--expect-icrc-valid", bad],
                       capture_output=True, text=True, timeout=120)
    t.check(r.returncode != 0, "a corrupted packet passed the ICRC check")
    return t.done()


if __name__ == "__main__":
    sys.exit(main())

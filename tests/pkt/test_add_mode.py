#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The rocetor authors
"""Adding an LB mode is one folder and one registration line (issue 16):
the worked example of doc/architecture.md, taken from the document itself,
is added to a copy of this source tree (its folder lib/lb/rr/ and the name
"rr" in lib/lb/meson.build's lb_modes, nothing else), the copy is built, and
its rocetor runs `lb: rr` on net_pcap ports: the config accepts the name,
-h lists it, and one flow's packets alternate over the two uplinks, every
packet accounted. The same input with `lb: ecmp` puts the flow on one uplink
(so the split is the new mode's doing)."""
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
import harness  # noqa: E402
from scapy.all import IP, UDP, Ether, Raw  # noqa: E402
from scapy.contrib.roce import BTH  # noqa: E402

SRC = harness.SRC_ROOT
DOC = os.path.join(SRC, "doc", "architecture.md")
NH = ["02:00:00:00:bb:01", "02:00:00:00:bb:02"]
CONFIG = """
switch: {name: addmode, id: 3, lb: %s}
ports:
  - {port: 0, role: host, mac: "02:00:00:00:01:00"}
  - {port: 1, role: fabric, mac: "02:00:00:00:01:01"}
  - {port: 2, role: fabric, mac: "02:00:00:00:01:02"}
routes:
  - prefix: "10.2.0.0/16"
    paths:
      - {port: 1, nexthop_mac: "%s"}
      - {port: 2, nexthop_mac: "%s"}
"""


def doc_files():
    """The files of the worked example: fenced blocks whose info string
    names a path under lib/lb/rr/ ("```c lib/lb/rr/rtr_rr.c")."""
    text = open(DOC).read()
    files = {}
    for m in re.finditer(r"^```\w* (lib/lb/rr/[\w./]+)\n(.*?)^```$", text, re.M | re.S):
        files[m.group(1)] = m.group(2)
    return files


def copy_tree(dst):
    """The tracked files of this checkout (as the working tree has them)."""
    names = subprocess.run(["git", "-C", SRC, "ls-files", "-z"], capture_output=True,
                           check=True).stdout.decode().split("\0")
    for n in names:
        if not n or not os.path.exists(os.path.join(SRC, n)):
            continue
        os.makedirs(os.path.join(dst, os.path.dirname(n)), exist_ok=True)
        shutil.copy2(os.path.join(SRC, n), os.path.join(dst, n))


def frames(n):
    """n packets of one RoCE flow (same 5-tuple) from host port 0."""
    return [Ether(src="02:00:00:00:aa:01", dst="02:00:00:00:01:00")
            / IP(src="10.1.0.1", dst="10.2.0.5", ttl=64)
            / UDP(sport=49152, dport=4791) / BTH(opcode=4, dqpn=0x11, psn=i)
            / Raw(b"\x5a" * 64) for i in range(n)]


def main():
    t = harness.Checker("add-mode")
    files = doc_files()
    t.check("lib/lb/rr/rtr_rr.c" in files and "lib/lb/rr/meson.build" in files,
            "doc/architecture.md has no worked example files: %s" % sorted(files))
    if t.failed:
        return t.done()
    work = tempfile.mkdtemp(prefix="rocetor-addmode-")
    try:
        tree = os.path.join(work, "src")
        copy_tree(tree)
        for path, body in files.items():
            os.makedirs(os.path.join(tree, os.path.dirname(path)), exist_ok=True)
            with open(os.path.join(tree, path), "w") as f:
                f.write(body)
        # The registration line, and only it.
        mb = os.path.join(tree, "lib", "lb", "meson.build")
        text = open(mb).read()
        new, n = re.subn(r"^lb_modes = \[(.*)\]$", r"lb_modes = [\1, 'rr']", text, flags=re.M)
        t.eq(n, 1, "lb_modes line in lib/lb/meson.build")
        with open(mb, "w") as f:
            f.write(new)
        build = os.path.join(work, "build")
        p = subprocess.run(["meson", "setup", build, tree, "-Dtests=false"],
                           capture_output=True, text=True, timeout=600)
        t.eq(p.returncode, 0, "meson setup: " + (p.stdout + p.stderr)[-800:])
        p = subprocess.run(["ninja", "-C", build, "app/rocetor"], capture_output=True,
                           text=True, timeout=1200)
        t.eq(p.returncode, 0, "build with lib/lb/rr: " + (p.stdout + p.stderr)[-1500:])
        if t.failed:
            return t.done()
        rocetor = os.path.join(build, "app", "rocetor")
        p = subprocess.run([rocetor, "-h"], capture_output=True, text=True, timeout=60)
        t.check("rr" in re.findall(r"[a-z]+", (p.stdout + p.stderr).split("--lb MODE")[-1][:300]),
                "-h does not list rr: " + (p.stdout + p.stderr)[-600:])

        # The new mode: per packet, alternating uplinks.
        main_rocetor = harness.ROCETOR
        harness.ROCETOR = rocetor
        r = harness.run(CONFIG % ("rr", NH[0], NH[1]), [frames(8), [], []], tag="addmode")
        harness.ROCETOR = main_rocetor
        t.eq(r.rc, 0, "rocetor lb: rr exit: " + r.stderr[-600:])
        if t.check(r.stats is not None, "rr: stats document"):
            t.eq(r.stats.get("lb_mode"), "rr", "stats document: lb_mode")
            ok, why = harness.accounted(r.stats)
            t.check(ok, "rr accounting: " + why)
        outs = [len(r.outputs[p]) for p in (1, 2)]
        t.eq(outs, [4, 4], "rr: packets per uplink")
        order = sorted((Ether(f)[BTH].psn, p) for p in (1, 2) for f in r.outputs[p])
        t.check(all(order[i][1] != order[i + 1][1] for i in range(len(order) - 1)),
                "rr: consecutive packets on alternating uplinks: %s" % order)

        # The same flow with ECMP (the switch of this checkout): one uplink.
        r = harness.run(CONFIG % ("ecmp", NH[0], NH[1]), [frames(8), [], []], tag="addmode")
        t.eq(r.rc, 0, "rocetor lb: ecmp exit: " + r.stderr[-600:])
        if t.check(r.stats is not None, "ecmp: stats document"):
            ok, why = harness.accounted(r.stats)
            t.check(ok, "ecmp accounting: " + why)
        outs = sorted(len(r.outputs[p]) for p in (1, 2))
        t.eq(outs, [0, 8], "ecmp: one flow on one uplink")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return t.done()


if __name__ == "__main__":
    sys.exit(main())

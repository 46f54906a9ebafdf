#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The rocetor authors
"""Adding an LB mode is one folder and one registration line (issue 16),
also for a mode with a header of its own (issue 29): the two worked
examples of doc/architecture.md, taken from the document itself, are added
to a copy of this source tree (their folders lib/lb/rr/ and lib/lb/tag/ and
the names "rr", "tag" in lib/lb/meson.build's lb_modes, nothing else), the
copy is built, and its rocetor runs them on net_pcap ports.

rr: the config accepts the name, -h lists it, and one flow's packets
alternate over the two uplinks, every packet accounted. The same input with
`lb: ecmp` puts the flow on one uplink (so the split is the new mode's
doing).

tag (a 4-byte header after the BTH, the shared LB layout): two switches,
SrcToR then DstToR, each `lb: tag`. On the SrcToR's uplinks every data
frame is 4 bytes longer, marked in Resv7 and numbered in the header, IP/UDP
lengths unchanged; the DstToR, fed those frames on the matching fabric
ports, delivers to its host the frames the host sent, byte for byte but
the MACs, TTL and IP checksum, with a valid ICRC (tools/rocecheck.py).
ACKs go through untagged.

Limits: the mode's descriptor then points to a config section larger than
RTR_LB_CFG_SIZE: rocetor exits 1 before main() with a line naming the mode;
and given more counters than the LB counter slots hold, the build fails
with a message naming the mode."""
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
import harness  # noqa: E402
import rocecheck  # noqa: E402 (tools/, on the path harness sets)
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


# Two ToRs for lb: tag: the SrcToR's uplinks (ports 1, 2) reach the
# DstToR's fabric ports 1, 2 (their MACs are the SrcToR's next hops); the
# DstToR's port 0 faces the receiving host.
HOST_MAC = "02:00:00:00:aa:05"
TAG_SRC = CONFIG % ("tag", NH[0], NH[1])
TAG_DST = """
switch: {name: dsttor, id: 4, lb: tag}
ports:
  - {port: 0, role: host, mac: "02:00:00:00:02:00"}
  - {port: 1, role: fabric, mac: "%s"}
  - {port: 2, role: fabric, mac: "%s"}
routes:
  - {prefix: "10.2.0.5/32", port: 0, nexthop_mac: "%s"}
  - prefix: "10.1.0.0/16"
    paths:
      - {port: 1, nexthop_mac: "02:00:00:00:01:01"}
      - {port: 2, nexthop_mac: "02:00:00:00:01:02"}
""" % (NH[0], NH[1], HOST_MAC)
TAG_B8 = 0x2b  # lib/lb/tag/rtr_tag.c: op DATA (1 << 5) | marker 0x0b


def doc_files():
    """The files of the worked examples: fenced blocks whose info string
    names a path under lib/lb/rr/ or lib/lb/tag/ ("```c lib/lb/rr/rtr_rr.c")."""
    text = open(DOC).read()
    files = {}
    for m in re.finditer(r"^```\w* (lib/lb/(?:rr|tag)/[\w./]+)\n(.*?)^```$", text, re.M | re.S):
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


def tag_frames():
    """What the sending host puts on the wire: RoCE data of two flows
    (SEND ONLY, RDMA WRITE ONLY with its RETH, different sizes, one with
    AckReq) and an ACK, UDP checksum 0 as RNICs send, ICRC valid."""
    out = []
    for i in range(12):
        op = (4, 10)[i % 2]
        ext = b"\x00" * 16 if op == 10 else b""
        out.append(Ether(src="02:00:00:00:aa:01", dst="02:00:00:00:01:00")
                   / IP(src="10.1.0.1", dst="10.2.0.5", ttl=64, tos=0x68)
                   / UDP(sport=49152 + i % 3, dport=4791, chksum=0)
                   / BTH(opcode=op, dqpn=0x11, psn=i, ackreq=i % 4 == 3)
                   / Raw(ext + bytes((i + j) & 0xff for j in range(40 + 7 * i))))
    out.append(Ether(src="02:00:00:00:aa:01", dst="02:00:00:00:01:00")
               / IP(src="10.1.0.1", dst="10.2.0.5", ttl=64)
               / UDP(sport=49152, dport=4791, chksum=0)
               / BTH(opcode=0x11, dqpn=0x11, psn=99) / Raw(b"\x00\x00\x00\x05"))
    return [bytes(f) for f in out]


def same_but_hop(sent, got):
    """got is sent but for what a router changes: MACs, TTL, IPv4 checksum."""
    if len(sent) != len(got):
        return False
    skip = set(range(12)) | {14 + 8, 14 + 10, 14 + 11}
    return all(sent[i] == got[i] for i in range(len(sent)) if i not in skip)


def check_tag(t, rocetor):
    """lb: tag through two switches of the copy's build."""
    main_rocetor = harness.ROCETOR
    harness.ROCETOR = rocetor
    try:
        sent = tag_frames()
        r = harness.run(TAG_SRC, [sent, [], []], tag="addtag")
        t.eq(r.rc, 0, "tag SrcToR exit: " + r.stderr[-600:])
        if t.check(r.stats is not None, "tag SrcToR: stats document"):
            ok, why = harness.accounted(r.stats)
            t.check(ok, "tag SrcToR accounting: " + why)
        up = [r.outputs[1], r.outputs[2]]
        t.eq(len(up[0]) + len(up[1]), len(sent), "tag SrcToR: frames on the uplinks")
        by_psn = {Ether(f)[BTH].psn: f for f in sent}
        tagged = 0
        for f in up[0] + up[1]:
            b = Ether(f)[BTH]
            orig = by_psn[b.psn]
            bth = 14 + 20 + 8
            if b.opcode == 0x11:
                t.check(same_but_hop(orig, f), "tag SrcToR: the ACK went untagged")
                continue
            tagged += 1
            # Header inserted after the BTH, not counted by IP/UDP lengths.
            t.eq(len(f), len(orig) + 4, "tag SrcToR: psn %d frame length" % b.psn)
            t.eq(f[16:18], orig[16:18], "tag SrcToR: psn %d IP length" % b.psn)
            t.eq(f[bth + 8] & 0x7f, TAG_B8, "tag SrcToR: psn %d Resv7 marker" % b.psn)
            t.eq(f[bth + 8] & 0x80, orig[bth + 8] & 0x80, "tag SrcToR: psn %d AckReq" % b.psn)
            t.eq(f[bth + 16:], orig[bth + 12:], "tag SrcToR: psn %d after the header" % b.psn)
        t.eq(tagged, len(sent) - 1, "tag SrcToR: data frames tagged")
        seqs = sorted(int.from_bytes(f[bth + 12:bth + 16], "big") for f in up[0] + up[1]
                      if Ether(f)[BTH].opcode != 0x11)
        t.eq(seqs, list(range(len(sent) - 1)), "tag SrcToR: header numbers")

        r = harness.run(TAG_DST, [[], up[0], up[1]], tag="addtag")
        t.eq(r.rc, 0, "tag DstToR exit: " + r.stderr[-600:])
        if t.check(r.stats is not None, "tag DstToR: stats document"):
            ok, why = harness.accounted(r.stats)
            t.check(ok, "tag DstToR accounting: " + why)
        got = r.outputs[0]
        t.eq(len(got), len(sent), "tag DstToR: frames delivered to the host")
        for f in got:
            e = Ether(f)
            psn = e[BTH].psn
            orig = by_psn.get(psn)
            if not t.check(orig is not None, "tag DstToR: unknown psn %d" % psn):
                continue
            t.check(same_but_hop(orig, f),
                    "tag DstToR: psn %d not as sent:\n%s\n%s" % (psn, orig.hex(), f.hex()))
            t.eq((e[Ether].dst, e[IP].ttl), (HOST_MAC, 62), "tag DstToR: psn %d hop" % psn)
            t.check(rocecheck.icrc_ok(e), "tag DstToR: psn %d ICRC invalid" % psn)
    finally:
        harness.ROCETOR = main_rocetor


def check_config_size(t, tree, build):
    """A mode whose config section is larger than a config holds: rocetor
    exits 1 before main() with a line naming the mode."""
    path = os.path.join(tree, "lib", "lb", "tag", "rtr_tag.c")
    text = open(path).read()
    text = text.replace('#include "rtr_lb.h"\n',
                        '#include "rtr_cfg_schema.h"\n#include "rtr_lb.h"\n', 1)
    text = text.replace("const struct rtr_lb_desc rtr_lb_tag_desc = {",
                        "static const struct rtr_cfg_section tag_big = "
                        "{.size = RTR_LB_CFG_SIZE + 44};\n\n"
                        "const struct rtr_lb_desc rtr_lb_tag_desc = {\n\t.config = &tag_big,", 1)
    with open(path, "w") as f:
        f.write(text)
    p = subprocess.run(["ninja", "-C", build, "app/rocetor"], capture_output=True, text=True,
                       timeout=1200)
    if not t.eq(p.returncode, 0, "build with a 300-byte section: " + (p.stdout + p.stderr)[-1500:]):
        return
    p = subprocess.run([os.path.join(build, "app", "rocetor"), "-h"], capture_output=True,
                       text=True, timeout=60)
    t.eq(p.returncode, 1, "a 300-byte section: exit status (stderr %r)" % p.stderr[-300:])
    t.check(p.stderr.startswith("rocetor: LB mode tag: its config section is 300 bytes, more "
                                "than RTR_LB_CFG_SIZE (256"),
            "a 300-byte section: no line naming the mode: %r" % p.stderr[-600:])


def check_counter_slots(t, tree, build):
    """A mode whose counters do not fit the slots: the build stops, naming it."""
    names = "".join("\tX(tag_c%d, \"example\")" % i + (" \\\n" if i < 95 else "\n")
                    for i in range(96))
    with open(os.path.join(tree, "lib", "lb", "tag", "rtr_tag_counters.h"), "w") as f:
        f.write("#define RTR_TAG_COUNTERS(X) \\\n" + names + "#define RTR_TAG_MAX_GAUGES(X)\n")
    with open(os.path.join(tree, "lib", "lb", "tag", "meson.build"), "a") as f:
        f.write("lb_counters += [['tag/rtr_tag_counters.h', 'TAG']]\n")
    p = subprocess.run(["ninja", "-C", build, "lib/lb/librtr_lb.a.p/rtr_lb_counters.c.o"],
                       capture_output=True, text=True, timeout=600)
    out = p.stdout + p.stderr
    t.check(p.returncode != 0, "counters past the slots: the build did not fail")
    t.check("LB mode tag: its counters (tag/rtr_tag_counters.h) do not fit in the LB "
            "counter slots" in out, "counters past the slots: no message naming the mode: "
            + out[-1500:])


def main():
    t = harness.Checker("add-mode")
    files = doc_files()
    t.check("lib/lb/rr/rtr_rr.c" in files and "lib/lb/rr/meson.build" in files
            and "lib/lb/tag/rtr_tag.c" in files and "lib/lb/tag/meson.build" in files,
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
        new, n = re.subn(r"^lb_modes = \[(.*)\]$", r"lb_modes = [\1, 'rr', 'tag']", text,
                         flags=re.M)
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
        listed = re.findall(r"[a-z]+", (p.stdout + p.stderr).split("--lb MODE")[-1][:300])
        t.check("rr" in listed and "tag" in listed,
                "-h does not list rr and tag: " + (p.stdout + p.stderr)[-600:])

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

        check_tag(t, rocetor)
        check_config_size(t, tree, build)
        check_counter_slots(t, tree, build)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return t.done()


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The rocetor authors
"""Write the seed corpora of the fuzz targets into fuzz/seeds/<target>/.

    /usr/bin/python3 fuzz/mkseeds.py [OUTDIR]

parse: frames of the real capture (/work/shared/data/*.pcap, when present),
of tools/rocegen.py (tests/pkt/lib/roce.py: ConWeave data and control,
VLAN, IPv6, CNP, ACK, a trimmed header, ARP), each behind the target's
flag byte. config_yaml / config_cfg: conf/ and the configs the tests
write. lb_*: operation programs for fuzz_lb.c (see its header comment).
The output is deterministic; the seeds are committed (fuzz/seeds), so the
normal build replays them without python.
"""

import glob
import hashlib
import os
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(SRC, "tests", "pkt", "lib"))
import roce  # noqa: E402


def put(out, target, name, data):
    d = os.path.join(out, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def parse_seeds(out):
    frames = []
    seen = set()
    for pcap in sorted(glob.glob("/work/shared/data/*.pcap")):
        for f in roce.read_pcap(pcap):
            # One frame per (length, opcode): the capture repeats itself.
            key = (len(f), f[42] if len(f) > 42 else None)
            if key not in seen and len(seen) < 24:
                seen.add(key)
                frames.append(("pcap", 0, f))
    f = roce.frame(roce.SEND_ONLY, psn=5, payload=b"x" * 64)
    d = roce.cw_data(f, path_id=1, epoch=2, ask_reply=1, ts_tx=0x1234)
    frames += [
        ("send", 0, f),
        ("cwdata", 1, d),
        ("cwtail", 1, roce.cw_data(f, path_id=0, epoch=1, phase=1, tail=1)),
        ("reply", 1, roce.cw_control(d, roce.CW_REPLY)),
        ("clear", 1, roce.cw_control(d, roce.CW_REPLY, phase=1)),
        ("notify", 2, roce.cw_control(d, roce.CW_NOTIFY)),
        ("notify3", 3, roce.cw_control(d, roce.CW_NOTIFY)),
        ("vlan", 0, roce.frame(roce.WRITE_FIRST, reth_=(0x1000, 7, 4096), vlan=10,
                               payload=b"y" * 32)),
        ("v6", 1, roce.frame(roce.SEND_ONLY_IMM, immdt=9, src_ip="fd00::1", dst_ip="fd01::2",
                             payload=b"z" * 16)),
        ("ack", 0, roce.frame(roce.ACK, aeth_=(0, 3))),
        ("cnp", 0, roce.cnp(0x11)),
        ("readreq", 0, roce.frame(roce.READ_REQUEST, reth_=(0, 1, 64))),
        ("trimmed", 1, d[:14 + 20 + 8 + 12 + 4]),
        ("zeropay-resv7", 1, roce.frame(roce.SEND_ONLY, resv7=0x40, pad_to=0)),
    ]
    arp = bytes.fromhex("ffffffffffff020000000001" "0806" "0001080006040001") + bytes(20)
    frames.append(("arp", 0, arp))
    for name, flags, fr in frames:
        h = hashlib.sha1(fr).hexdigest()[:8]
        put(out, "parse", "%s-%s" % (name, h), bytes([flags]) + bytes(fr))


def config_seeds(out):
    for fmt in ("yaml", "cfg"):
        for p in sorted(glob.glob(os.path.join(SRC, "conf", "*." + fmt))):
            with open(p, "rb") as f:
                put(out, "config_" + fmt, os.path.basename(p), f.read())
    # Small ones that reach the validator's corners quickly.
    put(out, "config_yaml", "min.yaml",
        b"switch: {name: a, role: tor, id: 1, lb: ecmp}\n"
        b"ports:\n  - {port: 0, role: host, mac: \"02:00:00:00:00:01\"}\n"
        b"  - {port: 1, role: fabric, mac: \"02:00:00:00:00:02\"}\n"
        b"routes:\n  - {prefix: \"10.0.0.1/32\", port: 0, nexthop_mac: \"02:00:00:00:aa:01\"}\n"
        b"  - prefix: \"fd00::/16\"\n    paths:\n"
        b"      - {port: 1, nexthop_mac: \"02:00:00:00:bb:01\"}\n")
    put(out, "config_cfg", "min.cfg",
        b"switch = { name = \"a\"; role = \"tor\"; id = 1; lb = \"seqbalance\"; };\n"
        b"ports = ( { port = 0; role = \"host\"; mac = \"02:00:00:00:00:01\"; },\n"
        b"          { port = 1; role = \"fabric\"; mac = \"02:00:00:00:00:02\"; } );\n"
        b"routes = ( { prefix = \"10.0.0.1/32\"; port = 0; nexthop_mac = \"02:00:00:00:aa:01\"; },\n"
        b"           { prefix = \"10.2.0.0/16\"; paths = ( { port = 1; nexthop_mac = \"02:00:00:00:bb:01\"; } ); } );\n"
        b"seqbalance = { phi_us = 10; };\n")


# ---- fuzz_lb.c programs -------------------------------------------------

def pkt(port, src, dst, opcode_idx=0, layout=0, icrc=True, ce=False, v6=False, vlan=False,
        payload=2, sport=0, b4=0, b8=0, psn=0, hdr=b"\0\0\0\0", shim=b"\0" * 6, op=0):
    f0 = (v6 << 0) | (vlan << 1) | (layout << 2) | (icrc << 4) | (port << 5) | (ce << 7)
    f1 = src | dst << 2 | sport << 4 | payload << 6
    b = bytes([op, f0, f1, opcode_idx, b4, b8]) + struct.pack("!H", psn) + hdr
    if layout == 3:
        b += shim
    return b


def clock(v):
    return bytes([4, v])


def tick(walk=False):
    return bytes([5 | (0x80 if walk else 0)])


def replay(k, port=0):
    return bytes([6, k, port << 1])


def ev(e):
    return bytes([7, e])


def cw_b8(op, phase=0, epoch=0, ask=0, tail=0):
    return (op & 3) << 5 | (phase & 1) << 4 | (epoch & 3) << 2 | (ask & 1) << 1 | (tail & 1)


def lb_seeds(out):
    progs = {}
    # A host flow toward the group, its packets played back into a fabric
    # port, timers running.
    p = bytes([0x21])
    for i in range(24):
        p += pkt(0, 1, 2, psn=i)
        if i % 4 == 3:
            p += clock(0x45) + tick() + replay(0)
    p += clock(0xff) + tick(True)
    progs["src-flow"] = p
    # The DstToR side: ConWeave DATA from the fabric toward host port 1,
    # two epochs, a TAIL, out of order.
    p = bytes([0x05])
    for i, (phase, epoch, tail) in enumerate([(0, 0, 0), (1, 1, 0), (1, 1, 0), (0, 1, 1),
                                               (1, 1, 0), (0, 2, 0), (0, 2, 1)]):
        p += pkt(2, 2, 0, layout=1, b4=i & 1, b8=cw_b8(1, phase, epoch, ask=i == 0, tail=tail),
                 psn=i, hdr=struct.pack("!HH", 100 + i, 90))
        p += clock(0x23)
    p += clock(0x80) + tick() + replay(0) + replay(1)
    progs["dst-epochs"] = p
    # Control packets from the fabric toward the SrcToR's host, after a
    # flow started: RTT_REPLY, CLEAR, NOTIFY.
    p = bytes([0x00])
    for i in range(6):
        p += pkt(1, 0, 3, psn=i) + clock(0x21)
    for b8 in (cw_b8(2), cw_b8(2, phase=1), cw_b8(3)):
        p += pkt(3, 3, 0, layout=2, b8=b8, b4=1) + clock(0x30) + tick()
    progs["ctrl"] = p
    # SeqBalance / ConWeave: CE-marked data from the fabric, then the
    # congestion packets the DstToR sent played back.
    p = bytes([0x41])
    for i in range(8):
        p += pkt(0, 1, 3, psn=i)
        p += pkt(2, 3, 0, ce=True, b4=1, psn=i)
        p += replay(1, 1)
    progs["ce"] = p
    # CAVER: ACKs from a host (shims added), shimmed ACKs from the fabric,
    # data with source routes, DRE ticks.
    p = bytes([0x13])
    for i in range(6):
        p += pkt(0, 1, 2, opcode_idx=8, psn=i)
        p += pkt(2, 2, 1, opcode_idx=8, layout=3, shim=bytes([2, 0x80 | i, 0x03, 10 * i, 1, 9]))
        p += pkt(2, 2, 0, b4=0x80 | 3, psn=i)
        p += pkt(3, 3, 2, b4=0x80 | 2, psn=i)
        p += clock(0x60) + tick()
    p += replay(0) + replay(1) + clock(0xff) + tick(True)
    progs["caver"] = p
    # Links: a path and a host port go down while packets are held.
    p = bytes([0x01])
    for i in range(4):
        p += pkt(2, 2, 1, layout=1, b8=cw_b8(1, 1, 1), psn=i)
    p += ev(0x02 | 0x80) + ev(0x00) + pkt(0, 1, 2) + ev(0x01) + ev(0x04) + pkt(2, 3, 0, ce=True)
    p += ev(0x04) + ev(0x03 | 0x80) + ev(0x05)
    progs["links"] = p
    # IPv6 and VLAN variants of a flow in both directions.
    p = bytes([0x22])
    for i in range(6):
        p += pkt(0, 1, 2, v6=True, psn=i) + pkt(1, 0, 3, vlan=True, psn=i)
        p += pkt(2, 2, 1, v6=True, layout=1, b8=cw_b8(1, 0, 1), psn=i)
        p += replay(0) + clock(0x22)
    progs["v6-vlan"] = p
    # Raw frames from the generator.
    p = bytes([0x09])
    f = roce.frame(roce.SEND_ONLY, psn=3, payload=b"q" * 40, src_ip="10.0.0.2",
                   dst_ip="10.1.0.1")
    d = roce.cw_data(f, path_id=1, epoch=1)
    c = roce.cw_control(d, roce.CW_NOTIFY)
    for fr, port in ((f, 0), (d, 2), (c, 3)):
        p += bytes([3, (port << 1) | (len(fr) >> 8), len(fr) & 0xff]) + fr
    progs["raw"] = p
    # End to end: host 10.0.0.2 behind ToR A sends to 10.1.0.1 behind ToR B
    # (bit 3 of an operation byte = ToR B), the wire carries it over, B's
    # host answers with ACKs; timers on both; some CE marks.
    for name, param, ce_every in (("e2e", 0x25, 0), ("e2e-ce", 0x03, 3), ("e2e-slow", 0x80, 0)):
        p = bytes([param])
        for i in range(32):
            p += pkt(0, 1, 2, psn=i, ce=ce_every and i % ce_every == 0)
            if i % 3 == 2:
                p += replay(0) + clock(0x41)
            if i % 4 == 3:
                p += pkt(1, 2, 1, opcode_idx=8, psn=i, op=8) + replay(0)
            if i % 8 == 7:
                p += tick() + bytes([5 | 8]) + clock(0x62) + replay(1)
        while len(p) < 2000 and p.count(bytes([6])) < 40:
            p += replay(0)
        p += clock(0xff) + tick(True) + bytes([5 | 8 | 0x80])
        progs[name] = p
    for t in ("lb_conweave", "lb_seqbalance", "lb_caver", "lb_letflow", "lb_drill", "lb_conga"):
        for name, data in progs.items():
            put(out, t, name, data)


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "seeds")
    parse_seeds(out)
    config_seeds(out)
    lb_seeds(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())

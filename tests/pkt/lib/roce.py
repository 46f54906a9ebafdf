# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The rocetor authors
"""RoCEv2 helpers for the packet tests.

    import sys, os
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
    import roce

    f = roce.frame(roce.SEND_ONLY, psn=5, payload=b"x" * 100)
    assert roce.icrc_ok(f)                 # scapy's verdict (independent)
    assert roce.icrc_ok_fast(f)            # rocegen's own check (fast)
    d = roce.cw_data(f, path_id=3, epoch=1)   # as a ConWeave SrcToR sends it
    assert roce.strip_cw(d) == f           # what the DstToR must deliver
    roce.write_pcap(path, [f, d]); frames = roce.read_pcap(path)

Frames are plain bytes. Building reuses tools/rocegen.py, the ICRC verdict
uses tools/rocecheck.py (scapy), so the two sides of a test never share the
code that could be wrong.
"""

import os
import struct
import sys

_TOOLS = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                       "..", "..", "..", "tools"))
if _TOOLS not in sys.path:
    sys.path.insert(0, _TOOLS)

import rocegen  # noqa: E402
from rocegen import (  # noqa: E402,F401
    ACK, CNP, READ_REQUEST, READ_RESP_FIRST, READ_RESP_LAST, READ_RESP_MIDDLE,
    READ_RESP_ONLY, ROCE_PORT, SEND_FIRST, SEND_LAST, SEND_LAST_IMM, SEND_MIDDLE,
    SEND_ONLY, SEND_ONLY_IMM, WRITE_FIRST, WRITE_LAST, WRITE_MIDDLE, WRITE_ONLY,
    aeth, fix_icrc, read_pcap, reth, write_pcap)

CW_HDR_LEN = 4
CW_DATA, CW_REPLY, CW_NOTIFY = 1, 2, 3

frame = rocegen.roce_frame
icrc_ok_fast = rocegen.frame_icrc_ok


def icrc_ok(f):
    """scapy's opinion of the frame's ICRC (IPv4 and IPv6)."""
    import rocecheck
    from scapy.layers.l2 import Ether
    from scapy.contrib.roce import BTH
    p = Ether(bytes(f))
    return BTH in p and rocecheck.icrc_ok(p)


def cnp(dqp, **kw):
    """A RoCEv2 CNP (opcode 0x81, BECN set, 16 reserved bytes)."""
    kw.setdefault("b4", 0x40)
    kw.setdefault("flags", 0)
    return frame(CNP, dqp=dqp, payload=bytes(16), **kw)


def offsets(f):
    """(l3 offset, l4 offset, BTH offset) of a RoCEv2 frame."""
    l3, et = rocegen.l3_offset(f)
    if et == 0x0800:
        l4 = l3 + (f[l3] & 0x0F) * 4
    elif et == 0x86DD:
        l4 = l3 + 40
    else:
        raise ValueError("not IP")
    return l3, l4, l4 + 8


def bth_fields(f):
    """dict of the BTH fields, including byte 4 and Resv7."""
    _, _, b = offsets(f)
    op, fl, pkey, w1, w2 = struct.unpack_from("!BBHII", f, b)
    return {"opcode": op, "flags": fl, "pkey": pkey, "byte4": w1 >> 24,
            "dqp": w1 & 0xFFFFFF, "ackreq": w2 >> 31, "resv7": (w2 >> 24) & 0x7F,
            "psn": w2 & 0xFFFFFF}


def cw_resv7(cw_op, phase=0, epoch=0, ask_reply=0, tail=0):
    """Resv7 value carrying the ConWeave fields (ALGORITHMS.md 2.1)."""
    return ((cw_op & 3) << 5) | ((phase & 1) << 4) | ((epoch & 3) << 2) | \
        ((ask_reply & 1) << 1) | (tail & 1)


def cw_data(f, path_id, epoch, phase=0, ask_reply=0, tail=0, ts_tx=0, ts_tail=0):
    """A host frame as a ConWeave SrcToR forwards it: byte 4 = path_id, the
    fields in Resv7, 4 bytes inserted after the BTH, IP/UDP lengths untouched
    (so the frame is 4 bytes longer than IP says and the ICRC no longer
    matches until the DstToR restores it)."""
    _, _, b = offsets(f)
    g = bytearray(f)
    g[b + 4] = path_id & 0xFF
    g[b + 8] = (g[b + 8] & 0x80) | cw_resv7(CW_DATA, phase, epoch, ask_reply, tail)
    hdr = struct.pack("!HH", ts_tx & 0xFFFF, ts_tail & 0xFFFF)
    return bytes(g[:b + 12]) + hdr + bytes(g[b + 12:])


def cw_fields(f):
    """The ConWeave view of a frame: byte 4, Resv7 fields and the header."""
    _, _, b = offsets(f)
    r7 = f[b + 8] & 0x7F
    d = {"path_id": f[b + 4], "cw_op": r7 >> 5, "phase": (r7 >> 4) & 1,
         "epoch": (r7 >> 2) & 3, "ask_reply": (r7 >> 1) & 1, "tail": r7 & 1}
    if d["cw_op"]:
        d["ts_tx"], d["ts_tail"] = struct.unpack_from("!HH", f, b + 12)
    return d


def strip_cw(f):
    """What a DstToR delivers to a host: the 4 bytes removed, byte 4 and
    Resv7 zeroed (AckReq kept). The sender's ICRC is then valid again."""
    _, _, b = offsets(f)
    g = bytearray(f)
    had = (g[b + 8] >> 5) & 3
    g[b + 4] = 0
    g[b + 8] &= 0x80
    if had:
        del g[b + 12:b + 12 + CW_HDR_LEN]
    return bytes(g)


def cw_control(f, cw_op, phase=0, ts_tx=0, ts_tail=0, src_mac=None, dst_mac=None):
    """A ConWeave REPLY (cw_op 2; phase 0 RTT_REPLY, 1 CLEAR) or NOTIFY
    (cw_op 3) derived from data frame f (with or without its CW header):
    IP addresses swapped, ports kept, ECN cleared, path_id and epoch kept,
    cut after the ConWeave header with IP/UDP lengths set to match, no ICRC."""
    l3, l4, b = offsets(f)
    c = cw_fields(f)
    g = bytearray(f[:b + 12])
    g[b + 8] = cw_resv7(cw_op, phase, c["epoch"])
    g += struct.pack("!HH", ts_tx & 0xFFFF, ts_tail & 0xFFFF)
    ulen = 8 + 12 + CW_HDR_LEN
    struct.pack_into("!H", g, l4 + 4, ulen)
    if g[l3] >> 4 == 4:
        g[l3 + 1] &= 0xFC
        g[l3 + 12:l3 + 16], g[l3 + 16:l3 + 20] = g[l3 + 16:l3 + 20], g[l3 + 12:l3 + 16]
        struct.pack_into("!H", g, l3 + 2, l4 - l3 + ulen)
        struct.pack_into("!H", g, l3 + 10, 0)
        struct.pack_into("!H", g, l3 + 10, rocegen.ipv4_csum(bytes(g[l3:l4])))
    else:
        g[l3 + 1] &= 0xCF  # ECN is bits 5..4 of the second byte
        g[l3 + 8:l3 + 24], g[l3 + 24:l3 + 40] = g[l3 + 24:l3 + 40], g[l3 + 8:l3 + 24]
        struct.pack_into("!H", g, l3 + 4, ulen)
    if src_mac is not None:
        g[6:12] = rocegen.mac_bytes(src_mac)
    if dst_mac is not None:
        g[0:6] = rocegen.mac_bytes(dst_mac)
    if len(g) < rocegen.ETH_MIN:
        g += bytes(rocegen.ETH_MIN - len(g))
    return bytes(g)


def generate(*args):
    """Run rocegen with command-line arguments; returns the frames written.

    Example: generate("--flows", "4", "--packets", "10", "--op", "write")
    """
    import tempfile
    fd, path = tempfile.mkstemp(suffix=".pcap")
    os.close(fd)
    try:
        rc = rocegen.main(["-o", path] + [str(a) for a in args])
        if rc != 0:
            raise RuntimeError("rocegen failed (%d)" % rc)
        return read_pcap(path)
    finally:
        os.unlink(path)

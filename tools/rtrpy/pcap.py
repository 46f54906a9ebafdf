# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The rocetor authors
"""Classic pcap files (what net_pcap reads and writes): frames with their
timestamps, or raw records when a file is only cut and joined.

rocegen, benchgen, the soak and the packet tests all read and write pcaps
through here; Python's standard library only (no scapy)."""

import os
import struct

T0 = 1700000000  # first timestamp (seconds); fixed so output is reproducible
PCAP_HDR = struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 262144, 1)


def write_pcap(path, frames, t0=1700000000.0, gap=1e-6):
    """Write frames (bytes, or (ts_seconds, bytes) pairs) to a classic pcap
    (microsecond timestamps); no frame gives a valid pcap of the header
    alone."""
    with open(path, "wb") as f:
        f.write(PCAP_HDR)
        t = t0
        for fr in frames:
            if isinstance(fr, tuple):
                t, fr = fr
            sec = int(t)
            f.write(struct.pack("<IIII", sec, int(round((t - sec) * 1e6)) % 1000000,
                                len(fr), len(fr)))
            f.write(fr)
            t += gap


def read_pcap(path, with_ts=False):
    """Frames of a classic pcap (microsecond or nanosecond), as bytes; with
    with_ts, (time in seconds, bytes) pairs."""
    out = []
    with open(path, "rb") as f:
        hdr = f.read(24)
        if len(hdr) < 24:
            return out
        magic = struct.unpack("<I", hdr[:4])[0]
        if magic in (0xA1B2C3D4, 0xA1B23C4D):
            e = "<"
        elif magic in (0xD4C3B2A1, 0x4D3CB2A1):
            e = ">"
        else:
            raise ValueError("%s: not a classic pcap" % path)
        nano = magic in (0xA1B23C4D, 0x4D3CB2A1)
        while True:
            rec = f.read(16)
            if len(rec) < 16:
                break
            sec, frac, incl, _ = struct.unpack(e + "IIII", rec)
            data = f.read(incl)
            if with_ts:
                out.append((sec + frac / (1e9 if nano else 1e6), data))
            else:
                out.append(data)
    return out


def read_output(path):
    """(time, frame) of every frame a net_pcap tx_pcap got (nanosecond TX
    timestamps); [] when the file is missing or has no header (the port
    never opened it)."""
    if not os.path.exists(path) or os.path.getsize(path) < 24:
        return []
    return read_pcap(path, with_ts=True)


def records(path):
    """(file header, [record]) of a little-endian classic pcap, each record
    its 16-byte header and frame, bytes as they are in the file: for
    cutting and joining pcaps without touching a timestamp."""
    with open(path, "rb") as f:
        data = f.read()
    hdr, off, recs = data[:24], 24, []
    while off + 16 <= len(data):
        incl = struct.unpack_from("<I", data, off + 8)[0]
        recs.append(data[off:off + 16 + incl])
        off += 16 + incl
    return hdr, recs


def record_frame(rec):
    """The frame of a record of records()."""
    return rec[16:]


def write_records(path, hdr, recs):
    """A pcap of header hdr and the records recs (from records())."""
    with open(path, "wb") as f:
        f.write(hdr + b"".join(recs))

#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The rocetor authors
"""benchgen: the benchmark suite's RoCEv2 traffic (doc/benchmarks.md).

    benchgen.py --role {src,dst} --flows N --size {64,1024,4096}
                [--packets P] [--queues Q [--split {rss,modulo}]] [--seed S]
                [--epoch-len L]
                [--stamp {conweave,spray,conga}] --out PREFIX

Writes PREFIX.pcap (Q = 1) or PREFIX.q0.pcap .. PREFIX.q{Q-1}.pcap (a flow in
the file of the worker of Q that owns it by rocetor's RSS hash, or with
--split modulo flow i in file i mod Q) and PREFIX.json, which describes them. When PREFIX.json already
describes the same parameters and its files are there with the right sizes,
nothing is written (the runner keeps a cache in out/bench/gen/).

role src: what a ToR receives on its host port 0 from its hosts. N RC flows
  10.1/16 -> 10.2/16, MAC 02:00:00:00:aa:01 -> 02:00:00:00:01:00, distinct
  (src IP, dst IP, UDP sport), one destination QP each, packet k belongs to
  flow k mod N, PSNs consecutive per flow.
role dst: what a ConWeave DstToR receives on a fabric port from a remote
  SrcToR: 10.2/16 -> 10.1/16, MAC 02:00:00:00:bb:01 -> 02:00:00:00:01:01,
  stamped as doc/conweave.md "Wire format" says, arranged so that in every
  epoch phase-1 packets overtake the TAIL (the DstToR holds them, the TAIL
  releases them). See plan_dst() for the layout.
  With --stamp spray: what a spray DstToR receives instead (doc/spray.md):
  the same flows and frames, stamped with spray's marker and a per-flow
  sequence number (0, 1, ... in each pcap loop), packet k of flow k mod N,
  each group of 4 numbers arriving as 0, 2, 1, 3 (the 2 overtakes the 1: the
  DstToR holds it until the 1 comes), a flow's last partial group in order.
  With --stamp conga: what a CONGA DstToR (or a spine between the leaves)
  receives (doc/conga.md): the same flows round-robin, each frame with the
  CONGA header of leaf 2 (LBTag = forward path, a CE value and a feedback
  entry: see gen_conga_dst()); nothing is held.

--size 64: RC SEND ONLY, no payload, 60-byte frame (64 on the wire with the
FCS); 1024 / 4096: RC RDMA WRITE MIDDLE with a 1024 / 4096-byte payload
(1082 / 4154-byte frames). dst frames are 4 bytes longer (the ConWeave header
that IP and UDP do not count). IPv4, DSCP 26, ECT(0), TTL 64, UDP 4791, UDP
checksum 0, and the ICRC the sending RNIC computed (for dst: over the frame as
the host sent it, i.e. Resv7 = 0 and without the 4 bytes; byte 4 is masked).

Speed: no scapy; one header template and CRC state per flow, and per packet a
few struct.pack calls and one zlib.crc32 over the PSN and the payload.
"""

import argparse
import json
import os
import random
import struct
import sys
import time
import zlib

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import rocegen  # noqa: E402

VERSION = 1  # bump when the bytes written for the same parameters change

MAX_FRAMES = 1 << 21  # per pcap: net_pcap infinite_rx holds each in an mbuf
# The dst default stays within about the same mbuf memory at every size:
# 2^21 x ~2.2 KB, or 2^20 x ~4.4 KB (two segments) for 4 KB payloads.
DEFAULT_CAP = {64: MAX_FRAMES, 1024: MAX_FRAMES, 4096: MAX_FRAMES >> 1}
MIN_PACKETS = 65536  # default P = max(N, MIN_PACKETS) rounded up to N
HOSTS = 65534  # usable addresses of a /16: .0.1 .. .255.254
BATCH = 128  # dst: flows whose epochs are interleaved at once
TS_STEP = 8192  # dst: SrcToR clock units (1.024 us, so 8.4 ms) between a flow's packets
CYCLE_MIN = 12  # dst: 4 epochs x (RTT_REQUEST, phase-1, TAIL)

SRC_MAC = {"src": "02:00:00:00:aa:01", "dst": "02:00:00:00:bb:01"}
DST_MAC = {"src": "02:00:00:00:01:00", "dst": "02:00:00:00:01:01"}
NET_A = 0x0A010000  # 10.1.0.0/16: the senders of role src, receivers of dst
NET_B = 0x0A020000  # 10.2.0.0/16
TOS = (26 << 2) | 2  # DSCP 26, ECT(0)
TTL = 64
# size -> (opcode, payload bytes)
SIZES = {64: (rocegen.SEND_ONLY, 0), 1024: (rocegen.WRITE_MIDDLE, 1024),
         4096: (rocegen.WRITE_MIDDLE, 4096)}
OPNAME = {rocegen.SEND_ONLY: "RC SEND ONLY", rocegen.WRITE_MIDDLE: "RC RDMA WRITE MIDDLE"}

# ConWeave Resv7 bits (ALGORITHMS.md 2.1): cw_op 1 = DATA.
CW_DATA = 1 << 5
CW_PHASE = 1 << 4
CW_ASK = 1 << 1
CW_TAIL = 1
# spray's marker (doc/spray.md): DATA with phase 1 and tail 1, which
# ConWeave never sends.
SPRAY_R7 = CW_DATA | CW_PHASE | CW_TAIL
SPRAY_ORDER = (0, 2, 1, 3)
# CONGA's header (doc/conga.md "Wire format"): Resv7 0x32 (DATA, phase 1,
# ask 1), then source leaf id, feedback path and CE/metric after the BTH.
CONGA_R7 = CW_DATA | CW_PHASE | CW_ASK
CONGA_LEAF = 2  # the remote leaf of role dst (the bench's switch is id 1)


def roundup(x, n):
    return -(-x // n) * n


# --------------------------------------------------------------------------
# Flows
# --------------------------------------------------------------------------

class Flows:
    """Per-flow constants: addresses, source port, QP, first PSN, clock.

    Flow i: host A = 10.1.0.1 + (i mod 65534), host B = 10.2.0.1 + a seeded
    random index, UDP sport = 0xC000 + (random per host A + i div 65534) mod
    2^14. Two flows with the same host A differ in i div 65534 and so in
    their source port: all 5-tuples are distinct up to 65534 x 16384 flows.
    """

    def __init__(self, role, n, seed):
        rng = random.Random(seed * 1000003 + 17)
        nb = min(n, HOSTS)
        sp_base = [rng.getrandbits(14) for _ in range(nb)]
        self.a = [0] * n
        self.b = [0] * n
        self.sport = [0] * n
        self.psn0 = [0] * n
        self.t0 = [0] * n
        self.path0 = [0] * n
        for i in range(n):
            s, q = i % HOSTS, i // HOSTS
            self.a[i] = NET_A + 1 + s
            self.b[i] = NET_B + 1 + rng.randrange(HOSTS)
            self.sport[i] = 0xC000 + ((sp_base[s] + q) & 0x3FFF)
            self.psn0[i] = rng.getrandbits(24)
            self.t0[i] = rng.getrandbits(16)
            self.path0[i] = rng.getrandbits(2)
        self.role = role

    def addrs(self, i):
        """(source IP, destination IP) of flow i as integers."""
        if self.role == "src":
            return self.a[i], self.b[i]
        return self.b[i], self.a[i]

    @staticmethod
    def dqp(i):
        return (0x100 + i) & 0xFFFFFF


class Template:
    """The constant bytes of one flow's frames and the CRC state after them.

    head: Ethernet .. BTH byte 3; mid: DestQP (BTH bytes 5-7); crc0: CRC-32
    (seeded with eight 0xFF bytes) over the masked IP/UDP headers and BTH
    bytes 0-7 with byte 4 masked: the ICRC then only needs BTH bytes 8-11
    (AckReq/Resv7 as the host sent them: 0) and the payload.
    """

    __slots__ = ("head", "mid", "crc0")
    FF8 = zlib.crc32(b"\xff" * 8)

    def __init__(self, role, src_ip, dst_ip, sport, dqp, opcode, plen):
        ulen = 8 + rocegen.BTH_LEN + plen + rocegen.ICRC_LEN
        tot = 20 + ulen
        ip = struct.pack("!BBHHHBBHII", 0x45, TOS, tot, 0, 0x4000, TTL, 17, 0, src_ip, dst_ip)
        ip = ip[:10] + struct.pack("!H", rocegen.ipv4_csum(ip)) + ip[12:]
        udp = struct.pack("!HHHH", sport, rocegen.ROCE_PORT, ulen, 0)
        bth0 = struct.pack("!BBH", opcode, rocegen.BTH_MIGREQ, 0xFFFF)
        self.mid = struct.pack("!I", dqp)[1:]
        eth = rocegen.mac_bytes(DST_MAC[role]) + rocegen.mac_bytes(SRC_MAC[role]) + b"\x08\x00"
        self.head = eth + ip + udp + bth0
        masked = (b"\x45\xff" + ip[2:8] + b"\xff" + ip[9:10] + b"\xff\xff" + ip[12:20] +
                  udp[:6] + b"\xff\xff" + bth0 + b"\xff" + self.mid)
        self.crc0 = zlib.crc32(masked, self.FF8)


# --------------------------------------------------------------------------
# Plans: which frames go in which file, in which order
# --------------------------------------------------------------------------

# rocetor's RSS (lib/rss/rtr_rss.h): a Toeplitz hash whose key repeats
# the 16-bit word 0x6d5a, so it is a linear map of the XOR of the input's
# 16-bit words; the flow's owner is slot hash mod 64, slot j -> worker j
# mod the workers. With --queues Q, file q holds the flows worker q of Q
# owns: what a port whose RETA rocetor programmed delivers to queue q.
RSS_KEY48 = 0x6D5A6D5A6D5A
RSS_WIN = [(RSS_KEY48 >> (16 - k)) & 0xFFFFFFFF for k in range(16)]
RSS_SLOTS = 64
ROCE_PORT = 4791


def rss_hash(src_ip, dst_ip, sport, dport=ROCE_PORT):
    """The Toeplitz hash of (src IP, dst IP, sport, dport) with rocetor's
    key (rtr_rss_hash; IPv4 with an L4 header)."""
    x = (src_ip >> 16) ^ (src_ip & 0xFFFF) ^ (dst_ip >> 16) ^ (dst_ip & 0xFFFF) ^ sport ^ dport
    h = 0
    for k in range(16):
        if (x >> (15 - k)) & 1:
            h ^= RSS_WIN[k]
    return h


def rss_owner(h, workers):
    return (h & (RSS_SLOTS - 1)) % workers


class Split:
    """Which file (queue) each flow's frames go to: with one file all; with
    Q files the flow's RSS owner among Q workers (split "rss"), or flow i
    to file i mod Q (split "modulo", the order of the flows)."""

    def __init__(self, flows, n, nq, how="rss"):
        self.nq = nq
        if nq == 1:
            self.q = None
        elif how == "modulo":
            self.q = [i % nq for i in range(n)]
        else:
            self.q = [rss_owner(rss_hash(flows.a[i], flows.b[i], flows.sport[i]), nq)
                      for i in range(n)]
        self.files = [[] for _ in range(nq)]
        for i in range(n):
            self.files[self.of(i)].append(i)

    def of(self, i):
        return 0 if self.q is None else self.q[i]


def file_flows(n, q, nq, split=None):
    if split is not None:
        return split.files[q]
    return range(q, n, nq)


def default_packets(role, n, queues, size, epoch_len):
    """P when --packets is not given (see plan_dst for the dst cap)."""
    if role == "src":
        return roundup(max(n, MIN_PACKETS), n)
    return roundup(max(n * 4 * epoch_len, MIN_PACKETS), n)


def epoch_shape(length):
    """Arrival order of one epoch of `length` (>= 3) packets, as tuples
    (j, resv7, ts_tail_from) where j is the packet's index in the epoch in
    send (PSN) order and ts_tail_from the j whose ts_tx is its ts_tail (None:
    0). The SrcToR sent: j=0 RTT_REQUEST, 1..t-1 phase 0, t the TAIL (old
    path), t+1.. phase 1 on the new path; the first h phase-1 packets
    overtook the TAIL (a shorter new path) and arrive before it."""
    t = (length - 1) // 2
    n1 = length - 1 - t
    h = (n1 + 1) // 2
    p0 = [(0, CW_DATA | CW_ASK, None)] + [(j, CW_DATA, None) for j in range(1, t)]
    tail = [(t, CW_DATA | CW_ASK | CW_TAIL, t)]
    p1 = [(j, CW_DATA | CW_PHASE, t) for j in range(t + 1, length)]
    return p0 + p1[:h] + tail + p1[h:], h


def cycle_epochs(c, epoch_len):
    """Split c >= 12 packets of a flow into E epochs (E a multiple of 4,
    about epoch_len packets each, every one >= 3)."""
    e = 4 * max(1, c // (4 * epoch_len))
    base, extra = divmod(c, e)
    return [base + (1 if k < extra else 0) for k in range(e)]


def plan_dst(n, queues, size, packets, epoch_len, split=None):
    """Per file: the flows that get full cycles, c (packets per full flow),
    and the epoch lengths. Returns a list of dicts, one per file.

    Every flow gets c = P / N packets when c >= 12: E epochs, E a multiple of
    4 so that a flow's epochs go 0,1,2,3,0,.. across pcap loops too. When
    fewer fit (P < 12 N; by default when N x 4 x epoch_len exceeds the cap),
    f = (budget - n_q) // 11 evenly spread flows of each file get the
    shortest full cycle (4 epochs of 3) and the others one phase-0 DATA
    packet each: still n_q distinct flows in the file.
    """
    cap = None
    if packets is None:
        packets = default_packets("dst", n, queues, size, epoch_len)
        cap = DEFAULT_CAP[size]
    else:
        packets = roundup(packets, n)
    nq_max = max(len(file_flows(n, q, queues, split)) for q in range(queues))
    c = packets // n
    if cap is not None and nq_max * c > cap:
        c = cap // nq_max
    files = []
    for q in range(queues):
        fl = file_flows(n, q, queues, split)
        nqf = len(fl)
        if c >= CYCLE_MIN:
            files.append({"flows": fl, "full": nqf, "c": c,
                          "epochs": cycle_epochs(c, epoch_len)})
        else:
            budget = cap if cap is not None else nqf * c
            f = max(0, min(nqf, (budget - nqf) // (CYCLE_MIN - 1)))
            files.append({"flows": fl, "full": f, "c": CYCLE_MIN,
                          "epochs": [3, 3, 3, 3]})
    return files


def is_full(x, f, nq):
    """Flow number x of a file of nq flows is one of the f spread evenly."""
    return (x * f) // nq != ((x + 1) * f) // nq


# --------------------------------------------------------------------------
# Writing
# --------------------------------------------------------------------------

class PcapOut:
    """A classic pcap (microsecond timestamps advancing by the frames' wire
    time at 100 Gb/s), buffered."""

    def __init__(self, path):
        self.path = path
        self.tmp = path + ".tmp"
        self.f = open(self.tmp, "wb")
        self.f.write(rocegen.PCAP_HDR)
        self.buf = []
        self.ps = 0  # picoseconds since T0
        self.count = 0
        self.nbytes = 24

    def add(self, frame):
        n = len(frame)
        us = self.ps // 1000000
        self.buf.append(struct.pack("<IIII", rocegen.T0 + us // 1000000, us % 1000000, n, n))
        self.buf.append(frame)
        self.ps += (n + 24) * 80  # + FCS, preamble, IFG; 80 ps per byte
        self.count += 1
        self.nbytes += 16 + n
        if len(self.buf) >= 8192:
            self.f.write(b"".join(self.buf))
            self.buf.clear()

    def close(self):
        self.f.write(b"".join(self.buf))
        self.buf.clear()
        self.f.close()
        os.replace(self.tmp, self.path)


def gen_src(flows, n, split, opcode, payload, packets, outs):
    """Packet k belongs to flow k mod N (PSN psn0 + k div N); flow i goes to
    file split.of(i)."""
    pad = 60 - (14 + 20 + 8 + 12 + len(payload) + 4)
    tail_pad = b"\0" * pad if pad > 0 else b""
    tpl = []
    for i in range(n):
        s, d = flows.addrs(i)
        t = Template("src", s, d, flows.sport[i], flows.dqp(i), opcode, len(payload))
        tpl.append((t.head + b"\0" + t.mid, t.crc0, flows.psn0[i], outs[split.of(i)].add))
    crc32, pack = zlib.crc32, struct.pack
    for r in range(packets // n):
        for head, crc0, psn0, add in tpl:
            w = pack("!I", (psn0 + r) & 0xFFFFFF)
            crc = crc32(payload, crc32(w, crc0))
            add(b"".join((head, w, payload, pack("<I", crc), tail_pad)))


def gen_dst(flows, n, queues, opcode, payload, plan, outs):
    """One file at a time: rounds of epochs; in round r every full flow of
    the file sends its epoch r (singles: one packet in round x mod E), BATCH
    flows at a time, their packets interleaved one per flow in turn."""
    crc32, pack = zlib.crc32, struct.pack
    pad = 60 - (14 + 20 + 8 + 12 + 4 + len(payload) + 4)
    tail_pad = b"\0" * pad if pad > 0 else b""
    stats = {"reorder_held": 0, "reorder_flush_tail": 0, "rtt_requests": 0, "tails": 0,
             "single_frames": 0}
    for q, fp in enumerate(plan):
        out = outs[q]
        fl = fp["flows"]
        nq = len(fl)
        epochs = fp["epochs"]
        ne = len(epochs)
        starts = [sum(epochs[:k]) for k in range(ne)]
        shapes = {}
        for ln in set(epochs):
            shapes[ln] = epoch_shape(ln)
        # per flow: (head, mid, crc0, psn0, t0, path0, full)
        info = []
        for x, i in enumerate(fl):
            s, d = flows.addrs(i)
            t = Template("dst", s, d, flows.sport[i], flows.dqp(i), opcode, len(payload))
            full = fp["full"] == nq or is_full(x, fp["full"], nq)
            info.append((t.head, t.mid, t.crc0, flows.psn0[i], flows.t0[i], flows.path0[i], full))
        for r in range(ne):
            part = []  # (flow info, list of (j, resv7, ts_tail_from, epoch))
            ln = epochs[r]
            shape, h = shapes[ln]
            for x, fi in enumerate(info):
                if fi[6]:
                    part.append((fi, starts[r], r, shape))
                    stats["reorder_held"] += h
                    stats["reorder_flush_tail"] += 1
                    stats["rtt_requests"] += 1
                    stats["tails"] += 1
                elif x % ne == r:
                    # one phase-0 DATA packet, epoch 0, nothing asked
                    part.append((fi, 0, 0, ((0, CW_DATA, None),)))
                    stats["single_frames"] += 1
            for b0 in range(0, len(part), BATCH):
                batch = part[b0:b0 + BATCH]
                width = max(len(p[3]) for p in batch)
                for slot in range(width):
                    for (head, mid, crc0, psn0, t0, path0, _), base, ep, shape in batch:
                        if slot >= len(shape):
                            continue
                        j, r7, tfrom = shape[slot]
                        jj = base + j
                        psn = (psn0 + jj) & 0xFFFFFF
                        crc = crc32(payload, crc32(pack("!I", psn), crc0))
                        ts_tx = (t0 + jj * TS_STEP) & 0xFFFF
                        ts_tail = 0 if tfrom is None else (t0 + (base + tfrom) * TS_STEP) & 0xFFFF
                        path = (path0 + ep + (1 if r7 & CW_PHASE else 0)) & 3
                        r7 |= (ep & 3) << 2
                        out.add(b"".join((head, bytes((path,)), mid,
                                          pack("!IHH", (r7 << 24) | psn, ts_tx, ts_tail),
                                          payload, pack("<I", crc), tail_pad)))
    return stats


def gen_spray_dst(flows, n, split, opcode, payload, packets, outs):
    """A flow's r-th packet of the loop has number 4 (r div 4) +
    SPRAY_ORDER[r mod 4] in complete groups, r in the last partial one; PSN
    psn0 + number (the host sent in number order); path = number mod 4.
    As gen_dst interleaves ConWeave's epochs: group by group, BATCH flows
    at a time, their packets one per flow in turn (so a held packet waits
    for one packet of each other flow of its batch); the partial group last,
    all flows in turn. Returns how many packets a DstToR holds per loop."""
    crc32, pack = zlib.crc32, struct.pack
    pad = 60 - (14 + 20 + 8 + 12 + 4 + len(payload) + 4)
    tail_pad = b"\0" * pad if pad > 0 else b""
    per = packets // n
    full = per // 4 * 4
    order = [4 * (r // 4) + SPRAY_ORDER[r % 4] if r < full else r for r in range(per)]
    tpl = []
    for i in range(n):
        s, d = flows.addrs(i)
        t = Template("dst", s, d, flows.sport[i], flows.dqp(i), opcode, len(payload))
        tpl.append((t.head, t.mid, t.crc0, flows.psn0[i], outs[split.of(i)].add))
    rounds = [(r0, tpl[b0:b0 + BATCH]) for r0 in range(0, full, 4)
              for b0 in range(0, n, BATCH)]
    rounds += [(r, tpl) for r in range(full, per)]
    for r0, batch in rounds:
        for r in range(r0, min(r0 + 4, per) if r0 < full else r0 + 1):
            seq = order[r]
            path = bytes((seq & 3,))
            for head, mid, crc0, psn0, add in batch:
                psn = (psn0 + seq) & 0xFFFFFF
                crc = crc32(payload, crc32(pack("!I", psn), crc0))
                add(b"".join((head, path, mid, pack("!II", (SPRAY_R7 << 24) | psn, seq),
                              payload, pack("<I", crc), tail_pad)))
    return n * (full // 4)


def gen_conga_dst(flows, n, split, opcode, payload, packets, outs):
    """Flow i's r-th packet: PSN psn0 + r, forward path (LBTag) (path0 + r)
    mod 4, source leaf CONGA_LEAF, CE (i + r) mod 8, feedback on path r mod 4
    with metric (3 i + r) mod 8: every packet carries a CE for the
    from-leaf table and a feedback entry for the to-leaf table, as on a
    fabric where both leaves send. Round-robin over flows. Returns the
    number of frames."""
    crc32, pack = zlib.crc32, struct.pack
    pad = 60 - (14 + 20 + 8 + 12 + 4 + len(payload) + 4)
    tail_pad = b"\0" * pad if pad > 0 else b""
    per = packets // n
    tpl = []
    for i in range(n):
        s, d = flows.addrs(i)
        t = Template("dst", s, d, flows.sport[i], flows.dqp(i), opcode, len(payload))
        tpl.append((t.head, t.mid, t.crc0, flows.psn0[i], flows.path0[i],
                    outs[split.of(i)].add))
    for r in range(per):
        for i, (head, mid, crc0, psn0, path0, add) in enumerate(tpl):
            psn = (psn0 + r) & 0xFFFFFF
            crc = crc32(payload, crc32(pack("!I", psn), crc0))
            add(b"".join((head, bytes(((path0 + r) & 3,)), mid,
                          pack("!IHBB", (CONGA_R7 << 24) | psn, CONGA_LEAF, r & 3,
                               (((i + r) & 7) << 4) | ((3 * i + r) & 7)),
                          payload, pack("<I", crc), tail_pad)))
    return n * per


# --------------------------------------------------------------------------
# Command line
# --------------------------------------------------------------------------

def per_flow(p, a, packets, split=None):
    """(frames, frames per flow) for `packets` rounded up to a multiple of
    the flows; an error (p.error) when one pcap would hold more than
    MAX_FRAMES."""
    packets = roundup(packets, a.flows)
    per = packets // a.flows
    nq_max = max(len(file_flows(a.flows, q, a.queues, split)) for q in range(a.queues))
    if nq_max * per > MAX_FRAMES:
        p.error("%d frames in one pcap: at most %d (use --queues or fewer --packets)" %
                (nq_max * per, MAX_FRAMES))
    return packets, per


def parse_args(argv):
    p = argparse.ArgumentParser(
        prog="benchgen.py", description="RoCEv2 benchmark traffic (doc/benchmarks.md)")
    p.add_argument("--role", choices=("src", "dst"), required=True,
                   help="src: a ToR's host port 0 input; dst: ConWeave DstToR fabric input")
    p.add_argument("--flows", type=int, required=True, help="number of flows N")
    p.add_argument("--size", type=int, choices=sorted(SIZES), required=True,
                   help="64: 64-byte wire frames; 1024/4096: RoCE payload per packet")
    p.add_argument("--packets", type=int, default=None,
                   help="frames in all files (rounded up to a multiple of N); default "
                   "src max(N, 65536), dst max(N x 4 x epoch-len, 65536), rounded up")
    p.add_argument("--queues", type=int, default=1,
                   help="pcap files, one per RX queue (see --split)")
    p.add_argument("--split", choices=("rss", "modulo"), default="rss",
                   help="with --queues Q: file q holds the flows worker q of Q owns by "
                   "rocetor's RSS hash (rss, the default: what a port with rocetor's RETA "
                   "delivers to queue q), or flows i with i mod Q = q (modulo)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--epoch-len", type=int, default=8,
                   help="dst: packets per ConWeave epoch (>= 3)")
    p.add_argument("--stamp", choices=("conweave", "spray", "conga"), default="conweave",
                   help="dst: whose DstToR the frames are for (default conweave)")
    p.add_argument("--out", required=True, help="output prefix (PREFIX.pcap, PREFIX.json)")
    a = p.parse_args(argv)
    if a.stamp != "conweave" and a.role != "dst":
        p.error("--stamp %s is for --role dst" % a.stamp)
    if not 1 <= a.flows <= 1 << 24:
        p.error("--flows must be 1..16777216")
    if not 1 <= a.queues <= min(a.flows, 64):
        p.error("--queues must be 1..min(N, 64)")
    if a.packets is not None and a.packets < 1:
        p.error("--packets must be positive")
    if a.epoch_len < 3:
        p.error("--epoch-len must be >= 3")
    return a, p


def file_names(prefix, queues):
    if queues == 1:
        return [prefix + ".pcap"]
    return ["%s.q%d.pcap" % (prefix, q) for q in range(queues)]


def params_of(a):
    d = {"version": VERSION, "role": a.role, "flows": a.flows, "size": a.size,
         "packets_arg": a.packets, "queues": a.queues, "seed": a.seed}
    if a.queues > 1:
        d["split"] = a.split
    if a.role == "dst":
        d["epoch_len"] = a.epoch_len
    if a.stamp != "conweave":
        d["stamp"] = a.stamp
    return d


def cached(jpath, params):
    try:
        with open(jpath) as f:
            j = json.load(f)
    except (OSError, ValueError):
        return None
    if j.get("params") != params:
        return None
    for path, nb in zip(j.get("files", []), j.get("file_bytes", [])):
        if not os.path.isfile(path) or os.path.getsize(path) != nb:
            return None
    return j


def main(argv=None):
    a, p = parse_args(argv)
    t_start = time.time()
    jpath = a.out + ".json"
    params = params_of(a)
    j = cached(jpath, params)
    if j is not None:
        print("benchgen: %s is current (%s frames), not regenerated" %
              (jpath, sum(j["packets"])), file=sys.stderr)
        return 0
    opcode, plen = SIZES[a.size]
    payload = random.Random(a.seed ^ 0x5A5A).randbytes(plen)
    frame_len = max(60, 14 + 20 + 8 + 12 + plen + 4 + (4 if a.role == "dst" else 0))
    names = file_names(a.out, a.queues)
    d = os.path.dirname(a.out)
    if d:
        os.makedirs(d, exist_ok=True)
    extra = {}
    flows = Flows("src" if a.role == "src" else "dst", a.flows, a.seed)
    split = Split(flows, a.flows, a.queues, a.split)
    for q, fl in enumerate(split.files):
        if not fl:
            p.error("--split %s leaves file %d without a flow (more --flows, or --split "
                    "modulo)" % (a.split, q))
    if a.stamp == "spray":
        packets, per = per_flow(p, a, a.packets if a.packets is not None
                                else max(a.flows, MIN_PACKETS), split)
        outs = [PcapOut(n) for n in names]
        held = gen_spray_dst(flows, a.flows, split, opcode, payload, packets, outs)
        desc = ("spray DATA frames a DstToR receives on a fabric port (MAC %s -> %s), %s, "
                "%d-byte frames incl. the 4-byte sequence header, %d flows 10.2/16 -> "
                "10.1/16, %d packets per flow numbered from 0 in each loop, groups of 4 "
                "arriving as 0, 2, 1, 3, %d flows interleaved at a time: %d per pcap "
                "loop held" % (
                    SRC_MAC["dst"], DST_MAC["dst"], OPNAME[opcode], frame_len, a.flows, per,
                    min(BATCH, a.flows), held))
        extra.update({"packets_per_flow": per,
                      "per_pass": {"spray_held": held, "released_in_order": held,
                                   "spray_resync": a.flows}})
    elif a.stamp == "conga":
        packets, per = per_flow(p, a, a.packets if a.packets is not None
                                else max(a.flows, MIN_PACKETS), split)
        outs = [PcapOut(n) for n in names]
        gen_conga_dst(flows, a.flows, split, opcode, payload, packets, outs)
        desc = ("CONGA-stamped DATA frames from leaf %d on a fabric port (MAC %s -> %s), %s, "
                "%d-byte frames incl. the 4-byte CONGA header (CE and a feedback entry in "
                "every frame), %d flows 10.2/16 -> 10.1/16, round-robin, %d packets per "
                "flow, valid ICRC once the header is removed" % (
                    CONGA_LEAF, SRC_MAC["dst"], DST_MAC["dst"], OPNAME[opcode], frame_len,
                    a.flows, per))
        extra["packets_per_flow"] = per
    elif a.role == "src":
        packets = a.packets if a.packets is not None else default_packets(
            "src", a.flows, a.queues, a.size, a.epoch_len)
        packets, per = per_flow(p, a, packets, split)
        outs = [PcapOut(n) for n in names]
        gen_src(flows, a.flows, split, opcode, payload, packets, outs)
        desc = ("%s, %d-byte frames (%d on the wire), %d flows 10.1/16 -> 10.2/16 into a "
                "ToR host port (MAC %s -> %s), round-robin over flows, %d packets per flow, "
                "IPv4 DSCP 26 ECT(0), valid ICRC" % (
                    OPNAME[opcode], frame_len, frame_len + 4, a.flows,
                    SRC_MAC["src"], DST_MAC["src"], per))
        extra["packets_per_flow"] = per
    else:
        plan = plan_dst(a.flows, a.queues, a.size, a.packets, a.epoch_len, split)
        for q, fp in enumerate(plan):
            nq = len(fp["flows"])
            tot = fp["full"] * fp["c"] + (nq - fp["full"])
            if tot > MAX_FRAMES:
                p.error("%d frames in %s: at most %d (use --queues or fewer --packets)" %
                        (tot, names[q], MAX_FRAMES))
        outs = [PcapOut(n) for n in names]
        st = gen_dst(flows, a.flows, a.queues, opcode, payload, plan, outs)
        full = sum(fp["full"] for fp in plan)
        c, ne = plan[0]["c"], len(plan[0]["epochs"])
        single = a.flows - full
        desc = ("ConWeave DATA frames a DstToR receives on a fabric port (MAC %s -> %s), "
                "%s, %d-byte frames incl. the 4-byte ConWeave header, %d flows 10.2/16 -> "
                "10.1/16; %d flows send %d packets as %d epochs (RTT_REQUEST, phase 0, "
                "phase-1 packets that overtook the TAIL, TAIL, phase 1), %d per pcap "
                "loop held and released by TAILs" % (
                    SRC_MAC["dst"], DST_MAC["dst"], OPNAME[opcode], frame_len, a.flows,
                    full, c, ne, st["reorder_held"]))
        if single:
            desc += "; %d flows send one phase-0 DATA packet (no room for a cycle)" % single
        extra.update({
            "full_cycle_flows": full, "single_packet_flows": single,
            "packets_per_full_flow": c, "epochs_per_full_flow": ne,
            "epoch_len_range": [min(plan[0]["epochs"]), max(plan[0]["epochs"])],
            "batch_flows": BATCH, "ts_step_units": TS_STEP,
            # what one pass over every file makes the DstToR count
            "per_pass": {"reorder_held": st["reorder_held"],
                         "reorder_flush_tail": st["reorder_flush_tail"],
                         "rtt_requests_rx": st["rtt_requests"], "tails_rx": st["tails"],
                         "rtt_replies": st["rtt_requests"], "clears": st["tails"]},
        })
    for o in outs:
        o.close()
    j = {"role": a.role, "flows": a.flows, "size": a.size, "frame_len": frame_len,
         "packets": [o.count for o in outs], "files": names,
         "file_bytes": [o.nbytes for o in outs], "description": desc,
         "params": params, "seed": a.seed, "queues": a.queues,
         "split": a.split if a.queues > 1 else None}
    j.update(extra)
    with open(jpath + ".tmp", "w") as f:
        json.dump(j, f, indent=1)
        f.write("\n")
    os.replace(jpath + ".tmp", jpath)
    print("benchgen: %s, %d frames in %d file(s), %.1f s" % (
        jpath, sum(j["packets"]), len(names), time.time() - t_start), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

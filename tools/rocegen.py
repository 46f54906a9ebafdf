#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The rocetor authors
"""rocegen: RoCEv2 (RC) traffic and pcap generator, without scapy.

Writes a classic pcap (link type Ethernet) of RoCEv2 conversations: SEND,
RDMA WRITE and RDMA READ messages split into MTU-sized packets, optional RC
ACKs, over IPv4 or IPv6, tagged or not. Every frame carries a correct ICRC
(ALGORITHMS.md 0: CRC-32 over eight 0xFF bytes and the IP datagram with
TOS/TTL/checksum, or IPv6 traffic class/flow label/hop limit, the UDP
checksum and BTH byte 4 replaced by ones).

The module is importable: tests use roce_frame(), icrc(), frame_icrc_ok(),
fix_icrc(), write_pcap() and read_pcap(). See doc/tools.md.
"""

import argparse
import array
import bisect
import ipaddress
import random
import struct
import sys
import zlib

# The pcap format lives in tools/rtrpy/pcap.py (shared with benchgen, the
# soak and the packet tests); rocegen's names for it stay (PCAP_HDR, T0,
# read_pcap, write_pcap).
from rtrpy.pcap import PCAP_HDR, T0, read_pcap, write_pcap  # noqa: F401

ROCE_PORT = 4791
ETH_MIN = 60  # shortest Ethernet frame without FCS
ICRC_LEN = 4
BTH_LEN = 12

# RC opcodes (IBTA 1.4, table 35) and the CNP.
SEND_FIRST = 0x00
SEND_MIDDLE = 0x01
SEND_LAST = 0x02
SEND_LAST_IMM = 0x03
SEND_ONLY = 0x04
SEND_ONLY_IMM = 0x05
WRITE_FIRST = 0x06
WRITE_MIDDLE = 0x07
WRITE_LAST = 0x08
WRITE_LAST_IMM = 0x09
WRITE_ONLY = 0x0A
WRITE_ONLY_IMM = 0x0B
READ_REQUEST = 0x0C
READ_RESP_FIRST = 0x0D
READ_RESP_MIDDLE = 0x0E
READ_RESP_LAST = 0x0F
READ_RESP_ONLY = 0x10
ACK = 0x11
ATOMIC_ACK = 0x12
CMP_SWAP = 0x13
FETCH_ADD = 0x14
CNP = 0x81

RETH_LEN = 16
AETH_LEN = 4
IMMDT_LEN = 4

# Extended header bytes an RC opcode carries (what rocegen builds).
EXT_LEN = {
    SEND_LAST_IMM: IMMDT_LEN, SEND_ONLY_IMM: IMMDT_LEN,
    WRITE_FIRST: RETH_LEN, WRITE_LAST_IMM: IMMDT_LEN, WRITE_ONLY: RETH_LEN,
    WRITE_ONLY_IMM: RETH_LEN + IMMDT_LEN, READ_REQUEST: RETH_LEN,
    READ_RESP_FIRST: AETH_LEN, READ_RESP_LAST: AETH_LEN,
    READ_RESP_ONLY: AETH_LEN, ACK: AETH_LEN, ATOMIC_ACK: AETH_LEN + 8,
    CMP_SWAP: 28, FETCH_ADD: 28,
}

AETH_ACK = 0x1F  # syndrome: ACK, credit count "invalid" (no end-to-end credits)
BTH_MIGREQ = 0x40  # real RNICs send MigReq = 1 on RC
BTH_ACKREQ = 0x80

_CRC_FF8 = zlib.crc32(b"\xff" * 8)
_V6_MASK = b"\x6f\xff\xff\xff"


# --------------------------------------------------------------------------
# ICRC and checksums
# --------------------------------------------------------------------------

def icrc(dgram):
    """ICRC of an IP datagram given WITHOUT its last 4 (ICRC) bytes.

    dgram starts at the IP header; its IP/UDP lengths already count the
    ICRC. Returns the 4 ICRC bytes as they go on the wire.
    """
    ver = dgram[0] >> 4
    if ver == 4:
        ihl = (dgram[0] & 0x0F) * 4
        hdr = (dgram[0:1] + b"\xff" + dgram[2:8] + b"\xff" + dgram[9:10] +
               b"\xff\xff" + dgram[12:ihl])
    elif ver == 6:
        ihl = 40
        hdr = _V6_MASK + dgram[4:7] + b"\xff" + dgram[8:40]
    else:
        raise ValueError("not an IP datagram (version %d)" % ver)
    u = ihl
    hdr += (dgram[u:u + 6] + b"\xff\xff" + dgram[u + 8:u + 12] + b"\xff" +
            dgram[u + 13:u + 20])
    crc = zlib.crc32(hdr, _CRC_FF8)
    crc = zlib.crc32(memoryview(dgram)[u + 20:], crc)
    return struct.pack("<I", crc)


def ipv4_csum(hdr):
    """Internet checksum of an IPv4 header whose checksum field is zero."""
    s = sum(struct.unpack("!%dH" % (len(hdr) // 2), hdr))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def _sum16(data):
    """Ones' complement sum of big-endian 16-bit words (len(data) even)."""
    w = array.array("H", data)
    if sys.byteorder == "little":
        w.byteswap()
    s = sum(w)
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return s


def udp_csum(src, dst, udp):
    """UDP checksum over the pseudo header (IPv4 or IPv6 addresses) and the
    whole datagram udp (its checksum field zero)."""
    if len(udp) & 1:
        udp += b"\0"
    s = _sum16(src) + _sum16(dst) + 17 + len(udp) + _sum16(udp)
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    c = ~s & 0xFFFF
    return c or 0xFFFF


def l3_offset(frame):
    """Offset of the IP header: Ethernet plus up to two VLAN tags."""
    off = 14
    et = struct.unpack_from("!H", frame, 12)[0]
    while et in (0x8100, 0x88A8) and off < 22:
        et = struct.unpack_from("!H", frame, off + 2)[0]
        off += 4
    return off, et


def _dgram_bounds(frame):
    off, et = l3_offset(frame)
    if et == 0x0800:
        end = off + struct.unpack_from("!H", frame, off + 2)[0]
    elif et == 0x86DD:
        end = off + 40 + struct.unpack_from("!H", frame, off + 4)[0]
    else:
        raise ValueError("not IPv4/IPv6 (EtherType %#06x)" % et)
    return off, end


def frame_icrc(frame):
    """The ICRC a RoCEv2 frame should carry (Ethernet padding ignored)."""
    off, end = _dgram_bounds(frame)
    return icrc(bytes(frame[off:end - ICRC_LEN]))


def frame_icrc_ok(frame):
    off, end = _dgram_bounds(frame)
    return bytes(frame[end - ICRC_LEN:end]) == icrc(bytes(frame[off:end - ICRC_LEN]))


def fix_icrc(frame):
    """Return frame (bytes) with its ICRC recomputed in place."""
    off, end = _dgram_bounds(frame)
    f = bytearray(frame)
    f[end - ICRC_LEN:end] = icrc(bytes(f[off:end - ICRC_LEN]))
    return bytes(f)


# --------------------------------------------------------------------------
# One direction of a connection: everything constant, precomputed
# --------------------------------------------------------------------------

def mac_bytes(s):
    b = bytes(int(x, 16) for x in s.split(":"))
    if len(b) != 6:
        raise ValueError("bad MAC address %r" % s)
    return b


class Direction:
    """Headers of one sender -> receiver direction (Ethernet .. IP addresses)."""

    def __init__(self, src_mac, dst_mac, src_ip, dst_ip, tos=0x02, ttl=64,
                 vlan=None, pcp=0, ip_id=0):
        src_ip = ipaddress.ip_address(src_ip)
        dst_ip = ipaddress.ip_address(dst_ip)
        if src_ip.version != dst_ip.version:
            raise ValueError("mixed IPv4/IPv6 addresses")
        self.v6 = src_ip.version == 6
        et = b"\x86\xdd" if self.v6 else b"\x08\x00"
        tag = b""
        if vlan is not None:
            tag = struct.pack("!HH", 0x8100, (pcp << 13) | (vlan & 0x0FFF))
        self.eth = mac_bytes(dst_mac) + mac_bytes(src_mac) + tag + et
        self.src = src_ip.packed
        self.dst = dst_ip.packed
        self.tos = tos
        self.ttl = ttl
        self.ip_id = ip_id
        self.l3_hlen = 40 if self.v6 else 20
        self.overhead = len(self.eth) + self.l3_hlen + 8 + BTH_LEN + ICRC_LEN
        if self.v6:
            self.ip_pre = struct.pack("!I", (6 << 28) | (tos << 20))
            self.ip_post = struct.pack("!BB", 17, ttl) + self.src + self.dst
            self.m_post = b"\x11\xff" + self.src + self.dst
        else:
            # checksum of the fixed words; the length is added per packet
            s = sum(struct.unpack("!10H", struct.pack(
                "!BBHHHBBH4s4s", 0x45, tos, 0, ip_id, 0x4000, ttl, 17, 0,
                self.src, self.dst)))
            self.csum_base = s
            self.ip_mid = struct.pack("!HHBB", ip_id, 0x4000, ttl, 17)
            self.ip_addrs = self.src + self.dst
            self.m_pre = b"\x45\xff"
            self.m_post = struct.pack("!HHBBH", ip_id, 0x4000, 0xFF, 17, 0xFFFF) + \
                self.src + self.dst

    def frame(self, sport, opcode, psn, dqp, ext=b"", payload=b"", b4=0, b8=0,
              flags=BTH_MIGREQ, pkey=0xFFFF, pad_to=ETH_MIN, dport=ROCE_PORT,
              good_icrc=True, csum=False):
        """One RoCEv2 frame. payload is padded to 4 bytes (BTH PadCnt).
        csum: fill in the UDP checksum (RNICs send 0; the ICRC masks it)."""
        pad = -len(payload) & 3
        if pad:
            payload = payload + b"\0" * pad
        flags = (flags & 0xCF) | (pad << 4)
        ulen = 8 + BTH_LEN + len(ext) + len(payload) + ICRC_LEN
        bth = struct.pack("!BBHII", opcode, flags, pkey, (b4 << 24) | dqp,
                          (b8 << 24) | (psn & 0xFFFFFF))
        udp_pre = struct.pack("!HHH", sport, dport, ulen)
        if self.v6:
            plen = struct.pack("!H", ulen)
            ip = self.ip_pre + plen + self.ip_post
            m_ip = _V6_MASK + plen + self.m_post
        else:
            tot = 20 + ulen
            s = self.csum_base + tot
            s = (s & 0xFFFF) + (s >> 16)
            s = (s & 0xFFFF) + (s >> 16)
            ip = struct.pack("!BBH", 0x45, self.tos, tot) + self.ip_mid + \
                struct.pack("!H", ~s & 0xFFFF) + self.ip_addrs
            m_ip = self.m_pre + struct.pack("!H", tot) + self.m_post
        crc = zlib.crc32(m_ip + udp_pre + b"\xff\xff" + bth[:4] + b"\xff" + bth[5:],
                         _CRC_FF8)
        if ext:
            crc = zlib.crc32(ext, crc)
        crc = zlib.crc32(payload, crc)
        if not good_icrc:
            crc ^= 0xFFFFFFFF
        tail = b"".join((bth, ext, payload, struct.pack("<I", crc)))
        uc = b"\0\0"
        if csum:
            uc = struct.pack("!H", udp_csum(self.src, self.dst, udp_pre + uc + tail))
        f = b"".join((self.eth, ip, udp_pre, uc, tail))
        if len(f) < pad_to:
            f += b"\0" * (pad_to - len(f))
        return f

    def frame_len(self, ext_len, payload_len, pad_to=ETH_MIN):
        n = self.overhead + ext_len + payload_len + (-payload_len & 3)
        return n if n >= pad_to else pad_to


def reth(va, rkey, length):
    return struct.pack("!QII", va, rkey, length)


def aeth(msn, syndrome=AETH_ACK):
    return struct.pack("!I", (syndrome << 24) | (msn & 0xFFFFFF))


def roce_frame(opcode=SEND_ONLY, psn=0, dqp=0x100, payload=b"",
               src_mac="02:00:00:00:aa:01", dst_mac="02:00:00:00:01:00",
               src_ip="10.1.0.1", dst_ip="10.2.0.1", sport=0xC000,
               dport=ROCE_PORT, dscp=26, ecn=2, ttl=64, vlan=None, pcp=3,
               ackreq=False, b4=0, resv7=0, flags=BTH_MIGREQ, pkey=0xFFFF,
               ext=None, reth_=None, aeth_=None, immdt=None, pad_to=ETH_MIN,
               good_icrc=True, udp_csum=False):
    """A single RoCEv2 frame with a correct ICRC (unless good_icrc=False).

    ext: raw extended-header bytes; or reth_=(va, rkey, len), aeth_=msn or
    (syndrome, msn), immdt=int. For CNP (0x81) pass payload=bytes(16).
    """
    d = Direction(src_mac, dst_mac, src_ip, dst_ip, tos=(dscp << 2) | ecn,
                  ttl=ttl, vlan=vlan, pcp=pcp)
    if ext is None:
        ext = b""
        if reth_ is not None:
            ext += reth(*reth_)
        if aeth_ is not None:
            ext += aeth(*aeth_[::-1]) if isinstance(aeth_, tuple) else aeth(aeth_)
        if immdt is not None:
            ext += struct.pack("!I", immdt)
    b8 = (BTH_ACKREQ if ackreq else 0) | (resv7 & 0x7F)
    return d.frame(sport, opcode, psn, dqp, ext, payload, b4=b4, b8=b8,
                   flags=flags, pkey=pkey, pad_to=pad_to, dport=dport,
                   good_icrc=good_icrc, csum=udp_csum)


# --------------------------------------------------------------------------
# Traffic model
# --------------------------------------------------------------------------

class Cdf:
    """A flow-size CDF file: lines 'size_bytes cumulative_percent'."""

    def __init__(self, path):
        pts = []
        with open(path) as f:
            for line in f:
                line = line.split("#")[0].split()
                if len(line) < 2:
                    continue
                pts.append((float(line[0]), float(line[1])))
        if len(pts) < 2:
            raise ValueError("%s: need at least two points" % path)
        pts.sort(key=lambda p: (p[1], p[0]))
        self.sizes = [p[0] for p in pts]
        self.cum = [p[1] for p in pts]
        if self.cum[-1] <= 0:
            raise ValueError("%s: the CDF never rises above 0" % path)

    def sample(self, rng):
        u = rng.random() * self.cum[-1]
        i = bisect.bisect_right(self.cum, u)
        if i >= len(self.cum):
            return int(self.sizes[-1])
        c0, c1 = self.cum[i - 1], self.cum[i]
        s0, s1 = self.sizes[i - 1], self.sizes[i]
        s = s0 + (s1 - s0) * ((u - c0) / (c1 - c0) if c1 > c0 else 0.0)
        return max(1, int(round(s)))

    def mean(self):
        m = 0.0
        for i in range(1, len(self.cum)):
            m += (self.cum[i] - self.cum[i - 1]) * (self.sizes[i] + self.sizes[i - 1]) / 2
        return m / self.cum[-1]


class Conn:
    """One RC QP pair (a sub-flow): requester -> responder and back."""

    def __init__(self, fwd, rev, sqp, dqp, sport, rsport, psn, rkey, va):
        self.fwd, self.rev = fwd, rev
        self.sqp, self.dqp = sqp, dqp
        self.sport, self.rsport = sport, rsport
        self.psn = psn & 0xFFFFFF
        self.msn = 0
        self.unacked = 0
        self.last_psn = None
        self.rkey, self.va = rkey, va


class Gen:
    """Turns options into a stream of packet specs and frames."""

    OPS = ("send", "write", "read")

    def __init__(self, a):
        self.a = a
        self.rng = random.Random(a.seed)
        self.payload_buf = random.Random(a.seed ^ 0x5A5A).randbytes(65536 + 8192)
        self.cdf = Cdf(a.workload) if a.workload else None
        self.flows = [self._make_flow(i) for i in range(a.flows)]
        self.data_pkts = self.ack_pkts = self.nbytes = 0

    # ---- set-up --------------------------------------------------------
    @staticmethod
    def _host(net, i):
        n = net.num_addresses
        if n <= 2:
            return net.network_address + (i % n)
        usable = n - 2 if net.version == 4 else n - 1
        return net.network_address + 1 + (i % usable)

    def _make_flow(self, i):
        a = self.a
        src = self._host(a.src_net, i)
        dst = self._host(a.dst_net, i)
        tos = (a.dscp << 2) | a.ecn
        fwd = Direction(a.src_mac, a.dst_mac, src, dst, tos, a.ttl, a.vlan, a.pcp)
        rev = Direction(a.dst_mac, a.src_mac, dst, src, tos, a.ttl, a.vlan, a.pcp)
        conns = []
        for j in range(a.subflows):
            k = i * a.subflows + j
            if a.sport is None:
                sport = self.rng.randrange(0xC000, 0x10000)
                rsport = self.rng.randrange(0xC000, 0x10000)
            else:
                sport = rsport = (a.sport + j) & 0xFFFF
            conns.append(Conn(fwd, rev, sqp=(a.qp_base + 2 * k) & 0xFFFFFF,
                              dqp=(a.qp_base + 2 * k + 1) & 0xFFFFFF,
                              sport=sport, rsport=rsport, psn=a.psn_base,
                              rkey=0x1000 + k, va=0x7F0000000000 + (k << 32)))
        return {"index": i, "conns": conns, "fwd": fwd, "rng": random.Random(
            (a.seed << 20) ^ i)}

    # ---- sizes -----------------------------------------------------------
    def cap(self, d, op):
        """Payload bytes per packet for an operation in direction d."""
        a = self.a
        if a.frame_size is None:
            return a.mtu
        ext = {"send": 0, "write": RETH_LEN, "read": AETH_LEN}[op]
        c = (a.frame_size - d.overhead - ext) & ~3
        return min(a.mtu, max(c, 0))

    def min_frame(self, d, op):
        """Smallest --frame-size for op (messages without payload allowed)."""
        if op == "send":
            return d.frame_len(0, 0)
        if op == "write":
            return d.frame_len(RETH_LEN, 0)
        return max(d.frame_len(RETH_LEN, 0), d.frame_len(AETH_LEN, 0))

    def pick_op(self, rng):
        if self.a.op == "mix":
            return self.OPS[rng.randrange(3)]
        return self.a.op

    # ---- per flow ---------------------------------------------------------
    def flow_packets(self, fl):
        """Yields packet specs of one flow, in the order its hosts send them."""
        a = self.a
        rng = fl["rng"]
        conns = fl["conns"]
        if a.packets is not None:
            budget = a.packets
            while budget > 0:
                op = self.pick_op(rng)
                if op == "read" and budget < 2:
                    op = "write"  # a READ needs a request and a response
                size = self.msg_size(fl, op)
                n = self.msg_count(fl, op, size)
                if n > budget:
                    # the last message shrinks to use the budget exactly
                    lo, hi = 0, size
                    while lo < hi:
                        mid = (lo + hi + 1) // 2
                        if self.msg_count(fl, op, mid) <= budget:
                            lo = mid
                        else:
                            hi = mid - 1
                    size = lo
                    n = self.msg_count(fl, op, size)
                budget -= n
                yield from self.message(fl, op, size, rng)
        else:
            for _ in range(a.messages):
                op = self.pick_op(rng)
                yield from self.message(fl, op, self.msg_size(fl, op), rng)
        for c in conns:
            if c.unacked:
                yield self.ack_spec(c, rng)

    def msg_size(self, fl, op):
        a = self.a
        if self.cdf is not None:
            return self.cdf.sample(fl["rng"])
        if a.size is not None:
            return a.size
        return self.cap(fl["fwd"], op)  # one full packet

    @staticmethod
    def split(size, n):
        """Sub-message sizes of a message over n sub-flows: (index, bytes)."""
        if size == 0 or n == 1:
            return [(0, size)]
        base, extra = divmod(size, n)
        return [(j, base + (1 if j < extra else 0)) for j in range(n) if base or j < extra]

    def msg_count(self, fl, op, size):
        """Data packets a message produces (READ: request plus responses)."""
        cap = self.cap(fl["fwd"], op)
        parts = self.split(size, len(fl["conns"]))
        n = sum(max(1, -(-p // cap)) if cap else 1 for _, p in parts)
        return n + len(parts) if op == "read" else n

    def message(self, fl, op, size, rng):
        """One message, split over the flow's sub-flows (Shaper emulation)."""
        conns = fl["conns"]
        parts = [self.submessage(conns[j], op, p, rng) for j, p in self.split(size, len(conns))]
        if len(parts) == 1:
            yield from parts[0]
            return
        # the sub-WQEs go out in parallel: round-robin over sub-flows
        while parts:
            alive = []
            for p in parts:
                s = next(p, None)
                if s is not None:
                    yield s
                    alive.append(p)
            parts = alive

    def sport_of(self, c, rng, rev=False):
        if self.a.spray:
            return rng.randrange(0xC000, 0x10000)
        return c.rsport if rev else c.sport

    def ack_spec(self, c, rng):
        c.unacked = 0
        return ("ack", c.rev, self.sport_of(c, rng, True), ACK, c.last_psn, c.sqp,
                aeth(c.msn), 0, 0)

    def submessage(self, c, op, size, rng):
        a = self.a
        d = c.fwd
        cap = self.cap(d, op)
        if op == "read":
            rcap = self.cap(c.rev, op)
            npk = max(1, -(-size // rcap)) if rcap else 1
            psn0 = c.psn
            yield ("data", d, self.sport_of(c, rng), READ_REQUEST, psn0, c.dqp,
                   reth(c.va, c.rkey, size), 0, 0)
            rcap = self.cap(c.rev, op)
            left = size
            for k in range(npk):
                plen = min(rcap, left)
                left -= plen
                if npk == 1:
                    opc = READ_RESP_ONLY
                elif k == 0:
                    opc = READ_RESP_FIRST
                elif k == npk - 1:
                    opc = READ_RESP_LAST
                else:
                    opc = READ_RESP_MIDDLE
                ext = aeth(c.msn) if opc != READ_RESP_MIDDLE else b""
                yield ("data", c.rev, self.sport_of(c, rng, True), opc,
                       (psn0 + k) & 0xFFFFFF, c.sqp, ext, plen, 0)
            c.psn = (psn0 + npk) & 0xFFFFFF
            c.msn = (c.msn + 1) & 0xFFFFFF
            return
        npk = max(1, -(-size // cap)) if cap else 1
        left = size
        for k in range(npk):
            plen = min(cap, left)
            left -= plen
            last = k == npk - 1
            if op == "send":
                if npk == 1:
                    opc = SEND_ONLY_IMM if a.imm else SEND_ONLY
                elif k == 0:
                    opc = SEND_FIRST
                elif last:
                    opc = SEND_LAST_IMM if a.imm else SEND_LAST
                else:
                    opc = SEND_MIDDLE
                ext = b""
            else:
                if npk == 1:
                    opc = WRITE_ONLY_IMM if a.imm else WRITE_ONLY
                elif k == 0:
                    opc = WRITE_FIRST
                elif last:
                    opc = WRITE_LAST_IMM if a.imm else WRITE_LAST
                else:
                    opc = WRITE_MIDDLE
                ext = b""
                if opc in (WRITE_FIRST, WRITE_ONLY, WRITE_ONLY_IMM):
                    ext = reth(c.va, c.rkey, size)
            if opc in (SEND_LAST_IMM, SEND_ONLY_IMM, WRITE_LAST_IMM, WRITE_ONLY_IMM):
                ext += struct.pack("!I", c.msn)
            psn = c.psn
            c.psn = (psn + 1) & 0xFFFFFF
            c.last_psn = psn
            if last:
                c.msn = (c.msn + 1) & 0xFFFFFF
            ackreq = False
            if a.acks:
                c.unacked += 1
                ackreq = c.unacked >= a.acks
            yield ("data", d, self.sport_of(c, rng), opc, psn, c.dqp, ext, plen,
                   BTH_ACKREQ if ackreq else 0)
            if ackreq:
                yield self.ack_spec(c, rng)

    # ---- output ---------------------------------------------------------------
    def specs(self):
        gens = [self.flow_packets(fl) for fl in self.flows]
        if self.a.interleave == "seq":
            for g in gens:
                yield from g
            return
        while gens:
            alive = []
            for g in gens:
                s = next(g, None)
                if s is not None:
                    yield s
                    alive.append(g)
            gens = alive

    def build(self, spec):
        kind, d, sport, opc, psn, dqp, ext, plen, b8 = spec
        pad_to = ETH_MIN
        if self.a.frame_size is not None and plen:
            pad_to = self.a.frame_size
        off = (psn * 64) & 0xFFFF
        return d.frame(sport, opc, psn, dqp, ext, self.payload_buf[off:off + plen],
                       b4=0, b8=b8, pad_to=pad_to, csum=self.a.udp_csum)

    def length(self, spec):
        kind, d, sport, opc, psn, dqp, ext, plen, b8 = spec
        pad_to = ETH_MIN
        if self.a.frame_size is not None and plen:
            pad_to = self.a.frame_size
        return d.frame_len(len(ext), plen, pad_to)

    def run(self, out):
        a = self.a
        t = 0.0  # ns since the first packet
        wire = 8.0 / a.gbps  # ns per byte
        buf = []
        for spec in self.specs():
            if spec[0] == "ack":
                self.ack_pkts += 1
            else:
                self.data_pkts += 1
            if out is None:
                self.nbytes += self.length(spec)
                continue
            f = self.build(spec)
            n = len(f)
            self.nbytes += n
            us = int(t // 1000)
            buf.append(struct.pack("<IIII", T0 + us // 1000000, us % 1000000, n, n))
            buf.append(f)
            t += (n + 24) * wire  # + FCS, preamble, IFG
            if len(buf) >= 8192:
                out.write(b"".join(buf))
                buf.clear()
        if out is not None and buf:
            out.write(b"".join(buf))


# --------------------------------------------------------------------------
# Command line
# --------------------------------------------------------------------------

def _net(s):
    try:
        return ipaddress.ip_network(s, strict=False)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e))


def _int(s):
    return int(s, 0)


def _sport(s):
    if s == "random":
        return None
    v = int(s, 0)
    if not 0 < v < 65536:
        raise argparse.ArgumentTypeError("port out of range")
    return v


def parse_args(argv):
    p = argparse.ArgumentParser(
        prog="rocegen.py",
        description="Generate RoCEv2 (RC) traffic as a pcap, with valid ICRCs.")
    p.add_argument("-o", "--output", default=None, help="pcap to write ('-' = stdout)")
    p.add_argument("--flows", type=int, default=1, help="connections (default 1)")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--packets", type=int, default=None,
                   help="data packets per flow, exactly (default 100); ACKs come on top")
    g.add_argument("--messages", type=int, default=None, help="messages per flow")
    p.add_argument("--workload", default=None,
                   help="flow-size CDF file (size_bytes cumulative_percent); needs --messages")
    p.add_argument("--op", choices=("send", "write", "read", "mix"), default="send")
    p.add_argument("--imm", action="store_true", help="use the *_WITH_IMMEDIATE last/only opcodes")
    p.add_argument("--acks", type=int, nargs="?", const=1, default=0, metavar="K",
                   help="responder sends an RC ACK every K request packets (K=1 if omitted)")
    p.add_argument("--size", type=int, default=None, help="message size in bytes")
    p.add_argument("--frame-size", type=int, default=None,
                   help="every data frame exactly this many bytes (pcap length, without FCS)")
    p.add_argument("--mtu", type=int, default=1024, help="RoCE path MTU, 256..4096 (default 1024)")
    p.add_argument("--src-net", type=_net, default=_net("10.1.0.0/24"))
    p.add_argument("--dst-net", type=_net, default=_net("10.2.0.0/24"))
    p.add_argument("--src-mac", default="02:00:00:00:aa:01")
    p.add_argument("--dst-mac", default="02:00:00:00:01:00")
    p.add_argument("--dscp", type=int, default=26)
    p.add_argument("--ecn", type=int, default=2, choices=range(4), help="ECN bits (default 2 = ECT(0))")
    p.add_argument("--ttl", type=int, default=64)
    p.add_argument("--vlan", type=int, default=None)
    p.add_argument("--pcp", type=int, default=3)
    p.add_argument("--sport", type=_sport, default=None,
                   help="UDP source port, or 'random' per flow (default)")
    p.add_argument("--qp-base", type=_int, default=0x100)
    p.add_argument("--psn-base", type=_int, default=0)
    p.add_argument("--subflows", type=int, default=1,
                   help="split each message over N QPs/source ports (SeqBalance Shaper)")
    p.add_argument("--udp-csum", action="store_true",
                   help="compute UDP checksums (default 0, as RNICs send; the ICRC masks it)")
    p.add_argument("--spray", action="store_true",
                   help="a new random UDP source port on every packet (REPS / MP-RDMA)")
    p.add_argument("--interleave", choices=("rr", "seq"), default="rr")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--gbps", type=float, default=100.0, help="line rate for the timestamps")
    p.add_argument("--count-only", action="store_true", help="print the summary only")
    a = p.parse_args(argv)

    def fail(msg):
        p.error(msg)

    if a.output is None and not a.count_only:
        fail("-o FILE (or --count-only) is required")
    if a.workload and a.messages is None:
        fail("--workload needs --messages M")
    if a.workload and a.size is not None:
        fail("--workload and --size exclude each other")
    if a.packets is None and a.messages is None:
        a.packets = 100
    if (a.packets is not None and a.packets < 1) or (a.messages is not None and a.messages < 1):
        fail("--packets/--messages must be at least 1")
    if a.flows < 1 or a.subflows < 1:
        fail("--flows and --subflows must be at least 1")
    if not 256 <= a.mtu <= 4096:
        fail("--mtu must be 256..4096")
    if a.size is not None and a.size < 0:
        fail("--size must be >= 0")
    if not 0 <= a.dscp < 64:
        fail("--dscp must be 0..63")
    if a.vlan is not None and not 0 <= a.vlan < 4096:
        fail("--vlan must be 0..4095")
    if not 0 <= a.pcp < 8:
        fail("--pcp must be 0..7")
    if not 0 < a.ttl < 256:
        fail("--ttl must be 1..255")
    if a.acks < 0:
        fail("--acks must be >= 1")
    if a.src_net.version != a.dst_net.version:
        fail("--src-net and --dst-net must be the same IP version")
    a.psn_base &= 0xFFFFFF
    a.qp_base &= 0xFFFFFF
    try:
        mac_bytes(a.src_mac)
        mac_bytes(a.dst_mac)
    except ValueError as e:
        fail(str(e))
    return a


def main(argv=None):
    a = parse_args(sys.argv[1:] if argv is None else argv)
    try:
        gen = Gen(a)
    except (OSError, ValueError) as e:
        print("rocegen: %s" % e, file=sys.stderr)
        return 2
    if a.frame_size is not None:
        d = gen.flows[0]["fwd"]
        ops = Gen.OPS if a.op == "mix" else (a.op,)
        for op in ops:
            need = gen.min_frame(d, op)
            if a.frame_size < need:
                print("rocegen: --frame-size %d is too small for %s (at least %d bytes)"
                      % (a.frame_size, op, need), file=sys.stderr)
                return 2
            if gen.cap(d, op) == 0 and (a.workload or a.size):
                print("rocegen: --frame-size %d leaves no room for payload in %s; "
                      "drop --size/--workload or use at least %d bytes"
                      % (a.frame_size, op, d.frame_len(
                          {"send": 0, "write": RETH_LEN, "read": AETH_LEN}[op], 4, 0)),
                      file=sys.stderr)
                return 2
    out = None
    close = False
    if not a.count_only:
        if a.output == "-":
            out = sys.stdout.buffer
        else:
            out = open(a.output, "wb")
            close = True
        out.write(PCAP_HDR)
    try:
        gen.run(out)
    finally:
        if close:
            out.close()
    print("rocegen: %d flows, %d packets (%d data, %d acks), %d bytes%s"
          % (a.flows, gen.data_pkts + gen.ack_pkts, gen.data_pkts, gen.ack_pkts,
             gen.nbytes, "" if out is None else " -> %s" % a.output), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The rocetor authors
"""models and frame helpers shared by the LB packet tests"""
import ipaddress
import struct

import roce as R


# ------------------------------------------------------------- the model
_CRC32C = []
for _i in range(256):
    _c = _i
    for _ in range(8):
        _c = (_c >> 1) ^ (0x82F63B78 if _c & 1 else 0)
    _CRC32C.append(_c)


def crc32c(crc, data):
    """CRC32C as the SSE4.2 instruction computes it: reflected, no
    pre/post inversion, bytes in memory order (rte_hash_crc)."""
    for x in data:
        crc = _CRC32C[(crc ^ x) & 0xFF] ^ (crc >> 8)
    return crc


def mix(h):
    h ^= h >> 16
    h = (h * 0x85EBCA6B) & 0xFFFFFFFF
    h ^= h >> 13
    h = (h * 0xC2B2AE35) & 0xFFFFFFFF
    return h ^ (h >> 16)


def flow_hash(f, seed):
    """ALGORITHMS.md 1: hash(src IP, dst IP, UDP sport, dport, proto) of a
    switch with switch.seed `seed`."""
    l3, l4, _ = R.offsets(f)
    if f[l3] >> 4 == 4:
        crc, proto = crc32c(seed, f[l3 + 12:l3 + 20]), f[l3 + 9]
    else:
        crc, proto = crc32c(seed, f[l3 + 8:l3 + 40]), f[l3 + 6]
    return mix(crc32c(crc32c(crc, f[l4:l4 + 4]), bytes([proto])))


# ------------------------------------------------------------- frames
def mac(s):
    return bytes.fromhex(s.replace(":", ""))


def ip_str(a):
    return str(ipaddress.ip_address(a))


def is_v4(f):
    l3, _, _ = R.offsets(f)
    return f[l3] >> 4 == 4


def addrs(f):
    l3, _, _ = R.offsets(f)
    if f[l3] >> 4 == 4:
        return bytes(f[l3 + 12:l3 + 16]), bytes(f[l3 + 16:l3 + 20])
    return bytes(f[l3 + 8:l3 + 24]), bytes(f[l3 + 24:l3 + 40])


def sport_of(f):
    _, l4, _ = R.offsets(f)
    return int.from_bytes(f[l4:l4 + 2], "big")


def is_roce(f):
    l3, l4, _ = R.offsets(f)
    proto = f[l3 + 9] if f[l3] >> 4 == 4 else f[l3 + 6]
    return proto == 17 and int.from_bytes(f[l4 + 2:l4 + 4], "big") == R.ROCE_PORT


def subflow(f):
    """(src IP, dst IP, UDP sport): a sub-flow (ALGORITHMS.md 3)."""
    s, d = addrs(f)
    return s, d, sport_of(f)


def pkt_key(f):
    """A packet's identity across a switch (the payload byte 0 too, for
    non-RoCE frames that share a 5-tuple)."""
    _, _, b = R.offsets(f)
    if is_roce(f):
        bf = R.bth_fields(f)
        return subflow(f) + (bf["opcode"], bf["dqp"], bf["psn"])
    return subflow(f) + (f[b],)


def masked(f, b4=True, roce_only=True):
    """f with what a switch may rewrite zeroed: MACs, TTL / hop limit,
    IPv4 checksum, and (b4) BTH byte 4 (roce_only: of RoCE frames only)."""
    l3, _, b = R.offsets(f)
    g = bytearray(f)
    g[0:12] = bytes(12)
    if g[l3] >> 4 == 4:
        g[l3 + 8] = 0
        g[l3 + 10:l3 + 12] = b"\0\0"
    else:
        g[l3 + 7] = 0
    if b4 and (is_roce(f) or not roce_only):
        g[b + 4] = 0
    return bytes(g)


def same_except(out, sent, b4=True, roce_only=True):
    return (len(out) == len(sent) and
            masked(out, b4, roce_only) == masked(sent, b4, roce_only))


def ttl_of(f):
    l3, _, _ = R.offsets(f)
    return f[l3 + 8] if f[l3] >> 4 == 4 else f[l3 + 7]


def ipv4_csum(h):
    h = bytearray(h)
    h[10:12] = b"\0\0"
    s = sum(struct.unpack("!%dH" % (len(h) // 2), bytes(h)))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def ipv4_csum_ok(f):
    l3, l4, _ = R.offsets(f)
    h = f[l3:l4]
    s = sum(struct.unpack("!%dH" % (len(h) // 2), h))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return s == 0xFFFF


def with_b4(f, v):
    _, _, b = R.offsets(f)
    g = bytearray(f)
    g[b + 4] = v
    return bytes(g)


def filler(dst_mac, n):
    """n copies of a plain UDP frame with no route: dropped (no_route)."""
    f = R.frame(R.SEND_ONLY, psn=1, src_ip="10.9.9.9", dst_ip="10.77.0.1", dst_mac=dst_mac,
                dport=4792)
    return [f] * n


# ------------------------------------------------------------- checks
def ok_run(t, res, what):
    return t.check(res.rc == 0 and res.stats,
                   "%s: rocetor rc %d %s" % (what, res.rc, res.stderr[-1500:]))


def summary(t, part, before, extra=""):
    print("%s: %d checks, %d failed%s" % (part, t.passed + t.failed - before[0],
                                          t.failed - before[1], extra))

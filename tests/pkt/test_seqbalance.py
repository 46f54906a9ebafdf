#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The rocetor authors
"""SeqBalance on pcap ports (ALGORITHMS.md 3), one switch at a time.

1. SrcToR: host RoCE traffic (rocegen, IPv4 and IPv6, Shaper sub-flows) is
   cut into sub-flows that each keep one uplink, tagged with the uplink
   index in BTH byte 4 and otherwise untouched; with no path inactive the
   chosen path is h1 mod n, the one ECMP takes (checked against a second run
   in lb: ecmp and against this file's own model of the flow hash:
   CRC32C of the 5-tuple, finalised, ALGORITHMS.md 1). Non-RoCE and transit
   (fabric-side) packets go by ECMP with byte 4 untouched.
2. DstToR: every data packet reaches the host with byte 4 zeroed and its
   ICRC valid; exactly one Congestion Packet (ConWeave NOTIFY layout) per
   CE-marked data packet goes back up, checked byte by byte against an
   independent builder and field by field with scapy (IPv4 and IPv6).
3. SrcToR feedback in one process. Packets of different pcap ports have no
   guaranteed order, but the worker polls every port once per loop with
   bursts of 32 and net_pcap fills a burst from its file: filler frames (no
   route, dropped) in front put the Congestion Packets (fabric port) many
   loops after the first packets of the flows they answer and many loops
   before the new sub-flows that must avoid the marked paths (host port);
   phi and subflow_idle are set to seconds, so the run's timing does not
   matter. The new sub-flows' paths are predicted from the double-hash
   sequence (h1 + i*h2) mod n with the model. What this cannot show
   deterministically (phi expiring, a new sub-flow after an idle gap) is
   left to lib/lb/test_seqbalance.c (virtual clock) and
   tests/pkt/test_leafspine.py (end to end).
4. Host trust: a Congestion Packet from a host is dropped (host_lb_packet);
   a host's zero-payload packet with the same Resv7 bits and a valid ICRC
   is forwarded.
5. Spine (switch.role spine, lb seqbalance): ECMP, byte 4, Resv7 and the
   control header unchanged.
6. Config: a spine with a host port is refused (exit 2, ports[i].role).
"""
import contextlib
import io
import ipaddress
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
import harness  # noqa: E402
import roce as R  # noqa: E402

HOST_MAC = "02:00:00:00:02:00"
FAB_MAC = ["02:00:00:00:02:%02x" % (i + 1) for i in range(4)]
HOST_NH = "02:00:00:00:aa:05"       # the RNIC behind host port 0
SPINE = ["02:00:00:00:cc:%02x" % (i + 1) for i in range(4)]
SEED = 0x5EB0CA1                      # switch.seed: the model needs it
SB_H2_SALT = 0x9E3779B9               # RTR_SB_H2_SALT (rtr_seqbalance.h)
CP_B8 = 3 << 5                        # BTH byte 8 of a Congestion Packet
TOP_CLASS = 7                         # control class: the highest of 8


def mac(s):
    return bytes.fromhex(s.replace(":", ""))


def tor_config(local, remote, lb="seqbalance", sb="", name="tor", sw_id=1):
    """A ToR: `local` prefixes behind host port 0, `remote` ones over the
    4 uplinks (ports 1..4), one uplink group per remote prefix."""
    return ("switch: {name: %s, id: %d, lb: %s, seed: %d}\nports:\n" % (name, sw_id, lb, SEED) +
            '  - {port: 0, role: host, mac: "%s"}\n' % HOST_MAC +
            "".join('  - {port: %d, role: fabric, mac: "%s"}\n' % (i + 1, FAB_MAC[i])
                    for i in range(4)) +
            "routes:\n" +
            "".join('  - {prefix: "%s", port: 0, nexthop_mac: "%s"}\n' % (p, HOST_NH)
                    for p in local) +
            "".join('  - prefix: "%s"\n    paths:\n' % p +
                    "".join('      - {port: %d, nexthop_mac: "%s"}\n' % (i + 1, SPINE[i])
                            for i in range(4))
                    for p in remote) +
            "seqbalance: {flow_table_size: 4096%s}\n" % sb)


def src_config(lb="seqbalance", sb=""):
    return tor_config(["10.1.0.0/16", "fd00:1::/64"], ["10.2.0.0/16", "fd00:2::/64"],
                      lb=lb, sb=sb, name="src", sw_id=1)


def dst_config():
    return tor_config(["10.2.0.0/16", "fd00:2::/64"], ["10.1.0.0/16", "fd00:1::/64"],
                      name="dst", sw_id=2)


def gen(*args):
    """rocegen frames (its one-line summary kept off our output)."""
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        return R.generate(*args)


# ------------------------------------------------------------- the model
_CRC32C = []
for _i in range(256):
    _c = _i
    for _ in range(8):
        _c = (_c >> 1) ^ (0x82F63B78 if _c & 1 else 0)
    _CRC32C.append(_c)


def _crc32c(crc, data):
    """CRC32C as the SSE4.2 instruction computes it: reflected, no
    pre/post inversion, bytes in memory order (rte_hash_crc)."""
    for x in data:
        crc = _CRC32C[(crc ^ x) & 0xFF] ^ (crc >> 8)
    return crc


def _mix(h):
    h ^= h >> 16
    h = (h * 0x85EBCA6B) & 0xFFFFFFFF
    h ^= h >> 13
    h = (h * 0xC2B2AE35) & 0xFFFFFFFF
    return h ^ (h >> 16)


def flow_hash(f):
    """ALGORITHMS.md 1: hash(src IP, dst IP, UDP sport, dport, proto)."""
    l3, l4, _ = R.offsets(f)
    if f[l3] >> 4 == 4:
        crc, proto = _crc32c(SEED, f[l3 + 12:l3 + 20]), f[l3 + 9]
    else:
        crc, proto = _crc32c(SEED, f[l3 + 8:l3 + 40]), f[l3 + 6]
    return _mix(_crc32c(_crc32c(crc, f[l4:l4 + 4]), bytes([proto])))


def candidates(f, n):
    """The double-hash sequence of a new sub-flow (ALGORITHMS.md 3)."""
    h1 = flow_hash(f)
    h2 = _mix(h1 ^ SB_H2_SALT) | 1
    return [(h1 + i * h2) % n for i in range(n)]


def choose(f, n, inactive):
    """(path, i): the first candidate that is not inactive, or h1 mod n."""
    c = candidates(f, n)
    for i, p in enumerate(c):
        if p not in inactive:
            return p, i
    return c[0], None


# ------------------------------------------------------------- frames
def is_v4(f):
    l3, _, _ = R.offsets(f)
    return f[l3] >> 4 == 4


def addrs(f):
    l3, _, _ = R.offsets(f)
    if f[l3] >> 4 == 4:
        return bytes(f[l3 + 12:l3 + 16]), bytes(f[l3 + 16:l3 + 20])
    return bytes(f[l3 + 8:l3 + 24]), bytes(f[l3 + 24:l3 + 40])


def ip_str(a):
    return str(ipaddress.ip_address(a))


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


def ttl_of(f):
    l3, _, _ = R.offsets(f)
    return f[l3 + 8] if f[l3] >> 4 == 4 else f[l3 + 7]


def masked(f, b4):
    """The frame with what a switch may rewrite zeroed: MACs, TTL / hop
    limit, IPv4 checksum, and (b4) BTH byte 4."""
    l3, _, b = R.offsets(f)
    g = bytearray(f)
    g[0:12] = bytes(12)
    if g[l3] >> 4 == 4:
        g[l3 + 8] = 0
        g[l3 + 10:l3 + 12] = b"\0\0"
    else:
        g[l3 + 7] = 0
    if b4:
        g[b + 4] = 0
    return bytes(g)


def same_except(out, sent, b4=True):
    return len(out) == len(sent) and masked(out, b4) == masked(sent, b4)


def ipv4_csum_ok(f):
    l3, l4, _ = R.offsets(f)
    h = f[l3:l4]
    s = sum(struct.unpack("!%dH" % (len(h) // 2), h))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return s == 0xFFFF


def ipv4_csum(h):
    h = bytearray(h)
    h[10:12] = b"\0\0"
    s = sum(struct.unpack("!%dH" % (len(h) // 2), bytes(h)))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def with_b4(f, v):
    _, _, b = R.offsets(f)
    g = bytearray(f)
    g[b + 4] = v
    return bytes(g)


def with_dst_mac(f, m):
    return mac(m) + bytes(f[6:])


def congestion_packet(data, ttl=64):
    """The Congestion Packet answering data frame `data` (as it arrived),
    built from the spec (ALGORITHMS.md 3 and 2.1): Eth/IP/UDP/BTH copied,
    addresses swapped, ports kept, ECN cleared, TTL 64, cut after the BTH
    and 4 zero bytes, lengths = the cut, UDP checksum 0, byte 4 = the
    PathTag, byte 8 = cw_op 3. MACs as in `data`."""
    l3, l4, b = R.offsets(data)
    g = bytearray(data[:b + 12]) + bytearray(4)
    n = len(g)
    if g[l3] >> 4 == 4:
        s, d = bytes(g[l3 + 12:l3 + 16]), bytes(g[l3 + 16:l3 + 20])
        g[l3 + 12:l3 + 16], g[l3 + 16:l3 + 20] = d, s
        g[l3 + 1] &= 0xFC
        g[l3 + 2:l3 + 4] = struct.pack("!H", n - l3)
        g[l3 + 8] = ttl
        g[l3 + 10:l3 + 12] = struct.pack("!H", ipv4_csum(g[l3:l4]))
    else:
        s, d = bytes(g[l3 + 8:l3 + 24]), bytes(g[l3 + 24:l3 + 40])
        g[l3 + 8:l3 + 24], g[l3 + 24:l3 + 40] = d, s
        g[l3 + 1] &= 0xCF
        g[l3 + 4:l3 + 6] = struct.pack("!H", n - l4)
        g[l3 + 7] = ttl
    g[l4 + 4:l4 + 6] = struct.pack("!H", n - l4)
    g[l4 + 6:l4 + 8] = b"\0\0"
    g[b + 8] = CP_B8
    return bytes(g)


def routed(f, port):
    """f as it leaves uplink `port` (1..4): MACs, TTL - 1, checksum."""
    l3, l4, _ = R.offsets(f)
    g = bytearray(f)
    g[0:6], g[6:12] = mac(SPINE[port - 1]), mac(FAB_MAC[port - 1])
    if g[l3] >> 4 == 4:
        g[l3 + 8] -= 1
        g[l3 + 10:l3 + 12] = struct.pack("!H", ipv4_csum(g[l3:l4]))
    else:
        g[l3 + 7] -= 1
    return bytes(g)


def filler(dst_mac, n):
    """n copies of a plain UDP frame with no route: dropped (no_route)."""
    f = R.frame(R.SEND_ONLY, psn=1, src_ip="10.9.9.9", dst_ip="10.77.0.1", dst_mac=dst_mac,
                dport=4792)
    return [f] * n


def sent_in_class(stats, ports, cls):
    return sum(stats["ports"][p]["classes"][cls]["sent"] for p in ports)


def ok_run(t, res, what):
    return t.check(res.rc == 0 and res.stats,
                   "%s: rocetor rc %d %s" % (what, res.rc, res.stderr[-1500:]))


def summary(t, part, before, extra=""):
    print("%s: %d checks, %d failed%s" % (part, t.passed + t.failed - before[0],
                                          t.failed - before[1], extra))


# --------------------------------------------------------------------------
def test_srctor(t):
    before = (t.passed + t.failed, t.failed)
    v4 = gen("--flows", 8, "--packets", 40, "--subflows", 4, "--op", "mix",
             "--src-net", "10.1.0.0/16", "--dst-net", "10.2.0.0/16", "--seed", 11,
             "--dst-mac", HOST_MAC)
    v6 = gen("--flows", 3, "--packets", 16, "--subflows", 2, "--src-net", "fd00:1::/64",
             "--dst-net", "fd00:2::/64", "--seed", 12, "--dst-mac", HOST_MAC)
    # The requesters' packets (READ responses and ACKs go the other way).
    roce_in = [f for f in v4 if addrs(f)[0][:2] == bytes([10, 1])] + \
              [f for f in v6 if addrs(f)[0][:4] == bytes.fromhex("fd000001")]
    acks = [R.frame(R.ACK, psn=p, dqp=0x21, aeth_=p, src_ip="10.1.0.9", dst_ip="10.2.0.9",
                    sport=0xD000 + p, dst_mac=HOST_MAC) for p in range(3)]
    plain = [R.frame(R.SEND_ONLY, psn=1, payload=bytes([i]) * 40, src_ip="10.1.0.%d" % (i + 1),
                     dst_ip="10.2.0.3", sport=0xD100 + i, dport=4792, dst_mac=HOST_MAC, b4=0x33)
             for i in range(6)]
    host_in = roce_in + acks + plain
    roce_host = roce_in + acks
    # Transit: RoCE from the fabric routed back up, some PathTag already set.
    transit = [R.frame(R.WRITE_ONLY, psn=p, payload=bytes(32), src_ip="10.3.0.1", dst_ip="10.2.0.7",
                       sport=0xD200 + p, b4=0x5A, dst_mac=FAB_MAC[1], reth_=(0, 1, 32))
               for p in range(5)]
    keys = [pkt_key(f) for f in host_in + transit]
    t.eq(len(set(keys)), len(keys), "(test input: packet keys unique)")
    t.check(all(R.icrc_ok_fast(f) for f in roce_host), "test input ICRCs")
    subflows = {subflow(f) for f in roce_host}

    res = harness.run(src_config(), [host_in, [], transit, [], []], tag="sbs")
    if not ok_run(t, res, "SrcToR"):
        return
    ecmp = harness.run(src_config(lb="ecmp"), [host_in, [], transit, [], []], tag="sbse")
    if not ok_run(t, ecmp, "SrcToR in lb: ecmp"):
        return
    lb = res.stats["lb"]
    sent = {pkt_key(f): f for f in host_in + transit}
    t.eq(len(res.outputs[0]), 0, "(nothing back to the host)")
    seen, port_of, ecmp_port = set(), {}, {}
    n_icrc_bad = 0
    for p in range(1, 5):
        for f in res.outputs[p]:
            k = pkt_key(f)
            t.check(k in sent and k not in seen, "unexpected or duplicate frame on uplink %d: %r"
                    % (p, k))
            seen.add(k)
            s = sent.get(k)
            if s is None:
                continue
            t.eq(f[0:6], mac(SPINE[p - 1]), "(next-hop MAC)")
            t.eq(f[6:12], mac(FAB_MAC[p - 1]), "(source MAC = uplink MAC)")
            t.eq(ttl_of(f), ttl_of(s) - 1, "(TTL / hop limit decremented)")
            if is_v4(f):
                t.check(ipv4_csum_ok(f), "IPv4 checksum on uplink %d" % p)
            b4 = R.bth_fields(f)["byte4"] if is_roce(f) else None
            if s in roce_host:
                t.eq(b4, p - 1, "(PathTag = uplink index, %r)" % (k,))
                t.check(same_except(f, s, b4=True),
                        "host packet changed beyond MACs/TTL/checksum/byte 4: %r" % (k,))
                if not R.icrc_ok(f):
                    n_icrc_bad += 1
                sf = subflow(f)
                port_of.setdefault(sf, set()).add(p)
                t.eq(candidates(f, 4)[0], p - 1, "(path = h1 mod n, the first candidate)")
            else:
                # Non-RoCE from the host, transit RoCE: ECMP, untouched.
                t.check(same_except(f, s, b4=False),
                        "ECMP packet changed beyond MACs/TTL/checksum: %r" % (k,))
                t.eq(flow_hash(f) % 4, p - 1, "(ECMP path = hash mod n)")
                if s in transit:
                    t.eq(b4, 0x5A, "(transit byte 4 untouched)")
                    if not R.icrc_ok(f):
                        n_icrc_bad += 1
    t.eq(len(seen), len(host_in) + len(transit), "(every packet left once)")
    t.eq(n_icrc_bad, 0, "(ICRC valid on every RoCE frame on the uplinks)")
    t.eq(sorted(port_of), sorted(subflows), "(every sub-flow left)")
    multi = {sf: ps for sf, ps in port_of.items() if len(ps) != 1}
    t.eq(multi, {}, "(each sub-flow on exactly one uplink)")
    t.check(len({min(ps) for ps in port_of.values()}) == 4, "sub-flows spread over the 4 uplinks")
    for p in range(1, 5):
        for f in ecmp.outputs[p]:
            if is_roce(f) and subflow(f) in subflows:
                ecmp_port.setdefault(subflow(f), set()).add(p)
                t.eq(R.bth_fields(f)["byte4"], 0, "(lb: ecmp leaves byte 4 alone)")
    t.eq(ecmp_port, port_of, "(SeqBalance with nothing inactive = ECMP, per sub-flow)")
    t.eq(lb["sb_tagged"], len(roce_host))
    t.eq(lb["sb_subflows"], len(subflows))
    t.eq(lb["sb_rehashes"], 0)
    t.eq(lb["sb_all_inactive"], 0)
    t.eq(lb["ecmp_packets"], len(plain) + len(transit), "(non-RoCE and transit by ECMP)")
    t.eq(lb["flow_table_full"], 0)
    t.eq(ecmp.stats["lb"]["ecmp_packets"], len(host_in) + len(transit))
    for r, what in ((res, "seqbalance"), (ecmp, "ecmp")):
        ok, why = harness.accounted(r.stats)
        t.check(ok, "accounting (%s): %s" % (what, why))
        t.eq(r.stats["forwarded"], len(host_in) + len(transit), "(%s)" % what)
    summary(t, "srctor", before, ": %d packets, %d sub-flows (%d IPv6) on paths %s, = ECMP" % (
        len(roce_host), len(subflows), sum(1 for s in subflows if len(s[0]) == 16),
        sorted(sum(1 for ps in port_of.values() if p in ps) for p in range(1, 5))))


def main():
    t = harness.Checker("pkt-seqbalance")
    test_srctor(t)
    return t.done()


if __name__ == "__main__":
    sys.exit(main())

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
   sequence (h1 + i*step) mod n with the model. What this cannot show
   deterministically (phi expiring, a new sub-flow after an idle gap) is
   left to lib/lb/seqbalance/test_seqbalance.c (virtual clock) and
   tests/pkt/test_leafspine.py (end to end).
4. Host trust: a Congestion Packet from a host is dropped (host_lb_packet);
   a host's zero-payload packet with the same Resv7 bits and a valid ICRC
   is forwarded.
5. Spine (switch.role spine, lb seqbalance): ECMP, byte 4, Resv7 and the
   control header unchanged (a received Congestion Packet is hashed on the
   flow it answers, addresses swapped, as the pipeline does for every
   control packet).
6. Config: a spine with a host port is refused (exit 2, ports[i].role).
"""
import contextlib
import io
import ipaddress
import math
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
import harness  # noqa: E402
import lbmodel as M  # noqa: E402
import roce as R  # noqa: E402
from lbmodel import (addrs, filler, ip_str, ipv4_csum, ipv4_csum_ok, is_roce,  # noqa: E402
                     is_v4, mac, ok_run, pkt_key, subflow, summary, ttl_of,
                     with_b4)

HOST_MAC = "02:00:00:00:02:00"
FAB_MAC = ["02:00:00:00:02:%02x" % (i + 1) for i in range(4)]
HOST_NH = "02:00:00:00:aa:05"       # the RNIC behind host port 0
SPINE = ["02:00:00:00:cc:%02x" % (i + 1) for i in range(4)]
SEED = 0x5EB0CA1                      # switch.seed: the model needs it
SB_H2_SALT = 0x9E3779B9               # RTR_SB_H2_SALT (rtr_seqbalance.h)
CP_B8 = 3 << 5                        # BTH byte 8 of a Congestion Packet
TOP_CLASS = 7                         # control class: the highest of 8


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
def flow_hash(f):
    """ALGORITHMS.md 1, with this file's SEED."""
    return M.flow_hash(f, SEED)


def candidates(f, n):
    """The double-hash sequence of a new sub-flow (ALGORITHMS.md 3, with the
    stride taken among the numbers coprime to n, rtr_seqbalance.h): every
    path once, h1 mod n first."""
    h1 = flow_hash(f)
    h2 = M.mix(h1 ^ SB_H2_SALT) | 1
    coprime = [s for s in range(1, n + 1) if math.gcd(s, n) == 1]
    step = coprime[(h2 >> 1) % len(coprime)]
    return [(h1 + i * step) % n for i in range(n)]


def choose(f, n, inactive):
    """(path, i): the first candidate that is not inactive, or h1 mod n."""
    c = candidates(f, n)
    for i, p in enumerate(c):
        if p not in inactive:
            return p, i
    return c[0], None


# ------------------------------------------------------------- frames
def same_except(out, sent, b4=True):
    """(b4: byte 4 masked on every frame, not only RoCE.)"""
    return M.same_except(out, sent, b4, roce_only=False)


def reverse(f):
    """f with its IP addresses swapped (nothing else)."""
    l3, _, _ = R.offsets(f)
    g = bytearray(f)
    if g[l3] >> 4 == 4:
        g[l3 + 12:l3 + 16], g[l3 + 16:l3 + 20] = f[l3 + 16:l3 + 20], f[l3 + 12:l3 + 16]
    else:
        g[l3 + 8:l3 + 24], g[l3 + 24:l3 + 40] = f[l3 + 24:l3 + 40], f[l3 + 8:l3 + 24]
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


def sent_in_class(stats, ports, cls):
    return sum(stats["ports"][p]["classes"][cls]["sent"] for p in ports)


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


# --------------------------------------------------------------------------
TAGS = [0, 1, 2, 3, 5, 63, 200, 254]


def scapy_cp_ok(t, f, data):
    """The Congestion Packet f answering `data`, read by scapy."""
    from scapy.compat import raw
    from scapy.contrib.roce import BTH
    from scapy.layers.inet import IP, UDP
    from scapy.layers.inet6 import IPv6
    from scapy.layers.l2 import Ether
    p, d = Ether(bytes(f)), Ether(bytes(data))
    if not t.check(BTH in p and UDP in p, "scapy does not see a BTH: %r" % p):
        return
    if IP in d:
        ip, dip = p[IP], d[IP]
        t.eq((ip.src, ip.dst), (dip.dst, dip.src), "(scapy: addresses swapped)")
        t.eq(ip.tos, dip.tos & 0xFC, "(scapy: DSCP kept, ECN cleared)")
        t.eq(ip.ttl, 63, "(scapy: TTL 64, less one hop)")
        t.eq(ip.len, 20 + 8 + 12 + 4, "(scapy: IP length)")
        q = ip.copy()
        q.chksum = None
        t.eq(ip.chksum, IP(raw(q)).chksum, "(scapy: IPv4 checksum)")
    else:
        ip, dip = p[IPv6], d[IPv6]
        t.eq((ip.src, ip.dst), (dip.dst, dip.src), "(scapy: addresses swapped)")
        t.eq(ip.tc, dip.tc & 0xFC, "(scapy: DSCP kept, ECN cleared)")
        t.eq(ip.fl, dip.fl, "(scapy: flow label kept)")
        t.eq(ip.hlim, 63, "(scapy: hop limit 64, less one hop)")
        t.eq(ip.plen, 8 + 12 + 4, "(scapy: IPv6 payload length)")
    t.eq((p[UDP].sport, p[UDP].dport, p[UDP].len, p[UDP].chksum),
         (d[UDP].sport, 4791, 24, 0), "(scapy: UDP ports kept, length 24, checksum 0)")
    b, db = p[BTH], d[BTH]
    t.eq((b.opcode, b.solicited, b.migreq, b.padcount, b.version, b.pkey, b.dqpn, b.psn),
         (db.opcode, db.solicited, db.migreq, db.padcount, db.version, db.pkey, db.dqpn, db.psn),
         "(scapy: BTH copied)")
    t.eq((b.fecn << 7) | (b.becn << 6) | b.resv6, (db.fecn << 7) | (db.becn << 6) | db.resv6,
         "(scapy: byte 4 = the data packet's PathTag)")
    t.eq((b.ackreq, b.resv7), (0, 3 << 5), "(scapy: Resv7 = cw_op 3, AckReq 0)")
    t.eq(b.icrc, 0, "(scapy: the 4 bytes after the BTH are the zero header)")


def test_dsttor(t):
    before = (t.passed + t.failed, t.failed)
    ce4 = gen("--flows", 4, "--packets", 12, "--op", "mix", "--ecn", 3, "--dscp", 26,
              "--src-net", "10.1.0.0/16", "--dst-net", "10.2.0.0/16", "--seed", 21,
              "--dst-mac", FAB_MAC[0])
    ce6 = gen("--flows", 2, "--packets", 8, "--subflows", 2, "--ecn", 3, "--dscp", 10,
              "--src-net", "fd00:1::/64", "--dst-net", "fd00:2::/64", "--seed", 22,
              "--dst-mac", FAB_MAC[0])
    ect = gen("--flows", 2, "--packets", 10, "--ecn", 2, "--src-net", "10.1.0.0/16",
              "--dst-net", "10.2.0.0/16", "--seed", 23, "--sport", 0xC700, "--dst-mac", FAB_MAC[0])
    # Toward the receivers behind host port 0 only (the requesters' side).
    ce_data = [f for f in ce4 if addrs(f)[1][:2] == bytes([10, 2])] + \
              [f for f in ce6 if addrs(f)[1][:4] == bytes.fromhex("fd000002")]
    ce_data = [with_b4(f, TAGS[i % len(TAGS)]) for i, f in enumerate(ce_data)]
    ect = [with_b4(f, TAGS[(i + 3) % len(TAGS)]) for i, f in enumerate(ect)]
    # CE-marked, not data: RC ACKs (IPv4 and IPv6) and a CNP, tagged.
    not_data = [R.frame(R.ACK, psn=p, dqp=0x31, aeth_=p, ecn=3, b4=p, src_ip="10.1.0.7",
                        dst_ip="10.2.0.7", sport=0xC800, dst_mac=FAB_MAC[0]) for p in range(4)]
    not_data += [R.frame(R.ACK, psn=p, dqp=0x32, aeth_=p, ecn=3, b4=2, src_ip="fd00:1::7",
                         dst_ip="fd00:2::7", sport=0xC801, dst_mac=FAB_MAC[0]) for p in range(2)]
    not_data.append(R.cnp(0x33, ecn=3, src_ip="10.1.0.7", dst_ip="10.2.0.7", sport=0xC802,
                          dst_mac=FAB_MAC[0]))
    # CE-marked but not RoCE: no Congestion Packet either.
    plain = [R.frame(R.SEND_ONLY, psn=1, payload=bytes([i]) * 30, ecn=3, src_ip="10.1.0.8",
                     dst_ip="10.2.0.8", sport=0xC900 + i, dport=4792, dst_mac=FAB_MAC[0])
             for i in range(2)]
    roce = ce_data + ect + not_data
    arriving = []
    for i in range(max(len(ce_data), len(ect), len(not_data))):  # interleaved
        for grp in (ce_data, ect, not_data):
            if i < len(grp):
                arriving.append(grp[i])
    arriving += plain
    keys = [pkt_key(f) for f in arriving]
    t.eq(len(set(keys)), len(keys), "(test input: packet keys unique)")
    t.check(all(R.icrc_ok(f) for f in roce), "test input: ICRC valid with any byte 4 (masked)")
    t.check(len({R.bth_fields(f)["byte4"] for f in ce_data}) == len(TAGS), "tags used")

    res = harness.run(dst_config(), [[], arriving, [], [], []], tag="sbd")
    if not ok_run(t, res, "DstToR"):
        return
    lb, st = res.stats["lb"], res.stats
    sent = {pkt_key(f): f for f in arriving}
    out = res.outputs[0]
    t.eq(len(out), len(arriving), "(the host receives every packet)")
    got, n_bad_icrc = set(), 0
    for f in out:
        k = pkt_key(f)
        s = sent.get(k)
        t.check(s is not None and k not in got,
                "unexpected or duplicate frame to the host %r" % (k,))
        got.add(k)
        if s is None:
            continue
        t.eq(f[0:6], mac(HOST_NH), "(host next-hop MAC)")
        t.eq(f[6:12], mac(HOST_MAC), "(source MAC = host port MAC)")
        t.eq(ttl_of(f), ttl_of(s) - 1)
        if is_v4(f):
            t.check(ipv4_csum_ok(f), "IPv4 checksum to the host")
        if is_roce(f):
            t.eq(R.bth_fields(f)["byte4"], 0, "(byte 4 zeroed toward the host)")
            t.check(same_except(f, s, b4=True), "delivered bytes differ: %r" % (k,))
            if not R.icrc_ok(f):
                n_bad_icrc += 1
        else:
            t.check(same_except(f, s, b4=False), "delivered non-RoCE bytes differ: %r" % (k,))
    t.eq(n_bad_icrc, 0, "(ICRC valid on every RoCE frame delivered to the host)")

    # The Congestion Packets, by the data packet they answer.
    by_data = {}
    for f in ce_data:
        s, d, sp = subflow(f)
        bf = R.bth_fields(f)
        by_data[(d, s, sp, bf["dqp"], bf["psn"])] = f
    cps, n_v6, n_other = {}, 0, 0
    for p in range(1, 5):
        for f in res.outputs[p]:
            bf = R.bth_fields(f)
            k = subflow(f) + (bf["dqp"], bf["psn"])
            if not t.check(k in by_data and k not in cps,
                           "uplink %d: not a Congestion Packet for a CE data packet: %s" %
                           (p, f.hex())):
                n_other += 1
                continue
            data = by_data[k]
            cps[k] = f
            exp = routed(congestion_packet(data), p)
            t.eq(f[:len(exp)].hex(), exp.hex(), "(Congestion Packet, byte by byte)")
            t.check(len(f) in (len(exp), 60) and not any(f[len(exp):]),
                    "Congestion Packet length %d (built %d)" % (len(f), len(exp)))
            t.eq(flow_hash(f) % 4, p - 1, "(routed by ECMP on its own 5-tuple)")
            t.eq(f[R.offsets(f)[2] + 4], data[R.offsets(data)[2] + 4], "(PathTag echoed)")
            n_v6 += not is_v4(f)
            scapy_cp_ok(t, f, data)
    t.eq(len(cps), len(ce_data), "(one Congestion Packet per CE data packet)")
    t.eq(n_other, 0, "(nothing else on the uplinks: none for non-CE, ACKs, CNPs, non-RoCE)")
    t.check(n_v6 > 0 and n_v6 < len(cps), "IPv4 and IPv6 Congestion Packets: %d v6" % n_v6)
    t.eq(lb["notifies"], len(ce_data))
    t.eq(st["originated"], len(ce_data), "(Congestion Packets are originated)")
    t.eq(sent_in_class(st, range(1, 5), TOP_CLASS), len(ce_data), "(sent in the top class)")
    t.eq(sum(st["ports"][p]["tx_packets"] for p in range(1, 5)), len(ce_data))
    t.eq(lb["ecmp_packets"], len(ce_data), "(Congestion Packets routed by ECMP)")
    t.eq(lb["sb_tagged"], 0)
    t.eq(lb["notifies_rx"] + lb["ctrl_no_flow"], 0)
    t.eq(st["consumed"], 0)
    ok, why = harness.accounted(st)
    t.check(ok, "accounting: " + why)
    summary(t, "dsttor", before, ": %d delivered (%d CE data, %d ECT data, %d CE ACK/CNP, "
            "%d non-RoCE), %d Congestion Packets (%d IPv6)" % (
                len(out), len(ce_data), len(ect), len(not_data), len(plain), len(cps), n_v6))


# --------------------------------------------------------------------------
def hf(src, dst, sport, psn):
    """A host's data packet (SEND middle, 64 bytes of payload)."""
    return R.frame(R.SEND_MIDDLE, psn=psn, dqp=0x40 + (sport & 0xF), payload=bytes([psn]) * 64,
                   src_ip=src, dst_ip=dst, sport=sport, dst_mac=HOST_MAC)


def cp_arriving(data, tag, b8=CP_B8):
    """The Congestion Packet a DstToR sends for host data frame `data` that
    carried PathTag `tag`, as it arrives on our fabric port 1."""
    cp = bytearray(congestion_packet(with_b4(data, tag)))
    cp[0:6], cp[6:12] = mac(FAB_MAC[0]), mac(SPINE[0])
    cp[R.offsets(data)[2] + 8] = b8
    return bytes(cp)


def test_feedback(t):
    before = (t.passed + t.failed, t.failed)
    P, Q = 1, 2                     # the IPv4 group's paths made inactive
    v4s, v4d, v6s, v6d = "10.1.0.1", "10.2.0.5", "fd00:1::1", "fd00:2::5"

    def first_sport(start, want):
        sp = start
        while candidates(hf(v4s, v4d, sp, 1), 4)[0] != want:
            sp += 1
        return sp
    a1 = first_sport(0xC000, P)
    a2 = first_sport(0xC100, Q)
    a6 = 0xC600
    A = [(v4s, v4d, a1), (v4s, v4d, a2), (v6s, v6d, a6)]
    # New sub-flows of the IPv4 group: some whose first candidate is live
    # (i = 0), some one step (i = 1) and two steps (i = 2) away.
    B, cat = [], {0: 0, 1: 0, 2: 0}
    for sp in range(0xE000, 0xE400):
        _, i = choose(hf(v4s, v4d, sp, 1), 4, {P, Q})
        if cat[i] < 4:
            cat[i] += 1
            B.append((v4s, v4d, sp))
    t.eq(cat, {0: 4, 1: 4, 2: 4}, "(test input: sub-flows of every kind found)")
    B6 = [(v6s, v6d, 0xE800 + i) for i in range(6)]   # every IPv6 path inactive

    # Host port: A's first packets, 40 bursts of filler, B, then A again.
    host = [hf(s, d, sp, 1) for s, d, sp in A]
    host += filler(HOST_MAC, 32 * 40)
    for psn in range(1, 4):
        host += [hf(s, d, sp, psn) for s, d, sp in B + B6]
    host += [hf(s, d, sp, psn) for psn in range(2, 5) for s, d, sp in A]
    path0 = {sf: candidates(hf(*sf, 1), 4)[0] for sf in A}
    # Fabric port 1: 4 bursts of filler, then the Congestion Packets.
    d1, d2, d6 = (hf(*sf, 1) for sf in A)
    cps = [cp_arriving(d1, P), cp_arriving(d2, Q), cp_arriving(d1, P)]   # refreshed
    cps += [cp_arriving(d6, tag) for tag in range(4)]
    cps.append(cp_arriving(d1, 9))                                      # no such path
    cps.append(cp_arriving(hf(v4s, v4d, 0xEEEE, 1), 0))                 # unknown flow
    cps.append(cp_arriving(d2, 3, b8=2 << 5))                           # a ConWeave REPLY
    fab = filler(FAB_MAC[0], 32 * 4) + cps
    cfg = src_config(sb=", phi_us: 1000000, subflow_idle_us: 10000000")
    res = harness.run(cfg, [host, fab, [], [], []], tag="sbf", idle_ms=250)
    if not ok_run(t, res, "SrcToR feedback"):
        return
    lb, st = res.stats["lb"], res.stats
    n_fill = 32 * 44
    t.eq(st["drops"]["no_route"], n_fill, "(filler)")
    t.eq(lb["notifies_rx"], 9, "(every cw_op-3 Congestion Packet counted)")
    t.eq(lb["busy_paths"], 7, "(A1 twice, A2, A6 x 4; not the out-of-range path)")
    t.eq(lb["ctrl_no_flow"], 2, "(the unknown flow and the REPLY)")
    t.eq(st["consumed"], len(cps), "(Congestion Packets consumed)")
    t.eq(len(res.outputs[0]), 0, "(nothing reaches the host)")
    t.eq(lb["sb_subflows"], len(A) + len(B) + len(B6))
    t.eq(lb["sb_rehashes"], cat[1] + cat[2], "(new sub-flows moved off an inactive h1)")
    t.eq(lb["sb_all_inactive"], len(B6))
    t.eq(lb["sb_paths_inactive"], 2 + 4, "(gauge: P and Q, every IPv6 path; phi = 1 s)")
    t.eq(lb["sb_tagged"], len(host) - 32 * 40)
    paths = {}
    for p in range(1, 5):
        for f in res.outputs[p]:
            bf = R.bth_fields(f)
            t.eq(bf["byte4"], p - 1, "(PathTag = uplink)")
            paths.setdefault(subflow(f), []).append((bf["psn"], p - 1))
            t.check(R.icrc_ok_fast(f), "ICRC on the uplink")

    def sf_key(s, d, sp):
        return (ipaddress.ip_address(s).packed, ipaddress.ip_address(d).packed, sp)
    for s, d, sp in A:
        got = paths.get(sf_key(s, d, sp), [])
        t.eq(sorted(got), [(psn, path0[(s, d, sp)]) for psn in range(1, 5)],
             "(an existing sub-flow keeps its path, inactive or not: %x)" % sp)
    for s, d, sp in B:
        exp, i = choose(hf(s, d, sp, 1), 4, {P, Q})
        t.eq(sorted(paths.get(sf_key(s, d, sp), [])), [(psn, exp) for psn in range(1, 4)],
             "(new sub-flow %x on the first candidate not inactive, i = %d)" % (sp, i))
    for s, d, sp in B6:
        exp = candidates(hf(s, d, sp, 1), 4)[0]
        t.eq(sorted(paths.get(sf_key(s, d, sp), [])), [(psn, exp) for psn in range(1, 4)],
             "(every path inactive: h1 mod n, %x)" % sp)
    ok, why = harness.accounted(st)
    t.check(ok, "accounting: " + why)
    summary(t, "feedback", before, ": %d Congestion Packets (%d marks), %d new sub-flows "
            "(%d/%d/%d at i = 0/1/2, %d all inactive), A kept paths %s" % (
                len(cps), lb["busy_paths"], len(B) + len(B6), cat[0], cat[1], cat[2], len(B6),
                sorted(path0.values())))


# --------------------------------------------------------------------------
def test_host_trust(t):
    before = (t.passed + t.failed, t.failed)
    # What a DstToR would send for data 10.2 -> 10.1: here from a host.
    bad = []
    for src, dst in (("10.2.0.5", "10.1.0.1"), ("fd00:2::5", "fd00:1::1")):
        d = R.frame(R.SEND_ONLY, psn=7, dqp=0x51, payload=bytes(8), src_ip=src, dst_ip=dst,
                    sport=0xC500, ecn=3)
        cp = congestion_packet(with_b4(d, 2))
        bad.append(with_dst_mac(cp + bytes(max(0, 60 - len(cp))), HOST_MAC))
    g = bytearray(bad[0])
    g[R.offsets(g)[2] + 8] = 2 << 5                       # cw_op 2 (a ConWeave REPLY)
    g[R.offsets(g)[2] + 12:R.offsets(g)[2] + 16] = bytes.fromhex("12345678")  # a header
    bad.append(bytes(g))
    # A host's own zero-payload packets with those Resv7 bits: valid ICRC.
    # (Not checked here: past the fabric, a DstToR parses such a packet as
    # a Congestion Packet, UDP length 24 and cw_op >= 2, and consumes it.)
    good = [R.frame(R.SEND_ONLY, psn=3, dqp=0x52, src_ip=src, dst_ip=dst, sport=0xC510 + i,
                    resv7=r7, dst_mac=HOST_MAC)
            for i, (src, dst, r7) in enumerate((("10.1.0.1", "10.2.0.5", 3 << 5),
                                                ("fd00:1::1", "fd00:2::5", 3 << 5),
                                                ("10.1.0.1", "10.2.0.5", 2 << 5)))]
    # The same shape with a wrong ICRC cannot be told from a control packet.
    bad.append(R.frame(R.SEND_ONLY, psn=4, dqp=0x52, src_ip="10.1.0.1", dst_ip="10.2.0.5",
                       sport=0xC520, resv7=3 << 5, dst_mac=HOST_MAC, good_icrc=False))
    for f in good + bad:
        _, l4, _ = R.offsets(f)
        t.eq(int.from_bytes(f[l4 + 4:l4 + 6], "big"), 24, "(test input: UDP length 24)")
    t.check(all(R.icrc_ok(f) for f in good) and not any(R.icrc_ok(f) for f in bad),
            "test input: ICRC valid on the host's packets only")
    res = harness.run(src_config(), [bad[:2] + good + bad[2:], [], [], [], []], tag="sbh")
    if not ok_run(t, res, "host trust"):
        return
    st, lb = res.stats, res.stats["lb"]
    t.eq(st["drops"]["host_lb_packet"], len(bad), "(control packets from a host)")
    t.eq(res.port(0)["drops"], len(bad))
    t.eq(st["dropped"], len(bad))
    t.eq(st["forwarded"], len(good))
    sent = {pkt_key(f): f for f in good}
    n = 0
    for p in range(1, 5):
        for f in res.outputs[p]:
            s = sent.get(pkt_key(f))
            if not t.check(s is not None, "unexpected frame on uplink %d: %s" % (p, f.hex())):
                continue
            n += 1
            bf = R.bth_fields(f)
            t.eq(bf["byte4"], p - 1, "(tagged like any host RoCE packet)")
            t.eq(bf["resv7"], R.bth_fields(s)["resv7"], "(Resv7 untouched)")
            t.check(same_except(f, s, b4=True), "forwarded bytes differ")
            t.check(R.icrc_ok(f), "ICRC of the forwarded zero-payload packet")
    t.eq(n, len(good), "(the host's own packets forwarded)")
    t.eq(lb["sb_tagged"], len(good))
    t.eq(lb["notifies_rx"] + lb["busy_paths"] + lb["ctrl_no_flow"], 0, "(nothing marked)")
    ok, why = harness.accounted(st)
    t.check(ok, "accounting: " + why)
    summary(t, "host-trust", before, ": %d control-shaped packets dropped (host_lb_packet), "
            "%d zero-payload Resv7 packets with a valid ICRC forwarded" % (len(bad), n))
    # The same host packets (valid ICRC), tagged, arriving at the DstToR from
    # the fabric: they are the host's data, not Congestion Packets (the
    # parser checks the ICRC of control-shaped packets), and reach the host.
    arrived = [with_dst_mac(with_b4(f, 2), FAB_MAC[0]) for f in good]
    res = harness.run(dst_config(), [[], arrived, [], [], []], tag="sbtrust2")
    if not ok_run(t, res, "dsttor host packets"):
        return
    t.eq(len(res.outputs[0]), len(arrived), "(host packets with cw_op bits reached the receiver)")
    t.eq(res.stats["consumed"], 0, "(none taken for a Congestion Packet)")
    t.eq(res.stats["lb"]["notifies_rx"] + res.stats["lb"]["ctrl_no_flow"], 0)
    for f in res.outputs[0]:
        t.check(R.icrc_ok(f), "ICRC at the receiver")
        t.eq(R.bth_fields(f)["byte4"], 0, "(PathTag cleared)")


# --------------------------------------------------------------------------
SP_MAC = ["02:00:00:00:cc:%02x" % (0x11 + i) for i in range(4)]
SRC_UP = "02:00:00:00:02:01"       # the SrcToR's uplink toward us
DST_UP = ["02:00:00:00:03:01", "02:00:00:00:03:02"]
OTHER = "02:00:00:00:04:01"


def spine_config():
    return ("switch: {name: spine, id: 9, role: spine, lb: seqbalance, seed: %d}\nports:\n" % SEED +
            "".join('  - {port: %d, role: fabric, mac: "%s"}\n' % (i, SP_MAC[i])
                    for i in range(4)) +
            "routes:\n" +
            "".join('  - {prefix: "%s", port: 0, nexthop_mac: "%s"}\n' % (p, SRC_UP)
                    for p in ("10.1.0.0/16", "fd00:1::/64")) +
            "".join('  - prefix: "%s"\n    paths:\n' % p +
                    "".join('      - {port: %d, nexthop_mac: "%s"}\n' % (i + 1, DST_UP[i])
                            for i in range(2))
                    for p in ("10.2.0.0/16", "fd00:2::/64")) +
            '  - {prefix: "10.3.0.0/16", port: 3, nexthop_mac: "%s"}\n' % OTHER)


def test_spine(t):
    before = (t.passed + t.failed, t.failed)
    up4 = gen("--flows", 4, "--packets", 8, "--subflows", 2, "--src-net", "10.1.0.0/16",
              "--dst-net", "10.2.0.0/16", "--seed", 31, "--dst-mac", SP_MAC[0])
    up6 = gen("--flows", 2, "--packets", 6, "--ecn", 3, "--src-net", "fd00:1::/64",
              "--dst-net", "fd00:2::/64", "--seed", 32, "--dst-mac", SP_MAC[0])
    data = [with_b4(f, TAGS[i % len(TAGS)]) for i, f in enumerate(up4 + up6)]
    data.append(R.frame(R.SEND_ONLY, psn=5, dqp=0x61, payload=bytes(40), src_ip="10.1.0.3",
                        dst_ip="10.2.0.3", sport=0xCA00, b4=3, resv7=0x2A, ecn=3,
                        dst_mac=SP_MAC[0]))
    # Congestion Packets from the DstToRs' side, toward the SrcToR (single
    # route) and toward 10.2 (the group), IPv4 and IPv6, with a header
    # that is not zero (the spine must not care).
    cps_down, cps_group = [], []
    for i, f in enumerate(data[:6] + up6[:2]):
        cp = bytearray(congestion_packet(with_b4(f, 1 + i % 3)))
        cp[R.offsets(cp)[2] + 12:R.offsets(cp)[2] + 16] = struct.pack("!I", 0xA5A50000 + i)
        cps_down.append(with_dst_mac(bytes(cp), SP_MAC[1]))
    for i in range(3):
        d = R.frame(R.SEND_ONLY, psn=i, dqp=0x62, payload=bytes(16), src_ip="10.2.0.%d" % (i + 1),
                    dst_ip="10.3.0.1", sport=0xCB00 + i)
        cps_group.append(with_dst_mac(congestion_packet(with_b4(d, i)), SP_MAC[3]))
    ins = [data, cps_down, [], cps_group]
    allin = data + cps_down + cps_group
    keys = [(pkt_key(f), f[R.offsets(f)[2] + 8]) for f in allin]
    t.eq(len(set(keys)), len(keys), "(test input: packet keys unique)")
    res = harness.run(spine_config(), ins, tag="sbsp")
    if not ok_run(t, res, "spine"):
        return
    st, lb = res.stats, res.stats["lb"]
    t.check("spine" in res.stdout, "the spine role: " + res.stdout[-300:])
    sent = {(pkt_key(f), f[R.offsets(f)[2] + 8]): f for f in allin}
    nh = {0: SRC_UP, 1: DST_UP[0], 2: DST_UP[1], 3: OTHER}
    n, n_group, bad_icrc = 0, 0, 0
    for p in range(4):
        for f in res.outputs[p]:
            s = sent.pop((pkt_key(f), f[R.offsets(f)[2] + 8]), None)
            if not t.check(s is not None, "unexpected or duplicate frame on port %d" % p):
                continue
            n += 1
            t.check(same_except(f, s, b4=False),
                    "the spine changed more than MACs/TTL/checksum: %s -> %s" % (s.hex(), f.hex()))
            t.eq((f[0:6], f[6:12]), (mac(nh[p]), mac(SP_MAC[p])), "(MACs)")
            t.eq(ttl_of(f), ttl_of(s) - 1)
            if is_v4(f):
                t.check(ipv4_csum_ok(f), "IPv4 checksum")
            a_dst = ip_str(addrs(f)[1])
            if a_dst.startswith("10.2.") or a_dst.startswith("fd00:2:"):
                n_group += 1
                if s in data:
                    t.eq(p, 1 + flow_hash(f) % 2, "(ECMP over the group)")
                else:
                    # A received control packet is hashed on the flow it
                    # answers (addresses swapped): the pipeline gives it
                    # the reverse hash so the flow's owner worker gets it.
                    t.eq(p, 1 + flow_hash(reverse(f)) % 2,
                         "(ECMP over the group, control packet: reverse hash)")
            if s in data and not R.icrc_ok(f):
                bad_icrc += 1
    t.eq(n, len(allin), "(every packet forwarded once)")
    t.eq(bad_icrc, 0, "(data ICRCs still valid)")
    t.eq(lb["ecmp_packets"], n_group, "(group routes by ECMP)")
    for c in ("sb_tagged", "sb_subflows", "notifies", "notifies_rx", "busy_paths", "ctrl_no_flow"):
        t.eq(lb[c], 0, "(%s: a spine keeps no SeqBalance state)" % c)
    t.eq(st["consumed"] + st["originated"] + st["dropped"], 0)
    t.eq(sent_in_class(st, range(4), TOP_CLASS), len(cps_down) + len(cps_group),
         "(Congestion Packets in the top class)")
    ok, why = harness.accounted(st)
    t.check(ok, "accounting: " + why)
    summary(t, "spine", before, ": %d data + %d Congestion Packets passed unchanged "
            "(but MACs/TTL/checksum), %d by ECMP" % (len(data), len(cps_down) + len(cps_group),
                                                    n_group))


# --------------------------------------------------------------------------
def test_spine_config(t):
    before = (t.passed + t.failed, t.failed)
    cfg = ("switch: {name: spine, role: spine, lb: seqbalance}\nports:\n"
           '  - {port: 0, role: fabric, mac: "%s"}\n'
           '  - {port: 1, role: host, mac: "%s"}\n'
           "routes:\n"
           '  - {prefix: "10.1.0.0/16", port: 0, nexthop_mac: "%s"}\n' % (SP_MAC[0], SP_MAC[1],
                                                                          SRC_UP))
    res = harness.run(cfg, [[], []], tag="sbcfg")
    t.eq(res.rc, 2, "(a spine with a host port: usage error) " + res.stderr[-500:])
    t.check("ports[1].role" in res.stderr, "the message names ports[1].role: " + res.stderr[-500:])
    t.check("fabric ports only" in res.stderr, "the message says why: " + res.stderr[-500:])
    summary(t, "spine-config", before, ": exit %d, %s" % (
        res.rc, (res.stderr.strip().splitlines() or [""])[-1][:100]))


def main():
    t = harness.Checker("pkt-seqbalance")
    test_srctor(t)
    test_dsttor(t)
    test_feedback(t)
    test_host_trust(t)
    test_spine(t)
    test_spine_config(t)
    return t.done()


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The rocetor authors
"""CAVER on pcap ports (ALGORITHMS.md 4, wire formats in lib/lb/caver/rtr_caver.h),
one switch at a time.

1. Origin + strip, two runs. ToR B (hosts 10.2.0.1..4 as /32 routes on host
   port 0, 10.2.0.5 on host port 3, uplinks 1..2) shims every IPv4 RC ACK
   from its hosts toward 10.1/16: each uplink frame is compared byte by byte
   with this file's own shim builder (12 bytes after the AETH: host, path 0,
   ce, hops 0, last_switch = B; IP/UDP lengths + 12, IPv4 checksum, UDP
   checksum 0, Resv7 0x7F with AckReq kept, byte 4 0), read back with scapy,
   and the advertised hosts form rounds per uplink (every host once per
   round, each round a rotation of the configured host list). ce is the DRE
   CE of the port toward the host: 0 for the idle port 0, a computed value
   for port 3 (shaped to 10 kb/s with a huge burst, loaded by data first;
   dre_period 1 s and alpha 0.01 make the value exact whatever the timing).
   IPv6 ACKs and ACKs with Resv7 != 0 are not shimmed (caver_shim_skipped).
   The uplink frames then enter ToR A (hosts 10.1/16 behind host port 0, no
   /32 routes) on its fabric ports: every ACK reaches the host as the RNIC
   sent it but MACs/TTL/IP checksum/byte 4, ICRC valid (scapy). A's own
   hosts' ACKs are shimmed with host = their source IP, ce = CE of the host
   port they came from.
2. Spine transit (switch.role spine, lb caver): shimmed ACKs arriving on
   ports 2/3 toward 10.1/16 (group over ports 0,1) leave with the shim
   rewritten: path = (port << 24) | (stored path >> 8) for the best stored
   port (min over ports of max(local CE, stored ce), ties at random among
   the tied ports), ce = that cost, hops + 1 (255 stays), last_switch = the
   spine; nothing else changes but MACs/TTL/checksum. Phases ordered by
   filler bursts make the expected table exact: first each host known on
   one port, then a better port learnt, a tie, and last a locally loaded
   port (DRE) that loses against a worse stored ce.
3. Spine source routes: RoCE with byte 4 = 0x80|p leaves on p when p is in
   the route's group (caver_source_routed), else by ECMP
   (caver_source_route_bad); byte 4 0 / non-RoCE by ECMP (the hash model of
   ALGORITHMS.md 1); byte 4 unchanged. Again with port 3 admin_down: 0x83 is
   bad and goes to the only live path.
4. SrcToR placement in one process: shimmed ACKs on the uplinks (as a spine
   sends them: hops 1, path top byte = the spine's port) are stored (and
   stripped before the host, byte-identical to the RNIC's ACK); then new
   flows from the host port (after filler bursts) are placed on the best
   entry (min over uplinks of max(local CE, stored ce): a locally loaded
   uplink loses), every packet with byte 4 = 0x80 | next hop; hops 0 or a
   next hop > 0x7f: placed by the table with byte 4 = 0; no entry (or IPv6):
   ECMP, byte 4 = 0. Ties are split at random.
5. DstToR: RoCE from a fabric port to a host gets byte 4 zeroed, nothing
   else changes, ICRC valid; non-RoCE untouched; an ACK with Resv7 0x7F too
   short to hold a shim is no shim.
6. Host trust: RC ACKs with Resv7 = 0x7F from a host are dropped
   (host_lb_packet); Resv7 0x7E ACKs, Resv7 0x7F data and plain ACKs pass.
"""
import ipaddress
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
import harness  # noqa: E402
import lbmodel as M  # noqa: E402
import roce as R  # noqa: E402
from lbmodel import (addrs, filler, ip_str, ipv4_csum, ipv4_csum_ok, is_roce,  # noqa: E402
                     is_v4, mac, ok_run, pkt_key, same_except, summary,
                     ttl_of, with_b4)
from lbmodel import subflow as flow  # noqa: E402

SHIM_LEN = 12          # RTR_CAVER_SHIM_LEN
RESV7 = 0x7F           # RTR_CAVER_RESV7
SR = 0x80              # RTR_CAVER_SR
SEED = 0xCA7E5         # switch.seed of every switch here (the hash model needs it)
A_ID, B_ID, SP_ID = 0x0A01, 0x0B02, 0x0909

A_HOST_MAC = "02:00:00:00:01:00"
A_FAB = ["02:00:00:00:01:%02x" % (i + 1) for i in range(4)]
A_NH = "02:00:00:00:aa:01"          # the RNIC(s) behind A's host port
B_HOST_MAC = ["02:00:00:00:02:00", None, None, "02:00:00:00:02:03"]
B_FAB = ["02:00:00:00:02:%02x" % (i + 1) for i in range(2)]
B_NH = ["02:00:00:00:bb:%02x" % (i + 1) for i in range(5)]
SP_MAC = ["02:00:00:00:cc:%02x" % i for i in range(4)]
SPINE_UP = ["02:00:00:00:dd:%02x" % i for i in range(4)]    # next hops in the fabric

# DRE: period 1 s and alpha 0.01, so at most one or two decays (x 0.99) can
# happen in a run and CE values chosen away from integers stay exact; a
# shaped port of 10 kb/s (burst 64 MB: nothing is held) gives a CE of
# 8 * X * 256 / (1e4 * 1 / 0.01) = X * 0.002048 per X bytes sent.
DRE_PERIOD_US, ALPHA, Q = 1000000, 0.01, 8
SLOW_GBPS = 0.00001
SLOW = "shape_gbps: %g, shape_burst_kb: 65536" % SLOW_GBPS
CAVER = ("caver: {dre_period_us: %d, alpha: %g, aging_us: 10000000, flow_idle_us: 10000000, "
         "flow_table_size: 4096}\n" % (DRE_PERIOD_US, ALPHA))
LOAD_N, LOAD_LEN = 10, 998          # the frames that load a port's DRE


def ip4(s):
    return ipaddress.ip_address(s).packed


# ------------------------------------------------------------- configs
def config(name, sw_id, ports, routes, role="tor"):
    """ports: (port, role, mac, extra yaml or ""); routes: (prefix, port,
    nexthop mac) or (prefix, [(port, nexthop mac), ...]) for a group."""
    s = "switch: {name: %s, id: %d, role: %s, lb: caver, seed: %d}\nports:\n" % (
        name, sw_id, role, SEED)
    for p, r, m, extra in ports:
        s += '  - {port: %d, role: %s, mac: "%s"%s}\n' % (p, r, m, ", " + extra if extra else "")
    s += "routes:\n"
    for rt in routes:
        if isinstance(rt[1], list):
            s += '  - prefix: "%s"\n    paths:\n' % rt[0]
            s += "".join('      - {port: %d, nexthop_mac: "%s"}\n' % pm for pm in rt[1])
        else:
            s += '  - {prefix: "%s", port: %d, nexthop_mac: "%s"}\n' % rt
    return s + CAVER


B_HOSTS = ["10.2.0.%d" % i for i in range(1, 6)]     # in config order
B_HOST_PORT = {h: (3 if h == "10.2.0.5" else 0) for h in B_HOSTS}


def b_config():
    """ToR B: hosts 10.2.0.1..4 on host port 0, 10.2.0.5 on the slow host
    port 3, 10.1/16 over uplinks 1, 2 (whose next hops are A's ports)."""
    ports = [(0, "host", B_HOST_MAC[0], ""), (1, "fabric", B_FAB[0], ""),
             (2, "fabric", B_FAB[1], ""), (3, "host", B_HOST_MAC[3], SLOW)]
    routes = [("%s/32" % h, B_HOST_PORT[h], B_NH[i]) for i, h in enumerate(B_HOSTS)]
    routes += [(p, [(1, A_FAB[0]), (2, A_FAB[1])]) for p in ("10.1.0.0/16", "fd00:1::/64")]
    return config("torb", B_ID, ports, routes)


def a_config(n_up=2, slow_host=False, slow_up=None):
    """ToR A: 10.1/16 and fd00:1::/64 behind host port 0 (no /32 routes),
    10.2/16 and fd00:2::/64 over uplinks 1..n_up; 10.3/16 on uplink 3 alone
    (to load its DRE). slow_host / slow_up: which port is shaped."""
    ports = [(0, "host", A_HOST_MAC, SLOW if slow_host else "")]
    ports += [(i + 1, "fabric", A_FAB[i], SLOW if slow_up == i + 1 else "") for i in range(n_up)]
    routes = [("10.1.0.0/16", 0, A_NH), ("fd00:1::/64", 0, A_NH)]
    routes += [(p, [(i + 1, SPINE_UP[i]) for i in range(n_up)])
               for p in ("10.2.0.0/16", "fd00:2::/64")]
    if n_up >= 3:
        routes.append(("10.3.0.0/16", 3, SPINE_UP[2]))
    return config("tora", A_ID, ports, routes)


def spine_config(slow3=False, down3=False):
    """A spine: 10.1/16 (ToR A) over ports 0, 1, 10.2/16 (ToR B) over 2, 3."""
    ports = []
    for i in range(4):
        extra = []
        if i == 3 and slow3:
            extra.append(SLOW)
        if i == 3 and down3:
            extra.append("admin_down: true")
        ports.append((i, "fabric", SP_MAC[i], ", ".join(extra)))
    routes = [(p, [(0, SPINE_UP[0]), (1, SPINE_UP[1])]) for p in ("10.1.0.0/16", "fd00:1::/64")]
    routes += [(p, [(2, SPINE_UP[2]), (3, SPINE_UP[3])]) for p in ("10.2.0.0/16", "fd00:2::/64")]
    return config("spine", SP_ID, ports, routes, role="spine")


# ------------------------------------------------------------- the models
def flow_hash(f):
    """ALGORITHMS.md 1, with this file's SEED."""
    return M.flow_hash(f, SEED)


def dre_ce(nbytes, rate_bps=SLOW_GBPS * 1e9):
    """The CE of a port that sent nbytes (ALGORITHMS.md 4), for 0, 1 or 2
    decays; the test inputs make the three agree."""
    denom = rate_bps * (DRE_PERIOD_US / 1e6) / ALPHA
    vals = set()
    for k in range(3):
        x = int(nbytes * (1 - ALPHA) ** k)
        vals.add(min(255, int(8.0 * x / denom * (1 << Q))))
    return vals


# ------------------------------------------------------------- frames
def b4_of(f):
    return f[R.offsets(f)[2] + 4]


def fix_ip_csum(g):
    l3, l4, _ = R.offsets(g)
    if g[l3] >> 4 == 4:
        g[l3 + 10:l3 + 12] = struct.pack("!H", ipv4_csum(g[l3:l4]))


def with_macs(f, dst, src=None):
    return mac(dst) + (mac(src) if src else bytes(f[6:12])) + bytes(f[12:])


def routed(f, dst_mac, src_mac, hops=1):
    """f as a switch sends it: MACs, TTL - hops, IPv4 checksum."""
    l3, _, _ = R.offsets(f)
    g = bytearray(f)
    g[0:6], g[6:12] = mac(dst_mac), mac(src_mac)
    if g[l3] >> 4 == 4:
        g[l3 + 8] -= hops
        fix_ip_csum(g)
    else:
        g[l3 + 7] -= hops
    return bytes(g)


def ack(src, dst, sport, psn, dst_mac, syndrome=0, ackreq=False, b4=0, resv7=0, ttl=64,
        pad_to=60, udp_csum=False, dqp=0x77):
    """An RC ACK (BTH + AETH) as an RNIC sends it."""
    return R.frame(R.ACK, psn=psn, dqp=dqp, aeth_=(syndrome, psn), ackreq=ackreq, b4=b4,
                   resv7=resv7, src_ip=src, dst_ip=dst, sport=sport, dst_mac=dst_mac, ttl=ttl,
                   pad_to=pad_to, udp_csum=udp_csum)


def data(src, dst, sport, psn, dst_mac, b4=0, size=64, op=R.SEND_MIDDLE, resv7=0, dqp=0x40):
    """A RoCE data frame of exactly `size` payload bytes."""
    return R.frame(op, psn=psn, dqp=dqp, payload=bytes([psn & 0xFF]) * size, src_ip=src,
                   dst_ip=dst, sport=sport, dst_mac=dst_mac, b4=b4, resv7=resv7)


def load_frames(src, dst, dst_mac):
    """LOAD_N data frames of LOAD_LEN bytes: what loads a port's DRE."""
    fr = [data(src, dst, 0xF000 + i, i, dst_mac, size=LOAD_LEN - 58) for i in range(LOAD_N)]
    assert all(len(f) == LOAD_LEN for f in fr)
    return fr


def plain(src, dst, i, dst_mac, b4=0x83):
    """Non-RoCE UDP (dport 4792) with a would-be byte 4."""
    return R.frame(R.SEND_ONLY, psn=1, payload=bytes([i]) * 40, src_ip=src, dst_ip=dst,
                   sport=0xD900 + i, dport=4792, dst_mac=dst_mac, b4=b4)


def timeline(dst_mac, slots):
    """A port's input where the frames of slots[k] start at burst k (the
    worker takes one burst of 32 per port per loop): filler in between."""
    out = []
    for k in sorted(slots):
        assert len(out) <= 32 * k and len(slots[k]) <= 32, (k, len(out), len(slots[k]))
        out += filler(dst_mac, 32 * k - len(out)) + list(slots[k])
    return out


# ------------------------------------------------------------- the shim
def shim_bytes(host, path, ce, hops, last):
    return ip4(host) + struct.pack("!IBBH", path, ce, hops, last)


def shim_of(f):
    """(host, path, ce, hops, last_switch) of a shimmed ACK."""
    _, _, b = R.offsets(f)
    h = f[b + 16:b + 16 + SHIM_LEN]
    return (ip_str(h[:4]),) + struct.unpack("!IBBH", h[4:])


def add_shim(f, host, path, ce, hops, last):
    """The shimmed ACK as the spec makes it from RNIC ACK f: 12 bytes after
    the AETH, IPv4/UDP lengths + 12, IPv4 checksum recomputed, UDP checksum
    0, Resv7 0x7F (AckReq kept). Everything else as in f."""
    l3, l4, b = R.offsets(f)
    at = b + 16
    g = bytearray(f[:at] + shim_bytes(host, path, ce, hops, last) + f[at:])
    g[l3 + 2:l3 + 4] = struct.pack("!H", int.from_bytes(g[l3 + 2:l3 + 4], "big") + SHIM_LEN)
    g[l4 + 4:l4 + 6] = struct.pack("!H", int.from_bytes(g[l4 + 4:l4 + 6], "big") + SHIM_LEN)
    g[l4 + 6:l4 + 8] = b"\0\0"
    g[b + 8] = (g[b + 8] & 0x80) | RESV7
    fix_ip_csum(g)
    return bytes(g)


def set_shim(f, host, path, ce, hops, last):
    _, _, b = R.offsets(f)
    g = bytearray(f)
    g[b + 16:b + 16 + SHIM_LEN] = shim_bytes(host, path, ce, hops, last)
    return bytes(g)


def scapy_shim_ok(t, f, orig):
    """Shimmed ACK f (from RNIC ACK orig) as scapy reads it."""
    from scapy.compat import raw
    from scapy.contrib.roce import BTH
    from scapy.layers.inet import IP, UDP
    from scapy.layers.l2 import Ether
    p, o = Ether(bytes(f)), Ether(bytes(orig))
    if not t.check(IP in p and UDP in p and BTH in p, "scapy: no IP/UDP/BTH: %r" % p):
        return
    q = p[IP].copy()
    q.chksum = None
    t.eq(p[IP].chksum, IP(raw(q)).chksum, "(scapy: IPv4 checksum)")
    t.eq((p[IP].len, p[UDP].len, p[UDP].chksum), (o[IP].len + 12, o[UDP].len + 12, 0),
         "(scapy: IP and UDP lengths + 12, UDP checksum 0)")
    t.eq((p[BTH].opcode, p[BTH].ackreq, p[BTH].resv7, p[BTH].psn, p[BTH].dqpn),
         (0x11, o[BTH].ackreq, RESV7, o[BTH].psn, o[BTH].dqpn),
         "(scapy: ACK, AckReq kept, Resv7 0x7F, PSN/QP kept)")


CAVER_COUNTERS = ("caver_shims_added", "caver_shims_rewritten", "caver_shims_stripped",
                  "caver_adverts", "caver_shim_skipped", "caver_hosts_full", "caver_flows_table",
                  "caver_flows_ecmp", "caver_source_routed", "caver_source_route_bad",
                  "caver_flows_unadvertised")


def check_counters(t, lb, want, what):
    """Every CAVER counter (and ecmp_packets, flow_table_full, reroutes) is
    exactly want.get(name, 0)."""
    for c in CAVER_COUNTERS + ("ecmp_packets", "flow_table_full", "reroutes"):
        t.eq(lb[c], want.get(c, 0), "(%s: %s)" % (what, c))


# --------------------------------------------------------------------------
def test_origin_strip(t):
    before = (t.passed + t.failed, t.failed)
    # ---- ToR B: its hosts' ACKs toward 10.1/16, 20 ACK flows per uplink.
    flows, sp = {0: [], 1: []}, 0xC000
    while len(flows[0]) < 10 or len(flows[1]) < 10:
        # The ACK flow's hash decides its uplink (ECMP: no entry for 10.1.x).
        u = flow_hash(ack(B_HOSTS[sp % 5], "10.1.0.%d" % (sp % 7 + 1), sp, 0,
                          B_HOST_MAC[0])) % 2
        if len(flows[u]) < 10:
            flows[u].append(sp)
        sp += 1
    acks4 = []
    for psn in range(3):       # 20 flows x 3 ACKs, interleaved
        for i, s in enumerate(sorted(flows[0] + flows[1])):
            src, dst = B_HOSTS[s % 5], "10.1.0.%d" % (s % 7 + 1)
            kw = {}
            if i % 5 == 1:
                kw["ackreq"] = True
            if i % 7 == 2:
                kw["syndrome"] = 0x60 | (psn & 0x1F)           # a NAK
            if i % 4 == 3:
                kw["b4"] = 0x5A                                 # garbage from the host
            if i == 4 and psn == 1:
                kw["pad_to"] = 90                               # Ethernet padding after the ICRC
            if i == 6 and psn == 2:
                kw["udp_csum"] = True
            acks4.append(ack(src, dst, s, 100 * psn + i, B_HOST_MAC[0], **kw))
    skip = [ack("fd00:2::%d" % i, "fd00:1::7", 0xC800 + i, i, B_HOST_MAC[0], b4=0x21)
            for i in range(3)]
    skip += [ack("10.2.0.%d" % (i + 1), "10.1.0.9", 0xC900 + i, i, B_HOST_MAC[0], resv7=r7,
                 ackreq=(i == 1)) for i, r7 in enumerate((0x01, 0x40, 0x7E))]
    bdata = [data("10.2.0.%d" % (i % 5 + 1), "10.1.0.3", 0xCA00 + i, i, B_HOST_MAC[0], b4=0x44)
             for i in range(6)]
    bplain = [plain("10.2.0.1", "10.1.0.4", i, B_HOST_MAC[0]) for i in range(3)]
    load = load_frames("10.2.0.9", "10.2.0.5", B_HOST_MAC[0])   # out of port 3, first
    ce5 = dre_ce(LOAD_N * LOAD_LEN)
    t.eq(len(ce5), 1, "(test input: the port-3 CE does not depend on decays: %s)" % ce5)
    ce5 = min(ce5)
    t.check(0 < ce5 < 255, "test input: CE %d in range" % ce5)
    host_in = load + acks4 + skip + bdata + bplain
    keys = [pkt_key(f) for f in host_in]
    t.eq(len(set(keys)), len(keys), "(test input: packet keys unique)")
    t.check(all(R.icrc_ok(f) for f in host_in if is_roce(f)), "test input: ICRCs")

    res = harness.run(b_config(), [host_in, [], [], []], tag="cvb")
    if not ok_run(t, res, "ToR B"):
        return
    st, lb = res.stats, res.stats["lb"]
    sent = {pkt_key(f): f for f in host_in}
    hosts_seen = {1: [], 2: []}
    n_shim, n_skip, seen = 0, 0, set()
    b_up = {1: [], 2: []}
    for p in (1, 2):
        for f in res.outputs[p]:
            k = pkt_key(f)
            s = sent.get(k)
            if not t.check(s is not None and k not in seen, "unexpected frame on uplink %d: %s"
                           % (p, f.hex())):
                continue
            seen.add(k)
            b_up[p].append(f)
            t.eq(p, 1 + flow_hash(s) % 2, "(uplink = ECMP: hash mod 2, %r)" % (k,))
            if s in acks4:
                n_shim += 1
                host = shim_of(f)[0] if len(f) == len(s) + SHIM_LEN else "?"
                hosts_seen[p].append(host)
                ce = ce5 if host == "10.2.0.5" else 0
                exp = routed(add_shim(with_b4(s, 0), host, 0, ce, 0, B_ID), A_FAB[p - 1],
                             B_FAB[p - 1])
                t.eq(f.hex(), exp.hex(), "(shimmed ACK byte by byte, %r)" % (k,))
                t.check(host in B_HOSTS, "advertised host %s is attached" % host)
                t.check(ipv4_csum_ok(f), "IPv4 checksum")
                scapy_shim_ok(t, f, s)
            else:
                if s in skip:
                    n_skip += 1
                t.check(same_except(f, s, b4=s not in bplain),
                        "forwarded without shim, unchanged: %r" % (k,))
                t.eq(b4_of(f), b4_of(s) if s in bplain else 0,
                     "(byte 4: 0 on host RoCE flows placed by ECMP, non-RoCE untouched)")
                if is_roce(f):
                    t.check(R.icrc_ok(f), "ICRC of an unshimmed frame")
                t.eq(ttl_of(f), ttl_of(s) - 1)
    t.eq(n_shim, len(acks4), "(every IPv4 ACK shimmed)")
    t.eq(n_skip, len(skip), "(IPv6 / Resv7 ACKs forwarded)")
    t.eq(len(seen), len(host_in) - len(load), "(everything for 10.1 left once)")
    # The rounds: every len(B_HOSTS) ACKs of one uplink name every host
    # once, in a rotation of the configured order.
    n, rots = len(B_HOSTS), {}
    for p in (1, 2):
        seq = hosts_seen[p]
        t.check(len(seq) >= 3 * n, "uplink %d: %d shims, 3 rounds at least" % (p, len(seq)))
        for r in range(0, len(seq), n):
            rnd = seq[r:r + n]
            off = B_HOSTS.index(rnd[0]) if rnd[0] in B_HOSTS else -1
            t.eq(rnd, [B_HOSTS[(off + i) % n] for i in range(len(rnd))],
                 "(uplink %d round %d: a rotation of the host list)" % (p, r // n))
            rots.setdefault(p, []).append(off)
    t.check(len(set(rots.get(1, []) + rots.get(2, []))) > 1,
            "rounds rotated at random, not all alike: %s" % rots)
    out3 = res.outputs[3]
    t.eq(sorted(pkt_key(f) for f in out3), sorted(pkt_key(f) for f in load), "(port 3: the load)")
    for f in out3:
        s = sent[pkt_key(f)]
        t.eq(f.hex(), routed(s, B_NH[4], B_HOST_MAC[3]).hex(), "(host to host: untouched)")
        t.check(R.icrc_ok(f), "ICRC on host port 3")
    t.eq(len(res.outputs[0]), 0, "(nothing back to port 0)")
    # ACKs (and NAKs) from hosts go by ECMP without a flow entry, as the
    # CAVER reference sends them (doc/caver.md "ACKs"): only the data
    # flows are placed (by ECMP here: nothing is advertised).
    n_flows = len({flow(f) for f in bdata})
    check_counters(t, lb, {"caver_shims_added": len(acks4), "caver_shim_skipped": len(skip),
                           "caver_flows_ecmp": n_flows,
                           "ecmp_packets": len(bplain) + len(acks4) + len(skip)}, "ToR B")
    ok, why = harness.accounted(st)
    t.check(ok, "accounting (B): " + why)
    t.eq(st["forwarded"], len(host_in))

    # ---- ToR A: B's ACKs arrive on fabric ports 1, 2; A's own hosts ACK
    # toward 10.2.9.x (no advertisement about those), after loading port 0.
    up_acks = {p: [f for f in b_up[p] if is_roce(f) and R.bth_fields(f)["opcode"] == R.ACK]
               for p in (1, 2)}
    a_load = load_frames("10.1.0.9", "10.1.0.8", A_HOST_MAC)     # hairpin out of port 0
    a_acks = [ack("10.1.0.%d" % (i + 1), "10.2.9.%d" % (i + 1), 0xCB00 + i, i, A_HOST_MAC,
                  ackreq=bool(i & 1)) for i in range(8)]
    res = harness.run(a_config(slow_host=True), [a_load + a_acks, up_acks[1], up_acks[2]],
                      tag="cva")
    if not ok_run(t, res, "ToR A"):
        return
    st, lb = res.stats, res.stats["lb"]
    orig = {pkt_key(f): f for f in acks4 + skip}
    loads = {pkt_key(f): f for f in a_load}
    n_del, n_bad_icrc, n_csum0, got = 0, 0, 0, set()
    for f in res.outputs[0]:
        k = pkt_key(f)
        if k in loads:
            t.eq(f.hex(), routed(loads[k], A_NH, A_HOST_MAC).hex(), "(hairpin load)")
            continue
        s = orig.get(k)
        if not t.check(s is not None and k not in got, "unexpected frame to A's host: %s"
                       % f.hex()):
            continue
        got.add(k)
        n_del += 1
        # What the RNIC sent, but MACs, TTL (two switches), checksum, byte 4;
        # a UDP checksum the RNIC filled in is not restored (0, legal in
        # IPv4 and masked by the ICRC).
        exp = routed(with_b4(s, 0), A_NH, A_HOST_MAC, hops=2)
        l4 = R.offsets(s)[1]
        if s[l4 + 6:l4 + 8] != b"\0\0" and f[l4 + 6:l4 + 8] == b"\0\0":
            exp = exp[:l4 + 6] + b"\0\0" + exp[l4 + 8:]
            n_csum0 += 1
        t.eq(f.hex(), exp.hex(), "(delivered ACK = the RNIC's, %r)" % (k,))
        if not R.icrc_ok(f):
            n_bad_icrc += 1
        t.check(is_v4(f) is False or ipv4_csum_ok(f), "IPv4 checksum to the host")
    t.eq(n_del, len(acks4) + len(skip), "(every ACK from B delivered)")
    t.eq(n_bad_icrc, 0, "(ICRC valid on every ACK delivered, scapy)")
    ce0 = dre_ce(LOAD_N * LOAD_LEN)
    t.eq(len(ce0), 1, "(test input: CE exact)")
    ce0 = min(ce0)
    a_sent = {pkt_key(f): f for f in a_acks}
    n_a = 0
    for p in (1, 2):
        for f in res.outputs[p]:
            s = a_sent.get(pkt_key(f))
            if not t.check(s is not None, "unexpected frame on A's uplink %d" % p):
                continue
            n_a += 1
            src = ip_str(addrs(s)[0])
            exp = routed(add_shim(s, src, 0, ce0, 0, A_ID), SPINE_UP[p - 1], A_FAB[p - 1])
            t.eq(f.hex(), exp.hex(), "(no /32 routes: host = the ACK's source, ce = CE of "
                 "its port)")
            t.eq(p, 1 + flow_hash(s) % 2, "(ECMP)")
    t.eq(n_a, len(a_acks))
    n_sh = len(acks4)
    check_counters(t, lb, {"caver_adverts": n_sh, "caver_shims_stripped": n_sh,
                           "caver_shims_added": len(a_acks), "ecmp_packets": len(a_acks)},
                   "ToR A")
    ok, why = harness.accounted(st)
    t.check(ok, "accounting (A): " + why)
    t.eq(st["forwarded"], len(a_load) + len(a_acks) + len(up_acks[1]) + len(up_acks[2]))
    summary(t, "origin-strip", before, ": B shimmed %d ACKs (%d/%d per uplink, round offsets "
            "%s, ce %d for the host on the loaded port), skipped %d; A delivered %d with "
            "valid ICRCs (%d with the RNIC's UDP checksum replaced by 0), shimmed %d of its "
            "own (ce %d)" % (n_shim, len(hosts_seen[1]), len(hosts_seen[2]), rots, ce5, n_skip,
                             n_del, n_csum0, n_a, ce0))


# --------------------------------------------------------------------------
def spine_ack(src, dst, sport, psn, port, shim, b4=0, ackreq=False):
    """A shimmed ACK as it arrives on spine port `port` from ToR B (TTL 63)."""
    a = ack(src, dst, sport, psn, SP_MAC[port], ttl=63, b4=b4, ackreq=ackreq)
    return with_macs(add_shim(a, *shim), SP_MAC[port], SPINE_UP[port])


def test_spine_transit(t):
    before = (t.passed + t.failed, t.failed)
    H1, H2, H3, H4 = "10.2.0.1", "10.2.0.2", "10.2.0.3", "10.2.0.4"
    seq = [0]

    def sa(port, host, path, ce, hops=0, last=B_ID, b4=0):
        seq[0] += 1
        i = seq[0]
        return spine_ack("10.2.0.%d" % (1 + i % 9), "10.1.0.%d" % (1 + i % 5), 0xC000 + 37 * i,
                         i, port, (host, path, ce, hops, last), b4=b4, ackreq=bool(i % 3 == 0))
    # Phases: (slot, port, [ACKs]) and the data slot that loads port 3.
    ph = {}
    ph[(0, 2)] = [sa(2, H1, 0, 6), sa(2, H1, 0, 6, b4=SR | 1), sa(2, H2, 0x0A0B0C0D, 4, hops=2,
                                                                     last=0x1234),
                  sa(2, H2, 0x0A0B0C0D, 4, hops=2, last=0x1234), sa(2, H4, 0x11000000, 7,
                                                                    hops=255)]
    ph[(0, 3)] = [sa(3, H3, 0, 1), sa(3, H3, 0, 1)]
    ph[(3, 3)] = [sa(3, H1, 0x0A000000, 2, hops=1)] + [sa(3, H2, 0x01020304, 4, hops=1)
                                                        for _ in range(5)]
    ph[(6, 2)] = [sa(2, H1, 0, 6), sa(2, H1, 0, 6)] + [sa(2, H2, 0x0A0B0C0D, 4, hops=2)
                                                       for _ in range(5)]
    load_slot = 9
    ph[(12, 2)] = [sa(2, H1, 0, 6), sa(2, H1, 0, 6, b4=SR | 0)]
    ph[(12, 3)] = [sa(3, H3, 0, 1)]
    load = [with_b4(f, SR | 3) for f in load_frames("10.1.0.9", "10.2.0.9", SP_MAC[0])]
    ce3 = dre_ce(LOAD_N * LOAD_LEN)
    t.eq(len(ce3), 1, "(test input: CE exact)")
    ce3 = min(ce3)
    t.check(ce3 > 7, "test input: the loaded port's CE %d beats every stored ce" % ce3)
    # The model: table[host][port] = (ce, path >> 8); local CE per port.
    table, local, expect = {}, {p: 0 for p in range(4)}, {}
    for slot in sorted({s for s, _ in ph} | {load_slot}):
        if slot == load_slot:
            local[3] = ce3
        for port in (2, 3):
            for f in ph.get((slot, port), []):
                host, path, ce, hops, _ = shim_of(f)
                table.setdefault(host, {})[port] = (ce, path >> 8)
                costs = {p: max(local[p], e[0]) for p, e in table[host].items()}
                best = min(costs.values())
                alts = [(p << 24 | table[host][p][1], best) for p in sorted(costs)
                        if costs[p] == best]
                expect[pkt_key(f)] = (f, alts, min(hops + 1, 255))
    ins = [timeline(SP_MAC[0], {load_slot: load}), [],
           timeline(SP_MAC[2], {s: v for (s, p), v in ph.items() if p == 2}),
           timeline(SP_MAC[3], {s: v for (s, p), v in ph.items() if p == 3})]
    n_fill = sum(len(x) for x in ins) - len(load) - len(expect)
    res = harness.run(spine_config(slow3=True), ins, tag="cvst", idle_ms=250)
    if not ok_run(t, res, "spine transit"):
        return
    st, lb = res.stats, res.stats["lb"]
    t.check("spine" in res.stdout, "the spine role: " + res.stdout[-300:])
    n, n_sr, n_ties, tie_ports, got = 0, 0, 0, set(), set()
    for p in (0, 1):
        for f in res.outputs[p]:
            k = pkt_key(f)
            e = expect.get(k)
            if not t.check(e is not None and k not in got, "unexpected frame on port %d: %s"
                           % (p, f.hex())):
                continue
            got.add(k)
            n += 1
            s, alts, hops = e
            b4 = b4_of(s)
            if b4 & SR:
                n_sr += 1
                t.eq(p, b4 & 0x7F, "(ACK source-routed by its byte 4)")
            else:
                t.eq(p, flow_hash(s) % 2, "(ACK by ECMP)")
            outs = [routed(set_shim(s, shim_of(s)[0], path, ce, hops, SP_ID), SPINE_UP[p],
                           SP_MAC[p]).hex() for path, ce in alts]
            t.check(f.hex() in outs, "rewritten shim %s, want one of %s (in %s)" % (
                shim_of(f), [("%08x" % a, c) for a, c in alts], shim_of(s)))
            if len(alts) > 1:
                n_ties += 1
                tie_ports.add(shim_of(f)[1] >> 24)
            t.check(ipv4_csum_ok(f), "IPv4 checksum")
    t.eq(n, len(expect), "(every shimmed ACK forwarded once)")
    t.check(n_ties >= 10 and tie_ports == {2, 3},
            "ties broken at random: %d ties, ports %s" % (n_ties, tie_ports))
    out3 = res.outputs[3]
    t.eq(len(out3), len(load), "(the load left on port 3)")
    t.check(all(R.icrc_ok(f) and b4_of(f) == SR | 3 for f in out3), "load: byte 4, ICRC")
    t.eq(len(res.outputs[2]), 0)
    check_counters(t, lb, {"caver_adverts": len(expect), "caver_shims_rewritten": len(expect),
                           "caver_source_routed": n_sr + len(load),
                           "ecmp_packets": len(expect) - n_sr}, "spine")
    t.eq(st["drops"]["no_route"], n_fill, "(filler)")
    ok, why = harness.accounted(st)
    t.check(ok, "accounting: " + why)
    summary(t, "spine-transit", before, ": %d shims rewritten (%d ties over ports %s), "
            "loaded port CE %d" % (n, n_ties, sorted(tie_ports), ce3))


# --------------------------------------------------------------------------
def test_spine_sr(t):
    before = (t.passed + t.failed, t.failed)
    tests = []   # (frame, in port)
    i = 0
    for port in (0, 1):
        for b4 in (SR | 3, SR | 2, SR | 1, SR | 0, SR | 0x7F, 0, 0x40, 0x03):
            for k in range(3):
                i += 1
                tests.append((data("10.1.0.%d" % (1 + i % 7), "10.2.0.%d" % (1 + i % 5),
                                   0xC100 + i, i, SP_MAC[port], b4=b4, op=R.WRITE_MIDDLE), port))
    for b4 in (SR | 1, SR | 0, SR | 3, 0):
        i += 1
        tests.append((data("10.2.0.1", "10.1.0.%d" % (1 + i % 7), 0xC200 + i, i, SP_MAC[2],
                           b4=b4), 2))
    for b4 in (SR | 3, SR | 2, SR | 1):
        i += 1
        tests.append((data("fd00:1::1", "fd00:2::%d" % i, 0xC300 + i, i, SP_MAC[1], b4=b4), 1))
    i += 1
    tests.append((ack("10.1.0.1", "10.2.0.1", 0xC400, i, SP_MAC[0], b4=SR | 2), 0))
    for k in range(3):
        tests.append((plain("10.1.0.1", "10.2.0.%d" % (k + 1), k, SP_MAC[0], b4=SR | 3), 0))
    keys = [pkt_key(f) for f, _ in tests]
    t.eq(len(set(keys)), len(keys), "(test input: keys unique)")
    group = {"10.2": (2, 3), "fd00:2": (2, 3), "10.1": (0, 1)}

    def gports(f):
        d = ip_str(addrs(f)[1])
        return group["10.2" if d.startswith("10.2.") else "fd00:2" if d.startswith("fd00:2")
                     else "10.1"]

    results = []
    for down in (False, True):
        ins = [[f for f, p in tests if p == q] for q in range(4)]
        res = harness.run(spine_config(down3=down), ins, tag="cvsr")
        if not ok_run(t, res, "spine sr"):
            return
        st, lb = res.stats, res.stats["lb"]
        sent = {pkt_key(f): f for f, _ in tests}
        n_sr, n_bad, n_ecmp, n = 0, 0, 0, 0
        for p in range(4):
            for f in res.outputs[p]:
                s = sent.pop(pkt_key(f), None)
                if not t.check(s is not None, "unexpected frame on port %d" % p):
                    continue
                n += 1
                gp = gports(s)
                live = [q for q in gp if not (down and q == 3)]
                b4 = b4_of(s) if is_roce(s) else 0
                if is_roce(s) and b4 & SR and (b4 & 0x7F) in live:
                    n_sr += 1
                    want = b4 & 0x7F
                else:
                    if is_roce(s) and b4 & SR:
                        n_bad += 1
                    n_ecmp += 1
                    want = gp[flow_hash(s) % 2] if len(live) == 2 else live[0]
                t.eq(p, want, "(byte 4 %02x toward %s, down %s)" % (b4, gp, down))
                t.eq(f.hex(), routed(s, SPINE_UP[p], SP_MAC[p]).hex(),
                     "(only MACs/TTL/checksum change, byte 4 kept)")
                if is_roce(s):
                    t.check(R.icrc_ok_fast(f), "ICRC")
        t.eq(n, len(tests), "(every packet forwarded once)")
        if down:
            t.eq(res.port(3)["link_up"], False, "(admin_down port reported down)")
        check_counters(t, lb, {"caver_source_routed": n_sr, "caver_source_route_bad": n_bad,
                               "ecmp_packets": n_ecmp}, "spine sr down=%s" % down)
        ok, why = harness.accounted(st)
        t.check(ok, "accounting: " + why)
        results.append((n_sr, n_bad, n_ecmp))
    summary(t, "spine-source-routes", before, ": %d packets; routed/bad/ECMP %s, port 3 down %s"
            % (len(tests), results[0], results[1]))


# --------------------------------------------------------------------------
def test_srctor(t):
    before = (t.passed + t.failed, t.failed)
    # Advertisements as a spine sends them (hops 1, path top byte = the
    # spine's port toward the host), per (host, uplink): (ce, path, hops).
    adv = {
        "10.2.0.1": {1: (9, 0x05000000, 1), 2: (3, 0x06000102, 1)},         # u2 best: 0x86
        "10.2.0.2": {1: (4, 0x05000000, 1), 2: (4, 0x07000000, 1)},         # tie: 0x85/0x87
        "10.2.0.3": {4: (0, 0x05000000, 0)},                                # hops 0: byte 4 0
        "10.2.0.4": {1: (2, 0x85000000, 1)},                                # port > 0x7f: 0
        "10.2.0.5": {3: (1, 0x0A000000, 1), 4: (5, 0x0B000000, 1)},         # u3 loaded: u4
        "10.2.0.6": {3: (1, 0x0C000000, 1)},                                # u3 loaded, others unknown
    }
    # An uplink without a valid entry is a candidate at its local CE (the
    # remote CE of an unknown path counts as 0, doc/caver.md): the hosts
    # above but 10.2.0.6 get a congested entry on every other uplink, so
    # that their placement is decided by the entries listed.
    for host, per in adv.items():
        if host != "10.2.0.6":
            for u in (1, 2, 3, 4):
                per.setdefault(u, (200, 0x0D000000, 1))
    ce3 = dre_ce(LOAD_N * LOAD_LEN)
    t.eq(len(ce3), 1, "(test input: CE exact)")
    ce3 = min(ce3)
    ups = {1: [], 2: [], 3: [], 4: []}
    i = 0
    for host, per in adv.items():
        for u, (ce, path, hops) in per.items():
            for _ in range(2):
                i += 1
                a = ack("10.2.0.%d" % (20 + i), "10.1.0.%d" % (1 + i % 4), 0xC000 + i, i,
                        A_FAB[u - 1], ttl=62)
                ups[u].append((a, add_shim(a, host, path, ce, hops, SP_ID)))
    # The expected placement per destination: set of (uplink, byte 4).
    local = {1: 0, 2: 0, 3: ce3, 4: 0}
    want = {}
    for host, per in adv.items():
        costs = {u: max(local[u], per[u][0]) if u in per else local[u] for u in (1, 2, 3, 4)}
        best = min(costs.values())
        want[host] = {(u, SR | (per[u][1] >> 24) if u in per and per[u][2] > 0 and
                       per[u][1] >> 24 <= 0x7F else 0) for u in costs if costs[u] == best}
    flows = []
    for host in list(adv) + ["10.2.0.7", "fd00:2::7"]:
        n = 12 if host == "10.2.0.2" else 4
        flows += [("10.1.0.%d" % (1 + k % 3) if ":" not in host else "fd00:1::%d" % (k + 1),
                   host, 0xE000 + 16 * len(flows) + k) for k in range(n)]
    t.eq(len(set(flows)), len(flows), "(test input: flows distinct)")
    flow_pk = [data(s, d, sp, psn, A_HOST_MAC, b4=0x5A) for psn in range(3) for s, d, sp in flows]
    load = load_frames("10.1.0.9", "10.3.0.9", A_HOST_MAC)      # uplink 3, single route
    host_in = timeline(A_HOST_MAC, {0: load, 3: flow_pk[:32], 4: flow_pk[32:64],
                                    5: flow_pk[64:96], 6: flow_pk[96:]})
    t.check(len(flow_pk) <= 128, "test input: flows fit the slots")
    ins = [host_in] + [[sh for _, sh in ups[u]] for u in (1, 2, 3, 4)]
    res = harness.run(a_config(n_up=4, slow_up=3), ins, tag="cvsrc", idle_ms=250)
    if not ok_run(t, res, "SrcToR"):
        return
    st, lb = res.stats, res.stats["lb"]
    # The advertisements reach the host as the RNIC sent them.
    orig = {pkt_key(a): a for u in ups for a, _ in ups[u]}
    n_del = 0
    for f in res.outputs[0]:
        s = orig.pop(pkt_key(f), None)
        if not t.check(s is not None, "unexpected frame to the host: %s" % f.hex()):
            continue
        n_del += 1
        t.eq(f.hex(), routed(s, A_NH, A_HOST_MAC).hex(), "(shim stripped, ACK restored)")
        t.check(R.icrc_ok(f), "ICRC of a stripped ACK")
    t.eq(orig, {}, "(every advertisement delivered)")
    # The data flows.
    seen, n_pk = {}, 0
    sent = {pkt_key(f): f for f in flow_pk + load}
    for u in (1, 2, 3, 4):
        for f in res.outputs[u]:
            s = sent.pop(pkt_key(f), None)
            if not t.check(s is not None, "unexpected frame on uplink %d" % u):
                continue
            if s in load:
                t.eq(u, 3)
                continue
            n_pk += 1
            t.check(same_except(f, s, b4=True), "data changed beyond MACs/TTL/byte 4")
            t.check(R.icrc_ok_fast(f), "ICRC on the uplink")
            seen.setdefault(flow(s), set()).add((u, b4_of(f)))
    t.eq(n_pk, len(flow_pk), "(every data packet left once)")
    ties = set()
    for s, d, sp in flows:
        k = (ipaddress.ip_address(s).packed, ipaddress.ip_address(d).packed, sp)
        got = seen.get(k, set())
        t.eq(len(got), 1, "(a flow keeps one path and one byte 4: %s)" % got)
        if d in want:
            t.check(got <= want[d], "flow to %s: %s, want one of %s" % (d, got, want[d]))
            if d == "10.2.0.2":
                ties |= got
        else:
            f0 = data(s, d, sp, 0, A_HOST_MAC)
            t.eq(got, {(1 + flow_hash(f0) % 4, 0)}, "(no entry: ECMP, byte 4 0, to %s)" % d)
    t.eq(ties, want["10.2.0.2"], "(ties split at random over both uplinks)")
    n_table = sum(1 for _, d, _ in flows if d in adv)
    n_adv = sum(len(v) for v in ups.values())
    # Placed on an uplink without an entry: every best uplink is unknown.
    n_unadv = sum(1 for _, d, _ in flows
                  if d in adv and all(u not in adv[d] for u, _ in want[d]))
    t.check(n_unadv > 0, "test input: some flows on unknown uplinks")
    check_counters(t, lb, {"caver_adverts": n_adv, "caver_shims_stripped": n_adv,
                           "caver_flows_table": n_table, "caver_flows_unadvertised": n_unadv,
                           "caver_flows_ecmp": len(flows) - n_table}, "SrcToR")
    ok, why = harness.accounted(st)
    t.check(ok, "accounting: " + why)
    summary(t, "srctor", before, ": %d advertisements, %d flows (%d by table, %d by ECMP), "
            "placement %s" % (n_adv, len(flows), n_table, len(flows) - n_table,
                              {h: sorted(v) for h, v in want.items()}))


# --------------------------------------------------------------------------
def test_dsttor(t):
    before = (t.passed + t.failed, t.failed)
    arriving = {1: [], 2: []}
    i = 0
    for b4 in (SR | 3, SR | 5, 0xFF, SR, 0, 0x40, 0x3F):
        for op in (R.SEND_ONLY, R.WRITE_MIDDLE):
            i += 1
            u = 1 + i % 2
            arriving[u].append(data("10.2.0.%d" % (1 + i % 4), "10.1.0.%d" % (1 + i % 6),
                                    0xC000 + i, i, A_FAB[u - 1], b4=b4, op=op))
    for b4 in (SR | 2, 0x81):
        i += 1
        arriving[1].append(data("fd00:2::1", "fd00:1::%d" % i, 0xC000 + i, i, A_FAB[0], b4=b4))
        arriving[2].append(ack("10.2.0.1", "10.1.0.1", 0xC100 + i, i, A_FAB[1], b4=b4,
                               ackreq=True))
    # Resv7 0x7F on an ACK with no room for a shim: not a shim.
    short = ack("10.2.0.2", "10.1.0.2", 0xC200, 5, A_FAB[0], resv7=RESV7, b4=SR | 2)
    arriving[1].append(short)
    pl = [plain("10.2.0.1", "10.1.0.%d" % (k + 1), k, A_FAB[1], b4=SR | 3) for k in range(2)]
    arriving[2] += pl
    allin = arriving[1] + arriving[2]
    keys = [pkt_key(f) for f in allin]
    t.eq(len(set(keys)), len(keys), "(test input: keys unique)")
    res = harness.run(a_config(), [[], arriving[1], arriving[2]], tag="cvd")
    if not ok_run(t, res, "DstToR"):
        return
    st, lb = res.stats, res.stats["lb"]
    sent = {pkt_key(f): f for f in allin}
    n, bad = 0, 0
    for f in res.outputs[0]:
        s = sent.pop(pkt_key(f), None)
        if not t.check(s is not None, "unexpected frame to the host"):
            continue
        n += 1
        exp = routed(s if s in pl else with_b4(s, 0), A_NH, A_HOST_MAC)
        t.eq(f.hex(), exp.hex(), "(byte 4 zeroed on RoCE, nothing else)")
        if is_roce(s) and not R.icrc_ok(f):
            bad += 1
    t.eq(n, len(allin), "(everything delivered)")
    t.eq(bad, 0, "(ICRC valid on every RoCE frame delivered, scapy)")
    check_counters(t, lb, {}, "DstToR")
    ok, why = harness.accounted(st)
    t.check(ok, "accounting: " + why)
    summary(t, "dsttor", before, ": %d delivered, byte 4 zeroed on %d RoCE frames" % (
        n, len(allin) - len(pl)))


# --------------------------------------------------------------------------
def test_host_trust(t):
    before = (t.passed + t.failed, t.failed)
    m = A_HOST_MAC
    bad = [ack("10.1.0.1", "10.2.0.1", 0xC000, 1, m, resv7=RESV7),
           ack("10.1.0.1", "10.2.0.1", 0xC001, 2, m, resv7=RESV7, ackreq=True),
           ack("fd00:1::1", "fd00:2::1", 0xC002, 3, m, resv7=RESV7),
           add_shim(ack("10.1.0.1", "10.2.0.1", 0xC003, 4, m), "10.2.0.1", 0x03000000, 0, 1,
                    SP_ID)]
    good_skip = [ack("10.1.0.1", "10.2.0.1", 0xC010, 5, m, resv7=0x7E)]
    good_shim = [ack("10.1.0.1", "10.2.0.1", 0xC011, 6, m, ackreq=True)]
    good_data = [data("10.1.0.1", "10.2.0.1", 0xC012, 7, m, resv7=RESV7, b4=SR | 3),
                 R.cnp(0x55, src_ip="10.1.0.1", dst_ip="10.2.0.1", sport=0xC013, dst_mac=m)]
    good = good_skip + good_shim + good_data
    ins = bad[:2] + good[:2] + bad[2:] + good[2:]
    res = harness.run(a_config(), [ins, [], []], tag="cvh")
    if not ok_run(t, res, "host trust"):
        return
    st, lb = res.stats, res.stats["lb"]
    t.eq(st["drops"]["host_lb_packet"], len(bad), "(Resv7 0x7F ACKs from a host)")
    t.eq(res.port(0)["drops"], len(bad))
    t.eq(st["dropped"], len(bad))
    t.eq(st["forwarded"], len(good))
    sent = {pkt_key(f): f for f in good}
    n = 0
    for p in (1, 2):
        for f in res.outputs[p]:
            s = sent.pop(pkt_key(f), None)
            if not t.check(s is not None, "unexpected frame on uplink %d: %s" % (p, f.hex())):
                continue
            n += 1
            t.eq(p, 1 + flow_hash(s) % 2, "(ECMP)")
            if s in good_shim:
                exp = add_shim(s, ip_str(addrs(s)[0]), 0, 0, 0, A_ID)
            else:
                exp = with_b4(s, 0)
            t.eq(f.hex(), routed(exp, SPINE_UP[p - 1], A_FAB[p - 1]).hex(),
                 "(forwarded as the spec says)")
            if s not in good_shim:
                t.check(R.icrc_ok(f), "ICRC")
    t.eq(n, len(good), "(the rest forwarded)")
    t.eq(sum(len(o) for o in res.outputs), len(good))
    # The data frame is a flow placed by ECMP; the ACKs and the CNP go by
    # ECMP without a flow entry.
    check_counters(t, lb, {"caver_shims_added": 1, "caver_shim_skipped": 1,
                           "caver_flows_ecmp": 1, "ecmp_packets": len(good) - 1},
                   "host trust")
    ok, why = harness.accounted(st)
    t.check(ok, "accounting: " + why)
    summary(t, "host-trust", before, ": %d Resv7-0x7F ACKs dropped (host_lb_packet), %d "
            "forwarded" % (len(bad), n))


def test_host_b4(t):
    """A host's byte 4 never reaches the fabric: cleared at ingress, also on
    packets no LB stage stamps (a single-next-hop route), or a CAVER spine
    would take a host's 0x83 for a source route."""
    before = (t.passed, t.failed)
    fr = [data("10.1.0.1", "10.3.0.9", 0xC000, 1, A_HOST_MAC, b4=0x83),   # single next hop
          data("10.1.0.1", "10.2.0.9", 0xC001, 2, A_HOST_MAC, b4=0x83)]   # uplink group
    res = harness.run(a_config(n_up=4), [fr, [], [], [], []], tag="cvhostb4")
    if not ok_run(t, res, "host byte 4"):
        return
    out = [f for p in range(1, 5) for f in res.outputs[p]]
    t.eq(len(out), 2, "(both forwarded)")
    for f in out:
        t.eq(b4_of(f), 0, "(host byte 4 cleared before the fabric)")
        t.check(R.icrc_ok(f), "ICRC after clearing byte 4")
    ok, why = harness.accounted(res.stats)
    t.check(ok, "accounting: " + why)
    summary(t, "host-b4", before, ": byte 4 from a host cleared on group and single routes")


# --------------------------------------------------------------------------
def test_dre_tail_drop(t):
    """The DRE counts what a port sends (ALGORITHMS.md 4), not what its
    queue refused. ToR B's slow host port 3 (16 KB queues, a 1 KB shaper
    burst) gets one RX burst of 32 x 998-byte frames: 16 are queued, 16
    tail-dropped. The ACKs that follow advertise 10.2.0.5 (behind port 3)
    with the CE of the 16 queued frames."""
    before = (t.passed + t.failed, t.failed)
    n_load, queued = 32, 16
    load = [data("10.2.0.9", "10.2.0.5", 0xF100 + i, i, B_HOST_MAC[0], size=LOAD_LEN - 58)
            for i in range(n_load)]
    assert all(len(f) == LOAD_LEN for f in load)
    acks = [ack(B_HOSTS[i % 5], "10.1.0.%d" % (i % 7 + 1), 0xC000 + i, i, B_HOST_MAC[0])
            for i in range(40)]
    cfg = b_config().replace("shape_burst_kb: 65536", "shape_burst_kb: 1") + \
        "qos: {queue_kb: 16}\n"
    want, every = dre_ce(queued * LOAD_LEN), dre_ce(n_load * LOAD_LEN)
    t.check(not (want & every), "test input: the two CEs differ: %s %s" % (want, every))
    res = harness.run(cfg, [load + acks, [], [], []], tag="cvdre")
    if not ok_run(t, res, "ToR B, small queue"):
        return
    st = res.stats
    t.eq(res.port(3)["tx_packets"], queued, "(port 3 sent what its queue took)")
    t.eq(st["drops"]["queue_full"], n_load - queued, "(the rest tail-dropped)")
    adv = [shim_of(f)[2] for p in (1, 2) for f in res.outputs[p]
           if len(f) > 70 and shim_of(f)[0] == "10.2.0.5"]
    t.check(len(adv) >= 2, "ACKs advertising 10.2.0.5: %d" % len(adv))
    t.check(all(ce in want for ce in adv),
            "advertised CE of port 3 %s: the queued bytes give %s (every byte of the burst: "
            "%s)" % (sorted(set(adv)), sorted(want), sorted(every)))
    ok, why = harness.accounted(st)
    t.check(ok, "accounting: " + why)
    summary(t, "dre-tail-drop", before, ": %d of %d frames queued on port 3, advertised CE %s "
            "(queued bytes %s, whole burst %s)" % (res.port(3)["tx_packets"], n_load,
                                                   sorted(set(adv)), sorted(want), sorted(every)))


def main():
    t = harness.Checker("pkt-caver")
    test_origin_strip(t)
    test_spine_transit(t)
    test_spine_sr(t)
    test_srctor(t)
    test_dsttor(t)
    test_host_trust(t)
    test_host_b4(t)
    test_dre_tail_drop(t)
    return t.done()


if __name__ == "__main__":
    sys.exit(main())

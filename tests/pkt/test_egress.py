#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The rocetor authors
"""The egress stage on net_pcap ports (DESIGN.md A6, ALGORITHMS.md 5): RED/ECN
marking at dequeue on a shaped uplink, the control class overtaking a
backlog, received PFC pausing one class, trimming, seeded random loss and the
delay line. Outputs are checked against the inputs byte by byte (only the L2
rewrite, TTL, IPv4 checksum and the ECN bits may change, and trimming may
cut), ICRCs by scapy, timing by the net_pcap TX timestamps; and at exit
everything held is sent at once, ignoring shaper, pauses and delay. Every run
is accounted exactly: rx = forwarded + consumed + dropped, nothing held, no
mbuf leaked.

The pcap RX side hands rocetor its input as fast as the worker polls (well
above 100 kpps even on a loaded 2-core machine), so a 1 Gb/s shaped uplink
(~116 kpps of 1 KB frames) builds a queue of most of the input: that is what
the ECN, CNP and trimming tests rely on, and each checks the queue really
built (max_depth) before reading anything into the outcome.

The PFC tests here (test_pfc, test_exit_flush, test_nic_pfc_unsupported) are
virtual-port tests: net_pcap files pass MAC control frames (0x8808) to
rocetor and from it, which a real NIC's MAC does not (mlx5 and ice consume
received ones, i40e drops the ones an application sends), so qos.pfc.mode
software is refused there at start-up (doc/egress.md "Lossless on each NIC
family"; pkt-nic tests that check)."""
import os
import struct
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
import harness  # noqa: E402
import roce  # noqa: E402
import rocegen  # noqa: E402
from scapy.all import IP, UDP, Ether, Raw, raw  # noqa: E402

HOST_MAC = "02:00:00:00:01:00"
UP_MAC = {1: "02:00:00:00:01:01", 2: "02:00:00:00:01:02"}
NH = {1: "02:00:00:00:bb:01", 2: "02:00:00:00:bb:02"}
SENDER = "02:00:00:00:aa:01"  # roce.frame's default source MAC

KMIN = 100 * 1024  # qos.ecn defaults
KMAX = 400 * 1024


def config(p1="", p2=None, qos="", mbufs=16383, name="eg"):
    """Host port 0, uplink 1 (and 2): 10.2/16 and fd00:2::/64 to port 1,
    10.3/16 to port 2."""
    text = """
switch: {name: %s, id: 9, mbufs: %d}
ports:
  - {port: 0, role: host, mac: "%s"}
  - {port: 1, role: fabric, mac: "%s"%s}
""" % (name, mbufs, HOST_MAC, UP_MAC[1], p1)
    if p2 is not None:
        text += '  - {port: 2, role: fabric, mac: "%s"%s}\n' % (UP_MAC[2], p2)
    text += """routes:
  - {prefix: "10.2.0.0/16", port: 1, nexthop_mac: "%s"}
  - {prefix: "fd00:2::/64", port: 1, nexthop_mac: "%s"}
""" % (NH[1], NH[1])
    if p2 is not None:
        text += '  - {prefix: "10.3.0.0/16", port: 2, nexthop_mac: "%s"}\n' % NH[2]
    if qos:
        text += "qos:\n" + "".join("  %s\n" % line for line in qos.strip().split("\n"))
    return text


# ------------------------------------------------------------------ frames

def data(psn, payload=1000, ecn=2, dscp=0, v6=False, dst=None, sport=0xC000):
    """A RoCE RC SEND ONLY from the host toward the uplink."""
    if v6:
        return roce.frame(roce.SEND_ONLY, psn=psn, payload=bytes(payload), ecn=ecn, dscp=dscp,
                          src_ip="fd00:1::1", dst_ip=dst or "fd00:2::1", sport=sport)
    return roce.frame(roce.SEND_ONLY, psn=psn, payload=bytes(payload), ecn=ecn, dscp=dscp,
                      dst_ip=dst or "10.2.0.1", sport=sport)


def udp_plain(i, payload=1000):
    """Non-RoCE UDP toward the uplink (not trimmable)."""
    return raw(Ether(src=SENDER, dst=HOST_MAC) / IP(src="10.1.0.1", dst="10.2.0.9", id=i, tos=0)
               / UDP(sport=1234, dport=5678) / Raw(struct.pack("!I", i) + bytes(payload - 4)))


def is_v6(f):
    return rocegen.l3_offset(f)[1] == 0x86DD


def is_roce(f):
    try:
        _, l4, _ = roce.offsets(f)
    except ValueError:
        return False
    return struct.unpack_from("!H", f, l4 + 2)[0] == roce.ROCE_PORT


def psn(f):
    return roce.bth_fields(f)["psn"]


def ecn(f):
    l3, et = rocegen.l3_offset(f)
    return f[l3 + 1] & 3 if et == 0x0800 else (f[l3 + 1] >> 4) & 3


def dscp(f):
    l3, et = rocegen.l3_offset(f)
    return f[l3 + 1] >> 2 if et == 0x0800 else ((f[l3] & 0xF) << 4 | f[l3 + 1] >> 4) >> 2


def expect(f, port, ce=False, trim=0, update=False, set_dscp=None):
    """What rocetor must send for input frame f leaving on port, computed
    here independently: MACs, TTL/hop limit - 1, CE if marked, cut to trim
    bytes (lengths rewritten when update, DSCP set_dscp), IPv4 checksum
    recomputed."""
    g = bytearray(f)
    g[0:6] = rocegen.mac_bytes(NH[port])
    g[6:12] = rocegen.mac_bytes(UP_MAC[port])
    l3, et = rocegen.l3_offset(f)
    if trim:
        del g[trim:]
    if set_dscp is not None:
        if et == 0x0800:
            g[l3 + 1] = set_dscp << 2 | (g[l3 + 1] & 3)
        else:
            tc = set_dscp << 2 | ((g[l3 + 1] >> 4) & 3)
            g[l3] = (g[l3] & 0xF0) | tc >> 4
            g[l3 + 1] = (g[l3 + 1] & 0x0F) | (tc & 0xF) << 4
    if et == 0x0800:
        g[l3 + 8] -= 1
        if ce:
            g[l3 + 1] |= 3
        if trim and update:
            struct.pack_into("!H", g, l3 + 2, trim - l3)
            struct.pack_into("!HH", g, l3 + 24, trim - l3 - 20, 0)
        struct.pack_into("!H", g, l3 + 10, 0)
        struct.pack_into("!H", g, l3 + 10, rocegen.ipv4_csum(bytes(g[l3:l3 + 20])))
    else:
        g[l3 + 7] -= 1
        if ce:
            g[l3 + 1] |= 0x30
        if trim and update:
            struct.pack_into("!H", g, l3 + 4, trim - l3 - 40)
            struct.pack_into("!HH", g, l3 + 44, trim - l3 - 40, 0)
    return bytes(g)


def ipv4_csum_ok(f):
    """scapy's opinion of the IPv4 header checksum."""
    p = Ether(f)
    if IP not in p:
        return True
    q = p[IP].copy()
    want = q.chksum
    q.chksum = None
    return IP(raw(q)).chksum == want


def cls(stats, port, c):
    """The stats of class c of port."""
    for e in stats["ports"]:
        if e["port"] == port:
            for k in e["classes"]:
                if k["class"] == c:
                    return k
    raise KeyError((port, c))


def run(t, name, cfg, inputs, keep=False, **kw):
    t0 = time.time()
    res = harness.run(cfg, inputs, tag="eg", keep=keep, **kw)
    ok = t.check(res.rc == 0 and res.stats is not None,
                 "%s: rocetor exit %d: %s" % (name, res.rc, res.stderr[-2000:]))
    if ok:
        good, why = harness.accounted(res.stats)
        t.check(good, "%s: accounting: %s" % (name, why))
    print("  %s: %.1f s" % (name, time.time() - t0))
    return res if ok else None


# ------------------------------------------------------------------ 1. ECN

def ecn_inputs(n=3000):
    """Alternating ECT(0) and Not-ECT IPv4; every 20th frame an IPv6 ECT(1)
    and every 20th an IPv6 Not-ECT. PSN = index."""
    frames, kind = [], {}
    for i in range(n):
        if i % 20 == 9:
            frames.append(data(i, ecn=1, v6=True))
            kind[i] = "v6-ect1"
        elif i % 20 == 19:
            frames.append(data(i, ecn=0, v6=True))
            kind[i] = "v6-not"
        elif i % 2 == 0:
            frames.append(data(i, ecn=2))
            kind[i] = "v4-ect0"
        else:
            frames.append(data(i, ecn=0))
            kind[i] = "v4-not"
    return frames, kind


def test_ecn(t):
    frames, kind = ecn_inputs()
    n = len(frames)
    orig = {psn(f): f for f in frames}
    ect = [p for p, k in kind.items() if "ect" in k]
    qos = "queue_kb: 8192"
    for shaped in (True, False):
        name = "ecn %s" % ("shaped 1G" if shaped else "unshaped")
        res = run(t, name, config(p1=", shape_gbps: 1" if shaped else "", qos=qos),
                  [frames, []])
        if res is None:
            continue
        ts = res.outputs_ts[1]
        s = res.stats
        c0 = cls(s, 1, 0)
        out = res.outputs[1]
        t.eq(len(out), n, "(%s: frames out)" % name)
        t.eq(s["forwarded"], n, "(%s: forwarded)" % name)
        t.eq(s["dropped"], 0, "(%s: nothing dropped)" % name)
        t.eq(c0["enqueued"], n, "(%s: classes[0].enqueued)" % name)
        t.eq(c0["sent"], n, "(%s: classes[0].sent)" % name)
        marked = {}
        bad = []
        bad_icrc = []
        bad_csum = []
        seen = set()
        for f in out:
            p = psn(f)
            seen.add(p)
            ce = ecn(f) == 3
            if ce:
                marked[p] = True
            if f != expect(orig[p], 1, ce=ce and "ect" in kind[p]):
                bad.append(p)
            if not roce.icrc_ok(f):
                bad_icrc.append(p)
            if not is_v6(f) and (ce or p % 50 == 0) and not ipv4_csum_ok(f):
                bad_csum.append(p)
        t.eq(seen, set(orig), "(%s: every PSN out once)" % name)
        t.eq(bad[:10], [], "(%s: frames changed beyond MACs/TTL/checksum/CE)" % name)
        t.eq(bad_icrc[:10], [], "(%s: bad ICRC after marking)" % name)
        t.eq(bad_csum[:10], [], "(%s: bad IPv4 checksum (scapy))" % name)
        not_ect_marked = [p for p in marked if "not" in kind[p]]
        t.eq(not_ect_marked[:10], [], "(%s: Not-ECT packets marked CE)" % name)
        n_ce = len(marked)
        t.eq(c0["ecn_marked"], n_ce, "(%s: classes[0].ecn_marked = CE frames out)" % name)
        t.eq(res.port(1)["ecn_marked"], n_ce, "(%s: port ecn_marked = CE frames out)" % name)
        # Marking is on the depth left behind at dequeue: in a FIFO that is
        # at most the bytes sent after the frame, so a frame followed by
        # <= kmin bytes can never be marked (marking at enqueue would mark
        # the tail of a deep queue).
        suffix, late = 0, []
        for f in reversed(out):
            if suffix <= KMIN and ecn(f) == 3:
                late.append(psn(f))
            suffix += len(f)
        t.eq(late, [], "(%s: marked though <= kmin bytes were left behind)" % name)
        if shaped and len(ts) == n:
            # Each frame costs pkt_len + 24 bytes of the 1 Gb/s bucket (16 KB
            # deep): the drain rate can never exceed it, and falls short only
            # if the worker is starved.
            bits = sum((len(f) + 24) * 8 for _, f in ts[1:])
            gbps = bits / (ts[-1][0] - ts[0][0]) / 1e9
            print("  %s: drained at %.3f Gb/s" % (name, gbps))
            t.check(gbps <= 1.05, "%s: drained at %.3f Gb/s, shape_gbps 1" % (name, gbps))
            # The floor is a timing assertion: ASan's worker cannot keep
            # the shaped uplink busy on a loaded machine (0.45 Gb/s seen).
            # A worker that the kernel takes off the CPU leaves a gap of a
            # scheduler slice or more (0.61 Gb/s seen beside two busy
            # simulator jobs); gaps over 1 ms are not the shaper's time, so
            # the floor counts only the time the worker ran.
            gaps = [b[0] - a[0] for a, b in zip(ts, ts[1:])]
            off = sum(g for g in gaps if g > 1e-3)
            run_gbps = bits / (ts[-1][0] - ts[0][0] - off) / 1e9
            print("  %s: %.3f Gb/s without %d gaps over 1 ms (%.1f ms)"
                  % (name, run_gbps, sum(1 for g in gaps if g > 1e-3), off * 1e3))
            if not harness.sanitized("%s: drain rate >= 0.7 Gb/s" % name):
                t.check(run_gbps >= 0.7, "%s: drained at %.3f Gb/s while running, shape_gbps 1"
                        % (name, run_gbps))
        if shaped:
            t.check(c0["max_depth"] > KMAX, "%s: max_depth %d not above kmax: no backlog built"
                    % (name, c0["max_depth"]))
            t.check(n_ce >= len(ect) // 2, "%s: only %d of %d ECT frames marked"
                    % (name, n_ce, len(ect)))
            v6m = sum(1 for p in marked if kind[p] == "v6-ect1")
            v6n = sum(1 for k in kind.values() if k == "v6-ect1")
            t.check(v6m >= v6n // 3, "%s: only %d of %d IPv6 ECT(1) frames marked"
                    % (name, v6m, v6n))
            print("  %s: %d of %d ECT frames marked CE, max_depth %d"
                  % (name, n_ce, len(ect), c0["max_depth"]))
        else:
            # One RX burst (32 frames, < 35 KB) at a time and an egress that
            # never waits: the queue stays below kmin, so no mark at all.
            t.check(c0["max_depth"] <= KMIN, "%s: max_depth %d above kmin without shaping"
                    % (name, c0["max_depth"]))
            t.eq(n_ce, 0, "(%s: CE marks without a queue)" % name)


# ------------------------------------------------------------------ 2. CNP

def test_cnp_overtakes(t):
    n_data = 3000
    frames = [data(i) for i in range(n_data)]
    cnps = [roce.cnp(0x300 + j, psn=j, dscp=0, ecn=0) for j in range(16)]
    # 8 CNPs half-way through the data, 8 after all of it.
    inputs = frames[:1500] + cnps[:8] + frames[1500:] + cnps[8:]
    res = run(t, "cnp overtakes", config(p1=", shape_gbps: 1", qos="queue_kb: 8192"),
              [inputs, []])
    if res is None:
        return
    s = res.stats
    out = res.outputs[1]
    t.eq(len(out), len(inputs), "(cnp: frames out)")
    c0, c7 = cls(s, 1, 0), cls(s, 1, 7)
    t.check(c0["max_depth"] > 1024 * 1024, "cnp: max_depth %d: no backlog built"
            % c0["max_depth"])
    t.eq(c7["enqueued"], len(cnps), "(cnp: classes[7].enqueued)")
    t.eq(c7["sent"], len(cnps), "(cnp: classes[7].sent)")
    t.eq(c0["sent"], n_data, "(cnp: classes[0].sent)")
    pos = {}
    for i, f in enumerate(out):
        if roce.bth_fields(f)["opcode"] == roce.CNP:
            pos[roce.bth_fields(f)["dqp"] - 0x300] = i
            t.check(roce.icrc_ok(f), "cnp: bad ICRC on a CNP")
            t.eq(f, expect(cnps[roce.bth_fields(f)["dqp"] - 0x300], 1), "(cnp: CNP bytes)")
    t.eq(sorted(pos), list(range(len(cnps))), "(cnp: every CNP out once)")
    # The whole input is read in a few ms while 1 Gb/s needs ~26 ms for the
    # data: a CNP that waited behind the data it followed in the input would
    # leave after them. It must overtake most of them instead.
    for j, i in sorted(pos.items()):
        before_in = 1500 if j < 8 else n_data
        data_before_out = sum(1 for f in out[:i] if roce.bth_fields(f)["opcode"] != roce.CNP)
        t.check(data_before_out < before_in // 2,
                "cnp %d left after %d data frames (%d were ahead of it in the input)"
                % (j, data_before_out, before_in))
    print("  cnp: CNP output positions %s of %d" % (sorted(pos.values()), len(out)))


# ------------------------------------------------------------------ 3. PFC

def pfc_frame(vector, quanta, src=NH[1]):
    """An 802.1Qbb frame built here: 01:80:c2:00:00:01, 0x8808, opcode
    0x0101, class-enable vector, 8 quanta."""
    q = [0] * 8
    for c, v in quanta.items():
        q[c] = v
    f = rocegen.mac_bytes("01:80:c2:00:00:01") + rocegen.mac_bytes(src) + \
        struct.pack("!HHH8H", 0x8808, 0x0101, vector, *q)
    return f + bytes(60 - len(f))


def pause_frame(quanta):
    f = rocegen.mac_bytes("01:80:c2:00:00:01") + rocegen.mac_bytes(NH[1]) + \
        struct.pack("!HHH", 0x8808, 0x0001, quanta)
    return f + bytes(60 - len(f))


def test_pfc(t):
    """Received PFC pausing one class, in software and off mode: a virtual-port
    test (net_pcap passes 0x8808 frames; a real NIC's MAC consumes them, so
    software mode is refused on mlx5, ice and i40e)."""
    n = 200
    # Interleaved: even PSN DSCP 26 (class 3), odd PSN DSCP 0 (class 0).
    host = [data(i, payload=200, dscp=26 if i % 2 == 0 else 0) for i in range(2 * n)]
    # Priorities 3 and 0 named, full quanta: only class 3 is in pfc.classes.
    # ... then an 802.3x PAUSE (counted, ignored) and a MAC control frame
    # too short to hold a PFC payload (18 bytes: malformed).
    short = rocegen.mac_bytes("01:80:c2:00:00:01") + rocegen.mac_bytes(NH[1]) + \
        struct.pack("!HHH", 0x8808, 0x0101, 0x0008)
    up = [pfc_frame(0x09, {0: 65535, 3: 65535}), pause_frame(65535), short]
    pause_ms = 65535 * 512 / 1e9 * 1e3  # 33.55 ms at speed_gbps 1
    for mode in ("software", "off"):
        name = "pfc %s" % mode
        qos = 'dscp: [{dscp: 26, class: 3}]\npfc: {mode: %s, classes: [3]}' % (
            mode if mode != "off" else '"off"')
        res = run(t, name, config(p1=", speed_gbps: 1", qos=qos), [host, up], idle_ms=500)
        if res is None:
            continue
        out = res.outputs_ts[1]
        s = res.stats
        p1 = res.port(1)
        t.eq(len(out), 2 * n, "(%s: data frames out)" % name)
        t.eq([f for _, f in out if f[12:14] == b"\x88\x08"], [],
             "(%s: MAC control forwarded)" % name)
        t.eq(res.outputs[0], [], "(%s: nothing sent toward the host)" % name)
        t.eq(s["forwarded"], 2 * n, "(%s: forwarded)" % name)
        t.eq(s["consumed"], 2, "(%s: PFC and PAUSE consumed)" % name)
        t.eq(s["drops"]["malformed"], 1, "(%s: short MAC control frame malformed)" % name)
        t.eq(p1["drops"], 1, "(%s: port 1 drops)" % name)
        t.eq(p1["pfc"]["rx_pfc"], 1, "(%s: rx_pfc)" % name)
        t.eq(p1["pfc"]["rx_pause"], 1, "(%s: rx_pause)" % name)
        t.eq(p1["pfc"]["rx_ignored"], 1 if mode == "off" else 0, "(%s: rx_ignored)" % name)
        t.eq(res.port(0)["pfc"]["tx_xoff"], 0, "(%s: no XOFF sent)" % name)
        c3 = [(ts, f) for ts, f in out if dscp(f) == 26]
        c0 = [(ts, f) for ts, f in out if dscp(f) == 0]
        t.eq(len(c3), n, "(%s: class 3 frames out)" % name)
        t.eq(len(c0), n, "(%s: class 0 frames out)" % name)
        t.eq([psn(f) for _, f in c3], list(range(0, 2 * n, 2)), "(%s: class 3 order)" % name)
        t.eq([psn(f) for _, f in c0], list(range(1, 2 * n, 2)), "(%s: class 0 order)" % name)
        orig = {psn(f): f for f in host}
        t.eq([psn(f) for _, f in out if f != expect(orig[psn(f)], 1)], [],
             "(%s: frames changed)" % name)
        t.eq(cls(s, 1, 3)["sent"], n, "(%s: classes[3].sent)" % name)
        t.eq(cls(s, 1, 0)["pfc_paused_ns"], 0, "(%s: class 0 (not in pfc.classes) paused)" % name)
        if not c0 or not c3:
            continue
        first0, last0, first3 = c0[0][0], c0[-1][0], c3[0][0]
        gap_ms = (first3 - first0) * 1e3
        paused = cls(s, 1, 3)["pfc_paused_ns"]
        print("  %s: class 0 out within %.2f ms, first class 3 %.2f ms after the first class 0,"
              " pfc_paused_ns %d" % (name, (last0 - first0) * 1e3, gap_ms, paused))
        t.check(last0 - first0 < 0.020, "%s: class 0 took %.1f ms to leave"
                % (name, (last0 - first0) * 1e3))
        if mode == "software":
            t.check(last0 <= first3, "%s: class 3 left during the pause" % name)
            # The pause (33.55 ms) started before the first class-0 frame
            # left; it ends long before the 500 ms idle exit flushes.
            t.check(25 <= gap_ms <= 300, "%s: class 3 left %.2f ms after class 0 (pause %.2f ms)"
                    % (name, gap_ms, pause_ms))
            t.check(20e6 <= paused <= 40e6, "%s: classes[3].pfc_paused_ns %d, expected ~%.0f"
                    % (name, paused, pause_ms * 1e6))
        else:
            t.eq(paused, 0, "(%s: classes[3].pfc_paused_ns)" % name)
            t.check(gap_ms < 20, "%s: class 3 delayed %.2f ms with PFC off" % (name, gap_ms))
            # Class 3 is above class 0: it is not left behind all of class 0.
            t.check(first3 <= last0, "%s: class 3 waited for all of class 0" % name)


# ------------------------------------------------------------------ 4. trimming

def test_trim(t):
    n = 1000
    roce_in = [data(i, v6=(i % 10 == 5)) for i in range(n)]
    udp_in = [udp_plain(i) for i in range(200)]
    mixed = []
    for i, f in enumerate(roce_in):
        mixed.append(f)
        if i % 5 == 4:
            mixed.append(udp_in[i // 5])
    orig = {psn(f): f for f in roce_in}
    udp_orig = {struct.unpack_from("!I", f, 42)[0]: f for f in udp_in}
    for update in (False, True):
        name = "trim %s" % ("update" if update else "keep")
        qos = "trim: true\nclass_params: [{class: 0, queue_kb: 32}]"
        if update:  # and trimmed frames re-marked DSCP 46
            qos += "\ntrim_lengths: update\ntrim_dscp: 46"
        inputs = mixed if not update else roce_in
        res = run(t, name, config(p1=", shape_gbps: 1", qos=qos), [inputs, []])
        if res is None:
            continue
        s = res.stats
        c0, c7 = cls(s, 1, 0), cls(s, 1, 7)
        out = res.outputs[1]
        trimmed, full, udp_out = [], [], []
        bad, bad_icrc, bad_csum, bad_len = [], [], [], []
        for f in out:
            if not is_roce(f):
                udp_out.append(f)
                i = struct.unpack_from("!I", f, 42)[0]
                if f != expect(udp_orig[i], 1):
                    bad.append(("udp", i))
                continue
            p = psn(f)
            keep = 14 + (40 if is_v6(orig[p]) else 20) + 8 + 12
            if len(f) == keep:
                trimmed.append(p)
                if f != expect(orig[p], 1, trim=keep, update=update,
                               set_dscp=46 if update else None):
                    bad.append(("trimmed", p))
                if not ipv4_csum_ok(f):
                    bad_csum.append(p)
                # IPv4 total length or IPv6 payload length, and UDP length
                l3, l4, _ = roce.offsets(f)
                at = l3 + (4 if is_v6(f) else 2)
                ilen = struct.unpack_from("!H", f, at)[0]
                ulen = struct.unpack_from("!H", f, l4 + 4)[0]
                want_u = 20 if update else struct.unpack_from("!H", orig[p], l4 + 4)[0]
                want_i = (keep - l4 + (0 if is_v6(f) else 20)) if update else \
                    struct.unpack_from("!H", orig[p], at)[0]
                if ulen != want_u or ilen != want_i:
                    bad_len.append((p, ilen, ulen))
            else:
                full.append(p)
                if f != expect(orig[p], 1):
                    bad.append(("full", p))
                if not roce.icrc_ok(f):
                    bad_icrc.append(p)
        t.eq(bad[:10], [], "(%s: frames not as expected)" % name)
        t.eq(bad_icrc[:10], [], "(%s: untrimmed frame with a bad ICRC)" % name)
        t.eq(bad_csum[:10], [], "(%s: trimmed frame with a bad IPv4 checksum)" % name)
        t.eq(bad_len[:10], [], "(%s: IP/UDP lengths of trimmed frames)" % name)
        t.eq(sorted(trimmed + full), sorted(orig), "(%s: every RoCE PSN out once)" % name)
        t.check(len(trimmed) >= n // 2, "%s: only %d of %d trimmed (max_depth %d)"
                % (name, len(trimmed), n, c0["max_depth"]))
        t.check(any(is_v6(orig[p]) for p in trimmed), "%s: no IPv6 frame trimmed" % name)
        t.check(c0["max_depth"] <= 32 * 1024, "%s: class 0 max_depth %d above its queue_kb"
                % (name, c0["max_depth"]))
        # Each RoCE frame is either admitted into class 0 or trimmed into the
        # control class (2048 KB, never full here); only non-RoCE UDP is
        # tail-dropped.
        udp_dropped = (200 if not update else 0) - len(udp_out)
        t.eq(c0["trimmed"], len(trimmed), "(%s: classes[0].trimmed = trimmed frames out)" % name)
        t.eq(c7["enqueued"], len(trimmed), "(%s: classes[7].enqueued)" % name)
        t.eq(c7["sent"], len(trimmed), "(%s: classes[7].sent)" % name)
        t.eq(c7["drop_queue_full"], 0, "(%s: classes[7].drop_queue_full)" % name)
        t.eq(c0["enqueued"] + c0["trimmed"] + udp_dropped, len(inputs),
             "(%s: enqueued + trimmed + dropped = input)" % name)
        t.eq(c0["drop_queue_full"], udp_dropped, "(%s: classes[0].drop_queue_full)" % name)
        t.eq(s["drops"]["queue_full"], udp_dropped, "(%s: drops.queue_full)" % name)
        t.eq(s["forwarded"], len(out), "(%s: forwarded)" % name)
        if not update:
            t.check(udp_dropped > 0, "%s: no non-RoCE UDP frame was tail-dropped" % name)
            t.check(all(len(f) == len(udp_in[0]) for f in udp_out),
                    "%s: a non-RoCE UDP frame was cut" % name)
        print("  %s: %d of %d RoCE frames trimmed, %d of 200 UDP tail-dropped"
              % (name, len(trimmed), n, udp_dropped))
        if not update:
            next_hop_trimmed(t, [f for f in out if is_roce(f) and len(f) < 100])


def next_hop_trimmed(t, frames):
    """A keep-mode trimmed header (IP/UDP lengths longer than the frame)
    reaching the next rocetor is a trimmed RoCE header, not a malformed
    frame: forwarded, in the control class, bytes kept (L2/TTL aside)."""
    name = "trimmed headers at the next hop"
    t.check(len(frames) > 0, "%s: no trimmed frame to send" % name)
    mac = bytes(int(x, 16) for x in HOST_MAC.split(":"))
    frames = [mac + f[6:] for f in frames]
    res = run(t, name, config(), [frames, []])
    if res is None:
        return
    s = res.stats
    t.eq(s["drops"]["malformed"], 0, "(%s: malformed)" % name)
    t.eq(s["forwarded"], len(frames), "(%s: forwarded)" % name)
    t.eq(cls(s, 1, 7)["sent"], len(frames), "(%s: sent in the control class)" % name)
    out = {psn(f): f for f in res.outputs[1]}
    bad = [p for f in frames for p in [psn(f)] if p not in out or len(out[p]) != len(f)
           or out[p][26:] != f[26:] or (not is_v6(f) and not ipv4_csum_ok(out[p]))]
    t.eq(bad[:10], [], "(%s: frames changed beyond L2/TTL/checksum)" % name)


# ------------------------------------------------------------------ 5. loss

def test_loss(t):
    n = 5000
    frames = [data(i, payload=64) for i in range(n)]
    lost = {}
    for run_i, seed in enumerate((7, 7, 8)):
        name = "loss seed %d #%d" % (seed, run_i)
        res = run(t, name, config(p1=", loss: 0.1, loss_seed: %d" % seed), [frames, []])
        if res is None:
            continue
        s = res.stats
        k = s["drops"]["impair_loss"]
        out_psn = [psn(f) for f in res.outputs[1]]
        gone = set(range(n)) - set(out_psn)
        lost.setdefault(seed, []).append(gone)
        # 3 sigma of Binomial(5000, 0.1) is 63.6
        t.check(abs(k - 500) <= 64, "%s: impair_loss %d, expected 500 +- 64" % (name, k))
        t.eq(len(out_psn), n - k, "(%s: frames out = in - impair_loss)" % name)
        t.eq(out_psn, sorted(out_psn), "(%s: order kept)" % name)
        t.eq(len(gone), k, "(%s: PSNs lost)" % name)
        t.eq(s["dropped"], k, "(%s: only impair_loss drops)" % name)
        t.eq(res.port(0)["drops"], k, "(%s: counted on the ingress port)" % name)
        t.eq(cls(s, 1, 0)["drop_loss"], k, "(%s: classes[0].drop_loss)" % name)
        t.eq(cls(s, 1, 0)["sent"], n, "(%s: classes[0].sent counts lost frames too)" % name)
        print("  %s: %d lost" % (name, k))
    if len(lost.get(7, [])) == 2:
        t.check(lost[7][0] == lost[7][1], "loss: seed 7 lost different PSNs in two runs "
                "(%d vs %d, %d in common)" % (len(lost[7][0]), len(lost[7][1]),
                                             len(lost[7][0] & lost[7][1])))
    if lost.get(7) and lost.get(8):
        t.check(lost[7][0] != lost[8][0], "loss: seeds 7 and 8 lost the same PSNs")


# ------------------------------------------------------------------ 6. delay

def test_delay(t):
    n = 1000
    # Alternate: even PSN to port 1 (delay_us 2000), odd PSN to port 2 (no
    # delay). The undelayed neighbour's TX time stands for the arrival time.
    frames = [data(i, payload=64, dst="10.2.0.1" if i % 2 == 0 else "10.3.0.1")
              for i in range(2 * n)]
    res = run(t, "delay 2 ms", config(p1=", delay_us: 2000", p2=""), [frames, [], []])
    if res is None:
        return
    d, u = res.outputs_ts[1], res.outputs_ts[2]
    s = res.stats
    t.eq(s["forwarded"], 2 * n, "(delay: forwarded)")
    t.eq(s["held_packets"], 0, "(delay: held at exit)")
    t.eq([psn(f) for _, f in d], list(range(0, 2 * n, 2)), "(delay: port 1 all out, in order)")
    t.eq([psn(f) for _, f in u], list(range(1, 2 * n, 2)), "(delay: port 2 all out, in order)")
    orig = {psn(f): f for f in frames}
    t.eq([psn(f) for _, f in d if f != expect(orig[psn(f)], 1)], [], "(delay: frames changed)")
    if len(d) != n or len(u) != n:
        return
    deltas = sorted((d[i][0] - u[i][0]) * 1e3 for i in range(n))
    med = deltas[n // 2]
    print("  delay: port 1 minus port 2 neighbour: min %.3f median %.3f max %.3f ms"
          % (deltas[0], med, deltas[-1]))
    t.check(1.9 <= med <= 10, "delay: median extra delay %.3f ms, expected ~2" % med)
    t.check(deltas[0] >= 1.0, "delay: a frame left only %.3f ms after its neighbour" % deltas[0])


# ------------------------------------------------------------------ 7. exit

def test_exit_flush(t):
    """A virtual-port test (net_pcap passes the PFC frame to rocetor).
    Exit sends everything held, ignoring the shaper, PFC pauses and the
    delay line: port 1 shaped to 10 Mb/s (so a PFC quantum is 51.2 us and
    65535 quanta pause class 3 for 3.36 s) with a 1 s delay line; rocetor
    exits 300 ms after its input ends, long before any of that expires."""
    n = 100
    host = []
    for i in range(3 * n):
        if i % 3 == 2:  # the undelayed neighbours on port 2: the time reference
            host.append(data(i, payload=1000, dst="10.3.0.1"))
        else:
            host.append(data(i, payload=1000, dscp=26 if i % 3 == 0 else 0))
    up = [pfc_frame(0x08, {3: 65535})]
    qos = "dscp: [{dscp: 26, class: 3}]\npfc: {mode: software, classes: [3]}"
    res = run(t, "exit flush", config(p1=", shape_gbps: 0.01, delay_us: 1000000", p2="",
                                      qos=qos), [host, up, []], idle_ms=300)
    if res is None:
        return
    d, u = res.outputs_ts[1], res.outputs_ts[2]
    s = res.stats
    t.eq(len(u), n, "(exit: port 2 frames)")
    t.eq(len(d), 2 * n, "(exit: port 1 frames, all flushed)")
    t.eq(s["dropped"], 0, "(exit: nothing dropped)")
    t.eq(s["drops"]["shutdown"], 0, "(exit: drops.shutdown)")
    t.eq(s["forwarded"], 3 * n, "(exit: forwarded)")
    t.eq(s["consumed"], 1, "(exit: PFC consumed)")
    t.eq(cls(s, 1, 3)["sent"], n, "(exit: classes[3].sent)")
    t.eq(cls(s, 1, 0)["sent"], n, "(exit: classes[0].sent)")
    orig = {psn(f): f for f in host}
    changed = [psn(f) for _, f in d if f != expect(orig[psn(f)], 1)] + \
        [psn(f) for _, f in u if f != expect(orig[psn(f)], 2)]
    t.eq(changed, [], "(exit: frames changed)")
    for c, want in ((26, list(range(0, 3 * n, 3))), (0, list(range(1, 3 * n, 3)))):
        t.eq([psn(f) for _, f in d if dscp(f) == c], want, "(exit: DSCP %d order)" % c)
    paused = cls(s, 1, 3)["pfc_paused_ns"]
    t.check(0.2e9 <= paused <= 3.0e9, "exit: pfc_paused_ns %d: the pause was not cut by exit"
            % paused)
    if d and u:
        first = d[0][0] - u[0][0]
        last = d[-1][0] - u[0][0]
        print("  exit: port 1 frames left %.0f..%.0f ms after the first port 2 frame"
              % (first * 1e3, last * 1e3))
        # held until the idle exit (300 ms), then sent at once: before the
        # delay line (1 s) or the pause (3.36 s) would have let them go
        t.check(first >= 0.25, "exit: a frame left %.0f ms in, before exit" % (first * 1e3))
        t.check(last <= 0.9, "exit: a frame left %.0f ms in: waited for the delay line"
                % (last * 1e3))


def test_nic_pfc_unsupported(t):
    """qos.pfc.mode nic on a PMD without PFC (net_pcap, a virtual port):
    start-up fails with exit status 1 and says why and what to use
    (software on this virtual port), instead of running without lossless
    mode."""
    res = harness.run(config(qos="pfc: {mode: nic, classes: [3]}"), [[], []], tag="egnic")
    t.eq(res.rc, 1, "(nic PFC on net_pcap: exit status)")
    t.check("cannot do PFC on priority 3" in res.stderr and "software" in res.stderr,
            "nic PFC message: %r" % res.stderr[-500:])


def main():
    t = harness.Checker("pkt-egress")
    t0 = time.time()
    for fn in (test_ecn, test_cnp_overtakes, test_pfc, test_trim, test_loss, test_delay,
               test_exit_flush, test_nic_pfc_unsupported):
        t1 = time.time()
        fn(t)
        print("%s: %.1f s" % (fn.__name__, time.time() - t1))
    print("total %.1f s" % (time.time() - t0))
    return t.done()


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The rocetor authors
"""ConWeave on pcap ports (ALGORITHMS.md 2), one switch at a time.

DstToR: hand-built arrival sequences on one fabric port (so the arrival
order is exactly the pcap order) must leave the host port in PSN order, with
the header removed and the sender's ICRC valid (scapy), and the RTT_REPLY /
CLEAR / NOTIFY packets must leave on the fabric toward the sender's host.
SrcToR: host flows leave the uplinks with the fields of 2.1 and obey 2.2's
invariants; control packets addressed to a local host are consumed;
control-shaped packets from a host are dropped. Both stages chained: the real
RNIC capture and generated flows through a SrcToR then a DstToR come out
byte-identical to what the hosts sent (but for TTL, MACs and BTH byte 4).
Telemetry /rocetor/lb/flows,N shows live flows."""
import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
import harness  # noqa: E402
import roce as R  # noqa: E402

CAPTURE = os.path.join(os.environ.get("ROCETOR_SRC", "."), "..", "shared", "data",
                       "roce-rc-send-real.pcap")
HOST_MAC = "02:00:00:00:02:00"
FAB_MAC = ["02:00:00:00:02:%02x" % (i + 1) for i in range(4)]
RX_HOST = "02:00:00:00:aa:05"      # the receiving RNIC behind the DstToR
SPINE = ["02:00:00:00:cc:%02x" % (i + 1) for i in range(4)]
CW_SMALL = "conweave: {flow_table_size: 4096, reorder_queues_per_port: 64, " \
           "reorder_queue_depth: 255%s}\n"


def dst_config(extra=""):
    """A DstToR: receivers 10.2/16, fd00:2::/64, 192.168.70.4 on host port
    0; senders reached over 4 uplinks."""
    return ("switch: {name: dst, id: 2, lb: conweave}\nports:\n"
            '  - {port: 0, role: host, mac: "%s"}\n' % HOST_MAC +
            "".join('  - {port: %d, role: fabric, mac: "%s"}\n' % (i + 1, FAB_MAC[i])
                    for i in range(4)) +
            "routes:\n"
            '  - {prefix: "10.2.0.0/16", port: 0, nexthop_mac: "%s"}\n' % RX_HOST +
            '  - {prefix: "fd00:2::/64", port: 0, nexthop_mac: "%s"}\n' % RX_HOST +
            '  - {prefix: "192.168.70.4/32", port: 0, nexthop_mac: "%s"}\n' % RX_HOST +
            "".join('  - prefix: "%s"\n    paths:\n' % p +
                    "".join('      - {port: %d, nexthop_mac: "%s"}\n' % (i + 1, SPINE[i])
                            for i in range(4))
                    for p in ("10.1.0.0/16", "fd00:1::/64", "192.168.70.6/32")) +
            CW_SMALL % extra)


def src_config(extra="", lb="conweave"):
    """A SrcToR: senders 10.1/16, fd00:1::/64, 192.168.70.6 on host port 0."""
    return ("switch: {name: src, id: 1, lb: %s}\nports:\n" % lb +
            '  - {port: 0, role: host, mac: "%s"}\n' % HOST_MAC +
            "".join('  - {port: %d, role: fabric, mac: "%s"}\n' % (i + 1, FAB_MAC[i])
                    for i in range(4)) +
            "routes:\n"
            '  - {prefix: "10.1.0.0/16", port: 0, nexthop_mac: "02:00:00:00:aa:01"}\n'
            '  - {prefix: "fd00:1::/64", port: 0, nexthop_mac: "02:00:00:00:aa:01"}\n'
            '  - {prefix: "192.168.70.6/32", port: 0, nexthop_mac: "02:00:00:00:aa:01"}\n' +
            "".join('  - prefix: "%s"\n    paths:\n' % p +
                    "".join('      - {port: %d, nexthop_mac: "%s"}\n' % (i + 1, SPINE[i])
                            for i in range(4))
                    for p in ("10.2.0.0/16", "fd00:2::/64", "192.168.70.4/32")) +
            CW_SMALL % extra)


def host_frame(psn, sport=0xC000, v6=False, ecn=2, payload=64, src=None, dst=None):
    if v6:
        src, dst = src or "fd00:1::1", dst or "fd00:2::5"
    else:
        src, dst = src or "10.1.0.1", dst or "10.2.0.5"
    return R.frame(R.SEND_MIDDLE, psn=psn, dqp=0x11, payload=bytes([psn & 0xFF]) * payload,
                   src_ip=src, dst_ip=dst, sport=sport, ecn=ecn,
                   src_mac=SPINE[0], dst_mac=FAB_MAC[0])


def arrive(f, epoch, phase=0, ask=0, tail=0, ts_tx=0, ts_tail=0, path=1):
    """The frame as a SrcToR sent it (ALGORITHMS.md 2.1)."""
    return R.cw_data(f, path_id=path, epoch=epoch, phase=phase, ask_reply=ask, tail=tail,
                     ts_tx=ts_tx, ts_tail=ts_tail)


def psn_of(f):
    return R.bth_fields(f)["psn"]


def sport_of(f):
    _, l4, _ = R.offsets(f)
    return int.from_bytes(f[l4:l4 + 2], "big")


def same_as_sent(out, sent):
    """What a host receives equals what its peer sent, except the fields a
    switch may rewrite: MACs, TTL / hop limit, IPv4 checksum, BTH byte 4."""
    if len(out) != len(sent):
        return False
    l3, _, b = R.offsets(sent)
    a, s = bytearray(out), bytearray(sent)
    for g in (a, s):
        g[0:12] = bytes(12)
        if g[l3] >> 4 == 4:
            g[l3 + 8] = 0
            g[l3 + 10:l3 + 12] = b"\0\0"
        else:
            g[l3 + 7] = 0
        g[b + 4] = 0
    return a == s


def controls(res):
    """Every ConWeave control packet the switch sent on a fabric port."""
    out = []
    for p in range(1, 5):
        for f in res.outputs[p]:
            try:
                c = R.cw_fields(f)
            except ValueError:
                continue
            if c["cw_op"] in (R.CW_REPLY, R.CW_NOTIFY):
                out.append((p, f, c))
    return out


def ip_pair(f):
    l3, _, _ = R.offsets(f)
    if f[l3] >> 4 == 4:
        import socket
        return socket.inet_ntoa(f[l3 + 12:l3 + 16]), socket.inet_ntoa(f[l3 + 16:l3 + 20])
    import ipaddress
    return (str(ipaddress.IPv6Address(f[l3 + 8:l3 + 24])),
            str(ipaddress.IPv6Address(f[l3 + 24:l3 + 40])))


# --------------------------------------------------------------------------
def test_dsttor_sequences(t):
    seq, sent = [], {}

    def add(f, **kw):
        seq.append(arrive(f, **kw))
        sent.setdefault((sport_of(f), psn_of(f)), f)

    # A: TAIL overtaken by phase 1 (7..9), a late phase-0 packet (5) while
    # holding, then the TAIL (6), then more phase 1.
    A = {p: host_frame(p, sport=1000) for p in range(1, 13)}
    add(A[1], epoch=1, ask=1, ts_tx=100)
    for p in (2, 3, 4):
        add(A[p], epoch=1, ts_tx=100 + p)
    for p in (7, 8, 9):
        add(A[p], epoch=1, phase=1, ts_tx=110 + p, ts_tail=106, path=2)
    add(A[5], epoch=1, ts_tx=105)
    add(A[6], epoch=1, ask=1, tail=1, ts_tx=106, ts_tail=106)
    for p in (10, 11, 12):
        add(A[p], epoch=1, phase=1, ts_tx=110 + p, ts_tail=106, path=2)
    # B: the TAIL (4) is lost: 5..7 wait for the deadline
    # (phase0_rx + (ts_tail - phase0_tx) x 1.024 us + resume_extra).
    B = {p: host_frame(p, sport=2000) for p in range(1, 8)}
    add(B[1], epoch=1, ask=1, ts_tx=65500)
    add(B[2], epoch=1, ts_tx=65510)
    add(B[3], epoch=1, ts_tx=65530)
    for p in (5, 6, 7):   # ts_tail wrapped past 0: gap = 65636 - 65530 = 106 units
        add(B[p], epoch=1, phase=1, ts_tx=110 + p, ts_tail=100, path=3)
    # C: a packet of the previous epoch after a new one began: forwarded at once.
    C = {p: host_frame(p, sport=3000) for p in range(1, 5)}
    add(C[1], epoch=3, ask=1)
    add(C[2], epoch=3)
    add(C[4], epoch=0, ask=1)       # epoch 3 -> 0: new (modulo 4)
    add(C[3], epoch=3)              # (3 - 0) mod 4 = 3: previous
    # D: CE-marked -> NOTIFY carrying its path_id.
    D1 = host_frame(1, sport=4000, ecn=3)
    add(D1, epoch=2, ask=1, path=3)
    # E: IPv6, overtaking phase 1 then the TAIL.
    E = {p: host_frame(p, sport=5000, v6=True) for p in range(1, 5)}
    add(E[1], epoch=1, ask=1, ts_tx=10)
    add(E[3], epoch=1, phase=1, ts_tx=20, ts_tail=15, path=0)
    add(E[4], epoch=1, phase=1, ts_tx=21, ts_tail=15, path=0)
    add(E[2], epoch=1, ask=1, tail=1, ts_tx=15, ts_tail=15)

    res = harness.run(dst_config(), [[], seq, [], [], []], tag="cwd", idle_ms=300)
    if not t.check(res.rc == 0 and res.stats, "rocetor: %d %s" % (res.rc, res.stderr[-1500:])):
        return
    lb = res.stats["lb"]
    out = res.outputs[0]
    t.eq(len(out), len(seq), "(every data packet delivered once)")
    by_flow = {}
    for f in out:
        by_flow.setdefault(sport_of(f), []).append(psn_of(f))
        t.check(R.icrc_ok(f), "ICRC after the DstToR: flow %d psn %d" % (sport_of(f), psn_of(f)))
        t.check(same_as_sent(f, sent[(sport_of(f), psn_of(f))]),
                "delivered bytes differ from the sender's (flow %d psn %d)" %
                (sport_of(f), psn_of(f)))
        t.eq(R.cw_fields(f)["cw_op"], 0, "(Resv7 zeroed)")
    t.eq(by_flow.get(1000), list(range(1, 13)), "(flow A in PSN order)")
    t.eq(by_flow.get(2000), list(range(1, 4)) + [5, 6, 7], "(flow B in PSN order, TAIL lost)")
    t.eq(by_flow.get(3000), [1, 2, 4, 3], "(flow C: the late packet is not held)")
    t.eq(by_flow.get(5000), [1, 2, 3, 4], "(flow E, IPv6, in PSN order)")
    # Flow B's held packets waited for the deadline: at least the estimated
    # gap (106 x 1.024 us) + resume_extra (16 us) after its last phase-0.
    # (Measured on the switch's clock: the pcap TX times of the first
    # burst come after its processing, not at its arrival.)
    t.eq(lb["reorder_flush_tail"], 2, "(A and E flushed by their TAIL)")
    t.eq(lb["reorder_flush_timeout"], 1, "(B flushed at its deadline)")
    t.eq(lb["reorder_held"], 3 + 3 + 2, "(held: A 7-9, B 5-7, E 3-4)")
    t.eq(lb["late_epoch_packets"], 1)
    t.eq(lb["tails_rx"], 2)
    t.eq(lb["reorder_queues_in_use"], 0)
    t.check(lb["reorder_queues_max"] >= 1, "reorder_queues_max")
    t.check(lb["reorder_hold_max_ns"] >= 106 * 1024 + 16000,
            "flow B held %d ns, its deadline is 124544 ns away" % lb["reorder_hold_max_ns"])
    # Control packets: RTT_REPLY per RTT_REQUEST (A1, B1, C1, C4, D1, E1),
    # CLEAR for A, E (TAIL) and B (deadline), one NOTIFY for D.
    cs = controls(res)
    replies = [c for c in cs if c[2]["cw_op"] == R.CW_REPLY and c[2]["phase"] == 0]
    clears = [c for c in cs if c[2]["cw_op"] == R.CW_REPLY and c[2]["phase"] == 1]
    notifies = [c for c in cs if c[2]["cw_op"] == R.CW_NOTIFY]
    t.eq(len(replies), 6, "(RTT_REPLYs)")
    t.eq(sorted(sport_of(f) for _, f, _ in clears), [1000, 2000, 5000], "(CLEARs)")
    t.eq(len(notifies), 1, "(NOTIFY)")
    t.eq(lb["rtt_replies"], 6)
    t.eq(lb["clears"], 3)
    t.eq(lb["notifies"], 1)
    if notifies:
        t.eq(notifies[0][2]["path_id"], 3, "(NOTIFY carries the data packet's path_id)")
        t.eq(notifies[0][2]["epoch"], 2)
    for p, f, c in cs:
        src, dst = ip_pair(f)
        t.check(src in ("10.2.0.5", "fd00:2::5") and dst in ("10.1.0.1", "fd00:1::1"),
                "control packet addressed %s -> %s" % (src, dst))
        l3, l4, b = R.offsets(f)
        t.eq(len(f), b + 16, "(cut after the ConWeave header, no ICRC)")
        t.eq(int.from_bytes(f[l4 + 4:l4 + 6], "big"), len(f) - l4, "(UDP length)")
        t.eq(int.from_bytes(f[l4 + 2:l4 + 4], "big"), 4791, "(UDP dport kept)")
        if f[l3] >> 4 == 4:
            t.eq(f[l3 + 1] & 3, 0, "(ECN cleared)")
            t.eq(int.from_bytes(f[l3 + 2:l3 + 4], "big"), len(f) - l3, "(IP length)")
        t.eq(f[6:12], bytes.fromhex(FAB_MAC[p - 1].replace(":", "")), "(source MAC)")
    for _, f, c in clears:
        if sport_of(f) == 2000:
            t.eq(c["epoch"], 1)
            t.eq(c["ts_tail"], 100, "(CLEAR of a timed-out hold carries ts_tail)")
    ok, why = harness.accounted(res.stats)
    t.check(ok, "accounting: " + why)
    t.eq(res.stats["originated"], len(cs), "(control packets counted as originated)")


# --------------------------------------------------------------------------
def test_srctor(t):
    flows = [0xC000 + i for i in range(6)]
    frames, sent = [], {}
    for psn in range(1, 401):
        for sp in flows:
            f = host_frame(psn, sport=sp)
            f = f[:0] + bytes.fromhex(HOST_MAC.replace(":", "")) + f[6:]
            frames.append(f)
            sent[(sp, psn)] = f
    ack = R.frame(R.ACK, psn=7, dqp=0x11, aeth_=5, src_ip="10.1.0.1", dst_ip="10.2.0.5",
                  sport=0xD000, dst_mac=HOST_MAC)
    resv7 = R.frame(R.SEND_ONLY, psn=9, dqp=0x11, src_ip="10.1.0.1", dst_ip="10.2.0.5",
                    sport=0xD001, resv7=0x40, dst_mac=HOST_MAC)
    ctrl_from_host = R.cw_control(host_frame(1, sport=0xD002), R.CW_REPLY, dst_mac=HOST_MAC)
    frames += [ack, resv7, ctrl_from_host]
    # Control packets from the fabric addressed to our host: consumed.
    reply = R.cw_control(arrive(host_frame(1, sport=0xC000), epoch=1), R.CW_REPLY)
    stray = R.cw_control(arrive(host_frame(1, sport=0xEEEE), epoch=1), R.CW_NOTIFY)
    res = harness.run(src_config(), [frames, [reply, stray], [], [], []], tag="cws", idle_ms=300)
    if not t.check(res.rc == 0 and res.stats, "rocetor: %d %s" % (res.rc, res.stderr[-1500:])):
        return
    lb = res.stats["lb"]
    t.eq(res.stats["drops"]["host_lb_packet"], 1, "(control-shaped packet from a host)")
    t.eq(lb["lb_bypass_resv7"], 1)
    t.eq(len(res.outputs[0]), 0, "(nothing reaches the host port: control consumed)")
    t.eq(lb["rtt_replies_rx"] + lb["notifies_rx"], 2)
    t.eq(lb["ctrl_no_flow"], 1, "(NOTIFY for an unknown flow)")
    per_flow = {}
    for p in range(1, 5):
        for tm, f in res.outputs_ts[p]:
            try:
                c = R.cw_fields(f)
            except ValueError:
                continue
            sp = sport_of(f)
            if sp == 0xD000 or sp == 0xD001:
                # ECMP, nothing stamped: the sender's Resv7 (0 for the ACK,
                # 0x40 = "cw_op 2" for the zero-payload SEND) left as is.
                t.eq(c["cw_op"], 0 if sp == 0xD000 else 2, "(ACK / Resv7 bypass untouched)")
                t.eq(len(f), len(ack if sp == 0xD000 else resv7), "(no header inserted)")
                t.check(R.icrc_ok(f), "untouched packet keeps its ICRC")
                continue
            per_flow.setdefault(sp, []).append((psn_of(f), p - 1, c, f))
    t.eq(sorted(per_flow), flows, "(every data flow left by the uplinks)")
    t.eq(lb["cw_packets"], len(flows) * 400)
    for sp, pk in per_flow.items():
        pk.sort(key=lambda x: x[0])
        t.eq([x[0] for x in pk], list(range(1, 401)), "(flow %x: each packet once)" % sp)
        # Split the flow into epochs: each starts with its RTT_REQUEST.
        epochs = []
        for psn, path, c, f in pk:
            t.eq(c["cw_op"], 1)
            t.eq(c["path_id"], path, "(path_id = uplink index)")
            t.eq(len(f), len(sent[(sp, psn)]) + 4, "(4 bytes inserted)")
            l3, l4, b = R.offsets(f)
            t.eq(f[b + 16:], sent[(sp, psn)][b + 12:], "(payload and ICRC after the header)")
            t.eq(f[l3 + 2:l3 + 4], sent[(sp, psn)][l3 + 2:l3 + 4], "(IP length not changed)")
            if c["ask_reply"] and not c["tail"]:
                if epochs:
                    t.eq(c["epoch"], (epochs[-1][0][2]["epoch"] + 1) & 3,
                         "(epochs advance by one, mod 4)")
                epochs.append([])
            t.check(bool(epochs), "flow %x starts with an RTT_REQUEST" % sp)
            if epochs:
                t.eq(c["epoch"], epochs[-1][0][2]["epoch"] if epochs[-1] else c["epoch"],
                     "(one epoch value until the next RTT_REQUEST)")
                epochs[-1].append((psn, path, c))
        t.check(len(epochs) >= 1, "epochs of flow %x" % sp)
        for pkts in epochs:
            ph0 = [x for x in pkts if x[2]["phase"] == 0]
            ph1 = [x for x in pkts if x[2]["phase"] == 1]
            t.eq(pkts[0][2]["phase"], 0, "(an epoch starts in phase 0)")
            t.check(len({x[1] for x in ph0}) <= 1, "one path in phase 0 (flow %x)" % sp)
            t.check(len({x[1] for x in ph1}) <= 1, "one path in phase 1 (flow %x)" % sp)
            tails = [x for x in pkts if x[2]["tail"]]
            t.check(len(tails) <= 1, "at most one TAIL per epoch")
            if ph1:
                t.eq(len(tails), 1, "(phase 1 only after a TAIL)")
                tail = tails[0]
                t.eq(tail[2]["phase"], 0, "(the TAIL is a phase-0 packet)")
                t.eq(tail[2]["ask_reply"], 1)
                t.check(tail[0] == max(x[0] for x in ph0), "TAIL is the last phase-0 packet")
                t.check(min(x[0] for x in ph1) > tail[0], "phase 1 after the TAIL")
                # Departure stamps (doc/conweave.md, Timestamps): the
                # TAIL's ts_tx, or, for one that left before the TAIL,
                # its own ts_tx (no later than the TAIL's).
                t.check(all(x[2]["ts_tail"] == tail[2]["ts_tx"] or
                            (x[2]["ts_tail"] == x[2]["ts_tx"] and
                             ((tail[2]["ts_tx"] - x[2]["ts_tail"]) & 0xFFFF) < 0x8000)
                            for x in ph1),
                        "phase-1 ts_tail = the TAIL's ts_tx (or its own before the TAIL)")
    t.check(lb["tails"] > 0 and lb["reply_timeouts"] > 0,
            "with no DstToR answering, RTT replies time out: %r" % lb)
    t.eq(lb["tails"], lb["reply_timeouts"])
    ok, why = harness.accounted(res.stats)
    t.check(ok, "accounting: " + why)


# --------------------------------------------------------------------------
def capture_data():
    """The real capture's data packets (192.168.70.6 -> .4), unmodified."""
    out = []
    for f in R.read_pcap(CAPTURE):
        try:
            l3, _, _ = R.offsets(f)
        except ValueError:
            continue
        if f[l3] >> 4 == 4 and f[l3 + 9] == 17 and f[l3 + 12:l3 + 16] == bytes([192, 168, 70, 6]) \
                and R.bth_fields(f)["opcode"] != R.ACK:
            out.append(f)
    return out


def test_chained(t):
    """SrcToR then DstToR: hosts see exactly what their peers sent."""
    cap = capture_data()
    t.check(len(cap) >= 60, "capture data packets: %d" % len(cap))
    t.check(all(R.icrc_ok(f) for f in cap), "the capture's ICRCs are valid to begin with")
    gen = [host_frame(p, sport=0xC100 + (p % 4), payload=200) for p in range(1, 301)]
    gen6 = [host_frame(p, sport=0xC200, v6=True) for p in range(1, 51)]
    host_in = []
    for f in cap + gen + gen6:
        host_in.append(bytes.fromhex(HOST_MAC.replace(":", "")) + f[6:])
    a = harness.run(src_config(), [host_in, [], [], [], []], tag="cwa", idle_ms=300)
    if not t.check(a.rc == 0 and a.stats, "SrcToR: %d %s" % (a.rc, a.stderr[-1500:])):
        return
    up = []
    for p in range(1, 5):
        up += [(tm, f) for tm, f in a.outputs_ts[p] if R.cw_fields(f)["cw_op"] == 1]
    up.sort(key=lambda x: x[0])
    t.eq(len(up), len(host_in), "(every host packet left an uplink)")
    t.check(all(not R.icrc_ok(f) for _, f in up[:20]),
            "between ToRs the ICRC does not match (4 bytes inserted)")
    # All uplinks arrive on one DstToR fabric port, in SrcToR TX order.
    arriving = [bytes.fromhex(FAB_MAC[0].replace(":", "")) + f[6:] for _, f in up]
    b = harness.run(dst_config(), [[], arriving, [], [], []], tag="cwb", idle_ms=300)
    if not t.check(b.rc == 0 and b.stats, "DstToR: %d %s" % (b.rc, b.stderr[-1500:])):
        return
    out = b.outputs[0]
    t.eq(len(out), len(host_in), "(every packet delivered)")
    bad = [f for f in out if not R.icrc_ok(f)]
    t.eq(len(bad), 0, "(ICRC valid on every delivered packet, real capture included)")
    key = {}
    for f in cap + gen + gen6:
        key.setdefault((ip_pair(f), sport_of(f), psn_of(f)), f)
    n_same = sum(1 for f in out if same_as_sent(f, key.get((ip_pair(f), sport_of(f), psn_of(f)),
                                                             b"")))
    t.eq(n_same, len(out), "(delivered bytes = sent bytes except TTL, MACs, byte 4)")
    t.eq(b.stats["lb"]["rtt_requests_rx"], a.stats["lb"]["rtt_requests"],
         "(every RTT_REQUEST the SrcToR sent was seen)")
    t.eq(b.stats["lb"]["tails_rx"], a.stats["lb"]["tails"])
    for r in (a, b):
        ok, why = harness.accounted(r.stats)
        t.check(ok, "accounting: " + why)


# --------------------------------------------------------------------------
def test_telemetry(t):
    """/rocetor/lb/flows,N while flows are live (infinite pcap replay)."""
    work = harness.tempfile.mkdtemp(prefix="rocetor-cwtel-")
    cfg = os.path.join(work, "c.yaml")
    with open(cfg, "w") as fh:
        fh.write(src_config())
    rx = os.path.join(work, "in.pcap")
    harness.write_pcap(rx, [bytes.fromhex(HOST_MAC.replace(":", "")) + host_frame(p, sport=0xC000 + p % 3)[6:]
                            for p in range(1, 31)])
    prefix = harness.eal_prefix("cwtel")
    cmd = [harness.ROCETOR, "-l", "0", "--no-pci", "--no-huge", "-m", "1024", "--file-prefix",
           prefix, "--log-level", "lib.eal:error",
           "--vdev", "net_pcap0,rx_pcap=%s,tx_iface=lo,infinite_rx=1" % rx]
    for i in range(4):
        cmd += ["--vdev", "net_null%d,no-rx=1" % (i + 1)]
    cmd += ["--", "--config", cfg, "--stats-json", os.path.join(work, "s.json")]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    got = {}
    try:
        deadline = time.time() + 20
        while time.time() < deadline and not got.get("shown"):
            time.sleep(0.5)
            got = harness.telemetry(prefix, ["/rocetor/lb/flows,2"]).get(
                "/rocetor/lb/flows") or {}
    finally:
        _, se = harness.interrupt(proc)
    t.eq(proc.returncode, 0, "(SIGINT) " + se[-500:])
    try:
        with open(os.path.join(work, "s.json")) as fh:
            ok, why = harness.accounted(json.load(fh))
    except (OSError, ValueError) as e:
        ok, why = False, "no stats document: %s" % e
    t.check(ok, "accounting after SIGINT with live flows: " + why)
    t.eq(got.get("mode"), "conweave")
    t.eq(got.get("shown"), 2, "(flows,2 shows two flows) %r" % got)
    f0 = got.get("flow_0") or {}
    t.eq(f0.get("role"), "srctor")
    t.eq(f0.get("src"), "10.1.0.1")
    t.eq(f0.get("dst"), "10.2.0.5")
    t.check(f0.get("sport") in (0xC000, 0xC001, 0xC002), "sport %r" % f0.get("sport"))
    t.check(f0.get("epoch") in (0, 1, 2, 3) and f0.get("path") in (0, 1, 2, 3),
            "epoch/path: %r" % f0)


# --------------------------------------------------------------------------
def test_workers(t):
    """Two workers: packets of a flow arriving on the other worker's queue,
    and REPLY/NOTIFY/CLEARs (reversed addresses) go to the flow's owner."""
    flows = [0xC300 + i for i in range(16)]
    data = [bytes.fromhex(HOST_MAC.replace(":", "")) + host_frame(p, sport=sp)[6:]
            for p in range(1, 21) for sp in flows]
    # Host port: all data on queue 0 (worker 0 reads it and hands the
    # flows worker 1 owns over); queue 1 gets filler (no route: dropped,
    # counted). Fabric port: filler first on both queues, so that the
    # control packets come after the data created the flows; then each
    # worker reads control packets of flows the other one owns too.
    # (Filler is plain UDP: not RoCE, so never handed to another worker.)
    filler = [R.frame(R.SEND_ONLY, psn=i, src_ip="10.9.9.9", dst_ip="10.77.0.1",
                      dst_mac=FAB_MAC[0], dport=4792) for i in range(20000)]
    host_filler = [R.frame(R.SEND_ONLY, psn=i, src_ip="10.9.9.9", dst_ip="10.77.0.1",
                           dst_mac=HOST_MAC, dport=4792) for i in range(len(data))]
    data = [f for pair in zip(data, host_filler) for f in pair]
    ctrl = []
    for sp in flows:
        d = arrive(host_frame(1, sport=sp), epoch=1, path=2)
        ctrl.append(R.cw_control(d, R.CW_REPLY, phase=0, dst_mac=FAB_MAC[0]))
        ctrl.append(R.cw_control(d, R.CW_REPLY, phase=1, dst_mac=FAB_MAC[0]))
        ctrl.append(R.cw_control(d, R.CW_NOTIFY, dst_mac=FAB_MAC[0]))
    cfg = src_config().replace("switch: {name: src, id: 1, lb: conweave}",
                               "switch: {name: src, id: 1, lb: conweave, idle_sleep_us: 100, "
                               "idle_threshold: 64}")
    # Workers on different cores (the main lcore mostly sleeps), so that
    # neither runs its whole queue before the other starts.
    res = harness.run(cfg, [data, filler + ctrl, [], [], []], tag="cwmw", lcores="0@0,1@0,2@1",
                      queues=2, idle_ms=800)
    if not t.check(res.rc == 0 and res.stats, "rocetor: %d %s" % (res.rc, res.stderr[-1500:])):
        return
    t.check("2 workers" in res.stdout, "expected 2 workers: " + res.stdout[:300])
    s, lb = res.stats, res.stats["lb"]
    t.eq(s["drops"]["no_route"], len(filler) + len(host_filler))
    t.eq(lb["cw_packets"], len(data) // 2, "(every data packet stamped)")
    t.check(s["handoff_tx"] > 0 and s["handoff_tx"] == s["handoff_rx"],
            "hand-offs %d / %d" % (s["handoff_tx"], s["handoff_rx"]))
    t.check(s["handoff_tx"] <= len(data) // 2 + len(ctrl),
            "only RoCE packets are handed off: %d" % s["handoff_tx"])
    t.eq(s["drops"]["handoff_full"], 0)
    # A control packet processed by a worker that does not own its flow
    # would not find it: ctrl_no_flow must stay 0.
    t.eq(lb["ctrl_no_flow"], 0, "(control packets found their flow's owner)")
    t.eq(lb["rtt_replies_rx"], len(flows))
    t.eq(lb["clears_rx"], len(flows))
    t.eq(lb["notifies_rx"], len(flows))
    t.eq(lb["busy_paths"], len(flows))
    t.eq(s["consumed"], len(ctrl))
    # Per flow: one path per phase and epoch (the owner alone stamps).
    seen = {}
    for p in range(1, 5):
        for f in res.outputs[p]:
            c = R.cw_fields(f)
            if c["cw_op"] == 1:
                seen.setdefault((sport_of(f), c["epoch"], c["phase"]), set()).add(p)
    t.check(all(len(v) == 1 for v in seen.values()),
            "a flow's phase used two paths: %r" % {k: v for k, v in seen.items() if len(v) > 1})
    ok, why = harness.accounted(s)
    t.check(ok, "accounting: " + why)


# --------------------------------------------------------------------------
def test_srctor_departure(t):
    """ts_tx is the time a packet leaves the SrcToR (issue 15 item 6): one
    flow of 60 packets of 1 KB into uplinks shaped to 50 Mb/s leaves them
    one every ~175 us. Over the packets of the busiest uplink, ts_tx must
    advance as the capture's TX times do, not stay at the time the burst
    was received."""
    cfg = src_config().replace("role: fabric,",
                               "role: fabric, shape_gbps: 0.05, shape_burst_kb: 1,")
    frames = [R.frame(R.SEND_MIDDLE, psn=p, dqp=0x11, payload=bytes([p]) * 1000,
                      src_ip="10.1.0.1", dst_ip="10.2.0.5", sport=0xC100, ecn=2,
                      dst_mac=HOST_MAC) for p in range(1, 61)]
    res = harness.run(cfg, [frames, [], [], [], []], tag="cwdep", idle_ms=300)
    if not t.check(res.rc == 0 and res.stats, "rocetor: %d %s" % (res.rc, res.stderr[-1500:])):
        return
    best = max(range(1, 5), key=lambda p: len(res.outputs_ts[p]))
    out = [(tm, R.cw_fields(f)) for tm, f in res.outputs_ts[best]]
    t.check(len(out) >= 30, "most packets on one uplink (%d)" % len(out))
    if len(out) < 2:
        return
    wire_us = (out[-1][0] - out[0][0]) * 1e6
    ts_us = ((out[-1][1]["ts_tx"] - out[0][1]["ts_tx"]) & 0xFFFF) * 1.024
    print("  %d packets on uplink %d (per uplink %s): TX times span %.0f us, ts_tx spans %.0f us"
          % (len(out), best, [len(res.outputs_ts[p]) for p in range(1, 5)], wire_us, ts_us))
    t.check(wire_us > 3000, "the shaper spread them (%.0f us)" % wire_us)
    t.check(abs(ts_us - wire_us) < 0.1 * wire_us,
            "ts_tx spans what the departures span: %.0f us vs %.0f us" % (ts_us, wire_us))
    ok, why = harness.accounted(res.stats)
    t.check(ok, "accounting: " + why)


def test_shutdown_release(t):
    """Packets held when the switch stops go out, in order (DESIGN.md B2):
    a flow whose TAIL never comes, deadlines far beyond the exit."""
    F = {p: host_frame(p, sport=6000) for p in range(1, 8)}
    seq = [arrive(F[1], epoch=1, ask=1, ts_tx=10), arrive(F[2], epoch=1, ts_tx=11)]
    seq += [arrive(F[p], epoch=1, phase=1, ts_tx=20 + p, ts_tail=29000) for p in (4, 5, 6, 7)]
    cfg = dst_config(", resume_extra_us: 31000, theta_inactive_us: 31999")
    res = harness.run(cfg, [[], seq, [], [], []], tag="cwsd", idle_ms=5)
    if not t.check(res.rc == 0 and res.stats, "rocetor: %d %s" % (res.rc, res.stderr[-1500:])):
        return
    lb = res.stats["lb"]
    t.eq([psn_of(f) for f in res.outputs[0]], [1, 2, 4, 5, 6, 7], "(released at exit, in order)")
    t.eq(lb["reorder_held"], 4)
    # gap capped at resume_default (200 us) + resume_extra (31 ms)
    t.eq(lb["reorder_flush_timeout"], 0, "(the deadline, ~31 ms away, never passed)")
    t.eq(lb["reorder_queues_in_use"], 0)
    t.eq(res.stats["held_packets"], 0)
    ok, why = harness.accounted(res.stats)
    t.check(ok, "accounting: " + why)


def test_dsttor_stale(t):
    """Issue 15 item 2, end to end: a flow of epoch 3 holds two phase-1
    packets (33, 34) for its TAIL (32); first a phase-1 packet of epoch 1
    (2 epochs old) and a TAIL of epoch 0 (3 epochs old) arrive, both sent
    before epoch 3 began (ts_tx). The 2-bit epoch reads them as new; by
    ts_tx they are stale: delivered at once, the hold stays until epoch 3's
    TAIL, whose CLEAR carries epoch 3, and no other CLEAR is sent."""
    F = {p: host_frame(p, sport=6100) for p in (0, 1, 10, 12, 20, 30, 31, 32, 33, 34)}
    seq = [arrive(F[10 * e], epoch=e, ask=1, ts_tx=100 + 100 * e) for e in range(4)]
    seq.append(arrive(F[31], epoch=3, ts_tx=405))
    seq += [arrive(F[p], epoch=3, phase=1, ts_tx=379 + p, ts_tail=410, path=2) for p in (33, 34)]
    seq.append(arrive(F[12], epoch=1, phase=1, ts_tx=212, ts_tail=210, path=3))
    seq.append(arrive(F[1], epoch=0, ask=1, tail=1, ts_tx=105, ts_tail=105))
    seq.append(arrive(F[32], epoch=3, ask=1, tail=1, ts_tx=410, ts_tail=410))
    res = harness.run(dst_config(", resume_extra_us: 31000, theta_inactive_us: 31999"),
                      [[], seq, [], [], []], tag="cwst", idle_ms=50)
    if not t.check(res.rc == 0 and res.stats, "rocetor: %d %s" % (res.rc, res.stderr[-1500:])):
        return
    lb = res.stats["lb"]
    t.eq([psn_of(f) for f in res.outputs[0]], [0, 10, 20, 30, 31, 12, 1, 32, 33, 34],
         "(stragglers at once, the hold released by its own TAIL)")
    t.eq(lb["stale_epoch_packets"], 2)
    t.eq(lb["epoch_overrun"], 0)
    t.eq(lb["reorder_held"], 2)
    t.eq(lb["reorder_flush_tail"], 1)
    clears = [c for _, _, c in controls(res) if c["cw_op"] == R.CW_REPLY and c["phase"] == 1]
    t.eq([c["epoch"] for c in clears], [3], "(one CLEAR, of epoch 3)")
    t.eq(lb["rtt_replies"], 4, "(RTT_REPLYs: epochs 0..3, none for a stale packet)")
    ok, why = harness.accounted(res.stats)
    t.check(ok, "accounting: " + why)


def main():
    t = harness.Checker("pkt-conweave")
    test_dsttor_sequences(t)
    test_dsttor_stale(t)
    test_srctor(t)
    test_chained(t)
    test_workers(t)
    test_shutdown_release(t)
    test_srctor_departure(t)
    test_telemetry(t)
    return t.done()


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The rocetor authors
"""lb: spray on pcap ports (doc/spray.md), one switch at a time.

1. DstToR: hand-built arrival orders of spray-stamped data on one fabric port
   (so the arrival order is exactly the pcap order) leave the host port in
   sequence order, header removed, the sender's ICRC valid (scapy); a lost
   packet's successors are released at the gap deadline, in order; exact
   counters, computed here from the arrival orders.
2. SrcToR: one flow's data packets leave over the 4 uplinks in equal shares,
   stamped (Resv7 0x31, 32-bit sequence numbers 0..N-1, 4 bytes not counted
   by the IP/UDP lengths); its ACKs and CNPs leave unstamped on one path.
3. Chained: what the SrcToR sent, fed to a DstToR uplink by uplink (the most
   reordered arrival there is), reaches the host complete, in PSN order,
   byte for byte what the sender sent (but for MACs, TTL), ICRC valid.
"""
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
import harness  # noqa: E402
import roce as R  # noqa: E402
import test_conweave as CW  # noqa: E402

MARK = 0x31  # Resv7 of a spray DATA packet: cw_op 1, phase 1, tail 1
SPRAY = "spray: {flow_table_size: 4096, window_slots: 256, windows_per_worker: 64%s}\n"


def dst_config(extra=""):
    return CW.dst_config().replace("lb: conweave", "lb: spray") + SPRAY % extra


def src_config(extra=""):
    return CW.src_config(lb="spray") + SPRAY % extra


def stamp(f, seq, path=1):
    """The host frame f as a spray SrcToR sends it (doc/spray.md)."""
    _, _, b = R.offsets(f)
    g = bytearray(f)
    g[b + 4] = path
    g[b + 8] = (g[b + 8] & 0x80) | MARK
    return bytes(g[:b + 12]) + struct.pack("!I", seq & 0xFFFFFFFF) + bytes(g[b + 12:])


def expect(order, lost_after_all=True):
    """From one flow's arrival order (sequence numbers from 0): the delivery
    order and the counters, by the rules of doc/spray.md (no overflow; at
    the end of the input every window's deadline passes)."""
    nxt, held, out = 0, set(), []
    c = {"in_order": 0, "held": 0, "released": 0, "timeouts": 0, "skipped": 0}
    for s in order:
        if s == nxt:
            out.append(s)
            nxt += 1
            c["in_order"] += 1
            while nxt in held:
                held.discard(nxt)
                out.append(nxt)
                nxt += 1
                c["released"] += 1
        else:
            held.add(s)
            c["held"] += 1
    if held and lost_after_all:
        c["timeouts"] += 1
        last = max(held)
        c["skipped"] += (last + 1 - nxt) - len(held)
        out += sorted(held)
    return out, c


def test_dsttor(t):
    flows = {
        1000: [2, 0, 1, 3],
        2000: list(range(15, -1, -1)),           # a reversed window
        3000: [1, 3, 5, 7, 0, 2, 4, 6, 9, 8],
        4000: [0, 2, 3, 4],                      # 1 lost: the deadline
        5000: list(range(20)),                   # in order
    }
    frames, sent, want, tot = [], {}, {}, {}
    # Interleave the flows, each in its own order.
    longest = max(len(o) for o in flows.values())
    for i in range(longest):
        for sport, order in flows.items():
            if i < len(order):
                s = order[i]
                f = CW.host_frame(100 + s, sport=sport, v6=sport == 3000)
                sent[(sport, 100 + s)] = f
                frames.append(stamp(f, s, path=s % 4))
    for sport, order in flows.items():
        out, c = expect(order)
        want[sport] = [100 + s for s in out]
        for k, v in c.items():
            tot[k] = tot.get(k, 0) + v
    res = harness.run(dst_config(", timeout_us: 300"), [[], frames, [], [], []], tag="spd",
                      idle_ms=300)
    if not t.check(res.rc == 0 and res.stats, "rocetor: %d %s" % (res.rc, res.stderr[-1500:])):
        return
    lb = res.stats["lb"]
    out = res.outputs[0]
    t.eq(len(out), len(frames), "(every packet delivered once)")
    by_flow = {}
    for f in out:
        sp, psn = CW.sport_of(f), CW.psn_of(f)
        by_flow.setdefault(sp, []).append(psn)
        t.check(R.icrc_ok(f), "ICRC at the host: flow %d psn %d" % (sp, psn))
        t.check(CW.same_as_sent(f, sent[(sp, psn)]), "flow %d psn %d: not as sent" % (sp, psn))
    for sport in flows:
        t.eq(by_flow.get(sport), want[sport], "(flow %d in sequence order)" % sport)
    t.eq(lb["spray_rx"], len(frames))
    t.eq(lb["spray_in_order"], tot["in_order"])
    t.eq(lb["spray_held"], tot["held"])
    t.eq(lb["released_in_order"], tot["released"])
    t.eq(lb["gap_timeouts"], tot["timeouts"], "(flow 4000's gap)")
    t.eq(lb["gap_skipped"], tot["skipped"])
    t.eq(lb["late"], 0)
    t.eq(lb["window_overflow"], 0)
    t.eq(lb["windows_in_use"], 0)
    t.check(lb["spray_hold_max_ns"] >= 300000, "a packet waited the deadline: %d ns" %
            lb["spray_hold_max_ns"])
    t.eq(res.stats.get("held_packets"), 0)
    ok, why = harness.accounted(res.stats)
    t.check(ok, "accounting: %s" % why)


def test_srctor(t, n=200):
    # From the sending host, on host port 0.
    data = [R.frame(R.SEND_MIDDLE, psn=p, dqp=0x11, payload=bytes([p & 0xFF]) * 64,
                    src_ip="10.1.0.1", dst_ip="10.2.0.5", sport=0xC000,
                    src_mac="02:00:00:00:aa:01", dst_mac=CW.HOST_MAC) for p in range(n)]
    acks = [R.frame(R.ACK, psn=p, dqp=0x11, payload=b"\x00" * 4, src_ip="10.1.0.1",
                    dst_ip="10.2.0.5", sport=0xC001, src_mac="02:00:00:00:aa:01",
                    dst_mac=CW.HOST_MAC) for p in range(10)]
    res = harness.run(src_config(), [data + acks, [], [], [], []], tag="sps", idle_ms=300)
    if not t.check(res.rc == 0 and res.stats, "rocetor: %d %s" % (res.rc, res.stderr[-1500:])):
        return None, None
    lb = res.stats["lb"]
    per, seqs, ack_ports = [0] * 4, [], set()
    for i in range(4):
        for f in res.outputs[i + 1]:
            _, _, b = R.offsets(f)
            if CW.sport_of(f) == 0xC001:
                ack_ports.add(i)
                t.eq(f[b + 8] & 0x7F, 0, "(ACK unstamped)")
                continue
            per[i] += 1
            t.eq(f[b + 8] & 0x7F, MARK, "(Resv7 marks spray)")
            t.eq(f[b + 4], i, "(byte 4 is the path)")
            seqs.append(struct.unpack("!I", f[b + 12:b + 16])[0])
            t.eq(R.bth_fields(f)["psn"], seqs[-1], "(numbered in sending order)")
    t.eq(sorted(seqs), list(range(n)), "(sequence numbers 0..n-1, each once)")
    for i in range(4):
        t.check(abs(per[i] - n / 4) <= n / 40, "path %d carried %d of %d" % (i, per[i], n))
    t.eq(len(ack_ports), 1, "(ACKs on one path)")
    t.eq(lb["sprayed"], n)
    t.eq(lb["ecmp_packets"], len(acks))
    return res, data


def test_chained(t, src_res, data):
    """Uplink by uplink: path 0's packets, then path 1's...: the DstToR
    sees each path's packets as one burst, the worst reordering."""
    if src_res is None:
        return
    frames = []
    for i in range(4):
        frames += src_res.outputs[i + 1]
    # Addressed to the DstToR's fabric port now (it filters on its MAC).
    frames = [bytes.fromhex(CW.FAB_MAC[0].replace(":", "")) + f[6:] for f in frames
              if CW.sport_of(f) == 0xC000]
    res = harness.run(dst_config(), [[], frames, [], [], []], tag="spc", idle_ms=300)
    if not t.check(res.rc == 0 and res.stats, "rocetor: %d %s" % (res.rc, res.stderr[-1500:])):
        return
    out = res.outputs[0]
    t.eq([CW.psn_of(f) for f in out], list(range(len(data))), "(complete, in PSN order)")
    for f in out:
        t.check(R.icrc_ok(f), "ICRC at the host: psn %d" % CW.psn_of(f))
        t.check(CW.same_as_sent(f, data[CW.psn_of(f)]), "psn %d not as sent" % CW.psn_of(f))
    lb = res.stats["lb"]
    t.eq(lb["spray_in_order"] + lb["released_in_order"], len(data))
    t.eq(lb["gap_timeouts"], 0)
    t.eq(lb["window_overflow"], 0)
    t.eq(lb["late"], 0)
    ok, why = harness.accounted(res.stats)
    t.check(ok, "accounting: %s" % why)


def main():
    t = harness.Checker("pkt-spray")
    test_dsttor(t)
    src_res, data = test_srctor(t)
    test_chained(t, src_res, data)
    return t.done()


if __name__ == "__main__":
    sys.exit(main())

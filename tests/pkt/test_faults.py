#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The rocetor authors
"""Fault injection (doc/faults.md): lost LB control packets
(faults.ctrl_loss), an uplink taken down and back while traffic runs
(telemetry /rocetor/port/admin), reorder ring and reorder pool exhaustion,
mbuf pool exhaustion (switch.mbufs with a long delay line), a full hand-off
ring between two workers (switch.handoff_ring).

In every case: exit 0 (no crash), nothing held at exit and nothing held
past its deadline (the delivered set is complete), per-flow PSN order at
the DstToR's host port where ConWeave promises it, every packet accounted
(rx = forwarded + consumed + drops by reason, each drop under its reason),
and the mempool back to its baseline (in use when the workers stopped =
in use when forwarding started; 0 once the ports closed)."""
import collections
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
import harness  # noqa: E402
import roce as R  # noqa: E402
import test_conweave as CW  # noqa: E402

FIG = []   # one line of figures per case, printed at the end


def sound(t, name, res, inputs=None, max_hold_ms=100):
    """The checks of every case; returns res.stats or None. max_hold_ms:
    the longest a reorder ring may have been held (its deadline plus
    scheduling slack; well below the idle time before exit, so a ring only
    released at exit fails)."""
    t.check(res.rc == 0, "%s: exit %s: %s" % (name, res.rc, res.stderr[-1500:]))
    if not t.check(res.stats is not None, "%s: no stats document" % name):
        return None
    s = res.stats
    ok, why = harness.accounted(s)
    t.check(ok, "%s: accounting: %s" % (name, why))
    t.eq(s["held_packets"], 0, "(%s: held at exit)" % name)
    t.eq(s["lb"]["reorder_queues_in_use"], 0, "(%s: reorder rings held at exit)" % name)
    t.check(s["lb"]["reorder_hold_max_ns"] <= max_hold_ms * 1e6,
            "%s: a reorder ring was held %.1f ms (past its deadline)"
            % (name, s["lb"]["reorder_hold_max_ns"] / 1e6))
    t.eq(s["mempool_in_use"], 0, "(%s: mempool in use after the ports closed)" % name)
    t.eq(s["mempool_in_use_stopped"], s["mempool_baseline"],
         "(%s: mempool in use when the workers stopped vs at start)" % name)
    if inputs is not None:
        # What the pcap ports read = what rocetor received + what the NIC
        # lost for want of an mbuf (or descriptor).
        for p, frames in enumerate(inputs):
            e = res.port(p)
            t.eq(e["rx_packets"] + e["rx_nombuf"] + e["imissed"], len(frames),
                 "(%s: port %d input frames vs rx + rx_nombuf + imissed)" % (name, p))
    rx = sum(p["rx_packets"] for p in s["ports"])
    drops = {k: v for k, v in s["drops"].items() if v}
    nombuf = sum(p.get("rx_nombuf", 0) for p in s["ports"])
    FIG.append("%-28s rx %6d fwd %6d consumed %5d orig %5d dropped %5d %s nombuf %d held %d "
               "mempool base %d stop %d exit %d"
               % (name, rx, s["forwarded"], s["consumed"], s["originated"], s["dropped"],
                  drops, nombuf, s["held_packets"], s["mempool_baseline"],
                  s["mempool_in_use_stopped"], s["mempool_in_use"]))
    return s


def binomial_ok(k, n, p):
    """k losses of n at probability p: within 5 standard deviations (and at
    least one when n*p >= 5)."""
    mean = n * p
    sd = (n * p * (1 - p)) ** 0.5
    return abs(k - mean) <= 5 * sd + 1 and (mean < 5 or k > 0)


def faults(seed=1, **loss):
    return "faults: {seed: %d, ctrl_loss: {%s}}\n" % (
        seed, ", ".join("%s: %g" % kv for kv in loss.items()))


def fab(f):
    return bytes.fromhex(CW.FAB_MAC[0].replace(":", "")) + f[6:]


def from_host(f):
    return bytes.fromhex(CW.HOST_MAC.replace(":", "")) + f[6:]


# --------------------------------------------------------------------------
def case_srctor_ctrl_loss(t, rate, lb="conweave"):
    """A SrcToR receives N RTT_REPLYs, N CLEARs and N NOTIFYs on an uplink
    (after its host sent the flows they answer) and loses each kind at
    `rate`: every control packet is either consumed and counted by its LB
    counter or dropped under its fault_* reason."""
    n = 1000
    flows = [0xC000 + i for i in range(16)]
    data = [from_host(CW.host_frame(p, sport=sp)) for p in range(1, 4) for sp in flows]
    ctrl = []
    kinds = (("rtt_reply", R.CW_REPLY, 0), ("clear", R.CW_REPLY, 1), ("notify", R.CW_NOTIFY, 0))
    if lb == "seqbalance":
        kinds = kinds[2:]     # SeqBalance's only control packet: the Congestion Packet
    for i in range(n):
        sp = flows[i % len(flows)]
        d = CW.arrive(CW.host_frame(1, sport=sp), epoch=1, path=2)
        for _, op, phase in kinds:
            ctrl.append(R.cw_control(d, op, phase=phase, dst_mac=CW.FAB_MAC[0]))
    name = "%s ctrl loss %g%%" % (lb, rate * 100)
    cfg = CW.src_config(lb=lb) + faults(**{k: rate for k, _, _ in kinds})
    inputs = [data, ctrl, [], [], []]
    res = harness.run(cfg, inputs, tag="flctl")
    s = sound(t, name, res, inputs)
    if s is None:
        return
    lb_ = s["lb"]
    got = {"rtt_reply": lb_["rtt_replies_rx"], "clear": lb_["clears_rx"],
           "notify": lb_["notifies_rx"]}
    lost = 0
    for k, _, _ in kinds:
        d = s["drops"]["fault_" + k]
        lost += d
        t.eq(got[k] + d, n, "(%s: %s received + lost)" % (name, k))
        t.check(binomial_ok(d, n, rate), "%s: %d of %d %s lost at %g" % (name, d, n, k, rate))
    t.eq(s["consumed"], len(ctrl) - lost, "(%s: control packets consumed)" % name)
    t.eq(s["dropped"], lost, "(%s: only fault drops)" % name)
    t.eq(res.port(1)["drops"], lost, "(%s: drops charged to the uplink)" % name)
    t.eq(s["forwarded"], len(data), "(%s: data forwarded)" % name)
    for k in ("fault_tail", "fault_advert"):
        t.eq(s["drops"][k], 0, "(%s: %s)" % (name, k))


# --------------------------------------------------------------------------
def tail_flows(n, base=10000):
    """n flows, each: RTT_REQUEST 1, phase-0 2 3, phase-1 5 6 (overtaking),
    then the TAIL 4. Returns (arrivals, {sport: sent frames by psn})."""
    seq = []
    for i in range(n):
        sp = base + i
        f = {p: CW.host_frame(p, sport=sp) for p in range(1, 7)}
        seq.append(CW.arrive(f[1], epoch=1, ask=1, ts_tx=100))
        seq += [CW.arrive(f[p], epoch=1, ts_tx=100 + p) for p in (2, 3)]
        seq += [CW.arrive(f[p], epoch=1, phase=1, ts_tx=110 + p, ts_tail=104, path=2)
                for p in (5, 6)]
        seq.append(CW.arrive(f[4], epoch=1, ask=1, tail=1, ts_tx=104, ts_tail=104))
    return seq


def case_dsttor_tail_loss(t, rate):
    """A DstToR loses TAILs at `rate`: the flows whose TAIL was lost are
    released at their deadline (CLEAR sent anyway), in PSN order, without
    the TAIL; the others at their TAIL."""
    n = 1000
    seq = tail_flows(n)
    name = "conweave TAIL loss %g%%" % (rate * 100)
    cfg = CW.dst_config(", resume_extra_us: 2000, theta_inactive_us: 2300").replace(
        "reorder_queues_per_port: 64", "reorder_queues_per_port: 1024") + faults(tail=rate)
    inputs = [[], seq, [], [], []]
    res = harness.run(cfg, inputs, tag="fltail")
    s = sound(t, name, res, inputs)
    if s is None:
        return
    lb = s["lb"]
    lost = s["drops"]["fault_tail"]
    t.check(binomial_ok(lost, n, rate), "%s: %d of %d TAILs lost" % (name, lost, n))
    by_flow = collections.defaultdict(list)
    for f in res.outputs[0]:
        by_flow[CW.sport_of(f)].append(CW.psn_of(f))
    no_tail = [sp for sp, v in by_flow.items() if v == [1, 2, 3, 5, 6]]
    with_tail = [sp for sp, v in by_flow.items() if v == [1, 2, 3, 4, 5, 6]]
    t.eq(len(by_flow), n, "(%s: flows delivered)" % name)
    t.eq(len(no_tail) + len(with_tail), n, "(%s: flows in PSN order, complete but for a "
         "lost TAIL: %r)" % (name, [v for v in by_flow.values()
                                    if v not in ([1, 2, 3, 5, 6], [1, 2, 3, 4, 5, 6])][:5]))
    t.eq(len(no_tail), lost, "(%s: flows without their TAIL = TAILs lost)" % name)
    # Released at the deadline (2 ms), not at exit (400 ms of idle later).
    tx_at = {(CW.sport_of(f), CW.psn_of(f)): tm for tm, f in res.outputs_ts[0]}
    late = [sp for sp in no_tail if tx_at[(sp, 5)] - tx_at[(sp, 3)] > 0.1]
    t.eq(late, [], "(%s: flows released more than 100 ms after phase 0)" % name)
    t.eq(lb["tails_rx"], n - lost, "(%s: TAILs seen)" % name)
    t.eq(lb["reorder_flush_tail"], n - lost, "(%s: released by their TAIL)" % name)
    t.eq(lb["reorder_flush_timeout"], lost, "(%s: released at their deadline)" % name)
    t.eq(lb["clears"], n, "(%s: a CLEAR per flow, TAIL or deadline)" % name)
    t.eq(lb["rtt_replies"], n, "(%s: RTT_REPLYs)" % name)
    t.eq(lb["reorder_overflow"], 0, "(%s: reorder overflows)" % name)
    t.eq(s["dropped"], lost, "(%s: only fault drops)" % name)
    t.eq(s["originated"], lb["clears"] + lb["rtt_replies"], "(%s: control packets built)" % name)


# --------------------------------------------------------------------------
def dst_small(queues, depth, extra="", resume_extra_us=2000):
    # theta_inactive must exceed base_rtt + the longest hold (resume_default
    # + resume_extra: doc/conweave.md).
    theta = min(resume_extra_us + 300, 31999)
    return CW.dst_config(", resume_extra_us: %d, theta_inactive_us: %d"
                         % (resume_extra_us, theta) + extra).replace(
        "reorder_queues_per_port: 64, reorder_queue_depth: 255",
        "reorder_queues_per_port: %d, reorder_queue_depth: %d" % (queues, depth))


def delivered(res):
    by_flow = collections.defaultdict(list)
    for f in res.outputs[0]:
        by_flow[CW.sport_of(f)].append(CW.psn_of(f))
    return by_flow


def case_reorder_ring_full(t):
    """reorder_queue_depth 4 and 12 packets overtaking each TAIL: every
    ring fills, the epoch goes on without reordering (reorder_overflow),
    nothing is lost or duplicated and nothing stays held."""
    n, depth = 50, 4
    seq = []
    for i in range(n):
        sp = 20000 + i
        f = {p: CW.host_frame(p, sport=sp) for p in range(1, 17)}
        seq.append(CW.arrive(f[1], epoch=1, ask=1, ts_tx=100))
        seq += [CW.arrive(f[p], epoch=1, ts_tx=100 + p) for p in (2, 3)]
        seq += [CW.arrive(f[p], epoch=1, phase=1, ts_tx=110 + p, ts_tail=104, path=2)
                for p in range(5, 17)]
        seq.append(CW.arrive(f[4], epoch=1, ask=1, tail=1, ts_tx=104, ts_tail=104))
    name = "reorder ring full (depth %d)" % depth
    inputs = [[], seq, [], [], []]
    res = harness.run(dst_small(64, depth), inputs, tag="flring")
    s = sound(t, name, res, inputs)
    if s is None:
        return
    lb = s["lb"]
    by_flow = delivered(res)
    t.eq(len(by_flow), n, "(%s: flows)" % name)
    t.check(all(sorted(v) == list(range(1, 17)) for v in by_flow.values()),
            "%s: a flow lost or duplicated packets" % name)
    t.check(all(v[:3] == [1, 2, 3] for v in by_flow.values()), "%s: phase 0 first" % name)
    t.eq(lb["reorder_overflow"], n, "(%s: one overflow per flow)" % name)
    t.check(0 < lb["reorder_held"] <= n * 12, "%s: held %d" % (name, lb["reorder_held"]))
    t.eq(s["forwarded"], len(seq), "(%s: every packet delivered)" % name)
    t.eq(s["dropped"], 0, "(%s: never drop)" % name)


def case_reorder_pool_empty(t):
    """4 reorder rings and 100 flows held at once: 4 flows are reordered
    (PSN order at the host), the other 96 find no ring (reorder_overflow)
    and go on unordered; nothing lost, duplicated or left held."""
    n, rings = 100, 4
    f = {(i, p): CW.host_frame(p, sport=30000 + i) for i in range(n) for p in range(1, 7)}
    seq = []
    for i in range(n):
        seq.append(CW.arrive(f[(i, 1)], epoch=1, ask=1, ts_tx=100))
        seq += [CW.arrive(f[(i, p)], epoch=1, ts_tx=100 + p) for p in (2, 3)]
    for i in range(n):
        seq += [CW.arrive(f[(i, p)], epoch=1, phase=1, ts_tx=110 + p, ts_tail=104, path=2)
                for p in (5, 6)]
    for i in range(n):
        seq.append(CW.arrive(f[(i, 4)], epoch=1, ask=1, tail=1, ts_tx=104, ts_tail=104))
    name = "reorder pool empty (%d rings)" % rings
    inputs = [[], seq, [], [], []]
    # Every hold ends with its TAIL here; a long deadline keeps a slow run
    # (the sanitizer build takes more than 2 ms for these 600 frames) from
    # timing out the first holds, which would free rings for later flows.
    res = harness.run(dst_small(rings, 255, resume_extra_us=30000), inputs, tag="flpool")
    s = sound(t, name, res, inputs)
    if s is None:
        return
    lb = s["lb"]
    by_flow = delivered(res)
    ordered = [sp for sp, v in by_flow.items() if v == [1, 2, 3, 4, 5, 6]]
    unordered = [sp for sp, v in by_flow.items() if v == [1, 2, 3, 5, 6, 4]]
    t.eq(len(ordered), rings, "(%s: flows that got a ring, in PSN order)" % name)
    t.eq(len(unordered), n - rings, "(%s: flows without a ring, unordered)" % name)
    t.eq(lb["reorder_overflow"], n - rings, "(%s: no free ring)" % name)
    t.eq(lb["reorder_queues_max"], rings, "(%s: rings held at once)" % name)
    t.eq(lb["reorder_flush_tail"], rings, "(%s: rings released by a TAIL)" % name)
    t.eq(s["forwarded"], len(seq), "(%s: every packet delivered)" % name)
    t.eq(s["dropped"], 0, "(%s: never drop)" % name)


def case_mbuf_exhaustion(t):
    """switch.mbufs 1024 on a DstToR whose host port has a 50 ms delay line:
    3000 packets arrive at once, the pool runs dry, the NIC loses what it
    has no mbuf for (rx_nombuf) and control packets go unsent
    (ctrl_alloc_failed); what was received is delivered in PSN order per
    flow, and the pool is whole again at exit."""
    n = 500
    seq = tail_flows(n, base=40000)
    name = "mbuf pool exhaustion"
    cfg = dst_small(1024, 255).replace("switch: {name: dst, id: 2, lb: conweave}",
                                       "switch: {name: dst, id: 2, lb: conweave, mbufs: 1024}")
    cfg = cfg.replace('role: host, mac: "%s"}' % CW.HOST_MAC,
                      'role: host, mac: "%s", delay_us: 50000}' % CW.HOST_MAC)
    t.check("mbufs: 1024" in cfg and "delay_us: 50000" in cfg, "config edit")
    inputs = [[], seq, [], [], []]
    res = harness.run(cfg, inputs, tag="flmbuf")
    s = sound(t, name, res, inputs)
    if s is None:
        return
    nombuf = res.port(1)["rx_nombuf"]
    t.check(nombuf > 0, "%s: the pool never ran dry (rx_nombuf 0)" % name)
    t.eq(s["forwarded"], res.port(1)["rx_packets"], "(%s: everything received delivered)" % name)
    by_flow = delivered(res)
    bad = [v for v in by_flow.values() if v != sorted(v) or len(set(v)) != len(v)]
    t.eq(bad[:3], [], "(%s: flows out of PSN order or duplicated)" % name)
    t.eq(sum(len(v) for v in by_flow.values()), s["forwarded"], "(%s: host port)" % name)
    print("%s: rx_nombuf %d, ctrl_alloc_failed %d, originated %d" %
          (name, nombuf, s["lb"]["ctrl_alloc_failed"], s["originated"]))


def case_hold_budget(t):
    """Issue 15 item 7: reorder holds bounded by the mempool. switch.mbufs
    4095 on a DstToR whose rings could hold 1024 x 255 packets: 150 flows
    each hold 40 phase-1 packets (6000, more than the pool) until their
    TAILs come at the end. Holding stops at the worker's hold budget (a
    quarter of this small pool): the overflow path is taken and counted
    (reorder_overflow, reorder_over_budget), the NIC never runs dry
    (rx_nombuf 0: TAILs and RTT_REQUESTs all received), nothing is lost."""
    n, per = 150, 40
    seq = []
    for i in range(n):
        f = CW.host_frame(1, sport=50000 + i)
        seq.append(CW.arrive(f, epoch=1, ask=1, ts_tx=100))
    for k in range(per):
        for i in range(n):
            f = CW.host_frame(3 + k, sport=50000 + i)
            seq.append(CW.arrive(f, epoch=1, phase=1, ts_tx=200 + k, ts_tail=20100, path=2))
    for i in range(n):
        f = CW.host_frame(2, sport=50000 + i)
        seq.append(CW.arrive(f, epoch=1, ask=1, tail=1, ts_tx=20100, ts_tail=20100))
    name = "hold budget (mbufs 4095)"
    cfg = dst_small(1024, 255, resume_extra_us=31000)
    cfg = cfg.replace("switch: {name: dst, id: 2, lb: conweave}",
                      "switch: {name: dst, id: 2, lb: conweave, mbufs: 4095}")
    t.check("mbufs: 4095" in cfg, "config edit")
    inputs = [[], seq, [], [], []]
    res = harness.run(cfg, inputs, tag="flbudget")
    s = sound(t, name, res, inputs)
    if s is None:
        return
    lb = s["lb"]
    nombuf = res.port(1)["rx_nombuf"]
    by_flow = delivered(res)
    print("%s: rx_nombuf %d, reorder_held %d, reorder_overflow %d, reorder_over_budget %d, "
          "delivered %d of %d, TAILs received %d" %
          (name, nombuf, lb["reorder_held"], lb["reorder_overflow"],
           lb.get("reorder_over_budget", -1), sum(len(v) for v in by_flow.values()), len(seq),
           lb["tails_rx"]))
    t.eq(nombuf, 0, "(%s: the NIC never ran out of mbufs)" % name)
    t.check(lb["reorder_overflow"] > 0, "%s: no overflow taken" % name)
    t.eq(lb.get("reorder_over_budget"), lb["reorder_overflow"],
         "(%s: every overflow was the budget's)" % name)
    t.eq(lb["tails_rx"], n, "(%s: every TAIL received)" % name)
    t.eq(s["forwarded"], len(seq), "(%s: every packet delivered)" % name)
    t.eq(s["dropped"], 0, "(%s: never drop)" % name)
    bad = [sp for sp, v in by_flow.items() if sorted(v) != list(range(1, per + 3))]
    t.eq((len(by_flow), bad[:3]), (n, []), "(%s: flows, each packet once)" % name)


def case_handoff_full(t):
    """Two workers (--main-forwards, lcores 0,1) and switch.handoff_ring 1:
    packets for the other worker's flows overflow its hand-off ring
    (handoff_full, charged to the port they came in on); what got through
    is forwarded once, per flow in PSN order on each path."""
    nf, per = 64, 40
    # Frame i belongs to flow i % nf and goes to RX queue i % 2: a flow
    # arrives on one queue, half the flows are owned by the other worker.
    frames = [from_host(CW.host_frame(i // nf + 1, sport=0xC400 + i % nf))
              for i in range(nf * per)]
    cfg = CW.src_config().replace("switch: {name: src, id: 1, lb: conweave}",
                                  "switch: {name: src, id: 1, lb: conweave, handoff_ring: 1}")
    t.check("handoff_ring: 1" in cfg, "config edit")
    name = "hand-off ring full"
    inputs = [frames, [], [], [], []]
    res = harness.run(cfg, inputs, tag="flhand", lcores="0,1", queues=2, idle_ms=800,
                      args=["--main-forwards"])
    s = sound(t, name, res, inputs)
    if s is None:
        return
    t.check("2 workers (main lcore forwards)" in res.stdout, "expected 2 workers: %s"
            % res.stdout[:300])
    full = s["drops"]["handoff_full"]
    t.check(full > 0, "%s: no handoff_full" % name)
    t.eq(s["handoff_tx"], s["handoff_rx"], "(%s: handed off = taken)" % name)
    t.eq(s["forwarded"] + full, len(frames), "(%s: forwarded + handoff_full)" % name)
    t.eq(res.port(0)["drops"], full, "(%s: drops charged to the host port)" % name)
    psns = collections.defaultdict(list)
    for p in range(1, 5):
        for f in res.outputs[p]:
            psns[(CW.sport_of(f), p)].append(CW.psn_of(f))
    t.eq(sum(len(v) for v in psns.values()), s["forwarded"], "(%s: frames out)" % name)
    t.check(all(v == sorted(v) for v in psns.values()), "%s: per-flow order per path" % name)
    print("%s: handoff_tx %d handoff_full %d" % (name, s["handoff_tx"], full))


def case_caver_advert_loss(t, rate):
    """CAVER's congestion information rides on RC ACKs (a shim): a ToR loses
    shimmed ACKs arriving on an uplink at `rate` (fault_advert); the others
    are stored as advertisements and delivered to the host without the shim."""
    import test_caver as CV
    n = 1000
    acks = []
    for i in range(n):
        src = "10.2.0.%d" % (1 + i % 5)
        f = CV.ack(src, "10.1.0.7", 0xCC00 + i % 32, i, CV.A_FAB[0])
        acks.append(CV.with_macs(CV.add_shim(f, src, 0, 5, 1, CV.SP_ID), CV.A_FAB[0],
                                 CV.SPINE_UP[0]))
    name = "caver advert loss %g%%" % (rate * 100)
    inputs = [[], acks, []]
    res = harness.run(CV.a_config() + faults(advert=rate), inputs, tag="flcv")
    s = sound(t, name, res, inputs)
    if s is None:
        return
    lost = s["drops"]["fault_advert"]
    t.check(binomial_ok(lost, n, rate), "%s: %d of %d lost" % (name, lost, n))
    t.eq(s["lb"]["caver_adverts"] + lost, n, "(%s: advertisements stored + lost)" % name)
    t.eq(s["lb"]["caver_shims_stripped"] + lost, n, "(%s: shims stripped + lost)" % name)
    t.eq(len(res.outputs[0]), n - lost, "(%s: ACKs delivered to the host)" % name)
    t.eq(s["dropped"], lost, "(%s: only fault drops)" % name)


def case_closed_loop(t, rate):
    """ToR A (SrcToR) and ToR B (DstToR) joined by four memif links of
    0, 20, 60 and 150 us (tests/pkt/fabric.py): replies over the longest
    come after base_rtt + theta_reply, so flows send TAILs and reroute,
    and their phase-1 packets overtake the TAIL. A loses RTT_REPLYs,
    CLEARs and NOTIFYs from B at `rate`, B loses A's TAILs at `rate`.
    Every packet reaches B's host but the lost TAILs, each flow in PSN
    order, and what one side sent is what the other received plus what it
    lost. (No 1 Gb/s bottleneck as in test_fabric.py: on a loaded machine
    its queue can grow past resume_extra while a flow is held, and a TAIL
    that comes after its deadline is outside ConWeave's order promise.)"""
    import fabric
    import test_fabric as TF
    frames = TF.make_flows()
    name = "closed loop %g%%" % (rate * 100)
    # test_fabric's lab thresholds, with the most slack the 16-bit
    # timestamps allow for a TAIL (or a phase-0 packet behind it) delayed
    # by the scheduling of five processes on two cores.
    # theta_inactive must exceed base_rtt + the longest hold (100 + 200 +
    # 31000 us, doc/conweave.md).
    cw = dict(TF.CW_LAB, resume_extra_us=31000, theta_inactive_us=31999)
    a, b = fabric.run_pair(
        fabric.tor_config("a", lb="conweave", conweave=cw,
                          links=({"delay_us": 0}, {"delay_us": 20}, {"delay_us": 60},
                                 {"delay_us": 150}),
                          extra=faults(seed=7, rtt_reply=rate, clear=rate, notify=rate)),
        fabric.tor_config("b", lb="conweave", conweave=cw,
                          extra=faults(seed=9, tail=rate)),
        frames, lb="conweave", tag="flcl", idle_ms_b=3000)   # B outlives a slow start of A
    sa = sound(t, name + " A", a)
    sb = sound(t, name + " B", b, max_hold_ms=300)
    if sa is None or sb is None:
        return
    la, lb = sa["lb"], sb["lb"]
    da, db = sa["drops"], sb["drops"]
    t.eq(la["tails"], lb["tails_rx"] + db["fault_tail"], "(%s: TAILs A sent)" % name)
    t.eq(lb["rtt_replies"], la["rtt_replies_rx"] + da["fault_rtt_reply"],
         "(%s: RTT_REPLYs B sent)" % name)
    t.eq(lb["clears"], la["clears_rx"] + da["fault_clear"], "(%s: CLEARs B sent)" % name)
    t.eq(lb["notifies"], la["notifies_rx"] + da["fault_notify"], "(%s: NOTIFYs B sent)" % name)
    t.eq(sa["dropped"], da["fault_rtt_reply"] + da["fault_clear"] + da["fault_notify"],
         "(%s: A drops only faults)" % name)
    t.eq(sb["dropped"], db["fault_tail"], "(%s: B drops only TAILs)" % name)
    t.eq(lb["reorder_overflow"], 0, "(%s: reorder overflows)" % name)
    t.eq(lb["reorder_flush_timeout"], db["fault_tail"],
         "(%s: holds released at their deadline = TAILs lost)" % name)
    t.check(la["tails"] > 0 and lb["reorder_held"] > 0,
            "%s: no TAIL or nothing held: %r" % (name, lb))
    out = b.outputs[0]
    t.eq(len(out), len(frames) - db["fault_tail"], "(%s: delivered = sent - TAILs lost)" % name)
    sent = collections.Counter(TF.content_key(f) for f in frames)
    got = collections.Counter(TF.content_key(f) for f in out)
    t.eq(sum((got - sent).values()), 0, "(%s: duplicated or unknown packets)" % name)
    t.eq(sum((sent - got).values()), db["fault_tail"], "(%s: missing = TAILs lost)" % name)
    ooo, _ = TF.out_of_order(out)
    lost_tail = {TF.flow_of(f)[2] for f in frames if TF.content_key(f) not in got}
    t.eq(ooo, 0, "(%s: out-of-order PSNs at B's host port; flows that lost a TAIL: %s; "
         "holds released at their deadline %d, longest %.1f ms)"
         % (name, sorted(lost_tail), lb["reorder_flush_timeout"],
            lb["reorder_hold_max_ns"] / 1e6))
    print("%s: A tails %d reroutes %d replies_rx %d clears_rx %d notifies_rx %d; "
          "B held %d flush_tail %d flush_timeout %d; lost %s / %s"
          % (name, la["tails"], la["reroutes"], la["rtt_replies_rx"], la["clears_rx"],
             la["notifies_rx"], lb["reorder_held"], lb["reorder_flush_tail"],
             lb["reorder_flush_timeout"], {k: v for k, v in da.items() if v},
             {k: v for k, v in db.items() if v}))


def case_admin_down_midrun(t, lb="conweave"):
    """An uplink taken down while traffic runs (telemetry
    /rocetor/port/admin,2,down) and brought back: while down it sends
    nothing and its flows move to the live uplinks; once up it carries
    traffic again; after SIGINT everything is accounted (what its queues
    held when it went down is dropped as port_down) and nothing leaks.
    The host port replays its pcap forever; the uplinks are net_null."""
    work = harness.tempfile.mkdtemp(prefix="rocetor-fldown-")
    cfg = os.path.join(work, "c.yaml")
    with open(cfg, "w") as fh:
        fh.write(CW.src_config(lb=lb).replace(
            "switch: {name: src, id: 1, lb: %s}" % lb,
            "switch: {name: src, id: 1, lb: %s, idle_sleep_us: 50}" % lb))
    rx = os.path.join(work, "in.pcap")
    harness.write_pcap(rx, [from_host(CW.host_frame(p, sport=0xC500 + p % 32))
                            for p in range(1, 257)])
    prefix = harness.eal_prefix("fldown")
    stats = os.path.join(work, "s.json")
    cmd = [harness.ROCETOR, "-l", "0", "--no-pci", "--no-huge", "-m", "1024", "--file-prefix",
           prefix, "--log-level", "lib.eal:error",
           "--vdev", "net_pcap0,rx_pcap=%s,tx_iface=lo,infinite_rx=1" % rx]
    for i in range(4):
        cmd += ["--vdev", "net_null%d,no-rx=1" % (i + 1)]
    # --telemetry-rw: /rocetor/port/admin changes state (read-only by default).
    cmd += ["--", "--config", cfg, "--stats-json", stats, "--telemetry-rw"]
    name = "%s uplink down and up" % lb
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    def ports():
        r = harness.telemetry(prefix, ["/rocetor/ports"]).get("/rocetor/ports") or {}
        return {int(k): v for k, v in r.items()}

    def routes(arg=""):
        return harness.telemetry(prefix, ["/rocetor/route/list" + arg]).get(
            "/rocetor/route/list", "no reply")

    snaps = {}
    rt = {}
    try:
        deadline = time.time() + 20
        while time.time() < deadline and not snaps.get("before"):
            time.sleep(0.3)
            snaps["before"] = ports()
        rt["before"] = routes()
        rt["page"] = routes(",4")
        rt["bad"] = routes(",7")
        down = harness.telemetry(prefix, ["/rocetor/port/admin,2,down"])
        time.sleep(0.3)
        snaps["down1"] = ports()
        rt["down"] = routes()
        time.sleep(0.5)
        snaps["down2"] = ports()
        up = harness.telemetry(prefix, ["/rocetor/port/admin,2,up"])
        time.sleep(0.8)
        snaps["up"] = ports()
    finally:
        _, se = harness.interrupt(proc)
    t.eq(proc.returncode, 0, "(%s: SIGINT) %s" % (name, se[-800:]))
    t.eq((down.get("/rocetor/port/admin") or {}).get("admin"), "down",
         "(%s: admin down reply %r)" % (name, down))
    t.eq((up.get("/rocetor/port/admin") or {}).get("admin"), "up",
         "(%s: admin up reply %r)" % (name, up))
    # /rocetor/route/list: the table as the workers use it, the group's
    # live mask and each path's state, paged.
    def path(i, port, mac, up):
        return "path %d port %d - %s static %s" % (i, port, mac, "up" if up else "down")
    rb, rd = rt.get("before") or {}, rt.get("down") or {}
    t.eq((rb.get("total"), rb.get("count"), rb.get("next")), (6, 6, -1),
         "(%s: route list page) %r" % (name, rb))
    t.eq(rb.get("route_0"), ["10.1.0.0/16", "config", "nexthop",
                             path(0, 0, "02:00:00:00:aa:01", True)],
         "(%s: a next-hop route)" % name)
    t.eq(rb.get("route_3"), ["10.2.0.0/16", "config", "group 0 live 0xf"] +
         [path(i, i + 1, CW.SPINE[i], True) for i in range(4)], "(%s: a group)" % name)
    t.eq(rd.get("route_3"), ["10.2.0.0/16", "config", "group 0 live 0xd"] +
         [path(i, i + 1, CW.SPINE[i], i != 1) for i in range(4)],
         "(%s: the group with port 2 down)" % name)
    t.eq((rd.get("route_4") or ["", "", ""])[:3], ["fd00:2::/64", "config", "group 1 live 0xd"],
         "(%s: IPv6 group)" % name)
    rp = rt.get("page") or {}
    t.eq((rp.get("start"), rp.get("count"), rp.get("next"),
          [(rp.get(k) or [""])[0] for k in ("route_4", "route_5")]),
         (4, 2, -1, ["fd00:2::/64", "192.168.70.4/32"]),
         "(%s: route list from 4) %r" % (name, rp))
    t.eq(rt.get("bad"), None, "(%s: a start past the table is refused)" % name)
    b, d1, d2, u = (snaps.get(k) or {} for k in ("before", "down1", "down2", "up"))
    tx = lambda snap, p: (snap.get(p) or {}).get("tx_packets", -1)  # noqa: E731
    t.check(all(p in b for p in range(5)), "%s: telemetry /rocetor/ports: %r" % (name, b))
    t.eq([(d1.get(2) or {}).get("link_up"), (d2.get(2) or {}).get("link_up"),
          (u.get(2) or {}).get("link_up")], [0, 0, 1], "(%s: port 2 link_up)" % name)
    t.eq(tx(d2, 2), tx(d1, 2), "(%s: port 2 sent nothing while down)" % name)
    t.check(sum(tx(d2, p) - tx(d1, p) for p in (1, 3, 4)) > 0,
            "%s: the live uplinks carried the traffic while port 2 was down" % name)
    t.check(tx(u, 2) > tx(d2, 2), "%s: port 2 carries traffic again once up (%d -> %d)"
            % (name, tx(d2, 2), tx(u, 2)))
    st = t.json_file(stats, "%s: no stats document" % name)
    if st is None:
        return
    res = harness.Result(proc.returncode, "", se, st, [], work)
    s = sound(t, name, res)
    harness.shutil.rmtree(work, ignore_errors=True)
    if s is None:
        return
    others = {k: v for k, v in s["drops"].items() if v and k != "port_down"}
    t.eq(others, {}, "(%s: drops other than port_down)" % name)
    print("%s: port 2 tx before %d, while down %d -> %d, after up %d; reroutes %d, "
          "port_down drops %d" % (name, tx(b, 2), tx(d1, 2), tx(d2, 2), tx(u, 2),
                                 s["lb"]["reroutes"], s["drops"]["port_down"]))


def main():
    t = harness.Checker("pkt-faults")
    t0 = time.time()
    for rate in (0.01, 0.1):
        case_srctor_ctrl_loss(t, rate)
        case_dsttor_tail_loss(t, rate)
    case_srctor_ctrl_loss(t, 0.1, lb="seqbalance")
    case_caver_advert_loss(t, 0.1)
    case_closed_loop(t, 0.01)
    case_closed_loop(t, 0.1)
    case_admin_down_midrun(t)
    case_reorder_ring_full(t)
    case_reorder_pool_empty(t)
    case_mbuf_exhaustion(t)
    case_hold_budget(t)
    case_handoff_full(t)
    for line in FIG:
        print(line)
    print("total %.1f s" % (time.time() - t0))
    return t.done()


if __name__ == "__main__":
    sys.exit(main())

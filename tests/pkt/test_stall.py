#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The rocetor authors
"""A stalled worker is not a quiet network (issue 28, ALGORITHMS.md "Time",
doc/architecture.md "Time: what the switch has seen").

The switches of each scenario stall their worker for STALL us every
faults.stall_every loop passes (faults.stall_us, doc/faults.md), as if
preempted: packets pile up in their RX queues meanwhile. The stall lengths
run from well below the scenario's timers (hold deadlines, spray's gap
deadline, CAVER's flow idle time, all 20 ms here) to well above them. Which
switches stall: the ConWeave DstToR (not the SrcToR, whose stall is the
network's delay as the DstToR sees it: see conweave()), both spray ToRs,
all three CAVER switches.

What this test shows is that stalls change nothing but latency, end to
end. Whether a stall lands where the wall clock would have reordered (a
hold's filler more than a burst deep in a ring when the deadline passes) is
timing: in our runs the build without the horizon passed this test too.
The deterministic reproductions are the virtual-clock tests
(lib/lb/core/test_clock.c, test_spray's and test_caver's stalled worker),
and the end-to-end one is tools/hog-runs.sh (doc/testing.md).
Before the LB stage judged time by the worker's horizon, a hold whose
deadline passed during a stall was released although its gap's packets
already waited in the RX ring, and a CAVER flow whose packets sat in the
ring for 20 ms was re-placed as idle: delivered out of order.

1. conweave, two ToRs (pkt-fabric's ConWeave scenario: links of 0/20/60/150
   us, one shaped to 1 Gb/s): every packet at B's host exactly once, in PSN
   order, valid ICRCs; no reorder overflow; the switches' control counters
   agree (TAILs, RTT requests and replies, CLEARs, NOTIFYs); nothing held.
2. spray, two ToRs, one elephant flow over four unequal links (pkt-spray-
   fabric's lossless case): exactly once, in order, no gap timeout, no late
   packet, each packet delivered in its turn.
3. caver with an ECMP spine (pkt-leafspine's caver-ecmp-spine traffic, five
   processes): data and ACKs exactly once, in order per QP, valid ICRCs.
In all: the stalls happened (fault_stalls > 0 on every switch), accounting
is exact, the mempool is back to its baseline, nothing is held at exit."""
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
import fabric  # noqa: E402
import harness  # noqa: E402
import leafspine  # noqa: E402
import test_fabric as TF  # noqa: E402
import test_leafspine as LS  # noqa: E402
import test_spray_fabric as SF  # noqa: E402

# us; the timers under test are 20 ms (CW_LAB resume_extra, SPRAY timeout,
# caver flow_idle_us below).
STALLS = [int(x) for x in os.environ.get("ROCETOR_STALLS", "2000,20000,60000").split(",")]
# Loop passes between stalls: each switch stalls several times while the
# traffic runs (fault_stalls in its stats), and a long stall comes less
# often (an idle pass takes some 20-50 us: idle_sleep_us 20), so that the
# switches still move the traffic.
EVERY = int(os.environ.get("ROCETOR_STALL_EVERY", "0"))


def faults(us):
    every = EVERY or max(400, us // 10)
    return "faults: " + fabric._yaml({"stall_us": us, "stall_every": every}) + "\n"


def pair(t, lb, frames, us_a, us_b, links_a, extra, tag):
    """A and B stall us_a and us_b (0: never)."""
    a, b = fabric.run_pair(fabric.tor_config("a", lb=lb, links=links_a,
                                             extra=extra + (faults(us_a) if us_a else "")),
                           fabric.tor_config("b", lb=lb, links=({},) * 4,
                                             extra=extra + (faults(us_b) if us_b else "")),
                           frames, lb=lb, tag=tag)
    if not fabric.check_pair(t, a, b, tag):
        return None
    for name, r in (("A", a), ("B", b)):
        s = r.stats
        t.eq(s["dropped"], 0, "(%s: drops on %s: %s)"
             % (tag, name, {k: v for k, v in s["drops"].items() if v}))
        if (us_a, us_b)[name == "B"]:
            t.check(s["fault_stalls"] > 0, "%s: ToR %s never stalled" % (tag, name))
    print("%s: stalls of %d / %d us: A %d, B %d" % (tag, us_a, us_b, a.stats["fault_stalls"],
                                                     b.stats["fault_stalls"]))
    return a, b


def conweave(t, frames, us):
    tag = "cw%d" % us
    # B holds: B stalls, A does not. A's stalls would be the network's
    # delay as B sees it: they slow A's 1 Gb/s uplink's queue (a stalled
    # worker serves no shaper), and a TAIL delayed past resume_extra
    # (20 ms) after the last packet B saw is beyond any hold ConWeave
    # allows (seen: 2 ms stalls every 20 passes at A reorder with or
    # without this fix).
    r = pair(t, "conweave", frames, 0, us, None,
             "conweave: " + fabric._yaml(TF.CW_LAB) + "\n", "stcw")
    if r is None:
        return
    a, b = r
    la, lb = a.stats["lb"], b.stats["lb"]
    print("%s: reroutes %d, tails %d, held %d, expired %d, longest hold %.3f ms" % (
        tag, la["reroutes"], la["tails"], lb["reorder_held"], lb.get("reorder_timeouts", 0),
        lb["reorder_hold_max_ns"] / 1e6))
    ooo = TF.check_delivery(t, frames, b.outputs[0], tag)
    t.eq(ooo, 0, "(%s: out-of-order PSNs at B's host port)" % tag)
    t.eq(la["cw_packets"], len(frames), "(%s: A stamped every data packet)" % tag)
    t.eq(lb["reorder_overflow"], 0, "(%s: B's reorder overflows)" % tag)
    t.eq(lb["reorder_queues_in_use"], 0, "(%s: reorder queues held at exit)" % tag)
    t.eq(la["tails"], lb["tails_rx"], "(%s: TAILs sent = seen)" % tag)
    t.eq(la["rtt_requests"], lb["rtt_requests_rx"], "(%s: RTT_REQUESTs)" % tag)
    t.eq(lb["rtt_replies"], la["rtt_replies_rx"], "(%s: RTT_REPLYs)" % tag)
    t.eq(lb["clears"], la["clears_rx"], "(%s: CLEARs)" % tag)
    t.eq(lb["notifies"], la["notifies_rx"], "(%s: NOTIFYs)" % tag)
    t.eq(b.stats["originated"], a.stats["consumed"], "(%s: control packets consumed)" % tag)


def spray(t, frames, us, us_a=None):
    tag = "sp%d" % us
    r = pair(t, "spray", frames, us if us_a is None else us_a, us, SF.LINKS, SF.SPRAY, "stsp")
    if r is None:
        return
    a, b = r
    n = len(frames)
    la, lb = a.stats["lb"], b.stats["lb"]
    print("%s: in order %d, held %d, released %d, timeouts %d, late %d, longest hold %d ns" % (
        tag, lb["spray_in_order"], lb["spray_held"], lb["released_in_order"],
        lb["gap_timeouts"], lb["late"], lb["spray_hold_max_ns"]))
    t.eq(la["sprayed"], n, "(%s: A stamped every packet)" % tag)
    t.eq(lb["spray_rx"], n, "(%s: B received every packet stamped)" % tag)
    ooo = TF.check_delivery(t, frames, b.outputs[0], tag)
    t.eq(ooo, 0, "(%s: out-of-order PSNs at B's host port)" % tag)
    t.eq(lb["spray_in_order"] + lb["released_in_order"], n,
         "(%s: each delivered in its turn)" % tag)
    t.eq(lb["gap_timeouts"], 0, "(%s: gap timeouts)" % tag)
    t.eq(lb["late"], 0, "(%s: late packets)" % tag)
    t.eq(lb["window_overflow"], 0, "(%s: window overflows)" % tag)


def caver(t, us):
    mode = "caver/ecmp spine, stalls of %d us" % us
    data, acks, _ = LS.caver_traffic()
    cv = "caver: " + fabric._yaml({"dre_period_us": 1000, "aging_us": 50000,
                                   "flow_idle_us": 20000}) + "\n" + faults(us)
    cfg = {"hosta": leafspine.host_config("a", 0.5), "hostb": leafspine.host_config("b", 0.04),
           "tora": leafspine.tor_config("a", "caver", qos={"queue_kb": 8192}, sections=cv),
           "torb": leafspine.tor_config("b", "caver", host_routes=LS.HOSTS_B,
                                        qos={"queue_kb": 8192}, sections=cv),
           "spine": leafspine.spine_config("ecmp", links=({}, {}, {}, {"shape_gbps": 0.2}),
                                           qos={"queue_kb": 16384}, sections=faults(us))}
    # Longer idle exits than pkt-leafspine's (the same order): a stalled
    # spine or ToR is silent for a while.
    res = leafspine.run(cfg, data, acks, tag="stcv",
                        idle_ms={"hosta": 3000, "hostb": 3000, "tora": 4000, "torb": 4000,
                                 "spine": 5000})
    LS.check_common(t, res, data, acks, mode)
    for n in ("tora", "spine", "torb"):
        s = res[n].stats
        if s is not None:
            t.check(s["fault_stalls"] > 0, "%s: %s never stalled" % (mode, n))
    if res["tora"].stats is not None:
        a = res["tora"].stats["lb"]
        print("%s: tora stalls %d, re-placements %d, flows by table %d, by ECMP %d" % (
            mode, res["tora"].stats["fault_stalls"], a["reroutes"], a["caver_flows_table"],
            a["caver_flows_ecmp"]))


def main():
    t = harness.Checker("pkt-stall")
    t0 = time.time()
    only = os.environ.get("ROCETOR_STALL_ONLY", "conweave,spray,caver").split(",")
    cw_frames = TF.make_flows()
    sp_frames = SF.elephant()
    for us in STALLS:
        if "conweave" in only:
            conweave(t, cw_frames, us)
        if "spray" in only:
            spray(t, sp_frames, us)
        if "caver" in only:
            caver(t, us)
    print("total %.1f s" % (time.time() - t0))
    return t.done()


if __name__ == "__main__":
    sys.exit(main())

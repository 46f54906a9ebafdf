#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The rocetor authors
"""lb: spray end to end through two switches (doc/spray.md): ToR A and ToR B
(two rocetor processes) joined by four memif links of unequal delays (0, 20,
60 and 150 us on A's side, tests/pkt/fabric.py).

1. One elephant RC flow from a host behind A to a host behind B: A sprays
   it over every uplink (each link within 10% of a quarter), B restores the
   order: every packet reaches B's host port exactly once, in PSN order,
   rewritten for its last hop, with a valid ICRC; nothing is held at the
   end; accounting is exact on both switches.
2. The same with random loss on one link: the lost packets' gaps are given
   up on at the deadline (gap_timeouts), the numbers skipped are exactly
   the packets lost, everything else arrives once and in PSN order.
3. Case 1 with B on a shared buffer (qos.buffer.mode shared, doc/egress.md
   "Released packets and the queue limit"): B's held packets count in its
   pool while held (rtr_egress_hold through the pipeline's io.hold) and are
   handed to the egress without being counted twice: delivery as in case 1,
   the pool's peak at least one packet, and nothing in use at exit.
"""
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
import fabric  # noqa: E402
import harness  # noqa: E402
import roce  # noqa: E402
import test_fabric as TF  # noqa: E402

PKTS = 2000
# A fixed deadline far above what the lab's paths differ by (150 us of delay
# plus the scheduling of two processes on two cores), and windows wide
# enough for the whole flow: in a lossless run nothing may time out.
SPRAY = "spray: {window_slots: 4096, windows_per_worker: 16, timeout_us: 20000}\n"
LINKS = ({"delay_us": 0}, {"delay_us": 20}, {"delay_us": 60}, {"delay_us": 150})


def elephant():
    """One RC WRITE flow (16 KiB messages at MTU 1024), PSNs from 0."""
    return roce.generate("--flows", 1, "--packets", PKTS, "--op", "write", "--size", 16384,
                         "--seed", 1, "--src-mac", fabric.HOST_MAC["a"],
                         "--dst-mac", fabric.MACS["a"][0])


def run(t, frames, links, tag, extra_b=""):
    a, b = fabric.run_pair(fabric.tor_config("a", lb="spray", links=links, extra=SPRAY),
                           fabric.tor_config("b", lb="spray", links=({},) * 4,
                                             extra=SPRAY + extra_b),
                           frames, lb="spray", tag=tag)
    return (a, b) if fabric.check_pair(t, a, b, tag) else None


def test_lossless(t, frames):
    r = run(t, frames, LINKS, "spf")
    if r is None:
        return
    a, b = r
    n = len(frames)
    la, lb = a.stats["lb"], b.stats["lb"]
    paths = a.stats["paths"][0]["tx_packets"]
    print("spray: A's paths %s; B: in order %d, held %d, released %d, timeouts %d, "
          "overflow %d, late %d, windows max %d, longest hold %d ns" %
          (paths, lb["spray_in_order"], lb["spray_held"], lb["released_in_order"],
           lb["gap_timeouts"], lb["window_overflow"], lb["late"], lb["windows_max"],
           lb["spray_hold_max_ns"]))
    t.eq(sum(paths), n, "(A's path counters)")
    for i, x in enumerate(paths):
        t.check(abs(x - n / 4) <= n / 40, "path %d carried %d of %d" % (i, x, n))
    t.eq(la["sprayed"], n, "(A stamped every packet)")
    t.eq(lb["spray_rx"], n, "(B received every packet stamped)")
    t.eq(a.stats["dropped"] + b.stats["dropped"], 0, "(drops)")
    ooo = TF.check_delivery(t, frames, b.outputs[0], "spray")
    t.eq(ooo, 0, "(out-of-order PSNs at B's host port)")
    t.eq(lb["spray_in_order"] + lb["released_in_order"], n, "(each delivered in its turn)")
    t.eq(lb["gap_timeouts"], 0)
    t.eq(lb["window_overflow"], 0)
    t.eq(lb["late"], 0)
    t.check(lb["spray_held"] > 0, "B held nothing: the paths did not reorder")


def test_loss(t, frames):
    links = list(LINKS)
    links[1] = dict(links[1], loss=0.01, loss_seed=7)
    r = run(t, frames, tuple(links), "spl")
    if r is None:
        return
    a, b = r
    out = b.outputs[0]
    lost = a.stats["drops"].get("impair_loss", 0)
    lb = b.stats["lb"]
    print("spray with loss: %d lost on link 2; B: timeouts %d, skipped %d, late %d, held %d"
          % (lost, lb["gap_timeouts"], lb["gap_skipped"], lb["late"], lb["spray_held"]))
    t.check(lost > 0, "the lossy link lost nothing: no gap to test")
    t.eq(len(out), len(frames) - lost, "(everything not lost delivered)")
    sent = {TF.content_key(f) for f in frames}
    got = [TF.content_key(f) for f in out]
    t.eq(len(set(got)), len(got), "(nothing delivered twice)")
    t.check(set(got) <= sent, "frames at B's host that A's host did not send")
    psns = [roce.bth_fields(f)["psn"] for f in out]
    t.check(all(x < y for x, y in zip(psns, psns[1:])), "PSNs at B's host not increasing")
    t.eq(sum(not roce.icrc_ok(f) for f in out), 0, "(bad ICRCs)")
    t.check(lb["gap_timeouts"] >= 1, "no gap timed out")
    t.eq(lb["gap_skipped"], lost, "(the numbers skipped are the packets lost)")
    t.eq(lb["late"], 0)
    t.eq(lb["window_overflow"], 0)
    t.check(lb["spray_hold_max_ns"] >= 20000 * 1000,
            "a gap's packets waited the deadline: %d ns" % lb["spray_hold_max_ns"])


def test_shared(t, frames):
    r = run(t, frames, LINKS, "sps", "qos: {buffer: {mode: shared, size_kb: 4096}}\n")
    if r is None:
        return
    a, b = r
    lb, buf = b.stats["lb"], b.stats["buffer"]
    print("spray on a shared buffer: B held %d, released %d; pool peak %d B, in use at exit %d B"
          % (lb["spray_held"], lb["released_in_order"], buf["peak_bytes"], buf["used_bytes"]))
    t.eq(buf["mode"], "shared")
    t.eq(a.stats["dropped"] + b.stats["dropped"], 0, "(drops)")
    t.eq(TF.check_delivery(t, frames, b.outputs[0], "spray shared"), 0,
         "(out-of-order PSNs at B's host port)")
    t.eq(lb["spray_in_order"] + lb["released_in_order"], len(frames), "(each delivered in its turn)")
    t.check(lb["spray_held"] > 0, "B held nothing: the paths did not reorder")
    t.check(buf["peak_bytes"] >= 1000, "B's pool never counted a packet: %d" % buf["peak_bytes"])
    t.eq(buf["used_bytes"], 0, "(B's pool in use at exit)")


def main():
    t = harness.Checker("pkt-spray-fabric")
    t0 = time.time()
    frames = elephant()
    t.eq(len(frames), PKTS, "(generated)")
    test_lossless(t, frames)
    test_loss(t, frames)
    test_shared(t, frames)
    print("total %.1f s" % (time.time() - t0))
    return t.done()


if __name__ == "__main__":
    sys.exit(main())

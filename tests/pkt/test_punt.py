#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The rocetor authors
"""A flood of frames for the control plane (issue 20): pktgen replaying a
real capture sent ARP/ND at ~110 kpps into one lcore, and 21,639 of them
were lost as control_ring_full. Here net_pcap replays 20,000 ARP requests
for the switch's address as fast as it can (far above the punt rate
limit) on one lcore and then on two workers. The punt ring must never be
full; what exceeds a worker's punt rate is counted as punt_rate_limited;
everything else is answered, one ARP reply per request taken; accounting
stays exact. Forwarded traffic in the same replay is untouched."""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
import harness  # noqa: E402
import test_forward as F  # noqa: E402
from scapy.all import ARP, Ether, raw  # noqa: E402

N_ARP = 20000
N_ROCE = 2000


def arp_request(i):
    # 250 senders, so the neighbour table sees many hosts (as a capture does).
    return raw(Ether(src="02:00:00:01:%02x:%02x" % (i // 250 % 256, i % 250),
                     dst="ff:ff:ff:ff:ff:ff")
               / ARP(op=1, hwsrc="02:00:00:01:%02x:%02x" % (i // 250 % 256, i % 250),
                     psrc="10.1.%d.%d" % (1 + i % 250 // 250, 1 + i % 250),
                     pdst="10.1.0.254"))


def check_run(t, res, what):
    if not t.check(res.rc == 0 and res.stats, "%s: rocetor failed: %s" % (what, res.stderr[-2000:])):
        return
    s = res.stats
    ok, why = harness.accounted(s)
    t.check(ok, "%s: accounting: %s" % (what, why))
    t.eq(s["drops"]["control_ring_full"], 0, "(%s: control_ring_full)" % what)
    limited = s["drops"].get("punt_rate_limited")
    t.check(limited is not None, "%s: no punt_rate_limited counter" % what)
    limited = limited or 0
    t.check(limited > 0, "%s: a flood above the punt rate must be limited (got 0)" % what)
    t.eq(s["consumed"] + limited, N_ARP, "(%s: every ARP request consumed or rate-limited)" % what)
    # At least one full bucket (RTR_PUNT_BURST, 128) per worker: net_pcap
    # replays the 22,000 frames in a few milliseconds, so the refill at
    # 50,000/s adds little.
    t.check(s["consumed"] >= 128, "%s: only %d ARP requests answered" % (what, s["consumed"]))
    replies = [Ether(f) for f in res.outputs[0] if ARP in Ether(f)]
    t.eq(len(replies), s["consumed"], "(%s: one ARP reply per request taken)" % what)
    t.check(all(r[ARP].op == 2 and r[ARP].psrc == "10.1.0.254" for r in replies),
            "%s: replies are ARP replies from 10.1.0.254" % what)
    t.eq(s["forwarded"], N_ROCE, "(%s: RoCE frames forwarded)" % what)


def main():
    t = harness.Checker("pkt-punt")
    roce = [raw(F.roce(sport=40000 + i % 64, psn=i)) for i in range(N_ROCE)]
    arps = [arp_request(i) for i in range(N_ARP)]
    # The RoCE frames first, then the flood, so both reach the worker.
    frames = roce + arps
    res = harness.run(F.CONFIG, [frames, [], [], [], []], tag="punt1", idle_ms=800)
    check_run(t, res, "one lcore")
    cfg = F.CONFIG.replace("switch: {name: fwd, id: 7, lb: ecmp}",
                           "switch: {name: punt, id: 7, lb: ecmp, idle_sleep_us: 100, "
                           "idle_threshold: 64}")
    res = harness.run(cfg, [frames, [], [], [], []], tag="punt2", lcores="0@0,1@1,2@1",
                      queues=2, idle_ms=800)
    check_run(t, res, "two workers")
    return t.done()


if __name__ == "__main__":
    sys.exit(main())

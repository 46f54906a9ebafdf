#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The rocetor authors
"""Multi-lcore: the main lcore runs the control plane and two workers
forward, each with its own TX queue on every port (2 RX/TX queue pairs per
net_pcap port). Every packet forwarded exactly once, each flow on one path,
ARP still answered through the inject ring, accounting exact. Run with the
idle back-off so three lcores share this 2-core machine."""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
import harness  # noqa: E402
import test_forward as F  # noqa: E402
from scapy.all import ARP, Ether, raw  # noqa: E402


def main():
    t = harness.Checker("pkt-multicore")
    cfg = F.CONFIG.replace("switch: {name: fwd, id: 7, lb: ecmp}",
                           "switch: {name: mc, id: 7, lb: ecmp, idle_sleep_us: 100, "
                           "idle_threshold: 64}")
    frames = [raw(F.roce(sport=40000 + i % 64, psn=i)) for i in range(2000)]
    frames.append(raw(Ether(src=F.SENDER, dst="ff:ff:ff:ff:ff:ff")
                      / ARP(op=1, hwsrc=F.SENDER, psrc="10.1.0.1", pdst="10.1.0.254")))
    res = harness.run(cfg, [frames, [], [], [], []], tag="mc", lcores="0@0,1@1,2@1", queues=2,
                      idle_ms=800)
    if not t.check(res.rc == 0 and res.stats, "rocetor failed: %s" % res.stderr[-2000:]):
        return t.done()
    t.check("2 workers" in res.stdout, "expected 2 workers: " + res.stdout[:400])
    s = res.stats
    t.eq(s["forwarded"], 2000)
    t.eq(s["consumed"], 1)
    ok, why = harness.accounted(s)
    t.check(ok, "accounting: " + why)
    out = {}
    for port in (1, 2, 3, 4):
        for f in res.outputs[port]:
            p = Ether(f)
            if p.haslayer("BTH"):
                out.setdefault(p.sport, set()).add(port)
    t.eq(sum(1 for p in (1, 2, 3, 4) for f in res.outputs[p] if ARP not in Ether(f)), 2000,
         "(RoCE frames out)")
    t.check(all(len(v) == 1 for v in out.values()), "flow split over paths")
    t.eq(len(out), 64, "(flows seen)")
    arp = [Ether(f) for f in res.outputs[0] if ARP in Ether(f)]
    t.eq(len(arp), 1, "(ARP reply through the inject ring)")

    # --main-forwards: two lcores, both forwarding (the main lcore is worker
    # 0 and runs the control plane). ConWeave keeps per-flow state, so half
    # the RoCE packets are handed to their owner in ring bursts; every
    # packet still forwarded once, per-flow order kept, ARP answered.
    cw_cfg = cfg.replace("lb: ecmp", "lb: conweave")
    res = harness.run(cw_cfg, [frames, [], [], [], []], tag="mcmf", lcores="0,1",
                      queues=2, idle_ms=800, args=["--main-forwards"])
    if not t.check(res.rc == 0 and res.stats, "rocetor --main-forwards failed: %s"
                   % res.stderr[-2000:]):
        return t.done()
    t.check("2 workers (main lcore forwards)" in res.stdout,
            "expected 2 workers with the main lcore: " + res.stdout[:400])
    s = res.stats
    t.eq(s["forwarded"], 2000, "(--main-forwards forwarded)")
    t.eq(s["consumed"], 1, "(--main-forwards consumed)")
    t.check(s["handoff_tx"] > 0 and s["handoff_tx"] == s["handoff_rx"],
            "hand-off: tx %d rx %d" % (s["handoff_tx"], s["handoff_rx"]))
    ok, why = harness.accounted(s)
    t.check(ok, "accounting (--main-forwards): " + why)
    psns = {}
    for port in (1, 2, 3, 4):
        for f in res.outputs[port]:
            p = Ether(f)
            if p.haslayer("BTH"):
                psns.setdefault((p.sport, port), []).append(p["BTH"].psn)
    t.eq(sum(len(v) for v in psns.values()), 2000, "(--main-forwards RoCE frames out)")
    # A flow's packets arrive on one RX queue (flow parity = frame parity)
    # and one worker (the owner) sends them all; ConWeave may move a flow
    # between paths (reordering across paths is the DstToR's job), so the
    # order is checked per flow and path.
    t.check(all(v == sorted(v) for v in psns.values()), "per-flow order kept on each path")
    arp = [Ether(f) for f in res.outputs[0] if ARP in Ether(f)]
    t.eq(len(arp), 1, "(--main-forwards: ARP reply)")
    return t.done()


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The rocetor authors
"""A port that is down leaves every uplink group: ports[].admin_down on one
of four uplinks. The down port sends nothing, the route to a single next hop
behind it drops as port_down, and the same traffic with all four up uses all
four (so the test can fail). The group is resilient (ALGORITHMS.md 1): every
flow that the all-up run sent to a live uplink keeps that uplink, and only
the flows of the down port move, spread over the three live ones."""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
import harness  # noqa: E402
import test_forward as F  # noqa: E402
from scapy.all import Ether, raw  # noqa: E402


def paths_used(res):
    out = {}
    for port in (1, 2, 3, 4):
        for f in res.outputs[port]:
            p = Ether(f)
            if p.haslayer("BTH"):
                out.setdefault(p.sport, set()).add(port)
    return out


def main():
    t = harness.Checker("pkt-linkdown")
    frames = [raw(F.roce(sport=40000 + i % 256, psn=i)) for i in range(2048)]
    behind = [raw(F.roce(dst="10.9.0.7", sport=5000 + i, psn=i)) for i in range(10)]

    up = harness.run(F.CONFIG, [frames + behind, [], [], [], []], tag="ldup")
    if not t.check(up.rc == 0 and up.stats, "rocetor failed: %s" % up.stderr[-2000:]):
        return t.done()
    used = paths_used(up)
    t.eq(set().union(*used.values()), {1, 2, 3, 4}, "(all four paths used when up)")
    t.check(all(len(v) == 1 for v in used.values()), "a flow on two paths (all up)")
    home = {k: min(v) for k, v in used.items()}
    ok, why = harness.accounted(up.stats)
    t.check(ok, "accounting (all up): " + why)

    cfg = F.CONFIG.replace('{port: 2, role: fabric,', '{port: 2, role: fabric, admin_down: true,')
    cfg = cfg.replace('{prefix: "10.9.0.0/16", port: 1,', '{prefix: "10.9.0.0/16", port: 2,')
    t.check(cfg != F.CONFIG and "admin_down: true" in cfg, "config edit")
    res = harness.run(cfg, [frames + behind, [], [], [], []], tag="lddown")
    if not t.check(res.rc == 0 and res.stats, "rocetor failed: %s" % res.stderr[-2000:]):
        return t.done()
    s = res.stats
    t.eq(res.port(2)["link_up"], False, "(admin_down port reported down)")
    t.eq(res.port(2)["tx_packets"], 0, "(nothing sent on the down port)")
    t.eq(len(res.outputs[2]), 0)
    used = paths_used(res)
    t.eq(set().union(*used.values()), {1, 3, 4}, "(only live paths)")
    t.check(all(len(v) == 1 for v in used.values()), "a flow on two paths")
    t.eq(len(used), 256, "(flows seen)")
    t.eq(s["forwarded"], 2048)
    t.eq(s["drops"]["port_down"], 10, "(single next hop behind the down port)")
    # Resilience: flows of live uplinks stay; those of port 2 spread.
    now = {k: min(v) for k, v in used.items()}
    kept = [k for k in home if home[k] != 2]
    moved = [k for k in kept if now.get(k) != home[k]]
    spread = {p: sum(1 for k in home if home[k] == 2 and now.get(k) == p) for p in (1, 3, 4)}
    print("linkdown: port 2 down: %d of %d flows on live uplinks moved; its %d flows went "
          "to %s" % (len(moved), len(kept), len(home) - len(kept), spread))
    t.eq(len(moved), 0, "(flows on live uplinks that moved when port 2 went down)")
    t.check(len(home) - len(kept) >= 30, "too few flows on port 2 to judge: %d"
            % (len(home) - len(kept)))
    t.check(min(spread.values()) >= (len(home) - len(kept)) / 3 * 0.4,
            "port 2's flows unevenly spread: %s" % spread)
    counts = [sum(1 for f in res.outputs[p]) for p in (1, 3, 4)]
    t.check(min(counts) > 2048 / 3 * 0.6, "live paths unevenly loaded: %s" % counts)
    ok, why = harness.accounted(s)
    t.check(ok, "accounting: " + why)
    return t.done()


if __name__ == "__main__":
    sys.exit(main())

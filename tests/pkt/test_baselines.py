#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The rocetor authors
"""lb: letflow and lb: drill (the ConWeave paper's baselines, ALGORITHMS.md
7; doc/letflow.md, doc/drill.md) on one ToR with net_pcap ports: port 0
faces the hosts (10.1.0.0/24), ports 1..4 are the uplinks of one group
(10.2.0.0/16). The host sends 16 RC WRITE flows toward the group; the
fabric (port 1) sends 4 flows toward the host.

Every run: rocetor exits 0, every packet is accounted for exactly
(harness.accounted), every frame the host sent leaves by exactly one uplink
and every frame from the fabric reaches the host, each unchanged but for
the MACs, TTL and IP checksum, with a valid ICRC (scapy's verdict).

1. letflow, flowlet_gap_us 1 s (no flow pauses that long here): each flow
   keeps one uplink (one flowlet each: letflow_flowlets = 16, no path
   changes), the flows spread over more than one uplink.
2. drill, DRILL(2,1), every queue empty (pcap ports take every frame):
   the packets of the flows spread over the four uplinks (each within a
   quarter of a quarter of its share), flows are split between uplinks
   (drill_port_changes), drill_picks = the host's frames.
3. drill with uplink 4 shaped to 0.02 Gb/s: its queue holds the frames the
   shaper has not sent yet, and DRILL, comparing two distinct samples,
   sends there only while that queue is empty: uplink 4 carries less than
   a tenth, and nothing is lost (the shaped queue drains at exit).
4. On a spine (switch.role spine, every port fabric, the same group): drill
   runs there too (ALGORITHMS.md 7: every switch with equal-cost uplinks),
   placing every frame from port 0; letflow is a ToR's, so the spine routes
   by ECMP under its name (ecmp_packets, each flow on one uplink, no
   letflow counter moves).
"""
import collections
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
import harness  # noqa: E402
import roce  # noqa: E402

SW_MAC = ["02:00:00:00:01:%02x" % i for i in range(5)]
HOST_MAC = "02:00:00:00:aa:01"
SPINE_MAC = ["02:00:00:00:bb:%02x" % i for i in range(1, 5)]
FLOWS, PKTS = 16, 200
FAB_FLOWS, FAB_PKTS = 4, 50


def config(lb, extra="", shape4=None):
    ports = '  - {port: 0, role: host, mac: "%s"}\n' % SW_MAC[0]
    for i in range(1, 5):
        shape = ", shape_gbps: %s" % shape4 if (i == 4 and shape4) else ""
        ports += '  - {port: %d, role: fabric, mac: "%s"%s}\n' % (i, SW_MAC[i], shape)
    return ("switch: {name: base, id: 5, lb: %s}\nports:\n" % lb + ports +
            "routes:\n"
            '  - {prefix: "10.1.0.0/24", port: 0, nexthop_mac: "%s"}\n' % HOST_MAC +
            '  - prefix: "10.2.0.0/16"\n    paths:\n' +
            "".join('      - {port: %d, nexthop_mac: "%s"}\n' % (i + 1, SPINE_MAC[i])
                    for i in range(4)) + extra)


def flow_of(f):
    """(src IP, dst IP, UDP source port) of a RoCEv2 frame."""
    l3, l4, _ = roce.offsets(f)
    return (bytes(f[l3 + 12:l3 + 16]), bytes(f[l3 + 16:l3 + 20]), bytes(f[l4:l4 + 2]))


def content_key(f):
    """What no switch may change: IP addresses and the UDP datagram (BTH,
    payload, ICRC) up to the IP total length."""
    l3, l4, _ = roce.offsets(f)
    tot = (f[l3 + 2] << 8) | f[l3 + 3]
    return bytes(f[l3 + 12:l3 + 20]) + bytes(f[l4:l3 + tot])


def frames():
    host = roce.generate("--flows", FLOWS, "--packets", PKTS, "--op", "write", "--size", 16384,
                         "--seed", 3, "--src-net", "10.1.0.0/24", "--dst-net", "10.2.0.0/24",
                         "--src-mac", HOST_MAC, "--dst-mac", SW_MAC[0])
    fab = roce.generate("--flows", FAB_FLOWS, "--packets", FAB_PKTS, "--op", "write", "--size",
                        4096, "--seed", 4, "--src-net", "10.2.0.0/24", "--dst-net",
                        "10.1.0.0/24", "--src-mac", SPINE_MAC[0], "--dst-mac", SW_MAC[1])
    return host, fab


def run(t, name, cfg, host, fab):
    """Run one switch; the common checks; returns (stats, {flow: [uplinks
    of its frames in order]}, frames per uplink) or None."""
    r = harness.run(cfg, [host, fab, [], [], []], tag="bl" + name[:3], idle_ms=600)
    if not t.check(r.rc == 0 and r.stats is not None,
                   "%s: rocetor exited %d: %s" % (name, r.rc, r.stderr[-2000:])):
        return None
    ok, why = harness.accounted(r.stats)
    t.check(ok, "%s: accounting: %s" % (name, why))
    t.eq(r.stats["dropped"], 0, "(%s: drops %r)" % (name, {k: v for k, v in
                                                          r.stats["drops"].items() if v}))
    t.eq(r.stats["forwarded"], len(host) + len(fab), "(%s: forwarded)" % name)
    # The host's frames: each left by exactly one uplink, unchanged.
    sent = collections.Counter(content_key(f) for f in host)
    got = collections.Counter()
    paths = collections.defaultdict(list)
    per_port = []
    bad_icrc = 0
    for p in range(1, 5):
        out = [bytes(f) for f in r.outputs[p]]
        per_port.append(len(out))
        for f in out:
            got[content_key(f)] += 1
            paths[flow_of(f)].append(p)
            bad_icrc += not roce.icrc_ok(f)
            t.check(f[0:6] == bytes.fromhex(SPINE_MAC[p - 1].replace(":", "")),
                    "%s: frame on uplink %d not to its next hop" % (name, p)) or None
    t.eq(got, sent, "(%s: every host frame once on the uplinks)" % name)
    t.eq(bad_icrc, 0, "(%s: bad ICRCs on the uplinks)" % name)
    t.eq(len(r.outputs[0]), len(fab), "(%s: frames at the host)" % name)
    at_host = [bytes(f) for f in r.outputs[0]]
    t.eq(collections.Counter(content_key(f) for f in at_host),
         collections.Counter(content_key(f) for f in fab), "(%s: the fabric's frames)" % name)
    t.eq(sum(not roce.icrc_ok(f) for f in at_host), 0, "(%s: bad ICRCs at the host)" % name)
    t.check(all(f[0:6] == bytes.fromhex(HOST_MAC.replace(":", "")) for f in at_host),
            "%s: frames at the host not to its MAC" % name)
    print("%s: uplinks %s; lb %s" % (name, per_port, {k: v for k, v in r.stats["lb"].items()
                                                      if v}))
    return r.stats, paths, per_port


def test_letflow(t, host, fab):
    r = run(t, "letflow", config("letflow", "letflow: {flowlet_gap_us: 1000000}\n"), host, fab)
    if r is None:
        return
    st, paths, per_port = r
    lb = st["lb"]
    t.eq(len(paths), FLOWS, "(flows seen on the uplinks)")
    for fl, ps in paths.items():
        t.eq(len(set(ps)), 1, "(a flow's frames on one uplink: %r)" % collections.Counter(ps))
    t.check(sum(1 for n in per_port if n) > 1, "every flow on one uplink %r" % per_port)
    t.eq(lb["letflow_flowlets"], FLOWS, "(one flowlet per flow)")
    t.eq(lb["letflow_packets"], len(host), "(letflow placed every host frame)")
    t.eq(lb["letflow_path_changes"], 0)
    t.eq(lb["reroutes"], 0)
    t.eq(lb["flow_table_full"], 0)


def test_drill(t, host, fab):
    r = run(t, "drill", config("drill"), host, fab)
    if r is None:
        return
    st, paths, per_port = r
    lb = st["lb"]
    n = len(host)
    for p, k in enumerate(per_port):
        t.check(abs(k - n / 4) <= n / 16, "uplink %d carried %d of %d" % (p + 1, k, n))
    split = sum(1 for ps in paths.values() if len(set(ps)) > 1)
    t.eq(split, FLOWS, "(flows split between uplinks)")
    t.eq(lb["drill_picks"], n, "(DRILL placed every host frame)")
    t.check(lb["drill_port_changes"] > n / 2, "port changes %d of %d" %
            (lb["drill_port_changes"], n))
    t.eq(lb["ecmp_packets"], 0)


def test_drill_queue(t, host, fab):
    r = run(t, "drillq", config("drill", shape4="0.02"), host, fab)
    if r is None:
        return
    st, paths, per_port = r
    n = len(host)
    t.check(per_port[3] < n / 10, "the shaped uplink 4 carried %d of %d" % (per_port[3], n))
    for p in range(3):
        t.check(per_port[p] > n / 4, "uplink %d carried %d of %d" % (p + 1, per_port[p], n))
    t.eq(st["lb"]["drill_picks"], n)


def spine_config(lb):
    ports = "".join('  - {port: %d, role: fabric, mac: "%s"}\n' % (i, SW_MAC[i])
                    for i in range(5))
    return ("switch: {name: spine, id: 9, role: spine, lb: %s}\nports:\n" % lb + ports +
            "routes:\n"
            '  - {prefix: "10.1.0.0/24", port: 0, nexthop_mac: "%s"}\n' % HOST_MAC +
            '  - prefix: "10.2.0.0/16"\n    paths:\n' +
            "".join('      - {port: %d, nexthop_mac: "%s"}\n' % (i + 1, SPINE_MAC[i])
                    for i in range(4)))


def test_spine(t, host):
    for lb in ("drill", "letflow"):
        r = harness.run(spine_config(lb), [host, [], [], [], []], tag="bls" + lb[:3],
                        idle_ms=600)
        if not t.check(r.rc == 0 and r.stats is not None,
                       "spine %s: rocetor exited %d: %s" % (lb, r.rc, r.stderr[-2000:])):
            continue
        ok, why = harness.accounted(r.stats)
        t.check(ok, "spine %s: accounting: %s" % (lb, why))
        lbc = r.stats["lb"]
        per_port = [len(r.outputs[p]) for p in range(1, 5)]
        t.eq(sum(per_port), len(host), "(spine %s: every frame on an uplink)" % lb)
        paths = collections.defaultdict(set)
        for p in range(1, 5):
            for f in r.outputs[p]:
                paths[flow_of(bytes(f))].add(p)
        print("spine %s: uplinks %s; lb %s" % (lb, per_port,
                                               {k: v for k, v in lbc.items() if v}))
        if lb == "drill":
            t.eq(lbc["drill_picks"], len(host), "(spine: DRILL placed every frame)")
            t.eq(lbc["ecmp_packets"], 0)
            t.check(all(k > len(host) / 8 for k in per_port), "spine drill: %r" % per_port)
        else:
            t.eq(lbc["ecmp_packets"], len(host), "(spine letflow: ECMP)")
            t.eq(lbc["letflow_packets"] + lbc["letflow_flowlets"], 0)
            t.check(all(len(v) == 1 for v in paths.values()), "spine letflow: a flow split")


def main():
    t = harness.Checker("pkt-baselines")
    host, fab = frames()
    t.eq(len(host), FLOWS * PKTS, "(generated)")
    t.eq(len(fab), FAB_FLOWS * FAB_PKTS, "(generated)")
    test_letflow(t, host, fab)
    test_drill(t, host, fab)
    test_drill_queue(t, host, fab)
    test_spine(t, host)
    return t.done()


if __name__ == "__main__":
    sys.exit(main())

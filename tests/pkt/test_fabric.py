#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The rocetor authors
"""End to end through two switches: ToR A and ToR B (two rocetor processes)
joined by four memif links of different lengths (tests/pkt/fabric.py).
RoCE RC flows from a host behind A to hosts behind B: both exit 0, every
packet reaches B's host port exactly once, rewritten for its last hop, with
a valid ICRC; PSNs of each flow arrive in order (ECMP keeps a flow on one
path); accounting is exact on both switches; the flows spread over more
than one link and what A sent on each link is what B received on it.

The same scenario runs for lb conweave with checks on the LB counters; it
is skipped, saying so, while rocetor answers "not available in this build
yet" for conweave."""
import collections
import os
import struct
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
import fabric  # noqa: E402
import harness  # noqa: E402
import roce  # noqa: E402

N_FLOWS = 8
PKTS_PER_FLOW = 300


def make_flows():
    """N_FLOWS RC WRITE flows (16 KiB messages = 16 packets each at MTU
    1024), PSNs consecutive from 0, distinct UDP source ports, from
    10.1.0.x behind A to 10.2.0.x behind B, interleaved packet by packet."""
    for seed in range(1, 20):
        frames = roce.generate("--flows", N_FLOWS, "--packets", PKTS_PER_FLOW, "--op", "write",
                               "--size", 16384, "--seed", seed,
                               "--src-mac", fabric.HOST_MAC["a"], "--dst-mac", fabric.MACS["a"][0])
        if len({flow_of(f)[2] for f in frames}) == N_FLOWS:
            return frames
    raise RuntimeError("rocegen: no seed gave %d distinct source ports" % N_FLOWS)


def flow_of(f):
    """(src IP, dst IP, UDP source port, dest QP) of a RoCEv2 frame."""
    l3, l4, _ = roce.offsets(f)
    return (f[l3 + 12:l3 + 16], f[l3 + 16:l3 + 20], struct.unpack_from("!H", f, l4)[0],
            roce.bth_fields(f)["dqp"])


def content_key(f):
    """What no switch may change: IP addresses and the UDP datagram (BTH,
    extended headers, payload, ICRC) up to the IP total length."""
    l3, l4, _ = roce.offsets(f)
    end = l3 + struct.unpack_from("!H", f, l3 + 2)[0]
    return bytes(f[l3 + 12:l3 + 20]) + bytes(f[l4:end])


def out_of_order(frames):
    """Per flow, packets whose PSN is below one already delivered."""
    top, ooo = {}, collections.Counter()
    for f in frames:
        k, psn = flow_of(f), roce.bth_fields(f)["psn"]
        if k in top and psn < top[k]:
            ooo[k] += 1
        top[k] = max(top.get(k, -1), psn)
    return sum(ooo.values()), len(ooo)


def check_delivery(t, frames, out, lb):
    """Exactly once, last-hop rewrite, ICRC; returns the out-of-order count."""
    sent = collections.Counter(content_key(f) for f in frames)
    got = collections.Counter(content_key(f) for f in out)
    missing = sum((sent - got).values())
    extra = sum((got - sent).values())
    t.eq(len(out), len(frames), "(%s: frames at B's host port)" % lb)
    t.eq(missing, 0, "(%s: generated packets never delivered)" % lb)
    t.eq(extra, 0, "(%s: delivered packets not generated, or duplicated)" % lb)
    bad_l2 = bad_ttl = bad_csum = bad_icrc = 0
    dmac = roce.rocegen.mac_bytes(fabric.HOST_MAC["b"])
    smac = roce.rocegen.mac_bytes(fabric.MACS["b"][0])
    for f in out:
        l3, l4, _ = roce.offsets(f)
        bad_l2 += f[0:6] != dmac or f[6:12] != smac
        bad_ttl += f[l3 + 8] != 62                    # 64 - two hops
        hdr = bytearray(f[l3:l4])
        csum = struct.unpack_from("!H", hdr, 10)[0]
        hdr[10:12] = b"\0\0"
        bad_csum += csum != roce.rocegen.ipv4_csum(bytes(hdr))
        bad_icrc += not roce.icrc_ok(f)               # scapy's verdict
    t.eq(bad_l2, 0, "(%s: frames without B's host-port MACs)" % lb)
    t.eq(bad_ttl, 0, "(%s: frames whose TTL is not 64 - 2)" % lb)
    t.eq(bad_csum, 0, "(%s: bad IPv4 header checksums)" % lb)
    t.eq(bad_icrc, 0, "(%s: bad ICRCs)" % lb)
    ooo, flows_ooo = out_of_order(out)
    print("%s: %d packets delivered, %d out of order in %d flows"
          % (lb, len(out), ooo, flows_ooo))
    return ooo


def scenario(t, lb, frames, conweave=None):
    """Run the pair with LB mode lb; the checks every mode must pass.
    Returns (a, b) or None when the mode is not built yet (skipped)."""
    t0 = time.time()
    a, b = fabric.run_pair(fabric.tor_config("a", lb=lb, conweave=conweave),
                           fabric.tor_config("b", lb=lb, conweave=conweave),
                           frames, lb=lb, tag="fab" + lb[:2])
    why = fabric.not_available(a, b, lb) if lb != "ecmp" else None
    if why is not None:
        print("SKIP pkt-fabric %s scenario: rocetor says: %s" % (lb, why))
        return None
    print("%s: pair ran %.1f s (A %.2f s, B %.2f s; links up after A %s ms, B %s ms)"
          % (lb, time.time() - t0, a.elapsed_s or 0, b.elapsed_s or 0, a.links_up_ms,
             b.links_up_ms))
    ok = True
    for name, r in (("A", a), ("B", b)):
        ok &= t.check(r.rc == 0 and r.stats is not None and not r.timed_out,
                      "%s: ToR %s exit %s%s: %s" % (lb, name, r.rc,
                                                   " (timed out)" if r.timed_out else "",
                                                   r.stderr[-2000:]))
        t.check(r.links_up_ms is not None, "%s: ToR %s: links not all up: %s"
                % (lb, name, r.stderr[-500:]))
    if not ok:
        return None
    sa, sb = a.stats, b.stats
    n = len(frames)
    # "lb" is both the mode and the counters (doc/counters.md): json keeps
    # the counters, "lb_mode" has the mode.
    t.eq((sa["lb_mode"], sb["lb_mode"]), (lb, lb), "(LB mode in the stats)")
    for name, s in (("A", sa), ("B", sb)):
        good, why = harness.accounted(s)
        t.check(good, "%s: accounting on ToR %s: %s" % (lb, name, why))
        t.eq(s["dropped"], 0, "(%s: drops on ToR %s: %s)"
             % (lb, name, {k: v for k, v in s["drops"].items() if v}))
    t.eq(a.port(0)["rx_packets"], n, "(%s: A's host port received)" % lb)
    t.eq(a.port(0)["tx_packets"], len(a.outputs[0]), "(%s: A's host port TX = its pcap)" % lb)
    t.eq(b.port(0)["tx_packets"], n, "(%s: B's host port sent)" % lb)
    t.eq(len(b.outputs[0]), n, "(%s: B's host port pcap)" % lb)
    # The memif links lose nothing: what A sent on link i, B received on it.
    link_tx = [a.port(p)["tx_packets"] for p in range(1, fabric.N_LINKS + 1)]
    link_rx = [b.port(p)["rx_packets"] for p in range(1, fabric.N_LINKS + 1)]
    t.eq(link_tx, link_rx, "(%s: per link, A's TX vs B's RX)" % lb)
    paths = sa["paths"][0]["tx_packets"]
    t.eq(sum(paths), n, "(%s: A's uplink group path counters: %s)" % (lb, paths))
    used = sum(1 for x in paths if x)
    t.check(used > 1, "%s: all traffic on one link: %s" % (lb, paths))
    print("%s: per link A tx %s, B rx %s, paths %s (%d links used)"
          % (lb, link_tx, link_rx, paths, used))
    a.ooo = check_delivery(t, frames, b.outputs[0], lb)
    return a, b


def main():
    t = harness.Checker("pkt-fabric")
    t0 = time.time()
    frames = make_flows()
    t.eq(len(frames), N_FLOWS * PKTS_PER_FLOW, "(generated)")

    # ECMP: a flow stays on its path, so PSNs arrive in order.
    r = scenario(t, "ecmp", frames)
    if r is not None:
        a, b = r
        t.eq(a.ooo, 0, "(ecmp: out-of-order PSNs)")
        t.eq(a.stats["lb"]["ecmp_packets"], len(frames), "(ecmp: A's ecmp_packets)")

    # ConWeave: paths of 0/20/60/150 us and a 1 Gb/s bottleneck make replies
    # late, so flows send TAILs and reroute; B reorders behind the TAIL.
    r = scenario(t, "conweave", frames)
    if r is not None:
        a, b = r
        la, lb_ = a.stats["lb"], b.stats["lb"]
        both = {k: la.get(k, 0) + lb_.get(k, 0) for k in set(la) | set(lb_)}
        print("conweave: LB counters A %s" % {k: v for k, v in la.items() if v})
        print("conweave: LB counters B %s" % {k: v for k, v in lb_.items() if v})
        t.check(both["rtt_requests"] > 0, "conweave: no RTT_REQUEST counted")
        t.check(both["rtt_replies"] > 0, "conweave: no RTT_REPLY counted")
        t.check(both["tails"] > 0, "conweave: no TAIL although paths differ by 150 us")
        t.check(both["reroutes"] > 0, "conweave: no reroute")
        t.check(a.stats["consumed"] > 0, "conweave: A consumed no control packet")
        t.eq(lb_["reorder_overflow"], 0, "(conweave: B's reorder overflows)")
        t.eq(lb_["reorder_queues_in_use"], 0, "(conweave: B's reorder queues held at exit)")
        if lb_["reorder_flush_timeout"] == 0:
            t.eq(a.ooo, 0, "(conweave: out-of-order PSNs without any resume timeout)")
        else:
            print("conweave: %d resume timeouts on B: %d out-of-order PSNs not checked"
                  % (lb_["reorder_flush_timeout"], a.ooo))
    print("total %.1f s" % (time.time() - t0))
    return t.done()


if __name__ == "__main__":
    sys.exit(main())

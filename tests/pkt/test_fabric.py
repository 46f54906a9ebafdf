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

The same scenario runs for lb conweave: rerouting and reordering must
really happen (reroutes > 0 on A, packets held on B), B's host still sees
every flow in PSN order with no loss and valid ICRCs, and the two switches'
counters agree (TAILs, RTT requests/replies, CLEARs, NOTIFYs sent by one
side = seen by the other, since the fabric loses nothing)."""
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
# ConWeave thresholds for two software switches on one machine (ALGORITHMS.md
# 2.4 keys; the NS-3 defaults assume a hardware fabric's microsecond RTTs).
CW_LAB = {"base_rtt_us": 100, "theta_reply_us": 100, "theta_path_busy_us": 500,
          "theta_inactive_us": 30000, "resume_extra_us": 20000}


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

    # ConWeave: paths of 0/20/60/150 us and a 1 Gb/s bottleneck. A's host
    # port receives the flows at pcap speed, far above 1 Gb/s, so the
    # shaped link's queue grows to ~16 ms: its RTT_REPLYs come late, flows
    # send TAILs and reroute, and their phase-1 packets on fast links
    # overtake the TAIL, which B must hold back. The thresholds are sized
    # for this lab (doc/conweave.md, "Sizing the thresholds"): replies
    # within 200 us over memif, and resume_extra must cover how much the
    # bottleneck's queueing delay can grow while a flow is held.
    r = scenario(t, "conweave", frames, conweave=CW_LAB)
    if r is not None:
        a, b = r
        la, lb_ = a.stats["lb"], b.stats["lb"]
        print("conweave: LB counters A %s" % {k: v for k, v in la.items() if v})
        print("conweave: LB counters B %s" % {k: v for k, v in lb_.items() if v})
        ts = [x[0] for x in b.outputs_ts[0]]
        span = (max(ts) - min(ts)) if ts else 0.0
        print("conweave: %d reroutes in %.1f ms of traffic at B's host port (%.0f/s), "
              "%d packets held, longest hold %.3f ms, %d reorder queues at once"
              % (la["reroutes"], span * 1e3, la["reroutes"] / span if span else 0,
                 lb_["reorder_held"], lb_["reorder_hold_max_ns"] / 1e6,
                 lb_["reorder_queues_max"]))
        t.eq(la["cw_packets"], len(frames), "(conweave: A stamped every data packet)")
        t.check(la["rtt_requests"] > 0, "conweave: no RTT_REQUEST")
        t.check(la["reply_timeouts"] > 0 and la["tails"] > 0, "conweave: no TAIL")
        t.check(la["reroutes"] > 0, "conweave: no reroute")
        t.check(lb_["reorder_held"] > 0, "conweave: B held nothing: no overtaking happened")
        t.eq(a.ooo, 0, "(conweave: out-of-order PSNs at B's host port)")
        t.eq(lb_["reorder_overflow"], 0, "(conweave: B's reorder overflows)")
        t.eq(lb_["reorder_queues_in_use"], 0, "(conweave: B's reorder queues held at exit)")
        # The two switches agree: the fabric lost nothing (memif, no loss
        # configured), so what one side sent the other side saw.
        t.eq(la["tails"], lb_["tails_rx"], "(conweave: TAILs sent by A = seen by B + 0 lost)")
        t.eq(la["rtt_requests"], lb_["rtt_requests_rx"], "(conweave: RTT_REQUESTs)")
        t.eq(lb_["rtt_replies"], la["rtt_replies_rx"], "(conweave: RTT_REPLYs B -> A)")
        t.eq(lb_["clears"], la["clears_rx"], "(conweave: CLEARs B -> A)")
        t.eq(lb_["notifies"], la["notifies_rx"], "(conweave: NOTIFYs B -> A)")
        t.eq(b.stats["originated"], a.stats["consumed"],
             "(conweave: every control packet B built was consumed by A)")
        t.eq(la["ctrl_no_flow"], 0, "(conweave: control packets for unknown flows)")
        t.check(la["busy_paths"] == la["notifies_rx"], "conweave: each NOTIFY marks a path")
    print("total %.1f s" % (time.time() - t0))
    return t.done()


if __name__ == "__main__":
    sys.exit(main())

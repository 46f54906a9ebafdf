#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The rocetor authors
"""Whole rocetor-sim runs (doc/simulator.md): a 4 ToR x 4 spine x 8 host
fabric, AliStorage2019 at load 0.5 for 3 ms, per LB mode with the lossless
transport and ECMP with IRN. Each run must finish every flow it started,
account for every frame hosts sent (delivered or dropped and counted),
drop nothing when lossless, keep every link within its rate, give every
flow an FCT at least the store-and-forward lower bound computed here from
the topology, and acknowledge exactly the bytes the flows carried. The
switch ports' NICs (lib/nicmodel) hold at most 2 frames with the default
ring; with --nic-ring 1024, per mode (spray too), the ring holds the
backlog (more than 2 frames, longer waits than the default's) and every
flow still finishes with exact accounting; with the egress paced at the
link rate (--nic-ring-kb 32) a frame waits in that ring at most 32 KB and
a frame of wire time, less than unpaced. With two
slow uplinks every LB mode must beat ECMP's FCT slowdown. The same
seed gives the same fct.txt byte for byte, another seed another; bad options
exit 2 with one line. The load (issue 32): with --load-basis wire at core
load 0.8 (host 0.4) the host links carry 0.4 of their rate within 1% over
the measurement window, and with the default payload basis the wire bytes
per payload byte times that.

usage: test_sim_run.py ROCETOR_SIM
"""

import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
from rtrpy import checks  # noqa: E402

check = checks.check

SIM = sys.argv[1]
# The points of ../shared/data/workloads/AliStorage2019.txt, written into
# the run's directory so that the test needs nothing outside the tree.
ALI_CDF = """0 0
4000 22.93
8000 69.21
16000 80.61
32000 90.47
64000 93.53
128000 96.77
256000 97.53
2000000 100
"""
ALI = None
TORS, SPINES, HPT = 4, 4, 8
GBPS, DELAY_NS, WIRE = 100.0, 1000, 24
DUR_MS, LOAD = 3, 0.5
# Headers of a data frame: Ethernet 14, IPv4 20, UDP 8, BTH 12, ICRC 4.
HDR = 58



LEAFSPINE = ["--topo", "leafspine", "--tors", str(TORS), "--spines", str(SPINES),
             "--hosts-per-tor", str(HPT)]


def run(out, *extra, expect=0, topo=LEAFSPINE):
    args = [SIM] + topo + ["--link-gbps", str(int(GBPS)),
            "--link-delay-ns", str(DELAY_NS), "--workload", ALI, "--load", str(LOAD),
            "--duration-ms", str(DUR_MS), "--out", out, "--quiet"] + list(extra)
    p = subprocess.run(args, capture_output=True, text=True, timeout=300)
    check(p.returncode == expect, "%s: exit %d, expected %d: %s" %
          (" ".join(extra), p.returncode, expect, p.stderr.strip()))
    return p


def lower_bound(size, links, qps):
    """The least FCT our network allows: every frame serialized on the
    host link, the last one again on each later link, the propagation
    delays there and back, and an ACK of at least the headers back. With
    a message over several QPs (SeqBalance's Shaper) the last frame may
    be any size: count its headers only."""
    n = max(1, math.ceil(size / 1000))
    last = size - 1000 * (n - 1) if qps == 1 else 0
    ns_per_byte = 8 / GBPS
    t = (size + n * (HDR + WIRE)) * ns_per_byte
    t += (links - 1) * (last + HDR + WIRE) * ns_per_byte
    t += 2 * links * DELAY_NS + links * (HDR + WIRE) * ns_per_byte
    return t


def links_between(src, dst, k):
    """Links on a shortest path between hosts 10.(t+1).j.1: 2 under one
    ToR; leaf-spine 4; fat-tree 4 in one pod (k/2 edges each), else 6."""
    ts, td = int(src[1]) - 1, int(dst[1]) - 1
    if ts == td:
        return 2
    if k == 0 or ts // (k // 2) == td // (k // 2):
        return 4
    return 6


def check_run(name, out, lossless, mode_counter):
    s = json.load(open(os.path.join(out, "summary.json")))
    lines = open(os.path.join(out, "fct.txt")).read().splitlines()
    fl, fr, hs, pa = s["flows"], s["frames"], s["hosts"], s["params"]
    # The arrivals: host load = load / oversubscription, a flow every
    # 40,869.8 x 8 / (100 x host load) ns per host (2:1: 13,078.3 ns; 32
    # hosts for 3 ms: 7,340 flows, Poisson sd 86).
    host_load = LOAD / pa["oversubscription"]
    iat = 40869.8 * 8 / (GBPS * host_load)
    expect = pa["hosts"] * DUR_MS * 1e6 / iat
    check(abs(pa["host_load"] - host_load) < 1e-9 and abs(pa["mean_interarrival_ns"] - iat) < 0.1,
          "%s: host load %s, gap %s" % (name, pa["host_load"], pa["mean_interarrival_ns"]))
    check(abs(fl["started"] / expect - 1) < 0.05, "%s: %d flows started, %.0f expected" %
          (name, fl["started"], expect))
    check(fl["finished"] == fl["started"] and fl["unfinished"] == 0 and
          not fl["drain_limit_hit"] and fl["start_failed"] == 0, "%s: flows %s" % (name, fl))
    check(len(lines) == fl["finished"], "%s: %d lines for %d flows" % (name, len(lines), fl["finished"]))
    drops = sum(s["drops"].values())
    check(fr["switch_dropped"] + fr["egress_dropped"] == drops,
          "%s: drops by reason %s, counted %d + %d" % (name, s["drops"], fr["switch_dropped"],
                                                      fr["egress_dropped"]))
    # Every frame a host sent reached a host or was dropped and counted
    # (no switch in these runs sends frames to hosts but PFC, not counted
    # as delivered; switches' own control frames are consumed by switches
    # and, lossless, none is dropped).
    check(fr["host_sent"] == fr["delivered_to_hosts"] + drops,
          "%s: %d frames sent by hosts, %d delivered, %d dropped" %
          (name, fr["host_sent"], fr["delivered_to_hosts"], drops))
    check(fr["in_flight_at_end"] == 0, "%s: %d frames alive at the end" % (name, fr["in_flight_at_end"]))
    if lossless:
        check(drops == 0, "%s: lossless run dropped %s" % (name, s["drops"]))
        check(hs["data_sent"] == hs["data_rcvd"],
              "%s: data sent %d, received %d" % (name, hs["data_sent"], hs["data_rcvd"]))
    else:
        check(hs["data_sent"] - hs["data_rcvd"] <= drops,
              "%s: data sent %d, received %d, %d drops" % (name, hs["data_sent"], hs["data_rcvd"], drops))
    check(fr["tx_late"] == 0, "%s: tx_late %d" % (name, fr["tx_late"]))
    nic = s["nic"]
    ring = pa["nic_ring"]
    check(nic["ring"] == ring and 0 < nic["max_frames"] <= ring and
          nic["max_frames"] <= nic["max_desc"] <= ring and nic["sent"] > 0,
          "%s: nic %s" % (name, {k: v for k, v in nic.items() if k != "switches"}))
    check(len(nic["switches"]) == pa["switches"] and
          sum(v["sent"] for v in nic["switches"].values()) == nic["sent"],
          "%s: nic per switch %s" % (name, nic["switches"]))
    for cls, u in s["links"].items():
        if isinstance(u, dict):
            check(0 < u["util_max"] <= 1.0, "%s: %s utilisation %s" % (name, cls, u))
    # Host links carry the host load plus headers (8% at the mean size).
    hu = s["links"]["host_to_tor"]["util_mean"]
    check(0.8 * host_load < hu < 1.4 * host_load, "%s: host links at %.3f" % (name, hu))
    check(s["lb_counters"].get(mode_counter, 0) > 0,
          "%s: %s not counted: %s" % (name, mode_counter, s["lb_counters"]))

    bad_fmt = below = below_ideal = 0
    total = 0
    worst = 1e9
    for ln in lines:
        f = ln.split()
        if len(f) != 8:
            bad_fmt += 1
            continue
        src, dst = f[0].split("."), f[1].split(".")
        sport, dport, size, start, fct, ideal = map(int, f[2:])
        if (len(src) != 4 or len(dst) != 4 or src[0] != "10" or dst[0] != "10" or
                src == dst or dport != 4791 or size < 1 or start >= DUR_MS * 1000000 or ideal <= 0):
            bad_fmt += 1
            continue
        links = links_between(src, dst, pa["k"])
        lb = lower_bound(size, links, s["params"]["qps_per_flow"])
        if fct < lb - 2:
            below += 1
        worst = min(worst, fct / ideal)
        # The artifact's ideal counts a 1000-byte packet's serialization
        # per link even for a small flow: a lone small flow beats it by
        # up to about 3% (doc/simulator.md).
        below_ideal += fct < 0.95 * ideal
        total += size
    check(bad_fmt == 0, "%s: %d malformed lines" % (name, bad_fmt))
    check(below == 0, "%s: %d flows faster than the lower bound" % (name, below))
    check(below_ideal == 0, "%s: %d flows under 0.95 of ideal (worst %.3f)" % (name, below_ideal, worst))
    check(hs["bytes_acked"] == total, "%s: %d bytes acknowledged, flows carried %d" %
          (name, hs["bytes_acked"], total))
    print("%s: %d flows, %d events in %.2f s, peak %.0f MB, drops %s, pfc rx %d, retx %d, "
          "timeouts %d, cnps %d, min fct/ideal %.3f, host links %.3f, busiest link %.3f" %
          (name, fl["finished"], s["speed"]["events"], s["speed"]["wall_s"],
           s["speed"]["peak_rss_mb"], s["drops"], s["pfc"]["frames_rx"], hs["data_retx"],
           hs["timeouts"], hs["cnps_sent"], worst, hu,
           max(u["util_max"] for u in s["links"].values() if isinstance(u, dict))))
    return s


def slowdowns(path, warmup_ns=500000):
    """Average and p99 (nearest rank) of max(1, fct / ideal) over the flows
    that start after the warm-up: computed here, apart from report.py."""
    sd = []
    with open(path) as f:
        for line in f:
            v = line.split()
            if int(v[5]) > warmup_ns:
                sd.append(max(1.0, int(v[6]) / int(v[7])))
    sd.sort()
    check(len(sd) > 1000, "%s: only %d flows after the warm-up" % (path, len(sd)))
    return sum(sd) / len(sd), sd[min(len(sd) - 1, math.ceil(0.99 * len(sd)) - 1)]


def main():
    global ALI
    tmp = tempfile.mkdtemp(prefix="sim_run_")
    ALI = os.path.join(tmp, "AliStorage2019.txt")
    with open(ALI, "w") as f:
        f.write(ALI_CDF)
    modes = [("ecmp", "ecmp_packets"), ("conweave", "cw_packets"),
             ("seqbalance", "sb_tagged"), ("caver", "caver_shims_added")]
    for mode, counter in modes:
        out = os.path.join(tmp, mode)
        run(out, "--lb", mode, "--transport", "lossless", "--seed", "1")
        s = check_run(mode + "/lossless", out, True, counter)
        if mode == "conweave":
            r = s["reorder"]
            # 3 ms at 10 us, and the drain: at least 300 samples.
            check(r["samples"] >= 300, "conweave: %d reorder samples" % r["samples"])
            check(r["queues_per_switch_p999"] <= r["queues_per_switch_max"], "conweave: %s" % r)
        if mode == "seqbalance":
            check(s["params"]["qps_per_flow"] == 4, "seqbalance: %s" % s["params"])
    out = os.path.join(tmp, "ecmp_irn")
    run(out, "--lb", "ecmp", "--transport", "irn", "--seed", "1")
    s = check_run("ecmp/irn", out, False, "ecmp_packets")
    check(s["pfc"]["frames_rx"] == 0, "irn: PFC frames %s" % s["pfc"])

    # The load (issue 32, doc/simulator.md "Load basis"): core load 0.8
    # on the 2:1 fabric, host load 0.4. --load-basis wire scales the
    # arrivals by the wire bytes per payload byte (data frames' 58 bytes of
    # headers and 24 of wire overhead, an 86-byte ACK per packet), so the
    # host links must carry 0.4 of their rate over [1, 6] ms, both ways,
    # within 1%. Sizes uniform in 500..3500 bytes (2.5 packets a flow):
    # small flows make the headers and ACKs 21% of the payload, so a wrong
    # count shows, and about 330,000 flows in the window keep the offered
    # bytes' own noise small: relative sd sqrt((1 + CV^2) / n) =
    # sqrt(1.19 / 330,000) = 0.19%, so 1% is 5 sd; the gaps' truncation
    # to whole ns adds 0.1% (484 ns mean gap), the frames on the wire at
    # the window's ends about 1e-4; at this load nothing is resent and no
    # CNP or PFC frame is sent (checked). AliStorage2019's 2 MB tail
    # (CV^2 about 22) would need millions of flows for the same
    # precision. The ToR's fabric links carry host load x 2 (2:1) x 24/31
    # (destinations off the ToR): 0.619. With the payload basis (the
    # default) both are the wire bytes per payload byte (1.2099) higher.
    small = os.path.join(tmp, "small.txt")
    with open(small, "w") as f:
        f.write("500 0\n3500 100\n")
    loads = {}
    for basis in ("wire", "payload"):
        out = os.path.join(tmp, "load_" + basis)
        run(out, "--lb", "ecmp", "--seed", "1", "--workload", small, "--load", "0.8",
            "--duration-ms", "6", "--util-from-ms", "1", "--load-basis", basis)
        s = json.load(open(os.path.join(out, "summary.json")))
        pa, ld, hs = s["params"], s["load"], s["hosts"]
        f = pa["wire_per_payload"]
        # By hand: 2.499 packets and ACKs a flow (sim-workload checks the
        # count), (2000 + 2.499 x (82 + 86)) / 2000 = 1.209916.
        check(abs(pa["pkts_per_flow"] - 2.499) < 1e-9 and abs(f - 1.209916) < 1e-6,
              "load/%s: %s packets a flow, %s wire bytes a payload byte" %
              (basis, pa["pkts_per_flow"], f))
        check(pa["load_basis"] == basis and ld["basis"] == basis and
              abs(ld["target_host_load"] - 0.4) < 1e-12 and ld["from_ns"] == 1000000 and
              ld["to_ns"] == 6000000, "load/%s: %s" % (basis, ld))
        check(hs["data_retx"] == 0 and hs["cnps_sent"] == 0 and s["pfc"]["frames_rx"] == 0 and
              s["flows"]["unfinished"] == 0, "load/%s: resent %d, CNPs %d, PFC %s, flows %s" %
              (basis, hs["data_retx"], hs["cnps_sent"], s["pfc"], s["flows"]))
        want = 0.4 * (f if basis == "payload" else 1.0)
        check(abs(pa["payload_host_load"] * f / want - 1) < 1e-7 if basis == "wire" else
              abs(pa["payload_host_load"] - 0.4) < 1e-12, "load/%s: %s" % (basis, pa))
        for cls in ("host_to_tor", "tor_to_host"):
            u = s["links"][cls]["win_util_mean"]
            check(abs(u / want - 1) < 0.01, "load/%s: %s at %.4f, target %.4f" %
                  (basis, cls, u, want))
        check(abs(ld["host_links_util"] / want - 1) < 0.01 and
              abs(ld["host_links_vs_target"] * 0.4 - ld["host_links_util"]) < 1e-5,
              "load/%s: host links %s, target %.4f" % (basis, ld, want))
        fab = want * 2 * 24 / 31
        check(abs(ld["tor_fabric_util"] / fab - 1) < 0.01, "load/%s: ToR fabric links %.4f, "
              "expected %.4f" % (basis, ld["tor_fabric_util"], fab))
        loads[basis] = (ld["host_links_util"], ld["tor_fabric_util"], s["flows"]["started"])
    print("load 0.8 (host 0.4), 500..3500 B flows, [1, 6] ms: host links / ToR fabric links / "
          "flows: " + ", ".join("%s %.4f / %.4f / %d" % ((b,) + v) for b, v in loads.items()))

    # CAVER's own topology, the k = 4 fat-tree (1:1, 16 hosts, 20 switches).
    out = os.path.join(tmp, "caver_ft")
    run(out, "--lb", "caver", "--seed", "1", topo=["--topo", "fattree", "--k", "4"])
    s = check_run("caver/fattree-k4", out, True, "caver_source_routed")
    check(s["params"]["switches"] == 20 and s["params"]["hosts"] == 16, "fattree: %s" % s["params"])
    check("agg_to_core" in s["links"] and s["links"]["agg_to_core"]["links"] == 16,
          "fattree links: %s" % s["links"])
    # Asymmetry: one uplink down (ECMP), one at 25G (ConWeave).
    out = os.path.join(tmp, "ecmp_down")
    run(out, "--lb", "ecmp", "--link-down", "tor0:spine1", "--seed", "1")
    s = check_run("ecmp/link-down", out, True, "ecmp_packets")
    check(s["links"]["tor_to_spine"]["links"] == 15 and s["links"]["spine_to_tor"]["links"] == 15,
          "link down: %s" % s["links"])
    out = os.path.join(tmp, "cw_slow")
    run(out, "--lb", "conweave", "--slow-link", "tor0:spine1:25", "--seed", "1")
    check_run("conweave/slow-link", out, True, "cw_packets")

    # What the modes are for: with two of the 16 uplinks at 25G, ECMP keeps
    # hashing a quarter of some ToRs' traffic onto them; every LB mode must
    # steer around them and lower the average FCT slowdown by at least a
    # third, and none may raise the p99. (Measured at this commit, seed 1:
    # ECMP avg 28.2 / p99 157; ConWeave 11.9 / 149, SeqBalance 5.1 / 41,
    # CAVER 1.8 / 10.) A mode whose path choice fell back to hashing, or
    # ignored its congestion signal, lands near ECMP and fails here.
    slow = "tor0:spine1:25,tor1:spine2:25"
    asym = {}
    for mode, counter in modes:
        out = os.path.join(tmp, mode + "_asym")
        run(out, "--lb", mode, "--slow-link", slow, "--seed", "1")
        check_run(mode + "/asym", out, True, counter)
        asym[mode] = slowdowns(os.path.join(out, "fct.txt"))
    print("asym slowdown avg / p99: " + ", ".join("%s %.2f / %.2f" % (m, a, p)
                                                 for m, (a, p) in asym.items()))
    e_avg, e_p99 = asym["ecmp"]
    check(e_avg > 5, "asym: ECMP's average slowdown %.2f: the slow links did not bite" % e_avg)
    for mode in ("conweave", "seqbalance", "caver"):
        avg, p99 = asym[mode]
        check(avg <= e_avg * 2 / 3, "asym: %s avg slowdown %.2f, ECMP %.2f: not a third lower"
              % (mode, avg, e_avg))
        check(p99 <= e_p99, "asym: %s p99 slowdown %.2f above ECMP's %.2f" % (mode, p99, e_p99))

    # The switch ports' NICs: the default ring (2 descriptors, today's
    # bound) against a real NIC's 1024, a hidden queue in front of each
    # link, per mode. Measured at this commit, seed 1, lossless, 3 ms: the
    # default ring holds 2 frames and a frame waits at most 174 ns there
    # (two 1082-byte serializations); 1024 fills (max_frames 1024) and a
    # frame waits there up to about 90 us.
    nic_wait = {}
    for mode, counter in modes + [("spray", "sprayed")]:
        out = os.path.join(tmp, mode)
        if mode == "spray":
            run(out, "--lb", mode, "--transport", "lossless", "--seed", "1")
            check_run(mode + "/lossless", out, True, counter)
        d = json.load(open(os.path.join(out, "summary.json")))["nic"]
        check(d["ring"] == 2 and d["max_frames"] <= 2 and d["max_desc"] <= 2,
              "%s: default ring %s" % (mode, {k: v for k, v in d.items() if k != "switches"}))
        out = os.path.join(tmp, mode + "_ring1024")
        run(out, "--lb", mode, "--transport", "lossless", "--seed", "1", "--nic-ring", "1024")
        s = check_run(mode + "/ring1024", out, True, counter)
        b = s["nic"]
        check(b["ring"] == 1024 and b["max_frames"] > 2 and b["max_wait_ns"] > d["max_wait_ns"],
              "%s: ring 1024 %s, default ring %s" %
              (mode, {k: v for k, v in b.items() if k != "switches"},
               {k: v for k, v in d.items() if k != "switches"}))
        check(d["ring_kb"] == 0 and d["ring_holds"] == 0 and b["ring_kb"] == 0 and
              b["ring_holds"] == 0, "%s: unpaced runs held by a ring" % mode)
        # The egress paced at the link rate (--nic-ring-kb 32, the app's
        # ring on a hardware NIC): a frame goes to the NIC only while the
        # link clock is at most 32 KB of wire time ahead, so it waits
        # there at most that and its own wire time: the largest frame is
        # a host's payload, its headers and the up to 100 bytes of LB
        # header a fabric port's MTU allows (sim_topo). Slack: 1 ns, the
        # wait's rounding up to the ns, and 2 x 84 bytes for the egress's
        # own PFC frames, which go to the NIC without taking the clock
        # (lib/egress pushes them straight to the wire FIFO): one sent
        # while the port is busy leaves the clock behind the wire by its
        # wire time.
        out = os.path.join(tmp, mode + "_paced")
        run(out, "--lb", mode, "--transport", "lossless", "--seed", "1", "--nic-ring", "1024",
            "--nic-ring-kb", "32")
        s = check_run(mode + "/ring1024-paced32", out, True, counter)
        c = s["nic"]
        frame = s["params"]["mtu_payload"] + HDR + 100
        bound = (32 * 1024 + frame + WIRE) * 8 / GBPS + 1 + 2 * (60 + WIRE) * 8 / GBPS
        check(s["params"]["nic_ring_kb"] == 32 and c["ring_kb"] == 32 and c["ring"] == 1024 and
              c["ring_holds"] > 0 and c["max_wait_ns"] <= bound and
              c["max_wait_ns"] < b["max_wait_ns"],
              "%s: paced 32 KB %s (bound %.0f ns), unpaced %d ns" %
              (mode, {k: v for k, v in c.items() if k != "switches"}, bound, b["max_wait_ns"]))
        nic_wait[mode] = (d["max_wait_ns"], b["max_frames"], b["max_wait_ns"], c["max_wait_ns"])
    # Uplink imbalance (issue 33, the ConWeave paper's Fig. 14): per ToR
    # every 100 us, (max - min) / mean of its 4 uplinks' bytes. 3 ms
    # runs, measured from 1.5 ms: periods ending at 1.6 .. 3.0 ms, 15 per
    # ToR, each with bytes at load 0.5. uplink.txt has each value; the
    # summary's median is theirs. Spray sends each packet on the next
    # path: its uplinks stay within a few frames of each other, ECMP's
    # flows collide (measured at this commit, seed 1, these runs: mean
    # 10.2% against ECMP's 127.3%). The bound: one uplink taking all of
    # a period's bytes is (sum - 0) / (sum / 4) = 400%.
    imb = {}
    for mode in ("ecmp", "spray"):
        out = os.path.join(tmp, mode)
        u = json.load(open(os.path.join(out, "summary.json")))["uplink_imbalance"]
        with open(os.path.join(out, "uplink.txt")) as f:
            vals = sorted(float(line.split()[2]) for line in f)
        check(u["period_ns"] == 100000 and u["samples"] == TORS * 15 and len(vals) == u["samples"],
              "%s: uplink imbalance %s, %d values in uplink.txt" % (mode, u, len(vals)))
        if vals:
            med = vals[math.ceil(0.5 * len(vals)) - 1]
            check(abs(med - u["p50_pct"]) <= 0.01 * max(med, 1),
                  "%s: uplink.txt median %.3f, summary %s" % (mode, med, u["p50_pct"]))
            check(all(0 <= v <= 400 for v in vals), "%s: imbalance outside [0, 400]%%: %s"
                  % (mode, vals[-1]))
        imb[mode] = u.get("mean_pct", 0)
    check(imb["spray"] < imb["ecmp"] / 2, "uplink imbalance: spray %.1f%%, ECMP %.1f%%"
          % (imb["spray"], imb["ecmp"]))
    print("uplink imbalance, mean: ECMP %.1f%%, spray %.1f%%" % (imb["ecmp"], imb["spray"]))
    print("NIC ring 2 -> 1024 -> 1024 paced at 32 KB, max wait ns / max frames / max wait ns / "
          "max wait ns: " + ", ".join("%s %d / %d / %d / %d" % ((m,) + v) for m, v in nic_wait.items()))
    # Completions written back 32 at a time, 1 us late: descriptors
    # outlive their frames.
    out = os.path.join(tmp, "ecmp_batch")
    run(out, "--lb", "ecmp", "--seed", "1", "--nic-ring", "1024", "--nic-comp-batch", "32",
        "--nic-comp-delay-ns", "1000")
    s = check_run("ecmp/ring1024-batch32", out, True, "ecmp_packets")
    check(s["nic"]["comp_batch"] == 32 and s["nic"]["comp_delay_ns"] == 1000 and
          s["nic"]["max_desc"] > 2, "batch: %s" % s["nic"])

    # Determinism: the same seed, the same fct.txt byte for byte.
    a = open(os.path.join(tmp, "ecmp", "fct.txt"), "rb").read()
    out = os.path.join(tmp, "ecmp_again")
    run(out, "--lb", "ecmp", "--transport", "lossless", "--seed", "1")
    check(open(os.path.join(out, "fct.txt"), "rb").read() == a, "seed 1 twice: fct.txt differs")
    # And with the stateful modes' tables, timers and control packets.
    for mode in ("conweave", "caver"):
        out = os.path.join(tmp, mode + "_again")
        run(out, "--lb", mode, "--transport", "lossless", "--seed", "1")
        check(open(os.path.join(out, "fct.txt"), "rb").read() ==
              open(os.path.join(tmp, mode, "fct.txt"), "rb").read(), "%s twice: fct.txt differs" % mode)
    out = os.path.join(tmp, "ecmp_seed2")
    run(out, "--lb", "ecmp", "--transport", "lossless", "--seed", "2")
    b = open(os.path.join(out, "fct.txt"), "rb").read()
    check(len(b) > 0 and b != a, "seed 2 gave the fct.txt of seed 1")

    # --flows stops arrivals after N flows.
    out = os.path.join(tmp, "flows")
    run(out, "--flows", "50", "--seed", "3")
    s = json.load(open(os.path.join(out, "summary.json")))
    check(s["flows"]["started"] == 50 and s["flows"]["finished"] == 50, "--flows 50: %s" % s["flows"])

    # The drain limit: 1 us after the last arrival, flows are still on
    # the wires; the run stops, says so, and exits 3.
    out = os.path.join(tmp, "drain")
    run(out, "--duration-ms", "1", "--drain-ms", "0.001", "--seed", "3", expect=3)
    s = json.load(open(os.path.join(out, "summary.json")))
    fl = s["flows"]
    nl = len(open(os.path.join(out, "fct.txt")).read().splitlines())
    check(fl["drain_limit_hit"] and fl["unfinished"] > 0 and
          fl["finished"] + fl["unfinished"] == fl["started"] and nl == fl["finished"],
          "drain limit: %s, %d lines" % (fl, nl))

    # Bad options: exit 2, one line naming the problem, no output.
    bad = [
        (["--load", "0"], "--load"),
        (["--load", "x"], "--load"),
        (["--lb", "nosuch"], "--lb"),
        (["--transport", "udp"], "--transport"),
        (["--tors", "0"], "--tors"),
        (["--hosts-per-tor", "30", "--spines", "8"], "ports"),
        (["--duration-ms", "-1"], "--duration-ms"),
        (["--seed", "-3"], "--seed"),
        (["--bogus"], "--bogus"),
        (["--workload", "/nonexistent"], "/nonexistent"),
        (["--config", "/nonexistent"], "/nonexistent"),
        (["--load", "2.5"], "above 1"),
        (["extra"], "extra"),
        (["--link-down", "tor0:spine9"], "tor0:spine9"),
        (["--slow-link", "tor0:spine1"], "A:B:GBPS"),
        (["--slow-link", "tor0:spine1:0"], "rate"),
        (["--topo", "fattree", "--k", "5"], "even"),
        (["--nic-ring", "0"], "--nic-ring"),
        (["--nic-ring", "1024", "--nic-comp-batch", "3"], "divide"),
        (["--nic-pad", "2"], "--nic-pad"),
        (["--nic-ring-kb", "65537"], "--nic-ring-kb"),
        (["--nic-ring-kb", "32", "--wire-overhead", "38"], "--wire-overhead"),
        (["--load-basis", "bytes"], "--load-basis"),
        (["--util-from-ms", "3"], "--util-from-ms"),
        (["--util-from-ms", "-1"], "--util-from-ms"),
        (["--buffer", "dynamic"], "--buffer"),
        (["--buffer", "shared", "--buffer-kb", "32"], "--buffer-kb"),
    ]
    # A --config the switches refuse, as rocetor would: its own message.
    for name, text, word in (("dup.yaml", "switch:\n  name: x\n", "duplicate key"),
                             ("range.yaml", "qos:\n  classes: 99\n", "qos.classes")):
        path = os.path.join(tmp, name)
        with open(path, "w") as f:
            f.write(text)
        bad.append((["--config", path], word))
    # --buffer shared sets qos.buffer of the default qos only.
    path = os.path.join(tmp, "qos.yaml")
    with open(path, "w") as f:
        f.write("qos:\n  classes: 8\n")
    bad.append((["--config", path, "--buffer", "shared"], "qos.buffer"))
    for args, word in bad:
        out = os.path.join(tmp, "bad")
        p = run(out, *args, expect=2)
        err = p.stderr.strip()
        check(word in err and err.count("\n") == 0 and err.startswith("rocetor-sim: "),
              "%s: stderr %r" % (args, err))
        check(not os.path.exists(os.path.join(out, "fct.txt")), "%s: wrote fct.txt" % args)
    p = subprocess.run([SIM, "--out", os.path.join(tmp, "bad")], capture_output=True, text=True)
    check(p.returncode == 2 and "--workload" in p.stderr, "no --workload: %d %r" % (p.returncode, p.stderr))
    p = subprocess.run([SIM, "--help"], capture_output=True, text=True)
    check(p.returncode == 0 and "--transport lossless|irn" in p.stdout, "--help: %d" % p.returncode)

    shutil.rmtree(tmp, ignore_errors=True)
    return checks.summary("sim-run")


if __name__ == "__main__":
    sys.exit(main())

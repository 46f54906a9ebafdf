#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The rocetor authors
"""tools/bench/benchgen.py, the benchmark traffic generator (doc/benchmarks.md).

src role: every frame a valid RoCEv2 frame (rocegen and scapy), the sizes of
--size, N distinct 5-tuples in round-robin order with consecutive PSNs per
flow, files split by flow, the default packet count, the cache.
dst role: the frames are ConWeave DATA frames whose sender's ICRC is valid
once stripped; rocetor as a ConWeave DstToR fed one pass of them (net_pcap
on fabric port 1) holds the phase-1 packets that overtook each TAIL and
releases them on the TAIL (the counters equal what benchgen's JSON says one
pass makes, no timeouts, overflows or late packets), and delivers every
frame to host port 0 with a valid ICRC, per QP in PSN order, byte for byte
what the sender sent but for MACs and TTL. Also the plan of the 1M-flow case.
dst --stamp spray: spray's marker and numbers in the documented arrival
order, valid ICRCs once stripped; a spray DstToR fed one pass holds what the
JSON says and delivers every flow in PSN order, byte for byte.
dst --stamp conga: CONGA's header as doc/conga.md documents it (leaf 2, the
path, CE and feedback benchgen's rule gives), valid ICRCs once stripped; a
CONGA DstToR fed them takes every CE and feedback entry, evicts no leaf (the
bench's dst_prefix_len 16) and delivers the sender's bytes; a CONGA spine
forwards them with the header, the CE only raised.
"""
import json
import os
import shutil
import subprocess
import sys
import struct
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SRC_ROOT = os.environ.get("ROCETOR_SRC", os.path.normpath(os.path.join(HERE, "..", "..")))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "lib"))
sys.path.insert(0, os.path.join(SRC_ROOT, "tools", "bench"))
import harness  # noqa: E402
import roce as R  # noqa: E402
import rocegen  # noqa: E402
import benchgen  # noqa: E402

BENCHGEN = os.path.join(SRC_ROOT, "tools", "bench", "benchgen.py")
ROCETOR = harness.ROCETOR  # this meson build dir's binary
FRAME = {64: 60, 1024: 1082, 4096: 4154}
OPCODE = {64: R.SEND_ONLY, 1024: R.WRITE_MIDDLE, 4096: R.WRITE_MIDDLE}
HOST_NEXTHOP = "02:00:00:00:aa:01"
# benchgen's gap between the last phase-0 packet and the TAIL is 8.4 ms of
# SrcToR time, which bounds each hold; on this shared 2-core machine the
# process can still be descheduled longer than that, so the test adds 20 ms
# of slack: then a hold can only end on its TAIL (or be a real bug).
RESUME_EXTRA_US = 20000


def gen(*args):
    p = subprocess.run(["/usr/bin/python3", BENCHGEN] + [str(a) for a in args],
                       capture_output=True, text=True, timeout=120)
    return p.returncode, p.stderr


def load(prefix):
    with open(prefix + ".json") as f:
        return json.load(f)


def tuple5(f):
    l3, l4, _ = R.offsets(f)
    return (f[l3 + 12:l3 + 16], f[l3 + 16:l3 + 20], int.from_bytes(f[l4:l4 + 2], "big"),
            int.from_bytes(f[l4 + 2:l4 + 4], "big"), f[l3 + 9])


def check_host_frame(t, f, size, net_src, net_dst, src_mac, dst_mac, what, lens=None):
    """Headers and ICRC of a frame as the sending host made it."""
    l3, l4, b = R.offsets(f)
    ok = (len(f) in (lens or (FRAME[size],)) and f[0:6] == dst_mac and f[6:12] == src_mac and
          f[12:14] == b"\x08\x00" and f[l3] == 0x45 and f[l3 + 1] == (26 << 2 | 2) and
          f[l3 + 8] == 64 and f[l3 + 9] == 17 and f[l3 + 12:l3 + 14] == net_src and
          f[l3 + 16:l3 + 18] == net_dst and
          int.from_bytes(f[l4 + 2:l4 + 4], "big") == 4791 and f[b] == OPCODE[size] and
          f[b + 4] == 0 and f[b + 8] == 0 and
          rocegen.frame_icrc_ok(f) and
          rocegen.ipv4_csum(f[l3:l3 + 10] + b"\0\0" + f[l3 + 12:l3 + 20]) ==
          int.from_bytes(f[l3 + 10:l3 + 12], "big"))
    # payload: what is left of the IP datagram after UDP, BTH and ICRC
    ip_len = int.from_bytes(f[l3 + 2:l3 + 4], "big")
    ok = ok and ip_len - 20 - 8 - 12 - 4 == {64: 0, 1024: 1024, 4096: 4096}[size]
    return t.check(ok, "%s: bad frame %s" % (what, f[:64].hex()))


# --------------------------------------------------------------------------
def test_src(t, work):
    mac_h = bytes.fromhex("02000000aa01")
    mac_t = bytes.fromhex("020000000100")
    for size, n, per, q in ((64, 37, 3, 1), (1024, 37, 2, 2), (4096, 11, 2, 3)):
        pre = os.path.join(work, "src%d" % size)
        rc, err = gen("--role", "src", "--flows", n, "--size", size, "--packets", n * per,
                      "--queues", q, "--out", pre)
        if not t.check(rc == 0, "benchgen src: %s" % err):
            continue
        j = load(pre)
        files = [pre + ".pcap"] if q == 1 else ["%s.q%d.pcap" % (pre, i) for i in range(q)]
        t.eq(j["files"], files)
        t.eq(j["frame_len"], FRAME[size])
        t.eq((j["role"], j["flows"], j["size"]), ("src", n, size))
        t.check(j["description"] and "\n" not in j["description"], "description")
        per_file = [rocegen.read_pcap(p) for p in files]
        t.eq(j["packets"], [len(x) for x in per_file], "(packets per file)")
        t.eq(sum(j["packets"]), n * per)
        seen = set()
        split = benchgen.Split(benchgen.Flows("src", n, 1), n, q)
        for fi, frames in enumerate(per_file):
            nf = len(split.files[fi])  # flows of this file: those worker fi of q owns
            tuples = [tuple5(f) for f in frames]
            first = tuples[:nf]
            t.eq(len(set(first)), nf, "(file %d: %d distinct flows)" % (fi, nf))
            t.check(not (seen & set(first)), "(a flow in two files)")
            seen |= set(first)
            # round-robin: frame k of the file belongs to its flow k mod nf,
            # PSN +1 per round, one destination QP per flow
            for k, f in enumerate(frames):
                check_host_frame(t, f, size, b"\x0a\x01", b"\x0a\x02", mac_h, mac_t,
                                 "src %d frame %d" % (size, k))
                t.eq(tuples[k], first[k % nf], "(round robin, frame %d)" % k)
                if k >= nf:
                    bp, bf = R.bth_fields(frames[k - nf]), R.bth_fields(f)
                    t.eq((bf["psn"] - bp["psn"]) & 0xFFFFFF, 1, "(PSN +1 per flow)")
                    t.eq(bf["dqp"], bp["dqp"])
            t.eq(len({R.bth_fields(f)["dqp"] for f in frames[:nf]}), nf, "(QP per flow)")
        t.eq(len(seen), n, "(every flow in the files)")
        # scapy agrees on the ICRCs (the oracle shares no code with benchgen)
        sample = [f for frames in per_file for f in frames][:40]
        t.check(all(R.icrc_ok(f) for f in sample), "scapy: ICRC of src %d frames" % size)

    # Default P = max(N, 65536) rounded up to a multiple of N.
    pre = os.path.join(work, "srcdef")
    rc, err = gen("--role", "src", "--flows", 3, "--size", 64, "--out", pre)
    if t.check(rc == 0, err):
        t.eq(load(pre)["packets"], [65538], "(default P for N = 3)")
        # the cache: same parameters -> not rewritten; another seed -> rewritten
        m0 = os.stat(pre + ".pcap").st_mtime_ns
        time.sleep(0.01)
        rc, err = gen("--role", "src", "--flows", 3, "--size", 64, "--out", pre)
        t.check(rc == 0 and "not regenerated" in err, "cache hit: %s" % err)
        t.eq(os.stat(pre + ".pcap").st_mtime_ns, m0, "(cached pcap untouched)")
        b0 = open(pre + ".pcap", "rb").read(4096)
        rc, err = gen("--role", "src", "--flows", 3, "--size", 64, "--seed", 2, "--out", pre)
        t.check(rc == 0 and "not regenerated" not in err, "new seed regenerates: %s" % err)
        t.check(open(pre + ".pcap", "rb").read(4096) != b0, "(another seed, other bytes)")
        # a truncated file is not taken from the cache
        with open(pre + ".pcap", "r+b") as f:
            f.truncate(1000)
        rc, err = gen("--role", "src", "--flows", 3, "--size", 64, "--seed", 2, "--out", pre)
        t.check(rc == 0 and os.path.getsize(pre + ".pcap") == load(pre)["file_bytes"][0],
                "truncated pcap regenerated: %s" % err)
    # Refused: more than 2^21 frames in one pcap.
    rc, err = gen("--role", "src", "--flows", 2, "--size", 64, "--packets", (1 << 22) + 2,
                  "--out", os.path.join(work, "toobig"))
    t.check(rc == 2 and "at most" in err, "2^22 frames refused: %d %s" % (rc, err))

    # --queues splits flows by rocetor's RSS owner: the hash is the
    # Toeplitz hash with rocetor's key (a plain bit-by-bit Toeplitz here,
    # and the value lib/rss/test_rss.c pins for rte_softrss and
    # rtr_rss_hash), each file holds exactly the flows its worker owns.
    def toeplitz(data, key):
        kb, kl, h = int.from_bytes(key, "big"), len(key) * 8, 0
        for i, byte in enumerate(data):
            for bit in range(8):
                if byte >> (7 - bit) & 1:
                    h ^= (kb >> (kl - 32 - (8 * i + bit))) & 0xFFFFFFFF
        return h
    t.eq(benchgen.rss_hash(0x0A010001, 0x0A020005, 0xC123), 0x026C026C,
         "(rss_hash: the value test_rss pins)")
    fl = benchgen.Flows("src", 3000, 1)
    key = bytes([0x6D, 0x5A] * 20)
    bad = sum(benchgen.rss_hash(fl.a[i], fl.b[i], fl.sport[i]) !=
              toeplitz(struct.pack("!IIHH", fl.a[i], fl.b[i], fl.sport[i], 4791), key)
              for i in range(3000))
    t.eq(bad, 0, "(rss_hash against a bit-by-bit Toeplitz, 3000 flows)")
    for q in (2, 3, 4):
        sp = benchgen.Split(fl, 3000, q)
        t.check(all(benchgen.rss_owner(benchgen.rss_hash(fl.a[i], fl.b[i], fl.sport[i]), q) == k
                    for k in range(q) for i in sp.files[k]) and
                sorted(i for f in sp.files for i in f) == list(range(3000)),
                "rss split, %d queues: each flow once, in its owner's file" % q)
        t.check(min(len(f) for f in sp.files) > 3000 // q * 0.85,
                "rss split, %d queues: balanced (%s)" % (q, [len(f) for f in sp.files]))
        sm = benchgen.Split(fl, 3000, q, "modulo")
        t.eq(sm.files[1], list(range(1, 3000, q)), "(modulo split)")

    # 5-tuples stay distinct beyond one /16 of hosts (flow i and i + 65534
    # share host A and differ in the source port).
    fl = benchgen.Flows("src", 200000, 1)
    tup = {(fl.a[i], fl.b[i], fl.sport[i]) for i in range(200000)}
    t.eq(len(tup), 200000, "(200000 distinct flows)")
    t.check(all(0xC000 <= s <= 0xFFFF for s in fl.sport), "(sports in the RNIC range)")


# --------------------------------------------------------------------------
def test_plans(t):
    """What the large cases contain (computed, not written)."""
    for size, cap in ((64, 1 << 21), (1024, 1 << 21), (4096, 1 << 20)):
        plan = benchgen.plan_dst(1000000, 1, size, None, 8)
        fp = plan[0]
        frames = fp["full"] * fp["c"] + len(fp["flows"]) - fp["full"]
        t.check(cap - 12 < frames <= cap, "1M dst %d: %d frames (cap %d)" % (size, frames, cap))
        t.eq(len(fp["flows"]), 1000000, "(every flow in the file)")
        t.check(fp["full"] > 0 and fp["epochs"] == [3, 3, 3, 3], "1M dst: full cycles")
    # 65536 flows: all get full 4 x 8 cycles, 2^21 frames
    fp = benchgen.plan_dst(65536, 1, 64, None, 8)[0]
    t.eq((fp["full"], fp["c"], fp["epochs"]), (65536, 32, [8, 8, 8, 8]))
    # 100k flows: all full, fewer packets each (2^21 // 100000 = 20, 4 epochs of 5)
    fp = benchgen.plan_dst(100000, 1, 1024, None, 8)[0]
    t.eq((fp["full"], fp["c"], fp["epochs"]), (100000, 20, [5, 5, 5, 5]))
    # few flows: many epochs, a multiple of 4
    fp = benchgen.plan_dst(1000, 1, 64, None, 8)[0]
    t.eq((fp["c"], len(fp["epochs"]), sum(fp["epochs"])), (66, 8, 66))
    # 2 queues: each file within the cap, the flows split
    plan = benchgen.plan_dst(1000000, 2, 64, None, 8)
    t.eq(sum(len(fp["flows"]) for fp in plan), 1000000)
    t.check(all(fp["full"] * fp["c"] + len(fp["flows"]) - fp["full"] <= 1 << 21 for fp in plan),
            "2 queues: each file <= 2^21 frames")
    for ln in range(3, 20):
        shape, h = benchgen.epoch_shape(ln)
        js = [s[0] for s in shape]
        tail = [k for k, s in enumerate(shape) if s[1] & benchgen.CW_TAIL]
        t.check(sorted(js) == list(range(ln)) and len(tail) == 1 and h >= 1 and
                all(s[1] & benchgen.CW_PHASE for s in shape[tail[0] - h:tail[0]]) and
                shape[0][1] == benchgen.CW_DATA | benchgen.CW_ASK,
                "epoch shape %d: %r" % (ln, shape))


# --------------------------------------------------------------------------
def order_and_diff(host, sent):
    """Frames delivered to the host out of PSN order (per QP), and frames
    that differ from what the sender sent (sent: {dqp: {psn: frame}})."""
    last, order_bad, diff = {}, 0, 0
    for f in host:
        b = R.bth_fields(f)
        q, psn = b["dqp"], b["psn"]
        if q in last and (psn - last[q]) & 0xFFFFFF != 1:
            order_bad += 1
        last[q] = psn
        diff += not same_as_sent(f, sent.get(q, {}).get(psn, b""))
    return order_bad, diff


def dsttor_config(lb, section, mtu=0):
    """The DstToR the runner sets up: hosts 10.1/16 on port 0, the senders'
    ToR (10.2/16) over the 4 uplinks (port 1's MAC is the one benchgen's dst
    frames are addressed to), mode lb with its section; mtu 4200 for 4 KB
    payloads (the mbufs grow with it), 100 more on the fabric ports (they
    must carry a host's largest frame plus the LB header: doc/config.md)."""
    m = ", mtu: %d" % mtu if mtu else ""
    mf = ", mtu: %d" % (mtu + 100) if mtu else ""
    return ("switch: {name: bench-dst, id: 2, lb: %s}\nports:\n" % lb +
            '  - {port: 0, role: host, mac: "02:00:00:00:01:00"%s}\n' % m +
            "".join('  - {port: %d, role: fabric, mac: "02:00:00:00:01:%02x"%s}\n' % (i, i, mf)
                    for i in range(1, 5)) +
            "routes:\n"
            '  - {prefix: "10.1.0.0/16", port: 0, nexthop_mac: "%s"}\n' % HOST_NEXTHOP +
            '  - prefix: "10.2.0.0/16"\n    paths:\n' +
            "".join('      - {port: %d, nexthop_mac: "02:00:00:00:bb:%02x"}\n' % (i, i)
                    for i in range(1, 5)) + section)


def spray_config(mtu=0):
    """The spray DstToR of the same ports and routes (doc/spray.md)."""
    return dsttor_config("spray", "spray: {flow_table_size: 65536, timeout_us: 100000}\n", mtu)


def dst_config(resume_extra_us=16, mtu=0):
    """The ConWeave DstToR: default thresholds but for resume_extra_us (and
    theta_inactive_us, which must exceed base_rtt + the longest hold: 4 +
    200 + resume_extra_us)."""
    theta = max(300, min(resume_extra_us + 300, 31999))
    return dsttor_config("conweave",
                         "conweave: {flow_table_size: 65536, reorder_queues_per_port: 1024, "
                         "reorder_queue_depth: 255, resume_extra_us: %d, theta_inactive_us: %d}\n"
                         % (resume_extra_us, theta), mtu)


def run_dsttor(work, tag, pcap, resume_extra_us=RESUME_EXTRA_US, mtu=0, config=None):
    cfg = os.path.join(work, tag + ".yaml")
    with open(cfg, "w") as f:
        f.write(config if config is not None else dst_config(resume_extra_us, mtu))
    host = os.path.join(work, tag + "-host.pcap")
    up1 = os.path.join(work, tag + "-up1.pcap")
    stats = os.path.join(work, tag + "-stats.json")
    cmd = [ROCETOR, "-l", "0", "--no-huge", "-m", "1024", "--no-pci",
           "--file-prefix", harness.eal_prefix("bgen"), "--log-level", "lib.eal:error",
           "--vdev", "net_pcap0,tx_pcap=%s" % host,
           "--vdev", "net_pcap1,rx_pcap=%s,tx_pcap=%s,infinite_rx=0" % (pcap, up1)]
    for i in range(2, 5):
        cmd += ["--vdev", "net_null%d,no-rx=1" % i]
    cmd += ["--", "--config", cfg, "--exit-on-idle", "300", "--stats-json", stats]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    st = None
    if os.path.exists(stats):
        with open(stats) as f:
            st = json.load(f)
    return p, st, harness.read_pcap(host), harness.read_pcap(up1)


def same_as_sent(out, sent):
    """Equal but for MACs, TTL and the IPv4 checksum (and byte 4, 0 here)."""
    if len(out) != len(sent):
        return False
    l3, _, _ = R.offsets(sent)
    a, s = bytearray(out), bytearray(sent)
    for g in (a, s):
        g[0:12] = bytes(12)
        g[l3 + 8] = 0
        g[l3 + 10:l3 + 12] = b"\0\0"
    return a == s


def test_dst(t, work):
    cases = [(64, 40, 40 * 64, True), (1024, 40, 40 * 64, False), (4096, 12, 12 * 32, False),
             # fewer than 12 packets per flow: 21 flows cycle, 39 send one packet
             (64, 60, 300, False)]
    for size, n, packets, scapy_all in cases:
        tag = "dst%d_%d" % (size, n)
        pre = os.path.join(work, tag)
        rc, err = gen("--role", "dst", "--flows", n, "--size", size, "--packets", packets,
                      "--out", pre)
        if not t.check(rc == 0, "benchgen dst: %s" % err):
            continue
        j = load(pre)
        frames = rocegen.read_pcap(j["files"][0])
        t.eq(j["packets"], [len(frames)])
        flen = {64: 62, 1024: 1086, 4096: 4158}[size]  # + the ConWeave header
        t.eq(j["frame_len"], flen)
        t.check(all(len(f) == flen for f in frames), "dst %d frame sizes" % size)
        if packets >= 12 * n:
            t.eq(j["full_cycle_flows"], n)
            t.eq(len(frames), packets)
        else:
            f = (packets - n) // 11
            t.eq((j["full_cycle_flows"], j["single_packet_flows"]), (f, n - f))
            t.eq(len(frames), f * 12 + n - f)
        # Every frame: ConWeave DATA, and once stripped the sender's frame
        # with a valid ICRC (Resv7 0, byte 4 0, 4 bytes out).
        sent = {}
        epochs = {}
        for k, f in enumerate(frames):
            c = R.cw_fields(f)
            t.check(c["cw_op"] == R.CW_DATA, "frame %d cw_op %d" % (k, c["cw_op"]))
            h = R.strip_cw(f)
            check_host_frame(t, h, size, b"\x0a\x02", b"\x0a\x01",
                             bytes.fromhex("02000000bb01"), bytes.fromhex("020000000101"),
                             "dst %d frame %d" % (size, k), (FRAME[size], len(f) - 4))
            b = R.bth_fields(h)
            sent.setdefault(b["dqp"], {})[b["psn"]] = h
            epochs.setdefault(b["dqp"], []).append(c["epoch"])
        t.eq(len(sent), n, "(distinct QPs = flows)")
        t.eq(len({tuple5(next(iter(v.values()))) for v in sent.values()}), n,
             "(distinct 5-tuples)")
        if scapy_all:
            t.check(all(R.icrc_ok(R.strip_cw(f)) for f in frames),
                    "scapy: ICRC of stripped dst frames")
        # Epochs never go back within a pass, and cycled flows end on epoch 3
        for q, eps in epochs.items():
            t.check(all((b - a) & 3 in (0, 1) for a, b in zip(eps, eps[1:])),
                    "flow %#x epochs %r" % (q, eps[:40]))
            if len(eps) > 1:
                t.eq(eps[-1], 3, "(flow %#x: whole 4-epoch cycles)" % q)

        p, st, host, up1 = run_dsttor(work, tag, j["files"][0],
                                      mtu=4200 if size == 4096 else 0)
        if not t.check(p.returncode == 0 and st, "rocetor: %d %s" % (p.returncode,
                                                                     p.stderr[-2000:])):
            continue
        lb = st["lb"]
        pp = j["per_pass"]
        for key in ("reorder_held", "reorder_flush_tail", "tails_rx", "rtt_requests_rx",
                    "rtt_replies", "clears"):
            t.eq(lb[key], pp[key], "(%s, dst %d N %d)" % (key, size, n))
        t.check(lb["reorder_held"] > 0 and lb["reorder_flush_tail"] > 0, "reordering happened")
        for key in ("reorder_flush_timeout", "reorder_overflow", "late_epoch_packets",
                    "epoch_overrun", "flow_table_full", "notifies"):
            t.eq(lb[key], 0, "(%s, dst %d N %d)" % (key, size, n))
        t.eq(lb["reorder_queues_in_use"], 0)
        ok, why = harness.accounted(st)
        t.check(ok, "accounting: " + why)
        t.eq(st["originated"], pp["rtt_replies"] + pp["clears"], "(control packets)")
        t.check(all(R.cw_fields(f)["cw_op"] == R.CW_REPLY for f in up1) and len(up1) > 0,
                "port 1 carries RTT_REPLY / CLEAR only")
        # Delivered: everything, valid ICRCs, per QP in PSN order, the
        # sender's bytes.
        t.eq(len(host), len(frames), "(every frame delivered, dst %d)" % size)
        bad = [k for k, f in enumerate(host) if not rocegen.frame_icrc_ok(f)]
        t.check(not bad, "dst %d: delivered frames with a bad ICRC: %r" % (size, bad[:10]))
        if scapy_all:
            t.check(all(R.icrc_ok(f) for f in host), "scapy: delivered ICRCs")
        order_bad, diff = order_and_diff(host, sent)
        t.eq(order_bad, 0, "(delivered out of PSN order, dst %d N %d)" % (size, n))
        t.eq(diff, 0, "(delivered frames differing from the sender's)")
        # The input itself is NOT in PSN order (else nothing was tested).
        inorder = {}
        swaps = 0
        for f in frames:
            b = R.bth_fields(f)
            if b["dqp"] in inorder and (b["psn"] - inorder[b["dqp"]]) & 0xFFFFFF > 0x800000:
                swaps += 1
            inorder[b["dqp"]] = b["psn"]
        t.check(swaps > 0, "the dst input is reordered")


def gen_stamped(t, work, tag, stamp, n, size, packets):
    """benchgen --role dst --stamp STAMP into WORK/TAG: (its JSON, its
    frames), or None (a failed check) when benchgen fails."""
    pre = os.path.join(work, tag)
    rc, err = gen("--role", "dst", "--stamp", stamp, "--flows", n, "--size", size,
                  "--packets", packets, "--out", pre)
    if not t.check(rc == 0, "benchgen dst --stamp %s: %s" % (stamp, err)):
        return None
    j = load(pre)
    return j, rocegen.read_pcap(j["files"][0])


def test_spray_dst(t, work):
    """--stamp spray: spray's marker and numbers, each group of 4 arriving
    as 0, 2, 1, 3; a spray DstToR fed one pass holds exactly what the json
    says and delivers every flow in PSN order with the sender's bytes."""
    for size, n, packets in ((64, 40, 40 * 10), (1024, 7, 7 * 9)):
        tag = "sdst%d_%d" % (size, n)
        got = gen_stamped(t, work, tag, "spray", n, size, packets)
        if got is None:
            continue
        j, frames = got
        per = packets // n
        t.eq((len(frames), j["packets_per_flow"]), (packets, per), "(spray dst frames)")
        # The arrival order of numbers per flow, computed here: groups of
        # 4 as 0, 2, 1, 3, the partial group at the end in order.
        want = []
        for g in range(per // 4):
            want += [4 * g, 4 * g + 2, 4 * g + 1, 4 * g + 3]
        want += list(range(per // 4 * 4, per))
        seqs, sent = {}, {}
        for k, f in enumerate(frames):
            _, _, b = R.offsets(f)
            t.eq(f[b + 8], 0x31, "(frame %d: spray's Resv7 marker, AckReq 0)" % k)
            seq = struct.unpack_from("!I", f, b + 12)[0]
            t.eq(f[b + 4], seq & 3, "(frame %d: path = number mod 4)" % k)
            h = R.strip_cw(f)
            bf = R.bth_fields(h)
            seqs.setdefault(bf["dqp"], []).append((seq, bf["psn"]))
            sent.setdefault(bf["dqp"], {})[bf["psn"]] = h
        t.eq(len(seqs), n, "(spray dst: flows)")
        for q, v in seqs.items():
            t.eq([x[0] for x in v], want, "(flow %#x arrival order)" % q)
            t.eq(len({(x[1] - x[0]) & 0xFFFFFF for x in v}), 1,
                 "(flow %#x: PSN = first PSN + number)" % q)
        t.check(all(R.icrc_ok(R.strip_cw(f)) for f in frames),
                "scapy: ICRC of stripped spray dst frames")
        held = n * (per // 4)
        t.eq(j["per_pass"]["spray_held"], held, "(json: held per pass)")
        p, st, host, _ = run_dsttor(work, tag, j["files"][0],
                                    config=spray_config(4200 if size == 4096 else 0))
        if not t.check(p.returncode == 0 and st, "rocetor spray: %d %s" % (p.returncode,
                                                                           p.stderr[-2000:])):
            continue
        lb = st["lb"]
        t.eq((lb["spray_rx"], lb["spray_held"], lb["released_in_order"]),
             (packets, held, held), "(spray dst %d: received, held, released)" % size)
        for key in ("gap_timeouts", "late", "window_overflow", "windows_in_use"):
            t.eq(lb[key], 0, "(spray dst %d: %s)" % (size, key))
        ok, why = harness.accounted(st)
        t.check(ok, "accounting: " + why)
        t.eq(len(host), packets, "(spray dst %d: every frame delivered)" % size)
        t.check(all(R.icrc_ok(f) for f in host), "scapy: delivered ICRCs (spray)")
        order_bad, diff = order_and_diff(host, sent)
        t.eq((order_bad, diff), (0, 0), "(spray dst %d: out of PSN order, differing)" % size)


def test_conga_dst(t, work):
    """--stamp conga: the header bytes per benchgen's rule; the CONGA
    DstToR and spine the bench runs (tools/bench/rocebench/config.py)."""
    n, size, packets = 12, 64, 12 * 6
    got = gen_stamped(t, work, "cdst", "conga", n, size, packets)
    if got is None:
        return
    j, frames = got
    t.eq((len(frames), j["packets_per_flow"]), (packets, 6), "(conga dst frames)")
    fl = benchgen.Flows("dst", n, 1)
    sent, hdrs = {}, []
    for k, f in enumerate(frames):
        i, r = k % n, k // n
        _, _, b = R.offsets(f)
        # 58 bytes of headers and ICRC (the sender padded them to 60) + 4
        t.eq(len(f), 62, "(frame %d: 4-byte header, no padding)" % k)
        t.eq((f[b + 4], f[b + 8], struct.unpack_from("!H", f, b + 12)[0], f[b + 14], f[b + 15]),
             ((fl.path0[i] + r) & 3, 0x32, 2, r & 3, (((i + r) & 7) << 4) | ((3 * i + r) & 7)),
             "(frame %d: path, Resv7, leaf, feedback path, CE/metric)" % k)
        h = R.strip_cw(f)
        t.eq(R.bth_fields(h)["psn"], (fl.psn0[i] + r) & 0xFFFFFF, "(frame %d: PSN)" % k)
        sent.setdefault(R.bth_fields(h)["dqp"], {})[R.bth_fields(h)["psn"]] = h
        hdrs.append(f[b + 15] >> 4)
    t.check(all(R.icrc_ok(R.strip_cw(f)) for f in frames),
            "scapy: ICRC of stripped conga dst frames")
    # The configs the bench writes for conga-dst and conga-spine.
    from rocebench import config as bench_config
    bench_config.load_modes(ROCETOR)
    p, st, host, _ = run_dsttor(work, "cdst", j["files"][0], config=bench_config.config_text(
        "conga", "dst-conga", "conga-dst", size, n, None))
    if t.check(p.returncode == 0 and st, "rocetor conga DstToR: %d %s" % (
            p.returncode, p.stderr[-2000:])):
        lb = st["lb"]
        t.eq((lb["conga_rx"], lb["conga_fb_received"], lb["conga_leaf_evictions"]),
             (packets, packets, 0), "(conga DstToR: received, feedback taken, evictions)")
        ok, why = harness.accounted(st)
        t.check(ok, "accounting: " + why)
        t.eq(len(host), packets, "(conga DstToR: every frame delivered)")
        t.check(all(R.icrc_ok(f) for f in host), "scapy: delivered ICRCs (conga)")
        t.eq(order_and_diff(host, sent), (0, 0), "(conga DstToR: out of PSN order, differing)")
    p, st, out, _ = run_dsttor(work, "cspine", j["files"][0], config=bench_config.config_text(
        "conga", "spine-conga", "conga-spine", size, n, None))
    if t.check(p.returncode == 0 and st, "rocetor conga spine: %d %s" % (
            p.returncode, p.stderr[-2000:])):
        t.eq(len(out), packets, "(conga spine: every frame forwarded)")
        ok, why = harness.accounted(st)
        t.check(ok, "accounting: " + why)
        # In arrival order (one port in, one out): the header kept, the CE
        # never lowered, the stripped frame the sender's.
        for k, (f, g) in enumerate(zip(frames, out)):
            _, _, b = R.offsets(g)
            t.eq((len(g), g[b + 4], g[b + 8], g[b + 12:b + 15]),
                 (len(f), f[b + 4], 0x32, f[b + 12:b + 15]), "(spine frame %d: header kept)" % k)
            t.check(g[b + 15] >> 4 >= hdrs[k] and g[b + 15] & 15 == f[b + 15] & 15,
                    "(spine frame %d: CE %d -> %d)" % (k, hdrs[k], g[b + 15] >> 4))
            t.check(same_as_sent(R.strip_cw(g), R.strip_cw(f)),
                    "(spine frame %d: the sender's bytes)" % k)
        raised = sum(g[R.offsets(g)[2] + 15] >> 4 > c for g, c in zip(out, hdrs))
        t.eq(st["lb"]["conga_ce_raised"], raised, "(conga spine: conga_ce_raised)")


def main():
    t = harness.Checker("bench-gen")
    work = tempfile.mkdtemp(prefix="rocetor-benchgen-")
    try:
        t0 = time.time()
        test_src(t, work)
        test_plans(t)
        test_dst(t, work)
        test_spray_dst(t, work)
        test_conga_dst(t, work)
        print("bench-gen: %.1f s" % (time.time() - t0))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return t.done()


if __name__ == "__main__":
    sys.exit(main())

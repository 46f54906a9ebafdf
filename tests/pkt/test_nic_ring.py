#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The rocetor authors
"""The NIC ring and the hardware TX queues on virtual ports (issue 31,
doc/egress.md "The NIC ring" and "Hardware TX queues per class"):

- qos.hw_queues 3 on net_pcap with three TX queues (one worker): each
  class leaves on its own queue (control 0, the lossless class 1, lossy 2),
  every frame exactly once, byte for byte as forwarded (ICRC valid by
  scapy's check); the start-up line says txq 3, and that the NIC serves
  the queues as it does (no rte_tm on net_pcap; the ice tree is unit test
  nic-tm's);
- a device with fewer TX queues than workers x hw_queues is refused with
  the reason (exit 1, naming qos.hw_queues);
- ports[].nic_ring_kb 32 with speed_gbps 10: the start-up line says the
  ring is bounded and the control frame's bound; a 2 MB burst is paced
  (ring_holds counted, the most wire time ahead of a frame within the
  ring), nothing lost, the stats document's ports[].nic_ring says so;
- pfc.mode external (the NIC sends the pause): a lossless class over
  xoff_kb holds its ingress port's RX, so the class queue peaks near
  xoff_kb (with pfc off: the whole 3 MB burst), nothing lost, no PFC frame
  sent, pfc.rx_holds counted;
- nic_ring_kb unset (auto) on a virtual port: unbounded, said at start-up,
  paced false in the stats document;
- qos.buffer shared (issue 32) on a port shaped to 1 Gb/s: a 3 MB burst
  queues no more than the 512 KB pool (half of it, alpha 1), the rest is
  dropped as queue_full and counted, and the stats document's buffer says
  the pool, the auto cell (256 B: the mempool's share, app/budget.c), a
  peak within the pool and nothing in use at exit; the default says static.

The pacing itself (the CNP/XOFF bounds, RED on ring bytes, the departure
stamp) is held to on a model NIC on a virtual clock by the unit test
egress-nic; here only what a lab sees on these ports."""
import os
import re
import shutil
import sys

sys.path.insert(0, os.path.dirname(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
import harness  # noqa: E402
import roce  # noqa: E402
import test_egress as E  # noqa: E402

T = harness.Checker("pkt-nic-ring")

QOS3 = """classes: 4
hw_queues: 3
dscp: [{dscp: 26, class: 1}]
pfc: {mode: external, classes: [1]}"""


def accounted(res, what):
    """Every packet received is forwarded, consumed or dropped by a named
    reason, nothing held at exit (harness.accounted)."""
    ok, why = harness.accounted(res.stats) if res.stats else (False, "no stats")
    return ok, "%s: accounting: %s" % (what, why)


def test_hw_queues():
    """Three classes on three TX queues of port 1."""
    frames = []
    kinds = []
    for i in range(300):
        if i % 3 == 0:
            frames.append(E.data(i, payload=600, dscp=0))        # lossy: class 0, queue 2
            kinds.append(2)
        elif i % 3 == 1:
            frames.append(E.data(i, payload=600, dscp=26))       # lossless: class 1, queue 1
            kinds.append(1)
        else:
            frames.append(roce.cnp(0x11, psn=i, dst_ip="10.2.0.1"))  # control: queue 0
            kinds.append(0)
    # Three rx_pcap too (net_pcap pairs them): rocetor polls all three
    # (rx_queues 3; a queue left unconfigured leaks its pcap handle in the
    # PMD), the frames are all in queue 0.
    cfg = E.config(p1=", rx_queues: 3", qos=QOS3).replace(
        'role: host, mac: "%s"}' % E.HOST_MAC, 'role: host, mac: "%s", rx_queues: 3}' % E.HOST_MAC)
    res = harness.run(cfg, [frames, []], tag="nicring-hwq", queues=3,
                      rxq=lambda port, f: 0, keep=True)
    try:
        T.eq(res.rc, 0, "exit status (stderr %s)" % res.stderr[-400:])
        T.check(*accounted(res, "hw_queues"))
        m = re.search(r"^rocetor: port 1 fabric .* rxq (\d+) txq (\d+)", res.stdout, re.M)
        T.check(m is not None and m.group(2) == "3", "port 1 has 3 TX queues: %s"
                % (m.group(0) if m else res.stdout[-400:]))
        outs = [harness.read_pcap(os.path.join(res.workdir, "out1_%d.pcap" % q))
                for q in range(3)]
        T.eq(sum(len(o) for o in outs), len(frames), "every frame forwarded once")
        for q in range(3):
            want = sorted(roce.bth_fields(f)["psn"] for f, k in zip(frames, kinds) if k == q)
            got = sorted(roce.bth_fields(bytes(f))["psn"] for f in outs[q])
            T.eq(got, want, "TX queue %d carries exactly its class's frames" % q)
            bad = sum(not roce.icrc_ok(bytes(f)) for f in outs[q])
            T.eq(bad, 0, "ICRC valid on queue %d (scapy)" % q)
        # in order within each queue (one flow per class)
        for q in range(3):
            ps = [roce.bth_fields(bytes(f))["psn"] for f in outs[q]]
            T.check(ps == sorted(ps), "queue %d in order" % q)
        st = res.stats["ports"][1]
        T.eq(st["nic_ring"]["hw_queues"], 3, "stats: hw_queues")
        # net_pcap has no rte_tm: said, not an error
        T.check(re.search(r"^rocetor: port 1: 3 hardware TX queues per worker; the NIC serves "
                          r"them as it does \(no rte_tm queue priorities\)", res.stdout, re.M)
                is not None, "no rte_tm on net_pcap said: %s" % res.stdout[-600:])
    finally:
        shutil.rmtree(res.workdir, ignore_errors=True)


def test_too_few_queues():
    res = harness.run(E.config(qos=QOS3), [[E.data(1)], []], tag="nicring-few")
    T.eq(res.rc, 1, "refused: exit 1")
    T.check("qos.hw_queues 3" in res.stderr and "TX queue" in res.stderr,
            "the reason names qos.hw_queues: %s" % res.stderr[-300:])


def test_paced():
    n = 2000
    frames = [E.data(i, payload=1000) for i in range(n)]
    res = harness.run(E.config(p1=", speed_gbps: 10, nic_ring_kb: 32"), [frames, []],
                      tag="nicring-paced")
    T.eq(res.rc, 0, "exit status (stderr %s)" % res.stderr[-400:])
    T.check(*accounted(res, "paced"))
    m = re.search(r"^rocetor: port 1: NIC ring bounded: 32 KB of wire time ahead at 10\.0 "
                  r"Gb/s, a control frame waits at most ([0-9.]+) us", res.stdout, re.M)
    T.check(m is not None, "start-up says the ring is bounded: %s" % res.stdout[-600:])
    if m:
        # (32 KB + a 4 KB frame + a CNP) at 10 Gb/s
        want = (32768 + 4096 + 24 + 64 + 24) * 8 / 10 / 1000
        T.check(abs(float(m.group(1)) - want) < 0.1, "bound %s us, want %.1f"
                % (m.group(1), want))
    T.eq(res.port(1)["tx_packets"], n, "every frame sent")
    ring = res.stats["ports"][1]["nic_ring"]
    T.check(ring["paced"] is True and ring["limit_bytes"] == 32768, "nic_ring: %s" % ring)
    T.check(ring["ring_holds"] > 0, "the burst was held back: %s" % ring)
    # a frame handed over at most the ring's wire time (26.2 us at 10G)
    # plus a burst's last frame ahead of the wire
    T.check(0 < ring["max_ahead_ns"] <= 32768 * 8 / 10 + 1100, "max_ahead_ns %s"
            % ring["max_ahead_ns"])
    T.eq(ring["desc_cap"], 0, "no descriptor status on net_pcap")
    T.eq(sum(c["sent"] for c in res.stats["ports"][1]["classes"]), n, "classes' sent")


def test_auto_virtual():
    res = harness.run(E.config(), [[E.data(i) for i in range(10)], []], tag="nicring-auto")
    T.eq(res.rc, 0, "exit status")
    T.check(*accounted(res, "auto"))
    T.check(re.search(r"^rocetor: port 1: NIC ring unbounded \(a virtual port\)", res.stdout,
                      re.M) is not None, "auto on net_pcap: unbounded: %s" % res.stdout[-400:])
    T.check(res.stats["ports"][1]["nic_ring"]["paced"] is False, "paced false")
    T.eq(res.port(1)["tx_packets"], 10, "forwarded")
    T.eq(res.stats["buffer"]["mode"], "static", "the default buffer: %s" % res.stats["buffer"])


SHARED_QOS = """classes: 4
queue_kb: 16384
dscp: [{dscp: 26, class: 1}]
buffer: {mode: shared, size_kb: 512}"""


def test_shared_pool():
    n = 3000
    frames = [E.data(i, payload=1000, dscp=26) for i in range(n)]
    res = harness.run(E.config(p1=", shape_gbps: 1", qos=SHARED_QOS), [frames, []],
                      tag="nicring-shared", idle_ms=600)
    T.eq(res.rc, 0, "shared: exit status (stderr %s)" % res.stderr[-300:])
    T.check(*accounted(res, "shared"))
    buf = res.stats["buffer"]
    T.check(buf["mode"] == "shared" and buf["size_bytes"] == 512 * 1024
            and buf["cell_bytes"] == 256, "the pool and the auto cell: %s" % buf)
    T.eq(buf["used_bytes"], 0, "nothing in the pool at exit")
    cl = res.stats["ports"][1]["classes"][1]
    sent = res.port(1)["tx_packets"]
    print("  shared pool: class 1 peak %d B, pool peak %d B, %d sent, %d queue_full"
          % (cl["max_depth"], buf["peak_bytes"], sent, cl["drop_queue_full"]))
    T.check(0 < buf["peak_bytes"] <= 512 * 1024, "pool peak %d" % buf["peak_bytes"])
    # alpha 1: one busy queue within half the pool (plus one frame)
    T.check(cl["max_depth"] <= 256 * 1024 + 1100, "class 1 peaked at %d B" % cl["max_depth"])
    T.check(cl["drop_queue_full"] > 0, "the burst past the pool is dropped and counted")
    T.eq(sent + cl["drop_queue_full"], n, "every frame sent or dropped as queue_full")


HOLD_QOS = """classes: 4
queue_kb: 16384
dscp: [{dscp: 26, class: 1}]
pfc: %s"""


def test_rx_hold():
    """pfc.mode external: the NIC sends the pause, so a lossless class over
    xoff_kb holds its ingress port's RX: the class queue stays near xoff_kb
    (the rest waits in the NIC; here the pcap file) where with pfc off it
    takes the whole burst."""
    n = 3000
    frames = [E.data(i, payload=1000, dscp=26) for i in range(n)]
    depth = {}
    for mode in ("off", "external"):
        pfc = "{mode: off}" if mode == "off" else \
            "{mode: external, classes: [1], xoff_kb: 64, xon_kb: 32}"
        res = harness.run(E.config(p1=", shape_gbps: 1", qos=HOLD_QOS % pfc), [frames, []],
                          tag="nicring-hold", idle_ms=600)
        T.eq(res.rc, 0, "%s: exit status (stderr %s)" % (mode, res.stderr[-300:]))
        T.check(*accounted(res, mode))
        T.eq(res.port(1)["tx_packets"], n, "%s: every frame forwarded" % mode)
        cl = res.stats["ports"][1]["classes"][1]
        T.eq(cl["drop_queue_full"], 0, "%s: no tail drop" % mode)
        depth[mode] = cl["max_depth"]
        holds = res.stats["ports"][0]["pfc"]["rx_holds"]
        if mode == "external":
            T.check(holds >= 1, "external: port 0's RX held %d times" % holds)
            T.eq(res.stats["ports"][0]["pfc"]["tx_xoff"], 0, "external: no PFC frame sent")
        else:
            T.eq(holds, 0, "off: no hold")
    print("  class 1 peak: %d B held (external), %d B (off)" % (depth["external"], depth["off"]))
    # held: xoff_kb plus what one RX burst brings (32 x 1.06 KB)
    T.check(depth["external"] <= 64 * 1024 + 32 * 1100,
            "external: class 1 peaked at %d B" % depth["external"])
    T.check(depth["off"] > 1000 * 1024, "off: class 1 peaked at %d B" % depth["off"])


test_hw_queues()
test_too_few_queues()
test_rx_hold()
test_paced()
test_auto_virtual()
test_shared_pool()
sys.exit(T.done())

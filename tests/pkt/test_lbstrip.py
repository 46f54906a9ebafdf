#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The rocetor authors
"""Every ToR, whatever its LB mode, removes the LB fields it recognises
before a host port (issue 15 item 11; rule in doc/wire-formats.md).

1. Mixed modes. A ToR in each mode (ecmp, seqbalance, caver, conweave, spray,
   letflow, drill, conga)
   receives on a fabric port, for its host: ConWeave-stamped data (BTH byte 4
   = path, Resv7 fields, the 4-byte header the IP/UDP lengths do not count;
   IPv4 and IPv6, a padded zero-payload frame, RETH, AckReq), ConWeave
   REPLY / CLEAR / NOTIFY addressed to its host, CAVER-shimmed RC ACKs,
   SeqBalance PathTags, plain RoCE, a CNP, and RNIC frames whose own Resv7 is
   not zero (which carry no LB field and must arrive as sent). Every frame
   the host gets has a valid ICRC (scapy) and is what its sender sent but for
   MACs, TTL, IP checksum and byte 4; no control packet reaches the host
   (each is consumed and counted); nothing else is lost.
2. A runtime switch ConWeave -> ECMP in mid-stream (/rocetor/lb/set): the
   same stream, replayed without end, keeps arriving after the switch; every
   frame at the host before and after it has a valid ICRC, and the control
   packets arriving after it are consumed and counted (foreign_ctrl).
"""
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
import harness  # noqa: E402
import roce as R  # noqa: E402
import test_caver as CV  # noqa: E402
import test_conweave as CW  # noqa: E402
import test_lbswitch as SW  # noqa: E402

MODES = ("ecmp", "seqbalance", "caver", "conweave", "spray", "letflow", "drill", "conga")
HOST_MAC = CW.HOST_MAC
FAB_MAC = CW.FAB_MAC


def config(lb, host_extra=""):
    """A ToR: 10.2/16 and fd00:2::/64 behind host port 0, 10.1/16 and
    fd00:1::/64 over uplinks 1..4."""
    return (CW.dst_config().replace("lb: conweave", "lb: %s" % lb)
            .replace('{port: 0, role: host, mac: "%s"}' % HOST_MAC,
                     '{port: 0, role: host, mac: "%s"%s}' % (HOST_MAC, host_extra)))


def hf(psn, sport, v6=False, payload=64, op=R.SEND_MIDDLE, **kw):
    """A host frame 10.1.0.1 -> 10.2.0.5 (fd00:1::1 -> fd00:2::5), as the
    sending RNIC made it, arriving on fabric port 1."""
    src, dst = ("fd00:1::1", "fd00:2::5") if v6 else ("10.1.0.1", "10.2.0.5")
    return R.frame(op, psn=psn, dqp=0x11, payload=bytes([psn & 0xFF]) * payload, src_ip=src,
                   dst_ip=dst, sport=sport, src_mac=CW.SPINE[0], dst_mac=FAB_MAC[0], **kw)


def inputs():
    """(arriving frames, {key: the RNIC's frame} for what must reach the
    host, control packets that must not)."""
    arriving, sent, ctrl = [], {}, []

    def deliver(orig, wire=None):
        arriving.append(orig if wire is None else wire)
        sent[CV.pkt_key(orig)] = orig

    # ConWeave DATA: a flow per variant, RTT_REQUEST, phase 0, TAIL, phase 1.
    variants = [dict(), dict(v6=True), dict(payload=0), dict(op=R.WRITE_FIRST,
                reth_=(0x1000, 0x55, 4096)), dict(ackreq=True), dict(ecn=3)]
    for i, kw in enumerate(variants):
        sp = 0xC000 + i
        for psn, fields in ((1, dict(ask=1)), (2, {}), (3, dict(ask=1, tail=1)),
                            (4, dict(phase=1, ts_tail=3))):
            f = hf(psn, sp, **kw)
            deliver(f, CW.arrive(f, epoch=1, ts_tx=psn, path=2, **fields))
    # ConWeave control packets for our host (answers to 10.2.0.5's data).
    for i, (op, ph) in enumerate(((R.CW_REPLY, 0), (R.CW_REPLY, 1), (R.CW_NOTIFY, 0))):
        for v6 in (False, True):
            d = CW.arrive(R.frame(R.SEND_MIDDLE, psn=1, dqp=0x11, payload=bytes(64),
                                  src_ip="fd00:2::5" if v6 else "10.2.0.5",
                                  dst_ip="fd00:1::1" if v6 else "10.1.0.1",
                                  sport=0xD000 + i), epoch=2, path=1)
            c = R.cw_control(d, op, phase=ph, ts_tx=7, dst_mac=FAB_MAC[0], src_mac=CW.SPINE[0])
            arriving.append(c)
            ctrl.append(c)
    # CAVER-shimmed ACKs (as a spine forwards them: hops 1).
    for i in range(4):
        a = CV.ack("10.1.0.1", "10.2.0.5", 0xE000 + i, 10 + i, FAB_MAC[0], ackreq=i == 1)
        deliver(a, CV.add_shim(a, "10.1.0.1", 0x03000000, 17 + i, 1, 0x0909))
    # SeqBalance PathTags.
    for i in range(3):
        f = hf(1, 0xE100 + i, v6=i == 2)
        deliver(f, CV.with_b4(f, i + 1))
    # Plain RoCE and a CNP.
    deliver(hf(1, 0xE200))
    deliver(R.cnp(0x33, src_ip="10.1.0.1", dst_ip="10.2.0.5", sport=0xE201,
                  src_mac=CW.SPINE[0], dst_mac=FAB_MAC[0]))
    # RNIC frames with their own non-zero Resv7 (ALGORITHMS.md 0) and no LB
    # field: cw_op 1 with and without payload, cw_op 2 on a zero-payload
    # SEND (control length, but a valid ICRC), 0x7F on data, cw_op 3 on an
    # ACK, 0x7F on an ACK too short for a shim.
    deliver(hf(1, 0xE300, resv7=0x20))
    deliver(hf(1, 0xE301, resv7=0x3F, payload=0))
    deliver(hf(1, 0xE302, resv7=0x40, payload=0, op=R.SEND_ONLY))
    deliver(hf(1, 0xE303, resv7=0x7F))
    deliver(CV.ack("10.1.0.1", "10.2.0.5", 0xE304, 5, FAB_MAC[0], resv7=0x60))
    deliver(CV.ack("10.1.0.1", "10.2.0.5", 0xE305, 6, FAB_MAC[0], resv7=0x7F))
    return arriving, sent, ctrl


def check_host(t, out, sent, what):
    """Every host frame: ICRC valid, the sender's bytes. Returns (bad ICRC,
    not as sent, unexpected)."""
    bad = differs = unexpected = 0
    for f in out:
        try:
            s = sent.get(CV.pkt_key(f))
        except (ValueError, IndexError):
            s = None
        if s is None:
            unexpected += 1
            continue
        if not R.icrc_ok(f):
            bad += 1
        elif not CW.same_as_sent(f, s):
            differs += 1
    return bad, differs, unexpected


# --------------------------------------------------------------------------
def test_mixed(t):
    arriving, sent, ctrl = inputs()
    t.check(all(R.icrc_ok(f) for f in sent.values()), "test input: the RNICs' ICRCs")
    for mode in MODES:
        before = (t.passed + t.failed, t.failed)
        res = harness.run(config(mode), [[], arriving, [], [], []], tag="strip-" + mode,
                          idle_ms=300)
        if not t.check(res.rc == 0 and res.stats, "%s: rocetor %d %s" % (mode, res.rc,
                                                                         res.stderr[-1500:])):
            continue
        st, lb = res.stats, res.stats["lb"]
        out = res.outputs[0]
        bad, differs, unexpected = check_host(t, out, sent, mode)
        got = {}
        for f in out:
            try:
                got[CV.pkt_key(f)] = got.get(CV.pkt_key(f), 0) + 1
            except (ValueError, IndexError):
                pass
        missing = [k for k in sent if got.get(k, 0) != 1]
        t.eq(bad, 0, "(%s: frames with an invalid ICRC at the host)" % mode)
        t.eq(differs, 0, "(%s: frames not as their sender sent them)" % mode)
        t.eq(unexpected, 0, "(%s: control packets or unknown frames at the host)" % mode)
        t.eq(len(missing), 0, "(%s: frames not delivered exactly once: %s)" % (mode, missing[:4]))
        t.eq(len(out), len(sent), "(%s: delivered)" % mode)
        t.eq(st["consumed"], len(ctrl), "(%s: control packets consumed)" % mode)
        if mode in ("ecmp", "caver", "letflow", "drill", "conga"):
            t.eq(lb.get("foreign_ctrl", 0), len(ctrl), "(%s: foreign_ctrl)" % mode)
            t.eq(lb.get("foreign_cw_stripped", 0), 6 * 4, "(%s: ConWeave headers removed)" % mode)
        elif mode == "spray":
            # spray reads NOTIFYs (its own remote congestion feedback);
            # REPLY/CLEAR are foreign to it.
            t.eq(lb.get("foreign_cw_stripped", 0), 6 * 4, "(spray: ConWeave headers removed)")
            t.check(lb.get("notifies_rx", 0) > 0, "spray: its control_rx saw no NOTIFY")
            t.eq(lb.get("foreign_ctrl", 0) + lb.get("notifies_rx", 0), len(ctrl),
                 "(spray: NOTIFYs read, the rest foreign_ctrl)")
        elif mode == "seqbalance":
            t.eq(lb.get("foreign_cw_stripped", 0), 6 * 4, "(%s: ConWeave headers removed)" % mode)
            t.eq(lb["notifies_rx"] + lb["ctrl_no_flow"], len(ctrl) + 2,
                 "(seqbalance: its control_rx saw every one)")
        if mode != "caver":
            t.eq(lb.get("foreign_shims_stripped", 0), 4, "(%s: CAVER shims removed)" % mode)
        else:
            t.eq(lb["caver_shims_stripped"], 4, "(caver: its own shims)")
        ok, why = harness.accounted(st)
        t.check(ok, "%s: accounting: %s" % (mode, why))
        print("mixed %s: %d frames at the host (%d expected): %d invalid ICRC, %d not as sent, "
              "%d control/unknown, %d missing; %d control packets consumed (%d checks, %d "
              "failed)" % (mode, len(out), len(sent), bad, differs, unexpected, len(missing),
                           st["consumed"], t.passed + t.failed - before[0], t.failed - before[1]))


def kinds_of(frames):
    """Frames at the host by kind: data, ACKs, control packets."""
    k = {"cw": 0, "ack": 0, "ctrl": 0}
    for f in frames:
        b = R.bth_fields(f)
        if b["opcode"] == R.ACK:
            k["ack"] += 1
        elif len(f) <= 62 and b["resv7"]:
            k["ctrl"] += 1
        else:
            k["cw"] += 1
    return k


def host_tx(tel):
    """Frames host port 0 has sent so far (telemetry)."""
    return ((tel.cmd("/rocetor/ports") or {}).get("0") or {}).get("tx_packets", 0)


# --------------------------------------------------------------------------
def test_runtime_switch(t):
    """ConWeave -> ECMP while ConWeave-stamped data, control packets and
    CAVER-shimmed ACKs keep arriving (the pcap replayed without end; the
    host port shaped to 2 Mb/s so that the capture stays small)."""
    stream, sent = [], {}
    for i in range(8):
        f = hf(1 + i, 0xC100 + i % 4, v6=i == 5)
        stream.append(CW.arrive(f, epoch=1, ts_tx=i, path=i % 4))
        sent[CV.pkt_key(f)] = f
    for i in range(2):
        a = CV.ack("10.1.0.1", "10.2.0.5", 0xE000 + i, 10 + i, FAB_MAC[0])
        stream.append(CV.add_shim(a, "10.1.0.1", 0x03000000, 9, 1, 0x0909))
        sent[CV.pkt_key(a)] = a
    d = R.frame(R.SEND_MIDDLE, psn=1, dqp=0x11, payload=bytes(64), src_ip="10.2.0.5",
                dst_ip="10.1.0.1", sport=0xD000)
    stream.append(R.cw_control(CW.arrive(d, epoch=1, path=1), R.CW_NOTIFY, dst_mac=FAB_MAC[0]))
    work = harness.tempfile.mkdtemp(prefix="rocetor-stripsw-")
    cfg = os.path.join(work, "c.yaml")
    with open(cfg, "w") as fh:
        fh.write(config("conweave", ", shape_gbps: 0.002, shape_burst_kb: 4") + "qos: {queue_kb: 4}\n")
    rx = os.path.join(work, "in.pcap")
    harness.write_pcap(rx, stream)
    prefix = harness.eal_prefix("stripsw")
    empty = os.path.join(work, "empty.pcap")
    harness.write_pcap(empty, [])
    cmd = [harness.ROCETOR, "-l", "0", "--no-pci", "--no-huge", "-m", "1024", "--file-prefix",
           prefix, "--log-level", "lib.eal:error",
           "--vdev", "net_pcap0,rx_pcap=%s,tx_pcap=%s" % (empty, os.path.join(work, "out0.pcap"))]
    cmd += ["--vdev", "net_pcap1,rx_pcap=%s,infinite_rx=1,tx_pcap=%s" % (
        rx, os.path.join(work, "out1.pcap"))]
    for i in (2, 3, 4):
        cmd += ["--vdev", "net_null%d,no-rx=1" % i]
    cmd += ["--", "--config", cfg, "--stats-json", os.path.join(work, "stats.json"),
            "--telemetry-rw"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    tel, at_switch, r = None, None, {}
    try:
        tel = harness.Telemetry(prefix)
        deadline = time.time() + 20
        while time.time() < deadline:
            if host_tx(tel) >= 100:
                break
            time.sleep(0.05)
        r = tel.cmd("/rocetor/lb/set,ecmp") or {}
        at_switch = host_tx(tel)
        lb0 = (tel.cmd("/rocetor/lb") or {}).get("foreign_ctrl", 0)
        time.sleep(1.0)
    finally:
        if tel:
            tel.close()
        s, so = SW.finish(t, proc, work, "runtime switch")
    t.eq((r.get("ok"), r.get("from"), r.get("mode")), (1, "conweave", "ecmp"),
         "(the switch) %r" % r)
    if s is None or at_switch is None:
        t.check(False, "no stats at the switch")
        return
    out = harness.read_pcap(os.path.join(work, "out0.pcap"))
    after = out[at_switch:]
    bad_before = sum(1 for f in out[:at_switch] if not R.icrc_ok(f))
    bad_after = sum(1 for f in after if not R.icrc_ok(f))
    kinds, kinds0 = kinds_of(after), kinds_of(out[:at_switch])
    t.check(at_switch >= 100 and len(after) >= 20,
            "frames at the host: %d before the switch, %d after" % (at_switch, len(after)))
    t.eq(bad_before, 0, "(invalid ICRCs at the host under ConWeave)")
    t.eq(bad_after, 0, "(invalid ICRCs at the host after the switch to ECMP)")
    t.check(kinds["cw"] > 0 and kinds["ack"] > 0, "data and ACKs after the switch: %r" % kinds)
    t.eq(kinds["ctrl"], 0, "(control packets at the host after the switch)")
    t.check(kinds0["cw"] > 0 and kinds0["ack"] > 0 and kinds0["ctrl"] == 0,
            "under ConWeave: data and shimmed ACKs delivered, no control packet: %r" % kinds0)
    lb = s["lb"]
    t.check(lb.get("foreign_ctrl", 0) > lb0, "control packets consumed by ECMP after the switch: %d "
            "(at the switch %d)" % (lb.get("foreign_ctrl", 0), lb0))
    t.eq(s["lb_mode"], "ecmp")
    ok, why = harness.accounted(s)
    t.check(ok, "accounting: " + why)
    print("runtime switch conweave -> ecmp: %d frames at the host before (%d invalid ICRC; "
          "%r), %d after (%d invalid ICRC; %r); foreign_ctrl %d" % (
              at_switch, bad_before, kinds0, len(after), bad_after, kinds,
              lb.get("foreign_ctrl", 0)))


def main():
    t = harness.Checker("pkt-lbstrip")
    test_mixed(t)
    test_runtime_switch(t)
    return t.done()


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The rocetor authors
"""A RoCE frame larger than the port MTU rocetor sized its mbufs for (RoCE's
4096-byte path MTU: an IP datagram of 4156 bytes) arrives from net_pcap in
segments. With ports[].mtu unset (1500) it is dropped as `oversize`, not
`malformed`, and accounted; with mtu 4200 the same frame is forwarded
whole, its ICRC intact (issue 30, doc/counters.md). The start-up lines say
each port's MTU and where it came from, and warn below RoCE's 4096 and
when a port with several RX queues has no RSS. The MTU rule (a fabric port
carries a host port's largest frame plus the mode's LB header) with the
devices' MTUs, --lb and --telemetry-rw (doc/config.md, mtu)."""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(__file__))
import harness  # noqa: E402
import rocecheck  # noqa: E402
from scapy.all import IP, UDP, Ether, Raw, raw  # noqa: E402
from scapy.contrib.roce import BTH  # noqa: E402

CONFIG = """
switch: {name: mtu, id: 5, lb: ecmp}
ports:
  - {port: 0, role: host, mac: "02:00:00:00:05:00"%s}
  - {port: 1, role: fabric, mac: "02:00:00:00:05:01"%s}
routes:
  - {prefix: "10.2.0.0/16", port: 1, nexthop_mac: "02:00:00:00:bb:01"}
"""


def frame(payload, psn):
    """RDMA WRITE ONLY (RETH, then payload bytes), ICRC valid (scapy)."""
    return raw(Ether(src="02:00:00:00:aa:01", dst="02:00:00:00:05:00")
               / IP(src="10.1.0.1", dst="10.2.0.5", ttl=64)
               / UDP(sport=49152, dport=4791, chksum=0) / BTH(opcode=0x0a, psn=psn, dqpn=9)
               / Raw(b"\x5a" * 16 + bytes(i & 0xff for i in range(payload))))


def main():
    t = harness.Checker("pkt-mtu")
    big = frame(4096, 1)  # RETH + 4096 bytes
    small = frame(1024, 2)
    t.eq(len(big), 14 + 4156, "the big frame: an IP datagram of 4156 bytes")

    r = harness.run(CONFIG % ("", ""), [[big, small], []], tag="mtu")
    t.eq(r.rc, 0, "mtu unset: exit " + r.stderr[-400:])
    if t.check(r.stats is not None, "mtu unset: stats document"):
        drops = r.stats["drops"]
        t.eq(drops.get("oversize"), 1, "mtu unset: the 4 KB frame is oversize")
        t.eq(drops.get("malformed", 0), 0, "mtu unset: nothing malformed")
        ok, why = harness.accounted(r.stats)
        t.check(ok, "mtu unset: accounting: " + why)
        # The NIC's own counters beside rocetor's (net_pcap: none lost).
        p0 = r.stats["ports"][0]
        t.eq([p0.get(k) for k in ("rx_nombuf", "imissed", "ierrors")], [0, 0, 0],
             "mtu unset: port 0's NIC counters")
    t.eq([len(f) for f in r.outputs[1]], [len(small)], "mtu unset: only the small frame out")
    # The start-up lines: the device's MTU kept and said so, and what it
    # carries of RoCE (net_pcap reports 1500: a 1024-byte path MTU).
    t.check(re.search(r"rocetor: port 0 host .* mtu 1500 \(device\)", r.stdout),
            "mtu unset: port 0's start-up line: " + r.stdout[-600:])
    t.check("rocetor: port 0: warning: mtu 1500 carries RoCE over IPv4 up to a 1024-byte "
            "path MTU; 4096 needs mtu 4156" in r.stdout, "mtu unset: the RoCE 4096 warning")

    r = harness.run(CONFIG % (", mtu: 4200", ", mtu: 4200"), [[big, small], []], tag="mtu")
    t.eq(r.rc, 0, "mtu 4200: exit " + r.stderr[-400:])
    if t.check(r.stats is not None, "mtu 4200: stats document"):
        t.eq(r.stats["drops"].get("oversize", 0), 0, "mtu 4200: nothing oversize")
        ok, why = harness.accounted(r.stats)
        t.check(ok, "mtu 4200: accounting: " + why)
    t.check(re.search(r"rocetor: port 1 fabric .* mtu 4200 \(config\)", r.stdout),
            "mtu 4200: port 1's start-up line: " + r.stdout[-600:])
    t.check("warning: mtu" not in r.stdout, "mtu 4200: no MTU warning")
    out = r.outputs[1]
    t.eq([len(f) for f in out], [len(big), len(small)], "mtu 4200: both frames out, whole")
    if out:
        t.check(rocecheck.icrc_ok(Ether(out[0])), "mtu 4200: the 4 KB frame's ICRC")
        t.eq(Ether(out[0])[IP].ttl, 63, "mtu 4200: routed (TTL)")

    # A mode that inserts its LB header (ConWeave): a fabric port needs 4
    # bytes more for RoCE 4096, and the header counts on fabric ports only
    # (the host port keeps the device's 1500, which 4156 carries with it).
    cfg = (CONFIG % ("", ", mtu: 4156")).replace("lb: ecmp", "lb: conweave")
    r = harness.run(cfg, [[small], []], tag="mtu")
    t.eq(r.rc, 0, "conweave: exit " + r.stderr[-400:])
    if t.check(r.stats is not None, "conweave: stats document"):
        ok, why = harness.accounted(r.stats)
        t.check(ok, "conweave: accounting: " + why)
    t.check("rocetor: port 1: warning: mtu 4156 carries RoCE over IPv4 up to a 2048-byte "
            "path MTU; 4096 needs mtu 4160 with the LB header" in r.stdout,
            "conweave: the fabric port's warning counts the LB header: " + r.stdout[-800:])
    t.check("rocetor: port 0: warning: mtu 1500 carries RoCE over IPv4 up to a 1024-byte "
            "path MTU; 4096 needs mtu 4156 (ports[].mtu)" in r.stdout,
            "conweave: the host port's warning without the LB header: " + r.stdout[-800:])

    # The MTU rule (doc/config.md, mtu): a fabric port must carry a host
    # port's largest frame plus the header the mode adds on fabric ports.
    # With an mtu unset, checked once the device's is known (net_pcap:
    # 1500): an error naming both ports, the numbers and which came from
    # the device, exit status 2 like any config error.
    def rule(tag, cfg, want_rc, want, args=()):
        r = harness.run(cfg, [[small], []], tag="mtu", args=args)
        t.eq(r.rc, want_rc, "%s: exit: %s" % (tag, r.stderr[-400:]))
        if want_rc:
            t.check(r.stderr.rstrip("\n").endswith("switch.yaml:" + want),
                    "%s: the message: %r" % (tag, r.stderr[-400:]))
        elif want:
            t.check(want in r.stdout, "%s: %r: %s" % (tag, want, r.stdout[-1200:]))
        else:
            t.check("cannot carry" not in r.stdout + r.stderr,
                    "%s: nothing about the MTU rule: %s" % (tag, r.stdout[-800:]))
        return r

    tail = " plus the 4-byte LB header of %s: needs %d or more (doc/config.md, mtu)"
    cw = CONFIG.replace("lb: ecmp", "lb: conweave")
    rule("conweave, fabric unset", cw % (", mtu: 9000", ""), 2,
         "5: ports[1].mtu: fabric port 1's mtu 1500 (unset: the device's) cannot carry host "
         "port 0's largest frame (mtu 9000)" + tail % ("conweave (switch.lb)", 9004))
    rule("spray, host unset", CONFIG.replace("lb: ecmp", "lb: spray") % ("", ", mtu: 1500"), 2,
         "5: ports[1].mtu: fabric port 1's mtu 1500 cannot carry host port 0's largest frame "
         "(mtu 1500, unset: the device's)" + tail % ("spray (switch.lb)", 1504))
    # ECMP adds nothing: the host's 1500 fits the device's 1500 (ConWeave's
    # would not: the case below with both unset).
    rule("ecmp, fabric unset", CONFIG % (", mtu: 1500", ""), 0, "")
    rule("--lb conweave", CONFIG % (", mtu: 9000", ", mtu: 9000"), 2,
         "5: ports[1].mtu: fabric port 1's mtu 9000 cannot carry host port 0's largest frame "
         "(mtu 9000)" + tail % ("conweave (--lb)", 9004), args=["--lb", "conweave"])
    rule("--telemetry-rw", CONFIG % (", mtu: 9000", ", mtu: 9000"), 2,
         "5: ports[1].mtu: fabric port 1's mtu 9000 cannot carry host port 0's largest frame "
         "(mtu 9000)" + tail % ("conweave, which --telemetry-rw lets /rocetor/lb/set switch "
                                "to", 9004), args=["--telemetry-rw"])
    rule("--telemetry-rw, fabric 9100", CONFIG % (", mtu: 9000", ", mtu: 9100"), 0, "",
         args=["--telemetry-rw"])
    # Both the devices' (nothing in the file says otherwise): a warning.
    rule("conweave, both unset", cw % ("", ""), 0,
         "rocetor: port 1: warning: mtu 1500 (the device's) cannot carry host port 0's "
         "largest frame (mtu 1500, the device's) plus the 4-byte LB header of conweave "
         "(switch.lb): set ports[].mtu, 1504 or more on this port (doc/config.md)")

    # Two RX queues on a device without RSS (net_pcap): said at start, as
    # everything will arrive on queue 0.
    r = harness.run(CONFIG % ("", ""), [[small], []], tag="mtu", lcores="0@0,1@1,2@1", queues=2)
    t.eq(r.rc, 0, "two queues: exit " + r.stderr[-400:])
    if t.check(r.stats is not None, "two queues: stats document"):
        ok, why = harness.accounted(r.stats)
        t.check(ok, "two queues: accounting: " + why)
    t.check("rocetor: port 0 (net_pcap): warning: no RSS: every packet arrives on RX queue 0, "
            "the other 1 stay idle" in r.stdout, "two queues: the no-RSS warning: "
            + r.stdout[-800:])
    return t.done()


if __name__ == "__main__":
    sys.exit(main())

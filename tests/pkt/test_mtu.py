#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The rocetor authors
"""A RoCE frame larger than the port MTU rocetor sized its mbufs for (RoCE's
4096-byte path MTU: an IP datagram of 4156 bytes) arrives from net_pcap in
segments. With ports[].mtu unset (1500) it is dropped as `oversize`, not
`malformed`, and accounted; with mtu 4200 the same frame is forwarded
whole, its ICRC intact (issue 30, doc/counters.md). The start-up lines say
each port's MTU and where it came from, and warn below RoCE's 4096 and
when a port with several RX queues has no RSS."""
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
    # bytes more; the host port at 4156 is enough.
    cfg = (CONFIG % (", mtu: 4156", ", mtu: 4156")).replace("lb: ecmp", "lb: conweave")
    r = harness.run(cfg, [[small], []], tag="mtu")
    t.eq(r.rc, 0, "conweave: exit " + r.stderr[-400:])
    if t.check(r.stats is not None, "conweave: stats document"):
        ok, why = harness.accounted(r.stats)
        t.check(ok, "conweave: accounting: " + why)
    t.check("rocetor: port 1: warning: mtu 4156 carries RoCE over IPv4 up to a 2048-byte "
            "path MTU; 4096 needs mtu 4160 with the LB header" in r.stdout,
            "conweave: the fabric port's warning counts the LB header: " + r.stdout[-800:])
    t.check("rocetor: port 0: warning" not in r.stdout, "conweave: no warning for the host port")

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

#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The rocetor authors
"""The real RNIC capture (shared/data/roce-rc-send-real.pcap) crosses a
rocetor ToR from its host port to a 4-path uplink group: every RoCE packet
comes out with its ICRC still valid (scapy recomputes it), TTL decremented,
MACs rewritten, IPv4 checksum valid, each flow on one path; and every frame
is accounted."""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
import harness  # noqa: E402
from scapy.all import ARP, IP, IPv6, Ether, raw, rdpcap  # noqa: E402
from scapy.contrib.roce import BTH  # noqa: E402

SRC = os.environ.get("ROCETOR_SRC", os.path.join(os.path.dirname(__file__), "..", ".."))
CAPTURE = os.path.join(SRC, "..", "shared", "data", "roce-rc-send-real.pcap")
NH = ["02:00:00:00:bb:0%d" % i for i in range(1, 5)]
FAB = ["02:00:00:00:01:0%d" % i for i in range(1, 5)]

CONFIG = """
switch: {name: cap, id: 3}
ports:
  - {port: 0, role: host, mac: "02:00:00:00:01:00", l2_filter: false}
""" + "".join('  - {port: %d, role: fabric, mac: "%s"}\n' % (i + 1, FAB[i]) for i in range(4)) + """
routes:
  - prefix: "192.168.70.0/24"
    paths:
""" + "".join('      - {port: %d, nexthop_mac: "%s"}\n' % (i + 1, NH[i]) for i in range(4))


def icrc_ok(frame):
    p = Ether(frame)
    q = Ether(frame)
    q[BTH].icrc = None
    return raw(q)[-4:] == frame[-4:] and raw(p) == frame


def main():
    t = harness.Checker("pkt-capture")
    frames = [raw(p) for p in rdpcap(CAPTURE)]
    roce_in = [f for f in frames if BTH in Ether(f)]
    ipv4_in = [f for f in frames if IP in Ether(f)]
    t.eq(len(roce_in), 105, "(RoCE packets in the capture)")
    t.check(all(icrc_ok(f) for f in roce_in), "capture ICRCs valid before the switch")
    res = harness.run(CONFIG, [frames, [], [], [], []], tag="cap")
    if not t.check(res.rc == 0 and res.stats, "rocetor failed: %s" % res.stderr[-2000:]):
        return t.done()
    out = []
    flows = {}
    for port, fr in enumerate(res.outputs):
        for f in fr:
            out.append((port, f))
    t.eq(len(res.outputs[0]), 0, "(nothing back to the host port)")
    roce_out = [(p, f) for p, f in out if BTH in Ether(f)]
    t.eq(len(roce_out), 105, "(RoCE packets forwarded)")
    bad = [i for i, (p, f) in enumerate(roce_out) if not icrc_ok(f)]
    t.eq(bad, [], "(RoCE packets with a bad ICRC after the switch)")
    for port, f in out:
        p = Ether(f)
        if IP not in p:
            continue
        t.eq(p[IP].ttl, 63)
        t.eq(p.src, FAB[port - 1])
        t.eq(p.dst, NH[port - 1])
        chk = p[IP].chksum
        q = p.copy()
        del q[IP].chksum
        t.eq(Ether(raw(q))[IP].chksum, chk, "(IPv4 checksum)")
        if BTH in p:
            flows.setdefault((p[IP].src, p[IP].dst, p.sport), set()).add(port)
    t.check(all(len(v) == 1 for v in flows.values()), "a flow used several paths: %s" % flows)
    s = res.stats
    t.eq(s["forwarded"], len(ipv4_in), "(every IPv4 frame forwarded)")
    n_arp = sum(1 for f in frames if ARP in Ether(f))
    n_v6 = sum(1 for f in frames if IPv6 in Ether(f))
    t.eq(s["consumed"] + s["drops"]["no_route"], n_arp + n_v6,
         "(ARP punted, IPv6 multicast not routed)")
    ok, why = harness.accounted(s)
    t.check(ok, "accounting: " + why)
    t.eq(sum(p["rx_packets"] for p in s["ports"]), len(frames))
    print("capture: %d frames in, %d RoCE out with valid ICRC, flows on paths %s"
          % (len(frames), len(roce_out) - len(bad), sorted(min(v) for v in flows.values())))
    return t.done()


if __name__ == "__main__":
    sys.exit(main())

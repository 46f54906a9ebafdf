#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The rocetor authors
"""Table-driven packet test: each input frame with its expected output port
and bytes, or its expected drop reason (the T4P4S test style). Outputs are
checked by an independent decoder (scapy): TTL/hop limit, MACs, IPv4
checksum, RoCE ICRC, and that nothing else changed. Every packet is
accounted: rx = forwarded + consumed + dropped."""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
import harness  # noqa: E402
from scapy.all import (ARP, ICMP, IP, IPv6, TCP, UDP, Dot1Q, Ether, Raw,  # noqa: E402
                       IPOption_RR, raw)
from scapy.contrib.roce import BTH, AETH  # noqa: E402

HOST_MAC = "02:00:00:00:01:00"
FAB = ["02:00:00:00:01:0%d" % i for i in range(1, 5)]
NH = ["02:00:00:00:bb:0%d" % i for i in range(1, 5)]
H1 = "02:00:00:00:aa:01"
SENDER = "02:00:00:00:aa:09"

CONFIG = """
switch: {name: fwd, id: 7, lb: ecmp}
ports:
  - {port: 0, role: host, mac: "%s", ip: "10.1.0.254/16"}
""" % HOST_MAC + "".join(
    '  - {port: %d, role: fabric, mac: "%s", ip: "192.168.%d.1/30"}\n' % (i + 1, FAB[i], i + 1)
    for i in range(4)) + """
routes:
  - {prefix: "10.1.0.1/32", port: 0, nexthop_mac: "%s"}
  - {prefix: "10.9.0.0/16", port: 1, nexthop: "192.168.1.2"}
  - prefix: "10.2.0.0/16"
    paths:
""" % H1 + "".join('      - {port: %d, nexthop_mac: "%s"}\n' % (i + 1, NH[i]) for i in range(4)) + """
  - prefix: "fd00:2::/64"
    paths:
""" + "".join('      - {port: %d, nexthop_mac: "%s"}\n' % (i + 1, NH[i]) for i in range(4))


def roce(src="10.1.0.1", dst="10.2.0.5", sport=49152, psn=1, ttl=64, v6=False,
         vlan=None, opts=False, dmac=HOST_MAC, payload=64, op=4):
    l2 = Ether(src=SENDER, dst=dmac)
    if vlan is not None:
        l2 = l2 / Dot1Q(vlan=vlan, prio=3)
    if v6:
        l3 = IPv6(src="fd00:1::1", dst=dst, hlim=ttl, tc=0x68)
    else:
        l3 = IP(src=src, dst=dst, ttl=ttl, tos=0x6a, id=psn,
                options=[IPOption_RR()] if opts else [])
    return l2 / l3 / UDP(sport=sport, dport=4791) / BTH(opcode=op, dqpn=0x11, psn=psn) \
        / Raw(b"\x5a" * payload)


# (description, input port, frame, expected: ("port", set of ports) or ("drop", reason)
#  or ("consumed", reply port))
CASES = []


def case(desc, port, frame, expect):
    CASES.append((desc, port, bytes(raw(frame)), expect))


UPLINKS = ("port", {1, 2, 3, 4})
for i in range(32):
    case("RoCE v4 flow %d to the uplink group" % i, 0,
         roce(sport=49152 + i, psn=100 + i), UPLINKS)
for k in range(4):  # one flow, several packets: must stay on one path
    case("RoCE v4 same flow packet %d" % k, 0, roce(sport=50000, psn=200 + k), UPLINKS)
case("RoCE v4 ACK from fabric to the host", 1,
     Ether(src=NH[0], dst=FAB[0]) / IP(src="10.2.0.5", dst="10.1.0.1", ttl=60)
     / UDP(sport=49152, dport=4791) / BTH(opcode=0x11, psn=1) / AETH(syndrome=0, msn=1),
     ("port", {0}))
case("RoCE v6 to the uplink group", 0, roce(v6=True, dst="fd00:2::5", psn=300), UPLINKS)
case("RoCE v4 VLAN-tagged keeps its tag", 0, roce(vlan=100, psn=301), UPLINKS)
case("IPv4 with options", 0, roce(opts=True, psn=302), UPLINKS)
case("non-RoCE UDP", 0, Ether(src=SENDER, dst=HOST_MAC) / IP(src="10.1.0.1", dst="10.2.1.1")
     / UDP(sport=1234, dport=5678) / Raw(b"x" * 40), UPLINKS)
case("TCP", 0, Ether(src=SENDER, dst=HOST_MAC) / IP(src="10.1.0.1", dst="10.2.1.1")
     / TCP(sport=1234, dport=80) / Raw(b"y" * 40), UPLINKS)
case("TTL 1 expires", 0, roce(ttl=1, psn=400), ("drop", "ttl"))
case("hop limit 1 expires", 0, roce(v6=True, dst="fd00:2::5", ttl=1, psn=401), ("drop", "ttl"))
case("no route", 0, roce(dst="192.0.2.1", psn=402), ("drop", "no_route"))
case("no IPv6 route", 0, roce(v6=True, dst="fd00:9::1", psn=403), ("drop", "no_route"))
case("BTH truncated", 0, raw(roce(psn=404))[:14 + 20 + 8 + 6], ("drop", "malformed"))
bad_len = roce(psn=405)
bad_len[IP].len = 1400
case("IPv4 total length beyond the frame", 0, bad_len, ("drop", "malformed"))
case("LLDP is not IP", 0, Ether(src=SENDER, dst="01:80:c2:00:00:0e", type=0x88cc) / Raw(b"\0" * 46),
     ("drop", "not_ip"))
case("unicast to another MAC on a filtering port", 0, roce(dmac="02:00:00:00:99:99", psn=406),
     ("drop", "l2_not_for_us"))
case("UDP to the switch's own address", 0, Ether(src=SENDER, dst=HOST_MAC)
     / IP(src="10.1.0.1", dst="10.1.0.254") / UDP(sport=1, dport=53) / Raw(b"q" * 20),
     ("drop", "local_unsupported"))
case("next hop not resolved yet", 0, roce(dst="10.9.0.5", psn=407), ("drop", "neigh_unresolved"))
case("ARP request for the port address", 0, Ether(src=SENDER, dst="ff:ff:ff:ff:ff:ff")
     / ARP(op=1, hwsrc=SENDER, psrc="10.1.0.1", pdst="10.1.0.254"), ("consumed", 0))
case("ICMP echo to the port address", 0, Ether(src=SENDER, dst=HOST_MAC)
     / IP(src="10.1.0.1", dst="10.1.0.254") / ICMP(type=8, id=7, seq=1) / Raw(b"ping" * 8),
     ("consumed", 0))


def expected_rewrite(frame, out_port):
    """What the output must be, computed independently with scapy."""
    p = Ether(frame)
    p.src = FAB[out_port - 1] if out_port else HOST_MAC
    p.dst = NH[out_port - 1] if out_port else H1
    if IP in p:
        p[IP].ttl -= 1
        del p[IP].chksum
    else:
        p[IPv6].hlim -= 1
    return raw(p)


def main():
    t = harness.Checker("pkt-forward")
    inputs = [[] for _ in range(5)]
    for desc, port, frame, exp in CASES:
        inputs[port].append(frame)
    res = harness.run(CONFIG, inputs, tag="fwd")
    if not t.check(res.rc == 0 and res.stats is not None,
                   "rocetor exit %d: %s" % (res.rc, res.stderr[-2000:])):
        return t.done()
    out_all = {}
    for port, frames in enumerate(res.outputs):
        for f in frames:
            out_all.setdefault(port, []).append(f)

    # Index output frames (minus rewritten fields) to find each input.
    def key(f):
        p = Ether(f)
        if p.haslayer(Dot1Q):
            p = p.copy()
        payload = raw(p.payload)
        if IP in p:
            q = p[IP].copy()
            q.ttl = 0
            q.chksum = 0
            payload = raw(q)
        elif IPv6 in p:
            q = p[IPv6].copy()
            q.hlim = 0
            payload = raw(q)
        return payload

    where = {}
    for port, frames in out_all.items():
        for f in frames:
            where.setdefault(key(f), []).append((port, f))

    expect_drops = {}
    flow_port = {}
    for desc, port, frame, exp in CASES:
        kind = exp[0]
        if kind == "drop":
            expect_drops[exp[1]] = expect_drops.get(exp[1], 0) + 1
            t.check(key(frame) not in where, "%s: should be dropped but was sent" % desc)
        elif kind == "port":
            hits = where.get(key(frame), [])
            if not t.check(len(hits) == 1, "%s: sent %d times, expected once" % (desc, len(hits))):
                continue
            out_port, out = hits[0]
            t.check(out_port in exp[1], "%s: left on port %d" % (desc, out_port))
            t.eq(out, expected_rewrite(frame, out_port), "(%s: bytes)" % desc)
            p = Ether(out)
            if BTH in p:
                # scapy recomputes the ICRC over the output: it must match.
                q = Ether(out)
                q[BTH].icrc = None
                t.eq(raw(q)[-4:], out[-4:], "(%s: ICRC)" % desc)
            if "same flow" in desc:
                flow_port.setdefault("f", set()).add(out_port)
            if "VLAN" in desc:
                t.check(p.haslayer(Dot1Q) and p[Dot1Q].vlan == 100, "%s: tag lost" % desc)
        elif kind == "consumed":
            pass
    t.eq(len(flow_port.get("f", set())), 1, "(one flow used several paths)")
    # The 32 flows should use more than one path (ECMP actually spreads).
    used = set(p for p, fr in out_all.items() if p in (1, 2, 3, 4) and fr)
    t.check(len(used) >= 3, "ECMP used only ports %s" % used)

    # Replies from the control plane on port 0: ARP reply and echo reply.
    replies = [Ether(f) for f in out_all.get(0, [])]
    arp = [p for p in replies if ARP in p and p[ARP].op == 2]
    t.eq(len(arp), 1, "(ARP replies)")
    if arp:
        t.eq(arp[0][ARP].hwsrc, HOST_MAC)
        t.eq(arp[0][ARP].psrc, "10.1.0.254")
        t.eq(arp[0].dst, SENDER)
    echo = [p for p in replies if ICMP in p and p[ICMP].type == 0]
    t.eq(len(echo), 1, "(echo replies)")
    if echo:
        e = echo[0]
        t.eq(e[IP].src, "10.1.0.254")
        chk = e[IP].chksum
        del e[IP].chksum
        del e[ICMP].chksum
        e2 = Ether(raw(e))
        t.eq(e2[IP].chksum, chk, "(echo reply IPv4 checksum)")
    # ARP probes for the unresolved next hop go out on port 1.
    probes = [Ether(f) for f in out_all.get(1, []) if ARP in Ether(f)]
    t.check(len(probes) >= 1 and probes[0][ARP].pdst == "192.168.1.2"
            and probes[0][ARP].psrc == "192.168.1.1", "no ARP probe for 192.168.1.2")

    s = res.stats
    for reason, n in expect_drops.items():
        t.eq(s["drops"][reason], n, "(drops.%s)" % reason)
    t.eq(s["dropped"], sum(expect_drops.values()), "(total drops)")
    t.eq(s["consumed"], 2, "(consumed)")
    ok, why = harness.accounted(s)
    t.check(ok, "accounting: " + why)
    t.eq(sum(p["rx_packets"] for p in s["ports"]), len(CASES))
    t.eq(s["originated"], 2 + len(probes), "(originated = replies + probes)")
    return t.done()


if __name__ == "__main__":
    sys.exit(main())

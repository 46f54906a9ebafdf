#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The rocetor authors
"""lb: conga (doc/conga.md) through three rocetor processes with net_pcap
ports, each run's output the next one's input: source leaf A (id 5, host
port 0 with 10.1.0.0/24, uplinks 1..4 to 10.2.0.0/16), a spine (id 9,
ports 1..4 face A, port 0 faces B) and destination leaf B (id 6, host
port 0 with 10.2.0.0/24, fabric port 1 from the spine).

1. A: 16 RC WRITE flows (IPv4) and 4 RC SEND flows (IPv6) from its host. Every host frame leaves by exactly
   one uplink, stamped: 4 bytes more, BTH byte 4 = the uplink's path index,
   Resv7 0x32 (AckReq kept), source leaf 5, no feedback (0xff: nothing came
   from B's leaf), a CE nibble below 2^3; without the header (byte 4 and
   Resv7 zeroed, the 4 bytes removed) each is the host's frame with its
   valid ICRC; one flowlet per flow (flowlet_gap_us 1 s),
   conga_packets = the host's frames; exact accounting.
2. The spine (conga runs there): every frame leaves on port 0 once, the
   header as A wrote it but for a CE nibble that can only have grown
   (conga_ce_raised counts the frames it raised).
3. B: every frame reaches its host exactly once, byte for byte the host's
   frame at A but for MACs, TTL and IP checksum, valid ICRC;
   conga_rx = the frames; B's own host frames toward A (4 flows) leave
   stamped with source leaf 6, each carrying feedback (path < 4, metric <
   8) once B's from-leaf row for A's leaf is set: conga_fb_sent counts
   exactly the frames that carry it.
4. The same frames at a B that runs ConWeave (a fabric in the middle of a
   runtime switch): its DstToR takes 0x32 for no marker of its own (phase
   1 with ask), removes the header (foreign_cw_stripped), holds and answers
   nothing; the host gets every frame as sent.
5. A again with two workers (two queue pairs per port): the checks of 1.
"""
import collections
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
import harness  # noqa: E402
import roce  # noqa: E402

A_MAC = ["02:00:00:00:01:%02x" % i for i in range(5)]
S_MAC = ["02:00:00:00:bb:%02x" % i for i in range(5)]
B_MAC = ["02:00:00:00:02:%02x" % i for i in range(5)]
HOST_A = "02:00:00:00:aa:01"
HOST_B = "02:00:00:00:aa:02"
FLOWS, PKTS = 16, 100
V6_FLOWS = 4
B_FLOWS, B_PKTS = 4, 50
MARK = 0x32


def tor_config(name, sw_id, own, own_mac, host_mac, other, up_macs):
    """own, other: (IPv4, IPv6) prefixes of this ToR's hosts and of the
    other ToR's (over the uplinks)."""
    ports = '  - {port: 0, role: host, mac: "%s"}\n' % own_mac[0]
    for i in range(1, 5):
        ports += '  - {port: %d, role: fabric, mac: "%s"}\n' % (i, own_mac[i])
    routes = "".join('  - {prefix: "%s", port: 0, nexthop_mac: "%s"}\n' % (o, host_mac)
                     for o in own)
    for o in other:
        routes += ('  - prefix: "%s"\n    paths:\n' % o +
                   "".join('      - {port: %d, nexthop_mac: "%s"}\n' % (i + 1, up_macs[i])
                           for i in range(4)))
    return ("switch: {name: %s, id: %d, lb: conga}\nports:\n" % (name, sw_id) + ports +
            "routes:\n" + routes + "conga: {flowlet_gap_us: 1000000}\n")


A_NETS = ("10.1.0.0/24", "fd00:1::/64")
B_NETS = ("10.2.0.0/24", "fd00:2::/64")
A_WIDE = ("10.1.0.0/16", "fd00:1::/48")
B_WIDE = ("10.2.0.0/16", "fd00:2::/48")


def spine_config():
    ports = "".join('  - {port: %d, role: fabric, mac: "%s"}\n' % (i, S_MAC[i])
                    for i in range(5))
    return ("switch: {name: spine, id: 9, role: spine, lb: conga}\nports:\n" + ports +
            "routes:\n" +
            "".join('  - {prefix: "%s", port: 0, nexthop_mac: "%s"}\n' % (b, B_MAC[1])
                    for b in B_WIDE) +
            "".join('  - prefix: "%s"\n    paths:\n' % a +
                    "".join('      - {port: %d, nexthop_mac: "%s"}\n' % (i, A_MAC[i])
                            for i in range(1, 5)) for a in A_WIDE))


def addrs(f):
    """Source and destination addresses (IPv4 or IPv6)."""
    l3, _, _ = roce.offsets(f)
    return bytes(f[l3 + 12:l3 + 20]) if f[l3] >> 4 == 4 else bytes(f[l3 + 8:l3 + 40])


def content_key(f):
    """What no switch may change: IP addresses and the UDP datagram."""
    l3, l4, _ = roce.offsets(f)
    if f[l3] >> 4 == 4:
        end = l3 + ((f[l3 + 2] << 8) | f[l3 + 3])
    else:
        end = l3 + 40 + ((f[l3 + 4] << 8) | f[l3 + 5])
    return addrs(f) + bytes(f[l4:end])


def hdr(f):
    _, _, b = roce.offsets(f)
    return f[b + 4], f[b + 8], bytes(f[b + 12:b + 16])


def unstamp(f):
    """The frame without CONGA's fields: what the DstToR delivers."""
    _, _, b = roce.offsets(f)
    g = bytearray(f)
    g[b + 4] = 0
    g[b + 8] &= 0x80
    del g[b + 12:b + 16]
    return bytes(g)


def ok_run(t, name, r):
    if not t.check(r.rc == 0 and r.stats is not None,
                   "%s: rocetor exited %d: %s" % (name, r.rc, r.stderr[-2000:])):
        return False
    ok, why = harness.accounted(r.stats)
    t.check(ok, "%s: accounting: %s" % (name, why))
    t.eq(r.stats["dropped"], 0, "(%s: drops %r)" % (name, {k: v for k, v in
                                                          r.stats["drops"].items() if v}))
    print("%s: lb %s" % (name, {k: v for k, v in r.stats["lb"].items() if v}))
    return True


def check_a(t, name, ra, host, sent):
    """Source leaf A's run: every host frame once on the uplinks, stamped;
    returns the uplinks' frames."""
    lb = ra.stats["lb"]
    up = [[bytes(f) for f in ra.outputs[p]] for p in range(5)]
    t.eq(len(up[0]), 0, "(%s: nothing back to the host)" % name)
    got, flows, bad = collections.Counter(), collections.defaultdict(set), 0
    for p in range(1, 5):
        for f in up[p]:
            b4, b8, h = hdr(f)
            bad += not (b4 == p - 1 and b8 & 0x7F == MARK and h[0:2] == b"\x00\x05" and
                        h[2] == 0xFF and (h[3] >> 4) < 8 and (h[3] & 0xF) == 0)
            g = unstamp(f)
            bad += not roce.icrc_ok(g)
            got[content_key(g)] += 1
            _, l4, _ = roce.offsets(g)
            flows[addrs(g) + bytes(g[l4:l4 + 2])].add(p)
    t.eq(bad, 0, "(%s: frames whose header or unstamped frame is wrong)" % name)
    t.eq(got, sent, "(%s: every host frame once on the uplinks)" % name)
    t.eq(len(flows), FLOWS + V6_FLOWS, "(%s: flows)" % name)
    t.check(all(len(v) == 1 for v in flows.values()), "%s: a flow split within its flowlet" % name)
    t.eq(lb["conga_packets"], len(host), "(%s: conga_packets)" % name)
    t.eq(lb["conga_flowlets"], FLOWS + V6_FLOWS, "(%s: one flowlet per flow)" % name)
    t.eq(lb["conga_path_changes"], 0)
    t.eq(lb["conga_fb_sent"], 0)
    print("%s: uplinks %s" % (name, [len(x) for x in up[1:]]))
    return up


def main():
    t = harness.Checker("pkt-conga")
    host = roce.generate("--flows", FLOWS, "--packets", PKTS, "--op", "write", "--size", 8192,
                         "--seed", 3, "--src-net", "10.1.0.0/24", "--dst-net", "10.2.0.0/24",
                         "--src-mac", HOST_A, "--dst-mac", A_MAC[0])
    host += roce.generate("--flows", V6_FLOWS, "--packets", PKTS, "--op", "send", "--size",
                          4096, "--seed", 5, "--src-net", "fd00:1::/64", "--dst-net",
                          "fd00:2::/64", "--src-mac", HOST_A, "--dst-mac", A_MAC[0])
    back = roce.generate("--flows", B_FLOWS, "--packets", B_PKTS, "--op", "write", "--size",
                         4096, "--seed", 4, "--src-net", "10.2.0.0/24", "--dst-net",
                         "10.1.0.0/24", "--src-mac", HOST_B, "--dst-mac", B_MAC[0])
    t.eq(len(host), (FLOWS + V6_FLOWS) * PKTS, "(generated)")
    t.check(all(roce.icrc_ok(f) for f in host + back), "test input: the RNICs' ICRCs")
    sent = collections.Counter(content_key(f) for f in host)

    # 1. Source leaf A.
    ra = harness.run(tor_config("a", 5, A_NETS, A_MAC, HOST_A, B_WIDE, S_MAC[1:]),
                     [host, [], [], [], []], tag="cga", idle_ms=600)
    if not ok_run(t, "A", ra):
        return t.done()
    up = check_a(t, "A", ra, host, sent)

    # 2. The spine: A's uplink p arrives on the spine's port p.
    rs = harness.run(spine_config(), [[]] + up[1:], tag="cgs", idle_ms=600)
    if not ok_run(t, "spine", rs):
        return t.done()
    out = [bytes(f) for f in rs.outputs[0]]
    t.eq(len(out), len(host), "(spine: every frame toward B)")
    before = {content_key(unstamp(f)): hdr(f) for p in range(1, 5) for f in up[p]}
    bad = raised = 0
    for f in out:
        b4, b8, h = hdr(f)
        a = before.get(content_key(unstamp(f)))
        if a is None:
            bad += 1
            continue
        bad += not (b4 == a[0] and b8 == a[1] and h[0:3] == a[2][0:3] and
                    (h[3] & 0xF) == (a[2][3] & 0xF) and (h[3] >> 4) >= (a[2][3] >> 4))
        raised += (h[3] >> 4) > (a[2][3] >> 4)
    t.eq(bad, 0, "(spine: headers not as A wrote them but for a grown CE)")
    t.eq(rs.stats["lb"].get("conga_ce_raised", 0), raised, "(spine: conga_ce_raised)")

    # 3. Destination leaf B: the spine's frames on fabric port 1, its own
    # host's frames toward A on port 0.
    rb = harness.run(tor_config("b", 6, B_NETS, B_MAC, HOST_B, A_WIDE, S_MAC[1:]),
                     [back, out, [], [], []], tag="cgb", idle_ms=600)
    if not ok_run(t, "B", rb):
        return t.done()
    lb = rb.stats["lb"]
    at_host = [bytes(f) for f in rb.outputs[0]]
    t.eq(collections.Counter(content_key(f) for f in at_host), sent,
         "(B: every frame once at the host, as sent)")
    t.eq(sum(not roce.icrc_ok(f) for f in at_host), 0, "(B: bad ICRCs at the host)")
    t.check(all(f[0:6] == bytes.fromhex(HOST_B.replace(":", "")) for f in at_host),
            "B: frames at the host not to its MAC")
    t.eq(lb["conga_rx"], len(host), "(B: conga_rx)")
    fb = bad = 0
    n_up = 0
    for p in range(1, 5):
        for f in rb.outputs[p]:
            f = bytes(f)
            n_up += 1
            b4, b8, h = hdr(f)
            bad += not (b4 == p - 1 and b8 & 0x7F == MARK and h[0:2] == b"\x00\x06")
            if h[2] != 0xFF:
                fb += 1
                bad += not (h[2] < 4 and (h[3] & 0xF) < 8)
    t.eq(n_up, len(back), "(B: its host's frames on the uplinks)")
    t.eq(bad, 0, "(B: stamped frames' fields)")
    t.eq(lb["conga_fb_sent"], fb, "(B: conga_fb_sent = frames carrying feedback)")
    t.eq(lb["conga_packets"], len(back), "(B: conga_packets)")
    print("B: %d of its %d frames carried feedback" % (fb, len(back)))

    # 4. The same frames at a destination leaf that runs ConWeave (a fabric
    # in the middle of a runtime switch): Resv7 0x32 is no ConWeave marker
    # (phase 1 with ask), so the header goes and nothing is held or
    # answered.
    cw = (tor_config("b", 6, B_NETS, B_MAC, HOST_B, A_WIDE, S_MAC[1:])
          .replace("lb: conga", "lb: conweave").replace("conga: {flowlet_gap_us: 1000000}\n", ""))
    rc = harness.run(cw, [[], out, [], [], []], tag="cgw", idle_ms=600)
    if not ok_run(t, "B (conweave)", rc):
        return t.done()
    lb = rc.stats["lb"]
    at_host = [bytes(f) for f in rc.outputs[0]]
    t.eq(collections.Counter(content_key(f) for f in at_host), sent,
         "(B conweave: every frame once at the host, as sent)")
    t.eq(sum(not roce.icrc_ok(f) for f in at_host), 0, "(B conweave: bad ICRCs at the host)")
    t.eq(lb.get("foreign_cw_stripped", 0), len(host), "(B conweave: foreign headers removed)")
    t.eq(lb.get("reorder_held", 0) + lb.get("rtt_requests_rx", 0) + lb.get("tails_rx", 0), 0,
         "(B conweave: nothing held, nothing taken for its own)")
    t.eq(sum(len(rc.outputs[p]) for p in range(1, 5)), 0, "(B conweave: no control packet)")

    # 5. A with two workers (two RX/TX queue pairs per port, the frames
    # dealt over them): flows handed to the worker that owns them, every
    # DRE published per switch; the same checks as 1.
    cfg2 = tor_config("a", 5, A_NETS, A_MAC, HOST_A, B_WIDE, S_MAC[1:]).replace(
        "lb: conga}", "lb: conga, idle_sleep_us: 100, idle_threshold: 64}")
    r2 = harness.run(cfg2, [host, [], [], [], []], tag="cga2", lcores="0@0,1@1,2@1", queues=2,
                     idle_ms=800)
    if ok_run(t, "A (2 workers)", r2):
        t.check("2 workers" in r2.stdout, "A: expected 2 workers: " + r2.stdout[:400])
        check_a(t, "A (2 workers)", r2, host, sent)
    return t.done()


if __name__ == "__main__":
    sys.exit(main())

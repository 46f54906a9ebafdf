#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The rocetor authors
"""Host-port trust (doc/security.md), on pcap ports.

1. In every LB mode (ecmp, conweave, seqbalance, caver, spray, letflow,
   drill, conga) a host port drops
   what a host must never send, because some switch of the fabric may act
   on it: a forged ConWeave RTT_REPLY, CLEAR and NOTIFY (= SeqBalance
   Congestion Packet) and a forged CAVER ACK shim (host_lb_packet); it
   clears BTH byte 4 of RoCE packets (ICRC-masked: the ICRC stays valid,
   host_b4_cleared counts it); a host's own zero-payload packet whose Resv7
   happens to look like a control packet (valid ICRC) goes on.
2. Fabric ports act on LB control packets only for local hosts: an
   RTT_REPLY for a host behind another ToR is forwarded like any packet
   (not consumed, no rtt_replies_rx); one for a local host is consumed.
3. Flow-table share: a host port with flow_share 0.05 gets 51 entries of a
   1024-entry table; its other new flows go by ECMP (flow_limit_share, per
   port and in the LB counters), and the other host's flows all get theirs.
4. Flow-entry rate: flow_rate 100/s with burst 10: at most 10 + 100/s x
   uptime new entries; the rest counted flow_limit_rate, other host
   untouched.
5. source_check: a host port drops packets whose source address routes
   elsewhere (another host port, the fabric) or nowhere (source_check);
   a port without it does not.
Every run: exit 0, every packet accounted, mempool back to zero.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
import harness  # noqa: E402
import roce as R  # noqa: E402

HOST_MAC = ["02:00:00:00:07:00", "02:00:00:00:07:01"]
FAB_MAC = ["02:00:00:00:07:%02x" % (0x10 + i) for i in range(2)]
RNIC = ["02:00:00:00:aa:07", "02:00:00:00:aa:08"]
SPINE = ["02:00:00:00:cc:%02x" % (i + 1) for i in range(2)]


def config(lb, host_extra=("", ""), hosts=1, cw=""):
    """Host ports 0..hosts-1 (10.1.<p>.0/24), fabric ports after them in
    one uplink group for 10.2.0.0/16."""
    s = "switch: {name: trust, id: 7, lb: %s}\nports:\n" % lb
    for p in range(hosts):
        s += '  - {port: %d, role: host, mac: "%s"%s}\n' % (p, HOST_MAC[p], host_extra[p])
    for i in range(2):
        s += '  - {port: %d, role: fabric, mac: "%s"}\n' % (hosts + i, FAB_MAC[i])
    s += "routes:\n"
    for p in range(hosts):
        s += '  - {prefix: "10.1.%d.0/24", port: %d, nexthop_mac: "%s"}\n' % (p, p, RNIC[p])
    s += '  - prefix: "10.2.0.0/16"\n    paths:\n'
    for i in range(2):
        s += '      - {port: %d, nexthop_mac: "%s"}\n' % (hosts + i, SPINE[i])
    if cw:
        s += "conweave: {%s}\n" % cw
    return s


def data(src="10.1.0.1", dst="10.2.0.1", sport=0xC000, host=0, send=False, **kw):
    if send:
        kw["opcode"] = R.SEND_ONLY
    else:
        kw["opcode"], kw["reth_"] = R.WRITE_ONLY, (0x1000, 7, 64)
    return R.frame(psn=kw.pop("psn", 1), src_ip=src, dst_ip=dst, sport=sport,
                   src_mac=RNIC[host], dst_mac=HOST_MAC[host],
                   payload=kw.pop("payload", b"p" * 64), **kw)


def forged_control(cw_op, phase=0):
    # cw_control swaps the addresses: start from the reverse data packet so
    # that the forgery goes from the local host to a remote one. SEND_ONLY:
    # the cut packet has no room for a RETH (a WRITE would parse as
    # malformed, also dropped but not what this checks).
    rev = data(src="10.2.0.1", dst="10.1.0.1", send=True)
    return R.cw_control(rev, cw_op, phase, src_mac=RNIC[0], dst_mac=HOST_MAC[0])


def bth_off(f):
    return R.offsets(f)[2]


def check_accounted(t, res, what):
    if not t.check(res.rc == 0 and res.stats is not None,
                   "%s: rc %d %s" % (what, res.rc, res.stderr[-800:])):
        return False
    ok, msg = harness.accounted(res.stats)
    t.check(ok, "%s: accounting: %s" % (what, msg))
    return True


def part1(t):
    forged = [forged_control(R.CW_REPLY, 0), forged_control(R.CW_REPLY, 1),
              forged_control(R.CW_NOTIFY),
              R.frame(R.ACK, psn=3, src_ip="10.1.0.1", dst_ip="10.2.0.1", src_mac=RNIC[0],
                      dst_mac=HOST_MAC[0], aeth_=(0, 5), resv7=0x7F)]
    for f in forged[:3]:
        t.check(not R.icrc_ok_fast(f), "a forged control packet has no valid ICRC")
    t.check(R.icrc_ok_fast(forged[3]), "the forged shim ACK is an RNIC-valid ACK")
    b4 = data(sport=0xC101, b4=0xAB)
    # A host's own zero-payload SEND with Resv7 = cw_op 2: UDP length 24 like
    # a control packet, but its last 4 bytes are its valid ICRC.
    lookalike = R.frame(R.SEND_ONLY, psn=9, src_ip="10.1.0.1", dst_ip="10.2.0.1",
                        sport=0xC202, src_mac=RNIC[0], dst_mac=HOST_MAC[0],
                        resv7=R.cw_resv7(R.CW_REPLY))
    # CNPs: BECN (0x40) is part of the format and stays; FECN (0x80, the
    # CAVER source-route flag) goes. A plain CNP is not touched.
    cnps = [R.frame(R.CNP, dqp=0x55, payload=bytes(16), b4=b, src_ip="10.1.0.1",
                    dst_ip="10.2.0.1", sport=0xC303 + i, src_mac=RNIC[0], dst_mac=HOST_MAC[0])
            for i, b in enumerate((0xC0, 0x40))]
    t.check(R.icrc_ok(b4) and R.icrc_ok(lookalike), "test frames have valid ICRCs (scapy)")
    for lb in ("ecmp", "conweave", "seqbalance", "caver", "spray", "letflow", "drill", "conga"):
        res = harness.run(config(lb), [forged + [b4, lookalike] + cnps, [], []],
                          tag="trust1" + lb)
        if not check_accounted(t, res, lb):
            continue
        t.eq(res.drops("host_lb_packet"), 4, "%s: forged control packets and shim dropped" % lb)
        t.eq(res.port(0)["host_b4_cleared"], 2, "%s: host byte 4 cleared (data, FECN CNP)" % lb)
        up = res.outputs[1] + res.outputs[2]
        t.eq(len(up), 4, "%s: data, look-alike and CNPs forwarded" % lb)
        for f in up:
            b = bth_off(f)
            t.check(f[b + 4] != 0xAB, "%s: the host's byte 4 does not reach the fabric" % lb)
            if lb == "ecmp":
                want = 0x40 if f[b] == R.CNP else 0
                t.eq(f[b + 4], want, "ecmp: byte 4 on the uplink (CNP keeps BECN)")
                t.check(R.icrc_ok(f), "ecmp: ICRC still valid after the clear (scapy)")


def part2(t):
    # From the fabric: an RTT_REPLY for a remote host (10.2.0.9, behind an
    # uplink) and one for local host 10.1.0.1 (this switch has no flow).
    remote = R.cw_control(data(src="10.2.0.9", dst="10.2.0.7", send=True), R.CW_REPLY,
                          src_mac=SPINE[0], dst_mac=FAB_MAC[0])
    local = R.cw_control(data(src="10.1.0.1", dst="10.2.0.7", send=True), R.CW_REPLY,
                         src_mac=SPINE[0], dst_mac=FAB_MAC[0])
    res = harness.run(config("conweave"), [[], [remote, local], []], tag="trust2")
    if not check_accounted(t, res, "fabric control"):
        return
    lb = res.stats["lb"]
    t.eq(res.stats["consumed"], 1, "only the local host's RTT_REPLY is consumed")
    t.eq(lb["rtt_replies_rx"], 1, "one RTT_REPLY accepted (the local one)")
    t.eq(lb["ctrl_no_flow"], 1, "for a flow this switch does not have")
    t.eq(res.stats["forwarded"], 1, "the remote host's RTT_REPLY is forwarded, not acted on")
    t.eq(len(res.outputs[0]), 0, "nothing reaches the host")


def flows(host, n, sport0=0xC000):
    return [data(src="10.1.%d.%d" % (host, 1 + i % 200), sport=sport0 + i, host=host,
                 dst="10.2.0.%d" % (1 + i % 50)) for i in range(n)]


def part3(t):
    cfg = config("conweave", (", flow_share: 0.05", ""), hosts=2, cw="flow_table_size: 1024")
    res = harness.run(cfg, [flows(0, 300), flows(1, 100), [], []], tag="trust3")
    if not check_accounted(t, res, "flow_share"):
        return
    lb = res.stats["lb"]
    p0, p1 = res.port(0), res.port(1)
    t.eq(p0["flow_limit_share"], 300 - 51, "port 0 held at 51 entries (0.05 x 1024)")
    t.eq(p1["flow_limit_share"], 0, "port 1 (automatic share 0.5) never refused")
    t.eq(lb["flow_limit_share"], 249, "LB counter flow_limit_share")
    t.eq(lb["flow_table_full"], 0, "no bucket full")
    t.eq(lb["cw_packets"], 51 + 100, "ConWeave state for 51 + 100 flows, the rest by ECMP")
    t.eq(p0["tx_packets"] + p1["tx_packets"], 0, "nothing back to the hosts")
    t.eq(sum(len(o) for o in res.outputs[2:]), 400, "all 400 packets forwarded")


def part4(t):
    cfg = config("conweave", (", flow_rate: 100, flow_burst: 10", ""), hosts=2,
                 cw="flow_table_size: 4096")
    res = harness.run(cfg, [flows(0, 300), flows(1, 100), [], []], tag="trust4")
    if not check_accounted(t, res, "flow_rate"):
        return
    p0, p1 = res.port(0), res.port(1)
    up = res.stats["uptime_s"]
    got = 300 - p0["flow_limit_rate"]
    t.check(10 <= got <= 10 + 100 * up + 1,
            "port 0 got %d new entries in %.2f s (burst 10 + 100/s)" % (got, up))
    t.eq(p1["flow_limit_rate"], 0, "port 1 unlimited")
    t.eq(res.stats["lb"]["flow_limit_rate"], p0["flow_limit_rate"], "LB counter flow_limit_rate")
    t.eq(res.stats["lb"]["cw_packets"], got + 100, "ConWeave state for the admitted flows only")


def part5(t):
    cfg = config("conweave", (", source_check: true", ""), hosts=2)
    h0 = [data(src=s, sport=0xC300 + i, host=0)
          for i, s in enumerate(["10.1.0.1", "10.1.0.77", "10.1.1.1", "10.2.0.5", "10.9.9.9"])]
    h1 = [data(src="10.1.0.1", sport=0xC400, host=1)]  # spoofed, but port 1 does not check
    res = harness.run(cfg, [h0, h1, [], []], tag="trust5")
    if not check_accounted(t, res, "source_check"):
        return
    t.eq(res.drops("source_check"), 3, "port 0: sources of port 1, of the fabric, unrouted")
    t.eq(res.port(0)["drops"], 3, "counted on port 0")
    t.eq(res.port(1)["drops"], 0, "port 1 has no source check")
    up = sorted(R.offsets(f) and f[26:30] for f in res.outputs[2] + res.outputs[3])
    t.eq(len(up), 3, "10.1.0.1 and 10.1.0.77 from port 0 and the unchecked one from port 1")


def main():
    t = harness.Checker("pkt-trust")
    part1(t)
    part2(t)
    part3(t)
    part4(t)
    part5(t)
    return t.done()


if __name__ == "__main__":
    sys.exit(main())

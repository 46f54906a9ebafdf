#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The rocetor authors
"""rocecheck: an independent RoCEv2 pcap oracle built on scapy.

Decodes every frame with scapy (scapy.contrib.roce), recomputes the ICRC and
the IPv4 header checksum, and prints JSON: one object per frame plus a
summary. It deliberately shares no code with rocegen or rocetor: IPv4 ICRCs
come from scapy's own BTH.compute_icrc(); scapy has no IPv6 ICRC, so for IPv6
this file masks the scapy-decoded fields itself (traffic class, flow label,
hop limit, UDP checksum, BTH byte 4). See doc/tools.md.
"""

import argparse
import itertools
import json
import multiprocessing
import os
import struct
import sys
import zlib

from scapy.compat import raw
from scapy.layers.inet import IP, UDP
from scapy.layers.inet6 import IPv6
from scapy.layers.l2 import Dot1Q, Ether
from scapy.packet import Padding
from scapy.utils import RawPcapReader
from scapy.contrib.roce import AETH, BTH


def ipv4_csum_ok(ip):
    """Recompute the header checksum over the header bytes as captured."""
    hdr = bytearray(raw(ip)[:ip.ihl * 4])
    hdr[10:12] = b"\0\0"
    s = sum(struct.unpack("!%dH" % (len(hdr) // 2), bytes(hdr)))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return (~s & 0xFFFF) == ip.chksum


def icrc_v6(pkt):
    """ICRC for RoCEv2 over IPv6, from scapy's decoded layers."""
    ip6 = pkt[IPv6].copy()
    ip6.tc = 0xFF
    ip6.fl = 0xFFFFF
    ip6.hlim = 0xFF
    ip6[UDP].chksum = 0xFFFF
    ip6[BTH].fecn = 1
    ip6[BTH].becn = 1
    ip6[BTH].resv6 = 0x3F
    ip6[BTH].icrc = 0  # a placeholder; excluded below
    data = raw(ip6)
    # the datagram as IPv6 says it is, without its last 4 (ICRC) bytes
    end = 40 + pkt[IPv6].plen
    return zlib.crc32(b"\xff" * 8 + data[:end - 4]) & 0xFFFFFFFF


def _unpadded(pkt, ip_cls):
    """The frame cut at the end of the IP datagram, re-dissected.

    scapy keeps Ethernet padding as a Padding layer inside the BTH payload,
    and its compute_icrc() would then cover the padding too.
    """
    if Padding not in pkt:
        return pkt
    data = raw(pkt)
    ip = pkt[ip_cls]
    off = len(data) - len(raw(ip))
    end = off + (ip.len if ip_cls is IP else 40 + ip.plen)
    if end >= len(data):
        return pkt
    return Ether(data[:end])


def udp_csum_ok(pkt):
    """None when the checksum is 0 (not used), else whether it is right."""
    u = pkt[UDP]
    if u.chksum == 0:
        return None
    p = _unpadded(pkt, IPv6 if IPv6 in pkt else IP)
    q = p.copy()
    q[UDP].chksum = None
    return Ether(raw(q))[UDP].chksum == u.chksum


def icrc_ok(pkt):
    pkt = _unpadded(pkt, IPv6 if IPv6 in pkt else IP)
    bth = pkt[BTH]
    if IPv6 in pkt:
        want = icrc_v6(pkt)
        got = bth.icrc
        # scapy reads the FCS field big-endian; the ICRC is sent little-endian
        return struct.unpack("<I", struct.pack("!I", got))[0] == want
    calc = bth.compute_icrc(None)
    return struct.unpack("!I", calc)[0] == bth.icrc


def decode(i, pkt):
    d = {"index": i, "len": len(pkt)}
    roce = False
    if Ether in pkt:
        d["src_mac"] = pkt[Ether].src
        d["dst_mac"] = pkt[Ether].dst
    if Dot1Q in pkt:
        d["vlan"] = [{"vid": t.vlan, "pcp": t.prio} for t in _tags(pkt)]
    if IP in pkt:
        ip = pkt[IP]
        d.update(ip_version=4, src=ip.src, dst=ip.dst, ttl=ip.ttl, dscp=ip.tos >> 2,
                 ecn=ip.tos & 3, ip_len=ip.len, ipcsum_valid=ipv4_csum_ok(ip))
        d["frag"] = bool(ip.flags.MF) or ip.frag != 0
    elif IPv6 in pkt:
        ip = pkt[IPv6]
        d.update(ip_version=6, src=ip.src, dst=ip.dst, hlim=ip.hlim, dscp=ip.tc >> 2,
                 ecn=ip.tc & 3, flow_label=ip.fl, ip_len=40 + ip.plen)
    if UDP in pkt:
        u = pkt[UDP]
        d.update(sport=u.sport, dport=u.dport, udp_len=u.len, udp_csum=u.chksum,
                 udpcsum_valid=udp_csum_ok(pkt))
    if BTH in pkt:
        roce = True
        b = pkt[BTH]
        d["bth"] = {"opcode": b.opcode, "se": b.solicited, "migreq": b.migreq,
                    "padcnt": b.padcount, "tver": b.version, "pkey": b.pkey,
                    "fecn": b.fecn, "becn": b.becn, "resv6": b.resv6,
                    "byte4": (b.fecn << 7) | (b.becn << 6) | b.resv6,
                    "dqp": b.dqpn, "ackreq": b.ackreq, "resv7": b.resv7, "psn": b.psn}
        if AETH in pkt:
            d["aeth"] = {"syndrome": pkt[AETH].syndrome, "msn": pkt[AETH].msn}
        try:
            d["icrc_valid"] = icrc_ok(pkt)
        except Exception as e:  # a frame too broken to rebuild
            d["icrc_valid"] = False
            d["icrc_error"] = str(e)
        # bytes between the BTH and the ICRC (extended headers and payload)
        d["bth_payload_len"] = pkt[UDP].len - 8 - 12 - 4
    return d, roce


def _decode_raw(arg):
    i, data = arg
    return decode(i, Ether(data))


def _tags(pkt):
    t = pkt.getlayer(Dot1Q)
    while t is not None:
        yield t
        t = t.payload.getlayer(Dot1Q) if isinstance(t.payload, Dot1Q) else None


def main(argv=None):
    p = argparse.ArgumentParser(
        prog="rocecheck.py",
        description="Decode a pcap with scapy, verify RoCEv2 ICRCs and IPv4 checksums.")
    p.add_argument("pcap")
    p.add_argument("--summary", action="store_true", help="print the summary only")
    p.add_argument("--expect-icrc-valid", action="store_true",
                   help="exit 1 if any RoCE packet has a bad ICRC")
    p.add_argument("--expect-ipcsum-valid", action="store_true",
                   help="exit 1 if any IPv4 header checksum is bad")
    p.add_argument("--max", type=int, default=0, help="stop after N frames")
    p.add_argument("-j", "--jobs", type=int, default=1,
                   help="decode in N processes (0 = one per CPU); output order is kept")
    a = p.parse_args(argv)
    jobs = a.jobs if a.jobs > 0 else (os.cpu_count() or 1)

    summary = {"packets": 0, "roce": 0, "icrc_bad": 0, "ipcsum_bad": 0, "udpcsum_bad": 0,
               "ipv4": 0,
               "ipv6": 0, "vlan": 0, "other": 0, "opcodes": {}}
    bad_icrc = []
    out = sys.stdout
    first = True
    try:
        reader = RawPcapReader(a.pcap)
    except Exception as e:
        print("rocecheck: %s: %s" % (a.pcap, e), file=sys.stderr)
        return 2
    if getattr(reader, "linktype", 1) != 1:
        print("rocecheck: %s: link type %s is not Ethernet" % (a.pcap, reader.linktype),
              file=sys.stderr)
        return 2
    if not a.summary:
        out.write('{"file": %s, "frames": [\n' % json.dumps(a.pcap))
    try:
        frames = ((i, data) for i, (data, _) in enumerate(reader))
        if a.max:
            frames = itertools.islice(frames, a.max)
        pool = None
        if jobs > 1:
            pool = multiprocessing.Pool(jobs)
            results = pool.imap(_decode_raw, frames, chunksize=64)
        else:
            results = map(_decode_raw, frames)
        for d, roce in results:
            i = d["index"]
            summary["packets"] += 1
            if "vlan" in d:
                summary["vlan"] += 1
            if d.get("ip_version") == 4:
                summary["ipv4"] += 1
                if not d["ipcsum_valid"]:
                    summary["ipcsum_bad"] += 1
            elif d.get("ip_version") == 6:
                summary["ipv6"] += 1
            else:
                summary["other"] += 1
            if d.get("udpcsum_valid") is False:
                summary["udpcsum_bad"] += 1
            if roce:
                summary["roce"] += 1
                op = "%#04x" % d["bth"]["opcode"]
                summary["opcodes"][op] = summary["opcodes"].get(op, 0) + 1
                if not d["icrc_valid"]:
                    summary["icrc_bad"] += 1
                    bad_icrc.append(i)
            if not a.summary:
                out.write(("" if first else ",\n") + json.dumps(d, sort_keys=True))
                first = False
        if pool is not None:
            pool.close()
            pool.join()
    finally:
        reader.close()
    summary["icrc_bad_frames"] = bad_icrc[:100]
    summary["opcodes"] = dict(sorted(summary["opcodes"].items()))
    if a.summary:
        json.dump(summary, out, sort_keys=True)
        out.write("\n")
    else:
        out.write('\n], "summary": %s}\n' % json.dumps(summary, sort_keys=True))
    if a.expect_icrc_valid and summary["icrc_bad"]:
        print("rocecheck: %d RoCE frames with a bad ICRC (first: %s)"
              % (summary["icrc_bad"], bad_icrc[:10]), file=sys.stderr)
        return 1
    if a.expect_ipcsum_valid and summary["ipcsum_bad"]:
        print("rocecheck: %d IPv4 headers with a bad checksum" % summary["ipcsum_bad"],
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

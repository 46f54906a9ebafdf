# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The rocetor authors
"""FPM frames as zebra 8.4's dplane_fpm_nl writes them (doc/frr-fpm-research.md
1.1-1.3), built here from the kernel's layouts with struct, independently of
rocetor's decoder: the 4-byte FPM header (version 1, type 1, length in
network order with the header), then netlink messages in host order."""
import ipaddress
import socket
import struct

RTM_NEWROUTE, RTM_DELROUTE = 24, 25
RTM_NEWNEXTHOP, RTM_DELNEXTHOP = 104, 105
RTA_DST, RTA_OIF, RTA_GATEWAY, RTA_PRIORITY, RTA_MULTIPATH, RTA_TABLE, RTA_NH_ID = 1, 4, 5, 6, 9, 15, 30
NHA_ID, NHA_GROUP, NHA_BLACKHOLE, NHA_OIF, NHA_GATEWAY = 1, 2, 4, 5, 6
NLA_F_NESTED = 0x8000
RTN_UNICAST, RTN_BLACKHOLE = 1, 6


def _pad(b):
    return b + b"\0" * (-len(b) % 4)


def attr(t, v):
    return _pad(struct.pack("=HH", 4 + len(v), t) + v)


def _addr(a):
    return ipaddress.ip_address(a).packed


def nlmsg(t, flags, body):
    return _pad(struct.pack("=IHHII", 16 + len(body), t, flags, 0, 4242) + body)


def route(prefix, nhs=(), delete=False, rtype=RTN_UNICAST, proto=186, table=254, nh_id=0):
    """nhs: [(gateway or None, ifindex)]; one gives RTA_GATEWAY + RTA_OIF,
    several RTA_MULTIPATH (NLA_F_NESTED, as zebra's nl_attr_nest)."""
    net = ipaddress.ip_network(prefix)
    fam = 2 if net.version == 4 else 10
    t = RTM_DELROUTE if delete else RTM_NEWROUTE
    flags = 0x401 | (0x100 if fam == 2 and not delete else 0)
    body = struct.pack("=BBBBBBBBI", fam, net.prefixlen, 0, 0, table if table < 256 else 0,
                       proto, 0, 0 if delete else rtype, 0)
    body += attr(RTA_DST, net.network_address.packed)
    body += attr(RTA_PRIORITY, struct.pack("=I", 20))
    if table >= 256:
        body += attr(RTA_TABLE, struct.pack("=I", table))
    if nh_id:
        body += attr(RTA_NH_ID, struct.pack("=I", nh_id))
    elif len(nhs) == 1:
        gw, ifi = nhs[0]
        if gw:
            body += attr(RTA_GATEWAY, _addr(gw))
        body += attr(RTA_OIF, struct.pack("=I", ifi))
    elif nhs:
        mp = b""
        for gw, ifi in nhs:
            inner = attr(RTA_GATEWAY, _addr(gw)) if gw else b""
            mp += _pad(struct.pack("=HBBi", 8 + len(inner), 0, 0, ifi) + inner)
        body += attr(RTA_MULTIPATH | NLA_F_NESTED, mp)
    return nlmsg(t, flags, body)


def nexthop(nid, gw=None, ifindex=0, group=None, delete=False, blackhole=False):
    fam = 0 if group or gw is None else (2 if ipaddress.ip_address(gw).version == 4 else 10)
    body = struct.pack("=BBBBI", fam, 0, 11, 0, 0) + attr(NHA_ID, struct.pack("=I", nid))
    if group:
        body += attr(NHA_GROUP, b"".join(struct.pack("=IBBH", g, 0, 0, 0) for g in group))
    elif blackhole:
        body += attr(NHA_BLACKHOLE, b"")
    else:
        if gw:
            body += attr(NHA_GATEWAY, _addr(gw))
        body += attr(NHA_OIF, struct.pack("=I", ifindex))
    return nlmsg(RTM_DELNEXTHOP if delete else RTM_NEWNEXTHOP, 0x501, body)


def frame(*msgs):
    payload = b"".join(msgs)
    return struct.pack("!BBH", 1, 1, 4 + len(payload)) + payload


class Zebra:
    """A TCP client to rocetor's FPM server, as zebra is."""

    def __init__(self, host, port, timeout=10):
        self.s = socket.create_connection((host, port), timeout=timeout)

    def send(self, *frames):
        self.s.sendall(b"".join(frames))

    def close(self):
        self.s.close()


def serve(host, port):
    """Driven line by line on stdin (run inside zebra's network namespace
    with `ip netns exec`): connect | send HEX | close | exit; answers ok or
    err on stdout."""
    import sys
    z = None
    for line in sys.stdin:
        w = line.split()
        try:
            if not w or w[0] == "exit":
                break
            if w[0] == "connect":
                z = Zebra(host, port)
            elif w[0] == "send":
                z.send(bytes.fromhex(w[1]))
            elif w[0] == "close":
                z.close()
                z = None
            print("ok", flush=True)
        except OSError as e:
            print("err %s" % e, flush=True)


if __name__ == "__main__":
    import sys
    serve(sys.argv[1], int(sys.argv[2]))

#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The rocetor authors
"""What a Linux host of the system test runs, inside its network namespace
(`ip netns exec NS /usr/bin/python3 hostapp.py CMD ...`): the kernel's own
TCP and UDP stacks, and a raw sender of RoCEv2 frames. Every command
prints one result line (and servers a `ready` line first), so the test
compares what was sent with what arrived.

  tcp-server ADDR PORT                 one connection: receive until EOF,
                                       print "BYTES SHA256", send the digest back
  tcp-client ADDR PORT BYTES SEED [SRC]  send BYTES seeded bytes, print
                                       "BYTES SHA256 SERVER_SHA256"
  udp-recv ADDR PORT COUNT TIMEOUT     print "COUNT DIGEST" of the datagrams
                                       received (until COUNT or TIMEOUT s quiet)
  udp-send ADDR PORT FLOWS PER [SRC]   PER datagrams from each of FLOWS
                                       source ports; print "COUNT DIGEST"
  roce-send IFACE SMAC DMAC SRC DST FLOWS PER
                                       RoCEv2 SEND ONLY frames (valid ICRC,
                                       rocegen) on a packet socket, FLOWS
                                       UDP source ports; print "COUNT DIGEST"
                                       of their UDP payloads

DIGEST is the SHA-256 of the sorted payloads: the same set of datagrams,
byte for byte, gives the same digest on both sides.
"""
import hashlib
import os
import random
import socket
import sys
import time

TIMEOUT = 30


def family(addr):
    return socket.AF_INET6 if ":" in addr else socket.AF_INET


def digest(payloads):
    h = hashlib.sha256()
    for p in sorted(payloads):
        h.update(len(p).to_bytes(4, "big") + p)
    return h.hexdigest()


def tcp_server(addr, port):
    s = socket.socket(family(addr), socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind((addr, int(port)))
    s.listen(1)
    s.settimeout(TIMEOUT)
    print("ready", flush=True)
    c, _ = s.accept()
    c.settimeout(TIMEOUT)
    h = hashlib.sha256()
    n = 0
    while True:
        b = c.recv(1 << 16)
        if not b:
            break
        h.update(b)
        n += len(b)
    c.sendall(h.hexdigest().encode())
    c.close()
    print(n, h.hexdigest(), flush=True)


def tcp_client(addr, port, size, seed, src=None):
    data = random.Random(int(seed)).randbytes(int(size))
    c = socket.socket(family(addr), socket.SOCK_STREAM)
    c.settimeout(TIMEOUT)
    if src:
        c.bind((src, 0))
    c.connect((addr, int(port)))
    c.sendall(data)
    c.shutdown(socket.SHUT_WR)
    reply = b""
    while True:
        b = c.recv(128)
        if not b:
            break
        reply += b
    print(len(data), hashlib.sha256(data).hexdigest(), reply.decode(errors="replace"), flush=True)


def udp_recv(addr, port, count, timeout):
    s = socket.socket(family(addr), socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
    s.bind((addr, int(port)))
    s.settimeout(float(timeout))
    print("ready", flush=True)
    got = []
    try:
        while len(got) < int(count):
            got.append(s.recv(65536))
    except socket.timeout:
        pass
    print(len(got), digest(got), flush=True)


def udp_send(addr, port, flows, per, src=None):
    sent = []
    for f in range(int(flows)):
        s = socket.socket(family(addr), socket.SOCK_DGRAM)
        s.bind((src or ("::" if ":" in addr else "0.0.0.0"), 0))
        for i in range(int(per)):
            p = b"flow %d seq %d " % (f, i) + os.urandom(100)
            s.sendto(p, (addr, int(port)))
            sent.append(p)
        s.close()
        time.sleep(0.002)
    print(len(sent), digest(sent), flush=True)


def roce_send(iface, smac, dmac, src, dst, flows, per):
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                    "tools"))
    import rocegen
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    s.bind((iface, 0))
    sent = []
    for i in range(int(per)):
        for f in range(int(flows)):
            fr = rocegen.roce_frame(opcode=rocegen.SEND_ONLY, psn=i, dqp=0x100 + f,
                                    payload=b"qp %d psn %d " % (f, i) + bytes(48),
                                    src_mac=smac, dst_mac=dmac, src_ip=src, dst_ip=dst,
                                    sport=49152 + f)
            s.send(fr)
            # The UDP payload: BTH, data, ICRC (IPv4, no options).
            sent.append(fr[14 + 20 + 8:])
        time.sleep(0.001)
    print(len(sent), digest(sent), flush=True)


def main(argv):
    cmds = {"tcp-server": tcp_server, "tcp-client": tcp_client, "udp-recv": udp_recv,
            "udp-send": udp_send, "roce-send": roce_send}
    if len(argv) < 2 or argv[1] not in cmds:
        print(__doc__, file=sys.stderr)
        return 2
    cmds[argv[1]](*argv[2:])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

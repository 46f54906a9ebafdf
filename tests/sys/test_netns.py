#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The rocetor authors
"""System test with real Linux hosts (issue 30): rocetor between network
namespaces, on DPDK's net_af_packet or net_af_xdp PMD (--pmd), each host
using the switch as its gateway.

    host A (10.1.0.1, fd00:1::1) --- p0 [host]  \\
    host B (10.2.0.1, fd00:2::1) --- p1 [host]   rocetor (namespace SW)
    host C (10.3.0.1, fd00:3::1) === p2 [fabric] / one uplink group, two
                                 === p3 [fabric]   links to the same host

Each host is a namespace with the kernel's own IPv4/IPv6 stack; every
link is a veth pair whose switch end lives in the switch's namespace
(IPv6 off there, no addresses: that kernel sends nothing on them) and is
opened by the PMD. Host C reaches A and B over both of its links (a Linux
multipath route, hashed on L4), and the switch reaches 10.3.0.0/24 and
fd00:3::/64 through an uplink group of ports 2 and 3 whose next hops it
resolves by ARP / ND.

Checked, with one worker: the hosts resolve their gateway (ARP, ND: the
neighbour entry holds the switch port's MAC, and the switch answered),
ping the gateway and each other both ways over IPv4 and IPv6 (every reply
counted), move TCP streams (IPv4 and IPv6, host port to host port and
across the uplink group) whose SHA-256 on both ends match, and UDP from
many source ports over both paths of the group, both ways (every datagram
delivered, byte for byte). Then jumbo frames (MTU 9000 on af_packet,
3000 on af_xdp: full-size pings with DF, TCP). Then, on af_packet, two
workers and two queues per port, RoCEv2 frames from A to B in a stateful
LB mode (conweave): every one delivered intact, and the hand-off between
workers counted and printed (net_af_xdp takes one queue on a veth, so
that run is skipped there, saying why).
Every run's stats document is held to the accounting rule (rx = forwarded
+ consumed + dropped under a named reason, tx = forwarded + originated,
nothing held), and to the kernel's view: what each host's veth received is
exactly what the switch sent on that port.

Needs root, `ip` (iproute2), `ping` (iputils-ping) and `ethtool`; skips
(exit 77) when any is missing, when namespaces or veths cannot be made, or
(af_xdp) when the PMD cannot attach XDP to a veth. doc/testing.md.
"""
import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "pkt"))
import harness  # noqa: E402

HOSTAPP = os.path.join(HERE, "hostapp.py")
PY = "/usr/bin/python3"
SKIP = 77
PID = os.getpid()

SW_MAC = ["02:52:00:00:00:%02x" % p for p in range(4)]
A_MAC, B_MAC = "02:48:00:00:0a:01", "02:48:00:00:0b:01"
C_MAC = ["02:48:00:00:0c:01", "02:48:00:00:0c:02"]

CONFIG = """
switch: {name: sys-netns, id: 30, lb: %(lb)s%(sw_extra)s}
ports:
  - {port: 0, role: host, ip: ["10.1.0.254/24", "fd00:1::fe/64"]}
  - {port: 1, role: host, ip: ["10.2.0.254/24", "fd00:2::fe/64"]}
  - {port: 2, role: fabric, ip: ["10.31.0.1/24", "fd00:31::1/64"]}
  - {port: 3, role: fabric, ip: ["10.32.0.1/24", "fd00:32::1/64"]}
routes:
  - {prefix: "10.1.0.1/32", port: 0}
  - {prefix: "10.2.0.1/32", port: 1}
  - {prefix: "fd00:1::1/128", port: 0}
  - {prefix: "fd00:2::1/128", port: 1}
  - prefix: "10.3.0.0/24"
    paths:
      - {port: 2, nexthop: "10.31.0.2"}
      - {port: 3, nexthop: "10.32.0.2"}
  - prefix: "fd00:3::/64"
    paths:
      - {port: 2, nexthop: "fd00:31::2"}
      - {port: 3, nexthop: "fd00:32::2"}
%(extra)s"""

# Next hops the switch resolves by ARP / ND: A, B (each IPv4 and IPv6) and
# C's two links (each IPv4 and IPv6).
NEXT_HOPS = 8

# ConWeave as a ToR whose uplinks lead to a host, not to a DstToR: lenient
# thresholds (software switch), nothing here depends on them.
CONWEAVE = """conweave:
  flow_table_size: 16384
  reorder_queues_per_port: 64
  reorder_queue_depth: 255
"""


class Skip(Exception):
    pass


def sh(*cmd, check=True, ns=None, timeout=30):
    """Run a command (in namespace ns); its CompletedProcess."""
    full = (["ip", "netns", "exec", ns] if ns else []) + [str(c) for c in cmd]
    p = subprocess.run(full, capture_output=True, text=True, timeout=timeout)
    if check and p.returncode != 0:
        raise RuntimeError("%s: exit %d: %s" % (" ".join(full), p.returncode,
                                                 (p.stderr or p.stdout).strip()[-400:]))
    return p


class Lab:
    """The namespaces and veths of one test process, named with its PID;
    close() deletes them all (a namespace takes its veths with it)."""

    def __init__(self, queues):
        self.ns = {k: "rtr%s%d" % (k, PID) for k in ("sw", "a", "b", "c")}
        self.made = []
        self.queues = queues

    def netns(self, key):
        name = self.ns[key]
        sh("ip", "netns", "add", name)
        self.made.append(name)
        sh("ip", "link", "set", "lo", "up", ns=name)
        return name

    def veth(self, sw_if, sw_mac, host, host_if, host_mac):
        q = ["numtxqueues", self.queues, "numrxqueues", self.queues]
        sh("ip", "link", "add", sw_if, "netns", self.ns["sw"], "address", sw_mac, *q,
           "type", "veth", "peer", "name", host_if, "netns", self.ns[host], "address", host_mac, *q)
        sh("ip", "link", "set", sw_if, "up", ns=self.ns["sw"])
        # The hosts' checksums and segments must be real: a DPDK port
        # neither completes a partial checksum nor splits a 64 KB TSO
        # frame. "tx off" turns TX checksum offload off, and TSO with it.
        sh("ethtool", "-K", host_if, "tx", "off", ns=self.ns[host])
        sh("ip", "link", "set", host_if, "up", ns=self.ns[host])

    def build(self):
        sw = self.netns("sw")
        for k in ("a", "b", "c"):
            self.netns(k)
        # The switch's kernel keeps quiet on the switch's links: no IPv6
        # (no RS, MLD or DAD), no IPv4 address.
        sh("sysctl", "-qw", "net.ipv6.conf.all.disable_ipv6=1",
           "net.ipv6.conf.default.disable_ipv6=1", ns=sw)
        self.veth("p0", SW_MAC[0], "a", "eth0", A_MAC)
        self.veth("p1", SW_MAC[1], "b", "eth0", B_MAC)
        self.veth("p2", SW_MAC[2], "c", "c1", C_MAC[0])
        self.veth("p3", SW_MAC[3], "c", "c2", C_MAC[1])
        a, b, c = self.ns["a"], self.ns["b"], self.ns["c"]
        for ns, net, dev in ((a, "1", "eth0"), (b, "2", "eth0")):
            sh("ip", "addr", "add", "10.%s.0.1/24" % net, "dev", dev, ns=ns)
            sh("ip", "-6", "addr", "add", "fd00:%s::1/64" % net, "dev", dev, "nodad", ns=ns)
            sh("ip", "route", "add", "default", "via", "10.%s.0.254" % net, ns=ns)
            sh("ip", "-6", "route", "add", "default", "via", "fd00:%s::fe" % net, ns=ns)
        # Host C: its service addresses on lo, one link per path, a
        # multipath route back hashed on L4 (so its flows use both links),
        # no reverse-path filter (a reply may come in on either link).
        sh("sysctl", "-qw", "net.ipv4.conf.all.rp_filter=0", "net.ipv4.conf.default.rp_filter=0",
           "net.ipv4.fib_multipath_hash_policy=1", "net.ipv6.fib_multipath_hash_policy=1", ns=c)
        sh("ip", "addr", "add", "10.3.0.1/32", "dev", "lo", ns=c)
        sh("ip", "-6", "addr", "add", "fd00:3::1/128", "dev", "lo", ns=c)
        for i, dev in ((1, "c1"), (2, "c2")):
            sh("sysctl", "-qw", "net.ipv4.conf.%s.rp_filter=0" % dev, ns=c)
            sh("ip", "addr", "add", "10.3%d.0.2/24" % i, "dev", dev, ns=c)
            sh("ip", "-6", "addr", "add", "fd00:3%d::2/64" % i, "dev", dev, "nodad", ns=c)
        sh("ip", "route", "add", "10.0.0.0/8", "nexthop", "via", "10.31.0.1", "dev", "c1",
           "nexthop", "via", "10.32.0.1", "dev", "c2", ns=c)
        sh("ip", "-6", "route", "add", "fd00::/16", "nexthop", "via", "fd00:31::1", "dev", "c1",
           "nexthop", "via", "fd00:32::1", "dev", "c2", ns=c)

    def host_queues(self, n):
        """The host ends send on n TX queues (veth: the peer's RX queue of
        the same index)."""
        for host, dev in (("a", "eth0"), ("b", "eth0"), ("c", "c1"), ("c", "c2")):
            sh("ethtool", "-L", dev, "rx", n, "tx", n, ns=self.ns[host])

    def rx_tx(self):
        """(rx_packets, tx_packets) of each host end, by switch port."""
        out = []
        for host, dev in (("a", "eth0"), ("b", "eth0"), ("c", "c1"), ("c", "c2")):
            p = sh("cat", "/sys/class/net/%s/statistics/rx_packets" % dev,
                   "/sys/class/net/%s/statistics/tx_packets" % dev, ns=self.ns[host])
            rx, tx = p.stdout.split()
            out.append((int(rx), int(tx)))
        return out

    def close(self):
        for name in reversed(self.made):
            subprocess.run(["ip", "netns", "del", name], capture_output=True)
        self.made = []


# Every process the test starts (host programs, rocetor): stopped by PID at
# the end, whatever happened.
STARTED = []


def start(cmd):
    p = harness.dpdk.Proc(cmd, who="sys-netns")
    STARTED.append(p)
    return p


class Host:
    """A hostapp.py (or any command) in a host namespace; ours, stopped by
    its PID."""

    def __init__(self, lab, host, *args):
        self.p = start(["ip", "netns", "exec", lab.ns[host]] + [str(a) for a in args])

    def ready(self, timeout=10):
        return self.p.wait_for(lambda: "ready" in self.p.text(), timeout)

    def result(self, timeout=40):
        self.p.wait(timeout)
        lines = [line for line in self.p.lines() if line.strip() and line.strip() != "ready"]
        return lines[-1].split() if lines else [], self.p.text("err")[-600:]


def app(lab, host, *args):
    return Host(lab, host, PY, HOSTAPP, *args)


class Switch:
    def __init__(self, lab, pmd, work, tag, cfg, lcores, queues, args=(), devargs="", more=()):
        self.prefix = harness.eal_prefix(tag)
        self.stats_path = os.path.join(work, tag + ".json")
        path = os.path.join(work, tag + ".yaml")
        with open(path, "w") as f:
            f.write(cfg)
        vdevs = []
        for i in range(4):
            if pmd == "af_packet":
                vdevs += ["--vdev", "net_af_packet%d,iface=p%d,qpairs=%d%s"
                          % (i, i, queues, devargs)]
            else:
                vdevs += ["--vdev", "net_af_xdp%d,iface=p%d,start_queue=0,queue_count=%d%s"
                          % (i, i, queues, devargs)]
        vdevs += list(more)
        cmd = ["ip", "netns", "exec", lab.ns["sw"], harness.ROCETOR, "-l", lcores, "--no-pci",
               "--no-huge", "-m", "1024", "--file-prefix", self.prefix,
               "--log-level", "lib.eal:error"] + vdevs + [
               "--", "--config", path, "--stats-json", self.stats_path,
               "--wait-links", "3000", "--duration", "120", "--stats-interval", "0.2"] + list(args)
        self.p = start(cmd)

    def text(self):
        return self.p.text() + self.p.text("err")

    def ready(self, timeout=30):
        return self.p.wait_for(lambda: "rocetor: port 3 " in self.p.text()
                               and "--wait-links: all links up" in self.text(), timeout)

    def resolved(self):
        """neigh.resolved of the last whole --stats-interval document
        (several lines, each starting with {"switch")."""
        text = self.p.text()
        end = len(text)
        while True:
            i = text.rfind('{"switch"', 0, end)
            if i < 0:
                return 0
            try:
                return json.JSONDecoder().raw_decode(text[i:])[0]["neigh"]["resolved"]
            except (ValueError, KeyError):
                end = i

    def settle(self, t, what, timeout=10):
        """Wait until the switch has resolved all NEXT_HOPS by ARP / ND:
        the data path never waits for a next hop, it drops what is routed
        to one not resolved yet (neigh_unresolved)."""
        ok = self.p.wait_for(lambda: self.resolved() >= NEXT_HOPS, timeout)
        t.check(ok, "%s: the switch resolved %d of its %d next hops in %d s"
                % (what, self.resolved(), NEXT_HOPS, timeout))

    def stop(self):
        rc = self.p.stop()
        st = None
        if os.path.exists(self.stats_path):
            with open(self.stats_path) as f:
                st = json.load(f)
        return rc, st


def ping(lab, host, addr, n=5, src=None):
    """Replies received of n echo requests."""
    cmd = ["ping", "-n", "-q", "-c", n, "-i", "0.05", "-W", "2"] + (["-I", src] if src else []) + [addr]
    p = sh(*cmd, check=False, ns=lab.ns[host], timeout=30)
    m = re.search(r"(\d+) packets transmitted, (\d+) received", p.stdout)
    got = int(m.group(2)) if m else -1
    if got != n:
        print("ping %s from %s: %d of %d; veths: %s" % (addr, host, got, n, diag(lab)),
              file=sys.stderr)
    return got


def diag(lab):
    """Where frames went missing, for a failure message: the veths' drop
    counters (both ends) and their XDP counters."""
    out = []
    for ns, dev in ((lab.ns["a"], "eth0"), (lab.ns["b"], "eth0"), (lab.ns["sw"], "p0"),
                    (lab.ns["sw"], "p1")):
        p = sh("ethtool", "-S", dev, check=False, ns=ns).stdout
        nz = ["%s=%s" % kv for kv in re.findall(r"(\w+): (\d+)", p) if kv[1] != "0"
              and ("drop" in kv[0] or "xdp" in kv[0] or "err" in kv[0])]
        q = sh("ip", "-s", "link", "show", dev, check=False, ns=ns).stdout.split()
        out.append("%s: %s %s" % (dev, " ".join(nz), " ".join(q[-14:])))
    return "; ".join(out)


def neigh_mac(lab, host, addr, dev):
    p = sh("ip", "-j", "neigh", "show", addr, "dev", dev, check=False, ns=lab.ns[host])
    try:
        entries = json.loads(p.stdout or "[]")
    except ValueError:
        return None
    return entries[0].get("lladdr") if entries else None


def tcp(lab, t, what, server_host, client_host, addr, size, seed, port, src=None):
    srv = app(lab, server_host, "tcp-server", addr, port)
    if not t.check(srv.ready(), "%s: server not ready: %s" % (what, srv.p.text("err"))):
        srv.p.stop()
        return
    cli = app(lab, client_host, "tcp-client", addr, port, size, seed, *([src] if src else []))
    c, cerr = cli.result()
    s, serr = srv.result()
    ok = len(c) == 3 and len(s) == 2 and c[0] == s[0] == str(size) and c[1] == s[1] == c[2]
    t.check(ok, "%s: TCP %d bytes: client %s %s server %s %s" % (what, size, c, cerr, s, serr))


def udp(lab, t, what, rx_host, tx_host, addr, flows, per, port, src=None):
    n = flows * per
    srv = app(lab, rx_host, "udp-recv", addr, port, n, 3)
    if not t.check(srv.ready(), "%s: receiver not ready" % what):
        srv.p.stop()
        return
    cli = app(lab, tx_host, "udp-send", addr, port, flows, per, *([src] if src else []))
    c, cerr = cli.result()
    s, serr = srv.result()
    t.check(len(c) == 2 and c == s and c[0] == str(n),
            "%s: UDP %d datagrams from %d ports: sent %s %s received %s %s"
            % (what, n, flows, c, cerr, s, serr))


def check_stats(t, pmd, what, st, before, after, queues, out=None):
    """The accounting rule of every run, and the kernel's view of it."""
    if not t.check(st is not None, "%s: no stats document" % what):
        return
    ok, why = harness.accounted(dict(st, mempool_in_use=0))
    t.check(ok, "%s: accounting: %s" % (what, why))
    drops = {k: v for k, v in st["drops"].items() if v}
    # The hosts' kernels multicast MLD reports (ff02::16), which the
    # switch does not route: no_route. Nothing else is dropped.
    t.check(set(drops) <= {"no_route"}, "%s: drops %s" % (what, drops))
    print("%s: rx %d forwarded %d consumed %d originated %d dropped %s handoff %d/%d" %
          (what, sum(p["rx_packets"] for p in st["ports"]), st["forwarded"], st["consumed"],
           st["originated"], drops or 0, st["handoff_tx"], st["handoff_rx"]))
    # Every frame the switch sent on port i arrived at host end i, and
    # nothing else did (the switch's kernel sends nothing there).
    veths = sorted((p for p in st["ports"] if p["port"] < 4), key=lambda p: p["port"])
    sent = [p["tx_packets"] for p in veths]
    got = [a[0] - b[0] for a, b in zip(after, before)]
    t.eq(got, sent, "(%s: frames the hosts' veths received = the switch's tx_packets)" % what)
    # What the hosts sent, against what the switch received: never more
    # (the hosts may have sent before the PMD opened its sockets). Summed
    # over the ports, not port by port: net_af_packet (22.11) opens each
    # socket for every interface of the namespace (ETH_P_ALL) and binds it
    # to its own only after setting up its ring, so a frame that arrives on
    # another veth in between is received on the wrong port (seen once in
    # 25 two-worker runs: a frame C sent on c2 counted on port 2, not 3).
    hosts_tx = [a[1] - b[1] for a, b in zip(after, before)]
    rx = [p["rx_packets"] for p in veths]
    t.check(sum(rx) <= sum(hosts_tx),
            "%s: switch rx %s exceeds what the hosts sent %s" % (what, rx, hosts_tx))
    lost = sum(p.get("ierrors", 0) + p.get("imissed", 0) + p.get("rx_nombuf", 0) for p in st["ports"])
    t.eq(lost, 0, "(%s: frames the PMDs lost)" % what)
    if pmd == "af_packet":
        t.eq(st["mempool_in_use"], 0, "(%s: mempool in use at exit)" % what)
    else:
        # net_af_xdp (22.11, zero-copy from our mempool) keeps the mbufs
        # of its fill rings (the baseline) and never returns them at close
        # (xdp_umem_destroy); the last TX burst of each queue stays
        # until the next TX call reclaims it (pull_umem_cq).
        extra = st["mempool_in_use_stopped"] - st["mempool_baseline"]
        print("%s: mbufs in use: baseline %d, at stop %d, after close %d (net_af_xdp's)"
              % (what, st["mempool_baseline"], st["mempool_in_use_stopped"], st["mempool_in_use"]))
        t.check(0 <= extra <= 64 * 4 * queues,
                "%s: mbufs in use at stop %d, baseline %d" % (what, st["mempool_in_use_stopped"],
                                                              st["mempool_baseline"]))
        t.eq(st["mempool_in_use"], st["mempool_in_use_stopped"],
             "(%s: af_xdp: nothing more in use after close than at stop)" % what)
        t.check(out is not None and "net_af_xdp keeps its rings' mbufs after close" in out
                and "(LEAK)" not in out, "%s: rocetor's exit lines: %s" % (
                    what, [line for line in (out or "").splitlines() if "mempool" in line]))


def run_one_worker(t, lab, pmd, work):
    what = "%s, 1 worker" % pmd
    a, b, c = lab.ns["a"], lab.ns["b"], lab.ns["c"]
    before = lab.rx_tx()
    sw = Switch(lab, pmd, work, "w1", CONFIG % {"lb": "ecmp", "sw_extra": "", "extra": ""}, "0", 1)
    try:
        if not sw.ready():
            sw.stop()
            return sw.text()
        xdp = sh("ip", "-d", "link", "show", "p0", ns=lab.ns["sw"]).stdout
        m = re.search(r"\b(xdp\w*)\b", xdp)
        if pmd == "af_xdp":
            print("%s: XDP on the veth: %s" % (what, m.group(1) if m else "none shown"))
        # ARP and ND from scratch: the switch resolves its next hops at
        # start (its ARP requests and solicitations teach the hosts its
        # MACs too); once it has, the hosts forget them, so that their
        # pings make them ask for their gateway themselves.
        t0 = time.time()
        sw.settle(t, what)
        print("%s: the switch resolved its next hops in %.2f s" % (what, time.time() - t0))
        for ns, dev in ((a, "eth0"), (b, "eth0"), (c, "c1"), (c, "c2")):
            sh("ip", "neigh", "flush", "dev", dev, ns=ns)
        t.eq(ping(lab, "a", "10.1.0.254"), 5, "(%s: A pings its gateway, replies)" % what)
        t.eq(ping(lab, "a", "fd00:1::fe"), 5, "(%s: A pings its gateway over IPv6)" % what)
        t.eq(ping(lab, "b", "10.2.0.254"), 5, "(%s: B pings its gateway)" % what)
        t.eq(ping(lab, "b", "fd00:2::fe"), 5, "(%s: B pings its gateway over IPv6)" % what)
        t.eq(ping(lab, "c", "10.31.0.1"), 5, "(%s: C pings the switch on link 1)" % what)
        t.eq(ping(lab, "c", "fd00:32::1"), 5, "(%s: C pings the switch on link 2, IPv6)" % what)
        for host, gw, dev, mac in (("a", "10.1.0.254", "eth0", SW_MAC[0]),
                                   ("a", "fd00:1::fe", "eth0", SW_MAC[0]),
                                   ("b", "10.2.0.254", "eth0", SW_MAC[1]),
                                   ("b", "fd00:2::fe", "eth0", SW_MAC[1])):
            t.eq(neigh_mac(lab, host, gw, dev), mac,
                 "(%s: %s resolved its gateway %s to the switch port's MAC)" % (what, host, gw))
        # Host to host, both ways, both families; and across the group.
        pings = [("a", "10.2.0.1", None), ("b", "10.1.0.1", None), ("a", "fd00:2::1", None),
                 ("b", "fd00:1::1", None), ("a", "10.3.0.1", None), ("b", "fd00:3::1", None),
                 ("c", "10.1.0.1", "10.3.0.1"), ("c", "fd00:2::1", "fd00:3::1")]
        for host, addr, src in pings:
            t.eq(ping(lab, host, addr, src=src), 5, "(%s: %s pings %s)" % (what, host, addr))
        tcp(lab, t, what + ", A->B IPv4", "b", "a", "10.2.0.1", 2000000, 1, 5001)
        tcp(lab, t, what + ", B->A IPv6", "a", "b", "fd00:1::1", 2000000, 2, 5002)
        tcp(lab, t, what + ", A->C IPv4 over the group", "c", "a", "10.3.0.1", 2000000, 3, 5003)
        tcp(lab, t, what + ", C->B IPv6 over the group", "b", "c", "fd00:2::1", 2000000, 4, 5004,
            src="fd00:3::1")
        udp(lab, t, what + ", A->C over the group", "c", "a", "10.3.0.1", 64, 4, 6001)
        udp(lab, t, what + ", C->A over both links", "a", "c", "10.1.0.1", 64, 4, 6002,
            src="10.3.0.1")
        udp(lab, t, what + ", B->C IPv6 over the group", "c", "b", "fd00:3::1", 64, 4, 6003)
    finally:
        rc, st = sw.stop()
    after = lab.rx_tx()
    t.eq(rc, 0, "(%s: rocetor's exit status) %s" % (what, sw.p.text("err")[-800:]))
    check_stats(t, pmd, what, st, before, after, 1, sw.p.text())
    if st:
        n = st["neigh"]
        t.check(n["arp_reply_tx"] >= 1 and n["na_tx"] >= 1,
                "%s: the switch answered ARP and ND (arp_reply_tx %d, na_tx %d)"
                % (what, n["arp_reply_tx"], n["na_tx"]))
        t.check(n["icmp_echo_tx"] >= 30, "%s: echo replies from the switch %d" % (what, n["icmp_echo_tx"]))
        paths = [g for g in st.get("paths", []) if g["prefix"].startswith("10.3.")]
        per_path = paths[0]["tx_packets"] if paths else []
        t.check(len(per_path) == 2 and min(per_path) > 0,
                "%s: both paths of the group carried traffic: %s" % (what, per_path))
        ports = sorted(st["ports"], key=lambda p: p["port"])
        t.check(ports[2]["rx_packets"] > 0 and ports[3]["rx_packets"] > 0,
                "%s: host C sent on both links: rx %d, %d" % (what, ports[2]["rx_packets"],
                                                             ports[3]["rx_packets"]))
        print("%s: group 10.3.0.0/24 tx per path %s; C's links rx %d, %d" %
              (what, per_path, ports[2]["rx_packets"], ports[3]["rx_packets"]))
    return None


def run_jumbo(t, lab, pmd, work):
    """Jumbo frames between the hosts: MTU 9000 on af_packet, the most a
    veth's XDP and net_af_xdp take (3000) on af_xdp. Neither PMD lets
    ethdev set such an MTU the plain way (doc/testing.md "System tests"):
    net_af_packet says 1518 is its largest frame (max_rx_pktlen), so its
    ports keep MTU 1500 in rocetor, a net_pcap port that stays down gives
    the mbufs their room (the data room follows the largest ports[].mtu),
    and the PMD's ring frames (framesz) are made large enough; net_af_xdp
    puts XDP's 256-byte headroom inside the mbuf, which rocetor's data room
    adds (the capability table's rx_headroom_extra): its ports carry frames
    of their own mtu."""
    mtu = 9000 if pmd == "af_packet" else 3000
    what = "%s, MTU %d" % (pmd, mtu)
    for host, dev in (("a", "eth0"), ("b", "eth0"), ("c", "c1"), ("c", "c2")):
        sh("ip", "link", "set", dev, "mtu", mtu, ns=lab.ns[host])
    for i in range(4):
        sh("ip", "link", "set", "p%d" % i, "mtu", mtu, ns=lab.ns["sw"])
    cfg = CONFIG % {"lb": "ecmp", "sw_extra": "", "extra": ""}
    devargs, more = "", []
    if pmd == "af_packet":
        empty = os.path.join(work, "empty.pcap")
        harness.write_pcap(empty, [])
        cfg = cfg.replace("routes:", "  - {port: 4, role: fabric, mtu: 9200, admin_down: true}\n"
                          "routes:", 1)
        # 4 frames of 9216 bytes a block (a block is whole pages; the PMD
        # walks its ring in steps of framesz, so blocksz is a multiple).
        devargs = ",blocksz=36864,framesz=9216,framecnt=512"
        more = ["--vdev", "net_pcap4,rx_pcap=%s,tx_pcap=%s" % (empty, os.path.join(work, "p4.pcap"))]
    else:
        cfg = re.sub(r"role: (host|fabric), ip", r"role: \1, mtu: %d, ip" % mtu, cfg)
    before = lab.rx_tx()
    sw = Switch(lab, pmd, work, "jumbo", cfg, "0", 1, devargs=devargs, more=more)
    try:
        if not sw.ready():
            sw.stop()
            return sw.text()
        sw.settle(t, what)
        # Full-size datagrams with DF, both ways, both families.
        for host, addr, size in (("a", "10.2.0.1", mtu - 28), ("b", "10.1.0.1", mtu - 28),
                                 ("a", "fd00:2::1", mtu - 48), ("c", "10.1.0.1", mtu - 28)):
            p = sh("ping", "-n", "-q", "-c", 3, "-i", "0.05", "-W", 2, "-M", "do", "-s", size,
                   *(["-I", "10.3.0.1"] if host == "c" else []), addr, check=False,
                   ns=lab.ns[host], timeout=30)
            if not t.check(" 3 received" in p.stdout, "%s: %s pings %s with %d-byte packets: %s"
                           % (what, host, addr, mtu, p.stdout.strip()[-200:])):
                print("%s: veths: %s" % (what, diag(lab)), file=sys.stderr)
        tcp(lab, t, what + ", A->B IPv4", "b", "a", "10.2.0.1", 4000000, 6, 5021)
        tcp(lab, t, what + ", B->A IPv6", "a", "b", "fd00:1::1", 4000000, 7, 5022)
        tcp(lab, t, what + ", A->C IPv4 over the group", "c", "a", "10.3.0.1", 4000000, 8, 5023)
    finally:
        rc, st = sw.stop()
        for host, dev in (("a", "eth0"), ("b", "eth0"), ("c", "c1"), ("c", "c2")):
            sh("ip", "link", "set", dev, "mtu", 1500, ns=lab.ns[host])
        for i in range(4):
            sh("ip", "link", "set", "p%d" % i, "mtu", 1500, ns=lab.ns["sw"])
    after = lab.rx_tx()
    t.eq(rc, 0, "(%s: rocetor's exit status) %s" % (what, sw.p.text("err")[-800:]))
    check_stats(t, pmd, what, st, before, after, 1, sw.p.text())
    if st:
        p0 = [p for p in st["ports"] if p["port"] == 0][0]
        big = p0["rx_bytes"] / max(1, p0["rx_packets"])
        # A's 4 MB stream to B and C is most of what port 0 received.
        t.check(big > 1518, "%s: mean frame from A %.0f bytes: no jumbo frames" % (what, big))
        print("%s: mean frame received from A %.0f bytes" % (what, big))
    return None


def run_two_workers(t, lab, pmd, work):
    """Two workers, two queues per port, RoCE from A to B in a stateful
    mode: every frame delivered intact; the hand-off figure printed."""
    what = "%s, 2 workers, 2 queues" % pmd
    lab.host_queues(2)
    before = lab.rx_tx()
    cfg = CONFIG % {"lb": "conweave", "sw_extra": "", "extra": CONWEAVE}
    sw = Switch(lab, pmd, work, "w2", cfg, "0,1", 2, args=["--main-forwards"])
    flows, per = 64, 16
    try:
        if not sw.ready():
            sw.stop()
            return sw.text()
        sw.settle(t, what)
        t.eq(ping(lab, "a", "10.2.0.1"), 5, "(%s: A pings B)" % what)
        t.eq(ping(lab, "b", "fd00:1::1"), 5, "(%s: B pings A over IPv6)" % what)
        gw = neigh_mac(lab, "a", "10.1.0.254", "eth0")
        rcv = app(lab, "b", "udp-recv", "10.2.0.1", 4791, flows * per, 3)
        t.check(rcv.ready(), "%s: RoCE receiver not ready" % what)
        snd = app(lab, "a", "roce-send", "eth0", A_MAC, gw, "10.1.0.1", "10.2.0.1", flows, per)
        s, serr = snd.result()
        r, rerr = rcv.result()
        t.check(len(s) == 2 and s[0] == str(flows * per) and r == s,
                "%s: RoCE frames A->B: sent %s %s received %s %s" % (what, s, serr, r, rerr))
        tcp(lab, t, what + ", A->B IPv4", "b", "a", "10.2.0.1", 2000000, 5, 5011)
    finally:
        rc, st = sw.stop()
        lab.host_queues(1)
    after = lab.rx_tx()
    t.eq(rc, 0, "(%s: rocetor's exit status) %s" % (what, sw.p.text("err")[-800:]))
    check_stats(t, pmd, what, st, before, after, 2, sw.p.text())
    if st:
        roce = flows * per
        t.check(st["handoff_tx"] == st["handoff_rx"],
                "%s: every packet handed off was taken: tx %d rx %d" %
                (what, st["handoff_tx"], st["handoff_rx"]))
        t.eq(st["drops"].get("handoff_full", 0), 0, "(%s: handoff_full)" % what)
        print("%s: HAND-OFF: %d of %d RoCE packets (%.1f%%) were handed to the other worker"
              % (what, st["handoff_tx"], roce, 100.0 * st["handoff_tx"] / roce))
    return None


def need(tool):
    if shutil.which(tool) is None:
        raise Skip("no %s" % tool)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pmd", choices=("af_packet", "af_xdp"), default="af_packet")
    opts = ap.parse_args()
    name = "sys-netns" if opts.pmd == "af_packet" else "sys-netns-xdp"
    t = harness.Checker(name)
    # meson's timeout (SIGTERM) must still run the clean-up below.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))
    lab = Lab(queues=2)
    work = tempfile.mkdtemp(prefix="rocetor-sys-")
    t0 = time.time()
    try:
        try:
            if os.geteuid() != 0:
                raise Skip("needs root (network namespaces, veths)")
            for tool in ("ip", "ping", "ethtool"):
                need(tool)
            try:
                lab.build()
            except RuntimeError as e:
                raise Skip("cannot build the namespaces and veths: %s" % e)
            lab.host_queues(1)
            fail = run_one_worker(t, lab, opts.pmd, work)
            if fail is not None and opts.pmd == "af_xdp" and t.passed == t.failed == 0:
                raise Skip("net_af_xdp did not start on a veth: %s" % fail.strip()[-600:])
            t.check(fail is None, "rocetor on %s did not start: %s" % (opts.pmd, (fail or "")[-1500:]))
            fail = run_jumbo(t, lab, opts.pmd, work)
            t.check(fail is None, "rocetor (jumbo) on %s did not start: %s"
                    % (opts.pmd, (fail or "")[-1500:]))
            if opts.pmd == "af_xdp":
                print("%s: two workers: skipped: net_af_xdp (22.11) opens at most the "
                      "interface's combined channels (ETHTOOL_GCHANNELS max_combined) and a "
                      "veth has separate RX/TX channels only (combined 0: one queue), while "
                      "rocetor needs a TX queue per worker" % name)
            else:
                fail = run_two_workers(t, lab, opts.pmd, work)
                t.check(fail is None, "rocetor (2 workers) on %s did not start: %s"
                        % (opts.pmd, (fail or "")[-1500:]))
        except Skip as e:
            print("%s: skipped: %s" % (name, e))
            return SKIP
    finally:
        for p in STARTED:
            if p.alive():
                p.stop(grace=5)
        lab.close()
        shutil.rmtree(work, ignore_errors=True)
        print("%s: %.1f s" % (name, time.time() - t0))
    return t.done()


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The rocetor authors
"""The FPM server against a zebra stand-in (tests/pkt/fpmsend.py: frames
built from the kernel's layouts, as dplane_fpm_nl writes them), in a
network namespace of its own with veth interfaces named as the ports'
ifnames (doc/routing.md):

- routes with one next hop and RTA_MULTIPATH, IPv4 and IPv6, land as FPM
  routes on the ports whose ifname has the next hop's ifindex;
- a DEL+NEW update frame that drops a next hop changes the group in place;
- a blackhole route, a connected route, another table, fe80::/64, an
  unknown ifindex and a config prefix are handled as documented (counted);
- next-hop objects (zebra's default): a group sent before its member, a
  route naming it, then the group shrinking: the route follows;
- zebra goes away: nothing is removed until fpm.stale_ms; it comes back and
  sends part of the table again: the rest is swept;
- a malformed frame drops the connection (counted), rocetor keeps running
  and takes the next connection;
- rocetor restarts: the same dump gives the same table.

Needs root (network namespaces); skips without."""
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
import fpmsend as Z  # noqa: E402
import harness  # noqa: E402

PORT = 26200 + os.getpid() % 1000
CONFIG = """
switch: {name: fpm, id: 5, lb: ecmp}
ports:
  - {port: 0, role: host, mac: "02:00:00:00:00:10", ip: "10.1.0.254/16"}
""" + "".join('  - {port: %d, role: fabric, mac: "02:00:00:00:01:%02x", ip: "192.168.%d.1/30", '
              'ifname: "rt%d"}\n' % (i, i, i, i) for i in range(1, 5)) + """
routes:
  - {prefix: "10.9.0.0/16", port: 1, nexthop: "192.168.1.2"}
fpm: {address: "127.0.0.1", port: %d, netns: "%s", stale_ms: 1500}
"""


def sh(*cmd):
    return subprocess.run(list(cmd), capture_output=True, text=True)


class Zebra:
    def __init__(self, ns):
        self.p = subprocess.Popen(["ip", "netns", "exec", ns, sys.executable, "-u",
                                   os.path.join(os.path.dirname(__file__), "fpmsend.py"),
                                   "127.0.0.1", str(PORT)],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def do(self, line):
        self.p.stdin.write(line + "\n")
        self.p.stdin.flush()
        return self.p.stdout.readline().strip()

    def connect(self, tries=50):
        for _ in range(tries):
            if self.do("connect") == "ok":
                return True
            time.sleep(0.1)
        return False

    def send(self, *frames):
        return self.do("send " + b"".join(frames).hex())

    def close(self):
        return self.do("close")

    def exit(self):
        try:
            self.do("exit")
        except (BrokenPipeError, OSError):
            pass
        self.p.wait(timeout=10)


class Switch:
    def __init__(self, work, ns, tag):
        cfg = os.path.join(work, "c.yaml")
        with open(cfg, "w") as f:
            f.write(CONFIG % (PORT, ns))
        self.prefix = harness.eal_prefix(tag)
        empty = os.path.join(work, "empty.pcap")
        harness.write_pcap(empty, [])
        cmd = [harness.ROCETOR, "-l", "0", "--no-pci", "--no-huge", "-m", "1024",
               "--file-prefix", self.prefix, "--log-level", "lib.eal:error"]
        for i in range(5):
            cmd += ["--vdev", "net_pcap%d,rx_pcap=%s,tx_pcap=/dev/null" % (i, empty)]
        cmd += ["--", "--config", cfg, "--duration", "120"]
        self.proc = harness.dpdk.Proc(cmd, who=tag)
        self.tel = None
        end = time.time() + 30
        while self.tel is None and time.time() < end and self.proc.alive():
            try:
                self.tel = harness.Telemetry(self.prefix, timeout=2)
                if self.tel.cmd("/rocetor/fpm") is None:
                    raise OSError
            except (OSError, ValueError):
                self.tel = None
                time.sleep(0.2)

    def fpm(self):
        return self.tel.cmd("/rocetor/fpm") or {}

    def routes(self):
        out = {}
        start = 0
        while start >= 0:
            page = self.tel.cmd("/rocetor/route/list,%d" % start) or {}
            for k, v in page.items():
                if k.startswith("route_"):
                    out[v[0]] = v[1:]
            start = page.get("next", -1)
        return out

    def wait(self, cond, timeout=5):
        end = time.time() + timeout
        while time.time() < end:
            r = self.routes()
            if cond(r):
                return r
            time.sleep(0.05)
        return self.routes()

    def stop(self):
        if self.tel is not None:
            self.tel.close()
        return self.proc.stop()


def paths(entry):
    """(port, address) of each path of a listed route."""
    return sorted((int(p.split()[3]), p.split()[4]) for p in entry if p.startswith("path "))


def main():
    t = harness.Checker("pkt-fpm")
    if os.geteuid() != 0 or sh("ip", "netns", "list").returncode != 0:
        print("pkt-fpm: SKIP (needs root and ip netns)")
        return 77
    ns = "rtrfpm%d" % os.getpid()
    if sh("ip", "netns", "add", ns).returncode != 0:
        print("pkt-fpm: SKIP (cannot make a network namespace)")
        return 77
    work = harness.tempfile.mkdtemp(prefix="rocetor-fpm-")
    sw = zb = None
    try:
        sh("ip", "-n", ns, "link", "set", "lo", "up")
        ifindex = {}
        for i in range(1, 6):  # rt5: an interface that is no port's ifname
            sh("ip", "-n", ns, "link", "add", "rt%d" % i, "type", "veth", "peer", "name",
               "rt%dp" % i)
            out = sh("ip", "-n", ns, "-o", "link", "show", "rt%d" % i).stdout
            ifindex[i] = int(out.split(":")[0]) if out else 0
        if not t.check(all(ifindex.values()), "veth interfaces in %s: %r" % (ns, ifindex)):
            return t.done()
        sw = Switch(work, ns, "fpm1")
        if not t.check(sw.tel is not None, "rocetor did not start: %s" % sw.proc.text("err")):
            return t.done()
        t.eq(sw.fpm().get("listening"), 1, "(the FPM server listens in %s)" % ns)
        zb = Zebra(ns)
        t.check(zb.connect(), "zebra stand-in connects to 127.0.0.1:%d in %s" % (PORT, ns))
        dump = [
            Z.frame(Z.route("10.50.0.0/16", [("192.168.1.2", ifindex[1]),
                                             ("192.168.2.2", ifindex[2]),
                                             ("192.168.3.2", ifindex[3])])),
            Z.frame(Z.route("10.60.0.0/24", [("192.168.4.2", ifindex[4])], proto=196)),
            Z.frame(Z.route("fd00:50::/64", [("fd00:1::2", ifindex[1]),
                                             ("fd00:2::2", ifindex[2])])),
            Z.frame(Z.route("10.66.0.0/16", rtype=Z.RTN_BLACKHOLE, proto=196)),
            Z.frame(Z.route("192.168.1.0/30", [(None, ifindex[1])], proto=2)),  # connected
            Z.frame(Z.route("10.77.0.0/16", [("192.168.1.2", ifindex[1])], table=1000)),
            Z.frame(Z.route("fe80::/64", [(None, ifindex[1])], proto=2)),
            Z.frame(Z.route("10.88.0.0/16", [("192.168.9.2", ifindex[5])])),  # no port
            Z.frame(Z.route("10.9.0.0/16", [("192.168.2.2", ifindex[2])])),  # the config's
        ]
        t.eq(zb.send(*dump), "ok")
        r = sw.wait(lambda r: "fd00:50::/64" in r and "10.66.0.0/16" in r)
        t.eq((r.get("10.50.0.0/16") or ["?"])[0], "fpm", "(10.50 is an FPM route)")
        t.eq(paths(r.get("10.50.0.0/16", [])),
             [(1, "192.168.1.2"), (2, "192.168.2.2"), (3, "192.168.3.2")],
             "(10.50's three next hops on the ports of rt1, rt2, rt3)")
        t.eq(paths(r.get("10.60.0.0/24", [])), [(4, "192.168.4.2")], "(a one-next-hop route)")
        t.eq((r.get("10.60.0.0/24") or ["", "?"])[1], "nexthop")
        t.eq(paths(r.get("fd00:50::/64", [])), [(1, "fd00:1::2"), (2, "fd00:2::2")], "(IPv6)")
        t.eq((r.get("10.66.0.0/16") or ["", "?"])[1], "blackhole")
        for gone in ("192.168.1.0/30", "10.77.0.0/16", "fe80::/64", "10.88.0.0/16"):
            t.check(gone not in r, "%s must not be installed: %r" % (gone, r.get(gone)))
        t.eq((r.get("10.9.0.0/16") or ["?"])[0], "config", "(the config's route stays)")
        f = sw.fpm()
        t.eq([f.get(k) for k in ("connected", "routes", "skipped_connected", "skipped_table",
                                 "skipped_linklocal", "no_port", "shadowed", "bad_frames")],
             [1, 4, 1, 1, 1, 1, 1, 0], "(/rocetor/fpm) %r" % f)
        g50 = r["10.50.0.0/16"][1]
        # An update: DEL + NEW in one frame, one next hop fewer: in place.
        t.eq(zb.send(Z.frame(Z.route("10.50.0.0/16", delete=True),
                             Z.route("10.50.0.0/16", [("192.168.1.2", ifindex[1]),
                                                      ("192.168.3.2", ifindex[3])]))), "ok")
        r = sw.wait(lambda r: len(paths(r.get("10.50.0.0/16", []))) == 2)
        t.eq(paths(r.get("10.50.0.0/16", [])), [(1, "192.168.1.2"), (3, "192.168.3.2")],
             "(the update took)")
        t.eq(r.get("10.50.0.0/16", ["", ""])[1].split(" live")[0], g50.split(" live")[0],
             "(the same group: changed in place)")
        # Next-hop objects: the group (22) before its member 23, a route
        # naming it: installed once 23 comes; then 22 shrinks.
        t.eq(zb.send(Z.frame(Z.nexthop(21, "192.168.1.2", ifindex[1]),
                             Z.nexthop(22, group=[21, 23])),
                     Z.frame(Z.route("10.70.0.0/16", nh_id=22))), "ok")
        time.sleep(0.3)
        t.check("10.70.0.0/16" not in sw.routes(), "a route through an incomplete group waits")
        t.eq(zb.send(Z.frame(Z.nexthop(23, "192.168.4.2", ifindex[4]))), "ok")
        r = sw.wait(lambda r: "10.70.0.0/16" in r)
        t.eq(paths(r.get("10.70.0.0/16", [])), [(1, "192.168.1.2"), (4, "192.168.4.2")],
             "(the route through next-hop group 22)")
        t.eq(zb.send(Z.frame(Z.nexthop(22, group=[23]))), "ok")
        r = sw.wait(lambda r: len(paths(r.get("10.70.0.0/16", []))) == 1)
        t.eq(paths(r.get("10.70.0.0/16", [])), [(4, "192.168.4.2")], "(the group shrank)")
        # zebra goes away: FPM routes stay (stale) until stale_ms ...
        before = sw.routes()
        t.eq(zb.close(), "ok")
        time.sleep(0.5)
        f = sw.fpm()
        t.eq((f.get("connected"), f.get("stale"), f.get("routes")), (0, 5, 5),
             "(after zebra left: every FPM route stale, none removed) %r" % f)
        # ... it comes back and sends part of the table again.
        t.check(zb.connect(), "zebra reconnects")
        t.eq(zb.send(dump[0], dump[2]), "ok")
        r = sw.wait(lambda r: "10.60.0.0/24" not in r, timeout=5)
        t.check("10.50.0.0/16" in r and "fd00:50::/64" in r, "re-sent routes stay: %r" % r)
        t.check(all(p not in r for p in ("10.60.0.0/24", "10.66.0.0/16", "10.70.0.0/16")),
                "routes zebra did not send again are swept after stale_ms: %r" % sorted(r))
        t.eq(paths(r.get("10.50.0.0/16", [])),
             [(1, "192.168.1.2"), (2, "192.168.2.2"), (3, "192.168.3.2")], "(re-sent)")
        f = sw.fpm()
        t.eq((f.get("connects"), f.get("stale_swept"), f.get("stale")), (2, 3, 0),
             "(the sweep) %r" % f)
        # A malformed frame: the connection is dropped, rocetor keeps going.
        t.eq(zb.send(b"\x01\x01\x00\x14" + b"\xff" * 16), "ok")
        time.sleep(0.5)
        f = sw.fpm()
        t.eq((f.get("bad_frames"), f.get("connected")), (1, 0), "(malformed frame) %r" % f)
        zb.close()
        t.check(zb.connect(), "zebra reconnects after the drop")
        t.eq(zb.send(*dump), "ok")
        full = sw.wait(lambda r: "10.66.0.0/16" in r and "10.60.0.0/24" in r)
        t.check(sw.proc.alive(), "rocetor alive")
        rc = sw.stop()
        t.eq(rc, 0, "(rocetor exit) %s" % sw.proc.text("err")[-1000:])
        zb.close()
        # rocetor restarts: zebra's dump gives the same table.
        sw = Switch(work, ns, "fpm2")
        if not t.check(sw.tel is not None, "rocetor restarted"):
            return t.done()
        t.check(zb.connect(), "zebra connects to the new rocetor")
        t.eq(zb.send(*dump), "ok")
        again = sw.wait(lambda r: len(r) == len(full))
        t.eq(again, full, "(the same table after rocetor restarted)")
        print("pkt-fpm: %d routes listed after the dump; before zebra left: %d" %
              (len(full), len(before)))
        rc = sw.stop()
        t.eq(rc, 0)
        sw = None
    finally:
        if zb is not None:
            zb.exit()
        if sw is not None:
            sw.stop()
        sh("ip", "netns", "del", ns)
        harness.shutil.rmtree(work, ignore_errors=True)
    return t.done()


if __name__ == "__main__":
    sys.exit(main())

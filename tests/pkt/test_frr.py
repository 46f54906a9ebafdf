#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The rocetor authors
"""A fabric of rocetor processes routed by FRR (issue 35; doc/routing.md):

    host a (pcap) -- t1 ==p1== s1 ==p1== t2 -- host b (pcap)
                        ==p2== s2 ==p2==

Two ToRs and two spines over memif, each with its own network namespace in
which Debian's FRR runs (zebra with dplane_fpm_nl, bgpd), BGP (eBGP,
numbered /30s, timers 1/3) over the exception path: every fabric port is a
tap in its switch's namespace (ports[].tap). zebra feeds rocetor over FPM.
t1 announces 10.1.0.0/24, t2 10.2.0.0/24; host a sends to 10.2.0.0/24.

Checked:
- BGP comes up over rocetor's ports; t1 learns 10.2.0.0/24 from both
  spines, as one group of two paths (FPM), and traffic flows over both;
- the s1-t2 link goes down (admin down at both ends): BGP withdraws, t1's
  group loses s1 within the hold time (plus FRR's and FPM's own delays,
  bounded here at 8 s), traffic continues over s2;
- the link comes back: t1 uses both spines again;
- t1's FRR restarts: once it is back, t1's routes are the same as before;
- t1's rocetor restarts (its taps go and come back, zebra reconnects):
  the same routes again;
- every switch accounts for every packet (rx = forwarded + consumed +
  dropped, nothing held or leaked), and what host b did not receive is no
  more than the drops the switches counted.

Needs root, network namespaces and FRR (apt-get install frr); skips
without them."""
import json
import os
import shutil
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
import harness  # noqa: E402
from scapy.all import IP, UDP, Ether, Raw, raw  # noqa: E402
from scapy.contrib.roce import BTH  # noqa: E402

FRR = "/usr/lib/frr"
TAG = "%04d" % (os.getpid() % 10000)
NODES = ("t1", "t2", "s1", "s2")
AS = {"t1": 65001, "t2": 65002, "s1": 65100, "s2": 65100}
# link (tor, spine) -> the /30: tor .1, spine .2
LINK = {("t1", "s1"): "172.16.11", ("t1", "s2"): "172.16.12",
        ("t2", "s1"): "172.16.21", ("t2", "s2"): "172.16.22"}
HOST_B = "02:00:00:00:bb:01"
FPM_PORT = 2620


def mac(node, port):
    return "02:00:00:%02x:%02x:%02x" % (0x10 + NODES.index(node), port, int(TAG) % 256)


def ifname(node, port):
    return "x%s%s%d" % (TAG, node, port)


def ns(node):
    return "rtrfrr%s%s" % (TAG, node)


def ports_of(node):
    """[(port, peer node, my address)] of the fabric ports."""
    if node.startswith("t"):
        return [(1, "s1", LINK[(node, "s1")] + ".1"), (2, "s2", LINK[(node, "s2")] + ".1")]
    return [(0, "t1", LINK[("t1", node)] + ".2"), (1, "t2", LINK[("t2", node)] + ".2")]


def rocetor_config(node):
    y = ["switch: {name: %s, id: %d, lb: ecmp, idle_sleep_us: 100}" % (node, 10 + NODES.index(node)),
         "ports:"]
    if node == "t1":
        y.append('  - {port: 0, role: host, mac: "%s", ip: "10.1.0.254/24", l2_filter: false}'
                 % mac(node, 0))
    if node == "t2":
        y.append('  - {port: 0, role: host, mac: "%s", ip: "10.2.0.254/24"}' % mac(node, 0))
    for p, _, a in ports_of(node):
        y.append('  - {port: %d, role: fabric, mac: "%s", ip: "%s/30", ifname: "%s", tap: true}'
                 % (p, mac(node, p), a, ifname(node, p)))
    if node == "t2":
        y += ["routes:", '  - {prefix: "10.2.0.0/24", port: 0, nexthop_mac: "%s"}' % HOST_B]
    if node == "t1":
        # host a's frames come fast (infinite replay): t1 stops 3 ms every
        # loop pass, a pacer of about 10 kpps that leaves the CPUs to FRR.
        y.append("faults: {stall_us: 3000, stall_every: 1}")
    y.append('fpm: {address: "127.0.0.1", port: %d, netns: "%s", stale_ms: 10000}'
             % (FPM_PORT, ns(node)))
    return "\n".join(y) + "\n"


def frr_configs(node):
    zebra = ("hostname %s\nlog file zebra.log\nfpm address 127.0.0.1 port %d\n"
             "no fpm use-next-hop-groups\n" % (node, FPM_PORT))
    b = ["hostname %s-bgpd" % node, "router bgp %d" % AS[node],
         " bgp router-id 10.255.0.%d" % (1 + NODES.index(node)),
         " no bgp ebgp-requires-policy", " no bgp network import-check",
         " timers bgp 1 3"]
    for _, peer, a in ports_of(node):
        them = a.rsplit(".", 1)[0] + (".2" if node.startswith("t") else ".1")
        b += [" neighbor %s remote-as %d" % (them, AS[peer]),
              " neighbor %s timers connect 1" % them]
    b += [" address-family ipv4 unicast", "  maximum-paths 4"]
    if node == "t1":
        b.append("  network 10.1.0.0/24")
    if node == "t2":
        b.append("  network 10.2.0.0/24")
    b.append(" exit-address-family")
    return zebra, "\n".join(b) + "\n"


class Node:
    def __init__(self, name, work):
        self.name = name
        self.dir = os.path.join(work, name)
        os.makedirs(self.dir, exist_ok=True)
        self.cfg = os.path.join(self.dir, "rocetor.yaml")
        with open(self.cfg, "w") as f:
            f.write(rocetor_config(name))
        self.prefix = harness.eal_prefix("frr" + name)
        self.stats = os.path.join(self.dir, "stats.json")
        self.proc = None
        self.frr = {}
        self.frr_out = ""
        self.vdevs = []
        self.tel = None

    def start(self, vdevs):
        cmd = [harness.ROCETOR, "-l", "0", "--no-pci", "--no-huge", "-m", "1024",
               "--file-prefix", self.prefix, "--log-level", "lib.eal:error"] + vdevs + \
              ["--", "--config", self.cfg, "--stats-json", self.stats, "--duration", "240",
               "--telemetry-rw"]
        self.proc = subprocess.Popen(cmd, stdout=open(os.path.join(self.dir, "out"), "w"),
                                     stderr=subprocess.STDOUT)

    def telemetry(self, cmd):
        for _ in range(2):
            try:
                if self.tel is None:
                    self.tel = harness.Telemetry(self.prefix, timeout=10)
                return self.tel.cmd(cmd)
            except (OSError, ValueError):
                if self.tel is not None:
                    self.tel.close()
                self.tel = None
        return None

    def routes(self):
        out, start = {}, 0
        while start >= 0:
            page = self.telemetry("/rocetor/route/list,%d" % start) or {}
            for k, v in page.items():
                if k.startswith("route_"):
                    out[v[0]] = v[1:]
            start = page.get("next", -1)
        return out

    def frr_start(self):
        zebra, bgpd = frr_configs(self.name)
        for d, text in (("zebra", zebra), ("bgpd", bgpd)):
            with open(os.path.join(self.dir, d + ".conf"), "w") as f:
                f.write(text)
        # As Debian's package runs them: user frr (in group frrvty, which
        # FRR's privilege code requires), keeping the capabilities it needs.
        shutil.chown(self.dir, "frr", "frr")
        for f in os.listdir(self.dir):
            if f.endswith(".conf") or f.endswith(".log"):
                shutil.chown(os.path.join(self.dir, f), "frr", "frr")
        common = ["-u", "frr", "-g", "frr", "-z", os.path.join(self.dir, "zserv.api"),
                  "--vty_socket", self.dir]
        for d in ("zebra", "bgpd"):
            extra = ["-M", "dplane_fpm_nl"] if d == "zebra" else []
            pidf = os.path.join(self.dir, d + ".pid")
            if os.path.exists(pidf):
                os.unlink(pidf)
            q = subprocess.run(["ip", "netns", "exec", ns(self.name), os.path.join(FRR, d), "-d",
                                "-f", os.path.join(self.dir, d + ".conf"), "-i", pidf,
                                "--log", "file:" + os.path.join(self.dir, d + ".log")] +
                               common + extra, cwd=self.dir, capture_output=True, text=True,
                               timeout=30)
            self.frr_out += q.stdout + q.stderr
            for _ in range(50):
                try:
                    with open(pidf) as f:
                        self.frr[d] = int(f.read().strip())
                    break
                except (OSError, ValueError):
                    time.sleep(0.1)
            if d == "zebra":
                time.sleep(0.5)

    def vtysh(self, cmd):
        q = subprocess.run(["ip", "netns", "exec", ns(self.name), "vtysh", "--vty_socket",
                            self.dir, "-c", cmd], capture_output=True, text=True, timeout=20)
        return q.stdout + q.stderr

    def frr_stop(self, order=("bgpd", "zebra")):
        for d in order:
            pid = self.frr.pop(d, None)
            if pid is None:
                continue
            try:
                os.kill(pid, signal.SIGTERM)
                for _ in range(50):
                    os.kill(pid, 0)
                    time.sleep(0.1)
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass

    def stop(self):
        if self.tel is not None:
            self.tel.close()
            self.tel = None
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        return self.proc.returncode if self.proc else None

    def output(self):
        return harness.shutil.os.path.exists(os.path.join(self.dir, "out")) and \
            open(os.path.join(self.dir, "out"), errors="replace").read() or ""


def group_paths(entry):
    return sorted(p.split()[4] for p in (entry or []) if p.startswith("path "))


def wait_for(cond, timeout):
    end = time.time() + timeout
    while time.time() < end:
        v = cond()
        if v:
            return v
        time.sleep(0.1)
    return cond()


def main():
    t = harness.Checker("pkt-frr")
    if os.geteuid() != 0 or shutil.which("ip") is None:
        print("pkt-frr: SKIP (needs root and ip)")
        return 77
    if not (os.path.exists(os.path.join(FRR, "zebra")) and os.path.exists(os.path.join(FRR, "bgpd"))):
        print("pkt-frr: SKIP (FRR is not installed: apt-get install frr)")
        return 77
    try:
        import pwd
        pwd.getpwnam("frr")
    except (KeyError, OSError):
        print("pkt-frr: SKIP (no user frr: FRR's package makes it)")
        return 77
    work = harness.tempfile.mkdtemp(prefix="rocetor-frr-")
    os.chmod(work, 0o755)  # FRR runs as user frr in its directories here
    nodes = {n: Node(n, work) for n in NODES}
    made = []
    try:
        for n in NODES:
            if subprocess.run(["ip", "netns", "add", ns(n)], capture_output=True).returncode:
                print("pkt-frr: SKIP (cannot make network namespaces)")
                return 77
            made.append(ns(n))
            subprocess.run(["ip", "-n", ns(n), "link", "set", "lo", "up"], capture_output=True)
        sock = {s: os.path.join(work, s + ".sock") for s in ("s1", "s2")}
        frames = [raw(Ether(src="02:00:00:00:aa:01", dst=mac("t1", 0)) /
                      IP(src="10.1.0.1", dst="10.2.0.%d" % (1 + k % 8), tos=0x02) /
                      UDP(sport=0xC000 + k, dport=4791) / BTH(opcode=4, dqpn=0x11, psn=k) /
                      Raw(b"\x5a" * 32)) for k in range(64)]
        rx = os.path.join(work, "hosta.pcap")
        harness.write_pcap(rx, frames)
        out_b = os.path.join(work, "hostb.pcap")
        empty = os.path.join(work, "empty.pcap")
        harness.write_pcap(empty, [])
        # memif servers (the spines) first.
        for s in ("s1", "s2"):
            nodes[s].start(sum((["--vdev", "net_memif%d,role=server,id=%d,socket=%s,"
                                 "socket-abstract=no" % (i, i, sock[s])] for i in range(2)), []))
        time.sleep(1)
        for tor, idx in (("t1", 0), ("t2", 1)):
            host = ("net_pcap0,rx_pcap=%s,infinite_rx=1,tx_pcap=/dev/null" % rx if tor == "t1"
                    else "net_pcap0,rx_pcap=%s,tx_pcap=%s" % (empty, out_b))
            v = ["--vdev", host]
            for p, s in ((1, "s1"), (2, "s2")):
                v += ["--vdev", "net_memif%d,role=client,id=%d,socket=%s,socket-abstract=no"
                      % (p, idx, sock[s])]
            nodes[tor].start(v)
            nodes[tor].vdevs = v
        ok = wait_for(lambda: all(nodes[n].telemetry("/rocetor/fpm") for n in NODES), 30)
        if not t.check(ok, "rocetors up: %s" % {n: nodes[n].output()[-600:] for n in NODES}):
            return t.done()
        for n in NODES:
            nodes[n].frr_start()
        if not t.check(all(len(nodes[n].frr) == 2 for n in NODES),
                       "FRR daemons started: %r %s" % ({n: nodes[n].frr for n in NODES},
                                                      nodes["t1"].frr_out)):
            return t.done()
        # BGP up, t1 has 10.2.0.0/24 over both spines (FPM).
        two = [LINK[("t1", "s1")] + ".2", LINK[("t1", "s2")] + ".2"]
        t0 = time.time()
        r = wait_for(lambda: group_paths(nodes["t1"].routes().get("10.2.0.0/24")) == two, 60)
        if not t.check(r, "t1 learns 10.2.0.0/24 over both spines: %r (fpm: %s; bgpd: %s)" % (
                nodes["t1"].routes().get("10.2.0.0/24"), nodes["t1"].telemetry("/rocetor/fpm"),
                nodes["t1"].vtysh("show ip route") + nodes["t1"].vtysh("show fpm counters") +
                subprocess.run(["ip", "-n", ns("t1"), "route"], capture_output=True,
                               text=True).stdout + subprocess.run(
                    ["ip", "-n", ns("t1"), "link"], capture_output=True, text=True).stdout)):
            return t.done()
        print("pkt-frr: 10.2.0.0/24 on t1 over 2 spines after %.1f s" % (time.time() - t0))
        rt1 = nodes["t1"].routes()
        tap = nodes["t1"].telemetry("/rocetor/tap") or {}
        t.check(all((tap.get(str(p)) or {}).get("to_kernel", 0) > 0 and
                    (tap.get(str(p)) or {}).get("from_kernel", 0) > 0 for p in (1, 2)),
                "t1's taps carried BGP both ways: %r" % tap)
        t.eq((rt1.get("10.2.0.0/24") or ["?"])[0], "fpm")
        for s in ("s1", "s2"):
            rs = nodes[s].routes()
            t.check("10.1.0.0/24" in rs and "10.2.0.0/24" in rs,
                    "%s learns both host prefixes: %r" % (s, sorted(rs)))
        # Traffic over both spines.
        def spine_rx():
            out = {}
            for s in ("s1", "s2"):
                ports = nodes[s].telemetry("/rocetor/ports") or {}
                out[s] = (ports.get("0") or {}).get("rx_packets", 0)
            return out
        a = spine_rx()
        time.sleep(2)
        b = spine_rx()
        t.check(all(b[s] - a[s] > 1000 for s in b), "data over both spines: %r -> %r" % (a, b))
        # The s1-t2 link goes down at both ends.
        g = (rt1.get("10.2.0.0/24") or ["", ""])[1]
        down_t = time.time()
        nodes["s1"].telemetry("/rocetor/port/admin,1,down")
        nodes["t2"].telemetry("/rocetor/port/admin,1,down")
        r = wait_for(lambda: group_paths(nodes["t1"].routes().get("10.2.0.0/24")) == two[1:], 20)
        conv = time.time() - down_t
        t.check(r, "t1 stops using s1 for 10.2.0.0/24: %r" % nodes["t1"].routes().get("10.2.0.0/24"))
        # Timing is not judged under a sanitizer or a CPU hog (doc/testing.md).
        t.check(conv < 8 or harness.SANITIZED or harness.HOGGED,
                "within the BGP hold time (3 s) and FRR's delays: %.1f s" % conv)
        t.eq((nodes["t1"].routes().get("10.2.0.0/24") or ["", ""])[1].split(" live")[0],
             g.split(" live")[0], "(the same group, changed in place)")
        time.sleep(1)
        a = spine_rx()
        time.sleep(2)
        b = spine_rx()
        t.check(b["s2"] - a["s2"] > 1000 and b["s1"] - a["s1"] < 50,
                "after the withdrawal data goes over s2 only: %r -> %r" % (a, b))
        # Back up: both spines again.
        up_t = time.time()
        nodes["s1"].telemetry("/rocetor/port/admin,1,up")
        nodes["t2"].telemetry("/rocetor/port/admin,1,up")
        r = wait_for(lambda: group_paths(nodes["t1"].routes().get("10.2.0.0/24")) == two, 30)
        t.check(r, "the route returns over s1: %r" % nodes["t1"].routes().get("10.2.0.0/24"))
        print("pkt-frr: withdrawn in %.1f s, back in %.1f s" % (conv, time.time() - up_t))
        # t1's FRR restarts: the same routes once it is back.
        before = {k: v for k, v in nodes["t1"].routes().items()}
        # zebra first, as when it dies: it says nothing (bgpd stopping first
        # would have zebra withdraw the routes over FPM).
        nodes["t1"].frr_stop(("zebra", "bgpd"))
        time.sleep(1)
        f = nodes["t1"].telemetry("/rocetor/fpm") or {}
        t.eq((f.get("connected"), (nodes["t1"].routes().get("10.2.0.0/24") or ["?"])[0]),
             (0, "fpm stale"), "(zebra gone: its routes stay, stale) %r" % f)
        nodes["t1"].frr_start()
        r = wait_for(lambda: (nodes["t1"].routes().get("10.2.0.0/24") or ["?"])[0] == "fpm" and
                     group_paths(nodes["t1"].routes().get("10.2.0.0/24")) == two, 40)
        after = nodes["t1"].routes()
        norm = lambda rs: {k: [v[0]] + [p.rsplit(" ", 2)[0] for p in v[2:]]  # noqa: E731
                           for k, v in rs.items()}
        t.eq(norm(after), norm(before), "(t1's routes after FRR restarted)")
        # t1's rocetor restarts: its taps go (zebra loses the interfaces,
        # BGP its sessions) and come back; zebra reconnects to the new FPM
        # server and sends everything: the same routes.
        rc = nodes["t1"].stop()
        t.eq(rc, 0, "(t1's first rocetor exit) %s" % nodes["t1"].output()[-800:])
        shutil.copy(nodes["t1"].stats, nodes["t1"].stats + ".first")
        restart_t = time.time()
        nodes["t1"].start(nodes["t1"].vdevs)
        r = wait_for(lambda: norm(nodes["t1"].routes()) == norm(before), 60)
        t.eq(norm(nodes["t1"].routes()), norm(before), "(t1's routes after rocetor restarted)")
        print("pkt-frr: t1's rocetor restarted: its routes back in %.1f s" % (time.time() - restart_t))
        time.sleep(1)
    finally:
        stats = {}
        # The source first, then the rest once it drained.
        for n in ("t1", "s1", "s2", "t2"):
            nodes[n].frr_stop()
        for n in ("t1", "s1", "s2", "t2"):
            rc = nodes[n].stop()
            t.eq(rc, 0, "(%s exit) %s" % (n, nodes[n].output()[-800:]))
            time.sleep(0.5)
            try:
                with open(nodes[n].stats) as f:
                    stats[n] = json.load(f)
            except (OSError, ValueError):
                stats[n] = None
        for m in made:
            subprocess.run(["ip", "netns", "del", m], capture_output=True)
        try:
            with open(nodes["t1"].stats + ".first") as f:
                stats["t1 (first)"] = json.load(f)
        except (OSError, ValueError):
            pass
    runs = [n for n in stats]
    for n in runs:
        st = stats.get(n)
        if t.check(st is not None, "%s stats" % n):
            ok, why = harness.accounted(st)
            t.check(ok, "%s accounting: %s" % (n, why))
    if all(stats.get(n) for n in runs):
        sent = sum(next(p for p in stats[n]["ports"] if p["port"] == 0)["rx_packets"]
                   for n in runs if n.startswith("t1"))
        got = len(harness.read_pcap_ts(out_b))
        drops = sum(stats[n]["dropped"] for n in runs)
        print("pkt-frr: host a sent %d, host b got %d, the switches dropped %d (%s)" % (
            sent, got, drops, {n: {k: v for k, v in stats[n]["drops"].items() if v}
                               for n in runs}))
        t.check(got > 0 and sent - got <= drops,
                "what host b missed (%d) is within the switches' drops (%d)" % (sent - got, drops))
    shutil.rmtree(work, ignore_errors=True)
    return t.done()


if __name__ == "__main__":
    sys.exit(main())

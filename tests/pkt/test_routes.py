#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The rocetor authors
"""Run-time routes while a worker forwards (issue 35; doc/routing.md).

rocetor runs with a control lcore and one worker (-l 0-1); the host port
replays a pcap forever, the worker stalls 300 us every loop pass (faults)
so that the uplinks' pcaps stay small and grace periods are long. While it
forwards, the test adds, replaces and removes routes through telemetry
(--telemetry-rw), a few hundred changes:

  10.50.0.0/16 and fd00:50::/64  churned over next hops on ports 1 and 2
  10.60.0.0/16                   churned over next hops on ports 3 and 4
  10.70.0.0/16                   four next hops; the one on port 3 leaves
                                 and comes back (resilience)
  10.2.0.0/16                    the config's group, never touched

Checked on every frame the uplinks sent: it left on a port, with the
destination MAC, of a next hop that prefix had (a group slot reused too
early, or a next hop of another prefix, shows here); the config's prefix
lost nothing (exact count from the replay); every frame of the churned
prefixes was forwarded or dropped as no_route; nothing else dropped,
leaked or held; flows of 10.70 not on port 3 never moved, those on port 3
moved to one other port and back. Run under ASan by the sanitize stage.
"""
import json
import os
import struct
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
import harness  # noqa: E402
from scapy.all import IP, UDP, Ether, IPv6, Raw, raw  # noqa: E402
from scapy.contrib.roce import BTH  # noqa: E402

HOST_MAC = "02:00:00:00:00:10"
FAB = ["02:00:00:00:01:%02x" % (i + 1) for i in range(4)]
CFG_NH = ["02:00:00:00:bb:%02x" % (i + 1) for i in range(4)]
CONFIG = """
switch: {name: rt, id: 3, lb: ecmp}
ports:
  - {port: 0, role: host, mac: "%s", ip: "10.1.0.254/16"}
""" % HOST_MAC + "".join(
    '  - {port: %d, role: fabric, mac: "%s", ip: "192.168.%d.1/30"}\n' % (i + 1, FAB[i], i + 1)
    for i in range(4)) + """
routes:
  - prefix: "10.2.0.0/16"
    paths:
""" + "".join('      - {port: %d, nexthop_mac: "%s"}\n' % (i + 1, CFG_NH[i]) for i in range(4)) + """
faults: {stall_us: 300, stall_every: 1}
"""


def nh_mac(tag, port):
    """The static MAC of a run-time next hop: prefix tag, port."""
    return "02:00:00:%02x:00:%02x" % (tag, port)


# prefix -> (tag, text prefix, ports its next hops may use)
CHURN = {
    "a": (0x50, "10.50.0.0/16", (1, 2)),
    "a6": (0x56, "fd00:50::/64", (1, 2)),
    "b": (0x60, "10.60.0.0/16", (3, 4)),
}
RES = (0x70, "10.70.0.0/16", (1, 2, 3, 4))


def spec(tag, pfx, ports):
    return pfx + "".join(" mac %s port %d" % (nh_mac(tag, p), p) for p in ports)


def frames():
    """64 flows to each prefix (UDP source port = flow)."""
    out = []
    for k in range(64):
        sport = 0xC000 + k
        for dst in ("10.2.0.5", "10.50.0.5", "10.60.0.5", "10.70.0.5", "fd00:50::5"):
            l3 = IPv6(src="fd00:1::1", dst=dst) if ":" in dst else IP(src="10.1.0.1", dst=dst)
            out.append(raw(Ether(src="02:00:00:00:00:01", dst=HOST_MAC) / l3 /
                           UDP(sport=sport, dport=4791) / BTH(opcode=4, dqpn=0x11, psn=k) /
                           Raw(b"\x5a" * 32)))
    return out


def dest(f):
    """(destination as text, UDP source port) of an Ethernet frame."""
    et = struct.unpack_from("!H", f, 12)[0]
    if et == 0x0800:
        ihl = (f[14] & 0xF) * 4
        d = ".".join(str(b) for b in f[30:34])
        return d, struct.unpack_from("!H", f, 14 + ihl)[0]
    if et == 0x86DD:
        return "fd00:50::5" if f[38:40] == b"\xfd\x00" else "?", struct.unpack_from("!H", f, 54)[0]
    return "?", 0


CLI = os.path.join(harness.SRC_ROOT, "tools", "rocetor-route")


def cli(prefix, *args):
    p = subprocess.run([sys.executable, CLI, "-f", prefix] + list(args), capture_output=True,
                       text=True, timeout=30)
    return p.returncode, p.stdout, p.stderr


def cli_checks(t, prefix):
    """rocetor-route against the running switch: add, show, list, stats, a
    refusal (exit 1, the reason on stderr), del, bad usage (exit 2)."""
    rc, out, err = cli(prefix, "add", "10.80.0.0/16", "mac", nh_mac(0x80, 1), "port", "1",
                       "mac", nh_mac(0x80, 2), "port", "2")
    t.eq((rc, out.strip()), (0, "10.80.0.0/16 set"), "(rocetor-route add) %s" % err)
    rc, out, _ = cli(prefix, "show", "10.80.0.9/16")
    t.check(rc == 0 and out.startswith("10.80.0.0/16") and " api " in out.splitlines()[0]
            and out.count("path ") == 2, "rocetor-route show: %r" % out)
    rc, out, _ = cli(prefix, "list")
    t.check(rc == 0 and "10.2.0.0/16" in out and "10.80.0.0/16" in out,
            "rocetor-route list: %r" % out)
    rc, out, _ = cli(prefix, "--json", "stats")
    t.check(rc == 0 and json.loads(out).get("routes", 0) >= 3, "rocetor-route stats: %r" % out)
    rc, out, err = cli(prefix, "del", "10.2.0.0/16")
    t.check(rc == 1 and "config" in err, "rocetor-route del of a config route: %r" % err)
    rc, _, err = cli(prefix, "del", "10.80.0.0/16")
    t.eq(rc, 0, "(rocetor-route del) %s" % err)
    rc, _, _ = cli(prefix, "show", "10.80.0.0/16")
    t.eq(rc, 1, "(rocetor-route show of a removed route)")
    rc, _, err = cli(prefix, "add")
    t.eq(rc, 2, "(rocetor-route add without a route) %s" % err)
    return True


def main():
    t = harness.Checker("pkt-routes")
    work = harness.tempfile.mkdtemp(prefix="rocetor-routes-")
    cfg = os.path.join(work, "c.yaml")
    with open(cfg, "w") as fh:
        fh.write(CONFIG)
    pcap_in = frames()
    rx = os.path.join(work, "in.pcap")
    empty = os.path.join(work, "empty.pcap")
    harness.write_pcap(rx, pcap_in)
    harness.write_pcap(empty, [])
    prefix = harness.eal_prefix("routes")
    stats = os.path.join(work, "s.json")
    cmd = [harness.ROCETOR, "-l", "0-1", "--no-pci", "--no-huge", "-m", "1024",
           "--file-prefix", prefix, "--log-level", "lib.eal:error",
           "--vdev", "net_pcap0,rx_pcap=%s,infinite_rx=1,tx_pcap=/dev/null" % rx]
    for i in range(4):
        cmd += ["--vdev", "net_pcap%d,rx_pcap=%s,tx_pcap=%s" % (
            i + 1, empty, os.path.join(work, "out%d.pcap" % (i + 1)))]
    cmd += ["--", "--config", cfg, "--stats-json", stats, "--telemetry-rw", "--duration", "120"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    sent = {"set": 0, "del": 0, "pending": 0}
    refused = []
    route_stats = {}
    tel = None
    try:
        end = time.time() + 30
        while tel is None and time.time() < end and proc.poll() is None:
            try:
                tel = harness.Telemetry(prefix, timeout=5)
                if tel.cmd("/rocetor/route/stats") is None:
                    raise OSError("not ready")
            except (OSError, ValueError):
                tel = None
                time.sleep(0.2)
        if not t.check(tel is not None, "telemetry did not answer"):
            return t.done()

        def change(kind, arg):
            r = tel.cmd("/rocetor/route/%s,%s" % ("add" if kind == "add" else "remove", arg)) or {}
            if r.get("ok") != 1:
                refused.append((kind, arg, r))
            else:
                sent["set" if kind == "add" else "del"] += 1
                sent["pending"] += r.get("pending", 0)
            return r

        # Read-only without --telemetry-rw is pkt-faults' concern; here a
        # refusal must name its reason.
        bad = tel.cmd("/rocetor/route/add,10.2.0.0/16 mac %s port 1" % nh_mac(1, 1)) or {}
        t.check(bad.get("ok") == 0 and "config" in bad.get("error", ""),
                "a config prefix is refused: %r" % bad)
        bad = tel.cmd("/rocetor/route/add,10.99.0.0/16 via 10.0.0.1") or {}
        t.check(bad.get("ok") == 0 and "port" in bad.get("error", ""),
                "a next hop without port is refused: %r" % bad)
        tag, pfx, ports = RES
        change("add", spec(tag, pfx, ports))
        time.sleep(0.5)
        rng = 12345
        present = set()
        for i in range(240):
            rng = (rng * 1103515245 + 12345) & 0x7FFFFFFF
            name = ("a", "a6", "b")[i % 3]
            tag, pfx, ports = CHURN[name]
            if (rng >> 8) % 4 == 0 and name in present:
                change("del", pfx)
                present.discard(name)
            else:
                present.add(name)
                use = ports if (rng >> 12) % 2 else ports[(rng >> 13) % 2:][:1]
                change("add", spec(tag, pfx, use))
            if i == 80:  # 10.70: the next hop on port 3 leaves ...
                tag, pfx, ports = RES
                change("add", spec(tag, pfx, (1, 2, 4)))
            if i == 180:  # ... and comes back
                tag, pfx, ports = RES
                change("add", spec(tag, pfx, (1, 2, 3, 4)))
            time.sleep(0.01)
        time.sleep(0.3)
        route_stats = tel.cmd("/rocetor/route/stats") or {}
        listing = tel.cmd("/rocetor/route/list") or {}
        cli = cli_checks(t, prefix)
    finally:
        if tel is not None:
            tel.close()
        _, se = harness.interrupt(proc)
    t.eq(proc.returncode, 0, "(SIGINT) %s" % se[-1500:])
    t.eq(refused, [], "(every change taken)")
    t.check(sent["set"] > 150 and sent["del"] > 30, "changes sent: %r" % sent)
    rs = route_stats
    t.eq((rs.get("added", 0) + rs.get("replaced", 0), rs.get("removed")),
         (sent["set"], sent["del"]), "(route/stats counts what was sent) %r" % rs)
    t.check(rs.get("refused") == 1 and cli, "the config prefix refused and counted (a bad spec is refused before): %r" % rs)
    t.check(rs.get("lpm6_swaps", 0) > 0 and rs.get("deferred_frees", 0) > 0,
            "IPv6 through the standby table, groups freed after grace: %r" % rs)
    t.check(rs.get("groups_in_place", 0) >= 2, "10.70's next hop left and came back in place")
    t.eq([listing.get(k, [""])[0] for k in ("route_0", "route_1")],
         ["10.2.0.0/16", "10.1.0.254/32"], "(the list: config route, local address)")
    t.check(any(v[:3] == ["10.70.0.0/16", "api", "group 1 live 0xf"]
                for k, v in listing.items() if k.startswith("route_")),
            "10.70 listed as an api group with four live paths: %r" % listing)
    try:
        with open(stats) as fh:
            st = json.load(fh)
    except (OSError, ValueError) as e:
        t.check(False, "stats: %s" % e)
        return t.done()
    ok, why = harness.accounted(st)
    t.check(ok, "accounting: " + why)
    others = {k: v for k, v in st["drops"].items() if k != "no_route" and v}
    t.eq(others, {}, "(no drop but no_route)")

    # Every frame on the wire: a port and a MAC its prefix's next hops had.
    allowed = {"10.2.0.5": {(p + 1, CFG_NH[p]) for p in range(4)},
               "10.70.0.5": {(p, nh_mac(RES[0], p)) for p in RES[2]}}
    for name, (tag, pfx, ports) in CHURN.items():
        d = "fd00:50::5" if ":" in pfx else pfx.split("/")[0][:-1] + "5"
        allowed[d] = {(p, nh_mac(tag, p)) for p in ports}
    out_count = {d: 0 for d in allowed}
    wrong = []
    res_ports = {}
    for port in range(1, 5):
        for _, f in harness.read_pcap_ts(os.path.join(work, "out%d.pcap" % port)):
            d, sport = dest(f)
            mac = ":".join("%02x" % b for b in f[0:6])
            if (port, mac) not in allowed.get(d, ()):
                wrong.append((port, mac, d))
                continue
            out_count[d] += 1
            if d == "10.70.0.5":
                res_ports.setdefault(sport, []).append(port)
    t.eq(wrong[:5], [], "(%d frames on a port or to a MAC their prefix never had)" % len(wrong))
    # The config prefix: everything the replay gave (exactly: the pcap in a
    # loop from its start).
    rx0 = next(p for p in st["ports"] if p["port"] == 0)["rx_packets"]
    loops, rest = divmod(rx0, len(pcap_in))
    want = {}
    for i, f in enumerate(pcap_in):
        d, _ = dest(f)
        want[d] = want.get(d, 0) + loops + (1 if i < rest else 0)
    t.eq(out_count["10.2.0.5"], want["10.2.0.5"], "(the config's prefix lost nothing)")
    churned = sum(want[d] - out_count[d] for d in want if d != "10.2.0.5")
    t.eq(st["drops"]["no_route"], churned,
         "(every frame of a churned prefix forwarded or dropped as no_route)")
    # 10.70: resilience, flow by flow (each flow's ports in TX order per
    # port: only which ports matter).
    moved_ok = stayed = bad = 0
    for sport, seq in res_ports.items():
        ports = set(seq)
        if 3 not in ports:
            stayed += len(ports) == 1
            bad += len(ports) != 1
        elif len(ports) == 2:
            moved_ok += 1
        elif len(ports) != 1:
            bad += 1
    t.eq(bad, 0, "(flows of 10.70 that moved though their next hop stayed)")
    t.check(moved_ok > 0 and stayed > 0,
            "flows on port 3 moved to one other port (%d), the others stayed (%d)"
            % (moved_ok, stayed))
    print("pkt-routes: %d changes (%d removals, %d IPv6 pending), %d frames out, "
          "no_route %d, 10.70: %d flows stayed, %d moved off port 3 and back; %r"
          % (sent["set"] + sent["del"], sent["del"], sent["pending"], sum(out_count.values()),
             st["drops"]["no_route"], stayed, moved_ok, rs))
    harness.shutil.rmtree(work, ignore_errors=True)
    return t.done()


if __name__ == "__main__":
    sys.exit(main())

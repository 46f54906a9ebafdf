#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The rocetor authors
"""The NIC capability table at start-up, on the virtual ports this machine
has (issue 30, doc/nic-facts.md, doc/counters.md "NIC counters"):

- each port's start-up line ends with speed, RSS types in effect, flow
  control in effect, PFC and LSC support and the capability entry; two
  workers on net_null put RSS on with UDP ports hashed;
- a driver without an entry (net_ring) is said to have none;
- qos.pfc.mode nic on a driver the table says has no PFC is warned about
  before the PMD refuses it (exit status 1);
- qos.pfc.mode checked against the table at start-up (issue 31,
  doc/egress.md "Lossless on each NIC family"): software runs on net_null
  (no MAC: control frames pass), external says the recipe line and that
  there is no pause counter to watch, pause is refused on net_null (no
  flow_ctrl_set) naming the port, driver, mode and what to use; without an
  entry (net_ring) software warns and pause tries the call;
- the driver's pause / discard xstats found by name are said per port,
  and where the driver has none (net_null, net_pcap) the stats document
  and telemetry /rocetor/nic leave them out while rx_nombuf, imissed and
  ierrors are there.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from rtrpy import dpdk  # noqa: E402

CONFIG = """switch: {name: nic, id: 5, lb: ecmp}
ports:
  - {port: 0, role: host, mac: "02:00:00:00:05:00"}
  - {port: 1, role: fabric, mac: "02:00:00:00:05:01"}
routes:
  - {prefix: "10.2.0.0/16", port: 1, nexthop_mac: "02:00:00:00:bb:01"}
%s"""

NIC_KEYS = ("nic_rx_pause", "nic_tx_pause", "nic_rx_discards")
LINE = (r"^rocetor: port (\d) (host|fabric) +\S+ (\S+) rxq (\d+) txq (\d+) (up|down) "
        r"socket (-?\d+) mtu (\d+) \((device|config)\) desc (\d+)/(\d+) speed (\S+) "
        r"rss (\S+) fc (\S+) pfc (\S+) lsc (\S+) caps (\S+)$")


def port_lines(out):
    return {int(m.group(1)): m for m in re.finditer(LINE, out, re.M)}


def rocetor(work, vdevs, lcores, extra_cfg="", duration=2, tel=(), config=None):
    """Run rocetor on vdevs; returns (exit status, stdout, stderr, stats
    document or None, {telemetry command: reply})."""
    cfg = os.path.join(work, "nic.yaml")
    with open(cfg, "w") as f:
        f.write((config or CONFIG) % extra_cfg)
    prefix = harness.eal_prefix("nic")
    sj = os.path.join(work, "stats.json")
    if os.path.exists(sj):
        os.unlink(sj)
    cmd = [harness.ROCETOR, "--lcores" if "@" in lcores else "-l", lcores, "--no-pci",
           "--no-huge", "-m", "1024", "--file-prefix", prefix, "--log-level", "lib.eal:error"]
    for v in vdevs:
        cmd += ["--vdev", v]
    cmd += ["--", "--config", cfg, "--duration", str(duration), "--stats-json", sj]
    proc = dpdk.Proc(cmd, who="pkt-nic")
    replies = {}
    if tel:
        t = None
        try:
            t = harness.Telemetry(prefix)
            deadline = time.time() + 20
            while time.time() < deadline and any(replies.get(c) is None for c in tel):
                for c in tel:
                    replies[c] = t.cmd(c)
                time.sleep(0.05)
        finally:
            if t is not None:
                t.close()
    rc = proc.wait(90)
    stats = None
    if os.path.exists(sj):
        with open(sj) as f:
            stats = json.load(f)
    return rc, proc.text(), proc.text("err"), stats, replies


def af_packet(t, work):
    """af_packet on a veth pair (needs root and ip(8); else said and
    skipped): its standing note, the 1500 limit, and ports[].mtu left off
    the kernel interface."""
    if os.geteuid() != 0 or shutil.which("ip") is None:
        print("pkt-nic: af_packet part skipped: needs root and ip(8) for a veth pair")
        return
    a, b = "rtrn%da" % os.getpid(), "rtrn%db" % os.getpid()
    a, b = a[-15:], b[-15:]
    if subprocess.run(["ip", "link", "add", a, "type", "veth", "peer", "name", b],
                      capture_output=True).returncode != 0:
        print("pkt-nic: af_packet part skipped: the kernel makes no veth pair")
        return
    try:
        for i in (a, b):
            subprocess.run(["ip", "link", "set", i, "up"], check=True)
        cfg = CONFIG.replace('role: host, mac: "02:00:00:00:05:00"',
                             'role: host, mac: "02:00:00:00:05:00", mtu: 1400')
        rc, out, err, stats, _ = rocetor(
            work, ["net_af_packet0,iface=" + a, "net_af_packet1,iface=" + b], "0",
            duration=1, config=cfg)
        t.eq(rc, 0, "af_packet: exit status: " + err[-400:])
        for p in (0, 1):
            t.check(("rocetor: port %d (net_af_packet): note: ethdev takes no MTU above 1500 "
                     "here, and each frame is copied into one mbuf unchecked" % p) in out,
                    "af_packet port %d: its note: %s" % (p, out[-1500:]))
            t.check(("rocetor: port %d (net_af_packet): warning: the device's largest MTU is "
                     "1500" % p) in out, "af_packet port %d: the largest MTU" % p)
        # Configuring does not call af_packet's mtu_set (only
        # rte_eth_dev_set_mtu does): the kernel interface keeps its MTU,
        # and rocetor says nothing of it (mlx5 would be noted).
        t.check("note: ports[].mtu" not in out, "af_packet: no kernel MTU note")
        mtu = subprocess.run(["ip", "-o", "link", "show", a], capture_output=True,
                             text=True).stdout
        t.check(" mtu 1500 " in mtu, "af_packet: the kernel interface keeps 1500: " + mtu)
    finally:
        subprocess.run(["ip", "link", "del", a], capture_output=True)


def pfc_modes(t, work):
    """qos.pfc.mode against the capability table, on net_null and net_ring."""
    nulls = ["net_null0,size=64", "net_null1,size=64"]

    def qos(mode):
        return "qos: {classes: 8, pfc: {mode: %s, classes: [3]}}\n" % mode

    rc, out, err, _, _ = rocetor(work, nulls, "0", extra_cfg=qos("software"), duration=1)
    t.eq(rc, 0, "pfc software on net_null: exit status: " + err[-400:])
    t.check("qos.pfc.mode software" not in out + err,
            "pfc software on net_null: nothing to say: " + (out + err)[-1200:])

    rc, out, err, _, _ = rocetor(work, nulls, "0", extra_cfg=qos("external"), duration=1)
    t.eq(rc, 0, "pfc external on net_null: exit status: " + err[-400:])
    for p in (0, 1):
        t.check(("rocetor: port %d (net_null): qos.pfc.mode external: rocetor sets no flow "
                 "control; set PFC outside DPDK: no recipe known for this driver" % p) in out,
                "pfc external port %d: the recipe line: %s" % (p, out[-1500:]))
        t.check(("rocetor: port %d (net_null): qos.pfc.mode external: rocetor sets no flow "
                 "control; set PFC outside DPDK: no recipe known for this driver (no "
                 "capability entry or no NIC); no pause counter to watch\n" % p) in out,
                "pfc external port %d: nothing watched" % p)
        t.check(("rocetor: port %d (net_null): warning: qos.pfc.mode external: its driver "
                 "has no pause xstats to watch" % p) in out,
                "pfc external port %d: nothing to watch" % p)

    rc, out, err, _, _ = rocetor(work, nulls, "0", extra_cfg=qos("pause"), duration=1)
    t.eq(rc, 1, "pfc pause on net_null: exit status 1: " + err[-400:])
    t.check("port 0 (net_null): qos.pfc.mode pause refused: its driver has no 802.3x pause "
            "(no flow_ctrl_set); use qos.pfc.mode software or external instead" in err,
            "pfc pause on net_null: the refusal: " + err[-800:])
    t.check("NIC 802.3x pause on" not in out, "pfc pause on net_null: not turned on")

    # No entry (net_ring): software warns and runs; external says there
    # is no entry; pause tries the call, which the PMD refuses.
    rings = ["net_ring0", "net_ring1"]
    rc, out, err, _, _ = rocetor(work, rings, "0", extra_cfg=qos("software"), duration=1)
    t.eq(rc, 0, "pfc software on net_ring: exit status: " + err[-400:])
    t.check("rocetor: port 0 (net_ring): warning: qos.pfc.mode software: no capability entry: "
            "MAC control frames may be consumed by the NIC" in out,
            "pfc software on net_ring: the warning: " + out[-1500:])
    rc, out, err, _, _ = rocetor(work, rings, "0", extra_cfg=qos("external"), duration=1)
    t.eq(rc, 0, "pfc external on net_ring: exit status: " + err[-400:])
    t.check("rocetor: port 0 (net_ring): warning: qos.pfc.mode external: no capability entry: "
            "no pause counter is known to watch" in out,
            "pfc external on net_ring: the warning: " + out[-1500:])
    rc, out, err, _, _ = rocetor(work, rings, "0", extra_cfg=qos("pause"), duration=1)
    t.eq(rc, 1, "pfc pause on net_ring: exit status 1: " + err[-400:])
    t.check("rocetor: port 0 (net_ring): warning: qos.pfc.mode pause: no capability entry: "
            "trying rte_eth_dev_flow_ctrl_set" in out,
            "pfc pause on net_ring: tried: " + out[-1500:])
    t.check("port 0: qos.pfc.mode pause: the PMD cannot do 802.3x pause: not supported "
            "(use qos.pfc.mode external, or software on a virtual port)" in err,
            "pfc pause on net_ring: the PMD's refusal: " + err[-800:])


def main():
    t = harness.Checker("pkt-nic")
    work = tempfile.mkdtemp(prefix="rocetor-nic-")

    # Two workers on two net_null ports: two RX queues each, RSS on.
    rc, out, err, stats, tel = rocetor(
        work, ["net_null0,size=64", "net_null1,size=64"], "0@0,1@1,2@1",
        tel=("/rocetor/nic", "/rocetor/counters,nic"))
    t.eq(rc, 0, "net_null: exit status: " + err[-400:])
    lines = port_lines(out)
    t.eq(sorted(lines), [0, 1], "net_null: a start-up line per port: " + out[-1500:])
    for p, m in sorted(lines.items()):
        (drv, rxq, txq, speed, rss, fc, pfc, lsc, caps) = (
            m.group(3), m.group(4), m.group(5), m.group(12), m.group(13), m.group(14),
            m.group(15), m.group(16), m.group(17))
        t.eq((drv, rxq, txq), ("net_null", "2", "2"), "port %d: driver and queues" % p)
        # net_null reports 10 Gbit/s (rte_eth_null.c); its LSC is none.
        t.eq(speed, "10G", "port %d: link speed" % p)
        t.check("ipv4-udp" in rss.split(",") and "ipv6-udp" in rss.split(","),
                "port %d: the RSS types in effect hash UDP: %s" % (p, rss))
        t.eq((fc, pfc, lsc, caps), ("n/a", "no", "no", "net_null"),
             "port %d: flow control in effect, PFC and LSC support, entry" % p)
        t.check(("rocetor: port %d (net_null): NIC xstats summed: nic_rx_pause 0, "
                 "nic_tx_pause 0, nic_rx_discards 0" % p) in out,
                "port %d: the xstats found by name (none on net_null)" % p)
    t.check("no capability entry" not in out, "net_null has an entry")
    t.check("differs from its capability entry" not in out,
            "net_null reports what its entry says: " + out[-1500:])
    t.check("warning: qos.pfc.mode nic" not in out, "no PFC warning without qos.pfc.mode nic")
    if t.check(stats is not None, "net_null: stats document"):
        for e in stats["ports"]:
            t.eq([e.get(k) for k in ("rx_nombuf", "imissed", "ierrors")], [0, 0, 0],
                 "net_null port %d: the NIC counters" % e["port"])
            t.eq([k for k in NIC_KEYS if k in e], [],
                 "net_null port %d: no xstats counter where the driver has none" % e["port"])
        ok, why = harness.accounted(stats)
        t.check(ok, "net_null: accounting: " + why)
    nic = tel.get("/rocetor/nic")
    if t.check(isinstance(nic, dict) and sorted(nic) == ["0", "1"],
               "/rocetor/nic: one entry per port: %r" % (nic,)):
        for p in ("0", "1"):
            e = nic[p]
            t.eq((e.get("driver"), e.get("caps"), e.get("flow_control")),
                 ("net_null", "net_null", "none"), "/rocetor/nic %s: driver and entry" % p)
            t.check(all(isinstance(e.get(k), int) for k in ("rx_nombuf", "imissed", "ierrors")),
                    "/rocetor/nic %s: the NIC counters: %r" % (p, e))
            t.eq([k for k in NIC_KEYS if k in e], [], "/rocetor/nic %s: no xstats counter" % p)

    # What each of them is: the "nic" family of /rocetor/counters.
    fam = tel.get("/rocetor/counters,nic") or {}
    t.eq(sorted((fam.get("type") or {}).items()),
         sorted((k, "counter") for k in ("rx_nombuf", "imissed", "ierrors") + NIC_KEYS),
         "/rocetor/counters,nic: every NIC counter, a counter: %r" % (fam,))

    # Every name of the family is documented (doc/counters.md, "NIC counters").
    with open(os.path.join(harness.SRC_ROOT, "doc", "counters.md")) as f:
        doc = f.read()
    section = doc.split("## NIC counters", 1)[-1].split("\n## ", 1)[0]
    t.eq([k for k in (fam.get("type") or {}) if "| `%s` |" % k not in section], [],
         "NIC counters without a row in doc/counters.md's NIC counters table")

    # A driver with no entry: net_ring.
    rc, out, err, stats, _ = rocetor(work, ["net_null0,size=64", "net_ring0"], "0")
    t.eq(rc, 0, "net_ring: exit status: " + err[-400:])
    t.check("rocetor: port 1 (net_ring): no capability entry: RSS, flow control and NIC "
            "counters are only what the device reports" in out,
            "net_ring: no capability entry: " + out[-1500:])
    t.check("rocetor: port 0 (net_null): no capability entry" not in out,
            "net_ring: net_null has one")
    lines = port_lines(out)
    if t.check(sorted(lines) == [0, 1], "net_ring: start-up lines: " + out[-1500:]):
        t.eq((lines[1].group(3), lines[1].group(13), lines[1].group(15),
              lines[1].group(17)), ("net_ring", "off", "?", "none"),
             "net_ring: one queue, no RSS, PFC unknown, no entry")

    # qos.pfc.mode nic on net_null: the table's warning, then the PMD's
    # refusal (doc/config.md: exit status 1).
    rc, out, err, stats, _ = rocetor(
        work, ["net_null0,size=64", "net_null1,size=64"], "0",
        extra_cfg="qos: {classes: 8, pfc: {mode: nic, classes: [3]}}\n")
    t.eq(rc, 1, "pfc nic: exit status 1: " + err[-400:])
    t.check("rocetor: port 0 (net_null): warning: qos.pfc.mode nic: its driver has no PFC "
            "(capability table)" in out, "pfc nic: the table's warning: " + out[-1200:])
    t.check("qos.pfc.mode nic: the PMD cannot do PFC on priority 3: not supported (use "
            "qos.pfc.mode software or external)" in err, "pfc nic: the PMD's refusal: "
            + err[-600:])
    pfc_modes(t, work)

    # memif: ethdev takes no MTU above 1500 (max_rx_pktlen 1518): said at
    # start, and an mtu above it is said before the device refuses it.
    sock = os.path.join(work, "m.sock")
    rc, out, err, stats, _ = rocetor(work, ["net_memif0,role=server,socket=" + sock,
                                            "net_null1,size=64"], "0", duration=1)
    t.eq(rc, 0, "memif: exit status: " + err[-400:])
    t.check("rocetor: port 0 (net_memif): warning: the device's largest MTU is 1500: RoCE's "
            "4096-byte path MTU needs 4156" in out, "memif: the largest MTU: " + out[-1500:])
    t.check("rocetor: port 1 (net_null): warning: the device's largest MTU" not in out,
            "memif: not for net_null")
    lines = port_lines(out)
    if t.check(0 in lines, "memif: start-up line: " + out[-1500:]):
        t.eq((lines[0].group(3), lines[0].group(17)), ("net_memif", "net_memif"),
             "memif: driver and entry")
    cfg = CONFIG.replace('role: host, mac: "02:00:00:00:05:00"',
                         'role: host, mac: "02:00:00:00:05:00", mtu: 4200')
    rc, out, err, stats, _ = rocetor(work, ["net_memif0,role=server,socket=" + sock,
                                            "net_null1,size=64"], "0", duration=1,
                                     config=cfg)
    t.eq(rc, 1, "memif mtu 4200: exit status 1: " + err[-400:])
    t.check("rocetor: port 0 (net_memif): warning: mtu 4200 is above the largest the device "
            "takes (1500): it will refuse the configuration" in out,
            "memif mtu 4200: said before the refusal: " + out[-1500:])

    af_packet(t, work)

    # net_pcap (the packet tests' ports): an entry, no RSS, no xstats
    # counter; the NIC counters in the document.
    r = harness.run(CONFIG % "", [[], []], tag="nic")
    t.eq(r.rc, 0, "net_pcap: exit status: " + r.stderr[-400:])
    lines = port_lines(r.stdout)
    if t.check(sorted(lines) == [0, 1], "net_pcap: start-up lines: " + r.stdout[-1500:]):
        t.eq((lines[0].group(3), lines[0].group(13), lines[0].group(14), lines[0].group(17)),
             ("net_pcap", "off", "n/a", "net_pcap"), "net_pcap: driver, RSS, fc, entry")
    t.check("differs from its capability entry" not in r.stdout,
            "net_pcap reports what its entry says")
    if t.check(r.stats is not None, "net_pcap: stats document"):
        for e in r.stats["ports"]:
            t.check(all(k in e for k in ("rx_nombuf", "imissed", "ierrors")),
                    "net_pcap port %d: NIC counters" % e["port"])
            t.eq([k for k in NIC_KEYS if k in e], [], "net_pcap port %d: no xstats counter"
                 % e["port"])
    shutil.rmtree(work, ignore_errors=True)
    return t.done()


if __name__ == "__main__":
    sys.exit(main())

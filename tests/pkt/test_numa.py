#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The rocetor authors
"""NUMA at start-up (issue 30 item 3, app/numa.c): rocetor prints, per
socket in use, its ports and workers, its mempool with the budget's parts,
and the memory it needs (mbufs, LB state, egress, rings); and the LB
state's size. On this one-socket machine every port and worker is on
socket 0: one pool, the single budget's figures, and the same figures as
`rocetor-info budget` (default socket map). A run still forwards and
accounts with the pools counted together (mempool in use back to its
baseline when the workers stop, 0 after the ports close).

1. net_pcap, two workers, ConWeave: the socket line against the mempool
   line and rocetor-info; 2000 RoCE frames forwarded, accounted.
2. net_null, one worker, ECMP (the whole run's null traffic): the socket
   line, the pool back to its baseline, no LB state line.
3. ConWeave, spray, CAVER and SeqBalance on net_null: the DPDK heap rocetor allocated
   outside the memory zones (telemetry /eal/heap_info, /eal/memzone_list)
   is the estimated LB state + egress + route tables, within 2 MiB.
4. A net_ring port created on socket 1, the worker on socket 0: the
   warning, and the pool of socket 1 refused (--no-huge has memory on
   socket 0 only), exit 1, its size as rocetor-info gives it.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
import harness  # noqa: E402
import test_forward as F  # noqa: E402
from scapy.all import raw  # noqa: E402

INFO = os.environ.get("ROCETOR_INFO") or os.path.join(
    os.path.dirname(harness.ROCETOR), "rocetor-info")

SOCKET = re.compile(
    r"^rocetor: socket (\d+): (\d+) ports?, (\d+) workers?; pool (\S+) (\d+) mbufs = "
    r"rx (\d+) \+ tx (\d+) descriptors \+ workers (\d+) \+ egress (\d+) \+ hold (\d+) \+ "
    r"control (\d+); memory ([\d.]+) MiB: mbufs ([\d.]+), LB state ([\d.]+), "
    r"egress ([\d.]+), rings ([\d.]+), routes ([\d.]+)$", re.M)
MEMPOOL = re.compile(r"^rocetor: mempool (\d+) mbufs x (\d+) B \([\d.]+ MiB\) = rx (\d+) \+ "
                     r"tx (\d+) descriptors \+ (\d+) workers x (\d+) \+ egress (\d+) \+ "
                     r"reorder (\d+) \+ (\d+) control", re.M)
LBSTATE = re.compile(r"^rocetor: (\S+) state ([\d.]+) MiB per worker \+ ([\d.]+) MiB shared$",
                     re.M)


def mib(n):
    return "%.1f" % (n / float(1 << 20))


def socket_lines(t, out, what):
    lines = SOCKET.findall(out)
    t.eq(len(lines), 1, "%s: one socket line (one socket here): %s" % (what, out[:1500]))
    return lines[0] if lines else None


def info_budget(cfg_text, workers, tmp):
    path = os.path.join(tmp, "numa.yaml")
    with open(path, "w") as f:
        f.write(cfg_text)
    # net_pcap has no RSS: no RSS owner queues.
    p = subprocess.run([INFO, "budget", "--config", path, "--workers", str(workers),
                        "--no-rss-owner"],
                       capture_output=True, text=True, timeout=60)
    return p.returncode, p.stdout, p.stderr


def test_pcap(t):
    print("1. net_pcap, 2 workers, conweave")
    cfg = F.CONFIG.replace("switch: {name: fwd, id: 7, lb: ecmp}",
                           "switch: {name: numa, id: 7, lb: conweave, idle_sleep_us: 100, "
                           "idle_threshold: 64}")
    t.check("lb: conweave" in cfg, "the config runs ConWeave")
    frames = [raw(F.roce(sport=40000 + i % 64, psn=i)) for i in range(2000)]
    r = harness.run(cfg, [frames, [], [], [], []], tag="numa", lcores="0@0,1@1,2@1",
                    queues=2, idle_ms=800)
    if not t.check(r.rc == 0 and r.stats, "rocetor failed: %s" % r.stderr[-2000:]):
        return
    out = r.stdout
    s = socket_lines(t, out, "pcap")
    m = MEMPOOL.search(out)
    t.check(m is not None, "the mempool line is still printed")
    if s is None or m is None:
        return
    sock, ports, workers, pool, mbufs = int(s[0]), int(s[1]), int(s[2]), s[3], int(s[4])
    rx, tx, wk, eg, hold, ctl = map(int, s[5:11])
    total, m_mbufs, m_lb, m_eg, m_rings, m_routes = map(float, s[11:17])
    t.eq(sock, 0, "(socket)")
    t.eq((ports, workers), (5, 2), "(ports, workers on socket 0)")
    t.eq(pool, "rtr_pool", "(the main pool keeps its name)")
    g = list(map(int, m.groups()))
    t.eq(mbufs, g[0], "(one socket: its pool is the single budget's)")
    t.eq([rx, tx, wk, eg, hold, ctl], [g[2], g[3], g[4] * g[5], g[6], g[7], g[8]],
         "(the socket's parts are the mempool line's)")
    t.eq(mib(mbufs * (g[1] + 192)), "%.1f" % m_mbufs, "(mbufs memory = mbufs x (room + 192))")
    t.check(abs(total - (m_mbufs + m_lb + m_eg + m_rings + m_routes)) <= 0.3,
            "memory total %.1f = the parts %r" % (total, s[12:17]))
    t.check(m_lb > 0 and m_eg > 0 and m_rings > 0, "LB state, egress and rings counted")
    t.check(128 < m_routes < 140, "route tables: two 64 MiB tbl24s and more (%.1f)" % m_routes)
    lb = LBSTATE.search(out)
    if t.check(lb is not None, "the LB state line"):
        t.eq(lb.group(1), "conweave", "(the running mode's state)")
        t.check(abs(2 * float(lb.group(2)) + float(lb.group(3)) - m_lb) <= 0.2,
                "socket LB state = 2 workers x per worker + shared: %s" % lb.group(0))
    # The same figures from rocetor-info (the default socket map: 0).
    tmp = tempfile.mkdtemp(prefix="rocetor-numa-info-")
    rc, jout, jerr = info_budget(cfg, 2, tmp)
    shutil.rmtree(tmp, ignore_errors=True)
    if t.check(rc == 0, "rocetor-info budget: %d %s" % (rc, jerr)):
        b = json.loads(jout)
        js = b["sockets"]
        t.eq(len(js), 1, "(rocetor-info: one socket)")
        j = js[0]
        t.eq([j["socket"], j["ports"], j["workers"], j["pool"], j["mbufs"]],
             [sock, ports, workers, pool, mbufs], "(rocetor-info's socket 0)")
        t.eq([j["parts"][k] for k in ("rx_desc", "tx_desc", "workers", "egress", "hold",
                                      "control")],
             [rx, tx, wk, eg, hold, ctl], "(rocetor-info's parts)")
        mem = j["memory_bytes"]
        t.eq([mib(mem[k]) for k in ("total", "mbufs", "lb_state", "egress", "rings", "routes")],
             list(s[11:17]), "(rocetor-info's memory, MiB)")
        t.eq(b["pools_mbufs"], mbufs, "(rocetor-info pools_mbufs)")
        t.eq(b["warnings"], [], "(no dealing warning)")
        t.eq([q["workers"] for q in b["rx_queues"]],
             [[(q + i) % 2 for q in range(2)] for i in range(5)],
             "(one socket: queue q of port i to worker (q + i) % 2)")
    # The run: forwarded and accounted over the pools.
    st = r.stats
    t.eq(st["forwarded"], 2000, "(forwarded)")
    ok, why = harness.accounted(st)
    t.check(ok, "accounting: " + why)
    t.eq(st["mempool_in_use_stopped"], st["mempool_baseline"],
         "(mempool in use when the workers stopped = at start)")
    t.check(re.search(r"^rocetor: mempool in use after ports closed: 0 of %d$" % mbufs, out,
                      re.M) is not None, "the pools are whole after the ports closed")


def test_null(t):
    print("2. net_null, 1 worker, ecmp")
    cfg_text = F.CONFIG.replace("switch: {name: fwd, id: 7, lb: ecmp}",
                                "switch: {name: numanull, id: 7, lb: ecmp}")
    work = tempfile.mkdtemp(prefix="rocetor-numa-null-")
    cfg = os.path.join(work, "null.yaml")
    stats = os.path.join(work, "stats.json")
    with open(cfg, "w") as f:
        f.write(cfg_text)
    cmd = [harness.ROCETOR, "-l", "0", "--no-pci", "--no-huge", "-m", "1024",
           "--file-prefix", harness.eal_prefix("numanull"), "--log-level", "lib.eal:error"]
    for i in range(5):
        cmd += ["--vdev", "net_null%d" % i]
    cmd += ["--", "--config", cfg, "--duration", "0.3", "--stats-json", stats]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    t.eq(p.returncode, 0, "net_null run: " + p.stderr[-800:])
    s = socket_lines(t, p.stdout, "null")
    if s is not None:
        t.eq((int(s[0]), int(s[1]), int(s[2]), s[3]), (0, 5, 1, "rtr_pool"),
             "(socket 0: 5 ports, 1 worker, rtr_pool)")
        t.eq(float(s[13]), 0.0, "(ECMP keeps no LB state)")
    t.check(LBSTATE.search(p.stdout) is None, "no LB state line for ECMP")
    if t.check(os.path.exists(stats), "stats document"):
        with open(stats) as f:
            st = json.load(f)
        t.check(st["ports"][0]["rx_packets"] > 0, "net_null delivered packets")
        ok, why = harness.accounted(st)
        t.check(ok, "accounting: " + why)
        t.eq(st["mempool_in_use_stopped"], st["mempool_baseline"],
             "(in use when the workers stopped = at start)")
    shutil.rmtree(work, ignore_errors=True)


def heap_outside_memzones(prefix):
    """DPDK heap allocated on socket 0 outside the memory zones (mempools
    and rings are zones; rte_malloc'd state is not), in bytes, or None."""
    cmds = ["/eal/heap_info,0", "/eal/memzone_list"]
    r = harness.telemetry(prefix, cmds)
    if "/eal/heap_info" not in r or "/eal/memzone_list" not in r:
        return None
    alloc = r["/eal/heap_info"]["Alloc_size"]
    ids = r["/eal/memzone_list"]
    zones = 0
    # One reply per command: ask the zones one connection at a time.
    for chunk in range(0, len(ids), 16):
        q = subprocess.run(["/usr/bin/dpdk-telemetry.py", "-f", prefix],
                           input="".join("/eal/memzone_info,%d\n" % i
                                         for i in ids[chunk:chunk + 16]),
                           capture_output=True, text=True, timeout=30)
        for line in q.stdout.splitlines():
            line = line.strip()
            if line.startswith("{") and line.endswith("}"):
                z = json.loads(line).get("/eal/memzone_info") or {}
                zones += z.get("Length", 0)
    return alloc - zones


def test_heap(t):
    """The estimate against what rocetor allocates: LB state, egress and
    route tables come from rte_malloc (not zones), so the heap outside the
    zones is their sum, give or take the small structures (workers,
    counters: under 2 MiB)."""
    print("3. the estimate against the DPDK heap (net_null, 2 workers)")
    for lb, section in (("conweave", "conweave: {reorder_queues_per_port: 256, "
                                     "reorder_queue_depth: 512}\n"),
                        ("spray", "spray: {windows_per_worker: 512}\n"),
                        ("caver", ""), ("seqbalance", "")):
        cfg_text = F.CONFIG.replace("switch: {name: fwd, id: 7, lb: ecmp}",
                                    "switch: {name: heap, id: 7, lb: %s, idle_sleep_us: 100, "
                                    "idle_threshold: 64}" % lb) + section
        work = tempfile.mkdtemp(prefix="rocetor-numa-heap-")
        cfg = os.path.join(work, "heap.yaml")
        with open(cfg, "w") as f:
            f.write(cfg_text)
        prefix = harness.eal_prefix("numaheap")
        cmd = [harness.ROCETOR, "--lcores", "0@0,1@1,2@1", "--no-pci", "--no-huge", "-m", "1024",
               "--file-prefix", prefix, "--log-level", "lib.eal:error"]
        for i in range(5):
            cmd += ["--vdev", "net_null%d" % i]
        cmd += ["--", "--config", cfg, "--duration", "4"]
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        # Start-up is over once the summary is out (flushed): the state is
        # allocated by then.
        head = []
        for line in proc.stdout:
            head.append(line)
            if line.startswith("rocetor: switch "):
                break
        measured = heap_outside_memzones(prefix) if proc.poll() is None else None
        out, err = proc.communicate(timeout=60)
        out = "".join(head) + out
        shutil.rmtree(work, ignore_errors=True)
        t.eq(proc.returncode, 0, "%s: exit %s" % (lb, err[-500:]))
        s = socket_lines(t, out, lb)
        if not t.check(measured is not None and s is not None,
                       "%s: heap measured (%r)" % (lb, measured)):
            continue
        lb_mib, eg_mib, routes_mib = float(s[13]), float(s[14]), float(s[16])
        est = (lb_mib + eg_mib + routes_mib) * (1 << 20)
        print("  %s: outside the zones %.1f MiB, estimated LB %.1f + egress %.1f + routes %.1f"
              % (lb, measured / float(1 << 20), lb_mib, eg_mib, routes_mib))
        t.check(lb_mib > 1.0, "%s: LB state counted (%.1f MiB)" % (lb, lb_mib))
        # The sanitizer build takes rocetor's rte_malloc calls to the C heap
        # (lib/common/rtr_san_heap.h): the DPDK heap holds none of them.
        if harness.sanitized("%s: the DPDK heap against the estimate (rocetor's "
                             "rte_malloc takes the C heap there)" % lb):
            continue
        t.check(0 <= measured - est < (2 << 20),
                "%s: heap outside the zones %d vs estimate %d" % (lb, measured, est))


RING_CONFIG = """
switch: {name: ring, id: 3, lb: ecmp}
ports:
  - {port: 0, role: host, mac: "02:00:00:00:03:00"}
  - {port: 1, role: fabric, mac: "02:00:00:00:03:01"}
routes:
  - {prefix: "10.2.0.0/16", port: 1, nexthop_mac: "02:00:00:00:bb:01"}
"""


def test_other_socket(t):
    """A port on socket 1 (net_ring created there: nodeaction=NAME:1:CREATE)
    with the one worker on socket 0: the dealing warns, and the pool of
    socket 1, which --no-huge has no memory for, is refused by the EAL
    (it does not fall back to socket 0): exit 1 naming the socket and the
    size rocetor-info gives for the same map."""
    print("4. a port on socket 1, no memory there")
    work = tempfile.mkdtemp(prefix="rocetor-numa-ring-")
    cfg = os.path.join(work, "ring.yaml")
    with open(cfg, "w") as f:
        f.write(RING_CONFIG)
    cmd = [harness.ROCETOR, "-l", "0", "--no-pci", "--no-huge", "-m", "1024",
           "--file-prefix", harness.eal_prefix("numaring"), "--log-level", "lib.eal:error",
           "--vdev", "net_null0", "--vdev", "net_ring0,nodeaction=numa_r0:1:CREATE",
           "--", "--config", cfg, "--duration", "0.2"]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    q = subprocess.run([INFO, "budget", "--config", cfg, "--port-sockets", "0,1"],
                       capture_output=True, text=True, timeout=60)
    shutil.rmtree(work, ignore_errors=True)
    t.eq(p.returncode, 1, "exit 1: " + p.stderr[-500:])
    t.check(re.search(r"^rocetor: warning: port 1 is on socket 1, which has no worker: its RX "
                      r"queues go to the workers of other sockets", p.stdout, re.M) is not None,
            "the port without a worker on its socket is warned: " + p.stdout[-800:])
    m = re.search(r"^cannot create the mempool of (\d+) mbufs on socket 1 \(([\d.]+) MiB\)",
                  p.stderr, re.M)
    if not t.check(m is not None, "socket 1's pool refused, named: " + p.stderr[-500:]):
        return
    if t.check(q.returncode == 0, "rocetor-info: " + q.stderr):
        b = json.loads(q.stdout)
        s1 = [s for s in b["sockets"] if s["socket"] == 1]
        t.check(len(s1) == 1 and s1[0]["pool"] == "rtr_pool_s1", "rocetor-info: socket 1's pool")
        if s1:
            t.eq(int(m.group(1)), s1[0]["mbufs"], "(socket 1's pool size, rocetor-info's)")
            t.eq(m.group(2), mib(s1[0]["memory_bytes"]["mbufs"]), "(its MiB)")
        t.eq(len(b["warnings"]), 1, "(rocetor-info warns the same port)")


def main():
    t = harness.Checker("pkt-numa")
    test_pcap(t)
    test_null(t)
    test_heap(t)
    test_other_socket(t)
    return t.done()


if __name__ == "__main__":
    sys.exit(main())

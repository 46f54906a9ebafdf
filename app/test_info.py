# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The rocetor authors
"""rocetor-info (app/info.c, doc/tools.md).

- `modes` lists the registry: ecmp, conweave, seqbalance, caver and spray
  (issue 19) implemented, with their spine behaviour and whether they hold
  mbufs.
- `budget` gives what rocetor itself prints for the same config and worker
  count ("rocetor: mempool N mbufs x D B = rx ... + reorder R + C control"
  and the hold budget line): rocetor runs on net_null ports, --no-huge.
- Bad arguments and bad configs exit 2, a config error with the loader's
  FILE:LINE: KEY message.
"""
import json
import os
import re
import subprocess
import sys
import tempfile
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'tools'))
from rtrpy import checks  # noqa: E402
from rtrpy import dpdk  # noqa: E402

check = checks.check

SRC = os.environ.get("ROCETOR_SRC") or os.path.normpath(
    os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
BUILD = os.environ.get("ROCETOR_BUILD") or os.path.join(SRC, "build")
ROCETOR = os.environ.get("ROCETOR") or os.path.join(BUILD, "app", "rocetor")
INFO = os.environ.get("ROCETOR_INFO") or os.path.join(BUILD, "app", "rocetor-info")



def info(*args):
    p = subprocess.run([INFO] + list(args), capture_output=True, text=True, timeout=60)
    return p.returncode, p.stdout, p.stderr


def test_modes():
    print("1. rocetor-info modes")
    rc, out, err = info("modes")
    check(rc == 0, "modes exits 0 (%d, %s)" % (rc, err))
    modes = json.loads(out)["modes"]
    names = [m["name"] for m in modes]
    check(names == ["ecmp", "conweave", "seqbalance", "caver", "spray", "letflow", "drill",
                     "conga"], "names %r" % names)
    check([m["id"] for m in modes] == list(range(len(modes))), "ids are the indexes")
    impl = [m["name"] for m in modes if m["implemented"]]
    check(impl == ["ecmp", "conweave", "seqbalance", "caver", "spray", "letflow", "drill",
                    "conga"], "implemented %r" % impl)
    check({m["name"]: m["spine"] for m in modes} ==
          {"ecmp": "run", "conweave": "ecmp", "seqbalance": "ecmp", "caver": "run",
           "spray": "ecmp", "letflow": "ecmp", "drill": "run", "conga": "run"}, "spine behaviour")
    check([m["name"] for m in modes if m["holds"]] == ["conweave", "spray"],
          "conweave and spray hold")
    check([m["name"] for m in modes if m["flow_table"]] ==
          ["conweave", "seqbalance", "caver", "spray", "letflow", "conga"],
          "the stateful modes have a flow table")
    for m in modes:
        check(isinstance(m["summary"], str) and m["summary"], "%s has a summary" % m["name"])
        check(set(m) == {"id", "name", "summary", "implemented", "spine", "holds",
                          "flow_table"},
              "%s: keys %r" % (m["name"], sorted(m)))
    # rocetor -h lists the same modes.
    p = subprocess.run([ROCETOR, "--no-huge", "--no-pci", "--file-prefix",
                        dpdk.file_prefix("info"), "--", "-h"],
                       capture_output=True, text=True, timeout=60)
    check("--lb MODE             override switch.lb: " + " | ".join(names) in p.stdout,
          "rocetor -h lists the registry's modes")


MEMPOOL = re.compile(r"rocetor: mempool (\d+) mbufs x (\d+) B \([\d.]+ MiB\) = rx (\d+) \+ "
                     r"tx (\d+) descriptors \+ (\d+) workers x (\d+) \+ egress (\d+) \+ "
                     r"reorder (\d+) \+ (\d+) control")
HOLD = re.compile(r"rocetor: (\S+) hold budget (\d+) mbufs per worker \(([^,)]+)")


def rocetor(cfg, n_ports, workers, args=()):
    """rocetor's budget lines on n_ports net_null ports."""
    lcores = "0" if workers == 1 else ",".join(
        ["0@0"] + ["%d@%d" % (i + 1, (i + 1) % 2) for i in range(workers)])
    cmd = [ROCETOR, "--lcores", lcores, "--no-pci", "--no-huge", "-m", "1024",
           "--file-prefix", dpdk.file_prefix("info"),
           "--log-level", "lib.eal:error"]
    for i in range(n_ports):
        cmd += ["--vdev", "net_null%d" % i]
    cmd += ["--", "--config", cfg, "--duration", "0.05"] + list(args)
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    return p.returncode, p.stdout + p.stderr


def test_budget_vs_rocetor():
    print("2. rocetor-info budget = what rocetor prints")
    cases = [
        ("demo-tor.yaml", 5, 1, []),
        ("demo-tor.yaml", 5, 2, []),
        ("demo-tor.cfg", 5, 1, []),
        ("demo-dsttor.yaml", 5, 1, ["--lb", "ecmp", "--telemetry-rw"]),
        ("spine.yaml", 4, 1, []),
        ("spine.yaml", 4, 2, ["--lb", "conweave"]),
        ("tor-100g.yaml", 6, 2, ["--lb", "ecmp"]),
        ("tor-100g.cfg", None, 1, ["--lb", "seqbalance"]),
    ]
    for name, n_ports, workers, args in cases:
        cfg = os.path.join(SRC, "conf", name)
        what = "%s, %d worker%s %s" % (name, workers, "" if workers == 1 else "s", " ".join(args))
        rc, out, err = info("budget", "--config", cfg, "--workers", str(workers), *args)
        check(rc == 0, "%s: rocetor-info exits 0 (%d, %s)" % (what, rc, err))
        b = json.loads(out)
        check(set(b) == {"mbufs", "need", "parts", "hold_budget_per_worker", "hold_key",
                         "data_room"} | NUMA_KEYS, "%s: keys %r" % (what, sorted(b)))
        p = b["parts"]
        check(set(p) == {"rx_desc", "tx_desc", "workers", "egress", "hold", "control"},
              "%s: parts %r" % (what, sorted(p)))
        check(b["need"] == sum(p.values()), "%s: need is the sum of the parts" % what)
        if n_ports is None:
            continue  # the JSON only
        rc, log = rocetor(cfg, n_ports, workers, args)
        check(rc == 0, "%s: rocetor exits 0 (%d)" % (what, rc))
        m = MEMPOOL.search(log)
        check(m is not None, "%s: rocetor printed its mempool line" % what)
        if m is None:
            print(log)
            continue
        mbufs, room, rx, tx, nw, per, egress, hold, control = map(int, m.groups())
        check(b["mbufs"] == mbufs, "%s: mbufs %d, rocetor %d" % (what, b["mbufs"], mbufs))
        check(b["data_room"] == room, "%s: data_room %d, rocetor %d" % (what, b["data_room"], room))
        check(p["rx_desc"] == rx and p["tx_desc"] == tx, "%s: descriptors" % what)
        check(nw == workers and p["workers"] == nw * per, "%s: workers part" % what)
        check(p["egress"] == egress, "%s: egress %d, rocetor %d" % (what, p["egress"], egress))
        check(p["hold"] == hold, "%s: hold %d, rocetor %d" % (what, p["hold"], hold))
        check(p["control"] == control, "%s: control" % what)
        h = HOLD.search(log)
        if h is None:
            check(b["hold_budget_per_worker"] == 0 and b["hold_key"] is None,
                  "%s: no hold budget" % what)
        else:
            check(b["hold_budget_per_worker"] == int(h.group(2)),
                  "%s: hold budget %d, rocetor %s" % (what, b["hold_budget_per_worker"],
                                                      h.group(2)))
            key = None if h.group(3) == "derived from the mempool" else h.group(3)
            check(b["hold_key"] == key, "%s: hold_key %r, rocetor %r" % (what, b["hold_key"], key))


NUMA_KEYS = {"pools_mbufs", "main_pool_socket", "lb_state", "egress_per_worker_bytes",
             "sockets", "rx_queues", "warnings"}
PARTS = ("rx_desc", "tx_desc", "workers", "egress", "hold", "control")


def test_sockets():
    """The budget per socket and the RX queue dealing (issue 30, NUMA)."""
    print("5. rocetor-info budget per socket")
    cfg = os.path.join(SRC, "conf", "tor-100g.yaml")
    # The default map: everything on socket 0, the single pool's figures.
    rc, out, err = info("budget", "--config", cfg, "--workers", "4")
    check(rc == 0, "default map exits 0 (%d, %s)" % (rc, err))
    b = json.loads(out)
    check(len(b["sockets"]) == 1, "one socket: %r" % b["sockets"])
    s0 = b["sockets"][0]
    check(set(s0) == {"socket", "ports", "workers", "pool", "mbufs", "need", "parts",
                      "memory_bytes", "memory_mib"}, "socket keys %r" % sorted(s0))
    check(s0["socket"] == 0 and s0["pool"] == "rtr_pool" and s0["ports"] == 6
          and s0["workers"] == 4, "socket 0: 6 ports, 4 workers, rtr_pool")
    check(s0["mbufs"] == b["mbufs"] == b["pools_mbufs"] and s0["parts"] == b["parts"],
          "one socket: the single pool's mbufs and parts")
    mem = s0["memory_bytes"]
    check(set(mem) == {"mbufs", "lb_state", "egress", "rings", "routes", "total"},
          "memory keys")
    check(mem["total"] == mem["mbufs"] + mem["lb_state"] + mem["egress"] + mem["rings"]
          + mem["routes"], "memory total is the sum of its parts")
    check(mem["mbufs"] == b["mbufs"] * (b["data_room"] + 192), "mbuf memory: mbufs x (room + 192)")
    lb = b["lb_state"]
    check(lb["mode"] == "conweave" and lb["per_worker_bytes"] > 0,
          "conweave's state counted: %r" % lb)
    check(mem["lb_state"] == 4 * lb["per_worker_bytes"] + lb["shared_bytes"],
          "socket 0 holds 4 workers' LB state and the shared state")
    check(mem["egress"] == 4 * b["egress_per_worker_bytes"], "4 workers' egress queues")
    # tor-100g: 4096 reorder rings of 2048 per host port per worker: the LB
    # state is most of the memory (a quarter of a 2^20-entry flow table
    # plus 2 host ports x 4096 x 4096 slots x 8 bytes per worker).
    check(lb["per_worker_bytes"] >= 2 * 4096 * 4096 * 8 + (1 << 20) // 4 * 64,
          "tor-100g's ConWeave state per worker: %d" % lb["per_worker_bytes"])
    check(b["warnings"] == [], "no warning on one socket")
    # One RX queue per worker on devices with RSS: queue q is worker q's.
    check([q["workers"] for q in b["rx_queues"]] == [[0, 1, 2, 3]] * 6
          and all(q["rss_owner"] for q in b["rx_queues"]), "RSS owner: queue q to worker q")
    rc, out, err = info("budget", "--config", cfg, "--workers", "4", "--no-rss-owner")
    check(rc == 0 and [q["workers"] for q in json.loads(out)["rx_queues"]] ==
          [[(q + i) % 4 for q in range(4)] for i in range(6)],
          "--no-rss-owner, one socket: (q + i) % 4")
    total_one = mem["total"]

    # Two sockets, three ports and two workers each: two pools, the parts
    # where they live, the queues on their port's socket, no warning
    # (devices without RSS owner queues).
    rc, out, err = info("budget", "--config", cfg, "--workers", "4", "--no-rss-owner",
                        "--port-sockets", "0,0,0,1,1,1", "--worker-sockets", "0,0,1,1")
    check(rc == 0, "two sockets exit 0 (%d, %s)" % (rc, err))
    b2 = json.loads(out)
    socks = {s["socket"]: s for s in b2["sockets"]}
    check(sorted(socks) == [0, 1], "sockets 0 and 1")
    check(socks[0]["pool"] == "rtr_pool" and socks.get(1, {}).get("pool") == "rtr_pool_s1",
          "pools rtr_pool and rtr_pool_s1")
    for k in PARTS:
        check(sum(s["parts"][k] for s in b2["sockets"]) == b2["parts"][k],
              "%s summed over the sockets" % k)
    check(socks[0]["parts"]["control"] == b2["parts"]["control"]
          and socks[1]["parts"]["control"] == 0, "control on the main socket")
    for s in b2["sockets"]:
        check(s["mbufs"] >= s["need"] and (s["mbufs"] + 1) & s["mbufs"] == 0,
              "socket %d: 2^k - 1 >= need" % s["socket"])
        check(s["ports"] == 3 and s["workers"] == 2, "socket %d: 3 ports, 2 workers" % s["socket"])
    check(b2["pools_mbufs"] == sum(s["mbufs"] for s in b2["sockets"]), "pools_mbufs")
    check(max(s["memory_bytes"]["total"] for s in b2["sockets"]) < 0.6 * total_one,
          "each socket needs less than 60% of the one-socket total")
    for q in b2["rx_queues"]:
        side = {0, 1} if q["socket"] == 0 else {2, 3}
        check(set(q["workers"]) == side, "port %d's queues on its socket's workers %r"
              % (q["port"], q["workers"]))
    check(b2["warnings"] == [], "no warning with workers on both sockets")
    # With RSS owner queues every port's queue q is worker q's, half of
    # them on the other socket: one warning per port.
    rc, out, err = info("budget", "--config", cfg, "--workers", "4",
                        "--port-sockets", "0,0,0,1,1,1", "--worker-sockets", "0,0,1,1")
    bo = json.loads(out) if rc == 0 else {"warnings": [], "rx_queues": []}
    check([q["workers"] for q in bo["rx_queues"]] == [[0, 1, 2, 3]] * 6,
          "RSS owner on two sockets: queue q to worker q")
    check(len(bo["warnings"]) == 6 and all("2 of its 4 RX queues go to the workers that own "
                                           "their flows on another socket" in w
                                           for w in bo["warnings"]),
          "one RSS owner warning per port: %r" % bo["warnings"][:2])

    # Workers on socket 0 only: the socket-1 ports are warned and dealt to
    # every worker; socket 1's pool has no worker share.
    rc, out, err = info("budget", "--config", cfg, "--workers", "2", "--no-rss-owner",
                        "--port-sockets", "0,0,0,1,1,1", "--worker-sockets", "0,0")
    b3 = json.loads(out) if rc == 0 else {"warnings": [], "sockets": [], "rx_queues": []}
    check(rc == 0, "workers on one socket exit 0 (%d, %s)" % (rc, err))
    check(len(b3["warnings"]) == 3 and all("socket 1, which has no worker" in w
                                           for w in b3["warnings"]),
          "one warning per socket-1 port: %r" % b3["warnings"])
    socks = {s["socket"]: s for s in b3["sockets"]}
    check(1 in socks and socks[1]["workers"] == 0 and socks[1]["parts"]["workers"] == 0
          and socks[1]["memory_bytes"]["lb_state"] == 0, "socket 1: ports only")
    check([q["workers"] for q in b3["rx_queues"]] ==
          [[(q + i) % 2 for q in range(2)] for i in range(6)], "fallback: (q + i) % 2")

    # --worker-sockets alone gives the worker count.
    rc, out, err = info("budget", "--config", cfg, "--worker-sockets", "0,0,1")
    check(rc == 0 and sum(s["workers"] for s in json.loads(out)["sockets"]) == 3,
          "--worker-sockets 0,0,1 alone: 3 workers (%d, %s)" % (rc, err))
    # Virtual devices: -1 / any are the main socket's.
    rc, out, err = info("budget", "--config", cfg, "--port-sockets", "any,-1,0,0,0,0")
    check(rc == 0 and len(json.loads(out)["sockets"]) == 1, "any is the main socket")
    # ECMP keeps no LB state.
    rc, out, err = info("budget", "--config", cfg, "--lb", "ecmp")
    e = json.loads(out)["lb_state"]
    check(e["mode"] is None and e["per_worker_bytes"] == 0 and e["shared_bytes"] == 0,
          "ECMP: no LB state %r" % e)
    # Bad maps exit 2.
    for args in (["--port-sockets", "0,1"], ["--worker-sockets", "0,1", "--workers", "1"],
                 ["--port-sockets", "0,0,0,x,0,0"], ["--main-socket", "99"],
                 ["--worker-sockets", "0,,1", "--workers", "3"]):
        rc, out, err = info("budget", "--config", cfg, *args)
        check(rc == 2 and err and out == "", "%r exits 2 with a message (%d)" % (args, rc))


def test_errors():
    print("3. errors")
    with tempfile.TemporaryDirectory(prefix="rocetor-info-") as d:
        bad = os.path.join(d, "bad.yaml")
        with open(bad, "w") as f:
            f.write("switch:\n  name: t\n  mbufs: 5\n")
        rc, out, err = info("budget", "--config", bad)
        check(rc == 2, "a bad config exits 2 (%d)" % rc)
        check(re.match(re.escape(bad) + r":3: switch\.mbufs: ", err) is not None,
              "FILE:LINE: KEY message: %r" % err)
        check(out == "", "nothing on stdout for a bad config")
    cfg = os.path.join(SRC, "conf", "demo-tor.yaml")
    for args in (["budget"], ["budget", "--config", cfg, "--workers", "0"],
                 ["budget", "--config", cfg, "--lb", "nonsense"],
                 ["budget", "--config", cfg, "--bogus"], ["nonsense"], []):
        rc, out, err = info(*args)
        check(rc == 2 and err, "%r exits 2 with a message (%d)" % (args, rc))
    rc, out, err = info("--help")
    check(rc == 0 and "rocetor-info budget" in out, "--help")


def test_docs_table():
    """doc/config.md's table of LB modes is the registry's, in id order."""
    print("4. doc/config.md's LB mode table against the registry")
    rc, out, err = info("modes")
    modes = json.loads(out)["modes"]
    doc = open(os.path.join(SRC, "doc", "config.md")).read()
    start = doc.find("<!-- lb-modes:")
    end = doc.find("<!-- end lb-modes -->")
    check(0 <= start < end, "doc/config.md has the lb-modes table")
    rows = [r for r in doc[start:end].splitlines() if r.startswith("| `")]
    got = [[c.strip() for c in r.strip("|").split("|")] for r in rows]
    check([g[0].strip("`") for g in got] == [m["name"] for m in modes],
          "table's modes, in id order: %s" % [g[0] for g in got])
    for g, m in zip(got, modes):
        check(g[1] == m["summary"], "%s: summary %r != %r" % (m["name"], g[1], m["summary"]))
        if m["implemented"]:
            want = "runs" if m["spine"] == "run" else "ECMP under its name"
            check(g[2] == want, "%s: on a spine %r, registry %s" % (m["name"], g[2], m["spine"]))
            check(g[3].startswith("yes") == m["holds"], "%s: holds %r" % (m["name"], g[3]))
        else:
            check(g[2].startswith("not implemented"), "%s: reserved" % m["name"])


def main():
    test_modes()
    test_docs_table()
    test_budget_vs_rocetor()
    test_errors()
    test_sockets()
    return checks.summary("info")


if __name__ == "__main__":
    sys.exit(main())

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
    check(names == ["ecmp", "conweave", "seqbalance", "caver", "spray"], "names %r" % names)
    check([m["id"] for m in modes] == list(range(len(modes))), "ids are the indexes")
    impl = [m["name"] for m in modes if m["implemented"]]
    check(impl == ["ecmp", "conweave", "seqbalance", "caver", "spray"], "implemented %r" % impl)
    check({m["name"]: m["spine"] for m in modes} ==
          {"ecmp": "run", "conweave": "ecmp", "seqbalance": "ecmp", "caver": "run",
           "spray": "ecmp"}, "spine behaviour")
    check([m["name"] for m in modes if m["holds"]] == ["conweave", "spray"],
          "conweave and spray hold")
    check([m["name"] for m in modes if m["flow_table"]] ==
          ["conweave", "seqbalance", "caver", "spray"], "the stateful modes have a flow table")
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
                         "data_room"}, "%s: keys %r" % (what, sorted(b)))
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
    return checks.summary("info")


if __name__ == "__main__":
    sys.exit(main())

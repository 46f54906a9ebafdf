#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The rocetor authors
"""Typos an operator makes first: a misspelt config key, a misspelt
switch.lb value and a misspelt --lb mode. Each exits 2 with one line that
names the file and line (for the config) and the nearest valid name; a
word far from every name gets no suggestion. rocetor-info --lb and the
runtime switch (/rocetor/lb/set) name the nearest mode too."""
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "pkt"))
import harness  # noqa: E402

ROCETOR = harness.ROCETOR
CONFIG = """switch: {name: typos, id: 9, lb: LB}
ports:
  - {port: 0, role: host}
  - {port: 1, role: fabric}
routes:
  - {prefix: "10.2.0.0/16", paths: [{port: 1, nexthop_mac: "02:00:00:00:bb:01"}]}
conweave:
  KEY: 300
"""
CFG = """switch = { name = "typos"; id = 9; };
ports = ( { port = 0; role = "host"; }, { port = 1; role = "fabric"; } );
routes = ( { prefix = "10.2.0.0/16"; port = 1; nexthop_mac = "02:00:00:00:bb:01"; } );
conweave = {
  thta_inactive_us = 300;
};
"""


def run(cfg, extra=()):
    cmd = [ROCETOR, "-l", "0", "--no-pci", "--no-huge", "-m", "1024",
           "--file-prefix", harness.eal_prefix("typo"), "--log-level", "lib.eal:error",
           "--vdev", "net_null0,size=64", "--vdev", "net_null1,size=64",
           "--", "--config", cfg, "--duration", "0.2"] + list(extra)
    return subprocess.run(cmd, capture_output=True, text=True, timeout=60)


def last_line(p):
    lines = [x for x in p.stderr.splitlines() if x.strip()]
    return lines[-1] if lines else ""


def main():
    t = harness.Checker("typos")
    work = tempfile.mkdtemp(prefix="rocetor-typos-")

    def write(name, text):
        path = os.path.join(work, name)
        with open(path, "w") as f:
            f.write(text)
        return path

    # A misspelt key of a mode's section: file:line: key: unknown key (did you mean ...?)
    y = write("key.yaml", CONFIG.replace("LB", "conweave").replace("KEY", "thta_inactive_us"))
    p = run(y)
    t.eq(p.returncode, 2, "(misspelt key) " + p.stderr[-300:])
    t.eq(last_line(p), "%s:8: conweave.thta_inactive_us: unknown key "
         "(did you mean theta_inactive_us?)" % y)
    c = write("key.cfg", CFG)
    p = run(c)
    t.eq(p.returncode, 2, "(misspelt key, libconfig) " + p.stderr[-300:])
    t.eq(last_line(p), "%s:5: conweave.thta_inactive_us: unknown key "
         "(did you mean theta_inactive_us?)" % c)
    # Far from every key: the plain message, no guess.
    y = write("far.yaml", CONFIG.replace("LB", "conweave").replace("KEY", "colour"))
    p = run(y)
    t.eq(p.returncode, 2, "(unknown key) " + p.stderr[-300:])
    t.eq(last_line(p), "%s:8: conweave.colour: unknown key" % y)
    # A misspelt switch.lb.
    y = write("lb.yaml", CONFIG.replace("LB", "conweav").replace("KEY", "theta_inactive_us"))
    p = run(y)
    t.eq(p.returncode, 2, "(switch.lb) " + p.stderr[-300:])
    t.check(last_line(p).startswith("%s:1: switch.lb: must be ecmp, conweave" % y) and
            last_line(p).endswith('got "conweav" (did you mean conweave?)'),
            "switch.lb message: " + last_line(p))
    # A misspelt --lb on a good config; a far one lists the modes only.
    good = write("good.yaml", CONFIG.replace("LB", "ecmp").replace("KEY", "theta_inactive_us"))
    p = run(good)
    t.eq(p.returncode, 0, "(the good config runs) " + p.stderr[-300:])
    p = run(good, ["--lb", "spary"])
    t.eq(p.returncode, 2, "(--lb spary) " + p.stderr[-300:])
    t.check(last_line(p).startswith('rocetor: --lb: unknown mode "spary", did you mean spray? ('
                                    "ecmp, conweave"), "--lb message: " + last_line(p))
    p = run(good, ["--lb", "random"])
    t.eq(p.returncode, 2, "(--lb random) " + p.stderr[-300:])
    t.check(last_line(p).startswith('rocetor: --lb: unknown mode "random" (ecmp, conweave'),
            "--lb far message: " + last_line(p))
    # rocetor-info --lb says the same.
    info = os.path.join(os.path.dirname(ROCETOR), "rocetor-info")
    if os.path.exists(info):
        p = subprocess.run([info, "budget", "--config", good, "--lb", "seqbalanse"],
                           capture_output=True, text=True, timeout=60)
        t.eq(p.returncode, 2, "(rocetor-info --lb) " + p.stderr[-300:])
        t.check(last_line(p).startswith('rocetor-info: --lb: unknown mode "seqbalanse", '
                                        "did you mean seqbalance? ("),
                "rocetor-info --lb message: " + last_line(p))
    # The runtime switch refuses a misspelt mode, naming the near one.
    prefix = harness.eal_prefix("typotel")
    cmd = [ROCETOR, "-l", "0", "--no-pci", "--no-huge", "-m", "1024", "--file-prefix", prefix,
           "--log-level", "lib.eal:error", "--vdev", "net_null0,size=64",
           "--vdev", "net_null1,size=64", "--", "--config", good, "--telemetry-rw"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    r, lb = {}, {}
    try:
        tel = harness.Telemetry(prefix)
        deadline = time.time() + 20
        while "ok" not in r and time.time() < deadline:
            r = tel.cmd("/rocetor/lb/set,conwave") or {}  # no reply until it forwards
            time.sleep(0.1)
        lb = tel.cmd("/rocetor/lb") or {}
        tel.close()
    finally:
        harness.interrupt(proc)
    t.eq(r.get("ok"), 0, "(lb/set,conwave refused) %r" % r)
    t.check(str(r.get("error", "")).startswith("unknown LB mode, did you mean conweave? ("),
            "lb/set error: %r" % r)
    t.eq(lb.get("mode"), "ecmp", "(mode unchanged)")
    t.eq(proc.returncode, 0, "(SIGINT exit)")
    harness.shutil.rmtree(work, ignore_errors=True)
    return t.done()


if __name__ == "__main__":
    sys.exit(main())

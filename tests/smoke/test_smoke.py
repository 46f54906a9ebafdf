#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The rocetor authors
"""Smoke: the command line (B2), exit codes, -h, bad configs exit 2 with
file:line:key, net_null run with --duration, telemetry queried while
running (dpdk-telemetry.py -f PREFIX), SIGINT exits 0, stats JSON valid."""
import json
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "pkt"))
import harness  # noqa: E402

ROCETOR = harness.ROCETOR
CONFIG = """
switch: {name: smoke, id: 9, idle_sleep_us: 50}
ports:
  - {port: 0, role: host}
  - {port: 1, role: fabric}
routes:
  - {prefix: "10.2.0.0/16", paths: [{port: 1, nexthop_mac: "02:00:00:00:bb:01"}]}
"""


def eal(prefix, vdevs=2):
    a = [ROCETOR, "-l", "0", "--no-pci", "--no-huge", "-m", "512", "--file-prefix", prefix,
         "--log-level", "lib.eal:error"]
    for i in range(vdevs):
        a += ["--vdev", "net_null%d,size=64" % i]
    return a


def main():
    t = harness.Checker("smoke")
    work = tempfile.mkdtemp(prefix="rocetor-smoke-")
    cfg = os.path.join(work, "s.yaml")
    with open(cfg, "w") as f:
        f.write(CONFIG)

    # -h: EAL usage first, then ours; exit 0.
    p = subprocess.run([ROCETOR, "-h"], capture_output=True, text=True, timeout=30)
    out = p.stdout + p.stderr
    t.eq(p.returncode, 0, "(-h exit)")
    t.check("--config FILE" in out and "EAL common options" in out, "-h text: " + out[:300])
    t.check(out.find("EAL common options") < out.find("rocetor options"),
            "app usage must follow EAL usage")

    # Bad arguments and bad configs: exit 2, one line naming the problem.
    p = subprocess.run(eal(harness.eal_prefix("s")) + ["--", "--bogus"], capture_output=True,
                       text=True, timeout=60)
    t.eq(p.returncode, 2, "(unknown option) " + p.stderr[-300:])
    p = subprocess.run(eal(harness.eal_prefix("s")) + ["--"], capture_output=True, text=True,
                       timeout=60)
    t.eq(p.returncode, 2, "(missing --config)")
    bad = os.path.join(work, "bad.yaml")
    with open(bad, "w") as f:
        f.write(CONFIG.replace("idle_sleep_us: 50", "idle_sleep_us: 50, colour: blue"))
    p = subprocess.run(eal(harness.eal_prefix("s")) + ["--", "--config", bad],
                       capture_output=True, text=True, timeout=60)
    t.eq(p.returncode, 2, "(unknown key)")
    t.check(("%s:2:" % bad) in p.stderr and "switch.colour" in p.stderr,
            "unknown key message: " + p.stderr[-300:])
    p = subprocess.run(eal(harness.eal_prefix("s"), vdevs=1) + ["--", "--config", cfg],
                       capture_output=True, text=True, timeout=60)
    t.eq(p.returncode, 2, "(port 1 missing from the EAL) " + p.stderr[-300:])
    t.check("ports[1].port" in p.stderr, "missing port message: " + p.stderr[-300:])
    p = subprocess.run(eal(harness.eal_prefix("s")) + ["--", "--config", cfg, "--lb", "nope"],
                       capture_output=True, text=True, timeout=60)
    t.eq(p.returncode, 2, "(bad --lb)")

    # --duration: runs, exits 0, stats JSON valid and accounted.
    sj = os.path.join(work, "d.json")
    start = time.time()
    p = subprocess.run(eal(harness.eal_prefix("s")) + ["--", "--config", cfg, "--duration",
                       "1.5", "--stats-json", sj], capture_output=True, text=True, timeout=60)
    t.eq(p.returncode, 0, "(--duration exit) " + p.stderr[-500:])
    t.check(time.time() - start >= 1.5, "--duration returned early")
    with open(sj) as f:
        s = json.load(f)
    for k in ("switch", "lb", "uptime_s", "ports", "drops", "lb", "held_packets"):
        t.check(k in s, "stats key %s" % k)
    for k in ("malformed", "no_route", "ttl", "queue_full", "host_lb_packet"):
        t.check(k in s["drops"], "drops.%s" % k)
    for k in ("reroutes", "rtt_requests", "rtt_replies", "tails", "clears", "notifies",
              "reorder_held", "reorder_flush_tail", "reorder_flush_timeout",
              "reorder_overflow", "reorder_queues_max"):
        t.check(k in s["lb"], "lb.%s" % k)
    rx = sum(x["rx_packets"] for x in s["ports"])
    t.check(rx > 1000, "net_null delivered %d packets" % rx)
    ok, why = harness.accounted(s)
    t.check(ok, "accounting: " + why)
    # The worker's CPU time: some, and not much more than the run (one
    # worker; on the main lcore, as here, its thread also did the start-up).
    cpu = s.get("worker_cpu_s")
    t.check(isinstance(cpu, float) and 0 < cpu <= s["uptime_s"] + 1.0,
            "worker_cpu_s %r, uptime_s %r" % (cpu, s["uptime_s"]))

    # Telemetry while running, then SIGINT -> exit 0.
    prefix = harness.eal_prefix("tel")
    sj2 = os.path.join(work, "t.json")
    proc = subprocess.Popen(eal(prefix) + ["--", "--config", cfg, "--stats-json", sj2],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    replies = {}
    try:
        deadline = time.time() + 20
        while time.time() < deadline and "/rocetor/egress" not in replies:
            time.sleep(0.5)
            # "/rocetor/egress,1" replies under "/rocetor/egress"
            replies.update(harness.telemetry(prefix, [
                "/rocetor/stats", "/rocetor/ports", "/rocetor/lb", "/rocetor/config",
                "/rocetor/egress,1", "/rocetor/lb/flows,4"]))
    finally:
        so, se = harness.interrupt(proc)
    t.eq(proc.returncode, 0, "(SIGINT exit) " + se[-500:])
    for cmd in ("/rocetor/stats", "/rocetor/ports", "/rocetor/lb", "/rocetor/config"):
        t.check(isinstance(replies.get(cmd), dict), "telemetry %s: %r" % (cmd, replies.get(cmd)))
    st = replies.get("/rocetor/stats") or {}
    t.eq(st.get("switch"), "smoke")
    t.check(isinstance(st.get("worker_cpu_us"), int) and st["worker_cpu_us"] > 0,
            "telemetry worker_cpu_us: %r" % st.get("worker_cpu_us"))
    t.check(isinstance(st.get("drops"), dict) and "malformed" in st.get("drops", {}),
            "telemetry drops: %r" % st.get("drops"))
    t.eq((replies.get("/rocetor/config") or {}).get("lb"), "ecmp")
    # In ECMP mode the per-flow dump answers with the mode and no flows.
    t.eq(replies.get("/rocetor/lb/flows"), {"mode": "ecmp"}, "(flows dump in ecmp mode)")
    t.check("0" in (replies.get("/rocetor/ports") or {}), "telemetry ports")
    eg = replies.get("/rocetor/egress") or {}
    t.eq(eg.get("port"), 1, "(telemetry egress port)")
    t.check(isinstance(eg.get("class7"), dict) and "ecn_marked" in eg["class7"]
            and "pfc_paused_ns" in eg["class7"], "telemetry egress classes: %r" % eg)
    t.check(isinstance(eg.get("pfc"), dict) and "rx_pfc" in eg["pfc"], "telemetry egress pfc")
    with open(sj2) as f:
        s2 = json.load(f)
    ok, why = harness.accounted(s2)
    t.check(ok, "accounting after SIGINT: " + why)
    t.check(s2["idle_sleeps"] >= 0)
    return t.done()


if __name__ == "__main__":
    sys.exit(main())

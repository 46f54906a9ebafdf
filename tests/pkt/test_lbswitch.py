#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The rocetor authors
"""The runtime LB switch (/rocetor/lb/set,MODE) and telemetry hardening.

- The telemetry socket is owner-only (0600, its directory 0700).
- Read-only by default: commands that change state are refused with a clear
  error and change nothing.
- With --telemetry-rw: unknown modes are refused (nothing changes); a ConWeave DstToR holding reordered packets switched to ECMP
  releases them at once, in PSN order, to the host port (not at their
  deadline), nothing stays held, every packet is accounted for; then the
  switch goes through every other mode (their config sections are absent:
  defaults) and port admin down/up, and exits cleanly with counters that
  kept accumulating.
- Telemetry commands arriving while rocetor exits do not crash it.
"""
import json
import os
import stat
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
import harness  # noqa: E402
import test_conweave as CW  # noqa: E402


def start(cfg_text, inputs, tag, args=()):
    """rocetor on net_pcap ports (inputs: frames per port), running until
    interrupted. Returns (proc, prefix, workdir)."""
    work = tempfile.mkdtemp(prefix="rocetor-%s-" % tag)
    cfg = os.path.join(work, "switch.yaml")
    with open(cfg, "w") as f:
        f.write(cfg_text)
    prefix = harness.eal_prefix(tag)
    cmd = [harness.ROCETOR, "-l", "0", "--no-pci", "--no-huge", "-m", "1024", "--file-prefix",
           prefix, "--log-level", "lib.eal:error"]
    for i, frames in enumerate(inputs):
        rx = os.path.join(work, "in%d.pcap" % i)
        harness.write_pcap(rx, frames)
        cmd += ["--vdev", "net_pcap%d,rx_pcap=%s,tx_pcap=%s" % (i, rx, os.path.join(work, "out%d.pcap" % i))]
    cmd += ["--", "--config", cfg, "--stats-json", os.path.join(work, "stats.json")] + list(args)
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    return proc, prefix, work


def finish(t, proc, work, what):
    """SIGINT, then the stats document (None if missing)."""
    so, se = harness.interrupt(proc)
    t.eq(proc.returncode, 0, "(%s: exit status) %s" % (what, se[-800:]))
    try:
        with open(os.path.join(work, "stats.json")) as f:
            return json.load(f), so
    except (OSError, ValueError) as e:
        t.check(False, "%s: no stats document: %s" % (what, e))
        return None, so


def held_sequence(sport=6000):
    """The DstToR of test_conweave's shutdown test: PSN 1-2 in phase 0, 4-7
    in phase 1 before the TAIL (3) that never comes: 4 packets held until
    a deadline ~60 ms away."""
    F = {p: CW.host_frame(p, sport=sport) for p in range(1, 8)}
    seq = [CW.arrive(F[1], epoch=1, ask=1, ts_tx=10), CW.arrive(F[2], epoch=1, ts_tx=11)]
    seq += [CW.arrive(F[p], epoch=1, phase=1, ts_tx=20 + p, ts_tail=29000) for p in (4, 5, 6, 7)]
    return seq


CFG = CW.dst_config(", resume_extra_us: 31000, theta_inactive_us: 31999")


def test_readonly(t):
    """Default: owner-only socket, rw commands refused, nothing changes."""
    proc, prefix, work = start(CFG, [[], [], [], [], []], "lbro")
    tel = None
    try:
        tel = harness.Telemetry(prefix)
        st = None
        for _ in range(500):
            st = tel.cmd("/rocetor/stats")
            if st:
                break
            time.sleep(0.01)
        sock = harness.telemetry_socket(prefix)
        t.eq(stat.S_IMODE(os.stat(sock).st_mode), 0o600, "(telemetry socket mode)")
        t.eq(stat.S_IMODE(os.stat(os.path.dirname(sock)).st_mode), 0o700, "(runtime dir mode)")
        r = tel.cmd("/rocetor/lb/set,ecmp") or {}
        t.eq(r.get("ok"), 0, "(lb/set refused when read-only) %r" % r)
        t.check("--telemetry-rw" in r.get("error", ""), "clear error: %r" % r)
        r = tel.cmd("/rocetor/port/admin,1,down") or {}
        t.eq(r.get("ok"), 0, "(port/admin refused when read-only) %r" % r)
        lb = tel.cmd("/rocetor/lb") or {}
        t.eq(lb.get("mode"), "conweave", "(mode unchanged)")
        t.eq(lb.get("lb_switches"), 0)
        ports = tel.cmd("/rocetor/ports") or {}
        t.eq((ports.get("1") or {}).get("link_up"), 1, "(port 1 still up)")
    finally:
        if tel:
            tel.close()
        s, so = finish(t, proc, work, "read-only")
    t.check("owner-only" in so and "read-only" in so, "hardening logged: " + so[-600:])
    if s:
        t.eq(s["lb_mode"], "conweave")
        t.eq(s["lb_switches"], 0)


def buckets_when(tel, cond, timeout=3.0):
    """/rocetor/lb/buckets,0 once cond holds (the control lcore updates the
    table just after the port's link_up), or the last answer."""
    deadline = time.time() + timeout
    while True:
        b = tel.cmd("/rocetor/lb/buckets,0") or {}
        if cond(b) or time.time() > deadline:
            return b
        time.sleep(0.02)


def held_switch_once(t, attempt):
    """Returns True when the switch landed while the packets were held."""
    seq = held_sequence()
    proc, prefix, work = start(CFG, [[], seq, [], [], []], "lbsw%d" % attempt, ["--telemetry-rw"])
    tel = None
    landed = False
    replies = {}
    try:
        tel = harness.Telemetry(prefix)
        deadline = time.time() + 20
        st = None
        while time.time() < deadline:
            st = tel.cmd("/rocetor/stats")
            # held_packets also counts frames in flight (rings, egress
            # queues) for a moment after they arrive: wait for the 4 held.
            if st and st.get("held_packets", 0) == 4:
                break
            time.sleep(0.0005)
        if not t.check(st and st.get("held_packets") == 4, "never saw 4 held: %r" % st):
            return True
        r = tel.cmd("/rocetor/lb/set,ecmp") or {}
        replies["ecmp"] = r
        t.eq(r.get("ok"), 1, "(switch to ecmp) %r" % r)
        landed = r.get("released") == 4
        if not landed:
            print("attempt %d: the hold deadline passed before the switch (released %r): "
                  "again" % (attempt, r.get("released")))
            return False
        t.eq(r.get("from"), "conweave")
        t.eq(r.get("mode"), "ecmp")
        st = tel.cmd("/rocetor/stats") or {}
        t.eq(st.get("lb_switches"), 1)
        t.eq(st.get("lb_switch_released"), 4)
        lb = tel.cmd("/rocetor/lb") or {}
        t.eq(lb.get("mode"), "ecmp", "(/rocetor/lb mode)")
        # Unknown modes change nothing.
        for bad in ("nonsense", ""):
            r = tel.cmd("/rocetor/lb/set,%s" % bad if bad else "/rocetor/lb/set") or {}
            t.eq(r.get("ok"), 0, "(lb/set,%s refused) %r" % (bad, r))
            t.check(r.get("error"), "an error message for %r" % bad)
        t.eq((tel.cmd("/rocetor/lb") or {}).get("mode"), "ecmp", "(still ecmp)")
        t.eq((tel.cmd("/rocetor/stats") or {}).get("lb_switches"), 1, "(no switch counted)")
        # The same mode: nothing to do.
        r = tel.cmd("/rocetor/lb/set,ecmp") or {}
        t.eq((r.get("ok"), r.get("released")), (1, 0), "(same mode) %r" % r)
        # Every other mode, config sections absent (defaults), and back.
        for m in ("seqbalance", "caver", "spray", "letflow", "drill", "conga", "conweave", "ecmp"):
            r = tel.cmd("/rocetor/lb/set,%s" % m) or {}
            t.eq((r.get("ok"), r.get("mode")), (1, m), "(switch to %s) %r" % (m, r))
        # A fault toggled at runtime: port admin down/up.
        r = tel.cmd("/rocetor/port/admin,2,down") or {}
        t.eq(r.get("ok"), 1, "(admin down) %r" % r)
        for _ in range(100):
            if ((tel.cmd("/rocetor/ports") or {}).get("2") or {}).get("link_up") == 0:
                break
            time.sleep(0.02)
        t.eq(((tel.cmd("/rocetor/ports") or {}).get("2") or {}).get("link_up"), 0, "(port 2 down)")
        # The group's resilient table (ALGORITHMS.md 1): port 2's buckets,
        # and only they, moved to the live paths, evenly.
        bk = buckets_when(tel, lambda b: b.get("moved", 0) > 0)
        n, nb, cnt = len(bk.get("buckets", [])), bk.get("n_buckets", 0), bk.get("buckets", [])
        dead = [i for i in range(n) if not (bk.get("live_mask", 0) >> i) & 1]
        t.eq(len(dead), 1, "(one path of group 0 down) %r" % bk)
        if n > 1 and len(dead) == 1:
            t.eq(bk["moved"], nb // n, "(buckets off home = those of the down path) %r" % bk)
            t.eq(cnt[dead[0]], 0, "(none left on the down path) %r" % bk)
            live = [c for i, c in enumerate(cnt) if i != dead[0]]
            t.check(max(live) - min(live) <= 1 and sum(cnt) == nb,
                    "live paths' buckets within one of each other: %r" % bk)
        r = tel.cmd("/rocetor/port/admin,2,up") or {}
        t.eq(r.get("ok"), 1)
        for _ in range(100):
            if ((tel.cmd("/rocetor/ports") or {}).get("2") or {}).get("link_up") == 1:
                break
            time.sleep(0.02)
        t.eq(((tel.cmd("/rocetor/ports") or {}).get("2") or {}).get("link_up"), 1, "(port 2 up)")
        bk = buckets_when(tel, lambda b: b.get("moved") == 0)
        t.eq((bk.get("moved"), bk.get("buckets")), (0, [nb // max(n, 1)] * n),
             "(every bucket home once port 2 is back) %r" % bk)
        t.eq((tel.cmd("/rocetor/lb/buckets,99") or {}).get("group"), None, "(no group 99)")
        r = tel.cmd("/rocetor/port/admin,9,down") or {}
        t.eq(r.get("ok"), 0, "(unknown port refused)")
    finally:
        if tel:
            tel.close()
        s, so = finish(t, proc, work, "held switch")
    if not landed or s is None:
        return True
    out = harness.read_pcap(os.path.join(work, "out0.pcap"))
    t.eq([CW.psn_of(f) for f in out], [1, 2, 4, 5, 6, 7], "(released by the switch, in order)")
    sent = {CW.psn_of(f): CW.host_frame(CW.psn_of(f), sport=6000) for f in out}
    t.check(all(CW.same_as_sent(f, sent[CW.psn_of(f)]) for f in out),
            "released packets leave as the host sent them (ConWeave header removed)")
    lb = s["lb"]
    t.eq(lb["reorder_held"], 4)
    t.eq(lb["reorder_flush_timeout"], 0, "(the switch released them, not the deadline)")
    t.eq(lb["reorder_queues_in_use"], 0)
    t.eq(s["lb_mode"], "ecmp")
    t.eq(s["lb_switches"], 9,
         "(ecmp, then seqbalance, caver, spray, letflow, drill, conga, conweave, ecmp)")
    t.eq(s["lb_switch_released"], 4)
    t.eq(s["held_packets"], 0)
    ok, why = harness.accounted(s)
    t.check(ok, "accounting: " + why)
    t.check("LB mode switched from conweave to ecmp" in so, "switch logged: " + so[-800:])
    return True


def test_held_switch(t):
    for attempt in range(4):
        if held_switch_once(t, attempt):
            return
    t.check(False, "the switch never landed within the hold window (4 attempts)")


def test_exit_under_telemetry(t):
    """Commands keep coming while rocetor exits (--duration): the exit frees
    what they read, so they must answer null from then on, not crash."""
    proc, prefix, work = start(CFG, [[], held_sequence(), [], [], []], "lbex",
                               ["--duration", "1.5", "--telemetry-rw"])
    n = 0
    try:
        tel = harness.Telemetry(prefix)
        while proc.poll() is None:
            for c in ("/rocetor/stats", "/rocetor/lb/flows,64", "/rocetor/lb", "/rocetor/ports"):
                tel.cmd(c)
                n += 1
    except (OSError, ValueError):
        pass
    so, se = proc.communicate(timeout=60)
    t.eq(proc.returncode, 0, "(exit with telemetry busy, %d commands) %s" % (n, se[-800:]))
    t.check(n > 10, "commands answered: %d" % n)


def main():
    t = harness.Checker("pkt-lbswitch")
    test_readonly(t)
    test_held_switch(t)
    test_exit_under_telemetry(t)
    return t.done()


if __name__ == "__main__":
    sys.exit(main())

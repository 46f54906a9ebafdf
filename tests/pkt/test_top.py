#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The rocetor authors
"""tools/rocetor-top against a rocetor that forwards without end
(livesw.py): --once prints a frame whose rates are rates (near the rate the
test measures itself, far below the totals); in tmux (a 120x40 terminal)
the screen shows the mode and every port with non-zero Mpps, p pauses and
resumes, a tiny window does not kill it, a rocetor that goes away shows
"disconnected, retrying" and a new one on the same prefix is picked up, and
q ends it with status 0. The gauges it shows as values are those rocetor
serves as gauges (/rocetor/counters), the "(gauge" ones of the lib/lb
headers, and the gauges it shows per mode are among them.
Skipped (exit 77, "skipped: no tmux") without tmux."""
import importlib.machinery
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
import livesw  # noqa: E402

TOP = os.path.join(harness.SRC_ROOT, "tools", "rocetor-top")
PY = "/usr/bin/python3"
# A port row: port, role, link, RX Mpps, RX Gb/s, TX Mpps, TX Gb/s, drops/s.
ROW = re.compile(r"^\s*(\d+) (host|fabric)\s+(up|down)\s+([-\d.]+)\s+([-\d.]+)\s+([-\d.]+)"
                 r"\s+([-\d.]+)\s+(\S+)\s*$")


def load_tool(path, name):
    """A tool without a .py suffix, imported as a module."""
    loader = importlib.machinery.SourceFileLoader(name, path)
    spec = importlib.util.spec_from_loader(name, loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


def header_counters():
    """{name: help} of the LB counters in lib/lb/*/rtr_*_counters.h."""
    found = {}
    for root, _, files in os.walk(os.path.join(harness.SRC_ROOT, "lib", "lb")):
        for fn in files:
            if fn.endswith("_counters.h"):
                with open(os.path.join(root, fn)) as f:
                    text = re.sub(r'"\s*\\\n\s*"', "", f.read())  # joined string literals
                    for m in re.finditer(r"X\((\w+),\s*\\?\s*\"([^\"]*)\"\)", text):
                        found[m.group(1)] = m.group(2)
    return found


def header_gauges():
    """The LB counters whose help text in lib/lb/*/rtr_*_counters.h says
    (gauge...)."""
    return {name for name, text in header_counters().items() if "(gauge" in text}


def rows(screen):
    """{port: (role, link, rx_mpps, rx_gbps, tx_mpps, tx_gbps, drops)} of
    the port rows on a screen."""
    out = {}
    for line in screen.splitlines():
        m = ROW.match(line)
        if m:
            vals = [None if v == "-" else float(v) for v in m.group(4, 5, 6, 7)]
            out[int(m.group(1))] = (m.group(2), m.group(3), *vals, m.group(8))
    return out


def section(screen, title):
    """The lines under a title line up to the next blank line or title."""
    lines = screen.splitlines()
    for i, line in enumerate(lines):
        if line.startswith(title):
            body = []
            for line2 in lines[i + 1:]:
                if not line2.startswith("  "):
                    break
                body.append(line2)
            return body
    return None


def measured_rx_rate(prefix, secs=1.0):
    """Port 0's RX packets per second, measured by the test itself."""
    tel = harness.Telemetry(prefix)
    try:
        a = tel.cmd("/rocetor/ports")["0"]["rx_packets"]
        t0 = time.monotonic()
        time.sleep(secs)
        b = tel.cmd("/rocetor/ports")["0"]["rx_packets"]
        return (b - a) / (time.monotonic() - t0), b
    finally:
        tel.close()


class Tmux:
    """A tmux server of our own (its own socket, no user config); only it is
    ever killed."""

    def __init__(self, work):
        self.base = ["tmux", "-S", os.path.join(work, "tmux.sock"), "-f", "/dev/null"]

    def run(self, *args, check=True):
        return subprocess.run(self.base + list(args), capture_output=True, text=True,
                              check=check, timeout=20)

    def screen(self):
        return self.run("capture-pane", "-p", "-t", "top").stdout

    def pane(self):
        """(dead, pid) of the pane."""
        f = self.run("display-message", "-p", "-t", "top",
                     "#{pane_dead}:#{pane_pid}").stdout.strip().split(":")
        return (f[0] == "1", int(f[1]))

    def wait(self, pred, timeout=15):
        """The first screen pred() accepts, or the last one seen (falsy
        pred) after timeout seconds."""
        end = time.time() + timeout
        s = ""
        while time.time() < end:
            s = self.screen()
            if pred(s):
                return s
            time.sleep(0.2)
        return s

    def kill(self):
        self.run("kill-server", check=False)


def test_once(t, sw, gauges):
    """--once: one frame over 1 s; the rates are per second."""
    # Let the totals grow to several seconds' worth first, so a total shown
    # in place of a rate cannot pass for one.
    tel = harness.Telemetry(sw.prefix)
    while tel.cmd("/rocetor/stats")["uptime_ms"] < 3000:
        time.sleep(0.2)
    tel.close()
    rate, total = measured_rx_rate(sw.prefix)
    p = subprocess.run([PY, TOP, "-f", sw.prefix, "--once", "-d", "1", "--width", "100"],
                       capture_output=True, text=True, timeout=60)
    t.eq(p.returncode, 0, "--once exit status: " + p.stderr)
    r = rows(p.stdout)
    t.eq(sorted(r), [0, 1, 2], "--once port rows:\n" + p.stdout)
    if 0 in r and r[0][2] is not None:
        mpps = r[0][2]
        # Within a factor of 4 of the rate the test measured (a shared
        # machine), and a rate, not a total: the total is many seconds' worth.
        t.check(rate / 4 <= mpps * 1e6 <= rate * 4,
                "--once RX Mpps %.3f vs measured %.3f" % (mpps, rate / 1e6))
        t.check(mpps * 1e6 < total / 2, "RX Mpps %.3f looks like a total (%d)" % (mpps, total))
        tx = (r[1][4] or 0) + (r[2][4] or 0)
        t.check(tx > 0, "uplinks' TX Mpps %r" % tx)
    t.check("mode conweave" in p.stdout.splitlines()[0], "--once header: " + p.stdout[:200])
    drops = section(p.stdout, "drops/s by reason") or []
    t.check(any(line.split()[0] == "no_route" for line in drops if line.split()),
            "no_route among the drops/s: %r" % drops)
    moving = section(p.stdout, "LB conweave, per second") or []
    names = [line.split()[i] for line in moving for i in range(0, len(line.split()), 2)]
    t.check("cw_packets" in names, "cw_packets among the LB rates: %r" % moving)
    t.check(not any(g in names for g in gauges), "a gauge among the LB rates: %r" % moving)
    now = section(p.stdout, "LB conweave, now") or []
    t.check(any("reorder_queues_in_use" in line for line in now),
            "reorder_queues_in_use shown as a value: %r" % now)
    # No rocetor: status 1 and a message, no traceback.
    q = subprocess.run([PY, TOP, "-f", sw.prefix + "_none", "--once", "-d", "0.2"],
                       capture_output=True, text=True, timeout=30)
    t.eq(q.returncode, 1, "--once without rocetor")
    t.check(q.stderr.startswith("rocetor-top: ") and "Traceback" not in q.stderr,
            "--once without rocetor: " + q.stderr)


def test_tmux(t, sw, work):
    tm = Tmux(work)
    try:
        # The pane's shell writes rocetor-top's exit status to a file: tmux
        # 3.3a sometimes leaves a pane's exited process unreaped for seconds
        # (pane_dead set, pane_dead_status empty, the process a zombie).
        status_file = os.path.join(work, "top.status")
        tm.run("new-session", "-d", "-s", "top", "-x", "120", "-y", "40",
               "%s %s -f %s -d 0.5; echo $? > %s" % (PY, TOP, sw.prefix, status_file))
        tm.run("set-option", "-w", "-t", "top", "remain-on-exit", "on")
        # Rates need two readings: wait for the port rows with figures.
        s = tm.wait(lambda s: all(r[2] is not None for r in rows(s).values()) and len(rows(s)) == 3)
        r = rows(s)
        t.eq(sorted(r), [0, 1, 2], "port rows on screen:\n" + s)
        t.check(0 in r and (r[0][2] or 0) > 0, "port 0 RX Mpps > 0:\n" + s)
        t.check(1 in r and 2 in r and (r[1][4] or 0) + (r[2][4] or 0) > 0,
                "uplinks' TX Mpps > 0:\n" + s)
        t.check(all(v[1] == "up" for v in r.values()), "links up:\n" + s)
        t.check("mode conweave" in s, "mode on screen:\n" + s)
        t.check(re.search(r" \d\d:\d\d:\d\d$", s.splitlines()[0]) is not None,
                "the header's clock whole at the right edge:\n" + s)
        t.check("q quit" in s, "key help on screen")
        # p pauses: the frame freezes (the clock and the rates); p resumes.
        tm.run("send-keys", "-t", "top", "p")
        s1 = tm.wait(lambda s: "PAUSED" in s)
        t.check("PAUSED" in s1, "p pauses:\n" + s1)
        time.sleep(1.6)
        s2 = tm.screen()
        t.eq(s2, s1, "the paused screen stays as it was")
        tm.run("send-keys", "-t", "top", "p")
        s3 = tm.wait(lambda s: "PAUSED" not in s and s != s1)
        t.check("PAUSED" not in s3 and rows(s3), "p resumes:\n" + s3)
        # A tiny window: no crash, the first line clipped.
        for x, y in ((30, 6), (8, 2), (1, 1)):
            tm.run("resize-window", "-t", "top", "-x", str(x), "-y", str(y))
            time.sleep(1.2)
            t.check(not tm.pane()[0], "alive in a %dx%d window" % (x, y))
        tm.run("resize-window", "-t", "top", "-x", "120", "-y", "40")
        s = tm.wait(lambda s: len(rows(s)) == 3)
        t.eq(len(rows(s)), 3, "port rows back at 120x40:\n" + s)
        # rocetor goes away: a message, and the same prefix's next rocetor
        # is read again.
        t.eq(sw.stop(), 0, "rocetor's exit status")
        s = tm.wait(lambda s: "disconnected, retrying" in s)
        t.check("disconnected, retrying" in s, "rocetor gone:\n" + s)
        t.check(not tm.pane()[0], "rocetor-top alive without rocetor")
        sw2 = livesw.Switch(work, "top2", prefix=sw.prefix, lb="ecmp", name="top2")
        try:
            t.check(sw2.wait_forwarding(), "a second rocetor on the same prefix")
            s = tm.wait(lambda s: "mode ecmp" in s and len(rows(s)) == 3 and
                        (rows(s)[0][2] or 0) > 0)
            t.check("mode ecmp" in s and "disconnected" not in s,
                    "the new rocetor (ecmp) read:\n" + s)
            t.check(len(rows(s)) == 3 and (rows(s)[0][2] or 0) > 0,
                    "its port 0 RX Mpps > 0:\n" + s)
        finally:
            t.eq(sw2.stop(), 0, "second rocetor's exit status")
        # q quits, status 0.
        tm.run("send-keys", "-t", "top", "q")
        end = time.time() + 10
        while time.time() < end and not (tm.pane()[0] and os.path.exists(status_file)):
            time.sleep(0.1)
        t.check(tm.pane()[0], "q ends rocetor-top (and the pane)")
        status = None
        if os.path.exists(status_file):
            with open(status_file) as f:
                status = f.read().strip()
        t.eq(status, "0", "rocetor-top's exit status after q:\n" + tm.screen())
    finally:
        tm.kill()


def main():
    if shutil.which("tmux") is None:
        print("top: skipped: no tmux")
        return 77
    t = harness.Checker("top")
    top = load_tool(TOP, "rocetor_top")
    gauges = header_gauges()
    t.check(set(g for m in top.MODE_GAUGES.values() for g in m) <= gauges,
            "rocetor-top's gauges per mode not all gauges of the lib/lb headers")
    t.check(os.access(TOP, os.X_OK), "tools/rocetor-top is executable")
    work = tempfile.mkdtemp(prefix="rocetor-top-")
    sw = livesw.Switch(work, "top")
    try:
        if t.check(sw.wait_forwarding(), "rocetor forwarding:\n" + sw.output()):
            test_once(t, sw, gauges)
            test_tmux(t, sw, work)
    finally:
        if sw.proc.alive():
            sw.stop()
        shutil.rmtree(work, ignore_errors=True)
    return t.done()


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The rocetor authors
"""Run one test of the sanitizer build (meson's exe_wrapper there).

ASan, LSan and UBSan write their reports to files in a fresh directory
(log_path), not to stderr: a test that spawns rocetor and only looks at its
exit status or at one line of its stderr would otherwise miss a report, or
take a report for its own output. After the test, every report found is
printed to stderr and the test fails (exit status 1), whatever it returned.
Processes the test started inherit the environment, so their reports land
in the same directory (rocetor children included; a test that builds its
own environment must start from os.environ).

usage: run.py COMMAND [ARG...]
"""
import os
import signal
import subprocess
import sys
import tempfile


def main():
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    logdir = tempfile.mkdtemp(prefix="rocetor-san-")
    env = dict(os.environ)
    for var, name in (("ASAN_OPTIONS", "asan"), ("UBSAN_OPTIONS", "ubsan")):
        opts = env.get(var, "")
        env[var] = (opts + ":" if opts else "") + "log_path=" + os.path.join(logdir, name)
    proc = subprocess.Popen(sys.argv[1:], env=env)

    # meson stops a test that runs out of time with SIGTERM: pass it on.
    def forward(signum, _frame):
        proc.send_signal(signum)
    signal.signal(signal.SIGTERM, forward)
    signal.signal(signal.SIGINT, forward)
    rc = proc.wait()

    reports = sorted(os.listdir(logdir))
    for name in reports:
        path = os.path.join(logdir, name)
        with open(path, errors="replace") as f:
            text = f.read()
        print("=== sanitizer report %s ===\n%s" % (name, text), file=sys.stderr)
        os.unlink(path)
    os.rmdir(logdir)
    if reports:
        print("sanitizer: %d report(s): test FAILED (its own exit status was %d)"
              % (len(reports), rc), file=sys.stderr)
        return 1
    if rc < 0:  # killed by a signal: report it as a shell would
        return 128 - rc
    return rc


if __name__ == "__main__":
    sys.exit(main())

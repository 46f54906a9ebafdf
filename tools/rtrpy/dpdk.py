# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The rocetor authors
"""Running DPDK processes (rocetor, dpdk-testpmd) from Python.

Every process gets its own EAL --file-prefix, so that processes of
different tests, benchmarks and users never share a runtime directory or
hugepage files; a process is stopped only by its own PID, never by name
(the machine is shared)."""

import atexit
import os
import shutil
import signal
import subprocess
import sys
import threading
import time

_seq = [0]


_given = []


def file_prefix(tag, base="rtr"):
    """A --file-prefix unique on this machine: BASE_TAG_PID_N. Its runtime
    directory is removed when this Python process exits (_drop_given)."""
    _seq[0] += 1
    prefix = "%s_%s_%d_%d" % (base, tag, os.getpid(), _seq[0])
    _given.append(prefix)
    return prefix


def _drop_given():
    """The EAL leaves each process's runtime directory behind (about 12 MB
    for rocetor with -m 1024: the memory segment lists), and /var/run is
    on disk on some machines: one run of the suite left 1.4 GB, and
    leftovers of many filled a disk. The processes of this program have
    exited by now (the tests stop them by PID), so remove them all."""
    for prefix in _given:
        shutil.rmtree(runtime_dir(prefix), ignore_errors=True)


atexit.register(_drop_given)


def runtime_dir(prefix):
    """The EAL's runtime directory of --file-prefix PREFIX."""
    base = "/var/run/dpdk" if os.geteuid() == 0 else os.path.join(
        os.environ.get("XDG_RUNTIME_DIR", "/tmp"), "dpdk")
    return os.path.join(base, prefix)


def drop_runtime_dir(prefix):
    """The EAL leaves its runtime directory (about 2 MB) behind; remove it
    once the process has exited."""
    shutil.rmtree(runtime_dir(prefix), ignore_errors=True)


def interrupt(proc, timeout=30):
    """SIGINT to our own child (a subprocess.Popen), wait (SIGKILL after
    timeout); returns (stdout, stderr). proc.returncode is then set."""
    proc.send_signal(signal.SIGINT)
    try:
        return proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        return proc.communicate()


class Proc:
    """A child process whose stdout/stderr are read by threads (line by
    line, with the time each line arrived). Stopped only by its own PID.
    `who` names the caller in the warnings it prints."""

    def __init__(self, cmd, env=None, who="rtrpy"):
        self.cmd = cmd
        self.who = who
        self.t0 = time.time()
        self.p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, env=env, text=True,
                                  errors="replace", bufsize=1)
        self.pid = self.p.pid
        self.out = []
        self.err = []
        self.lock = threading.Lock()
        self.threads = [threading.Thread(target=self._read, args=(self.p.stdout, self.out),
                                         daemon=True),
                        threading.Thread(target=self._read, args=(self.p.stderr, self.err),
                                         daemon=True)]
        for t in self.threads:
            t.start()

    def _read(self, stream, into):
        for line in stream:
            with self.lock:
                into.append((time.time(), line))

    def _warn(self, msg):
        print("%s: %s" % (self.who, msg), file=sys.stderr, flush=True)

    @property
    def returncode(self):
        return self.p.returncode

    def lines(self, which="out"):
        with self.lock:
            return [l for _, l in (self.out if which == "out" else self.err)]

    def text(self, which="out"):
        return "".join(self.lines(which))

    def alive(self):
        return self.p.poll() is None

    def wait_for(self, pred, timeout):
        """Poll pred() every 50 ms until it is true (True), the process
        exits (pred() once more) or `timeout` seconds pass (False)."""
        end = time.time() + timeout
        while time.time() < end:
            if pred():
                return True
            if not self.alive():
                return pred()
            time.sleep(0.05)
        return False

    def stop(self, sig=signal.SIGINT, grace=20.0):
        """SIGINT (clean exit), then SIGKILL after `grace` seconds."""
        if self.alive():
            try:
                os.kill(self.pid, sig)
            except ProcessLookupError:
                pass
        try:
            self.p.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            self._warn("pid %d did not exit %.0f s after signal %d: SIGKILL" %
                       (self.pid, grace, sig))
            try:
                os.kill(self.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            self.p.wait()
        self.join()
        return self.p.returncode

    def wait(self, timeout, grace=20.0):
        """The exit status; None if the process was still running after
        `timeout` seconds (it is stopped then, as stop() does)."""
        try:
            self.p.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self._warn("pid %d still running after %.0f s: stopping it" % (self.pid, timeout))
            self.stop(grace=grace)
            return None
        self.join()
        return self.p.returncode

    def join(self):
        for t in self.threads:
            t.join(timeout=5)

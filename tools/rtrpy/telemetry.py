# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The rocetor authors
"""A running rocetor's telemetry socket (DPDK telemetry v2): the one client
of the soak, the packet tests, the benchmark, rocetor-top and
rocetor-exporter, and the one rule for where the socket is."""

import json
import os
import socket
import time

__all__ = ["socket_path", "telemetry_socket", "Telemetry", "counter_family", "counter_families"]


def socket_path(prefix):
    """The telemetry socket of the rocetor started with EAL --file-prefix
    PREFIX: in the EAL's runtime directory, /var/run/dpdk/PREFIX as root,
    $XDG_RUNTIME_DIR/dpdk/PREFIX (else /tmp/dpdk/PREFIX) otherwise."""
    base = "/var/run/dpdk" if os.geteuid() == 0 else os.path.join(
        os.environ.get("XDG_RUNTIME_DIR", "/tmp"), "dpdk")
    return os.path.join(base, prefix, "dpdk_telemetry.v2")


# The name the tests know it by.
telemetry_socket = socket_path


class Telemetry:
    """A connection to a rocetor's telemetry socket kept open between
    commands (dpdk-telemetry.py starts a python per call: too slow when a
    command must land within milliseconds). One JSON reply per command,
    one SOCK_SEQPACKET message each.

    Telemetry(prefix, timeout) waits up to timeout seconds for the socket
    to appear (a rocetor starting); Telemetry(path=P, timeout=T, wait=False)
    connects once and gives every receive T seconds (the live tools)."""

    def __init__(self, prefix=None, timeout=20, path=None, wait=True):
        self.path = path or socket_path(prefix)
        deadline = time.time() + timeout
        while True:
            self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
            try:
                if not wait:
                    self.sock.settimeout(timeout)
                self.sock.connect(self.path)
                self.info = json.loads(self.sock.recv(1 << 16).decode())
                break
            except (OSError, ValueError):
                self.sock.close()
                if not wait or time.time() > deadline:
                    raise
                time.sleep(0.01)
        self.max_len = self.info.get("max_output_len", 16384)

    def cmd(self, command):
        """The reply's value ({"/a": value}), None when the command failed."""
        self.sock.send(command.encode())
        reply = json.loads(self.sock.recv(self.max_len + 1).decode())
        return next(iter(reply.values())) if reply else None

    def rocetor(self, command):
        """The reply of a /rocetor/ command, which must be an object:
        ConnectionError when the socket closed or the answer is not one
        (not a rocetor, or one that is stopping)."""
        self.sock.send(command.encode())
        data = self.sock.recv(self.max_len + 1)
        if not data:
            raise ConnectionError("telemetry socket closed")
        reply = json.loads(data.decode())
        value = next(iter(reply.values())) if reply else None
        if not isinstance(value, dict):
            raise ConnectionError("%s: no answer (not a rocetor?)" % command)
        return value

    def close(self):
        self.sock.close()


def counter_family(tel, family):
    """{name: (type, help)} of one family of /rocetor/counters."""
    d = tel.rocetor("/rocetor/counters," + family)
    return {name: (d["type"][name], d["help"][name]) for name in d["help"]}


def counter_families(tel):
    """What /rocetor/counters serves (doc/user-guide.md, "Telemetry"):
    ({family: help}, {family: {name: (type, help)}}) for every counter
    family, names in rocetor's order, type "counter" or "gauge"."""
    top = tel.rocetor("/rocetor/counters")
    out = {}
    for family in top["families"]:
        out[family] = counter_family(tel, family)
    return top["help"], out

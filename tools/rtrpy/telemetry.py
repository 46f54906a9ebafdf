# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The rocetor authors
"""A running rocetor's telemetry socket (DPDK telemetry v2), for the soak
and the packet tests."""

import json
import socket
import time


def telemetry_socket(prefix):
    """The path of a running rocetor's telemetry socket (run as root)."""
    return "/var/run/dpdk/%s/dpdk_telemetry.v2" % prefix


class Telemetry:
    """A connection to a rocetor's telemetry socket kept open between
    commands (dpdk-telemetry.py starts a python per call: too slow when a
    command must land within milliseconds)."""

    def __init__(self, prefix, timeout=20):
        path = telemetry_socket(prefix)
        deadline = time.time() + timeout
        while True:
            try:
                self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
                self.sock.connect(path)
                break
            except OSError:
                self.sock.close()
                if time.time() > deadline:
                    raise
                time.sleep(0.01)
        self.info = json.loads(self.sock.recv(1 << 16).decode())
        self.max_len = self.info.get("max_output_len", 16384)

    def cmd(self, command):
        """The reply's value ({"/a": value}), None when the command failed."""
        self.sock.send(command.encode())
        reply = json.loads(self.sock.recv(self.max_len + 1).decode())
        return next(iter(reply.values())) if reply else None

    def close(self):
        self.sock.close()

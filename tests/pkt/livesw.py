# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The rocetor authors
"""A rocetor that forwards until stopped, for the tests of the tools that
watch a running switch (rocetor-top, rocetor-exporter).

Port 0 (host) replays a rocegen pcap forever (net_pcap infinite_rx); the
data goes up over two net_null uplinks (ports 1 and 2), and the ACKs,
addressed to the senders' own network that no route covers, are dropped as
no_route: every refresh sees packets received, sent and dropped."""
import os
import subprocess
import sys
import time

import harness
from rtrpy import dpdk

CONFIG = """
switch: {name: %(name)s, id: 1, lb: %(lb)s}
ports:
  - {port: 0, role: host, l2_filter: false}
  - {port: 1, role: fabric, mac: "02:00:00:00:01:01"}
  - {port: 2, role: fabric, mac: "02:00:00:00:01:02"}
routes:
  - prefix: "10.2.0.0/24"
    paths: [{port: 1, nexthop_mac: "02:00:00:00:bb:01"},
            {port: 2, nexthop_mac: "02:00:00:00:bb:02"}]
"""


def traffic(work):
    """16 flows of 100 data packets (10.1.0.x -> 10.2.0.x) with an ACK every
    4 packets; the pcap's path."""
    path = os.path.join(work, "host.pcap")
    subprocess.run([sys.executable, os.path.join(harness.SRC_ROOT, "tools", "rocegen.py"),
                    "-o", path, "--flows", "16", "--packets", "100", "--acks", "4",
                    "--seed", "20"], check=True, capture_output=True)
    return path


class Switch:
    """rocetor forwarding the pcap in a loop, at a lower priority (the
    machine is shared); stopped by its PID. --duration bounds its life
    should the test die without stopping it."""

    def __init__(self, work, tag, lb="conweave", name="top1", prefix=None, duration=300):
        self.work = work
        self.prefix = prefix or harness.eal_prefix(tag)
        cfg = os.path.join(work, "%s.yaml" % tag)
        with open(cfg, "w") as f:
            f.write(CONFIG % {"name": name, "lb": lb})
        pcap = os.path.join(work, "host.pcap")
        if not os.path.exists(pcap):
            traffic(work)
        self.cmd = ["nice", "-n", "5", harness.ROCETOR, "-l", "0", "--no-pci", "--no-huge",
                    "-m", "1024", "--file-prefix", self.prefix, "--log-level", "lib.eal:error",
                    "--vdev", "net_pcap0,rx_pcap=%s,infinite_rx=1,tx_pcap=/dev/null" % pcap,
                    "--vdev", "net_null1,no-rx=1", "--vdev", "net_null2,no-rx=1",
                    "--", "--config", cfg, "--duration", str(duration)]
        self.proc = dpdk.Proc(self.cmd, who=tag)

    def wait_forwarding(self, timeout=60):
        """True once telemetry answers and port 0 has received packets."""
        end = time.time() + timeout
        tel = None
        try:
            while time.time() < end and self.proc.alive():
                try:
                    if tel is None:
                        tel = harness.Telemetry(self.prefix, timeout=1)
                    ports = tel.cmd("/rocetor/ports")
                    if ports and ports["0"]["rx_packets"] > 0:
                        return True
                except (OSError, ValueError, KeyError):
                    if tel is not None:
                        tel.close()
                    tel = None
                time.sleep(0.2)
            return False
        finally:
            if tel is not None:
                tel.close()

    def stop(self):
        """SIGINT, wait; the exit status."""
        return self.proc.stop()

    def output(self):
        return self.proc.text("out") + self.proc.text("err")

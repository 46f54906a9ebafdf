# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The rocetor authors
"""The replayed traffic: benchgen pcaps, generated once and cached."""

import json
import os
import subprocess
import sys
import time

from .common import fmt_count, log
from .config import RX_PORT


class Traffic:
    def __init__(self, args):
        self.benchgen = args.benchgen
        self.dir = args.traffic_dir
        self.packets = args.packets
        self.src_packets = args.src_packets
        self.cache = {}

    def get(self, role, size, flows, queues=1):
        base, _, stamp = role.partition("-")
        if base == "spine":  # a spine between the leaves sees the DstToR's frames
            role = "dst-" + stamp
        key = (role, size, flows, queues)
        if key in self.cache:
            return self.cache[key]
        os.makedirs(self.dir, exist_ok=True)
        prefix = os.path.join(self.dir, "%s-%d-%s%s" % (role, size, fmt_count(flows),
                                                        "-q%d" % queues if queues > 1 else ""))
        cmd = [sys.executable, self.benchgen, "--role", base, "--flows", str(flows),
               "--size", str(size), "--out", prefix]
        if stamp:
            cmd += ["--stamp", stamp]
        if queues > 1:
            cmd += ["--queues", str(queues)]
        packets = self.src_packets if role == "src" and self.src_packets else self.packets
        if packets:
            cmd += ["--packets", str(packets)]
        t0 = time.time()
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            raise RuntimeError("benchgen failed (%s): %s" % (" ".join(cmd),
                                                              (r.stdout + r.stderr)[-800:]))
        with open(prefix + ".json") as f:
            meta = json.load(f)
        files = []
        for p in meta["files"]:
            if not os.path.isabs(p) and not os.path.exists(p):
                p = os.path.join(os.path.dirname(prefix), os.path.basename(p))
            files.append(os.path.abspath(p))
            if not os.path.exists(files[-1]):
                raise RuntimeError("benchgen's %s names %s, which does not exist" %
                                   (prefix + ".json", p))
        meta["files"] = files
        meta["frames"] = sum(meta["packets"])
        meta["bytes"] = sum(os.path.getsize(p) for p in files)
        dt = time.time() - t0
        if dt > 2:
            log("traffic: %s: %d frames in %d file(s), %.0f MB, generated in %.0f s" %
                (os.path.basename(prefix), meta["frames"], len(files), meta["bytes"] / 1e6, dt))
        self.cache[key] = meta
        return meta


def source_text(meta, role):
    return ("net_pcap infinite_rx replay of %s (%d frames, %s) into port %d, net_null sinks "
            "(no-rx=1) on the other ports" % (meta["description"], meta["frames"],
                                               ", ".join(os.path.basename(f)
                                                         for f in meta["files"]),
                                               RX_PORT[role]))

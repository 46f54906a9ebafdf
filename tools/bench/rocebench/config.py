# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The rocetor authors
"""What is run: the benchmark's modes (name -> switch.lb, traffic role), the
receiving port of each role, the pool and memory sizing, and the rocetor
config each run writes."""

import math

from .common import fmt_count, pow2_at_least


# mode -> (switch.lb, traffic role)
MODES = {
    "ecmp": ("ecmp", "src"),
    "conweave-src": ("conweave", "src"),
    "conweave-dst": ("conweave", "dst"),
    "seqbalance": ("seqbalance", "src"),
    "caver": ("caver", "src"),
    "spray": ("spray", "src"),
}
DEFAULT_MODES = ["ecmp", "conweave-src", "conweave-dst", "seqbalance", "caver"]
MODE_TEXT = {
    "ecmp": "ECMP (SrcToR)",
    "conweave-src": "ConWeave as SrcToR",
    "conweave-dst": "ConWeave as DstToR, reordering active",
    "seqbalance": "SeqBalance as SrcToR",
    "caver": "CAVER as SrcToR",
    "spray": "per-packet spray (SrcToR)",
}
TESTPMD_MODES = ["5tswap", "macswap"]
RX_PORT = {"src": 0, "dst": 1}  # the port the pcap is replayed into
STAGES = ["rx", "parse", "route", "lb", "egress", "tx"]
FLOW_LB = ("conweave", "seqbalance", "caver")
MTU_4K = 4200  # 4096-byte payload frames are 4154 B (4158 with the ConWeave header)
MBUF_OVERHEAD = 320  # per mbuf beyond its data room: rte_mbuf, private area, pool header
SLACK_MB = 256
REORDER_MB = 32  # ConWeave reorder rings per worker and host port at the defaults
NEXTHOP_HOST = "02:00:00:00:aa:01"
NEXTHOP_UP = ["02:00:00:00:bb:0%d" % i for i in range(1, 5)]


def mtu_for(size):
    return MTU_4K if size >= 4096 else 0


def data_room(size):
    """rocetor's mbuf data room (app/ports.c): headroom + max(2048, mtu + 30)."""
    return 128 + max(2048, mtu_for(size) + 14 + 8 + 4 + 4)


def n_mbufs(frames, headroom, rounding="pow2"):
    """net_pcap infinite_rx keeps every frame of the pcap in an mbuf of the
    app's pool for the whole run: frames + what the app needs; pow2: 2^k - 1
    (the mempool's best size), else rounded up to a multiple of 4096, minus 1
    (half the memory, and start-up time, for pcaps just above 2^k frames)."""
    if rounding == "pow2":
        return max(1023, pow2_at_least(frames + headroom) - 1)
    return -(-(frames + headroom) // 4096) * 4096 - 1


def flow_table_size(flows):
    """4 x flows (power of two): the tables are 8-way set associative, and
    at 2 x flows (half full) about 1% of the flows find their bucket full
    (flow_table_full) and go without state."""
    return max(1024, min(16777216, pow2_at_least(4 * flows)))


def mem_mb(mbufs, size, lb=None, flows=0, workers=1):
    b = mbufs * (data_room(size) + MBUF_OVERHEAD)
    if lb in FLOW_LB:
        entries = pow2_at_least(flow_table_size(flows))
        b += entries * (128 + 4) + 64 * workers
    if lb == "conweave":
        b += REORDER_MB * workers * (1 << 20)
    mb = int(math.ceil(b / float(1 << 20))) + SLACK_MB
    return mb + (mb & 1)


def rocetor_config(mode, size, flows, mbufs):
    lb, role = MODES[mode]
    mtu = mtu_for(size)
    lines = ["# rocetor benchmark config: mode %s (%s), %d B, %s flows (tools/bench/run.py)" %
             (mode, MODE_TEXT[mode], size, fmt_count(flows)),
             "switch: {name: bench, id: 1, lb: %s, mbufs: %d}" % (lb, mbufs),
             "ports:"]
    for p in range(5):
        e = "  - {port: %d, role: %s, l2_filter: false" % (p, "host" if p == 0 else "fabric")
        if mtu and p == RX_PORT[role]:
            e += ", mtu: %d" % mtu
        lines.append(e + "}")
    lines += ["routes:",
              '  - {prefix: "10.1.0.0/16", port: 0, nexthop_mac: "%s"}' % NEXTHOP_HOST,
              '  - prefix: "10.2.0.0/16"',
              "    paths:"]
    for i in range(4):
        lines.append('      - {port: %d, nexthop_mac: "%s"}' % (i + 1, NEXTHOP_UP[i]))
    if lb in FLOW_LB:
        lines.append("%s: {flow_table_size: %d}" % (lb, flow_table_size(flows)))
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------
# Runs

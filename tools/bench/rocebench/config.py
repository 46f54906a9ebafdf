# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The rocetor authors
"""What is run: the benchmark's scenarios (name -> switch.lb, traffic role),
made from the switch's own list of LB modes; the receiving port of each
role; the pool and memory sizing, from the switch's own mempool budget; and
the rocetor config each run writes.

A scenario is a mode of the registry (rocetor-info modes) on the traffic of
a SrcToR ("ecmp", "seqbalance"); a mode that holds packets (reorders at the
DstToR, "holds": true) is two: NAME-src and NAME-dst, the latter replaying
DstToR traffic into a fabric port ("conweave-src", "conweave-dst")."""

import math
import os

from . import switch
from .common import SRC, fmt_count, pow2_at_least

# Filled by load_modes() from rocetor-info, in the registry's order (the
# other modules hold references to these objects: they are updated in
# place).
MODES = {}          # scenario -> (switch.lb, traffic role)
DEFAULT_MODES = []  # the scenarios of the implemented modes
MODE_TEXT = {}      # scenario -> what it is, for the config's comment line
MODE_INFO = {}      # switch.lb -> its rocetor-info modes entry
_tool = [None]
# Today's wording of the scenarios that existed before the list came from
# the registry; a new mode's is made from its summary.
LABELS = {
    "ecmp": "ECMP (SrcToR)",
    "conweave-src": "ConWeave as SrcToR",
    "conweave-dst": "ConWeave as DstToR, reordering active",
    "seqbalance": "SeqBalance as SrcToR",
    "caver": "CAVER as SrcToR",
    "spray-src": "per-packet spray as SrcToR",
    "spray-dst": "spray as DstToR, reordering active",
}
TESTPMD_MODES = ["5tswap", "macswap"]
# The peers a mode's Mpps is divided by, round by round: ratio_NAME.
PEERS = TESTPMD_MODES + ["l3fwd", "ovs"]
RX_PORT = {"src": 0, "dst": 1}  # the port the pcap is replayed into
# A holding mode's DstToR traffic is stamped as that mode's SrcToR stamps it
# (benchgen --stamp): role "dst" is ConWeave's, "dst-NAME" another mode's.
DST_STAMPS = ("spray",)
# Roles a mode has beyond its SrcToR (and a holding mode's DstToR), each a
# scenario on traffic stamped as the mode's SrcToR stamps it: CONGA's DstToR
# (header removed, from-leaf and to-leaf tables fed) and spine (DRE at the
# egress link, the CE raised). A "spine-NAME" role runs `switch.role: spine`
# with every port a fabric port and replays the "dst-NAME" pcap.
EXTRA_ROLES = {
    "conga": [("conga-dst", "dst-conga", "CONGA as DstToR (header removed, tables fed)"),
              ("conga-spine", "spine-conga", "CONGA as spine (DRE, CE raised)")],
}
STAGES = ["rx", "parse", "route", "lb", "egress", "tx"]
MTU_4K = 4200  # 4096-byte payload frames are 4154 B (4158 with the ConWeave header)
# The fabric ports of a SrcToR with host mtu MTU_4K: room for the LB header
# a mode adds on fabric ports (rocetor's MTU rule, doc/config.md "mtu").
MTU_4K_FABRIC = MTU_4K + 100
# Memory estimate only (the pool's size in mbufs comes from the switch):
MBUF_OVERHEAD = 320  # per mbuf beyond its data room: rte_mbuf, private area, pool header
SLACK_MB = 256
HOLD_MB = 72  # a holding mode's reorder rings per worker (ConWeave's 32 MB at the defaults; spray's
# 4096 windows, 64.25 MB)
NEXTHOP_HOST = "02:00:00:00:aa:01"
NEXTHOP_UP = ["02:00:00:00:bb:0%d" % i for i in range(1, 5)]


def load_modes(rocetor):
    """The scenarios from rocetor-info modes of the build of `rocetor`
    (switch.SwitchInfoError when the tool is missing or fails)."""
    tool = switch.info_path(rocetor)
    modes = switch.modes(tool)
    _tool[0] = tool
    MODES.clear()
    MODE_TEXT.clear()
    MODE_INFO.clear()
    del DEFAULT_MODES[:]
    for m in modes:
        name = m["name"]
        MODE_INFO[name] = m
        title = m["summary"].split(":")[0] if ":" in m["summary"] else name
        if m.get("holds"):
            dst = "dst-" + name if name in DST_STAMPS else "dst"
            RX_PORT[dst] = RX_PORT["dst"]
            scen = [(name + "-src", "src", "%s as SrcToR" % title),
                    (name + "-dst", dst, "%s as DstToR, reordering active" % title)]
        else:
            scen = [(name, "src", "%s as SrcToR" % title)]
        for sc, role, text in EXTRA_ROLES.get(name, []):
            RX_PORT[role] = RX_PORT["dst"]
            scen.append((sc, role, text))
        for sc, role, text in scen:
            MODES[sc] = (name, role)
            MODE_TEXT[sc] = LABELS.get(sc, text)
            if m.get("implemented"):
                DEFAULT_MODES.append(sc)
    return MODES


def tool():
    """The rocetor-info in use (that of the default --rocetor if
    load_modes() has not run)."""
    if _tool[0] is None:
        load_modes(os.environ.get("ROCETOR") or os.path.join(
            os.environ.get("ROCETOR_BUILD") or os.path.join(SRC, "build"), "app", "rocetor"))
    return _tool[0]


def implemented(lb):
    tool()
    return bool(MODE_INFO.get(lb, {}).get("implemented"))


def holds(lb):
    """The mode holds packets (reorder rings at the DstToR)."""
    tool()
    return bool(MODE_INFO.get(lb, {}).get("holds"))


def has_flow_table(lb):
    """The mode keeps per-flow state sized by its section's flow_table_size
    (rocetor-info modes: "flow_table", the mode's ops have a flow table)."""
    tool()
    return bool(MODE_INFO.get(lb, {}).get("flow_table", False))


def mtu_for(size):
    return MTU_4K if size >= 4096 else 0


def data_room(size):
    """rocetor's mbuf data room for frames of `size` (the switch's budget:
    headroom + max(2048, mtu + 30))."""
    tool()
    first = next(iter(MODE_INFO))
    return switch.budget(tool(), config_text(first, "src", "data room", size, 1000,
                                             None))["data_room"]


def n_mbufs(frames, headroom, rounding="pow2"):
    """net_pcap infinite_rx keeps every frame of the pcap in an mbuf of the
    app's pool for the whole run: frames + what the app needs (headroom);
    pow2: 2^k - 1 (the mempool's best size), else rounded up to a multiple
    of 4096, minus 1 (half the memory, and start-up time, for pcaps just
    above 2^k frames)."""
    if rounding == "pow2":
        return max(1023, pow2_at_least(frames + headroom) - 1)
    return -(-(frames + headroom) // 4096) * 4096 - 1


def flow_table_size(flows):
    """4 x flows (power of two): the tables are 8-way set associative, and
    at 2 x flows (half full) about 1% of the flows find their bucket full
    (flow_table_full) and go without state."""
    return max(1024, min(16777216, pow2_at_least(4 * flows)))


def mem_mb(mbufs, room, lb=None, flows=0, workers=1):
    """-m MB for a pool of mbufs of data room `room`, mode lb's flow tables
    and hold rings, and slack (an estimate: what the pool needs is the
    switch's figure, what its memory costs is counted here)."""
    b = mbufs * (room + MBUF_OVERHEAD)
    if lb is not None and has_flow_table(lb):
        entries = pow2_at_least(flow_table_size(flows))
        b += entries * (128 + 4) + 64 * workers
    if lb is not None and holds(lb):
        b += HOLD_MB * workers * (1 << 20)
    mb = int(math.ceil(b / float(1 << 20))) + SLACK_MB
    return mb + (mb & 1)


# A mode's section keys beyond flow_table_size. CONGA names a leaf by the
# address masked to dst_prefix_len (doc/conga.md): the bench's remote ToR is
# 10.2/16, one leaf (the default /24 would make 256 leaves of it, each
# evicting another from the leaf slots).
MODE_KEYS = {"conga": [("dst_prefix_len", 16)]}
# A spine's link speed for modes whose DRE is quantised against it: CONGA's
# DRE at the ~4 Gb/s one core forwards reads 0 of 7 against 100 Gb/s, so the
# CE is never raised; against 10 Gb/s about 3 of 7, and the raise (a byte
# written into the header) happens on the frames whose CE is below.
SPINE_SPEED_GBPS = {"conga": 10}

# --port-keys and --qos (cli.py): added to every run's config.
EXTRA_PORT_KEYS = ""
EXTRA_QOS = ""


def hw_queues():
    """qos.hw_queues of --qos (1 when not given)."""
    import re
    m = re.search(r"hw_queues:\s*(\d+)", EXTRA_QOS)
    return int(m.group(1)) if m else 1


def config_text(lb, role, label, size, flows, mbufs, flow_table=None):
    """The rocetor config of a run: five ports (0 host, 1-4 fabric), the
    pcap's port with the MTU of `size` (when that is the host port, the
    fabric ports 100 more: a fabric port must carry a host's largest frame
    plus the LB header), mode lb with a flow table of
    flow_table_size(flows) when it keeps one; switch.mbufs when mbufs is
    not None."""
    mtu = mtu_for(size)
    spine = role.startswith("spine")
    lines = ["# rocetor benchmark config: mode %s, %d B, %s flows (tools/bench/run.py)" %
             (label, size, fmt_count(flows)),
             "switch: {name: bench, id: 1, lb: %s%s%s}" % (
                 lb, ", role: spine" if spine else "",
                 "" if mbufs is None else ", mbufs: %d" % mbufs),
             "ports:"]
    for p in range(5):
        e = "  - {port: %d, role: %s, l2_filter: false" % (
            p, "host" if p == 0 and not spine else "fabric")
        if spine and lb in SPINE_SPEED_GBPS:
            e += ", speed_gbps: %d" % SPINE_SPEED_GBPS[lb]
        if mtu and spine:  # fabric to fabric, header included: the ToR uplinks' MTU
            e += ", mtu: %d" % MTU_4K_FABRIC
        elif mtu and p == RX_PORT[role]:
            e += ", mtu: %d" % mtu
        elif mtu and p != 0 and RX_PORT[role] == 0:
            e += ", mtu: %d" % MTU_4K_FABRIC
        if EXTRA_PORT_KEYS:
            e += ", " + EXTRA_PORT_KEYS
        lines.append(e + "}")
    lines += ["routes:",
              '  - {prefix: "10.1.0.0/16", port: 0, nexthop_mac: "%s"}' % NEXTHOP_HOST,
              '  - prefix: "10.2.0.0/16"',
              "    paths:"]
    for i in range(4):
        lines.append('      - {port: %d, nexthop_mac: "%s"}' % (i + 1, NEXTHOP_UP[i]))
    keys = ["%s: %s" % kv for kv in MODE_KEYS.get(lb, [])]
    if flow_table if flow_table is not None else has_flow_table(lb):
        keys.insert(0, "flow_table_size: %d" % flow_table_size(flows))
    if keys:
        lines.append("%s: {%s}" % (lb, ", ".join(keys)))
    if EXTRA_QOS:
        lines.append("qos: %s" % EXTRA_QOS)
    return "\n".join(lines) + "\n"


def rocetor_config(mode, size, flows, mbufs):
    lb, role = MODES[mode]
    return config_text(lb, role, "%s (%s)" % (mode, MODE_TEXT[mode]), size, flows, mbufs)


def pool(mode, size, flows, frames, workers, headroom, rounding):
    """The pool of a rocetor run of scenario `mode`: (mbufs, budget), the
    switch's own need for the run's config and worker count (rocetor-info
    budget) plus the frames net_pcap keeps; headroom (--mbuf-headroom), when
    not None, stands in for the need."""
    lb, role = MODES[mode]
    b = switch.budget(tool(), config_text(lb, role, mode, size, flows, None), workers)
    room = b["need"] if headroom is None else headroom
    return n_mbufs(frames, room, rounding), b


def testpmd_pool(role, size, flows, frames, headroom, rounding):
    """testpmd's --total-num-mbufs: the pool of the plain switch (the
    registry's first mode, ECMP) on the same ports and traffic."""
    tool()
    lb = next(iter(MODE_INFO))
    b = switch.budget(tool(), config_text(lb, role, lb, size, flows, None), 1)
    room = b["need"] if headroom is None else headroom
    return n_mbufs(frames, room, rounding), b

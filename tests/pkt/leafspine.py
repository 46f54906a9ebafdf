# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The rocetor authors
"""A leaf-spine lab of five rocetor processes on one machine (memif links):

    hosta --ha-- tora ==as0/as1== spine ==sb0/sb1== torb --hb-- hostb
    (pcap)                                                       (pcap)

- hosta / hostb stand in for the RNIC hosts: a rocetor in ECMP mode that
  replays its pcap port toward its ToR through a SHAPED memif port (the
  shaper paces the pcap, so the run lasts long enough for feedback to come
  back), and captures on the same pcap port what its ToR delivered.
- tora / torb are ToRs running the mode under test: host port 0 (ha / hb),
  uplinks 1 and 2 to the spine (one uplink group, path_id 0 and 1).
- the spine (switch.role: spine): ports 0,1 to tora, 2,3 to torb; groups
  10.1.0.0/16 -> [0, 1], 10.2.0.0/25 -> [2, 3], 10.2.0.128/25 -> [2, 3]
  (two groups over the same links, so per-group path counters tell two
  sets of flows apart).
Hosts 10.1.0.0/24 sit behind tora, 10.2.0.0/24 behind torb.

Start order (memif servers first): spine, tora, torb, hosta, hostb. The two
host emulators share an unused memif link ("sync", port 2 of each): with
--wait-links neither replays its pcap before that link is up, so the data
and the ACKs start together although the processes start ~0.3 s apart.
Exit: every process with --exit-on-idle, sources first, the spine last.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fabric  # noqa: E402

_y = fabric._yaml


def mac(node, port):
    n = {"hosta": 0x0a, "tora": 0x01, "spine": 0x05, "torb": 0x02, "hostb": 0x0b}[node]
    return "02:00:00:00:%02x:%02x" % (n, port)


# What the pcaps' frames carry (rocegen --src-mac / --dst-mac).
HOST_MAC = {"a": "02:00:00:00:aa:01", "b": "02:00:00:00:bb:01"}


def _switch(name, sid, lb, role="tor", extra=None):
    sw = {"name": name, "role": role, "id": sid, "lb": lb, "idle_sleep_us": 20}
    sw.update(extra or {})
    return "switch: " + _y(sw) + "\n"


def host_config(side, pace_gbps, queue_kb=65536):
    """hosta / hostb: pcap port 0 <-> memif port 1 toward the ToR, paced;
    port 2 is the start-sync link (nothing routed to it)."""
    me = "host" + side
    tor = "tor" + side
    local = "10.1.0.0/16" if side == "a" else "10.2.0.0/16"
    remote = "10.2.0.0/16" if side == "a" else "10.1.0.0/16"
    return (_switch(me, 100 + (side == "b"), "ecmp") +
            "ports:\n"
            "  - " + _y({"port": 0, "role": "host", "mac": mac(me, 0), "l2_filter": False}) + "\n"
            "  - " + _y({"port": 1, "role": "host", "mac": mac(me, 1), "shape_gbps": pace_gbps,
                         "speed_gbps": 10}) + "\n"
            "  - " + _y({"port": 2, "role": "host", "mac": mac(me, 2)}) + "\n"
            "routes:\n"
            "  - " + _y({"prefix": remote, "port": 1, "nexthop_mac": mac(tor, 0)}) + "\n"
            "  - " + _y({"prefix": local, "port": 0, "nexthop_mac": HOST_MAC[side]}) + "\n"
            "qos: " + _y({"queue_kb": queue_kb, "ecn": {"enabled": False}}) + "\n")


def tor_config(side, lb, uplinks=({}, {}), host_routes=(), qos=None, sections="", switch=None):
    """tora / torb: port 0 to its host emulator, 1..2 to the spine.

    uplinks: extra keys of ports 1 and 2 (shape_gbps, delay_us, ...).
    host_routes: /32 addresses routed to port 0 as well (CAVER's attached
    hosts). qos: the qos: map. sections: YAML appended (seqbalance:, ...).
    switch: extra switch: keys (seed, ...).
    """
    me, host = "tor" + side, "host" + side
    sid = 1 if side == "a" else 2
    local = "10.1.0.0/24" if side == "a" else "10.2.0.0/24"
    remote = "10.2.0.0/16" if side == "a" else "10.1.0.0/16"
    sp = (0, 1) if side == "a" else (2, 3)
    lines = [_switch(me, sid, lb, extra=switch).rstrip("\n"), "ports:",
             "  - " + _y({"port": 0, "role": "host", "mac": mac(me, 0), "speed_gbps": 10})]
    for i in (1, 2):
        p = {"port": i, "role": "fabric", "mac": mac(me, i), "speed_gbps": 10}
        p.update(uplinks[i - 1])
        lines.append("  - " + _y(p))
    lines += ["routes:",
              "  - " + _y({"prefix": local, "port": 0, "nexthop_mac": mac(host, 1)})]
    for h in host_routes:
        lines.append("  - " + _y({"prefix": h + "/32", "port": 0, "nexthop_mac": mac(host, 1)}))
    lines += ["  - prefix: " + _y(remote), "    paths:",
              "      - " + _y({"port": 1, "nexthop_mac": mac("spine", sp[0])}),
              "      - " + _y({"port": 2, "nexthop_mac": mac("spine", sp[1])})]
    if qos:
        lines.append("qos: " + _y(qos))
    return "\n".join(lines) + "\n" + sections


def spine_config(lb, links=({}, {}, {}, {}), qos=None, sections=""):
    """The spine: ports 0,1 to tora, 2,3 to torb; extra keys per port."""
    lines = [_switch("spine", 101, lb, role="spine").rstrip("\n"), "ports:"]
    for i in range(4):
        p = {"port": i, "role": "fabric", "mac": mac("spine", i), "speed_gbps": 10}
        p.update(links[i])
        lines.append("  - " + _y(p))
    tor_a = [{"port": 0, "nexthop_mac": mac("tora", 1)}, {"port": 1, "nexthop_mac": mac("tora", 2)}]
    tor_b = [{"port": 2, "nexthop_mac": mac("torb", 1)}, {"port": 3, "nexthop_mac": mac("torb", 2)}]
    lines.append("routes:")
    for prefix, paths in (("10.1.0.0/16", tor_a), ("10.2.0.0/25", tor_b),
                          ("10.2.0.128/25", tor_b)):
        lines += ["  - prefix: " + _y(prefix), "    paths:"]
        lines += ["      - " + _y(p) for p in paths]
    if qos:
        lines.append("qos: " + _y(qos))
    return "\n".join(lines) + "\n" + sections


def run(configs, frames_a, frames_b=(), idle_ms=None, timeout=120, tag="ls", keep=False,
        wrap=None):
    """Run the five processes; configs: {name: YAML} for hosta, tora,
    spine, torb, hostb. Returns {name: harness.Result}; hosta.outputs[0] /
    hostb.outputs[0] are what the ToRs delivered to the hosts."""
    idle = {"hosta": 1500, "hostb": 1500, "tora": 2500, "torb": 2500, "spine": 3500}
    idle.update(idle_ms or {})
    nodes = [
        {"name": "spine", "config": configs["spine"], "lcore": "0@1",
         "ports": [("link", "as0"), ("link", "as1"), ("link", "sb0"), ("link", "sb1")]},
        {"name": "tora", "config": configs["tora"], "lcore": "0@0",
         "ports": [("link", "ha"), ("link", "as0"), ("link", "as1")]},
        {"name": "torb", "config": configs["torb"], "lcore": "0@1",
         "ports": [("link", "hb"), ("link", "sb0"), ("link", "sb1")]},
        {"name": "hosta", "config": configs["hosta"], "lcore": "0@0",
         "ports": [("pcap", frames_a), ("link", "ha"), ("link", "sync")]},
        {"name": "hostb", "config": configs["hostb"], "lcore": "0@1",
         "ports": [("pcap", frames_b), ("link", "hb"), ("link", "sync")]},
    ]
    for n in nodes:
        n["idle_ms"] = idle[n["name"]]
        n["wrap"] = (wrap or {}).get(n["name"], ())
    return fabric.run_nodes(nodes, timeout=timeout, tag=tag, keep=keep)

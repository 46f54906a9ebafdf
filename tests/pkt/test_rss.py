#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The rocetor authors
"""RSS that matches the workers (issue 30; doc/architecture.md "Which worker
owns a flow"). Two workers, ConWeave (per-flow state: each RoCE flow has an
owner worker). The host port has two RX queues (two rx_pcap files); a fake
NIC written here, with its own Toeplitz hash (no code shared with rocetor),
rocetor's key (0x6d5a repeated) and rocetor's RETA (slot h % 64 -> worker
slot % 2), decides which queue each frame arrives on, as a real NIC with
the programmed key and RETA would:
  - split as the fake NIC: no packet is handed between workers;
  - split the other way round: every RoCE packet is handed over;
  - dealt round-robin (no RSS): about half are;
always forwarded once each, in order per flow, and accounted.
On net_null (which takes a key and a RETA and reads them back) the start-up
line says the port's RSS sends flows to their owners; with one worker, or
rx_queues 1, it says nothing of the kind."""
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
import harness  # noqa: E402
import test_forward as F  # noqa: E402
from scapy.all import IP, IPv6, UDP, Ether, raw  # noqa: E402

KEY = bytes([0x6d, 0x5a] * 20)


def toeplitz(key, data):
    k = int.from_bytes(key, "big")
    kbits = len(key) * 8
    h = 0
    for i in range(len(data) * 8):
        if data[i // 8] & (0x80 >> (i % 8)):
            h ^= (k >> (kbits - 32 - i)) & 0xffffffff
    return h


def nic_hash(frame):
    p = Ether(frame)
    if IP in p:
        a = bytes(p[IP])[12:20]
    elif IPv6 in p:
        a = bytes(p[IPv6])[8:40]
    else:
        return None
    if UDP in p:
        a += bytes(p[UDP])[0:4]
    return toeplitz(KEY, a)


def owner(frame, workers=2):
    h = nic_hash(frame)
    return 0 if h is None else (h % 64) % workers


def main():
    t = harness.Checker("pkt-rss")
    # The oracle itself, on the 82599 datasheet's RSS verification vector
    # (Microsoft's key), so that a wrong fake NIC cannot pass.
    ms_key = bytes.fromhex("6d5a56da255b0ec24167253d43a38fb0d0ca2bcbae7b30b4"
                           "77cb2da38030f20c6a42b73bbeac01fa")
    vec = bytes([66, 9, 149, 187, 161, 142, 100, 80]) + (2794).to_bytes(2, "big") \
        + (1766).to_bytes(2, "big")
    t.eq(toeplitz(ms_key, vec), 0x51ccc178, "(Toeplitz oracle on the 82599 vector)")

    cfg = F.CONFIG.replace("switch: {name: fwd, id: 7, lb: ecmp}",
                           "switch: {name: rss, id: 7, lb: conweave, idle_sleep_us: 100, "
                           "idle_threshold: 64}")
    frames = []
    for i in range(3000):
        if i % 3 == 2:
            frames.append(raw(F.roce(v6=True, dst="fd00:2::5", sport=50000 + i % 40, psn=i)))
        else:
            frames.append(raw(F.roce(sport=40000 + i % 64, psn=i)))
    n_roce = len(frames)
    owners = [owner(f) for f in frames]
    t.check(0.3 < owners.count(1) / n_roce < 0.7,
            "the flows spread over both workers: %d of %d on worker 1"
            % (owners.count(1), n_roce))

    def run(tag, rxq):
        res = harness.run(cfg, [frames, [], [], [], []], tag=tag, lcores="0@0,1@1,2@1",
                          queues=2, idle_ms=800, rxq=rxq)
        if not t.check(res.rc == 0 and res.stats, "%s: rocetor failed: %s"
                       % (tag, res.stderr[-2000:])):
            return None
        s = res.stats
        t.eq(s["forwarded"], n_roce, "(%s: forwarded)" % tag)
        ok, why = harness.accounted(s)
        t.check(ok, "%s: accounting: %s" % (tag, why))
        t.eq(s["handoff_tx"], s["handoff_rx"], "(%s: handed over = taken)" % tag)
        psns = {}
        for port in (1, 2, 3, 4):
            for f in res.outputs[port]:
                p = Ether(f)
                if p.haslayer("BTH"):
                    psns.setdefault((p[UDP].sport, port), []).append(p["BTH"].psn)
        t.eq(sum(len(v) for v in psns.values()), n_roce, "(%s: RoCE frames out)" % tag)
        t.check(all(v == sorted(v) for v in psns.values()),
                "%s: per-flow order kept on each path" % tag)
        return res

    res = run("rss-nic", lambda port, f: owner(f))
    if res is not None:
        t.eq(res.stats["handoff_tx"], 0, "(split by the fake NIC: packets handed over)")
        t.check("warning: no RSS" in res.stdout, "net_pcap has no RSS: said at start-up")
    res = run("rss-anti", lambda port, f: 1 - owner(f))
    if res is not None:
        t.eq(res.stats["handoff_tx"], n_roce, "(split the other way: packets handed over)")
    res = run("rss-rr", None)
    if res is not None:
        h = res.stats["handoff_tx"]
        t.check(0.25 * n_roce < h < 0.75 * n_roce,
                "dealt round-robin: %d of %d handed over, expected about half" % (h, n_roce))

    # net_null: a key and a RETA it takes and reads back.
    def null_run(tag, lcores, extra_cfg=""):
        work = harness.tempfile.mkdtemp(prefix="rocetor-%s-" % tag)
        path = os.path.join(work, "switch.yaml")
        with open(path, "w") as f:
            f.write(cfg.replace("idle_threshold: 64}", "idle_threshold: 64%s}" % extra_cfg))
        cmd = [harness.ROCETOR, "--lcores", lcores, "--no-pci", "--no-huge", "-m", "1024",
               "--file-prefix", harness.eal_prefix(tag), "--log-level", "lib.eal:error"]
        for i in range(5):
            cmd += ["--vdev", "net_null%d,size=64" % i]
        cmd += ["--", "--config", path, "--duration", "0.5"]
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
        t.check(p.returncode == 0, "%s: exit %d: %s" % (tag, p.returncode, p.stderr[-1500:]))
        return p.stdout

    out = null_run("rss-null2", "0@0,1@1,2@1")
    for port in range(5):
        t.check(("rocetor: port %d (net_null): RSS owner: queue q is worker q's, key 0x6d5a "
                 "x 40 B, RETA 128 entries read back, software hash" % port) in out,
                "net_null port %d, 2 workers: RSS owner line missing: %s" % (port, out[:1500]))
    out = null_run("rss-null1", "0@0,1@1")
    t.check("RSS owner" not in out and "RSS cannot" not in out,
            "one worker: no RSS owner line: " + out[:800])
    return t.done()


if __name__ == "__main__":
    sys.exit(main())

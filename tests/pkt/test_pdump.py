#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The rocetor authors
"""dpdk-dumpcap captures a running rocetor (doc/user-guide.md recipe):
hugepages, primary without --huge-unlink, dumpcap --file-prefix. The capture
must hold rocetor's forwarded frames (TTL decremented, MAC rewritten, ICRC
valid). Skipped (exit 77) when no hugepages can be reserved."""
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(__file__))
import harness  # noqa: E402
from scapy.all import IP, Ether, PcapReader, raw  # noqa: E402
from scapy.contrib.roce import BTH  # noqa: E402
from test_capture import CAPTURE  # noqa: E402

CONFIG = """
switch: {name: pd, id: 1}
ports:
  - {port: 0, role: host, l2_filter: false}
  - {port: 1, role: fabric, mac: "02:00:00:00:01:01"}
routes:
  - {prefix: "192.168.70.0/24", paths: [{port: 1, nexthop_mac: "02:00:00:00:bb:01"}]}
"""


BASE_VIRTADDR = "0x200000000000"


def free_hugepages():
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("HugePages_Free:"):
                return int(line.split()[1])
    return 0


def main():
    if free_hugepages() < 256 or not os.path.exists("/usr/bin/dpdk-dumpcap"):
        print("pdump: skipped: needs 256 free 2 MiB hugepages and dpdk-dumpcap "
              "(tools/test.sh reserves them when run as root)")
        return 77
    t = harness.Checker("pdump")
    work = tempfile.mkdtemp(prefix="rocetor-pdump-")
    cfg = os.path.join(work, "pd.yaml")
    with open(cfg, "w") as f:
        f.write(CONFIG)
    prefix = harness.eal_prefix("pdump")
    # --base-virtaddr: the secondary must map the primary's memory at the
    # same addresses. Left to the kernel (always so under ASan, whose shadow
    # covers DPDK's default hint), the primary's area can land where
    # dumpcap's own libraries already sit; dumpcap then fails its EAL init,
    # crashes in that failure path holding the shared memory lock, and
    # rocetor hangs at exit in rte_free (1 run in 8 under ASan; doc/user-guide.md).
    cmd = [harness.ROCETOR, "-l", "0", "--file-prefix", prefix, "-m", "128", "--no-pci",
           "--base-virtaddr", BASE_VIRTADDR,
           "--log-level", "lib.eal:error",
           "--vdev", "net_pcap0,rx_pcap=%s,infinite_rx=1" % CAPTURE,
           "--vdev", "net_null1,no-rx=1", "--", "--config", cfg,
           "--stats-json", os.path.join(work, "s.json")]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    dump = os.path.join(work, "up.pcap")
    # Order matters with DPDK 22.11: rocetor stops first, dumpcap second.
    # When dumpcap exits first, the primary's pdump callback removal does
    # not wait for callbacks in flight, and a worker can copy into dumpcap's
    # freed mempool (SIGSEGV in rte_pktmbuf_copy; doc/user-guide.md).
    cap = None
    try:
        time.sleep(2)
        cap = subprocess.Popen(["/usr/bin/dpdk-dumpcap", "--file-prefix", prefix, "-i", "1",
                                "-q", "-P", "-a", "duration:30", "-w", dump],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        time.sleep(3)
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            so, se = proc.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            so, se = proc.communicate()
            se = "%s\nrocetor did not exit within 60 s of SIGINT (killed); dumpcap exit: %s" % (
                se, cap.poll() if cap is not None else None)
            # Killed, it leaves its hugepage files behind (no --huge-unlink).
            for f in os.listdir("/dev/hugepages") if os.path.isdir("/dev/hugepages") else []:
                if f.startswith(prefix + "map_"):
                    os.unlink(os.path.join("/dev/hugepages", f))
        if cap is not None:
            cap.send_signal(signal.SIGINT)
            try:
                cap.communicate(timeout=30)
            except subprocess.TimeoutExpired:
                cap.kill()
                cap.communicate()
    t.eq(proc.returncode, 0, "(rocetor exit after SIGINT) " + se[-500:])
    sj = os.path.join(work, "s.json")
    if t.check(os.path.exists(sj), "no stats document"):
        with open(sj) as f:
            ok, why = harness.accounted(json.load(f))
        t.check(ok, "accounting: " + why)
    # dumpcap ran without -c (see above) and holds up to millions of frames:
    # check the first 1000.
    pkts = []
    if os.path.exists(dump):
        with PcapReader(dump) as r:
            for p in r:
                pkts.append(p)
                if len(pkts) == 1000:
                    break
    t.check(len(pkts) >= 300, "dumpcap captured %d packets" % len(pkts))
    roce = [p for p in pkts if BTH in p]
    t.check(len(roce) > 200, "RoCE in the capture: %d" % len(roce))
    for p in pkts:
        if IP in p:
            t.eq(p[IP].ttl, 63)
            t.eq(p.src, "02:00:00:00:01:01")
    for p in roce:
        q = Ether(raw(p))
        q[BTH].icrc = None
        t.eq(raw(q)[-4:], raw(p)[-4:], "(ICRC)")
    shutil.rmtree(work, ignore_errors=True)
    return t.done()


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The rocetor authors
"""Self-test of the traffic tools: rocegen's frames against scapy's ICRC
(through rocecheck) and the real RNIC capture, the masking rules, the
ConWeave helpers, and the packet counts of several rocegen configurations.

Run: /usr/bin/python3 tests/pkt/lib/selftest_roce.py   (exit 0 = pass)
"""

import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import roce  # noqa: E402
import rocegen  # noqa: E402
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "tools"))
from rtrpy import checks  # noqa: E402

check = checks.check

ROOT = os.path.normpath(os.path.join(HERE, "..", "..", ".."))
CAPTURE = os.path.normpath(os.path.join(ROOT, "..", "shared", "data", "roce-rc-send-real.pcap"))
WORKLOADS = os.path.join(os.path.dirname(CAPTURE), "workloads")
ROCECHECK = os.path.join(ROOT, "tools", "rocecheck.py")



def test_frames():
    fams = ({}, {"vlan": 5}, {"src_ip": "fd00::1", "dst_ip": "fd00::2"},
            {"src_ip": "fd00::1", "dst_ip": "fd00::2", "vlan": 9})
    ops = ((roce.SEND_ONLY, {}), (roce.WRITE_FIRST, {"reth_": (0x1000, 7, 4096)}),
           (roce.ACK, {"aeth_": 3}), (roce.SEND_ONLY_IMM, {"immdt": 5}),
           (roce.READ_RESP_FIRST, {"aeth_": (0x1F, 9)}))
    for kw in fams:
        for op, extra in ops:
            for plen in (0, 1, 3, 4, 100, 1024):
                what = "%s op %#x len %d" % (kw, op, plen)
                f = roce.frame(op, psn=77, payload=b"p" * plen, **kw, **extra)
                check(roce.icrc_ok(f), "scapy ICRC " + what)
                check(roce.icrc_ok_fast(f), "own ICRC " + what)
                bad = roce.frame(op, psn=77, payload=b"p" * plen, good_icrc=False, **kw, **extra)
                check(not roce.icrc_ok(bad), "bad ICRC seen " + what)
                l3, l4, b = roce.offsets(f)
                # masked: ToS/TTL/checksum (v4), TC/flow label/hop limit (v6),
                # UDP checksum, BTH byte 4
                g = bytearray(f)
                if g[l3] >> 4 == 4:
                    g[l3 + 1] = 0xB3
                    g[l3 + 8] = 3
                    g[l3 + 10] ^= 0x55
                else:
                    g[l3] = 0x6A
                    g[l3 + 1] = 0xBC
                    g[l3 + 3] = 0x77
                    g[l3 + 7] = 1
                g[l4 + 6] = 0x12
                g[b + 4] = 0xEE
                check(roce.icrc_ok(bytes(g)), "masked fields " + what)
                check(roce.icrc_ok_fast(bytes(g)), "masked fields (own) " + what)
                # covered: Resv7, flags, P_Key, PSN, ports, UDP length
                for off in (b + 8, b + 1, b + 2, b + 11, l4, l4 + 4):
                    h = bytearray(f)
                    h[off] ^= 1
                    check(not roce.icrc_ok(bytes(h)), "covered byte %d %s" % (off - b, what))
                # ConWeave round trip
                d = roce.cw_data(f, path_id=3, epoch=2, phase=1, ts_tx=0x1234)
                cf = roce.cw_fields(d)
                check((cf["cw_op"], cf["epoch"], cf["phase"], cf["path_id"], cf["ts_tx"]) ==
                      (1, 2, 1, 3, 0x1234), "cw fields " + what)
                check(roce.strip_cw(d)[:len(f)] == f, "strip_cw " + what)
                c = roce.cw_control(d, roce.CW_NOTIFY)
                cc = roce.cw_fields(c)
                check(cc["cw_op"] == 3 and cc["epoch"] == 2, "cw_control " + what)
    check(roce.icrc_ok(roce.cnp(0x123)), "CNP ICRC")


def test_capture():
    frames = rocegen.read_pcap(CAPTURE)
    r = [f for f in frames if len(f) > 42 and f[12:14] == b"\x08\x00" and f[23] == 17 and
         f[36:38] == b"\x12\xb7"]
    check(len(r) == 105, "105 RoCE frames in the capture (%d)" % len(r))
    check(all(rocegen.frame_icrc_ok(f) for f in r), "rocegen agrees with the RNIC ICRCs")


def test_generator():
    wl = os.path.join(WORKLOADS, "FbHdp2015.txt")
    runs = [
        (["--flows", "3", "--packets", "37", "--op", "mix", "--size", "5000", "--acks", "3"], 111),
        (["--flows", "2", "--packets", "20", "--op", "read", "--subflows", "4", "--size", "100",
          "--src-net", "fd00:1::/64", "--dst-net", "fd00:2::/64", "--vlan", "7"], 40),
        (["--flows", "4", "--packets", "10", "--frame-size", "60"], 40),
        (["--flows", "4", "--packets", "10", "--frame-size", "1024", "--op", "mix"], 40),
        (["--flows", "2", "--packets", "10", "--frame-size", "4096", "--mtu", "4096"], 20),
        (["--flows", "2", "--messages", "3", "--workload", wl, "--op", "mix", "--imm"], None),
        (["--flows", "2", "--packets", "30", "--spray", "--psn-base", "0xfffff0",
          "--udp-csum"], 60),
    ]
    with tempfile.TemporaryDirectory() as tmp:
        for i, (args, want) in enumerate(runs):
            path = os.path.join(tmp, "g%d.pcap" % i)
            rc = rocegen.main(["-o", path, "--seed", str(i)] + args)
            check(rc == 0, "rocegen %s" % args)
            frames = rocegen.read_pcap(path)
            data = [f for f in frames if roce.bth_fields(f)["opcode"] != roce.ACK]
            if want is not None:
                check(len(data) == want, "data packets %d != %d for %s" % (len(data), want, args))
            if "--frame-size" in args:
                fs = int(args[args.index("--frame-size") + 1])
                sized = [f for f in data if roce.bth_fields(f)["opcode"] != roce.READ_REQUEST]
                check(all(len(f) == fs for f in sized), "frame sizes for %s" % args)
            p = subprocess.run([sys.executable, ROCECHECK, "--summary", "--expect-icrc-valid",
                                "--expect-ipcsum-valid", path], capture_output=True, text=True)
            check(p.returncode == 0, "rocecheck on %s: %s" % (args, p.stdout + p.stderr))
            again = os.path.join(tmp, "again.pcap")
            rocegen.main(["-o", again, "--seed", str(i)] + args)
            with open(path, "rb") as a, open(again, "rb") as b:
                check(a.read() == b.read(), "deterministic output for %s" % args)


def main():
    test_frames()
    test_capture()
    test_generator()
    return checks.summary("selftest_roce")


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The rocetor authors
"""run.py: the rocetor benchmark suite (doc/benchmarks.md, tools/bench/README).

One command runs the matrix LB mode x packet size x flow count and prints a
table: Mpps per worker core (median of --runs rounds of --duration seconds),
TSC cycles per packet per pipeline stage, and the ratio to dpdk-testpmd
(--forward-mode=5tswap and macswap) and to DPDK's l3fwd (LPM, the peer
router, built by the runner from Debian's dpdk source package) run on the
same ports in the same invocation, alternated round by round:

  per (size, flows) group, for round r = 1..R:
      testpmd 5tswap, testpmd macswap, l3fwd, rocetor mode 1, mode 2, ...
  ratio of a mode to a peer in round r = its Mpps / the peer's Mpps of round r
  reported: median Mpps over rounds, median of the per-round ratios

Traffic: tools/bench/benchgen.py pcaps (cached in --traffic-dir), replayed by
net_pcap with infinite_rx=1 into the receiving port (port 0 = host port for
role src, port 1 = fabric port for the ConWeave DstToR), four net_null
(no-rx=1) sinks on the other ports. Every DPDK process runs alone: under
flock(/tmp/rocetor-bench.lock), with its own --file-prefix, hugepages
(--huge-unlink -m MB) and one forwarding lcore (-l 0,1 --main-lcore 1: lcore 0
forwards, lcore 1 is the control/main lcore), the same for testpmd.

Extra sections: --scaling (1 vs 2 workers), --check-datapath (syscalls,
allocations and locks counted on the forwarding thread with perf).
Results: DIR/results.{json,md,csv} and DIR/mpps-vs-flows.png (--out DIR).
Python standard library only (the plot uses Debian's python3-matplotlib,
installed with apt-get when missing unless --no-install).

This file is the entry point; the code is the rocebench package next to it
(tools/bench/README.md lists its modules).
"""

import os
import sys

# tools/: rtrpy, the helpers shared with tools/soak.py and the packet tests.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from rocebench.cli import main, parse_args  # noqa: E402,F401
# The runner's checks and sizing, by their old names: tests/pkt/test_bench_smoke.py
# feeds them doctored input.
from rocebench.config import data_room, n_mbufs  # noqa: E402,F401
from rocebench.runs import check_final, parse_docs, testpmd_samples  # noqa: E402,F401

if __name__ == "__main__":
    sys.exit(main())

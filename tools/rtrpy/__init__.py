# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The rocetor authors
"""rtrpy: the Python helpers that the benchmark (tools/bench), the soak
(tools/soak.py), the packet tests (tests/pkt/harness.py), the packet
tools, rocetor-top and rocetor-exporter share, so that each rule exists
once:

  dpdk       a DPDK process: its unique --file-prefix, its runtime
             directory, start / wait / stop by PID with the output captured
             (Proc), SIGINT-then-SIGKILL (interrupt)
  stats      rocetor's stats document: the accounting rule (accounted) and
             the end-of-run problems the benchmark reports (exit_problems)
  pcap       classic pcap files: frames with timestamps, raw records
  telemetry  a connection to a running rocetor's telemetry socket, where
             that socket is, and what /rocetor/counters says
  env        what the environment says about the build (sanitized)
  checks     the check counter of the Python test programs

In the source tree it lives in tools/, which every user there has on its
path (tools/*.py are run from there, tests/pkt/harness.py adds it for
rocegen, tools/bench/run.py adds it in one line, rocetor-top and
rocetor-exporter add their own directory). meson install installs it into
Python 3's dist-packages of the prefix, and the installed rocetor-top and
rocetor-exporter import it from there (doc/tools.md)."""

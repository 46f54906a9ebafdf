# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The rocetor authors
"""rocebench: the benchmark runner behind tools/bench/run.py.

common (logging, counts, paths), config (the modes, sizing, the rocetor
config of a run), machine (lock, hugepages, TSC, child processes), traffic
(benchgen pcaps), runs (one rocetor or testpmd run and its parsers), runner
(the matrix, its summary, scaling), datapath (--check-datapath), report
(results.json/.csv/.md, the plot), cli (options, main)."""

#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# CI stage: the fuzz targets (doc/fuzzing.md) in their own clang build
# (build-fuzz, ASan + UBSan): replay the seed and regression corpora, then
# fuzz every target for ROCETOR_FUZZ_SECS seconds (default 30). Fails on
# any crash, leak, sanitizer report or timeout; the working corpora stay in
# out/fuzz/corpus, so each CI run starts where the last one stopped.
set -uo pipefail
cd "$(dirname "$0")/../.."
secs=${ROCETOR_FUZZ_SECS:-30}
rc=0
echo "fuzz: replaying fuzz/seeds and fuzz/regress"
tools/fuzz.sh --replay || rc=1
echo "fuzz: ${secs} s per target"
tools/fuzz.sh -t "$secs" || rc=1
exit $rc

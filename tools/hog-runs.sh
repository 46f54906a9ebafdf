#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Run packet tests N times in a row beside a CPU hog on every core
# (ROCETOR_HOG=1 tools/test.sh TESTS...), and print how many runs each test
# passed (doc/testing.md "Under CPU pressure"). Usage:
#   tools/hog-runs.sh [N] [TEST...]
# Default: 10 runs of the tests that assert order and accounting. Each
# run's meson log is kept in build/hog-runs/run-K.json.
set -uo pipefail
cd "$(dirname "$0")/.."
n=${1:-10}
shift || true
tests=("$@")
[ ${#tests[@]} -gt 0 ] || tests=(pkt-fabric pkt-leafspine pkt-conweave pkt-spray pkt-spray-fabric
	pkt-multicore pkt-faults pkt-caver pkt-stall)
mkdir -p build/hog-runs
declare -A pass
for t in "${tests[@]}"; do pass[$t]=0; done
for k in $(seq 1 "$n"); do
	t0=$(date +%s)
	ROCETOR_HOG=1 ROCETOR_STAGES=none tools/test.sh "${tests[@]}" > "build/hog-runs/run-$k.out" 2>&1
	cp build/meson-logs/testlog.json "build/hog-runs/run-$k.json"
	line=""
	for t in "${tests[@]}"; do
		r=$(/usr/bin/python3 -c '
import json, sys
for l in open(sys.argv[1]):
    d = json.loads(l)
    if d["name"].split(" / ")[-1] == sys.argv[2]:
        print(d["result"])' "build/hog-runs/run-$k.json" "$t")
		[ "$r" = OK ] && pass[$t]=$(( ${pass[$t]} + 1 ))
		line="$line $t=$r"
	done
	echo "run $k ($(( $(date +%s) - t0 )) s):$line"
	grep -h "^FAIL" "build/hog-runs/run-$k.out" | sed "s/^/  run $k: /"
done
for t in "${tests[@]}"; do echo "hog-runs: $t ${pass[$t]}/$n"; done

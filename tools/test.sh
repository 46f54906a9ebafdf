#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Build rocetor and run the whole test suite (unit, packet, smoke, tools),
# serially: DPDK tests each use their own --file-prefix and --no-huge.
# Ends with one line "tests: N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.."
tools/setup.sh || exit 1
# The dumpcap test needs hugepages (a secondary process cannot attach to a
# --no-huge primary); every other test runs with --no-huge.
if [ "$(id -u)" = 0 ] && [ -w /proc/sys/vm/nr_hugepages ]; then
	free=$(awk '/HugePages_Free/ {print $2}' /proc/meminfo)
	if [ "${free:-0}" -lt 512 ]; then
		echo $(( $(cat /proc/sys/vm/nr_hugepages) + 512 - ${free:-0} )) > /proc/sys/vm/nr_hugepages || true
	fi
	mount | grep -q hugetlbfs || { mkdir -p /dev/hugepages && mount -t hugetlbfs nodev /dev/hugepages; } || true
fi
meson test -C build --num-processes 1 --print-errorlogs "$@"
rc=$?
/usr/bin/python3 - <<'PY'
import json
passed = failed = skipped = 0
with open("build/meson-logs/testlog.json") as f:
    for line in f:
        r = json.loads(line)
        if r["result"] in ("OK", "EXPECTEDFAIL"):
            passed += 1
        elif r["result"] == "SKIP":
            skipped += 1
        else:
            failed += 1
print("tests: %d passed, %d failed, %d skipped" % (passed, failed, skipped))
PY
exit $rc

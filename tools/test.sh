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
# ROCETOR_HOG=1: the suite runs beside a CPU hog on every core (stress-ng,
# installed if missing), as on a busy machine (doc/testing.md "Under CPU
# pressure"); the tests see ROCETOR_HOG and say which checks they exempt.
hog_pid=""
if [ "${ROCETOR_HOG:-0}" != 0 ]; then
	if ! command -v stress-ng >/dev/null; then
		SUDO=""
		[ "$(id -u)" = 0 ] || SUDO=sudo
		DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q stress-ng >/dev/null || exit 1
	fi
	setsid stress-ng --cpu "$(nproc)" --cpu-load 100 --timeout 0 >/dev/null 2>&1 &
	hog_pid=$!
	trap '[ -n "$hog_pid" ] && kill -- -"$hog_pid" 2>/dev/null' EXIT
	echo "test.sh: CPU hog on $(nproc) cores (stress-ng, process group $hog_pid)"
	export ROCETOR_HOG
fi
meson test -C build --num-processes 1 --print-errorlogs "$@"
rc=$?
if [ -n "$hog_pid" ]; then
	kill -- -"$hog_pid" 2>/dev/null
	hog_pid=""
fi
/usr/bin/python3 tools/testlog_summary.py tests build/meson-logs/testlog.json
# Further CI stages, each its own script and build directory (the
# sanitizer build of the whole suite, the fuzzers' short runs): run in name
# order when the main suite ran in full (no meson test arguments given) and
# ROCETOR_STAGES is not "none"; ROCETOR_STAGES="fuzz" runs only those whose
# name contains "fuzz".
if [ $# -eq 0 ] && [ "${ROCETOR_STAGES:-all}" != none ]; then
	for st in tools/ci.d/*.sh; do
		[ -x "$st" ] || continue
		case "${ROCETOR_STAGES:-all}" in all) ;; *) [[ "$st" == *"${ROCETOR_STAGES}"* ]] || continue ;; esac
		echo "=== stage $st"
		t0=$(date +%s)
		if "$st"; then
			echo "stage $st: passed in $(( $(date +%s) - t0 )) s"
		else
			echo "stage $st: FAILED after $(( $(date +%s) - t0 )) s"
			rc=1
		fi
	done
fi
exit $rc

#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# CI stage: the whole test suite (unit and packet tests) against an ASan +
# UBSan build in build-san/ (doc/testing.md). Configures build-san when
# missing or when its options differ, builds it, runs the suite serially;
# any sanitizer report fails its test (tests/sanitize/run.py). Prints a
# summary and exits non-zero on any failure. Extra arguments go to meson
# test (e.g. a test name).
set -uo pipefail
cd "$(dirname "$0")/../.."

BUILD=build-san
SANITIZE=address,undefined

# The runtimes come with gcc (libasan, libubsan); install them if missing.
if ! [ -e "$(gcc -print-file-name=libasan.so)" ] || ! [ -e "$(gcc -print-file-name=libubsan.so)" ]; then
	v=$(gcc -dumpversion)
	echo "sanitize: installing the sanitizer runtimes of gcc $v"
	SUDO=""
	[ "$(id -u)" = 0 ] || SUDO=sudo
	$SUDO apt-get update -q
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q "libgcc-$v-dev" || exit 1
fi

# The pdump test needs hugepages (as in tools/test.sh, which normally ran
# just before this stage and reserved them already).
if [ "$(id -u)" = 0 ] && [ -w /proc/sys/vm/nr_hugepages ]; then
	free=$(awk '/HugePages_Free/ {print $2}' /proc/meminfo)
	if [ "${free:-0}" -lt 512 ]; then
		echo $(( $(cat /proc/sys/vm/nr_hugepages) + 512 - ${free:-0} )) > /proc/sys/vm/nr_hugepages || true
	fi
	mount | grep -q hugetlbfs || { mkdir -p /dev/hugepages && mount -t hugetlbfs nodev /dev/hugepages; } || true
fi

current=""
if [ -f "$BUILD/build.ninja" ]; then
	current=$(meson introspect "$BUILD" --buildoptions 2>/dev/null | /usr/bin/python3 -c '
import json, sys
try:
    print(next(o["value"] for o in json.load(sys.stdin) if o["name"] == "sanitize"))
except Exception:
    pass')
fi
if [ ! -f "$BUILD/build.ninja" ]; then
	echo "sanitize: configuring $BUILD (-Dsanitize=$SANITIZE)"
	rm -rf "$BUILD"
	meson setup "$BUILD" -Dsanitize="$SANITIZE" -Dtests=true || exit 1
elif [ "$current" != "$SANITIZE" ]; then
	echo "sanitize: reconfiguring $BUILD (sanitize was \"$current\")"
	meson setup --reconfigure "$BUILD" -Dsanitize="$SANITIZE" -Dtests=true || exit 1
fi
ninja -C "$BUILD" || { echo "sanitize: build FAILED"; exit 1; }

t0=$(date +%s)
# Timeouts doubled: ASan makes everything slower (most tests by 1.5-3x).
meson test -C "$BUILD" --num-processes 1 --print-errorlogs --timeout-multiplier 2 "$@"
rc=$?
/usr/bin/python3 tools/testlog_summary.py sanitize "$BUILD/meson-logs/testlog.json" \
	"$(( $(date +%s) - t0 ))"
exit $rc

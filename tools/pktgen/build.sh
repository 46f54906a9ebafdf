#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The rocetor authors
#
# Build pktgen-DPDK 23.03.0 against Debian 12's DPDK 22.11, outside rocetor's
# tree (tools/pktgen/README.md). pktgen's sources are never copied into ours:
# this script copies SRC_DIR to a scratch directory, applies
# pktgen-23.03.0.patch there and builds with Lua enabled.
#
#   tools/pktgen/build.sh SRC_DIR [BUILD_DIR]
#
# SRC_DIR    a Pktgen-DPDK checkout of release pktgen-23.03.0
# BUILD_DIR  where the patched copy and the build go (default SRC_DIR-build);
#            the binary is BUILD_DIR/build/app/pktgen
#
# The patch: lib/lua gets the DPDK dependency its sources need (without it
# "-Denable_lua=true" fails on rte_*.h), rte_eth_dev_set_mtu() returning
# -ENOTSUP (memif, net_pcap, net_null) is logged instead of a panic, and the
# stats/display timer thread sleeps 1 ms per loop instead of busy-spinning
# on the main lcore (which matters on a 2-core machine).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
patch_file="$here/pktgen-23.03.0.patch"

usage() {
	echo "usage: $0 SRC_DIR [BUILD_DIR]" >&2
	exit 2
}
[ $# -ge 1 ] && [ $# -le 2 ] || usage
src=$1
if [ ! -f "$src/meson.build" ] || [ ! -f "$src/app/pktgen-port-cfg.c" ]; then
	echo "build.sh: $src: not a Pktgen-DPDK source tree (no meson.build or app/pktgen-port-cfg.c)" >&2
	exit 2
fi
src=$(cd "$src" && pwd)
version=$(cat "$src/VERSION" 2>/dev/null || echo unknown)
if [ "$version" != "23.03.0" ]; then
	echo "build.sh: $src is pktgen $version; this script and its patch are for 23.03.0" >&2
	exit 2
fi
out=${2:-$src-build}
case "$out" in
"$src" | "$src"/*)
	echo "build.sh: BUILD_DIR must be outside SRC_DIR" >&2
	exit 2
	;;
esac

# Debian build dependencies, installed only when missing.
need=""
for p in meson ninja-build pkg-config gcc patch libdpdk-dev libpcap-dev \
	libnuma-dev libbsd-dev liblua5.3-dev; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
		need="$need $p"
done
if [ -n "$need" ]; then
	echo "build.sh: installing$need"
	apt-get install -y --no-install-recommends $need
fi

# A fresh patched copy every time: the patch never touches SRC_DIR.
mkdir -p "$out"
rm -rf "$out/src"
cp -a "$src" "$out/src"
rm -rf "$out/src/.git" "$out/src/build"
patch -d "$out/src" -p1 --no-backup-if-mismatch -s <"$patch_file"

if [ ! -f "$out/build/build.ninja" ]; then
	meson setup "$out/build" "$out/src" -Denable_lua=true
else
	meson configure "$out/build" -Denable_lua=true
fi
ninja -C "$out/build" -j "${NINJA_JOBS:-2}"

bin="$out/build/app/pktgen"
[ -x "$bin" ] || {
	echo "build.sh: no binary at $bin" >&2
	exit 1
}
echo "build.sh: pktgen $version (Lua on, memif MTU patch) at $bin"

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
# SRC_DIR    a Pktgen-DPDK checkout of release pktgen-23.03.0 (a git
#            checkout: its commit is exported with git archive, untracked
#            files left out, local changes refused; or an unpacked release
#            tarball, copied whole)
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

# A git checkout of pktgen (SRC_DIR its top level): what is built is its
# checked-out commit, exported with git archive, so untracked files another
# commit left behind stay out. Local changes to tracked files are refused
# (before anything is installed): git archive would leave them out without
# a word. The version is the commit's.
from_git=0
if command -v git >/dev/null 2>&1 &&
	git -C "$src" rev-parse --is-inside-work-tree >/dev/null 2>&1 &&
	[ "$(cd "$(git -C "$src" rev-parse --show-toplevel)" && pwd)" = "$src" ]; then
	from_git=1
	if ! git -C "$src" rev-parse --verify -q HEAD >/dev/null; then
		echo "build.sh: $src is a git checkout without a commit checked out" >&2
		exit 2
	fi
	if ! git -C "$src" diff --quiet HEAD -- 2>/dev/null; then
		echo "build.sh: $src has local changes to pktgen's own files:" >&2
		git -C "$src" status --short --untracked-files=no | head -10 >&2
		echo "build.sh: check out pktgen-23.03.0 cleanly first (git -C $src checkout -f pktgen-23.03.0)" >&2
		exit 2
	fi
	version=$(git -C "$src" show HEAD:VERSION 2>/dev/null || echo unknown)
else
	version=$(cat "$src/VERSION" 2>/dev/null || echo unknown)
fi
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

# A fresh patched copy every time: the patch never touches SRC_DIR. From a
# git checkout exactly the checked-out commit's files (git archive HEAD):
# what another commit left behind untracked (a checkout of a later release
# leaves files 23.03.0 does not have, and the build then fails on e.g. an
# undeclared MAX_QUEUES_PER_PORT) stays out.
mkdir -p "$out"
rm -rf "$out/src" "$out/src.tar"
if [ "$from_git" = 1 ]; then
	untracked=$(git -C "$src" ls-files --others --exclude-standard | wc -l)
	[ "$untracked" -eq 0 ] || echo "build.sh: leaving out $untracked untracked file(s) of $src (not in its commit $(git -C "$src" rev-parse --short HEAD))"
	mkdir -p "$out/src"
	git -C "$src" archive --format=tar HEAD >"$out/src.tar"
	tar -xf "$out/src.tar" -C "$out/src"
	rm -f "$out/src.tar"
else
	cp -a "$src" "$out/src"
	rm -rf "$out/src/build"
fi
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

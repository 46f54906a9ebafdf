#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Install what rocetor needs from Debian's packages (only what is missing),
# then configure and build it in build/ (dpkg-dev, groff-base, systemd and
# tmux are for the pkg and tools tests: the .deb, the man page, the unit, rocetor-top;
# clang-format and flake8 for the lint test; iproute2, iputils-ping and ethtool
# for the system tests with hosts in network namespaces, tests/sys; frr, FRR's zebra
# and bgpd, for the routing tests pkt-frr and pkt-fpm, doc/routing.md). Used by tools/demo.sh,
# tools/test.sh and .ci/run.
set -euo pipefail
cd "$(dirname "$0")/.."

PKGS="dpdk dpdk-dev libconfig-dev libyaml-dev meson ninja-build pkg-config libpcap-dev
      python3-scapy python3-matplotlib tshark gcc
      dpkg-dev groff-base systemd tmux clang-format flake8 iproute2 iputils-ping ethtool frr"
missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
	echo "setup: installing:$missing"
	SUDO=""
	[ "$(id -u)" = 0 ] || SUDO=sudo
	$SUDO apt-get update -q
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q $missing
fi
if [ ! -f build/build.ninja ]; then
	meson setup build
fi
ninja -C build

#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The rocetor authors
#
# tools/mkdeb.sh [--build-dir DIR] [--out DIR] [--march ARCH] [--jobs N]
#
# Builds the Debian package of rocetor with dpkg-deb from a DESTDIR install
# (doc/user-guide.md "Install and run as a service"): a release build
# configured --prefix=/usr --sysconfdir=/etc without the tests and the
# simulator (-Dsim=false: the package is the switch), installed
# stripped into a staging tree, plus DEBIAN/control (Depends found from the
# libraries the binaries link), conffiles (/etc/rocetor) and maintainer
# scripts that reload systemd. Prints the path of the .deb.
#
#   --build-dir DIR  meson build directory (default build-deb/, reused)
#   --out DIR        where the .deb goes (default out/deb/)
#   --march ARCH     -march of the build (default x86-64-v3: AVX2 machines,
#                    so that one package serves a lab's servers; "native" for
#                    this machine only)
#   --jobs N         ninja -j N (default: ninja's own)
# Needs meson, ninja, dpkg-deb; dpkg-shlibdeps (dpkg-dev) when present,
# else the Depends come from dpkg -S on the linked libraries.
set -eu

src=$(cd "$(dirname "$0")/.." && pwd)
build=$src/build-deb
out=$src/out/deb
march=x86-64-v3
jobs=

while [ $# -gt 0 ]; do
	case $1 in
	--build-dir) build=$2; shift 2 ;;
	--out) out=$2; shift 2 ;;
	--march) march=$2; shift 2 ;;
	--jobs) jobs=-j$2; shift 2 ;;
	-h | --help) sed -n '4,22p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "mkdeb: unknown option \"$1\" (see --help)" >&2; exit 2 ;;
	esac
done
for t in meson ninja dpkg-deb dpkg readelf; do
	command -v $t >/dev/null || { echo "mkdeb: $t not found" >&2; exit 1; }
done

# 1. Build. Reconfigure an existing build dir to the package's options.
opts="-Dprefix=/usr -Dsysconfdir=/etc -Dbuildtype=release -Dtests=false -Dsim=false
	-Dcpu_instruction_set=$march"
if [ -f "$build/build.ninja" ]; then
	# shellcheck disable=SC2086
	meson configure "$build" $opts >/dev/null
else
	# shellcheck disable=SC2086
	meson setup "$build" "$src" $opts >/dev/null
fi
# shellcheck disable=SC2086
ninja -C "$build" $jobs >/dev/null

# 2. Install into a staging tree.
stage=$(mktemp -d "${TMPDIR:-/tmp}/rocetor-deb.XXXXXX")
trap 'rm -rf "$stage"' EXIT
root=$stage/root
meson install -C "$build" --destdir "$root" --no-rebuild --strip --quiet
gzip -9n "$root/usr/share/man/man8/rocetor.8"
cat >"$root/usr/share/doc/rocetor/copyright" <<'EOF'
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: rocetor

Files: *
Copyright: 2026 The rocetor authors
License: BSD-3-Clause
 On Debian systems the full text of the BSD 3-clause license is in
 /usr/share/common-licenses/BSD.
EOF

# 3. Version, architecture, dependencies.
version=$(sed -n "s/^[[:space:]]*version: '\([^']*\)'.*/\1/p" "$src/meson.build" | head -n 1)
if git -C "$src" rev-parse --verify -q HEAD >/dev/null 2>&1; then
	version=$version+git$(git -C "$src" log -1 --format=%cd --date=format:%Y%m%d%H%M).$(
		git -C "$src" rev-parse --short=7 HEAD)
fi
arch=$(dpkg --print-architecture)
bins="$root/usr/bin/rocetor $root/usr/bin/rocetor-info"

depends=
if command -v dpkg-shlibdeps >/dev/null; then
	mkdir -p "$stage/shl/debian"
	printf 'Source: rocetor\n\nPackage: rocetor\nArchitecture: any\n' \
		>"$stage/shl/debian/control"
	# shellcheck disable=SC2086
	depends=$(cd "$stage/shl" && dpkg-shlibdeps -O $bins 2>/dev/null |
		sed -n 's/^shlibs:Depends=//p')
fi
if [ -z "$depends" ]; then
	# The package of each linked library, at its installed upstream version.
	# shellcheck disable=SC2086
	for lib in $(readelf -d $bins | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | sort -u); do
		path=$(ldconfig -p | awk -v l="$lib" '$1 == l { print $NF; exit }')
		[ -n "$path" ] || { echo "mkdeb: $lib: not found by ldconfig" >&2; exit 1; }
		pkg=$(dpkg -S "$(readlink -f "$path")" 2>/dev/null | head -n 1 | cut -d: -f1) ||
			pkg=
		[ -n "$pkg" ] || pkg=$(dpkg -S "$path" | head -n 1 | cut -d: -f1)
		ver=$(dpkg-query -W -f '${Version}' "$pkg" | sed 's/^[0-9]*://; s/[-+~].*//')
		echo "$pkg (>= $ver)"
	done | sort -u >"$stage/deps"
	depends=$(paste -sd, "$stage/deps" | sed 's/,/, /g')
fi
# The EAL loads its drivers as plugins, which no binary links: the ring
# mempool driver rocetor cannot start without, and the port drivers a lab
# uses (recommended: a lab installs the ones of its NICs).
plugin_pkg() {
	for f in /usr/lib/*/dpdk/pmds-*/librte_"$1".so.*; do
		[ -e "$f" ] && dpkg -S "$f" 2>/dev/null | head -n 1 | cut -d: -f1
		return
	done
}
ring=$(plugin_pkg mempool_ring) || ring=
[ -n "$ring" ] || { echo "mkdeb: the DPDK ring mempool driver is not installed" >&2; exit 1; }
# rocetor-top, rocetor-exporter and the rtrpy module they import
# (/usr/lib/python3/dist-packages/rtrpy) are Python 3.
depends="$depends, $ring, python3"
recommends=dpdk
for d in net_mlx5 net_ice net_i40e net_ixgbe net_pcap net_null net_ring net_memif net_tap; do
	p=$(plugin_pkg $d) || p=
	[ -n "$p" ] && recommends="$recommends, $p"
done

# 4. DEBIAN/.
mkdir -p "$root/DEBIAN"
(cd "$root" && find etc -type f | sort | sed 's|^|/|') >"$root/DEBIAN/conffiles"
cat >"$root/DEBIAN/control" <<EOF
Package: rocetor
Version: $version
Architecture: $arch
Maintainer: ${ROCETOR_MAINTAINER:-The rocetor authors <root@localhost>}
Installed-Size: $(du -sk --exclude=DEBIAN "$root" | cut -f1)
Depends: $depends
Recommends: $recommends
Section: net
Priority: optional
Description: DPDK software top-of-rack switch for RoCEv2 fabrics
 rocetor forwards IPv4/IPv6 between DPDK ports with LPM routing and balances
 the uplinks by ECMP, ConWeave, SeqBalance, CAVER or spray, for RDMA labs.
 Run it as a service: rocetor@NAME.service with /etc/rocetor/NAME.yaml
 (man rocetor, /usr/share/doc/rocetor/doc/user-guide.md).
EOF
# Instances are never enabled nor started by the package: only told about.
for s in postinst postrm; do
	cat >"$root/DEBIAN/$s" <<'EOF'
#!/bin/sh
set -e
if [ -d /run/systemd/system ]; then
	systemctl daemon-reload >/dev/null || true
fi
EOF
done
cat >"$root/DEBIAN/prerm" <<'EOF'
#!/bin/sh
set -e
if [ "$1" = remove ] && [ -d /run/systemd/system ]; then
	systemctl stop 'rocetor@*.service' >/dev/null || true
fi
# The byte code Python wrote for rtrpy (not a file of the package).
rm -rf /usr/lib/python3/dist-packages/rtrpy/__pycache__
EOF
chmod 0755 "$root/DEBIAN/postinst" "$root/DEBIAN/postrm" "$root/DEBIAN/prerm"

mkdir -p "$out"
deb=$out/rocetor_${version}_$arch.deb
dpkg-deb --root-owner-group -Zxz --build "$root" "$deb" >/dev/null
echo "$deb"

#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# cross-build.sh LINE: memwalk-client and the selftests for a cross-built
# line's architecture, from a copy of the tree in out/user-ARCH (one for
# all lines of that architecture: they depend on the uapi, not on the
# kernel; the host's builds stay as they are), against the libraries make
# setup extracted into the arm64 sysroot.  The client is linked dynamically
# as on the host; the selftests statically.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

line=$(mw_built "${1:?usage: cross-build.sh LINE}")
[ "$(mw_karch "$line")" = arm64 ] || die "$line is not a cross-built arm64 line"
triplet=aarch64-linux-gnu
root=$MW_CACHE/arm64/sysroot
[ -f "$root/.memwalk-done" ] || die "no arm64 sysroot at $root: run 'make setup'"
out=$(mw_xuser "$line")
rm -rf "$out" && mkdir -p "$out"
cp -a "$MW_TOP/userspace" "$MW_TOP/selftests" "$MW_TOP/labs" "$MW_TOP/uapi" "$out/"
make -s -C "$out/userspace" clean >/dev/null
make -s -C "$out/selftests" TOP="$out" KSFT_DIR="$KSFT_DIR" clean >/dev/null

# pkg-config sees the sysroot's .pc files only, and prefixes their paths.
pc="env PKG_CONFIG_LIBDIR=$root/usr/lib/$triplet/pkgconfig:$root/usr/share/pkgconfig PKG_CONFIG_SYSROOT_DIR=$root pkg-config"
libs="-L$root/lib/$triplet -L$root/usr/lib/$triplet"
libs="$libs -Wl,-rpath-link,$root/lib/$triplet -Wl,-rpath-link,$root/usr/lib/$triplet"
cross=(CC="$triplet-gcc" PKG_CONFIG="$pc" CFLAGS="-O2 -I$root/usr/include" LDFLAGS="$libs")

log "memwalk-client for $line"
make -j"$(nproc)" -C "$out/userspace" TOP="$out" "${cross[@]}"
log "selftests for $line"
make -j"$(nproc)" -C "$out/selftests" TOP="$out" KSFT_DIR="$KSFT_DIR" "${cross[@]}"
file "$out/userspace/memwalk-client" | grep -q 'ARM aarch64' ||
	die "$out/userspace/memwalk-client is not an arm64 program"

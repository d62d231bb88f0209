#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# build-module.sh LINE [make args...]: build memwalk.ko for a kernel line into
# out/LINE/memwalk.ko.  Each line builds in its own copy of the sources, so
# the three builds never share objects; sid lines build inside the chroot.
# A line that boots another's build (KBUILT) builds that one.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

line=$(mw_built "${1:?usage: build-module.sh LINE [make args]}")
shift
cross=()
[ "$(mw_karch "$line")" = x86_64 ] || cross=(ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-)
krel=$(mw_krel "$line")
kdir=$(mw_kdir "$line")
out=$MW_OUT/$line
mkdir -p "$out"

if [ "$(mw_ksuite "$line")" = sid ] || [ "$(mw_ksuite "$line")" = arm64-sid ]; then
	# One build dir per output tree, so parallel builds never collide.
	rel=/build/memwalk-$(printf '%s' "$MW_OUT" | md5sum | cut -c1-8)-$line
	src=$MW_CHROOT$rel
	run() { mw_chroot make -C "$kdir" M="$rel" "${cross[@]}" "$@"; }
elif [ "$(mw_ksuite "$line")" = arm64 ]; then
	src=$out/src
	[ -d "$kdir" ] || die "no headers at $kdir: run 'make setup'"
	run() { make -C "$kdir" M="$src" "${cross[@]}" "$@"; }
else
	src=$out/src
	[ -d "$kdir" ] || die "no headers at $kdir: run 'make setup'"
	run() { make -C "$kdir" M="$src" "$@"; }
fi

rm -rf "$src" && mkdir -p "$src"
# MW_SRC: build another tree (the reliability lane's planted-bug copy).
msrc=${MW_SRC:-$MW_TOP}
cp -a "$msrc/Kbuild" "$msrc/module" "$msrc/uapi" "$src/"
log "memwalk.ko for $line ($krel)"
run modules -j"$(nproc)" "$@" 2>&1 | tee "$out/build.log"
[ "${PIPESTATUS[0]}" = 0 ] || die "module build failed for $line, see $out/build.log"
# Any warning is an error; modpost's "undefined!" is the one -Werror misses.
if grep -E 'warning:|undefined!|error:' "$out/build.log" >/dev/null; then
	die "module build for $line printed warnings, see $out/build.log"
fi
cp "$src/memwalk.ko" "$out/memwalk.ko"

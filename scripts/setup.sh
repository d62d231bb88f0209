#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make setup: install everything memwalk builds and tests with, on a Debian 12
# host, as root.  Idempotent: a second run only checks.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" = 0 ] || die "make setup needs root (apt, debootstrap, chroot)"
[ -r /etc/debian_version ] || die "make setup expects a Debian 12 host"

HOST_PKGS="build-essential pkg-config libnl-3-dev libnl-genl-3-dev libsmartcols-dev
	libmicrohttpd-dev libjson-c-dev libncurses-dev tmux procps prometheus curl sparse
	dkms debootstrap mandoc dwarves cpio kmod xz-utils zstd bc flex bison
	libelf-dev libssl-dev qemu-system-x86 busybox-static python3 perl time valgrind
	gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-system-arm gpgv debian-archive-keyring
	linux-source-6.1 linux-source-$DEBUG_KLINE"

apt_get() { DEBIAN_FRONTEND=noninteractive apt-get -y -q -o Dpkg::Use-Pty=0 "$@"; }

host_packages() {
	local bpo=/etc/apt/sources.list.d/memwalk-backports.list want=() p l
	if ! grep -rqs "bookworm-backports" /etc/apt/sources.list /etc/apt/sources.list.d/; then
		echo "deb $DEBIAN_MIRROR bookworm-backports main" > "$bpo"
	fi
	for l in $KLINES; do
		[ "$(mw_ksuite "$l")" = host ] && HOST_PKGS="$HOST_PKGS linux-headers-$(mw_krel "$l")"
	done
	for p in $HOST_PKGS; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || want+=("$p")
	done
	[ ${#want[@]} = 0 ] && { log "host packages: all present"; return; }
	log "host packages: installing ${want[*]}"
	apt_get update >/dev/null
	apt_get install --no-install-recommends "${want[@]}" >/dev/null
}

# checkpatch.pl and kselftest_harness.h are taken from linux-source-6.1 at
# build time; they are never copied into the repository.
kernel_source_bits() {
	local d=$MW_CACHE/ksrc-6.1
	[ -f "$d/.done" ] && return
	log "extracting checkpatch and the kselftest harness from linux-source-6.1"
	mkdir -p "$d"
	tar -C "$d" --strip-components=1 -xJf /usr/src/linux-source-6.1.tar.xz \
		linux-source-6.1/scripts/checkpatch.pl \
		linux-source-6.1/scripts/spelling.txt \
		linux-source-6.1/scripts/const_structs.checkpatch \
		linux-source-6.1/tools/testing/selftests/kselftest_harness.h \
		linux-source-6.1/tools/testing/selftests/kselftest.h
	touch "$d/.done"
}

sid_chroot() {
	local krel=$1
	if [ ! -f "$MW_CHROOT/.memwalk-base" ]; then
		log "debootstrap: sid chroot in $MW_CHROOT"
		rm -rf "$MW_CHROOT"
		debootstrap --variant=minbase \
			--include=gcc,make,libc6-dev,bc,flex,bison,libelf-dev,libssl-dev,dwarves,kmod,cpio,sparse \
			sid "$MW_CHROOT" "$DEBIAN_MIRROR" > "$MW_CACHE/debootstrap.log" 2>&1 ||
			die "debootstrap failed, see $MW_CACHE/debootstrap.log"
		echo "deb $DEBIAN_MIRROR sid main" > "$MW_CHROOT/etc/apt/sources.list"
		touch "$MW_CHROOT/.memwalk-base"
	fi
	if [ ! -d "$MW_CHROOT/usr/src/linux-headers-$krel" ]; then
		log "sid chroot: installing linux-headers-$krel"
		mw_sid_apt update >/dev/null
		mw_sid_apt install --no-install-recommends "linux-headers-$krel" >/dev/null
	fi
	# Debian's 7.x headers package lacks kbuild's checker test, so C=1
	# would silently skip sparse; stand in a minimal one: does it run?
	local cv
	cv=$(ls -d "$MW_CHROOT"/usr/src/linux-headers-*-common | grep -F "${krel%-amd64}")/scripts/checker-valid.sh
	if [ ! -e "$cv" ]; then
		printf '#!/bin/sh\n# written by memwalk setup: is the checker usable?\n"$@" -E /dev/null >/dev/null 2>&1 && echo 1\n' > "$cv"
		chmod +x "$cv"
	fi
}

# Debian 6.x images ship vmlinuz in /boot and modules in /lib/modules; 7.x
# splits them into linux-binary (vmlinuz under /usr/lib/modules) and
# linux-modules.  Normalise both to kernels/<krel>/{vmlinuz,lib/modules/<krel>}.
kernel_image() {
	local line=$1 krel dir debs=$MW_CACHE/debs pkgs p f
	krel=$(mw_krel "$line")
	dir=$(mw_kimage "$line")
	[ -f "$dir/.done" ] && return
	log "kernel image $krel"
	mkdir -p "$debs" && rm -rf "$dir" && mkdir -p "$dir"
	if [ "$(mw_ksuite "$line")" = sid ]; then
		pkgs="linux-binary-$krel linux-modules-$krel"
		mw_chroot sh -c "mkdir -p /tmp/debs && cd /tmp/debs && apt-get -o Acquire::Check-Valid-Until=false -o APT::Sandbox::User=root download $pkgs" >/dev/null
		for p in $pkgs; do
			mv "$MW_CHROOT"/tmp/debs/"$p"_*.deb "$debs/"
		done
	else
		pkgs="linux-image-$krel-unsigned"
		(cd "$debs" && ls "$pkgs"_*.deb >/dev/null 2>&1 ||
			apt-get -o APT::Sandbox::User=root download "$pkgs" >/dev/null)
	fi
	for p in $pkgs; do
		f=$(ls "$debs/$p"_*.deb | sort -V | tail -n 1)
		dpkg-deb -x "$f" "$dir/x"
	done
	if [ -f "$dir/x/boot/vmlinuz-$krel" ]; then
		mv "$dir/x/boot/vmlinuz-$krel" "$dir/vmlinuz"
		mkdir -p "$dir/lib/modules" && mv "$dir/x/lib/modules/$krel" "$dir/lib/modules/"
	else
		mv "$dir/x/usr/lib/modules/$krel/vmlinuz" "$dir/vmlinuz"
		mkdir -p "$dir/lib/modules" && mv "$dir/x/usr/lib/modules/$krel" "$dir/lib/modules/"
	fi
	rm -rf "$dir/x"
	touch "$dir/.done"
}

# arm64_index MIRROR SUITE: the suite's arm64 package index, trusted as apt
# would trust it (InRelease signed by Debian's archive keys, the index's
# hash in it), into $MW_CACHE/arm64/Packages-SUITE; once per setup run.
arm64_indexed=
arm64_index() {
	local mirror=$1 suite=$2 dir=$MW_CACHE/arm64 rel idx sum
	case " $arm64_indexed " in *" $suite "*) return ;; esac
	rel=$dir/InRelease-$suite
	idx=$dir/Packages-$suite
	mkdir -p "$dir/debs"
	curl -fsSL -o "$rel" "$mirror/dists/$suite/InRelease" || die "cannot fetch $suite's InRelease"
	gpgv --keyring /usr/share/keyrings/debian-archive-keyring.gpg "$rel" 2>/dev/null ||
		die "$suite's InRelease: bad signature"
	curl -fsSL -o "$idx.xz" "$mirror/dists/$suite/main/binary-arm64/Packages.xz" ||
		die "cannot fetch $suite's arm64 index"
	sum=$(awk '/^SHA256:/{on=1; next} /^[^ ]/{on=0} on && $3=="main/binary-arm64/Packages.xz"{print $1}' "$rel")
	echo "$sum  $idx.xz" | sha256sum -c --quiet - || die "$suite's arm64 index: hash mismatch"
	xz -dc "$idx.xz" > "$idx"
	arm64_indexed="$arm64_indexed $suite"
}

# arm64_deb MIRROR SUITE PKG DEST: fetch PKG by that index (arm64_index
# first), check its hash, extract it into DEST.
arm64_deb() {
	local mirror=$1 suite=$2 pkg=$3 dest=$4 idx=$MW_CACHE/arm64/Packages-$2 f sum deb
	f=$(awk -v p="$pkg" '$1=="Package:"{on=($2==p)} on&&$1=="Filename:"{print $2; exit}' "$idx")
	sum=$(awk -v p="$pkg" '$1=="Package:"{on=($2==p)} on&&$1=="SHA256:"{print $2; exit}' "$idx")
	[ -n "$f" ] && [ -n "$sum" ] || die "$pkg is not in $suite's arm64 index"
	deb=$MW_CACHE/arm64/debs/${f##*/}
	if ! echo "$sum  $deb" | sha256sum -c --quiet - >/dev/null 2>&1; then
		curl -fsSL -o "$deb" "$mirror/$f" || die "cannot fetch $f"
		echo "$sum  $deb" | sha256sum -c --quiet - || die "$f: hash mismatch"
	fi
	dpkg-deb -x "$deb" "$dest"
}

# arm64_from LINE: the mirror and suite a cross-built line's packages come
# from, and the root its headers are extracted into.
arm64_from() {
	case $(mw_ksuite "$1") in
	arm64) echo "$ARM64_MIRROR $ARM64_SUITE $MW_CACHE/arm64" ;;
	arm64-sid) echo "$DEBIAN_MIRROR sid $MW_CHROOT" ;;
	*) die "$1 is not a cross-built arm64 line" ;;
	esac
}

# The arm64 headers of a cross-built line, extracted, never installed.
# Their kbuild links point at the linux-kbuild of the same version (amd64,
# Multi-Arch: foreign), and their Makefile includes the -common headers
# (Architecture: all) by absolute path: both come with the amd64 headers
# of that version, on the host (arm64) or in the sid chroot (arm64-sid,
# which then needs the cross compiler there too).
arm64_headers() {
	local line=$1 krel kdir kb l f mirror suite root
	krel=$(mw_krel "$line")
	read -r mirror suite root <<< "$(arm64_from "$line")"
	kdir=$root/usr/src/linux-headers-$krel
	[ -f "$kdir/.memwalk-done" ] && return
	log "arm64 headers $krel ($suite)"
	arm64_index "$mirror" "$suite"
	arm64_deb "$mirror" "$suite" "linux-headers-$krel" "$root"
	if [ "$suite" = sid ]; then
		log "sid chroot: installing gcc-aarch64-linux-gnu"
		mw_sid_apt update >/dev/null
		mw_sid_apt install --no-install-recommends gcc-aarch64-linux-gnu >/dev/null
		for l in scripts tools; do
			[ -d "$kdir/$l/" ] || die "$kdir/$l: the chroot has no linux-kbuild of $krel's version"
		done
		f=$root$(sed -n 's/^include //p' "$kdir/Makefile")
	else
		for l in scripts tools; do
			kb=$(readlink "$kdir/$l")
			kb=/usr/lib/${kb#../../lib/}
			[ -d "$kb" ] || die "$kdir needs $kb: the host's linux-kbuild of the same version"
			ln -sfn "$kb" "$kdir/$l"
		done
		f=$(sed -n 's/^include //p' "$kdir/Makefile")
	fi
	[ -f "$f" ] || die "$kdir needs $f: the amd64 -common headers of the same version"
	touch "$kdir/.memwalk-done"
}

# The arm64 kernel image of a cross-built line (vmlinuz is an uncompressed
# Image with an EFI stub, which qemu -kernel boots as it is; 7.x ships it
# in linux-binary, its modules in linux-modules), and bookworm's static busybox
# for arm64, for its guests (scripts/vm-run.sh).
arm64_image() {
	local line=$1 krel dir mirror suite root p
	krel=$(mw_krel "$line")
	dir=$(mw_kimage "$line")
	[ -f "$dir/.done" ] && return
	log "arm64 kernel image $krel"
	read -r mirror suite root <<< "$(arm64_from "$line")"
	rm -rf "$dir" && mkdir -p "$dir/x" "$dir/lib/modules"
	arm64_index "$mirror" "$suite"
	case $krel in
	6.*) arm64_deb "$mirror" "$suite" "linux-image-$krel-unsigned" "$dir/x" ;;
	*) for p in linux-binary linux-modules; do
		arm64_deb "$mirror" "$suite" "$p-$krel" "$dir/x"
	   done ;;
	esac
	if [ -f "$dir/x/boot/vmlinuz-$krel" ]; then
		mv "$dir/x/boot/vmlinuz-$krel" "$dir/vmlinuz"
		mv "$dir/x/lib/modules/$krel" "$dir/lib/modules/"
	else
		mv "$dir/x/usr/lib/modules/$krel/vmlinuz" "$dir/vmlinuz"
		mv "$dir/x/usr/lib/modules/$krel" "$dir/lib/modules/"
	fi
	rm -rf "$dir/x"
	touch "$dir/.done"
}

arm64_busybox() {
	local dir=$MW_CACHE/arm64/busybox
	[ -x "$dir/bin/busybox" ] && return
	log "busybox for arm64 guests"
	rm -rf "$dir" && mkdir -p "$dir"
	arm64_index "$DEBIAN_MIRROR" bookworm
	arm64_deb "$DEBIAN_MIRROR" bookworm busybox-static "$dir"
}

# The client's and the selftests' libraries for arm64 (bookworm's), in a
# sysroot the cross builds point pkg-config, -I and -L at
# (scripts/cross-build.sh): the -dev packages and the shared libraries
# the client's, and libmicrohttpd's, closure needs at link time.
ARM64_SYSROOT_PKGS="libnl-3-dev libnl-genl-3-dev libnl-3-200 libnl-genl-3-200
	libsmartcols-dev libsmartcols1 libmicrohttpd-dev libmicrohttpd12
	libgnutls30 libgmp10 libhogweed6 libidn2-0 libnettle8 libp11-kit0
	libtasn1-6 libunistring2 libffi8 libncurses-dev libncursesw6 libncurses6 libtinfo6"
arm64_sysroot() {
	local root=$MW_CACHE/arm64/sysroot p
	[ -f "$root/.memwalk-done" ] && return
	log "arm64 sysroot for the client and the selftests"
	rm -rf "$root" && mkdir -p "$root"
	arm64_index "$DEBIAN_MIRROR" bookworm
	for p in $ARM64_SYSROOT_PKGS; do
		arm64_deb "$DEBIAN_MIRROR" bookworm "$p" "$root"
	done
	touch "$root/.memwalk-done"
}

# make deb and its test in make check: Debian's packaging tools.  The
# bookworm chroot the packages are installed into is made by that test
# (cached, scripts/deb.sh), so make setup demo does not wait for it.
deb_packaging() {
	local want=() p
	for p in debhelper dh-dkms lintian; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || want+=("$p")
	done
	if [ ${#want[@]} != 0 ]; then
		log "packaging tools: installing ${want[*]}"
		apt_get update >/dev/null
		apt_get install --no-install-recommends "${want[@]}" >/dev/null
	fi
}

main() {
	local t0=$SECONDS line
	mkdir -p "$MW_CACHE"
	host_packages
	kernel_source_bits
	for line in $KLINES; do
		[ "$(mw_ksuite "$line")" = sid ] && sid_chroot "$(mw_krel "$line")"
	done
	for line in $KLINES; do
		kernel_image "$line"
	done
	for line in $XLINES; do
		[ "$(mw_karch "$line")" != arm64 ] ||
			{ arm64_headers "$line" && arm64_sysroot && arm64_image "$line" && arm64_busybox; }
	done
	deb_packaging
	log "setup done in $((SECONDS - t0)) s; kernels: $KLINES; cross-built: $XLINES"
}

main "$@"

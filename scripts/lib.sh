# SPDX-License-Identifier: GPL-2.0
# Shared by the memwalk scripts: paths, kernel lines, the sid chroot.
# Sourced, never run.

MW_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
. "$MW_TOP/scripts/versions"
MW_CACHE=${MW_CACHE:-$HOME/.cache/memwalk}
MW_CHROOT=$MW_CACHE/sid-chroot
MW_OUT=${MW_OUT:-$MW_TOP/out}
KSFT_DIR=${KSFT_DIR:-$MW_CACHE/ksrc-6.1/tools/testing/selftests}
CHECKPATCH=${CHECKPATCH:-$MW_CACHE/ksrc-6.1/scripts/checkpatch.pl}

die() { echo "memwalk: $*" >&2; exit 1; }
log() { echo "==> $*" >&2; }

mw_var() { eval "printf '%s' \"\${$1_$(printf '%s' "$2" | tr .- __):-}\""; }

# The debug kernel is the pseudo line "debug": built here, not packaged.
mw_debug_dir() { printf '%s/debug-%s' "$MW_CACHE" "$DEBUG_KLINE"; }

# mw_krel LINE: the Debian ABI name of a kernel line ("6.12" -> 6.12.117+deb12-amd64)
mw_krel() {
	local r
	if [ "$1" = debug ]; then
		[ -f "$(mw_debug_dir)/krel" ] || die "no debug kernel: run 'make check-debug'"
		cat "$(mw_debug_dir)/krel"
		return
	fi
	r=$(mw_var KREL "$1")
	[ -n "$r" ] || die "unknown kernel line '$1' (known: $KLINES $XLINES)"
	printf '%s' "$r"
}

mw_ksuite() {
	if [ "$1" = debug ]; then echo debug; else mw_var KSUITE "$1"; fi
}

# Where the headers live, as seen by the make that builds against them
# (inside the chroot for the sid lines).
mw_kdir() {
	if [ "$1" = debug ]; then
		printf '%s/src' "$(mw_debug_dir)"
	elif [ "$(mw_ksuite "$1")" = arm64 ]; then
		printf '%s/arm64/usr/src/linux-headers-%s' "$MW_CACHE" "$(mw_krel "$1")"
	else
		printf '/usr/src/linux-headers-%s' "$(mw_krel "$1")"
	fi
}

# The architecture a line's kernel runs: arm64 for the cross-built lines.
mw_karch() {
	case $(mw_ksuite "$1") in arm64*) echo arm64 ;; *) echo x86_64 ;; esac
}

# A cross-built line's client and selftests: one build per architecture
# (they depend on the uapi, not on the kernel).
mw_xuser() { printf '%s/user-%s' "$MW_OUT" "$(mw_karch "$1")"; }

# The line whose module, client and selftests a line boots: its own, or
# KBUILT's (the same kernel on another CPU).
mw_built() {
	local b
	b=$(mw_var KBUILT "$1")
	printf '%s' "${b:-$1}"
}

# Extracted image: vmlinuz and lib/modules/<krel>/ of a kernel line.
mw_kimage() {
	if [ "$1" = debug ]; then
		mw_debug_dir
	else
		printf '%s/kernels/%s' "$MW_CACHE" "$(mw_krel "$1")"
	fi
}

# Run a command inside the sid chroot with /proc mounted (objtool needs it);
# the mount lives in a private namespace and dies with the command.
mw_chroot() {
	[ -d "$MW_CHROOT/usr" ] || die "no sid chroot at $MW_CHROOT: run 'make setup'"
	unshare -m --propagation private sh -c \
		'mount -t proc proc "$0/proc" && exec chroot "$0" "$@"' \
		"$MW_CHROOT" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root "$@"
}

mw_sid_apt() {
	mw_chroot env DEBIAN_FRONTEND=noninteractive apt-get -y -q \
		-o Acquire::Check-Valid-Until=false -o APT::Sandbox::User=root \
		-o Dpkg::Use-Pty=0 "$@"
}

# The guest modules for swap and a disk-backed page cache (the VM suite, the
# labs): zram, ext4 (for ext2), and the crc32c it loads where that is a
# crypto module (before 7.x).
mw_disk_modules() {
	local m="zram ext4"
	find "$(mw_kimage "$1")/lib/modules" -name 'crc32c_generic.ko*' | grep -q . &&
		m="$m crc32c_generic"
	echo "$m"
}

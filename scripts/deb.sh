#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The Debian packages memwalk-dkms and memwalk-client (debian/), and their
# test on a throw-away Debian 12 host.
#
#   deb.sh build   make deb: build both packages with dpkg-buildpackage on a
#                  copy of the tree (the tree stays clean) into out/deb/
#   deb.sh chroot  make the cached bookworm test chroot (check makes it if missing)
#   deb.sh check   make check's section: build, lintian, then in overlays of
#                  the chroot: install (DKMS builds for every kernel line
#                  with headers), the 6.1 module in the 6.1 VM, purge leaves
#                  no file behind, reinstall, and an install without headers.
#                  One "ok"/"not ok" line per result; details on stderr.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

DEB_OUT=$MW_OUT/deb
DEB_CHROOT=$MW_CACHE/bookworm-chroot
# The kernel headers come from bookworm-security, like the host's.
DEB_SECURITY_MIRROR=${DEBIAN_MIRROR}-security
# A test host that already runs DKMS modules: dkms and its toolchain.
DEB_INCLUDE=dkms,apt

# The Makefile's VERSION, the one version every other place must repeat.
mw_version() { sed -n 's/^VERSION[[:space:]]*:=[[:space:]]*//p' "$MW_TOP/Makefile"; }

# The kernel lines whose headers bookworm ships (6.1, 6.12): their ABI names.
# Not the -rt- flavour: DKMS builds the same dkms.conf the same way for it
# (the package test is about the package, and two kernels show "every kernel
# with headers"); make check builds the module for 6.12-rt and runs its suite.
deb_krels() {
	local l
	for l in $KLINES; do
		[ "$(mw_ksuite "$l")" = host ] || continue
		case $(mw_krel "$l") in *-rt-*) continue ;; esac
		mw_krel "$l" && echo
	done
}

# --- make deb --------------------------------------------------------------

deb_build() {
	local ver f src=$DEB_OUT/build
	ver=$(mw_version)
	[ -n "$ver" ] || die "no VERSION in $MW_TOP/Makefile"
	rm -rf "$src" "$DEB_OUT"/*.deb "$DEB_OUT"/*.changes "$DEB_OUT"/*.buildinfo
	mkdir -p "$src/memwalk-$ver"
	# The tree as it is (tracked and new files, not what .gitignore
	# excludes), so builds never touch the checkout.
	if git -C "$MW_TOP" rev-parse --git-dir >/dev/null 2>&1; then
		git -C "$MW_TOP" ls-files -z -co --exclude-standard |
			while IFS= read -r -d '' f; do
				[ ! -e "$MW_TOP/$f" ] || printf '%s\0' "$f"
			done | tar -C "$MW_TOP" --null -T - -cf - | tar -C "$src/memwalk-$ver" -xf -
	else
		tar -C "$MW_TOP" --exclude=./out -cf - . | tar -C "$src/memwalk-$ver" -xf -
	fi
	[ -f "$src/memwalk-$ver/debian/rules" ] || die "copy of the tree has no debian/rules"
	(cd "$src/memwalk-$ver" && dpkg-buildpackage -b -us -uc) > "$DEB_OUT/build.log" 2>&1 ||
		{ tail -n 30 "$DEB_OUT/build.log" >&2; die "dpkg-buildpackage failed, see $DEB_OUT/build.log"; }
	mv "$src"/*.deb "$src"/*.changes "$src"/*.buildinfo "$DEB_OUT/"
	rm -rf "$src"
	ls "$DEB_OUT"/*.deb
}

# --- the cached bookworm chroot ------------------------------------------

# Rebuilt only when what goes into it changes: the mirrors, the packages,
# the kernels (scripts/versions) or the recipe below.
deb_chroot_key() {
	{
		echo "$DEBIAN_MIRROR $DEB_SECURITY_MIRROR $DEB_INCLUDE"
		deb_krels
		declare -f deb_chroot
	} | sha256sum | cut -c1-16
}

deb_chroot() {
	local key tmp=$DEB_CHROOT.new k
	key=$(deb_chroot_key)
	[ "$(cat "$DEB_CHROOT/.memwalk-key" 2>/dev/null)" = "$key" ] && return 0
	log "debootstrap: bookworm chroot in $DEB_CHROOT (key $key)"
	rm -rf "$tmp" "$DEB_CHROOT"
	mkdir -p "$MW_CACHE"
	debootstrap --variant=minbase --include="$DEB_INCLUDE" bookworm "$tmp" "$DEBIAN_MIRROR" \
		> "$MW_CACHE/debootstrap-bookworm.log" 2>&1 ||
		die "debootstrap failed, see $MW_CACHE/debootstrap-bookworm.log"
	cat > "$tmp/etc/apt/sources.list" <<-EOF
	deb $DEBIAN_MIRROR bookworm main
	deb $DEB_SECURITY_MIRROR bookworm-security main
	EOF
	MW_CHROOT=$tmp mw_sid_apt update >/dev/null
	# The 6.12 headers pull in the kernel image; this root never boots, so
	# its initramfs (minutes of mkinitramfs) is not made.
	MW_CHROOT=$tmp mw_chroot dpkg-divert --local --rename --add /usr/sbin/update-initramfs >/dev/null
	ln -s /bin/true "$tmp/usr/sbin/update-initramfs"
	# shellcheck disable=SC2046
	MW_CHROOT=$tmp mw_sid_apt install --no-install-recommends \
		$(deb_krels | sed 's/^/linux-headers-/') >/dev/null
	# A host has its kernels' module indexes (the image packages run
	# depmod); without them the first DKMS install would create them and
	# the purge test would see files that no package owns.
	for k in $(deb_krels); do
		MW_CHROOT=$tmp mw_chroot depmod -a "$k"
	done
	echo "$key" > "$tmp/.memwalk-key"
	mv "$tmp" "$DEB_CHROOT"
}

# --- make check's section ----------------------------------------------------

fails=0
# (Output is matched with grep -q on here-strings: with pipefail, "cmd |
# grep -q" fails when grep exits before cmd has written everything.)
# res DESC CMD...: one result line for a command; its output goes to stderr
res() {
	local desc=$1
	shift
	if "$@" >&2; then
		echo "ok - $desc"
	else
		echo "not ok - $desc"
		fails=$((fails + 1))
		return 1
	fi
}

# Throw-away roots: an overlay over the cached chroot, so the cache never
# changes and a test costs no copy.
ovl_root() { printf '%s/ovl/%s/root' "$DEB_OUT" "$1"; }

ovl_down_all() {
	local m
	for m in $(awk -v d="$DEB_OUT/ovl/" 'index($2, d) == 1 { print $2 }' /proc/mounts); do
		umount "$m"
	done
	rm -rf --one-file-system "$DEB_OUT/ovl"
}

ovl_up() {
	local d=$DEB_OUT/ovl/$1
	mkdir -p "$d/upper" "$d/work" "$d/root"
	mount -t overlay overlay \
		-o "lowerdir=$DEB_CHROOT,upperdir=$d/upper,workdir=$d/work" "$d/root" &&
	mkdir -p "$d/root/tmp/memwalk-deb" &&
	cp "$DEB_OUT"/memwalk-dkms_*.deb "$DEB_OUT"/memwalk-client_*.deb "$d/root/tmp/memwalk-deb/"
}

# in_root NAME CMD...: run CMD in that overlay (lib.sh's chroot helpers)
in_root() { local n=$1; shift; MW_CHROOT=$(ovl_root "$n") mw_chroot "$@"; }
apt_in() { local n=$1; shift; MW_CHROOT=$(ovl_root "$n") mw_sid_apt "$@"; }

# Every path in the root with its type, less the package manager's own
# state (its status file, logs and caches; dpkg's per-package info files
# stay in) and our copy of the .debs.
file_list() {
	local r
	r=$(ovl_root "$1")
	(cd "$r" && find . -path ./proc -prune -o -path ./tmp/memwalk-deb -prune -o -printf '%y %p\n') |
		grep -Ev '^. \./var/(log|lib/apt|cache/(apt|debconf|ldconfig))(/|$)' |
		grep -Ev '^. \./var/lib/dpkg/(status|available|lock|triggers|updates)' | sort
}

# install_debs ROOT PACKAGE...: apt install ./PACKAGE_*.deb, as on a host.
install_debs() {
	local n=$1 p f files=() rc
	shift
	for p in "$@"; do
		f=$(cd "$DEB_OUT" && ls "$p"_*.deb) || return 1
		files+=("/tmp/memwalk-deb/$f")
	done
	apt_in "$n" install --no-install-recommends "${files[@]}" > "$DEB_OUT/$n.install.log" 2>&1
	rc=$?
	cat "$DEB_OUT/$n.install.log"
	return $rc
}

debs_installed() {
	local n=$1 p
	for p in memwalk-dkms memwalk-client; do
		in_root "$n" dpkg-query -W -f='${Package}: ${Status}\n' "$p" | grep -x "$p: install ok installed" || return 1
	done
}

# dkms status says memwalk is installed for every kernel with headers, and
# the module it put there is built for that kernel.
dkms_built_all() {
	local n=$1 ver k ko r
	ver=$(mw_version)
	r=$(ovl_root "$n")
	in_root "$n" dkms status memwalk
	for k in $(deb_krels); do
		grep -q ": installed" <<< "$(in_root "$n" dkms status -m memwalk -v "$ver" -k "$k")" ||
			{ echo "dkms status: memwalk not installed for $k"; return 1; }
		ko=$(find "$r/lib/modules/$k/updates" -name 'memwalk.ko*' | head -n 1)
		[ -n "$ko" ] || { echo "no memwalk.ko under /lib/modules/$k/updates"; return 1; }
		grep -q "^$k " <<< "$(in_root "$n" modinfo -F vermagic "${ko#"$r"}")" ||
			{ echo "$ko: vermagic is not $k"; return 1; }
	done
}

client_runs() {
	local out
	out=$(in_root "$1" memwalk-client --version) && echo "$out" && grep -qF "$(mw_version)" <<< "$out"
}

# --autoremove: the libraries the client pulled in go with it, as on a host.
purge_debs() { apt_in "$1" purge --autoremove memwalk-dkms memwalk-client; }

# After purge: the same paths as before the install, nothing of memwalk
# left in DKMS's tree, dpkg's database or /lib/modules.
purge_clean() {
	local n=$1 p st
	file_list "$n" > "$DEB_OUT/$n.after-purge"
	diff -u "$DEB_OUT/$n.before" "$DEB_OUT/$n.after-purge" || return 1
	for p in memwalk-dkms memwalk-client; do
		st=$(in_root "$n" dpkg-query -W -f='${Status}' "$p" 2>/dev/null)
		case $st in
		"" | "unknown ok not-installed" | "purge ok not-installed") ;;
		*) echo "dpkg still has $p: $st"; return 1 ;;
		esac
	done
	st=$(in_root "$n" dkms status memwalk)
	[ -z "$st" ] || { echo "dkms still has: $st"; return 1; }
}

# The module the package built for 6.1, in the 6.1 VM: insmod, the client
# asks it who it is, rmmod (scripts/guest/dkms.sh, as for make dkms-install).
vm_smoke() {
	local r ko k dst=$DEB_OUT/ko-6.1
	k=$(mw_krel 6.1)
	r=$(ovl_root install)
	ko=$(find "$r/lib/modules/$k/updates" -name 'memwalk.ko*' | head -n 1)
	[ -n "$ko" ] || { echo "not ok - package-built memwalk.ko in the 6.1 VM: no module for $k"; return 1; }
	rm -rf "$dst" && mkdir -p "$dst"
	case $ko in
	*.xz) xz -dc "$ko" > "$dst/memwalk.ko" ;;
	*.zst) zstd -qdc "$ko" > "$dst/memwalk.ko" ;;
	*) cp "$ko" "$dst/memwalk.ko" ;;
	esac
	[ -x "$MW_TOP/userspace/memwalk-client" ] || make -s -C "$MW_TOP/userspace" TOP="$MW_TOP" >&2
	MW_KO=$dst/memwalk.ko "$MW_TOP/scripts/vm-run.sh" 6.1 "$MW_TOP/scripts/guest/dkms.sh" deb
}

# No headers: DKMS says so for each kernel, the package is still configured
# (dkms has "added" it) and a headers package installed later builds it.
no_headers_install() {
	local n=$1 k
	install_debs "$n" memwalk-dkms || return 1
	for k in $(deb_krels); do
		grep -q "Module build for kernel $k was skipped since the" "$DEB_OUT/$n.install.log" ||
			{ echo "no DKMS message about the missing headers of $k"; return 1; }
	done
	in_root "$n" dpkg-query -W -f='${Status}\n' memwalk-dkms | grep -x 'install ok installed' &&
	grep -q ': added$' <<< "$(in_root "$n" dkms status memwalk)"
}

headers_later() {
	local n=$1 k
	k=$(mw_krel 6.1)
	apt_in "$n" install --no-install-recommends --no-download "linux-headers-$k" &&
	grep -q ": installed" <<< "$(in_root "$n" dkms status -m memwalk -k "$k")"
}

# The purge check's own test: with the prerm that runs "dkms remove" taken
# away, purge must leave DKMS's tree and the module built for 6.1 behind,
# and the file list comparison must say so.
purge_check_catches() {
	local n=$1 out
	rm "$(ovl_root "$n")/var/lib/dpkg/info/memwalk-dkms.prerm" &&
	apt_in "$n" purge memwalk-dkms || return 1
	if out=$(purge_clean "$n"); then
		echo "purge_clean passed although memwalk's prerm did not run"
		return 1
	fi
	grep memwalk <<< "$out"
	grep -q '^+. \./var/lib/dkms/memwalk' <<< "$out" &&
	grep -q "^+f \./usr/lib/modules/$(mw_krel 6.1)/updates/dkms/memwalk\.ko" <<< "$out"
}

# make deb must leave the checkout as it found it.
build_leaves_tree() {
	local before after
	before=$(git -C "$MW_TOP" status --porcelain 2>&1)
	DEB_BUILD_OPTIONS=nocheck "$0" build || return 1
	after=$(git -C "$MW_TOP" status --porcelain 2>&1)
	[ "$before" = "$after" ] || { echo "git status changed:"; diff <(echo "$before") <(echo "$after"); return 1; }
}

reinstall() { install_debs "$1" memwalk-dkms memwalk-client && debs_installed "$1" && dkms_built_all "$1"; }

deb_check() {
	local t0=$SECONDS t ver krels
	set +e
	ver=$(mw_version)
	krels=$(deb_krels | paste -sd ' ')
	trap ovl_down_all EXIT
	trap 'exit 130' INT TERM
	ovl_down_all

	t=$SECONDS
	# nocheck: the client's host tests ran earlier in make check.
	if ! res "make deb: memwalk-dkms and memwalk-client $ver with dpkg-buildpackage, git status unchanged" \
		build_leaves_tree; then
		echo "not ok - Debian packages: nothing to test without the packages"
		return 1
	fi
	res "lintian: no errors or warnings on memwalk-dkms and memwalk-client" \
		lintian --fail-on error,warning -I --pedantic --display-experimental \
			"$DEB_OUT"/memwalk-dkms_*.deb "$DEB_OUT"/memwalk-client_*.deb
	echo "# deb: build and lintian took $((SECONDS - t)) s"

	t=$SECONDS
	if ! res "bookworm test chroot with headers for $krels (cached, key $(deb_chroot_key))" "$0" chroot; then
		echo "not ok - Debian packages: no test chroot"
		return 1
	fi
	echo "# deb: chroot ready in $((SECONDS - t)) s"

	t=$SECONDS
	res "throw-away root: an overlay over the chroot" ovl_up install || return 1
	file_list install > "$DEB_OUT/install.before"
	res "apt install ./memwalk-dkms_${ver}_all.deb ./memwalk-client_*.deb in the bookworm chroot" \
		install_debs install memwalk-dkms memwalk-client &&
	res "both packages configured (dpkg: install ok installed)" debs_installed install
	res "DKMS built and installed memwalk.ko for $krels (dkms status, vermagic)" dkms_built_all install
	res "memwalk-client --version runs in the chroot and says $ver" client_runs install
	echo "# deb: install took $((SECONDS - t)) s"

	vm_smoke || fails=$((fails + 1))

	t=$SECONDS
	res "apt purge --autoremove memwalk-dkms memwalk-client" purge_debs install &&
	res "purge leaves the chroot's file list as before the install (no module, no /usr/src, no DKMS tree)" \
		purge_clean install
	res "reinstall after purge: installed, DKMS builds for $krels again" \
		reinstall install
	echo "# deb: purge and reinstall took $((SECONDS - t)) s"

	t=$SECONDS
	res "throw-away root for the no-headers case" ovl_up noheaders || return 1
	# shellcheck disable=SC2046
	res "no kernel headers: headers packages removed from a second overlay" \
		apt_in noheaders purge $(deb_krels | sed 's/^/linux-headers-/') &&
	file_list noheaders > "$DEB_OUT/noheaders.before" &&
	res "install without headers: DKMS says the headers are missing for $krels, package configured, module added" \
		no_headers_install noheaders &&
	res "headers installed later: the kernel hook has DKMS build memwalk for $(mw_krel 6.1)" \
		headers_later noheaders
	res "the purge check fails when the package's prerm leaves DKMS's tree and module behind" \
		purge_check_catches noheaders
	echo "# deb: the no-headers case took $((SECONDS - t)) s"

	echo "# deb: the section took $((SECONDS - t0)) s"
	[ "$fails" = 0 ]
}

case ${1:-} in
build) deb_build ;;
chroot) deb_chroot ;;
check) deb_check ;;
*) die "usage: deb.sh build|chroot|check" ;;
esac

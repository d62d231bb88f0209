#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# debug-kernel.sh: build (once) the debug kernel of the reliability lane from
# Debian's linux-source of DEBUG_KLINE: x86_64_defconfig + kvm_guest.config
# + scripts/debug/memwalk-debug.config.  Cached under ~/.cache/memwalk and
# rebuilt only when the source package or the config fragment changes.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

tar=/usr/src/linux-source-$DEBUG_KLINE.tar.xz
[ -f "$tar" ] || die "no $tar: run 'make setup'"
frag=$MW_TOP/scripts/debug/memwalk-debug.config
dir=$(mw_debug_dir)
key=$( (stat -c '%s %Y' "$tar"; cat "$frag") | md5sum | cut -c1-16)
if [ -f "$dir/.done" ] && [ "$(cat "$dir/.done")" = "$key" ]; then
	log "debug kernel is current ($dir)"
	exit 0
fi

log "building the debug kernel from $(basename "$tar") (about 20 min on 2 cores)"
rm -rf "$dir" && mkdir -p "$dir"
tar -C "$dir" -xJf "$tar"
mv "$dir/linux-source-$DEBUG_KLINE" "$dir/src"
cd "$dir/src"
t0=$SECONDS
{
	make x86_64_defconfig
	./scripts/kconfig/merge_config.sh -m .config kernel/configs/kvm_guest.config "$frag"
	make olddefconfig
	# Every option of the fragment must have survived olddefconfig.
	miss=0
	while IFS= read -r l; do
		case $l in CONFIG_*=n) o=${l%=n}; grep -q "^$o=" .config && { echo "lost: $l"; miss=1; } ;;
		CONFIG_*) grep -qx "$l" .config || { echo "lost: $l"; miss=1; } ;; esac
	done < "$frag"
	[ $miss = 0 ]
	make -j"$(nproc)" bzImage modules
	make -j"$(nproc)" INSTALL_MOD_PATH="$dir/mods" INSTALL_MOD_STRIP=1 modules_install
} > "$dir/build.log" 2>&1 || die "debug kernel build failed, see $dir/build.log"
krel=$(make -s kernelrelease)
cp arch/x86/boot/bzImage "$dir/vmlinuz"
mkdir -p "$dir/lib/modules"
mv "$dir/mods/lib/modules/$krel" "$dir/lib/modules/$krel"
echo "$krel" > "$dir/krel"
echo "$key" > "$dir/.done"
log "debug kernel $krel built in $((SECONDS - t0)) s"

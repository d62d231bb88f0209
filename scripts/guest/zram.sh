# SPDX-License-Identifier: GPL-2.0
# Sourced by the guest scripts (scripts/vm-run.sh puts it in /etc/memwalk):
# a disk file system for page cache that can be dropped or written back,
# as the root and /tmp are RAM file systems.  Needs the zram and ext2
# drivers (MW_VM_MODULES, scripts/lib.sh mw_disk_modules).

# zram_ext2 SIZE DIR: ext2 on a new zram device of SIZE (32M...), mounted
# at DIR; says which device, or fails
zram_ext2() {
	zram_id=
	[ -e /sys/class/zram-control/hot_add ] &&
		zram_id=$(cat /sys/class/zram-control/hot_add) &&
		echo "$1" > "/sys/block/zram$zram_id/disksize" &&
		mke2fs -q -b 4096 "/dev/zram$zram_id" >/dev/null &&
		mkdir -p "$2" && mount -t ext2 "/dev/zram$zram_id" "$2" &&
		echo "# zram$zram_id: ext2 at $2"
}

# SPDX-License-Identifier: GPL-2.0
# The watch half of make bench, in a guest booted with QEMU -icount (its
# clock counts executed instructions): what `memwalk-client watch PID
# --batch -J -i 0.1` costs a 1 GiB mixed-state target at work, and a 16 GiB
# one, mostly not populated: 256 MiB of it the same mixed states at work
# (selftests/memwalk_watchbench.c).  zram swap for
# the swapped part, ext2 on a second zram device for page cache (the root
# and /tmp are RAM file systems), THP on madvise.
echo 512M > /sys/block/zram0/disksize && mkswap /dev/zram0 >/dev/null && swapon /dev/zram0 ||
	echo "# no zram swap: the swapped part stays resident"
. /etc/memwalk/zram.sh || exit 1
if zram_ext2 192M /mnt/memwalk-disk; then
	export MEMWALK_DISK=/mnt/memwalk-disk
else
	echo "# no disk file system: the target's file is on tmpfs, shmem"
fi
echo madvise > /sys/kernel/mm/transparent_hugepage/enabled
insmod /lib/memwalk/memwalk.ko || exit 1
if [ -f /etc/memwalk/profile ]; then
	# scripts/profile-watch.sh: one window alone, one watched, as phases
	. /etc/memwalk/profile-syms.sh
	MEMWALK_WATCHBENCH_PROFILE=$(cat /etc/memwalk/profile) /selftests/memwalk_watchbench 1024
	exit
fi
echo "# ==== watch benchmark ($(uname -r)), guest clock counting instructions"
/selftests/memwalk_watchbench 1024
/selftests/memwalk_watchbench 256 16128
# The same target forked, not exec()ed: it shares its parent's anonymous
# pages, and the watch reads PFNs to tell a COW break from a page kept.
MEMWALK_WATCHBENCH_FORKED=1 /selftests/memwalk_watchbench 1024
rmmod memwalk

# SPDX-License-Identifier: GPL-2.0
# make bench, in a fresh guest booted with QEMU -icount (its clock counts
# executed instructions, 1 ns each): the snapshot benchmark, free of the
# host's timing noise.  zram swap for the swapped part of the target, THP
# on madvise.
echo 512M > /sys/block/zram0/disksize && mkswap /dev/zram0 >/dev/null && swapon /dev/zram0 ||
	echo "# no zram swap: the swapped region stays resident"
echo madvise > /sys/kernel/mm/transparent_hugepage/enabled
insmod /lib/memwalk/memwalk.ko || exit 1
echo "# ==== snapshot benchmark ($(uname -r)), guest clock counting instructions"
/selftests/memwalk_bench
rmmod memwalk

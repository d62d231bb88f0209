# SPDX-License-Identifier: GPL-2.0
# make bench, in the guest: zram swap for the swapped part of the target,
# THP on madvise, then the snapshot benchmark and the event latency (the
# probes' overhead is measured by bench-icount.sh).
echo 512M > /sys/block/zram0/disksize && mkswap /dev/zram0 >/dev/null && swapon /dev/zram0 ||
	echo "# no zram swap: the swapped region stays resident"
echo madvise > /sys/kernel/mm/transparent_hugepage/enabled
insmod /lib/memwalk/memwalk.ko || exit 1
echo "# ==== snapshot benchmark ($(uname -r))"
/selftests/memwalk_bench
[ -x /selftests/memwalk_evbench ] && { echo "# ==== event benchmark: latency"; /selftests/memwalk_evbench; }
rmmod memwalk

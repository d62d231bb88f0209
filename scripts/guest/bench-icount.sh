# SPDX-License-Identifier: GPL-2.0
# make bench, in a guest booted with QEMU -icount (its clock counts executed
# instructions, 1 ns each): the snapshot benchmark and the probes' overhead
# on the reclaim workload, free of the host's timing noise.  zram swap for
# the swapped part of the snapshot target, THP on madvise.
echo 512M > /sys/block/zram0/disksize && mkswap /dev/zram0 >/dev/null && swapon /dev/zram0 ||
	echo "# no zram swap: the swapped region stays resident"
echo madvise > /sys/kernel/mm/transparent_hugepage/enabled
insmod /lib/memwalk/memwalk.ko || exit 1
echo "# ==== snapshot benchmark ($(uname -r)), guest clock counting instructions"
/selftests/memwalk_bench
echo "# ==== event benchmark: overhead, guest clock counting instructions"
MEMWALK_EVBENCH_CLOCK=icount MEMWALK_EVBENCH_ROUNDS=5 /selftests/memwalk_evbench
rmmod memwalk

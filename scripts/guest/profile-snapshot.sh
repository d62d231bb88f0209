# SPDX-License-Identifier: GPL-2.0
# scripts/profile.sh, in a guest under QEMU -icount with the TCG plugin:
# the bench target, then only the snapshots /etc/memwalk/profile asks for
# (MEMWALK_BENCH_PROFILE).  The kernel's text symbols go out first, as
# "KSYM" lines: the report needs this boot's addresses (KASLR).
echo 512M > /sys/block/zram0/disksize && mkswap /dev/zram0 >/dev/null && swapon /dev/zram0 ||
	echo "# no zram swap: the swapped region stays resident"
echo madvise > /sys/kernel/mm/transparent_hugepage/enabled
insmod /lib/memwalk/memwalk.ko || exit 1
grep -i ' t ' /proc/kallsyms | sed 's/^/KSYM /'
MEMWALK_BENCH_PROFILE=$(cat /etc/memwalk/profile) /selftests/memwalk_bench
rmmod memwalk

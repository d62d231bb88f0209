# SPDX-License-Identifier: GPL-2.0
# scripts/profile-ps.sh, in a guest under QEMU -icount with the TCG plugin
# marking phases: the ps targets, then each part of `memwalk-client ps`
# and its peer (every smaps_rollup read) MW_PROFILE_N times, a phase each
# (MEMWALK_BENCH_PROFILE=ps:N).  Where code is goes out first.
insmod /lib/memwalk/memwalk.ko || exit 1
. /etc/memwalk/profile-syms.sh
MEMWALK_BENCH_PROFILE=ps:$(cat /etc/memwalk/profile) /selftests/memwalk_bench
rmmod memwalk

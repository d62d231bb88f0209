# SPDX-License-Identifier: GPL-2.0
# The ps half of make bench alone (MEMWALK_BENCH_ONLY=ps), in a guest
# booted with QEMU -icount: `memwalk-client ps` against reading every
# /proc/PID/smaps_rollup, and where ps's time goes (selftests/memwalk_bench.c).
insmod /lib/memwalk/memwalk.ko || exit 1
echo "# ==== ps benchmark ($(uname -r)), guest clock counting instructions"
MEMWALK_BENCH_ONLY=ps MEMWALK_BENCH_REPS=${MEMWALK_BENCH_REPS:-3} /selftests/memwalk_bench
rmmod memwalk

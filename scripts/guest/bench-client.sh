# SPDX-License-Identifier: GPL-2.0
# The client half of make bench alone, in a guest booted with QEMU -icount:
# `memwalk-client PID` against `cat /proc/PID/smaps` on a 60,000-VMA
# process (selftests/memwalk_bench.c).  A /selftests/memwalk_client_before
# (another build of the client, copied in as a selftest) is measured beside.
insmod /lib/memwalk/memwalk.ko || exit 1
echo "# ==== client benchmark ($(uname -r)), guest clock counting instructions"
MEMWALK_BENCH_ONLY=client MEMWALK_BENCH_REPS=${MEMWALK_BENCH_REPS:-3} \
MEMWALK_BENCH_CLIENT_BEFORE=/selftests/memwalk_client_before /selftests/memwalk_bench
rmmod memwalk

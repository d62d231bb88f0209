# SPDX-License-Identifier: GPL-2.0
# make bench, in a guest booted with QEMU -icount (its clock counts executed
# instructions): the probes' overhead on the reclaim workload, free of the
# host's timing noise.
echo 512M > /sys/block/zram0/disksize && mkswap /dev/zram0 >/dev/null && swapon /dev/zram0 ||
	echo "# no zram swap: the event benchmark will say so"
insmod /lib/memwalk/memwalk.ko || exit 1
echo "# ==== event benchmark: overhead, guest clock counting instructions"
# 8 passes (about 7 s a round): the guest's times come in 20 ms steps, so
# one step is 0.3% of a round, not the 1.2% of the default 2 passes.
MEMWALK_EVBENCH_CLOCK=icount MEMWALK_EVBENCH_ROUNDS=5 MEMWALK_EVBENCH_PASSES=8 \
	/selftests/memwalk_evbench
rmmod memwalk

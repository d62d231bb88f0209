# SPDX-License-Identifier: GPL-2.0
# make bench, in the guest: the probe-to-client event latency (the snapshot
# benchmark and the probes' overhead run in bench-icount.sh).
echo 512M > /sys/block/zram0/disksize && mkswap /dev/zram0 >/dev/null && swapon /dev/zram0 ||
	echo "# no zram swap: the event benchmark will say so"
insmod /lib/memwalk/memwalk.ko || exit 1
[ -x /selftests/memwalk_evbench ] && { echo "# ==== event benchmark: latency"; /selftests/memwalk_evbench; }
rmmod memwalk

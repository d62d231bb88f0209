# SPDX-License-Identifier: GPL-2.0
# The selftest suite, run by the guest's /init: first the binaries that load
# and unload the module themselves, then those that need it loaded.
export MEMWALK_KO=/lib/memwalk/memwalk.ko
cd /selftests || exit 1

for t in memwalk_lifecycle; do
	[ -x "$t" ] || { echo "not ok - $t: missing from the initramfs"; continue; }
	echo "# ==== $t"
	"./$t" || echo "not ok - $t exited with status $?"
done

if insmod "$MEMWALK_KO"; then
	echo "ok - insmod memwalk.ko"
else
	echo "not ok - insmod memwalk.ko"
fi
# Fuzzer and stress last: they leave nothing behind but must not break the
# module for what follows (bounded: MEMWALK_FUZZ_SECONDS per surface,
# MEMWALK_STRESS_SECONDS per stress test).
export MEMWALK_FUZZ_SECONDS=${MEMWALK_FUZZ_SECONDS:-8}
export MEMWALK_STRESS_SECONDS=${MEMWALK_STRESS_SECONDS:-10}
for t in memwalk_dev memwalk_events memwalk_fuzz memwalk_stress; do
	[ -x "$t" ] || { echo "not ok - $t: missing from the initramfs"; continue; }
	echo "# ==== $t"
	"./$t" || echo "not ok - $t exited with status $?"
done
# The snapshot tests compare memwalk with pagemap, kpageflags and smaps on a
# target in known states, so the guest must offer those states and then keep
# still: swap on zram (MW_VM_MODULES=zram), a disk file system for disk-backed
# page cache (ext2 on a second zram device; the initramfs root and /tmp are
# RAM file systems), reserved hugetlb pages (MW_VM_APPEND=hugepages=16, or
# reserved here), THP for MADV_HUGEPAGE only, and no periodic writeback that
# could clean a dirty page between two reads.
snapshot_guest_setup() {
	local id
	if [ -e /sys/block/zram0 ] && ! grep -q '^/dev/zram0 ' /proc/swaps; then
		# An earlier test may have sized it already.
		if { [ "$(cat /sys/block/zram0/disksize)" != 0 ] ||
			echo 256M > /sys/block/zram0/disksize; } &&
			mkswap /dev/zram0 >/dev/null && swapon /dev/zram0; then
			echo "# zram0: $(($(cat /sys/block/zram0/disksize) >> 20))M of swap"
		else
			echo "# zram0: no swap (the swap tests will skip)"
		fi
	fi
	if [ -z "${MEMWALK_DISK:-}" ] && [ -e /sys/class/zram-control/hot_add ] &&
		id=$(cat /sys/class/zram-control/hot_add) &&
		echo 32M > "/sys/block/zram$id/disksize" && mke2fs -q -b 4096 "/dev/zram$id" >/dev/null &&
		mkdir -p /mnt/memwalk-disk && mount -t ext2 "/dev/zram$id" /mnt/memwalk-disk; then
		export MEMWALK_DISK=/mnt/memwalk-disk
		echo "# zram$id: ext2 at $MEMWALK_DISK"
	fi
	[ "$(cat /proc/sys/vm/nr_hugepages)" -ge 4 ] || echo 16 > /proc/sys/vm/nr_hugepages
	echo madvise > /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null
	echo 0 > /proc/sys/vm/dirty_writeback_centisecs
	echo "# hugetlb pages: $(cat /proc/sys/vm/nr_hugepages), THP: $(cat /sys/kernel/mm/transparent_hugepage/enabled)"
}
snapshot_guest_setup
# The states suites run their root variants here and their lab variant in
# the lab pass below (memwalk_states.h): each (test, variant) once.
snap_suites="memwalk_states memwalk_states_oracle memwalk_snap_walk memwalk_snap_abi memwalk_churn
	memwalk_summary"
client_suites="memwalk_client memwalk_client_diff memwalk_client_pages memwalk_client_ps
	memwalk_client_watch memwalk_labs"
# The census of physical memory: module and client (its JSON against the census).
snap_suites="$snap_suites memwalk_phys"
# The reliability lane looks for the module's splats and leaks: the client
# suites (and the labs' handouts, checked through the client) drive no
# module path the snapshot suites do not, and under KASAN and TCG they would
# cost the lane as much again; the release lines run them.
lab_client_suites=memwalk_labs
if [ -n "${MEMWALK_SUITE_MODULE_ONLY:-}" ]; then
	echo "# client suites not run here (MEMWALK_SUITE_MODULE_ONLY):" $client_suites
	client_suites=
	lab_client_suites=
fi
for t in $snap_suites $client_suites; do
	[ -x "$t" ] || { echo "not ok - $t: missing from the initramfs"; continue; }
	echo "# ==== $t"
	"./$t" || echo "not ok - $t exited with status $?"
done
if rmmod memwalk; then
	echo "ok - rmmod memwalk"
else
	echo "not ok - rmmod memwalk"
fi

# Lab mode: unprivileged snapshots of one's own processes; the states
# suites run their lab variant alone under this load, the labs those whose
# steps have an unprivileged check.
if insmod "$MEMWALK_KO" lab_mode=1; then
	echo "ok - insmod memwalk.ko lab_mode=1"
	for t in memwalk_states memwalk_states_oracle memwalk_summary memwalk_snapshot_lab memwalk_phys \
		$lab_client_suites; do
		[ -x "$t" ] || { echo "not ok - $t: missing from the initramfs"; continue; }
		echo "# ==== $t"
		"./$t" || echo "not ok - $t exited with status $?"
	done
	if rmmod memwalk; then
		echo "ok - rmmod memwalk (lab mode)"
	else
		echo "not ok - rmmod memwalk (lab mode)"
	fi
else
	echo "not ok - insmod memwalk.ko lab_mode=1"
fi

# SPDX-License-Identifier: GPL-2.0
# The selftest suite, run by the guest's /init: first the binaries that load
# and unload the module themselves, then those that need it loaded.
export MEMWALK_KO=/lib/memwalk/memwalk.ko
. /etc/memwalk/zram.sh || exit 1
cd /selftests || exit 1
# DAMON_STAT (7.2 starts it at boot) keeps a kdamond sampling all of
# physical memory, which costs the host real time under TCG, and clears
# the accessed bits of the PTEs that map what it samples: a quiet target's
# pages would turn unlike between two reads.  Stopped for the suite; the
# young-folio tests run DAMON themselves.
damon_stat=/sys/module/damon_stat/parameters/enabled
if [ -w "$damon_stat" ] && [ "$(cat "$damon_stat")" = Y ]; then
	echo N > "$damon_stat" && echo "# DAMON_STAT stopped"
fi
# A line that boots another's kernel and build on another CPU (KTESTS=walk
# in scripts/versions) runs only what walks page tables.
walk_only=
if [ "$(cat /etc/memwalk/tests 2>/dev/null)" = walk ]; then
	walk_only=1
	echo "# only the suites that walk page tables (KTESTS=walk): the others run this kernel and build on the line it boots:" \
		memwalk_lifecycle memwalk_events memwalk_fuzz memwalk_stress \
		memwalk_client memwalk_client_diff memwalk_client_pages memwalk_client_ps \
		memwalk_client_watch memwalk_labs
fi

# run_suite BINARY [NOTE]: one selftest binary, with how long it took (the
# guest's clock: what the check's time is made of), and each of its tests
# that took 10 s or more (the harness ends a test at its timeout, 30 s
# unless the test says otherwise: what nears it here fails on a busy host).
run_suite() {
	[ -x "$1" ] || { echo "not ok - $1: missing from the initramfs"; return; }
	echo "# ==== $1${2:+ ($2)}"
	suite_t0=$(date +%s)
	{ "./$1" || echo "not ok - $1 exited with status $?"; echo "MW-SUITE-END"; } 2>&1 |
		time_tests
	echo "# $1${2:+ ($2)} took $(($(date +%s) - suite_t0)) s"
}

# Ends at the suite's end, not at EOF: a child the suite left behind may
# hold the pipe open.
time_tests() {
	local l t0= d
	while IFS= read -r l; do
		case $l in
		MW-SUITE-END) return ;;
		esac
		printf '%s\n' "$l"
		case $l in
		"#  RUN "*) t0=$(date +%s) ;;
		"ok "*|"not ok "*)
			[ -n "$t0" ] || continue
			d=$(($(date +%s) - t0)) t0=
			[ "$d" -lt 10 ] || echo "# test ${l#*ok [0-9]* } took $d s" ;;
		esac
	done
}

# What the suites' randomised and repeated tests do is bounded by time or
# rounds: MEMWALK_FUZZ_SECONDS per fuzzed surface, MEMWALK_STRESS_SECONDS
# per stress test, MEMWALK_STORM_SECONDS for the churn storm, and
# MEMWALK_RACE_ROUNDS of GET_STATUS raced against insmod (each round so far
# was answered early).  They run on every line of a check but the walk-only
# one, seeded anew and the seed printed, so what one check leaves out the
# next may try: seven release guests and the lane's (which runs them
# longest) add up to some 4 minutes of fuzzing and stress.
export MEMWALK_FUZZ_SECONDS=${MEMWALK_FUZZ_SECONDS:-3}
export MEMWALK_STRESS_SECONDS=${MEMWALK_STRESS_SECONDS:-4}
export MEMWALK_STORM_SECONDS=${MEMWALK_STORM_SECONDS:-6}
export MEMWALK_RACE_ROUNDS=${MEMWALK_RACE_ROUNDS:-10}

[ -n "$walk_only" ] || run_suite memwalk_lifecycle

if insmod "$MEMWALK_KO"; then
	echo "ok - insmod memwalk.ko"
else
	echo "not ok - insmod memwalk.ko"
fi
# memwalk_dev (where only walks run too: it checks the module's paging
# levels against what user space can map), then the events, the fuzzer and
# stress: they leave nothing behind but must not break the module for what
# follows.
run_suite memwalk_dev
[ -n "$walk_only" ] || for t in memwalk_events memwalk_fuzz memwalk_stress; do
	run_suite "$t"
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
	if [ -z "${MEMWALK_DISK:-}" ] && zram_ext2 32M /mnt/memwalk-disk; then
		export MEMWALK_DISK=/mnt/memwalk-disk
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
fi
if [ -n "${MEMWALK_SUITE_MODULE_ONLY:-}" ] || [ -n "$walk_only" ]; then
	client_suites=
	lab_client_suites=
fi
for t in $snap_suites $client_suites; do
	run_suite "$t"
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
		run_suite "$t"
	done
	if rmmod memwalk; then
		echo "ok - rmmod memwalk (lab mode)"
	else
		echo "not ok - rmmod memwalk (lab mode)"
	fi
else
	echo "not ok - insmod memwalk.ko lab_mode=1"
fi

# The fast paths against the slow decode: the states suites again with
# check_fast_paths=1 (module/fastcheck.c), which decodes every page a
# shortcut put into a run once more the slow way under the same lock, then
# the counters; as root, then in lab mode (the states suites' lab variant:
# PFNs and swap offsets hidden, where pages alike join wherever they lie).
# Not in the reliability lane: there KASAN makes it cost as much as the
# lane's walk; the release lines cover every version and architecture the
# shortcuts are compiled for.
fast_path_counter() { sed -n "s/^$1: //p" /sys/kernel/debug/memwalk/fast_path_check; }
fast_path_pass() {
	local params=$1 suites=$2 t checked mismatched raced
	if ! insmod "$MEMWALK_KO" $params; then
		echo "not ok - insmod memwalk.ko $params"
		return
	fi
	echo "ok - insmod memwalk.ko $params"
	for t in $suites; do
		run_suite "$t" "$params"
	done
	checked=$(fast_path_counter pages_checked)
	mismatched=$(fast_path_counter pages_mismatched)
	raced=$(fast_path_counter pages_raced)
	echo "# fast-path check ($params): $checked pages checked, $mismatched mismatched, $raced raced"
	if [ "${checked:-0}" -gt 0 ] && [ "$mismatched" = 0 ]; then
		echo "ok - fast paths agree with the slow decode on $checked pages ($params)"
	else
		echo "not ok - fast paths agree with the slow decode ($params): ${checked:-?} checked, ${mismatched:-?} mismatched"
	fi
	if rmmod memwalk; then
		echo "ok - rmmod memwalk ($params)"
	else
		echo "not ok - rmmod memwalk ($params)"
	fi
}
if [ -z "${MEMWALK_SUITE_MODULE_ONLY:-}" ]; then
	fast_path_pass check_fast_paths=1 "memwalk_states memwalk_snap_walk"
	fast_path_pass "lab_mode=1 check_fast_paths=1" memwalk_states
fi

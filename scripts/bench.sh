#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make bench [KVER=line]: memwalk against its peers, measured in one VM run
# per line, and the probes' overhead in a second one under QEMU -icount;
# first, on the host, `show` of a generated snapshot of 1M page runs.
#   MEMWALK_BENCH_MIB (512)  size of the mixed-state target
#   MEMWALK_BENCH_RUNS (1000000)  page runs of the generated snapshot
#   MEMWALK_BENCH_ONLY=client  only `memwalk-client PID` against
#     `cat /proc/PID/smaps` (60,000 VMAs), in one guest per line
#   MEMWALK_BENCH_ONLY=ps  only `memwalk-client ps` against every
#     /proc/PID/smaps_rollup (200 processes), in one guest per line
#   MEMWALK_BENCH_ONLY=phys  only the census of physical memory against
#     reading /proc/kpageflags for every PFN, in one guest per line
#   MEMWALK_BENCH_ONLY=watch  only what `memwalk-client watch PID --batch
#     -i 0.1` costs a 1 GiB and a 16 GiB sparse target, in one guest per line
set -euo pipefail
. "$(dirname "$0")/lib.sh"
lines=${1:-6.12}
make -s -C "$MW_TOP/userspace" TOP="$MW_TOP" >/dev/null
make -s -C "$MW_TOP/selftests" TOP="$MW_TOP" KSFT_DIR="$KSFT_DIR" >/dev/null 2>&1
# A cross-built line's guests boot its architecture's client and selftests.
for line in $lines; do
	[ "$(mw_karch "$line")" = x86_64 ] || "$MW_TOP/scripts/cross-build.sh" "$line" >/dev/null
done
# What watch costs the process it watches: a 3 GiB guest, its clock
# counting instructions, one vCPU: with two (6.12 boots so) they share
# that clock, and the target's CPU time and the lock holds count the
# other vCPU's instructions as well (memwalk_watchbench says so).
bench_watch() {
	MW_VM_MEM=3072 MW_VM_CPUS=1 MW_VM_MODULES="$(mw_disk_modules "$1")" \
	MW_VM_APPEND="transparent_hugepage=madvise" \
	MW_VM_ICOUNT="shift=0,sleep=off" MW_VM_TIMEOUT=2400 \
		"$MW_TOP/scripts/vm-run.sh" "$1" "$MW_TOP/scripts/guest/bench-watch.sh" bench-watch
}
# The census of physical memory vs /proc/kpageflags (page-types -a): a 2 GiB
# guest whose clock counts instructions.
bench_phys() {
	MW_VM_MEM=2048 MW_VM_CPUS=1 MW_VM_ICOUNT="shift=0,sleep=off" MW_VM_TIMEOUT=900 \
		"$MW_TOP/scripts/vm-run.sh" "$1" "$MW_TOP/scripts/guest/bench-phys.sh" bench-phys
}
# One half of the snapshot benchmark alone (bench-client.sh, bench-ps.sh):
# a 2 GiB guest whose clock counts instructions.
bench_half() {
	MW_VM_MEM=2048 MW_VM_CPUS=1 MW_VM_ICOUNT="shift=0,sleep=off" MW_VM_TIMEOUT=1800 \
		"$MW_TOP/scripts/vm-run.sh" "$2" "$MW_TOP/scripts/guest/bench-$1.sh" "bench-$1"
}
# One benchmark alone, in one guest per line.
if [ -n "${MEMWALK_BENCH_ONLY:-}" ]; then
	only=$MEMWALK_BENCH_ONLY
	case $only in
	client) what="memwalk-client PID against cat smaps" ;;
	ps) what="memwalk-client ps against every smaps_rollup" ;;
	phys) what="phys census against /proc/kpageflags" ;;
	watch) what="what watch costs its target" ;;
	*) die "MEMWALK_BENCH_ONLY=$only: client, ps, phys or watch" ;;
	esac
	for line in $lines; do
		"$MW_TOP/scripts/build-module.sh" "$line" >/dev/null
		log "$what on $line under QEMU/TCG -icount"
		case $only in
		client|ps) bench_half "$only" "$line" ;;
		*) "bench_$only" "$line" ;;
		esac
	done
	exit 0
fi
"$MW_TOP/scripts/bench-show.sh"
for line in $lines; do
	"$MW_TOP/scripts/build-module.sh" "$line" >/dev/null
	log "benchmark on $line under QEMU/TCG: ratios only"
	# Guests whose clock counts instructions (QEMU -icount), one vCPU (6.1
	# hangs bringing up a second one under -icount): the snapshot
	# benchmark (its client half, 60,000 VMAs, takes some 5 minutes more),
	# then the probes' overhead, each in a fresh guest.
	MW_VM_MEM=$(( ${MEMWALK_BENCH_MIB:-512} * 2 + 1024 )) MW_VM_CPUS=1 \
	MW_VM_MODULES=zram MW_VM_APPEND="transparent_hugepage=madvise" \
	MW_VM_ICOUNT="shift=0,sleep=off" MW_VM_TIMEOUT=1800 \
		"$MW_TOP/scripts/vm-run.sh" "$line" "$MW_TOP/scripts/guest/bench-snapshot.sh" bench-snapshot
	MW_VM_MEM=1024 MW_VM_CPUS=1 MW_VM_MODULES=zram \
	MW_VM_ICOUNT="shift=0,sleep=off" MW_VM_TIMEOUT=900 \
		"$MW_TOP/scripts/vm-run.sh" "$line" "$MW_TOP/scripts/guest/bench-icount.sh" bench-icount
	bench_phys "$line"
	bench_watch "$line"
	# Event latency needs the host's clock.
	MW_VM_MEM=1024 MW_VM_MODULES=zram \
		"$MW_TOP/scripts/vm-run.sh" "$line" "$MW_TOP/scripts/guest/bench.sh" bench
done

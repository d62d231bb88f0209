#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# scripts/profile-watch.sh LINE: where `memwalk-client watch PID --batch -J
# -i 0.1` spends its instructions, kernel and user space alike, per
# function: the watch benchmark's 1 GiB mixed-state target at work
# (selftests/memwalk_watchbench.c, MEMWALK_WATCHBENCH_PROFILE=SECS), in one
# guest under QEMU -icount booted as make bench boots it, whose TCG plugin
# counts every block.  Phase 1 is the target alone for MW_PROFILE_SECS
# (default 4), phase 3 the same watched; both per refresh of phase 3: what
# phase 3 has more is the watcher's.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/profile/build.sh"

line=${1:?usage: profile-watch.sh LINE}
secs=${MW_PROFILE_SECS:-4}
profile_setup "$line" "$secs"
MW_VM_MEM=3072 MW_VM_MODULES="$(mw_disk_modules "$line")" \
MW_VM_APPEND="transparent_hugepage=madvise" MW_VM_TIMEOUT=2400 \
	profile_run "$line" watch "$MW_TOP/scripts/guest/bench-watch.sh"
refreshes=$(sed -n 's/.*# profile: .*: \([0-9]*\) refreshes in.*/\1/p' "$work/watch.out")
[ -n "$refreshes" ] && [ "$refreshes" -gt 0 ] || die "no refreshes in $work/watch.out"
echo "# $refreshes refreshes watched in $secs s; figures are per refresh"
profile_report watch "$refreshes" memwalk_watchbench

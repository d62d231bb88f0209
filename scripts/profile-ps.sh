#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# scripts/profile-ps.sh LINE: where `memwalk-client ps` and every
# /proc/PID/smaps_rollup read spend their instructions, per kernel
# function and user space, over the ps benchmark's targets: one guest
# under QEMU -icount whose TCG plugin counts every block, each part a
# phase (selftests/memwalk_bench.c, MEMWALK_BENCH_PROFILE=ps:N).  Phases:
# 0 setup, 1 smaps_rollup, 2 cmdline + summary calls, 3 cmdline reads,
# 4 `memwalk-client ps`, 5 `memwalk-client --help` (its start-up), each
# an iteration's instructions; the odd ones are the gaps between them.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/profile/build.sh"

line=${1:?usage: profile-ps.sh LINE}
n=${MW_PROFILE_N:-3}
work=$MW_OUT/profile
mkdir -p "$work"
profile_build "$line"
make -s -C "$MW_TOP/userspace" TOP="$MW_TOP" >/dev/null
echo "$n" > "$work/profile"
MW_VM_PLUGIN="$work/tcg-plugin.so,out=$work/ps.tb,mark=0x7e5500000000" \
MW_VM_FILES="$work/profile" MW_VM_MEM=2048 MW_VM_CPUS=1 \
MW_VM_ICOUNT="shift=0,sleep=off" MW_VM_TIMEOUT=1800 \
	"$MW_TOP/scripts/vm-run.sh" "$line" "$MW_TOP/scripts/guest/profile-ps.sh" profile-ps \
	> "$work/ps.out" 2>&1 || die "profile guest failed: $work/ps.out"
python3 "$MW_TOP/scripts/profile/report.py" --phases "$work/ps" "$n"

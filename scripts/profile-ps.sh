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
profile_setup "$line" "$n"
MW_VM_MEM=2048 MW_VM_TIMEOUT=1800 profile_run "$line" ps "$MW_TOP/scripts/guest/profile-ps.sh"
profile_report ps "$n" memwalk_bench

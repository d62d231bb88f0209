#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# scripts/profile.sh LINE REGION MODE [FUNCTION]: where a snapshot's
# instructions go, per page, per kernel function (or per block of
# FUNCTION).  Two guests under QEMU -icount with a TCG plugin counting
# the instructions of every kernel translation block: one builds the bench
# target and takes MW_PROFILE_N (20) snapshots of REGION (untouched, anon,
# thp, swapped, file, all) in MODE (full, no-folio, pte-only), the other
# takes none; the report is the difference.  A developer's tool: make
# bench gives the ratios.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/profile/build.sh"

line=${1:?usage: profile.sh LINE REGION MODE [FUNCTION]}
region=${2:?usage: profile.sh LINE REGION MODE [FUNCTION]}
mode=${3:?usage: profile.sh LINE REGION MODE [FUNCTION]}
func=${4:-}
n=${MW_PROFILE_N:-20}
mkdir -p "$work"

profile_build "$line"

run() {	# run N NAME
	echo "$region:$mode:$1" > "$work/profile"
	MW_VM_PLUGIN="$work/tcg-plugin.so,out=$work/$2.tb" MW_VM_FILES="$work/profile" \
	MW_VM_MEM=2048 MW_VM_CPUS=1 MW_VM_MODULES=zram \
	MW_VM_APPEND="transparent_hugepage=madvise" \
	MW_VM_ICOUNT="shift=0,sleep=off" MW_VM_TIMEOUT=900 \
		"$MW_TOP/scripts/vm-run.sh" "$line" \
		"$MW_TOP/scripts/guest/profile-snapshot.sh" profile > "$work/$2.out" 2>&1 ||
		die "profile guest failed: $work/$2.out"
}
run 0 base
run "$n" run
pages=$(sed -n 's/.*# profile: \([0-9]*\) snapshots of \([0-9]*\) pages.*/\1 \2/p' "$work/run.out")
[ -n "$pages" ] || die "no profile line in $work/run.out"
read -r nsnap npages <<< "$pages"
log "$line, $region, $mode: $nsnap snapshots of $npages pages"
python3 "$MW_TOP/scripts/profile/report.py" "$work/base" "$work/run" \
	$((nsnap * npages)) ${func:+"$func"}

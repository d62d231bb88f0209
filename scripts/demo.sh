#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make demo [KVER=line]: build, boot a throw-away VM, load memwalk, run the
# client there and print what it shows.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
line=${1:-6.12}
"$MW_TOP/scripts/build-module.sh" "$line" > /dev/null
if [ "$(mw_karch "$line")" = x86_64 ]; then
	make -s -C "$MW_TOP/userspace" TOP="$MW_TOP" > /dev/null
	make -s -C "$MW_TOP/selftests" TOP="$MW_TOP" KSFT_DIR="$KSFT_DIR" > /dev/null 2>&1
else
	# a cross-built line's guest boots its architecture's client and selftests
	"$MW_TOP/scripts/cross-build.sh" "$line" > /dev/null
fi
log "booting a $line guest under QEMU (TCG); this takes a few seconds"
MW_VM_QUIET=0 MW_VM_MODULES=zram MW_VM_APPEND="hugepages=8 transparent_hugepage=madvise" \
	"$MW_TOP/scripts/vm-run.sh" "$line" "$MW_TOP/scripts/guest/demo.sh" demo \
	| sed -e 's/^\[[^]]*\] //'

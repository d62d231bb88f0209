#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make lab [NAME=lab] [KVER=line] [SHELL=1]: without a name, list the labs;
# with one, boot a throw-away VM with memwalk and the lab's program and run
# the lab's steps (labs/NAME/steps.sh), printing each command and its output.
# With SHELL=1 the guest talks on this terminal and opens a shell after each
# step.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
name=${1:-}
line=${2:-6.12}
shell=${3:-}

if [ -z "$name" ]; then
	seen=
	echo "The labs (make lab NAME=lab, handouts in labs/NAME/README.md):"
	# In the order of labs/README.md's table, then any other.
	for n in $(sed -n 's/^| \[\([a-z0-9_-]*\)\](.*/\1/p' "$MW_TOP/labs/README.md") \
		$(cd "$MW_TOP/labs" && ls -d */ | tr -d /); do
		[ -f "$MW_TOP/labs/$n/steps.sh" ] && [[ " $seen " != *" $n "* ]] || continue
		seen="$seen $n"
		printf '  %-10s %s\n' "$n" "$(sed -n '1s/^# *//p' "$MW_TOP/labs/$n/README.md" 2>/dev/null)"
	done
	exit 0
fi
[[ $name =~ ^[a-z0-9_-]+$ ]] && [ -f "$MW_TOP/labs/$name/steps.sh" ] ||
	die "no lab '$name' (make lab lists them)"
files="$MW_TOP/labs/$name/steps.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
case $shell in
'' | 0) ;;
1)
	touch "$tmp/lab-shell"
	files="$files $tmp/lab-shell"
	export MW_VM_STDIO=1 MW_VM_TIMEOUT=${MW_VM_TIMEOUT:-7200}
	;;
*) die "SHELL=$shell: say SHELL=1 for a shell at each step" ;;
esac
# The module, the client, and the lab programs (static, with the selftests).
build() { "$@" > "$tmp/build.log" 2>&1 || { cat "$tmp/build.log" >&2; die "failed: $*"; }; }
build "$MW_TOP/scripts/build-module.sh" "$line"
if [ "$(mw_karch "$line")" = x86_64 ]; then
	build make -s -C "$MW_TOP/userspace" TOP="$MW_TOP"
	build make -s -C "$MW_TOP/selftests" TOP="$MW_TOP" KSFT_DIR="$KSFT_DIR"
else
	build "$MW_TOP/scripts/cross-build.sh" "$line"
fi
log "booting a $line guest under QEMU (TCG) for lab $name"
vm() {
	MW_VM_QUIET=0 MW_VM_MODULES="$(mw_disk_modules "$line")" MW_VM_APPEND="transparent_hugepage=madvise" \
		MW_VM_FILES="$files" "$MW_TOP/scripts/vm-run.sh" "$line" "$MW_TOP/scripts/guest/lab.sh" "lab-$name"
}
# The shell's prompt has no newline: no line filter in between then.
if [ -n "${MW_VM_STDIO:-}" ]; then
	vm
else
	vm | sed -e 's/^\[[^]]*\] //'
fi

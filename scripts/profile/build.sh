# SPDX-License-Identifier: GPL-2.0
# Sourced by scripts/profile*.sh after lib.sh.  Their files go to $work.
work=$MW_OUT/profile
# profile_build LINE builds the TCG plugin that counts every block into
# $work, LINE's module and the selftests.
profile_build() {
	cc -O2 -shared -fPIC -Wall -Werror -o "$work/tcg-plugin.so" \
		"$MW_TOP/scripts/profile/tcg-plugin.c"
	"$MW_TOP/scripts/build-module.sh" "$1" >/dev/null
	make -s -C "$MW_TOP/selftests" TOP="$MW_TOP" KSFT_DIR="$KSFT_DIR" >/dev/null 2>&1
}
# profile_setup LINE ARG: $work made, profile_build LINE and the client
# built, ARG in $work/profile for the guest (MW_VM_FILES).
profile_setup() {
	mkdir -p "$work"
	profile_build "$1"
	make -s -C "$MW_TOP/userspace" TOP="$MW_TOP" >/dev/null
	echo "$2" > "$work/profile"
}
# profile_run LINE NAME GUEST-SCRIPT: that guest under QEMU -icount, one
# vCPU, booted norandmaps (user space where profile-syms.sh says), the
# plugin marking phases into $work/NAME.tb, its output in $work/NAME.out;
# MW_VM_MEM, MW_VM_MODULES, MW_VM_APPEND and MW_VM_TIMEOUT as the caller
# sets them.
profile_run() {
	MW_VM_PLUGIN="$work/tcg-plugin.so,out=$work/$2.tb,mark=0x7e5500000000" \
	MW_VM_FILES="$work/profile $MW_TOP/scripts/guest/profile-syms.sh" MW_VM_CPUS=1 \
	MW_VM_APPEND="${MW_VM_APPEND:-} norandmaps" MW_VM_ICOUNT="shift=0,sleep=off" \
		"$MW_TOP/scripts/vm-run.sh" "$1" "$3" "profile-$2" > "$work/$2.out" 2>&1 ||
		die "profile guest failed: $work/$2.out"
}
# profile_report NAME N PROGRAM: the phases of $work/NAME, per Nth, with
# the client's and selftests/PROGRAM's user space by function.
profile_report() {
	python3 "$MW_TOP/scripts/profile/report.py" --phases "$work/$1" "$2" \
		"/bin/memwalk-client=$MW_TOP/userspace/memwalk-client" \
		"/selftests/$3=$MW_TOP/selftests/$3"
}

# SPDX-License-Identifier: GPL-2.0
# Sourced by scripts/profile*.sh after lib.sh: profile_build LINE builds
# the TCG plugin that counts every block into $work (set by the caller),
# LINE's module and the selftests.
profile_build() {
	cc -O2 -shared -fPIC -Wall -Werror -o "$work/tcg-plugin.so" \
		"$MW_TOP/scripts/profile/tcg-plugin.c"
	"$MW_TOP/scripts/build-module.sh" "$1" >/dev/null
	make -s -C "$MW_TOP/selftests" TOP="$MW_TOP" KSFT_DIR="$KSFT_DIR" >/dev/null 2>&1
}

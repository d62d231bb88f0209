# SPDX-License-Identifier: GPL-2.0
# The reliability lane in the debug kernel: the whole selftest suite between
# kmemleak bookends, then fault injection aimed at the module.
. /etc/memwalk/kmemleak.sh
kmemleak_begin
# Everything runs ~10x slower under KASAN and TCG: fewer load cycles, a
# smaller target killed mid-walk, and the fuzzer and stress bounded so the
# lane fits in CI (still some five times as long as a release line's).
export MEMWALK_CYCLES=20
export MEMWALK_FUZZ_SECONDS=20
export MEMWALK_STRESS_SECONDS=15
export MEMWALK_EXIT_VMAS=1000
export MEMWALK_EVENTS_NO_PRESSURE=1
export MEMWALK_SUITE_MODULE_ONLY=1
. /etc/memwalk/selftests.sh
[ -f /etc/memwalk/faultinject.sh ] && . /etc/memwalk/faultinject.sh
kmemleak_end

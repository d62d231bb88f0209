# SPDX-License-Identifier: GPL-2.0
# The reliability lane in the debug kernel: the whole selftest suite between
# kmemleak bookends, then fault injection aimed at the module.
. /etc/memwalk/kmemleak.sh
kmemleak_begin
export MEMWALK_FUZZ_SECONDS=60
export MEMWALK_STRESS_SECONDS=30
. /etc/memwalk/selftests.sh
[ -f /etc/memwalk/faultinject.sh ] && . /etc/memwalk/faultinject.sh
kmemleak_end

# SPDX-License-Identifier: GPL-2.0
# The selftest suite, run by the guest's /init: first the binaries that load
# and unload the module themselves, then those that need it loaded.
export MEMWALK_KO=/lib/memwalk/memwalk.ko
cd /selftests || exit 1

for t in memwalk_lifecycle; do
	[ -x "$t" ] || { echo "not ok - $t: missing from the initramfs"; continue; }
	echo "# ==== $t"
	"./$t" || echo "not ok - $t exited with status $?"
done

if insmod "$MEMWALK_KO"; then
	echo "ok - insmod memwalk.ko"
else
	echo "not ok - insmod memwalk.ko"
fi
# Fuzzer and stress last: they leave nothing behind but must not break the
# module for what follows (bounded: MEMWALK_FUZZ_SECONDS per surface,
# MEMWALK_STRESS_SECONDS per stress test).
export MEMWALK_FUZZ_SECONDS=${MEMWALK_FUZZ_SECONDS:-8}
export MEMWALK_STRESS_SECONDS=${MEMWALK_STRESS_SECONDS:-10}
for t in memwalk_dev memwalk_fuzz memwalk_stress; do
	[ -x "$t" ] || { echo "not ok - $t: missing from the initramfs"; continue; }
	echo "# ==== $t"
	"./$t" || echo "not ok - $t exited with status $?"
done
if rmmod memwalk; then
	echo "ok - rmmod memwalk"
else
	echo "not ok - rmmod memwalk"
fi

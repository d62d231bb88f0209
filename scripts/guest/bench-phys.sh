# SPDX-License-Identifier: GPL-2.0
# make bench, phys half, in a guest whose clock counts instructions (QEMU
# -icount): the census of physical memory against reading /proc/kpageflags
# for every PFN (page-types -a), after a page cache and some anon memory
# were made so that not everything is free.
insmod /lib/memwalk/memwalk.ko || exit 1
dd if=/dev/zero of=/tmp/phys-bench bs=1M count=128 2>/dev/null
echo 16 > /proc/sys/vm/nr_hugepages
echo "# ==== phys benchmark: census vs /proc/kpageflags"
/selftests/memwalk_physbench || echo "not ok - memwalk_physbench exited with status $?"
rm -f /tmp/phys-bench
rmmod memwalk

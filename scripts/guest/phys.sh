# SPDX-License-Identifier: GPL-2.0
# The census of physical memory alone (memwalk_phys), root then lab mode:
# for working on it without the whole suite
# (MW_VM_MODULES=zram scripts/vm-run.sh LINE this).  Without an ext2 driver
# in the guest (zram and ext4 loaded were not enough on 6.12) there is no
# disk file system and the file class stays empty: the root is tmpfs.
cd /selftests || exit 1
echo 8 > /proc/sys/vm/nr_hugepages
# A disk file system for page cache (the root is tmpfs): ext2 on zram
# (MW_VM_MODULES=zram), when the guest can mount it.
. /etc/memwalk/zram.sh || exit 1
if zram_ext2 32M /mnt/memwalk-disk; then
	export MEMWALK_DISK=/mnt/memwalk-disk
else
	echo "# no disk file system: the file class is empty"
fi
insmod /lib/memwalk/memwalk.ko || { echo "not ok - insmod memwalk.ko"; exit 1; }
./memwalk_phys || echo "not ok - memwalk_phys exited with status $?"
# What the client shows of this guest, as comments.
{ memwalk-client phys; memwalk-client phys --by zone -o node,zone,class,pages; } 2>&1 | sed 's/^/# /'
rmmod memwalk
insmod /lib/memwalk/memwalk.ko lab_mode=1 || { echo "not ok - insmod memwalk.ko lab_mode=1"; exit 1; }
./memwalk_phys || echo "not ok - memwalk_phys (lab mode) exited with status $?"
rmmod memwalk

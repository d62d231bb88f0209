# SPDX-License-Identifier: GPL-2.0
# The reliability lane's own test: the ioctl tests against a module with a
# planted bug.  The verdict is the guest's dmesg (check.sh looks for KASAN).
insmod /lib/memwalk/memwalk.ko || exit 1
/selftests/memwalk_dev
rmmod memwalk

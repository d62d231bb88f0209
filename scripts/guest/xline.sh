# SPDX-License-Identifier: GPL-2.0
# The VM suite of a cross-built line: first the paging levels the guest
# runs, as the module reports them, against those its line must run
# (KLEVELS in scripts/versions, /etc/memwalk/levels), so a line meant for 4
# levels cannot pass on 5 (memwalk_dev checks the module's count against
# what user space can map); then the selftest suite.
if insmod /lib/memwalk/memwalk.ko; then
	got=$(sed -n 's/^pgtable_levels: //p' /sys/kernel/debug/memwalk/info)
	rmmod memwalk
	want=$(cat /etc/memwalk/levels 2>/dev/null)
	if [ -z "$want" ]; then
		echo "not ok - paging levels: the line names none (KLEVELS in scripts/versions)"
	elif [ "$got" = "$want" ]; then
		echo "ok - paging levels: $got, as the line must run"
	else
		echo "not ok - paging levels: the guest runs ${got:-none}, the line must run $want"
	fi
else
	echo "not ok - paging levels: insmod memwalk.ko failed"
fi
. /etc/memwalk/selftests.sh

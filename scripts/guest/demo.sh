# SPDX-License-Identifier: GPL-2.0
# make demo: load memwalk in the guest and show what it answers about a
# process whose memory is in known states.
run() { echo; echo "guest# $*"; "$@"; }
echo "memwalk demo on $(uname -r) ($(uname -m)), $(grep -c ^processor /proc/cpuinfo) CPUs"
echo 128M > /sys/block/zram0/disksize && mkswap /dev/zram0 >/dev/null && swapon /dev/zram0
run insmod /lib/memwalk/memwalk.ko || exit 1
run memwalk-client info
run memwalk-client status | head -n 12

# The target: anon, THP, hugetlb, swapped, COW, zero page, page cache, ...
# In a memory cgroup of its own from the start, so that its pages are
# charged there and the watch at the end can have that cgroup reclaim them.
cg=/sys/fs/cgroup/demo
echo +memory > /sys/fs/cgroup/cgroup.subtree_control 2>/dev/null
mkdir -p "$cg" && echo $$ > "$cg/cgroup.procs"
mkdir -p /tmp/demo && mkfifo /tmp/demo/in
/selftests/memwalk_target states --no-mlock < /tmp/demo/in > /tmp/demo/out 2>&1 &
pid=$!
exec 3> /tmp/demo/in
i=0
while ! grep -q '^built' /tmp/demo/out && [ $i -lt 300 ]; do sleep 0.2; i=$((i + 1)); done
echo
echo "# the target (pid $pid) built these regions:"
grep '^region' /tmp/demo/out | head -n 20
run memwalk-client "$pid" --save /tmp/demo/before.json
thp=$(awk '$1 == "region" && $2 == "thp" { print $3 }' /tmp/demo/out)
[ -n "$thp" ] && run memwalk-client "$pid" --pages --range "$thp-$(printf '%x' $((0x$thp + 0x400000)))"
stack=$(awk '$NF == "[stack]" { print $1 }' /proc/$pid/maps | cut -d- -f2)
stack=$(printf "%x" $((0x$stack - 0x1000)))
run memwalk-client translate "$pid" "0x$stack"
# Let it change (it writes pages and maps a new VMA), then diff.
echo go >&3
i=0
while ! grep -q '^ready' /tmp/demo/out && [ $i -lt 300 ]; do sleep 0.2; i=$((i + 1)); done
memwalk-client "$pid" -J > /tmp/demo/after.json
run memwalk-client diff /tmp/demo/before.json /tmp/demo/after.json
# Watch it while its cgroup is told to give memory back (memory.reclaim):
# anon pages go to swap (zram), page cache is dropped, and the frames say
# which memcg reclaim did it.  The per-kind counts, not every range.
(sleep 2; echo 2M > "$cg/memory.reclaim") 2>/dev/null &
run memwalk-client watch "$pid" --batch -n 3 -i 1.5 | grep -v '^    [0-9a-f]'
exec 3>&-
wait "$pid"
run rmmod memwalk
echo
echo "demo done"

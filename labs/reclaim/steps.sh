# SPDX-License-Identifier: GPL-2.0
# The steps of labs/reclaim/README.md as `make lab NAME=reclaim` runs them
# in the VM (scripts/guest/lab.sh: swap on zram, ext2 at $LAB_DISK, cgroup2
# at /sys/fs/cgroup): step_N runs once the program says "step N".  The
# handout's second and third terminals are start_bg and stop_bg here.
LAB=reclaim
STEPS=4
step_1() {
	run cat /sys/kernel/mm/lru_gen/enabled
	run cat "$CGDIR/memory.max"
	run grep -E '^(anon|file|active_anon|inactive_anon|active_file|inactive_file) ' "$CGDIR/memory.stat"
	run memwalk-client "$PID" --pages --range "$BOTH_RANGE" --save 1.json
}
step_2() {
	run memwalk-client "$PID" --pages --range "$FILE_RANGE"
	run memwalk-client "$PID" --range "$BOTH_RANGE" --save 2.json
	run memwalk-client diff 1.json 2.json
	run grep -E '^(active_file|inactive_file) ' "$CGDIR/memory.stat"
	start_bg watch.txt memwalk-client watch "$PID" --batch --folio -i 0.5 -n 600 --range "$BOTH_RANGE"
	start_bg reclaim.txt memwalk-client events --memcg "$CGROUP"
}
step_3() {
	stop_bg watch.txt
	stop_bg reclaim.txt
	run cat watch.txt
	run grep -c memcg_reclaim_begin reclaim.txt
	run tail -n 3 reclaim.txt
	run grep -E '^(max|oom|oom_kill) ' "$CGDIR/memory.events"
	run grep -E '^(anon|file|swap|pgscan|pgsteal) ' "$CGDIR/memory.stat"
	run memwalk-client "$PID" --range "$BOTH_RANGE" --save 3.json
	run memwalk-client diff 2.json 3.json
	start_bg oom.txt memwalk-client events --oom
}
step_4() {
	stop_bg oom.txt
	run cat oom.txt
	run grep -E '^(max|oom|oom_kill) ' "$CGDIR/memory.events"
	run sh -c 'dmesg | grep -E "Memory cgroup out of memory|Killed process"'
}

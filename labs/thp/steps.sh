# SPDX-License-Identifier: GPL-2.0
# The steps of labs/thp/README.md as `make lab NAME=thp` runs them in the
# VM (scripts/guest/lab.sh): step_N runs once the program says "step N".
LAB=thp
STEPS=4
step_1() {
	run cat /sys/kernel/mm/transparent_hugepage/enabled
	run memwalk-client "$PID" --pages --range "$THP_RANGE" --save 1.json
	run memwalk-client "$PID" --range "$THP_RANGE"
	run memwalk-client translate "$PID" "$THP"
}
step_2() {
	run memwalk-client "$PID" --pages --range "$THP_RANGE" --save 2.json
	run memwalk-client diff 1.json 2.json
	run memwalk-client "$PID" --range "$THP_RANGE"
}
step_3() {
	run memwalk-client "$PID" --summary --range "$COLL_RANGE"
	run memwalk-client "$PID" --range "$COLL_RANGE" --save 3.json
}
step_4() {
	run memwalk-client "$PID" --pages --range "$COLL_RANGE" --save 4.json
	run memwalk-client diff 3.json 4.json
}

# SPDX-License-Identifier: GPL-2.0
# The steps of labs/cow/README.md as `make lab NAME=cow` runs them in the
# VM (scripts/guest/lab.sh): step_N runs once the program says "step N".
# (When the client has `watch --batch`, a watch of $PID over $BUF_RANGE
# fits here as one more view of every step.)
LAB=cow
STEPS=3
step_1() {
	run memwalk-client "$PID" --pages --range "$BUF_RANGE" --save parent-1.json
}
step_2() {
	run memwalk-client "$PID" --pages --range "$BUF_RANGE" --save parent-2.json
	run memwalk-client "$CHILD" --pages --range "$BUF_RANGE" --save child-2.json
	run memwalk-client diff parent-1.json parent-2.json
}
step_3() {
	run memwalk-client "$CHILD" --pages --range "$BUF_RANGE" --save child-3.json
	run memwalk-client diff child-2.json child-3.json
	run memwalk-client "$PID" --pages --range "$BUF_RANGE"
}

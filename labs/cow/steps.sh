# SPDX-License-Identifier: GPL-2.0
# The steps of labs/cow/README.md as `make lab NAME=cow` runs them in the
# VM (scripts/guest/lab.sh): step_N runs once the program says "step N".
# (When the client has `watch --batch`, a watch of $PID over $BUF_RANGE
# fits here as one more view of every step.)
LAB=cow
STEPS=3
step_1() {
	run memwalk-client "$PID" --pages --range "$BUF_RANGE"
}
step_2() {
	run memwalk-client "$PID" --pages --range "$BUF_RANGE"
	run memwalk-client "$CHILD" --pages --range "$BUF_RANGE"
	run memwalk-client "$CHILD" --range "$BUF_RANGE" --save child-before.json
}
step_3() {
	run memwalk-client "$CHILD" --range "$BUF_RANGE" --save child-after.json
	run memwalk-client diff child-before.json child-after.json
	run memwalk-client "$CHILD" --pages --range "$BUF_RANGE"
	run memwalk-client "$PID" --pages --range "$BUF_RANGE"
}

# SPDX-License-Identifier: GPL-2.0
# The steps of labs/swap/README.md as `make lab NAME=swap` runs them in the
# VM (scripts/guest/lab.sh, which puts swap on zram): step_N runs once the
# program says "step N".  The handout's second terminal, the watch of the
# parent, is start_bg and stop_bg here.
LAB=swap
STEPS=5
step_1() {
	run cat /proc/swaps
	run memwalk-client "$PID" --pages --range "$BUF_RANGE" --save 1.json
	start_bg watch.txt memwalk-client watch "$PID" --batch -i 0.5 -n 600 --range "$BUF_RANGE"
}
step_2() {
	run memwalk-client "$PID" --pages --range "$BUF_RANGE" --save 2.json
	run memwalk-client diff 1.json 2.json
	run memwalk-client translate "$PID" "$PAGE2"
}
step_3() {
	run memwalk-client "$CHILD" --pages --range "$BUF_RANGE"
}
step_4() {
	run memwalk-client "$PID" --pages --range "$BUF_RANGE" --save 4.json
	run memwalk-client diff 2.json 4.json
	run memwalk-client "$CHILD" --pages --range "$BUF_RANGE"
	stop_bg watch.txt
	run grep -E '^(transitions|end):' watch.txt
}
step_5() {
	run memwalk-client "$CHILD" --pages --range "$BUF_RANGE"
	run memwalk-client "$PID" --pages --range "$BUF_RANGE"
}

# SPDX-License-Identifier: GPL-2.0
# The steps of labs/demand/README.md as `make lab NAME=demand` runs them in
# the VM (scripts/guest/lab.sh): step_N runs once the program says "step N".
# The handout's second terminal, the watch, is start_bg and stop_bg here.
LAB=demand
STEPS=4
step_1() {
	run memwalk-client "$PID" --pages --range "$BUF_RANGE" --save 1.json
	run memwalk-client "$PID" --range "$BUF_RANGE"
	start_bg watch.txt memwalk-client watch "$PID" --batch -i 0.5 -n 600 --range "$BUF_RANGE"
}
step_2() {
	run memwalk-client "$PID" --pages --range "$BUF_RANGE" --save 2.json
	run memwalk-client diff 1.json 2.json
	run memwalk-client "$PID" --range "$BUF_RANGE"
	run memwalk-client "$PID" --summary --range "$BUF_RANGE"
	run memwalk-client translate "$PID" "$BUF"
}
step_3() {
	run memwalk-client "$PID" --pages --range "$BUF_RANGE" --save 3.json
	run memwalk-client diff 2.json 3.json
}
step_4() {
	run memwalk-client "$PID" --pages --range "$BUF_RANGE" --save 4.json
	run memwalk-client diff 3.json 4.json
	stop_bg watch.txt
	run grep -E '^(transitions|end):' watch.txt
}

# SPDX-License-Identifier: GPL-2.0
# The steps of labs/translate/README.md as `make lab NAME=translate` runs
# them in the VM (scripts/guest/lab.sh): step_N runs once the program says
# "step N".
LAB=translate
STEPS=3
step_1() {
	run memwalk-client translate "$PID_A" "$VA"
}
step_2() {
	run memwalk-client translate "$PID_B" "$VA"
}
step_3() {
	run memwalk-client translate "$PID_A" "$CODE_A"
	run memwalk-client translate "$PID_B" "$CODE_B"
}

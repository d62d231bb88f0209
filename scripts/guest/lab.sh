# SPDX-License-Identifier: GPL-2.0
# make lab NAME=...: run one lab in the guest.  Its program
# (/selftests/memwalk_lab_NAME, labs/lab.h's protocol) builds the state a
# step at a time; at each "step N" this prints what the program said, sets
# the values it exported and runs step_N of /etc/memwalk/steps.sh (the
# handout's commands, each printed before its output).  With
# /etc/memwalk/lab-shell (make lab SHELL=1) it talks on ttyS2, QEMU's
# standard input and output, and opens a shell after each step.
. /etc/memwalk/steps.sh || exit 1
shell=0
if [ -e /etc/memwalk/lab-shell ]; then
	exec </dev/ttyS2 >/dev/ttyS2 2>&1
	shell=1
fi
run() { echo "guest# $*"; "$@"; echo; }
# A command that runs on into the next steps (a watch, events), its output
# into FILE, as in a second terminal: start_bg FILE CMD..., then stop_bg
# FILE at a later step interrupts it (Ctrl-C) and waits for its last words.
start_bg() {
	local out=$1
	shift
	echo "guest# $* > $out &"
	"$@" > "$out" 2>&1 &
	echo "$!" > "$out.pid"
	echo
	# As a student would: the first frame, the subscription, then Enter.
	sleep 1
}
stop_bg() {
	local pid
	pid=$(cat "$1.pid") || return
	# Two more of a watch's frames at -i 0.5: they come after what moved.
	sleep 1.5
	echo "guest# kill -INT $pid   # the command writing $1"
	kill -INT "$pid"
	wait "$pid"
	rm -f "$1.pid"
	echo
}
# The tables as wide as they are (no terminal here to fit).
export COLUMNS=200

echo "memwalk lab $LAB on $(uname -r)"
if [ -e /sys/block/zram0 ]; then
	echo 128M > /sys/block/zram0/disksize && mkswap /dev/zram0 >/dev/null &&
		swapon /dev/zram0 && echo "# swap: 128M on zram0"
fi
# Page cache that can be dropped needs a disk (the root and /tmp are RAM
# file systems): ext2 on a second zram device, $LAB_DISK for the programs.
. /etc/memwalk/zram.sh || exit 1
if zram_ext2 32M /mnt/lab-disk; then
	export LAB_DISK=/mnt/lab-disk
fi
insmod /lib/memwalk/memwalk.ko || exit 1
mkdir -p /tmp/lab && cd /tmp/lab || exit 1
mkfifo in
"/selftests/memwalk_lab_$LAB" < in > out 2>&1 &
exec 3> in
seen=0
n=1
while [ "$n" -le "$STEPS" ]; do
	i=0
	while ! grep -qx "step $n" out; do
		if [ $i -ge 600 ] || ! kill -0 $! 2>/dev/null; then
			echo "lab $LAB: the program did not reach step $n; it said:"
			cat out
			exit 1
		fi
		sleep 0.1
		i=$((i + 1))
	done
	upto=$(grep -nx "step $n" out | cut -d: -f1)
	echo "==== step $n"
	sed -n "$((seen + 1)),$((upto - 1))p" out > said
	grep '^# ' said
	# Numbers, addresses and paths only: this shell sources them.
	grep '^export [A-Z_0-9]*=[0-9A-Za-z_./:-]*$' said > exports
	. ./exports
	sed 's/^export /# /' exports
	echo
	"step_$n"
	if [ "$shell" = 1 ]; then
		echo "lab $LAB: a shell at step $n (\$PID and the rest are set); exit or Ctrl-D for the next step"
		PS1="lab $LAB step $n# " sh -i
	fi
	seen=$upto
	# A watch running: its frames show this step before the next one.
	ls ./*.pid > /dev/null 2>&1 && sleep 1
	echo >&3
	n=$((n + 1))
done
exec 3>&-
wait
rmmod memwalk
echo "lab $LAB done"

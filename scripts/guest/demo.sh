# SPDX-License-Identifier: GPL-2.0
# make demo: load memwalk in the guest and show what it answers.
run() { echo; echo "guest# $*"; "$@"; }
echo "memwalk demo on $(uname -r) ($(uname -m)), $(grep -c ^processor /proc/cpuinfo) CPUs"
run insmod /lib/memwalk/memwalk.ko || exit 1
run ls -l /dev/memwalk
run memwalk-client info
run memwalk-client status
run cat /sys/kernel/debug/memwalk/info
# A process to look at: a shell with its own heap and stack.
sleep 600 &
pid=$!
run memwalk-client "$pid"
kill "$pid"
run rmmod memwalk
echo
echo "demo done"

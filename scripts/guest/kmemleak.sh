# SPDX-License-Identifier: GPL-2.0
# Sourced by the reliability run: kmemleak bookends around a suite.
# kmemleak_begin forgets what the kernel leaked before the suite;
# kmemleak_end (after rmmod) scans and fails on anything new.
KML=/sys/kernel/debug/kmemleak

kmemleak_begin() {
	[ -w "$KML" ] || { echo "not ok - kmemleak: $KML missing (debug kernel expected)"; return; }
	echo scan > "$KML"
	echo clear > "$KML"
}

kmemleak_end() {
	[ -w "$KML" ] || return
	# Two scans: an object must be unreferenced in both to be reported.
	echo scan > "$KML"
	sleep 1
	echo scan > "$KML"
	if [ -s "$KML" ]; then
		echo "not ok - kmemleak: suspected leaks after the suite"
		sed 's/^/# /' "$KML" | head -n 80
	else
		echo "ok - kmemleak: no leak after the suite and rmmod"
	fi
}

# SPDX-License-Identifier: GPL-2.0
# TAP helpers shared by the host test scripts (sourced).  The script sets
# $tmp (a scratch directory) before sourcing; tap_end prints the plan and
# sets the exit status.

n=0
failed=0

# run CMD...: leaves $tmp/out, $tmp/err and $rc
run() {
	"$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
}

# t DESCRIPTION FUNCTION: one TAP line; on failure, why and the last run
t() {
	n=$((n + 1))
	why=
	if "$2"; then
		echo "ok $n - $1"
	else
		failed=$((failed + 1))
		echo "not ok $n - $1"
		echo "#   $why"
		echo "#   exit status: ${rc-}"
		sed 's/^/#   stdout: /' "$tmp/out" 2>/dev/null | head -n 40
		sed 's/^/#   stderr: /' "$tmp/err" 2>/dev/null | head -n 20
	fi
}

skip() {
	n=$((n + 1))
	echo "ok $n - $1 # SKIP $2"
}

fail() {
	why=$1
	return 1
}

expect_rc() {
	[ "$rc" -eq "$1" ] || fail "expected exit status $1"
}

tap_end() {
	echo "1..$n"
	[ "$failed" -eq 0 ] || echo "# $failed of $n tests failed"
	[ "$failed" -eq 0 ]
}

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

# MW_SANITIZE=1 (make check-san): the programs are built with ASan and UBSan.
# Their reports go to files in $san, not to the stderr a test looks at, so
# that every report is seen, also from a run whose exit status or output no
# check reads; a test during which one appears is "not ok".
san=
if [ "${MW_SANITIZE:-0}" = 1 ]; then
	san=$tmp/san
	# world-writable: a test runs the client as uid 65534
	mkdir -m 1777 "$san" || exit 1
	ASAN_OPTIONS=log_path=$san/asan:detect_leaks=1:detect_stack_use_after_return=1
	UBSAN_OPTIONS=log_path=$san/ubsan:print_stacktrace=1:halt_on_error=1
	export ASAN_OPTIONS UBSAN_OPTIONS
	echo "# sanitizers: ASan (with LeakSanitizer) and UBSan; any report fails its test"
fi

# san_reports: true if sanitizer reports appeared since the last call; $why
# is then the first one's summary and where it happened (the first frame
# outside the sanitizer runtime), the reports go to $tmp/san-reports
san_reports() {
	[ -n "$san" ] || return 1
	set -- "$san"/*
	[ -e "$1" ] || return 1
	why="$(awk '
		/==ERROR: / && !kind {
			kind = $0
			sub(/^==[0-9]+==ERROR: /, "", kind)
			sub(/ on (unknown )?address .*/, "", kind)
		}
		/ runtime error: / && !where {
			where = $0
			if (!kind)
				kind = "UndefinedBehaviorSanitizer:"
		}
		/^ *#[0-9]+ 0x[0-9a-f]+ in / && !where && !/libsanitizer/ {
			where = "in " $4 " " $5
		}
		END { print kind " " where }' "$1") ($# report(s))"
	cat "$@" >"$tmp/san-reports"
	rm -f "$@"
}

# san_print: the reports san_reports found, as TAP comments, without the
# shadow byte maps
san_print() {
	sed '/^Shadow bytes around/,/^==[0-9]*==ABORTING/d; s/^/#   /' \
		"$tmp/san-reports" | head -n 60
}

# t DESCRIPTION FUNCTION: one TAP line; on failure, why and the last run.
# A sanitizer report fails the test too: its summary ends the line, the
# reports follow.
t() {
	n=$((n + 1))
	why=
	"$2"
	res=$?
	test_why=$why
	if san_reports; then
		failed=$((failed + 1))
		echo "not ok $n - $1: $why"
		san_print
	elif [ "$res" -eq 0 ]; then
		echo "ok $n - $1"
		return
	else
		failed=$((failed + 1))
		echo "not ok $n - $1"
	fi
	[ "$res" -ne 0 ] || return
	echo "#   $test_why"
	echo "#   exit status: ${rc-}"
	sed 's/^/#   stdout: /' "$tmp/out" 2>/dev/null | head -n 40
	sed 's/^/#   stderr: /' "$tmp/err" 2>/dev/null | head -n 20
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

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Host-side tests of memwalk-client: no module is loaded here, so they cover
# the command line, the error paths, the man page and the print layer.
# Output is TAP; the exit status is non-zero if any test failed.
#
# Paths can be overridden: CLIENT, PRINT_TEST, MANPAGE, MEMWALK_UAPI_HEADER.

set -u

here=$(cd "$(dirname "$0")" && pwd)
CLIENT=${CLIENT:-$here/../memwalk-client}
PRINT_TEST=${PRINT_TEST:-$here/print-test}
MANPAGE=${MANPAGE:-$here/../memwalk-client.1}
UAPI_HEADER=${MEMWALK_UAPI_HEADER:-$here/../../uapi/linux/memwalk.h}

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
unset MEMWALK_DEVICE

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
		sed 's/^/#   stdout: /' "$tmp/out" 2>/dev/null
		sed 's/^/#   stderr: /' "$tmp/err" 2>/dev/null
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

stderr_one_line() {
	[ "$(wc -l <"$tmp/err")" -eq 1 ] || fail "expected exactly one line on stderr"
}

stdout_empty() {
	[ ! -s "$tmp/out" ] || fail "expected nothing on stdout"
}

stderr_has() {
	grep -qF -- "$1" "$tmp/err" || fail "stderr lacks '$1'"
}

# --- command line ---------------------------------------------------------

test_help() {
	for opt in --help -h; do
		run "$CLIENT" "$opt"
		expect_rc 0 || return 1
		[ "$(tail -n 1 "$tmp/out")" = "See memwalk-client(1)." ] ||
			fail "$opt: last line is not 'See memwalk-client(1).'" || return 1
		[ ! -s "$tmp/err" ] || fail "$opt: wrote to stderr" || return 1
	done
	for cmd in info status; do
		run "$CLIENT" "$cmd" --help
		expect_rc 0 || return 1
		grep -q "^Usage: memwalk-client $cmd " "$tmp/out" ||
			fail "$cmd --help: no usage line" || return 1
	done
}

test_version() {
	uapi=$(sed -n 's/^#define[[:space:]]*MEMWALK_UAPI_VERSION[[:space:]]*\([0-9]*\).*/\1/p' "$UAPI_HEADER")
	[ -n "$uapi" ] || fail "no MEMWALK_UAPI_VERSION in $UAPI_HEADER" || return 1
	for opt in --version -V; do
		run "$CLIENT" "$opt"
		expect_rc 0 || return 1
		[ "$(cat "$tmp/out")" = "memwalk-client 0.1.0 (memwalk uapi $uapi)" ] ||
			fail "$opt: expected 'memwalk-client 0.1.0 (memwalk uapi $uapi)'" || return 1
	done
}

# usage_error ARGS...: exit 1, one line on stderr, nothing on stdout
usage_error() {
	run "$CLIENT" "$@"
	expect_rc 1 && stderr_one_line && stdout_empty
}

test_bad_option() {
	usage_error --bogus && stderr_has "unrecognized option '--bogus'" &&
	usage_error -x && stderr_has "invalid option -- 'x'"
}

test_bad_command_option() {
	usage_error info --bogus && stderr_has "unrecognized option '--bogus'" &&
	usage_error status -x && stderr_has "invalid option -- 'x'" &&
	usage_error info extra && stderr_has "unexpected argument 'extra'"
}

test_unknown_command() {
	usage_error frobnicate && stderr_has "unknown command 'frobnicate'" &&
	usage_error 12ab && stderr_has "unknown command '12ab'"
}

test_no_command() {
	usage_error && stderr_has "no command given"
}

test_pid_not_implemented() {
	usage_error 1 && stderr_has "not implemented yet"
}

test_events_not_implemented() {
	usage_error events && stderr_has "not implemented yet"
}

# --- device errors --------------------------------------------------------

test_info_no_device() {
	run env MEMWALK_DEVICE="$tmp/no-such-device" "$CLIENT" info
	expect_rc 2 && stderr_one_line && stdout_empty &&
	stderr_has "memwalk module not loaded: run 'modprobe memwalk'" &&
	stderr_has "ENOENT"
}

test_info_json_no_device() {
	run env MEMWALK_DEVICE="$tmp/no-such-device" "$CLIENT" info --json
	expect_rc 2 && stdout_empty && stderr_has "memwalk module not loaded"
}

test_info_regular_file() {
	: >"$tmp/regular"
	run env MEMWALK_DEVICE="$tmp/regular" "$CLIENT" info
	expect_rc 1 && stderr_one_line && stdout_empty &&
	stderr_has "is not a memwalk device" && stderr_has "ENOTTY"
}

test_info_dev_null() {
	run env MEMWALK_DEVICE=/dev/null "$CLIENT" info --json
	expect_rc 1 && stdout_empty && stderr_has "ENOTTY"
}

# A stale node whose driver is gone opens with ENXIO; so does a socket.
test_info_enxio() {
	python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' \
		"$tmp/socket" || fail "cannot create a socket" || return 1
	run env MEMWALK_DEVICE="$tmp/socket" "$CLIENT" info
	expect_rc 2 && stderr_has "memwalk module not loaded" && stderr_has "ENXIO"
}

test_info_eacces() {
	dir=$tmp/perm
	mkdir "$dir" && chmod 755 "$tmp" "$dir" && cp "$CLIENT" "$dir/client" &&
	: >"$dir/dev" && chmod 600 "$dir/dev" || fail "setup failed" || return 1
	run env MEMWALK_DEVICE="$dir/dev" setpriv --reuid=65534 --regid=65534 \
		--clear-groups "$dir/client" info
	expect_rc 2 && stderr_one_line &&
	stderr_has "permission denied opening $dir/dev: need root (CAP_SYS_ADMIN)" &&
	stderr_has "EACCES"
}

test_status_no_family() {
	run "$CLIENT" status
	expect_rc 2 && stderr_one_line && stdout_empty &&
	stderr_has "memwalk module not loaded: run 'modprobe memwalk'" &&
	stderr_has "generic netlink family \"memwalk\" not found"
}

test_write_error() {
	"$CLIENT" --help >/dev/full 2>"$tmp/err"
	rc=$?
	: >"$tmp/out"
	expect_rc 1 && stderr_has "write error"
}

test_static() {
	readelf -l "$CLIENT" >"$tmp/out" 2>"$tmp/err" || fail "readelf failed" || return 1
	! grep -q INTERP "$tmp/out" || fail "dynamically linked (has PT_INTERP)"
}

# --- man page -------------------------------------------------------------

test_man_lint() {
	run mandoc -Tlint -W warning "$MANPAGE"
	if [ "$rc" -ne 0 ] || [ -s "$tmp/out" ] || [ -s "$tmp/err" ]; then
		fail "mandoc -Tlint -W warning complained"
	fi
}

test_man_commands() {
	run mandoc -Tmarkdown "$MANPAGE"
	expect_rc 0 || return 1
	for word in info status events PID MEMWALK_DEVICE --json; do
		grep -qF -- "$word" "$tmp/out" || fail "man page lacks '$word'" || return 1
	done
	for sect in NAME SYNOPSIS DESCRIPTION COMMANDS OPTIONS ENVIRONMENT \
		    "EXIT STATUS" "SEE ALSO"; do
		grep -q "^# $sect\$" "$tmp/out" || fail "man page lacks section $sect" || return 1
	done
}

# --- print layer ----------------------------------------------------------

test_print_text() {
	run "$PRINT_TEST" text
	expect_rc 0 || return 1
	printf '%s\n' \
		'plain: 6.1.0-56-amd64' \
		"escapes: q\" b\\ t$(printf '\t') n" \
		" c$(printf '\001') u$(printf '\037') d$(printf '\177') /" \
		'utf8: grüß' \
		'empty: []' \
		'zero: 0' \
		'max: 18446744073709551615' \
		'text only' \
		'list: a b" 3' \
		'last: end' >"$tmp/expected"
	cmp -s "$tmp/expected" "$tmp/out" || fail "text output differs from the expected"
}

test_print_json() {
	run "$PRINT_TEST" json
	expect_rc 0 || return 1
	[ "$(wc -l <"$tmp/out")" -eq 1 ] || fail "JSON is not one line" || return 1
	python3 -c '
import json, sys

def no_dups(pairs):
    keys = [k for k, _ in pairs]
    if len(keys) != len(set(keys)):
        raise ValueError("duplicate key")
    return dict(pairs)

def no_constants(name):
    raise ValueError("non-standard constant " + name)

got = json.load(sys.stdin, object_pairs_hook=no_dups, parse_constant=no_constants)
want = {
    "plain": "6.1.0-56-amd64",
    "escapes": "q\" b\\ t\t n\n c\x01 u\x1f d\x7f /",
    "utf8": "gr\u00fc\u00df",
    "empty": "",
    "zero": 0,
    "max": 18446744073709551615,
    "json_only": "yes",
    "list": ["a", "b\"", 3],
    "none": [],
    "last": "end",
}
if got != want:
    sys.exit("got %r" % got)
' <"$tmp/out" 2>"$tmp/err" || fail "not the expected JSON document"
}

if ! [ -x "$CLIENT" ] || ! [ -x "$PRINT_TEST" ]; then
	echo "Bail out! build $CLIENT and $PRINT_TEST first (make -C userspace check)"
	exit 1
fi

t "--help and -h exit 0 and end with the man page pointer" test_help
t "--version prints the client and uapi versions" test_version
t "bad global option: exit 1, one line on stderr" test_bad_option
t "bad command option or argument: exit 1, one line on stderr" test_bad_command_option
t "unknown command: exit 1, one line on stderr" test_unknown_command
t "no command: exit 1, one line on stderr" test_no_command
t "PID command: not implemented yet, exit 1" test_pid_not_implemented
t "events command: not implemented yet, exit 1" test_events_not_implemented
t "info without the device: module not loaded, exit 2" test_info_no_device
t "info --json without the device: nothing on stdout, exit 2" test_info_json_no_device
t "info on a regular file: ENOTTY, exit 1" test_info_regular_file
t "info on /dev/null: ENOTTY, exit 1" test_info_dev_null
if command -v python3 >/dev/null; then
	t "info on a node that opens with ENXIO: module not loaded, exit 2" test_info_enxio
else
	skip "info on a node that opens with ENXIO: module not loaded, exit 2" "python3 not installed"
fi
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null; then
	t "info as uid 65534 on a 0600 node: permission denied, exit 2" test_info_eacces
else
	skip "info as uid 65534 on a 0600 node: permission denied, exit 2" "needs root and setpriv"
fi
if [ -e /sys/module/memwalk ]; then
	skip "status without the family: module not loaded, exit 2" "memwalk is loaded on this host"
else
	t "status without the family: module not loaded, exit 2" test_status_no_family
fi
t "write error on stdout: exit 1" test_write_error
t "memwalk-client is statically linked" test_static
t "man page passes mandoc -Tlint -W warning" test_man_lint
t "man page has the sections and documents every command" test_man_commands
t "print layer: text output" test_print_text
if command -v python3 >/dev/null; then
	t "print layer: JSON output is valid and round-trips" test_print_json
else
	t "print layer: JSON output is valid and round-trips (python3 needed)" false
fi

echo "1..$n"
[ "$failed" -eq 0 ] || echo "# $failed of $n tests failed"
[ "$failed" -eq 0 ]

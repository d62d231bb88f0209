#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Host-side tests of memwalk-client: no module is loaded here, so they cover
# the command line, the error paths, the man page and the print layer.
# Output is TAP; the exit status is non-zero if any test failed.
#
# The snapshot commands are covered without the module too: show and diff
# read hand-made JSON fixtures (tests/data/), and memwalk-client-fake is the
# client linked with a fake device (tests/fake-device.c) that serves such a
# fixture through the snapshot and translate ioctls.
#
# Paths can be overridden: CLIENT, FAKE_CLIENT, PRINT_TEST, JSON_TEST,
# LIB_TEST, TABLE_TEST, MANPAGE, MEMWALK_UAPI_HEADER.  MW_SANITIZE=1: the programs are built with
# ASan and UBSan (make check-san; see tap.sh).

set -u

here=$(cd "$(dirname "$0")" && pwd)
CLIENT=${CLIENT:-$here/../memwalk-client}
PRINT_TEST=${PRINT_TEST:-$here/print-test}
JSON_TEST=${JSON_TEST:-$here/json-test}
LIB_TEST=${LIB_TEST:-$here/lib-test}
TABLE_TEST=${TABLE_TEST:-$here/table-test}
FAKE_CLIENT=${FAKE_CLIENT:-$here/memwalk-client-fake}
GEN_SNAPSHOT=${GEN_SNAPSHOT:-$here/gen-snapshot}
DATA=$here/data
MANPAGE=${MANPAGE:-$here/../memwalk-client.1}
UAPI_HEADER=${MEMWALK_UAPI_HEADER:-$here/../../uapi/linux/memwalk.h}

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
unset MEMWALK_DEVICE

. "$here/tap.sh"

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
	for cmd in info status 1 snapshot show diff translate events; do
		run "$CLIENT" "$cmd" --help
		expect_rc 0 || return 1
		case $cmd in 1) word=snapshot ;; *) word=$cmd ;; esac
		grep -q "^Usage: memwalk-client $word " "$tmp/out" ||
			fail "$cmd --help: no usage line" || return 1
		[ "$(tail -n 1 "$tmp/out")" = "See memwalk-client(1)." ] ||
			fail "$cmd --help: last line is not 'See memwalk-client(1).'" || return 1
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

# The events command itself: tests/events-tests.sh.
test_events_usage() {
	usage_error events extra && stderr_has "unexpected argument 'extra'"
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
	expect_rc 1 && stderr_has "write error" || return 1
	# a table of more than the 64 KiB table.c writes at once: one error
	"$GEN_SNAPSHOT" 2000 1 >"$tmp/big.json" || fail "gen-snapshot failed" || return 1
	"$CLIENT" show "$tmp/big.json" >/dev/full 2>"$tmp/err"
	rc=$?
	expect_rc 1 && stderr_has "write error" && stderr_one_line
}

# Linked dynamically (libsmartcols-dev ships no static archive): libnl and
# libsmartcols from their packages, as the VM harness copies them.
test_dynamic() {
	readelf -d "$CLIENT" >"$tmp/out" 2>"$tmp/err" || fail "readelf failed" || return 1
	grep -q 'NEEDED.*\[libnl-3\.so' "$tmp/out" && grep -q 'NEEDED.*\[libnl-genl-3\.so' "$tmp/out" &&
	grep -q 'NEEDED.*\[libsmartcols\.so' "$tmp/out" ||
		fail "no shared libnl-3, libnl-genl-3 and libsmartcols among the needed libraries"
}

# The sanitizer run (make check-san) tests programs that do have ASan and
# UBSan (libubsan linked in, see the Makefile).
test_sanitized() {
	for p in "$CLIENT" "$FAKE_CLIENT" "$PRINT_TEST" "$JSON_TEST" "$LIB_TEST" "$TABLE_TEST"; do
		readelf -d "$p" >"$tmp/out" 2>"$tmp/err" || fail "readelf $p failed" || return 1
		grep -q 'NEEDED.*\[libasan\.so' "$tmp/out" ||
			fail "$(basename "$p") is not linked with libasan" || return 1
		nm "$p" >"$tmp/out" 2>"$tmp/err" || fail "nm $p failed" || return 1
		grep -q ' T __ubsan_handle_' "$tmp/out" ||
			fail "$(basename "$p") has no UBSan handlers" || return 1
	done
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
	for sect in NAME SYNOPSIS DESCRIPTION COMMANDS OPTIONS OUTPUT JSON \
		    ENVIRONMENT "EXIT STATUS" EXAMPLES "SEE ALSO"; do
		grep -q "^# $sect\$" "$tmp/out" || fail "man page lacks section $sect" || return 1
	done
	# the words as a reader sees them: -Tascii, overstrike removed
	mandoc -Tascii -O width=200 "$MANPAGE" | sed 's/.\x08//g' >"$tmp/out"
	for word in info status events PID show diff translate MEMWALK_DEVICE \
		    --json --pages --range --output --noheadings --no-folio --entry-only --save \
		    --summary --no-pfn snapshot \
		    docs/json-schema.md smaps AnonHugePages Locked soft-dirty shmem \
		    "cost to pid N: K lock drops, longest mmap_lock hold X us, total Y us, Z calls"; do
		grep -qF -- "$word" "$tmp/out" || fail "man page lacks '$word'" || return 1
	done
	# every column of --help is documented
	"$CLIENT" 1 --help | sed -n 's/^  \([a-z_]*\)  .*/\1/p' >"$tmp/columns"
	[ -s "$tmp/columns" ] || fail "no columns in '1 --help'" || return 1
	while read -r col; do
		grep -qw -- "$col" "$tmp/out" || fail "man page lacks column '$col'" || return 1
	done <"$tmp/columns"
}

# The header and footer name the project and its version (the top
# Makefile's), not BSD, with mandoc and with man(1) (groff)
test_man_header() {
	version=$(sed -n 's/^VERSION[[:space:]]*:=[[:space:]]*//p' "$here/../../Makefile")
	[ -n "$version" ] || fail "no VERSION in the Makefile" || return 1
	mandoc -Tascii "$MANPAGE" | sed 's/.\x08//g' >"$tmp/out"
	head -n 1 "$tmp/out" | grep -q '^MEMWALK-CLIENT(1) .* MEMWALK-CLIENT(1)$' ||
		fail "mandoc: header is '$(head -n 1 "$tmp/out")'" || return 1
	tail -n 1 "$tmp/out" | grep -q "^memwalk $version .* memwalk $version\$" ||
		fail "mandoc: footer is '$(tail -n 1 "$tmp/out")', not memwalk $version" || return 1
	if command -v groff >/dev/null && command -v man >/dev/null; then
		MANWIDTH=80 man -l "$MANPAGE" 2>/dev/null | sed 's/.\x08//g' >"$tmp/out"
		! sed -n '1p;$p' "$tmp/out" | grep -q BSD ||
			fail "man: header or footer says BSD: $(sed -n '1p;$p' "$tmp/out" | tr '\n' '|')" || return 1
		tail -n 1 "$tmp/out" | grep -q "^memwalk $version " ||
			fail "man: footer is '$(tail -n 1 "$tmp/out")'"
	fi
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
		"latin1: caf$(printf '\351') $(printf '\303')(" \
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
    "latin1": "caf\ufffd \ufffd(",
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

# --- JSON reader (json.c) ------------------------------------------------

# json_ok INPUT EXPECTED: json-test dump prints EXPECTED
json_ok() {
	got=$(printf '%s' "$1" | "$JSON_TEST" dump 2>&1)
	[ "$?" -eq 0 ] && [ "$got" = "$2" ] ||
		fail "input '$1': expected '$2', got '$got'"
}

# json_bad INPUT EXPECTED: json-test dump fails with the message EXPECTED
# (INPUT is a printf format, for octal escapes)
json_bad() {
	# shellcheck disable=SC2059
	got=$(printf "$1" | "$JSON_TEST" dump 2>&1)
	[ "$?" -eq 1 ] && [ "$got" = "$2" ] ||
		fail "input '$1': expected error '$2', got '$got'"
}

test_json_valid() {
	deep=$(printf '%064d' 0 | tr 0 '[')$(printf '%064d' 0 | tr 0 ']')
	json_ok '{"a":[1,-2.5e3,0,-0,1E+2,true,false,null,"x"]}' \
		'{"a":[1,-2.5e3,0,-0,1E+2,true,false,null,"x"]}' &&
	json_ok '  { "k" :	[ ] , "o" : { } }
' '{"k":[],"o":{}}' &&
	json_ok '"q\" b\\ s\/ \b\f\n\r\t"' '"q\" b\\ s/ \u0008\u000c\u000a\u000d\u0009"' &&
	json_ok '"\u00fc\u20ac\ud83d\ude00"' '"ü€😀"' &&
	json_ok '"grüß €"' '"grüß €"' &&
	json_ok "$(printf '\357\273\277[1]')" '[1]' &&
	json_ok "$deep" "$deep"
}

test_json_errors() {
	json_bad '' '1:1: empty document' &&
	json_bad ' \n ' '2:2: empty document' &&
	json_bad '[1,]' "1:4: expected a value, found ']'" &&
	json_bad '{"a":1,}' "1:8: expected a string key in an object, found '}'" &&
	json_bad '{"a" 1}' "1:6: expected ':' after an object key, found '1'" &&
	json_bad '[1 2]' "1:4: expected ',' or ']' in an array, found '2'" &&
	json_bad '{\n "a": 1\n "b": 2}' "3:2: expected ',' or '}' in an object, found '\"'" &&
	json_bad '01' '1:1: invalid number: leading zero' &&
	json_bad '-' '1:1: invalid number: no digits' &&
	json_bad '1.' "1:1: invalid number: no digits after '.'" &&
	json_bad '.5' "1:1: expected a value, found '.'" &&
	json_bad '+1' "1:1: expected a value, found '+'" &&
	json_bad '1e' '1:1: invalid number: no digits in the exponent' &&
	json_bad '"abc' '1:1: unterminated string' &&
	json_bad '"a\tb"' '1:3: control character 0x09 in a string (write it as \u0009)' &&
	json_bad '"\\q"' "1:2: invalid escape '\\q' in a string" &&
	json_bad '"\\u12g4"' '1:2: \u must be followed by four hex digits' &&
	json_bad '"\\udc00"' '1:2: lone low surrogate \udc00' &&
	json_bad '"\\ud800x"' '1:2: high surrogate \ud800 not followed by a low one' &&
	json_bad '"\\u0000"' '1:2: \u0000 in a string is not supported' &&
	json_bad '"\377"' '1:2: invalid UTF-8 in a string' &&
	json_bad '"\300\200"' '1:2: invalid UTF-8 in a string' &&
	json_bad '"\355\240\200"' '1:2: invalid UTF-8 in a string' &&
	json_bad '"\342\202"' '1:2: invalid UTF-8 in a string' &&
	json_bad '{"a":1,"b":2,"a":3}' '1:18: duplicate key "a" in an object' &&
	json_bad '{} x' "1:4: expected the end of the document, found 'x'" &&
	json_bad 'tru' "1:1: expected a value, found 't'" &&
	json_bad 'NaN' "1:1: expected a value, found 'N'" &&
	json_bad "['a']" "1:2: expected a value, found '''" &&
	json_bad '[1] // c' "1:5: expected the end of the document, found '/'" &&
	json_bad '[\000]' '1:2: expected a value, found byte 0x00' &&
	json_bad "$(printf '%065d' 0 | tr 0 '[')" '1:65: nested deeper than 64 levels'
}

# json_num MODE INPUT EXPECTED
json_num() {
	got=$(printf '%s' "$2" | "$JSON_TEST" "$1")
	[ "$got" = "$3" ] || fail "$1 '$2': expected '$3', got '$got'"
}

test_json_integers() {
	json_num u64 18446744073709551615 18446744073709551615 &&
	json_num u64 18446744073709551616 'not an unsigned 64-bit integer' &&
	json_num u64 -1 'not an unsigned 64-bit integer' &&
	json_num u64 -0 0 &&
	json_num u64 1.0 'not an unsigned 64-bit integer' &&
	json_num u64 1e3 'not an unsigned 64-bit integer' &&
	json_num u64 '"1"' 'not an unsigned 64-bit integer' &&
	json_num i64 -9223372036854775808 -9223372036854775808 &&
	json_num i64 -9223372036854775809 'not a signed 64-bit integer' &&
	json_num i64 9223372036854775807 9223372036854775807 &&
	json_num i64 9223372036854775808 'not a signed 64-bit integer'
}

# --- show and diff on fixtures ----------------------------------------------

# expect_file NAME: stdout is exactly tests/data/expected/NAME
expect_file() {
	cmp -s "$DATA/expected/$1" "$tmp/out" ||
		fail "output differs from tests/data/expected/$1: $(diff "$DATA/expected/$1" "$tmp/out" | head -n 5 | tr '\n' '|')"
}

# human sizes by default, Pss next to Rss as in pmap -X; -b: the bytes
test_show_table() {
	run "$CLIENT" show "$DATA/smaps-rules.json"
	expect_rc 0 && expect_file smaps-rules.table || return 1
	run "$CLIENT" show "$DATA/smaps-rules.json" --bytes
	expect_rc 0 && expect_file smaps-rules.bytes
}

test_show_pages() {
	run "$CLIENT" show --pages "$DATA/cow-after.json"
	expect_rc 0 && expect_file cow-after.pages
}

test_show_columns() {
	run "$CLIENT" show "$DATA/swap-after.json" -n -o ADDRESS,rss,Swap,dirty,anon,mapping
	expect_rc 0 && expect_file swap-after.noheadings || return 1
	run "$CLIENT" show "$DATA/swap-after.json" --pages -n -o range,state,pfn,gen
	expect_rc 0 || return 1
	printf '%s\n' \
		'00007f0000000000-00007f0000100000' \
		'  00007f0000000000-00007f0000004000 present 30000   0' \
		'  00007f0000004000-00007f0000008000 present 30004   2' \
		'  00007f0000008000-00007f0000010000 swap    0:300   -' \
		'  00007f0000010000-00007f0000012000 present 41000   0' \
		'  00007f0000012000-00007f0000014000 swap    0:202   -' >"$tmp/expected"
	cmp -s "$tmp/expected" "$tmp/out" || fail "--pages -n -o output differs"
}

# swap-after.json with its 8 swapped pages as a shmem page in swap each
shmem_swap_fixture() {
	sed 's/"pfn": 768, "flags": 514,/"pfn": 768, "flags": 98311,/' \
		"$DATA/swap-after.json" >"$tmp/shmem.json"
	grep -q '"flags": 98311' "$tmp/shmem.json" || fail "fixture not mutated"
}

test_shmem_swap() {
	shmem_swap_fixture || return 1
	# Swap counts them as before, as smaps does.
	run "$CLIENT" show "$tmp/shmem.json" -n -b -o ADDRESS,Swap
	expect_rc 0 || return 1
	[ "$(head -n 1 "$tmp/out")" = "00007f0000000000 40960" ] ||
		fail "Swap should count shmem-swap pages: $(head -n 1 "$tmp/out")" || return 1
	run "$CLIENT" show "$tmp/shmem.json" --pages -n -o range,state,pfn,type
	expect_rc 0 || return 1
	grep -qxF '  00007f0000008000-00007f0000010000 shmem-swap 0:300 file,shmem' "$tmp/out" ||
		fail "no shmem-swap line" || return 1
	run "$CLIENT" diff "$DATA/swap-before.json" "$tmp/shmem.json"
	expect_rc 1 || return 1
	grep -qxF 'swapped out: 8 pages in 1 range' "$tmp/out" ||
		fail "present to shmem-swap is not 'swapped out'" || return 1
	"$CLIENT" show -J "$tmp/shmem.json" | grep -q '"state": *"shmem-swap"' ||
		fail "JSON state is not shmem-swap"
}

test_show_stdin() {
	"$CLIENT" show - -o address,rss <"$DATA/cow-after.json" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	expect_rc 0 && grep -qx '00007ffffffde000 16K' "$tmp/out" ||
		fail "no stack row with RSS 16"
}

test_show_column_errors() {
	usage_error show "$DATA/cow-after.json" -o address,bogus &&
	stderr_has "unknown column 'bogus' for the table" &&
	usage_error show "$DATA/cow-after.json" --pages -o rss &&
	stderr_has "unknown column 'rss' for --pages" &&
	usage_error show "$DATA/cow-after.json" -J -o bogus &&
	stderr_has "unknown column 'bogus' for the table" &&
	usage_error show && stderr_has "missing argument" &&
	usage_error show a b && stderr_has "unexpected argument 'b'"
}

# show -J of every fixture: schema keys present, raw fields as in the file,
# and show -J of that output gives the same document again
test_show_json_roundtrip() {
	for f in "$DATA"/*.json; do
		"$CLIENT" show -J "$f" >"$tmp/a.json" 2>"$tmp/err" &&
		"$CLIENT" show -J "$tmp/a.json" >"$tmp/b.json" 2>>"$tmp/err" ||
			fail "show -J $f failed" || return 1
		python3 - "$f" "$tmp/a.json" "$tmp/b.json" >"$tmp/out" 2>&1 <<'PY' ||
import json, sys
fixture, a, b = (json.load(open(p)) for p in sys.argv[1:])
assert a == b, "show -J of its own output differs"
top = ["schema_version", "generator", "module_version", "uapi_version",
       "release", "machine", "page_size", "pgtable_levels", "time",
       "time_ns", "pid", "comm", "range", "flags", "flag_names", "vmas",
       "totals", "cost"]
assert list(a) == top, "top-level keys %r" % list(a)
vkeys = ["start", "end", "mode", "flags", "flag_names", "pgoff", "ino",
         "dev_major", "dev_minor", "page_shift", "name_kind", "name",
         "summary", "runs"]
rkeys = ["start", "end", "nr_pages", "state", "level", "flags", "flag_names",
         "swap_type", "pfn", "folio_flags", "folio_flag_names", "mapcount",
         "refcount", "nid", "order", "lru_gen"]
skeys = ["size_kb", "rss_kb", "pss_kb", "shared_clean_kb", "shared_dirty_kb",
         "private_clean_kb", "private_dirty_kb", "dirty_kb", "referenced_kb",
         "anonymous_kb", "lazyfree_kb", "ksm_kb", "anon_thp_kb", "shmem_thp_kb",
         "file_thp_kb", "thp_kb", "shared_hugetlb_kb", "private_hugetlb_kb",
         "hugetlb_kb", "swap_kb", "locked_kb"]
assert list(a["range"]) == ["start", "end"]
assert list(a["totals"]) == ["vmas", "runs", "summary"]
assert list(a["totals"]["summary"]) == skeys
assert list(a["cost"]) == ["lock_drops", "max_lock_ns", "total_lock_ns", "calls"]
for k, v in fixture.items():
    if k != "vmas":
        assert a[k] == v, (k, a[k], v)
assert len(a["vmas"]) == len(fixture["vmas"])
for va, vf in zip(a["vmas"], fixture["vmas"]):
    assert list(va) == vkeys, list(va)
    assert list(va["summary"]) == skeys
    for k, v in vf.items():
        if k != "runs":
            assert va[k] == v, (k, va[k], v)
    assert len(va["runs"]) == len(vf["runs"])
    for ra, rf in zip(va["runs"], vf["runs"]):
        assert list(ra) == rkeys, list(ra)
        for k, v in rf.items():
            assert ra[k] == v, (k, ra[k], v)
        assert ra["end"] == ra["start"] + ra["nr_pages"] * a["page_size"]
PY
			fail "$(basename "$f"): $(tail -n 1 "$tmp/out")" || return 1
	done
}

test_show_json_values() {
	run "$CLIENT" show -J "$DATA/smaps-rules.json"
	expect_rc 0 || return 1
	python3 - "$tmp/out" <<'PY' >"$tmp/err" 2>&1 || fail "$(tail -n 1 "$tmp/err")"
import json, sys
d = json.load(open(sys.argv[1]))
s = [v["summary"] for v in d["vmas"]]
# libzoo: 4 pages mapped 3 times: Pss 4 * ((4096 << 12) / 3) >> 12 >> 10
assert (s[0]["rss_kb"], s[0]["pss_kb"], s[0]["shared_clean_kb"]) == (16, 5, 16), s[0]
# heap: the zero page does not count, the migration entry does (dirty folio)
assert (s[1]["rss_kb"], s[1]["dirty_kb"], s[1]["swap_kb"], s[1]["anonymous_kb"]) == (20, 20, 8, 20), s[1]
assert (s[1]["private_dirty_kb"], s[1]["shared_dirty_kb"]) == (16, 4), s[1]
# mlocked: Locked is the Pss
assert (s[2]["rss_kb"], s[2]["pss_kb"], s[2]["locked_kb"]) == (16, 12, 12), s[2]
# THP and the huge zero page
assert (s[3]["rss_kb"], s[3]["anon_thp_kb"], s[3]["thp_kb"]) == (2048, 2048, 2048), s[3]
# hugetlb
assert (s[4]["rss_kb"], s[4]["private_hugetlb_kb"], s[4]["hugetlb_kb"]) == (0, 2048, 2048), s[4]
# PFN map, shmem, DAX PUD, MADV_FREE
assert s[5]["rss_kb"] == 0, s[5]
assert (s[6]["rss_kb"], s[6]["shared_dirty_kb"], s[6]["private_clean_kb"], s[6]["anonymous_kb"]) == (12, 8, 4, 0), s[6]
assert s[7]["rss_kb"] == 0, s[7]
assert (s[8]["rss_kb"], s[8]["lazyfree_kb"], s[8]["dirty_kb"]) == (16, 16, 0), s[8]
t = d["totals"]["summary"]
assert t["rss_kb"] == sum(x["rss_kb"] for x in s) == 2136, t
r = d["vmas"][1]["runs"][3]
assert (r["state"], r["swap_type"], r["flag_names"]) == ("swap", 1, ["soft_dirty"]), r
assert d["vmas"][2]["runs"][0]["folio_flag_names"] == ["uptodate", "lru", "mmap", "anon", "swapbacked", "unevictable", "mlocked"]
assert d["flag_names"] == ["vmas", "pages", "folio"] and d["time"] == "2026-11-23T10:00:00Z"
PY
}

# --- tables (libsmartcols) ----------------------------------------------------

# The columns of one list in --help: $1 is the heading's first word.
help_columns() {
	"$CLIENT" show --help | sed -n "/^$1 columns/,/^\$/s/^  \([a-z_]*\)  .*/\1/p"
}

# heading_is LINE NAMES...: the heading's words are the names in upper case
heading_is() {
	got=$1
	shift
	want=$(echo "$*" | tr '[:lower:]' '[:upper:]')
	[ "$(echo $got)" = "$want" ] || fail "heading '$got', expected '$want'"
}

test_table_output() {
	f=$DATA/cow-after.json
	run "$CLIENT" show "$f" -o +runs,inode
	expect_rc 0 && heading_is "$(sed -n 2p "$tmp/out")" address kbytes rss pss dirty \
		swap thp hugetlb anon locked mode mapping runs inode || return 1
	run "$CLIENT" show "$f" --output-all
	expect_rc 0 && heading_is "$(sed -n 2p "$tmp/out")" $(help_columns Table) || return 1
	run "$CLIENT" show "$f" --pages --output-all
	expect_rc 0 && heading_is "$(sed -n 2p "$tmp/out")" $(help_columns --pages) || return 1
	run "$CLIENT" show "$f" -o MAPPING,Rss
	expect_rc 0 && heading_is "$(sed -n 2p "$tmp/out")" mapping rss
}

# -r: cells separated by one blank, blanks in them escaped
test_table_raw() {
	run "$CLIENT" show "$DATA/cow-after.json" -r -n -o address,mapping,rss
	expect_rc 0 || return 1
	grep -qx '0000555555559000 \[heap\] 32K' "$tmp/out" &&
	grep -qx '00007ffffffde000 \[stack\] 16K' "$tmp/out" ||
		fail "raw lines differ" || return 1
	run "$CLIENT" show "$DATA/swap-after.json" -r -n -o mapping
	expect_rc 0 && grep -qxF '[\x20anon\x20]' "$tmp/out" || fail "blank not escaped in raw"
}

test_table_json() {
	run "$CLIENT" show "$DATA/cow-after.json" -J -o address,rss,mapping
	expect_rc 0 || return 1
	python3 - "$tmp/out" <<'PY' >"$tmp/err" 2>&1 || fail "human: $(tail -n 1 "$tmp/err")" || return 1
import json, sys
d = json.load(open(sys.argv[1]))
assert list(d) == ["vmas"], list(d)
assert [list(v) for v in d["vmas"]] == [["address", "rss", "mapping"]] * 4, d
assert d["vmas"][2] == {"address": "0000555555559000", "rss": "32K", "mapping": "[heap]"}, d
PY
	run "$CLIENT" show "$DATA/cow-after.json" -J -b --output-all
	expect_rc 0 || return 1
	python3 - "$tmp/out" <<'PY' >"$tmp/err" 2>&1 || fail "-b: $(tail -n 1 "$tmp/err")" || return 1
import json, sys
v = json.load(open(sys.argv[1]))["vmas"][2]
assert (v["rss"], v["pss"], v["kbytes"], v["runs"], v["inode"]) == (32768, 24576, 135168, 2, 0), v
assert v["mode"] == "rw-p" and v["flags"] == "read,write,mayread,maywrite,mayexec,anon", v
PY
	run "$CLIENT" show "$DATA/cow-after.json" --pages -J -o range,pages,mapcount,mapping
	expect_rc 0 || return 1
	python3 - "$tmp/out" <<'PY' >"$tmp/err" 2>&1 || fail "--pages: $(tail -n 1 "$tmp/err")"
import json, sys
heap = json.load(open(sys.argv[1]))["vmas"][2]
assert heap["range"] == "0000555555559000-000055555557a000" and heap["pages"] == 33, heap
assert heap["mapping"] == "[heap]" and heap["mapcount"] is None, heap
assert [(r["pages"], r["mapcount"], r["mapping"]) for r in heap["children"]] == [(4, 1, None), (4, 2, None)], heap
PY
}

# --sort: numbers as numbers, by a column not shown too; the totals stay last
test_table_sort() {
	run "$CLIENT" show "$DATA/smaps-rules.json" -n -b -o rss,address --sort rss
	expect_rc 0 && cut -d' ' -f1 "$tmp/out" | sed 's/^ *//' >"$tmp/rss" &&
	sort -n -c "$tmp/rss" 2>/dev/null || fail "not sorted by RSS: $(tr '\n' ' ' <"$tmp/rss")" || return 1
	run "$CLIENT" show "$DATA/smaps-rules.json" -o address --sort kbytes
	expect_rc 0 || return 1
	heading_is "$(sed -n 2p "$tmp/out")" address &&
	[ "$(sed -n 3p "$tmp/out")" = 00007f2000000000 ] &&
	[ "$(sed -n 12p "$tmp/out")" = 00007f4000000000 ] &&
	[ "$(sed -n 13p "$tmp/out")" = total ] || fail "not sorted by the hidden Kbytes, total last"
}

# The totals row is labelled whatever the columns: no row of numbers alone.
test_table_total_label() {
	for cols in rss,pss mode,rss pss; do
		run "$CLIENT" show "$DATA/smaps-rules.json" -o "$cols"
		expect_rc 0 || return 1
		[ "$(tail -n 2 "$tmp/out" | head -n 1 | cut -d' ' -f1)" = total ] ||
			fail "-o $cols: totals row not labelled: $(tail -n 2 "$tmp/out" | head -n 1)" || return 1
	done
}

# cow-after.json with a command name and a file name that would drive a
# terminal: ESC sequences and a newline
evil_fixture() {
	sed -e 's|"comm": "cow-demo"|"comm": "cow\\u001b[2Jdemo"|' \
	    -e '0,/"name": "\/usr\/bin\/cow-demo"/s||"name": "/tmp/a\\u001b[31mb\\nc d"|' \
		"$DATA/cow-after.json" >"$tmp/evil.json"
	grep -q 'u001b\[31m' "$tmp/evil.json" || fail "fixture not mutated"
}

# control characters escaped by the tables (and the heading), never raw
test_table_escapes() {
	evil_fixture || return 1
	for opts in "" "--pages" "-r" "--pages -r" "-o mapping,rss"; do
		# shellcheck disable=SC2086
		run "$CLIENT" show "$tmp/evil.json" $opts
		expect_rc 0 || return 1
		! grep -q "$(printf '\033')" "$tmp/out" || fail "$opts: raw ESC on stdout" || return 1
		grep -qF 'a\x1b[31mb\x0ac' "$tmp/out" || fail "$opts: name not escaped" || return 1
		[ "$(wc -l <"$tmp/out")" -eq "$("$CLIENT" show "$DATA/cow-after.json" $opts | wc -l)" ] ||
			fail "$opts: the newline broke a line" || return 1
	done
	grep -qxF '4242:   cow\x1b[2Jdemo' "$tmp/out" || fail "heading not escaped" || return 1
	run "$CLIENT" show "$tmp/evil.json" -J -o mapping
	expect_rc 0 && python3 -c '
import json, sys
assert json.load(open(sys.argv[1]))["vmas"][0]["mapping"] == "/tmp/a\x1b[31mb\nc d"' "$tmp/out" ||
		fail "JSON does not carry the name"
}

# Widths count characters, in the locale's encoding: UTF-8 aligned in a
# UTF-8 locale, escaped (not cut) in C.
test_table_utf8() {
	sed '0,/"name": "\/usr\/bin\/cow-demo"/s||"name": "/tmp/grüß"|' \
		"$DATA/cow-after.json" >"$tmp/utf8.json" || return 1
	LC_ALL=C.UTF-8 "$CLIENT" show "$tmp/utf8.json" -n -o mapping,rss >"$tmp/out" 2>"$tmp/err"
	rc=$?
	expect_rc 0 || return 1
	grep -q '^/tmp/grüß  *4K$' "$tmp/out" || fail "UTF-8 name not shown as itself" || return 1
	python3 -c '
import sys
lines = open(sys.argv[1], encoding="utf-8").read().splitlines()
assert len({len(l) for l in lines}) == 1, lines' "$tmp/out" 2>"$tmp/err" ||
		fail "columns not aligned by characters" || return 1
	LC_ALL=C "$CLIENT" show "$tmp/utf8.json" -n -o mapping >"$tmp/out" 2>"$tmp/err"
	grep -qxF '/tmp/gr\xc3\xbc\xc3\x9f' "$tmp/out" || fail "C locale: not escaped"
}

# On a terminal the table fits its width: the mapping is cut, not wrapped;
# a pipe gets it whole (the other tests).
test_table_terminal() {
	script -qc "stty cols 50; \"$CLIENT\" show \"$DATA/smaps-rules.json\" -o address,rss,pss,mode,mapping" \
		/dev/null </dev/null 2>"$tmp/err" | tr -d '\r' >"$tmp/out"
	sed '1d;$d' "$tmp/out" | awk 'length($0) > 50 { bad = 1 } END { exit bad }' ||
		fail "a line wider than the terminal's 50 columns" || return 1
	grep -q '^00007f2000000000 .* r-xp /usr/lib/x86_64-li' "$tmp/out" &&
	! grep -q 'libzoo' "$tmp/out" || fail "the mapping is not cut to fit"
}

# A snapshot taken --entry-only has no table, as the live command refuses it;
# its JSON says which counts are not what smaps would say.
test_entry_only_show() {
	sed 's/^ "flags": 7,/ "flags": 19,/' "$DATA/cow-after.json" >"$tmp/eo.json"
	usage_error show "$tmp/eo.json" &&
	stderr_has "is an --entry-only snapshot, whose table needs the page: use --pages or -J" &&
	usage_error show "$tmp/eo.json" -J -o address,rss || return 1
	run "$CLIENT" show "$tmp/eo.json" --pages -n -o range,mapcount
	expect_rc 0 && grep -qx '  0000555555559000-000055555555d000        -' "$tmp/out" ||
		fail "--pages of an entry-only snapshot" || return 1
	run "$CLIENT" show "$tmp/eo.json" -J
	expect_rc 0 && python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
for s in [v["summary"] for v in d["vmas"]] + [d["totals"]["summary"]]:
    assert s["not_exact"] == [k for k in s if k not in ("size_kb", "hugetlb_kb", "swap_kb", "not_exact")], s
    assert all(isinstance(s[k], int) for k in s if k != "not_exact"), s' "$tmp/out" ||
		fail "JSON summary of an entry-only snapshot"
}

# Without folio state the counts that need it are unknown ('-', null), not
# numbers as if every page were private.
test_no_folio_show() {
	sed 's/^ "flags": 7,/ "flags": 3,/' "$DATA/cow-after.json" >"$tmp/nf.json"
	run "$CLIENT" show "$tmp/nf.json" -o address,rss,pss,locked,anon
	expect_rc 0 || return 1
	[ "$(sed -n 5p "$tmp/out" | tr -s ' ')" = "0000555555559000 32K - - 32K" ] &&
	[ "$(sed -n 7p "$tmp/out" | tr -s ' ')" = "total 56K - - 48K" ] ||
		fail "Pss and Locked not unknown: $(sed -n 5p "$tmp/out")" || return 1
	run "$CLIENT" show "$tmp/nf.json" -J -b -o address,rss,pss
	expect_rc 0 && python3 -c '
import json, sys
v = json.load(open(sys.argv[1]))["vmas"][2]
assert v == {"address": "0000555555559000", "rss": 32768, "pss": None}, v' "$tmp/out" ||
		fail "list JSON: Pss not null" || return 1
	run "$CLIENT" show "$tmp/nf.json" -J
	expect_rc 0 && python3 -c '
import json, sys
s = json.load(open(sys.argv[1]))["totals"]["summary"]
assert s["not_exact"] == ["pss_kb", "shared_clean_kb", "shared_dirty_kb", "private_clean_kb",
    "private_dirty_kb", "referenced_kb", "lazyfree_kb", "ksm_kb", "shared_hugetlb_kb",
    "private_hugetlb_kb", "locked_kb"], s' "$tmp/out" || fail "JSON summary: not_exact"
}

# diff_expect A B NAME: diff of fixtures A and B finds changes, printed as
# tests/data/expected/NAME
diff_expect() {
	run "$CLIENT" diff "$DATA/$1" "$DATA/$2"
	expect_rc 1 && expect_file "$3"
}

test_diff_cow() {
	diff_expect cow-before.json cow-after.json cow.diff
}

test_diff_swap() {
	diff_expect swap-before.json swap-after.json swap.diff
}

# A file page gone from a VMA that stays is page cache dropped; the pages of
# a VMA that went are unmapped.
test_diff_cache() {
	diff_expect cache-before.json cache-after.json cache.diff
}

test_diff_thp() {
	diff_expect thp-before.json thp-after.json thp.diff
}

test_diff_same() {
	run "$CLIENT" diff "$DATA/thp-after.json" "$DATA/thp-after.json"
	expect_rc 0 && [ "$(tail -n 1 "$tmp/out")" = "no changes" ] ||
		fail "expected 'no changes'"
}

test_diff_reverse() {
	run "$CLIENT" diff "$DATA/thp-after.json" "$DATA/thp-before.json"
	expect_rc 1 || return 1
	for line in 'VMAs removed: 1' 'deactivated: 8 pages in 1 range' \
		    'cleaned: 4 pages in 1 range' \
		    '  00007f1000000000-00007f1000200000 512 pmd->pte'; do
		grep -qxF -- "$line" "$tmp/out" || fail "no line '$line'" || return 1
	done
}

test_diff_vma_changed() {
	# the heap one page longer and mlocked
	sed 's/"end": 93824992387072, "flags": 33554547/"end": 93824992391168, "flags": 33555059/' \
		"$DATA/cow-after.json" >"$tmp/grown.json"
	run "$CLIENT" diff "$DATA/cow-after.json" "$tmp/grown.json"
	expect_rc 1 || return 1
	printf '%s\n' 'VMAs changed: 1' \
		'  0000555555559000-000055555557b000 rw-p [heap]: was 0000555555559000-000055555557a000; flags +locked' \
		>"$tmp/expected"
	sed 1,2d "$tmp/out" | cmp -s "$tmp/expected" - || fail "VMA change not reported as expected"
}

# diff_error ARGS...: diff's trouble, exit 2 as diff(1), one line on stderr
diff_error() {
	run "$CLIENT" diff "$@"
	expect_rc 2 && stderr_one_line && stdout_empty
}

test_diff_args() {
	diff_error "$DATA/cow-before.json" && stderr_has "missing argument" &&
	diff_error a b c && stderr_has "unexpected argument 'c'" &&
	diff_error --bogus a b && stderr_has "unrecognized option '--bogus'" &&
	diff_error "$DATA/cow-before.json" "$tmp/none.json" &&
	stderr_has "cannot open $tmp/none.json"
}

# Fork: the parent's anonymous pages write-protected and shared, each page
# mapped twice; its file pages mapped twice.
test_diff_fork() {
	diff_expect fork-before.json cow-before.json fork.diff
}

# no_pfn FILE OUT [ZERO_AT]: FILE as taken with its PFNs hidden (lab mode,
# watch), the run at ZERO_AT (hex) made a zero-page run
no_pfn() {
	python3 - "$@" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["flags"] |= 8
for v in d["vmas"]:
    for r in v.get("runs", []):
        r["pfn"] = 0
        if len(sys.argv) > 3 and r["start"] == int(sys.argv[3], 16):
            r["flags"] = (r["flags"] & ~(1 << 14 | 1 << 17)) | 1 << 13
json.dump(d, open(sys.argv[2], "w"))
PY
}

# Without PFNs a copy is named only where it is certain: not for a shared
# anonymous page that became exclusive (it may have been kept), but for the
# zero page that became an anonymous page.
test_diff_cow_no_pfn() {
	no_pfn "$DATA/cow-before.json" "$tmp/a.json" &&
	no_pfn "$DATA/cow-after.json" "$tmp/b.json" || return 1
	run "$CLIENT" diff "$tmp/a.json" "$tmp/b.json"
	expect_rc 1 && ! grep -q 'COW broken' "$tmp/out" &&
	grep -qx 'no longer shared: 5 pages in 2 ranges' "$tmp/out" ||
		fail "a shared page become exclusive called COW broken without PFNs" || return 1
	no_pfn "$DATA/cow-before.json" "$tmp/z.json" 555555559000 || return 1
	run "$CLIENT" diff "$tmp/z.json" "$tmp/b.json"
	expect_rc 1 && grep -qx 'COW broken: 4 pages in 1 range' "$tmp/out" &&
	grep -qx '  0000555555559000-000055555555d000 4' "$tmp/out" ||
		fail "the zero page's copy not COW broken: $(tr '\n' '|' <"$tmp/out")"
}

# As diff(1): 0 nothing differs, 1 something does, 2 trouble.
test_diff_exit_status() {
	run "$CLIENT" diff "$DATA/cow-before.json" "$DATA/cow-before.json"
	expect_rc 0 && [ "$(tail -n 1 "$tmp/out")" = "no changes" ] ||
		fail "same snapshot: not 'no changes'" || return 1
	run "$CLIENT" diff "$DATA/cow-before.json" "$DATA/cow-after.json"
	expect_rc 1 || return 1
	run "$CLIENT" diff -J "$DATA/cow-before.json" "$DATA/cow-before.json"
	expect_rc 0 || return 1
	run "$CLIENT" diff -J "$DATA/cow-before.json" "$DATA/cow-after.json"
	expect_rc 1
}

# with_range FILE START END: FILE as if taken with --range START-END
with_range() {
	python3 - "$1" "$2" "$3" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
lo, hi = int(sys.argv[2], 16), int(sys.argv[3], 16)
d["range"] = {"start": lo, "end": hi}
d["vmas"] = [v for v in d["vmas"] if v["end"] > lo and v["start"] < hi]
for v in d["vmas"]:
    v["runs"] = [r for r in v["runs"] if lo <= r["start"] < hi]
json.dump(d, sys.stdout)
PY
}

# A snapshot of the heap alone against a whole one: only the heap compares,
# the pages outside it are neither unmapped nor faulted in.
test_diff_range() {
	with_range "$DATA/cow-after.json" 555555559000 55555557a000 >"$tmp/heap.json" ||
		fail "cannot make the range snapshot" || return 1
	printf '%s\n' 'compared: 0000555555559000-000055555557a000 (where both were walked)' \
		'COW broken: 4 pages in 1 range' \
		'  0000555555559000-000055555555d000 4' >"$tmp/expected"
	for pair in "$DATA/cow-before.json $tmp/heap.json" "$tmp/heap.json $DATA/cow-before.json"; do
		# shellcheck disable=SC2086
		run "$CLIENT" diff $pair
		case $pair in
		"$tmp"*) sed -i 's/^COW broken: 4/moved to another PFN: 4/' "$tmp/expected" ;;
		esac
		expect_rc 1 || return 1
		sed 1,2d "$tmp/out" | cmp -s "$tmp/expected" - ||
			fail "diff $pair: $(sed 1,2d "$tmp/out" | tr '\n' '|')" || return 1
	done
}

# refused NAME SED MESSAGE: cow-after changed by SED does not compare with
# cow-before (exit 2, MESSAGE) unless --force, which says what it left out
refused() {
	sed "$2" "$DATA/cow-after.json" >"$tmp/$1.json"
	diff_error "$DATA/cow-before.json" "$tmp/$1.json" &&
	stderr_has "diff: the snapshots do not compare: $3 (--force compares them anyway)" ||
		return 1
	run "$CLIENT" diff --force "$DATA/cow-before.json" "$tmp/$1.json"
	expect_rc 1 && stderr_has "diff: $3: compared anyway"
}

test_diff_refused() {
	host='s/"machine": "x86_64",/"machine": "x86_64", "hostname": "HOST", "boot_id": "BOOT",/'
	sed "$(echo "$host" | sed 's/HOST/lab1/; s/BOOT/b1/')" "$DATA/cow-before.json" >"$tmp/lab1.json"
	refused pid 's/"pid": 4242/"pid": 4243/' 'different processes (pid 4242 and 4243)' &&
	stderr_has "not compared: the same page of one process" &&
	refused kernel 's/"release": "6.1.0-26-amd64"/"release": "6.12.0-1-amd64"/' \
		'different kernels (6.1.0-26-amd64 and 6.12.0-1-amd64)' &&
	refused mode 's/"flags": 7,/"flags": 19,/' 'different modes (full and entry-only)' &&
	stderr_has "not compared: folio state" &&
	stderr_has "not compared: anon, file, shmem, exclusive" || return 1
	# machines and boots: the PFNs do not compare, so no COW break is seen
	sed "$(echo "$host" | sed 's/HOST/lab2/; s/BOOT/b1/')" "$DATA/cow-after.json" >"$tmp/lab2.json"
	diff_error "$tmp/lab1.json" "$tmp/lab2.json" &&
	stderr_has "different machines (lab1 and lab2)" || return 1
	sed "$(echo "$host" | sed 's/HOST/lab1/; s/BOOT/b2/')" "$DATA/cow-after.json" >"$tmp/boot2.json"
	run "$CLIENT" diff -f "$tmp/lab1.json" "$tmp/boot2.json"
	expect_rc 1 && stderr_has "diff: different boots (boot id b1 and b2): compared anyway" &&
	stderr_has "not compared: PFNs and swap slots" || return 1
	! grep -q "COW broken" "$tmp/out" || fail "PFNs of two boots compared" || return 1
	run "$CLIENT" diff -J -f "$tmp/lab1.json" "$tmp/boot2.json"
	expect_rc 1 &&
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert (d["mismatches"], d["not_compared"]) == (["machine"], ["pfn"]), d' \
		"$tmp/out" || fail "diff -J -f: mismatches and not_compared not as expected"
}

test_diff_json() {
	run "$CLIENT" diff --json "$DATA/fork-before.json" "$DATA/cow-after.json"
	expect_rc 1 || return 1
	python3 - "$tmp/out" <<'PY' || fail "diff -J: $(tail -n 3 "$tmp/err" | tr '\n' '|')" || return 1
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema_version"] == 1 and d["differ"] is True, d
assert d["a"]["pid"] == d["b"]["pid"] == 4242 and d["a"]["file"].endswith("fork-before.json"), d["a"]
assert d["page_size"] == 4096 and d["range"] == {"start": 0, "end": 0}, d
assert d["mismatches"] == [] and d["not_compared"] == [], d
assert d["vmas"] == {"added": [], "removed": [], "changed": []}, d["vmas"]
kinds = {c["kind"]: c for c in d["changes"]}
assert list(kinds) == ["faulted_in", "pfn_changed", "wrprotected_cow", "shared_by_fork",
                       "mapcount", "refcount"], list(kinds)
cow = kinds["wrprotected_cow"]
assert cow["name"] == "write-protected for COW" and cow["pages"] == 6, cow
assert [(r["start"], r["end"], r["pages"]) for r in cow["ranges"]] == \
    [(0x55555555d000, 0x555555561000, 4), (0x7fffffffc000, 0x7fffffffe000, 2)], cow
assert kinds["mapcount"]["ranges"][0]["detail"] == "mapcount 1->2", kinds["mapcount"]
PY
	run "$CLIENT" diff -J "$DATA/cow-after.json" "$DATA/cow-after.json"
	expect_rc 0 &&
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert not d["differ"] and d["changes"] == []' \
		"$tmp/out" || fail "diff -J of a snapshot with itself"
}

# Where a snapshot was taken survives saving and loading.
test_snapshot_host_keys() {
	sed 's/"machine": "x86_64",/"machine": "x86_64", "hostname": "lab1", "boot_id": "b1",/' \
		"$DATA/cow-before.json" >"$tmp/host.json"
	run "$CLIENT" show -J "$tmp/host.json"
	expect_rc 0 &&
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert (d["hostname"], d["boot_id"]) == ("lab1", "b1")' \
		"$tmp/out" || fail "hostname and boot_id not kept" || return 1
	run "$CLIENT" show -J "$DATA/cow-before.json"
	expect_rc 0 && ! grep -q '"hostname"' "$tmp/out" ||
		fail "hostname written where none was recorded"
}

# --- malformed snapshot files ---------------------------------------------

# bad_file NAME CONTENT MESSAGE: show and diff fail on it with MESSAGE
bad_file() {
	printf '%s' "$2" >"$tmp/$1"
	usage_error show "$tmp/$1" && stderr_has "$3" || return 1
	diff_error "$DATA/cow-before.json" "$tmp/$1" && stderr_has "$3"
}

# A valid document with one thing changed by sed, to keep the cases short.
mutate() {
	sed "$1" "$DATA/swap-before.json"
}

test_bad_files() {
	bad_file empty.json '' 'empty.json:1:1: not valid JSON: empty document' &&
	bad_file text.json 'hello' "text.json:1:1: not valid JSON: expected a value, found 'h'" &&
	bad_file cut.json "$(head -c 300 "$DATA/swap-before.json")" 'cut.json:' &&
	bad_file array.json '[]' 'array.json:1:1: expected an object, found an array' &&
	bad_file schema.json "$(mutate 's/"schema_version": 1/"schema_version": 2/')" \
		'schema_version: version 2 is newer than this client reads (1): upgrade memwalk-client' &&
	bad_file nokey.json "$(mutate '/"page_size"/d')" 'missing key "page_size"' &&
	bad_file type.json "$(mutate 's/"pid": 5151/"pid": "5151"/')" \
		'pid: expected an integer from 0 to 2147483647' &&
	bad_file big.json "$(mutate 's/"nr_pages": 16/"nr_pages": 4294967296/')" \
		'vmas[0].runs[0].nr_pages: expected an unsigned integer up to 4294967295' &&
	bad_file gen.json "$(mutate 's/"lru_gen": 0/"lru_gen": 200/')" \
		'vmas[0].runs[0].lru_gen: expected an integer from -128 to 127' &&
	bad_file kind.json "$(mutate 's/"name_kind": "none"/"name_kind": "weird"/')" \
		'vmas[0].name_kind: unknown name kind "weird"' &&
	bad_file outside.json "$(mutate 's/"nr_pages": 4,/"nr_pages": 400,/')" \
		'not a valid snapshot: vmas[0].runs[1]: pages 0x7f0000010000+400 lie outside the VMA' &&
	bad_file state.json "$(mutate 's/"flags": 514,/"flags": 512,/')" \
		'not a valid snapshot: vmas[0].runs[1]: unknown state 0 in flags' &&
	bad_file page.json "$(mutate 's/"page_size": 4096/"page_size": 3000/')" \
		'not a valid snapshot: page_size 3000 is not a power of two' &&
	bad_file dup.json "$(mutate 's/"pid": 5151,/"pid": 5151, "pid": 1,/')" \
		'not valid JSON: duplicate key "pid" in an object' &&
	usage_error show "$tmp" && stderr_has "cannot read $tmp [EISDIR"
}

# The reader streams: errors come out as a reader of the whole document
# gave them, JSON first, then the top level, then a VMA's fields before
# its runs.
test_bad_files_order() {
	bad_file late.json "$(mutate 's/"lru_gen": 0/"lru_gen": 200/')x" \
		"late.json:$(wc -l <"$DATA/swap-before.json" | tr -d ' '):2: not valid JSON: expected the end of the document, found 'x'" &&
	bad_file top.json "$(mutate 's/"lru_gen": 0/"lru_gen": 200/; s/"schema_version": 1/"schema_version": 2/')" \
		'schema_version: version 2 is newer' &&
	bad_file vma.json "$(mutate 's/"lru_gen": 0/"lru_gen": 200/; s/"name_kind": "none"/"name_kind": "weird"/')" \
		'vmas[0].name_kind: unknown name kind "weird"' &&
	bad_file nested.json "$(mutate 's/"nr_pages": 16,/"nr_pages": 16, "nr_pages": 1,/')" \
		'not valid JSON: duplicate key "nr_pages" in an object'
}

# A snapshot larger than the reader's buffer, written by the client's own
# writer: show -J gives it back byte for byte, from a file and a pipe.
test_show_large() {
	"$GEN_SNAPSHOT" 40 400 >"$tmp/large.json" || fail "gen-snapshot failed" || return 1
	[ "$(wc -c <"$tmp/large.json")" -gt 1000000 ] || fail "generated file too small" || return 1
	run "$CLIENT" show -J "$tmp/large.json"
	expect_rc 0 && cmp -s "$tmp/large.json" "$tmp/out" ||
		fail "show -J of a generated snapshot differs from it" || return 1
	"$CLIENT" show -J - <"$tmp/large.json" >"$tmp/out" 2>"$tmp/err" &&
		cmp -s "$tmp/large.json" "$tmp/out" || fail "show -J - differs"
}

# valgrind cannot follow malloc in a static binary: the dynamically linked
# fake client has the same show and diff.
test_bad_files_valgrind() {
	mutate 's/"nr_pages": 4,/"nr_pages": 400,/' >"$tmp/outside.json"
	head -c 500 "$DATA/cow-after.json" >"$tmp/cut.json"
	for args in "show $tmp/outside.json" "show $tmp/cut.json" \
		    "show --pages $DATA/smaps-rules.json" "show -J $DATA/thp-after.json" \
		    "diff $DATA/thp-before.json $DATA/thp-after.json" \
		    "$$ --pages" "$$ -J --save $tmp/saved.json" "translate 1 0x7f2000106000" \
		    "$$ --range 7f2000000000-7f2000400000"; do
		# shellcheck disable=SC2086
		MW_FAKE_SNAPSHOT=$DATA/smaps-rules.json MW_FAKE_MAX_PAGES=100 \
		MW_FAKE_CHANGE=once MW_FAKE_MIN_BUF=600000 valgrind -q --error-exitcode=99 --leak-check=full \
			--errors-for-leak-kinds=definite,indirect \
			"$FAKE_CLIENT" $args >"$tmp/out" 2>"$tmp/err"
		rc=$?
		[ "$rc" -ne 99 ] && ! grep -q '^==[0-9]*==' "$tmp/err" ||
			fail "valgrind reports errors for '$args'" || return 1
	done
}

# --- the PID and translate commands without the module ---------------------

test_pid_no_device() {
	run env MEMWALK_DEVICE="$tmp/no-such-device" "$CLIENT" 1 --pages
	expect_rc 2 && stderr_one_line && stdout_empty &&
	stderr_has "memwalk module not loaded: run 'modprobe memwalk'"
}

test_translate_no_device() {
	run env MEMWALK_DEVICE="$tmp/no-such-device" "$CLIENT" translate 1 0x7f0000001000
	expect_rc 2 && stderr_one_line && stdout_empty &&
	stderr_has "memwalk module not loaded: run 'modprobe memwalk'"
}

test_pid_arguments() {
	usage_error 0 && stderr_has "bad PID '0': expected a positive decimal number" &&
	usage_error 99999999999 && stderr_has "bad PID '99999999999'" &&
	usage_error 1 extra && stderr_has "unexpected argument 'extra'" &&
	usage_error 1 --bogus && stderr_has "unrecognized option '--bogus'" &&
	usage_error 1 --range && stderr_has "option '--range' requires an argument" &&
	usage_error 1 --range 1000 && stderr_has "bad range '1000': expected START-END in hex" &&
	usage_error 1 --range 1000-zz && stderr_has "expected START-END in hex" &&
	usage_error 1 --range 1001-2000 &&
	stderr_has "START 0x1001 is not a multiple of the page size" &&
	usage_error 1 -r 0x1000-0x2001 &&
	stderr_has "END 0x2001 is not a multiple of the page size" &&
	usage_error 1 --range 2000-1000 && stderr_has "START must be below END" &&
	usage_error 1 -o rss,nope && stderr_has "unknown column 'nope'" &&
	usage_error 1 -o rss --output-all && stderr_has "--output and --output-all exclude each other" &&
	usage_error 1 --sort nope && stderr_has "unknown column 'nope' for --sort"
}

test_translate_arguments() {
	usage_error translate && stderr_has "missing argument (usage: memwalk-client translate PID ADDR)" &&
	usage_error translate 1 && stderr_has "missing argument" &&
	usage_error translate 1 0x1000 3 && stderr_has "unexpected argument '3'" &&
	usage_error translate x1 0x1000 && stderr_has "bad PID 'x1'" &&
	usage_error translate 1 0xzz && stderr_has "bad address '0xzz': expected a decimal number or a hexadecimal one with 0x" &&
	usage_error translate 1 0x && stderr_has "bad address '0x'" &&
	usage_error translate 1 0x10000000000000000 && stderr_has "bad address"
}

# --- the PID and translate commands against the fake device ----------------

# fake VAR=VALUE... ARGS...: the fake client serving smaps-rules.json
fake() {
	run env MW_FAKE_SNAPSHOT="$DATA/smaps-rules.json" "$@"
}

test_fake_table() {
	cols=address,kbytes,rss,pss,dirty,swap,thp,hugetlb,anon,locked,mode,mapping
	fake MW_FAKE_MAX_PAGES=5 "$FAKE_CLIENT" $$ -o "$cols"
	expect_rc 0 || return 1
	"$CLIENT" show "$DATA/smaps-rules.json" -o "$cols" | sed '1d;$d' >"$tmp/expected"
	sed '1d;$d' "$tmp/out" | cmp -s "$tmp/expected" - ||
		fail "table from the fake device differs from show of the fixture" || return 1
	# as pmap: the command line, arguments joined by blanks
	[ "$(head -n 1 "$tmp/out")" = "$$:   $(tr '\0' ' ' </proc/$$/cmdline | sed 's/ $//')" ] ||
		fail "first line is not 'PID:   COMMAND LINE'" || return 1
	tail -n 1 "$tmp/out" | grep -qE "^cost to pid $$: [0-9]+ lock drops, longest mmap_lock hold [0-9]+\.[0-9] us, total [0-9]+\.[0-9] us, [0-9]+ calls\$" ||
		fail "no cost line at the end"
}

# JSON through many small calls (runs cut at every call, buffers grown
# after ENOSPC) equals the fixture; --save writes the same document
test_fake_json_calls() {
	run env MW_FAKE_SNAPSHOT="$DATA/cow-after.json" MW_FAKE_MAX_PAGES=2 \
		MW_FAKE_MIN_BUF=600000 "$FAKE_CLIENT" $$ -J --save "$tmp/saved.json"
	expect_rc 0 || return 1
	python3 - "$DATA/cow-after.json" "$tmp/out" "$tmp/saved.json" <<'PY' >"$tmp/err" 2>&1 || fail "$(tail -n 1 "$tmp/err")"
import json, sys
fixture, live, saved = (json.load(open(p)) for p in sys.argv[1:])
assert live == saved, "--save wrote another document"
assert live["pid"] > 0 and live["flags"] == 7 and live["module_version"] == "fake"
assert live["cost"]["calls"] == live["cost"]["lock_drops"] > 4, live["cost"]
assert len(live["vmas"]) == len(fixture["vmas"])
for vl, vf in zip(live["vmas"], fixture["vmas"]):
    for k, v in vf.items():
        if k != "runs":
            assert vl[k] == v, (k, vl[k], v)
    got = [{k: r[k] for k in rf} for r, rf in zip(vl["runs"], vf["runs"])]
    assert got == vf["runs"] and len(vl["runs"]) == len(vf["runs"]), (vl["start"], vl["runs"])
PY
}

test_fake_save_text() {
	run env MW_FAKE_SNAPSHOT="$DATA/thp-after.json" "$FAKE_CLIENT" $$ --pages \
		--save "$tmp/thp.json"
	expect_rc 0 && grep -q '^  00007f1000000000-00007f1000200000 *512 present pmd ' "$tmp/out" ||
		fail "no PMD run in the --pages output" || return 1
	# but for the heading: the live view has the command line, show the comm
	sed 1d "$tmp/out" >"$tmp/live"
	run "$CLIENT" show "$tmp/thp.json" --pages
	expect_rc 0 && sed 1d "$tmp/out" | cmp -s "$tmp/live" - ||
		fail "show of the saved file differs from the live view"
}

test_fake_save_error() {
	run env MW_FAKE_SNAPSHOT="$DATA/thp-after.json" "$FAKE_CLIENT" $$ \
		--save "$tmp/no/such/dir.json"
	expect_rc 1 && stderr_one_line && stdout_empty &&
	stderr_has "cannot create $tmp/no/such/dir.json"
}

# The heap's first two pages of cow-after.json, asked with option $1: the
# VMA's line (range, mode, pages, mapping) and the run line $2.
fake_heap_pages() {
	run env MW_FAKE_SNAPSHOT="$DATA/cow-after.json" "$FAKE_CLIENT" $$ \
		--range 555555559000-55555555b000 "$1" --pages -n
	expect_rc 0 || return 1
	[ "$(sed -n 1p "$tmp/out" | tr -s ' ')" = '0000555555559000-000055555557a000 rw-p 33 [heap]' ] ||
		fail "--range $1: not the heap's line: $(sed -n 1p "$tmp/out")" || return 1
	[ "$(sed -n 2p "$tmp/out")" = "$2" ] && [ "$(wc -l <"$tmp/out")" -eq 2 ] ||
		fail "--range $1: run line differs: $(sed -n 2p "$tmp/out")"
}

test_fake_range_nofolio() {
	fake_heap_pages --no-folio \
		'  0000555555559000-000055555555b000          2 present pte   W,U,D,A,NX anon,excl 2a000        -        -    -     -   - -'
}

# no anon/excl: nothing read from the page
test_fake_entry_only() {
	fake_heap_pages --entry-only \
		'  0000555555559000-000055555555b000          2 present pte   W,U,D,A,NX -    2a000        -        -    -     -   - -'
}

# Pages alike but for scattered PFNs come as PFN lists (8 bytes a page),
# with and without the page read: shown as the runs they stand for, as
# from a module of uapi version 1, which knows neither the lists nor the
# larger request.
fake_pfn_lists() {
	run env MW_FAKE_UAPI=1 MW_FAKE_TELL_LISTS=1 MW_FAKE_SNAPSHOT="$DATA/scattered.json" \
		"$FAKE_CLIENT" $$ "$@" --pages -n
	expect_rc 0 || return 1
	# The fake goes through the client's own MEMWALK_IOC_INFO check, which
	# warns about the older module; nothing else may be said.
	! grep -v "warning: module reports memwalk uapi version 1" "$tmp/err" |
		grep -q . || fail "PFNs listed for a module without lists" || return 1
	mv "$tmp/out" "$tmp/plain"
	run env MW_FAKE_TELL_LISTS=1 MW_FAKE_SNAPSHOT="$DATA/scattered.json" \
		"$FAKE_CLIENT" $$ "$@" --pages -n
	expect_rc 0 || return 1
	stderr_has "fake-device: 4 PFNs listed" || return 1
	cmp -s "$tmp/plain" "$tmp/out" || fail "listed runs shown differently" || return 1
	[ "$(grep -c ' present ' "$tmp/out")" -eq 6 ] || fail "not the 6 runs of the fixture"
}

test_fake_pfn_lists() {
	fake_pfn_lists --entry-only && fake_pfn_lists --no-folio && fake_pfn_lists
}

test_entry_only_needs_pages() {
	run "$CLIENT" $$ --entry-only
	expect_rc 1 && stderr_one_line && stdout_empty &&
	stderr_has "--entry-only needs --pages, --summary or -J"
}

# a lab-mode opener gets PFN 0 everywhere and no folio state: the client
# says the PFNs are hidden (no_pfn) instead of showing PFN 0, and does not
# claim folio state the module withheld
test_fake_lab_mode() {
	run env MW_FAKE_SNAPSHOT="$DATA/cow-after.json" MW_FAKE_LAB=1 "$FAKE_CLIENT" $$ \
		--pages -n -o range,pfn
	expect_rc 0 && grep -qx '  0000555555559000-000055555555d000 -' "$tmp/out" ||
		fail "hidden PFNs not shown as '-'" || return 1
	run env MW_FAKE_SNAPSHOT="$DATA/cow-after.json" MW_FAKE_LAB=1 "$FAKE_CLIENT" $$ -J
	expect_rc 0 && grep -q '"flags":11,"flag_names":\["vmas","pages","no_pfn"\]' "$tmp/out" ||
		fail "the JSON's flags are not no_pfn without folio" || return 1
	grep -q '"refcount":[1-9]' "$tmp/out" && fail "a withheld refcount in the JSON"
	return 0
}

test_fake_retry() {
	run env MW_FAKE_SNAPSHOT="$DATA/cow-after.json" MW_FAKE_MAX_PAGES=2 \
		MW_FAKE_CHANGE=once "$FAKE_CLIENT" $$ -n -b -o address,rss
	expect_rc 0 && [ "$(sed -n 3p "$tmp/out")" = "0000555555559000 32768" ] ||
		fail "retried snapshot is wrong" || return 1
	run env MW_FAKE_SNAPSHOT="$DATA/cow-after.json" MW_FAKE_MAX_PAGES=2 \
		MW_FAKE_CHANGE=always "$FAKE_CLIENT" $$
	expect_rc 1 && stderr_one_line && stdout_empty &&
	stderr_has "its address space changed during each of 3 attempts"
}

test_fake_errors() {
	fake MW_FAKE_ERRNO=ESRCH "$FAKE_CLIENT" 4242
	expect_rc 1 && stderr_one_line && stdout_empty &&
	stderr_has "snapshot: no such process, or it has no user address space (a kernel thread, or exited): 4242 [ESRCH" || return 1
	fake MW_FAKE_ERRNO=EINVAL "$FAKE_CLIENT" 2 --range 7f0000000000-800000000000
	expect_rc 1 && stderr_one_line && stderr_has "lies beyond the end of user space" || return 1
	fake MW_FAKE_ERRNO=EACCES "$FAKE_CLIENT" 1
	expect_rc 2 && stderr_one_line && stderr_has "permission denied for pid 1: in lab mode" || return 1
	fake MW_FAKE_ERRNO=EPERM "$FAKE_CLIENT" 1
	expect_rc 2 && stderr_one_line && stderr_has "permission denied reading the page tables of pid 1" || return 1
	fake MW_FAKE_ERRNO=ENOTTY "$FAKE_CLIENT" 1
	expect_rc 1 && stderr_has "older than this client" || return 1
	fake MW_FAKE_ERRNO=ESRCH "$FAKE_CLIENT" translate 4242 0x1000
	expect_rc 1 && stderr_one_line && stderr_has "translate: no such process, or it has no user address space" || return 1
	fake MW_FAKE_FEATURES=0 "$FAKE_CLIENT" 1
	expect_rc 1 && stderr_one_line && stderr_has "lacks the 'snapshot' feature" || return 1
	fake MW_FAKE_MIN_BUF=1000000000000 "$FAKE_CLIENT" 1
	expect_rc 1 && stderr_one_line && stderr_has "a single record does not fit" &&
	stderr_has "ENOSPC"
}

# info names every feature bit the uapi header defines, "bitN" the others
test_fake_info_features() {
	fake MW_FAKE_FEATURES=0x80000000000003ff "$FAKE_CLIENT" info
	expect_rc 0 &&
	grep -qx 'features:        netlink debugfs snapshot mglru vma_summary phys contiguous folio_young no_accessed bit9 bit63' "$tmp/out" ||
		fail "feature names: $(grep features "$tmp/out")"
}

test_fake_translate() {
	fake "$FAKE_CLIENT" translate 4242 0x7f2000100a10
	expect_rc 0 && expect_file translate-heap || return 1
	fake "$FAKE_CLIENT" translate 4242 0x7f2000106000
	expect_rc 0 && grep -q '^PTE *262 0ffffffffff7fe02 .* not present: swap format, type 1 offset 0x400,SWP_SOFT_DIRTY$' "$tmp/out" ||
		fail "swap entry not decoded" || return 1
	fake "$FAKE_CLIENT" translate 4242 0x7f2000400123
	expect_rc 0 && grep -q '^PMD .*P,RW,US,A,D,NX,PSE$' "$tmp/out" &&
	grep -qx 'physical address: 0x200000123' "$tmp/out" || fail "PMD leaf not decoded" || return 1
	fake "$FAKE_CLIENT" translate 4242 0x1000
	expect_rc 0 && grep -qx 'VMA: none' "$tmp/out" && grep -qx 'page: none' "$tmp/out" ||
		fail "unmapped address not reported as none"
}

# --- options as util-linux has them (issue 13) ------------------------------

# -J, -n, -b and -o before the command are the command's
test_global_options() {
	fake "$FAKE_CLIENT" info -J
	expect_rc 0 && mv "$tmp/out" "$tmp/after" || return 1
	for pre in -J --json "--json --"; do
		fake "$FAKE_CLIENT" $pre info
		expect_rc 0 && cmp -s "$tmp/after" "$tmp/out" ||
			fail "'$pre info' differs from 'info -J'" || return 1
	done
	fake "$FAKE_CLIENT" $$ --pages -n -o range,pages
	expect_rc 0 && sed 's/^/x/' "$tmp/out" >"$tmp/after" || return 1
	fake "$FAKE_CLIENT" -n --output range,pages $$ --pages
	expect_rc 0 && sed 's/^/x/' "$tmp/out" | cmp -s "$tmp/after" - ||
		fail "'-n --output COLS PID --pages' differs from 'PID --pages -n -o COLS'" || return 1
	usage_error --pages 1 && stderr_has "unrecognized option '--pages' (see 'memwalk-client --help')" &&
	usage_error -b info && stderr_has "info: invalid option -- 'b'"
}

# "snapshot PID" is "PID"; both point to 'memwalk-client snapshot --help'
test_snapshot_word() {
	fake "$FAKE_CLIENT" $$ -n -o address,rss
	expect_rc 0 && mv "$tmp/out" "$tmp/pid" || return 1
	fake "$FAKE_CLIENT" snapshot $$ -n -o address,rss
	expect_rc 0 && cmp -s "$tmp/pid" "$tmp/out" || fail "snapshot PID differs from PID" || return 1
	fake "$FAKE_CLIENT" snapshot -n -o address,rss $$
	expect_rc 0 && cmp -s "$tmp/pid" "$tmp/out" || fail "options before the PID differ" || return 1
	usage_error snapshot && stderr_has "snapshot: missing argument (usage: memwalk-client snapshot PID [OPTIONS])" &&
	usage_error snapshot 1 2 && stderr_has "unexpected argument '2'" &&
	usage_error snapshot x && stderr_has "bad PID 'x'" &&
	usage_error 1 --bogus && stderr_has "(see 'memwalk-client snapshot --help')" &&
	usage_error snapshot 1 -x && stderr_has "snapshot: invalid option -- 'x' (see 'memwalk-client snapshot --help')"
}

# a missing option argument is named as such, in glibc's words
test_missing_argument() {
	usage_error -o && stderr_has "option requires an argument -- 'o'" &&
	usage_error --output && stderr_has "option '--output' requires an argument" &&
	usage_error 1 -r && stderr_has "option requires an argument -- 'r'" &&
	usage_error 1 --save && stderr_has "option '--save' requires an argument" &&
	usage_error 1 --pages -o && stderr_has "option requires an argument -- 'o'" &&
	usage_error snapshot 1 --output && stderr_has "snapshot: option '--output' requires an argument" &&
	usage_error show "$DATA/cow-after.json" -o && stderr_has "show: option requires an argument -- 'o'" &&
	usage_error info --json=yes && stderr_has "info: option '--json' doesn't allow an argument" &&
	usage_error translate 1 0x1000 --json=1 && stderr_has "option '--json' doesn't allow an argument"
}

# every short option in a --help has its long form on the same line
test_long_options() {
	for cmd in "" info status 1 show diff translate events; do
		run "$CLIENT" $cmd --help
		expect_rc 0 || return 1
		if grep -E '^ +-[A-Za-z]([ ,]|$)' "$tmp/out" | grep -v -- ', --[a-z]' >"$tmp/short"; then
			fail "'$cmd --help': a short option without a long one: $(head -n 1 "$tmp/short")"
			return 1
		fi
	done
	for cmd in info status translate; do
		"$CLIENT" $cmd --help | grep -q -- '-J, --json' || fail "$cmd: no -J, --json" || return 1
	done
}

# EXIT STATUS: 1 for a usage error, as the man page says
test_exit_status_man() {
	mandoc -Tascii -O width=200 "$MANPAGE" | sed 's/.\x08//g' |
		sed -n '/^EXIT STATUS/,/^[A-Z]/p' >"$tmp/exit"
	grep -q '^ *1 .*usage error' "$tmp/exit" ||
		fail "EXIT STATUS does not give 1 for a usage error" || return 1
	usage_error --bogus && usage_error 1 --range && usage_error translate 1 0755
}

# ADDR: decimal, or hex with 0x; never octal, never bare hex
test_translate_bases() {
	fake "$FAKE_CLIENT" translate 4242 0x7f2000100a10
	expect_rc 0 && mv "$tmp/out" "$tmp/hex" || return 1
	fake "$FAKE_CLIENT" translate 4242 $((0x7f2000100a10))
	expect_rc 0 && cmp -s "$tmp/hex" "$tmp/out" ||
		fail "decimal $((0x7f2000100a10)) is not 0x7f2000100a10" || return 1
	fake "$FAKE_CLIENT" translate 4242 4096
	expect_rc 0 && grep -qx 'pid 4242 address 0x1000' "$tmp/out" ||
		fail "4096 not read as decimal" || return 1
	fake "$FAKE_CLIENT" translate 4242 0X1000
	expect_rc 0 && grep -qx 'pid 4242 address 0x1000' "$tmp/out" ||
		fail "0X1000 not read as hex" || return 1
	fake "$FAKE_CLIENT" translate 4242 0
	expect_rc 0 && grep -qx 'pid 4242 address 0x0' "$tmp/out" || fail "0 refused" || return 1
	usage_error translate 1 0755 && stderr_has "bad address '0755': a leading 0 is not octal here" &&
	usage_error translate 1 7f2000100a10 && stderr_has "hexadecimal needs 0x, as in 0x7f2000100a10" &&
	usage_error translate 1 18446744073709551616 && stderr_has "bad address '18446744073709551616'" &&
	usage_error translate 1 -- -1 && stderr_has "bad address '-1'" &&
	usage_error translate 1 +5 && stderr_has "bad address '+5'" &&
	usage_error translate 1 ' 5' && stderr_has "bad address ' 5'"
}

# translate -J: the text's levels, physical address, VMA and page
test_translate_json() {
	for addr in 0x7f2000100a10 0x7f2000106000 0x7f2000400123 0x1000; do
		fake "$FAKE_CLIENT" translate 4242 "$addr"
		expect_rc 0 && mv "$tmp/out" "$tmp/text" || return 1
		fake "$FAKE_CLIENT" translate --json 4242 "$addr"
		expect_rc 0 || return 1
		python3 - "$tmp/text" "$tmp/out" <<'PY' >"$tmp/err" 2>&1 || fail "$addr: $(tail -n 1 "$tmp/err")" || return 1
import json, sys
text = open(sys.argv[1]).read().splitlines()
doc = json.load(open(sys.argv[2]))
assert text[0] == "pid %d address 0x%x" % (doc["pid"], doc["address"]), text[0]
rows = [l.split(None, 5) for l in text if l[:3] in ("PGD", "P4D", "PUD", "PMD", "PTE")]
assert len(rows) == len(doc["levels"]), (rows, doc["levels"])
for r, l in zip(rows, doc["levels"]):
    assert r[0] == l["level"] and int(r[1]) == l["index"], (r, l)
    assert int(r[2], 16) == l["entry"] and int(r[3], 16) == l["table"], (r, l)
    assert (r[4] == "-") == ("next" not in l), (r, l)
    assert r[4] == "-" or int(r[4], 16) == l["next"], (r, l)
    assert (r[5] if len(r) > 5 else "") == l["bits"], (r, l)
phys = [l for l in text if l.startswith("physical address: ")]
assert (int(phys[0].split()[-1], 16) if phys else None) == doc.get("physical_address")
vma = [l for l in text if l.startswith("VMA: ")][0]
if vma == "VMA: none":
    assert "vma" not in doc
else:
    s, e = vma.split()[1].split("-")
    assert (int(s, 16), int(e, 16)) == (doc["vma"]["start"], doc["vma"]["end"])
if "page: none" in text:
    assert "page" not in doc
else:
    p = doc["page"]
    assert p["nr_pages"] == 1 and p["start"] == doc["address"] & ~4095, p
    assert any(("%x" % p["pfn"]) in l or ("%d:%x" % (p["swap_type"], p["pfn"])) in l
               for l in text), p
PY
	done
}

# --save FILE: mode 0600 whatever the umask and the old file's mode
test_save_mode() {
	: >"$tmp/old.json" && chmod 0644 "$tmp/old.json" || return 1
	for f in "$tmp/new.json" "$tmp/old.json"; do
		run sh -c 'umask 0; exec env MW_FAKE_SNAPSHOT="$1" "$2" $$ --save "$3"' sh \
			"$DATA/cow-after.json" "$FAKE_CLIENT" "$f"
		expect_rc 0 || return 1
		[ "$(stat -c %a "$f")" = 600 ] || fail "$f has mode $(stat -c %a "$f"), not 600" || return 1
		python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$f" ||
			fail "$f is not JSON" || return 1
	done
}

# a symbolic link (or a non-file) at FILE is refused, its target untouched
test_save_symlink() {
	echo precious >"$tmp/target" && ln -s "$tmp/target" "$tmp/link" || return 1
	run env MW_FAKE_SNAPSHOT="$DATA/cow-after.json" "$FAKE_CLIENT" $$ --save "$tmp/link"
	expect_rc 1 && stderr_one_line && stdout_empty &&
	stderr_has "refusing to save to $tmp/link: it is a symbolic link" || return 1
	[ -L "$tmp/link" ] && [ "$(cat "$tmp/target")" = precious ] ||
		fail "the link or its target changed" || return 1
	ln -s "$tmp/nowhere" "$tmp/dangling" || return 1
	run env MW_FAKE_SNAPSHOT="$DATA/cow-after.json" "$FAKE_CLIENT" $$ --save "$tmp/dangling"
	expect_rc 1 && stderr_has "is a symbolic link" || return 1
	[ ! -e "$tmp/nowhere" ] || fail "written through a dangling link" || return 1
	mkdir "$tmp/adir" || return 1
	run env MW_FAKE_SNAPSHOT="$DATA/cow-after.json" "$FAKE_CLIENT" $$ --save "$tmp/adir"
	expect_rc 1 && stderr_one_line && stderr_has "it is not a regular file"
}

# A write that fails (the file size limit, RLIMIT_FSIZE: EFBIG) leaves the
# old file as it was and no temporary file behind; one that works
# replaces it whole.
test_save_atomic() {
	mkdir "$tmp/sv" && echo '{"old": true}' >"$tmp/sv/a.json" || return 1
	run sh -c 'trap "" XFSZ; ulimit -f 1 || exit 99
		exec env MW_FAKE_SNAPSHOT="$1" "$2" $$ --save "$3"' sh \
		"$DATA/smaps-rules.json" "$FAKE_CLIENT" "$tmp/sv/a.json"
	expect_rc 1 || return 1
	[ "$(cat "$tmp/sv/a.json")" = '{"old": true}' ] || fail "the old file changed" || return 1
	stderr_one_line && stdout_empty &&
	stderr_has "cannot write $tmp/sv/a.json, left as it was [EFBIG" || return 1
	[ "$(ls -A "$tmp/sv")" = a.json ] || fail "left behind: $(ls -A "$tmp/sv" | tr '\n' ' ')" || return 1
	ino=$(stat -c %i "$tmp/sv/a.json")
	run env MW_FAKE_SNAPSHOT="$DATA/smaps-rules.json" "$FAKE_CLIENT" $$ --save "$tmp/sv/a.json"
	expect_rc 0 && [ "$(ls -A "$tmp/sv")" = a.json ] || fail "not saved alone" || return 1
	[ "$(stat -c %i "$tmp/sv/a.json")" != "$ino" ] ||
		fail "written in place, not renamed over" || return 1
	run "$CLIENT" show "$tmp/sv/a.json" -n -o address,rss
	expect_rc 0 && "$CLIENT" show "$DATA/smaps-rules.json" -n -o address,rss | cmp -s - "$tmp/out" ||
		fail "the saved file is not the snapshot"
}

# --save -: the document on standard output, as -J prints it
test_save_stdout() {
	fake "$FAKE_CLIENT" $$ -J
	expect_rc 0 && mv "$tmp/out" "$tmp/j" || return 1
	fake "$FAKE_CLIENT" $$ --save -
	expect_rc 0 && [ ! -s "$tmp/err" ] && [ ! -e ./- ] || fail "--save - failed" || return 1
	python3 - "$tmp/j" "$tmp/out" <<'PY' >"$tmp/err" 2>&1 || fail "$(tail -n 1 "$tmp/err")" || return 1
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
# When each was taken: the clock may tick a second between the two.
for k in ("time_ns", "time"):
    del a[k], b[k]
assert a == b, "--save - differs from -J"
PY
	usage_error 1 --save - --pages && stderr_has "--save - prints the snapshot on standard output in place of any view"
}

# --no-pfn: pages alike but for their PFN are one run, in text and JSON,
# also when every call returns one page
test_no_pfn() {
	for max in 0 1; do
		run env MW_FAKE_SNAPSHOT="$DATA/scattered.json" MW_FAKE_MAX_PAGES=$max \
			"$FAKE_CLIENT" $$ --pages --no-pfn -n -o range,pages,state,type,pfn
		expect_rc 0 || return 1
		printf '%s\n' '  00007f0000000000-00007f0000006000     6 present anon,excl -' \
			'  00007f0000006000-00007f0000008000     2 present zero      -' >"$tmp/expected"
		grep '^  ' "$tmp/out" | cmp -s "$tmp/expected" - || fail "max $max: not two runs" || return 1
	done
	run env MW_FAKE_SNAPSHOT="$DATA/scattered.json" "$FAKE_CLIENT" $$ --pages -n -o range
	expect_rc 0 && [ "$(grep -c '^  ' "$tmp/out")" -eq 6 ] ||
		fail "without --no-pfn not the fixture's 6 runs" || return 1
	run env MW_FAKE_SNAPSHOT="$DATA/smaps-rules.json" "$FAKE_CLIENT" $$ --no-pfn -J
	expect_rc 0 || return 1
	python3 - "$DATA/smaps-rules.json" "$tmp/out" <<'PY' >"$tmp/err" 2>&1 || fail "$(tail -n 1 "$tmp/err")"
import json, sys
fix, live = (json.load(open(p)) for p in sys.argv[1:])
assert "no_pfn" in live["flag_names"], live["flag_names"]
def pages(d):
    return [(r["start"] + i * 4096, r["flags"], r["folio_flags"])
            for v in d["vmas"] for r in v["runs"] for i in range(r["nr_pages"])]
assert pages(fix) == pages(live), "not the same pages"
for v in live["vmas"]:
    for a, b in zip(v["runs"], v["runs"][1:]):
        assert a["pfn"] == 0
        same = all(a[k] == b[k] for k in ("flags", "folio_flags", "mapcount", "refcount", "nid", "order", "lru_gen"))
        assert not (same and a["end"] == b["start"]), ("not merged", a, b)
PY
}

# --summary: pages per state and flag combination, against a count of the
# fixture's pages made here; text and JSON agree, -n drops heading and total
test_summary() {
	for f in smaps-rules scattered thp-after swap-after; do
		run env MW_FAKE_SNAPSHOT="$DATA/$f.json" MW_FAKE_MAX_PAGES=3 \
			"$FAKE_CLIENT" $$ --pages --summary -J
		expect_rc 0 && mv "$tmp/out" "$tmp/sum.json" || return 1
		run env MW_FAKE_SNAPSHOT="$DATA/$f.json" "$FAKE_CLIENT" snapshot $$ --summary
		expect_rc 0 && mv "$tmp/out" "$tmp/sum.txt" || return 1
		run env MW_FAKE_SNAPSHOT="$DATA/$f.json" "$FAKE_CLIENT" $$ --summary -n
		expect_rc 0 || return 1
		python3 - "$DATA/$f.json" "$tmp/sum.json" "$tmp/sum.txt" "$tmp/out" <<'PY' >"$tmp/err" 2>&1 || fail "$f: $(tail -n 1 "$tmp/err")" || return 1
import collections, json, sys
fix, doc = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
text, bare = open(sys.argv[3]).read().splitlines(), open(sys.argv[4]).read().splitlines()
want = collections.Counter()
for v in fix["vmas"]:
    for r in v["runs"]:
        for i in range(r["nr_pages"]):      # page by page
            f = r["flags"]
            want[(f & 7, (f >> 3) & 3, f & 0x1fffe0, r["folio_flags"])] += 1
states = {1: "present", 2: "swap", 3: "migration", 4: "device", 5: "hwpoison", 6: "marker", 7: "shmem-swap"}
levels = {0: "pte", 1: "pmd", 2: "pud"}
got = collections.Counter()
for t in doc["page_types"]:
    k = ([s for s, n in states.items() if n == t["state"]][0],
         [l for l, n in levels.items() if n == t["level"]][0], t["flags"], t["folio_flags"])
    assert k not in got, ("a kind twice", t)
    got[k] = t["pages"]
    assert t["kbytes"] == t["pages"] * 4, t
assert got == want, (sorted(got.items()), sorted(want.items()))
assert doc["total_pages"] == sum(want.values())
assert text[0].split() == ["PAGES", "KB", "STATE", "LEVEL", "BITS", "TYPE", "FLAGS"], text[0]
assert text[-1].split() == [str(doc["total_pages"]), str(doc["total_kbytes"]), "total"], text[-1]
rows = [l.split() for l in text[1:-1]]
assert [(int(r[0]), r[2], r[3]) for r in rows] == \
       [(t["pages"], t["state"], t["level"]) for t in doc["page_types"]], rows
assert [l.split() for l in bare] == [l.split() for l in text[1:-1]], \
       "-n is not the lines without heading and total"
PY
	done
	usage_error 1 --summary -o pages && stderr_has "--output does not apply to --summary"
}

# a module of another uapi version: one warning, and the command goes on
test_uapi_warning() {
	for args in "info" "translate 4242 0x7f2000100a10" "$$ -n -o address"; do
		fake MW_FAKE_UAPI=4 "$FAKE_CLIENT" $args
		expect_rc 0 && [ -s "$tmp/out" ] || fail "'$args' did not go on" || return 1
		[ "$(grep -c 'warning: module reports memwalk uapi version 4, this client was built with' "$tmp/err")" -eq 1 ] &&
		stderr_one_line || fail "'$args': not one warning" || return 1
	done
	fake MW_FAKE_UAPI=1 "$FAKE_CLIENT" $$ -J
	expect_rc 0 && stderr_one_line && stderr_has "module reports memwalk uapi version 1" || return 1
	fake "$FAKE_CLIENT" info
	expect_rc 0 && [ ! -s "$tmp/err" ] || fail "a warning for the same version"
}

# bash completion: every command of --help, options from each command's
# --help, PIDs, columns after -o, files; installed by make and the package
COMPLETION=${COMPLETION:-$here/../bash-completion/memwalk-client}
test_completion() {
	"$CLIENT" --help | sed -n '/^Commands:/,/^$/s/^  \([a-z][a-z]*\) .*/\1/p' >"$tmp/commands"
	[ -s "$tmp/commands" ] || fail "no commands in --help" || return 1
	run bash -c '
	. "$1" || { echo "cannot source $1"; exit 1; }
	client=$2 data=$3 commands=$4
	comp() { COMP_WORDS=("$client" "$@"); COMP_CWORD=$#; _memwalk_client
		printf "%s\n" "${COMPREPLY[@]}"; }
	has() { local words=$1; shift; local w
		for w; do grep -qxF -- "$w" <<<"$words" || { echo "lacks $w: ${words//$'\''\n'\''/ }"; exit 1; }; done; }
	hasnt() { [ -z "$1" ] || { echo "offered: ${1//$'\''\n'\''/ } ($2)"; exit 1; }; }
	has "$(comp "")" $(cat "$commands") $$
	has "$(comp sn)" snapshot
	has "$(comp -)" -J --json -n --noheadings -o --output -h --help -V --version
	has "$(comp snapshot --)" --summary --no-pfn --save --pages --range --json --no-folio --entry-only
	has "$(comp 1 -)" -r --range -J -o -n --summary
	has "$(comp -J $$ --sum)" --summary
	has "$(comp info --)" --json --help
	has "$(comp translate -)" -J --json
	has "$(comp 1 -o rss,di)" rss,dirty
	has "$(comp 1 --output add)" address
	has "$(comp translate "")" $$
	hasnt "$(comp translate 1 "")" "after the PID"
	has "$(comp snapshot "")" $$
	hasnt "$(comp snapshot 1 "")" "after the PID"
	has "$(comp show "$data/cow-a")" "$data/cow-after.json"
	has "$(comp diff "$data/cow-after.json" "$data/cow-b")" "$data/cow-before.json"
	has "$(comp 1 --save "$data/thp-a")" "$data/thp-after.json"
	has "$(comp 1 --save -)" -
	has "$(comp events --pid "")" $$
	has "$(comp watch "")" $$
	has "$(comp watch 1 --b)" --batch
	has "$(comp watch 1 -)" -i --interval -n --frames -J --folio
	hasnt "$(comp watch 1 -n "")" "a frame count"
	hasnt "$(comp watch 1 -i 2 "")" "after the PID"
	complete -p memwalk-client | grep -q -- "-F _memwalk_client" || { echo "not registered"; exit 1; }
	' sh "$COMPLETION" "$CLIENT" "$DATA" "$tmp/commands"
	expect_rc 0 || fail "$(tail -n 1 "$tmp/out")" || return 1
	top=$here/../..
	grep -qx 'userspace/bash-completion/memwalk-client usr/share/bash-completion/completions/' \
		"$top/debian/memwalk-client.install" || fail "the package does not install it" || return 1
	make -s -n -C "$top" install-client DESTDIR=/nowhere 2>/dev/null |
		grep -q 'install .*userspace/bash-completion/memwalk-client.*/nowhere/usr/local/share/bash-completion/completions/memwalk-client' ||
		fail "make install-client does not install it"
}

# libmemwalk returns its errors and prints nothing (tests/lib-test.c).
test_lib_errors() {
	mkdir -p "$tmp/lib" || return 1
	run "$LIB_TEST" "$DATA" "$tmp/lib"
	expect_rc 0 || fail "$(head -n 1 "$tmp/out")" || return 1
	[ ! -s "$tmp/err" ] || fail "the library printed on stderr"
}

# Aligned text written by table.c, where libsmartcols is not called,
# against libsmartcols' own for the same tables (tests/table-test.c).
test_table_text() {
	run "$TABLE_TEST"
	expect_rc 0 || fail "$(grep -m 1 '^not ok' "$tmp/out")" || return 1
	[ "$(tail -n 1 "$tmp/out")" = "1..20" ] || fail "not every table was compared"
}

if ! [ -x "$CLIENT" ] || ! [ -x "$PRINT_TEST" ] || ! [ -x "$JSON_TEST" ] ||
   ! [ -x "$FAKE_CLIENT" ] || ! [ -x "$LIB_TEST" ] || ! [ -x "$TABLE_TEST" ]; then
	echo "Bail out! build the client and the test programs first (make -C userspace check)"
	exit 1
fi

t "--help and -h exit 0 and end with the man page pointer" test_help
t "--version prints the client and uapi versions" test_version
t "bad global option: exit 1, one line on stderr" test_bad_option
t "bad command option or argument: exit 1, one line on stderr" test_bad_command_option
t "unknown command: exit 1, one line on stderr" test_unknown_command
t "no command: exit 1, one line on stderr" test_no_command
t "events command: unexpected argument, exit 1" test_events_usage
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
if [ "${MW_SANITIZE:-0}" = 1 ]; then
	t "client and test programs are built with ASan and UBSan" test_sanitized
else
	t "memwalk-client is linked with the shared libnl-3, libnl-genl-3, libsmartcols" test_dynamic
fi
t "man page passes mandoc -Tlint -W warning" test_man_lint
t "man page has the sections and documents every command" test_man_commands
t "man page: header and footer name memwalk and its version, not BSD" test_man_header
t "print layer: text output" test_print_text
if command -v python3 >/dev/null; then
	t "print layer: JSON output is valid and round-trips" test_print_json
else
	t "print layer: JSON output is valid and round-trips (python3 needed)" false
fi

t "JSON reader: valid documents" test_json_valid
t "JSON reader: malformed documents, with line and column" test_json_errors
t "JSON reader: exact 64-bit integers" test_json_integers
t "library: errors are returned with their message, nothing printed" test_lib_errors
t "tables: aligned text as libsmartcols writes it, C and UTF-8" test_table_text
t "show: the table agrees with the smaps rules (fixture)" test_show_table
t "show --pages: runs under their VMAs (fixture)" test_show_pages
t "show -o -n: chosen columns, data lines only" test_show_columns
t "show, diff, -J: shmem pages in swap count as Swap (fixture)" test_shmem_swap
t "show -: reads standard input" test_show_stdin
t "show: bad columns and arguments, exit 1" test_show_column_errors
if command -v python3 >/dev/null; then
	t "show -J: schema keys, raw fields kept, round trip" test_show_json_roundtrip
	t "show -J: smaps-compatible summaries" test_show_json_values
else
	t "show -J: schema keys, raw fields kept, round trip (python3 needed)" false
	t "show -J: smaps-compatible summaries (python3 needed)" false
fi
t "tables: -o +COLS, --output-all, headings are the -o names" test_table_output
t "tables: -r raw, blanks escaped" test_table_raw
t "tables: --sort by numbers, by a hidden column, totals last" test_table_sort
t "tables: the totals row keeps its label whatever the columns" test_table_total_label
if command -v python3 >/dev/null; then
	t "tables: -J of the chosen columns (human, -b, --pages nested)" test_table_json
	t "tables: control characters in names escaped, never raw" test_table_escapes
	t "tables: UTF-8 widths in a UTF-8 locale, escaped in C" test_table_utf8
	if command -v script >/dev/null; then
		t "tables: cut to the terminal's width" test_table_terminal
	else
		skip "tables: cut to the terminal's width" "script(1) not installed"
	fi
	t "show of an --entry-only snapshot: no table; JSON says not exact" test_entry_only_show
	t "show of a --no-folio snapshot: folio counts unknown, not guessed" test_no_folio_show
else
	t "tables and exactness (python3 needed)" false
fi
t "diff: fork and COW" test_diff_cow
t "diff: swap-out, swap-in, MGLRU generations" test_diff_swap
t "diff: page cache dropped, VMA unmapped" test_diff_cache
t "diff: THP collapse and split, LRU moves, a new VMA" test_diff_thp
t "diff: a snapshot with itself: no changes" test_diff_same
t "diff: the other way round" test_diff_reverse
t "diff: a VMA that grew and was locked" test_diff_vma_changed
t "diff: bad arguments, exit 2" test_diff_args
t "diff: fork write-protects and shares the anonymous pages" test_diff_fork
t "diff: exit 0 without changes, 1 with" test_diff_exit_status
t "diff: --range snapshots compare where both were walked" test_diff_range
t "diff: other pid, kernel, machine, boot or mode refused but with --force" test_diff_refused
t "diff -J: the changes as JSON" test_diff_json
t "show -J: hostname and boot_id kept, none invented" test_snapshot_host_keys
t "show/diff on malformed files: one line naming the place, exit 1 and 2" test_bad_files
t "show/diff on files with several faults: the first as the whole document has it" test_bad_files_order
t "show -J of a generated 16,000-run snapshot: the same document" test_show_large
# valgrind cannot run ASan programs; in the sanitizer run ASan does its work.
if [ "${MW_SANITIZE:-0}" = 1 ]; then
	:
elif command -v valgrind >/dev/null; then
	t "show/diff under valgrind: no memory errors or leaks" test_bad_files_valgrind
else
	skip "show/diff under valgrind: no memory errors or leaks" "valgrind not installed"
fi
t "PID without the device: module not loaded, exit 2" test_pid_no_device
t "translate without the device: module not loaded, exit 2" test_translate_no_device
t "PID: bad PID, range, columns: exit 1 naming the rule" test_pid_arguments
t "translate: bad PID, address, arguments: exit 1" test_translate_arguments
t "PID (fake device): table equals show of the same snapshot" test_fake_table
if command -v python3 >/dev/null; then
	t "PID -J --save (fake device, many calls, ENOSPC): the snapshot served" test_fake_json_calls
else
	t "PID -J --save (fake device, many calls, ENOSPC) (python3 needed)" false
fi
t "PID --pages --save (fake device): show of the file gives the same view" test_fake_save_text
t "PID --save to a bad path: exit 1" test_fake_save_error
t "PID --range --no-folio (fake device)" test_fake_range_nofolio
t "PID --entry-only --pages: no page-derived flags (fake device)" test_fake_entry_only
t "PID --pages: PFN lists shown as the runs they stand for (fake device)" test_fake_pfn_lists
t "PID --entry-only without --pages or -J is refused" test_entry_only_needs_pages
t "PID (fake device): PFNs hidden in lab mode are flagged, not shown as 0" test_fake_lab_mode
t "PID (fake device): taken again when the address space changes" test_fake_retry
t "PID and translate (fake device): errno mapping and exit status" test_fake_errors
t "info (fake device): every feature named" test_fake_info_features
t "translate (fake device): levels decoded, VMA and page" test_fake_translate
t "-J, -n, -o before the command are the command's" test_global_options
t "snapshot PID is PID; errors point to 'snapshot --help'" test_snapshot_word
t "a missing option argument is reported as such, exit 1" test_missing_argument
t "every short option has a long one; -J/--json where JSON is printed" test_long_options
t "usage errors exit 1, as EXIT STATUS says" test_exit_status_man
t "translate ADDR: decimal, 0x hex; octal and bare hex refused" test_translate_bases
if command -v python3 >/dev/null; then
	t "translate -J: the text's levels, address, VMA and page" test_translate_json
	t "PID --save: mode 0600 whatever the umask or old mode" test_save_mode
	t "PID --save - : the JSON document on standard output" test_save_stdout
	t "PID --pages --no-pfn: pages alike but for the PFN are one run" test_no_pfn
	t "diff without PFNs: COW broken only where a copy is certain" test_diff_cow_no_pfn
	t "PID --summary: pages per state and flags, against a count of the fixture" test_summary
else
	t "translate -J, --save, --no-pfn, --summary (python3 needed)" false
fi
t "PID --save: a symbolic link or a non-file is refused, untouched" test_save_symlink
t "PID --save: a failed write (RLIMIT_FSIZE) leaves the old file whole" test_save_atomic
t "a module of another uapi version: one warning, the command goes on" test_uapi_warning
if command -v bash >/dev/null; then
	t "bash completion: commands, options, PIDs, columns, files; installed" test_completion
else
	t "bash completion (bash needed)" false
fi

tap_end

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Host-side tests of "memwalk-client ps": no module here, so the processes
# are walked through memwalk-client-fake, whose fake device serves the same
# fixture (tests/data/smaps-rules.json) for every PID.  The oracle is the
# fixture's own smaps counts as "show -J" prints them VMA by VMA: a
# process's Rss, Swap, USS, THP and Hugetlb are their sums, its Pss at
# least theirs and less than a kB more per VMA (ps rounds once, as
# smaps_rollup does; the VM test compares with smaps_rollup itself); a
# mapping's numbers are its VMAs' times the processes walked.
# Output is TAP; the exit status is non-zero if a test failed.
#
# Paths can be overridden: CLIENT, FAKE_CLIENT.  MW_SANITIZE=1: the
# programs are built with ASan and UBSan (make check-san; see tap.sh).

set -u

here=$(cd "$(dirname "$0")" && pwd)
CLIENT=${CLIENT:-$here/../memwalk-client}
FAKE_CLIENT=${FAKE_CLIENT:-$here/memwalk-client-fake}
FIXTURE=$here/data/smaps-rules.json
COMPLETION=${COMPLETION:-$here/../bash-completion/memwalk-client}

tmp=$(mktemp -d) || exit 1
sleeper=
trap 'rm -rf "$tmp"; [ -z "$sleeper" ] || kill "$sleeper" 2>/dev/null' EXIT
unset MEMWALK_DEVICE MW_FAKE_ERRNO MW_FAKE_LAB

. "$here/tap.sh"

stderr_has() {
	grep -qF -- "$1" "$tmp/err" || fail "stderr lacks '$1'"
}

# usage_error ARGS...: exit 1, one line on stderr naming it, nothing on stdout
usage_error() {
	run env MW_FAKE_SNAPSHOT="$FIXTURE" "$FAKE_CLIENT" ps "$@"
	expect_rc 1 || return 1
	[ "$(wc -l <"$tmp/err")" -eq 1 ] || fail "expected one line on stderr" || return 1
	[ ! -s "$tmp/out" ] || fail "expected nothing on stdout"
}

fake() {
	run env MW_FAKE_SNAPSHOT="$FIXTURE" "$@"
}

test_usage_errors() {
	usage_error --by group && stderr_has "bad --by 'group': expected user or mapping" &&
	usage_error -o pid,bogus && stderr_has "unknown column 'bogus'" &&
	usage_error --by user -o pid && stderr_has "unknown column 'pid'" &&
	usage_error -s bogus && stderr_has "unknown column 'bogus' for --sort" &&
	usage_error --sort command --by mapping && stderr_has "unknown column 'command' for --sort" &&
	usage_error 12x && stderr_has "bad PID '12x'" &&
	usage_error 0 && stderr_has "bad PID '0'" &&
	usage_error -P '(' && stderr_has "bad regular expression '('" &&
	usage_error -u no-such-user-here && stderr_has "unknown user 'no-such-user-here'" &&
	usage_error -u && stderr_has "option requires an argument" &&
	usage_error --bogus && stderr_has "unrecognized option '--bogus'"
}

test_help() {
	run "$CLIENT" ps --help
	expect_rc 0 || return 1
	grep -q '^Usage: memwalk-client ps \[PID...\] \[OPTIONS\]$' "$tmp/out" ||
		fail "no usage line" || return 1
	[ "$(grep -c -- '--sort' "$tmp/out")" -eq 1 ] || fail "--sort listed twice" || return 1
	for col in pid user command swap uss pss rss anon file shmem thp hugetlb locked \
		   nprocs mapping; do
		grep -q "^  $col  " "$tmp/out" || fail "column $col not listed" || return 1
	done
	[ "$(tail -n 1 "$tmp/out")" = "See memwalk-client(1)." ] || fail "no man pointer"
}

test_no_device() {
	run env MEMWALK_DEVICE="$tmp/no-such-device" "$CLIENT" ps
	expect_rc 2 && stderr_has "memwalk module not loaded" && [ ! -s "$tmp/out" ] ||
		fail "not exit 2 with nothing on stdout"
}

# check_json FILE PIDS...: each process of ps -J -b as the fixture says
check_json() {
	python3 - "$@" <<'EOF'
import json, subprocess, sys
out, client, fixture, *pids = sys.argv[1:]
ps = json.load(open(out))
show = json.loads(subprocess.run([client, "show", fixture, "-J"], check=True,
                                 capture_output=True).stdout)
vmas = [v["summary"] for v in show["vmas"]]
def tot(*keys):
    return sum(v[k] for v in vmas for k in keys) * 1024
rows = ps["processes"]
assert sorted(r["pid"] for r in rows) == sorted(int(p) for p in pids), rows
for r in rows:
    for col, keys in (("rss", ["rss_kb"]), ("swap", ["swap_kb"]),
                      ("uss", ["private_clean_kb", "private_dirty_kb"]),
                      ("thp", ["thp_kb"]), ("hugetlb", ["hugetlb_kb"])):
        assert r[col] == tot(*keys), (col, r[col], tot(*keys))
    for col, key in (("pss", "pss_kb"), ("locked", "locked_kb")):
        assert tot(key) <= r[col] < tot(key) + 1024 * len(vmas), (col, r[col], tot(key))
    parts = r["anon"] + r["file"] + r["shmem"]
    assert parts <= r["pss"] <= parts + 2 * 1024, (r["pss"], parts)
    assert r["command"] and r["user"], r
assert ps["skipped"] == {"exited": 0, "not_permitted": 0, "changing": 0,
                         "kernel_threads": 0}, ps["skipped"]
EOF
}

test_json_values() {
	fake "$FAKE_CLIENT" ps -J -b --output-all $$
	expect_rc 0 || return 1
	check_json "$tmp/out" "$CLIENT" "$FIXTURE" $$ || fail "values differ from the fixture's"
}

test_several_pids() {
	sleep 1000 &
	sleeper=$!
	fake "$FAKE_CLIENT" ps -J -b --output-all $$ "$sleeper" $$
	kill "$sleeper"
	wait "$sleeper" 2>/dev/null
	expect_rc 0 || return 1
	check_json "$tmp/out" "$CLIENT" "$FIXTURE" $$ "$sleeper" ||
		fail "two processes (one named twice): not each as the fixture says"
}

# --by mapping: each mapping the fixture's VMAs of that name, times 2
test_by_mapping() {
	fake "$FAKE_CLIENT" ps --by mapping -J -b --output-all $$ 1
	expect_rc 0 || return 1
	python3 - "$tmp/out" "$CLIENT" "$FIXTURE" <<'EOF' || { fail "mappings differ from the fixture's"; return 1; }
import json, subprocess, sys
out, client, fixture = sys.argv[1:]
ps = json.load(open(out))["mappings"]
show = json.loads(subprocess.run([client, "show", fixture, "-J"], check=True,
                                 capture_output=True).stdout)
want = {}
for v in show["vmas"]:
    name = v["name"] or "[ anon ]"
    s = want.setdefault(name, {"rss": 0, "pss": 0, "swap": 0, "uss": 0, "locked": 0})
    s["rss"] += v["summary"]["rss_kb"] * 2048
    s["pss"] += v["summary"]["pss_kb"] * 2048
    s["swap"] += v["summary"]["swap_kb"] * 2048
    s["locked"] += v["summary"]["locked_kb"] * 2048
    s["uss"] += (v["summary"]["private_clean_kb"] + v["summary"]["private_dirty_kb"]) * 2048
assert sorted(m["mapping"] for m in ps) == sorted(want), (ps, want)
for m in ps:
    assert m["nprocs"] == 2, m
    for k, val in want[m["mapping"]].items():
        assert m[k] == val, (m["mapping"], k, m[k], val)
pss = [m["pss"] for m in ps]
assert pss == sorted(pss, reverse=True), pss
EOF
	fake "$FAKE_CLIENT" ps --by mapping -s mapping -n -o mapping $$
	expect_rc 0 && LC_ALL=C sort -c "$tmp/out" || fail "-s mapping: not in order"
}

test_by_user() {
	fake "$FAKE_CLIENT" ps --by user -J -b $$ 1
	expect_rc 0 || return 1
	fake "$FAKE_CLIENT" ps -J -b $$
	cp "$tmp/out" "$tmp/one.json"
	fake "$FAKE_CLIENT" ps --by user -J -b $$ 1
	python3 - "$tmp/out" "$tmp/one.json" <<'EOF' || fail "per user: not twice one process"
import json, sys
users = json.load(open(sys.argv[1]))["users"]
one = json.load(open(sys.argv[2]))["processes"][0]
assert len(users) == 1 and users[0]["nprocs"] == 2, users
for k in ("swap", "uss", "pss", "rss"):
    assert users[0][k] == 2 * one[k], (k, users[0][k], one[k])
EOF
}

# Text: a totals line, human sizes by default, and -n drops it.
test_text() {
	fake "$FAKE_CLIENT" ps $$ 1
	expect_rc 0 || return 1
	head -n 1 "$tmp/out" | grep -q '^ *PID USER *COMMAND *SWAP *USS *PSS *RSS$' ||
		fail "heading: $(head -n 1 "$tmp/out")" || return 1
	tail -n 1 "$tmp/out" | grep -q '^total  *16K  *4.1M  *4.1M  *4.2M$' ||
		fail "totals: $(tail -n 1 "$tmp/out")" || return 1
	fake "$FAKE_CLIENT" ps -n -o pid,pss -s pid $$ 1
	expect_rc 0 && [ "$(awk '{ print $1 "," $2 }' "$tmp/out")" = "$(printf '1,2.1M\n%s,2.1M' $$)" ] ||
		fail "-n -o pid,pss: $(cat "$tmp/out")"
}

# A command line with control characters is escaped in text, not printed raw.
test_escaped_command() {
	python3 -c 'import os, sys; os.execv("/bin/sleep", ["sleep\033]0;owned\007", "1000"])' &
	pid=$!
	for i in 1 2 3 4 5 6 7 8 9 10; do
		[ "$(head -c 5 "/proc/$pid/cmdline" 2>/dev/null)" = sleep ] && break
		sleep 0.2
	done
	fake "$FAKE_CLIENT" ps -o pid,command $pid
	kill $pid
	expect_rc 0 || return 1
	! grep -q "$(printf '\033')" "$tmp/out" || fail "ESC printed raw" || return 1
	grep -qF 'sleep\x1b]0;owned\x07 1000' "$tmp/out" || fail "not escaped as \\xHH"
}

# Processes that exit or are refused: counted, the command succeeds.
test_skipped() {
	fake env MW_FAKE_ERRNO=ESRCH "$FAKE_CLIENT" ps $$ 1
	expect_rc 0 && tail -n 1 "$tmp/out" | grep -qx 'skipped: 2 exited during the scan' ||
		fail "ESRCH: not counted as exited" || return 1
	fake env MW_FAKE_ERRNO=EACCES "$FAKE_CLIENT" ps -J $$
	expect_rc 0 && python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["processes"] == [] and d["skipped"]["not_permitted"] == 1, d' "$tmp/out" ||
		fail "EACCES: not counted as not permitted" || return 1
	fake env MW_FAKE_ERRNO=EPERM "$FAKE_CLIENT" ps -n $$
	expect_rc 0 && [ ! -s "$tmp/out" ] && stderr_has "skipped: 1 not permitted" ||
		fail "-n: the count not on stderr"
}

# A PID that does not exist: exit 1 naming it, the others still shown.
test_missing_pid() {
	fake "$FAKE_CLIENT" ps -n -o pid 2147483647 $$
	expect_rc 1 && stderr_has "ps: no such process: 2147483647" &&
		[ "$(tr -d ' ' <"$tmp/out")" = "$$" ] || fail "not exit 1 with $$ shown"
}

# Filters that match nothing: an empty table, exit 0; -P never matches ps itself.
test_filters() {
	fake "$FAKE_CLIENT" ps -J -P 'no such command line here'
	expect_rc 0 && python3 -c '
import json, sys
assert json.load(open(sys.argv[1]))["processes"] == []' "$tmp/out" ||
		fail "-P matching nothing: not an empty table" || return 1
	# A command line of this run's own (another run's sleeper is not
	# ours), matched once the child has exec'd it.
	sleep "1000.$$" &
	sleeper=$!
	for _ in $(seq 100); do
		tr '\0' ' ' <"/proc/$sleeper/cmdline" | grep -qx "sleep 1000.$$ " && break
		sleep 0.05
	done
	fake "$FAKE_CLIENT" ps -n -o pid -P "^sleep 1000\\.$$\$"
	kill "$sleeper"
	wait "$sleeper" 2>/dev/null
	expect_rc 0 && [ "$(tr -d ' ' <"$tmp/out")" = "$sleeper" ] ||
		fail "-P '^sleep 1000\\.$$\$': not the sleeper ($sleeper) alone" || return 1
	sleeper=
	fake "$FAKE_CLIENT" ps -n -o user -u "$(id -u)" $$
	expect_rc 0 && [ "$(tr -d ' ' <"$tmp/out")" = "$(id -un)" ] || fail "-u UID" || return 1
	fake "$FAKE_CLIENT" ps -n -o pid -u 4000000000 $$
	expect_rc 0 && [ ! -s "$tmp/out" ] || fail "-u with no process: not empty"
}

# Lab mode: no folio state, so Pss and USS are unknown ('-', null), Rss known.
test_lab_mode() {
	fake env MW_FAKE_LAB=1 "$FAKE_CLIENT" ps -J -b $$
	expect_rc 0 && python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))["processes"][0]
assert r["pss"] is None and r["uss"] is None and r["rss"] > 0 and r["swap"] is not None, r
' "$tmp/out" || fail "not null" || return 1
	fake env MW_FAKE_LAB=1 "$FAKE_CLIENT" ps -o pid,uss,pss,rss $$
	expect_rc 0 && tail -n 1 "$tmp/out" | grep -q '^total  *-  *-  *2.1M$' ||
		fail "totals: $(tail -n 1 "$tmp/out")"
}

# bash completion: ps's options, columns, --by words, users and PIDs.
test_completion() {
	run bash -c '
	. "$1" || { echo "cannot source $1"; exit 1; }
	client=$2
	comp() { COMP_WORDS=("$client" "$@"); COMP_CWORD=$#; _memwalk_client
		printf "%s\n" "${COMPREPLY[@]}"; }
	has() { local words=$1; shift; local w
		for w; do grep -qxF -- "$w" <<<"$words" || { echo "lacks $w: ${words//$'\''\n'\''/ }"; exit 1; }; done; }
	has "$(comp p)" ps
	has "$(comp ps --)" --user --pattern --by --sort --json --output --bytes
	has "$(comp ps -o pss,u)" pss,uss pss,user
	has "$(comp ps -s map)" mapping
	has "$(comp ps --by "")" user mapping
	has "$(comp ps -u ro)" root
	has "$(comp ps 1 "")" $$
	has "$(comp ps -u root "")" $$
	' sh "$COMPLETION" "$CLIENT"
	expect_rc 0 || fail "$(tail -n 1 "$tmp/out")"
}

if ! [ -x "$CLIENT" ] || ! [ -x "$FAKE_CLIENT" ]; then
	echo "Bail out! build the client and the test programs first (make -C userspace check)"
	exit 1
fi

t "ps: bad arguments, exit 1 naming the rule" test_usage_errors
t "ps --help: options once, every column, the man page pointer" test_help
t "ps without the device: module not loaded, exit 2" test_no_device
if command -v python3 >/dev/null; then
	t "ps -J -b (fake device): each column against the fixture's smaps counts" test_json_values
	t "ps of two PIDs, one named twice: each once, as the fixture says" test_several_pids
	t "ps --by mapping: the sum of the VMAs of each mapping over the processes" test_by_mapping
	t "ps --by user: the sum of the user's processes" test_by_user
	t "ps: escapes control characters of command lines" test_escaped_command
	t "ps: exited and refused processes counted, not errors" test_skipped
	t "ps: filters that match nothing give an empty table, exit 0" test_filters
	t "ps in lab mode: Pss and USS unknown, not guessed" test_lab_mode
else
	t "ps against the fixture (python3 needed)" false
fi
t "ps: totals line, human sizes, -n, -s pid" test_text
t "ps: a PID that does not exist is an error, the others shown" test_missing_pid
if command -v bash >/dev/null; then
	t "ps: bash completion of options, columns, --by, users, PIDs" test_completion
else
	t "ps: bash completion (bash needed)" false
fi

tap_end

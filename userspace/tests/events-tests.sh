#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Host-side tests of "memwalk-client events" and of the parts the event
# stream is made of: no module here, so the stream is built with libnl by
# events-test (the way the module builds it) and fed either straight to
# the parser, the accounting and the formatter, or to the client through
# a replay file (MEMWALK_EVENTS_REPLAY), which the client reads instead of
# the sockets.  Output is TAP; the exit status is non-zero if a test failed.
#
# Paths can be overridden: CLIENT, EVENTS_TEST.  MW_SANITIZE=1: the
# programs are built with ASan and UBSan (make check-san; see tap.sh).

set -u

here=$(cd "$(dirname "$0")" && pwd)
CLIENT=${CLIENT:-$here/../memwalk-client}
EVENTS_TEST=${EVENTS_TEST:-$here/events-test}
EXPECTED=$here/events-expected.txt

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
unset MEMWALK_EVENTS_REPLAY

. "$here/tap.sh"

stderr_has() {
	grep -qF -- "$1" "$tmp/err" || fail "stderr lacks '$1'"
}

# --- the parts, in C ---------------------------------------------------------

unit() {
	run "$EVENTS_TEST" "$1"
	expect_rc 0 || fail "events-test $1 failed"
}

test_unit_parse() { unit parse; }
test_unit_seq() { unit seq; }
test_unit_filter() { unit filter; }
test_unit_gfp() { unit gfp; }
test_unit_pairing() { unit pairing; }
test_unit_story() { unit story; }

test_text_golden() {
	run "$EVENTS_TEST" text
	expect_rc 0 || return 1
	cmp -s "$EXPECTED" "$tmp/out" ||
		fail "text differs from $EXPECTED: $(diff "$EXPECTED" "$tmp/out" | head -n 5 | tr '\n' ' ')"
}

# json_check PYTHON-ASSERTIONS: $tmp/out as JSON lines (json-lines.py);
# "ev" the events, "by" them by kind.
json_check() {
	python3 "$here/json-lines.py" "$tmp/out" "ev = lines
by = {}
for e in ev:
    by.setdefault(e['event'], []).append(e)
$1" 2>"$tmp/pyerr" || fail "JSON check failed: $(tail -n 1 "$tmp/pyerr")"
}

test_json_scenario() {
	run "$EVENTS_TEST" json
	expect_rc 0 || return 1
	json_check '
assert len(ev) == 12, len(ev)
d = by["direct_reclaim_end"][0]
assert d["latency_ns"] == 2500000 and d["latency_from"] == "begin", d
assert d["begin_gfp"] == 0x100cca and d["begin_order"] == 0, d
assert d["nr_reclaimed"] == 32 and d["pid"] == 500 and d["memcg"] == "/test/child", d
assert "duration_ns" not in d, d
m = by["memcg_reclaim_end"][0]
assert m["duration_ns"] == 350000 and m["latency_from"] == "module" and m["leg"] == "kretprobe", m
w = by["kswapd_wake"][0]
assert w["gfp"] == 0x140cca and w["gfp_flags"] == "GFP_HIGHUSER_MOVABLE|__GFP_COMP", w
assert "pid" not in w and w["nid"] == 0 and w["zid"] == 2, w
n = w["nodes"][0]
assert n == {"id": 0, "active_anon": 10000, "inactive_anon": 20000, "active_file": 30000,
             "inactive_file": 40000, "unevictable": 0, "free": 5000, "wmark_min": 100,
             "wmark_low": 200, "wmark_high": 300}, n
l = by["lost"][0]
assert l["lost"] == 3 and l["group"] == "reclaim" and "seq" not in l, l
o = by["oom_kill"][0]
v = o["victim"]
assert v == {"pid": 501, "tgid": 501, "comm": "big \"one\"", "uid": 1000, "memcg": "/test/child",
             "memcg_id": 77, "total_vm": 70000, "rss_anon": 60000, "rss_file": 100,
             "rss_shmem": 2, "oom_score_adj": -17}, v
assert o["constraint"] == "memcg" and o["oom_memcg"] == "/test" and o["points"] == -5, o
assert o["totalpages"] == 65536 and o["group"] == "oom", o
s = o["story"]
assert s["scope"] == "/test" and s["window_ns"] == 10**10, s
assert s["kswapd"] == {"wakes": 1, "runs": 1, "ends": 1, "time_ns": 19900000, "reclaimed": 1000}, s
assert s["direct"] == {"stalls": 1, "ends": 1, "time_ns": 2500000, "reclaimed": 32,
                       "in_scope": 1, "by_victim": 0}, s
assert s["memcg"]["stalls"] == 1 and s["memcg"]["time_ns"] == 350000, s
assert s["lost"] == 4 and s["first_ns_before"] == 30000000 and s["truncated"] is False, s
lru = by["lru_sample"][0]
assert [x["id"] for x in lru["nodes"]] == [0, 1] and lru["nodes"][1]["free"] == 10000, lru
u = by["unknown"][0]
assert u["type"] == 15 and u["leg"] == 99, u
'
}

# --- the command line --------------------------------------------------------

test_help() {
	run "$CLIENT" events --help
	expect_rc 0 || return 1
	grep -q '^Usage: memwalk-client events ' "$tmp/out" || fail "no usage line" || return 1
	[ "$(tail -n 1 "$tmp/out")" = "See memwalk-client(1)." ] ||
		fail "last line is not the man page pointer" || return 1
	for opt in --reclaim --oom --lru --json --count --duration --pid --memcg; do
		grep -qF -- "$opt" "$tmp/out" || fail "--help lacks $opt" || return 1
	done
}

# bad ARGS... -- MESSAGE: exit 1, that one line on stderr, nothing on stdout
bad() {
	args=
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		args="$args $1"
		shift
	done
	shift
	msg=$1
	# shellcheck disable=SC2086
	run "$CLIENT" events $args
	expect_rc 1 || return 1
	[ "$(wc -l <"$tmp/err")" -eq 1 ] || fail "events$args: not one line on stderr" || return 1
	[ ! -s "$tmp/out" ] || fail "events$args: wrote to stdout" || return 1
	stderr_has "$msg"
}

test_bad_options() {
	bad --bogus -- "unrecognized option '--bogus'" &&
	bad -x -- "invalid option -- 'x'" &&
	bad --count 0 -- "invalid count '0'" &&
	bad --count -1 -- "invalid count '-1'" &&
	bad -c 12x -- "invalid count '12x'" &&
	bad --duration 0 -- "invalid duration '0'" &&
	bad -d abc -- "invalid duration 'abc'" &&
	bad --duration inf -- "invalid duration 'inf'" &&
	bad --duration -2 -- "invalid duration '-2'" &&
	bad --pid 0 -- "invalid pid '0'" &&
	bad -p 12a -- "invalid pid '12a'" &&
	bad --pid 99999999999 -- "invalid pid '99999999999'" &&
	bad --memcg relative/path -- "invalid memory cgroup 'relative/path'" &&
	bad extra -- "unexpected argument 'extra'" &&
	bad --count -- "events: option '--count' requires an argument" &&
	bad -p -- "events: option requires an argument -- 'p'"
}

test_no_family() {
	run "$CLIENT" events --json --duration 1
	expect_rc 2 || return 1
	[ ! -s "$tmp/out" ] || fail "wrote to stdout" || return 1
	[ "$(wc -l <"$tmp/err")" -eq 1 ] || fail "not one line on stderr" || return 1
	stderr_has "memwalk module not loaded: run 'modprobe memwalk'"
}

test_replay_missing_file() {
	run env MEMWALK_EVENTS_REPLAY="$tmp/nope" "$CLIENT" events
	expect_rc 1 && stderr_has "cannot open $tmp/nope" && stderr_has ENOENT
}

# --- the client on the scenario ----------------------------------------------

replay() {
	run env MEMWALK_EVENTS_REPLAY="$tmp/replay" "$CLIENT" events "$@"
}

# summary EVENTS FILTERED LOST MISSING OVERFLOWS: the JSON summary, last line
summary_is() {
	json_check "
s = ev[-1]
assert s == {'event': 'summary', 'events': $1, 'filtered': $2, 'malformed': 0,
             'lost_reported': $3, 'missing': $4, 'overflows': $5}, s
assert [e for e in ev if e['event'] == 'summary'] == [s]
"
}

test_replay_default() {
	replay --json
	expect_rc 0 || return 1
	# reclaim (9 events, seqs 5-7 lost, one overflow) and oom (1); not lru
	summary_is 10 0 3 3 1 || return 1
	json_check '
assert "lru_sample" not in by
assert len(by["lost"]) == 1 and by["oom_kill"][0]["story"]["kswapd"]["runs"] == 1
' || return 1
	stderr_has "10 events shown, 0 filtered out; lost: 3 reported by the module, 3 missing by sequence number, 1 socket overflows"
}

test_replay_groups() {
	replay --json --lru --oom
	expect_rc 0 || return 1
	summary_is 2 0 0 0 0 || return 1
	json_check '
assert sorted(by) == ["lru_sample", "oom_kill", "summary"], sorted(by)
# the story still has the reclaim that was not shown
s = by["oom_kill"][0]["story"]
assert s["direct"]["stalls"] == 1 and s["memcg"]["stalls"] == 1 and s["lost"] == 4, s
'
}

test_replay_pid() {
	replay --json --pid 500
	expect_rc 0 || return 1
	# 500's stalls, its thread 502 (tgid 500), the OOM it ran into; LOST shown
	summary_is 5 5 3 3 1 || return 1
	json_check '
names = [e["event"] for e in ev[:-1]]
assert names == ["direct_reclaim_begin", "direct_reclaim_end", "lost",
                 "memcg_reclaim_begin", "memcg_reclaim_end", "oom_kill"], names
'
}

test_replay_victim_pid() {
	replay --json --oom --pid 501
	expect_rc 0 && summary_is 1 0 0 0 0
}

test_replay_memcg() {
	replay --json --memcg /test && expect_rc 0 && summary_is 5 5 3 3 1 || return 1
	replay --json --memcg /test/ && expect_rc 0 && summary_is 5 5 3 3 1 || return 1
	replay --json --memcg /testing && expect_rc 0 && summary_is 1 9 3 3 1 || return 1
	replay --json --memcg /tes && expect_rc 0 && summary_is 0 10 3 3 1 || return 1
	replay --json --memcg / && expect_rc 0 && summary_is 6 4 3 3 1
}

test_replay_count() {
	replay --json --count 3
	expect_rc 0 || return 1
	json_check '
names = [e["event"] for e in ev]
assert names == ["kswapd_wake", "kswapd_run_begin", "direct_reclaim_begin", "summary"], names
assert ev[-1]["events"] == 3
'
}

test_replay_text() {
	replay
	expect_rc 0 || return 1
	# the scenario's lines but the LRU sample's, as the formatter prints them
	grep -v lru_sample "$EXPECTED" >"$tmp/want"
	cmp -s "$tmp/want" "$tmp/out" ||
		fail "text differs: $(diff "$tmp/want" "$tmp/out" | head -n 5 | tr '\n' ' ')" || return 1
	[ "$(wc -l <"$tmp/err")" -eq 1 ] || fail "not just the summary on stderr"
}

# --- signals and limits, on a FIFO that stays open ---------------------------

# feed_fifo: the scenario into $tmp/fifo, kept open (fd 3) until close_fifo
feed_fifo() {
	rm -f "$tmp/fifo"
	mkfifo "$tmp/fifo" || return 1
	env MEMWALK_EVENTS_REPLAY="$tmp/fifo" "$CLIENT" events --json "$@" \
		>"$tmp/out" 2>"$tmp/err" &
	pid=$!
	exec 3>"$tmp/fifo"
	cat "$tmp/replay" >&3
}

close_fifo() {
	exec 3>&-
}

# wait_for PATTERN: up to 5 s for PATTERN in $tmp/out
wait_for() {
	i=0
	while ! grep -q "$1" "$tmp/out" 2>/dev/null; do
		i=$((i + 1))
		[ $i -le 50 ] || return 1
		sleep 0.1
	done
}

# wait_exit SECONDS: rc of $pid, or 255 (and kill it) if still running then
wait_exit() {
	i=0
	while kill -0 "$pid" 2>/dev/null; do
		i=$((i + 1))
		if [ $i -gt $(($1 * 10)) ]; then
			kill -KILL "$pid"
			wait "$pid"
			rc=255
			return
		fi
		sleep 0.1
	done
	wait "$pid"
	rc=$?
}

signal_test() {
	feed_fifo || { fail "mkfifo failed"; return 1; }
	wait_for oom_kill || { close_fifo; kill "$pid"; fail "no events before the signal"; return 1; }
	kill -"$1" "$pid"
	wait_exit 3
	close_fifo
	[ "$rc" -ne 255 ] || fail "still running 3 s after SIG$1" || return 1
	expect_rc 0 || return 1
	summary_is 10 0 3 3 1 || return 1
	stderr_has "10 events shown"
}

test_sigint() { signal_test INT; }
test_sigterm() { signal_test TERM; }

test_duration() {
	start=$(date +%s%N)
	feed_fifo --duration 0.5 || { fail "mkfifo failed"; return 1; }
	wait_exit 5
	close_fifo
	end=$(date +%s%N)
	[ "$rc" -ne 255 ] || fail "--duration 0.5: still running after 5 s" || return 1
	expect_rc 0 || return 1
	[ $(((end - start) / 1000000)) -ge 450 ] || fail "--duration 0.5 ended early" || return 1
	summary_is 10 0 3 3 1
}

# An end of the stream (the module gone, the file at its end) ends the run.
test_eof() {
	feed_fifo || { fail "mkfifo failed"; return 1; }
	wait_for oom_kill || { close_fifo; kill "$pid"; fail "no events"; return 1; }
	close_fifo
	wait_exit 3
	[ "$rc" -ne 255 ] || fail "still running 3 s after the end" || return 1
	expect_rc 0
}

for p in "$CLIENT" "$EVENTS_TEST"; do
	[ -x "$p" ] || { echo "Bail out! build $p first (make -C userspace check)"; exit 1; }
done
"$EVENTS_TEST" replay "$tmp/replay"
res=$?
why=
if san_reports || [ "$res" -ne 0 ]; then
	[ -z "$why" ] || san_print
	echo "Bail out! cannot write the replay file $why"
	exit 1
fi

t "events-test parse: events and GET_STATUS parsed, malformed ones refused" test_unit_parse
t "events-test seq: losses from sequence numbers, reordering, base" test_unit_seq
t "events-test filter: --pid and --memcg matching" test_unit_filter
t "events-test gfp: gfp flag names, __GFP_ATOMIC by release" test_unit_gfp
t "events-test pairing: latency of an end from its begin" test_unit_pairing
t "events-test story: the reclaim before an OOM kill, window, scope, losses" test_unit_story
t "formatter: text lines as expected" test_text_golden
if command -v python3 >/dev/null; then
	t "formatter: JSON lines valid, every attribute, the story" test_json_scenario
else
	t "formatter: JSON lines valid (python3 needed)" false
fi
t "events --help: usage, options, man page pointer" test_help
t "events: bad options and arguments: exit 1, one line" test_bad_options
if [ -e /sys/module/memwalk ]; then
	skip "events without the family: module not loaded, exit 2" "memwalk is loaded on this host"
else
	t "events without the family: module not loaded, exit 2" test_no_family
fi
t "events: replay file that does not exist: exit 1" test_replay_missing_file
if command -v python3 >/dev/null; then
	t "events --json: reclaim and OOM by default, losses by LOST, gaps, overflow" test_replay_default
	t "events --lru --oom: those groups shown, the story keeps its reclaim" test_replay_groups
	t "events --pid: a process's threads and OOM kills; others filtered" test_replay_pid
	t "events --pid VICTIM: the OOM kill that killed it" test_replay_victim_pid
	t "events --memcg: prefix by path component" test_replay_memcg
	t "events --count: stops after N events" test_replay_count
	t "events --duration: stops after S seconds" test_duration
	t "events: SIGINT ends the stream with the summary, exit 0" test_sigint
	t "events: SIGTERM likewise" test_sigterm
else
	skip "events replay tests" "python3 not installed"
fi
t "events: text form of the stream" test_replay_text
t "events: the end of the stream ends the run" test_eof

tap_end

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Host-side tests of "memwalk-client watch --batch": the client with the fake
# device (tests/fake-device.c) serving a sequence of fixture snapshots, one
# per refresh, then ESRCH as if the target exited; events from a replay
# file written by events-test.  The target is a live process of the host
# (a sleep), so that /proc/PID/stat and cgroup are there to read.  The
# transitions are checked against what the fixtures hold (the same pairs
# `diff` is tested on, tests/data/expected/*.diff).  Output is TAP.
#
# Paths can be overridden: FAKE_CLIENT, EVENTS_TEST.

set -u

here=$(cd "$(dirname "$0")" && pwd)
FAKE_CLIENT=${FAKE_CLIENT:-$here/memwalk-client-fake}
EVENTS_TEST=${EVENTS_TEST:-$here/events-test}
DATA=$here/data

tmp=$(mktemp -d) || exit 1
sleep 600 </dev/null >/dev/null 2>&1 &
target=$!
trap 'kill $target 2>/dev/null; rm -rf "$tmp"' EXIT
unset MEMWALK_EVENTS_REPLAY MW_FAKE_SNAPSHOT

. "$here/tap.sh"

stderr_has() {
	grep -qF -- "$1" "$tmp/err" || fail "stderr lacks '$1'"
}

stdout_empty() {
	[ ! -s "$tmp/out" ] || fail "expected nothing on stdout"
}

stdout_has() {
	grep -qF -- "$1" "$tmp/out" || fail "stdout lacks '$1'"
}

# seq A B ...: the fixtures, as MW_FAKE_SNAPSHOT wants them
seq_of() {
	s=
	for f in "$@"; do
		s=${s:+$s:}$DATA/$f
	done
	echo "$s"
}

# watch FIXTURES -- ARGS: watch the target with the sequence served
watch() {
	fx=
	while [ "$1" != -- ]; do
		fx="$fx $1"
		shift
	done
	shift
	# shellcheck disable=SC2086
	MW_FAKE_SNAPSHOT=$(seq_of $fx) run "$FAKE_CLIENT" watch "$target" --batch \
		-i 0.02 --no-events "$@"
}

# json_check PYTHON: $tmp/out as JSON lines (json-lines.py); "fr" the
# frames, "end" the last line.
json_check() {
	python3 "$here/json-lines.py" "$tmp/out" "fr = [l for l in lines if 'frame' in l]
end = lines[-1]
$1" 2>"$tmp/pyerr" || fail "JSON check failed: $(tail -n 1 "$tmp/pyerr")"
}

# --- frames ------------------------------------------------------------------

# cow.diff: 1 page faulted in, 5 COW broken; then nothing; then the end.
test_text_cow() {
	watch cow-before.json cow-after.json cow-after.json -- || return 1
	expect_rc 0 || return 1
	[ "$(grep -c '^frame ' "$tmp/out")" -eq 3 ] || fail "not 3 frames" || return 1
	stdout_has "transitions: 1 faulted in, 5 COW broken" &&
	stdout_has "    0000555555559000-000055555555d000 4" &&
	stdout_has "no transitions" &&
	[ "$(tail -n 1 "$tmp/out")" = "end: pid $target exited after 3 frames; since start: 1 faulted in; 5 COW broken;" ] ||
		fail "last line: $(tail -n 1 "$tmp/out")"
}

# swap.diff without folio state: 8 swapped out, 2 swapped in, no generation.
# PFNs are read while the process shares anonymous pages, where only they
# tell a COW break from a page kept: fork-before has none (the next walk
# leaves PFNs out), cow-before does (that walk is taken again with them,
# served cow-before again), and the COW breaks of cow-after are seen.
test_pfns_while_shared() {
	MW_FAKE_WALKS=$tmp/walks watch fork-before.json cow-before.json cow-before.json \
		cow-after.json -- || return 1
	expect_rc 0 && [ "$(grep -c '^frame ' "$tmp/out")" -eq 3 ] ||
		fail "not 3 frames" || return 1
	stdout_has "transitions: 1 faulted in, 5 COW broken" || return 1
	# vmas, pages, PFN lists (0x23) throughout; no_pfn (0x8) in the second walk
	[ "$(sed "s/^flags 0x//" "$tmp/walks" | tr "\n" " ")" = "23 2b 23 23 " ] ||
		fail "walks asked for: $(tr '\n' ' ' <"$tmp/walks")"
}

test_json_swap() {
	watch swap-before.json swap-after.json -- -J || return 1
	expect_rc 0 || return 1
	json_check '
assert len(fr) == 2 and [f["frame"] for f in fr] == [0, 1], fr
assert sum(fr[0]["transitions"].values()) == 0 and fr[0]["changes"] == []
t = fr[1]["transitions"]
assert t["swapped_out"] == 8 and t["swapped_in"] == 2, t
assert sum(t.values()) == 10 and t["lru_gen"] == 0, t
assert fr[1]["since_start"] == t
ch = {c["kind"]: c for c in fr[1]["changes"]}
assert ch["swapped_out"]["ranges"] == [{"start": 0x7f0000008000, "end": 0x7f0000010000,
    "pages": 8, "detail": ""}], ch
assert fr[1]["totals"]["swap_kb"] == 40 and fr[0]["totals"]["swap_kb"] == 16
assert "pss_kb" not in fr[1]["totals"]
assert fr[1]["cost"]["max_lock_ns"] > 0 and fr[1]["interval_ns"] > 0
assert end["end"] == "exited" and end["frames"] == 2 and end["since_start"] == t
'
}

# --folio: the generations too, and PSS.
test_json_folio() {
	watch swap-before.json swap-after.json -- -J --folio || return 1
	expect_rc 0 || return 1
	json_check '
t = fr[1]["transitions"]
assert t["swapped_out"] == 8 and t["swapped_in"] == 2 and t["lru_gen"] == 4, t
assert "pss_kb" in fr[1]["totals"]
'
}

# thp.diff: 512 promoted, 512 split (pmd->pte), a VMA added.
test_json_thp() {
	watch thp-before.json thp-after.json -- -J || return 1
	expect_rc 0 || return 1
	json_check '
t = fr[1]["transitions"]
assert t["promoted"] == 512 and t["split"] == 512, t
assert fr[1]["totals"]["thp_kb"] == 2048, fr[1]["totals"]
'
}

# A file page gone from its VMA: page cache dropped.
test_json_cache() {
	watch cache-before.json cache-after.json -- -J || return 1
	expect_rc 0 || return 1
	json_check '
t = fr[1]["transitions"]
assert t["page_cache_dropped"] == 1 and t["unmapped"] == 1, t
'
}

# -n: that many frames, then an end line that says so.
test_frames() {
	watch cow-before.json cow-after.json cow-after.json -- -J -n 2 || return 1
	expect_rc 0 || return 1
	json_check '
assert len(fr) == 2 and end["end"] == "frames" and end["frames"] == 2, end
'
}

# The events that concern the target: global reclaim kept, other memcgs'
# reclaim and OOM kills elsewhere left out, losses counted.
test_events() {
	run "$EVENTS_TEST" replay "$tmp/replay" && expect_rc 0 || return 1
	MW_FAKE_SNAPSHOT=$(seq_of cow-before.json cow-after.json) \
	MEMWALK_EVENTS_REPLAY=$tmp/replay \
		run "$FAKE_CLIENT" watch "$target" --batch -J -i 0.02
	expect_rc 0 || return 1
	json_check '
ev = fr[0]["events"]
assert [e["type"] for e in ev] == ["direct_reclaim_end", "kswapd_run_end"], ev
assert ev[0]["comm"] == "hog" and ev[0]["nr_reclaimed"] == 32, ev
assert ev[1]["nid"] == 0 and ev[1]["nr_reclaimed"] == 1000, ev
assert ev[0]["time_ns"] < ev[1]["time_ns"]
assert fr[0]["events_lost"] == 4 and fr[0]["events_on"], fr[0]
assert fr[1]["events"] == [] and fr[1]["events_lost"] == 0
'
}

# Events in text: escaped names, times from the start.
test_events_text() {
	run "$EVENTS_TEST" replay "$tmp/replay" && expect_rc 0 || return 1
	MW_FAKE_SNAPSHOT=$(seq_of cow-before.json) MEMWALK_EVENTS_REPLAY=$tmp/replay \
		run "$FAKE_CLIENT" watch "$target" --batch -i 0.02 -n 2
	expect_rc 0 || return 1
	stdout_has "direct reclaim by hog (pid 500): 0.0 ms, 32 pages reclaimed" &&
	stdout_has "kswapd0 ran 0.0 ms, 1000 pages reclaimed" &&
	stdout_has "  events lost: 4"
}

# SIGTERM and SIGINT: a last line, exit 0 (a single fixture serves forever).
# signal_ends SIG LAST-LINE [SNAPSHOT INTERVAL]; within 10 s of the signal.
signal_ends() {
	# Not the last test's frames: a signal sent before the client's exec
	# finds SIGINT ignored (an asynchronous list's) and is lost.
	rm -f "$tmp/out"
	MW_FAKE_SNAPSHOT=${3:-$DATA/cow-before.json} "$FAKE_CLIENT" watch "$target" --batch \
		--no-events -i "${4:-0.05}" >"$tmp/out" 2>"$tmp/err" &
	pid=$!
	# a few frames printed first
	i=0
	while [ "$(cat "$tmp/out" 2>/dev/null | grep -c '^frame ')" -lt 3 ] && [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	kill -"$1" "$pid"
	i=0
	while kill -0 "$pid" 2>/dev/null && [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	if kill -0 "$pid" 2>/dev/null; then
		kill -9 "$pid"
		wait "$pid"
		fail "SIG$1 did not end it in 10 s"
		return 1
	fi
	wait "$pid"
	rc=$?
	expect_rc 0 || return 1
	tail -n 1 "$tmp/out" | grep -q "^end: $2 after [0-9]* frames" ||
		fail "last line: $(tail -n 1 "$tmp/out")"
}

test_sigterm() { signal_ends TERM "terminated (SIGTERM)"; }
test_sigint() { signal_ends INT "interrupted (SIGINT)"; }

# A watch that cannot keep its interval (a refresh of 50,000 runs takes
# longer than 1 ms) still ends at SIGTERM and SIGINT, at once.
behind_ends() {
	GEN_SNAPSHOT=${GEN_SNAPSHOT:-$here/gen-snapshot}
	[ -s "$tmp/big.json" ] || "$GEN_SNAPSHOT" 50 1000 >"$tmp/big.json" ||
		{ fail "gen-snapshot failed"; return 1; }
	signal_ends "$@" "$tmp/big.json" 0.001 || return 1
	grep -q "interval not kept" "$tmp/out" || fail "the watch kept its 1 ms interval"
}

test_behind_sigterm() { behind_ends TERM "terminated (SIGTERM)"; }
test_behind_sigint() { behind_ends INT "interrupted (SIGINT)"; }

# --- bad input ------------------------------------------------------------------

test_no_batch() {
	MW_FAKE_SNAPSHOT=$DATA/cow-before.json run "$FAKE_CLIENT" watch "$target"
	expect_rc 1 && stderr_has "standard output is not a terminal: use --batch" &&
		stdout_empty
}

# With a terminal, the full-screen view (tests/watch-tui-tests.sh drives it):
# the target's exit ends it with the last line; keys need stdin a terminal.
test_tty_no_batch() {
	command -v script >/dev/null || { why="script(1) missing"; return 1; }
	MW_FAKE_SNAPSHOT=$(seq_of cow-before.json cow-after.json) TERM=xterm script -qec \
		"$FAKE_CLIENT watch $target -i 0.05 --no-events" /dev/null >"$tmp/out" 2>&1
	grep -q "end: pid $target exited after 2 frames" "$tmp/out" ||
		fail "no last line: $(tail -n 2 "$tmp/out")"
}

test_tty_stdin() {
	command -v script >/dev/null || { why="script(1) missing"; return 1; }
	MW_FAKE_SNAPSHOT=$DATA/cow-before.json TERM=xterm script -qec \
		"$FAKE_CLIENT watch $target </dev/null" /dev/null >"$tmp/out" 2>&1
	grep -q "standard input is not a terminal, the keys come from it: use --batch" \
		"$tmp/out" || fail "no message: $(head -n 2 "$tmp/out")"
}

test_no_such_pid() {
	pid=4194303
	while [ -e /proc/$pid ]; do pid=$((pid - 1)); done
	MW_FAKE_SNAPSHOT=$DATA/cow-before.json run "$FAKE_CLIENT" watch "$pid" --batch
	expect_rc 1 && stderr_has "no such process: $pid" && stdout_empty
}

test_kernel_thread() {
	kt=
	for s in /proc/[0-9]*/stat; do
		# field 9 (flags) after the comm's ')': PF_KTHREAD 0x00200000
		f=$(sed 's/.*) //' "$s" 2>/dev/null | cut -d' ' -f7)
		[ -n "$f" ] && [ $((f & 0x200000)) -ne 0 ] || continue
		kt=${s#/proc/}
		kt=${kt%/stat}
		break
	done
	[ -n "$kt" ] || { why="no kernel thread is visible in this PID namespace"; return 1; }
	MW_FAKE_SNAPSHOT=$DATA/cow-before.json run "$FAKE_CLIENT" watch "$kt" --batch
	expect_rc 1 && stderr_has "is a kernel thread" && stdout_empty
}

test_range_outside() {
	watch cow-before.json -- -r 100000-200000 || true
	expect_rc 1 && stderr_has "lies outside every VMA" && stdout_empty
}

test_module_missing() {
	run "$FAKE_CLIENT" watch "$target" --batch
	expect_rc 2
}

test_bad_options() {
	for args in "-i 0" "-i x" "-i -1" "-n 0" "-n x" "-r 1000" "-r 2000-1000" "--bogus" ""; do
		# shellcheck disable=SC2086
		MW_FAKE_SNAPSHOT=$DATA/cow-before.json run "$FAKE_CLIENT" watch $args \
			${args:+$target} --batch
		expect_rc 1 || { why="$why (watch $args)"; return 1; }
		[ "$(wc -l <"$tmp/err")" -eq 1 ] || fail "watch $args: not one line" || return 1
	done
}

# accessed WANT FEATURES ARGS...: watch swap-before then the same with the
# first run's accessed bit cleared (16 pages, as DAMON or MGLRU's aging
# would), served by a module with FEATURES; every walk asks for
# MEMWALK_SNAP_NO_ACCESSED (0x40) when WANT is "left out", none when it is
# "read", and the access-cleared pages are counted only when read.
accessed() {
	want=$1 feat=$2
	shift 2
	python3 - "$DATA/swap-before.json" "$tmp/aged.json" <<-'EOF' || return 1
	import json, sys
	d = json.load(open(sys.argv[1]))
	d["vmas"][0]["runs"][0]["flags"] &= ~0x100
	json.dump(d, open(sys.argv[2], "w"))
	EOF
	rm -f "$tmp/walks"
	MW_FAKE_SNAPSHOT=$DATA/swap-before.json:$tmp/aged.json MW_FAKE_FEATURES=$feat \
		MW_FAKE_WALKS=$tmp/walks run "$FAKE_CLIENT" watch "$target" --batch -i 0.02 \
		--no-events -J "$@" || return 1
	expect_rc 0 || return 1
	read_=True cleared=16 bit=0
	if [ "$want" = "left out" ]; then
		read_=False cleared=0 bit=64
	fi
	while read -r _ f; do
		[ $((f & 0x40)) = "$bit" ] || fail "walks asked for: $(tr '\n' ' ' <"$tmp/walks")" || return 1
	done < "$tmp/walks"
	json_check "
assert len(fr) == 2, fr
assert all(f['accessed_read'] is $read_ for f in fr), [f['accessed_read'] for f in fr]
t = fr[1]['transitions']
assert t['access_cleared'] == $cleared and t['accessed'] == 0, t"
}

test_accessed_left_out() {
	accessed "left out" 0x104
}

test_accessed_read() {
	accessed read 0x104 --accessed
}

test_accessed_old_module() {
	accessed read 0x4
}

test_help() {
	run "$FAKE_CLIENT" watch --help
	expect_rc 0 && stdout_has "--batch" && stdout_has "memwalk-client(1)"
}

t "watch: text frames, COW and fault transitions, the target's exit" test_text_cow
t "watch: PFNs read while anonymous pages are shared, COW breaks seen" test_pfns_while_shared
t "watch -J: swap-out and swap-in per frame and since start" test_json_swap
t "watch --folio: MGLRU generations and PSS too" test_json_folio
t "watch -J: THP promotion and split" test_json_thp
t "watch -J: page cache dropped, VMA unmapped" test_json_cache
t "watch: accessed bits left out where the module can, a cleared one not counted" test_accessed_left_out
t "watch --accessed: accessed bits read, a cleared one counted" test_accessed_read
t "watch with a module that cannot leave them out: accessed bits read" test_accessed_old_module
t "watch -n: stops after N frames" test_frames
t "watch -J: the events that concern the target, losses" test_events
t "watch: events in text" test_events_text
t "watch: SIGTERM ends it with a last line, exit 0" test_sigterm
t "watch: SIGINT likewise" test_sigint
t "watch behind its interval: SIGTERM still ends it" test_behind_sigterm
t "watch behind its interval: SIGINT likewise" test_behind_sigint
t "watch without --batch, stdout not a terminal: exit 1" test_no_batch
t "watch without --batch on a terminal: full screen, ends at the target's exit" test_tty_no_batch
t "watch without --batch, stdin not a terminal: exit 1" test_tty_stdin
t "watch: no such process, exit 1" test_no_such_pid
t "watch: a kernel thread, exit 1" test_kernel_thread
t "watch -r outside every VMA, exit 1" test_range_outside
t "watch without the module, exit 2" test_module_missing
t "watch: bad options, one line, exit 1" test_bad_options
t "watch --help" test_help
tap_end

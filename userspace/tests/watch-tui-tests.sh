#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Host-side tests of watch's full-screen view, in a real terminal: tmux
# runs "memwalk-client watch" with the fake device (tests/fake-device.c)
# serving the fixtures tests/data/tui-before.json and tui-after.json (one
# per refresh; a single file serves forever), keys are sent to it and the
# screens it draws are captured (tmux capture-pane: -p the text, -e with
# its attributes and colours).  What the screen must show is taken from
# the fixtures: the cells of a row, the fields of a run (with what
# `show --pages` prints for it), the page's bytes as /proc/PID/mem gives
# them.  Then the map model alone (watch-map-test).  Output is TAP.
#
# Paths can be overridden: FAKE_CLIENT, EVENTS_TEST, WATCH_MAP_TEST.

set -u

here=$(cd "$(dirname "$0")" && pwd)
FAKE_CLIENT=${FAKE_CLIENT:-$here/memwalk-client-fake}
EVENTS_TEST=${EVENTS_TEST:-$here/events-test}
WATCH_MAP_TEST=${WATCH_MAP_TEST:-$here/watch-map-test}
DATA=$here/data
BEFORE=$DATA/tui-before.json
AFTER=$DATA/tui-after.json

tmp=$(mktemp -d) || exit 1
sock=mw-tui-$$
starts=0
sleep 600 </dev/null >/dev/null 2>&1 &
target=$!
trap 'tmux -L "$sock" kill-server 2>/dev/null; kill $target 2>/dev/null; rm -rf "$tmp"' EXIT
unset MEMWALK_EVENTS_REPLAY MW_FAKE_SNAPSHOT NO_COLOR

. "$here/tap.sh"

# The panes stay when their program ends, for its last line and status.
printf 'set -g remain-on-exit on\nset -g status off\n' >"$tmp/tmux.conf"

tm() {
	tmux -L "$sock" -f "$tmp/tmux.conf" "$@"
}

# start [ENV=VALUE...] -- WATCH ARGS: a new 80x24 window running watch on
# the target; the sanitizers' settings passed on
start() {
	envs=
	while [ "$1" != -- ]; do
		envs="$envs $1"
		shift
	done
	shift
	# a server for each: one just killed may still hold its socket
	tm kill-server 2>/dev/null
	starts=$((starts + 1))
	sock=mw-tui-$$-$starts
	tm new-session -d -s w -x "${COLS:-80}" -y "${ROWS:-24}" \
		"env TERM=screen ASAN_OPTIONS=${ASAN_OPTIONS:-} UBSAN_OPTIONS=${UBSAN_OPTIONS:-} $envs $FAKE_CLIENT watch $target --no-events $*; echo \"watch exit status \$?\"" ||
		fail "tmux would not start"
}

# The screen, and what scrolled off it: the last line once watch has ended
# (tmux's "Pane is dead" pushes it up).
screen() {
	tm capture-pane -p -J -S -50 -t w >"$tmp/screen" 2>/dev/null
}

# wait_for TEXT [SECONDS]: until the screen shows TEXT (a fixed string)
wait_for() {
	i=0
	while [ $i -lt $((${2:-10} * 10)) ]; do
		screen
		grep -qF -- "$1" "$tmp/screen" && return 0
		sleep 0.1
		i=$((i + 1))
	done
	fail "the screen never showed '$1'"
}

keys() {
	tm send-keys -t w "$@"
}

# has TEXT: the screen holds it; captured again for up to 3 s, since a
# redraw may have been halfway through tmux when the last capture was taken
has() {
	i=0
	while ! grep -qF -- "$1" "$tmp/screen"; do
		[ $i -lt 30 ] || { fail "the screen lacks '$1'"; return 1; }
		sleep 0.1
		screen
		i=$((i + 1))
	done
}

# row ADDR: the map row that starts at ADDR (12 hex digits), as drawn
row() {
	grep "^$1 " "$tmp/screen" | head -n 1 | cut -c14- | sed 's/ *$//'
}

status_of() {
	tm display -p -t w "$1"
}

# wait_dead: until watch has ended: the shell says "watch exit status N"
# under its last line; $dead_status is N.  (Not tmux's pane_dead_status: its
# server now and then leaves the pane's process a zombie.)
wait_dead() {
	i=0
	while [ $i -lt 100 ]; do
		screen
		dead_status=$(sed -n 's/^watch exit status \([0-9]*\)$/\1/p' "$tmp/screen")
		[ -n "$dead_status" ] && return 0
		sleep 0.1
		i=$((i + 1))
	done
	show_screen
	fail "watch did not end"
}

# watch_pid: the client's pid (the pane runs a shell that runs it)
watch_pid() {
	pgrep -P "$(status_of '#{pane_pid}')" -f "$FAKE_CLIENT watch"
}

# The t() failure output: the last screen.
show_screen() {
	cp "$tmp/screen" "$tmp/out" 2>/dev/null
	: >"$tmp/err"
}

# --- the screen ------------------------------------------------------------------

test_legend() {
	start -- || return 1
	wait_for "legend:" || return 1
	has "legend: . none  a anon  c cache  m shmem  z zero  t THP  h hugetlb" &&
	has "        s swap  w shm-swap  o other  p PROT_NONE  A-Z: mixed  changed" &&
	# the totals batch mode gives for the same snapshot
	MW_FAKE_SNAPSHOT=$BEFORE "$FAKE_CLIENT" watch "$target" --batch -J -n 1 --no-events |
		python3 -c 'import json, sys
t = json.loads(sys.stdin.readline())["totals"]
print("RSS %d kB  PSS -  Swap %d kB  THP %d kB  " % (t["rss_kb"], t["swap_kb"], t["thp_kb"]))
' >"$tmp/totals" || { fail "no batch frame"; return 1; }
	has "pid $target  sleep 600" && has "zoom 1:1" && has "$(cat "$tmp/totals")" &&
	has "refresh - (every 1 s)  longest mmap_lock hold 0.002 ms" && has "q quit ? help g goto" &&
	has "555555558000-555555600000 rw-p    672 kB [heap]" &&
	has "cursor 0x555555554000 cache in /usr/bin/target" ||
		{ show_screen; return 1; }
	# tui-before.json's heap: 32 anon, 8 zero, 8 none, 16 swap, 2 migration
	[ "$(row 555555558000)" = \
		"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaazzzzzzzz........ssssssssssssssss" ] &&
	[ "$(row 555555598000)" = \
		"oo.............................................................." ] ||
		{ show_screen; fail "heap rows: $(row 555555558000) / $(row 555555598000)"; }
}

# A name with an escape sequence in it reaches the screen escaped.
test_escaped_name() {
	start -- || return 1
	wait_for "legend:" || return 1
	keys / d a t a Enter
	wait_for 'r--p    256 kB /tmp/data\x1b[31mred' ||
		{ show_screen; return 1; }
	has 'cursor 0x7f1000000000 cache in /tmp/data\x1b[31mred' || { show_screen; return 1; }
}

test_cursor() {
	start -- || return 1
	wait_for "legend:" || return 1
	keys Down Down Right Right Right
	wait_for "cursor 0x55555559b000 none in [heap]" || { show_screen; return 1; }
	keys Up Left
	wait_for "cursor 0x55555555a000 anon in [heap]" || { show_screen; return 1; }
	keys g 7 f 2 0 0 0 0 1 0 0 0 0
	wait_for "go to address (hex): 7f2000010000" || return 1
	keys Enter
	wait_for "cursor 0x7f2000010000 shm-swap in /dev/shm/seg" || { show_screen; return 1; }
	keys End
	wait_for "cursor 0x7fffffffe000 anon in [stack]" || { show_screen; return 1; }
	keys Home
	wait_for "cursor 0x555555554000 cache in /usr/bin/target" || { show_screen; return 1; }
	keys NPage
	wait_for "cursor 0x7f0000" || { show_screen; return 1; }
	keys g 1 0 Enter
	wait_for "no VMA at or after 0x10" && fail "goto below every VMA refused" && return 1
	keys g f f f f f f f f f f f f Enter
	wait_for "no VMA at or after 0xffffffffffff" || { show_screen; return 1; }
	keys / n o w h e r e Enter
	wait_for 'no VMA'"'"'s name holds "nowhere"' || { show_screen; return 1; }
}

# Zooming out makes a cell 2, 4, 8 pages: fewer cells, mixed ones marked.
test_zoom() {
	start -- || return 1
	wait_for "legend:" || return 1
	keys - - -
	wait_for "zoom 1:8" || { show_screen; return 1; }
	# 168 pages: 21 cells; 64-71 hold 2 migration entries and 6 holes
	[ "$(row 555555558000)" = "aaaaz.ss:............" ] ||
		{ show_screen; fail "heap at 1:8: '$(row 555555558000)'"; return 1; }
	keys +
	wait_for "zoom 1:4" || { show_screen; return 1; }
	# 64-67 hold 2 migration entries and 2 holes: a tie goes to the entries
	[ "$(row 555555558000)" = "aaaaaaaazz..ssssO........................." ] ||
		{ show_screen; fail "heap at 1:4: '$(row 555555558000)'"; }
}

# Enter: every field of the run under the cursor, as the fixture has it and
# as show --pages prints it; its page-table path; x on a swapped page.
test_detail() {
	start -- --folio || return 1
	wait_for "legend:" || return 1
	keys g 5 5 5 5 5 5 5 7 0 0 0 0 Enter Enter
	wait_for "-- detail" || { show_screen; return 1; }
	python3 - "$BEFORE" >"$tmp/want" <<'EOF' || { fail "fixture unreadable"; return 1; }
import json, sys
s = json.load(open(sys.argv[1]))
r = [r for v in s["vmas"] for r in v["runs"] if r["start"] == 0x555555570000][0]
print("run %016x-%016x: %d pages, drawn as 'a' (anon)" %
      (r["start"], r["start"] + r["nr_pages"] * 4096, r["nr_pages"]))
print("pfn %x" % r["pfn"])
print("mapcount %d  refcount %d  node %d  order %d  gen %d" %
      (r["mapcount"], r["refcount"], r["nid"], r["order"], r["lru_gen"]))
EOF
	while read -r line; do
		has "$line" || { show_screen; return 1; }
	done <"$tmp/want"
	# state, level, bits, type and flags as show --pages prints the run
	MW_FAKE_SNAPSHOT= "$FAKE_CLIENT" show "$BEFORE" --pages -r -o range,state,level,bits,type,flags |
		awk '$1 == "0000555555570000-0000555555578000"' >"$tmp/show"
	read -r _ st lv bits type flags <"$tmp/show"
	has "state $st  level $lv  bits $bits  type $type" && has "folio flags $flags" &&
	has "page-table path (as translate prints it):" &&
	has "LEVEL INDEX ENTRY            TABLE            NEXT             BITS" ||
		{ show_screen; return 1; }
	# the rest of the path: Tab into the pane, a page down
	keys Tab NPage
	wait_for "[Tab: back to the map]" || { show_screen; return 1; }
	grep -q "^PTE     368 " "$tmp/screen" || { show_screen; fail "no PTE line"; return 1; }
	keys Tab
	# without --folio, the state translate gives for the page
	start -- || return 1
	wait_for "legend:" || return 1
	keys g 5 5 5 5 5 5 5 7 0 0 0 0 Enter Enter
	wait_for "folio state: not in these snapshots (watch --folio); translate's below" ||
		{ show_screen; return 1; }
	keys Tab NPage
	wait_for "now: $(sed -n 3p "$tmp/want")" || { show_screen; return 1; }
	has "now: folio flags $flags" || { show_screen; return 1; }
	keys Tab Escape g 5 5 5 5 5 5 5 8 8 0 0 0 Enter x
	wait_for "first bytes: not resident, not read" || { show_screen; return 1; }
	has "state swap" || { show_screen; return 1; }
	# a page the target does not map: the read fails, errno said
	keys Escape g 5 5 5 5 5 5 5 5 8 0 0 0 Enter x
	wait_for "first bytes: cannot read /proc/$target/mem at 0x555555558000 [" ||
		{ show_screen; return 1; }
}

# x on a page the snapshot shows present reads what /proc/PID/mem holds.
test_bytes() {
	python3 - "$BEFORE" "$target" "$tmp/real.json" >"$tmp/want" <<'EOF' || { fail "no fixture"; return 1; }
import json, sys
s = json.load(open(sys.argv[1]))
pid = sys.argv[2]
first = open("/proc/%s/maps" % pid).readline().split()
start, end = (int(x, 16) for x in first[0].split("-"))
v = dict(s["vmas"][0])
v.update(start=start, end=end, name="real")
v["runs"] = [dict(v["runs"][0], start=start, nr_pages=1)]
s["vmas"] = [v]
json.dump(s, open(sys.argv[3], "w"))
with open("/proc/%s/mem" % pid, "rb") as f:
    f.seek(start)
    b = f.read(16)
print("%x" % start)
print("  0000  " + " ".join("%02x" % c for c in b))
EOF
	{ read -r addr; read -r bytes; } <"$tmp/want"
	start MW_FAKE_SNAPSHOT="$tmp/real.json" -- || return 1
	wait_for "legend:" || return 1
	keys x
	wait_for "first 64 bytes (/proc/$target/mem):" || { show_screen; return 1; }
	has "$bytes" || { show_screen; return 1; }
	has "page 0x$addr " || { show_screen; return 1; }
}

# Transitions: the changed cells underlined for one refresh, the counts in
# the events pane, with the events that came (a replay).
test_transitions() {
	run "$EVENTS_TEST" replay "$tmp/replay" && expect_rc 0 || return 1
	start MEMWALK_EVENTS_REPLAY="$tmp/replay" \
		MW_FAKE_SNAPSHOT="$BEFORE:$AFTER:$AFTER:$AFTER:$AFTER" -- -i 1.5 || return 1
	wait_for "frame 1: 4 faulted in, 10 page cache dropped, 8 swapped out" 5 ||
		{ show_screen; return 1; }
	tm capture-pane -e -p -t w >"$tmp/color"
	has "kswapd0 ran 0.0 ms, 1000 pages reclaimed" &&
	has "direct reclaim by hog (pid 500): 0.0 ms, 32 pages reclaimed" &&
	has "frame 0: first snapshot" || { show_screen; return 1; }
	# events before the frame they came in, then the frame
	[ "$(grep -n "kswapd0 ran" "$tmp/screen" | cut -d: -f1)" -lt \
	  "$(grep -n "frame 0:" "$tmp/screen" | cut -d: -f1)" ] ||
		{ show_screen; fail "the events are not before their frame"; return 1; }
	[ "$(row 555555558000)" = \
		"aaaaaaaaaaaaaaaaaaaaaaaassssssssszzzzzzzz........ssssssssssssssss" ] ||
	[ "$(row 555555558000)" = \
		"aaaaaaaaaaaaaaaaaaaaaaaasssssssszzzzzzzz........ssssssssssssssss" ] ||
		{ show_screen; fail "heap row: $(row 555555558000)"; return 1; }
	# the 8 swapped-out cells, and only they in that row, underlined
	python3 - "$tmp/color" <<'EOF' 2>"$tmp/pyerr" || { fail "$(cat "$tmp/pyerr")"; return 1; }
import re, sys
sgr = re.compile(r"\x1b\[([0-9;]*)m")
line = [l for l in open(sys.argv[1], encoding="utf-8", errors="replace")
        if sgr.sub("", l).startswith("555555558000 ")][0]
under, out = False, []
for m in re.finditer(r"\x1b\[([0-9;]*)m|([^\x1b])", line.rstrip("\n")):
    if m.group(2) is None:
        for p in (m.group(1) or "0").split(";"):
            if p in ("0", ""):
                under = False
            elif p == "4":
                under = True
            elif p == "24":
                under = False
    else:
        out.append(under)
out = out[13:]
want = [False] * 24 + [True] * 8 + [False] * 32
if out != want:
    sys.stderr.write("underlined: %s\n" % "".join("_" if u else "." for u in out))
    sys.exit(1)
EOF
	keys q
	wait_dead || return 1
	screen
	grep -q "^end: quit (q) after [2-9] frames; since start: 4 faulted in; 10 page cache dropped; 8 swapped out;" \
		"$tmp/screen" || { show_screen; fail "no last line"; }
}

# SIGWINCH: redrawn at the new width, and a message when too small.
test_resize() {
	start -- || return 1
	wait_for "legend:" || return 1
	[ "$(row 555555558000 | wc -c)" -eq 65 ] || { show_screen; fail "not 64 cells"; return 1; }
	tm resize-window -t w -x 100 -y 30
	wait_for "q quit ? help g goto / find +- zoom Tab pane Enter detail x bytes space pause i interval" ||
		{ show_screen; return 1; }
	[ "$(row 555555558000 | wc -c)" -eq 81 ] ||
		{ show_screen; fail "not 80 cells at 100 columns: $(row 555555558000)"; return 1; }
	tm resize-window -t w -x 70 -y 20
	wait_for "the terminal is too small: 70x20," || { show_screen; return 1; }
	has "at least 80x24 needed (q quits)" || return 1
	tm resize-window -t w -x 80 -y 24
	wait_for "legend:" || { show_screen; return 1; }
}

test_too_small() {
	COLS=60 ROWS=20 start -- || return 1
	wait_for "the terminal is too small: 60x20," || { show_screen; return 1; }
	keys q
	wait_dead
}

# colour_codes FILE: the SGR colour parameters in FILE, one a line
colour_codes() {
	python3 -c '
import re, sys
for m in re.finditer(r"\x1b\[([0-9;]*)m", open(sys.argv[1], encoding="utf-8", errors="replace").read()):
    ps = m.group(1).split(";")
    for i, p in enumerate(ps):
        # 39 and 49 are the defaults, no colour
        if p and (30 <= int(p) <= 38 or 40 <= int(p) <= 48 or 90 <= int(p) <= 107):
            print(p)
' "$1"
}

# NO_COLOR: no colour, yet every state its character.
test_no_color() {
	start -- || return 1
	wait_for "legend:" || return 1
	tm capture-pane -e -p -t w >"$tmp/color"
	[ -n "$(colour_codes "$tmp/color")" ] || { fail "no colour without NO_COLOR"; return 1; }
	start NO_COLOR=1 -- || return 1
	wait_for "legend:" || return 1
	tm capture-pane -e -p -t w >"$tmp/color"
	[ -z "$(colour_codes "$tmp/color")" ] ||
		{ fail "colour codes with NO_COLOR: $(colour_codes "$tmp/color" | sort -u | tr '\n' ' ')"; return 1; }
	has "legend: . none  a anon  c cache  m shmem  z zero  t THP  h hugetlb" || return 1
	[ "$(row 555555558000)" = \
		"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaazzzzzzzz........ssssssssssssssss" ] ||
		{ show_screen; fail "heap row: $(row 555555558000)"; }
}

test_help_pause() {
	start -- -i 0.2 || return 1
	wait_for "legend:" || return 1
	keys ?
	wait_for "memwalk-client watch: keys" || { show_screen; return 1; }
	keys a
	wait_for "legend:" || { show_screen; return 1; }
	keys Space
	wait_for "PAUSED" || { show_screen; return 1; }
	n1=$(grep -c "frame [0-9]*:" "$tmp/screen")
	last=$(grep "frame [0-9]*:" "$tmp/screen" | tail -n 1)
	sleep 1
	screen
	[ "$(grep "frame [0-9]*:" "$tmp/screen" | tail -n 1)" = "$last" ] ||
		{ show_screen; fail "refreshed while paused ($n1 frames shown)"; return 1; }
	keys i 5 Enter
	wait_for "a refresh every 5 s" || { show_screen; return 1; }
	keys Space
	wait_for "(every 5 s)" || { show_screen; return 1; }
}

# q, SIGTERM and SIGINT leave the alternate screen, with the last line.
ends_with() {
	start -- -i 0.2 || return 1
	wait_for "legend:" || return 1
	[ "$(status_of '#{alternate_on}')" = 1 ] || { fail "not on the alternate screen"; return 1; }
	case $1 in
	q) keys q ;;
	*) kill -"$1" "$(watch_pid)" || { fail "no watch to signal"; return 1; } ;;
	esac
	wait_dead || return 1
	screen
	[ "$(status_of '#{alternate_on}')" = 0 ] || { show_screen; fail "still on the alternate screen"; return 1; }
	[ "$dead_status" = 0 ] || { show_screen; fail "exit status $dead_status"; return 1; }
	grep -q "^end: $2 after [0-9]* frames\{0,1\}; since start:" "$tmp/screen" ||
		{ show_screen; fail "no last line"; }
}

test_quit() { ends_with q "quit (q)"; }
test_sigterm() { ends_with TERM "terminated (SIGTERM)"; }
test_sigint() { ends_with INT "interrupted (SIGINT)"; }

test_target_exit() {
	start MW_FAKE_SNAPSHOT="$BEFORE:$AFTER" -- -i 0.3 || return 1
	wait_dead || return 1
	screen
	[ "$(status_of '#{alternate_on}')" = 0 ] &&
	grep -q "^end: pid $target exited after 2 frames" "$tmp/screen" ||
		{ show_screen; fail "no last line"; }
}

# gone PID [SECONDS]: until PID has ended (a zombie counts as ended), for
# up to SECONDS (5); if it has not, what it is doing: its state and the
# share of a CPU it used over a second, in $why; it is then killed
gone() {
	i=0
	while [ $i -lt $((${2:-5} * 10)) ]; do
		st=$(sed -n 's/^[0-9]* (.*) \([A-Z]\) .*/\1/p' "/proc/$1/stat" 2>/dev/null)
		[ -z "$st" ] || [ "$st" = Z ] && return 0
		sleep 0.1
		i=$((i + 1))
	done
	# utime + stime, fields 14 and 15 after the command's parenthesis
	t1=$(sed 's/.*) //' "/proc/$1/stat" | awk '{ print $12 + $13 }')
	sleep 1
	t2=$(sed 's/.*) //' "/proc/$1/stat" | awk '{ print $12 + $13 }')
	why="still there ${2:-5} s after the hangup, state $st, $(( (t2 - t1) * 100 / $(getconf CLK_TCK) ))% of a CPU over the next second"
	kill -9 "$1" 2>/dev/null
	return 1
}

# The terminal goes away (tmux kills the session: the pty's master closes,
# the terminal hangs up): watch ends at once, by SIGHUP or, with SIGHUP
# ignored (nohup), by the hangup poll() reports on its input; never
# spinning on a terminal that reads nothing forever, never staying.
test_hangup() {
	start -- -i 0.2 || return 1
	wait_for "legend:" || return 1
	pid=$(watch_pid)
	[ -n "$pid" ] || { fail "no watch process"; return 1; }
	tm kill-session -t w
	gone "$pid" || { fail "SIGHUP: $why"; return 1; }
	# SIGHUP ignored: its status and what it said, to files
	tm kill-server 2>/dev/null
	starts=$((starts + 1))
	sock=mw-tui-$$-$starts
	rm -f "$tmp/hup-status"
	tm new-session -d -s w -x 80 -y 24 \
		"trap '' HUP; env TERM=screen ASAN_OPTIONS=${ASAN_OPTIONS:-} UBSAN_OPTIONS=${UBSAN_OPTIONS:-} $FAKE_CLIENT watch $target --no-events -i 0.2 2>$tmp/hup-err; echo \$? >$tmp/hup-status" ||
		{ fail "tmux would not start"; return 1; }
	wait_for "legend:" || return 1
	pid=$(watch_pid)
	[ -n "$pid" ] || { fail "no watch process"; return 1; }
	grep -q '^SigIgn:.*[13579bdf]$' "/proc/$pid/status" ||
		{ fail "SIGHUP is not ignored in the watch under test"; return 1; }
	tm kill-session -t w
	gone "$pid" || { fail "SIGHUP ignored: $why"; return 1; }
	i=0
	while [ ! -s "$tmp/hup-status" ] && [ $i -lt 50 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	[ "$(cat "$tmp/hup-status" 2>/dev/null)" = 1 ] &&
	grep -q "watch: the terminal went away" "$tmp/hup-err" ||
		fail "SIGHUP ignored: exit status '$(cat "$tmp/hup-status" 2>/dev/null)', said '$(cat "$tmp/hup-err")'"
}

test_map_model() {
	run "$WATCH_MAP_TEST" "$DATA"
	expect_rc 0
}

export MW_FAKE_SNAPSHOT=$BEFORE
t "watch full screen: the legend, header and map as the fixture has them" test_legend
t "watch full screen: a name's escape sequence shown escaped" test_escaped_name
t "watch full screen: arrows, goto, Home, End, PgDn, find" test_cursor
t "watch full screen: zoom out and in, mixed cells marked" test_zoom
t "watch full screen: the detail of a run, the page-table path, x not resident" test_detail
t "watch full screen: x shows the bytes /proc/PID/mem holds" test_bytes
t "watch full screen: transitions underlined, the events pane" test_transitions
t "watch full screen: resize redraws, too small says so" test_resize
t "watch full screen: too small from the start" test_too_small
t "watch full screen: NO_COLOR, no colour but the characters" test_no_color
t "watch full screen: help, pause, interval" test_help_pause
t "watch full screen: q leaves the alternate screen" test_quit
t "watch full screen: SIGTERM leaves it too" test_sigterm
t "watch full screen: SIGINT likewise" test_sigint
t "watch full screen: the target's exit ends it with a last line" test_target_exit
t "watch full screen: the terminal hung up ends it, with SIGHUP ignored too" test_hangup
t "watch map model (watch-map-test)" test_map_model
tap_end

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Host-side tests of "memwalk-client exporter": no module here, so the
# metric model is fed made events (metrics-test), and the exporter is fed
# events-test's scenario through a replay file (MEMWALK_EVENTS_REPLAY) and
# scraped over HTTP on 127.0.0.1.  The exposition must pass "promtool check
# metrics" (Debian package prometheus) and carry the scenario's counts.
# Output is TAP; the exit status is non-zero if a test failed.
#
# Paths can be overridden: CLIENT, EVENTS_TEST, METRICS_TEST.

set -u

here=$(cd "$(dirname "$0")" && pwd)
CLIENT=${CLIENT:-$here/../memwalk-client}
EVENTS_TEST=${EVENTS_TEST:-$here/events-test}
METRICS_TEST=${METRICS_TEST:-$here/metrics-test}

tmp=$(mktemp -d) || exit 1
exporter_pid=
cleanup() {
	[ -n "$exporter_pid" ] && kill "$exporter_pid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
unset MEMWALK_EVENTS_REPLAY

. "$here/tap.sh"

stderr_has() {
	grep -qF -- "$1" "$tmp/err" || fail "stderr lacks '$1'"
}

# has LINE: $tmp/out holds exactly this line
has() {
	grep -qxF -- "$1" "$tmp/out" || fail "no line '$1'"
}

promtool_ok() {
	promtool check metrics <"$1" >"$tmp/promtool" 2>&1 ||
		fail "promtool check metrics: $(head -n 3 "$tmp/promtool" | tr '\n' ' ')"
}

free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# --- the model ---------------------------------------------------------------------

test_escape() {
	run "$METRICS_TEST" escape
	expect_rc 0
}

test_render() {
	run "$METRICS_TEST" render
	expect_rc 0 || return 1
	promtool_ok "$tmp/out" &&
	has 'memwalk_direct_reclaim_stalls_total{memcg="/a \"b\""} 3' &&
	has 'memwalk_direct_reclaim_reclaimed_bytes_total{memcg="/a \"b\""} 122880' &&
	has 'memwalk_direct_reclaim_stall_seconds_bucket{memcg="/a \"b\"",le="0.001"} 1' &&
	has 'memwalk_direct_reclaim_stall_seconds_bucket{memcg="/a \"b\"",le="0.005"} 2' &&
	has 'memwalk_direct_reclaim_stall_seconds_bucket{memcg="/a \"b\"",le="1"} 2' &&
	has 'memwalk_direct_reclaim_stall_seconds_bucket{memcg="/a \"b\"",le="5"} 3' &&
	has 'memwalk_direct_reclaim_stall_seconds_bucket{memcg="/a \"b\"",le="+Inf"} 3' &&
	has 'memwalk_direct_reclaim_stall_seconds_sum{memcg="/a \"b\""} 2.003000000' &&
	has 'memwalk_direct_reclaim_stall_seconds_count{memcg="/a \"b\""} 3' &&
	has 'memwalk_direct_reclaim_stalls_total{memcg="other"} 45' &&
	has 'memwalk_direct_reclaim_stalls_total{memcg="/many/254"} 1' || return 1
	! grep -q 'memcg="/many/255"' "$tmp/out" || fail "a cgroup past the limit has its own series" || return 1
	[ "$(grep -c '^memwalk_direct_reclaim_stalls_total{' "$tmp/out")" = 257 ] ||
		fail "not 256 cgroups and other" || return 1
	has 'memwalk_kswapd_runs_total{node="0"} 2' &&
	has 'memwalk_kswapd_reclaimed_bytes_total{node="0"} 819200' &&
	has 'memwalk_kswapd_run_seconds_bucket{node="0",le="0.001"} 0' &&
	has 'memwalk_kswapd_run_seconds_bucket{node="0",le="0.005"} 1' &&
	has 'memwalk_kswapd_run_seconds_bucket{node="0",le="0.05"} 2' &&
	has 'memwalk_oom_kills_total{memcg="/oom"} 2' &&
	has 'memwalk_oom_last_victim_info{memcg="/oom",pid="42",comm="ev\\il\"\n'"$(printf '\357\277\275')"'"} 1' ||
		return 1
	[ "$(grep -c '^memwalk_oom_last_victim_info' "$tmp/out")" = 1 ] || fail "not one last victim" || return 1
	has 'memwalk_node_lru_bytes{node="0",lru="inactive_anon"} 8192000' &&
	has 'memwalk_node_free_bytes{node="0"} 24576000' &&
	has 'memwalk_node_watermark_bytes{node="0",watermark="high"} 36864000' &&
	has 'memwalk_events_lost_total{group="reclaim"} 5' &&
	has 'memwalk_receive_overflows_total{group="oom"} 1' &&
	has 'memwalk_exporter_scrapes_total 7'
}

# --- the command --------------------------------------------------------------------

test_help() {
	run "$CLIENT" exporter --help
	expect_rc 0 && grep -q -- '--listen' "$tmp/out" && grep -q '127.0.0.1:9857' "$tmp/out" &&
		grep -q 'memwalk-client(1)' "$tmp/out" || fail "help lacks --listen, the default or the man page"
}

test_bad_listen() {
	for a in 9857 127.0.0.1 127.0.0.1: 127.0.0.1:0 127.0.0.1:65536 127.0.0.1:x \
		 localhost:9857 ::1:9857 '[::1]' '[127.0.0.1]:9857' 1.2.3:80; do
		run "$CLIENT" exporter --listen "$a"
		expect_rc 1 || return 1
		[ "$(wc -l <"$tmp/err")" -eq 1 ] || fail "not one line on stderr for '$a'" || return 1
		stderr_has "invalid listen address '$a'" || return 1
	done
	run "$CLIENT" exporter --bogus
	expect_rc 1 && stderr_has "unrecognized option '--bogus'" || return 1
	run "$CLIENT" exporter --listen
	expect_rc 1 && stderr_has "exporter: option '--listen' requires an argument" || return 1
	run "$CLIENT" exporter -l
	expect_rc 1 && stderr_has "exporter: option requires an argument -- 'l'" || return 1
	run "$CLIENT" exporter extra
	expect_rc 1
}

test_port_in_use() {
	port=$(free_port)
	python3 -c '
import socket, sys, time
s = socket.socket(); s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen()
print("ready", flush=True); time.sleep(30)' "$port" >"$tmp/holder" &
holder=$!
i=0
while ! grep -q ready "$tmp/holder" && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
run "$CLIENT" exporter --listen "127.0.0.1:$port"
kill "$holder"
expect_rc 1 && stderr_has "cannot listen on 127.0.0.1:$port [EADDRINUSE"
}

test_no_family() {
	run "$CLIENT" exporter --listen "127.0.0.1:$(free_port)"
	expect_rc 2 && stderr_has "memwalk module not loaded"
}

# serve FILE: the exporter on the replay FILE, in the background, once it serves
serve() {
	port=$(free_port)
	: >"$tmp/exp.err"
	MEMWALK_EVENTS_REPLAY=$1 "$CLIENT" exporter --listen "127.0.0.1:$port" \
		>"$tmp/exp.out" 2>"$tmp/exp.err" &
	exporter_pid=$!
	i=0
	while ! grep -q 'serving http' "$tmp/exp.err" && [ $i -lt 100 ]; do
		kill -0 "$exporter_pid" 2>/dev/null || break
		sleep 0.1
		i=$((i + 1))
	done
	grep -q "serving http://127.0.0.1:$port/metrics" "$tmp/exp.err" ||
		fail "exporter did not start: $(cat "$tmp/exp.err")"
}

# stop SIGNAL: it must exit 0 at once
stop() {
	kill "-$1" "$exporter_pid"
	wait "$exporter_pid"
	rc=$?
	exporter_pid=
	cp "$tmp/exp.err" "$tmp/err"
	expect_rc 0
}

test_replay_scrape() {
	"$EVENTS_TEST" replay "$tmp/replay" || fail "events-test replay failed" || return 1
	serve "$tmp/replay" || return 1
	curl -sf -D "$tmp/headers" "http://127.0.0.1:$port/metrics" -o "$tmp/out" ||
		fail "GET /metrics failed" || return 1
	grep -qi '^content-type: text/plain; version=0.0.4; charset=utf-8' "$tmp/headers" ||
		fail "wrong Content-Type" || return 1
	promtool_ok "$tmp/out" &&
	has 'memwalk_direct_reclaim_stalls_total{memcg="/test/child"} 1' &&
	has 'memwalk_direct_reclaim_stall_seconds_count{memcg="/test/child"} 1' &&
	has 'memwalk_kswapd_runs_total{node="0"} 1' &&
	has 'memwalk_oom_kills_total{memcg="/test/child"} 1' &&
	has 'memwalk_oom_last_victim_info{memcg="/test/child",pid="501",comm="big \"one\""} 1' &&
	has 'memwalk_events_lost_total{group="reclaim"} 3' &&
	has 'memwalk_receive_overflows_total{group="reclaim"} 1' &&
	has 'memwalk_exporter_scrapes_total 1' || return 1
	curl -sf "http://127.0.0.1:$port/metrics" -o "$tmp/out" && has 'memwalk_exporter_scrapes_total 2' ||
		return 1
	code=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/nope")
	[ "$code" = 404 ] || fail "GET /nope: HTTP $code, not 404" || return 1
	code=$(curl -s -o /dev/null -w '%{http_code}' -X POST "http://127.0.0.1:$port/metrics")
	[ "$code" = 405 ] || fail "POST /metrics: HTTP $code, not 405" || return 1
	stop TERM
}

test_sigint() {
	serve /dev/null || return 1
	curl -sf "http://127.0.0.1:$port/metrics" -o "$tmp/out" || fail "GET /metrics failed" || return 1
	promtool_ok "$tmp/out" && stop INT
}

test_replay_missing_file() {
	run env MEMWALK_EVENTS_REPLAY="$tmp/nope" "$CLIENT" exporter --listen "127.0.0.1:$(free_port)"
	expect_rc 1 && stderr_has "cannot open $tmp/nope" && stderr_has ENOENT
}

# The exporter opens libmicrohttpd when it starts (cmd/exporter-mhd.h):
# every other command's start-up loads none of it.
MHD_SONAME=libmicrohttpd.so.12

test_mhd_not_linked() {
	run readelf -d "$CLIENT"
	expect_rc 0 || return 1
	grep -q 'NEEDED.*libnl-3' "$tmp/out" || fail "readelf lists no libnl-3: $(head -n 3 "$tmp/out")" ||
		return 1
	! grep -q 'NEEDED.*microhttpd' "$tmp/out" || fail "the client is linked with libmicrohttpd"
}

# A private mount namespace where the library is an empty file.
test_mhd_missing() {
	lib=$(ldconfig -p | sed -n "s/^[[:space:]]*$MHD_SONAME .*=> //p" | head -n 1)
	[ -n "$lib" ] || fail "ldconfig knows no $MHD_SONAME" || return 1
	run unshare -m sh -c 'mount --bind /dev/null "$(readlink -f "$1")" && shift && exec "$@"' \
		sh "$lib" "$CLIENT" exporter --listen "127.0.0.1:$(free_port)"
	expect_rc 1 && stderr_has "exporter: cannot load libmicrohttpd (Debian: libmicrohttpd12): " &&
		stderr_has "$MHD_SONAME"
}

t "model: label values escaped, kept valid UTF-8" test_escape
t "exporter: libmicrohttpd is not linked, but opened when the exporter starts" test_mhd_not_linked
if [ "$(id -u)" = 0 ] && unshare -m true 2>/dev/null; then
	t "exporter: without libmicrohttpd, exit 1 and says which library" test_mhd_missing
else
	skip "exporter: without libmicrohttpd, exit 1 and says which library" \
		"needs root for a mount namespace (unshare -m)"
fi
if command -v promtool >/dev/null && command -v python3 >/dev/null && command -v curl >/dev/null; then
	t "model: exposition passes promtool; counts, histograms, bounded memcg labels" test_render
	t "exporter: a scraped replay passes promtool and carries the scenario's counts" test_replay_scrape
	t "exporter: SIGINT stops it, exit 0" test_sigint
	t "exporter: port in use: exit 1, errno message" test_port_in_use
	t "exporter: replay file that does not exist: exit 1" test_replay_missing_file
	if [ -e /sys/module/memwalk ]; then
		skip "exporter without the family: exit 2" "memwalk is loaded on this host"
	else
		t "exporter without the family: exit 2" test_no_family
	fi
else
	t "exporter tests need promtool (prometheus), python3 and curl" false
fi
t "exporter --help: --listen, the default, the man page" test_help
t "exporter: bad --listen and arguments: exit 1, one line" test_bad_listen

tap_end

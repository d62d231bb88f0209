#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Host-side tests of "memwalk-client phys": no module here, so the census
# comes from memwalk-client-fake, whose fake device serves a fixed machine
# (tests/fake-phys.c); the oracle is that machine's sums, written out here.
# Output is TAP; the exit status is non-zero if a test failed.
#
# Paths can be overridden: CLIENT, FAKE_CLIENT.

set -u

here=$(cd "$(dirname "$0")" && pwd)
CLIENT=${CLIENT:-$here/../memwalk-client}
FAKE_CLIENT=${FAKE_CLIENT:-$here/memwalk-client-fake}
# The fake device needs a snapshot to start; the census does not use it.
FIXTURE=$here/data/smaps-rules.json
FEATURES=0x24	# MEMWALK_FEAT_SNAPSHOT | MEMWALK_FEAT_PHYS

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
unset MEMWALK_DEVICE MW_FAKE_ERRNO MW_FAKE_LAB MW_FAKE_PHYS_MAX

. "$here/tap.sh"

stderr_has() {
	grep -qF -- "$1" "$tmp/err" || fail "stderr lacks '$1'"
}

fake() {
	run env MW_FAKE_SNAPSHOT="$FIXTURE" MW_FAKE_FEATURES="$FEATURES" "$FAKE_CLIENT" "$@"
}

# check_json FILE MODE: the classes of phys -J -b as the fake machine has them
check_json() {
	python3 - "$@" <<'PY'
import json, sys
out, mode = sys.argv[1:]
# class -> pages, and its parts, of tests/fake-phys.c's machine
machine = {
    None: {"free": 3075, "anon": 612, "file": 1350, "shmem": 200, "slab": 64,
           "pagetables": 16, "hugetlb": 1024, "zero": 1, "reserved": 256,
           "offline": 0, "hwpoison": 0, "kernel-other": 77, "total": 6675},
    0: {"free": 1024, "anon": 612, "file": 350, "total": 3624},
    1: {"free": 2051, "file": 1000, "total": 2051 + 1000},
}
parts = {"free": {"order 0": 3, "order 10": 3072},
         "anon": {"mapped": 512, "swap cache": 100},
         "file": {"mapped": 300, "dirty": 300, "writeback": 50},
         "hugetlb": {"free": 512}}
rows = json.load(open(out))["phys"]
if mode == "all":
    got = {r["class"]: r["pages"] for r in rows}
    assert got == machine[None], got
    for r in rows:
        kids = {c["class"]: c["pages"] for c in r.get("children", [])}
        for name, pages in parts.get(r["class"], {}).items():
            assert kids.get(name) == pages, (r["class"], name, kids)
        assert r["size"] == r["pages"] * 4096, r
    anon = [r for r in rows if r["class"] == "anon"][0]
    assert anon["meminfo"] == "AnonPages + SwapCached", anon
    assert anon["diff"] == anon["size"] - anon["meminfo-size"], anon
    zero = [r for r in rows if r["class"] == "zero"][0]
    assert zero["meminfo"] is None and zero["diff"] is None, zero
else:
    for nid in (0, 1):
        got = {r["class"]: r["pages"] for r in rows if r["node"] == nid}
        for k, v in machine[nid].items():
            assert got[k] == v, (nid, k, got)
        assert all(r.get("meminfo") is None for r in rows if "meminfo" in r), rows
PY
}

test_json() {
	fake phys -J -b --output-all
	expect_rc 0 || return 1
	check_json "$tmp/out" all || fail "classes differ from the fake machine's"
}

# One record per call: the client resumes by PFN, a record cut in two counts once.
test_resumed() {
	run env MW_FAKE_SNAPSHOT="$FIXTURE" MW_FAKE_FEATURES="$FEATURES" MW_FAKE_PHYS_MAX=1 \
		"$FAKE_CLIENT" phys -J -b --output-all
	expect_rc 0 || return 1
	check_json "$tmp/out" all || fail "classes differ when resumed record by record"
}

test_by_node() {
	fake phys --by node -J -b --output-all
	expect_rc 0 || return 1
	check_json "$tmp/out" node || fail "the nodes' classes differ from the fake machine's"
}

test_text() {
	fake phys
	expect_rc 0 || return 1
	head -n 1 "$tmp/out" | grep -q '^CLASS  *PAGES  *SIZE  *MEMINFO  *MEMINFO-SIZE  *DIFF$' ||
		fail "no heading" || return 1
	grep -q '^  order 10  *3072  *12M ' "$tmp/out" || fail "no free order 10 line" || return 1
	grep -q '^total  *6675 ' "$tmp/out" || fail "no total line" || return 1
	fake phys --by zone -n -r -o node,zone,class,pages
	expect_rc 0 || return 1
	grep -q '^1 zone\\x201 free 2051$' "$tmp/out" || grep -q '^1 [A-Za-z0-9]* free 2051$' "$tmp/out" ||
		fail "no node 1 free line in --by zone -r"
}

test_lab_mode() {
	run env MW_FAKE_SNAPSHOT="$FIXTURE" MW_FAKE_FEATURES="$FEATURES" MW_FAKE_ERRNO=EPERM \
		"$FAKE_CLIENT" phys
	expect_rc 2 && stderr_has "phys: a census of physical memory needs root (CAP_SYS_ADMIN)" &&
		[ ! -s "$tmp/out" ] || fail "not exit 2 with the reason"
}

test_old_module() {
	run env MW_FAKE_SNAPSHOT="$FIXTURE" MW_FAKE_FEATURES=0x4 "$FAKE_CLIENT" phys
	expect_rc 1 && stderr_has "no census of physical memory (MEMWALK_FEAT_PHYS)" &&
		[ ! -s "$tmp/out" ] || fail "not exit 1 with the reason"
}

test_usage_errors() {
	fake phys --by user
	expect_rc 1 && stderr_has "bad --by 'user': expected node or zone" || return 1
	fake phys -o bogus
	expect_rc 1 && stderr_has "unknown column 'bogus'" || return 1
	fake phys 12
	expect_rc 1 && stderr_has "unexpected argument '12'" || return 1
	fake phys --bogus
	expect_rc 1 && stderr_has "unrecognized option '--bogus'" && [ ! -s "$tmp/out" ]
}

test_help() {
	run "$CLIENT" phys --help
	expect_rc 0 || return 1
	grep -q '^Usage: memwalk-client phys \[--by node|zone\] \[OPTIONS\]$' "$tmp/out" ||
		fail "no usage line" || return 1
	[ "$(tail -n 1 "$tmp/out")" = "See memwalk-client(1)." ] || fail "no man pointer"
}

test_no_device() {
	run env MEMWALK_DEVICE="$tmp/no-such-device" "$CLIENT" phys
	expect_rc 2 && stderr_has "memwalk module not loaded" && [ ! -s "$tmp/out" ] ||
		fail "not exit 2 with nothing on stdout"
}

if command -v python3 >/dev/null; then
	t "phys -J -b (fake device): every class and part as the machine has them" test_json
	t "phys resumed one record per call: the same classes" test_resumed
	t "phys --by node: each node's classes, no meminfo" test_by_node
else
	t "phys against the fake machine (python3 needed)" false
fi
t "phys: the table, its orders and total; --by zone -r" test_text
t "phys in lab mode (EPERM): exit 2, says root is needed" test_lab_mode
t "phys with a module without MEMWALK_FEAT_PHYS: exit 1, says so" test_old_module
t "phys: bad options, one line, exit 1" test_usage_errors
t "phys --help" test_help
t "phys without the module: exit 2" test_no_device

tap_end

#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make bench, host half: `memwalk-client show` of a generated snapshot of
# MEMWALK_BENCH_RUNS (1000000) page runs in 1000 VMAs, against its targets
# (3 s, 500 MB) and against json-c parsing the same file, measured in the
# same run.  Wall time is what the targets speak of; on a busy machine the
# CPU time (user + system) says more.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
runs=${MEMWALK_BENCH_RUNS:-1000000}
client=$MW_TOP/userspace/memwalk-client
make -s -C "$MW_TOP/userspace" TOP="$MW_TOP" memwalk-client tests/gen-snapshot >/dev/null
dir=$MW_OUT/bench
mkdir -p "$dir"
file=$dir/runs.json
"$MW_TOP/userspace/tests/gen-snapshot" 1000 $(( (runs + 999) / 1000 )) >"$file"

# measure CMD...: "WALL CPU MAXRSS_KB" of CMD, its output to /dev/null.
# GNU time, a small C program: a launcher of Python's size would count in
# the command's max RSS, which exec keeps.
measure() {
	/usr/bin/time -f '%e %U %S %M' -o "$dir/time" "$@" >/dev/null
	awk '{ printf "%.2f %.2f %d\n", $1, $2 + $3, $4 }' "$dir/time"
}

bytes=$(stat -c %s "$file")
log "show of a generated snapshot of $runs page runs ($((bytes >> 20)) MiB of JSON), on the host"
read -r cat_s _ _ < <(measure cat "$file")
read -r show_s show_cpu show_kb < <(measure "$client" show "$file")
read -r pages_s pages_cpu _ < <(measure "$client" show --pages "$file")
read -r _ _ small_kb < <(measure "$client" show "$MW_TOP/userspace/tests/data/swap-before.json")
awk -v s="$show_s" -v c="$show_cpu" -v kb="$show_kb" -v skb="$small_kb" \
    -v ps="$pages_s" -v pc="$pages_cpu" -v runs="$runs" -v bytes="$bytes" -v cat="$cat_s" 'BEGIN {
	printf "show, %d runs: %.2f s (CPU %.2f s), max RSS %.0f MiB (targets for 1M: <= 3 s, <= 500 MiB): %s\n", runs,
	       s, c, kb / 1024, s <= 3 && kb <= 500 * 1024 ? "met" : (c <= 3 && kb <= 500 * 1024 ? "met in CPU time" : "MISSED")
	printf "show --pages, %d runs: %.2f s (CPU %.2f s); cat of the file %.2f s\n", runs, ps, pc, cat
	printf "show memory: %.0f B per run above a small file, JSON %.0f B per run: %.2fx its JSON\n",
	       (kb - skb) * 1024 / runs, bytes / runs, (kb - skb) * 1024 / bytes
}'
if pkg-config --exists json-c; then
	read -ra jsonc < <(pkg-config --cflags --libs json-c)
	cc -O2 -o "$dir/jsonc-peer" "$MW_TOP/userspace/tests/jsonc-peer.c" "${jsonc[@]}"
	read -r jc_s jc_cpu jc_kb < <(measure "$dir/jsonc-peer" "$file")
	awk -v s="$show_s" -v c="$show_cpu" -v kb="$show_kb" -v js="$jc_s" -v jc="$jc_cpu" -v jkb="$jc_kb" 'BEGIN {
		printf "show vs json-c parsing the same file: %.1fx faster, %.1fx less memory (json-c %.2f s, CPU %.2f s, max RSS %.0f MiB)\n",
		       js / s, jkb / kb, js, jc, jkb / 1024
	}'
else
	echo "show vs json-c: n/a (libjson-c-dev not installed)"
fi
rm -f "$file"

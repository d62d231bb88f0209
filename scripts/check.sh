#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make check: lint, build for every kernel line (x86-64 and cross-built
# arm64), host tests, the VM suite on every kernel line and the reliability
# lane (two streams of guests at once), the exporter, DKMS, the Debian
# packages.  Every result is one TAP-style "ok"/"not ok" line;
# the last line is "N passed, N failed, N skipped" over all of them.
#   MW_LINES="6.1 6.12"  limit the kernel lines (default: all of versions)
#   MW_XLINES=""          limit the cross-built lines (default: XLINES)
#   MW_DEBUG=0            skip the reliability lane (debug kernel)
#   check.sh --debug-only the reliability lane alone (make check-debug)
set -uo pipefail
. "$(dirname "$0")/lib.sh"

lines=${MW_LINES:-$KLINES}
xlines=${MW_XLINES-$XLINES}
debug=${MW_DEBUG:-1}
if [ "${1:-}" = --debug-only ]; then
	lines=
	xlines=
	debug=1
fi
# Every guest of the check (suites, lane, exporter, DKMS, packages) runs its
# vCPUs on one host thread: two guests at once keep both cores busy either
# way, and a vCPU thread of its own spins on guest locks whose holder's
# thread the host has put aside.  Two 6.1 suites side by side took 256 s
# each with a thread per vCPU, 200-215 s so (one alone: 171 s, 200 s).
export MW_VM_TCG_THREAD=${MW_VM_TCG_THREAD:-single}
mkdir -p "$MW_OUT"
log=$MW_OUT/check.log
: > "$log"
t_start=$SECONDS

say() { echo "$*" | tee -a "$log"; }
# step DESC CMD...: one result line for a command; its output goes to the log
step() {
	local desc=$1
	shift
	if "$@" >> "$log" 2>&1; then
		say "ok - $desc"
	else
		say "not ok - $desc (see $log)"
		return 1
	fi
}

# The uapi header cannot use BIT()/BIT_ULL(), and puts "#define X_MAX"
# right after its enum as every uapi header does.
lint_checkpatch() {
	perl "$CHECKPATCH" --no-tree --strict --quiet --show-types \
		--ignore FILE_PATH_CHANGES,SPDX_LICENSE_TAG \
		-f "$MW_TOP"/module/*.[ch] &&
	perl "$CHECKPATCH" --no-tree --strict --quiet --show-types \
		--ignore FILE_PATH_CHANGES,SPDX_LICENSE_TAG,BIT_MACRO,LINE_SPACING \
		-f "$MW_TOP/uapi/linux/memwalk.h"
}

lint_man() { mandoc -Tlint -W warning "$MW_TOP/userspace/memwalk-client.1"; }

dkms_ver() { sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$MW_TOP/dkms.conf"; }

# dkms add + build from a scratch copy of the tree, for one kernel line.
dkms_build() {
	local line=$1 ver krel
	ver=$(dkms_ver)
	krel=$(mw_krel "$line")
	dkms remove -m memwalk -v "$ver" --all >/dev/null 2>&1 || true
	rm -rf "/usr/src/memwalk-$ver"
	mkdir -p "/usr/src/memwalk-$ver"
	cp -a "$MW_TOP/Kbuild" "$MW_TOP/dkms.conf" "$MW_TOP/module" "$MW_TOP/uapi" "/usr/src/memwalk-$ver/"
	dkms add -m memwalk -v "$ver" &&
	dkms build -m memwalk -v "$ver" -k "$krel" &&
	mkdir -p "$MW_OUT/dkms-$line" &&
	find "/var/lib/dkms/memwalk/$ver/$krel" -name 'memwalk.ko*' -exec cp {} "$MW_OUT/dkms-$line/" \; &&
	{ [ ! -f "$MW_OUT/dkms-$line/memwalk.ko.xz" ] || xz -df "$MW_OUT/dkms-$line/memwalk.ko.xz"; } &&
	[ -f "$MW_OUT/dkms-$line/memwalk.ko" ]
}

dkms_cleanup() {
	local ver
	ver=$(dkms_ver)
	dkms remove -m memwalk -v "$ver" --all >/dev/null 2>&1
	rm -rf "/usr/src/memwalk-$ver"
}

# The lane's own test: a copy of the module with a planted bug (an
# off-by-one copy_to_user in the info ioctl: 8 bytes past a stack object)
# must make the debug kernel report it and so the lane fail.  The plant lives only in a
# scratch copy; if the pattern no longer matches, this test fails so the
# plant gets updated rather than silently proving nothing.
plant_test() {
	local scratch=$MW_OUT/plant/src plog=$MW_OUT/plant/run.log
	rm -rf "$MW_OUT/plant" && mkdir -p "$scratch"
	cp -a "$MW_TOP/Kbuild" "$MW_TOP/module" "$MW_TOP/uapi" "$scratch/"
	sed -i 's/len = min_t(size_t, usize, sizeof(info));/len = min_t(size_t, usize, sizeof(info) + 8);/' \
		"$scratch/module/chardev.c"
	if ! grep -q 'sizeof(info) + 8' "$scratch/module/chardev.c"; then
		say "not ok - reliability lane catches a planted bug: the plant no longer applies to module/chardev.c"
		return
	fi
	if ! MW_OUT=$MW_OUT/plant MW_SRC=$scratch "$MW_TOP/scripts/build-module.sh" debug > "$plog" 2>&1; then
		say "not ok - reliability lane catches a planted bug: the planted copy does not build ($plog)"
		return
	fi
	MW_OUT=$MW_OUT/plant MW_VM_MEM=2048 MW_VM_TIMEOUT=1200 \
		"$MW_TOP/scripts/vm-run.sh" debug "$MW_TOP/scripts/guest/plant.sh" plant >> "$plog" 2>&1
	# Caught: the harness judged the guest's dmesg (the lane's verdict).
	if grep -q 'guest dmesg has a splat' "$plog"; then
		say "ok - reliability lane catches a planted off-by-one copy: $(grep -o 'splat: .*; dmesg' "$plog" | head -n 1 | sed 's/; dmesg$//')"
	else
		say "not ok - reliability lane catches a planted off-by-one copy: the run passed ($plog)"
	fi
}

say "# memwalk check on kernel lines: ${lines:-none}$([ "$debug" = 1 ] && echo ' + debug kernel')${xlines:+; cross-built: $xlines}"
for line in $lines; do
	say "# kernel $line = $(mw_krel "$line")"
done

# The VM suite's guest: zram for swap tests, reserved hugetlb pages, THP on
# madvise; the debug kernel gets more memory and time (KASAN, lockdep).
# Expedited RCU grace periods: a module load and unload waits for several,
# which take ~100 ms each under TCG (6.1: 620 ms a cycle, 230 ms
# expedited), and the suite loads the module some 150 times.  PREEMPT_RT
# turns expedited ones back to normal after boot (rcu_normal_after_boot):
# off, 6.12-rt's rmmod takes 50 ms, not 174.
vm_suite() {
	local line=$1 script=$2 name=$3
	MW_VM_MODULES=${MW_SUITE_MODULES-zram} \
	MW_VM_APPEND="${MW_SUITE_APPEND-"hugepages=16 transparent_hugepage=madvise"} rcupdate.rcu_expedited=1 rcupdate.rcu_normal_after_boot=0" \
	MW_VM_FILES="$(echo "$MW_TOP"/scripts/guest/{selftests,kmemleak,faultinject}.sh)" \
		"$MW_TOP/scripts/vm-run.sh" "$line" "$script" "$name" 2>>"$log" | tee -a "$log"
	# The harness always judges the guest; no verdict is a failure too.
	grep -Eq "^\[$line\] (not )?ok - $name: guest (ran|did not finish)" "$log" ||
		say "not ok - VM suite on $line: the harness gave no verdict (see $log)"
}

# --- the client and the selftests, which every guest takes ----------------
rm -f "$MW_OUT/builds.done"
step "build memwalk-client (-Werror)" make -j"$(nproc)" -C "$MW_TOP/userspace" TOP="$MW_TOP"
step "build selftests (static, -Werror)" make -j"$(nproc)" -C "$MW_TOP/selftests" TOP="$MW_TOP" KSFT_DIR="$KSFT_DIR"

# --- the VM jobs' queue, and the second stream ----------------------------
# Two streams run beside each other: this one (host tests, DKMS, the Debian
# packages) and a second one (the reliability lane); a guest's tests keep
# about one of its two vCPUs busy, so two guests use both host cores.
# Then both take the VM jobs from one queue until it is empty, so they end
# together however long the lane takes (its kernel's build first, on a
# fresh machine): longest first, so the streams' last jobs are short:
# every line's suite (arm64's, 240-290 s under TCG, then x86-64's, 180-210
# s), the walk-only lines (KTESTS=walk, a minute), then the exporter runs
# (30-40 s each).  A job is "KIND LINE"; what it printed goes to the log
# of the stream that ran it, the second one's added to this one at the end.
# The second stream starts as soon as the client and the selftests are
# built: the lane builds its own module (and, on a fresh machine, its
# kernel) while this one lints and builds the others.
# The reliability lane: the whole suite on the debug kernel, then its own
# test (a planted bug must make it fail).
lane() {
	say "# reliability lane: debug kernel (lockdep, KASAN, KFENCE, kmemleak, DEBUG_VM)"
	# Built (when not cached) at the guests' priority: at nice 10 on a fresh
	# machine it took 52 min beside them, and the lane then ran alone.
	if step "debug kernel built (cached under $(mw_debug_dir))" "$MW_TOP/scripts/debug-kernel.sh" &&
		step "build memwalk.ko for the debug kernel (-Werror)" "$MW_TOP/scripts/build-module.sh" debug; then
		MW_VM_MEM=2048 MW_VM_TIMEOUT=3600 MW_SUITE_APPEND="hugepages=16 transparent_hugepage=madvise" \
			vm_suite debug "$MW_TOP/scripts/guest/reliability.sh" reliability
		plant_test
	fi
}
queue=$MW_OUT/vm-queue
: > "$queue"
for line in $xlines $lines; do
	[ "$(mw_var KTESTS "$line")" = walk ] || echo "suite $line" >> "$queue"
done
for line in $xlines; do
	[ "$(mw_var KTESTS "$line")" != walk ] || echo "suite $line" >> "$queue"
done
for line in $lines; do
	echo "exporter $line" >> "$queue"
done
queued=$(cat "$queue")
# The next job off the queue, or failure when it is empty.
queue_next() {
	flock "$queue.lock" sh -c 'l=$(head -n 1 "$1") && [ -n "$l" ] && sed -i 1d "$1" && echo "$l"' \
		sh "$queue"
}
# The VM suite on LINE: a cross-built line's with its own client and
# selftests, after a check of the paging levels (scripts/guest/xline.sh).
suite_job() {
	local line=$1
	say "# VM suite on $line"
	case " $xlines " in
	*" $line "*)
		if [ -f "$MW_OUT/$(mw_built "$line")/memwalk.ko" ] &&
			[ -x "$(mw_xuser "$line")/userspace/memwalk-client" ]; then
			MW_VM_MEM=1536 MW_VM_TIMEOUT=1800 MW_SUITE_MODULES=${MW_SUITE_MODULES-$(mw_disk_modules "$line")} \
				vm_suite "$line" "$MW_TOP/scripts/guest/xline.sh" selftests
		else
			say "not ok - VM suite on $line: no module, client or selftests were built"
		fi ;;
	*)
		if [ -f "$MW_OUT/$line/memwalk.ko" ]; then
			MW_VM_MEM=1536 MW_VM_TIMEOUT=1800 MW_SUITE_MODULES=${MW_SUITE_MODULES-$(mw_disk_modules "$line")} \
				vm_suite "$line" "$MW_TOP/scripts/guest/selftests.sh" selftests
		else
			say "not ok - VM suite on $line: no module was built"
		fi ;;
	esac
}
# The exporter, scraped by the host's Prometheus: one result line per kernel
# line (scripts/exporter-test.sh: a 512 MiB guest, 40-70 s); the details
# go to the log.
exporter_job() {
	local line=$1
	say "# exporter scraped by Prometheus on $line"
	if [ -f "$MW_OUT/$line/memwalk.ko" ]; then
		"$MW_TOP/scripts/exporter-test.sh" "$line" 2>&1 | tee -a "$log" |
			grep -E "^\[$line\] (not )?ok - exporter" ||
			say "not ok - exporter on $line: scripts/exporter-test.sh gave no verdict (see $log)"
	else
		say "not ok - exporter on $line: no module was built"
	fi
}
vm_jobs() {
	local kind line
	# The second stream starts (with the lane) before the modules are built.
	while [ ! -e "$MW_OUT/builds.done" ]; do
		sleep 5
	done
	while read -r kind line < <(queue_next); do
		"${kind}_job" "$line"
	done
}
second_stream() {
	[ "$debug" != 1 ] || lane
	vm_jobs
}
stream_pid=
if [ "$debug" = 1 ] || [ -n "$lines$xlines" ]; then
	say "# second stream started: the reliability lane, then VM jobs (its lines follow when it ends)"
	(log=$MW_OUT/stream2.log && : > "$log" && second_stream) > "$MW_OUT/stream2.out" 2>&1 &
	stream_pid=$!
fi
stream_join() {
	[ -n "$stream_pid" ] || return 0
	wait "$stream_pid"
	cat "$MW_OUT/stream2.out"
	cat "$MW_OUT/stream2.log" >> "$log"
	grep -Eq '^(\[[^]]*\] )?(ok|not ok) ' "$MW_OUT/stream2.log" ||
		say "not ok - second stream: it stopped without a result (see $MW_OUT/stream2.out)"
}

# --- lint and the other builds, beside the lane ---------------------------
step "checkpatch --strict: module/ and uapi/" lint_checkpatch
for line in $lines; do
	step "build memwalk.ko for $line (-Werror, sparse C=1, no undefined symbols)" \
		"$MW_TOP/scripts/build-module.sh" "$line" C=1
done
# A line that boots another's build (KBUILT) shares it; the client and the
# selftests are built once per architecture.
xbuilt= xarchs=
for line in $xlines; do
	b=$(mw_built "$line")
	case " $xbuilt " in *" $b "*) ;; *)
		xbuilt="$xbuilt $b"
		step "build memwalk.ko for $b, cross-compiled (-Werror, sparse C=1, no undefined symbols)" \
			"$MW_TOP/scripts/build-module.sh" "$b" C=1 ;;
	esac
	case " $xarchs " in *" $(mw_karch "$line") "*) continue ;; esac
	xarchs="$xarchs $(mw_karch "$line")"
	step "build memwalk-client and the selftests for $(mw_karch "$line"), cross-compiled (-Werror)" \
		"$MW_TOP/scripts/cross-build.sh" "$line"
done
step "man page: mandoc -Tlint" lint_man
# The queue's jobs need what was built above.
touch "$MW_OUT/builds.done"

# --- host-side tests of the client -------------------------------------
# host_tests LABEL TARGET: the TAP lines of "make TARGET" as [LABEL] lines.
# A run that fails without a "not ok" (a build error, a script that bails
# out before its tests) is one too.
host_tests() {
	local label=$1 target=$2 out=$MW_OUT/$2.tap rc
	make -s -C "$MW_TOP/userspace" TOP="$MW_TOP" SAN_DIR="$MW_OUT/client-san" "$target" \
		2>>"$log" | tee "$out" | sed "s/^/[$label] /" | tee -a "$log"
	rc=${PIPESTATUS[0]}
	grep '^Bail out!' "$out" | while read -r line; do
		say "not ok - $label: ${line#Bail out! }"
	done
	if [ "$rc" != 0 ] && ! grep -Eq '^(not ok|Bail out!)' "$out"; then
		say "not ok - $label: make $target failed with no test failing (see $log)"
	fi
}
say "# host tests of memwalk-client"
host_tests host check-static
say "# host tests again, on a build with ASan and UBSan ($MW_OUT/client-san)"
t_host=$SECONDS
host_tests host-san check-san
say "# the sanitizer build and run took $((SECONDS - t_host)) s"

# --- DKMS ----------------------------------------------------------------
# dkms add/build of the tree for 6.1, whose module the 6.1 VM then loads;
# the Debian packages' test below has DKMS build the same dkms.conf for
# every host line's headers.
if [ -n "$lines" ] && command -v dkms >/dev/null && [ "$(id -u)" = 0 ]; then
	for line in $lines; do
		[ "$line" = 6.1 ] || continue
		step "dkms add/build for $(mw_krel "$line")" dkms_build "$line"
	done
	if [ -f "$MW_OUT/dkms-6.1/memwalk.ko" ]; then
		say "# the DKMS-built module in the 6.1 VM"
		MW_KO=$MW_OUT/dkms-6.1/memwalk.ko "$MW_TOP/scripts/vm-run.sh" 6.1 \
			"$MW_TOP/scripts/guest/dkms.sh" dkms 2>>"$log" | tee -a "$log"
	fi
	dkms_cleanup
else
	say "ok - dkms # SKIP needs root and dkms"
fi

# --- Debian packages -------------------------------------------------------
# make deb, lintian, then apt install / purge / reinstall in throw-away
# overlays of a cached bookworm chroot with the 6.1 and 6.12 headers, and the
# module DKMS built there for 6.1 in the 6.1 VM (scripts/deb.sh).
if [ -n "$lines" ] && [ "$(id -u)" = 0 ]; then
	say "# Debian packages"
	deb_nok=$(grep -Ec '^(\[[^]]*\] )?not ok' "$log")
	"$MW_TOP/scripts/deb.sh" check 2>>"$log" | tee -a "$log"
	[ "${PIPESTATUS[0]}" = 0 ] || [ "$(grep -Ec '^(\[[^]]*\] )?not ok' "$log")" -gt "$deb_nok" ] ||
		say "not ok - Debian packages: scripts/deb.sh stopped without a result (see $log)"
else
	say "ok - Debian packages # SKIP needs root (chroot, overlay mounts)"
fi

# The VM jobs the second stream has not taken, then its lines.
vm_jobs
stream_join
# A job taken off the queue by a stream that died before it ran.
while read -r kind line; do
	case $kind in
	suite) grep -Eq -e "^\[$line\] (not )?ok - selftests: guest" -e "VM suite on $line: " "$log" ||
		say "not ok - VM suite on $line: taken off the queue, never run" ;;
	exporter) grep -Eq -e "^\[$line\] (not )?ok - exporter" -e "exporter on $line: " "$log" ||
		say "not ok - exporter on $line: taken off the queue, never run" ;;
	esac
done <<< "$queued"

# --- summary -------------------------------------------------------------
res='^(\[[^]]*\] )?(ok|not ok)( [0-9]+)? '
skipped=$(grep -Ec "$res.*# (SKIP|skip)" "$log")
passed=$(grep -E "^(\[[^]]*\] )?ok( [0-9]+)? " "$log" | grep -Evc '# (SKIP|skip)')
failed=$(grep -Ec '^(\[[^]]*\] )?not ok( [0-9]+)? ' "$log")
# CI shows only the end of this output: name what failed here, each with
# why, as its test said: a kselftest's first failed expectations
# (file:line: before its result) and the harness's reason (a timeout, a
# signal), a TAP script's first comment after it.
# A suite's "exited with status" after its own failures adds nothing.
if [ "$failed" != 0 ]; then
	awk -v max=8 '
	function flush(p) {
		if (!(p in pend))
			return
		if (shown++ < max) {
			print "# FAILED: " substr(pend[p], 1, 200)
			for (i = 0; i < nwhy[p]; i++)
				print "#   why: " substr(why[p, i], 1, 480)
		}
		delete pend[p]
	}
	{
		match($0, /^(\[[^]]*\] )?/)
		p = substr($0, 1, RLENGTH)
		rest = substr($0, RLENGTH + 1)
	}
	rest ~ /^(ok|not ok)( [0-9]+)? / {
		flush(p)
		if (rest ~ /^not ok/ && !(rest ~ /exited with status/ && nfail[p])) {
			nfail[p]++
			pend[p] = $0
			for (i = 0; i < nblk[p]; i++)
				why[p, i] = blk[p, i]
			nwhy[p] = nblk[p]
		}
		nblk[p] = 0
		next
	}
	rest ~ /^# [^ ]*\.c:[0-9]+:/ && nblk[p] < 2 {
		sub(/^# /, "", rest)
		blk[p, nblk[p]++] = rest
		next
	}
	# What the harness said of its end (a timeout, a signal).
	rest ~ /^# [^ ]+: Test (terminated|exited|failed|ended)/ {
		sub(/^# /, "", rest)
		blk[p, nblk[p]++] = rest
		next
	}
	rest ~ /^#   / && rest !~ /^# +(RUN|OK|FAIL|SKIP|XFAIL) / && (p in pend) && !nwhy[p] {
		sub(/^# +/, "", rest)
		why[p, nwhy[p]++] = rest
	}
	END {
		for (p in pend)
			flush(p)
	}' "$log"
fi
say "# check took $((SECONDS - t_start)) s; log: $log"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ] && [ "$passed" -gt 0 ]

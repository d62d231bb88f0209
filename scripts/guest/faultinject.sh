# SPDX-License-Identifier: GPL-2.0
# Fault injection aimed at memwalk (reliability lane, debug kernel; sourced
# after the suite, module unloaded).  failslab and fail_page_alloc fail only
# allocations whose stack passes through memwalk's text (require-start/
# require-end), during snapshots, translations and status requests; every
# failure must end in a clean error code, the module must unload, and
# kmemleak (run after this) must find nothing.
# memwalk's init is failed elsewhere, in the suite before this:
# memwalk_lifecycle's init_failure_unwinds fails each slab allocation of the
# init in turn (fail-nth, counted only with module code on the stack, so
# never the module loader's, whose jump_label notifier and vmalloc WARN
# when theirs fail), and memwalk_events' loss_report_does_not_delay_events
# fails the delivery's.
DBG=/sys/kernel/debug
KO=/lib/memwalk/memwalk.ko
FI_ROUNDS=${FI_ROUNDS:-25}
ULONG_MAX=0xffffffffffffffff

fi_set() {	# fi_set ATTR-DIR PROBABILITY TASK-FILTER [START END]
	d=$DBG/$1
	echo 0 > "$d/probability"
	echo -1 > "$d/times"
	echo 0 > "$d/space"
	echo 1 > "$d/interval"
	echo 0 > "$d/verbose"
	echo "$3" > "$d/task-filter"
	[ -e "$d/ignore-gfp-wait" ] && echo N > "$d/ignore-gfp-wait"
	[ -e "$d/ignore-gfp-highmem" ] && echo N > "$d/ignore-gfp-highmem"
	# No range: require-end must be ULONG_MAX, or nothing ever matches.
	echo "${4:-0}" > "$d/require-start"
	echo "${5:-$ULONG_MAX}" > "$d/require-end"
	echo "$2" > "$d/probability"
}

fi_off() {
	for a in failslab fail_page_alloc; do
		echo 0 > "$DBG/$a/probability"
		echo 0 > "$DBG/$a/require-start"
		echo "$ULONG_MAX" > "$DBG/$a/require-end"
		echo N > "$DBG/$a/task-filter"
	done
}

echo "memwalk: fault injection begin" > /dev/kmsg
if [ ! -d "$DBG/failslab" ] || [ ! -d "$DBG/fail_page_alloc" ]; then
	echo "not ok - fault injection: failslab/fail_page_alloc missing (debug kernel expected)"
else
	# --- snapshots and status with the module's own allocations failing ---
	if insmod "$KO"; then
		set -- $(grep '^memwalk ' /proc/modules)
		base=$6
		size=$2
		# Shell arithmetic is signed 64-bit: add in the low 32 bits.
		hi=${base%????????}
		lo=$((0x${base#$hi} + size))
		end=$(printf '%s%08x' "$hi" "$lo")
		sleep 600 &
		victim=$!
		fi_set failslab 30 N "$base" "$end"
		fi_set fail_page_alloc 30 N "$base" "$end"
		clean=0 errs=0 bad=0
		i=0
		while [ $i -lt "$FI_ROUNDS" ]; do
			i=$((i + 1))
			for cmd in "$victim" status info; do
				memwalk-client $cmd > /dev/null 2>&1
				rc=$?
				case $rc in
				0) clean=$((clean + 1)) ;;
				1|2) errs=$((errs + 1)) ;;
				*) bad=$((bad + 1)) ;;
				esac
			done
		done
		fi_off
		kill "$victim"
		if [ $bad = 0 ] && memwalk-client info > /dev/null && rmmod memwalk; then
			echo "ok - fault injection: client x$((FI_ROUNDS * 3)) with memwalk's allocations failing: $clean ok, $errs clean errors; module unloads"
		else
			echo "not ok - fault injection: client x$((FI_ROUNDS * 3)): $bad crashed or module stuck"
		fi
	else
		echo "not ok - fault injection: insmod without injection failed"
	fi
fi
echo "memwalk: fault injection end" > /dev/kmsg

# SPDX-License-Identifier: GPL-2.0
# The exporter's VM test, guest side (scripts/exporter-test.sh runs it with
# MW_VM_HOSTFWD, swap on zram and THP off): "memwalk-client exporter"
# listens on 10.0.2.15:9857, which QEMU forwards to the host's Prometheus,
# while a workload drives global direct reclaim, kswapd and a memcg OOM kill.
# The window's /proc/vmstat deltas go out as one "# exporter-window" line
# for the host to compare with what Prometheus scraped; the guest keeps the
# exporter up until the host has scraped twice after the window.
port=9857
client=/bin/memwalk-client
fails=0

ok() { echo "ok - $*"; }
nok() { echo "not ok - $*"; fails=$((fails + 1)); }

vmstat_sum() {	# the sum of the /proc/vmstat counters matching $1
	awk -v re="$1" '$1 ~ re { n += $2 } END { print n + 0 }' /proc/vmstat
}
counters() {
	echo "$(vmstat_sum '^allocstall_') $(vmstat_sum '^pageoutrun$') $(vmstat_sum '^oom_kill$')"
}
# Until the counters stand still for 2 s (at most 60 s).
settle() {
	local a b i=0
	a=$(counters)
	while [ $i -lt 60 ]; do
		sleep 2
		b=$(counters)
		[ "$a" = "$b" ] && return 0
		a=$b
		i=$((i + 2))
	done
	return 1
}
scrapes() {
	wget -q -O - "http://127.0.0.1:$port/metrics" |
		sed -n 's/^memwalk_exporter_scrapes_total //p'
}

insmod /lib/memwalk/memwalk.ko || { nok "insmod memwalk.ko"; exit 1; }
# Swap that costs nothing: the workload's pages are all zero (same-filled).
if echo 1G > /sys/block/zram0/disksize && mkswap /dev/zram0 >/dev/null &&
	swapon /dev/zram0; then
	ok "swap on zram0"
else
	nok "swap on zram0"
fi
echo +memory > /sys/fs/cgroup/cgroup.subtree_control || nok "memory controller enabled"

"$client" exporter --listen "0.0.0.0:$port" 2>/tmp/exporter.err &
epid=$!
echo -1000 > "/proc/$epid/oom_score_adj"
i=0
while ! grep -q 'serving http' /tmp/exporter.err && [ $i -lt 30 ]; do
	sleep 1
	i=$((i + 1))
done
if grep -q 'serving http' /tmp/exporter.err; then
	ok "exporter is serving: $(tail -n 1 /tmp/exporter.err)"
else
	nok "exporter did not start: $(cat /tmp/exporter.err)"
	exit 1
fi

settle || nok "counters stand still before the window"
set -- $(counters)
a0=$1 p0=$2 o0=$3

# Global pressure: more than the free memory, in a cgroup held 64 MiB under
# MemTotal so that swap, not a global OOM, takes the rest.
total_kb=$(awk '/^MemTotal:/ { print $2 }' /proc/meminfo)
free_kb=$(awk '/^MemFree:/ { print $2 }' /proc/meminfo)
mkdir /sys/fs/cgroup/mwexp_hog /sys/fs/cgroup/mwexp_oom
echo $(((total_kb - 65536) * 1024)) > /sys/fs/cgroup/mwexp_hog/memory.max
hog_mb=$((free_kb / 1024 + 128))
sh -c "echo 1000 > /proc/self/oom_score_adj; echo \$\$ > /sys/fs/cgroup/mwexp_hog/cgroup.procs;
	exec dd if=/dev/zero of=/dev/null bs=${hog_mb}M count=2" 2>/dev/null
echo "# hog: ${hog_mb} MiB twice, exit $?"
# A memory cgroup OOM kill: 64 MiB in 16 MiB without swap.
echo 16M > /sys/fs/cgroup/mwexp_oom/memory.max
echo 0 > /sys/fs/cgroup/mwexp_oom/memory.swap.max
sh -c 'echo $$ > /sys/fs/cgroup/mwexp_oom/cgroup.procs; exec dd if=/dev/zero of=/dev/null bs=64M count=1' 2>/dev/null
rc=$?
[ $rc = 137 ] && ok "memcg hog OOM-killed" || nok "memcg hog OOM-killed (exit $rc)"

settle || nok "counters stand still after the window"
set -- $(counters)
echo "# exporter-window allocstall=$(($1 - a0)) pageoutrun=$(($2 - p0)) oom_kill=$(($3 - o0))"

# Until the host has scraped twice since: the second began after the window.
# Each of our own requests counts itself once.
base=$(scrapes)
own=1
i=0
while [ $i -lt 90 ]; do
	sleep 1
	n=$(scrapes)
	own=$((own + 1))
	[ -n "$n" ] && [ -n "$base" ] && [ $((n - base - own + 1)) -ge 2 ] && break
	i=$((i + 1))
done
if [ $i -lt 90 ]; then
	ok "the host scraped the exporter after the window"
else
	nok "the host did not scrape the exporter within 90 s (scrapes $base, then $n)"
fi

kill -TERM "$epid"
wait "$epid"
rc=$?
[ $rc = 0 ] && ok "exporter exits 0 on SIGTERM" || nok "exporter exits 0 on SIGTERM (exit $rc: $(cat /tmp/exporter.err))"
swapoff /dev/zram0
rmdir /sys/fs/cgroup/mwexp_hog /sys/fs/cgroup/mwexp_oom
[ $fails = 0 ]

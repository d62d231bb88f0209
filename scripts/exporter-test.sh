#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# exporter-test.sh LINE: "memwalk-client exporter" in a VM on kernel LINE,
# scraped by a Prometheus server on this host.  The guest
# (scripts/guest/exporter.sh) runs the exporter while a workload reclaims
# and gets OOM-killed, and prints its /proc/vmstat deltas over the window;
# QEMU forwards 127.0.0.1:FWD here to the exporter (MW_VM_HOSTFWD, user
# networking with restrict=on); Prometheus, on 127.0.0.1 with its storage
# in a temporary directory, scrapes it every second.  Then the counters
# Prometheus holds must match the guest's vmstat, within the bounds the
# uapi header documents:
#   memwalk_oom_kills_total              == oom_kill delta (> 0)
#   memwalk_kswapd_runs_total            K: K <= pageoutrun delta <= K + lost
#                                        (one event a run, lost ones counted:
#                                        equal when none of the reclaim
#                                        group was lost)
#   memwalk_direct_reclaim_stalls_total  B: B <= allocstall delta
#                                        <= (1 + R) * (B + lost), R = 3
#                                        retries per call from 6.12 on, 2 before
# and the exposition the exporter served, probes and all, passes
# "promtool check metrics".  Output: TAP lines prefixed "[LINE] ".
# Traffic stays on 127.0.0.1.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

line=${1:?usage: exporter-test.sh LINE}
tag="[$line]"
tmp=$(mktemp -d)
prom_pid=
cleanup() {
	[ -n "$prom_pid" ] && kill "$prom_pid" 2>/dev/null && wait "$prom_pid" 2>/dev/null
	rm -rf "$tmp"
}

# One result line per run: the checks are collected, the first failure
# named; the details go out as comments.
failed=()
check() {	# check OK-BOOL TEXT
	if [ "$1" = 1 ]; then
		echo "# ok - $2"
	else
		echo "# not ok - $2"
		failed+=("$2")
	fi
}
verdict() {
	local secs=$((SECONDS - t0))
	if [ ${#failed[@]} = 0 ]; then
		echo "$tag ok - exporter: Prometheus scraped the guest's exporter; its counters match /proc/vmstat (${secs} s)"
	else
		echo "$tag not ok - exporter: ${failed[0]}$([ ${#failed[@]} -gt 1 ] && echo " (and $((${#failed[@]} - 1)) more)") (${secs} s)"
	fi
}
t0=$SECONDS
trap 'verdict; cleanup' EXIT

# Two free TCP ports on 127.0.0.1.
read -r prom_port fwd_port < <(python3 -c '
import socket
s = [socket.socket() for _ in range(2)]
for x in s: x.bind(("127.0.0.1", 0))
print(*[x.getsockname()[1] for x in s])')

cat > "$tmp/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: memwalk
    static_configs:
      - targets: ["127.0.0.1:$fwd_port"]
EOF
prometheus --config.file="$tmp/prometheus.yml" --storage.tsdb.path="$tmp/data" \
	--web.listen-address="127.0.0.1:$prom_port" --log.level=warn \
	> "$tmp/prometheus.log" 2>&1 &
prom_pid=$!
for _ in $(seq 50); do
	curl -sf "http://127.0.0.1:$prom_port/-/ready" >/dev/null && break
	sleep 0.2
done
if ! curl -sf "http://127.0.0.1:$prom_port/-/ready" >/dev/null; then
	check 0 "Prometheus did not start: $(tail -n 3 "$tmp/prometheus.log" | tr '\n' ' ')"
	exit 1
fi

MW_VM_QUIET=0 MW_VM_HOSTFWD=$fwd_port:9857 MW_VM_MEM=${MW_VM_MEM:-512} MW_VM_MODULES=zram \
MW_VM_APPEND="transparent_hugepage=never" MW_VM_TIMEOUT=${MW_VM_TIMEOUT:-600} \
	"$MW_TOP/scripts/vm-run.sh" "$line" "$MW_TOP/scripts/guest/exporter.sh" exporter \
	> "$tmp/vm.out" 2>&1 &
vm_pid=$!

# The exposition as served through the forward, while the guest runs.
got_text=0
while kill -0 "$vm_pid" 2>/dev/null; do
	if curl -sf --max-time 5 "http://127.0.0.1:$fwd_port/metrics" -o "$tmp/metrics.txt" &&
		grep -q '^memwalk_probe_state{' "$tmp/metrics.txt"; then
		got_text=1
		break
	fi
	sleep 1
done
wait "$vm_pid"
vm_rc=$?
# The harness's and the guest's TAP, as comments; their failures count.
sed 's/^\[[^]]*\] /# /' "$tmp/vm.out"
while read -r l; do
	check 0 "${l#*not ok - }"
done < <(grep -E '^(\[[^]]*\] )?not ok' "$tmp/vm.out")

if [ "$got_text" = 1 ]; then
	promtool check metrics < "$tmp/metrics.txt" > "$tmp/promtool.out" 2>&1
	check $((! $?)) "the exposition served in the guest passes promtool check metrics$(
		head -n 3 "$tmp/promtool.out" | tr '\n' ' ')"
else
	check 0 "no exposition with probe states came through 127.0.0.1:$fwd_port"
fi

window=$(sed -n 's/.*# exporter-window \(allocstall=[0-9]* pageoutrun=[0-9]* oom_kill=[0-9]*\)$/\1/p' "$tmp/vm.out")
if [ -z "$window" ]; then
	check 0 "the guest gave no vmstat window (vm-run.sh exit $vm_rc)"
	exit 1
fi
read -r allocstall pageoutrun oom_kill < <(tr -c '0-9\n' ' ' <<< "$window")

# The newest value Prometheus holds (stale markers after the guest went
# away are skipped by the range), summed over the series.
query() {
	curl -sf -G "http://127.0.0.1:$prom_port/api/v1/query" \
		--data-urlencode "query=sum(last_over_time($1[1h]))" |
		python3 -c '
import json, sys
r = json.load(sys.stdin)["data"]["result"]
print(r[0]["value"][1] if r else "none")'
}
stalls=$(query 'memwalk_direct_reclaim_stalls_total')
runs=$(query 'memwalk_kswapd_runs_total')
ooms=$(query 'memwalk_oom_kills_total')
lost=$(query 'memwalk_events_lost_total{group="reclaim"}')
overflows=$(query 'memwalk_receive_overflows_total')
echo "# vmstat: allocstall +$allocstall, pageoutrun +$pageoutrun, oom_kill +$oom_kill;" \
	"Prometheus: $stalls stalls, $runs kswapd runs, $ooms OOM kills, $lost reclaim events lost, $overflows overflows"

case $line in 6.1) r=2 ;; *) r=3 ;; esac
num() { [[ $1 =~ ^[0-9]+$ ]]; }
v=0; [ "$ooms" = "$oom_kill" ] && [ "$oom_kill" -gt 0 ] && v=1
check $v "memwalk_oom_kills_total $ooms == vmstat oom_kill delta $oom_kill > 0"
v=0
num "$runs" && num "$lost" && [ "$runs" -le "$pageoutrun" ] &&
	[ "$pageoutrun" -le $((runs + lost)) ] && v=1
check $v "memwalk_kswapd_runs_total $runs <= vmstat pageoutrun delta $pageoutrun <= $runs + $lost lost"
v=0
num "$stalls" && num "$lost" && [ "$allocstall" -gt 0 ] && [ "$stalls" -le "$allocstall" ] &&
	[ "$allocstall" -le $(((1 + r) * (stalls + lost))) ] && v=1
check $v "memwalk_direct_reclaim_stalls_total $stalls <= vmstat allocstall delta $allocstall <= $((1 + r)) * ($stalls + $lost lost)"
v=0; [ "$overflows" = 0 ] && v=1
check $v "memwalk_receive_overflows_total $overflows == 0"

// SPDX-License-Identifier: GPL-2.0
/*
 * make bench, event half: what memwalk's reclaim probes cost a
 * reclaim-heavy workload, and how long an event takes from its hook to a
 * subscriber.
 *
 * The workload: a process in a memory cgroup with memory.max
 * MEMWALK_EVBENCH_MIB (default 32) cycles MEMWALK_EVBENCH_PASSES (default 2)
 * times through four times that much anonymous memory, every page filled
 * with one byte value, so nearly every fault charges over the limit and
 * reclaims a page to zram swap (same-filled: no compression work).  It is
 * timed with the module loaded and a subscriber draining the reclaim group
 * (every hook live and every event delivered), and with the module
 * unloaded, alternately (ABBA) MEMWALK_EVBENCH_ROUNDS (default 3) times in
 * the same boot, after one untimed run; the medians are compared.
 *
 * Latency: each event's MEMWALK_A_EVENT_TIME_NS (CLOCK_MONOTONIC at the
 * hook) against CLOCK_MONOTONIC when the subscriber's recv() returned it,
 * over all events of the loaded runs: median and 99th percentile.
 *
 * Under TCG wall time swings by tens of percent between identical runs,
 * more than the overhead measured.  So make bench also runs this in a
 * guest under QEMU's -icount (MEMWALK_EVBENCH_CLOCK=icount): the guest
 * clock then counts executed instructions, every CPU's, the worker's and
 * the subscriber's included, and the overhead is a ratio of work done,
 * repeatable to about 1%.  Latency is not reported there (the vCPUs run
 * round-robin, so a wakeup waits for the other vCPU's slice).
 *
 * Only ratios and the shape of the latency distribution mean anything;
 * absolute times are printed for the record, not as claims.
 * Runs as root with the module loaded; leaves it loaded (from $MEMWALK_KO,
 * default /lib/memwalk/memwalk.ko).
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "memwalk_evlib.h"

#define CGROUP		"mwevbench"

static unsigned long env_ulong(const char *name, unsigned long def)
{
	const char *v = getenv(name);

	return v && *v ? strtoul(v, NULL, 0) : def;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* One timed run of the workload; seconds, or < 0 if it failed. */
static double run_workload(size_t limit, int passes)
{
	uint64_t t0;
	pid_t pid;
	int status;

	if (cg_create(CGROUP, limit, true))
		return -1;
	settle(200, 10000);
	t0 = now_ns();
	pid = spawn_hog(CGROUP, 4 * limit, passes, 0);
	if (pid < 0)
		return -1;
	status = wait_child(pid, 600);
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		return -1;
	return (now_ns() - t0) / 1e9;
}

/* Latencies of the events @s collected (receipt - hook), appended to @lat. */
static void collect_latency(struct sub *s, uint64_t **lat, size_t *n, size_t *cap)
{
	size_t i;

	pthread_mutex_lock(&s->lock);
	for (i = 0; i < s->nr; i++) {
		const struct evrec *e = &s->recs[i];

		if (e->type == MEMWALK_EV_LOST || !e->time_ns || e->recv_ns < e->time_ns)
			continue;
		if (*n == *cap) {
			*cap = *cap ? 2 * *cap : 65536;
			*lat = realloc(*lat, *cap * sizeof(**lat));
			if (!*lat) {
				pthread_mutex_unlock(&s->lock);
				return;
			}
		}
		(*lat)[(*n)++] = e->recv_ns - e->time_ns;
	}
	pthread_mutex_unlock(&s->lock);
}

int main(void)
{
	size_t limit = env_ulong("MEMWALK_EVBENCH_MIB", 32) * MiB;
	int passes = env_ulong("MEMWALK_EVBENCH_PASSES", 2);
	int rounds = env_ulong("MEMWALK_EVBENCH_ROUNDS", 3);
	const char *clock = getenv("MEMWALK_EVBENCH_CLOCK");
	bool icount = clock && !strcmp(clock, "icount");
	double on[16], off[16], m_on, m_off;
	uint64_t *lat = NULL, events = 0, lost = 0;
	size_t nlat = 0, cap = 0;
	int swap, r, k, n_on = 0, n_off = 0, ret = 1;
	struct mw_run run;
	struct sub sub;

	if (geteuid()) {
		fprintf(stderr, "memwalk_evbench: needs root\n");
		return 1;
	}
	if (rounds < 1 || rounds > 8)
		rounds = 3;
	swap = swap_on();
	if (swap < 0) {
		printf("# event benchmark skipped: no swap and no zram0 to put it on\n");
		return 0;
	}
	module_defaults();
	if (!module_loaded()) {
		fprintf(stderr, "memwalk_evbench: cannot load %s\n", ko_path());
		goto out;
	}
	printf("# workload: memory.max %zu MiB, %d passes over %zu MiB of anon memory; %d rounds ABBA\n",
	       limit / MiB, passes, 4 * limit / MiB, rounds);
	printf("# delivery_delay_ms=%u (events go out in batches at most that late)\n",
	       module_param_value("delivery_delay_ms"));
	printf("# guest clock: %s\n", icount ?
	       "QEMU -icount, time counts executed instructions" :
	       "host time under TCG (noisy: the -icount run measures the overhead)");
	/* Untimed: the first run also sets up zram and faults in the code. */
	if (run_workload(limit, passes) < 0) {
		fprintf(stderr, "memwalk_evbench: the workload failed\n");
		goto out;
	}

	for (r = 0; r < rounds; r++) {
		for (k = 0; k < 2; k++) {
			/* ABBA: loaded first in even rounds, unloaded first in odd ones */
			bool loaded = (r + k) % 2 == 0;
			double t;

			if (loaded) {
				if (!module_loaded() && module_load(&run, NULL)) {
					fprintf(stderr, "insmod: %s", run.err);
					goto out;
				}
				if (sub_start(&sub, 1u << GRP_RECLAIM)) {
					fprintf(stderr, "memwalk_evbench: cannot subscribe\n");
					goto out;
				}
			} else if (module_loaded() && module_unload(&run)) {
				fprintf(stderr, "rmmod: %s", run.err);
				goto out;
			}
			t = run_workload(limit, passes);
			if (loaded) {
				msleep(300);	/* the last deliveries */
				collect_latency(&sub, &lat, &nlat, &cap);
				pthread_mutex_lock(&sub.lock);
				events += sub.nr;
				lost += sub.lost[GRP_RECLAIM];
				pthread_mutex_unlock(&sub.lock);
				sub_stop(&sub);
			}
			if (t < 0) {
				fprintf(stderr, "memwalk_evbench: the workload failed\n");
				goto out;
			}
			printf("# round %d, module %s: %.3f s\n", r + 1,
			       loaded ? "loaded, subscriber" : "unloaded", t);
			if (loaded)
				on[n_on++] = t;
			else
				off[n_off++] = t;
		}
	}
	m_on = median(on, n_on);
	m_off = median(off, n_off);
	printf("# spread: loaded %.3f-%.3f s, unloaded %.3f-%.3f s\n", on[0], on[n_on - 1],
	       off[0], off[n_off - 1]);
	printf("reclaim-heavy workload, probes live vs module unloaded%s: %.3fx time (overhead %+.1f%%; medians %.3f s vs %.3f s)\n",
	       icount ? " (-icount)" : " (wall time)",
	       m_on / m_off, (m_on / m_off - 1) * 100, m_on, m_off);
	printf("events delivered while it ran: %" PRIu64 " (%" PRIu64 " lost), %.0f per second\n",
	       events, lost, events / (m_on * n_on));
	if (nlat && !icount) {
		qsort(lat, nlat, sizeof(*lat), cmp_u64);
		printf("hook to subscriber latency over %zu events: median %.3f ms, p99 %.3f ms, max %.3f ms\n",
		       nlat, lat[nlat / 2] / 1e6, lat[nlat * 99 / 100] / 1e6,
		       lat[nlat - 1] / 1e6);
	}
	ret = 0;
out:
	cg_remove(CGROUP);
	module_defaults();
	if (swap == 1)
		swap_off();
	free(lat);
	return ret;
}

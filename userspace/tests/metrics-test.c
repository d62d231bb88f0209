// SPDX-License-Identifier: GPL-2.0
/*
 * The exporter's metric model (lib/metrics.c) without the module: events
 * made as the parser leaves them, folded in, rendered.  Run by
 * exporter-tests.sh:
 *
 *   metrics-test escape    label escaping, exit 1 on a failure
 *   metrics-test render    print the exposition of a stream with hostile
 *                          names and more memory cgroups than are kept
 *                          (checked with promtool and grep by the script)
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metrics.h"

#define MS	1000000ULL

static int failures;

static void check_escape(const char *in, const char *want)
{
	char *got = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&got, &len);

	if (!f) {
		failures++;
		return;
	}
	mw_label_escape(f, in);
	fclose(f);
	if (strcmp(got, want)) {
		fprintf(stderr, "escape(\"%s\"): got \"%s\", want \"%s\"\n", in, got, want);
		failures++;
	}
	free(got);
}

static void test_escape(void)
{
	check_escape("/system.slice", "/system.slice");
	check_escape("a\"b", "a\\\"b");
	check_escape("a\\b", "a\\\\b");
	check_escape("a\nb", "a\\nb");
	check_escape("\x1b[31mred", "\xef\xbf\xbd[31mred");	/* ESC */
	check_escape("caf\xc3\xa9", "caf\xc3\xa9");		/* UTF-8 kept */
	check_escape("\xe2\x82\xac", "\xe2\x82\xac");		/* euro sign */
	check_escape("x\xff", "x\xef\xbf\xbd");			/* not UTF-8 */
	check_escape("\xc3", "\xef\xbf\xbd");			/* cut short */
	check_escape("\xc0\xaf", "\xef\xbf\xbd\xef\xbf\xbd");	/* overlong '/' */
	check_escape("\xed\xa0\x80", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"); /* surrogate */
	check_escape("\x7f", "\xef\xbf\xbd");			/* DEL */
}

static struct mw_event *ev_new(uint32_t type, uint64_t seq, uint64_t t)
{
	static struct mw_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.type = type;
	ev.has = MW_HAS(MEMWALK_A_EVENT_TYPE) | MW_HAS(MEMWALK_A_EVENT_TIME_NS);
	ev.time_ns = t;
	if (seq) {
		ev.has |= MW_HAS(MEMWALK_A_EVENT_SEQ);
		ev.seq = seq;
	}
	return &ev;
}

static void task(struct mw_event *ev, uint32_t pid, const char *memcg)
{
	ev->has |= MW_HAS(MEMWALK_A_EVENT_PID) | MW_HAS(MEMWALK_A_EVENT_TGID) |
		   MW_HAS(MEMWALK_A_EVENT_MEMCG_PATH);
	ev->pid = ev->tgid = pid;
	ev->memcg_path = memcg;
}

/* A direct reclaim stall of @ms ms by @pid in @memcg reclaiming @pages. */
static void stall(struct mw_metrics *m, uint64_t *seq, uint64_t t, uint32_t pid,
		  const char *memcg, uint64_t ms, uint64_t pages)
{
	struct mw_event *ev = ev_new(MEMWALK_EV_DIRECT_RECLAIM_BEGIN, ++*seq, t);

	task(ev, pid, memcg);
	mw_metrics_event(m, MW_GRP_RECLAIM, ev);
	ev = ev_new(MEMWALK_EV_DIRECT_RECLAIM_END, ++*seq, t + ms * MS);
	task(ev, pid, memcg);
	ev->has |= MW_HAS(MEMWALK_A_EVENT_NR_RECLAIMED) | MW_HAS(MEMWALK_A_EVENT_DURATION_NS);
	ev->nr_reclaimed = pages;
	ev->duration_ns = ms * MS;
	mw_metrics_event(m, MW_GRP_RECLAIM, ev);
}

static void kswapd_run(struct mw_metrics *m, uint64_t *seq, uint64_t t, uint32_t nid,
		       uint64_t ms, uint64_t pages)
{
	struct mw_event *ev = ev_new(MEMWALK_EV_KSWAPD_RUN_BEGIN, ++*seq, t);

	ev->has |= MW_HAS(MEMWALK_A_EVENT_NID);
	ev->nid = nid;
	mw_metrics_event(m, MW_GRP_RECLAIM, ev);
	ev = ev_new(MEMWALK_EV_KSWAPD_RUN_END, ++*seq, t + ms * MS);
	ev->has |= MW_HAS(MEMWALK_A_EVENT_NID) | MW_HAS(MEMWALK_A_EVENT_NR_RECLAIMED) |
		   MW_HAS(MEMWALK_A_EVENT_DURATION_NS);
	ev->nid = nid;
	ev->nr_reclaimed = pages;
	ev->duration_ns = ms * MS;
	ev->nr_nodes = 1;
	ev->nodes[0].has_id = true;
	ev->nodes[0].id = nid;
	ev->nodes[0].has = (1u << MW_N_ITEMS) - 1;
	for (unsigned int i = 0; i < MW_N_ITEMS; i++)
		ev->nodes[0].v[i] = 1000 * (i + 1);
	mw_metrics_event(m, MW_GRP_RECLAIM, ev);
}

static void oom_kill(struct mw_metrics *m, uint64_t seq, uint64_t t, const char *memcg,
		     uint32_t victim, const char *comm)
{
	struct mw_event *ev = ev_new(MEMWALK_EV_OOM_KILL, seq, t);

	task(ev, victim, memcg);
	ev->has |= MW_HAS(MEMWALK_A_OOM_VICTIM_PID) | MW_HAS(MEMWALK_A_OOM_VICTIM_TGID) |
		   MW_HAS(MEMWALK_A_OOM_VICTIM_COMM) | MW_HAS(MEMWALK_A_OOM_VICTIM_MEMCG_PATH);
	ev->victim_pid = ev->victim_tgid = victim;
	ev->victim_comm = comm;
	ev->victim_memcg_path = memcg;
	mw_metrics_event(m, MW_GRP_OOM, ev);
}

/*
 * The stream: in /a "b", 3 stalls (1, 2 and 2000 ms; 10 pages each);
 * MW_METRICS_MAX_KEYS + 44 cgroups with one 1 ms stall each (the last 45
 * counted under "other"); 2 kswapd runs on node 0 (3 and 20 ms, 100 pages
 * each); 2 OOM kills in /oom, the last of pid 42 named "ev\il"\n<ESC>; one
 * LOST record of 5 reclaim events; one overflow of the oom socket.
 */
static int render(void)
{
	static struct mw_metrics m;
	uint64_t seq = 0, oseq = 0, t = 1000 * MS;
	char memcg[64], *text;
	size_t len;
	unsigned int i;
	struct mw_event *ev;

	if (mw_metrics_init(&m, 4096, 0))
		return 1;
	stall(&m, &seq, t, 100, "/a \"b\"", 1, 10);
	stall(&m, &seq, t += 10 * MS, 100, "/a \"b\"", 2, 10);
	stall(&m, &seq, t += 10 * MS, 101, "/a \"b\"", 2000, 10);
	for (i = 0; i < MW_METRICS_MAX_KEYS + 44; i++) {
		snprintf(memcg, sizeof(memcg), "/many/%u", i);
		stall(&m, &seq, t += 10 * MS, 200 + i, memcg, 1, 1);
	}
	kswapd_run(&m, &seq, t += 10 * MS, 0, 3, 100);
	kswapd_run(&m, &seq, t += 10 * MS, 0, 20, 100);
	oom_kill(&m, ++oseq, t += 10 * MS, "/oom", 41, "first");
	oom_kill(&m, ++oseq, t += 10 * MS, "/oom", 42, "ev\\il\"\n\x1b");
	ev = ev_new(MEMWALK_EV_LOST, 0, t += MS);
	ev->has |= MW_HAS(MEMWALK_A_EVENT_LOST);
	ev->lost = 5;
	mw_metrics_event(&m, MW_GRP_RECLAIM, ev);
	mw_metrics_overflow(&m, MW_GRP_OOM, t);
	m.scrapes = 7;
	if (mw_metrics_render(&m, NULL, &text, &len))
		return 1;
	fwrite(text, 1, len, stdout);
	free(text);
	mw_metrics_free(&m);
	return 0;
}

int main(int argc, char **argv)
{
	const char *what = argc > 1 ? argv[1] : "";

	if (!strcmp(what, "escape")) {
		test_escape();
	} else if (!strcmp(what, "render")) {
		return render();
	} else {
		fprintf(stderr, "usage: %s escape|render\n", argv[0]);
		return 2;
	}
	if (failures)
		fprintf(stderr, "%d checks failed\n", failures);
	return failures ? 1 : 0;
}

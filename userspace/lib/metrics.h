/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libmemwalk: the event stream as Prometheus metrics (metrics.c), for
 * "memwalk-client exporter": counters and histograms folded from the
 * events (lib/evparse.h, lib/evstate.h) and gauges from the last values the
 * module reported, rendered in the Prometheus text exposition format
 * (version 0.0.4) together with a GET_STATUS reply.
 *
 * Labels are bounded: memory cgroups beyond MW_METRICS_MAX_KEYS per family
 * are counted under memcg="other" (real paths start with "/"), nodes beyond
 * MW_EV_MAX_NODES are not kept.
 */
#ifndef MEMWALK_METRICS_H
#define MEMWALK_METRICS_H

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

#include "evstate.h"

#define MW_METRICS_MAX_KEYS	256
#define MW_HIST_BUCKETS		12	/* and +Inf */

/*
 * Latencies; bucket[i] counts those up to the i-th bound (metrics.c: 10 us
 * to 10 s) and above the one before.
 */
struct mw_hist {
	uint64_t bucket[MW_HIST_BUCKETS + 1];	/* the last: above every bound */
	uint64_t count;
	uint64_t sum_ns;
};

/* One label value's counters: a memcg's stalls, a node's kswapd runs. */
struct mw_series {
	char *key;		/* the label value (owned) */
	uint64_t begins;	/* stalls or runs started */
	uint64_t wakes;		/* kswapd: wakeups */
	uint64_t reclaimed;	/* pages, from the ENDs */
	struct mw_hist latency;	/* from the ENDs whose latency is known */
	/* OOM kills: the last victim */
	uint32_t victim_pid;
	char *victim_comm;	/* owned, or NULL */
};

struct mw_series_set {
	struct mw_series *v;
	unsigned int nr;
};

/* A node's LRU lists, free memory and watermarks, as last reported. */
struct mw_node_gauges {
	uint64_t time_ns;	/* of the event that reported them */
	struct mw_ev_node node;
};

struct mw_metrics {
	struct mw_evstate state;	/* seqs, losses, latencies (begin/end pairs) */
	uint32_t page_size;		/* bytes: pages are exported in bytes */
	struct mw_series_set direct;	/* by memcg */
	struct mw_series_set memcg;	/* limit reclaim, by memcg */
	struct mw_series_set kswapd;	/* by node */
	struct mw_series_set oom;	/* by the victim's memcg */
	struct mw_node_gauges nodes[MW_EV_MAX_NODES];	/* by node id */
	uint64_t received[MW_NR_GROUPS];
	uint64_t scrapes;
};

/* 0, or -ENOMEM. */
int mw_metrics_init(struct mw_metrics *m, uint32_t page_size, uint64_t start_ns);
void mw_metrics_free(struct mw_metrics *m);

/* Fold in one event received on @grp's socket. */
void mw_metrics_event(struct mw_metrics *m, enum mw_group grp,
		      const struct mw_event *ev);
/* @grp's socket overflowed (ENOBUFS). */
void mw_metrics_overflow(struct mw_metrics *m, enum mw_group grp, uint64_t now_ns);

/*
 * The exposition text into *@text (malloc'ed, *@len bytes, NUL-terminated),
 * with @st's module, probe and group metrics when @st is not NULL.
 * Returns 0 or -ENOMEM.
 */
int mw_metrics_render(const struct mw_metrics *m, const struct mw_status *st,
		      char **text, size_t *len);

/*
 * Append @s to @out as a label value: '\\', '"' and newline escaped as the
 * format says; other control characters and bytes that are not UTF-8
 * become U+FFFD, so that the text stays valid UTF-8 and harmless on a
 * terminal.
 */
void mw_label_escape(FILE *out, const char *s);

#endif /* MEMWALK_METRICS_H */

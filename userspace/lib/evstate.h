/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libmemwalk: the state the event stream needs (evstate.c).  See evparse.h
 * for the overall split.
 */
#ifndef MEMWALK_EVSTATE_H
#define MEMWALK_EVSTATE_H

#include <stdbool.h>
#include <stdint.h>

#include "evparse.h"

/* ---- losses, per group ---------------------------------------------------- */

/*
 * MEMWALK_A_EVENT_SEQ counts a group's events from 1 at module load.  The
 * client takes the group's seq from GET_STATUS right after it subscribed
 * (@base): every seq above it should arrive, as an event or inside a
 * MEMWALK_EV_LOST total.  Events at or below @base arrive too (recorded
 * while the subscription and GET_STATUS raced): counted, never expected.
 */
struct mw_seqtrack {
	bool has_base;
	uint64_t base;
	uint64_t max_seen;	/* highest seq received, >= base */
	uint64_t received;	/* events with seq > base */
	uint64_t early;		/* events with seq <= base */
	uint64_t lost_reported;	/* sum of MEMWALK_A_EVENT_LOST */
	uint64_t lost_records;	/* MEMWALK_EV_LOST messages */
	uint64_t overflows;	/* ENOBUFS on our socket */
};

void mw_seq_set_base(struct mw_seqtrack *s, uint64_t base);
void mw_seq_event(struct mw_seqtrack *s, uint64_t seq);
/* Seqs in (base, @last] that never arrived; @last 0: the highest seen. */
uint64_t mw_seq_missing(const struct mw_seqtrack *s, uint64_t last);

/* ---- filters ---------------------------------------------------------------- */

struct mw_filter {
	bool has_pid;
	uint32_t pid;		/* thread or process id */
	const char *memcg;	/* path prefix, component-wise; NULL: any */
};

/* Whether cgroup @path is @prefix or below it ("/a" holds "/a/b", not "/ab"). */
bool mw_memcg_under(const char *path, const char *prefix);

/*
 * Whether @ev passes: events with a task (reclaim stalls, OOM kills: the
 * task, or for OOM kills also the victim and the OOM domain) must match
 * every filter given; events without one (kswapd, LRU samples) pass only
 * when no filter is given; MEMWALK_EV_LOST always passes.
 */
bool mw_filter_match(const struct mw_filter *f, const struct mw_event *ev);

/* ---- begin/end pairing and the story ring ------------------------------------- */

/* What the state adds to an event: derived, never sent by the module. */
struct mw_story;

struct mw_ev_extra {
	enum mw_group grp;
	bool has_latency;	/* END: duration_ns, or END time - BEGIN time */
	bool latency_paired;	/* ... the latter */
	uint64_t latency_ns;
	bool has_begin;		/* END: its BEGIN was seen */
	uint64_t begin_has;	/* which of the following the BEGIN had */
	int32_t begin_order;
	uint32_t begin_gfp;
	const struct mw_story *story;	/* OOM kills */
};

struct mw_story_part {
	uint64_t begins;	/* BEGIN events (stalls or runs started) */
	uint64_t ends;		/* END events */
	uint64_t time_ns;	/* sum of the ENDs' latencies that are known */
	uint64_t reclaimed;	/* sum of the ENDs' nr_reclaimed, pages */
	uint64_t in_scope;	/* BEGINs by tasks of the OOM domain's memcg */
	uint64_t by_victim;	/* BEGINs by the victim's process */
};

/*
 * What led to an OOM kill: the reclaim of the @window_ns before it, from
 * the ring.  @scope is the OOM domain's memcg (memcg OOM) or NULL (global).
 * kswapd is global; memcg reclaim counts only @scope's subtree (all of it
 * for a global OOM); direct reclaim is global, with in_scope the part from
 * tasks of @scope.
 */
struct mw_story {
	uint64_t window_ns;
	uint64_t oom_time_ns;
	uint64_t covered_ns;	/* of the window, what the client was there for */
	const char *scope;
	uint64_t kswapd_wakes;
	struct mw_story_part kswapd;
	struct mw_story_part direct;
	struct mw_story_part memcg;
	uint64_t nr_events;	/* ring records in the window */
	uint64_t first_ns;	/* the oldest of them: how long before the kill */
	uint64_t lost;		/* reclaim events lost meanwhile (LOST totals, overflows) */
	bool truncated;		/* the ring was full: older events were dropped */
};

#define MW_STORY_WINDOW_NS	(10ULL * 1000 * 1000 * 1000)
#define MW_RING_MAX		65536
#define MW_PAIR_SLOTS		1024

struct mw_ring_rec {
	uint64_t t;
	uint32_t type;
	uint32_t pid, tgid;
	uint64_t nr_reclaimed;
	uint64_t latency_ns;
	bool has_latency;
	char *memcg;		/* owned, or NULL */
};

struct mw_pair {
	bool used;
	uint32_t kind;		/* 0 direct (pid), 1 memcg (pid), 2 kswapd (nid) */
	uint32_t id;
	uint64_t t;
	uint64_t has;
	int32_t order;
	uint32_t gfp;
};

struct mw_evstate {
	uint64_t start_ns;	/* CLOCK_MONOTONIC when the client subscribed */
	uint64_t last_ns;	/* the newest event time seen */
	uint64_t window_ns;
	struct mw_seqtrack seq[MW_NR_GROUPS];
	struct mw_pair pairs[MW_PAIR_SLOTS];
	struct mw_ring_rec *ring;	/* MW_RING_MAX, circular */
	unsigned int ring_head, ring_len;
	bool ring_truncated_at;		/* a record was dropped for room ... */
	uint64_t ring_dropped_t;	/* ... the newest such record's time */
	/* reclaim losses, with the time they were learnt of, for stories */
	uint64_t reclaim_lost_t[64];
	uint64_t reclaim_lost_n[64];
	unsigned int reclaim_lost_len;
	struct mw_story story;		/* the last OOM kill's */
	uint64_t malformed;		/* messages refused by mw_event_parse() */
};

/* 0, or -ENOMEM. */
int mw_evstate_init(struct mw_evstate *st, uint64_t start_ns);
void mw_evstate_free(struct mw_evstate *st);

/*
 * Account one parsed event received on @grp's socket and work out its
 * extras (latency, story); @x->story points into @st until the next call.
 */
void mw_evstate_event(struct mw_evstate *st, enum mw_group grp,
		      const struct mw_event *ev, struct mw_ev_extra *x);
/* @grp's socket overflowed (ENOBUFS): events were lost, number unknown. */
void mw_evstate_overflow(struct mw_evstate *st, enum mw_group grp,
			 uint64_t now_ns);

#endif /* MEMWALK_EVSTATE_H */

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libmemwalk: a live watch of one process (watch.c), the model both views
 * of `memwalk-client watch` are drawn from (batch frames now, the
 * full-screen view later).  Every refresh takes a snapshot, compares it
 * with the previous one with mw_diff() (the classification `diff` uses),
 * and keeps what changed, what the snapshot cost, the totals, the fault
 * rates and the reclaim and OOM events that concern the target and came
 * in since the previous refresh.  Nothing is printed.
 *
 * Use: mw_watch_open(); then, until it fails or the caller stops, wait for
 * mw_watch_next_ns() (polling mw_watch_pollfds() and calling
 * mw_watch_events() when one is readable) and call mw_watch_refresh();
 * then read w->frame.  mw_watch_close() at the end, also after a failure.
 */
#ifndef MEMWALK_WATCH_H
#define MEMWALK_WATCH_H

#include <poll.h>
#include <stdbool.h>
#include <stdint.h>

#include "collect.h"
#include "diff.h"
#include "error.h"
#include "evsub.h"
#include "genl.h"
#include "summary.h"

struct mw_watch_opts {
	int32_t pid;
	uint64_t start, end;		/* end 0: the whole address space */
	uint64_t interval_ns;
	/*
	 * Folio state in every snapshot (PSS, LRU lists, MGLRU generations):
	 * dearer.  Without it a refresh reads the entries and whether each
	 * page is anon, file or exclusive: what faults, unmaps, swap, page
	 * cache drops and COW breaks need.
	 */
	bool folio;
	/*
	 * The entries' accessed bits in every snapshot (accessed and
	 * access-cleared counted).  Without it, where the module can, runs
	 * merge across them: DAMON and MGLRU's aging clear them on their
	 * own, and pages alike otherwise would break into a run each.
	 */
	bool accessed;
	bool no_events;			/* do not subscribe */
	int replay_fd;			/* >= 0: events from this replay file */
};

/* One reclaim or OOM event that concerns the target. */
struct mw_watch_event {
	uint64_t time_ns;		/* CLOCK_MONOTONIC, the module's */
	uint32_t type;			/* MEMWALK_EV_* */
	uint32_t pid, nid;		/* the task that reclaimed; kswapd's node */
	uint64_t nr_reclaimed, duration_ns;
	char comm[16];
	char memcg[256];		/* "" for global reclaim */
	uint32_t victim_pid;		/* OOM kill */
	char victim_comm[16];
};

struct mw_watch_frame {
	uint64_t seq;			/* 0: the first, with nothing to compare */
	uint64_t time_ns;		/* CLOCK_REALTIME of the snapshot */
	uint64_t mono_ns;		/* CLOCK_MONOTONIC of the snapshot */
	uint64_t walk_ns;		/* how long taking it took */
	uint64_t since_prev_ns;		/* from the previous refresh */
	bool kept;			/* the refresh came when it was due */
	struct mw_cost cost;		/* what it cost the target */
	struct mw_summary totals;	/* kB, the smaps rules */
	bool pss_exact;			/* PSS needs folio state */
	bool faults_known;		/* /proc/PID/stat was read */
	uint64_t minflt, majflt;	/* faults since the previous refresh */
	double minflt_rate, majflt_rate;	/* the same per second */
	struct mw_diff diff;		/* against the previous snapshot */
	uint64_t counts[MW_NR_CHANGES];	/* pages per kind, this refresh */
	struct mw_watch_event *events;	/* by time */
	size_t nr_events;
	uint64_t events_lost;		/* reported lost in this interval */
};

struct mw_watch {
	struct mw_watch_opts opts;
	struct mw_device *dev;
	struct mw_collect_opts collect;
	bool pfns_hidden;		/* the module hides them (lab mode) */
	/* the latest snapshot: what a map is drawn from, what the next is compared with */
	struct mw_snapshot *snap;
	struct mw_watch_frame frame;
	uint64_t totals[MW_NR_CHANGES];	/* pages per kind since the start */
	uint64_t start_mono_ns, next_ns;
	uint64_t minflt, majflt;	/* as last read */
	char memcg[256];		/* the target's cgroup v2 path, "" if none */
	bool events_on;			/* subscribed (or replaying) */
	struct mw_genl genl;
	bool genl_open;
	struct mw_evsub sub;
	unsigned char *replay_buf;
	/* events of the interval in progress */
	struct mw_watch_event *pending;
	size_t nr_pending, cap_pending;
	uint64_t pending_lost;
	bool oom;
};

/*
 * Check @opts->pid and open the device and, unless told not to, the event
 * subscription (a module without the family is no error: w->events_on
 * says whether events come).  Returns 0, or a negative errno with @err
 * saying why: no such process (-ESRCH), a kernel thread (-EINVAL), a range
 * outside every VMA (-ENXIO, found by the first refresh), no module.
 */
int mw_watch_open(struct mw_watch *w, const struct mw_watch_opts *opts,
		  struct mw_error *err);
void mw_watch_close(struct mw_watch *w);

/*
 * The event sockets to poll for POLLIN into @fds (at most MW_NR_GROUPS + 1);
 * returns how many.
 */
unsigned int mw_watch_pollfds(const struct mw_watch *w, struct pollfd *fds);
/* Read the events waiting; 0 or a negative errno with @err saying why. */
int mw_watch_events(struct mw_watch *w, struct mw_error *err);
/* CLOCK_MONOTONIC ns at which the next refresh is due. */
uint64_t mw_watch_next_ns(const struct mw_watch *w);

/*
 * Take the next snapshot and fill w->frame.  Returns 0; -ESRCH once the
 * target has exited (err says so); another negative errno with @err
 * saying why.
 */
int mw_watch_refresh(struct mw_watch *w, struct mw_error *err);

#endif /* MEMWALK_WATCH_H */

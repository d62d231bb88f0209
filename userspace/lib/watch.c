// SPDX-License-Identifier: GPL-2.0
/*
 * libmemwalk: a live watch of one process, refresh by refresh.  See
 * watch.h.
 *
 * The snapshots are compared with mw_diff(), the classification `diff`
 * prints, so that a page the watch calls "swapped out" is one `diff`
 * would call so from the same two snapshots.  Events are kept when they
 * concern the target: kswapd and global direct reclaim (they reclaim from
 * every process), memcg reclaim of the target's cgroup or one above it
 * (its limits bind the target too), and OOM kills of the target or in
 * those cgroups.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device.h"
#include "snapshot.h"
#include "watch.h"

#define PF_KTHREAD	0x00200000	/* include/linux/sched.h */

/*
 * From /proc/PID/stat: the flags (field 9), minflt (10) and majflt (12).
 * The fields are counted from after the last ')', comm may hold anything.
 */
static int read_stat(int32_t pid, uint64_t *flags, uint64_t *minflt,
		     uint64_t *majflt)
{
	char path[64], buf[1024], *p;
	unsigned long long f, mi, ma;
	size_t n;
	FILE *fp;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	fp = fopen(path, "re");
	if (!fp)
		return -errno;
	n = fread(buf, 1, sizeof(buf) - 1, fp);
	fclose(fp);
	buf[n] = '\0';
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %llu %llu %*u %llu",
			 &f, &mi, &ma) != 3)
		return -EPROTO;
	*flags = f;
	*minflt = mi;
	*majflt = ma;
	return 0;
}

/* @src (NULL: "") into @dst of @len bytes, cut if longer. */
static void copy_str(char *dst, size_t len, const char *src)
{
	size_t n = src ? strlen(src) : 0;

	if (n >= len)
		n = len - 1;
	if (n)
		memcpy(dst, src, n);
	dst[n] = '\0';
}

/* The cgroup v2 path of @pid ("0::/a/b" in /proc/PID/cgroup) into @buf. */
static void read_memcg(int32_t pid, char *buf, size_t len)
{
	char path[64], line[512];
	FILE *fp;

	buf[0] = '\0';
	snprintf(path, sizeof(path), "/proc/%d/cgroup", pid);
	fp = fopen(path, "re");
	if (!fp)
		return;
	while (fgets(line, sizeof(line), fp))
		if (!strncmp(line, "0::", 3)) {
			line[strcspn(line, "\n")] = '\0';
			copy_str(buf, len, line + 3);
			break;
		}
	fclose(fp);
}

/* Whether cgroup @memcg is the target's or one above it. */
static bool memcg_covers(const char *memcg, const char *target)
{
	size_t n = strlen(memcg);

	if (!*memcg || !*target)
		return false;
	if (!strcmp(memcg, "/"))
		return true;
	return !strncmp(memcg, target, n) && (target[n] == '\0' || target[n] == '/');
}

static bool concerns(const struct mw_watch *w, const struct mw_event *ev)
{
	switch (ev->type) {
	case MEMWALK_EV_KSWAPD_RUN_END:
	case MEMWALK_EV_DIRECT_RECLAIM_END:
		return true;
	case MEMWALK_EV_MEMCG_RECLAIM_END:
		return ev->memcg_path && memcg_covers(ev->memcg_path, w->memcg);
	case MEMWALK_EV_OOM_KILL:
		return ev->victim_tgid == (uint32_t)w->opts.pid ||
		       (ev->oom_memcg_path && memcg_covers(ev->oom_memcg_path, w->memcg));
	default:
		return false;
	}
}

static void on_message(void *arg, enum mw_group grp, const struct nlmsghdr *nlh)
{
	struct mw_watch *w = arg;
	struct mw_watch_event *e;
	const char *why;
	struct mw_event *ev;

	(void)grp;
	ev = malloc(sizeof(*ev));	/* large: nodes[] */
	if (!ev) {
		w->oom = true;
		return;
	}
	if (mw_event_parse(nlh, ev, &why))
		goto out;		/* not an event: nothing for the watch */
	if (ev->type == MEMWALK_EV_LOST) {
		w->pending_lost += ev->lost;
		goto out;
	}
	if (!concerns(w, ev))
		goto out;
	if (w->nr_pending == w->cap_pending) {
		size_t cap = w->cap_pending ? w->cap_pending * 2 : 16;
		struct mw_watch_event *p = realloc(w->pending, cap * sizeof(*p));

		if (!p) {
			w->oom = true;
			goto out;
		}
		w->pending = p;
		w->cap_pending = cap;
	}
	e = &w->pending[w->nr_pending++];
	memset(e, 0, sizeof(*e));
	e->time_ns = ev->time_ns;
	e->type = ev->type;
	e->pid = ev->tgid ? ev->tgid : ev->pid;
	e->nid = ev->nid;
	e->nr_reclaimed = ev->nr_reclaimed;
	e->duration_ns = ev->duration_ns;
	copy_str(e->comm, sizeof(e->comm), ev->comm);
	copy_str(e->memcg, sizeof(e->memcg), ev->type == MEMWALK_EV_OOM_KILL ?
		 ev->oom_memcg_path : ev->memcg_path);
	e->victim_pid = ev->victim_tgid;
	copy_str(e->victim_comm, sizeof(e->victim_comm), ev->victim_comm);
out:
	free(ev);
}

static void on_overflow(void *arg, enum mw_group grp)
{
	struct mw_watch *w = arg;

	(void)grp;
	w->pending_lost++;	/* at least one */
}

static void on_truncated(void *arg, size_t len)
{
	(void)len;
	on_overflow(arg, MW_GRP_RECLAIM);
}

static const struct mw_evsub_ops watch_ops = {
	.message = on_message,
	.overflow = on_overflow,
	.truncated = on_truncated,
};

/* Subscribe to reclaim and OOM; a module without the family: no events. */
static int open_events(struct mw_watch *w, struct mw_error *err)
{
	unsigned int groups = (1u << MW_GRP_RECLAIM) | (1u << MW_GRP_OOM);
	int g;

	if (w->opts.replay_fd >= 0) {
		w->replay_buf = malloc(MW_EVSUB_DGRAM_MAX);
		if (!w->replay_buf)
			return mw_error_set(err, -ENOMEM, "out of memory");
		w->events_on = true;
		return 0;
	}
	if (w->opts.no_events)
		return 0;
	/*
	 * No family (an older module), or no right to join its groups (they
	 * need CAP_SYS_ADMIN; lab mode users lack it): snapshots without
	 * events, which the frames say.
	 */
	if (mw_genl_open(&w->genl, err))
		return 0;
	w->genl_open = true;
	if (mw_evsub_open(&w->sub, &w->genl, groups, err)) {
		mw_evsub_close(&w->sub);
		for (g = 0; g < MW_NR_GROUPS; g++)
			w->sub.fd[g] = -1;
		return 0;
	}
	w->events_on = true;
	return 0;
}

int mw_watch_open(struct mw_watch *w, const struct mw_watch_opts *opts,
		  struct mw_error *err)
{
	uint64_t flags;
	int ret, g;

	memset(w, 0, sizeof(*w));
	w->opts = *opts;
	w->sub.ctrl_fd = -1;
	for (g = 0; g < MW_NR_GROUPS; g++)
		w->sub.fd[g] = -1;
	if (opts->interval_ns < 1000000)
		return mw_error_set(err, -EINVAL, "watch: the interval must be at least 1 ms");
	ret = read_stat(opts->pid, &flags, &w->minflt, &w->majflt);
	if (ret == -ENOENT)
		return mw_error_set(err, -ESRCH, "watch: no such process: %d", opts->pid);
	if (ret)
		return mw_error_set(err, ret, "watch: cannot read /proc/%d/stat [%s]",
				    opts->pid, mw_errno_text(-ret));
	if (flags & PF_KTHREAD)
		return mw_error_set(err, -EINVAL,
				    "watch: pid %d is a kernel thread: it has no user address space to watch",
				    opts->pid);
	read_memcg(opts->pid, w->memcg, sizeof(w->memcg));
	w->collect = (struct mw_collect_opts){
		.pid = opts->pid, .start = opts->start, .end = opts->end,
		.no_folio = !opts->folio, .no_accessed = !opts->accessed,
	};
	ret = mw_device_open(&w->dev, err);
	if (ret)
		return ret;
	ret = open_events(w, err);
	if (ret)
		return ret;
	w->start_mono_ns = mw_now_ns();
	w->next_ns = w->start_mono_ns;
	return 0;
}

static void frame_release(struct mw_watch_frame *f)
{
	mw_diff_free(&f->diff);
	free(f->events);
	f->events = NULL;
	f->nr_events = 0;
}

void mw_watch_close(struct mw_watch *w)
{
	frame_release(&w->frame);
	mw_snapshot_free(w->snap);
	w->snap = NULL;
	if (w->dev)
		mw_device_close(w->dev);
	w->dev = NULL;
	mw_evsub_close(&w->sub);
	if (w->genl_open)
		mw_genl_close(&w->genl);
	w->genl_open = false;
	free(w->replay_buf);
	w->replay_buf = NULL;
	free(w->pending);
	w->pending = NULL;
}

unsigned int mw_watch_pollfds(const struct mw_watch *w, struct pollfd *fds)
{
	unsigned int n = 0;
	int g;

	if (!w->events_on || w->opts.replay_fd >= 0)
		return 0;
	for (g = 0; g < MW_NR_GROUPS; g++)
		if (w->sub.fd[g] >= 0)
			fds[n++] = (struct pollfd){ .fd = w->sub.fd[g], .events = POLLIN };
	return n;
}

int mw_watch_events(struct mw_watch *w, struct mw_error *err)
{
	int ret, g;

	if (!w->events_on)
		return 0;
	if (w->opts.replay_fd >= 0) {
		/* The tests' replay: all of it, at the first refresh. */
		while ((ret = mw_evsub_replay(w->opts.replay_fd, w->replay_buf,
					      &watch_ops, w, err)) > 0)
			;
		if (ret)
			return ret;
	} else {
		for (g = 0; g < MW_NR_GROUPS; g++) {
			if (w->sub.fd[g] < 0)
				continue;
			ret = mw_evsub_drain(&w->sub, g, &watch_ops, w, err);
			if (ret)
				return ret;
		}
	}
	if (w->oom)
		return mw_error_set(err, -ENOMEM, "watch: out of memory");
	return 0;
}

uint64_t mw_watch_next_ns(const struct mw_watch *w)
{
	return w->next_ns;
}

static int by_time(const void *x, const void *y)
{
	const struct mw_watch_event *a = x, *b = y;

	return a->time_ns < b->time_ns ? -1 : a->time_ns > b->time_ns;
}

/* The totals, the fault rates and the transition counts of @f. */
static void frame_figures(struct mw_watch *w, struct mw_watch_frame *f,
			  const struct mw_snapshot *snap)
{
	uint64_t flags, minflt, majflt;
	double secs = f->since_prev_ns / 1e9;
	size_t ch;

	mw_summarize_all(snap, &f->totals);
	f->pss_exact = mw_summary_exact(snap, mw_summary_field("pss"));
	f->faults_known = !read_stat(w->opts.pid, &flags, &minflt, &majflt);
	if (f->faults_known && f->seq) {
		f->minflt = minflt - w->minflt;
		f->majflt = majflt - w->majflt;
		f->minflt_rate = secs > 0 ? f->minflt / secs : 0;
		f->majflt_rate = secs > 0 ? f->majflt / secs : 0;
	}
	if (f->faults_known) {
		w->minflt = minflt;
		w->majflt = majflt;
	}
	for (ch = 0; ch < MW_NR_CHANGES; ch++) {
		f->counts[ch] = f->diff.changes[ch].pages;
		w->totals[ch] += f->counts[ch];
	}
}

/*
 * Whether @snap maps anonymous pages it shares (after fork(): not
 * exclusive, not the zero page), whose next write copies them or, once
 * their other mappers went, keeps them: only PFNs tell which (mw_diff()).
 */
static bool shares_anon(const struct mw_snapshot *snap)
{
	const struct memwalk_page_run *r;
	size_t v, i;

	for (v = 0; v < snap->nr_vmas; v++)
		for (i = 0; i < snap->vmas[v].nr_runs; i++) {
			r = &snap->vmas[v].runs[i];
			if (mw_run_state(r) == MEMWALK_STATE_PRESENT &&
			    (r->flags & MEMWALK_RUN_ANON) &&
			    !(r->flags & (MEMWALK_RUN_EXCLUSIVE | MEMWALK_RUN_ZERO)))
				return true;
		}
	return false;
}

/*
 * The next snapshot.  PFNs cost the walk a record per stretch of
 * consecutive frames and the comparison a look at every page; what the
 * watch classifies needs them only to tell a COW break from a page kept,
 * so they are read while the process shares anonymous pages and the
 * module shows them.  A snapshot without them that finds such pages is
 * taken again with them, to compare the next one with.
 */
static int take_snapshot(struct mw_watch *w, struct mw_snapshot **snapp,
			 struct mw_error *err)
{
	struct mw_snapshot *snap;
	int ret;

	w->collect.no_pfn = !w->pfns_hidden && w->snap && !shares_anon(w->snap);
	ret = mw_collect(w->dev, &w->collect, &snap, err);
	if (ret)
		return ret;
	if (!w->collect.no_pfn && !mw_snap_has_pfn(snap))
		w->pfns_hidden = true;		/* lab mode */
	if (w->collect.no_pfn && shares_anon(snap)) {
		mw_snapshot_free(snap);
		w->collect.no_pfn = false;
		ret = mw_collect(w->dev, &w->collect, &snap, err);
		if (ret)
			return ret;
	}
	*snapp = snap;
	return 0;
}

/* Whether @snap holds a VMA: a range outside every VMA has nothing to show. */
static bool any_vma(const struct mw_snapshot *snap)
{
	return snap->nr_vmas > 0;
}

int mw_watch_refresh(struct mw_watch *w, struct mw_error *err)
{
	struct mw_watch_frame *f = &w->frame;
	uint64_t seq = w->snap ? f->seq + 1 : 0, begin, prev_mono = f->mono_ns;
	struct mw_snapshot *snap;
	int ret;

	ret = mw_watch_events(w, err);
	if (ret)
		return ret;
	begin = mw_now_ns();
	ret = take_snapshot(w, &snap, err);
	if (ret == -ESRCH)
		return mw_error_set(err, -ESRCH, "pid %d exited", w->opts.pid);
	if (ret)
		return ret;
	if (!w->snap && !any_vma(snap)) {
		mw_snapshot_free(snap);
		if (w->opts.end)
			return mw_error_set(err, -ENXIO,
					    "watch: the range %" PRIx64 "-%" PRIx64 " lies outside every VMA of pid %d",
					    w->opts.start, w->opts.end, w->opts.pid);
		return mw_error_set(err, -ENXIO, "watch: pid %d has no VMA", w->opts.pid);
	}
	frame_release(f);
	memset(f, 0, sizeof(*f));
	f->seq = seq;
	f->mono_ns = begin;
	f->walk_ns = mw_now_ns() - begin;
	f->since_prev_ns = seq ? begin - prev_mono : 0;
	f->time_ns = snap->time_ns;
	f->cost = snap->cost;
	/* Due at next_ns; late by more than a tenth of the interval: not kept. */
	f->kept = begin <= w->next_ns + w->opts.interval_ns / 10 &&
		  f->walk_ns <= w->opts.interval_ns;
	w->next_ns += w->opts.interval_ns;
	if (w->next_ns < begin + f->walk_ns)	/* behind: do not catch up */
		w->next_ns = begin + f->walk_ns;
	if (w->snap) {
		ret = mw_diff(w->snap, snap, &f->diff, err);
		if (ret) {
			mw_snapshot_free(snap);
			return ret;
		}
	}
	frame_figures(w, f, snap);
	f->events = w->pending;
	f->nr_events = w->nr_pending;
	f->events_lost = w->pending_lost;
	if (f->nr_events)
		qsort(f->events, f->nr_events, sizeof(*f->events), by_time);
	w->pending = NULL;
	w->nr_pending = w->cap_pending = 0;
	w->pending_lost = 0;
	mw_snapshot_free(w->snap);
	w->snap = snap;
	return 0;
}

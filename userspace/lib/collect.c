// SPDX-License-Identifier: GPL-2.0
/*
 * libmemwalk: take a snapshot of a live process with MEMWALK_IOC_SNAPSHOT.
 *
 * The kernel fills two buffers per call, VMA records and page runs, and
 * says where it stopped (walk_end); the next call resumes there.  A VMA
 * walked by several calls is reported by each: records with the same
 * start and end are one VMA, and a run cut by the end of a call is joined
 * with its continuation.  The kernel drops the mmap_lock between calls and
 * within them; a VMA that changed meanwhile is reported again: with the
 * same bounds, the newer record's flags and name replace the older ones;
 * with other bounds it overlaps a VMA already taken, the layout changed
 * under the walk, and the snapshot is taken again, a few times at most.
 * Buffers too small for even one record (ENOSPC) are doubled.  The
 * module lists scattered PFNs of pages alike in all else
 * (MEMWALK_SNAP_PFN_LIST): a listed run becomes the runs it stands for.
 * The buffers belong to the device handle and are kept for the next
 * snapshot.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "collect.h"
#include "device.h"
#include "version.h"

#define VMA_BUF_SIZE	(256 * 1024)
#define RUN_BUF_SIZE	(1024 * 1024)
#define PFN_BUF_SIZE	(1024 * 1024)
#define BUF_MAX		(256 * 1024 * 1024)
#define MAX_ATTEMPTS	3
/* start .. flags: the least of a run record this client can use */
#define RUN_SIZE_MIN	offsetof(struct memwalk_page_run, folio_flags)

/* The page-run mode flags @opts ask for. */
static uint32_t mw_collect_mode(const struct mw_collect_opts *opts)
{
	uint32_t pfn = opts->no_pfn ? MEMWALK_SNAP_NO_PFN : 0;

	if (opts->entry_only)
		return MEMWALK_SNAP_ENTRY_ONLY | pfn;
	return (opts->no_folio ? 0 : MEMWALK_SNAP_FOLIO) | pfn;
}

/* /proc/PID/comm, without its newline; "?" if it cannot be read. */
static char *read_comm(int32_t pid)
{
	char path[64], buf[64] = "";
	FILE *fp;

	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	fp = fopen(path, "r");
	if (!fp || !fgets(buf, sizeof(buf), fp))
		snprintf(buf, sizeof(buf), "?");
	if (fp)
		fclose(fp);
	buf[strcspn(buf, "\n")] = '\0';
	return mw_strdup(buf);
}

struct walk {
	struct mw_device *dev;
	struct mw_error *err;
	const struct mw_collect_opts *opts;
	uint32_t flags;
	uint32_t req_size;	/* of struct memwalk_snapshot the module knows */
	size_t *call_vmas;	/* this call's records, as indexes in snap->vmas */
	size_t nr_call_vmas, cap_call_vmas;
	bool changed;		/* the address space changed between calls */
};

static int out_of_memory(const struct walk *w)
{
	return mw_error_set(w->err, -ENOMEM, "snapshot of pid %d: out of memory",
			    w->opts->pid);
}

/* Double @buf (of *@len bytes) up to BUF_MAX; *@len only grows with it. */
static int grow(void **buf, size_t *len)
{
	void *p;

	if (*len >= BUF_MAX)
		return 0;
	p = realloc(*buf, *len * 2);
	if (!p)
		return -ENOMEM;
	*buf = p;
	*len *= 2;
	return 0;
}

/*
 * ENOSPC: both buffers doubled.  They stay with the device for the next
 * snapshot, so a length never says more than its buffer holds.
 */
static int grow_buffers(struct walk *w)
{
	struct mw_device *dev = w->dev;

	if (dev->vma_len >= BUF_MAX && dev->run_len >= BUF_MAX)
		return mw_error_set(w->err, -ENOSPC,
				    "snapshot of pid %d: a single record does not fit in %d MiB [%s]",
				    w->opts->pid, BUF_MAX >> 20, mw_errno_text(ENOSPC));
	if (grow(&dev->vma_buf, &dev->vma_len) || grow(&dev->run_buf, &dev->run_len))
		return out_of_memory(w);
	return 0;
}

static int bad_reply(const struct walk *w, const char *what, uint64_t value)
{
	return mw_error_set(w->err, -EPROTO,
			    "snapshot of pid %d: the module returned %s (%#" PRIx64 ")",
			    w->opts->pid, what, value);
}

/* A VMA reported again with the same bounds: the newer record wins. */
static int update_vma(struct mw_vma *vma, const struct mw_vma *rec)
{
	char *name;

	if (strcmp(vma->name, rec->name)) {
		name = mw_strdup(rec->name);
		if (!name)
			return -ENOMEM;
		free(vma->name);
		vma->name = name;
	}
	vma->flags = rec->flags;
	vma->pgoff = rec->pgoff;
	vma->ino = rec->ino;
	vma->dev_major = rec->dev_major;
	vma->dev_minor = rec->dev_minor;
	vma->page_shift = rec->page_shift;
	vma->name_kind = rec->name_kind;
	return 0;
}

/* Merge the VMA records of one call into @snap. */
static int take_vmas(struct walk *w, struct mw_snapshot *snap, uint64_t bytes)
{
	const size_t head = offsetof(struct memwalk_vma, name);
	uint64_t off = 0;

	w->nr_call_vmas = 0;
	while (off < bytes) {
		const struct memwalk_vma *rec = (const void *)((char *)w->dev->vma_buf + off);
		struct mw_vma tmpl = { 0 };
		size_t i, found;

		if (bytes - off < head || rec->size < head + 8 || rec->size % 8 ||
		    rec->size > bytes - off)
			return bad_reply(w, "a VMA record of a bad size", off);
		if (rec->name_len >= rec->size - head || rec->name[rec->name_len])
			return bad_reply(w, "a VMA name that is not NUL-terminated",
					 rec->start);
		tmpl.start = rec->start;
		tmpl.end = rec->end;
		tmpl.flags = rec->flags;
		tmpl.pgoff = rec->pgoff;
		tmpl.ino = rec->ino;
		tmpl.dev_major = rec->dev_major;
		tmpl.dev_minor = rec->dev_minor;
		tmpl.page_shift = rec->page_shift;
		tmpl.name_kind = rec->name_kind;
		tmpl.name = (char *)rec->name;
		off += rec->size;

		/* The same VMA as one taken before, a changed one, or new. */
		found = SIZE_MAX;
		for (i = snap->nr_vmas; i > 0 && snap->vmas[i - 1].end > tmpl.start; i--) {
			if (snap->vmas[i - 1].start == tmpl.start &&
			    snap->vmas[i - 1].end == tmpl.end) {
				found = i - 1;
				break;
			}
			w->changed = true;	/* overlaps with other bounds */
			return 0;
		}
		if (found == SIZE_MAX) {
			if (!mw_snapshot_add_vma(snap, &tmpl))
				goto out_oom;
			found = snap->nr_vmas - 1;
		} else if (update_vma(&snap->vmas[found], &tmpl)) {
			goto out_oom;
		}
		if (w->nr_call_vmas == w->cap_call_vmas) {
			size_t cap = w->cap_call_vmas ? w->cap_call_vmas * 2 : 64;
			size_t *p = realloc(w->call_vmas, cap * sizeof(*p));

			if (!p)
				goto out_oom;
			w->call_vmas = p;
			w->cap_call_vmas = cap;
		}
		w->call_vmas[w->nr_call_vmas++] = found;
	}
	return 0;

out_oom:
	return out_of_memory(w);
}

/*
 * The VMA of @run into *@vmap: the first in the call's records from *@j
 * that ends after its start.  -EPROTO if @run is not inside it.
 */
static int run_vma(struct walk *w, struct mw_snapshot *snap, size_t *j,
		   const struct memwalk_page_run *run, struct mw_vma **vmap)
{
	uint64_t end = run->start + (uint64_t)run->nr_pages * snap->page_size;
	struct mw_vma *vma = NULL;

	while (*j < w->nr_call_vmas && snap->vmas[w->call_vmas[*j]].end <= run->start)
		(*j)++;
	if (*j < w->nr_call_vmas)
		vma = &snap->vmas[w->call_vmas[*j]];
	if (!vma || run->start < vma->start || end > vma->end || !run->nr_pages)
		return bad_reply(w, "a page run outside the VMAs of the same call",
				 run->start);
	*vmap = vma;
	return 0;
}

/* @run to its VMA; joined to the run before when @join and they are one. */
static int put_run(struct walk *w, struct mw_snapshot *snap, size_t *j,
		   const struct memwalk_page_run *run, bool join)
{
	struct mw_vma *vma;
	int ret = run_vma(w, snap, j, run, &vma);

	if (ret)
		return ret;
	if (join && vma->nr_runs &&
	    mw_run_joins(snap, &vma->runs[vma->nr_runs - 1], run)) {
		vma->runs[vma->nr_runs - 1].nr_pages += run->nr_pages;
		return 0;
	}
	if (mw_vma_add_run(vma, run))
		return out_of_memory(w);
	return 0;
}

/*
 * A listed run (its PFNs from @pfns) as its pages, each joined to the run
 * before where their PFNs follow.  Its VMA is found and checked once for
 * all of them: a large process has hundreds of thousands such pages.
 */
static int put_listed(struct walk *w, struct mw_snapshot *snap, size_t *j,
		      const struct memwalk_page_run *run, const uint64_t *pfns)
{
	struct memwalk_page_run page = *run;
	struct mw_vma *vma;
	uint32_t k;
	int ret = run_vma(w, snap, j, run, &vma);

	if (ret)
		return ret;
	page.flags &= ~MEMWALK_RUN_PFN_LIST;
	page.nr_pages = 1;
	for (k = 0; k < run->nr_pages; k++) {
		struct memwalk_page_run *last = vma->nr_runs ?
						&vma->runs[vma->nr_runs - 1] : NULL;

		page.start = run->start + (uint64_t)k * snap->page_size;
		page.pfn = pfns[k];
		if (last && mw_run_joins(snap, last, &page))
			last->nr_pages++;
		else if (mw_vma_add_run(vma, &page))
			return out_of_memory(w);
	}
	return 0;
}

/*
 * Hand the runs of one call to their VMAs (of the same call).  The first
 * may continue the last of the call before; a listed run is its pages,
 * each joined to the one before where their PFNs follow, and so may the
 * run after it.
 */
static int take_runs(struct walk *w, struct mw_snapshot *snap, uint64_t nr,
		     uint32_t run_size, uint64_t nr_pfns)
{
	bool join = true;
	size_t j = 0;
	uint64_t i;
	int ret;

	for (i = 0; i < nr; i++) {
		struct memwalk_page_run run = { .lru_gen = -1 };

		memcpy(&run, (char *)w->dev->run_buf + i * run_size,
		       run_size < sizeof(run) ? run_size : sizeof(run));
		if (!(run.flags & MEMWALK_RUN_PFN_LIST)) {
			ret = put_run(w, snap, &j, &run, join);
			if (ret)
				return ret;
			join = false;
			continue;
		}
		if (run.pfn > nr_pfns || run.nr_pages > nr_pfns - run.pfn)
			return bad_reply(w, "a PFN list past the PFNs it returned", run.start);
		ret = put_listed(w, snap, &j, &run, w->dev->pfn_buf + run.pfn);
		if (ret)
			return ret;
		join = true;
	}
	return 0;
}

/* end 0 (the whole space) is done when walk_end is 0 again. */
static bool walk_done(const struct walk *w, uint64_t walk_end)
{
	return walk_end == w->opts->end;
}

/* One attempt at the whole range. */
static int walk(struct walk *w, struct mw_snapshot *snap)
{
	uint64_t start = w->opts->start;
	int ret;

	for (;;) {
		struct memwalk_snapshot req = {
			.size = w->req_size,
			.flags = w->flags,
			.pid = w->opts->pid,
			.start = start,
			.end = w->opts->end,
			.vma_buf = (uintptr_t)w->dev->vma_buf,
			.vma_buf_len = w->dev->vma_len,
			.run_buf = (uintptr_t)w->dev->run_buf,
			.run_buf_len = w->dev->run_len,
		};

		if (w->flags & MEMWALK_SNAP_PFN_LIST) {
			req.pfn_buf = (uintptr_t)w->dev->pfn_buf;
			req.pfn_buf_len = PFN_BUF_SIZE;
		}

		ret = mw_device_ioctl(w->dev, MEMWALK_IOC_SNAPSHOT, &req);
		if (ret) {
			if (ret != -ENOSPC)
				return mw_pid_error(w->err, "snapshot", w->opts->pid, -ret);
			ret = grow_buffers(w);
			if (ret)
				return ret;
			continue;
		}
		if (req.vma_bytes > w->dev->vma_len)
			return bad_reply(w, "more VMA bytes than the buffer holds",
					 req.vma_bytes);
		if (req.nr_runs && (req.run_size < RUN_SIZE_MIN || req.run_size % 8 ||
				    req.nr_runs > w->dev->run_len / req.run_size))
			return bad_reply(w, "a bad run_size or nr_runs", req.run_size);
		if (req.nr_pfns > PFN_BUF_SIZE / sizeof(uint64_t) ||
		    (req.nr_pfns && !(w->flags & MEMWALK_SNAP_PFN_LIST)))
			return bad_reply(w, "more PFNs than the buffer holds", req.nr_pfns);
		if (req.walk_end & (snap->page_size - 1))
			return bad_reply(w, "a walk_end that is not page aligned",
					 req.walk_end);
		if (!walk_done(w, req.walk_end) &&
		    (req.walk_end <= start ||
		     (w->opts->end && req.walk_end > w->opts->end)))
			return bad_reply(w, "a walk_end that does not advance or overshoots",
					 req.walk_end);

		snap->cost.calls++;
		snap->cost.lock_drops += req.lock_drops;
		/*
		 * The module says when it hid PFNs and swap offsets, or
		 * withheld the folio state asked for (lab mode).
		 */
		if (req.flags & MEMWALK_SNAP_NO_PFN)
			snap->flags |= MEMWALK_SNAP_NO_PFN;
		if (!(req.flags & MEMWALK_SNAP_FOLIO))
			snap->flags &= ~MEMWALK_SNAP_FOLIO;
		snap->cost.total_lock_ns += req.total_lock_ns;
		if (req.max_lock_ns > snap->cost.max_lock_ns)
			snap->cost.max_lock_ns = req.max_lock_ns;

		ret = take_vmas(w, snap, req.vma_bytes);
		if (ret || w->changed)
			return ret;
		ret = take_runs(w, snap, req.nr_runs, req.run_size, req.nr_pfns);
		if (ret)
			return ret;
		if (walk_done(w, req.walk_end))
			return 0;
		start = req.walk_end;
	}
}

static void reset_vmas(struct mw_snapshot *snap)
{
	size_t i;

	for (i = 0; i < snap->nr_vmas; i++) {
		free(snap->vmas[i].name);
		free(snap->vmas[i].runs);
	}
	snap->nr_vmas = 0;	/* the cost of every attempt stays counted */
}

static int fill_header(struct walk *w, struct mw_snapshot *snap)
{
	const struct memwalk_info *info = &w->dev->info;
	const struct mw_collect_opts *opts = w->opts;
	struct timespec ts;

	snap->page_size = 1ULL << info->page_shift;
	snap->pgtable_levels = info->pgtable_levels;
	snap->pid = opts->pid;
	snap->range_start = opts->start;
	snap->range_end = opts->end;
	snap->flags = MEMWALK_SNAP_VMAS | MEMWALK_SNAP_PAGES |
		      mw_collect_mode(opts) | (w->flags & MEMWALK_SNAP_NO_ACCESSED);
	if (opts->bare)
		return 0;
	clock_gettime(CLOCK_REALTIME, &ts);
	snap->time_ns = (uint64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
	snap->generator = mw_strdup(MW_PROG " " MEMWALK_CLIENT_VERSION);
	snap->module_version = mw_strdup(info->module_version);
	snap->uapi_version = info->uapi_version;
	snap->release = mw_strdup(info->release);
	snap->machine = mw_strdup(info->machine);
	snap->comm = read_comm(opts->pid);
	if (!snap->generator || !snap->module_version || !snap->release ||
	    !snap->machine || !snap->comm || mw_snapshot_set_host(snap))
		return out_of_memory(w);
	return 0;
}

/* The device's buffers, allocated for its first snapshot. */
static int get_buffers(struct walk *w)
{
	struct mw_device *dev = w->dev;

	if (!dev->vma_buf) {
		dev->vma_len = VMA_BUF_SIZE;
		dev->vma_buf = malloc(dev->vma_len);
	}
	if (!dev->run_buf) {
		dev->run_len = RUN_BUF_SIZE;
		dev->run_buf = malloc(dev->run_len);
	}
	if ((w->flags & MEMWALK_SNAP_PFN_LIST) && !dev->pfn_buf)
		dev->pfn_buf = malloc(PFN_BUF_SIZE);
	if (!dev->vma_buf || !dev->run_buf ||
	    ((w->flags & MEMWALK_SNAP_PFN_LIST) && !dev->pfn_buf))
		return out_of_memory(w);
	return 0;
}

int mw_collect(struct mw_device *dev, const struct mw_collect_opts *opts,
	       struct mw_snapshot **snapp, struct mw_error *err)
{
	struct walk w = { .dev = dev, .err = err, .opts = opts };
	const struct memwalk_info *info = &dev->info;
	struct mw_snapshot *snap = NULL;
	unsigned int attempt;
	char msg[256];
	int ret;

	*snapp = NULL;
	if (!(info->features & MEMWALK_FEAT_SNAPSHOT))
		return mw_error_set(err, -EOPNOTSUPP,
				    "the memwalk module (version %s) cannot take snapshots: it lacks the 'snapshot' feature; upgrade it",
				    info->module_version);
	if (info->page_shift < 10 || info->page_shift > 30 ||
	    info->pgtable_levels < 2 || info->pgtable_levels > 5)
		return mw_error_set(err, -EPROTO,
				    "MEMWALK_IOC_INFO reports page_shift %u and %u paging levels: not usable",
				    info->page_shift, info->pgtable_levels);
	w.flags = MEMWALK_SNAP_VMAS | MEMWALK_SNAP_PAGES |
		  mw_collect_mode(opts);
	if (opts->no_accessed && (info->features & MEMWALK_FEAT_NO_ACCESSED))
		w.flags |= MEMWALK_SNAP_NO_ACCESSED;
	/* A module of uapi version 1 knows neither PFN lists nor their fields. */
	w.req_size = MEMWALK_SNAPSHOT_SIZE_VER0;
	if (info->uapi_version >= 2) {
		w.req_size = sizeof(struct memwalk_snapshot);
		w.flags |= MEMWALK_SNAP_PFN_LIST;
	}
	ret = get_buffers(&w);
	if (ret)
		return ret;
	snap = mw_snapshot_new();
	ret = snap ? fill_header(&w, snap) : out_of_memory(&w);
	for (attempt = 0; !ret && attempt < MAX_ATTEMPTS; attempt++) {
		w.changed = false;
		reset_vmas(snap);
		ret = walk(&w, snap);
		if (!ret && !w.changed)
			break;
	}
	if (!ret && w.changed)
		ret = mw_error_set(err, -EAGAIN,
				   "snapshot of pid %d: its address space changed during each of %d attempts; try a smaller --range",
				   opts->pid, MAX_ATTEMPTS);
	if (!ret)
		for (size_t i = 0; i < snap->nr_vmas; i++)
			mw_vma_trim(&snap->vmas[i]);
	if (!ret && !mw_snapshot_check(snap, msg, sizeof(msg)))
		ret = mw_error_set(err, -EPROTO,
				   "snapshot of pid %d: the module returned an inconsistent snapshot: %s",
				   opts->pid, msg);
	free(w.call_vmas);
	if (ret) {
		mw_snapshot_free(snap);
		return ret;
	}
	*snapp = snap;
	return 0;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * A fake memwalk device for host tests, linked into memwalk-client-fake in
 * place of lib/device-sys.c (the system calls): it serves the snapshot in $MW_FAKE_SNAPSHOT (a JSON
 * file) through MEMWALK_IOC_SNAPSHOT and MEMWALK_IOC_TRANSLATE the way
 * uapi/linux/memwalk.h describes them, so that the client's call loop,
 * merging, buffer growth and error paths run without the module.
 *
 *   MW_FAKE_SNAPSHOT=FILE   what to serve; unset: the module is not loaded
 *                           (open fails with ENOENT)
 *   MW_FAKE_SNAPSHOT=A:B:C  a sequence: A for the first snapshot, B for the
 *                           next (a new walk from the start), ...; after
 *                           the last, ESRCH, as if the target exited
 *   MW_FAKE_MAX_PAGES=N     at most N pages per call (runs are cut)
 *   MW_FAKE_MIN_BUF=BYTES   ENOSPC while the VMA buffer is smaller
 *   MW_FAKE_ERRNO=NAME      SNAPSHOT and TRANSLATE fail with this errno
 *   MW_FAKE_CHANGE=once|always  the 2nd call of an attempt reports its
 *                           first VMA one page longer (a changed layout)
 *   MW_FAKE_FEATURES=N      feature bits of MEMWALK_IOC_INFO
 *   MW_FAKE_LAB=1           PFNs hidden, as for a lab-mode opener
 *   MW_FAKE_UAPI=N          the uapi version MEMWALK_IOC_INFO reports (1: a
 *                           module without PFN lists)
 *   MW_FAKE_WALKS=FILE      a line appended per walk: the flags it asked for
 * MEMWALK_IOC_PHYS: tests/fake-phys.c.
 * Each call reports 1 lock drop and holds of 1.5 us times its number.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "device.h"
#include "memwalk-client.h"
#include "snapjson.h"
#include "tests/fake-phys.h"

#define USER_TOP	0x7ffffffff000ULL

static struct mw_snapshot *fake;
static unsigned int calls, attempt_calls;
static uint64_t last_start;
static bool changed_once;
static unsigned int seq_next;	/* the sequence's next file */
static bool seq_done;		/* past its last: the target exited */

/* File number @n of $MW_FAKE_SNAPSHOT (a list split at ':') into @buf. */
static bool seq_file(unsigned int n, char *buf, size_t len)
{
	const char *p = getenv("MW_FAKE_SNAPSHOT");

	for (; n && p; n--) {
		p = strchr(p, ':');
		p = p ? p + 1 : NULL;
	}
	if (!p)
		return false;
	snprintf(buf, len, "%.*s", (int)strcspn(p, ":"), p);
	return true;
}

/* Serve the sequence's next file; false (said why) if it cannot. */
static bool seq_load(void)
{
	struct mw_error err;
	char file[4096];

	if (!seq_file(seq_next, file, sizeof(file))) {
		seq_done = true;
		return true;
	}
	seq_next++;
	mw_snapshot_free(fake);
	fake = NULL;
	if (mw_snapshot_load(file, &fake, &err)) {
		mw_err("fake device: %s", err.msg);
		return false;
	}
	return true;
}

int mw_sys_open(const char *path)
{
	const char *file = getenv("MW_FAKE_SNAPSHOT");
	int fd;

	(void)path;
	if (!file)
		return -ENOENT;
	if (!fake && !seq_load())
		return -EIO;
	fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	return fd;
}

void mw_sys_close(int fd)
{
	close(fd);
}

static int fake_info(struct memwalk_info *info)
{
	const char *features = getenv("MW_FAKE_FEATURES"), *uapi = getenv("MW_FAKE_UAPI");

	info->size = sizeof(*info);
	/* MW_FAKE_UAPI=1: a module that knows no PFN lists, nor their fields */
	info->uapi_version = uapi ? strtoul(uapi, NULL, 0) : MEMWALK_UAPI_VERSION;
	info->page_shift = __builtin_ctzll(fake->page_size);
	info->features = features ? strtoull(features, NULL, 0) : MEMWALK_FEAT_SNAPSHOT;
	info->pgtable_levels = fake->pgtable_levels;
	info->nr_node_ids = 1;
	snprintf(info->module_version, sizeof(info->module_version), "fake");
	snprintf(info->release, sizeof(info->release), "%s", fake->release);
	snprintf(info->machine, sizeof(info->machine), "%s", fake->machine);
	return 0;
}

static int injected_errno(void)
{
	static const struct { const char *name; int err; } names[] = {
		{ "ESRCH", ESRCH }, { "EINVAL", EINVAL }, { "EPERM", EPERM },
		{ "EACCES", EACCES }, { "ENOTTY", ENOTTY }, { "E2BIG", E2BIG },
		{ "EIO", EIO }, { "EINTR", EINTR },
	};
	const char *name = getenv("MW_FAKE_ERRNO");
	size_t i;

	for (i = 0; name && i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(names[i].name, name))
			return names[i].err;
	return 0;
}

static int fail(int err)
{
	errno = err;
	return -1;
}

static bool inject_change(void)
{
	const char *mode = getenv("MW_FAKE_CHANGE");

	if (!mode || attempt_calls != 2)
		return false;
	if (!strcmp(mode, "always"))
		return true;
	if (changed_once)
		return false;
	changed_once = true;
	return true;
}

/*
 * MEMWALK_SNAP_PFN_LIST as the module does it: the one-page present run
 * @run joins the last run written (of @nruns) as a listed PFN when they
 * are alike, adjacent in one VMA (from @vma_start, pages of @ps bytes),
 * its PFN does not follow, and that run is listed or one page long.  True
 * when taken.
 */
static bool fake_list(struct memwalk_snapshot *q, uint64_t nruns, uint64_t vma_start,
		      uint64_t ps, const struct memwalk_page_run *run, uint64_t *pfns,
		      uint64_t *npfns, uint64_t *last_pfn)
{
	struct memwalk_page_run *a;
	bool listed;
	uint64_t need;

	if (!nruns || run->nr_pages != 1 || mw_run_state(run) != MEMWALK_STATE_PRESENT)
		return false;
	a = (struct memwalk_page_run *)(uintptr_t)q->run_buf + nruns - 1;
	listed = a->flags & MEMWALK_RUN_PFN_LIST;
	need = listed ? 1 : 2;
	if ((a->flags & ~MEMWALK_RUN_PFN_LIST) != run->flags ||
	    a->folio_flags != run->folio_flags || a->mapcount != run->mapcount ||
	    a->refcount != run->refcount || a->nid != run->nid || a->order != run->order ||
	    a->lru_gen != run->lru_gen ||
	    a->start < vma_start || a->start + (uint64_t)a->nr_pages * ps != run->start ||
	    (!listed && a->nr_pages != 1) ||
	    run->pfn == (listed ? *last_pfn : a->pfn) + 1 ||
	    *npfns + need > q->pfn_buf_len / sizeof(uint64_t))
		return false;
	if (!listed) {
		pfns[*npfns] = a->pfn;
		a->pfn = (*npfns)++;
		a->flags |= MEMWALK_RUN_PFN_LIST;
	}
	pfns[(*npfns)++] = run->pfn;
	*last_pfn = run->pfn;
	a->nr_pages++;
	return true;
}

/*
 * PFNs hidden (MEMWALK_SNAP_NO_PFN, lab mode), as the module does it:
 * @run joins the last run written (of @nruns) when it follows it in the
 * same VMA (from @vma_start) and they are alike in every field.
 */
static bool fake_join(struct memwalk_snapshot *q, uint64_t nruns, uint64_t vma_start,
		      uint64_t ps, const struct memwalk_page_run *run)
{
	struct memwalk_page_run *a;

	if (!nruns)
		return false;
	a = (struct memwalk_page_run *)(uintptr_t)q->run_buf + nruns - 1;
	if (a->start < vma_start || a->start + (uint64_t)a->nr_pages * ps != run->start ||
	    a->flags != run->flags || a->pfn != run->pfn ||
	    a->folio_flags != run->folio_flags || a->mapcount != run->mapcount ||
	    a->refcount != run->refcount || a->nid != run->nid || a->order != run->order ||
	    a->lru_gen != run->lru_gen)
		return false;
	a->nr_pages += run->nr_pages;
	return true;
}

/* $MW_FAKE_WALKS: which mode each walk asked for. */
static void log_walk(uint32_t flags)
{
	const char *path = getenv("MW_FAKE_WALKS");
	FILE *fp = path ? fopen(path, "a") : NULL;

	if (!fp)
		return;
	fprintf(fp, "flags 0x%x\n", flags);
	fclose(fp);
}

static int fake_snapshot(struct memwalk_snapshot *q)
{
	const uint64_t ps = fake->page_size;
	const char *max_env = getenv("MW_FAKE_MAX_PAGES"), *min_env = getenv("MW_FAKE_MIN_BUF");
	uint64_t max_pages = max_env ? strtoull(max_env, NULL, 0) : 0;
	uint64_t end = q->end ? q->end : USER_TOP, addr = q->start, pages = 0;
	bool lab = getenv("MW_FAKE_LAB");
	uint64_t vused = 0, nruns = 0, stop = 0, npfns = 0, last_pfn = 0;
	bool list = (q->flags & MEMWALK_SNAP_PFN_LIST) && q->size >= MEMWALK_SNAPSHOT_SIZE_VER1 &&
		    !(q->flags & MEMWALK_SNAP_NO_PFN) && !lab;
	uint64_t *pfns = (uint64_t *)(uintptr_t)(list ? q->pfn_buf : 0);
	bool change = inject_change();
	size_t v, r;

	if (injected_errno())
		return fail(injected_errno());
	if (getenv("MW_FAKE_UAPI") && strtoul(getenv("MW_FAKE_UAPI"), NULL, 0) < 2 &&
	    q->size > MEMWALK_SNAPSHOT_SIZE_VER0)
		return fail(E2BIG);
	if (q->size < MEMWALK_SNAPSHOT_SIZE_VER0 || q->__reserved ||
	    (q->flags & ~(MEMWALK_SNAP_ALL | MEMWALK_SNAP_NO_PFN | MEMWALK_SNAP_ENTRY_ONLY |
			  MEMWALK_SNAP_PFN_LIST | MEMWALK_SNAP_NO_ACCESSED)) ||
	    ((q->flags & MEMWALK_SNAP_FOLIO) && (q->flags & MEMWALK_SNAP_ENTRY_ONLY)) ||
	    ((q->start | q->end) & (ps - 1)) || q->start >= end || q->end > USER_TOP)
		return fail(EINVAL);
	if (min_env && q->vma_buf_len < strtoull(min_env, NULL, 0))
		return fail(ENOSPC);
	if (calls && q->start <= last_start && strchr(getenv("MW_FAKE_SNAPSHOT"), ':')) {
		if (!seq_done && !seq_load())
			return fail(EIO);
		calls = 0;
	}
	if (seq_done)
		return fail(ESRCH);
	if (!calls || q->start <= last_start) {
		attempt_calls = 0;	/* a new attempt */
		log_walk(q->flags);
	}
	last_start = q->start;
	attempt_calls++;
	calls++;

	for (v = 0; v < fake->nr_vmas && !stop; v++) {
		const struct mw_vma *vma = &fake->vmas[v];
		size_t size = (offsetof(struct memwalk_vma, name) + strlen(vma->name) + 1 + 7) & ~7UL;
		struct memwalk_vma *rec;

		if (vma->end <= addr || vma->start >= end)
			continue;
		if (vused + size > q->vma_buf_len) {
			stop = vma->start > addr ? vma->start : addr;
			break;
		}
		rec = (struct memwalk_vma *)(uintptr_t)(q->vma_buf + vused);
		memset(rec, 0, size);
		rec->size = size;
		rec->name_kind = vma->name_kind;
		rec->start = vma->start;
		rec->end = vma->end + (change && !vused ? ps : 0);
		rec->flags = vma->flags;
		rec->pgoff = vma->pgoff;
		rec->ino = vma->ino;
		rec->dev_major = vma->dev_major;
		rec->dev_minor = vma->dev_minor;
		rec->page_shift = vma->page_shift;
		rec->name_len = strlen(vma->name);
		memcpy(rec->name, vma->name, rec->name_len);
		vused += size;

		for (r = 0; r < vma->nr_runs; r++) {
			struct memwalk_page_run run = vma->runs[r];
			uint64_t rs = run.start, re = mw_run_end(fake, &run);
			uint64_t cs = rs > addr ? rs : addr, ce = re < end ? re : end;
			bool cut = false;

			if (re <= addr)
				continue;
			if (rs >= end)
				break;
			if (max_pages && pages + (ce - cs) / ps > max_pages) {
				if (pages == max_pages) {
					stop = cs;
					break;
				}
				ce = cs + (max_pages - pages) * ps;
				cut = true;
			}
			if ((nruns + 1) * sizeof(run) > q->run_buf_len) {
				stop = cs;
				break;
			}
			if (mw_run_state(&run) != MEMWALK_STATE_MARKER)
				run.pfn += (cs - rs) / ps;
			run.start = cs;
			run.nr_pages = (ce - cs) / ps;
			if ((q->flags & MEMWALK_SNAP_NO_PFN) || lab)
				run.pfn = 0;
			if (q->flags & MEMWALK_SNAP_NO_ACCESSED)
				run.flags &= ~MEMWALK_RUN_ACCESSED;
			if (q->flags & MEMWALK_SNAP_ENTRY_ONLY)
				run.flags &= ~(MEMWALK_RUN_ANON | MEMWALK_RUN_FILE |
					       MEMWALK_RUN_SHMEM | MEMWALK_RUN_EXCLUSIVE |
					       MEMWALK_RUN_SPECIAL | MEMWALK_RUN_FOLIO_DIRTY);
			if (!(q->flags & MEMWALK_SNAP_FOLIO) || lab) {
				run.folio_flags = run.mapcount = run.refcount = 0;
				run.nid = 0;
				run.order = 0;
				run.lru_gen = -1;
			}
			if ((list && fake_list(q, nruns, vma->start, ps, &run, pfns,
					       &npfns, &last_pfn)) ||
			    (((q->flags & MEMWALK_SNAP_NO_PFN) || lab) &&
			     fake_join(q, nruns, vma->start, ps, &run))) {
				pages += run.nr_pages;
				if (cut) {
					stop = ce;
					break;
				}
				continue;
			}
			memcpy((char *)(uintptr_t)q->run_buf + nruns * sizeof(run), &run,
			       sizeof(run));
			nruns++;
			pages += run.nr_pages;
			if (cut) {
				stop = ce;
				break;
			}
		}
		if (!stop && vma->end > addr)
			addr = vma->end;
	}
	if (stop && stop <= q->start)
		return fail(ENOSPC);
	q->walk_end = stop ? stop : q->end;	/* end 0: 0 once done */
	if (lab) {				/* as the module says it */
		q->flags |= MEMWALK_SNAP_NO_PFN;
		q->flags &= ~MEMWALK_SNAP_FOLIO;
	}
	q->vma_bytes = vused;
	q->nr_runs = nruns;
	if (q->size >= MEMWALK_SNAPSHOT_SIZE_VER1)
		q->nr_pfns = npfns;
	if (npfns && getenv("MW_FAKE_TELL_LISTS"))
		fprintf(stderr, "fake-device: %llu PFNs listed\n", (unsigned long long)npfns);
	q->run_size = sizeof(struct memwalk_page_run);
	q->lock_drops = 1;
	q->max_lock_ns = 1500ULL * calls;
	q->total_lock_ns = 1500ULL * calls;
	return 0;
}

/* An x86-64 entry for a run's page, as the kernel would hold it. */
static uint64_t leaf_entry(const struct memwalk_page_run *r, uint64_t pfn)
{
	uint64_t e;

	if (mw_run_state(r) != MEMWALK_STATE_PRESENT) {
		/* swap format: type in bits 59-63, offset inverted from bit 9 */
		return (~pfn << 14 >> 5) | ((uint64_t)mw_run_swap_type(r) << 59) |
		       (r->flags & MEMWALK_RUN_SOFT_DIRTY ? 1ULL << 1 : 0);
	}
	e = pfn << 12 | 1;
	if (r->flags & MEMWALK_RUN_WRITE)
		e |= 1ULL << 1;
	if (r->flags & MEMWALK_RUN_USER)
		e |= 1ULL << 2;
	if (r->flags & MEMWALK_RUN_ACCESSED)
		e |= 1ULL << 5;
	if (r->flags & MEMWALK_RUN_DIRTY)
		e |= 1ULL << 6;
	if (mw_run_level(r) != MEMWALK_LEVEL_PTE)
		e |= 1ULL << 7;
	if (r->flags & MEMWALK_RUN_SOFT_DIRTY)
		e |= 1ULL << 11;
	if (r->flags & MEMWALK_RUN_NX)
		e |= 1ULL << 63;
	return e;
}

static int fake_translate(struct memwalk_translate *t)
{
	static const unsigned int shift[] = { 39, 39, 30, 21, 12 };
	const struct memwalk_page_run *run = NULL;
	const struct mw_vma *vma = NULL;
	uint64_t table = 0x1000000, pfn = 0;
	unsigned int level, leaf = MEMWALK_PGT_PTE;
	size_t v, r;

	if (injected_errno())
		return fail(injected_errno());
	if (t->size < MEMWALK_TRANSLATE_SIZE_VER0 || t->flags)
		return fail(EINVAL);
	for (v = 0; v < fake->nr_vmas; v++) {
		if (t->addr < fake->vmas[v].start || t->addr >= fake->vmas[v].end)
			continue;
		vma = &fake->vmas[v];
		for (r = 0; r < vma->nr_runs; r++)
			if (t->addr >= vma->runs[r].start &&
			    t->addr < mw_run_end(fake, &vma->runs[r]))
				run = &vma->runs[r];
	}
	if (!vma) {		/* outside every VMA nothing is walked */
		t->nr_levels = 0;
		memset(&t->page, 0, sizeof(t->page));
		t->page.lru_gen = -1;
		t->vma_start = t->vma_end = 0;
		return 0;
	}
	if (run) {
		pfn = run->pfn + (t->addr - run->start) / fake->page_size;
		if (mw_run_level(run) == MEMWALK_LEVEL_PMD)
			leaf = MEMWALK_PGT_PMD;
		else if (mw_run_level(run) == MEMWALK_LEVEL_PUD)
			leaf = MEMWALK_PGT_PUD;
	}
	t->nr_levels = 0;
	for (level = MEMWALK_PGT_PGD; level <= leaf; level++) {
		struct memwalk_level *l = &t->levels[t->nr_levels];

		if (level == MEMWALK_PGT_P4D && fake->pgtable_levels < 5)
			continue;
		t->nr_levels++;
		l->level = level;
		l->index = (t->addr >> shift[level]) & 511;
		l->table_pa = table;
		table += 0x1000;
		if (level < leaf) {
			l->entry = table | 0x67;	/* P RW US A D */
			continue;
		}
		if (!run) {
			l->entry = 0;
			break;
		}
		l->entry = leaf_entry(run, level == MEMWALK_PGT_PMD ? pfn & ~511ULL : pfn);
	}
	memset(&t->page, 0, sizeof(t->page));
	if (run) {
		t->page = *run;
		t->page.start = t->addr & ~(fake->page_size - 1);
		t->page.pfn = pfn;
		t->page.nr_pages = 1;
	}
	t->vma_start = vma ? vma->start : 0;
	t->vma_end = vma ? vma->end : 0;
	return 0;
}

static int fake_ioctl(unsigned long request, void *arg)
{
	switch (request) {
	case MEMWALK_IOC_INFO:
		return fake_info(arg);
	case MEMWALK_IOC_SNAPSHOT:
		return fake_snapshot(arg);
	case MEMWALK_IOC_TRANSLATE:
		return fake_translate(arg);
	case MEMWALK_IOC_PHYS:
		return mw_fake_phys(arg, injected_errno());
	default:
		return fail(ENOTTY);
	}
}

int mw_sys_ioctl(int fd, unsigned long request, void *arg)
{
	(void)fd;
	return fake_ioctl(request, arg) < 0 ? -errno : 0;
}

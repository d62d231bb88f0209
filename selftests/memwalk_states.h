/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The states fixture, shared by the suites that compare memwalk with the
 * kernel's own answers on memwalk_target's known states (memwalk_states.c:
 * region by region; memwalk_states_oracle.c: the whole process).  Include
 * after kselftest_harness.h, from one file per program.
 *
 * Every test runs in every snapshot mode, a FIXTURE_VARIANT each, and
 * asserts what that mode must show:
 *
 *   full        MEMWALK_SNAP_ALL as root: PFNs, run flags from the page,
 *               folio state;
 *   no_folio    MEMWALK_SNAP_VMAS | PAGES as root: the same without folio
 *               state (the PTE-only walk);
 *   entry_only  ... | MEMWALK_SNAP_ENTRY_ONLY: the entries alone (no ANON,
 *               FILE, SHMEM, EXCLUSIVE, ... and no shmem pages in swap);
 *   lab         MEMWALK_SNAP_ALL asked on an fd an unprivileged user
 *               opened (module loaded with lab_mode=1), of a target of
 *               that user: PFNs and swap offsets 0, no folio state.
 *
 * lab_mode is a read-only module parameter, fixed at insmod, so the lab
 * variant cannot share a module load with the others.  Rather than SKIP
 * half the variants in each of selftests.sh's two loads (a skip count
 * that says nothing about the kernel), main() runs the variants that fit
 * the loaded module: lab_mode=1 the lab ones, else all the others.  The
 * harness this suite builds with (6.1's) has no variant filter, so the
 * variant list is pruned before it runs; the plan line counts what runs.
 * A new variant runs in one of the two passes whatever its name.
 *
 * The unprivileged side is per fixture: the lab fd is opened by uid
 * MW_NOBODY (mw_open_as(); memwalk decides access at open from the
 * opener's credentials) and the target runs as that user, while the test
 * itself stays root to read the oracles (pagemap with PFNs, kpageflags).
 * Why not drop privileges for the whole test: the oracles are root's.
 */
#ifndef MEMWALK_STATES_H
#define MEMWALK_STATES_H

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <linux/memwalk.h>

#include "memwalk_labmode.h"
#include "memwalk_snapshot_lib.h"
#include "memwalk_util.h"

#define DEV		MEMWALK_DEVICE_PATH
#define LAB_PARAM	"/sys/module/memwalk/parameters/lab_mode"
#define USE_ZERO_PAGE	"/sys/kernel/mm/transparent_hugepage/use_zero_page"
#define VMA_BUF		(1UL << 20)
#define RUN_BUF		(8UL << 20)
#define HPAGE		(2UL << 20)
#define MW_UNUSED	__attribute__((unused))

FIXTURE(states) {
	int fd;			/* the variant's: the unprivileged user's in lab */
	int root_fd;		/* root's, for the full answer the tests derive from */
	struct memwalk_info info;
	struct mw_target t;
	char disk[160];		/* --disk of the target, or "" */
};

FIXTURE_VARIANT(states) {
	uint32_t flags;		/* what the snapshot asks for */
	bool pfns;		/* PFNs and swap offsets shown */
	bool folio;		/* folio state: kpageflags bits, counts, order, nid */
	bool page;		/* run flags from the struct page, shmem pages in swap */
	bool lab;		/* unprivileged opener and target (lab_mode=1) */
};

FIXTURE_VARIANT_ADD(states, full) {
	.flags = MEMWALK_SNAP_ALL, .pfns = true, .folio = true, .page = true,
};

FIXTURE_VARIANT_ADD(states, no_folio) {
	.flags = MEMWALK_SNAP_VMAS | MEMWALK_SNAP_PAGES, .pfns = true, .page = true,
};

FIXTURE_VARIANT_ADD(states, entry_only) {
	.flags = MEMWALK_SNAP_VMAS | MEMWALK_SNAP_PAGES | MEMWALK_SNAP_ENTRY_ONLY,
	.pfns = true,
};

/* Asks for everything; gets what pagemap would show the user. */
FIXTURE_VARIANT_ADD(states, lab) {
	.flags = MEMWALK_SNAP_ALL, .page = true, .lab = true,
};

/* Mismatches of single pages: the first few logged, the rest counted. */
static struct mw_logcap page_cap;

static bool lab_loaded(void)
{
	return mw_lab_loaded();
}

/* A directory of the disk file system the unprivileged target may write. */
static int lab_disk_dir(char *dir, size_t len)
{
	snprintf(dir, len, "%s/memwalk-lab", mw_disk_dir());
	if (mkdir(dir, 0755) && errno != EEXIST)
		return errno;
	return chown(dir, MW_NOBODY, MW_NOBODY) ? errno : 0;
}

/*
 * One target for the whole program, started by main() before the tests
 * (as root, or as the unprivileged user in the lab pass) and stopped:
 * every test only reads it (snapshots, pagemap, kpageflags, smaps,
 * move_pages() queries), so each sees the same quiet states without
 * building them again.
 */
static struct mw_target states_target = { .pid = -1, .to = -1, .from = -1 };
static char states_disk[160];		/* --disk of the target, or "" */
static struct mw_why states_why;	/* why it could not start */
static int states_err = -1;

static void states_target_stop(void)
{
	mw_target_kill(&states_target);
}

static void states_target_start(bool lab)
{
	const struct rlimit memlock = { 64 << 20, 64 << 20 };
	const char *disk = NULL;

	if (mw_disk_dir() && !lab)
		disk = mw_disk_dir();
	if (mw_disk_dir() && lab) {
		states_err = lab_disk_dir(states_disk, sizeof(states_disk));
		if (states_err) {
			mw_why_set(&states_why, "%s: %s", states_disk, strerror(states_err));
			return;
		}
		disk = states_disk;
	}
	if (disk && disk != states_disk)
		snprintf(states_disk, sizeof(states_disk), "%s", disk);
	/* What root's target does for itself: mlock() and the huge zero page. */
	if (lab && (setrlimit(RLIMIT_MEMLOCK, &memlock) ||
		    (!access(USE_ZERO_PAGE, F_OK) && mw_write_file(USE_ZERO_PAGE, "1")))) {
		states_err = errno;
		mw_why_set(&states_why, "RLIMIT_MEMLOCK, %s: %s", USE_ZERO_PAGE,
			   strerror(states_err));
		return;
	}
	states_err = mw_states_start(&states_target, lab ? MW_NOBODY : 0, disk, &states_why);
	atexit(states_target_stop);
}

FIXTURE_SETUP(states)
{
	struct mw_why why;

	self->fd = self->root_fd = -1;
	ASSERT_EQ(0, geteuid()) TH_LOG("these tests need root");
	ASSERT_EQ(variant->lab, lab_loaded())
		TH_LOG("the %s variant with %s %s: main() runs only the variants of the loaded module",
		       variant->lab ? "lab" : "root", LAB_PARAM, lab_loaded() ? "Y" : "N");
	self->root_fd = mw_dev_open(&self->info, &why);
	ASSERT_LE(0, self->root_fd) TH_LOG("%s", why.msg);
	self->fd = mw_open_as(variant->lab ? MW_NOBODY : 0, DEV, O_RDONLY, &why);
	ASSERT_LE(0, self->fd) TH_LOG("%s", why.msg);
	ASSERT_EQ(0, states_err) TH_LOG("the states target: %s", states_why.msg);
	self->t = states_target;
	snprintf(self->disk, sizeof(self->disk), "%s", states_disk);
}

FIXTURE_TEARDOWN(states)
{
	MW_LOG_REST(&page_cap, "page mismatches");
	if (self->fd >= 0)
		close(self->fd);
	if (self->root_fd >= 0)
		close(self->root_fd);
}

#define REGION(name) MW_REGION(&self->t, name)

static MW_UNUSED void snap_in(struct __test_metadata *_metadata, int fd, pid_t pid,
			      uint32_t flags, struct mw_snap *s)
{
	struct mw_why why;

	ASSERT_EQ(0, mw_snapshot(fd, pid, 0, 0, flags, VMA_BUF, RUN_BUF, s, &why))
		TH_LOG("snapshot of %d with flags %#x: %s", pid, flags, why.msg);
}

/* The variant's snapshot of the whole target. */
#define SNAP_MODE(s) snap_in(_metadata, self->fd, self->t.pid, variant->flags, s)
/* Root's full snapshot, what the variant's answer derives from. */
#define SNAP_FULL(s) snap_in(_metadata, self->root_fd, self->t.pid, MEMWALK_SNAP_ALL, s)

static MW_UNUSED bool user_vma(const struct mw_vma *v)
{
	return v->rec.start < mw_task_size;
}

/*
 * @r of the full answer as the variant must show it: PFNs 0 where hidden,
 * no folio state, no run flags from the page (and the huge zero page not
 * told apart) in entry-only mode.  Shmem pages in swap, which no entry
 * shows, are not there at all in entry-only mode: false then.
 */
static MW_UNUSED bool run_as_mode(const FIXTURE_VARIANT(states) *variant,
				  struct memwalk_page_run *r)
{
	if (!variant->page) {
		if (mw_run_state(r) == MEMWALK_STATE_SHMEM_SWAP)
			return false;
		r->flags &= ~MW_RUN_FROM_PAGE;
		if (mw_run_level(r) != MEMWALK_LEVEL_PTE)
			r->flags &= ~MEMWALK_RUN_ZERO;
	}
	if (!variant->pfns)
		r->pfn = 0;
	if (!variant->folio) {
		r->folio_flags = 0;
		r->mapcount = 0;
		r->refcount = 0;
		r->nid = 0;
		r->order = 0;
		r->lru_gen = -1;
	}
	return true;
}

/* What snapshot flags the call must return in the variant. */
static MW_UNUSED uint32_t flags_returned(const FIXTURE_VARIANT(states) *variant)
{
	uint32_t f = variant->flags;

	if (!variant->folio)
		f &= ~MEMWALK_SNAP_FOLIO;
	if (!variant->pfns)
		f |= MEMWALK_SNAP_NO_PFN;
	return f;
}

/* ---- one region as memwalk (in the variant's mode) and pagemap see it ---- */

struct rview {
	const struct mw_region *reg;
	size_t n;
	struct memwalk_page_run *page;	/* nr_pages 0: no entry */
	uint64_t *pm;			/* pagemap, read by root: PFNs shown */
	const struct mw_vma *vma;	/* the VMA holding the region's start */
	struct mw_snap s;
};

/* A per-page expectation: failures beyond MW_LOG_FIRST only counted. */
#define PAGE_EXPECT(cond, rv, i) do {					\
	char __b[256];							\
	MW_EXPECT_CAPPED(&page_cap, cond, "%s page %zu: pagemap %#llx, %s", \
			 (rv)->reg->name, (size_t)(i),			\
			 (unsigned long long)(rv)->pm[i],		\
			 mw_run_str(&(rv)->page[i], __b, sizeof(__b)));	\
} while (0)

/*
 * What every mode must show of every page, whatever its state: PFNs
 * pagemap's or 0 where hidden, folio state only with MEMWALK_SNAP_FOLIO
 * (root's), run flags from the page only where the page is read.
 */
static MW_UNUSED void check_page_in_mode(struct __test_metadata *_metadata,
					 const FIXTURE_VARIANT(states) *variant,
					 const struct rview *rv, size_t i)
{
	const struct memwalk_page_run *p = &rv->page[i];
	uint64_t pm = rv->pm[i];

	if (!p->nr_pages)
		return;
	if (!variant->pfns)
		PAGE_EXPECT(p->pfn == 0, rv, i);
	else if (mw_run_state(p) == MEMWALK_STATE_PRESENT && (pm & PM_PRESENT))
		PAGE_EXPECT(p->pfn == (pm & PM_PFN_MASK), rv, i);
	else if (mw_run_state(p) == MEMWALK_STATE_SWAP && (pm & PM_SWAP))
		PAGE_EXPECT(p->pfn == (pm & PM_PFN_MASK) >> PM_SWAP_TYPE_BITS, rv, i);
	if (!variant->folio)
		PAGE_EXPECT(mw_folio_hidden(p), rv, i);
	if (!variant->page) {
		PAGE_EXPECT(!(p->flags & MW_RUN_FROM_PAGE), rv, i);
		PAGE_EXPECT(mw_run_state(p) != MEMWALK_STATE_SHMEM_SWAP, rv, i);
	}
}

static MW_UNUSED void rview_get(struct __test_metadata *_metadata,
				const FIXTURE_VARIANT(states) *variant, int fd, pid_t pid,
				const struct mw_region *reg, struct rview *rv)
{
	struct memwalk_page_run *pages;
	size_t nr, i;

	memset(rv, 0, sizeof(*rv));
	rv->reg = reg;
	rv->n = (reg->end - reg->start) >> MW_PAGE_SHIFT;
	snap_in(_metadata, fd, pid, variant->flags, &rv->s);
	EXPECT_EQ(flags_returned(variant), rv->s.flags);
	rv->vma = mw_snap_vma(&rv->s, reg->start);
	ASSERT_NE(NULL, rv->vma) TH_LOG("no VMA record at region %s", reg->name);
	rv->page = calloc(rv->n, sizeof(*rv->page));
	rv->pm = calloc(rv->n, sizeof(*rv->pm));
	ASSERT_NE(NULL, rv->page);
	ASSERT_NE(NULL, rv->pm);
	ASSERT_EQ(0, mw_pagemap_read(pid, reg->start, rv->n, rv->pm));
	pages = mw_runs_expand(rv->s.runs, rv->s.nr_runs, &nr);
	ASSERT_NE(NULL, pages);
	for (i = 0; i < nr; i++)
		if (pages[i].start >= reg->start && pages[i].start < reg->end)
			rv->page[(pages[i].start - reg->start) >> MW_PAGE_SHIFT] = pages[i];
	free(pages);
	for (i = 0; i < rv->n; i++)
		check_page_in_mode(_metadata, variant, rv, i);
}

#define RVIEW(name, rv) rview_get(_metadata, variant, self->fd, self->t.pid, REGION(name), rv)

static MW_UNUSED void rview_free(struct rview *rv)
{
	free(rv->page);
	free(rv->pm);
	mw_snap_free(&rv->s);
}

static MW_UNUSED bool kpf_has(uint64_t pfn, unsigned int bit)
{
	uint64_t kpf = 0;

	return !mw_kpageflags(pfn, &kpf) && (kpf & (1ULL << bit));
}

/* Only the variants that fit the loaded module (memwalk_labmode.h). */
#define STATES_HARNESS_MAIN MW_LAB_HARNESS_MAIN(states, states_target_start)

#endif /* MEMWALK_STATES_H */

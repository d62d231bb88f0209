// SPDX-License-Identifier: GPL-2.0
/*
 * The requests of MEMWALK_IOC_SNAPSHOT and MEMWALK_IOC_TRANSLATE beyond the
 * plain whole-process snapshot (the states suites compare that in every
 * mode), on memwalk_target's states as root: the same answer twice,
 * nothing written, VMAs or pages alone, subranges, resumption with tiny
 * buffers, PFN lists standing for plain runs, translations level by level
 * against pagemap, and debugfs' maps against /proc/PID/maps.
 *
 * Needs root and the module loaded.  Environment: MEMWALK_TMPFS,
 * MEMWALK_DISK, MEMWALK_TARGET (memwalk_snapshot_lib.h).
 */
#include "kselftest_harness.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/memwalk.h>

#include "memwalk_arch.h"
#include "memwalk_idle.h"
#include "memwalk_snapshot_lib.h"
#include "memwalk_util.h"

#define DEV		MEMWALK_DEVICE_PATH
#define DEBUGFS_DIR	"/sys/kernel/debug/memwalk"
#define VMA_BUF		(1UL << 20)
#define RUN_BUF		(8UL << 20)

FIXTURE(walk) {
	int fd;
	struct memwalk_info info;
	struct mw_target t;
};

FIXTURE_SETUP(walk)
{
	struct mw_why why;

	self->t.pid = -1;
	self->t.to = self->t.from = -1;
	ASSERT_EQ(0, geteuid()) TH_LOG("these tests need root");
	self->fd = mw_dev_open(&self->info, &why);
	ASSERT_LE(0, self->fd) TH_LOG("%s", why.msg);
	ASSERT_EQ(0, mw_states_start(&self->t, 0, mw_disk_dir(), &why)) TH_LOG("%s", why.msg);
}

FIXTURE_TEARDOWN(walk)
{
	mw_target_kill(&self->t);
	if (self->fd >= 0)
		close(self->fd);
}

#define REGION(name) MW_REGION(&self->t, name)

static void snap_all(struct __test_metadata *_metadata, int fd, pid_t pid,
		     uint32_t flags, struct mw_snap *s)
{
	struct mw_why why;

	ASSERT_EQ(0, mw_snapshot(fd, pid, 0, 0, flags, VMA_BUF, RUN_BUF, s, &why))
		TH_LOG("snapshot of %d: %s", pid, why.msg);
}

static bool kpf_has(uint64_t pfn, unsigned int bit)
{
	uint64_t kpf = 0;

	return !mw_kpageflags(pfn, &kpf) && (kpf & (1ULL << bit));
}

/* -- the same answer, asked differently --------------------------------------- */

/* Both snapshots' pages, one by one: the same. */
static void compare_pages(struct __test_metadata *_metadata, const struct mw_snap *a,
			  const struct mw_snap *b)
{
	struct memwalk_page_run *pa, *pb;
	struct mw_logcap cap = MW_LOGCAP(MW_LOG_FIRST);
	size_t na, nb, i, bad = 0;
	char b1[256], b2[256];

	pa = mw_runs_expand(a->runs, a->nr_runs, &na);
	pb = mw_runs_expand(b->runs, b->nr_runs, &nb);
	ASSERT_NE(NULL, pa);
	ASSERT_NE(NULL, pb);
	ASSERT_EQ(na, nb);
	for (i = 0; i < na; i++) {
		if (!memcmp(&pa[i], &pb[i], sizeof(pa[i])))
			continue;
		bad++;
		MW_LOG_CAPPED(&cap, "page %zu: want %s, got %s", i,
			      mw_run_str(&pa[i], b1, sizeof(b1)), mw_run_str(&pb[i], b2, sizeof(b2)));
	}
	MW_LOG_REST(&cap, "pages differ");
	EXPECT_EQ(0, bad) TH_LOG("%zu of %zu pages differ", bad, na);
	free(pa);
	free(pb);
}

/* The page at *i of @p (n long) if it maps @addr, stepping past it; else NULL. */
static const struct memwalk_page_run *page_at(const struct memwalk_page_run *p, size_t n,
					      size_t *i, uint64_t addr)
{
	if (*i < n && p[*i].start == addr)
		return &p[(*i)++];
	return NULL;
}

static bool same_page(const struct memwalk_page_run *a, const struct memwalk_page_run *b)
{
	return a == b || (a && b && !memcmp(a, b, sizeof(*a)));
}

/*
 * @mid's pages, one by one, each as @before or @after had it: a snapshot
 * taken over many calls (a long window) of a target the kernel keeps
 * changing meanwhile (LRU batches drained, the swap cache freed) matches
 * one of the two around it, page by page.
 */
static void compare_pages_between(struct __test_metadata *_metadata, const struct mw_snap *before,
				  const struct mw_snap *mid, const struct mw_snap *after)
{
	struct mw_logcap cap = MW_LOGCAP(MW_LOG_FIRST);
	struct memwalk_page_run *pb, *pm, *pa;
	size_t nb, nm, na, ib = 0, im = 0, ia = 0, bad = 0, pages = 0, changed = 0;
	char b1[256], b2[256];

	pb = mw_runs_expand(before->runs, before->nr_runs, &nb);
	pm = mw_runs_expand(mid->runs, mid->nr_runs, &nm);
	pa = mw_runs_expand(after->runs, after->nr_runs, &na);
	ASSERT_NE(NULL, pb);
	ASSERT_NE(NULL, pm);
	ASSERT_NE(NULL, pa);
	while (ib < nb || im < nm || ia < na) {
		uint64_t addr = UINT64_MAX;
		const struct memwalk_page_run *b, *m, *a;

		if (ib < nb && pb[ib].start < addr)
			addr = pb[ib].start;
		if (im < nm && pm[im].start < addr)
			addr = pm[im].start;
		if (ia < na && pa[ia].start < addr)
			addr = pa[ia].start;
		b = page_at(pb, nb, &ib, addr);
		m = page_at(pm, nm, &im, addr);
		a = page_at(pa, na, &ia, addr);
		pages++;
		changed += !same_page(b, a);
		if (same_page(m, b) || same_page(m, a))
			continue;
		bad++;
		MW_LOG_CAPPED(&cap, "%#llx: before %s, between %s", (unsigned long long)addr,
			      b ? mw_run_str(b, b1, sizeof(b1)) : "no run",
			      m ? mw_run_str(m, b2, sizeof(b2)) : "no run");
	}
	MW_LOG_REST(&cap, "pages differ from both");
	if (changed)
		TH_LOG("%zu of %zu pages changed in the window", changed, pages);
	EXPECT_EQ(0, bad) TH_LOG("%zu of %zu pages as neither snapshot around had them", bad, pages);
	free(pb);
	free(pm);
	free(pa);
}

static void compare_vmas(struct __test_metadata *_metadata, const struct mw_snap *a,
			 const struct mw_snap *b)
{
	size_t i;

	ASSERT_EQ(a->nr_vmas, b->nr_vmas);
	for (i = 0; i < a->nr_vmas; i++) {
		EXPECT_EQ(0, memcmp(&a->vmas[i].rec, &b->vmas[i].rec, sizeof(a->vmas[i].rec)))
			TH_LOG("VMA %zu at %#llx", i, (unsigned long long)a->vmas[i].rec.start);
		EXPECT_STREQ(a->vmas[i].name, b->vmas[i].name);
	}
}

TEST_F(walk, same_answer_twice)
{
	struct mw_snap a, b;

	snap_all(_metadata, self->fd, self->t.pid, MEMWALK_SNAP_ALL, &a);
	snap_all(_metadata, self->fd, self->t.pid, MEMWALK_SNAP_ALL, &b);
	compare_vmas(_metadata, &a, &b);
	compare_pages(_metadata, &a, &b);
	mw_snap_free(&a);
	mw_snap_free(&b);
}

/*
 * memwalk only reads: after snapshots and translations, pagemap (present,
 * soft-dirty, ...) and smaps (Referenced: the accessed bits; Dirty) are
 * what they were.
 */
TEST_F(walk, snapshot_writes_nothing)
{
	struct mw_smaps *before, *after;
	struct memwalk_translate t;
	size_t nb, na, i, pages = 0;
	uint64_t *pm_before, *pm_after;
	struct mw_snap s;
	int k;

	ASSERT_EQ(0, mw_smaps_read(self->t.pid, &before, &nb));
	for (i = 0; i < nb; i++)
		if (before[i].map.start < mw_task_size)
			pages += (before[i].map.end - before[i].map.start) >> MW_PAGE_SHIFT;
	pm_before = malloc(pages * 8);
	pm_after = malloc(pages * 8);
	ASSERT_NE(NULL, pm_before);
	ASSERT_NE(NULL, pm_after);
	for (i = 0, pages = 0; i < nb; i++) {
		size_t n = (before[i].map.end - before[i].map.start) >> MW_PAGE_SHIFT;

		if (before[i].map.start >= mw_task_size)
			continue;
		ASSERT_EQ(0, mw_pagemap_read(self->t.pid, before[i].map.start, n, pm_before + pages));
		pages += n;
	}

	for (k = 0; k < 3; k++) {
		snap_all(_metadata, self->fd, self->t.pid, MEMWALK_SNAP_ALL, &s);
		for (i = 0; i < s.nr_runs; i += 7)
			ASSERT_EQ(0, mw_translate(self->fd, self->t.pid, s.runs[i].start, &t));
		mw_snap_free(&s);
	}

	ASSERT_EQ(0, mw_smaps_read(self->t.pid, &after, &na));
	ASSERT_EQ(nb, na);
	for (i = 0, pages = 0; i < nb; i++) {
		size_t n = (before[i].map.end - before[i].map.start) >> MW_PAGE_SHIFT;

		EXPECT_EQ(before[i].map.start, after[i].map.start);
		EXPECT_EQ(before[i].referenced, after[i].referenced)
			TH_LOG("%llx %s", (unsigned long long)before[i].map.start, before[i].map.name);
		EXPECT_EQ(before[i].shared_dirty + before[i].private_dirty,
			  after[i].shared_dirty + after[i].private_dirty)
			TH_LOG("%llx %s", (unsigned long long)before[i].map.start, before[i].map.name);
		if (before[i].map.start >= mw_task_size)
			continue;
		ASSERT_EQ(0, mw_pagemap_read(self->t.pid, before[i].map.start, n, pm_after + pages));
		EXPECT_EQ(0, memcmp(pm_before + pages, pm_after + pages, n * 8))
			TH_LOG("pagemap of %llx %s changed", (unsigned long long)before[i].map.start,
			       before[i].map.name);
		pages += n;
	}
	free(pm_before);
	free(pm_after);
	free(before);
	free(after);
}

TEST_F(walk, flag_vmas_only)
{
	struct mw_snap a, b;

	snap_all(_metadata, self->fd, self->t.pid, MEMWALK_SNAP_ALL, &a);
	snap_all(_metadata, self->fd, self->t.pid, MEMWALK_SNAP_VMAS, &b);
	compare_vmas(_metadata, &a, &b);
	EXPECT_EQ(0, b.nr_runs);
	mw_snap_free(&a);
	mw_snap_free(&b);
}

TEST_F(walk, flag_pages_only)
{
	struct mw_snap a, b;

	snap_all(_metadata, self->fd, self->t.pid, MEMWALK_SNAP_ALL, &a);
	snap_all(_metadata, self->fd, self->t.pid, MEMWALK_SNAP_PAGES | MEMWALK_SNAP_FOLIO, &b);
	EXPECT_EQ(0, b.nr_vmas);
	compare_pages(_metadata, &a, &b);
	mw_snap_free(&a);
	mw_snap_free(&b);
}

/* A range inside VMAs: the VMAs it touches, whole, and the runs inside it. */
static void check_subrange(struct __test_metadata *_metadata, int fd, pid_t pid,
			   const struct mw_snap *all, uint64_t start, uint64_t end)
{
	struct memwalk_page_run *pa, *pb;
	size_t na, nb, i, j = 0, k = 0;
	struct mw_logcap cap = MW_LOGCAP(MW_LOG_FIRST);
	struct mw_snap s;
	struct mw_why why;
	char b[256];

	ASSERT_EQ(0, mw_snapshot(fd, pid, start, end, MEMWALK_SNAP_ALL, VMA_BUF, RUN_BUF,
				 &s, &why)) TH_LOG("%s", why.msg);
	for (i = 0; i < all->nr_vmas; i++) {
		const struct mw_vma *v = &all->vmas[i];

		if (v->rec.end <= start || v->rec.start >= end)
			continue;
		ASSERT_LT(j, s.nr_vmas);
		EXPECT_EQ(0, memcmp(&v->rec, &s.vmas[j].rec, sizeof(v->rec)));
		j++;
	}
	EXPECT_EQ(j, s.nr_vmas);
	pa = mw_runs_expand(all->runs, all->nr_runs, &na);
	pb = mw_runs_expand(s.runs, s.nr_runs, &nb);
	ASSERT_NE(NULL, pa);
	ASSERT_NE(NULL, pb);
	for (i = 0; i < na; i++) {
		if (pa[i].start < start || pa[i].start >= end)
			continue;
		ASSERT_LT(k, nb);
		MW_EXPECT_CAPPED(&cap, !memcmp(&pa[i], &pb[k], sizeof(pa[i])), "page %#llx: %s",
				 (unsigned long long)pa[i].start, mw_run_str(&pb[k], b, sizeof(b)));
		k++;
	}
	MW_LOG_REST(&cap, "pages differ");
	EXPECT_EQ(k, nb);
	EXPECT_LT(0, nb);
	free(pa);
	free(pb);
	mw_snap_free(&s);
}

TEST_F(walk, subrange_inside_vma)
{
	const struct mw_region *reg = REGION("anon_sparse");
	struct mw_snap all;

	snap_all(_metadata, self->fd, self->t.pid, MEMWALK_SNAP_ALL, &all);
	check_subrange(_metadata, self->fd, self->t.pid, &all,
		       reg->start + 5 * MW_PAGE, reg->end - 7 * MW_PAGE);
	mw_snap_free(&all);
}

/* From the middle of one PMD-mapped THP to the middle of the next region. */
TEST_F(walk, subrange_inside_thp)
{
	const struct mw_region *reg = REGION("thp");
	struct mw_snap all;

	snap_all(_metadata, self->fd, self->t.pid, MEMWALK_SNAP_ALL, &all);
	check_subrange(_metadata, self->fd, self->t.pid, &all,
		       reg->start + 100 * MW_PAGE, reg->start + 300 * MW_PAGE);
	mw_snap_free(&all);
}

TEST_F(walk, subrange_across_vmas)
{
	const struct mw_region *a = REGION("anon_touched"), *b = REGION("cow_before");
	uint64_t lo = a->start < b->start ? a->start : b->start;
	uint64_t hi = a->end > b->end ? a->end : b->end;
	struct mw_snap all;

	snap_all(_metadata, self->fd, self->t.pid, MEMWALK_SNAP_ALL, &all);
	check_subrange(_metadata, self->fd, self->t.pid, &all,
		       lo + 3 * MW_PAGE, hi - 3 * MW_PAGE);
	mw_snap_free(&all);
}

/*
 * Tiny buffers: one call per record, reproducing the one-shot answer
 * (taken before and after: the many calls take a while).
 */
static void check_resume(struct __test_metadata *_metadata, int fd, pid_t pid,
			 size_t extra_vma, size_t runs, size_t extra_run)
{
	struct mw_snap all, tiny, after;
	size_t i, max_rec = 0;
	struct mw_why why;

	snap_all(_metadata, fd, pid, MEMWALK_SNAP_ALL, &all);
	for (i = 0; i < all.nr_vmas; i++)
		if (all.vmas[i].rec.size > max_rec)
			max_rec = all.vmas[i].rec.size;
	ASSERT_EQ(0, mw_snapshot(fd, pid, 0, 0, MEMWALK_SNAP_ALL, max_rec + extra_vma,
				 runs * sizeof(struct memwalk_page_run) + extra_run,
				 &tiny, &why)) TH_LOG("%s", why.msg);
	snap_all(_metadata, fd, pid, MEMWALK_SNAP_ALL, &after);
	TH_LOG("%u calls with %zu-byte VMA and %zu-run buffers (one-shot: %u)",
	       tiny.calls, max_rec + extra_vma, runs, all.calls);
	EXPECT_LT(all.nr_runs / runs, tiny.calls);
	compare_vmas(_metadata, &all, &tiny);
	compare_pages_between(_metadata, &all, &tiny, &after);
	mw_snap_free(&all);
	mw_snap_free(&tiny);
	mw_snap_free(&after);
}

TEST_F(walk, resume_one_record_per_call)
{
	check_resume(_metadata, self->fd, self->t.pid, 0, 1, 0);
}

TEST_F(walk, resume_odd_buffer_sizes)
{
	check_resume(_metadata, self->fd, self->t.pid, 13, 3, 29);
}

/* -- PFN lists ------------------------------------------------------------------ */

#define ENTRY_ONLY_FLAGS	(MEMWALK_SNAP_VMAS | MEMWALK_SNAP_PAGES | MEMWALK_SNAP_ENTRY_ONLY)

/*
 * Listed runs stand for the same runs as without MEMWALK_SNAP_PFN_LIST
 * (mw_snapshot() checks each list and turns it back into those): the zero
 * page region (every PTE the same PFN) is listed for sure.
 */
TEST_F(walk, pfn_list_equals_plain_runs)
{
	const struct mw_region *zero = REGION("zero");
	struct mw_snap plain, listed;
	const struct memwalk_page_run *r;

	snap_all(_metadata, self->fd, self->t.pid, ENTRY_ONLY_FLAGS, &plain);
	snap_all(_metadata, self->fd, self->t.pid, ENTRY_ONLY_FLAGS | MEMWALK_SNAP_PFN_LIST,
		 &listed);
	TH_LOG("%zu runs plain; listed: %zu runs with %llu PFNs, standing for %zu",
	       plain.nr_runs, listed.nr_listed, (unsigned long long)listed.nr_pfns,
	       listed.nr_runs);
	EXPECT_EQ(0, plain.nr_listed);
	EXPECT_LT(0, listed.nr_listed);
	EXPECT_LE((zero->end - zero->start) >> MW_PAGE_SHIFT, listed.nr_pfns);
	r = mw_run_at(&listed, zero->start);
	ASSERT_NE(NULL, r);
	EXPECT_TRUE(r->flags & MEMWALK_RUN_ZERO);
	compare_vmas(_metadata, &plain, &listed);
	compare_pages(_metadata, &plain, &listed);
	EXPECT_EQ(plain.nr_runs, listed.nr_runs);
	mw_snap_free(&plain);
	mw_snap_free(&listed);
}

/*
 * Buffers of a few runs and as few PFNs: lists cut by full buffers and
 * call ends, the one-shot answer all the same.
 */
TEST_F(walk, resume_pfn_list_tiny_buffers)
{
	struct mw_snap all, tiny;
	struct mw_why why;

	snap_all(_metadata, self->fd, self->t.pid, ENTRY_ONLY_FLAGS | MEMWALK_SNAP_PFN_LIST, &all);
	ASSERT_EQ(0, mw_snapshot(self->fd, self->t.pid, 0, 0,
				 ENTRY_ONLY_FLAGS | MEMWALK_SNAP_PFN_LIST, VMA_BUF,
				 3 * sizeof(struct memwalk_page_run), &tiny, &why))
		TH_LOG("%s", why.msg);
	TH_LOG("%u calls, %zu listed runs (one-shot: %u calls, %zu listed)",
	       tiny.calls, tiny.nr_listed, all.calls, all.nr_listed);
	EXPECT_LT(all.calls, tiny.calls);
	EXPECT_LT(0, tiny.nr_listed);
	compare_vmas(_metadata, &all, &tiny);
	compare_pages(_metadata, &all, &tiny);
	mw_snap_free(&all);
	mw_snap_free(&tiny);
}

/* -- MEMWALK_IOC_TRANSLATE ------------------------------------------------------ */

static unsigned int level_shift(unsigned int level, unsigned int levels)
{
	switch (level) {
	case MEMWALK_PGT_PGD:
		return levels == 5 ? 48 : 39;
	case MEMWALK_PGT_P4D:
		return 39;
	case MEMWALK_PGT_PUD:
		return 30;
	case MEMWALK_PGT_PMD:
		return 21;
	default:
		return 12;
	}
}

/*
 * The walk is well formed: levels top down (the P4D only with 5 levels),
 * each index the address's, each table the one its parent points to.
 */
static void check_levels(struct __test_metadata *_metadata, const struct memwalk_translate *t,
			 unsigned int levels)
{
	unsigned int i, want = MEMWALK_PGT_PGD;

	ASSERT_LE(t->nr_levels, MEMWALK_MAX_LEVELS);
	for (i = 0; i < t->nr_levels; i++) {
		const struct memwalk_level *l = &t->levels[i];

		EXPECT_EQ(want, l->level) TH_LOG("level %u", i);
		EXPECT_EQ((t->addr >> level_shift(l->level, levels)) & 511, l->index)
			TH_LOG("level %u", i);
		EXPECT_NE(0, l->table_pa) TH_LOG("level %u", i);
		if (i)
			EXPECT_EQ(t->levels[i - 1].entry & MW_E_ADDR_MASK, l->table_pa)
				TH_LOG("level %u: parent entry %#llx", i,
				       (unsigned long long)t->levels[i - 1].entry);
		want = l->level + 1;
		if (want == MEMWALK_PGT_P4D && levels == 4)
			want = MEMWALK_PGT_PUD;
	}
}

/* A page mapped by a PTE: every level, and the PTE's PFN is pagemap's. */
TEST_F(walk, translate_pte_page)
{
	const struct mw_region *reg = REGION("anon_touched");
	uint64_t addr = reg->start + 3 * MW_PAGE + 123, pm;
	const struct memwalk_page_run *r;
	struct memwalk_translate t;
	const struct memwalk_level *leaf;
	struct mw_snap s;
	struct memwalk_page_run want;

	ASSERT_EQ(0, mw_translate(self->fd, self->t.pid, addr, &t));
	ASSERT_EQ(0, mw_pagemap_read(self->t.pid, addr & ~(MW_PAGE - 1), 1, &pm));
	check_levels(_metadata, &t, self->info.pgtable_levels);
	ASSERT_EQ(self->info.pgtable_levels, t.nr_levels);
	leaf = &t.levels[t.nr_levels - 1];
	EXPECT_EQ(MEMWALK_PGT_PTE, leaf->level);
	EXPECT_TRUE(leaf->entry & 1) TH_LOG("PTE %#llx not present", (unsigned long long)leaf->entry);
	EXPECT_EQ(pm & PM_PFN_MASK, MW_E_PFN(leaf->entry));
	EXPECT_EQ(reg->start, t.vma_start);
	EXPECT_EQ(reg->end, t.vma_end);

	/* The page is the snapshot's, and its bits are the PTE's. */
	snap_all(_metadata, self->fd, self->t.pid, MEMWALK_SNAP_ALL, &s);
	r = mw_run_at(&s, addr);
	ASSERT_NE(NULL, r);
	want = *r;
	want.start = addr & ~(MW_PAGE - 1);
	want.pfn += (want.start - r->start) >> MW_PAGE_SHIFT;
	want.nr_pages = 1;
	EXPECT_EQ(0, memcmp(&want, &t.page, sizeof(want)));
	EXPECT_EQ(MW_E_WRITE(leaf->entry), !!(t.page.flags & MEMWALK_RUN_WRITE));
	EXPECT_EQ(MW_E_USER(leaf->entry), !!(t.page.flags & MEMWALK_RUN_USER));
	EXPECT_EQ(MW_E_ACCESSED(leaf->entry), !!(t.page.flags & MEMWALK_RUN_ACCESSED));
	/* x86: Dirty or (6.6+) SavedDirty, see translate_dirty_is_pte_dirty. */
	EXPECT_EQ(MW_E_DIRTY(leaf->entry), !!(t.page.flags & MEMWALK_RUN_DIRTY));
	EXPECT_EQ(MW_E_NX(leaf->entry), !!(t.page.flags & MEMWALK_RUN_NX));
	mw_snap_free(&s);
}

/*
 * RUN_DIRTY is the entry's dirty state as the kernel has it (pte_dirty()):
 * since 6.6, x86 moves a write-protected PTE's hardware Dirty bit (6) to
 * the software SavedDirty bit (58; on 6.1 that bit is devmap, never set on
 * these pages), so that the read-only pages of anon_ro,
 * written before the mprotect(), are dirty in either bit; smaps counts them
 * as Dirty.
 */
TEST_F(walk, translate_dirty_is_pte_dirty)
{
	const struct mw_region *reg = REGION("anon_ro");
	struct mw_logcap cap = MW_LOGCAP(MW_LOG_FIRST);
	struct memwalk_translate t;
	struct mw_smaps *sm;
	uint64_t addr, e;
	size_t nr, i;

	for (addr = reg->start; addr < reg->end; addr += MW_PAGE) {
		ASSERT_EQ(0, mw_translate(self->fd, self->t.pid, addr, &t));
		ASSERT_EQ(self->info.pgtable_levels, t.nr_levels);
		e = t.levels[t.nr_levels - 1].entry;
		MW_EXPECT_CAPPED(&cap, MW_E_DIRTY(e),
				 "%#llx: PTE %#llx not dirty (x86: neither Dirty nor SavedDirty)",
				 (unsigned long long)addr, (unsigned long long)e);
		MW_EXPECT_CAPPED(&cap, t.page.flags & MEMWALK_RUN_DIRTY,
				 "%#llx: PTE %#llx is dirty, the run is not (flags %#x)",
				 (unsigned long long)addr, (unsigned long long)e, t.page.flags);
	}
	MW_LOG_REST(&cap, "pages wrong");
	ASSERT_EQ(0, mw_smaps_read(self->t.pid, &sm, &nr));
	for (i = 0; i < nr && sm[i].map.start != reg->start; i++)
		;
	ASSERT_LT(i, nr);
	EXPECT_EQ((reg->end - reg->start) >> 10, sm[i].private_dirty + sm[i].shared_dirty);
	free(sm);
}

/* A leaf PMD (THP, or hugetlb): one level less, PFN from the 2 MiB frame. */
static void check_pmd_leaf(struct __test_metadata *_metadata, int fd, pid_t pid,
			   unsigned int levels, uint64_t addr)
{
	struct memwalk_translate t;
	const struct memwalk_level *leaf;
	uint64_t pm;

	ASSERT_EQ(0, mw_translate(fd, pid, addr, &t));
	ASSERT_EQ(0, mw_pagemap_read(pid, addr & ~(MW_PAGE - 1), 1, &pm));
	ASSERT_TRUE(pm & PM_PRESENT);
	check_levels(_metadata, &t, levels);
	ASSERT_EQ(levels - 1, t.nr_levels);
	leaf = &t.levels[t.nr_levels - 1];
	EXPECT_EQ(MEMWALK_PGT_PMD, leaf->level);
	EXPECT_TRUE(MW_E_PMD_LEAF(leaf->entry)) TH_LOG("PMD %#llx is no leaf",
						       (unsigned long long)leaf->entry);
	EXPECT_EQ(pm & PM_PFN_MASK, ((leaf->entry & MW_E_PMD_ADDR_MASK) >> MW_PAGE_SHIFT) +
		  ((addr >> MW_PAGE_SHIFT) & 511));
	EXPECT_EQ(pm & PM_PFN_MASK, t.page.pfn);
	EXPECT_EQ(MEMWALK_LEVEL_PMD, mw_run_level(&t.page));
}

TEST_F(walk, translate_thp)
{
	const struct mw_region *reg = REGION("thp");
	uint64_t pm;

	ASSERT_EQ(0, mw_pagemap_read(self->t.pid, reg->start, 1, &pm));
	ASSERT_TRUE(kpf_has(pm & PM_PFN_MASK, MEMWALK_KPF_THP))
		TH_LOG("the MADV_HUGEPAGE fault got no THP: pagemap %#llx", (unsigned long long)pm);
	check_pmd_leaf(_metadata, self->fd, self->t.pid, self->info.pgtable_levels,
		       reg->start + 77 * MW_PAGE);
}

TEST_F(walk, translate_hugetlb)
{
	const struct mw_region *reg = REGION("hugetlb");

	check_pmd_leaf(_metadata, self->fd, self->t.pid, self->info.pgtable_levels,
		       reg->start + 300 * MW_PAGE);
}

/* A swap PTE: not present, the page a swap run with pagemap's offset. */
TEST_F(walk, translate_swap_entry)
{
	const struct mw_region *reg = REGION("swapped");
	struct memwalk_translate t;
	uint64_t pm;

	ASSERT_EQ(0, mw_translate(self->fd, self->t.pid, reg->start + 2 * MW_PAGE, &t));
	ASSERT_EQ(0, mw_pagemap_read(self->t.pid, reg->start + 2 * MW_PAGE, 1, &pm));
	ASSERT_TRUE(pm & PM_SWAP);
	check_levels(_metadata, &t, self->info.pgtable_levels);
	ASSERT_EQ(self->info.pgtable_levels, t.nr_levels);
	EXPECT_FALSE(t.levels[t.nr_levels - 1].entry & 1);
	EXPECT_NE(0, t.levels[t.nr_levels - 1].entry);
	EXPECT_EQ(MEMWALK_STATE_SWAP, mw_run_state(&t.page));
	EXPECT_EQ((pm & PM_PFN_MASK) >> PM_SWAP_TYPE_BITS, t.page.pfn);
}

/*
 * A shmem page in swap: the walk ends at a none PTE (pagemap shows none
 * too) and the page is the one the snapshot reports there.
 */
TEST_F(walk, translate_shmem_swapped)
{
	const struct mw_region *reg = REGION("shmem_swapped");
	uint64_t addr = reg->start + 3 * MW_PAGE, pm;
	const struct memwalk_page_run *r;
	struct memwalk_translate t;
	struct mw_snap s;

	ASSERT_EQ(0, mw_translate(self->fd, self->t.pid, addr, &t));
	ASSERT_EQ(0, mw_pagemap_read(self->t.pid, addr, 1, &pm));
	EXPECT_FALSE(pm & (PM_PRESENT | PM_SWAP));
	check_levels(_metadata, &t, self->info.pgtable_levels);
	ASSERT_EQ(self->info.pgtable_levels, t.nr_levels);
	EXPECT_EQ(0, t.levels[t.nr_levels - 1].entry);
	EXPECT_EQ(MEMWALK_STATE_SHMEM_SWAP, mw_run_state(&t.page));
	EXPECT_EQ(addr, t.page.start);
	EXPECT_EQ(1, t.page.nr_pages);
	snap_all(_metadata, self->fd, self->t.pid, MEMWALK_SNAP_ALL, &s);
	r = mw_run_at(&s, addr);
	ASSERT_NE(NULL, r);
	EXPECT_EQ(r->flags, t.page.flags);
	EXPECT_EQ(r->pfn + ((addr - r->start) >> MW_PAGE_SHIFT), t.page.pfn);
	mw_snap_free(&s);
}

/* In a VMA but never touched: the walk ends at a none entry. */
TEST_F(walk, translate_untouched)
{
	const struct mw_region *reg = REGION("anon_untouched");
	struct memwalk_translate t;

	ASSERT_EQ(0, mw_translate(self->fd, self->t.pid, reg->start + MW_PAGE, &t));
	check_levels(_metadata, &t, self->info.pgtable_levels);
	ASSERT_LE(1, t.nr_levels);
	EXPECT_EQ(0, t.levels[t.nr_levels - 1].entry);
	EXPECT_EQ(0, t.page.nr_pages);
	EXPECT_EQ(reg->start, t.vma_start);
	EXPECT_EQ(reg->end, t.vma_end);
}

/* Below every VMA (under mmap_min_addr): nothing walked. */
TEST_F(walk, translate_outside_vmas)
{
	struct memwalk_translate t;

	ASSERT_EQ(0, mw_translate(self->fd, self->t.pid, 0x1000, &t));
	EXPECT_EQ(0, t.nr_levels);
	EXPECT_EQ(0, t.page.nr_pages);
	EXPECT_EQ(0, t.vma_start);
	EXPECT_EQ(0, t.vma_end);
}

/* -- debugfs -------------------------------------------------------------------- */

/* memwalk/maps is /proc/PID/maps with "  mw=0x<flags> page_shift=<n>" appended. */
TEST_F(walk, debugfs_maps_equal_proc_maps)
{
	char path[64], pidstr[32], want[8192], *text, *line, *save, *suffix;
	unsigned long long mwflags;
	unsigned int shift;
	struct mw_snap s;
	size_t j = 0;
	FILE *f;

	if (access(DEBUGFS_DIR "/maps", R_OK))
		SKIP(return, "no %s/maps: kernel without debugfs (CONFIG_DEBUG_FS) or not mounted",
		     DEBUGFS_DIR);
	snprintf(pidstr, sizeof(pidstr), "%d\n", self->t.pid);
	ASSERT_EQ(0, mw_write_file(DEBUGFS_DIR "/target", pidstr));
	ASSERT_EQ(0, mw_read_file(DEBUGFS_DIR "/target", path, sizeof(path)));
	EXPECT_STREQ(pidstr, path);

	text = malloc(1 << 20);
	ASSERT_NE(NULL, text);
	ASSERT_EQ(0, mw_read_file(DEBUGFS_DIR "/maps", text, 1 << 20));
	snprintf(path, sizeof(path), "/proc/%d/maps", self->t.pid);
	f = fopen(path, "re");
	ASSERT_NE(NULL, f);
	snap_all(_metadata, self->fd, self->t.pid, MEMWALK_SNAP_VMAS, &s);

	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		suffix = strstr(line, "  mw=0x");
		ASSERT_NE(NULL, suffix) TH_LOG("line without mw=: %s", line);
		ASSERT_EQ(2, sscanf(suffix, "  mw=0x%llx page_shift=%u", &mwflags, &shift));
		*suffix = '\0';
		ASSERT_NE(NULL, fgets(want, sizeof(want), f)) TH_LOG("debugfs has more: %s", line);
		want[strcspn(want, "\n")] = '\0';
		EXPECT_STREQ(want, line);
		ASSERT_LT(j, s.nr_vmas);
		EXPECT_EQ(s.vmas[j].rec.flags, mwflags);
		EXPECT_EQ(s.vmas[j].rec.page_shift, shift);
		j++;
	}
	/* maps may go on with [vsyscall] only (a gate VMA, not in the mm). */
	while (fgets(want, sizeof(want), f))
		EXPECT_LE(mw_task_size, strtoull(want, NULL, 16)) TH_LOG("maps has more: %s", want);
	EXPECT_EQ(s.nr_vmas, j);
	fclose(f);
	free(text);
	mw_snap_free(&s);
}

/* -- the contiguous bit ------------------------------------------------------- */

#define MTHP_64K	"/sys/kernel/mm/transparent_hugepage/hugepages-64kB/enabled"
#define CONT_PAGES	16		/* arm64 CONT_PTES with 4K pages */
#define CONT_AREA	(4UL << 20)

/* The bracketed word of a THP knob ("always [inherit] madvise never"). */
static int thp_knob_get(const char *path, char *word, size_t len)
{
	char buf[128], *open, *close;

	if (mw_read_file(path, buf, sizeof(buf)))
		return -1;
	open = strchr(buf, '[');
	close = open ? strchr(open, ']') : NULL;
	if (!close || (size_t)(close - open) > len)
		return -1;
	snprintf(word, len, "%.*s", (int)(close - open - 1), open + 1);
	return 0;
}

/*
 * Whether the 16 pages from @pm[0] are one naturally aligned block of one
 * large folio, by pagemap and kpageflags alone: present, PFNs that follow
 * each other from a multiple of 16, and each page after the first a tail
 * (of the folio the first page is the head or a tail of).
 */
static bool cont_block_expected(const uint64_t *pm)
{
	uint64_t pfn0 = pm[0] & PM_PFN_MASK;
	unsigned int k;

	if (!(pm[0] & PM_PRESENT) || !pfn0 || pfn0 % CONT_PAGES ||
	    !(kpf_has(pfn0, MW_KPF_COMPOUND_HEAD) || kpf_has(pfn0, MW_KPF_COMPOUND_TAIL)))
		return false;
	for (k = 1; k < CONT_PAGES; k++)
		if (!(pm[k] & PM_PRESENT) || (pm[k] & PM_PFN_MASK) != pfn0 + k ||
		    !kpf_has(pfn0 + k, MW_KPF_COMPOUND_TAIL))
			return false;
	return true;
}

/* -- accessed bits left out ----------------------------------------------------- */

#define AD_PAGES	512

/* Neighbours of @p (@n expanded pages) that differ in more than address. */
static size_t unlike_neighbours(const struct memwalk_page_run *p, size_t n)
{
	size_t i, k = 0;

	for (i = 1; i < n; i++) {
		struct memwalk_page_run x = p[i];

		x.start = p[i - 1].start;
		k += !!memcmp(&x, &p[i - 1], sizeof(x));
	}
	return k;
}

/* Pages of @p (@n of them, expanded) with @flag. */
static size_t pages_with(const struct memwalk_page_run *p, size_t n, uint32_t flag)
{
	size_t i, k = 0;

	for (i = 0; i < n; i++)
		k += !!(p[i].flags & flag);
	return k;
}

/* Access state: the accessed bit, a folio's young and idle flags. */
#define ACCESS_FLAGS	(MEMWALK_RUN_ACCESSED | MEMWALK_RUN_FOLIO_YOUNG)
#define ACCESS_KPF	(1U << MEMWALK_KPF_IDLE)

/*
 * MEMWALK_SNAP_NO_ACCESSED: an anonymous region whose every other page was
 * read after clear_refs cleared the accessed bits, its first quarter then
 * made idle as DAMON and idle-page tracking do (accessed bits cleared, the
 * folios of those that were set marked young): smaps' Referenced, the
 * oracle, counts half of it, accessed or young.  Without the flag the
 * runs say so; with it, page by page the same but for the access state,
 * which no page has, and where PFNs are hidden one run where the pages
 * alternate without it.  In each mode whose fast paths compare raw entry
 * words (PFNs shown or hidden, listed or not, entries only).
 */
TEST_F(walk, no_accessed_merges_across_accessed_bits)
{
	static const uint32_t modes[] = {
		MEMWALK_SNAP_ALL,
		MEMWALK_SNAP_ALL | MEMWALK_SNAP_NO_PFN,
		MEMWALK_SNAP_ALL | MEMWALK_SNAP_PFN_LIST,
		ENTRY_ONLY_FLAGS,
		ENTRY_ONLY_FLAGS | MEMWALK_SNAP_NO_PFN,
		ENTRY_ONLY_FLAGS | MEMWALK_SNAP_PFN_LIST,
	};
	struct mw_logcap cap = MW_LOGCAP(MW_LOG_FIRST);
	struct memwalk_page_run *pa, *pb, *pc;
	size_t na, nb, nc, i, m, bad = 0, nr_smaps, idle = 0;
	uint64_t start, end, referenced = UINT64_MAX;
	struct mw_region quarter = { .name = "first quarter" };
	struct mw_snap a, b, c;
	struct mw_smaps *sm;
	struct mw_why why;
	char b1[256], b2[256];
	const char *how;
	char *map;
	int ret;

	ASSERT_TRUE(self->info.features & MEMWALK_FEAT_NO_ACCESSED);
	map = mmap(NULL, AD_PAGES * MW_PAGE, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, map);
	/* A kernel without THP (6.12-rt) refuses it, and has none to stop. */
	ASSERT_TRUE(!madvise(map, AD_PAGES * MW_PAGE, MADV_NOHUGEPAGE) || errno == EINVAL);
	for (i = 0; i < AD_PAGES; i++)
		map[i * MW_PAGE] = 1;
	ASSERT_EQ(0, mw_write_file("/proc/self/clear_refs", "1"));
	/*
	 * clear_refs leaves the TLB as it was, and x86 sets an accessed bit
	 * only when it fills a TLB entry: a change of protection flushes it.
	 */
	ASSERT_EQ(0, mprotect(map, AD_PAGES * MW_PAGE, PROT_NONE));
	ASSERT_EQ(0, mprotect(map, AD_PAGES * MW_PAGE, PROT_READ | PROT_WRITE));
	for (i = 0; i < AD_PAGES; i += 2)
		(void)((volatile char *)map)[i * MW_PAGE];
	start = (uint64_t)(uintptr_t)map;
	end = start + AD_PAGES * MW_PAGE;
	quarter.start = start;
	quarter.end = start + AD_PAGES / 4 * MW_PAGE;
	ret = mw_idle_make(getpid(), &quarter, &idle, &how, &why);
	if (ret == -EOPNOTSUPP)
		TH_LOG("no folio made young: %s", MW_IDLE_SKIP);
	else
		ASSERT_EQ(0, ret) TH_LOG("%s", why.msg);
	if (!ret)
		TH_LOG("%s made %zu pages of the first quarter idle", how, idle);

	ASSERT_EQ(0, mw_smaps_read(getpid(), &sm, &nr_smaps));
	for (i = 0; i < nr_smaps; i++)
		if (sm[i].map.start <= start && end <= sm[i].map.end)
			referenced = sm[i].referenced;
	free(sm);
	ASSERT_EQ(AD_PAGES / 2 * MW_PAGE / 1024, referenced)
		TH_LOG("smaps: Referenced %llu kB, not half the region", (unsigned long long)referenced);

	for (m = 0; m < ARRAY_SIZE(modes); m++) {
		ASSERT_EQ(0, mw_snapshot(self->fd, getpid(), start, end, modes[m],
					 VMA_BUF, RUN_BUF, &a, &why)) TH_LOG("%s", why.msg);
		ASSERT_EQ(0, mw_snapshot(self->fd, getpid(), start, end,
					 modes[m] | MEMWALK_SNAP_NO_ACCESSED, VMA_BUF, RUN_BUF, &b, &why))
			TH_LOG("%s", why.msg);
		ASSERT_EQ(0, mw_snapshot(self->fd, getpid(), start, end, modes[m],
					 VMA_BUF, RUN_BUF, &c, &why)) TH_LOG("%s", why.msg);
		EXPECT_TRUE(b.flags & MEMWALK_SNAP_NO_ACCESSED);
		pa = mw_runs_expand(a.runs, a.nr_runs, &na);
		pb = mw_runs_expand(b.runs, b.nr_runs, &nb);
		pc = mw_runs_expand(c.runs, c.nr_runs, &nc);
		ASSERT_NE(NULL, pa);
		ASSERT_NE(NULL, pb);
		ASSERT_NE(NULL, pc);
		ASSERT_EQ(AD_PAGES, na);
		ASSERT_EQ(AD_PAGES, nb);
		ASSERT_EQ(AD_PAGES, nc);
		/* Entry-only runs read no folio: the young ones are not told. */
		if (!(modes[m] & MEMWALK_SNAP_ENTRY_ONLY))
			EXPECT_EQ(AD_PAGES / 2, pages_with(pa, na, ACCESS_FLAGS))
				TH_LOG("mode %#x: accessed or young pages without the flag",
				       modes[m]);
		EXPECT_EQ(0, pages_with(pb, nb, ACCESS_FLAGS))
			TH_LOG("mode %#x: accessed or young pages with it", modes[m]);
		for (i = 0; i < AD_PAGES; i++) {
			EXPECT_EQ(0, pb[i].folio_flags & ACCESS_KPF);
			pa[i].flags &= ~ACCESS_FLAGS;
			pc[i].flags &= ~ACCESS_FLAGS;
			pa[i].folio_flags &= ~ACCESS_KPF;
			pc[i].folio_flags &= ~ACCESS_KPF;
			if (!memcmp(&pa[i], &pb[i], sizeof(pa[i])) ||
			    !memcmp(&pc[i], &pb[i], sizeof(pc[i])))
				continue;
			bad++;
			MW_LOG_CAPPED(&cap, "mode %#x, page %zu: want %s, got %s", modes[m], i,
				      mw_run_str(&pa[i], b1, sizeof(b1)),
				      mw_run_str(&pb[i], b2, sizeof(b2)));
		}
		/*
		 * Without PFNs the last three quarters alternate, a run a page
		 * (entry-only runs do not tell the idle quarter's young folios);
		 * without access state every page alike joins its neighbour's
		 * run (one run, but for a folio state the kernel still holds,
		 * such as a page yet in an LRU batch).
		 */
		if (modes[m] & MEMWALK_SNAP_NO_PFN) {
			EXPECT_LE(AD_PAGES / 4 * 3, a.nr_runs) TH_LOG("mode %#x", modes[m]);
			EXPECT_EQ(1 + unlike_neighbours(pb, nb), b.nr_runs)
				TH_LOG("mode %#x", modes[m]);
			EXPECT_GT(AD_PAGES / 16, b.nr_runs) TH_LOG("mode %#x", modes[m]);
		}
		TH_LOG("mode %#x: %zu runs, %zu without the accessed bits",
		       modes[m], a.nr_runs, b.nr_runs);
		free(pa);
		free(pb);
		free(pc);
		mw_snap_free(&a);
		mw_snap_free(&b);
		mw_snap_free(&c);
	}
	MW_LOG_REST(&cap, "pages differ");
	EXPECT_EQ(0, bad) TH_LOG("%zu pages differ but for the accessed bit", bad);
	munmap(map, AD_PAGES * MW_PAGE);
}

/*
 * MEMWALK_RUN_CONTIGUOUS marks exactly the entries the hardware may cache
 * as one block.  arm64 (6.9+, CONFIG_ARM64_CONTPTE) maps each naturally
 * aligned 64K block of a large anonymous folio it maps whole with the
 * contiguous bit; the oracle finds those blocks in pagemap and kpageflags.
 * Without the bit in the architecture (x86), no run of the states target
 * carries it.
 */
TEST_F(walk, contiguous_bit_marks_aligned_large_folio_blocks)
{
	struct mw_logcap cap = MW_LOGCAP(MW_LOG_FIRST);
	size_t blocks = 0, expected = 0, bad = 0, i, k;
	const struct memwalk_page_run *r;
	char saved[32], b1[256];
	uint64_t start, *pm;
	struct mw_snap s;
	char *map;

	if (!(self->info.features & MEMWALK_FEAT_CONTIGUOUS)) {
		snap_all(_metadata, self->fd, self->t.pid, MEMWALK_SNAP_ALL, &s);
		for (i = 0; i < s.nr_runs; i++)
			EXPECT_EQ(0, s.runs[i].flags & MEMWALK_RUN_CONTIGUOUS)
				TH_LOG("%s: contiguous without MEMWALK_FEAT_CONTIGUOUS",
				       mw_run_str(&s.runs[i], b1, sizeof(b1)));
		mw_snap_free(&s);
		return;
	}
	if (thp_knob_get(MTHP_64K, saved, sizeof(saved)))
		SKIP(return, "kernel without 64K multi-size THP (%s): no contpte mappings", MTHP_64K);
	ASSERT_EQ(0, mw_write_file(MTHP_64K, "always"));
	map = mmap(NULL, CONT_AREA + CONT_PAGES * MW_PAGE, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, map);
	start = ((uint64_t)(uintptr_t)map + CONT_PAGES * MW_PAGE - 1) & ~(CONT_PAGES * MW_PAGE - 1);
	for (i = 0; i < CONT_AREA; i += MW_PAGE)
		((volatile char *)(uintptr_t)start)[i] = 1;
	ASSERT_EQ(0, mw_write_file(MTHP_64K, saved));
	/* A block half unmapped is no block any more: its other half loses the bit. */
	ASSERT_EQ(0, munmap((char *)(uintptr_t)start + (2 * CONT_PAGES + CONT_PAGES / 2) * MW_PAGE,
			    CONT_PAGES / 2 * MW_PAGE));

	snap_all(_metadata, self->fd, getpid(), MEMWALK_SNAP_ALL, &s);
	pm = mw_pagemap_of(getpid(), start, start + CONT_AREA);
	ASSERT_NE(NULL, pm);
	for (i = 0; i < CONT_AREA / MW_PAGE; i += CONT_PAGES) {
		bool want = cont_block_expected(&pm[i]);

		blocks++;
		expected += want;
		for (k = i; k < i + CONT_PAGES; k++) {
			r = mw_run_at(&s, start + k * MW_PAGE);
			if (r ? !!(r->flags & MEMWALK_RUN_CONTIGUOUS) == want : !want)
				continue;
			bad++;
			MW_LOG_CAPPED(&cap, "page %#llx: %s, pagemap %#llx: contiguous %s",
				      (unsigned long long)(start + k * MW_PAGE),
				      r ? mw_run_str(r, b1, sizeof(b1)) : "no run",
				      (unsigned long long)pm[k], want ? "expected" : "not expected");
		}
	}
	MW_LOG_REST(&cap, "pages wrong");
	EXPECT_EQ(0, bad) TH_LOG("%zu pages of %zu blocks wrong", bad, blocks);
	/* A test of nothing if no block was a large folio (memory too fragmented). */
	EXPECT_LT(0, expected) TH_LOG("none of %zu 64K blocks was mapped as one large folio", blocks);
	TH_LOG("%zu of %zu 64K blocks contiguous", expected, blocks);
	free(pm);
	mw_snap_free(&s);
	munmap(map, CONT_AREA + CONT_PAGES * MW_PAGE);
}

TEST_HARNESS_MAIN

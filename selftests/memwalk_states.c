// SPDX-License-Identifier: GPL-2.0
/*
 * memwalk's answer for each state memwalk_target builds, region by region,
 * in every snapshot mode (the variants of memwalk_states.h), against
 * pagemap and kpageflags read by root: untouched, touched, sparse,
 * read-only and PROT_NONE anon; the zero page; shared anon; copy-on-write
 * before and after a write; PMD- and PTE-mapped THP and the huge zero
 * page; hugetlb, private and shared; swapped anon and shmem; mlock;
 * soft-dirty after clear_refs; page cache on tmpfs and on a disk.  Then
 * the invariants of quiet pages no /proc file states: refcount against
 * mapcount, the node, the order.
 *
 * Exactness: the target runs on CPU 0 only, drains every CPU's LRU
 * batches before it says "ready" and is then stopped (memwalk_target.c),
 * so nothing of it moves while it is compared.
 *
 * Read faults on a file mapping also map the neighbours already cached
 * (fault-around): the page-cache states allow untouched pages to be
 * mapped, clean.
 *
 * Needs root and the module loaded; runs the lab variant alone when it is
 * loaded with lab_mode=1 (memwalk_states.h).  Environment: MEMWALK_TMPFS
 * (a tmpfs directory, default /tmp), MEMWALK_DISK (a directory on a disk
 * file system; its tests are skipped without it), MEMWALK_TARGET.
 */
#include "kselftest_harness.h"

#include <sys/statfs.h>
#include <sys/syscall.h>

#include <linux/magic.h>

#include "memwalk_states.h"

/* KPF bits /proc/kpageflags has beyond the header's. */
#define KPF_PRIVATE	35

TEST_F(states, state_anon_untouched)
{
	struct rview rv;
	size_t i;

	RVIEW("anon_untouched", &rv);
	for (i = 0; i < rv.n; i++) {
		PAGE_EXPECT(rv.page[i].nr_pages == 0, &rv, i);
		PAGE_EXPECT(!(rv.pm[i] & (PM_PRESENT | PM_SWAP)), &rv, i);
	}
	EXPECT_EQ(rv.vma->rec.start, rv.reg->start);
	EXPECT_EQ(rv.vma->rec.end, rv.reg->end);
	EXPECT_TRUE(rv.vma->rec.flags & MEMWALK_VMA_ANON);
	rview_free(&rv);
}

TEST_F(states, state_anon_touched)
{
	const uint32_t mask = MEMWALK_RUN_STATE_MASK | MEMWALK_RUN_ANON | MEMWALK_RUN_FILE |
			      MEMWALK_RUN_ZERO | MEMWALK_RUN_EXCLUSIVE | MEMWALK_RUN_USER |
			      MEMWALK_RUN_NX;
	uint32_t want = MEMWALK_STATE_PRESENT | MEMWALK_RUN_USER | MEMWALK_RUN_NX;
	struct rview rv;
	size_t i;

	if (variant->page)
		want |= MEMWALK_RUN_ANON | MEMWALK_RUN_EXCLUSIVE;
	RVIEW("anon_touched", &rv);
	for (i = 0; i < rv.n; i++) {
		const struct memwalk_page_run *p = &rv.page[i];

		PAGE_EXPECT((p->flags & mask) == want, &rv, i);
		PAGE_EXPECT(rv.pm[i] & PM_PRESENT, &rv, i);
		if (variant->folio) {
			PAGE_EXPECT(p->mapcount == 1, &rv, i);
			PAGE_EXPECT(p->folio_flags & (1U << MEMWALK_KPF_ANON), &rv, i);
			PAGE_EXPECT(p->folio_flags & (1U << MEMWALK_KPF_MMAP), &rv, i);
		}
		if (variant->pfns) {
			PAGE_EXPECT(p->pfn != 0, &rv, i);
			PAGE_EXPECT(!i || rv.page[i - 1].pfn != p->pfn, &rv, i);
		}
	}
	rview_free(&rv);
}

/* Runs exactly where pages were touched: (i % 3 == 0 || i % 7 == 0). */
TEST_F(states, state_anon_sparse)
{
	struct rview rv;
	size_t i;

	RVIEW("anon_sparse", &rv);
	for (i = 0; i < rv.n; i++) {
		bool touched = i % 3 == 0 || i % 7 == 0;

		PAGE_EXPECT(touched == (rv.page[i].nr_pages == 1), &rv, i);
		PAGE_EXPECT(touched == !!(rv.pm[i] & PM_PRESENT), &rv, i);
	}
	rview_free(&rv);
}

TEST_F(states, state_read_only)
{
	struct rview rv;
	size_t i;

	RVIEW("anon_ro", &rv);
	EXPECT_EQ(MEMWALK_VMA_READ, rv.vma->rec.flags &
		  (MEMWALK_VMA_READ | MEMWALK_VMA_WRITE | MEMWALK_VMA_EXEC));
	for (i = 0; i < rv.n; i++) {
		const struct memwalk_page_run *p = &rv.page[i];

		PAGE_EXPECT(mw_run_state(p) == MEMWALK_STATE_PRESENT, &rv, i);
		PAGE_EXPECT(!(p->flags & MEMWALK_RUN_WRITE), &rv, i);
		PAGE_EXPECT(p->flags & MEMWALK_RUN_USER, &rv, i);
		PAGE_EXPECT(!variant->page || (p->flags & MEMWALK_RUN_ANON), &rv, i);
	}
	rview_free(&rv);
}

/* PROT_NONE keeps the pages mapped (present, not user-accessible). */
TEST_F(states, state_prot_none)
{
	struct rview rv;
	size_t i;

	RVIEW("prot_none", &rv);
	EXPECT_EQ(0, rv.vma->rec.flags &
		  (MEMWALK_VMA_READ | MEMWALK_VMA_WRITE | MEMWALK_VMA_EXEC));
	for (i = 0; i < rv.n; i++) {
		const struct memwalk_page_run *p = &rv.page[i];

		PAGE_EXPECT(rv.pm[i] & PM_PRESENT, &rv, i);
		PAGE_EXPECT(mw_run_state(p) == MEMWALK_STATE_PRESENT, &rv, i);
		PAGE_EXPECT(!(p->flags & (MEMWALK_RUN_USER | MEMWALK_RUN_WRITE)), &rv, i);
		PAGE_EXPECT(!variant->page || (p->flags & MEMWALK_RUN_ANON), &rv, i);
	}
	rview_free(&rv);
}

/*
 * Read faults on untouched private anon map the shared zero page: ZERO in
 * every mode (the 4K zero page is told by its PFN, without its page).
 */
TEST_F(states, state_zero_page)
{
	struct rview rv;
	size_t i;

	RVIEW("zero", &rv);
	for (i = 0; i < rv.n; i++) {
		const struct memwalk_page_run *p = &rv.page[i];

		PAGE_EXPECT(mw_run_state(p) == MEMWALK_STATE_PRESENT, &rv, i);
		PAGE_EXPECT(p->flags & MEMWALK_RUN_ZERO, &rv, i);
		PAGE_EXPECT(!(p->flags & (MEMWALK_RUN_ANON | MEMWALK_RUN_FILE |
					  MEMWALK_RUN_EXCLUSIVE | MEMWALK_RUN_WRITE)), &rv, i);
		PAGE_EXPECT((rv.pm[i] & PM_PFN_MASK) == (rv.pm[0] & PM_PFN_MASK), &rv, i);
	}
	EXPECT_TRUE(kpf_has(rv.pm[0] & PM_PFN_MASK, MEMWALK_KPF_ZERO_PAGE));
	rview_free(&rv);
}

TEST_F(states, state_shared_anon)
{
	const uint32_t mask = MEMWALK_RUN_STATE_MASK | MEMWALK_RUN_FILE | MEMWALK_RUN_SHMEM |
			      MEMWALK_RUN_ANON | MEMWALK_RUN_EXCLUSIVE;
	uint32_t want = MEMWALK_STATE_PRESENT;
	struct rview rv;
	size_t i;

	if (variant->page)
		want |= MEMWALK_RUN_FILE | MEMWALK_RUN_SHMEM | MEMWALK_RUN_EXCLUSIVE;
	RVIEW("shared_anon", &rv);
	EXPECT_EQ(MEMWALK_VMA_SHARED | MEMWALK_VMA_MAYSHARE | MEMWALK_VMA_SHMEM |
		  MEMWALK_VMA_FILE, rv.vma->rec.flags & (MEMWALK_VMA_SHARED |
		  MEMWALK_VMA_MAYSHARE | MEMWALK_VMA_SHMEM | MEMWALK_VMA_FILE |
		  MEMWALK_VMA_ANON));
	for (i = 0; i < rv.n; i++) {
		if (i >= 8) {
			PAGE_EXPECT(rv.page[i].nr_pages == 0, &rv, i);
			continue;
		}
		PAGE_EXPECT((rv.page[i].flags & mask) == want, &rv, i);
		PAGE_EXPECT(rv.pm[i] & PM_FILE, &rv, i);
	}
	rview_free(&rv);
}

/* Forked: cow_before still shared with the child, cow_after rewritten. */
TEST_F(states, state_cow)
{
	struct rview rb, ra;
	size_t i;

	RVIEW("cow_before", &rb);
	RVIEW("cow_after", &ra);
	for (i = 0; i < rb.n; i++) {
		PAGE_EXPECT(mw_run_state(&rb.page[i]) == MEMWALK_STATE_PRESENT, &rb, i);
		PAGE_EXPECT(!variant->folio || rb.page[i].mapcount == 2, &rb, i);
		PAGE_EXPECT(!(rb.page[i].flags & (MEMWALK_RUN_EXCLUSIVE | MEMWALK_RUN_WRITE)),
			    &rb, i);
		PAGE_EXPECT(!(rb.pm[i] & PM_MMAP_EXCLUSIVE), &rb, i);
	}
	for (i = 0; i < ra.n; i++) {
		PAGE_EXPECT(!variant->folio || ra.page[i].mapcount == 1, &ra, i);
		PAGE_EXPECT(!variant->page || (ra.page[i].flags & MEMWALK_RUN_EXCLUSIVE), &ra, i);
		PAGE_EXPECT(ra.pm[i] & PM_MMAP_EXCLUSIVE, &ra, i);
	}
	rview_free(&rb);
	rview_free(&ra);
}

/* Whether the oracle says the region is one 2 MiB folio mapped in order. */
static bool region_is_thp(const struct rview *rv, unsigned int kpf_bit)
{
	uint64_t pfn0 = rv->pm[0] & PM_PFN_MASK;
	size_t i;

	if (rv->n != HPAGE / MW_PAGE || !(rv->pm[0] & PM_PRESENT) ||
	    pfn0 % (HPAGE / MW_PAGE) || !kpf_has(pfn0, kpf_bit))
		return false;
	for (i = 0; i < rv->n; i++)
		if (!(rv->pm[i] & PM_PRESENT) || (rv->pm[i] & PM_PFN_MASK) != pfn0 + i)
			return false;
	return true;
}

/* The MADV_HUGEPAGE region of a guest with THP for madvise: a PMD-mapped THP. */
TEST_F(states, state_thp_pmd)
{
	struct rview rv;
	size_t i;

	RVIEW("thp", &rv);
	ASSERT_TRUE(region_is_thp(&rv, MEMWALK_KPF_THP))
		TH_LOG("the MADV_HUGEPAGE fault got no THP: pagemap[0] %#llx",
		       (unsigned long long)rv.pm[0]);
	EXPECT_TRUE(rv.vma->rec.flags & MEMWALK_VMA_HUGEPAGE);
	for (i = 0; i < rv.n; i++) {
		const struct memwalk_page_run *p = &rv.page[i];

		PAGE_EXPECT(mw_run_level(p) == MEMWALK_LEVEL_PMD, &rv, i);
		PAGE_EXPECT(!variant->page || (p->flags & MEMWALK_RUN_ANON), &rv, i);
		if (!variant->folio)
			continue;
		PAGE_EXPECT(p->order == 9, &rv, i);
		PAGE_EXPECT(p->folio_flags & (1U << MEMWALK_KPF_THP), &rv, i);
		PAGE_EXPECT(p->folio_flags & (1U << MEMWALK_FOLIO_PMD_MAPPED), &rv, i);
		PAGE_EXPECT(!(p->folio_flags & ((1U << MEMWALK_FOLIO_PTE_MAPPED) |
						(1U << MEMWALK_FOLIO_PARTIAL))), &rv, i);
	}
	rview_free(&rv);
}

/*
 * The huge zero page: read faults on an empty MADV_HUGEPAGE range (the
 * target, or for the lab target root, turned use_zero_page on).  Only
 * its page tells it apart: ZERO where the page is read.
 */
TEST_F(states, state_thp_huge_zero)
{
	struct rview rv;
	size_t i;

	RVIEW("thp_zero", &rv);
	ASSERT_TRUE(region_is_thp(&rv, MEMWALK_KPF_ZERO_PAGE))
		TH_LOG("read faults with use_zero_page on mapped no huge zero page: pagemap[0] %#llx",
		       (unsigned long long)rv.pm[0]);
	for (i = 0; i < rv.n; i++) {
		const struct memwalk_page_run *p = &rv.page[i];

		PAGE_EXPECT(mw_run_level(p) == MEMWALK_LEVEL_PMD, &rv, i);
		PAGE_EXPECT(!!(p->flags & MEMWALK_RUN_ZERO) == variant->page, &rv, i);
		PAGE_EXPECT(!(p->flags & (MEMWALK_RUN_ANON | MEMWALK_RUN_FILE |
					  MEMWALK_RUN_EXCLUSIVE)), &rv, i);
		PAGE_EXPECT(!variant->folio || p->order == 9, &rv, i);
	}
	/*
	 * pagemap's PMD path takes the huge zero page for a file page where
	 * its PTE path does not for the 4K one: memwalk's `file` never
	 * says so of a zero page (docs/json-schema.md).
	 */
	ksft_print_msg("state_thp_huge_zero: pagemap PM_FILE %s for the huge zero page, memwalk file 0 (documented difference)\n",
		       (rv.pm[0] & PM_FILE) ? "set" : "clear");
	rview_free(&rv);
}

/* A THP whose PMD was split by an mprotect() of one page: PTE-mapped. */
TEST_F(states, state_thp_pte_mapped)
{
	struct rview rv;
	size_t i;

	RVIEW("thp_pte", &rv);
	ASSERT_TRUE(region_is_thp(&rv, MEMWALK_KPF_THP))
		TH_LOG("the MADV_HUGEPAGE fault got no THP: pagemap[0] %#llx",
		       (unsigned long long)rv.pm[0]);
	for (i = 0; i < rv.n; i++) {
		const struct memwalk_page_run *p = &rv.page[i];
		const struct mw_vma *v = mw_snap_vma(&rv.s, p->start);

		PAGE_EXPECT(mw_run_level(p) == MEMWALK_LEVEL_PTE, &rv, i);
		/* page 5 alone lies in a read-only VMA */
		PAGE_EXPECT(v && (i != 5) == !!(v->rec.flags & MEMWALK_VMA_WRITE), &rv, i);
		if (!variant->folio)
			continue;
		PAGE_EXPECT(p->order == 9, &rv, i);
		PAGE_EXPECT(p->folio_flags & (1U << MEMWALK_FOLIO_PTE_MAPPED), &rv, i);
		/* Three VMAs share the folio: each maps only part of it. */
		PAGE_EXPECT(p->folio_flags & (1U << MEMWALK_FOLIO_PARTIAL), &rv, i);
	}
	rview_free(&rv);
}

TEST_F(states, state_hugetlb)
{
	struct rview rv;
	size_t i;

	RVIEW("hugetlb", &rv);
	EXPECT_TRUE(rv.vma->rec.flags & MEMWALK_VMA_HUGETLB);
	EXPECT_EQ(21, rv.vma->rec.page_shift);
	for (i = 0; i < rv.n; i++) {
		const struct memwalk_page_run *p = &rv.page[i];

		if (i >= 512) {	/* the second huge page was never touched */
			PAGE_EXPECT(p->nr_pages == 0, &rv, i);
			continue;
		}
		PAGE_EXPECT(rv.pm[i] & PM_PRESENT, &rv, i);
		PAGE_EXPECT(mw_run_level(p) == MEMWALK_LEVEL_PMD, &rv, i);
		PAGE_EXPECT(!variant->page || (p->flags & MEMWALK_RUN_ANON), &rv, i);
		PAGE_EXPECT(!variant->pfns || p->pfn == rv.page[0].pfn + i, &rv, i);
		if (!variant->folio)
			continue;
		PAGE_EXPECT(p->order == 9, &rv, i);
		PAGE_EXPECT(p->folio_flags & (1U << MEMWALK_KPF_HUGE), &rv, i);
	}
	rview_free(&rv);
}

TEST_F(states, state_hugetlb_shared)
{
	const uint32_t mask = MEMWALK_RUN_STATE_MASK | MEMWALK_RUN_FILE |
			      MEMWALK_RUN_ANON | MEMWALK_RUN_SHMEM;
	uint32_t want = MEMWALK_STATE_PRESENT | (variant->page ? MEMWALK_RUN_FILE : 0);
	struct rview rv;
	size_t i;

	RVIEW("hugetlb_shared", &rv);
	EXPECT_EQ(MEMWALK_VMA_HUGETLB | MEMWALK_VMA_SHARED | MEMWALK_VMA_FILE,
		  rv.vma->rec.flags & (MEMWALK_VMA_HUGETLB | MEMWALK_VMA_SHARED |
				       MEMWALK_VMA_FILE | MEMWALK_VMA_SHMEM));
	for (i = 0; i < rv.n; i++) {
		PAGE_EXPECT((rv.page[i].flags & mask) == want, &rv, i);
		PAGE_EXPECT(rv.pm[i] & PM_FILE, &rv, i);
	}
	rview_free(&rv);
}

/*
 * The first 16 pages of @rv paged out (in @state, each with its own swap
 * slot where offsets are shown), the other 16 present.
 */
static void check_half_paged_out(struct __test_metadata *_metadata,
				 const FIXTURE_VARIANT(states) *variant,
				 const struct rview *rv, unsigned int state)
{
	size_t i, j;

	for (i = 0; i < rv->n; i++) {
		const struct memwalk_page_run *p = &rv->page[i];

		PAGE_EXPECT(mw_run_state(p) == (i < 16 ? state : MEMWALK_STATE_PRESENT), rv, i);
		for (j = 0; variant->pfns && i < 16 && j < i; j++)
			PAGE_EXPECT(rv->page[j].pfn != p->pfn, rv, i);
	}
}

/* MADV_PAGEOUT to zram: swap entries with their type (and offsets). */
TEST_F(states, state_swapped)
{
	struct rview rv;
	size_t i;

	RVIEW("swapped", &rv);
	check_half_paged_out(_metadata, variant, &rv, MEMWALK_STATE_SWAP);
	for (i = 0; i < 16; i++) {
		const struct memwalk_page_run *p = &rv.page[i];

		PAGE_EXPECT(rv.pm[i] & PM_SWAP, &rv, i);
		PAGE_EXPECT((rv.pm[i] & ((1ULL << PM_SWAP_TYPE_BITS) - 1)) == mw_run_swap_type(p),
			    &rv, i);
		/* clear_refs=4 ran after the page-out */
		PAGE_EXPECT(!(p->flags & MEMWALK_RUN_SOFT_DIRTY), &rv, i);
		PAGE_EXPECT(p->folio_flags == 0, &rv, i);
	}
	rview_free(&rv);
}

/*
 * Shmem pages in swap: no entry (pagemap shows none), reported from the
 * page cache with their swap slots where the page cache is read (the lab
 * target's anonymous shared memory is its own: shown in lab mode too);
 * an entry-only walk, which reads no page cache, shows nothing there.
 */
TEST_F(states, state_shmem_swapped)
{
	const uint32_t want = MEMWALK_RUN_FILE | MEMWALK_RUN_SHMEM;
	struct rview rv;
	size_t i;

	RVIEW("shmem_swapped", &rv);
	if (variant->page)
		check_half_paged_out(_metadata, variant, &rv, MEMWALK_STATE_SHMEM_SWAP);
	for (i = 0; i < rv.n; i++) {
		const struct memwalk_page_run *p = &rv.page[i];

		if (i >= 16) {
			PAGE_EXPECT(rv.pm[i] & PM_PRESENT, &rv, i);
			PAGE_EXPECT(!variant->page || (p->flags & want) == want, &rv, i);
			continue;
		}
		PAGE_EXPECT(!(rv.pm[i] & (PM_PRESENT | PM_SWAP)), &rv, i);
		if (!variant->page) {
			PAGE_EXPECT(p->nr_pages == 0, &rv, i);
			continue;
		}
		PAGE_EXPECT((p->flags & MW_RUN_FROM_PAGE) == want, &rv, i);
		PAGE_EXPECT(!variant->pfns || p->pfn != 0, &rv, i);
	}
	rview_free(&rv);
}

TEST_F(states, state_mlocked)
{
	struct rview rv;
	size_t i;

	RVIEW("mlocked", &rv);
	EXPECT_TRUE(rv.vma->rec.flags & MEMWALK_VMA_LOCKED);
	for (i = 0; i < rv.n; i++) {
		const struct memwalk_page_run *p = &rv.page[i];

		PAGE_EXPECT(kpf_has(rv.pm[i] & PM_PFN_MASK, MW_KPF_MLOCKED), &rv, i);
		if (!variant->folio)
			continue;
		PAGE_EXPECT(p->folio_flags & (1U << MEMWALK_FOLIO_MLOCKED), &rv, i);
		PAGE_EXPECT(p->folio_flags & (1U << MEMWALK_KPF_UNEVICTABLE), &rv, i);
	}
	rview_free(&rv);
}

/*
 * After clear_refs=4 the target wrote the first 8 pages of soft_dirty
 * again and mapped soft_dirty_new: soft-dirty exactly there.
 */
/*
 * Whether the kernel tracks soft-dirty (CONFIG_MEM_SOFT_DIRTY, which arm64
 * does not have): then every new VMA carries VM_SOFTDIRTY, which smaps
 * shows as "sd"; this process's stack is one.
 */
static bool kernel_tracks_soft_dirty(void)
{
	FILE *f = fopen("/proc/self/smaps", "re");
	char line[512];
	bool sd = false;

	if (!f)
		return true;	/* let the test say what is wrong */
	while (!sd && fgets(line, sizeof(line), f))
		sd = !strncmp(line, "VmFlags:", 8) && strstr(line, " sd");
	fclose(f);
	return sd;
}

TEST_F(states, state_soft_dirty)
{
	const struct mw_region *fresh = REGION("soft_dirty_new");
	const struct mw_vma *nv;
	struct rview rv;
	size_t i;

	if (!kernel_tracks_soft_dirty())
		SKIP(return, "kernel without soft-dirty tracking (CONFIG_MEM_SOFT_DIRTY): no VMA has VmFlags sd");
	RVIEW("soft_dirty", &rv);
	EXPECT_FALSE(rv.vma->rec.flags & MEMWALK_VMA_SOFTDIRTY);
	for (i = 0; i < rv.n; i++) {
		PAGE_EXPECT((i < 8) == !!(rv.page[i].flags & MEMWALK_RUN_SOFT_DIRTY), &rv, i);
		PAGE_EXPECT((i < 8) == !!(rv.pm[i] & PM_SOFT_DIRTY), &rv, i);
	}
	nv = mw_snap_vma(&rv.s, fresh->start);
	ASSERT_NE(NULL, nv);
	EXPECT_TRUE(nv->rec.flags & MEMWALK_VMA_SOFTDIRTY);
	nv = mw_snap_vma(&rv.s, REGION("anon_touched")->start);
	ASSERT_NE(NULL, nv);
	EXPECT_FALSE(nv->rec.flags & MEMWALK_VMA_SOFTDIRTY);
	rview_free(&rv);
}

/*
 * Swap entries alike but for the soft-dirty bit, every other one (the
 * target wrote the odd pages and paged them out again after
 * clear_refs=4): each page as pagemap has it, in every mode.  Where
 * PFNs are hidden, swap entries join one run whatever their slots, but
 * never across that bit.
 */
TEST_F(states, state_swapped_soft_dirty)
{
	struct rview rv;
	size_t i, sd = 0;

	if (!kernel_tracks_soft_dirty())
		SKIP(return, "kernel without soft-dirty tracking (CONFIG_MEM_SOFT_DIRTY): no VMA has VmFlags sd");
	RVIEW("swapped_soft_dirty", &rv);
	for (i = 0; i < rv.n; i++) {
		const struct memwalk_page_run *p = &rv.page[i];

		check_page_in_mode(_metadata, variant, &rv, i);
		PAGE_EXPECT(rv.pm[i] & PM_SWAP, &rv, i);
		PAGE_EXPECT(mw_run_state(p) == MEMWALK_STATE_SWAP, &rv, i);
		PAGE_EXPECT(!(p->flags & MEMWALK_RUN_SOFT_DIRTY) == !(rv.pm[i] & PM_SOFT_DIRTY),
			    &rv, i);
		sd += (i % 2) == !!(rv.pm[i] & PM_SOFT_DIRTY);
	}
	/* Else the target did not make what this tests. */
	EXPECT_EQ(rv.n, sd) TH_LOG("pagemap has the soft-dirty bit on the odd pages alone on %zu of %zu",
				   sd, rv.n);
	rview_free(&rv);
}

/*
 * Page cache mapped shared (8 read, 2 of them written) and private (4
 * read, 1 of them written: copied).  Read faults also map the neighbours
 * already in the page cache (fault-around), so untouched pages may be
 * mapped too: those must be the file's pages, clean.
 */
static void check_file_regions(struct __test_metadata *_metadata,
			       const FIXTURE_VARIANT(states) *variant, int fd,
			       struct mw_target *t, const char *tag, bool shmem)
{
	const uint32_t mask = MEMWALK_RUN_STATE_MASK | MEMWALK_RUN_FILE |
			      MEMWALK_RUN_SHMEM | MEMWALK_RUN_ANON | MEMWALK_RUN_EXCLUSIVE;
	const struct mw_region *sh, *pr;
	struct rview rv;
	char name[32];
	uint32_t want;
	size_t i;

	snprintf(name, sizeof(name), "%s_shared", tag);
	sh = mw_target_region(t, name);
	snprintf(name, sizeof(name), "%s_private", tag);
	pr = mw_target_region(t, name);
	ASSERT_NE(NULL, sh) TH_LOG("target: %s", t->notes);
	ASSERT_NE(NULL, pr) TH_LOG("target: %s", t->notes);

	rview_get(_metadata, variant, fd, t->pid, sh, &rv);
	EXPECT_EQ(shmem, !!(rv.vma->rec.flags & MEMWALK_VMA_SHMEM));
	EXPECT_TRUE(rv.vma->rec.flags & MEMWALK_VMA_FILE);
	want = MEMWALK_STATE_PRESENT;
	if (variant->page)
		want |= MEMWALK_RUN_FILE | (shmem ? MEMWALK_RUN_SHMEM : 0);
	for (i = 0; i < rv.n; i++) {
		const struct memwalk_page_run *p = &rv.page[i];

		/* Pages 8-15 were not touched: mapped only by fault-around, if at all. */
		if (i >= 8 && !(rv.pm[i] & PM_PRESENT)) {
			PAGE_EXPECT(p->nr_pages == 0, &rv, i);
			continue;
		}
		PAGE_EXPECT((p->flags & (mask & ~MEMWALK_RUN_EXCLUSIVE)) == want, &rv, i);
		if (!variant->folio)
			continue;
		PAGE_EXPECT(p->folio_flags & (1U << MEMWALK_KPF_UPTODATE), &rv, i);
		/* A disk file was synced: only the two pages written since are dirty. */
		PAGE_EXPECT(shmem || (i == 4 || i == 5) ==
			    !!(p->folio_flags & (1U << MEMWALK_KPF_DIRTY)), &rv, i);
	}
	rview_free(&rv);

	rview_get(_metadata, variant, fd, t->pid, pr, &rv);
	for (i = 0; i < rv.n; i++) {
		const struct memwalk_page_run *p = &rv.page[i];

		if (i >= 4 && !(rv.pm[i] & PM_PRESENT)) {
			PAGE_EXPECT(p->nr_pages == 0, &rv, i);
		} else if (i == 2) {	/* written: a private anonymous copy */
			want = MEMWALK_STATE_PRESENT;
			if (variant->page)
				want |= MEMWALK_RUN_ANON | MEMWALK_RUN_EXCLUSIVE;
			PAGE_EXPECT((p->flags & mask) == want, &rv, i);
		} else {		/* the page cache page, also mapped shared */
			want = MEMWALK_STATE_PRESENT;
			if (variant->page)
				want |= MEMWALK_RUN_FILE | (shmem ? MEMWALK_RUN_SHMEM : 0);
			PAGE_EXPECT((p->flags & mask) == want, &rv, i);
			PAGE_EXPECT(i >= 4 || !variant->folio || p->mapcount == 2, &rv, i);
		}
	}
	rview_free(&rv);
}

TEST_F(states, state_page_cache_tmpfs)
{
	struct statfs fs;

	ASSERT_EQ(0, statfs(mw_tmpfs_dir(), &fs));
	ASSERT_EQ(TMPFS_MAGIC, fs.f_type) TH_LOG("MEMWALK_TMPFS %s is not tmpfs", mw_tmpfs_dir());
	REGION("tmpfs_shared");
	check_file_regions(_metadata, variant, self->fd, &self->t, "tmpfs", true);
}

TEST_F(states, state_page_cache_disk)
{
	struct statfs fs;

	REGION("disk_shared");
	ASSERT_EQ(0, statfs(self->disk, &fs));
	ASSERT_NE(TMPFS_MAGIC, fs.f_type);
	check_file_regions(_metadata, variant, self->fd, &self->t, "disk", false);
}

/*
 * Page cache allocated out of order under alike PTEs: in the second half
 * mapcount alternates 2 and 1 (kpagecount says so), and so do the runs,
 * with PFN lists or without.  With lists, where PFNs are shown, the first
 * half (alike folios) is listed rather than a run a page; where they are
 * hidden nothing is listed (a list of zeros would tell nothing).
 */
TEST_F(states, state_file_scattered)
{
	const uint32_t modes[] = { variant->flags, variant->flags | MEMWALK_SNAP_PFN_LIST };
	const struct mw_region *reg = REGION("file_scattered");
	uint64_t pfn[32] = { 0 };
	size_t i, m, follow = 0;
	struct mw_why why;
	struct mw_snap s;
	struct rview rv;

	for (m = 0; m < ARRAY_SIZE(modes); m++) {
		FIXTURE_VARIANT(states) as = *variant;

		as.flags = modes[m];
		rview_get(_metadata, &as, self->fd, self->t.pid, reg, &rv);
		ASSERT_EQ(32, rv.n);
		for (i = 0; i < rv.n; i++) {
			uint64_t kpc = 0;
			unsigned int want = i >= 16 && !(i % 2) ? 2 : 1;

			ASSERT_TRUE(rv.pm[i] & PM_PRESENT);
			pfn[i] = rv.pm[i] & PM_PFN_MASK;
			ASSERT_EQ(0, mw_kpagecount(pfn[i], &kpc));
			PAGE_EXPECT(kpc == want, &rv, i);
			PAGE_EXPECT(!variant->page || !!(rv.pm[i] & PM_MMAP_EXCLUSIVE) ==
				    !!(rv.page[i].flags & MEMWALK_RUN_EXCLUSIVE), &rv, i);
			PAGE_EXPECT(!variant->folio || rv.page[i].mapcount == kpc, &rv, i);
		}
		rview_free(&rv);
	}
	ASSERT_EQ(0, mw_snapshot(self->fd, self->t.pid, reg->start, reg->start + 16 * MW_PAGE,
				 variant->flags | MEMWALK_SNAP_PFN_LIST, VMA_BUF, RUN_BUF,
				 &s, &why)) TH_LOG("snapshot: %s", why.msg);
	if (!variant->pfns) {
		EXPECT_EQ(0, s.nr_listed) TH_LOG("PFN lists with the PFNs hidden");
		mw_snap_free(&s);
		return;
	}
	/* Listed, unless the allocator handed the PFNs out in order. */
	for (i = 1; i < 16; i++)
		follow += pfn[i] == pfn[i - 1] + 1;
	if (follow <= 4) {
		EXPECT_LE(1, s.nr_listed);
		EXPECT_LE(16 - 2 * follow, s.nr_pfns);
	} else {
		ksft_print_msg("state_file_scattered: %zu of the first 16 PFNs follow the one before: lists not checked\n",
			       follow);
	}
	mw_snap_free(&s);
}

/* ---- invariants of quiet pages ----------------------------------------------- */

/*
 * The order of the folio holding @pfn, from /proc/kpageflags alone: 0 for
 * a page that is not compound, else log2 of head plus tails.
 */
static unsigned int oracle_order(uint64_t pfn)
{
	static uint64_t last_head, last_n;	/* the folio found last */
	uint64_t kpf = 0, head = pfn, n = 1;
	unsigned int order = 0;

	if (last_n && pfn >= last_head && pfn < last_head + last_n)
		return __builtin_ctzll(last_n);
	if (mw_kpageflags(pfn, &kpf) ||
	    !(kpf & ((1ULL << MW_KPF_COMPOUND_HEAD) | (1ULL << MW_KPF_COMPOUND_TAIL))))
		return 0;
	while ((kpf & (1ULL << MW_KPF_COMPOUND_TAIL)) && head && !mw_kpageflags(head - 1, &kpf))
		head--;
	while (!mw_kpageflags(head + n, &kpf) && (kpf & (1ULL << MW_KPF_COMPOUND_TAIL)))
		n++;
	while ((1ULL << order) < n)
		order++;
	last_head = head;
	last_n = 1ULL << order;
	return order;
}

/*
 * The small (order-0) pages of @reg that kpagecount says are mapped
 * @mapped times, whose refcount must be @mapped + @extra (+1 with
 * PG_private): compared with memwalk's refcount and mapcount.  Pages of
 * larger folios are counted in *large and left out: their refcount adds
 * up every page's mappings.  Returns how many were compared.
 */
static size_t check_refcounts(struct __test_metadata *_metadata,
			      const FIXTURE_VARIANT(states) *variant, struct rview *rv,
			      uint64_t mapped, unsigned int extra, bool anon, size_t *large)
{
	size_t i, compared = 0;

	for (i = 0; i < rv->n; i++) {
		const struct memwalk_page_run *p = &rv->page[i];
		uint64_t pfn = rv->pm[i] & PM_PFN_MASK, kpf = 0, kpc = 0, want;

		if (!(rv->pm[i] & PM_PRESENT) || mw_kpageflags(pfn, &kpf) ||
		    mw_kpagecount(pfn, &kpc) || kpc != mapped)
			continue;
		if (oracle_order(pfn)) {
			(*large)++;
			continue;
		}
		/* Not in the swap cache, locked or under writeback: no other holder. */
		PAGE_EXPECT(!(kpf & ((1ULL << MEMWALK_KPF_SWAPCACHE) | (1ULL << MEMWALK_KPF_LOCKED) |
				     (1ULL << MEMWALK_KPF_WRITEBACK))), rv, i);
		PAGE_EXPECT(anon == !!(kpf & (1ULL << MEMWALK_KPF_ANON)), rv, i);
		want = mapped + extra + !!(kpf & (1ULL << KPF_PRIVATE));
		compared++;
		if (!variant->folio)
			continue;	/* hidden: check_page_in_mode() saw to it */
		PAGE_EXPECT(p->mapcount == mapped, rv, i);
		PAGE_EXPECT(p->refcount == want, rv, i);
	}
	return compared;
}

/*
 * An exclusive anonymous small folio, not in the swap cache, mapped once:
 * refcount == mapcount == 1.  Each mapping holds one reference; the LRU
 * list holds none, the per-CPU LRU batches that would were drained before
 * the target stopped, and nothing else (swap cache, GUP pins, migration)
 * touches a quiet page of a stopped process.
 */
TEST_F(states, invariant_anon_refcount_is_mapcount)
{
	const char *const names[] = { "anon_touched", "cow_after", "soft_dirty", "anon_ro" };
	size_t k, compared = 0, large = 0;
	struct rview rv;

	for (k = 0; k < ARRAY_SIZE(names); k++) {
		RVIEW(names[k], &rv);
		compared += check_refcounts(_metadata, variant, &rv, 1, 0, true, &large);
		rview_free(&rv);
	}
	ksft_print_msg("invariant_anon_refcount_is_mapcount: %zu small folios compared, %zu pages of large folios (mTHP) left out\n",
		       compared, large);
	EXPECT_LT(16, compared);
}

/*
 * A page-cache folio mapped once: refcount == mapcount + 1, the one more
 * being the page cache's own reference (filemap_add_folio() takes one
 * per page of the folio), and +1 again when it has private data
 * (PG_private: buffer heads of the ext2 disk file, attached by its
 * block-mapped writes; kpageflags bit 35).  tmpfs pages have none.
 */
TEST_F(states, invariant_page_cache_refcount_is_mapcount_plus_one)
{
	const char *const names[] = { "tmpfs_shared", "shared_anon", "disk_shared" };
	size_t k, compared = 0, large = 0;
	struct rview rv;

	for (k = 0; k < ARRAY_SIZE(names); k++) {
		if (!mw_target_region(&self->t, names[k]) && mw_region_unsupported(names[k]))
			continue;	/* no disk file system: the others still say it */
		RVIEW(names[k], &rv);
		compared += check_refcounts(_metadata, variant, &rv, 1, 1, false, &large);
		rview_free(&rv);
	}
	ksft_print_msg("invariant_page_cache_refcount_is_mapcount_plus_one: %zu small folios compared, %zu pages of large folios left out\n",
		       compared, large);
	EXPECT_LE(8, compared);
}

/*
 * The node of each present page is the one move_pages(2) (with no target
 * nodes: a query) says the target's page is on.  A single-node guest says
 * 0 everywhere; still compared.
 */
TEST_F(states, invariant_nid_is_move_pages_node)
{
	const char *const names[] = { "anon_touched", "tmpfs_shared", "shared_anon", "thp",
				      "hugetlb", "cow_before" };
	size_t k, i, compared = 0;
	struct rview rv;

	for (k = 0; k < ARRAY_SIZE(names); k++) {
		if (!mw_target_region(&self->t, names[k]) && mw_region_unsupported(names[k]))
			continue;
		RVIEW(names[k], &rv);
		for (i = 0; i < rv.n; i++) {
			void *addr = (void *)(uintptr_t)(rv.reg->start + i * MW_PAGE);
			int status = -1;

			if (!(rv.pm[i] & PM_PRESENT))
				continue;
			ASSERT_EQ(0, syscall(SYS_move_pages, self->t.pid, 1, &addr, NULL,
					     &status, 0)) TH_LOG("move_pages: %s", strerror(errno));
			if (status < 0)
				continue;	/* not a movable page: -EFAULT, ... */
			compared++;
			PAGE_EXPECT(!variant->folio || rv.page[i].nid == (uint32_t)status, &rv, i);
		}
		rview_free(&rv);
	}
	EXPECT_LT(32, compared);
}

/*
 * The order: what kpageflags' compound head and tails make of the folio
 * (a THP 9, derived from the 2 MiB PMD over 4 KiB pages; small folios 0,
 * or more where the kernel made an mTHP, which kpageflags shows too).
 */
TEST_F(states, invariant_order_is_the_folio_order)
{
	const char *const names[] = { "anon_touched", "thp", "thp_pte", "hugetlb",
				      "tmpfs_shared", "cow_before" };
	unsigned int thp_order = __builtin_ctzl(HPAGE / MW_PAGE);
	size_t k, i, compared = 0;
	struct rview rv;

	for (k = 0; k < ARRAY_SIZE(names); k++) {
		bool thp = !strncmp(names[k], "thp", 3) || !strcmp(names[k], "hugetlb");

		if (!mw_target_region(&self->t, names[k]) && mw_region_unsupported(names[k]))
			continue;
		RVIEW(names[k], &rv);
		for (i = 0; i < rv.n; i++) {
			unsigned int order;

			if (!(rv.pm[i] & PM_PRESENT))
				continue;
			order = oracle_order(rv.pm[i] & PM_PFN_MASK);
			compared++;
			PAGE_EXPECT(!thp || order == thp_order, &rv, i);
			PAGE_EXPECT(!variant->folio || rv.page[i].order == order, &rv, i);
		}
		rview_free(&rv);
	}
	EXPECT_LT(64, compared);
}

STATES_HARNESS_MAIN

// SPDX-License-Identifier: GPL-2.0
/*
 * memwalk: one page of a page-table entry as a run: the entry's bits and
 * state (present, swap, migration, marker...), and through folio.c the
 * state of the page it maps.  memwalk_decode_entry() takes a leaf above
 * the PTE level page by page; PTE tables go through ptes.c.
 *
 * Locking: in a walker entry callback, under the lock of the entry
 * decoded, in atomic context; see decode.h.
 */
#include <linux/hugetlb.h>
#include <linux/memory_hotplug.h>
#include <linux/mm.h>
#include <linux/pgtable.h>
#include <linux/shmem_fs.h>
#include <linux/string.h>

#include "decode.h"

static unsigned long leaf_pfn(const struct memwalk_entry *e)
{
	switch (e->level) {
	case MEMWALK_PGT_PUD:
		return pud_pfn(__pud(e->val));
	case MEMWALK_PGT_PMD:
		return pmd_pfn(__pmd(e->val));
	default:
		return pte_pfn(mw_arch_leaf_pte(e->level, e->val));
	}
}

static u32 run_level(const struct memwalk_entry *e)
{
	switch (e->level) {
	case MEMWALK_PGT_PUD:
		return MEMWALK_LEVEL_PUD << MEMWALK_RUN_LEVEL_SHIFT;
	case MEMWALK_PGT_PMD:
		return MEMWALK_LEVEL_PMD << MEMWALK_RUN_LEVEL_SHIFT;
	default:
		return MEMWALK_LEVEL_PTE << MEMWALK_RUN_LEVEL_SHIFT;
	}
}

/* pfn_to_online_page() for a PFN of a mapped page, known ones first. */
struct page *memwalk_mapped_online_page(struct memwalk_decoder *d,
					const struct memwalk_entry *e,
					unsigned long pfn)
{
	struct page *page;

	if (pfn_known_online(d, e, pfn))
		return pfn_to_page(pfn);
	page = pfn_to_online_page(pfn);
	if (page) {
		d->online_sub = pfn >> PFN_SUBSECTION_SHIFT;
		d->online_seq = e->lock_seq;
	}
	return page;
}

/*
 * The struct page behind a present entry, or NULL: what vm_normal_page()
 * (not exported) would give, conservatively, plus the zero pages, which
 * are reported (ZERO, with their flags) but never as anon/file/exclusive.
 * A PFN in the folio met last under the same lock is in that folio: the
 * lock keeps the folio mapped, so it is not split, freed or offlined.
 */
static struct page *present_page(struct memwalk_decoder *d,
				 const struct memwalk_entry *e, pte_t pte,
				 unsigned long pfn, bool *zero)
{
	struct page *page;

	*zero = false;
	if (is_zero_pfn(pfn)) {
		*zero = true;
		return pfn_to_online_page(pfn);
	}
	if (d->vma->vm_flags & (VM_PFNMAP | VM_MIXEDMAP))
		return NULL;
	if (mw_pte_devmap(pte))
		return NULL;
	if (folio_cached(d, e, pfn)) {
		*zero = d->fc.zero;
		if (!*zero && pte_special(pte))
			return NULL;
		return pfn_to_page(pfn);
	}
	page = memwalk_mapped_online_page(d, e, pfn);
	if (!page)
		return NULL;
	/* The huge zero page's PMD is special since 6.16: look first. */
	if (e->level == MEMWALK_PGT_PMD && !e->hugetlb &&
	    vma_is_anonymous(d->vma) && mw_folio_huge_zero(page_folio(page))) {
		*zero = true;
		return page;
	}
	if (pte_special(pte))
		return NULL;
	return page;
}

static void decode_present(struct memwalk_decoder *d,
			   const struct memwalk_entry *e, pte_t pte,
			   unsigned long addr, struct memwalk_page_run *run)
{
	unsigned long pfn = leaf_pfn(e) + ((addr - e->entry_addr) >> PAGE_SHIFT);
	struct page *page;
	bool zero;

	run->flags |= MEMWALK_STATE_PRESENT | (mw_arch_present_bits(pte) & ~d->run_drop);
	run->pfn = pfn;
	if (d->entry_only) {
		if (is_zero_pfn(pfn))
			run->flags |= MEMWALK_RUN_ZERO;
		return;
	}
	page = present_page(d, e, pte, pfn, &zero);
	if (zero)
		run->flags |= MEMWALK_RUN_ZERO;
	else if (!page)
		run->flags |= MEMWALK_RUN_SPECIAL;
	if (page)
		memwalk_page_fields(d, e, page, pfn, addr, zero, run);
}

static void decode_leaf(struct memwalk_decoder *d,
			const struct memwalk_entry *e, pte_t pte,
			unsigned long addr, struct memwalk_page_run *run)
{
	unsigned long idx = (addr - e->entry_addr) >> PAGE_SHIFT;
	mw_leaf_t leaf = mw_pte_leaf(pte);
	struct page *page = NULL;
	unsigned long pfn;

	if (pte_swp_soft_dirty(pte))
		run->flags |= MEMWALK_RUN_SOFT_DIRTY;
	if (pte_swp_uffd_wp(pte))
		run->flags |= MEMWALK_RUN_UFFD_WP;

	if (mw_leaf_is_swap(leaf)) {
		run->flags |= MEMWALK_STATE_SWAP |
			      (swp_type(leaf) << MEMWALK_RUN_SWAP_TYPE_SHIFT &
			       MEMWALK_RUN_SWAP_TYPE_MASK);
		run->pfn = swp_offset(leaf) + idx;
		return;
	}
	if (mw_leaf_is_marker(leaf)) {
		run->flags |= MEMWALK_STATE_MARKER;
		if (mw_leaf_marker_uffd_wp(leaf))
			run->flags |= MEMWALK_RUN_UFFD_WP;
		return;
	}
	if (mw_leaf_is_migration(leaf)) {
		run->flags |= MEMWALK_STATE_MIGRATION;
		if (mw_leaf_is_migration_write(leaf))
			run->flags |= MEMWALK_RUN_MIGRATION_WRITE;
	} else if (mw_leaf_is_device(leaf)) {
		run->flags |= MEMWALK_STATE_DEVICE;
	} else if (mw_leaf_is_hwpoison(leaf)) {
		run->flags |= MEMWALK_STATE_HWPOISON;
	} else {
		return;
	}
	pfn = mw_leaf_pfn(leaf) + idx;
	run->pfn = pfn;
	if (d->entry_only)
		return;
	/* Device-private PFNs are ZONE_DEVICE: no online page. */
	page = pfn_to_online_page(pfn);
	if (page)
		memwalk_nonpresent_fields(d, page, run);
}

/**
 * memwalk_decode_page() - describe the page at @addr mapped through @e
 * @d: the decoder; d->vma is the VMA of @e
 * @e: the entry, as passed to a walker callback
 * @addr: a page in [e->addr, e->end)
 * @run: filled as a one-page run (nr_pages 0 if the entry is none)
 *
 * Locking: in a walker entry callback, under the lock of @e (walk.c); the
 * mmap_lock of d->vma's mm held.  Does not sleep.
 */
void memwalk_decode_page(struct memwalk_decoder *d,
			 const struct memwalk_entry *e, unsigned long addr,
			 struct memwalk_page_run *run)
{
	pte_t pte = mw_arch_leaf_pte(e->level, e->val);

	memset(run, 0, sizeof(*run));
	run->start = addr;
	run->lru_gen = -1;
	if (pte_none(pte))
		return;

	run->nr_pages = 1;
	run->flags = run_level(e);
	if (pte_present(pte))
		decode_present(d, e, pte, addr, run);
	else
		decode_leaf(d, e, pte, addr, run);
	if (d->hide_pfn)
		run->pfn = 0;
}

/*
 * How many pages after @addr (up to @end) under the PMD leaf @e continue
 * @run, the run ending with @addr's page: all are of one folio.
 */
static unsigned long leaf_stretch(struct memwalk_decoder *d,
				  const struct memwalk_entry *e,
				  const struct memwalk_page_run *run,
				  unsigned long addr, unsigned long end)
{
	unsigned long pfn = leaf_pfn(e) + ((addr - e->entry_addr) >> PAGE_SHIFT);
	unsigned long n, max = (end - addr) >> PAGE_SHIFT;

	if (e->level != MEMWALK_PGT_PMD || e->hugetlb || d->entry_only ||
	    (run->flags & MEMWALK_RUN_PFN_LIST) ||
	    !pte_present(mw_arch_leaf_pte(e->level, e->val)) || !folio_cached(d, e, pfn) ||
	    d->fc.zero || max > U32_MAX - run->nr_pages)
		return 0;
	n = folio_pages_stretch(pfn_to_page(pfn),
				min(max, d->fc.first_pfn + d->fc.nr - pfn) - 1,
				d->folio && !d->smaps) + 1;
	for (; n < max; n++) {
		if (!folio_cached(d, e, pfn + n) ||
		    !folio_page_continues(d, run, pfn + n))
			break;
	}
	return n - 1;
}

/*
 * Whether every page of the leaf @e from @addr on has the fields of @run,
 * @addr's, but for its PFN (the next one each time).
 */
static bool leaf_uniform(const struct memwalk_decoder *d,
			 const struct memwalk_entry *e,
			 const struct memwalk_page_run *run, unsigned long addr)
{
	/* No struct page read: the entry's bits alone. */
	if (d->entry_only || (run->flags & MEMWALK_RUN_SPECIAL))
		return true;
	/* Behind a migration entry only folio-wide state is read. */
	if (!pte_present(mw_arch_leaf_pte(e->level, e->val)))
		return true;
	/* A hugetlb page's state is its folio's, but for the first page. */
	return e->hugetlb && addr != e->entry_addr;
}

/* memwalk_decode_entry() but for the check. */
static int decode_entry(struct memwalk_decoder *d, struct memwalk_walk *w,
			const struct memwalk_entry *e,
			struct memwalk_run_sink *sink)
{
	struct memwalk_page_run run;
	unsigned long addr, n, since = 0;
	int ret;

	for (addr = e->addr; addr < e->end; addr += PAGE_SIZE) {
		if (since >= PTRS_PER_PTE) {
			since = 0;
			if (memwalk_should_pause(w)) {
				w->next = addr;
				return MEMWALK_WALK_PAUSE;
			}
		}
		memwalk_decode_page(d, e, addr, &run);
		if (!run.nr_pages)
			break;
		if (addr + PAGE_SIZE < e->end && leaf_uniform(d, e, &run, addr)) {
			run.nr_pages = (e->end - addr) >> PAGE_SHIFT;
			addr = e->end - PAGE_SIZE;
		}
		ret = memwalk_sink_add(d, w, sink, &run);
		if (ret)
			return ret;
		n = leaf_stretch(d, e, &sink->open, addr, e->end);
		sink->open.nr_pages += n;
		addr += n << PAGE_SHIFT;
		since += n + 1;
	}
	w->next = e->end;
	return 0;
}

/**
 * memwalk_decode_entry() - describe every page @e maps in [e->addr, e->end)
 * @d: the decoder
 * @w: the walk; w->next is advanced past what @sink accepted
 * @e: the entry (a leaf above the PTE level, or one PTE)
 * @sink: takes the runs, in address order
 *
 * A present PMD or PUD leaf with struct pages is decoded page by page
 * (the precise mapcount and hwpoison are per page; the folio's state is
 * read once, and a page like the one before costs only its own state,
 * see leaf_stretch()); a hugetlb page as its first page and then the rest
 * at once (its state is the folio's), and any leaf whose pages all read
 * alike (leaf_uniform()) at once.  Page by page, the walk may pause
 * inside a leaf (a PUD leaf has 262144 pages).
 *
 * With check_fast_paths set, the pages decoded are then decoded again one
 * by one and compared (fastcheck.c).
 *
 * Locking: as memwalk_decode_page().
 *
 * Return: 0, or MEMWALK_WALK_PAUSE/STOP with w->next at the refused page.
 */
int memwalk_decode_entry(struct memwalk_decoder *d,
			 struct memwalk_walk *w, const struct memwalk_entry *e,
			 struct memwalk_run_sink *sink)
{
	u32 nr = sink->nr;

	return memwalk_fastcheck_after(d, w, e, sink, nr,
				       decode_entry(d, w, e, sink));
}

/* The walker callbacks of a struct memwalk_decoding: every entry becomes runs. */
int memwalk_decoding_entry(struct memwalk_walk *w, const struct memwalk_entry *e)
{
	struct memwalk_decoding *dw = container_of(w, struct memwalk_decoding, walk);

	return memwalk_decode_entry(&dw->dec, w, e, &dw->sink);
}

int memwalk_decoding_ptes(struct memwalk_walk *w, const struct memwalk_entry *e)
{
	struct memwalk_decoding *dw = container_of(w, struct memwalk_decoding, walk);

	return memwalk_decode_ptes(&dw->dec, w, e, &dw->sink);
}

/*
 * ->table: an upper-level entry.  A none one in a shmem VMA (want_none is
 * set only there) is a hole to look up in the page cache.
 */
int memwalk_decoding_table(struct memwalk_walk *w, const struct memwalk_entry *e)
{
	struct memwalk_decoding *dw = container_of(w, struct memwalk_decoding, walk);

	if (e->val || !dw->dec.shmem)
		return MEMWALK_WALK_CONTINUE;
	return memwalk_decode_shmem_hole(&dw->dec, w, e->addr, e->end, &dw->sink);
}

/**
 * memwalk_decoding_vma() - get the decoder of @dw ready for @vma
 * @dw: the walk
 * @vma: the VMA about to be walked
 * @shmem_holes: whether none entries of a shmem VMA are looked up in its
 *	page cache (pages in swap): never in entry-only mode
 *
 * Locking: mmap_lock held (from a ->vma callback).
 */
void memwalk_decoding_vma(struct memwalk_decoding *dw,
			  struct vm_area_struct *vma, bool shmem_holes)
{
	dw->dec.vma = vma;
	dw->dec.part_folio = NULL;
	dw->dec.shmem = NULL;
	/*
	 * A file none of whose pages is in swap has no hole to look up
	 * (its count goes up before the swap entry goes in, and smaps too
	 * reads it first): tmpfs libraries' holes cost nothing then.
	 */
	if (shmem_holes && vma->vm_file && shmem_mapping(vma->vm_file->f_mapping) &&
	    READ_ONCE(SHMEM_I(file_inode(vma->vm_file))->swapped))
		dw->dec.shmem = vma->vm_file->f_mapping;
	dw->walk.want_none = !!dw->dec.shmem;
}

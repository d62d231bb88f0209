// SPDX-License-Identifier: GPL-2.0
/*
 * memwalk: what a page-table entry maps, as struct memwalk_page_run fields
 * (the policy half of the walker).
 *
 * Everything here runs in the walker's entry callbacks, under the lock of
 * the entry decoded (see walk.c), in atomic context.  A present entry's
 * page cannot be unmapped or freed while that lock is held, and a
 * migration entry's page is locked and referenced by the migration, so
 * the struct page and folio are read without further references.  Only
 * pages from pfn_to_online_page() are looked at: never ZONE_DEVICE,
 * offline or hole PFNs, and never PFN-mapped VMAs.  Nothing is written.
 */
#include <linux/hugetlb.h>
#include <linux/memcontrol.h>
#include <linux/memory_hotplug.h>
#include <linux/mm.h>
#include <linux/mm_inline.h>
#include <linux/mmzone.h>
#include <linux/page-flags.h>
#include <linux/page_idle.h>
#include <linux/pgtable.h>
#include <linux/rcupdate.h>
#include <linux/string.h>

#include "memwalk.h"

#define KPF(bit)	(1U << MEMWALK_KPF_##bit)
#define FOLIO(bit)	(1U << MEMWALK_FOLIO_##bit)

static u32 kpf_bit(unsigned long k, int pg, u32 bit)
{
	return (k & (1UL << pg)) ? bit : 0;
}

/*
 * The bits /proc/kpageflags (fs/proc/page.c stable_page_flags()) reports
 * for @page, computed the same way on each kernel line, plus memwalk's
 * MLOCKED and WORKINGSET copied from the same flags word.
 */
static u32 kpageflags(struct folio *folio, struct page *page,
		      unsigned long pfn)
{
	unsigned long k = mw_kpf_flags_word(folio, page);
	u32 u = 0;

	if (mw_kpf_mmap(folio, page))
		u |= KPF(MMAP);
	if (folio_test_anon(folio)) {
		u |= KPF(ANON);
		if (folio_test_ksm(folio))
			u |= KPF(KSM);
	}

	if (folio_test_hugetlb(folio))
		u |= KPF(HUGE);
	else if (mw_kpf_thp(folio, page))
		u |= KPF(THP);
	else if (mw_folio_huge_zero(folio))
		u |= KPF(ZERO_PAGE) | KPF(THP);
	else if (is_zero_pfn(pfn))
		u |= KPF(ZERO_PAGE);

#ifdef CONFIG_PAGE_IDLE_FLAG
	if (folio_test_idle(folio))
		u |= KPF(IDLE);
#endif

	u |= kpf_bit(k, PG_locked, KPF(LOCKED));
	u |= kpf_bit(k, PG_dirty, KPF(DIRTY));
	u |= kpf_bit(k, PG_uptodate, KPF(UPTODATE));
	u |= kpf_bit(k, PG_writeback, KPF(WRITEBACK));
	u |= kpf_bit(k, PG_lru, KPF(LRU));
	u |= kpf_bit(k, PG_referenced, KPF(REFERENCED));
	u |= kpf_bit(k, PG_active, KPF(ACTIVE));
	u |= kpf_bit(k, PG_reclaim, KPF(RECLAIM));
	if (folio_test_swapcache(folio))
		u |= KPF(SWAPCACHE);
	u |= kpf_bit(k, PG_swapbacked, KPF(SWAPBACKED));
	u |= kpf_bit(k, PG_unevictable, KPF(UNEVICTABLE));
	u |= kpf_bit(k, PG_mlocked, FOLIO(MLOCKED));
	u |= kpf_bit(k, PG_workingset, FOLIO(WORKINGSET));
	if (mw_kpf_hwpoison(folio, page))
		u |= KPF(HWPOISON);

	return u;
}

/**
 * memwalk_mglru_reported() - whether runs can carry an MGLRU generation
 *
 * Locking: none.
 *
 * Return: true when the kernel was built with MGLRU.  Whether it is on is
 * not knowable (lru_gen_caps is not exported): then every run says -1.
 */
bool memwalk_mglru_reported(void)
{
	return IS_ENABLED(CONFIG_LRU_GEN);
}

/*
 * Age of @folio's MGLRU generation, 0 = youngest, or -1 when it is not on
 * an MGLRU list.  lru_gen_enabled() and folio_lruvec() are not usable
 * (lru_gen_caps and, before 7.x, root_mem_cgroup are not exported), so the
 * lruvec is found from folio_memcg() directly; a folio without a memcg
 * while memcg is enabled (not charged) reports -1.
 */
static s8 folio_gen_age(struct folio *folio)
{
#ifdef CONFIG_LRU_GEN
	struct lruvec *lruvec = NULL;
	struct mem_cgroup *memcg;
	unsigned long max_seq;
	int gen, nid;

	gen = folio_lru_gen(folio);
	if (gen < 0)
		return -1;
	nid = folio_nid(folio);

	/* RCU: keeps the folio's memcg and its per-node info alive. */
	rcu_read_lock();
	memcg = folio_memcg(folio);
	if (memcg)
		lruvec = &memcg->nodeinfo[nid]->lruvec;
	else if (mem_cgroup_disabled())
		lruvec = &NODE_DATA(nid)->__lruvec;
	if (!lruvec) {
		rcu_read_unlock();
		return -1;
	}
	max_seq = READ_ONCE(lruvec->lrugen.max_seq);
	rcu_read_unlock();

	return (lru_gen_from_seq(max_seq) - gen + MAX_NR_GENS) % MAX_NR_GENS;
#else
	return -1;
#endif
}

/*
 * Whether the large @folio, PTE-mapped at @addr by @e, is only partly
 * mapped in this VMA: some page of it lies outside the VMA, outside this
 * PTE table (conservatively: a folio straddling two tables counts as
 * partial), or is not mapped at its place in the table.  The answer is
 * cached per folio for the current PTE-table lock.
 */
static bool folio_partial(struct memwalk_decoder *d,
			  const struct memwalk_entry *e, struct folio *folio,
			  unsigned long pfn, unsigned long addr)
{
	unsigned long first = folio_pfn(folio);
	unsigned long span = addr - ((pfn - first) << PAGE_SHIFT);
	unsigned long nr = folio_nr_pages(folio);
	unsigned long table_start = addr & PMD_MASK;
	unsigned long i;
	bool partial = false;

	if (d->part_folio == folio && d->part_seq == e->lock_seq)
		return d->part_result;

	if (span < d->vma->vm_start || span + (nr << PAGE_SHIFT) > d->vma->vm_end ||
	    span < table_start || span + (nr << PAGE_SHIFT) > table_start + PMD_SIZE) {
		partial = true;
	} else {
		const pte_t *pte = e->pte_table + ((span - table_start) >> PAGE_SHIFT);

		for (i = 0; i < nr; i++, pte++) {
			pte_t v = ptep_get((pte_t *)pte);

			if (!pte_present(v) || pte_pfn(v) != first + i) {
				partial = true;
				break;
			}
		}
	}

	d->part_folio = folio;
	d->part_seq = e->lock_seq;
	d->part_result = partial;
	return partial;
}

static unsigned long leaf_pfn(const struct memwalk_entry *e)
{
	switch (e->level) {
	case MEMWALK_PGT_PUD:
		return pud_pfn(__pud(e->val));
	case MEMWALK_PGT_PMD:
		return pmd_pfn(__pmd(e->val));
	default:
		return pte_pfn(__pte(e->val));
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

/* Hardware and software bits of a present entry (any level, x86-64). */
static u32 present_bits(pte_t pte)
{
	pteval_t v = pte_flags(pte);
	u32 f = 0;

	if (v & _PAGE_RW)
		f |= MEMWALK_RUN_WRITE;
	if (v & _PAGE_USER)
		f |= MEMWALK_RUN_USER;
	/*
	 * pte_dirty(), not _PAGE_DIRTY: since 6.6 x86 moves Dirty to the
	 * software SavedDirty bit when it write-protects an entry (fork COW,
	 * mprotect, clear_refs), and the page is no less dirty for it.
	 */
	if (pte_dirty(pte))
		f |= MEMWALK_RUN_DIRTY;
	if (v & _PAGE_ACCESSED)
		f |= MEMWALK_RUN_ACCESSED;
	if (v & _PAGE_NX)
		f |= MEMWALK_RUN_NX;
	if (v & _PAGE_GLOBAL)
		f |= MEMWALK_RUN_GLOBAL;
	if (pte_soft_dirty(pte))
		f |= MEMWALK_RUN_SOFT_DIRTY;
	if (pte_uffd_wp(pte))
		f |= MEMWALK_RUN_UFFD_WP;
	return f;
}

/* Whether @pfn lies in the folio cached under the current lock hold. */
static bool folio_cached(const struct memwalk_decoder *d,
			 const struct memwalk_entry *e, unsigned long pfn)
{
	const struct memwalk_folio_cache *c = &d->fc;

	return c->folio && c->seq == e->lock_seq && pfn - c->first_pfn < c->nr;
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
	page = pfn_to_online_page(pfn);
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

/*
 * The folio-level state of @folio into d->fc: the same for every page of
 * the folio, so read once per folio and lock hold.
 */
static void folio_state(struct memwalk_decoder *d,
			const struct memwalk_entry *e, struct folio *folio,
			struct page *page, unsigned long pfn, bool zero)
{
	struct memwalk_folio_cache *c = &d->fc;

	c->folio = folio;
	c->seq = e->lock_seq;
	c->first_pfn = folio_pfn(folio);
	c->nr = folio_nr_pages(folio);
	c->zero = zero;
	c->flags = 0;
	if (!zero) {
		if (folio_test_anon(folio))
			c->flags |= MEMWALK_RUN_ANON;
		else
			c->flags |= MEMWALK_RUN_FILE;
		/* Swap-backed page cache is shmem/tmpfs. */
		if (!folio_test_anon(folio) && folio_test_swapbacked(folio))
			c->flags |= MEMWALK_RUN_SHMEM;
		if (folio_test_dirty(folio))
			c->flags |= MEMWALK_RUN_FOLIO_DIRTY;
	}
	if (!d->folio)
		return;
	c->refcount = max(folio_ref_count(folio), 0);
	c->nid = folio_nid(folio);
	c->order = folio_order(folio);
	c->lru_gen = folio_gen_age(folio);
	if (MW_KPF_FOLIO_WIDE)
		c->kpf = kpageflags(folio, page, pfn) & ~KPF(HWPOISON);
}

/*
 * Run fields that come from the page (present or migration entries):
 * the folio's from d->fc, the page's own (mapcount, and kpageflags, which
 * on 6.1 come from the page's flags) for every page.  Only a present
 * entry's folio stays in d->fc past this call.
 */
static void page_fields(struct memwalk_decoder *d,
			const struct memwalk_entry *e, struct page *page,
			unsigned long pfn, unsigned long addr, bool zero,
			bool present, struct memwalk_page_run *run)
{
	struct memwalk_folio_cache *c = &d->fc;
	struct folio *folio;
	int mapcount = 0;

	if (present && folio_cached(d, e, pfn))
		folio = c->folio;
	else
		folio = page_folio(page);
	if (folio != c->folio || c->seq != e->lock_seq)
		folio_state(d, e, folio, page, pfn, zero);

	if (!zero) {
		run->flags |= c->flags;
		mapcount = mw_page_mapcount(folio, page);
		if (present && mapcount == 1)
			run->flags |= MEMWALK_RUN_EXCLUSIVE;
	}
	if (d->folio) {
		if (!MW_KPF_FOLIO_WIDE)
			run->folio_flags = kpageflags(folio, page, pfn);
		else if (mw_kpf_hwpoison(folio, page))
			run->folio_flags = c->kpf | KPF(HWPOISON);
		else
			run->folio_flags = c->kpf;
		if (folio_test_large(folio) && present) {
			if (e->level == MEMWALK_PGT_PMD) {
				run->folio_flags |= FOLIO(PMD_MAPPED);
			} else if (e->level == MEMWALK_PGT_PTE) {
				run->folio_flags |= FOLIO(PTE_MAPPED);
				if (folio_partial(d, e, folio, pfn, addr))
					run->folio_flags |= FOLIO(PARTIAL);
			}
		}
		run->mapcount = max(mapcount, 0);
		run->refcount = c->refcount;
		run->nid = c->nid;
		run->order = c->order;
		run->lru_gen = c->lru_gen;
	}
	if (!present)
		c->folio = NULL;
}

static void decode_present(struct memwalk_decoder *d,
			   const struct memwalk_entry *e, pte_t pte,
			   unsigned long addr, struct memwalk_page_run *run)
{
	unsigned long pfn = leaf_pfn(e) + ((addr - e->entry_addr) >> PAGE_SHIFT);
	struct page *page;
	bool zero;

	run->flags |= MEMWALK_STATE_PRESENT | present_bits(pte);
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
		page_fields(d, e, page, pfn, addr, zero, true, run);
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
		page_fields(d, e, page, pfn, addr, false, false, run);
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
	pte_t pte = __pte(e->val);

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

static bool run_has_pfn(const struct memwalk_page_run *run)
{
	return (run->flags & MEMWALK_RUN_STATE_MASK) != MEMWALK_STATE_MARKER;
}

/**
 * memwalk_run_extends() - whether @b continues the run @a
 * @d: the decoder both were made by
 * @a: a run
 * @b: the run after it
 *
 * True when @b starts where @a ends, every field but start, pfn and
 * nr_pages is equal, and (when PFNs are shown and the state has one) @b's
 * PFN or swap offset follows @a's last one.
 *
 * Locking: none.
 */
bool memwalk_run_extends(const struct memwalk_decoder *d,
			 const struct memwalk_page_run *a,
			 const struct memwalk_page_run *b)
{
	if (a->start + ((u64)a->nr_pages << PAGE_SHIFT) != b->start)
		return false;
	if (a->flags != b->flags || a->folio_flags != b->folio_flags ||
	    a->mapcount != b->mapcount || a->refcount != b->refcount ||
	    a->nid != b->nid || a->order != b->order ||
	    a->lru_gen != b->lru_gen)
		return false;
	if ((u64)a->nr_pages + b->nr_pages > U32_MAX)
		return false;
	if (!d->hide_pfn && run_has_pfn(a) && a->pfn + a->nr_pages != b->pfn)
		return false;
	return true;
}

/*
 * Pages decoded but not yet emitted, merged into one run as they come,
 * so @emit is called once per run rather than once per page.
 */
struct run_acc {
	struct memwalk_page_run run;
	bool have;
};

static int acc_add(struct memwalk_decoder *d, struct memwalk_walk *w,
		   struct run_acc *acc, const struct memwalk_page_run *run,
		   memwalk_emit_fn emit, void *ctx)
{
	int ret;

	if (acc->have && memwalk_run_extends(d, &acc->run, run)) {
		acc->run.nr_pages += run->nr_pages;
		return 0;
	}
	if (acc->have) {
		/* Refused: the walk resumes at the refused run's first page. */
		w->next = acc->run.start;
		ret = emit(ctx, &acc->run);
		if (ret)
			return ret;
	}
	acc->run = *run;
	acc->have = true;
	return 0;
}

static int acc_finish(struct memwalk_walk *w, struct run_acc *acc,
		      unsigned long end, memwalk_emit_fn emit, void *ctx)
{
	int ret;

	if (acc->have) {
		w->next = acc->run.start;
		ret = emit(ctx, &acc->run);
		if (ret)
			return ret;
	}
	w->next = end;
	return 0;
}

/*
 * How many pages after @addr (up to @end) under the PMD leaf @e continue
 * @run, the run ending with @addr's page: pages of the folio cached for
 * this lock hold differ from each other only in their own state (precise
 * mapcount, and kpageflags where they come from the page), so only that
 * is read for each.
 */
static unsigned long leaf_stretch(struct memwalk_decoder *d,
				  const struct memwalk_entry *e,
				  const struct memwalk_page_run *run,
				  unsigned long addr, unsigned long end)
{
	const struct memwalk_folio_cache *c = &d->fc;
	unsigned long pfn = leaf_pfn(e) + ((addr - e->entry_addr) >> PAGE_SHIFT);
	unsigned long n, max = (end - addr) >> PAGE_SHIFT;
	struct memwalk_page_run next;

	if (e->level != MEMWALK_PGT_PMD || e->hugetlb || d->entry_only ||
	    !pte_present(__pte(e->val)) || !folio_cached(d, e, pfn) || c->zero)
		return 0;
	next = *run;
	for (n = 1; n < max; n++) {
		struct page *page;
		int mapcount;

		if (!folio_cached(d, e, pfn + n))
			break;
		page = pfn_to_page(pfn + n);
		mapcount = mw_page_mapcount(c->folio, page);
		next.flags &= ~MEMWALK_RUN_EXCLUSIVE;
		if (mapcount == 1)
			next.flags |= MEMWALK_RUN_EXCLUSIVE;
		if (d->folio) {
			next.mapcount = max(mapcount, 0);
			next.folio_flags = !MW_KPF_FOLIO_WIDE ?
				kpageflags(c->folio, page, pfn + n) :
				run->folio_flags & ~KPF(HWPOISON);
			if (MW_KPF_FOLIO_WIDE && mw_kpf_hwpoison(c->folio, page))
				next.folio_flags |= KPF(HWPOISON);
			if (folio_test_large(c->folio))
				next.folio_flags |= FOLIO(PMD_MAPPED);
		}
		if (next.flags != run->flags ||
		    next.folio_flags != run->folio_flags ||
		    next.mapcount != run->mapcount)
			break;
	}
	return n - 1;
}

/**
 * memwalk_decode_entry() - describe every page @e maps in [e->addr, e->end)
 * @d: the decoder
 * @w: the walk; w->next is advanced past what @emit accepted
 * @e: the entry (a leaf above the PTE level, or one PTE)
 * @emit: called with runs in address order; a non-zero return stops
 * @ctx: for @emit
 *
 * A PMD leaf is decoded page by page (per-page mapcount and, on 6.1,
 * per-page flags differ; the folio's state is read once, and a page like
 * the one before costs only its own state, see leaf_stretch()); a hugetlb
 * page as its first page and then the rest at once (its state is the
 * folio's), and in entry-only mode any leaf at once.
 *
 * Locking: as memwalk_decode_page().
 *
 * Return: 0, or what @emit returned, with w->next at the refused page.
 */
int memwalk_decode_entry(struct memwalk_decoder *d,
			 struct memwalk_walk *w, const struct memwalk_entry *e,
			 memwalk_emit_fn emit, void *ctx)
{
	struct memwalk_page_run run;
	unsigned long addr, n;
	struct run_acc acc;
	int ret;

	acc.have = false;
	for (addr = e->addr; addr < e->end; addr += PAGE_SIZE) {
		memwalk_decode_page(d, e, addr, &run);
		if (!run.nr_pages)
			break;
		if ((d->entry_only || (e->hugetlb && addr != e->entry_addr)) &&
		    addr + PAGE_SIZE < e->end) {
			run.nr_pages = (e->end - addr) >> PAGE_SHIFT;
			addr = e->end - PAGE_SIZE;
		}
		ret = acc_add(d, w, &acc, &run, emit, ctx);
		if (ret)
			return ret;
		n = leaf_stretch(d, e, &acc.run, addr, e->end);
		acc.run.nr_pages += n;
		addr += n << PAGE_SHIFT;
	}
	return acc_finish(w, &acc, e->end, emit, ctx);
}

/* How a swap PTE's raw value changes from one swap slot to the next. */
static unsigned long swap_pte_step(void)
{
	return pte_val(swp_entry_to_pte(swp_entry(0, 2))) -
	       pte_val(swp_entry_to_pte(swp_entry(0, 1)));
}

/*
 * Whether the PTE @v, right after @prev (the last page of @run), merely
 * continues @run, so decoding it would give the same run fields: a swap
 * entry for the next slot of the same device with the same bits, or in
 * entry-only mode a present entry with all bits but the PFN equal and
 * the next PFN (any PFN when PFNs are hidden).
 */
static bool pte_continues(const struct memwalk_decoder *d,
			  const struct memwalk_page_run *run, pte_t prev,
			  pte_t v, unsigned long addr)
{
	if (run->start + ((u64)run->nr_pages << PAGE_SHIFT) != addr ||
	    run->nr_pages == U32_MAX)
		return false;
	if (!pte_present(v))
		return (run->flags & MEMWALK_RUN_STATE_MASK) == MEMWALK_STATE_SWAP &&
		       !d->hide_pfn &&
		       pte_val(v) - pte_val(prev) == swap_pte_step();
	if (!d->entry_only || !pte_present(prev) ||
	    ((pte_val(v) ^ pte_val(prev)) & ~PTE_PFN_MASK))
		return false;
	if (is_zero_pfn(pte_pfn(v)) || (run->flags & MEMWALK_RUN_ZERO))
		return false;
	return d->hide_pfn || pte_pfn(v) == pte_pfn(prev) + 1;
}

/*
 * How many PTEs after @pte (at most @max) continue the run whose last page
 * @v (the value at @pte) maps, judged by raw value alone: each must be the
 * one before plus a step known to mean "the next swap slot, same bits"
 * or, in entry-only mode, "the next PFN, same bits".  One load and one
 * compare per PTE: this is what makes long runs cheap.
 */
static unsigned int pte_stretch(const struct memwalk_decoder *d,
				const struct memwalk_page_run *run, pte_t v,
				const pte_t *pte, unsigned int max)
{
	unsigned long pfn = pte_pfn(v);
	u64 raw = pte_val(v), step;
	bool present = pte_present(v);
	unsigned int n;

	if (d->hide_pfn || !max)
		return 0;
	if (present) {
		if (!d->entry_only || (run->flags & MEMWALK_RUN_ZERO) ||
		    pte_pfn(__pte(raw + PAGE_SIZE)) != pfn + 1)
			return 0;
		step = PAGE_SIZE;
	} else {
		if ((run->flags & MEMWALK_RUN_STATE_MASK) != MEMWALK_STATE_SWAP)
			return 0;
		step = swap_pte_step();
	}
	for (n = 0; n < max; n++) {
		raw += step;
		if (pte_val(ptep_get((pte_t *)pte + 1 + n)) != raw)
			break;
		if (present && is_zero_pfn(pfn + 1 + n))
			break;
	}
	return n;
}

/**
 * memwalk_decode_ptes() - describe the pages of a PTE table's range
 * @d: the decoder
 * @w: the walk; w->next is advanced past what @emit accepted
 * @e: the range: e->pte_table the locked table, [e->addr, e->end) in it
 * @emit: called with runs in address order; a non-zero return stops
 * @ctx: for @emit
 *
 * One pass over the entries: none entries are skipped, the others merged
 * into runs before @emit sees them; an entry that merely continues the
 * run (see pte_continues()) is counted without decoding.
 *
 * Locking: under the PTE table's lock and RCU (walk.c), mmap_lock held.
 *
 * Return: 0, or what @emit returned, with w->next at the refused page.
 */
int memwalk_decode_ptes(struct memwalk_decoder *d, struct memwalk_walk *w,
			const struct memwalk_entry *e, memwalk_emit_fn emit,
			void *ctx)
{
	struct memwalk_entry pe = *e;
	pte_t *pte = e->pte_table + pte_index(e->addr);
	struct memwalk_page_run run;
	pte_t prev = __pte(0);
	struct run_acc acc;
	unsigned long addr;
	int ret;

	acc.have = false;
	for (addr = e->addr; addr != e->end; addr += PAGE_SIZE, pte++) {
		pte_t v = ptep_get(pte);
		unsigned int n;

		if (pte_none(v))
			continue;
		if (acc.have && pte_continues(d, &acc.run, prev, v, addr)) {
			acc.run.nr_pages++;
		} else {
			pe.addr = addr;
			pe.end = addr + PAGE_SIZE;
			pe.entry_addr = addr;
			pe.val = pte_val(v);
			pe.index = pte_index(addr);
			memwalk_decode_page(d, &pe, addr, &run);
			ret = acc_add(d, w, &acc, &run, emit, ctx);
			if (ret)
				return ret;
		}
		/* acc.run now ends with the page @v maps. */
		prev = v;
		n = pte_stretch(d, &acc.run, v, pte,
				((e->end - addr) >> PAGE_SHIFT) - 1);
		if (n) {
			acc.run.nr_pages += n;
			addr += (unsigned long)n << PAGE_SHIFT;
			pte += n;
			prev = ptep_get(pte);
		}
	}
	return acc_finish(w, &acc, e->end, emit, ctx);
}

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
#include <linux/xarray.h>

#include "memwalk.h"

#define KPF(bit)	(1U << MEMWALK_KPF_##bit)
#define FOLIO(bit)	(1U << MEMWALK_FOLIO_##bit)

static bool mw_folio_test_idle(struct folio *folio)
{
#ifdef CONFIG_PAGE_IDLE_FLAG
	return folio_test_idle(folio);
#else
	return false;
#endif
}

static u32 kpf_bit(unsigned long k, int pg, u32 bit)
{
	return (k & (1UL << pg)) ? bit : 0;
}

/*
 * The bits /proc/kpageflags (fs/proc/page.c stable_page_flags()) reports
 * for @page, computed the same way on each kernel line, plus memwalk's
 * MLOCKED and WORKINGSET copied from the same flags word: the folio's
 * (on 6.1, where kpageflags reads a tail page's own, that of its head).
 */
static u32 kpageflags(struct folio *folio, struct page *page,
		      unsigned long pfn)
{
	unsigned long k = mw_folio_flags_word(folio);
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

	if (mw_folio_test_idle(folio))
		u |= KPF(IDLE);

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
 * pfn_to_online_page() for a PFN of a mapped page, remembering the last
 * online subsection for the current lock hold: offlining must first
 * unmap the pages we see mapped under that lock.
 */
static struct page *mapped_online_page(struct memwalk_decoder *d,
				       const struct memwalk_entry *e,
				       unsigned long pfn)
{
	unsigned long sub = pfn >> PFN_SUBSECTION_SHIFT;
	struct page *page;

	if (d->online_seq == e->lock_seq && d->online_sub == sub)
		return pfn_to_page(pfn);
	page = pfn_to_online_page(pfn);
	if (page) {
		d->online_sub = sub;
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
	page = mapped_online_page(d, e, pfn);
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

/* Out of line: the inputs repeat for most pages (see folio_kpf()). */
static noinline u32 folio_kpf_fill(struct memwalk_kpf_memo *m,
				   struct folio *folio, struct page *page,
				   unsigned long pfn)
{
	m->kpf = kpageflags(folio, page, pfn) & ~KPF(HWPOISON);
	m->valid = true;
	return m->kpf;
}

/*
 * kpageflags() but KPF_HWPOISON of @page of @folio: folio-wide, so read
 * once per folio and lock hold (folio_state()).  For a base page they
 * depend only on its flags word and its anon/KSM, mapped and idle bits
 * (it is neither hugetlb, THP nor a zero page), which most base pages
 * share with the one before: then the last result is taken.
 */
static u32 folio_kpf(struct memwalk_decoder *d, struct folio *folio,
		     struct page *page, unsigned long pfn, bool zero)
{
	struct memwalk_kpf_memo *m = &d->kpf_memo;
	unsigned long k;
	u8 bits;

	if (zero || folio_test_large(folio))
		return kpageflags(folio, page, pfn) & ~KPF(HWPOISON);
	k = mw_folio_flags_word(folio);
	bits = folio_test_anon(folio) | folio_test_ksm(folio) << 1 |
	       folio_mapped(folio) << 2 | mw_folio_test_idle(folio) << 3;
	if (m->valid && m->flags == k && m->bits == bits)
		return m->kpf;
	m->flags = k;
	m->bits = bits;
	return folio_kpf_fill(m, folio, page, pfn);
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
	c->kpf = folio_kpf(d, folio, page, pfn, zero);
}

/*
 * Run fields that come from the page (present or migration entries):
 * the folio's from d->fc, the page's own (mapcount, KPF_HWPOISON) for
 * every page.  Only a present
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
		run->folio_flags = c->kpf;
		if (mw_kpf_hwpoison(folio, page))
			run->folio_flags |= KPF(HWPOISON);
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

/* Whether @a and @b are equal in the fields that come from the folio. */
static bool run_folio_fields_equal(const struct memwalk_page_run *a,
				   const struct memwalk_page_run *b)
{
	return a->folio_flags == b->folio_flags &&
	       a->mapcount == b->mapcount && a->refcount == b->refcount &&
	       a->nid == b->nid && a->order == b->order &&
	       a->lru_gen == b->lru_gen;
}

/* Whether @a and @b are equal in every field but start, pfn, nr_pages. */
static bool run_fields_equal(const struct memwalk_page_run *a,
			     const struct memwalk_page_run *b)
{
	return a->flags == b->flags && run_folio_fields_equal(a, b);
}

/*
 * Whether @b continues the run @a: @b starts where @a ends, every field
 * but start, pfn and nr_pages is equal, and (when PFNs are shown and the
 * state has one) @b's PFN or swap offset follows @a's last one.
 */
static bool run_extends(const struct memwalk_decoder *d,
			const struct memwalk_page_run *a,
			const struct memwalk_page_run *b)
{
	if (a->start + ((u64)a->nr_pages << PAGE_SHIFT) != b->start)
		return false;
	if (!run_fields_equal(a, b))
		return false;
	if ((u64)a->nr_pages + b->nr_pages > U32_MAX)
		return false;
	if (!d->hide_pfn && run_has_pfn(a) && a->pfn + a->nr_pages != b->pfn)
		return false;
	return true;
}

/*
 * @run becomes the sink's open run; the one it replaces goes to the
 * bounce buffer.  Refused (w->next at @run, which is not taken) when the
 * caller's buffer has no slot for both or the bounce buffer is full.
 */
static int sink_push(struct memwalk_decoder *d, struct memwalk_walk *w,
		     struct memwalk_run_sink *sink,
		     const struct memwalk_page_run *run)
{
	if (sink->have_open) {
		if (sink->nr + 2 > sink->slots) {
			w->next = run->start;
			return MEMWALK_WALK_STOP;
		}
		if (sink->nr == sink->cap) {
			w->next = run->start;
			return MEMWALK_WALK_PAUSE;
		}
		sink->runs[sink->nr++] = sink->open;
	} else if (sink->nr >= sink->slots) {
		w->next = run->start;
		return MEMWALK_WALK_STOP;
	}
	sink->open = *run;
	sink->have_open = true;
	sink->open_vm_start = d->vma->vm_start;
	return 0;
}

/*
 * Whether the one-page run @b, right after the open run, can join it as a
 * listed PFN: a present page alike in every field whose PFN does not
 * follow the last one, and an open run that is listed already or one page
 * long.
 */
static bool run_lists(const struct memwalk_decoder *d,
		      const struct memwalk_run_sink *sink,
		      const struct memwalk_page_run *b)
{
	const struct memwalk_page_run *a = &sink->open;
	bool listed = a->flags & MEMWALK_RUN_PFN_LIST;

	return d->pfn_list && b->nr_pages == 1 &&
	       (b->flags & MEMWALK_RUN_STATE_MASK) == MEMWALK_STATE_PRESENT &&
	       (a->flags & ~MEMWALK_RUN_PFN_LIST) == b->flags &&
	       run_folio_fields_equal(a, b) &&
	       (listed || a->nr_pages == 1) && a->nr_pages < U32_MAX &&
	       a->start + ((u64)a->nr_pages << PAGE_SHIFT) == b->start &&
	       b->pfn != (listed ? sink->open_last_pfn : a->pfn) + 1;
}

/*
 * @b's PFN joins the open run's list, which starts with its own PFN if it
 * was not listed yet.  Return: 0; -ENOSPC when the caller's pfn_buf has no
 * room for that (@b is to be pushed instead); MEMWALK_WALK_PAUSE, with
 * w->next at @b, when the bounce buffer has not.
 */
static int sink_list(struct memwalk_walk *w, struct memwalk_run_sink *sink,
		     const struct memwalk_page_run *b)
{
	struct memwalk_page_run *a = &sink->open;
	u32 need = a->flags & MEMWALK_RUN_PFN_LIST ? 1 : 2;

	if (sink->pfn_slots < need)
		return -ENOSPC;
	if (sink->pfn_nr + need > sink->pfn_cap) {
		w->next = b->start;
		return MEMWALK_WALK_PAUSE;
	}
	if (need == 2) {
		sink->pfns[sink->pfn_nr] = a->pfn;
		a->pfn = sink->pfn_base + sink->pfn_nr++;
		a->flags |= MEMWALK_RUN_PFN_LIST;
	}
	sink->pfns[sink->pfn_nr++] = b->pfn;
	sink->pfn_slots -= need;
	sink->open_last_pfn = b->pfn;
	a->nr_pages++;
	return 0;
}

/* @run joins the open run if it continues it, else is pushed. */
static int sink_add(struct memwalk_decoder *d, struct memwalk_walk *w,
		    struct memwalk_run_sink *sink,
		    const struct memwalk_page_run *run)
{
	int ret;

	if (sink->have_open && sink->open_vm_start == d->vma->vm_start) {
		if (run_extends(d, &sink->open, run)) {
			sink->open.nr_pages += run->nr_pages;
			return 0;
		}
		if (run_lists(d, sink, run)) {
			ret = sink_list(w, sink, run);
			if (ret != -ENOSPC)
				return ret;
		}
	}
	return sink_push(d, w, sink, run);
}

/* Run flags that come from the page, not from the entry. */
#define PAGE_RUN_FLAGS	(MEMWALK_RUN_ANON | MEMWALK_RUN_FILE | \
			 MEMWALK_RUN_SHMEM | MEMWALK_RUN_FOLIO_DIRTY | \
			 MEMWALK_RUN_EXCLUSIVE)

/*
 * Whether the page @pfn of the folio cached for this lock hold, mapped
 * through @e with the same entry bits as the last page of @run (a page
 * of that folio), gives the same run fields: only the page's own state
 * (precise mapcount, hwpoison) is read.
 */
static __always_inline bool folio_page_continues(struct memwalk_decoder *d,
						 const struct memwalk_page_run *run,
						 unsigned long pfn)
{
	const struct memwalk_folio_cache *c = &d->fc;
	struct page *page = pfn_to_page(pfn);
	int mapcount = mw_page_mapcount(c->folio, page);
	bool exclusive = mapcount == 1;
	u32 folio_flags;

	if (exclusive != !!(run->flags & MEMWALK_RUN_EXCLUSIVE))
		return false;
	if (!d->folio)
		return true;
	folio_flags = run->folio_flags & ~KPF(HWPOISON);
	if (mw_kpf_hwpoison(c->folio, page))
		folio_flags |= KPF(HWPOISON);
	return folio_flags == run->folio_flags && max(mapcount, 0) == run->mapcount;
}

/*
 * @run: the present page @pfn at @addr, which @e maps with the same entry
 * bits as the last page of @open (a present run with pages, not the zero
 * page).  Only what comes from the page is read again: @open's entry
 * fields stand.  False when it needs a full decode (a zero page, or a PFN
 * whose online page is not known).
 */
static __always_inline bool page_run_like(struct memwalk_decoder *d,
					  const struct memwalk_entry *e,
					  const struct memwalk_page_run *open,
					  unsigned long pfn, unsigned long addr,
					  struct memwalk_page_run *run)
{
	struct page *page;

	if (is_zero_pfn(pfn))
		return false;
	if (folio_cached(d, e, pfn)) {
		if (d->fc.zero)
			return false;
		page = pfn_to_page(pfn);
	} else {
		page = mapped_online_page(d, e, pfn);
		if (!page)
			return false;
	}
	*run = *open;
	run->start = addr;
	run->nr_pages = 1;
	run->pfn = d->hide_pfn ? 0 : pfn;
	run->flags &= ~(PAGE_RUN_FLAGS | MEMWALK_RUN_PFN_LIST);
	run->folio_flags = 0;
	run->mapcount = 0;
	run->refcount = 0;
	run->nid = 0;
	run->order = 0;
	run->lru_gen = -1;
	page_fields(d, e, page, pfn, addr, false, true, run);
	return true;
}

/* As folio_page_continues() for a present PTE-mapped page of any folio. */
static bool page_continues(struct memwalk_decoder *d,
			   const struct memwalk_entry *e,
			   const struct memwalk_page_run *run,
			   unsigned long pfn, unsigned long addr)
{
	struct memwalk_page_run next;

	if (folio_cached(d, e, pfn))
		return !d->fc.zero && !is_zero_pfn(pfn) &&
		       folio_page_continues(d, run, pfn);
	return page_run_like(d, e, run, pfn, addr, &next) &&
	       run_fields_equal(&next, run);
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
	    !pte_present(__pte(e->val)) || !folio_cached(d, e, pfn) ||
	    d->fc.zero || max > U32_MAX - run->nr_pages)
		return 0;
	for (n = 1; n < max; n++) {
		if (!folio_cached(d, e, pfn + n) ||
		    !folio_page_continues(d, run, pfn + n))
			break;
	}
	return n - 1;
}

/**
 * memwalk_decode_entry() - describe every page @e maps in [e->addr, e->end)
 * @d: the decoder
 * @w: the walk; w->next is advanced past what @sink accepted
 * @e: the entry (a leaf above the PTE level, or one PTE)
 * @sink: takes the runs, in address order
 *
 * A PMD leaf is decoded page by page (the precise mapcount and hwpoison
 * are per page; the folio's state is read once, and a page like the one
 * before costs only its own state, see leaf_stretch()); a hugetlb page as
 * its first page and then the rest at once (its state is the folio's),
 * and in entry-only mode any leaf at once.
 *
 * Locking: as memwalk_decode_page().
 *
 * Return: 0, or MEMWALK_WALK_PAUSE/STOP with w->next at the refused page.
 */
int memwalk_decode_entry(struct memwalk_decoder *d,
			 struct memwalk_walk *w, const struct memwalk_entry *e,
			 struct memwalk_run_sink *sink)
{
	struct memwalk_page_run run;
	unsigned long addr, n;
	int ret;

	for (addr = e->addr; addr < e->end; addr += PAGE_SIZE) {
		memwalk_decode_page(d, e, addr, &run);
		if (!run.nr_pages)
			break;
		if ((d->entry_only || (e->hugetlb && addr != e->entry_addr)) &&
		    addr + PAGE_SIZE < e->end) {
			run.nr_pages = (e->end - addr) >> PAGE_SHIFT;
			addr = e->end - PAGE_SIZE;
		}
		ret = sink_add(d, w, sink, &run);
		if (ret)
			return ret;
		n = leaf_stretch(d, e, &sink->open, addr, e->end);
		sink->open.nr_pages += n;
		addr += n << PAGE_SHIFT;
	}
	w->next = e->end;
	return 0;
}

/* How a swap PTE's raw value changes from one swap slot to the next. */
static unsigned long swap_pte_step(void)
{
	return pte_val(swp_entry_to_pte(swp_entry(0, 2))) -
	       pte_val(swp_entry_to_pte(swp_entry(0, 1)));
}

/*
 * How many PTEs after @pte (at most @max) continue @run, whose last page
 * @v (the value at @pte) maps, judged by raw value alone: a swap entry
 * for the next slot of the same device with the same bits or, in
 * entry-only mode, a present entry with the same bits for the next PFN
 * (any PFN but a zero page's when PFNs are hidden).  One load and one
 * compare per PTE: this is what makes long runs cheap.
 */
static unsigned int pte_stretch(const struct memwalk_decoder *d,
				const struct memwalk_page_run *run, pte_t v,
				const pte_t *pte, unsigned int max)
{
	unsigned long pfn = pte_pfn(v), zero;
	u64 raw = pte_val(v), step;
	bool present = pte_present(v);
	unsigned int n;

	if (!max || run->nr_pages > U32_MAX - max ||
	    (run->flags & MEMWALK_RUN_PFN_LIST))
		return 0;
	if (present) {
		if (!d->entry_only || (run->flags & MEMWALK_RUN_ZERO))
			return 0;
		if (d->hide_pfn) {
			for (n = 0; n < max; n++) {
				pte_t nv = ptep_get((pte_t *)pte + 1 + n);

				if ((pte_val(nv) ^ raw) & ~PTE_PFN_MASK ||
				    is_zero_pfn(pte_pfn(nv)))
					break;
			}
			return n;
		}
		if (pte_pfn(__pte(raw + PAGE_SIZE)) != pfn + 1 ||
		    pte_val(ptep_get((pte_t *)pte + 1)) != raw + PAGE_SIZE)
			return 0;
		/* The zero page (x86: one) ends a run: stop before it. */
		zero = page_to_pfn(ZERO_PAGE(0));
		if (zero > pfn && zero - pfn - 1 < max)
			max = zero - pfn - 1;
		step = PAGE_SIZE;
	} else {
		if ((run->flags & MEMWALK_RUN_STATE_MASK) != MEMWALK_STATE_SWAP ||
		    d->hide_pfn)
			return 0;
		step = swap_pte_step();
	}
	for (n = 0; n < max; n++) {
		raw += step;
		if (pte_val(ptep_get((pte_t *)pte + 1 + n)) != raw)
			break;
	}
	return n;
}

/* Consecutive PFNs from here on that end a PFN list: a run is cheaper. */
#define LIST_BREAK_PAGES	8

/* Whether the @nr PTEs after @pte each map the PFN after the one before. */
static bool ptes_follow(const pte_t *pte, unsigned int nr)
{
	u64 raw = pte_val(ptep_get((pte_t *)pte));
	unsigned int i;

	for (i = 1; i <= nr; i++) {
		raw += PAGE_SIZE;
		if (pte_val(ptep_get((pte_t *)pte + i)) != raw)
			return false;
	}
	return true;
}

/*
 * How many PTEs after @pte (at most @max) join the open run, listed, whose
 * last page @v (the value at @pte) maps: the same bits, a zero page only
 * where @v is one, as many as the PFN buffers have room for.  A PFN that
 * follows the one before is listed too, unless LIST_BREAK_PAGES more
 * follow: a run of their own takes them then.  Each PFN is stored as it
 * is read.
 */
static unsigned int pte_list_stretch(struct memwalk_run_sink *sink, pte_t v,
				     const pte_t *pte, unsigned int max)
{
	u64 bits = pte_val(v) & ~PTE_PFN_MASK;
	unsigned long pfn, last = sink->open_last_pfn;
	/* Locals: the stores to @out could alias the globals and the sink. */
	unsigned long zero = page_to_pfn(ZERO_PAGE(0));
	bool is_zero = sink->open.flags & MEMWALK_RUN_ZERO;
	u64 *out = sink->pfns + sink->pfn_nr;
	unsigned int n, total = max;

	max = min3(max, sink->pfn_cap - sink->pfn_nr,
		   U32_MAX - sink->open.nr_pages);
	if (max > sink->pfn_slots)
		max = sink->pfn_slots;
	for (n = 0; n < max; n++) {
		pte_t nv = ptep_get((pte_t *)pte + 1 + n);

		pfn = pte_pfn(nv);
		if ((pte_val(nv) & ~PTE_PFN_MASK) != bits ||
		    (is_zero ? pfn != zero : pfn == zero))
			break;
		if (pfn == last + 1 && n + LIST_BREAK_PAGES < total &&
		    ptes_follow(pte + 1 + n, LIST_BREAK_PAGES))
			break;
		out[n] = pfn;
		last = pfn;
	}
	sink->pfn_nr += n;
	sink->pfn_slots -= n;
	sink->open_last_pfn = last;
	return n;
}

/*
 * How many PTEs after @pte (at most @max) continue @run, whose last page
 * @v (the value at @pte) maps, when pages are read: each must be the one
 * before plus one PFN, with the same bits (see page_continues()).
 */
static unsigned int pte_page_stretch(struct memwalk_decoder *d,
				     const struct memwalk_entry *pe,
				     const struct memwalk_page_run *run,
				     pte_t v, const pte_t *pte, unsigned int max)
{
	unsigned long pfn = pte_pfn(v), addr = pe->addr;
	u64 raw = pte_val(v);
	unsigned int n;

	if (!max || run->nr_pages > U32_MAX - max ||
	    (run->flags & MEMWALK_RUN_STATE_MASK) != MEMWALK_STATE_PRESENT ||
	    (run->flags & (MEMWALK_RUN_SPECIAL | MEMWALK_RUN_ZERO |
			   MEMWALK_RUN_PFN_LIST)) ||
	    pte_pfn(__pte(raw + PAGE_SIZE)) != pfn + 1)
		return 0;
	for (n = 0; n < max; n++) {
		raw += PAGE_SIZE;
		addr += PAGE_SIZE;
		if (pte_val(ptep_get((pte_t *)pte + 1 + n)) != raw ||
		    !page_continues(d, pe, run, pfn + 1 + n, addr))
			break;
	}
	return n;
}

/*
 * Whether @v, right after @prev (the last page of the open run), differs
 * from it in the PFN alone, so its run is the open run's entry fields
 * with another start and PFN (and in entry-only mode nothing else).
 */
static bool pte_like_prev(const struct memwalk_run_sink *sink, pte_t prev,
			  pte_t v, unsigned long addr)
{
	const struct memwalk_page_run *run = &sink->open;

	return sink->have_open && pte_present(prev) &&
	       !((pte_val(v) ^ pte_val(prev)) & ~PTE_PFN_MASK) &&
	       !(run->flags & (MEMWALK_RUN_ZERO | MEMWALK_RUN_SPECIAL)) &&
	       !is_zero_pfn(pte_pfn(v)) &&
	       run->start + ((u64)run->nr_pages << PAGE_SHIFT) == addr;
}

/**
 * memwalk_decode_shmem_hole() - shmem pages in swap where d->vma has no entry
 * @d: the decoder; d->shmem is the page cache of d->vma's shmem file
 * @w: the walk; w->next is advanced past what @sink accepted
 * @start: first address of the hole (no entry maps [@start, @end))
 * @end: its end
 * @sink: takes the runs, in address order
 *
 * Shmem unmaps a page before it swaps it out and keeps the swap entry in
 * the page cache, so a none entry may stand for a page in swap: each one
 * becomes a MEMWALK_STATE_SHMEM_SWAP run, as smaps counts it in Swap.
 *
 * Locking: mmap_lock held (it pins d->vma's file); any page-table lock may
 * be held.  Takes RCU for the page cache.  Does not sleep.
 *
 * Return: 0, or MEMWALK_WALK_PAUSE/STOP with w->next where to resume.
 */
int memwalk_decode_shmem_hole(struct memwalk_decoder *d,
			      struct memwalk_walk *w, unsigned long start,
			      unsigned long end, struct memwalk_run_sink *sink)
{
	struct vm_area_struct *vma = d->vma;
	pgoff_t next = linear_page_index(vma, start);
	pgoff_t last = linear_page_index(vma, end - 1);
	XA_STATE(xas, &d->shmem->i_pages, next);
	struct memwalk_page_run run;
	unsigned int seen = 0;
	void *entry;
	int ret = 0;

	/* RCU: the xarray's nodes; a value entry is read, not referenced. */
	rcu_read_lock();
	xas_for_each(&xas, entry, last) {
		pgoff_t base, stop, from;
		swp_entry_t swp;
		unsigned long nr;

		if (xas_retry(&xas, entry) || !xa_is_value(entry))
			continue;
		/* A large folio swapped out whole is one multi-index entry. */
		nr = 1UL << xas_get_order(&xas);
		base = xas.xa_index & ~(nr - 1);
		stop = min(base + nr - 1, last);
		from = max(base, next);
		if (stop < from)
			continue;
		swp = radix_to_swp_entry(entry);
		memset(&run, 0, sizeof(run));
		run.start = vma->vm_start + ((from - vma->vm_pgoff) << PAGE_SHIFT);
		run.nr_pages = stop - from + 1;
		run.flags = MEMWALK_STATE_SHMEM_SWAP |
			    MEMWALK_LEVEL_PTE << MEMWALK_RUN_LEVEL_SHIFT |
			    MEMWALK_RUN_FILE | MEMWALK_RUN_SHMEM |
			    (swp_type(swp) << MEMWALK_RUN_SWAP_TYPE_SHIFT &
			     MEMWALK_RUN_SWAP_TYPE_MASK);
		run.pfn = d->hide_pfn ? 0 : swp_offset(swp) + (from - base);
		run.lru_gen = -1;
		ret = sink_add(d, w, sink, &run);
		if (ret)
			break;
		next = stop + 1;
		if (!(++seen % PTRS_PER_PTE) && next <= last &&
		    memwalk_should_pause(w)) {
			w->next = vma->vm_start +
				  ((next - vma->vm_pgoff) << PAGE_SHIFT);
			ret = MEMWALK_WALK_PAUSE;
			break;
		}
	}
	rcu_read_unlock();
	if (!ret)
		w->next = end;
	return ret;
}

/**
 * memwalk_decode_ptes() - describe the pages of a PTE table's range
 * @d: the decoder
 * @w: the walk; w->next is advanced past what @sink accepted
 * @e: the range: e->pte_table the locked table, [e->addr, e->end) in it
 * @sink: takes the runs, in address order
 *
 * One pass over the entries: none entries are skipped (in a shmem VMA,
 * looked up in its page cache), the others merged into runs as they come;
 * entries that merely continue the open run are counted without decoding
 * them in full (pte_stretch(), pte_page_stretch()).
 *
 * Locking: under the PTE table's lock and RCU (walk.c), mmap_lock held.
 *
 * Return: 0, or MEMWALK_WALK_PAUSE/STOP with w->next at the refused page.
 */
int memwalk_decode_ptes(struct memwalk_decoder *d, struct memwalk_walk *w,
			const struct memwalk_entry *e,
			struct memwalk_run_sink *sink)
{
	struct memwalk_entry pe = *e;
	pte_t *pte = e->pte_table + pte_index(e->addr);
	struct memwalk_page_run run;
	pte_t prev = __pte(0);
	unsigned long addr, hole_end;
	unsigned int n, max;
	bool like;
	int ret;

	for (addr = e->addr; addr != e->end; addr += PAGE_SIZE, pte++) {
		pte_t v = ptep_get(pte);

		if (pte_none(v)) {
			if (!d->shmem)
				continue;
			/* The none entries from here on: one lookup. */
			max = (e->end - addr) >> PAGE_SHIFT;
			for (n = 1; n < max && pte_none(ptep_get(pte + n)); n++)
				;
			hole_end = addr + ((unsigned long)n << PAGE_SHIFT);
			ret = memwalk_decode_shmem_hole(d, w, addr, hole_end,
							sink);
			if (ret)
				return ret;
			addr = hole_end - PAGE_SIZE;
			pte += n - 1;
			prev = __pte(0);
			continue;
		}
		pe.addr = addr;
		like = pte_like_prev(sink, prev, v, addr);
		if (like && d->entry_only) {
			run = sink->open;
			run.start = addr;
			run.nr_pages = 1;
			run.flags &= ~MEMWALK_RUN_PFN_LIST;
			run.pfn = d->hide_pfn ? 0 : pte_pfn(v);
		} else if (!like || !page_run_like(d, &pe, &sink->open,
						   pte_pfn(v), addr, &run)) {
			pe.end = addr + PAGE_SIZE;
			pe.entry_addr = addr;
			pe.val = pte_val(v);
			pe.index = pte_index(addr);
			memwalk_decode_page(d, &pe, addr, &run);
		}
		ret = sink_add(d, w, sink, &run);
		if (ret)
			return ret;
		/* The open run now ends with the page @v maps. */
		prev = v;
		max = ((e->end - addr) >> PAGE_SHIFT) - 1;
		if (d->entry_only || !pte_present(v)) {
			n = pte_stretch(d, &sink->open, v, pte, max);
			if (!n && (sink->open.flags & MEMWALK_RUN_PFN_LIST))
				n = pte_list_stretch(sink, v, pte, max);
		} else if (max && pte_val(ptep_get(pte + 1)) ==
				  pte_val(v) + PAGE_SIZE) {
			n = pte_page_stretch(d, &pe, &sink->open, v, pte, max);
		} else {
			n = 0;
		}
		/*
		 * The stretched entries have @v's bits, so @v stays prev: a
		 * second read could see an accessed or dirty bit the hardware
		 * set since, which the run does not have.
		 */
		if (n) {
			sink->open.nr_pages += n;
			addr += (unsigned long)n << PAGE_SHIFT;
			pte += n;
		}
	}
	w->next = e->end;
	return 0;
}

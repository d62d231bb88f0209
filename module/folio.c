// SPDX-License-Identifier: GPL-2.0
/*
 * memwalk: the state of a mapped page's folio, as run fields: the bits
 * /proc/kpageflags reports, the MGLRU generation (through the memcg's
 * lruvec), refcount, node, order, whether it is partly mapped, and the
 * page's own mapcount and hwpoison bit.  What is the same for every page
 * of a folio is read once per folio and lock hold (d->fc), and for small
 * folios once per distinct set of words (d->small).
 *
 * Locking: under the lock of the entry that maps the page (decode.h);
 * folio_gen_age() takes RCU for the folio's memcg.
 */
#include <linux/hugetlb.h>
#include <linux/memcontrol.h>
#include <linux/mm.h>
#include <linux/mm_inline.h>
#include <linux/mmzone.h>
#include <linux/page-flags.h>
#include <linux/page_idle.h>
#include <linux/pgtable.h>
#include <linux/rcupdate.h>

#include "decode.h"

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
 * for @folio that its flags word, mapping and type give, plus memwalk's
 * MLOCKED and WORKINGSET from the same word: the folio's (on 6.1, where
 * kpageflags reads a tail page's own, that of its head).  Neither a
 * mapcount nor the folio's size is read, so this is safe of a folio that
 * is being split (behind a migration entry).
 */
static u32 kpageflags_word(struct folio *folio)
{
	unsigned long k = mw_folio_flags_word(folio);
	u32 u = 0;

	if (folio_test_anon(folio)) {
		u |= KPF(ANON);
		if (folio_test_ksm(folio))
			u |= KPF(KSM);
	}
	if (folio_test_hugetlb(folio))
		u |= KPF(HUGE);
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
	return u;
}

/* KPF_THP and KPF_ZERO_PAGE of a mapped page outside hugetlb. */
static u32 kpf_thp_zero(struct folio *folio, struct page *page,
			unsigned long pfn)
{
	if (mw_kpf_thp(folio, page))
		return KPF(THP);
	if (mw_folio_huge_zero(folio))
		return KPF(ZERO_PAGE) | KPF(THP);
	if (is_zero_pfn(pfn))
		return KPF(ZERO_PAGE);
	return 0;
}

/*
 * All the bits /proc/kpageflags reports for the mapped @page of @folio,
 * as kpageflags_word() and the ones that need the folio stable: mapped,
 * THP, zero page, the page's own hwpoison.
 */
static u32 kpageflags(struct folio *folio, struct page *page,
		      unsigned long pfn)
{
	u32 u = kpageflags_word(folio);

	if (mw_kpf_mmap(folio, page))
		u |= KPF(MMAP);
	if (!(u & KPF(HUGE)))
		u |= kpf_thp_zero(folio, page, pfn);
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

/*
 * MEMWALK_RUN_ANON/FILE/SHMEM/FOLIO_DIRTY/FOLIO_YOUNG: @folio's flags, as
 * smaps reads them.
 */
static u32 folio_run_flags(struct folio *folio)
{
	u32 f;

	if (folio_test_anon(folio)) {
		f = MEMWALK_RUN_ANON;
	} else {
		f = MEMWALK_RUN_FILE;
		/* Swap-backed page cache is shmem/tmpfs. */
		if (folio_test_swapbacked(folio))
			f |= MEMWALK_RUN_SHMEM;
	}
	if (folio_test_dirty(folio))
		f |= MEMWALK_RUN_FOLIO_DIRTY;
	if (folio_test_young(folio))
		f |= MEMWALK_RUN_FOLIO_YOUNG;
	return f;
}

/*
 * The kpageflags bits smaps counts with; a folio young for idle-page
 * tracking or DAMON (which cleared its PTEs' accessed bits) is referenced,
 * as smaps_account() counts it, present or behind a migration entry.
 */
static u32 smaps_kpf(struct folio *folio)
{
	u32 kpf = kpageflags_word(folio) & MEMWALK_SMAPS_KPF;

	if (folio_test_young(folio))
		kpf |= KPF(REFERENCED);
	return kpf;
}

/*
 * Fill @f from @folio: the same for every page of the folio, so read
 * once per folio and lock hold.
 */
static void folio_fields(struct memwalk_decoder *d, struct folio *folio,
			 struct page *page, unsigned long pfn, bool zero,
			 struct memwalk_folio_fields *f)
{
	f->flags = zero ? 0 : folio_run_flags(folio) & ~d->run_drop;
	if (!d->folio)
		return;
	if (d->smaps) {
		/* What smaps counts with (see struct memwalk_decoder). */
		f->refcount = min(max(folio_ref_count(folio), 0), 2);
		f->nid = 0;
		f->order = 0;
		f->lru_gen = -1;
		f->kpf = smaps_kpf(folio);
		return;
	}
	f->refcount = max(folio_ref_count(folio), 0);
	f->nid = folio_nid(folio);
	f->order = folio_order(folio);
	f->lru_gen = folio_gen_age(folio);
	/* KPF_HWPOISON is the page's own: see memwalk_page_fields(). */
	f->kpf = kpageflags(folio, page, pfn) & ~(KPF(HWPOISON) | d->kpf_drop);
}

/*
 * folio_fields() of a small folio, @f, from the memo when the words they
 * are computed from are those it was filled from under this lock hold:
 * the flags word (flags, node, MGLRU generation, idle on 64-bit), the
 * mapping (anon, KSM), the mapcount (mapped), the refcount and the memcg
 * (the lruvec whose max_seq ages the generation: read once per hold).
 * Neighbouring base pages mostly share all of them.
 */
static void small_folio_fields(struct memwalk_decoder *d,
			       const struct memwalk_entry *e,
			       struct folio *folio, struct page *page,
			       unsigned long pfn, struct memwalk_folio_fields *f)
{
	struct memwalk_small_memo *m = &d->small;
	struct memwalk_small_key k;

	small_key_read(d, folio, &k);
	if (small_memo_has(m, e, &k)) {
		*f = m->f;
		return;
	}
	folio_fields(d, folio, page, pfn, false, f);
	m->seq = e->lock_seq;
	m->key = k;
	m->f = *f;
}

/* The folio-level state of @folio into d->fc, for the current lock hold. */
static void folio_state(struct memwalk_decoder *d,
			const struct memwalk_entry *e, struct folio *folio,
			struct page *page, unsigned long pfn, bool zero)
{
	struct memwalk_folio_cache *c = &d->fc;

	c->folio = folio;
	c->seq = e->lock_seq;
	c->zero = zero;
	/* !64BIT keeps the idle bit outside the flags word. */
	if (!zero && !folio_test_large(folio) && IS_ENABLED(CONFIG_64BIT)) {
		c->first_pfn = pfn;
		c->nr = 1;
		small_folio_fields(d, e, folio, page, pfn, &c->f);
		return;
	}
	c->first_pfn = folio_pfn(folio);
	c->nr = folio_nr_pages(folio);
	folio_fields(d, folio, page, pfn, zero, &c->f);
}

/*
 * Run fields that come from the page of a present entry: the folio's
 * from d->fc (which keeps the folio for the rest of this lock hold), the
 * page's own (mapcount, KPF_HWPOISON) for every page.
 */
void memwalk_page_fields(struct memwalk_decoder *d,
			 const struct memwalk_entry *e, struct page *page,
			 unsigned long pfn, unsigned long addr, bool zero,
			 struct memwalk_page_run *run)
{
	struct memwalk_folio_cache *c = &d->fc;
	struct folio *folio;
	int mapcount = 0;

	if (folio_cached(d, e, pfn))
		folio = c->folio;
	else
		folio = page_folio(page);
	if (folio != c->folio || c->seq != e->lock_seq)
		folio_state(d, e, folio, page, pfn, zero);

	if (!zero) {
		run->flags |= c->f.flags;
		mapcount = mw_page_mapcount(folio, page);
		if (mapcount == 1)
			run->flags |= MEMWALK_RUN_EXCLUSIVE;
	}
	if (d->folio) {
		run->folio_flags = c->f.kpf;
		run->mapcount = max(mapcount, 0);
		run->refcount = c->f.refcount;
		run->nid = c->f.nid;
		run->order = c->f.order;
		run->lru_gen = c->f.lru_gen;
	}
	if (d->folio && !d->smaps) {
		if (mw_kpf_hwpoison(folio, page))
			run->folio_flags |= KPF(HWPOISON);
		if (folio_test_large(folio)) {
			if (e->level == MEMWALK_PGT_PMD) {
				run->folio_flags |= FOLIO(PMD_MAPPED);
			} else if (e->level == MEMWALK_PGT_PTE) {
				run->folio_flags |= FOLIO(PTE_MAPPED);
				if (folio_partial(d, e, folio, pfn, addr))
					run->folio_flags |= FOLIO(PARTIAL);
			}
		}
	}
}

/*
 * Run fields of @page behind a migration, device or hwpoison entry: only
 * what pagemap and smaps read there, its folio's flags word, mapping and
 * refcount.  A THP split installs migration entries and then splits the
 * folio without our lock (see smaps_account()), so no mapcount, size or
 * large-folio state is read: mapcount and order stay 0, lru_gen -1, and
 * the folio is not cached in d->fc.
 */
void memwalk_nonpresent_fields(struct memwalk_decoder *d, struct page *page,
			       struct memwalk_page_run *run)
{
	struct folio *folio = page_folio(page);

	run->flags |= folio_run_flags(folio) & ~d->run_drop;
	if (!d->folio)
		return;
	run->refcount = max(folio_ref_count(folio), 0);
	if (d->smaps) {
		run->folio_flags = smaps_kpf(folio);
		run->refcount = min_t(u32, run->refcount, 2);
		return;
	}
	run->folio_flags = kpageflags_word(folio) & ~d->kpf_drop;
	run->nid = folio_nid(folio);
}

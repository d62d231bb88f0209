// SPDX-License-Identifier: GPL-2.0
/*
 * memwalk: what a page-table entry maps, as struct memwalk_page_run fields
 * (the policy half of the walker).
 *
 * Everything here runs in the walker's entry callbacks, under the lock of
 * the entry decoded (see walk.c), in atomic context.  A present entry's
 * page cannot be unmapped, split or freed while that lock is held, so its
 * struct page and folio are read without further references.  A
 * migration entry's page is referenced by the migration, but its folio
 * may be being split meanwhile: of it only the flags word, mapping and
 * refcount are read (nonpresent_fields()), as pagemap and smaps do.  Only
 * pages pfn_to_online_page() accepts are looked at (section_all_online()
 * knows most of them for less): never ZONE_DEVICE, offline or hole PFNs,
 * and never PFN-mapped VMAs.  Nothing is written.
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
 * Whether every PFN of @pfn's memory section is online, as
 * pfn_to_online_page() would find: an online boot section (no subsection
 * holes) without ZONE_DEVICE memory in it.  A few loads.
 */
static __always_inline bool section_all_online(unsigned long pfn)
{
	struct mem_section *ms;

	if (pfn_to_section_nr(pfn) >= NR_MEM_SECTIONS)
		return false;
	ms = __pfn_to_section(pfn);
	return ms && online_section(ms) && early_section(ms) &&
	       !online_device_section(ms);
}

/*
 * Whether the PFN of a page mapped under the current lock is known to be
 * online: in the subsection found online last under that lock (offlining
 * must first unmap the pages we see mapped), or in a section online whole.
 */
static __always_inline bool pfn_known_online(const struct memwalk_decoder *d,
					     const struct memwalk_entry *e,
					     unsigned long pfn)
{
	return (d->online_seq == e->lock_seq &&
		d->online_sub == pfn >> PFN_SUBSECTION_SHIFT) ||
	       section_all_online(pfn);
}

/* pfn_to_online_page() for a PFN of a mapped page, known ones first. */
static struct page *mapped_online_page(struct memwalk_decoder *d,
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

/* The folio's memcg word: with its node, it picks the MGLRU lruvec. */
static unsigned long folio_memcg_word(const struct folio *folio)
{
#ifdef CONFIG_MEMCG
	return READ_ONCE(folio->memcg_data);
#else
	return 0;
#endif
}

/* MEMWALK_RUN_ANON/FILE/SHMEM/FOLIO_DIRTY: @folio's flags, as smaps reads them. */
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
	return f;
}

/*
 * Fill @f from @folio: the same for every page of the folio, so read
 * once per folio and lock hold.
 */
static void folio_fields(struct memwalk_decoder *d, struct folio *folio,
			 struct page *page, unsigned long pfn, bool zero,
			 struct memwalk_folio_fields *f)
{
	f->flags = zero ? 0 : folio_run_flags(folio);
	if (!d->folio)
		return;
	f->refcount = max(folio_ref_count(folio), 0);
	f->nid = folio_nid(folio);
	f->order = folio_order(folio);
	f->lru_gen = folio_gen_age(folio);
	/* KPF_HWPOISON is the page's own: see page_fields(). */
	f->kpf = kpageflags(folio, page, pfn) & ~KPF(HWPOISON);
}

static __always_inline void small_key_read(struct folio *folio,
					   struct memwalk_small_key *k)
{
	k->flags = mw_folio_flags_word(folio);
	k->mapping = (unsigned long)READ_ONCE(folio->mapping);
	k->memcg = folio_memcg_word(folio);
	k->mapcount = atomic_read(&folio->_mapcount);
	k->refcount = atomic_read(&folio->_refcount);
}

static __always_inline bool small_memo_has(const struct memwalk_small_memo *m,
					   const struct memwalk_entry *e,
					   const struct memwalk_small_key *k)
{
	return m->seq == e->lock_seq && m->key.flags == k->flags &&
	       m->key.mapping == k->mapping && m->key.memcg == k->memcg &&
	       m->key.mapcount == k->mapcount &&
	       m->key.refcount == k->refcount;
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

	small_key_read(folio, &k);
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
static void page_fields(struct memwalk_decoder *d,
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
		run->mapcount = max(mapcount, 0);
		run->refcount = c->f.refcount;
		run->nid = c->f.nid;
		run->order = c->f.order;
		run->lru_gen = c->f.lru_gen;
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
static void nonpresent_fields(struct memwalk_decoder *d, struct page *page,
			      struct memwalk_page_run *run)
{
	struct folio *folio = page_folio(page);

	run->flags |= folio_run_flags(folio);
	if (!d->folio)
		return;
	run->folio_flags = kpageflags_word(folio);
	run->refcount = max(folio_ref_count(folio), 0);
	run->nid = folio_nid(folio);
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
		page_fields(d, e, page, pfn, addr, zero, run);
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
		nonpresent_fields(d, page, run);
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
 * The page @pfn at @addr, right after the open run, joins its list, which
 * starts with the run's own PFN if it was not listed yet.  Return: 0;
 * -ENOSPC when the caller's pfn_buf has no room for that (the page is to
 * be pushed instead); MEMWALK_WALK_PAUSE, with w->next at @addr, when the
 * bounce buffer has not.
 */
static int sink_list(struct memwalk_walk *w, struct memwalk_run_sink *sink,
		     unsigned long addr, unsigned long pfn)
{
	struct memwalk_page_run *a = &sink->open;
	u32 need = a->flags & MEMWALK_RUN_PFN_LIST ? 1 : 2;

	if (sink->pfn_slots < need)
		return -ENOSPC;
	if (sink->pfn_nr + need > sink->pfn_cap) {
		w->next = addr;
		return MEMWALK_WALK_PAUSE;
	}
	if (need == 2) {
		sink->pfns[sink->pfn_nr] = a->pfn;
		a->pfn = sink->pfn_base + sink->pfn_nr++;
		a->flags |= MEMWALK_RUN_PFN_LIST;
	}
	sink->pfns[sink->pfn_nr++] = pfn;
	sink->pfn_slots -= need;
	sink->open_last_pfn = pfn;
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
			ret = sink_list(w, sink, run->start, run->pfn);
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

/* @run: the open run's fields for the one page @pfn at @addr, unlisted. */
static __always_inline void run_like_open(const struct memwalk_decoder *d,
					  const struct memwalk_page_run *open,
					  unsigned long addr, unsigned long pfn,
					  struct memwalk_page_run *run)
{
	*run = *open;
	run->start = addr;
	run->nr_pages = 1;
	run->pfn = d->hide_pfn ? 0 : pfn;
	run->flags &= ~MEMWALK_RUN_PFN_LIST;
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
	run_like_open(d, open, addr, pfn, run);
	run->flags &= ~PAGE_RUN_FLAGS;
	run->folio_flags = 0;
	run->mapcount = 0;
	run->refcount = 0;
	run->nid = 0;
	run->order = 0;
	run->lru_gen = -1;
	page_fields(d, e, page, pfn, addr, false, run);
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
	if (!pte_present(__pte(e->val)))
		return true;
	/* A hugetlb page's state is its folio's, but for the first page. */
	return e->hugetlb && addr != e->entry_addr;
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
 * Locking: as memwalk_decode_page().
 *
 * Return: 0, or MEMWALK_WALK_PAUSE/STOP with w->next at the refused page.
 */
int memwalk_decode_entry(struct memwalk_decoder *d,
			 struct memwalk_walk *w, const struct memwalk_entry *e,
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
		ret = sink_add(d, w, sink, &run);
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

/*
 * Whether a PTE word in memory is what pte_val() makes of it: everywhere
 * but in a Xen PV guest, whose entries hold machine frames.  The stretch
 * loops below then read the words themselves, without pte_val()'s
 * paravirt call: they cost a load and a compare per page.
 */
static __always_inline bool pte_words_native(void)
{
	return !cpu_feature_enabled(X86_FEATURE_XENPV);
}

/*
 * How many of the @max PTEs from @pte each hold pte_val() @raw plus one
 * more @step than the one before.
 */
static unsigned int ptes_step(const pte_t *pte, u64 raw, u64 step,
			      unsigned int max)
{
	const pte_t *p = pte, *end = pte + max, *end4 = pte + (max & ~3U);

	if (pte_words_native()) {
		/* Four at a time: one branch for all. */
		for (; p < end4; p += 4, raw += 4 * step)
			if ((READ_ONCE(p[0].pte) ^ (raw + step)) |
			    (READ_ONCE(p[1].pte) ^ (raw + 2 * step)) |
			    (READ_ONCE(p[2].pte) ^ (raw + 3 * step)) |
			    (READ_ONCE(p[3].pte) ^ (raw + 4 * step)))
				break;
		for (; p < end; p++) {
			raw += step;
			if (READ_ONCE(p->pte) != raw)
				break;
		}
		return p - pte;
	}
	for (; p < end; p++) {
		raw += step;
		if (pte_val(ptep_get((pte_t *)p)) != raw)
			break;
	}
	return p - pte;
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
	return ptes_step(pte + 1, raw, step, max);
}

/* Consecutive PFNs from here on that end a PFN list: a run is cheaper. */
#define LIST_BREAK_PAGES	8

/* Whether the @nr PTEs after @pte each map the PFN after the one before. */
static bool ptes_follow(const pte_t *pte, unsigned int nr)
{
	return ptes_step(pte + 1, pte_val(ptep_get((pte_t *)pte)), PAGE_SIZE,
			 nr) == nr;
}

/* How many of @max PFNs the open run's list can take now. */
static unsigned int list_room(const struct memwalk_run_sink *sink,
			      unsigned int max)
{
	max = min3(max, sink->pfn_cap - sink->pfn_nr,
		   U32_MAX - sink->open.nr_pages);
	return min_t(u64, max, sink->pfn_slots);
}

/* @n PFNs were stored at sink->pfns + sink->pfn_nr, @last the last one. */
static void list_took(struct memwalk_run_sink *sink, unsigned int n,
		      unsigned long last)
{
	sink->pfn_nr += n;
	sink->pfn_slots -= n;
	if (n)
		sink->open_last_pfn = last;
}

/*
 * The PFNs of the PTEs from @p to @end (@follow_end: where LIST_BREAK_PAGES
 * PTEs are left) that have the entry bits @bits and are not the zero page
 * @zero, into @out, up to one that follows the PFN before it and starts a
 * contiguous stretch.  @last: the PFN before @p's.  The PFN bits are what
 * XOR with @bits leaves of a PTE word with those bits.
 */
static __always_inline const pte_t *list_pfns(const pte_t *p,
					      const pte_t *end,
					      const pte_t *follow_end,
					      u64 bits, u64 notmask,
					      unsigned long zero,
					      unsigned long *last, u64 *out,
					      bool native)
{
	unsigned long pfn, prev = *last;

	for (; p < end; p++) {
		u64 nv = native ? READ_ONCE(p->pte) :
				  pte_val(ptep_get((pte_t *)p));

		if ((nv & notmask) != bits)
			break;
		pfn = native ? (nv ^ bits) >> PAGE_SHIFT : pte_pfn(__pte(nv));
		if (pfn == zero)
			break;
		if (pfn == prev + 1 && p < follow_end &&
		    ptes_follow(p, LIST_BREAK_PAGES))
			break;
		*out++ = pfn;
		prev = pfn;
	}
	*last = prev;
	return p;
}

/*
 * How many PTEs after @pte (at most @max) join the open run, listed, whose
 * last page @v (the value at @pte) maps: the same bits, a zero page only
 * where @v is one, as many as the PFN buffers have room for.  A PFN that
 * follows the one before is listed too, unless LIST_BREAK_PAGES more
 * follow: a run of their own takes them then.  Each PFN is stored as it
 * is read; the words are read as they are in memory where that is
 * pte_val() (not for PROT_NONE entries, whose PFN is inverted).  Out of
 * line: the loop wants the registers to itself.
 */
static noinline unsigned int pte_list_stretch(struct memwalk_run_sink *sink,
					      pte_t v, const pte_t *pte,
					      unsigned int max)
{
	u64 notmask = ~PTE_PFN_MASK, bits = pte_val(v) & notmask;
	unsigned long zero = page_to_pfn(ZERO_PAGE(0));
	unsigned long last = sink->open_last_pfn;
	u64 *out = sink->pfns + sink->pfn_nr;
	const pte_t *p = pte + 1, *end, *follow_end;
	unsigned int n;

	follow_end = max > LIST_BREAK_PAGES ? p + max - LIST_BREAK_PAGES : p;
	end = p + list_room(sink, max);
	if (sink->open.flags & MEMWALK_RUN_ZERO) {
		/* Zero pages: the same entry over and over. */
		for (; p < end && pte_val(ptep_get((pte_t *)p)) == pte_val(v); p++)
			*out++ = zero;
	} else if (pte_words_native() && !__pte_needs_invert(pte_val(v))) {
		p = list_pfns(p, end, follow_end, bits, notmask, zero, &last,
			      out, true);
	} else {
		p = list_pfns(p, end, follow_end, bits, notmask, zero, &last,
			      out, false);
	}
	n = p - (pte + 1);
	list_took(sink, n, sink->open.flags & MEMWALK_RUN_ZERO ? zero : last);
	return n;
}

/*
 * The small folio of the online page @pfn if it has the words the memo
 * was filled from under this lock (small_folio_fields()), else NULL: then
 * it gives the memo's run fields, page-level ones included (its mapcount
 * is in the words, its hwpoison bit in the flags word).
 */
static __always_inline struct folio *small_folio_at(struct memwalk_decoder *d,
						    const struct memwalk_entry *e,
						    unsigned long pfn)
{
	struct folio *folio = page_folio(pfn_to_page(pfn));
	struct memwalk_small_key k;

	if (folio_test_large(folio))
		return NULL;
	small_key_read(folio, &k);
	return small_memo_has(&d->small, e, &k) ? folio : NULL;
}

/*
 * Whether the present page @pfn, mapped with the entry bits of the page
 * d->fc caches (a small folio, the open run's last page), gives the same
 * run fields: a PFN known online whose small_folio_at() the memo has.
 * Then it becomes the page d->fc caches.  A few loads and compares: no
 * run is built.
 */
static __always_inline bool small_page_repeats(struct memwalk_decoder *d,
					       const struct memwalk_entry *e,
					       unsigned long pfn)
{
	struct memwalk_folio_cache *c = &d->fc;
	struct folio *folio;

	if (!IS_ENABLED(CONFIG_64BIT) || !c->folio || c->nr != 1 || c->zero ||
	    c->seq != e->lock_seq || is_zero_pfn(pfn) ||
	    !pfn_known_online(d, e, pfn))
		return false;
	folio = small_folio_at(d, e, pfn);
	if (!folio)
		return false;
	c->folio = folio;
	c->first_pfn = pfn;
	return true;
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
		if (pte_val(ptep_get((pte_t *)pte + 1 + n)) != raw)
			break;
		if (d->fc.first_pfn == pfn + n &&
		    small_page_repeats(d, pe, pfn + 1 + n))
			continue;
		if (!page_continues(d, pe, run, pfn + 1 + n, addr))
			break;
	}
	return n;
}

/*
 * How many PTEs after @pte (at most @max) join the open run, listed, when
 * pages are read: each with @v's bits and a small folio with the words
 * of the one d->fc caches, the run's last page (small_page_repeats()),
 * and a PFN that does not follow the one before.  A page cache filled
 * out of order: a load, a few compares and a store a page.  The open run
 * is listed; d->fc ends at the last page listed.  A section with a page
 * mapped under the lock held cannot go offline: its pages would have to
 * be unmapped first.
 */
static noinline unsigned int page_list_stretch(struct memwalk_decoder *d,
					       const struct memwalk_entry *e,
					       struct memwalk_run_sink *sink,
					       pte_t v, const pte_t *pte,
					       unsigned int max)
{
	struct memwalk_folio_cache *c = &d->fc;
	u64 notmask = ~PTE_PFN_MASK, bits = pte_val(v) & notmask;
	unsigned long zero = page_to_pfn(ZERO_PAGE(0));
	unsigned long pfn, last = sink->open_last_pfn;
	u64 *out = sink->pfns + sink->pfn_nr;
	struct folio *folio = c->folio;
	/* Sections (the first 64) found online whole: they stay so here. */
	u64 online = 0;
	unsigned long sec;
	unsigned int n;

	if (!pte_words_native() || __pte_needs_invert(pte_val(v)) ||
	    (sink->open.flags & (MEMWALK_RUN_SPECIAL | MEMWALK_RUN_ZERO)) ||
	    !folio || c->nr != 1 || c->zero || c->seq != e->lock_seq ||
	    c->first_pfn != last || d->small.seq != e->lock_seq)
		return 0;
	max = list_room(sink, max);
	for (n = 0; n < max; n++) {
		u64 nv = READ_ONCE(pte[1 + n].pte);
		struct folio *next;

		if ((nv & notmask) != bits)
			break;
		pfn = (nv ^ bits) >> PAGE_SHIFT;
		if (pfn == zero || pfn == last + 1)
			break;
		sec = pfn_to_section_nr(pfn);
		if (sec >= 64 || !(online & BIT_ULL(sec))) {
			if (section_all_online(pfn))
				online |= sec < 64 ? BIT_ULL(sec) : 0;
			else if (!pfn_known_online(d, e, pfn))
				break;
		}
		next = small_folio_at(d, e, pfn);
		if (!next)
			break;
		out[n] = pfn;
		last = pfn;
		folio = next;
	}
	c->folio = folio;
	c->first_pfn = last;
	list_took(sink, n, last);
	return n;
}

/* As sink_add_repeat(), for a page that does not join a list. */
static noinline int sink_add_repeat_run(struct memwalk_decoder *d,
					struct memwalk_walk *w,
					struct memwalk_run_sink *sink,
					unsigned long addr, unsigned long pfn)
{
	struct memwalk_page_run run;

	run_like_open(d, &sink->open, addr, pfn, &run);
	return sink_add(d, w, sink, &run);
}

/*
 * The present page @pfn at @addr, whose run fields are the open run's
 * (small_page_repeats()): its PFN joins the open run's list, or it goes
 * the way of any run.
 */
static __always_inline int sink_add_repeat(struct memwalk_decoder *d,
					   struct memwalk_walk *w,
					   struct memwalk_run_sink *sink,
					   unsigned long addr,
					   unsigned long pfn)
{
	int ret;

	/* Scattered pages: a listed run grows by one PFN. */
	if ((sink->open.flags & MEMWALK_RUN_PFN_LIST) &&
	    pfn != sink->open_last_pfn + 1 && sink->open.nr_pages < U32_MAX) {
		ret = sink_list(w, sink, addr, pfn);
		if (ret != -ENOSPC)
			return ret;
	}
	return sink_add_repeat_run(d, w, sink, addr, pfn);
}

/*
 * Whether @v (mapping @pfn), right after @prev (the last page of the open
 * run), differs from it in the PFN alone, so its run is the open run's
 * entry fields with another start and PFN (and in entry-only mode
 * nothing else).
 */
static bool pte_like_prev(const struct memwalk_run_sink *sink, pte_t prev,
			  pte_t v, unsigned long pfn, unsigned long addr)
{
	const struct memwalk_page_run *run = &sink->open;

	return sink->have_open && pte_present(prev) &&
	       !((pte_val(v) ^ pte_val(prev)) & ~PTE_PFN_MASK) &&
	       !(run->flags & (MEMWALK_RUN_ZERO | MEMWALK_RUN_SPECIAL)) &&
	       !is_zero_pfn(pfn) &&
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

		if (xas_retry(&xas, entry))
			continue;
		/*
		 * Every entry counts, pages in the cache too: a hole may
		 * hold a great many of them and nothing else.
		 */
		if (!(++seen % PTRS_PER_PTE) && memwalk_should_pause(w)) {
			nr = 1UL << xas_get_order(&xas);
			from = max(xas.xa_index & ~(nr - 1), next);
			w->next = vma->vm_start +
				  ((from - vma->vm_pgoff) << PAGE_SHIFT);
			ret = MEMWALK_WALK_PAUSE;
			break;
		}
		if (!xa_is_value(entry))
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
	unsigned long addr, hole_end, pfn, prev_pfn = 0;
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
		pfn = pte_pfn(v);
		like = pte_like_prev(sink, prev, v, pfn, addr);
		if (like && !d->entry_only && d->fc.first_pfn == prev_pfn &&
		    small_page_repeats(d, &pe, pfn)) {
			/* Its run is the open run's but for start and PFN. */
			ret = sink_add_repeat(d, w, sink, addr, pfn);
		} else {
			if (like && d->entry_only) {
				run_like_open(d, &sink->open, addr, pfn, &run);
			} else if (!like ||
				   !page_run_like(d, &pe, &sink->open, pfn,
						  addr, &run)) {
				pe.end = addr + PAGE_SIZE;
				pe.entry_addr = addr;
				pe.val = pte_val(v);
				pe.index = pte_index(addr);
				memwalk_decode_page(d, &pe, addr, &run);
			}
			ret = sink_add(d, w, sink, &run);
		}
		if (ret)
			return ret;
		/* The open run now ends with the page @v maps. */
		prev = v;
		prev_pfn = pfn;
		max = ((e->end - addr) >> PAGE_SHIFT) - 1;
		if (d->entry_only || !pte_present(v)) {
			n = pte_stretch(d, &sink->open, v, pte, max);
			if (!n && (sink->open.flags & MEMWALK_RUN_PFN_LIST))
				n = pte_list_stretch(sink, v, pte, max);
		} else if (sink->open.flags & MEMWALK_RUN_PFN_LIST) {
			n = page_list_stretch(d, &pe, sink, v, pte, max);
			prev_pfn = sink->open_last_pfn;
		} else if (max && pte_val(ptep_get(pte + 1)) ==
				  pte_val(v) + PAGE_SIZE) {
			n = pte_page_stretch(d, &pe, &sink->open, v, pte, max);
			prev_pfn = pfn + n;
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

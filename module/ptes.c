// SPDX-License-Identifier: GPL-2.0
/*
 * memwalk: the per-PTE loop, memwalk_decode_ptes(), and the fast paths it
 * takes for a page that merely repeats the one before: raw PTE words
 * compared against the last one plus a step (pte_stretch(), ptes_step()),
 * PFN lists stored as they are read (pte_list_stretch(),
 * page_list_stretch()), and pages of one folio or with the same small
 * folio words as the last one (pte_page_stretch(), small_page_repeats(),
 * and where PFNs are hidden wherever they lie, hidden_pfn_stretch()).
 * This is the hot loop: what it calls per page is inline here or in
 * decode.h, and what runs once per folio (folio.c) or reads another data
 * source (shmem.c) is elsewhere.
 *
 * Locking: under the PTE table's lock and RCU (walk.c), mmap_lock held;
 * atomic context (decode.h).
 */
#include <linux/limits.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/pgtable.h>

#include "decode.h"

/* Run flags that come from the page, not from the entry. */
#define PAGE_RUN_FLAGS	(MEMWALK_RUN_ANON | MEMWALK_RUN_FILE | \
			 MEMWALK_RUN_SHMEM | MEMWALK_RUN_FOLIO_DIRTY | \
			 MEMWALK_RUN_FOLIO_YOUNG | MEMWALK_RUN_EXCLUSIVE)

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
		page = memwalk_mapped_online_page(d, e, pfn);
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
	memwalk_page_fields(d, e, page, pfn, addr, false, run);
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
 * How many of the @max PTEs from @pte each hold pte_val() @raw plus one
 * more @step than the one before, in the bits @keep (~d->pte_ign).
 */
static unsigned int ptes_step(const pte_t *pte, u64 raw, u64 step,
			      unsigned int max, u64 keep)
{
	const pte_t *p = pte, *end = pte + max, *end4 = pte + (max & ~3U);

	if (mw_arch_pte_words_native()) {
		/* Four at a time: one branch for all. */
		for (; p < end4; p += 4, raw += 4 * step)
			if (((READ_ONCE(p[0].pte) ^ (raw + step)) |
			     (READ_ONCE(p[1].pte) ^ (raw + 2 * step)) |
			     (READ_ONCE(p[2].pte) ^ (raw + 3 * step)) |
			     (READ_ONCE(p[3].pte) ^ (raw + 4 * step))) & keep)
				break;
		for (; p < end; p++) {
			raw += step;
			if ((READ_ONCE(p->pte) ^ raw) & keep)
				break;
		}
		return p - pte;
	}
	for (; p < end; p++) {
		raw += step;
		if ((pte_val(ptep_get((pte_t *)p)) ^ raw) & keep)
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
 * How many of the @max PTEs after @pte are swap entries with @raw's type
 * and bits, whatever their slots: where PFNs are hidden, swap offsets are
 * too (decode.c), and such entries are one run wherever they lie: one
 * load and compare each, where each was decoded in full.
 */
static unsigned int hidden_swap_stretch(const pte_t *pte, u64 raw,
					unsigned int max)
{
	u64 keep = ~mw_arch_swp_offset_bits();
	unsigned int n;

	for (n = 0; n < max; n++) {
		pte_t nv = ptep_get((pte_t *)pte + 1 + n);

		/* A none entry is a swap format word too (x86: ~offset). */
		if (pte_none(nv) || pte_present(nv) ||
		    ((pte_val(nv) ^ raw) & keep))
			break;
	}
	return n;
}

/*
 * The bits of @v's raw word compared as equal (d->pte_ign): a present
 * entry's only, as arm64 keeps a swap entry's offset where AF would be.
 */
static inline u64 entry_ign(const struct memwalk_decoder *d, pte_t v)
{
	return pte_present(v) ? d->pte_ign : 0;
}

/*
 * How many PTEs after @pte (at most @max) continue @run, whose last page
 * @v (the value at @pte) maps, judged by raw value alone: a swap entry
 * for the next slot of the same device with the same bits (any slot when
 * PFNs are hidden) or, in entry-only mode, a present entry with the same
 * bits for the next PFN (any PFN but a zero page's when PFNs are hidden).
 * One load and one compare per PTE: this is what makes long runs cheap.
 */
static unsigned int pte_stretch(const struct memwalk_decoder *d,
				const struct memwalk_page_run *run, pte_t v,
				const pte_t *pte, unsigned int max)
{
	unsigned long pfn = pte_pfn(v), zero;
	bool present = pte_present(v);
	u64 raw = pte_val(v), step, keep = ~entry_ign(d, v);
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

				if ((pte_val(nv) ^ raw) & keep & ~MW_ARCH_PTE_PFN_MASK ||
				    is_zero_pfn(pte_pfn(nv)))
					break;
			}
			return n;
		}
		if (pte_pfn(__pte(raw + MW_ARCH_PTE_PFN_STEP)) != pfn + 1 ||
		    ((pte_val(ptep_get((pte_t *)pte + 1)) ^ (raw + MW_ARCH_PTE_PFN_STEP)) & keep))
			return 0;
		/* The zero page (arch.h: one) ends a run: stop before it. */
		zero = mw_arch_zero_pfn();
		if (zero > pfn && zero - pfn - 1 < max)
			max = zero - pfn - 1;
		step = MW_ARCH_PTE_PFN_STEP;
	} else {
		if ((run->flags & MEMWALK_RUN_STATE_MASK) != MEMWALK_STATE_SWAP)
			return 0;
		if (d->hide_pfn)
			return hidden_swap_stretch(pte, raw, max);
		step = swap_pte_step();
	}
	return ptes_step(pte + 1, raw, step, max, keep);
}

/* Consecutive PFNs from here on that end a PFN list: a run is cheaper. */
#define LIST_BREAK_PAGES	8

/* Whether the @nr PTEs after @pte each map the PFN after the one before. */
static bool ptes_follow(const pte_t *pte, unsigned int nr, u64 keep)
{
	return ptes_step(pte + 1, pte_val(ptep_get((pte_t *)pte)),
			 MW_ARCH_PTE_PFN_STEP, nr, keep) == nr;
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
 * XOR with @bits leaves of a PTE word with those bits, within the PFN
 * field (@notmask may leave out more: d->pte_ign).
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
		pfn = native ? mw_arch_word_pfn((nv ^ bits) & MW_ARCH_PTE_PFN_MASK) :
			       pte_pfn(__pte(nv));
		if (pfn == zero)
			break;
		if (pfn == prev + 1 && p < follow_end &&
		    ptes_follow(p, LIST_BREAK_PAGES, notmask | MW_ARCH_PTE_PFN_MASK))
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
static noinline unsigned int pte_list_stretch(const struct memwalk_decoder *d,
					      struct memwalk_run_sink *sink,
					      pte_t v, const pte_t *pte,
					      unsigned int max)
{
	u64 ign = entry_ign(d, v);
	u64 notmask = ~(MW_ARCH_PTE_PFN_MASK | ign), bits = pte_val(v) & notmask;
	unsigned long zero = mw_arch_zero_pfn();
	unsigned long last = sink->open_last_pfn;
	u64 *out = sink->pfns + sink->pfn_nr;
	const pte_t *p = pte + 1, *end, *follow_end;
	unsigned int n;

	follow_end = max > LIST_BREAK_PAGES ? p + max - LIST_BREAK_PAGES : p;
	end = p + list_room(sink, max);
	if (sink->open.flags & MEMWALK_RUN_ZERO) {
		/* Zero pages: the same entry over and over. */
		for (; p < end && !((pte_val(ptep_get((pte_t *)p)) ^ pte_val(v)) & ~ign); p++)
			*out++ = zero;
	} else if (mw_arch_pte_words_native() && !mw_arch_pte_pfn_inverted(pte_val(v))) {
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
 * The small folio of @pfn if its words are @k's (a memo's key; @keep: the
 * flags bits it holds), the memcg's only with @memcg (smaps does not count
 * with it), else NULL.  Pages alike are most of what a walk reads: the
 * loops keep @k where they can.
 */
static __always_inline struct folio *small_folio_alike(unsigned long pfn,
						       const struct memwalk_small_key *k,
						       unsigned long keep, bool memcg)
{
	struct folio *folio = (struct folio *)pfn_to_page(pfn);

	/* A small folio: neither a tail page nor a head. */
	if (PageTail(&folio->page) || folio_test_large(folio) ||
	    (mw_folio_flags_word(folio) & keep) != k->flags ||
	    (unsigned long)READ_ONCE(folio->mapping) != k->mapping ||
	    (memcg && folio_memcg_word(folio) != k->memcg) ||
	    atomic_read(&folio->_mapcount) != k->mapcount ||
	    atomic_read(&folio->_refcount) != k->refcount)
		return NULL;
	return folio;
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
	if (d->small.seq != e->lock_seq)
		return NULL;
	return small_folio_alike(pfn, &d->small.key, ~d->key_ignore, true);
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
 * How many PTEs after @pte (at most @max) map the next pages of the large
 * folio d->fc caches with the bits of @raw, the value at @pte (which maps
 * @pfn, in that folio and the open run's last page), and continue the
 * run: the words of the PTEs and of the pages alone (ptes_step(),
 * folio_pages_stretch()).  A mapped large folio's pages (page cache
 * readahead, mTHP) otherwise cost a folio_page_continues() each.
 */
static __always_inline unsigned int large_folio_stretch(struct memwalk_decoder *d,
							const pte_t *pte, u64 raw,
							unsigned long pfn,
							unsigned int max)
{
	unsigned long left = d->fc.first_pfn + d->fc.nr - pfn - 1;
	unsigned int n = min_t(unsigned long, max, left);

	n = ptes_step(pte + 1, raw, MW_ARCH_PTE_PFN_STEP, n, ~d->pte_ign);
	return folio_pages_stretch(pfn_to_page(pfn), n,
				   d->folio && !d->smaps);
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
	    pte_pfn(__pte(raw + MW_ARCH_PTE_PFN_STEP)) != pfn + 1)
		return 0;
	for (n = 0; n < max; n++) {
		if (d->fc.nr > 1 && folio_cached(d, pe, pfn + n) &&
		    folio_cached(d, pe, pfn + 1 + n)) {
			unsigned int k = large_folio_stretch(d, pte + n, raw,
							     pfn + n, max - n);

			/* Not read again: see decode_ptes() on @v's bits. */
			n += k;
			raw += (u64)k * MW_ARCH_PTE_PFN_STEP;
			addr += (unsigned long)k << PAGE_SHIFT;
			if (n >= max)
				break;
		}
		raw += MW_ARCH_PTE_PFN_STEP;
		addr += PAGE_SIZE;
		if ((pte_val(ptep_get((pte_t *)pte + 1 + n)) ^ raw) & ~d->pte_ign)
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
 * Whether the raw words after @v (which maps @last, the open run's last
 * page) can be read for pages like it: words as in memory, @v not
 * PROT_NONE, a run of pages with a struct page (not special, not the zero
 * page) whose last is the small folio d->fc caches under this lock, the
 * memo filled under it too.
 */
static bool small_tail_cached(const struct memwalk_decoder *d,
			      const struct memwalk_entry *e,
			      const struct memwalk_run_sink *sink, pte_t v,
			      unsigned long last)
{
	const struct memwalk_folio_cache *c = &d->fc;

	return mw_arch_pte_words_native() && !mw_arch_pte_pfn_inverted(pte_val(v)) &&
	       !(sink->open.flags & (MEMWALK_RUN_SPECIAL | MEMWALK_RUN_ZERO)) &&
	       c->folio && c->nr == 1 && !c->zero && c->seq == e->lock_seq &&
	       c->first_pfn == last && d->small.seq == e->lock_seq;
}

/*
 * How many PTEs after @pte (at most @max) have @v's bits and a small folio
 * with the words of the one d->fc caches (small_page_repeats()), the
 * page @v maps, whose PFN is *@last; with @out, each PFN is stored there
 * and a PFN that follows the one before ends them (a run of its own is
 * cheaper).  d->fc and *@last end at the last page taken.  A section with
 * a page mapped under the lock held cannot go offline: its pages would
 * have to be unmapped first.  Inline in each caller, @out and @smaps
 * (no memcg compared) constant there; the memo was filled under this lock
 * (small_tail_cached()).
 */
static __always_inline unsigned int small_pages_alike(struct memwalk_decoder *d,
						      const struct memwalk_entry *e,
						      pte_t v, const pte_t *pte,
						      unsigned int max,
						      unsigned long *last, u64 *out,
						      bool smaps)
{
	struct memwalk_folio_cache *c = &d->fc;
	u64 notmask = ~(MW_ARCH_PTE_PFN_MASK | d->pte_ign), bits = pte_val(v) & notmask;
	unsigned long zero = mw_arch_zero_pfn(), pfn, prev = *last;
	const struct memwalk_small_key key = d->small.key;
	unsigned long keep = ~d->key_ignore;
	struct folio *folio = c->folio;
	/*
	 * Sections found online whole (the first 64, and the last of the
	 * others): they stay so here.
	 */
	unsigned long sec, big_sec = ULONG_MAX;
	u64 online = 0;
	unsigned int n;

	for (n = 0; n < max; n++) {
		u64 nv = READ_ONCE(pte[1 + n].pte);
		struct folio *next;

		if ((nv & notmask) != bits)
			break;
		pfn = mw_arch_word_pfn((nv ^ bits) & MW_ARCH_PTE_PFN_MASK);
		if (pfn == zero || (out && pfn == prev + 1))
			break;
		sec = pfn_to_section_nr(pfn);
		if (sec < 64 ? !(online & BIT_ULL(sec)) : sec != big_sec) {
			if (!section_all_online(pfn)) {
				if (!pfn_known_online(d, e, pfn))
					break;
			} else if (sec < 64) {
				online |= BIT_ULL(sec);
			} else {
				big_sec = sec;
			}
		}
		next = small_folio_alike(pfn, &key, keep, !smaps);
		if (!next)
			break;
		if (out)
			out[n] = pfn;
		prev = pfn;
		folio = next;
	}
	c->folio = folio;
	c->first_pfn = prev;
	*last = prev;
	return n;
}

/*
 * How many PTEs after @pte (at most @max) join the open run, listed, when
 * pages are read: each with @v's bits and a small folio with the words
 * of the run's last page, and a PFN that does not follow the one before
 * (small_pages_alike()).  A page cache filled out of order: a load, a
 * few compares and a store a page.  The open run is listed.
 */
static noinline unsigned int page_list_stretch(struct memwalk_decoder *d,
					       const struct memwalk_entry *e,
					       struct memwalk_run_sink *sink,
					       pte_t v, const pte_t *pte,
					       unsigned int max)
{
	unsigned long last = sink->open_last_pfn;
	unsigned int n;

	if (!small_tail_cached(d, e, sink, v, last))
		return 0;
	n = small_pages_alike(d, e, v, pte, list_room(sink, max), &last,
			      sink->pfns + sink->pfn_nr, false);
	list_took(sink, n, last);
	return n;
}

/*
 * How many PTEs after @pte (at most @max) join the open run when PFNs are
 * hidden (no PFN need follow the one before): each with @v's bits and a
 * small folio with the words of the run's last page, wherever it lies
 * (small_pages_alike()).  A load and a few compares a page: what a
 * summary (summary.c) or a snapshot without PFNs spends on pages alike.
 */
static noinline unsigned int hidden_pfn_stretch(struct memwalk_decoder *d,
						const struct memwalk_entry *e,
						const struct memwalk_run_sink *sink,
						pte_t v, const pte_t *pte,
						unsigned int max)
{
	unsigned long last = pte_pfn(v);

	if ((sink->open.flags & MEMWALK_RUN_PFN_LIST) ||
	    !small_tail_cached(d, e, sink, v, last))
		return 0;
	max = min(max, U32_MAX - sink->open.nr_pages);
	if (d->smaps && d->folio)
		return small_pages_alike(d, e, v, pte, max, &last, NULL, true);
	return small_pages_alike(d, e, v, pte, max, &last, NULL, false);
}

/* As sink_add_repeat(), for a page that does not join a list. */
static noinline int sink_add_repeat_run(struct memwalk_decoder *d,
					struct memwalk_walk *w,
					struct memwalk_run_sink *sink,
					unsigned long addr, unsigned long pfn)
{
	struct memwalk_page_run run;

	run_like_open(d, &sink->open, addr, pfn, &run);
	return memwalk_sink_add(d, w, sink, &run);
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
		ret = memwalk_sink_list(w, sink, addr, pfn);
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
static bool pte_like_prev(const struct memwalk_decoder *d,
			  const struct memwalk_run_sink *sink, pte_t prev,
			  pte_t v, unsigned long pfn, unsigned long addr)
{
	const struct memwalk_page_run *run = &sink->open;

	return sink->have_open && pte_present(prev) &&
	       !((pte_val(v) ^ pte_val(prev)) & ~(MW_ARCH_PTE_PFN_MASK | d->pte_ign)) &&
	       !(run->flags & (MEMWALK_RUN_ZERO | MEMWALK_RUN_SPECIAL)) &&
	       !is_zero_pfn(pfn) &&
	       run->start + ((u64)run->nr_pages << PAGE_SHIFT) == addr;
}

/* memwalk_decode_ptes(): out of line, the loop keeps its registers. */
static noinline int decode_ptes(struct memwalk_decoder *d,
				struct memwalk_walk *w,
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
		like = pte_like_prev(d, sink, prev, v, pfn, addr);
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
			ret = memwalk_sink_add(d, w, sink, &run);
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
				n = pte_list_stretch(d, sink, v, pte, max);
		} else if (sink->open.flags & MEMWALK_RUN_PFN_LIST) {
			n = page_list_stretch(d, &pe, sink, v, pte, max);
			prev_pfn = sink->open_last_pfn;
		} else {
			/* Hidden PFNs: alike pages join wherever they lie. */
			n = d->hide_pfn ?
			    hidden_pfn_stretch(d, &pe, sink, v, pte, max) : 0;
			if (n) {
				prev_pfn = d->fc.first_pfn;
			} else if (max && !((pte_val(ptep_get(pte + 1)) ^
					     (pte_val(v) + MW_ARCH_PTE_PFN_STEP)) & ~d->pte_ign)) {
				n = pte_page_stretch(d, &pe, &sink->open, v, pte, max);
				prev_pfn = pfn + n;
			}
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
 * With check_fast_paths set, every page decoded is then decoded again the
 * slow way and compared (fastcheck.c).
 *
 * Locking: under the PTE table's lock and RCU (walk.c), mmap_lock held.
 *
 * Return: 0, or MEMWALK_WALK_PAUSE/STOP with w->next at the refused page.
 */
int memwalk_decode_ptes(struct memwalk_decoder *d, struct memwalk_walk *w,
			const struct memwalk_entry *e,
			struct memwalk_run_sink *sink)
{
	u32 nr = sink->nr;

	return memwalk_fastcheck_after(d, w, e, sink, nr,
				       decode_ptes(d, w, e, sink));
}

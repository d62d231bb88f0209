/* SPDX-License-Identifier: GPL-2.0 */
/*
 * memwalk: the page decoder's internals, shared by its files.  The decoder
 * is the policy half of the walker: what a page-table entry maps, as
 * struct memwalk_page_run fields.
 *
 *   decode.c  one page of an entry (memwalk_decode_page()), and a leaf
 *             above the PTE level page by page (memwalk_decode_entry())
 *   folio.c   the state of a page's folio, read once per folio and lock
 *             hold: kpageflags word, MGLRU generation, memcg, mapcount
 *   runs.c    merging pages into runs in the sink (memwalk_sink_add())
 *   ptes.c    the per-PTE loop (memwalk_decode_ptes()) and the raw-word
 *             fast paths it inlines, one file because it is the hot one
 *   shmem.c   shmem pages in swap where no entry is (another data source:
 *             the page cache)
 *   fastcheck.c  debugging: every fast path checked against the slow decode
 *
 * Locking: everything but shmem.c runs in the walker's entry callbacks,
 * under the lock of the entry decoded (see walk.c), in atomic context.  A
 * present entry's page cannot be unmapped, split or freed while that lock
 * is held, so its struct page and folio are read without further
 * references.  A migration entry's page is referenced by the migration,
 * but its folio may be being split meanwhile: of it only the flags word,
 * mapping and refcount are read (memwalk_nonpresent_fields()), as pagemap
 * and smaps do.  Only pages pfn_to_online_page() accepts are looked at
 * (section_all_online() knows most of them for less): never ZONE_DEVICE,
 * offline or hole PFNs, and never PFN-mapped VMAs.  Nothing is written.
 * What the decoder caches (struct memwalk_decoder) is valid for one lock
 * hold, the one whose e->lock_seq it records.
 *
 * The helpers below are inline because the per-PTE loop calls them for
 * every page.
 */
#ifndef _MEMWALK_DECODE_H
#define _MEMWALK_DECODE_H

#include <linux/memory_hotplug.h>
#include <linux/mm.h>
#include <linux/mmzone.h>

#include "arch.h"
#include "memwalk.h"
#include "unexported.h"

/* decode.c */
struct page *memwalk_mapped_online_page(struct memwalk_decoder *d,
					const struct memwalk_entry *e,
					unsigned long pfn);

/* folio.c */
void memwalk_page_fields(struct memwalk_decoder *d,
			 const struct memwalk_entry *e, struct page *page,
			 unsigned long pfn, unsigned long addr, bool zero,
			 struct memwalk_page_run *run);
void memwalk_nonpresent_fields(struct memwalk_decoder *d, struct page *page,
			       struct memwalk_page_run *run);

/* fastcheck.c: check_fast_paths, debugging only */
extern bool memwalk_check_fast_paths;
void memwalk_fastcheck(struct memwalk_decoder *d,
		       const struct memwalk_entry *e,
		       const struct memwalk_run_sink *sink, u32 nr,
		       unsigned long end);

/*
 * @ret, what decoding @e into @sink from its run @nr on returned, after
 * the check when check_fast_paths is set: the pages decoded are those
 * before w->next if the decode stopped inside @e.
 */
static inline int memwalk_fastcheck_after(struct memwalk_decoder *d,
					  struct memwalk_walk *w,
					  const struct memwalk_entry *e,
					  struct memwalk_run_sink *sink,
					  u32 nr, int ret)
{
	if (unlikely(READ_ONCE(memwalk_check_fast_paths)))
		memwalk_fastcheck(d, e, sink, nr, ret ? w->next : e->end);
	return ret;
}

/* runs.c */
int memwalk_sink_add(struct memwalk_decoder *d, struct memwalk_walk *w,
		     struct memwalk_run_sink *sink,
		     const struct memwalk_page_run *run);
int memwalk_sink_list(struct memwalk_walk *w, struct memwalk_run_sink *sink,
		      unsigned long addr, unsigned long pfn);

#define KPF(bit)	(1U << MEMWALK_KPF_##bit)
#define FOLIO(bit)	(1U << MEMWALK_FOLIO_##bit)

/* The kpageflags bits smaps counts with (decoder's smaps mode). */
#define MEMWALK_SMAPS_KPF	(KPF(ANON) | KPF(KSM) | KPF(SWAPBACKED) | \
				 KPF(DIRTY) | KPF(REFERENCED))

/* Whether @pfn lies in the folio cached under the current lock hold. */
static inline bool folio_cached(const struct memwalk_decoder *d,
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

/* The folio's memcg word: with its node, it picks the MGLRU lruvec. */
static inline unsigned long folio_memcg_word(const struct folio *folio)
{
#ifdef CONFIG_MEMCG
	return READ_ONCE(folio->memcg_data);
#else
	return 0;
#endif
}

static __always_inline void small_key_read(const struct memwalk_decoder *d,
					   struct folio *folio,
					   struct memwalk_small_key *k)
{
	k->flags = mw_folio_flags_word(folio) & ~d->key_ignore;
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

/* Whether @a and @b are equal in the fields that come from the folio. */
static inline bool run_folio_fields_equal(const struct memwalk_page_run *a,
					  const struct memwalk_page_run *b)
{
	return a->folio_flags == b->folio_flags &&
	       a->mapcount == b->mapcount && a->refcount == b->refcount &&
	       a->nid == b->nid && a->order == b->order &&
	       a->lru_gen == b->lru_gen;
}

/* Whether @a and @b are equal in every field but start, pfn, nr_pages. */
static inline bool run_fields_equal(const struct memwalk_page_run *a,
				    const struct memwalk_page_run *b)
{
	return a->flags == b->flags && run_folio_fields_equal(a, b);
}

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
	if (d->smaps)
		return max(mapcount, 0) == run->mapcount;
	folio_flags = run->folio_flags & ~KPF(HWPOISON);
	if (mw_kpf_hwpoison(c->folio, page))
		folio_flags |= KPF(HWPOISON);
	return folio_flags == run->folio_flags && max(mapcount, 0) == run->mapcount;
}

/*
 * How many of the @max pages after @page, all of its folio, continue its
 * run, judged by the page-level words alone: the precise mapcount is each
 * page's _mapcount and what the folio counts (6.1's page_mapcount() too),
 * so pages whose _mapcount words are equal have equal counts (and so
 * exclusivity); with @hwpoison, their hwpoison bits must be equal too
 * (folio state).  That is all smaps counts with, and all
 * folio_page_continues() compares.  A load or two and a compare a page,
 * where folio_page_continues() costs tens; it may stop early (mapcounts
 * that differ but agree on exclusivity), never late.
 */
static __always_inline unsigned long folio_pages_stretch(struct page *page,
							 unsigned long max,
							 bool hwpoison)
{
	unsigned long poison = hwpoison ? MW_PG_HWPOISON_MASK : 0;
	unsigned long bit = mw_page_flags_word(page) & poison, n;
#ifdef CONFIG_NO_PAGE_MAPCOUNT
	/* One mapcount for the folio: only hwpoison tells pages apart. */
	if (!poison)
		return max;
	for (n = 1; n <= max; n++)
		if ((mw_page_flags_word(page + n) & poison) != bit)
			break;
	return n - 1;
#else
	int raw = atomic_read(&page->_mapcount);

	for (n = 1; n <= max; n++)
		if (atomic_read(&page[n]._mapcount) != raw ||
		    (mw_page_flags_word(page + n) & poison) != bit)
			break;
	return n - 1;
#endif
}

#endif /* _MEMWALK_DECODE_H */

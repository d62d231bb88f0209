/* SPDX-License-Identifier: GPL-2.0 */
/*
 * memwalk: re-implementations of kernel helpers a module cannot call:
 * unexported (is_huge_zero_folio(), stable_page_flags()) or private to
 * fs/proc (folio_precise_page_mapcount()).  Each follows the kernel it is
 * built for; where that differs between lines, compat.h says which by a
 * feature macro (MEMWALK_KPF_FOLIO), so nothing here tests versions.
 *
 * Locking: as the caller's: a folio mapped under the page-table lock held
 * (see decode.h), so it is not split or freed meanwhile.
 */
#ifndef _MEMWALK_UNEXPORTED_H
#define _MEMWALK_UNEXPORTED_H

#include <linux/huge_mm.h>
#include <linux/memory_hotplug.h>
#include <linux/mm.h>
#include <linux/page-flags.h>

#include "compat.h"

/*
 * A huge zero folio: is_huge_zero_folio()/is_huge_zero_page() read
 * huge_zero_folio/huge_zero_page, which no kernel line exports.  It is the
 * only PMD-order, non-hugetlb, non-anonymous folio without a mapping
 * (file THPs keep theirs until truncated, and then are not mapped).
 */
static inline bool mw_folio_huge_zero(struct folio *folio)
{
	return folio_test_large(folio) && !folio_test_hugetlb(folio) &&
	       !folio_test_anon(folio) && !READ_ONCE(folio->mapping) &&
	       folio_order(folio) == HPAGE_PMD_ORDER;
}

/* PG_hwpoison exists only with CONFIG_MEMORY_FAILURE (off in debug builds). */
#ifdef CONFIG_MEMORY_FAILURE
#define MW_PG_HWPOISON_MASK	BIT(PG_hwpoison)
#else
#define MW_PG_HWPOISON_MASK	0UL
#endif

/*
 * kpageflags' inputs besides the flags word, as fs/proc/page.c's
 * stable_page_flags() (not exported) reads them.  All are folio-wide but
 * PG_hwpoison, on every line.
 */
#ifdef MEMWALK_KPF_FOLIO
/* KPF_MMAP: page_mapped() is folio_mapped() there, gone by 7.x. */
static inline bool mw_kpf_mmap(struct folio *folio, struct page *page)
{
	return folio_mapped(folio);
}

/* KPF_THP: any large rmappable folio, not only PMD-sized ones. */
static inline bool mw_kpf_thp(struct folio *folio, struct page *page)
{
	return folio_test_large(folio) && folio_test_large_rmappable(folio);
}

/* KPF_HWPOISON: the folio's bit for hugetlb, the page's otherwise. */
static inline bool mw_kpf_hwpoison(struct folio *folio, struct page *page)
{
	unsigned long k = folio_test_hugetlb(folio) ?
			  mw_folio_flags_word(folio) :
			  mw_page_flags_word(page);

	return k & MW_PG_HWPOISON_MASK;
}

/*
 * The mapcount pagemap uses for PM_MMAP_EXCLUSIVE: what fs/proc/internal.h
 * folio_precise_page_mapcount() computes (it is not in include/).  Without
 * per-page mapcounts (CONFIG_NO_PAGE_MAPCOUNT, 6.15) the folio's is used.
 */
static inline int mw_page_mapcount(struct folio *folio, struct page *page)
{
#ifdef CONFIG_NO_PAGE_MAPCOUNT
	return folio_mapcount(folio);
#else
	int mapcount = atomic_read(&page->_mapcount) + 1;

	if (page_mapcount_is_type(mapcount))
		mapcount = 0;
	if (folio_test_large(folio))
		mapcount += folio_entire_mapcount(folio);

	return mapcount;
#endif
}
#else
static inline bool mw_kpf_mmap(struct folio *folio, struct page *page)
{
	return !PageSlab(page) && page_mapped(page);
}

static inline bool mw_kpf_thp(struct folio *folio, struct page *page)
{
	return PageTransCompound(page) &&
	       (folio_test_lru(folio) || folio_test_anon(folio));
}

static inline bool mw_kpf_hwpoison(struct folio *folio, struct page *page)
{
	return mw_page_flags_word(page) & MW_PG_HWPOISON_MASK;
}

/* page_mapcount(): inline, calls the exported __page_mapcount(). */
static inline int mw_page_mapcount(struct folio *folio, struct page *page)
{
	return page_mapcount(page);
}
#endif

/*
 * The free buddy block @pfn lies in, as is_free_buddy_page() (exported,
 * but it gives no order) finds it: the head at each order's alignment
 * below, if PageBuddy and of at least that order.  Its order is read
 * without the zone lock (buddy_order_unsafe(), mm/internal.h): it may be
 * stale, so it is bounded by MW_MAX_PAGE_ORDER and must cover @pfn.
 * Each head is looked up with pfn_to_online_page(): a section may be
 * online in parts (ZONE_DEVICE subsections), the others without a memory
 * map.  Returns the head's PFN and sets *@order, or returns ULONG_MAX.
 */
static inline unsigned long mw_free_buddy_head(unsigned long pfn,
					       unsigned int *order)
{
	unsigned int o;

	for (o = 0; o <= MW_MAX_PAGE_ORDER; o++) {
		unsigned long head = pfn & ~((1UL << o) - 1);
		struct page *page = pfn_to_online_page(head);
		unsigned long k;

		if (!page || !PageBuddy(page))
			continue;
		k = READ_ONCE(page->private);
		if (k >= o && k <= MW_MAX_PAGE_ORDER &&
		    !(head & ((1UL << k) - 1))) {
			*order = k;
			return head;
		}
	}
	return ULONG_MAX;
}

#endif /* _MEMWALK_UNEXPORTED_H */

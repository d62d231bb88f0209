/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The census of physical memory as /proc/kpageflags tells it: the class
 * memwalk's MEMWALK_IOC_PHYS gives a page, from the kpageflags bits that
 * decide it (the brackets of enum memwalk_phys_class), for the phys
 * suite and its benchmark.  kpageflags has no bit for "in a file's page
 * cache": LRU or mapped pages stand for it.
 */
#ifndef MEMWALK_PHYS_ORACLE_H
#define MEMWALK_PHYS_ORACLE_H

#include <stdint.h>

#include <linux/memwalk.h>

/* /proc/kpageflags bits (Documentation/admin-guide/mm/pagemap.rst) */
#define KPF(b)			(1ULL << (b))
#define KPF_LRU			5
#define KPF_SLAB		7
#define KPF_BUDDY		10
#define KPF_MMAP		11
#define KPF_ANON		12
#define KPF_SWAPCACHE		13
#define KPF_SWAPBACKED		14
#define KPF_COMPOUND_TAIL	16
#define KPF_HUGE		17
#define KPF_HWPOISON		19
#define KPF_NOPAGE		20
#define KPF_OFFLINE		23
#define KPF_ZERO_PAGE		24
#define KPF_PGTABLE		26
#define KPF_RESERVED		32

static const char *const mw_phys_class_names[MEMWALK_PHYS_NR_CLASSES] = {
	"offline", "hwpoison", "free", "hugetlb", "slab", "pgtable", "zero",
	"reserved", "anon", "shmem", "file", "other",
};

/*
 * The class of a page with kpageflags @f whose folio (its head page, as
 * the last head before a tail: 6.1 reports a tail's own flags word,
 * which lacks them) has @ff.
 */
static inline int mw_kpf_class(uint64_t f, uint64_t ff)
{
	if (f & KPF(KPF_OFFLINE))
		return MEMWALK_PHYS_CLASS_OFFLINE;
	if (f & KPF(KPF_HWPOISON))
		return MEMWALK_PHYS_CLASS_HWPOISON;
	if (f & KPF(KPF_BUDDY))
		return MEMWALK_PHYS_CLASS_FREE;
	if (ff & KPF(KPF_HUGE))
		return MEMWALK_PHYS_CLASS_HUGETLB;
	if ((f | ff) & KPF(KPF_SLAB))
		return MEMWALK_PHYS_CLASS_SLAB;
	if (f & KPF(KPF_PGTABLE))
		return MEMWALK_PHYS_CLASS_PGTABLE;
	if ((f | ff) & KPF(KPF_ZERO_PAGE))
		return MEMWALK_PHYS_CLASS_ZERO;
	if (f & KPF(KPF_RESERVED))
		return MEMWALK_PHYS_CLASS_RESERVED;
	if (ff & KPF(KPF_ANON))
		return MEMWALK_PHYS_CLASS_ANON;
	if (ff & KPF(KPF_SWAPBACKED))
		return (ff & KPF(KPF_SWAPCACHE)) ? MEMWALK_PHYS_CLASS_ANON :
						   MEMWALK_PHYS_CLASS_SHMEM;
	if ((ff | f) & (KPF(KPF_LRU) | KPF(KPF_MMAP)))
		return MEMWALK_PHYS_CLASS_FILE;
	return MEMWALK_PHYS_CLASS_OTHER;
}

/*
 * Add the entries @buf[0..@n) to @pages (per class), keeping the last
 * head's flags in *@head across calls; the pages counted (holes are not).
 */
static inline uint64_t mw_kpf_count(const uint64_t *buf, uint64_t n, uint64_t *head,
				    uint64_t *pages)
{
	uint64_t i, counted = 0;

	for (i = 0; i < n; i++) {
		uint64_t f = buf[i];
		int tail = !!(f & KPF(KPF_COMPOUND_TAIL));

		if (f & KPF(KPF_NOPAGE))
			continue;
		if (!tail)
			*head = f;
		pages[mw_kpf_class(f, tail ? *head : f)]++;
		counted++;
	}
	return counted;
}

#endif /* MEMWALK_PHYS_ORACLE_H */

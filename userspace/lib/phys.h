/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libmemwalk: the census of physical memory (MEMWALK_IOC_PHYS), summed
 * per NUMA node and zone, and the /proc/meminfo and /proc/zoneinfo facts
 * it is shown against.  Returns errors, prints nothing.
 */
#ifndef MEMWALK_PHYS_H
#define MEMWALK_PHYS_H

#include <stddef.h>
#include <stdint.h>

#include <linux/memwalk.h>

#include "error.h"

struct mw_device;

#define MW_PHYS_NR_CLASSES	MEMWALK_PHYS_NR_CLASSES
#define MW_PHYS_MAX_ORDER	20	/* free orders kept (buddy orders are <= 10) */

/* What the census found in one class. */
struct mw_phys_class {
	uint64_t pages;
	uint64_t mapped, dirty, writeback, swapcache, hugetlb_free;
};

/* One node's zone: its classes, and its free pages by buddy order. */
struct mw_phys_zone {
	unsigned int nid, zone;
	struct mw_phys_class cls[MW_PHYS_NR_CLASSES];
	uint64_t free_order[MW_PHYS_MAX_ORDER + 1];
};

struct mw_phys_census {
	struct mw_phys_zone *zones;	/* in node, then zone order */
	size_t nr_zones;
	uint64_t max_pfn;		/* the census covered [0, max_pfn) */
	uint64_t records, calls;	/* what it cost */
	size_t page_size;
};

/*
 * Take the census of all physical memory on @dev into @c (resuming by PFN
 * until done).  0, or a negative errno with @err saying why: -EPERM for a
 * caller without CAP_SYS_ADMIN (lab mode), -EOPNOTSUPP for a module
 * without MEMWALK_FEAT_PHYS.
 */
int mw_phys_census(struct mw_device *dev, struct mw_phys_census *c,
		   struct mw_error *err);
void mw_phys_census_free(struct mw_phys_census *c);

/* @c's classes summed over every zone (and node) into @sum. */
void mw_phys_sum(const struct mw_phys_census *c, struct mw_phys_zone *sum);

/* Class names as the client and its JSON say them ("kernel-other"...). */
const char *mw_phys_class_name(unsigned int cls);

/* /proc/meminfo, the fields the census is compared with, in kB (-1: absent). */
struct mw_meminfo {
	long long mem_total, mem_free, buffers, cached, swap_cached, anon_pages,
		  mapped, shmem, dirty, writeback, slab, sreclaimable, sunreclaim,
		  kernel_stack, page_tables, sec_page_tables, vmalloc_used, percpu,
		  hardware_corrupted, hugetlb, hugepages_free, hugepagesize;
};

/* Read @path (/proc/meminfo) into @m; 0 or a negative errno with @err. */
int mw_meminfo_read(const char *path, struct mw_meminfo *m, struct mw_error *err);

/*
 * The name of zone @zone of node @nid as /proc/zoneinfo lists it
 * ("DMA32"), copied into @buf; "zone N" when it cannot be told.
 */
void mw_zone_name(unsigned int nid, unsigned int zone, char *buf, size_t len);

#endif /* MEMWALK_PHYS_H */

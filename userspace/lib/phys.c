// SPDX-License-Identifier: GPL-2.0
/*
 * libmemwalk: the census of physical memory.  MEMWALK_IOC_PHYS is asked
 * again from where it stopped until the whole range is done; each record
 * is added to its node's zone.  The kernel reads a moving system, so the
 * totals are a census, not a snapshot (see memwalk-client(1)).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "device.h"
#include "phys.h"

#define RUN_BUF_RECORDS	4096

static const char *const class_names[MW_PHYS_NR_CLASSES] = {
	[MEMWALK_PHYS_CLASS_OFFLINE] = "offline",
	[MEMWALK_PHYS_CLASS_HWPOISON] = "hwpoison",
	[MEMWALK_PHYS_CLASS_FREE] = "free",
	[MEMWALK_PHYS_CLASS_HUGETLB] = "hugetlb",
	[MEMWALK_PHYS_CLASS_SLAB] = "slab",
	[MEMWALK_PHYS_CLASS_PGTABLE] = "pagetables",
	[MEMWALK_PHYS_CLASS_ZERO] = "zero",
	[MEMWALK_PHYS_CLASS_RESERVED] = "reserved",
	[MEMWALK_PHYS_CLASS_ANON] = "anon",
	[MEMWALK_PHYS_CLASS_SHMEM] = "shmem",
	[MEMWALK_PHYS_CLASS_FILE] = "file",
	[MEMWALK_PHYS_CLASS_OTHER] = "kernel-other",
};

const char *mw_phys_class_name(unsigned int cls)
{
	return cls < MW_PHYS_NR_CLASSES ? class_names[cls] : "?";
}

/* The zone of @nid/@zone in @c, added in order if new; NULL: no memory. */
static struct mw_phys_zone *zone_of(struct mw_phys_census *c, unsigned int nid,
				    unsigned int zone)
{
	struct mw_phys_zone *z;
	size_t i;

	for (i = 0; i < c->nr_zones; i++) {
		z = &c->zones[i];
		if (z->nid == nid && z->zone == zone)
			return z;
		if (z->nid > nid || (z->nid == nid && z->zone > zone))
			break;
	}
	z = realloc(c->zones, (c->nr_zones + 1) * sizeof(*z));
	if (!z)
		return NULL;
	c->zones = z;
	memmove(&z[i + 1], &z[i], (c->nr_zones - i) * sizeof(*z));
	memset(&z[i], 0, sizeof(*z));
	z[i].nid = nid;
	z[i].zone = zone;
	c->nr_zones++;
	return &z[i];
}

static int add_record(struct mw_phys_census *c, const struct memwalk_phys_run *r,
		      struct mw_error *err)
{
	struct mw_phys_zone *z;
	struct mw_phys_class *k;
	uint64_t n = r->nr_pages;

	if (r->class >= MW_PHYS_NR_CLASSES)
		return mw_error_set(err, -EPROTO,
				    "MEMWALK_IOC_PHYS returned an unknown class %u at PFN %llu",
				    r->class, (unsigned long long)r->pfn);
	z = zone_of(c, r->nid, r->zone);
	if (!z)
		return mw_error_set(err, -ENOMEM, "out of memory");
	k = &z->cls[r->class];
	k->pages += n;
	if (r->flags & MEMWALK_PHYS_MAPPED)
		k->mapped += n;
	if (r->flags & MEMWALK_PHYS_DIRTY)
		k->dirty += n;
	if (r->flags & MEMWALK_PHYS_WRITEBACK)
		k->writeback += n;
	if (r->flags & MEMWALK_PHYS_SWAPCACHE)
		k->swapcache += n;
	if (r->flags & MEMWALK_PHYS_HUGETLB_FREE)
		k->hugetlb_free += n;
	if (r->class == MEMWALK_PHYS_CLASS_FREE && r->order <= MW_PHYS_MAX_ORDER)
		z->free_order[r->order] += n;
	return 0;
}

static int phys_error(struct mw_device *dev, int ret, struct mw_error *err)
{
	if (ret == -EPERM)
		return mw_error_unavailable(err, ret,
					    "phys: a census of physical memory needs root (CAP_SYS_ADMIN), also in lab mode [%s]",
					    mw_errno_text(-ret));
	return mw_error_set(err, ret, "MEMWALK_IOC_PHYS on %s failed [%s]",
			    dev->path, mw_errno_text(-ret));
}

int mw_phys_census(struct mw_device *dev, struct mw_phys_census *c,
		   struct mw_error *err)
{
	struct memwalk_phys_run *buf;
	struct memwalk_phys req;
	uint64_t pfn = 0, end = 0, i;
	int ret = 0;

	memset(c, 0, sizeof(*c));
	c->page_size = (size_t)sysconf(_SC_PAGESIZE);
	if (!(dev->info.features & MEMWALK_FEAT_PHYS))
		return mw_error_set(err, -EOPNOTSUPP,
				    "phys: the loaded memwalk module has no census of physical memory (MEMWALK_FEAT_PHYS): load a newer one");
	buf = calloc(RUN_BUF_RECORDS, sizeof(*buf));
	if (!buf)
		return mw_error_set(err, -ENOMEM, "out of memory");
	do {
		memset(&req, 0, sizeof(req));
		req.size = sizeof(req);
		req.start_pfn = pfn;
		req.run_buf = (uintptr_t)buf;
		req.run_buf_len = RUN_BUF_RECORDS * sizeof(*buf);
		ret = mw_device_ioctl(dev, MEMWALK_IOC_PHYS, &req);
		if (ret) {
			ret = phys_error(dev, ret, err);
			break;
		}
		end = req.max_pfn;
		if (req.run_size != sizeof(*buf) || req.nr_runs > RUN_BUF_RECORDS ||
		    req.next_pfn <= pfn || req.next_pfn > end) {
			ret = mw_error_set(err, -EPROTO,
					   "MEMWALK_IOC_PHYS returned a bad answer (run size %u, %llu records, next PFN %llu after %llu)",
					   req.run_size, (unsigned long long)req.nr_runs,
					   (unsigned long long)req.next_pfn,
					   (unsigned long long)pfn);
			break;
		}
		for (i = 0; i < req.nr_runs && !ret; i++)
			ret = add_record(c, &buf[i], err);
		c->records += req.nr_runs;
		c->calls++;
		pfn = req.next_pfn;
	} while (!ret && pfn < end);
	free(buf);
	c->max_pfn = end;
	if (ret)
		mw_phys_census_free(c);
	return ret;
}

void mw_phys_census_free(struct mw_phys_census *c)
{
	free(c->zones);
	c->zones = NULL;
	c->nr_zones = 0;
}

void mw_phys_sum(const struct mw_phys_census *c, struct mw_phys_zone *sum)
{
	size_t i, k;

	memset(sum, 0, sizeof(*sum));
	for (i = 0; i < c->nr_zones; i++) {
		const struct mw_phys_zone *z = &c->zones[i];

		for (k = 0; k < MW_PHYS_NR_CLASSES; k++) {
			sum->cls[k].pages += z->cls[k].pages;
			sum->cls[k].mapped += z->cls[k].mapped;
			sum->cls[k].dirty += z->cls[k].dirty;
			sum->cls[k].writeback += z->cls[k].writeback;
			sum->cls[k].swapcache += z->cls[k].swapcache;
			sum->cls[k].hugetlb_free += z->cls[k].hugetlb_free;
		}
		for (k = 0; k <= MW_PHYS_MAX_ORDER; k++)
			sum->free_order[k] += z->free_order[k];
	}
}

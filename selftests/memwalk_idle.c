// SPDX-License-Identifier: GPL-2.0
/*
 * memwalk_idle.h: a target's pages made idle, through idle-page tracking
 * or DAMON, for the tests that count young folios as smaps does.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/memwalk.h>

#include "memwalk_idle.h"
#include "memwalk_util.h"

#define KDAMOND		"/sys/kernel/mm/damon/admin/kdamonds/0"
#define DAMON_CTX	KDAMOND "/contexts/0"
/* DAMON_STAT (7.2 starts it at boot): sysfs kdamonds start exclusively. */
#define DAMON_STAT	"/sys/module/damon_stat/parameters/enabled"

/* Write @val to DAMON's sysfs file @path; on failure say which in @why. */
static bool damon_set(const char *path, const char *val, struct mw_why *why)
{
	int ret = mw_write_file(path, val);

	if (!ret)
		return true;
	mw_why_set(why, "%s < %s: %s", path, val, strerror(-ret));
	return false;
}

/*
 * DAMON's virtual-address monitoring of @reg in @pid for @ms: each sample
 * clears a page's accessed bit and marks its folio young and idle
 * (damon_ptep_mkold()), as idle-page tracking does.  @reg is the initial
 * region, which damon_va_init() keeps, and the regions are not updated
 * from the mappings (damon_va_update()) before @ms are over: the samples,
 * one a region every 5 ms, all fall in @reg.  true, or false with @why.
 */
static bool damon_run(pid_t pid, const struct mw_region *reg, unsigned int ms,
		      struct mw_why *why)
{
	char spid[16], start[24], end[24], update[24], stat[8] = "";
	bool stat_on = !mw_read_file(DAMON_STAT, stat, sizeof(stat)) && stat[0] == 'Y';
	bool ok;

	snprintf(spid, sizeof(spid), "%d", pid);
	snprintf(start, sizeof(start), "%llu", (unsigned long long)reg->start);
	snprintf(end, sizeof(end), "%llu", (unsigned long long)reg->end);
	snprintf(update, sizeof(update), "%u", 10 * ms * 1000);
	ok = (!stat_on || damon_set(DAMON_STAT, "N", why)) &&
	     damon_set("/sys/kernel/mm/damon/admin/kdamonds/nr_kdamonds", "1", why) &&
	     damon_set(KDAMOND "/contexts/nr_contexts", "1", why) &&
	     damon_set(DAMON_CTX "/operations", "vaddr", why) &&
	     damon_set(DAMON_CTX "/monitoring_attrs/intervals/update_us", update, why) &&
	     damon_set(DAMON_CTX "/targets/nr_targets", "1", why) &&
	     damon_set(DAMON_CTX "/targets/0/pid_target", spid, why) &&
	     damon_set(DAMON_CTX "/targets/0/regions/nr_regions", "1", why) &&
	     damon_set(DAMON_CTX "/targets/0/regions/0/start", start, why) &&
	     damon_set(DAMON_CTX "/targets/0/regions/0/end", end, why) &&
	     damon_set(KDAMOND "/state", "on", why);
	if (ok)
		usleep(ms * 1000);
	mw_write_file(KDAMOND "/state", "off");
	mw_write_file("/sys/kernel/mm/damon/admin/kdamonds/nr_kdamonds", "0");
	if (stat_on)
		mw_write_file(DAMON_STAT, "Y");
	return ok;
}

/*
 * Idle-page tracking, where the kernel has it (the debug kernel; Debian's
 * have DAMON instead): each present page of @reg set idle through
 * /sys/kernel/mm/page_idle/bitmap, which clears its accessed bits and
 * marks a folio whose bit was set young (page_idle_clear_pte_refs_one()).
 */
static bool page_idle_mark(pid_t pid, const struct mw_region *reg, struct mw_why *why)
{
	size_t i, nr = (reg->end - reg->start) / MW_PAGE;
	uint64_t *pm = calloc(nr, sizeof(*pm));
	int fd = open("/sys/kernel/mm/page_idle/bitmap", O_WRONLY | O_CLOEXEC);
	bool ok = pm && fd >= 0 && !mw_pagemap_read(pid, reg->start, nr, pm);

	if (!ok)
		mw_why_set(why, "page_idle/bitmap of %s: %s", reg->name,
			   fd < 0 ? strerror(errno) : "cannot read pagemap");
	for (i = 0; ok && i < nr; i++) {
		uint64_t pfn = pm[i] & PM_PFN_MASK, word = 1ULL << (pfn % 64);
		ssize_t done;

		if (!(pm[i] & PM_PRESENT))
			continue;
		/*
		 * The chunk that holds max_pfn is written but counted as 0
		 * bytes (page_idle_bitmap_write() moves on only at a chunk's
		 * last bit); idle_pages() checks what the writes did.
		 */
		done = pwrite(fd, &word, sizeof(word), pfn / 64 * sizeof(word));
		if (done < 0) {
			mw_why_set(why, "page_idle/bitmap of %s, pfn %#llx: %s", reg->name,
				   (unsigned long long)pfn, strerror(errno));
			ok = false;
		}
	}
	if (fd >= 0)
		close(fd);
	free(pm);
	return ok;
}

/* Pages of @reg in @pid that /proc/kpageflags shows idle (KPF_IDLE). */
static size_t idle_pages(pid_t pid, const struct mw_region *reg)
{
	size_t i, nr = (reg->end - reg->start) / MW_PAGE, idle = 0;
	uint64_t *pm = calloc(nr, sizeof(*pm)), f;

	if (!pm || mw_pagemap_read(pid, reg->start, nr, pm))
		nr = 0;
	for (i = 0; i < nr; i++)
		if ((pm[i] & PM_PRESENT) && !mw_kpageflags(pm[i] & PM_PFN_MASK, &f) &&
		    (f >> MEMWALK_KPF_IDLE & 1))
			idle++;
	free(pm);
	return idle;
}

int mw_idle_make(pid_t pid, const struct mw_region *reg, size_t *idle,
		 const char **how, struct mw_why *why)
{
	int round;

	*idle = 0;
	if (!access("/sys/kernel/mm/page_idle/bitmap", F_OK)) {
		*how = "page_idle/bitmap";
		if (!page_idle_mark(pid, reg, why))
			return -1;
		*idle = idle_pages(pid, reg);
		return 0;
	}
	if (access("/sys/kernel/mm/damon/admin", F_OK))
		return -EOPNOTSUPP;
	*how = "DAMON";
	/* The default intervals: 5 ms samples, regions split every 100 ms. */
	for (round = 1; round <= 5 && !*idle; round++) {
		if (!damon_run(pid, reg, 1000, why))
			return -1;
		*idle = idle_pages(pid, reg);
	}
	return 0;
}

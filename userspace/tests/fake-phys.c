// SPDX-License-Identifier: GPL-2.0
/*
 * The fake device's census of physical memory (MEMWALK_IOC_PHYS), for the
 * host tests of "memwalk-client phys" (tests/phys-tests.sh): a fixed
 * machine of two nodes served the way uapi/linux/memwalk.h describes,
 * records cut where a call stops and continued by the next.
 *
 *   MW_FAKE_PHYS_MAX=N   at most N records per call (the client resumes)
 *   MW_FAKE_ERRNO=NAME   the census fails with this errno (EPERM: lab mode)
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <linux/memwalk.h>

#include "fake-phys.h"

#define R(pfn, n, cls, fl, ord, nid, zone) \
	{ pfn, n, fl, nid, MEMWALK_PHYS_CLASS_##cls, ord, zone, { 0 } }

/* The machine; tests/phys-tests.sh knows its sums. */
static const struct memwalk_phys_run machine[] = {
	R(0, 256, RESERVED, 0, 0, 0, 0),
	R(256, 1024, FREE, 0, 10, 0, 0),
	R(1280, 512, ANON, MEMWALK_PHYS_MAPPED, 9, 0, 1),
	R(1792, 100, ANON, MEMWALK_PHYS_SWAPCACHE, 0, 0, 1),
	R(1892, 300, FILE, MEMWALK_PHYS_MAPPED | MEMWALK_PHYS_DIRTY, 0, 0, 1),
	R(2192, 50, FILE, MEMWALK_PHYS_WRITEBACK | MEMWALK_PHYS_LRU, 0, 0, 1),
	R(2242, 200, SHMEM, 0, 0, 0, 1),
	R(2442, 64, SLAB, 0, 0, 0, 1),
	R(2506, 16, PGTABLE, 0, 0, 0, 1),
	R(2560, 512, HUGETLB, MEMWALK_PHYS_HUGETLB_FREE, 9, 0, 1),
	R(3072, 512, HUGETLB, 0, 9, 0, 1),
	R(3584, 1, ZERO, 0, 0, 0, 1),
	R(3585, 77, OTHER, 0, 0, 0, 1),
	/* a hole, then node 1 */
	R(8192, 2048, FREE, 0, 10, 1, 1),
	R(10240, 3, FREE, 0, 0, 1, 1),
	R(10243, 1000, FILE, 0, 0, 1, 1),
};

#define NR_RECORDS	(sizeof(machine) / sizeof(machine[0]))
#define MAX_PFN		16384ULL

static int fail(int err)
{
	errno = err;
	return -1;
}

int mw_fake_phys(struct memwalk_phys *q, int injected)
{
	struct memwalk_phys_run *out = (void *)(uintptr_t)q->run_buf;
	const char *max = getenv("MW_FAKE_PHYS_MAX");
	uint64_t cap = q->run_buf_len / sizeof(*out), end, pfn, n = 0;
	size_t i;

	if (injected)
		return fail(injected);
	if (q->size < MEMWALK_PHYS_SIZE_VER0 || q->flags || q->__reserved)
		return fail(EINVAL);
	end = q->end_pfn ? q->end_pfn : MAX_PFN;
	if (end > MAX_PFN || q->start_pfn >= end)
		return fail(EINVAL);
	if (!cap)
		return fail(ENOSPC);
	if (max && strtoull(max, NULL, 0) < cap)
		cap = strtoull(max, NULL, 0);
	pfn = q->start_pfn;
	for (i = 0; i < NR_RECORDS && n < cap; i++) {
		const struct memwalk_phys_run *r = &machine[i];
		uint64_t from = r->pfn > pfn ? r->pfn : pfn;
		uint64_t to = r->pfn + r->nr_pages < end ? r->pfn + r->nr_pages : end;

		if (from >= to)
			continue;
		out[n] = *r;
		out[n].pfn = from;
		out[n++].nr_pages = (uint32_t)(to - from);
		pfn = to;
	}
	q->next_pfn = n == cap && i < NR_RECORDS ? pfn : end;
	q->nr_runs = n;
	q->max_pfn = MAX_PFN;
	q->run_size = sizeof(*out);
	return 0;
}

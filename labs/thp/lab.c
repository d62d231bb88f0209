// SPDX-License-Identifier: GPL-2.0
/*
 * The transparent huge page lab (labs/thp/README.md): a 2 MiB region
 * faulted in as one huge page mapped by a PMD; an mprotect() of one page
 * in it, which splits the mapping into PTEs; a second region written page
 * by page, then collapsed into a huge page with MADV_COLLAPSE (the work
 * khugepaged does in the background).
 */
#include <stdint.h>

#include "../lab.h"

#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE	25
#endif
#define HPAGE		(2UL << 20)
#define HPAGE_PAGES	(HPAGE / LAB_PAGE)
#define PROTECTED	256	/* the page made read-only in step 2 */

/* A 2 MiB aligned region of 2 MiB in a fresh private anonymous mapping. */
static char *region_2m(void)
{
	char *p = mmap(NULL, 2 * HPAGE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		lab_fail("mmap");
	return (char *)(((uintptr_t)p + HPAGE - 1) & ~(HPAGE - 1));
}

int main(void)
{
	char *thp = region_2m(), *coll = region_2m();
	int tries;
	size_t i;

	if (madvise(thp, HPAGE, MADV_HUGEPAGE))
		lab_fail("madvise(MADV_HUGEPAGE) (a kernel without THP?)");
	memset(thp, 1, HPAGE);
	lab_note("MADV_HUGEPAGE on 2 MiB at a 2 MiB boundary, then wrote all of it");
	lab_export("PID", "%d", getpid());
	lab_export_range("THP", thp, HPAGE_PAGES);
	lab_step(1);

	if (mprotect(thp + PROTECTED * LAB_PAGE, LAB_PAGE, PROT_READ))
		lab_fail("mprotect");
	lab_note("mprotect(PROT_READ) of page %d of it", PROTECTED);
	lab_export("PROTECTED", "%#lx", (unsigned long)(thp + PROTECTED * LAB_PAGE));
	lab_step(2);

	if (madvise(coll, HPAGE, MADV_NOHUGEPAGE))
		lab_fail("madvise(MADV_NOHUGEPAGE)");
	for (i = 0; i < HPAGE_PAGES; i++)
		coll[i * LAB_PAGE] = 1;
	lab_note("MADV_NOHUGEPAGE on another 2 MiB, then wrote each of its %lu pages", HPAGE_PAGES);
	lab_export_range("COLL", coll, HPAGE_PAGES);
	lab_step(3);

	if (madvise(coll, HPAGE, MADV_HUGEPAGE))
		lab_fail("madvise(MADV_HUGEPAGE)");
	/* EAGAIN: a page was busy (an LRU batch, a reference): try again. */
	for (tries = 0; madvise(coll, HPAGE, MADV_COLLAPSE); tries++) {
		if (errno != EAGAIN || tries == 20)
			lab_fail("madvise(MADV_COLLAPSE) (Linux 6.1 or later)");
		lab_lru_drain_all(coll);
		usleep(50000);
	}
	lab_note("MADV_HUGEPAGE, then MADV_COLLAPSE on it");
	lab_step(4);
	return 0;
}

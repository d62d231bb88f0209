// SPDX-License-Identifier: GPL-2.0
/*
 * The swap lab (labs/swap/README.md): eight private anonymous pages,
 * written, pushed out to swap with MADV_PAGEOUT, inherited by a child as
 * swap entries, and read back, first by the parent, then by the child.
 */
#include <stdint.h>

#include "../lab.h"

#ifndef MADV_PAGEOUT
#define MADV_PAGEOUT	21
#endif
#define NPAGES		8
#define READ_BACK	2	/* the page read back */
#define PM_SWAP		(1ULL << 62)

/* Whether all @n pages at @p are in swap, as pagemap says. */
static int swapped(const char *p, size_t n)
{
	uint64_t pm[NPAGES];
	FILE *f = fopen("/proc/self/pagemap", "r");
	size_t i, got = 0;

	if (f && !fseek(f, (long)((uintptr_t)p / LAB_PAGE * 8), SEEK_SET))
		got = fread(pm, 8, n, f);
	if (f)
		fclose(f);
	for (i = 0; i < got; i++)
		if (!(pm[i] & PM_SWAP))
			return 0;
	return got == n;
}

static void read_one(void *buf)
{
	(void)((volatile char *)buf)[READ_BACK * LAB_PAGE];
}

int main(void)
{
	volatile char *buf = lab_anon_pages(NPAGES);
	struct lab_child child;
	size_t i;
	int tries;

	for (i = 0; i < NPAGES; i++)
		memset((void *)(buf + i * LAB_PAGE), 'a' + i, LAB_PAGE);
	lab_note("wrote %d private anonymous pages, page i full of the letter 'a' + i", NPAGES);
	lab_export("PID", "%d", getpid());
	lab_export_range("BUF", (void *)buf, NPAGES);
	lab_export("PAGE2", "%#lx", (unsigned long)(buf + READ_BACK * LAB_PAGE));
	lab_step(1);

	for (tries = 0; tries < 10 && !swapped((const char *)buf, NPAGES); tries++) {
		lab_lru_drain_all((void *)buf);
		if (madvise((void *)buf, NPAGES * LAB_PAGE, MADV_PAGEOUT))
			lab_fail("madvise(MADV_PAGEOUT)");
	}
	if (!swapped((const char *)buf, NPAGES)) {
		errno = EAGAIN;
		lab_fail("MADV_PAGEOUT left pages in memory (is swap on? cat /proc/swaps)");
	}
	lab_note("MADV_PAGEOUT: the kernel wrote the %d pages to swap and freed them", NPAGES);
	lab_step(2);

	lab_fork(&child, read_one, (void *)buf);
	lab_note("forked: the child inherits the swap entries");
	lab_export("CHILD", "%d", child.pid);
	lab_step(3);

	lab_note("the parent read page %d: it holds '%c'", READ_BACK, buf[READ_BACK * LAB_PAGE]);
	lab_step(4);

	lab_child_do(&child);
	lab_note("the child read page %d", READ_BACK);
	lab_step(5);

	lab_child_kill(&child);
	return 0;
}

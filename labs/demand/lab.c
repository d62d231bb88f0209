// SPDX-License-Identifier: GPL-2.0
/*
 * The demand paging lab (labs/demand/README.md): sixteen private
 * anonymous pages mapped, read, partly written, partly dropped.
 */
#include "../lab.h"

#define NPAGES		16
#define NWRITTEN	4	/* pages 0-3 written */
#define NDROPPED	8	/* pages 0-7 dropped with MADV_DONTNEED */

int main(void)
{
	volatile char *buf = lab_anon_pages(NPAGES);
	unsigned int sum = 0;
	size_t i;

	lab_note("mapped %d private anonymous pages and touched none", NPAGES);
	lab_export("PID", "%d", getpid());
	lab_export_range("BUF", (void *)buf, NPAGES);
	lab_step(1);

	for (i = 0; i < NPAGES; i++)
		sum += buf[i * LAB_PAGE];
	lab_note("read one byte of each page (they summed to %u)", sum);
	lab_step(2);

	for (i = 0; i < NWRITTEN; i++)
		buf[i * LAB_PAGE] = 1;
	lab_note("wrote one byte of pages 0-%d", NWRITTEN - 1);
	lab_step(3);

	if (madvise((void *)buf, NDROPPED * LAB_PAGE, MADV_DONTNEED))
		lab_fail("madvise(MADV_DONTNEED)");
	lab_note("MADV_DONTNEED on pages 0-%d", NDROPPED - 1);
	lab_step(4);
	return 0;
}

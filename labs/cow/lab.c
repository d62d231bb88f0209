// SPDX-License-Identifier: GPL-2.0
/*
 * The copy-on-write lab (labs/cow/README.md): eight private anonymous
 * pages, written; a fork; the child writes one of them.
 */
#include "../lab.h"

#define NPAGES		8
#define WRITTEN		3	/* the page the child writes */

static void write_one(void *buf)
{
	((char *)buf)[WRITTEN * LAB_PAGE] = 'X';
}

int main(void)
{
	struct lab_child child;
	char *buf = lab_anon_pages(NPAGES);
	size_t i;

	for (i = 0; i < NPAGES; i++)
		memset(buf + i * LAB_PAGE, 'a' + i, LAB_PAGE);
	lab_note("wrote %d private anonymous pages", NPAGES);
	lab_export("PID", "%d", getpid());
	lab_export_range("BUF", buf, NPAGES);
	lab_export("PAGE3", "%#lx", (unsigned long)(buf + WRITTEN * LAB_PAGE));
	lab_step(1);

	lab_fork(&child, write_one, buf);
	lab_note("forked: the child has the same %d pages at the same addresses", NPAGES);
	lab_export("CHILD", "%d", child.pid);
	lab_step(2);

	lab_child_do(&child);
	lab_note("the child wrote one byte of page %d (at $PAGE3)", WRITTEN);
	lab_step(3);

	lab_child_kill(&child);
	return 0;
}

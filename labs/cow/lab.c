// SPDX-License-Identifier: GPL-2.0
/*
 * The copy-on-write lab (labs/cow/README.md): eight private anonymous
 * pages, written; a fork; the child writes one of them.
 */
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include "../lab.h"

#define NPAGES		8
#define WRITTEN		3	/* the page the child writes */

/* The child: wait for the word, write one page, say so, then wait to die. */
static void child(char *buf, int go, int done)
{
	char c;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (read(go, &c, 1) != 1)
		_exit(0);
	buf[WRITTEN * LAB_PAGE] = 'X';
	if (write(done, "w", 1) != 1)
		_exit(1);
	for (;;)
		pause();
}

int main(void)
{
	int go[2], done[2];
	char *buf, c;
	pid_t pid;
	size_t i;

	buf = mmap(NULL, NPAGES * LAB_PAGE, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED)
		lab_fail("mmap");
	/* Base pages only, whatever the THP setting (fails without THP: fine). */
	madvise(buf, NPAGES * LAB_PAGE, MADV_NOHUGEPAGE);
	for (i = 0; i < NPAGES; i++)
		memset(buf + i * LAB_PAGE, 'a' + i, LAB_PAGE);
	lab_note("wrote %d private anonymous pages", NPAGES);
	lab_export("PID", "%d", getpid());
	lab_export_range("BUF", buf, NPAGES);
	lab_export("PAGE3", "%#lx", (unsigned long)(buf + WRITTEN * LAB_PAGE));
	lab_step(1);

	if (pipe(go) || pipe(done))
		lab_fail("pipe");
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		lab_fail("fork");
	if (pid == 0)
		child(buf, go[0], done[1]);
	lab_note("forked: the child has the same %d pages at the same addresses", NPAGES);
	lab_export("CHILD", "%d", pid);
	lab_step(2);

	if (write(go[1], "w", 1) != 1 || read(done[0], &c, 1) != 1)
		lab_fail("the child's write");
	lab_note("the child wrote one byte of page %d (at $PAGE3)", WRITTEN);
	lab_step(3);

	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	return 0;
}

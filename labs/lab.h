/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What every lab program shares: how it talks to the person (or script)
 * running it.  Standard output, one line each:
 *
 *   # TEXT              what the program just did, for people
 *   export NAME=VALUE   a value the handout's commands use ($PID, $BUF, ...):
 *                       paste it into the shell, or eval it
 *   step N              step N's state is built; the program now waits for
 *                       a line on standard input (Enter) before the next
 *   error TEXT          something failed; the program exits with status 1
 *
 * End of input (Ctrl-D, or the driving script closing the pipe) ends the
 * lab at any step.  scripts/guest/lab.sh and selftests/memwalk_labs.c
 * drive the programs through this protocol.
 */
#ifndef MEMWALK_LAB_H
#define MEMWALK_LAB_H

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define LAB_PAGE	4096UL

static inline void lab_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static inline void lab_note(const char *fmt, ...)
{
	va_list ap;

	fputs("# ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

/* An address (or PID, ...) the handout's commands name. */
static inline void lab_export(const char *name, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static inline void lab_export(const char *name, const char *fmt, ...)
{
	va_list ap;

	printf("export %s=", name);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

/* A range of pages as --range takes it, and its start, under NAME. */
static inline void lab_export_range(const char *name, const void *start, size_t pages)
{
	char range[64];
	uintptr_t s = (uintptr_t)start;

	lab_export(name, "%#lx", (unsigned long)s);
	snprintf(range, sizeof(range), "%s_RANGE", name);
	lab_export(range, "%#lx-%#lx", (unsigned long)s,
		   (unsigned long)(s + pages * LAB_PAGE));
}

static inline void __attribute__((noreturn)) lab_fail(const char *what)
{
	printf("error %s: %s\n", what, strerror(errno));
	fflush(stdout);
	exit(1);
}

/* @n private anonymous pages, never touched, of base pages only. */
static inline void *lab_anon_pages(size_t n)
{
	void *p = mmap(NULL, n * LAB_PAGE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		lab_fail("mmap");
	/* Whatever the THP setting (fails on kernels without THP: fine). */
	madvise(p, n * LAB_PAGE, MADV_NOHUGEPAGE);
	return p;
}

/*
 * Put the pages of every CPU's batches on their LRU lists, where
 * MADV_PAGEOUT and MADV_COLLAPSE look for them: moving a page (@page, one
 * of ours) to the node it is on drains them all.
 */
static inline void lab_lru_drain_all(void *page)
{
	int node = -1, status = -1;

	if (!syscall(SYS_move_pages, 0, 1UL, &page, NULL, &status, 0) && status >= 0) {
		node = status;
		syscall(SYS_move_pages, 0, 1UL, &page, &node, &status, 0);
	}
}

/* A forked child that does one thing when its parent says so. */
struct lab_child {
	pid_t pid;
	int go;		/* the parent writes a byte here: do it */
	int done;	/* and reads the child's byte here: done */
};

/*
 * Fork a child that, at lab_child_do(), calls @action(@arg) once and then
 * waits to be killed; it dies with its parent.
 */
static inline void lab_fork(struct lab_child *c, void (*action)(void *), void *arg)
{
	int go[2], done[2];
	char b;

	if (pipe(go) || pipe(done))
		lab_fail("pipe");
	fflush(stdout);
	c->pid = fork();
	if (c->pid < 0)
		lab_fail("fork");
	if (c->pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (read(go[0], &b, 1) != 1)
			_exit(0);
		action(arg);
		if (write(done[1], &b, 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	close(go[0]);
	close(done[1]);
	c->go = go[1];
	c->done = done[0];
}

static inline void lab_child_do(struct lab_child *c)
{
	char b = 'x';

	if (write(c->go, &b, 1) != 1 || read(c->done, &b, 1) != 1)
		lab_fail("the child");
}

static inline void lab_child_kill(struct lab_child *c)
{
	kill(c->pid, SIGKILL);
	waitpid(c->pid, NULL, 0);
}

/*
 * Step @n is built: say so and wait for a line on standard input.  At
 * its end the lab is over: exit (children die with their parent's pipe).
 */
static inline void lab_step(int n)
{
	char line[128];

	printf("step %d\n", n);
	fflush(stdout);
	if (isatty(0))
		fprintf(stderr, "-- step %d is ready: run its commands in another terminal, then press Enter\n", n);
	if (!fgets(line, sizeof(line), stdin))
		exit(0);
}

#endif /* MEMWALK_LAB_H */

// SPDX-License-Identifier: GPL-2.0
/*
 * The address translation lab (labs/translate/README.md): two processes
 * (this program, and a second copy of it that it starts) each map a page
 * of their own at the same fixed virtual address, and both run the same
 * program file, whose code pages they share.
 */
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include "../lab.h"

/* Far from anything else the program maps; its table indexes differ per level. */
#define FIXED_VA	0x123456789000UL

/* Map the page at FIXED_VA and write @who into it. */
static void map_fixed(const char *who)
{
	char *p = mmap((void *)FIXED_VA, LAB_PAGE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);

	if (p == MAP_FAILED)
		lab_fail("mmap at 0x123456789000");
	if ((uintptr_t)p != FIXED_VA) {
		errno = EEXIST;
		lab_fail("mmap at 0x123456789000 (kernel without MAP_FIXED_NOREPLACE?)");
	}
	snprintf(p, LAB_PAGE, "hello from %s", who);
}

/* A page of this program's code, as this process maps it. */
static uintptr_t code_page(void)
{
	return (uintptr_t)&map_fixed & ~(LAB_PAGE - 1);
}

/*
 * The second process (argv: "second FD"): map its page, send its code
 * page's address through FD, then wait until the first one exits.
 */
static int second(int fd)
{
	uintptr_t code;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	map_fixed("B");
	code = code_page();
	if (write(fd, &code, sizeof(code)) != sizeof(code))
		return 1;
	close(fd);
	for (;;)
		pause();
}

int main(int argc, char **argv)
{
	uintptr_t code_b;
	int fds[2];
	pid_t pid;
	char arg[16];

	if (argc == 3 && !strcmp(argv[1], "second"))
		return second(atoi(argv[2]));
	map_fixed("A");
	lab_note("process A mapped a page at %#lx and wrote \"hello from A\" into it", FIXED_VA);
	lab_export("PID_A", "%d", getpid());
	lab_export("VA", "%#lx", FIXED_VA);
	lab_step(1);

	if (pipe(fds))
		lab_fail("pipe");
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		lab_fail("fork");
	if (pid == 0) {
		snprintf(arg, sizeof(arg), "%d", fds[1]);
		close(fds[0]);
		/* A program of its own (exec), not a copy of A's memory (fork). */
		execl("/proc/self/exe", argv[0], "second", arg, (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	if (read(fds[0], &code_b, sizeof(code_b)) != sizeof(code_b))
		lab_fail("the second process did not start");
	lab_note("process B (a new run of the same program) mapped its own page at %#lx "
		 "and wrote \"hello from B\"", FIXED_VA);
	lab_export("PID_B", "%d", pid);
	lab_step(2);

	lab_note("both processes run the same program file: its code is mapped from the page cache");
	lab_export("CODE_A", "%#lx", (unsigned long)code_page());
	lab_export("CODE_B", "%#lx", (unsigned long)code_b);
	lab_step(3);

	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	return 0;
}

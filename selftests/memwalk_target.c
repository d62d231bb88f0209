// SPDX-License-Identifier: GPL-2.0
/*
 * memwalk_target: a process whose memory is in known states, for the
 * snapshot selftests to look at with memwalk and with the kernel's own
 * files (pagemap, kpageflags, smaps).  It speaks over stdin and stdout:
 *
 *   memwalk_target states [--tmpfs DIR] [--disk DIR] [--no-mlock]
 *	Builds every state, prints "region NAME START END" (hex) for each
 *	and "skip NAME: WHY" for those it could not build, then "built".
 *	On the line "go" (the test has written clear_refs=4 meanwhile) it
 *	dirties the soft-dirty region and maps a fresh VMA, drains the LRU
 *	batches and prints "ready".  It exits when stdin closes.
 *   memwalk_target idle
 *	A few touched mappings, then "ready"; exits when stdin closes.
 *   memwalk_target many NR
 *	NR VMAs (alternating protections), every page touched, then "ready".
 *   memwalk_target storm
 *	"ready", then mmap/munmap/mremap/mprotect/madvise/fork/exit in a loop
 *	until killed.
 *   memwalk_target grow NR
 *	A VMA of NR touched pages, then "ready", then it changes (mremap grow
 *	and shrink in place, mprotect of all of it) until killed.
 *   memwalk_target shmem_cached MIB
 *	A memfd of MIB MiB (at most 1024) filled with write(), so its pages
 *	are in the page cache, mapped MAP_SHARED over 1 GiB aligned to 1 GiB
 *	(one PUD entry, none) and never touched (no entry maps them):
 *	"region shmem_cached START END" (the whole mapping), then "ready".
 *   --no-dumpable (any mode): PR_SET_DUMPABLE 0 first.
 *
 * Errors are "error WHAT: WHY" lines and exit status 1.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef MADV_PAGEOUT
#define MADV_PAGEOUT	21
#endif
#ifndef PR_SET_VMA
#define PR_SET_VMA		0x53564d41
#define PR_SET_VMA_ANON_NAME	0
#endif

#define PAGE		4096UL
#define HPAGE		(2UL << 20)
#define GPAGE		(1UL << 30)

static void say(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

static void __attribute__((noreturn)) die(const char *what)
{
	say("error %s: %s", what, strerror(errno));
	exit(1);
}

static void region(const char *name, const void *p, size_t len)
{
	say("region %s %lx %lx", name, (unsigned long)p, (unsigned long)p + len);
}

/*
 * Room for @len bytes aligned to @align, with a PROT_NONE guard page kept
 * just below it: mappings are placed top-down, so the next one ends at the
 * guard and never merges with this one.
 */
static char *place(size_t len, size_t align, const char *what)
{
	char *r = mmap(NULL, len + align + PAGE, PROT_NONE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	char *a;

	if (r == MAP_FAILED)
		die(what);
	a = (char *)(((unsigned long)r + PAGE + align - 1) & ~(align - 1));
	if (a - PAGE > r)
		munmap(r, a - PAGE - r);
	munmap(a, r + len + align + PAGE - a);
	return a;
}

static void *map(size_t len, int prot, int flags, int fd, const char *what)
{
	void *p = mmap(place(len, PAGE, what), len, prot, flags | MAP_FIXED, fd, 0);

	if (p == MAP_FAILED)
		die(what);
	return p;
}

static void *anon(size_t len, const char *what)
{
	return map(len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, what);
}

/* Write one byte into each page (a different value per page). */
static void touch(void *p, size_t len, size_t step)
{
	size_t off;

	for (off = 0; off < len; off += step)
		((volatile char *)p)[off] = (char)(off / PAGE + 1);
}

#define USE_ZERO_PAGE	"/sys/kernel/mm/transparent_hugepage/use_zero_page"

/* Whether the sysfs file @path reads @val (and a newline). */
static bool sys_is(const char *path, const char *val)
{
	char buf[16] = "";
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);

	if (fd >= 0)
		close(fd);
	return n > 0 && !strncmp(buf, val, strlen(val)) && buf[strlen(val)] == '\n';
}

/* Write @val to the sysfs file @path: 0, or -1 with errno set. */
static int write_sys(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), ret = 0;

	if (fd < 0)
		return -1;
	if (write(fd, val, strlen(val)) != (ssize_t)strlen(val))
		ret = -1;
	close(fd);
	return ret;
}

static void read_pages(const void *p, size_t len)
{
	size_t off;

	for (off = 0; off < len; off += PAGE)
		(void)((const volatile char *)p)[off];
}

/* A 2 MiB aligned private anonymous range of @len. */
static char *anon_aligned(size_t len, const char *what)
{
	char *p = mmap(place(len, HPAGE, what), len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);

	if (p == MAP_FAILED)
		die(what);
	return p;
}

/* Reads of our own pagemap: is the page present (or swapped)? */
static uint64_t pagemap_entry(const void *addr)
{
	static int fd = -1;
	uint64_t e = 0;

	if (fd < 0)
		fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	if (fd < 0 || pread(fd, &e, 8, (unsigned long)addr / PAGE * 8) != 8)
		return 0;
	return e;
}

/* @n pages from @p paged out (MADV_PAGEOUT): NULL, or why they were not. */
static const char *page_out(char *p, size_t n)
{
	static char why[128];
	size_t i;

	if (madvise(p, n * PAGE, MADV_PAGEOUT)) {
		snprintf(why, sizeof(why), "MADV_PAGEOUT: %s", strerror(errno));
		return why;
	}
	for (i = 0; i < n; i++) {
		if (!(pagemap_entry(p + i * PAGE) & (1ULL << 62))) {
			snprintf(why, sizeof(why), "page %zu not swapped out (no swap?)", i);
			return why;
		}
	}
	return NULL;
}

/* A file of @pages pages with distinct bytes, written and synced. */
static int make_file(const char *dir, const char *name, size_t pages)
{
	char path[4096], buf[PAGE];
	size_t i;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	unlink(path);
	fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0)
		return -1;
	for (i = 0; i < pages; i++) {
		memset(buf, (int)(i + 'a'), sizeof(buf));
		if (write(fd, buf, sizeof(buf)) != sizeof(buf)) {
			close(fd);
			return -1;
		}
	}
	fsync(fd);
	return fd;
}

/*
 * Page cache of a file in @dir, mapped shared (read 8 pages, dirty 2 of
 * them) and private (read 4 pages, copy-on-write 1).
 */
static void file_states(const char *dir, const char *tag)
{
	char name[64], what[64];
	char *sh, *pr;
	int fd;

	snprintf(name, sizeof(name), "memwalk-target-%d", getpid());
	fd = make_file(dir, name, 16);
	if (fd < 0) {
		say("skip %s_shared: %s/%s: %s", tag, dir, name, strerror(errno));
		return;
	}
	snprintf(what, sizeof(what), "mmap %s shared", tag);
	sh = map(16 * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, what);
	read_pages(sh, 8 * PAGE);
	touch(sh + 4 * PAGE, 2 * PAGE, PAGE);
	snprintf(what, sizeof(what), "%s_shared", tag);
	region(what, sh, 16 * PAGE);

	snprintf(what, sizeof(what), "mmap %s private", tag);
	pr = map(8 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, what);
	read_pages(pr, 4 * PAGE);
	touch(pr + 2 * PAGE, PAGE, PAGE);
	snprintf(what, sizeof(what), "%s_private", tag);
	region(what, pr, 8 * PAGE);
	close(fd);
}

/*
 * file_scattered: a tmpfs file of 32 pages written in the order 0, 5, 10,
 * ... (mod 32), so neighbouring pages were allocated 13 or 19 pages apart
 * and, however the allocator hands pages out, their PFNs rarely follow
 * each other; mapped shared and read whole: alike PTEs.  Every other page of the second
 * half is mapped once more, each in a one-page VMA (no fault-around), so
 * there mapcount alternates 2 and 1 under the same PTE bits.
 */
static void file_scattered(const char *dir)
{
	char path[4096], buf[PAGE];
	char *p, *q;
	int fd, i;

	snprintf(path, sizeof(path), "%s/memwalk-scattered-%d", dir, getpid());
	unlink(path);
	fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0) {
		say("skip file_scattered: %s: %s", path, strerror(errno));
		return;
	}
	unlink(path);
	for (i = 0; i < 32; i++) {
		int page = i * 5 % 32;

		memset(buf, 'a' + page % 26, sizeof(buf));
		if (pwrite(fd, buf, sizeof(buf), (off_t)page * PAGE) != sizeof(buf))
			die("pwrite file_scattered");
	}
	p = map(32 * PAGE, PROT_READ, MAP_SHARED, fd, "mmap file_scattered");
	read_pages(p, 32 * PAGE);
	for (i = 16; i < 32; i += 2) {
		q = mmap(place(PAGE, PAGE, "mmap file_scattered again"), PAGE,
			 PROT_READ, MAP_SHARED | MAP_FIXED, fd, (off_t)i * PAGE);
		if (q == MAP_FAILED)
			die("mmap file_scattered again");
		read_pages(q, PAGE);
	}
	close(fd);
	region("file_scattered", p, 32 * PAGE);
}

struct opts {
	const char *tmpfs;
	const char *disk;
	bool mlock;
};

static void wait_line(const char *word)
{
	char line[64];

	if (!fgets(line, sizeof(line), stdin)) {
		exit(0);
	}
	line[strcspn(line, "\n")] = '\0';
	if (strcmp(line, word)) {
		errno = EPROTO;
		die(line);
	}
}

/*
 * Write 256 KiB of stack: the pages printf() and friends will use later
 * are then present and our own (not shared with the fork child), so that
 * nothing faults once the LRU batches are drained.
 */
static void __attribute__((noinline)) warm_stack(void)
{
	volatile char buf[256 * 1024];
	size_t i;

	for (i = 0; i < sizeof(buf); i += PAGE / 2)
		buf[i] = (char)i;
}

/*
 * Make our own every page of the binary's data, bss, heap and stack: write
 * each back with its value.  After fork() they are shared with the child,
 * and a first write after the LRU drain would copy one into a fresh page
 * sitting in an LRU batch, whose flags then change while we are stopped.
 */
static void own_pages(void)
{
	char line[512], name[256];
	unsigned long start, end, a, heap_end = 0;
	FILE *f = fopen("/proc/self/maps", "re");
	char perms[8];

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		name[0] = '\0';
		if (sscanf(line, "%lx-%lx %7s %*s %*s %*s %255s", &start, &end, perms, name) < 3)
			continue;
		if (!strcmp(name, "[heap]"))
			heap_end = end;
		if (strcmp(perms, "rw-p") ||
		    (strcmp(name, "[stack]") && strcmp(name, "[heap]") &&
		     (heap_end || start >= 0x10000000UL)))
			continue;	/* below the heap: the binary's data and bss */
		for (a = start; a < end; a += PAGE)
			*(volatile char *)a = *(volatile char *)a;
	}
	fclose(f);
}

/* Run on CPU 0 only, so that every LRU batch holding our pages is one CPU's. */
static void pin_cpu0(void)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(0, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

/*
 * Flush the per-CPU LRU and mlock batches of every CPU (lru_add_drain_all(),
 * via move_pages() of one page to the node it is on), so that our pages'
 * LRU flags stop moving once we are stopped.
 */
static void drain_lru(void)
{
	static char page[PAGE] __attribute__((aligned(PAGE)));
	void *pages[1] = { page };
	int node, status = -1;

	page[0] = 1;
	if (syscall(SYS_move_pages, 0, 1, pages, NULL, &status, 0) || status < 0)
		return;
	node = status;
	syscall(SYS_move_pages, 0, 1, pages, &node, &status, 0);
}

static void states(const struct opts *o)
{
	char *cow_before, *cow_after, *swapped_sd = NULL, *p;
	pid_t child, parent = getpid();
	const char *why;
	size_t i;
	int fd;

	pin_cpu0();

	/* Copy-on-write: shared with a child that sleeps; cow_after rewritten. */
	cow_before = anon(16 * PAGE, "mmap cow_before");
	cow_after = anon(16 * PAGE, "mmap cow_after");
	touch(cow_before, 16 * PAGE, PAGE);
	touch(cow_after, 16 * PAGE, PAGE);
	fflush(NULL);
	child = fork();
	if (child < 0)
		die("fork");
	if (child == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(0);
		for (;;)
			pause();
	}
	for (i = 0; i < 16 * PAGE; i += PAGE)
		cow_after[i] = 'w';
	region("cow_before", cow_before, 16 * PAGE);
	region("cow_after", cow_after, 16 * PAGE);

	p = anon(16 * PAGE, "mmap anon_untouched");
	region("anon_untouched", p, 16 * PAGE);

	p = anon(16 * PAGE, "mmap anon_touched");
	touch(p, 16 * PAGE, PAGE);
	region("anon_touched", p, 16 * PAGE);

	p = anon(64 * PAGE, "mmap anon_sparse");
	for (i = 0; i < 64; i++)
		if (i % 3 == 0 || i % 7 == 0)
			p[i * PAGE] = (char)i;
	region("anon_sparse", p, 64 * PAGE);

	p = anon(16 * PAGE, "mmap anon_ro");
	touch(p, 16 * PAGE, PAGE);
	if (mprotect(p, 16 * PAGE, PROT_READ))
		die("mprotect anon_ro");
	region("anon_ro", p, 16 * PAGE);

	p = anon(16 * PAGE, "mmap prot_none");
	touch(p, 16 * PAGE, PAGE);
	if (mprotect(p, 16 * PAGE, PROT_NONE))
		die("mprotect prot_none");
	region("prot_none", p, 16 * PAGE);

	p = anon(16 * PAGE, "mmap zero");
	read_pages(p, 16 * PAGE);
	region("zero", p, 16 * PAGE);

	p = map(16 * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1,
		"mmap shared_anon");
	touch(p, 8 * PAGE, PAGE);
	region("shared_anon", p, 16 * PAGE);

	p = anon(8 * PAGE, "mmap anon_named");
	touch(p, 8 * PAGE, PAGE);
	if (prctl(PR_SET_VMA, PR_SET_VMA_ANON_NAME, p, 8 * PAGE, "memwalk-test"))
		say("skip anon_named: PR_SET_VMA_ANON_NAME: %s", strerror(errno));
	else
		region("anon_named", p, 8 * PAGE);

	if (o->tmpfs) {
		file_states(o->tmpfs, "tmpfs");
		file_scattered(o->tmpfs);
		/* A name that maps escapes, of a file that is gone. */
		fd = make_file(o->tmpfs, "memwalk target\nfile", 4);
		if (fd < 0) {
			say("skip file_deleted: %s", strerror(errno));
		} else {
			char path[4096];

			p = map(4 * PAGE, PROT_READ, MAP_SHARED, fd, "mmap file_deleted");
			read_pages(p, 4 * PAGE);
			snprintf(path, sizeof(path), "%s/memwalk target\nfile", o->tmpfs);
			unlink(path);
			close(fd);
			region("file_deleted", p, 4 * PAGE);
		}
	} else {
		say("skip tmpfs_shared: no --tmpfs");
	}
	if (o->disk)
		file_states(o->disk, "disk");
	else
		say("skip disk_shared: no --disk");

	/* THP: a PMD-mapped one, the huge zero page, and a PTE-mapped one. */
	p = anon_aligned(HPAGE, "mmap thp");
	if (madvise(p, HPAGE, MADV_HUGEPAGE)) {
		say("skip thp: MADV_HUGEPAGE: %s", strerror(errno));
	} else {
		touch(p, HPAGE, PAGE);
		region("thp", p, HPAGE);

		/*
		 * Read faults map the huge zero page when it is in use (which
		 * root turns on for an unprivileged target).
		 */
		p = anon_aligned(HPAGE, "mmap thp_zero");
		madvise(p, HPAGE, MADV_HUGEPAGE);
		if (!sys_is(USE_ZERO_PAGE, "1") && write_sys(USE_ZERO_PAGE, "1")) {
			say("skip thp_zero: %s: %s", USE_ZERO_PAGE, strerror(errno));
		} else {
			read_pages(p, HPAGE);
			region("thp_zero", p, HPAGE);
		}

		/* Split the PMD, not the folio: one page read-only in the middle. */
		p = anon_aligned(HPAGE, "mmap thp_pte");
		madvise(p, HPAGE, MADV_HUGEPAGE);
		touch(p, HPAGE, PAGE);
		if (mprotect(p + 5 * PAGE, PAGE, PROT_READ))
			die("mprotect thp_pte");
		region("thp_pte", p, HPAGE);
	}

	/* hugetlb: private (one of two touched) and shared. */
	p = mmap(place(2 * HPAGE, HPAGE, "hugetlb"), 2 * HPAGE, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB | MAP_FIXED, -1, 0);
	if (p == MAP_FAILED) {
		say("skip hugetlb: %s", strerror(errno));
	} else {
		touch(p, HPAGE, PAGE);
		region("hugetlb", p, 2 * HPAGE);
		p = mmap(place(HPAGE, HPAGE, "hugetlb_shared"), HPAGE, PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_ANONYMOUS | MAP_HUGETLB | MAP_FIXED, -1, 0);
		if (p == MAP_FAILED) {
			say("skip hugetlb_shared: %s", strerror(errno));
		} else {
			touch(p, HPAGE, PAGE);
			region("hugetlb_shared", p, HPAGE);
		}
	}

	/* Swap: the first 16 of 32 pages paged out. */
	p = anon(32 * PAGE, "mmap swapped");
	touch(p, 32 * PAGE, PAGE);
	why = page_out(p, 16);
	if (why)
		say("skip swapped: %s", why);
	else
		region("swapped", p, 32 * PAGE);

	/*
	 * Swap entries that differ in the soft-dirty bit alone: all 16 pages
	 * paged out now; after "go" (clear_refs=4 cleared the bit) the odd
	 * ones are written and paged out again, and so have it.
	 */
	p = anon(16 * PAGE, "mmap swapped_soft_dirty");
	touch(p, 16 * PAGE, PAGE);
	why = page_out(p, 16);
	if (why) {
		say("skip swapped_soft_dirty: %s", why);
	} else {
		region("swapped_soft_dirty", p, 16 * PAGE);
		swapped_sd = p;
	}

	/*
	 * Shmem swap: the first 16 of 32 shared anonymous pages paged out.
	 * Shmem unmaps them first, so pagemap shows no entry there.
	 */
	p = map(32 * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1,
		"mmap shmem_swapped");
	touch(p, 32 * PAGE, PAGE);
	if (madvise(p, 16 * PAGE, MADV_PAGEOUT)) {
		say("skip shmem_swapped: MADV_PAGEOUT: %s", strerror(errno));
	} else {
		for (i = 0; i < 32; i++)
			if (!(pagemap_entry(p + i * PAGE) & (1ULL << 63)) != (i < 16))
				break;
		if (i < 32)
			say("skip shmem_swapped: page %zu not paged out as asked (no swap?)", i);
		else
			region("shmem_swapped", p, 32 * PAGE);
	}

	if (o->mlock) {
		p = anon(8 * PAGE, "mmap mlocked");
		if (mlock(p, 8 * PAGE)) {
			say("skip mlocked: %s", strerror(errno));
		} else {
			touch(p, 8 * PAGE, PAGE);
			region("mlocked", p, 8 * PAGE);
		}
	}

	p = anon(16 * PAGE, "mmap soft_dirty");
	touch(p, 16 * PAGE, PAGE);
	region("soft_dirty", p, 16 * PAGE);

	say("built");
	wait_line("go");

	/* After clear_refs=4: half the pages dirtied again, and a new VMA. */
	touch(p, 8 * PAGE, PAGE);
	for (i = 1; swapped_sd && i < 16; i += 2) {
		swapped_sd[i * PAGE] = 1;
		why = page_out(swapped_sd + i * PAGE, 1);
		if (why) {
			say("error swapped_soft_dirty, page %zu again: %s", i, why);
			exit(1);
		}
	}
	p = anon(4 * PAGE, "mmap soft_dirty_new");
	touch(p, 2 * PAGE, PAGE);
	region("soft_dirty_new", p, 4 * PAGE);

	warm_stack();
	own_pages();
	drain_lru();
	say("ready");
}

static void idle(void)
{
	char *p = anon(8 * PAGE, "mmap idle");

	touch(p, 8 * PAGE, PAGE);
	region("idle", p, 8 * PAGE);
	warm_stack();
	drain_lru();
	say("ready");
}

static void many(long nr)
{
	char *p;
	long i;

	if (nr < 1 || nr > 60000) {
		errno = EINVAL;
		die("many NR");
	}
	p = anon(nr * PAGE, "mmap many");
	touch(p, nr * PAGE, PAGE);
	for (i = 1; i < nr; i += 2)
		if (mprotect(p + i * PAGE, PAGE, PROT_READ))
			die("mprotect many");
	region("many", p, nr * PAGE);
	say("ready");
}

static void shmem_cached(long mib)
{
	static char buf[1 << 20];
	size_t len = (size_t)mib << 20, off;
	ssize_t n;
	char *p;
	int fd;

	if (mib < 1 || mib > 1024) {
		errno = EINVAL;
		die("shmem_cached MIB");
	}
	fd = memfd_create("memwalk-cached", MFD_CLOEXEC);
	if (fd < 0)
		die("memfd_create shmem_cached");
	memset(buf, 0x5a, sizeof(buf));
	for (off = 0; off < len; off += n) {
		n = write(fd, buf, len - off < sizeof(buf) ? len - off : sizeof(buf));
		if (n <= 0)
			die("write shmem_cached");
	}
	p = mmap(place(GPAGE, GPAGE, "mmap shmem_cached"), GPAGE, PROT_READ,
		 MAP_SHARED | MAP_FIXED, fd, 0);
	if (p == MAP_FAILED)
		die("mmap shmem_cached");
	close(fd);
	region("shmem_cached", p, GPAGE);
	say("ready");
}

/*
 * One big populated VMA that changes all the time: grown by a page in
 * place, shrunk back, its protection flipped.
 */
static void __attribute__((noreturn)) grow(long pages)
{
	char *p = anon((pages + 1) * PAGE, "mmap grow");
	unsigned long iter;

	if (munmap(p + pages * PAGE, PAGE))
		die("munmap grow");
	touch(p, pages * PAGE, PAGE);
	region("grow", p, pages * PAGE);
	say("ready");
	for (iter = 0;; iter++) {
		if (mremap(p, pages * PAGE, (pages + 1) * PAGE, 0) == MAP_FAILED)
			die("mremap grow");
		if (mremap(p, (pages + 1) * PAGE, pages * PAGE, 0) == MAP_FAILED)
			die("mremap shrink");
		/* The whole VMA, so that it stays one for mremap(). */
		if (mprotect(p, pages * PAGE, iter & 1 ? PROT_READ : PROT_READ | PROT_WRITE))
			die("mprotect grow");
	}
}

#define SLOTS	32

static unsigned int rnd(unsigned int n)
{
	static uint64_t x = 88172645463325252ULL;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return (unsigned int)(x % n);
}

static void __attribute__((noreturn)) storm(void)
{
	static const int prots[] = { PROT_READ, PROT_READ | PROT_WRITE, PROT_NONE };
	struct { char *p; size_t len; } slot[SLOTS] = {};
	unsigned long iter;
	struct timespec ts;
	unsigned int i, op;
	pid_t pid;

	say("ready");
	for (iter = 0;; iter++) {
		i = rnd(SLOTS);
		op = rnd(8);
		if (!slot[i].p) {
			slot[i].len = (1 + rnd(24)) * PAGE;
			slot[i].p = mmap(NULL, slot[i].len, PROT_READ | PROT_WRITE,
					 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			if (slot[i].p == MAP_FAILED) {
				slot[i].p = NULL;
				continue;
			}
			touch(slot[i].p, slot[i].len, PAGE * (1 + rnd(3)));
			continue;
		}
		switch (op) {
		case 0:		/* unmap */
			munmap(slot[i].p, slot[i].len);
			slot[i].p = NULL;
			break;
		case 1: {	/* grow or move */
			size_t len = (1 + rnd(32)) * PAGE;
			char *n = mremap(slot[i].p, slot[i].len, len, MREMAP_MAYMOVE);

			if (n != MAP_FAILED) {
				slot[i].p = n;
				slot[i].len = len;
				if (!mprotect(n, len, PROT_READ | PROT_WRITE))
					touch(n, len, PAGE);
			}
			break;
		}
		case 2: {	/* split with a protection change */
			size_t pages = slot[i].len / PAGE, at = rnd(pages);

			mprotect(slot[i].p + at * PAGE, (1 + rnd(pages - at)) * PAGE,
				 prots[rnd(3)]);
			break;
		}
		case 3:		/* merge back */
			if (!mprotect(slot[i].p, slot[i].len, PROT_READ | PROT_WRITE))
				touch(slot[i].p, slot[i].len, PAGE);
			break;
		case 4:
			madvise(slot[i].p, slot[i].len, MADV_DONTNEED);
			break;
		case 5:		/* a child that touches a little and exits */
			fflush(NULL);
			pid = fork();
			if (pid == 0) {
				if (!mprotect(slot[i].p, slot[i].len, PROT_READ | PROT_WRITE))
					touch(slot[i].p, slot[i].len, 2 * PAGE);
				_exit(0);
			}
			break;
		case 6:
			if (!madvise(slot[i].p, slot[i].len, MADV_PAGEOUT))
				break;
			/* fall through */
		default:
			if (!mprotect(slot[i].p, slot[i].len, PROT_READ | PROT_WRITE))
				touch(slot[i].p, slot[i].len, PAGE);
			break;
		}
		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
		if (iter % 64 == 0) {
			ts.tv_sec = 0;
			ts.tv_nsec = 100 * 1000;
			nanosleep(&ts, NULL);
		}
	}
}

int main(int argc, char **argv)
{
	struct opts o = { .mlock = true };
	const char *mode = NULL;
	long nr = 0;
	int i;

	setvbuf(stdout, NULL, _IOLBF, 0);
	/* No stdin buffer to allocate (and fault in) after "ready". */
	setvbuf(stdin, NULL, _IONBF, 0);
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--tmpfs") && i + 1 < argc) {
			o.tmpfs = argv[++i];
		} else if (!strcmp(argv[i], "--disk") && i + 1 < argc) {
			o.disk = argv[++i];
		} else if (!strcmp(argv[i], "--no-mlock")) {
			o.mlock = false;
		} else if (!strcmp(argv[i], "--no-dumpable")) {
			if (prctl(PR_SET_DUMPABLE, 0))
				die("PR_SET_DUMPABLE");
		} else if (!mode) {
			mode = argv[i];
		} else {
			nr = strtol(argv[i], NULL, 0);
		}
	}
	if (!mode) {
		fprintf(stderr, "usage: %s states|idle|many NR|storm|grow NR|shmem_cached MIB [options]\n", argv[0]);
		return 2;
	}
	if (!strcmp(mode, "states"))
		states(&o);
	else if (!strcmp(mode, "idle"))
		idle();
	else if (!strcmp(mode, "many"))
		many(nr);
	else if (!strcmp(mode, "storm"))
		storm();
	else if (!strcmp(mode, "grow"))
		grow(nr);
	else if (!strcmp(mode, "shmem_cached"))
		shmem_cached(nr);
	else {
		errno = EINVAL;
		die(mode);
	}
	/* Stay until the test closes our stdin (or kills us). */
	while (getchar() != EOF)
		;
	return 0;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * make bench, snapshot half: memwalk against its peers on the same target
 * in the same run.  The target maps MEMWALK_BENCH_MIB (default 512) in
 * mixed states: untouched anon, populated 4K anon, THP (MADV_HUGEPAGE,
 * 2 MiB aligned), swapped out (MADV_PAGEOUT), and a page-cache file.
 *
 *   full:       memwalk with folio state  vs  pagemap + /proc/kpageflags
 *               (one pread per PFN, as page-types does)
 *   no-folio:   memwalk without folio state (entry + anon/file/exclusive,
 *               what pagemap says)  vs  pagemap alone
 *   PTE-only:   memwalk entry-only (MEMWALK_SNAP_ENTRY_ONLY: what the
 *               entries say, no struct page read)  vs  pagemap, PAGEMAP_SCAN
 *
 * memwalk lists scattered PFNs (MEMWALK_SNAP_PFN_LIST) in every mode, as
 * the client does; PTE-only is also measured without.
 *
 * Every measurement is the best of MEMWALK_BENCH_REPS (default 5) runs.
 * Under TCG only the ratios mean anything; absolute times are printed for
 * the record, not as claims.
 *
 * The ps half: `memwalk-client ps` over MEMWALK_BENCH_PS_PROCS (default
 * 100) targets, each with a child sharing half its pages, against reading
 * every /proc/PID/smaps_rollup, each parsed line by line into its fields
 * (what smem and ps_mem do), once every target and child has built its
 * state (they say so through a pipe); then where ps's
 * time goes: its MEMWALK_IOC_VMA_SUMMARY calls alone, the /proc/PID/cmdline
 * reads it makes, and for comparison the snapshots (folio state, no PFNs)
 * it took before the summary request; and the longest mmap_lock hold of a
 * summary and of a snapshot of any target.  MEMWALK_BENCH_ONLY=ps runs
 * this half alone.
 *
 * The client half: `memwalk-client PID` (the table, to /dev/null) against
 * `cat /proc/PID/smaps` on a process of MEMWALK_BENCH_VMAS (default 60000)
 * one-page VMAs, a quarter of them file pages (named), and the client's
 * memory per VMA against the size of its JSON.  $MEMWALK_CLIENT is the
 * client (default /bin/memwalk-client); MEMWALK_BENCH_CLIENT_BEFORE names
 * another build to measure beside it; MEMWALK_BENCH_ONLY=client runs this
 * half alone.
 *
 * MEMWALK_BENCH_PROFILE=REGION:MODE:N (scripts/profile.sh) takes N
 * snapshots of one region (untouched, anon, thp, swapped, file or all) in
 * one mode (full, no-folio, pte-only) and nothing else, for a profiler
 * watching the guest; MEMWALK_BENCH_PROFILE=ps:N (scripts/profile-ps.sh)
 * runs each part of the ps half N times, a phase each.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <linux/memwalk.h>

#include "memwalk_phase.h"

#ifndef MADV_PAGEOUT
#define MADV_PAGEOUT	21
#endif

/* PAGEMAP_SCAN (6.7+); the build host's headers may predate it. */
struct mw_page_region {
	uint64_t start, end, categories;
};

struct mw_pm_scan_arg {
	uint64_t size, flags, start, end, walk_end, vec, vec_len, max_pages;
	uint64_t category_inverted, category_mask, category_anyof_mask, return_mask;
};

#define MW_PAGEMAP_SCAN		_IOWR('f', 16, struct mw_pm_scan_arg)
#define MW_PAGE_IS_FILE		(1 << 2)
#define MW_PAGE_IS_PRESENT	(1 << 3)
#define MW_PAGE_IS_SWAPPED	(1 << 4)
#define MW_PAGE_IS_PFNZERO	(1 << 5)
#define MW_PAGE_IS_HUGE		(1 << 6)

#define HUGE_SZ		(2UL << 20)
#define PM_PRESENT	(1ULL << 63)
#define PM_PFN_MASK	((1ULL << 55) - 1)

static long psz;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void *map_aligned(size_t len)
{
	char *p = mmap(NULL, len + HUGE_SZ, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *a;

	if (p == MAP_FAILED) {
		perror("mmap");
		exit(1);
	}
	a = (char *)(((uintptr_t)p + HUGE_SZ - 1) & ~(HUGE_SZ - 1));
	if (a > p)
		munmap(p, a - p);
	munmap(a + len, p + len + HUGE_SZ - (a + len));
	return a;
}

struct region {
	const char *what;
	uint64_t start, end;
};

/* The target: builds the mixed state, tells the parent, then sleeps. */
static pid_t start_target(size_t total, struct region *reg, int pipefd[2])
{
	size_t q = total / 8 / HUGE_SZ * HUGE_SZ;
	pid_t pid;

	if (pipe(pipefd))
		exit(1);
	pid = fork();
	if (pid == 0) {
		char *untouched = map_aligned(2 * q);
		char *pop = map_aligned(2 * q);
		char *thp = map_aligned(2 * q);
		char *swp = map_aligned(q);
		char path[] = "/tmp/memwalk-bench-XXXXXX";
		int fd = mkstemp(path);
		char *file;

		madvise(pop, 2 * q, MADV_NOHUGEPAGE);
		for (size_t i = 0; i < 2 * q; i += psz)
			pop[i] = 1;
		madvise(thp, 2 * q, MADV_HUGEPAGE);
		memset(thp, 2, 2 * q);
		madvise(swp, q, MADV_NOHUGEPAGE);
		memset(swp, 3, q);
		madvise(swp, q, MADV_PAGEOUT);
		if (fd < 0 || ftruncate(fd, q))
			exit(1);
		unlink(path);
		file = mmap(NULL, q, PROT_READ, MAP_SHARED, fd, 0);
		for (size_t i = 0; i < q; i += psz)
			(void)*(volatile char *)(file + i);
		reg[0] = (struct region){ "untouched", (uintptr_t)untouched, (uintptr_t)untouched + 2 * q };
		reg[1] = (struct region){ "4K anon", (uintptr_t)pop, (uintptr_t)pop + 2 * q };
		reg[2] = (struct region){ "THP", (uintptr_t)thp, (uintptr_t)thp + 2 * q };
		reg[3] = (struct region){ "swapped", (uintptr_t)swp, (uintptr_t)swp + q };
		reg[4] = (struct region){ "file", (uintptr_t)file, (uintptr_t)file + q };
		if (write(pipefd[1], reg, 5 * sizeof(*reg)) < 0)
			exit(1);
		for (;;)
			pause();
	}
	if (read(pipefd[0], reg, 5 * sizeof(*reg)) != 5 * (ssize_t)sizeof(*reg)) {
		fprintf(stderr, "target failed\n");
		exit(1);
	}
	return pid;
}

struct mw_result {
	double secs;
	uint64_t bytes, runs, pfns, max_lock_ns, lock_drops;
};

/* The modes as the client asks for them: scattered PFNs listed. */
#define FULL		(MEMWALK_SNAP_ALL | MEMWALK_SNAP_PFN_LIST)
#define NO_FOLIO	(MEMWALK_SNAP_VMAS | MEMWALK_SNAP_PAGES | MEMWALK_SNAP_PFN_LIST)
#define PTE_ONLY	(MEMWALK_SNAP_VMAS | MEMWALK_SNAP_PAGES | MEMWALK_SNAP_ENTRY_ONLY)

static struct mw_result memwalk_snapshot(int fd, pid_t pid, uint64_t start, uint64_t end,
					 uint32_t flags)
{
	static char vbuf[1 << 20], rbuf[8 << 20];
	static uint64_t pfns[1 << 20];
	struct mw_result r = { 0 };
	struct memwalk_snapshot s;
	double t0 = now();

	do {
		memset(&s, 0, sizeof(s));
		s.size = sizeof(s);
		s.flags = flags;
		s.pid = pid;
		s.start = start;
		s.end = end;
		s.vma_buf = (uintptr_t)vbuf;
		s.vma_buf_len = sizeof(vbuf);
		s.run_buf = (uintptr_t)rbuf;
		s.run_buf_len = sizeof(rbuf);
		if (flags & MEMWALK_SNAP_PFN_LIST) {
			s.pfn_buf = (uintptr_t)pfns;
			s.pfn_buf_len = sizeof(pfns);
		}
		if (ioctl(fd, MEMWALK_IOC_SNAPSHOT, &s)) {
			perror("MEMWALK_IOC_SNAPSHOT");
			exit(1);
		}
		r.bytes += s.vma_bytes + s.nr_runs * s.run_size + s.nr_pfns * sizeof(pfns[0]);
		r.runs += s.nr_runs;
		r.pfns += s.nr_pfns;
		r.lock_drops += s.lock_drops;
		if (s.max_lock_ns > r.max_lock_ns)
			r.max_lock_ns = s.max_lock_ns;
		start = s.walk_end;
	} while (s.walk_end != s.end);
	r.secs = now() - t0;
	return r;
}

/* pagemap for [start, end), then kpageflags for every present PFN. */
static double pagemap_read(pid_t pid, uint64_t start, uint64_t end, int kpf,
			   uint64_t *bytes)
{
	static uint64_t pm[1 << 16];
	char path[64];
	double t0 = now();
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/pagemap", pid);
	fd = open(path, O_RDONLY);
	if (fd < 0) {
		perror(path);
		exit(1);
	}
	*bytes = 0;
	for (uint64_t a = start; a < end;) {
		size_t n = (end - a) / psz;
		ssize_t got;

		if (n > sizeof(pm) / 8)
			n = sizeof(pm) / 8;
		got = pread(fd, pm, n * 8, a / psz * 8);
		if (got <= 0) {
			perror("pagemap");
			exit(1);
		}
		*bytes += got;
		for (ssize_t i = 0; kpf >= 0 && i < got / 8; i++) {
			uint64_t flags;

			if (!(pm[i] & PM_PRESENT) || !(pm[i] & PM_PFN_MASK))
				continue;
			if (pread(kpf, &flags, 8, (pm[i] & PM_PFN_MASK) * 8) == 8)
				*bytes += 8;
		}
		a += got / 8 * psz;
	}
	close(fd);
	return now() - t0;
}

/* PAGEMAP_SCAN for present/swapped pages; -1 if the kernel lacks it. */
static double pagemap_scan(pid_t pid, uint64_t start, uint64_t end, uint64_t *bytes)
{
	static struct mw_page_region vec[1 << 14];
	struct mw_pm_scan_arg arg;
	char path[64];
	double t0 = now();
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/pagemap", pid);
	fd = open(path, O_RDONLY);
	*bytes = 0;
	while (start < end) {
		memset(&arg, 0, sizeof(arg));
		arg.size = sizeof(arg);
		arg.start = start;
		arg.end = end;
		arg.vec = (uintptr_t)vec;
		arg.vec_len = sizeof(vec) / sizeof(vec[0]);
		arg.category_anyof_mask = MW_PAGE_IS_PRESENT | MW_PAGE_IS_SWAPPED;
		arg.return_mask = MW_PAGE_IS_PRESENT | MW_PAGE_IS_SWAPPED | MW_PAGE_IS_FILE |
				  MW_PAGE_IS_PFNZERO | MW_PAGE_IS_HUGE;
		int n = ioctl(fd, MW_PAGEMAP_SCAN, &arg);

		if (n < 0) {
			close(fd);
			return -1;
		}
		*bytes += n * sizeof(vec[0]);
		if (arg.walk_end <= start)
			break;
		start = arg.walk_end;
	}
	close(fd);
	return now() - t0;
}

/* MEMWALK_BENCH_PROFILE: N snapshots of one region in one mode, only. */
static int profile(const char *spec, int fd, pid_t pid, const struct region *reg,
		   uint64_t start, uint64_t end)
{
	static const char *const names[] = { "untouched", "anon", "thp", "swapped", "file" };
	char where[16], mode[16];
	uint32_t flags;
	int i, n;

	if (sscanf(spec, "%15[^:]:%15[^:]:%d", where, mode, &n) != 3 || n < 0)
		goto bad;
	if (!strcmp(mode, "full"))
		flags = FULL;
	else if (!strcmp(mode, "no-folio"))
		flags = NO_FOLIO;
	else if (!strcmp(mode, "pte-only"))
		flags = PTE_ONLY | MEMWALK_SNAP_PFN_LIST;
	else
		goto bad;
	for (i = 0; i < 5 && strcmp(where, names[i]); i++)
		;
	if (i < 5) {
		start = reg[i].start;
		end = reg[i].end;
	} else if (strcmp(where, "all")) {
		goto bad;
	}
	printf("# profile: %d snapshots of %llu pages\n", n,
	       (unsigned long long)(end - start) / psz);
	while (n--)
		memwalk_snapshot(fd, pid, start, end, flags);
	return 0;
bad:
	fprintf(stderr, "MEMWALK_BENCH_PROFILE=%s: want REGION:MODE:N\n", spec);
	return 1;
}

#define BEST(expr, out) do {					\
	for (int rep_ = 0; rep_ < reps; rep_++) {		\
		double t_ = (expr);				\
		if (rep_ == 0 || t_ < (out))			\
			(out) = t_;				\
	}							\
} while (0)

/* ---- the client against smaps ------------------------------------------ */

/* A process of @n one-page VMAs (every 4th a page of a file), sleeping. */
static pid_t start_vma_target(long n)
{
	int pipefd[2];
	pid_t pid;
	char c;

	if (pipe(pipefd))
		exit(1);
	pid = fork();
	if (pid == 0) {
		char path[] = "/tmp/memwalk-bench-vmas-XXXXXX";
		int fd = mkstemp(path);
		char *p = mmap(NULL, 2 * n * psz, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (fd < 0 || ftruncate(fd, n * psz) || p == MAP_FAILED)
			exit(1);
		unlink(path);
		/* a hole after every page: no two VMAs merge */
		for (long i = 0; i < n; i++) {
			char *a = p + 2 * i * psz;

			if (munmap(a + psz, psz))
				exit(1);
			if (i % 4 == 1 &&
			    mmap(a, psz, PROT_READ, MAP_SHARED | MAP_FIXED, fd,
				 i * psz) == MAP_FAILED)
				exit(1);
			(void)*(volatile char *)a;
			if (i % 4 != 1)
				*a = 1;
		}
		if (write(pipefd[1], "x", 1) != 1)
			exit(1);
		for (;;)
			pause();
	}
	close(pipefd[1]);
	if (read(pipefd[0], &c, 1) != 1) {
		fprintf(stderr, "the %ld-VMA target failed (vm.max_map_count?)\n", n);
		exit(1);
	}
	close(pipefd[0]);
	return pid;
}

/* cat /proc/PID/smaps > /dev/null; its bytes in *@bytes. */
static double smaps_read(pid_t pid, uint64_t *bytes)
{
	static char buf[1 << 16];
	char path[64];
	double t0 = now();
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/smaps", pid);
	fd = open(path, O_RDONLY);
	if (fd < 0) {
		perror(path);
		exit(1);
	}
	*bytes = 0;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		*bytes += n;
	close(fd);
	return now() - t0;
}

/*
 * @client on @pid (with @opt, if any), or with @opt alone when @pid is 0,
 * to @out; its max RSS in *@rss_kb.
 */
static double client_run(const char *client, pid_t pid, const char *opt,
			 const char *out, long *rss_kb)
{
	char arg[16];
	struct rusage ru;
	double t0 = now();
	int status;
	pid_t c;

	snprintf(arg, sizeof(arg), "%d", pid);
	c = fork();
	if (c == 0) {
		int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600);

		if (fd < 0 || dup2(fd, 1) < 0)
			_exit(127);
		if (pid > 0)
			execl(client, client, arg, opt, (char *)NULL);
		else	/* a command that names no process: "ps" */
			execl(client, client, opt, (char *)NULL);
		_exit(127);
	}
	if (c < 0 || wait4(c, &status, 0, &ru) != c ||
	    !WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "%s %s %s failed\n", client, arg, opt ? opt : "");
		exit(1);
	}
	*rss_kb = ru.ru_maxrss;
	return now() - t0;
}

static void client_bench(const char *client, const char *label,
			 pid_t pid, pid_t small, long nr_vmas, int reps,
			 double t_smaps, double t_kernel)
{
	const char *json = "/tmp/memwalk-bench.json";
	long rss = 0, rss_json = 0, rss_small = 0;
	double t_client = 0, t_json = 0;
	struct stat st;

	BEST(client_run(client, pid, NULL, "/dev/null", &rss), t_client);
	BEST(client_run(client, pid, "-J", json, &rss_json), t_json);
	client_run(client, small, NULL, "/dev/null", &rss_small);
	if (stat(json, &st)) {
		perror(json);
		exit(1);
	}
	unlink(json);
	printf("%s PID vs cat smaps, %ld VMAs: %.2fx smaps's time (target <= 1.00x: %s) (%.3f s vs %.3f s; the module's part %.3f s; -J %.3f s)\n",
	       label, nr_vmas, t_client / t_smaps, t_client <= t_smaps ? "met" : "MISSED",
	       t_client, t_smaps, t_kernel, t_json);
	printf("%s memory: %.0f B per VMA (max RSS %ld KiB, -J %ld KiB, %ld KiB for a small process), JSON %.0f B per VMA: %.2fx its JSON (target: a small multiple)\n",
	       label, (rss - rss_small) * 1024.0 / nr_vmas, rss, rss_json, rss_small,
	       (double)st.st_size / nr_vmas,
	       (rss - rss_small) * 1024.0 / st.st_size);
}

static void client_half(int fd, int reps)
{
	const char *vmas_s = getenv("MEMWALK_BENCH_VMAS");
	const char *client = getenv("MEMWALK_CLIENT");
	const char *before = getenv("MEMWALK_BENCH_CLIENT_BEFORE");
	long nr_vmas = vmas_s ? atol(vmas_s) : 60000;
	double t_smaps = 0, t_kernel = 0;
	uint64_t bytes = 0;
	pid_t pid, small;

	if (!client)
		client = "/bin/memwalk-client";
	pid = start_vma_target(nr_vmas);
	small = fork();
	if (small == 0) {
		for (;;)
			pause();
	}
	BEST(smaps_read(pid, &bytes), t_smaps);
	BEST(memwalk_snapshot(fd, pid, 0, 0, FULL).secs, t_kernel);
	printf("# client half: %ld VMAs, smaps %llu B, %d reps, best of each\n",
	       nr_vmas, (unsigned long long)bytes, reps);
	if (before && access(before, X_OK) == 0)
		client_bench(before, "client (before)", pid, small, nr_vmas, reps,
			     t_smaps, t_kernel);
	client_bench(client, "client", pid, small, nr_vmas, reps, t_smaps, t_kernel);
	kill(small, SIGKILL);
	kill(pid, SIGKILL);
	waitpid(small, NULL, 0);
	waitpid(pid, NULL, 0);
}

/* ---- ps against every smaps_rollup ------------------------------------- */

/*
 * @n processes, each a fork of one that mapped MEMWALK_BENCH_PS_MIB
 * (default 4) MiB of anonymous memory and a shared file of as much, and
 * wrote the anonymous pages; each child writes half of them again (COW),
 * so that pages are shared and private.  Their PIDs in @pids.
 */
static void start_ps_targets(pid_t *pids, int n, size_t len, int devfd)
{
	char path[] = "/tmp/memwalk-bench-ps-XXXXXX";
	int fd = mkstemp(path), i, ready[2];
	char *anon, *file, c = 0;

	if (fd < 0 || ftruncate(fd, len) || pipe(ready))
		exit(1);
	unlink(path);
	for (i = 0; i < n; i++) {
		pids[i] = fork();
		if (pids[i] < 0)
			exit(1);
		if (pids[i])
			continue;
		close(devfd);	/* or rmmod would wait for the targets */
		close(ready[0]);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		anon = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		file = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
		if (anon == MAP_FAILED || file == MAP_FAILED)
			_exit(1);
		memset(anon, 1, len);
		for (size_t k = 0; k < len; k += psz)
			(void)*(volatile char *)(file + k);
		if (fork() == 0) {
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			memset(anon, 2, len / 2);
		}
		/* Ready (the child too, each a byte): nothing moves while measured. */
		if (write(ready[1], &c, 1) != 1)
			_exit(1);
		close(ready[1]);
		for (;;)
			pause();
	}
	close(fd);
	close(ready[1]);
	for (i = 0; i < 2 * n; i++)
		if (read(ready[0], &c, 1) != 1)
			exit(1);
	close(ready[0]);
}

/* ps's walk: folio state for Pss, no PFNs (they would split runs). */
#define PS_MODE		(MEMWALK_SNAP_ALL | MEMWALK_SNAP_NO_PFN)

/* MEMWALK_IOC_VMA_SUMMARY of all of @pid; its longest hold in *@hold_ns. */
static double memwalk_summary(int fd, pid_t pid, uint64_t *hold_ns)
{
	static struct memwalk_vma_summary recs[4096];
	struct memwalk_summary s;
	double t0 = now();
	uint64_t start = 0;

	*hold_ns = 0;
	do {
		memset(&s, 0, sizeof(s));
		s.size = sizeof(s);
		s.pid = pid;
		s.start = start;
		s.buf = (uintptr_t)recs;
		s.buf_len = sizeof(recs);
		if (ioctl(fd, MEMWALK_IOC_VMA_SUMMARY, &s))
			return now() - t0;	/* exited meanwhile, or a kernel thread */
		if (s.max_lock_ns > *hold_ns)
			*hold_ns = s.max_lock_ns;
		start = s.walk_end;
	} while (start);
	return now() - t0;
}

/* What each_process() does for a process with a command line. */
enum ps_part { PS_CMDLINE, PS_SUMMARY, PS_SNAPSHOT };

/*
 * What ps does per process but for its output: read /proc/PID/cmdline
 * and, for a process that has one (kernel threads do not), a summary or a
 * snapshot (ps's mode before the summary request).  The whole loop's
 * time; the snapshots' own in *@walks.
 */
static double each_process(int fd, enum ps_part part, double *walks)
{
	static char buf[4096];
	struct dirent *de;
	DIR *dir = opendir("/proc");
	double t0 = now();
	uint64_t hold;
	char path[64];
	ssize_t n;
	int cfd;

	*walks = 0;
	while (dir && (de = readdir(dir))) {
		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%.16s/cmdline", de->d_name);
		cfd = open(path, O_RDONLY);
		if (cfd < 0)
			continue;
		n = read(cfd, buf, sizeof(buf));
		close(cfd);
		if (n > 0 && part == PS_SUMMARY)
			memwalk_summary(fd, atoi(de->d_name), &hold);
		if (n > 0 && part == PS_SNAPSHOT)
			*walks += memwalk_snapshot(fd, atoi(de->d_name), 0, 0, PS_MODE).secs;
	}
	if (dir)
		closedir(dir);
	return now() - t0;
}

/*
 * smaps_rollup's "Key:   N kB" lines into a field each, as smem and
 * ps_mem split every line and keep it by its key.
 */
static void rollup_parse(char *buf, size_t len, uint64_t *kb)
{
	static const char *const keys[] = {
		"Rss", "Pss", "Pss_Dirty", "Pss_Anon", "Pss_File", "Pss_Shmem",
		"Shared_Clean", "Shared_Dirty", "Private_Clean", "Private_Dirty",
		"Referenced", "Anonymous", "KSM", "LazyFree", "AnonHugePages",
		"ShmemPmdMapped", "FilePmdMapped", "Shared_Hugetlb",
		"Private_Hugetlb", "Swap", "SwapPss", "Locked",
	};
	char *line = buf, *end = buf + len, *nl, *colon;
	size_t k;

	*end = '\0';
	for (; line < end; line = nl + 1) {
		nl = strchr(line, '\n');
		if (!nl)
			nl = end;
		*nl = '\0';
		colon = strchr(line, ':');
		if (!colon)
			continue;
		*colon = '\0';
		for (k = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
			if (!strcmp(line, keys[k])) {
				kb[k] += strtoull(colon + 1, NULL, 10);
				break;
			}
	}
}

/* Every /proc/PID/smaps_rollup read and parsed, as smem and ps_mem do. */
static double rollups_read(void)
{
	static char buf[8192];
	static uint64_t kb[32];
	double t0 = now();
	struct dirent *de;
	char path[64];
	DIR *dir = opendir("/proc");
	size_t len;
	ssize_t n;
	int fd;

	while (dir && (de = readdir(dir))) {
		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%.16s/smaps_rollup", de->d_name);
		fd = open(path, O_RDONLY);
		if (fd < 0)
			continue;
		len = 0;
		while (len < sizeof(buf) - 1 &&
		       (n = read(fd, buf + len, sizeof(buf) - 1 - len)) > 0)
			len += n;
		close(fd);
		rollup_parse(buf, len, kb);
	}
	if (dir)
		closedir(dir);
	return now() - t0;
}

/*
 * MEMWALK_BENCH_PROFILE=ps:N (scripts/profile-ps.sh): the ps targets, then
 * each part of ps and its peer N times, a phase each (memwalk_phase.h).
 */
static void ps_profile(int fd, int n)
{
	static const char *const names[] = {
		"smaps_rollup", "summary", "cmdline", "client ps", "client --help",
	};
	mw_phase_fn mark = mw_phase_marker();
	pid_t pids[100];
	double walks;
	long rss;
	int i, k;

	start_ps_targets(pids, 100, 4 << 20, fd);
	sleep(1);
	mark();
	for (k = 0; k < 5; k++) {
		printf("# profile phase %d: %s x %d\n", k + 1, names[k], n);
		fflush(stdout);
		mark();
		for (i = 0; i < n; i++) {
			switch (k) {
			case 0: rollups_read(); break;
			case 1: each_process(fd, PS_SUMMARY, &walks); break;
			case 2: each_process(fd, PS_CMDLINE, &walks); break;
			case 3: client_run("/bin/memwalk-client", 0, "ps", "/dev/null", &rss); break;
			case 4: client_run("/bin/memwalk-client", 0, "--help", "/dev/null", &rss); break;
			}
		}
		mark();
	}
	for (i = 0; i < 100; i++)
		kill(pids[i], SIGKILL);
	for (i = 0; i < 100; i++)
		waitpid(pids[i], NULL, 0);
}

static void ps_half(int fd, int reps)
{
	const char *n_s = getenv("MEMWALK_BENCH_PS_PROCS");
	const char *mib_s = getenv("MEMWALK_BENCH_PS_MIB");
	const char *client = getenv("MEMWALK_CLIENT");
	int n = n_s ? atoi(n_s) : 100, i, procs = 0;
	size_t len = (size_t)(mib_s ? atol(mib_s) : 4) << 20;
	double t_ps = 0, t_rollup = 0, t_kernel = 0, t_cmdline = 0, t_parts = 0, walks;
	uint64_t max_hold = 0, max_sum_hold = 0, hold;
	struct dirent *de;
	long rss;
	pid_t *pids = calloc(n, sizeof(*pids));
	DIR *dir;

	if (!client)
		client = "/bin/memwalk-client";
	if (!pids)
		exit(1);
	start_ps_targets(pids, n, len, fd);
	sleep(1);
	dir = opendir("/proc");
	while (dir && (de = readdir(dir)))
		procs += de->d_name[0] >= '1' && de->d_name[0] <= '9';
	if (dir)
		closedir(dir);
	BEST(rollups_read(), t_rollup);
	BEST(client_run(client, 0, "ps", "/dev/null", &rss), t_ps);
	for (i = 0; i < n; i++) {
		struct mw_result r = memwalk_snapshot(fd, pids[i], 0, 0, PS_MODE);

		if (r.max_lock_ns > max_hold)
			max_hold = r.max_lock_ns;
		memwalk_summary(fd, pids[i], &hold);
		if (hold > max_sum_hold)
			max_sum_hold = hold;
	}
	BEST((each_process(fd, PS_SNAPSHOT, &walks), walks), t_kernel);
	BEST(each_process(fd, PS_CMDLINE, &walks), t_cmdline);
	BEST(each_process(fd, PS_SUMMARY, &walks), t_parts);
	printf("# ps half: %d targets (and a child each) of %zu MiB anon + %zu MiB file, %d processes in all, %d reps, best of each\n",
	       n, len >> 20, len >> 20, procs, reps);
	printf("ps vs reading every smaps_rollup: %.2fx faster (target >= 5x) (%.3f s vs %.3f s; ps's max RSS %ld KiB)\n",
	       t_rollup / t_ps, t_ps, t_rollup, rss);
	printf("ps's part in the kernel: every cmdline read and summary call, no client: %.2fx faster than every smaps_rollup (%.3f s: cmdline reads %.3f s, summaries %.3f s); ps outside them %.3f s\n",
	       t_rollup / t_parts, t_parts, t_cmdline, t_parts - t_cmdline, t_ps - t_parts);
	printf("snapshots instead (folio state, no PFNs, as ps took them before the summary request) vs every smaps_rollup: %.2fx faster (%.3f s)\n",
	       t_rollup / t_kernel, t_kernel);
	printf("ps: longest mmap_lock hold of a target %.3f ms by a summary, %.3f ms by a snapshot (target <= 2 ms); smaps_rollup holds it for its whole walk\n",
	       max_sum_hold / 1e6, max_hold / 1e6);
	for (i = 0; i < n; i++)
		kill(pids[i], SIGKILL);
	for (i = 0; i < n; i++)
		waitpid(pids[i], NULL, 0);
	free(pids);
}

int main(void)
{
	const char *mib_s = getenv("MEMWALK_BENCH_MIB");
	const char *reps_s = getenv("MEMWALK_BENCH_REPS");
	size_t total = (mib_s ? atol(mib_s) : 512) << 20;
	int reps = reps_s ? atoi(reps_s) : 5;
	struct region reg[5];
	struct mw_result full, nofolio, pte, ptenl, ptenp, thp_mw;
	double t_full = 0, t_nofolio = 0, t_pte = 0, t_ptenl = 0, t_ptenp = 0, t_pm = 0;
	double t_pmkpf = 0;
	double t_scan = 0, t;
	uint64_t b_pm = 0, b_pmkpf = 0, b_scan = 0, b_thp_pm = 0, start, end;
	int pipefd[2], fd, kpf;
	pid_t pid;

	psz = sysconf(_SC_PAGESIZE);
	fd = open(MEMWALK_DEVICE_PATH, O_RDWR);
	kpf = open("/proc/kpageflags", O_RDONLY);
	if (fd < 0 || kpf < 0) {
		perror("open /dev/memwalk or /proc/kpageflags");
		return 1;
	}
	if (getenv("MEMWALK_BENCH_ONLY") && !strcmp(getenv("MEMWALK_BENCH_ONLY"), "client")) {
		client_half(fd, reps);
		return 0;
	}
	if (getenv("MEMWALK_BENCH_PROFILE") &&
	    !strncmp(getenv("MEMWALK_BENCH_PROFILE"), "ps:", 3)) {
		ps_profile(fd, atoi(getenv("MEMWALK_BENCH_PROFILE") + 3));
		return 0;
	}
	if (getenv("MEMWALK_BENCH_ONLY") && !strcmp(getenv("MEMWALK_BENCH_ONLY"), "ps")) {
		ps_half(fd, reps);
		return 0;
	}
	pid = start_target(total, reg, pipefd);
	start = reg[0].start;
	end = reg[0].end;
	for (int i = 1; i < 5; i++) {
		if (reg[i].start < start)
			start = reg[i].start;
		if (reg[i].end > end)
			end = reg[i].end;
	}
	printf("# target: %zu MiB mapped in [%#llx, %#llx), %d reps, best of each\n",
	       total >> 20, (unsigned long long)start, (unsigned long long)end, reps);
	if (getenv("MEMWALK_BENCH_PROFILE")) {
		int ret = profile(getenv("MEMWALK_BENCH_PROFILE"), fd, pid, reg, start, end);

		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		return ret;
	}

	BEST((full = memwalk_snapshot(fd, pid, start, end, FULL)).secs, t_full);
	BEST((nofolio = memwalk_snapshot(fd, pid, start, end,
					 NO_FOLIO)).secs, t_nofolio);
	BEST((pte = memwalk_snapshot(fd, pid, start, end,
				     PTE_ONLY | MEMWALK_SNAP_PFN_LIST)).secs, t_pte);
	BEST((ptenl = memwalk_snapshot(fd, pid, start, end, PTE_ONLY)).secs, t_ptenl);
	BEST((ptenp = memwalk_snapshot(fd, pid, start, end,
				       PTE_ONLY | MEMWALK_SNAP_NO_PFN)).secs, t_ptenp);
	BEST(pagemap_read(pid, start, end, kpf, &b_pmkpf), t_pmkpf);
	BEST(pagemap_read(pid, start, end, -1, &b_pm), t_pm);
	t = pagemap_scan(pid, start, end, &b_scan);
	if (t >= 0)
		BEST(pagemap_scan(pid, start, end, &b_scan), t_scan);
	else
		t_scan = -1;
	thp_mw = memwalk_snapshot(fd, pid, reg[2].start, reg[2].end, FULL);
	pagemap_read(pid, reg[2].start, reg[2].end, -1, &b_thp_pm);

	printf("full snapshot, memwalk vs pagemap+kpageflags: %.1fx faster (%.3f s vs %.3f s)\n",
	       t_pmkpf / t_full, t_full, t_pmkpf);
	printf("no-folio, memwalk vs pagemap:                 %.1fx faster (%.3f s vs %.3f s)\n",
	       t_pm / t_nofolio, t_nofolio, t_pm);
	printf("PTE-only, memwalk vs pagemap:                 %.1fx faster (%.3f s vs %.3f s)\n",
	       t_pm / t_pte, t_pte, t_pm);
	printf("PTE-only without PFN lists vs pagemap:        %.1fx faster (%.3f s vs %.3f s)\n",
	       t_pm / t_ptenl, t_ptenl, t_pm);
	if (t_scan > 0) {
		printf("PTE-only, memwalk vs PAGEMAP_SCAN:            %.2fx (%.3f s vs %.3f s)\n",
		       t_scan / t_pte, t_pte, t_scan);
		/* PAGEMAP_SCAN reports category regions, no PFNs: so does this. */
		printf("PTE-only without PFNs vs PAGEMAP_SCAN:        %.2fx (%.3f s vs %.3f s)\n",
		       t_scan / t_ptenp, t_ptenp, t_scan);
	}
	else
		printf("PTE-only, memwalk vs PAGEMAP_SCAN:            n/a (kernel has no PAGEMAP_SCAN)\n");
	printf("output per GiB mapped: memwalk %.0f B (PTE-only %.0f B), pagemap %.0f B, pagemap+kpageflags %.0f B\n",
	       full.bytes * 1073741824.0 / total, pte.bytes * 1073741824.0 / total,
	       b_pm * 1073741824.0 / total, b_pmkpf * 1073741824.0 / total);
	printf("output for the THP region: memwalk %llu B vs pagemap %llu B: %.0fx smaller\n",
	       (unsigned long long)thp_mw.bytes, (unsigned long long)b_thp_pm,
	       (double)b_thp_pm / thp_mw.bytes);
	printf("longest mmap_lock hold: %.3f ms (%llu lock drops in a full snapshot)\n",
	       full.max_lock_ns / 1e6, (unsigned long long)full.lock_drops);
	printf("runs (and PFNs listed): full %llu (%llu), no-folio %llu (%llu), PTE-only %llu (%llu; %llu runs without lists, %llu without PFNs), for %zu pages\n",
	       (unsigned long long)full.runs, (unsigned long long)full.pfns,
	       (unsigned long long)nofolio.runs, (unsigned long long)nofolio.pfns,
	       (unsigned long long)pte.runs, (unsigned long long)pte.pfns,
	       (unsigned long long)ptenl.runs, (unsigned long long)ptenp.runs,
	       total / psz);
	/* Where the time goes: each region alone, best of the reps. */
	for (int i = 0; i < 5; i++) {
		double tf = 0, tn = 0, te = 0, tp = 0, tk = 0;
		uint64_t b;

		BEST(memwalk_snapshot(fd, pid, reg[i].start, reg[i].end,
				      FULL).secs, tf);
		BEST(memwalk_snapshot(fd, pid, reg[i].start, reg[i].end,
				      NO_FOLIO).secs, tn);
		struct mw_result re = { 0 };

		BEST((re = memwalk_snapshot(fd, pid, reg[i].start, reg[i].end,
					    PTE_ONLY | MEMWALK_SNAP_PFN_LIST)).secs, te);
		printf("  %-9s PTE-only: %llu runs, %llu PFNs listed, %llu lock drops, longest hold %.3f ms\n",
		       reg[i].what, (unsigned long long)re.runs, (unsigned long long)re.pfns,
		       (unsigned long long)re.lock_drops, re.max_lock_ns / 1e6);
		BEST(pagemap_read(pid, reg[i].start, reg[i].end, kpf, &b), tk);
		BEST(pagemap_read(pid, reg[i].start, reg[i].end, -1, &b), tp);
		printf("  %-9s full %5.1fx  no-folio %5.1fx  PTE-only %5.1fx   (%.2f/%.2f/%.2f ms; pagemap+kpageflags %.2f, pagemap %.2f ms)\n",
		       reg[i].what, tk / tf, tp / tn, tp / te,
		       tf * 1e3, tn * 1e3, te * 1e3, tk * 1e3, tp * 1e3);
	}
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	client_half(fd, reps);
	ps_half(fd, reps);
	return 0;
}

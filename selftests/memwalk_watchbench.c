// SPDX-License-Identifier: GPL-2.0
/*
 * make bench, watch half (scripts/guest/bench-watch.sh): what
 * `memwalk-client watch PID --batch -J -i 0.1` (10 refreshes a second)
 * costs the process it watches.
 *
 *   memwalk_watchbench MIXED_MIB [SPARSE_MIB]
 *
 * The target maps MIXED_MIB in mixed states, in eighths as
 * memwalk_bench's target does, plus shared memory: untouched anon (1/8),
 * 4K anon (2/8), THP (MADV_HUGEPAGE, 2/8), swapped out (MADV_PAGEOUT,
 * 1/8), a file's page cache (1/8: in $MEMWALK_DISK, a disk file
 * system, or else /tmp) and shmem (a memfd, 1/8); and
 * SPARSE_MIB (default 0) of anonymous memory with one page written in
 * every MiB, the rest never touched.  Then it works: pass after pass it
 * writes a byte of every 64-byte line of every page of the 4K anon, THP,
 * shmem and sparse parts and reads one of every file page's lines, and
 * at the end of each pass drops
 * (MADV_DONTNEED) a MiB of the 4K anon part, which the next pass faults
 * back in, and maps and unmaps 16 pages (the mmap_lock taken for
 * writing, which a walk holding it for reading would delay): its memory
 * moves under the watch.  Its progress is the pages
 * it touched, counted in a page it shares with this program.  The target
 * is this program exec()ed (see TARGET_ARG), or with
 * MEMWALK_WATCHBENCH_FORKED=1 a forked child.
 *
 * Alternately MEMWALK_WATCHBENCH_ROUNDS (default 2) times, for
 * MEMWALK_WATCHBENCH_SECS (default 2) each after a second's warm-up: the
 * target alone, then watched by $MEMWALK_CLIENT (default
 * /bin/memwalk-client).  Read at both ends of each window: the pages the
 * target touched, its CPU time and the watcher's (/proc/PID/schedstat:
 * the scheduler's own runtime, kernel time included, exact where
 * utime/stime are sampled per tick), and the frames the watcher printed.
 *
 * What it prints against the targets of issue 14:
 *   - the target's slowdown per its own CPU time (pages touched per ns it
 *     ran), judged; and its wall throughput, printed but not judged (the
 *     line says why);
 *   - the watcher's CPU time per refresh (kernel and client: the walk
 *     runs in its ioctl) per GiB the target maps (VmSize);
 *   - the longest mmap_lock hold any frame reports (its cost.max_lock_ns).
 * Under -icount every time is in executed instructions, 1 ns each.
 */
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include "memwalk_phase.h"

#define MIB		(1UL << 20)
#define HUGE_SZ		(2UL << 20)
#define FRAMES_FILE	"/tmp/memwalk-watchbench.json"

static long psz;
static unsigned char sum_sink;
/* The pages the target worked, counted in the page it shares with us. */
static volatile uint64_t *done;
static uint64_t nr_done;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static void die(const char *what)
{
	perror(what);
	exit(1);
}

/* An anonymous mapping of @len, 2 MiB aligned, madvise()d @advice. */
static char *map_anon(size_t len, int advice)
{
	char *p = mmap(NULL, len + HUGE_SZ, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	char *a;

	if (p == MAP_FAILED)
		die("mmap");
	a = (char *)(((uintptr_t)p + HUGE_SZ - 1) & ~(HUGE_SZ - 1));
	if (a > p)
		munmap(p, a - p);
	munmap(a + len, p + len + HUGE_SZ - (a + len));
	if (madvise(a, len, advice))
		die("madvise");
	return a;
}

struct target {
	char *anon, *thp, *shm, *file, *sparse;
	size_t q, sparse_len;
};

/* A byte written to every @step-th byte of [@p, @p + @len): pages touched. */
static uint64_t write_pages(char *p, size_t len, size_t step)
{
	for (size_t i = 0; i < len; i += step)
		p[i]++;
	return len / step;
}

/*
 * The work on a page: a byte of each of its 64-byte lines written (or
 * read, @p read-only), as a program streaming through its memory does;
 * also, under TCG, enough instructions per page that the guest's time is
 * not mostly QEMU's TLB refills.  Each page counted in *done once worked.
 */
static void work(char *p, size_t len, size_t step, bool ro)
{
	unsigned char sum = 0;

	for (size_t i = 0; i < len; i += step) {
		for (size_t l = 0; l < (size_t)psz; l += 64) {
			if (ro)
				sum += *(volatile char *)(p + i + l);
			else
				p[i + l]++;
		}
		__atomic_store_n(done, ++nr_done, __ATOMIC_RELAXED);
	}
	*(volatile unsigned char *)&sum_sink = sum;
}

/* Where the file lies: a disk file system's, for page cache, or /tmp. */
static const char *file_dir(void)
{
	const char *dir = getenv("MEMWALK_DISK");

	return dir && *dir ? dir : "/tmp";
}

static void build(struct target *t, size_t mixed, size_t sparse)
{
	char path[256];
	int fd, mfd = memfd_create("watchbench-shm", 0);
	char *untouched, *swp;

	snprintf(path, sizeof(path), "%s/memwalk-watchbench-XXXXXX", file_dir());
	fd = mkstemp(path);

	t->q = mixed / 8 / HUGE_SZ * HUGE_SZ;
	t->sparse_len = sparse;
	untouched = map_anon(t->q, MADV_NOHUGEPAGE);
	(void)untouched;
	t->anon = map_anon(2 * t->q, MADV_NOHUGEPAGE);
	write_pages(t->anon, 2 * t->q, psz);
	t->thp = map_anon(2 * t->q, MADV_HUGEPAGE);
	memset(t->thp, 2, 2 * t->q);
	swp = map_anon(t->q, MADV_NOHUGEPAGE);
	memset(swp, 3, t->q);
	madvise(swp, t->q, MADV_PAGEOUT);
	if (fd < 0 || ftruncate(fd, t->q) || mfd < 0 || ftruncate(mfd, t->q))
		die("target files");
	unlink(path);
	t->file = mmap(NULL, t->q, PROT_READ, MAP_SHARED, fd, 0);
	t->shm = mmap(NULL, t->q, PROT_READ | PROT_WRITE, MAP_SHARED, mfd, 0);
	if (t->file == MAP_FAILED || t->shm == MAP_FAILED)
		die("mmap");
	for (size_t i = 0; i < t->q; i += psz)
		(void)*(volatile char *)(t->file + i);
	write_pages(t->shm, t->q, psz);
	if (sparse) {
		t->sparse = map_anon(sparse, MADV_NOHUGEPAGE);
		write_pages(t->sparse, sparse, MIB);
	}
}

/*
 * The target runs as a program of its own (this one exec()ed with
 * TARGET_ARG, the page it counts in passed as a memfd), as the processes
 * watch is pointed at do: a child that only forked shares its parent's
 * anonymous pages, for which the watch reads PFNs (COW breaks need them).
 * MEMWALK_WATCHBENCH_FORKED=1 keeps it a forked child, to measure that.
 */
#define TARGET_ARG	"--target"

/* The target's life: build, say so on @ready, then work forever. */
static void target_main(size_t mixed, size_t sparse, int ready)
{
	struct target t = { 0 };
	size_t churn = 0;
	void *scratch;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	build(&t, mixed, sparse);
	if (write(ready, "x", 1) != 1)
		exit(1);
	for (;;) {
		work(t.anon, 2 * t.q, psz, false);
		work(t.thp, 2 * t.q, psz, false);
		work(t.shm, t.q, psz, false);
		work(t.file, t.q, psz, true);
		if (t.sparse_len)
			work(t.sparse, t.sparse_len, MIB, false);
		madvise(t.anon + churn, MIB, MADV_DONTNEED);
		churn = (churn + MIB) % (2 * t.q);
		/* a VMA made and gone: the mmap_lock taken for writing */
		scratch = mmap(NULL, 16 * psz, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (scratch != MAP_FAILED)
			munmap(scratch, 16 * psz);
	}
}

/* The first field of /proc/@pid/schedstat: ns it ran, kernel time included. */
static uint64_t cpu_ns(pid_t pid)
{
	char path[64];
	unsigned long long ns;
	FILE *fp;

	snprintf(path, sizeof(path), "/proc/%d/schedstat", pid);
	fp = fopen(path, "re");
	if (!fp || fscanf(fp, "%llu", &ns) != 1)
		die(path);
	fclose(fp);
	return ns;
}

/*
 * @pid's system ticks (stime) in *@sys and all (utime + stime) in *@all,
 * from /proc/@pid/stat: sampled per tick, so good for a share, not a time.
 */
static void cpu_ticks(pid_t pid, uint64_t *sys, uint64_t *all)
{
	char path[64], buf[1024], *p;
	unsigned long long ut, st;
	FILE *fp;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	fp = fopen(path, "re");
	if (!fp)
		die(path);
	n = fread(buf, 1, sizeof(buf) - 1, fp);
	fclose(fp);
	buf[n] = '\0';
	/* after the command's parenthesis: state is field 3, utime 14 */
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu",
			 &ut, &st) != 2)
		die(path);
	*sys = st;
	*all = ut + st;
}

static uint64_t vmsize_kb(pid_t pid)
{
	char path[64], line[256];
	unsigned long long kb = 0;
	FILE *fp;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	fp = fopen(path, "re");
	if (!fp)
		die(path);
	while (fgets(line, sizeof(line), fp))
		if (sscanf(line, "VmSize: %llu", &kb) == 1)
			break;
	fclose(fp);
	return kb;
}

/* A number after "@key": in a JSON frame, 0 if absent. */
static uint64_t json_u64(const char *line, const char *key)
{
	const char *p = strstr(line, key);

	return p ? strtoull(p + strlen(key), NULL, 10) : 0;
}

/* What the watcher's frames say: their number, and from frame @from on. */
struct frames {
	uint64_t n, from_n;		/* all; those from @from on */
	uint64_t max_lock_ns, walk_ns, max_walk_ns, not_kept;
};

static struct frames read_frames(uint64_t from)
{
	static char line[1 << 16];
	struct frames f = { 0 };
	FILE *fp = fopen(FRAMES_FILE, "re");

	if (!fp)
		die(FRAMES_FILE);
	while (fgets(line, sizeof(line), fp)) {
		uint64_t hold, walk;

		if (!strstr(line, "\"frame\":"))
			continue;	/* the last line, or a line cut short */
		hold = json_u64(line, "\"max_lock_ns\":");
		if (hold > f.max_lock_ns)
			f.max_lock_ns = hold;
		if (f.n++ < from)
			continue;
		walk = json_u64(line, "\"walk_ns\":");
		f.walk_ns += walk;
		if (walk > f.max_walk_ns)
			f.max_walk_ns = walk;
		f.not_kept += strstr(line, "\"interval_kept\":false") != NULL;
		f.from_n++;
	}
	fclose(fp);
	return f;
}

static pid_t start_watcher(const char *client, pid_t target)
{
	char pid_s[16];
	pid_t w;

	snprintf(pid_s, sizeof(pid_s), "%d", target);
	w = fork();
	if (w == 0) {
		int fd = open(FRAMES_FILE, O_WRONLY | O_CREAT | O_TRUNC, 0600);

		if (fd < 0 || dup2(fd, 1) < 0)
			_exit(127);
		execl(client, client, "watch", pid_s, "--batch", "-J", "-i", "0.1", (char *)NULL);
		_exit(127);
	}
	if (w < 0)
		die("fork");
	return w;
}

static void sleep_ns(uint64_t ns)
{
	struct timespec ts = { ns / 1000000000ULL, ns % 1000000000ULL };

	while (nanosleep(&ts, &ts))
		;
}

/* SIGTERM, and the watcher must end, with status 0, within 10 s. */
static void stop_watcher(pid_t w)
{
	int status, i;

	kill(w, SIGTERM);
	for (i = 0; i < 100 && waitpid(w, &status, WNOHANG) == 0; i++)
		sleep_ns(100000000ULL);
	if (i == 100) {
		kill(w, SIGKILL);
		waitpid(w, &status, 0);
		fprintf(stderr, "the watcher did not end in 10 s after SIGTERM\n");
		exit(1);
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "the watcher failed (status %#x)\n", status);
		exit(1);
	}
}

/* Sums over the rounds of one kind of window, watched or not. */
struct window {
	uint64_t pages, target_ns, wall_ns;
	uint64_t watcher_ns, frames, walk_ns, max_walk_ns, not_kept;
	uint64_t sys_ticks, all_ticks;	/* the watcher's */
};

/* One window, watched or not, added to @sum; said on a comment line. */
static void measure(pid_t target, const char *client,
		    bool watched, uint64_t secs, struct window *sum, uint64_t *max_hold)
{
	uint64_t p0, c0, w0 = 0, t0, f0 = 0, sys0 = 0, all0 = 0;
	pid_t w = watched ? start_watcher(client, target) : 0;
	struct window now = { 0 };
	struct frames f = { 0 };

	sleep_ns(1000000000ULL);	/* the client started, its first walk done */
	if (watched) {
		f0 = read_frames(0).n;
		w0 = cpu_ns(w);
		cpu_ticks(w, &sys0, &all0);
	}
	t0 = now_ns();
	p0 = __atomic_load_n(done, __ATOMIC_RELAXED);
	c0 = cpu_ns(target);
	sleep_ns(secs * 1000000000ULL);
	now.pages = __atomic_load_n(done, __ATOMIC_RELAXED) - p0;
	now.target_ns = cpu_ns(target) - c0;
	now.wall_ns = now_ns() - t0;
	if (watched) {
		now.watcher_ns = cpu_ns(w) - w0;
		cpu_ticks(w, &now.sys_ticks, &now.all_ticks);
		now.sys_ticks -= sys0;
		now.all_ticks -= all0;
		f = read_frames(f0);
		stop_watcher(w);
		now.frames = f.from_n;
		now.walk_ns = f.walk_ns;
		now.not_kept = f.not_kept;
		now.max_walk_ns = f.max_walk_ns;
		f = read_frames(0);
		if (f.max_lock_ns > *max_hold)
			*max_hold = f.max_lock_ns;
	}
	printf("#   %-7s %" PRIu64 " pages in %.1f ms of its CPU, %.1f ms wall",
	       watched ? "watched" : "alone", now.pages, now.target_ns / 1e6, now.wall_ns / 1e6);
	if (watched)
		printf("; watcher %.1f ms of CPU, %" PRIu64 " frames, longest hold %.3f ms",
		       now.watcher_ns / 1e6, now.frames, f.max_lock_ns / 1e6);
	printf("\n");
	fflush(stdout);
	sum->pages += now.pages;
	sum->target_ns += now.target_ns;
	sum->wall_ns += now.wall_ns;
	sum->watcher_ns += now.watcher_ns;
	sum->sys_ticks += now.sys_ticks;
	sum->all_ticks += now.all_ticks;
	sum->frames += now.frames;
	sum->walk_ns += now.walk_ns;
	sum->not_kept += now.not_kept;
	if (now.max_walk_ns > sum->max_walk_ns)
		sum->max_walk_ns = now.max_walk_ns;
}

/*
 * MEMWALK_WATCHBENCH_PROFILE=SECS (scripts/profile-watch.sh): phase 1 the
 * target alone for SECS, phase 3 the same watched, once the watcher's
 * first walk is done (memwalk_phase.h); how many refreshes that was.
 */
static void profile(pid_t target, const char *client, uint64_t secs)
{
	mw_phase_fn mark = mw_phase_marker();
	uint64_t f0;
	pid_t w;

	mark();
	sleep_ns(secs * 1000000000ULL);
	mark();
	w = start_watcher(client, target);
	sleep_ns(1000000000ULL);
	f0 = read_frames(0).n;
	mark();
	sleep_ns(secs * 1000000000ULL);
	mark();
	printf("# profile: phase 1 the target alone, phase 3 watched: %" PRIu64 " refreshes in %" PRIu64 " s\n",
	       read_frames(f0).from_n, secs);
	stop_watcher(w);
}

static const char *verdict(bool met)
{
	return met ? "met" : "NOT met";
}

int main(int argc, char **argv)
{
	const char *client = getenv("MEMWALK_CLIENT") ?: "/bin/memwalk-client";
	const char *secs_s = getenv("MEMWALK_WATCHBENCH_SECS");
	const char *rounds_s = getenv("MEMWALK_WATCHBENCH_ROUNDS");
	uint64_t secs = secs_s ? strtoull(secs_s, NULL, 10) : 2, max_hold = 0;
	int rounds = rounds_s ? atoi(rounds_s) : 2, pipefd[2], counter_fd;
	bool forked = getenv("MEMWALK_WATCHBENCH_FORKED");
	struct window alone = { 0 }, watched = { 0 };
	size_t mixed, sparse;
	double gib, rate_alone, rate_watched, wall_alone, wall_watched, share, per_refresh;
	char label[48], c;
	pid_t target;

	if (argc == 6 && !strcmp(argv[1], TARGET_ARG)) {
		psz = sysconf(_SC_PAGESIZE);
		done = mmap(NULL, psz, PROT_READ | PROT_WRITE, MAP_SHARED, atoi(argv[4]), 0);
		if (done == MAP_FAILED)
			die("mmap the counter");
		target_main(strtoull(argv[2], NULL, 10), strtoull(argv[3], NULL, 10),
			    atoi(argv[5]));
	}
	if (argc < 2 || argc > 3 || !secs || rounds < 1) {
		fprintf(stderr, "usage: %s MIXED_MIB [SPARSE_MIB]\n", argv[0]);
		return 1;
	}
	psz = sysconf(_SC_PAGESIZE);
	mixed = strtoul(argv[1], NULL, 10) * MIB;
	sparse = argc > 2 ? strtoul(argv[2], NULL, 10) * MIB : 0;
	counter_fd = memfd_create("watchbench-done", 0);
	if (counter_fd < 0 || ftruncate(counter_fd, psz))
		die("memfd");
	done = mmap(NULL, psz, PROT_READ | PROT_WRITE, MAP_SHARED, counter_fd, 0);
	if (done == MAP_FAILED || pipe(pipefd))
		die("setup");
	target = fork();
	if (target == 0 && forked)
		target_main(mixed, sparse, pipefd[1]);
	if (target == 0) {
		char m[24], sp[24], fd[16], rd[16];

		snprintf(m, sizeof(m), "%zu", mixed);
		snprintf(sp, sizeof(sp), "%zu", sparse);
		snprintf(fd, sizeof(fd), "%d", counter_fd);
		snprintf(rd, sizeof(rd), "%d", pipefd[1]);
		execl("/proc/self/exe", argv[0], TARGET_ARG, m, sp, fd, rd, (char *)NULL);
		_exit(127);
	}
	close(pipefd[1]);
	if (target < 0 || read(pipefd[0], &c, 1) != 1) {
		fprintf(stderr, "the target failed to build its memory\n");
		return 1;
	}
	gib = vmsize_kb(target) / 1048576.0;
	if ((mixed + sparse) % (1UL << 30))
		snprintf(label, sizeof(label), "watch %s%s%zu MiB", forked ? "forked " : "",
			 sparse ? "sparse " : "", (mixed + sparse) / MIB);
	else
		snprintf(label, sizeof(label), "watch %s%s%zu GiB", forked ? "forked " : "",
			 sparse ? "sparse " : "", (mixed + sparse) >> 30);
	printf("# %s: the target maps %.2f GiB (VmSize): %zu MiB in mixed states (4K anon, THP, shmem, a file in %s, touched every pass; swapped and untouched not)",
	       label, gib, mixed / MIB, file_dir());
	if (sparse)
		printf(", %zu MiB sparse (a page written in every MiB)", sparse / MIB);
	printf("; %s; watcher: %s watch PID --batch -J -i 0.1; %d rounds of %" PRIu64 " s alone, then watched\n",
	       forked ? "a forked child, sharing its parent's anonymous pages" : "a program of its own",
	       client, rounds, secs);
	fflush(stdout);
	if (getenv("MEMWALK_WATCHBENCH_PROFILE")) {
		profile(target, client, strtoull(getenv("MEMWALK_WATCHBENCH_PROFILE"), NULL, 10));
		kill(target, SIGKILL);
		waitpid(target, NULL, 0);
		unlink(FRAMES_FILE);
		return 0;
	}
	for (int r = 0; r < rounds; r++) {
		measure(target, client, false, secs, &alone, &max_hold);
		measure(target, client, true, secs, &watched, &max_hold);
	}
	kill(target, SIGKILL);
	waitpid(target, NULL, 0);
	unlink(FRAMES_FILE);

	printf("# %s: %ld vCPU(s); under -icount the guest clock counts the instructions of every vCPU (QEMU runs them in turn), so the watcher's take wall time from the target however many there are: the target's wall throughput drops by about the watcher's CPU share, which the cost per refresh judges, not a disturbance of the target. What watching does to the target itself (faults, lock waits spun, TLB refills after a switch) shows in its work per its own CPU time: the slowdown is judged on that, and a wait it slept shows as a lower share of the wall time it ran.\n",
	       label, sysconf(_SC_NPROCESSORS_ONLN));
	if (sysconf(_SC_NPROCESSORS_ONLN) > 1)
		printf("# %s: more than one vCPU: under -icount they share the one clock, so a task's CPU time and mmap_lock hold count the other vCPUs' instructions too, and no figure here isolates the watcher's effect: make bench runs this on one\n",
		       label);
	rate_alone = (double)alone.pages / alone.target_ns;
	rate_watched = (double)watched.pages / watched.target_ns;
	wall_alone = (double)alone.pages / alone.wall_ns;
	wall_watched = (double)watched.pages / watched.wall_ns;
	share = (double)watched.watcher_ns / watched.wall_ns;
	per_refresh = watched.frames ? watched.watcher_ns / 1e6 / watched.frames : 0;
	printf("%s: target slowdown per its own CPU time: %.2f%% (target <= 2%%: %s) (%.1f vs %.1f pages touched per ms it ran, watched vs alone)\n",
	       label, 100 * (1 - rate_watched / rate_alone),
	       verdict(1 - rate_watched / rate_alone <= 0.02), rate_watched * 1e6, rate_alone * 1e6);
	printf("%s: target wall throughput: %+.2f%% watched (not judged: the watcher's CPU share is %.2f%%, and the target ran %.1f%% of the wall time watched, %.1f%% alone) (%.1f vs %.1f pages per ms)\n",
	       label, 100 * (wall_watched / wall_alone - 1), 100 * share,
	       100.0 * watched.target_ns / watched.wall_ns, 100.0 * alone.target_ns / alone.wall_ns,
	       wall_watched * 1e6, wall_alone * 1e6);
	printf("%s: kernel+client cost per refresh: %.2f ms of CPU per GiB mapped (target <= 10 ms: %s) (%.2f ms a refresh over %.2f GiB; %" PRIu64 " refreshes, %.2f/s, %" PRIu64 " late; walk %.1f ms mean, %.1f ms max, wall)\n",
	       label, per_refresh / gib, verdict(watched.frames && per_refresh / gib <= 10),
	       per_refresh, gib, watched.frames, watched.frames * 1e9 / watched.wall_ns,
	       watched.not_kept, watched.frames ? watched.walk_ns / 1e6 / watched.frames : 0,
	       watched.max_walk_ns / 1e6);
	printf("%s: where the watcher's time goes: %.0f%% in the kernel (the walk, in its ioctl: %.2f ms a refresh), %.0f%% in the client (%.2f ms: reading the runs, the diff, the frame), by its ticks (utime, stime)\n",
	       label, watched.all_ticks ? 100.0 * watched.sys_ticks / watched.all_ticks : 0,
	       watched.all_ticks ? per_refresh * watched.sys_ticks / watched.all_ticks : 0,
	       watched.all_ticks ? 100.0 * (watched.all_ticks - watched.sys_ticks) / watched.all_ticks : 0,
	       watched.all_ticks ? per_refresh * (watched.all_ticks - watched.sys_ticks) / watched.all_ticks : 0);
	printf("%s: longest mmap_lock hold: %.3f ms (target <= 2 ms: %s)\n",
	       label, max_hold / 1e6, verdict(watched.frames && max_hold <= 2000000));
	return 0;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Snapshots of targets that do not keep still: one killed while it is
 * walked, one whose VMA changes between two holds of the mmap_lock, a
 * storm of mapping, unmapping, protecting, paging out and forking, and
 * the mmap_lock hold budget over a large shmem mapping of cached pages
 * (mincore() of the file as the oracle).  Every call succeeds with a
 * well-formed answer or fails with the errno the ABI gives.
 *
 * Needs root and the module loaded.  Environment: MEMWALK_STORM_SECONDS
 * (default 10), MEMWALK_EXIT_VMAS (the killed target's VMAs, default
 * 4000), MEMWALK_TARGET.
 */
#include "kselftest_harness.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/memwalk.h>

#include "memwalk_snapshot_lib.h"
#include "memwalk_util.h"

#define DEV		MEMWALK_DEVICE_PATH
#define VMA_BUF		(1UL << 20)
#define RUN_BUF		(8UL << 20)

/* Open the device as root and read its info (mw_task_size with it). */
static void dev_setup(struct __test_metadata *_metadata, int *fd, struct memwalk_info *info)
{
	struct mw_why why;

	ASSERT_EQ(0, geteuid()) TH_LOG("these tests need root");
	*fd = mw_dev_open(info, &why);
	ASSERT_LE(0, *fd) TH_LOG("%s", why.msg);
}

FIXTURE(churn) {
	int fd;
	struct memwalk_info info;
	struct mw_target t;
};

FIXTURE_SETUP(churn)
{
	self->t.pid = -1;
	self->t.to = self->t.from = -1;
	dev_setup(_metadata, &self->fd, &self->info);
}

FIXTURE_TEARDOWN(churn)
{
	mw_target_kill(&self->t);
	if (self->fd >= 0)
		close(self->fd);
}

static unsigned long taint(void)
{
	char buf[32];

	return mw_read_file("/proc/sys/kernel/tainted", buf, sizeof(buf)) ? ~0UL :
	       strtoul(buf, NULL, 10);
}

/* One call; 0 after checking the answer, else its errno (-1: bad answer). */
static int one_call(int fd, pid_t pid, uint64_t start, uint32_t flags, void *vbuf,
		    size_t vlen, void *rbuf, size_t rlen, uint64_t *next, struct mw_why *why)
{
	struct memwalk_snapshot arg = {
		.size = sizeof(arg), .flags = flags, .pid = pid, .start = start,
		.vma_buf = (uintptr_t)vbuf, .vma_buf_len = vlen,
		.run_buf = (uintptr_t)rbuf, .run_buf_len = rlen,
	};
	int ret = mw_snap_ioctl(fd, &arg);

	if (ret)
		return ret;
	if (mw_snap_check_call(&arg, vbuf, rbuf, why))
		return -1;
	*next = arg.walk_end;
	return 0;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Microseconds one whole walk of @pid takes. */
static long walk_us(int fd, pid_t pid, void *vbuf, void *rbuf, size_t len)
{
	struct timespec t0, t1;
	struct mw_why why;
	uint64_t next;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (one_call(fd, pid, 0, MEMWALK_SNAP_ALL, vbuf, len, rbuf, len, &next, &why))
		return -1;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (t1.tv_sec - t0.tv_sec) * 1000000L + (t1.tv_nsec - t0.tv_nsec) / 1000;
}

/*
 * The target (4000 VMAs, MEMWALK_EXIT_VMAS: the debug lane takes fewer,
 * as each round's target maps them all and exits under KASAN) is killed
 * while snapshots walk it, at a moment spread over one walk's duration
 * each round, walked in one call or in many small ones: every call
 * succeeds with a well-formed answer or fails with ESRCH once the mm is
 * gone; a walk in many calls ends either way.
 */
TEST_F_TIMEOUT(churn, target_exits_during_walk, 600)
{
	const char *vmas = getenv("MEMWALK_EXIT_VMAS");
	const char *args[] = { "many", vmas && *vmas ? vmas : "4000", NULL };
	size_t len = 4 << 20, small = 4096;
	void *vbuf = malloc(len), *rbuf = malloc(len);
	unsigned int round, ok = 0, cut = 0;
	struct mw_why why;
	uint64_t cur, next;
	pid_t killer;
	long us;
	int ret;

	ASSERT_NE(NULL, vbuf);
	ASSERT_NE(NULL, rbuf);
	for (round = 0; round < 8; round++) {
		bool tiny = round >= 4;

		ASSERT_EQ(0, mw_target_start(&self->t, 0, args));
		ASSERT_EQ(0, mw_target_expect(&self->t, "ready", MW_READY_MS))
			TH_LOG("target: %s", self->t.notes);
		us = walk_us(self->fd, self->t.pid, vbuf, rbuf, len);
		ASSERT_LT(0, us);
		if (tiny)
			us *= 4;	/* many calls take longer than one */
		fflush(NULL);
		killer = fork();
		if (killer == 0) {
			struct timespec ts = { 0, (round % 4) * us * 1000 / 4 };

			nanosleep(&ts, NULL);
			kill(self->t.pid, SIGKILL);
			_exit(0);
		}
		ASSERT_LT(0, killer);
		/* Walk again and again until the target is gone. */
		do {
			for (cur = 0, ret = 0; !ret && cur < mw_task_size;
			     cur = next ? next : mw_task_size) {
				ret = one_call(self->fd, self->t.pid, cur, MEMWALK_SNAP_ALL, vbuf,
					       tiny ? small : len, rbuf, tiny ? small : len,
					       &next, &why);
				ASSERT_TRUE(ret == 0 || ret == ESRCH)
					TH_LOG("round %u: %s", round,
					       ret < 0 ? why.msg : strerror(ret));
			}
			if (!ret)
				ok++;
			else if (cur)
				cut++;	/* gone in the middle of a walk */
		} while (!ret);
		waitpid(killer, NULL, 0);
		mw_target_kill(&self->t);
	}
	TH_LOG("%u whole walks, %u walks cut short by the exit", ok, cut);
	free(vbuf);
	free(rbuf);
}

/*
 * The VMA being walked changes between two holds of its mmap_lock (the
 * walker pauses after 2 ms or when the target wants the lock): the call
 * must still return each VMA once, records sorted and not overlapping.
 */
TEST_F_TIMEOUT(churn, vma_changes_mid_walk, 60)
{
	const char *args[] = { "grow", "8192", NULL };
	size_t len = 4 << 20;
	void *vbuf = malloc(len), *rbuf = malloc(len);
	unsigned int calls = 0, drops = 0;
	double end = now_s() + 5;
	struct mw_why why;
	int ret;

	ASSERT_NE(NULL, vbuf);
	ASSERT_NE(NULL, rbuf);
	ASSERT_EQ(0, mw_target_start(&self->t, 0, args));
	ASSERT_EQ(0, mw_target_expect(&self->t, "ready", MW_READY_MS));
	while (now_s() < end) {
		struct memwalk_snapshot arg = {
			.size = sizeof(arg), .flags = MEMWALK_SNAP_ALL, .pid = self->t.pid,
			.vma_buf = (uintptr_t)vbuf, .vma_buf_len = len,
			.run_buf = (uintptr_t)rbuf, .run_buf_len = len,
		};

		ret = mw_snap_ioctl(self->fd, &arg);
		ASSERT_EQ(0, ret) TH_LOG("%s", strerror(ret));
		ASSERT_EQ(0, mw_snap_check_call(&arg, vbuf, rbuf, &why))
			TH_LOG("call %u (%u lock drops so far): %s", calls, drops, why.msg);
		calls++;
		drops += arg.lock_drops;
	}
	TH_LOG("%u calls, %u mmap_lock drops inside them", calls, drops);
	EXPECT_LT(0, drops) TH_LOG("the walker never paused: nothing was tested");
	free(vbuf);
	free(rbuf);
}

/* The walker's hold budget (walk.c HOLD_BUDGET_NS) and what we allow. */
#define HOLD_BUDGET_NS		2000000ULL
/*
 * A hold overruns the budget by the work between two looks at the clock
 * (512 page-cache entries, PTEs or leaf pages: 9-50 us under TCG here,
 * logged) and by whatever stops the vCPU meanwhile: guest interrupts and,
 * under TCG on a busy host, the host descheduling the vCPU thread, which
 * the guest clock counts (single holds of 16 ms seen with the fix).  So
 * a hold may overrun by the measured work between two looks (per512: 0.5
 * to 1 ms on the KASAN debug kernel) plus a margin of the budget again,
 * and one of HOLD_TRIES snapshots must keep within it.  What does not
 * depend on the host's load is checked too: a snapshot of the region alone (one VMA, one hole) whose holds
 * took longer than the budget and a few looks at the clock must have
 * dropped mmap_lock inside the hole; an unbroken scan never does.
 */
#define HOLD_MARGIN_NS		2000000ULL
#define HOLD_TRIES		10

/*
 * MiB of shmem to cache: 3/4 of what the guest has available, 256..1024;
 * 256 under KASAN, where 256 MiB already takes the walk many budgets past
 * the test's bound and each MiB more costs the reliability lane time.
 */
static long shmem_cached_mib(void)
{
	char buf[4096], *p;
	long kb;

	if (mw_read_file("/proc/meminfo", buf, sizeof(buf)))
		return -1;
	p = strstr(buf, "MemAvailable:");
	if (!p)
		return -1;
	kb = strtol(p + strlen("MemAvailable:"), NULL, 10) / 1024 * 3 / 4;
	if (mw_kasan_enabled() && kb > 256)
		return 256;
	return kb > 1024 ? 1024 : kb & ~1L;
}

/*
 * Whether memwalk's runs over the shmem region [start, start + n pages),
 * which maps a file of @file_pages from its start, agree with mincore()
 * of the same file, before and after (@inc0, @inc1): a page of the file
 * in the page cache has no run (no entry, not in swap), one that is not
 * is in swap (a shmem-swap run); beyond the end of the file there is
 * nothing.  Pages whose residency changed between the two looks are not
 * compared.  Returns the mismatches, with the pages compared in
 * *@compared.
 */
static size_t compare_shmem_cached(struct __test_metadata *_metadata, const struct mw_snap *s,
				   uint64_t start, size_t n, size_t file_pages,
				   const unsigned char *inc0, const unsigned char *inc1,
				   size_t *compared)
{
	size_t k, bad = 0, ri = mw_run_find(s->runs, s->nr_runs, start);
	struct mw_logcap cap = MW_LOGCAP(MW_LOG_FIRST);
	char buf[256];

	*compared = 0;
	for (k = 0; k < n; k++) {
		uint64_t addr = start + k * MW_PAGE;
		const struct memwalk_page_run *r = NULL;
		bool cached = inc0[k] & 1, want_run = !cached && k < file_pages;

		while (ri < s->nr_runs && mw_run_end(&s->runs[ri]) <= addr)
			ri++;
		if (ri < s->nr_runs && s->runs[ri].start <= addr)
			r = &s->runs[ri];
		if ((inc0[k] & 1) != (inc1[k] & 1))
			continue;
		(*compared)++;
		if (!!r == want_run && (!r || mw_run_state(r) == MEMWALK_STATE_SHMEM_SWAP))
			continue;
		bad++;
		MW_LOG_CAPPED(&cap, "%#llx: mincore says %s, memwalk %s",
			      (unsigned long long)addr, cached ? "cached" : "not cached",
			      r ? mw_run_str(r, buf, sizeof(buf)) : "no run");
	}
	MW_LOG_REST(&cap, "pages differ from mincore");
	return bad;
}

/*
 * A large shmem mapping whose pages are all in the page cache but one in
 * swap, and none mapped: the walker looks each up in the page cache (to
 * find those in swap) with nothing else to do, and must still honour the
 * hold budget, dropping mmap_lock in the middle; the answer must stay
 * right (mincore of the file as the oracle).
 */
TEST_F_TIMEOUT(churn, shmem_cached_hold_bounded, 600)
{
	char mib_s[24], path[96];
	const char *args[] = { "shmem_cached", mib_s, NULL };
	long mib = shmem_cached_mib();
	bool ok = false, long_walk, tested = false;
	unsigned char *inc0, *inc1;
	uint64_t per512;
	const struct mw_region *reg;
	size_t n, compared, bad, file_pages = (size_t)mib << (20 - MW_PAGE_SHIFT);
	struct mw_snap snap;
	struct mw_why why;
	void *map;
	int fd, i;

	ASSERT_LE(256, mib) TH_LOG("the guest has too little memory for the test (%ld MiB)", mib);
	snprintf(mib_s, sizeof(mib_s), "%ld", mib);
	ASSERT_EQ(0, mw_target_start(&self->t, 0, args));
	ASSERT_EQ(0, mw_target_expect(&self->t, "ready", 10 * MW_READY_MS))
		TH_LOG("target: %s", self->t.notes);
	reg = mw_target_region(&self->t, "shmem_cached");
	ASSERT_NE(NULL, reg);
	n = (reg->end - reg->start) >> MW_PAGE_SHIFT;
	/* The oracle: the same file, mapped here and never touched. */
	snprintf(path, sizeof(path), "/proc/%d/map_files/%llx-%llx", self->t.pid,
		 (unsigned long long)reg->start, (unsigned long long)reg->end);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, fd) TH_LOG("%s: %s", path, strerror(errno));
	map = mmap(NULL, n * MW_PAGE, PROT_READ, MAP_SHARED, fd, 0);
	ASSERT_NE(MAP_FAILED, map);
	close(fd);
	ASSERT_TRUE(mw_swap_on()) TH_LOG("the guest has no swap: the file cannot have a page in swap");
	/*
	 * A file with a page in swap is one whose holes the walker must look
	 * up (one with none, it skips): the first page goes.
	 */
	(void)*(volatile char *)map;
	ASSERT_EQ(0, mw_page_out(map, MW_PAGE, &why)) TH_LOG("the file's first page: %s", why.msg);
	inc0 = malloc(n);
	inc1 = malloc(n);
	ASSERT_NE(NULL, inc0);
	ASSERT_NE(NULL, inc1);

	for (i = 0; i < HOLD_TRIES; i++) {
		size_t cached = 0, k;

		ASSERT_EQ(0, mincore(map, n * MW_PAGE, inc0));
		ASSERT_EQ(0, mw_snapshot(self->fd, self->t.pid, reg->start, reg->end,
					 MEMWALK_SNAP_ALL, VMA_BUF, RUN_BUF, &snap, &why))
			TH_LOG("snapshot of %d: %s", self->t.pid, why.msg);
		ASSERT_EQ(0, mincore(map, n * MW_PAGE, inc1));
		for (k = 0; k < n; k++)
			cached += inc1[k] & 1;
		bad = compare_shmem_cached(_metadata, &snap, reg->start, n, file_pages,
					   inc0, inc1, &compared);
		/* The walk's cost per 512 cached pages: a hold's overrun. */
		per512 = snap.total_lock_ns * 512 / file_pages;
		ksft_print_msg("shmem_cached %ld MiB (%zu pages cached): holds %llu us, longest %llu us, %u lock drops, %llu us per 512 entries\n",
			       mib, cached, (unsigned long long)snap.total_lock_ns / 1000,
			       (unsigned long long)snap.max_lock_ns / 1000,
			       snap.lock_drops, (unsigned long long)per512 / 1000);
		EXPECT_EQ(0, bad) TH_LOG("%zu of %zu pages differ from mincore", bad, compared);
		EXPECT_LT(n / 2, compared) TH_LOG("the page cache kept changing");
		EXPECT_LT(file_pages / 2, cached)
			TH_LOG("the file's pages are not cached: nothing tested");
		/*
		 * Past the budget by more than a few looks at the clock, a
		 * walker that pauses must have dropped the lock.
		 */
		long_walk = snap.total_lock_ns > HOLD_BUDGET_NS + 4 * per512;
		tested |= long_walk;
		ok = (!long_walk || snap.lock_drops) &&
		     snap.max_lock_ns <= HOLD_BUDGET_NS + per512 + HOLD_MARGIN_NS;
		mw_snap_free(&snap);
		if (!_metadata->passed || (ok && long_walk))
			break;
	}
	EXPECT_TRUE(tested) TH_LOG("the hole took less than the budget: nothing tested");
	EXPECT_TRUE(ok) TH_LOG("no snapshot of %d kept within budget %llu us + the work of one look + margin %llu us and dropped mmap_lock in the hole",
			       HOLD_TRIES, HOLD_BUDGET_NS / 1000, HOLD_MARGIN_NS / 1000);
	munmap(map, n * MW_PAGE);
	free(inc0);
	free(inc1);
}

static unsigned int storm_seconds(void)
{
	const char *s = getenv("MEMWALK_STORM_SECONDS");

	return s && *s ? strtoul(s, NULL, 0) : 10;
}

/*
 * The target maps, unmaps, remaps, protects, pages out, forks and reaps
 * without pause while snapshots and translations run: every answer is
 * well formed (records sorted, not overlapping, runs inside the call's
 * VMAs, defined bits only), small buffers resume, its children come and
 * go (0 or ESRCH), and the kernel stays untainted.
 */
TEST_F_TIMEOUT(churn, storm, 90)
{
	const char *args[] = { "storm", NULL };
	size_t small = 4 * sizeof(struct memwalk_page_run), big = 1 << 20;
	unsigned long calls = 0, xlates = 0, others = 0, before = taint();
	void *vbuf = malloc(big), *rbuf = malloc(big);
	double end = now_s() + storm_seconds();
	unsigned int seed = 1;
	struct mw_why why;
	uint64_t cur, next;
	int ret;

	ASSERT_NE(NULL, vbuf);
	ASSERT_NE(NULL, rbuf);
	ASSERT_EQ(0, mw_target_start(&self->t, 0, args));
	ASSERT_EQ(0, mw_target_expect(&self->t, "ready", MW_READY_MS));
	/* Overlapping VMA records are counted and reported at the end. */
	mw_allow_overlap = true;
	while (now_s() < end) {
		bool tiny = rand_r(&seed) % 3 == 0;
		struct memwalk_translate t;

		/* One whole walk, resumed call by call (VMAs may change between). */
		for (cur = 0; cur < mw_task_size; cur = next ? next : mw_task_size) {
			ret = one_call(self->fd, self->t.pid, cur, MEMWALK_SNAP_ALL, vbuf,
				       tiny ? 4096 : big, rbuf, tiny ? small : big, &next, &why);
			ASSERT_EQ(0, ret) TH_LOG("call %lu: %s", calls,
						 ret < 0 ? why.msg : strerror(ret));
			calls++;
		}
		/* A translation of some address of it. */
		/* (below 2^47: 4-level paging's user space ends there) */
		ret = mw_translate(self->fd, self->t.pid, 0x7f0000000000ULL +
				(((uint64_t)rand_r(&seed) << 12) & 0xfffffff000ULL), &t);
		ASSERT_EQ(0, ret);
		ASSERT_LE(t.nr_levels, MEMWALK_MAX_LEVELS);
		xlates++;
		/* Its short-lived children, or whatever has a nearby pid. */
		ret = one_call(self->fd, self->t.pid + 1 + rand_r(&seed) % 64, 0,
			       MEMWALK_SNAP_ALL, vbuf, big, rbuf, big, &next, &why);
		ASSERT_TRUE(ret == 0 || ret == ESRCH) TH_LOG("%s", ret < 0 ? why.msg : strerror(ret));
		others++;
	}
	TH_LOG("%lu snapshot calls, %lu translations, %lu snapshots of other pids in %u s",
	       calls, xlates, others, storm_seconds());
	EXPECT_LT(10, calls);
	EXPECT_EQ(before, taint());
	/* A VMA that changed between two lock holds must not be reported twice. */
	EXPECT_EQ(0, mw_overlaps) TH_LOG("%lu calls returned overlapping VMA records; first: %s",
					 mw_overlaps, mw_first_overlap);
	free(vbuf);
	free(rbuf);
}

TEST_HARNESS_MAIN

// SPDX-License-Identifier: GPL-2.0
/*
 * memwalk-client watch --batch -J against the kernel's own answer:
 * pagemon's scenario, scripted.  A target in a memory cgroup maps a file
 * on a disk file system (page cache) and an anonymous heap; a hog in the
 * same cgroup forces reclaim while `watch` records frames.  The file pages
 * the frames say were dropped and the anonymous pages they say went to
 * swap must be exactly those /proc/PID/pagemap shows gone and in swap
 * between a read before the watch and one after it (the target touches
 * nothing meanwhile), and the frames must carry reclaim events of that
 * cgroup.  Then a fork and a write: exactly the written pages are COW
 * broken.
 *
 * Run as root with the module loaded; the client is $MEMWALK_CLIENT.
 */
#include "kselftest_harness.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "memwalk_evlib.h"
#include "memwalk_snapshot_lib.h"
#include "memwalk_util.h"

#define NR_PAGES	1024		/* of each region: 4 MiB */
#define CGROUP		"mwwatch"
#define CG_MAX		(12UL << 20)
#define HOG_BYTES	(32UL << 20)
#define COW_FIRST	3		/* the pages the parent writes after fork */
#define COW_PAGES	5
#define OUT_MAX		(64UL << 20)

/*
 * The target: joins CGROUP, maps @file (read, so in the page cache) and an
 * anonymous heap (written), reports both addresses on @reply, then obeys
 * one-byte commands on @cmd: 'f' forks a child that sleeps, 'w' writes
 * COW_PAGES of the heap; each acknowledged with the byte.
 */
static void __attribute__((noreturn)) target_main(const char *file, int cmd, int reply)
{
	size_t len = NR_PAGES * MW_PAGE, i;
	uint64_t addr[2];
	volatile char sum = 0;
	char *f, *a, c;
	int fd;

	if (cg_write(CGROUP, "cgroup.procs", "0"))
		_exit(2);
	fd = open(file, O_RDONLY);
	f = fd < 0 ? MAP_FAILED : mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
	a = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (f == MAP_FAILED || a == MAP_FAILED)
		_exit(3);
	madvise(a, len, MADV_NOHUGEPAGE);
	for (i = 0; i < NR_PAGES; i++) {
		sum += f[i * MW_PAGE];
		memset(a + i * MW_PAGE, (int)(i % 250) + 1, 64);
	}
	addr[0] = (uintptr_t)f;
	addr[1] = (uintptr_t)a;
	if (write(reply, addr, sizeof(addr)) != sizeof(addr))
		_exit(1);
	while (read(cmd, &c, 1) == 1) {
		if (c == 'f' && fork() == 0) {
			/* Not a reader of @cmd: CGROUP's removal kills it. */
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			for (;;)
				pause();
		}
		if (c == 'w')
			for (i = COW_FIRST; i < COW_FIRST + COW_PAGES; i++)
				a[i * MW_PAGE] = 0x55;
		if (write(reply, &c, 1) != 1)
			_exit(1);
	}
	_exit(0);
}

FIXTURE(watch) {
	pid_t target;
	int cmd, reply;
	uint64_t file, anon;
	char path[256];
	int swap;			/* swap_on_why(): 1 if we turned it on */
	struct bg watch;
	bool watching;
	char *out;
};

FIXTURE_SETUP(watch)
{
	const char *disk = mw_disk_dir();
	char why[128], buf[MW_PAGE];
	int cp[2], rp[2], fd, i, ret;
	uint64_t addr[2];

	self->target = -1;
	self->swap = 0;
	if (!disk)
		SKIP(return, "no disk file system ($MEMWALK_DISK): page cache needs one");
	self->swap = swap_on_why(why, sizeof(why));
	if (self->swap == -EOPNOTSUPP)
		SKIP(return, "%s", why);
	ASSERT_LE(0, self->swap) TH_LOG("swap: %s", why);
	if (access(CG "/cgroup.controllers", F_OK))
		SKIP(return, "no cgroup v2 hierarchy at " CG);
	ret = cg_create(CGROUP, CG_MAX, true);
	ASSERT_EQ(0, ret) TH_LOG("cgroup " CGROUP ": %s", strerror(-ret));

	snprintf(self->path, sizeof(self->path), "%s/mwwatch.data", disk);
	fd = open(self->path, O_CREAT | O_TRUNC | O_WRONLY, 0600);
	ASSERT_LE(0, fd) TH_LOG("%s: %s", self->path, strerror(errno));
	memset(buf, 'x', sizeof(buf));
	for (i = 0; i < NR_PAGES; i++)
		ASSERT_EQ(sizeof(buf), write(fd, buf, sizeof(buf)));
	ASSERT_EQ(0, fsync(fd));
	/* Out of the cache: the target's reads charge its pages to CGROUP. */
	ASSERT_EQ(0, posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED));
	close(fd);

	ASSERT_EQ(0, pipe(cp));
	ASSERT_EQ(0, pipe(rp));
	self->target = fork();
	ASSERT_LE(0, self->target);
	if (self->target == 0) {
		close(cp[1]);
		close(rp[0]);
		target_main(self->path, cp[0], rp[1]);
	}
	close(cp[0]);
	close(rp[1]);
	self->cmd = cp[1];
	self->reply = rp[0];
	ASSERT_EQ(sizeof(addr), read(self->reply, addr, sizeof(addr)))
		TH_LOG("the target did not report its regions");
	self->file = addr[0];
	self->anon = addr[1];
}

FIXTURE_TEARDOWN(watch)
{
	if (self->watching)
		bg_stop(&self->watch, SIGKILL, 5);
	free(self->out);
	if (self->target > 0) {
		close(self->cmd);
		close(self->reply);
		kill(self->target, SIGKILL);
		waitpid(self->target, NULL, 0);
	}
	cg_remove(CGROUP);
	unlink(self->path);
	if (self->swap == 1)
		swap_off();
}

/* ---- the watch in the background -------------------------------------------- */

static int start_watch(FIXTURE_DATA(watch) *self)
{
	char pid[16];
	const char *argv[] = { mw_client_path(), "watch", pid, "--batch", "-J",
			       "-i", "0.25", NULL };

	snprintf(pid, sizeof(pid), "%d", self->target);
	if (bg_start(&self->watch, argv))
		return -1;
	self->watching = true;
	return 0;
}

/* What it printed so far, into self->out; the number of frames. */
static unsigned int frames_so_far(FIXTURE_DATA(watch) *self)
{
	const char *p;
	unsigned int n = 0;
	ssize_t len;

	if (!self->out)
		self->out = malloc(OUT_MAX);
	if (!self->out)
		return 0;
	len = pread(self->watch.out, self->out, OUT_MAX - 1, 0);
	self->out[len > 0 ? len : 0] = '\0';
	for (p = self->out; (p = strstr(p, "\"frame\":")); p++)
		n++;
	return n;
}

/* Wait until @more frames came after those there are; false after 60 s. */
static bool more_frames(FIXTURE_DATA(watch) *self, unsigned int more)
{
	unsigned int want = frames_so_far(self) + more;
	int i;

	for (i = 0; i < 1200; i++) {
		if (frames_so_far(self) >= want)
			return true;
		msleep(50);
	}
	return false;
}

/* SIGTERM: its last line, exit 0; the whole output in self->out. */
static int stop_watch(FIXTURE_DATA(watch) *self)
{
	int status = bg_stop(&self->watch, SIGTERM, 30);

	self->watching = false;
	frames_so_far(self);
	return status;
}

/* How many frames carry a memcg reclaim of CGROUP. */
static unsigned int memcg_events(const char *out)
{
	const char *p;
	unsigned int n = 0;

	for (p = out; (p = strstr(p, "\"type\":\"memcg_reclaim_end\"")); p++) {
		const char *close = strchr(p, '}');
		const char *m = strstr(p, "\"memcg\":\"/" CGROUP "\"");

		if (m && close && m < close)
			n++;
	}
	return n;
}

static void read_pagemap(struct __test_metadata *_metadata, pid_t pid, uint64_t start,
			 uint64_t *pm)
{
	int ret = mw_pagemap_read(pid, start, NR_PAGES, pm);

	ASSERT_EQ(0, ret) TH_LOG("pagemap of %d: %s", pid, strerror(ret));
}

/*
 * Reclaim under the watch: every file page that pagemap shows present
 * before and gone after is dropped once in the frames, no other; every
 * anonymous page present before and in swap after is swapped out once.
 */
TEST_F_TIMEOUT(watch, reclaim_matches_pagemap, 600)
{
	static uint64_t file0[NR_PAGES], file1[NR_PAGES], anon0[NR_PAGES], anon1[NR_PAGES];
	static unsigned char dropped[NR_PAGES], swapped[NR_PAGES];
	unsigned int want_dropped = 0, want_swapped = 0, i;
	pid_t hog;
	int status;

	read_pagemap(_metadata, self->target, self->file, file0);
	read_pagemap(_metadata, self->target, self->anon, anon0);
	ASSERT_EQ(0, start_watch(self));
	ASSERT_TRUE(more_frames(self, 1)) TH_LOG("no first frame: %s", self->out);
	hog = spawn_hog(CGROUP, HOG_BYTES, 2, 0);
	ASSERT_LT(0, hog);
	status = wait_child(hog, 300);
	ASSERT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status)) TH_LOG("hog: status 0x%x", status);
	/* Two frames after the hog: the last one's snapshot began after it. */
	ASSERT_TRUE(more_frames(self, 2));
	status = stop_watch(self);
	read_pagemap(_metadata, self->target, self->file, file1);
	read_pagemap(_metadata, self->target, self->anon, anon1);
	EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status)) TH_LOG("watch: status 0x%x", status);
	ASSERT_NE(NULL, strstr(self->out, "\"end\":\"signal\"")) TH_LOG("no last line");

	for (i = 0; i < NR_PAGES; i++) {
		if ((file0[i] & PM_PRESENT) && !(file1[i] & (PM_PRESENT | PM_SWAP)))
			want_dropped++;
		if ((anon0[i] & PM_PRESENT) && (anon1[i] & PM_SWAP))
			want_swapped++;
	}
	/* The scenario must have moved pages, or it proves nothing. */
	ASSERT_LT(0, want_dropped) TH_LOG("pagemap: no page-cache page of the target dropped");
	ASSERT_LT(0, want_swapped) TH_LOG("pagemap: no anonymous page of the target swapped");

	ASSERT_EQ(0, mw_watch_hits(self->out, "page_cache_dropped", self->file, NR_PAGES, dropped));
	ASSERT_EQ(0, mw_watch_hits(self->out, "swapped_out", self->anon, NR_PAGES, swapped));
	for (i = 0; i < NR_PAGES; i++) {
		bool gone = (file0[i] & PM_PRESENT) && !(file1[i] & (PM_PRESENT | PM_SWAP));
		bool out = (anon0[i] & PM_PRESENT) && (anon1[i] & PM_SWAP);

		EXPECT_EQ(gone ? 1 : 0, dropped[i]) TH_LOG("file page %u", i);
		EXPECT_EQ(out ? 1 : 0, swapped[i]) TH_LOG("anon page %u", i);
	}
	TH_LOG("pagemap: %u file pages dropped, %u anon pages swapped out", want_dropped,
	       want_swapped);
	EXPECT_LT(0, memcg_events(self->out)) TH_LOG("no memcg reclaim event of /" CGROUP);
}

/*
 * Fork, then the parent writes COW_PAGES: the frames call exactly those
 * pages COW broken, and pagemap agrees (a new PFN, exclusive).
 */
TEST_F_TIMEOUT(watch, fork_write_breaks_cow, 300)
{
	static uint64_t anon1[NR_PAGES], anon2[NR_PAGES];
	static unsigned char broken[NR_PAGES];
	unsigned int i;
	int status;
	char c;

	ASSERT_EQ(0, start_watch(self));
	ASSERT_TRUE(more_frames(self, 1));
	ASSERT_EQ(1, write(self->cmd, "f", 1));
	ASSERT_EQ(1, read(self->reply, &c, 1)) TH_LOG("the target did not fork");
	ASSERT_TRUE(more_frames(self, 2));
	read_pagemap(_metadata, self->target, self->anon, anon1);
	ASSERT_EQ(1, write(self->cmd, "w", 1));
	ASSERT_EQ(1, read(self->reply, &c, 1)) TH_LOG("the target did not write");
	read_pagemap(_metadata, self->target, self->anon, anon2);
	ASSERT_TRUE(more_frames(self, 2));
	status = stop_watch(self);
	EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status)) TH_LOG("watch: status 0x%x", status);

	ASSERT_EQ(0, mw_watch_hits(self->out, "cow_broken", self->anon, NR_PAGES, broken));
	for (i = 0; i < NR_PAGES; i++) {
		bool oracle = (anon2[i] & PM_PRESENT) && (anon2[i] & PM_MMAP_EXCLUSIVE) &&
			      !(anon1[i] & PM_MMAP_EXCLUSIVE) &&
			      (anon1[i] & PM_PFN_MASK) != (anon2[i] & PM_PFN_MASK);
		bool written = i >= COW_FIRST && i < COW_FIRST + COW_PAGES;

		ASSERT_EQ(written, oracle) TH_LOG("pagemap: page %u", i);
		EXPECT_EQ(written ? 1 : 0, broken[i]) TH_LOG("page %u", i);
	}
}

TEST_HARNESS_MAIN

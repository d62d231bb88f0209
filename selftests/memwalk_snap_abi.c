// SPDX-License-Identifier: GPL-2.0
/*
 * MEMWALK_IOC_SNAPSHOT's and MEMWALK_IOC_TRANSLATE's ABI against a small
 * idle target: every error path with its exact errno (bad pid, range,
 * pointer, buffer size, flags, reserved and struct-size rules), nothing
 * written on failure, the caller walking itself, and access decided at
 * open; debugfs' target file's error paths.
 *
 * Needs root and the module loaded.
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

static int errno_of(int ret)
{
	return ret < 0 ? errno : ret;
}

/* Open the device as root and read its info (mw_task_size with it). */
static void dev_setup(struct __test_metadata *_metadata, int *fd, struct memwalk_info *info)
{
	struct mw_why why;

	ASSERT_EQ(0, geteuid()) TH_LOG("these tests need root");
	*fd = mw_dev_open(info, &why);
	ASSERT_LE(0, *fd) TH_LOG("%s", why.msg);
}

static void snap_all(struct __test_metadata *_metadata, int fd, pid_t pid,
		     uint32_t flags, struct mw_snap *s)
{
	struct mw_why why;

	ASSERT_EQ(0, mw_snapshot(fd, pid, 0, 0, flags, VMA_BUF, RUN_BUF, s, &why))
		TH_LOG("snapshot of %d: %s", pid, why.msg);
}

#define DEBUGFS_DIR	"/sys/kernel/debug/memwalk"
#define NO_DEBUGFS	"kernel without debugfs (CONFIG_DEBUG_FS) or not mounted"
#define TAIL		64	/* bytes of a larger struct a newer caller might pass */

/* ---- error paths, against a small idle target ---------------------------------- */

FIXTURE(snap) {
	int fd;
	struct memwalk_info info;
	struct mw_target t;
	struct memwalk_snapshot arg;	/* a valid request for the target */
	char *vbuf, *rbuf;
};

#define SMALL_BUF	(64 * 1024)

FIXTURE_SETUP(snap)
{
	const char *args[] = { "idle", NULL };

	self->t.pid = -1;
	self->t.to = self->t.from = -1;
	dev_setup(_metadata, &self->fd, &self->info);
	ASSERT_EQ(0, mw_target_start(&self->t, 0, args));
	ASSERT_EQ(0, mw_target_expect(&self->t, "ready", MW_READY_MS))
		TH_LOG("target: %s", self->t.notes);
	self->vbuf = malloc(SMALL_BUF);
	self->rbuf = malloc(SMALL_BUF);
	ASSERT_NE(NULL, self->vbuf);
	ASSERT_NE(NULL, self->rbuf);
	memset(&self->arg, 0, sizeof(self->arg));
	self->arg.size = sizeof(self->arg);
	self->arg.flags = MEMWALK_SNAP_ALL;
	self->arg.pid = self->t.pid;
	self->arg.vma_buf = (uintptr_t)self->vbuf;
	self->arg.vma_buf_len = SMALL_BUF;
	self->arg.run_buf = (uintptr_t)self->rbuf;
	self->arg.run_buf_len = SMALL_BUF;
}

FIXTURE_TEARDOWN(snap)
{
	mw_target_kill(&self->t);
	free(self->vbuf);
	free(self->rbuf);
	if (self->fd >= 0)
		close(self->fd);
}

static int snap_errno(int fd, struct memwalk_snapshot *arg)
{
	return mw_snap_ioctl(fd, arg);
}

/* The valid request works (so each test below fails for its own reason). */
TEST_F(snap, baseline_valid_request)
{
	struct mw_why why;

	ASSERT_EQ(0, snap_errno(self->fd, &self->arg));
	EXPECT_EQ(0, self->arg.walk_end);	/* end 0: done means walk_end 0 */
	EXPECT_LT(0, self->arg.vma_bytes);
	EXPECT_LT(0, self->arg.nr_runs);
	EXPECT_EQ(sizeof(struct memwalk_page_run), self->arg.run_size);
	EXPECT_EQ(0, mw_snap_check_call(&self->arg, self->vbuf, self->rbuf, &why))
		TH_LOG("%s", why.msg);
}

TEST_F(snap, pid_missing_esrch)
{
	self->arg.pid = mw_free_pid();
	ASSERT_LT(0, self->arg.pid);
	EXPECT_EQ(ESRCH, snap_errno(self->fd, &self->arg));
}

TEST_F(snap, pid_negative_esrch)
{
	self->arg.pid = -1;
	EXPECT_EQ(ESRCH, snap_errno(self->fd, &self->arg));
}

/* pid 2, kthreadd: no mm.  snapshot.c: "-ESRCH if ... it has no mm". */
TEST_F(snap, kernel_thread_esrch)
{
	char comm[32];

	ASSERT_EQ(0, mw_read_file("/proc/2/comm", comm, sizeof(comm)));
	ASSERT_STREQ("kthreadd\n", comm);
	self->arg.pid = 2;
	EXPECT_EQ(ESRCH, snap_errno(self->fd, &self->arg));
}

/* A zombie has no mm any more. */
TEST_F(snap, zombie_esrch)
{
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid == 0)
		_exit(0);
	ASSERT_LT(0, pid);
	/* Wait until it is a zombie, without reaping it. */
	ASSERT_EQ(0, waitid(P_PID, pid, NULL, WEXITED | WNOWAIT) ? errno : 0);
	self->arg.pid = pid;
	EXPECT_EQ(ESRCH, snap_errno(self->fd, &self->arg));
	waitpid(pid, NULL, 0);
}

TEST_F(snap, range_start_unaligned_einval)
{
	self->arg.start = MW_PAGE + 8;
	EXPECT_EQ(EINVAL, snap_errno(self->fd, &self->arg));
}

TEST_F(snap, range_end_unaligned_einval)
{
	self->arg.end = (1ULL << 40) + 1;
	EXPECT_EQ(EINVAL, snap_errno(self->fd, &self->arg));
}

TEST_F(snap, range_reversed_einval)
{
	self->arg.start = 1ULL << 40;
	self->arg.end = 1ULL << 30;
	EXPECT_EQ(EINVAL, snap_errno(self->fd, &self->arg));
}

TEST_F(snap, range_empty_einval)
{
	self->arg.start = 1ULL << 30;
	self->arg.end = 1ULL << 30;
	EXPECT_EQ(EINVAL, snap_errno(self->fd, &self->arg));
}

TEST_F(snap, range_end_beyond_user_einval)
{
	self->arg.end = mw_task_size + MW_PAGE;
	EXPECT_EQ(EINVAL, snap_errno(self->fd, &self->arg));
}

/* start beyond the user address space with end 0 ("to the end"). */
TEST_F(snap, range_start_beyond_user_einval)
{
	self->arg.start = mw_task_size + MW_PAGE;
	EXPECT_EQ(EINVAL, snap_errno(self->fd, &self->arg));
}

/* A range without VMAs is done at once, with nothing in it. */
TEST_F(snap, range_without_vmas)
{
	self->arg.start = 0;
	self->arg.end = 16 * MW_PAGE;
	ASSERT_EQ(0, snap_errno(self->fd, &self->arg));
	EXPECT_EQ(16 * MW_PAGE, self->arg.walk_end);
	EXPECT_EQ(0, self->arg.vma_bytes);
	EXPECT_EQ(0, self->arg.nr_runs);
}

TEST_F(snap, arg_null_efault)
{
	EXPECT_EQ(EFAULT, errno_of(ioctl(self->fd, MEMWALK_IOC_SNAPSHOT, NULL)));
}

TEST_F(snap, vma_buf_null_efault)
{
	self->arg.vma_buf = 0;
	EXPECT_EQ(EFAULT, snap_errno(self->fd, &self->arg));
}

TEST_F(snap, run_buf_null_efault)
{
	self->arg.run_buf = 0;
	EXPECT_EQ(EFAULT, snap_errno(self->fd, &self->arg));
}

static void *unmapped_page(void)
{
	void *p = mmap(NULL, MW_PAGE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p != MAP_FAILED)
		munmap(p, MW_PAGE);
	return p;
}

TEST_F(snap, vma_buf_unmapped_efault)
{
	void *p = unmapped_page();

	ASSERT_NE(MAP_FAILED, p);
	self->arg.vma_buf = (uintptr_t)p;
	self->arg.vma_buf_len = MW_PAGE;
	EXPECT_EQ(EFAULT, snap_errno(self->fd, &self->arg));
}

TEST_F(snap, run_buf_unmapped_efault)
{
	void *p = unmapped_page();

	ASSERT_NE(MAP_FAILED, p);
	self->arg.run_buf = (uintptr_t)p;
	self->arg.run_buf_len = MW_PAGE;
	EXPECT_EQ(EFAULT, snap_errno(self->fd, &self->arg));
}

/* Readable but not writable: the kernel cannot store the runs. */
TEST_F(snap, run_buf_read_only_efault)
{
	void *p = mmap(NULL, MW_PAGE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	ASSERT_NE(MAP_FAILED, p);
	self->arg.run_buf = (uintptr_t)p;
	self->arg.run_buf_len = MW_PAGE;
	EXPECT_EQ(EFAULT, snap_errno(self->fd, &self->arg));
	munmap(p, MW_PAGE);
}

TEST_F(snap, vma_buf_too_small_enospc)
{
	self->arg.vma_buf_len = sizeof(struct memwalk_vma);	/* no room for a name */
	EXPECT_EQ(ENOSPC, snap_errno(self->fd, &self->arg));
}

TEST_F(snap, run_buf_too_small_enospc)
{
	self->arg.flags = MEMWALK_SNAP_PAGES | MEMWALK_SNAP_FOLIO;
	self->arg.run_buf_len = sizeof(struct memwalk_page_run) - 1;
	EXPECT_EQ(ENOSPC, snap_errno(self->fd, &self->arg));
}

TEST_F(snap, flags_unknown_einval)
{
	const uint32_t bad[] = { MEMWALK_SNAP_NO_ACCESSED << 1, 1U << 31 };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		self->arg.flags = MEMWALK_SNAP_ALL | bad[i];
		EXPECT_EQ(EINVAL, snap_errno(self->fd, &self->arg)) TH_LOG("flags %#x", bad[i]);
	}
}

/* Folio state comes from the page, which entry-only mode never reads. */
TEST_F(snap, flags_entry_only_with_folio_einval)
{
	self->arg.flags = MEMWALK_SNAP_ALL | MEMWALK_SNAP_ENTRY_ONLY;
	EXPECT_EQ(EINVAL, snap_errno(self->fd, &self->arg));
}

/*
 * 2048 read-faulted anon pages, all the zero page (one PFN, so none
 * follows the one before): one listed run, however the module's buffers
 * fill up on the way (PAUSE, larger buffer, on with the same list).
 */
TEST_F(snap, pfn_list_one_run_for_zero_pages)
{
	const size_t n = 2048;
	uint64_t *pfns = malloc(n * sizeof(*pfns)), zero_pfn, k;
	char *p = mmap(NULL, n * MW_PAGE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct memwalk_page_run *r = (void *)self->rbuf;
	uint64_t pm;

	ASSERT_NE(NULL, pfns);
	ASSERT_NE(MAP_FAILED, p);
	/* No THP here; a kernel without THP (PREEMPT_RT) refuses the advice. */
	if (madvise(p, n * MW_PAGE, MADV_NOHUGEPAGE))
		ASSERT_TRUE(errno == EINVAL && access("/sys/kernel/mm/transparent_hugepage", F_OK))
			TH_LOG("MADV_NOHUGEPAGE: %s", strerror(errno));
	for (k = 0; k < n; k++)
		(void)*(volatile char *)(p + k * MW_PAGE);
	ASSERT_EQ(0, mw_pagemap_read(getpid(), (uintptr_t)p, 1, &pm));
	zero_pfn = pm & PM_PFN_MASK;
	self->arg.flags = MEMWALK_SNAP_PAGES | MEMWALK_SNAP_ENTRY_ONLY | MEMWALK_SNAP_PFN_LIST;
	self->arg.pid = getpid();
	self->arg.start = (uintptr_t)p;
	self->arg.end = (uintptr_t)p + n * MW_PAGE;
	self->arg.pfn_buf = (uintptr_t)pfns;
	self->arg.pfn_buf_len = n * sizeof(*pfns);
	ASSERT_EQ(0, snap_errno(self->fd, &self->arg));
	EXPECT_EQ(self->arg.end, self->arg.walk_end);
	ASSERT_EQ(1, self->arg.nr_runs);
	EXPECT_EQ(n, r->nr_pages);
	EXPECT_TRUE(r->flags & MEMWALK_RUN_PFN_LIST);
	EXPECT_TRUE(r->flags & MEMWALK_RUN_ZERO);
	EXPECT_EQ(0, r->pfn);
	ASSERT_EQ(n, self->arg.nr_pfns);
	for (k = 0; k < n; k++)
		ASSERT_EQ(zero_pfn, pfns[k]) TH_LOG("PFN %llu", (unsigned long long)k);
	munmap(p, n * MW_PAGE);
	free(pfns);
}

/* A PFN buffer with a length but no address. */
TEST_F(snap, pfn_buf_null_efault)
{
	self->arg.flags = MEMWALK_SNAP_VMAS | MEMWALK_SNAP_PAGES |
			  MEMWALK_SNAP_ENTRY_ONLY | MEMWALK_SNAP_PFN_LIST;
	self->arg.pfn_buf = 0;
	self->arg.pfn_buf_len = 4096;
	EXPECT_EQ(EFAULT, snap_errno(self->fd, &self->arg));
}

/* Neither VMAs nor pages asked for. */
TEST_F(snap, flags_nothing_asked_einval)
{
	self->arg.flags = MEMWALK_SNAP_FOLIO | MEMWALK_SNAP_NO_PFN;
	EXPECT_EQ(EINVAL, snap_errno(self->fd, &self->arg));
}

TEST_F(snap, reserved_nonzero_einval)
{
	self->arg.__reserved = 1;
	EXPECT_EQ(EINVAL, snap_errno(self->fd, &self->arg));
}

TEST_F(snap, size_too_small_einval)
{
	const uint32_t sizes[] = { 0, 8, MEMWALK_SNAPSHOT_SIZE_VER0 - 8 };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		self->arg.size = sizes[i];
		EXPECT_EQ(EINVAL, snap_errno(self->fd, &self->arg)) TH_LOG("size %u", sizes[i]);
	}
}

/* A caller that knows a larger struct, with a zero tail: works, tail untouched. */
TEST_F(snap, size_larger_zero_tail)
{
	union {
		struct memwalk_snapshot arg;
		unsigned char bytes[sizeof(struct memwalk_snapshot) + 2 * TAIL];
	} buf;
	unsigned char *tail = buf.bytes + sizeof(struct memwalk_snapshot);
	unsigned int i;

	memset(&buf, 0, sizeof(buf));
	buf.arg = self->arg;
	buf.arg.size = sizeof(struct memwalk_snapshot) + TAIL;
	memset(tail + TAIL, 0xa5, TAIL);
	ASSERT_EQ(0, snap_errno(self->fd, &buf.arg));
	EXPECT_EQ(sizeof(struct memwalk_snapshot), buf.arg.size);
	EXPECT_LT(0, buf.arg.nr_runs);
	for (i = 0; i < TAIL; i++) {
		EXPECT_EQ(0, tail[i]) TH_LOG("tail byte %u written", i);
		EXPECT_EQ(0xa5, tail[TAIL + i]) TH_LOG("byte %u past size written", i);
	}
}

TEST_F(snap, size_larger_nonzero_tail_e2big)
{
	union {
		struct memwalk_snapshot arg;
		unsigned char bytes[sizeof(struct memwalk_snapshot) + TAIL];
	} buf;

	memset(&buf, 0, sizeof(buf));
	buf.arg = self->arg;
	buf.arg.size = sizeof(buf);
	buf.bytes[sizeof(buf) - 1] = 1;
	EXPECT_EQ(E2BIG, snap_errno(self->fd, &buf.arg));
	EXPECT_EQ(0, buf.arg.nr_runs) TH_LOG("written on failure");
}

/*
 * The caller walking itself: the kernel must not fault on the caller's
 * buffers while holding its mmap_lock.  A page we just touched is there
 * with pagemap's PFN.
 */
TEST_F(snap, snapshot_self)
{
	char *p = mmap(NULL, 4 * MW_PAGE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	const struct memwalk_page_run *r;
	struct mw_snap s;
	uint64_t pm;

	ASSERT_NE(MAP_FAILED, p);
	p[MW_PAGE] = 1;
	ASSERT_EQ(0, mw_pagemap_read(getpid(), (uintptr_t)p + MW_PAGE, 1, &pm));
	snap_all(_metadata, self->fd, getpid(), MEMWALK_SNAP_ALL, &s);
	ASSERT_NE(NULL, mw_snap_vma(&s, (uintptr_t)&s));	/* our stack */
	r = mw_run_at(&s, (uintptr_t)p + MW_PAGE);
	ASSERT_NE(NULL, r);
	EXPECT_EQ(pm & PM_PFN_MASK, r->pfn + (((uintptr_t)p + MW_PAGE - r->start) >> MW_PAGE_SHIFT));
	EXPECT_EQ(NULL, mw_run_at(&s, (uintptr_t)p));
	mw_snap_free(&s);
	munmap(p, 4 * MW_PAGE);
}

/* Access is decided at open: an fd root opened works for anybody, PFNs shown. */
struct lent {
	int fd;
	pid_t pid;
};

static int snapshot_with_lent_fd(void *arg)
{
	const struct lent *l = arg;
	struct mw_snap s;
	struct mw_why why;
	size_t i;
	int ret;

	ret = mw_snapshot(l->fd, l->pid, 0, 0, MEMWALK_SNAP_ALL, VMA_BUF, RUN_BUF, &s, &why);
	if (ret)
		return ret < 0 ? 200 : ret;
	for (i = 0; i < s.nr_runs; i++)
		if (mw_run_state(&s.runs[i]) == MEMWALK_STATE_PRESENT && s.runs[i].pfn)
			break;
	ret = i < s.nr_runs ? 0 : 201;
	mw_snap_free(&s);
	return ret;
}

TEST_F(snap, fd_opened_by_root_lends_access)
{
	struct lent l = { .fd = self->fd, .pid = self->t.pid };

	EXPECT_EQ(0, mw_as_user(MW_NOBODY, snapshot_with_lent_fd, &l));
}

/* -- translate's error paths ------------------------------------------------------ */

TEST_F(snap, translate_pid_missing_esrch)
{
	struct memwalk_translate t;

	EXPECT_EQ(ESRCH, mw_translate(self->fd, mw_free_pid(), 0x400000, &t));
}

TEST_F(snap, translate_flags_einval)
{
	struct memwalk_translate t = { .size = sizeof(t), .flags = 1 };

	t.pid = self->t.pid;
	t.addr = mw_target_region(&self->t, "idle")->start;
	EXPECT_EQ(EINVAL, errno_of(ioctl(self->fd, MEMWALK_IOC_TRANSLATE, &t)));
}

TEST_F(snap, translate_addr_beyond_user_einval)
{
	struct memwalk_translate t;

	EXPECT_EQ(EINVAL, mw_translate(self->fd, self->t.pid, mw_task_size + MW_PAGE, &t));
}

TEST_F(snap, translate_size_too_small_einval)
{
	struct memwalk_translate t = { .size = MEMWALK_TRANSLATE_SIZE_VER0 - 8 };

	t.pid = self->t.pid;
	t.addr = mw_target_region(&self->t, "idle")->start;
	EXPECT_EQ(EINVAL, errno_of(ioctl(self->fd, MEMWALK_IOC_TRANSLATE, &t)));
}

TEST_F(snap, translate_size_larger_nonzero_tail_e2big)
{
	union {
		struct memwalk_translate t;
		unsigned char bytes[sizeof(struct memwalk_translate) + TAIL];
	} buf;

	memset(&buf, 0, sizeof(buf));
	buf.t.size = sizeof(buf);
	buf.t.pid = self->t.pid;
	buf.t.addr = mw_target_region(&self->t, "idle")->start;
	buf.bytes[sizeof(buf) - 1] = 1;
	EXPECT_EQ(E2BIG, errno_of(ioctl(self->fd, MEMWALK_IOC_TRANSLATE, &buf)));
}

/* -- debugfs' error paths ----------------------------------------------------------- */

TEST_F(snap, debugfs_target_missing_pid_esrch)
{
	char pid[32];

	if (access(DEBUGFS_DIR "/target", W_OK))
		SKIP(return, "no %s/target: %s", DEBUGFS_DIR, NO_DEBUGFS);
	snprintf(pid, sizeof(pid), "%d", mw_free_pid());
	EXPECT_EQ(-ESRCH, mw_write_file(DEBUGFS_DIR "/target", pid));
}

TEST_F(snap, debugfs_target_zero_einval)
{
	if (access(DEBUGFS_DIR "/target", W_OK))
		SKIP(return, "no %s/target: %s", DEBUGFS_DIR, NO_DEBUGFS);
	EXPECT_EQ(-EINVAL, mw_write_file(DEBUGFS_DIR "/target", "0"));
}

/* The target gone: its maps cannot be rendered. */
TEST_F(snap, debugfs_maps_target_exited_esrch)
{
	char pid[32], buf[64];
	pid_t child;

	if (access(DEBUGFS_DIR "/maps", R_OK))
		SKIP(return, "no %s/maps: %s", DEBUGFS_DIR, NO_DEBUGFS);
	fflush(NULL);
	child = fork();
	if (child == 0) {
		pause();
		_exit(0);
	}
	ASSERT_LT(0, child);
	snprintf(pid, sizeof(pid), "%d", child);
	ASSERT_EQ(0, mw_write_file(DEBUGFS_DIR "/target", pid));
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	EXPECT_EQ(-ESRCH, mw_read_file(DEBUGFS_DIR "/maps", buf, sizeof(buf)));
}

TEST_HARNESS_MAIN

// SPDX-License-Identifier: GPL-2.0
/*
 * memwalk's lab mode (module parameter lab_mode=1): unprivileged users may
 * open /dev/memwalk and snapshot or translate the processes they could
 * read /proc/PID/maps of (ptrace-read with the opener's credentials, LSM
 * hooks aside: module/target.c), so /proc/PID/maps is the oracle, and see
 * no more of them than pagemap shows them: no PFN, swap offset or folio
 * state, and no shmem swap where mincore() would tell nothing.  Root
 * keeps full access.
 *
 * What lab mode shows of a snapshot (PFNs and swap offsets 0, no folio
 * state, runs merged without PFNs) is the lab variant of the states
 * suites (memwalk_states.h); this suite is who may look, and translate.
 *
 * Needs root and the module loaded with lab_mode=1 (the tests fail
 * otherwise); uid/gid 65534 is the unprivileged user, memwalk_target is
 * next to this program (or $MEMWALK_TARGET) and executable by it.  The
 * swap tests need a swap device (zram in the suite's guest), the user
 * namespace test unprivileged user namespaces; shmem_swap_only_where_
 * mincore_tells mounts a tmpfs of its own under /tmp.
 */
#include "kselftest_harness.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/memwalk.h>

#include "memwalk_arch.h"
#include "memwalk_snapshot_lib.h"
#include "memwalk_util.h"

#define DEV		MEMWALK_DEVICE_PATH
#define LAB_PARAM	"/sys/module/memwalk/parameters/lab_mode"
#define READY_MS	60000
#define BUF		(4UL << 20)
#define SHM_PAGES	32	/* the shmem files' size, the first half swapped */

/* Codes the unprivileged children return (beyond errno values). */
#define BAD_ANSWER	200	/* the snapshot broke a rule: see stderr */
#define PFN_SHOWN	201	/* a PFN or swap offset leaked */
#define NO_USERNS	203	/* could not enter a new user namespace: see stderr */
#define FOLIO_SHOWN	204	/* folio state leaked */

/* What an unprivileged child saw, in memory shared with the parent. */
struct answer {
	struct memwalk_translate t;	/* translate_into() */
	unsigned int not_resident;	/* shmem_look(): pages mincore() says are out */
	unsigned int shmem_swap;	/* pages in MEMWALK_STATE_SHMEM_SWAP runs */
	unsigned int swap_but_resident;	/* shmem-swap pages mincore() says are in */
};

struct job {
	pid_t pid;
	uint64_t addr;
	uint64_t end;
	unsigned int levels;
	bool userns;		/* enter a new user namespace first */
	const char *path;	/* shmem_look(): the file to map */
	struct answer *ans;	/* shared with the parent */
};

/*
 * A new user namespace in which we keep our uid and gid: root there, with
 * every capability in it and none outside.
 */
static int enter_userns(void)
{
	char map[64];
	uid_t uid = getuid();
	gid_t gid = getgid();

	/* Becoming the user made us undumpable: /proc/self root's. */
	if (prctl(PR_SET_DUMPABLE, 1, 0, 0, 0) || unshare(CLONE_NEWUSER)) {
		fprintf(stderr, "# dumpable, unshare(CLONE_NEWUSER): %s\n", strerror(errno));
		return NO_USERNS;
	}
	snprintf(map, sizeof(map), "%u %u 1\n", uid, uid);
	if (mw_write_file("/proc/self/uid_map", map) ||
	    mw_write_file("/proc/self/setgroups", "deny")) {
		fprintf(stderr, "# cannot map uid %u in the new user namespace\n", uid);
		return NO_USERNS;
	}
	snprintf(map, sizeof(map), "%u %u 1\n", gid, gid);
	if (mw_write_file("/proc/self/gid_map", map)) {
		fprintf(stderr, "# cannot map gid %u in the new user namespace\n", gid);
		return NO_USERNS;
	}
	return 0;
}

/*
 * Open @path, in a user namespace of our own if @j says so: the fd, or
 * minus an errno or NO_USERNS.
 */
static int job_open(const struct job *j, const char *path)
{
	int fd, ret;

	if (j->userns) {
		ret = enter_userns();
		if (ret)
			return -ret;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

/* The oracle: whether we may open /proc/PID/maps (ptrace-read, fs creds). */
static int maps_errno(void *arg)
{
	const struct job *j = arg;
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/maps", j->pid);
	fd = job_open(j, path);
	if (fd < 0)
		return -fd;
	close(fd);
	return 0;
}

static int open_dev_errno(void *arg)
{
	int fd = open(DEV, O_RDONLY | O_CLOEXEC);

	(void)arg;
	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

/* As the unprivileged user: snapshot job->pid; 0 or errno (EACCES, ...). */
static int snapshot_errno(void *arg)
{
	const struct job *j = arg;
	struct mw_snap s;
	struct mw_why why;
	int fd = job_open(j, DEV), ret;

	if (fd < 0)
		return -fd;
	ret = mw_snapshot(fd, j->pid, 0, 0, MEMWALK_SNAP_ALL, BUF, BUF, &s, &why);
	if (ret < 0)
		fprintf(stderr, "# %s\n", why.msg);
	if (!ret)
		mw_snap_free(&s);
	close(fd);
	return ret < 0 ? BAD_ANSWER : ret;
}

/* As the unprivileged user: translate job->addr; PFNs and tables hidden. */
static int translate_hidden(void *arg)
{
	const struct job *j = arg;
	struct memwalk_translate t = { .size = sizeof(t), .pid = j->pid, .addr = j->addr };
	int fd = open(DEV, O_RDONLY | O_CLOEXEC), ret;
	unsigned int i;

	if (fd < 0)
		return errno;
	ret = ioctl(fd, MEMWALK_IOC_TRANSLATE, &t) ? errno : 0;
	close(fd);
	if (ret)
		return ret;
	if (t.nr_levels != j->levels || t.page.nr_pages != 1 ||
	    mw_run_state(&t.page) != MEMWALK_STATE_PRESENT) {
		fprintf(stderr, "# %u levels (want %u), page of %u pages, flags %#x\n",
			t.nr_levels, j->levels, t.page.nr_pages, t.page.flags);
		return BAD_ANSWER;
	}
	for (i = 0; i < t.nr_levels; i++) {
		if (t.levels[i].table_pa || (t.levels[i].entry & MW_E_ADDR_MASK) ||
		    !(t.levels[i].entry & 1)) {
			fprintf(stderr, "# level %u: table %#llx entry %#llx\n", i,
				(unsigned long long)t.levels[i].table_pa,
				(unsigned long long)t.levels[i].entry);
			return PFN_SHOWN;
		}
	}
	if (t.page.pfn)
		return PFN_SHOWN;
	return mw_folio_hidden(&t.page) ? 0 : FOLIO_SHOWN;
}

/* As the unprivileged user: translate job->addr into job->ans->t; errno. */
static int translate_into(void *arg)
{
	const struct job *j = arg;
	struct memwalk_translate *t = &j->ans->t;
	int fd = open(DEV, O_RDONLY | O_CLOEXEC), ret;

	if (fd < 0)
		return errno;
	memset(t, 0, sizeof(*t));
	t->size = sizeof(*t);
	t->pid = j->pid;
	t->addr = j->addr;
	ret = ioctl(fd, MEMWALK_IOC_TRANSLATE, t) ? errno : 0;
	close(fd);
	return ret;
}

/*
 * As the unprivileged user: map job->path shared, read-only and untouched,
 * and compare what mincore() and a snapshot of our own process say of it
 * (job->ans); also translate its first page into job->ans->t.  0 or errno.
 */
static int shmem_look(void *arg)
{
	const struct job *j = arg;
	struct answer *a = j->ans;
	unsigned char vec[SHM_PAGES];
	size_t len = SHM_PAGES * MW_PAGE, k, ri;
	struct mw_snap s;
	struct mw_why why;
	int fd, dev, ret;
	uint8_t *p;

	/* Becoming the user made us undumpable, so unreadable in lab mode. */
	if (prctl(PR_SET_DUMPABLE, 1, 0, 0, 0))
		return errno;
	fd = open(j->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno;
	p = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (p == MAP_FAILED || mincore(p, len, vec))
		return errno;
	dev = open(DEV, O_RDONLY | O_CLOEXEC);
	if (dev < 0)
		return errno;
	ret = mw_snapshot(dev, getpid(), (uintptr_t)p, (uintptr_t)p + len,
			  MEMWALK_SNAP_PAGES, BUF, BUF, &s, &why);
	close(dev);
	if (ret) {
		fprintf(stderr, "# snapshot: %s\n", why.msg);
		return ret < 0 ? BAD_ANSWER : ret;
	}
	ri = 0;
	for (k = 0; k < SHM_PAGES; k++) {
		uint64_t addr = (uintptr_t)p + k * MW_PAGE;
		bool swap;

		while (ri < s.nr_runs && mw_run_end(&s.runs[ri]) <= addr)
			ri++;
		swap = ri < s.nr_runs && s.runs[ri].start <= addr &&
		       mw_run_state(&s.runs[ri]) == MEMWALK_STATE_SHMEM_SWAP;
		a->not_resident += !(vec[k] & 1);
		a->shmem_swap += swap;
		a->swap_but_resident += swap && (vec[k] & 1);
	}
	mw_snap_free(&s);
	return translate_into(&(struct job){ .pid = getpid(), .addr = (uintptr_t)p,
					     .ans = a });
}

static int translate_errno(void *arg)
{
	const struct job *j = arg;
	struct memwalk_translate t = { .size = sizeof(t), .pid = j->pid, .addr = j->addr };
	int fd = job_open(j, DEV), ret;

	if (fd < 0)
		return -fd;
	ret = ioctl(fd, MEMWALK_IOC_TRANSLATE, &t) ? errno : 0;
	close(fd);
	return ret;
}

FIXTURE(lab) {
	int fd;
	struct memwalk_info info;
	struct mw_target t;
	mode_t mode;
	pid_t child;		/* start_setuid_child() */
	char dir[64];		/* a tmpfs mounted for the test, or "" */
	struct answer *ans;	/* shared with the unprivileged children */
};

FIXTURE_SETUP(lab)
{
	char param[8] = "";
	struct stat st;

	self->t.pid = -1;
	self->t.to = self->t.from = -1;
	self->fd = -1;
	self->child = -1;
	self->dir[0] = '\0';
	self->ans = mmap(NULL, sizeof(*self->ans), PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, self->ans);
	ASSERT_EQ(0, geteuid()) TH_LOG("these tests need root");
	ASSERT_TRUE(!mw_read_file(LAB_PARAM, param, sizeof(param)) && param[0] == 'Y')
		TH_LOG("memwalk not loaded with lab_mode=1 (%s: \"%.4s\"): selftests.sh runs this in its lab pass",
		       LAB_PARAM, param);
	ASSERT_EQ(0, stat(DEV, &st));
	self->mode = st.st_mode & 07777;
	self->fd = open(DEV, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, self->fd);
	self->info.size = sizeof(self->info);
	ASSERT_EQ(0, ioctl(self->fd, MEMWALK_IOC_INFO, &self->info));
	mw_task_size = mw_task_size_for(self->info.pgtable_levels);
}

static void child_kill(pid_t *pid)
{
	if (*pid <= 0)
		return;
	kill(*pid, SIGKILL);
	waitpid(*pid, NULL, 0);
	*pid = -1;
}

FIXTURE_TEARDOWN(lab)
{
	mw_target_kill(&self->t);
	child_kill(&self->child);
	if (self->dir[0]) {
		umount2(self->dir, MNT_DETACH);
		rmdir(self->dir);
	}
	if (self->ans != MAP_FAILED)
		munmap(self->ans, sizeof(*self->ans));
	if (self->fd >= 0)
		close(self->fd);
}

/* Start memwalk_target as @uid with @args; wait until it is ready. */
static void start_target(struct __test_metadata *_metadata, struct mw_target *t,
			 uid_t uid, const char *const args[], bool states)
{
	ASSERT_EQ(0, mw_target_start(t, uid, args));
	if (states) {
		ASSERT_EQ(0, mw_target_expect(t, "built", READY_MS)) TH_LOG("%s", t->notes);
		ASSERT_EQ(0, mw_target_send(t, "go\n"));
	}
	ASSERT_EQ(0, mw_target_expect(t, "ready", READY_MS)) TH_LOG("%s", t->notes);
	ASSERT_EQ(0, mw_target_freeze(t));
}

/* Something mapped in start_setuid_child()'s child: it is our fork. */
static int lab_anchor;

/*
 * A child of uid and gid MW_NOBODY, dumpable, that keeps its permitted
 * capabilities across setresuid() (PR_SET_KEEPCAPS) if @keepcaps; its pid
 * once it is so, or -1.
 */
static pid_t start_setuid_child(bool keepcaps)
{
	int p[2];
	pid_t pid;
	char c;

	if (pipe2(p, O_CLOEXEC))
		return -1;
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		close(p[0]);
		if ((keepcaps && prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0)) ||
		    setgroups(0, NULL) ||
		    setresgid(MW_NOBODY, MW_NOBODY, MW_NOBODY) ||
		    setresuid(MW_NOBODY, MW_NOBODY, MW_NOBODY) ||
		    prctl(PR_SET_DUMPABLE, 1, 0, 0, 0) || write(p[1], "r", 1) != 1)
			_exit(126);
		for (;;)
			pause();
	}
	close(p[1]);
	if (pid > 0 && read(p[0], &c, 1) != 1)
		child_kill(&pid);
	close(p[0]);
	return pid;
}

/* CapPrm of @pid (/proc/PID/status), or ~0 if it cannot be read. */
static uint64_t cap_permitted(pid_t pid)
{
	char path[64], buf[4096], *line;
	unsigned long long caps;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	if (mw_read_file(path, buf, sizeof(buf)))
		return ~0ULL;
	line = strstr(buf, "\nCapPrm:");
	if (!line || sscanf(line, "\nCapPrm: %llx", &caps) != 1)
		return ~0ULL;
	return caps;
}

/*
 * A tmpfs file at @path of SHM_PAGES written pages, mode 0644, owned by
 * @owner, the first half of it paged out to swap (and out of the swap
 * cache: mincore() says so).  0, or -1 with @why set.
 */
static int make_swapped_file(const char *path, uid_t owner, struct mw_why *why)
{
	size_t len = SHM_PAGES * MW_PAGE, k;
	unsigned char vec[SHM_PAGES];
	uint8_t *p;
	int fd;

	fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0 || ftruncate(fd, len) || fchown(fd, owner, owner) ||
	    fchmod(fd, 0644)) {
		mw_why_set(why, "%s: %s", path, strerror(errno));
		return -1;
	}
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (p == MAP_FAILED) {
		mw_why_set(why, "mmap %s: %s", path, strerror(errno));
		return -1;
	}
	for (k = 0; k < SHM_PAGES; k++)
		p[k * MW_PAGE] = k + 1;
	if (mw_page_out(p, len / 2, why)) {
		munmap(p, len);
		return -1;
	}
	/* The other half stays. */
	if (mincore(p, len, vec)) {
		mw_why_set(why, "mincore %s: %s", path, strerror(errno));
		munmap(p, len);
		return -1;
	}
	munmap(p, len);
	for (k = SHM_PAGES / 2; k < SHM_PAGES; k++)
		if (!(vec[k] & 1)) {
			mw_why_set(why, "%s: page %zu not resident after MADV_PAGEOUT of the first half",
				   path, k);
			return -1;
		}
	return 0;
}

/* Lab mode creates the node for everybody (chardev.c). */
TEST_F(lab, device_node_0666)
{
	EXPECT_EQ(0666, self->mode);
}

TEST_F(lab, unprivileged_open_allowed)
{
	EXPECT_EQ(0, mw_as_user(MW_NOBODY, open_dev_errno, NULL));
}

/* No PFN, no table address and no folio state, which root's answer has. */
TEST_F(lab, same_uid_translate_hidden)
{
	const char *args[] = { "idle", NULL };
	struct memwalk_translate t = { .size = sizeof(t) };
	struct job j = {};

	start_target(_metadata, &self->t, MW_NOBODY, args, false);
	j.pid = self->t.pid;
	j.addr = mw_target_region(&self->t, "idle")->start + MW_PAGE;
	j.levels = self->info.pgtable_levels;
	t.pid = j.pid;
	t.addr = j.addr;
	ASSERT_EQ(0, ioctl(self->fd, MEMWALK_IOC_TRANSLATE, &t));
	EXPECT_NE(0, t.page.refcount);
	EXPECT_NE(0, t.page.folio_flags);
	EXPECT_EQ(0, mw_as_user(MW_NOBODY, translate_hidden, &j));
}

/*
 * A swap entry's offset (inverted in bits 9-58 on x86-64) is hidden in the
 * raw entry too; its type and flag bits are what root sees.
 */
TEST_F(lab, same_uid_translate_swap_offset_hidden)
{
	const char *args[] = { "states", "--no-mlock", "--tmpfs", "/tmp", NULL };
	struct memwalk_translate t = { .size = sizeof(t) };
	const struct memwalk_translate *lt = &self->ans->t;
	const struct mw_region *reg;
	uint64_t leaf, lab_leaf;
	struct job j = {};

	start_target(_metadata, &self->t, MW_NOBODY, args, true);
	reg = MW_REGION(&self->t, "swapped");
	t.pid = self->t.pid;
	t.addr = reg->start;
	ASSERT_EQ(0, ioctl(self->fd, MEMWALK_IOC_TRANSLATE, &t));
	ASSERT_EQ(MEMWALK_STATE_SWAP, mw_run_state(&t.page));
	ASSERT_EQ(self->info.pgtable_levels, t.nr_levels);
	leaf = t.levels[t.nr_levels - 1].entry;
	/* Root's entry holds the offset its page run gives. */
	EXPECT_EQ(t.page.pfn, MW_E_SWP_OFFSET(leaf))
		TH_LOG("entry %#llx, offset %#llx", (unsigned long long)leaf,
		       (unsigned long long)t.page.pfn);
	j.pid = t.pid;
	j.addr = t.addr;
	j.ans = self->ans;
	ASSERT_EQ(0, mw_as_user(MW_NOBODY, translate_into, &j));
	ASSERT_EQ(MEMWALK_STATE_SWAP, mw_run_state(&lt->page));
	ASSERT_EQ(t.nr_levels, lt->nr_levels);
	lab_leaf = lt->levels[lt->nr_levels - 1].entry;
	EXPECT_EQ(0, lab_leaf & MW_E_SWP_OFFSET_BITS)
		TH_LOG("lab entry %#llx, root's %#llx", (unsigned long long)lab_leaf,
		       (unsigned long long)leaf);
	EXPECT_EQ(leaf & ~MW_E_SWP_OFFSET_BITS, lab_leaf & ~MW_E_SWP_OFFSET_BITS);
	EXPECT_EQ(0, lt->page.pfn);
}

/*
 * Which pages of a shmem file are in swap is page-cache state: mincore()
 * tells it only for files the caller owns or could open for writing
 * (can_do_mincore() in mm/mincore.c), and memwalk's shmem-swap runs only
 * there too.  The caller maps both files itself, untouched.
 */
TEST_F(lab, shmem_swap_only_where_mincore_tells)
{
	char theirs[128], mine[128];
	struct mw_why why;
	struct job j = { .ans = self->ans };

	if (!mw_swap_on())
		SKIP(return, "no swap device in this guest (/proc/swaps)");
	strcpy(self->dir, "/tmp/memwalk-lab.XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->dir));
	ASSERT_EQ(0, mount("tmpfs", self->dir, "tmpfs", 0, "mode=0755"))
		TH_LOG("mount tmpfs on %s: %s", self->dir, strerror(errno));
	snprintf(theirs, sizeof(theirs), "%s/root-owned", self->dir);
	snprintf(mine, sizeof(mine), "%s/nobody-owned", self->dir);
	ASSERT_EQ(0, make_swapped_file(theirs, 0, &why)) TH_LOG("%s", why.msg);
	ASSERT_EQ(0, make_swapped_file(mine, MW_NOBODY, &why)) TH_LOG("%s", why.msg);

	/* Root's file, readable only: mincore() says "all resident". */
	j.path = theirs;
	ASSERT_EQ(0, mw_as_user(MW_NOBODY, shmem_look, &j));
	EXPECT_EQ(0, self->ans->not_resident);
	EXPECT_EQ(0, self->ans->shmem_swap);
	EXPECT_EQ(0, self->ans->t.page.nr_pages)
		TH_LOG("translate: state %u", mw_run_state(&self->ans->t.page));

	/* Our own file: mincore() and memwalk see the same pages out. */
	memset(self->ans, 0, sizeof(*self->ans));
	j.path = mine;
	ASSERT_EQ(0, mw_as_user(MW_NOBODY, shmem_look, &j));
	EXPECT_EQ(SHM_PAGES / 2, self->ans->not_resident);
	EXPECT_EQ(SHM_PAGES / 2, self->ans->shmem_swap);
	EXPECT_EQ(0, self->ans->swap_but_resident);
	EXPECT_EQ(MEMWALK_STATE_SHMEM_SWAP, mw_run_state(&self->ans->t.page));
}

/* Root's process: another uid. */
TEST_F(lab, other_uid_eacces)
{
	const char *args[] = { "idle", NULL };
	struct job j = {};

	start_target(_metadata, &self->t, 0, args, false);
	j.pid = self->t.pid;
	EXPECT_EQ(EACCES, mw_as_user(MW_NOBODY, snapshot_errno, &j));
}

TEST_F(lab, other_uid_translate_eacces)
{
	const char *args[] = { "idle", NULL };
	struct job j = {};

	start_target(_metadata, &self->t, 0, args, false);
	j.pid = self->t.pid;
	j.addr = mw_target_region(&self->t, "idle")->start;
	EXPECT_EQ(EACCES, mw_as_user(MW_NOBODY, translate_errno, &j));
}

/*
 * A process of ours holding capabilities we lack: ptrace-read refuses it
 * (cap_ptrace_access_check(): its permitted set must lie within our
 * effective one), so /proc/PID/maps says EACCES, and so must memwalk.
 * The same process without them lets both in.
 */
TEST_F(lab, same_uid_more_caps_eacces_like_maps)
{
	struct job j = { .addr = (uintptr_t)&lab_anchor };

	self->child = start_setuid_child(false);
	ASSERT_LT(0, self->child);
	ASSERT_EQ(0, cap_permitted(self->child));
	j.pid = self->child;
	EXPECT_EQ(0, mw_as_user(MW_NOBODY, maps_errno, &j));
	EXPECT_EQ(0, mw_as_user(MW_NOBODY, snapshot_errno, &j));
	EXPECT_EQ(0, mw_as_user(MW_NOBODY, translate_errno, &j));
	child_kill(&self->child);

	self->child = start_setuid_child(true);
	ASSERT_LT(0, self->child);
	ASSERT_NE(0, cap_permitted(self->child)) TH_LOG("PR_SET_KEEPCAPS kept nothing");
	j.pid = self->child;
	EXPECT_EQ(EACCES, mw_as_user(MW_NOBODY, maps_errno, &j));
	EXPECT_EQ(EACCES, mw_as_user(MW_NOBODY, snapshot_errno, &j));
	EXPECT_EQ(EACCES, mw_as_user(MW_NOBODY, translate_errno, &j));
}

/*
 * A caller in a user namespace of its own (root there, mapped to its own
 * uid) looking at its uid's process outside: ptrace-read refuses it
 * (not the target's namespace, no CAP_SYS_PTRACE in that one), and so
 * must memwalk.  Outside the namespace both let it in.
 */
TEST_F(lab, userns_caller_eacces_like_maps)
{
	const char *args[] = { "idle", NULL };
	struct job j = {};
	int ret;

	start_target(_metadata, &self->t, MW_NOBODY, args, false);
	j.pid = self->t.pid;
	j.addr = mw_target_region(&self->t, "idle")->start;
	EXPECT_EQ(0, mw_as_user(MW_NOBODY, maps_errno, &j));
	EXPECT_EQ(0, mw_as_user(MW_NOBODY, snapshot_errno, &j));

	j.userns = true;
	ret = mw_as_user(MW_NOBODY, maps_errno, &j);
	if (ret == NO_USERNS && access("/proc/self/ns/user", F_OK))
		SKIP(return, "kernel without user namespaces (CONFIG_USER_NS)");
	ASSERT_NE(NO_USERNS, ret);
	EXPECT_EQ(EACCES, ret);
	EXPECT_EQ(EACCES, mw_as_user(MW_NOBODY, snapshot_errno, &j));
	EXPECT_EQ(EACCES, mw_as_user(MW_NOBODY, translate_errno, &j));
}

/* Its own process, made non-dumpable: refused like ptrace would be. */
TEST_F(lab, not_dumpable_eacces)
{
	const char *args[] = { "idle", "--no-dumpable", NULL };
	struct job j = {};

	start_target(_metadata, &self->t, MW_NOBODY, args, false);
	j.pid = self->t.pid;
	EXPECT_EQ(EACCES, mw_as_user(MW_NOBODY, snapshot_errno, &j));
}

/* init: root's, and the most interesting process to hide. */
TEST_F(lab, init_eacces)
{
	struct job j = { .pid = 1 };

	EXPECT_EQ(EACCES, mw_as_user(MW_NOBODY, snapshot_errno, &j));
}

TEST_F(lab, kernel_thread_esrch)
{
	struct job j = { .pid = 2 };

	EXPECT_EQ(ESRCH, mw_as_user(MW_NOBODY, snapshot_errno, &j));
}

/* Root keeps full access in lab mode: PFNs of the unprivileged target. */
TEST_F(lab, root_sees_pfns)
{
	const char *args[] = { "idle", NULL };
	struct mw_logcap cap = MW_LOGCAP(MW_LOG_FIRST);
	const struct mw_region *reg;
	struct mw_snap s;
	struct mw_why why;
	char buf[256];
	uint64_t pm;
	size_t i;

	start_target(_metadata, &self->t, MW_NOBODY, args, false);
	reg = mw_target_region(&self->t, "idle");
	ASSERT_EQ(0, mw_snapshot(self->fd, self->t.pid, reg->start, reg->end,
				 MEMWALK_SNAP_ALL, BUF, BUF, &s, &why)) TH_LOG("%s", why.msg);
	ASSERT_EQ(1, s.nr_vmas);
	ASSERT_LE(1, s.nr_runs);
	for (i = 0; i < s.nr_runs; i++) {
		ASSERT_EQ(0, mw_pagemap_read(self->t.pid, s.runs[i].start, 1, &pm));
		MW_EXPECT_CAPPED(&cap, s.runs[i].pfn && (pm & PM_PFN_MASK) == s.runs[i].pfn,
				 "pagemap %#llx, %s", (unsigned long long)pm,
				 mw_run_str(&s.runs[i], buf, sizeof(buf)));
	}
	MW_LOG_REST(&cap, "runs without pagemap's PFN");
	mw_snap_free(&s);
}

TEST_HARNESS_MAIN

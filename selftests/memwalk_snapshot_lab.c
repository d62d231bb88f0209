// SPDX-License-Identifier: GPL-2.0
/*
 * memwalk's lab mode (module parameter lab_mode=1): unprivileged users may
 * open /dev/memwalk and snapshot or translate their own dumpable processes
 * (real, effective and saved uid and gid all theirs), with PFNs and swap
 * offsets hidden; any other process is refused with EACCES (module/
 * target.c), and root keeps full access.
 *
 * Needs root and the module loaded with lab_mode=1 (the tests skip
 * otherwise); uid/gid 65534 is the unprivileged user, memwalk_target is
 * next to this program (or $MEMWALK_TARGET) and executable by it.
 */
#include "kselftest_harness.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <linux/memwalk.h>

#include "memwalk_snapshot_lib.h"
#include "memwalk_util.h"

#define DEV		MEMWALK_DEVICE_PATH
#define LAB_PARAM	"/sys/module/memwalk/parameters/lab_mode"
#define READY_MS	60000
#define BUF		(4UL << 20)
#define PTE_ADDR_MASK	0x000ffffffffff000ULL

/* Codes the unprivileged children return (beyond errno values). */
#define BAD_ANSWER	200	/* the snapshot broke a rule: see stderr */
#define PFN_SHOWN	201	/* a PFN or swap offset leaked */
#define DIFFERS		202	/* differs from pagemap: see stderr */

struct job {
	pid_t pid;
	uint64_t addr;
	unsigned int levels;
};

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
	int fd = open(DEV, O_RDONLY | O_CLOEXEC), ret;

	if (fd < 0)
		return errno;
	ret = mw_snapshot(fd, j->pid, 0, 0, MEMWALK_SNAP_ALL, BUF, BUF, &s, &why);
	if (ret < 0)
		fprintf(stderr, "# %s\n", why.msg);
	if (!ret)
		mw_snap_free(&s);
	close(fd);
	return ret < 0 ? BAD_ANSWER : ret;
}

/*
 * As the unprivileged user: the whole snapshot of its own process, with no
 * PFN and no swap offset, and each page present or swapped exactly where
 * pagemap (which hides PFNs from us too) says so.
 */
static int snapshot_hidden(void *arg)
{
	const struct job *j = arg;
	int fd = open(DEV, O_RDONLY | O_CLOEXEC), ret = 0;
	size_t i, k, ri, swapped = 0, present = 0;
	struct mw_snap s;
	struct mw_why why;

	if (fd < 0)
		return errno;
	/* PFN lists of hidden PFNs would tell nothing: none are made. */
	ret = mw_snapshot(fd, j->pid, 0, 0, MEMWALK_SNAP_VMAS | MEMWALK_SNAP_PAGES |
			  MEMWALK_SNAP_ENTRY_ONLY | MEMWALK_SNAP_PFN_LIST, BUF, BUF, &s, &why);
	if (!ret && s.nr_listed) {
		fprintf(stderr, "# %zu runs listed PFNs in lab mode\n", s.nr_listed);
		ret = PFN_SHOWN;
	}
	if (!ret)
		mw_snap_free(&s);
	if (!ret)
		ret = mw_snapshot(fd, j->pid, 0, 0, MEMWALK_SNAP_ALL, BUF, BUF, &s, &why);
	close(fd);
	if (ret) {
		if (ret != PFN_SHOWN)
			fprintf(stderr, "# snapshot: %s\n", why.msg);
		else
			mw_snap_free(&s);
		return ret < 0 ? BAD_ANSWER : ret;
	}
	for (i = 0; i < s.nr_runs; i++) {
		if (s.runs[i].pfn) {
			fprintf(stderr, "# run at %#llx has pfn %#llx\n",
				(unsigned long long)s.runs[i].start,
				(unsigned long long)s.runs[i].pfn);
			ret = PFN_SHOWN;
			goto out;
		}
	}
	for (i = 0; i < s.nr_vmas; i++) {
		const struct mw_vma *v = &s.vmas[i];
		size_t n = (v->rec.end - v->rec.start) >> MW_PAGE_SHIFT;
		uint64_t *pm = malloc(n * sizeof(*pm));

		if (!pm || mw_pagemap_read(j->pid, v->rec.start, n, pm)) {
			free(pm);
			ret = EIO;
			goto out;
		}
		ri = mw_run_find(s.runs, s.nr_runs, v->rec.start);
		for (k = 0; k < n; k++) {
			uint64_t addr = v->rec.start + k * MW_PAGE;
			unsigned int state = 0;

			while (ri < s.nr_runs && mw_run_end(&s.runs[ri]) <= addr)
				ri++;
			if (ri < s.nr_runs && s.runs[ri].start <= addr)
				state = mw_run_state(&s.runs[ri]);
			present += state == MEMWALK_STATE_PRESENT;
			swapped += state == MEMWALK_STATE_SWAP;
			if ((state == MEMWALK_STATE_PRESENT) != !!(pm[k] & PM_PRESENT) ||
			    (state == MEMWALK_STATE_SWAP) != !!(pm[k] & PM_SWAP) ||
			    (pm[k] & PM_PFN_MASK)) {
				fprintf(stderr, "# %#llx (%s): state %u, pagemap %#llx\n",
					(unsigned long long)addr, v->name, state,
					(unsigned long long)pm[k]);
				ret = DIFFERS;
			}
		}
		free(pm);
	}
	fprintf(stderr, "# %zu present and %zu swapped pages, none with a PFN\n",
		present, swapped);
	if (!present)
		ret = DIFFERS;
out:
	mw_snap_free(&s);
	return ret;
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
		if (t.levels[i].table_pa || (t.levels[i].entry & PTE_ADDR_MASK) ||
		    !(t.levels[i].entry & 1)) {
			fprintf(stderr, "# level %u: table %#llx entry %#llx\n", i,
				(unsigned long long)t.levels[i].table_pa,
				(unsigned long long)t.levels[i].entry);
			return PFN_SHOWN;
		}
	}
	return t.page.pfn ? PFN_SHOWN : 0;
}

static int translate_errno(void *arg)
{
	const struct job *j = arg;
	struct memwalk_translate t = { .size = sizeof(t), .pid = j->pid, .addr = j->addr };
	int fd = open(DEV, O_RDONLY | O_CLOEXEC), ret;

	if (fd < 0)
		return errno;
	ret = ioctl(fd, MEMWALK_IOC_TRANSLATE, &t) ? errno : 0;
	close(fd);
	return ret;
}

FIXTURE(lab) {
	int fd;
	struct memwalk_info info;
	struct mw_target t;
	mode_t mode;
	bool skip;
};

FIXTURE_SETUP(lab)
{
	char param[8] = "";
	struct stat st;

	self->t.pid = -1;
	self->t.to = self->t.from = -1;
	self->fd = -1;
	ASSERT_EQ(0, geteuid()) TH_LOG("these tests need root");
	if (mw_read_file(LAB_PARAM, param, sizeof(param)) || param[0] != 'Y') {
		self->skip = true;
		SKIP(return, "memwalk not loaded with lab_mode=1 (%s: \"%.4s\")",
		     LAB_PARAM, param);
	}
	ASSERT_EQ(0, stat(DEV, &st));
	self->mode = st.st_mode & 07777;
	self->fd = open(DEV, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, self->fd);
	self->info.size = sizeof(self->info);
	ASSERT_EQ(0, ioctl(self->fd, MEMWALK_IOC_INFO, &self->info));
	mw_task_size = mw_task_size_for(self->info.pgtable_levels);
}

FIXTURE_TEARDOWN(lab)
{
	mw_target_kill(&self->t);
	if (self->fd >= 0)
		close(self->fd);
}

#define SETUP_OK() do { if (self->skip) return; } while (0)

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

/* Lab mode creates the node for everybody (chardev.c). */
TEST_F(lab, device_node_0666)
{
	SETUP_OK();
	EXPECT_EQ(0666, self->mode);
}

TEST_F(lab, unprivileged_open_allowed)
{
	SETUP_OK();
	EXPECT_EQ(0, mw_as_user(MW_NOBODY, open_dev_errno, NULL));
}

TEST_F(lab, same_uid_dumpable_pfns_hidden)
{
	const char *args[] = { "states", "--no-mlock", "--tmpfs", "/tmp", NULL };
	struct job j;

	SETUP_OK();
	start_target(_metadata, &self->t, MW_NOBODY, args, true);
	j.pid = self->t.pid;
	EXPECT_EQ(0, mw_as_user(MW_NOBODY, snapshot_hidden, &j))
		TH_LOG("target: %s", self->t.notes);
}

/* The swap offsets are hidden too: the region the target paged out. */
TEST_F(lab, same_uid_swap_offsets_hidden)
{
	const char *args[] = { "states", "--no-mlock", "--tmpfs", "/tmp", NULL };
	const struct mw_region *reg;
	size_t i, swapped = 0;
	struct mw_snap s;
	struct mw_why why;
	struct job j;

	SETUP_OK();
	start_target(_metadata, &self->t, MW_NOBODY, args, true);
	reg = mw_target_region(&self->t, "swapped");
	if (!reg)
		SKIP(return, "target could not page out: %.900s", self->t.notes);
	/* Root sees the offsets... */
	ASSERT_EQ(0, mw_snapshot(self->fd, self->t.pid, reg->start, reg->end,
				 MEMWALK_SNAP_PAGES, BUF, BUF, &s, &why)) TH_LOG("%s", why.msg);
	for (i = 0; i < s.nr_runs; i++)
		if (mw_run_state(&s.runs[i]) == MEMWALK_STATE_SWAP) {
			EXPECT_NE(0, s.runs[i].pfn);
			swapped += s.runs[i].nr_pages;
		}
	EXPECT_EQ(16, swapped);
	mw_snap_free(&s);
	/* ... and the owner does not (snapshot_hidden checks every run). */
	j.pid = self->t.pid;
	EXPECT_EQ(0, mw_as_user(MW_NOBODY, snapshot_hidden, &j));
}

TEST_F(lab, same_uid_translate_hidden)
{
	const char *args[] = { "idle", NULL };
	struct job j;

	SETUP_OK();
	start_target(_metadata, &self->t, MW_NOBODY, args, false);
	j.pid = self->t.pid;
	j.addr = mw_target_region(&self->t, "idle")->start + MW_PAGE;
	j.levels = self->info.pgtable_levels;
	EXPECT_EQ(0, mw_as_user(MW_NOBODY, translate_hidden, &j));
}

/* Root's process: another uid. */
TEST_F(lab, other_uid_eacces)
{
	const char *args[] = { "idle", NULL };
	struct job j;

	SETUP_OK();
	start_target(_metadata, &self->t, 0, args, false);
	j.pid = self->t.pid;
	EXPECT_EQ(EACCES, mw_as_user(MW_NOBODY, snapshot_errno, &j));
}

TEST_F(lab, other_uid_translate_eacces)
{
	const char *args[] = { "idle", NULL };
	struct job j;

	SETUP_OK();
	start_target(_metadata, &self->t, 0, args, false);
	j.pid = self->t.pid;
	j.addr = mw_target_region(&self->t, "idle")->start;
	EXPECT_EQ(EACCES, mw_as_user(MW_NOBODY, translate_errno, &j));
}

/* Its own process, made non-dumpable: refused like ptrace would be. */
TEST_F(lab, not_dumpable_eacces)
{
	const char *args[] = { "idle", "--no-dumpable", NULL };
	struct job j;

	SETUP_OK();
	start_target(_metadata, &self->t, MW_NOBODY, args, false);
	j.pid = self->t.pid;
	EXPECT_EQ(EACCES, mw_as_user(MW_NOBODY, snapshot_errno, &j));
}

/* init: root's, and the most interesting process to hide. */
TEST_F(lab, init_eacces)
{
	struct job j = { .pid = 1 };

	SETUP_OK();
	EXPECT_EQ(EACCES, mw_as_user(MW_NOBODY, snapshot_errno, &j));
}

TEST_F(lab, kernel_thread_esrch)
{
	struct job j = { .pid = 2 };

	SETUP_OK();
	EXPECT_EQ(ESRCH, mw_as_user(MW_NOBODY, snapshot_errno, &j));
}

/* Root keeps full access in lab mode: PFNs of the unprivileged target. */
TEST_F(lab, root_sees_pfns)
{
	const char *args[] = { "idle", NULL };
	const struct mw_region *reg;
	struct mw_snap s;
	struct mw_why why;
	uint64_t pm;
	size_t i;

	SETUP_OK();
	start_target(_metadata, &self->t, MW_NOBODY, args, false);
	reg = mw_target_region(&self->t, "idle");
	ASSERT_EQ(0, mw_snapshot(self->fd, self->t.pid, reg->start, reg->end,
				 MEMWALK_SNAP_ALL, BUF, BUF, &s, &why)) TH_LOG("%s", why.msg);
	ASSERT_EQ(1, s.nr_vmas);
	ASSERT_LE(1, s.nr_runs);
	for (i = 0; i < s.nr_runs; i++) {
		ASSERT_EQ(0, mw_pagemap_read(self->t.pid, s.runs[i].start, 1, &pm));
		EXPECT_EQ(pm & PM_PFN_MASK, s.runs[i].pfn);
		EXPECT_NE(0, s.runs[i].pfn);
	}
	mw_snap_free(&s);
}

TEST_HARNESS_MAIN

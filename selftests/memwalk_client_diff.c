// SPDX-License-Identifier: GPL-2.0
/*
 * memwalk-client diff against the kernel's own answer, the first step of
 * every copy-on-write lab: a target writes its anonymous pages, is
 * snapshotted, forks, and both it and its child are snapshotted again;
 * then the child writes one page.  /proc/PID/pagemap is the oracle: a page
 * is shared by the fork where parent and child map the same PFN and
 * PM_MMAP_EXCLUSIVE went away, COW broken where the child's PFN changed
 * and the page became exclusive.  `diff -J` must report exactly those
 * pages, no more and no fewer, in each mode the snapshots can be taken in
 * (what a mode lacks, diff cannot tell: entry-only runs carry no
 * exclusive bit, so the fork is a plain write-protect and the COW break a
 * move to another PFN).
 *
 * Run as root with the module loaded; the client is $MEMWALK_CLIENT.
 */
#include "kselftest_harness.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "memwalk_snapshot_lib.h"
#include "memwalk_util.h"

#define NR_PAGES	16
#define WRITTEN_PAGE	5	/* the page the child writes */

/*
 * The target: maps and writes NR_PAGES anonymous pages, reports their
 * address on @reply, then obeys one-byte commands: 'f' on @cmd_parent
 * forks (the child's PID reported), 'w' on @cmd_child makes the child write
 * WRITTEN_PAGE (then "w" reported).  End of file ends either.
 */
static void __attribute__((noreturn))
target_main(int cmd_parent, int cmd_child, int reply)
{
	size_t len = NR_PAGES * MW_PAGE, i;
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint64_t addr;
	int32_t pid;
	char c;

	if (p == MAP_FAILED)
		_exit(1);
	madvise(p, len, MADV_NOHUGEPAGE);	/* base pages, one PFN each */
	for (i = 0; i < NR_PAGES; i++)
		p[i * MW_PAGE] = (char)(i + 1);
	addr = (uintptr_t)p;
	if (write(reply, &addr, sizeof(addr)) != sizeof(addr))
		_exit(1);
	while (read(cmd_parent, &c, 1) == 1) {
		if (c != 'f')
			continue;
		pid = fork();
		if (pid == 0) {
			while (read(cmd_child, &c, 1) == 1) {
				if (c != 'w')
					continue;
				p[WRITTEN_PAGE * MW_PAGE] = 0x55;
				if (write(reply, "w", 1) != 1)
					_exit(1);
			}
			_exit(0);
		}
		if (write(reply, &pid, sizeof(pid)) != sizeof(pid))
			_exit(1);
	}
	_exit(0);
}

/* pagemap of both processes at one moment */
struct pm {
	uint64_t e[NR_PAGES];
};

static uint64_t pfn(const struct pm *m, int i)
{
	return m->e[i] & PM_PFN_MASK;
}

static bool present(const struct pm *m, int i)
{
	return m->e[i] & PM_PRESENT;
}

static bool exclusive(const struct pm *m, int i)
{
	return m->e[i] & PM_MMAP_EXCLUSIVE;
}

FIXTURE(fork_diff) {
	pid_t parent, child;
	int cmd_parent, cmd_child, reply;
	uint64_t start;
	char dir[32];
	struct pm parent0, parent1, child1;	/* before and after the fork */
};

/* "DIR/NAME.json" */
static const char *snap_path(FIXTURE_DATA(fork_diff) *self, const char *name)
{
	static char buf[4][64];
	static unsigned int n;
	char *p = buf[n++ % 4];

	snprintf(p, sizeof(buf[0]), "%s/%s.json", self->dir, name);
	return p;
}

/* Save a snapshot of @pid's pages as NAME.json: 0, or what went wrong. */
static int take(FIXTURE_DATA(fork_diff) *self, const char *opt, pid_t pid,
		const char *name, struct mw_why *why)
{
	char pid_s[16], range[64];
	const char *argv[] = { mw_client_path(), pid_s, "-J", "--save",
			       snap_path(self, name), "--range", range, opt, NULL };
	char *out, *err;
	int status, ret;

	snprintf(pid_s, sizeof(pid_s), "%d", pid);
	snprintf(range, sizeof(range), "%" PRIx64 "-%" PRIx64, self->start,
		 self->start + NR_PAGES * MW_PAGE);
	ret = mw_capture(argv, &status, &out, &err);
	if (!ret && (!WIFEXITED(status) || WEXITSTATUS(status)))
		ret = -1;
	if (ret)
		mw_why_set(why, "%s %s -J --save %s --range %s %s: status 0x%x, %s",
			   argv[0], pid_s, argv[4], range, opt ? opt : "", status,
			   err ? err : "");
	free(out);
	free(err);
	return ret;
}

struct diff_run {
	int code;		/* exit code, -1 if killed */
	char *out, *err;
};

/* memwalk-client diff [@opt] -J A.json B.json */
static int run_diff(FIXTURE_DATA(fork_diff) *self, const char *opt, const char *a,
		    const char *b, struct diff_run *r)
{
	const char *argv[] = { mw_client_path(), "diff", "-J", snap_path(self, a),
			       snap_path(self, b), NULL, NULL };
	int status, ret;

	if (opt) {
		argv[5] = argv[4];
		argv[4] = argv[3];
		argv[3] = opt;
	}
	ret = mw_capture(argv, &status, &r->out, &r->err);
	r->code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
	return ret;
}

static void diff_free(struct diff_run *r)
{
	free(r->out);
	free(r->err);
}

/*
 * The pages of our region that diff -J output @json reports as @kind
 * (with detail @detail, unless NULL), as a bit mask; -1 if it reports one
 * outside the region or the output is not as documented.
 */
static int64_t kind_pages(const char *json, uint64_t start, const char *kind,
			  const char *detail)
{
	char key[64], d[80];
	const char *p, *end;
	unsigned long long s, e;
	int64_t mask = 0;
	uint64_t a;

	snprintf(key, sizeof(key), "\"kind\":\"%s\"", kind);
	p = strstr(json, key);
	if (!p)
		return 0;
	end = strstr(p + 1, "\"kind\":");
	if (!end)
		end = p + strlen(p);
	while ((p = strstr(p, "\"start\":")) && p < end) {
		if (sscanf(p, "\"start\":%llu,\"end\":%llu", &s, &e) != 2)
			return -1;
		p = strstr(p, "\"detail\":\"");
		if (!p)
			return -1;	/* every range has one */
		if (sscanf(p, "\"detail\":\"%79[^\"]", d) != 1)
			d[0] = '\0';
		p++;
		if (detail && strcmp(d, detail))
			continue;
		for (a = s; a < e; a += MW_PAGE) {
			if (a < start || a >= start + NR_PAGES * MW_PAGE)
				return -1;
			mask |= 1LL << ((a - start) / MW_PAGE);
		}
	}
	return mask;
}

/* The oracle's pages shared by the fork: same PFN, exclusive before, not after. */
static int64_t shared_by_fork(const struct pm *before, const struct pm *after,
			      const struct pm *child)
{
	int64_t mask = 0;
	int i;

	for (i = 0; i < NR_PAGES; i++)
		if (present(before, i) && exclusive(before, i) &&
		    present(after, i) && !exclusive(after, i) &&
		    pfn(after, i) == pfn(before, i) &&
		    present(child, i) && pfn(child, i) == pfn(before, i))
			mask |= 1LL << i;
	return mask;
}

static void read_pagemap(struct __test_metadata *_metadata, pid_t pid, uint64_t start,
			 struct pm *m)
{
	int ret = mw_pagemap_read(pid, start, NR_PAGES, m->e);

	ASSERT_EQ(0, ret) TH_LOG("pagemap of %d: %s", pid, strerror(ret));
}

FIXTURE_VARIANT(fork_diff) {
	const char *opt;		/* the snapshots' mode option */
	const char *wrprotect;		/* the fork's kind of write-protect */
	const char *shared;		/* its kind of sharing, NULL: not seen */
	bool mapcount;			/* mapcount changes seen */
	const char *cow;		/* the kind of the child's write */
};

FIXTURE_VARIANT_ADD(fork_diff, full) {
	.opt = NULL,
	.wrprotect = "wrprotected_cow",
	.shared = "shared_by_fork",
	.mapcount = true,
	.cow = "cow_broken",
};

FIXTURE_VARIANT_ADD(fork_diff, no_folio) {
	.opt = "--no-folio",
	.wrprotect = "wrprotected_cow",
	.shared = "shared_by_fork",
	.mapcount = false,
	.cow = "cow_broken",
};

FIXTURE_VARIANT_ADD(fork_diff, entry_only) {
	.opt = "--entry-only",
	.wrprotect = "wrprotected",
	.shared = NULL,
	.mapcount = false,
	.cow = "pfn_changed",
};

FIXTURE_SETUP(fork_diff)
{
	int cp[2], cc[2], rp[2];
	struct mw_why why = { "" };
	int32_t child;

	self->parent = self->child = -1;
	strcpy(self->dir, "/tmp/mwdiff.XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->dir));
	ASSERT_EQ(0, pipe(cp));
	ASSERT_EQ(0, pipe(cc));
	ASSERT_EQ(0, pipe(rp));
	self->parent = fork();
	ASSERT_LE(0, self->parent);
	if (self->parent == 0) {
		close(cp[1]);
		close(cc[1]);
		close(rp[0]);
		target_main(cp[0], cc[0], rp[1]);
	}
	close(cp[0]);
	close(cc[0]);
	close(rp[1]);
	self->cmd_parent = cp[1];
	self->cmd_child = cc[1];
	self->reply = rp[0];
	ASSERT_EQ(sizeof(self->start), read(self->reply, &self->start, sizeof(self->start)))
		TH_LOG("the target did not report its pages");

	read_pagemap(_metadata, self->parent, self->start, &self->parent0);
	ASSERT_EQ(0, take(self, variant->opt, self->parent, "parent0", &why)) TH_LOG("%s", why.msg);
	ASSERT_EQ(1, write(self->cmd_parent, "f", 1));
	ASSERT_EQ(sizeof(child), read(self->reply, &child, sizeof(child)))
		TH_LOG("the target did not fork");
	self->child = child;
	ASSERT_LT(0, self->child);
	read_pagemap(_metadata, self->parent, self->start, &self->parent1);
	read_pagemap(_metadata, self->child, self->start, &self->child1);
	ASSERT_EQ(0, take(self, variant->opt, self->parent, "parent1", &why)) TH_LOG("%s", why.msg);
	ASSERT_EQ(0, take(self, variant->opt, self->child, "child1", &why)) TH_LOG("%s", why.msg);
	/* The state the tests are about, as the kernel tells it. */
	ASSERT_EQ((1LL << NR_PAGES) - 1,
		  shared_by_fork(&self->parent0, &self->parent1, &self->child1))
		TH_LOG("pagemap: not every written page is shared after fork");
}

FIXTURE_TEARDOWN(fork_diff)
{
	static const char *const names[] = { "parent0", "parent1", "child1",
					     "parent2", "child2" };
	size_t i;

	close(self->cmd_parent);
	close(self->cmd_child);
	close(self->reply);
	if (self->child > 0)
		kill(self->child, SIGKILL);
	if (self->parent > 0) {
		kill(self->parent, SIGKILL);
		waitpid(self->parent, NULL, 0);
	}
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		unlink(snap_path(self, names[i]));
	rmdir(self->dir);
}

/*
 * The fork as diff tells it: exactly the pages pagemap shows shared are
 * write-protected for COW and mapped twice, none moved.
 */
static void check_fork(struct __test_metadata *_metadata,
		       FIXTURE_DATA(fork_diff) *self,
		       const FIXTURE_VARIANT(fork_diff) *variant,
		       const struct diff_run *r)
{
	int64_t want = shared_by_fork(&self->parent0, &self->parent1, &self->child1);

	ASSERT_EQ(1, r->code) TH_LOG("diff: exit %d, %s", r->code, r->err);
	EXPECT_EQ(want, kind_pages(r->out, self->start, variant->wrprotect, NULL))
		TH_LOG("%s: %s", variant->wrprotect, r->out);
	EXPECT_EQ(variant->shared ? want : 0,
		  kind_pages(r->out, self->start, "shared_by_fork", NULL))
		TH_LOG("shared by fork: %s", r->out);
	EXPECT_EQ(variant->mapcount ? want : 0,
		  kind_pages(r->out, self->start, "mapcount", NULL))
		TH_LOG("mapcount: %s", r->out);
	if (variant->mapcount)
		EXPECT_EQ(want, kind_pages(r->out, self->start, "mapcount", "mapcount 1->2"));
	EXPECT_EQ(0, kind_pages(r->out, self->start, "cow_broken", NULL));
	EXPECT_EQ(0, kind_pages(r->out, self->start, "pfn_changed", NULL));
	EXPECT_EQ(0, kind_pages(r->out, self->start, "unmapped", NULL));
}

TEST_F(fork_diff, parent_write_protected)
{
	struct diff_run r;

	ASSERT_EQ(0, run_diff(self, NULL, "parent0", "parent1", &r));
	check_fork(_metadata, self, variant, &r);
	diff_free(&r);
}

/* The child's snapshot is another process's: refused, then forced. */
TEST_F(fork_diff, child_against_parent)
{
	struct diff_run r;

	ASSERT_EQ(0, run_diff(self, NULL, "parent0", "child1", &r));
	EXPECT_EQ(2, r.code);
	EXPECT_NE(NULL, strstr(r.err, "different processes")) TH_LOG("stderr: %s", r.err);
	EXPECT_EQ('\0', r.out[0]) TH_LOG("stdout of a refused diff: %s", r.out);
	diff_free(&r);
	ASSERT_EQ(0, run_diff(self, "--force", "parent0", "child1", &r));
	EXPECT_NE(NULL, strstr(r.err, "compared anyway")) TH_LOG("stderr: %s", r.err);
	check_fork(_metadata, self, variant, &r);
	diff_free(&r);
}

/*
 * The child writes one page: exactly that page is COW broken in the child
 * (a new, exclusive PFN), and in the parent no longer shared, mapped once.
 */
TEST_F(fork_diff, child_write_breaks_cow)
{
	struct mw_why why = { "" };
	struct pm parent2, child2;
	int64_t broken = 0, unshared = 0;
	struct diff_run r;
	char c;
	int i;

	ASSERT_EQ(1, write(self->cmd_child, "w", 1));
	ASSERT_EQ(1, read(self->reply, &c, 1)) TH_LOG("the child did not write");
	read_pagemap(_metadata, self->parent, self->start, &parent2);
	read_pagemap(_metadata, self->child, self->start, &child2);
	ASSERT_EQ(0, take(self, variant->opt, self->parent, "parent2", &why)) TH_LOG("%s", why.msg);
	ASSERT_EQ(0, take(self, variant->opt, self->child, "child2", &why)) TH_LOG("%s", why.msg);
	for (i = 0; i < NR_PAGES; i++) {
		if (present(&child2, i) && exclusive(&child2, i) &&
		    !exclusive(&self->child1, i) && pfn(&child2, i) != pfn(&self->child1, i))
			broken |= 1LL << i;
		if (present(&parent2, i) && exclusive(&parent2, i) &&
		    !exclusive(&self->parent1, i) && pfn(&parent2, i) == pfn(&self->parent1, i))
			unshared |= 1LL << i;
	}
	ASSERT_EQ(1LL << WRITTEN_PAGE, broken) TH_LOG("pagemap: the write broke COW elsewhere");
	ASSERT_EQ(1LL << WRITTEN_PAGE, unshared) TH_LOG("pagemap: the parent's page is still shared");

	ASSERT_EQ(0, run_diff(self, NULL, "child1", "child2", &r));
	EXPECT_EQ(1, r.code) TH_LOG("diff: exit %d, %s", r.code, r.err);
	EXPECT_EQ(broken, kind_pages(r.out, self->start, variant->cow, NULL))
		TH_LOG("%s: %s", variant->cow, r.out);
	EXPECT_EQ(0, kind_pages(r.out, self->start,
				strcmp(variant->cow, "cow_broken") ? "cow_broken" :
				"pfn_changed", NULL));
	EXPECT_EQ(0, kind_pages(r.out, self->start, variant->wrprotect, NULL));
	diff_free(&r);

	/* Without the exclusive bit, nothing in the parent's tables changed. */
	ASSERT_EQ(0, run_diff(self, NULL, "parent1", "parent2", &r));
	EXPECT_EQ(variant->shared ? 1 : 0, r.code) TH_LOG("diff: exit %d, %s %s",
							  r.code, r.out, r.err);
	EXPECT_EQ(variant->shared ? unshared : 0,
		  kind_pages(r.out, self->start, "unshared", NULL))
		TH_LOG("no longer shared: %s", r.out);
	EXPECT_EQ(variant->mapcount ? unshared : 0,
		  kind_pages(r.out, self->start, "mapcount", "mapcount 2->1"))
		TH_LOG("mapcount 2->1: %s", r.out);
	EXPECT_EQ(0, kind_pages(r.out, self->start, "cow_broken", NULL));
	diff_free(&r);
}

TEST_HARNESS_MAIN

// SPDX-License-Identifier: GPL-2.0
/*
 * memwalk-client ps against /proc/PID/smaps_rollup and smaps on two real
 * processes that share memory in known ways: a target (this program run
 * again with MW_PS_TARGET set, so that its memory is its own and not
 * shared with the test's) maps
 *   - anonymous pages, then forks: its child writes to half of them (COW),
 *     the other half stay shared (mapcount 2, Pss halved);
 *   - MAP_SHARED anonymous memory (shmem), partly touched by each;
 *   - a file of the disk file system (page cache; the tmpfs if there is
 *     none), read by both and written by the child in a private mapping;
 *   - a 2 MiB aligned MADV_HUGEPAGE region (an anonymous THP, where the
 *     kernel has THP), which the child writes one byte of;
 *   - a few mlocked pages (Locked), pages paged out to swap where there
 *     is swap (MADV_PAGEOUT), and a hugetlb page where some are reserved;
 * and its text is the static binary's, shared with the test processes.
 * It unmaps its [vdso], the one page the client maps too (see
 * unmap_vdso()).
 *
 * ps -J -b PID... must give, for each, what smaps_rollup says, exactly:
 * Rss, Pss, Swap, USS (Private_Clean + Private_Dirty), Pss_Anon, Pss_File,
 * Pss_Shmem, THP (AnonHugePages + ShmemPmdMapped + FilePmdMapped),
 * Hugetlb and Locked.  smaps_rollup sums Pss over every VMA in 1/4096
 * bytes and shifts it to kB once, at the end; so does ps, so that its
 * bytes are the kB of smaps_rollup times 1024 (per-VMA smaps would round
 * each VMA down and sum to less).  ps --by mapping must give, for the file
 * and for the binary, the sum over both processes of the smaps entries of
 * that file (each rounded as smaps prints it).
 *
 * The kernel is read before and after the client; if the two reads differ
 * (a page moved meanwhile) the comparison is taken again, 3 times at most.
 * Needs root and the module loaded; the client is $MEMWALK_CLIENT.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "memwalk_snapshot_lib.h"
#include "memwalk_util.h"

#ifndef MADV_PAGEOUT
#define MADV_PAGEOUT	21
#endif

#define ANON_PAGES	64
#define SHMEM_PAGES	32
#define FILE_PAGES	32
#define SWAP_PAGES	16
#define LOCK_PAGES	4
#define HPAGE		(2UL << 20)
#define ATTEMPTS	3
#define TARGET_ENV	"MW_PS_TARGET"

/* ---- the target: this program again, with MW_PS_TARGET=FILE -------------- */

static void touch(char *p, size_t pages, bool write)
{
	volatile char sink;
	size_t i;

	for (i = 0; i < pages; i++) {
		if (write)
			p[i * MW_PAGE] = (char)(i + 1);
		else
			sink = p[i * MW_PAGE];
	}
	(void)sink;
}

static void *map(size_t len, int prot, int flags, int fd)
{
	void *p = mmap(NULL, len, prot, flags, fd, 0);

	if (p == MAP_FAILED) {
		printf("error mmap: %s\n", strerror(errno));
		exit(1);
	}
	return p;
}

/*
 * Unmap the [vdso]: every process maps its page, the client too while it
 * walks, so its Pss here would change with the client's own run (an
 * observer effect of a page shared by all); nothing here calls into it.
 */
static void unmap_vdso(void)
{
	unsigned long start, end;
	char line[512];
	FILE *fp = fopen("/proc/self/maps", "re");

	while (fp && fgets(line, sizeof(line), fp))
		if (strstr(line, "[vdso]") && sscanf(line, "%lx-%lx", &start, &end) == 2)
			munmap((void *)start, end - start);
	if (fp)
		fclose(fp);
}

/* Build the states, fork the child, print "pids A B" and wait to be killed. */
static void __attribute__((noreturn)) run_target(const char *file)
{
	char *anon, *shmem, *ro, *rw, *swap, *locked, *thp, *hugetlb;
	int fd, pipefd[2];
	pid_t child;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	unmap_vdso();
	fd = open(file, O_RDONLY);
	if (fd < 0) {
		printf("error open %s: %s\n", file, strerror(errno));
		exit(1);
	}
	anon = map(ANON_PAGES * MW_PAGE, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1);
	madvise(anon, ANON_PAGES * MW_PAGE, MADV_NOHUGEPAGE);
	touch(anon, ANON_PAGES, true);
	shmem = map(SHMEM_PAGES * MW_PAGE, PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_ANONYMOUS, -1);
	touch(shmem, SHMEM_PAGES / 2, true);
	ro = map(FILE_PAGES * MW_PAGE, PROT_READ, MAP_PRIVATE, fd);
	touch(ro, FILE_PAGES, false);
	rw = map(FILE_PAGES * MW_PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd);
	touch(rw, FILE_PAGES, false);
	swap = map(SWAP_PAGES * MW_PAGE, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1);
	madvise(swap, SWAP_PAGES * MW_PAGE, MADV_NOHUGEPAGE);
	touch(swap, SWAP_PAGES, true);
	madvise(swap, SWAP_PAGES * MW_PAGE, MADV_PAGEOUT);	/* where there is swap */
	locked = map(LOCK_PAGES * MW_PAGE, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1);
	if (mlock(locked, LOCK_PAGES * MW_PAGE)) {
		printf("error mlock: %s\n", strerror(errno));
		exit(1);
	}
	thp = map(2 * HPAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1);
	thp = (char *)(((uintptr_t)thp + HPAGE - 1) & ~(HPAGE - 1));
	madvise(thp, HPAGE, MADV_HUGEPAGE);
	touch(thp, HPAGE / MW_PAGE, true);
	/* where hugetlb pages are reserved: one, shared with the child */
	hugetlb = mmap(NULL, HPAGE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);
	if (hugetlb != MAP_FAILED)
		hugetlb[0] = 1;

	if (pipe(pipefd))
		exit(1);
	fflush(stdout);
	child = fork();
	if (child < 0) {
		printf("error fork: %s\n", strerror(errno));
		exit(1);
	}
	if (!child) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		touch(anon, ANON_PAGES / 2, true);		/* COW */
		touch(shmem + SHMEM_PAGES / 4 * MW_PAGE, SHMEM_PAGES / 2, true);
		touch(rw, 2, true);				/* private file COW */
		thp[0] = 2;
		if (write(pipefd[1], "", 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	close(pipefd[1]);
	if (read(pipefd[0], pipefd, 1) != 1) {
		printf("error child: did not start\n");
		exit(1);
	}
	printf("pids %d %d\n", getpid(), child);
	fflush(stdout);
	for (;;)
		pause();
}

static void __attribute__((constructor)) target_main(void)
{
	const char *file = getenv(TARGET_ENV);

	if (file)
		run_target(file);
}

/* ---- the kernel's answer: smaps_rollup ------------------------------------ */

/* The smaps_rollup fields ps has columns for, in kB. */
struct rollup {
	unsigned long long rss, pss, swap, uss, anon, file, shmem, thp, hugetlb, locked;
};

static int read_rollup(pid_t pid, struct rollup *r)
{
	char path[64], line[256], key[64];
	unsigned long long kb;
	FILE *fp;

	memset(r, 0, sizeof(*r));
	snprintf(path, sizeof(path), "/proc/%d/smaps_rollup", pid);
	fp = fopen(path, "re");
	if (!fp)
		return -errno;
	while (fgets(line, sizeof(line), fp)) {
		if (sscanf(line, "%63[^:]: %llu kB", key, &kb) != 2)
			continue;
		if (!strcmp(key, "Rss"))
			r->rss = kb;
		else if (!strcmp(key, "Pss"))
			r->pss = kb;
		else if (!strcmp(key, "Swap"))
			r->swap = kb;
		else if (!strcmp(key, "Private_Clean") || !strcmp(key, "Private_Dirty"))
			r->uss += kb;
		else if (!strcmp(key, "Pss_Anon"))
			r->anon = kb;
		else if (!strcmp(key, "Pss_File"))
			r->file = kb;
		else if (!strcmp(key, "Pss_Shmem"))
			r->shmem = kb;
		else if (!strcmp(key, "AnonHugePages") || !strcmp(key, "ShmemPmdMapped") ||
			 !strcmp(key, "FilePmdMapped"))
			r->thp += kb;
		else if (!strcmp(key, "Shared_Hugetlb") || !strcmp(key, "Private_Hugetlb"))
			r->hugetlb += kb;
		else if (!strcmp(key, "Locked"))
			r->locked = kb;
	}
	fclose(fp);
	return 0;
}

/* ---- the client's answer: ps -J -b, one object per line's keys ------------- */

#define MAX_ROWS	4096

struct row {
	long long pid, nprocs;
	char name[512];			/* mapping or command */
	struct rollup v;		/* in bytes as ps prints them */
};

/*
 * The objects of ps -J -b: libsmartcols writes each key on a line of its
 * own ("key": value) and each element's braces alone on theirs, so a
 * line-by-line reading is enough here ("skipped" is one line, not an
 * element).
 */
static int parse_ps_json(const char *out, struct row *rows, int max)
{
	const char *line = out;
	int n = -1;

	for (; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
		char key[32], str[512];
		long long v;

		size_t lead = strspn(line, " ");

		/* an element of the array: an indented "{" or "},{" alone */
		if (lead && (!strncmp(line + lead, "{\n", 2) || !strncmp(line + lead, "},{\n", 4))) {
			if (++n >= max)
				return -1;
			memset(&rows[n], 0, sizeof(rows[n]));
			continue;
		}
		if (n < 0)
			continue;
		if (sscanf(line, " \"%31[^\"]\": \"%511[^\"]\"", key, str) == 2) {
			if (!strcmp(key, "mapping") || !strcmp(key, "command"))
				snprintf(rows[n].name, sizeof(rows[n].name), "%s", str);
			continue;
		}
		if (sscanf(line, " \"%31[^\"]\": %lld", key, &v) != 2)
			continue;
#define KEY(k, field) if (!strcmp(key, k)) rows[n].field = v
		KEY("pid", pid);
		KEY("nprocs", nprocs);
		KEY("rss", v.rss);
		KEY("pss", v.pss);
		KEY("swap", v.swap);
		KEY("uss", v.uss);
		KEY("anon", v.anon);
		KEY("file", v.file);
		KEY("shmem", v.shmem);
		KEY("thp", v.thp);
		KEY("hugetlb", v.hugetlb);
		KEY("locked", v.locked);
#undef KEY
	}
	return n + 1;
}

/* ---- the fixture ----------------------------------------------------------- */

FIXTURE(ps) {
	pid_t pid[2];		/* the target and its child */
	char file[256];
	char self[256];		/* this binary, as maps names it */
};

FIXTURE_SETUP(ps)
{
	const char *dir = mw_disk_dir() ? mw_disk_dir() : mw_tmpfs_dir();
	char buf[FILE_PAGES * MW_PAGE], line[512];
	int fd, out[2];
	struct mw_why why;
	ssize_t n;
	pid_t pid;
	FILE *fp;

	self->pid[0] = self->pid[1] = -1;
	ASSERT_EQ(0, geteuid()) TH_LOG("these tests need root");
	ASSERT_EQ(0, access(mw_client_path(), X_OK)) TH_LOG("%s: %s", mw_client_path(),
							    strerror(errno));
	fd = mw_dev_open(&(struct memwalk_info){ 0 }, &why);
	ASSERT_LE(0, fd) TH_LOG("%s", why.msg);
	close(fd);
	n = readlink("/proc/self/exe", self->self, sizeof(self->self) - 1);
	ASSERT_LT(0, n);
	self->self[n] = '\0';

	snprintf(self->file, sizeof(self->file), "%s/memwalk-ps-%d", dir, getpid());
	fd = open(self->file, O_RDWR | O_CREAT | O_TRUNC, 0600);
	ASSERT_LE(0, fd) TH_LOG("%s: %s", self->file, strerror(errno));
	memset(buf, 'f', sizeof(buf));
	ASSERT_EQ((ssize_t)sizeof(buf), write(fd, buf, sizeof(buf)));
	close(fd);

	ASSERT_EQ(0, pipe(out));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		dup2(out[1], 1);
		setenv(TARGET_ENV, self->file, 1);
		execl("/proc/self/exe", "memwalk_client_ps", (char *)NULL);
		printf("error exec: %s\n", strerror(errno));
		_exit(1);
	}
	close(out[1]);
	self->pid[0] = pid;
	fp = fdopen(out[0], "r");
	ASSERT_NE(NULL, fp);
	line[0] = '\0';
	fgets(line, sizeof(line), fp);
	fclose(fp);
	ASSERT_EQ(2, sscanf(line, "pids %d %d", &self->pid[0], &self->pid[1]))
		TH_LOG("target: %s", line);
	ASSERT_EQ(pid, self->pid[0]);
}

FIXTURE_TEARDOWN(ps)
{
	if (self->pid[1] > 0)
		kill(self->pid[1], SIGKILL);
	if (self->pid[0] > 0) {
		kill(self->pid[0], SIGKILL);
		waitpid(self->pid[0], NULL, 0);
	}
	unlink(self->file);
}

/* Run the client with @args (NULL-ended) after "ps -J -b"; its output in *@out. */
static int run_ps(const char *const args[], int *status, char **out, char **err)
{
	const char *argv[16] = { mw_client_path(), "ps", "-J", "-b" };
	int i;

	for (i = 0; args[i] && i < 11; i++)
		argv[4 + i] = args[i];
	argv[4 + i] = NULL;
	return mw_capture(argv, status, out, err);
}

static bool rollups_equal(const struct rollup *a, const struct rollup *b)
{
	return !memcmp(a, b, sizeof(*a));
}

#define EXPECT_KB(field, want, got, pid)				\
	EXPECT_EQ((want)->field * 1024, (got)->field)			\
		TH_LOG("pid %d %s: smaps_rollup %llu kB, ps %llu bytes",	\
		       pid, #field, (want)->field, (got)->field)

/*
 * ps -J -b @args (listing both processes of the fixture) against
 * smaps_rollup, read before and after it.
 */
static void check_rows(struct __test_metadata *_metadata, FIXTURE_DATA(ps) *self,
		       const char *const args[])
{
	struct rollup before[2], after[2];
	static struct row rows[MAX_ROWS];
	char *out = NULL, *err = NULL;
	int attempt, status, n = 0, i, k;

	for (attempt = 0; attempt < ATTEMPTS; attempt++) {
		free(out);
		free(err);
		for (k = 0; k < 2; k++)
			ASSERT_EQ(0, read_rollup(self->pid[k], &before[k]));
		ASSERT_EQ(0, run_ps(args, &status, &out, &err));
		for (k = 0; k < 2; k++)
			ASSERT_EQ(0, read_rollup(self->pid[k], &after[k]));
		if (rollups_equal(&before[0], &after[0]) && rollups_equal(&before[1], &after[1]))
			break;
		TH_LOG("smaps_rollup changed while the client ran (attempt %d)", attempt + 1);
	}
	ASSERT_LT(attempt, ATTEMPTS);
	ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
		TH_LOG("status %#x, stderr: %s", status, err);
	n = parse_ps_json(out, rows, MAX_ROWS);
	ASSERT_LT(0, n) TH_LOG("no rows: %.2000s", out);
	for (k = 0; k < 2; k++) {
		const struct rollup *want = &before[k];
		const struct rollup *got = NULL;
		pid_t pid = self->pid[k];

		for (i = 0; i < n && !got; i++)
			if (rows[i].pid == pid)
				got = &rows[i].v;
		ASSERT_NE(NULL, got) TH_LOG("pid %d not listed: %.2000s", pid, out);
		EXPECT_KB(rss, want, got, pid);
		EXPECT_KB(pss, want, got, pid);
		EXPECT_KB(swap, want, got, pid);
		EXPECT_KB(uss, want, got, pid);
		EXPECT_KB(anon, want, got, pid);
		EXPECT_KB(file, want, got, pid);
		EXPECT_KB(shmem, want, got, pid);
		EXPECT_KB(thp, want, got, pid);
		EXPECT_KB(hugetlb, want, got, pid);
		EXPECT_KB(locked, want, got, pid);
	}
	/* the states were built: shared anon pages, locked pages, a THP */
	EXPECT_LT(before[1].pss, before[1].rss) TH_LOG("the child shares nothing");
	EXPECT_LT(0, before[0].locked) TH_LOG("nothing locked");
	if (!mw_region_unsupported("thp"))
		EXPECT_LE(HPAGE / 1024, before[0].thp) TH_LOG("no THP in the target");
	if (!mw_region_unsupported("hugetlb"))
		EXPECT_EQ(HPAGE / 1024, before[0].hugetlb) TH_LOG("no hugetlb page");
	if (mw_swap_on())
		EXPECT_LT(0, before[0].swap) TH_LOG("nothing paged out to swap");
	EXPECT_NE(NULL, strstr(out, "\"not_permitted\": 0,")) TH_LOG("root refused: %.2000s", out);
	free(out);
	free(err);
}

TEST_F(ps, named_pids_equal_smaps_rollup)
{
	char a[16], b[16];
	const char *args[] = { "--output-all", a, b, NULL };

	snprintf(a, sizeof(a), "%d", self->pid[0]);
	snprintf(b, sizeof(b), "%d", self->pid[1]);
	check_rows(_metadata, self, args);
}

/* Every process: kernel threads skipped, none an error; ours as named. */
TEST_F(ps, every_process_equal_smaps_rollup)
{
	const char *args[] = { "--output-all", NULL };

	check_rows(_metadata, self, args);
}

/* A mapping's line: the sum of its smaps entries over both processes. */
static void check_mapping(struct __test_metadata *_metadata, FIXTURE_DATA(ps) *self,
			  const struct row *rows, int n, const char *name,
			  struct mw_smaps *const sm[2], const size_t nr[2])
{
	struct rollup want = { 0 };
	const struct row *got = NULL;
	int i, procs = 0, k;
	size_t v;

	for (i = 0; i < n && !got; i++)
		if (!strcmp(rows[i].name, name))
			got = &rows[i];
	ASSERT_NE(NULL, got) TH_LOG("no line for %s", name);
	for (k = 0; k < 2; k++) {
		bool maps = false;

		for (v = 0; v < nr[k]; v++) {
			const struct mw_smaps *m = &sm[k][v];

			if (strcmp(m->map.name, name))
				continue;
			maps = true;
			want.rss += m->rss;
			want.pss += m->pss;
			want.swap += m->swap;
			want.uss += m->private_clean + m->private_dirty;
			want.locked += m->locked;
		}
		procs += maps;
	}
	EXPECT_EQ(2, procs) TH_LOG("%s: mapped by %d of the 2", name, procs);
	EXPECT_EQ(procs, got->nprocs) TH_LOG("%s", name);
	EXPECT_KB(rss, &want, &got->v, self->pid[0]);
	EXPECT_KB(pss, &want, &got->v, self->pid[0]);
	EXPECT_KB(swap, &want, &got->v, self->pid[0]);
	EXPECT_KB(uss, &want, &got->v, self->pid[0]);
	EXPECT_KB(locked, &want, &got->v, self->pid[0]);
	EXPECT_LT(0, want.rss) TH_LOG("%s: nothing resident", name);
}

TEST_F(ps, by_mapping_equals_smaps_sums)
{
	static struct row rows[MAX_ROWS];
	struct mw_smaps *sm[2] = { NULL, NULL }, *after[2] = { NULL, NULL };
	size_t nr[2], nr_after[2];
	char a[16], b[16], *out = NULL, *err = NULL;
	const char *args[] = { "--by", "mapping", "--output-all", a, b, NULL };
	int attempt, status, n, k;
	bool same = false;

	snprintf(a, sizeof(a), "%d", self->pid[0]);
	snprintf(b, sizeof(b), "%d", self->pid[1]);
	for (attempt = 0; attempt < ATTEMPTS && !same; attempt++) {
		free(out);
		free(err);
		for (k = 0; k < 2; k++) {
			free(sm[k]);
			free(after[k]);
			ASSERT_EQ(0, mw_smaps_read(self->pid[k], &sm[k], &nr[k]));
		}
		ASSERT_EQ(0, run_ps(args, &status, &out, &err));
		same = true;
		for (k = 0; k < 2; k++) {
			ASSERT_EQ(0, mw_smaps_read(self->pid[k], &after[k], &nr_after[k]));
			same &= nr[k] == nr_after[k] &&
				!memcmp(sm[k], after[k], nr[k] * sizeof(*sm[k]));
		}
		if (!same)
			TH_LOG("smaps changed while the client ran (attempt %d)", attempt + 1);
	}
	ASSERT_TRUE(same);
	ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
		TH_LOG("status %#x, stderr: %s", status, err);
	n = parse_ps_json(out, rows, MAX_ROWS);
	ASSERT_LT(0, n) TH_LOG("no rows: %.2000s", out);
	check_mapping(_metadata, self, rows, n, self->file, sm, nr);
	check_mapping(_metadata, self, rows, n, self->self, sm, nr);
	for (k = 0; k < 2; k++) {
		free(sm[k]);
		free(after[k]);
	}
	free(out);
	free(err);
}

/* A PID that does not exist: named on stderr, exit 1, the others shown. */
TEST_F(ps, missing_pid_is_an_error)
{
	static struct row rows[MAX_ROWS];
	char a[16], gone[16], *out, *err;
	const char *args[] = { "-o", "pid,pss", a, gone, NULL };
	char want[64];
	int status;

	snprintf(a, sizeof(a), "%d", self->pid[0]);
	snprintf(gone, sizeof(gone), "%d", mw_free_pid());
	ASSERT_EQ(0, run_ps(args, &status, &out, &err));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(1, WEXITSTATUS(status)) TH_LOG("stderr: %s", err);
	snprintf(want, sizeof(want), "ps: no such process: %s", gone);
	EXPECT_NE(NULL, strstr(err, want)) TH_LOG("stderr: %s", err);
	EXPECT_EQ(1, parse_ps_json(out, rows, MAX_ROWS)) TH_LOG("%s", out);
	EXPECT_EQ(self->pid[0], rows[0].pid);
	free(out);
	free(err);
}

TEST_HARNESS_MAIN

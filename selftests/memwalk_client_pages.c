// SPDX-License-Identifier: GPL-2.0
/*
 * memwalk-client --pages --no-pfn and --summary against the kernel's own
 * answers, /proc/PID/pagemap and /proc/kpageflags, on a real process: a
 * child that faults in NR_PAGES anonymous pages in an order that scatters
 * their PFNs (every other page goes to a second region), then waits.
 *
 *   --no-pfn: the region is as many lines as there are stretches of pages
 *   alike for pagemap (its flags without the PFN) and kpageflags (the bits
 *   the module mirrors), and each line's pages are alike for them; without
 *   --no-pfn it is at least as many lines as the PFNs are stretches.
 *   --summary: the pages of each folio flag, and in all, are those
 *   kpageflags and pagemap count.
 *
 * The kernel is read before and after the client; a state that changed in
 * between (the LRU drained by the client's exec) is read again, 3 times at
 * most.  Needs root and the module loaded; the client is $MEMWALK_CLIENT.
 */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "memwalk_snapshot_lib.h"
#include "memwalk_util.h"

#define NR_PAGES	64
#define ATTEMPTS	3

/* kpageflags bits the module mirrors in folio_flags, by their names there. */
static const struct {
	unsigned int bit;
	const char *name;
} kpf_names[] = {
	{ MEMWALK_KPF_LOCKED, "locked" }, { MEMWALK_KPF_REFERENCED, "referenced" },
	{ MEMWALK_KPF_UPTODATE, "uptodate" }, { MEMWALK_KPF_DIRTY, "dirty" },
	{ MEMWALK_KPF_LRU, "lru" }, { MEMWALK_KPF_ACTIVE, "active" },
	{ MEMWALK_KPF_WRITEBACK, "writeback" }, { MEMWALK_KPF_MMAP, "mmap" },
	{ MEMWALK_KPF_ANON, "anon" }, { MEMWALK_KPF_SWAPCACHE, "swapcache" },
	{ MEMWALK_KPF_SWAPBACKED, "swapbacked" }, { MEMWALK_KPF_UNEVICTABLE, "unevictable" },
	{ MEMWALK_KPF_THP, "thp" }, { MEMWALK_KPF_IDLE, "idle" },
};

/* What the kernel says of each page of the region. */
struct kernel_view {
	uint64_t pm[NR_PAGES];		/* pagemap */
	uint64_t kpf[NR_PAGES];		/* kpageflags, of the mirrored bits */
};

FIXTURE(target) {
	pid_t pid;
	uint64_t start;
};

FIXTURE_SETUP(target)
{
	int pipefd[2];
	uint64_t start;

	ASSERT_EQ(0, pipe(pipefd));
	self->pid = fork();
	ASSERT_LE(0, self->pid);
	if (!self->pid) {
		size_t len = NR_PAGES * MW_PAGE;
		char *a = mmap(NULL, len, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		char *b = mmap(NULL, len, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		size_t i;

		if (a == MAP_FAILED || b == MAP_FAILED)
			_exit(1);
		madvise(a, len, MADV_NOHUGEPAGE);
		madvise(b, len, MADV_NOHUGEPAGE);
		/* backwards, and b between: no two PFNs of a follow */
		for (i = NR_PAGES; i-- > 0;) {
			a[i * MW_PAGE] = 1;
			b[i * MW_PAGE] = 1;
		}
		start = (uintptr_t)a;
		if (write(pipefd[1], &start, sizeof(start)) != sizeof(start))
			_exit(1);
		pause();
		_exit(0);
	}
	close(pipefd[1]);
	ASSERT_EQ(sizeof(self->start), read(pipefd[0], &self->start, sizeof(self->start)));
	close(pipefd[0]);
}

FIXTURE_TEARDOWN(target)
{
	kill(self->pid, SIGKILL);
	waitpid(self->pid, NULL, 0);
}

static uint64_t kpf_mask(void)
{
	uint64_t mask = 0;
	size_t i;

	for (i = 0; i < sizeof(kpf_names) / sizeof(kpf_names[0]); i++)
		mask |= 1ULL << kpf_names[i].bit;
	return mask;
}

static int read_kernel(pid_t pid, uint64_t start, struct kernel_view *k)
{
	int i, ret;

	ret = mw_pagemap_read(pid, start, NR_PAGES, k->pm);
	for (i = 0; !ret && i < NR_PAGES; i++) {
		k->kpf[i] = 0;
		if ((k->pm[i] & PM_PRESENT) && !(ret = mw_kpageflags(k->pm[i] & PM_PFN_MASK,
								     &k->kpf[i])))
			k->kpf[i] &= kpf_mask();
	}
	return ret;
}

/* Page @i is like page @i - 1 for pagemap (but its PFN) and kpageflags. */
static bool alike(const struct kernel_view *k, int i)
{
	return (k->pm[i] & ~PM_PFN_MASK) == (k->pm[i - 1] & ~PM_PFN_MASK) &&
	       k->kpf[i] == k->kpf[i - 1];
}

/*
 * Run the client on the region with @opts; its output in @r, the kernel's
 * view of the region before and after in @k (0), or -EAGAIN when that
 * changed ATTEMPTS times.
 */
static int run_client(struct __test_metadata *_metadata, FIXTURE_DATA(target) *self,
		      const char *opts1, const char *opts2, struct mw_run *r,
		      struct kernel_view *k)
{
	char range[64];
	const char *argv[] = { mw_client_path(), NULL, "-n", "--range", range, opts1,
			       opts2, NULL };
	static char pid[16];
	struct kernel_view after;
	int attempt;

	snprintf(pid, sizeof(pid), "%d", self->pid);
	argv[1] = pid;
	snprintf(range, sizeof(range), "%llx-%llx", (unsigned long long)self->start,
		 (unsigned long long)(self->start + NR_PAGES * MW_PAGE));
	for (attempt = 0; attempt < ATTEMPTS; attempt++) {
		if (read_kernel(self->pid, self->start, k))
			return -errno;
		if (mw_run(r, 0, argv))
			return -ECHILD;
		if (read_kernel(self->pid, self->start, &after))
			return -errno;
		if (!memcmp(k, &after, sizeof(after)))
			return 0;
		TH_LOG("the pages changed while the client ran (attempt %d)", attempt + 1);
	}
	return -EAGAIN;
}

/* The page lines of --pages -n -o range,pages: their page counts. */
static int page_lines(const char *out, unsigned int *pages, int max)
{
	const char *line;
	int n = 0;

	for (line = out; *line; line = strchr(line, '\n') + 1) {
		unsigned long long s, e;
		unsigned int p;

		if (sscanf(line, "  %llx-%llx %u", &s, &e, &p) == 3 && n < max)
			pages[n++] = p;
		if (!strchr(line, '\n'))
			break;
	}
	return n;
}

TEST_F(target, no_pfn_merges_as_the_kernel_counts)
{
	unsigned int pages[NR_PAGES + 1];
	struct kernel_view k;
	struct mw_run r;
	int n, i, page, stretches = 1, pfn_stretches = 1;

	ASSERT_EQ(0, run_client(_metadata, self, "--pages", "--no-pfn", &r, &k)) {
		TH_LOG("client: %s", r.err);
	}
	ASSERT_EQ(0, mw_exit_code(&r)) TH_LOG("client: %s", r.err);
	for (i = 0; i < NR_PAGES; i++)
		ASSERT_TRUE(k.pm[i] & PM_PRESENT) TH_LOG("page %d not present", i);
	for (i = 1; i < NR_PAGES; i++) {
		stretches += !alike(&k, i);
		pfn_stretches += !alike(&k, i) ||
				 (k.pm[i] & PM_PFN_MASK) != (k.pm[i - 1] & PM_PFN_MASK) + 1;
	}
	ASSERT_LT(NR_PAGES / 2, pfn_stretches) TH_LOG("the PFNs are not scattered");
	n = page_lines(r.out, pages, NR_PAGES + 1);
	EXPECT_EQ(stretches, n) TH_LOG("--no-pfn:\n%s", r.out);
	/* each line is one stretch, in order */
	for (i = 0, page = 0; i < n && page < NR_PAGES; i++) {
		int j;

		for (j = 1; j < (int)pages[i]; j++)
			EXPECT_TRUE(alike(&k, page + j)) TH_LOG("line %d: page %d differs", i, page + j);
		page += pages[i];
		if (page < NR_PAGES)
			EXPECT_FALSE(alike(&k, page)) TH_LOG("line %d ends in a stretch", i);
	}
	EXPECT_EQ(NR_PAGES, page);

	ASSERT_EQ(0, run_client(_metadata, self, "--pages", "-oRANGE,PAGES,PFN", &r, &k)) {
		TH_LOG("client: %s", r.err);
	}
	ASSERT_EQ(0, mw_exit_code(&r)) TH_LOG("client: %s", r.err);
	n = page_lines(r.out, pages, NR_PAGES + 1);
	EXPECT_LE(pfn_stretches, n) TH_LOG("without --no-pfn:\n%s", r.out);
}

TEST_F(target, summary_counts_as_kpageflags)
{
	uint64_t want[sizeof(kpf_names) / sizeof(kpf_names[0])] = { 0 };
	uint64_t got[sizeof(kpf_names) / sizeof(kpf_names[0])] = { 0 };
	uint64_t present = 0, total = 0;
	struct kernel_view k;
	const char *line;
	struct mw_run r;
	size_t f;
	int i;

	ASSERT_EQ(0, run_client(_metadata, self, "--summary", NULL, &r, &k)) {
		TH_LOG("client: %s", r.err);
	}
	ASSERT_EQ(0, mw_exit_code(&r)) TH_LOG("client: %s", r.err);
	for (i = 0; i < NR_PAGES; i++) {
		present += !!(k.pm[i] & PM_PRESENT);
		for (f = 0; f < sizeof(kpf_names) / sizeof(kpf_names[0]); f++)
			want[f] += !!(k.kpf[i] & (1ULL << kpf_names[f].bit));
	}
	/* PAGES KB STATE LEVEL BITS TYPE FLAGS, without heading or total (-n) */
	for (line = r.out; *line; line = strchr(line, '\n') + 1) {
		char state[32], level[8], bits[64], type[64], flags[512], *tok, *save;
		unsigned long long pages, kb;

		ASSERT_EQ(7, sscanf(line, "%llu %llu %31s %7s %63s %63s %511s", &pages, &kb,
				    state, level, bits, type, flags)) TH_LOG("line: %s", line);
		EXPECT_EQ(pages * (MW_PAGE / 1024), kb);
		EXPECT_STREQ("present", state);
		total += pages;
		for (tok = strtok_r(flags, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
			for (f = 0; f < sizeof(kpf_names) / sizeof(kpf_names[0]); f++)
				if (!strcmp(tok, kpf_names[f].name))
					got[f] += pages;
		if (!strchr(line, '\n'))
			break;
	}
	EXPECT_EQ(present, total) TH_LOG("summary:\n%s", r.out);
	for (f = 0; f < sizeof(kpf_names) / sizeof(kpf_names[0]); f++) {
		const char *name = kpf_names[f].name;
		unsigned long long w = want[f], g = got[f];

		EXPECT_EQ(w, g) TH_LOG("%s: kpageflags %llu pages, summary %llu:\n%s",
				       name, w, g, r.out);
	}
}

TEST_HARNESS_MAIN

// SPDX-License-Identifier: GPL-2.0
/*
 * The labs' promises (labs/NAME/README.md): each lab's program is run step
 * by step, as `make lab` runs it, and what its handout says to look for is
 * checked at every step, in memwalk's answer and in the kernel's own:
 * /proc/PID/pagemap, /proc/kpageflags, /proc/kpagecount and smaps; and
 * the handout's `memwalk-client diff` must name the change it names
 * (docs/json-schema.md's kinds), for as many pages.  A handout
 * that stops being true on some kernel fails here.  One FIXTURE_VARIANT
 * per lab; the programs (memwalk_lab_NAME, built from labs/NAME/lab.c)
 * are next to this one.  Needs root and the module loaded (not lab_mode).
 */
#include "kselftest_harness.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/memwalk.h>

#include "memwalk_arch.h"
#include "memwalk_snapshot_lib.h"
#include "memwalk_util.h"

#define BUF_LEN		(1UL << 20)
#define STEP_MS		60000	/* how long a step may take to build */
#define MAX_VARS	16
#define KPF_ZERO	24

/* A lab program running, and what it exported so far (labs/lab.h). */
struct lab {
	struct mw_target t;
	char names[MAX_VARS][32];
	char values[MAX_VARS][64];
	unsigned int nr;
	char said[4096];	/* its last lines, for messages */
};

FIXTURE(labs) {
	int fd;
	struct memwalk_info info;
	struct lab lab;
	char dir[64];		/* the client's saved snapshots */
};

struct _test_data_labs;
typedef void (*lab_check_fn)(struct __test_metadata *_metadata,
			     FIXTURE_DATA(labs) *self);

FIXTURE_VARIANT(labs) {
	const char *name;	/* labs/NAME */
	lab_check_fn check;	/* its steps and their promises */
};

/* ---- driving a lab program ------------------------------------------------ */

static void lab_line(void *arg, const char *line)
{
	struct lab *l = arg;
	size_t len = strlen(l->said);
	const char *eq;

	/* The last lines: the first half goes when the next would not fit. */
	if (len + strlen(line) + 4 > sizeof(l->said)) {
		memmove(l->said, l->said + len / 2, len - len / 2 + 1);
		len -= len / 2;
	}
	snprintf(l->said + len, sizeof(l->said) - len, "%s | ", line);
	if (strncmp(line, "export ", 7) || !(eq = strchr(line, '=')) || l->nr == MAX_VARS)
		return;
	snprintf(l->names[l->nr], sizeof(l->names[0]), "%.*s", (int)(eq - line - 7), line + 7);
	snprintf(l->values[l->nr], sizeof(l->values[0]), "%s", eq + 1);
	l->nr++;
}

/* The value of export @name, or "". */
static const char *lab_str(const struct lab *l, const char *name)
{
	unsigned int i;

	for (i = 0; i < l->nr; i++)
		if (!strcmp(l->names[i], name))
			return l->values[i];
	return "";
}

/* The value of export @name, as a number (PIDs, addresses), or 0. */
static uint64_t lab_num(const struct lab *l, const char *name)
{
	return strtoull(lab_str(l, name), NULL, 0);
}

/* Step @n of the lab: let it build (after step 1, it waits for a line). */
static void step(struct __test_metadata *_metadata, FIXTURE_DATA(labs) *self, int n)
{
	char want[16];
	int ret;

	if (n > 1)
		ASSERT_EQ(0, mw_target_send(&self->lab.t, "\n"));
	snprintf(want, sizeof(want), "step %d", n);
	ret = mw_target_read_until(&self->lab.t, want, STEP_MS, lab_line, &self->lab);
	ASSERT_EQ(0, ret) TH_LOG("the lab did not reach step %d (%s); it said: %s",
				  n, strerror(ret), self->lab.said);
	mw_lru_drain_all();
}

#define STEP(n)		step(_metadata, self, n)
#define VAR(name)	({						\
	uint64_t __v = lab_num(&self->lab, name);			\
	ASSERT_NE(0, __v) TH_LOG("the lab exported no %s: %s", name, self->lab.said); \
	__v; })

/* ---- the handouts' commands: the client's snapshots and diffs ------------ */

/* What memwalk-client PID --range RANGE --save FILE saves, in the run's directory. */
static void client_save(struct __test_metadata *_metadata, FIXTURE_DATA(labs) *self,
			const char *pid, const char *range, const char *file)
{
	char path[PATH_MAX];
	const char *argv[] = { mw_client_path(), pid, "--range", range, "--save", path, NULL };
	char *out = NULL, *err = NULL;
	int status = -1;

	snprintf(path, sizeof(path), "%s/%s", self->dir, file);
	ASSERT_EQ(0, mw_capture(argv, &status, &out, &err));
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
		TH_LOG("%s %s --range %s --save %s: %.900s", argv[0], pid, range, path, err);
	free(out);
	free(err);
}

/*
 * The number of pages memwalk-client diff -J A B files under change @kind
 * (a key of docs/json-schema.md), 0 if none.
 */
static long client_diff_pages(struct __test_metadata *_metadata, FIXTURE_DATA(labs) *self,
			      const char *a, const char *b, const char *kind)
{
	char pa[PATH_MAX], pb[PATH_MAX], key[64];
	const char *argv[] = { mw_client_path(), "diff", "-J", pa, pb, NULL };
	char *out = NULL, *err = NULL, *at;
	int status = -1;
	long pages = 0;

	snprintf(pa, sizeof(pa), "%s/%s", self->dir, a);
	snprintf(pb, sizeof(pb), "%s/%s", self->dir, b);
	snprintf(key, sizeof(key), "\"kind\":\"%s\",", kind);
	EXPECT_EQ(0, mw_capture(argv, &status, &out, &err));
	/* Exit status 1: something changed. */
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 1)
		TH_LOG("diff %s %s: status %#x: %.900s", a, b, status, err ? err : "");
	at = out ? strstr(out, key) : NULL;
	if (at && (at = strstr(at, "\"pages\":")))
		pages = strtol(at + 8, NULL, 10);
	if (!pages)
		TH_LOG("diff %s %s has no %s: %.1500s", a, b, kind, out ? out : "");
	free(out);
	free(err);
	return pages;
}

#define SAVE(pid, range, file)	client_save(_metadata, self, lab_str(&self->lab, pid), \
					    lab_str(&self->lab, range), file)
#define DIFF(a, b, kind)	client_diff_pages(_metadata, self, a, b, kind)

/* ---- the pages of a range, as memwalk and pagemap see them -------------- */

#define VIEW_MAX	512	/* pages: a 2 MiB huge page */

struct view {
	size_t n;
	struct memwalk_page_run page[VIEW_MAX];	/* nr_pages 0: no entry */
	uint64_t pm[VIEW_MAX];			/* pagemap */
};

/* A swap entry in pagemap: the type in bits 0-4, the offset above. */
static unsigned int pm_swap_type(uint64_t pm)
{
	return pm & ((1U << PM_SWAP_TYPE_BITS) - 1);
}

static uint64_t pm_swap_offset(uint64_t pm)
{
	return (pm & PM_PFN_MASK) >> PM_SWAP_TYPE_BITS;
}

/*
 * memwalk's snapshot of @n pages at @start of @pid, one record a page,
 * and pagemap's; every page must agree on what both tell: an entry or
 * not, present or swapped, the PFN or swap slot, mapped once or more.
 */
static void view_get(struct __test_metadata *_metadata, FIXTURE_DATA(labs) *self,
		     pid_t pid, uint64_t start, size_t n, struct view *v)
{
	struct memwalk_page_run *pages;
	struct mw_snap s;
	struct mw_why why;
	size_t nr, i;
	char b[256];

	ASSERT_GE(VIEW_MAX, n);
	memset(v, 0, sizeof(*v));
	v->n = n;
	ASSERT_EQ(0, mw_snapshot(self->fd, pid, start, start + n * MW_PAGE, MEMWALK_SNAP_ALL,
				 BUF_LEN, BUF_LEN, &s, &why)) TH_LOG("snapshot of %d: %s", pid, why.msg);
	pages = mw_runs_expand(s.runs, s.nr_runs, &nr);
	mw_snap_free(&s);
	ASSERT_NE(NULL, pages);
	for (i = 0; i < nr; i++)
		if (pages[i].start >= start && pages[i].start < start + n * MW_PAGE)
			v->page[(pages[i].start - start) >> MW_PAGE_SHIFT] = pages[i];
	free(pages);
	ASSERT_EQ(0, mw_pagemap_read(pid, start, n, v->pm));
	for (i = 0; i < n; i++) {
		const struct memwalk_page_run *p = &v->page[i];
		bool present = p->nr_pages && mw_run_state(p) == MEMWALK_STATE_PRESENT;

		mw_run_str(p, b, sizeof(b));
		EXPECT_EQ(present, !!(v->pm[i] & PM_PRESENT))
			TH_LOG("pid %d page %zu: pagemap %#llx, memwalk %s", pid, i,
			       (unsigned long long)v->pm[i], b);
		if (p->nr_pages && mw_run_state(p) == MEMWALK_STATE_SWAP) {
			EXPECT_TRUE(v->pm[i] & PM_SWAP) TH_LOG("pid %d page %zu: pagemap %#llx, memwalk %s",
							       pid, i, (unsigned long long)v->pm[i], b);
			EXPECT_EQ(pm_swap_type(v->pm[i]), mw_run_swap_type(p)) TH_LOG("page %zu", i);
			EXPECT_EQ(pm_swap_offset(v->pm[i]), p->pfn) TH_LOG("page %zu", i);
		}
		if (!present || !(v->pm[i] & PM_PRESENT))
			continue;
		EXPECT_EQ(v->pm[i] & PM_PFN_MASK, p->pfn)
			TH_LOG("pid %d page %zu: pagemap %#llx, memwalk %s", pid, i,
			       (unsigned long long)v->pm[i], b);
		EXPECT_EQ(!!(v->pm[i] & PM_MMAP_EXCLUSIVE), !!(p->flags & MEMWALK_RUN_EXCLUSIVE))
			TH_LOG("pid %d page %zu: pagemap %#llx, memwalk %s", pid, i,
			       (unsigned long long)v->pm[i], b);
	}
}

static uint64_t pm_pfn(uint64_t pm)
{
	return pm & PM_PRESENT ? pm & PM_PFN_MASK : 0;
}

static uint64_t kpagecount(uint64_t pfn)
{
	uint64_t c = ~0ULL;

	return mw_kpagecount(pfn, &c) ? ~0ULL : c;
}

static bool kpf_zero(uint64_t pfn)
{
	uint64_t f = 0;

	return !mw_kpageflags(pfn, &f) && (f & (1ULL << KPF_ZERO));
}

/* ---- lab 1: address translation ---------------------------------------- */

/* One address level by level, checked against pagemap and the address. */
static uint64_t translate_checked(struct __test_metadata *_metadata,
				  FIXTURE_DATA(labs) *self, pid_t pid, uint64_t va,
				  struct memwalk_translate *t)
{
	unsigned int levels = self->info.pgtable_levels, i, shift;
	uint64_t pm = 0;

	ASSERT_EQ(0, mw_translate(self->fd, pid, va, t));
	ASSERT_EQ(0, mw_pagemap_read(pid, va, 1, &pm));
	ASSERT_TRUE(pm & PM_PRESENT) TH_LOG("pagemap of %d at %#llx: %#llx", pid,
					    (unsigned long long)va, (unsigned long long)pm);
	/* Every level down to the PTE, P4D folded with 4 levels. */
	ASSERT_EQ(levels, t->nr_levels);
	for (i = 0; i < levels; i++) {
		shift = MW_PAGE_SHIFT + 9 * (levels - 1 - i);
		EXPECT_EQ((va >> shift) & 511, t->levels[i].index) TH_LOG("level %u", i);
		/* Each entry points at the table the next level is read from. */
		if (i + 1 < levels)
			EXPECT_EQ(MW_E_PFN(t->levels[i].entry) << MW_PAGE_SHIFT,
				  t->levels[i + 1].table_pa) TH_LOG("level %u", i);
	}
	EXPECT_EQ(MEMWALK_PGT_PTE, t->levels[levels - 1].level);
	EXPECT_EQ(pm & PM_PFN_MASK, MW_E_PFN(t->levels[levels - 1].entry));
	EXPECT_EQ(1, t->page.nr_pages);
	EXPECT_EQ(pm & PM_PFN_MASK, t->page.pfn);
	return pm & PM_PFN_MASK;
}

static void lab_translate(struct __test_metadata *_metadata, FIXTURE_DATA(labs) *self)
{
	struct memwalk_translate ta, tb, ca, cb;
	uint64_t va, pfn_a, pfn_b, code;

	/* 1: one address, level by level. */
	STEP(1);
	va = VAR("VA");
	pfn_a = translate_checked(_metadata, self, VAR("PID_A"), va, &ta);
	EXPECT_TRUE(ta.page.flags & MEMWALK_RUN_WRITE);
	EXPECT_TRUE(ta.page.flags & MEMWALK_RUN_ANON);

	/* 2: the same address in another process: other tables, another page. */
	STEP(2);
	pfn_b = translate_checked(_metadata, self, VAR("PID_B"), va, &tb);
	EXPECT_NE(pfn_a, pfn_b);
	EXPECT_NE(ta.levels[0].table_pa, tb.levels[0].table_pa);
	EXPECT_EQ(ta.levels[0].index, tb.levels[0].index);

	/* 3: a page of the program file both run: one page, mapped twice. */
	STEP(3);
	code = translate_checked(_metadata, self, VAR("PID_A"), VAR("CODE_A"), &ca);
	EXPECT_EQ(code, translate_checked(_metadata, self, VAR("PID_B"), VAR("CODE_B"), &cb));
	EXPECT_TRUE(ca.page.flags & MEMWALK_RUN_FILE);
	EXPECT_FALSE(ca.page.flags & MEMWALK_RUN_WRITE);
	EXPECT_LE(2, ca.page.mapcount);
	EXPECT_EQ(kpagecount(code), ca.page.mapcount);
}

/* ---- lab 2: demand paging and the zero page ------------------------------ */

#define DEMAND_PAGES	16

static void expect_zero_page(struct __test_metadata *_metadata, const struct view *v,
			     size_t i, uint64_t zero_pfn)
{
	EXPECT_TRUE(v->page[i].flags & MEMWALK_RUN_ZERO) TH_LOG("page %zu", i);
	EXPECT_FALSE(v->page[i].flags & MEMWALK_RUN_WRITE) TH_LOG("page %zu", i);
	EXPECT_EQ(zero_pfn, pm_pfn(v->pm[i])) TH_LOG("page %zu", i);
}

static void lab_demand(struct __test_metadata *_metadata, FIXTURE_DATA(labs) *self)
{
	struct view v;
	uint64_t buf, zero_pfn, pfn[4];
	pid_t pid;
	size_t i, j;

	/* 1: mapped, never touched: no entries. */
	STEP(1);
	pid = VAR("PID");
	buf = VAR("BUF");
	SAVE("PID", "BUF_RANGE", "1.json");
	view_get(_metadata, self, pid, buf, DEMAND_PAGES, &v);
	for (i = 0; i < DEMAND_PAGES; i++) {
		EXPECT_EQ(0, v.page[i].nr_pages) TH_LOG("page %zu", i);
		EXPECT_EQ(0, v.pm[i] & (PM_PRESENT | PM_SWAP)) TH_LOG("page %zu", i);
	}

	/* 2: read: every page maps the one zero page, read-only. */
	STEP(2);
	SAVE("PID", "BUF_RANGE", "2.json");
	EXPECT_EQ(DEMAND_PAGES, DIFF("1.json", "2.json", "faulted_in"));
	view_get(_metadata, self, pid, buf, DEMAND_PAGES, &v);
	zero_pfn = pm_pfn(v.pm[0]);
	ASSERT_NE(0, zero_pfn);
	EXPECT_TRUE(kpf_zero(zero_pfn)) TH_LOG("kpageflags of PFN %#llx", (unsigned long long)zero_pfn);
	for (i = 0; i < DEMAND_PAGES; i++)
		expect_zero_page(_metadata, &v, i, zero_pfn);

	/* 3: pages 0-3 written: a page of their own each, writable. */
	STEP(3);
	SAVE("PID", "BUF_RANGE", "3.json");
	EXPECT_EQ(4, DIFF("2.json", "3.json", "cow_broken"));
	view_get(_metadata, self, pid, buf, DEMAND_PAGES, &v);
	for (i = 0; i < 4; i++) {
		pfn[i] = pm_pfn(v.pm[i]);
		EXPECT_NE(0, pfn[i]) TH_LOG("page %zu", i);
		EXPECT_NE(zero_pfn, pfn[i]) TH_LOG("page %zu", i);
		EXPECT_FALSE(kpf_zero(pfn[i])) TH_LOG("page %zu", i);
		EXPECT_TRUE(v.pm[i] & PM_MMAP_EXCLUSIVE) TH_LOG("page %zu", i);
		EXPECT_TRUE(v.page[i].flags & MEMWALK_RUN_WRITE) TH_LOG("page %zu", i);
		EXPECT_TRUE(v.page[i].flags & MEMWALK_RUN_ANON) TH_LOG("page %zu", i);
		EXPECT_FALSE(v.page[i].flags & MEMWALK_RUN_ZERO) TH_LOG("page %zu", i);
		for (j = 0; j < i; j++)
			EXPECT_NE(pfn[j], pfn[i]) TH_LOG("pages %zu and %zu", j, i);
	}
	for (; i < DEMAND_PAGES; i++)
		expect_zero_page(_metadata, &v, i, zero_pfn);

	/* 4: MADV_DONTNEED on pages 0-7: their entries are gone. */
	STEP(4);
	SAVE("PID", "BUF_RANGE", "4.json");
	EXPECT_EQ(8, DIFF("3.json", "4.json", "unmapped"));
	view_get(_metadata, self, pid, buf, DEMAND_PAGES, &v);
	for (i = 0; i < 8; i++) {
		EXPECT_EQ(0, v.page[i].nr_pages) TH_LOG("page %zu", i);
		EXPECT_EQ(0, v.pm[i] & (PM_PRESENT | PM_SWAP)) TH_LOG("page %zu", i);
	}
	for (; i < DEMAND_PAGES; i++)
		expect_zero_page(_metadata, &v, i, zero_pfn);
}

/* ---- lab 3: copy-on-write ------------------------------------------------- */

#define COW_PAGES	8
#define COW_WRITTEN	3

static void lab_cow(struct __test_metadata *_metadata, FIXTURE_DATA(labs) *self)
{
	struct view p1, p2, c2, p3, c3;
	uint64_t buf;
	pid_t pid, child;
	size_t i, changed = 0;

	/* 1: written pages: writable, mapped once, exclusive. */
	STEP(1);
	pid = VAR("PID");
	buf = VAR("BUF");
	EXPECT_EQ(buf + COW_WRITTEN * MW_PAGE, VAR("PAGE3"));
	SAVE("PID", "BUF_RANGE", "parent-1.json");
	view_get(_metadata, self, pid, buf, COW_PAGES, &p1);
	for (i = 0; i < COW_PAGES; i++) {
		EXPECT_NE(0, pm_pfn(p1.pm[i])) TH_LOG("page %zu", i);
		EXPECT_TRUE(p1.page[i].flags & MEMWALK_RUN_WRITE) TH_LOG("page %zu", i);
		EXPECT_TRUE(p1.pm[i] & PM_MMAP_EXCLUSIVE) TH_LOG("page %zu", i);
		EXPECT_EQ(1, p1.page[i].mapcount) TH_LOG("page %zu", i);
	}

	/* 2: forked: the same pages on both sides, read-only, mapcount 2. */
	STEP(2);
	child = VAR("CHILD");
	SAVE("PID", "BUF_RANGE", "parent-2.json");
	SAVE("CHILD", "BUF_RANGE", "child-2.json");
	EXPECT_EQ(COW_PAGES, DIFF("parent-1.json", "parent-2.json", "wrprotected_cow"));
	view_get(_metadata, self, pid, buf, COW_PAGES, &p2);
	view_get(_metadata, self, child, buf, COW_PAGES, &c2);
	for (i = 0; i < COW_PAGES; i++) {
		EXPECT_EQ(pm_pfn(p1.pm[i]), pm_pfn(p2.pm[i])) TH_LOG("page %zu", i);
		EXPECT_EQ(pm_pfn(p1.pm[i]), pm_pfn(c2.pm[i])) TH_LOG("page %zu", i);
		EXPECT_FALSE(p2.page[i].flags & MEMWALK_RUN_WRITE) TH_LOG("page %zu", i);
		EXPECT_FALSE(c2.page[i].flags & MEMWALK_RUN_WRITE) TH_LOG("page %zu", i);
		EXPECT_EQ(2, kpagecount(pm_pfn(p2.pm[i]))) TH_LOG("page %zu", i);
		EXPECT_EQ(2, p2.page[i].mapcount) TH_LOG("page %zu", i);
		EXPECT_EQ(2, c2.page[i].mapcount) TH_LOG("page %zu", i);
	}

	/* 3: the child wrote page 3: that page alone is copied, its own. */
	STEP(3);
	SAVE("CHILD", "BUF_RANGE", "child-3.json");
	EXPECT_EQ(1, DIFF("child-2.json", "child-3.json", "cow_broken"));
	view_get(_metadata, self, pid, buf, COW_PAGES, &p3);
	view_get(_metadata, self, child, buf, COW_PAGES, &c3);
	for (i = 0; i < COW_PAGES; i++) {
		EXPECT_EQ(pm_pfn(p2.pm[i]), pm_pfn(p3.pm[i])) TH_LOG("parent page %zu", i);
		if (pm_pfn(c3.pm[i]) != pm_pfn(c2.pm[i]))
			changed++;
		if (i == COW_WRITTEN)
			continue;
		EXPECT_EQ(pm_pfn(c2.pm[i]), pm_pfn(c3.pm[i])) TH_LOG("child page %zu", i);
		EXPECT_EQ(2, kpagecount(pm_pfn(c3.pm[i]))) TH_LOG("page %zu", i);
		EXPECT_FALSE(c3.page[i].flags & MEMWALK_RUN_WRITE) TH_LOG("page %zu", i);
	}
	EXPECT_EQ(1, changed);
	i = COW_WRITTEN;
	EXPECT_NE(pm_pfn(c2.pm[i]), pm_pfn(c3.pm[i]));
	EXPECT_TRUE(c3.pm[i] & PM_MMAP_EXCLUSIVE);
	EXPECT_TRUE(c3.page[i].flags & MEMWALK_RUN_WRITE);
	EXPECT_EQ(1, kpagecount(pm_pfn(c3.pm[i])));
	EXPECT_EQ(1, c3.page[i].mapcount);
	/* The parent's copy is mapped once now, but still read-only. */
	EXPECT_EQ(1, kpagecount(pm_pfn(p3.pm[i])));
	EXPECT_TRUE(p3.pm[i] & PM_MMAP_EXCLUSIVE);
	EXPECT_FALSE(p3.page[i].flags & MEMWALK_RUN_WRITE);
}

/* ---- lab 4: swap ---------------------------------------------------------- */

#define SWAP_PAGES	8
#define SWAP_READ	2

static bool kpf_swapcache(uint64_t pfn)
{
	uint64_t f = 0;

	return !mw_kpageflags(pfn, &f) && (f & (1ULL << MEMWALK_KPF_SWAPCACHE));
}

static void lab_swap(struct __test_metadata *_metadata, FIXTURE_DATA(labs) *self)
{
	struct view p1, p2, c3, p4, c4, c5;
	uint64_t buf, pfn;
	pid_t pid, child;
	size_t i, j;

	if (!mw_swap_on())
		SKIP(return, "no swap device (/proc/swaps lists none)");
	/* 1: written pages, in memory. */
	STEP(1);
	pid = VAR("PID");
	buf = VAR("BUF");
	EXPECT_EQ(buf + SWAP_READ * MW_PAGE, VAR("PAGE2"));
	SAVE("PID", "BUF_RANGE", "1.json");
	view_get(_metadata, self, pid, buf, SWAP_PAGES, &p1);
	for (i = 0; i < SWAP_PAGES; i++)
		EXPECT_TRUE(p1.pm[i] & PM_PRESENT) TH_LOG("page %zu", i);

	/* 2: MADV_PAGEOUT: a swap entry each, a slot of its own each. */
	STEP(2);
	SAVE("PID", "BUF_RANGE", "2.json");
	EXPECT_EQ(SWAP_PAGES, DIFF("1.json", "2.json", "swapped_out"));
	view_get(_metadata, self, pid, buf, SWAP_PAGES, &p2);
	for (i = 0; i < SWAP_PAGES; i++) {
		EXPECT_TRUE(p2.pm[i] & PM_SWAP) TH_LOG("page %zu", i);
		EXPECT_EQ(MEMWALK_STATE_SWAP, mw_run_state(&p2.page[i])) TH_LOG("page %zu", i);
		for (j = 0; j < i; j++)
			EXPECT_NE(p2.pm[j], p2.pm[i]) TH_LOG("pages %zu and %zu", j, i);
	}

	/* 3: forked: the child has the same swap entries. */
	STEP(3);
	child = VAR("CHILD");
	view_get(_metadata, self, child, buf, SWAP_PAGES, &c3);
	for (i = 0; i < SWAP_PAGES; i++) {
		EXPECT_TRUE(c3.pm[i] & PM_SWAP) TH_LOG("page %zu", i);
		EXPECT_EQ(p2.pm[i] & PM_PFN_MASK, c3.pm[i] & PM_PFN_MASK) TH_LOG("page %zu", i);
	}

	/* 4: the parent read page 2: back in memory, in the swap cache. */
	STEP(4);
	SAVE("PID", "BUF_RANGE", "4.json");
	EXPECT_EQ(1, DIFF("2.json", "4.json", "swapped_in"));
	view_get(_metadata, self, pid, buf, SWAP_PAGES, &p4);
	view_get(_metadata, self, child, buf, SWAP_PAGES, &c4);
	for (i = 0; i < SWAP_PAGES; i++) {
		EXPECT_EQ(p2.pm[i] & PM_PFN_MASK, c4.pm[i] & PM_PFN_MASK) TH_LOG("child page %zu", i);
		if (i != SWAP_READ)
			EXPECT_EQ(p2.pm[i] & PM_PFN_MASK, p4.pm[i] & PM_PFN_MASK) TH_LOG("page %zu", i);
	}
	pfn = pm_pfn(p4.pm[SWAP_READ]);
	ASSERT_NE(0, pfn) TH_LOG("pagemap %#llx", (unsigned long long)p4.pm[SWAP_READ]);
	EXPECT_TRUE(kpf_swapcache(pfn));
	EXPECT_TRUE(p4.page[SWAP_READ].folio_flags & (1U << MEMWALK_KPF_SWAPCACHE));
	EXPECT_FALSE(p4.page[SWAP_READ].flags & MEMWALK_RUN_WRITE);
	EXPECT_EQ(1, kpagecount(pfn));

	/* 5: the child read it: the swap cache's page, mapped by both. */
	STEP(5);
	view_get(_metadata, self, child, buf, SWAP_PAGES, &c5);
	EXPECT_EQ(pfn, pm_pfn(c5.pm[SWAP_READ]));
	EXPECT_EQ(2, kpagecount(pfn));
	EXPECT_EQ(2, c5.page[SWAP_READ].mapcount);
}

/* ---- lab 5: transparent huge pages --------------------------------------- */

#define HPAGE_NR	512
#define HPAGE_ORDER	9
#define THP_PROTECTED	256

/* smaps AnonHugePages (kB) of the VMAs inside [start, start + 2 MiB). */
static uint64_t smaps_anon_huge(struct __test_metadata *_metadata, pid_t pid, uint64_t start)
{
	struct mw_smaps *v = NULL;
	uint64_t kb = 0;
	size_t nr = 0, i;

	EXPECT_EQ(0, mw_smaps_read(pid, &v, &nr));
	for (i = 0; i < nr; i++)
		if (v[i].map.start >= start && v[i].map.end <= start + HPAGE_NR * MW_PAGE)
			kb += v[i].anon_huge;
	free(v);
	return kb;
}

/* One huge page: 512 PFNs in a row from an aligned one, a THP folio. */
static void expect_huge_folio(struct __test_metadata *_metadata, const struct view *v)
{
	uint64_t pfn = pm_pfn(v->pm[0]), f = 0;
	size_t i;

	ASSERT_NE(0, pfn);
	EXPECT_EQ(0, pfn % HPAGE_NR) TH_LOG("PFN %#llx", (unsigned long long)pfn);
	EXPECT_EQ(0, mw_kpageflags(pfn, &f));
	EXPECT_TRUE(f & (1ULL << MEMWALK_KPF_THP)) TH_LOG("kpageflags %#llx", (unsigned long long)f);
	for (i = 0; i < HPAGE_NR; i++) {
		EXPECT_EQ(pfn + i, pm_pfn(v->pm[i])) TH_LOG("page %zu", i);
		EXPECT_EQ(HPAGE_ORDER, v->page[i].order) TH_LOG("page %zu", i);
	}
}

static void expect_level(struct __test_metadata *_metadata, const struct view *v,
			 unsigned int level)
{
	size_t i;

	for (i = 0; i < v->n; i++)
		EXPECT_EQ(level, mw_run_level(&v->page[i])) TH_LOG("page %zu", i);
}

static void lab_thp(struct __test_metadata *_metadata, FIXTURE_DATA(labs) *self)
{
	const char *why = mw_region_unsupported("thp");
	struct view *v1, *v2, *v3, *v4;
	uint64_t thp, coll;
	pid_t pid;
	size_t i;

	if (why)
		SKIP(return, "%s", why);
	v1 = calloc(4, sizeof(*v1));
	ASSERT_NE(NULL, v1);
	v2 = v1 + 1;
	v3 = v1 + 2;
	v4 = v1 + 3;

	/* 1: a huge page mapped by one PMD. */
	STEP(1);
	pid = VAR("PID");
	thp = VAR("THP");
	SAVE("PID", "THP_RANGE", "1.json");
	view_get(_metadata, self, pid, thp, HPAGE_NR, v1);
	expect_huge_folio(_metadata, v1);
	expect_level(_metadata, v1, MEMWALK_LEVEL_PMD);
	EXPECT_EQ(2048, smaps_anon_huge(_metadata, pid, thp));

	/* 2: mprotect of one page: mapped by PTEs, the same huge folio. */
	STEP(2);
	EXPECT_EQ(thp + THP_PROTECTED * MW_PAGE, VAR("PROTECTED"));
	SAVE("PID", "THP_RANGE", "2.json");
	EXPECT_EQ(HPAGE_NR, DIFF("1.json", "2.json", "split"));
	view_get(_metadata, self, pid, thp, HPAGE_NR, v2);
	expect_huge_folio(_metadata, v2);
	EXPECT_EQ(pm_pfn(v1->pm[0]), pm_pfn(v2->pm[0]));
	expect_level(_metadata, v2, MEMWALK_LEVEL_PTE);
	for (i = 0; i < HPAGE_NR; i++)
		EXPECT_EQ(i != THP_PROTECTED, !!(v2->page[i].flags & MEMWALK_RUN_WRITE))
			TH_LOG("page %zu", i);
	EXPECT_EQ(0, smaps_anon_huge(_metadata, pid, thp));

	/* 3: 512 base pages. */
	STEP(3);
	coll = VAR("COLL");
	SAVE("PID", "COLL_RANGE", "3.json");
	view_get(_metadata, self, pid, coll, HPAGE_NR, v3);
	expect_level(_metadata, v3, MEMWALK_LEVEL_PTE);
	for (i = 0; i < HPAGE_NR; i++) {
		EXPECT_NE(0, pm_pfn(v3->pm[i])) TH_LOG("page %zu", i);
		EXPECT_EQ(0, v3->page[i].order) TH_LOG("page %zu", i);
	}

	/* 4: MADV_COLLAPSE: copied into one new huge page, mapped by a PMD. */
	STEP(4);
	SAVE("PID", "COLL_RANGE", "4.json");
	EXPECT_EQ(HPAGE_NR, DIFF("3.json", "4.json", "promoted"));
	view_get(_metadata, self, pid, coll, HPAGE_NR, v4);
	expect_huge_folio(_metadata, v4);
	expect_level(_metadata, v4, MEMWALK_LEVEL_PMD);
	EXPECT_NE(pm_pfn(v3->pm[0]), pm_pfn(v4->pm[0]));
	EXPECT_EQ(2048, smaps_anon_huge(_metadata, pid, coll));
	free(v1);
}

/* ---- the fixture ------------------------------------------------------------ */

FIXTURE_VARIANT_ADD(labs, translate) { .name = "translate", .check = lab_translate };
FIXTURE_VARIANT_ADD(labs, demand) { .name = "demand", .check = lab_demand };
FIXTURE_VARIANT_ADD(labs, cow) { .name = "cow", .check = lab_cow };
FIXTURE_VARIANT_ADD(labs, swap) { .name = "swap", .check = lab_swap };
FIXTURE_VARIANT_ADD(labs, thp) { .name = "thp", .check = lab_thp };

FIXTURE_SETUP(labs)
{
	char path[PATH_MAX], *slash;
	struct mw_why why;
	ssize_t n;
	int ret;

	self->lab.t.pid = -1;
	self->lab.t.to = self->lab.t.from = -1;
	snprintf(self->dir, sizeof(self->dir), "%s/memwalk-labs-XXXXXX", mw_tmpfs_dir());
	ASSERT_NE(NULL, mkdtemp(self->dir)) TH_LOG("mkdtemp %s: %s", self->dir, strerror(errno));
	self->fd = mw_dev_open(&self->info, &why);
	ASSERT_LE(0, self->fd) TH_LOG("%s", why.msg);
	/* memwalk_lab_NAME next to this program, started the target's way. */
	n = readlink("/proc/self/exe", path, sizeof(path) - 64);
	ASSERT_LT(0, n);
	path[n] = '\0';
	slash = strrchr(path, '/');
	ASSERT_NE(NULL, slash);
	snprintf(slash + 1, 64, "memwalk_lab_%s", variant->name);
	ASSERT_EQ(0, access(path, X_OK)) TH_LOG("%s: %s", path, strerror(errno));
	setenv("MEMWALK_TARGET", path, 1);
	ret = mw_target_start(&self->lab.t, 0, NULL);
	unsetenv("MEMWALK_TARGET");
	ASSERT_EQ(0, ret) TH_LOG("start %s: %s", path, strerror(ret));
}

FIXTURE_TEARDOWN(labs)
{
	const char *const rm[] = { "/bin/rm", "-rf", self->dir, NULL };
	char *out = NULL, *err = NULL;
	int status;

	mw_target_kill(&self->lab.t);
	if (self->dir[0] && !mw_capture(rm, &status, &out, &err)) {
		free(out);
		free(err);
	}
	if (self->fd >= 0)
		close(self->fd);
}

TEST_F(labs, promises)
{
	variant->check(_metadata, self);
}

TEST_HARNESS_MAIN

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
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/memwalk.h>

#include "memwalk_arch.h"
#include "memwalk_evlib.h"
#include "memwalk_snapshot_lib.h"
#include "memwalk_util.h"

#define BUF_LEN		(1UL << 20)
#define STEP_MS		60000	/* how long a step may take to build */
#define MAX_VARS	16
#define VIEW_MAX	512	/* pages a view holds: a 2 MiB huge page */
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
	struct bg watch, events;	/* the client in the background (pid -1: none) */
};

struct _test_data_labs;
typedef void (*lab_check_fn)(struct __test_metadata *_metadata,
			     FIXTURE_DATA(labs) *self);

FIXTURE_VARIANT(labs) {
	const char *name;	/* labs/NAME */
	lab_check_fn check;	/* its steps and their promises */
	lab_check_fn unprivileged;	/* the same in the lab pass, or NULL */
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

/*
 * The lab-mode pass (module loaded with lab_mode=1, selftests.sh's second
 * load): the variants with an unprivileged check run their lab program and
 * the handout's commands as an unprivileged user; the others do not run.
 */
static bool lab_pass;

#define LAB_MODE_PARAM	"/sys/module/memwalk/parameters/lab_mode"

static bool lab_mode_loaded(void)
{
	char buf[8] = "";

	return !mw_read_file(LAB_MODE_PARAM, buf, sizeof(buf)) && buf[0] == 'Y';
}

/*
 * Run the client (@argv) to the end as the handout's user: root, or in the
 * lab pass the unprivileged one.  0 or errno; *out, *err malloc()ed.
 */
static int client_run(const char *const argv[], int *status, char **out, char **err)
{
	struct mw_run r;
	int ret;

	if (!lab_pass)
		return mw_capture(argv, status, out, err);
	ret = mw_run(&r, MW_NOBODY, argv);
	*status = r.status;
	*out = strdup(r.out);
	*err = strdup(r.err);
	return ret ? -ret : 0;
}

/* What memwalk-client PID --range RANGE --save FILE saves, in the run's directory. */
static void client_save(struct __test_metadata *_metadata, FIXTURE_DATA(labs) *self,
			const char *pid, const char *range, const char *file)
{
	char path[PATH_MAX];
	const char *argv[] = { mw_client_path(), pid, "--range", range, "--save", path, NULL };
	char *out = NULL, *err = NULL;
	int status = -1;

	snprintf(path, sizeof(path), "%s/%s", self->dir, file);
	ASSERT_EQ(0, client_run(argv, &status, &out, &err));
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
	EXPECT_EQ(0, client_run(argv, &status, &out, &err));
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

/* ---- the handouts' other terminals: watch and events in the background ---- */

#define OUT_MAX		(64UL << 20)	/* what one of them prints */

/* memwalk-client with @argv[1...] in the background, as a second terminal. */
static void client_bg(struct __test_metadata *_metadata, struct bg *b, const char *const argv[])
{
	ASSERT_EQ(0, bg_start(b, argv)) TH_LOG("%s %s: %s", argv[0], argv[1], strerror(errno));
}

/* Stop it with @sig, its whole output into @out: the status. */
static int client_stop(struct bg *b, int sig, char *out)
{
	int status = bg_stop(b, sig, 30);

	if (out)
		bg_read(b->out, out, OUT_MAX);
	close(b->out);
	close(b->err);
	b->pid = -1;
	return status;
}

/* The frames of watch -J so far (its output into @out, @len bytes at most). */
static unsigned int watch_frames(struct bg *b, char *out, size_t len)
{
	const char *p = out;
	unsigned int n = 0;

	bg_read(b->out, out, len);
	while ((p = strstr(p, "\"frame\":")) && ++n)
		p++;
	return n;
}

/* Two more frames than there are: the last began after what moved. */
static void watch_stop(struct __test_metadata *_metadata, struct bg *b, char *out)
{
	unsigned int want = watch_frames(b, out, OUT_MAX) + 2;
	int i, status;

	for (i = 0; i < 1200 && watch_frames(b, out, OUT_MAX) < want; i++)
		msleep(50);
	status = client_stop(b, SIGINT, out);
	EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status)) TH_LOG("watch: status %#x", status);
	EXPECT_NE(NULL, strstr(out, "\"end\":\"signal\"")) TH_LOG("watch has no last line");
}

/* SIGINT, then its whole output; events have lost none (the summary says). */
static void events_stop(struct __test_metadata *_metadata, struct bg *b, char *out)
{
	int status = client_stop(b, SIGINT, out);

	EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status)) TH_LOG("events: status %#x", status);
	EXPECT_NE(NULL, strstr(out, "\"lost_reported\":0,\"missing\":0,\"overflows\":0"))
		TH_LOG("events lost: %.300s", strstr(out, "\"event\":\"summary\"") ?: "no summary");
}

static unsigned int count(const char *out, const char *needle)
{
	unsigned int n = 0;

	while ((out = strstr(out, needle)) && ++n)
		out++;
	return n;
}

/*
 * The handout's watch of export @pid over export @range (watch --batch,
 * in JSON: the same frames), until watch_stop(); after its first frame.
 */
static void watch_start(struct __test_metadata *_metadata, FIXTURE_DATA(labs) *self,
			const char *pid, const char *range, bool folio)
{
	const char *argv[] = { mw_client_path(), "watch", lab_str(&self->lab, pid), "--batch",
			       "-J", "-i", "0.5", "-n", "600", "--range",
			       lab_str(&self->lab, range), folio ? "--folio" : NULL, NULL };

	client_bg(_metadata, &self->watch, argv);
	ASSERT_TRUE(bg_wait_for(&self->watch, false, "\"frame\":0,", 30000))
		TH_LOG("no first frame");
}

/*
 * The watch's frames file exactly pages [@lo, @hi) of the @n at @start
 * under change @kind, each once.
 */
static void expect_watched(struct __test_metadata *_metadata, const char *out, const char *kind,
			   uint64_t start, size_t n, size_t lo, size_t hi)
{
	unsigned char hits[VIEW_MAX] = { 0 };
	size_t i;

	ASSERT_GE(VIEW_MAX, n);
	ASSERT_EQ(0, mw_watch_hits(out, kind, start, n, hits));
	for (i = 0; i < n; i++) {
		EXPECT_EQ(i >= lo && i < hi, hits[i]) TH_LOG("watch, %s: page %zu", kind, i);
	}
}

/*
 * Two more frames of the running watch: the last began after the step
 * (a student looks at the watch before going on).
 */
static void watch_sync(struct __test_metadata *_metadata, FIXTURE_DATA(labs) *self)
{
	static char out[OUT_MAX / 64];
	unsigned int want = watch_frames(&self->watch, out, sizeof(out)) + 2;
	int i;

	for (i = 0; i < 600 && watch_frames(&self->watch, out, sizeof(out)) < want; i++)
		msleep(50);
	ASSERT_LE(want, watch_frames(&self->watch, out, sizeof(out))) TH_LOG("the watch stalled");
}

/* ---- the pages of a range, as memwalk and pagemap see them -------------- */

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
	char *out;
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
	/* The handout's second terminal, to step 4. */
	watch_start(_metadata, self, "PID", "BUF_RANGE", false);

	/* 2: read: every page maps the one zero page, read-only. */
	STEP(2);
	watch_sync(_metadata, self);
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
	watch_sync(_metadata, self);
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

	/* The watch saw the same pages change as the diffs, each once. */
	out = malloc(OUT_MAX);
	ASSERT_NE(NULL, out);
	watch_stop(_metadata, &self->watch, out);
	expect_watched(_metadata, out, "faulted_in", buf, DEMAND_PAGES, 0, DEMAND_PAGES);
	expect_watched(_metadata, out, "cow_broken", buf, DEMAND_PAGES, 0, 4);
	expect_watched(_metadata, out, "unmapped", buf, DEMAND_PAGES, 0, 8);
	free(out);
}

/* A snapshot the client saved: PFNs hidden, none shown. */
static void expect_pfns_hidden(struct __test_metadata *_metadata, FIXTURE_DATA(labs) *self,
			       const char *file)
{
	static char json[1 << 16];
	char path[PATH_MAX];
	unsigned int shown = 0;
	const char *p;

	snprintf(path, sizeof(path), "%s/%s", self->dir, file);
	ASSERT_EQ(0, mw_read_file(path, json, sizeof(json))) TH_LOG("%s", path);
	EXPECT_NE(NULL, strstr(json, "\"no_pfn\"")) TH_LOG("%s: %.600s", file, json);
	for (p = json; (p = strstr(p, "\"pfn\":")); p++)
		shown += p[6] != '0';
	EXPECT_EQ(0, shown) TH_LOG("%s: %.900s", file, json);
}

/*
 * The demand lab as a student runs it under lab_mode=1: the program and
 * every command as an unprivileged user.  The entries, their bits and the
 * zero page are there, PFNs read 0; so diff cannot compare PFNs, and the
 * zero page's copy on write shows as a page made writable.
 */
static void lab_demand_unprivileged(struct __test_metadata *_metadata,
				    FIXTURE_DATA(labs) *self)
{
	const char *translate[] = { mw_client_path(), "translate", "", "", NULL };
	char *out = NULL, *err = NULL;
	struct view v;
	int status = -1;
	size_t i;

	STEP(1);
	SAVE("PID", "BUF_RANGE", "1.json");
	expect_pfns_hidden(_metadata, self, "1.json");

	STEP(2);
	SAVE("PID", "BUF_RANGE", "2.json");
	expect_pfns_hidden(_metadata, self, "2.json");
	EXPECT_EQ(DEMAND_PAGES, DIFF("1.json", "2.json", "faulted_in"));
	translate[2] = lab_str(&self->lab, "PID");
	translate[3] = lab_str(&self->lab, "BUF");
	ASSERT_EQ(0, client_run(translate, &status, &out, &err));
	EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status)) TH_LOG("translate: %.600s", err);
	free(out);
	free(err);
	/* What the student sees, by root's oracle: the zero page, read-only. */
	view_get(_metadata, self, VAR("PID"), VAR("BUF"), DEMAND_PAGES, &v);
	for (i = 0; i < DEMAND_PAGES; i++)
		expect_zero_page(_metadata, &v, i, pm_pfn(v.pm[0]));

	STEP(3);
	SAVE("PID", "BUF_RANGE", "3.json");
	/* Even without PFNs: the zero page then an anonymous page is a copy. */
	EXPECT_EQ(4, DIFF("2.json", "3.json", "cow_broken"));

	STEP(4);
	SAVE("PID", "BUF_RANGE", "4.json");
	EXPECT_EQ(8, DIFF("3.json", "4.json", "unmapped"));
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
	char *out;
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
	/* The handout's second terminal, a watch of the parent, to step 4. */
	watch_start(_metadata, self, "PID", "BUF_RANGE", false);

	/* 2: MADV_PAGEOUT: a swap entry each, a slot of its own each. */
	STEP(2);
	watch_sync(_metadata, self);
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
	watch_sync(_metadata, self);
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

	/* The watch: all 8 swapped out, page 2 swapped in, each once. */
	out = malloc(OUT_MAX);
	ASSERT_NE(NULL, out);
	watch_stop(_metadata, &self->watch, out);
	expect_watched(_metadata, out, "swapped_out", buf, SWAP_PAGES, 0, SWAP_PAGES);
	expect_watched(_metadata, out, "swapped_in", buf, SWAP_PAGES, SWAP_READ, SWAP_READ + 1);
	free(out);

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

/* ---- lab 6: reclaim and the LRU --------------------------------------------- */

#define RECLAIM_PAGES	512
#define RECLAIM_TWICE	256
#define RECLAIM_CG	"memwalk-reclaim"	/* labs/reclaim/lab.c's, under the root */

/* MGLRU on (/sys/kernel/mm/lru_gen/enabled, bit 0): the lists are generations. */
static bool mglru_on(void)
{
	char buf[32];

	return !mw_read_file("/sys/kernel/mm/lru_gen/enabled", buf, sizeof(buf)) &&
	       (strtoul(buf, NULL, 0) & 1);
}

/* A "key value" line of a cgroup file (memory.stat, memory.events), or -1. */
static long long cg_key(const char *cgdir, const char *file, const char *key)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%.3000s/%.64s", cgdir, file);
	return flat_key(path, key);
}

/* kpageflags of the page pagemap maps at @i, and memwalk's flags agree on @bit. */
static bool lru_bit(struct __test_metadata *_metadata, const struct view *v, size_t i,
		    unsigned int bit)
{
	uint64_t f = 0, pfn = pm_pfn(v->pm[i]);
	bool kpf;

	EXPECT_NE(0, pfn) TH_LOG("page %zu not present", i);
	EXPECT_EQ(0, mw_kpageflags(pfn, &f));
	kpf = f & (1ULL << bit);
	EXPECT_EQ(kpf, !!(v->page[i].folio_flags & (1U << bit)))
		TH_LOG("page %zu: kpageflags %#llx, memwalk folio flags %#x (bit %u)", i,
		       (unsigned long long)f, v->page[i].folio_flags, bit);
	return kpf;
}

/*
 * The LRU as the handout says: every page on an LRU list; on the classic
 * LRU (6.1: MGLRU built, off) active for the pages @active says, and no
 * generation; under MGLRU (6.12, 7.2: on) PG_active is never set on a
 * folio on its lists and each page has a generation: @gens's if given,
 * else, just faulted in, the youngest on 6.12 and any on 7.2 (which
 * places new pages in older generations: the line that differs).
 */
static void expect_lru(struct __test_metadata *_metadata, const struct view *v, bool mglru,
		       size_t active, const struct view *gens)
{
	const bool passed = _metadata->passed;
	struct utsname u;
	bool youngest;
	size_t i;

	youngest = !uname(&u) && !strncmp(u.release, "6.", 2);

	for (i = 0; i < v->n; i++) {
		EXPECT_TRUE(lru_bit(_metadata, v, i, MEMWALK_KPF_LRU)) TH_LOG("page %zu", i);
		EXPECT_EQ(!mglru && i < active, lru_bit(_metadata, v, i, MEMWALK_KPF_ACTIVE))
			TH_LOG("page %zu (MGLRU %s)", i, mglru ? "on" : "off");
		if (!mglru) {
			EXPECT_EQ(-1, v->page[i].lru_gen) TH_LOG("page %zu", i);
		} else if (gens) {
			EXPECT_EQ(gens->page[i].lru_gen, v->page[i].lru_gen) TH_LOG("page %zu", i);
		} else if (youngest) {
			/* 6.12 puts a page faulted in into the youngest generation. */
			EXPECT_EQ(0, v->page[i].lru_gen) TH_LOG("page %zu", i);
		} else {
			/* 7.2 does not (older ones: anon 1, file 2 in the VM). */
			EXPECT_TRUE(v->page[i].lru_gen >= 0 && v->page[i].lru_gen <= 3)
				TH_LOG("page %zu: gen %d", i, v->page[i].lru_gen);
		}
		if (passed && !_metadata->passed)
			break;	/* the first page that fails says it: not 512 times */
	}
}

/* What the reclaim lab's steps compare across steps. */
struct reclaim_run {
	bool mglru;
	pid_t pid;
	uint64_t file, anon;
	char cgroup[64];	/* as the events name it: /memwalk-reclaim */
	char cgdir[PATH_MAX];
	char memcg_key[96];	/* "memcg":"/memwalk-reclaim" */
	char *out;		/* a background client's output */
	struct view f1, a1, f2, a2, f3, a3;
};

/*
 * Step 3: a child wrote 24 MiB in the cgroup's 12 MiB: the cgroup's
 * reclaim dropped page cache and swapped anonymous pages, and the watch
 * says which: exactly those pagemap shows gone and in swap.  The events
 * (the handout's other terminal): one begin per reclaim call, each having
 * raised memory.events max once.
 */
static void reclaim_pressure(struct __test_metadata *_metadata, FIXTURE_DATA(labs) *self,
			     struct reclaim_run *r, long long max0, long long steal0)
{
	static unsigned char dropped[RECLAIM_PAGES], swapped[RECLAIM_PAGES];
	unsigned int begins, ends, want_dropped = 0, want_swapped = 0, bad = 0;
	struct mw_logcap lc = MW_LOGCAP(8);
	long long max, steal;
	size_t i;

	watch_stop(_metadata, &self->watch, r->out);
	view_get(_metadata, self, r->pid, r->file, RECLAIM_PAGES, &r->f3);
	view_get(_metadata, self, r->pid, r->anon, RECLAIM_PAGES, &r->a3);
	ASSERT_EQ(0, mw_watch_hits(r->out, "page_cache_dropped", r->file, RECLAIM_PAGES, dropped));
	ASSERT_EQ(0, mw_watch_hits(r->out, "swapped_out", r->anon, RECLAIM_PAGES, swapped));
	for (i = 0; i < RECLAIM_PAGES; i++) {
		bool gone = (r->f2.pm[i] & PM_PRESENT) && !(r->f3.pm[i] & (PM_PRESENT | PM_SWAP));
		bool out = (r->a2.pm[i] & PM_PRESENT) && (r->a3.pm[i] & PM_SWAP);

		want_dropped += gone;
		want_swapped += out;
		if (gone == dropped[i] && out == swapped[i])
			continue;
		bad++;
		if (mw_logcap_take(&lc))
			TH_LOG("page %zu: file pagemap %#llx, %u drops seen; anon pagemap %#llx, %u swap-outs seen",
			       i, (unsigned long long)r->f3.pm[i], dropped[i],
			       (unsigned long long)r->a3.pm[i], swapped[i]);
	}
	EXPECT_EQ(0, bad) TH_LOG("pages the watch and pagemap disagree on");
	TH_LOG("pagemap: %u file pages dropped, %u anonymous pages swapped out", want_dropped,
	       want_swapped);
	EXPECT_LT(0, want_dropped);
	EXPECT_LT(0, want_swapped);
	/* The handout's diff sums it up: the same pages. */
	SAVE("PID", "BOTH_RANGE", "3.json");
	EXPECT_EQ(want_dropped, DIFF("2.json", "3.json", "page_cache_dropped"));
	EXPECT_EQ(want_swapped, DIFF("2.json", "3.json", "swapped_out"));
	EXPECT_LT(0, count(r->out, "\"type\":\"memcg_reclaim_end\"")) TH_LOG("no memcg reclaim in the frames");

	events_stop(_metadata, &self->events, r->out);
	begins = count(r->out, "\"event\":\"memcg_reclaim_begin\"");
	ends = count(r->out, "\"event\":\"memcg_reclaim_end\"");
	max = cg_key(r->cgdir, "memory.events", "max") - max0;
	steal = cg_key(r->cgdir, "memory.stat", "pgsteal") - steal0;
	TH_LOG("memory.events max +%lld, memory.stat pgsteal +%lld; events: %u begins, %u ends",
	       max, steal, begins, ends);
	EXPECT_LT(0, begins);
	EXPECT_EQ(begins, ends);
	EXPECT_EQ(begins + ends, count(r->out, r->memcg_key)) TH_LOG("events of another cgroup");
	/* A charge forced without reclaim (atomic, PF_MEMALLOC) raises max too. */
	EXPECT_LE(begins, max);
	EXPECT_LT(0, steal);
}

/*
 * Step 4: no swap, a child past the limit: the cgroup's OOM killer killed
 * it, as memory.events, /proc/vmstat and the child's SIGKILL say, and the
 * events' OOM record names it.
 */
static void reclaim_oom(struct __test_metadata *_metadata, FIXTURE_DATA(labs) *self,
			struct reclaim_run *r, const struct vmstat *v0, long long oom0)
{
	struct vmstat v1;
	const char *line;
	char key[128];
	pid_t victim;

	victim = VAR("VICTIM");
	EXPECT_EQ(SIGKILL, VAR("VICTIM_SIGNAL"));
	EXPECT_TRUE(bg_wait_for(&self->events, false, "\"event\":\"oom_kill\"", 10000));
	events_stop(_metadata, &self->events, r->out);
	vmstat_read(&v1);
	EXPECT_EQ(1, v1.oom_kill - v0->oom_kill);
	EXPECT_EQ(1, cg_key(r->cgdir, "memory.events", "oom_kill") - oom0);
	line = strstr(r->out, "\"event\":\"oom_kill\"");
	ASSERT_NE(NULL, line) TH_LOG("%.1000s", r->out);
	EXPECT_EQ(1, count(r->out, "\"event\":\"oom_kill\""));
	snprintf(key, sizeof(key), "\"victim\":{\"pid\":%d,", victim);
	EXPECT_NE(NULL, strstr(line, key)) TH_LOG("%.1000s", line);
	EXPECT_LE(1, count(line, r->memcg_key)) TH_LOG("the victim's memcg: %.1000s", line);
	/* The OOM decision: not on every kernel's leg (memwalk_events says which). */
	if (strstr(line, "\"oom_memcg\":")) {
		snprintf(key, sizeof(key), "\"oom_memcg\":\"%s\"", r->cgroup);
		EXPECT_NE(NULL, strstr(line, key)) TH_LOG("%.1000s", line);
		snprintf(key, sizeof(key), "\"scope\":\"%s\"", r->cgroup);
		EXPECT_NE(NULL, strstr(line, key)) TH_LOG("%.1000s", line);
	} else {
		TH_LOG("no OOM decision attributes on this kernel's leg: oom_memcg not checked");
	}
}

static void lab_reclaim(struct __test_metadata *_metadata, FIXTURE_DATA(labs) *self)
{
	static struct reclaim_run run;
	struct reclaim_run *r = &run;
	const char *events[] = { mw_client_path(), "events", "-J", "--memcg", r->cgroup, NULL };
	const char *oom[] = { mw_client_path(), "events", "-J", "--oom", NULL };
	long long max0, steal0, oom0;
	struct vmstat v0;
	size_t i;

	if (!mw_swap_on())
		SKIP(return, "no swap device (/proc/swaps lists none)");
	if (!mw_disk_dir())
		SKIP(return, "no disk file system ($MEMWALK_DISK): page cache needs one");
	if (access("/sys/fs/cgroup/cgroup.controllers", F_OK))
		SKIP(return, "no cgroup v2 hierarchy at /sys/fs/cgroup");
	r->mglru = mglru_on();
	r->out = malloc(OUT_MAX);
	ASSERT_NE(NULL, r->out);
	TH_LOG("%s: MGLRU %s", self->info.release, r->mglru ?
	       "on (6.12, 7.2): the lists are generations" :
	       "off (6.1): the active and inactive lists");

	/* 1: page cache and anonymous pages, all on the LRU, none active yet. */
	STEP(1);
	r->pid = VAR("PID");
	r->file = VAR("FILE");
	r->anon = VAR("ANON");
	EXPECT_EQ(r->file + RECLAIM_PAGES * MW_PAGE, r->anon);
	snprintf(r->cgroup, sizeof(r->cgroup), "%s", lab_str(&self->lab, "CGROUP"));
	snprintf(r->cgdir, sizeof(r->cgdir), "%s", lab_str(&self->lab, "CGDIR"));
	snprintf(r->memcg_key, sizeof(r->memcg_key), "\"memcg\":\"%.63s\"", r->cgroup);
	ASSERT_STREQ("/" RECLAIM_CG, r->cgroup);
	SAVE("PID", "BOTH_RANGE", "1.json");
	view_get(_metadata, self, r->pid, r->file, RECLAIM_PAGES, &r->f1);
	view_get(_metadata, self, r->pid, r->anon, RECLAIM_PAGES, &r->a1);
	for (i = 0; i < RECLAIM_PAGES; i++) {
		EXPECT_TRUE(r->f1.page[i].flags & MEMWALK_RUN_FILE) TH_LOG("file page %zu", i);
		EXPECT_TRUE(r->a1.page[i].flags & MEMWALK_RUN_ANON) TH_LOG("anon page %zu", i);
	}
	expect_lru(_metadata, &r->f1, r->mglru, 0, NULL);
	expect_lru(_metadata, &r->a1, r->mglru, 0, NULL);
	EXPECT_LE(RECLAIM_PAGES * MW_PAGE, cg_key(r->cgdir, "memory.stat", "file"));
	EXPECT_LE(RECLAIM_PAGES * MW_PAGE, cg_key(r->cgdir, "memory.stat", "anon"));

	/*
	 * 2: pages 0-255 read twice with read(2).  Classic LRU: the second
	 * access activated them.  MGLRU: read(2) accesses count in the
	 * folio's tier (PG_referenced, PG_workingset, then the refs bits),
	 * not its generation: nothing moved.
	 */
	STEP(2);
	EXPECT_EQ(r->file, VAR("TWICE"));
	SAVE("PID", "BOTH_RANGE", "2.json");
	view_get(_metadata, self, r->pid, r->file, RECLAIM_PAGES, &r->f2);
	view_get(_metadata, self, r->pid, r->anon, RECLAIM_PAGES, &r->a2);
	if (r->mglru) {
		expect_lru(_metadata, &r->f2, true, 0, &r->f1);
		/*
		 * The tier's first mark, PG_referenced, on the pages read;
		 * the others keep theirs: clear on 6.12, set since the
		 * fault on 7.2 (the line that differs; its page cache of
		 * the file also comes in large folios).
		 */
		for (i = 0; i < RECLAIM_PAGES; i++) {
			EXPECT_EQ(i < RECLAIM_TWICE ||
				  (r->f1.page[i].folio_flags & (1U << MEMWALK_KPF_REFERENCED)),
				  lru_bit(_metadata, &r->f2, i, MEMWALK_KPF_REFERENCED))
				TH_LOG("file page %zu", i);
			if (!_metadata->passed)
				break;
		}
	} else {
		expect_lru(_metadata, &r->f2, false, RECLAIM_TWICE, NULL);
		EXPECT_EQ(RECLAIM_TWICE, DIFF("1.json", "2.json", "activated"));
	}
	/* The handout's second and third terminals: watch and events. */
	watch_start(_metadata, self, "PID", "BOTH_RANGE", true);
	client_bg(_metadata, &self->events, events);
	msleep(1000);	/* events: subscribed (JSON mode prints nothing before) */
	max0 = cg_key(r->cgdir, "memory.events", "max");
	steal0 = cg_key(r->cgdir, "memory.stat", "pgsteal");
	ASSERT_LE(0, max0);
	ASSERT_LE(0, steal0);

	STEP(3);
	reclaim_pressure(_metadata, self, r, max0, steal0);
	client_bg(_metadata, &self->events, oom);
	msleep(1000);
	vmstat_read(&v0);
	oom0 = cg_key(r->cgdir, "memory.events", "oom_kill");

	STEP(4);
	reclaim_oom(_metadata, self, r, &v0, oom0);
	free(r->out);
}

/* ---- the fixture ------------------------------------------------------------ */

FIXTURE_VARIANT_ADD(labs, translate) { .name = "translate", .check = lab_translate };
FIXTURE_VARIANT_ADD(labs, demand) {
	.name = "demand", .check = lab_demand, .unprivileged = lab_demand_unprivileged,
};
FIXTURE_VARIANT_ADD(labs, cow) { .name = "cow", .check = lab_cow };
FIXTURE_VARIANT_ADD(labs, swap) { .name = "swap", .check = lab_swap };
FIXTURE_VARIANT_ADD(labs, thp) { .name = "thp", .check = lab_thp };
FIXTURE_VARIANT_ADD(labs, reclaim) { .name = "reclaim", .check = lab_reclaim };

FIXTURE_SETUP(labs)
{
	char path[PATH_MAX], *slash;
	struct mw_why why;
	ssize_t n;
	int ret;

	self->lab.t.pid = -1;
	self->lab.t.to = self->lab.t.from = -1;
	self->watch.pid = self->events.pid = -1;
	snprintf(self->dir, sizeof(self->dir), "%s/memwalk-labs-XXXXXX", mw_tmpfs_dir());
	ASSERT_NE(NULL, mkdtemp(self->dir)) TH_LOG("mkdtemp %s: %s", self->dir, strerror(errno));
	/* The lab pass's user saves its snapshots there. */
	if (lab_pass)
		ASSERT_EQ(0, chown(self->dir, MW_NOBODY, MW_NOBODY));
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
	/* Where a lab keeps a file whose page cache can be dropped. */
	if (mw_disk_dir())
		setenv("LAB_DISK", mw_disk_dir(), 1);
	ret = mw_target_start(&self->lab.t, lab_pass ? MW_NOBODY : 0, NULL);
	unsetenv("MEMWALK_TARGET");
	ASSERT_EQ(0, ret) TH_LOG("start %s: %s", path, strerror(ret));
}

FIXTURE_TEARDOWN(labs)
{
	const char *const rm[] = { "/bin/rm", "-rf", self->dir, NULL };
	char path[PATH_MAX];
	char *out = NULL, *err = NULL;
	int status;

	mw_target_kill(&self->lab.t);
	if (self->watch.pid > 0)
		client_stop(&self->watch, SIGKILL, NULL);
	if (self->events.pid > 0)
		client_stop(&self->events, SIGKILL, NULL);
	/* What the reclaim lab leaves when killed: its cgroup and its file. */
	if (!strcmp(variant->name, "reclaim")) {
		cg_remove(RECLAIM_CG);
		if (mw_disk_dir()) {
			snprintf(path, sizeof(path), "%s/reclaim-lab.data", mw_disk_dir());
			unlink(path);
		}
	}
	if (self->dir[0] && !mw_capture(rm, &status, &out, &err)) {
		free(out);
		free(err);
	}
	if (self->fd >= 0)
		close(self->fd);
}

TEST_F(labs, promises)
{
	(lab_pass ? variant->unprivileged : variant->check)(_metadata, self);
}

/* In the lab pass, only the variants with an unprivileged check: a new one shows. */
int main(int argc, char **argv)
{
	struct __fixture_variant_metadata **pp = &_labs_fixture_object.variant, *v, *last = NULL;

	lab_pass = lab_mode_loaded();
	while ((v = *pp)) {
		if (lab_pass && !((const FIXTURE_VARIANT(labs) *)v->data)->unprivileged) {
			*pp = v->next;
			continue;
		}
		v->prev = last ? last : v;
		last = v;
		pp = &v->next;
	}
	if (_labs_fixture_object.variant)
		_labs_fixture_object.variant->prev = last;
	ksft_print_msg("%s: %s\n", LAB_MODE_PARAM, lab_pass ?
		       "Y, the labs with an unprivileged check, as an unprivileged user" :
		       "N, every lab as root");
	return test_harness_run(argc, argv);
}

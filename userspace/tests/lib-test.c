// SPDX-License-Identifier: GPL-2.0
/*
 * The library's error returns, for host-tests.sh: each check calls a
 * libmemwalk function on a case that must fail (or succeed) and compares
 * the return value and the message it leaves in struct mw_error.  The
 * library must not print: host-tests.sh checks that stderr stays empty.
 * The device is tests/fake-device.c, driven by its MW_FAKE_* variables.
 *
 *   lib-test DATA_DIR TMP_DIR   prints one line per failed check;
 *                               exit 0 if all passed
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <netlink/genl/genl.h>
#include <netlink/socket.h>

#include "collect.h"
#include "device.h"
#include "diff.h"
#include "error.h"
#include "genl.h"
#include "ptedecode.h"
#include "snapjson.h"
#include "test-check.h"

static const char *data_dir, *tmp_dir;

/* @ret is @code and @e says @code and holds @text. */
static void check_error(const char *what, int ret, int code,
			const struct mw_error *e, const char *text)
{
	check(ret == code, "%s: returned %d, expected %d", what, ret, code);
	check(e->code == code, "%s: error code %d, expected %d", what, e->code, code);
	check(strstr(e->msg, text) != NULL, "%s: message '%s' lacks '%s'", what,
	      e->msg, text);
}

static char *path_of(const char *dir, const char *name)
{
	static char buf[4][4096];
	static unsigned int i;
	char *p = buf[i++ % 4];

	snprintf(p, sizeof(buf[0]), "%s/%s", dir, name);
	return p;
}

static void write_file(const char *path, const char *text)
{
	FILE *fp = fopen(path, "w");

	if (!fp || fputs(text, fp) < 0 || fclose(fp)) {
		printf("FAIL: cannot write %s\n", path);
		exit(1);
	}
}

static void test_load(void)
{
	struct mw_snapshot *snap = (void *)1;
	struct mw_error e = { 0 };
	char *p;
	int ret;

	p = path_of(tmp_dir, "no-such.json");
	ret = mw_snapshot_load(p, &snap, &e);
	check_error("load of a missing file", ret, -ENOENT, &e,
		    "[ENOENT: No such file or directory]");
	check(snap == NULL, "load of a missing file: snapshot not NULL");

	p = path_of(tmp_dir, "bad.json");
	write_file(p, "{\n  \"schema_version\": 1,,\n}\n");
	ret = mw_snapshot_load(p, &snap, &e);
	check_error("load of bad JSON", ret, -EINVAL, &e, "bad.json:2:");
	check(!e.unavailable, "load of bad JSON: says unavailable");

	p = path_of(tmp_dir, "newer.json");
	write_file(p, "{\"schema_version\": 2}\n");
	ret = mw_snapshot_load(p, &snap, &e);
	check_error("load of a newer schema", ret, -EINVAL, &e,
		    "schema_version: version 2 is newer than this client reads");

	ret = mw_snapshot_load(path_of(data_dir, "cow-before.json"), &snap, &e);
	check(ret == 0 && snap, "load of cow-before.json: %d %s", ret, e.msg);
	mw_snapshot_free(snap);
}

static void test_diff(void)
{
	struct mw_snapshot *a = NULL, *b = NULL;
	struct mw_error e = { 0 };
	struct mw_diff d;
	int ret;

	if (mw_snapshot_load(path_of(data_dir, "cow-before.json"), &a, &e) ||
	    mw_snapshot_load(path_of(data_dir, "cow-after.json"), &b, &e)) {
		check(false, "diff: cannot load the fixtures: %s", e.msg);
		goto out;
	}
	ret = mw_diff(a, a, &d, &e);
	check(ret == 0 && mw_diff_empty(&d), "diff of a snapshot with itself: not empty");
	mw_diff_free(&d);

	ret = mw_diff(a, b, &d, &e);
	check(ret == 0 && d.changes[MW_CH_COW_BROKEN].pages > 0,
	      "diff cow-before cow-after: no COW broken");
	check(!strcmp(mw_change_name(MW_CH_COW_BROKEN), "COW broken"),
	      "mw_change_name(MW_CH_COW_BROKEN) is '%s'",
	      mw_change_name(MW_CH_COW_BROKEN));
	mw_diff_free(&d);

	b->page_size *= 2;
	ret = mw_diff(a, b, &d, &e);
	check_error("diff of different page sizes", ret, -EINVAL, &e,
		    "the snapshots have different page sizes (4096 and 8192)");
	mw_diff_free(&d);
out:
	mw_snapshot_free(a);
	mw_snapshot_free(b);
}

/* ---- diff: every field of a page, ranges, what does not compare ---------- */

#define PAGE_AT(i)	(0x10000ULL + (i) * 4096ULL)
#define ANON_RW		(MEMWALK_STATE_PRESENT | MEMWALK_RUN_WRITE | MEMWALK_RUN_USER | \
			 MEMWALK_RUN_ACCESSED | MEMWALK_RUN_ANON | MEMWALK_RUN_EXCLUSIVE)
#define LRU_ANON	((1U << MEMWALK_KPF_LRU) | (1U << MEMWALK_KPF_ANON) | \
			 (1U << MEMWALK_KPF_SWAPBACKED))

/* A snapshot of pid 1 with one VMA of 16 pages and the runs @runs. */
static struct mw_snapshot *fake_snapshot(uint32_t mode, uint64_t range_start,
					 uint64_t range_end,
					 const struct memwalk_page_run *runs, size_t nr)
{
	struct mw_vma tmpl = { .start = PAGE_AT(0), .end = PAGE_AT(16),
			       .page_shift = 12, .name = "" };
	struct mw_snapshot *snap = mw_snapshot_new();
	struct mw_vma *vma;
	size_t i;

	if (!snap)
		return NULL;
	snap->page_size = 4096;
	snap->pid = 1;
	snap->release = mw_strdup("6.12.0");
	snap->comm = mw_strdup("t");
	snap->flags = MEMWALK_SNAP_VMAS | MEMWALK_SNAP_PAGES | mode;
	snap->range_start = range_start;
	snap->range_end = range_end;
	vma = mw_snapshot_add_vma(snap, &tmpl);
	for (i = 0; vma && i < nr; i++)
		if (mw_vma_add_run(vma, &runs[i]))
			vma = NULL;
	if (!snap->release || !snap->comm || !vma) {
		mw_snapshot_free(snap);
		return NULL;
	}
	return snap;
}

static struct memwalk_page_run page(unsigned int i, uint64_t pfn, uint32_t flags,
				    uint32_t folio, uint32_t mapcount,
				    uint32_t refcount)
{
	return (struct memwalk_page_run){
		.start = PAGE_AT(i), .nr_pages = 1, .pfn = pfn, .flags = flags,
		.folio_flags = folio, .mapcount = mapcount, .refcount = refcount,
		.lru_gen = -1,
	};
}

/* The kinds @d reports, as a bit mask of (1 << MW_CH_*). */
static uint64_t kinds_of(const struct mw_diff *d)
{
	uint64_t mask = 0;
	size_t ch;

	for (ch = 0; ch < MW_NR_CHANGES; ch++)
		if (d->changes[ch].nr)
			mask |= 1ULL << ch;
	return mask;
}

struct field_case {
	const char *what;
	struct memwalk_page_run a, b;
	uint64_t kinds;			/* exactly these */
	enum mw_change first;		/* whose first range has @detail */
	const char *detail;
};

#define K(ch)	(1ULL << (ch))

static void test_diff_fields(void)
{
	const uint32_t swap = MEMWALK_STATE_SWAP | MEMWALK_RUN_SOFT_DIRTY;
	const struct field_case cases[] = {
		{ "fork", page(0, 100, ANON_RW, LRU_ANON, 1, 1),
		  page(0, 100, ANON_RW & ~(MEMWALK_RUN_WRITE | MEMWALK_RUN_EXCLUSIVE),
		       LRU_ANON, 2, 2),
		  K(MW_CH_WRPROTECT_COW) | K(MW_CH_SHARED_FORK) | K(MW_CH_MAPCOUNT) |
		  K(MW_CH_REFCOUNT), MW_CH_MAPCOUNT, "mapcount 1->2" },
		{ "soft-dirty write-protect", page(0, 100, ANON_RW, LRU_ANON, 1, 1),
		  page(0, 100, ANON_RW & ~MEMWALK_RUN_WRITE, LRU_ANON, 1, 1),
		  K(MW_CH_WRPROTECT), MW_CH_WRPROTECT, "" },
		{ "made writable", page(0, 100, ANON_RW & ~MEMWALK_RUN_WRITE, LRU_ANON, 1, 1),
		  page(0, 100, ANON_RW, LRU_ANON, 1, 1), K(MW_CH_WRITABLE), MW_CH_WRITABLE, "" },
		{ "other sharer gone",
		  page(0, 100, ANON_RW & ~(MEMWALK_RUN_WRITE | MEMWALK_RUN_EXCLUSIVE),
		       LRU_ANON, 2, 2),
		  page(0, 100, ANON_RW & ~MEMWALK_RUN_WRITE, LRU_ANON, 1, 1),
		  K(MW_CH_UNSHARED) | K(MW_CH_MAPCOUNT) | K(MW_CH_REFCOUNT),
		  MW_CH_REFCOUNT, "refcount 2->1" },
		{ "file page mapped elsewhere",
		  page(0, 100, MEMWALK_STATE_PRESENT | MEMWALK_RUN_FILE | MEMWALK_RUN_EXCLUSIVE,
		       0, 1, 2),
		  page(0, 100, MEMWALK_STATE_PRESENT | MEMWALK_RUN_FILE, 0, 1, 2),
		  K(MW_CH_SHARED), MW_CH_SHARED, "" },
		{ "accessed", page(0, 100, ANON_RW & ~MEMWALK_RUN_ACCESSED, LRU_ANON, 1, 1),
		  page(0, 100, ANON_RW, LRU_ANON, 1, 1), K(MW_CH_ACCESSED), MW_CH_ACCESSED, "" },
		{ "aged", page(0, 100, ANON_RW, LRU_ANON, 1, 1),
		  page(0, 100, ANON_RW & ~MEMWALK_RUN_ACCESSED, LRU_ANON, 1, 1),
		  K(MW_CH_ACCESS_CLEARED), MW_CH_ACCESS_CLEARED, "" },
		{ "soft-dirtied", page(0, 100, ANON_RW, LRU_ANON, 1, 1),
		  page(0, 100, ANON_RW | MEMWALK_RUN_SOFT_DIRTY, LRU_ANON, 1, 1),
		  K(MW_CH_SOFT_DIRTIED), MW_CH_SOFT_DIRTIED, "" },
		{ "clear_refs 4", page(0, 100, ANON_RW | MEMWALK_RUN_SOFT_DIRTY, LRU_ANON, 1, 1),
		  page(0, 100, ANON_RW, LRU_ANON, 1, 1),
		  K(MW_CH_SOFT_DIRTY_CLEARED), MW_CH_SOFT_DIRTY_CLEARED, "" },
		{ "into the swap cache", page(0, 100, ANON_RW, LRU_ANON, 1, 1),
		  page(0, 100, ANON_RW, LRU_ANON | (1U << MEMWALK_KPF_SWAPCACHE), 1, 2),
		  K(MW_CH_SWAPCACHE_ADDED) | K(MW_CH_REFCOUNT), MW_CH_SWAPCACHE_ADDED, "" },
		{ "out of the swap cache",
		  page(0, 100, ANON_RW, LRU_ANON | (1U << MEMWALK_KPF_SWAPCACHE), 1, 1),
		  page(0, 100, ANON_RW, LRU_ANON, 1, 1),
		  K(MW_CH_SWAPCACHE_LEFT), MW_CH_SWAPCACHE_LEFT, "" },
		{ "mlock", page(0, 100, ANON_RW, LRU_ANON, 1, 1),
		  page(0, 100, ANON_RW, LRU_ANON | (1U << MEMWALK_FOLIO_MLOCKED), 1, 1),
		  K(MW_CH_MLOCKED), MW_CH_MLOCKED, "" },
		{ "munlock", page(0, 100, ANON_RW, LRU_ANON | (1U << MEMWALK_FOLIO_MLOCKED), 1, 1),
		  page(0, 100, ANON_RW, LRU_ANON, 1, 1), K(MW_CH_MUNLOCKED), MW_CH_MUNLOCKED, "" },
		{ "pinned", page(0, 100, ANON_RW, LRU_ANON, 1, 1),
		  page(0, 100, ANON_RW, LRU_ANON, 1, 1025),
		  K(MW_CH_REFCOUNT), MW_CH_REFCOUNT, "refcount 1->1025" },
		{ "swap slot", page(0, 7, swap, 0, 0, 0), page(0, 9, swap, 0, 0, 0),
		  K(MW_CH_SWAP_SLOT), MW_CH_SWAP_SLOT, "" },
		{ "swap device", page(0, 7, swap, 0, 0, 0),
		  page(0, 7, swap | (1U << MEMWALK_RUN_SWAP_TYPE_SHIFT), 0, 0, 0),
		  K(MW_CH_SWAP_SLOT), MW_CH_SWAP_SLOT, "swap type 0->1" },
		{ "swap soft-dirty cleared", page(0, 7, swap, 0, 0, 0),
		  page(0, 7, MEMWALK_STATE_SWAP, 0, 0, 0),
		  K(MW_CH_SOFT_DIRTY_CLEARED), MW_CH_SOFT_DIRTY_CLEARED, "" },
		{ "uffd-wp and node", page(0, 100, ANON_RW, LRU_ANON, 1, 1),
		  page(0, 100, ANON_RW | MEMWALK_RUN_UFFD_WP, LRU_ANON | (1U << MEMWALK_KPF_IDLE),
		       1, 1),
		  K(MW_CH_OTHER), MW_CH_OTHER, "+uffd_wp +idle" },
	};
	struct mw_error e = { 0 };
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct field_case *c = &cases[i];
		struct mw_snapshot *a = fake_snapshot(MEMWALK_SNAP_FOLIO, 0, 0, &c->a, 1);
		struct mw_snapshot *b = fake_snapshot(MEMWALK_SNAP_FOLIO, 0, 0, &c->b, 1);
		struct mw_diff d;
		int ret;

		if (!a || !b) {
			check(false, "diff %s: out of memory", c->what);
		} else {
			ret = mw_diff(a, b, &d, &e);
			check(ret == 0, "diff %s: %d %s", c->what, ret, e.msg);
			check(kinds_of(&d) == c->kinds,
			      "diff %s: kinds 0x%llx, expected 0x%llx", c->what,
			      (unsigned long long)kinds_of(&d),
			      (unsigned long long)c->kinds);
			check(d.changes[c->first].nr == 1 &&
			      d.changes[c->first].pages == 1 &&
			      !strcmp(d.changes[c->first].ranges[0].detail, c->detail),
			      "diff %s: %s not one page with detail '%s'", c->what,
			      mw_change_name(c->first), c->detail);
			mw_diff_free(&d);
		}
		mw_snapshot_free(a);
		mw_snapshot_free(b);
	}
}

/*
 * Snapshots of ranges compare where both were walked: a page outside
 * one side's range is not unmapped, nor faulted in.
 */
static void test_diff_ranges(void)
{
	const struct memwalk_page_run full[] = {
		page(1, 101, ANON_RW, LRU_ANON, 1, 1),
		page(2, 102, ANON_RW, LRU_ANON, 1, 1),
		page(9, 109, ANON_RW, LRU_ANON, 1, 1),
	};
	const struct memwalk_page_run part[] = {
		page(2, 202, ANON_RW, LRU_ANON, 1, 1),	/* moved */
		page(3, 103, ANON_RW, LRU_ANON, 1, 1),	/* faulted in */
	};
	struct mw_snapshot *a = fake_snapshot(MEMWALK_SNAP_FOLIO, 0, 0, full, 3);
	struct mw_snapshot *b = fake_snapshot(MEMWALK_SNAP_FOLIO, PAGE_AT(2), PAGE_AT(4),
					      part, 2);
	struct mw_error e = { 0 };
	struct mw_diff d;
	int ret;

	if (!a || !b) {
		check(false, "diff of ranges: out of memory");
		goto out;
	}
	ret = mw_diff(a, b, &d, &e);
	check(ret == 0 && kinds_of(&d) == (K(MW_CH_PFN_CHANGED) | K(MW_CH_FAULTED_IN)),
	      "diff of a full and a range snapshot: kinds 0x%llx (unmapped outside the range?)",
	      (unsigned long long)kinds_of(&d));
	check(d.start == PAGE_AT(2) && d.end == PAGE_AT(4),
	      "diff of ranges: compared 0x%llx-0x%llx", (unsigned long long)d.start,
	      (unsigned long long)d.end);
	mw_diff_free(&d);
	ret = mw_diff(b, a, &d, &e);
	check(ret == 0 && kinds_of(&d) == (K(MW_CH_PFN_CHANGED) | K(MW_CH_UNMAPPED)) &&
	      d.changes[MW_CH_UNMAPPED].pages == 1,
	      "diff of a range and a full snapshot: kinds 0x%llx (faulted in outside the range?)",
	      (unsigned long long)kinds_of(&d));
	mw_diff_free(&d);
	/* disjoint ranges: nothing walked on both sides, nothing differs */
	a->range_start = PAGE_AT(8);
	a->range_end = PAGE_AT(10);
	ret = mw_diff(a, b, &d, &e);
	check(ret == 0 && mw_diff_empty(&d), "diff of disjoint ranges: not empty");
	mw_diff_free(&d);
out:
	mw_snapshot_free(a);
	mw_snapshot_free(b);
}

/* What makes two snapshots not compare, and what is then left out. */
static void test_diff_mismatches(void)
{
	const struct memwalk_page_run r = page(0, 100, ANON_RW, LRU_ANON, 1, 1);
	struct mw_snapshot *a = fake_snapshot(MEMWALK_SNAP_FOLIO, 0, 0, &r, 1);
	struct mw_snapshot *b = fake_snapshot(MEMWALK_SNAP_FOLIO, 0, 0, &r, 1);
	struct mw_error e = { 0 };
	struct mw_diff d;
	char text[200];

	if (!a || !b) {
		check(false, "mismatches: out of memory");
		goto out;
	}
	check(mw_diff_mismatches(a, b) == 0, "same process: mismatches");
	b->pid = 2;
	check(mw_diff_mismatches(a, b) == MW_MISMATCH_PID, "other pid: not a mismatch");
	mw_diff_mismatch_text(a, b, MW_MISMATCH_PID, text, sizeof(text));
	check(!strcmp(text, "different processes (pid 1 and 2)"), "pid text '%s'", text);
	b->pid = 1;
	free(b->release);
	b->release = mw_strdup("7.2.0\033[2J");
	check(mw_diff_mismatches(a, b) == MW_MISMATCH_KERNEL, "other kernel: not a mismatch");
	mw_diff_mismatch_text(a, b, MW_MISMATCH_KERNEL, text, sizeof(text));
	check(!strcmp(text, "different kernels (6.12.0 and 7.2.0?[2J)"),
	      "kernel text '%s' (escape not replaced?)", text);
	free(b->release);
	b->release = mw_strdup(a->release);
	a->hostname = mw_strdup("vm");
	b->boot_id = mw_strdup("b");
	check(mw_diff_mismatches(a, b) == 0, "one side not recorded: a mismatch");
	b->hostname = mw_strdup("vm");
	a->boot_id = mw_strdup("a");
	check(mw_diff_mismatches(a, b) == MW_MISMATCH_MACHINE, "other boot: not a mismatch");
	mw_diff_mismatch_text(a, b, MW_MISMATCH_MACHINE, text, sizeof(text));
	check(!strcmp(text, "different boots (boot id a and b)"), "boot text '%s'", text);
	check(mw_diff(a, b, &d, &e) == 0 && d.not_compared == MW_NOT_COMPARED_PFN,
	      "other boot: PFNs compared");
	mw_diff_free(&d);
	free(b->boot_id);
	b->boot_id = mw_strdup("a");
	b->flags = MEMWALK_SNAP_VMAS | MEMWALK_SNAP_PAGES | MEMWALK_SNAP_ENTRY_ONLY;
	b->vmas[0].runs[0].flags &= ~MEMWALK_RUN_EXCLUSIVE;
	b->vmas[0].runs[0].mapcount = 0;
	check(mw_diff_mismatches(a, b) == MW_MISMATCH_MODE, "entry-only: not a mismatch");
	mw_diff_mismatch_text(a, b, MW_MISMATCH_MODE, text, sizeof(text));
	check(!strcmp(text, "different modes (full and entry-only)"), "mode text '%s'", text);
	check(mw_diff(a, b, &d, &e) == 0 && mw_diff_empty(&d) &&
	      d.not_compared == (MW_NOT_COMPARED_FOLIO | MW_NOT_COMPARED_PAGE),
	      "full against entry-only: what the entries lack differs (not_compared 0x%x)",
	      d.not_compared);
	mw_diff_free(&d);
out:
	mw_snapshot_free(a);
	mw_snapshot_free(b);
}

static void test_device(void)
{
	struct mw_snapshot *s1 = NULL, *s2 = NULL;
	struct mw_collect_opts opts = { .pid = 4242 };
	struct memwalk_translate t;
	struct mw_device *dev = NULL;
	struct mw_error e = { 0 };
	size_t vma_len;
	int ret;

	unsetenv("MW_FAKE_SNAPSHOT");
	ret = mw_device_open(&dev, &e);
	check_error("open without the module", ret, -ENOENT, &e,
		    "memwalk module not loaded: run 'modprobe memwalk'");
	check(e.unavailable && !dev, "open without the module: not unavailable");

	setenv("MW_FAKE_SNAPSHOT", path_of(data_dir, "cow-before.json"), 1);
	ret = mw_device_open(&dev, &e);
	check(ret == 0 && dev && dev->info.page_shift == 12,
	      "open of the fake device: %d %s", ret, e.msg);
	if (ret)
		return;

	/* One handle, two snapshots: the grown buffers are kept. */
	setenv("MW_FAKE_MIN_BUF", "600000", 1);
	ret = mw_collect(dev, &opts, &s1, &e);
	check(ret == 0 && s1, "first snapshot: %d %s", ret, e.msg);
	vma_len = dev->vma_len;
	check(vma_len >= 600000, "first snapshot: VMA buffer of %zu bytes", vma_len);
	ret = mw_collect(dev, &opts, &s2, &e);
	check(ret == 0 && s2, "second snapshot: %d %s", ret, e.msg);
	check(dev->vma_len == vma_len, "second snapshot: buffer not kept");
	check(s1 && s2 && s1->nr_vmas == s2->nr_vmas && s1->nr_vmas > 0,
	      "the two snapshots differ");
	unsetenv("MW_FAKE_MIN_BUF");
	mw_snapshot_free(s2);

	setenv("MW_FAKE_ERRNO", "EPERM", 1);
	ret = mw_collect(dev, &opts, &s2, &e);
	check_error("snapshot refused", ret, -EPERM, &e,
		    "snapshot: permission denied reading the page tables of pid 4242: need root (CAP_SYS_ADMIN) [EPERM: ");
	check(e.unavailable && !s2, "snapshot refused: not unavailable");
	setenv("MW_FAKE_ERRNO", "ESRCH", 1);
	ret = mw_translate(dev, 4242, 0x1000, &t, &e);
	check_error("translate of a gone process", ret, -ESRCH, &e,
		    "translate: no such process, or it has no user address space");
	check(!e.unavailable, "translate of a gone process: unavailable");
	unsetenv("MW_FAKE_ERRNO");
	mw_device_close(dev);

	/* The features are read once, at open. */
	setenv("MW_FAKE_FEATURES", "0", 1);
	ret = mw_device_open(&dev, &e);
	check(ret == 0, "open of a module without features: %d %s", ret, e.msg);
	if (!ret) {
		ret = mw_collect(dev, &opts, &s2, &e);
		check_error("snapshot without the feature", ret, -EOPNOTSUPP, &e,
			    "cannot take snapshots: it lacks the 'snapshot' feature");
		ret = mw_translate(dev, 4242, 0x1000, &t, &e);
		check_error("translate without the feature", ret, -EOPNOTSUPP, &e,
			    "cannot translate: it lacks the 'snapshot' feature");
		mw_device_close(dev);
	}
	unsetenv("MW_FAKE_FEATURES");
	mw_snapshot_free(s1);
	mw_snapshot_free(s2);
}

/* The family is not registered here (host-tests.sh runs without the module). */
static void test_genl(void)
{
	struct mw_genl genl = { 0 };
	struct mw_error e = { 0 };
	struct nl_sock *resolver, *sk = NULL;
	int ret;

	if (access("/sys/module/memwalk", F_OK) == 0)
		return;
	ret = mw_genl_open(&genl, &e);
	check_error("netlink without the family", ret, -ENOENT, &e,
		    "memwalk module not loaded: run 'modprobe memwalk' [generic netlink family \"memwalk\" not found]");
	check(e.unavailable && !genl.sock, "netlink without the family: not unavailable");

	resolver = nl_socket_alloc();
	if (!resolver || genl_connect(resolver) < 0) {
		check(false, "cannot open a generic netlink socket");
		nl_socket_free(resolver);
		return;
	}
	ret = mw_genl_join(resolver, "nlctrl", "no-such-group", 4096, &sk, &e);
	check_error("join of a group that does not exist", ret, -ENOENT, &e,
		    "generic netlink family \"nlctrl\" has no multicast group \"no-such-group\"");
	check(!sk, "join of a group that does not exist: a socket");
	ret = mw_genl_join(resolver, "nlctrl", "notify", 4096, &sk, &e);
	check(ret == 0 && sk, "join of nlctrl notify: %d %s", ret, e.msg);
	nl_socket_free(sk);
	nl_socket_free(resolver);
}

/*
 * Entries decoded per architecture, against the formats as the
 * architecture manuals give them (arm64: Arm ARM D8.3, 4K granule).
 */
static void test_pte_decode(void)
{
	static const struct mw_pte_format arm64 = { MW_PTE_ARM64_4K, false, true },
		arm64_lpa2 = { MW_PTE_ARM64_4K, true, true },
		arm64_61 = { MW_PTE_ARM64_4K, false, false },
		x86 = { MW_PTE_X86_64, false, false }, raw = { MW_PTE_RAW, false, false };
	static const struct {
		const char *what;
		const struct mw_pte_format *fmt;
		unsigned int level;
		uint64_t e;
		const char *bits;
		bool present, leaf;
		uint64_t next, size;
	} cases[] = {
		{ "arm64 page", &arm64, MEMWALK_PGT_PTE,
		  0x3 | 0x40 | 0x300 | 0x400 | 0x800 | 0x12345000ULL | (1ULL << 51) |
		  (1ULL << 53) | (1ULL << 54) | (1ULL << 55),
		  "V,PAGE,ATTR=0,AP1,AF,nG,DBM,PXN,UXN,SWDIRTY,SH=3", true, true,
		  0x12345000ULL, 4096 },
		{ "arm64 LPA2 page: address bits 51:50 in 9:8", &arm64_lpa2, MEMWALK_PGT_PTE,
		  0x3 | 0x100 | 0x400 | 0x80 | (3ULL << 48) | 0x1000 | (1ULL << 52),
		  "V,PAGE,ATTR=0,AP2,AF,CONT", true, true, 0x0007000000001000ULL, 4096 },
		{ "arm64 PMD block", &arm64, MEMWALK_PGT_PMD,
		  0x1 | 0x4 | 0x400 | 0x40200000ULL | 0x123000,
		  "V,BLOCK,ATTR=1,AF,SH=0", true, true, 0x40200000ULL, 1ULL << 21 },
		{ "arm64 PUD block", &arm64, MEMWALK_PGT_PUD,
		  0x1 | 0x400 | 0x80000000ULL, "V,BLOCK,ATTR=0,AF,SH=0", true, true,
		  0x80000000ULL, 1ULL << 30 },
		{ "arm64 table", &arm64, MEMWALK_PGT_PMD,
		  0x3 | 0x41000000ULL | (1ULL << 59) | (1ULL << 62), "V,T,PXNT,APT=2", true,
		  false, 0x41000000ULL, 0 },
		{ "arm64 PROT_NONE (6.9+: nG, not valid)", &arm64, MEMWALK_PGT_PTE,
		  0x2 | 0x800 | 0x400 | 0x5000 | (1ULL << 54) | (1ULL << 58),
		  "PROTNONE,PAGE,ATTR=0,AF,UXN,UFFD_WP,SH=0", true, true, 0x5000, 4096 },
		{ "arm64 PROT_NONE (before 6.9: bit 58)", &arm64_61, MEMWALK_PGT_PTE,
		  0x2 | 0x800 | 0x400 | 0x5000 | (1ULL << 58),
		  "PROTNONE,PAGE,ATTR=0,AF,nG,SH=0", true, true, 0x5000, 4096 },
		{ "arm64 swap (6.9+)", &arm64, MEMWALK_PGT_PTE,
		  (2ULL << 6) | (0x345ULL << 12) | 0x4 | 0x8,
		  "not valid: swap format, type 2 offset 0x345,SWP_EXCLUSIVE,SWP_UFFD_WP", false,
		  false, 0, 0 },
		{ "arm64 swap (before 6.9)", &arm64_61, MEMWALK_PGT_PTE,
		  (2ULL << 3) | (0x345ULL << 8) | 0x4,
		  "not valid: swap format, type 2 offset 0x345,SWP_EXCLUSIVE", false, false, 0, 0 },
		{ "arm64 block at the top level", &arm64, MEMWALK_PGT_PGD, 0x1 | 0x1000,
		  "V,reserved descriptor", false, false, 0, 0 },
		{ "none", &arm64, MEMWALK_PGT_PTE, 0, "none", false, false, 0, 0 },
		{ "x86 PMD leaf", &x86, MEMWALK_PGT_PMD,
		  0x1 | 0x2 | 0x4 | 0x20 | 0x40 | 0x80 | 0x200000ULL | (1ULL << 63),
		  "P,RW,US,A,D,NX,PSE", true, true, 0x200000ULL, 1ULL << 21 },
		{ "unknown machine", &raw, MEMWALK_PGT_PTE, 0x1234, "-", false, false, 0, 0 },
	};
	struct memwalk_info info = { .page_shift = 12, .pgtable_levels = 5 };
	struct mw_pte_decoded d;
	struct mw_pte_format f;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		mw_pte_decode(cases[i].fmt, cases[i].e, cases[i].level, &d);
		check(!strcmp(d.bits, cases[i].bits), "decode %s: bits '%s', expected '%s'",
		      cases[i].what, d.bits, cases[i].bits);
		check(d.present == cases[i].present && (!d.present || d.leaf == cases[i].leaf),
		      "decode %s: present %d leaf %d", cases[i].what, d.present, d.leaf);
		check(d.next == cases[i].next && d.size == cases[i].size,
		      "decode %s: next %#" PRIx64 " size %#" PRIx64 ", expected %#" PRIx64 " %#" PRIx64,
		      cases[i].what, d.next, d.size, cases[i].next, cases[i].size);
	}
	strcpy(info.machine, "aarch64");
	strcpy(info.release, "6.12.117+deb12-arm64");
	f = mw_pte_format(&info);
	check(f.arch == MW_PTE_ARM64_4K && f.lpa2 && f.present_invalid_ng,
	      "arm64 6.12 with 5 levels: not LPA2 and 6.9's format");
	info.pgtable_levels = 4;
	strcpy(info.release, "6.1.0-56-arm64");
	f = mw_pte_format(&info);
	check(f.arch == MW_PTE_ARM64_4K && !f.lpa2 && !f.present_invalid_ng,
	      "arm64 6.1 with 4 levels: not 48-bit and the old format");
	info.page_shift = 16;
	check(mw_pte_format(&info).arch == MW_PTE_RAW, "arm64 with 64K pages: decoded as 4K");
	strcpy(info.machine, "x86_64");
	check(mw_pte_format(&info).arch == MW_PTE_X86_64, "x86_64: not decoded as x86-64");
	strcpy(info.machine, "riscv64");
	check(mw_pte_format(&info).arch == MW_PTE_RAW, "riscv64: decoded");
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: lib-test DATA_DIR TMP_DIR\n");
		return 2;
	}
	data_dir = argv[1];
	tmp_dir = argv[2];
	test_load();
	test_diff();
	test_diff_fields();
	test_diff_ranges();
	test_diff_mismatches();
	test_device();
	test_genl();
	test_pte_decode();
	return failed ? 1 : 0;
}

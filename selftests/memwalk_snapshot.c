// SPDX-License-Identifier: GPL-2.0
/*
 * MEMWALK_IOC_SNAPSHOT and MEMWALK_IOC_TRANSLATE against the kernel's own
 * answers.  memwalk_target builds known states (untouched, touched,
 * read-only and PROT_NONE anon; zero page; page cache on tmpfs and, if
 * MEMWALK_DISK names a mounted disk file system, on a disk; shared anon;
 * copy-on-write before and after a write; PMD- and PTE-mapped THP and the
 * huge zero page; hugetlb; swapped pages; mlock; soft-dirty after
 * clear_refs), the test freezes it (SIGSTOP) and compares:
 *
 *  - every VMA with /proc/PID/maps line by line, its flags with smaps'
 *    VmFlags and its backing file with /proc/PID/map_files;
 *  - every page of every VMA with /proc/PID/pagemap (present, swap type
 *    and offset, PFN, soft-dirty, exclusive, file/shared-anon, uffd-wp);
 *  - every mapped PFN's folio flags with /proc/kpageflags and its mapcount
 *    with /proc/kpagecount;
 *  - per-VMA sums over the runs (Rss, Anonymous, AnonHugePages, Swap,
 *    Referenced, Dirty, Shared, hugetlb) with smaps, and the client's
 *    columns with smaps;
 *  - MEMWALK_IOC_TRANSLATE's entries with pagemap, debugfs' maps with
 *    /proc/PID/maps;
 *  - and every error path with its exact errno, resumption with tiny
 *    buffers, an exiting target, a storm of VMA changes, and the
 *    mmap_lock hold budget over a large shmem hole of cached pages
 *    (mincore() of the file as the oracle).
 *
 * Exactness: the target runs on CPU 0 only and, before it says "ready",
 * drains every CPU's LRU batches (move_pages() to its own node calls
 * lru_add_drain_all()); then it is stopped, so nothing of it moves: no
 * fault, no LRU batch flush, no accessed-bit update.  The guest runs
 * nothing else (scripts/guest/selftests.sh also disables periodic
 * writeback).  The bits that could still change without the target doing
 * anything are the LRU-list ones (LRU, ACTIVE, REFERENCED, IDLE) when some
 * other CPU's batch is flushed late; for them a comparison is taken again,
 * after another lru_add_drain_all(), at most MAX_PASSES times, and the
 * last pass must be exact.  Every other field must match the first time.
 *
 * Writes the target makes after the drain would defeat it: a first write
 * to a page still shared with its fork child copies it into a fresh page
 * sitting in an LRU batch (refcount +1, not yet LRU), so the target writes
 * back every page of its data, bss, heap and stack, and 256 KiB of stack
 * below, before draining.
 *
 * Documented differences (not bugs): pagemap reports soft-dirty for a
 * hugetlb page only from the VMA (pagemap_hugetlb_range() ignores the
 * entry's bit), and on the PMD path it reads the huge zero page as a file
 * page (pmd_page() without vm_normal_page_pmd()); memwalk reports the
 * entry's bit and never calls a zero page a file page.  /proc/PID/maps
 * shows [vsyscall], which is not in the mm (a gate VMA above TASK_SIZE):
 * it is left out.  /proc/kpageflags has no PG_workingset: that bit is
 * not compared.  6.12's kpageflags sets KPF_KSM on every anonymous page
 * (stable_page_flags() tests "mapping & PAGE_MAPPING_KSM", which the anon
 * bit alone satisfies): while KSM has never run no page is a KSM page, and
 * memwalk must say so.  On 6.1, kpageflags reads most flags of a tail page
 * from the tail itself, which lacks the folio's LRU, dirty and other bits
 * (smaps reads the folio's); memwalk reports the folio's on every line,
 * so a tail page is compared with its head's kpageflags.  Read faults on a file mapping
 * also map the neighbours already cached (fault-around): the page-cache
 * states allow untouched pages to be mapped, clean.
 *
 * Needs root and the module loaded.  Environment: MEMWALK_TMPFS (a tmpfs
 * directory, default /tmp), MEMWALK_DISK (a directory on a disk file
 * system; its tests are skipped without it), MEMWALK_TARGET (the target
 * program, default next to this one), MEMWALK_CLIENT (the client),
 * MEMWALK_STORM_SECONDS (default 10).
 */
#include "kselftest_harness.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/magic.h>
#include <linux/memwalk.h>

#include "memwalk_snapshot_lib.h"
#include "memwalk_util.h"

#define DEV		MEMWALK_DEVICE_PATH
#define DEBUGFS_DIR	"/sys/kernel/debug/memwalk"
#define VMA_BUF		(1UL << 20)
#define RUN_BUF		(8UL << 20)
#define READY_MS	60000
#define MAX_PASSES	3
#define MAX_LOGGED	12	/* mismatches logged per comparison */
#define TAIL		64
#define HPAGE		(2UL << 20)
#define PTE_ADDR_MASK	0x000ffffffffff000ULL
#define PMD_ADDR_MASK	0x000fffffffe00000ULL

/* folio_flags bits that LRU-list moves can change without the target. */
#define RACY_FOLIO_BITS	((1U << MEMWALK_KPF_LRU) | (1U << MEMWALK_KPF_ACTIVE) | \
			 (1U << MEMWALK_KPF_REFERENCED) | (1U << MEMWALK_KPF_IDLE))
/* Compared with kpageflags: the header's KPF bits and PG_mlocked (KPF 33). */
#define KPF_COMPARED	(MW_KPF_BITS | (1U << MEMWALK_FOLIO_MLOCKED))

static const char *tmpfs_dir(void)
{
	const char *d = getenv("MEMWALK_TMPFS");

	return d && *d ? d : "/tmp";
}

static const char *disk_dir(void)
{
	const char *d = getenv("MEMWALK_DISK");

	return d && *d ? d : NULL;
}

static int errno_of(int ret)
{
	return ret < 0 ? errno : ret;
}

/* Open the device and read its info; false (with @why) if snapshots are absent. */
static bool dev_setup(struct __test_metadata *_metadata, int *fd,
		      struct memwalk_info *info, char *why, size_t len)
{
	ASSERT_EQ(0, geteuid()) TH_LOG("these tests need root");
	*fd = open(DEV, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, *fd) TH_LOG("open %s: %s (is memwalk loaded?)", DEV, strerror(errno));
	memset(info, 0, sizeof(*info));
	info->size = sizeof(*info);
	ASSERT_EQ(0, errno_of(ioctl(*fd, MEMWALK_IOC_INFO, info)));
	ASSERT_TRUE(info->pgtable_levels == 4 || info->pgtable_levels == 5);
	mw_task_size = mw_task_size_for(info->pgtable_levels);
	if (!(info->features & MEMWALK_FEAT_SNAPSHOT)) {
		snprintf(why, len, "module without MEMWALK_FEAT_SNAPSHOT");
		return false;
	}
	return true;
}

static void snap_all(struct __test_metadata *_metadata, int fd, pid_t pid,
		     uint32_t flags, struct mw_snap *s)
{
	struct mw_why why;

	ASSERT_EQ(0, mw_snapshot(fd, pid, 0, 0, flags, VMA_BUF, RUN_BUF, s, &why))
		TH_LOG("snapshot of %d: %s", pid, why.msg);
}

/* The run holding @addr, or NULL. */
static const struct memwalk_page_run *run_at(const struct mw_snap *s, uint64_t addr)
{
	size_t i = mw_run_find(s->runs, s->nr_runs, addr);

	return i < s->nr_runs && s->runs[i].start <= addr ? &s->runs[i] : NULL;
}

static int translate(int fd, pid_t pid, uint64_t addr, struct memwalk_translate *t)
{
	memset(t, 0, sizeof(*t));
	t->size = sizeof(*t);
	t->pid = pid;
	t->addr = addr;
	return errno_of(ioctl(fd, MEMWALK_IOC_TRANSLATE, t));
}

static bool user_vma(const struct mw_vma *v)
{
	return v->rec.start < mw_task_size;
}

/* ---- the states target ------------------------------------------------ */

FIXTURE(states) {
	int fd;
	struct memwalk_info info;
	struct mw_target t;
	bool skip;
	char reason[256];
};

FIXTURE_SETUP(states)
{
	const char *args[12] = { "states", "--tmpfs", tmpfs_dir() };
	char path[64];
	int n = 3;

	self->t.pid = -1;
	self->t.to = self->t.from = -1;
	if (!dev_setup(_metadata, &self->fd, &self->info, self->reason,
		       sizeof(self->reason))) {
		self->skip = true;
		SKIP(return, "%s", self->reason);
	}
	if (disk_dir()) {
		args[n++] = "--disk";
		args[n++] = disk_dir();
	}
	args[n] = NULL;
	ASSERT_EQ(0, mw_target_start(&self->t, 0, args));
	ASSERT_EQ(0, mw_target_expect(&self->t, "built", READY_MS))
		TH_LOG("target: %s", self->t.notes);
	/* The oracle's setup: clear soft-dirty bits (memwalk never does). */
	snprintf(path, sizeof(path), "/proc/%d/clear_refs", self->t.pid);
	ASSERT_EQ(0, mw_write_file(path, "4"));
	ASSERT_EQ(0, mw_target_send(&self->t, "go\n"));
	ASSERT_EQ(0, mw_target_expect(&self->t, "ready", READY_MS))
		TH_LOG("target: %s", self->t.notes);
	ASSERT_EQ(0, mw_target_freeze(&self->t));
}

FIXTURE_TEARDOWN(states)
{
	mw_target_kill(&self->t);
	if (self->fd >= 0)
		close(self->fd);
}

/* The region or SKIP (the target could not build it: why is in its notes). */
#define REGION(name) ({							\
	const struct mw_region *__r = mw_target_region(&self->t, name);	\
	if (!__r)							\
		SKIP(return, "target has no %s region: %.900s", name,	\
		     self->t.notes);					\
	__r; })

#define SETUP_OK() do { if (self->skip) return; } while (0)

/* -- VMAs --------------------------------------------------------------- */

static void perms_of(uint64_t flags, char perms[5])
{
	perms[0] = flags & MEMWALK_VMA_READ ? 'r' : '-';
	perms[1] = flags & MEMWALK_VMA_WRITE ? 'w' : '-';
	perms[2] = flags & MEMWALK_VMA_EXEC ? 'x' : '-';
	perms[3] = flags & MEMWALK_VMA_MAYSHARE ? 's' : 'p';
	perms[4] = '\0';
}

TEST_F(states, vmas_equal_maps)
{
	struct mw_maps_line *maps;
	size_t nr, i, j = 0;
	struct mw_snap s;
	char perms[5];

	SETUP_OK();
	snap_all(_metadata, self->fd, self->t.pid, MEMWALK_SNAP_VMAS, &s);
	ASSERT_EQ(0, mw_maps_read(self->t.pid, &maps, &nr));
	for (i = 0; i < nr; i++) {
		const struct mw_maps_line *m = &maps[i];
		const struct mw_vma *v;

		if (m->start >= mw_task_size)
			continue;	/* [vsyscall]: not in the mm */
		ASSERT_LT(j, s.nr_vmas) TH_LOG("maps has more VMAs: %llx-%llx %s",
					       (unsigned long long)m->start,
					       (unsigned long long)m->end, m->name);
		v = &s.vmas[j++];
		perms_of(v->rec.flags, perms);
		EXPECT_EQ(m->start, v->rec.start);
		EXPECT_EQ(m->end, v->rec.end);
		EXPECT_STREQ(m->perms, perms);
		EXPECT_EQ(m->offset, v->rec.pgoff << MW_PAGE_SHIFT);
		EXPECT_EQ(m->major, v->rec.dev_major);
		EXPECT_EQ(m->minor, v->rec.dev_minor);
		EXPECT_EQ(m->ino, v->rec.ino);
		EXPECT_STREQ(m->name, v->name);
		if (!_metadata->passed) {
			TH_LOG("maps line %zu: %llx-%llx %s %llx %02x:%02x %llu %s", i,
			       (unsigned long long)m->start, (unsigned long long)m->end,
			       m->perms, (unsigned long long)m->offset, m->major, m->minor,
			       (unsigned long long)m->ino, m->name);
			break;
		}
	}
	EXPECT_EQ(j, s.nr_vmas) TH_LOG("memwalk has VMAs maps does not show");
	free(maps);
	mw_snap_free(&s);
}

static const struct {
	uint64_t flag;
	const char *mn;
} vmflag_names[] = {
	{ MEMWALK_VMA_READ, "rd" }, { MEMWALK_VMA_WRITE, "wr" },
	{ MEMWALK_VMA_EXEC, "ex" }, { MEMWALK_VMA_SHARED, "sh" },
	{ MEMWALK_VMA_MAYREAD, "mr" }, { MEMWALK_VMA_MAYWRITE, "mw" },
	{ MEMWALK_VMA_MAYEXEC, "me" }, { MEMWALK_VMA_MAYSHARE, "ms" },
	{ MEMWALK_VMA_GROWSDOWN, "gd" }, { MEMWALK_VMA_LOCKED, "lo" },
	{ MEMWALK_VMA_LOCKONFAULT, "lf" }, { MEMWALK_VMA_HUGETLB, "ht" },
	{ MEMWALK_VMA_PFNMAP, "pf" }, { MEMWALK_VMA_MIXEDMAP, "mm" },
	{ MEMWALK_VMA_IO, "io" }, { MEMWALK_VMA_DONTDUMP, "dd" },
	{ MEMWALK_VMA_DONTEXPAND, "de" }, { MEMWALK_VMA_DONTCOPY, "dc" },
	{ MEMWALK_VMA_WIPEONFORK, "wf" }, { MEMWALK_VMA_HUGEPAGE, "hg" },
	{ MEMWALK_VMA_NOHUGEPAGE, "nh" }, { MEMWALK_VMA_MERGEABLE, "mg" },
	{ MEMWALK_VMA_SOFTDIRTY, "sd" }, { MEMWALK_VMA_UFFD_MISSING, "um" },
	{ MEMWALK_VMA_UFFD_WP, "uw" },
};

/*
 * MEMWALK_VMA_* against smaps' VmFlags, page_shift against KernelPageSize,
 * FILE/SHMEM against /proc/PID/map_files (the file behind the VMA and its
 * file system), ANON against "no file and no special name".
 */
TEST_F(states, vma_flags_equal_smaps)
{
	struct mw_smaps *sm;
	size_t nr, i, j = 0, k;
	struct mw_snap s;

	SETUP_OK();
	snap_all(_metadata, self->fd, self->t.pid, MEMWALK_SNAP_VMAS, &s);
	ASSERT_EQ(0, mw_smaps_read(self->t.pid, &sm, &nr));
	for (i = 0; i < nr && _metadata->passed; i++) {
		const struct mw_smaps *m = &sm[i];
		const struct mw_vma *v;
		struct statfs fs;
		struct stat st;
		char path[96];
		bool file, special;
		int fd;

		if (m->map.start >= mw_task_size)
			continue;
		ASSERT_LT(j, s.nr_vmas);
		v = &s.vmas[j++];
		ASSERT_EQ(m->map.start, v->rec.start);
		for (k = 0; k < ARRAY_SIZE(vmflag_names); k++) {
			const char *mn = vmflag_names[k].mn;

			EXPECT_EQ(mw_vmflags_has(m->vmflags, mn),
				  !!(v->rec.flags & vmflag_names[k].flag))
				TH_LOG("VMA %llx %s: VmFlags \"%s\", memwalk %#llx, flag %s",
				       (unsigned long long)v->rec.start, v->name, m->vmflags,
				       (unsigned long long)v->rec.flags, mn);
		}
		EXPECT_EQ(m->kernel_page_size, 1ULL << (v->rec.page_shift - 10))
			TH_LOG("VMA %llx %s", (unsigned long long)v->rec.start, v->name);

		snprintf(path, sizeof(path), "/proc/%d/map_files/%llx-%llx", self->t.pid,
			 (unsigned long long)v->rec.start, (unsigned long long)v->rec.end);
		/* The link exists for VMAs with a file; following it opens the file. */
		fd = open(path, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		file = fd >= 0;
		if (fd >= 0)
			close(fd);
		else
			ASSERT_EQ(ENOENT, errno) TH_LOG("%s", path);
		EXPECT_EQ(file, !!(v->rec.flags & MEMWALK_VMA_FILE))
			TH_LOG("VMA %llx %s: map_files %s", (unsigned long long)v->rec.start,
			       v->name, file ? "present" : "absent");
		fd = file ? open(path, O_RDONLY | O_CLOEXEC) : -1;
		if (file)
			ASSERT_LE(0, fd) TH_LOG("%s: %s", path, strerror(errno));
		if (fd >= 0) {
			ASSERT_EQ(0, fstat(fd, &st));
			ASSERT_EQ(0, fstatfs(fd, &fs));
			EXPECT_EQ((uint64_t)st.st_ino, v->rec.ino);
			EXPECT_EQ(fs.f_type == TMPFS_MAGIC,
				  !!(v->rec.flags & MEMWALK_VMA_SHMEM))
				TH_LOG("VMA %llx %s: f_type %#lx", (unsigned long long)v->rec.start,
				       v->name, (unsigned long)fs.f_type);
			close(fd);
		} else {
			EXPECT_FALSE(v->rec.flags & MEMWALK_VMA_SHMEM);
		}
		special = v->name[0] == '[' && strcmp(v->name, "[heap]") &&
			  strcmp(v->name, "[stack]") && strncmp(v->name, "[anon:", 6);
		EXPECT_EQ(!file && !special, !!(v->rec.flags & MEMWALK_VMA_ANON))
			TH_LOG("VMA %llx %s: flags %#llx", (unsigned long long)v->rec.start,
			       v->name, (unsigned long long)v->rec.flags);
	}
	EXPECT_EQ(j, s.nr_vmas);
	free(sm);
	mw_snap_free(&s);
}

/* -- runs ------------------------------------------------------------------- */

/*
 * A run describes pages of one VMA: it never continues into the next VMA,
 * even when the entries there are alike (mw_strict_runs; the other tests
 * accept a run that continues into an adjacent VMA record and look at it
 * page by page, so that this rule fails here alone).
 */
TEST_F(states, runs_inside_one_vma)
{
	struct mw_snap s;

	SETUP_OK();
	mw_strict_runs = true;
	snap_all(_metadata, self->fd, self->t.pid, MEMWALK_SNAP_ALL, &s);
	mw_snap_free(&s);
	snap_all(_metadata, self->fd, self->t.pid, MEMWALK_SNAP_ALL | MEMWALK_SNAP_NO_PFN, &s);
	mw_snap_free(&s);
	snap_all(_metadata, self->fd, self->t.pid,
		 MEMWALK_SNAP_VMAS | MEMWALK_SNAP_PAGES | MEMWALK_SNAP_ENTRY_ONLY, &s);
	mw_snap_free(&s);
}

/* -- pages: pagemap ------------------------------------------------------ */

/*
 * The pagemap entry memwalk's answer implies for @addr in @v (@r the run
 * holding it, or NULL), and in *mask the bits to compare.
 */
static uint64_t pagemap_expected(const struct mw_vma *v, const struct memwalk_page_run *r,
				 uint64_t addr, uint64_t *mask)
{
	bool hugetlb = v->rec.flags & MEMWALK_VMA_HUGETLB;
	uint64_t e = 0, idx;

	*mask = PM_COMPARED;
	if (v->rec.flags & MEMWALK_VMA_SOFTDIRTY)
		e |= PM_SOFT_DIRTY;
	if (!r)
		return e;
	idx = (addr - r->start) >> MW_PAGE_SHIFT;
	if ((r->flags & MEMWALK_RUN_SOFT_DIRTY) && !hugetlb)
		e |= PM_SOFT_DIRTY;
	if (r->flags & MEMWALK_RUN_UFFD_WP)
		e |= PM_UFFD_WP;
	switch (mw_run_state(r)) {
	case MEMWALK_STATE_PRESENT:
		e |= PM_PRESENT | ((r->pfn + idx) & PM_PFN_MASK);
		if (r->flags & MEMWALK_RUN_FILE)
			e |= PM_FILE;
		if (r->flags & MEMWALK_RUN_EXCLUSIVE)
			e |= PM_MMAP_EXCLUSIVE;
		/* pagemap's PMD path calls the huge zero page a file page */
		if ((r->flags & MEMWALK_RUN_ZERO) &&
		    mw_run_level(r) == MEMWALK_LEVEL_PMD)
			*mask &= ~PM_FILE;
		break;
	case MEMWALK_STATE_SWAP:
		e |= PM_SWAP | mw_run_swap_type(r) |
		     ((r->pfn + idx) << PM_SWAP_TYPE_BITS);
		break;
	case MEMWALK_STATE_MIGRATION:
		e |= PM_SWAP | ((r->pfn + idx) << PM_SWAP_TYPE_BITS);
		*mask &= ~((1ULL << PM_SWAP_TYPE_BITS) - 1) & ~PM_FILE & ~PM_MMAP_EXCLUSIVE;
		break;
	case MEMWALK_STATE_SHMEM_SWAP:
		break;		/* no entry: pagemap shows none */
	default:	/* device, hwpoison, marker: swap-like, frame not compared */
		e |= PM_SWAP;
		*mask &= ~PM_PFN_MASK & ~PM_FILE & ~PM_MMAP_EXCLUSIVE;
		break;
	}
	return e;
}

/* Compare every page of every VMA; returns the number of mismatches. */
static size_t compare_pagemap_but(struct __test_metadata *_metadata, pid_t pid,
				  const struct mw_snap *s, size_t *compared,
				  uint64_t ignored)
{
	size_t i, k, bad = 0, ri;
	char buf[256];

	*compared = 0;
	for (i = 0; i < s->nr_vmas; i++) {
		const struct mw_vma *v = &s->vmas[i];
		size_t n = (v->rec.end - v->rec.start) >> MW_PAGE_SHIFT;
		uint64_t *pm = malloc(n * sizeof(*pm));

		if (!user_vma(v))
			continue;
		ASSERT_NE(NULL, pm);
		ASSERT_EQ(0, mw_pagemap_read(pid, v->rec.start, n, pm));
		ri = mw_run_find(s->runs, s->nr_runs, v->rec.start);
		for (k = 0; k < n; k++) {
			uint64_t addr = v->rec.start + k * MW_PAGE, want, mask;
			const struct memwalk_page_run *r = NULL;

			while (ri < s->nr_runs && mw_run_end(&s->runs[ri]) <= addr)
				ri++;
			if (ri < s->nr_runs && s->runs[ri].start <= addr)
				r = &s->runs[ri];
			want = pagemap_expected(v, r, addr, &mask);
			mask &= ~ignored;
			(*compared)++;
			if (!((want ^ pm[k]) & mask))
				continue;
			if (bad++ < MAX_LOGGED)
				TH_LOG("%#llx (%s): pagemap %#llx, memwalk implies %#llx (mask %#llx): %s",
				       (unsigned long long)addr, v->name,
				       (unsigned long long)pm[k], (unsigned long long)want,
				       (unsigned long long)mask,
				       r ? mw_run_str(r, buf, sizeof(buf)) : "no run");
		}
		free(pm);
	}
	return bad;
}

static size_t compare_pagemap(struct __test_metadata *_metadata, pid_t pid,
			      const struct mw_snap *s, size_t *compared)
{
	return compare_pagemap_but(_metadata, pid, s, compared, 0);
}

TEST_F(states, pages_equal_pagemap)
{
	size_t compared, bad;
	struct mw_snap s;

	SETUP_OK();
	snap_all(_metadata, self->fd, self->t.pid, MEMWALK_SNAP_ALL, &s);
	bad = compare_pagemap(_metadata, self->t.pid, &s, &compared);
	EXPECT_EQ(0, bad) TH_LOG("%zu of %zu pages differ from pagemap", bad, compared);
	EXPECT_LT(1000, compared);
	mw_snap_free(&s);
}

/* The same without folio state: the PTE-only walk decodes entries alike. */
TEST_F(states, pages_equal_pagemap_pte_only)
{
	size_t compared, bad;
	struct mw_snap s;

	SETUP_OK();
	snap_all(_metadata, self->fd, self->t.pid,
		 MEMWALK_SNAP_VMAS | MEMWALK_SNAP_PAGES, &s);
	bad = compare_pagemap(_metadata, self->t.pid, &s, &compared);
	EXPECT_EQ(0, bad) TH_LOG("%zu of %zu pages differ from pagemap", bad, compared);
	mw_snap_free(&s);
}

/*
 * Entry-only runs against pagemap: present, swap type/offset, PFN,
 * soft-dirty and uffd-wp, everything but what needs the struct page
 * (PM_FILE, PM_MMAP_EXCLUSIVE).
 */
TEST_F(states, pages_equal_pagemap_entry_only)
{
	size_t compared, bad;
	struct mw_snap s;

	SETUP_OK();
	snap_all(_metadata, self->fd, self->t.pid,
		 MEMWALK_SNAP_VMAS | MEMWALK_SNAP_PAGES | MEMWALK_SNAP_ENTRY_ONLY, &s);
	bad = compare_pagemap_but(_metadata, self->t.pid, &s, &compared,
				  PM_FILE | PM_MMAP_EXCLUSIVE);
	EXPECT_EQ(0, bad) TH_LOG("%zu of %zu pages differ from pagemap", bad, compared);
	EXPECT_LT(1000, compared);
	mw_snap_free(&s);
}

/* -- pages: kpageflags, kpagecount ---------------------------------------- */

struct kpf_result {
	size_t compared;
	size_t bad;		/* mismatches in anything */
	size_t racy_only;	/* mismatches only in RACY_FOLIO_BITS */
	size_t kpf_ksm_unmerged;	/* kpageflags' KSM while KSM never ran */
	bool ksm_ran;
};

static bool mglru_enabled(void)
{
	char buf[32];

	return !mw_read_file("/sys/kernel/mm/lru_gen/enabled", buf, sizeof(buf)) &&
	       strtoul(buf, NULL, 0) != 0;
}

/*
 * Whether KSM may have merged pages: if it never ran, no page is a KSM
 * page, whatever /proc/kpageflags says (6.12's stable_page_flags() tests
 * "mapping & PAGE_MAPPING_KSM", which the anon bit alone satisfies, so it
 * reports KPF_KSM for every anonymous page): memwalk must say 0.
 */
static bool ksm_ever_ran(void)
{
	char run[16] = "", merged[32] = "";

	mw_read_file("/sys/kernel/mm/ksm/run", run, sizeof(run));
	mw_read_file("/sys/kernel/mm/ksm/full_scans", merged, sizeof(merged));
	return strtoul(run, NULL, 0) != 0 || strtoul(merged, NULL, 0) != 0;
}

/*
 * Whether the large folio at @pfn (mapped at @addr in @v by PTEs) is only
 * partly mapped there, as pagemap @pm (the VMA's entries) tells: some of
 * its pages outside the VMA or not mapped at their place.  -1 when memwalk
 * may answer either way (a folio straddling two PTE tables is "partial" by
 * its conservative rule).
 */
static int partial_oracle(const struct mw_vma *v, const uint64_t *pm,
			  uint64_t addr, uint64_t pfn, unsigned int order)
{
	uint64_t nr = 1ULL << order, head = pfn & ~(nr - 1);
	uint64_t span = addr - ((pfn - head) << MW_PAGE_SHIFT), i;

	if (span < v->rec.start || span + (nr << MW_PAGE_SHIFT) > v->rec.end)
		return 1;
	if ((span & ~(HPAGE - 1)) != ((span + (nr << MW_PAGE_SHIFT) - 1) & ~(HPAGE - 1)))
		return -1;
	for (i = 0; i < nr; i++) {
		uint64_t e = pm[((span - v->rec.start) >> MW_PAGE_SHIFT) + i];

		if (!(e & PM_PRESENT) || (e & PM_PFN_MASK) != head + i)
			return 1;
	}
	return 0;
}

static void compare_kpageflags(struct __test_metadata *_metadata, pid_t pid,
			       const struct mw_snap *s, const struct memwalk_info *info,
			       bool log, struct kpf_result *res)
{
	bool mglru = mglru_enabled(), ksm = ksm_ever_ran();
	uint64_t last_head = ~0ULL, head_kpf = 0;
	size_t i, k;
	char buf[256];

	memset(res, 0, sizeof(*res));
	res->ksm_ran = ksm;
	for (i = 0; i < s->nr_vmas; i++) {
		const struct mw_vma *v = &s->vmas[i];
		size_t n = (v->rec.end - v->rec.start) >> MW_PAGE_SHIFT, ri;
		uint64_t *pm;

		if (!user_vma(v))
			continue;
		pm = malloc(n * sizeof(*pm));
		ASSERT_NE(NULL, pm);
		ASSERT_EQ(0, mw_pagemap_read(pid, v->rec.start, n, pm));
		for (ri = mw_run_find(s->runs, s->nr_runs, v->rec.start);
		     ri < s->nr_runs && s->runs[ri].start < v->rec.end; ri++) {
			const struct memwalk_page_run *r = &s->runs[ri];
			bool large = r->order > 0;

			if (mw_run_state(r) != MEMWALK_STATE_PRESENT ||
			    (r->flags & MEMWALK_RUN_SPECIAL))
				continue;
			for (k = 0; k < r->nr_pages; k++) {
				uint64_t addr = r->start + k * MW_PAGE, pfn = r->pfn + k;
				uint64_t kpf, kpc, head = pfn & ~((1ULL << r->order) - 1);
				uint64_t folio_kpf;	/* its folio's: the head page's */
				uint32_t want, got, diff;
				const char *what = NULL;
				int partial;

				if (addr < v->rec.start || addr >= v->rec.end)
					continue;	/* this page is another VMA's */
				ASSERT_EQ(0, mw_kpageflags(pfn, &kpf));
				ASSERT_EQ(0, mw_kpagecount(pfn, &kpc));
				if (large && head != last_head) {
					ASSERT_EQ(0, mw_kpageflags(head, &head_kpf));
					last_head = head;
				}
				folio_kpf = large ? head_kpf : kpf;
				res->compared++;
				/* HWPOISON is the page's own; the rest the folio's. */
				want = (folio_kpf & MW_KPF_BITS & ~(1U << MEMWALK_KPF_HWPOISON)) |
				       (kpf & (1U << MEMWALK_KPF_HWPOISON)) |
				       (((folio_kpf >> MW_KPF_MLOCKED) & 1) << MEMWALK_FOLIO_MLOCKED);
				if (!ksm && (want & (1U << MEMWALK_KPF_KSM))) {
					res->kpf_ksm_unmerged++;
					want &= ~(1U << MEMWALK_KPF_KSM);
				}
				got = r->folio_flags & KPF_COMPARED;
				diff = want ^ got;
				if (diff) {
					what = "folio flags differ from kpageflags";
				} else if (r->mapcount != kpc) {
					what = "mapcount differs from kpagecount";
				} else if (!large && (kpf & ((1ULL << MW_KPF_COMPOUND_HEAD) |
							     (1ULL << MW_KPF_COMPOUND_TAIL)))) {
					what = "order 0 but kpageflags says compound";
				} else if (large && (!(kpf & (1ULL << (pfn == head ?
						MW_KPF_COMPOUND_HEAD : MW_KPF_COMPOUND_TAIL))) ||
						     !(folio_kpf & (1ULL << MW_KPF_COMPOUND_HEAD)))) {
					what = "order > 0 but kpageflags has no head/tail there";
				} else if (large != !!(r->folio_flags & ((1U << MEMWALK_FOLIO_PMD_MAPPED) |
									  (1U << MEMWALK_FOLIO_PTE_MAPPED))) ||
					   (large && !!(r->folio_flags & (1U << MEMWALK_FOLIO_PMD_MAPPED)) !=
					    (mw_run_level(r) == MEMWALK_LEVEL_PMD))) {
					what = "PMD_MAPPED/PTE_MAPPED disagree with level and order";
				} else if (r->nid >= info->nr_node_ids) {
					what = "nid out of range";
				} else if (!(r->flags & MEMWALK_RUN_ZERO) &&
					   (!r->refcount || r->refcount < r->mapcount)) {
					what = "refcount below mapcount";
				} else if (!!(r->flags & MEMWALK_RUN_ANON) != !!(kpf & (1ULL << MEMWALK_KPF_ANON)) ||
					   !!(r->flags & MEMWALK_RUN_ZERO) != !!(kpf & (1ULL << MEMWALK_KPF_ZERO_PAGE))) {
					what = "ANON/ZERO run flags disagree with kpageflags";
				} else if (!!(r->flags & MEMWALK_RUN_SHMEM) !=
					   (!(r->flags & MEMWALK_RUN_ZERO) &&
					    !(kpf & (1ULL << MEMWALK_KPF_ANON)) &&
					    !!(kpf & (1ULL << MEMWALK_KPF_SWAPBACKED)))) {
					what = "SHMEM run flag disagrees with kpageflags (swap-backed, not anon)";
				} else if (r->lru_gen != -1 &&
					   (!(info->features & MEMWALK_FEAT_MGLRU) || !mglru ||
					    !(kpf & (1ULL << MEMWALK_KPF_LRU)))) {
					what = "MGLRU generation of a folio not on an MGLRU list";
				} else if (mglru && r->lru_gen == -1 &&
					   (info->features & MEMWALK_FEAT_MGLRU) &&
					   (kpf & (1ULL << MEMWALK_KPF_LRU)) &&
					   !(kpf & (1ULL << MEMWALK_KPF_UNEVICTABLE))) {
					what = "no MGLRU generation for a folio on an MGLRU list";
				} else if (large && mw_run_level(r) == MEMWALK_LEVEL_PTE &&
					   (partial = partial_oracle(v, pm, addr, pfn, r->order)) >= 0 &&
					   partial != !!(r->folio_flags & (1U << MEMWALK_FOLIO_PARTIAL))) {
					what = "PARTIAL disagrees with pagemap";
				} else if (!large && (r->folio_flags & (1U << MEMWALK_FOLIO_PARTIAL))) {
					what = "PARTIAL on an order-0 page";
				}
				if (!what)
					continue;
				res->bad++;
				if (diff && !(diff & ~RACY_FOLIO_BITS) &&
				    !strcmp(what, "folio flags differ from kpageflags"))
					res->racy_only++;
				if (log && res->bad <= MAX_LOGGED)
					TH_LOG("%#llx pfn %#llx (%s): %s: kpageflags %#llx (want %#x, got %#x), kpagecount %llu; %s",
					       (unsigned long long)addr, (unsigned long long)pfn,
					       v->name, what, (unsigned long long)kpf, want, got,
					       (unsigned long long)kpc,
					       mw_run_str(r, buf, sizeof(buf)));
			}
		}
		free(pm);
	}
}

static void check_kpageflags(struct __test_metadata *_metadata, int fd, pid_t pid,
			     const struct memwalk_info *info, uint32_t flags)
{
	struct kpf_result res;
	struct mw_snap s;
	int pass;

	for (pass = 1; pass <= MAX_PASSES; pass++) {
		snap_all(_metadata, fd, pid, flags, &s);
		compare_kpageflags(_metadata, pid, &s, info, pass == MAX_PASSES, &res);
		mw_snap_free(&s);
		if (!res.bad || res.bad != res.racy_only)
			break;
		TH_LOG("pass %d: %zu pages differ only in LRU-list bits; draining and again",
		       pass, res.bad);
		mw_lru_drain_all();
	}
	if (res.bad && pass < MAX_PASSES) {
		/* Log the first pass that failed for a reason other than a race. */
		snap_all(_metadata, fd, pid, flags, &s);
		compare_kpageflags(_metadata, pid, &s, info, true, &res);
		mw_snap_free(&s);
	}
	EXPECT_EQ(0, res.bad) TH_LOG("%zu of %zu mapped pages differ from kpageflags/kpagecount",
				     res.bad, res.compared);
	EXPECT_LT(500, res.compared);
	/*
	 * KSM never ran, so no page is a KSM page and memwalk says none is
	 * (compared above); 6.12's kpageflags says every anon page is one
	 * (docs/json-schema.md): say how many it claimed.
	 */
	if (!res.ksm_ran)
		ksft_print_msg("ksm: KSM never ran; kpageflags claims KSM for %zu of %zu pages, memwalk for none (kpageflags' KSM not compared)\n",
			       res.kpf_ksm_unmerged, res.compared);
	else
		ksft_print_msg("ksm: KSM has run: its bit compared with kpageflags\n");
}

TEST_F(states, folios_equal_kpageflags)
{
	SETUP_OK();
	check_kpageflags(_metadata, self->fd, self->t.pid, &self->info, MEMWALK_SNAP_ALL);
}

/* Runs whose PFNs are listed, read back as the runs they stand for. */
TEST_F(states, folios_equal_kpageflags_pfn_list)
{
	SETUP_OK();
	check_kpageflags(_metadata, self->fd, self->t.pid, &self->info,
			 MEMWALK_SNAP_ALL | MEMWALK_SNAP_PFN_LIST);
}

/* -- per-VMA counts: smaps ------------------------------------------------- */

struct counts {
	uint64_t rss, anon, anon_huge, shmem_pmd, file_pmd, swap;
	uint64_t referenced, dirty, shared, hugetlb;
};

/* What smaps should say of @v, from memwalk's runs (kB), by smaps' rules. */
static void count_vma(const struct mw_snap *s, const struct mw_vma *v, struct counts *c)
{
	bool hugetlb = v->rec.flags & MEMWALK_VMA_HUGETLB;
	size_t ri;

	memset(c, 0, sizeof(*c));
	for (ri = mw_run_find(s->runs, s->nr_runs, v->rec.start);
	     ri < s->nr_runs && s->runs[ri].start < v->rec.end; ri++) {
		const struct memwalk_page_run *r = &s->runs[ri];
		uint64_t lo = r->start > v->rec.start ? r->start : v->rec.start;
		uint64_t hi = mw_run_end(r) < v->rec.end ? mw_run_end(r) : v->rec.end;
		uint64_t kb = (hi - lo) >> 10;	/* the part of the run in @v */
		bool pmd = mw_run_level(r) == MEMWALK_LEVEL_PMD;

		/* smaps also counts shmem pages in swap where there is no entry */
		if (mw_run_state(r) == MEMWALK_STATE_SWAP ||
		    mw_run_state(r) == MEMWALK_STATE_SHMEM_SWAP) {
			c->swap += kb;
			continue;
		}
		if (mw_run_state(r) != MEMWALK_STATE_PRESENT ||
		    (r->flags & (MEMWALK_RUN_ZERO | MEMWALK_RUN_SPECIAL)))
			continue;	/* smaps counts pages with a struct page only */
		if (hugetlb) {
			c->hugetlb += kb;
			continue;
		}
		c->rss += kb;
		if (r->flags & MEMWALK_RUN_ANON) {
			c->anon += kb;
			if (pmd)
				c->anon_huge += kb;
		} else if (pmd) {
			if (r->flags & MEMWALK_RUN_SHMEM)
				c->shmem_pmd += kb;
			else
				c->file_pmd += kb;
		}
		if ((r->flags & MEMWALK_RUN_ACCESSED) ||
		    (r->folio_flags & (1U << MEMWALK_KPF_REFERENCED)))
			c->referenced += kb;
		if ((r->flags & MEMWALK_RUN_DIRTY) ||
		    (r->folio_flags & (1U << MEMWALK_KPF_DIRTY)))
			c->dirty += kb;
		if (r->mapcount >= 2 && r->refcount != 1)
			c->shared += kb;
	}
}

TEST_F(states, counts_equal_smaps)
{
	struct mw_smaps *sm;
	size_t nr, i, j = 0;
	struct mw_snap s;
	struct counts c;

	SETUP_OK();
	snap_all(_metadata, self->fd, self->t.pid, MEMWALK_SNAP_ALL, &s);
	ASSERT_EQ(0, mw_smaps_read(self->t.pid, &sm, &nr));
	for (i = 0; i < nr; i++) {
		const struct mw_smaps *m = &sm[i];
		const struct mw_vma *v;

		if (m->map.start >= mw_task_size)
			continue;
		ASSERT_LT(j, s.nr_vmas);
		v = &s.vmas[j++];
		ASSERT_EQ(m->map.start, v->rec.start);
		count_vma(&s, v, &c);
#define CMP(field, smaps_value) \
		EXPECT_EQ(smaps_value, c.field) \
			TH_LOG("VMA %llx-%llx %s: smaps %s %llu kB, memwalk's runs %llu kB", \
			       (unsigned long long)v->rec.start, (unsigned long long)v->rec.end, \
			       v->name, #smaps_value, (unsigned long long)(smaps_value), \
			       (unsigned long long)c.field)
		CMP(rss, m->rss);
		CMP(anon, m->anonymous);
		CMP(anon_huge, m->anon_huge);
		CMP(shmem_pmd, m->shmem_pmd);
		CMP(file_pmd, m->file_pmd);
		CMP(swap, m->swap);
		CMP(referenced, m->referenced);
		CMP(dirty, m->shared_dirty + m->private_dirty);
		CMP(shared, m->shared_clean + m->shared_dirty);
		CMP(hugetlb, m->shared_hugetlb + m->private_hugetlb);
#undef CMP
	}
	EXPECT_EQ(j, s.nr_vmas);
	free(sm);
	mw_snap_free(&s);
}

/* -- the states, one by one ------------------------------------------------ */

/* One region as memwalk and pagemap see it, page by page. */
struct rview {
	const struct mw_region *reg;
	size_t n;
	struct memwalk_page_run *page;	/* nr_pages 0: no entry */
	uint64_t *pm;
	const struct mw_vma *vma;	/* the VMA holding the region's start */
	struct mw_snap s;
};

static void rview_get(struct __test_metadata *_metadata, int fd, pid_t pid,
		      const struct mw_region *reg, uint32_t flags, struct rview *rv)
{
	struct memwalk_page_run *pages;
	size_t nr, i;

	memset(rv, 0, sizeof(*rv));
	rv->reg = reg;
	rv->n = (reg->end - reg->start) >> MW_PAGE_SHIFT;
	snap_all(_metadata, fd, pid, flags, &rv->s);
	rv->vma = mw_snap_vma(&rv->s, reg->start);
	ASSERT_NE(NULL, rv->vma) TH_LOG("no VMA record at region %s", reg->name);
	rv->page = calloc(rv->n, sizeof(*rv->page));
	rv->pm = calloc(rv->n, sizeof(*rv->pm));
	ASSERT_NE(NULL, rv->page);
	ASSERT_NE(NULL, rv->pm);
	ASSERT_EQ(0, mw_pagemap_read(pid, reg->start, rv->n, rv->pm));
	pages = mw_runs_expand(rv->s.runs, rv->s.nr_runs, &nr);
	ASSERT_NE(NULL, pages);
	for (i = 0; i < nr; i++)
		if (pages[i].start >= reg->start && pages[i].start < reg->end)
			rv->page[(pages[i].start - reg->start) >> MW_PAGE_SHIFT] = pages[i];
	free(pages);
}

static void rview_free(struct rview *rv)
{
	free(rv->page);
	free(rv->pm);
	mw_snap_free(&rv->s);
}

static bool kpf_has(uint64_t pfn, unsigned int bit)
{
	uint64_t kpf = 0;

	return !mw_kpageflags(pfn, &kpf) && (kpf & (1ULL << bit));
}

#define PAGE_LOG(rv, i) TH_LOG("%s page %zu: pagemap %#llx, %s", (rv)->reg->name, (size_t)(i), \
			       (unsigned long long)(rv)->pm[i], \
			       mw_run_str(&(rv)->page[i], logbuf, sizeof(logbuf)))

TEST_F(states, state_anon_untouched)
{
	const struct mw_region *reg = REGION("anon_untouched");
	struct rview rv;
	char logbuf[256];
	size_t i;

	SETUP_OK();
	rview_get(_metadata, self->fd, self->t.pid, reg, MEMWALK_SNAP_ALL, &rv);
	for (i = 0; i < rv.n; i++) {
		EXPECT_EQ(0, rv.page[i].nr_pages) PAGE_LOG(&rv, i);
		EXPECT_EQ(0, rv.pm[i] & (PM_PRESENT | PM_SWAP)) PAGE_LOG(&rv, i);
	}
	EXPECT_EQ(rv.vma->rec.start, reg->start);
	EXPECT_EQ(rv.vma->rec.end, reg->end);
	EXPECT_TRUE(rv.vma->rec.flags & MEMWALK_VMA_ANON);
	rview_free(&rv);
}

TEST_F(states, state_anon_touched)
{
	const struct mw_region *reg = REGION("anon_touched");
	const uint32_t want = MEMWALK_STATE_PRESENT | MEMWALK_RUN_ANON |
			      MEMWALK_RUN_EXCLUSIVE | MEMWALK_RUN_USER | MEMWALK_RUN_NX;
	struct rview rv;
	char logbuf[256];
	size_t i;

	SETUP_OK();
	rview_get(_metadata, self->fd, self->t.pid, reg, MEMWALK_SNAP_ALL, &rv);
	for (i = 0; i < rv.n; i++) {
		const struct memwalk_page_run *p = &rv.page[i];

		EXPECT_EQ(want, p->flags & (want | MEMWALK_RUN_STATE_MASK |
					    MEMWALK_RUN_FILE | MEMWALK_RUN_ZERO))
			PAGE_LOG(&rv, i);
		EXPECT_TRUE(rv.pm[i] & PM_PRESENT) PAGE_LOG(&rv, i);
		EXPECT_EQ(1, p->mapcount) PAGE_LOG(&rv, i);
		EXPECT_NE(0, p->pfn) PAGE_LOG(&rv, i);
		EXPECT_TRUE(p->folio_flags & (1U << MEMWALK_KPF_ANON)) PAGE_LOG(&rv, i);
		EXPECT_TRUE(p->folio_flags & (1U << MEMWALK_KPF_MMAP)) PAGE_LOG(&rv, i);
		if (i)
			EXPECT_NE(rv.page[i - 1].pfn, p->pfn);
	}
	rview_free(&rv);
}

/* Runs exactly where pages were touched: (i % 3 == 0 || i % 7 == 0). */
TEST_F(states, state_anon_sparse)
{
	const struct mw_region *reg = REGION("anon_sparse");
	struct rview rv;
	char logbuf[256];
	size_t i;

	SETUP_OK();
	rview_get(_metadata, self->fd, self->t.pid, reg, MEMWALK_SNAP_ALL, &rv);
	for (i = 0; i < rv.n; i++) {
		bool touched = i % 3 == 0 || i % 7 == 0;

		EXPECT_EQ(touched, rv.page[i].nr_pages == 1) PAGE_LOG(&rv, i);
		EXPECT_EQ(touched, !!(rv.pm[i] & PM_PRESENT)) PAGE_LOG(&rv, i);
	}
	rview_free(&rv);
}

TEST_F(states, state_read_only)
{
	const struct mw_region *reg = REGION("anon_ro");
	struct rview rv;
	char logbuf[256];
	size_t i;

	SETUP_OK();
	rview_get(_metadata, self->fd, self->t.pid, reg, MEMWALK_SNAP_ALL, &rv);
	EXPECT_EQ(MEMWALK_VMA_READ, rv.vma->rec.flags &
		  (MEMWALK_VMA_READ | MEMWALK_VMA_WRITE | MEMWALK_VMA_EXEC));
	for (i = 0; i < rv.n; i++) {
		EXPECT_EQ(MEMWALK_STATE_PRESENT, mw_run_state(&rv.page[i])) PAGE_LOG(&rv, i);
		EXPECT_FALSE(rv.page[i].flags & MEMWALK_RUN_WRITE) PAGE_LOG(&rv, i);
		EXPECT_TRUE(rv.page[i].flags & MEMWALK_RUN_USER) PAGE_LOG(&rv, i);
		EXPECT_TRUE(rv.page[i].flags & MEMWALK_RUN_ANON) PAGE_LOG(&rv, i);
	}
	rview_free(&rv);
}

/* PROT_NONE keeps the pages mapped (present, not user-accessible). */
TEST_F(states, state_prot_none)
{
	const struct mw_region *reg = REGION("prot_none");
	struct rview rv;
	char logbuf[256];
	size_t i;

	SETUP_OK();
	rview_get(_metadata, self->fd, self->t.pid, reg, MEMWALK_SNAP_ALL, &rv);
	EXPECT_EQ(0, rv.vma->rec.flags &
		  (MEMWALK_VMA_READ | MEMWALK_VMA_WRITE | MEMWALK_VMA_EXEC));
	for (i = 0; i < rv.n; i++) {
		EXPECT_TRUE(rv.pm[i] & PM_PRESENT) PAGE_LOG(&rv, i);
		EXPECT_EQ(MEMWALK_STATE_PRESENT, mw_run_state(&rv.page[i])) PAGE_LOG(&rv, i);
		EXPECT_FALSE(rv.page[i].flags & (MEMWALK_RUN_USER | MEMWALK_RUN_WRITE))
			PAGE_LOG(&rv, i);
		EXPECT_TRUE(rv.page[i].flags & MEMWALK_RUN_ANON) PAGE_LOG(&rv, i);
	}
	rview_free(&rv);
}

/* Read faults on untouched private anon map the shared zero page. */
TEST_F(states, state_zero_page)
{
	const struct mw_region *reg = REGION("zero");
	struct rview rv;
	char logbuf[256];
	size_t i;

	SETUP_OK();
	rview_get(_metadata, self->fd, self->t.pid, reg, MEMWALK_SNAP_ALL, &rv);
	for (i = 0; i < rv.n; i++) {
		const struct memwalk_page_run *p = &rv.page[i];

		EXPECT_EQ(MEMWALK_STATE_PRESENT, mw_run_state(p)) PAGE_LOG(&rv, i);
		EXPECT_TRUE(p->flags & MEMWALK_RUN_ZERO) PAGE_LOG(&rv, i);
		EXPECT_FALSE(p->flags & (MEMWALK_RUN_ANON | MEMWALK_RUN_FILE |
					 MEMWALK_RUN_EXCLUSIVE | MEMWALK_RUN_WRITE))
			PAGE_LOG(&rv, i);
		EXPECT_EQ(rv.page[0].pfn, p->pfn) PAGE_LOG(&rv, i);
		EXPECT_EQ(rv.pm[i] & PM_PFN_MASK, p->pfn) PAGE_LOG(&rv, i);
	}
	EXPECT_TRUE(kpf_has(rv.page[0].pfn, MEMWALK_KPF_ZERO_PAGE));
	rview_free(&rv);
}

TEST_F(states, state_shared_anon)
{
	const struct mw_region *reg = REGION("shared_anon");
	struct rview rv;
	char logbuf[256];
	size_t i;

	SETUP_OK();
	rview_get(_metadata, self->fd, self->t.pid, reg, MEMWALK_SNAP_ALL, &rv);
	EXPECT_EQ(MEMWALK_VMA_SHARED | MEMWALK_VMA_MAYSHARE | MEMWALK_VMA_SHMEM |
		  MEMWALK_VMA_FILE, rv.vma->rec.flags & (MEMWALK_VMA_SHARED |
		  MEMWALK_VMA_MAYSHARE | MEMWALK_VMA_SHMEM | MEMWALK_VMA_FILE |
		  MEMWALK_VMA_ANON));
	for (i = 0; i < rv.n; i++) {
		const struct memwalk_page_run *p = &rv.page[i];

		if (i >= 8) {
			EXPECT_EQ(0, p->nr_pages) PAGE_LOG(&rv, i);
			continue;
		}
		EXPECT_EQ(MEMWALK_STATE_PRESENT | MEMWALK_RUN_FILE | MEMWALK_RUN_SHMEM |
			  MEMWALK_RUN_EXCLUSIVE, p->flags & (MEMWALK_RUN_STATE_MASK |
			  MEMWALK_RUN_FILE | MEMWALK_RUN_SHMEM | MEMWALK_RUN_ANON |
			  MEMWALK_RUN_EXCLUSIVE)) PAGE_LOG(&rv, i);
		EXPECT_TRUE(rv.pm[i] & PM_FILE) PAGE_LOG(&rv, i);
	}
	rview_free(&rv);
}

/* Forked: cow_before still shared with the child, cow_after rewritten. */
TEST_F(states, state_cow)
{
	const struct mw_region *before = REGION("cow_before");
	const struct mw_region *after = REGION("cow_after");
	struct rview rb, ra;
	char logbuf[256];
	size_t i;

	SETUP_OK();
	rview_get(_metadata, self->fd, self->t.pid, before, MEMWALK_SNAP_ALL, &rb);
	rview_get(_metadata, self->fd, self->t.pid, after, MEMWALK_SNAP_ALL, &ra);
	for (i = 0; i < rb.n; i++) {
		EXPECT_EQ(MEMWALK_STATE_PRESENT, mw_run_state(&rb.page[i])) PAGE_LOG(&rb, i);
		EXPECT_EQ(2, rb.page[i].mapcount) PAGE_LOG(&rb, i);
		EXPECT_FALSE(rb.page[i].flags & (MEMWALK_RUN_EXCLUSIVE | MEMWALK_RUN_WRITE))
			PAGE_LOG(&rb, i);
		EXPECT_FALSE(rb.pm[i] & PM_MMAP_EXCLUSIVE) PAGE_LOG(&rb, i);
	}
	for (i = 0; i < ra.n; i++) {
		EXPECT_EQ(1, ra.page[i].mapcount) PAGE_LOG(&ra, i);
		EXPECT_TRUE(ra.page[i].flags & MEMWALK_RUN_EXCLUSIVE) PAGE_LOG(&ra, i);
		EXPECT_TRUE(ra.pm[i] & PM_MMAP_EXCLUSIVE) PAGE_LOG(&ra, i);
	}
	rview_free(&rb);
	rview_free(&ra);
}

/* The oracle says the region is one THP of 512 pages (else: not our bug). */
static bool region_is_thp(const struct rview *rv, unsigned int kpf_bit)
{
	uint64_t pfn0 = rv->pm[0] & PM_PFN_MASK;
	size_t i;

	if (rv->n != 512 || !(rv->pm[0] & PM_PRESENT) || pfn0 % 512 ||
	    !kpf_has(pfn0, kpf_bit))
		return false;
	for (i = 0; i < rv->n; i++)
		if (!(rv->pm[i] & PM_PRESENT) || (rv->pm[i] & PM_PFN_MASK) != pfn0 + i)
			return false;
	return true;
}

TEST_F(states, state_thp_pmd)
{
	const struct mw_region *reg = REGION("thp");
	struct rview rv;
	char logbuf[256];
	size_t i;

	SETUP_OK();
	rview_get(_metadata, self->fd, self->t.pid, reg, MEMWALK_SNAP_ALL, &rv);
	if (!region_is_thp(&rv, MEMWALK_KPF_THP)) {
		rview_free(&rv);
		SKIP(return, "the kernel did not back the MADV_HUGEPAGE region with a THP");
	}
	EXPECT_TRUE(rv.vma->rec.flags & MEMWALK_VMA_HUGEPAGE);
	for (i = 0; i < rv.n; i++) {
		const struct memwalk_page_run *p = &rv.page[i];

		EXPECT_EQ(MEMWALK_LEVEL_PMD, mw_run_level(p)) PAGE_LOG(&rv, i);
		EXPECT_EQ(9, p->order) PAGE_LOG(&rv, i);
		EXPECT_TRUE(p->flags & MEMWALK_RUN_ANON) PAGE_LOG(&rv, i);
		EXPECT_TRUE(p->folio_flags & (1U << MEMWALK_KPF_THP)) PAGE_LOG(&rv, i);
		EXPECT_TRUE(p->folio_flags & (1U << MEMWALK_FOLIO_PMD_MAPPED)) PAGE_LOG(&rv, i);
		EXPECT_FALSE(p->folio_flags & ((1U << MEMWALK_FOLIO_PTE_MAPPED) |
					       (1U << MEMWALK_FOLIO_PARTIAL))) PAGE_LOG(&rv, i);
		if (!_metadata->passed)
			break;
	}
	rview_free(&rv);
}

/* The huge zero page: read faults on an empty MADV_HUGEPAGE range. */
TEST_F(states, state_thp_huge_zero)
{
	const struct mw_region *reg = REGION("thp_zero");
	struct rview rv;
	char logbuf[256];
	size_t i;

	SETUP_OK();
	rview_get(_metadata, self->fd, self->t.pid, reg, MEMWALK_SNAP_ALL, &rv);
	/* The target turned use_zero_page on and the THP region got a THP. */
	ASSERT_TRUE(region_is_thp(&rv, MEMWALK_KPF_ZERO_PAGE))
		TH_LOG("read faults with use_zero_page on mapped no huge zero page: pagemap[0] %#llx",
		       (unsigned long long)rv.pm[0]);
	for (i = 0; i < rv.n; i++) {
		const struct memwalk_page_run *p = &rv.page[i];

		EXPECT_EQ(MEMWALK_LEVEL_PMD, mw_run_level(p)) PAGE_LOG(&rv, i);
		EXPECT_TRUE(p->flags & MEMWALK_RUN_ZERO) PAGE_LOG(&rv, i);
		EXPECT_FALSE(p->flags & (MEMWALK_RUN_ANON | MEMWALK_RUN_FILE |
					 MEMWALK_RUN_EXCLUSIVE)) PAGE_LOG(&rv, i);
		EXPECT_EQ(9, p->order) PAGE_LOG(&rv, i);
		if (!_metadata->passed)
			break;
	}
	/*
	 * pagemap's PMD path takes the huge zero page for a file page where
	 * its PTE path does not for the 4K one: memwalk's `file` never
	 * says so of a zero page (docs/json-schema.md).
	 */
	ksft_print_msg("state_thp_huge_zero: pagemap PM_FILE %s for the huge zero page, memwalk file 0 (documented difference)\n",
		       (rv.pm[0] & PM_FILE) ? "set" : "clear");
	rview_free(&rv);
}

/* A THP whose PMD was split by an mprotect() of one page: PTE-mapped. */
TEST_F(states, state_thp_pte_mapped)
{
	const struct mw_region *reg = REGION("thp_pte");
	struct rview rv;
	char logbuf[256];
	size_t i;

	SETUP_OK();
	rview_get(_metadata, self->fd, self->t.pid, reg, MEMWALK_SNAP_ALL, &rv);
	if (!region_is_thp(&rv, MEMWALK_KPF_THP)) {
		rview_free(&rv);
		SKIP(return, "the kernel did not back the MADV_HUGEPAGE region with a THP");
	}
	for (i = 0; i < rv.n; i++) {
		const struct memwalk_page_run *p = &rv.page[i];

		EXPECT_EQ(MEMWALK_LEVEL_PTE, mw_run_level(p)) PAGE_LOG(&rv, i);
		EXPECT_EQ(9, p->order) PAGE_LOG(&rv, i);
		EXPECT_TRUE(p->folio_flags & (1U << MEMWALK_FOLIO_PTE_MAPPED)) PAGE_LOG(&rv, i);
		/* Three VMAs share the folio: each maps only part of it. */
		EXPECT_TRUE(p->folio_flags & (1U << MEMWALK_FOLIO_PARTIAL)) PAGE_LOG(&rv, i);
		/* ... and page 5 alone lies in a read-only VMA */
		ASSERT_NE(NULL, mw_snap_vma(&rv.s, p->start));
		EXPECT_EQ(i != 5, !!(mw_snap_vma(&rv.s, p->start)->rec.flags &
				     MEMWALK_VMA_WRITE)) PAGE_LOG(&rv, i);
		if (!_metadata->passed)
			break;
	}
	rview_free(&rv);
}

TEST_F(states, state_hugetlb)
{
	const struct mw_region *reg = REGION("hugetlb");
	struct rview rv;
	char logbuf[256];
	size_t i;

	SETUP_OK();
	rview_get(_metadata, self->fd, self->t.pid, reg, MEMWALK_SNAP_ALL, &rv);
	EXPECT_TRUE(rv.vma->rec.flags & MEMWALK_VMA_HUGETLB);
	EXPECT_EQ(21, rv.vma->rec.page_shift);
	for (i = 0; i < rv.n; i++) {
		const struct memwalk_page_run *p = &rv.page[i];

		if (i >= 512) {	/* the second huge page was never touched */
			EXPECT_EQ(0, p->nr_pages) PAGE_LOG(&rv, i);
			continue;
		}
		EXPECT_TRUE(rv.pm[i] & PM_PRESENT) PAGE_LOG(&rv, i);
		EXPECT_EQ(MEMWALK_LEVEL_PMD, mw_run_level(p)) PAGE_LOG(&rv, i);
		EXPECT_EQ(9, p->order) PAGE_LOG(&rv, i);
		EXPECT_TRUE(p->folio_flags & (1U << MEMWALK_KPF_HUGE)) PAGE_LOG(&rv, i);
		EXPECT_TRUE(p->flags & MEMWALK_RUN_ANON) PAGE_LOG(&rv, i);
		EXPECT_EQ(rv.page[0].pfn + i, p->pfn) PAGE_LOG(&rv, i);
		if (!_metadata->passed)
			break;
	}
	rview_free(&rv);
}

TEST_F(states, state_hugetlb_shared)
{
	const struct mw_region *reg = REGION("hugetlb_shared");
	struct rview rv;
	char logbuf[256];
	size_t i;

	SETUP_OK();
	rview_get(_metadata, self->fd, self->t.pid, reg, MEMWALK_SNAP_ALL, &rv);
	EXPECT_EQ(MEMWALK_VMA_HUGETLB | MEMWALK_VMA_SHARED | MEMWALK_VMA_FILE,
		  rv.vma->rec.flags & (MEMWALK_VMA_HUGETLB | MEMWALK_VMA_SHARED |
				       MEMWALK_VMA_FILE | MEMWALK_VMA_SHMEM));
	for (i = 0; i < rv.n; i++) {
		const struct memwalk_page_run *p = &rv.page[i];

		EXPECT_EQ(MEMWALK_STATE_PRESENT | MEMWALK_RUN_FILE,
			  p->flags & (MEMWALK_RUN_STATE_MASK | MEMWALK_RUN_FILE |
				      MEMWALK_RUN_ANON | MEMWALK_RUN_SHMEM)) PAGE_LOG(&rv, i);
		EXPECT_TRUE(rv.pm[i] & PM_FILE) PAGE_LOG(&rv, i);
		if (!_metadata->passed)
			break;
	}
	rview_free(&rv);
}

/*
 * The first 16 pages of @rv paged out (in @state, each with its own swap
 * slot), the other 16 present.
 */
static void check_half_paged_out(struct __test_metadata *_metadata,
				 const struct rview *rv, unsigned int state)
{
	char logbuf[256];
	size_t i, j;

	for (i = 0; i < rv->n; i++) {
		const struct memwalk_page_run *p = &rv->page[i];

		EXPECT_EQ(i < 16 ? state : MEMWALK_STATE_PRESENT, mw_run_state(p))
			PAGE_LOG(rv, i);
		for (j = 0; i < 16 && j < i; j++)
			EXPECT_NE(rv->page[j].pfn, p->pfn) PAGE_LOG(rv, i);
	}
}

/* MADV_PAGEOUT to zram: swap entries with their type and offsets. */
TEST_F(states, state_swapped)
{
	const struct mw_region *reg = REGION("swapped");
	struct rview rv;
	char logbuf[256];
	size_t i;

	SETUP_OK();
	rview_get(_metadata, self->fd, self->t.pid, reg, MEMWALK_SNAP_ALL, &rv);
	check_half_paged_out(_metadata, &rv, MEMWALK_STATE_SWAP);
	for (i = 0; i < 16; i++) {
		const struct memwalk_page_run *p = &rv.page[i];

		EXPECT_TRUE(rv.pm[i] & PM_SWAP) PAGE_LOG(&rv, i);
		EXPECT_EQ(rv.pm[i] & ((1ULL << PM_SWAP_TYPE_BITS) - 1), mw_run_swap_type(p))
			PAGE_LOG(&rv, i);
		EXPECT_EQ((rv.pm[i] & PM_PFN_MASK) >> PM_SWAP_TYPE_BITS, p->pfn) PAGE_LOG(&rv, i);
		/* clear_refs=4 ran after the page-out */
		EXPECT_FALSE(p->flags & MEMWALK_RUN_SOFT_DIRTY) PAGE_LOG(&rv, i);
		EXPECT_EQ(0, p->folio_flags) PAGE_LOG(&rv, i);
	}
	rview_free(&rv);
}

/*
 * Shmem pages in swap: no entry (pagemap shows none), reported from the
 * page cache with their swap slots; smaps' Swap agrees (counts_equal_smaps
 * and client_columns_equal_smaps).  The rest are present shmem pages.
 */
TEST_F(states, state_shmem_swapped)
{
	const struct mw_region *reg = REGION("shmem_swapped");
	uint32_t want = MEMWALK_RUN_FILE | MEMWALK_RUN_SHMEM;
	struct rview rv;
	char logbuf[256];
	size_t i;

	SETUP_OK();
	rview_get(_metadata, self->fd, self->t.pid, reg, MEMWALK_SNAP_ALL, &rv);
	check_half_paged_out(_metadata, &rv, MEMWALK_STATE_SHMEM_SWAP);
	for (i = 0; i < rv.n; i++) {
		const struct memwalk_page_run *p = &rv.page[i];

		if (i >= 16) {
			EXPECT_TRUE(rv.pm[i] & PM_PRESENT) PAGE_LOG(&rv, i);
			EXPECT_EQ(want, p->flags & want) PAGE_LOG(&rv, i);
			continue;
		}
		EXPECT_FALSE(rv.pm[i] & (PM_PRESENT | PM_SWAP)) PAGE_LOG(&rv, i);
		EXPECT_EQ(want, p->flags & MW_RUN_FROM_PAGE) PAGE_LOG(&rv, i);
		EXPECT_NE(0, p->pfn) PAGE_LOG(&rv, i);
	}
	rview_free(&rv);
}

/* The same pages hidden from an entry-only walk, which reads no page cache. */
TEST_F(states, state_shmem_swapped_entry_only)
{
	const struct mw_region *reg = REGION("shmem_swapped");
	struct rview rv;
	char logbuf[256];
	size_t i;

	SETUP_OK();
	rview_get(_metadata, self->fd, self->t.pid, reg,
		  MEMWALK_SNAP_VMAS | MEMWALK_SNAP_PAGES | MEMWALK_SNAP_ENTRY_ONLY, &rv);
	for (i = 0; i < 16; i++)
		EXPECT_EQ(0, rv.page[i].nr_pages) PAGE_LOG(&rv, i);
	rview_free(&rv);
}

TEST_F(states, state_mlocked)
{
	const struct mw_region *reg = REGION("mlocked");
	struct rview rv;
	char logbuf[256];
	size_t i;

	SETUP_OK();
	rview_get(_metadata, self->fd, self->t.pid, reg, MEMWALK_SNAP_ALL, &rv);
	EXPECT_TRUE(rv.vma->rec.flags & MEMWALK_VMA_LOCKED);
	for (i = 0; i < rv.n; i++) {
		const struct memwalk_page_run *p = &rv.page[i];

		EXPECT_TRUE(p->folio_flags & (1U << MEMWALK_FOLIO_MLOCKED)) PAGE_LOG(&rv, i);
		EXPECT_TRUE(p->folio_flags & (1U << MEMWALK_KPF_UNEVICTABLE)) PAGE_LOG(&rv, i);
		EXPECT_TRUE(kpf_has(p->pfn, MW_KPF_MLOCKED)) PAGE_LOG(&rv, i);
	}
	rview_free(&rv);
}

/*
 * After clear_refs=4 the target wrote the first 8 pages of soft_dirty
 * again and mapped soft_dirty_new: soft-dirty exactly there.
 */
TEST_F(states, state_soft_dirty)
{
	const struct mw_region *reg = REGION("soft_dirty");
	const struct mw_region *fresh = REGION("soft_dirty_new");
	const struct mw_vma *nv;
	struct rview rv;
	char logbuf[256];
	size_t i;

	SETUP_OK();
	rview_get(_metadata, self->fd, self->t.pid, reg, MEMWALK_SNAP_ALL, &rv);
	EXPECT_FALSE(rv.vma->rec.flags & MEMWALK_VMA_SOFTDIRTY);
	for (i = 0; i < rv.n; i++) {
		EXPECT_EQ(i < 8, !!(rv.page[i].flags & MEMWALK_RUN_SOFT_DIRTY)) PAGE_LOG(&rv, i);
		EXPECT_EQ(i < 8, !!(rv.pm[i] & PM_SOFT_DIRTY)) PAGE_LOG(&rv, i);
	}
	nv = mw_snap_vma(&rv.s, fresh->start);
	ASSERT_NE(NULL, nv);
	EXPECT_TRUE(nv->rec.flags & MEMWALK_VMA_SOFTDIRTY);
	nv = mw_snap_vma(&rv.s, mw_target_region(&self->t, "anon_touched")->start);
	ASSERT_NE(NULL, nv);
	EXPECT_FALSE(nv->rec.flags & MEMWALK_VMA_SOFTDIRTY);
	rview_free(&rv);
}

/*
 * Page cache mapped shared (8 read, 2 of them written) and private (4
 * read, 1 of them written: copied).  Read faults also map the neighbours
 * already in the page cache (fault-around), so untouched pages may be
 * mapped too: those must be the file's pages, clean.
 */
static void check_file_regions(struct __test_metadata *_metadata, int fd,
			       struct mw_target *t, const char *tag, bool shmem)
{
	const struct mw_region *sh, *pr;
	struct rview rv;
	char name[32], logbuf[256];
	size_t i;

	snprintf(name, sizeof(name), "%s_shared", tag);
	sh = mw_target_region(t, name);
	snprintf(name, sizeof(name), "%s_private", tag);
	pr = mw_target_region(t, name);
	ASSERT_NE(NULL, sh) TH_LOG("target: %s", t->notes);
	ASSERT_NE(NULL, pr) TH_LOG("target: %s", t->notes);

	rview_get(_metadata, fd, t->pid, sh, MEMWALK_SNAP_ALL, &rv);
	EXPECT_EQ(shmem, !!(rv.vma->rec.flags & MEMWALK_VMA_SHMEM));
	EXPECT_TRUE(rv.vma->rec.flags & MEMWALK_VMA_FILE);
	for (i = 0; i < rv.n; i++) {
		const struct memwalk_page_run *p = &rv.page[i];

		/* Pages 8-15 were not touched: mapped only by fault-around, if at all. */
		if (i >= 8 && !(rv.pm[i] & PM_PRESENT)) {
			EXPECT_EQ(0, p->nr_pages) PAGE_LOG(&rv, i);
			continue;
		}
		EXPECT_EQ(MEMWALK_STATE_PRESENT | MEMWALK_RUN_FILE |
			  (shmem ? MEMWALK_RUN_SHMEM : 0),
			  p->flags & (MEMWALK_RUN_STATE_MASK | MEMWALK_RUN_FILE |
				      MEMWALK_RUN_SHMEM | MEMWALK_RUN_ANON)) PAGE_LOG(&rv, i);
		EXPECT_TRUE(p->folio_flags & (1U << MEMWALK_KPF_UPTODATE)) PAGE_LOG(&rv, i);
		/* A disk file was synced: only the two pages written since are dirty. */
		if (!shmem)
			EXPECT_EQ(i == 4 || i == 5,
				  !!(p->folio_flags & (1U << MEMWALK_KPF_DIRTY))) PAGE_LOG(&rv, i);
	}
	rview_free(&rv);

	rview_get(_metadata, fd, t->pid, pr, MEMWALK_SNAP_ALL, &rv);
	for (i = 0; i < rv.n; i++) {
		const struct memwalk_page_run *p = &rv.page[i];

		if (i >= 4 && !(rv.pm[i] & PM_PRESENT)) {
			EXPECT_EQ(0, p->nr_pages) PAGE_LOG(&rv, i);
		} else if (i == 2) {	/* written: a private anonymous copy */
			EXPECT_EQ(MEMWALK_STATE_PRESENT | MEMWALK_RUN_ANON | MEMWALK_RUN_EXCLUSIVE,
				  p->flags & (MEMWALK_RUN_STATE_MASK | MEMWALK_RUN_FILE |
					      MEMWALK_RUN_ANON | MEMWALK_RUN_EXCLUSIVE))
				PAGE_LOG(&rv, i);
		} else {		/* the page cache page, also mapped shared */
			EXPECT_EQ(MEMWALK_STATE_PRESENT | MEMWALK_RUN_FILE,
				  p->flags & (MEMWALK_RUN_STATE_MASK | MEMWALK_RUN_FILE |
					      MEMWALK_RUN_ANON | MEMWALK_RUN_EXCLUSIVE))
				PAGE_LOG(&rv, i);
			if (i < 4)
				EXPECT_EQ(2, p->mapcount) PAGE_LOG(&rv, i);
		}
	}
	rview_free(&rv);
}

TEST_F(states, state_page_cache_tmpfs)
{
	struct statfs fs;

	SETUP_OK();
	ASSERT_EQ(0, statfs(tmpfs_dir(), &fs));
	if (fs.f_type != TMPFS_MAGIC)
		SKIP(return, "%s is not tmpfs", tmpfs_dir());
	REGION("tmpfs_shared");
	check_file_regions(_metadata, self->fd, &self->t, "tmpfs", true);
}

/*
 * Page cache allocated out of order under alike PTEs: in the second half
 * mapcount alternates 2 and 1 (kpagecount says so), and so do the runs,
 * with PFN lists or without, folio state or not.  With lists, the first
 * half (alike folios) is listed rather than a run a page.
 */
TEST_F(states, state_file_scattered)
{
	const uint32_t modes[] = {
		MEMWALK_SNAP_ALL | MEMWALK_SNAP_PFN_LIST,
		MEMWALK_SNAP_ALL,
		MEMWALK_SNAP_VMAS | MEMWALK_SNAP_PAGES | MEMWALK_SNAP_PFN_LIST,
	};
	const struct mw_region *reg = REGION("file_scattered");
	uint64_t pfn[32] = { 0 };
	size_t i, m, follow = 0;
	struct mw_why why;
	struct mw_snap s;
	struct rview rv;
	char logbuf[256];

	SETUP_OK();
	for (m = 0; m < ARRAY_SIZE(modes); m++) {
		rview_get(_metadata, self->fd, self->t.pid, reg, modes[m], &rv);
		ASSERT_EQ(32, rv.n);
		for (i = 0; i < rv.n; i++) {
			uint64_t kpc = 0;
			unsigned int want = i >= 16 && !(i % 2) ? 2 : 1;

			ASSERT_TRUE(rv.pm[i] & PM_PRESENT) PAGE_LOG(&rv, i);
			pfn[i] = rv.pm[i] & PM_PFN_MASK;
			ASSERT_EQ(0, mw_kpagecount(pfn[i], &kpc));
			EXPECT_EQ(want, kpc) PAGE_LOG(&rv, i);
			EXPECT_EQ(pfn[i], rv.page[i].pfn) PAGE_LOG(&rv, i);
			EXPECT_EQ(!!(rv.pm[i] & PM_MMAP_EXCLUSIVE),
				  !!(rv.page[i].flags & MEMWALK_RUN_EXCLUSIVE))
				PAGE_LOG(&rv, i);
			if (modes[m] & MEMWALK_SNAP_FOLIO)
				EXPECT_EQ(kpc, rv.page[i].mapcount) PAGE_LOG(&rv, i);
		}
		rview_free(&rv);
	}
	/* Listed, unless the allocator handed the PFNs out in order. */
	for (i = 1; i < 16; i++)
		follow += pfn[i] == pfn[i - 1] + 1;
	if (follow > 4)
		SKIP(return, "%zu of the first 16 PFNs follow the one before", follow);
	ASSERT_EQ(0, mw_snapshot(self->fd, self->t.pid, reg->start, reg->start + 16 * MW_PAGE,
				 MEMWALK_SNAP_ALL | MEMWALK_SNAP_PFN_LIST, VMA_BUF, RUN_BUF, &s, &why))
		TH_LOG("snapshot: %s", why.msg);
	EXPECT_LE(1, s.nr_listed);
	EXPECT_LE(16 - 2 * follow, s.nr_pfns);
	mw_snap_free(&s);
}

TEST_F(states, state_page_cache_disk)
{
	struct statfs fs;

	SETUP_OK();
	if (!disk_dir())
		SKIP(return, "no disk file system (MEMWALK_DISK unset)");
	ASSERT_EQ(0, statfs(disk_dir(), &fs));
	ASSERT_NE(TMPFS_MAGIC, fs.f_type);
	REGION("disk_shared");
	check_file_regions(_metadata, self->fd, &self->t, "disk", false);
}

/* -- the same answer, asked differently --------------------------------------- */

/* Both snapshots' pages, one by one; @no_pfn: @b has no PFNs, @pte_only: no folio state. */
/*
 * Page by page, @b as @a with the PFNs hidden (@no_pfn), without folio
 * state (@pte_only), and also without what the struct page tells, the
 * huge zero page's ZERO included (@entry_only).
 */
static void compare_pages_as(struct __test_metadata *_metadata, const struct mw_snap *a,
			     const struct mw_snap *b, bool no_pfn, bool pte_only,
			     bool entry_only)
{
	struct memwalk_page_run *pa, *pb;
	size_t na, nb, i, k, bad = 0;
	char b1[256], b2[256];

	pa = mw_runs_expand(a->runs, a->nr_runs, &na);
	pb = mw_runs_expand(b->runs, b->nr_runs, &nb);
	ASSERT_NE(NULL, pa);
	ASSERT_NE(NULL, pb);
	/* Shmem pages in swap come from the page cache, not from an entry. */
	for (i = 0, k = 0; entry_only && i < na; i++)
		if (mw_run_state(&pa[i]) != MEMWALK_STATE_SHMEM_SWAP)
			pa[k++] = pa[i];
	if (entry_only)
		na = k;
	ASSERT_EQ(na, nb);
	for (i = 0; i < na; i++) {
		struct memwalk_page_run want = pa[i];

		if (no_pfn)
			want.pfn = 0;
		if (entry_only) {
			want.flags &= ~MW_RUN_FROM_PAGE;
			if (mw_run_level(&want) != MEMWALK_LEVEL_PTE)
				want.flags &= ~MEMWALK_RUN_ZERO;
		}
		if (pte_only || entry_only) {
			want.folio_flags = 0;
			want.mapcount = 0;
			want.refcount = 0;
			want.nid = 0;
			want.order = 0;
			want.lru_gen = -1;
		}
		if (!memcmp(&want, &pb[i], sizeof(want)))
			continue;
		if (bad++ < MAX_LOGGED)
			TH_LOG("page %zu: want %s, got %s", i, mw_run_str(&want, b1, sizeof(b1)),
			       mw_run_str(&pb[i], b2, sizeof(b2)));
	}
	EXPECT_EQ(0, bad) TH_LOG("%zu of %zu pages differ", bad, na);
	free(pa);
	free(pb);
}

static void compare_pages(struct __test_metadata *_metadata, const struct mw_snap *a,
			  const struct mw_snap *b, bool no_pfn, bool pte_only)
{
	compare_pages_as(_metadata, a, b, no_pfn, pte_only, false);
}

static void compare_vmas(struct __test_metadata *_metadata, const struct mw_snap *a,
			 const struct mw_snap *b)
{
	size_t i;

	ASSERT_EQ(a->nr_vmas, b->nr_vmas);
	for (i = 0; i < a->nr_vmas; i++) {
		EXPECT_EQ(0, memcmp(&a->vmas[i].rec, &b->vmas[i].rec, sizeof(a->vmas[i].rec)))
			TH_LOG("VMA %zu at %#llx", i, (unsigned long long)a->vmas[i].rec.start);
		EXPECT_STREQ(a->vmas[i].name, b->vmas[i].name);
	}
}

TEST_F(states, same_answer_twice)
{
	struct mw_snap a, b;

	SETUP_OK();
	snap_all(_metadata, self->fd, self->t.pid, MEMWALK_SNAP_ALL, &a);
	snap_all(_metadata, self->fd, self->t.pid, MEMWALK_SNAP_ALL, &b);
	compare_vmas(_metadata, &a, &b);
	compare_pages(_metadata, &a, &b, false, false);
	mw_snap_free(&a);
	mw_snap_free(&b);
}

/*
 * memwalk only reads: after snapshots and translations, pagemap (present,
 * soft-dirty, ...) and smaps (Referenced: the accessed bits; Dirty) are
 * what they were.
 */
TEST_F(states, snapshot_writes_nothing)
{
	struct mw_smaps *before, *after;
	struct memwalk_translate t;
	size_t nb, na, i, pages = 0;
	uint64_t *pm_before, *pm_after;
	struct mw_snap s;
	int k;

	SETUP_OK();
	ASSERT_EQ(0, mw_smaps_read(self->t.pid, &before, &nb));
	for (i = 0; i < nb; i++)
		if (before[i].map.start < mw_task_size)
			pages += (before[i].map.end - before[i].map.start) >> MW_PAGE_SHIFT;
	pm_before = malloc(pages * 8);
	pm_after = malloc(pages * 8);
	ASSERT_NE(NULL, pm_before);
	ASSERT_NE(NULL, pm_after);
	for (i = 0, pages = 0; i < nb; i++) {
		size_t n = (before[i].map.end - before[i].map.start) >> MW_PAGE_SHIFT;

		if (before[i].map.start >= mw_task_size)
			continue;
		ASSERT_EQ(0, mw_pagemap_read(self->t.pid, before[i].map.start, n, pm_before + pages));
		pages += n;
	}

	for (k = 0; k < 3; k++) {
		snap_all(_metadata, self->fd, self->t.pid, MEMWALK_SNAP_ALL, &s);
		for (i = 0; i < s.nr_runs; i += 7)
			ASSERT_EQ(0, translate(self->fd, self->t.pid, s.runs[i].start, &t));
		mw_snap_free(&s);
	}

	ASSERT_EQ(0, mw_smaps_read(self->t.pid, &after, &na));
	ASSERT_EQ(nb, na);
	for (i = 0, pages = 0; i < nb; i++) {
		size_t n = (before[i].map.end - before[i].map.start) >> MW_PAGE_SHIFT;

		EXPECT_EQ(before[i].map.start, after[i].map.start);
		EXPECT_EQ(before[i].referenced, after[i].referenced)
			TH_LOG("%llx %s", (unsigned long long)before[i].map.start, before[i].map.name);
		EXPECT_EQ(before[i].shared_dirty + before[i].private_dirty,
			  after[i].shared_dirty + after[i].private_dirty)
			TH_LOG("%llx %s", (unsigned long long)before[i].map.start, before[i].map.name);
		if (before[i].map.start >= mw_task_size)
			continue;
		ASSERT_EQ(0, mw_pagemap_read(self->t.pid, before[i].map.start, n, pm_after + pages));
		EXPECT_EQ(0, memcmp(pm_before + pages, pm_after + pages, n * 8))
			TH_LOG("pagemap of %llx %s changed", (unsigned long long)before[i].map.start,
			       before[i].map.name);
		pages += n;
	}
	free(pm_before);
	free(pm_after);
	free(before);
	free(after);
}

TEST_F(states, flag_no_pfn)
{
	struct mw_snap a, b;

	SETUP_OK();
	snap_all(_metadata, self->fd, self->t.pid, MEMWALK_SNAP_ALL, &a);
	snap_all(_metadata, self->fd, self->t.pid, MEMWALK_SNAP_ALL | MEMWALK_SNAP_NO_PFN, &b);
	compare_vmas(_metadata, &a, &b);
	compare_pages(_metadata, &a, &b, true, false);
	EXPECT_GT(a.nr_runs, b.nr_runs) TH_LOG("runs without PFNs should merge wider");
	mw_snap_free(&a);
	mw_snap_free(&b);
}

TEST_F(states, flag_pte_only)
{
	struct mw_snap a, b;

	SETUP_OK();
	snap_all(_metadata, self->fd, self->t.pid, MEMWALK_SNAP_ALL, &a);
	snap_all(_metadata, self->fd, self->t.pid, MEMWALK_SNAP_VMAS | MEMWALK_SNAP_PAGES, &b);
	compare_vmas(_metadata, &a, &b);
	compare_pages(_metadata, &a, &b, false, true);
	mw_snap_free(&a);
	mw_snap_free(&b);
}

/*
 * Entry-only: the same pages as the full walk in the same states, with
 * what the struct page tells (and the huge zero page's ZERO) left out.
 */
TEST_F(states, flag_entry_only)
{
	struct mw_snap a, b;

	SETUP_OK();
	snap_all(_metadata, self->fd, self->t.pid, MEMWALK_SNAP_ALL, &a);
	snap_all(_metadata, self->fd, self->t.pid,
		 MEMWALK_SNAP_VMAS | MEMWALK_SNAP_PAGES | MEMWALK_SNAP_ENTRY_ONLY, &b);
	compare_vmas(_metadata, &a, &b);
	compare_pages_as(_metadata, &a, &b, false, false, true);
	EXPECT_GE(a.nr_runs, b.nr_runs) TH_LOG("entry-only runs cannot be narrower");
	mw_snap_free(&a);
	mw_snap_free(&b);
}

TEST_F(states, flag_vmas_only)
{
	struct mw_snap a, b;

	SETUP_OK();
	snap_all(_metadata, self->fd, self->t.pid, MEMWALK_SNAP_ALL, &a);
	snap_all(_metadata, self->fd, self->t.pid, MEMWALK_SNAP_VMAS, &b);
	compare_vmas(_metadata, &a, &b);
	EXPECT_EQ(0, b.nr_runs);
	mw_snap_free(&a);
	mw_snap_free(&b);
}

TEST_F(states, flag_pages_only)
{
	struct mw_snap a, b;

	SETUP_OK();
	snap_all(_metadata, self->fd, self->t.pid, MEMWALK_SNAP_ALL, &a);
	snap_all(_metadata, self->fd, self->t.pid, MEMWALK_SNAP_PAGES | MEMWALK_SNAP_FOLIO, &b);
	EXPECT_EQ(0, b.nr_vmas);
	compare_pages(_metadata, &a, &b, false, false);
	mw_snap_free(&a);
	mw_snap_free(&b);
}

/* A range inside VMAs: the VMAs it touches, whole, and the runs inside it. */
static void check_subrange(struct __test_metadata *_metadata, int fd, pid_t pid,
			   const struct mw_snap *all, uint64_t start, uint64_t end)
{
	struct memwalk_page_run *pa, *pb;
	size_t na, nb, i, j = 0, k = 0;
	struct mw_snap s;
	struct mw_why why;

	ASSERT_EQ(0, mw_snapshot(fd, pid, start, end, MEMWALK_SNAP_ALL, VMA_BUF, RUN_BUF,
				 &s, &why)) TH_LOG("%s", why.msg);
	for (i = 0; i < all->nr_vmas; i++) {
		const struct mw_vma *v = &all->vmas[i];

		if (v->rec.end <= start || v->rec.start >= end)
			continue;
		ASSERT_LT(j, s.nr_vmas);
		EXPECT_EQ(0, memcmp(&v->rec, &s.vmas[j].rec, sizeof(v->rec)));
		j++;
	}
	EXPECT_EQ(j, s.nr_vmas);
	pa = mw_runs_expand(all->runs, all->nr_runs, &na);
	pb = mw_runs_expand(s.runs, s.nr_runs, &nb);
	ASSERT_NE(NULL, pa);
	ASSERT_NE(NULL, pb);
	for (i = 0; i < na; i++) {
		if (pa[i].start < start || pa[i].start >= end)
			continue;
		ASSERT_LT(k, nb);
		EXPECT_EQ(0, memcmp(&pa[i], &pb[k], sizeof(pa[i])))
			TH_LOG("page %#llx", (unsigned long long)pa[i].start);
		k++;
	}
	EXPECT_EQ(k, nb);
	EXPECT_LT(0, nb);
	free(pa);
	free(pb);
	mw_snap_free(&s);
}

TEST_F(states, subrange_inside_vma)
{
	const struct mw_region *reg = REGION("anon_sparse");
	struct mw_snap all;

	SETUP_OK();
	snap_all(_metadata, self->fd, self->t.pid, MEMWALK_SNAP_ALL, &all);
	check_subrange(_metadata, self->fd, self->t.pid, &all,
		       reg->start + 5 * MW_PAGE, reg->end - 7 * MW_PAGE);
	mw_snap_free(&all);
}

/* From the middle of one PMD-mapped THP to the middle of the next region. */
TEST_F(states, subrange_inside_thp)
{
	const struct mw_region *reg = REGION("thp");
	struct mw_snap all;

	SETUP_OK();
	snap_all(_metadata, self->fd, self->t.pid, MEMWALK_SNAP_ALL, &all);
	check_subrange(_metadata, self->fd, self->t.pid, &all,
		       reg->start + 100 * MW_PAGE, reg->start + 300 * MW_PAGE);
	mw_snap_free(&all);
}

TEST_F(states, subrange_across_vmas)
{
	const struct mw_region *a = REGION("anon_touched"), *b = REGION("cow_before");
	uint64_t lo = a->start < b->start ? a->start : b->start;
	uint64_t hi = a->end > b->end ? a->end : b->end;
	struct mw_snap all;

	SETUP_OK();
	snap_all(_metadata, self->fd, self->t.pid, MEMWALK_SNAP_ALL, &all);
	check_subrange(_metadata, self->fd, self->t.pid, &all,
		       lo + 3 * MW_PAGE, hi - 3 * MW_PAGE);
	mw_snap_free(&all);
}

/* Tiny buffers: one call per record, reproducing the one-shot answer. */
static void check_resume(struct __test_metadata *_metadata, int fd, pid_t pid,
			 size_t extra_vma, size_t runs, size_t extra_run)
{
	struct mw_snap all, tiny;
	size_t i, max_rec = 0;
	struct mw_why why;

	snap_all(_metadata, fd, pid, MEMWALK_SNAP_ALL, &all);
	for (i = 0; i < all.nr_vmas; i++)
		if (all.vmas[i].rec.size > max_rec)
			max_rec = all.vmas[i].rec.size;
	ASSERT_EQ(0, mw_snapshot(fd, pid, 0, 0, MEMWALK_SNAP_ALL, max_rec + extra_vma,
				 runs * sizeof(struct memwalk_page_run) + extra_run,
				 &tiny, &why)) TH_LOG("%s", why.msg);
	TH_LOG("%u calls with %zu-byte VMA and %zu-run buffers (one-shot: %u)",
	       tiny.calls, max_rec + extra_vma, runs, all.calls);
	EXPECT_LT(all.nr_runs / runs, tiny.calls);
	compare_vmas(_metadata, &all, &tiny);
	compare_pages(_metadata, &all, &tiny, false, false);
	mw_snap_free(&all);
	mw_snap_free(&tiny);
}

TEST_F(states, resume_one_record_per_call)
{
	SETUP_OK();
	check_resume(_metadata, self->fd, self->t.pid, 0, 1, 0);
}

TEST_F(states, resume_odd_buffer_sizes)
{
	SETUP_OK();
	check_resume(_metadata, self->fd, self->t.pid, 13, 3, 29);
}

/* -- PFN lists ------------------------------------------------------------------ */

#define ENTRY_ONLY_FLAGS	(MEMWALK_SNAP_VMAS | MEMWALK_SNAP_PAGES | MEMWALK_SNAP_ENTRY_ONLY)

/*
 * Listed runs stand for the same runs as without MEMWALK_SNAP_PFN_LIST
 * (mw_snapshot() checks each list and turns it back into those): the zero
 * page region (every PTE the same PFN) is listed for sure.
 */
TEST_F(states, pfn_list_equals_plain_runs)
{
	const struct mw_region *zero = REGION("zero");
	struct mw_snap plain, listed;
	const struct memwalk_page_run *r;

	SETUP_OK();
	snap_all(_metadata, self->fd, self->t.pid, ENTRY_ONLY_FLAGS, &plain);
	snap_all(_metadata, self->fd, self->t.pid, ENTRY_ONLY_FLAGS | MEMWALK_SNAP_PFN_LIST,
		 &listed);
	TH_LOG("%zu runs plain; listed: %zu runs with %llu PFNs, standing for %zu",
	       plain.nr_runs, listed.nr_listed, (unsigned long long)listed.nr_pfns,
	       listed.nr_runs);
	EXPECT_EQ(0, plain.nr_listed);
	EXPECT_LT(0, listed.nr_listed);
	EXPECT_LE((zero->end - zero->start) >> MW_PAGE_SHIFT, listed.nr_pfns);
	r = run_at(&listed, zero->start);
	ASSERT_NE(NULL, r);
	EXPECT_TRUE(r->flags & MEMWALK_RUN_ZERO);
	compare_vmas(_metadata, &plain, &listed);
	compare_pages_as(_metadata, &plain, &listed, false, false, false);
	EXPECT_EQ(plain.nr_runs, listed.nr_runs);
	mw_snap_free(&plain);
	mw_snap_free(&listed);
}

/* Listed PFNs against pagemap: entry-only, and with the page read. */
TEST_F(states, pages_equal_pagemap_pfn_list)
{
	size_t compared, bad;
	struct mw_snap s;

	SETUP_OK();
	snap_all(_metadata, self->fd, self->t.pid, ENTRY_ONLY_FLAGS | MEMWALK_SNAP_PFN_LIST, &s);
	EXPECT_LT(0, s.nr_listed);
	bad = compare_pagemap_but(_metadata, self->t.pid, &s, &compared,
				  PM_FILE | PM_MMAP_EXCLUSIVE);
	EXPECT_EQ(0, bad) TH_LOG("entry-only: %zu of %zu pages differ from pagemap",
				 bad, compared);
	EXPECT_LT(1000, compared);
	mw_snap_free(&s);
	snap_all(_metadata, self->fd, self->t.pid, MEMWALK_SNAP_ALL | MEMWALK_SNAP_PFN_LIST, &s);
	EXPECT_LT(0, s.nr_listed);
	bad = compare_pagemap(_metadata, self->t.pid, &s, &compared);
	EXPECT_EQ(0, bad) TH_LOG("%zu of %zu pages differ from pagemap", bad, compared);
	mw_snap_free(&s);
}

/*
 * Buffers of a few runs and as few PFNs: lists cut by full buffers and
 * call ends, the one-shot answer all the same.
 */
TEST_F(states, resume_pfn_list_tiny_buffers)
{
	struct mw_snap all, tiny;
	struct mw_why why;

	SETUP_OK();
	snap_all(_metadata, self->fd, self->t.pid, ENTRY_ONLY_FLAGS | MEMWALK_SNAP_PFN_LIST, &all);
	ASSERT_EQ(0, mw_snapshot(self->fd, self->t.pid, 0, 0,
				 ENTRY_ONLY_FLAGS | MEMWALK_SNAP_PFN_LIST, VMA_BUF,
				 3 * sizeof(struct memwalk_page_run), &tiny, &why))
		TH_LOG("%s", why.msg);
	TH_LOG("%u calls, %zu listed runs (one-shot: %u calls, %zu listed)",
	       tiny.calls, tiny.nr_listed, all.calls, all.nr_listed);
	EXPECT_LT(all.calls, tiny.calls);
	EXPECT_LT(0, tiny.nr_listed);
	compare_vmas(_metadata, &all, &tiny);
	compare_pages_as(_metadata, &all, &tiny, false, false, false);
	mw_snap_free(&all);
	mw_snap_free(&tiny);
}

/* -- MEMWALK_IOC_TRANSLATE ------------------------------------------------------ */

static unsigned int level_shift(unsigned int level, unsigned int levels)
{
	switch (level) {
	case MEMWALK_PGT_PGD:
		return levels == 5 ? 48 : 39;
	case MEMWALK_PGT_P4D:
		return 39;
	case MEMWALK_PGT_PUD:
		return 30;
	case MEMWALK_PGT_PMD:
		return 21;
	default:
		return 12;
	}
}

/*
 * The walk is well formed: levels top down (the P4D only with 5 levels),
 * each index the address's, each table the one its parent points to.
 */
static void check_levels(struct __test_metadata *_metadata, const struct memwalk_translate *t,
			 unsigned int levels)
{
	unsigned int i, want = MEMWALK_PGT_PGD;

	ASSERT_LE(t->nr_levels, MEMWALK_MAX_LEVELS);
	for (i = 0; i < t->nr_levels; i++) {
		const struct memwalk_level *l = &t->levels[i];

		EXPECT_EQ(want, l->level) TH_LOG("level %u", i);
		EXPECT_EQ((t->addr >> level_shift(l->level, levels)) & 511, l->index)
			TH_LOG("level %u", i);
		EXPECT_NE(0, l->table_pa) TH_LOG("level %u", i);
		if (i)
			EXPECT_EQ(t->levels[i - 1].entry & PTE_ADDR_MASK, l->table_pa)
				TH_LOG("level %u: parent entry %#llx", i,
				       (unsigned long long)t->levels[i - 1].entry);
		want = l->level + 1;
		if (want == MEMWALK_PGT_P4D && levels == 4)
			want = MEMWALK_PGT_PUD;
	}
}

/* A page mapped by a PTE: every level, and the PTE's PFN is pagemap's. */
TEST_F(states, translate_pte_page)
{
	const struct mw_region *reg = REGION("anon_touched");
	uint64_t addr = reg->start + 3 * MW_PAGE + 123, pm;
	const struct memwalk_page_run *r;
	struct memwalk_translate t;
	const struct memwalk_level *leaf;
	struct mw_snap s;
	struct memwalk_page_run want;

	SETUP_OK();
	ASSERT_EQ(0, translate(self->fd, self->t.pid, addr, &t));
	ASSERT_EQ(0, mw_pagemap_read(self->t.pid, addr & ~(MW_PAGE - 1), 1, &pm));
	check_levels(_metadata, &t, self->info.pgtable_levels);
	ASSERT_EQ(self->info.pgtable_levels, t.nr_levels);
	leaf = &t.levels[t.nr_levels - 1];
	EXPECT_EQ(MEMWALK_PGT_PTE, leaf->level);
	EXPECT_TRUE(leaf->entry & 1) TH_LOG("PTE %#llx not present", (unsigned long long)leaf->entry);
	EXPECT_EQ(pm & PM_PFN_MASK, (leaf->entry & PTE_ADDR_MASK) >> MW_PAGE_SHIFT);
	EXPECT_EQ(reg->start, t.vma_start);
	EXPECT_EQ(reg->end, t.vma_end);

	/* The page is the snapshot's, and its bits are the PTE's. */
	snap_all(_metadata, self->fd, self->t.pid, MEMWALK_SNAP_ALL, &s);
	r = run_at(&s, addr);
	ASSERT_NE(NULL, r);
	want = *r;
	want.start = addr & ~(MW_PAGE - 1);
	want.pfn += (want.start - r->start) >> MW_PAGE_SHIFT;
	want.nr_pages = 1;
	EXPECT_EQ(0, memcmp(&want, &t.page, sizeof(want)));
	EXPECT_EQ(!!(leaf->entry & (1ULL << 1)), !!(t.page.flags & MEMWALK_RUN_WRITE));
	EXPECT_EQ(!!(leaf->entry & (1ULL << 2)), !!(t.page.flags & MEMWALK_RUN_USER));
	EXPECT_EQ(!!(leaf->entry & (1ULL << 5)), !!(t.page.flags & MEMWALK_RUN_ACCESSED));
	/* Dirty or (6.6+) SavedDirty: see translate_dirty_is_pte_dirty. */
	if (t.page.flags & MEMWALK_RUN_DIRTY) {
		EXPECT_TRUE(leaf->entry & ((1ULL << 6) | (1ULL << 58)));
	} else {
		EXPECT_FALSE(leaf->entry & (1ULL << 6));
	}
	EXPECT_EQ(!!(leaf->entry & (1ULL << 63)), !!(t.page.flags & MEMWALK_RUN_NX));
	mw_snap_free(&s);
}

/*
 * RUN_DIRTY is the entry's dirty state as the kernel has it (pte_dirty()):
 * since 6.6, x86 moves a write-protected PTE's hardware Dirty bit (6) to
 * the software SavedDirty bit (58; on 6.1 that bit is devmap, never set on
 * these pages), so that the read-only pages of anon_ro,
 * written before the mprotect(), are dirty in either bit; smaps counts them
 * as Dirty.
 */
TEST_F(states, translate_dirty_is_pte_dirty)
{
	const struct mw_region *reg = REGION("anon_ro");
	struct memwalk_translate t;
	struct mw_smaps *sm;
	uint64_t addr, e;
	size_t nr, i;

	SETUP_OK();
	for (addr = reg->start; addr < reg->end; addr += MW_PAGE) {
		ASSERT_EQ(0, translate(self->fd, self->t.pid, addr, &t));
		ASSERT_EQ(self->info.pgtable_levels, t.nr_levels);
		e = t.levels[t.nr_levels - 1].entry;
		EXPECT_TRUE(e & ((1ULL << 6) | (1ULL << 58)))
			TH_LOG("%#llx: PTE %#llx neither Dirty nor SavedDirty",
			       (unsigned long long)addr, (unsigned long long)e);
		EXPECT_TRUE(t.page.flags & MEMWALK_RUN_DIRTY)
			TH_LOG("%#llx: PTE %#llx is dirty, the run is not (flags %#x)",
			       (unsigned long long)addr, (unsigned long long)e, t.page.flags);
	}
	ASSERT_EQ(0, mw_smaps_read(self->t.pid, &sm, &nr));
	for (i = 0; i < nr && sm[i].map.start != reg->start; i++)
		;
	ASSERT_LT(i, nr);
	EXPECT_EQ((reg->end - reg->start) >> 10, sm[i].private_dirty + sm[i].shared_dirty);
	free(sm);
}

/* A leaf PMD (THP, or hugetlb): one level less, PFN from the 2 MiB frame. */
static void check_pmd_leaf(struct __test_metadata *_metadata, int fd, pid_t pid,
			   unsigned int levels, uint64_t addr)
{
	struct memwalk_translate t;
	const struct memwalk_level *leaf;
	uint64_t pm;

	ASSERT_EQ(0, translate(fd, pid, addr, &t));
	ASSERT_EQ(0, mw_pagemap_read(pid, addr & ~(MW_PAGE - 1), 1, &pm));
	ASSERT_TRUE(pm & PM_PRESENT);
	check_levels(_metadata, &t, levels);
	ASSERT_EQ(levels - 1, t.nr_levels);
	leaf = &t.levels[t.nr_levels - 1];
	EXPECT_EQ(MEMWALK_PGT_PMD, leaf->level);
	EXPECT_TRUE(leaf->entry & (1ULL << 7)) TH_LOG("PMD %#llx without PSE",
						       (unsigned long long)leaf->entry);
	EXPECT_EQ(pm & PM_PFN_MASK, ((leaf->entry & PMD_ADDR_MASK) >> MW_PAGE_SHIFT) +
		  ((addr >> MW_PAGE_SHIFT) & 511));
	EXPECT_EQ(pm & PM_PFN_MASK, t.page.pfn);
	EXPECT_EQ(MEMWALK_LEVEL_PMD, mw_run_level(&t.page));
}

TEST_F(states, translate_thp)
{
	const struct mw_region *reg = REGION("thp");
	uint64_t pm;

	SETUP_OK();
	ASSERT_EQ(0, mw_pagemap_read(self->t.pid, reg->start, 1, &pm));
	if (!kpf_has(pm & PM_PFN_MASK, MEMWALK_KPF_THP))
		SKIP(return, "the THP region is not a THP");
	check_pmd_leaf(_metadata, self->fd, self->t.pid, self->info.pgtable_levels,
		       reg->start + 77 * MW_PAGE);
}

TEST_F(states, translate_hugetlb)
{
	const struct mw_region *reg = REGION("hugetlb");

	SETUP_OK();
	check_pmd_leaf(_metadata, self->fd, self->t.pid, self->info.pgtable_levels,
		       reg->start + 300 * MW_PAGE);
}

/* A swap PTE: not present, the page a swap run with pagemap's offset. */
TEST_F(states, translate_swap_entry)
{
	const struct mw_region *reg = REGION("swapped");
	struct memwalk_translate t;
	uint64_t pm;

	SETUP_OK();
	ASSERT_EQ(0, translate(self->fd, self->t.pid, reg->start + 2 * MW_PAGE, &t));
	ASSERT_EQ(0, mw_pagemap_read(self->t.pid, reg->start + 2 * MW_PAGE, 1, &pm));
	ASSERT_TRUE(pm & PM_SWAP);
	check_levels(_metadata, &t, self->info.pgtable_levels);
	ASSERT_EQ(self->info.pgtable_levels, t.nr_levels);
	EXPECT_FALSE(t.levels[t.nr_levels - 1].entry & 1);
	EXPECT_NE(0, t.levels[t.nr_levels - 1].entry);
	EXPECT_EQ(MEMWALK_STATE_SWAP, mw_run_state(&t.page));
	EXPECT_EQ((pm & PM_PFN_MASK) >> PM_SWAP_TYPE_BITS, t.page.pfn);
}

/*
 * A shmem page in swap: the walk ends at a none PTE (pagemap shows none
 * too) and the page is the one the snapshot reports there.
 */
TEST_F(states, translate_shmem_swapped)
{
	const struct mw_region *reg = REGION("shmem_swapped");
	uint64_t addr = reg->start + 3 * MW_PAGE, pm;
	const struct memwalk_page_run *r;
	struct memwalk_translate t;
	struct mw_snap s;

	SETUP_OK();
	ASSERT_EQ(0, translate(self->fd, self->t.pid, addr, &t));
	ASSERT_EQ(0, mw_pagemap_read(self->t.pid, addr, 1, &pm));
	EXPECT_FALSE(pm & (PM_PRESENT | PM_SWAP));
	check_levels(_metadata, &t, self->info.pgtable_levels);
	ASSERT_EQ(self->info.pgtable_levels, t.nr_levels);
	EXPECT_EQ(0, t.levels[t.nr_levels - 1].entry);
	EXPECT_EQ(MEMWALK_STATE_SHMEM_SWAP, mw_run_state(&t.page));
	EXPECT_EQ(addr, t.page.start);
	EXPECT_EQ(1, t.page.nr_pages);
	snap_all(_metadata, self->fd, self->t.pid, MEMWALK_SNAP_ALL, &s);
	r = run_at(&s, addr);
	ASSERT_NE(NULL, r);
	EXPECT_EQ(r->flags, t.page.flags);
	EXPECT_EQ(r->pfn + ((addr - r->start) >> MW_PAGE_SHIFT), t.page.pfn);
	mw_snap_free(&s);
}

/* In a VMA but never touched: the walk ends at a none entry. */
TEST_F(states, translate_untouched)
{
	const struct mw_region *reg = REGION("anon_untouched");
	struct memwalk_translate t;

	SETUP_OK();
	ASSERT_EQ(0, translate(self->fd, self->t.pid, reg->start + MW_PAGE, &t));
	check_levels(_metadata, &t, self->info.pgtable_levels);
	ASSERT_LE(1, t.nr_levels);
	EXPECT_EQ(0, t.levels[t.nr_levels - 1].entry);
	EXPECT_EQ(0, t.page.nr_pages);
	EXPECT_EQ(reg->start, t.vma_start);
	EXPECT_EQ(reg->end, t.vma_end);
}

/* Below every VMA (under mmap_min_addr): nothing walked. */
TEST_F(states, translate_outside_vmas)
{
	struct memwalk_translate t;

	SETUP_OK();
	ASSERT_EQ(0, translate(self->fd, self->t.pid, 0x1000, &t));
	EXPECT_EQ(0, t.nr_levels);
	EXPECT_EQ(0, t.page.nr_pages);
	EXPECT_EQ(0, t.vma_start);
	EXPECT_EQ(0, t.vma_end);
}

/* -- debugfs -------------------------------------------------------------------- */

/* memwalk/maps is /proc/PID/maps with "  mw=0x<flags> page_shift=<n>" appended. */
TEST_F(states, debugfs_maps_equal_proc_maps)
{
	char path[64], pidstr[32], want[8192], *text, *line, *save, *suffix;
	unsigned long long mwflags;
	unsigned int shift;
	struct mw_snap s;
	size_t j = 0;
	FILE *f;

	SETUP_OK();
	if (access(DEBUGFS_DIR "/maps", R_OK))
		SKIP(return, "no %s/maps", DEBUGFS_DIR);
	snprintf(pidstr, sizeof(pidstr), "%d\n", self->t.pid);
	ASSERT_EQ(0, mw_write_file(DEBUGFS_DIR "/target", pidstr));
	ASSERT_EQ(0, mw_read_file(DEBUGFS_DIR "/target", path, sizeof(path)));
	EXPECT_STREQ(pidstr, path);

	text = malloc(1 << 20);
	ASSERT_NE(NULL, text);
	ASSERT_EQ(0, mw_read_file(DEBUGFS_DIR "/maps", text, 1 << 20));
	snprintf(path, sizeof(path), "/proc/%d/maps", self->t.pid);
	f = fopen(path, "re");
	ASSERT_NE(NULL, f);
	snap_all(_metadata, self->fd, self->t.pid, MEMWALK_SNAP_VMAS, &s);

	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		suffix = strstr(line, "  mw=0x");
		ASSERT_NE(NULL, suffix) TH_LOG("line without mw=: %s", line);
		ASSERT_EQ(2, sscanf(suffix, "  mw=0x%llx page_shift=%u", &mwflags, &shift));
		*suffix = '\0';
		ASSERT_NE(NULL, fgets(want, sizeof(want), f)) TH_LOG("debugfs has more: %s", line);
		want[strcspn(want, "\n")] = '\0';
		EXPECT_STREQ(want, line);
		ASSERT_LT(j, s.nr_vmas);
		EXPECT_EQ(s.vmas[j].rec.flags, mwflags);
		EXPECT_EQ(s.vmas[j].rec.page_shift, shift);
		j++;
	}
	/* maps may go on with [vsyscall] only (a gate VMA, not in the mm). */
	while (fgets(want, sizeof(want), f))
		EXPECT_LE(mw_task_size, strtoull(want, NULL, 16)) TH_LOG("maps has more: %s", want);
	EXPECT_EQ(s.nr_vmas, j);
	fclose(f);
	free(text);
	mw_snap_free(&s);
}

/* -- the client ------------------------------------------------------------------- */

/*
 * memwalk-client PID -o ... -n -b: one line per VMA, its sizes (bytes) equal to
 * smaps (Size, Rss, Pss, Shared_Dirty + Private_Dirty, Swap, Anonymous,
 * the three PmdMapped, the two Hugetlb, Referenced), its mode and mapping
 * equal to maps ("[ anon ]" for a VMA without a name).
 */
TEST_F(states, client_columns_equal_smaps)
{
	char pidstr[16];
	const char *argv[] = { mw_client_path(), pidstr, "-o",
			       "address,kbytes,rss,pss,dirty,swap,anon,thp,hugetlb,referenced,mode,mapping",
			       "-n", "-b", NULL };
	struct mw_smaps *sm;
	char *out, *err, *line, *save;
	size_t nr, i = 0, n = 0;
	int status;

	SETUP_OK();
	snprintf(pidstr, sizeof(pidstr), "%d", self->t.pid);
	ASSERT_EQ(0, mw_smaps_read(self->t.pid, &sm, &nr));
	ASSERT_EQ(0, mw_capture(argv, &status, &out, &err));
	ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
		TH_LOG("status %#x, stderr: %s", status, err);
	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		unsigned long long addr, v[10];
		const struct mw_smaps *m;
		const char *mapping;
		char mode[8];
		int pos = 0, k;

		ASSERT_EQ(12, sscanf(line, "%llx %llu %llu %llu %llu %llu %llu %llu %llu %llu %7s %n",
				     &addr, &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6],
				     &v[7], &v[8], mode, &pos) + !!pos) TH_LOG("line: %s", line);
		/* -b: bytes, where smaps says kB */
		for (k = 0; k < 9; k++) {
			EXPECT_EQ(0, v[k] % 1024) TH_LOG("not whole kB: %s", line);
			v[k] /= 1024;
		}
		while (i < nr && sm[i].map.start != addr)
			i++;
		ASSERT_LT(i, nr) TH_LOG("no smaps VMA at %llx", addr);
		m = &sm[i++];
		mapping = m->map.name[0] ? m->map.name : "[ anon ]";
		EXPECT_EQ(m->size, v[0]) TH_LOG("kbytes: %s", line);
		EXPECT_EQ(m->rss, v[1]) TH_LOG("rss: %s", line);
		EXPECT_EQ(m->pss, v[2]) TH_LOG("pss: %s", line);
		EXPECT_EQ(m->shared_dirty + m->private_dirty, v[3]) TH_LOG("dirty: %s", line);
		EXPECT_EQ(m->swap, v[4]) TH_LOG("swap: %s", line);
		EXPECT_EQ(m->anonymous, v[5]) TH_LOG("anon: %s", line);
		EXPECT_EQ(m->anon_huge + m->shmem_pmd + m->file_pmd, v[6]) TH_LOG("thp: %s", line);
		EXPECT_EQ(m->shared_hugetlb + m->private_hugetlb, v[7]) TH_LOG("hugetlb: %s", line);
		EXPECT_EQ(m->referenced, v[8]) TH_LOG("referenced: %s", line);
		EXPECT_STREQ(m->map.perms, mode) TH_LOG("%s", line);
		EXPECT_STREQ(mapping, line + pos) TH_LOG("%s", line);
		n++;
	}
	EXPECT_LT(20, n);
	free(out);
	free(err);
	free(sm);
}

/*
 * memwalk-client PID --entry-only --pages, which takes PFN lists: every
 * present page of every run at the PFN pagemap gives, the zero page
 * region's pages (listed by the module: one PFN throughout) included.
 */
TEST_F(states, client_entry_only_pfns_equal_pagemap)
{
	const struct mw_region *zero = REGION("zero");
	char pidstr[16];
	const char *argv[] = { mw_client_path(), pidstr, "--entry-only", "--pages", "-n", NULL };
	char *out, *err, *line, *save;
	size_t compared = 0, bad = 0, zero_pages = 0;
	int status;

	SETUP_OK();
	snprintf(pidstr, sizeof(pidstr), "%d", self->t.pid);
	ASSERT_EQ(0, mw_capture(argv, &status, &out, &err));
	ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
		TH_LOG("status %#x, stderr: %s", status, err);
	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		unsigned long long start, end, pages, pfn, k;
		char state[16], pfnstr[64];
		uint64_t pm[512];

		/* "  START-END PAGES STATE LEVEL BITS TYPE PFN ..." under each VMA */
		if (strncmp(line, "  ", 2) ||
		    sscanf(line, "%llx-%llx %llu %15s %*s %*s %*s %63s", &start, &end, &pages,
			   state, pfnstr) != 5 || strcmp(state, "present"))
			continue;
		pfn = strtoull(pfnstr, NULL, 16);
		for (k = 0; k < pages; k += 512) {
			size_t n = pages - k < 512 ? pages - k : 512, i;

			ASSERT_EQ(0, mw_pagemap_read(self->t.pid, start + k * MW_PAGE, n, pm));
			for (i = 0; i < n; i++, compared++) {
				if ((pm[i] & PM_PRESENT) && (pm[i] & PM_PFN_MASK) == pfn + k + i)
					continue;
				if (bad++ < MAX_LOGGED)
					TH_LOG("page %#llx: pagemap %#llx; client: %s",
					       start + (k + i) * MW_PAGE, (unsigned long long)pm[i], line);
			}
		}
		if (start >= zero->start && end <= zero->end)
			zero_pages += pages;
	}
	EXPECT_EQ(0, bad) TH_LOG("%zu of %zu pages differ from pagemap", bad, compared);
	EXPECT_LT(1000, compared);
	EXPECT_EQ((zero->end - zero->start) >> MW_PAGE_SHIFT, zero_pages);
	free(out);
	free(err);
}

/* ---- error paths, against a small idle target ---------------------------------- */

FIXTURE(snap) {
	int fd;
	struct memwalk_info info;
	struct mw_target t;
	struct memwalk_snapshot arg;	/* a valid request for the target */
	char *vbuf, *rbuf;
	bool skip;
	char reason[256];
};

#define SMALL_BUF	(64 * 1024)

FIXTURE_SETUP(snap)
{
	const char *args[] = { "idle", NULL };

	self->t.pid = -1;
	self->t.to = self->t.from = -1;
	if (!dev_setup(_metadata, &self->fd, &self->info, self->reason,
		       sizeof(self->reason))) {
		self->skip = true;
		SKIP(return, "%s", self->reason);
	}
	ASSERT_EQ(0, mw_target_start(&self->t, 0, args));
	ASSERT_EQ(0, mw_target_expect(&self->t, "ready", READY_MS))
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

	SETUP_OK();
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
	SETUP_OK();
	self->arg.pid = mw_free_pid();
	ASSERT_LT(0, self->arg.pid);
	EXPECT_EQ(ESRCH, snap_errno(self->fd, &self->arg));
}

TEST_F(snap, pid_negative_esrch)
{
	SETUP_OK();
	self->arg.pid = -1;
	EXPECT_EQ(ESRCH, snap_errno(self->fd, &self->arg));
}

/* pid 2, kthreadd: no mm.  snapshot.c: "-ESRCH if ... it has no mm". */
TEST_F(snap, kernel_thread_esrch)
{
	char comm[32];

	SETUP_OK();
	ASSERT_EQ(0, mw_read_file("/proc/2/comm", comm, sizeof(comm)));
	ASSERT_STREQ("kthreadd\n", comm);
	self->arg.pid = 2;
	EXPECT_EQ(ESRCH, snap_errno(self->fd, &self->arg));
}

/* A zombie has no mm any more. */
TEST_F(snap, zombie_esrch)
{
	pid_t pid;

	SETUP_OK();
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
	SETUP_OK();
	self->arg.start = MW_PAGE + 8;
	EXPECT_EQ(EINVAL, snap_errno(self->fd, &self->arg));
}

TEST_F(snap, range_end_unaligned_einval)
{
	SETUP_OK();
	self->arg.end = (1ULL << 40) + 1;
	EXPECT_EQ(EINVAL, snap_errno(self->fd, &self->arg));
}

TEST_F(snap, range_reversed_einval)
{
	SETUP_OK();
	self->arg.start = 1ULL << 40;
	self->arg.end = 1ULL << 30;
	EXPECT_EQ(EINVAL, snap_errno(self->fd, &self->arg));
}

TEST_F(snap, range_empty_einval)
{
	SETUP_OK();
	self->arg.start = 1ULL << 30;
	self->arg.end = 1ULL << 30;
	EXPECT_EQ(EINVAL, snap_errno(self->fd, &self->arg));
}

TEST_F(snap, range_end_beyond_user_einval)
{
	SETUP_OK();
	self->arg.end = mw_task_size + MW_PAGE;
	EXPECT_EQ(EINVAL, snap_errno(self->fd, &self->arg));
}

/* start beyond the user address space with end 0 ("to the end"). */
TEST_F(snap, range_start_beyond_user_einval)
{
	SETUP_OK();
	self->arg.start = mw_task_size + MW_PAGE;
	EXPECT_EQ(EINVAL, snap_errno(self->fd, &self->arg));
}

/* A range without VMAs is done at once, with nothing in it. */
TEST_F(snap, range_without_vmas)
{
	SETUP_OK();
	self->arg.start = 0;
	self->arg.end = 16 * MW_PAGE;
	ASSERT_EQ(0, snap_errno(self->fd, &self->arg));
	EXPECT_EQ(16 * MW_PAGE, self->arg.walk_end);
	EXPECT_EQ(0, self->arg.vma_bytes);
	EXPECT_EQ(0, self->arg.nr_runs);
}

TEST_F(snap, arg_null_efault)
{
	SETUP_OK();
	EXPECT_EQ(EFAULT, errno_of(ioctl(self->fd, MEMWALK_IOC_SNAPSHOT, NULL)));
}

TEST_F(snap, vma_buf_null_efault)
{
	SETUP_OK();
	self->arg.vma_buf = 0;
	EXPECT_EQ(EFAULT, snap_errno(self->fd, &self->arg));
}

TEST_F(snap, run_buf_null_efault)
{
	SETUP_OK();
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

	SETUP_OK();
	ASSERT_NE(MAP_FAILED, p);
	self->arg.vma_buf = (uintptr_t)p;
	self->arg.vma_buf_len = MW_PAGE;
	EXPECT_EQ(EFAULT, snap_errno(self->fd, &self->arg));
}

TEST_F(snap, run_buf_unmapped_efault)
{
	void *p = unmapped_page();

	SETUP_OK();
	ASSERT_NE(MAP_FAILED, p);
	self->arg.run_buf = (uintptr_t)p;
	self->arg.run_buf_len = MW_PAGE;
	EXPECT_EQ(EFAULT, snap_errno(self->fd, &self->arg));
}

/* Readable but not writable: the kernel cannot store the runs. */
TEST_F(snap, run_buf_read_only_efault)
{
	void *p = mmap(NULL, MW_PAGE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	SETUP_OK();
	ASSERT_NE(MAP_FAILED, p);
	self->arg.run_buf = (uintptr_t)p;
	self->arg.run_buf_len = MW_PAGE;
	EXPECT_EQ(EFAULT, snap_errno(self->fd, &self->arg));
	munmap(p, MW_PAGE);
}

TEST_F(snap, vma_buf_too_small_enospc)
{
	SETUP_OK();
	self->arg.vma_buf_len = sizeof(struct memwalk_vma);	/* no room for a name */
	EXPECT_EQ(ENOSPC, snap_errno(self->fd, &self->arg));
}

TEST_F(snap, run_buf_too_small_enospc)
{
	SETUP_OK();
	self->arg.flags = MEMWALK_SNAP_PAGES | MEMWALK_SNAP_FOLIO;
	self->arg.run_buf_len = sizeof(struct memwalk_page_run) - 1;
	EXPECT_EQ(ENOSPC, snap_errno(self->fd, &self->arg));
}

TEST_F(snap, flags_unknown_einval)
{
	const uint32_t bad[] = { MEMWALK_SNAP_PFN_LIST << 1, 1U << 31 };
	unsigned int i;

	SETUP_OK();
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		self->arg.flags = MEMWALK_SNAP_ALL | bad[i];
		EXPECT_EQ(EINVAL, snap_errno(self->fd, &self->arg)) TH_LOG("flags %#x", bad[i]);
	}
}

/* Folio state comes from the page, which entry-only mode never reads. */
TEST_F(snap, flags_entry_only_with_folio_einval)
{
	SETUP_OK();
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

	SETUP_OK();
	ASSERT_NE(NULL, pfns);
	ASSERT_NE(MAP_FAILED, p);
	ASSERT_EQ(0, madvise(p, n * MW_PAGE, MADV_NOHUGEPAGE));
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
	SETUP_OK();
	self->arg.flags = MEMWALK_SNAP_VMAS | MEMWALK_SNAP_PAGES |
			  MEMWALK_SNAP_ENTRY_ONLY | MEMWALK_SNAP_PFN_LIST;
	self->arg.pfn_buf = 0;
	self->arg.pfn_buf_len = 4096;
	EXPECT_EQ(EFAULT, snap_errno(self->fd, &self->arg));
}

/* Neither VMAs nor pages asked for. */
TEST_F(snap, flags_nothing_asked_einval)
{
	SETUP_OK();
	self->arg.flags = MEMWALK_SNAP_FOLIO | MEMWALK_SNAP_NO_PFN;
	EXPECT_EQ(EINVAL, snap_errno(self->fd, &self->arg));
}

TEST_F(snap, reserved_nonzero_einval)
{
	SETUP_OK();
	self->arg.__reserved = 1;
	EXPECT_EQ(EINVAL, snap_errno(self->fd, &self->arg));
}

TEST_F(snap, size_too_small_einval)
{
	const uint32_t sizes[] = { 0, 8, MEMWALK_SNAPSHOT_SIZE_VER0 - 8 };
	unsigned int i;

	SETUP_OK();
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

	SETUP_OK();
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

	SETUP_OK();
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

	SETUP_OK();
	ASSERT_NE(MAP_FAILED, p);
	p[MW_PAGE] = 1;
	ASSERT_EQ(0, mw_pagemap_read(getpid(), (uintptr_t)p + MW_PAGE, 1, &pm));
	snap_all(_metadata, self->fd, getpid(), MEMWALK_SNAP_ALL, &s);
	ASSERT_NE(NULL, mw_snap_vma(&s, (uintptr_t)&s));	/* our stack */
	r = run_at(&s, (uintptr_t)p + MW_PAGE);
	ASSERT_NE(NULL, r);
	EXPECT_EQ(pm & PM_PFN_MASK, r->pfn + (((uintptr_t)p + MW_PAGE - r->start) >> MW_PAGE_SHIFT));
	EXPECT_EQ(NULL, run_at(&s, (uintptr_t)p));
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

	SETUP_OK();
	EXPECT_EQ(0, mw_as_user(MW_NOBODY, snapshot_with_lent_fd, &l));
}

/* -- translate's error paths ------------------------------------------------------ */

TEST_F(snap, translate_pid_missing_esrch)
{
	struct memwalk_translate t;

	SETUP_OK();
	EXPECT_EQ(ESRCH, translate(self->fd, mw_free_pid(), 0x400000, &t));
}

TEST_F(snap, translate_flags_einval)
{
	struct memwalk_translate t = { .size = sizeof(t), .flags = 1 };

	SETUP_OK();
	t.pid = self->t.pid;
	t.addr = mw_target_region(&self->t, "idle")->start;
	EXPECT_EQ(EINVAL, errno_of(ioctl(self->fd, MEMWALK_IOC_TRANSLATE, &t)));
}

TEST_F(snap, translate_addr_beyond_user_einval)
{
	struct memwalk_translate t;

	SETUP_OK();
	EXPECT_EQ(EINVAL, translate(self->fd, self->t.pid, mw_task_size + MW_PAGE, &t));
}

TEST_F(snap, translate_size_too_small_einval)
{
	struct memwalk_translate t = { .size = MEMWALK_TRANSLATE_SIZE_VER0 - 8 };

	SETUP_OK();
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

	SETUP_OK();
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

	SETUP_OK();
	if (access(DEBUGFS_DIR "/target", W_OK))
		SKIP(return, "no %s/target", DEBUGFS_DIR);
	snprintf(pid, sizeof(pid), "%d", mw_free_pid());
	EXPECT_EQ(-ESRCH, mw_write_file(DEBUGFS_DIR "/target", pid));
}

TEST_F(snap, debugfs_target_zero_einval)
{
	SETUP_OK();
	if (access(DEBUGFS_DIR "/target", W_OK))
		SKIP(return, "no %s/target", DEBUGFS_DIR);
	EXPECT_EQ(-EINVAL, mw_write_file(DEBUGFS_DIR "/target", "0"));
}

/* The target gone: its maps cannot be rendered. */
TEST_F(snap, debugfs_maps_target_exited_esrch)
{
	char pid[32], buf[64];
	pid_t child;

	SETUP_OK();
	if (access(DEBUGFS_DIR "/maps", R_OK))
		SKIP(return, "no %s/maps", DEBUGFS_DIR);
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

/* ---- a target that exits, and one that never stops changing ---------------------- */

FIXTURE(churn) {
	int fd;
	struct memwalk_info info;
	struct mw_target t;
	bool skip;
	char reason[256];
};

FIXTURE_SETUP(churn)
{
	self->t.pid = -1;
	self->t.to = self->t.from = -1;
	if (!dev_setup(_metadata, &self->fd, &self->info, self->reason,
		       sizeof(self->reason))) {
		self->skip = true;
		SKIP(return, "%s", self->reason);
	}
}

FIXTURE_TEARDOWN(churn)
{
	mw_target_kill(&self->t);
	if (self->fd >= 0)
		close(self->fd);
}

static unsigned long taint(void)
{
	char buf[32];

	return mw_read_file("/proc/sys/kernel/tainted", buf, sizeof(buf)) ? ~0UL :
	       strtoul(buf, NULL, 10);
}

/* One call; 0 after checking the answer, else its errno (-1: bad answer). */
static int one_call(int fd, pid_t pid, uint64_t start, uint32_t flags, void *vbuf,
		    size_t vlen, void *rbuf, size_t rlen, uint64_t *next, struct mw_why *why)
{
	struct memwalk_snapshot arg = {
		.size = sizeof(arg), .flags = flags, .pid = pid, .start = start,
		.vma_buf = (uintptr_t)vbuf, .vma_buf_len = vlen,
		.run_buf = (uintptr_t)rbuf, .run_buf_len = rlen,
	};
	int ret = mw_snap_ioctl(fd, &arg);

	if (ret)
		return ret;
	if (mw_snap_check_call(&arg, vbuf, rbuf, why))
		return -1;
	*next = arg.walk_end;
	return 0;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Microseconds one whole walk of @pid takes. */
static long walk_us(int fd, pid_t pid, void *vbuf, void *rbuf, size_t len)
{
	struct timespec t0, t1;
	struct mw_why why;
	uint64_t next;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (one_call(fd, pid, 0, MEMWALK_SNAP_ALL, vbuf, len, rbuf, len, &next, &why))
		return -1;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (t1.tv_sec - t0.tv_sec) * 1000000L + (t1.tv_nsec - t0.tv_nsec) / 1000;
}

/*
 * The target (4000 VMAs) is killed while snapshots walk it, at a moment
 * spread over one walk's duration each round, walked in one call or in
 * many small ones: every call succeeds with a well-formed answer or fails
 * with ESRCH once the mm is gone; a walk in many calls ends either way.
 */
TEST_F_TIMEOUT(churn, target_exits_during_walk, 600)
{
	const char *args[] = { "many", "4000", NULL };
	size_t len = 4 << 20, small = 4096;
	void *vbuf = malloc(len), *rbuf = malloc(len);
	unsigned int round, ok = 0, cut = 0;
	struct mw_why why;
	uint64_t cur, next;
	pid_t killer;
	long us;
	int ret;

	SETUP_OK();
	ASSERT_NE(NULL, vbuf);
	ASSERT_NE(NULL, rbuf);
	for (round = 0; round < 8; round++) {
		bool tiny = round >= 4;

		ASSERT_EQ(0, mw_target_start(&self->t, 0, args));
		ASSERT_EQ(0, mw_target_expect(&self->t, "ready", READY_MS))
			TH_LOG("target: %s", self->t.notes);
		us = walk_us(self->fd, self->t.pid, vbuf, rbuf, len);
		ASSERT_LT(0, us);
		if (tiny)
			us *= 4;	/* many calls take longer than one */
		fflush(NULL);
		killer = fork();
		if (killer == 0) {
			struct timespec ts = { 0, (round % 4) * us * 1000 / 4 };

			nanosleep(&ts, NULL);
			kill(self->t.pid, SIGKILL);
			_exit(0);
		}
		ASSERT_LT(0, killer);
		/* Walk again and again until the target is gone. */
		do {
			for (cur = 0, ret = 0; !ret && cur < mw_task_size;
			     cur = next ? next : mw_task_size) {
				ret = one_call(self->fd, self->t.pid, cur, MEMWALK_SNAP_ALL, vbuf,
					       tiny ? small : len, rbuf, tiny ? small : len,
					       &next, &why);
				ASSERT_TRUE(ret == 0 || ret == ESRCH)
					TH_LOG("round %u: %s", round,
					       ret < 0 ? why.msg : strerror(ret));
			}
			if (!ret)
				ok++;
			else if (cur)
				cut++;	/* gone in the middle of a walk */
		} while (!ret);
		waitpid(killer, NULL, 0);
		mw_target_kill(&self->t);
	}
	TH_LOG("%u whole walks, %u walks cut short by the exit", ok, cut);
	free(vbuf);
	free(rbuf);
}

/*
 * The VMA being walked changes between two holds of its mmap_lock (the
 * walker pauses after 2 ms or when the target wants the lock): the call
 * must still return each VMA once, records sorted and not overlapping.
 */
TEST_F_TIMEOUT(churn, vma_changes_mid_walk, 60)
{
	const char *args[] = { "grow", "8192", NULL };
	size_t len = 4 << 20;
	void *vbuf = malloc(len), *rbuf = malloc(len);
	unsigned int calls = 0, drops = 0;
	double end = now_s() + 5;
	struct mw_why why;
	int ret;

	SETUP_OK();
	ASSERT_NE(NULL, vbuf);
	ASSERT_NE(NULL, rbuf);
	ASSERT_EQ(0, mw_target_start(&self->t, 0, args));
	ASSERT_EQ(0, mw_target_expect(&self->t, "ready", READY_MS));
	while (now_s() < end) {
		struct memwalk_snapshot arg = {
			.size = sizeof(arg), .flags = MEMWALK_SNAP_ALL, .pid = self->t.pid,
			.vma_buf = (uintptr_t)vbuf, .vma_buf_len = len,
			.run_buf = (uintptr_t)rbuf, .run_buf_len = len,
		};

		ret = mw_snap_ioctl(self->fd, &arg);
		ASSERT_EQ(0, ret) TH_LOG("%s", strerror(ret));
		ASSERT_EQ(0, mw_snap_check_call(&arg, vbuf, rbuf, &why))
			TH_LOG("call %u (%u lock drops so far): %s", calls, drops, why.msg);
		calls++;
		drops += arg.lock_drops;
	}
	TH_LOG("%u calls, %u mmap_lock drops inside them", calls, drops);
	EXPECT_LT(0, drops) TH_LOG("the walker never paused: nothing was tested");
	free(vbuf);
	free(rbuf);
}

/* The walker's hold budget (walk.c HOLD_BUDGET_NS) and what we allow. */
#define HOLD_BUDGET_NS		2000000ULL
/*
 * A hold overruns the budget by the work between two looks at the clock
 * (512 page-cache entries, PTEs or leaf pages: 9-50 us under TCG here,
 * logged) and by whatever stops the vCPU meanwhile: guest interrupts and,
 * under TCG on a busy host, the host descheduling the vCPU thread, which
 * the guest clock counts (single holds of 16 ms seen with the fix).  So
 * the margin is the budget again, and one of HOLD_TRIES snapshots must
 * keep within it.  What does not depend on the host's load is checked
 * too: a snapshot of the region alone (one VMA, one hole) whose holds
 * took longer than the budget and a few looks at the clock must have
 * dropped mmap_lock inside the hole; an unbroken scan never does.
 */
#define HOLD_MARGIN_NS		2000000ULL
#define HOLD_TRIES		10

/* MiB of shmem to cache: 3/4 of what the guest has available, 256..1024. */
static long shmem_cached_mib(void)
{
	char buf[4096], *p;
	long kb;

	if (mw_read_file("/proc/meminfo", buf, sizeof(buf)))
		return -1;
	p = strstr(buf, "MemAvailable:");
	if (!p)
		return -1;
	kb = strtol(p + strlen("MemAvailable:"), NULL, 10) / 1024 * 3 / 4;
	return kb > 1024 ? 1024 : kb & ~1L;
}

/*
 * Whether memwalk's runs over the shmem region [start, start + n pages),
 * which maps a file of @file_pages from its start, agree with mincore()
 * of the same file, before and after (@inc0, @inc1): a page of the file
 * in the page cache has no run (no entry, not in swap), one that is not
 * is in swap (a shmem-swap run); beyond the end of the file there is
 * nothing.  Pages whose residency changed between the two looks are not
 * compared.  Returns the mismatches, with the pages compared in
 * *@compared.
 */
static size_t compare_shmem_cached(struct __test_metadata *_metadata, const struct mw_snap *s,
				   uint64_t start, size_t n, size_t file_pages,
				   const unsigned char *inc0, const unsigned char *inc1,
				   size_t *compared)
{
	size_t k, bad = 0, ri = mw_run_find(s->runs, s->nr_runs, start);
	char buf[256];

	*compared = 0;
	for (k = 0; k < n; k++) {
		uint64_t addr = start + k * MW_PAGE;
		const struct memwalk_page_run *r = NULL;
		bool cached = inc0[k] & 1, want_run = !cached && k < file_pages;

		while (ri < s->nr_runs && mw_run_end(&s->runs[ri]) <= addr)
			ri++;
		if (ri < s->nr_runs && s->runs[ri].start <= addr)
			r = &s->runs[ri];
		if ((inc0[k] & 1) != (inc1[k] & 1))
			continue;
		(*compared)++;
		if (!!r == want_run && (!r || mw_run_state(r) == MEMWALK_STATE_SHMEM_SWAP))
			continue;
		if (bad++ < MAX_LOGGED)
			TH_LOG("%#llx: mincore says %s, memwalk %s",
			       (unsigned long long)addr, cached ? "cached" : "not cached",
			       r ? mw_run_str(r, buf, sizeof(buf)) : "no run");
	}
	return bad;
}

/*
 * A large shmem mapping whose pages are all in the page cache and none
 * mapped: the walker looks each up in the page cache (to find those in
 * swap) with nothing else to do, and must still honour the hold budget,
 * dropping mmap_lock in the middle; the answer must stay right (mincore
 * of the file as the oracle).
 */
TEST_F_TIMEOUT(churn, shmem_cached_hold_bounded, 600)
{
	char mib_s[16], path[96];
	const char *args[] = { "shmem_cached", mib_s, NULL };
	long mib = shmem_cached_mib();
	bool ok = false, long_walk, tested = false;
	unsigned char *inc0, *inc1;
	uint64_t per512;
	const struct mw_region *reg;
	size_t n, compared, bad, file_pages = (size_t)mib << (20 - MW_PAGE_SHIFT);
	struct mw_snap snap;
	struct mw_why why;
	void *map;
	int fd, i;

	SETUP_OK();
	ASSERT_LE(256, mib) TH_LOG("the guest has too little memory for the test (%ld MiB)", mib);
	snprintf(mib_s, sizeof(mib_s), "%ld", mib);
	ASSERT_EQ(0, mw_target_start(&self->t, 0, args));
	ASSERT_EQ(0, mw_target_expect(&self->t, "ready", 10 * READY_MS))
		TH_LOG("target: %s", self->t.notes);
	reg = mw_target_region(&self->t, "shmem_cached");
	ASSERT_NE(NULL, reg);
	n = (reg->end - reg->start) >> MW_PAGE_SHIFT;
	/* The oracle: the same file, mapped here and never touched. */
	snprintf(path, sizeof(path), "/proc/%d/map_files/%llx-%llx", self->t.pid,
		 (unsigned long long)reg->start, (unsigned long long)reg->end);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, fd) TH_LOG("%s: %s", path, strerror(errno));
	map = mmap(NULL, n * MW_PAGE, PROT_READ, MAP_SHARED, fd, 0);
	ASSERT_NE(MAP_FAILED, map);
	close(fd);
	inc0 = malloc(n);
	inc1 = malloc(n);
	ASSERT_NE(NULL, inc0);
	ASSERT_NE(NULL, inc1);

	for (i = 0; i < HOLD_TRIES; i++) {
		size_t cached = 0, k;

		ASSERT_EQ(0, mincore(map, n * MW_PAGE, inc0));
		ASSERT_EQ(0, mw_snapshot(self->fd, self->t.pid, reg->start, reg->end,
					 MEMWALK_SNAP_ALL, VMA_BUF, RUN_BUF, &snap, &why))
			TH_LOG("snapshot of %d: %s", self->t.pid, why.msg);
		ASSERT_EQ(0, mincore(map, n * MW_PAGE, inc1));
		for (k = 0; k < n; k++)
			cached += inc1[k] & 1;
		bad = compare_shmem_cached(_metadata, &snap, reg->start, n, file_pages,
					   inc0, inc1, &compared);
		/* The walk's cost per 512 cached pages: a hold's overrun. */
		per512 = snap.total_lock_ns * 512 / file_pages;
		ksft_print_msg("shmem_cached %ld MiB (%zu pages cached): holds %llu us, longest %llu us, %u lock drops, %llu us per 512 entries\n",
			       mib, cached, (unsigned long long)snap.total_lock_ns / 1000,
			       (unsigned long long)snap.max_lock_ns / 1000,
			       snap.lock_drops, (unsigned long long)per512 / 1000);
		EXPECT_EQ(0, bad) TH_LOG("%zu of %zu pages differ from mincore", bad, compared);
		EXPECT_LT(n / 2, compared) TH_LOG("the page cache kept changing");
		EXPECT_LT(file_pages / 2, cached)
			TH_LOG("the file's pages are not cached: nothing tested");
		/*
		 * Past the budget by more than a few looks at the clock, a
		 * walker that pauses must have dropped the lock.
		 */
		long_walk = snap.total_lock_ns > HOLD_BUDGET_NS + 4 * per512;
		tested |= long_walk;
		ok = (!long_walk || snap.lock_drops) &&
		     snap.max_lock_ns <= HOLD_BUDGET_NS + HOLD_MARGIN_NS;
		mw_snap_free(&snap);
		if (!_metadata->passed || (ok && long_walk))
			break;
	}
	EXPECT_TRUE(tested) TH_LOG("the hole took less than the budget: nothing tested");
	EXPECT_TRUE(ok) TH_LOG("no snapshot of %d kept within budget %llu us + margin %llu us and dropped mmap_lock in the hole",
			       HOLD_TRIES, HOLD_BUDGET_NS / 1000, HOLD_MARGIN_NS / 1000);
	munmap(map, n * MW_PAGE);
	free(inc0);
	free(inc1);
}

static unsigned int storm_seconds(void)
{
	const char *s = getenv("MEMWALK_STORM_SECONDS");

	return s && *s ? strtoul(s, NULL, 0) : 10;
}

/*
 * The target maps, unmaps, remaps, protects, pages out, forks and reaps
 * without pause while snapshots and translations run: every answer is
 * well formed (records sorted, not overlapping, runs inside the call's
 * VMAs, defined bits only), small buffers resume, its children come and
 * go (0 or ESRCH), and the kernel stays untainted.
 */
TEST_F_TIMEOUT(churn, storm, 90)
{
	const char *args[] = { "storm", NULL };
	size_t small = 4 * sizeof(struct memwalk_page_run), big = 1 << 20;
	unsigned long calls = 0, xlates = 0, others = 0, before = taint();
	void *vbuf = malloc(big), *rbuf = malloc(big);
	double end = now_s() + storm_seconds();
	unsigned int seed = 1;
	struct mw_why why;
	uint64_t cur, next;
	int ret;

	SETUP_OK();
	ASSERT_NE(NULL, vbuf);
	ASSERT_NE(NULL, rbuf);
	ASSERT_EQ(0, mw_target_start(&self->t, 0, args));
	ASSERT_EQ(0, mw_target_expect(&self->t, "ready", READY_MS));
	/* Overlapping VMA records are counted and reported at the end. */
	mw_allow_overlap = true;
	while (now_s() < end) {
		bool tiny = rand_r(&seed) % 3 == 0;
		struct memwalk_translate t;

		/* One whole walk, resumed call by call (VMAs may change between). */
		for (cur = 0; cur < mw_task_size; cur = next ? next : mw_task_size) {
			ret = one_call(self->fd, self->t.pid, cur, MEMWALK_SNAP_ALL, vbuf,
				       tiny ? 4096 : big, rbuf, tiny ? small : big, &next, &why);
			ASSERT_EQ(0, ret) TH_LOG("call %lu: %s", calls,
						 ret < 0 ? why.msg : strerror(ret));
			calls++;
		}
		/* A translation of some address of it. */
		/* (below 2^47: 4-level paging's user space ends there) */
		ret = translate(self->fd, self->t.pid, 0x7f0000000000ULL +
				(((uint64_t)rand_r(&seed) << 12) & 0xfffffff000ULL), &t);
		ASSERT_EQ(0, ret);
		ASSERT_LE(t.nr_levels, MEMWALK_MAX_LEVELS);
		xlates++;
		/* Its short-lived children, or whatever has a nearby pid. */
		ret = one_call(self->fd, self->t.pid + 1 + rand_r(&seed) % 64, 0,
			       MEMWALK_SNAP_ALL, vbuf, big, rbuf, big, &next, &why);
		ASSERT_TRUE(ret == 0 || ret == ESRCH) TH_LOG("%s", ret < 0 ? why.msg : strerror(ret));
		others++;
	}
	TH_LOG("%lu snapshot calls, %lu translations, %lu snapshots of other pids in %u s",
	       calls, xlates, others, storm_seconds());
	EXPECT_LT(10, calls);
	EXPECT_EQ(before, taint());
	/* A VMA that changed between two lock holds must not be reported twice. */
	EXPECT_EQ(0, mw_overlaps) TH_LOG("%lu calls returned overlapping VMA records; first: %s",
					 mw_overlaps, mw_first_overlap);
	free(vbuf);
	free(rbuf);
}

TEST_HARNESS_MAIN

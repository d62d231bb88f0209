// SPDX-License-Identifier: GPL-2.0
/*
 * memwalk's answer for the whole of memwalk_target's states, in every
 * snapshot mode (the variants of memwalk_states.h), against the kernel's
 * own answers:
 *
 *  - every VMA with /proc/PID/maps line by line, its flags with smaps'
 *    VmFlags and its backing file with /proc/PID/map_files;
 *  - the runs with root's full answer as the mode must show it: the same
 *    pages, cut the same way (no wrong merge, no missed one);
 *  - every page of every VMA with /proc/PID/pagemap (present, swap type
 *    and offset, PFN, soft-dirty, exclusive, file/shared-anon, uffd-wp);
 *  - every mapped PFN's folio flags with /proc/kpageflags and its mapcount
 *    with /proc/kpagecount, where the mode has folio state;
 *  - per-VMA sums over the runs with smaps.
 *
 * The bits that could change without the target doing anything are the
 * LRU-list ones (LRU, ACTIVE, REFERENCED, IDLE) when some other CPU's
 * batch is flushed late; for them a comparison is taken again, after
 * another lru_add_drain_all(), at most MAX_PASSES times, and the last
 * pass must be exact.  Every other field must match the first time.
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
 * so a tail page is compared with its head's kpageflags.
 *
 * Needs root and the module loaded (memwalk_states.h: the lab variant
 * alone with lab_mode=1).
 */
#include "kselftest_harness.h"

#include <sys/stat.h>
#include <sys/statfs.h>

#include <linux/magic.h>

#include "memwalk_states.h"

#define MAX_PASSES	3
/* Two snapshots compared whole: their shared pages' counts move too. */
#define PASSES		6
/* folio_flags bits that LRU-list moves can change without the target. */
#define RACY_FOLIO_BITS	((1U << MEMWALK_KPF_LRU) | (1U << MEMWALK_KPF_ACTIVE) | \
			 (1U << MEMWALK_KPF_REFERENCED) | (1U << MEMWALK_KPF_IDLE))
/* Compared with kpageflags: the header's KPF bits and PG_mlocked (KPF 33). */
#define KPF_COMPARED	(MW_KPF_BITS | (1U << MEMWALK_FOLIO_MLOCKED))

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

	SNAP_MODE(&s);
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

	SNAP_MODE(&s);
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

	mw_strict_runs = true;
	SNAP_MODE(&s);
	mw_snap_free(&s);
}

/*
 * Root's full answer, page by page as the mode must show it
 * (run_as_mode()), merged again by the module's rule (memwalk_run_extends():
 * adjacent, in one VMA, alike in every field, PFNs following unless
 * hidden) into @out; their number.
 */
static size_t runs_of_mode(const FIXTURE_VARIANT(states) *variant, const struct mw_snap *full,
			   struct memwalk_page_run *out)
{
	struct memwalk_page_run *pages;
	size_t nr, i, n = 0;

	pages = mw_runs_expand(full->runs, full->nr_runs, &nr);
	if (!pages)
		return 0;
	for (i = 0; i < nr; i++) {
		struct memwalk_page_run p = pages[i];
		struct memwalk_page_run *last = n ? &out[n - 1] : NULL;
		const struct mw_vma *v = mw_snap_vma(full, p.start);
		struct memwalk_page_run a, b;

		if (!run_as_mode(variant, &p))
			continue;
		if (last && mw_run_end(last) == p.start && v && last->start >= v->rec.start) {
			a = *last;
			b = p;
			a.start = b.start = a.nr_pages = b.nr_pages = 0;
			a.pfn = b.pfn = 0;
			if (!memcmp(&a, &b, sizeof(a)) &&
			    (!variant->pfns || mw_run_state(&p) == MEMWALK_STATE_MARKER ||
			     last->pfn + last->nr_pages == p.pfn)) {
				last->nr_pages++;
				continue;
			}
		}
		out[n++] = p;
	}
	free(pages);
	return n;
}

/*
 * The mode's runs are exactly root's full answer as that mode shows it:
 * the same pages in the same states, cut into the same runs, no wider (a
 * wrong merge) and no narrower (a missed one).  In lab mode this is the
 * PTE-only walk with PFNs hidden, whose runs merge wider than root's.
 * LRU-list bits may move between the two snapshots, and a shared page's
 * counts while a process elsewhere maps it (a library): up to PASSES
 * tries, draining the LRU batches in between, the last one exact.
 */
TEST_F(states, runs_equal_full_walk_in_mode)
{
	struct memwalk_page_run *want = NULL;
	struct mw_logcap cap = MW_LOGCAP(MW_LOG_FIRST);
	size_t i, n, bad = 0;
	struct mw_snap full, s;
	int pass;
	char b1[256], b2[256];

	for (pass = 1; pass <= PASSES; pass++) {
		SNAP_FULL(&full);
		SNAP_MODE(&s);
		EXPECT_EQ(flags_returned(variant), s.flags);
		free(want);
		want = calloc(full.nr_runs * 2 + 1, sizeof(*want));
		ASSERT_NE(NULL, want);
		n = runs_of_mode(variant, &full, want);
		ASSERT_LT(0, n) TH_LOG("no runs out of %zu", full.nr_runs);
		bad = 0;
		for (i = 0; i < n || i < s.nr_runs; i++)
			if (i >= n || i >= s.nr_runs || memcmp(&want[i], &s.runs[i], sizeof(want[i])))
				bad++;
		if (!bad || pass == PASSES)
			break;
		ksft_print_msg("pass %d: %zu runs differ\n", pass, bad);
		mw_snap_free(&full);
		mw_snap_free(&s);
		mw_lru_drain_all();
		usleep(100 * 1000);
	}
	for (i = 0; i < n || i < s.nr_runs; i++) {
		if (i < n && i < s.nr_runs && !memcmp(&want[i], &s.runs[i], sizeof(want[i])))
			continue;
		MW_LOG_CAPPED(&cap, "run %zu: want %s, got %s", i,
			      i < n ? mw_run_str(&want[i], b1, sizeof(b1)) : "none",
			      i < s.nr_runs ? mw_run_str(&s.runs[i], b2, sizeof(b2)) : "none");
	}
	MW_LOG_REST(&cap, "runs differ");
	EXPECT_EQ(n, s.nr_runs) TH_LOG("%zu runs of root's answer as this mode shows it, %zu runs here",
				       n, s.nr_runs);
	EXPECT_EQ(0, bad);
	if (!variant->pfns)
		EXPECT_GT(full.nr_runs, s.nr_runs) TH_LOG("runs without PFNs should merge wider");
	free(want);
	mw_snap_free(&full);
	mw_snap_free(&s);
}

/* -- pages: pagemap ------------------------------------------------------ */

/*
 * Compare every page of every VMA with pagemap (read by root: PFNs
 * shown) as the variant shows it: without the bits a page-less walk
 * cannot know (PM_FILE, PM_MMAP_EXCLUSIVE) in entry-only mode, and with
 * PFNs and swap offsets 0 where hidden.  Returns the number of mismatches.
 */
static size_t compare_pagemap(struct __test_metadata *_metadata,
			      const FIXTURE_VARIANT(states) *variant, pid_t pid,
			      const struct mw_snap *s, size_t *compared)
{
	uint64_t ignored = variant->page ? 0 : PM_FILE | PM_MMAP_EXCLUSIVE;
	struct mw_logcap cap = MW_LOGCAP(MW_LOG_FIRST);
	size_t i, k, bad = 0, ri;
	char buf[256];

	*compared = 0;
	for (i = 0; i < s->nr_vmas; i++) {
		const struct mw_vma *v = &s->vmas[i];
		size_t n = (v->rec.end - v->rec.start) >> MW_PAGE_SHIFT;
		uint64_t *pm;

		if (!user_vma(v))
			continue;
		pm = mw_pagemap_of(pid, v->rec.start, v->rec.end);
		ASSERT_NE(NULL, pm) TH_LOG("pagemap of %d: %s", pid, strerror(errno));
		ri = mw_run_find(s->runs, s->nr_runs, v->rec.start);
		for (k = 0; k < n; k++) {
			uint64_t addr = v->rec.start + k * MW_PAGE, want, mask;
			const struct memwalk_page_run *r = NULL;

			while (ri < s->nr_runs && mw_run_end(&s->runs[ri]) <= addr)
				ri++;
			if (ri < s->nr_runs && s->runs[ri].start <= addr)
				r = &s->runs[ri];
			want = mw_pagemap_expected(v, r, addr, &mask);
			mask &= ~ignored;
			if (!variant->pfns && r) {
				/* the frame or slot hidden; a swap entry keeps its type */
				mask &= ~(PM_PFN_MASK & ~((1ULL << PM_SWAP_TYPE_BITS) - 1));
				if (mw_run_state(r) == MEMWALK_STATE_PRESENT)
					mask &= ~PM_PFN_MASK;
				if (r->pfn)
					want = ~pm[k];	/* a PFN shown: a mismatch */
			}
			(*compared)++;
			if (!((want ^ pm[k]) & mask))
				continue;
			bad++;
			MW_LOG_CAPPED(&cap, "%#llx (%s): pagemap %#llx, memwalk implies %#llx (mask %#llx): %s",
				      (unsigned long long)addr, v->name,
				      (unsigned long long)pm[k], (unsigned long long)want,
				      (unsigned long long)mask,
				      r ? mw_run_str(r, buf, sizeof(buf)) : "no run");
		}
		free(pm);
	}
	MW_LOG_REST(&cap, "pages differ from pagemap");
	return bad;
}

/*
 * Every page against pagemap, asked plainly and with PFN lists (none are
 * made where PFNs are hidden: a list of zeros would tell nothing).
 */
TEST_F(states, pages_equal_pagemap)
{
	size_t compared, bad;
	struct mw_snap s;

	SNAP_MODE(&s);
	bad = compare_pagemap(_metadata, variant, self->t.pid, &s, &compared);
	EXPECT_EQ(0, bad) TH_LOG("%zu of %zu pages differ from pagemap", bad, compared);
	EXPECT_LT(1000, compared);
	mw_snap_free(&s);

	snap_in(_metadata, self->fd, self->t.pid, variant->flags | MEMWALK_SNAP_PFN_LIST, &s);
	if (variant->pfns) {
		EXPECT_LT(0, s.nr_listed);
	} else {
		EXPECT_EQ(0, s.nr_listed) TH_LOG("PFN lists with the PFNs hidden");
	}
	bad = compare_pagemap(_metadata, variant, self->t.pid, &s, &compared);
	EXPECT_EQ(0, bad) TH_LOG("PFN lists: %zu of %zu pages differ from pagemap", bad, compared);
	mw_snap_free(&s);
}

/* -- pages: kpageflags, kpagecount ---------------------------------------- */

struct kpf_result {
	size_t compared;
	size_t bad;		/* mismatches in anything */
	size_t racy_only;	/* mismatches only in RACY_FOLIO_BITS */
	size_t kpf_ksm_unmerged;	/* kpageflags' KSM while KSM never ran */
	bool ksm_ran;
	struct mw_logcap cap;
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
 * The vDSO's pages are mapped by every process: one that forks or exits
 * anywhere in the guest between the snapshot and the kpagecount read (the
 * suite's own `date`, say) changes their count.
 */
static bool mapped_by_all(const struct mw_vma *v)
{
	return v->name && (!strcmp(v->name, "[vdso]") || !strncmp(v->name, "[vvar", 5));
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
	res->cap = MW_LOGCAP(MW_LOG_FIRST);
	res->ksm_ran = ksm;
	for (i = 0; i < s->nr_vmas; i++) {
		const struct mw_vma *v = &s->vmas[i];
		size_t ri;
		uint64_t *pm;

		if (!user_vma(v))
			continue;
		pm = mw_pagemap_of(pid, v->rec.start, v->rec.end);
		ASSERT_NE(NULL, pm) TH_LOG("pagemap of %d: %s", pid, strerror(errno));
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
				} else if (r->mapcount != kpc && !mapped_by_all(v)) {
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
				if (log && mw_logcap_take(&res->cap))
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
		snap_in(_metadata, fd, pid, flags, &s);
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
		snap_in(_metadata, fd, pid, flags, &s);
		compare_kpageflags(_metadata, pid, &s, info, true, &res);
		mw_snap_free(&s);
	}
	MW_LOG_REST(&res.cap, "pages differ from kpageflags/kpagecount");
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


/*
 * Folio state against kpageflags and kpagecount where the mode has it
 * (plainly and with PFN lists); elsewhere none at all, and the returned
 * flags say so.
 */
TEST_F(states, folios_equal_kpageflags)
{
	struct mw_snap s;
	size_t i, bad = 0;

	if (variant->folio) {
		check_kpageflags(_metadata, self->fd, self->t.pid, &self->info, variant->flags);
		check_kpageflags(_metadata, self->fd, self->t.pid, &self->info,
				 variant->flags | MEMWALK_SNAP_PFN_LIST);
		return;
	}
	SNAP_MODE(&s);
	EXPECT_FALSE(s.flags & MEMWALK_SNAP_FOLIO);
	for (i = 0; i < s.nr_runs; i++)
		bad += !mw_folio_hidden(&s.runs[i]);
	EXPECT_EQ(0, bad) TH_LOG("%zu of %zu runs carry folio state", bad, s.nr_runs);
	/* The target's regions: 99 runs and more on every line (99 on 6.12-rt). */
	EXPECT_LT(50, s.nr_runs) TH_LOG("%zu runs: the target's regions are missing", s.nr_runs);
	mw_snap_free(&s);
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

/*
 * The per-VMA sums smaps prints, from the mode's runs, where the mode
 * carries what they need: Referenced, Dirty and Shared need folio state
 * (the folio's referenced and dirty bits, mapcount and refcount); Rss,
 * Anonymous and the PMD-mapped sums need the page (ANON, SHMEM, the zero
 * pages, special mappings); an entry-only walk has the Swap of swap
 * entries (not of shmem pages in swap) and hugetlb pages.
 */
TEST_F(states, counts_equal_smaps)
{
	struct mw_smaps *sm;
	size_t nr, i, j = 0, cmp = 0;
	struct mw_snap s;
	struct counts c;

	SNAP_MODE(&s);
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
#define CMP(field, smaps_value) do { \
		cmp++; \
		EXPECT_EQ(smaps_value, c.field) \
			TH_LOG("VMA %llx-%llx %s: smaps %s %llu kB, memwalk's runs %llu kB", \
			       (unsigned long long)v->rec.start, (unsigned long long)v->rec.end, \
			       v->name, #smaps_value, (unsigned long long)(smaps_value), \
			       (unsigned long long)c.field); \
	} while (0)
		CMP(hugetlb, m->shared_hugetlb + m->private_hugetlb);
		if (variant->page || !(v->rec.flags & MEMWALK_VMA_SHMEM))
			CMP(swap, m->swap);
		if (variant->page) {
			CMP(rss, m->rss);
			CMP(anon, m->anonymous);
			CMP(anon_huge, m->anon_huge);
			CMP(shmem_pmd, m->shmem_pmd);
			CMP(file_pmd, m->file_pmd);
		}
		if (variant->folio) {
			CMP(referenced, m->referenced);
			CMP(dirty, m->shared_dirty + m->private_dirty);
			CMP(shared, m->shared_clean + m->shared_dirty);
		}
#undef CMP
	}
	EXPECT_EQ(j, s.nr_vmas);
	EXPECT_LT(j, cmp);
	free(sm);
	mw_snap_free(&s);
}

STATES_HARNESS_MAIN

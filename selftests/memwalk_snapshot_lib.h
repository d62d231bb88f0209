/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers of the MEMWALK_IOC_SNAPSHOT / MEMWALK_IOC_TRANSLATE selftests:
 * running memwalk_target, collecting a snapshot over as many calls as it
 * takes (checking every call's answer on the way), and reading the kernel's
 * own answers: /proc/PID/maps, smaps, pagemap, /proc/kpageflags and
 * /proc/kpagecount.  Independent of kselftest_harness.h: functions return 0
 * or an errno and say what went wrong in a struct mw_why.
 */
#ifndef MEMWALK_SNAPSHOT_LIB_H
#define MEMWALK_SNAPSHOT_LIB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <linux/memwalk.h>

#include "memwalk_util.h"

#define MW_PAGE			4096UL
#define MW_PAGE_SHIFT		12

/* What went wrong, for TH_LOG. */
struct mw_why {
	char msg[1024];
};

void mw_why_set(struct mw_why *why, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* ---- bits of the ABI, as the tests see them ------------------------------ */

#define MW_SNAP_KNOWN_FLAGS	(MEMWALK_SNAP_VMAS | MEMWALK_SNAP_PAGES | \
				 MEMWALK_SNAP_FOLIO | MEMWALK_SNAP_NO_PFN)
#define MW_VMA_KNOWN_FLAGS	((MEMWALK_VMA_FILE << 1) - 1)
#define MW_RUN_KNOWN_FLAGS	(MEMWALK_RUN_STATE_MASK | MEMWALK_RUN_LEVEL_MASK | \
				 ((MEMWALK_RUN_FOLIO_YOUNG << 1) - \
				  MEMWALK_RUN_WRITE) | MEMWALK_RUN_SWAP_TYPE_MASK)
/* folio_flags: the kpageflags bits the header names, and memwalk's own. */
#define MW_KPF_BITS		((1U << MEMWALK_KPF_LOCKED) | \
				 (1U << MEMWALK_KPF_REFERENCED) | \
				 (1U << MEMWALK_KPF_UPTODATE) | \
				 (1U << MEMWALK_KPF_DIRTY) | \
				 (1U << MEMWALK_KPF_LRU) | \
				 (1U << MEMWALK_KPF_ACTIVE) | \
				 (1U << MEMWALK_KPF_WRITEBACK) | \
				 (1U << MEMWALK_KPF_RECLAIM) | \
				 (1U << MEMWALK_KPF_MMAP) | \
				 (1U << MEMWALK_KPF_ANON) | \
				 (1U << MEMWALK_KPF_SWAPCACHE) | \
				 (1U << MEMWALK_KPF_SWAPBACKED) | \
				 (1U << MEMWALK_KPF_HUGE) | \
				 (1U << MEMWALK_KPF_UNEVICTABLE) | \
				 (1U << MEMWALK_KPF_HWPOISON) | \
				 (1U << MEMWALK_KPF_KSM) | \
				 (1U << MEMWALK_KPF_THP) | \
				 (1U << MEMWALK_KPF_ZERO_PAGE) | \
				 (1U << MEMWALK_KPF_IDLE))
#define MW_FOLIO_OWN_BITS	((1U << MEMWALK_FOLIO_MLOCKED) | \
				 (1U << MEMWALK_FOLIO_PMD_MAPPED) | \
				 (1U << MEMWALK_FOLIO_PTE_MAPPED) | \
				 (1U << MEMWALK_FOLIO_PARTIAL) | \
				 (1U << MEMWALK_FOLIO_WORKINGSET))
#define MW_FOLIO_KNOWN_FLAGS	(MW_KPF_BITS | MW_FOLIO_OWN_BITS)

/* Run flags only a look at the struct page gives (none in entry-only mode). */
#define MW_RUN_FROM_PAGE	(MEMWALK_RUN_ANON | MEMWALK_RUN_FILE | MEMWALK_RUN_SHMEM | \
				 MEMWALK_RUN_EXCLUSIVE | MEMWALK_RUN_SPECIAL | \
				 MEMWALK_RUN_FOLIO_DIRTY | MEMWALK_RUN_FOLIO_YOUNG)

/* /proc/kpageflags bits the header has no number for. */
#define MW_KPF_COMPOUND_HEAD	15
#define MW_KPF_COMPOUND_TAIL	16
#define MW_KPF_NOPAGE		20
#define MW_KPF_MLOCKED		33

static inline unsigned int mw_run_state(const struct memwalk_page_run *r)
{
	return r->flags & MEMWALK_RUN_STATE_MASK;
}

static inline unsigned int mw_run_level(const struct memwalk_page_run *r)
{
	return (r->flags & MEMWALK_RUN_LEVEL_MASK) >> MEMWALK_RUN_LEVEL_SHIFT;
}

static inline unsigned int mw_run_swap_type(const struct memwalk_page_run *r)
{
	return (r->flags & MEMWALK_RUN_SWAP_TYPE_MASK) >> MEMWALK_RUN_SWAP_TYPE_SHIFT;
}

static inline uint64_t mw_run_end(const struct memwalk_page_run *r)
{
	return r->start + (uint64_t)r->nr_pages * MW_PAGE;
}

/*
 * End of the user address space (the module's mw_arch_user_end()): the
 * tests set it from memwalk_info.pgtable_levels; a snapshot with end 0 is
 * done there.
 */
extern uint64_t mw_task_size;

static inline uint64_t mw_task_size_for(unsigned int levels)
{
#ifdef __aarch64__
	/* 4K pages: 48-bit VA with 4 levels, 52-bit with 5 (LPA2). */
	return 1ULL << (levels == 5 ? 52 : 48);
#else
	return (1ULL << (levels == 5 ? 56 : 47)) - MW_PAGE;
#endif
}

/* ---- /proc/PID/pagemap ----------------------------------------------------- */

#define PM_PFN_MASK		((1ULL << 55) - 1)
#define PM_SWAP_TYPE_BITS	5
#define PM_SOFT_DIRTY		(1ULL << 55)
#define PM_MMAP_EXCLUSIVE	(1ULL << 56)
#define PM_UFFD_WP		(1ULL << 57)
#define PM_FILE			(1ULL << 61)
#define PM_SWAP			(1ULL << 62)
#define PM_PRESENT		(1ULL << 63)
/* The bits the comparison knows; bit 58 (guard region, 6.15+) is not among them. */
#define PM_COMPARED		(PM_PFN_MASK | PM_SOFT_DIRTY | PM_MMAP_EXCLUSIVE | \
				 PM_UFFD_WP | PM_FILE | PM_SWAP | PM_PRESENT)

/* Read pagemap entries of [start, start + nr pages) of @pid into @out. */
int mw_pagemap_read(pid_t pid, uint64_t start, size_t nr, uint64_t *out);

/* /proc/kpageflags and /proc/kpagecount of one PFN; 0 or errno. */
int mw_kpageflags(uint64_t pfn, uint64_t *flags);
int mw_kpagecount(uint64_t pfn, uint64_t *count);

/* ---- /proc/PID/maps and smaps --------------------------------------------- */

struct mw_maps_line {
	uint64_t start, end;
	char perms[5];
	uint64_t offset;
	unsigned int major, minor;
	uint64_t ino;
	char name[4200];	/* as printed: "\012" escapes, " (deleted)" */
};

struct mw_smaps {
	struct mw_maps_line map;
	/* in kB, as printed */
	uint64_t size, kernel_page_size, rss, pss, shared_clean, shared_dirty;
	uint64_t private_clean, private_dirty, referenced, anonymous;
	uint64_t anon_huge, shmem_pmd, file_pmd, shared_hugetlb;
	uint64_t private_hugetlb, swap, locked;
	char vmflags[256];	/* "rd wr mr mw me ac sd" */
};

/*
 * Read /proc/PID/maps (@smaps false) or smaps (true) into a malloc()ed
 * array (of struct mw_maps_line or struct mw_smaps); *nr gets its length.
 */
int mw_maps_read(pid_t pid, struct mw_maps_line **lines, size_t *nr);
int mw_smaps_read(pid_t pid, struct mw_smaps **vmas, size_t *nr);
/* Parse one maps line (without its newline); 0 or EINVAL. */
int mw_maps_parse(const char *line, struct mw_maps_line *out);

/* Whether smaps' VmFlags has the two-letter mnemonic @mn. */
bool mw_vmflags_has(const char *vmflags, const char *mn);

/* ---- snapshots --------------------------------------------------------------- */

struct mw_vma {
	struct memwalk_vma rec;		/* name_len included */
	char *name;			/* malloc()ed copy of rec.name */
};

struct mw_snap {
	struct mw_vma *vmas;		/* sorted, duplicates of resumed calls merged */
	size_t nr_vmas;
	struct memwalk_page_run *runs;	/* as returned, in order (but listed) */
	size_t nr_runs;
	size_t nr_listed;		/* MEMWALK_RUN_PFN_LIST runs returned */
	uint64_t nr_pfns;		/* PFNs they listed */
	unsigned int calls;		/* ioctls it took */
	uint32_t run_size;
	uint32_t lock_drops;		/* summed over the calls */
	uint64_t max_lock_ns;		/* the longest hold of any call */
	uint64_t total_lock_ns;		/* summed over the calls */
	uint64_t first_walk_end;	/* walk_end of the first call */
	uint32_t flags;			/* as the last call returned them */
};

void mw_snap_free(struct mw_snap *s);

/* One MEMWALK_IOC_SNAPSHOT; the errno of a failure, else 0. */
int mw_snap_ioctl(int fd, struct memwalk_snapshot *arg);

/*
 * Snapshot [start, end) of @pid: call again from walk_end until the range is
 * done, with buffers of @vma_len and @run_len bytes.  Every call's answer
 * is checked (sizes, alignment, progress, records well formed, sorted, not
 * overlapping, inside [call start, walk_end), runs inside the call's VMA
 * records, only defined bits): a violation returns -1 with @why set.  A
 * failed call returns its errno (and @why says which call).  With
 * MEMWALK_SNAP_PFN_LIST the PFN buffer has @run_len bytes too, and each
 * listed run is stored as the runs it stands for (pages alike but in PFN,
 * merged where their PFNs follow, as without the flag).
 */
int mw_snapshot(int fd, pid_t pid, uint64_t start, uint64_t end, uint32_t flags,
		size_t vma_len, size_t run_len, struct mw_snap *s,
		struct mw_why *why);

/*
 * Whether a run must lie inside one VMA record (true), or may run on into
 * the adjacent record (false, the default: each test that is not about
 * this rule still sees every page inside some VMA record of its call).
 * states.runs_inside_one_vma checks the rule itself.
 */
extern bool mw_strict_runs;

/*
 * Whether VMA records of one call may overlap or be out of order (then
 * counted in mw_overlaps, the first described in mw_first_overlap, and the
 * runs checked against the union of the records) instead of failing the
 * call.  For tests that want to go on and report them at the end.
 */
extern bool mw_allow_overlap;
extern unsigned long mw_overlaps;
extern char mw_first_overlap[512];

/*
 * Check one call's answer, as mw_snapshot() does: @vbuf/@rbuf are the
 * buffers of @arg after a successful call.  0, or -1 with @why set.
 */
int mw_snap_check_call(const struct memwalk_snapshot *arg, const void *vbuf,
		       const void *rbuf, struct mw_why *why);

/*
 * One record per page: run i's page k becomes a run of one page at
 * start + k pages, with pfn + k (present and swap entries, when PFNs are
 * shown).  Two answers that cut runs differently (a snapshot taken in many
 * calls splits runs at call ends) expand to the same pages.  Returns a
 * malloc()ed array and its length in *nr_pages, or NULL.
 */
struct memwalk_page_run *mw_runs_expand(const struct memwalk_page_run *runs,
					size_t nr, size_t *nr_pages);

/* Index of the first run ending after @addr, or nr. */
size_t mw_run_find(const struct memwalk_page_run *runs, size_t nr, uint64_t addr);

/* The VMA record holding @addr, or NULL. */
const struct mw_vma *mw_snap_vma(const struct mw_snap *s, uint64_t addr);

/* Human-readable run, for messages. */
const char *mw_run_str(const struct memwalk_page_run *r, char *buf, size_t len);

/* ---- memwalk_target ---------------------------------------------------------- */

#define MW_MAX_REGIONS	64

struct mw_region {
	char name[32];
	uint64_t start, end;
};

struct mw_target {
	pid_t pid;
	int to;			/* its stdin */
	int from;		/* its stdout */
	char buf[8192];		/* unread output */
	size_t len;
	struct mw_region regions[MW_MAX_REGIONS];
	unsigned int nr_regions;
	char notes[1024];	/* "skip NAME: why" lines it printed */
};

/* Path of memwalk_target: $MEMWALK_TARGET, else next to this program. */
const char *mw_target_path(void);

/*
 * Start memwalk_target with @args (NULL-terminated, without argv[0]) as
 * @uid (0: as we are).  0 or errno.
 */
int mw_target_start(struct mw_target *t, uid_t uid, const char *const args[]);

/*
 * Read its output up to a line equal to @word ("built", "ready"),
 * recording "region" and "skip" lines on the way; gives up after
 * @timeout_ms.  0, ETIMEDOUT, EPIPE (it exited) or EPROTO.
 */
int mw_target_expect(struct mw_target *t, const char *word, int timeout_ms);

/*
 * The same, handing every line read (without its newline) to @line: for
 * programs that speak another protocol (the labs' programs).
 */
int mw_target_read_until(struct mw_target *t, const char *word, int timeout_ms,
			 void (*line)(void *arg, const char *line), void *arg);

/* Write a line to its stdin. */
int mw_target_send(struct mw_target *t, const char *line);

/* SIGSTOP it and wait until it is stopped; SIGCONT it. */
int mw_target_freeze(struct mw_target *t);
int mw_target_thaw(struct mw_target *t);

/* SIGKILL and reap it (and so its children, which die with it). */
void mw_target_kill(struct mw_target *t);

/* A region it reported, or NULL. */
const struct mw_region *mw_target_region(const struct mw_target *t,
					 const char *name);

/*
 * Drain every CPU's LRU batches (lru_add_drain_all()), so that page flags
 * stop moving: move_pages() of one of our own pages to the node it is on.
 */
void mw_lru_drain_all(void);

/*
 * Run @argv (argv[0] a path) to completion as we are, stdin from
 * /dev/null; *out and *err get its whole output (malloc()ed, NUL-ended).
 * 0 or errno.
 */
int mw_capture(const char *const argv[], int *status, char **out, char **err);

/* A PID that is free right now (a reaped child's). */
pid_t mw_free_pid(void);

/*
 * Add 1 to @hits[i] for every page i of the @n at @start that a frame of
 * `memwalk-client watch --batch -J` (each line of @out) files under change
 * @kind (docs/json-schema.md); pages of that kind elsewhere are not
 * counted.  -1 if a range is not as documented.
 */
int mw_watch_hits(const char *out, const char *kind, uint64_t start, size_t n,
		  unsigned char *hits);

/* ---- device, states target, lab opener ------------------------------------- */

#define MW_READY_MS	60000	/* how long the target may take to say a word */

/* $MEMWALK_TMPFS (default /tmp); $MEMWALK_DISK (a disk file system) or NULL. */
const char *mw_tmpfs_dir(void);
const char *mw_disk_dir(void);

/* MEMWALK_IOC_INFO into @info, and mw_task_size from it.  0 or errno. */
int mw_dev_info(int fd, struct memwalk_info *info, struct mw_why *why);

/*
 * Open the device as we are and read its info (mw_dev_info()); snapshots
 * must be among its features.  The fd, or -errno with @why set.
 */
int mw_dev_open(struct memwalk_info *info, struct mw_why *why);

/* pagemap of @pid over [start, end) in a malloc()ed array, or NULL. */
uint64_t *mw_pagemap_of(pid_t pid, uint64_t start, uint64_t end);

/*
 * @path opened by @uid (0: by us), its gid that too and no supplementary
 * groups: a child opens it and passes the fd back (SCM_RIGHTS).  memwalk
 * decides access at open from the opener's credentials, so the fd is that
 * user's wherever it is used.  The fd, or -errno with @why set.
 */
int mw_open_as(uid_t uid, const char *path, int flags, struct mw_why *why);

/*
 * Start memwalk_target states as @uid (0: as we are) with --tmpfs
 * mw_tmpfs_dir() and --disk @disk (if not NULL), clear its soft-dirty bits
 * after "built", let it finish and stop it (SIGSTOP) once "ready".  0 or
 * errno, with @why holding the target's own notes.
 */
int mw_states_start(struct mw_target *t, uid_t uid, const char *disk,
		    struct mw_why *why);

/* The run holding @addr, or NULL. */
const struct memwalk_page_run *mw_run_at(const struct mw_snap *s, uint64_t addr);

/* One MEMWALK_IOC_TRANSLATE of @addr in @pid into @t; 0 or errno. */
int mw_translate(int fd, pid_t pid, uint64_t addr, struct memwalk_translate *t);

/* Whether @r carries no folio state (as without MEMWALK_SNAP_FOLIO). */
bool mw_folio_hidden(const struct memwalk_page_run *r);

/*
 * The pagemap entry memwalk's answer implies for @addr in @v (@r the run
 * holding it, or NULL), and in *mask the bits to compare.
 */
uint64_t mw_pagemap_expected(const struct mw_vma *v, const struct memwalk_page_run *r,
			     uint64_t addr, uint64_t *mask);

/* Whether a swap device is on (/proc/swaps lists one). */
bool mw_swap_on(void);

/*
 * MADV_PAGEOUT of [@p, @p + @len), until mincore() says no page of it is
 * resident (up to 3 s: a page under writeback stays in the swap cache).
 * 0, or -1 with *@why (a call failed, or a page stayed).
 */
int mw_page_out(void *p, size_t len, struct mw_why *why);

/*
 * Why the kernel cannot offer memwalk_target's region @name (THP, the
 * huge zero page, hugetlb pages, swap, a disk file system: a feature it
 * lacks or the guest did not set up), or NULL: then the target failing to
 * build the region is a failure.
 */
const char *mw_region_unsupported(const char *name);

/*
 * Region @name of target @t in a test: SKIP naming the missing feature
 * (mw_region_unsupported()), else a failure with the target's own notes
 * on why it could not build it.
 */
#define MW_REGION(t, name) ({						\
	const struct mw_region *__r = mw_target_region(t, name);	\
	const char *__why = __r ? NULL : mw_region_unsupported(name);	\
	if (__why)							\
		SKIP(return, "%s: %s", name, __why);			\
	ASSERT_NE(NULL, __r) TH_LOG("target has no %s region: %.900s",	\
				    name, (t)->notes);			\
	__r; })

/*
 * Capped logging of per-page mismatches, on memwalk_util.h's struct
 * mw_logcap: the first MW_LOG_FIRST are logged, the rest only counted, and
 * MW_LOG_REST() says how many.  The macros use TH_LOG, so only a test file
 * (which includes kselftest_harness.h) can expand them.
 */
#define MW_LOG_FIRST	12

#define MW_LOG_CAPPED(cap, fmt, ...) do {				\
	if (mw_logcap_take(cap))					\
		TH_LOG(fmt, ##__VA_ARGS__);				\
} while (0)

/* EXPECT_TRUE(@cond), its failures logged (with @fmt) and counted by @cap. */
#define MW_EXPECT_CAPPED(cap, cond, fmt, ...) do {			\
	if (!(cond) && mw_logcap_take(cap)) {				\
		EXPECT_TRUE(cond) TH_LOG(fmt, ##__VA_ARGS__);		\
	}								\
} while (0)

#define MW_LOG_REST(cap, what) do {					\
	if (mw_logcap_dropped(cap))					\
		TH_LOG("... and %u more %s (%u in all)",		\
		       mw_logcap_dropped(cap), what, (cap)->seen);	\
} while (0)

#endif /* MEMWALK_SNAPSHOT_LIB_H */

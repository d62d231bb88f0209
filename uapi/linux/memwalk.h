/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * memwalk: user-space ABI of the memwalk module.
 *
 * One header for the module and its clients.  Every structure that crosses
 * the boundary starts with "__u32 size; __u32 flags;", uses only fixed-width
 * fields, and is padded to a multiple of 8 bytes, so the layout is the same
 * for 32- and 64-bit callers and the structure can grow: the kernel follows
 * copy_struct_from_user() rules (a shorter struct is zero-extended, a longer
 * one must have a zero tail or the call fails with E2BIG) and writes back at
 * most the size the caller gave.
 */
#ifndef _UAPI_LINUX_MEMWALK_H
#define _UAPI_LINUX_MEMWALK_H

#include <linux/ioctl.h>
#include <linux/types.h>

/* Bumped whenever this ABI grows; old fields never change meaning. */
#define MEMWALK_UAPI_VERSION		3

#define MEMWALK_DEVICE_NAME		"memwalk"
#define MEMWALK_DEVICE_PATH		"/dev/memwalk"

/* ---- character device ---------------------------------------------- */

#define MEMWALK_IOC_MAGIC		0xE7

/* MEMWALK_IOC_INFO: what the loaded module is and what it can do. */
#define MEMWALK_RELEASE_LEN		72
#define MEMWALK_MODVER_LEN		32

struct memwalk_info {
	__u32 size;		/* in: sizeof as known to the caller; out: bytes written */
	__u32 flags;		/* in: must be 0 */
	__u32 uapi_version;	/* MEMWALK_UAPI_VERSION of the module */
	__u32 page_shift;	/* PAGE_SHIFT of the running kernel */
	__u64 features;		/* MEMWALK_FEAT_* */
	__u32 pgtable_levels;	/* paging levels in use (4 or 5) */
	__u32 nr_node_ids;	/* NUMA node id bound */
	char module_version[MEMWALK_MODVER_LEN];	/* NUL-terminated */
	char release[MEMWALK_RELEASE_LEN];		/* utsname()->release */
	char machine[16];				/* utsname()->machine */
};

#define MEMWALK_INFO_SIZE_VER0		152	/* sizeof first published */

/* Feature bits reported in memwalk_info.features. */
#define MEMWALK_FEAT_NETLINK		(1ULL << 0)	/* genetlink family registered */
#define MEMWALK_FEAT_DEBUGFS		(1ULL << 1)	/* debugfs directory present */
#define MEMWALK_FEAT_SNAPSHOT		(1ULL << 2)	/* MEMWALK_IOC_SNAPSHOT/TRANSLATE */
#define MEMWALK_FEAT_MGLRU		(1ULL << 3)	/* runs report MGLRU generations */
#define MEMWALK_FEAT_VMA_SUMMARY	(1ULL << 4)	/* MEMWALK_IOC_VMA_SUMMARY */
#define MEMWALK_FEAT_PHYS		(1ULL << 5)	/* MEMWALK_IOC_PHYS */
/* runs report MEMWALK_RUN_CONTIGUOUS (an architecture with a contiguous bit) */
#define MEMWALK_FEAT_CONTIGUOUS		(1ULL << 6)
/* runs report MEMWALK_RUN_FOLIO_YOUNG */
#define MEMWALK_FEAT_FOLIO_YOUNG	(1ULL << 7)
/* MEMWALK_IOC_SNAPSHOT takes MEMWALK_SNAP_NO_ACCESSED */
#define MEMWALK_FEAT_NO_ACCESSED	(1ULL << 8)

#define MEMWALK_IOC_INFO	_IOWR(MEMWALK_IOC_MAGIC, 0x00, struct memwalk_info)

/*
 * MEMWALK_IOC_SNAPSHOT: the VMAs and page tables of a process.
 *
 * The kernel walks [start, end) of process @pid and writes two streams:
 * VMA records (struct memwalk_vma, variable size) into vma_buf, and page
 * runs (struct memwalk_page_run, run_size bytes each) into run_buf.  A run
 * is a stretch of consecutive pages whose entries are alike in every field
 * (and, when PFNs are shown, whose PFNs or swap offsets are consecutive).
 * Pages whose entry is none are not reported: absence means "not mapped
 * here", and empty page-table levels are skipped, not walked.  The one
 * exception is a shmem/tmpfs mapping (MAP_SHARED anonymous memory, memfd,
 * tmpfs files): there a page whose entry is none but whose page the file
 * has in swap is reported as MEMWALK_STATE_SHMEM_SWAP (shmem unmaps a page
 * before swapping it out and keeps the swap entry in the page cache; smaps
 * counts it as Swap, pagemap shows nothing).  Not in entry-only mode.
 *
 * The call stops when a buffer is full or the range is done; walk_end says
 * where (page aligned): call again with start = walk_end until walk_end ==
 * end.  A VMA walked in several calls is reported by each of them.  If not
 * even one record fits, the call fails with ENOSPC.
 *
 * end == 0 walks to the end of user space; walk_end is then 0 once the
 * walk is complete, so "until walk_end == end" holds there too.
 *
 * Without MEMWALK_SNAP_FOLIO, runs have folio_flags, mapcount, refcount,
 * nid and order 0 and lru_gen -1; flags are complete either way (but see
 * MEMWALK_SNAP_ENTRY_ONLY).  The
 * SOFT_DIRTY run flag is the entry's own bit (pagemap also ORs in the
 * VMA's, reported as MEMWALK_VMA_SOFTDIRTY).  An opener without
 * CAP_SYS_ADMIN (the module's lab_mode) gets pfn 0 in every run, no
 * folio state (FOLIO is cleared on return, as /proc/kpageflags is root's)
 * and shmem-swap runs only where mincore() would tell.
 *
 * Errors: EINVAL (size below VER0, unknown flags, __reserved set, neither
 * VMAS nor PAGES, FOLIO with ENTRY_ONLY, start/end not page aligned,
 * start >= end with end != 0, end beyond user space); E2BIG (size above a
 * page, non-zero unknown tail); ESRCH (no such pid, or a process without
 * memory: kernel thread, exited; as process_vm_readv()); EACCES (lab mode: ptrace-read with the
 * opener's credentials would refuse it); EFAULT (a requested buffer with a non-zero length but a
 * NULL address, or a write to a buffer faulted; buffers are only written
 * when a record goes there); ENOSPC; EINTR (fatal signal); ENOMEM.
 */
#define MEMWALK_SNAP_VMAS	(1U << 0)	/* write VMA records */
#define MEMWALK_SNAP_PAGES	(1U << 1)	/* write page runs */
#define MEMWALK_SNAP_FOLIO	(1U << 2)	/* runs carry folio state; else PTE only */
/* Runs carry no PFN or swap offset and merge wider; set on return when hidden (lab mode). */
#define MEMWALK_SNAP_NO_PFN	(1U << 3)
/*
 * Runs say only what the page-table entries say (state, PTE bits, level,
 * PFN or swap entry, ZERO for the 4K zero page): no struct page is read,
 * so ANON, FILE, SHMEM, EXCLUSIVE, SPECIAL and FOLIO_DIRTY are never set
 * and the huge zero page is not told apart.  The fastest mode, for "what
 * is mapped where"; not with MEMWALK_SNAP_FOLIO (EINVAL).
 */
#define MEMWALK_SNAP_ENTRY_ONLY	(1U << 4)
/*
 * Since uapi version 2: present pages alike in every field but a PFN that
 * does not follow the one before still make one run.  Such a run has
 * MEMWALK_RUN_PFN_LIST set, and its pfn is the index in pfn_buf of the
 * first of its nr_pages PFNs, one __u64 per page in address order (a long
 * stretch of consecutive PFNs is a plain run; a short one may be listed).
 * A page cache of scattered pages then costs 8 bytes a page, as in
 * pagemap, instead of a run each.  Runs are listed while pfn_buf has
 * room, then made as without this flag; none when PFNs are hidden.
 */
#define MEMWALK_SNAP_PFN_LIST	(1U << 5)
/*
 * With MEMWALK_FEAT_NO_ACCESSED: runs tell no access state and merge
 * across it: neither the entries' accessed bit nor the folio's young and
 * idle flags, where DAMON and idle page tracking keep an accessed bit they
 * cleared (MEMWALK_RUN_ACCESSED, MEMWALK_RUN_FOLIO_YOUNG and
 * MEMWALK_KPF_IDLE are never set).  For views that do not show it, where
 * something clears it in the background (DAMON, MGLRU's aging, idle page
 * tracking) and pages otherwise alike would break into a run each.
 */
#define MEMWALK_SNAP_NO_ACCESSED	(1U << 6)
#define MEMWALK_SNAP_ALL	(MEMWALK_SNAP_VMAS | MEMWALK_SNAP_PAGES | MEMWALK_SNAP_FOLIO)

struct memwalk_snapshot {
	__u32 size;		/* in: sizeof as known to the caller */
	__u32 flags;		/* in: MEMWALK_SNAP_*; out: + NO_PFN, - FOLIO if withheld */
	__s32 pid;		/* in: target, in the caller's pid namespace */
	__u32 __reserved;	/* in: must be 0 */
	__u64 start;		/* in: first address, page aligned */
	__u64 end;		/* in: end (exclusive), page aligned; 0 = whole space */
	__u64 vma_buf;		/* in: user pointer to VMA records */
	__u64 vma_buf_len;	/* in: its size in bytes */
	__u64 run_buf;		/* in: user pointer to page runs */
	__u64 run_buf_len;	/* in: its size in bytes */
	/* out */
	__u64 walk_end;		/* where this call stopped: resume from here */
	__u64 vma_bytes;	/* bytes written to vma_buf */
	__u64 nr_runs;		/* runs written to run_buf */
	__u32 run_size;		/* bytes per run record */
	__u32 lock_drops;	/* times the target's mmap_lock was dropped mid-walk */
	__u64 max_lock_ns;	/* longest single mmap_lock hold, ns */
	__u64 total_lock_ns;	/* all mmap_lock holds together, ns */
	/* Since uapi version 2: MEMWALK_SNAP_PFN_LIST */
	__u64 pfn_buf;		/* in: user pointer to __u64 PFNs */
	__u64 pfn_buf_len;	/* in: its size in bytes */
	__u64 nr_pfns;		/* out: PFNs written to pfn_buf */
};

#define MEMWALK_SNAPSHOT_SIZE_VER0	112
#define MEMWALK_SNAPSHOT_SIZE_VER1	136	/* with pfn_buf */

/* struct memwalk_vma.flags */
#define MEMWALK_VMA_READ	(1ULL << 0)
#define MEMWALK_VMA_WRITE	(1ULL << 1)
#define MEMWALK_VMA_EXEC	(1ULL << 2)
#define MEMWALK_VMA_SHARED	(1ULL << 3)
#define MEMWALK_VMA_MAYREAD	(1ULL << 4)
#define MEMWALK_VMA_MAYWRITE	(1ULL << 5)
#define MEMWALK_VMA_MAYEXEC	(1ULL << 6)
#define MEMWALK_VMA_MAYSHARE	(1ULL << 7)
#define MEMWALK_VMA_GROWSDOWN	(1ULL << 8)
#define MEMWALK_VMA_LOCKED	(1ULL << 9)	/* mlock()ed */
#define MEMWALK_VMA_LOCKONFAULT	(1ULL << 10)
#define MEMWALK_VMA_HUGETLB	(1ULL << 11)
#define MEMWALK_VMA_PFNMAP	(1ULL << 12)
#define MEMWALK_VMA_MIXEDMAP	(1ULL << 13)
#define MEMWALK_VMA_IO		(1ULL << 14)
#define MEMWALK_VMA_DONTDUMP	(1ULL << 15)
#define MEMWALK_VMA_DONTEXPAND	(1ULL << 16)
#define MEMWALK_VMA_DONTCOPY	(1ULL << 17)
#define MEMWALK_VMA_WIPEONFORK	(1ULL << 18)
#define MEMWALK_VMA_HUGEPAGE	(1ULL << 19)	/* MADV_HUGEPAGE */
#define MEMWALK_VMA_NOHUGEPAGE	(1ULL << 20)	/* MADV_NOHUGEPAGE */
#define MEMWALK_VMA_MERGEABLE	(1ULL << 21)	/* KSM */
#define MEMWALK_VMA_SOFTDIRTY	(1ULL << 22)
#define MEMWALK_VMA_UFFD_MISSING (1ULL << 23)
#define MEMWALK_VMA_UFFD_WP	(1ULL << 24)
#define MEMWALK_VMA_ANON	(1ULL << 25)	/* vma_is_anonymous() */
#define MEMWALK_VMA_SHMEM	(1ULL << 26)	/* shmem/tmpfs backed */
#define MEMWALK_VMA_FILE	(1ULL << 27)	/* has a backing file */

/* struct memwalk_vma.name_kind: what name[] holds */
#define MEMWALK_NAME_NONE	0	/* anonymous, unnamed */
#define MEMWALK_NAME_FILE	1	/* path of the backing file */
#define MEMWALK_NAME_HEAP	2	/* "[heap]" */
#define MEMWALK_NAME_STACK	3	/* "[stack]" */
#define MEMWALK_NAME_SPECIAL	4	/* "[vdso]", "[vvar]", ... */
#define MEMWALK_NAME_ANON	5	/* "[anon:NAME]" (PR_SET_VMA_ANON_NAME) */
#define MEMWALK_NAME_ANON_SHMEM	6	/* "[anon_shmem:NAME]" */

struct memwalk_vma {
	__u32 size;		/* of this record with its name, multiple of 8 */
	__u32 name_kind;	/* MEMWALK_NAME_* */
	__u64 start;
	__u64 end;
	__u64 flags;		/* MEMWALK_VMA_* */
	__u64 pgoff;		/* offset in the file, in pages */
	__u64 ino;		/* inode of the backing file, or 0 */
	__u32 dev_major;
	__u32 dev_minor;
	__u32 page_shift;	/* of the pages mapped here (hugetlb: 21, 30) */
	__u32 name_len;		/* strlen(name) */
	char name[];		/* NUL-terminated, padded to size */
};

/*
 * struct memwalk_page_run.flags: the entry.  Bits 0-2 are its state.
 */
#define MEMWALK_RUN_STATE_MASK	0x7U
#define MEMWALK_STATE_PRESENT	1	/* maps a page */
#define MEMWALK_STATE_SWAP	2	/* swap entry: type in SWAP_TYPE, offset in pfn */
#define MEMWALK_STATE_MIGRATION	3	/* migration entry (page in flight) */
#define MEMWALK_STATE_DEVICE	4	/* device private/exclusive entry */
#define MEMWALK_STATE_HWPOISON	5	/* hardware-poisoned page */
#define MEMWALK_STATE_MARKER	6	/* PTE marker (uffd-wp, poison, guard) */
/*
 * No entry, but the shmem page at this offset of the file is swapped
 * out: type in SWAP_TYPE, offset in pfn; FILE and SHMEM set, level PTE.
 */
#define MEMWALK_STATE_SHMEM_SWAP 7
#define MEMWALK_RUN_LEVEL_SHIFT	3		/* bits 3-4: where the entry sits */
#define MEMWALK_RUN_LEVEL_MASK	(0x3U << MEMWALK_RUN_LEVEL_SHIFT)
#define MEMWALK_LEVEL_PTE	0
#define MEMWALK_LEVEL_PMD	1
#define MEMWALK_LEVEL_PUD	2
#define MEMWALK_RUN_WRITE	(1U << 5)	/* hardware bits of a present entry */
#define MEMWALK_RUN_USER	(1U << 6)
#define MEMWALK_RUN_DIRTY	(1U << 7)
#define MEMWALK_RUN_ACCESSED	(1U << 8)
#define MEMWALK_RUN_SOFT_DIRTY	(1U << 9)	/* also on swap entries */
#define MEMWALK_RUN_UFFD_WP	(1U << 10)	/* also on swap entries */
#define MEMWALK_RUN_NX		(1U << 11)
#define MEMWALK_RUN_GLOBAL	(1U << 12)
#define MEMWALK_RUN_ZERO	(1U << 13)	/* the shared zero page (4K or huge) */
#define MEMWALK_RUN_ANON	(1U << 14)	/* anonymous page */
#define MEMWALK_RUN_FILE	(1U << 15)	/* page cache or shared anon (pagemap's PM_FILE) */
#define MEMWALK_RUN_SHMEM	(1U << 16)	/* shmem/tmpfs page */
#define MEMWALK_RUN_EXCLUSIVE	(1U << 17)	/* mapped once (pagemap's PM_MMAP_EXCLUSIVE) */
#define MEMWALK_RUN_SPECIAL	(1U << 18)	/* no struct page behind it (PFN map, special) */
#define MEMWALK_RUN_MIGRATION_WRITE (1U << 19)	/* writable migration entry */
/*
 * The folio is dirty (folio_test_dirty(), what smaps counts with the entry's
 * own dirty bit), also without MEMWALK_SNAP_FOLIO.
 */
#define MEMWALK_RUN_FOLIO_DIRTY	(1U << 20)
/* pfn indexes pfn_buf, which holds one PFN per page (MEMWALK_SNAP_PFN_LIST) */
#define MEMWALK_RUN_PFN_LIST	(1U << 21)
/*
 * The entry is one of a block the hardware may cache as one TLB entry
 * (arm64's contiguous bit: 16 PTEs of a contpte-mapped large folio, or a
 * contiguous hugetlb size).  Only with MEMWALK_FEAT_CONTIGUOUS.
 */
#define MEMWALK_RUN_CONTIGUOUS	(1U << 22)
/*
 * The folio is young (folio_test_young()): idle-page tracking or DAMON
 * cleared the accessed bits of its entries and marked it so, and smaps
 * counts it as referenced.  Also without MEMWALK_SNAP_FOLIO; only with
 * MEMWALK_FEAT_FOLIO_YOUNG (a kernel without CONFIG_PAGE_IDLE_FLAG has no
 * young folio).
 */
#define MEMWALK_RUN_FOLIO_YOUNG	(1U << 23)
#define MEMWALK_RUN_SWAP_TYPE_SHIFT 24		/* bits 24-28: swap type (swapon order) */
#define MEMWALK_RUN_SWAP_TYPE_MASK (0x1fU << MEMWALK_RUN_SWAP_TYPE_SHIFT)

/*
 * struct memwalk_page_run.folio_flags: bits 0-26 have the numbers and
 * meaning of /proc/kpageflags (KPF_*, see Documentation/admin-guide/mm/
 * pagemap.rst), read from the same folio in the same pass as the entry;
 * KPF_COMPOUND_HEAD/TAIL are not reported per run (a run spans them: see
 * order).  They are the folio's, for every page of it, on every kernel
 * line: what kpageflags says of the folio's head page (6.1's kpageflags
 * reads a tail page's own flags word, which lacks most of them), but
 * KPF_HWPOISON, which is the page's own.  Bits 27-31 are memwalk's own.
 */
#define MEMWALK_KPF_LOCKED	0
#define MEMWALK_KPF_REFERENCED	2
#define MEMWALK_KPF_UPTODATE	3
#define MEMWALK_KPF_DIRTY	4
#define MEMWALK_KPF_LRU		5
#define MEMWALK_KPF_ACTIVE	6
#define MEMWALK_KPF_WRITEBACK	8
#define MEMWALK_KPF_RECLAIM	9
#define MEMWALK_KPF_MMAP	11
#define MEMWALK_KPF_ANON	12
#define MEMWALK_KPF_SWAPCACHE	13
#define MEMWALK_KPF_SWAPBACKED	14
#define MEMWALK_KPF_HUGE	17	/* hugetlb */
#define MEMWALK_KPF_UNEVICTABLE	18
#define MEMWALK_KPF_HWPOISON	19
#define MEMWALK_KPF_KSM		21
#define MEMWALK_KPF_THP		22
#define MEMWALK_KPF_ZERO_PAGE	24
#define MEMWALK_KPF_IDLE	25
#define MEMWALK_FOLIO_MLOCKED	27	/* PG_mlocked */
#define MEMWALK_FOLIO_PMD_MAPPED 28	/* large folio mapped by a PMD here */
#define MEMWALK_FOLIO_PTE_MAPPED 29	/* large folio mapped by PTEs here */
#define MEMWALK_FOLIO_PARTIAL	30	/* large folio only partly mapped in this VMA */
#define MEMWALK_FOLIO_WORKINGSET 31	/* PG_workingset: refaulted */

struct memwalk_page_run {
	__u64 start;		/* virtual address of the first page */
	/* first PFN; swap offset of swap entries; 0 if hidden; index in pfn_buf if listed */
	__u64 pfn;
	__u32 nr_pages;		/* base pages in the run */
	__u32 flags;		/* MEMWALK_RUN_*, MEMWALK_STATE_*, level */
	__u32 folio_flags;	/* 1 << MEMWALK_KPF_* | 1 << MEMWALK_FOLIO_* */
	__u32 mapcount;		/* of each page (precise, as pagemap uses it) */
	__u32 refcount;		/* of the folio */
	__u16 nid;		/* NUMA node of the page */
	__u8 order;		/* folio order (0 = base page) */
	__s8 lru_gen;		/* MGLRU generation age (0 youngest), -1 if not on MGLRU */
};

#define MEMWALK_IOC_SNAPSHOT	_IOWR(MEMWALK_IOC_MAGIC, 0x01, struct memwalk_snapshot)

/*
 * MEMWALK_IOC_TRANSLATE: one address walked level by level (PGD to PTE),
 * each level's index, raw entry and the physical address of its table,
 * then the page as a one-page run (nr_pages 0 where there is no entry,
 * but for a shmem page in swap: MEMWALK_STATE_SHMEM_SWAP).
 *
 * The walk ends at the leaf or at the first none entry (reported, entry
 * 0).  With 4-level paging the folded P4D is not reported: nr_levels is 4
 * for a PTE, 3 for a PMD leaf.  An address outside every VMA gets
 * nr_levels 0 (tables there may be being freed).  Without CAP_SYS_ADMIN
 * (lab mode), table_pa, the PFN bits of entry (the offset bits of a
 * swap-format one) and page.pfn read 0, and the page has no folio state.
 * Errors as for SNAPSHOT; EINVAL also for addr beyond user space.
 */
#define MEMWALK_MAX_LEVELS	5

struct memwalk_level {
	__u64 table_pa;		/* physical address of the table holding the entry */
	__u64 entry;		/* raw entry value */
	__u32 index;		/* index of the entry in its table */
	__u32 level;		/* MEMWALK_PGT_* */
};

#define MEMWALK_PGT_PGD		0
#define MEMWALK_PGT_P4D		1
#define MEMWALK_PGT_PUD		2
#define MEMWALK_PGT_PMD		3
#define MEMWALK_PGT_PTE		4

struct memwalk_translate {
	__u32 size;		/* in: sizeof as known to the caller */
	__u32 flags;		/* in: must be 0 */
	__s32 pid;		/* in */
	__u32 nr_levels;	/* out: entries filled in levels[] */
	__u64 addr;		/* in: virtual address */
	struct memwalk_level levels[MEMWALK_MAX_LEVELS];	/* out: top down */
	struct memwalk_page_run page;	/* out: the page (nr_pages 0 if none) */
	__u64 vma_start;	/* out: the VMA holding addr, or 0/0 */
	__u64 vma_end;
};

#define MEMWALK_TRANSLATE_SIZE_VER0	200

#define MEMWALK_IOC_TRANSLATE	_IOWR(MEMWALK_IOC_MAGIC, 0x02, struct memwalk_translate)

/*
 * MEMWALK_IOC_VMA_SUMMARY: what /proc/PID/smaps counts for each VMA of
 * [start, end) of process @pid, without the page runs.
 *
 * The same walk as MEMWALK_IOC_SNAPSHOT (bounded mmap_lock holds, the
 * same decoding of every entry), but each page is counted where it is met
 * instead of reported: one struct memwalk_vma_summary per VMA, rec_size
 * bytes each, in address order, in buf.  The counts follow the rules of
 * fs/proc/task_mmu.c (smaps_account() and its callers) as the kernel
 * running them applies them, in bytes; the Pss fields are in bytes <<
 * MEMWALK_PSS_SHIFT, as smaps sums them before it prints, so that a sum
 * over VMAs shifted down once is what /proc/PID/smaps_rollup prints (its
 * kB are these bytes >> 10).  Locked is Pss of the VMAs with
 * MEMWALK_VMA_LOCKED.  SwapPss is not reported: it needs the swap map's
 * counts, which no kernel line exports to modules.
 *
 * A VMA the walk finds changed after it dropped the lock inside it (split,
 * merged, mprotect()ed) is reported in pieces: each record's start and
 * end are the range it counted, within the VMA as it was then; flags are
 * the VMA's.  Records never overlap.
 *
 * The call stops when the buffer has no room for the next VMA's record or
 * the range is done; walk_end says where: call again with start =
 * walk_end until walk_end == end (end == 0: the whole space, walk_end 0
 * when done).  If not even one record fits, the call fails with ENOSPC.
 *
 * The counts are what smaps shows whoever may read it (ptrace-read), so a
 * lab-mode opener (the module's lab_mode) gets them exactly, as root does:
 * nothing of a page but its share of these sums is told.
 *
 * uid: the target's effective uid, in the opener's user namespace (as
 * /proc/PID/status shows it to the opener); comm: its command name, as
 * /proc/PID/comm (NUL-terminated).  Read when the walk ends.
 *
 * Errors: EINVAL (size below VER0, unknown flags, __reserved set,
 * start/end not page aligned, start >= end with end != 0, end beyond user
 * space); E2BIG (size above a page, non-zero unknown tail); EFAULT (a
 * buffer of non-zero length at a NULL address, or a write faulted);
 * ENOSPC (buf_len below rec_size); ESRCH, EACCES, EINTR, ENOMEM as for
 * MEMWALK_IOC_SNAPSHOT.
 */
#define MEMWALK_PSS_SHIFT	12	/* the kernel's PSS_SHIFT */

struct memwalk_vma_summary {
	__u64 start;		/* the range counted: the VMA's, or a piece */
	__u64 end;
	__u64 flags;		/* MEMWALK_VMA_* of the VMA */
	__u64 rss;		/* Rss, bytes */
	__u64 pss;		/* Pss, bytes << MEMWALK_PSS_SHIFT */
	__u64 pss_anon;		/* Pss_Anon, same unit */
	__u64 pss_file;		/* Pss_File, same unit */
	__u64 pss_shmem;	/* Pss_Shmem, same unit */
	__u64 pss_dirty;	/* Pss_Dirty, same unit */
	__u64 shared_clean;	/* bytes, as the rest */
	__u64 shared_dirty;
	__u64 private_clean;	/* USS = private_clean + private_dirty */
	__u64 private_dirty;
	__u64 referenced;
	__u64 anonymous;
	__u64 lazyfree;
	__u64 ksm;
	__u64 anon_thp;		/* AnonHugePages */
	__u64 shmem_thp;	/* ShmemPmdMapped */
	__u64 file_thp;		/* FilePmdMapped */
	__u64 shared_hugetlb;
	__u64 private_hugetlb;
	__u64 swap;		/* swap entries and shmem pages in swap */
};

#define MEMWALK_VMA_SUMMARY_SIZE_VER0	184

#define MEMWALK_COMM_LEN	16

struct memwalk_summary {
	__u32 size;		/* in: sizeof as known to the caller */
	__u32 flags;		/* in: must be 0 */
	__s32 pid;		/* in: target, in the caller's pid namespace */
	__u32 __reserved;	/* in: must be 0 */
	__u64 start;		/* in: first address, page aligned */
	__u64 end;		/* in: end (exclusive), page aligned; 0 = whole space */
	__u64 buf;		/* in: user pointer to the records */
	__u64 buf_len;		/* in: its size in bytes */
	/* out */
	__u64 walk_end;		/* where this call stopped: resume from here */
	__u64 nr_recs;		/* records written to buf */
	__u32 rec_size;		/* bytes per record */
	__u32 lock_drops;	/* times the target's mmap_lock was dropped mid-walk */
	__u64 max_lock_ns;	/* longest single mmap_lock hold, ns */
	__u64 total_lock_ns;	/* all mmap_lock holds together, ns */
	__u32 uid;		/* the target's effective uid */
	__u32 __pad;		/* out: 0 */
	char comm[MEMWALK_COMM_LEN];	/* the target's command name */
};

#define MEMWALK_SUMMARY_SIZE_VER0	112

#define MEMWALK_IOC_VMA_SUMMARY	_IOWR(MEMWALK_IOC_MAGIC, 0x03, struct memwalk_summary)

/*
 * MEMWALK_IOC_PHYS: a census of physical memory.
 *
 * The kernel looks at every page frame of [start_pfn, end_pfn) that
 * pfn_to_online_page() accepts (holes and offline sections are skipped,
 * not reported) and puts it in one class (MEMWALK_PHYS_CLASS_*), read the
 * way /proc/kpageflags reads it: without a reference, the lock or a
 * write, so a page that changes meanwhile is seen in its old or its new
 * state.  It is a census of a moving system: the totals are exact for no
 * instant, like page-types -a over /proc/kpageflags.  Runs of consecutive
 * PFNs alike in class, flags, order, node and zone come as one record
 * (struct memwalk_phys_run, run_size bytes each): a free buddy block, a
 * large folio or a stretch of them is one record.
 *
 * The call stops when run_buf is full or the range is done; next_pfn says
 * where: call again with start_pfn = next_pfn until next_pfn == end_pfn
 * (end_pfn 0 on input: the census end, returned in max_pfn).  A run cut
 * by a stop continues in the next call's first record.
 *
 * Root only: the opener needs CAP_SYS_ADMIN; lab mode openers get EPERM
 * (physical memory is everyone's).
 *
 * Errors: EPERM (lab-mode opener); EINVAL (size below VER0, flags or
 * __reserved set, start_pfn >= end, end_pfn beyond max_pfn); E2BIG (size
 * above a page, non-zero unknown tail); EFAULT; ENOSPC (not one record
 * fits in run_buf); EINTR (fatal signal); ENOMEM.
 */
struct memwalk_phys {
	__u32 size;		/* in: sizeof as known to the caller */
	__u32 flags;		/* in: must be 0 */
	__u64 start_pfn;	/* in: first PFN */
	__u64 end_pfn;		/* in: end PFN (exclusive); 0 = max_pfn */
	__u64 run_buf;		/* in: user pointer to struct memwalk_phys_run */
	__u64 run_buf_len;	/* in: its size in bytes */
	/* out */
	__u64 next_pfn;		/* where this call stopped: resume from here */
	__u64 nr_runs;		/* records written to run_buf */
	__u64 max_pfn;		/* end of the census: /proc/kpageflags' end */
	__u32 run_size;		/* bytes per record */
	__u32 __reserved;	/* in: must be 0 */
};

#define MEMWALK_PHYS_SIZE_VER0		72

/*
 * struct memwalk_phys_run.class: what a page is, tested in this order.
 * /proc/kpageflags bits that decide it are in brackets.
 */
enum memwalk_phys_class {
	MEMWALK_PHYS_CLASS_OFFLINE,	/* logically offline: balloon, virtio-mem [OFFLINE] */
	MEMWALK_PHYS_CLASS_HWPOISON,	/* poisoned by memory failure [HWPOISON] */
	MEMWALK_PHYS_CLASS_FREE,	/* in the buddy allocator, order = block order [BUDDY] */
	MEMWALK_PHYS_CLASS_HUGETLB,	/* hugetlb pool; HUGETLB_FREE if unused [HUGE] */
	MEMWALK_PHYS_CLASS_SLAB,	/* slab pages [SLAB] */
	MEMWALK_PHYS_CLASS_PGTABLE,	/* page tables [PGTABLE] */
	MEMWALK_PHYS_CLASS_ZERO,	/* the zero page, the huge zero folio [ZERO_PAGE] */
	MEMWALK_PHYS_CLASS_RESERVED,	/* PG_reserved: kernel image, memmap, firmware [RESERVED] */
	MEMWALK_PHYS_CLASS_ANON,	/* anonymous, and swap cache [ANON, SWAPCACHE] */
	MEMWALK_PHYS_CLASS_SHMEM,	/* shmem/tmpfs page cache [SWAPBACKED, !ANON] */
	MEMWALK_PHYS_CLASS_FILE,	/* page cache of files and block devices [LRU, !ANON] */
	MEMWALK_PHYS_CLASS_OTHER,	/* none: kernel, other (vmalloc, stacks, drivers) */

	MEMWALK_PHYS_NR_CLASSES,
};

/* struct memwalk_phys_run.flags */
#define MEMWALK_PHYS_MAPPED	(1U << 0)	/* the folio is mapped (anon, shmem, file) */
#define MEMWALK_PHYS_DIRTY	(1U << 1)	/* PG_dirty (anon, shmem, file) */
#define MEMWALK_PHYS_WRITEBACK	(1U << 2)	/* PG_writeback (anon, shmem, file) */
#define MEMWALK_PHYS_SWAPCACHE	(1U << 3)	/* in the swap cache (anon) */
#define MEMWALK_PHYS_HUGETLB_FREE (1U << 4)	/* on a hugetlb pool's free list */
#define MEMWALK_PHYS_LRU	(1U << 5)	/* on an LRU list */

struct memwalk_phys_run {
	__u64 pfn;		/* first PFN */
	__u32 nr_pages;		/* PFNs in the run */
	__u32 flags;		/* MEMWALK_PHYS_* */
	__u16 nid;		/* NUMA node */
	__u8 class;		/* enum memwalk_phys_class */
	__u8 order;		/* buddy block or folio order (0 = base page) */
	__u8 zone;		/* zone index in the node (as /proc/zoneinfo lists them) */
	__u8 __pad[3];
};

#define MEMWALK_IOC_PHYS	_IOWR(MEMWALK_IOC_MAGIC, 0x04, struct memwalk_phys)

/* ---- generic netlink ------------------------------------------------- */

#define MEMWALK_GENL_NAME		"memwalk"
#define MEMWALK_GENL_VERSION		1

#define MEMWALK_MCGRP_RECLAIM		"reclaim"
#define MEMWALK_MCGRP_OOM		"oom"
#define MEMWALK_MCGRP_LRU		"lru"

enum memwalk_cmd {
	MEMWALK_CMD_UNSPEC,
	MEMWALK_CMD_GET_STATUS,		/* do: reply with MEMWALK_A_STATUS_* */
	MEMWALK_CMD_EVENT,		/* multicast only: one event, see below */

	__MEMWALK_CMD_MAX,
};
#define MEMWALK_CMD_MAX (__MEMWALK_CMD_MAX - 1)

enum memwalk_attr {
	MEMWALK_A_UNSPEC,
	MEMWALK_A_PAD,
	MEMWALK_A_MODULE_VERSION,	/* string */
	MEMWALK_A_UAPI_VERSION,		/* u32 */
	MEMWALK_A_RELEASE,		/* string: kernel release */

	/* ---- MEMWALK_CMD_EVENT (all events) ---- */
	MEMWALK_A_EVENT_TYPE,		/* u32: enum memwalk_event_type */
	MEMWALK_A_EVENT_SEQ,		/* u64: per group, see below */
	MEMWALK_A_EVENT_CPU,		/* u32: CPU the event was recorded on */
	MEMWALK_A_EVENT_TIME_NS,	/* u64: CLOCK_MONOTONIC at the hook */
	MEMWALK_A_EVENT_LEG,		/* u32: enum memwalk_leg */
	MEMWALK_A_EVENT_LOST,		/* u64: MEMWALK_EV_LOST: events lost */
	MEMWALK_A_EVENT_NODE,		/* nest, repeated: MEMWALK_A_NODE_* */
	/* ---- the task the event happened in (not for kswapd events) ---- */
	MEMWALK_A_EVENT_PID,		/* u32: thread id, initial pid namespace */
	MEMWALK_A_EVENT_TGID,		/* u32: process id, initial pid namespace */
	MEMWALK_A_EVENT_COMM,		/* string */
	MEMWALK_A_EVENT_MEMCG_PATH,	/* string: its memory cgroup, e.g. "/test/child" */
	MEMWALK_A_EVENT_MEMCG_ID,	/* u64: that cgroup's id (inode number) */
	/* ---- reclaim ---- */
	MEMWALK_A_EVENT_NID,		/* u32: node */
	MEMWALK_A_EVENT_ZID,		/* u32: highest zone index */
	MEMWALK_A_EVENT_ORDER,		/* s32: allocation order (-1: sysrq OOM) */
	MEMWALK_A_EVENT_GFP,		/* u32: gfp flags of the allocation */
	MEMWALK_A_EVENT_NR_RECLAIMED,	/* u64: pages */
	MEMWALK_A_EVENT_DURATION_NS,	/* u64 */
	MEMWALK_A_EVENT_RECLAIM_ORDER,	/* s32: order kswapd reclaimed for */
	/* ---- MEMWALK_EV_OOM_KILL ---- */
	MEMWALK_A_OOM_VICTIM_PID,	/* u32 */
	MEMWALK_A_OOM_VICTIM_TGID,	/* u32 */
	MEMWALK_A_OOM_VICTIM_COMM,	/* string */
	MEMWALK_A_OOM_VICTIM_UID,	/* u32: in the initial user namespace */
	MEMWALK_A_OOM_VICTIM_MEMCG_PATH, /* string */
	MEMWALK_A_OOM_VICTIM_MEMCG_ID,	/* u64 */
	MEMWALK_A_OOM_TOTAL_VM,		/* u64: pages */
	MEMWALK_A_OOM_RSS_ANON,		/* u64: pages */
	MEMWALK_A_OOM_RSS_FILE,		/* u64: pages */
	MEMWALK_A_OOM_RSS_SHMEM,	/* u64: pages */
	MEMWALK_A_OOM_SCORE_ADJ,	/* s32 */
	MEMWALK_A_OOM_CONSTRAINT,	/* u32: enum memwalk_oom_constraint */
	MEMWALK_A_OOM_MEMCG_PATH,	/* string: cgroup whose limit was hit (memcg OOM) */
	MEMWALK_A_OOM_MEMCG_ID,		/* u64 */
	MEMWALK_A_OOM_POINTS,		/* s64: the victim's badness */
	MEMWALK_A_OOM_TOTALPAGES,	/* u64: pages the badness is relative to */
	/* ---- MEMWALK_CMD_GET_STATUS reply ---- */
	MEMWALK_A_STATUS_PAGE_SIZE,	/* u32: bytes; "pages" above are these */
	MEMWALK_A_STATUS_BUFFER_EVENTS,	/* u32: per-CPU buffer size, in events */
	MEMWALK_A_STATUS_SAMPLE_INTERVAL_MS, /* u32: LRU sampler period, 0 = off */
	MEMWALK_A_STATUS_KRETPROBE_MAXACTIVE, /* u32 */
	MEMWALK_A_STATUS_DROPS_OVERFLOW, /* u64: all CPUs, all groups */
	MEMWALK_A_STATUS_DROPS_DELIVERY, /* u64: all groups */
	MEMWALK_A_STATUS_PROBE,		/* nest, repeated: MEMWALK_A_PROBE_* */
	MEMWALK_A_STATUS_GROUP,		/* nest, repeated: MEMWALK_A_GROUP_* */
	MEMWALK_A_STATUS_CPU,		/* nest, repeated: MEMWALK_A_CPU_* */

	__MEMWALK_A_MAX,
};
#define MEMWALK_A_MAX (__MEMWALK_A_MAX - 1)

/*
 * Events.  Each event is one MEMWALK_CMD_EVENT message, multicast to the
 * group of its type; several messages may share one datagram, so read
 * every netlink message in what recv() returns (libnl does).  Values in
 * pages are in MEMWALK_A_STATUS_PAGE_SIZE units.  Attributes that do not
 * apply, or that the hook that saw the event cannot know, are absent.
 *
 * Delivery: hooks record events into per-CPU buffers (only while the
 * event's group has subscribers) and a work item multicasts them.
 * MEMWALK_A_EVENT_SEQ counts the events recorded for a group, from 1 at
 * module load, including events that are then lost; within a datagram and
 * within one CPU they are in order, across CPUs and datagrams nearly so.
 * Every loss inside the module is reported: a MEMWALK_EV_LOST message in
 * the group carries the number lost since the previous one (buffer
 * overflow, or no memory for the message), so the seqs missing at the end
 * add up to the MEMWALK_A_EVENT_LOST totals.  A subscriber whose own
 * socket overflows gets ENOBUFS from recv(), as usual for netlink.
 *
 * Which hook reports an event depends on the kernel (MEMWALK_A_EVENT_LEG,
 * and MEMWALK_A_STATUS_PROBE lists what is attached).  Counting, on the
 * preferred legs:
 *
 * MEMWALK_EV_KSWAPD_WAKE (reclaim): an allocation woke a sleeping kswapd
 *	(tracepoint mm_vmscan_wakeup_kswapd; nid, zid, order, gfp).  Wakes
 *	that find kswapd awake or the node balanced are not reported.  Each
 *	end of an early kswapd nap (kswapd_low_wmark_hit_quickly) and each
 *	run after kswapd slept needs one, so the count is at least
 *	kswapd_low_wmark_hit_quickly's delta while pgscan_direct_throttle
 *	does not move (a throttled direct reclaimer wakes kswapd itself,
 *	without the tracepoint), and may exceed the number of runs (several
 *	wakes before kswapd gets to run).  kprobe leg: every
 *	wakeup_kswapd() call, including the unreported ones.
 * MEMWALK_EV_KSWAPD_RUN_BEGIN (reclaim): kswapd starts balance_pgdat()
 *	(nid, zid, order).  Exactly one per /proc/vmstat pageoutrun.
 * MEMWALK_EV_KSWAPD_RUN_END (reclaim): it returned (nid, zid, order,
 *	reclaim_order, nr_reclaimed, duration_ns).  nr_reclaimed is exact on
 *	the tracepoint leg; on the kretprobe leg it is the pgsteal_kswapd
 *	delta over the run, which includes other nodes' kswapd running at the
 *	same time.  Runs that began before the module loaded have no duration.
 * MEMWALK_EV_DIRECT_RECLAIM_BEGIN (reclaim): global direct reclaim
 *	(try_to_free_pages: pid, comm, memcg, order, gfp).  /proc/vmstat
 *	allocstall_* counts one per begin plus one per internal retry, and
 *	the kernel retries only after a whole pass reclaimed nothing (at most
 *	3 times per call, 2 before 6.12): begins <= allocstall delta, equal
 *	when every first pass reclaims something.  The kprobe leg also counts
 *	calls that return early from throttle_direct_reclaim() (fatal signal).
 * MEMWALK_EV_DIRECT_RECLAIM_END (reclaim): pid, comm, memcg, order, gfp,
 *	nr_reclaimed, duration_ns.  Kretprobe leg: the whole call, including
 *	throttling, so there is one END per call and calls that returned early
 *	(fatal signal while throttled) have an END without a BEGIN.
 * MEMWALK_EV_MEMCG_RECLAIM_BEGIN/_END (reclaim): the same for cgroup
 *	limit reclaim (try_to_free_mem_cgroup_pages: charges over memory.max,
 *	memory.high overage, writes to memory.reclaim and memory.max); no
 *	order.  Not in allocstall.  memory.events "max" of the cgroup whose
 *	limit was hit (and of its ancestors) counts one per reclaim from a
 *	charge, plus one per charge forced over the limit without reclaiming;
 *	memory.high and the file writes reclaim without counting it.
 * MEMWALK_EV_OOM_KILL (oom): one per process the OOM killer kills, i.e.
 *	one per /proc/vmstat oom_kill and memory.events oom_kill.  pid, comm
 *	and memcg are the task that ran into the OOM; victim fields as in the
 *	kernel's "Killed process" line; constraint, order, memcg of the OOM
 *	domain, points and totalpages from the decision (absent if the
 *	oom_kill_process kprobe is not attached).  A victim that was already
 *	exiting and is only given access to reserves is not reported.
 * MEMWALK_EV_LRU_SAMPLE (lru): the periodic sampler, one per period while
 *	the group has subscribers; a MEMWALK_A_EVENT_NODE per online node.
 * MEMWALK_EV_LOST (any group): MEMWALK_A_EVENT_LOST; no seq.
 *
 * Every event but LOST carries MEMWALK_A_EVENT_NODE nests: the node of the
 * event when it has one, otherwise the online nodes (up to
 * MEMWALK_EVENT_MAX_NODES; the sampler reports all), read at the hook.
 * free and the watermarks are summed over the node's zones; the
 * watermarks include any boost.
 */
enum memwalk_event_type {
	MEMWALK_EV_UNSPEC,
	MEMWALK_EV_LOST,
	MEMWALK_EV_KSWAPD_WAKE,
	MEMWALK_EV_KSWAPD_RUN_BEGIN,
	MEMWALK_EV_KSWAPD_RUN_END,
	MEMWALK_EV_DIRECT_RECLAIM_BEGIN,
	MEMWALK_EV_DIRECT_RECLAIM_END,
	MEMWALK_EV_MEMCG_RECLAIM_BEGIN,
	MEMWALK_EV_MEMCG_RECLAIM_END,
	MEMWALK_EV_OOM_KILL,
	MEMWALK_EV_LRU_SAMPLE,

	__MEMWALK_EV_MAX,
};
#define MEMWALK_EV_MAX (__MEMWALK_EV_MAX - 1)

#define MEMWALK_EVENT_MAX_NODES		4

/* Where an event (MEMWALK_A_EVENT_LEG) or a probe (MEMWALK_A_PROBE_LEG) is from. */
enum memwalk_leg {
	MEMWALK_LEG_NONE,
	MEMWALK_LEG_TRACEPOINT,
	MEMWALK_LEG_KPROBE,
	MEMWALK_LEG_KRETPROBE,
	MEMWALK_LEG_SAMPLER,		/* the periodic LRU sampler */
};

/* MEMWALK_A_OOM_CONSTRAINT: what limited the OOM (the kernel's oom_constraint). */
enum memwalk_oom_constraint {
	MEMWALK_OOM_CONSTRAINT_NONE,
	MEMWALK_OOM_CONSTRAINT_CPUSET,
	MEMWALK_OOM_CONSTRAINT_MEMORY_POLICY,
	MEMWALK_OOM_CONSTRAINT_MEMCG,
};

/* MEMWALK_A_EVENT_NODE: one NUMA node's LRU and free memory, in pages. */
enum memwalk_node_attr {
	MEMWALK_A_NODE_UNSPEC,
	MEMWALK_A_NODE_PAD,
	MEMWALK_A_NODE_ID,		/* u32 */
	MEMWALK_A_NODE_ACTIVE_ANON,	/* u64 */
	MEMWALK_A_NODE_INACTIVE_ANON,	/* u64 */
	MEMWALK_A_NODE_ACTIVE_FILE,	/* u64 */
	MEMWALK_A_NODE_INACTIVE_FILE,	/* u64 */
	MEMWALK_A_NODE_UNEVICTABLE,	/* u64 */
	MEMWALK_A_NODE_FREE,		/* u64 */
	MEMWALK_A_NODE_WMARK_MIN,	/* u64 */
	MEMWALK_A_NODE_WMARK_LOW,	/* u64 */
	MEMWALK_A_NODE_WMARK_HIGH,	/* u64 */

	__MEMWALK_A_NODE_MAX,
};
#define MEMWALK_A_NODE_MAX (__MEMWALK_A_NODE_MAX - 1)

/*
 * MEMWALK_A_STATUS_PROBE: one hook.  Each event type has a list of hooks
 * in order of preference; the first that attaches reports it and the
 * others stay in standby.  A hook that cannot attach is reported here,
 * the module works without it.
 */
enum memwalk_probe_state {
	MEMWALK_PROBE_ATTACHED,		/* live */
	MEMWALK_PROBE_STANDBY,		/* not needed: a preferred hook is live */
	MEMWALK_PROBE_FAILED,		/* registration failed: MEMWALK_A_PROBE_ERROR */
	MEMWALK_PROBE_ABSENT,		/* tracepoint or symbol not in this kernel */
	MEMWALK_PROBE_DISABLED,		/* turned off by the "disable" module parameter */
};

enum memwalk_probe_attr {
	MEMWALK_A_PROBE_UNSPEC,
	MEMWALK_A_PROBE_PAD,
	MEMWALK_A_PROBE_NAME,		/* string: tracepoint or function name */
	MEMWALK_A_PROBE_LEG,		/* u32: enum memwalk_leg */
	MEMWALK_A_PROBE_EVENT,		/* u32: event type it reports (0: context only) */
	MEMWALK_A_PROBE_ATTACHED,	/* u32: 1 if live */
	MEMWALK_A_PROBE_STATE,		/* u32: enum memwalk_probe_state */
	MEMWALK_A_PROBE_ERROR,		/* s32: negative errno of the registration */
	MEMWALK_A_PROBE_HITS,		/* u64: handler runs */
	MEMWALK_A_PROBE_NMISSED,	/* u64: kprobe misses + kretprobe maxactive misses */

	__MEMWALK_A_PROBE_MAX,
};
#define MEMWALK_A_PROBE_MAX (__MEMWALK_A_PROBE_MAX - 1)

/* MEMWALK_A_STATUS_GROUP: one multicast group. */
enum memwalk_group_attr {
	MEMWALK_A_GROUP_UNSPEC,
	MEMWALK_A_GROUP_PAD,
	MEMWALK_A_GROUP_NAME,		/* string: MEMWALK_MCGRP_* */
	MEMWALK_A_GROUP_SEQ,		/* u64: last sequence number given out */
	MEMWALK_A_GROUP_SENT,		/* u64: events multicast */
	MEMWALK_A_GROUP_DROPS_OVERFLOW,	/* u64: lost: per-CPU buffer full */
	MEMWALK_A_GROUP_DROPS_DELIVERY,	/* u64: lost: no memory for the message */

	__MEMWALK_A_GROUP_MAX,
};
#define MEMWALK_A_GROUP_MAX (__MEMWALK_A_GROUP_MAX - 1)

/* MEMWALK_A_STATUS_CPU: one CPU's buffer (only CPUs that recorded events). */
enum memwalk_cpu_attr {
	MEMWALK_A_CPU_UNSPEC,
	MEMWALK_A_CPU_PAD,
	MEMWALK_A_CPU_ID,		/* u32 */
	MEMWALK_A_CPU_RECORDED,		/* u64: events stored */
	MEMWALK_A_CPU_DROPS_OVERFLOW,	/* u64: events lost, buffer full */

	__MEMWALK_A_CPU_MAX,
};
#define MEMWALK_A_CPU_MAX (__MEMWALK_A_CPU_MAX - 1)

#endif /* _UAPI_LINUX_MEMWALK_H */

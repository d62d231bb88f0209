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
#define MEMWALK_UAPI_VERSION		1

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
 * here", and empty page-table levels are skipped, not walked.
 *
 * The call stops when a buffer is full or the range is done; walk_end says
 * where (page aligned): call again with start = walk_end until walk_end ==
 * end.  A VMA walked in several calls is reported by each of them.  If not
 * even one record fits, the call fails with ENOSPC.
 */
#define MEMWALK_SNAP_VMAS	(1U << 0)	/* write VMA records */
#define MEMWALK_SNAP_PAGES	(1U << 1)	/* write page runs */
#define MEMWALK_SNAP_FOLIO	(1U << 2)	/* runs carry folio state; else PTE only */
#define MEMWALK_SNAP_NO_PFN	(1U << 3)	/* runs carry no PFN/swap offset; merge wider */
#define MEMWALK_SNAP_ALL	(MEMWALK_SNAP_VMAS | MEMWALK_SNAP_PAGES | MEMWALK_SNAP_FOLIO)

struct memwalk_snapshot {
	__u32 size;		/* in: sizeof as known to the caller */
	__u32 flags;		/* in: MEMWALK_SNAP_* */
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
};

#define MEMWALK_SNAPSHOT_SIZE_VER0	112

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
#define MEMWALK_RUN_EXCLUSIVE	(1U << 17)	/* mapped exactly once (pagemap's PM_MMAP_EXCLUSIVE) */
#define MEMWALK_RUN_SPECIAL	(1U << 18)	/* no struct page behind it (PFN map, special) */
#define MEMWALK_RUN_MIGRATION_WRITE (1U << 19)	/* writable migration entry */
#define MEMWALK_RUN_SWAP_TYPE_SHIFT 24		/* bits 24-28: swap type (swapon order) */
#define MEMWALK_RUN_SWAP_TYPE_MASK (0x1fU << MEMWALK_RUN_SWAP_TYPE_SHIFT)

/*
 * struct memwalk_page_run.folio_flags: bits 0-26 have the numbers and
 * meaning of /proc/kpageflags (KPF_*, see Documentation/admin-guide/mm/
 * pagemap.rst), read from the same folio in the same pass as the entry;
 * KPF_COMPOUND_HEAD/TAIL are not reported per run (a run spans them: see
 * order).  Bits 27-31 are memwalk's own.
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
	__u64 pfn;		/* first PFN; swap offset of swap entries; 0 if hidden */
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
 * then the page as a one-page run.
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

/* ---- generic netlink ------------------------------------------------- */

#define MEMWALK_GENL_NAME		"memwalk"
#define MEMWALK_GENL_VERSION		1

#define MEMWALK_MCGRP_RECLAIM		"reclaim"
#define MEMWALK_MCGRP_OOM		"oom"
#define MEMWALK_MCGRP_LRU		"lru"

enum memwalk_cmd {
	MEMWALK_CMD_UNSPEC,
	MEMWALK_CMD_GET_STATUS,		/* do: reply with MEMWALK_A_STATUS_* */

	__MEMWALK_CMD_MAX,
};
#define MEMWALK_CMD_MAX (__MEMWALK_CMD_MAX - 1)

enum memwalk_attr {
	MEMWALK_A_UNSPEC,
	MEMWALK_A_PAD,
	MEMWALK_A_MODULE_VERSION,	/* string */
	MEMWALK_A_UAPI_VERSION,		/* u32 */
	MEMWALK_A_RELEASE,		/* string: kernel release */

	__MEMWALK_A_MAX,
};
#define MEMWALK_A_MAX (__MEMWALK_A_MAX - 1)

#endif /* _UAPI_LINUX_MEMWALK_H */

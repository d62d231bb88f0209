/* SPDX-License-Identifier: GPL-2.0 */
/*
 * memwalk: declarations shared between the module's source files.
 */
#ifndef _MEMWALK_H
#define _MEMWALK_H

#include <linux/limits.h>
#include <linux/pgtable.h>
#include <linux/types.h>
#include <linux/uidgid.h>
#include <linux/memwalk.h>

#include "compat.h"

#define MEMWALK_MODULE_VERSION	"0.1.0"

struct dentry;
struct seq_file;
struct genl_family;

struct file;
struct folio;
struct mm_struct;
struct vm_area_struct;

/*
 * chardev.c: who opened /dev/memwalk.  Every decision is taken with the
 * opener's credentials, file->f_cred, never with current's.  This struct
 * is the file's private data, so the file and the credentials it holds
 * outlive it.
 */
struct memwalk_access {
	bool full;		/* CAP_SYS_ADMIN in init_user_ns */
	const struct file *file;	/* lab mode: f_cred, file_ns_capable() */
};

struct memwalk_snap;

/* What an open /dev/memwalk holds (chardev.c). */
struct memwalk_file {
	struct memwalk_access acc;
	/* The last snapshot's state and bounce buffers, for the next call */
	struct memwalk_snap *spare;
};

/* target.c */
struct task_struct;
int memwalk_target(const struct memwalk_access *acc, pid_t nr,
		   struct mm_struct **mmp, struct task_struct **taskp);
int memwalk_target_mm(const struct memwalk_access *acc, pid_t nr,
		      struct mm_struct **mmp);
bool memwalk_may_mincore(const struct memwalk_access *acc,
			 struct vm_area_struct *vma);

/*
 * walk.c: the page-table walker.  Callbacks return one of these (or a
 * negative errno, which ends the walk).
 */
enum {
	MEMWALK_WALK_CONTINUE,
	MEMWALK_WALK_PAUSE,	/* drop the locks, flush, resume at w->next */
	MEMWALK_WALK_STOP,	/* end the walk at w->next */
	MEMWALK_WALK_SKIP,	/* ->vma only: do not walk this VMA's tables */
};

/**
 * struct memwalk_entry - one page-table entry as the walker met it
 * @addr: first address of the walked range it covers (page aligned)
 * @end: end of that range, clipped to the walk and to the entry
 * @entry_addr: address the entry maps first (aligned to its size)
 * @val: raw value, read under the entry's lock (leaves) or READ_ONCE
 * @table_pa: physical address of the table page holding the entry
 * @index: index of the entry in that table
 * @level: MEMWALK_PGT_* (the top table is PGD with 4-level paging)
 * @hugetlb: a hugetlb entry (PMD or PUD level)
 * @pte_table: PTE level only: the locked table's first entry, to look at
 *	neighbours (read-only, ptep_get()); NULL at other levels
 * @lock_seq: changes whenever the walker takes a page-table lock, so a
 *	callback can cache what it learnt under the current one
 */
struct memwalk_entry {
	unsigned long addr;
	unsigned long end;
	unsigned long entry_addr;
	u64 val;
	phys_addr_t table_pa;
	unsigned int index;
	unsigned int level;
	bool hugetlb;
	pte_t *pte_table;
	unsigned long lock_seq;
};

struct memwalk_walk;

typedef int (*memwalk_entry_fn)(struct memwalk_walk *w,
				const struct memwalk_entry *e);

/**
 * struct memwalk_walk_ops - what the walker calls; every member optional
 * @vma: a VMA is about to be walked over [start, end); mmap_lock held
 * @table: an upper-level entry (PGD..PMD) that points to a table, and with
 *	want_none also a none one; mmap_lock held, no page-table lock
 * @pte_entry: a PTE; mmap_lock, RCU and the PTE table's lock held
 * @pte_range: instead of @pte_entry, several PTEs of one table at once:
 *	[e->addr, e->end) in e->pte_table (e->val and e->index unset);
 *	the same locks held; it sets w->next when it stops inside
 * @pmd_entry: a PMD leaf (THP, devmap) or non-present PMD (migration);
 *	mmap_lock and the PMD lock held
 * @pud_entry: a PUD leaf outside hugetlb; mmap_lock and the PUD lock held
 * @hugetlb_entry: a hugetlb entry; mmap_lock, i_mmap_rwsem (shared
 *	mappings) and the PMD or PUD lock held
 * @flush: called after each lock hold with no lock held (copy out)
 *
 * Entry callbacks run in atomic context and must not sleep; they may set
 * w->next (which the walker sets to e->addr first) when they stop inside
 * an entry.  None of them may write a page-table entry or a page flag.
 */
struct memwalk_walk_ops {
	int (*vma)(struct memwalk_walk *w, struct vm_area_struct *vma,
		   unsigned long start, unsigned long end);
	memwalk_entry_fn table;
	memwalk_entry_fn pte_entry;
	memwalk_entry_fn pte_range;
	memwalk_entry_fn pmd_entry;
	memwalk_entry_fn pud_entry;
	memwalk_entry_fn hugetlb_entry;
	int (*flush)(struct memwalk_walk *w);
};

/**
 * struct memwalk_walk - one walk
 * @ops: the callbacks
 * @mm: the mm walked; the caller holds an mm_users reference
 * @private: for the callbacks
 * @want_none: also report none entries (->table, ->pte_entry,
 *	->hugetlb_entry)
 * @no_pause: never drop the locks on our own (one short lookup)
 * @vma: the VMA being walked (valid inside callbacks)
 * @next: where the walk stopped or paused: resume from here
 * @lock_drops: times mmap_lock was dropped before the walk ended
 * @max_lock_ns: longest mmap_lock hold
 * @total_lock_ns: all mmap_lock holds together
 * @hold_start_ns: internal: when the current hold began
 * @check_ns: internal: when memwalk_should_pause() last looked
 * @step_ns: internal: the longest time between two looks (halved each hold)
 * @lock_seq: internal: see struct memwalk_entry
 * @huge_size: internal: hugetlb page size of @vma, or 0
 */
struct memwalk_walk {
	const struct memwalk_walk_ops *ops;
	struct mm_struct *mm;
	void *private;
	bool want_none;
	bool no_pause;
	struct vm_area_struct *vma;
	unsigned long next;
	u32 lock_drops;
	u64 max_lock_ns;
	u64 total_lock_ns;
	u64 hold_start_ns;
	u64 check_ns;
	u64 step_ns;
	bool preempt_off;	/* within a hold, on mw_hold_preempt_off() */
	unsigned long lock_seq;
	unsigned long huge_size;
};

int memwalk_walk_mm(struct memwalk_walk *w, unsigned long start,
		    unsigned long end);
int memwalk_range_check(u64 start, u64 end);
int memwalk_walk_request(struct memwalk_walk *w, u64 start, u64 end);
u64 memwalk_walk_end(const struct memwalk_walk *w, u64 end);
bool memwalk_should_pause(struct memwalk_walk *w);
int memwalk_walk_vma(struct memwalk_walk *w, struct vm_area_struct *vma,
		     unsigned long start, unsigned long end);

/*
 * The page decoder (decode.h lists its files): what an entry maps, as
 * struct memwalk_page_run fields.
 */

/* What a folio gives every page of it in a run. */
struct memwalk_folio_fields {
	u32 flags;		/* MEMWALK_RUN_ANON/FILE/SHMEM/FOLIO_DIRTY/YOUNG */
	/* With MEMWALK_SNAP_FOLIO only */
	u32 kpf;		/* kpageflags() but KPF_HWPOISON */
	u32 refcount;
	u32 nid;
	u8 order;
	s8 lru_gen;
};

/* The folio met last and its state, valid under one page-table lock. */
struct memwalk_folio_cache {
	struct folio *folio;
	unsigned long seq;	/* the lock_seq it was read under */
	unsigned long first_pfn;
	unsigned long nr;
	bool zero;		/* a zero page: no anon/file/mapcount */
	struct memwalk_folio_fields f;
};

/* The words a small folio's fields are computed from (folio.c). */
struct memwalk_small_key {
	unsigned long flags;
	unsigned long mapping;
	unsigned long memcg;
	int mapcount;
	int refcount;
};

/*
 * The fields of the last small folio read and the words they were
 * computed from: most base pages repeat them all.
 */
struct memwalk_small_memo {
	unsigned long seq;	/* the lock_seq it was filled under */
	struct memwalk_small_key key;
	struct memwalk_folio_fields f;
};

/*
 * The flags-word bits folio_test_young() and folio_test_idle() read
 * (smaps counts a young folio as referenced), for a decoder's key_ignore;
 * 32-bit kernels keep them in page_ext.
 */
#if defined(CONFIG_PAGE_IDLE_FLAG) && defined(CONFIG_64BIT)
#define MW_PG_YOUNG_MASK	BIT(PG_young)
#define MW_PG_IDLE_MASK		BIT(PG_idle)
#else
#define MW_PG_YOUNG_MASK	0UL
#define MW_PG_IDLE_MASK		0UL
#endif

struct memwalk_decoder {
	struct vm_area_struct *vma;
	bool folio;		/* fill the folio fields (MEMWALK_SNAP_FOLIO) */
	bool entry_only;	/* read entries only (MEMWALK_SNAP_ENTRY_ONLY) */
	bool hide_pfn;		/* PFNs and swap offsets read as 0 */
	bool pfn_list;		/* runs may list PFNs (MEMWALK_SNAP_PFN_LIST) */
	/*
	 * With folio: fill only what smaps counts with (summary.c): the
	 * kpageflags bits MEMWALK_SMAPS_KPF, the mapcount, the refcount up
	 * to 2 (smaps asks "1 or more?"); no node, order, generation or
	 * large-folio bits, so pages alike for smaps merge into one run.
	 */
	bool smaps;
	/* Bits of a small folio's flags word the memo does not compare */
	unsigned long key_ignore;
	/*
	 * MEMWALK_SNAP_NO_ACCESSED: the entry bits runs do not tell
	 * (mw_arch_pte_accessed_bits()), compared as equal wherever the raw
	 * words are; the run flags (accessed, folio young) and kpageflags
	 * bits (idle) never set, where DAMON and idle-page tracking park an
	 * accessed bit they clear.  0 otherwise.
	 */
	u64 pte_ign;
	u32 run_drop;
	u32 kpf_drop;
	/* MEMWALK_FOLIO_PARTIAL cache, valid under one PTE-table lock */
	const struct folio *part_folio;
	unsigned long part_seq;
	bool part_result;
	struct memwalk_folio_cache fc;
	/* d->vma's page cache if it is shmem and holes are looked up there */
	struct address_space *shmem;
	struct memwalk_small_memo small;
	/* The online subsection met last, valid under one page-table lock */
	unsigned long online_sub;
	unsigned long online_seq;
};

/**
 * struct memwalk_run_sink - where the decoder puts finished runs
 * @runs: bounce buffer, copied out by the owner between lock holds
 * @nr: runs in @runs
 * @cap: room in @runs
 * @slots: runs the caller can still take, those in @runs included
 * @open: the run still growing, not yet in @runs; it may span lock
 *	drops and decoder calls, and always has a slot kept for it
 * @have_open: @open is valid
 * @open_vm_start: start of the VMA @open lies in (runs never cross VMAs)
 * @pfns: bounce buffer of listed PFNs (MEMWALK_RUN_PFN_LIST runs)
 * @pfn_nr: PFNs in @pfns
 * @pfn_cap: room in @pfns
 * @pfn_base: index in the caller's pfn_buf of @pfns[0]
 * @pfn_slots: room left in the caller's pfn_buf after @pfns
 * @open_last_pfn: PFN of the last page of @open, when it is listed
 * @fold: if set, a run that is closed goes to it instead of @runs, which
 *	then is not used (summary.c counts runs instead of keeping them);
 *	called from the entry callbacks, under their locks
 */
struct memwalk_run_sink {
	struct memwalk_page_run *runs;
	u32 nr;
	u32 cap;
	u64 slots;
	struct memwalk_page_run open;
	bool have_open;
	unsigned long open_vm_start;
	u64 *pfns;
	u32 pfn_nr;
	u32 pfn_cap;
	u64 pfn_base;
	u64 pfn_slots;
	unsigned long open_last_pfn;
	void (*fold)(struct memwalk_run_sink *sink,
		     const struct memwalk_page_run *run);
};

/**
 * struct memwalk_decoding - a walk whose every entry is decoded into a sink
 * @walk: the walk; its callbacks find the rest with container_of()
 * @dec: the decoder
 * @sink: where its runs go
 *
 * The memwalk_decoding_*() walker callbacks (decode.c) serve any owner
 * that embeds it (snapshot.c, summary.c); w->private stays the owner's.
 */
struct memwalk_decoding {
	struct memwalk_walk walk;
	struct memwalk_decoder dec;
	struct memwalk_run_sink sink;
};

int memwalk_decoding_entry(struct memwalk_walk *w, const struct memwalk_entry *e);
int memwalk_decoding_ptes(struct memwalk_walk *w, const struct memwalk_entry *e);
int memwalk_decoding_table(struct memwalk_walk *w, const struct memwalk_entry *e);
void memwalk_decoding_vma(struct memwalk_decoding *dw,
			  struct vm_area_struct *vma, bool shmem_holes);

void memwalk_decode_page(struct memwalk_decoder *d,
			 const struct memwalk_entry *e, unsigned long addr,
			 struct memwalk_page_run *run);
int memwalk_decode_entry(struct memwalk_decoder *d,
			 struct memwalk_walk *w, const struct memwalk_entry *e,
			 struct memwalk_run_sink *sink);
int memwalk_decode_ptes(struct memwalk_decoder *d, struct memwalk_walk *w,
			const struct memwalk_entry *e,
			struct memwalk_run_sink *sink);
int memwalk_decode_shmem_hole(struct memwalk_decoder *d,
			      struct memwalk_walk *w, unsigned long start,
			      unsigned long end, struct memwalk_run_sink *sink);
bool memwalk_mglru_reported(void);
void memwalk_fastcheck_show(struct seq_file *m);	/* fastcheck.c */

/* vma.c: VMA records. */
#define MEMWALK_VMA_NAME_MAX	(2 * PATH_MAX)	/* with \012 escapes */

struct memwalk_vma_info {
	struct memwalk_vma rec;		/* name_len set, name[] not */
	const char *name;		/* NUL-terminated, name_len long */
};

u64 memwalk_vma_flags(struct vm_area_struct *vma);
void memwalk_vma_describe(struct vm_area_struct *vma, char *namebuf,
			  struct memwalk_vma_info *info);

static inline u32 memwalk_vma_rec_size(u32 name_len)
{
	return ALIGN(sizeof(struct memwalk_vma) + name_len + 1, 8);
}

/* snapshot.c, translate.c: the ioctls */
long memwalk_ioctl_snapshot(const struct memwalk_access *acc,
			    struct memwalk_snap **spare,
			    struct memwalk_snapshot __user *uarg);
void memwalk_snap_free(struct memwalk_snap *s);
long memwalk_ioctl_translate(const struct memwalk_access *acc,
			     struct memwalk_translate __user *uarg);
long memwalk_ioctl_summary(const struct memwalk_access *acc,
			   struct memwalk_summary __user *uarg);	/* summary.c */

/* phys.c: MEMWALK_IOC_PHYS, the census of physical memory */
long memwalk_ioctl_phys(const struct memwalk_access *acc,
			struct memwalk_phys __user *uarg);

/* main.c */
void memwalk_fill_info(struct memwalk_info *info);

/* chardev.c: /dev/memwalk */
int memwalk_chardev_init(void);
void memwalk_chardev_exit(void);

/*
 * debugfs.c: <debugfs>/memwalk/.  Files there are for debugging only and
 * are not a stable interface.  memwalk_debugfs_root may be an ERR_PTR (no
 * debugfs); debugfs_create_*() accept that as parent and fail quietly.
 */
extern struct dentry *memwalk_debugfs_root;
void memwalk_debugfs_init(void);
void memwalk_debugfs_exit(void);
bool memwalk_debugfs_present(void);

/* netlink.c: generic netlink family MEMWALK_GENL_NAME */
extern struct genl_family memwalk_genl_family;

/* Index of each multicast group in memwalk_genl_family.mcgrps. */
enum memwalk_mcgrp_idx {
	MEMWALK_MCGRP_IDX_RECLAIM,
	MEMWALK_MCGRP_IDX_OOM,
	MEMWALK_MCGRP_IDX_LRU,

	MEMWALK_MCGRP_IDX_COUNT,
};

int memwalk_netlink_init(void);
void memwalk_netlink_exit(void);
bool memwalk_netlink_registered(void);

#endif /* _MEMWALK_H */

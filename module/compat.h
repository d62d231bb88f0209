/* SPDX-License-Identifier: GPL-2.0 */
/*
 * memwalk: the one place for kernel-version differences.
 *
 * Code is written against the newest supported kernel (7.2); anything an
 * older kernel (6.1, 6.12) lacks is backfilled here, by feature test where a
 * macro allows it and by MEMWALK_KLINE otherwise.  Nothing else in the
 * module may test kernel versions.  Architecture differences live in
 * arch.h, re-implementations of helpers a module cannot call in
 * unexported.h.
 */
#ifndef _MEMWALK_COMPAT_H
#define _MEMWALK_COMPAT_H

/* linux/mm.h first: huge_mm.h and swapops.h rely on it on 6.1. */
#include <linux/mm.h>
#include <linux/fs.h>
#include <linux/huge_mm.h>
#include <linux/page-flags.h>
#include <linux/pgtable.h>
#include <linux/version.h>
#include <net/genetlink.h>

/*
 * The kernel line, KERNEL_VERSION(major, minor, 0): the version code minus
 * the sublevel, which matters only to stable backports (feature-test those).
 * LINUX_VERSION_MAJOR/PATCHLEVEL exist since 5.16.
 */
#ifndef LINUX_VERSION_MAJOR
#error "memwalk needs Linux 6.1 or later"
#endif
#define MEMWALK_KLINE \
	KERNEL_VERSION(LINUX_VERSION_MAJOR, LINUX_VERSION_PATCHLEVEL, 0)

#if KERNEL_VERSION(6, 1, 0) > MEMWALK_KLINE
#error "memwalk needs Linux 6.1 or later"
#endif

/*
 * Multicast groups carry kernel-wide reclaim/OOM events, so binding must
 * be restricted to CAP_SYS_ADMIN.  The flag came with 6.7 and was
 * backported to the stable lines; on an older 6.1.y anyone could
 * subscribe, so refuse to build rather than drop the check.
 */
#ifndef GENL_MCAST_CAP_SYS_ADMIN
#error "memwalk needs genl_multicast_group.flags (GENL_MCAST_CAP_SYS_ADMIN)"
#endif

/* ---- swap-format ("soft leaf") entries ---------------------------- */

/*
 * Non-present, non-none entries.  7.x replaced the swp_entry_t helpers of
 * swapops.h with softleaf_t and leafops.h (6.19); both are inline.  An
 * entry of another level is decoded as the pte_t arch.h makes of it.
 */
#if KERNEL_VERSION(6, 19, 0) <= MEMWALK_KLINE
#include <linux/swap.h>
#include <linux/leafops.h>

/* softleaf_t is still an alias of swp_entry_t (mm_types.h). */
#define mw_leaf_t	softleaf_t

static inline mw_leaf_t mw_pte_leaf(pte_t pte)
{
	return softleaf_from_pte(pte);
}

static inline bool mw_leaf_is_swap(mw_leaf_t e)
{
	return softleaf_is_swap(e);
}

static inline bool mw_leaf_is_migration(mw_leaf_t e)
{
	return softleaf_is_migration(e);
}

static inline bool mw_leaf_is_migration_write(mw_leaf_t e)
{
	return softleaf_is_migration_write(e);
}

static inline bool mw_leaf_is_device(mw_leaf_t e)
{
	return softleaf_is_device_private(e) || softleaf_is_device_exclusive(e);
}

static inline bool mw_leaf_is_hwpoison(mw_leaf_t e)
{
	return softleaf_is_hwpoison(e);
}

static inline bool mw_leaf_is_marker(mw_leaf_t e)
{
	return softleaf_is_marker(e);
}

static inline bool mw_leaf_marker_uffd_wp(mw_leaf_t e)
{
	return softleaf_is_uffd_wp_marker(e);
}

/* Only for migration, device and hwpoison entries. */
static inline unsigned long mw_leaf_pfn(mw_leaf_t e)
{
	return softleaf_to_pfn(e);
}
#else
#include <linux/swap.h>
#include <linux/swapops.h>

#define mw_leaf_t	swp_entry_t

static inline mw_leaf_t mw_pte_leaf(pte_t pte)
{
	return pte_to_swp_entry(pte);
}

static inline bool mw_leaf_is_swap(mw_leaf_t e)
{
	return !non_swap_entry(e);
}

static inline bool mw_leaf_is_migration(mw_leaf_t e)
{
	return is_migration_entry(e);
}

static inline bool mw_leaf_is_migration_write(mw_leaf_t e)
{
	return is_writable_migration_entry(e);
}

static inline bool mw_leaf_is_device(mw_leaf_t e)
{
	return is_device_private_entry(e) || is_device_exclusive_entry(e);
}

static inline bool mw_leaf_is_hwpoison(mw_leaf_t e)
{
	return is_hwpoison_entry(e);
}

static inline bool mw_leaf_is_marker(mw_leaf_t e)
{
	return is_pte_marker_entry(e);
}

static inline bool mw_leaf_marker_uffd_wp(mw_leaf_t e)
{
	return is_pte_marker_entry(e) && (pte_marker_get(e) & PTE_MARKER_UFFD_WP);
}

static inline unsigned long mw_leaf_pfn(mw_leaf_t e)
{
	return swp_offset_pfn(e);
}
#endif

/* ---- pages without a normal struct page ---------------------------- */

/*
 * ZONE_DEVICE "devmap" entries: an architecture feature that went away in
 * 6.17.  Before, pte_devmap() is 0 on architectures without it.
 */
#ifdef CONFIG_ARCH_HAS_PTE_DEVMAP
static inline bool mw_pte_devmap(pte_t pte)
{
	return pte_devmap(pte);
}
#else
static inline bool mw_pte_devmap(pte_t pte)
{
	return false;
}
#endif

/* ---- folio state as /proc/kpageflags reports it -------------------- */

/*
 * The page's own flags word (PG_hwpoison is per page), and the folio's,
 * which kpageflags copies PG_* bits from since 6.12 (memdesc_flags_t since
 * 6.18).  6.1's stable_page_flags() copies them from each page's own word,
 * so there a tail page of a large folio shows almost none; memwalk reports
 * the folio's (its head page's) on every line.
 */
#if KERNEL_VERSION(6, 18, 0) <= MEMWALK_KLINE
static inline unsigned long mw_page_flags_word(const struct page *page)
{
	return page->flags.f;
}

static inline unsigned long mw_folio_flags_word(const struct folio *folio)
{
	return folio->flags.f;
}
#else
static inline unsigned long mw_page_flags_word(const struct page *page)
{
	return page->flags;
}

static inline unsigned long mw_folio_flags_word(const struct folio *folio)
{
	return folio->flags;
}
#endif

/*
 * MEMWALK_KPF_FOLIO: /proc/kpageflags reads a mapped page's state from its
 * folio (folio_mapped(), large rmappable folios as THP, the folio's
 * hugetlb hwpoison bit) and pagemap its precise mapcount from
 * folio_precise_page_mapcount(): 6.12 on.  6.1 reads the page's own.
 * unexported.h follows the kernel it is built for.
 */
#if KERNEL_VERSION(6, 12, 0) <= MEMWALK_KLINE
#define MEMWALK_KPF_FOLIO	1
#endif

/* ---- the physical census (phys.c) ----------------------------------- */

/*
 * The largest buddy order: MAX_PAGE_ORDER since 6.8, MAX_ORDER - 1 (the
 * old exclusive bound) before.
 */
#ifdef MAX_PAGE_ORDER
#define MW_MAX_PAGE_ORDER	MAX_PAGE_ORDER
#else
#define MW_MAX_PAGE_ORDER	(MAX_ORDER - 1)
#endif

/* The mapping bit of an anonymous folio: FOLIO_MAPPING_ANON since 6.17. */
#ifdef PAGE_MAPPING_ANON
#define MW_MAPPING_ANON		PAGE_MAPPING_ANON
#else
#define MW_MAPPING_ANON		FOLIO_MAPPING_ANON
#endif

/*
 * The mapping bit of a non-LRU movable page (zsmalloc, balloon): gone
 * in 7.x, whose movable_ops pages say it by page type or flag instead and
 * keep no pointer in mapping.
 */
#ifdef PAGE_MAPPING_MOVABLE
#define MW_MAPPING_MOVABLE	PAGE_MAPPING_MOVABLE
#else
#define MW_MAPPING_MOVABLE	0x2UL
#endif

/* ---- scheduling ----------------------------------------------------- */

#include <linux/sched.h>

/*
 * Whether the scheduler wants this CPU back.  Under PREEMPT_LAZY (7.x's
 * default model, and 6.12-rt's) the tick asks only by
 * TIF_NEED_RESCHED_LAZY, which need_resched() does not read, and
 * preempts us at the next tick wherever we are: mmap_lock held too.
 * Kernels without lazy preemption have no such flag.
 */
static inline bool mw_resched_wanted(void)
{
#ifdef TIF_NEED_RESCHED_LAZY
	return need_resched() || test_thread_flag(TIF_NEED_RESCHED_LAZY);
#else
	return need_resched();
#endif
}

/*
 * A walk's mmap_lock hold runs with preemption off, as the whole walk does
 * under PREEMPT_NONE.  In the preemptible models (7.2's default is lazy) a
 * task woken meanwhile could otherwise switch the walker out mid-hold, and
 * a writer waits for the other task's slice too: on 7.2 a 0.7 ms hold
 * became 4 ms (an involuntary switch in each).  The hold is bounded and
 * polls for a wanted CPU (walk.c).  Not on PREEMPT_RT, where the
 * page-table locks sleep and latency comes first.
 */
static inline bool mw_hold_preempt_off(void)
{
	return !IS_ENABLED(CONFIG_PREEMPT_RT);
}

/*
 * Give the CPU up if it is wanted, with no lock held.  cond_resched() is
 * a no-op in the preemptible models, lazy included.
 */
static inline void mw_resched(void)
{
	if (mw_resched_wanted())
		schedule();
}

/* ---- VMA names ------------------------------------------------------ */

#if KERNEL_VERSION(6, 12, 0) <= MEMWALK_KLINE
/* The path /proc/PID/maps shows: the user-visible one for backing files. */
static inline const struct path *mw_file_user_path(struct file *file)
{
	return file_user_path(file);
}

static inline bool mw_vma_is_initial_heap(const struct vm_area_struct *vma)
{
	return vma_is_initial_heap(vma);
}

static inline bool mw_vma_is_initial_stack(const struct vm_area_struct *vma)
{
	return vma_is_initial_stack(vma);
}
#else
static inline const struct path *mw_file_user_path(struct file *file)
{
	return &file->f_path;
}

/* 6.1's show_map_vma() tests, inclusive bounds and all. */
static inline bool mw_vma_is_initial_heap(const struct vm_area_struct *vma)
{
	return vma->vm_start <= vma->vm_mm->brk &&
	       vma->vm_end >= vma->vm_mm->start_brk;
}

static inline bool mw_vma_is_initial_stack(const struct vm_area_struct *vma)
{
	return vma->vm_start <= vma->vm_mm->start_stack &&
	       vma->vm_end >= vma->vm_mm->start_stack;
}
#endif

/* ---- access control (lab mode, target.c) ---------------------------- */

#include <linux/rcupdate.h>
#include <linux/sched/coredump.h>
#include <linux/user_namespace.h>

/*
 * The user namespace in which __ptrace_may_access() wants CAP_SYS_PTRACE
 * because @task (with @mm) is not dumpable by its owner, or NULL if it
 * is.  Dumpability and that namespace were mm->flags and mm->user_ns until
 * they moved together to the RCU-managed task->exec_state (7.x).
 * Locking: rcu_read_lock() held; the namespace is valid until it is
 * dropped (pinned by @mm, which the caller holds, or by the exec_state).
 */
#ifdef SUID_DUMP_USER
static inline struct user_namespace *
mw_task_undumpable_ns(struct task_struct *task, struct mm_struct *mm)
{
	return get_dumpable(mm) == SUID_DUMP_USER ? NULL : mm->user_ns;
}
#else
#include <linux/sched/exec_state.h>

static inline struct user_namespace *
mw_task_undumpable_ns(struct task_struct *task, struct mm_struct *mm)
{
	const struct task_exec_state *es = rcu_dereference(task->exec_state);

	if (!es)
		return &init_user_ns;
	return es->dumpable == TASK_DUMPABLE_OWNER ? NULL : es->user_ns;
}
#endif

/* ---- reclaim/OOM events (probes.c) --------------------------------------- */

/*
 * Reclaim tracepoints that changed.  probes.c checks every probe against
 * the kernel's TP_PROTO at build time, so a wrong boundary here fails the
 * build rather than misreading arguments.  Both changes are in 7.2 and not
 * in 6.12; the lines between were not checked, hence the 7.2 boundary.
 *
 * MEMWALK_TP_RECLAIM_MEMCG: mm_vmscan_{direct,memcg}_reclaim_begin take
 *	(gfp, order, memcg), the _end events (nr_reclaimed, memcg).
 * MEMWALK_TP_BALANCE_PGDAT: mm_vmscan_balance_pgdat_{begin,end} exist.
 * MEMWALK_PGSTEAL_NODE_STAT: pgsteal_* are node statistics, not vm events.
 */
#if KERNEL_VERSION(7, 2, 0) <= MEMWALK_KLINE
#define MEMWALK_TP_RECLAIM_MEMCG	1
#define MEMWALK_TP_BALANCE_PGDAT	1
#define MEMWALK_PGSTEAL_NODE_STAT	1
#endif

#include <linux/mmzone.h>
#include <linux/percpu.h>
#include <linux/vmstat.h>

/*
 * Pages kswapd has reclaimed since boot: on @pgdat where the kernel counts
 * per node, otherwise on all nodes.  Lock-free per-CPU sums, any context.
 */
static inline unsigned long mw_pgsteal_kswapd(struct pglist_data *pgdat)
{
	unsigned long sum = 0;
	int cpu;

#ifdef MEMWALK_PGSTEAL_NODE_STAT
	sum = atomic_long_read(&pgdat->vm_stat[PGSTEAL_KSWAPD]);
	for_each_possible_cpu(cpu) {
		struct per_cpu_nodestat *pcp;

		pcp = per_cpu_ptr(pgdat->per_cpu_nodestats, cpu);
		sum += pcp->vm_node_stat_diff[PGSTEAL_KSWAPD];
	}
#else
	for_each_possible_cpu(cpu)
		sum += per_cpu(vm_event_states, cpu).event[PGSTEAL_KSWAPD];
#endif
	return sum;
}

#endif /* _MEMWALK_COMPAT_H */

// SPDX-License-Identifier: GPL-2.0
/*
 * memwalk: the page-table walker (traversal only; what an entry means is
 * decided by the callbacks, see decode.h).  Modelled on mm/pagewalk.c,
 * whose walk_page_range() is not exported, and strictly read-only: no
 * entry is ever written or cleared (not even a bad one) and no page flag
 * is touched.
 *
 * Locking protocol (x86-64; the same code on every kernel line):
 *
 * mmap_lock (read), held by memwalk_walk_mm() per bounded chunk
 *	Keeps the VMA tree stable, and with it the PGD/P4D/PUD/PMD tables
 *	under any VMA found during this hold: free_pgtables() runs only for
 *	VMAs already removed from the tree (munmap/mremap/exit; since 6.1x
 *	munmap frees after downgrading to read, but only between surviving
 *	VMAs).  So entries above the PMD are read with READ_ONCE() and
 *	descended without a lock, and only ranges inside a VMA found under
 *	the current hold are walked.  Per-VMA-lock faults (6.12+) change PMDs
 *	only none->table, none->THP, THP->table and THP->none, the same as
 *	faults under mmap_lock.  The caller holds an mm_users reference
 *	(mmget), so exit_mmap() cannot run meanwhile.
 *
 * RCU + the PTE table's lock (pte_lockptr(), a split ptlock)
 *	A PTE table can be freed while we hold only mmap_lock: on 6.1 only by
 *	khugepaged under the mmap write lock, but since 6.5 (so on 6.12 and
 *	7.2) collapse_pte_mapped_thp()/retract_page_tables() detach it under
 *	mmap_lock read or i_mmap_rwsem and free it with pte_free_defer(),
 *	i.e. after an RCU grace period.  __pte_offset_map_lock() is not
 *	exported there (pte_offset_map() was a plain macro on 6.1), so we do
 *	what it does: rcu_read_lock(), snapshot the PMD, give up unless it
 *	is a table, map with pte_offset_kernel() on the snapshot (no HIGHPTE),
 *	take pte_lockptr() of the snapshot, re-read the PMD and retry unless
 *	pmd_same().  The lock then keeps every entry of the table stable and
 *	each mapped page mapped (so folio state read there is consistent);
 *	RCU keeps the table memory valid.  Released with spin_unlock() and
 *	rcu_read_unlock() (pte_unmap() differs between the lines).
 *	On 6.1 the RCU section is not needed but harmless.
 *
 * The PMD lock (pmd_lock(), split PMD ptlock)
 *	THP/devmap leaves and non-present (migration) PMDs: read once
 *	without it to classify, then under it re-read and handled only if
 *	still a leaf; a PMD that became a table meanwhile is walked as one.
 *	pmd_trans_unstable()/pmd_clear_bad() are never used (the latter is
 *	not exported on 6.1, both write or are gone).
 *
 * The PUD lock (pud_lockptr(), mm->page_table_lock on x86)
 *	PUD leaves outside hugetlb (devdax, huge PFN maps), same pattern.
 *
 * hugetlb: i_mmap_rwsem (read) for VM_MAYSHARE mappings + PMD/PUD lock
 *	huge_pte_offset(), hugetlb_walk() and hugetlb_vma_lock_read() are not
 *	exported.  A shared mapping's PMD table may be shared between mms
 *	and unshared (freed from under us) by huge_pmd_unshare(), which
 *	requires i_mmap_rwsem held for write on every line, so holding it for
 *	read (i_mmap_lock_read() is inline) across the VMA's walk keeps the
 *	PUD entry and its table in place; lock order mmap_lock -> i_mmap_rwsem
 *	is the kernel's own, and no hugetlb VMA lock is taken, so there is no
 *	inversion with the fault path.  Private mappings never share tables:
 *	mmap_lock suffices.  Each entry is then read under the lock
 *	huge_pte_lockptr() would return: pmd_lockptr() for 2 MiB pages,
 *	pud_lockptr() for 1 GiB pages.
 *
 * Lock order: mmap_lock -> i_mmap_rwsem -> RCU -> one page-table lock.
 * Never more than one page-table lock at a time; nothing sleeps, faults
 * or copies to user space under RCU or a page-table lock (callbacks run
 * in atomic context), and nothing copies to user space under mmap_lock:
 * ->flush runs after it is dropped, because the caller may be walking
 * its own mm.
 *
 * Hold time: memwalk_walk_mm() drops mmap_lock after each entry at every
 * level above the PTE, none ones included (or every PTES_PER_PAUSE_CHECK
 * PTEs, or pages of a leaf, or page-cache entries of a shmem hole) when
 * one more such step would take the hold past HOLD_PLAN_NS, a little short
 * of HOLD_BUDGET_NS, or when a writer waits (mmap_lock_is_contended()) or
 * the CPU is wanted, lazily too (mw_resched_wanted()); it gives the CPU up
 * unlocked and then re-finds the VMA at the resume address: the tree may
 * have changed meanwhile, nothing from the previous hold is trusted.  A
 * hold runs with preemption off but on PREEMPT_RT (mw_hold_preempt_off():
 * the walker is not switched out holding mmap_lock), turned on only
 * around i_mmap_lock_read(), the one call in a hold that may sleep.
 */
#include <linux/hugetlb.h>
#include <linux/ktime.h>
#include <linux/lockdep.h>
#include <linux/mm.h>
#include <linux/mmap_lock.h>
#include <linux/pgtable.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/spinlock.h>

#include "arch.h"
#include "memwalk.h"

/* Longest wanted mmap_lock hold. */
#define HOLD_BUDGET_NS		(2 * NSEC_PER_MSEC)
/*
 * What a hold is planned to: a sixteenth short of the budget, for the
 * step that runs longer than the longest seen and for the unwinding
 * after the last check.
 */
#define HOLD_PLAN_NS		(HOLD_BUDGET_NS - HOLD_BUDGET_NS / 16)

/* How often a PTE-table scan looks at the clock and for waiters. */
#define PTES_PER_PAUSE_CHECK	512

/* Internal: the PMD changed under us, read it again. */
#define WALK_RETRY		(-1000)

/**
 * memwalk_should_pause() - whether the walk should drop its locks now
 * @w: the walk
 *
 * For callbacks that do long work of their own inside one entry: they
 * return MEMWALK_WALK_PAUSE with w->next where to resume.
 *
 * Locking: mmap_lock held.
 */
bool memwalk_should_pause(struct memwalk_walk *w)
{
	u64 now, step;

	if (w->no_pause)
		return false;
	if (mw_resched_wanted() || mmap_lock_is_contended(w->mm))
		return true;
	/*
	 * Room for one more step, as long as the longest of this hold and
	 * (fading) of those before: the budget is kept, not overrun by the
	 * last step.  The estimate is capped at a quarter of the budget and
	 * loses a half at each new hold (memwalk_walk_mm()), so a step slowed
	 * by an interrupt shortens the next few holds, not every later one.
	 */
	now = ktime_get_ns();
	step = min(now - w->check_ns, HOLD_BUDGET_NS / 4);
	w->check_ns = now;
	if (step > w->step_ns)
		w->step_ns = step;
	return now - w->hold_start_ns + w->step_ns > HOLD_PLAN_NS;
}

/*
 * The table's own address: @entry is its entry @index.  Not the page the
 * entry is in: arm64's top table can be a few entries from a kmem_cache
 * (16 with 52-bit VA and 5 levels), several of them in one page.
 */
static phys_addr_t table_pa_of(const void *entry, unsigned int index)
{
	return __pa(entry) - (phys_addr_t)index * sizeof(u64);
}

static void entry_init(struct memwalk_entry *e, unsigned int level,
		       const void *entryp, unsigned int index, u64 val,
		       unsigned long addr, unsigned long end,
		       unsigned long size)
{
	e->addr = addr;
	e->end = end;
	e->entry_addr = addr & ~(size - 1);
	e->val = val;
	e->table_pa = table_pa_of(entryp, index);
	e->index = index;
	e->level = level;
	e->hugetlb = false;
	e->pte_table = NULL;
	e->lock_seq = 0;
}

static int call_entry(struct memwalk_walk *w, memwalk_entry_fn fn,
		      const struct memwalk_entry *e)
{
	if (!fn)
		return MEMWALK_WALK_CONTINUE;
	w->next = e->addr;
	return fn(w, e);
}

/*
 * A hugetlb entry at PMD or PUD level; @ptl is what huge_pte_lockptr()
 * would return for it.
 */
static int walk_hugetlb_entry(struct memwalk_walk *w, unsigned int level,
			      void *entryp, unsigned int index,
			      spinlock_t *ptl, unsigned long addr,
			      unsigned long end, unsigned long size)
{
	struct memwalk_entry e;
	pte_t pte;
	int ret;

	/* The PMD/PUD lock: the entry cannot change while we decode it. */
	spin_lock(ptl);
	w->lock_seq++;
	pte = ptep_get((pte_t *)entryp);
	if (pte_none(pte) && !w->want_none) {
		spin_unlock(ptl);
		return MEMWALK_WALK_CONTINUE;
	}
	entry_init(&e, level, entryp, index, pte_val(pte), addr, end, size);
	e.hugetlb = true;
	e.lock_seq = w->lock_seq;
	lockdep_assert_held(ptl);
	ret = call_entry(w, w->ops->hugetlb_entry, &e);
	spin_unlock(ptl);
	return ret;
}

static bool pmd_is_table(pmd_t pmdv)
{
	return !pmd_none(pmdv) && pmd_present(pmdv) && !pmd_leaf(pmdv) &&
	       !pmd_bad(pmdv);
}

/*
 * ->pte_range over [addr, end) of the locked @table, PTES_PER_PAUSE_CHECK
 * entries at a time, pausing between them as walk_pte_table() would.
 */
static int walk_pte_chunks(struct memwalk_walk *w, pte_t *table,
			   unsigned long addr, unsigned long end)
{
	struct memwalk_entry e;
	unsigned long next;
	int ret;

	entry_init(&e, MEMWALK_PGT_PTE, table, 0, 0, addr, end, PAGE_SIZE);
	e.pte_table = table;
	e.lock_seq = w->lock_seq;
	for (;;) {
		next = min(end, addr + PTES_PER_PAUSE_CHECK * PAGE_SIZE);
		e.addr = addr;
		e.end = next;
		e.entry_addr = addr;
		w->next = addr;
		ret = w->ops->pte_range(w, &e);
		if (ret || next == end)
			return ret;
		addr = next;
		if (memwalk_should_pause(w)) {
			w->next = addr;
			return MEMWALK_WALK_PAUSE;
		}
	}
}

/* The PTEs of [addr, end) in the table @pmd points to. */
static int walk_pte_table(struct memwalk_walk *w, pmd_t *pmd,
			  unsigned long addr, unsigned long end)
{
	const struct memwalk_walk_ops *ops = w->ops;
	struct memwalk_entry e;
	pte_t *table, *pte;
	spinlock_t *ptl;	/* the PTE table's split ptlock */
	unsigned int n;
	pmd_t pmdv;
	int ret = MEMWALK_WALK_CONTINUE;

	/* RCU: the PTE table may be freed by pte_free_defer() (6.5+). */
	rcu_read_lock();
	pmdv = READ_ONCE(*pmd);
	if (!pmd_is_table(pmdv)) {
		rcu_read_unlock();
		return WALK_RETRY;
	}
	table = pte_offset_kernel(&pmdv, addr & PMD_MASK);
	ptl = pte_lockptr(w->mm, &pmdv);
	/* The PTE table's lock: its entries and their pages stay put. */
	spin_lock(ptl);
	if (!pmd_same(pmdv, READ_ONCE(*pmd))) {
		spin_unlock(ptl);
		rcu_read_unlock();
		return WALK_RETRY;
	}
	w->lock_seq++;

	if (ops->pte_range) {
		lockdep_assert_held(ptl);
		ret = walk_pte_chunks(w, table, addr, end);
		goto unlock;
	}
	pte = table + pte_index(addr);
	for (n = 0; addr != end; addr += PAGE_SIZE, pte++, n++) {
		pte_t ptev;

		/* Bound the work per hold inside a table too. */
		if (n && !(n % PTES_PER_PAUSE_CHECK) && memwalk_should_pause(w)) {
			w->next = addr;
			ret = MEMWALK_WALK_PAUSE;
			break;
		}
		ptev = ptep_get(pte);
		if (pte_none(ptev) && !w->want_none)
			continue;
		entry_init(&e, MEMWALK_PGT_PTE, pte, pte_index(addr),
			   pte_val(ptev), addr, addr + PAGE_SIZE, PAGE_SIZE);
		e.pte_table = table;
		e.lock_seq = w->lock_seq;
		lockdep_assert_held(ptl);
		ret = call_entry(w, ops->pte_entry, &e);
		if (ret)
			break;
	}
unlock:
	spin_unlock(ptl);
	rcu_read_unlock();
	return ret;
}

/* A THP/devmap leaf or a non-present PMD, re-read under the PMD lock. */
static int walk_pmd_leaf(struct memwalk_walk *w, pmd_t *pmd,
			 unsigned long addr, unsigned long end)
{
	struct memwalk_entry e;
	spinlock_t *ptl;	/* the PMD table's split ptlock */
	pmd_t pmdv;
	int ret;

	/* The PMD lock: no split, zap or migration while we look. */
	ptl = pmd_lock(w->mm, pmd);
	w->lock_seq++;
	pmdv = READ_ONCE(*pmd);
	if (pmd_none(pmdv)) {
		/* Zapped since we looked: now a none entry. */
		spin_unlock(ptl);
		if (!w->want_none)
			return MEMWALK_WALK_CONTINUE;
		entry_init(&e, MEMWALK_PGT_PMD, pmd, pmd_index(addr), 0,
			   addr, end, PMD_SIZE);
		return call_entry(w, w->ops->table, &e);
	}
	if (pmd_present(pmdv) && !pmd_leaf(pmdv)) {
		/* Split into a table since we looked: walk that. */
		spin_unlock(ptl);
		return WALK_RETRY;
	}
	entry_init(&e, MEMWALK_PGT_PMD, pmd, pmd_index(addr), pmd_val(pmdv),
		   addr, end, PMD_SIZE);
	e.lock_seq = w->lock_seq;
	lockdep_assert_held(ptl);
	ret = call_entry(w, w->ops->pmd_entry, &e);
	spin_unlock(ptl);
	return ret;
}

static int walk_one_pmd(struct memwalk_walk *w, pmd_t *pmd,
			unsigned long addr, unsigned long end)
{
	struct memwalk_entry e;
	pmd_t pmdv;
	int ret;

	if (w->huge_size == PMD_SIZE)
		return walk_hugetlb_entry(w, MEMWALK_PGT_PMD, pmd,
					  pmd_index(addr),
					  pmd_lockptr(w->mm, pmd), addr, end,
					  PMD_SIZE);
again:
	pmdv = READ_ONCE(*pmd);
	if (pmd_none(pmdv)) {
		if (!w->want_none)
			return MEMWALK_WALK_CONTINUE;
		entry_init(&e, MEMWALK_PGT_PMD, pmd, pmd_index(addr), 0,
			   addr, end, PMD_SIZE);
		return call_entry(w, w->ops->table, &e);
	}
	if (!pmd_present(pmdv) || pmd_leaf(pmdv)) {
		ret = walk_pmd_leaf(w, pmd, addr, end);
		if (ret == WALK_RETRY)
			goto again;
		return ret;
	}
	/* Not ours to fix (pmd_clear_bad() would write): skip it. */
	if (pmd_bad(pmdv))
		return MEMWALK_WALK_CONTINUE;

	entry_init(&e, MEMWALK_PGT_PMD, pmd, pmd_index(addr), pmd_val(pmdv),
		   addr, end, PMD_SIZE);
	ret = call_entry(w, w->ops->table, &e);
	if (ret)
		return ret;
	ret = walk_pte_table(w, pmd, addr, end);
	if (ret == WALK_RETRY)
		goto again;
	return ret;
}

/*
 * The next table from the entry's value read once (@pudv), as GUP-fast
 * does: on an architecture that folds a level at boot (arm64 with LPA2,
 * s390) the folded table is found from the entry's own address (@pud),
 * never from the address of the copy.
 */
static int walk_pmd_range(struct memwalk_walk *w, pud_t *pud, pud_t pudv,
			  unsigned long addr, unsigned long end)
{
	pmd_t *pmd = pmd_offset_lockless(pud, pudv, addr);
	unsigned long next;
	int ret;

	do {
		next = pmd_addr_end(addr, end);
		ret = walk_one_pmd(w, pmd, addr, next);
		if (ret)
			return ret;
		if (next != end && memwalk_should_pause(w)) {
			w->next = next;
			return MEMWALK_WALK_PAUSE;
		}
	} while (pmd++, addr = next, addr != end);

	return MEMWALK_WALK_CONTINUE;
}

/* A PUD leaf outside hugetlb (devdax, huge PFN map), under the PUD lock. */
static int walk_pud_leaf(struct memwalk_walk *w, pud_t *pud,
			 unsigned long addr, unsigned long end)
{
	struct memwalk_entry e;
	spinlock_t *ptl;	/* mm->page_table_lock on x86 */
	pud_t pudv;
	int ret;

	ptl = pud_lockptr(w->mm, pud);
	/* The PUD lock: the leaf cannot be split or zapped meanwhile. */
	spin_lock(ptl);
	w->lock_seq++;
	pudv = READ_ONCE(*pud);
	if (pud_none(pudv)) {
		spin_unlock(ptl);
		return MEMWALK_WALK_CONTINUE;
	}
	if (pud_present(pudv) && !pud_leaf(pudv)) {
		spin_unlock(ptl);
		return WALK_RETRY;
	}
	entry_init(&e, MEMWALK_PGT_PUD, pud, pud_index(addr), pud_val(pudv),
		   addr, end, PUD_SIZE);
	e.lock_seq = w->lock_seq;
	lockdep_assert_held(ptl);
	ret = call_entry(w, w->ops->pud_entry, &e);
	spin_unlock(ptl);
	return ret;
}

/* As walk_pmd_range(): the table from the value, a folded one from @p4d. */
static int walk_pud_range(struct memwalk_walk *w, p4d_t *p4d, p4d_t p4dv,
			  unsigned long addr, unsigned long end)
{
	pud_t *pud = pud_offset_lockless(p4d, p4dv, addr);
	struct memwalk_entry e;
	unsigned long next;
	pud_t pudv;
	int ret;

	do {
		next = pud_addr_end(addr, end);
		if (w->huge_size == PUD_SIZE) {
			ret = walk_hugetlb_entry(w, MEMWALK_PGT_PUD, pud,
						 pud_index(addr),
						 pud_lockptr(w->mm, pud),
						 addr, next, PUD_SIZE);
			if (ret)
				return ret;
			goto step;
		}
again:
		pudv = READ_ONCE(*pud);
		if (pud_none(pudv)) {
			if (!w->want_none)
				goto step;
			entry_init(&e, MEMWALK_PGT_PUD, pud, pud_index(addr), 0,
				   addr, next, PUD_SIZE);
			ret = call_entry(w, w->ops->table, &e);
			if (ret)
				return ret;
			goto step;
		}
		if (!pud_present(pudv) || pud_leaf(pudv)) {
			ret = walk_pud_leaf(w, pud, addr, next);
			if (ret == WALK_RETRY)
				goto again;
			if (ret)
				return ret;
			goto step;
		}
		if (pud_bad(pudv))
			goto step;

		entry_init(&e, MEMWALK_PGT_PUD, pud, pud_index(addr),
			   pud_val(pudv), addr, next, PUD_SIZE);
		ret = call_entry(w, w->ops->table, &e);
		if (!ret)
			ret = walk_pmd_range(w, pud, pudv, addr, next);
		if (ret)
			return ret;
step:
		if (next != end && memwalk_should_pause(w)) {
			w->next = next;
			return MEMWALK_WALK_PAUSE;
		}
	} while (pud++, addr = next, addr != end);

	return MEMWALK_WALK_CONTINUE;
}

/*
 * With 4-level paging the P4D level is folded into the PGD: the entry is
 * reported once, as MEMWALK_PGT_PGD, with the PGD index.
 */
static int walk_p4d_range(struct memwalk_walk *w, pgd_t *pgd,
			  unsigned long addr, unsigned long end)
{
	bool folded = mw_arch_p4d_folded();
	unsigned int level = folded ? MEMWALK_PGT_PGD : MEMWALK_PGT_P4D;
	p4d_t *p4d = p4d_offset(pgd, addr);
	struct memwalk_entry e;
	unsigned long next;
	unsigned int index;
	p4d_t p4dv;
	int ret;

	do {
		next = p4d_addr_end(addr, end);
		p4dv = READ_ONCE(*p4d);
		index = folded ? mw_arch_folded_p4d_index(addr) : p4d_index(addr);
		if (p4d_none(p4dv) || p4d_bad(p4dv)) {
			if (!w->want_none || !p4d_none(p4dv))
				goto step;
			entry_init(&e, level, p4d, index, 0, addr, next,
				   P4D_SIZE);
			ret = call_entry(w, w->ops->table, &e);
			if (ret)
				return ret;
			goto step;
		}
		entry_init(&e, level, p4d, index, p4d_val(p4dv), addr, next,
			   P4D_SIZE);
		ret = call_entry(w, w->ops->table, &e);
		if (!ret)
			ret = walk_pud_range(w, p4d, p4dv, addr, next);
		if (ret)
			return ret;
step:
		if (next != end && memwalk_should_pause(w)) {
			w->next = next;
			return MEMWALK_WALK_PAUSE;
		}
	} while (p4d++, addr = next, addr != end);

	return MEMWALK_WALK_CONTINUE;
}

static int walk_pgd_range(struct memwalk_walk *w, unsigned long addr,
			  unsigned long end)
{
	pgd_t *pgd = pgd_offset(w->mm, addr);
	struct memwalk_entry e;
	unsigned long next;
	pgd_t pgdv;
	int ret;

	do {
		next = pgd_addr_end(addr, end);
		if (!mw_arch_p4d_folded()) {
			pgdv = READ_ONCE(*pgd);
			if (pgd_none(pgdv) || pgd_bad(pgdv)) {
				if (!w->want_none || !pgd_none(pgdv))
					goto step;
				entry_init(&e, MEMWALK_PGT_PGD, pgd,
					   pgd_index(addr), 0, addr, next,
					   PGDIR_SIZE);
				ret = call_entry(w, w->ops->table, &e);
				if (ret)
					return ret;
				goto step;
			}
			entry_init(&e, MEMWALK_PGT_PGD, pgd, pgd_index(addr),
				   pgd_val(pgdv), addr, next, PGDIR_SIZE);
			ret = call_entry(w, w->ops->table, &e);
			if (ret)
				return ret;
		}
		ret = walk_p4d_range(w, pgd, addr, next);
		if (ret)
			return ret;
step:
		if (next != end && memwalk_should_pause(w)) {
			w->next = next;
			return MEMWALK_WALK_PAUSE;
		}
	} while (pgd++, addr = next, addr != end);

	return MEMWALK_WALK_CONTINUE;
}

/**
 * memwalk_walk_vma() - walk the page tables of [start, end) in one VMA
 * @w: the walk; w->ops and w->mm set
 * @vma: a VMA of w->mm found under the current mmap_lock hold
 * @start: first address, page aligned, >= vma->vm_start
 * @end: end, page aligned, <= vma->vm_end
 *
 * Visits populated entries top-down and calls w->ops for them; empty
 * levels are skipped.
 *
 * Locking: w->mm's mmap_lock held (read or write) throughout, as it was
 * when @vma was found.  Takes i_mmap_rwsem (read) for shared hugetlb
 * mappings, RCU and page-table locks as described at the top of walk.c;
 * all are released on return.  May return MEMWALK_WALK_PAUSE, after which
 * the caller must drop mmap_lock and look the VMA up again.
 *
 * Return: MEMWALK_WALK_CONTINUE when the range is done, else what stopped
 * the walk, with w->next the address to resume from.
 */
int memwalk_walk_vma(struct memwalk_walk *w, struct vm_area_struct *vma,
		     unsigned long start, unsigned long end)
{
	struct address_space *mapping = NULL;
	int ret;

	mmap_assert_locked(w->mm);
	w->vma = vma;
	w->huge_size = 0;
	if (is_vm_hugetlb_page(vma)) {
		w->huge_size = vma_kernel_pagesize(vma);
		/* Only PMD- and PUD-sized hugetlb pages exist on x86-64. */
		if (w->huge_size != PMD_SIZE && w->huge_size != PUD_SIZE)
			return MEMWALK_WALK_CONTINUE;
		if ((vma->vm_flags & VM_MAYSHARE) && vma->vm_file)
			mapping = vma->vm_file->f_mapping;
	}

	/* i_mmap_rwsem: no huge_pmd_unshare() while we walk (see above). */
	if (mapping) {
		/* It may sleep: preemption back on for it (compat.h). */
		if (w->preempt_off)
			preempt_enable();
		i_mmap_lock_read(mapping);
		if (w->preempt_off)
			preempt_disable();
	}
	ret = walk_pgd_range(w, start, end);
	if (mapping)
		i_mmap_unlock_read(mapping);

	return ret;
}

/* The VMAs in [addr, end) during one mmap_lock hold. */
static int walk_vmas(struct memwalk_walk *w, unsigned long addr,
		     unsigned long end)
{
	struct vm_area_struct *vma;
	struct vma_iterator vmi;
	unsigned long s, e;
	int ret;

	mmap_assert_locked(w->mm);
	vma_iter_init(&vmi, w->mm, addr);
	for_each_vma_range(vmi, vma, end) {
		s = max(addr, vma->vm_start);
		e = min(end, vma->vm_end);
		w->next = s;
		w->vma = vma;
		ret = MEMWALK_WALK_CONTINUE;
		if (w->ops->vma)
			ret = w->ops->vma(w, vma, s, e);
		if (ret == MEMWALK_WALK_CONTINUE)
			ret = memwalk_walk_vma(w, vma, s, e);
		else if (ret == MEMWALK_WALK_SKIP)
			ret = MEMWALK_WALK_CONTINUE;
		if (ret)
			return ret;
		if (e != end && memwalk_should_pause(w)) {
			w->next = e;
			return MEMWALK_WALK_PAUSE;
		}
	}

	w->next = end;
	return MEMWALK_WALK_CONTINUE;
}

static void account_hold(struct memwalk_walk *w)
{
	u64 ns = ktime_get_ns() - w->hold_start_ns;

	w->total_lock_ns += ns;
	if (ns > w->max_lock_ns)
		w->max_lock_ns = ns;
}

/**
 * memwalk_walk_mm() - walk the VMAs and page tables of [start, end)
 * @w: the walk; w->ops and w->mm set, the statistics zeroed
 * @start: first address, page aligned
 * @end: end, page aligned, > @start
 *
 * Takes w->mm's mmap_lock for read in bounded holds.  Between holds (and
 * whenever a callback returns MEMWALK_WALK_PAUSE) calls w->ops->flush with
 * no lock held, reschedules and checks for a fatal signal; then finds the
 * VMA at w->next again, as the tree may have changed.
 *
 * Locking: called with no memwalk lock and not holding w->mm's mmap_lock;
 * the caller holds an mm_users reference on w->mm.  Sleeps.
 *
 * Return: 0 when the range is done (w->next == @end), MEMWALK_WALK_STOP
 * when a callback stopped the walk at w->next, -EINTR on a fatal signal,
 * or a callback's negative errno.
 */
int memwalk_walk_mm(struct memwalk_walk *w, unsigned long start,
		    unsigned long end)
{
	unsigned long addr = start;
	int ret, err;

	might_sleep();
	for (;;) {
		if (mmap_read_lock_killable(w->mm))
			return -EINTR;
		/* Not switched out holding it (compat.h); nothing here sleeps. */
		w->preempt_off = mw_hold_preempt_off();
		if (w->preempt_off)
			preempt_disable();
		w->hold_start_ns = ktime_get_ns();
		w->check_ns = w->hold_start_ns;
		w->step_ns >>= 1;	/* see memwalk_should_pause() */
		ret = walk_vmas(w, addr, end);
		account_hold(w);
		mmap_read_unlock(w->mm);
		if (w->preempt_off)
			preempt_enable();
		w->preempt_off = false;
		w->vma = NULL;

		if (ret < 0)
			return ret;
		if (w->ops->flush) {
			err = w->ops->flush(w);
			if (err)
				return err;
		}
		if (ret == MEMWALK_WALK_CONTINUE)
			return 0;
		if (ret == MEMWALK_WALK_STOP)
			return MEMWALK_WALK_STOP;

		/* MEMWALK_WALK_PAUSE */
		addr = w->next;
		if (addr >= end)
			return 0;
		w->lock_drops++;
		mw_resched();
		if (fatal_signal_pending(current))
			return -EINTR;
	}
}

/**
 * memwalk_range_check() - whether a request may name [@start, @end)
 * @start: first address
 * @end: end (exclusive), or 0 for the end of user space
 *
 * Locking: none.
 *
 * Return: 0, or -EINVAL when either is not page aligned, @end lies beyond
 * user space, or the range is empty (@start >= @end, @end not 0).
 */
int memwalk_range_check(u64 start, u64 end)
{
	u64 last = end ? end : mw_arch_user_end();

	if (!PAGE_ALIGNED(start) || !PAGE_ALIGNED(end))
		return -EINVAL;
	if (end > mw_arch_user_end() || start > last || (end && start >= end))
		return -EINVAL;
	return 0;
}

/**
 * memwalk_walk_request() - memwalk_walk_mm() over a request's range
 * @w: as for memwalk_walk_mm(); w->next is set to @start first
 * @start: first address, checked by memwalk_range_check()
 * @end: end, or 0 for the end of user space
 *
 * Locking: as memwalk_walk_mm().
 *
 * Return: as memwalk_walk_mm(); 0 for an empty range.
 */
int memwalk_walk_request(struct memwalk_walk *w, u64 start, u64 end)
{
	u64 last = end ? end : mw_arch_user_end();

	w->next = start;
	if (start >= last)
		return 0;
	return memwalk_walk_mm(w, start, last);
}

/**
 * memwalk_walk_end() - where a request's walk stopped, as it is reported
 * @w: the walk done by memwalk_walk_request()
 * @end: the request's end
 *
 * Locking: none.
 *
 * Return: w->next; 0 when @end is 0 ("all") and the walk is done, so that
 * "call again until walk_end == end" holds there too.
 */
u64 memwalk_walk_end(const struct memwalk_walk *w, u64 end)
{
	if (!end && w->next >= mw_arch_user_end())
		return 0;
	return w->next;
}

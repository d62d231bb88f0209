// SPDX-License-Identifier: GPL-2.0
/*
 * memwalk: shmem and tmpfs pages in swap where the process has no entry.
 * Shmem swaps a page out only after unmapping it, and keeps the swap
 * entry in its page cache: this file reads that cache, not page tables.
 *
 * Locking: mmap_lock held (it pins the VMA's file); RCU for the page
 * cache's xarray, taken here.  Called from the per-PTE loop (PTE-table
 * lock held) and from translate.c (no page-table lock).
 */
#include <linux/mm.h>
#include <linux/pagemap.h>
#include <linux/rcupdate.h>
#include <linux/string.h>
#include <linux/xarray.h>

#include "decode.h"

/**
 * memwalk_decode_shmem_hole() - shmem pages in swap where d->vma has no entry
 * @d: the decoder; d->shmem is the page cache of d->vma's shmem file
 * @w: the walk; w->next is advanced past what @sink accepted
 * @start: first address of the hole (no entry maps [@start, @end))
 * @end: its end
 * @sink: takes the runs, in address order
 *
 * Shmem unmaps a page before it swaps it out and keeps the swap entry in
 * the page cache, so a none entry may stand for a page in swap: each one
 * becomes a MEMWALK_STATE_SHMEM_SWAP run, as smaps counts it in Swap.
 *
 * Locking: mmap_lock held (it pins d->vma's file); any page-table lock may
 * be held.  Takes RCU for the page cache.  Does not sleep.
 *
 * Return: 0, or MEMWALK_WALK_PAUSE/STOP with w->next where to resume.
 */
int memwalk_decode_shmem_hole(struct memwalk_decoder *d,
			      struct memwalk_walk *w, unsigned long start,
			      unsigned long end, struct memwalk_run_sink *sink)
{
	struct vm_area_struct *vma = d->vma;
	pgoff_t next = linear_page_index(vma, start);
	pgoff_t last = linear_page_index(vma, end - 1);
	XA_STATE(xas, &d->shmem->i_pages, next);
	struct memwalk_page_run run;
	unsigned int seen = 0;
	void *entry;
	int ret = 0;

	/* RCU: the xarray's nodes; a value entry is read, not referenced. */
	rcu_read_lock();
	xas_for_each(&xas, entry, last) {
		pgoff_t base, stop, from;
		swp_entry_t swp;
		unsigned long nr;

		if (xas_retry(&xas, entry))
			continue;
		/*
		 * Every entry counts, pages in the cache too: a hole may
		 * hold a great many of them and nothing else.
		 */
		if (!(++seen % PTRS_PER_PTE) && memwalk_should_pause(w)) {
			nr = 1UL << xas_get_order(&xas);
			from = max(xas.xa_index & ~(nr - 1), next);
			w->next = vma->vm_start +
				  ((from - vma->vm_pgoff) << PAGE_SHIFT);
			ret = MEMWALK_WALK_PAUSE;
			break;
		}
		if (!xa_is_value(entry))
			continue;
		/* A large folio swapped out whole is one multi-index entry. */
		nr = 1UL << xas_get_order(&xas);
		base = xas.xa_index & ~(nr - 1);
		stop = min(base + nr - 1, last);
		from = max(base, next);
		if (stop < from)
			continue;
		swp = radix_to_swp_entry(entry);
		memset(&run, 0, sizeof(run));
		run.start = vma->vm_start + ((from - vma->vm_pgoff) << PAGE_SHIFT);
		run.nr_pages = stop - from + 1;
		run.flags = MEMWALK_STATE_SHMEM_SWAP |
			    MEMWALK_LEVEL_PTE << MEMWALK_RUN_LEVEL_SHIFT |
			    MEMWALK_RUN_FILE | MEMWALK_RUN_SHMEM |
			    (swp_type(swp) << MEMWALK_RUN_SWAP_TYPE_SHIFT &
			     MEMWALK_RUN_SWAP_TYPE_MASK);
		run.pfn = d->hide_pfn ? 0 : swp_offset(swp) + (from - base);
		run.lru_gen = -1;
		ret = memwalk_sink_add(d, w, sink, &run);
		if (ret)
			break;
		next = stop + 1;
	}
	rcu_read_unlock();
	if (!ret)
		w->next = end;
	return ret;
}

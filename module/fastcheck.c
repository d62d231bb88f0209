// SPDX-License-Identifier: GPL-2.0
/*
 * memwalk: check_fast_paths, for debugging only.  With it set, every page
 * ptes.c or decode.c put into runs, whatever fast path took it (raw-word
 * stretches, repeated small folios, PFN lists, leaf stretches, uniform
 * leaves), is decoded again alone the slow way, memwalk_decode_page(),
 * under the same lock hold, and must read as its run says.  A
 * disagreement is counted and warned about once;
 * <debugfs>/memwalk/fast_path_check shows the counts.  A page whose state
 * changed between the two reads (the hardware set its accessed or dirty
 * bit, or two slow decodes differ) is counted as raced instead.
 *
 * Locking: as the caller's, a walker entry callback under the lock of the
 * entry (decode.h).  The decoder's caches are saved and restored around
 * the slow decode, so the walk goes on exactly as it would unchecked.
 * The counters are atomic.
 */
#include <linux/atomic.h>
#include <linux/bug.h>
#include <linux/moduleparam.h>
#include <linux/seq_file.h>

#include "decode.h"

bool memwalk_check_fast_paths;
module_param_named(check_fast_paths, memwalk_check_fast_paths, bool, 0644);
MODULE_PARM_DESC(check_fast_paths,
		 "Debugging: check every fast-path page against the slow decode (slow)");

static atomic_long_t pages_checked;
static atomic_long_t pages_mismatched;
static atomic_long_t pages_raced;

/* Pages checked per call: a PUD leaf has 262144, all under one lock. */
#define CHECK_MAX_PAGES	1024UL

/*
 * The one-page run @run claims for its page at @addr: its fields, and the
 * PFN that follows its first one or, in a listed run, the one its list
 * holds, if that is still in the bounce buffer (else false).
 */
static bool claimed_run(const struct memwalk_decoder *d,
			const struct memwalk_run_sink *sink,
			const struct memwalk_page_run *run, unsigned long addr,
			struct memwalk_page_run *page)
{
	u64 idx = (addr - run->start) >> PAGE_SHIFT;

	*page = *run;
	page->start = addr;
	page->nr_pages = 1;
	page->flags &= ~MEMWALK_RUN_PFN_LIST;
	if (d->hide_pfn || (run->flags & MEMWALK_RUN_STATE_MASK) ==
			   MEMWALK_STATE_MARKER) {
		page->pfn = 0;
	} else if (run->flags & MEMWALK_RUN_PFN_LIST) {
		idx += run->pfn;
		if (idx < sink->pfn_base || idx - sink->pfn_base >= sink->pfn_nr)
			return false;
		page->pfn = sink->pfns[idx - sink->pfn_base];
	} else {
		page->pfn = run->pfn + idx;
	}
	return true;
}

/*
 * memwalk_decode_page() of @addr under @e, leaving the decoder as it was.
 * False for a none PTE (a shmem hole's page, looked up elsewhere).
 */
static bool slow_decode(struct memwalk_decoder *d,
			const struct memwalk_entry *e, unsigned long addr,
			struct memwalk_page_run *run)
{
	struct memwalk_decoder saved = *d;
	struct memwalk_entry pe = *e;

	if (e->level == MEMWALK_PGT_PTE && e->pte_table) {
		pe.addr = addr;
		pe.end = addr + PAGE_SIZE;
		pe.entry_addr = addr;
		pe.index = pte_index(addr);
		pe.val = pte_val(ptep_get(e->pte_table + pe.index));
		if (pte_none(__pte(pe.val)))
			return false;
	}
	memwalk_decode_page(d, &pe, addr, run);
	*d = saved;
	return true;
}

static bool runs_same(const struct memwalk_page_run *a,
		      const struct memwalk_page_run *b)
{
	return a->start == b->start && a->nr_pages == b->nr_pages &&
	       a->pfn == b->pfn && run_fields_equal(a, b);
}

/*
 * Whether @got is @claimed but for what may change under our page-table
 * lock: accessed/dirty bits set since, and the folio's young flag, which
 * rmap walkers and DAMON set and clear holding other locks or none (smaps
 * mode folds it into KPF_REFERENCED).
 */
static bool changed_since(const struct memwalk_decoder *d,
			  const struct memwalk_page_run *claimed,
			  const struct memwalk_page_run *got)
{
	u32 ad = MEMWALK_RUN_ACCESSED | MEMWALK_RUN_DIRTY;
	u32 young = MEMWALK_RUN_FOLIO_YOUNG;
	struct memwalk_page_run c = *claimed;

	if ((got->flags ^ claimed->flags) & ~(ad | young) ||
	    (claimed->flags & ~got->flags & ad))
		return false;
	c.flags = got->flags;
	if (d->smaps)
		c.folio_flags ^= (c.folio_flags ^ got->folio_flags) & KPF(REFERENCED);
	return runs_same(&c, got);
}

/* Check the pages of @run in [@from, @to); *@budget pages at most. */
static void check_run(struct memwalk_decoder *d, const struct memwalk_entry *e,
		      const struct memwalk_run_sink *sink,
		      const struct memwalk_page_run *run, unsigned long from,
		      unsigned long to, unsigned long *budget)
{
	struct memwalk_page_run claimed, got, again;
	unsigned long addr;

	for (addr = from; addr < to && *budget; addr += PAGE_SIZE) {
		if (!claimed_run(d, sink, run, addr, &claimed) ||
		    !slow_decode(d, e, addr, &got))
			continue;
		--*budget;
		atomic_long_inc(&pages_checked);
		if (runs_same(&claimed, &got))
			continue;
		slow_decode(d, e, addr, &again);
		if (changed_since(d, &claimed, &got) || !runs_same(&got, &again)) {
			atomic_long_inc(&pages_raced);
			continue;
		}
		atomic_long_inc(&pages_mismatched);
		WARN_ONCE(1, "memwalk: run %#llx+%u says for %#lx: flags %#x pfn %#llx kpf %#x map %u ref %u nid %u order %u gen %d; slow decode: flags %#x pfn %#llx kpf %#x map %u ref %u nid %u order %u gen %d\n",
			  run->start, run->nr_pages, addr, claimed.flags,
			  claimed.pfn, claimed.folio_flags, claimed.mapcount,
			  claimed.refcount, claimed.nid, claimed.order,
			  claimed.lru_gen, got.flags, got.pfn, got.folio_flags,
			  got.mapcount, got.refcount, got.nid, got.order,
			  got.lru_gen);
	}
}

/**
 * memwalk_fastcheck() - check the pages just decoded against the slow way
 * @d: the decoder
 * @e: the entry decoded: a PTE range with e->pte_table (each page's PTE
 *	is read again from the table), or a leaf
 * @sink: the sink the runs went to
 * @nr: sink->nr before the decode: the runs from there on and the open
 *	run hold the pages decoded
 * @end: where the decode stopped: [e->addr, @end) was decoded
 *
 * Each page's run, as the sink holds it, against memwalk_decode_page() of
 * the page alone.
 *
 * Locking: as memwalk_decode_page(), under the same lock hold as the
 * decode.
 */
void memwalk_fastcheck(struct memwalk_decoder *d,
		       const struct memwalk_entry *e,
		       const struct memwalk_run_sink *sink, u32 nr,
		       unsigned long end)
{
	unsigned long budget = CHECK_MAX_PAGES;
	const struct memwalk_page_run *run;
	u32 i;

	for (i = nr; i <= sink->nr; i++) {
		if (i < sink->nr)
			run = &sink->runs[i];
		else if (sink->have_open)
			run = &sink->open;
		else
			break;
		check_run(d, e, sink, run, max_t(u64, run->start, e->addr),
			  min_t(u64, run->start + ((u64)run->nr_pages << PAGE_SHIFT),
				end), &budget);
	}
}

/**
 * memwalk_fastcheck_show() - the counters, for debugfs
 * @m: the seq_file
 *
 * Locking: none (atomic counters).
 */
void memwalk_fastcheck_show(struct seq_file *m)
{
	seq_printf(m, "enabled: %d\n", READ_ONCE(memwalk_check_fast_paths));
	seq_printf(m, "pages_checked: %ld\n", atomic_long_read(&pages_checked));
	seq_printf(m, "pages_mismatched: %ld\n",
		   atomic_long_read(&pages_mismatched));
	seq_printf(m, "pages_raced: %ld\n", atomic_long_read(&pages_raced));
}

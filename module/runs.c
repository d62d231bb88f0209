// SPDX-License-Identifier: GPL-2.0
/*
 * memwalk: merging decoded pages into runs.  The sink keeps one open run;
 * a page that continues it (the same fields, the next address and PFN)
 * extends it, one alike but for a scattered PFN joins its PFN list
 * (MEMWALK_SNAP_PFN_LIST), anything else closes it into the bounce buffer
 * and opens a new one.  Runs never cross VMAs.
 *
 * Locking: none of its own.  The sink belongs to one walk, called from
 * its entry callbacks under a page-table lock; its bounce buffers are
 * copied out between lock holds by the owner (snapshot.c), or its closed
 * runs counted as they close (->fold, summary.c).
 */
#include <linux/errno.h>
#include <linux/limits.h>
#include <linux/mm.h>

#include "decode.h"

static bool run_has_pfn(const struct memwalk_page_run *run)
{
	return (run->flags & MEMWALK_RUN_STATE_MASK) != MEMWALK_STATE_MARKER;
}

/*
 * Whether @b continues the run @a: @b starts where @a ends, every field
 * but start, pfn and nr_pages is equal, and (when PFNs are shown and the
 * state has one) @b's PFN or swap offset follows @a's last one.
 */
static bool run_extends(const struct memwalk_decoder *d,
			const struct memwalk_page_run *a,
			const struct memwalk_page_run *b)
{
	if (a->start + ((u64)a->nr_pages << PAGE_SHIFT) != b->start)
		return false;
	if (!run_fields_equal(a, b))
		return false;
	if ((u64)a->nr_pages + b->nr_pages > U32_MAX)
		return false;
	if (!d->hide_pfn && run_has_pfn(a) && a->pfn + a->nr_pages != b->pfn)
		return false;
	return true;
}

/*
 * @run becomes the sink's open run; the one it replaces goes to the
 * bounce buffer.  Refused (w->next at @run, which is not taken) when the
 * caller's buffer has no slot for both or the bounce buffer is full.
 */
static int sink_push(struct memwalk_decoder *d, struct memwalk_walk *w,
		     struct memwalk_run_sink *sink,
		     const struct memwalk_page_run *run)
{
	if (sink->have_open && sink->fold) {
		sink->fold(sink, &sink->open);
	} else if (sink->have_open) {
		if (sink->nr + 2 > sink->slots) {
			w->next = run->start;
			return MEMWALK_WALK_STOP;
		}
		if (sink->nr == sink->cap) {
			w->next = run->start;
			return MEMWALK_WALK_PAUSE;
		}
		sink->runs[sink->nr++] = sink->open;
	} else if (!sink->fold && sink->nr >= sink->slots) {
		w->next = run->start;
		return MEMWALK_WALK_STOP;
	}
	sink->open = *run;
	sink->have_open = true;
	sink->open_vm_start = d->vma->vm_start;
	return 0;
}

/*
 * Whether the one-page run @b, right after the open run, can join it as a
 * listed PFN: a present page alike in every field whose PFN does not
 * follow the last one, and an open run that is listed already or one page
 * long.
 */
static bool run_lists(const struct memwalk_decoder *d,
		      const struct memwalk_run_sink *sink,
		      const struct memwalk_page_run *b)
{
	const struct memwalk_page_run *a = &sink->open;
	bool listed = a->flags & MEMWALK_RUN_PFN_LIST;

	return d->pfn_list && b->nr_pages == 1 &&
	       (b->flags & MEMWALK_RUN_STATE_MASK) == MEMWALK_STATE_PRESENT &&
	       (a->flags & ~MEMWALK_RUN_PFN_LIST) == b->flags &&
	       run_folio_fields_equal(a, b) &&
	       (listed || a->nr_pages == 1) && a->nr_pages < U32_MAX &&
	       a->start + ((u64)a->nr_pages << PAGE_SHIFT) == b->start &&
	       b->pfn != (listed ? sink->open_last_pfn : a->pfn) + 1;
}

/*
 * The page @pfn at @addr, right after the open run, joins its list, which
 * starts with the run's own PFN if it was not listed yet.  Return: 0;
 * -ENOSPC when the caller's pfn_buf has no room for that (the page is to
 * be pushed instead); MEMWALK_WALK_PAUSE, with w->next at @addr, when the
 * bounce buffer has not.
 */
int memwalk_sink_list(struct memwalk_walk *w, struct memwalk_run_sink *sink,
		      unsigned long addr, unsigned long pfn)
{
	struct memwalk_page_run *a = &sink->open;
	u32 need = a->flags & MEMWALK_RUN_PFN_LIST ? 1 : 2;

	if (sink->pfn_slots < need)
		return -ENOSPC;
	if (sink->pfn_nr + need > sink->pfn_cap) {
		w->next = addr;
		return MEMWALK_WALK_PAUSE;
	}
	if (need == 2) {
		sink->pfns[sink->pfn_nr] = a->pfn;
		a->pfn = sink->pfn_base + sink->pfn_nr++;
		a->flags |= MEMWALK_RUN_PFN_LIST;
	}
	sink->pfns[sink->pfn_nr++] = pfn;
	sink->pfn_slots -= need;
	sink->open_last_pfn = pfn;
	a->nr_pages++;
	return 0;
}

/* @run joins the open run if it continues it, else is pushed. */
int memwalk_sink_add(struct memwalk_decoder *d, struct memwalk_walk *w,
		     struct memwalk_run_sink *sink,
		     const struct memwalk_page_run *run)
{
	int ret;

	if (sink->have_open && sink->open_vm_start == d->vma->vm_start) {
		if (run_extends(d, &sink->open, run)) {
			sink->open.nr_pages += run->nr_pages;
			return 0;
		}
		if (run_lists(d, sink, run)) {
			ret = memwalk_sink_list(w, sink, run->start, run->pfn);
			if (ret != -ENOSPC)
				return ret;
		}
	}
	return sink_push(d, w, sink, run);
}

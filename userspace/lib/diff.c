// SPDX-License-Identifier: GPL-2.0
/*
 * libmemwalk: what changed between two snapshots of a process, page by
 * page, classified by kind of change with page counts and address ranges;
 * and which VMAs were added, removed or changed.  See diff.h.
 *
 * Both snapshots' runs are swept together in address order; between two
 * consecutive run boundaries (of either side) every page is alike on both
 * sides, so each such segment is classified once (classify()).  Segments
 * of one kind that touch are reported as one range.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diff.h"
#include "names.h"
#include "summary.h"

static const char *const change_names[MW_NR_CHANGES] = {
	[MW_CH_FAULTED_IN]	= "faulted in",
	[MW_CH_UNMAPPED]	= "unmapped",
	[MW_CH_SWAPPED_OUT]	= "swapped out",
	[MW_CH_SWAPPED_IN]	= "swapped in",
	[MW_CH_COW_BROKEN]	= "COW broken",
	[MW_CH_PFN_CHANGED]	= "moved to another PFN",
	[MW_CH_PROMOTED]	= "promoted to THP",
	[MW_CH_SPLIT]		= "split",
	[MW_CH_ACTIVATED]	= "activated",
	[MW_CH_DEACTIVATED]	= "deactivated",
	[MW_CH_UNEVICTABLE]	= "became unevictable",
	[MW_CH_EVICTABLE]	= "became evictable",
	[MW_CH_GEN]		= "MGLRU generation changed",
	[MW_CH_DIRTIED]		= "dirtied",
	[MW_CH_CLEANED]		= "cleaned",
	[MW_CH_STATE]		= "other state change",
};

struct differ {
	const struct mw_snapshot *a, *b;
	uint64_t page_size;
	bool pfns;		/* both show PFNs */
	bool folios;		/* both carry folio state */
	struct mw_diff *out;
	bool oom;
};

static void note(struct differ *d, enum mw_change ch, uint64_t start, uint64_t end,
		 const char *detail)
{
	struct mw_change_list *l = &d->out->changes[ch];
	struct mw_change_range *last = l->nr ? &l->ranges[l->nr - 1] : NULL;

	l->pages += (end - start) / d->page_size;
	if (last && last->end == start && !strcmp(last->detail, detail)) {
		last->end = end;
		return;
	}
	if (l->nr == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 16;
		struct mw_change_range *r = realloc(l->ranges, cap * sizeof(*r));

		if (!r) {
			d->oom = true;
			return;
		}
		l->ranges = r;
		l->cap = cap;
	}
	last = &l->ranges[l->nr++];
	last->start = start;
	last->end = end;
	snprintf(last->detail, sizeof(last->detail), "%s", detail);
}

static uint64_t pfn_at(const struct differ *d, const struct memwalk_page_run *r,
		       uint64_t addr)
{
	return r->pfn + (addr - r->start) / d->page_size;
}

/*
 * A write fault copied the page: it was shared (not exclusive, mapped more
 * than once, or the zero page), or it was a page-cache page of a private
 * file mapping; now it is an exclusive anonymous page.
 */
static bool cow_broken(const struct memwalk_page_run *a,
		       const struct memwalk_page_run *b)
{
	bool was_shared = (a->flags & MEMWALK_RUN_ZERO) ||
			  !(a->flags & MEMWALK_RUN_EXCLUSIVE) || a->mapcount >= 2;
	bool was_file = !(a->flags & MEMWALK_RUN_ANON);
	bool now_private = (b->flags & MEMWALK_RUN_EXCLUSIVE) &&
			   !(b->flags & MEMWALK_RUN_ZERO);

	return now_private && (b->flags & MEMWALK_RUN_ANON) &&
	       (was_shared || was_file);
}

/* The same page on both sides: its LRU list, generation and dirtiness. */
static void classify_same_page(struct differ *d, uint64_t s, uint64_t e,
			       const struct memwalk_page_run *a,
			       const struct memwalk_page_run *b)
{
	char detail[32];

	if (d->folios) {
		bool lru = mw_folio_test(a, MEMWALK_KPF_LRU) &&
			   mw_folio_test(b, MEMWALK_KPF_LRU);
		bool unev_a = mw_folio_test(a, MEMWALK_KPF_UNEVICTABLE);
		bool unev_b = mw_folio_test(b, MEMWALK_KPF_UNEVICTABLE);
		bool act_a = mw_folio_test(a, MEMWALK_KPF_ACTIVE);
		bool act_b = mw_folio_test(b, MEMWALK_KPF_ACTIVE);

		if (b->order < a->order)
			note(d, MW_CH_SPLIT, s, e, "folio split");
		if (lru && !unev_a && unev_b)
			note(d, MW_CH_UNEVICTABLE, s, e, "");
		else if (lru && unev_a && !unev_b)
			note(d, MW_CH_EVICTABLE, s, e, "");
		else if (lru && !act_a && act_b)
			note(d, MW_CH_ACTIVATED, s, e, "");
		else if (lru && act_a && !act_b)
			note(d, MW_CH_DEACTIVATED, s, e, "");
		if (a->lru_gen >= 0 && b->lru_gen >= 0 && a->lru_gen != b->lru_gen) {
			snprintf(detail, sizeof(detail), "gen %d->%d", a->lru_gen,
				 b->lru_gen);
			note(d, MW_CH_GEN, s, e, detail);
		}
	}
	if (!mw_run_dirty(a) && mw_run_dirty(b))
		note(d, MW_CH_DIRTIED, s, e, "");
	else if (mw_run_dirty(a) && !mw_run_dirty(b))
		note(d, MW_CH_CLEANED, s, e, "");
}

static void classify_present(struct differ *d, uint64_t s, uint64_t e,
			     const struct memwalk_page_run *a,
			     const struct memwalk_page_run *b)
{
	unsigned int la = mw_run_level(a), lb = mw_run_level(b);

	if (la == MEMWALK_LEVEL_PTE && lb == MEMWALK_LEVEL_PMD) {
		note(d, MW_CH_PROMOTED, s, e, "");
		return;
	}
	if (la == MEMWALK_LEVEL_PMD && lb == MEMWALK_LEVEL_PTE) {
		note(d, MW_CH_SPLIT, s, e, "pmd->pte");
		return;
	}
	if (d->pfns && pfn_at(d, a, s) != pfn_at(d, b, s)) {
		note(d, cow_broken(a, b) ? MW_CH_COW_BROKEN : MW_CH_PFN_CHANGED, s, e, "");
		return;
	}
	classify_same_page(d, s, e, a, b);
}

/* Pages [s, e): @a and @b are their runs (NULL: no entry) on each side. */
static void classify(struct differ *d, uint64_t s, uint64_t e,
		     const struct memwalk_page_run *a,
		     const struct memwalk_page_run *b)
{
	unsigned int sa = a ? mw_run_state(a) : 0, sb = b ? mw_run_state(b) : 0;
	char tmp1[16], tmp2[16], detail[32];

	if (!a && sb == MEMWALK_STATE_PRESENT)
		note(d, MW_CH_FAULTED_IN, s, e, "");
	else if (a && !b && sa != MEMWALK_STATE_SHMEM_SWAP)
		note(d, MW_CH_UNMAPPED, s, e, "");
	else if (sa == MEMWALK_STATE_PRESENT && mw_state_in_swap(sb))
		note(d, MW_CH_SWAPPED_OUT, s, e, "");
	else if (mw_state_in_swap(sa) && sb == MEMWALK_STATE_PRESENT)
		note(d, MW_CH_SWAPPED_IN, s, e, "");
	else if (sa != sb) {
		/* A shmem page leaving swap where it is not mapped, and back. */
		snprintf(detail, sizeof(detail), "%s->%s",
			 a ? mw_state_name(sa, tmp1) : "none",
			 b ? mw_state_name(sb, tmp2) : "none");
		note(d, MW_CH_STATE, s, e, detail);
	} else if (sa == MEMWALK_STATE_PRESENT) {
		classify_present(d, s, e, a, b);
	}
}

/* Every run of @snap in address order. */
struct sweep {
	const struct mw_snapshot *snap;
	size_t v, r;
};

static const struct memwalk_page_run *sweep_run(struct sweep *sw)
{
	while (sw->v < sw->snap->nr_vmas) {
		const struct mw_vma *vma = &sw->snap->vmas[sw->v];

		if (sw->r < vma->nr_runs)
			return &vma->runs[sw->r];
		sw->v++;
		sw->r = 0;
	}
	return NULL;
}

static void diff_pages(struct differ *d)
{
	struct sweep sa = { .snap = d->a }, sb = { .snap = d->b };
	uint64_t pos = 0;

	for (;;) {
		const struct memwalk_page_run *ra = sweep_run(&sa), *rb = sweep_run(&sb);
		const struct memwalk_page_run *a, *b;
		uint64_t end_a, end_b, seg_end, next;

		if (ra && mw_run_end(d->a, ra) <= pos) {
			sa.r++;
			continue;
		}
		if (rb && mw_run_end(d->b, rb) <= pos) {
			sb.r++;
			continue;
		}
		if (!ra && !rb)
			break;
		/* the first page at or after pos that either side maps */
		next = ra ? ra->start : UINT64_MAX;
		if (rb && rb->start < next)
			next = rb->start;
		if (next > pos)
			pos = next;
		a = ra && ra->start <= pos ? ra : NULL;
		b = rb && rb->start <= pos ? rb : NULL;
		end_a = a ? mw_run_end(d->a, a) : ra ? ra->start : UINT64_MAX;
		end_b = b ? mw_run_end(d->b, b) : rb ? rb->start : UINT64_MAX;
		seg_end = end_a < end_b ? end_a : end_b;
		classify(d, pos, seg_end, a, b);
		pos = seg_end;
	}
}

const char *mw_change_name(enum mw_change ch)
{
	return (unsigned int)ch < MW_NR_CHANGES ? change_names[ch] : "?";
}

/* ---- VMAs --------------------------------------------------------------- */

static const struct mw_vma *find_vma(const struct mw_snapshot *snap, uint64_t addr,
				     bool by_end)
{
	size_t lo = 0, hi = snap->nr_vmas;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint64_t key = by_end ? snap->vmas[mid].end : snap->vmas[mid].start;

		if (key == addr)
			return &snap->vmas[mid];
		if (key < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* What differs between two records taken for the same VMA: MW_VMA_*. */
static unsigned int vma_changes(const struct mw_vma *a, const struct mw_vma *b)
{
	unsigned int what = 0;

	if (a->start != b->start || a->end != b->end)
		what |= MW_VMA_BOUNDS;
	if (a->flags != b->flags)
		what |= MW_VMA_FLAGS;
	if (strcmp(a->name, b->name))
		what |= MW_VMA_NAME;
	if (a->pgoff != b->pgoff || a->ino != b->ino ||
	    a->dev_major != b->dev_major || a->dev_minor != b->dev_minor)
		what |= MW_VMA_BACKING;
	return what;
}

static int add_vma_change(struct mw_vma_changes *l, const struct mw_vma *a,
			  const struct mw_vma *b, unsigned int what)
{
	struct mw_vma_change *p = realloc(l->items, (l->nr + 1) * sizeof(*p));

	if (!p)
		return -ENOMEM;
	l->items = p;
	p[l->nr++] = (struct mw_vma_change){ .a = a, .b = b, .what = what };
	return 0;
}

/* A VMA of one side is the same as one of the other when a bound matches. */
static const struct mw_vma *same_vma(const struct mw_snapshot *snap,
				     const struct mw_vma *vma)
{
	const struct mw_vma *v = find_vma(snap, vma->start, false);

	return v ? v : find_vma(snap, vma->end, true);
}

static int diff_vmas(const struct mw_snapshot *a, const struct mw_snapshot *b,
		     struct mw_diff *d)
{
	const struct mw_vma *v;
	unsigned int what;
	size_t i;

	for (i = 0; i < b->nr_vmas; i++)
		if (!same_vma(a, &b->vmas[i]) &&
		    add_vma_change(&d->added, NULL, &b->vmas[i], 0))
			return -ENOMEM;
	for (i = 0; i < a->nr_vmas; i++)
		if (!same_vma(b, &a->vmas[i]) &&
		    add_vma_change(&d->removed, &a->vmas[i], NULL, 0))
			return -ENOMEM;
	for (i = 0; i < b->nr_vmas; i++) {
		v = same_vma(a, &b->vmas[i]);
		if (!v)
			continue;
		what = vma_changes(v, &b->vmas[i]);
		if (what && add_vma_change(&d->changed, v, &b->vmas[i], what))
			return -ENOMEM;
	}
	return 0;
}

/* ---- the whole ---------------------------------------------------------- */

int mw_diff(const struct mw_snapshot *a, const struct mw_snapshot *b,
	    struct mw_diff *d, struct mw_error *err)
{
	struct differ df = {
		.a = a, .b = b, .page_size = a->page_size, .out = d,
		.pfns = mw_snap_has_pfn(a) && mw_snap_has_pfn(b),
		.folios = mw_snap_has_folio(a) && mw_snap_has_folio(b),
	};

	memset(d, 0, sizeof(*d));
	d->page_size = a->page_size;
	if (a->page_size != b->page_size)
		return mw_error_set(err, -EINVAL,
				    "the snapshots have different page sizes (%" PRIu64 " and %" PRIu64 ")",
				    a->page_size, b->page_size);
	diff_pages(&df);
	if (df.oom || diff_vmas(a, b, d))
		return mw_error_set(err, -ENOMEM, "out of memory");
	return 0;
}

void mw_diff_free(struct mw_diff *d)
{
	size_t ch;

	for (ch = 0; ch < MW_NR_CHANGES; ch++)
		free(d->changes[ch].ranges);
	free(d->added.items);
	free(d->removed.items);
	free(d->changed.items);
	memset(d, 0, sizeof(*d));
}

bool mw_diff_empty(const struct mw_diff *d)
{
	size_t ch;

	for (ch = 0; ch < MW_NR_CHANGES; ch++)
		if (d->changes[ch].nr)
			return false;
	return !d->added.nr && !d->removed.nr && !d->changed.nr;
}

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
	[MW_CH_DROPPED]		= "page cache dropped",
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
	[MW_CH_WRPROTECT_COW]	= "write-protected for COW",
	[MW_CH_WRPROTECT]	= "write-protected",
	[MW_CH_WRITABLE]	= "made writable",
	[MW_CH_SHARED_FORK]	= "shared by fork",
	[MW_CH_SHARED]		= "became shared",
	[MW_CH_UNSHARED]	= "no longer shared",
	[MW_CH_MAPCOUNT]	= "mapcount changed",
	[MW_CH_REFCOUNT]	= "refcount changed",
	[MW_CH_ACCESSED]	= "accessed",
	[MW_CH_ACCESS_CLEARED]	= "accessed bit cleared",
	[MW_CH_SOFT_DIRTIED]	= "soft-dirtied",
	[MW_CH_SOFT_DIRTY_CLEARED] = "soft-dirty cleared",
	[MW_CH_SWAPCACHE_ADDED]	= "added to the swap cache",
	[MW_CH_SWAPCACHE_LEFT]	= "left the swap cache",
	[MW_CH_MLOCKED]		= "mlocked",
	[MW_CH_MUNLOCKED]	= "munlocked",
	[MW_CH_SWAP_SLOT]	= "moved to another swap slot",
	[MW_CH_OTHER]		= "other fields changed",
};

static const char *const change_keys[MW_NR_CHANGES] = {
	[MW_CH_FAULTED_IN]	= "faulted_in",
	[MW_CH_UNMAPPED]	= "unmapped",
	[MW_CH_DROPPED]		= "page_cache_dropped",
	[MW_CH_SWAPPED_OUT]	= "swapped_out",
	[MW_CH_SWAPPED_IN]	= "swapped_in",
	[MW_CH_COW_BROKEN]	= "cow_broken",
	[MW_CH_PFN_CHANGED]	= "pfn_changed",
	[MW_CH_PROMOTED]	= "promoted",
	[MW_CH_SPLIT]		= "split",
	[MW_CH_ACTIVATED]	= "activated",
	[MW_CH_DEACTIVATED]	= "deactivated",
	[MW_CH_UNEVICTABLE]	= "unevictable",
	[MW_CH_EVICTABLE]	= "evictable",
	[MW_CH_GEN]		= "lru_gen",
	[MW_CH_DIRTIED]		= "dirtied",
	[MW_CH_CLEANED]		= "cleaned",
	[MW_CH_STATE]		= "state",
	[MW_CH_WRPROTECT_COW]	= "wrprotected_cow",
	[MW_CH_WRPROTECT]	= "wrprotected",
	[MW_CH_WRITABLE]	= "writable",
	[MW_CH_SHARED_FORK]	= "shared_by_fork",
	[MW_CH_SHARED]		= "shared",
	[MW_CH_UNSHARED]	= "unshared",
	[MW_CH_MAPCOUNT]	= "mapcount",
	[MW_CH_REFCOUNT]	= "refcount",
	[MW_CH_ACCESSED]	= "accessed",
	[MW_CH_ACCESS_CLEARED]	= "access_cleared",
	[MW_CH_SOFT_DIRTIED]	= "soft_dirtied",
	[MW_CH_SOFT_DIRTY_CLEARED] = "soft_dirty_cleared",
	[MW_CH_SWAPCACHE_ADDED]	= "swapcache_added",
	[MW_CH_SWAPCACHE_LEFT]	= "swapcache_left",
	[MW_CH_MLOCKED]		= "mlocked",
	[MW_CH_MUNLOCKED]	= "munlocked",
	[MW_CH_SWAP_SLOT]	= "swap_slot",
	[MW_CH_OTHER]		= "other",
};

/*
 * Run flag bits that are no attribute: compared as state, level and slot;
 * and the young flag, which a folio takes when idle-page tracking or DAMON
 * clears its accessed bits (access_cleared) and loses when they look
 * again: the accessed bit's shadow, not a change of its own.
 */
#define RUN_NOT_ATTRS	(MEMWALK_RUN_STATE_MASK | MEMWALK_RUN_LEVEL_MASK | \
			 MEMWALK_RUN_SWAP_TYPE_MASK | MEMWALK_RUN_PFN_LIST | \
			 MEMWALK_RUN_FOLIO_YOUNG)
/* What only the struct page tells: not in entry-only snapshots. */
#define RUN_FROM_PAGE	(MEMWALK_RUN_ANON | MEMWALK_RUN_FILE | MEMWALK_RUN_SHMEM | \
			 MEMWALK_RUN_EXCLUSIVE | MEMWALK_RUN_SPECIAL | \
			 MEMWALK_RUN_FOLIO_DIRTY | MEMWALK_RUN_FOLIO_YOUNG)

struct differ {
	const struct mw_snapshot *a, *b;
	uint64_t page_size;
	uint64_t start, end;	/* where both were walked; end UINT64_MAX: top */
	bool pfns;		/* PFNs compare: both show them, one boot */
	bool folios;		/* both carry folio state */
	uint32_t run_bits;	/* run flag bits both carry */
	struct mw_diff *out;
	bool oom;
};

/* Pages [s, e) that are @a on one side and @b on the other, same state. */
struct seg {
	uint64_t s, e;
	const struct memwalk_page_run *a, *b;
	uint32_t flags_left;	/* differing run flag bits not yet reported */
	uint32_t folio_left;	/* the same of the folio flags */
};

static void note(struct differ *d, enum mw_change ch, uint64_t start, uint64_t end,
		 const char *detail)
{
	struct mw_change_list *l = &d->out->changes[ch];
	struct mw_change_range *last = l->nr ? &l->ranges[l->nr - 1] : NULL;
	size_t len;

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
	len = strnlen(detail, sizeof(last->detail) - 1);
	memcpy(last->detail, detail, len);	/* cut as snprintf would */
	last->detail[len] = '\0';
}

static void note_seg(struct differ *d, struct seg *g, enum mw_change ch,
		     const char *detail)
{
	note(d, ch, g->s, g->e, detail);
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

/*
 * Without PFNs to compare (hidden, or not asked for), a copy is certain
 * only where the page before cannot be the page after: the zero page or a
 * page-cache page then an exclusive anonymous page.  A shared anonymous
 * page that became exclusive was copied, or kept once its other mappers
 * went; only PFNs tell which.
 */
static bool cow_certain(const struct differ *d, const struct memwalk_page_run *a,
			const struct memwalk_page_run *b)
{
	return (d->run_bits & MEMWALK_RUN_ANON) &&
	       ((a->flags & MEMWALK_RUN_ZERO) || !(a->flags & MEMWALK_RUN_ANON)) &&
	       cow_broken(a, b);
}

/* Report run flag @bit, if it flipped, as @on (now set) or @off. */
static void flip_run(struct differ *d, struct seg *g, uint32_t bit,
		     enum mw_change on, enum mw_change off)
{
	if (!(g->flags_left & bit))
		return;
	note_seg(d, g, (g->b->flags & bit) ? on : off, "");
	g->flags_left &= ~bit;
}

/* The same for folio flag number @bit. */
static void flip_folio(struct differ *d, struct seg *g, unsigned int bit,
		       enum mw_change on, enum mw_change off)
{
	if (!(g->folio_left & (1U << bit)))
		return;
	note_seg(d, g, mw_folio_test(g->b, bit) ? on : off, "");
	g->folio_left &= ~(1U << bit);
}

/*
 * The write bit: lost by fork (the page is now shared, COW on the next
 * write) or by anything else that wants the next write to fault (soft-dirty
 * tracking, userfaultfd, writeback of a shared file page).
 */
static void classify_write(struct differ *d, struct seg *g)
{
	const struct memwalk_page_run *a = g->a, *b = g->b;
	bool now_shared;

	if (!(g->flags_left & MEMWALK_RUN_WRITE))
		return;
	now_shared = ((d->run_bits & MEMWALK_RUN_EXCLUSIVE) &&
		      !(b->flags & MEMWALK_RUN_EXCLUSIVE)) ||
		     (d->folios && b->mapcount > a->mapcount);
	if (b->flags & MEMWALK_RUN_WRITE)
		note_seg(d, g, MW_CH_WRITABLE, "");
	else
		note_seg(d, g, now_shared ? MW_CH_WRPROTECT_COW : MW_CH_WRPROTECT, "");
	g->flags_left &= ~MEMWALK_RUN_WRITE;
}

static void classify_sharing(struct differ *d, struct seg *g)
{
	const struct memwalk_page_run *b = g->b;

	if (!(g->flags_left & MEMWALK_RUN_EXCLUSIVE))
		return;
	if (b->flags & MEMWALK_RUN_EXCLUSIVE)
		note_seg(d, g, MW_CH_UNSHARED, "");
	else
		note_seg(d, g, (b->flags & MEMWALK_RUN_ANON) ? MW_CH_SHARED_FORK :
			 MW_CH_SHARED, "");
	g->flags_left &= ~MEMWALK_RUN_EXCLUSIVE;
}

static void classify_dirty(struct differ *d, struct seg *g)
{
	bool da = mw_run_dirty(g->a), db = mw_run_dirty(g->b);

	if (da == db)
		return;
	note_seg(d, g, db ? MW_CH_DIRTIED : MW_CH_CLEANED, "");
	g->flags_left &= ~(MEMWALK_RUN_DIRTY | MEMWALK_RUN_FOLIO_DIRTY);
	g->folio_left &= ~(1U << MEMWALK_KPF_DIRTY);
}

/* The folio's LRU list, generation, swap cache, mlock and counts. */
static void classify_folio(struct differ *d, struct seg *g)
{
	const struct memwalk_page_run *a = g->a, *b = g->b;
	bool lru = mw_folio_test(a, MEMWALK_KPF_LRU) && mw_folio_test(b, MEMWALK_KPF_LRU);
	bool unev_a = mw_folio_test(a, MEMWALK_KPF_UNEVICTABLE);
	bool unev_b = mw_folio_test(b, MEMWALK_KPF_UNEVICTABLE);
	bool act_a = mw_folio_test(a, MEMWALK_KPF_ACTIVE);
	bool act_b = mw_folio_test(b, MEMWALK_KPF_ACTIVE);
	char detail[32];

	if (b->order < a->order)
		note_seg(d, g, MW_CH_SPLIT, "folio split");
	if (lru && unev_a != unev_b) {
		note_seg(d, g, unev_b ? MW_CH_UNEVICTABLE : MW_CH_EVICTABLE, "");
		g->folio_left &= ~(1U << MEMWALK_KPF_UNEVICTABLE);
	} else if (lru && act_a != act_b) {
		note_seg(d, g, act_b ? MW_CH_ACTIVATED : MW_CH_DEACTIVATED, "");
		g->folio_left &= ~(1U << MEMWALK_KPF_ACTIVE);
	}
	if (a->lru_gen >= 0 && b->lru_gen >= 0 && a->lru_gen != b->lru_gen) {
		snprintf(detail, sizeof(detail), "gen %d->%d", a->lru_gen, b->lru_gen);
		note_seg(d, g, MW_CH_GEN, detail);
	}
	flip_folio(d, g, MEMWALK_KPF_SWAPCACHE, MW_CH_SWAPCACHE_ADDED,
		   MW_CH_SWAPCACHE_LEFT);
	flip_folio(d, g, MEMWALK_FOLIO_MLOCKED, MW_CH_MLOCKED, MW_CH_MUNLOCKED);
	if (a->mapcount != b->mapcount) {
		snprintf(detail, sizeof(detail), "mapcount %u->%u", a->mapcount,
			 b->mapcount);
		note_seg(d, g, MW_CH_MAPCOUNT, detail);
	}
	if (a->refcount != b->refcount) {
		snprintf(detail, sizeof(detail), "refcount %u->%u", a->refcount,
			 b->refcount);
		note_seg(d, g, MW_CH_REFCOUNT, detail);
	}
}

/* What differs that no kind above took: "+uffd_wp -lru order 0->9". */
static void classify_other(struct differ *d, struct seg *g, bool slot_moved)
{
	const struct memwalk_page_run *a = g->a, *b = g->b;
	char detail[64] = "", tmp[16];
	size_t used = 0;
	unsigned int bit;
	uint32_t left;		/* the bits not yet named, lowest first */

#define ADD(...) (used += snprintf(detail + used, used < sizeof(detail) ? \
				   sizeof(detail) - used : 0, __VA_ARGS__))
	for (left = g->flags_left; left; left &= left - 1) {
		bit = __builtin_ctz(left);
		ADD("%s%c%s", used ? " " : "", (b->flags >> bit) & 1 ? '+' : '-',
		    mw_bit_name(&mw_run_flag_names, bit, tmp));
	}
	for (left = g->folio_left; left; left &= left - 1) {
		bit = __builtin_ctz(left);
		ADD("%s%c%s", used ? " " : "", mw_folio_test(b, bit) ? '+' : '-',
		    mw_bit_name(&mw_folio_flag_names, bit, tmp));
	}
	if (d->folios) {
		if (b->order > a->order)
			ADD("%sorder %u->%u", used ? " " : "", a->order, b->order);
		if (a->nid != b->nid)
			ADD("%snode %u->%u", used ? " " : "", a->nid, b->nid);
		if (a->lru_gen != b->lru_gen && (a->lru_gen < 0 || b->lru_gen < 0))
			ADD("%sgen %d->%d", used ? " " : "", a->lru_gen, b->lru_gen);
	}
	if (slot_moved)
		ADD("%sentry changed", used ? " " : "");
#undef ADD
	if (used)
		note_seg(d, g, MW_CH_OTHER, detail);
}

/* The same page on both sides: every field of it. */
static void classify_same_page(struct differ *d, struct seg *g)
{
	classify_write(d, g);
	classify_sharing(d, g);
	flip_run(d, g, MEMWALK_RUN_ACCESSED, MW_CH_ACCESSED, MW_CH_ACCESS_CLEARED);
	flip_run(d, g, MEMWALK_RUN_SOFT_DIRTY, MW_CH_SOFT_DIRTIED,
		 MW_CH_SOFT_DIRTY_CLEARED);
	if (d->folios)
		classify_folio(d, g);
	classify_dirty(d, g);
	classify_other(d, g, false);
}

static void classify_present(struct differ *d, struct seg *g)
{
	unsigned int la = mw_run_level(g->a), lb = mw_run_level(g->b);

	if (la == MEMWALK_LEVEL_PTE && lb == MEMWALK_LEVEL_PMD) {
		note_seg(d, g, MW_CH_PROMOTED, "");
		return;
	}
	if (la == MEMWALK_LEVEL_PMD && lb == MEMWALK_LEVEL_PTE) {
		note_seg(d, g, MW_CH_SPLIT, "pmd->pte");
		return;
	}
	if (d->pfns && pfn_at(d, g->a, g->s) != pfn_at(d, g->b, g->s)) {
		note_seg(d, g, cow_broken(g->a, g->b) ? MW_CH_COW_BROKEN :
			 MW_CH_PFN_CHANGED, "");
		return;
	}
	if (!d->pfns && cow_certain(d, g->a, g->b)) {
		note_seg(d, g, MW_CH_COW_BROKEN, "");
		return;
	}
	classify_same_page(d, g);
}

/* Two entries of one state that is not present: swap slots, markers. */
static void classify_entry(struct differ *d, struct seg *g)
{
	unsigned int ta = mw_run_swap_type(g->a), tb = mw_run_swap_type(g->b);
	bool moved = d->pfns && pfn_at(d, g->a, g->s) != pfn_at(d, g->b, g->s);
	char detail[32] = "";

	if (mw_state_in_swap(mw_run_state(g->a)) && (moved || ta != tb)) {
		if (ta != tb)
			snprintf(detail, sizeof(detail), "swap type %u->%u", ta, tb);
		note_seg(d, g, MW_CH_SWAP_SLOT, detail);
		moved = false;
	} else if (ta != tb) {
		moved = true;
	}
	flip_run(d, g, MEMWALK_RUN_SOFT_DIRTY, MW_CH_SOFT_DIRTIED,
		 MW_CH_SOFT_DIRTY_CLEARED);
	if (d->folios)
		classify_folio(d, g);
	classify_other(d, g, moved);
}

/* Whether a VMA of @snap holds @addr. */
static bool mapped_at(const struct mw_snapshot *snap, uint64_t addr)
{
	size_t lo = 0, hi = snap->nr_vmas;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (snap->vmas[mid].end <= addr)
			lo = mid + 1;
		else if (snap->vmas[mid].start > addr)
			hi = mid;
		else
			return true;
	}
	return false;
}

/*
 * A page-cache page whose entry went while its VMA stayed: reclaim
 * dropped it (or madvise, or a truncation).  Anonymous pages go to swap
 * instead; without the struct page (entry-only) it is just unmapped.
 */
static bool cache_dropped(const struct differ *d, uint64_t addr,
			  const struct memwalk_page_run *a)
{
	return mw_run_state(a) == MEMWALK_STATE_PRESENT &&
	       (d->run_bits & a->flags & MEMWALK_RUN_FILE) &&
	       !(a->flags & MEMWALK_RUN_ANON) && mapped_at(d->b, addr);
}

/*
 * Whether two runs of one state say the same of page @s in every field
 * compared: then none of the kinds below can apply.  Most pages of a
 * process watched do not change between two refreshes; this keeps them
 * from going through every classification (and its detail strings).
 */
static bool alike(const struct differ *d, uint64_t s,
		  const struct memwalk_page_run *a, const struct memwalk_page_run *b)
{
	if (a->flags != b->flags || a->folio_flags != b->folio_flags)
		return false;
	if (d->folios && (a->mapcount != b->mapcount || a->refcount != b->refcount ||
			  a->order != b->order || a->nid != b->nid ||
			  a->lru_gen != b->lru_gen))
		return false;
	return !d->pfns || pfn_at(d, a, s) == pfn_at(d, b, s);
}

/* Pages [s, e): @a and @b are their runs (NULL: no entry) on each side. */
static void classify(struct differ *d, uint64_t s, uint64_t e,
		     const struct memwalk_page_run *a,
		     const struct memwalk_page_run *b)
{
	unsigned int sa = a ? mw_run_state(a) : 0, sb = b ? mw_run_state(b) : 0;
	char tmp1[16], tmp2[16], detail[32];
	struct seg g = { .s = s, .e = e, .a = a, .b = b };

	if (s < d->start)
		s = g.s = d->start;
	if (e > d->end)
		e = g.e = d->end;
	if (s >= e)
		return;		/* outside what both walked */
	if (!a && sb == MEMWALK_STATE_PRESENT)
		note(d, MW_CH_FAULTED_IN, s, e, "");
	else if (a && !b && sa != MEMWALK_STATE_SHMEM_SWAP)
		note(d, cache_dropped(d, s, a) ? MW_CH_DROPPED : MW_CH_UNMAPPED, s, e, "");
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
	} else if (a && b && !alike(d, s, a, b)) {
		g.flags_left = (a->flags ^ b->flags) & d->run_bits & ~RUN_NOT_ATTRS;
		g.folio_left = d->folios ? a->folio_flags ^ b->folio_flags : 0;
		if (sa == MEMWALK_STATE_PRESENT)
			classify_present(d, &g);
		else
			classify_entry(d, &g);
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
		/* a run that ends here is done: no turn of the loop to skip it */
		if (a && end_a == seg_end)
			sa.r++;
		if (b && end_b == seg_end)
			sb.r++;
	}
}

const char *mw_change_name(enum mw_change ch)
{
	return (unsigned int)ch < MW_NR_CHANGES ? change_names[ch] : "?";
}

const char *mw_change_key(enum mw_change ch)
{
	return (unsigned int)ch < MW_NR_CHANGES ? change_keys[ch] : "?";
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

/* Whether @vma lies at least partly where both snapshots were walked. */
static bool in_window(const struct differ *df, const struct mw_vma *vma)
{
	return vma->end > df->start && vma->start < df->end;
}

static int diff_vmas(const struct differ *df, struct mw_diff *d)
{
	const struct mw_snapshot *a = df->a, *b = df->b;
	const struct mw_vma *v;
	unsigned int what;
	size_t i;

	for (i = 0; i < b->nr_vmas; i++)
		if (in_window(df, &b->vmas[i]) && !same_vma(a, &b->vmas[i]) &&
		    add_vma_change(&d->added, NULL, &b->vmas[i], 0))
			return -ENOMEM;
	for (i = 0; i < a->nr_vmas; i++)
		if (in_window(df, &a->vmas[i]) && !same_vma(b, &a->vmas[i]) &&
		    add_vma_change(&d->removed, &a->vmas[i], NULL, 0))
			return -ENOMEM;
	for (i = 0; i < b->nr_vmas; i++) {
		if (!in_window(df, &b->vmas[i]))
			continue;
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

static uint64_t range_end(const struct mw_snapshot *snap)
{
	return snap->range_end ? snap->range_end : UINT64_MAX;
}

int mw_diff(const struct mw_snapshot *a, const struct mw_snapshot *b,
	    struct mw_diff *d, struct mw_error *err)
{
	unsigned int mismatches = mw_diff_mismatches(a, b);
	bool entry_only = (a->flags | b->flags) & MEMWALK_SNAP_ENTRY_ONLY;
	struct differ df = {
		.a = a, .b = b, .page_size = a->page_size, .out = d,
		.start = a->range_start > b->range_start ? a->range_start : b->range_start,
		.end = range_end(a) < range_end(b) ? range_end(a) : range_end(b),
		.pfns = mw_snap_has_pfn(a) && mw_snap_has_pfn(b) &&
			!(mismatches & MW_MISMATCH_MACHINE),
		.folios = mw_snap_has_folio(a) && mw_snap_has_folio(b),
		.run_bits = entry_only ? ~(uint32_t)RUN_FROM_PAGE : ~0U,
	};

	/* A side that did not read the accessed bits has none to compare. */
	if ((a->flags | b->flags) & MEMWALK_SNAP_NO_ACCESSED)
		df.run_bits &= ~(uint32_t)MEMWALK_RUN_ACCESSED;

	memset(d, 0, sizeof(*d));
	d->page_size = a->page_size;
	d->start = df.start;
	d->end = df.end == UINT64_MAX ? 0 : df.end;
	d->mismatches = mismatches;
	if (!df.pfns && (mw_snap_has_pfn(a) || mw_snap_has_pfn(b)))
		d->not_compared |= MW_NOT_COMPARED_PFN;
	if (!df.folios && (mw_snap_has_folio(a) || mw_snap_has_folio(b)))
		d->not_compared |= MW_NOT_COMPARED_FOLIO;
	if (entry_only && !(a->flags & b->flags & MEMWALK_SNAP_ENTRY_ONLY))
		d->not_compared |= MW_NOT_COMPARED_PAGE;
	if (a->page_size != b->page_size)
		return mw_error_set(err, -EINVAL,
				    "the snapshots have different page sizes (%" PRIu64 " and %" PRIu64 ")",
				    a->page_size, b->page_size);
	if (df.start >= df.end)
		return 0;	/* no page walked on both sides */
	diff_pages(&df);
	if (df.oom || diff_vmas(&df, d))
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

// SPDX-License-Identifier: GPL-2.0
/*
 * memwalk-client diff: what changed between two snapshots of a process,
 * page by page, summarized by kind of change with page counts and address
 * ranges; and which VMAs were added, removed or changed.
 *
 * Both snapshots' runs are swept together in address order; between two
 * consecutive run boundaries (of either side) every page is alike on both
 * sides, so each such segment is classified once (classify()).  Segments
 * of one kind that touch are reported as one range.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "memwalk-client.h"
#include "names.h"
#include "snapjson.h"
#include "summary.h"

enum change {
	CH_FAULTED_IN,
	CH_UNMAPPED,
	CH_SWAPPED_OUT,
	CH_SWAPPED_IN,
	CH_COW_BROKEN,
	CH_PFN_CHANGED,
	CH_PROMOTED,
	CH_SPLIT,
	CH_ACTIVATED,
	CH_DEACTIVATED,
	CH_UNEVICTABLE,
	CH_EVICTABLE,
	CH_GEN,
	CH_DIRTIED,
	CH_CLEANED,
	CH_STATE,
	NR_CHANGES
};

static const char *const change_names[NR_CHANGES] = {
	[CH_FAULTED_IN]		= "faulted in",
	[CH_UNMAPPED]		= "unmapped",
	[CH_SWAPPED_OUT]	= "swapped out",
	[CH_SWAPPED_IN]		= "swapped in",
	[CH_COW_BROKEN]		= "COW broken",
	[CH_PFN_CHANGED]	= "moved to another PFN",
	[CH_PROMOTED]		= "promoted to THP",
	[CH_SPLIT]		= "split",
	[CH_ACTIVATED]		= "activated",
	[CH_DEACTIVATED]	= "deactivated",
	[CH_UNEVICTABLE]	= "became unevictable",
	[CH_EVICTABLE]		= "became evictable",
	[CH_GEN]		= "MGLRU generation changed",
	[CH_DIRTIED]		= "dirtied",
	[CH_CLEANED]		= "cleaned",
	[CH_STATE]		= "other state change",
};

struct range {
	uint64_t start, end;
	char detail[32];
};

struct change_list {
	struct range *ranges;
	size_t nr, cap;
	uint64_t pages;
};

struct differ {
	const struct mw_snapshot *a, *b;
	uint64_t page_size;
	bool pfns;		/* both show PFNs */
	bool folios;		/* both carry folio state */
	struct change_list changes[NR_CHANGES];
	bool oom;
};

static void note(struct differ *d, enum change ch, uint64_t start, uint64_t end,
		 const char *detail)
{
	struct change_list *l = &d->changes[ch];
	struct range *last = l->nr ? &l->ranges[l->nr - 1] : NULL;

	l->pages += (end - start) / d->page_size;
	if (last && last->end == start && !strcmp(last->detail, detail)) {
		last->end = end;
		return;
	}
	if (l->nr == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 16;
		struct range *r = realloc(l->ranges, cap * sizeof(*r));

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
			note(d, CH_SPLIT, s, e, "folio split");
		if (lru && !unev_a && unev_b)
			note(d, CH_UNEVICTABLE, s, e, "");
		else if (lru && unev_a && !unev_b)
			note(d, CH_EVICTABLE, s, e, "");
		else if (lru && !act_a && act_b)
			note(d, CH_ACTIVATED, s, e, "");
		else if (lru && act_a && !act_b)
			note(d, CH_DEACTIVATED, s, e, "");
		if (a->lru_gen >= 0 && b->lru_gen >= 0 && a->lru_gen != b->lru_gen) {
			snprintf(detail, sizeof(detail), "gen %d->%d", a->lru_gen,
				 b->lru_gen);
			note(d, CH_GEN, s, e, detail);
		}
	}
	if (!mw_run_dirty(a) && mw_run_dirty(b))
		note(d, CH_DIRTIED, s, e, "");
	else if (mw_run_dirty(a) && !mw_run_dirty(b))
		note(d, CH_CLEANED, s, e, "");
}

static void classify_present(struct differ *d, uint64_t s, uint64_t e,
			     const struct memwalk_page_run *a,
			     const struct memwalk_page_run *b)
{
	unsigned int la = mw_run_level(a), lb = mw_run_level(b);

	if (la == MEMWALK_LEVEL_PTE && lb == MEMWALK_LEVEL_PMD) {
		note(d, CH_PROMOTED, s, e, "");
		return;
	}
	if (la == MEMWALK_LEVEL_PMD && lb == MEMWALK_LEVEL_PTE) {
		note(d, CH_SPLIT, s, e, "pmd->pte");
		return;
	}
	if (d->pfns && pfn_at(d, a, s) != pfn_at(d, b, s)) {
		note(d, cow_broken(a, b) ? CH_COW_BROKEN : CH_PFN_CHANGED, s, e, "");
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
		note(d, CH_FAULTED_IN, s, e, "");
	else if (a && !b && sa != MEMWALK_STATE_SHMEM_SWAP)
		note(d, CH_UNMAPPED, s, e, "");
	else if (sa == MEMWALK_STATE_PRESENT && mw_state_in_swap(sb))
		note(d, CH_SWAPPED_OUT, s, e, "");
	else if (mw_state_in_swap(sa) && sb == MEMWALK_STATE_PRESENT)
		note(d, CH_SWAPPED_IN, s, e, "");
	else if (sa != sb) {
		/* A shmem page leaving swap where it is not mapped, and back. */
		snprintf(detail, sizeof(detail), "%s->%s",
			 a ? mw_state_name(sa, tmp1) : "none",
			 b ? mw_state_name(sb, tmp2) : "none");
		note(d, CH_STATE, s, e, detail);
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

static void vma_line(const struct mw_vma *vma, const char *suffix)
{
	char mode[5];

	mw_vma_mode(vma, mode);
	printf("  %016" PRIx64 "-%016" PRIx64 " %s %s%s\n", vma->start, vma->end,
	       mode, mw_vma_label(vma), suffix);
}

/* What differs between two VMAs taken for the same one; "" if nothing. */
static void vma_changes(const struct mw_vma *a, const struct mw_vma *b,
			char *buf, size_t len)
{
	uint64_t gained = b->flags & ~a->flags, lost = a->flags & ~b->flags;
	size_t used = 0;
	unsigned int bit;
	char tmp[16];

#define ADD(...) (used += snprintf(buf + used, used < len ? len - used : 0, __VA_ARGS__))
	buf[0] = '\0';
	if (a->start != b->start || a->end != b->end)
		ADD("; was %016" PRIx64 "-%016" PRIx64, a->start, a->end);
	if (gained | lost) {
		ADD("; flags");
		for (bit = 0; bit < 64; bit++) {
			if (gained & (1ULL << bit))
				ADD(" +%s", mw_bit_name(&mw_vma_flag_names, bit, tmp));
			if (lost & (1ULL << bit))
				ADD(" -%s", mw_bit_name(&mw_vma_flag_names, bit, tmp));
		}
	}
	if (strcmp(a->name, b->name))
		ADD("; was named %s", mw_vma_label(a));
	if (a->pgoff != b->pgoff || a->ino != b->ino ||
	    a->dev_major != b->dev_major || a->dev_minor != b->dev_minor)
		ADD("; backing file or offset changed");
#undef ADD
}

static const char *plural(uint64_t n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

/* Returns whether anything changed. */
static bool diff_vmas(const struct mw_snapshot *a, const struct mw_snapshot *b)
{
	size_t i, added = 0, removed = 0, changed = 0;
	char what[512];
	int pass;

	/* Counting pass, then printing pass: each section says how many first. */
	for (pass = 0; pass < 2; pass++) {
		if (pass && added)
			printf("VMAs added: %zu\n", added);
		for (i = 0; i < b->nr_vmas; i++) {
			const struct mw_vma *vb = &b->vmas[i];

			if (find_vma(a, vb->start, false) || find_vma(a, vb->end, true))
				continue;
			if (pass)
				vma_line(vb, "");
			else
				added++;
		}
		if (pass && removed)
			printf("VMAs removed: %zu\n", removed);
		for (i = 0; i < a->nr_vmas; i++) {
			const struct mw_vma *va = &a->vmas[i];

			if (find_vma(b, va->start, false) || find_vma(b, va->end, true))
				continue;
			if (pass)
				vma_line(va, "");
			else
				removed++;
		}
		if (pass && changed)
			printf("VMAs changed: %zu\n", changed);
		for (i = 0; i < b->nr_vmas; i++) {
			const struct mw_vma *vb = &b->vmas[i];
			const struct mw_vma *va = find_vma(a, vb->start, false);

			if (!va)
				va = find_vma(a, vb->end, true);
			if (!va)
				continue;
			vma_changes(va, vb, what, sizeof(what));
			if (!what[0])
				continue;
			what[0] = ':';	/* "; was ..." -> ": was ..." */
			if (pass)
				vma_line(vb, what);
			else
				changed++;
		}
	}
	return added || removed || changed;
}

static void print_side(const char *label, const struct mw_snapshot *snap)
{
	char when[32];

	mw_format_time(snap->time_ns, when, sizeof(when));
	printf("%s: pid %d (%s) at %s\n", label, snap->pid, snap->comm, when);
}

static int diff_snapshots(const struct mw_snapshot *a, const struct mw_snapshot *b)
{
	struct differ d = {
		.a = a, .b = b, .page_size = a->page_size,
		.pfns = mw_snap_has_pfn(a) && mw_snap_has_pfn(b),
		.folios = mw_snap_has_folio(a) && mw_snap_has_folio(b),
	};
	bool any;
	size_t ch, i;

	if (a->page_size != b->page_size) {
		mw_err("diff: the snapshots have different page sizes (%" PRIu64 " and %" PRIu64 ")",
		       a->page_size, b->page_size);
		return MW_EXIT_FAILURE;
	}
	diff_pages(&d);
	if (d.oom) {
		mw_err("diff: out of memory");
		return MW_EXIT_FAILURE;
	}
	print_side("A", a);
	print_side("B", b);
	any = diff_vmas(a, b);
	for (ch = 0; ch < NR_CHANGES; ch++) {
		const struct change_list *l = &d.changes[ch];

		if (!l->nr)
			continue;
		any = true;
		printf("%s: %" PRIu64 " %s in %zu %s\n", change_names[ch], l->pages,
		       plural(l->pages, "page", "pages"), l->nr,
		       plural(l->nr, "range", "ranges"));
		for (i = 0; i < l->nr; i++) {
			const struct range *r = &l->ranges[i];

			printf("  %016" PRIx64 "-%016" PRIx64 " %" PRIu64 "%s%s\n",
			       r->start, r->end, (r->end - r->start) / d.page_size,
			       r->detail[0] ? " " : "", r->detail);
		}
	}
	if (!any)
		printf("no changes\n");
	for (ch = 0; ch < NR_CHANGES; ch++)
		free(d.changes[ch].ranges);
	return MW_EXIT_OK;
}

static int diff_run(const struct mw_command *cmd, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct mw_snapshot *a = NULL, *b = NULL;
	struct mw_error err;
	int c, ret;

	opterr = 0;
	optind = 0;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		if (c != 'h') {
			mw_bad_option(cmd, argv);
			return MW_EXIT_FAILURE;
		}
		printf("Usage: %s %s %s\n\n"
		       "Show what changed between two snapshots of a process (saved with\n"
		       "--save or -J), page by page and VMA by VMA.\n\n"
		       "Options:\n"
		       "  -h, --help    show this help and exit\n\n"
		       "See %s(1).\n", MW_PROG, cmd->name, cmd->args, MW_PROG);
		return MW_EXIT_OK;
	}
	ret = mw_check_args(cmd, argc, argv, 2);
	if (ret)
		return ret;
	if (mw_snapshot_load(argv[optind], &a, &err) ||
	    mw_snapshot_load(argv[optind + 1], &b, &err))
		ret = mw_report(&err);
	else
		ret = diff_snapshots(a, b);
	mw_snapshot_free(a);
	mw_snapshot_free(b);
	return ret;
}

MW_COMMAND(diff,
	.name = "diff",
	.args = "A.json B.json",
	.help = "show what changed between two saved snapshots",
	.run = diff_run);

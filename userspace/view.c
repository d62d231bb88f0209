// SPDX-License-Identifier: GPL-2.0
/*
 * memwalk-client: the views of a snapshot, the pmap -X-like table (one row
 * per VMA, then the totals) and --pages (each VMA with its page runs as
 * children), as libsmartcols tables (table.h); -J alone hands the whole
 * snapshot over to lib/snapjson.c (schema 1).
 *
 * A count the snapshot cannot tell as smaps would (summary.h: Pss without
 * folio state, say) is shown as '-' (null in JSON), never as a number.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "memwalk-client.h"
#include "names.h"
#include "print.h"
#include "snapjson.h"
#include "summary.h"
#include "view.h"

#define CELL_MAX	4200	/* a path (PATH_MAX) and then some */

enum col_id {
	/* the table */
	COL_ADDRESS, COL_END, COL_KB, COL_MODE, COL_OFFSET, COL_DEVICE,
	COL_INODE, COL_FLAGS, COL_RUNS, COL_MAPPING,
	/* --pages */
	COL_RANGE, COL_PAGES, COL_STATE, COL_LEVEL, COL_BITS, COL_TYPE, COL_PFN,
	COL_MAPCOUNT, COL_REFCOUNT, COL_NODE, COL_ORDER, COL_GEN, COL_FOLIO,
};

#define KB(n, f, text)	{ n, 1, MW_COL_RIGHT | MW_COL_SIZE, COL_KB, #f, text }
#define NUM		(MW_COL_RIGHT | MW_COL_NUMBER)

static const struct mw_col table_columns[] = {
	{ "address", 16, 0, COL_ADDRESS, NULL, "start of the VMA (hex)" },
	{ "end", 16, 0, COL_END, NULL, "end of the VMA (hex, exclusive)" },
	KB("kbytes", size, "size of the VMA (smaps Size)"),
	KB("rss", rss, "resident (smaps Rss)"),
	KB("pss", pss, "proportional share (smaps Pss)"),
	KB("dirty", dirty, "smaps Shared_Dirty + Private_Dirty"),
	KB("swap", swap, "in swap (smaps Swap; see the man page for shmem)"),
	KB("thp", thp, "mapped by PMDs (AnonHugePages + ShmemPmdMapped + FilePmdMapped)"),
	KB("hugetlb", hugetlb, "smaps Shared_Hugetlb + Private_Hugetlb"),
	KB("anon", anonymous, "anonymous (smaps Anonymous)"),
	KB("locked", locked, "Pss of mlocked VMAs (smaps Locked)"),
	KB("referenced", referenced, "smaps Referenced"),
	KB("shared_clean", shared_clean, "smaps Shared_Clean"),
	KB("shared_dirty", shared_dirty, "smaps Shared_Dirty"),
	KB("private_clean", private_clean, "smaps Private_Clean"),
	KB("private_dirty", private_dirty, "smaps Private_Dirty"),
	KB("lazyfree", lazyfree, "smaps LazyFree"),
	KB("ksm", ksm, "smaps KSM"),
	KB("anon_thp", anon_thp, "smaps AnonHugePages"),
	KB("shmem_thp", shmem_thp, "smaps ShmemPmdMapped"),
	KB("file_thp", file_thp, "smaps FilePmdMapped"),
	KB("shared_hugetlb", shared_hugetlb, "smaps Shared_Hugetlb"),
	KB("private_hugetlb", private_hugetlb, "smaps Private_Hugetlb"),
	{ "mode", 4, 0, COL_MODE, NULL, "permissions, as in /proc/PID/maps" },
	{ "offset", 1, 0, COL_OFFSET, NULL, "offset in the file (hex bytes)" },
	{ "device", 1, 0, COL_DEVICE, NULL, "device of the file (major:minor, hex)" },
	{ "inode", 1, NUM, COL_INODE, NULL, "inode of the file" },
	{ "flags", 0.2, MW_COL_TRUNC, COL_FLAGS, NULL, "VMA flags, by name" },
	{ "runs", 1, NUM, COL_RUNS, NULL, "page runs reported" },
	{ "mapping", 0.3, MW_COL_TRUNC, COL_MAPPING, NULL,
	  "file or [heap], [stack], [ anon ], ..." },
};

static const struct mw_col page_columns[] = {
	{ "range", 33, MW_COL_TREE, COL_RANGE, NULL,
	  "virtual addresses START-END (hex): the VMA's, its runs' under it" },
	{ "mode", 4, 0, COL_MODE, NULL, "permissions of the VMA, as in /proc/PID/maps" },
	{ "pages", 1, NUM, COL_PAGES, NULL, "base pages in the VMA or run" },
	{ "state", 1, 0, COL_STATE, NULL,
	  "present, swap, migration, device, hwpoison, marker, shmem-swap" },
	{ "level", 1, 0, COL_LEVEL, NULL, "pte, pmd or pud" },
	{ "bits", 1, 0, COL_BITS, NULL,
	  "entry bits: W U D A SD(soft-dirty) WP(uffd-wp) NX G" },
	{ "type", 1, 0, COL_TYPE, NULL, "zero, anon, file, shmem, excl, special, mwrite" },
	{ "pfn", 1, 0, COL_PFN, NULL, "first PFN (hex), or swap TYPE:OFFSET (hex)" },
	{ "mapcount", 1, NUM, COL_MAPCOUNT, NULL, "mapcount of each page" },
	{ "refcount", 1, NUM, COL_REFCOUNT, NULL, "refcount of the folio" },
	{ "node", 1, NUM, COL_NODE, NULL, "NUMA node" },
	{ "order", 1, NUM, COL_ORDER, NULL, "folio order" },
	{ "gen", 1, MW_COL_RIGHT, COL_GEN, NULL, "MGLRU generation age (0 youngest)" },
	{ "flags", 0.3, MW_COL_TRUNC, COL_FOLIO, NULL, "folio flags, by name" },
	{ "mapping", 0.2, MW_COL_TRUNC, COL_MAPPING, NULL,
	  "the VMA's file or [heap], [stack], [ anon ], ..." },
};

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* As pmap -X: Pss next to Rss. */
#define DEFAULT_TABLE "address,kbytes,rss,pss,dirty,swap,thp,hugetlb,anon,locked,mode,mapping"
#define ONE_RUN "range,pages,state,level,bits,type,pfn,mapcount,refcount,node,order,gen,flags"

bool mw_view_option(struct mw_view *view, int c, const char *arg)
{
	if (c == MW_OPT_PAGES) {
		view->pages = true;
		return true;
	}
	return mw_table_option(&view->opts, c, arg);
}

void mw_view_help_options(FILE *out, bool raw_short)
{
	fprintf(out,
		"      --pages            each VMA with its page runs under it\n"
		"  -J, --json             the whole snapshot as one JSON document; with -o,\n"
		"                         --output-all or --sort, the table's lines\n");
	mw_table_help_options(out, raw_short);
}

bool mw_view_is_document(const struct mw_view *view)
{
	const struct mw_table_opts *o = &view->opts;

	return o->json && !o->output && !o->output_all && !o->sort;
}

bool mw_view_is_table(const struct mw_view *view)
{
	return !view->pages && !mw_view_is_document(view);
}

/* The totals' label needs a column that is not a count: the first. */
static bool label_column(struct mw_table *t)
{
	size_t i;

	for (i = 0; i < t->nr_cols; i++)
		if (t->cols[i] >= 0 && !(mw_table_col(t, i)->flags & MW_COL_SIZE))
			return true;
	if (t->nr_cols == MW_MAX_COLUMNS)
		return false;
	memmove(t->cols + 1, t->cols, t->nr_cols * sizeof(t->cols[0]));
	t->cols[0] = 0;		/* address */
	t->nr_cols++;
	if (t->sort >= 0)
		t->sort++;
	return true;
}

bool mw_view_setup(struct mw_view *view, const char *cmd)
{
	struct mw_table *t = &view->table;

	if (mw_view_is_document(view))
		return true;
	if (view->pages)
		return mw_table_columns(t, page_columns, N(page_columns), NULL,
					&view->opts, cmd, "--pages");
	if (!mw_table_columns(t, table_columns, N(table_columns), DEFAULT_TABLE,
			      &view->opts, cmd, "the table"))
		return false;
	if (!view->opts.noheadings && !view->opts.json && !label_column(t)) {
		mw_err("%s: more than %d columns", cmd, MW_MAX_COLUMNS);
		return false;
	}
	return true;
}

void mw_view_help_columns(FILE *out)
{
	mw_table_help_columns(out, "Table columns", table_columns, N(table_columns),
			      DEFAULT_TABLE);
	mw_table_help_columns(out, "--pages columns", page_columns, N(page_columns),
			      NULL);
}

/*
 * The table's columns resolved once for all rows: for each size column its
 * field of struct mw_summary, NULL where the snapshot cannot tell it as
 * smaps would.
 */
struct table_cols {
	const struct mw_summary_field *field[MW_MAX_COLUMNS];
	bool exact[MW_MAX_COLUMNS];
};

static void resolve_columns(const struct mw_table *t, const struct mw_snapshot *snap,
			    struct table_cols *tc)
{
	size_t i;

	for (i = 0; i < t->nr_cols; i++) {
		const struct mw_col *c = mw_table_col(t, i);

		tc->field[i] = c->id == COL_KB ? mw_summary_field(c->key) : NULL;
		tc->exact[i] = tc->field[i] && mw_summary_exact(snap, tc->field[i]);
	}
}

/* The cells of the table row of @vma, or of the totals row when NULL. */
static void table_row(struct mw_table *t, struct mw_line *ln,
		      const struct table_cols *tc, const struct mw_snapshot *snap,
		      const struct mw_vma *vma, const struct mw_summary *sum)
{
	static char buf[CELL_MAX];
	bool labelled = false;
	size_t i;

	for (i = 0; i < t->nr_cols; i++) {
		int id = mw_table_col(t, i)->id;

		if (id == COL_KB) {
			if (tc->exact[i])
				mw_table_kb(t, ln, i, mw_summary_get(sum, tc->field[i]));
			else
				mw_table_unknown(t, ln, i);
			continue;
		}
		if (!vma) {
			if (!labelled && t->cols[i] >= 0)
				mw_table_text(t, ln, i, "total");
			labelled = true;
			continue;
		}
		switch (id) {
		case COL_ADDRESS:
			mw_format_hex(vma->start, 16, buf);
			break;
		case COL_END:
			mw_format_hex(vma->end, 16, buf);
			break;
		case COL_MODE:
			mw_vma_mode(vma, buf);
			break;
		case COL_OFFSET:
			mw_format_hex(vma->pgoff * snap->page_size, 8, buf);
			break;
		case COL_DEVICE:
			snprintf(buf, sizeof(buf), "%02x:%02x", vma->dev_major, vma->dev_minor);
			break;
		case COL_INODE:
			mw_table_number(t, ln, i, vma->ino);
			continue;
		case COL_FLAGS:
			mw_bits_text(&mw_vma_flag_names, vma->flags, ",", buf, sizeof(buf));
			break;
		case COL_RUNS:
			mw_table_number(t, ln, i, vma->nr_runs);
			continue;
		case COL_MAPPING:
			mw_table_text(t, ln, i, mw_vma_label(vma));
			continue;
		default:
			buf[0] = '\0';
			break;
		}
		mw_table_text(t, ln, i, buf);
	}
}

/* START-END in hex, 16 digits each, to @buf (of 40 bytes at least). */
static void range_text(uint64_t start, uint64_t end, char *buf)
{
	size_t n = mw_format_hex(start, 16, buf);

	buf[n++] = '-';
	mw_format_hex(end, 16, buf + n);
}

/* Cell @i of a run's line; false: it has no value. */
static bool run_cell(struct mw_table *t, struct mw_line *ln, size_t i,
		     const struct mw_snapshot *snap, const struct memwalk_page_run *r)
{
	static char buf[CELL_MAX];
	bool folio = mw_snap_has_folio(snap);
	char tmp[16];

	int id = mw_table_col(t, i)->id;

	switch (id) {
	case COL_RANGE:
		range_text(r->start, mw_run_end(snap, r), buf);
		break;
	case COL_PAGES:
		mw_table_number(t, ln, i, r->nr_pages);
		return true;
	case COL_STATE:
		mw_table_text(t, ln, i, mw_state_name(mw_run_state(r), tmp));
		return true;
	case COL_LEVEL:
		mw_table_text(t, ln, i, mw_level_name(mw_run_level(r), tmp));
		return true;
	case COL_BITS:
		mw_bits_text(&mw_run_bit_letters, r->flags, ",", buf, sizeof(buf));
		break;
	case COL_TYPE:
		mw_bits_text(&mw_run_type_names, r->flags, ",", buf, sizeof(buf));
		break;
	case COL_PFN:
		if (!mw_snap_has_pfn(snap) || mw_run_state(r) == MEMWALK_STATE_MARKER)
			return false;
		if (mw_state_in_swap(mw_run_state(r)))
			snprintf(buf, sizeof(buf), "%u:%" PRIx64, mw_run_swap_type(r),
				 (uint64_t)r->pfn);
		else
			snprintf(buf, sizeof(buf), "%" PRIx64, (uint64_t)r->pfn);
		break;
	case COL_MAPCOUNT:
	case COL_REFCOUNT:
	case COL_NODE:
	case COL_ORDER:
		if (!folio)
			return false;
		mw_table_number(t, ln, i, id == COL_MAPCOUNT ? r->mapcount :
				id == COL_REFCOUNT ? r->refcount :
				id == COL_NODE ? r->nid : r->order);
		return true;
	case COL_GEN:
		if (!folio || r->lru_gen < 0)
			return false;
		snprintf(buf, sizeof(buf), "%d", r->lru_gen);
		break;
	case COL_FOLIO:
		if (!folio)
			return false;
		mw_bits_text(&mw_folio_flag_names, r->folio_flags, ",", buf, sizeof(buf));
		break;
	default:	/* the VMA's own: none for a run */
		return true;
	}
	mw_table_text(t, ln, i, buf);
	return true;
}

static void run_row(struct mw_table *t, struct mw_line *ln,
		    const struct mw_snapshot *snap, const struct memwalk_page_run *r)
{
	size_t i;

	for (i = 0; i < t->nr_cols; i++)
		if (!run_cell(t, ln, i, snap, r))
			mw_table_unknown(t, ln, i);
}

/* A VMA's line in --pages: its range, mode, size in pages and mapping. */
static void vma_row(struct mw_table *t, struct mw_line *ln,
		    const struct mw_snapshot *snap, const struct mw_vma *vma)
{
	char buf[24];
	size_t i;

	for (i = 0; i < t->nr_cols; i++) {
		switch (mw_table_col(t, i)->id) {
		case COL_RANGE: {
			char range[40];

			range_text(vma->start, vma->end, range);
			mw_table_text(t, ln, i, range);
			break;
		}
		case COL_MODE:
			mw_vma_mode(vma, buf);
			mw_table_text(t, ln, i, buf);
			break;
		case COL_PAGES:
			mw_table_number(t, ln, i, (vma->end - vma->start) / snap->page_size);
			break;
		case COL_MAPPING:
			mw_table_text(t, ln, i, mw_vma_label(vma));
			break;
		default:
			break;
		}
	}
}

static void print_cost(const struct mw_snapshot *snap)
{
	const struct mw_cost *c = &snap->cost;

	printf("cost to pid %d: %" PRIu64 " lock drops, longest mmap_lock hold %" PRIu64
	       ".%" PRIu64 " us, total %" PRIu64 ".%" PRIu64 " us, %" PRIu64 " calls\n",
	       snap->pid, c->lock_drops, c->max_lock_ns / 1000,
	       c->max_lock_ns % 1000 / 100, c->total_lock_ns / 1000,
	       c->total_lock_ns % 1000 / 100, c->calls);
}

/* The rows, and the totals (the sum of the rows) when @totals. */
static bool fill_table(struct mw_table *t, const struct mw_snapshot *snap, bool totals)
{
	struct mw_summary sum, total;
	struct table_cols tc;
	struct mw_line *ln;
	size_t v;

	resolve_columns(t, snap, &tc);
	memset(&total, 0, sizeof(total));
	for (v = 0; v < snap->nr_vmas; v++) {
		ln = mw_table_line(t, NULL);
		if (!ln)
			return false;
		mw_summarize_vma(snap, &snap->vmas[v], &sum);
		mw_summary_add(&total, &sum);
		table_row(t, ln, &tc, snap, &snap->vmas[v], &sum);
	}
	if (!totals)
		return true;
	ln = mw_table_footer(t);
	if (!ln)
		return false;
	table_row(t, ln, &tc, snap, NULL, &total);
	return true;
}

static bool fill_pages(struct mw_table *t, const struct mw_snapshot *snap)
{
	struct mw_line *parent, *ln;
	size_t v, r;

	for (v = 0; v < snap->nr_vmas; v++) {
		const struct mw_vma *vma = &snap->vmas[v];

		parent = mw_table_line(t, NULL);
		if (!parent)
			return false;
		vma_row(t, parent, snap, vma);
		for (r = 0; r < vma->nr_runs; r++) {
			ln = mw_table_line(t, parent);
			if (!ln)
				return false;
			run_row(t, ln, snap, &vma->runs[r]);
		}
	}
	return true;
}

bool mw_view_render(const struct mw_snapshot *snap, struct mw_view *view)
{
	const struct mw_table_opts *o = &view->opts;
	struct mw_table *t = &view->table;
	bool text = !o->json && !o->noheadings, ok;

	if (mw_view_is_document(view)) {
		mw_snapshot_print_json(snap);
		return true;
	}
	if (!mw_table_start(t, "vmas"))
		return false;
	ok = view->pages ? fill_pages(t, snap) : fill_table(t, snap, text);
	if (!ok) {
		mw_table_free(t);
		mw_err("cannot build the table [%s]", mw_errno_text(ENOMEM));
		return false;
	}
	if (text) {
		/* as pmap: "PID:   command line", escaped */
		printf("%d:   ", snap->pid);
		print_escaped(stdout, view->cmdline ? view->cmdline : snap->comm);
		putchar('\n');
	}
	if (!mw_table_print(t))
		return false;
	if (text)
		print_cost(snap);
	return true;
}

void mw_view_one_run(const struct mw_snapshot *snap,
		     const struct memwalk_page_run *run)
{
	static const struct mw_table_opts opts = { .output = ONE_RUN };
	struct mw_table t;
	struct mw_line *ln;

	if (!mw_table_columns(&t, page_columns, N(page_columns), NULL, &opts,
			      "translate", "--pages") ||
	    !mw_table_start(&t, "runs"))
		return;
	ln = mw_table_line(&t, NULL);
	if (!ln) {
		mw_table_free(&t);
		return;
	}
	run_row(&t, ln, snap, run);
	mw_table_print(&t);
}

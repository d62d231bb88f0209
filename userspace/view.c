// SPDX-License-Identifier: GPL-2.0
/*
 * memwalk-client: the text views of a snapshot, the pmap-like table (one
 * row per VMA) and --pages (one line per page run), with util-linux style
 * column selection (-o) and -n; -J hands over to lib/snapjson.c.
 *
 * Columns are separated by one space and padded to the widest cell (numbers
 * right-aligned); cells never contain spaces except the Mapping column,
 * which is last by default.  Widths are found in a first pass that renders
 * every cell and thrown away; the second pass prints.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "memwalk-client.h"
#include "names.h"
#include "snapjson.h"
#include "summary.h"
#include "view.h"

#define CELL_MAX	4200	/* a path (PATH_MAX) and then some */

enum col_kind {
	COL_ADDRESS, COL_END, COL_KB, COL_MODE, COL_OFFSET, COL_DEVICE,
	COL_INODE, COL_FLAGS, COL_RUNS, COL_MAPPING,
	/* --pages */
	COL_RANGE, COL_PAGES, COL_STATE, COL_LEVEL, COL_BITS, COL_TYPE, COL_PFN,
	COL_MAPCOUNT, COL_REFCOUNT, COL_NODE, COL_ORDER, COL_GEN, COL_FOLIO,
};

struct column {
	const char *name;	/* for -o */
	const char *header;
	enum col_kind kind;
	const char *field;	/* COL_KB: struct mw_summary field */
	bool right;
	const char *help;
};

#define KB(n, h, f, text) { n, h, COL_KB, #f, true, text }

static const struct column table_columns[] = {
	{ "address", "Address", COL_ADDRESS, NULL, false, "start of the VMA (hex)" },
	{ "end", "End", COL_END, NULL, false, "end of the VMA (hex, exclusive)" },
	KB("kbytes", "Kbytes", size, "size of the VMA (smaps Size)"),
	KB("rss", "RSS", rss, "resident (smaps Rss)"),
	KB("pss", "PSS", pss, "proportional share (smaps Pss)"),
	KB("dirty", "Dirty", dirty, "smaps Shared_Dirty + Private_Dirty"),
	KB("swap", "Swap", swap, "in swap (smaps Swap; see the man page for shmem)"),
	KB("thp", "THP", thp, "mapped by PMDs (AnonHugePages + ShmemPmdMapped + FilePmdMapped)"),
	KB("hugetlb", "Hugetlb", hugetlb, "smaps Shared_Hugetlb + Private_Hugetlb"),
	KB("anon", "Anon", anonymous, "anonymous (smaps Anonymous)"),
	KB("locked", "Locked", locked, "Pss of mlocked VMAs (smaps Locked)"),
	KB("referenced", "Referenced", referenced, "smaps Referenced"),
	KB("shared_clean", "Shared_Clean", shared_clean, "smaps Shared_Clean"),
	KB("shared_dirty", "Shared_Dirty", shared_dirty, "smaps Shared_Dirty"),
	KB("private_clean", "Private_Clean", private_clean, "smaps Private_Clean"),
	KB("private_dirty", "Private_Dirty", private_dirty, "smaps Private_Dirty"),
	KB("lazyfree", "LazyFree", lazyfree, "smaps LazyFree"),
	KB("ksm", "KSM", ksm, "smaps KSM"),
	KB("anon_thp", "AnonHugePages", anon_thp, "smaps AnonHugePages"),
	KB("shmem_thp", "ShmemPmdMapped", shmem_thp, "smaps ShmemPmdMapped"),
	KB("file_thp", "FilePmdMapped", file_thp, "smaps FilePmdMapped"),
	KB("shared_hugetlb", "Shared_Hugetlb", shared_hugetlb, "smaps Shared_Hugetlb"),
	KB("private_hugetlb", "Private_Hugetlb", private_hugetlb, "smaps Private_Hugetlb"),
	{ "mode", "Mode", COL_MODE, NULL, false, "permissions, as in /proc/PID/maps" },
	{ "offset", "Offset", COL_OFFSET, NULL, false, "offset in the file (hex bytes)" },
	{ "device", "Device", COL_DEVICE, NULL, false, "device of the file (major:minor, hex)" },
	{ "inode", "Inode", COL_INODE, NULL, true, "inode of the file" },
	{ "flags", "Flags", COL_FLAGS, NULL, false, "VMA flags, by name" },
	{ "runs", "Runs", COL_RUNS, NULL, true, "page runs reported" },
	{ "mapping", "Mapping", COL_MAPPING, NULL, false, "file or [heap], [stack], [ anon ], ..." },
};

static const struct column page_columns[] = {
	{ "range", "RANGE", COL_RANGE, NULL, false, "virtual addresses START-END (hex)" },
	{ "pages", "PAGES", COL_PAGES, NULL, true, "base pages in the run" },
	{ "state", "STATE", COL_STATE, NULL, false, "present, swap, migration, device, hwpoison, marker, shmem-swap" },
	{ "level", "LEVEL", COL_LEVEL, NULL, false, "pte, pmd or pud" },
	{ "bits", "BITS", COL_BITS, NULL, false, "entry bits: W U D A SD(soft-dirty) WP(uffd-wp) NX G" },
	{ "type", "TYPE", COL_TYPE, NULL, false, "zero, anon, file, shmem, excl, special, mwrite" },
	{ "pfn", "PFN", COL_PFN, NULL, false, "first PFN (hex), or swap TYPE:OFFSET (hex)" },
	{ "mapcount", "MAPCNT", COL_MAPCOUNT, NULL, true, "mapcount of each page" },
	{ "refcount", "REFCNT", COL_REFCOUNT, NULL, true, "refcount of the folio" },
	{ "node", "NODE", COL_NODE, NULL, true, "NUMA node" },
	{ "order", "ORDER", COL_ORDER, NULL, true, "folio order" },
	{ "gen", "GEN", COL_GEN, NULL, true, "MGLRU generation age (0 youngest)" },
	{ "flags", "FLAGS", COL_FOLIO, NULL, false, "folio flags, by name" },
};

#define N(a) (sizeof(a) / sizeof((a)[0]))

#define DEFAULT_TABLE "address,kbytes,rss,dirty,swap,thp,hugetlb,anon,locked,mode,mapping"

static const struct column *columns_of(const struct mw_view *view, size_t *n)
{
	*n = view->pages ? N(page_columns) : N(table_columns);
	return view->pages ? page_columns : table_columns;
}

bool mw_view_option(struct mw_view *view, int c, const char *arg)
{
	switch (c) {
	case MW_OPT_PAGES:
		view->pages = true;
		return true;
	case 'J':
		view->json = true;
		return true;
	case 'o':
		view->columns = arg;
		return true;
	case 'n':
		view->noheadings = true;
		return true;
	default:
		return false;
	}
}

void mw_view_help_options(FILE *out)
{
	fprintf(out,
		"      --pages            one line per page run, under its VMA\n"
		"  -J, --json             the whole snapshot as one JSON document\n"
		"  -o, --output COLS      the columns to print, comma separated (see below)\n"
		"  -n, --noheadings       data lines only: no heading, totals or cost line\n");
}

bool mw_view_setup(struct mw_view *view, const char *cmd)
{
	const struct column *cols;
	size_t ncols, i;
	const char *p;

	if (view->json && view->columns) {
		mw_err("%s: --output does not apply to --json, which prints every field",
		       cmd);
		return false;
	}
	cols = columns_of(view, &ncols);
	view->nr_cols = 0;
	if (!view->columns && view->pages) {
		for (i = 0; i < ncols; i++)
			view->cols[view->nr_cols++] = i;
		return true;
	}
	for (p = view->columns ? view->columns : DEFAULT_TABLE;;) {
		size_t len = strcspn(p, ",");

		for (i = 0; i < ncols; i++)
			if (strlen(cols[i].name) == len &&
			    !strncasecmp(cols[i].name, p, len))
				break;
		if (i == ncols) {
			mw_err("%s: unknown column '%.*s' for %s (see '%s %s --help')",
			       cmd, (int)len, p, view->pages ? "--pages" : "the table",
			       MW_PROG, cmd);
			return false;
		}
		if (view->nr_cols == MW_MAX_COLUMNS) {
			mw_err("%s: more than %d columns in '%s'", cmd,
			       MW_MAX_COLUMNS, view->columns);
			return false;
		}
		view->cols[view->nr_cols++] = i;
		if (!p[len])
			break;
		p += len + 1;
	}
	return true;
}

void mw_view_help_columns(FILE *out)
{
	size_t i;

	fprintf(out, "\nTable columns (-o; default %s):\n", DEFAULT_TABLE);
	for (i = 0; i < N(table_columns); i++)
		fprintf(out, "  %-16s %s\n", table_columns[i].name, table_columns[i].help);
	fprintf(out, "\n--pages columns (-o; default all):\n");
	for (i = 0; i < N(page_columns); i++)
		fprintf(out, "  %-16s %s\n", page_columns[i].name, page_columns[i].help);
}

static uint64_t summary_value(const struct mw_summary *sum, const char *field)
{
	size_t f;

	for (f = 0; f < mw_nr_summary_fields; f++)
		if (!strcmp(mw_summary_fields[f].key, field))
			return mw_summary_get(sum, &mw_summary_fields[f]);
	return 0;
}

/* One cell of the table; @vma NULL for the totals row. */
static void table_cell(const struct mw_snapshot *snap, const struct mw_vma *vma,
		       const struct mw_summary *sum, const struct column *col,
		       char *buf, size_t len)
{
	buf[0] = '\0';
	if (col->kind == COL_KB) {
		snprintf(buf, len, "%" PRIu64, summary_value(sum, col->field));
		return;
	}
	if (!vma) {
		if (col->kind == COL_ADDRESS)
			snprintf(buf, len, "total");
		return;
	}
	switch (col->kind) {
	case COL_ADDRESS:
		snprintf(buf, len, "%016" PRIx64, vma->start);
		break;
	case COL_END:
		snprintf(buf, len, "%016" PRIx64, vma->end);
		break;
	case COL_MODE:
		mw_vma_mode(vma, buf);
		break;
	case COL_OFFSET:
		snprintf(buf, len, "%08" PRIx64, vma->pgoff * snap->page_size);
		break;
	case COL_DEVICE:
		snprintf(buf, len, "%02x:%02x", vma->dev_major, vma->dev_minor);
		break;
	case COL_INODE:
		snprintf(buf, len, "%" PRIu64, vma->ino);
		break;
	case COL_FLAGS:
		mw_bits_text(&mw_vma_flag_names, vma->flags, ",", buf, len);
		break;
	case COL_RUNS:
		snprintf(buf, len, "%zu", vma->nr_runs);
		break;
	case COL_MAPPING:
		snprintf(buf, len, "%s", mw_vma_label(vma));
		break;
	default:
		break;
	}
}

static void run_cell(const struct mw_snapshot *snap,
		     const struct memwalk_page_run *r, const struct column *col,
		     char *buf, size_t len)
{
	bool folio = mw_snap_has_folio(snap);
	char tmp[16];

	switch (col->kind) {
	case COL_RANGE:
		snprintf(buf, len, "%016" PRIx64 "-%016" PRIx64, (uint64_t)r->start,
			 mw_run_end(snap, r));
		return;
	case COL_PAGES:
		snprintf(buf, len, "%u", r->nr_pages);
		return;
	case COL_STATE:
		snprintf(buf, len, "%s", mw_state_name(mw_run_state(r), tmp));
		return;
	case COL_LEVEL:
		snprintf(buf, len, "%s", mw_level_name(mw_run_level(r), tmp));
		return;
	case COL_BITS:
		mw_bits_text(&mw_run_bit_letters, r->flags, ",", buf, len);
		return;
	case COL_TYPE:
		mw_bits_text(&mw_run_type_names, r->flags, ",", buf, len);
		return;
	case COL_PFN:
		if (!mw_snap_has_pfn(snap) || mw_run_state(r) == MEMWALK_STATE_MARKER)
			snprintf(buf, len, "-");
		else if (mw_state_in_swap(mw_run_state(r)))
			snprintf(buf, len, "%u:%" PRIx64, mw_run_swap_type(r),
				 (uint64_t)r->pfn);
		else
			snprintf(buf, len, "%" PRIx64, (uint64_t)r->pfn);
		return;
	default:
		break;
	}
	if (!folio) {
		snprintf(buf, len, "-");
		return;
	}
	switch (col->kind) {
	case COL_MAPCOUNT:
		snprintf(buf, len, "%u", r->mapcount);
		break;
	case COL_REFCOUNT:
		snprintf(buf, len, "%u", r->refcount);
		break;
	case COL_NODE:
		snprintf(buf, len, "%u", r->nid);
		break;
	case COL_ORDER:
		snprintf(buf, len, "%u", r->order);
		break;
	case COL_GEN:
		if (r->lru_gen < 0)
			snprintf(buf, len, "-");
		else
			snprintf(buf, len, "%d", r->lru_gen);
		break;
	case COL_FOLIO:
		mw_bits_text(&mw_folio_flag_names, r->folio_flags, ",", buf, len);
		break;
	default:
		buf[0] = '\0';
		break;
	}
}

struct layout {
	const struct mw_view *view;
	const struct column *cols;
	size_t width[MW_MAX_COLUMNS];
};

static void layout_init(struct layout *lo, const struct mw_view *view)
{
	size_t n, i;

	lo->view = view;
	lo->cols = columns_of(view, &n);
	for (i = 0; i < view->nr_cols; i++)
		lo->width[i] = view->noheadings ? 0 :
			strlen(lo->cols[view->cols[i]].header);
}

static void layout_fit(struct layout *lo, size_t i, const char *cell)
{
	size_t len = strlen(cell);

	if (len > lo->width[i])
		lo->width[i] = len;
}

/* Print one line of cells; @indent before it; no trailing blanks. */
static void print_cells(const struct layout *lo, const char *indent,
			char cells[][CELL_MAX])
{
	const struct mw_view *view = lo->view;
	char line[MW_MAX_COLUMNS * 64 + CELL_MAX * 2];
	size_t used = 0, i;
	int n;

	for (i = 0; i < view->nr_cols; i++) {
		const struct column *col = &lo->cols[view->cols[i]];
		bool last = i + 1 == view->nr_cols;

		n = snprintf(line + used, sizeof(line) - used, "%s%*s%-*s",
			     i ? " " : "",
			     col->right ? (int)lo->width[i] : 0, col->right ? cells[i] : "",
			     col->right || last ? 0 : (int)lo->width[i],
			     col->right ? "" : cells[i]);
		if (n < 0 || (size_t)n >= sizeof(line) - used) {
			used = sizeof(line) - 1;
			break;
		}
		used += n;
	}
	while (used && line[used - 1] == ' ')
		used--;
	line[used] = '\0';
	printf("%s%s\n", indent, line);
}

static void print_header(const struct layout *lo, const char *indent)
{
	static char cells[MW_MAX_COLUMNS][CELL_MAX];
	size_t i;

	for (i = 0; i < lo->view->nr_cols; i++)
		snprintf(cells[i], CELL_MAX, "%s", lo->cols[lo->view->cols[i]].header);
	print_cells(lo, indent, cells);
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

static void render_table(const struct mw_snapshot *snap, const struct mw_view *view)
{
	static char cells[MW_MAX_COLUMNS][CELL_MAX];
	struct mw_summary sum, total;
	struct layout lo;
	size_t v, i;
	int pass;

	layout_init(&lo, view);
	mw_summarize_all(snap, &total);
	for (pass = 0; pass < 2; pass++) {
		if (pass && !view->noheadings)
			print_header(&lo, "");
		for (v = 0; v <= snap->nr_vmas; v++) {
			const struct mw_vma *vma = v < snap->nr_vmas ? &snap->vmas[v] : NULL;

			if (!vma && view->noheadings)
				break;	/* -n: data rows only */
			if (vma)
				mw_summarize_vma(snap, vma, &sum);
			for (i = 0; i < view->nr_cols; i++) {
				table_cell(snap, vma, vma ? &sum : &total,
					   &lo.cols[view->cols[i]], cells[i], CELL_MAX);
				if (!pass)
					layout_fit(&lo, i, cells[i]);
			}
			if (pass)
				print_cells(&lo, "", cells);
		}
	}
}

static void print_vma_line(const struct mw_snapshot *snap, const struct mw_vma *vma)
{
	char mode[5];

	mw_vma_mode(vma, mode);
	printf("%016" PRIx64 "-%016" PRIx64 " %s %08" PRIx64 " %02x:%02x %" PRIu64 " %s\n",
	       vma->start, vma->end, mode, vma->pgoff * snap->page_size,
	       vma->dev_major, vma->dev_minor, vma->ino, mw_vma_label(vma));
}

static void render_runs(const struct mw_snapshot *snap, const struct mw_view *view,
			const struct mw_vma *vmas, size_t nr_vmas, bool vma_lines)
{
	static char cells[MW_MAX_COLUMNS][CELL_MAX];
	struct layout lo;
	size_t v, r, i;
	int pass;

	layout_init(&lo, view);
	for (pass = 0; pass < 2; pass++) {
		if (pass && !view->noheadings)
			print_header(&lo, "  ");
		for (v = 0; v < nr_vmas; v++) {
			const struct mw_vma *vma = &vmas[v];

			if (pass && vma_lines)
				print_vma_line(snap, vma);
			for (r = 0; r < vma->nr_runs; r++) {
				for (i = 0; i < view->nr_cols; i++) {
					run_cell(snap, &vma->runs[r],
						 &lo.cols[view->cols[i]], cells[i],
						 CELL_MAX);
					if (!pass)
						layout_fit(&lo, i, cells[i]);
				}
				if (pass)
					print_cells(&lo, "  ", cells);
			}
		}
	}
}

void mw_view_render(const struct mw_snapshot *snap, const struct mw_view *view)
{
	if (view->json) {
		mw_snapshot_print_json(snap);
		return;
	}
	if (!view->noheadings)
		printf("%d:   %s\n", snap->pid, snap->comm);
	if (view->pages)
		render_runs(snap, view, snap->vmas, snap->nr_vmas, true);
	else
		render_table(snap, view);
	if (!view->noheadings)
		print_cost(snap);
}

void mw_view_one_run(const struct mw_snapshot *snap,
		     const struct memwalk_page_run *run)
{
	struct mw_view view = { .pages = true };
	struct mw_vma vma = { .runs = (struct memwalk_page_run *)run, .nr_runs = 1 };

	mw_view_setup(&view, "translate");
	render_runs(snap, &view, &vma, 1, false);
}

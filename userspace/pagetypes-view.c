// SPDX-License-Identifier: GPL-2.0
/*
 * memwalk-client --summary: pages per state and flag combination, the way
 * tools/mm/page-types prints them (one line per combination, the count
 * first, the symbolic flags last, a total), as text or JSON.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "memwalk-client.h"
#include "names.h"
#include "pagetypes.h"
#include "print.h"
#include "snapjson.h"

#define FLAGS_MAX	512

enum { C_PAGES, C_KB, C_STATE, C_LEVEL, C_BITS, C_TYPE, C_FLAGS, NR_COLS };

static const char *const headers[NR_COLS] = {
	"PAGES", "KB", "STATE", "LEVEL", "BITS", "TYPE", "FLAGS",
};

static void cells(const struct mw_snapshot *snap, const struct mw_page_type *t,
		  char cell[NR_COLS][FLAGS_MAX])
{
	char tmp[16];

	snprintf(cell[C_PAGES], FLAGS_MAX, "%" PRIu64, t->pages);
	snprintf(cell[C_KB], FLAGS_MAX, "%" PRIu64, t->pages * (snap->page_size / 1024));
	snprintf(cell[C_STATE], FLAGS_MAX, "%s", mw_state_name(t->state, tmp));
	snprintf(cell[C_LEVEL], FLAGS_MAX, "%s", mw_level_name(t->level, tmp));
	mw_bits_text(&mw_run_bit_letters, t->attrs, ",", cell[C_BITS], FLAGS_MAX);
	mw_bits_text(&mw_run_type_names, t->attrs, ",", cell[C_TYPE], FLAGS_MAX);
	if (mw_snap_has_folio(snap))
		mw_bits_text(&mw_folio_flag_names, t->folio_flags, ",", cell[C_FLAGS],
			     FLAGS_MAX);
	else
		snprintf(cell[C_FLAGS], FLAGS_MAX, "-");
}

static void print_line(char cell[NR_COLS][FLAGS_MAX], const size_t width[NR_COLS])
{
	int c;

	for (c = 0; c < NR_COLS; c++) {
		if (c == NR_COLS - 1)
			printf("%s\n", cell[c]);
		else if (c <= C_KB)	/* numbers right-aligned */
			printf("%*s ", (int)width[c], cell[c]);
		else
			printf("%-*s ", (int)width[c], cell[c]);
	}
}

static void widen(size_t width[NR_COLS], char cell[NR_COLS][FLAGS_MAX])
{
	int c;

	for (c = 0; c < NR_COLS; c++)
		if (strlen(cell[c]) > width[c])
			width[c] = strlen(cell[c]);
}

/* Two passes over the kinds: the widths, then the lines. */
static void print_text(const struct mw_snapshot *snap, const struct mw_page_type *t,
		       size_t n, bool noheadings)
{
	static char cell[NR_COLS][FLAGS_MAX], head[NR_COLS][FLAGS_MAX];
	struct mw_page_type total = { .pages = 0 };
	size_t width[NR_COLS] = { 0 }, i;
	int c;

	for (i = 0; i < n; i++) {
		cells(snap, &t[i], cell);
		widen(width, cell);
		total.pages += t[i].pages;
	}
	for (c = 0; c < NR_COLS; c++)
		snprintf(head[c], FLAGS_MAX, "%s", headers[c]);
	if (!noheadings) {
		widen(width, head);
		cells(snap, &total, cell);	/* its PAGES and KB only */
		for (c = C_PAGES; c <= C_KB; c++)
			if (strlen(cell[c]) > width[c])
				width[c] = strlen(cell[c]);
		print_line(head, width);
	}
	for (i = 0; i < n; i++) {
		cells(snap, &t[i], cell);
		print_line(cell, width);
	}
	if (!noheadings)	/* the total, as page-types ends */
		printf("%*" PRIu64 " %*" PRIu64 " total\n", (int)width[C_PAGES], total.pages,
		       (int)width[C_KB], total.pages * (snap->page_size / 1024));
}

static void print_json(const struct mw_snapshot *snap, const struct mw_page_type *t,
		       size_t n)
{
	uint64_t total = 0;
	char tmp[16];
	size_t i;

	print_begin(true);
	print_int(PRINT_JSON, "pid", "", snap->pid);
	print_uint(PRINT_JSON, "page_size", "", snap->page_size);
	print_bool(PRINT_JSON, "folio", "", mw_snap_has_folio(snap));
	open_json_array(PRINT_JSON, "page_types");
	for (i = 0; i < n; i++) {
		open_json_object(PRINT_JSON, NULL);
		print_uint(PRINT_JSON, "pages", "", t[i].pages);
		print_uint(PRINT_JSON, "kbytes", "", t[i].pages * (snap->page_size / 1024));
		print_string(PRINT_JSON, "state", "", mw_state_name(t[i].state, tmp));
		print_string(PRINT_JSON, "level", "", mw_level_name(t[i].level, tmp));
		print_uint(PRINT_JSON, "flags", "", t[i].attrs);
		mw_print_json_bit_names("flag_names", &mw_run_flag_names, t[i].attrs);
		print_uint(PRINT_JSON, "folio_flags", "", t[i].folio_flags);
		mw_print_json_bit_names("folio_flag_names", &mw_folio_flag_names, t[i].folio_flags);
		close_json_object(PRINT_JSON);
		total += t[i].pages;
	}
	close_json_array(PRINT_JSON);
	print_uint(PRINT_JSON, "total_pages", "", total);
	print_uint(PRINT_JSON, "total_kbytes", "", total * (snap->page_size / 1024));
	print_end();
}

int mw_page_types_render(const struct mw_snapshot *snap, bool json, bool noheadings)
{
	struct mw_page_type *types;
	struct mw_error err;
	size_t n;

	if (mw_page_types(snap, &types, &n, &err))
		return mw_report(&err);
	if (json)
		print_json(snap, types, n);
	else
		print_text(snap, types, n, noheadings);
	free(types);
	return MW_EXIT_OK;
}

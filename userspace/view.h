/* SPDX-License-Identifier: GPL-2.0 */
/*
 * memwalk-client: the text views of a snapshot (view.c), shared by the PID
 * command, show and translate.
 */
#ifndef MEMWALK_VIEW_H
#define MEMWALK_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "snapshot.h"

#define MW_MAX_COLUMNS	32

struct mw_view {
	bool json;		/* -J: the whole snapshot as JSON */
	bool pages;		/* --pages: one line per run */
	bool noheadings;	/* -n: data lines only */
	const char *columns;	/* -o, or NULL for the default */
	int cols[MW_MAX_COLUMNS];
	size_t nr_cols;
};

/* The options of the views, shared by the PID command and show. */
enum {
	MW_OPT_PAGES = 0x100,
	MW_OPT_NO_FOLIO,
	MW_OPT_ENTRY_ONLY,
	MW_OPT_SAVE,
};

#define MW_VIEW_SHORTOPTS	"Jo:n"
#define MW_VIEW_LONGOPTS						\
	{ "pages", no_argument, NULL, MW_OPT_PAGES },			\
	{ "json", no_argument, NULL, 'J' },				\
	{ "output", required_argument, NULL, 'o' },			\
	{ "noheadings", no_argument, NULL, 'n' }

/* Take getopt's @c if it is a view option; false if it is not. */
bool mw_view_option(struct mw_view *view, int c, const char *arg);
void mw_view_help_options(FILE *out);
/* Resolve view->columns (for the table or --pages); prints the error. */
bool mw_view_setup(struct mw_view *view, const char *cmd);
void mw_view_render(const struct mw_snapshot *snap, const struct mw_view *view);
/* The --pages lines of one run, with its own heading: for translate. */
void mw_view_one_run(const struct mw_snapshot *snap,
		     const struct memwalk_page_run *run);
/* A help text listing the columns, for --help. */
void mw_view_help_columns(FILE *out);

#endif /* MEMWALK_VIEW_H */

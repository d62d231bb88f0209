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
#include "table.h"

struct mw_view {
	bool pages;		/* --pages: one line per run, under its VMA */
	struct mw_table_opts opts;
	const char *cmdline;	/* for the heading; NULL: the snapshot's comm */
	struct mw_table table;	/* the columns, once set up */
};

/* The options of the views, shared by the PID command and show. */
enum {
	MW_OPT_PAGES = 0x100,
	MW_OPT_NO_FOLIO,
	MW_OPT_ENTRY_ONLY,
	MW_OPT_SAVE,
};

/* -r is --raw in show; the PID command has it for --range. */
#define MW_VIEW_SHORTOPTS	MW_TABLE_SHORTOPTS
#define MW_VIEW_LONGOPTS						\
	{ "pages", no_argument, NULL, MW_OPT_PAGES },			\
	MW_TABLE_LONGOPTS

/* Take getopt's @c if it is a view option; false if it is not. */
bool mw_view_option(struct mw_view *view, int c, const char *arg);
void mw_view_help_options(FILE *out, bool raw_short);
/* Resolve the columns (for the table or --pages); prints the error. */
bool mw_view_setup(struct mw_view *view, const char *cmd);
/* -J alone: the whole snapshot as one JSON document (schema 1). */
bool mw_view_is_document(const struct mw_view *view);
/* The per-VMA table, which needs the struct page (not --entry-only). */
bool mw_view_is_table(const struct mw_view *view);
/* Show @snap; false (with a message) when it could not be printed. */
bool mw_view_render(const struct mw_snapshot *snap, struct mw_view *view);
/* The --pages lines of one run, with its own heading: for translate. */
void mw_view_one_run(const struct mw_snapshot *snap,
		     const struct memwalk_page_run *run);
/* A help text listing the columns, for --help. */
void mw_view_help_columns(FILE *out);

#endif /* MEMWALK_VIEW_H */

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * memwalk-client: the tables of ps (ps-view.c): one line per process, per
 * user or per mapping, sorted, with totals and what was skipped.
 */
#ifndef MEMWALK_PS_VIEW_H
#define MEMWALK_PS_VIEW_H

#include <stdbool.h>
#include <stdio.h>

#include "procscan.h"
#include "table.h"

enum mw_ps_by { MW_PS_BY_PROCESS, MW_PS_BY_USER, MW_PS_BY_MAPPING };

struct mw_ps_view {
	struct mw_table_opts opts;	/* its sort unused: see sort */
	enum mw_ps_by by;
	const char *sort;		/* -s COL, NULL: pss */
	struct mw_table table;		/* the columns, once set up */
};

/* The table options (but --sort: -s, in the command's help) and columns. */
void mw_ps_view_help(FILE *out);
/* Resolve the columns and the sort column; prints the error. */
bool mw_ps_view_setup(struct mw_ps_view *v);
/*
 * Print the processes of @scan, or the groups of @g (--by); frees the
 * table.  False (with a message) when it could not be printed.
 */
bool mw_ps_view_render(struct mw_ps_view *v, const struct mw_procscan *scan,
		       const struct mw_groups *g);

#endif /* MEMWALK_PS_VIEW_H */

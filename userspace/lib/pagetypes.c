// SPDX-License-Identifier: GPL-2.0
/*
 * libmemwalk: pages per kind.  One entry per run, sorted by kind, then the
 * entries of one kind added up: a snapshot's runs are few next to its
 * pages, so this costs little beside taking it.
 */
#include <errno.h>
#include <stdlib.h>

#include "names.h"
#include "pagetypes.h"

static int cmp_type(const void *pa, const void *pb)
{
	const struct mw_page_type *a = pa, *b = pb;

	if (a->state != b->state)
		return a->state < b->state ? -1 : 1;
	if (a->level != b->level)
		return a->level < b->level ? -1 : 1;
	if (a->attrs != b->attrs)
		return a->attrs < b->attrs ? -1 : 1;
	if (a->folio_flags != b->folio_flags)
		return a->folio_flags < b->folio_flags ? -1 : 1;
	return 0;
}

int mw_page_types(const struct mw_snapshot *snap, struct mw_page_type **typesp,
		  size_t *np, struct mw_error *err)
{
	const uint32_t attr_mask = (uint32_t)mw_bits_mask(&mw_run_flag_names);
	struct mw_page_type *t;
	size_t n = 0, runs = 0, i, out;

	*typesp = NULL;
	*np = 0;
	for (i = 0; i < snap->nr_vmas; i++)
		runs += snap->vmas[i].nr_runs;
	if (!runs)
		return 0;
	t = calloc(runs, sizeof(*t));
	if (!t)
		return mw_error_set(err, -ENOMEM, "out of memory counting %zu page runs",
				    runs);
	for (i = 0; i < snap->nr_vmas; i++) {
		const struct mw_vma *vma = &snap->vmas[i];
		size_t r;

		for (r = 0; r < vma->nr_runs; r++, n++) {
			const struct memwalk_page_run *run = &vma->runs[r];

			t[n].state = mw_run_state(run);
			t[n].level = mw_run_level(run);
			t[n].attrs = run->flags & attr_mask;
			t[n].folio_flags = run->folio_flags;
			t[n].pages = run->nr_pages;
		}
	}
	qsort(t, n, sizeof(*t), cmp_type);
	for (i = 1, out = 0; i < n; i++) {
		if (!cmp_type(&t[out], &t[i]))
			t[out].pages += t[i].pages;
		else
			t[++out] = t[i];
	}
	*typesp = t;
	*np = out + 1;
	return 0;
}

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libmemwalk: the pages of a snapshot counted per kind, as
 * tools/mm/page-types counts them per flag combination (pagetypes.c).
 */
#ifndef MEMWALK_PAGETYPES_H
#define MEMWALK_PAGETYPES_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "snapshot.h"

/* One kind: the pages whose runs have these four alike. */
struct mw_page_type {
	unsigned int state;	/* MEMWALK_STATE_* */
	unsigned int level;	/* MEMWALK_LEVEL_* */
	uint32_t attrs;		/* run flags that mw_run_flag_names names */
	uint32_t folio_flags;
	uint64_t pages;		/* base pages */
};

/*
 * Count @snap's pages per kind into *@typesp (*@np of them, by state,
 * level, attrs and folio flags; free() it).  Returns 0, or -ENOMEM with
 * @err saying so.
 */
int mw_page_types(const struct mw_snapshot *snap, struct mw_page_type **typesp,
		  size_t *np, struct mw_error *err);

#endif /* MEMWALK_PAGETYPES_H */

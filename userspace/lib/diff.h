/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libmemwalk: what changed between two snapshots of a process, as data:
 * the pages classified by kind of change (with page counts and address
 * ranges), and the VMAs added, removed or changed.  A pure function of the
 * two models: `diff` prints the result, `watch` compares its snapshots
 * with it.
 */
#ifndef MEMWALK_DIFF_H
#define MEMWALK_DIFF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "snapshot.h"

/* Kinds of change, in the order they are reported. */
enum mw_change {
	MW_CH_FAULTED_IN,
	MW_CH_UNMAPPED,
	MW_CH_SWAPPED_OUT,
	MW_CH_SWAPPED_IN,
	MW_CH_COW_BROKEN,
	MW_CH_PFN_CHANGED,
	MW_CH_PROMOTED,
	MW_CH_SPLIT,
	MW_CH_ACTIVATED,
	MW_CH_DEACTIVATED,
	MW_CH_UNEVICTABLE,
	MW_CH_EVICTABLE,
	MW_CH_GEN,
	MW_CH_DIRTIED,
	MW_CH_CLEANED,
	MW_CH_STATE,

	MW_NR_CHANGES
};

/* "faulted in", "COW broken", ...: the text name of @ch. */
const char *mw_change_name(enum mw_change ch);

/* Pages [start, end) that changed alike; @detail qualifies ("gen 1->2"). */
struct mw_change_range {
	uint64_t start, end;
	char detail[32];
};

struct mw_change_list {
	struct mw_change_range *ranges;	/* by address; touching ones joined */
	size_t nr, cap;
	uint64_t pages;
};

/* What differs between two records of one VMA (same start or same end). */
enum {
	MW_VMA_BOUNDS	= 1u << 0,	/* start or end moved */
	MW_VMA_FLAGS	= 1u << 1,
	MW_VMA_NAME	= 1u << 2,
	MW_VMA_BACKING	= 1u << 3,	/* file, device or offset */
};

/* @a and @b point into the snapshots diffed: valid while they are. */
struct mw_vma_change {
	const struct mw_vma *a;		/* NULL for an added VMA */
	const struct mw_vma *b;		/* NULL for a removed VMA */
	unsigned int what;		/* MW_VMA_*, for a changed one */
};

struct mw_vma_changes {
	struct mw_vma_change *items;
	size_t nr;
};

struct mw_diff {
	uint64_t page_size;
	struct mw_change_list changes[MW_NR_CHANGES];
	struct mw_vma_changes added;	/* in B's order */
	struct mw_vma_changes removed;	/* in A's order */
	struct mw_vma_changes changed;	/* in B's order */
};

/*
 * Classify every page and VMA of @a against @b into @d (to be freed with
 * mw_diff_free(), also after a failure).  Pages with an entry on neither
 * side, and pages alike on both, are not reported.  Returns 0, or a
 * negative errno with @err saying why (snapshots of different page sizes,
 * out of memory).
 */
int mw_diff(const struct mw_snapshot *a, const struct mw_snapshot *b,
	    struct mw_diff *d, struct mw_error *err);
void mw_diff_free(struct mw_diff *d);
/* Whether @d holds no change at all. */
bool mw_diff_empty(const struct mw_diff *d);

#endif /* MEMWALK_DIFF_H */

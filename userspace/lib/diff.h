/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libmemwalk: what changed between two snapshots of a process, as data:
 * the pages classified by kind of change (with page counts and address
 * ranges), and the VMAs added, removed or changed.  A pure function of the
 * two models: `diff` prints the result, `watch` compares its snapshots
 * with it.  Every field of a page run is compared: a difference no named
 * kind explains is reported as MW_CH_OTHER, naming the fields.
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
	MW_CH_DROPPED,		/* a page-cache page gone, its VMA still there */
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
	MW_CH_WRPROTECT_COW,	/* write bit lost, and the page now shared */
	MW_CH_WRPROTECT,	/* write bit lost otherwise (soft-dirty, uffd) */
	MW_CH_WRITABLE,
	MW_CH_SHARED_FORK,	/* an anonymous page no longer exclusive */
	MW_CH_SHARED,		/* any other page no longer exclusive */
	MW_CH_UNSHARED,		/* exclusive again */
	MW_CH_MAPCOUNT,
	MW_CH_REFCOUNT,
	MW_CH_ACCESSED,
	MW_CH_ACCESS_CLEARED,
	MW_CH_SOFT_DIRTIED,
	MW_CH_SOFT_DIRTY_CLEARED,
	MW_CH_SWAPCACHE_ADDED,
	MW_CH_SWAPCACHE_LEFT,
	MW_CH_MLOCKED,
	MW_CH_MUNLOCKED,
	MW_CH_SWAP_SLOT,
	MW_CH_OTHER,		/* detail names the fields: "+uffd_wp order 0->9" */

	MW_NR_CHANGES
};

/* "faulted in", "COW broken", ...: the text name of @ch. */
const char *mw_change_name(enum mw_change ch);
/* "faulted_in", "cow_broken", ...: its JSON key. */
const char *mw_change_key(enum mw_change ch);

/* Pages [start, end) that changed alike; @detail qualifies ("gen 1->2"). */
struct mw_change_range {
	uint64_t start, end;
	char detail[64];
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

/*
 * Why two snapshots do not compare as they are (mw_diff_mismatches()):
 * `diff` refuses them unless forced.
 */
enum {
	MW_MISMATCH_PID		= 1u << 0,	/* of different processes */
	MW_MISMATCH_KERNEL	= 1u << 1,	/* kernel release */
	MW_MISMATCH_MACHINE	= 1u << 2,	/* hostname or boot id */
	MW_MISMATCH_MODE	= 1u << 3,	/* folio state, PFNs, entry-only */
	MW_NR_MISMATCHES	= 4,
};

/* What mw_diff() could not compare (struct mw_diff.not_compared). */
enum {
	MW_NOT_COMPARED_PFN	= 1u << 0,	/* PFNs and swap slots */
	MW_NOT_COMPARED_FOLIO	= 1u << 1,	/* folio flags, counts, order, gen */
	MW_NOT_COMPARED_PAGE	= 1u << 2,	/* anon/file/exclusive (entry-only) */
	MW_NR_NOT_COMPARED	= 3,
};

struct mw_diff {
	uint64_t page_size;
	/* the pages compared: where both were walked; end 0 is the top */
	uint64_t start, end;
	unsigned int mismatches;	/* MW_MISMATCH_* */
	unsigned int not_compared;	/* MW_NOT_COMPARED_* */
	struct mw_change_list changes[MW_NR_CHANGES];
	struct mw_vma_changes added;	/* in B's order */
	struct mw_vma_changes removed;	/* in A's order */
	struct mw_vma_changes changed;	/* in B's order */
};

/*
 * Classify every page and VMA of @a against @b into @d (to be freed with
 * mw_diff_free(), also after a failure).  Pages with an entry on neither
 * side, and pages alike on both, are not reported; nor are pages outside
 * the range either snapshot was taken of.  What one side lacks is not
 * compared (d->not_compared); PFNs not across machines or boots.  Returns
 * 0, or a negative errno with @err saying why (snapshots of different page
 * sizes, out of memory).
 */
int mw_diff(const struct mw_snapshot *a, const struct mw_snapshot *b,
	    struct mw_diff *d, struct mw_error *err);
void mw_diff_free(struct mw_diff *d);
/* Whether @d holds no change at all. */
bool mw_diff_empty(const struct mw_diff *d);

/* What makes @a and @b not comparable as they are: MW_MISMATCH_*. */
unsigned int mw_diff_mismatches(const struct mw_snapshot *a,
				const struct mw_snapshot *b);
/*
 * One mismatch (a single MW_MISMATCH_* bit) in words, into @buf:
 * "different processes (pid 10 and 11)".
 */
void mw_diff_mismatch_text(const struct mw_snapshot *a,
			   const struct mw_snapshot *b, unsigned int mismatch,
			   char *buf, size_t len);
/* Its JSON key: "pid", "kernel", "machine", "mode", for JSON. */
const char *mw_diff_mismatch_key(unsigned int mismatch);
/* One MW_NOT_COMPARED_* bit: "pfn", "folio", "page"; and in words. */
const char *mw_not_compared_key(unsigned int bit);
const char *mw_not_compared_text(unsigned int bit);

#endif /* MEMWALK_DIFF_H */

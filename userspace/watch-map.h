/* SPDX-License-Identifier: GPL-2.0 */
/*
 * memwalk-client: the map of `watch`'s full-screen view as a model, with
 * no terminal in it (watch-map.c): the state a page is drawn in, the cells
 * of a row at a zoom, the lines the VMAs take, the cursor and its moves.
 * cmd/watch-tui.c draws it; tests/watch-map-test.c checks it.
 *
 * Each VMA takes a heading line, then rows of cells from its start; a cell
 * is 2^zoom pages (base pages, also in hugetlb VMAs).  The gaps between
 * VMAs take no line.  The cursor is the address of a page, so that it
 * stays on its page across refreshes and zooms.
 */
#ifndef MEMWALK_WATCH_MAP_H
#define MEMWALK_WATCH_MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diff.h"
#include "snapshot.h"

/* What a page is drawn as. */
enum mw_cell_state {
	MW_CELL_NONE,		/* not populated: no entry */
	MW_CELL_ANON,		/* present anonymous page */
	MW_CELL_CACHE,		/* present page-cache page */
	MW_CELL_SHMEM,		/* present shmem/tmpfs page */
	MW_CELL_ZERO,		/* the shared zero page */
	MW_CELL_THP,		/* mapped by a PMD (not hugetlb) */
	MW_CELL_HUGETLB,	/* present in a hugetlb VMA */
	MW_CELL_SWAP,		/* swap entry */
	MW_CELL_SHMEM_SWAP,	/* shmem page in swap, no entry */
	MW_CELL_OTHER,		/* migration, device, hwpoison, marker; special */
	MW_CELL_PROT_NONE,	/* no entry, in a VMA with no access */
	MW_NR_CELL_STATES
};

/*
 * A state's characters: @pure for a cell all of that state, @mixed for one
 * where it is the most pages but not all; and its legend's word.
 */
struct mw_cell_style {
	char pure, mixed;
	const char *name;
};

extern const struct mw_cell_style mw_cell_styles[MW_NR_CELL_STATES];

struct mw_cell {
	unsigned char state;	/* the dominant one: most pages */
	bool mixed;		/* some pages are in another state */
	bool changed;		/* some page changed at the last refresh */
};

/* One line of the map: a VMA's heading or a row of its cells. */
struct mw_map_line {
	size_t vma;		/* index in the snapshot */
	bool heading;
	uint64_t start;		/* the row's first address (heading: the VMA's) */
	unsigned int nr_cells;	/* in the row (heading: 0) */
};

#define MW_MAP_MAX_ZOOM	20	/* 2^20 pages a cell: 4 GiB of 4 KiB pages */

struct mw_map {
	const struct mw_snapshot *snap;	/* not owned */
	unsigned int zoom;		/* pages per cell: 1 << zoom */
	unsigned int per_row;		/* cells per row, at least 1 */
	size_t *first_line;		/* per VMA, the line of its heading */
	size_t nr_lines;
	struct mw_change_range *changed;	/* every kind's, merged, by address */
	size_t nr_changed;
	uint64_t cursor;		/* the page under the cursor */
	size_t top;			/* the first line shown */
};

/* The state a page of @vma in @run is drawn in (@run NULL: no entry). */
enum mw_cell_state mw_page_state(const struct mw_vma *vma,
				 const struct memwalk_page_run *run);

void mw_map_init(struct mw_map *m, unsigned int per_row);
void mw_map_free(struct mw_map *m);
/*
 * Show @snap, its pages that @d (NULL: none) says changed marked; the
 * cursor stays on its page, or moves to the nearest VMA.  0 or -ENOMEM.
 * @snap and @d are not copied: keep them while the map is used.
 */
int mw_map_set(struct mw_map *m, const struct mw_snapshot *snap,
	       const struct mw_diff *d);
/* Cells per row (the width); 0 or -ENOMEM. */
int mw_map_set_width(struct mw_map *m, unsigned int per_row);
/* Zoom out (@delta > 0: more pages a cell) or in; false at the limit. */
bool mw_map_zoom(struct mw_map *m, int delta);
static inline uint64_t mw_map_cell_pages(const struct mw_map *m)
{
	return 1ULL << m->zoom;
}

/* Line @line (below nr_lines) of the map. */
void mw_map_line(const struct mw_map *m, size_t line, struct mw_map_line *l);
/* The cells of row @l into @cells (l->nr_cells of them). */
void mw_map_cells(const struct mw_map *m, const struct mw_map_line *l,
		  struct mw_cell *cells);

/* Where the cursor is: its VMA, line and column (false: no VMA at all). */
bool mw_map_cursor(const struct mw_map *m, size_t *vma, size_t *line,
		   unsigned int *col);
/* The run holding the page at @addr in VMA @vma, NULL if it has no entry. */
const struct memwalk_page_run *mw_map_run_at(const struct mw_map *m, size_t vma,
					     uint64_t addr);
/* Move the cursor by @n cells, across VMAs, stopping at either end. */
void mw_map_move_cells(struct mw_map *m, long n);
/* Move it @n rows down (up if negative), in its column where the row has it. */
void mw_map_move_rows(struct mw_map *m, long n);
void mw_map_home(struct mw_map *m);
void mw_map_end(struct mw_map *m);
/* To @addr's page, or the next VMA's start in a gap; false past the last. */
bool mw_map_goto(struct mw_map *m, uint64_t addr);
/*
 * To the start of the next VMA after the cursor's (wrapping around) whose
 * name holds @text; false if none does.
 */
bool mw_map_find(struct mw_map *m, const char *text);
/* Scroll so that the cursor's line, and its VMA's heading if it fits, show in @rows. */
void mw_map_scroll(struct mw_map *m, size_t rows);

#endif /* MEMWALK_WATCH_MAP_H */

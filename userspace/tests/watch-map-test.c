// SPDX-License-Identifier: GPL-2.0
/*
 * The map model of watch's full-screen view (watch-map.c), for
 * watch-tui-tests.sh, on the fixtures tests/data/tui-before.json and
 * tui-after.json: each cell at each zoom against a page-by-page count made
 * here from the snapshot's runs (a linear search, not the model's), the
 * changed cells against the pages whose runs differ between the two, the
 * lines the VMAs take, and the cursor's moves.
 *
 *   watch-map-test DATA_DIR   prints one line per failed check;
 *                             exit 0 if all passed
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diff.h"
#include "snapjson.h"
#include "watch-map.h"
#include "test-check.h"

static struct mw_snapshot *load(const char *dir, const char *name)
{
	struct mw_snapshot *snap;
	struct mw_error err;
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (mw_snapshot_load(path, &snap, &err)) {
		printf("FAIL: %s: %s\n", path, err.msg);
		exit(1);
	}
	return snap;
}

/* The run holding @addr in @vma, by a linear search; NULL if none. */
static const struct memwalk_page_run *page_run(const struct mw_snapshot *s,
					       const struct mw_vma *vma, uint64_t addr)
{
	size_t r;

	for (r = 0; r < vma->nr_runs; r++)
		if (addr >= vma->runs[r].start && addr < mw_run_end(s, &vma->runs[r]))
			return &vma->runs[r];
	return NULL;
}

static const struct mw_vma *vma_named(const struct mw_snapshot *s, const char *name)
{
	size_t v;

	for (v = 0; v < s->nr_vmas; v++)
		if (!strcmp(s->vmas[v].name, name))
			return &s->vmas[v];
	return NULL;
}

/* Each fixture region is drawn in the state the issue names for it. */
static void test_states(const struct mw_snapshot *s)
{
	static const struct {
		const char *vma;
		uint64_t off;	/* pages into the VMA */
		enum mw_cell_state want;
	} cases[] = {
		{ "/usr/bin/target", 0, MW_CELL_CACHE },
		{ "[heap]", 0, MW_CELL_ANON },
		{ "[heap]", 24, MW_CELL_ANON },
		{ "[heap]", 32, MW_CELL_ZERO },
		{ "[heap]", 40, MW_CELL_NONE },
		{ "[heap]", 48, MW_CELL_SWAP },
		{ "[heap]", 64, MW_CELL_OTHER },
		{ "", 0, MW_CELL_THP },
		{ "", 512, MW_CELL_ANON },
		{ "", 640, MW_CELL_SWAP },
		{ "/tmp/data\x1b[31mred", 0, MW_CELL_CACHE },
		{ "/dev/shm/seg", 0, MW_CELL_SHMEM },
		{ "/dev/shm/seg", 16, MW_CELL_SHMEM_SWAP },
		{ "/anon_hugepage (deleted)", 0, MW_CELL_HUGETLB },
		{ "/anon_hugepage (deleted)", 600, MW_CELL_NONE },
	};
	const struct mw_vma *guard = &s->vmas[6];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct mw_vma *vma = vma_named(s, cases[i].vma);
		uint64_t addr;
		unsigned int got;

		check(vma != NULL, "no VMA named '%s' in the fixture", cases[i].vma);
		if (!vma)
			continue;
		addr = vma->start + cases[i].off * s->page_size;
		got = mw_page_state(vma, page_run(s, vma, addr));
		check(got == cases[i].want, "page 0x%" PRIx64 " of '%s': state %s, expected %s",
		      addr, cases[i].vma, mw_cell_styles[got].name,
		      mw_cell_styles[cases[i].want].name);
	}
	check(!(guard->flags & (MEMWALK_VMA_READ | MEMWALK_VMA_WRITE | MEMWALK_VMA_EXEC)) &&
	      mw_page_state(guard, NULL) == MW_CELL_PROT_NONE,
	      "a page of the PROT_NONE VMA is not drawn as PROT_NONE");
	for (i = 0; i < MW_NR_CELL_STATES; i++) {
		size_t j;

		for (j = 0; j < i; j++)
			check(mw_cell_styles[i].pure != mw_cell_styles[j].pure &&
			      mw_cell_styles[i].mixed != mw_cell_styles[j].mixed &&
			      mw_cell_styles[i].pure != mw_cell_styles[j].mixed &&
			      mw_cell_styles[i].mixed != mw_cell_styles[j].pure,
			      "states %s and %s share a character", mw_cell_styles[i].name,
			      mw_cell_styles[j].name);
	}
}

/* Whether the page at @addr differs between @a and @b. */
static bool page_changed(const struct mw_snapshot *a, const struct mw_snapshot *b,
			 uint64_t addr)
{
	const struct memwalk_page_run *ra = NULL, *rb = NULL;
	size_t v;

	for (v = 0; v < a->nr_vmas; v++)
		if (addr >= a->vmas[v].start && addr < a->vmas[v].end)
			ra = page_run(a, &a->vmas[v], addr);
	for (v = 0; v < b->nr_vmas; v++)
		if (addr >= b->vmas[v].start && addr < b->vmas[v].end)
			rb = page_run(b, &b->vmas[v], addr);
	if (!ra || !rb)
		return ra != rb;
	return ra->flags != rb->flags ||
	       ra->pfn + (addr - ra->start) / a->page_size !=
	       rb->pfn + (addr - rb->start) / b->page_size;
}

/*
 * Every cell of every row at zoom @zoom against the pages counted one by
 * one: the most pages' state (a populated one in a tie), mixed when not
 * all alike, changed when a page of it differs from @prev.
 */
static void test_cells(struct mw_map *m, const struct mw_snapshot *s,
		       const struct mw_snapshot *prev, unsigned int zoom)
{
	struct mw_cell cells[64];
	struct mw_map_line l;
	size_t line, lines = 0, v, heads = 0, changed = 0;
	uint64_t per = 1ULL << zoom;

	while (m->zoom < zoom)
		mw_map_zoom(m, 1);
	for (v = 0; v < s->nr_vmas; v++) {
		uint64_t pages = (s->vmas[v].end - s->vmas[v].start) / s->page_size;

		lines += 1 + ((pages + per - 1) / per + 63) / 64;
	}
	check(m->nr_lines == lines, "zoom %u: %zu lines, expected %zu", zoom, m->nr_lines, lines);
	for (line = 0; line < m->nr_lines; line++) {
		const struct mw_vma *vma;
		unsigned int i;

		mw_map_line(m, line, &l);
		vma = &s->vmas[l.vma];
		if (l.heading) {
			heads++;
			check(l.start == vma->start, "zoom %u line %zu: heading not at its VMA",
			      zoom, line);
			continue;
		}
		mw_map_cells(m, &l, cells);
		for (i = 0; i < l.nr_cells; i++) {
			uint64_t count[MW_NR_CELL_STATES] = { 0 }, start, addr;
			unsigned int st, best = MW_CELL_NONE, kinds = 0;
			bool ch = false;

			start = l.start + i * per * s->page_size;
			for (addr = start; addr < start + per * s->page_size && addr < vma->end;
			     addr += s->page_size) {
				count[mw_page_state(vma, page_run(s, vma, addr))]++;
				ch |= prev && page_changed(prev, s, addr);
			}
			for (st = 0; st < MW_NR_CELL_STATES; st++) {
				kinds += !!count[st];
				if (st != MW_CELL_NONE && count[st] > count[best])
					best = st;
				else if (best == MW_CELL_NONE && count[st] && st != MW_CELL_NONE &&
					 count[st] == count[best])
					best = st;
			}
			check(cells[i].state == best && cells[i].mixed == (kinds > 1),
			      "zoom %u cell 0x%" PRIx64 ": %s%s, expected %s%s", zoom, start,
			      mw_cell_styles[cells[i].state].name, cells[i].mixed ? " mixed" : "",
			      mw_cell_styles[best].name, kinds > 1 ? " mixed" : "");
			check(cells[i].changed == ch, "zoom %u cell 0x%" PRIx64 ": changed %d, expected %d",
			      zoom, start, cells[i].changed, ch);
			changed += ch;
		}
	}
	check(heads == s->nr_vmas, "zoom %u: %zu headings for %zu VMAs", zoom, heads, s->nr_vmas);
	check(!prev || changed, "zoom %u: no cell changed", zoom);
}

static void test_cursor(struct mw_map *m, const struct mw_snapshot *s)
{
	const struct mw_vma *heap = vma_named(s, "[heap]"), *first = &s->vmas[0];
	const struct mw_vma *last = &s->vmas[s->nr_vmas - 1];
	uint64_t ps = s->page_size;
	unsigned int col;
	size_t v, line;

	while (m->zoom)
		mw_map_zoom(m, -1);
	check(!mw_map_zoom(m, -1), "zoomed in below one page a cell");
	mw_map_home(m);
	check(m->cursor == first->start, "home: 0x%" PRIx64, m->cursor);
	mw_map_move_cells(m, 1);
	check(m->cursor == first->start + ps, "right: 0x%" PRIx64, m->cursor);
	mw_map_move_cells(m, 1);	/* past the 2-page VMA: the next one */
	check(m->cursor == heap->start, "right past a VMA's end: 0x%" PRIx64, m->cursor);
	mw_map_move_cells(m, -1);
	check(m->cursor == first->start + ps, "left back: 0x%" PRIx64, m->cursor);
	mw_map_move_rows(m, 1);		/* column 1 of the heap's first row */
	check(m->cursor == heap->start + ps, "down into the next VMA: 0x%" PRIx64, m->cursor);
	mw_map_move_rows(m, 1);
	check(m->cursor == heap->start + 65 * ps, "down a row: 0x%" PRIx64, m->cursor);
	check(mw_map_cursor(m, &v, &line, &col) && line == 4 && col == 1,
	      "the cursor's line %zu column %u, expected 4 and 1", line, col);
	mw_map_move_rows(m, -100);
	check(m->cursor == first->start + ps, "up to the top: 0x%" PRIx64, m->cursor);
	mw_map_end(m);
	check(m->cursor == last->end - ps, "end: 0x%" PRIx64, m->cursor);
	mw_map_move_cells(m, 5);
	check(m->cursor == last->end - ps, "right at the end: 0x%" PRIx64, m->cursor);
	check(mw_map_goto(m, heap->start + 10 * ps + 123) && m->cursor == heap->start + 10 * ps,
	      "goto in the heap: 0x%" PRIx64, m->cursor);
	check(mw_map_goto(m, first->end) && m->cursor == heap->start,
	      "goto a gap: 0x%" PRIx64, m->cursor);
	check(!mw_map_goto(m, last->end) && m->cursor == heap->start,
	      "goto past the last VMA moved the cursor or succeeded");
	check(mw_map_find(m, "shm") && m->cursor == vma_named(s, "/dev/shm/seg")->start,
	      "find shm: 0x%" PRIx64, m->cursor);
	check(mw_map_find(m, "target") && m->cursor == first->start,
	      "find wraps around: 0x%" PRIx64, m->cursor);
	check(!mw_map_find(m, "nowhere") && m->cursor == first->start, "found nowhere");
	/* a zoom keeps the cursor's page */
	mw_map_goto(m, heap->start + 70 * ps);
	mw_map_zoom(m, 3);
	check(m->cursor == heap->start + 70 * ps && mw_map_cursor(m, &v, &line, &col) &&
	      col == 8, "zoomed to 1:8: cursor 0x%" PRIx64 " column %u", m->cursor, col);
	mw_map_move_cells(m, 1);
	check(m->cursor == heap->start + 72 * ps, "right at 1:8: 0x%" PRIx64, m->cursor);
	mw_map_zoom(m, -3);
	while (mw_map_zoom(m, 1))
		;
	check(m->zoom == MW_MAP_MAX_ZOOM, "the farthest zoom is %u", m->zoom);
	while (m->zoom)
		mw_map_zoom(m, -1);
	/* a cursor scrolled into view, with its heading */
	mw_map_goto(m, heap->start);
	m->top = 0;
	mw_map_scroll(m, 1);
	check(m->top == 3, "one row: scrolled to line %zu, expected the cursor's, 3", m->top);
	m->top = 10;
	mw_map_scroll(m, 3);
	check(m->top == 2, "scrolled up to line %zu, expected the heap's heading, 2", m->top);
}

int main(int argc, char **argv)
{
	struct mw_snapshot *a, *b;
	struct mw_error err;
	struct mw_diff d;
	struct mw_map m;
	unsigned int z;

	if (argc != 2) {
		fprintf(stderr, "usage: %s DATA_DIR\n", argv[0]);
		return 2;
	}
	a = load(argv[1], "tui-before.json");
	b = load(argv[1], "tui-after.json");
	if (mw_diff(a, b, &d, &err)) {
		printf("FAIL: diff: %s\n", err.msg);
		return 1;
	}
	test_states(a);
	mw_map_init(&m, 64);
	check(!mw_map_set(&m, a, NULL), "mw_map_set failed");
	for (z = 0; z <= 10; z++)
		test_cells(&m, a, NULL, z);
	while (m.zoom)
		mw_map_zoom(&m, -1);
	test_cursor(&m, a);
	/* the next snapshot: its changes marked, the cursor kept */
	mw_map_goto(&m, a->vmas[3].start + 5 * a->page_size);
	check(!mw_map_set(&m, b, &d), "mw_map_set failed");
	check(m.cursor == a->vmas[3].start + 5 * a->page_size, "cursor moved at a refresh");
	for (z = 0; z <= 10; z++)
		test_cells(&m, b, a, z);
	mw_map_free(&m);
	mw_diff_free(&d);
	mw_snapshot_free(a);
	mw_snapshot_free(b);
	return failed ? 1 : 0;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * memwalk-client: the map of watch's full-screen view, without a terminal.
 * See watch-map.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "watch-map.h"

/* Lower case: the whole cell; upper case (or ':'): the most of a mixed one. */
const struct mw_cell_style mw_cell_styles[MW_NR_CELL_STATES] = {
	[MW_CELL_NONE]		= { '.', ':', "none" },
	[MW_CELL_ANON]		= { 'a', 'A', "anon" },
	[MW_CELL_CACHE]		= { 'c', 'C', "cache" },
	[MW_CELL_SHMEM]		= { 'm', 'M', "shmem" },
	[MW_CELL_ZERO]		= { 'z', 'Z', "zero" },
	[MW_CELL_THP]		= { 't', 'T', "THP" },
	[MW_CELL_HUGETLB]	= { 'h', 'H', "hugetlb" },
	[MW_CELL_SWAP]		= { 's', 'S', "swap" },
	[MW_CELL_SHMEM_SWAP]	= { 'w', 'W', "shm-swap" },
	[MW_CELL_OTHER]		= { 'o', 'O', "other" },
	[MW_CELL_PROT_NONE]	= { 'p', 'P', "PROT_NONE" },
};

#define VMA_ACCESS	(MEMWALK_VMA_READ | MEMWALK_VMA_WRITE | MEMWALK_VMA_EXEC)

enum mw_cell_state mw_page_state(const struct mw_vma *vma,
				 const struct memwalk_page_run *run)
{
	if (!run)
		return vma->flags & VMA_ACCESS ? MW_CELL_NONE : MW_CELL_PROT_NONE;
	switch (mw_run_state(run)) {
	case MEMWALK_STATE_PRESENT:
		break;
	case MEMWALK_STATE_SWAP:
		return MW_CELL_SWAP;
	case MEMWALK_STATE_SHMEM_SWAP:
		return MW_CELL_SHMEM_SWAP;
	default:
		return MW_CELL_OTHER;
	}
	if (vma->flags & MEMWALK_VMA_HUGETLB)
		return MW_CELL_HUGETLB;
	if (run->flags & MEMWALK_RUN_ZERO)
		return MW_CELL_ZERO;
	if (mw_run_level(run) != MEMWALK_LEVEL_PTE)
		return MW_CELL_THP;
	if (run->flags & MEMWALK_RUN_SPECIAL)
		return MW_CELL_OTHER;
	if (run->flags & MEMWALK_RUN_SHMEM)
		return MW_CELL_SHMEM;
	if (run->flags & MEMWALK_RUN_ANON)
		return MW_CELL_ANON;
	if (run->flags & MEMWALK_RUN_FILE)
		return MW_CELL_CACHE;
	/* an entry-only snapshot: what the VMA is */
	if (vma->flags & MEMWALK_VMA_SHMEM)
		return MW_CELL_SHMEM;
	return vma->flags & MEMWALK_VMA_FILE ? MW_CELL_CACHE : MW_CELL_ANON;
}

void mw_map_init(struct mw_map *m, unsigned int per_row)
{
	memset(m, 0, sizeof(*m));
	m->per_row = per_row ? per_row : 1;
}

void mw_map_free(struct mw_map *m)
{
	free(m->first_line);
	free(m->changed);
	m->first_line = NULL;
	m->changed = NULL;
	m->nr_lines = m->nr_changed = 0;
}

static uint64_t cell_bytes(const struct mw_map *m)
{
	return m->snap->page_size << m->zoom;
}

static uint64_t vma_cells(const struct mw_map *m, const struct mw_vma *v)
{
	return (v->end - v->start + cell_bytes(m) - 1) / cell_bytes(m);
}

static uint64_t vma_rows(const struct mw_map *m, const struct mw_vma *v)
{
	return (vma_cells(m, v) + m->per_row - 1) / m->per_row;
}

static int layout(struct mw_map *m)
{
	size_t v, line = 0, *fl = NULL;

	if (m->snap && m->snap->nr_vmas) {
		fl = realloc(m->first_line, m->snap->nr_vmas * sizeof(*fl));
		if (!fl)
			return -ENOMEM;
		m->first_line = fl;
		for (v = 0; v < m->snap->nr_vmas; v++) {
			fl[v] = line;
			line += 1 + vma_rows(m, &m->snap->vmas[v]);
		}
	}
	m->nr_lines = line;
	if (m->top >= line)
		m->top = line ? line - 1 : 0;
	return 0;
}

static int by_start(const void *x, const void *y)
{
	const struct mw_change_range *a = x, *b = y;

	return a->start < b->start ? -1 : a->start > b->start;
}

/* Every kind's ranges, one sorted list with touching ones joined. */
static int collect_changes(struct mw_map *m, const struct mw_diff *d)
{
	size_t ch, i, n = 0, out = 0;
	struct mw_change_range *r;

	free(m->changed);
	m->changed = NULL;
	m->nr_changed = 0;
	if (!d)
		return 0;
	for (ch = 0; ch < MW_NR_CHANGES; ch++)
		n += d->changes[ch].nr;
	if (!n)
		return 0;
	r = malloc(n * sizeof(*r));
	if (!r)
		return -ENOMEM;
	n = 0;
	for (ch = 0; ch < MW_NR_CHANGES; ch++)
		for (i = 0; i < d->changes[ch].nr; i++)
			r[n++] = d->changes[ch].ranges[i];
	qsort(r, n, sizeof(*r), by_start);
	for (i = 1; i < n; i++) {
		if (r[i].start <= r[out].end) {
			if (r[i].end > r[out].end)
				r[out].end = r[i].end;
		} else {
			r[++out] = r[i];
		}
	}
	m->changed = r;
	m->nr_changed = out + 1;
	return 0;
}

/* The VMA holding @addr, or else the first after it; nr_vmas if none. */
static size_t vma_from(const struct mw_snapshot *snap, uint64_t addr)
{
	size_t lo = 0, hi = snap->nr_vmas;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (snap->vmas[mid].end <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static uint64_t last_page(const struct mw_map *m, const struct mw_vma *v)
{
	return v->end - m->snap->page_size;
}

/* The cursor on a page of a VMA: the nearest one if it is not. */
static void clamp_cursor(struct mw_map *m)
{
	const struct mw_snapshot *s = m->snap;
	size_t v;

	if (!s || !s->nr_vmas)
		return;
	m->cursor &= ~(s->page_size - 1);
	v = vma_from(s, m->cursor);
	if (v == s->nr_vmas)
		m->cursor = last_page(m, &s->vmas[v - 1]);
	else if (m->cursor < s->vmas[v].start)
		m->cursor = s->vmas[v].start;
}

int mw_map_set(struct mw_map *m, const struct mw_snapshot *snap,
	       const struct mw_diff *d)
{
	bool first = !m->snap;
	int ret;

	m->snap = snap;
	ret = collect_changes(m, d);
	if (!ret)
		ret = layout(m);
	if (first && snap->nr_vmas)
		m->cursor = snap->vmas[0].start;
	clamp_cursor(m);
	return ret;
}

int mw_map_set_width(struct mw_map *m, unsigned int per_row)
{
	m->per_row = per_row ? per_row : 1;
	return m->snap ? layout(m) : 0;
}

bool mw_map_zoom(struct mw_map *m, int delta)
{
	int z = (int)m->zoom + delta;

	if (z < 0 || z > MW_MAP_MAX_ZOOM || !delta)
		return false;
	m->zoom = z;
	layout(m);	/* fewer or more lines: the array keeps its size */
	return true;
}

/* The VMA whose lines hold @line. */
static size_t vma_of_line(const struct mw_map *m, size_t line)
{
	size_t lo = 0, hi = m->snap->nr_vmas;

	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->first_line[mid] <= line)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

void mw_map_line(const struct mw_map *m, size_t line, struct mw_map_line *l)
{
	size_t v = vma_of_line(m, line), row = line - m->first_line[v];
	const struct mw_vma *vma = &m->snap->vmas[v];
	uint64_t cells = vma_cells(m, vma), first;

	memset(l, 0, sizeof(*l));
	l->vma = v;
	l->start = vma->start;
	if (!row) {
		l->heading = true;
		return;
	}
	first = (row - 1) * m->per_row;
	l->start = vma->start + first * cell_bytes(m);
	l->nr_cells = cells - first < m->per_row ? cells - first : m->per_row;
}

/* The first run of @vma that ends after @addr (nr_runs if none). */
static size_t run_from(const struct mw_snapshot *s, const struct mw_vma *vma,
		       uint64_t addr)
{
	size_t lo = 0, hi = vma->nr_runs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (mw_run_end(s, &vma->runs[mid]) <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The first changed range that ends after @addr. */
static size_t changed_from(const struct mw_map *m, uint64_t addr)
{
	size_t lo = 0, hi = m->nr_changed;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->changed[mid].end <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The dominant state of @pages: most pages; a tie goes to a populated one. */
static void dominant(const uint64_t *pages, struct mw_cell *c)
{
	unsigned int st, kinds = 0, best = MW_CELL_NONE;

	for (st = 0; st < MW_NR_CELL_STATES; st++) {
		if (!pages[st])
			continue;
		kinds++;
		if (best == MW_CELL_NONE || pages[st] > pages[best])
			best = st;
	}
	if (pages[MW_CELL_NONE] > pages[best])
		best = MW_CELL_NONE;
	c->state = best;
	c->mixed = kinds > 1;
}

void mw_map_cells(const struct mw_map *m, const struct mw_map_line *l,
		  struct mw_cell *cells)
{
	const struct mw_snapshot *s = m->snap;
	const struct mw_vma *vma = &s->vmas[l->vma];
	uint64_t size = cell_bytes(m), ps = s->page_size, start = l->start;
	size_t r = run_from(s, vma, start), ch = changed_from(m, start);
	enum mw_cell_state hole = mw_page_state(vma, NULL);
	unsigned int i;

	for (i = 0; i < l->nr_cells; i++, start += size) {
		uint64_t end = start + size < vma->end ? start + size : vma->end;
		uint64_t pages[MW_NR_CELL_STATES] = { 0 }, covered = 0;

		for (; r < vma->nr_runs && vma->runs[r].start < end; r++) {
			const struct memwalk_page_run *run = &vma->runs[r];
			uint64_t rs = run->start > start ? run->start : start;
			uint64_t re = mw_run_end(s, run) < end ? mw_run_end(s, run) : end;
			uint64_t n = (re - rs) / ps;

			pages[mw_page_state(vma, run)] += n;
			covered += n;
			if (mw_run_end(s, run) > end)
				break;	/* goes on into the next cell */
		}
		pages[hole] += (end - start) / ps - covered;
		dominant(pages, &cells[i]);
		while (ch < m->nr_changed && m->changed[ch].end <= start)
			ch++;
		cells[i].changed = ch < m->nr_changed && m->changed[ch].start < end;
	}
}

bool mw_map_cursor(const struct mw_map *m, size_t *vma, size_t *line,
		   unsigned int *col)
{
	uint64_t cell;
	size_t v;

	if (!m->snap || !m->snap->nr_vmas)
		return false;
	v = vma_from(m->snap, m->cursor);
	if (v == m->snap->nr_vmas)
		return false;
	cell = (m->cursor - m->snap->vmas[v].start) / cell_bytes(m);
	*vma = v;
	*line = m->first_line[v] + 1 + cell / m->per_row;
	*col = cell % m->per_row;
	return true;
}

const struct memwalk_page_run *mw_map_run_at(const struct mw_map *m, size_t vma,
					     uint64_t addr)
{
	const struct mw_vma *v = &m->snap->vmas[vma];
	size_t r = run_from(m->snap, v, addr);

	return r < v->nr_runs && v->runs[r].start <= addr ? &v->runs[r] : NULL;
}

/* The cursor onto cell @cell (clamped) of VMA @v. */
static void to_cell(struct mw_map *m, size_t v, uint64_t cell)
{
	const struct mw_vma *vma = &m->snap->vmas[v];
	uint64_t n = vma_cells(m, vma);

	m->cursor = vma->start + (cell < n ? cell : n - 1) * cell_bytes(m);
}

void mw_map_move_cells(struct mw_map *m, long n)
{
	size_t v, line;
	unsigned int col;
	uint64_t cell;

	if (!mw_map_cursor(m, &v, &line, &col))
		return;
	cell = (m->cursor - m->snap->vmas[v].start) / cell_bytes(m);
	while (n > 0) {
		uint64_t left = vma_cells(m, &m->snap->vmas[v]) - 1 - cell;

		if ((uint64_t)n <= left) {
			cell += n;
			break;
		}
		if (v + 1 == m->snap->nr_vmas) {
			cell += left;
			break;
		}
		n -= left + 1;
		v++;
		cell = 0;
	}
	while (n < 0) {
		if ((uint64_t)-n <= cell) {
			cell -= -n;
			break;
		}
		if (!v) {
			cell = 0;
			break;
		}
		n += cell + 1;
		v--;
		cell = vma_cells(m, &m->snap->vmas[v]) - 1;
	}
	to_cell(m, v, cell);
}

void mw_map_move_rows(struct mw_map *m, long n)
{
	struct mw_map_line l;
	size_t v, line;
	unsigned int col;
	long step = n < 0 ? -1 : 1;

	if (!mw_map_cursor(m, &v, &line, &col))
		return;
	for (; n; n -= step) {
		size_t next = line + step;

		if (step < 0 && line > 0 && m->first_line[vma_of_line(m, line - 1)] == line - 1)
			next = line - 2;	/* over a heading */
		else if (step > 0 && next < m->nr_lines &&
			 m->first_line[vma_of_line(m, next)] == next)
			next = line + 2;
		if (next >= m->nr_lines || (step < 0 && line < 2))
			break;
		line = next;
	}
	mw_map_line(m, line, &l);
	to_cell(m, l.vma, (l.start - m->snap->vmas[l.vma].start) / cell_bytes(m) +
		(col < l.nr_cells ? col : l.nr_cells - 1));
}

void mw_map_home(struct mw_map *m)
{
	if (m->snap && m->snap->nr_vmas)
		m->cursor = m->snap->vmas[0].start;
}

void mw_map_end(struct mw_map *m)
{
	if (m->snap && m->snap->nr_vmas)
		to_cell(m, m->snap->nr_vmas - 1, UINT64_MAX);
}

bool mw_map_goto(struct mw_map *m, uint64_t addr)
{
	size_t v;

	if (!m->snap)
		return false;
	v = vma_from(m->snap, addr);
	if (v == m->snap->nr_vmas)
		return false;
	m->cursor = addr < m->snap->vmas[v].start ? m->snap->vmas[v].start :
		    addr & ~(m->snap->page_size - 1);
	return true;
}

bool mw_map_find(struct mw_map *m, const char *text)
{
	size_t v, line, n, i;
	unsigned int col;

	if (!*text || !mw_map_cursor(m, &v, &line, &col))
		return false;
	n = m->snap->nr_vmas;
	for (i = 1; i <= n; i++) {
		const struct mw_vma *vma = &m->snap->vmas[(v + i) % n];

		if (strstr(vma->name, text)) {
			m->cursor = vma->start;
			return true;
		}
	}
	return false;
}

void mw_map_scroll(struct mw_map *m, size_t rows)
{
	size_t v, line;
	unsigned int col;

	if (!rows || !mw_map_cursor(m, &v, &line, &col))
		return;
	if (line < m->top)
		m->top = line;
	else if (line >= m->top + rows)
		m->top = line - rows + 1;
	/* the heading too, when the cursor is on the VMA's first row */
	if (line == m->first_line[v] + 1 && m->top == line && rows > 1)
		m->top = line - 1;
}

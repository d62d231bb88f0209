// SPDX-License-Identifier: GPL-2.0
/*
 * memwalk-client watch: the detail pane's text for the page under the
 * cursor (watch-tui.h): every field of its run in the last snapshot, its
 * page-table path as translate prints it (one MEMWALK_IOC_TRANSLATE: with
 * the folio state the watch's snapshots leave out), and on request its
 * first bytes through /proc/PID/mem.  Names escaped; nothing drawn here.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "device.h"
#include "memwalk-client.h"
#include "names.h"
#include "print.h"
#include "watch-tui.h"

#define BYTES_SHOWN	64		/* x: the page's first bytes */

void watch_escape(const char *s, char *buf, size_t len)
{
	FILE *fp = fmemopen(buf, len, "w");

	buf[0] = '\0';
	if (!fp)
		return;
	print_escaped(fp, s);
	fclose(fp);
	buf[len - 1] = '\0';
}

void watch_lines_free(struct watch_lines *l)
{
	size_t i;

	for (i = 0; i < l->nr; i++)
		free(l->line[i]);
	free(l->line);
	l->line = NULL;
	l->nr = 0;
}

/* @text's lines appended to the pane. */
static void detail_add(struct watch_lines *l, const char *text)
{
	while (*text) {
		size_t n = strcspn(text, "\n");
		char **d = realloc(l->line, (l->nr + 1) * sizeof(*d));

		if (!d)
			return;
		l->line = d;
		d[l->nr] = strndup(text, n);
		if (d[l->nr])
			l->nr++;
		text += n + (text[n] == '\n');
	}
}

static void __attribute__((format(printf, 2, 3)))
detailf(struct watch_lines *l, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	detail_add(l, buf);
}

/* The folio state of @r, after @what. */
static void detail_folio(struct watch_lines *l, const char *what, const struct memwalk_page_run *r)
{
	char bits[256], gen[16] = "-";

	if (r->lru_gen >= 0)
		snprintf(gen, sizeof(gen), "%d", r->lru_gen);
	mw_bits_text(&mw_folio_flag_names, r->folio_flags, ",", bits, sizeof(bits));
	detailf(l, "%smapcount %u  refcount %u  node %u  order %u  gen %s", what,
		r->mapcount, r->refcount, r->nid, r->order, gen);
	detailf(l, "%sfolio flags %s", what, bits);
}

/* Every field of @r, the run holding the page (of @snap). */
static void detail_run(struct watch_lines *l, const struct mw_watch *w,
		       const struct mw_snapshot *snap, const struct mw_vma *vma,
		       const struct memwalk_page_run *r)
{
	char tmp[16], tmp2[16], bits[256], type[256];
	unsigned int st = mw_run_state(r);

	detailf(l, "run %016" PRIx64 "-%016" PRIx64 ": %u pages, drawn as '%c' (%s)",
		(uint64_t)r->start, mw_run_end(snap, r), r->nr_pages,
		mw_cell_styles[mw_page_state(vma, r)].pure,
		mw_cell_styles[mw_page_state(vma, r)].name);
	mw_bits_text(&mw_run_bit_letters, r->flags, ",", bits, sizeof(bits));
	mw_bits_text(&mw_run_type_names, r->flags, ",", type, sizeof(type));
	detailf(l, "state %s  level %s  bits %s  type %s", mw_state_name(st, tmp),
		mw_level_name(mw_run_level(r), tmp2), bits, type);
	if (!mw_snap_has_pfn(snap) && w->pfns_hidden)
		detailf(l, "pfn hidden (lab mode)");
	else if (!mw_snap_has_pfn(snap))
		detailf(l, "pfn: not in these snapshots (no shared anonymous page); translate's below");
	else if (mw_state_in_swap(st))
		detailf(l, "swap slot %u:%" PRIx64 " (type:offset)", mw_run_swap_type(r),
			(uint64_t)r->pfn);
	else if (r->flags & MEMWALK_RUN_PFN_LIST)
		detailf(l, "pfn listed per page (entry %" PRIu64 " of the list)",
			(uint64_t)r->pfn);
	else if (st != MEMWALK_STATE_MARKER)
		detailf(l, "pfn %" PRIx64 "", (uint64_t)r->pfn);
	if (!mw_snap_has_folio(snap)) {
		detailf(l, "folio state: not in these snapshots (watch --folio); translate's below");
		return;
	}
	detail_folio(l, "", r);
}

/* The page-table path, as translate prints it. */
static void detail_path(struct watch_lines *l, const struct mw_watch *w, uint64_t addr)
{
	struct memwalk_translate tr;
	struct mw_pte_format fmt;
	struct mw_error err;
	char *text = NULL;
	size_t len;
	FILE *fp;

	if (mw_translate(w->dev, w->opts.pid, addr, &tr, &err)) {
		detailf(l, "page-table path: %s", err.msg);
		return;
	}
	detailf(l, "page-table path (as translate prints it):");
	fp = open_memstream(&text, &len);
	if (!fp)
		return;
	fmt = mw_pte_format(&w->dev->info);
	mw_translation_levels(fp, &tr, &fmt);
	fclose(fp);
	if (!tr.nr_levels)
		detailf(l, "  none walked");
	detail_add(l, text);
	free(text);
	/* the folio state the snapshots lack, where the walk gives it (not in lab mode) */
	if (tr.page.nr_pages && tr.page.refcount && !mw_snap_has_folio(w->snap))
		detail_folio(l, "now: ", &tr.page);
}

/*
 * The first bytes of the page at @addr, through /proc/PID/mem (the
 * kernel's ptrace check decides), only when the snapshot shows it present:
 * reading a page that is not would fault it in.
 */
static void detail_bytes(struct watch_lines *l, int32_t pid, uint64_t addr, const struct memwalk_page_run *r)
{
	unsigned char b[BYTES_SHOWN];
	char path[64], line[128];
	ssize_t n;
	int fd, i, j;

	if (!r || mw_run_state(r) != MEMWALK_STATE_PRESENT) {
		detailf(l, "first bytes: not resident, not read (reading would fault it in)");
		return;
	}
	snprintf(path, sizeof(path), "/proc/%d/mem", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		detailf(l, "first bytes: cannot open %s [%s]", path, mw_errno_text(errno));
		return;
	}
	n = pread(fd, b, sizeof(b), (off_t)addr);
	if (n < 0)
		detailf(l, "first bytes: cannot read %s at 0x%" PRIx64 " [%s]", path, addr,
			mw_errno_text(errno));
	close(fd);
	if (n < 0)
		return;
	detailf(l, "first %zd bytes (/proc/%d/mem):", n, pid);
	for (i = 0; i < n; i += 16) {
		int used = snprintf(line, sizeof(line), "  %04x ", i);

		for (j = i; j < i + 16; j++)
			used += snprintf(line + used, sizeof(line) - used,
					 j < n ? " %02x" : "   ", b[j < n ? j : 0]);
		used += snprintf(line + used, sizeof(line) - used, "  ");
		for (j = i; j < i + 16 && j < n; j++)
			line[used++] = b[j] >= 0x20 && b[j] < 0x7f ? b[j] : '.';
		line[used] = '\0';
		detail_add(l, line);
	}
}

void watch_detail(struct watch_lines *l, const struct mw_watch *w,
		  const struct mw_map *map, bool bytes)
{
	const struct mw_snapshot *snap = map->snap;
	const struct memwalk_page_run *r;
	const struct mw_vma *vma;
	char name[512], mode[5];
	uint64_t addr = map->cursor;
	unsigned int col;
	size_t v, line;

	watch_lines_free(l);
	if (!mw_map_cursor(map, &v, &line, &col))
		return;
	vma = &snap->vmas[v];
	r = mw_map_run_at(map, v, addr);
	mw_vma_mode(vma, mode);
	watch_escape(mw_vma_label(vma), name, sizeof(name));
	detailf(l, "page 0x%" PRIx64 " at frame %" PRIu64 "; VMA %016" PRIx64 "-%016" PRIx64
		" %s %s", addr, w->frame.seq, vma->start, vma->end, mode, name);
	if (bytes)	/* asked for: first */
		detail_bytes(l, w->opts.pid, addr, r);
	if (r)
		detail_run(l, w, snap, vma, r);
	else
		detailf(l, "no entry: drawn as '%c' (%s)",
			mw_cell_styles[mw_page_state(vma, NULL)].pure,
			mw_cell_styles[mw_page_state(vma, NULL)].name);
	detail_path(l, w, addr);
}

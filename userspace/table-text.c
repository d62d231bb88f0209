// SPDX-License-Identifier: GPL-2.0
/*
 * memwalk-client: a table as aligned text, for output that is no terminal,
 * byte for byte what libsmartcols (table.c) writes there: a column is as
 * wide as its widest cell or heading, or its width hint when that is more;
 * cells are separated by one blank, right-aligned ones padded on the left,
 * the last column not padded; children in the tree column indented by two
 * blanks a level; blanks at the end of a line trimmed (as table.c trims
 * libsmartcols' lines); no heading for a table without lines.  Escaping as
 * libsmartcols' mbs_safe_encode(): a control character, and the backslash
 * of a literal "\x", become \xHH; so does each byte of a character that is
 * not printable in the locale, and a byte that starts no character and is
 * not printable on its own; a printable character counts its wcwidth().
 *
 * libsmartcols does the same at some hundred instructions a byte (a
 * mbrtowc() for each, twice, and a fputs() for each blank); here cells of
 * printable ASCII, nearly all of them, are measured by their length and
 * copied.  tests/table-test.c holds both to the same output.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>
#include <wctype.h>

#include "table.h"

/*
 * An output buffer: whole lines, written out in large pieces.  A write
 * error stays in @fp's error flag, for the caller to report once.
 */
struct out {
	FILE *fp;
	char *buf;
	size_t len, cap;
	bool failed;			/* out of memory */
};

#define OUT_FLUSH	(64 * 1024)

static bool out_reserve(struct out *o, size_t n)
{
	char *p;
	size_t cap;

	if (o->len + n <= o->cap)
		return true;
	cap = o->cap ? o->cap : 2 * OUT_FLUSH;
	while (cap < o->len + n)
		cap *= 2;
	p = realloc(o->buf, cap);
	if (!p) {
		o->failed = true;
		return false;
	}
	o->buf = p;
	o->cap = cap;
	return true;
}

static void out_bytes(struct out *o, const char *s, size_t n)
{
	if (out_reserve(o, n)) {
		memcpy(o->buf + o->len, s, n);
		o->len += n;
	}
}

/* End the line (its trailing blanks trimmed); write out what piled up. */
static void out_line_end(struct out *o, size_t line_start)
{
	while (o->len > line_start && o->buf[o->len - 1] == ' ')
		o->len--;
	out_bytes(o, "\n", 1);
	if (o->len >= OUT_FLUSH) {
		fwrite(o->buf, 1, o->len, o->fp);
		o->len = 0;
	}
}

/* Printable ASCII but for the backslash of "\x": a cell as it stands. */
static bool plain(const char *s, size_t *len)
{
	const char *p;

	for (p = s; *p; p++)
		if ((unsigned char)*p < 0x20 || (unsigned char)*p > 0x7e ||
		    (*p == '\\' && p[1] == 'x'))
			return false;
	*len = (size_t)(p - s);
	return true;
}

static void hex_byte(char *r, unsigned char c)
{
	static const char hex[] = "0123456789abcdef";

	r[0] = '\\';
	r[1] = 'x';
	r[2] = hex[c >> 4];
	r[3] = hex[c & 15];
}

/*
 * The width of @s escaped, and the escaped text to @r (4 bytes a byte of
 * @s at most, plus the NUL) unless @r is NULL: mbs_safe_encode()'s rules,
 * with the same calls in the same order.
 */
static size_t escaped(const char *s, char *r)
{
	size_t width = 0, len, i;
	mbstate_t st;
	wchar_t wc;

	memset(&st, 0, sizeof(st));
	while (*s) {
		if ((*s == '\\' && s[1] == 'x') || iscntrl((unsigned char)*s)) {
			if (r) {
				hex_byte(r, (unsigned char)*s);
				r += 4;
			}
			width += 4;
			s++;
			continue;
		}
		len = mbrtowc(&wc, s, MB_CUR_MAX, &st);
		if (len == 0)
			break;
		if (len == (size_t)-1 || len == (size_t)-2) {
			len = 1;
			if (isprint((unsigned char)*s)) {
				if (r)
					*r++ = *s;
				width++;
			} else {
				if (r) {
					hex_byte(r, (unsigned char)*s);
					r += 4;
				}
				width += 4;
			}
		} else if (!iswprint(wc)) {
			for (i = 0; i < len; i++) {
				if (r) {
					hex_byte(r, (unsigned char)s[i]);
					r += 4;
				}
				width += 4;
			}
		} else {
			if (r) {
				memcpy(r, s, len);
				r += len;
			}
			width += (size_t)wcwidth(wc);
		}
		s += len;
	}
	if (r)
		*r = '\0';
	return width;
}

/* The width of cell @i of @ln, with the tree's indent in column @tree. */
static size_t cell_width(const struct mw_line *ln, size_t i, size_t tree)
{
	const char *s = ln->cells[i];
	size_t len = 0, indent = i == tree ? 2 * ln->depth : 0;

	if (!s)
		return indent;
	return indent + (plain(s, &len) ? len : escaped(s, NULL));
}

struct layout {
	size_t nr_cols;
	size_t tree;			/* the tree column, or nr_cols */
	size_t width[MW_MAX_COLUMNS];
	bool right[MW_MAX_COLUMNS];
	char *scratch;			/* a cell escaped */
	size_t scratch_len;
};

/*
 * One cell: @data of @len bytes and @width columns, behind the tree's
 * @indent; the blanks that pad it and the separator after it.
 */
static void put_cell(struct out *o, const struct layout *l, size_t i,
		     size_t indent, const char *data, size_t len, size_t width)
{
	bool last = i + 1 == l->nr_cols;
	size_t w = l->width[i], before = 0, after = 0;
	char *p;

	width += indent;
	if (last && width < w && !l->right[i])
		w = width;
	if (width && l->right[i]) {
		before = w - width;
		width = w;
	}
	if (!width)
		indent = len = 0;
	if (!last)
		after = w - width + 1;
	if (!out_reserve(o, before + indent + len + after))
		return;
	p = o->buf + o->len;
	memset(p, ' ', before + indent);
	p += before + indent;
	memcpy(p, data, len);
	p += len;
	memset(p, ' ', after);
	o->len = (size_t)(p + after - o->buf);
}

static void put_line(struct out *o, struct layout *l, const struct mw_line *ln)
{
	size_t start = o->len, i, len, width, indent;
	const char *s;

	for (i = 0; i < l->nr_cols; i++) {
		indent = i == l->tree ? 2 * ln->depth : 0;
		s = ln->cells[i] ? ln->cells[i] : "";
		if (plain(s, &len)) {
			put_cell(o, l, i, indent, s, len, len);
			continue;
		}
		if (l->scratch_len < 4 * strlen(s) + 1) {
			free(l->scratch);
			l->scratch_len = 4 * strlen(s) + 1;
			l->scratch = malloc(l->scratch_len);
			if (!l->scratch) {
				l->scratch_len = 0;
				o->failed = true;
				return;
			}
		}
		width = escaped(s, l->scratch);
		put_cell(o, l, i, indent, l->scratch, strlen(l->scratch), width);
	}
	out_line_end(o, start);
}

static void widen(struct layout *l, const struct mw_line *ln)
{
	size_t i, w;

	for (i = 0; i < l->nr_cols; i++) {
		w = cell_width(ln, i, l->tree);
		if (w > l->width[i])
			l->width[i] = w;
	}
}

/* The widths, as libsmartcols reckons them for no terminal. */
static void measure(const struct mw_table *t, struct layout *l)
{
	const struct mw_line *ln;
	size_t i, min;
	char head[64];

	l->nr_cols = t->nr_cols;
	l->tree = t->nr_cols;
	for (i = 0; i < t->nr_cols; i++) {
		const struct mw_col *c = mw_table_col(t, i);

		l->right[i] = c->flags & MW_COL_RIGHT;
		if ((c->flags & MW_COL_TREE) && l->tree == t->nr_cols)
			l->tree = i;
		l->width[i] = 0;
	}
	for (ln = t->first; ln; ln = ln->next)
		widen(l, ln);
	if (t->footer)
		widen(l, t->footer);
	for (i = 0; i < t->nr_cols; i++) {
		const struct mw_col *c = mw_table_col(t, i);

		mw_table_heading(c, head, sizeof(head));
		min = escaped(head, NULL);
		if (!min)
			min = 1;
		if (l->width[i] < min)
			l->width[i] = min;
		else if (c->whint >= 1 && l->width[i] < (size_t)c->whint &&
			 min < (size_t)c->whint)
			l->width[i] = (size_t)c->whint;
	}
}

bool mw_table_write_text(const struct mw_table *t, FILE *fp)
{
	struct out o = { .fp = fp };
	struct layout l = { 0 };
	const struct mw_line *ln;
	struct mw_line *head;
	char names[MW_MAX_COLUMNS][64];
	size_t i;

	if (!t->first && !t->footer)
		return true;	/* libsmartcols prints nothing, not even headings */
	measure(t, &l);
	if (!t->opts->noheadings) {
		head = calloc(1, sizeof(*head) + t->nr_cols * sizeof(const char *));
		if (!head)
			return false;
		for (i = 0; i < t->nr_cols; i++) {
			mw_table_heading(mw_table_col(t, i), names[i], sizeof(names[i]));
			head->cells[i] = names[i];
		}
		put_line(&o, &l, head);
		free(head);
	}
	for (ln = t->first; ln; ln = ln->next)
		put_line(&o, &l, ln);
	if (t->footer)
		put_line(&o, &l, t->footer);
	fwrite(o.buf, 1, o.len, fp);
	free(o.buf);
	free(l.scratch);
	return !o.failed;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * memwalk-client: the list views' tables, see table.h: their lines and
 * cells, kept here, and their output through libsmartcols, but for aligned
 * text to no terminal, which table-text.c writes.
 *
 * libsmartcols escapes what a terminal must not see (control characters,
 * and bytes that are not valid in the locale's encoding) as \xHH in text
 * and raw output, and JSON-escapes in JSON; bytes that are not UTF-8 are
 * replaced by U+FFFD before they reach JSON, which must be UTF-8.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "json.h"
#include "memwalk-client.h"
#include "table.h"

bool mw_table_option(struct mw_table_opts *o, int c, const char *arg)
{
	switch (c) {
	case 'o':
		o->output = arg;
		return true;
	case MW_OPT_OUTPUT_ALL:
		o->output_all = true;
		return true;
	case 'n':
		o->noheadings = true;
		return true;
	case 'r':
	case MW_OPT_RAW:
		o->raw = true;
		return true;
	case 'J':
		o->json = true;
		return true;
	case 'b':
		o->bytes = true;
		return true;
	case MW_OPT_SORT:
		o->sort = arg;
		return true;
	default:
		return false;
	}
}

void mw_table_help_options(FILE *out, bool raw_short)
{
	fprintf(out,
		"  -o, --output COLS      the columns to print, comma separated; +COLS adds\n"
		"                         them to the default (see below)\n"
		"      --output-all       every column\n"
		"  -n, --noheadings       data lines only: no heading, totals or cost line\n"
		"  %s--raw              raw output: cells separated by one space, blanks\n"
		"                         escaped as \\x20\n"
		"  -b, --bytes            sizes in bytes, not human-readable\n"
		"      --sort COL         sort the lines by column COL\n",
		raw_short ? "-r, " : "    ");
}

void mw_table_help_columns(FILE *out, const char *title, const struct mw_col *set,
			   size_t n, const char *deflt)
{
	size_t i;

	fprintf(out, "\n%s (-o; default %s):\n", title, deflt ? deflt : "all");
	for (i = 0; i < n; i++)
		fprintf(out, "  %-16s %s\n", set[i].name, set[i].help);
}

static int find_column(const struct mw_col *set, size_t n, const char *name,
		       size_t len)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strlen(set[i].name) == len && !strncasecmp(set[i].name, name, len))
			return (int)i;
	return -1;
}

/* Append the comma-separated columns @list; prints the error. */
static bool add_columns(struct mw_table *t, const char *list, const char *cmd,
			const char *what)
{
	const char *p = list;
	size_t len;
	int c;

	for (;;) {
		len = strcspn(p, ",");
		c = find_column(t->set, t->nr_set, p, len);
		if (c < 0) {
			mw_err("%s: unknown column '%.*s' for %s (see '%s %s --help')",
			       cmd, (int)len, p, what, MW_PROG, cmd);
			return false;
		}
		if (t->nr_cols == MW_MAX_COLUMNS) {
			mw_err("%s: more than %d columns in '%s'", cmd, MW_MAX_COLUMNS, list);
			return false;
		}
		t->cols[t->nr_cols++] = c;
		if (!p[len])
			return true;
		p += len + 1;
	}
}

bool mw_table_columns(struct mw_table *t, const struct mw_col *set, size_t n,
		      const char *deflt, const struct mw_table_opts *opts,
		      const char *cmd, const char *what)
{
	const char *out = opts->output;
	size_t i;
	int c;

	memset(t, 0, sizeof(*t));
	t->set = set;
	t->nr_set = n;
	t->opts = opts;
	t->sort = -1;
	if (opts->output_all && out) {
		mw_err("%s: --output and --output-all exclude each other", cmd);
		return false;
	}
	if (opts->output_all || (!deflt && !out) ||
	    (!deflt && out && out[0] == '+')) {
		for (i = 0; i < n && i < MW_MAX_COLUMNS; i++)
			t->cols[t->nr_cols++] = (int)i;
	} else if (!out || out[0] == '+') {
		if (!add_columns(t, deflt, cmd, what))
			return false;
	}
	if (out && !add_columns(t, out[0] == '+' ? out + 1 : out, cmd, what))
		return false;
	if (!opts->sort)
		return true;
	c = find_column(set, n, opts->sort, strlen(opts->sort));
	if (c < 0) {
		mw_err("%s: unknown column '%s' for --sort (see '%s %s --help')",
		       cmd, opts->sort, MW_PROG, cmd);
		return false;
	}
	for (i = 0; i < t->nr_cols; i++)
		if (t->cols[i] == c)
			break;
	if (i == t->nr_cols) {
		if (t->nr_cols == MW_MAX_COLUMNS) {
			mw_err("%s: more than %d columns", cmd, MW_MAX_COLUMNS);
			return false;
		}
		t->cols[t->nr_cols++] = -1 - c;	/* hidden: sorted by only */
	}
	t->sort = (int)i;
	return true;
}

const struct mw_col *mw_table_col(const struct mw_table *t, size_t i)
{
	int c = t->cols[i];

	return &t->set[c < 0 ? -1 - c : c];
}

/*
 * Lines and the text of their cells live in blocks that are freed at
 * once: a cell costs its text and a pointer, a line a few words more.
 */
#define BLOCK_SIZE	(64 * 1024)

struct mw_block {
	struct mw_block *next;
	size_t used, size;
	max_align_t data[];
};

/* @len bytes aligned to @align (a power of 2); NULL when out of memory. */
static void *block_alloc(struct mw_table *t, size_t len, size_t align)
{
	struct mw_block *b = t->blocks;
	size_t size, off = 0;

	if (b)
		off = (b->used + align - 1) & ~(align - 1);
	if (!b || off > b->size || b->size - off < len) {
		size = len > BLOCK_SIZE ? len : BLOCK_SIZE;
		b = malloc(sizeof(*b) + size);
		if (!b)
			return NULL;
		b->size = size;
		b->next = t->blocks;
		t->blocks = b;
		off = 0;
	}
	b->used = off + len;
	return (char *)b->data + off;
}

bool mw_table_start(struct mw_table *t, const char *name)
{
	t->name = name;
	t->blocks = NULL;
	t->first = t->last = t->footer = NULL;
	t->in_order = true;
	return true;
}

static struct mw_line *new_line(struct mw_table *t, struct mw_line *parent)
{
	size_t len = sizeof(struct mw_line) + t->nr_cols * sizeof(const char *);
	struct mw_line *ln = block_alloc(t, len, _Alignof(struct mw_line));

	if (!ln)
		return NULL;
	memset(ln, 0, len);
	ln->parent = parent;
	ln->depth = parent ? parent->depth + 1 : 0;
	return ln;
}

struct mw_line *mw_table_line(struct mw_table *t, struct mw_line *parent)
{
	struct mw_line *ln, *a;

	/* raw output has no tree: the children follow their parent */
	if (t->opts->raw)
		parent = NULL;
	ln = new_line(t, parent);
	if (!ln)
		return NULL;
	/* in tree order: the parent is the last line or one of its ancestors */
	for (a = t->last; parent && a && a != parent; a = a->parent)
		;
	if (parent && !a)
		t->in_order = false;
	if (t->last)
		t->last->next = ln;
	else
		t->first = ln;
	t->last = ln;
	return ln;
}

struct mw_line *mw_table_footer(struct mw_table *t)
{
	if (!t->footer)
		t->footer = new_line(t, NULL);
	return t->footer;
}

/* @s with bytes that are not UTF-8 replaced by U+FFFD, for JSON. */
static char *utf8_clean(struct mw_table *t, const char *s)
{
	size_t len = strlen(s), i = 0, o = 0, n;
	char *out = block_alloc(t, len * 3 + 1, 1);

	if (!out)
		return NULL;
	while (i < len) {
		if ((unsigned char)s[i] < 0x80) {
			out[o++] = s[i++];
			continue;
		}
		n = json_utf8_length((const unsigned char *)s + i, len - i);
		if (n) {
			memcpy(out + o, s + i, n);
			o += n;
			i += n;
		} else {
			memcpy(out + o, "\xef\xbf\xbd", 3);
			o += 3;
			i++;
		}
	}
	out[o] = '\0';
	t->blocks->used -= len * 3 - o;	/* the last allocation: keep what it holds */
	return out;
}

/* Cell @i of @ln: @len bytes of @text (not NUL-terminated). */
static void set_text(struct mw_table *t, struct mw_line *ln, size_t i,
		     const char *text, size_t len)
{
	char *copy = block_alloc(t, len + 1, 1);

	if (!copy)
		return;		/* the cell stays empty: out of memory */
	memcpy(copy, text, len);
	copy[len] = '\0';
	ln->cells[i] = copy;
}

void mw_table_text(struct mw_table *t, struct mw_line *ln, size_t i,
		   const char *text)
{
	if (t->opts->json)
		ln->cells[i] = utf8_clean(t, text);
	else
		set_text(t, ln, i, text, strlen(text));
}

static void set_value(struct mw_table *t, struct mw_line *ln, size_t i,
		      uint64_t value)
{
	if ((int)i == t->sort) {
		ln->value = value;
		ln->has_value = true;
	}
}

size_t mw_format_u64(uint64_t value, char *buf)
{
	char tmp[24];
	size_t n = 0, i;

	do {
		tmp[n++] = (char)('0' + value % 10);
		value /= 10;
	} while (value);
	for (i = 0; i < n; i++)
		buf[i] = tmp[n - 1 - i];
	buf[n] = '\0';
	return n;
}

size_t mw_format_hex(uint64_t value, unsigned int digits, char *buf)
{
	static const char hex[] = "0123456789abcdef";
	size_t n = 0, i;
	char tmp[24];

	do {
		tmp[n++] = hex[value & 15];
		value >>= 4;
	} while (value);
	while (n < digits && n < 16)
		tmp[n++] = '0';
	for (i = 0; i < n; i++)
		buf[i] = tmp[n - 1 - i];
	buf[n] = '\0';
	return n;
}

/* mw_human_size() to @buf (of 32 bytes at least); its length. */
static size_t human_size(uint64_t bytes, char *buf)
{
	static const char units[] = "BKMGTPE";
	unsigned int u = 0, shift = 0;
	uint64_t whole, tenth;
	size_t n;

	while (u + 1 < sizeof(units) - 1 && bytes >> shift >= 1024) {
		shift += 10;
		u++;
	}
	whole = bytes >> shift;
	/* one decimal, rounded half up, as util-linux's size_to_human_string() */
	tenth = u ? (((bytes & ((1ULL << shift) - 1)) >> (shift - 10)) * 10 + 512) / 1024 : 0;
	if (tenth == 10) {
		whole++;
		tenth = 0;
	}
	/* by hand, not snprintf(): a table has a size in every other cell */
	n = mw_format_u64(whole, buf);
	if (tenth) {
		buf[n++] = '.';
		buf[n++] = (char)('0' + tenth);
	}
	buf[n++] = units[u];
	buf[n] = '\0';
	return n;
}

void mw_human_size(uint64_t bytes, char *buf, size_t len)
{
	char tmp[32];
	size_t n = human_size(bytes, tmp);

	if (len) {
		n = n < len - 1 ? n : len - 1;
		memcpy(buf, tmp, n);
		buf[n] = '\0';
	}
}

void mw_table_number(struct mw_table *t, struct mw_line *ln, size_t i,
		     uint64_t value)
{
	char buf[24];

	set_text(t, ln, i, buf, mw_format_u64(value, buf));
	set_value(t, ln, i, value);
}

void mw_table_kb(struct mw_table *t, struct mw_line *ln, size_t i,
		 uint64_t kb)
{
	char buf[32];

	if (t->opts->bytes)
		set_text(t, ln, i, buf, mw_format_u64(kb * 1024, buf));
	else
		set_text(t, ln, i, buf, human_size(kb * 1024, buf));
	set_value(t, ln, i, kb);
}

void mw_table_unknown(struct mw_table *t, struct mw_line *ln, size_t i)
{
	if (!t->opts->json)
		set_text(t, ln, i, "-", 1);
}

/* The sort column's cells point to their line when its value is known. */
static int cmp_numbers(struct libscols_cell *a, struct libscols_cell *b, void *data)
{
	const struct mw_line *la = scols_cell_get_userdata(a);
	const struct mw_line *lb = scols_cell_get_userdata(b);

	(void)data;
	if (!la || !lb)		/* unknown values first */
		return !!la - !!lb;
	return la->value < lb->value ? -1 : la->value > lb->value;
}

static struct libscols_table *scols_table(const struct mw_table *t)
{
	struct libscols_table *tb = scols_new_table();
	bool tree = false;
	size_t i;

	if (!tb)
		return NULL;
	scols_table_enable_json(tb, t->opts->json);
	scols_table_enable_raw(tb, t->opts->raw);
	scols_table_enable_noheadings(tb, t->opts->noheadings);
	if (scols_table_set_name(tb, t->name))
		goto out_nomem;
	for (i = 0; i < t->nr_cols; i++) {
		const struct mw_col *c = mw_table_col(t, i);
		struct libscols_column *cl;
		char head[64];
		int fl = 0;

		mw_table_heading(c, head, sizeof(head));
		if (c->flags & MW_COL_RIGHT)
			fl |= SCOLS_FL_RIGHT;
		if (c->flags & MW_COL_TRUNC)
			fl |= SCOLS_FL_TRUNC;
		/* A tree in text only: raw and JSON get the lines flat or nested. */
		if ((c->flags & MW_COL_TREE) && !tree && !t->opts->raw) {
			fl |= SCOLS_FL_TREE;
			tree = true;
		}
		if (t->cols[i] < 0)
			fl |= SCOLS_FL_HIDDEN;
		cl = scols_table_new_column(tb, head, c->whint, fl);
		if (!cl)
			goto out_nomem;
		if ((c->flags & MW_COL_NUMBER) ||
		    ((c->flags & MW_COL_SIZE) && t->opts->bytes))
			scols_column_set_json_type(cl, SCOLS_JSON_NUMBER);
		if (c->flags & (MW_COL_NUMBER | MW_COL_SIZE))
			scols_column_set_cmpfunc(cl, cmp_numbers, NULL);
		else
			scols_column_set_cmpfunc(cl, scols_cmpstr_cells, NULL);
	}
	if (tree) {
		/* Children indented by two blanks, as --pages has always been. */
		struct libscols_symbols *sy = scols_new_symbols();

		if (!sy || scols_symbols_set_branch(sy, "  ") ||
		    scols_symbols_set_right(sy, "  ") ||
		    scols_symbols_set_vertical(sy, "  ") ||
		    scols_table_set_symbols(tb, sy)) {
			scols_unref_symbols(sy);
			goto out_nomem;
		}
		scols_unref_symbols(sy);
	}
	return tb;

out_nomem:
	scols_unref_table(tb);
	return NULL;
}

/* @ln as a line of @tb (a child of its parent's), with its cells. */
static int scols_add(const struct mw_table *t, struct libscols_table *tb,
		     struct mw_line *ln, bool footer)
{
	struct libscols_line *sl;
	size_t i;

	if (footer) {
		sl = scols_new_line();
		if (sl && scols_line_alloc_cells(sl, t->nr_cols)) {
			scols_unref_line(sl);
			sl = NULL;
		}
		if (sl && scols_table_add_line(tb, sl)) {
			scols_unref_line(sl);
			sl = NULL;
		}
		scols_unref_line(sl);	/* the table holds it */
	} else {
		sl = scols_table_new_line(tb, ln->parent ? ln->parent->scols : NULL);
	}
	if (!sl)
		return -ENOMEM;
	ln->scols = sl;
	for (i = 0; i < t->nr_cols; i++) {
		if (ln->cells[i] && scols_line_set_data(sl, i, ln->cells[i]))
			return -ENOMEM;
		if ((int)i == t->sort && ln->has_value)
			scols_cell_set_userdata(scols_line_get_cell(sl, i), ln);
	}
	return 0;
}

/*
 * Text output without the blanks that pad empty cells at the end of a
 * line (a VMA's line in --pages has no run cells, a run's no mapping).
 */
static int print_trimmed(struct libscols_table *tb)
{
	char *text = NULL, *line, *nl;
	size_t len;
	int err;

	err = scols_print_table_to_string(tb, &text);
	for (line = text; !err && line && *line; line = nl + 1) {
		nl = strchr(line, '\n');
		if (!nl)
			nl = line + strlen(line) - 1;	/* no newline: the end */
		len = (size_t)(nl - line) + (*nl != '\n');
		while (len && line[len - 1] == ' ')
			len--;
		fwrite(line, 1, len, stdout);
		putchar('\n');
	}
	free(text);
	return err;
}

/* Sort, print and free the table in libsmartcols. */
/* @t's lines in a libsmartcols table, sorted, the footer last. */
static int fill_scols(struct mw_table *t, struct libscols_table **tbp)
{
	struct libscols_table *tb = scols_table(t);
	struct mw_line *ln;
	int err = 0;

	if (!tb)
		return -ENOMEM;
	for (ln = t->first; ln && !err; ln = ln->next)
		err = scols_add(t, tb, ln, false);
	if (!err && t->sort >= 0)
		err = scols_sort_table(tb, scols_table_get_column(tb, t->sort));
	if (!err && t->footer)
		err = scols_add(t, tb, t->footer, true);
	if (err) {
		scols_unref_table(tb);
		return err;
	}
	*tbp = tb;
	return 0;
}

static int print_scols(struct mw_table *t)
{
	struct libscols_table *tb;
	int err = fill_scols(t, &tb);

	if (err)
		return err;
	if (t->opts->json || t->opts->raw)
		err = scols_print_table(tb);
	else
		err = print_trimmed(tb);
	scols_unref_table(tb);
	return err;
}

int mw_table_to_string(struct mw_table *t, char **text)
{
	struct libscols_table *tb;
	int err = fill_scols(t, &tb);

	*text = NULL;
	if (!err) {
		err = scols_print_table_to_string(tb, text);
		scols_unref_table(tb);
	}
	mw_table_free(t);
	return err;
}

/* Aligned text for no terminal, where table.c need not call on libsmartcols. */
static bool writes_text(const struct mw_table *t)
{
	return !t->opts->json && !t->opts->raw && t->sort < 0 && t->in_order &&
	       !t->scols_only && !isatty(STDOUT_FILENO);
}

bool mw_table_print(struct mw_table *t)
{
	int err;

	if (writes_text(t))
		err = mw_table_write_text(t, stdout) ? 0 : ENOMEM;
	else
		err = print_scols(t);
	mw_table_free(t);
	if (err) {
		mw_err("cannot print the table [%s]", mw_errno_text(err < 0 ? -err : err));
		return false;
	}
	return true;
}

void mw_table_free(struct mw_table *t)
{
	struct mw_block *b, *next;

	for (b = t->blocks; b; b = next) {
		next = b->next;
		free(b);
	}
	t->blocks = NULL;
	t->first = t->last = t->footer = NULL;
}

void mw_table_heading(const struct mw_col *c, char *head, size_t len)
{
	size_t k;

	for (k = 0; c->name[k] && k + 1 < len; k++)
		head[k] = (char)toupper((unsigned char)c->name[k]);
	head[k] = '\0';
}

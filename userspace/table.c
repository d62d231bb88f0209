// SPDX-License-Identifier: GPL-2.0
/*
 * memwalk-client: the list views' tables on libsmartcols; see table.h.
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

/* Cells of number columns carry an index in t->values (plus 1). */
static int cmp_numbers(struct libscols_cell *a, struct libscols_cell *b, void *data)
{
	const struct mw_table *t = data;
	uintptr_t ia = (uintptr_t)scols_cell_get_userdata(a);
	uintptr_t ib = (uintptr_t)scols_cell_get_userdata(b);
	uint64_t va, vb;

	if (!ia || !ib)		/* unknown values first */
		return !!ia - !!ib;
	va = t->values[ia - 1];
	vb = t->values[ib - 1];
	return va < vb ? -1 : va > vb;
}

bool mw_table_start(struct mw_table *t, const char *name)
{
	bool tree = false;
	size_t i;

	t->tb = scols_new_table();
	if (!t->tb)
		goto out_nomem;
	scols_table_enable_json(t->tb, t->opts->json);
	scols_table_enable_raw(t->tb, t->opts->raw);
	scols_table_enable_noheadings(t->tb, t->opts->noheadings);
	if (scols_table_set_name(t->tb, name))
		goto out_nomem;
	for (i = 0; i < t->nr_cols; i++) {
		const struct mw_col *c = mw_table_col(t, i);
		struct libscols_column *cl;
		char head[64];
		int fl = 0;
		size_t k;

		for (k = 0; c->name[k] && k + 1 < sizeof(head); k++)
			head[k] = (char)toupper((unsigned char)c->name[k]);
		head[k] = '\0';
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
		cl = scols_table_new_column(t->tb, head, c->whint, fl);
		if (!cl)
			goto out_nomem;
		if ((c->flags & MW_COL_NUMBER) ||
		    ((c->flags & MW_COL_SIZE) && t->opts->bytes))
			scols_column_set_json_type(cl, SCOLS_JSON_NUMBER);
		if (c->flags & (MW_COL_NUMBER | MW_COL_SIZE))
			scols_column_set_cmpfunc(cl, cmp_numbers, t);
		else
			scols_column_set_cmpfunc(cl, scols_cmpstr_cells, NULL);
	}
	if (tree) {
		/* Children indented by two blanks, as --pages has always been. */
		struct libscols_symbols *sy = scols_new_symbols();

		if (!sy || scols_symbols_set_branch(sy, "  ") ||
		    scols_symbols_set_right(sy, "  ") ||
		    scols_symbols_set_vertical(sy, "  ") ||
		    scols_table_set_symbols(t->tb, sy)) {
			scols_unref_symbols(sy);
			goto out_nomem;
		}
		scols_unref_symbols(sy);
	}
	return true;

out_nomem:
	mw_table_free(t);
	mw_err("cannot set up a table [%s]", mw_errno_text(ENOMEM));
	return false;
}

struct libscols_line *mw_table_line(struct mw_table *t, struct libscols_line *parent)
{
	/* raw output has no tree: the children follow their parent */
	if (t->opts->raw)
		parent = NULL;
	return scols_table_new_line(t->tb, parent);
}

struct libscols_line *mw_table_footer(struct mw_table *t)
{
	if (!t->footer) {
		t->footer = scols_new_line();
		if (t->footer && scols_line_alloc_cells(t->footer, t->nr_cols)) {
			scols_unref_line(t->footer);
			t->footer = NULL;
		}
	}
	return t->footer;
}

/* @s with bytes that are not UTF-8 replaced by U+FFFD, for JSON. */
static char *utf8_clean(const char *s)
{
	size_t len = strlen(s), i = 0, o = 0, n;
	char *out = malloc(len * 3 + 1);

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
	return out;
}

void mw_table_text(struct mw_table *t, struct libscols_line *ln, size_t i,
		   const char *text)
{
	char *copy = t->opts->json ? utf8_clean(text) : strdup(text);

	if (!copy || scols_line_refer_data(ln, i, copy))
		free(copy);	/* the cell stays empty: out of memory */
}

static void set_value(struct mw_table *t, struct libscols_line *ln, size_t i,
		      uint64_t value)
{
	uint64_t *v;

	if (t->nr_values == t->cap_values) {
		size_t cap = t->cap_values ? t->cap_values * 2 : 256;

		v = realloc(t->values, cap * sizeof(*v));
		if (!v)
			return;		/* sorted as unknown */
		t->values = v;
		t->cap_values = cap;
	}
	t->values[t->nr_values++] = value;
	scols_cell_set_userdata(scols_line_get_cell(ln, i),
				(void *)(uintptr_t)t->nr_values);
}

void mw_table_number(struct mw_table *t, struct libscols_line *ln, size_t i,
		     uint64_t value)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "%" PRIu64, value);
	mw_table_text(t, ln, i, buf);
	set_value(t, ln, i, value);
}

void mw_table_kb(struct mw_table *t, struct libscols_line *ln, size_t i,
		 uint64_t kb)
{
	char buf[32];

	if (t->opts->bytes)
		snprintf(buf, sizeof(buf), "%" PRIu64, kb * 1024);
	else
		mw_human_size(kb * 1024, buf, sizeof(buf));
	mw_table_text(t, ln, i, buf);
	set_value(t, ln, i, kb);
}

void mw_table_unknown(struct mw_table *t, struct libscols_line *ln, size_t i)
{
	if (!t->opts->json)
		mw_table_text(t, ln, i, "-");
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

bool mw_table_print(struct mw_table *t)
{
	int err = 0;

	if (t->sort >= 0)
		err = scols_sort_table(t->tb, scols_table_get_column(t->tb, t->sort));
	if (!err && t->footer)
		err = scols_table_add_line(t->tb, t->footer);
	if (!err) {
		if (t->opts->json || t->opts->raw)
			err = scols_print_table(t->tb);
		else
			err = print_trimmed(t->tb);
	}
	mw_table_free(t);
	if (err) {
		mw_err("cannot print the table [%s]", mw_errno_text(err < 0 ? -err : err));
		return false;
	}
	return true;
}

void mw_table_free(struct mw_table *t)
{
	scols_unref_line(t->footer);
	scols_unref_table(t->tb);
	free(t->values);
	t->footer = NULL;
	t->tb = NULL;
	t->values = NULL;
	t->nr_values = t->cap_values = 0;
}

void mw_human_size(uint64_t bytes, char *buf, size_t len)
{
	static const char units[] = "BKMGTPE";
	uint64_t unit = 1, whole, tenth;
	unsigned int u = 0;

	while (u + 1 < sizeof(units) - 1 && bytes >= unit * 1024) {
		unit *= 1024;
		u++;
	}
	whole = bytes / unit;
	/* one decimal, rounded half up, as util-linux's size_to_human_string() */
	tenth = u ? ((bytes % unit) / (unit / 1024) * 10 + 512) / 1024 : 0;
	if (tenth == 10) {
		whole++;
		tenth = 0;
	}
	if (tenth)
		snprintf(buf, len, "%" PRIu64 ".%" PRIu64 "%c", whole, tenth, units[u]);
	else
		snprintf(buf, len, "%" PRIu64 "%c", whole, units[u]);
}

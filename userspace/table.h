/* SPDX-License-Identifier: GPL-2.0 */
/*
 * memwalk-client: the list views' tables (table.c).  A command declares its
 * columns once (struct mw_col), parses the table options with
 * mw_table_option(), and fills the chosen columns of each line; the table
 * keeps the cells and, at the end, aligns them, fits the terminal, escapes
 * control characters and writes text, raw or JSON.  libsmartcols does it
 * as util-linux uses it; aligned text that goes to no terminal, where
 * libsmartcols would only measure and pad, table.c writes itself, the same
 * bytes at a fraction of the cost (a table of 60,000 lines).
 */
#ifndef MEMWALK_TABLE_H
#define MEMWALK_TABLE_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <libsmartcols/libsmartcols.h>

#define MW_MAX_COLUMNS	48

/* Column flags. */
#define MW_COL_RIGHT	(1u << 0)	/* right-aligned */
#define MW_COL_NUMBER	(1u << 1)	/* a count: a JSON number, sorted as one */
#define MW_COL_SIZE	(1u << 2)	/* a size in kB: human, bytes with -b */
#define MW_COL_TRUNC	(1u << 3)	/* may be cut to fit the terminal */
#define MW_COL_TREE	(1u << 4)	/* holds the tree (children indented) */

/* A column: its -o name is its heading too (in upper case). */
struct mw_col {
	const char *name;
	double whint;		/* width hint: < 1 a share of the terminal */
	unsigned int flags;	/* MW_COL_* */
	int id;			/* the command's own, to fill the cell by */
	const char *key;	/* the command's own too (a field name) */
	const char *help;
};

/* The options every list view takes, util-linux style. */
struct mw_table_opts {
	const char *output;	/* -o: COLS, or +COLS to add to the default */
	const char *sort;	/* --sort COL */
	bool output_all;	/* --output-all */
	bool noheadings;	/* -n */
	bool raw;		/* -r / --raw */
	bool json;		/* -J */
	bool bytes;		/* -b: sizes in bytes */
};

enum {
	MW_OPT_OUTPUT_ALL = 0x180,
	MW_OPT_SORT,
	MW_OPT_RAW,		/* --raw where -r means something else */
};

#define MW_TABLE_SHORTOPTS	"o:nJb"
#define MW_TABLE_LONGOPTS						\
	{ "output", required_argument, NULL, 'o' },			\
	{ "output-all", no_argument, NULL, MW_OPT_OUTPUT_ALL },		\
	{ "noheadings", no_argument, NULL, 'n' },			\
	{ "raw", no_argument, NULL, MW_OPT_RAW },			\
	{ "json", no_argument, NULL, 'J' },				\
	{ "bytes", no_argument, NULL, 'b' },				\
	{ "sort", required_argument, NULL, MW_OPT_SORT }

/* Take getopt's @c if it is a table option ('r' too); false if not. */
bool mw_table_option(struct mw_table_opts *o, int c, const char *arg);
/* The help lines of the table options; @raw_short: -r is --raw. */
void mw_table_help_options(FILE *out, bool raw_short);
void mw_table_help_columns(FILE *out, const char *title, const struct mw_col *set,
			   size_t n, const char *deflt);

/* A line of a table; table.c and table-text.c only look inside. */
struct mw_line {
	struct mw_line *next;		/* in the order added */
	struct mw_line *parent;
	void *scols;			/* its libsmartcols line, when printed there */
	unsigned int depth;		/* of the tree: 0 for the top */
	bool has_value;			/* @value holds the sort column's */
	uint64_t value;
	const char *cells[];		/* the text of each column; NULL: none */
};

struct mw_block;		/* where lines and cells are kept */

/* One table being filled. */
struct mw_table {
	const struct mw_col *set;	/* every column there is */
	size_t nr_set;
	int cols[MW_MAX_COLUMNS];	/* the chosen ones, indexes in @set */
	size_t nr_cols;
	int sort;			/* index in @cols, or -1 */
	const struct mw_table_opts *opts;
	const char *name;		/* of the JSON array */
	struct mw_block *blocks;	/* the lines and the cells' text */
	struct mw_line *first, *last;	/* the lines, in the order added */
	struct mw_line *footer;		/* added after sorting */
	bool in_order;			/* each child follows its parent */
	bool scols_only;		/* libsmartcols writes text too (tests) */
};

/*
 * Resolve the column options against @set (@deflt when -o is not given);
 * @cmd and @what name the table in errors, which are printed.
 */
bool mw_table_columns(struct mw_table *t, const struct mw_col *set, size_t n,
		      const char *deflt, const struct mw_table_opts *opts,
		      const char *cmd, const char *what);
/* The column shown as cell @i. */
const struct mw_col *mw_table_col(const struct mw_table *t, size_t i);
/* The heading of @c: its name in upper case. */
void mw_table_heading(const struct mw_col *c, char *head, size_t len);
/* Start filling; @name is the JSON array's key. */
bool mw_table_start(struct mw_table *t, const char *name);
/*
 * A new line (a child of @parent for a tree, added after the lines of
 * @parent's subtree added so far); NULL when out of memory.
 */
struct mw_line *mw_table_line(struct mw_table *t, struct mw_line *parent);
/* The last line, kept there by sorting (totals). */
struct mw_line *mw_table_footer(struct mw_table *t);
/* Set cell @i (of the chosen columns) of @ln, a copy of @text. */
void mw_table_text(struct mw_table *t, struct mw_line *ln, size_t i,
		   const char *text);
void mw_table_number(struct mw_table *t, struct mw_line *ln, size_t i,
		     uint64_t value);
void mw_table_kb(struct mw_table *t, struct mw_line *ln, size_t i,
		 uint64_t kb);
/* Not known: '-' as text, null in JSON. */
void mw_table_unknown(struct mw_table *t, struct mw_line *ln, size_t i);
/* Sort, print and free the table; false (with a message) on failure. */
bool mw_table_print(struct mw_table *t);
/*
 * Sort and free the table, its libsmartcols output (JSON with -J) into
 * *@text (malloc'd); 0 or a negative errno.  For a caller that adds to it.
 */
int mw_table_to_string(struct mw_table *t, char **text);
/*
 * table-text.c: the aligned text of @t as libsmartcols writes it for no
 * terminal (columns as wide as their widest cell or heading, or their
 * width hint, blanks at line ends trimmed), to @out; false when out of
 * memory (a write error is left in @out's error flag, for the caller to
 * report).  For tables without hidden columns, lines in tree order.
 */
bool mw_table_write_text(const struct mw_table *t, FILE *out);
void mw_table_free(struct mw_table *t);

/* @bytes as util-linux prints sizes: 0B, 512B, 4K, 1.5M, 2G. */
void mw_human_size(uint64_t bytes, char *buf, size_t len);
/*
 * @value in decimal, or in hex with at least @digits digits, to @buf (of
 * 24 bytes at least); the length written, without the NUL.
 */
size_t mw_format_u64(uint64_t value, char *buf);
size_t mw_format_hex(uint64_t value, unsigned int digits, char *buf);

#endif /* MEMWALK_TABLE_H */

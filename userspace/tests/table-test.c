// SPDX-License-Identifier: GPL-2.0
/*
 * The aligned text table.c writes itself (table-text.c) against what
 * libsmartcols writes for the same table: tables with awkward cells
 * (control characters, "\x", UTF-8 of every width, bytes that are not
 * UTF-8, blanks at the end, empty and missing cells), a tree, headings
 * wider than the cells, width hints, a right-aligned last column, no
 * headings, no lines, each printed both ways in the C locale and in
 * C.UTF-8, byte for byte.  TAP on stdout.
 *
 * Usage: table-test
 */
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "table.h"

enum { ADDR, SIZE, MODE, FLAGS, NAME, RANGE, COUNT };

static const struct mw_col cols[] = {
	{ "address", 16, 0, ADDR, NULL, "" },
	{ "kbytes", 1, MW_COL_RIGHT | MW_COL_SIZE, SIZE, NULL, "" },
	{ "mode", 4, 0, MODE, NULL, "" },
	{ "flags", 0.2, MW_COL_TRUNC, FLAGS, NULL, "" },
	{ "mapping", 0.3, MW_COL_TRUNC, NAME, NULL, "" },
	{ "range", 33, MW_COL_TREE, RANGE, NULL, "" },
	{ "count_of_things", 1, MW_COL_RIGHT | MW_COL_NUMBER, COUNT, NULL, "" },
};

static const char *const names[] = {
	"/usr/lib/libc.so.6", "[ anon ]", "tab\there", "esc\x1b[31mred",
	"del\x7f", "back\\x41slash", "back\\yslash", "trailing  ", " ",
	"caf\xc3\xa9", "\xe6\xbc\xa2\xe5\xad\x97", "zero\xe2\x80\x8bwidth",
	"c1\xc2\x85nel", "bad\xff\xfe", "cut\xe6\xbc", "\xc3(", "latin1 caf\xe9",
	"", "\\x", "x\\", "\xf0\x9f\x98\x80 emoji", "combining e\xcc\x81",
};

#define NR_NAMES	(sizeof(names) / sizeof(names[0]))

/* What mw_table_print() writes; NULL if it failed. */
static char *capture(struct mw_table *t)
{
	FILE *f = tmpfile();
	char *buf;
	long len;
	int saved;

	if (!f)
		return NULL;
	fflush(stdout);
	saved = dup(STDOUT_FILENO);
	dup2(fileno(f), STDOUT_FILENO);
	if (!mw_table_print(t))
		fprintf(stdout, "(failed)\n");
	fflush(stdout);
	dup2(saved, STDOUT_FILENO);
	close(saved);
	len = ftell(f);
	buf = malloc(len + 1);
	rewind(f);
	if (!buf || fread(buf, 1, len, f) != (size_t)len) {
		free(buf);
		buf = NULL;
	} else {
		buf[len] = '\0';
	}
	fclose(f);
	return buf;
}

/* Fill @t (its columns chosen) with @nr lines of the names; @tree nests. */
static void fill(struct mw_table *t, size_t nr, bool tree, bool footer)
{
	struct mw_line *ln, *parent = NULL, *grand = NULL;
	size_t l, i;

	for (l = 0; l < nr; l++) {
		const char *name = names[l % NR_NAMES];

		if (tree && l % 5 == 0)
			parent = grand = NULL;
		ln = mw_table_line(t, tree ? (grand ? grand : parent) : NULL);
		if (tree && l % 5 == 1)
			parent = ln;
		if (tree && l % 5 == 2)
			grand = ln;
		if (!tree || l % 5 == 0)
			parent = ln;
		for (i = 0; i < t->nr_cols; i++) {
			switch (mw_table_col(t, i)->id) {
			case ADDR:
				if (l % 7)
					mw_table_text(t, ln, i, "00007f0000001000");
				break;
			case SIZE:
				if (l % 6 == 3)
					mw_table_unknown(t, ln, i);
				else
					mw_table_kb(t, ln, i, (uint64_t)l * l * 37);
				break;
			case MODE:
				mw_table_text(t, ln, i, l % 2 ? "rw-p" : "r--s");
				break;
			case FLAGS:
				mw_table_text(t, ln, i, names[(l * 7 + 3) % NR_NAMES]);
				break;
			case NAME:
			case RANGE:
				if (l % 9 != 4)
					mw_table_text(t, ln, i, name);
				break;
			case COUNT:
				if (l % 4)
					mw_table_number(t, ln, i, l * 1000003ULL);
				break;
			}
		}
	}
	if (footer) {
		ln = mw_table_footer(t);
		mw_table_text(t, ln, 0, "total");
		for (i = 1; i < t->nr_cols; i++)
			if (mw_table_col(t, i)->id == SIZE)
				mw_table_kb(t, ln, i, 123456789);
	}
}

static int nr_test;

static bool check(const char *what, const char *locale, const char *output,
		  size_t nr, bool tree, bool footer, bool noheadings)
{
	struct mw_table_opts opts = { .output = output, .noheadings = noheadings };
	struct mw_table t;
	char *mine, *theirs;
	bool ok;

	if (!mw_table_columns(&t, cols, sizeof(cols) / sizeof(cols[0]), NULL, &opts,
			      "table-test", what) || !mw_table_start(&t, "t"))
		return false;
	fill(&t, nr, tree, footer);
	t.scols_only = true;
	theirs = capture(&t);
	if (!mw_table_columns(&t, cols, sizeof(cols) / sizeof(cols[0]), NULL, &opts,
			      "table-test", what) || !mw_table_start(&t, "t"))
		return false;
	fill(&t, nr, tree, footer);
	mine = capture(&t);
	ok = mine && theirs && !strcmp(mine, theirs);
	printf("%s %d - %s, %s: as libsmartcols writes it\n", ok ? "ok" : "not ok",
	       ++nr_test, what, locale);
	if (!ok) {
		printf("# libsmartcols:\n%s# table-text.c:\n%s", theirs ? theirs : "(none)\n",
		       mine ? mine : "(none)\n");
	}
	free(mine);
	free(theirs);
	return ok;
}

int main(void)
{
	static const char *const locales[] = { "C", "C.UTF-8" };
	bool ok = true;
	size_t l;

	if (isatty(STDOUT_FILENO)) {
		fprintf(stderr, "table-test: stdout must not be a terminal\n");
		return 1;
	}
	for (l = 0; l < 2; l++) {
		if (!setlocale(LC_CTYPE, locales[l])) {
			printf("not ok %d - locale %s: not available\n", ++nr_test, locales[l]);
			ok = false;
			continue;
		}
		ok &= check("names last", locales[l], "address,kbytes,mode,mapping", 60, false,
			    true, false);
		ok &= check("names inside", locales[l], "mapping,address,flags,kbytes,mode", 60,
			    false, false, false);
		ok &= check("right-aligned last", locales[l], "mode,mapping,kbytes,count_of_things",
			    44, false, true, false);
		ok &= check("tree", locales[l], "range,mode,kbytes,mapping", 50, true, false,
			    false);
		ok &= check("tree last", locales[l], "mode,kbytes,range", 50, true, false, false);
		ok &= check("heading wider than cells", locales[l], "count_of_things,mode", 3,
			    false, false, false);
		ok &= check("width hints", locales[l], "range,address,mode", 2, false, false,
			    false);
		ok &= check("no headings", locales[l], "kbytes,mapping,flags", 30, false, true,
			    true);
		ok &= check("no lines", locales[l], "address,mapping", 0, false, false, false);
		ok &= check("every column", locales[l], NULL, 70, true, true, false);
	}
	printf("1..%d\n", nr_test);
	return ok ? 0 : 1;
}

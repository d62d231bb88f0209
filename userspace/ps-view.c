// SPDX-License-Identifier: GPL-2.0
/*
 * memwalk-client: the tables of ps (ps-view.h), one line per process,
 * user or mapping, on the table layer (table.h), which escapes commands
 * and file names.
 *
 * The lines are sorted here, not by the table (libsmartcols sorts
 * ascending only): sizes and process counts biggest first, PIDs and text
 * in ascending order.  A size that needs folio state the walk did not
 * get (lab mode) is '-' (null in JSON), and so is its total.  Processes
 * skipped (exited, refused) are counted on a last line, or under
 * "skipped" in JSON.
 */
#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "memwalk-client.h"
#include "ps-view.h"

enum col_id {
	COL_PID, COL_USER, COL_COMMAND, COL_MAPPING, COL_NPROCS,
	/* sizes, from struct mw_usage */
	COL_SWAP, COL_USS, COL_PSS, COL_RSS, COL_ANON, COL_FILE, COL_SHMEM,
	COL_THP, COL_HUGETLB, COL_LOCKED,
};

#define NUM	(MW_COL_RIGHT | MW_COL_NUMBER)
#define SIZE	(MW_COL_RIGHT | MW_COL_SIZE)

#define SIZE_COLUMNS							\
	{ "swap", 1, SIZE, COL_SWAP, NULL, "in swap (smaps Swap)" },	\
	{ "uss", 1, SIZE, COL_USS, NULL,				\
	  "mapped by this process alone (Private_Clean + Private_Dirty)" }, \
	{ "pss", 1, SIZE, COL_PSS, NULL, "proportional share (smaps Pss)" }, \
	{ "rss", 1, SIZE, COL_RSS, NULL, "resident (smaps Rss)" },	\
	{ "anon", 1, SIZE, COL_ANON, NULL, "Pss of anonymous pages (Pss_Anon)" }, \
	{ "file", 1, SIZE, COL_FILE, NULL, "Pss of page cache (Pss_File)" }, \
	{ "shmem", 1, SIZE, COL_SHMEM, NULL, "Pss of shmem and tmpfs (Pss_Shmem)" }, \
	{ "thp", 1, SIZE, COL_THP, NULL,				\
	  "mapped by PMDs (AnonHugePages + ShmemPmdMapped + FilePmdMapped)" }, \
	{ "hugetlb", 1, SIZE, COL_HUGETLB, NULL,			\
	  "smaps Shared_Hugetlb + Private_Hugetlb" },			\
	{ "locked", 1, SIZE, COL_LOCKED, NULL, "Pss of mlocked VMAs (smaps Locked)" }

static const struct mw_col process_columns[] = {
	{ "pid", 1, NUM, COL_PID, NULL, "process ID" },
	{ "user", 1, 0, COL_USER, NULL, "effective user" },
	{ "command", 0.4, MW_COL_TRUNC, COL_COMMAND, NULL,
	  "command line, or [comm] without one" },
	SIZE_COLUMNS,
};

static const struct mw_col user_columns[] = {
	{ "user", 1, 0, COL_USER, NULL, "effective user" },
	{ "nprocs", 1, NUM, COL_NPROCS, NULL, "processes walked" },
	SIZE_COLUMNS,
};

static const struct mw_col mapping_columns[] = {
	{ "mapping", 0.5, MW_COL_TRUNC, COL_MAPPING, NULL,
	  "file, or [heap], [stack], [vdso], [ anon ], ..." },
	{ "nprocs", 1, NUM, COL_NPROCS, NULL, "processes mapping it" },
	SIZE_COLUMNS,
};

#define N(a) (sizeof(a) / sizeof((a)[0]))

static const struct {
	const char *word, *array;	/* --by WORD; the JSON array */
	const struct mw_col *cols;
	size_t nr_cols;
	const char *deflt;
} modes[] = {
	[MW_PS_BY_PROCESS] = { NULL, "processes", process_columns, N(process_columns),
			 "pid,user,command,swap,uss,pss,rss" },
	[MW_PS_BY_USER] = { "user", "users", user_columns, N(user_columns),
		      "user,nprocs,swap,uss,pss,rss" },
	[MW_PS_BY_MAPPING] = { "mapping", "mappings", mapping_columns, N(mapping_columns),
			 "mapping,nprocs,swap,uss,pss,rss" },
};

/* A line of any of the three tables. */
struct row {
	int32_t pid;
	uint32_t uid;
	const char *text;	/* command or mapping */
	size_t nr_procs;
	bool folio;
	const struct mw_usage *usage;
};

/* The table's options but its --sort, which is -s here. */
static void table_help_options(FILE *out)
{
	char *text = NULL, *line, *nl;
	size_t len = 0;
	FILE *mem = open_memstream(&text, &len);

	if (!mem)
		return;
	mw_table_help_options(mem, true);
	fclose(mem);
	for (line = text; line && *line; line = nl + 1) {
		nl = strchrnul(line, '\n');
		if (strncmp(line, "      --sort ", 13))
			fprintf(out, "%.*s\n", (int)(nl - line), line);
		if (!*nl)
			break;
	}
	free(text);
}

void mw_ps_view_help(FILE *out)
{
	size_t m;

	table_help_options(out);
	fprintf(out, "  -h, --help             show this help and exit\n");
	for (m = 0; m < N(modes); m++) {
		char title[48];

		snprintf(title, sizeof(title), "%s%s columns", m ? "--by " : "Process",
			 m ? modes[m].word : "");
		mw_table_help_columns(out, title, modes[m].cols, modes[m].nr_cols,
				      modes[m].deflt);
	}
}

/*
 * The name of @uid, or the number.  getpwuid() reads /etc/passwd anew at
 * each call (some 8000 instructions and four system calls a line of ps),
 * and most lines share a few users: each uid is looked up once.
 */
static const char *user_name(uint32_t uid, char *buf, size_t len)
{
	static struct {
		uint32_t uid;
		char name[64];
	} seen[32];
	static size_t nr_seen;
	const struct passwd *pw;
	const char *name;
	size_t i;

	for (i = 0; i < nr_seen; i++)
		if (seen[i].uid == uid)
			return seen[i].name;
	pw = getpwuid(uid);
	if (!pw)
		snprintf(buf, len, "%u", uid);
	name = pw ? pw->pw_name : buf;
	if (nr_seen == sizeof(seen) / sizeof(seen[0]) || strlen(name) >= sizeof(seen[0].name))
		return name;
	seen[nr_seen].uid = uid;
	strcpy(seen[nr_seen].name, name);
	return seen[nr_seen++].name;
}

/* The size column @id of @u, and whether it needs the folio state. */
static uint64_t usage_value(const struct mw_usage *u, int id, bool *folio)
{
	*folio = true;
	switch (id) {
	case COL_USS:
		return u->uss;
	case COL_PSS:
		return u->pss;
	case COL_ANON:
		return u->pss_anon;
	case COL_FILE:
		return u->pss_file;
	case COL_SHMEM:
		return u->pss_shmem;
	case COL_LOCKED:
		return u->locked;
	}
	*folio = false;
	switch (id) {
	case COL_SWAP:
		return u->swap;
	case COL_RSS:
		return u->rss;
	case COL_THP:
		return u->thp;
	case COL_HUGETLB:
		return u->hugetlb;
	}
	return 0;
}

/* The column the lines are sorted by (qsort() takes no argument). */
static int sort_id;

/* Sizes and counts biggest first, the rest ascending; then by PID or text. */
static int cmp_rows(const void *x, const void *y)
{
	const struct row *a = x, *b = y;
	uint64_t va, vb;
	bool folio;
	int c = 0;

	switch (sort_id) {
	case COL_PID:
		break;
	case COL_USER:
		c = (a->uid > b->uid) - (a->uid < b->uid);
		break;
	case COL_COMMAND:
	case COL_MAPPING:
		c = strcmp(a->text, b->text);
		break;
	case COL_NPROCS:
		c = (a->nr_procs < b->nr_procs) - (a->nr_procs > b->nr_procs);
		break;
	default:
		va = usage_value(a->usage, sort_id, &folio);
		vb = usage_value(b->usage, sort_id, &folio);
		c = (va < vb) - (va > vb);
		break;
	}
	if (c)
		return c;
	if (a->pid != b->pid)
		return (a->pid > b->pid) - (a->pid < b->pid);
	if (a->uid != b->uid)
		return (a->uid > b->uid) - (a->uid < b->uid);
	return a->text && b->text ? strcmp(a->text, b->text) : 0;
}

/* The cells of @r, or of the totals (@r->text "total") when @total. */
static void fill_row(struct mw_table *t, struct mw_line *ln, const struct row *r,
		     bool total)
{
	bool labelled = !total, folio;
	char buf[16];
	size_t i;

	for (i = 0; i < t->nr_cols; i++) {
		const struct mw_col *c = mw_table_col(t, i);
		uint64_t v;

		if (c->flags & MW_COL_SIZE) {
			v = usage_value(r->usage, c->id, &folio);
			if (folio && !r->folio)
				mw_table_unknown(t, ln, i);
			else
				mw_table_kb(t, ln, i, v);
			continue;
		}
		if (c->id == COL_NPROCS) {
			mw_table_number(t, ln, i, r->nr_procs);
			continue;
		}
		if (!labelled && t->cols[i] >= 0) {
			mw_table_text(t, ln, i, "total");
			labelled = true;
			continue;
		}
		if (total)
			continue;
		switch (c->id) {
		case COL_PID:
			mw_table_number(t, ln, i, (uint64_t)r->pid);
			break;
		case COL_USER:
			mw_table_text(t, ln, i, user_name(r->uid, buf, sizeof(buf)));
			break;
		default:	/* command, mapping: untrusted, the table escapes them */
			mw_table_text(t, ln, i, r->text);
			break;
		}
	}
}

/* What was skipped, as one line; false when nothing was. */
static bool skipped_text(const struct mw_procscan *s, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
#define SKIPPED(count, what, plural)					\
	if (count && n < len)						\
		n += (size_t)snprintf(buf + n, len - n, "%s%zu %s%s", n ? ", " : "", \
				      count, what, count > 1 ? plural : "")
	SKIPPED(s->nr_exited, "exited during the scan", "");
	SKIPPED(s->nr_denied, "not permitted", "");
	SKIPPED(s->nr_changing, "changing at every attempt", "");
	SKIPPED(s->nr_kthreads, "kernel thread", "s");
#undef SKIPPED
	return n;
}

/*
 * The table as JSON with the skipped processes beside its array:
 * { "processes": [...], "skipped": {...} }.
 */
static bool print_json(struct mw_table *t, const struct mw_procscan *s)
{
	char *text, *end;
	int err = mw_table_to_string(t, &text);

	end = text ? strrchr(text, '}') : NULL;
	if (err || !end) {
		free(text);
		mw_err("cannot print the table [%s]", mw_errno_text(err < 0 ? -err : EIO));
		return false;
	}
	while (end > text && (end[-1] == '\n' || end[-1] == ' '))
		end--;
	printf("%.*s,\n   \"skipped\": {\"exited\": %zu, \"not_permitted\": %zu, "
	       "\"changing\": %zu, \"kernel_threads\": %zu}\n}\n",
	       (int)(end - text), text, s->nr_exited, s->nr_denied, s->nr_changing,
	       s->nr_kthreads);
	free(text);
	return true;
}

static bool render(struct mw_ps_view *v, struct row *rows, size_t nr,
		   const struct mw_procscan *scan)
{
	const struct mw_table_opts *o = &v->opts;
	struct mw_table *t = &v->table;
	bool text = !o->json && !o->noheadings;
	struct mw_usage sum = { 0 };
	struct row total = { .usage = &sum, .folio = true };
	struct mw_line *ln;
	char skipped[256];
	size_t i;

	qsort(rows, nr, sizeof(*rows), cmp_rows);
	if (!mw_table_start(t, modes[v->by].array))
		return false;
	for (i = 0; i < nr; i++) {
		ln = mw_table_line(t, NULL);
		if (!ln)
			goto out_nomem;
		fill_row(t, ln, &rows[i], false);
		mw_usage_add(&sum, rows[i].usage);
		total.folio &= rows[i].folio;
		total.nr_procs += v->by == MW_PS_BY_PROCESS ? 1 : rows[i].nr_procs;
	}
	if (v->by == MW_PS_BY_MAPPING)
		total.nr_procs = scan->nr_procs;	/* each process once */
	if (text) {
		ln = mw_table_footer(t);
		if (!ln)
			goto out_nomem;
		fill_row(t, ln, &total, true);
	}
	if (o->json)
		return print_json(t, scan);
	if (!mw_table_print(t))
		return false;
	if (skipped_text(scan, skipped, sizeof(skipped))) {
		if (text)
			printf("skipped: %s\n", skipped);
		else
			mw_warn("ps: skipped: %s", skipped);
	}
	return true;

out_nomem:
	mw_table_free(t);
	mw_err("cannot build the table [%s]", mw_errno_text(ENOMEM));
	return false;
}

/* The lines of the table @v->by asks for, in a malloc()ed array. */
static struct row *make_rows(const struct mw_ps_view *v, const struct mw_procscan *scan,
			     const struct mw_groups *g, size_t *nr)
{
	struct row *rows;
	size_t i;

	*nr = v->by == MW_PS_BY_PROCESS ? scan->nr_procs : g->nr_groups;
	rows = calloc(*nr ? *nr : 1, sizeof(*rows));
	if (!rows)
		return NULL;
	for (i = 0; i < *nr; i++) {
		if (v->by == MW_PS_BY_PROCESS) {
			const struct mw_proc *p = &scan->procs[i];

			rows[i] = (struct row){ p->pid, p->uid, p->command, 1, p->folio,
						&p->usage };
		} else {
			const struct mw_group *grp = &g->groups[i];

			rows[i] = (struct row){ 0, grp->uid, grp->name, grp->nr_procs,
						grp->folio, &grp->usage };
		}
	}
	return rows;
}

bool mw_ps_view_setup(struct mw_ps_view *v)
{
	size_t i;

	sort_id = COL_PSS;
	for (i = 0; v->sort && i < modes[v->by].nr_cols; i++)
		if (!strcasecmp(modes[v->by].cols[i].name, v->sort))
			break;
	if (v->sort && i == modes[v->by].nr_cols) {
		mw_err("ps: unknown column '%s' for --sort (see '%s ps --help')",
		       v->sort, MW_PROG);
		return false;
	}
	if (v->sort)
		sort_id = modes[v->by].cols[i].id;
	return mw_table_columns(&v->table, modes[v->by].cols, modes[v->by].nr_cols,
				modes[v->by].deflt, &v->opts, "ps", "this table");
}

bool mw_ps_view_render(struct mw_ps_view *v, const struct mw_procscan *scan,
		       const struct mw_groups *g)
{
	struct row *rows;
	size_t nr;
	bool ok;

	rows = make_rows(v, scan, g, &nr);
	if (!rows) {
		mw_table_free(&v->table);
		mw_err("cannot build the table [%s]", mw_errno_text(ENOMEM));
		return false;
	}
	ok = render(v, rows, nr, scan);
	free(rows);
	return ok;
}


// SPDX-License-Identifier: GPL-2.0
/*
 * memwalk-client phys: every page frame of the machine in one census by
 * the module (lib/phys.c), one line per class with its pages and size,
 * and beside it the /proc/meminfo fields the class corresponds to and
 * the difference.  --by node|zone: the classes of each node or zone,
 * without meminfo (it is system-wide).
 *
 * No --files: following a page cache page to its file needs a reference
 * on the page's address_space (its inode), which may be freed under a
 * census that holds no lock; no exported API takes one from a struct
 * page safely (see memwalk-client(1)).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device.h"
#include "memwalk-client.h"
#include "phys.h"
#include "table.h"

enum col_id { COL_CLASS, COL_NODE, COL_ZONE, COL_PAGES, COL_SIZE, COL_MEMINFO,
	      COL_MEMINFO_SIZE, COL_DIFF };

#define NUM	(MW_COL_RIGHT | MW_COL_NUMBER)
#define SIZE	(MW_COL_RIGHT | MW_COL_SIZE)

static const struct mw_col columns[] = {
	{ "class", 1, MW_COL_TREE, COL_CLASS, NULL, "what the pages are (a line per kind)" },
	{ "node", 1, NUM, COL_NODE, NULL, "NUMA node (--by node|zone)" },
	{ "zone", 1, 0, COL_ZONE, NULL, "zone, as /proc/zoneinfo names it (--by zone)" },
	{ "pages", 1, NUM, COL_PAGES, NULL, "page frames counted" },
	{ "size", 1, SIZE, COL_SIZE, NULL, "their size" },
	{ "meminfo", 0.3, MW_COL_TRUNC, COL_MEMINFO, NULL,
	  "the /proc/meminfo fields the class corresponds to" },
	{ "meminfo-size", 1, SIZE, COL_MEMINFO_SIZE, NULL, "what those fields say" },
	{ "diff", 1, SIZE, COL_DIFF, NULL, "size - meminfo-size" },
};

#define NR_COLUMNS	(sizeof(columns) / sizeof(columns[0]))
#define DEFAULT_COLS	"class,pages,size,meminfo,meminfo-size,diff"
#define BY_NODE_COLS	"node,class,pages,size"
#define BY_ZONE_COLS	"node,zone,class,pages,size"

enum by { BY_NONE, BY_NODE, BY_ZONE };

struct phys_view {
	struct mw_table_opts opts;
	struct mw_table table;
	enum by by;
	const struct mw_phys_census *census;
	const struct mw_meminfo *mi;
};

/* One line: a class or a part of one, and what meminfo says of it (kB, or -1). */
struct row {
	const char *name;
	uint64_t pages;
	const char *field;	/* NULL: no meminfo counterpart */
	long long kb;
};

static const struct mw_command mw_command_phys;

static void usage(const struct mw_command *cmd)
{
	printf("Usage: %s %s %s\n\n"
	       "Every page frame of the machine, classified in one census by the module,\n"
	       "with the /proc/meminfo fields each class corresponds to and the difference.\n"
	       "A census of a moving system, like page-types -a: no total is exact for an\n"
	       "instant.  Root only (also in lab mode).\n\n"
	       "Options:\n"
	       "      --by node|zone     the classes of each NUMA node or zone (no meminfo)\n",
	       MW_PROG, cmd->name, cmd->args);
	mw_table_help_options(stdout, true);
	mw_table_help_columns(stdout, "Columns", columns, NR_COLUMNS, DEFAULT_COLS);
	printf("\nSee %s(1).\n", MW_PROG);
}

/* A sum of meminfo fields in kB; -1 when one is missing. */
static long long kb_sum(long long a, long long b, long long c)
{
	return a < 0 || b < 0 || c < 0 ? -1 : a + b + c;
}

static void fill(struct phys_view *v, struct mw_line *ln, const struct row *r,
		 unsigned int nid, const char *zone)
{
	struct mw_table *t = &v->table;
	uint64_t page_kb = v->census->page_size / 1024;
	char buf[40];
	size_t i;

	for (i = 0; i < t->nr_cols; i++) {
		const struct mw_col *c = mw_table_col(t, i);
		long long diff;

		switch (c->id) {
		case COL_CLASS:
			mw_table_text(t, ln, i, r->name);
			break;
		case COL_NODE:
			mw_table_number(t, ln, i, nid);
			break;
		case COL_ZONE:
			if (zone)
				mw_table_text(t, ln, i, zone);
			else
				mw_table_unknown(t, ln, i);
			break;
		case COL_PAGES:
			mw_table_number(t, ln, i, r->pages);
			break;
		case COL_SIZE:
			mw_table_kb(t, ln, i, r->pages * page_kb);
			break;
		case COL_MEMINFO:
			if (r->field)
				mw_table_text(t, ln, i, r->field);
			else
				mw_table_unknown(t, ln, i);
			break;
		case COL_MEMINFO_SIZE:
			if (r->field && r->kb >= 0)
				mw_table_kb(t, ln, i, (uint64_t)r->kb);
			else
				mw_table_unknown(t, ln, i);
			break;
		case COL_DIFF:
			if (!r->field || r->kb < 0) {
				mw_table_unknown(t, ln, i);
				break;
			}
			diff = (long long)(r->pages * page_kb) - r->kb;
			if (v->opts.bytes) {
				snprintf(buf, sizeof(buf), "%lld", diff * 1024);
			} else {
				buf[0] = diff < 0 ? '-' : '+';
				mw_human_size((uint64_t)(diff < 0 ? -diff : diff) * 1024,
					      buf + 1, sizeof(buf) - 1);
			}
			mw_table_text(t, ln, i, buf);
			break;
		}
	}
}

#define MAX_ROWS	(32 + MW_PHYS_MAX_ORDER)

/* Rows of a class (@child false) or of a part of the class before it. */
struct rows {
	struct row row[MAX_ROWS];
	bool child[MAX_ROWS];
	size_t n;
};

static void put(struct rows *r, bool child, const char *name, uint64_t pages,
		const char *field, long long kb)
{
	if (r->n == MAX_ROWS)
		return;
	r->row[r->n] = (struct row){ name, pages, field, kb };
	r->child[r->n++] = child;
}

/* A difference of meminfo fields in kB; -1 when one is missing. */
static long long kb_diff(long long a, long long b)
{
	return a < 0 || b < 0 ? -1 : a - b;
}

/*
 * The rows of zone (or sum) @z, in the order of memwalk-client(1), beside
 * the meminfo fields of @m.
 * @orders: names of the free orders' rows.
 */
static void make_rows(const struct mw_phys_zone *z, const struct mw_meminfo *m,
		      size_t page_kb, char orders[][16], struct rows *r)
{
	const struct mw_phys_class *k = z->cls;
	const struct mw_phys_class *a = &k[MEMWALK_PHYS_CLASS_ANON];
	const struct mw_phys_class *f = &k[MEMWALK_PHYS_CLASS_FILE];
	const struct mw_phys_class *h = &k[MEMWALK_PHYS_CLASS_HUGETLB];
	uint64_t total = 0;
	unsigned int c, o;

	for (c = 0; c < MW_PHYS_NR_CLASSES; c++)
		total += k[c].pages;
	put(r, false, "free", k[MEMWALK_PHYS_CLASS_FREE].pages, "MemFree", m->mem_free);
	for (o = 0; o <= MW_PHYS_MAX_ORDER; o++) {
		if (!z->free_order[o])
			continue;
		snprintf(orders[o], 16, "order %u", o);
		put(r, true, orders[o], z->free_order[o], NULL, -1);
	}
	put(r, false, "anon", a->pages,
	    "AnonPages + SwapCached", kb_sum(m->anon_pages, m->swap_cached, 0));
	put(r, true, "mapped", a->mapped, "AnonPages", m->anon_pages);
	put(r, true, "swap cache", a->swapcache, "SwapCached", m->swap_cached);
	put(r, false, "file", f->pages,
	    "Cached + Buffers - Shmem", kb_diff(kb_sum(m->cached, m->buffers, 0), m->shmem));
	put(r, true, "mapped", f->mapped, NULL, -1);
	put(r, true, "dirty", f->dirty, "Dirty", m->dirty);
	put(r, true, "writeback", f->writeback, "Writeback", m->writeback);
	put(r, false, "shmem", k[MEMWALK_PHYS_CLASS_SHMEM].pages, "Shmem", m->shmem);
	put(r, true, "mapped", k[MEMWALK_PHYS_CLASS_SHMEM].mapped, NULL, -1);
	put(r, false, "slab", k[MEMWALK_PHYS_CLASS_SLAB].pages, "Slab", m->slab);
	/* SecPageTables: since 6.2. */
	put(r, false, "pagetables", k[MEMWALK_PHYS_CLASS_PGTABLE].pages,
	    "PageTables + SecPageTables",
	    kb_sum(m->page_tables, m->sec_page_tables < 0 ? 0 : m->sec_page_tables, 0));
	put(r, false, "hugetlb", h->pages, "Hugetlb", m->hugetlb);
	put(r, true, "free", h->hugetlb_free,
	    "HugePages_Free * Hugepagesize",
	    m->hugepages_free < 0 || m->hugepagesize < 0 ? -1 :
	    m->hugepages_free * m->hugepagesize);
	put(r, false, "zero", k[MEMWALK_PHYS_CLASS_ZERO].pages, NULL, -1);
	/* The page frames the kernel does not manage: what MemTotal leaves out. */
	put(r, false, "reserved", k[MEMWALK_PHYS_CLASS_RESERVED].pages,
	    "(all pages) - MemTotal", kb_diff((long long)(total * page_kb), m->mem_total));
	put(r, false, "offline", k[MEMWALK_PHYS_CLASS_OFFLINE].pages, NULL, -1);
	put(r, false, "hwpoison", k[MEMWALK_PHYS_CLASS_HWPOISON].pages,
	    "HardwareCorrupted", m->hardware_corrupted);
	put(r, false, "kernel-other", k[MEMWALK_PHYS_CLASS_OTHER].pages,
	    "KernelStack + VmallocUsed + Percpu",
	    kb_sum(m->kernel_stack, m->vmalloc_used, m->percpu));
	put(r, false, "total", total, NULL, -1);
}

/* The lines of one zone, node or the whole machine (@mi: meminfo, or NULL). */
static bool add_classes(struct phys_view *v, const struct mw_phys_zone *z,
			const struct mw_meminfo *mi, unsigned int nid, const char *zone)
{
	static const struct mw_meminfo none;
	char orders[MW_PHYS_MAX_ORDER + 1][16];
	struct mw_line *parent = NULL, *ln;
	struct rows r = { .n = 0 };
	size_t i;

	make_rows(z, mi ? mi : &none, v->census->page_size / 1024, orders, &r);
	/* Per node or zone: meminfo is system-wide. */
	if (!mi)
		for (i = 0; i < r.n; i++)
			r.row[i].field = NULL;
	for (i = 0; i < r.n; i++) {
		ln = mw_table_line(&v->table, r.child[i] ? parent : NULL);
		if (!ln)
			return false;
		fill(v, ln, &r.row[i], nid, zone);
		if (!r.child[i])
			parent = ln;
	}
	return true;
}

static bool render(struct phys_view *v)
{
	const struct mw_phys_census *c = v->census;
	struct mw_phys_zone node;
	char zone[32];
	size_t i, j;
	bool ok = true;

	if (!mw_table_start(&v->table, "phys"))
		return false;
	if (v->by == BY_NONE) {
		mw_phys_sum(c, &node);
		ok = add_classes(v, &node, v->mi, 0, NULL);
	}
	for (i = 0; ok && v->by == BY_ZONE && i < c->nr_zones; i++) {
		mw_zone_name(c->zones[i].nid, c->zones[i].zone, zone, sizeof(zone));
		ok = add_classes(v, &c->zones[i], NULL, c->zones[i].nid, zone);
	}
	for (i = 0; ok && v->by == BY_NODE && i < c->nr_zones; i = j) {
		struct mw_phys_census one = *c;

		for (j = i; j < c->nr_zones && c->zones[j].nid == c->zones[i].nid; j++)
			;
		one.zones = &c->zones[i];
		one.nr_zones = j - i;
		mw_phys_sum(&one, &node);
		ok = add_classes(v, &node, NULL, c->zones[i].nid, NULL);
	}
	if (!ok) {
		mw_table_free(&v->table);
		mw_err("cannot build the table [%s]", mw_errno_text(ENOMEM));
		return false;
	}
	return mw_table_print(&v->table);
}

/* Options; -1 to go on, or the status to exit with. */
static int parse_options(const struct mw_command *cmd, int argc, char **argv,
			 struct phys_view *v)
{
	static const struct option longopts[] = {
		{ "by", required_argument, NULL, 'B' },
		MW_TABLE_LONGOPTS,
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	opterr = 0;
	optind = 0;
	while ((c = getopt_long(argc, argv, ":r" MW_TABLE_SHORTOPTS "h", longopts,
				NULL)) != -1) {
		if (mw_table_option(&v->opts, c, optarg))
			continue;
		switch (c) {
		case 'B':
			if (!strcmp(optarg, "node")) {
				v->by = BY_NODE;
			} else if (!strcmp(optarg, "zone")) {
				v->by = BY_ZONE;
			} else {
				mw_err("phys: bad --by '%s': expected node or zone", optarg);
				return MW_EXIT_FAILURE;
			}
			break;
		case 'h':
			usage(cmd);
			return MW_EXIT_OK;
		default:
			mw_bad_command_option(cmd, argv, c);
			return MW_EXIT_FAILURE;
		}
	}
	if (optind < argc) {
		mw_err("phys: unexpected argument '%s' (see '%s phys --help')", argv[optind],
		       MW_PROG);
		return MW_EXIT_FAILURE;
	}
	return -1;
}

static int phys_run(const struct mw_command *cmd, int argc, char **argv)
{
	static const char *const deflt[] = { DEFAULT_COLS, BY_NODE_COLS, BY_ZONE_COLS };
	struct phys_view v = { 0 };
	struct mw_phys_census census;
	struct mw_meminfo mi;
	struct mw_device *dev;
	struct mw_error err;
	int ret;

	cmd = &mw_command_phys;
	ret = parse_options(cmd, argc, argv, &v);
	if (ret >= 0)
		return ret;
	if (!mw_table_columns(&v.table, columns, NR_COLUMNS, deflt[v.by], &v.opts, "phys",
			      "this table"))
		return MW_EXIT_FAILURE;
	ret = mw_open_device(&dev);
	if (ret)
		goto out_free_table;
	/* meminfo first: the census moves nothing, reading it allocates a little. */
	ret = mw_meminfo_read("/proc/meminfo", &mi, &err);
	if (!ret)
		ret = mw_phys_census(dev, &census, &err);
	mw_device_close(dev);
	if (ret) {
		ret = mw_report(&err);
		goto out_free_table;
	}
	v.census = &census;
	v.mi = &mi;
	ret = render(&v) ? MW_EXIT_OK : MW_EXIT_FAILURE;
	mw_phys_census_free(&census);
	return ret;

out_free_table:
	mw_table_free(&v.table);
	return ret;
}

MW_COMMAND(phys,
	.name = "phys",
	.args = "[--by node|zone] [OPTIONS]",
	.help = "every page frame in one census, beside /proc/meminfo (root)",
	.run = phys_run);

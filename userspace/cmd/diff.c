// SPDX-License-Identifier: GPL-2.0
/*
 * memwalk-client diff: what changed between two snapshots of a process,
 * page by page, summarized by kind of change with page counts and address
 * ranges; and which VMAs were added, removed or changed.  The library
 * classifies (lib/diff.c); this prints.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diff.h"
#include "memwalk-client.h"
#include "names.h"
#include "snapjson.h"

static void vma_line(const struct mw_vma *vma, const char *suffix)
{
	char mode[5];

	mw_vma_mode(vma, mode);
	printf("  %016" PRIx64 "-%016" PRIx64 " %s %s%s\n", vma->start, vma->end,
	       mode, mw_vma_label(vma), suffix);
}

/* What differs between two VMAs taken for the same one; "" if nothing. */
static void vma_changes(const struct mw_vma_change *c, char *buf, size_t len)
{
	const struct mw_vma *a = c->a, *b = c->b;
	uint64_t gained = b->flags & ~a->flags, lost = a->flags & ~b->flags;
	size_t used = 0;
	unsigned int bit;
	char tmp[16];

#define ADD(...) (used += snprintf(buf + used, used < len ? len - used : 0, __VA_ARGS__))
	buf[0] = '\0';
	if (c->what & MW_VMA_BOUNDS)
		ADD("; was %016" PRIx64 "-%016" PRIx64, a->start, a->end);
	if (c->what & MW_VMA_FLAGS) {
		ADD("; flags");
		for (bit = 0; bit < 64; bit++) {
			if (gained & (1ULL << bit))
				ADD(" +%s", mw_bit_name(&mw_vma_flag_names, bit, tmp));
			if (lost & (1ULL << bit))
				ADD(" -%s", mw_bit_name(&mw_vma_flag_names, bit, tmp));
		}
	}
	if (c->what & MW_VMA_NAME)
		ADD("; was named %s", mw_vma_label(a));
	if (c->what & MW_VMA_BACKING)
		ADD("; backing file or offset changed");
#undef ADD
}

static const char *plural(uint64_t n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

static void print_vmas(const struct mw_diff *d)
{
	char what[512];
	size_t i;

	if (d->added.nr)
		printf("VMAs added: %zu\n", d->added.nr);
	for (i = 0; i < d->added.nr; i++)
		vma_line(d->added.items[i].b, "");
	if (d->removed.nr)
		printf("VMAs removed: %zu\n", d->removed.nr);
	for (i = 0; i < d->removed.nr; i++)
		vma_line(d->removed.items[i].a, "");
	if (d->changed.nr)
		printf("VMAs changed: %zu\n", d->changed.nr);
	for (i = 0; i < d->changed.nr; i++) {
		vma_changes(&d->changed.items[i], what, sizeof(what));
		what[0] = ':';	/* "; was ..." -> ": was ..." */
		vma_line(d->changed.items[i].b, what);
	}
}

static void print_side(const char *label, const struct mw_snapshot *snap)
{
	char when[32];

	mw_format_time(snap->time_ns, when, sizeof(when));
	printf("%s: pid %d (%s) at %s\n", label, snap->pid, snap->comm, when);
}

static int diff_snapshots(const struct mw_snapshot *a, const struct mw_snapshot *b)
{
	struct mw_error err;
	struct mw_diff d;
	size_t ch, i;

	if (mw_diff(a, b, &d, &err)) {
		mw_diff_free(&d);
		mw_err("diff: %s", err.msg);
		return MW_EXIT_FAILURE;
	}
	print_side("A", a);
	print_side("B", b);
	print_vmas(&d);
	for (ch = 0; ch < MW_NR_CHANGES; ch++) {
		const struct mw_change_list *l = &d.changes[ch];

		if (!l->nr)
			continue;
		printf("%s: %" PRIu64 " %s in %zu %s\n", mw_change_name(ch), l->pages,
		       plural(l->pages, "page", "pages"), l->nr,
		       plural(l->nr, "range", "ranges"));
		for (i = 0; i < l->nr; i++) {
			const struct mw_change_range *r = &l->ranges[i];

			printf("  %016" PRIx64 "-%016" PRIx64 " %" PRIu64 "%s%s\n",
			       r->start, r->end, (r->end - r->start) / d.page_size,
			       r->detail[0] ? " " : "", r->detail);
		}
	}
	if (mw_diff_empty(&d))
		printf("no changes\n");
	mw_diff_free(&d);
	return MW_EXIT_OK;
}

static int diff_run(const struct mw_command *cmd, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct mw_snapshot *a = NULL, *b = NULL;
	struct mw_error err;
	int c, ret;

	opterr = 0;
	optind = 0;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		if (c != 'h') {
			mw_bad_option(cmd, argv);
			return MW_EXIT_FAILURE;
		}
		printf("Usage: %s %s %s\n\n"
		       "Show what changed between two snapshots of a process (saved with\n"
		       "--save or -J), page by page and VMA by VMA.\n\n"
		       "Options:\n"
		       "  -h, --help    show this help and exit\n\n"
		       "See %s(1).\n", MW_PROG, cmd->name, cmd->args, MW_PROG);
		return MW_EXIT_OK;
	}
	ret = mw_check_args(cmd, argc, argv, 2);
	if (ret)
		return ret;
	if (mw_snapshot_load(argv[optind], &a, &err) ||
	    mw_snapshot_load(argv[optind + 1], &b, &err))
		ret = mw_report(&err);
	else
		ret = diff_snapshots(a, b);
	mw_snapshot_free(a);
	mw_snapshot_free(b);
	return ret;
}

MW_COMMAND(diff,
	.name = "diff",
	.args = "A.json B.json",
	.help = "show what changed between two saved snapshots",
	.run = diff_run);

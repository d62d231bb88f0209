// SPDX-License-Identifier: GPL-2.0
/*
 * memwalk-client diff: what changed between two snapshots of a process,
 * page by page, summarized by kind of change with page counts and address
 * ranges; and which VMAs were added, removed or changed.  The library
 * classifies (lib/diff.c); this prints, as text or JSON (-J, schema in
 * docs/json-schema.md).  Exit status as diff(1): 0 nothing differs, 1
 * something does, 2 trouble (including snapshots that do not compare:
 * other process, kernel, machine or mode, unless --force).
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diff.h"
#include "memwalk-client.h"
#include "names.h"
#include "print.h"
#include "snapjson.h"

enum {
	DIFF_SAME	= 0,
	DIFF_DIFFERENT	= 1,
	DIFF_TROUBLE	= 2,
};

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

static void print_text(const struct mw_snapshot *a, const struct mw_snapshot *b,
		       const struct mw_diff *d)
{
	print_side("A", a);
	print_side("B", b);
	if (d->start || d->end)
		printf("compared: %016" PRIx64 "-%016" PRIx64 " (where both were walked)\n",
		       d->start, d->end ? d->end : UINT64_MAX);
	print_vmas(d);
	mw_changes_text(d, "");
	if (mw_diff_empty(d))
		printf("no changes\n");
}

/* ---- JSON ------------------------------------------------------------------ */

static void json_side(const char *key, const char *file,
		      const struct mw_snapshot *snap)
{
	char when[32];

	mw_format_time(snap->time_ns, when, sizeof(when));
	open_json_object(PRINT_JSON, key);
	print_string(PRINT_JSON, "file", "", file);
	print_int(PRINT_JSON, "pid", "", snap->pid);
	print_string(PRINT_JSON, "comm", "", snap->comm);
	print_string(PRINT_JSON, "time", "", when);
	print_uint(PRINT_JSON, "time_ns", "", snap->time_ns);
	close_json_object(PRINT_JSON);
}

static void json_vma(const char *key, const struct mw_vma *vma)
{
	char mode[5];

	mw_vma_mode(vma, mode);
	open_json_object(PRINT_JSON, key);
	print_uint(PRINT_JSON, "start", "", vma->start);
	print_uint(PRINT_JSON, "end", "", vma->end);
	print_string(PRINT_JSON, "mode", "", mode);
	print_uint(PRINT_JSON, "flags", "", vma->flags);
	print_string(PRINT_JSON, "name", "", mw_vma_label(vma));
	close_json_object(PRINT_JSON);
}

static void json_vma_list(const char *key, const struct mw_vma_changes *l)
{
	static const char *const what_keys[] = { "bounds", "flags", "name", "backing" };
	size_t i, bit;

	open_json_array(PRINT_JSON, key);
	for (i = 0; i < l->nr; i++) {
		const struct mw_vma_change *c = &l->items[i];

		if (!c->a || !c->b) {
			json_vma(NULL, c->a ? c->a : c->b);
			continue;
		}
		open_json_object(PRINT_JSON, NULL);
		json_vma("vma", c->b);
		json_vma("was", c->a);
		open_json_array(PRINT_JSON, "what");
		for (bit = 0; bit < 4; bit++)
			if (c->what & (1u << bit))
				print_string(PRINT_JSON, NULL, "", what_keys[bit]);
		close_json_array(PRINT_JSON);
		close_json_object(PRINT_JSON);
	}
	close_json_array(PRINT_JSON);
}

static void json_bits(const char *key, unsigned int bits, unsigned int n,
		      const char *(*name)(unsigned int))
{
	unsigned int i;

	open_json_array(PRINT_JSON, key);
	for (i = 0; i < n; i++)
		if (bits & (1u << i))
			print_string(PRINT_JSON, NULL, "", name(1u << i));
	close_json_array(PRINT_JSON);
}

static void print_json(char **files, const struct mw_snapshot *a,
		       const struct mw_snapshot *b, const struct mw_diff *d)
{
	print_begin(true);
	print_uint(PRINT_JSON, "schema_version", "", MW_SCHEMA_VERSION);
	json_side("a", files[0], a);
	json_side("b", files[1], b);
	print_uint(PRINT_JSON, "page_size", "", d->page_size);
	open_json_object(PRINT_JSON, "range");
	print_uint(PRINT_JSON, "start", "", d->start);
	print_uint(PRINT_JSON, "end", "", d->end);
	close_json_object(PRINT_JSON);
	json_bits("mismatches", d->mismatches, MW_NR_MISMATCHES, mw_diff_mismatch_key);
	json_bits("not_compared", d->not_compared, MW_NR_NOT_COMPARED,
		  mw_not_compared_key);
	print_bool(PRINT_JSON, "differ", "", !mw_diff_empty(d));
	open_json_object(PRINT_JSON, "vmas");
	json_vma_list("added", &d->added);
	json_vma_list("removed", &d->removed);
	json_vma_list("changed", &d->changed);
	close_json_object(PRINT_JSON);
	mw_changes_json(d);
	print_end();
}

/* ---- the command ------------------------------------------------------------- */

/*
 * Snapshots that do not compare as they are: refused, or with --force
 * compared anyway after saying on stderr what that leaves out.
 */
static bool comparable(const struct mw_snapshot *a, const struct mw_snapshot *b,
		       const struct mw_diff *d, bool force)
{
	char why[512] = "", one[200];
	size_t used = 0;
	unsigned int bit;

	if (!d->mismatches)
		return true;
	for (bit = 0; bit < MW_NR_MISMATCHES; bit++) {
		if (!(d->mismatches & (1u << bit)))
			continue;
		mw_diff_mismatch_text(a, b, 1u << bit, one, sizeof(one));
		if (force)
			mw_warn("diff: %s: compared anyway", one);
		else if (used < sizeof(why))
			used += snprintf(why + used, sizeof(why) - used, "%s%s",
					 used ? "; " : "", one);
	}
	if (!force) {
		mw_err("diff: the snapshots do not compare: %s (--force compares them anyway)",
		       why);
		return false;
	}
	if (d->mismatches & MW_MISMATCH_PID)
		mw_warn("diff: not compared: the same page of one process (pages of two processes are matched by address)");
	for (bit = 0; bit < MW_NR_NOT_COMPARED; bit++)
		if (d->not_compared & (1u << bit))
			mw_warn("diff: not compared: %s", mw_not_compared_text(1u << bit));
	return true;
}

static int diff_snapshots(char **files, const struct mw_snapshot *a,
			  const struct mw_snapshot *b, bool json, bool force)
{
	struct mw_error err;
	struct mw_diff d;
	int ret;

	if (mw_diff(a, b, &d, &err)) {
		mw_diff_free(&d);
		mw_err("diff: %s", err.msg);
		return DIFF_TROUBLE;
	}
	if (!comparable(a, b, &d, force)) {
		mw_diff_free(&d);
		return DIFF_TROUBLE;
	}
	if (json)
		print_json(files, a, b, &d);
	else
		print_text(a, b, &d);
	ret = mw_diff_empty(&d) ? DIFF_SAME : DIFF_DIFFERENT;
	mw_diff_free(&d);
	return ret;
}

static int diff_run(const struct mw_command *cmd, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'J' },
		{ "force", no_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct mw_snapshot *a = NULL, *b = NULL;
	bool json = false, force = false;
	struct mw_error err;
	int c, ret;

	opterr = 0;
	optind = 0;
	while ((c = getopt_long(argc, argv, "Jfh", longopts, NULL)) != -1) {
		switch (c) {
		case 'J':
			json = true;
			continue;
		case 'f':
			force = true;
			continue;
		case 'h':
			break;
		default:
			mw_bad_option(cmd, argv);
			return DIFF_TROUBLE;
		}
		printf("Usage: %s %s [options] %s\n\n"
		       "Show what changed between two snapshots of a process (saved with\n"
		       "--save or -J), page by page and VMA by VMA.  Exit status 0: no\n"
		       "change, 1: changes, 2: trouble.\n\n"
		       "Options:\n"
		       "  -J, --json    print the changes as JSON\n"
		       "  -f, --force   compare snapshots of different processes, kernels,\n"
		       "                machines or modes, saying what is left out\n"
		       "  -h, --help    show this help and exit\n\n"
		       "See %s(1).\n", MW_PROG, cmd->name, cmd->args, MW_PROG);
		return MW_EXIT_OK;
	}
	if (mw_check_args(cmd, argc, argv, 2))
		return DIFF_TROUBLE;
	if (mw_snapshot_load(argv[optind], &a, &err) ||
	    mw_snapshot_load(argv[optind + 1], &b, &err)) {
		mw_report(&err);
		ret = DIFF_TROUBLE;
	} else {
		ret = diff_snapshots(argv + optind, a, b, json, force);
	}
	mw_snapshot_free(a);
	mw_snapshot_free(b);
	return ret;
}

MW_COMMAND(diff,
	.name = "diff",
	.args = "A.json B.json",
	.help = "show what changed between two saved snapshots",
	.run = diff_run);

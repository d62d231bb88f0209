// SPDX-License-Identifier: GPL-2.0
/*
 * memwalk-client snapshot PID (or just PID): a snapshot of the VMAs and
 * page tables of a process (MEMWALK_IOC_SNAPSHOT), shown as a pmap-like
 * table, page runs, pages per kind (--summary) or JSON.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collect.h"
#include "memwalk-client.h"
#include "print.h"
#include "snapjson.h"
#include "view.h"

/* The options of snapshot alone (view.h numbers the shared ones). */
enum {
	OPT_NO_PFN = 0x200,
	OPT_SUMMARY,
};

static const struct mw_command mw_command_snapshot;

static void usage(const struct mw_command *cmd)
{
	printf("Usage: %s %s %s\n"
	       "       %s PID [OPTIONS]\n\n"
	       "Take a snapshot of the VMAs and page tables of process PID and show it\n"
	       "as a table with one row per VMA (as pmap -X), as page runs, as pages\n"
	       "per kind, or as JSON.\n\n"
	       "Options:\n"
	       "  -r, --range START-END  only the addresses from START to END (hex, page aligned)\n",
	       MW_PROG, cmd->name, cmd->args, MW_PROG);
	mw_view_help_options(stdout, false);
	printf("      --summary          pages per state and flag combination (as page-types)\n"
	       "      --no-folio         page-table entries only, without folio state\n"
	       "      --entry-only       what the entries say, no page looked at (fastest;\n"
	       "                         with --pages, --summary or -J)\n"
	       "      --no-pfn           no PFNs: pages alike but for their PFN make one run\n"
	       "      --save FILE        also write the snapshot to FILE as JSON (mode 0600;\n"
	       "                         '-': to standard output, in place of the view)\n"
	       "  -h, --help             show this help and exit\n");
	mw_view_help_columns(stdout);
	printf("\nSee %s(1).\n", MW_PROG);
}

/* The options that are not the view's; NULL strings when not given. */
struct snapshot_opts {
	const char *range, *save;
	bool summary;
};

/*
 * The command line of @pid for the heading, as pmap shows it (arguments
 * joined by blanks); NULL when it cannot be read or is empty (a kernel
 * thread, a zombie): the heading then has the snapshot's comm.
 */
static const char *read_cmdline(int32_t pid, char *buf, size_t len)
{
	char path[32];
	size_t n, i;
	FILE *fp;

	snprintf(path, sizeof(path), "/proc/%d/cmdline", pid);
	fp = fopen(path, "re");
	if (!fp)
		return NULL;
	n = fread(buf, 1, len - 1, fp);
	fclose(fp);
	while (n && !buf[n - 1])
		n--;
	for (i = 0; i < n; i++)
		if (!buf[i])
			buf[i] = ' ';
	buf[n] = '\0';
	return n ? buf : NULL;
}

/* Options and operands; -1 to go on, or the status to exit with. */
static int parse_options(const struct mw_command *cmd, int argc, char **argv,
			 struct snapshot_opts *so, struct mw_collect_opts *opts,
			 struct mw_view *view)
{
	static const struct option longopts[] = {
		{ "range", required_argument, NULL, 'r' },
		MW_VIEW_LONGOPTS,
		{ "no-folio", no_argument, NULL, MW_OPT_NO_FOLIO },
		{ "entry-only", no_argument, NULL, MW_OPT_ENTRY_ONLY },
		{ "save", required_argument, NULL, MW_OPT_SAVE },
		{ "no-pfn", no_argument, NULL, OPT_NO_PFN },
		{ "summary", no_argument, NULL, OPT_SUMMARY },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	/* "snapshot PID": the PID is an operand; "PID": it is the word */
	bool named = !strcmp(argv[0], cmd->name);
	const char *pid;
	int c;

	opterr = 0;
	optind = 0;
	while ((c = getopt_long(argc, argv, ":r:" MW_VIEW_SHORTOPTS "h", longopts,
				NULL)) != -1) {
		/* -r is --range here; --raw has no short form */
		if (c != 'r' && mw_view_option(view, c, optarg))
			continue;
		switch (c) {
		case 'r':
			so->range = optarg;
			break;
		case MW_OPT_NO_FOLIO:
			opts->no_folio = true;
			break;
		case MW_OPT_ENTRY_ONLY:
			opts->entry_only = true;
			break;
		case MW_OPT_SAVE:
			so->save = optarg;
			break;
		case OPT_NO_PFN:
			opts->no_pfn = true;
			break;
		case OPT_SUMMARY:
			so->summary = true;
			break;
		case 'h':
			usage(cmd);
			return MW_EXIT_OK;
		default:
			mw_bad_command_option(cmd, argv, c);
			return MW_EXIT_FAILURE;
		}
	}
	if (mw_check_args(cmd, argc, argv, named ? 1 : 0))
		return MW_EXIT_FAILURE;
	pid = named ? argv[optind] : argv[0];
	/* The table's anon/file/shared columns need the struct page. */
	if (opts->entry_only && !so->summary && mw_view_is_table(view)) {
		mw_err("%s: --entry-only needs --pages, --summary or -J", cmd->name);
		return MW_EXIT_FAILURE;
	}
	if (so->summary && view->opts.output) {
		mw_err("%s: --output does not apply to --summary, whose columns are fixed",
		       cmd->name);
		return MW_EXIT_FAILURE;
	}
	if (so->save && !strcmp(so->save, "-") &&
	    (view->pages || view->opts.json || view->opts.output || view->opts.noheadings || so->summary)) {
		mw_err("%s: --save - prints the snapshot on standard output in place of any view",
		       cmd->name);
		return MW_EXIT_FAILURE;
	}
	if (!mw_parse_pid(cmd->name, pid, &opts->pid) ||
	    (so->range && !mw_parse_range(so->range, &opts->start, &opts->end)) ||
	    (!so->summary && !mw_view_setup(view, cmd->name)))
		return MW_EXIT_FAILURE;
	return -1;
}

static int snapshot_run(const struct mw_command *cmd, int argc, char **argv)
{
	struct snapshot_opts so = { 0 };
	struct mw_collect_opts opts = { 0 };
	struct mw_view view = { 0 };
	struct mw_snapshot *snap;
	struct mw_device *dev;
	struct mw_error err;
	static char cmdline[4096];
	int ret;

	/* messages and help name "snapshot", also for "memwalk-client PID" */
	cmd = &mw_command_snapshot;
	ret = parse_options(cmd, argc, argv, &so, &opts, &view);
	if (ret >= 0)
		return ret;

	ret = mw_open_device(&dev);
	if (ret)
		return ret;
	ret = mw_collect(dev, &opts, &snap, &err);
	mw_device_close(dev);
	if (ret)
		return mw_report(&err);
	if (so.save)
		ret = mw_save_snapshot(snap, so.save);
	if (!ret && so.save && !strcmp(so.save, "-"))
		;	/* the document was the output */
	else if (!ret && so.summary)
		ret = mw_page_types_render(snap, view.opts.json, view.opts.noheadings);
	else if (!ret) {
		view.cmdline = read_cmdline(opts.pid, cmdline, sizeof(cmdline));
		if (!mw_view_render(snap, &view))
			ret = MW_EXIT_FAILURE;
	}
	mw_snapshot_free(snap);
	return ret;
}

MW_COMMAND(pid,
	.name = "PID",
	.args = "[OPTIONS]",
	.help = "the same as snapshot PID",
	.flags = MW_CMD_PID,
	.run = snapshot_run);

MW_COMMAND(snapshot,
	.name = "snapshot",
	.args = "PID [OPTIONS]",
	.help = "snapshot the VMAs and page tables of process PID",
	.run = snapshot_run);

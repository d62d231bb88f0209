// SPDX-License-Identifier: GPL-2.0
/* memwalk-client show: the views of a snapshot saved as JSON (no module needed). */
#include <getopt.h>
#include <stdio.h>

#include "memwalk-client.h"
#include "snapjson.h"
#include "view.h"

static void usage(const struct mw_command *cmd)
{
	printf("Usage: %s %s %s\n\n"
	       "Show a snapshot saved with --save or -J (FILE '-' is standard input),\n"
	       "as the PID command would have shown it.\n\n"
	       "Options:\n", MW_PROG, cmd->name, cmd->args);
	mw_view_help_options(stdout, true);
	printf("  -h, --help             show this help and exit\n");
	mw_view_help_columns(stdout);
	printf("\nSee %s(1).\n", MW_PROG);
}

static int show_run(const struct mw_command *cmd, int argc, char **argv)
{
	static const struct option longopts[] = {
		MW_VIEW_LONGOPTS,
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct mw_view view = { 0 };
	struct mw_snapshot *snap;
	struct mw_error err;
	int c, ret;

	opterr = 0;
	optind = 0;
	/* getopt permutes: options may follow FILE, as in "show a.json --pages" */
	while ((c = getopt_long(argc, argv, ":" MW_VIEW_SHORTOPTS "rh", longopts,
				NULL)) != -1) {
		if (mw_view_option(&view, c, optarg))
			continue;
		if (c == 'h') {
			usage(cmd);
			return MW_EXIT_OK;
		}
		mw_bad_command_option(cmd, argv, c);
		return MW_EXIT_FAILURE;
	}
	ret = mw_check_args(cmd, argc, argv, 1);
	if (ret)
		return ret;
	if (!mw_view_setup(&view, cmd->name))
		return MW_EXIT_FAILURE;
	if (mw_snapshot_load(argv[optind], &snap, &err))
		return mw_report(&err);
	/* as the PID command refuses --entry-only without --pages or -J */
	if ((snap->flags & MEMWALK_SNAP_ENTRY_ONLY) && mw_view_is_table(&view)) {
		mw_err("%s: %s is an --entry-only snapshot, whose table needs the page: use --pages or -J",
		       cmd->name, argv[optind]);
		ret = MW_EXIT_FAILURE;
	} else if (!mw_view_render(snap, &view)) {
		ret = MW_EXIT_FAILURE;
	}
	mw_snapshot_free(snap);
	return ret;
}

MW_COMMAND(show,
	.name = "show",
	.args = "FILE [OPTIONS]",
	.help = "show a snapshot saved as JSON",
	.run = show_run);

// SPDX-License-Identifier: GPL-2.0
/*
 * memwalk-client PID: a snapshot of the VMAs and page tables of a process
 * (MEMWALK_IOC_SNAPSHOT), shown as a pmap-like table, page runs or JSON.
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

static void usage(const struct mw_command *cmd)
{
	printf("Usage: %s %s %s\n\n"
	       "Take a snapshot of the VMAs and page tables of process PID and show it\n"
	       "as a table with one row per VMA (as pmap -X), as page runs, or as JSON.\n\n"
	       "Options:\n"
	       "  -r, --range START-END  only the addresses from START to END (hex, page aligned)\n",
	       MW_PROG, cmd->name, cmd->args);
	mw_view_help_options(stdout, false);
	printf("      --no-folio         page-table entries only, without folio state\n"
	       "      --entry-only       what the entries say, no page looked at (fastest;\n"
	       "                         with --pages or -J)\n"
	       "      --save FILE        also write the snapshot to FILE as JSON\n"
	       "  -h, --help             show this help and exit\n");
	mw_view_help_columns(stdout);
	printf("\nSee %s(1).\n", MW_PROG);
}

/* START-END, hex with or without 0x, page aligned, START below END. */
static bool parse_range(const char *arg, uint64_t *start, uint64_t *end)
{
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	const char *dash = strchr(arg, '-');
	char *e1, *e2;

	if (!dash || dash == arg || !dash[1] || dash[1] == '-' || arg[0] == '+' ||
	    dash[1] == '+')
		goto out_syntax;
	errno = 0;
	*start = strtoull(arg, &e1, 16);
	*end = strtoull(dash + 1, &e2, 16);
	if (errno || e1 != dash || *e2)
		goto out_syntax;
	if (*start & (page - 1)) {
		mw_err("bad range '%s': START 0x%" PRIx64 " is not a multiple of the page size (%" PRIu64 ")",
		       arg, *start, page);
		return false;
	}
	if (*end & (page - 1)) {
		mw_err("bad range '%s': END 0x%" PRIx64 " is not a multiple of the page size (%" PRIu64 ")",
		       arg, *end, page);
		return false;
	}
	if (*start >= *end) {
		mw_err("bad range '%s': START must be below END", arg);
		return false;
	}
	return true;

out_syntax:
	mw_err("bad range '%s': expected START-END in hex, e.g. 7f0000000000-7f0000200000",
	       arg);
	return false;
}

static int save_json(const struct mw_snapshot *snap, const char *path)
{
	FILE *fp = fopen(path, "w");
	int err;

	if (!fp) {
		mw_err("cannot create %s [%s]", path, mw_errno_text(errno));
		return MW_EXIT_FAILURE;
	}
	print_set_output(fp);
	mw_snapshot_print_json(snap);
	print_set_output(NULL);
	err = ferror(fp) ? errno : 0;
	if (fclose(fp) && !err)
		err = errno;
	if (err) {
		mw_err("cannot write %s [%s]", path, mw_errno_text(err ? err : EIO));
		return MW_EXIT_FAILURE;
	}
	return MW_EXIT_OK;
}

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

static int snapshot_run(const struct mw_command *cmd, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "range", required_argument, NULL, 'r' },
		MW_VIEW_LONGOPTS,
		{ "no-folio", no_argument, NULL, MW_OPT_NO_FOLIO },
		{ "entry-only", no_argument, NULL, MW_OPT_ENTRY_ONLY },
		{ "save", required_argument, NULL, MW_OPT_SAVE },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct mw_collect_opts opts = { 0 };
	struct mw_view view = { 0 };
	struct mw_snapshot *snap;
	struct mw_device *dev;
	struct mw_error err;
	const char *range = NULL, *save = NULL;
	static char cmdline[4096];
	int c, ret;

	opterr = 0;
	optind = 0;
	while ((c = getopt_long(argc, argv, "+r:" MW_VIEW_SHORTOPTS "h", longopts,
				NULL)) != -1) {
		/* -r is --range here; --raw has no short form */
		if (c != 'r' && mw_view_option(&view, c, optarg))
			continue;
		switch (c) {
		case 'r':
			range = optarg;
			break;
		case MW_OPT_NO_FOLIO:
			opts.no_folio = true;
			break;
		case MW_OPT_ENTRY_ONLY:
			opts.entry_only = true;
			break;
		case MW_OPT_SAVE:
			save = optarg;
			break;
		case 'h':
			usage(cmd);
			return MW_EXIT_OK;
		default:
			mw_bad_option(cmd, argv);
			return MW_EXIT_FAILURE;
		}
	}
	ret = mw_check_args(cmd, argc, argv, 0);
	if (ret)
		return ret;
	/* The table's anon/file/shared columns need the struct page. */
	if (opts.entry_only && mw_view_is_table(&view)) {
		mw_err("%s: --entry-only needs --pages or -J", cmd->name);
		return MW_EXIT_FAILURE;
	}
	if (!mw_parse_pid(cmd->name, argv[0], &opts.pid) ||
	    (range && !parse_range(range, &opts.start, &opts.end)) ||
	    !mw_view_setup(&view, cmd->name))
		return MW_EXIT_FAILURE;

	ret = mw_open_device(&dev);
	if (ret)
		return ret;
	ret = mw_collect(dev, &opts, &snap, &err);
	mw_device_close(dev);
	if (ret)
		return mw_report(&err);
	if (save)
		ret = save_json(snap, save);
	if (!ret) {
		view.cmdline = read_cmdline(opts.pid, cmdline, sizeof(cmdline));
		if (!mw_view_render(snap, &view))
			ret = MW_EXIT_FAILURE;
	}
	mw_snapshot_free(snap);
	return ret;
}

MW_COMMAND(snapshot,
	.name = "PID",
	.args = "[OPTIONS]",
	.help = "snapshot the VMAs and page tables of process PID",
	.flags = MW_CMD_PID,
	.run = snapshot_run);

// SPDX-License-Identifier: GPL-2.0
/*
 * memwalk-client ps [PID...]: the memory of every process (or of those
 * named), one line each with its Swap, USS, Pss and Rss as
 * /proc/PID/smaps_rollup counts them (lib/procscan.c); --by user or
 * --by mapping sums them per user or per mapping (lib/procgroup.c).  The
 * tables: ps-view.c.
 *
 * A process that exits meanwhile, or that the module refuses (lab mode),
 * is counted and skipped.  A PID named that does not exist is an error
 * (exit 1, the others still shown); filters (-u, -P) that match nothing
 * give an empty table and exit 0.
 */
#include <errno.h>
#include <getopt.h>
#include <pwd.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "memwalk-client.h"
#include "ps-view.h"

struct ps_opts {
	struct mw_ps_view view;
	const char *user, *pattern;
	int32_t *pids;
	size_t nr_pids;
};

static const struct mw_command mw_command_ps;

static void usage(const struct mw_command *cmd)
{
	printf("Usage: %s %s %s\n\n"
	       "The memory of every process (or of each PID), as smaps_rollup counts it:\n"
	       "one line per process with its Swap, USS, Pss and Rss, biggest Pss first.\n\n"
	       "Options:\n"
	       "  -u, --user USER        only the processes of USER (name or uid)\n"
	       "  -P, --pattern REGEX    only the processes whose command line matches REGEX\n"
	       "                         (POSIX extended)\n"
	       "      --by user|mapping  totals per user, or per mapping over every process\n"
	       "  -s, --sort COL         sort by column COL (sizes biggest first)\n"
	       "  -J, --json             JSON output\n",
	       MW_PROG, cmd->name, cmd->args);
	mw_ps_view_help(stdout);
	printf("\nSee %s(1).\n", MW_PROG);
}

static bool add_pid(struct ps_opts *po, const char *arg)
{
	int32_t *p;

	p = realloc(po->pids, (po->nr_pids + 1) * sizeof(*p));
	if (!p) {
		mw_err("ps: out of memory");
		return false;
	}
	po->pids = p;
	return mw_parse_pid("ps", arg, &p[po->nr_pids++]);
}

/* Options and operands; -1 to go on, or the status to exit with. */
static int parse_options(const struct mw_command *cmd, int argc, char **argv,
			 struct ps_opts *po)
{
	static const struct option longopts[] = {
		{ "user", required_argument, NULL, 'u' },
		{ "pattern", required_argument, NULL, 'P' },
		{ "by", required_argument, NULL, 'B' },
		{ "sort", required_argument, NULL, 's' },
		MW_TABLE_LONGOPTS,
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	opterr = 0;
	optind = 0;
	while ((c = getopt_long(argc, argv, ":u:P:s:r" MW_TABLE_SHORTOPTS "h", longopts,
				NULL)) != -1) {
		if (c == MW_OPT_SORT)
			c = 's';	/* ps sorts its lines itself */
		if (c != 's' && mw_table_option(&po->view.opts, c, optarg))
			continue;
		switch (c) {
		case 'u':
			po->user = optarg;
			break;
		case 'P':
			po->pattern = optarg;
			break;
		case 's':
			po->view.sort = optarg;
			break;
		case 'B':
			if (!strcmp(optarg, "user")) {
				po->view.by = MW_PS_BY_USER;
			} else if (!strcmp(optarg, "mapping")) {
				po->view.by = MW_PS_BY_MAPPING;
			} else {
				mw_err("ps: bad --by '%s': expected user or mapping", optarg);
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
	for (; optind < argc; optind++)
		if (!add_pid(po, argv[optind]))
			return MW_EXIT_FAILURE;
	return -1;
}

/* USER: a name, or a uid in decimal.  Prints the error. */
static bool parse_user(const char *arg, uint32_t *uid)
{
	const struct passwd *pw = getpwnam(arg);
	unsigned long long v = 0;
	const char *s;

	if (pw) {
		*uid = pw->pw_uid;
		return true;
	}
	for (s = arg; *s >= '0' && *s <= '9' && v <= UINT32_MAX; s++)
		v = v * 10 + (uint64_t)(*s - '0');
	if (*arg && !*s && v < UINT32_MAX) {
		*uid = (uint32_t)v;
		return true;
	}
	mw_err("ps: unknown user '%s' (not in the user database, nor a uid)", arg);
	return false;
}

static int scan_and_print(struct ps_opts *po, struct mw_procscan_opts *so)
{
	struct mw_ps_view *v = &po->view;
	struct mw_groups groups = { 0 };
	struct mw_procscan scan;
	struct mw_device *dev;
	struct mw_error err;
	size_t i;
	int ret;

	ret = mw_open_device(&dev);
	if (ret)
		return ret;
	if (v->by == MW_PS_BY_MAPPING) {
		so->each = mw_group_take_vmas;
		so->arg = &groups;
	}
	ret = mw_procscan(dev, so, &scan, &err);
	mw_device_close(dev);
	if (!ret && v->by == MW_PS_BY_USER)
		ret = mw_group_users(&scan, &groups, &err);
	if (!ret && v->by == MW_PS_BY_MAPPING)
		ret = mw_group_mappings(&groups, &err);
	if (ret) {
		ret = mw_report(&err);
	} else {
		for (i = 0; i < scan.nr_missing; i++)
			mw_err("ps: no such process: %d", scan.missing[i]);
		ret = mw_ps_view_render(v, &scan, &groups) && !scan.nr_missing ?
		      MW_EXIT_OK : MW_EXIT_FAILURE;
	}
	mw_groups_free(&groups);
	mw_procscan_free(&scan);
	return ret;
}

static int ps_run(const struct mw_command *cmd, int argc, char **argv)
{
	struct mw_procscan_opts so = { 0 };
	struct ps_opts po = { 0 };
	regex_t re;
	char msg[256];
	int ret;

	cmd = &mw_command_ps;
	ret = parse_options(cmd, argc, argv, &po);
	if (ret >= 0)
		goto out_free_pids;
	ret = MW_EXIT_FAILURE;
	if (po.user && !parse_user(po.user, &so.uid))
		goto out_free_pids;
	so.by_uid = po.user;
	so.pids = po.pids;
	so.nr_pids = po.nr_pids;
	if (!mw_ps_view_setup(&po.view))
		goto out_free_pids;
	if (po.pattern) {
		ret = regcomp(&re, po.pattern, REG_EXTENDED | REG_NOSUB);
		if (ret) {
			regerror(ret, &re, msg, sizeof(msg));
			mw_err("ps: bad regular expression '%s': %s", po.pattern, msg);
			ret = MW_EXIT_FAILURE;
			goto out_free_table;
		}
		so.match = &re;
	}
	ret = scan_and_print(&po, &so);
	if (po.pattern)
		regfree(&re);
out_free_table:
	mw_table_free(&po.view.table);
out_free_pids:
	free(po.pids);
	return ret;
}

MW_COMMAND(ps,
	.name = "ps",
	.args = "[PID...] [OPTIONS]",
	.help = "memory of every process: Swap, USS, Pss, Rss (as smaps_rollup)",
	.run = ps_run);

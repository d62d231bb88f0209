// SPDX-License-Identifier: GPL-2.0
/* memwalk-client: messages and option handling shared by the commands. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "device.h"
#include "memwalk-client.h"

static void vmessage(const char *prefix, const char *fmt, va_list ap)
{
	fprintf(stderr, "%s: %s", MW_PROG, prefix);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void mw_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmessage("", fmt, ap);
	va_end(ap);
}

void mw_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmessage("warning: ", fmt, ap);
	va_end(ap);
}

int mw_report(const struct mw_error *e)
{
	mw_err("%s", e->msg);
	return e->unavailable ? MW_EXIT_UNAVAILABLE : MW_EXIT_FAILURE;
}

int mw_open_device(struct mw_device **devp)
{
	struct mw_error err;

	if (mw_device_open(devp, &err))
		return mw_report(&err);
	mw_check_uapi("module", (*devp)->info.uapi_version);
	return MW_EXIT_OK;
}

/* Once per run: a command that asks both the device and netlink says it once. */
void mw_check_uapi(const char *source, uint32_t uapi_version)
{
	static bool warned;

	if (uapi_version == MEMWALK_UAPI_VERSION || warned)
		return;
	warned = true;
	mw_warn("%s reports memwalk uapi version %u, this client was built with %u; fields may be missing",
		source, uapi_version, MEMWALK_UAPI_VERSION);
}

/*
 * One line for what getopt_long refused, in glibc's words (opterr is 0, so
 * getopt printed nothing): @c is getopt's return, ':' for a missing option
 * argument when the option string starts with ':'.
 */
void mw_option_error(const char *prefix, const char *help, char **argv, int c)
{
	const char *arg = argv[optind - 1];
	int len = (int)strcspn(arg, "=");

	if (c == ':' && !strncmp(arg, "--", 2))
		mw_err("%soption '%s' requires an argument (see '%s')", prefix, arg, help);
	else if (c == ':')
		mw_err("%soption requires an argument -- '%c' (see '%s')", prefix, optopt,
		       help);
	else if (optopt && !strncmp(arg, "--", 2))
		/* a known long option given a value: --json=yes */
		mw_err("%soption '%.*s' doesn't allow an argument (see '%s')", prefix, len,
		       arg, help);
	else if (optopt)
		mw_err("%sinvalid option -- '%c' (see '%s')", prefix, optopt, help);
	else
		mw_err("%sunrecognized option '%.*s' (see '%s')", prefix, len, arg, help);
}

void mw_bad_option(const struct mw_command *cmd, char **argv)
{
	mw_bad_command_option(cmd, argv, '?');
}

void mw_bad_command_option(const struct mw_command *cmd, char **argv, int c)
{
	char prefix[64], help[96];

	snprintf(prefix, sizeof(prefix), "%s: ", cmd->name);
	snprintf(help, sizeof(help), "%s %s --help", MW_PROG, cmd->name);
	mw_option_error(prefix, help, argv, c);
}

/*
 * Options of a command that only prints: -J/--json and -h/--help.
 * Returns -1 to go on, or the status to exit with.
 */
int mw_parse_output_opts(const struct mw_command *cmd, int argc, char **argv,
			 bool *json)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'J' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	*json = false;
	opterr = 0;
	optind = 0;	/* glibc: restart scanning at argv[1] */
	while ((c = getopt_long(argc, argv, ":Jh", longopts, NULL)) != -1) {
		switch (c) {
		case 'J':
			*json = true;
			break;
		case 'h':
			printf("Usage: %s %s %s\n\n"
			       "Options:\n"
			       "  -J, --json    print one JSON object\n"
			       "  -h, --help    show this help and exit\n\n"
			       "See %s(1).\n",
			       MW_PROG, cmd->name, cmd->args, MW_PROG);
			return MW_EXIT_OK;
		default:
			mw_bad_command_option(cmd, argv, c);
			return MW_EXIT_FAILURE;
		}
	}
	return mw_check_args(cmd, argc, argv, 0) ? MW_EXIT_FAILURE : -1;
}

/*
 * After getopt: exactly @want operands must be left.  Returns 0, or the
 * exit status after saying what is wrong.
 */
int mw_check_args(const struct mw_command *cmd, int argc, char **argv,
		  int want)
{
	if (argc - optind > want) {
		mw_err("%s: unexpected argument '%s' (see '%s %s --help')",
		       cmd->name, argv[optind + want], MW_PROG, cmd->name);
		return MW_EXIT_FAILURE;
	}
	if (argc - optind < want) {
		mw_err("%s: missing argument (usage: %s %s %s)",
		       cmd->name, MW_PROG, cmd->name, cmd->args);
		return MW_EXIT_FAILURE;
	}
	return 0;
}

int mw_not_implemented(const struct mw_command *cmd)
{
	mw_err("%s: not implemented yet", cmd->name);
	return MW_EXIT_FAILURE;
}

bool mw_parse_pid(const char *cmd, const char *arg, int32_t *pid)
{
	unsigned long long v = 0;
	const char *s;

	for (s = arg; *s >= '0' && *s <= '9' && v <= INT32_MAX; s++)
		v = v * 10 + (*s - '0');
	if (!*arg || *s || v == 0 || v > INT32_MAX) {
		mw_err("%s: bad PID '%s': expected a positive decimal number", cmd, arg);
		return false;
	}
	*pid = (int32_t)v;
	return true;
}

/* START-END, hex with or without 0x, page aligned, START below END. */
bool mw_parse_range(const char *arg, uint64_t *start, uint64_t *end)
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

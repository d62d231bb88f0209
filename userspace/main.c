// SPDX-License-Identifier: GPL-2.0
/*
 * memwalk-client: user-space client of the memwalk kernel module.
 *
 * main() handles the global options and hands the rest of the command line
 * to the command named by the first word (or to the PID command for a
 * number); the commands register themselves with MW_COMMAND().
 */
#include <errno.h>
#include <getopt.h>
#include <locale.h>
#include <stdio.h>
#include <string.h>

#include "memwalk-client.h"

/* Bounds of the "mw_commands" section, provided by the linker. */
extern const struct mw_command *__start_mw_commands[];
extern const struct mw_command *__stop_mw_commands[];

#define for_each_command(p) \
	for (p = __start_mw_commands; p < __stop_mw_commands; p++)

static void usage(FILE *out)
{
	const struct mw_command **p;
	char synopsis[64];

	fprintf(out, "Usage: %s [OPTIONS] COMMAND [ARGS]\n\n"
		"Inspect the memwalk kernel module.\n\nCommands:\n", MW_PROG);
	for_each_command(p) {
		snprintf(synopsis, sizeof(synopsis), "%s %s", (*p)->name,
			 (*p)->args);
		fprintf(out, "  %-20s %s\n", synopsis, (*p)->help);
	}
	fprintf(out, "\nOptions:\n"
		"  -h, --help           show this help and exit\n"
		"  -V, --version        show the version and exit\n"
		"\nEnvironment:\n"
		"  MEMWALK_DEVICE       device node to use instead of %s\n"
		"\nSee %s(1).\n", MEMWALK_DEVICE_PATH, MW_PROG);
}

static bool is_pid(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

static const struct mw_command *find_command(const char *word)
{
	const struct mw_command **p;
	bool pid = is_pid(word);

	for_each_command(p) {
		if (pid ? ((*p)->flags & MW_CMD_PID) :
			  !((*p)->flags & MW_CMD_PID) && !strcmp((*p)->name, word))
			return *p;
	}
	return NULL;
}

static int run(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	const struct mw_command *cmd;
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "+hV", longopts, NULL)) != -1) {
		switch (c) {
		case 'h':
			usage(stdout);
			return MW_EXIT_OK;
		case 'V':
			printf("%s %s (memwalk uapi %u)\n", MW_PROG,
			       MEMWALK_CLIENT_VERSION, MEMWALK_UAPI_VERSION);
			return MW_EXIT_OK;
		default:
			if (optopt && strncmp(argv[optind - 1], "--", 2) != 0)
				mw_err("invalid option -- '%c' (see --help)", optopt);
			else
				mw_err("unrecognized option '%s' (see --help)",
				       argv[optind - 1]);
			return MW_EXIT_FAILURE;
		}
	}
	if (optind >= argc) {
		mw_err("no command given (see --help)");
		return MW_EXIT_FAILURE;
	}
	cmd = find_command(argv[optind]);
	if (!cmd) {
		mw_err("unknown command '%s' (see --help)", argv[optind]);
		return MW_EXIT_FAILURE;
	}
	return cmd->run(cmd, argc - optind, argv + optind);
}

int main(int argc, char **argv)
{
	int ret;

	/* the tables' widths and escaping follow the locale's encoding */
	setlocale(LC_CTYPE, "");
	ret = run(argc, argv);

	/* Output that did not reach its destination is a failure too. */
	if (fflush(stdout) != 0 || ferror(stdout)) {
		mw_err("write error on standard output [%s]", mw_errno_text(errno));
		return MW_EXIT_FAILURE;
	}
	return ret;
}

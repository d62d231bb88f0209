// SPDX-License-Identifier: GPL-2.0
/*
 * memwalk-client: user-space client of the memwalk kernel module.
 *
 * main() handles the global options and hands the rest of the command line
 * to the command named by the first word (or to the snapshot command for a
 * number, "memwalk-client PID" being "memwalk-client snapshot PID"); the
 * commands register themselves with MW_COMMAND().
 */
#include <errno.h>
#include <getopt.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
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
		fprintf(out, "  %-24s %s\n", synopsis, (*p)->help);
	}
	fprintf(out, "\nOptions:\n"
		"  -J, --json               JSON output (passed on to the command)\n"
		"  -n, --noheadings         no headings (passed on to the command)\n"
		"  -o, --output COLS        the columns to print (passed on to the command)\n"
		"  -b, --bytes              sizes in bytes (passed on to the command)\n"
		"  -h, --help               show this help and exit\n"
		"  -V, --version            show the version and exit\n"
		"\nEnvironment:\n"
		"  MEMWALK_DEVICE           device node to use instead of %s\n"
		"\nThe options of a command: '%s COMMAND --help'.\n"
		"See %s(1).\n", MEMWALK_DEVICE_PATH, MW_PROG, MW_PROG);
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

/*
 * The global options -J, -n, -b and -o may come before the command, as in
 * "memwalk-client -J info": they are handed to the command as if they had
 * followed its word, where the command checks them (and says if it has no
 * such option).  @argv[@first .. @optend) are those words; the command
 * gets its word, them, then the rest.
 */
static int run_command(const struct mw_command *cmd, int argc, char **argv,
		       int first, int optend)
{
	int n = 0, i, ret;
	char **args = calloc(argc + 1, sizeof(*args));

	if (!args) {
		mw_err("out of memory");
		return MW_EXIT_FAILURE;
	}
	args[n++] = argv[optend];
	for (i = first; i < optend; i++)
		if (strcmp(argv[i], "--") != 0)	/* it ended the global options */
			args[n++] = argv[i];
	for (i = optend + 1; i < argc; i++)
		args[n++] = argv[i];
	ret = cmd->run(cmd, n, args);
	free(args);
	return ret;
}

static int run(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'J' },
		{ "bytes", no_argument, NULL, 'b' },
		{ "noheadings", no_argument, NULL, 'n' },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	const struct mw_command *cmd;
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:Jnbo:hV", longopts, NULL)) != -1) {
		switch (c) {
		case 'J':
		case 'n':
		case 'o':
		case 'b':
			break;		/* for the command */
		case 'h':
			usage(stdout);
			return MW_EXIT_OK;
		case 'V':
			printf("%s %s (memwalk uapi %u)\n", MW_PROG,
			       MEMWALK_CLIENT_VERSION, MEMWALK_UAPI_VERSION);
			return MW_EXIT_OK;
		default:
			mw_option_error("", MW_PROG " --help", argv, c);
			return MW_EXIT_FAILURE;
		}
	}
	if (optind >= argc) {
		mw_err("no command given (see '%s --help')", MW_PROG);
		return MW_EXIT_FAILURE;
	}
	cmd = find_command(argv[optind]);
	if (!cmd) {
		mw_err("unknown command '%s' (see '%s --help')", argv[optind], MW_PROG);
		return MW_EXIT_FAILURE;
	}
	return run_command(cmd, argc, argv, 1, optind);
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

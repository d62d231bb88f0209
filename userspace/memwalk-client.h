/* SPDX-License-Identifier: GPL-2.0 */
/*
 * memwalk-client: the client's own layer, over libmemwalk (lib/).
 *
 * The library does the work and returns errors (lib/error.h); the client
 * parses options, prints, and turns errors into messages and exit
 * statuses.  Each command is one file in cmd/ and registers itself with
 * MW_COMMAND() in the one command table, the linker section "mw_commands"
 * that main.c walks (the way batctl does): adding a command is adding a
 * file (and its object to the Makefile, whose order help follows).
 */
#ifndef MEMWALK_CLIENT_H
#define MEMWALK_CLIENT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <linux/memwalk.h>

#include "error.h"
#include "ptedecode.h"
#include "version.h"

/* Exit statuses, documented in memwalk-client(1). */
enum {
	MW_EXIT_OK		= 0,
	MW_EXIT_FAILURE		= 1,	/* usage error or failed operation */
	MW_EXIT_UNAVAILABLE	= 2,	/* module not loaded, or permission denied */
};

/* The command is chosen by a numeric first argument (a PID), not by name. */
#define MW_CMD_PID		(1u << 0)

struct mw_command {
	const char *name;	/* word on the command line ("PID" for MW_CMD_PID) */
	const char *args;	/* synopsis after the name, for usage */
	const char *help;	/* one line for --help */
	unsigned int flags;	/* MW_CMD_* */
	/* argv[0] is the command word; returns an MW_EXIT_* status */
	int (*run)(const struct mw_command *cmd, int argc, char **argv);
};

#define MW_COMMAND(sym, ...)						\
	static const struct mw_command mw_command_##sym = { __VA_ARGS__ }; \
	static const struct mw_command *mw_command_ptr_##sym		\
	__attribute__((used, section("mw_commands"))) = &mw_command_##sym

/* common.c */
void mw_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void mw_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Print @e's message; returns the exit status it stands for. */
int mw_report(const struct mw_error *e);
void mw_check_uapi(const char *source, uint32_t uapi_version);
int mw_parse_output_opts(const struct mw_command *cmd, int argc, char **argv,
			 bool *json);
/*
 * What getopt_long refused (@c: '?', or ':' for a missing argument with an
 * option string that starts with ':'), as one line naming @help.
 */
void mw_option_error(const char *prefix, const char *help, char **argv, int c);
void mw_bad_command_option(const struct mw_command *cmd, char **argv, int c);
/* The same for '?' (commands whose options take no argument). */
void mw_bad_option(const struct mw_command *cmd, char **argv);
int mw_check_args(const struct mw_command *cmd, int argc, char **argv,
		  int want);
int mw_not_implemented(const struct mw_command *cmd);
/* START-END, hex, page aligned, START below END (-r); prints the error. */
bool mw_parse_range(const char *arg, uint64_t *start, uint64_t *end);
/* Parse a PID argument; prints the error. */
bool mw_parse_pid(const char *cmd, const char *arg, int32_t *pid);

/* save.c: --save FILE ("-": stdout), atomically, mode 0600; an exit status */
struct mw_snapshot;
int mw_save_snapshot(const struct mw_snapshot *snap, const char *path);
/* pagetypes-view.c: --summary, pages per kind; an exit status */
int mw_page_types_render(const struct mw_snapshot *snap, bool json, bool noheadings);

/* changes-view.c: a diff's change lists, as text (@indent before each line) or JSON */
struct mw_diff;
void mw_changes_text(const struct mw_diff *d, const char *indent);
void mw_changes_json(const struct mw_diff *d);

/*
 * cmd/translate.c: a translation's levels, decoded when @x86, and the
 * physical address, as translate prints them (watch's detail pane too).
 */
void mw_translation_levels(FILE *fp, const struct memwalk_translate *t,
			   const struct mw_pte_format *fmt);

/*
 * Open the device (lib/device.h) for a command: on failure say why and
 * return the exit status; warn about a module of another uapi version.
 */
struct mw_device;
int mw_open_device(struct mw_device **devp);

#endif /* MEMWALK_CLIENT_H */

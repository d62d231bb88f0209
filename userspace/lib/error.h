/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libmemwalk: how the library reports a failure.  Library functions never
 * print and never exit: they return 0 or a negative errno and, given a
 * struct mw_error, fill in the one line the user should read (which file
 * and line, which attribute, which request) for the command to print.
 */
#ifndef MEMWALK_ERROR_H
#define MEMWALK_ERROR_H

#include <stdbool.h>

/* A path (PATH_MAX) and a message about it. */
#define MW_ERROR_MAX	8192

struct mw_error {
	int code;		/* the negative errno returned */
	bool unavailable;	/* the module is not there, or we may not use it */
	char msg[MW_ERROR_MAX];	/* one line, without the program's name */
};

/* Fill in @e (if not NULL) and return @code (a negative errno). */
int mw_error_set(struct mw_error *e, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* The same, for a module that is missing or refuses us (permissions). */
int mw_error_unavailable(struct mw_error *e, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * "ENOENT: No such file or directory", for the end of a message.  A
 * static buffer: valid until the next call.
 */
const char *mw_errno_text(int err);

#endif /* MEMWALK_ERROR_H */

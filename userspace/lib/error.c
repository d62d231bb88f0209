// SPDX-License-Identifier: GPL-2.0
/* libmemwalk: errors as values, see error.h. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "error.h"

static int set(struct mw_error *e, int code, bool unavailable,
	       const char *fmt, va_list ap)
{
	if (e) {
		e->code = code;
		e->unavailable = unavailable;
		vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	}
	return code;
}

int mw_error_set(struct mw_error *e, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	set(e, code, false, fmt, ap);
	va_end(ap);
	return code;
}

int mw_error_unavailable(struct mw_error *e, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	set(e, code, true, fmt, ap);
	va_end(ap);
	return code;
}

const char *mw_errno_text(int err)
{
	static char buf[128];
	const char *name = strerrorname_np(err);

	snprintf(buf, sizeof(buf), "%s: %s", name ? name : "errno",
		 strerror(err));
	return buf;
}

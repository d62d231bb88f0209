/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The host test programs' expectation: check() prints one FAIL line for a
 * false @ok and counts it in failed, which main() turns into its status.
 */
#ifndef MW_TEST_CHECK_H
#define MW_TEST_CHECK_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>

static int failed;

static void __attribute__((format(printf, 2, 3)))
check(bool ok, const char *fmt, ...)
{
	va_list ap;

	if (ok)
		return;
	failed++;
	printf("FAIL: ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

#endif

// SPDX-License-Identifier: GPL-2.0
/*
 * Text/JSON print layer; see print.h.  JSON is written compactly on one
 * line; strings are escaped per RFC 8259 (bytes >= 0x80 are passed through,
 * so they must be UTF-8, which kernel identifiers are).
 */
#include <stdio.h>
#include <stdlib.h>

#include "print.h"

#define MAX_DEPTH	8

static bool json;
static unsigned int depth;
static bool first[MAX_DEPTH];	/* no member printed yet at this depth */

static void json_string(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		unsigned char c = *s;

		if (c == '"' || c == '\\') {
			putchar('\\');
			putchar(c);
		} else if (c < 0x20 || c == 0x7f) {
			printf("\\u%04x", c);
		} else {
			putchar(c);
		}
	}
	putchar('"');
}

/* Separator and, outside arrays, the key of the next member. */
static void json_member(const char *key)
{
	if (!first[depth])
		putchar(',');
	first[depth] = false;
	if (key) {
		json_string(key);
		putchar(':');
	}
}

static void json_open(char c)
{
	if (depth + 1 >= MAX_DEPTH)
		abort();	/* a programming error, not an input error */
	putchar(c);
	first[++depth] = true;
}

void print_begin(bool as_json)
{
	json = as_json;
	depth = 0;
	first[0] = true;
	if (json)
		json_open('{');
}

void print_end(void)
{
	if (!json)
		return;
	putchar('}');
	putchar('\n');
	depth--;
}

bool print_is_json(void)
{
	return json;
}

void print_string(enum output_type type, const char *key, const char *fmt,
		  const char *value)
{
	if (json && (type & PRINT_JSON)) {
		json_member(key);
		json_string(value);
	} else if (!json && (type & PRINT_FP)) {
		printf(fmt, value);
	}
}

void print_uint(enum output_type type, const char *key, const char *fmt,
		uint64_t value)
{
	if (json && (type & PRINT_JSON)) {
		json_member(key);
		printf("%llu", (unsigned long long)value);
	} else if (!json && (type & PRINT_FP)) {
		printf(fmt, value);
	}
}

void open_json_array(enum output_type type, const char *key)
{
	if (json && (type & PRINT_JSON)) {
		json_member(key);
		json_open('[');
	}
}

void close_json_array(enum output_type type)
{
	if (json && (type & PRINT_JSON)) {
		putchar(']');
		depth--;
	}
}

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One print layer for text and JSON, in the manner of iproute2's
 * print_*(PRINT_ANY, key, fmt, value): in text mode @fmt is printed with the
 * value, in JSON mode @key and the value are; @type picks the modes in which
 * a call prints at all.  A NULL @key is for values inside a JSON array.
 */
#ifndef MEMWALK_PRINT_H
#define MEMWALK_PRINT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

enum output_type {
	PRINT_FP	= 1,	/* text only */
	PRINT_JSON	= 2,	/* JSON only */
	PRINT_ANY	= PRINT_FP | PRINT_JSON,
};

void print_set_output(FILE *fp);	/* where to print; NULL: stdout */
void print_begin(bool json);	/* JSON: opens the top-level object */
void print_end(void);		/* JSON: closes it and ends the line */
bool print_is_json(void);

void print_string(enum output_type type, const char *key, const char *fmt,
		  const char *value);
void print_uint(enum output_type type, const char *key, const char *fmt,
		uint64_t value);
void print_int(enum output_type type, const char *key, const char *fmt,
	       int64_t value);
void print_bool(enum output_type type, const char *key, const char *fmt,
		bool value);
void open_json_array(enum output_type type, const char *key);
void close_json_array(enum output_type type);
void open_json_object(enum output_type type, const char *key);
void close_json_object(enum output_type type);

/*
 * Text for a terminal: @s with what must not reach one escaped as \xHH, as
 * libsmartcols does it (control characters, bytes that are not a printable
 * character of the locale, and the backslash of a literal "\x").
 */
void print_escaped(FILE *fp, const char *s);

#endif /* MEMWALK_PRINT_H */

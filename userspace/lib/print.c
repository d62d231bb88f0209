// SPDX-License-Identifier: GPL-2.0
/*
 * Text/JSON print layer; see print.h.  JSON is written compactly on one
 * line; strings are escaped per RFC 8259, and bytes that are not UTF-8
 * (a file name in Latin-1, say) become U+FFFD, so that the output is
 * always valid JSON.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>
#include <wctype.h>

#include "json.h"
#include "print.h"

#define MAX_DEPTH	8

static FILE *out;
static bool json;
static unsigned int depth;
static bool first[MAX_DEPTH];	/* no member printed yet at this depth */

static FILE *output(void)
{
	return out ? out : stdout;
}

static void json_string(const char *s)
{
	FILE *fp = output();

	putc('"', fp);
	while (*s) {
		unsigned char c = *s;
		size_t n;

		if (c == '"' || c == '\\') {
			putc('\\', fp);
			putc(c, fp);
		} else if (c < 0x20 || c == 0x7f) {
			fprintf(fp, "\\u%04x", c);
		} else if (c >= 0x80) {
			n = json_utf8_length((const unsigned char *)s, strlen(s));
			if (n)
				fwrite(s, 1, n, fp);
			else
				fputs("\xef\xbf\xbd", fp);	/* U+FFFD */
			s += n ? n : 1;
			continue;
		} else {
			putc(c, fp);
		}
		s++;
	}
	putc('"', fp);
}

/* Separator and, outside arrays, the key of the next member. */
static void json_member(const char *key)
{
	if (!first[depth])
		putc(',', output());
	first[depth] = false;
	if (key) {
		json_string(key);
		putc(':', output());
	}
}

static void json_open(char c)
{
	if (depth + 1 >= MAX_DEPTH)
		abort();	/* a programming error, not an input error */
	putc(c, output());
	first[++depth] = true;
}

static void json_close(char c)
{
	putc(c, output());
	depth--;
}

void print_set_output(FILE *fp)
{
	out = fp;
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
	json_close('}');
	putc('\n', output());
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
		fprintf(output(), fmt, value);
	}
}

/*
 * @value in decimal: what "%llu" prints, without printf's parsing of its
 * format (a watch frame prints thousands of numbers ten times a second).
 */
static void json_uint(uint64_t value)
{
	char buf[24], *p = buf + sizeof(buf);

	do {
		*--p = '0' + value % 10;
		value /= 10;
	} while (value);
	fwrite(p, 1, buf + sizeof(buf) - p, output());
}

void print_uint(enum output_type type, const char *key, const char *fmt,
		uint64_t value)
{
	if (json && (type & PRINT_JSON)) {
		json_member(key);
		json_uint(value);
	} else if (!json && (type & PRINT_FP)) {
		fprintf(output(), fmt, value);
	}
}

void print_int(enum output_type type, const char *key, const char *fmt,
	       int64_t value)
{
	if (json && (type & PRINT_JSON)) {
		json_member(key);
		fprintf(output(), "%lld", (long long)value);
	} else if (!json && (type & PRINT_FP)) {
		fprintf(output(), fmt, value);
	}
}

void print_bool(enum output_type type, const char *key, const char *fmt,
		bool value)
{
	if (json && (type & PRINT_JSON)) {
		json_member(key);
		fputs(value ? "true" : "false", output());
	} else if (!json && (type & PRINT_FP)) {
		fprintf(output(), fmt, value ? "true" : "false");
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
	if (json && (type & PRINT_JSON))
		json_close(']');
}

void open_json_object(enum output_type type, const char *key)
{
	if (json && (type & PRINT_JSON)) {
		json_member(key);
		json_open('{');
	}
}

void close_json_object(enum output_type type)
{
	if (json && (type & PRINT_JSON))
		json_close('}');
}

void print_escaped(FILE *fp, const char *s)
{
	mbstate_t st;
	size_t n, i;
	wchar_t wc;

	memset(&st, 0, sizeof(st));
	while (*s) {
		n = mbrtowc(&wc, s, strlen(s), &st);
		if (n == (size_t)-1 || n == (size_t)-2 || !iswprint(wc) ||
		    (*s == '\\' && s[1] == 'x')) {
			/* one byte at a time, and start afresh after it */
			n = 1;
			memset(&st, 0, sizeof(st));
			fprintf(fp, "\\x%02x", (unsigned char)*s);
		} else {
			for (i = 0; i < n; i++)
				putc(s[i], fp);
		}
		s += n;
	}
}

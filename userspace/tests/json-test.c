// SPDX-License-Identifier: GPL-2.0
/*
 * Drives json.c for host-tests.sh.  Reads a document on standard input.
 *   json-test dump   print it back compactly (keys in document order,
 *                    numbers as written); errors as "L:C: message", exit 1
 *   json-test u64    convert the number document with json_u64()
 *   json-test i64    convert the number document with json_i64()
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"

static void dump_string(FILE *out, const char *s)
{
	putc('"', out);
	for (; *s; s++) {
		unsigned char c = *s;

		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c < 0x20)
			fprintf(out, "\\u%04x", c);
		else
			putc(c, out);
	}
	putc('"', out);
}

/* The document's tokens to @out; false at an error. */
static bool dump(struct json_reader *rd, FILE *out)
{
	struct json_token tok;
	bool first = true;	/* no ',' before the next item */

	for (;;) {
		enum json_token_type type = json_next(rd, &tok);

		if (type == JSON_ERROR)
			return false;
		if (type == JSON_END)
			return true;
		if (type == JSON_ARRAY_END || type == JSON_OBJECT_END) {
			putc(type == JSON_ARRAY_END ? ']' : '}', out);
			first = false;
			continue;
		}
		if (!first)
			putc(',', out);
		first = false;
		switch (type) {
		case JSON_KEY:
			dump_string(out, tok.text);
			putc(':', out);
			first = true;
			break;
		case JSON_VALUE_NULL:	fputs("null", out); break;
		case JSON_VALUE_TRUE:	fputs("true", out); break;
		case JSON_VALUE_FALSE:	fputs("false", out); break;
		case JSON_VALUE_NUMBER:	fputs(tok.text, out); break;
		case JSON_VALUE_STRING:	dump_string(out, tok.text); break;
		case JSON_ARRAY_BEGIN:
		case JSON_OBJECT_BEGIN:
			putc(type == JSON_ARRAY_BEGIN ? '[' : '{', out);
			first = true;
			break;
		default:
			break;
		}
	}
}

/* A document of one number: its text, or NULL. */
static char *number(struct json_reader *rd)
{
	struct json_token tok;
	char *text;

	if (json_next(rd, &tok) != JSON_VALUE_NUMBER)
		return NULL;
	text = strdup(tok.text);
	if (text && json_next(rd, &tok) != JSON_END) {
		free(text);
		return NULL;
	}
	return text;
}

int main(int argc, char **argv)
{
	struct json_reader *rd = json_reader_new(stdin);
	char *out = NULL, *num = NULL;
	size_t out_len = 0;
	FILE *mem;
	int ret = 0;

	if (argc != 2 || !rd) {
		fprintf(stderr, "usage: %s dump|u64|i64 <DOCUMENT\n", argv[0]);
		return 2;
	}
	if (!strcmp(argv[1], "dump")) {
		mem = open_memstream(&out, &out_len);
		if (!mem)
			return 2;
		if (dump(rd, mem)) {
			fclose(mem);
			printf("%s\n", out);
		} else {
			const struct json_error *err = json_reader_error(rd);

			fclose(mem);
			printf("%u:%u: %s\n", err->line, err->column, err->message);
			ret = 1;
		}
		free(out);
	} else if (!strcmp(argv[1], "u64")) {
		uint64_t v;

		num = number(rd);
		if (json_u64(num, &v))
			printf("%" PRIu64 "\n", v);
		else
			ret = printf("not an unsigned 64-bit integer\n") > 0;
	} else if (!strcmp(argv[1], "i64")) {
		int64_t v;

		num = number(rd);
		if (json_i64(num, &v))
			printf("%" PRId64 "\n", v);
		else
			ret = printf("not a signed 64-bit integer\n") > 0;
	} else {
		ret = 2;
	}
	free(num);
	json_reader_free(rd);
	return ret;
}

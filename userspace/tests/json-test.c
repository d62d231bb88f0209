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

static void dump_string(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		unsigned char c = *s;

		if (c == '"' || c == '\\')
			printf("\\%c", c);
		else if (c < 0x20)
			printf("\\u%04x", c);
		else
			putchar(c);
	}
	putchar('"');
}

static void dump(const struct json_value *v)
{
	size_t i;

	switch (v->type) {
	case JSON_NULL:
		printf("null");
		break;
	case JSON_BOOL:
		printf(v->boolean ? "true" : "false");
		break;
	case JSON_NUMBER:
		printf("%s", v->number);
		break;
	case JSON_STRING:
		dump_string(v->string);
		break;
	case JSON_ARRAY:
		putchar('[');
		for (i = 0; i < v->array.count; i++) {
			if (i)
				putchar(',');
			dump(v->array.items[i]);
		}
		putchar(']');
		break;
	case JSON_OBJECT:
		putchar('{');
		for (i = 0; i < v->object.count; i++) {
			if (i)
				putchar(',');
			dump_string(v->object.members[i].key);
			putchar(':');
			dump(v->object.members[i].value);
		}
		putchar('}');
		break;
	}
}

int main(int argc, char **argv)
{
	struct json_error err;
	struct json_doc *doc;
	size_t len = 0, cap = 4096, n;
	char *buf = malloc(cap);
	int ret = 0;

	if (argc != 2 || !buf) {
		fprintf(stderr, "usage: %s dump|u64|i64 <DOCUMENT\n", argv[0]);
		return 2;
	}
	while ((n = fread(buf + len, 1, cap - len, stdin)) > 0) {
		len += n;
		if (len == cap) {
			cap *= 2;
			buf = realloc(buf, cap);
			if (!buf)
				return 2;
		}
	}
	doc = json_parse(buf, len, &err);
	free(buf);
	if (!doc) {
		printf("%u:%u: %s\n", err.line, err.column, err.message);
		return 1;
	}
	if (!strcmp(argv[1], "dump")) {
		dump(json_root(doc));
		putchar('\n');
	} else if (!strcmp(argv[1], "u64")) {
		uint64_t v;

		if (json_u64(json_root(doc), &v))
			printf("%" PRIu64 "\n", v);
		else
			ret = printf("not an unsigned 64-bit integer\n") > 0;
	} else if (!strcmp(argv[1], "i64")) {
		int64_t v;

		if (json_i64(json_root(doc), &v))
			printf("%" PRId64 "\n", v);
		else
			ret = printf("not a signed 64-bit integer\n") > 0;
	} else {
		ret = 2;
	}
	json_free(doc);
	return ret;
}

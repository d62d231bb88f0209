/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A small, strict JSON (RFC 8259) reader: the whole document is parsed into
 * a tree held in one arena, freed at once by json_free().
 *
 * Strict means: no comments, no trailing commas, no leading zeros, no
 * duplicate keys in an object, strings must be valid UTF-8; one deviation
 * from the RFC: "\u0000" is rejected, so that every string is a C string.
 * Numbers keep the text they were written with, so that 64-bit integers
 * convert exactly (json_u64(), json_i64()).  Nesting is limited to
 * JSON_MAX_DEPTH.  Errors carry a line and column (1-based, in bytes).
 */
#ifndef MEMWALK_JSON_H
#define MEMWALK_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define JSON_MAX_DEPTH	64

enum json_type {
	JSON_NULL,
	JSON_BOOL,
	JSON_NUMBER,
	JSON_STRING,
	JSON_ARRAY,
	JSON_OBJECT,
};

struct json_value;

struct json_member {
	const char *key;
	struct json_value *value;
};

struct json_value {
	enum json_type type;
	unsigned int line, column;	/* where the value starts */
	union {
		bool boolean;
		const char *number;	/* the text, validated against the grammar */
		const char *string;	/* decoded, NUL-terminated */
		struct {
			struct json_value **items;
			size_t count;
		} array;
		struct {
			struct json_member *members;	/* in document order */
			size_t count;
		} object;
	};
};

struct json_error {
	unsigned int line, column;
	char message[128];
};

struct json_doc;

/* NULL on error, with @err filled in. */
struct json_doc *json_parse(const char *text, size_t len, struct json_error *err);
const struct json_value *json_root(const struct json_doc *doc);
void json_free(struct json_doc *doc);

const char *json_type_name(enum json_type type);
/* The member @key of @object, or NULL (also if @object is not an object). */
const struct json_value *json_get(const struct json_value *object, const char *key);
/*
 * Length of the well-formed UTF-8 sequence at @s (at most @n bytes), or 0:
 * no overlong forms, no surrogates, nothing above U+10FFFF.  For writers.
 */
size_t json_utf8_length(const unsigned char *s, size_t n);
/* Exact conversion of an integer number (no fraction, no exponent). */
bool json_u64(const struct json_value *v, uint64_t *out);
bool json_i64(const struct json_value *v, int64_t *out);

#endif /* MEMWALK_JSON_H */

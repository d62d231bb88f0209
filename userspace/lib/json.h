/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A small, strict, streaming JSON (RFC 8259) reader: it reads a document
 * from a FILE in chunks and hands it out as a sequence of tokens, so that
 * the caller builds its own model as it goes and no tree of the whole
 * document is ever held (a snapshot of a million page runs is 300 MB of
 * JSON; a tree of it, ours or json-c's, takes gigabytes).
 *
 * Strict means: no comments, no trailing commas, no leading zeros, no
 * duplicate keys in an object, strings must be valid UTF-8; one deviation
 * from the RFC: "\u0000" is rejected, so that every string is a C string.
 * Numbers keep the text they were written with, so that 64-bit integers
 * convert exactly (json_u64(), json_i64()).  Nesting is limited to
 * JSON_MAX_DEPTH.  Errors carry a line and column (1-based, in bytes).
 *
 * A document is well-formed only once json_next() has returned JSON_END:
 * errors are reported where they are found, so a caller sees the tokens
 * before one.  A duplicate key is reported when its object closes, at the
 * later value.
 */
#ifndef MEMWALK_JSON_H
#define MEMWALK_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define JSON_MAX_DEPTH	64

enum json_type {
	JSON_NULL,
	JSON_BOOL,
	JSON_NUMBER,
	JSON_STRING,
	JSON_ARRAY,
	JSON_OBJECT,
};

enum json_token_type {
	JSON_ERROR,		/* see json_reader_error(); every later call too */
	JSON_END,		/* after the root value: the document is done */
	JSON_KEY,		/* text: the key, decoded */
	JSON_VALUE_NULL,
	JSON_VALUE_TRUE,
	JSON_VALUE_FALSE,
	JSON_VALUE_NUMBER,	/* text: as written, validated against the grammar */
	JSON_VALUE_STRING,	/* text: decoded, NUL-terminated */
	JSON_ARRAY_BEGIN,
	JSON_ARRAY_END,
	JSON_OBJECT_BEGIN,
	JSON_OBJECT_END,
};

struct json_token {
	enum json_token_type type;
	unsigned int line, column;	/* where it starts */
	const char *text;		/* valid until the next json_next() */
	size_t len;			/* of text */
};

struct json_error {
	unsigned int line, column;
	int sys_errno;			/* reading failed: the errno; else 0 */
	char message[128];
};

struct json_reader;

/* A reader of @fp (not closed by it); NULL when out of memory. */
struct json_reader *json_reader_new(FILE *fp);
void json_reader_free(struct json_reader *rd);
/* The next token into *@tok; returns its type. */
enum json_token_type json_next(struct json_reader *rd, struct json_token *tok);
/* After a value's first token: past the rest of it (an array or object). */
bool json_skip(struct json_reader *rd, const struct json_token *first);
const struct json_error *json_reader_error(const struct json_reader *rd);

/* The type of the value a token starts; JSON_NULL for keys and ends. */
enum json_type json_token_value_type(enum json_token_type type);
const char *json_type_name(enum json_type type);
/*
 * Length of the well-formed UTF-8 sequence at @s (at most @n bytes), or 0:
 * no overlong forms, no surrogates, nothing above U+10FFFF.  For writers.
 */
size_t json_utf8_length(const unsigned char *s, size_t n);
/* Exact conversion of an integer number's text (no fraction, no exponent). */
bool json_u64(const char *number, uint64_t *out);
bool json_i64(const char *number, int64_t *out);

#endif /* MEMWALK_JSON_H */

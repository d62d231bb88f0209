// SPDX-License-Identifier: GPL-2.0
/*
 * A small, strict JSON reader; see json.h.  Recursive descent over the
 * whole text (depth bounded by JSON_MAX_DEPTH); values, keys and strings are
 * carved from an arena of large chunks; arrays and objects are collected in
 * a growable buffer and copied into the arena when they close.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"

#define CHUNK_SIZE	(64 * 1024)

struct chunk {
	struct chunk *next;
	size_t used, size;
	max_align_t data[];
};

struct json_doc {
	struct chunk *chunks;
	struct json_value *root;
};

struct parser {
	const char *p, *end;
	const char *line_start;
	unsigned int line;
	unsigned int depth;
	struct json_doc *doc;
	struct json_error *err;
	bool failed;
};

static void *arena_alloc(struct json_doc *doc, size_t size)
{
	struct chunk *c = doc->chunks;
	void *mem;

	size = (size + sizeof(max_align_t) - 1) & ~(sizeof(max_align_t) - 1);
	if (!c || c->size - c->used < size) {
		size_t data = size > CHUNK_SIZE ? size : CHUNK_SIZE;

		c = malloc(sizeof(*c) + data);
		if (!c)
			return NULL;
		c->size = data;
		c->used = 0;
		c->next = doc->chunks;
		doc->chunks = c;
	}
	mem = (char *)c->data + c->used;
	c->used += size;
	return mem;
}

static unsigned int column_of(const struct parser *ps, const char *at)
{
	return (unsigned int)(at - ps->line_start) + 1;
}

/* Record the first error only, at @at. */
static void __attribute__((format(printf, 3, 4)))
fail_at(struct parser *ps, const char *at, const char *fmt, ...)
{
	va_list ap;

	if (ps->failed)
		return;
	ps->failed = true;
	ps->err->line = ps->line;
	ps->err->column = column_of(ps, at);
	va_start(ap, fmt);
	vsnprintf(ps->err->message, sizeof(ps->err->message), fmt, ap);
	va_end(ap);
}

static void fail_oom(struct parser *ps)
{
	fail_at(ps, ps->p, "out of memory");
}

static void skip_space(struct parser *ps)
{
	while (ps->p < ps->end) {
		char c = *ps->p;

		if (c == '\n') {
			ps->line++;
			ps->line_start = ps->p + 1;
		} else if (c != ' ' && c != '\t' && c != '\r') {
			return;
		}
		ps->p++;
	}
}

/* "'x'" for a printable byte, "byte 0x01" otherwise, "end of input" at the end. */
static const char *describe(const struct parser *ps, char *buf, size_t len)
{
	unsigned char c;

	if (ps->p >= ps->end)
		return "end of input";
	c = *ps->p;
	if (c > 0x20 && c < 0x7f)
		snprintf(buf, len, "'%c'", c);
	else
		snprintf(buf, len, "byte 0x%02x", c);
	return buf;
}

static void fail_unexpected(struct parser *ps, const char *expected)
{
	char buf[16];

	fail_at(ps, ps->p, "expected %s, found %s", expected,
		describe(ps, buf, sizeof(buf)));
}

static struct json_value *new_value(struct parser *ps, enum json_type type)
{
	struct json_value *v = arena_alloc(ps->doc, sizeof(*v));

	if (!v) {
		fail_oom(ps);
		return NULL;
	}
	memset(v, 0, sizeof(*v));
	v->type = type;
	v->line = ps->line;
	v->column = column_of(ps, ps->p);
	return v;
}

static struct json_value *parse_value(struct parser *ps);

/* ---- strings ---------------------------------------------------------- */

static int hex4(const char *s, unsigned int *out)
{
	unsigned int v = 0;
	int i;

	for (i = 0; i < 4; i++) {
		char c = s[i];

		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= c - '0';
		else if (c >= 'a' && c <= 'f')
			v |= c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			v |= c - 'A' + 10;
		else
			return -1;
	}
	*out = v;
	return 0;
}

static size_t put_utf8(char *out, unsigned int cp)
{
	if (cp < 0x80) {
		out[0] = cp;
		return 1;
	}
	if (cp < 0x800) {
		out[0] = 0xc0 | (cp >> 6);
		out[1] = 0x80 | (cp & 0x3f);
		return 2;
	}
	if (cp < 0x10000) {
		out[0] = 0xe0 | (cp >> 12);
		out[1] = 0x80 | ((cp >> 6) & 0x3f);
		out[2] = 0x80 | (cp & 0x3f);
		return 3;
	}
	out[0] = 0xf0 | (cp >> 18);
	out[1] = 0x80 | ((cp >> 12) & 0x3f);
	out[2] = 0x80 | ((cp >> 6) & 0x3f);
	out[3] = 0x80 | (cp & 0x3f);
	return 4;
}

size_t json_utf8_length(const unsigned char *s, size_t n)
{
	unsigned int cp;
	size_t len, i;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		len = 2;
		cp = s[0] & 0x1f;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		len = 3;
		cp = s[0] & 0x0f;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		len = 4;
		cp = s[0] & 0x07;
	} else {
		return 0;
	}
	if (n < len)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return len;
}

/* At '"'; returns the decoded string in the arena. */
static const char *parse_string(struct parser *ps)
{
	const char *start = ps->p++;
	const char *s;
	char *out, *o;

	/* The decoded string is never longer than its source. */
	for (s = ps->p; s < ps->end && *s != '"'; s++)
		if (*s == '\\' && s + 1 < ps->end)
			s++;
	out = arena_alloc(ps->doc, (size_t)(s - ps->p) + 1);
	if (!out) {
		fail_oom(ps);
		return NULL;
	}
	o = out;
	for (;;) {
		unsigned char c;
		unsigned int cp, lo;
		size_t n;

		if (ps->p >= ps->end) {
			fail_at(ps, start, "unterminated string");
			return NULL;
		}
		c = *ps->p;
		if (c == '"') {
			ps->p++;
			break;
		}
		if (c < 0x20) {
			fail_at(ps, ps->p, "control character 0x%02x in a string (write it as \\u%04x)",
				c, c);
			return NULL;
		}
		if (c != '\\') {
			n = json_utf8_length((const unsigned char *)ps->p,
					     (size_t)(ps->end - ps->p));
			if (!n) {
				fail_at(ps, ps->p, "invalid UTF-8 in a string");
				return NULL;
			}
			memcpy(o, ps->p, n);
			o += n;
			ps->p += n;
			continue;
		}
		if (ps->p + 1 >= ps->end) {
			fail_at(ps, start, "unterminated string");
			return NULL;
		}
		c = ps->p[1];
		switch (c) {
		case '"': case '\\': case '/':
			*o++ = c;
			break;
		case 'b': *o++ = '\b'; break;
		case 'f': *o++ = '\f'; break;
		case 'n': *o++ = '\n'; break;
		case 'r': *o++ = '\r'; break;
		case 't': *o++ = '\t'; break;
		case 'u':
			if (ps->end - ps->p < 6 || hex4(ps->p + 2, &cp)) {
				fail_at(ps, ps->p, "\\u must be followed by four hex digits");
				return NULL;
			}
			if (cp >= 0xdc00 && cp <= 0xdfff) {
				fail_at(ps, ps->p, "lone low surrogate \\u%04x", cp);
				return NULL;
			}
			if (cp >= 0xd800 && cp <= 0xdbff) {
				if (ps->end - ps->p < 12 || ps->p[6] != '\\' ||
				    ps->p[7] != 'u' || hex4(ps->p + 8, &lo) ||
				    lo < 0xdc00 || lo > 0xdfff) {
					fail_at(ps, ps->p, "high surrogate \\u%04x not followed by a low one",
						cp);
					return NULL;
				}
				cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
				ps->p += 6;
			}
			if (cp == 0) {
				fail_at(ps, ps->p, "\\u0000 in a string is not supported");
				return NULL;
			}
			o += put_utf8(o, cp);
			ps->p += 4;
			break;
		default:
			if (c >= 0x20 && c < 0x7f)
				fail_at(ps, ps->p, "invalid escape '\\%c' in a string", c);
			else
				fail_at(ps, ps->p, "invalid escape in a string");
			return NULL;
		}
		ps->p += 2;
	}
	*o = '\0';
	return out;
}

/* ---- numbers and literals -------------------------------------------- */

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static struct json_value *parse_number(struct parser *ps)
{
	struct json_value *v = new_value(ps, JSON_NUMBER);
	const char *start = ps->p, *p = ps->p;
	char *text;

	if (!v)
		return NULL;
	if (p < ps->end && *p == '-')
		p++;
	if (p < ps->end && *p == '0') {
		p++;
		if (p < ps->end && is_digit(*p)) {
			fail_at(ps, start, "invalid number: leading zero");
			return NULL;
		}
	} else if (p < ps->end && is_digit(*p)) {
		while (p < ps->end && is_digit(*p))
			p++;
	} else {
		fail_at(ps, start, "invalid number: no digits");
		return NULL;
	}
	if (p < ps->end && *p == '.') {
		p++;
		if (p >= ps->end || !is_digit(*p)) {
			fail_at(ps, start, "invalid number: no digits after '.'");
			return NULL;
		}
		while (p < ps->end && is_digit(*p))
			p++;
	}
	if (p < ps->end && (*p == 'e' || *p == 'E')) {
		p++;
		if (p < ps->end && (*p == '+' || *p == '-'))
			p++;
		if (p >= ps->end || !is_digit(*p)) {
			fail_at(ps, start, "invalid number: no digits in the exponent");
			return NULL;
		}
		while (p < ps->end && is_digit(*p))
			p++;
	}
	text = arena_alloc(ps->doc, (size_t)(p - start) + 1);
	if (!text) {
		fail_oom(ps);
		return NULL;
	}
	memcpy(text, start, (size_t)(p - start));
	text[p - start] = '\0';
	v->number = text;
	ps->p = p;
	return v;
}

static struct json_value *parse_literal(struct parser *ps)
{
	static const struct {
		const char *word;
		enum json_type type;
		bool value;
	} literals[] = {
		{ "true", JSON_BOOL, true },
		{ "false", JSON_BOOL, false },
		{ "null", JSON_NULL, false },
	};
	size_t i, n;

	for (i = 0; i < sizeof(literals) / sizeof(literals[0]); i++) {
		struct json_value *v;

		n = strlen(literals[i].word);
		if ((size_t)(ps->end - ps->p) < n ||
		    memcmp(ps->p, literals[i].word, n))
			continue;
		v = new_value(ps, literals[i].type);
		if (!v)
			return NULL;
		v->boolean = literals[i].value;
		ps->p += n;
		return v;
	}
	fail_unexpected(ps, "a value");
	return NULL;
}

/* ---- arrays and objects ---------------------------------------------- */

/* A growable buffer of fixed-size items, copied to the arena when done. */
struct collect {
	void *items;
	size_t count, cap, size;
};

static bool collect_add(struct parser *ps, struct collect *c, const void *item)
{
	if (c->count == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 8;
		void *items = realloc(c->items, cap * c->size);

		if (!items) {
			fail_oom(ps);
			return false;
		}
		c->items = items;
		c->cap = cap;
	}
	memcpy((char *)c->items + c->count * c->size, item, c->size);
	c->count++;
	return true;
}

static void *collect_finish(struct parser *ps, struct collect *c)
{
	void *items = NULL;

	if (c->count) {
		items = arena_alloc(ps->doc, c->count * c->size);
		if (items)
			memcpy(items, c->items, c->count * c->size);
		else
			fail_oom(ps);
	}
	free(c->items);
	c->items = NULL;
	return items;
}

static bool enter(struct parser *ps)
{
	if (++ps->depth > JSON_MAX_DEPTH) {
		fail_at(ps, ps->p, "nested deeper than %d levels", JSON_MAX_DEPTH);
		return false;
	}
	return true;
}

static struct json_value *parse_array(struct parser *ps)
{
	struct json_value *v = new_value(ps, JSON_ARRAY);
	struct collect c = { .size = sizeof(struct json_value *) };

	if (!v || !enter(ps))
		return NULL;
	ps->p++;
	skip_space(ps);
	if (ps->p < ps->end && *ps->p == ']') {
		ps->p++;
		goto out;
	}
	for (;;) {
		struct json_value *item = parse_value(ps);

		if (!item || !collect_add(ps, &c, &item))
			goto out_fail;
		skip_space(ps);
		if (ps->p < ps->end && *ps->p == ',') {
			ps->p++;
			skip_space(ps);
			continue;
		}
		if (ps->p < ps->end && *ps->p == ']') {
			ps->p++;
			break;
		}
		fail_unexpected(ps, "',' or ']' in an array");
		goto out_fail;
	}
out:
	v->array.count = c.count;
	v->array.items = collect_finish(ps, &c);
	ps->depth--;
	return ps->failed ? NULL : v;

out_fail:
	free(c.items);
	return NULL;
}

static int compare_members(const void *a, const void *b)
{
	const struct json_member *const *ma = a, *const *mb = b;

	return strcmp((*ma)->key, (*mb)->key);
}

/* Duplicate keys are an error: one of them would silently be ignored. */
static bool check_duplicates(struct parser *ps, struct json_value *v)
{
	struct json_member **sorted;
	size_t i;

	if (v->object.count < 2)
		return true;
	sorted = malloc(v->object.count * sizeof(*sorted));
	if (!sorted) {
		fail_oom(ps);
		return false;
	}
	for (i = 0; i < v->object.count; i++)
		sorted[i] = &v->object.members[i];
	qsort(sorted, v->object.count, sizeof(*sorted), compare_members);
	for (i = 1; i < v->object.count; i++) {
		if (!strcmp(sorted[i - 1]->key, sorted[i]->key)) {
			const struct json_value *later =
				sorted[i - 1]->value->line > sorted[i]->value->line ||
				(sorted[i - 1]->value->line == sorted[i]->value->line &&
				 sorted[i - 1]->value->column > sorted[i]->value->column) ?
				sorted[i - 1]->value : sorted[i]->value;

			ps->failed = true;
			ps->err->line = later->line;
			ps->err->column = later->column;
			snprintf(ps->err->message, sizeof(ps->err->message),
				 "duplicate key \"%.64s\" in an object", sorted[i]->key);
			break;
		}
	}
	free(sorted);
	return !ps->failed;
}

static struct json_value *parse_object(struct parser *ps)
{
	struct json_value *v = new_value(ps, JSON_OBJECT);
	struct collect c = { .size = sizeof(struct json_member) };

	if (!v || !enter(ps))
		return NULL;
	ps->p++;
	skip_space(ps);
	if (ps->p < ps->end && *ps->p == '}') {
		ps->p++;
		goto out;
	}
	for (;;) {
		struct json_member m;

		if (ps->p >= ps->end || *ps->p != '"') {
			fail_unexpected(ps, "a string key in an object");
			goto out_fail;
		}
		m.key = parse_string(ps);
		if (!m.key)
			goto out_fail;
		skip_space(ps);
		if (ps->p >= ps->end || *ps->p != ':') {
			fail_unexpected(ps, "':' after an object key");
			goto out_fail;
		}
		ps->p++;
		skip_space(ps);
		m.value = parse_value(ps);
		if (!m.value || !collect_add(ps, &c, &m))
			goto out_fail;
		skip_space(ps);
		if (ps->p < ps->end && *ps->p == ',') {
			ps->p++;
			skip_space(ps);
			continue;
		}
		if (ps->p < ps->end && *ps->p == '}') {
			ps->p++;
			break;
		}
		fail_unexpected(ps, "',' or '}' in an object");
		goto out_fail;
	}
out:
	v->object.count = c.count;
	v->object.members = collect_finish(ps, &c);
	ps->depth--;
	if (ps->failed || !check_duplicates(ps, v))
		return NULL;
	return v;

out_fail:
	free(c.items);
	return NULL;
}

/* At the first byte of a value (whitespace skipped). */
static struct json_value *parse_value(struct parser *ps)
{
	struct json_value *v;

	if (ps->p >= ps->end) {
		fail_unexpected(ps, "a value");
		return NULL;
	}
	switch (*ps->p) {
	case '{':
		return parse_object(ps);
	case '[':
		return parse_array(ps);
	case '"':
		v = new_value(ps, JSON_STRING);
		if (!v)
			return NULL;
		v->string = parse_string(ps);
		return v->string ? v : NULL;
	case '-': case '0': case '1': case '2': case '3': case '4':
	case '5': case '6': case '7': case '8': case '9':
		return parse_number(ps);
	default:
		return parse_literal(ps);
	}
}

struct json_doc *json_parse(const char *text, size_t len, struct json_error *err)
{
	struct parser ps = {
		.p = text, .end = text + len, .line_start = text, .line = 1,
		.err = err,
	};

	memset(err, 0, sizeof(*err));
	ps.doc = calloc(1, sizeof(*ps.doc));
	if (!ps.doc) {
		snprintf(err->message, sizeof(err->message), "out of memory");
		return NULL;
	}
	/* A UTF-8 byte order mark is tolerated (RFC 8259, section 8.1). */
	if (len >= 3 && !memcmp(text, "\xef\xbb\xbf", 3))
		ps.p += 3, ps.line_start += 3;
	skip_space(&ps);
	if (ps.p >= ps.end) {
		fail_at(&ps, ps.p, "empty document");
		goto out_fail;
	}
	ps.doc->root = parse_value(&ps);
	if (!ps.doc->root)
		goto out_fail;
	skip_space(&ps);
	if (ps.p < ps.end) {
		fail_unexpected(&ps, "the end of the document");
		goto out_fail;
	}
	return ps.doc;

out_fail:
	json_free(ps.doc);
	return NULL;
}

const struct json_value *json_root(const struct json_doc *doc)
{
	return doc->root;
}

void json_free(struct json_doc *doc)
{
	struct chunk *c, *next;

	if (!doc)
		return;
	for (c = doc->chunks; c; c = next) {
		next = c->next;
		free(c);
	}
	free(doc);
}

const char *json_type_name(enum json_type type)
{
	switch (type) {
	case JSON_NULL:		return "null";
	case JSON_BOOL:		return "a boolean";
	case JSON_NUMBER:	return "a number";
	case JSON_STRING:	return "a string";
	case JSON_ARRAY:	return "an array";
	case JSON_OBJECT:	return "an object";
	}
	return "?";
}

const struct json_value *json_get(const struct json_value *object, const char *key)
{
	size_t i;

	if (!object || object->type != JSON_OBJECT)
		return NULL;
	for (i = 0; i < object->object.count; i++)
		if (!strcmp(object->object.members[i].key, key))
			return object->object.members[i].value;
	return NULL;
}

/* Digits of an integer number, with its sign; false if not an integer. */
static bool integer_digits(const struct json_value *v, bool *negative,
			   const char **digits)
{
	const char *s;

	if (!v || v->type != JSON_NUMBER)
		return false;
	s = v->number;
	*negative = *s == '-';
	if (*negative)
		s++;
	*digits = s;
	for (; *s; s++)
		if (!is_digit(*s))
			return false;	/* fraction or exponent */
	return true;
}

/* Magnitude of @digits if at most @max. */
static bool magnitude(const char *digits, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;

	for (; *digits; digits++) {
		unsigned int d = *digits - '0';

		if (v > (max - d) / 10)
			return false;
		v = v * 10 + d;
	}
	*out = v;
	return true;
}

bool json_u64(const struct json_value *v, uint64_t *out)
{
	const char *digits;
	bool negative;
	uint64_t m;

	if (!integer_digits(v, &negative, &digits) ||
	    !magnitude(digits, UINT64_MAX, &m))
		return false;
	if (negative && m)
		return false;
	*out = m;
	return true;
}

bool json_i64(const struct json_value *v, int64_t *out)
{
	const char *digits;
	bool negative;
	uint64_t m;

	if (!integer_digits(v, &negative, &digits) ||
	    !magnitude(digits, negative ? (uint64_t)INT64_MAX + 1 : INT64_MAX, &m))
		return false;
	*out = !negative ? (int64_t)m :
	       m > INT64_MAX ? INT64_MIN : -(int64_t)m;
	return true;
}

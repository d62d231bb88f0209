// SPDX-License-Identifier: GPL-2.0
/*
 * A small, strict, streaming JSON reader; see json.h.  The text is read in
 * chunks into a buffer that slides along the file (a token longer than a
 * chunk grows it); a stack of the open arrays and objects (at most
 * JSON_MAX_DEPTH) says what may come next.  Each open object keeps the
 * keys it has seen, to find duplicates: a 64-bit mask of their hashes
 * answers most lookups without comparing a string.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"

#define READ_SIZE	(64 * 1024)
#define DUP_KEY_MAX	64	/* of a duplicate key, in the message */

/* What may come next, after skipping whitespace. */
enum expect {
	EXPECT_VALUE,		/* at the top, after ':' or after ',' in an array */
	EXPECT_VALUE_OR_CLOSE,	/* after '[' */
	EXPECT_KEY,		/* after ',' in an object */
	EXPECT_KEY_OR_CLOSE,	/* after '{' */
	EXPECT_COLON,		/* after a key */
	EXPECT_COMMA_OR_CLOSE,	/* after a value in an array or object */
	EXPECT_END,		/* after the root value */
};

/* The keys an open object has seen. */
struct keys {
	uint64_t mask;			/* bit (hash % 61) of every key */
	uint32_t *hashes;
	size_t *offsets;		/* into text */
	size_t nr, cap;
	char *text;			/* the keys, each NUL-terminated */
	size_t text_len, text_cap;
};

struct level {
	bool object;
	struct keys keys;
	bool dup_next;			/* the key just read is a duplicate */
	bool dup_found;			/* the first duplicate, reported at '}' */
	unsigned int dup_line, dup_column;
	char dup_key[DUP_KEY_MAX + 1];
};

struct json_reader {
	FILE *fp;
	char *buf;
	size_t pos, len, cap;		/* unread bytes: buf[pos..len) */
	uint64_t base;			/* offset in the file of buf[0] */
	bool eof;
	unsigned int line;
	uint64_t line_start;		/* offset in the file of the line */
	bool started;			/* the root value has begun */
	enum expect expect;
	unsigned int depth;
	struct level levels[JSON_MAX_DEPTH];
	const char *text;		/* the current token's text: in tok or buf */
	size_t text_len;
	char *tok;			/* text that is not in buf as it is */
	size_t tok_len, tok_cap;
	bool failed;
	struct json_error err;
	bool plain[256];		/* the bytes a string holds as they are */
};

struct json_reader *json_reader_new(FILE *fp)
{
	struct json_reader *rd = calloc(1, sizeof(*rd));
	unsigned int i;

	if (!rd)
		return NULL;
	rd->fp = fp;
	rd->cap = READ_SIZE;
	rd->buf = malloc(rd->cap);
	rd->tok_cap = 256;
	rd->tok = malloc(rd->tok_cap);
	if (!rd->buf || !rd->tok) {
		json_reader_free(rd);
		return NULL;
	}
	rd->line = 1;
	for (i = 0x20; i < 0x80; i++)
		rd->plain[i] = i != '"' && i != '\\';
	return rd;
}

void json_reader_free(struct json_reader *rd)
{
	unsigned int i;

	if (!rd)
		return;
	for (i = 0; i < JSON_MAX_DEPTH; i++) {
		free(rd->levels[i].keys.hashes);
		free(rd->levels[i].keys.offsets);
		free(rd->levels[i].keys.text);
	}
	free(rd->buf);
	free(rd->tok);
	free(rd);
}

const struct json_error *json_reader_error(const struct json_reader *rd)
{
	return &rd->err;
}

static unsigned int column_at(const struct json_reader *rd, size_t pos)
{
	return (unsigned int)(rd->base + pos - rd->line_start) + 1;
}

/* Record the first error only, at @line:@column. */
static void __attribute__((format(printf, 4, 5)))
fail_at(struct json_reader *rd, unsigned int line, unsigned int column,
	const char *fmt, ...)
{
	va_list ap;

	if (rd->failed)
		return;
	rd->failed = true;
	rd->err.line = line;
	rd->err.column = column;
	va_start(ap, fmt);
	vsnprintf(rd->err.message, sizeof(rd->err.message), fmt, ap);
	va_end(ap);
}

#define fail_here(rd, ...) fail_at(rd, (rd)->line, column_at(rd, (rd)->pos), __VA_ARGS__)

static void fail_oom(struct json_reader *rd)
{
	fail_here(rd, "out of memory");
}

/*
 * At least @n unread bytes if the file has them; returns how many there
 * are.  Slides the buffer (positions relative to pos stay valid), grows it
 * when a token needs more than it holds.
 */
static size_t avail(struct json_reader *rd, size_t n)
{
	while (rd->len - rd->pos < n && !rd->eof && !rd->failed) {
		size_t got;

		if (rd->pos) {
			memmove(rd->buf, rd->buf + rd->pos, rd->len - rd->pos);
			rd->len -= rd->pos;
			rd->base += rd->pos;
			rd->pos = 0;
		}
		if (rd->len == rd->cap) {
			char *p = realloc(rd->buf, rd->cap * 2);

			if (!p) {
				fail_oom(rd);
				break;
			}
			rd->buf = p;
			rd->cap *= 2;
		}
		got = fread(rd->buf + rd->len, 1, rd->cap - rd->len, rd->fp);
		rd->len += got;
		if (got)
			continue;
		if (ferror(rd->fp)) {
			rd->err.sys_errno = errno ? errno : EIO;
			fail_here(rd, "cannot read: %s", strerror(rd->err.sys_errno));
		}
		rd->eof = true;
	}
	return rd->len - rd->pos;
}

/* The next byte, or -1 at the end of input. */
static int peek(struct json_reader *rd)
{
	if (rd->pos == rd->len && !avail(rd, 1))
		return -1;
	return (unsigned char)rd->buf[rd->pos];
}

static void skip_space(struct json_reader *rd)
{
	for (;;) {
		char c;

		if (rd->pos == rd->len && !avail(rd, 1))
			return;
		c = rd->buf[rd->pos];
		if (c == '\n') {
			rd->line++;
			rd->line_start = rd->base + rd->pos + 1;
		} else if (c != ' ' && c != '\t' && c != '\r') {
			return;
		}
		rd->pos++;
	}
}

/* "'x'" for a printable byte, "byte 0x01" otherwise, "end of input" at the end. */
static const char *describe(struct json_reader *rd, char *buf, size_t len)
{
	int c = peek(rd);

	if (c < 0)
		return "end of input";
	if (c > 0x20 && c < 0x7f)
		snprintf(buf, len, "'%c'", c);
	else
		snprintf(buf, len, "byte 0x%02x", c);
	return buf;
}

static void fail_unexpected(struct json_reader *rd, const char *expected)
{
	char buf[16];
	const char *found = describe(rd, buf, sizeof(buf));

	fail_here(rd, "expected %s, found %s", expected, found);
}

/* Append @n bytes to the token's text. */
static bool tok_put(struct json_reader *rd, const char *s, size_t n)
{
	if (rd->tok_len + n + 1 > rd->tok_cap) {
		size_t cap = rd->tok_cap;
		char *p;

		while (rd->tok_len + n + 1 > cap)
			cap *= 2;
		p = realloc(rd->tok, cap);
		if (!p) {
			fail_oom(rd);
			return false;
		}
		rd->tok = p;
		rd->tok_cap = cap;
	}
	memcpy(rd->tok + rd->tok_len, s, n);
	rd->tok_len += n;
	return true;
}

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

/* Plain bytes of a string: printable ASCII but '"' and '\'. */
static bool plain(const struct json_reader *rd, char c)
{
	return rd->plain[(unsigned char)c];
}

/*
 * At '"': the decoded string as the token's text.  One without escapes
 * that the buffer holds whole is not copied: its closing quote, already
 * read, becomes its NUL.
 */
static bool read_string(struct json_reader *rd)
{
	unsigned int line = rd->line, column = column_at(rd, rd->pos);
	size_t n = rd->pos + 1;

	while (n < rd->len && plain(rd, rd->buf[n]))
		n++;
	if (n < rd->len && rd->buf[n] == '"') {
		rd->buf[n] = '\0';
		rd->text = rd->buf + rd->pos + 1;
		rd->text_len = n - rd->pos - 1;
		rd->pos = n + 1;
		return true;
	}
	rd->tok_len = 0;
	rd->pos++;
	for (;;) {
		unsigned int cp, lo;
		unsigned char c;
		char out[4];
		size_t n;

		if (rd->pos == rd->len && !avail(rd, 1)) {
			fail_at(rd, line, column, "unterminated string");
			return false;
		}
		n = rd->pos;
		while (n < rd->len && plain(rd, rd->buf[n]))
			n++;
		if (n > rd->pos) {
			if (!tok_put(rd, rd->buf + rd->pos, n - rd->pos))
				return false;
			rd->pos = n;
			continue;
		}
		c = rd->buf[rd->pos];
		if (c == '"') {
			rd->pos++;
			break;
		}
		if (c < 0x20) {
			fail_here(rd, "control character 0x%02x in a string (write it as \\u%04x)",
				  c, c);
			return false;
		}
		if (c != '\\') {
			n = avail(rd, 4);
			n = json_utf8_length((const unsigned char *)rd->buf + rd->pos, n);
			if (!n) {
				fail_here(rd, "invalid UTF-8 in a string");
				return false;
			}
			if (!tok_put(rd, rd->buf + rd->pos, n))
				return false;
			rd->pos += n;
			continue;
		}
		if (avail(rd, 2) < 2) {
			fail_at(rd, line, column, "unterminated string");
			return false;
		}
		c = rd->buf[rd->pos + 1];
		n = 1;
		switch (c) {
		case '"': case '\\': case '/':
			out[0] = c;
			break;
		case 'b': out[0] = '\b'; break;
		case 'f': out[0] = '\f'; break;
		case 'n': out[0] = '\n'; break;
		case 'r': out[0] = '\r'; break;
		case 't': out[0] = '\t'; break;
		case 'u':
			if (avail(rd, 6) < 6 || hex4(rd->buf + rd->pos + 2, &cp)) {
				fail_here(rd, "\\u must be followed by four hex digits");
				return false;
			}
			if (cp >= 0xdc00 && cp <= 0xdfff) {
				fail_here(rd, "lone low surrogate \\u%04x", cp);
				return false;
			}
			if (cp >= 0xd800 && cp <= 0xdbff) {
				const char *s;

				if (avail(rd, 12) < 12 || (s = rd->buf + rd->pos)[6] != '\\' ||
				    s[7] != 'u' || hex4(s + 8, &lo) ||
				    lo < 0xdc00 || lo > 0xdfff) {
					fail_here(rd, "high surrogate \\u%04x not followed by a low one",
						  cp);
					return false;
				}
				cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
				rd->pos += 6;
			}
			if (cp == 0) {
				fail_here(rd, "\\u0000 in a string is not supported");
				return false;
			}
			n = put_utf8(out, cp);
			rd->pos += 4;
			break;
		default:
			if (c >= 0x20 && c < 0x7f)
				fail_here(rd, "invalid escape '\\%c' in a string", c);
			else
				fail_here(rd, "invalid escape in a string");
			return false;
		}
		if (!tok_put(rd, out, n))
			return false;
		rd->pos += 2;
	}
	rd->tok[rd->tok_len] = '\0';
	rd->text = rd->tok;
	rd->text_len = rd->tok_len;
	return true;
}

/* ---- numbers and literals -------------------------------------------- */

static bool is_digit(int c)
{
	return c >= '0' && c <= '9';
}

/* The byte at pos into the token, and on. */
static bool take(struct json_reader *rd)
{
	if (!tok_put(rd, rd->buf + rd->pos, 1))
		return false;
	rd->pos++;
	return true;
}

static bool take_digits(struct json_reader *rd)
{
	while (is_digit(peek(rd))) {
		size_t n = rd->pos;

		while (n < rd->len && is_digit(rd->buf[n]))
			n++;
		if (!tok_put(rd, rd->buf + rd->pos, n - rd->pos))
			return false;
		rd->pos = n;
	}
	return true;
}

static bool read_number(struct json_reader *rd)
{
	unsigned int line = rd->line, column = column_at(rd, rd->pos);
	int c;

	rd->tok_len = 0;
	if (peek(rd) == '-' && !take(rd))
		return false;
	c = peek(rd);
	if (c == '0') {
		if (!take(rd))
			return false;
		if (is_digit(peek(rd))) {
			fail_at(rd, line, column, "invalid number: leading zero");
			return false;
		}
	} else if (is_digit(c)) {
		if (!take_digits(rd))
			return false;
	} else {
		fail_at(rd, line, column, "invalid number: no digits");
		return false;
	}
	if (peek(rd) == '.') {
		if (!take(rd))
			return false;
		if (!is_digit(peek(rd))) {
			fail_at(rd, line, column, "invalid number: no digits after '.'");
			return false;
		}
		if (!take_digits(rd))
			return false;
	}
	c = peek(rd);
	if (c == 'e' || c == 'E') {
		if (!take(rd))
			return false;
		c = peek(rd);
		if ((c == '+' || c == '-') && !take(rd))
			return false;
		if (!is_digit(peek(rd))) {
			fail_at(rd, line, column, "invalid number: no digits in the exponent");
			return false;
		}
		if (!take_digits(rd))
			return false;
	}
	rd->tok[rd->tok_len] = '\0';
	rd->text = rd->tok;
	rd->text_len = rd->tok_len;
	return !rd->failed;
}

static enum json_token_type read_literal(struct json_reader *rd)
{
	static const struct {
		const char *word;
		enum json_token_type type;
	} literals[] = {
		{ "true", JSON_VALUE_TRUE },
		{ "false", JSON_VALUE_FALSE },
		{ "null", JSON_VALUE_NULL },
	};
	size_t i, n, have = avail(rd, 5);

	for (i = 0; i < sizeof(literals) / sizeof(literals[0]); i++) {
		n = strlen(literals[i].word);
		if (have < n || memcmp(rd->buf + rd->pos, literals[i].word, n))
			continue;
		rd->pos += n;
		return literals[i].type;
	}
	fail_unexpected(rd, "a value");
	return JSON_ERROR;
}

/* ---- keys ------------------------------------------------------------- */

/* Cheap, and good enough to tell most keys apart: equal ones are compared. */
static uint32_t hash_key(const char *s, size_t len)
{
	if (!len)
		return 0;
	return (uint32_t)len * 0x9e3779b1u ^
	       ((unsigned char)s[0] | (unsigned char)s[len / 2] << 8 |
		(unsigned char)s[len - 1] << 16);
}

/* Whether @lv has seen the key in the token; remembers it if not. */
static bool key_seen(struct json_reader *rd, struct level *lv)
{
	struct keys *k = &lv->keys;
	uint32_t h = hash_key(rd->text, rd->text_len);
	size_t i;

	if (k->mask & (1ULL << (h % 61)))
		for (i = 0; i < k->nr; i++)
			if (k->hashes[i] == h && !strcmp(k->text + k->offsets[i], rd->text))
				return true;
	if (k->nr == k->cap) {
		size_t cap = k->cap ? k->cap * 2 : 32;
		uint32_t *hashes = realloc(k->hashes, cap * sizeof(*hashes));
		size_t *offsets;

		if (hashes)
			k->hashes = hashes;
		offsets = hashes ? realloc(k->offsets, cap * sizeof(*offsets)) : NULL;
		if (!offsets) {
			fail_oom(rd);
			return false;
		}
		k->offsets = offsets;
		k->cap = cap;
	}
	if (k->text_len + rd->text_len + 1 > k->text_cap) {
		size_t cap = k->text_cap ? k->text_cap : 512;
		char *p;

		while (k->text_len + rd->text_len + 1 > cap)
			cap *= 2;
		p = realloc(k->text, cap);
		if (!p) {
			fail_oom(rd);
			return false;
		}
		k->text = p;
		k->text_cap = cap;
	}
	memcpy(k->text + k->text_len, rd->text, rd->text_len + 1);
	k->hashes[k->nr] = h;
	k->offsets[k->nr++] = k->text_len;
	k->text_len += rd->text_len + 1;
	k->mask |= 1ULL << (h % 61);
	return false;
}

/* ---- the grammar ------------------------------------------------------ */

static void set_token(const struct json_reader *rd, struct json_token *tok,
		      enum json_token_type type, bool text)
{
	tok->type = type;
	tok->text = text ? rd->text : NULL;
	tok->len = text ? rd->text_len : 0;
}

/* After a value: what its container, or the document, needs next. */
static void value_done(struct json_reader *rd)
{
	rd->expect = rd->depth ? EXPECT_COMMA_OR_CLOSE : EXPECT_END;
}

static enum json_token_type open_level(struct json_reader *rd, struct json_token *tok,
				       bool object)
{
	struct level *lv;

	if (rd->depth == JSON_MAX_DEPTH) {
		fail_here(rd, "nested deeper than %d levels", JSON_MAX_DEPTH);
		return JSON_ERROR;
	}
	lv = &rd->levels[rd->depth++];
	lv->object = object;
	lv->keys.mask = 0;
	lv->keys.nr = 0;
	lv->keys.text_len = 0;
	lv->dup_next = lv->dup_found = false;
	rd->pos++;
	rd->expect = object ? EXPECT_KEY_OR_CLOSE : EXPECT_VALUE_OR_CLOSE;
	set_token(rd, tok, object ? JSON_OBJECT_BEGIN : JSON_ARRAY_BEGIN, false);
	return tok->type;
}

static enum json_token_type close_level(struct json_reader *rd, struct json_token *tok)
{
	struct level *lv = &rd->levels[--rd->depth];

	rd->pos++;
	if (lv->object && lv->dup_found) {
		fail_at(rd, lv->dup_line, lv->dup_column,
			"duplicate key \"%s\" in an object", lv->dup_key);
		return JSON_ERROR;
	}
	value_done(rd);
	set_token(rd, tok, lv->object ? JSON_OBJECT_END : JSON_ARRAY_END, false);
	return tok->type;
}

/*
 * At '"' in an object: the key.  The ':' after it is read with the next
 * token: the key's text may lie in the buffer, which reading on slides.
 */
static enum json_token_type read_key(struct json_reader *rd, struct json_token *tok)
{
	struct level *lv = &rd->levels[rd->depth - 1];

	if (!read_string(rd))
		return JSON_ERROR;
	if (key_seen(rd, lv) && !lv->dup_found) {
		lv->dup_next = true;
		snprintf(lv->dup_key, sizeof(lv->dup_key), "%s", rd->text);
	}
	if (rd->failed)
		return JSON_ERROR;
	rd->expect = EXPECT_COLON;
	set_token(rd, tok, JSON_KEY, true);
	return JSON_KEY;
}

/* At the first byte of a value (whitespace skipped). */
static enum json_token_type read_value(struct json_reader *rd, struct json_token *tok)
{
	struct level *lv = rd->depth ? &rd->levels[rd->depth - 1] : NULL;
	enum json_token_type type;
	int c = peek(rd);

	if (lv && lv->dup_next) {
		lv->dup_next = false;
		lv->dup_found = true;
		lv->dup_line = tok->line;
		lv->dup_column = tok->column;
	}
	rd->started = true;
	switch (c) {
	case '{':
		return open_level(rd, tok, true);
	case '[':
		return open_level(rd, tok, false);
	case '"':
		if (!read_string(rd))
			return JSON_ERROR;
		type = JSON_VALUE_STRING;
		break;
	case '-': case '0': case '1': case '2': case '3': case '4':
	case '5': case '6': case '7': case '8': case '9':
		if (!read_number(rd))
			return JSON_ERROR;
		type = JSON_VALUE_NUMBER;
		break;
	case -1:
		fail_unexpected(rd, "a value");
		return JSON_ERROR;
	default:
		type = read_literal(rd);
		if (type == JSON_ERROR)
			return JSON_ERROR;
		break;
	}
	value_done(rd);
	set_token(rd, tok, type, type == JSON_VALUE_STRING || type == JSON_VALUE_NUMBER);
	return type;
}

enum json_token_type json_next(struct json_reader *rd, struct json_token *tok)
{
	enum json_token_type type = JSON_ERROR;
	int c;

again:
	if (!rd->failed && !rd->started && !rd->line_start && !rd->base && !rd->pos &&
	    avail(rd, 3) >= 3 && !memcmp(rd->buf, "\xef\xbb\xbf", 3)) {
		/* A UTF-8 byte order mark is tolerated (RFC 8259, section 8.1). */
		rd->pos = 3;
		rd->line_start = 3;
	}
	skip_space(rd);
	tok->line = rd->line;
	tok->column = column_at(rd, rd->pos);
	if (rd->failed)
		goto out;
	c = peek(rd);
	switch (rd->expect) {
	case EXPECT_END:
		if (c < 0)
			type = JSON_END;
		else
			fail_unexpected(rd, "the end of the document");
		break;
	case EXPECT_COMMA_OR_CLOSE:
		if (c == ',') {
			rd->pos++;
			rd->expect = rd->levels[rd->depth - 1].object ? EXPECT_KEY : EXPECT_VALUE;
			goto again;
		}
		if (rd->levels[rd->depth - 1].object) {
			if (c == '}')
				type = close_level(rd, tok);
			else
				fail_unexpected(rd, "',' or '}' in an object");
		} else {
			if (c == ']')
				type = close_level(rd, tok);
			else
				fail_unexpected(rd, "',' or ']' in an array");
		}
		break;
	case EXPECT_KEY_OR_CLOSE:
		if (c == '}') {
			type = close_level(rd, tok);
			break;
		}
		/* fall through */
	case EXPECT_KEY:
		if (c == '"')
			type = read_key(rd, tok);
		else
			fail_unexpected(rd, "a string key in an object");
		break;
	case EXPECT_COLON:
		if (c != ':') {
			fail_unexpected(rd, "':' after an object key");
			break;
		}
		rd->pos++;
		rd->expect = EXPECT_VALUE;
		goto again;
	case EXPECT_VALUE_OR_CLOSE:
		if (c == ']') {
			type = close_level(rd, tok);
			break;
		}
		/* fall through */
	case EXPECT_VALUE:
		if (c < 0 && !rd->started)
			fail_here(rd, "empty document");
		else
			type = read_value(rd, tok);
		break;
	}
out:
	if (rd->failed)
		type = JSON_ERROR;
	tok->type = type;
	if (type == JSON_ERROR) {
		tok->text = NULL;
		tok->len = 0;
	}
	return type;
}

bool json_skip(struct json_reader *rd, const struct json_token *first)
{
	struct json_token tok;
	unsigned int depth;

	if (first->type != JSON_ARRAY_BEGIN && first->type != JSON_OBJECT_BEGIN)
		return first->type != JSON_ERROR;
	for (depth = 1; depth;) {
		switch (json_next(rd, &tok)) {
		case JSON_ERROR:
		case JSON_END:
			return false;
		case JSON_ARRAY_BEGIN:
		case JSON_OBJECT_BEGIN:
			depth++;
			break;
		case JSON_ARRAY_END:
		case JSON_OBJECT_END:
			depth--;
			break;
		default:
			break;
		}
	}
	return true;
}

enum json_type json_token_value_type(enum json_token_type type)
{
	switch (type) {
	case JSON_VALUE_TRUE:
	case JSON_VALUE_FALSE:	return JSON_BOOL;
	case JSON_VALUE_NUMBER:	return JSON_NUMBER;
	case JSON_VALUE_STRING:	return JSON_STRING;
	case JSON_ARRAY_BEGIN:	return JSON_ARRAY;
	case JSON_OBJECT_BEGIN:	return JSON_OBJECT;
	default:		return JSON_NULL;
	}
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

/* Digits of an integer number, with its sign; false if not an integer. */
static bool integer_digits(const char *number, bool *negative,
			   const char **digits)
{
	const char *s = number;

	if (!s || !*s)
		return false;
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

bool json_u64(const char *v, uint64_t *out)
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

bool json_i64(const char *v, int64_t *out)
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

// SPDX-License-Identifier: GPL-2.0
/*
 * libmemwalk: the JSON form of a snapshot (schema 1, documented in
 * docs/json-schema.md), written through the print layer and read back with
 * json.c's streaming reader.  Writer and reader sit side by side so that
 * the schema lives in one file.  Schema 1 only grows: no key is ever
 * removed or renamed.
 *
 * The reader takes the raw fields (numbers) and ignores what is derived
 * from them (names, summaries, totals, "end", "time"): those are computed
 * again from the model, so a file read and written again is the same
 * document.  Unknown keys are ignored, for files of newer schema-1 writers.
 * It streams (json.h): memory goes to the model, not to the document.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "names.h"
#include "print.h"
#include "snapjson.h"
#include "summary.h"

/* ---- writer ----------------------------------------------------------- */

void mw_print_json_bit_names(const char *key, const struct mw_bit_names *t,
			     uint64_t value)
{
	unsigned int bit;
	char tmp[16];

	open_json_array(PRINT_JSON, key);
	for (bit = 0; bit < 64; bit++)
		if (value & (1ULL << bit))
			print_string(PRINT_JSON, NULL, "", mw_bit_name(t, bit, tmp));
	close_json_array(PRINT_JSON);
}

/*
 * The counts; "not_exact" (only when there are any, so that the document
 * of a full snapshot stays as it was) lists the keys that this snapshot
 * cannot tell as smaps would (summary.h).
 */
static void print_summary(const struct mw_snapshot *snap, const char *key,
			  const struct mw_summary *sum)
{
	bool all_exact = true;
	size_t f;

	open_json_object(PRINT_JSON, key);
	for (f = 0; f < mw_nr_summary_fields; f++) {
		print_uint(PRINT_JSON, mw_summary_fields[f].json_key, "",
			   mw_summary_get(sum, &mw_summary_fields[f]));
		all_exact &= mw_summary_exact(snap, &mw_summary_fields[f]);
	}
	if (!all_exact) {
		open_json_array(PRINT_JSON, "not_exact");
		for (f = 0; f < mw_nr_summary_fields; f++)
			if (!mw_summary_exact(snap, &mw_summary_fields[f]))
				print_string(PRINT_JSON, NULL, "", mw_summary_fields[f].json_key);
		close_json_array(PRINT_JSON);
	}
	close_json_object(PRINT_JSON);
}

static void print_run(const struct mw_snapshot *snap, const struct memwalk_page_run *r)
{
	open_json_object(PRINT_JSON, NULL);
	mw_run_print_json_members(snap, r);
	close_json_object(PRINT_JSON);
}

void mw_run_print_json_members(const struct mw_snapshot *snap,
			       const struct memwalk_page_run *r)
{
	const uint32_t attrs = r->flags & ~(MEMWALK_RUN_STATE_MASK |
					    MEMWALK_RUN_LEVEL_MASK |
					    MEMWALK_RUN_SWAP_TYPE_MASK);
	char tmp[16];

	print_uint(PRINT_JSON, "start", "", r->start);
	print_uint(PRINT_JSON, "end", "", mw_run_end(snap, r));
	print_uint(PRINT_JSON, "nr_pages", "", r->nr_pages);
	print_string(PRINT_JSON, "state", "", mw_state_name(mw_run_state(r), tmp));
	print_string(PRINT_JSON, "level", "", mw_level_name(mw_run_level(r), tmp));
	print_uint(PRINT_JSON, "flags", "", r->flags);
	mw_print_json_bit_names("flag_names", &mw_run_flag_names, attrs);
	print_uint(PRINT_JSON, "swap_type", "", mw_run_swap_type(r));
	print_uint(PRINT_JSON, "pfn", "", r->pfn);
	print_uint(PRINT_JSON, "folio_flags", "", r->folio_flags);
	mw_print_json_bit_names("folio_flag_names", &mw_folio_flag_names, r->folio_flags);
	print_uint(PRINT_JSON, "mapcount", "", r->mapcount);
	print_uint(PRINT_JSON, "refcount", "", r->refcount);
	print_uint(PRINT_JSON, "nid", "", r->nid);
	print_uint(PRINT_JSON, "order", "", r->order);
	print_int(PRINT_JSON, "lru_gen", "", r->lru_gen);
}

static void print_vma(const struct mw_snapshot *snap, const struct mw_vma *vma)
{
	struct mw_summary sum;
	char mode[5], tmp[16];
	size_t i;

	mw_vma_mode(vma, mode);
	mw_summarize_vma(snap, vma, &sum);
	open_json_object(PRINT_JSON, NULL);
	print_uint(PRINT_JSON, "start", "", vma->start);
	print_uint(PRINT_JSON, "end", "", vma->end);
	print_string(PRINT_JSON, "mode", "", mode);
	print_uint(PRINT_JSON, "flags", "", vma->flags);
	mw_print_json_bit_names("flag_names", &mw_vma_flag_names, vma->flags);
	print_uint(PRINT_JSON, "pgoff", "", vma->pgoff);
	print_uint(PRINT_JSON, "ino", "", vma->ino);
	print_uint(PRINT_JSON, "dev_major", "", vma->dev_major);
	print_uint(PRINT_JSON, "dev_minor", "", vma->dev_minor);
	print_uint(PRINT_JSON, "page_shift", "", vma->page_shift);
	print_string(PRINT_JSON, "name_kind", "", mw_name_kind_name(vma->name_kind, tmp));
	print_string(PRINT_JSON, "name", "", vma->name);
	print_summary(snap, "summary", &sum);
	open_json_array(PRINT_JSON, "runs");
	for (i = 0; i < vma->nr_runs; i++)
		print_run(snap, &vma->runs[i]);
	close_json_array(PRINT_JSON);
	close_json_object(PRINT_JSON);
}

void mw_snapshot_print_json(const struct mw_snapshot *snap)
{
	struct mw_summary total;
	size_t i, runs = 0;
	char when[32];

	mw_format_time(snap->time_ns, when, sizeof(when));
	mw_summarize_all(snap, &total);
	for (i = 0; i < snap->nr_vmas; i++)
		runs += snap->vmas[i].nr_runs;

	print_begin(true);
	print_uint(PRINT_JSON, "schema_version", "", MW_SCHEMA_VERSION);
	print_string(PRINT_JSON, "generator", "", snap->generator);
	print_string(PRINT_JSON, "module_version", "", snap->module_version);
	print_uint(PRINT_JSON, "uapi_version", "", snap->uapi_version);
	print_string(PRINT_JSON, "release", "", snap->release);
	print_string(PRINT_JSON, "machine", "", snap->machine);
	if (snap->hostname)
		print_string(PRINT_JSON, "hostname", "", snap->hostname);
	if (snap->boot_id)
		print_string(PRINT_JSON, "boot_id", "", snap->boot_id);
	print_uint(PRINT_JSON, "page_size", "", snap->page_size);
	print_uint(PRINT_JSON, "pgtable_levels", "", snap->pgtable_levels);
	print_string(PRINT_JSON, "time", "", when);
	print_uint(PRINT_JSON, "time_ns", "", snap->time_ns);
	print_int(PRINT_JSON, "pid", "", snap->pid);
	print_string(PRINT_JSON, "comm", "", snap->comm);
	open_json_object(PRINT_JSON, "range");
	print_uint(PRINT_JSON, "start", "", snap->range_start);
	print_uint(PRINT_JSON, "end", "", snap->range_end);
	close_json_object(PRINT_JSON);
	print_uint(PRINT_JSON, "flags", "", snap->flags);
	mw_print_json_bit_names("flag_names", &mw_snap_flag_names, snap->flags);
	open_json_array(PRINT_JSON, "vmas");
	for (i = 0; i < snap->nr_vmas; i++)
		print_vma(snap, &snap->vmas[i]);
	close_json_array(PRINT_JSON);
	open_json_object(PRINT_JSON, "totals");
	print_uint(PRINT_JSON, "vmas", "", snap->nr_vmas);
	print_uint(PRINT_JSON, "runs", "", runs);
	print_summary(snap, "summary", &total);
	close_json_object(PRINT_JSON);
	open_json_object(PRINT_JSON, "cost");
	print_uint(PRINT_JSON, "lock_drops", "", snap->cost.lock_drops);
	print_uint(PRINT_JSON, "max_lock_ns", "", snap->cost.max_lock_ns);
	print_uint(PRINT_JSON, "total_lock_ns", "", snap->cost.total_lock_ns);
	print_uint(PRINT_JSON, "calls", "", snap->cost.calls);
	close_json_object(PRINT_JSON);
	print_end();
}

/* ---- reader ----------------------------------------------------------- */

/*
 * The reader streams: json.c hands out tokens and the model is built as
 * they come, so that no tree of the document is held.  Each object's
 * fields are kept in slots until it closes, then checked in a fixed
 * order; errors are reported as a reader of the whole tree would: a
 * document that is not valid JSON first, then the top-level fields, then
 * the first VMA in error (its own fields before its runs).
 */

/* A value of an object, kept until the object closes. */
struct slot {
	bool present;
	enum json_type type;
	unsigned int line, column;
	bool is_u64, is_i64;	/* an integer that converts */
	uint64_t u64;
	int64_t i64;
	char *string;		/* JSON_STRING, when the slot keeps it */
};

#define KEY_BUCKETS	64
#define BUCKET_SHARED	0xff

/* An object being read: where it starts, and its slots. */
struct object {
	unsigned int line, column;
	const char *const *keys;	/* NULL-terminated, in slot order */
	struct slot *slots;
	bool keep_strings;
	unsigned char lens[24];		/* of keys (at most 23) */
	/* by key_bucket(): the index + 1 of the one key there, or SHARED */
	unsigned char buckets[KEY_BUCKETS];
};

struct reader {
	const char *path;	/* as given */
	const char *file;	/* for messages: "<stdin>" for "-" */
	struct json_reader *json;
	char where[64];		/* "vmas[3].runs[7]", or "" at the top */
};

/* The error into @err (none when NULL), at @line:@column, in @key. */
static void __attribute__((format(printf, 6, 7)))
fail_to(struct mw_error *err, const struct reader *rd, unsigned int line,
	unsigned int column, const char *key, const char *fmt, ...)
{
	char msg[256], where[128], pos[32] = "";
	va_list ap;

	if (!err)
		return;		/* only whether it fails is asked */
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(where, sizeof(where), "%s%s%s: ", rd->where,
		 rd->where[0] && key ? "." : "", key ? key : "");
	if (!strcmp(where, ": "))
		where[0] = '\0';
	if (line)
		snprintf(pos, sizeof(pos), ":%u:%u", line, column);
	mw_error_set(err, -EINVAL, "%s%s: %s%s", rd->file, pos, where, msg);
}

/* Keys are short: a loop beats a call to memcmp() here. */
static bool same_bytes(const char *a, const char *b, size_t n)
{
	while (n--)
		if (*a++ != *b++)
			return false;
	return true;
}

/* Where a key of @len bytes starts its search in an object's table. */
static unsigned int key_bucket(const char *key, size_t len)
{
	if (!len)
		return 0;
	return (len * 31 + (unsigned char)key[0] * 7 +
		(unsigned char)key[len - 1]) % KEY_BUCKETS;
}

/* The slot of @key (of @len bytes) in @o, or NULL. */
static struct slot *slot_of_len(const struct object *o, const char *key, size_t len)
{
	unsigned int b = o->buckets[key_bucket(key, len)];
	size_t i;

	if (!b)
		return NULL;
	if (b != BUCKET_SHARED) {
		i = b - 1;
		return o->lens[i] == len && same_bytes(o->keys[i], key, len) ?
		       &o->slots[i] : NULL;
	}
	for (i = 0; o->keys[i]; i++)
		if (o->lens[i] == len && same_bytes(o->keys[i], key, len))
			return &o->slots[i];
	return NULL;
}

static struct slot *slot_of(const struct object *o, const char *key)
{
	return slot_of_len(o, key, strlen(key));
}

/* An object of @keys, kept in @slots. */
static void object_init(struct object *o, const char *const *keys,
			struct slot *slots, bool keep_strings)
{
	size_t i;

	memset(o, 0, sizeof(*o));
	o->keys = keys;
	o->slots = slots;
	o->keep_strings = keep_strings;
	for (i = 0; keys[i]; i++) {
		unsigned char *b;

		o->lens[i] = strlen(keys[i]);
		b = &o->buckets[key_bucket(keys[i], o->lens[i])];
		*b = *b ? BUCKET_SHARED : i + 1;
	}
}

static bool missing(struct mw_error *err, const struct reader *rd,
		    const struct object *o, const struct slot *v, const char *key)
{
	if (v->present)
		return false;
	fail_to(err, rd, o->line, o->column, NULL, "missing key \"%s\"", key);
	return true;
}

static bool get_uint(struct mw_error *err, const struct reader *rd,
		     const struct object *o, const char *key, uint64_t max,
		     uint64_t *out)
{
	const struct slot *v = slot_of(o, key);

	if (missing(err, rd, o, v, key))
		return false;
	if (!v->is_u64 || v->u64 > max) {
		if (max == UINT64_MAX)
			fail_to(err, rd, v->line, v->column, key,
				"expected an unsigned 64-bit integer");
		else
			fail_to(err, rd, v->line, v->column, key,
				"expected an unsigned integer up to %" PRIu64, max);
		return false;
	}
	*out = v->u64;
	return true;
}

static bool get_u32(struct mw_error *err, const struct reader *rd,
		    const struct object *o, const char *key, uint32_t *out)
{
	uint64_t v;

	if (!get_uint(err, rd, o, key, UINT32_MAX, &v))
		return false;
	*out = (uint32_t)v;
	return true;
}

static bool get_int(struct mw_error *err, const struct reader *rd,
		    const struct object *o, const char *key, int64_t min,
		    int64_t max, int64_t *out)
{
	const struct slot *v = slot_of(o, key);

	if (missing(err, rd, o, v, key))
		return false;
	if (!v->is_i64 || v->i64 < min || v->i64 > max) {
		fail_to(err, rd, v->line, v->column, key,
			"expected an integer from %" PRId64 " to %" PRId64, min, max);
		return false;
	}
	*out = v->i64;
	return true;
}

/* The slot of @key if present and of @type. */
static const struct slot *member(struct mw_error *err, const struct reader *rd,
				 const struct object *o, const char *key,
				 enum json_type type)
{
	const struct slot *v = slot_of(o, key);

	if (missing(err, rd, o, v, key))
		return NULL;
	if (v->type != type) {
		fail_to(err, rd, v->line, v->column, key, "expected %s, found %s",
			json_type_name(type), json_type_name(v->type));
		return NULL;
	}
	return v;
}

/* The string of @key, taken from its slot. */
static bool get_string(struct mw_error *err, const struct reader *rd,
		       const struct object *o, const char *key, char **out)
{
	struct slot *v = slot_of(o, key);

	if (!member(err, rd, o, key, JSON_STRING))
		return false;
	*out = v->string;
	v->string = NULL;
	return true;
}

static void free_slots(struct object *o)
{
	size_t i;

	for (i = 0; o->keys[i]; i++) {
		free(o->slots[i].string);
		o->slots[i].string = NULL;
	}
}

/* Not valid JSON, or not readable: reported before anything else. */
static int json_failed(const struct reader *rd, struct mw_error *err)
{
	const struct json_error *je = json_reader_error(rd->json);

	if (je->sys_errno)
		return mw_error_set(err, -je->sys_errno, "cannot read %s [%s]",
				    rd->path, mw_errno_text(je->sys_errno));
	return mw_error_set(err, -EINVAL, "%s:%u:%u: not valid JSON: %s",
			    rd->file, je->line, je->column, je->message);
}

/*
 * A value whose first token is @tok into @v (when @v is not NULL), and
 * past the rest of it.  False when the document is not valid JSON, or out
 * of memory (then @oom).
 */
static bool take_value(struct reader *rd, const struct json_token *tok,
		       struct slot *v, bool keep_string, bool *oom)
{
	if (v) {
		free(v->string);
		memset(v, 0, sizeof(*v));
		v->present = true;
		v->type = json_token_value_type(tok->type);
		v->line = tok->line;
		v->column = tok->column;
		if (tok->type == JSON_VALUE_NUMBER) {
			v->is_u64 = json_u64(tok->text, &v->u64);
			if (v->is_u64 && v->u64 <= INT64_MAX) {
				v->is_i64 = true;
				v->i64 = (int64_t)v->u64;
			} else {
				v->is_i64 = json_i64(tok->text, &v->i64);
			}
		} else if (tok->type == JSON_VALUE_STRING && keep_string) {
			v->string = strdup(tok->text);
			if (!v->string) {
				*oom = true;
				return false;
			}
		}
	}
	return json_skip(rd->json, tok);
}

/*
 * The members of the object just opened (at @begin) into the slots of
 * @o, unknown ones skipped, until it closes.  @on_key, when not NULL, is
 * offered each key first and reads its value itself when it returns 1.
 * Returns 0, -EINVAL (not valid JSON) or -ENOMEM.
 */
typedef int (*key_fn)(struct reader *rd, const char *key, void *ctx);

static int read_object(struct reader *rd, const struct json_token *begin,
		       struct object *o, key_fn on_key, void *ctx)
{
	struct json_token tok;
	bool oom = false;
	size_t i;

	o->line = begin->line;
	o->column = begin->column;
	for (i = 0; o->keys[i]; i++)
		o->slots[i].present = false;
	for (;;) {
		struct slot *v;
		int ret;

		switch (json_next(rd->json, &tok)) {
		case JSON_OBJECT_END:
			return 0;
		case JSON_KEY:
			break;
		default:
			return -EINVAL;
		}
		if (on_key) {
			ret = on_key(rd, tok.text, ctx);
			if (ret < 0)
				return ret;
			if (ret)
				continue;
		}
		v = slot_of_len(o, tok.text, tok.len);
		json_next(rd->json, &tok);
		if (!take_value(rd, &tok, v, o->keep_strings, &oom))
			return oom ? -ENOMEM : -EINVAL;
	}
}

static const char *const run_keys[] = {
	"start", "nr_pages", "pfn", "flags", "folio_flags", "mapcount",
	"refcount", "nid", "order", "lru_gen", NULL,
};

/* A run's fields, checked in the order a reader of the whole tree did. */
static bool check_run(struct mw_error *err, const struct reader *rd,
		      const struct object *o, struct memwalk_page_run *r)
{
	uint64_t v, start, pfn;
	int64_t gen;

	memset(r, 0, sizeof(*r));
	if (!get_uint(err, rd, o, "start", UINT64_MAX, &start) ||
	    !get_u32(err, rd, o, "nr_pages", &r->nr_pages) ||
	    !get_uint(err, rd, o, "pfn", UINT64_MAX, &pfn) ||
	    !get_u32(err, rd, o, "flags", &r->flags) ||
	    !get_u32(err, rd, o, "folio_flags", &r->folio_flags) ||
	    !get_u32(err, rd, o, "mapcount", &r->mapcount) ||
	    !get_u32(err, rd, o, "refcount", &r->refcount) ||
	    !get_uint(err, rd, o, "nid", UINT16_MAX, &v))
		return false;
	r->start = start;
	r->pfn = pfn;
	r->nid = (uint16_t)v;
	if (!get_uint(err, rd, o, "order", UINT8_MAX, &v))
		return false;
	r->order = (uint8_t)v;
	if (!get_int(err, rd, o, "lru_gen", INT8_MIN, INT8_MAX, &gen))
		return false;
	r->lru_gen = (int8_t)gen;
	return true;
}

/* A VMA's "runs": added to @vma; the first run in error into @err. */
struct runs_ctx {
	struct mw_vma *vma;
	size_t index;		/* of the VMA */
	bool runs_seen;
	struct slot runs;	/* where "runs" is, and its type */
	struct mw_error *err;	/* the first run in error */
	bool failed;
};

static int read_runs(struct reader *rd, struct runs_ctx *c)
{
	struct slot slots[sizeof(run_keys) / sizeof(run_keys[0])] = { 0 };
	struct object o;
	struct memwalk_page_run run;
	struct json_token tok;
	size_t i;
	int ret;

	object_init(&o, run_keys, slots, false);
	for (i = 0;; i++) {
		switch (json_next(rd->json, &tok)) {
		case JSON_ARRAY_END:
			return 0;
		case JSON_OBJECT_BEGIN:
			ret = read_object(rd, &tok, &o, NULL, NULL);
			if (ret)
				return ret;
			if (c->failed)
				continue;
			if (!check_run(NULL, rd, &o, &run)) {
				/* the place is named only when there is an error */
				snprintf(rd->where, sizeof(rd->where), "vmas[%zu].runs[%zu]",
					 c->index, i);
				check_run(c->err, rd, &o, &run);
				c->failed = true;
			} else if (mw_vma_add_run(c->vma, &run)) {
				snprintf(rd->where, sizeof(rd->where), "vmas[%zu].runs[%zu]",
					 c->index, i);
				fail_to(c->err, rd, o.line, o.column, NULL, "out of memory");
				c->failed = true;
			}
			break;
		case JSON_ERROR:
			return -EINVAL;
		default:
			if (!c->failed) {
				snprintf(rd->where, sizeof(rd->where), "vmas[%zu].runs[%zu]",
					 c->index, i);
				fail_to(c->err, rd, tok.line, tok.column, NULL,
					"expected an object, found %s",
					json_type_name(json_token_value_type(tok.type)));
				c->failed = true;
			}
			if (!json_skip(rd->json, &tok))
				return -EINVAL;
			break;
		}
	}
}

/* "runs" of a VMA: read into it as it comes; 1 when it was "runs". */
static int vma_key(struct reader *rd, const char *key, void *ctx)
{
	struct runs_ctx *c = ctx;
	struct json_token tok;
	bool oom = false;
	int ret;

	if (strcmp(key, "runs"))
		return 0;
	if (json_next(rd->json, &tok) == JSON_ARRAY_BEGIN) {
		c->runs = (struct slot){
			.present = true, .type = JSON_ARRAY,
			.line = tok.line, .column = tok.column,
		};
		ret = read_runs(rd, c);
		return ret ? ret : 1;
	}
	if (!take_value(rd, &tok, &c->runs, false, &oom))
		return oom ? -ENOMEM : -EINVAL;
	return 1;
}

static const char *const vma_keys[] = {
	"start", "end", "flags", "pgoff", "ino", "dev_major", "dev_minor",
	"page_shift", "name_kind", "name", "runs", NULL,
};

/* A VMA's own fields, checked in the order a reader of the whole tree did. */
static bool check_vma(struct mw_error *err, const struct reader *rd,
		      struct object *o, struct mw_vma *vma)
{
	const struct slot *kind;
	int k;

	if (!get_uint(err, rd, o, "start", UINT64_MAX, &vma->start) ||
	    !get_uint(err, rd, o, "end", UINT64_MAX, &vma->end) ||
	    !get_uint(err, rd, o, "flags", UINT64_MAX, &vma->flags) ||
	    !get_uint(err, rd, o, "pgoff", UINT64_MAX, &vma->pgoff) ||
	    !get_uint(err, rd, o, "ino", UINT64_MAX, &vma->ino) ||
	    !get_u32(err, rd, o, "dev_major", &vma->dev_major) ||
	    !get_u32(err, rd, o, "dev_minor", &vma->dev_minor) ||
	    !get_u32(err, rd, o, "page_shift", &vma->page_shift))
		return false;
	kind = member(err, rd, o, "name_kind", JSON_STRING);
	if (!kind || !member(err, rd, o, "name", JSON_STRING) ||
	    !member(err, rd, o, "runs", JSON_ARRAY))
		return false;
	k = mw_name_kind_lookup(kind->string);
	if (k < 0) {
		fail_to(err, rd, kind->line, kind->column, "name_kind",
			"unknown name kind \"%s\"", kind->string);
		return false;
	}
	vma->name_kind = k;
	return get_string(err, rd, o, "name", &vma->name);
}

/*
 * One VMA, opened at @begin, into @snap; its error, if any, into @err
 * (@failed).  Returns 0, -EINVAL (not valid JSON) or -ENOMEM.
 */
static int read_vma(struct reader *rd, struct mw_snapshot *snap, size_t index,
		    const struct json_token *begin, struct mw_error *err,
		    bool *failed)
{
	struct mw_error run_err;
	struct slot slots[sizeof(vma_keys) / sizeof(vma_keys[0])] = { 0 };
	struct runs_ctx c = { .index = index, .err = &run_err };
	struct mw_vma tmpl = { .name = "" };
	struct object o;
	int ret;

	object_init(&o, vma_keys, slots, true);
	c.vma = mw_snapshot_add_vma(snap, &tmpl);
	if (!c.vma) {
		ret = -ENOMEM;
		goto out;
	}
	ret = read_object(rd, begin, &o, vma_key, &c);
	if (ret)
		goto out;
	/* where "runs" was, and what */
	*slot_of(&o, "runs") = c.runs;
	snprintf(rd->where, sizeof(rd->where), "vmas[%zu]", index);
	free(c.vma->name);
	c.vma->name = NULL;
	if (!check_vma(err, rd, &o, c.vma)) {
		*failed = true;
	} else if (c.failed) {
		*err = run_err;
		*failed = true;
	}
	if (!c.vma->name)
		c.vma->name = mw_strdup("");
	mw_vma_trim(c.vma);
out:
	free_slots(&o);
	return ret;
}
static const char *const top_keys[] = {
	"schema_version", "generator", "module_version", "uapi_version",
	"release", "machine", "hostname", "boot_id", "page_size",
	"pgtable_levels", "time_ns", "pid", "comm", "flags", "range", "cost",
	"vmas", NULL,
};

static const char *const range_keys[] = { "start", "end", NULL };

static const char *const cost_keys[] = {
	"lock_drops", "max_lock_ns", "total_lock_ns", "calls", NULL,
};

/* What the top level holds besides its slots: range, cost and the VMAs. */
struct top_ctx {
	struct mw_snapshot *snap;
	struct object range, cost;
	struct slot range_slots[3], cost_slots[5];
	struct mw_error *vma_err;	/* the first VMA in error */
	bool vma_failed;
	size_t nr_vmas;			/* items of "vmas" seen */
	struct slot range_at, cost_at, vmas_at;	/* where they were, and what */
};

static int read_vmas(struct reader *rd, struct top_ctx *c)
{
	struct json_token tok;
	int ret;

	for (;;) {
		size_t index = c->nr_vmas;

		switch (json_next(rd->json, &tok)) {
		case JSON_ARRAY_END:
			return 0;
		case JSON_ERROR:
			return -EINVAL;
		default:
			break;
		}
		c->nr_vmas++;
		if (c->vma_failed) {
			/* only the first VMA in error counts: the rest is checked as JSON */
			if (!json_skip(rd->json, &tok))
				return -EINVAL;
			continue;
		}
		if (tok.type == JSON_OBJECT_BEGIN) {
			ret = read_vma(rd, c->snap, index, &tok, c->vma_err, &c->vma_failed);
			if (ret)
				return ret;
			continue;
		}
		snprintf(rd->where, sizeof(rd->where), "vmas[%zu]", index);
		fail_to(c->vma_err, rd, tok.line, tok.column, NULL,
			"expected an object, found %s",
			json_type_name(json_token_value_type(tok.type)));
		c->vma_failed = true;
		if (!json_skip(rd->json, &tok))
			return -EINVAL;
	}
}

/* "range", "cost" and "vmas" are read as they come. */
static int top_key(struct reader *rd, const char *key, void *ctx)
{
	struct top_ctx *c = ctx;
	struct object *o = NULL;
	struct json_token tok;
	struct slot *at;
	int ret;

	if (!strcmp(key, "range")) {
		o = &c->range;
		at = &c->range_at;
	} else if (!strcmp(key, "cost")) {
		o = &c->cost;
		at = &c->cost_at;
	} else if (!strcmp(key, "vmas")) {
		at = &c->vmas_at;
	} else {
		return 0;
	}
	json_next(rd->json, &tok);
	*at = (struct slot){
		.present = true, .type = json_token_value_type(tok.type),
		.line = tok.line, .column = tok.column,
	};
	if (o && tok.type == JSON_OBJECT_BEGIN)
		ret = read_object(rd, &tok, o, NULL, NULL);
	else if (!o && tok.type == JSON_ARRAY_BEGIN)
		ret = read_vmas(rd, c);
	else
		ret = json_skip(rd->json, &tok) ? 0 : -EINVAL;
	return ret ? ret : 1;
}

/* The top-level fields, checked in the order a reader of the whole tree did. */
static bool check_top(struct mw_error *err, struct reader *rd, struct object *o,
		      struct top_ctx *c)
{
	struct mw_snapshot *snap = c->snap;
	const struct slot *v;
	uint64_t version;
	int64_t pid;

	if (!get_uint(err, rd, o, "schema_version", UINT32_MAX, &version))
		return false;
	if (version != MW_SCHEMA_VERSION) {
		v = slot_of(o, "schema_version");
		fail_to(err, rd, v->line, v->column, "schema_version",
			version > MW_SCHEMA_VERSION ?
			"version %" PRIu64 " is newer than this client reads (1): upgrade memwalk-client" :
			"unknown version %" PRIu64, version);
		return false;
	}
	if (!get_string(err, rd, o, "generator", &snap->generator) ||
	    !get_string(err, rd, o, "module_version", &snap->module_version) ||
	    !get_u32(err, rd, o, "uapi_version", &snap->uapi_version) ||
	    !get_string(err, rd, o, "release", &snap->release) ||
	    !get_string(err, rd, o, "machine", &snap->machine) ||
	    !get_uint(err, rd, o, "page_size", UINT64_MAX, &snap->page_size) ||
	    !get_u32(err, rd, o, "pgtable_levels", &snap->pgtable_levels) ||
	    !get_uint(err, rd, o, "time_ns", UINT64_MAX, &snap->time_ns) ||
	    !get_int(err, rd, o, "pid", 0, INT32_MAX, &pid) ||
	    !get_string(err, rd, o, "comm", &snap->comm) ||
	    !get_u32(err, rd, o, "flags", &snap->flags))
		return false;
	snap->pid = (int32_t)pid;
	/* written since the diff learnt to tell machines and boots apart */
	if ((slot_of(o, "hostname")->present &&
	     !get_string(err, rd, o, "hostname", &snap->hostname)) ||
	    (slot_of(o, "boot_id")->present &&
	     !get_string(err, rd, o, "boot_id", &snap->boot_id)))
		return false;

	*slot_of(o, "range") = c->range_at;
	*slot_of(o, "cost") = c->cost_at;
	*slot_of(o, "vmas") = c->vmas_at;
	if (!member(err, rd, o, "range", JSON_OBJECT))
		return false;
	snprintf(rd->where, sizeof(rd->where), "range");
	if (!get_uint(err, rd, &c->range, "start", UINT64_MAX, &snap->range_start) ||
	    !get_uint(err, rd, &c->range, "end", UINT64_MAX, &snap->range_end))
		return false;
	rd->where[0] = '\0';

	if (!member(err, rd, o, "cost", JSON_OBJECT))
		return false;
	snprintf(rd->where, sizeof(rd->where), "cost");
	if (!get_uint(err, rd, &c->cost, "lock_drops", UINT64_MAX, &snap->cost.lock_drops) ||
	    !get_uint(err, rd, &c->cost, "max_lock_ns", UINT64_MAX, &snap->cost.max_lock_ns) ||
	    !get_uint(err, rd, &c->cost, "total_lock_ns", UINT64_MAX, &snap->cost.total_lock_ns) ||
	    !get_uint(err, rd, &c->cost, "calls", UINT64_MAX, &snap->cost.calls))
		return false;
	rd->where[0] = '\0';

	if (!member(err, rd, o, "vmas", JSON_ARRAY))
		return false;
	if (c->vma_failed) {
		*err = *c->vma_err;
		return false;
	}
	return true;
}

/*
 * The document into @snap: 0, or a negative errno with @err set.  @vma_err
 * holds the first VMA in error until the top level is checked.
 */
static int read_snapshot(struct reader *rd, struct mw_snapshot *snap,
			 struct mw_error *err, struct mw_error *vma_err)
{
	struct slot slots[sizeof(top_keys) / sizeof(top_keys[0])] = { 0 };
	struct top_ctx c = { .snap = snap, .vma_err = vma_err };
	struct object o;
	struct json_token tok, end;
	bool root_object = false;
	int ret = 0;

	object_init(&o, top_keys, slots, true);
	object_init(&c.range, range_keys, c.range_slots, false);
	object_init(&c.cost, cost_keys, c.cost_slots, false);
	if (json_next(rd->json, &tok) == JSON_OBJECT_BEGIN) {
		root_object = true;
		ret = read_object(rd, &tok, &o, top_key, &c);
	} else if (!json_skip(rd->json, &tok)) {
		ret = -EINVAL;
	}
	if (!ret && json_next(rd->json, &end) != JSON_END)
		ret = -EINVAL;
	rd->where[0] = '\0';
	if (ret == -EINVAL) {
		ret = json_failed(rd, err);
	} else if (ret) {
		ret = mw_error_set(err, ret, "%s: out of memory", rd->file);
	} else if (!root_object) {
		fail_to(err, rd, tok.line, tok.column, NULL, "expected an object, found %s",
			json_type_name(json_token_value_type(tok.type)));
		ret = -EINVAL;
	} else if (!check_top(err, rd, &o, &c)) {
		ret = -EINVAL;
	}
	free_slots(&o);
	return ret;
}

int mw_snapshot_load(const char *path, struct mw_snapshot **snapp,
		     struct mw_error *err)
{
	struct reader rd = { .path = path, .file = strcmp(path, "-") ? path : "<stdin>" };
	FILE *fp = strcmp(path, "-") ? fopen(path, "r") : stdin;
	struct mw_snapshot *snap = NULL;
	struct mw_error *vma_err = NULL;
	char msg[256];
	int ret, e;

	*snapp = NULL;
	if (!fp) {
		e = errno;
		return mw_error_set(err, -e, "cannot open %s [%s]", path, mw_errno_text(e));
	}
	rd.json = json_reader_new(fp);
	snap = mw_snapshot_new();
	vma_err = malloc(sizeof(*vma_err));
	if (!rd.json || !snap || !vma_err)
		ret = mw_error_set(err, -ENOMEM, "%s: out of memory", rd.file);
	else
		ret = read_snapshot(&rd, snap, err, vma_err);
	if (!ret && !mw_snapshot_check(snap, msg, sizeof(msg)))
		ret = mw_error_set(err, -EINVAL, "%s: not a valid snapshot: %s",
				   rd.file, msg);
	json_reader_free(rd.json);
	free(vma_err);
	if (fp != stdin)
		fclose(fp);
	if (ret) {
		mw_snapshot_free(snap);
		return ret;
	}
	*snapp = snap;
	return 0;
}

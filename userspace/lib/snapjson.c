// SPDX-License-Identifier: GPL-2.0
/*
 * libmemwalk: the JSON form of a snapshot (schema 1, documented in
 * docs/json-schema.md), written through the print layer and read back with
 * json.c.  Writer and reader sit side by side so that the schema lives in
 * one file.  Schema 1 only grows: no key is ever removed or renamed.
 *
 * The reader takes the raw fields (numbers) and ignores what is derived
 * from them (names, summaries, totals, "end", "time"): those are computed
 * again from the model, so a file read and written again is the same
 * document.  Unknown keys are ignored, for files of newer schema-1 writers.
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

#define MAX_FILE_SIZE	(1ULL << 31)

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
	char name[48];
	size_t f;

	open_json_object(PRINT_JSON, key);
	for (f = 0; f < mw_nr_summary_fields; f++) {
		snprintf(name, sizeof(name), "%s_kb", mw_summary_fields[f].key);
		print_uint(PRINT_JSON, name, "", mw_summary_get(sum, &mw_summary_fields[f]));
		all_exact &= mw_summary_exact(snap, &mw_summary_fields[f]);
	}
	if (!all_exact) {
		open_json_array(PRINT_JSON, "not_exact");
		for (f = 0; f < mw_nr_summary_fields; f++) {
			if (mw_summary_exact(snap, &mw_summary_fields[f]))
				continue;
			snprintf(name, sizeof(name), "%s_kb", mw_summary_fields[f].key);
			print_string(PRINT_JSON, NULL, "", name);
		}
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

struct reader {
	const char *file;
	char where[64];		/* "vmas[3].runs[7]", or "" at the top */
	struct mw_error *err;
};

static bool __attribute__((format(printf, 4, 5)))
fail(const struct reader *rd, const struct json_value *at, const char *key,
     const char *fmt, ...)
{
	char msg[256], where[128], pos[32] = "";
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(where, sizeof(where), "%s%s%s: ", rd->where,
		 rd->where[0] && key ? "." : "", key ? key : "");
	if (!strcmp(where, ": "))
		where[0] = '\0';
	if (at)
		snprintf(pos, sizeof(pos), ":%u:%u", at->line, at->column);
	mw_error_set(rd->err, -EINVAL, "%s%s: %s%s", rd->file, pos, where, msg);
	return false;
}

static const struct json_value *member(const struct reader *rd,
				       const struct json_value *obj,
				       const char *key, enum json_type type)
{
	const struct json_value *v = json_get(obj, key);

	if (!v) {
		fail(rd, obj, NULL, "missing key \"%s\"", key);
		return NULL;
	}
	if (v->type != type) {
		fail(rd, v, key, "expected %s, found %s", json_type_name(type),
		     json_type_name(v->type));
		return NULL;
	}
	return v;
}

static bool get_uint(const struct reader *rd, const struct json_value *obj,
		     const char *key, uint64_t max, uint64_t *out)
{
	const struct json_value *v = json_get(obj, key);

	if (!v)
		return fail(rd, obj, NULL, "missing key \"%s\"", key);
	if (!json_u64(v, out) || *out > max) {
		if (max == UINT64_MAX)
			return fail(rd, v, key, "expected an unsigned 64-bit integer");
		return fail(rd, v, key, "expected an unsigned integer up to %" PRIu64, max);
	}
	return true;
}

static bool get_u32(const struct reader *rd, const struct json_value *obj,
		    const char *key, uint32_t *out)
{
	uint64_t v;

	if (!get_uint(rd, obj, key, UINT32_MAX, &v))
		return false;
	*out = (uint32_t)v;
	return true;
}

static bool get_int(const struct reader *rd, const struct json_value *obj,
		    const char *key, int64_t min, int64_t max, int64_t *out)
{
	const struct json_value *v = json_get(obj, key);

	if (!v)
		return fail(rd, obj, NULL, "missing key \"%s\"", key);
	if (!json_i64(v, out) || *out < min || *out > max)
		return fail(rd, v, key, "expected an integer from %" PRId64 " to %" PRId64,
			    min, max);
	return true;
}

static bool get_string(const struct reader *rd, const struct json_value *obj,
		       const char *key, char **out)
{
	const struct json_value *v = member(rd, obj, key, JSON_STRING);

	if (!v)
		return false;
	*out = mw_strdup(v->string);
	if (!*out)
		return fail(rd, v, key, "out of memory");
	return true;
}

static bool read_run(struct reader *rd, const struct json_value *o,
		     struct memwalk_page_run *r)
{
	uint64_t v, start, pfn;
	int64_t gen;

	if (o->type != JSON_OBJECT)
		return fail(rd, o, NULL, "expected an object, found %s",
			    json_type_name(o->type));
	memset(r, 0, sizeof(*r));
	if (!get_uint(rd, o, "start", UINT64_MAX, &start) ||
	    !get_u32(rd, o, "nr_pages", &r->nr_pages) ||
	    !get_uint(rd, o, "pfn", UINT64_MAX, &pfn) ||
	    !get_u32(rd, o, "flags", &r->flags) ||
	    !get_u32(rd, o, "folio_flags", &r->folio_flags) ||
	    !get_u32(rd, o, "mapcount", &r->mapcount) ||
	    !get_u32(rd, o, "refcount", &r->refcount) ||
	    !get_uint(rd, o, "nid", UINT16_MAX, &v))
		return false;
	r->start = start;
	r->pfn = pfn;
	r->nid = (uint16_t)v;
	if (!get_uint(rd, o, "order", UINT8_MAX, &v))
		return false;
	r->order = (uint8_t)v;
	if (!get_int(rd, o, "lru_gen", INT8_MIN, INT8_MAX, &gen))
		return false;
	r->lru_gen = (int8_t)gen;
	return true;
}

static bool read_vma(struct reader *rd, struct mw_snapshot *snap, size_t index,
		     const struct json_value *o)
{
	const struct json_value *kind, *name, *runs;
	struct mw_vma tmpl = { 0 }, *vma;
	struct memwalk_page_run run;
	size_t i;
	int k;

	snprintf(rd->where, sizeof(rd->where), "vmas[%zu]", index);
	if (o->type != JSON_OBJECT)
		return fail(rd, o, NULL, "expected an object, found %s",
			    json_type_name(o->type));
	if (!get_uint(rd, o, "start", UINT64_MAX, &tmpl.start) ||
	    !get_uint(rd, o, "end", UINT64_MAX, &tmpl.end) ||
	    !get_uint(rd, o, "flags", UINT64_MAX, &tmpl.flags) ||
	    !get_uint(rd, o, "pgoff", UINT64_MAX, &tmpl.pgoff) ||
	    !get_uint(rd, o, "ino", UINT64_MAX, &tmpl.ino) ||
	    !get_u32(rd, o, "dev_major", &tmpl.dev_major) ||
	    !get_u32(rd, o, "dev_minor", &tmpl.dev_minor) ||
	    !get_u32(rd, o, "page_shift", &tmpl.page_shift))
		return false;
	kind = member(rd, o, "name_kind", JSON_STRING);
	name = member(rd, o, "name", JSON_STRING);
	runs = member(rd, o, "runs", JSON_ARRAY);
	if (!kind || !name || !runs)
		return false;
	k = mw_name_kind_lookup(kind->string);
	if (k < 0)
		return fail(rd, kind, "name_kind", "unknown name kind \"%s\"",
			    kind->string);
	tmpl.name_kind = k;
	tmpl.name = (char *)name->string;
	vma = mw_snapshot_add_vma(snap, &tmpl);
	if (!vma)
		return fail(rd, o, NULL, "out of memory");
	for (i = 0; i < runs->array.count; i++) {
		snprintf(rd->where, sizeof(rd->where), "vmas[%zu].runs[%zu]", index, i);
		if (!read_run(rd, runs->array.items[i], &run))
			return false;
		if (mw_vma_add_run(vma, &run))
			return fail(rd, runs->array.items[i], NULL, "out of memory");
	}
	return true;
}

static bool read_snapshot(struct reader *rd, struct mw_snapshot *snap,
			  const struct json_value *root)
{
	const struct json_value *range, *cost, *vmas;
	uint64_t version;
	int64_t pid;
	size_t i;

	if (root->type != JSON_OBJECT)
		return fail(rd, root, NULL, "expected an object, found %s",
			    json_type_name(root->type));
	if (!get_uint(rd, root, "schema_version", UINT32_MAX, &version))
		return false;
	if (version != MW_SCHEMA_VERSION)
		return fail(rd, json_get(root, "schema_version"), "schema_version",
			    version > MW_SCHEMA_VERSION ?
			    "version %" PRIu64 " is newer than this client reads (1): upgrade memwalk-client" :
			    "unknown version %" PRIu64, version);
	if (!get_string(rd, root, "generator", &snap->generator) ||
	    !get_string(rd, root, "module_version", &snap->module_version) ||
	    !get_u32(rd, root, "uapi_version", &snap->uapi_version) ||
	    !get_string(rd, root, "release", &snap->release) ||
	    !get_string(rd, root, "machine", &snap->machine) ||
	    !get_uint(rd, root, "page_size", UINT64_MAX, &snap->page_size) ||
	    !get_u32(rd, root, "pgtable_levels", &snap->pgtable_levels) ||
	    !get_uint(rd, root, "time_ns", UINT64_MAX, &snap->time_ns) ||
	    !get_int(rd, root, "pid", 0, INT32_MAX, &pid) ||
	    !get_string(rd, root, "comm", &snap->comm) ||
	    !get_u32(rd, root, "flags", &snap->flags))
		return false;
	snap->pid = (int32_t)pid;
	if ((json_get(root, "hostname") &&
	     !get_string(rd, root, "hostname", &snap->hostname)) ||
	    (json_get(root, "boot_id") &&
	     !get_string(rd, root, "boot_id", &snap->boot_id)))
		return false;

	range = member(rd, root, "range", JSON_OBJECT);
	if (!range)
		return false;
	snprintf(rd->where, sizeof(rd->where), "range");
	if (!get_uint(rd, range, "start", UINT64_MAX, &snap->range_start) ||
	    !get_uint(rd, range, "end", UINT64_MAX, &snap->range_end))
		return false;
	rd->where[0] = '\0';

	cost = member(rd, root, "cost", JSON_OBJECT);
	if (!cost)
		return false;
	snprintf(rd->where, sizeof(rd->where), "cost");
	if (!get_uint(rd, cost, "lock_drops", UINT64_MAX, &snap->cost.lock_drops) ||
	    !get_uint(rd, cost, "max_lock_ns", UINT64_MAX, &snap->cost.max_lock_ns) ||
	    !get_uint(rd, cost, "total_lock_ns", UINT64_MAX, &snap->cost.total_lock_ns) ||
	    !get_uint(rd, cost, "calls", UINT64_MAX, &snap->cost.calls))
		return false;
	rd->where[0] = '\0';

	vmas = member(rd, root, "vmas", JSON_ARRAY);
	if (!vmas)
		return false;
	for (i = 0; i < vmas->array.count; i++)
		if (!read_vma(rd, snap, i, vmas->array.items[i]))
			return false;
	return true;
}

/* The whole of @path ("-": standard input) into *@textp; 0 or -errno. */
static int read_file(const char *path, char **textp, size_t *lenp,
		     struct mw_error *err)
{
	FILE *fp = strcmp(path, "-") ? fopen(path, "r") : stdin;
	size_t len = 0, cap = 0, n;
	char *buf = NULL, *p;
	int e, ret;

	if (!fp) {
		e = errno;
		return mw_error_set(err, -e, "cannot open %s [%s]", path,
				    mw_errno_text(e));
	}
	for (;;) {
		if (len == cap) {
			cap = cap ? cap * 2 : 64 * 1024;
			if (cap > MAX_FILE_SIZE) {
				ret = mw_error_set(err, -EFBIG, "%s: larger than %llu bytes",
						   path, MAX_FILE_SIZE);
				goto out_fail;
			}
			p = realloc(buf, cap);
			if (!p) {
				ret = mw_error_set(err, -ENOMEM, "%s: out of memory", path);
				goto out_fail;
			}
			buf = p;
		}
		n = fread(buf + len, 1, cap - len, fp);
		len += n;
		if (n)
			continue;
		if (ferror(fp)) {
			e = errno;
			ret = mw_error_set(err, e ? -e : -EIO, "cannot read %s [%s]",
					   path, mw_errno_text(e));
			goto out_fail;
		}
		break;
	}
	if (fp != stdin)
		fclose(fp);
	*textp = buf;
	*lenp = len;
	return 0;

out_fail:
	if (fp != stdin)
		fclose(fp);
	free(buf);
	return ret;
}

int mw_snapshot_load(const char *path, struct mw_snapshot **snapp,
		     struct mw_error *err)
{
	struct reader rd = { .file = strcmp(path, "-") ? path : "<stdin>", .err = err };
	struct mw_snapshot *snap = NULL;
	struct json_error jerr;
	struct json_doc *doc;
	char msg[256], *text = NULL;
	size_t len = 0;
	int ret = 0;

	*snapp = NULL;
	ret = read_file(path, &text, &len, err);
	if (ret)
		return ret;
	doc = json_parse(text, len, &jerr);
	free(text);
	if (!doc)
		return mw_error_set(err, -EINVAL, "%s:%u:%u: not valid JSON: %s",
				    rd.file, jerr.line, jerr.column, jerr.message);
	snap = mw_snapshot_new();
	if (!snap) {
		ret = mw_error_set(err, -ENOMEM, "%s: out of memory", rd.file);
	} else if (!read_snapshot(&rd, snap, json_root(doc))) {
		ret = -EINVAL;
	} else if (!mw_snapshot_check(snap, msg, sizeof(msg))) {
		ret = mw_error_set(err, -EINVAL, "%s: not a valid snapshot: %s",
				   rd.file, msg);
	}
	json_free(doc);
	if (ret) {
		mw_snapshot_free(snap);
		return ret;
	}
	*snapp = snap;
	return 0;
}

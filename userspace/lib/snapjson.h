/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libmemwalk: the JSON form of a snapshot (schema 1, docs/json-schema.md),
 * written through the print layer (print.h) and read back (snapjson.c).
 */
#ifndef MEMWALK_SNAPJSON_H
#define MEMWALK_SNAPJSON_H

#include <stdint.h>

#include "error.h"
#include "snapshot.h"

#define MW_SCHEMA_VERSION	1

/* The whole snapshot as one JSON document, to the print layer's output. */
void mw_snapshot_print_json(const struct mw_snapshot *snap);

/* @key: the set bits of @value as names, unnamed ones as "bitN". */
struct mw_bit_names;
void mw_print_json_bit_names(const char *key, const struct mw_bit_names *t,
			     uint64_t value);

/* The members of one run's object, as in "runs" (translate's page). */
void mw_run_print_json_members(const struct mw_snapshot *snap,
			       const struct memwalk_page_run *r);

/*
 * Read FILE ("-": standard input) into a checked model.  Returns 0 with
 * *@snapp set, or a negative errno with @err saying where and why
 * ("a.json:3:5: vmas[0].start: expected ...").
 */
int mw_snapshot_load(const char *path, struct mw_snapshot **snapp,
		     struct mw_error *err);

#endif /* MEMWALK_SNAPJSON_H */

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libmemwalk: the per-VMA counts, with the rules of /proc/PID/smaps
 * (summary.c).
 */
#ifndef MEMWALK_SUMMARY_H
#define MEMWALK_SUMMARY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "snapshot.h"

struct mw_summary {		/* all in kB, as smaps prints them */
	uint64_t size;
	uint64_t rss;
	uint64_t pss;
	uint64_t shared_clean, shared_dirty;
	uint64_t private_clean, private_dirty;
	uint64_t dirty;			/* shared_dirty + private_dirty */
	uint64_t referenced;
	uint64_t anonymous;
	uint64_t lazyfree;
	uint64_t ksm;
	uint64_t anon_thp;		/* AnonHugePages */
	uint64_t shmem_thp;		/* ShmemPmdMapped */
	uint64_t file_thp;		/* FilePmdMapped */
	uint64_t thp;			/* the three above */
	uint64_t shared_hugetlb, private_hugetlb;
	uint64_t hugetlb;		/* the two above */
	uint64_t swap;
	uint64_t locked;
};

/*
 * smaps' struct mem_size_stats, before it is printed: bytes, and Pss in
 * 1/4096 bytes (PSS_SHIFT).  Summed over every VMA it is what
 * /proc/PID/smaps_rollup rounds to kB only once, at the end.
 */
#define MW_PSS_SHIFT	12

struct mw_smaps_stats {
	uint64_t size;
	uint64_t resident, pss, pss_locked;
	uint64_t pss_anon, pss_file, pss_shmem;	/* Pss by the folio's kind */
	uint64_t shared_clean, shared_dirty, private_clean, private_dirty;
	uint64_t referenced, anonymous, lazyfree, ksm;
	uint64_t anon_thp, shmem_thp, file_thp;
	uint64_t shared_hugetlb, private_hugetlb;
	uint64_t swap;
};

/* Add the counts of @vma to @st (not cleared first). */
void mw_smaps_accumulate(const struct mw_snapshot *snap, const struct mw_vma *vma,
			 struct mw_smaps_stats *st);
/* @st in kB, rounded down field by field as smaps prints them. */
void mw_smaps_summary(const struct mw_smaps_stats *st, struct mw_summary *sum);

/* Dirty as smaps counts it: a dirty present entry, or a dirty folio. */
bool mw_run_dirty(const struct memwalk_page_run *r);
void mw_summarize_vma(const struct mw_snapshot *snap, const struct mw_vma *vma,
		      struct mw_summary *sum);
/* The totals: the sum of the rows, each field on its own. */
void mw_summarize_all(const struct mw_snapshot *snap, struct mw_summary *total);
/* Add @sum to @total, field by field. */
void mw_summary_add(struct mw_summary *total, const struct mw_summary *sum);

/* What a field needs to be exact, beyond the page-table entries. */
enum mw_summary_needs {
	MW_NEEDS_ENTRY,		/* the entries alone (Size, Swap, Hugetlb) */
	MW_NEEDS_PAGE,		/* the struct page: not --entry-only */
	MW_NEEDS_FOLIO,		/* mapcount, refcount, folio flags: folio state */
};

/* The fields of struct mw_summary, in output order, for JSON and columns. */
struct mw_summary_field {
	const char *key;		/* JSON key, without the "_kb" */
	size_t offset;
	enum mw_summary_needs needs;
	const char *json_key;		/* with it: "rss_kb" */
};
extern const struct mw_summary_field mw_summary_fields[];
extern const size_t mw_nr_summary_fields;

/*
 * Whether @f is what smaps would say for @snap: false when the snapshot
 * lacks what the field needs (--entry-only, --no-folio, lab mode), whose
 * value is then only what the entries tell.
 */
bool mw_summary_exact(const struct mw_snapshot *snap,
		      const struct mw_summary_field *f);
/* The field of key @key, or NULL. */
const struct mw_summary_field *mw_summary_field(const char *key);

static inline uint64_t mw_summary_get(const struct mw_summary *sum,
				      const struct mw_summary_field *f)
{
	return *(const uint64_t *)((const char *)sum + f->offset);
}

#endif /* MEMWALK_SUMMARY_H */

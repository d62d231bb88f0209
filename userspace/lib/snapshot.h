/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libmemwalk: the in-memory model of one page-table snapshot.
 *
 * A snapshot comes from the kernel (collect.h) or from a saved JSON file
 * (snapjson.h); either way it ends up in one struct mw_snapshot, checked by
 * mw_snapshot_check(), and every view (the table, --pages, JSON, diff) is
 * rendered from that model only.  What a page counts for (Rss, Dirty, ...)
 * is decided in one place, summary.h.
 */
#ifndef MEMWALK_SNAPSHOT_H
#define MEMWALK_SNAPSHOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <linux/memwalk.h>

/* One VMA with its page runs (struct memwalk_page_run, as the ABI has it). */
struct mw_vma {
	uint64_t start, end;
	uint64_t flags;			/* MEMWALK_VMA_* */
	uint64_t pgoff;
	uint64_t ino;
	uint32_t dev_major, dev_minor;
	uint32_t page_shift;
	uint32_t name_kind;		/* MEMWALK_NAME_* */
	char *name;			/* never NULL */
	struct memwalk_page_run *runs;	/* by address */
	size_t nr_runs, cap_runs;
};

/* What taking the snapshot cost the target. */
struct mw_cost {
	uint64_t lock_drops;
	uint64_t max_lock_ns;
	uint64_t total_lock_ns;
	uint64_t calls;
};

struct mw_snapshot {
	char *generator;		/* "memwalk-client 0.1.0" */
	char *module_version;
	uint32_t uapi_version;
	char *release;			/* kernel release */
	char *machine;
	/* where it was taken: NULL in files from before they were recorded */
	char *hostname;
	char *boot_id;			/* /proc/sys/kernel/random/boot_id */
	uint64_t page_size;
	uint32_t pgtable_levels;
	uint64_t time_ns;		/* CLOCK_REALTIME when taken */
	int32_t pid;
	char *comm;
	uint64_t range_start, range_end;
	uint32_t flags;			/* MEMWALK_SNAP_* it was taken with */
	struct mw_vma *vmas;		/* by address, not overlapping */
	size_t nr_vmas, cap_vmas;
	struct mw_cost cost;
};

/* model.c */
struct mw_snapshot *mw_snapshot_new(void);
void mw_snapshot_free(struct mw_snapshot *snap);
char *mw_strdup(const char *s);		/* NULL only when out of memory */
/* Record this host's name and boot id in @snap; 0 or -ENOMEM. */
int mw_snapshot_set_host(struct mw_snapshot *snap);
/* Append a copy of @vma (its name copied, no runs); NULL when out of memory. */
struct mw_vma *mw_snapshot_add_vma(struct mw_snapshot *snap,
				   const struct mw_vma *vma);
int mw_vma_add_run(struct mw_vma *vma, const struct memwalk_page_run *run);
/* Give back what the runs array holds beyond nr_runs (its last run is in). */
void mw_vma_trim(struct mw_vma *vma);
bool mw_run_joins(const struct mw_snapshot *snap,
		  const struct memwalk_page_run *a,
		  const struct memwalk_page_run *b);
/* The rules every snapshot obeys; false with a message naming the place. */
bool mw_snapshot_check(const struct mw_snapshot *snap, char *msg, size_t len);

static inline unsigned int mw_run_state(const struct memwalk_page_run *r)
{
	return r->flags & MEMWALK_RUN_STATE_MASK;
}

static inline unsigned int mw_run_level(const struct memwalk_page_run *r)
{
	return (r->flags & MEMWALK_RUN_LEVEL_MASK) >> MEMWALK_RUN_LEVEL_SHIFT;
}

/* In swap: behind a swap entry, or a shmem page where there is no entry. */
static inline bool mw_state_in_swap(unsigned int state)
{
	return state == MEMWALK_STATE_SWAP || state == MEMWALK_STATE_SHMEM_SWAP;
}

static inline unsigned int mw_run_swap_type(const struct memwalk_page_run *r)
{
	return (r->flags & MEMWALK_RUN_SWAP_TYPE_MASK) >> MEMWALK_RUN_SWAP_TYPE_SHIFT;
}

static inline uint64_t mw_run_end(const struct mw_snapshot *snap,
				  const struct memwalk_page_run *r)
{
	return r->start + (uint64_t)r->nr_pages * snap->page_size;
}

static inline bool mw_snap_has_folio(const struct mw_snapshot *snap)
{
	return snap->flags & MEMWALK_SNAP_FOLIO;
}

static inline bool mw_snap_has_pfn(const struct mw_snapshot *snap)
{
	return !(snap->flags & MEMWALK_SNAP_NO_PFN);
}

static inline bool mw_folio_test(const struct memwalk_page_run *r, unsigned int bit)
{
	return r->folio_flags & (1U << bit);
}

#endif /* MEMWALK_SNAPSHOT_H */

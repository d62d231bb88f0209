/* SPDX-License-Identifier: GPL-2.0 */
/*
 * memwalk-client: the in-memory model of one page-table snapshot, and the
 * modules that work on it.
 *
 * A snapshot comes from the kernel (collect.c) or from a saved JSON file
 * (snapjson.c); either way it ends up in one struct mw_snapshot, checked by
 * mw_snapshot_check(), and every view (the table, --pages, JSON, diff) is
 * rendered from that model only.  What a page counts for (Rss, Dirty, ...)
 * is decided in one place, summary.c.
 */
#ifndef MEMWALK_SNAPSHOT_H
#define MEMWALK_SNAPSHOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <linux/memwalk.h>

#define MW_SCHEMA_VERSION	1

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
/* Append a copy of @vma (its name copied, no runs); NULL when out of memory. */
struct mw_vma *mw_snapshot_add_vma(struct mw_snapshot *snap,
				   const struct mw_vma *vma);
int mw_vma_add_run(struct mw_vma *vma, const struct memwalk_page_run *run);
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

/* names.c: names of flag bits and enumerations, as text and JSON use them */
struct mw_bit_names {
	const char *const *names;	/* by bit; NULL: unnamed ("bitN") */
	unsigned int nbits;
};

extern const struct mw_bit_names mw_vma_flag_names;
extern const struct mw_bit_names mw_run_flag_names;	/* bits 5-19 only */
extern const struct mw_bit_names mw_run_bit_letters;	/* W U D A SD WP NX G */
extern const struct mw_bit_names mw_run_type_names;	/* zero anon ... */
extern const struct mw_bit_names mw_folio_flag_names;
extern const struct mw_bit_names mw_snap_flag_names;

/* Name of @bit in @t, or "bitN" in @tmp. */
const char *mw_bit_name(const struct mw_bit_names *t, unsigned int bit,
			char tmp[16]);
/* Bits of @value named in @t (others ignored), joined by @sep; "-" if none. */
const char *mw_bits_text(const struct mw_bit_names *t, uint64_t value,
			 const char *sep, char *buf, size_t len);
/* Bits of @value that @t covers. */
uint64_t mw_bits_mask(const struct mw_bit_names *t);
/* Parse a name back into a bit number (including "bitN"); -1 if unknown. */
int mw_bit_lookup(const struct mw_bit_names *t, const char *name);

const char *mw_state_name(unsigned int state, char tmp[16]);
const char *mw_level_name(unsigned int level, char tmp[16]);
const char *mw_name_kind_name(unsigned int kind, char tmp[16]);
int mw_name_kind_lookup(const char *name);	/* -1 if unknown */
/* "rw-p", like /proc/PID/maps */
void mw_vma_mode(const struct mw_vma *vma, char mode[5]);
/* The Mapping column: the name, or "[ anon ]" */
const char *mw_vma_label(const struct mw_vma *vma);
/* "2026-11-23T10:11:12Z" */
void mw_format_time(uint64_t time_ns, char *buf, size_t len);

/* summary.c: the per-VMA counts, with the rules of /proc/PID/smaps */
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

/* Dirty as smaps counts it: a dirty present entry, or a dirty folio. */
bool mw_run_dirty(const struct memwalk_page_run *r);
void mw_summarize_vma(const struct mw_snapshot *snap, const struct mw_vma *vma,
		      struct mw_summary *sum);
/* The totals: the sum of the rows, each field on its own. */
void mw_summarize_all(const struct mw_snapshot *snap, struct mw_summary *total);

/* The fields of struct mw_summary, in output order, for JSON and columns. */
struct mw_summary_field {
	const char *key;		/* JSON key, without the "_kb" */
	size_t offset;
};
extern const struct mw_summary_field mw_summary_fields[];
extern const size_t mw_nr_summary_fields;

static inline uint64_t mw_summary_get(const struct mw_summary *sum,
				      const struct mw_summary_field *f)
{
	return *(const uint64_t *)((const char *)sum + f->offset);
}

/* view.c: the text views */
#define MW_MAX_COLUMNS	32

struct mw_view {
	bool json;		/* -J: the whole snapshot as JSON */
	bool pages;		/* --pages: one line per run */
	bool noheadings;	/* -n: data lines only */
	const char *columns;	/* -o, or NULL for the default */
	int cols[MW_MAX_COLUMNS];
	size_t nr_cols;
};

/* The options of the views, shared by the PID command and show. */
enum {
	MW_OPT_PAGES = 0x100,
	MW_OPT_NO_FOLIO,
	MW_OPT_ENTRY_ONLY,
	MW_OPT_SAVE,
};

#define MW_VIEW_SHORTOPTS	"Jo:n"
#define MW_VIEW_LONGOPTS						\
	{ "pages", no_argument, NULL, MW_OPT_PAGES },			\
	{ "json", no_argument, NULL, 'J' },				\
	{ "output", required_argument, NULL, 'o' },			\
	{ "noheadings", no_argument, NULL, 'n' }

/* Take getopt's @c if it is a view option; false if it is not. */
bool mw_view_option(struct mw_view *view, int c, const char *arg);
void mw_view_help_options(FILE *out);
/* Resolve view->columns (for the table or --pages); prints the error. */
bool mw_view_setup(struct mw_view *view, const char *cmd);
void mw_view_render(const struct mw_snapshot *snap, const struct mw_view *view);
/* The --pages lines of one run, with its own heading: for translate. */
void mw_view_one_run(const struct mw_snapshot *snap,
		     const struct memwalk_page_run *run);
/* A help text listing the columns, for --help. */
void mw_view_help_columns(FILE *out);

/* snapjson.c: the JSON form, written through the print layer and read back */
void mw_snapshot_print_json(const struct mw_snapshot *snap);
/* Read FILE ("-": stdin) into a checked model; NULL after printing why. */
struct mw_snapshot *mw_snapshot_load(const char *path);

/* collect.c: take a snapshot of a live process */
struct mw_collect_opts {
	int32_t pid;
	uint64_t start, end;	/* end 0: the whole address space */
	bool no_folio;
	bool entry_only;	/* MEMWALK_SNAP_ENTRY_ONLY (implies no_folio) */
};

int mw_collect(const struct mw_collect_opts *opts, struct mw_snapshot **snapp);
/* One line for an ioctl on @pid that failed with @err; returns the exit status. */
int mw_pid_error(const char *what, int32_t pid, int err);
/* Parse a PID argument; prints the error. */
bool mw_parse_pid(const char *cmd, const char *arg, int32_t *pid);

#endif /* MEMWALK_SNAPSHOT_H */

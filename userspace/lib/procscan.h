/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libmemwalk: the memory of every process, as smaps_rollup counts it
 * (procscan.c), and its totals per user or per mapping (procgroup.c), for
 * "memwalk-client ps".
 */
#ifndef MEMWALK_PROCSCAN_H
#define MEMWALK_PROCSCAN_H

#include <regex.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "device.h"
#include "error.h"
#include "snapshot.h"
#include "summary.h"

/*
 * What ps shows of a process, a user or a mapping, in kB.  Pss, USS
 * (Private_Clean + Private_Dirty), the three Pss by kind and Locked need
 * the folio state (mapcount, refcount); the others the entries and pages.
 */
struct mw_usage {
	uint64_t rss, pss, uss, swap;
	uint64_t pss_anon, pss_file, pss_shmem;	/* smaps_rollup's Pss_Anon ... */
	uint64_t thp;		/* AnonHugePages + ShmemPmdMapped + FilePmdMapped */
	uint64_t hugetlb;	/* Shared_Hugetlb + Private_Hugetlb */
	uint64_t locked;
};

/* @st in kB as smaps prints it (each field rounded down on its own). */
void mw_usage_from_stats(const struct mw_smaps_stats *st, struct mw_usage *u);
void mw_usage_add(struct mw_usage *sum, const struct mw_usage *u);

/* One process walked. */
struct mw_proc {
	int32_t pid;
	uint32_t uid;		/* effective, as ps -u selects */
	char *command;		/* its command line, or "[comm]" when it has none */
	bool folio;		/* walked with folio state: every field exact */
	struct mw_usage usage;	/* as /proc/PID/smaps_rollup */
};

struct mw_procscan_opts {
	const int32_t *pids;	/* these processes; none: every one in /proc */
	size_t nr_pids;
	bool by_uid;		/* only processes of effective uid @uid */
	uint32_t uid;
	/* only command lines it matches, never ours (as pgrep) */
	const regex_t *match;
	/*
	 * Called with each process walked and its snapshot (freed after);
	 * a negative errno (with @err set) ends the scan with it.
	 */
	int (*each)(void *arg, const struct mw_proc *p, const struct mw_snapshot *snap,
		    struct mw_error *err);
	void *arg;
};

struct mw_procscan {
	struct mw_proc *procs;	/* by PID */
	size_t nr_procs, cap_procs;
	int32_t *missing;	/* PIDs asked for that do not exist */
	size_t nr_missing;
	/* skipped, never an error: */
	size_t nr_exited;	/* gone (or a zombie) before or while walked */
	size_t nr_denied;	/* the module refused (EACCES, EPERM: lab mode) */
	size_t nr_changing;	/* its address space changed at every attempt */
	size_t nr_kthreads;	/* kernel threads among the PIDs asked for */
	uint64_t max_lock_ns;	/* the longest mmap_lock hold of any process */
	uint64_t calls;		/* MEMWALK_IOC_SNAPSHOT calls in all */
};

/*
 * Walk the processes @opts selects (kernel threads skipped) through
 * @dev, each with folio state and without PFNs (they merge runs wider),
 * into @scan (zeroed first).  Processes that exit meanwhile or that the
 * module refuses are counted, not errors.  Returns 0, or a negative errno
 * with @err saying why; @scan is then to be freed all the same.
 */
int mw_procscan(struct mw_device *dev, const struct mw_procscan_opts *opts,
		struct mw_procscan *scan, struct mw_error *err);
void mw_procscan_free(struct mw_procscan *scan);

/* ---- procgroup.c: totals per user or per mapping ---- */

struct mw_group {
	uint32_t uid;		/* by user */
	char *name;		/* by mapping: the file or [heap], [ anon ], ... */
	size_t nr_procs;	/* processes in it (mapping it) */
	bool folio;		/* every one walked with folio state */
	struct mw_usage usage;
};

struct mw_groups {
	struct mw_group *groups;
	size_t nr_groups;
	/* by mapping: one entry per VMA until mw_group_mappings() */
	struct mw_map_entry *entries;
	size_t nr_entries, cap_entries;
};

/* The processes of @scan per effective user, by uid.  0 or -ENOMEM. */
int mw_group_users(const struct mw_procscan *scan, struct mw_groups *g,
		   struct mw_error *err);
/*
 * By mapping: an mw_procscan_opts.each that takes the VMAs of each
 * process (@arg a zeroed struct mw_groups), then mw_group_mappings()
 * sums them per file (device and inode) or per name (special and
 * anonymous mappings), each VMA rounded to kB as smaps prints it, so a
 * mapping's numbers are the sum of its smaps entries.
 */
int mw_group_take_vmas(void *arg, const struct mw_proc *p,
		       const struct mw_snapshot *snap, struct mw_error *err);
int mw_group_mappings(struct mw_groups *g, struct mw_error *err);
void mw_groups_free(struct mw_groups *g);

#endif /* MEMWALK_PROCSCAN_H */

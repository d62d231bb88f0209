/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libmemwalk: what smaps counts for a whole process, from the module's
 * per-VMA summaries (MEMWALK_IOC_VMA_SUMMARY), without its page runs.
 */
#ifndef MEMWALK_VMASUMMARY_H
#define MEMWALK_VMASUMMARY_H

#include <stdbool.h>
#include <stdint.h>

#include "device.h"
#include "error.h"
#include "summary.h"

struct mw_vma_totals {
	struct mw_smaps_stats st;	/* every VMA, unrounded, as smaps_rollup sums */
	uint32_t uid;			/* the process's effective uid */
	char comm[MEMWALK_COMM_LEN + 1];	/* its command name */
	uint64_t calls;			/* MEMWALK_IOC_VMA_SUMMARY calls */
	uint64_t max_lock_ns;		/* the longest mmap_lock hold */
};

/* Whether the module behind @dev has MEMWALK_IOC_VMA_SUMMARY. */
bool mw_vma_summary_supported(const struct mw_device *dev);

/*
 * The whole address space of @pid, summed into @t (cleared first).
 * Returns 0, or a negative errno with @err saying why (ESRCH: no such
 * process or no memory, EACCES: refused).
 */
int mw_vma_totals(struct mw_device *dev, int32_t pid, struct mw_vma_totals *t,
		  struct mw_error *err);

#endif /* MEMWALK_VMASUMMARY_H */

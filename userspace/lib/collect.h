/* SPDX-License-Identifier: GPL-2.0 */
/* libmemwalk: take a snapshot of a live process (collect.c). */
#ifndef MEMWALK_COLLECT_H
#define MEMWALK_COLLECT_H

#include <stdbool.h>
#include <stdint.h>

#include "device.h"
#include "error.h"
#include "snapshot.h"

struct mw_collect_opts {
	int32_t pid;
	uint64_t start, end;	/* end 0: the whole address space */
	bool no_folio;
	bool entry_only;	/* MEMWALK_SNAP_ENTRY_ONLY (implies no_folio) */
	bool no_pfn;		/* MEMWALK_SNAP_NO_PFN: runs merge wider */
	/*
	 * MEMWALK_SNAP_NO_ACCESSED where the module takes it: runs merge
	 * across the accessed bit, which is then never set (the snapshot's
	 * flags say whether it was taken).
	 */
	bool no_accessed;
	/*
	 * The VMAs and runs alone (ps): no comm, host, kernel or generator
	 * in the header, which cost a few reads a snapshot.
	 */
	bool bare;
};

/*
 * A checked snapshot of @opts->pid through @dev, whose buffers it keeps
 * for the next call.  Returns 0 with *@snapp set, or a negative errno
 * with @err saying why.
 */
int mw_collect(struct mw_device *dev, const struct mw_collect_opts *opts,
	       struct mw_snapshot **snapp, struct mw_error *err);

#endif /* MEMWALK_COLLECT_H */

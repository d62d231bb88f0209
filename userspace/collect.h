/* SPDX-License-Identifier: GPL-2.0 */
/* memwalk-client: take a snapshot of a live process (collect.c). */
#ifndef MEMWALK_COLLECT_H
#define MEMWALK_COLLECT_H

#include <stdbool.h>
#include <stdint.h>

#include "snapshot.h"

struct mw_collect_opts {
	int32_t pid;
	uint64_t start, end;	/* end 0: the whole address space */
	bool no_folio;
	bool entry_only;	/* MEMWALK_SNAP_ENTRY_ONLY (implies no_folio) */
};

int mw_collect(const struct mw_collect_opts *opts, struct mw_snapshot **snapp);
/* One line for an ioctl on @pid that failed with @err; returns the exit status. */
int mw_pid_error(const char *what, int32_t pid, int err);

#endif /* MEMWALK_COLLECT_H */

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * How far the kernel's own page counters (/proc/vmstat) moved while a
 * census ran: a thread reads them every millisecond and keeps each one's
 * least and greatest value.  A census of a moving system may count a class
 * anywhere in that range, not only between two censuses around it (under
 * KASAN the slab quarantine drains and fills again within one census).
 */
#ifndef MEMWALK_PHYS_VMSTAT_H
#define MEMWALK_PHYS_VMSTAT_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include <linux/memwalk.h>

struct mw_vmstat_range {
	pthread_t thread;
	volatile bool stop;
	int err;			/* the first read's errno, or 0 */
	uint64_t reads;
	bool seen[MEMWALK_PHYS_NR_CLASSES];	/* the class has a counter */
	int64_t lo[MEMWALK_PHYS_NR_CLASSES], hi[MEMWALK_PHYS_NR_CLASSES];
};

/* Start watching; 0 or an errno. */
int mw_vmstat_range_start(struct mw_vmstat_range *r);
/* Stop; 0 or the errno of a failed read. */
int mw_vmstat_range_stop(struct mw_vmstat_range *r);
/*
 * Pages by which class @k moved: its counter's range, or for a class with
 * no counter of its own (other, reserved, ...) the sum of every range, as
 * what the counted classes lost or gained went somewhere.
 */
uint64_t mw_vmstat_range_moved(const struct mw_vmstat_range *r, int k);

#endif

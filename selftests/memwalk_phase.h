/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Phases of a profiled benchmark (scripts/profile-*.sh): the TCG plugin
 * (scripts/profile/tcg-plugin.c, mark=MW_PHASE_MARK) begins a new phase
 * each time the guest runs the one instruction at MW_PHASE_MARK.
 */
#ifndef MEMWALK_PHASE_H
#define MEMWALK_PHASE_H

#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#define MW_PHASE_MARK	0x7e5500000000UL

typedef void (*mw_phase_fn)(void);

/* The function that marks a phase: a "ret" at MW_PHASE_MARK; exits if it cannot. */
static inline mw_phase_fn mw_phase_marker(void)
{
	char *page = mmap((void *)MW_PHASE_MARK, sysconf(_SC_PAGESIZE),
			  PROT_READ | PROT_WRITE | PROT_EXEC,
			  MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);

	if (page == MAP_FAILED)
		exit(1);
	page[0] = (char)0xc3;	/* ret */
	return (mw_phase_fn)page;
}

#endif

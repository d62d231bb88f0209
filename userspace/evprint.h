/* SPDX-License-Identifier: GPL-2.0 */
/*
 * memwalk-client events: one event as a text line or a JSON object, and
 * the closing summary (evprint.c), for the events command and its tests.
 */
#ifndef MEMWALK_EVPRINT_H
#define MEMWALK_EVPRINT_H

#include <stdbool.h>
#include <stdint.h>

#include "evstate.h"

struct mw_print_opts {
	bool json;
	uint32_t page_size;	/* bytes per page, for the text form */
	bool gfp_atomic_bit;	/* kernel before 6.3: bit 9 is __GFP_ATOMIC */
};

void mw_ev_print_header(const struct mw_print_opts *o);
/* One event: a text line (and the story's lines), or one JSON object line. */
void mw_ev_print(const struct mw_event *ev, const struct mw_ev_extra *x,
		 const struct mw_print_opts *o);

struct mw_ev_totals {
	uint64_t events;	/* printed */
	uint64_t filtered;	/* received, not printed */
	uint64_t malformed;
	uint64_t lost_reported;
	uint64_t missing;	/* by sequence numbers */
	uint64_t overflows;
};

/* The closing summary: a line on stderr; with JSON also an object on stdout. */
void mw_ev_print_summary(const struct mw_ev_totals *t,
			 const struct mw_print_opts *o);

#endif /* MEMWALK_EVPRINT_H */

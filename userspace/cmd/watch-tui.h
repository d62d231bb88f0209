/* SPDX-License-Identifier: GPL-2.0 */
/*
 * memwalk-client watch: what cmd/watch.c (options, batch frames, the last
 * line) and cmd/watch-tui.c (the full-screen view) share.
 */
#ifndef MEMWALK_WATCH_TUI_H
#define MEMWALK_WATCH_TUI_H

#include <signal.h>
#include <stdint.h>
#include <stdio.h>

#include "error.h"
#include "watch.h"

/* Why the full-screen view ended. */
enum watch_end {
	WATCH_END_QUIT,		/* q */
	WATCH_END_SIGNAL,	/* SIGINT or SIGTERM: *signalled says which */
	WATCH_END_EXITED,	/* the target exited: err says so */
	WATCH_END_ERROR,	/* err says why */
};

/*
 * The full-screen view of @w, after its first refresh, until q, a signal
 * (*@signalled set; they are let in only while waiting, with @open as the
 * mask), the target's exit or an error.  The terminal is restored before
 * it returns; *@frames counts the refreshes shown.
 */
enum watch_end watch_tui(struct mw_watch *w, const sigset_t *open,
			 volatile sig_atomic_t *signalled, uint64_t *frames,
			 struct mw_error *err);

/* cmd/watch.c: one event as a line of text, names escaped, no newline. */
void watch_event_text(FILE *fp, const struct mw_watch_event *e);

#endif /* MEMWALK_WATCH_TUI_H */

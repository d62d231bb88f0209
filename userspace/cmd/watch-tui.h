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
#include "watch-map.h"

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

/* Lines of text for a pane, escaped already. */
struct watch_lines {
	char **line;
	size_t nr;
};

void watch_lines_free(struct watch_lines *l);

/*
 * cmd/watch-detail.c: the detail of the page under @map's cursor, from
 * @w's last snapshot, into @l (emptied first); @bytes: its first bytes
 * too, through /proc/PID/mem, when the snapshot shows it present.
 */
void watch_detail(struct watch_lines *l, const struct mw_watch *w,
		  const struct mw_map *map, bool bytes);
/* @s escaped as print_escaped() does it, into @buf of @len bytes, cut if longer. */
void watch_escape(const char *s, char *buf, size_t len);

/* cmd/watch.c: one event as a line of text, names escaped, no newline. */
void watch_event_text(FILE *fp, const struct mw_watch_event *e);

#endif /* MEMWALK_WATCH_TUI_H */

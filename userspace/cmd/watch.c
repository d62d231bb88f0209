// SPDX-License-Identifier: GPL-2.0
/*
 * memwalk-client watch PID: a process's memory moving, refresh by refresh
 * (lib/watch.h): what changed since the previous snapshot, classified as
 * `diff` does, with the reclaim and OOM events that concern the target.
 * --batch prints text frames (as top -b) or, with -J, one JSON object per
 * frame (docs/json-schema.md); on a terminal without it, the full-screen
 * view (cmd/watch-tui.c).  Either ends with one last line saying why.
 *
 * MEMWALK_EVENTS_REPLAY=FILE takes the events from FILE instead of the
 * module (the host tests; the format is in lib/evsub.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "memwalk-client.h"
#include "names.h"
#include "print.h"
#include "snapjson.h"
#include "watch.h"
#include "watch-tui.h"

enum {
	OPT_BATCH = 0x200,
	OPT_FOLIO,
	OPT_ACCESSED,
	OPT_NO_EVENTS,
};

struct watch_cli {
	struct mw_watch_opts opts;
	bool batch, json;
	uint64_t frames;		/* 0: until stopped */
	const char *range;
};

static volatile sig_atomic_t got_signal;

static void on_signal(int sig)
{
	got_signal = sig;
}

static void usage(const struct mw_command *cmd)
{
	printf("Usage: %s %s %s\n\n"
	       "Watch the memory of process PID move: take a snapshot every interval,\n"
	       "compare it with the previous one as diff does, and show what changed\n"
	       "with the reclaim and OOM events that concern the process: full screen on\n"
	       "a terminal (? there lists the keys), text frames with --batch.\n\n"
	       "Options:\n"
	       "  -i, --interval SECONDS  time between refreshes (default 1)\n"
	       "  -r, --range START-END   only the addresses from START to END (hex)\n"
	       "      --batch             text frames on standard output, as top -b\n"
	       "  -n, --frames N          stop after N frames\n"
	       "  -J, --json              with --batch: one JSON object per frame\n"
	       "      --folio             folio state in every snapshot (PSS, LRU lists,\n"
	       "                          MGLRU generations): dearer for the target\n"
	       "      --accessed          the entries' accessed bits in every snapshot:\n"
	       "                          dearer where DAMON or MGLRU clear them\n"
	       "      --no-events         do not subscribe to reclaim and OOM events\n"
	       "  -h, --help              show this help and exit\n"
	       "\nSee %s(1).\n", MW_PROG, cmd->name, cmd->args, MW_PROG);
}

static bool parse_interval(const char *arg, uint64_t *ns)
{
	char *end;
	double s;

	errno = 0;
	s = strtod(arg, &end);
	if (errno || end == arg || *end || !isfinite(s) || s < 0.001 || s > 86400) {
		mw_err("watch: bad interval '%s': expected seconds from 0.001 to 86400", arg);
		return false;
	}
	*ns = (uint64_t)(s * 1e9);
	return true;
}

static bool parse_frames(const char *arg, uint64_t *n)
{
	char *end;

	errno = 0;
	*n = strtoull(arg, &end, 10);
	if (errno || end == arg || *end || arg[0] == '-' || !*n) {
		mw_err("watch: bad frame count '%s': expected a positive number", arg);
		return false;
	}
	return true;
}

/* Options and operands; -1 to go on, or the status to exit with. */
static int parse_options(const struct mw_command *cmd, int argc, char **argv,
			 struct watch_cli *c)
{
	static const struct option longopts[] = {
		{ "interval", required_argument, NULL, 'i' },
		{ "range", required_argument, NULL, 'r' },
		{ "batch", no_argument, NULL, OPT_BATCH },
		{ "frames", required_argument, NULL, 'n' },
		{ "json", no_argument, NULL, 'J' },
		{ "folio", no_argument, NULL, OPT_FOLIO },
		{ "accessed", no_argument, NULL, OPT_ACCESSED },
		{ "no-events", no_argument, NULL, OPT_NO_EVENTS },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int o;

	opterr = 0;
	optind = 0;
	while ((o = getopt_long(argc, argv, ":i:r:n:Jh", longopts, NULL)) != -1) {
		switch (o) {
		case 'i':
			if (!parse_interval(optarg, &c->opts.interval_ns))
				return MW_EXIT_FAILURE;
			break;
		case 'r':
			c->range = optarg;
			break;
		case OPT_BATCH:
			c->batch = true;
			break;
		case 'n':
			if (!parse_frames(optarg, &c->frames))
				return MW_EXIT_FAILURE;
			break;
		case 'J':
			c->json = true;
			break;
		case OPT_FOLIO:
			c->opts.folio = true;
			break;
		case OPT_ACCESSED:
			c->opts.accessed = true;
			break;
		case OPT_NO_EVENTS:
			c->opts.no_events = true;
			break;
		case 'h':
			usage(cmd);
			return MW_EXIT_OK;
		default:
			mw_bad_command_option(cmd, argv, o);
			return MW_EXIT_FAILURE;
		}
	}
	if (mw_check_args(cmd, argc, argv, 1) ||
	    !mw_parse_pid(cmd->name, argv[optind], &c->opts.pid) ||
	    (c->range && !mw_parse_range(c->range, &c->opts.start, &c->opts.end)))
		return MW_EXIT_FAILURE;
	if (!c->batch) {
		if (c->json || c->frames) {
			mw_err("watch: %s goes with --batch", c->json ? "-J" : "-n");
			return MW_EXIT_FAILURE;
		}
		if (!isatty(STDOUT_FILENO)) {
			mw_err("watch: standard output is not a terminal: use --batch for text frames");
			return MW_EXIT_FAILURE;
		}
		if (!isatty(STDIN_FILENO)) {
			mw_err("watch: standard input is not a terminal, the keys come from it: use --batch");
			return MW_EXIT_FAILURE;
		}
	}
	return -1;
}

/* ---- text frames -------------------------------------------------------------- */

static double ms(uint64_t ns)
{
	return ns / 1e6;
}

/* One event as a line to @fp: "kswapd0 ran 40.0 ms, 3100 pages reclaimed". */
void watch_event_text(FILE *fp, const struct mw_watch_event *e)
{
	switch (e->type) {
	case MEMWALK_EV_KSWAPD_RUN_END:
		fprintf(fp, "kswapd%u ran %.1f ms, %" PRIu64 " pages reclaimed", e->nid,
			ms(e->duration_ns), e->nr_reclaimed);
		break;
	case MEMWALK_EV_DIRECT_RECLAIM_END:
	case MEMWALK_EV_MEMCG_RECLAIM_END:
		fprintf(fp, "%s reclaim by ", e->type == MEMWALK_EV_MEMCG_RECLAIM_END ?
			"memcg" : "direct");
		print_escaped(fp, e->comm);
		fprintf(fp, " (pid %u)", e->pid);
		if (e->type == MEMWALK_EV_MEMCG_RECLAIM_END) {
			fprintf(fp, " in ");
			print_escaped(fp, e->memcg);
		}
		fprintf(fp, ": %.1f ms, %" PRIu64 " pages reclaimed", ms(e->duration_ns),
			e->nr_reclaimed);
		break;
	case MEMWALK_EV_OOM_KILL:
		fprintf(fp, "OOM killer killed ");
		print_escaped(fp, e->victim_comm);
		fprintf(fp, " (pid %u)", e->victim_pid);
		if (e->memcg[0]) {
			fprintf(fp, " in ");
			print_escaped(fp, e->memcg);
		}
		break;
	default:
		fprintf(fp, "event %u", e->type);
	}
}

static void frame_text(const struct mw_watch *w, const char *comm)
{
	const struct mw_watch_frame *f = &w->frame;
	const struct mw_summary *t = &f->totals;
	char when[32];
	size_t i, ch;
	bool any = false;

	mw_format_time(f->time_ns, when, sizeof(when));
	printf("frame %" PRIu64 " at %s: pid %d (", f->seq, when, w->opts.pid);
	print_escaped(stdout, comm);
	printf("), +%.3f s, walk %.1f ms, longest mmap_lock hold %.3f ms%s\n",
	       (f->mono_ns - w->start_mono_ns) / 1e9, ms(f->walk_ns),
	       ms(f->cost.max_lock_ns), f->kept ? "" : ", interval not kept");
	printf("RSS %" PRIu64 " kB", t->rss);
	if (f->pss_exact)
		printf(", PSS %" PRIu64 " kB", t->pss);
	printf(", Swap %" PRIu64 " kB, THP %" PRIu64 " kB", t->swap, t->thp);
	if (f->faults_known)
		printf(", faults %.1f minor/s %.1f major/s", f->minflt_rate, f->majflt_rate);
	printf("\n");
	/* The events came during the interval; the transitions show at its end. */
	for (i = 0; i < f->nr_events; i++) {
		const struct mw_watch_event *e = &f->events[i];
		int64_t rel = (int64_t)(e->time_ns - w->start_mono_ns);

		printf("  event %+.3f s: ", rel / 1e9);
		watch_event_text(stdout, e);
		printf("\n");
	}
	if (f->events_lost)
		printf("  events lost: %" PRIu64 "\n", f->events_lost);
	if (!f->seq)
		return;
	for (ch = 0; ch < MW_NR_CHANGES; ch++) {
		if (!f->counts[ch])
			continue;
		printf("%s%" PRIu64 " %s", any ? ", " : "transitions: ", f->counts[ch],
		       mw_change_name(ch));
		any = true;
	}
	printf("%s\n", any ? "" : "no transitions");
	mw_changes_text(&f->diff, "  ");
}

/* ---- JSON frames -------------------------------------------------------------- */

static void json_counts(const char *key, const uint64_t *counts)
{
	size_t ch;

	open_json_object(PRINT_JSON, key);
	for (ch = 0; ch < MW_NR_CHANGES; ch++)
		print_uint(PRINT_JSON, mw_change_key(ch), "", counts[ch]);
	close_json_object(PRINT_JSON);
}

static void json_event(const struct mw_watch_event *e)
{
	const char *name = mw_event_name(e->type);

	open_json_object(PRINT_JSON, NULL);
	print_uint(PRINT_JSON, "time_ns", "", e->time_ns);
	print_string(PRINT_JSON, "type", "", name ? name : "unknown");
	switch (e->type) {
	case MEMWALK_EV_KSWAPD_RUN_END:
		print_uint(PRINT_JSON, "nid", "", e->nid);
		break;
	case MEMWALK_EV_OOM_KILL:
		print_uint(PRINT_JSON, "victim_pid", "", e->victim_pid);
		print_string(PRINT_JSON, "victim_comm", "", e->victim_comm);
		print_string(PRINT_JSON, "memcg", "", e->memcg);
		break;
	default:
		print_uint(PRINT_JSON, "pid", "", e->pid);
		print_string(PRINT_JSON, "comm", "", e->comm);
		print_string(PRINT_JSON, "memcg", "", e->memcg);
	}
	if (e->type != MEMWALK_EV_OOM_KILL) {
		print_uint(PRINT_JSON, "duration_ns", "", e->duration_ns);
		print_uint(PRINT_JSON, "nr_reclaimed", "", e->nr_reclaimed);
	}
	close_json_object(PRINT_JSON);
}

static void frame_json(const struct mw_watch *w)
{
	const struct mw_watch_frame *f = &w->frame;
	size_t i;

	print_begin(true);
	print_uint(PRINT_JSON, "schema_version", "", MW_SCHEMA_VERSION);
	print_uint(PRINT_JSON, "frame", "", f->seq);
	print_int(PRINT_JSON, "pid", "", w->opts.pid);
	print_uint(PRINT_JSON, "time_ns", "", f->time_ns);
	print_uint(PRINT_JSON, "monotonic_ns", "", f->mono_ns);
	print_uint(PRINT_JSON, "elapsed_ns", "", f->mono_ns - w->start_mono_ns);
	print_uint(PRINT_JSON, "interval_ns", "", f->since_prev_ns);
	print_bool(PRINT_JSON, "interval_kept", "", f->kept);
	print_uint(PRINT_JSON, "walk_ns", "", f->walk_ns);
	open_json_object(PRINT_JSON, "cost");
	print_uint(PRINT_JSON, "lock_drops", "", f->cost.lock_drops);
	print_uint(PRINT_JSON, "max_lock_ns", "", f->cost.max_lock_ns);
	print_uint(PRINT_JSON, "total_lock_ns", "", f->cost.total_lock_ns);
	print_uint(PRINT_JSON, "calls", "", f->cost.calls);
	close_json_object(PRINT_JSON);
	open_json_object(PRINT_JSON, "totals");
	print_uint(PRINT_JSON, "rss_kb", "", f->totals.rss);
	if (f->pss_exact)
		print_uint(PRINT_JSON, "pss_kb", "", f->totals.pss);
	print_uint(PRINT_JSON, "swap_kb", "", f->totals.swap);
	print_uint(PRINT_JSON, "thp_kb", "", f->totals.thp);
	close_json_object(PRINT_JSON);
	if (f->faults_known) {
		open_json_object(PRINT_JSON, "faults");
		print_uint(PRINT_JSON, "minor", "", f->minflt);
		print_uint(PRINT_JSON, "major", "", f->majflt);
		close_json_object(PRINT_JSON);
	}
	json_counts("transitions", f->counts);
	json_counts("since_start", w->totals);
	mw_changes_json(&f->diff);
	print_bool(PRINT_JSON, "accessed_read", "",
		   w->snap && !(w->snap->flags & MEMWALK_SNAP_NO_ACCESSED));
	print_bool(PRINT_JSON, "events_on", "", w->events_on);
	open_json_array(PRINT_JSON, "events");
	for (i = 0; i < f->nr_events; i++)
		json_event(&f->events[i]);
	close_json_array(PRINT_JSON);
	print_uint(PRINT_JSON, "events_lost", "", f->events_lost);
	print_end();
}

/* The last line: why the watch ended, after how many frames. */
static void final_line(const struct watch_cli *c, const struct mw_watch *w,
		       uint64_t frames, const char *reason, const char *text)
{
	size_t ch;

	if (c->json) {
		print_begin(true);
		print_uint(PRINT_JSON, "schema_version", "", MW_SCHEMA_VERSION);
		print_string(PRINT_JSON, "end", "", reason);
		print_int(PRINT_JSON, "pid", "", w->opts.pid);
		print_uint(PRINT_JSON, "frames", "", frames);
		json_counts("since_start", w->totals);
		print_end();
	} else {
		printf("end: %s after %" PRIu64 " frame%s; since start:", text, frames,
		       frames == 1 ? "" : "s");
		for (ch = 0; ch < MW_NR_CHANGES; ch++)
			if (w->totals[ch])
				printf(" %" PRIu64 " %s;", w->totals[ch], mw_change_name(ch));
		printf("\n");
	}
	fflush(stdout);
}

/* ---- the loop -------------------------------------------------------------------- */

/*
 * Until the next refresh is due: events read as they come, signals let in
 * only while waiting, and at least once between two refreshes, also when
 * the next is already due (a watch that cannot keep its interval must
 * still stop at SIGINT).  0, or the exit status of a failure (said).
 */
static int wait_due(struct mw_watch *w, const sigset_t *open)
{
	struct pollfd fds[MW_NR_GROUPS + 1];
	struct mw_error err;

	while (!got_signal) {
		uint64_t now = mw_now_ns(), due = mw_watch_next_ns(w);
		unsigned int n = mw_watch_pollfds(w, fds);
		struct timespec tmo = { 0, 0 };

		if (due > now) {
			tmo.tv_sec = (due - now) / 1000000000ULL;
			tmo.tv_nsec = (due - now) % 1000000000ULL;
		}
		if (ppoll(fds, n, &tmo, open) < 0 && errno != EINTR) {
			mw_err("watch: poll failed [%s]", mw_errno_text(errno));
			return MW_EXIT_FAILURE;
		}
		if (n && mw_watch_events(w, &err))
			return mw_report(&err);
		if (mw_now_ns() >= due)
			return 0;
	}
	return 0;
}

static int watch_loop(const struct watch_cli *c, struct mw_watch *w,
		      const sigset_t *open)
{
	char comm[64] = "?", path[64];
	struct mw_error err;
	uint64_t frames = 0;
	FILE *fp;
	int ret;

	snprintf(path, sizeof(path), "/proc/%d/comm", c->opts.pid);
	fp = fopen(path, "re");
	if (fp) {
		if (fgets(comm, sizeof(comm), fp))
			comm[strcspn(comm, "\n")] = '\0';
		fclose(fp);
	}
	for (;;) {
		ret = wait_due(w, open);
		if (ret)
			return ret;
		if (got_signal) {
			final_line(c, w, frames, "signal", got_signal == SIGINT ?
				   "interrupted (SIGINT)" : "terminated (SIGTERM)");
			return MW_EXIT_OK;
		}
		ret = mw_watch_refresh(w, &err);
		if (ret == -ESRCH && frames) {
			final_line(c, w, frames, "exited", err.msg);
			return MW_EXIT_OK;
		}
		if (ret)
			return mw_report(&err);
		if (c->json)
			frame_json(w);
		else
			frame_text(w, comm);
		fflush(stdout);
		if (c->frames && ++frames >= c->frames) {
			final_line(c, w, frames, "frames", "frames done");
			return MW_EXIT_OK;
		}
		if (!c->frames)
			frames++;
	}
}

/* The full-screen view, after a first refresh that says what is wrong, if anything. */
static int tui_loop(const struct watch_cli *c, struct mw_watch *w, const sigset_t *open)
{
	struct mw_error err;
	uint64_t frames = 0;

	if (mw_watch_refresh(w, &err))
		return mw_report(&err);
	switch (watch_tui(w, open, &got_signal, &frames, &err)) {
	case WATCH_END_QUIT:
		final_line(c, w, frames, "quit", "quit (q)");
		return MW_EXIT_OK;
	case WATCH_END_SIGNAL:
		final_line(c, w, frames, "signal", got_signal == SIGINT ?
			   "interrupted (SIGINT)" : "terminated (SIGTERM)");
		return MW_EXIT_OK;
	case WATCH_END_EXITED:
		final_line(c, w, frames, "exited", err.msg);
		return MW_EXIT_OK;
	default:
		return mw_report(&err);
	}
}

static int watch_run(const struct mw_command *cmd, int argc, char **argv)
{
	struct watch_cli c = { .opts = { .interval_ns = 1000000000ULL, .replay_fd = -1 } };
	const char *replay = getenv("MEMWALK_EVENTS_REPLAY");
	struct sigaction sa = { .sa_handler = on_signal };
	sigset_t block, waiting;
	struct mw_watch w;
	struct mw_error err;
	int ret;

	ret = parse_options(cmd, argc, argv, &c);
	if (ret >= 0)
		return ret;
	if (replay && *replay) {
		c.opts.replay_fd = open(replay, O_RDONLY | O_CLOEXEC);
		if (c.opts.replay_fd < 0) {
			mw_err("watch: cannot open %s [%s]", replay, mw_errno_text(errno));
			return MW_EXIT_FAILURE;
		}
	}
	/* Blocked but while waiting: a refresh is never cut short. */
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigprocmask(SIG_BLOCK, &block, &waiting);
	sigdelset(&waiting, SIGINT);
	sigdelset(&waiting, SIGTERM);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	print_set_output(stdout);
	ret = mw_watch_open(&w, &c.opts, &err);
	if (ret)
		ret = mw_report(&err);
	else if (c.batch)
		ret = watch_loop(&c, &w, &waiting);
	else
		ret = tui_loop(&c, &w, &waiting);
	mw_watch_close(&w);
	if (c.opts.replay_fd >= 0)
		close(c.opts.replay_fd);
	return ret;
}

MW_COMMAND(watch,
	.name = "watch",
	.args = "PID [-i SECONDS] [-r START-END] [--batch [-n FRAMES] [-J]]",
	.help = "watch the memory of process PID move, with the reclaim that moves it",
	.run = watch_run);

// SPDX-License-Identifier: GPL-2.0
/*
 * memwalk-client watch PID on a terminal: the full-screen view, drawn
 * with ncurses from the watch model (lib/watch.h) and the map model
 * (watch-map.h), the way irqtop and top draw theirs: one screen redrawn
 * from the models, keys and refreshes in one poll() loop, the terminal
 * restored on every way out.
 *
 * Screen, top down: the header (pid, command line, totals, fault rates,
 * the refresh achieved and what the last snapshot cost the target), the
 * legend, the map, the lower pane (the events interleaved with the
 * transition counts, or the detail of the page under the cursor), the
 * status line (the cursor, a prompt or the last message), the keys.
 *
 * Every string that comes from the target or the kernel (names, the
 * command line, event names) is escaped before it reaches the terminal.
 * Colour is a help, never the only sign: each state has its character,
 * NO_COLOR (no-color.org) turns colour off.
 */
#include <curses.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "memwalk-client.h"
#include "names.h"
#include "snapshot.h"
#include "watch-map.h"
#include "watch-tui.h"

#define MIN_COLS	80
#define MIN_LINES	24
#define ADDR_COLS	13		/* "7fffffffe000 " before a row */
#define HEAD_LINES	5		/* header, totals, refresh, two of legend */
#define LOG_LINES	256		/* the events pane keeps these */

enum pane { PANE_MAP, PANE_LOWER };
enum lower { LOWER_EVENTS, LOWER_DETAIL };
enum prompt { PROMPT_NONE, PROMPT_GOTO, PROMPT_FIND, PROMPT_INTERVAL };

struct tui {
	struct mw_watch *w;
	struct mw_map map;
	uint64_t frames;
	bool color, paused, help, quit;
	enum pane focus;
	enum lower lower;
	enum prompt prompt;
	char input[64];
	size_t input_len;
	char message[160];		/* the status line's, until a key */
	char cmdline[512];		/* escaped */
	char *log[LOG_LINES];		/* a ring: the events pane */
	size_t log_next, log_n, log_scroll;	/* scroll: lines up from the end */
	struct watch_lines detail;
	size_t detail_scroll;
	size_t map_rows, lower_rows;	/* of the current layout */
	struct mw_error *err;
};

/* ---- text helpers -------------------------------------------------------------- */

/* The command line of @pid, arguments joined by spaces, escaped. */
static void read_cmdline(int32_t pid, char *buf, size_t len)
{
	char path[64], raw[512];
	ssize_t n, i;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/cmdline", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	n = fd >= 0 ? read(fd, raw, sizeof(raw) - 1) : -1;
	if (fd >= 0)
		close(fd);
	if (n <= 0) {
		snprintf(buf, len, "?");
		return;
	}
	while (n > 0 && !raw[n - 1])
		n--;
	for (i = 0; i < n; i++)
		if (!raw[i])
			raw[i] = ' ';
	raw[n] = '\0';
	watch_escape(raw, buf, len);
}

/* Text at @y, @x, cut at the screen's right edge. */
static void put(int y, int x, const char *s)
{
	int room = COLS - x;

	if (room > 0 && y < LINES)
		mvaddnstr(y, x, s, room);
}

static void __attribute__((format(printf, 3, 4)))
putf(int y, int x, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	put(y, x, buf);
}

static void __attribute__((format(printf, 2, 3)))
say(struct tui *t, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(t->message, sizeof(t->message), fmt, ap);
	va_end(ap);
}

static double ms(uint64_t ns)
{
	return ns / 1e6;
}

/* ---- the events pane -------------------------------------------------------------- */

static void log_add(struct tui *t, char *line)
{
	if (!line)
		return;
	free(t->log[t->log_next]);
	t->log[t->log_next] = line;
	t->log_next = (t->log_next + 1) % LOG_LINES;
	if (t->log_n < LOG_LINES)
		t->log_n++;
}

/* Line @i of the log, 0 the oldest kept. */
static const char *log_line(const struct tui *t, size_t i)
{
	return t->log[(t->log_next + LOG_LINES - t->log_n + i) % LOG_LINES];
}

/*
 * The refresh's events, then its transition counts: the events came
 * during the interval the transitions close.
 */
static void log_frame(struct tui *t)
{
	const struct mw_watch_frame *f = &t->w->frame;
	double at = (f->mono_ns - t->w->start_mono_ns) / 1e9;
	char *line;
	size_t len, i, ch;
	FILE *fp;

	for (i = 0; i < f->nr_events; i++) {
		fp = open_memstream(&line, &len);
		if (!fp)
			return;
		fprintf(fp, "%+9.3f s  ",
			(int64_t)(f->events[i].time_ns - t->w->start_mono_ns) / 1e9);
		watch_event_text(fp, &f->events[i]);
		fclose(fp);
		log_add(t, line);
	}
	if (f->events_lost && asprintf(&line, "%+9.3f s  %" PRIu64 " events lost", at,
				       f->events_lost) >= 0)
		log_add(t, line);
	fp = open_memstream(&line, &len);
	if (!fp)
		return;
	fprintf(fp, "%+9.3f s  frame %" PRIu64 ":", at, f->seq);
	len = 0;
	for (ch = 0; ch < MW_NR_CHANGES; ch++)
		if (f->counts[ch])
			fprintf(fp, "%s %" PRIu64 " %s", len++ ? "," : "", f->counts[ch],
				mw_change_name(ch));
	if (!len)
		fprintf(fp, " %s", f->seq ? "no transitions" : "first snapshot");
	fclose(fp);
	log_add(t, line);
}

/* The detail pane for the page under the cursor; @bytes: and its first bytes. */
static void show_detail(struct tui *t, bool bytes)
{
	watch_detail(&t->detail, t->w, &t->map, bytes);
	t->detail_scroll = 0;
	t->lower = LOWER_DETAIL;
}

/* ---- drawing -------------------------------------------------------------------- */

static const short state_colors[MW_NR_CELL_STATES][2] = {
	[MW_CELL_NONE]		= { COLOR_WHITE, -1 },
	[MW_CELL_ANON]		= { COLOR_GREEN, -1 },
	[MW_CELL_CACHE]		= { COLOR_BLUE, -1 },
	[MW_CELL_SHMEM]		= { COLOR_MAGENTA, -1 },
	[MW_CELL_ZERO]		= { COLOR_CYAN, -1 },
	[MW_CELL_THP]		= { COLOR_BLACK, COLOR_GREEN },
	[MW_CELL_HUGETLB]	= { COLOR_BLACK, COLOR_CYAN },
	[MW_CELL_SWAP]		= { COLOR_RED, -1 },
	[MW_CELL_SHMEM_SWAP]	= { COLOR_BLACK, COLOR_RED },
	[MW_CELL_OTHER]		= { COLOR_BLACK, COLOR_YELLOW },
	[MW_CELL_PROT_NONE]	= { COLOR_YELLOW, -1 },
};

static void setup_colors(struct tui *t)
{
	const char *no_color = getenv("NO_COLOR");
	int st;

	t->color = !(no_color && *no_color) && has_colors();
	if (!t->color)
		return;
	start_color();
	use_default_colors();
	for (st = 0; st < MW_NR_CELL_STATES; st++)
		init_pair(st + 1, state_colors[st][0], state_colors[st][1]);
}

static attr_t state_attr(const struct tui *t, unsigned int st)
{
	return t->color ? COLOR_PAIR(st + 1) : A_NORMAL;
}

static void draw_header(struct tui *t)
{
	const struct mw_watch_frame *f = &t->w->frame;
	const struct mw_summary *s = &f->totals;
	char right[64], pss[32] = "-", rate[32] = "-";
	int st;

	snprintf(right, sizeof(right), "%szoom 1:%" PRIu64, t->paused ? "PAUSED  " : "",
		 mw_map_cell_pages(&t->map));
	attron(A_BOLD);
	putf(0, 0, "pid %d  %s", t->w->opts.pid, t->cmdline);
	move(0, COLS - (int)strlen(right) - 2);
	clrtoeol();
	put(0, COLS - (int)strlen(right) - 1, right);
	attroff(A_BOLD);
	if (f->pss_exact)
		snprintf(pss, sizeof(pss), "%" PRIu64 " kB", s->pss);
	putf(1, 0, "RSS %" PRIu64 " kB  PSS %s  Swap %" PRIu64 " kB  THP %" PRIu64
	     " kB  faults/s %.1f minor %.1f major", s->rss, pss, s->swap, s->thp,
	     f->minflt_rate, f->majflt_rate);
	if (f->since_prev_ns)
		snprintf(rate, sizeof(rate), "%.2f/s", 1e9 / f->since_prev_ns);
	putf(2, 0, "refresh %s (every %.3g s)  longest mmap_lock hold %.3f ms", rate,
	     t->w->opts.interval_ns / 1e9, ms(f->cost.max_lock_ns));
	if (!f->kept) {
		attron(A_BOLD);
		addstr("  interval not kept");
		attroff(A_BOLD);
	}
	move(3, 0);
	addstr("legend: ");
	for (st = 0; st < MW_NR_CELL_STATES; st++) {
		const struct mw_cell_style *cs = &mw_cell_styles[st];

		if (st == MW_CELL_SWAP)
			move(4, 8);
		attron(state_attr(t, st));
		addch(cs->pure);
		attroff(state_attr(t, st));
		printw(" %s  ", cs->name);
	}
	addstr("A-Z: mixed  ");
	attron(A_BOLD | A_UNDERLINE);
	addstr("changed");
	attroff(A_BOLD | A_UNDERLINE);
}

static void draw_heading(const struct tui *t, int y, const struct mw_vma *vma)
{
	char name[512], mode[5];
	uint64_t kb = (vma->end - vma->start) / 1024;

	mw_vma_mode(vma, mode);
	watch_escape(mw_vma_label(vma), name, sizeof(name));
	attron(A_BOLD);
	putf(y, 0, "%012" PRIx64 "-%012" PRIx64 " %s %6" PRIu64 " kB %s", vma->start,
	     vma->end, mode, kb, name);
	attroff(A_BOLD);
	(void)t;
}

static void draw_map(struct tui *t, int y0)
{
	struct mw_cell cells[1024];
	struct mw_map_line l;
	size_t line, cur_line = 0, cur_vma;
	unsigned int i, cur_col = 0;
	bool cur = mw_map_cursor(&t->map, &cur_vma, &cur_line, &cur_col);
	int y;

	mw_map_scroll(&t->map, t->map_rows);
	for (y = 0, line = t->map.top; y < (int)t->map_rows && line < t->map.nr_lines;
	     y++, line++) {
		mw_map_line(&t->map, line, &l);
		if (l.heading) {
			draw_heading(t, y0 + y, &t->map.snap->vmas[l.vma]);
			continue;
		}
		putf(y0 + y, 0, "%012" PRIx64 " ", l.start);
		mw_map_cells(&t->map, &l, cells);
		for (i = 0; i < l.nr_cells; i++) {
			const struct mw_cell_style *cs = &mw_cell_styles[cells[i].state];
			attr_t a = state_attr(t, cells[i].state);

			if (cells[i].changed)
				a |= A_BOLD | A_UNDERLINE;
			if (cur && line == cur_line && i == cur_col)
				a |= A_REVERSE;
			attron(a);
			addch(cells[i].mixed ? cs->mixed : cs->pure);
			attroff(a);
		}
	}
}

static void draw_lower(struct tui *t, int y0)
{
	size_t total = t->lower == LOWER_DETAIL ? t->detail.nr : t->log_n;
	size_t i, first;
	int y;

	attron(t->focus == PANE_LOWER ? A_REVERSE : A_BOLD);
	move(y0, 0);
	clrtoeol();
	putf(y0, 0, "%s%s", t->lower == LOWER_DETAIL ?
	     "-- detail (Enter: close, x: bytes) " : "-- events and transitions ",
	     t->focus == PANE_LOWER ? "[Tab: back to the map] --" : "--");
	attroff(A_REVERSE | A_BOLD);
	if (t->lower == LOWER_DETAIL) {
		if (t->detail_scroll + t->lower_rows > total)
			t->detail_scroll = total > t->lower_rows ? total - t->lower_rows : 0;
		first = t->detail_scroll;
	} else {
		/* newest last; log_scroll lines up from the end */
		if (t->log_scroll + t->lower_rows > total)
			t->log_scroll = total > t->lower_rows ? total - t->lower_rows : 0;
		first = total > t->lower_rows + t->log_scroll ?
			total - t->lower_rows - t->log_scroll : 0;
	}
	for (y = 1, i = first; y <= (int)t->lower_rows && i < total; y++, i++)
		put(y0 + y, 0, t->lower == LOWER_DETAIL ? t->detail.line[i] : log_line(t, i));
}

static void draw_status(struct tui *t, int y)
{
	static const char *const prompts[] = {
		[PROMPT_GOTO] = "go to address (hex): ",
		[PROMPT_FIND] = "find VMA named: ",
		[PROMPT_INTERVAL] = "interval in seconds: ",
	};
	const struct memwalk_page_run *r;
	char name[256];
	unsigned int col;
	size_t v, line;

	if (t->prompt != PROMPT_NONE) {
		putf(y, 0, "%s%.*s", prompts[t->prompt], (int)t->input_len, t->input);
		return;
	}
	if (t->message[0]) {
		put(y, 0, t->message);
		return;
	}
	if (!mw_map_cursor(&t->map, &v, &line, &col))
		return;
	r = mw_map_run_at(&t->map, v, t->map.cursor);
	watch_escape(mw_vma_label(&t->map.snap->vmas[v]), name, sizeof(name));
	putf(y, 0, "cursor 0x%" PRIx64 " %s in %s", t->map.cursor,
	     mw_cell_styles[mw_page_state(&t->map.snap->vmas[v], r)].name, name);
}

static const char *const help_text[] = {
	"memwalk-client watch: keys",
	"",
	"  arrows         move the cursor by a cell or a row (map), scroll (lower pane)",
	"  PgUp PgDn      a screenful up or down",
	"  Home End       the first or the last page",
	"  g              go to an address (hex)",
	"  /              find the next VMA whose name holds a text",
	"  + -            zoom in or out: 1, 2, 4, ... pages a cell",
	"  Tab            move between the map and the lower pane",
	"  Enter          the detail of the page under the cursor (again: close)",
	"  x              the page's first bytes, through /proc/PID/mem",
	"  space          pause or resume the refreshes",
	"  i              change the interval",
	"  ?              this help (any key closes it)",
	"  q              quit",
	"",
	"Cells: lower case, every page of the cell in that state; upper case,",
	"the state of most of its pages; bold and underlined, changed at the last",
	"refresh.  See memwalk-client(1).",
};

static void draw(struct tui *t)
{
	size_t i;

	erase();
	if (COLS < MIN_COLS || LINES < MIN_LINES) {
		putf(0, 0, "memwalk-client watch: the terminal is too small: %dx%d,", COLS, LINES);
		putf(1, 0, "at least %dx%d needed (q quits)", MIN_COLS, MIN_LINES);
		refresh();
		return;
	}
	if (t->help) {
		for (i = 0; i < sizeof(help_text) / sizeof(help_text[0]); i++)
			put(i, 0, help_text[i]);
		refresh();
		return;
	}
	t->lower_rows = t->lower == LOWER_DETAIL ? (LINES - HEAD_LINES - 3) / 2 : 6;
	t->map_rows = LINES - HEAD_LINES - 3 - t->lower_rows;
	draw_header(t);
	draw_map(t, HEAD_LINES);
	draw_lower(t, HEAD_LINES + t->map_rows);
	draw_status(t, LINES - 2);
	attron(A_REVERSE);
	/* i only where it fits: ? lists every key */
	put(LINES - 1, 0, COLS >= 88 ?
	    "q quit ? help g goto / find +- zoom Tab pane Enter detail x bytes space pause i interval" :
	    "q quit ? help g goto / find +- zoom Tab pane Enter detail x bytes space pause");
	attroff(A_REVERSE);
	refresh();
}

/* Cells a row holds at the screen's width: a multiple of 16 where it fits. */
static void fit_width(struct tui *t)
{
	int room = COLS - ADDR_COLS;

	if (room >= 16)
		room -= room % 16;
	if (room < 1)
		room = 1;
	if (room > 1024)
		room = 1024;
	mw_map_set_width(&t->map, room);
}

/* ---- keys -------------------------------------------------------------------- */

static void prompt_done(struct tui *t)
{
	char *end;
	double s;
	uint64_t addr;

	t->input[t->input_len] = '\0';
	switch (t->prompt) {
	case PROMPT_GOTO:
		errno = 0;
		addr = strtoull(t->input, &end, 16);
		if (errno || end == t->input || *end)
			say(t, "not a hexadecimal address: %s", t->input);
		else if (!mw_map_goto(&t->map, addr))
			say(t, "no VMA at or after 0x%" PRIx64, addr);
		break;
	case PROMPT_FIND:
		if (!mw_map_find(&t->map, t->input))
			say(t, "no VMA's name holds \"%s\"", t->input);
		break;
	case PROMPT_INTERVAL:
		errno = 0;
		s = strtod(t->input, &end);
		if (errno || end == t->input || *end || !isfinite(s) || s < 0.001 || s > 86400) {
			say(t, "bad interval: expected seconds from 0.001 to 86400");
			break;
		}
		t->w->opts.interval_ns = (uint64_t)(s * 1e9);
		t->w->next_ns = t->w->frame.mono_ns + t->w->opts.interval_ns;
		say(t, "a refresh every %.3g s", s);
		break;
	default:
		break;
	}
	t->prompt = PROMPT_NONE;
}

static void prompt_key(struct tui *t, int c)
{
	if (c == '\n' || c == '\r' || c == KEY_ENTER) {
		prompt_done(t);
	} else if (c == 27) {
		t->prompt = PROMPT_NONE;
	} else if (c == KEY_BACKSPACE || c == 127 || c == 8) {
		if (t->input_len)
			t->input_len--;
	} else if (c >= 0x20 && c < 0x7f && t->input_len < sizeof(t->input) - 1) {
		t->input[t->input_len++] = c;
	}
}

static void start_prompt(struct tui *t, enum prompt p)
{
	t->prompt = p;
	t->input_len = 0;
}

/* Up (negative) or down in the lower pane. */
static void scroll_lower(struct tui *t, long n)
{
	if (t->lower == LOWER_DETAIL) {
		if (n < 0 && (size_t)-n > t->detail_scroll)
			t->detail_scroll = 0;
		else
			t->detail_scroll += n;
	} else {
		if (n > 0 && (size_t)n > t->log_scroll)
			t->log_scroll = 0;
		else
			t->log_scroll -= n;
	}
}

static void move_key(struct tui *t, int c)
{
	long page = t->map_rows > 1 ? (long)t->map_rows - 1 : 1;

	if (t->focus == PANE_LOWER) {
		switch (c) {
		case KEY_UP: scroll_lower(t, -1); break;
		case KEY_DOWN: scroll_lower(t, 1); break;
		case KEY_PPAGE: scroll_lower(t, -(long)t->lower_rows); break;
		case KEY_NPAGE: scroll_lower(t, t->lower_rows); break;
		}
		return;
	}
	switch (c) {
	case KEY_LEFT: mw_map_move_cells(&t->map, -1); break;
	case KEY_RIGHT: mw_map_move_cells(&t->map, 1); break;
	case KEY_UP: mw_map_move_rows(&t->map, -1); break;
	case KEY_DOWN: mw_map_move_rows(&t->map, 1); break;
	case KEY_PPAGE: mw_map_move_rows(&t->map, -page); break;
	case KEY_NPAGE: mw_map_move_rows(&t->map, page); break;
	case KEY_HOME: mw_map_home(&t->map); break;
	case KEY_END: mw_map_end(&t->map); break;
	}
}

static void key(struct tui *t, int c)
{
	if (c == KEY_RESIZE) {
		fit_width(t);
		return;
	}
	if (t->prompt != PROMPT_NONE) {
		prompt_key(t, c);
		return;
	}
	t->message[0] = '\0';
	if (t->help) {
		t->help = false;
		if (c != 'q')
			return;
	}
	switch (c) {
	case 'q':
	case 'Q':
		t->quit = true;
		break;
	case '?':
	case 'h':
		t->help = true;
		break;
	case ' ':
		t->paused = !t->paused;
		if (!t->paused)
			t->w->next_ns = mw_now_ns();
		break;
	case 'g':
		start_prompt(t, PROMPT_GOTO);
		break;
	case '/':
		start_prompt(t, PROMPT_FIND);
		break;
	case 'i':
		start_prompt(t, PROMPT_INTERVAL);
		break;
	case '+':
	case '=':
		if (!mw_map_zoom(&t->map, -1))
			say(t, "one page a cell: the closest zoom");
		break;
	case '-':
		if (!mw_map_zoom(&t->map, 1))
			say(t, "the farthest zoom");
		break;
	case '\t':
		t->focus = t->focus == PANE_MAP ? PANE_LOWER : PANE_MAP;
		break;
	case '\n':
	case '\r':
	case KEY_ENTER:
		if (t->lower == LOWER_DETAIL) {
			t->lower = LOWER_EVENTS;
			watch_lines_free(&t->detail);
		} else {
			show_detail(t, false);
		}
		break;
	case 'x':
		show_detail(t, true);
		break;
	case 27:
		t->lower = LOWER_EVENTS;
		break;
	default:
		move_key(t, c);
	}
}

/* ---- the loop -------------------------------------------------------------------- */

/* A new frame into the models; 0 or -ENOMEM (said). */
static int take_frame(struct tui *t)
{
	int ret = mw_map_set(&t->map, t->w->snap, &t->w->frame.diff);

	if (ret)
		return mw_error_set(t->err, ret, "watch: out of memory");
	log_frame(t);
	t->frames++;
	return 0;
}

static enum watch_end run(struct tui *t, const sigset_t *open,
			  volatile sig_atomic_t *signalled)
{
	struct pollfd fds[MW_NR_GROUPS + 2];
	int c, ret;

	for (;;) {
		unsigned int n = mw_watch_pollfds(t->w, fds);
		uint64_t now = mw_now_ns(), due = mw_watch_next_ns(t->w);
		struct timespec tmo = { 0, 0 };

		draw(t);
		if (due > now) {
			tmo.tv_sec = (due - now) / 1000000000ULL;
			tmo.tv_nsec = (due - now) % 1000000000ULL;
		}
		fds[n++] = (struct pollfd){ .fd = STDIN_FILENO, .events = POLLIN };
		if (ppoll(fds, n, t->paused ? NULL : &tmo, open) < 0 && errno != EINTR) {
			mw_error_set(t->err, -errno, "watch: poll failed [%s]",
				     mw_errno_text(errno));
			return WATCH_END_ERROR;
		}
		if (*signalled)
			return WATCH_END_SIGNAL;
		/* a hung-up terminal would make poll() return at once, forever */
		if (fds[n - 1].revents & (POLLHUP | POLLERR | POLLNVAL)) {
			mw_error_set(t->err, -EIO, "watch: the terminal went away");
			return WATCH_END_ERROR;
		}
		if (n > 1 && mw_watch_events(t->w, t->err))
			return WATCH_END_ERROR;
		/* also after EINTR: a SIGWINCH shows as KEY_RESIZE */
		while ((c = getch()) != ERR) {
			key(t, c);
			if (t->quit)
				return WATCH_END_QUIT;
		}
		if (t->paused || mw_now_ns() < mw_watch_next_ns(t->w))
			continue;
		ret = mw_watch_refresh(t->w, t->err);
		if (ret == -ESRCH)
			return WATCH_END_EXITED;
		if (ret || take_frame(t))
			return WATCH_END_ERROR;
	}
}

enum watch_end watch_tui(struct mw_watch *w, const sigset_t *open,
			 volatile sig_atomic_t *signalled, uint64_t *frames,
			 struct mw_error *err)
{
	struct tui t = { .w = w, .err = err };
	const char *term = getenv("TERM");
	enum watch_end end;
	SCREEN *scr;
	size_t i;

	mw_map_init(&t.map, 64);
	read_cmdline(w->opts.pid, t.cmdline, sizeof(t.cmdline));
	if (take_frame(&t)) {
		mw_map_free(&t.map);
		return WATCH_END_ERROR;
	}
	scr = newterm(NULL, stdout, stdin);
	if (!scr) {
		mw_map_free(&t.map);
		for (i = 0; i < LOG_LINES; i++)
			free(t.log[i]);
		mw_error_set(err, -ENOTTY, "watch: cannot drive this terminal (TERM=%s): use --batch",
			     term ? term : "unset");
		return WATCH_END_ERROR;
	}
	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	nodelay(stdscr, TRUE);
	set_escdelay(25);
	curs_set(0);
	setup_colors(&t);
	fit_width(&t);
	end = run(&t, open, signalled);
	endwin();
	delscreen(scr);
	*frames = t.frames;
	watch_lines_free(&t.detail);
	for (i = 0; i < LOG_LINES; i++)
		free(t.log[i]);
	mw_map_free(&t.map);
	return end;
}

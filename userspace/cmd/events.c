// SPDX-License-Identifier: GPL-2.0
/*
 * memwalk-client events: the reclaim, OOM and LRU event stream.
 *
 * One socket per multicast group, so a MEMWALK_EV_LOST record (which does
 * not say its group) and a socket overflow are charged to the right group,
 * and one on nlctrl's "notify" group to see the family go when the module
 * is unloaded.  The reclaim group is also joined for --oom alone: an OOM
 * kill is told with the reclaim that led to it (lib/evstate.c).
 *
 * MEMWALK_EVENTS_REPLAY=FILE reads the stream from FILE instead of the
 * module (for the host tests; the format is in read_replay()).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <linux/netlink.h>

#include <netlink/netlink.h>
#include <netlink/socket.h>

#include "evprint.h"
#include "genl.h"
#include "memwalk-client.h"
#include "print.h"

#define RCVBUF_BYTES	(8 << 20)
#define DGRAM_MAX	(256 << 10)
#define DRAIN_MS	500	/* at exit: for events still on their way */

struct ev_opts {
	bool groups[MW_NR_GROUPS];	/* printed */
	bool json;
	uint64_t count;			/* 0: no limit */
	double duration;		/* seconds, 0: no limit */
	struct mw_filter filter;
};

struct ev_sock {
	struct nl_sock *sk;
	int fd;
	bool joined;
};

struct ev_run {
	struct ev_opts *opts;
	struct mw_print_opts print;
	struct mw_evstate state;
	struct mw_ev_totals totals;
	struct ev_sock socks[MW_NR_GROUPS];
	struct ev_sock ctrl;		/* nlctrl notify: the family going away */
	struct mw_genl genl;		/* requests (GET_STATUS) */
	bool have_genl;
	int family;
	int replay_fd;			/* replay mode, else -1 */
	bool stop;
	bool family_gone;
	unsigned char *buf;
};

static volatile sig_atomic_t got_signal;

static void on_signal(int sig)
{
	got_signal = sig;
}

/* ---- options -------------------------------------------------------------------- */

static void usage(const struct mw_command *cmd)
{
	printf("Usage: %s %s %s\n\n"
	       "Stream the module's reclaim, OOM and LRU events, one line each.\n\n"
	       "Options:\n"
	       "  --reclaim           kswapd runs, direct and memcg reclaim stalls\n"
	       "  --oom               OOM kills, with the reclaim that led to them\n"
	       "  --lru               the periodic LRU sampler (sample_interval_ms)\n"
	       "                      (default: --reclaim --oom)\n"
	       "  -J, --json          one JSON object per event and a closing summary\n"
	       "  -c, --count N       stop after N events\n"
	       "  -d, --duration S    stop after S seconds\n"
	       "  -p, --pid PID       only events of this thread or process\n"
	       "  -m, --memcg PATH    only events of this memory cgroup and below\n"
	       "  -h, --help          show this help and exit\n\n"
	       "See %s(1).\n", MW_PROG, cmd->name, cmd->args, MW_PROG);
}

static bool parse_u64(const char *s, uint64_t max, uint64_t *v)
{
	unsigned long long n;
	char *end;

	if (!*s || *s == '-' || *s == '+')
		return false;
	errno = 0;
	n = strtoull(s, &end, 10);
	if (errno || *end || n == 0 || n > max)
		return false;
	*v = n;
	return true;
}

/* Returns -1 to go on, or the exit status. */
static int parse_opts(const struct mw_command *cmd, int argc, char **argv,
		      struct ev_opts *o)
{
	enum { OPT_RECLAIM = 256, OPT_OOM, OPT_LRU };
	static const struct option longopts[] = {
		{ "reclaim", no_argument, NULL, OPT_RECLAIM },
		{ "oom", no_argument, NULL, OPT_OOM },
		{ "lru", no_argument, NULL, OPT_LRU },
		{ "json", no_argument, NULL, 'J' },
		{ "count", required_argument, NULL, 'c' },
		{ "duration", required_argument, NULL, 'd' },
		{ "pid", required_argument, NULL, 'p' },
		{ "memcg", required_argument, NULL, 'm' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool any = false;
	uint64_t v;
	char *end;
	int c;

	memset(o, 0, sizeof(*o));
	opterr = 0;
	optind = 0;
	while ((c = getopt_long(argc, argv, "+:Jc:d:p:m:h", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_RECLAIM:
			o->groups[MW_GRP_RECLAIM] = any = true;
			break;
		case OPT_OOM:
			o->groups[MW_GRP_OOM] = any = true;
			break;
		case OPT_LRU:
			o->groups[MW_GRP_LRU] = any = true;
			break;
		case 'J':
			o->json = true;
			break;
		case 'c':
			if (!parse_u64(optarg, UINT64_MAX, &o->count)) {
				mw_err("%s: invalid count '%s': expected a positive integer",
				       cmd->name, optarg);
				return MW_EXIT_FAILURE;
			}
			break;
		case 'd':
			errno = 0;
			o->duration = strtod(optarg, &end);
			if (errno || end == optarg || *end || !isfinite(o->duration) ||
			    o->duration <= 0 || o->duration > 1e9) {
				mw_err("%s: invalid duration '%s': expected a positive number of seconds",
				       cmd->name, optarg);
				return MW_EXIT_FAILURE;
			}
			break;
		case 'p':
			if (!parse_u64(optarg, INT_MAX, &v)) {
				mw_err("%s: invalid pid '%s': expected a positive integer",
				       cmd->name, optarg);
				return MW_EXIT_FAILURE;
			}
			o->filter.has_pid = true;
			o->filter.pid = v;
			break;
		case 'm':
			if (optarg[0] != '/') {
				mw_err("%s: invalid memory cgroup '%s': expected a path from the cgroup root, like /system.slice",
				       cmd->name, optarg);
				return MW_EXIT_FAILURE;
			}
			o->filter.memcg = optarg;
			break;
		case 'h':
			usage(cmd);
			return MW_EXIT_OK;
		default:
			mw_bad_command_option(cmd, argv, c);
			return MW_EXIT_FAILURE;
		}
	}
	if (mw_check_args(cmd, argc, argv, 0))
		return MW_EXIT_FAILURE;
	if (!any)
		o->groups[MW_GRP_RECLAIM] = o->groups[MW_GRP_OOM] = true;
	return -1;
}

/* ---- one datagram --------------------------------------------------------------- */

static void handle_event(struct ev_run *r, enum mw_group grp,
			 const struct nlmsghdr *nlh)
{
	static struct mw_event ev;
	struct mw_ev_extra x;
	const char *why;

	if (mw_event_parse(nlh, &ev, &why)) {
		if (!r->totals.malformed++)
			mw_warn("malformed event from the module ignored: %s", why);
		return;
	}
	mw_evstate_event(&r->state, grp, &ev, &x);
	if (r->stop || !r->opts->groups[grp])
		return;
	if (!mw_filter_match(&r->opts->filter, &ev)) {
		r->totals.filtered++;
		return;
	}
	mw_ev_print(&ev, &x, &r->print);
	if (ev.type == MEMWALK_EV_LOST)
		return;
	r->totals.events++;
	if (r->opts->count && r->totals.events >= r->opts->count)
		r->stop = true;
}

static void handle_dgram(struct ev_run *r, enum mw_group grp,
			 const void *buf, size_t len)
{
	const struct nlmsghdr *nlh = buf;
	int left = len;

	for (; NLMSG_OK(nlh, left); nlh = NLMSG_NEXT(nlh, left)) {
		if (nlh->nlmsg_type < NLMSG_MIN_TYPE)
			continue;	/* NOOP, DONE, ERROR: not for a subscriber */
		if (r->replay_fd < 0 && nlh->nlmsg_type != r->family)
			continue;
		handle_event(r, grp, nlh);
	}
}

/* nlctrl notification: did our family go? */
static void handle_ctrl(struct ev_run *r, const void *buf, size_t len)
{
	const struct nlmsghdr *nlh = buf;
	int left = len;

	for (; NLMSG_OK(nlh, left); nlh = NLMSG_NEXT(nlh, left))
		if (mw_genl_family_deleted(nlh, MEMWALK_GENL_NAME))
			r->family_gone = true;
}

/* Read what @s has without blocking; false on a fatal error. */
static bool drain(struct ev_run *r, struct ev_sock *s, int grp)
{
	for (;;) {
		ssize_t n = recv(s->fd, r->buf, DGRAM_MAX, MSG_DONTWAIT | MSG_TRUNC);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return true;
			if (errno == ENOBUFS && grp >= 0) {
				/* Our receive queue overflowed: say so once in a while. */
				if (!r->state.seq[grp].overflows)
					mw_warn("%s events lost: the socket's receive buffer overflowed (ENOBUFS); counted in the summary",
						mw_group_name(grp));
				mw_evstate_overflow(&r->state, grp, mw_now_ns());
				continue;
			}
			if (errno == ENOBUFS)
				continue;
			mw_err("cannot receive events [%s]", mw_errno_text(errno));
			return false;
		}
		if (n > DGRAM_MAX) {
			mw_warn("datagram of %zd bytes truncated: events lost", n);
			n = DGRAM_MAX;
		}
		if (grp < 0)
			handle_ctrl(r, r->buf, n);
		else
			handle_dgram(r, grp, r->buf, n);
	}
}

/* ---- replay (tests) ------------------------------------------------------------------ */

/*
 * A replay file is a sequence of records: u32 group (enum mw_group), u32
 * length, then that many bytes of one datagram as the group's socket
 * would have received it; length 0xffffffff stands for an ENOBUFS on the
 * group's socket.  Native byte order.  Returns false at the end.
 */
#define REPLAY_ENOBUFS	0xffffffffu

static bool read_all(int fd, void *buf, size_t len)
{
	unsigned char *p = buf;

	while (len) {
		ssize_t n = read(fd, p, len);

		if (n < 0 && errno == EINTR) {
			if (got_signal)
				return false;
			continue;
		}
		if (n <= 0)
			return false;
		p += n;
		len -= n;
	}
	return true;
}

static bool read_replay(struct ev_run *r)
{
	uint32_t hdr[2];

	if (!read_all(r->replay_fd, hdr, sizeof(hdr)))
		return false;
	if (hdr[0] >= MW_NR_GROUPS ||
	    (hdr[1] != REPLAY_ENOBUFS && hdr[1] > DGRAM_MAX)) {
		mw_err("malformed replay record (group %u, length %u)", hdr[0], hdr[1]);
		return false;
	}
	if (hdr[1] == REPLAY_ENOBUFS) {
		/* The recording's clock, not ours. */
		mw_evstate_overflow(&r->state, hdr[0], r->state.last_ns);
		return true;
	}
	if (!read_all(r->replay_fd, r->buf, hdr[1]))
		return false;
	handle_dgram(r, hdr[0], r->buf, hdr[1]);
	return true;
}

/* ---- setup ------------------------------------------------------------------------------ */

/* Subscribe @s to @group of @family; on failure say why, return the exit status. */
static int join(struct ev_sock *s, const char *family, const char *group,
		struct nl_sock *resolver)
{
	struct mw_error err;

	if (mw_genl_join(resolver, family, group, RCVBUF_BYTES, &s->sk, &err))
		return mw_report(&err);
	s->fd = nl_socket_get_fd(s->sk);
	s->joined = true;
	return MW_EXIT_OK;
}

/* GET_STATUS into @st; false (said why) if it failed. */
static bool get_status(struct ev_run *r, struct mw_status *st)
{
	struct mw_error err;

	if (!r->have_genl)
		return false;
	if (mw_genl_get_status(&r->genl, st, &err)) {
		mw_report(&err);
		return false;
	}
	mw_check_uapi("module", st->uapi_version);	/* once, of the two calls */
	return true;
}

static int setup_netlink(struct ev_run *r, struct mw_status *st)
{
	const bool need_reclaim = r->opts->groups[MW_GRP_RECLAIM] ||
				  r->opts->groups[MW_GRP_OOM];
	struct mw_error err;
	int ret, g;

	if (mw_genl_open(&r->genl, &err))
		return mw_report(&err);
	r->have_genl = true;
	r->family = r->genl.family;

	for (g = 0; g < MW_NR_GROUPS; g++) {
		if (!r->opts->groups[g] && !(g == MW_GRP_RECLAIM && need_reclaim))
			continue;
		ret = join(&r->socks[g], MEMWALK_GENL_NAME, mw_group_name(g),
			   r->genl.sock);
		if (ret)
			return ret;
	}
	/* Best effort: without it an unloaded module just goes quiet. */
	if (join(&r->ctrl, "nlctrl", "notify", r->genl.sock))
		mw_warn("cannot watch for the module going away; continuing");

	r->state.start_ns = mw_now_ns();
	/* After joining: every seq above these should reach us. */
	if (get_status(r, st)) {
		for (g = 0; g < MW_NR_GROUPS; g++) {
			const struct mw_status_group *sg =
				mw_status_group(st, mw_group_name(g));

			if (sg && (sg->has & (1u << MEMWALK_A_GROUP_SEQ)))
				mw_seq_set_base(&r->state.seq[g], sg->seq);
		}
	} else {
		mw_warn("counting lost events from the first event received");
	}
	return MW_EXIT_OK;
}

/* ---- the loop ---------------------------------------------------------------------------- */

static void run_loop(struct ev_run *r, uint64_t deadline)
{
	struct pollfd pfd[MW_NR_GROUPS + 1];
	int idx[MW_NR_GROUPS + 1];
	sigset_t none;
	int n, i;

	sigemptyset(&none);
	while (!r->stop && !got_signal && !r->family_gone) {
		struct timespec ts, *tmo = NULL;

		if (deadline) {
			uint64_t now = mw_now_ns(), left;

			if (now >= deadline)
				break;
			left = deadline - now;
			ts.tv_sec = left / 1000000000ULL;
			ts.tv_nsec = left % 1000000000ULL;
			tmo = &ts;
		}
		n = 0;
		if (r->replay_fd >= 0) {
			pfd[n].fd = r->replay_fd;
			pfd[n].events = POLLIN;
			idx[n++] = 0;
		} else {
			for (i = 0; i < MW_NR_GROUPS; i++) {
				if (!r->socks[i].joined)
					continue;
				pfd[n].fd = r->socks[i].fd;
				pfd[n].events = POLLIN;
				idx[n++] = i;
			}
			if (r->ctrl.joined) {
				pfd[n].fd = r->ctrl.fd;
				pfd[n].events = POLLIN;
				idx[n++] = -1;
			}
		}
		/* Signals are blocked but here, so none is missed. */
		if (ppoll(pfd, n, tmo, &none) < 0) {
			if (errno == EINTR)
				continue;
			mw_err("poll failed [%s]", mw_errno_text(errno));
			break;
		}
		if (r->replay_fd >= 0) {
			if (pfd[0].revents && !read_replay(r))
				break;
			continue;
		}
		/* Reclaim first: an OOM kill's story needs what came before it. */
		for (i = 0; i < n && !r->stop; i++) {
			if (!pfd[i].revents)
				continue;
			if (idx[i] == MW_GRP_OOM && r->socks[MW_GRP_RECLAIM].joined &&
			    !drain(r, &r->socks[MW_GRP_RECLAIM], MW_GRP_RECLAIM))
				return;
			if (!drain(r, idx[i] < 0 ? &r->ctrl : &r->socks[idx[i]], idx[i]))
				return;
		}
	}
}

/*
 * At the end: what the module says it gave out, and a short wait for the
 * events still on their way, so the missing count is the real one.
 */
static void final_accounting(struct ev_run *r, struct mw_status *st)
{
	uint64_t last[MW_NR_GROUPS] = { 0 };
	uint64_t until;
	bool have = false, done;
	int g;

	if (r->replay_fd < 0 && !r->family_gone && get_status(r, st)) {
		for (g = 0; g < MW_NR_GROUPS; g++) {
			const struct mw_status_group *sg =
				mw_status_group(st, mw_group_name(g));

			if (sg && r->socks[g].joined)
				last[g] = sg->seq;
		}
		have = true;
	}
	until = mw_now_ns() + DRAIN_MS * 1000000ULL;
	r->stop = true;		/* account, print no more */
	while (have) {
		done = true;
		for (g = 0; g < MW_NR_GROUPS; g++) {
			struct mw_seqtrack *s = &r->state.seq[g];

			if (!r->socks[g].joined)
				continue;
			drain(r, &r->socks[g], g);
			if (mw_seq_missing(s, last[g]) > s->lost_reported && !s->overflows)
				done = false;
		}
		if (done || mw_now_ns() >= until)
			break;
		usleep(20 * 1000);
	}
	for (g = 0; g < MW_NR_GROUPS; g++) {
		const struct mw_seqtrack *s = &r->state.seq[g];

		/* Only the groups shown count: the story's reclaim is silent. */
		if (!r->opts->groups[g])
			continue;
		r->totals.lost_reported += s->lost_reported;
		r->totals.missing += mw_seq_missing(s, last[g]);
		r->totals.overflows += s->overflows;
	}
}

static void print_opts_init(struct ev_run *r, const struct mw_status *st)
{
	struct utsname uts;
	const char *release = st->release;

	if (!release && uname(&uts) == 0)
		release = uts.release;
	r->print.json = r->opts->json;
	r->print.page_size = st->page_size ? st->page_size : sysconf(_SC_PAGESIZE);
	r->print.gfp_atomic_bit = mw_release_before(release, 6, 3);
}

static int events_run(const struct mw_command *cmd, int argc, char **argv)
{
	static struct mw_status status;	/* large */
	struct sigaction sa = { .sa_handler = on_signal };
	struct ev_opts opts;
	struct ev_run r = { .opts = &opts, .replay_fd = -1 };
	const char *replay = getenv("MEMWALK_EVENTS_REPLAY");
	uint64_t deadline = 0;
	sigset_t block;
	int ret, g;

	ret = parse_opts(cmd, argc, argv, &opts);
	if (ret >= 0)
		return ret;

	/* Blocked from here; ppoll() lets them in, the handler sets a flag. */
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigprocmask(SIG_BLOCK, &block, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	r.buf = malloc(DGRAM_MAX);
	if (!r.buf || mw_evstate_init(&r.state, mw_now_ns())) {
		mw_err("out of memory");
		ret = MW_EXIT_FAILURE;
		goto out;
	}
	memset(&status, 0, sizeof(status));
	if (replay && *replay) {
		r.replay_fd = open(replay, O_RDONLY | O_CLOEXEC);
		if (r.replay_fd < 0) {
			mw_err("cannot open %s [%s]", replay, mw_errno_text(errno));
			ret = MW_EXIT_FAILURE;
			goto out;
		}
		r.state.start_ns = 0;	/* the recording covers all it holds */
	} else {
		ret = setup_netlink(&r, &status);
		if (ret)
			goto out;
	}
	print_opts_init(&r, &status);
	if (opts.duration)
		deadline = mw_now_ns() + (uint64_t)(opts.duration * 1e9);

	mw_ev_print_header(&r.print);
	run_loop(&r, deadline);
	if (r.family_gone)
		mw_err("the memwalk module was unloaded: generic netlink family \"%s\" is gone",
		       MEMWALK_GENL_NAME);
	final_accounting(&r, &status);
	mw_ev_print_summary(&r.totals, &r.print);
	ret = r.family_gone ? MW_EXIT_UNAVAILABLE : MW_EXIT_OK;

out:
	for (g = 0; g < MW_NR_GROUPS; g++)
		if (r.socks[g].sk)
			nl_socket_free(r.socks[g].sk);
	if (r.ctrl.sk)
		nl_socket_free(r.ctrl.sk);
	if (r.have_genl)
		mw_genl_close(&r.genl);
	if (r.replay_fd >= 0)
		close(r.replay_fd);
	mw_evstate_free(&r.state);
	mw_status_release(&status);
	free(r.buf);
	return ret;
}

MW_COMMAND(events,
	.name = "events",
	.args = "[OPTIONS]",
	.help = "stream reclaim, OOM and LRU events (netlink)",
	.run = events_run);

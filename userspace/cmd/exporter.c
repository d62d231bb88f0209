// SPDX-License-Identifier: GPL-2.0
/*
 * memwalk-client exporter: the reclaim, OOM and LRU events as Prometheus
 * metrics over HTTP (libmicrohttpd, opened at start: exporter-mhd.h), for
 * a Prometheus server to scrape.
 *
 * The main thread subscribes to the module's multicast groups
 * (lib/evsub.h) and folds every event into the metric model
 * (lib/metrics.h).
 * libmicrohttpd's thread serves GET /metrics: a GET_STATUS for the probe
 * states and the module's own counters, then the model rendered under the
 * lock.  Plain HTTP, no authentication: it listens on 127.0.0.1 unless
 * told otherwise.
 *
 * MEMWALK_EVENTS_REPLAY=FILE reads the stream from FILE instead of the
 * module (for the host tests; the format is in lib/evsub.h), then serves.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "evsub.h"
#include "exporter-mhd.h"
#include "genl.h"
#include "memwalk-client.h"
#include "metrics.h"

#define DEFAULT_LISTEN	"127.0.0.1:9857"
#define CONTENT_TYPE	"text/plain; version=0.0.4; charset=utf-8"

struct exp_run {
	pthread_mutex_t lock;		/* protects metrics */
	struct mw_metrics metrics;
	/* GET_STATUS: the HTTP thread's, once serving */
	struct mw_genl genl;
	bool have_genl;
	struct mw_status *status;
	/* the main thread's */
	struct mw_evsub sub;
	int replay_fd;			/* replay mode, else -1 */
	bool warned_malformed, warned_overflow[MW_NR_GROUPS];
	struct mw_event ev;		/* large */
};

static struct mw_mhd mhd;	/* set before the HTTP thread starts */
static volatile sig_atomic_t got_signal;

static void on_signal(int sig)
{
	got_signal = sig;
}

static void usage(const struct mw_command *cmd)
{
	printf("Usage: %s %s %s\n\n"
	       "Serve the module's reclaim, OOM and LRU events and its status as\n"
	       "Prometheus metrics on http://ADDRESS/metrics (plain HTTP, no\n"
	       "authentication).\n\n"
	       "Options:\n"
	       "  -l, --listen ADDRESS  IP:PORT or [IPv6]:PORT to listen on\n"
	       "                        (default " DEFAULT_LISTEN ": this host only)\n"
	       "  -h, --help            show this help and exit\n\n"
	       "See %s(1).\n", MW_PROG, cmd->name, cmd->args, MW_PROG);
}

/* "127.0.0.1:9857" or "[::1]:9857" into @ss; false if it is neither. */
static bool parse_listen(const char *arg, struct sockaddr_storage *ss, socklen_t *len)
{
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;
	struct sockaddr_in *sin = (struct sockaddr_in *)ss;
	char host[64];
	const char *colon, *h = arg;
	size_t hlen;
	unsigned long port;
	char *end;

	memset(ss, 0, sizeof(*ss));
	if (*arg == '[') {
		colon = strstr(arg, "]:");
		if (!colon)
			return false;
		h = arg + 1;
		hlen = colon - h;
		colon++;
	} else {
		colon = strrchr(arg, ':');
		if (!colon)
			return false;
		hlen = colon - arg;
	}
	if (hlen == 0 || hlen >= sizeof(host))
		return false;
	memcpy(host, h, hlen);
	host[hlen] = '\0';
	if (colon[1] < '0' || colon[1] > '9')
		return false;
	errno = 0;
	port = strtoul(colon + 1, &end, 10);
	if (errno || *end || port == 0 || port > 65535)
		return false;
	if (*arg != '[' && inet_pton(AF_INET, host, &sin->sin_addr) == 1) {
		sin->sin_family = AF_INET;
		sin->sin_port = htons(port);
		*len = sizeof(*sin);
		return true;
	}
	if (*arg == '[' && inet_pton(AF_INET6, host, &sin6->sin6_addr) == 1) {
		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons(port);
		*len = sizeof(*sin6);
		return true;
	}
	return false;
}

/* Returns -1 to go on, or the exit status. */
static int parse_opts(const struct mw_command *cmd, int argc, char **argv,
		      const char **listen_at)
{
	static const struct option longopts[] = {
		{ "listen", required_argument, NULL, 'l' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	*listen_at = DEFAULT_LISTEN;
	opterr = 0;
	optind = 0;
	while ((c = getopt_long(argc, argv, "+:l:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'l':
			*listen_at = optarg;
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
	return -1;
}

/* A bound, listening socket for @arg; on failure say why, return -1. */
static int listen_on(const char *arg)
{
	struct sockaddr_storage ss;
	socklen_t len;
	int one = 1, fd;

	if (!parse_listen(arg, &ss, &len)) {
		mw_err("exporter: invalid listen address '%s': expected IP:PORT or [IPv6]:PORT, like " DEFAULT_LISTEN,
		       arg);
		return -1;
	}
	fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		mw_err("exporter: cannot make a socket for %s [%s]", arg, mw_errno_text(errno));
		return -1;
	}
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&ss, len) || listen(fd, 64)) {
		mw_err("exporter: cannot listen on %s [%s]", arg, mw_errno_text(errno));
		close(fd);
		return -1;
	}
	return fd;
}

/* ---- the event stream (main thread) ------------------------------------ */

static void on_message(void *arg, enum mw_group grp, const struct nlmsghdr *nlh)
{
	struct exp_run *r = arg;
	const char *why;

	pthread_mutex_lock(&r->lock);
	if (!mw_event_parse(nlh, &r->ev, &why)) {
		mw_metrics_event(&r->metrics, grp, &r->ev);
	} else {
		if (!r->warned_malformed)
			mw_warn("malformed event from the module ignored: %s", why);
		r->warned_malformed = true;
		r->metrics.state.malformed++;
	}
	pthread_mutex_unlock(&r->lock);
}

static void on_overflow(void *arg, enum mw_group grp)
{
	struct exp_run *r = arg;

	if (!r->warned_overflow[grp])
		mw_warn("%s events lost: the socket's receive buffer overflowed (ENOBUFS); counted in memwalk_receive_overflows_total",
			mw_group_name(grp));
	r->warned_overflow[grp] = true;
	pthread_mutex_lock(&r->lock);
	/* A replay's clock is the recording's. */
	mw_metrics_overflow(&r->metrics, grp,
			    r->replay_fd >= 0 ? r->metrics.state.last_ns : mw_now_ns());
	pthread_mutex_unlock(&r->lock);
}

static void on_truncated(void *arg, size_t len)
{
	(void)arg;
	mw_warn("datagram of %zu bytes truncated: events lost", len);
}

static const struct mw_evsub_ops stream_ops = {
	.message = on_message,
	.overflow = on_overflow,
	.truncated = on_truncated,
};

/* Until a signal, the family going away, or a receive error (false, said). */
static bool run_loop(struct exp_run *r)
{
	struct pollfd pfd[MW_NR_GROUPS + 1];
	struct mw_error err;
	sigset_t none;
	int g;

	sigemptyset(&none);
	for (g = 0; g < MW_NR_GROUPS; g++)
		pfd[g] = (struct pollfd){ .fd = r->sub.fd[g], .events = POLLIN };
	pfd[MW_NR_GROUPS] = (struct pollfd){ .fd = r->sub.ctrl ? r->sub.ctrl_fd : -1,
					     .events = POLLIN };
	while (!got_signal && !r->sub.family_gone) {
		/* Signals are blocked but here, so none is missed. */
		if (ppoll(pfd, MW_NR_GROUPS + 1, NULL, &none) < 0) {
			if (errno == EINTR)
				continue;
			mw_err("exporter: poll failed [%s]", mw_errno_text(errno));
			return false;
		}
		/* Reclaim first: an OOM kill's story needs what came before it. */
		for (g = -1; g < MW_NR_GROUPS; g++) {
			int i = g < 0 ? MW_NR_GROUPS : g;

			if (pfd[i].revents && mw_evsub_drain(&r->sub, g, &stream_ops, r, &err)) {
				mw_report(&err);
				return false;
			}
		}
	}
	return true;
}

/* The whole replay file into the model; false (said why) if malformed. */
static bool replay_all(struct exp_run *r)
{
	struct mw_error err;
	int ret;

	while ((ret = mw_evsub_replay(r->replay_fd, r->sub.buf, &stream_ops, r, &err)) > 0)
		;
	if (ret < 0)
		mw_report(&err);
	return ret == 0;
}

/* ---- setup ------------------------------------------------------------------ */

static int setup_netlink(struct exp_run *r)
{
	struct mw_error err;
	uint32_t page_size;
	int g;

	if (mw_genl_open(&r->genl, &err))
		return mw_report(&err);
	r->have_genl = true;
	if (mw_evsub_open(&r->sub, &r->genl, (1u << MW_NR_GROUPS) - 1, &err))
		return mw_report(&err);
	if (!r->sub.ctrl)
		mw_warn("cannot watch for the module going away; continuing");
	/* After joining: every seq above these should reach us. */
	if (mw_genl_get_status(&r->genl, r->status, &err))
		return mw_report(&err);
	mw_check_uapi("module", r->status->uapi_version);
	page_size = r->status->page_size ? r->status->page_size : sysconf(_SC_PAGESIZE);
	if (mw_metrics_init(&r->metrics, page_size, mw_now_ns())) {
		mw_err("out of memory");
		return MW_EXIT_FAILURE;
	}
	for (g = 0; g < MW_NR_GROUPS; g++) {
		const struct mw_status_group *sg = mw_status_group(r->status, mw_group_name(g));

		if (sg && (sg->has & (1u << MEMWALK_A_GROUP_SEQ)))
			mw_seq_set_base(&r->metrics.state.seq[g], sg->seq);
	}
	return MW_EXIT_OK;
}

/* ---- HTTP (libmicrohttpd's thread) ------------------------------------------- */

static enum MHD_Result reply(struct MHD_Connection *conn, unsigned int code,
			     char *text, size_t len, enum MHD_ResponseMemoryMode mode)
{
	struct MHD_Response *resp;
	enum MHD_Result ret;

	resp = mhd.create_response_from_buffer(len, text, mode);
	if (!resp) {
		if (mode == MHD_RESPMEM_MUST_FREE)
			free(text);
		return MHD_NO;
	}
	mhd.add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE,
				code == MHD_HTTP_OK && mode == MHD_RESPMEM_MUST_FREE ?
				CONTENT_TYPE : "text/plain; charset=utf-8");
	ret = mhd.queue_response(conn, code, resp);
	mhd.destroy_response(resp);
	return ret;
}

#define STATIC_TEXT(conn, code, s) \
	reply(conn, code, (char *)(s), sizeof(s) - 1, MHD_RESPMEM_PERSISTENT)

static enum MHD_Result serve_metrics(struct exp_run *r, struct MHD_Connection *conn)
{
	const struct mw_status *st = NULL;
	struct mw_error err;
	char *text = NULL;
	size_t len = 0;
	int ret;

	/* Without the status the event metrics still go out; the log says why. */
	if (r->have_genl) {
		if (mw_genl_get_status(&r->genl, r->status, &err))
			mw_warn("exporter: no module status for this scrape: %s", err.msg);
		else
			st = r->status;
	}
	pthread_mutex_lock(&r->lock);
	r->metrics.scrapes++;
	ret = mw_metrics_render(&r->metrics, st, &text, &len);
	pthread_mutex_unlock(&r->lock);
	if (ret)
		return STATIC_TEXT(conn, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory\n");
	return reply(conn, MHD_HTTP_OK, text, len, MHD_RESPMEM_MUST_FREE);
}

static enum MHD_Result handle_request(void *cls, struct MHD_Connection *conn,
				      const char *url, const char *method,
				      const char *version, const char *upload_data,
				      size_t *upload_data_size, void **req_cls)
{
	static int first_call;

	(void)version;
	(void)upload_data;
	if (strcmp(method, MHD_HTTP_METHOD_GET) && strcmp(method, MHD_HTTP_METHOD_HEAD))
		return STATIC_TEXT(conn, MHD_HTTP_METHOD_NOT_ALLOWED, "only GET and HEAD\n");
	/* The first call is for the headers only; answer on the second. */
	if (*req_cls != &first_call) {
		*req_cls = &first_call;
		return MHD_YES;
	}
	if (*upload_data_size)
		return STATIC_TEXT(conn, MHD_HTTP_BAD_REQUEST, "no body expected\n");
	if (!strcmp(url, "/metrics"))
		return serve_metrics(cls, conn);
	if (!strcmp(url, "/"))
		return STATIC_TEXT(conn, MHD_HTTP_OK,
				   "memwalk exporter: the metrics are at /metrics\n");
	return STATIC_TEXT(conn, MHD_HTTP_NOT_FOUND, "not found: the metrics are at /metrics\n");
}

/* ---- the command ------------------------------------------------------------- */

static int exporter_run(const struct mw_command *cmd, int argc, char **argv)
{
	static struct mw_status status;	/* large */
	static struct exp_run r = { .replay_fd = -1, .status = &status };
	struct sigaction sa = { .sa_handler = on_signal };
	const char *replay = getenv("MEMWALK_EVENTS_REPLAY");
	struct MHD_Daemon *daemon = NULL;
	const char *listen_at;
	char why[256];
	sigset_t block;
	int ret, fd;

	ret = parse_opts(cmd, argc, argv, &listen_at);
	if (ret >= 0)
		return ret;
	if (!mw_mhd_open(&mhd, why, sizeof(why))) {
		mw_err("exporter: cannot load libmicrohttpd (Debian: libmicrohttpd12): %s", why);
		return MW_EXIT_FAILURE;
	}
	fd = listen_on(listen_at);
	if (fd < 0)
		return MW_EXIT_FAILURE;

	/* Blocked from here, in libmicrohttpd's thread too; ppoll() lets them in. */
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigprocmask(SIG_BLOCK, &block, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	pthread_mutex_init(&r.lock, NULL);

	if (replay && *replay) {
		r.sub.buf = malloc(MW_EVSUB_DGRAM_MAX);
		if (!r.sub.buf) {
			mw_err("out of memory");
			ret = MW_EXIT_FAILURE;
			goto out;
		}
		r.replay_fd = open(replay, O_RDONLY | O_CLOEXEC);
		if (r.replay_fd < 0) {
			mw_err("cannot open %s [%s]", replay, mw_errno_text(errno));
			ret = MW_EXIT_FAILURE;
			goto out;
		}
		if (mw_metrics_init(&r.metrics, sysconf(_SC_PAGESIZE), 0)) {
			mw_err("out of memory");
			ret = MW_EXIT_FAILURE;
			goto out;
		}
		if (!replay_all(&r)) {
			ret = MW_EXIT_FAILURE;
			goto out;
		}
	} else {
		ret = setup_netlink(&r);
		if (ret)
			goto out;
	}

	daemon = mhd.start_daemon(MHD_USE_INTERNAL_POLLING_THREAD, 0, NULL, NULL,
				  handle_request, &r,
				  MHD_OPTION_LISTEN_SOCKET, fd,
				  MHD_OPTION_CONNECTION_LIMIT, 32,
				  MHD_OPTION_CONNECTION_TIMEOUT, 10,
				  MHD_OPTION_END);
	if (!daemon) {
		mw_err("exporter: cannot start the HTTP server on %s", listen_at);
		ret = MW_EXIT_FAILURE;
		goto out;
	}
	fd = -1;	/* the daemon's now */
	fprintf(stderr, "%s: exporter: serving http://%s/metrics\n", MW_PROG, listen_at);

	if (r.replay_fd >= 0) {
		sigset_t none;

		sigemptyset(&none);
		while (!got_signal)
			sigsuspend(&none);
	} else if (!run_loop(&r)) {
		ret = MW_EXIT_FAILURE;
		goto out;
	}
	ret = MW_EXIT_OK;
	if (r.sub.family_gone) {
		mw_err("the memwalk module was unloaded: generic netlink family \"%s\" is gone",
		       MEMWALK_GENL_NAME);
		ret = MW_EXIT_UNAVAILABLE;
	}

out:
	if (daemon)
		mhd.stop_daemon(daemon);
	if (fd >= 0)
		close(fd);
	mw_evsub_close(&r.sub);
	if (r.have_genl)
		mw_genl_close(&r.genl);
	if (r.replay_fd >= 0)
		close(r.replay_fd);
	mw_metrics_free(&r.metrics);
	mw_status_release(&status);
	pthread_mutex_destroy(&r.lock);
	return ret;
}

MW_COMMAND(exporter,
	.name = "exporter",
	.args = "[--listen ADDRESS]",
	.help = "serve events and status as Prometheus metrics (HTTP)",
	.run = exporter_run);

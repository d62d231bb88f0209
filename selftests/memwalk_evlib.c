// SPDX-License-Identifier: GPL-2.0
/* Shared by memwalk_events and memwalk_evbench; see memwalk_evlib.h. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/swap.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/genetlink.h>
#include <linux/netlink.h>

#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/netlink.h>

#include "memwalk_evlib.h"


const char *const grp_names[NR_GRPS] = {
	[GRP_RECLAIM]	= MEMWALK_MCGRP_RECLAIM,
	[GRP_OOM]	= MEMWALK_MCGRP_OOM,
	[GRP_LRU]	= MEMWALK_MCGRP_LRU,
};

uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NSEC + ts.tv_nsec;
}

void msleep(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* ---- family and groups -------------------------------------------------- */


/* 0, or -1 if the family (the module) is not there. */
int family_resolve(struct family *f)
{
	struct nl_sock *sk = nl_socket_alloc();
	int i, ret = -1;

	if (!sk || genl_connect(sk))
		goto out;
	f->id = genl_ctrl_resolve(sk, MEMWALK_GENL_NAME);
	if (f->id < 0)
		goto out;
	for (i = 0; i < NR_GRPS; i++) {
		f->grp[i] = genl_ctrl_resolve_grp(sk, MEMWALK_GENL_NAME, grp_names[i]);
		if (f->grp[i] < 0)
			goto out;
	}
	f->ctrl_notify = genl_ctrl_resolve_grp(sk, "nlctrl", "notify");
	ret = f->ctrl_notify < 0 ? -1 : 0;
out:
	nl_socket_free(sk);
	return ret;
}

/* ---- raw generic netlink requests ---------------------------------------- */

int nl_open(void)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	int one = 1, fd;

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (fd < 0)
		return -1;
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		close(fd);
		return -1;
	}
	setsockopt(fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	setsockopt(fd, SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one));
	return fd;
}


void req_init(struct req *r, int family, uint8_t cmd, uint16_t flags)
{
	struct nlmsghdr *n = (void *)r->buf;
	struct genlmsghdr *g = NLMSG_DATA(n);

	memset(r, 0, sizeof(*r));
	n->nlmsg_type = family;
	n->nlmsg_flags = NLM_F_REQUEST | flags;
	n->nlmsg_seq = 1;
	g->cmd = cmd;
	g->version = MEMWALK_GENL_VERSION;
	r->len = NLMSG_LENGTH(GENL_HDRLEN);
	n->nlmsg_len = r->len;
}

void req_attr(struct req *r, uint16_t type, const void *data, uint16_t len)
{
	struct nlmsghdr *n = (void *)r->buf;
	struct nlattr *a = (void *)(r->buf + r->len);

	a->nla_type = type;
	a->nla_len = NLA_HDRLEN + len;
	memcpy(r->buf + r->len + NLA_HDRLEN, data, len);
	r->len += NLA_ALIGN(a->nla_len);
	n->nlmsg_len = r->len;
}


static void parse_extack(struct reply *r, const struct nlmsghdr *n)
{
	const struct nlmsgerr *e = NLMSG_DATA(n);
	const unsigned char *p = (const unsigned char *)e + sizeof(*e);
	const unsigned char *end = (const unsigned char *)n + n->nlmsg_len;

	r->answered = true;
	r->error = -e->error;
	if (!(n->nlmsg_flags & NLM_F_ACK_TLVS))
		return;
	if (!(n->nlmsg_flags & NLM_F_CAPPED))
		p += NLMSG_ALIGN(e->msg.nlmsg_len - NLMSG_HDRLEN);
	while (p + NLA_HDRLEN <= end) {
		const struct nlattr *a = (const void *)p;

		if (a->nla_len < NLA_HDRLEN || p + a->nla_len > end)
			break;
		if (a->nla_type == NLMSGERR_ATTR_MSG) {
			r->has_msg = true;
			snprintf(r->msg, sizeof(r->msg), "%.*s",
				 (int)(a->nla_len - NLA_HDRLEN), (const char *)(a + 1));
		} else if (a->nla_type == NLMSGERR_ATTR_OFFS &&
			   a->nla_len == NLA_HDRLEN + 4) {
			r->has_offs = true;
			memcpy(&r->offs, a + 1, 4);
		}
		p += NLA_ALIGN(a->nla_len);
	}
}

/*
 * Send @len bytes of @buf and read until the kernel's NLMSG_ERROR, or
 * @timeout_ms of silence.  Returns 0, or -errno if sending failed.
 */
int nl_transact(int fd, const void *buf, size_t len, struct reply *r,
		int timeout_ms)
{
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
	static unsigned char rbuf[1 << 17] __attribute__((aligned(8)));

	memset(r, 0, offsetof(struct reply, data));
	if (sendto(fd, buf, len, 0, (struct sockaddr *)&kernel, sizeof(kernel)) < 0)
		return -errno;
	while (!r->answered) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		const struct nlmsghdr *n;
		ssize_t got;
		int left;

		if (poll(&p, 1, timeout_ms) <= 0)
			return 0;
		got = recv(fd, rbuf, sizeof(rbuf), 0);
		if (got < 0)
			return -errno;
		left = got;
		for (n = (void *)rbuf; NLMSG_OK(n, left); n = NLMSG_NEXT(n, left)) {
			if (n->nlmsg_type == NLMSG_ERROR) {
				parse_extack(r, n);
			} else if (n->nlmsg_type >= NLMSG_MIN_TYPE) {
				if (!r->nr_replies++ && n->nlmsg_len <= sizeof(r->data)) {
					memcpy(r->data, n, n->nlmsg_len);
					r->len = n->nlmsg_len;
				}
			}
		}
	}
	return 0;
}

/* ---- attributes ----------------------------------------------------------- */


void walk(const unsigned char *p, size_t len, attr_fn fn, void *arg)
{
	while (len >= NLA_HDRLEN) {
		const struct nlattr *a = (const void *)p;
		size_t step;

		if (a->nla_len < NLA_HDRLEN || a->nla_len > len)
			return;
		fn(a->nla_type & NLA_TYPE_MASK, p + NLA_HDRLEN, a->nla_len - NLA_HDRLEN, arg);
		step = NLA_ALIGN(a->nla_len);
		if (step >= len)
			return;
		p += step;
		len -= step;
	}
}

uint32_t u32_of(const unsigned char *d, size_t len)
{
	uint32_t v = 0;

	if (len == 4)
		memcpy(&v, d, 4);
	return v;
}

uint64_t u64_of(const unsigned char *d, size_t len)
{
	uint64_t v = 0;

	if (len == 8)
		memcpy(&v, d, 8);
	return v;
}

void str_of(char *dst, size_t size, const unsigned char *d, size_t len)
{
	snprintf(dst, size, "%.*s", (int)strnlen((const char *)d, len), (const char *)d);
}

/* ---- GET_STATUS ------------------------------------------------------------ */



static int grp_index(const char *name)
{
	int i;

	for (i = 0; i < NR_GRPS; i++)
		if (!strcmp(name, grp_names[i]))
			return i;
	return -1;
}


struct grp_tmp {
	char name[32];
	uint64_t seq, sent, overflow, delivery;
};

static void grp_attr(uint16_t t, const unsigned char *d, size_t len, void *arg)
{
	struct grp_tmp *g = arg;

	switch (t) {
	case MEMWALK_A_GROUP_NAME: str_of(g->name, sizeof(g->name), d, len); break;
	case MEMWALK_A_GROUP_SEQ: g->seq = u64_of(d, len); break;
	case MEMWALK_A_GROUP_SENT: g->sent = u64_of(d, len); break;
	case MEMWALK_A_GROUP_DROPS_OVERFLOW: g->overflow = u64_of(d, len); break;
	case MEMWALK_A_GROUP_DROPS_DELIVERY: g->delivery = u64_of(d, len); break;
	}
}

static void cpu_attr(uint16_t t, const unsigned char *d, size_t len, void *arg)
{
	if (t == MEMWALK_A_CPU_DROPS_OVERFLOW)
		*(uint64_t *)arg += u64_of(d, len);
}

static void probe_attr(uint16_t t, const unsigned char *d, size_t len, void *arg)
{
	struct status *st = arg;
	int i = st->nr_probes;

	switch (t) {
	case MEMWALK_A_PROBE_NAME:
		str_of(st->probe[i].name, sizeof(st->probe[i].name), d, len);
		break;
	case MEMWALK_A_PROBE_LEG: st->probe[i].leg = u32_of(d, len); break;
	case MEMWALK_A_PROBE_EVENT: st->probe[i].event = u32_of(d, len); break;
	case MEMWALK_A_PROBE_ATTACHED: st->probe[i].attached = u32_of(d, len); break;
	case MEMWALK_A_PROBE_STATE: st->probe[i].state = u32_of(d, len); break;
	case MEMWALK_A_PROBE_ERROR: st->probe[i].error = (int32_t)u32_of(d, len); break;
	case MEMWALK_A_PROBE_HITS: st->probe[i].hits = u64_of(d, len); break;
	case MEMWALK_A_PROBE_NMISSED: st->probe[i].nmissed = u64_of(d, len); break;
	}
}

static void status_attr(uint16_t t, const unsigned char *d, size_t len, void *arg)
{
	struct status *st = arg;

	switch (t) {
	case MEMWALK_A_STATUS_PAGE_SIZE: st->page_size = u32_of(d, len); break;
	case MEMWALK_A_STATUS_BUFFER_EVENTS: st->buffer_events = u32_of(d, len); break;
	case MEMWALK_A_STATUS_SAMPLE_INTERVAL_MS: st->sample_ms = u32_of(d, len); break;
	case MEMWALK_A_STATUS_KRETPROBE_MAXACTIVE: st->maxactive = u32_of(d, len); break;
	case MEMWALK_A_STATUS_DROPS_OVERFLOW: st->drops_overflow = u64_of(d, len); break;
	case MEMWALK_A_STATUS_DROPS_DELIVERY: st->drops_delivery = u64_of(d, len); break;
	case MEMWALK_A_STATUS_GROUP: {
		struct grp_tmp g = { 0 };
		int i;

		walk(d, len, grp_attr, &g);
		i = grp_index(g.name);
		if (i < 0)
			break;
		st->nr_grps_named++;
		snprintf(st->grp[i].name, sizeof(st->grp[i].name), "%s", g.name);
		st->grp[i].seq = g.seq;
		st->grp[i].sent = g.sent;
		st->grp[i].overflow = g.overflow;
		st->grp[i].delivery = g.delivery;
		break;
	}
	case MEMWALK_A_STATUS_CPU:
		walk(d, len, cpu_attr, &st->cpu_overflow);
		st->nr_cpus++;
		break;
	case MEMWALK_A_STATUS_PROBE:
		if (st->nr_probes < MAX_PROBES) {
			walk(d, len, probe_attr, st);
			st->nr_probes++;
		}
		break;
	}
}

/* GET_STATUS; 0, or the errno (ENOENT: no family). */
int status_get(struct status *st)
{
	static struct reply r;
	struct family f;
	struct req q;
	int fd, ret;

	memset(st, 0, sizeof(*st));
	if (family_resolve(&f))
		return ENOENT;
	fd = nl_open();
	if (fd < 0)
		return errno;
	req_init(&q, f.id, MEMWALK_CMD_GET_STATUS, NLM_F_ACK);
	ret = nl_transact(fd, q.buf, q.len, &r, 5000);
	close(fd);
	if (ret)
		return -ret;
	if (!r.answered)
		return ETIMEDOUT;
	if (r.error)
		return r.error;
	if (r.nr_replies != 1)
		return EPROTO;
	walk(r.data + NLMSG_LENGTH(GENL_HDRLEN), r.len - NLMSG_LENGTH(GENL_HDRLEN),
	     status_attr, st);
	return 0;
}

/* ---- the subscriber --------------------------------------------------------- */



static void ev_attr(uint16_t t, const unsigned char *d, size_t len, void *arg)
{
	struct evrec *e = arg;

	switch (t) {
	case MEMWALK_A_EVENT_TYPE: e->type = u32_of(d, len); break;
	case MEMWALK_A_EVENT_SEQ: e->seq = u64_of(d, len); break;
	case MEMWALK_A_EVENT_TIME_NS: e->time_ns = u64_of(d, len); break;
	case MEMWALK_A_EVENT_LEG: e->leg = u32_of(d, len); break;
	case MEMWALK_A_EVENT_LOST: e->lost = u64_of(d, len); break;
	case MEMWALK_A_EVENT_NODE: e->nr_nodes++; break;
	case MEMWALK_A_EVENT_PID: e->pid = u32_of(d, len); e->has_pid = true; break;
	case MEMWALK_A_EVENT_TGID: e->tgid = u32_of(d, len); break;
	case MEMWALK_A_EVENT_MEMCG_PATH: str_of(e->memcg, sizeof(e->memcg), d, len); break;
	case MEMWALK_A_EVENT_NR_RECLAIMED: e->nr_reclaimed = u64_of(d, len); break;
	case MEMWALK_A_EVENT_DURATION_NS: e->has_duration = true; break;
	case MEMWALK_A_OOM_VICTIM_PID: e->victim_pid = u32_of(d, len); break;
	case MEMWALK_A_OOM_VICTIM_TGID: e->victim_tgid = u32_of(d, len); break;
	case MEMWALK_A_OOM_CONSTRAINT:
		e->constraint = u32_of(d, len);
		e->has_constraint = true;
		break;
	case MEMWALK_A_OOM_MEMCG_PATH:
		str_of(e->oom_memcg, sizeof(e->oom_memcg), d, len);
		break;
	}
}

static void sub_add(struct sub *s, const struct evrec *e)
{
	pthread_mutex_lock(&s->lock);
	if (e->type == MEMWALK_EV_LOST)
		s->lost[e->grp] += e->lost;
	if (s->nr == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 4096;
		struct evrec *n = realloc(s->recs, cap * sizeof(*n));

		if (!n) {
			s->malformed++;	/* counted: the test then fails */
			pthread_mutex_unlock(&s->lock);
			return;
		}
		s->recs = n;
		s->cap = cap;
	}
	s->recs[s->nr++] = *e;
	pthread_mutex_unlock(&s->lock);
}

static void sub_dgram(struct sub *s, int grp, const unsigned char *buf, int len,
		      uint64_t t)
{
	const struct nlmsghdr *n;

	for (n = (const void *)buf; NLMSG_OK(n, len); n = NLMSG_NEXT(n, len)) {
		struct evrec e = { .grp = grp, .recv_ns = t };

		if (n->nlmsg_type != s->fam.id)
			continue;
		if (n->nlmsg_len < NLMSG_LENGTH(GENL_HDRLEN) ||
		    ((const struct genlmsghdr *)NLMSG_DATA(n))->cmd != MEMWALK_CMD_EVENT) {
			s->malformed++;
			continue;
		}
		walk((const unsigned char *)n + NLMSG_LENGTH(GENL_HDRLEN),
		     n->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN), ev_attr, &e);
		sub_add(s, &e);
	}
}

static void sub_ctrl(struct sub *s, const unsigned char *buf, int len)
{
	const struct nlmsghdr *n;

	for (n = (const void *)buf; NLMSG_OK(n, len); n = NLMSG_NEXT(n, len)) {
		const struct genlmsghdr *g = NLMSG_DATA(n);
		char name[32] = "";

		if (n->nlmsg_type != GENL_ID_CTRL || g->cmd != CTRL_CMD_DELFAMILY)
			continue;
		{
			const unsigned char *p = (const unsigned char *)g + GENL_HDRLEN;
			size_t l = n->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN);

			while (l >= NLA_HDRLEN) {
				const struct nlattr *a = (const void *)p;

				if (a->nla_len < NLA_HDRLEN || a->nla_len > l)
					break;
				if (a->nla_type == CTRL_ATTR_FAMILY_NAME)
					str_of(name, sizeof(name), p + NLA_HDRLEN,
					       a->nla_len - NLA_HDRLEN);
				if (NLA_ALIGN(a->nla_len) >= l)
					break;
				l -= NLA_ALIGN(a->nla_len);
				p += NLA_ALIGN(a->nla_len);
			}
		}
		if (!strcmp(name, MEMWALK_GENL_NAME))
			s->family_gone = true;
	}
}

static void *sub_thread(void *arg)
{
	static __thread unsigned char buf[1 << 17] __attribute__((aligned(8)));
	struct sub *s = arg;

	while (!s->stop) {
		struct pollfd p[NR_GRPS + 1];
		int idx[NR_GRPS + 1], n = 0, i;

		for (i = 0; i < NR_GRPS; i++) {
			if (s->fd[i] < 0)
				continue;
			p[n].fd = s->fd[i];
			p[n].events = POLLIN;
			idx[n++] = i;
		}
		p[n].fd = s->ctrl_fd;
		p[n].events = POLLIN;
		idx[n++] = -1;
		if (poll(p, n, 50) <= 0)
			continue;
		for (i = 0; i < n; i++) {
			ssize_t got;

			if (!p[i].revents)
				continue;
			got = recv(p[i].fd, buf, sizeof(buf), MSG_DONTWAIT);
			if (got < 0) {
				if (errno == ENOBUFS && idx[i] >= 0)
					s->enobufs[idx[i]]++;
				continue;
			}
			if (idx[i] < 0)
				sub_ctrl(s, buf, got);
			else
				sub_dgram(s, idx[i], buf, got, now_ns());
		}
	}
	return NULL;
}

/* A socket in @group, or -errno. */
static int join_fd(int group)
{
	int fd = nl_open(), size = 32 << 20, err;

	if (fd < 0)
		return -errno;
	setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size));
	if (setsockopt(fd, SOL_NETLINK, NETLINK_ADD_MEMBERSHIP, &group, sizeof(group))) {
		err = -errno;
		close(fd);
		return err;
	}
	return fd;
}

/* Subscribe to the groups in @mask (1 << GRP_*) and start collecting. */
int sub_start(struct sub *s, unsigned int mask)
{
	int i, ret;

	memset(s, 0, sizeof(*s));
	for (i = 0; i < NR_GRPS; i++)
		s->fd[i] = -1;
	s->ctrl_fd = -1;
	pthread_mutex_init(&s->lock, NULL);
	if (family_resolve(&s->fam))
		return -ENOENT;
	for (i = 0; i < NR_GRPS; i++) {
		if (!(mask & (1u << i)))
			continue;
		ret = join_fd(s->fam.grp[i]);
		if (ret < 0)
			return ret;
		s->fd[i] = ret;
	}
	ret = join_fd(s->fam.ctrl_notify);
	if (ret < 0)
		return ret;
	s->ctrl_fd = ret;
	ret = pthread_create(&s->thread, NULL, sub_thread, s);
	if (ret)
		return -ret;
	s->running = true;
	return 0;
}

void sub_stop(struct sub *s)
{
	int i;

	if (s->running) {
		s->stop = true;
		pthread_join(s->thread, NULL);
		s->running = false;
	}
	for (i = 0; i < NR_GRPS; i++)
		if (s->fd[i] >= 0)
			close(s->fd[i]);
	if (s->ctrl_fd >= 0)
		close(s->ctrl_fd);
	s->ctrl_fd = -1;
	for (i = 0; i < NR_GRPS; i++)
		s->fd[i] = -1;
	free(s->recs);
	s->recs = NULL;
	s->nr = s->cap = 0;
}

/* Events of @grp with seq in (lo, hi] received so far. */
static uint64_t sub_count_range(struct sub *s, int grp, uint64_t lo, uint64_t hi)
{
	uint64_t n = 0;
	size_t i;

	pthread_mutex_lock(&s->lock);
	for (i = 0; i < s->nr; i++)
		if (s->recs[i].grp == grp && s->recs[i].type != MEMWALK_EV_LOST &&
		    s->recs[i].seq > lo && s->recs[i].seq <= hi)
			n++;
	pthread_mutex_unlock(&s->lock);
	return n;
}

/*
 * Wait up to @ms for every seq of @grp in (lo, hi] to be accounted for:
 * received, or counted in a LOST record.  Returns the number received.
 */
uint64_t sub_wait(struct sub *s, int grp, uint64_t lo, uint64_t hi,
		  unsigned int ms)
{
	uint64_t got = 0, deadline = now_ns() + ms * 1000000ULL;

	for (;;) {
		uint64_t lost;

		got = sub_count_range(s, grp, lo, hi);
		pthread_mutex_lock(&s->lock);
		lost = s->lost[grp];
		pthread_mutex_unlock(&s->lock);
		if (got + lost >= hi - lo || now_ns() > deadline)
			return got;
		msleep(20);
	}
}

struct tally sub_tally(struct sub *s, int grp, uint32_t type, uint64_t lo,
		       uint64_t hi, uint32_t pid, const char *memcg)
{
	struct tally t = { 0 };
	size_t i;

	pthread_mutex_lock(&s->lock);
	for (i = 0; i < s->nr; i++) {
		const struct evrec *e = &s->recs[i];

		if (e->grp != grp || e->type != type || e->seq <= lo || e->seq > hi)
			continue;
		if (memcg && strcmp(e->memcg, memcg))
			continue;
		if (!t.n++)
			t.leg = e->leg;
		else if (e->leg != t.leg)
			t.other_legs++;
		if (e->has_pid && e->pid == pid)
			t.with_pid++;
		t.with_task += e->has_pid;
		t.without_nodes += !e->nr_nodes;
		t.nr_reclaimed += e->nr_reclaimed;
	}
	pthread_mutex_unlock(&s->lock);
	return t;
}

/* ---- /proc/vmstat ----------------------------------------------------------- */


void vmstat_read(struct vmstat *v)
{
	char line[128], key[96];
	unsigned long long val;
	FILE *f = fopen("/proc/vmstat", "re");

	memset(v, 0, sizeof(*v));
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%95s %llu", key, &val) != 2)
			continue;
		if (!strncmp(key, "allocstall_", 11))
			v->allocstall += val;
		else if (!strcmp(key, "pageoutrun"))
			v->pageoutrun = val;
		else if (!strcmp(key, "kswapd_low_wmark_hit_quickly"))
			v->lwhq = val;
		else if (!strcmp(key, "kswapd_high_wmark_hit_quickly"))
			v->hwhq = val;
		else if (!strcmp(key, "oom_kill"))
			v->oom_kill = val;
		else if (!strcmp(key, "pgscan_direct_throttle"))
			v->throttle = val;
		else if (!strcmp(key, "pgsteal_kswapd"))
			v->pgsteal_kswapd = val;
	}
	fclose(f);
}

uint64_t meminfo(const char *key)
{
	char line[128], k[64];
	unsigned long long val;
	uint64_t ret = 0;
	FILE *f = fopen("/proc/meminfo", "re");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%63[^:]: %llu", k, &val) == 2 && !strcmp(k, key))
			ret = val * 1024;
	fclose(f);
	return ret;
}

/* ---- cgroups, swap, the module --------------------------------------------- */

int cg_write(const char *cg, const char *file, const char *val)
{
	char path[256];

	snprintf(path, sizeof(path), CG "/%s/%s", cg, file);
	return mw_write_file(path, val);
}

long long flat_key(const char *path, const char *key)
{
	static char buf[16384];	/* memory.stat is the largest */
	size_t klen = strlen(key);
	char *p;

	if (mw_read_file(path, buf, sizeof(buf)))
		return -1;
	for (p = buf; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, key, klen) && p[klen] == ' ')
			return atoll(p + klen + 1);
	return -1;
}

/* A key of memory.events (flat keyed file); -1 if absent. */
long long cg_event(const char *cg, const char *key)
{
	char path[256];

	snprintf(path, sizeof(path), CG "/%s/memory.events", cg);
	return flat_key(path, key);
}

/* Kill what is left in @cg and remove it; quiet if there is no such cgroup. */
void cg_remove(const char *cg)
{
	char path[256];
	int i;

	snprintf(path, sizeof(path), CG "/%s", cg);
	if (access(path, F_OK))
		return;
	cg_write(cg, "cgroup.kill", "1");
	for (i = 0; i < 100 && rmdir(path) && errno == EBUSY; i++)
		msleep(20);
}

/* A fresh cgroup @cg with memory.max @max (bytes, 0: max) and swap.max. */
int cg_create(const char *cg, uint64_t max, bool swap)
{
	char path[256], val[32];

	cg_remove(cg);
	mw_write_file(CG "/cgroup.subtree_control", "+memory");
	snprintf(path, sizeof(path), CG "/%s", cg);
	if (mkdir(path, 0755))
		return -errno;
	if (max) {
		snprintf(val, sizeof(val), "%" PRIu64, max);
		if (cg_write(cg, "memory.max", val))
			return -EIO;
	}
	if (!swap && cg_write(cg, "memory.swap.max", "0"))
		return -EIO;
	return 0;
}

bool swap_active(void)
{
	char buf[4096];

	/* The header line only, or a device under it. */
	return !mw_read_file("/proc/swaps", buf, sizeof(buf)) &&
	       strchr(buf, '\n') && strchr(buf, '\n')[1];
}

/*
 * Swap on zram0 (2 GiB: same-filled pages cost nothing) unless some swap
 * is on.  Returns 1 if we turned it on (so turn it off), 0 if it was on,
 * -EOPNOTSUPP if the kernel offers none (no CONFIG_SWAP, or no zram0), or
 * another -errno with @why saying which step failed.
 */
int swap_on_why(char *why, size_t len)
{
	const char *mkswap[] = { "mkswap", "/dev/zram0", NULL };
	struct mw_run r;
	int ret;

	snprintf(why, len, "no swap");
	if (access("/proc/swaps", F_OK)) {
		snprintf(why, len, "kernel without swap (CONFIG_SWAP)");
		return -EOPNOTSUPP;
	}
	if (swap_active())
		return 0;
	if (access(ZRAM, F_OK)) {
		snprintf(why, len, "no swap device and no zram0 (CONFIG_ZRAM, or zram not loaded)");
		return -EOPNOTSUPP;
	}
	mw_write_file(ZRAM "/reset", "1");
	ret = mw_write_file(ZRAM "/disksize", "2G");
	if (ret) {
		snprintf(why, len, "%s/disksize: %s", ZRAM, strerror(-ret));
		return ret;
	}
	ret = mw_run(&r, 0, mkswap);
	if (ret || mw_exit_code(&r)) {
		snprintf(why, len, "mkswap /dev/zram0: %s", ret ? strerror(-ret) : r.err);
		return ret ?: -EIO;
	}
	if (swapon("/dev/zram0", 0)) {
		ret = -errno;
		snprintf(why, len, "swapon /dev/zram0: %s", strerror(errno));
		return ret;
	}
	return 1;
}

int swap_on(void)
{
	char why[128];
	int ret = swap_on_why(why, sizeof(why));

	return ret < 0 ? -1 : ret;
}

void swap_off(void)
{
	swapoff("/dev/zram0");
	mw_write_file(ZRAM "/reset", "1");
}

const char *ko_path(void)
{
	const char *ko = getenv("MEMWALK_KO");

	return ko && *ko ? ko : KO_DEFAULT;
}

bool module_loaded(void)
{
	return access("/sys/module/memwalk", F_OK) == 0;
}

int module_unload(struct mw_run *r)
{
	const char *argv[] = { "rmmod", "memwalk", NULL };

	if (mw_run(r, 0, argv))
		return -1;
	return mw_exit_code(r);
}

/* insmod with @param (NULL: defaults). */
int module_load(struct mw_run *r, const char *param)
{
	return module_load2(r, param, NULL);
}

/* insmod with up to two NAME=VALUE parameters (NULL: none). */
int module_load2(struct mw_run *r, const char *p1, const char *p2)
{
	const char *argv[] = { "insmod", ko_path(), p1, p1 ? p2 : NULL, NULL };

	if (mw_run(r, 0, argv))
		return -1;
	return mw_exit_code(r);
}

/* A module parameter's value, or ~0u when it cannot be read. */
unsigned int module_param_value(const char *name)
{
	char path[128], buf[32];

	snprintf(path, sizeof(path), MOD_PARAMS "/%s", name);
	return mw_read_file(path, buf, sizeof(buf)) ? ~0u : (unsigned int)atoi(buf);
}

/*
 * Back to the module with default parameters, whatever state it is in.
 * NULL, or what failed (rmmod's or insmod's words, in a static buffer).
 */
const char *module_defaults(void)
{
	static char why[1024];
	static struct mw_run r;

	if (module_loaded() && module_param_value("buffer_events") == 128 &&
	    module_param_value("delivery_delay_ms") == 10)
		return NULL;
	if (module_loaded() && module_unload(&r)) {
		snprintf(why, sizeof(why), "rmmod memwalk: status %#x: %.900s", r.status, r.err);
		return why;
	}
	if (module_load(&r, NULL)) {
		snprintf(why, sizeof(why), "insmod %.80s: status %#x: %.900s", ko_path(), r.status, r.err);
		return why;
	}
	return NULL;
}

/* ---- workloads --------------------------------------------------------------- */

/*
 * Child: join @cg (NULL: stay), oom_score_adj @adj, then fill @bytes of
 * anonymous memory page by page, @passes times (0: until killed), each
 * page with one byte value.  Exits 0.
 */
pid_t spawn_hog_paced(const char *cg, size_t bytes, int passes, int adj,
		     unsigned int chunks, unsigned int pause_ms)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t off, chunk;
	unsigned char *p;
	char val[16];
	pid_t pid;
	int pass;

	fflush(NULL);
	pid = fork();
	if (pid)
		return pid;
	if (cg && cg_write(cg, "cgroup.procs", "0"))
		_exit(120);
	snprintf(val, sizeof(val), "%d", adj);
	mw_write_file("/proc/self/oom_score_adj", val);
	p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		_exit(121);
	/* Base pages only: every fault one charge, one allocation. */
	madvise(p, bytes, MADV_NOHUGEPAGE);
	chunk = chunks > 1 ? (bytes / chunks + page - 1) / page * page : bytes;
	for (pass = 0; !passes || pass < passes; pass++) {
		for (off = 0; off < bytes; off += page) {
			if (chunks > 1 && off && off % chunk == 0)
				msleep(pause_ms);
			memset(p + off, 0x5a + (pass & 0x1f), page);
		}
	}
	_exit(0);
}

pid_t spawn_hog(const char *cg, size_t bytes, int passes, int adj)
{
	return spawn_hog_paced(cg, bytes, passes, adj, 1, 0);
}

/* waitpid with a deadline; the child is killed past it.  Returns the status. */
int wait_child(pid_t pid, unsigned int seconds)
{
	uint64_t deadline = now_ns() + seconds * NSEC;
	int status = 0;

	for (;;) {
		pid_t got = waitpid(pid, &status, WNOHANG);

		if (got == pid)
			return status;
		if (got < 0)
			return -1;
		if (now_ns() > deadline) {
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			return -2;
		}
		msleep(20);
	}
}

/*
 * Wait until nothing reclaims: the reclaim group's seq and pageoutrun
 * unchanged over @quiet_ms, for at most @max_ms.  True if it got quiet.
 */
bool settle(unsigned int quiet_ms, unsigned int max_ms)
{
	uint64_t deadline = now_ns() + max_ms * 1000000ULL;
	struct status a, b;
	struct vmstat va, vb;

	while (now_ns() < deadline) {
		vmstat_read(&va);
		if (status_get(&a))
			return false;
		msleep(quiet_ms);
		vmstat_read(&vb);
		if (status_get(&b))
			return false;
		if (a.grp[GRP_RECLAIM].seq == b.grp[GRP_RECLAIM].seq &&
		    va.pageoutrun == vb.pageoutrun && va.allocstall == vb.allocstall)
			return true;
	}
	return false;
}

/* ---- the client in the background ---------------------------------------------- */


int bg_start(struct bg *b, const char *const argv[])
{
	fflush(NULL);
	b->out = memfd_create("out", MFD_CLOEXEC);
	b->err = memfd_create("err", MFD_CLOEXEC);
	if (b->out < 0 || b->err < 0)
		return -1;
	b->pid = fork();
	if (b->pid < 0)
		return -1;
	if (!b->pid) {
		int null = open("/dev/null", O_RDONLY);

		dup2(null, 0);
		dup2(b->out, 1);
		dup2(b->err, 2);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	return 0;
}

/* Read all @fd holds (a memfd) into @buf. */
void bg_read(int fd, char *buf, size_t len)
{
	ssize_t n = pread(fd, buf, len - 1, 0);

	buf[n > 0 ? n : 0] = '\0';
}

bool bg_wait_for(struct bg *b, bool err, const char *needle, unsigned int ms)
{
	static char buf[1 << 16];
	uint64_t deadline = now_ns() + ms * 1000000ULL;

	while (now_ns() < deadline) {
		bg_read(err ? b->err : b->out, buf, sizeof(buf));
		if (strstr(buf, needle))
			return true;
		msleep(50);
	}
	return false;
}

/* Stop it with @sig (0: let it end) and return its wait status. */
int bg_stop(struct bg *b, int sig, unsigned int seconds)
{
	if (sig)
		kill(b->pid, sig);
	return wait_child(b->pid, seconds);
}

/* The client's summary line: "N events shown, F filtered out; lost: L reported..." */

bool parse_summary(const char *err, struct summary *s)
{
	const char *p = strstr(err, " events shown, ");

	while (p && p > err && p[-1] >= '0' && p[-1] <= '9')
		p--;
	return p && sscanf(p, "%llu events shown, %llu filtered out; lost: %llu reported by the module, %llu missing by sequence number, %llu socket overflows",
			   &s->events, &s->filtered, &s->lost, &s->missing,
			   &s->overflows) == 5;
}


// SPDX-License-Identifier: GPL-2.0
/*
 * The event stream's parts without the module: messages are built with
 * libnl the way the module builds them, then parsed, accounted and
 * printed.  Run by events-tests.sh:
 *
 *   events-test parse|seq|filter|gfp|story|pairing   check, exit 1 on a failure
 *   events-test text|json          print the scenario stream (compared by the script)
 *   events-test replay FILE        write the scenario as a replay file for
 *                                  memwalk-client events (MEMWALK_EVENTS_REPLAY)
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <netlink/genl/genl.h>
#include <netlink/netlink.h>

#include <linux/genetlink.h>

#include "evprint.h"
#include "genl.h"
#include "print.h"

#define FAMILY		0x1d	/* any id: the client takes the family's */
#define SEC		1000000000ULL
#define MS		1000000ULL
#define T0		(100 * SEC)

static int failures;

static void check(bool ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void check(bool ok, const char *fmt, ...)
{
	va_list ap;

	if (ok)
		return;
	failures++;
	fprintf(stderr, "FAIL: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

#define CHECK_EQ(want, got) \
	check((uint64_t)(want) == (uint64_t)(got), "%s:%d: %s == %s: want %" PRIu64 ", got %" PRIu64, \
	      __FILE__, __LINE__, #want, #got, (uint64_t)(want), (uint64_t)(got))
#define CHECK_STR(want, got) \
	check((got) && !strcmp((want), (got)), "%s:%d: %s: want \"%s\", got \"%s\"", \
	      __FILE__, __LINE__, #got, (want), (got) ? (got) : "(null)")

/* ---- building messages --------------------------------------------------------- */

static struct nl_msg *ev_new(uint32_t type, uint64_t seq, uint64_t t, uint32_t leg)
{
	struct nl_msg *m = nlmsg_alloc_size(1 << 16);

	if (!m || !genlmsg_put(m, 0, 0, FAMILY, 0, 0, MEMWALK_CMD_EVENT, 1))
		abort();
	nla_put_u32(m, MEMWALK_A_EVENT_TYPE, type);
	if (seq) {
		nla_put(m, MEMWALK_A_PAD, 0, NULL);	/* as nla_put_u64_64bit may */
		nla_put_u64(m, MEMWALK_A_EVENT_SEQ, seq);
	}
	nla_put_u32(m, MEMWALK_A_EVENT_CPU, 1);
	nla_put_u64(m, MEMWALK_A_EVENT_TIME_NS, t);
	nla_put_u32(m, MEMWALK_A_EVENT_LEG, leg);
	return m;
}

static void put_task(struct nl_msg *m, uint32_t pid, uint32_t tgid,
		     const char *comm, const char *memcg, uint64_t memcg_id)
{
	nla_put_u32(m, MEMWALK_A_EVENT_PID, pid);
	nla_put_u32(m, MEMWALK_A_EVENT_TGID, tgid);
	nla_put_string(m, MEMWALK_A_EVENT_COMM, comm);
	if (memcg) {
		nla_put_string(m, MEMWALK_A_EVENT_MEMCG_PATH, memcg);
		nla_put_u64(m, MEMWALK_A_EVENT_MEMCG_ID, memcg_id);
	}
}

/* Pages of node 0, in MEMWALK_A_NODE_ACTIVE_ANON.. order; node N has N + 1 times. */
static const uint64_t node_pages[MW_N_ITEMS] = {
	10000, 20000, 30000, 40000, 0, 5000, 100, 200, 300,
};

static void put_node(struct nl_msg *m, uint32_t id)
{
	struct nlattr *nest = nla_nest_start(m, MEMWALK_A_EVENT_NODE);
	int i;

	nla_put_u32(m, MEMWALK_A_NODE_ID, id);
	for (i = 0; i < MW_N_ITEMS; i++)
		nla_put_u64(m, MEMWALK_A_NODE_ACTIVE_ANON + i, (id + 1) * node_pages[i]);
	nla_nest_end(m, nest);
}

static struct nl_msg *lost_new(uint64_t t, uint64_t lost)
{
	struct nl_msg *m = ev_new(MEMWALK_EV_LOST, 0, t, MEMWALK_LEG_NONE);

	nla_put_u64(m, MEMWALK_A_EVENT_LOST, lost);
	return m;
}

static struct nl_msg *oom_new(uint64_t seq, uint64_t t)
{
	struct nl_msg *m = ev_new(MEMWALK_EV_OOM_KILL, seq, t, MEMWALK_LEG_TRACEPOINT);

	put_task(m, 500, 500, "hog", "/test/child", 77);
	nla_put_s32(m, MEMWALK_A_EVENT_ORDER, 0);
	nla_put_u32(m, MEMWALK_A_OOM_VICTIM_PID, 501);
	nla_put_u32(m, MEMWALK_A_OOM_VICTIM_TGID, 501);
	nla_put_string(m, MEMWALK_A_OOM_VICTIM_COMM, "big \"one\"");
	nla_put_u32(m, MEMWALK_A_OOM_VICTIM_UID, 1000);
	nla_put_string(m, MEMWALK_A_OOM_VICTIM_MEMCG_PATH, "/test/child");
	nla_put_u64(m, MEMWALK_A_OOM_VICTIM_MEMCG_ID, 77);
	nla_put_u64(m, MEMWALK_A_OOM_TOTAL_VM, 70000);
	nla_put_u64(m, MEMWALK_A_OOM_RSS_ANON, 60000);
	nla_put_u64(m, MEMWALK_A_OOM_RSS_FILE, 100);
	nla_put_u64(m, MEMWALK_A_OOM_RSS_SHMEM, 2);
	nla_put_s32(m, MEMWALK_A_OOM_SCORE_ADJ, -17);
	nla_put_u32(m, MEMWALK_A_OOM_CONSTRAINT, MEMWALK_OOM_CONSTRAINT_MEMCG);
	nla_put_string(m, MEMWALK_A_OOM_MEMCG_PATH, "/test");
	nla_put_u64(m, MEMWALK_A_OOM_MEMCG_ID, 70);
	nla_put_s64(m, MEMWALK_A_OOM_POINTS, -5);
	nla_put_u64(m, MEMWALK_A_OOM_TOTALPAGES, 65536);
	put_node(m, 0);
	return m;
}

/*
 * The scenario: kswapd wakes and runs, the hog stalls in direct reclaim
 * (end paired with its begin) and in memcg reclaim (kretprobe leg: the end
 * has its duration), three reclaim events are lost (LOST and a seq gap),
 * the hog's sibling is OOM-killed, an LRU sample, an event type from a
 * newer module.
 */
struct item {
	enum mw_group grp;
	struct nl_msg *m;	/* NULL: an ENOBUFS on the group's socket */
};

static unsigned int scenario(struct item *it)
{
	struct nl_msg *m;
	unsigned int n = 0;

	m = ev_new(MEMWALK_EV_KSWAPD_WAKE, 1, T0, MEMWALK_LEG_TRACEPOINT);
	nla_put_u32(m, MEMWALK_A_EVENT_NID, 0);
	nla_put_u32(m, MEMWALK_A_EVENT_ZID, 2);
	nla_put_s32(m, MEMWALK_A_EVENT_ORDER, 0);
	nla_put_u32(m, MEMWALK_A_EVENT_GFP, 0x140cca);
	put_node(m, 0);
	it[n++] = (struct item){ MW_GRP_RECLAIM, m };

	m = ev_new(MEMWALK_EV_KSWAPD_RUN_BEGIN, 2, T0 + 100000, MEMWALK_LEG_TRACEPOINT);
	nla_put_u32(m, MEMWALK_A_EVENT_NID, 0);
	nla_put_u32(m, MEMWALK_A_EVENT_ZID, 2);
	nla_put_s32(m, MEMWALK_A_EVENT_ORDER, 0);
	put_node(m, 0);
	it[n++] = (struct item){ MW_GRP_RECLAIM, m };

	m = ev_new(MEMWALK_EV_DIRECT_RECLAIM_BEGIN, 3, T0 + 1 * MS, MEMWALK_LEG_TRACEPOINT);
	put_task(m, 500, 500, "hog", "/test/child", 77);
	nla_put_s32(m, MEMWALK_A_EVENT_ORDER, 0);
	nla_put_u32(m, MEMWALK_A_EVENT_GFP, 0x100cca);
	put_node(m, 0);
	put_node(m, 1);
	it[n++] = (struct item){ MW_GRP_RECLAIM, m };

	m = ev_new(MEMWALK_EV_DIRECT_RECLAIM_END, 4, T0 + 3500000, MEMWALK_LEG_TRACEPOINT);
	put_task(m, 500, 500, "hog", "/test/child", 77);
	nla_put_u64(m, MEMWALK_A_EVENT_NR_RECLAIMED, 32);
	put_node(m, 0);
	it[n++] = (struct item){ MW_GRP_RECLAIM, m };

	it[n++] = (struct item){ MW_GRP_RECLAIM, lost_new(T0 + 5 * MS, 3) };

	m = ev_new(MEMWALK_EV_MEMCG_RECLAIM_BEGIN, 8, T0 + 10 * MS, MEMWALK_LEG_KPROBE);
	put_task(m, 502, 500, "hog-thread", "/test/child", 77);
	nla_put_u32(m, MEMWALK_A_EVENT_GFP, 0xcc0);
	put_node(m, 0);
	it[n++] = (struct item){ MW_GRP_RECLAIM, m };

	m = ev_new(MEMWALK_EV_MEMCG_RECLAIM_END, 9, T0 + 10350000, MEMWALK_LEG_KRETPROBE);
	put_task(m, 502, 500, "hog-thread", "/test/child", 77);
	nla_put_u32(m, MEMWALK_A_EVENT_GFP, 0xcc0);
	nla_put_u64(m, MEMWALK_A_EVENT_NR_RECLAIMED, 0);
	nla_put_u64(m, MEMWALK_A_EVENT_DURATION_NS, 350000);
	put_node(m, 0);
	it[n++] = (struct item){ MW_GRP_RECLAIM, m };

	/* Another cgroup's stall: not in the OOM domain. */
	m = ev_new(MEMWALK_EV_MEMCG_RECLAIM_BEGIN, 10, T0 + 11 * MS, MEMWALK_LEG_TRACEPOINT);
	put_task(m, 600, 600, "other", "/testing", 80);
	nla_put_u32(m, MEMWALK_A_EVENT_GFP, 0xcc0);
	put_node(m, 0);
	it[n++] = (struct item){ MW_GRP_RECLAIM, m };

	it[n++] = (struct item){ MW_GRP_RECLAIM, NULL };	/* ENOBUFS */

	m = ev_new(MEMWALK_EV_KSWAPD_RUN_END, 11, T0 + 20 * MS, MEMWALK_LEG_TRACEPOINT);
	nla_put_u32(m, MEMWALK_A_EVENT_NID, 0);
	nla_put_u32(m, MEMWALK_A_EVENT_ZID, 2);
	nla_put_s32(m, MEMWALK_A_EVENT_RECLAIM_ORDER, 0);
	nla_put_u64(m, MEMWALK_A_EVENT_NR_RECLAIMED, 1000);
	put_node(m, 0);
	it[n++] = (struct item){ MW_GRP_RECLAIM, m };

	it[n++] = (struct item){ MW_GRP_OOM, oom_new(1, T0 + 30 * MS) };

	m = ev_new(MEMWALK_EV_LRU_SAMPLE, 1, T0 + 40 * MS, MEMWALK_LEG_SAMPLER);
	put_node(m, 0);
	put_node(m, 1);
	it[n++] = (struct item){ MW_GRP_LRU, m };

	m = ev_new(MEMWALK_EV_MAX + 5, 12, T0 + 50 * MS, 99);
	nla_put_u32(m, 250, 7);		/* an attribute from the future */
	it[n++] = (struct item){ MW_GRP_RECLAIM, m };
	return n;
}

/* ---- the checks --------------------------------------------------------------------- */

static int parse_msg(struct nl_msg *m, struct mw_event *ev, const char **why)
{
	return mw_event_parse(nlmsg_hdr(m), ev, why);
}

static void test_parse(void)
{
	static struct mw_event ev;
	struct nl_msg *m;
	const char *why = NULL;
	int i;

	m = oom_new(42, T0);
	CHECK_EQ(0, parse_msg(m, &ev, &why));
	CHECK_EQ(MEMWALK_EV_OOM_KILL, ev.type);
	CHECK_EQ(42, ev.seq);
	CHECK_EQ(1, ev.cpu);
	CHECK_EQ(T0, ev.time_ns);
	CHECK_EQ(MEMWALK_LEG_TRACEPOINT, ev.leg);
	CHECK_EQ(500, ev.pid);
	CHECK_EQ(500, ev.tgid);
	CHECK_STR("hog", ev.comm);
	CHECK_STR("/test/child", ev.memcg_path);
	CHECK_EQ(77, ev.memcg_id);
	CHECK_EQ(501, ev.victim_pid);
	CHECK_STR("big \"one\"", ev.victim_comm);
	CHECK_EQ(1000, ev.victim_uid);
	CHECK_EQ(70000, ev.total_vm);
	CHECK_EQ(60000, ev.rss_anon);
	CHECK_EQ(100, ev.rss_file);
	CHECK_EQ(2, ev.rss_shmem);
	CHECK_EQ(-17, ev.score_adj);
	CHECK_EQ(MEMWALK_OOM_CONSTRAINT_MEMCG, ev.constraint);
	CHECK_STR("/test", ev.oom_memcg_path);
	CHECK_EQ(70, ev.oom_memcg_id);
	CHECK_EQ(-5, ev.points);
	CHECK_EQ(65536, ev.totalpages);
	CHECK_EQ(1, ev.nr_nodes);
	CHECK_EQ(0, ev.nodes[0].id);
	CHECK_EQ(10000, ev.nodes[0].v[MW_N_ACTIVE_ANON]);
	CHECK_EQ(300, ev.nodes[0].v[MW_N_WMARK_HIGH]);
	CHECK_EQ(0, ev.nodes[0].v[MW_N_UNEVICTABLE]);
	CHECK_EQ((1u << MW_N_ITEMS) - 1, ev.nodes[0].has);
	check(!(ev.has & MW_HAS(MEMWALK_A_EVENT_NID)), "NID absent but marked present");
	check(ev.has & MW_HAS(MEMWALK_A_EVENT_ORDER), "ORDER present but not marked");
	nlmsg_free(m);

	/* Unknown attributes are skipped; nodes beyond the array are counted. */
	m = ev_new(MEMWALK_EV_LRU_SAMPLE, 1, T0, MEMWALK_LEG_SAMPLER);
	nla_put_u32(m, 250, 1);
	for (i = 0; i < MW_EV_MAX_NODES + 3; i++)
		put_node(m, i);
	CHECK_EQ(0, parse_msg(m, &ev, &why));
	CHECK_EQ(1, ev.unknown_attrs);
	CHECK_EQ(MW_EV_MAX_NODES, ev.nr_nodes);
	CHECK_EQ(3, ev.nodes_dropped);
	CHECK_EQ(MW_EV_MAX_NODES - 1, ev.nodes[MW_EV_MAX_NODES - 1].id);
	nlmsg_free(m);

	/* A u32 of the wrong size. */
	m = ev_new(MEMWALK_EV_KSWAPD_WAKE, 1, T0, MEMWALK_LEG_TRACEPOINT);
	nla_put_u64(m, MEMWALK_A_EVENT_NID, 1);
	check(parse_msg(m, &ev, &why) == -EBADMSG, "8-byte NID accepted");
	CHECK_STR("attribute of the wrong size", why);
	nlmsg_free(m);

	/* A string without its NUL. */
	m = ev_new(MEMWALK_EV_DIRECT_RECLAIM_BEGIN, 1, T0, MEMWALK_LEG_TRACEPOINT);
	nla_put(m, MEMWALK_A_EVENT_COMM, 3, "hog");
	check(parse_msg(m, &ev, &why) == -EBADMSG, "comm without NUL accepted");
	CHECK_STR("attribute of the wrong size", why);
	nlmsg_free(m);

	/* A node counter of the wrong size. */
	m = ev_new(MEMWALK_EV_LRU_SAMPLE, 1, T0, MEMWALK_LEG_SAMPLER);
	{
		struct nlattr *nest = nla_nest_start(m, MEMWALK_A_EVENT_NODE);

		nla_put_u32(m, MEMWALK_A_NODE_FREE, 5);
		nla_nest_end(m, nest);
	}
	check(parse_msg(m, &ev, &why) == -EBADMSG, "4-byte node counter accepted");
	CHECK_STR("malformed MEMWALK_A_EVENT_NODE", why);
	nlmsg_free(m);

	/* Bytes after a node's last attribute that are no attribute. */
	m = ev_new(MEMWALK_EV_LRU_SAMPLE, 1, T0, MEMWALK_LEG_SAMPLER);
	{
		struct nlattr *nest = nla_nest_start(m, MEMWALK_A_EVENT_NODE);

		nla_put_u32(m, MEMWALK_A_NODE_ID, 0);
		memset(nlmsg_reserve(m, 2, 0), 0, 2);
		nla_nest_end(m, nest);
	}
	check(parse_msg(m, &ev, &why) == -EBADMSG, "node with trailing bytes accepted");
	CHECK_STR("malformed MEMWALK_A_EVENT_NODE", why);
	nlmsg_free(m);

	/* Bytes after the message's last attribute that are no attribute. */
	m = ev_new(MEMWALK_EV_KSWAPD_WAKE, 1, T0, MEMWALK_LEG_TRACEPOINT);
	memset(nlmsg_reserve(m, 2, 0), 0, 2);
	check(parse_msg(m, &ev, &why) == -EBADMSG, "event with trailing bytes accepted");
	CHECK_STR("malformed attributes", why);
	nlmsg_free(m);

	/* No type. */
	m = nlmsg_alloc();
	genlmsg_put(m, 0, 0, FAMILY, 0, 0, MEMWALK_CMD_EVENT, 1);
	nla_put_u64(m, MEMWALK_A_EVENT_SEQ, 1);
	check(parse_msg(m, &ev, &why) == -EBADMSG, "event without a type accepted");
	CHECK_STR("no MEMWALK_A_EVENT_TYPE", why);
	nlmsg_free(m);

	/* Another command. */
	m = nlmsg_alloc();
	genlmsg_put(m, 0, 0, FAMILY, 0, 0, MEMWALK_CMD_GET_STATUS, 1);
	nla_put_u32(m, MEMWALK_A_EVENT_TYPE, 2);
	check(parse_msg(m, &ev, &why) == -EBADMSG, "GET_STATUS accepted as an event");
	CHECK_STR("not a MEMWALK_CMD_EVENT message", why);
	nlmsg_free(m);

	/* An attribute that runs past the end of the message. */
	m = ev_new(MEMWALK_EV_KSWAPD_WAKE, 1, T0, MEMWALK_LEG_TRACEPOINT);
	{
		struct nlmsghdr *nlh = nlmsg_hdr(m);
		struct nlattr *last = (struct nlattr *)((char *)nlh + nlh->nlmsg_len - 8);

		last->nla_len += 16;	/* TIME_NS/LEG area now claims bytes it lacks */
	}
	check(parse_msg(m, &ev, &why) == -EBADMSG, "attribute overrunning the message accepted");
	CHECK_STR("malformed attributes", why);
	nlmsg_free(m);

	/* Shorter than the generic netlink header. */
	m = nlmsg_alloc();
	nlmsg_put(m, 0, 0, FAMILY, 2, 0);
	check(parse_msg(m, &ev, &why) == -EBADMSG, "message without genlmsghdr accepted");
	nlmsg_free(m);

	/* nlctrl's word that a family went (the module was unloaded), or came. */
	for (i = 0; i < 2; i++) {
		m = nlmsg_alloc();
		genlmsg_put(m, 0, 0, GENL_ID_CTRL, 0, 0,
			    i ? CTRL_CMD_NEWFAMILY : CTRL_CMD_DELFAMILY, 2);
		nla_put_u16(m, CTRL_ATTR_FAMILY_ID, FAMILY);
		nla_put_string(m, CTRL_ATTR_FAMILY_NAME, MEMWALK_GENL_NAME);
		check(mw_genl_family_deleted(nlmsg_hdr(m), MEMWALK_GENL_NAME) == !i,
		      "CTRL_CMD_%sFAMILY misread", i ? "NEW" : "DEL");
		check(!mw_genl_family_deleted(nlmsg_hdr(m), "nlctrl"),
		      "another family's CTRL_CMD_%sFAMILY taken for ours", i ? "NEW" : "DEL");
		nlmsg_free(m);
	}
}

static void test_status(void)
{
	static struct mw_status st;
	struct nlattr *nest;
	struct nl_msg *m = nlmsg_alloc();
	const char *why;
	int i;

	genlmsg_put(m, 0, 0, FAMILY, 0, 0, MEMWALK_CMD_GET_STATUS, 1);
	nla_put_string(m, MEMWALK_A_MODULE_VERSION, "0.2.0");
	nla_put_u32(m, MEMWALK_A_UAPI_VERSION, 1);
	nla_put_string(m, MEMWALK_A_RELEASE, "6.1.0-56-amd64");
	nla_put_u32(m, MEMWALK_A_STATUS_PAGE_SIZE, 4096);
	nla_put_u32(m, MEMWALK_A_STATUS_BUFFER_EVENTS, 128);
	for (i = 0; i < 3; i++) {
		nest = nla_nest_start(m, MEMWALK_A_STATUS_GROUP);
		nla_put_string(m, MEMWALK_A_GROUP_NAME, mw_group_name(i));
		nla_put_u64(m, MEMWALK_A_GROUP_SEQ, 10 + i);
		nla_nest_end(m, nest);
	}
	nest = nla_nest_start(m, MEMWALK_A_STATUS_PROBE);
	nla_put_string(m, MEMWALK_A_PROBE_NAME, "mark_victim");
	nla_put_s32(m, MEMWALK_A_PROBE_ERROR, -2);
	nla_nest_end(m, nest);
	CHECK_EQ(0, mw_status_parse(nlmsg_hdr(m), &st, &why));
	CHECK_STR("6.1.0-56-amd64", st.release);
	CHECK_EQ(4096, st.page_size);
	CHECK_EQ(3, st.nr_groups);
	CHECK_EQ(12, mw_status_group(&st, "lru")->seq);
	check(!mw_status_group(&st, "nope"), "unknown group found");
	CHECK_EQ(1, st.nr_probes);
	CHECK_EQ(-2, st.probes[0].error);
	nlmsg_free(m);

	/* Malformed replies, each with its reason. */
	m = nlmsg_alloc();
	genlmsg_put(m, 0, 0, FAMILY, 0, 0, MEMWALK_CMD_GET_STATUS, 1);
	nla_put_u64(m, MEMWALK_A_STATUS_PAGE_SIZE, 4096);
	check(mw_status_parse(nlmsg_hdr(m), &st, &why) == -EBADMSG, "8-byte page size accepted");
	CHECK_STR("attribute of the wrong size", why);
	nlmsg_free(m);

	m = nlmsg_alloc();
	genlmsg_put(m, 0, 0, FAMILY, 0, 0, MEMWALK_CMD_GET_STATUS, 1);
	nest = nla_nest_start(m, MEMWALK_A_STATUS_GROUP);
	nla_put_string(m, MEMWALK_A_GROUP_NAME, "oom");
	nla_nest_end(m, nest);
	nest = nla_nest_start(m, MEMWALK_A_STATUS_CPU);
	nla_put_u64(m, MEMWALK_A_CPU_ID, 3);
	nla_nest_end(m, nest);
	check(mw_status_parse(nlmsg_hdr(m), &st, &why) == -EBADMSG, "8-byte CPU id accepted");
	CHECK_STR("malformed MEMWALK_A_STATUS_CPU", why);
	nlmsg_free(m);

	m = nlmsg_alloc();
	genlmsg_put(m, 0, 0, FAMILY, 0, 0, MEMWALK_CMD_GET_STATUS, 1);
	nest = nla_nest_start(m, MEMWALK_A_STATUS_PROBE);
	nla_put(m, MEMWALK_A_PROBE_NAME, 4, "kswa");
	nla_nest_end(m, nest);
	check(mw_status_parse(nlmsg_hdr(m), &st, &why) == -EBADMSG, "probe name without NUL accepted");
	CHECK_STR("malformed MEMWALK_A_STATUS_PROBE", why);
	nlmsg_free(m);

	m = nlmsg_alloc();
	genlmsg_put(m, 0, 0, FAMILY, 0, 0, MEMWALK_CMD_EVENT, 1);
	check(mw_status_parse(nlmsg_hdr(m), &st, &why) == -EBADMSG, "an event accepted as status");
	CHECK_STR("not a MEMWALK_CMD_GET_STATUS reply", why);
	nlmsg_free(m);
}

static void test_seq(void)
{
	struct mw_seqtrack s = { 0 };

	/* Base 10: 11, 13, 12 (reordered), 16; 14, 15 missing; 9 early. */
	mw_seq_set_base(&s, 10);
	mw_seq_event(&s, 11);
	mw_seq_event(&s, 13);
	mw_seq_event(&s, 12);
	mw_seq_event(&s, 9);
	mw_seq_event(&s, 16);
	CHECK_EQ(4, s.received);
	CHECK_EQ(1, s.early);
	CHECK_EQ(2, mw_seq_missing(&s, 0));
	/* The module says it gave out up to 18: two more missing at the end. */
	CHECK_EQ(4, mw_seq_missing(&s, 18));
	/* ... a stale figure below what we saw does not lower it. */
	CHECK_EQ(2, mw_seq_missing(&s, 12));

	/* Without a base, the first event starts the count. */
	memset(&s, 0, sizeof(s));
	mw_seq_event(&s, 100);
	mw_seq_event(&s, 103);
	CHECK_EQ(2, mw_seq_missing(&s, 0));
	CHECK_EQ(0, s.early);

	/* A base with nothing received: all of it missing. */
	memset(&s, 0, sizeof(s));
	mw_seq_set_base(&s, 5);
	CHECK_EQ(0, mw_seq_missing(&s, 0));
	CHECK_EQ(3, mw_seq_missing(&s, 8));
}

static void test_filter(void)
{
	static struct mw_event ev;
	struct mw_filter f = { 0 };
	struct nl_msg *m;
	const char *why;

	check(mw_memcg_under("/a/b", "/a"), "/a/b under /a");
	check(mw_memcg_under("/a", "/a"), "/a under /a");
	check(mw_memcg_under("/a/b", "/a/"), "/a/b under /a/");
	check(!mw_memcg_under("/ab", "/a"), "/ab not under /a");
	check(mw_memcg_under("/", "/"), "/ under /");
	check(mw_memcg_under("/x/y", "/"), "/x/y under /");
	check(!mw_memcg_under(NULL, "/"), "no path is under nothing");
	check(!mw_memcg_under("/a", "/a/b"), "/a not under /a/b");

	m = oom_new(1, T0);
	parse_msg(m, &ev, &why);
	check(mw_filter_match(&f, &ev), "no filter: all pass");
	f.has_pid = true;
	f.pid = 501;
	check(mw_filter_match(&f, &ev), "OOM kill matches its victim's pid");
	f.pid = 500;
	check(mw_filter_match(&f, &ev), "OOM kill matches the pid that hit the OOM");
	f.pid = 499;
	check(!mw_filter_match(&f, &ev), "OOM kill does not match another pid");
	f.has_pid = false;
	f.memcg = "/test";
	check(mw_filter_match(&f, &ev), "OOM kill in /test/child matches /test");
	f.memcg = "/tes";
	check(!mw_filter_match(&f, &ev), "/tes is not a prefix of /test/child");
	nlmsg_free(m);

	m = ev_new(MEMWALK_EV_KSWAPD_RUN_BEGIN, 1, T0, MEMWALK_LEG_TRACEPOINT);
	parse_msg(m, &ev, &why);
	f.memcg = "/";
	check(!mw_filter_match(&f, &ev), "kswapd events have no task: filtered out");
	nlmsg_free(m);

	m = lost_new(T0, 1);
	parse_msg(m, &ev, &why);
	f.has_pid = true;
	check(mw_filter_match(&f, &ev), "LOST always passes");
	nlmsg_free(m);

	/* Thread id or process id. */
	m = ev_new(MEMWALK_EV_DIRECT_RECLAIM_BEGIN, 1, T0, MEMWALK_LEG_TRACEPOINT);
	put_task(m, 502, 500, "t", NULL, 0);
	parse_msg(m, &ev, &why);
	f.memcg = NULL;
	f.pid = 500;
	check(mw_filter_match(&f, &ev), "a thread matches its process id");
	f.pid = 502;
	check(mw_filter_match(&f, &ev), "a thread matches its own id");
	f.memcg = "/";
	check(!mw_filter_match(&f, &ev), "an event without a memcg does not match --memcg /");
	nlmsg_free(m);
}

static void test_gfp(void)
{
	char buf[256];

	CHECK_STR("GFP_KERNEL", mw_gfp_names(0xcc0, false, buf, sizeof(buf)));
	CHECK_STR("GFP_HIGHUSER_MOVABLE|__GFP_COMP",
		  mw_gfp_names(0x140cca, false, buf, sizeof(buf)));
	CHECK_STR("GFP_TRANSHUGE", mw_gfp_names(0x1c24ca, false, buf, sizeof(buf)));
	CHECK_STR("GFP_TRANSHUGE_LIGHT", mw_gfp_names(0x1c20ca, false, buf, sizeof(buf)));
	CHECK_STR("GFP_KERNEL_ACCOUNT|__GFP_ZERO",
		  mw_gfp_names(0x400dc0, false, buf, sizeof(buf)));
	CHECK_STR("GFP_NOWAIT|__GFP_NOWARN", mw_gfp_names(0x2800, false, buf, sizeof(buf)));
	CHECK_STR("GFP_NOFS", mw_gfp_names(0xc40, false, buf, sizeof(buf)));
	CHECK_STR("none", mw_gfp_names(0, false, buf, sizeof(buf)));
	/* bit 9: __GFP_ATOMIC before 6.3, unused after */
	CHECK_STR("GFP_ATOMIC|__GFP_ATOMIC", mw_gfp_names(0xa20, true, buf, sizeof(buf)));
	CHECK_STR("GFP_ATOMIC|0x200", mw_gfp_names(0xa20, false, buf, sizeof(buf)));
	/* config-dependent high bits stay hex */
	CHECK_STR("GFP_KERNEL|0x8000000", mw_gfp_names(0x8000cc0, false, buf, sizeof(buf)));
	/* truncation keeps the string terminated */
	mw_gfp_names(0xffffff, true, buf, 24);
	CHECK_EQ(23, strlen(buf));

	check(mw_release_before("6.1.0-56-amd64", 6, 3), "6.1 before 6.3");
	check(!mw_release_before("6.12.117+deb12-amd64", 6, 3), "6.12 not before 6.3");
	check(!mw_release_before("7.2.13+deb14-amd64", 6, 3), "7.2 not before 6.3");
	check(!mw_release_before("garbage", 6, 3), "unparsable: not before");
}

/*
 * Feed @m as received on @grp.  @ev's strings and @x's story point into @m:
 * the caller frees @m once it has checked them.
 */
static void feed_kept(struct mw_evstate *st, enum mw_group grp, struct nl_msg *m,
		      struct mw_event *ev, struct mw_ev_extra *x)
{
	const char *why;

	if (parse_msg(m, ev, &why))
		check(false, "scenario message refused: %s", why);
	else
		mw_evstate_event(st, grp, ev, x);
}

/* Feed @m as received on @grp and free it: the pointers in @ev and @x go stale. */
static void feed(struct mw_evstate *st, enum mw_group grp, struct nl_msg *m,
		 struct mw_event *ev, struct mw_ev_extra *x)
{
	feed_kept(st, grp, m, ev, x);
	nlmsg_free(m);
}

static void free_scenario(struct item *it, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (it[i].m)
			nlmsg_free(it[i].m);
}

static void test_pairing(void)
{
	static struct mw_event ev;
	struct mw_evstate st;
	struct mw_ev_extra x;
	struct nl_msg *m;

	mw_evstate_init(&st, 0);
	m = ev_new(MEMWALK_EV_DIRECT_RECLAIM_BEGIN, 1, T0, MEMWALK_LEG_TRACEPOINT);
	put_task(m, 7, 7, "a", NULL, 0);
	nla_put_s32(m, MEMWALK_A_EVENT_ORDER, 3);
	nla_put_u32(m, MEMWALK_A_EVENT_GFP, 0xcc0);
	feed(&st, MW_GRP_RECLAIM, m, &ev, &x);
	check(!x.has_latency, "a begin has no latency");

	/* Another pid's end does not pair with it. */
	m = ev_new(MEMWALK_EV_DIRECT_RECLAIM_END, 2, T0 + 5, MEMWALK_LEG_TRACEPOINT);
	put_task(m, 8, 8, "b", NULL, 0);
	feed(&st, MW_GRP_RECLAIM, m, &ev, &x);
	check(!x.has_latency && !x.has_begin, "end of another pid paired");

	/* A memcg end of the same pid neither. */
	m = ev_new(MEMWALK_EV_MEMCG_RECLAIM_END, 3, T0 + 6, MEMWALK_LEG_TRACEPOINT);
	put_task(m, 7, 7, "a", NULL, 0);
	feed(&st, MW_GRP_RECLAIM, m, &ev, &x);
	check(!x.has_latency, "memcg end paired with a direct begin");

	m = ev_new(MEMWALK_EV_DIRECT_RECLAIM_END, 4, T0 + 2 * MS, MEMWALK_LEG_TRACEPOINT);
	put_task(m, 7, 7, "a", NULL, 0);
	feed(&st, MW_GRP_RECLAIM, m, &ev, &x);
	check(x.has_latency && x.latency_paired, "end not paired with its begin");
	CHECK_EQ(2 * MS, x.latency_ns);
	CHECK_EQ(3, x.begin_order);
	CHECK_EQ(0xcc0, x.begin_gfp);

	/* Paired once only. */
	m = ev_new(MEMWALK_EV_DIRECT_RECLAIM_END, 5, T0 + 3 * MS, MEMWALK_LEG_TRACEPOINT);
	put_task(m, 7, 7, "a", NULL, 0);
	feed(&st, MW_GRP_RECLAIM, m, &ev, &x);
	check(!x.has_latency, "a begin paired twice");

	/* The module's duration wins over pairing. */
	m = ev_new(MEMWALK_EV_KSWAPD_RUN_BEGIN, 6, T0, MEMWALK_LEG_KPROBE);
	nla_put_u32(m, MEMWALK_A_EVENT_NID, 1);
	feed(&st, MW_GRP_RECLAIM, m, &ev, &x);
	m = ev_new(MEMWALK_EV_KSWAPD_RUN_END, 7, T0 + 9 * MS, MEMWALK_LEG_KRETPROBE);
	nla_put_u32(m, MEMWALK_A_EVENT_NID, 1);
	nla_put_u64(m, MEMWALK_A_EVENT_DURATION_NS, 8 * MS);
	feed(&st, MW_GRP_RECLAIM, m, &ev, &x);
	check(x.has_latency && !x.latency_paired, "module duration not used");
	CHECK_EQ(8 * MS, x.latency_ns);
	mw_evstate_free(&st);
}

static void test_story(void)
{
	static struct mw_event ev;
	struct item it[32];
	struct mw_evstate st;
	struct mw_ev_extra x;
	const struct mw_story *s;
	struct nl_msg *m;
	unsigned int n, i;

	/* An old stall, 11 s before: outside the window. */
	mw_evstate_init(&st, T0 - 20 * SEC);
	m = ev_new(MEMWALK_EV_DIRECT_RECLAIM_BEGIN, 90, T0 - 11 * SEC, MEMWALK_LEG_TRACEPOINT);
	put_task(m, 500, 500, "hog", "/test/child", 77);
	feed(&st, MW_GRP_RECLAIM, m, &ev, &x);
	/* A loss before the window does not count. */
	feed(&st, MW_GRP_RECLAIM, lost_new(T0 - 10 * SEC - 1, 9), &ev, &x);

	n = scenario(it);
	for (i = 0; i < n; i++) {
		if (!it[i].m) {
			mw_evstate_overflow(&st, it[i].grp, T0 + 12 * MS);
			continue;
		}
		/* Kept until checked: the story's scope is in the OOM kill's message. */
		feed_kept(&st, it[i].grp, it[i].m, &ev, &x);
		if (ev.type == MEMWALK_EV_OOM_KILL)
			break;
	}
	check(x.story != NULL, "an OOM kill has a story");
	if (!x.story) {
		free_scenario(it, n);
		mw_evstate_free(&st);
		return;
	}
	s = x.story;
	CHECK_EQ(MW_STORY_WINDOW_NS, s->window_ns);
	CHECK_EQ(MW_STORY_WINDOW_NS, s->covered_ns);
	CHECK_STR("/test", s->scope);
	CHECK_EQ(1, s->kswapd_wakes);
	CHECK_EQ(1, s->kswapd.begins);
	CHECK_EQ(1, s->kswapd.ends);
	CHECK_EQ(19900000, s->kswapd.time_ns);	/* paired: 20 ms - 0.1 ms */
	CHECK_EQ(1000, s->kswapd.reclaimed);
	CHECK_EQ(1, s->direct.begins);
	CHECK_EQ(1, s->direct.ends);
	CHECK_EQ(2500000, s->direct.time_ns);
	CHECK_EQ(32, s->direct.reclaimed);
	CHECK_EQ(1, s->direct.in_scope);
	CHECK_EQ(0, s->direct.by_victim);	/* the victim is 501 */
	CHECK_EQ(1, s->memcg.begins);		/* /testing is not /test */
	CHECK_EQ(1, s->memcg.ends);
	CHECK_EQ(350000, s->memcg.time_ns);
	CHECK_EQ(0, s->memcg.reclaimed);
	CHECK_EQ(1, s->memcg.in_scope);
	CHECK_EQ(8, s->nr_events);
	CHECK_EQ(30 * MS, s->first_ns);
	CHECK_EQ(3 + 1, s->lost);		/* a LOST of 3 and an overflow */
	check(!s->truncated, "story truncated");
	free_scenario(it, n);

	/* A global OOM a little later: every memcg counts, the victim's stalls too. */
	m = ev_new(MEMWALK_EV_MEMCG_RECLAIM_BEGIN, 20, T0 + 60 * MS, MEMWALK_LEG_TRACEPOINT);
	put_task(m, 700, 701, "victim", "/x", 5);
	feed(&st, MW_GRP_RECLAIM, m, &ev, &x);
	m = ev_new(MEMWALK_EV_OOM_KILL, 2, T0 + 70 * MS, MEMWALK_LEG_TRACEPOINT);
	put_task(m, 1, 1, "init", "/", 1);
	nla_put_u32(m, MEMWALK_A_OOM_VICTIM_PID, 701);
	nla_put_u32(m, MEMWALK_A_OOM_VICTIM_TGID, 701);
	feed(&st, MW_GRP_OOM, m, &ev, &x);
	s = x.story;
	check(s && !s->scope, "a global OOM has no scope");
	if (s) {
		CHECK_EQ(3, s->memcg.begins);
		CHECK_EQ(0, s->memcg.in_scope);
		CHECK_EQ(1, s->memcg.by_victim);
	}

	/* 10 s later, all of it is history; a client started 2 s before covers 2 s. */
	st.start_ns = T0 + 10 * SEC;
	m = ev_new(MEMWALK_EV_OOM_KILL, 3, T0 + 12 * SEC, MEMWALK_LEG_TRACEPOINT);
	nla_put_u32(m, MEMWALK_A_OOM_VICTIM_PID, 9);
	feed(&st, MW_GRP_OOM, m, &ev, &x);
	s = x.story;
	if (s) {
		CHECK_EQ(0, s->nr_events);
		CHECK_EQ(0, s->direct.begins + s->memcg.begins + s->kswapd.begins);
		CHECK_EQ(2 * SEC, s->covered_ns);
		CHECK_EQ(0, s->lost);
	}
	mw_evstate_free(&st);

	/* A ring too small for the window says so. */
	mw_evstate_init(&st, 0);
	for (i = 0; i < MW_RING_MAX + 10; i++) {
		m = ev_new(MEMWALK_EV_KSWAPD_WAKE, i + 1, T0 + i * 1000, MEMWALK_LEG_TRACEPOINT);
		nla_put_u32(m, MEMWALK_A_EVENT_NID, 0);
		feed(&st, MW_GRP_RECLAIM, m, &ev, &x);
	}
	m = ev_new(MEMWALK_EV_OOM_KILL, 1, T0 + SEC, MEMWALK_LEG_TRACEPOINT);
	feed(&st, MW_GRP_OOM, m, &ev, &x);
	s = x.story;
	if (s) {
		check(s->truncated, "a full ring not reported as truncated");
		CHECK_EQ(MW_RING_MAX, s->kswapd_wakes);
	}
	mw_evstate_free(&st);
}

/* ---- output -------------------------------------------------------------------------- */

static void run_scenario(bool json)
{
	static struct mw_event ev;
	struct mw_print_opts o = { .json = json, .page_size = 4096 };
	struct item it[32];
	struct mw_evstate st;
	struct mw_ev_extra x;
	const char *why;
	unsigned int n, i;

	mw_evstate_init(&st, 0);
	n = scenario(it);
	mw_ev_print_header(&o);
	for (i = 0; i < n; i++) {
		if (!it[i].m) {
			mw_evstate_overflow(&st, it[i].grp, T0 + 12 * MS);
			continue;
		}
		if (parse_msg(it[i].m, &ev, &why)) {
			check(false, "scenario message refused: %s", why);
		} else {
			mw_evstate_event(&st, it[i].grp, &ev, &x);
			mw_ev_print(&ev, &x, &o);
		}
		nlmsg_free(it[i].m);
	}
	mw_evstate_free(&st);
}

static int write_replay(const char *path)
{
	struct item it[32];
	unsigned int n, i;
	FILE *f = fopen(path, "wb");

	if (!f) {
		perror(path);
		return 1;
	}
	n = scenario(it);
	for (i = 0; i < n; i++) {
		uint32_t hdr[2] = { it[i].grp, 0xffffffffu };

		if (it[i].m)
			hdr[1] = nlmsg_hdr(it[i].m)->nlmsg_len;
		fwrite(hdr, sizeof(hdr), 1, f);
		if (it[i].m) {
			fwrite(nlmsg_hdr(it[i].m), hdr[1], 1, f);
			nlmsg_free(it[i].m);
		}
	}
	return fclose(f) ? 1 : 0;
}

int main(int argc, char **argv)
{
	const char *what = argc > 1 ? argv[1] : "";

	if (!strcmp(what, "parse")) {
		test_parse();
		test_status();
	} else if (!strcmp(what, "seq")) {
		test_seq();
	} else if (!strcmp(what, "filter")) {
		test_filter();
	} else if (!strcmp(what, "gfp")) {
		test_gfp();
	} else if (!strcmp(what, "pairing")) {
		test_pairing();
	} else if (!strcmp(what, "story")) {
		test_story();
	} else if (!strcmp(what, "text") || !strcmp(what, "json")) {
		run_scenario(!strcmp(what, "json"));
	} else if (!strcmp(what, "replay") && argc == 3) {
		return write_replay(argv[2]);
	} else {
		fprintf(stderr, "usage: %s parse|seq|filter|gfp|pairing|story|text|json|replay FILE\n",
			argv[0]);
		return 2;
	}
	if (failures)
		fprintf(stderr, "%d checks failed\n", failures);
	return failures ? 1 : 0;
}

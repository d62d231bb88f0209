// SPDX-License-Identifier: GPL-2.0
/*
 * memwalk's reclaim and OOM events against the kernel's own counters.
 *
 * Each test runs a workload in a child, subscribes to the module's groups
 * for the whole of it and compares what arrived with the counters the
 * kernel keeps over the same window, within the bounds the uapi header
 * documents (include/uapi/linux/memwalk.h, "Events"):
 *
 *   memcg limit reclaim  MEMCG_RECLAIM_BEGIN <= memory.events "max" delta,
 *                        "max" also counting charges forced without a
 *                        reclaim call (logged: with base pages only, none
 *                        were seen; with THP a few)
 *   global direct        begins <= allocstall delta <= (1 + R) * begins,
 *                        R = 3 retries per call from 6.12 on, 2 before
 *   kswapd               RUN_BEGIN == pageoutrun delta; WAKE >=
 *                        kswapd_low_wmark_hit_quickly delta (when no direct
 *                        reclaimer was throttled: those wake kswapd past the
 *                        tracepoint); kretprobe leg: sum of RUN_END
 *                        nr_reclaimed == pgsteal_kswapd delta
 *   OOM                  one OOM_KILL per oom_kill, naming the victim
 *
 * Windows: the test waits until the reclaim group's sequence number and
 * pageoutrun stand still (nothing reclaims), reads the counters, then the
 * group's last sequence number S0 from GET_STATUS; runs the workload; waits
 * for stillness again, reads the counters, then S1.  The events of the
 * window are those with S0 < seq <= S1; seqs in that range that never
 * arrive are events lost in the window (counted, and they widen the bounds
 * by exactly that many).
 *
 * Memory in the guest (1536 MiB, busybox, nothing to page out but what the
 * workload allocates): anonymous memory can only be reclaimed to swap, so
 * the tests that need reclaim put swap on zram (the guest loads the zram
 * module) and fill every page with one byte value, which zram stores as a
 * "same-filled" page without allocating: swap costs no memory.  Global
 * pressure comes from processes allocating more than is free; they run in
 * a memory cgroup whose memory.max is 64 MiB under MemTotal, so if swap
 * fell behind, their own limit, not a global OOM, would stop them, and
 * oom_score_adj 1000 makes them the victims of a global OOM anyway.  Swap
 * is taken down again after each test, for the suites that run after this
 * one.  The OOM test leaves the OOM killer's report in dmesg, with the
 * stack dump_header() always prints: expected, not a splat.
 *
 * The tests that reload the module (tiny buffers, rmmod during a flood) use
 * $MEMWALK_KO (default /lib/memwalk/memwalk.ko) and leave it loaded with
 * the default parameters.  The client is $MEMWALK_CLIENT.
 */
#include "kselftest_harness.h"

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
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/genetlink.h>
#include <linux/netlink.h>

#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/netlink.h>

#include <linux/memwalk.h>

#include "memwalk_evlib.h"
#include "memwalk_util.h"

/* ---- fixture ------------------------------------------------------------------------ */

FIXTURE(events) {
	struct sub sub;
	int swap;		/* from swap_on() */
	struct bg client;
	bool have_client;
	char hugepages[32];	/* vm.nr_hugepages before a squeeze */
};

#define NR_HUGEPAGES	"/proc/sys/vm/nr_hugepages"

static const char *const cgroups[] = {
	"mwev_memcg", "mwev_global", "mwev_oom", "mwev_flood",
};

FIXTURE_SETUP(events)
{
	struct family f;
	const char *bad;
	unsigned int i;

	ASSERT_EQ(0, geteuid()) TH_LOG("these tests need root");
	bad = module_defaults();
	ASSERT_EQ(NULL, bad) TH_LOG("memwalk with default parameters: %s", bad);
	ASSERT_EQ(0, family_resolve(&f)) TH_LOG("memwalk not loaded (generic netlink family missing)");
	ASSERT_TRUE(mw_mounted("cgroup2", CG)) TH_LOG("no cgroup2 at " CG);
	for (i = 0; i < ARRAY_SIZE(cgroups); i++)
		cg_remove(cgroups[i]);
	self->swap = 0;
	self->hugepages[0] = '\0';
	self->sub.ctrl_fd = -1;
	for (i = 0; i < NR_GRPS; i++)
		self->sub.fd[i] = -1;
}

FIXTURE_TEARDOWN(events)
{
	const char *bad;
	unsigned int i;

	if (self->have_client)
		bg_stop(&self->client, SIGKILL, 5);
	sub_stop(&self->sub);
	for (i = 0; i < ARRAY_SIZE(cgroups); i++)
		cg_remove(cgroups[i]);
	if (self->swap == 1)
		swap_off();
	if (self->hugepages[0])
		mw_write_file(NR_HUGEPAGES, self->hugepages);
	bad = module_defaults();
	if (bad)
		TH_LOG("teardown: %s", bad);
}

/*
 * Swap, on zram0 if none is on: a kernel without swap or zram skips; a
 * step that fails (disksize, mkswap, swapon) is a failure.
 */
#define NEED_SWAP() do {							\
	char why_[160];								\
										\
	self->swap = swap_on_why(why_, sizeof(why_));				\
	if (self->swap == -EOPNOTSUPP)						\
		SKIP(return, "%s", why_);					\
	ASSERT_LE(0, self->swap) TH_LOG("swap on zram0: %s", why_);		\
} while (0)

/*
 * The tests that need the guest's memory pressure to come out a certain way
 * (global reclaim, kswapd, a flood big enough to overflow) run on the release
 * kernels; the reliability lane sets MEMWALK_EVENTS_NO_PRESSURE=1, as under
 * KASAN and TCG the hogs' timing is not reproducible (it looks for splats).
 * Not a setup that failed: the lane's kernel, named by the lane.
 */
#define NEED_PRESSURE() do {							\
	if (getenv("MEMWALK_EVENTS_NO_PRESSURE"))				\
		SKIP(return, "MEMWALK_EVENTS_NO_PRESSURE: pressure timing not "	\
		     "reproducible on this kernel (KASAN under TCG)");		\
} while (0)

/* ---- status and permissions ------------------------------------------------------ */

static const uint32_t reported_events[] = {
	MEMWALK_EV_KSWAPD_WAKE, MEMWALK_EV_KSWAPD_RUN_BEGIN, MEMWALK_EV_KSWAPD_RUN_END,
	MEMWALK_EV_DIRECT_RECLAIM_BEGIN, MEMWALK_EV_DIRECT_RECLAIM_END,
	MEMWALK_EV_MEMCG_RECLAIM_BEGIN, MEMWALK_EV_MEMCG_RECLAIM_END,
	MEMWALK_EV_OOM_KILL,
};

/* GET_STATUS against the module parameters; exactly one live hook per event. */
TEST_F(events, status_pipeline)
{
	static struct status st;
	unsigned int i;
	int p;

	ASSERT_EQ(0, status_get(&st));
	EXPECT_EQ(sysconf(_SC_PAGESIZE), st.page_size);
	EXPECT_EQ(module_param_value("buffer_events"), st.buffer_events);
	EXPECT_EQ(128, st.buffer_events);
	EXPECT_EQ(module_param_value("sample_interval_ms"), st.sample_ms);
	EXPECT_EQ(module_param_value("kretprobe_maxactive"), st.maxactive);
	EXPECT_EQ(NR_GRPS, st.nr_grps_named);
	EXPECT_EQ(st.drops_overflow, st.grp[0].overflow + st.grp[1].overflow + st.grp[2].overflow);
	EXPECT_EQ(st.drops_delivery, st.grp[0].delivery + st.grp[1].delivery + st.grp[2].delivery);
	EXPECT_EQ(st.drops_overflow, st.cpu_overflow);
	ASSERT_LT(0, st.nr_probes);
	for (i = 0; i < ARRAY_SIZE(reported_events); i++) {
		int live = 0;

		for (p = 0; p < st.nr_probes; p++)
			if (st.probe[p].event == reported_events[i] &&
			    st.probe[p].state == MEMWALK_PROBE_ATTACHED)
				live++;
		EXPECT_EQ(1, live) TH_LOG("event type %u: %d live hooks", reported_events[i], live);
	}
	for (p = 0; p < st.nr_probes; p++) {
		EXPECT_EQ(st.probe[p].state == MEMWALK_PROBE_ATTACHED, st.probe[p].attached)
			TH_LOG("%s", st.probe[p].name);
		if (st.probe[p].state == MEMWALK_PROBE_FAILED ||
		    st.probe[p].state == MEMWALK_PROBE_ABSENT)
			EXPECT_GT(0, st.probe[p].error) TH_LOG("%s", st.probe[p].name);
		if (st.probe[p].state == MEMWALK_PROBE_ATTACHED)
			EXPECT_EQ(0, st.probe[p].error) TH_LOG("%s", st.probe[p].name);
		if (st.probe[p].state != MEMWALK_PROBE_ATTACHED)
			EXPECT_EQ(0, st.probe[p].hits) TH_LOG("%s", st.probe[p].name);
	}
}

/* The client shows the same pipeline, as text and JSON. */
TEST_F(events, client_status)
{
	const char *text[] = { mw_client_path(), "status", NULL };
	const char *json[] = { mw_client_path(), "status", "--json", NULL };
	static struct status st;
	static struct mw_run r;
	char want[128];
	int p;

	ASSERT_EQ(0, status_get(&st));
	ASSERT_EQ(0, mw_run(&r, 0, text));
	ASSERT_EQ(0, mw_exit_code(&r)) TH_LOG("stderr: %s", r.err);
	snprintf(want, sizeof(want), "event buffer:    %u events per CPU\n", st.buffer_events);
	EXPECT_NE(NULL, strstr(r.out, want)) TH_LOG("stdout: %s", r.out);
	snprintf(want, sizeof(want), "page size:       %u\n", st.page_size);
	EXPECT_NE(NULL, strstr(r.out, want)) TH_LOG("stdout: %s", r.out);
	for (p = 0; p < st.nr_probes; p++)
		EXPECT_NE(NULL, strstr(r.out, st.probe[p].name)) TH_LOG("%s", st.probe[p].name);
	ASSERT_EQ(0, mw_run(&r, 0, json));
	ASSERT_EQ(0, mw_exit_code(&r)) TH_LOG("stderr: %s", r.err);
	snprintf(want, sizeof(want), "\"buffer_events\":%u,", st.buffer_events);
	EXPECT_NE(NULL, strstr(r.out, want)) TH_LOG("stdout: %.300s", r.out);
	EXPECT_NE(NULL, strstr(r.out, "\"groups\":[{\"name\":\"reclaim\",\"seq\":"));
	EXPECT_NE(NULL, strstr(r.out, "\"probes\":[{\"name\":\""));
	EXPECT_EQ('\n', r.out[strlen(r.out) - 1]);
	EXPECT_EQ(strlen(r.out) - 1, strcspn(r.out, "\n")) TH_LOG("not one line");
}

static int join_errno(void *arg)
{
	int fd = nl_open(), group = *(int *)arg;

	if (fd < 0)
		return 100;
	if (setsockopt(fd, SOL_NETLINK, NETLINK_ADD_MEMBERSHIP, &group, sizeof(group)))
		return errno;
	close(fd);
	return 0;
}

TEST_F(events, unprivileged_subscriber_eperm)
{
	const char *argv[] = { mw_client_path(), "events", "--duration", "2", NULL };
	struct family f;
	struct mw_run r;
	int i;

	ASSERT_EQ(0, family_resolve(&f));
	for (i = 0; i < NR_GRPS; i++) {
		EXPECT_EQ(EPERM, mw_as_user(MW_NOBODY, join_errno, &f.grp[i]))
			TH_LOG("group %s", grp_names[i]);
		EXPECT_EQ(0, join_errno(&f.grp[i])) TH_LOG("root, group %s", grp_names[i]);
	}
	ASSERT_EQ(0, mw_run(&r, MW_NOBODY, argv));
	EXPECT_EQ(2, mw_exit_code(&r)) TH_LOG("stderr: %s", r.err);
	EXPECT_NE(NULL, strstr(r.err, "permission denied subscribing to the \"reclaim\" events"))
		TH_LOG("stderr: %s", r.err);
	EXPECT_NE(NULL, strstr(r.err, "EPERM")) TH_LOG("stderr: %s", r.err);
	EXPECT_STREQ("", r.out);
}

/* ---- malformed requests ------------------------------------------------------------- */

/*
 * One test per malformed request, each with the exact answer: its errno,
 * the extack message (the policy's, generic netlink's or the module's own),
 * and the offset of the attribute it names.  After each, a well-formed
 * GET_STATUS on the same socket still works.
 */

#define ATTR0		NLMSG_LENGTH(GENL_HDRLEN)	/* offset of the first attribute */
#define NO_OFFS		(-1)

typedef void (*build_fn)(struct req *q, int family);

static void get_status(struct req *q, int family)
{
	req_init(q, family, MEMWALK_CMD_GET_STATUS, NLM_F_ACK);
}

static void get_status_u32(struct req *q, int family, uint16_t type, uint32_t v)
{
	get_status(q, family);
	req_attr(q, type, &v, sizeof(v));
}

static void unknown_attr(struct req *q, int family)
{
	get_status_u32(q, family, 200, 1);
}

static void u32_with_8_bytes(struct req *q, int family)
{
	uint64_t v = 1;

	get_status(q, family);
	req_attr(q, MEMWALK_A_UAPI_VERSION, &v, sizeof(v));
}

static void u64_with_4_bytes(struct req *q, int family)
{
	get_status_u32(q, family, MEMWALK_A_EVENT_SEQ, 1);
}

static void string_without_nul(struct req *q, int family)
{
	get_status(q, family);
	req_attr(q, MEMWALK_A_MODULE_VERSION, "abc", 3);
}

static void event_type_out_of_range(struct req *q, int family)
{
	get_status_u32(q, family, MEMWALK_A_EVENT_TYPE, MEMWALK_EV_MAX + 1);
}

static void pad_attr(struct req *q, int family)
{
	get_status_u32(q, family, MEMWALK_A_PAD, 1);
}

/* Valid on its own, but GET_STATUS takes none: the module's own check. */
static void valid_attr(struct req *q, int family)
{
	get_status_u32(q, family, MEMWALK_A_UAPI_VERSION, MEMWALK_UAPI_VERSION);
}

/* An attribute that claims more bytes than the message has. */
static void attr_past_end(struct req *q, int family)
{
	valid_attr(q, family);
	((struct nlattr *)(q->buf + ATTR0))->nla_len = 64;
}

/* Half an attribute header at the end. */
static void trailing_bytes(struct req *q, int family)
{
	get_status(q, family);
	q->len += 2;
	((struct nlmsghdr *)q->buf)->nlmsg_len = q->len;
}

/*
 * The header of a family's command is checked when the command is at or
 * above the family's resv_start_op ("new families should leave this field
 * at zero", include/net/genetlink.h).
 */
static void reserved_set(struct req *q, int family)
{
	get_status(q, family);
	((struct genlmsghdr *)NLMSG_DATA((struct nlmsghdr *)q->buf))->reserved = 1;
}

static void flag_replace(struct req *q, int family)
{
	req_init(q, family, MEMWALK_CMD_GET_STATUS, NLM_F_ACK | NLM_F_REPLACE);
}

static void short_genlmsghdr(struct req *q, int family)
{
	get_status(q, family);
	q->len = NLMSG_LENGTH(GENL_HDRLEN - 2);
	((struct nlmsghdr *)q->buf)->nlmsg_len = q->len;
}

static void cmd_event(struct req *q, int family)
{
	req_init(q, family, MEMWALK_CMD_EVENT, NLM_F_ACK);
}

static void cmd_99(struct req *q, int family)
{
	req_init(q, family, 99, NLM_F_ACK);
}

static void as_dump(struct req *q, int family)
{
	req_init(q, family, MEMWALK_CMD_GET_STATUS, NLM_F_ACK | NLM_F_DUMP);
}

/* nlmsg_len beyond the datagram. */
static void len_past_datagram(struct req *q, int family)
{
	get_status(q, family);
	((struct nlmsghdr *)q->buf)->nlmsg_len = q->len + 64;
}

FIXTURE(malformed_request) {
	struct family f;
	int fd;
};

FIXTURE_VARIANT(malformed_request) {
	build_fn build;
	int error;		/* the answer's errno; 0: no answer at all */
	const char *msg;	/* NLMSGERR_ATTR_MSG, exactly; NULL: none */
	int offs;		/* NLMSGERR_ATTR_OFFS; NO_OFFS: none */
};

/* The policy (lib/nlattr.c, strict: no .resv_start_op) */
FIXTURE_VARIANT_ADD(malformed_request, unknown_attribute_200) {
	.build = unknown_attr, .error = EINVAL,
	.msg = "Unknown attribute type", .offs = ATTR0,
};
FIXTURE_VARIANT_ADD(malformed_request, u32_attribute_with_8_bytes) {
	.build = u32_with_8_bytes, .error = EINVAL,
	.msg = "invalid attribute length", .offs = ATTR0,
};
FIXTURE_VARIANT_ADD(malformed_request, u64_attribute_with_4_bytes) {
	.build = u64_with_4_bytes, .error = EINVAL,
	.msg = "invalid attribute length", .offs = ATTR0,
};
FIXTURE_VARIANT_ADD(malformed_request, string_without_its_nul) {
	.build = string_without_nul, .error = EINVAL,
	.msg = "Attribute failed policy validation", .offs = ATTR0,
};
FIXTURE_VARIANT_ADD(malformed_request, event_type_out_of_range) {
	.build = event_type_out_of_range, .error = ERANGE,
	.msg = "integer out of range", .offs = ATTR0,
};
FIXTURE_VARIANT_ADD(malformed_request, pad_attribute) {
	.build = pad_attr, .error = EINVAL,
	.msg = "Unsupported attribute", .offs = ATTR0,
};
FIXTURE_VARIANT_ADD(malformed_request, attribute_past_message_end) {
	.build = attr_past_end, .error = EINVAL,
	.msg = "bytes leftover after parsing attributes", .offs = NO_OFFS,
};
FIXTURE_VARIANT_ADD(malformed_request, two_trailing_bytes) {
	.build = trailing_bytes, .error = EINVAL,
	.msg = "bytes leftover after parsing attributes", .offs = NO_OFFS,
};
/* The module's own check (get_status_check()) */
FIXTURE_VARIANT_ADD(malformed_request, get_status_with_an_attribute) {
	.build = valid_attr, .error = EINVAL,
	.msg = "GET_STATUS takes no attributes", .offs = ATTR0,
};
/* Generic netlink's header check (genl_header_check()) */
FIXTURE_VARIANT_ADD(malformed_request, genlmsghdr_reserved_set) {
	.build = reserved_set, .error = EINVAL,
	.msg = "genlmsghdr.reserved field is not 0", .offs = NO_OFFS,
};
FIXTURE_VARIANT_ADD(malformed_request, nlm_f_replace) {
	.build = flag_replace, .error = EINVAL,
	.msg = "ambiguous or reserved bits set in nlmsg_flags", .offs = NO_OFFS,
};
/* Generic netlink's checks before the family's policy: no message (genl_family_rcv_msg()) */
FIXTURE_VARIANT_ADD(malformed_request, shorter_than_genlmsghdr) {
	.build = short_genlmsghdr, .error = EINVAL, .offs = NO_OFFS,
};
FIXTURE_VARIANT_ADD(malformed_request, cmd_event_as_request) {
	.build = cmd_event, .error = EOPNOTSUPP, .offs = NO_OFFS,
};
FIXTURE_VARIANT_ADD(malformed_request, unknown_command_99) {
	.build = cmd_99, .error = EOPNOTSUPP, .offs = NO_OFFS,
};
FIXTURE_VARIANT_ADD(malformed_request, get_status_as_dump) {
	.build = as_dump, .error = EOPNOTSUPP, .offs = NO_OFFS,
};
/* netlink drops it without a word (netlink_rcv_skb()) */
FIXTURE_VARIANT_ADD(malformed_request, nlmsg_len_past_datagram) {
	.build = len_past_datagram, .error = 0, .offs = NO_OFFS,
};

/* A well-formed GET_STATUS on @fd: acked, with its one reply. */
static void expect_get_status_works(struct __test_metadata *_metadata, int fd,
				    int family, const char *when)
{
	static struct reply r;
	struct req q;

	get_status(&q, family);
	ASSERT_EQ(0, nl_transact(fd, q.buf, q.len, &r, 3000)) TH_LOG("%s", when);
	ASSERT_TRUE(r.answered) TH_LOG("%s: GET_STATUS not answered", when);
	ASSERT_EQ(0, r.error) TH_LOG("%s: GET_STATUS: %s [%s]", when, strerror(r.error), r.msg);
	ASSERT_EQ(1, r.nr_replies) TH_LOG("%s", when);
}

FIXTURE_SETUP(malformed_request)
{
	ASSERT_EQ(0, geteuid()) TH_LOG("these tests need root");
	self->fd = -1;
	ASSERT_EQ(0, family_resolve(&self->f)) TH_LOG("memwalk not loaded (generic netlink family missing)");
	self->fd = nl_open();
	ASSERT_LE(0, self->fd) TH_LOG("netlink socket: %s", strerror(errno));
	expect_get_status_works(_metadata, self->fd, self->f.id, "before");
}

FIXTURE_TEARDOWN(malformed_request)
{
	if (self->fd >= 0)
		close(self->fd);
}

TEST_F(malformed_request, answer)
{
	static struct reply r;
	struct req q;

	variant->build(&q, self->f.id);
	ASSERT_EQ(0, nl_transact(self->fd, q.buf, q.len, &r, variant->error ? 3000 : 500));
	if (!variant->error) {
		EXPECT_FALSE(r.answered) TH_LOG("answered: %s [%s]", strerror(r.error), r.msg);
	} else {
		ASSERT_TRUE(r.answered) TH_LOG("no answer");
		EXPECT_EQ(variant->error, r.error)
			TH_LOG("%s, not %s [%s]", strerror(r.error), strerror(variant->error), r.msg);
		EXPECT_EQ(0, r.nr_replies) TH_LOG("answered with data");
		if (variant->msg) {
			EXPECT_TRUE(r.has_msg) TH_LOG("no NLMSGERR_ATTR_MSG");
			EXPECT_STREQ(variant->msg, r.msg);
		} else {
			EXPECT_FALSE(r.has_msg) TH_LOG("NLMSGERR_ATTR_MSG: %s", r.msg);
		}
		if (variant->offs == NO_OFFS) {
			EXPECT_FALSE(r.has_offs) TH_LOG("NLMSGERR_ATTR_OFFS: %u", r.offs);
		} else {
			EXPECT_TRUE(r.has_offs) TH_LOG("no NLMSGERR_ATTR_OFFS");
			EXPECT_EQ(variant->offs, r.offs);
		}
	}
	expect_get_status_works(_metadata, self->fd, self->f.id, "after");
}

/* ---- memcg limit reclaim ---------------------------------------------------------- */

/*
 * A child in a cgroup with memory.max 24 MiB fills 64 MiB twice: every
 * charge over the limit reclaims (to zram).  BEGIN events from it ==
 * memory.events "max" delta, and every BEGIN has its END.
 */
TEST_F_TIMEOUT(events, memcg_reclaim_matches_memory_events, 420)
{
	const char *cg = "mwev_memcg";
	struct tally begin, end;
	struct status st0, st1;
	long long max0, max1;
	uint64_t got, lost;
	pid_t pid;
	int status;

	NEED_SWAP();
	ASSERT_EQ(0, cg_create(cg, 24 * MiB, true));
	ASSERT_EQ(0, sub_start(&self->sub, 1u << GRP_RECLAIM));
	ASSERT_TRUE(settle(300, 20000)) TH_LOG("reclaim does not settle");
	max0 = cg_event(cg, "max");
	ASSERT_EQ(0, status_get(&st0));

	pid = spawn_hog(cg, 64 * MiB, 2, 0);
	ASSERT_LT(0, pid);
	/* seconds on a release kernel; minutes under KASAN and TCG on a busy host */
	status = wait_child(pid, 360);
	ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) TH_LOG("hog: status %#x", status);
	ASSERT_TRUE(settle(300, 20000));
	max1 = cg_event(cg, "max");
	ASSERT_EQ(0, status_get(&st1));

	got = sub_wait(&self->sub, GRP_RECLAIM, st0.grp[GRP_RECLAIM].seq,
		       st1.grp[GRP_RECLAIM].seq, 5000);
	lost = st1.grp[GRP_RECLAIM].seq - st0.grp[GRP_RECLAIM].seq - got;
	begin = sub_tally(&self->sub, GRP_RECLAIM, MEMWALK_EV_MEMCG_RECLAIM_BEGIN,
			  st0.grp[GRP_RECLAIM].seq, st1.grp[GRP_RECLAIM].seq, pid, "/mwev_memcg");
	end = sub_tally(&self->sub, GRP_RECLAIM, MEMWALK_EV_MEMCG_RECLAIM_END,
			st0.grp[GRP_RECLAIM].seq, st1.grp[GRP_RECLAIM].seq, pid, "/mwev_memcg");
	TH_LOG("memory.events max +%lld; %" PRIu64 " begins, %" PRIu64 " ends (%" PRIu64
	       " pages), %" PRIu64 " events lost in the window",
	       max1 - max0, begin.n, end.n, end.nr_reclaimed, lost);

	ASSERT_LE(0, max0);
	EXPECT_LT(0, begin.n) TH_LOG("no memcg reclaim seen");
	EXPECT_EQ(begin.n, begin.with_pid) TH_LOG("begins by other tasks than the hog");
	EXPECT_EQ(end.n, end.with_pid);
	EXPECT_EQ(0, self->sub.enobufs[GRP_RECLAIM]);
	/*
	 * Nothing lost in the window, so the count is exact: one begin per
	 * reclaim call, which raises "max" once; a forced charge (one made
	 * while already reclaiming, PF_MEMALLOC, or atomic) raises it without
	 * a call: begins <= "max".
	 */
	EXPECT_EQ(0, lost);
	EXPECT_LE(begin.n, (uint64_t)(max1 - max0));
	EXPECT_EQ(begin.n, end.n);
	EXPECT_LT(0, end.nr_reclaimed);
	/* every event but LOST carries its node(s) */
	EXPECT_EQ(0, begin.without_nodes + end.without_nodes);
}

/* ---- global pressure ------------------------------------------------------------------- */

struct global_run {
	struct status st0, st1;
	struct vmstat v0, v1;
	uint64_t got, lost;
	pid_t pid[2];
};

/* What the squeeze leaves free. */
#define SQUEEZE_LEFT	(256 * MiB)

/*
 * The guest's free memory taken down to about SQUEEZE_LEFT by growing the
 * hugetlb pool, whose pages are neither free nor reclaimable: the hogs
 * then reach the watermarks after faulting in that much, not a GiB (over
 * a minute a test under arm64 TCG), and the pressure past them is the
 * same.  The pool's size before is kept for the teardown; a pool that
 * cannot grow (no hugetlb, memory too fragmented) leaves the guest as it
 * was, which only costs time.
 */
static void squeeze_free(char *saved, size_t len)
{
	uint64_t free = meminfo("MemFree"), huge = meminfo("Hugepagesize");
	unsigned long long cur;
	char buf[32];
	int ret;

	saved[0] = '\0';
	if (!huge || free <= SQUEEZE_LEFT + huge || mw_read_file(NR_HUGEPAGES, buf, sizeof(buf)))
		return;
	cur = strtoull(buf, NULL, 10);
	snprintf(saved, len, "%llu", cur);
	snprintf(buf, sizeof(buf), "%llu",
		 cur + (unsigned long long)((free - SQUEEZE_LEFT) / huge));
	ret = mw_write_file(NR_HUGEPAGES, buf);
	if (ret)
		ksft_print_msg("vm.nr_hugepages %s: %s (the hogs fill all of memory)\n",
			       buf, strerror(-ret));
	else
		ksft_print_msg("hugetlb pool %s -> %s pages: MemFree %llu -> %llu MiB\n",
			       saved, buf, (unsigned long long)(free / MiB),
			       (unsigned long long)(meminfo("MemFree") / MiB));
}

/*
 * Global pressure (see the top), bracketed by stillness so kswapd sleeps at
 * both ends of the window.  @paced false: two processes together allocate
 * 512 MiB more than the guest has free, at full speed: on two CPUs they
 * outpace kswapd, so some of their faults reclaim directly.  @paced true:
 * one process allocates 256 MiB more than is free in eight steps with
 * pauses, in which kswapd catches up and goes back to sleep: several
 * wakes and runs.
 */
static void global_pressure(struct __test_metadata *_metadata, struct sub *sub,
			    struct global_run *g, bool paced, char *saved, size_t saved_len)
{
	uint64_t total = meminfo("MemTotal"), avail;
	int status, i;

	ASSERT_LT(256 * MiB, total);
	ASSERT_EQ(0, cg_create("mwev_global", total - 64 * MiB, true));
	squeeze_free(saved, saved_len);
	ASSERT_EQ(0, sub_start(sub, 1u << GRP_RECLAIM));
	ASSERT_TRUE(settle(500, 30000)) TH_LOG("reclaim does not settle");
	avail = meminfo("MemAvailable");
	vmstat_read(&g->v0);
	ASSERT_EQ(0, status_get(&g->st0));

	for (i = 0; i < 2; i++) {
		if (paced)
			g->pid[i] = i ? 0 : spawn_hog_paced("mwev_global", avail + 256 * MiB,
							    1, 1000, 8, 400);
		else
			g->pid[i] = spawn_hog("mwev_global", avail / 2 + 256 * MiB, 1, 1000);
		ASSERT_LE(0, g->pid[i]);
	}
	for (i = 0; i < 2 && g->pid[i]; i++) {
		status = wait_child(g->pid[i], 400);
		EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
			TH_LOG("hog %d: status %#x (killed: swap could not keep up?)", i, status);
	}
	ASSERT_TRUE(settle(500, 30000)) TH_LOG("reclaim does not settle after the hogs");
	vmstat_read(&g->v1);
	ASSERT_EQ(0, status_get(&g->st1));
	g->got = sub_wait(sub, GRP_RECLAIM, g->st0.grp[GRP_RECLAIM].seq,
			  g->st1.grp[GRP_RECLAIM].seq, 5000);
	g->lost = g->st1.grp[GRP_RECLAIM].seq - g->st0.grp[GRP_RECLAIM].seq - g->got;
}

/* 3 retries per try_to_free_pages() call from 6.12 on, 2 before. */
static unsigned int allocstall_retries(void)
{
	struct utsname u;
	unsigned int ma = 0, mi = 0;

	uname(&u);
	sscanf(u.release, "%u.%u", &ma, &mi);
	return ma > 6 || (ma == 6 && mi >= 12) ? 3 : 2;
}

TEST_F_TIMEOUT(events, direct_reclaim_matches_allocstall, 600)
{
	struct global_run g;
	struct tally begin, end, hog[2], mine[2];
	uint64_t delta, r = allocstall_retries(), lo, hi;
	int i;

	NEED_PRESSURE();
	NEED_SWAP();
	global_pressure(_metadata, &self->sub, &g, false, self->hugepages,
			sizeof(self->hugepages));
	lo = g.st0.grp[GRP_RECLAIM].seq;
	hi = g.st1.grp[GRP_RECLAIM].seq;
	begin = sub_tally(&self->sub, GRP_RECLAIM, MEMWALK_EV_DIRECT_RECLAIM_BEGIN, lo, hi, 0, NULL);
	end = sub_tally(&self->sub, GRP_RECLAIM, MEMWALK_EV_DIRECT_RECLAIM_END, lo, hi, 0, NULL);
	for (i = 0; i < 2; i++) {
		hog[i] = sub_tally(&self->sub, GRP_RECLAIM, MEMWALK_EV_DIRECT_RECLAIM_BEGIN,
				   lo, hi, g.pid[i], NULL);
		mine[i] = sub_tally(&self->sub, GRP_RECLAIM, MEMWALK_EV_DIRECT_RECLAIM_BEGIN,
				    lo, hi, g.pid[i], "/mwev_global");
	}
	delta = g.v1.allocstall - g.v0.allocstall;
	TH_LOG("allocstall +%" PRIu64 "; %" PRIu64 " begins (%" PRIu64 " + %" PRIu64
	       " by the hogs), %" PRIu64 " ends; %" PRIu64 " events lost in the window; "
	       "pgscan_direct_throttle +%" PRIu64, delta, begin.n, hog[0].with_pid,
	       hog[1].with_pid, end.n, g.lost, g.v1.throttle - g.v0.throttle);

	EXPECT_LT(0, hog[0].with_pid + hog[1].with_pid)
		TH_LOG("no direct reclaim by the hogs: no global pressure?");
	for (i = 0; i < 2; i++)
		EXPECT_EQ(hog[i].with_pid, mine[i].with_pid) TH_LOG("hog events name another memcg");
	EXPECT_EQ(0, self->sub.enobufs[GRP_RECLAIM]);
	/* begins <= allocstall delta <= (1 + R) * begins, each begin seen or lost */
	EXPECT_LE(begin.n, delta);
	EXPECT_LE(delta, (1 + r) * (begin.n + g.lost));
	/* one end per begin on the tracepoint leg; kretprobe: ends without begins too */
	if (end.leg == MEMWALK_LEG_TRACEPOINT && !g.lost) {
		EXPECT_EQ(begin.n, end.n);
	} else {
		EXPECT_LE(begin.n, end.n + g.lost);
	}
}

TEST_F_TIMEOUT(events, kswapd_matches_pageoutrun, 600)
{
	struct global_run g;
	struct tally wake, run, end;
	uint64_t runs, lwhq, steal;

	NEED_PRESSURE();
	NEED_SWAP();
	global_pressure(_metadata, &self->sub, &g, true, self->hugepages,
			sizeof(self->hugepages));
	wake = sub_tally(&self->sub, GRP_RECLAIM, MEMWALK_EV_KSWAPD_WAKE,
			 g.st0.grp[GRP_RECLAIM].seq, g.st1.grp[GRP_RECLAIM].seq, 0, NULL);
	run = sub_tally(&self->sub, GRP_RECLAIM, MEMWALK_EV_KSWAPD_RUN_BEGIN,
			g.st0.grp[GRP_RECLAIM].seq, g.st1.grp[GRP_RECLAIM].seq, 0, NULL);
	end = sub_tally(&self->sub, GRP_RECLAIM, MEMWALK_EV_KSWAPD_RUN_END,
			g.st0.grp[GRP_RECLAIM].seq, g.st1.grp[GRP_RECLAIM].seq, 0, NULL);
	runs = g.v1.pageoutrun - g.v0.pageoutrun;
	lwhq = g.v1.lwhq - g.v0.lwhq;
	steal = g.v1.pgsteal_kswapd - g.v0.pgsteal_kswapd;
	TH_LOG("pageoutrun +%" PRIu64 ", low_wmark_hit_quickly +%" PRIu64 ", high +%" PRIu64
	       ", pgsteal_kswapd +%" PRIu64 "; %" PRIu64 " wakes, %" PRIu64 " runs, %" PRIu64
	       " ends (%" PRIu64 " pages, leg %u); %" PRIu64 " lost; throttled +%" PRIu64,
	       runs, lwhq, g.v1.hwhq - g.v0.hwhq, steal, wake.n, run.n, end.n,
	       end.nr_reclaimed, end.leg, g.lost, g.v1.throttle - g.v0.throttle);

	EXPECT_LT(0, runs) TH_LOG("kswapd did not run: no global pressure?");
	/* kswapd events have no task; every one has its node */
	EXPECT_EQ(0, wake.with_task + run.with_task + end.with_task);
	EXPECT_EQ(0, wake.without_nodes + run.without_nodes + end.without_nodes);
	EXPECT_EQ(0, self->sub.enobufs[GRP_RECLAIM]);
	/* exactly one RUN_BEGIN per pageoutrun: each seen or lost */
	EXPECT_LE(run.n, runs);
	EXPECT_LE(runs, run.n + g.lost);
	if (!g.lost) {
		EXPECT_EQ(runs, run.n);
		/* kswapd asleep at both ends: every run ended in the window */
		EXPECT_EQ(run.n, end.n);
	} else {
		TH_LOG("%" PRIu64 " events lost: runs judged within bounds, not exactly", g.lost);
	}
	/*
	 * Every early end of a nap needs a wake: WAKE >= low_wmark_hit_quickly.
	 * Except that throttled direct reclaimers wake kswapd themselves, past
	 * the tracepoint (allow_direct_reclaim()); the bound holds when none was.
	 */
	if (g.v1.throttle == g.v0.throttle) {
		EXPECT_LE(lwhq, wake.n + g.lost);
	} else {
		TH_LOG("direct reclaimers throttled: WAKE >= low_wmark_hit_quickly not judged");
	}
	/* kretprobe leg on one node: nr_reclaimed is the pgsteal_kswapd delta */
	if (end.leg == MEMWALK_LEG_KRETPROBE && !end.other_legs && !g.lost &&
	    access("/sys/devices/system/node/node1", F_OK)) {
		EXPECT_EQ(steal, end.nr_reclaimed);
	} else {
		TH_LOG("RUN_END's nr_reclaimed not compared with pgsteal_kswapd (leg %u, %" PRIu64
		       " on other legs, %" PRIu64 " lost, or several nodes)",
		       end.leg, end.other_legs, g.lost);
	}
}

/* ---- OOM -------------------------------------------------------------------------- */

/* Parse "key":N after @from in @s; -1 if absent. */
static long long json_num(const char *s, const char *from, const char *key)
{
	char pat[64];
	const char *p = from ? strstr(s, from) : s;

	if (!p)
		return -1;
	snprintf(pat, sizeof(pat), "\"%s\":", key);
	p = strstr(p, pat);
	return p ? atoll(p + strlen(pat)) : -1;
}

TEST_F_TIMEOUT(events, oom_kill_names_the_victim, 120)
{
	const char *cg = "mwev_oom";
	const char *argv[] = { mw_client_path(), "events", "--oom", "--json", NULL };
	static char out[1 << 16];
	struct status st0, st1;
	struct vmstat v0, v1;
	struct tally oom, mbegin;
	uint64_t got, t_oom = 0, in_story = 0;
	const char *line, *story;
	size_t i;
	pid_t pid;
	int status;

	ASSERT_EQ(0, cg_create(cg, 16 * MiB, false));
	ASSERT_EQ(0, sub_start(&self->sub, 1u << GRP_RECLAIM | 1u << GRP_OOM));
	ASSERT_EQ(0, bg_start(&self->client, argv));
	self->have_client = true;
	msleep(1000);	/* subscribed (JSON mode prints nothing before) */
	ASSERT_TRUE(settle(300, 20000));
	vmstat_read(&v0);
	ASSERT_EQ(0, status_get(&st0));

	pid = spawn_hog(cg, 64 * MiB, 1, 0);
	ASSERT_LT(0, pid);
	status = wait_child(pid, 60);
	ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
		TH_LOG("hog was not OOM-killed: status %#x", status);
	ASSERT_TRUE(settle(300, 20000));
	vmstat_read(&v1);
	ASSERT_EQ(0, status_get(&st1));
	got = sub_wait(&self->sub, GRP_OOM, st0.grp[GRP_OOM].seq, st1.grp[GRP_OOM].seq, 5000);
	sub_wait(&self->sub, GRP_RECLAIM, st0.grp[GRP_RECLAIM].seq, st1.grp[GRP_RECLAIM].seq, 5000);

	oom = sub_tally(&self->sub, GRP_OOM, MEMWALK_EV_OOM_KILL, st0.grp[GRP_OOM].seq,
			st1.grp[GRP_OOM].seq, pid, NULL);
	EXPECT_EQ(1, v1.oom_kill - v0.oom_kill);
	EXPECT_EQ(1, cg_event(cg, "oom_kill"));
	EXPECT_EQ(1, got);
	ASSERT_EQ(1, oom.n);
	pthread_mutex_lock(&self->sub.lock);
	for (i = 0; i < self->sub.nr; i++) {
		const struct evrec *e = &self->sub.recs[i];

		if (e->grp != GRP_OOM || e->type != MEMWALK_EV_OOM_KILL ||
		    e->seq <= st0.grp[GRP_OOM].seq)
			continue;
		EXPECT_EQ(pid, e->victim_pid);
		EXPECT_EQ(pid, e->victim_tgid);
		EXPECT_EQ(pid, e->pid) TH_LOG("the hog itself ran into the OOM");
		EXPECT_STREQ("/mwev_oom", e->memcg);
		if (e->has_constraint) {
			EXPECT_EQ(MEMWALK_OOM_CONSTRAINT_MEMCG, e->constraint);
			EXPECT_STREQ("/mwev_oom", e->oom_memcg);
		} else {
			TH_LOG("no OOM decision attributes on this kernel's leg: constraint not checked");
		}
		t_oom = e->time_ns;
	}
	/* the memcg stalls of the 10 s before, as the client's story should have */
	for (i = 0; i < self->sub.nr; i++) {
		const struct evrec *e = &self->sub.recs[i];

		if (e->grp == GRP_RECLAIM && e->type == MEMWALK_EV_MEMCG_RECLAIM_BEGIN &&
		    !strcmp(e->memcg, "/mwev_oom") && e->time_ns <= t_oom &&
		    e->time_ns + 10 * NSEC >= t_oom)
			in_story++;
	}
	pthread_mutex_unlock(&self->sub.lock);
	mbegin = sub_tally(&self->sub, GRP_RECLAIM, MEMWALK_EV_MEMCG_RECLAIM_BEGIN,
			   st0.grp[GRP_RECLAIM].seq, st1.grp[GRP_RECLAIM].seq, pid, "/mwev_oom");
	EXPECT_LT(0, mbegin.n) TH_LOG("no memcg reclaim before the OOM");

	/* The client: the same kill, with the story of the reclaim before it. */
	ASSERT_TRUE(bg_wait_for(&self->client, false, "\"event\":\"oom_kill\"", 5000));
	status = bg_stop(&self->client, SIGINT, 5);
	self->have_client = false;
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) TH_LOG("client status %#x", status);
	bg_read(self->client.out, out, sizeof(out));
	line = strstr(out, "\"event\":\"oom_kill\"");
	ASSERT_NE(NULL, line);
	EXPECT_EQ(NULL, strstr(line + 1, "\"event\":\"oom_kill\"")) TH_LOG("two OOM kills shown");
	EXPECT_EQ(pid, json_num(line, "\"victim\":", "pid"));
	story = strstr(line, "\"story\":");
	ASSERT_NE(NULL, story) TH_LOG("%.600s", line);
	EXPECT_NE(NULL, strstr(story, "\"scope\":\"/mwev_oom\"")) TH_LOG("%.600s", story);
	EXPECT_EQ((long long)in_story, json_num(story, "\"memcg\":{", "stalls"))
		TH_LOG("%.600s", story);
	EXPECT_EQ(0, json_num(story, NULL, "lost")) TH_LOG("%.600s", story);
	EXPECT_NE(NULL, strstr(out, "{\"event\":\"summary\",\"events\":1,"));
}

/* ---- the LRU sampler -------------------------------------------------------------- */

static int online_nodes(void)
{
	char buf[256], *p;
	int n = 0, a, b;

	if (mw_read_file("/sys/devices/system/node/online", buf, sizeof(buf)))
		return -1;
	for (p = strtok(buf, ",\n"); p; p = strtok(NULL, ",\n")) {
		if (sscanf(p, "%d-%d", &a, &b) == 2)
			n += b - a + 1;
		else
			n++;
	}
	return n;
}

TEST_F(events, lru_sampler)
{
	struct status st, st0, st1;
	struct mw_logcap lc = MW_LOGCAP(5);
	uint64_t got, prev = 0;
	size_t i, bad = 0;
	int nodes = online_nodes();

	ASSERT_LT(0, nodes) TH_LOG("/sys/devices/system/node/online unreadable");
	ASSERT_EQ(-EINVAL, mw_write_file(MOD_PARAMS "/sample_interval_ms", "5"));
	ASSERT_EQ(0, sub_start(&self->sub, 1u << GRP_LRU));
	ASSERT_EQ(0, status_get(&st0));
	ASSERT_EQ(0, mw_write_file(MOD_PARAMS "/sample_interval_ms", "100"));
	ASSERT_EQ(0, status_get(&st));
	EXPECT_EQ(100, st.sample_ms);
	msleep(1500);
	ASSERT_EQ(0, mw_write_file(MOD_PARAMS "/sample_interval_ms", "0"));
	msleep(300);
	ASSERT_EQ(0, status_get(&st1));
	EXPECT_EQ(0, st1.sample_ms);
	got = sub_wait(&self->sub, GRP_LRU, st0.grp[GRP_LRU].seq, st1.grp[GRP_LRU].seq, 3000);
	TH_LOG("%" PRIu64 " samples in 1.5 s at 100 ms (seq %" PRIu64 "..%" PRIu64 ")", got,
	       st0.grp[GRP_LRU].seq, st1.grp[GRP_LRU].seq);
	EXPECT_LE(3, got);
	EXPECT_GE(16, got);
	EXPECT_EQ(st1.grp[GRP_LRU].seq - st0.grp[GRP_LRU].seq, got);
	/* Every sample: its type and leg, one node attribute per online node, no task. */
	pthread_mutex_lock(&self->sub.lock);
	for (i = 0; i < self->sub.nr; i++) {
		const struct evrec *e = &self->sub.recs[i];

		if (e->type == MEMWALK_EV_LRU_SAMPLE && e->leg == MEMWALK_LEG_SAMPLER &&
		    (int)e->nr_nodes == nodes && !e->has_pid && (!prev || e->seq == prev + 1)) {
			prev = e->seq;
			continue;
		}
		bad++;
		if (mw_logcap_take(&lc))
			TH_LOG("event %zu: seq %" PRIu64 " after %" PRIu64 ", type %u, leg %u, %u nodes (%d online), %s",
			       i, e->seq, prev, e->type, e->leg, e->nr_nodes, nodes,
			       e->has_pid ? "with a task" : "no task");
		prev = e->seq;
	}
	pthread_mutex_unlock(&self->sub.lock);
	if (mw_logcap_dropped(&lc))
		TH_LOG("... and %u more", mw_logcap_dropped(&lc));
	EXPECT_EQ(0, bad) TH_LOG("%zu of %zu samples malformed or out of order", bad, self->sub.nr);
	/* Stopped: no sample after. */
	msleep(400);
	ASSERT_EQ(0, status_get(&st));
	EXPECT_EQ(st1.grp[GRP_LRU].seq, st.grp[GRP_LRU].seq);
}

/* ---- overflow and unload ----------------------------------------------------------- */

/*
 * With one event per CPU between deliveries, and deliveries held back
 * 200 ms (delivery_delay_ms) so that the reclaiming tasks cannot leave
 * the worker time to drain after each event, a flood of memcg reclaim
 * overflows.  Every loss is counted and reported: the seqs that never
 * came == the LOST totals == the module's drop counters, in the test's
 * subscriber and in the client's summary.
 */
TEST_F_TIMEOUT(events, overflow_counted_and_reported, 150)
{
	const char *argv[] = { mw_client_path(), "events", "--reclaim", NULL };
	static char err[8192];
	struct status st0, st1;
	struct summary sum;
	struct mw_run r;
	uint64_t got, missing, drops;
	pid_t pid;
	int status;

	NEED_PRESSURE();
	NEED_SWAP();
	ASSERT_EQ(0, module_unload(&r)) TH_LOG("rmmod: %s", r.err);
	ASSERT_EQ(0, module_load2(&r, "buffer_events=1", "delivery_delay_ms=200"))
		TH_LOG("insmod: %s", r.err);
	ASSERT_EQ(1, module_param_value("buffer_events"));
	ASSERT_EQ(200, module_param_value("delivery_delay_ms"));
	ASSERT_EQ(0, cg_create("mwev_flood", 8 * MiB, true));

	ASSERT_EQ(0, sub_start(&self->sub, 1u << GRP_RECLAIM));
	ASSERT_EQ(0, bg_start(&self->client, argv));
	self->have_client = true;
	ASSERT_TRUE(bg_wait_for(&self->client, false, "TIME(s)", 5000)) TH_LOG("client did not start");
	ASSERT_TRUE(settle(300, 20000));
	ASSERT_EQ(0, status_get(&st0));
	EXPECT_EQ(0, st0.drops_overflow + st0.drops_delivery) TH_LOG("losses before the flood");

	pid = spawn_hog("mwev_flood", 32 * MiB, 0, 0);
	ASSERT_LT(0, pid);
	msleep(6000);
	kill(pid, SIGKILL);
	wait_child(pid, 10);
	ASSERT_TRUE(settle(300, 20000));
	ASSERT_EQ(0, status_get(&st1));

	got = sub_wait(&self->sub, GRP_RECLAIM, st0.grp[GRP_RECLAIM].seq,
		       st1.grp[GRP_RECLAIM].seq, 5000);
	missing = st1.grp[GRP_RECLAIM].seq - st0.grp[GRP_RECLAIM].seq - got;
	drops = st1.drops_overflow + st1.drops_delivery;
	TH_LOG("%" PRIu64 " events recorded, %" PRIu64 " received, %" PRIu64 " missing; LOST %"
	       PRIu64 "; module: %" PRIu64 " overflow (%" PRIu64 " by CPU), %" PRIu64 " delivery",
	       st1.grp[GRP_RECLAIM].seq - st0.grp[GRP_RECLAIM].seq, got, missing,
	       self->sub.lost[GRP_RECLAIM], st1.drops_overflow, st1.cpu_overflow,
	       st1.drops_delivery);
	EXPECT_LT(0, st1.grp[GRP_RECLAIM].overflow) TH_LOG("the flood did not overflow");
	EXPECT_EQ(0, self->sub.enobufs[GRP_RECLAIM]);
	EXPECT_EQ(missing, self->sub.lost[GRP_RECLAIM]);
	EXPECT_EQ(st1.grp[GRP_RECLAIM].overflow + st1.grp[GRP_RECLAIM].delivery,
		  self->sub.lost[GRP_RECLAIM]);
	EXPECT_EQ(drops, self->sub.lost[GRP_RECLAIM]) TH_LOG("losses in other groups");
	EXPECT_EQ(st1.drops_overflow, st1.cpu_overflow);
	EXPECT_EQ(got, st1.grp[GRP_RECLAIM].sent - st0.grp[GRP_RECLAIM].sent);

	/* The client: same counts, exit 0 on SIGINT. */
	status = bg_stop(&self->client, SIGINT, 10);
	self->have_client = false;
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) TH_LOG("client status %#x", status);
	bg_read(self->client.err, err, sizeof(err));
	ASSERT_TRUE(parse_summary(err, &sum)) TH_LOG("stderr: %s", err);
	EXPECT_EQ(0, sum.overflows);
	EXPECT_EQ(self->sub.lost[GRP_RECLAIM], sum.lost);
	EXPECT_EQ(missing, sum.missing);
	EXPECT_EQ(got, sum.events);
}

/*
 * rmmod while reclaim events pour in and two subscribers listen: the
 * module goes cleanly (no splat: vm-run.sh reads dmesg), nlctrl tells the
 * subscribers the family is gone, the client says so and exits 2.
 */
TEST_F_TIMEOUT(events, rmmod_during_flood, 120)
{
	const char *argv[] = { mw_client_path(), "events", "--json", NULL };
	static char err[8192];
	struct mw_run r;
	uint64_t before;
	pid_t pid;
	int status, i;

	NEED_SWAP();
	ASSERT_EQ(0, cg_create("mwev_flood", 8 * MiB, true));
	ASSERT_EQ(0, sub_start(&self->sub, 1u << GRP_RECLAIM | 1u << GRP_OOM));
	ASSERT_EQ(0, bg_start(&self->client, argv));
	self->have_client = true;
	msleep(500);

	pid = spawn_hog("mwev_flood", 32 * MiB, 0, 0);
	ASSERT_LT(0, pid);
	/* the hog's first charge over the limit: slow under KASAN and TCG */
	for (i = 0; i < 1200 && !self->sub.nr; i++)
		msleep(50);
	ASSERT_LT(0, self->sub.nr) TH_LOG("no events from the flood in 60 s");
	msleep(1000);
	ASSERT_EQ(0, module_unload(&r)) TH_LOG("rmmod: %s", r.err);
	before = self->sub.nr;

	for (i = 0; i < 100 && !self->sub.family_gone; i++)
		msleep(50);
	EXPECT_TRUE(self->sub.family_gone) TH_LOG("no CTRL_CMD_DELFAMILY for memwalk");
	status = bg_stop(&self->client, 0, 10);
	self->have_client = false;
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 2) TH_LOG("client status %#x", status);
	bg_read(self->client.err, err, sizeof(err));
	EXPECT_NE(NULL, strstr(err, "the memwalk module was unloaded")) TH_LOG("stderr: %s", err);

	/* Nothing more comes, and the flood goes on without the module. */
	msleep(500);
	EXPECT_EQ(before, self->sub.nr);
	EXPECT_EQ(0, waitpid(pid, &status, WNOHANG)) TH_LOG("the flood died with the module");
	kill(pid, SIGKILL);
	wait_child(pid, 10);

	ASSERT_EQ(0, module_load(&r, NULL)) TH_LOG("insmod: %s", r.err);
	EXPECT_EQ(128, module_param_value("buffer_events"));
}

/* ---- a delivery loss and what follows it ------------------------------------------- */

#define FAILSLAB	MW_DEBUGFS "/failslab"
#define LOSS_EPISODES	12

static int failslab_set(const char *file, const char *val)
{
	char path[128];

	snprintf(path, sizeof(path), FAILSLAB "/%s", file);
	return mw_write_file(path, val);
}

/* [start, end) of memwalk's function @fn, from /proc/kallsyms. */
static int module_fn_range(const char *fn, unsigned long long *start, unsigned long long *end)
{
	char line[256], type[4], name[128], mod[64];
	unsigned long long a;
	FILE *f = fopen("/proc/kallsyms", "r");

	*start = 0;
	*end = ~0ULL;
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %3s %127s %63s", &a, type, name, mod) != 4 ||
		    strcmp(mod, "[memwalk]"))
			continue;
		if (!strcmp(name, fn))
			*start = a;
	}
	rewind(f);
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %3s %127s %63s", &a, type, name, mod) == 4 &&
		    !strcmp(mod, "[memwalk]") && a > *start && a < *end)
			*end = a;
	}
	fclose(f);
	return *start && *end != ~0ULL ? 0 : -1;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * A datagram lost for want of memory must not hold back the events after
 * it: the loss is reported with the next delivery, delivery_delay_ms
 * (5 ms here) after the next event, not when the 100 ms loss-report timer
 * fires.  failslab fails the two tries of one datagram's allocation in the
 * delivery work (stack filter on ev_deliver), LOSS_EPISODES times, while
 * memcg reclaim floods.  For each LOST record, the oldest event in its
 * datagram says how long events waited: ~100 ms if the timer held them.
 * The median over the episodes must stay under 50 ms.
 */
TEST_F_TIMEOUT(events, loss_report_does_not_delay_events, 180)
{
	unsigned long long start, end;
	uint64_t worst[LOSS_EPISODES * 4], lost = 0;
	struct mw_logcap lc = MW_LOGCAP(12);
	char buf[32];
	struct mw_run r;
	size_t i, j, nw = 0;
	int ep, k, ret, injected = 0;
	pid_t pid;

	ret = mw_debugfs();
	if (ret == -ENODEV)
		SKIP(return, "kernel without debugfs (CONFIG_DEBUG_FS), so without failslab");
	ASSERT_EQ(0, ret) TH_LOG("debugfs is not mounted at " MW_DEBUGFS);
	if (access(FAILSLAB, F_OK))
		SKIP(return, "kernel without failslab (CONFIG_FAILSLAB)");
	if (access(FAILSLAB "/require-start", F_OK))
		SKIP(return, "kernel without failslab's stack filter (CONFIG_FAULT_INJECTION_STACKTRACE_FILTER)");
	NEED_SWAP();
	ASSERT_EQ(0, module_unload(&r)) TH_LOG("rmmod: %s", r.err);
	ASSERT_EQ(0, module_load(&r, "delivery_delay_ms=5")) TH_LOG("insmod: %s", r.err);
	ASSERT_EQ(0, module_fn_range("ev_deliver", &start, &end)) TH_LOG("ev_deliver not in kallsyms");

	ASSERT_EQ(0, cg_create("mwev_flood", 8 * MiB, true));
	ASSERT_EQ(0, sub_start(&self->sub, 1u << GRP_RECLAIM));
	pid = spawn_hog("mwev_flood", 32 * MiB, 0, 0);
	ASSERT_LT(0, pid);
	for (k = 0; k < 100 && !self->sub.nr; k++)
		msleep(50);
	ASSERT_LT(0, self->sub.nr) TH_LOG("no events from the flood");

	ASSERT_EQ(0, failslab_set("probability", "0"));
	ASSERT_EQ(0, failslab_set("verbose", "0"));
	ASSERT_EQ(0, failslab_set("task-filter", "N"));
	ASSERT_EQ(0, failslab_set("interval", "1"));
	ASSERT_EQ(0, failslab_set("space", "0"));
	ASSERT_EQ(0, failslab_set("stacktrace-depth", "32"));
	snprintf(buf, sizeof(buf), "%#llx", start);
	ASSERT_EQ(0, failslab_set("require-start", buf));
	snprintf(buf, sizeof(buf), "%#llx", end);
	ASSERT_EQ(0, failslab_set("require-end", buf));
	for (ep = 0; ep < LOSS_EPISODES; ep++) {
		/* nlmsg_new(), then again with __GFP_HIGH: one datagram lost */
		ASSERT_EQ(0, failslab_set("times", "2"));
		ASSERT_EQ(0, failslab_set("probability", "100"));
		for (k = 0; k < 300; k++) {
			if (!mw_read_file(FAILSLAB "/times", buf, sizeof(buf)) && atoi(buf) == 0)
				break;
			msleep(10);
		}
		failslab_set("probability", "0");
		injected += k < 300;
		msleep(400);
	}
	failslab_set("require-start", "0");
	failslab_set("require-end", "0xffffffffffffffff");
	failslab_set("times", "-1");
	kill(pid, SIGKILL);
	wait_child(pid, 10);
	msleep(300);

	pthread_mutex_lock(&self->sub.lock);
	for (i = 0; i < self->sub.nr; i++) {
		const struct evrec *l = &self->sub.recs[i];
		uint64_t w = 0;

		if (l->type != MEMWALK_EV_LOST)
			continue;
		lost += l->lost;
		for (j = i + 1; j < self->sub.nr && self->sub.recs[j].recv_ns == l->recv_ns; j++)
			if (self->sub.recs[j].recv_ns - self->sub.recs[j].time_ns > w)
				w = self->sub.recs[j].recv_ns - self->sub.recs[j].time_ns;
		if (w && nw < ARRAY_SIZE(worst))
			worst[nw++] = w;
	}
	pthread_mutex_unlock(&self->sub.lock);
	qsort(worst, nw, sizeof(worst[0]), cmp_u64);
	for (i = 0; i < nw; i++)
		if (mw_logcap_take(&lc))
			TH_LOG("LOST report %zu: its datagram's oldest event waited %" PRIu64 " ms",
			       i, worst[i] / 1000000);
	if (mw_logcap_dropped(&lc))
		TH_LOG("... and %u more, the longest %" PRIu64 " ms", mw_logcap_dropped(&lc),
		       worst[nw - 1] / 1000000);
	TH_LOG("%d of %d injections taken, %" PRIu64 " events reported lost, %zu reports with events",
	       injected, LOSS_EPISODES, lost, nw);
	ASSERT_LE(LOSS_EPISODES / 2, injected) TH_LOG("failslab did not reach the delivery");
	ASSERT_LE(3, nw) TH_LOG("too few LOST reports with events after them");
	EXPECT_GT(50 * 1000000ULL, worst[nw / 2])
		TH_LOG("events after a loss waited %" PRIu64 " ms (median), delivery_delay_ms=5",
		       worst[nw / 2] / 1000000);
}

TEST_HARNESS_MAIN

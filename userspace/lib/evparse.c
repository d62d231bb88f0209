// SPDX-License-Identifier: GPL-2.0
/*
 * libmemwalk: MEMWALK_CMD_EVENT and GET_STATUS messages into structs, and
 * the names of what they carry.  See evparse.h.
 *
 * Every attribute is checked against a libnl attribute policy (its size,
 * a string's NUL), so that a message from a buggy module is refused, not
 * half-read; see "attributes" below for what needs a loop.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <linux/genetlink.h>
#include <linux/netlink.h>

#include <netlink/attr.h>

#include "evparse.h"

/* ---- names -------------------------------------------------------------- */

static const char *const group_names[MW_NR_GROUPS] = {
	[MW_GRP_RECLAIM]	= MEMWALK_MCGRP_RECLAIM,
	[MW_GRP_OOM]		= MEMWALK_MCGRP_OOM,
	[MW_GRP_LRU]		= MEMWALK_MCGRP_LRU,
};

const char *mw_group_name(enum mw_group grp)
{
	return (unsigned int)grp < MW_NR_GROUPS ? group_names[grp] : "?";
}

enum mw_group mw_event_group(uint32_t type)
{
	switch (type) {
	case MEMWALK_EV_OOM_KILL:
		return MW_GRP_OOM;
	case MEMWALK_EV_LRU_SAMPLE:
		return MW_GRP_LRU;
	default:
		return MW_GRP_RECLAIM;
	}
}

static const char *const event_names[] = {
	[MEMWALK_EV_LOST]			= "lost",
	[MEMWALK_EV_KSWAPD_WAKE]		= "kswapd_wake",
	[MEMWALK_EV_KSWAPD_RUN_BEGIN]		= "kswapd_run_begin",
	[MEMWALK_EV_KSWAPD_RUN_END]		= "kswapd_run_end",
	[MEMWALK_EV_DIRECT_RECLAIM_BEGIN]	= "direct_reclaim_begin",
	[MEMWALK_EV_DIRECT_RECLAIM_END]		= "direct_reclaim_end",
	[MEMWALK_EV_MEMCG_RECLAIM_BEGIN]	= "memcg_reclaim_begin",
	[MEMWALK_EV_MEMCG_RECLAIM_END]		= "memcg_reclaim_end",
	[MEMWALK_EV_OOM_KILL]			= "oom_kill",
	[MEMWALK_EV_LRU_SAMPLE]			= "lru_sample",
};

_Static_assert(sizeof(event_names) / sizeof(event_names[0]) == MEMWALK_EV_MAX + 1,
	       "a name for every event type");

#define NAME_OF(table, i) \
	((i) < sizeof(table) / sizeof((table)[0]) ? (table)[i] : NULL)

const char *mw_event_name(uint32_t type)
{
	return NAME_OF(event_names, type);
}

static const char *const leg_names[] = {
	[MEMWALK_LEG_NONE]		= "none",
	[MEMWALK_LEG_TRACEPOINT]	= "tracepoint",
	[MEMWALK_LEG_KPROBE]		= "kprobe",
	[MEMWALK_LEG_KRETPROBE]		= "kretprobe",
	[MEMWALK_LEG_SAMPLER]		= "sampler",
};

const char *mw_leg_name(uint32_t leg)
{
	return NAME_OF(leg_names, leg);
}

static const char *const constraint_names[] = {
	[MEMWALK_OOM_CONSTRAINT_NONE]		= "none",
	[MEMWALK_OOM_CONSTRAINT_CPUSET]		= "cpuset",
	[MEMWALK_OOM_CONSTRAINT_MEMORY_POLICY]	= "memory_policy",
	[MEMWALK_OOM_CONSTRAINT_MEMCG]		= "memcg",
};

const char *mw_constraint_name(uint32_t c)
{
	return NAME_OF(constraint_names, c);
}

static const char *const probe_state_names[] = {
	[MEMWALK_PROBE_ATTACHED]	= "attached",
	[MEMWALK_PROBE_STANDBY]		= "standby",
	[MEMWALK_PROBE_FAILED]		= "failed",
	[MEMWALK_PROBE_ABSENT]		= "absent",
	[MEMWALK_PROBE_DISABLED]	= "disabled",
};

const char *mw_probe_state_name(uint32_t s)
{
	return NAME_OF(probe_state_names, s);
}

const char *const mw_node_item_names[MW_N_ITEMS] = {
	[MW_N_ACTIVE_ANON]	= "active_anon",
	[MW_N_INACTIVE_ANON]	= "inactive_anon",
	[MW_N_ACTIVE_FILE]	= "active_file",
	[MW_N_INACTIVE_FILE]	= "inactive_file",
	[MW_N_UNEVICTABLE]	= "unevictable",
	[MW_N_FREE]		= "free",
	[MW_N_WMARK_MIN]	= "wmark_min",
	[MW_N_WMARK_LOW]	= "wmark_low",
	[MW_N_WMARK_HIGH]	= "wmark_high",
};

/* ---- gfp flags ------------------------------------------------------------- */

/* include/linux/gfp_types.h: the bits that mean the same from 6.1 to 7.x. */
#define G_DMA		0x01u
#define G_HIGHMEM	0x02u
#define G_DMA32		0x04u
#define G_MOVABLE	0x08u
#define G_RECLAIMABLE	0x10u
#define G_HIGH		0x20u
#define G_IO		0x40u
#define G_FS		0x80u
#define G_ZERO		0x100u
#define G_ATOMIC	0x200u		/* before 6.3 only */
#define G_DIRECT	0x400u
#define G_KSWAPD	0x800u
#define G_WRITE		0x1000u
#define G_NOWARN	0x2000u
#define G_RETRY_MAYFAIL	0x4000u
#define G_NOFAIL	0x8000u
#define G_NORETRY	0x10000u
#define G_MEMALLOC	0x20000u
#define G_COMP		0x40000u
#define G_NOMEMALLOC	0x80000u
#define G_HARDWALL	0x100000u
#define G_THISNODE	0x200000u
#define G_ACCOUNT	0x400000u
#define G_ZEROTAGS	0x800000u

#define G_RECLAIM	(G_DIRECT | G_KSWAPD)
#define G_KERNEL	(G_RECLAIM | G_IO | G_FS)
#define G_USER		(G_KERNEL | G_HARDWALL)
#define G_HIGHUSER_MOVABLE (G_USER | G_HIGHMEM | G_MOVABLE)
#define G_THP_LIGHT	((G_HIGHUSER_MOVABLE | G_COMP | G_NOMEMALLOC | G_NOWARN) & ~G_RECLAIM)

struct gfp_name {
	uint32_t mask;
	const char *name;
};

/* The order of mmflags.h's __def_gfpflag_names: composites first. */
static const struct gfp_name gfp_names[] = {
	{ G_THP_LIGHT | G_DIRECT,		"GFP_TRANSHUGE" },
	{ G_THP_LIGHT,				"GFP_TRANSHUGE_LIGHT" },
	{ G_HIGHUSER_MOVABLE,			"GFP_HIGHUSER_MOVABLE" },
	{ G_USER | G_HIGHMEM,			"GFP_HIGHUSER" },
	{ G_USER,				"GFP_USER" },
	{ G_KERNEL | G_ACCOUNT,			"GFP_KERNEL_ACCOUNT" },
	{ G_KERNEL,				"GFP_KERNEL" },
	{ G_RECLAIM | G_IO,			"GFP_NOFS" },
	{ G_HIGH | G_KSWAPD,			"GFP_ATOMIC" },
	{ G_RECLAIM,				"GFP_NOIO" },
	{ G_KSWAPD,				"GFP_NOWAIT" },
	{ G_DMA,				"GFP_DMA" },
	{ G_DMA32,				"GFP_DMA32" },
	{ G_HIGHMEM,				"__GFP_HIGHMEM" },
	{ G_MOVABLE,				"__GFP_MOVABLE" },
	{ G_RECLAIMABLE,			"__GFP_RECLAIMABLE" },
	{ G_HIGH,				"__GFP_HIGH" },
	{ G_IO,					"__GFP_IO" },
	{ G_FS,					"__GFP_FS" },
	{ G_ZERO,				"__GFP_ZERO" },
	{ G_DIRECT,				"__GFP_DIRECT_RECLAIM" },
	{ G_KSWAPD,				"__GFP_KSWAPD_RECLAIM" },
	{ G_WRITE,				"__GFP_WRITE" },
	{ G_NOWARN,				"__GFP_NOWARN" },
	{ G_RETRY_MAYFAIL,			"__GFP_RETRY_MAYFAIL" },
	{ G_NOFAIL,				"__GFP_NOFAIL" },
	{ G_NORETRY,				"__GFP_NORETRY" },
	{ G_MEMALLOC,				"__GFP_MEMALLOC" },
	{ G_COMP,				"__GFP_COMP" },
	{ G_NOMEMALLOC,				"__GFP_NOMEMALLOC" },
	{ G_HARDWALL,				"__GFP_HARDWALL" },
	{ G_THISNODE,				"__GFP_THISNODE" },
	{ G_ACCOUNT,				"__GFP_ACCOUNT" },
	{ G_ZEROTAGS,				"__GFP_ZEROTAGS" },
};

static void append(char *buf, size_t len, size_t *pos, const char *s)
{
	int n;

	if (*pos >= len)
		return;
	n = snprintf(buf + *pos, len - *pos, "%s%s", *pos ? "|" : "", s);
	*pos += n > 0 ? (size_t)n : 0;
}

const char *mw_gfp_names(uint32_t gfp, bool atomic_bit, char *buf, size_t len)
{
	uint32_t left = gfp;
	size_t pos = 0;
	char hex[16];
	unsigned int i;

	buf[0] = '\0';
	if (!gfp) {
		snprintf(buf, len, "none");
		return buf;
	}
	for (i = 0; i < sizeof(gfp_names) / sizeof(gfp_names[0]); i++) {
		if ((left & gfp_names[i].mask) == gfp_names[i].mask) {
			append(buf, len, &pos, gfp_names[i].name);
			left &= ~gfp_names[i].mask;
		}
	}
	if (atomic_bit && (left & G_ATOMIC)) {
		append(buf, len, &pos, "__GFP_ATOMIC");
		left &= ~G_ATOMIC;
	}
	if (left) {
		snprintf(hex, sizeof(hex), "%#x", left);
		append(buf, len, &pos, hex);
	}
	return buf;
}

bool mw_release_before(const char *release, unsigned int major,
		       unsigned int minor)
{
	unsigned int ma, mi;

	if (!release || sscanf(release, "%u.%u", &ma, &mi) != 2)
		return false;
	return ma < major || (ma == major && mi < minor);
}

/* ---- attributes ------------------------------------------------------------ */

/*
 * Attribute policies: exact sizes for integers (libnl's NLA_U32 alone only
 * asks for at least 4 bytes), strings NUL-terminated.  nla_parse() checks
 * every attribute of the types it knows against them and keeps the last
 * of each type, as the kernel's parser does.  Attributes that repeat (the
 * nodes of an event, the probes, groups and CPUs of the status) are nests
 * read in a loop (for_each_nest()), each nest with nla_parse_nested() and
 * its own policy; the loop also counts types newer than this client and
 * refuses bytes after the last attribute, which nla_parse() lets pass.
 */
#define P_U32	{ .type = NLA_U32, .minlen = 4, .maxlen = 4 }
#define P_S32	{ .type = NLA_S32, .minlen = 4, .maxlen = 4 }
#define P_U64	{ .type = NLA_U64, .minlen = 8, .maxlen = 8 }
#define P_S64	{ .type = NLA_S64, .minlen = 8, .maxlen = 8 }
#define P_STR	{ .type = NLA_STRING }
#define P_NEST	{ .type = NLA_NESTED }

/* libnl's parsers take the attributes by non-const pointer; they only read. */
static struct nlattr *attr_head(const void *p)
{
	return (struct nlattr *)p;
}

/* What a nest's reader returns for a malformed nest. */
#define BAD_NEST	(-2)
/* for_each_nest()'s @type for attributes of every type */
#define ANY_TYPE	(-1)

/*
 * Call @fn (if not NULL) for each attribute of type @type (or ANY_TYPE)
 * in the stream [@head, +@len).
 * Returns 0, -1 if the stream does not end on an attribute's end (or its
 * padding), or what @fn returned when it was not 0.  *@unknown (if not
 * NULL) counts the attributes of types above @max.
 */
static int for_each_nest(const void *head, int len, int type, int max,
			 unsigned int *unknown,
			 int (*fn)(struct nlattr *nest, void *arg), void *arg)
{
	struct nlattr *nla;
	int rem, ret;

	nla_for_each_attr(nla, attr_head(head), len, rem) {
		if (nla_type(nla) > max && unknown)
			(*unknown)++;
		if (!fn || (type != ANY_TYPE && nla_type(nla) != type))
			continue;
		ret = fn(nla, arg);
		if (ret)
			return ret;
	}
	return rem > 0 ? -1 : 0;
}

/* nla_parse_nested(), and the nest must hold whole attributes only. */
static int parse_nest(struct nlattr **tb, int max, struct nlattr *nest,
		      const struct nla_policy *policy)
{
	if (nla_parse_nested(tb, max, nest, policy) < 0)
		return -1;
	return for_each_nest(nla_data(nest), nla_len(nest), ANY_TYPE, max, NULL,
			     NULL, NULL);
}

static const char *get_str(const struct nlattr *a)
{
	return nla_data(a);
}

/* ---- events ------------------------------------------------------------------ */

static const struct nla_policy event_policy[MEMWALK_A_MAX + 1] = {
	[MEMWALK_A_EVENT_TYPE]		= P_U32,
	[MEMWALK_A_EVENT_SEQ]		= P_U64,
	[MEMWALK_A_EVENT_CPU]		= P_U32,
	[MEMWALK_A_EVENT_TIME_NS]	= P_U64,
	[MEMWALK_A_EVENT_LEG]		= P_U32,
	[MEMWALK_A_EVENT_LOST]		= P_U64,
	[MEMWALK_A_EVENT_NODE]		= P_NEST,
	[MEMWALK_A_EVENT_PID]		= P_U32,
	[MEMWALK_A_EVENT_TGID]		= P_U32,
	[MEMWALK_A_EVENT_COMM]		= P_STR,
	[MEMWALK_A_EVENT_MEMCG_PATH]	= P_STR,
	[MEMWALK_A_EVENT_MEMCG_ID]	= P_U64,
	[MEMWALK_A_EVENT_NID]		= P_U32,
	[MEMWALK_A_EVENT_ZID]		= P_U32,
	[MEMWALK_A_EVENT_ORDER]		= P_S32,
	[MEMWALK_A_EVENT_GFP]		= P_U32,
	[MEMWALK_A_EVENT_NR_RECLAIMED]	= P_U64,
	[MEMWALK_A_EVENT_DURATION_NS]	= P_U64,
	[MEMWALK_A_EVENT_RECLAIM_ORDER]	= P_S32,
	[MEMWALK_A_OOM_VICTIM_PID]	= P_U32,
	[MEMWALK_A_OOM_VICTIM_TGID]	= P_U32,
	[MEMWALK_A_OOM_VICTIM_COMM]	= P_STR,
	[MEMWALK_A_OOM_VICTIM_UID]	= P_U32,
	[MEMWALK_A_OOM_VICTIM_MEMCG_PATH] = P_STR,
	[MEMWALK_A_OOM_VICTIM_MEMCG_ID]	= P_U64,
	[MEMWALK_A_OOM_TOTAL_VM]	= P_U64,
	[MEMWALK_A_OOM_RSS_ANON]	= P_U64,
	[MEMWALK_A_OOM_RSS_FILE]	= P_U64,
	[MEMWALK_A_OOM_RSS_SHMEM]	= P_U64,
	[MEMWALK_A_OOM_SCORE_ADJ]	= P_S32,
	[MEMWALK_A_OOM_CONSTRAINT]	= P_U32,
	[MEMWALK_A_OOM_MEMCG_PATH]	= P_STR,
	[MEMWALK_A_OOM_MEMCG_ID]	= P_U64,
	[MEMWALK_A_OOM_POINTS]		= P_S64,
	[MEMWALK_A_OOM_TOTALPAGES]	= P_U64,
};

static const struct nla_policy node_policy[MEMWALK_A_NODE_MAX + 1] = {
	[MEMWALK_A_NODE_ID]		= P_U32,
	[MEMWALK_A_NODE_ACTIVE_ANON]	= P_U64,
	[MEMWALK_A_NODE_INACTIVE_ANON]	= P_U64,
	[MEMWALK_A_NODE_ACTIVE_FILE]	= P_U64,
	[MEMWALK_A_NODE_INACTIVE_FILE]	= P_U64,
	[MEMWALK_A_NODE_UNEVICTABLE]	= P_U64,
	[MEMWALK_A_NODE_FREE]		= P_U64,
	[MEMWALK_A_NODE_WMARK_MIN]	= P_U64,
	[MEMWALK_A_NODE_WMARK_LOW]	= P_U64,
	[MEMWALK_A_NODE_WMARK_HIGH]	= P_U64,
};

static const enum mw_node_item node_items[MEMWALK_A_NODE_MAX + 1] = {
	[MEMWALK_A_NODE_ACTIVE_ANON]	= MW_N_ACTIVE_ANON,
	[MEMWALK_A_NODE_INACTIVE_ANON]	= MW_N_INACTIVE_ANON,
	[MEMWALK_A_NODE_ACTIVE_FILE]	= MW_N_ACTIVE_FILE,
	[MEMWALK_A_NODE_INACTIVE_FILE]	= MW_N_INACTIVE_FILE,
	[MEMWALK_A_NODE_UNEVICTABLE]	= MW_N_UNEVICTABLE,
	[MEMWALK_A_NODE_FREE]		= MW_N_FREE,
	[MEMWALK_A_NODE_WMARK_MIN]	= MW_N_WMARK_MIN,
	[MEMWALK_A_NODE_WMARK_LOW]	= MW_N_WMARK_LOW,
	[MEMWALK_A_NODE_WMARK_HIGH]	= MW_N_WMARK_HIGH,
};

/* One MEMWALK_A_EVENT_NODE: PAD and newer attributes are skipped. */
static int event_node(struct nlattr *nest, void *arg)
{
	struct nlattr *tb[MEMWALK_A_NODE_MAX + 1];
	struct mw_event *ev = arg;
	struct mw_ev_node node = { 0 };
	int type;

	if (parse_nest(tb, MEMWALK_A_NODE_MAX, nest, node_policy))
		return BAD_NEST;
	if (tb[MEMWALK_A_NODE_ID]) {
		node.id = nla_get_u32(tb[MEMWALK_A_NODE_ID]);
		node.has_id = true;
	}
	for (type = MEMWALK_A_NODE_ACTIVE_ANON; type <= MEMWALK_A_NODE_WMARK_HIGH; type++) {
		if (!tb[type])
			continue;
		node.v[node_items[type]] = nla_get_u64(tb[type]);
		node.has |= 1u << node_items[type];
	}
	if (ev->nr_nodes < MW_EV_MAX_NODES)
		ev->nodes[ev->nr_nodes++] = node;
	else
		ev->nodes_dropped++;
	return 0;
}

/* The attributes of a generic netlink message, or NULL if it is too short. */
static const void *genl_attrs(const struct nlmsghdr *nlh, int *len, uint8_t *cmd)
{
	const struct genlmsghdr *g;

	if (nlh->nlmsg_len < NLMSG_LENGTH(GENL_HDRLEN))
		return NULL;
	g = NLMSG_DATA(nlh);
	*cmd = g->cmd;
	*len = nlh->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN);
	return (const unsigned char *)g + GENL_HDRLEN;
}

#define U32(tb, a)	((tb)[a] ? nla_get_u32((tb)[a]) : 0)
#define S32(tb, a)	((int32_t)U32(tb, a))
#define U64(tb, a)	((tb)[a] ? nla_get_u64((tb)[a]) : 0)
#define S64(tb, a)	((int64_t)U64(tb, a))
#define STR(tb, a)	((tb)[a] ? get_str((tb)[a]) : NULL)

int mw_event_parse(const struct nlmsghdr *nlh, struct mw_event *ev,
		   const char **why)
{
	struct nlattr *tb[MEMWALK_A_MAX + 1];
	const void *attrs;
	uint8_t cmd;
	int len, type;

	memset(ev, 0, offsetof(struct mw_event, nodes));	/* nodes[]: as filled */
	attrs = genl_attrs(nlh, &len, &cmd);
	if (!attrs) {
		*why = "message shorter than its generic netlink header";
		return -EBADMSG;
	}
	if (cmd != MEMWALK_CMD_EVENT) {
		*why = "not a MEMWALK_CMD_EVENT message";
		return -EBADMSG;
	}
	if (nla_parse(tb, MEMWALK_A_MAX, attr_head(attrs), len, event_policy) < 0) {
		*why = "attribute of the wrong size";
		return -EBADMSG;
	}
	switch (for_each_nest(attrs, len, MEMWALK_A_EVENT_NODE, MEMWALK_A_MAX,
			      &ev->unknown_attrs, event_node, ev)) {
	case 0:
		break;
	case BAD_NEST:
		*why = "malformed MEMWALK_A_EVENT_NODE";
		return -EBADMSG;
	default:
		*why = "malformed attributes";
		return -EBADMSG;
	}
	for (type = 0; type <= MEMWALK_A_MAX; type++)
		if (tb[type] && event_policy[type].type != NLA_UNSPEC)
			ev->has |= MW_HAS(type);
	if (!(ev->has & MW_HAS(MEMWALK_A_EVENT_TYPE))) {
		*why = "no MEMWALK_A_EVENT_TYPE";
		return -EBADMSG;
	}
	ev->type = U32(tb, MEMWALK_A_EVENT_TYPE);
	ev->seq = U64(tb, MEMWALK_A_EVENT_SEQ);
	ev->cpu = U32(tb, MEMWALK_A_EVENT_CPU);
	ev->time_ns = U64(tb, MEMWALK_A_EVENT_TIME_NS);
	ev->leg = U32(tb, MEMWALK_A_EVENT_LEG);
	ev->lost = U64(tb, MEMWALK_A_EVENT_LOST);
	ev->pid = U32(tb, MEMWALK_A_EVENT_PID);
	ev->tgid = U32(tb, MEMWALK_A_EVENT_TGID);
	ev->comm = STR(tb, MEMWALK_A_EVENT_COMM);
	ev->memcg_path = STR(tb, MEMWALK_A_EVENT_MEMCG_PATH);
	ev->memcg_id = U64(tb, MEMWALK_A_EVENT_MEMCG_ID);
	ev->nid = U32(tb, MEMWALK_A_EVENT_NID);
	ev->zid = U32(tb, MEMWALK_A_EVENT_ZID);
	ev->order = S32(tb, MEMWALK_A_EVENT_ORDER);
	ev->gfp = U32(tb, MEMWALK_A_EVENT_GFP);
	ev->nr_reclaimed = U64(tb, MEMWALK_A_EVENT_NR_RECLAIMED);
	ev->duration_ns = U64(tb, MEMWALK_A_EVENT_DURATION_NS);
	ev->reclaim_order = S32(tb, MEMWALK_A_EVENT_RECLAIM_ORDER);
	ev->victim_pid = U32(tb, MEMWALK_A_OOM_VICTIM_PID);
	ev->victim_tgid = U32(tb, MEMWALK_A_OOM_VICTIM_TGID);
	ev->victim_comm = STR(tb, MEMWALK_A_OOM_VICTIM_COMM);
	ev->victim_uid = U32(tb, MEMWALK_A_OOM_VICTIM_UID);
	ev->victim_memcg_path = STR(tb, MEMWALK_A_OOM_VICTIM_MEMCG_PATH);
	ev->victim_memcg_id = U64(tb, MEMWALK_A_OOM_VICTIM_MEMCG_ID);
	ev->total_vm = U64(tb, MEMWALK_A_OOM_TOTAL_VM);
	ev->rss_anon = U64(tb, MEMWALK_A_OOM_RSS_ANON);
	ev->rss_file = U64(tb, MEMWALK_A_OOM_RSS_FILE);
	ev->rss_shmem = U64(tb, MEMWALK_A_OOM_RSS_SHMEM);
	ev->score_adj = S32(tb, MEMWALK_A_OOM_SCORE_ADJ);
	ev->constraint = U32(tb, MEMWALK_A_OOM_CONSTRAINT);
	ev->oom_memcg_path = STR(tb, MEMWALK_A_OOM_MEMCG_PATH);
	ev->oom_memcg_id = U64(tb, MEMWALK_A_OOM_MEMCG_ID);
	ev->points = S64(tb, MEMWALK_A_OOM_POINTS);
	ev->totalpages = U64(tb, MEMWALK_A_OOM_TOTALPAGES);
	return 0;
}

/* ---- GET_STATUS ----------------------------------------------------------------- */

static const struct nla_policy status_policy[MEMWALK_A_MAX + 1] = {
	[MEMWALK_A_MODULE_VERSION]		= P_STR,
	[MEMWALK_A_UAPI_VERSION]		= P_U32,
	[MEMWALK_A_RELEASE]			= P_STR,
	[MEMWALK_A_STATUS_PAGE_SIZE]		= P_U32,
	[MEMWALK_A_STATUS_BUFFER_EVENTS]	= P_U32,
	[MEMWALK_A_STATUS_SAMPLE_INTERVAL_MS]	= P_U32,
	[MEMWALK_A_STATUS_KRETPROBE_MAXACTIVE]	= P_U32,
	[MEMWALK_A_STATUS_DROPS_OVERFLOW]	= P_U64,
	[MEMWALK_A_STATUS_DROPS_DELIVERY]	= P_U64,
	[MEMWALK_A_STATUS_PROBE]		= P_NEST,
	[MEMWALK_A_STATUS_GROUP]		= P_NEST,
	[MEMWALK_A_STATUS_CPU]			= P_NEST,
};

static const struct nla_policy probe_policy[MEMWALK_A_PROBE_MAX + 1] = {
	[MEMWALK_A_PROBE_NAME]		= P_STR,
	[MEMWALK_A_PROBE_LEG]		= P_U32,
	[MEMWALK_A_PROBE_EVENT]		= P_U32,
	[MEMWALK_A_PROBE_ATTACHED]	= P_U32,
	[MEMWALK_A_PROBE_STATE]		= P_U32,
	[MEMWALK_A_PROBE_ERROR]		= P_S32,
	[MEMWALK_A_PROBE_HITS]		= P_U64,
	[MEMWALK_A_PROBE_NMISSED]	= P_U64,
};

static const struct nla_policy group_policy[MEMWALK_A_GROUP_MAX + 1] = {
	[MEMWALK_A_GROUP_NAME]		= P_STR,
	[MEMWALK_A_GROUP_SEQ]		= P_U64,
	[MEMWALK_A_GROUP_SENT]		= P_U64,
	[MEMWALK_A_GROUP_DROPS_OVERFLOW] = P_U64,
	[MEMWALK_A_GROUP_DROPS_DELIVERY] = P_U64,
};

static const struct nla_policy cpu_policy[MEMWALK_A_CPU_MAX + 1] = {
	[MEMWALK_A_CPU_ID]		= P_U32,
	[MEMWALK_A_CPU_RECORDED]	= P_U64,
	[MEMWALK_A_CPU_DROPS_OVERFLOW]	= P_U64,
};

/* Bit @type set in the result for each attribute of @policy found in @tb. */
static uint32_t has_of(struct nlattr **tb, const struct nla_policy *policy, int max)
{
	uint32_t has = 0;
	int type;

	for (type = 0; type <= max; type++)
		if (tb[type] && policy[type].type != NLA_UNSPEC)
			has |= 1u << type;
	return has;
}

struct status_ctx {
	struct mw_status *st;
	const char *why;
};

static int status_probe(struct nlattr *nest, void *arg)
{
	struct nlattr *tb[MEMWALK_A_PROBE_MAX + 1];
	struct status_ctx *c = arg;
	struct mw_status *st = c->st;
	struct mw_status_probe p = { 0 };

	if (parse_nest(tb, MEMWALK_A_PROBE_MAX, nest, probe_policy)) {
		c->why = "malformed MEMWALK_A_STATUS_PROBE";
		return BAD_NEST;
	}
	p.has = has_of(tb, probe_policy, MEMWALK_A_PROBE_MAX);
	p.name = STR(tb, MEMWALK_A_PROBE_NAME);
	p.leg = U32(tb, MEMWALK_A_PROBE_LEG);
	p.event = U32(tb, MEMWALK_A_PROBE_EVENT);
	p.attached = U32(tb, MEMWALK_A_PROBE_ATTACHED);
	p.state = U32(tb, MEMWALK_A_PROBE_STATE);
	p.error = S32(tb, MEMWALK_A_PROBE_ERROR);
	p.hits = U64(tb, MEMWALK_A_PROBE_HITS);
	p.nmissed = U64(tb, MEMWALK_A_PROBE_NMISSED);
	if (st->nr_probes < MW_STATUS_MAX_PROBES)
		st->probes[st->nr_probes++] = p;
	else
		st->dropped++;
	return 0;
}

static int status_group(struct nlattr *nest, void *arg)
{
	struct nlattr *tb[MEMWALK_A_GROUP_MAX + 1];
	struct status_ctx *c = arg;
	struct mw_status *st = c->st;
	struct mw_status_group g = { 0 };

	if (parse_nest(tb, MEMWALK_A_GROUP_MAX, nest, group_policy)) {
		c->why = "malformed MEMWALK_A_STATUS_GROUP";
		return BAD_NEST;
	}
	g.has = has_of(tb, group_policy, MEMWALK_A_GROUP_MAX);
	g.name = STR(tb, MEMWALK_A_GROUP_NAME);
	g.seq = U64(tb, MEMWALK_A_GROUP_SEQ);
	g.sent = U64(tb, MEMWALK_A_GROUP_SENT);
	g.drops_overflow = U64(tb, MEMWALK_A_GROUP_DROPS_OVERFLOW);
	g.drops_delivery = U64(tb, MEMWALK_A_GROUP_DROPS_DELIVERY);
	if (st->nr_groups < sizeof(st->groups) / sizeof(st->groups[0]))
		st->groups[st->nr_groups++] = g;
	else
		st->dropped++;
	return 0;
}

static int status_cpu(struct nlattr *nest, void *arg)
{
	struct nlattr *tb[MEMWALK_A_CPU_MAX + 1];
	struct status_ctx *c = arg;
	struct mw_status *st = c->st;
	struct mw_status_cpu cpu = { 0 };

	if (parse_nest(tb, MEMWALK_A_CPU_MAX, nest, cpu_policy)) {
		c->why = "malformed MEMWALK_A_STATUS_CPU";
		return BAD_NEST;
	}
	cpu.has = has_of(tb, cpu_policy, MEMWALK_A_CPU_MAX);
	cpu.id = U32(tb, MEMWALK_A_CPU_ID);
	cpu.recorded = U64(tb, MEMWALK_A_CPU_RECORDED);
	cpu.drops_overflow = U64(tb, MEMWALK_A_CPU_DROPS_OVERFLOW);
	if (st->nr_cpus < MW_STATUS_MAX_CPUS)
		st->cpus[st->nr_cpus++] = cpu;
	else
		st->dropped++;
	return 0;
}

/* The repeated nests of the status, each to its reader, in message order. */
static int status_nest(struct nlattr *nla, void *arg)
{
	switch (nla_type(nla)) {
	case MEMWALK_A_STATUS_PROBE:
		return status_probe(nla, arg);
	case MEMWALK_A_STATUS_GROUP:
		return status_group(nla, arg);
	case MEMWALK_A_STATUS_CPU:
		return status_cpu(nla, arg);
	default:
		return 0;
	}
}

int mw_status_parse(const struct nlmsghdr *nlh, struct mw_status *st,
		    const char **why)
{
	struct nlattr *tb[MEMWALK_A_MAX + 1];
	struct status_ctx c = { .st = st, .why = "malformed attributes" };
	const void *attrs;
	uint8_t cmd;
	int len, type;

	memset(st, 0, sizeof(*st));
	attrs = genl_attrs(nlh, &len, &cmd);
	if (!attrs) {
		*why = "message shorter than its generic netlink header";
		return -EBADMSG;
	}
	if (cmd != MEMWALK_CMD_GET_STATUS) {
		*why = "not a MEMWALK_CMD_GET_STATUS reply";
		return -EBADMSG;
	}
	if (nla_parse(tb, MEMWALK_A_MAX, attr_head(attrs), len, status_policy) < 0) {
		*why = "attribute of the wrong size";
		return -EBADMSG;
	}
	if (for_each_nest(attrs, len, ANY_TYPE, MEMWALK_A_MAX, NULL, status_nest, &c)) {
		*why = c.why;
		return -EBADMSG;
	}
	for (type = 0; type <= MEMWALK_A_MAX; type++)
		if (tb[type] && status_policy[type].type != NLA_UNSPEC)
			st->has |= MW_HAS(type);
	st->module_version = STR(tb, MEMWALK_A_MODULE_VERSION);
	st->release = STR(tb, MEMWALK_A_RELEASE);
	st->uapi_version = U32(tb, MEMWALK_A_UAPI_VERSION);
	st->page_size = U32(tb, MEMWALK_A_STATUS_PAGE_SIZE);
	st->buffer_events = U32(tb, MEMWALK_A_STATUS_BUFFER_EVENTS);
	st->sample_interval_ms = U32(tb, MEMWALK_A_STATUS_SAMPLE_INTERVAL_MS);
	st->kretprobe_maxactive = U32(tb, MEMWALK_A_STATUS_KRETPROBE_MAXACTIVE);
	st->drops_overflow = U64(tb, MEMWALK_A_STATUS_DROPS_OVERFLOW);
	st->drops_delivery = U64(tb, MEMWALK_A_STATUS_DROPS_DELIVERY);
	return 0;
}

const struct mw_status_group *mw_status_group(const struct mw_status *st,
					      const char *name)
{
	unsigned int i;

	for (i = 0; i < st->nr_groups; i++)
		if (st->groups[i].name && !strcmp(st->groups[i].name, name))
			return &st->groups[i];
	return NULL;
}

uint64_t mw_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

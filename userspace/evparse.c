// SPDX-License-Identifier: GPL-2.0
/*
 * memwalk-client: MEMWALK_CMD_EVENT and GET_STATUS messages into structs,
 * and the names of what they carry.  See evparse.h.
 *
 * The attributes are walked by hand rather than with nla_parse(): events
 * repeat MEMWALK_A_EVENT_NODE, the status repeats its nests, and every
 * attribute's size is checked against its type here, so a message from a
 * buggy module is refused, not half-read.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/genetlink.h>
#include <linux/netlink.h>

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

enum kind { K_NONE, K_U32, K_S32, K_U64, K_S64, K_STR, K_NEST };

static bool size_ok(enum kind k, const void *p, size_t len)
{
	switch (k) {
	case K_U32:
	case K_S32:
		return len == 4;
	case K_U64:
	case K_S64:
		return len == 8;
	case K_STR:
		return len > 0 && memchr(p, '\0', len);
	default:
		return true;
	}
}

static uint32_t get_u32(const void *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static uint64_t get_u64(const void *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/*
 * Walk the attributes in [@p, @p + @len): call @fn for each.  Returns 0,
 * or -1 if the stream is malformed (an attribute overruns it, or @fn says so).
 */
static int walk_attrs(const void *p, size_t len,
		      int (*fn)(uint16_t type, const void *data, size_t len,
				void *arg),
		      void *arg)
{
	const unsigned char *pos = p;

	while (len >= NLA_HDRLEN) {
		const struct nlattr *nla = (const void *)pos;
		size_t alen = nla->nla_len, step;

		if (alen < NLA_HDRLEN || alen > len)
			return -1;
		if (fn(nla->nla_type & NLA_TYPE_MASK, pos + NLA_HDRLEN,
		       alen - NLA_HDRLEN, arg))
			return -1;
		step = NLA_ALIGN(alen);
		if (step >= len)
			return 0;
		pos += step;
		len -= step;
	}
	/* Trailing bytes that are not a whole attribute header. */
	return len ? -1 : 0;
}

/* ---- events ------------------------------------------------------------------ */

static const enum kind event_kinds[MEMWALK_A_MAX + 1] = {
	[MEMWALK_A_EVENT_TYPE]		= K_U32,
	[MEMWALK_A_EVENT_SEQ]		= K_U64,
	[MEMWALK_A_EVENT_CPU]		= K_U32,
	[MEMWALK_A_EVENT_TIME_NS]	= K_U64,
	[MEMWALK_A_EVENT_LEG]		= K_U32,
	[MEMWALK_A_EVENT_LOST]		= K_U64,
	[MEMWALK_A_EVENT_NODE]		= K_NEST,
	[MEMWALK_A_EVENT_PID]		= K_U32,
	[MEMWALK_A_EVENT_TGID]		= K_U32,
	[MEMWALK_A_EVENT_COMM]		= K_STR,
	[MEMWALK_A_EVENT_MEMCG_PATH]	= K_STR,
	[MEMWALK_A_EVENT_MEMCG_ID]	= K_U64,
	[MEMWALK_A_EVENT_NID]		= K_U32,
	[MEMWALK_A_EVENT_ZID]		= K_U32,
	[MEMWALK_A_EVENT_ORDER]		= K_S32,
	[MEMWALK_A_EVENT_GFP]		= K_U32,
	[MEMWALK_A_EVENT_NR_RECLAIMED]	= K_U64,
	[MEMWALK_A_EVENT_DURATION_NS]	= K_U64,
	[MEMWALK_A_EVENT_RECLAIM_ORDER]	= K_S32,
	[MEMWALK_A_OOM_VICTIM_PID]	= K_U32,
	[MEMWALK_A_OOM_VICTIM_TGID]	= K_U32,
	[MEMWALK_A_OOM_VICTIM_COMM]	= K_STR,
	[MEMWALK_A_OOM_VICTIM_UID]	= K_U32,
	[MEMWALK_A_OOM_VICTIM_MEMCG_PATH] = K_STR,
	[MEMWALK_A_OOM_VICTIM_MEMCG_ID]	= K_U64,
	[MEMWALK_A_OOM_TOTAL_VM]	= K_U64,
	[MEMWALK_A_OOM_RSS_ANON]	= K_U64,
	[MEMWALK_A_OOM_RSS_FILE]	= K_U64,
	[MEMWALK_A_OOM_RSS_SHMEM]	= K_U64,
	[MEMWALK_A_OOM_SCORE_ADJ]	= K_S32,
	[MEMWALK_A_OOM_CONSTRAINT]	= K_U32,
	[MEMWALK_A_OOM_MEMCG_PATH]	= K_STR,
	[MEMWALK_A_OOM_MEMCG_ID]	= K_U64,
	[MEMWALK_A_OOM_POINTS]		= K_S64,
	[MEMWALK_A_OOM_TOTALPAGES]	= K_U64,
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

static int node_attr(uint16_t type, const void *data, size_t len, void *arg)
{
	struct mw_ev_node *n = arg;

	if (type == MEMWALK_A_NODE_ID) {
		if (len != 4)
			return -1;
		n->id = get_u32(data);
		n->has_id = true;
	} else if (type >= MEMWALK_A_NODE_ACTIVE_ANON &&
		   type <= MEMWALK_A_NODE_WMARK_HIGH) {
		if (len != 8)
			return -1;
		n->v[node_items[type]] = get_u64(data);
		n->has |= 1u << node_items[type];
	}
	/* PAD and newer attributes: skipped */
	return 0;
}

struct parse_ctx {
	struct mw_event *ev;
	const char *why;
};

static int event_attr(uint16_t type, const void *data, size_t len, void *arg)
{
	struct parse_ctx *c = arg;
	struct mw_event *ev = c->ev;
	enum kind k;

	if (type > MEMWALK_A_MAX) {
		ev->unknown_attrs++;
		return 0;
	}
	k = event_kinds[type];
	if (k == K_NONE)
		return 0;	/* PAD, or a status attribute: not ours to read */
	if (!size_ok(k, data, len)) {
		c->why = "attribute of the wrong size";
		return -1;
	}
	if (k == K_NEST) {
		struct mw_ev_node node = { 0 };

		if (walk_attrs(data, len, node_attr, &node)) {
			c->why = "malformed MEMWALK_A_EVENT_NODE";
			return -1;
		}
		if (ev->nr_nodes < MW_EV_MAX_NODES)
			ev->nodes[ev->nr_nodes++] = node;
		else
			ev->nodes_dropped++;
		ev->has |= MW_HAS(type);
		return 0;
	}
	ev->has |= MW_HAS(type);
	switch (type) {
	case MEMWALK_A_EVENT_TYPE:	ev->type = get_u32(data); break;
	case MEMWALK_A_EVENT_SEQ:	ev->seq = get_u64(data); break;
	case MEMWALK_A_EVENT_CPU:	ev->cpu = get_u32(data); break;
	case MEMWALK_A_EVENT_TIME_NS:	ev->time_ns = get_u64(data); break;
	case MEMWALK_A_EVENT_LEG:	ev->leg = get_u32(data); break;
	case MEMWALK_A_EVENT_LOST:	ev->lost = get_u64(data); break;
	case MEMWALK_A_EVENT_PID:	ev->pid = get_u32(data); break;
	case MEMWALK_A_EVENT_TGID:	ev->tgid = get_u32(data); break;
	case MEMWALK_A_EVENT_COMM:	ev->comm = data; break;
	case MEMWALK_A_EVENT_MEMCG_PATH: ev->memcg_path = data; break;
	case MEMWALK_A_EVENT_MEMCG_ID:	ev->memcg_id = get_u64(data); break;
	case MEMWALK_A_EVENT_NID:	ev->nid = get_u32(data); break;
	case MEMWALK_A_EVENT_ZID:	ev->zid = get_u32(data); break;
	case MEMWALK_A_EVENT_ORDER:	ev->order = (int32_t)get_u32(data); break;
	case MEMWALK_A_EVENT_GFP:	ev->gfp = get_u32(data); break;
	case MEMWALK_A_EVENT_NR_RECLAIMED: ev->nr_reclaimed = get_u64(data); break;
	case MEMWALK_A_EVENT_DURATION_NS: ev->duration_ns = get_u64(data); break;
	case MEMWALK_A_EVENT_RECLAIM_ORDER:
		ev->reclaim_order = (int32_t)get_u32(data);
		break;
	case MEMWALK_A_OOM_VICTIM_PID:	ev->victim_pid = get_u32(data); break;
	case MEMWALK_A_OOM_VICTIM_TGID:	ev->victim_tgid = get_u32(data); break;
	case MEMWALK_A_OOM_VICTIM_COMM:	ev->victim_comm = data; break;
	case MEMWALK_A_OOM_VICTIM_UID:	ev->victim_uid = get_u32(data); break;
	case MEMWALK_A_OOM_VICTIM_MEMCG_PATH: ev->victim_memcg_path = data; break;
	case MEMWALK_A_OOM_VICTIM_MEMCG_ID: ev->victim_memcg_id = get_u64(data); break;
	case MEMWALK_A_OOM_TOTAL_VM:	ev->total_vm = get_u64(data); break;
	case MEMWALK_A_OOM_RSS_ANON:	ev->rss_anon = get_u64(data); break;
	case MEMWALK_A_OOM_RSS_FILE:	ev->rss_file = get_u64(data); break;
	case MEMWALK_A_OOM_RSS_SHMEM:	ev->rss_shmem = get_u64(data); break;
	case MEMWALK_A_OOM_SCORE_ADJ:	ev->score_adj = (int32_t)get_u32(data); break;
	case MEMWALK_A_OOM_CONSTRAINT:	ev->constraint = get_u32(data); break;
	case MEMWALK_A_OOM_MEMCG_PATH:	ev->oom_memcg_path = data; break;
	case MEMWALK_A_OOM_MEMCG_ID:	ev->oom_memcg_id = get_u64(data); break;
	case MEMWALK_A_OOM_POINTS:	ev->points = (int64_t)get_u64(data); break;
	case MEMWALK_A_OOM_TOTALPAGES:	ev->totalpages = get_u64(data); break;
	}
	return 0;
}

/* The attributes of a generic netlink message, or NULL if it is too short. */
static const void *genl_attrs(const struct nlmsghdr *nlh, size_t *len,
			      uint8_t *cmd)
{
	const struct genlmsghdr *g;

	if (nlh->nlmsg_len < NLMSG_LENGTH(GENL_HDRLEN))
		return NULL;
	g = NLMSG_DATA(nlh);
	*cmd = g->cmd;
	*len = nlh->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN);
	return (const unsigned char *)g + GENL_HDRLEN;
}

int mw_event_parse(const struct nlmsghdr *nlh, struct mw_event *ev,
		   const char **why)
{
	struct parse_ctx c = { .ev = ev, .why = "malformed attributes" };
	const void *attrs;
	size_t len;
	uint8_t cmd;

	memset(ev, 0, offsetof(struct mw_event, nodes));	/* nodes[]: as filled */
	attrs = genl_attrs(nlh, &len, &cmd);
	if (!attrs) {
		*why = "message shorter than its generic netlink header";
		return -1;
	}
	if (cmd != MEMWALK_CMD_EVENT) {
		*why = "not a MEMWALK_CMD_EVENT message";
		return -1;
	}
	if (walk_attrs(attrs, len, event_attr, &c)) {
		*why = c.why;
		return -1;
	}
	if (!(ev->has & MW_HAS(MEMWALK_A_EVENT_TYPE))) {
		*why = "no MEMWALK_A_EVENT_TYPE";
		return -1;
	}
	return 0;
}

/* ---- GET_STATUS ----------------------------------------------------------------- */

static int probe_attr(uint16_t type, const void *data, size_t len, void *arg)
{
	struct mw_status_probe *p = arg;
	enum kind k;

	switch (type) {
	case MEMWALK_A_PROBE_NAME:		k = K_STR; break;
	case MEMWALK_A_PROBE_LEG:
	case MEMWALK_A_PROBE_EVENT:
	case MEMWALK_A_PROBE_ATTACHED:
	case MEMWALK_A_PROBE_STATE:		k = K_U32; break;
	case MEMWALK_A_PROBE_ERROR:		k = K_S32; break;
	case MEMWALK_A_PROBE_HITS:
	case MEMWALK_A_PROBE_NMISSED:		k = K_U64; break;
	default:				return 0;
	}
	if (!size_ok(k, data, len))
		return -1;
	p->has |= 1u << type;
	switch (type) {
	case MEMWALK_A_PROBE_NAME:	p->name = data; break;
	case MEMWALK_A_PROBE_LEG:	p->leg = get_u32(data); break;
	case MEMWALK_A_PROBE_EVENT:	p->event = get_u32(data); break;
	case MEMWALK_A_PROBE_ATTACHED:	p->attached = get_u32(data); break;
	case MEMWALK_A_PROBE_STATE:	p->state = get_u32(data); break;
	case MEMWALK_A_PROBE_ERROR:	p->error = (int32_t)get_u32(data); break;
	case MEMWALK_A_PROBE_HITS:	p->hits = get_u64(data); break;
	case MEMWALK_A_PROBE_NMISSED:	p->nmissed = get_u64(data); break;
	}
	return 0;
}

static int group_attr(uint16_t type, const void *data, size_t len, void *arg)
{
	struct mw_status_group *g = arg;
	enum kind k;

	switch (type) {
	case MEMWALK_A_GROUP_NAME:		k = K_STR; break;
	case MEMWALK_A_GROUP_SEQ:
	case MEMWALK_A_GROUP_SENT:
	case MEMWALK_A_GROUP_DROPS_OVERFLOW:
	case MEMWALK_A_GROUP_DROPS_DELIVERY:	k = K_U64; break;
	default:				return 0;
	}
	if (!size_ok(k, data, len))
		return -1;
	g->has |= 1u << type;
	switch (type) {
	case MEMWALK_A_GROUP_NAME:		g->name = data; break;
	case MEMWALK_A_GROUP_SEQ:		g->seq = get_u64(data); break;
	case MEMWALK_A_GROUP_SENT:		g->sent = get_u64(data); break;
	case MEMWALK_A_GROUP_DROPS_OVERFLOW:	g->drops_overflow = get_u64(data); break;
	case MEMWALK_A_GROUP_DROPS_DELIVERY:	g->drops_delivery = get_u64(data); break;
	}
	return 0;
}

static int cpu_attr(uint16_t type, const void *data, size_t len, void *arg)
{
	struct mw_status_cpu *c = arg;

	switch (type) {
	case MEMWALK_A_CPU_ID:
		if (len != 4)
			return -1;
		c->id = get_u32(data);
		break;
	case MEMWALK_A_CPU_RECORDED:
	case MEMWALK_A_CPU_DROPS_OVERFLOW:
		if (len != 8)
			return -1;
		if (type == MEMWALK_A_CPU_RECORDED)
			c->recorded = get_u64(data);
		else
			c->drops_overflow = get_u64(data);
		break;
	default:
		return 0;
	}
	c->has |= 1u << type;
	return 0;
}

struct status_ctx {
	struct mw_status *st;
	const char *why;
};

static int status_attr(uint16_t type, const void *data, size_t len, void *arg)
{
	struct status_ctx *c = arg;
	struct mw_status *st = c->st;
	enum kind k;

	switch (type) {
	case MEMWALK_A_MODULE_VERSION:
	case MEMWALK_A_RELEASE:
		k = K_STR;
		break;
	case MEMWALK_A_UAPI_VERSION:
	case MEMWALK_A_STATUS_PAGE_SIZE:
	case MEMWALK_A_STATUS_BUFFER_EVENTS:
	case MEMWALK_A_STATUS_SAMPLE_INTERVAL_MS:
	case MEMWALK_A_STATUS_KRETPROBE_MAXACTIVE:
		k = K_U32;
		break;
	case MEMWALK_A_STATUS_DROPS_OVERFLOW:
	case MEMWALK_A_STATUS_DROPS_DELIVERY:
		k = K_U64;
		break;
	case MEMWALK_A_STATUS_PROBE:
	case MEMWALK_A_STATUS_GROUP:
	case MEMWALK_A_STATUS_CPU:
		k = K_NEST;
		break;
	default:
		return 0;
	}
	if (!size_ok(k, data, len)) {
		c->why = "attribute of the wrong size";
		return -1;
	}
	st->has |= MW_HAS(type);
	switch (type) {
	case MEMWALK_A_MODULE_VERSION:	st->module_version = data; break;
	case MEMWALK_A_RELEASE:		st->release = data; break;
	case MEMWALK_A_UAPI_VERSION:	st->uapi_version = get_u32(data); break;
	case MEMWALK_A_STATUS_PAGE_SIZE: st->page_size = get_u32(data); break;
	case MEMWALK_A_STATUS_BUFFER_EVENTS: st->buffer_events = get_u32(data); break;
	case MEMWALK_A_STATUS_SAMPLE_INTERVAL_MS:
		st->sample_interval_ms = get_u32(data);
		break;
	case MEMWALK_A_STATUS_KRETPROBE_MAXACTIVE:
		st->kretprobe_maxactive = get_u32(data);
		break;
	case MEMWALK_A_STATUS_DROPS_OVERFLOW: st->drops_overflow = get_u64(data); break;
	case MEMWALK_A_STATUS_DROPS_DELIVERY: st->drops_delivery = get_u64(data); break;
	case MEMWALK_A_STATUS_PROBE: {
		struct mw_status_probe p = { 0 };

		if (walk_attrs(data, len, probe_attr, &p)) {
			c->why = "malformed MEMWALK_A_STATUS_PROBE";
			return -1;
		}
		if (st->nr_probes < MW_STATUS_MAX_PROBES)
			st->probes[st->nr_probes++] = p;
		else
			st->dropped++;
		break;
	}
	case MEMWALK_A_STATUS_GROUP: {
		struct mw_status_group g = { 0 };

		if (walk_attrs(data, len, group_attr, &g)) {
			c->why = "malformed MEMWALK_A_STATUS_GROUP";
			return -1;
		}
		if (st->nr_groups < sizeof(st->groups) / sizeof(st->groups[0]))
			st->groups[st->nr_groups++] = g;
		else
			st->dropped++;
		break;
	}
	case MEMWALK_A_STATUS_CPU: {
		struct mw_status_cpu cpu = { 0 };

		if (walk_attrs(data, len, cpu_attr, &cpu)) {
			c->why = "malformed MEMWALK_A_STATUS_CPU";
			return -1;
		}
		if (st->nr_cpus < MW_STATUS_MAX_CPUS)
			st->cpus[st->nr_cpus++] = cpu;
		else
			st->dropped++;
		break;
	}
	}
	return 0;
}

int mw_status_parse(const struct nlmsghdr *nlh, struct mw_status *st,
		    const char **why)
{
	struct status_ctx c = { .st = st, .why = "malformed attributes" };
	const void *attrs;
	size_t len;
	uint8_t cmd;

	memset(st, 0, sizeof(*st));
	attrs = genl_attrs(nlh, &len, &cmd);
	if (!attrs) {
		*why = "message shorter than its generic netlink header";
		return -1;
	}
	if (cmd != MEMWALK_CMD_GET_STATUS) {
		*why = "not a MEMWALK_CMD_GET_STATUS reply";
		return -1;
	}
	if (walk_attrs(attrs, len, status_attr, &c)) {
		*why = c.why;
		return -1;
	}
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

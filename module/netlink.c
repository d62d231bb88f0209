// SPDX-License-Identifier: GPL-2.0
/*
 * memwalk: generic netlink family MEMWALK_GENL_NAME.
 *
 * The family lives in init_net only (.netnsok = false): its data and events
 * are system-wide, and multicast binding checks capabilities against the
 * netns owner, which an unprivileged user namespace would satisfy.  Events
 * (MEMWALK_CMD_EVENT) are built and multicast by events.c and lru.c.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cache.h>
#include <linux/kallsyms.h>
#include <linux/kernel.h>
#include <linux/kprobes.h>
#include <linux/limits.h>
#include <linux/module.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <linux/utsname.h>
#include <net/genetlink.h>
#include <net/netlink.h>

#include "events.h"
#include "memwalk.h"

/*
 * Whether events may be multicast through the family: set once it is
 * registered, cleared before it is unregistered.  RCU: a multicast that
 * saw it set (memwalk_netlink_multicast()) is over before the family goes,
 * whose group ids may then be handed to another family.
 */
static bool family_live;

#define STR_POLICY(max)		{ .type = NLA_NUL_STRING, .len = (max) - 1 }

/*
 * Nested sets.  Like most of the family's attributes they only ever come
 * from the kernel; the policies say what a well-formed one looks like.
 */
static const struct nla_policy node_policy[MEMWALK_A_NODE_MAX + 1] = {
	[MEMWALK_A_NODE_PAD]		= { .type = NLA_UNSPEC },
	[MEMWALK_A_NODE_ID]		= { .type = NLA_U32 },
	[MEMWALK_A_NODE_ACTIVE_ANON]	= { .type = NLA_U64 },
	[MEMWALK_A_NODE_INACTIVE_ANON]	= { .type = NLA_U64 },
	[MEMWALK_A_NODE_ACTIVE_FILE]	= { .type = NLA_U64 },
	[MEMWALK_A_NODE_INACTIVE_FILE]	= { .type = NLA_U64 },
	[MEMWALK_A_NODE_UNEVICTABLE]	= { .type = NLA_U64 },
	[MEMWALK_A_NODE_FREE]		= { .type = NLA_U64 },
	[MEMWALK_A_NODE_WMARK_MIN]	= { .type = NLA_U64 },
	[MEMWALK_A_NODE_WMARK_LOW]	= { .type = NLA_U64 },
	[MEMWALK_A_NODE_WMARK_HIGH]	= { .type = NLA_U64 },
};

static const struct nla_policy probe_policy[MEMWALK_A_PROBE_MAX + 1] = {
	[MEMWALK_A_PROBE_PAD]		= { .type = NLA_UNSPEC },
	[MEMWALK_A_PROBE_NAME]		= STR_POLICY(KSYM_NAME_LEN),
	[MEMWALK_A_PROBE_LEG]		= { .type = NLA_U32 },
	[MEMWALK_A_PROBE_EVENT]		= { .type = NLA_U32 },
	[MEMWALK_A_PROBE_ATTACHED]	= { .type = NLA_U32 },
	[MEMWALK_A_PROBE_STATE]		= { .type = NLA_U32 },
	[MEMWALK_A_PROBE_ERROR]		= { .type = NLA_S32 },
	[MEMWALK_A_PROBE_HITS]		= { .type = NLA_U64 },
	[MEMWALK_A_PROBE_NMISSED]	= { .type = NLA_U64 },
};

static const struct nla_policy group_policy[MEMWALK_A_GROUP_MAX + 1] = {
	[MEMWALK_A_GROUP_PAD]		= { .type = NLA_UNSPEC },
	[MEMWALK_A_GROUP_NAME]		= STR_POLICY(GENL_NAMSIZ),
	[MEMWALK_A_GROUP_SEQ]		= { .type = NLA_U64 },
	[MEMWALK_A_GROUP_SENT]		= { .type = NLA_U64 },
	[MEMWALK_A_GROUP_DROPS_OVERFLOW] = { .type = NLA_U64 },
	[MEMWALK_A_GROUP_DROPS_DELIVERY] = { .type = NLA_U64 },
};

static const struct nla_policy cpu_policy[MEMWALK_A_CPU_MAX + 1] = {
	[MEMWALK_A_CPU_PAD]		= { .type = NLA_UNSPEC },
	[MEMWALK_A_CPU_ID]		= { .type = NLA_U32 },
	[MEMWALK_A_CPU_RECORDED]	= { .type = NLA_U64 },
	[MEMWALK_A_CPU_DROPS_OVERFLOW]	= { .type = NLA_U64 },
};

/* Every command is validated strictly against this (see .resv_start_op). */
static const struct nla_policy family_policy[MEMWALK_A_MAX + 1] = {
	/* Only ever emitted to align u64 attributes; never valid input. */
	[MEMWALK_A_PAD]			= { .type = NLA_UNSPEC },
	[MEMWALK_A_MODULE_VERSION]	= { .type = NLA_NUL_STRING,
					    .len = MEMWALK_MODVER_LEN - 1 },
	[MEMWALK_A_UAPI_VERSION]	= { .type = NLA_U32 },
	[MEMWALK_A_RELEASE]		= { .type = NLA_NUL_STRING,
					    .len = MEMWALK_RELEASE_LEN - 1 },
	[MEMWALK_A_EVENT_TYPE]		= NLA_POLICY_MAX(NLA_U32, MEMWALK_EV_MAX),
	[MEMWALK_A_EVENT_SEQ]		= { .type = NLA_U64 },
	[MEMWALK_A_EVENT_CPU]		= { .type = NLA_U32 },
	[MEMWALK_A_EVENT_TIME_NS]	= { .type = NLA_U64 },
	[MEMWALK_A_EVENT_LEG]		= NLA_POLICY_MAX(NLA_U32, MEMWALK_LEG_SAMPLER),
	[MEMWALK_A_EVENT_LOST]		= { .type = NLA_U64 },
	[MEMWALK_A_EVENT_NODE]		= NLA_POLICY_NESTED(node_policy),
	[MEMWALK_A_EVENT_PID]		= { .type = NLA_U32 },
	[MEMWALK_A_EVENT_TGID]		= { .type = NLA_U32 },
	[MEMWALK_A_EVENT_COMM]		= STR_POLICY(TASK_COMM_LEN),
	[MEMWALK_A_EVENT_MEMCG_PATH]	= STR_POLICY(PATH_MAX),
	[MEMWALK_A_EVENT_MEMCG_ID]	= { .type = NLA_U64 },
	[MEMWALK_A_EVENT_NID]		= { .type = NLA_U32 },
	[MEMWALK_A_EVENT_ZID]		= { .type = NLA_U32 },
	[MEMWALK_A_EVENT_ORDER]		= { .type = NLA_S32 },
	[MEMWALK_A_EVENT_GFP]		= { .type = NLA_U32 },
	[MEMWALK_A_EVENT_NR_RECLAIMED]	= { .type = NLA_U64 },
	[MEMWALK_A_EVENT_DURATION_NS]	= { .type = NLA_U64 },
	[MEMWALK_A_EVENT_RECLAIM_ORDER]	= { .type = NLA_S32 },
	[MEMWALK_A_OOM_VICTIM_PID]	= { .type = NLA_U32 },
	[MEMWALK_A_OOM_VICTIM_TGID]	= { .type = NLA_U32 },
	[MEMWALK_A_OOM_VICTIM_COMM]	= STR_POLICY(TASK_COMM_LEN),
	[MEMWALK_A_OOM_VICTIM_UID]	= { .type = NLA_U32 },
	[MEMWALK_A_OOM_VICTIM_MEMCG_PATH] = STR_POLICY(PATH_MAX),
	[MEMWALK_A_OOM_VICTIM_MEMCG_ID]	= { .type = NLA_U64 },
	[MEMWALK_A_OOM_TOTAL_VM]	= { .type = NLA_U64 },
	[MEMWALK_A_OOM_RSS_ANON]	= { .type = NLA_U64 },
	[MEMWALK_A_OOM_RSS_FILE]	= { .type = NLA_U64 },
	[MEMWALK_A_OOM_RSS_SHMEM]	= { .type = NLA_U64 },
	[MEMWALK_A_OOM_SCORE_ADJ]	= { .type = NLA_S32 },
	[MEMWALK_A_OOM_CONSTRAINT]	= NLA_POLICY_MAX(NLA_U32,
					       MEMWALK_OOM_CONSTRAINT_MEMCG),
	[MEMWALK_A_OOM_MEMCG_PATH]	= STR_POLICY(PATH_MAX),
	[MEMWALK_A_OOM_MEMCG_ID]	= { .type = NLA_U64 },
	[MEMWALK_A_OOM_POINTS]		= { .type = NLA_S64 },
	[MEMWALK_A_OOM_TOTALPAGES]	= { .type = NLA_U64 },
	[MEMWALK_A_STATUS_PAGE_SIZE]	= { .type = NLA_U32 },
	[MEMWALK_A_STATUS_BUFFER_EVENTS] = { .type = NLA_U32 },
	[MEMWALK_A_STATUS_SAMPLE_INTERVAL_MS] = { .type = NLA_U32 },
	[MEMWALK_A_STATUS_KRETPROBE_MAXACTIVE] = { .type = NLA_U32 },
	[MEMWALK_A_STATUS_DROPS_OVERFLOW] = { .type = NLA_U64 },
	[MEMWALK_A_STATUS_DROPS_DELIVERY] = { .type = NLA_U64 },
	[MEMWALK_A_STATUS_PROBE]	= NLA_POLICY_NESTED(probe_policy),
	[MEMWALK_A_STATUS_GROUP]	= NLA_POLICY_NESTED(group_policy),
	[MEMWALK_A_STATUS_CPU]		= NLA_POLICY_NESTED(cpu_policy),
};

static size_t status_size(const char *release)
{
	return nla_total_size(sizeof(MEMWALK_MODULE_VERSION)) +
	       nla_total_size(sizeof(u32)) +
	       nla_total_size(strlen(release) + 1) +
	       2 * nla_total_size(sizeof(u32)) +	/* PAGE_SIZE, INTERVAL */
	       memwalk_events_status_size() +
	       memwalk_probes_status_size();
}

/* GET_STATUS takes no attributes; say which one is wrong. */
static int get_status_check(struct genl_info *info)
{
	int i;

	for (i = 1; i <= MEMWALK_A_MAX; i++) {
		if (!info->attrs[i])
			continue;
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[i],
				    "GET_STATUS takes no attributes");
		return -EINVAL;
	}
	return 0;
}

static int get_status_doit(struct sk_buff *skb, struct genl_info *info)
{
	/* Runs in the sender's context, so this is the sender's namespace. */
	const char *release = utsname()->release;
	struct sk_buff *msg;
	void *hdr;
	int ret;

	ret = get_status_check(info);
	if (ret)
		return ret;

	msg = genlmsg_new(status_size(release), GFP_KERNEL);
	if (!msg)
		return -ENOMEM;

	hdr = genlmsg_put_reply(msg, info, &memwalk_genl_family, 0,
				MEMWALK_CMD_GET_STATUS);
	if (!hdr) {
		ret = -EMSGSIZE;
		goto out_free_msg;
	}

	ret = -EMSGSIZE;
	if (nla_put_string(msg, MEMWALK_A_MODULE_VERSION,
			   MEMWALK_MODULE_VERSION) ||
	    nla_put_u32(msg, MEMWALK_A_UAPI_VERSION, MEMWALK_UAPI_VERSION) ||
	    nla_put_string(msg, MEMWALK_A_RELEASE, release) ||
	    nla_put_u32(msg, MEMWALK_A_STATUS_PAGE_SIZE, PAGE_SIZE) ||
	    nla_put_u32(msg, MEMWALK_A_STATUS_SAMPLE_INTERVAL_MS,
			memwalk_lru_interval_ms()) ||
	    memwalk_events_put_status(msg))
		goto out_cancel_msg;
	ret = memwalk_probes_put_status(msg);
	if (ret)
		goto out_cancel_msg;

	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);

out_cancel_msg:
	genlmsg_cancel(msg, hdr);
out_free_msg:
	nlmsg_free(msg);
	return ret;
}

/* GENL_ADMIN_PERM: CAP_NET_ADMIN in init_user_ns, checked by genetlink. */
static const struct genl_small_ops family_ops[] = {
	{
		.cmd	= MEMWALK_CMD_GET_STATUS,
		.flags	= GENL_ADMIN_PERM,
		.doit	= get_status_doit,
	},
};

/* Events are system-wide, so only CAP_SYS_ADMIN may subscribe. */
static const struct genl_multicast_group family_mcgrps[] = {
	[MEMWALK_MCGRP_IDX_RECLAIM] = {
		.name	= MEMWALK_MCGRP_RECLAIM,
		.flags	= GENL_MCAST_CAP_SYS_ADMIN,
	},
	[MEMWALK_MCGRP_IDX_OOM] = {
		.name	= MEMWALK_MCGRP_OOM,
		.flags	= GENL_MCAST_CAP_SYS_ADMIN,
	},
	[MEMWALK_MCGRP_IDX_LRU] = {
		.name	= MEMWALK_MCGRP_LRU,
		.flags	= GENL_MCAST_CAP_SYS_ADMIN,
	},
};

static_assert(ARRAY_SIZE(family_mcgrps) == MEMWALK_MCGRP_IDX_COUNT);

struct genl_family memwalk_genl_family __ro_after_init = {
	.name		= MEMWALK_GENL_NAME,
	.version	= MEMWALK_GENL_VERSION,
	.maxattr	= MEMWALK_A_MAX,
	.policy		= family_policy,
	.netnsok	= false,
	/*
	 * No .resv_start_op: 0 means every command, from the first, gets
	 * strict attribute validation and a checked genlmsghdr.reserved.
	 */
	.module		= THIS_MODULE,
	.small_ops	= family_ops,
	.n_small_ops	= ARRAY_SIZE(family_ops),
	.mcgrps		= family_mcgrps,
	.n_mcgrps	= ARRAY_SIZE(family_mcgrps),
};

/*
 * After everything GET_STATUS and the events report on (main.c): the
 * family is how user space reaches them.
 */
int memwalk_netlink_init(void)
{
	int ret;

	ret = genl_register_family(&memwalk_genl_family);
	if (ret) {
		pr_err("cannot register genetlink family %s: %d\n",
		       MEMWALK_GENL_NAME, ret);
		return ret;
	}

	/*
	 * Events may go out now; the hooks start recording them.  Release:
	 * whoever sees it set sees the family's group ids.
	 */
	smp_store_release(&family_live, true);
	return 0;
}

/*
 * First on the way out: no multicast is under way or starts, then the
 * family goes, waiting for GET_STATUS calls in progress.
 */
void memwalk_netlink_exit(void)
{
	WRITE_ONCE(family_live, false);
	synchronize_rcu();
	genl_unregister_family(&memwalk_genl_family);
}

/* Any context (the hooks ask, through memwalk_events_listening()). */
bool memwalk_netlink_registered(void)
{
	/* Pairs with the release in memwalk_netlink_init(). */
	return smp_load_acquire(&family_live);
}

NOKPROBE_SYMBOL(memwalk_netlink_registered);

/**
 * memwalk_netlink_multicast() - send an event datagram to a group
 * @skb: the datagram, consumed either way
 * @grp: its group
 *
 * Context: process context, any locks; does not sleep.
 * Return: false if the family is not (or no longer) registered: @skb is
 * dropped.
 */
bool memwalk_netlink_multicast(struct sk_buff *skb, enum memwalk_mcgrp_idx grp)
{
	bool live;

	/* Against memwalk_netlink_exit(): the family outlives this section. */
	rcu_read_lock();
	live = READ_ONCE(family_live);
	/* -ESRCH: nobody listens; -ENOBUFS: they are told by recv(). */
	if (live)
		genlmsg_multicast(&memwalk_genl_family, skb, 0, grp,
				  GFP_NOWAIT);
	rcu_read_unlock();
	if (!live)
		nlmsg_free(skb);
	return live;
}

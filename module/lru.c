// SPDX-License-Identifier: GPL-2.0
/*
 * memwalk: per-node LRU sizes, free pages and watermarks.
 *
 * Read at every event (from hooks, so lock-free and NMI-safe: plain reads
 * of the node and zone counters, which the kernel folds in from per-CPU
 * deltas every second) and by the periodic LRU sampler, which multicasts
 * MEMWALK_EV_LRU_SAMPLE to the "lru" group.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/kprobes.h>
#include <linux/ktime.h>
#include <linux/mmzone.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/nodemask.h>
#include <linux/vmstat.h>
#include <linux/workqueue.h>
#include <net/genetlink.h>
#include <net/netlink.h>

#include "events.h"

#define MW_SAMPLE_MIN_MS	10

static unsigned long node_stat(struct pglist_data *pgdat,
			       enum node_stat_item item)
{
	long v = atomic_long_read(&pgdat->vm_stat[item]);

	return v < 0 ? 0 : v;
}

/**
 * memwalk_lru_sample_node() - read one node's LRU and free memory
 * @nid: an online node
 * @s: filled in
 *
 * Context: any, including NMI.  Lock-free; the values are a racy snapshot.
 */
void memwalk_lru_sample_node(int nid, struct memwalk_node_sample *s)
{
	struct pglist_data *pgdat = NODE_DATA(nid);
	int i;

	memset(s, 0, sizeof(*s));
	s->nid = nid;
	if (!pgdat)
		return;
	s->v[MW_NODE_ACTIVE_ANON] = node_stat(pgdat, NR_ACTIVE_ANON);
	s->v[MW_NODE_INACTIVE_ANON] = node_stat(pgdat, NR_INACTIVE_ANON);
	s->v[MW_NODE_ACTIVE_FILE] = node_stat(pgdat, NR_ACTIVE_FILE);
	s->v[MW_NODE_INACTIVE_FILE] = node_stat(pgdat, NR_INACTIVE_FILE);
	s->v[MW_NODE_UNEVICTABLE] = node_stat(pgdat, NR_UNEVICTABLE);
	for (i = 0; i < MAX_NR_ZONES; i++) {
		struct zone *zone = &pgdat->node_zones[i];

		if (!populated_zone(zone))
			continue;
		s->v[MW_NODE_FREE] += zone_page_state(zone, NR_FREE_PAGES);
		s->v[MW_NODE_WMARK_MIN] += min_wmark_pages(zone);
		s->v[MW_NODE_WMARK_LOW] += low_wmark_pages(zone);
		s->v[MW_NODE_WMARK_HIGH] += high_wmark_pages(zone);
	}
}

NOKPROBE_SYMBOL(memwalk_lru_sample_node);

static const u16 node_attrs[MW_NODE_NR_ITEMS] = {
	[MW_NODE_ACTIVE_ANON]	= MEMWALK_A_NODE_ACTIVE_ANON,
	[MW_NODE_INACTIVE_ANON]	= MEMWALK_A_NODE_INACTIVE_ANON,
	[MW_NODE_ACTIVE_FILE]	= MEMWALK_A_NODE_ACTIVE_FILE,
	[MW_NODE_INACTIVE_FILE]	= MEMWALK_A_NODE_INACTIVE_FILE,
	[MW_NODE_UNEVICTABLE]	= MEMWALK_A_NODE_UNEVICTABLE,
	[MW_NODE_FREE]		= MEMWALK_A_NODE_FREE,
	[MW_NODE_WMARK_MIN]	= MEMWALK_A_NODE_WMARK_MIN,
	[MW_NODE_WMARK_LOW]	= MEMWALK_A_NODE_WMARK_LOW,
	[MW_NODE_WMARK_HIGH]	= MEMWALK_A_NODE_WMARK_HIGH,
};

size_t memwalk_lru_node_size(void)
{
	return nla_total_size(0) + nla_total_size(sizeof(u32)) +
	       MW_NODE_NR_ITEMS * nla_total_size_64bit(sizeof(u64));
}

/* One MEMWALK_A_EVENT_NODE nest, or -EMSGSIZE and nothing. */
int memwalk_lru_put_node(struct sk_buff *skb,
			 const struct memwalk_node_sample *s)
{
	struct nlattr *nest;
	int i;

	nest = nla_nest_start(skb, MEMWALK_A_EVENT_NODE);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u32(skb, MEMWALK_A_NODE_ID, s->nid))
		goto out_cancel_nest;
	for (i = 0; i < MW_NODE_NR_ITEMS; i++)
		if (nla_put_u64_64bit(skb, node_attrs[i], s->v[i],
				      MEMWALK_A_NODE_PAD))
			goto out_cancel_nest;
	nla_nest_end(skb, nest);
	return 0;

out_cancel_nest:
	nla_nest_cancel(skb, nest);
	return -EMSGSIZE;
}

/* ---- the periodic sampler ------------------------------------------------ */

static unsigned int sample_interval_ms;	/* 0: off */

/* Serializes arming the sampler: parameter writes against init/exit. */
static DEFINE_MUTEX(sampler_lock);
static bool sampler_live;		/* under sampler_lock */
static struct delayed_work sampler_work;

static void sampler_send(void)
{
	const enum memwalk_mcgrp_idx grp = MEMWALK_MCGRP_IDX_LRU;
	struct memwalk_node_sample s;
	struct sk_buff *skb;
	size_t size;
	void *hdr;
	u64 seq;
	int nid;

	if (!memwalk_events_listening(grp))
		return;

	seq = memwalk_events_next_seq(grp);
	size = memwalk_events_header_size() +
	       num_online_nodes() * memwalk_lru_node_size();
	skb = memwalk_events_new_msg(genlmsg_total_size(size));
	if (!skb)
		goto out_lost;
	hdr = genlmsg_put(skb, 0, 0, &memwalk_genl_family, 0,
			  MEMWALK_CMD_EVENT);
	if (!hdr)
		goto out_free_msg;
	if (memwalk_events_put_header(skb, MEMWALK_EV_LRU_SAMPLE, seq,
				      raw_smp_processor_id(),
				      ktime_get_mono_fast_ns(),
				      MEMWALK_LEG_SAMPLER))
		goto out_free_msg;
	/* Nodes coming online meanwhile would not fit; they wait a period. */
	for_each_online_node(nid) {
		memwalk_lru_sample_node(nid, &s);
		if (memwalk_lru_put_node(skb, &s))
			break;
	}
	genlmsg_end(skb, hdr);
	if (memwalk_netlink_multicast(skb, grp))
		memwalk_events_sent(grp, 1);
	return;

out_free_msg:
	nlmsg_free(skb);
out_lost:
	memwalk_events_lost(grp, 1);
}

static void sampler_fn(struct work_struct *work)
{
	unsigned int ms = READ_ONCE(sample_interval_ms);

	if (!ms)
		return;
	sampler_send();
	/* cancel_delayed_work_sync() in memwalk_lru_exit() stops this. */
	memwalk_events_mod_delayed(&sampler_work, msecs_to_jiffies(ms));
}

static int interval_set(const char *val, const struct kernel_param *kp)
{
	unsigned int ms;
	int ret;

	ret = kstrtouint(val, 0, &ms);
	if (ret)
		return ret;
	if (ms && ms < MW_SAMPLE_MIN_MS)
		return -EINVAL;

	mutex_lock(&sampler_lock);
	WRITE_ONCE(sample_interval_ms, ms);
	if (sampler_live) {
		if (ms)
			memwalk_events_mod_delayed(&sampler_work,
						   msecs_to_jiffies(ms));
		else
			cancel_delayed_work(&sampler_work);
	}
	mutex_unlock(&sampler_lock);
	return 0;
}

static const struct kernel_param_ops interval_ops = {
	.set	= interval_set,
	.get	= param_get_uint,
};
module_param_cb(sample_interval_ms, &interval_ops, &sample_interval_ms, 0644);
MODULE_PARM_DESC(sample_interval_ms,
		 "Period of the LRU sampler in ms (0 = off, the default; at least 10)");

unsigned int memwalk_lru_interval_ms(void)
{
	return READ_ONCE(sample_interval_ms);
}

/* After memwalk_events_init(): the sampler runs on the events workqueue. */
void memwalk_lru_init(void)
{
	INIT_DELAYED_WORK(&sampler_work, sampler_fn);
	mutex_lock(&sampler_lock);
	sampler_live = true;
	if (sample_interval_ms)
		memwalk_events_mod_delayed(&sampler_work,
					   msecs_to_jiffies(sample_interval_ms));
	mutex_unlock(&sampler_lock);
}

void memwalk_lru_exit(void)
{
	mutex_lock(&sampler_lock);
	sampler_live = false;
	mutex_unlock(&sampler_lock);
	cancel_delayed_work_sync(&sampler_work);
}

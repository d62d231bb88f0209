/* SPDX-License-Identifier: GPL-2.0 */
/*
 * memwalk: the reclaim/OOM event pipeline, shared by events.c (per-CPU
 * buffers and delivery), probes.c (the hooks), lru.c (node statistics and
 * the periodic sampler) and netlink.c (GET_STATUS).
 */
#ifndef _MEMWALK_EVENTS_H
#define _MEMWALK_EVENTS_H

#include <linux/sched.h>
#include <linux/types.h>
#include <linux/workqueue.h>

#include "memwalk.h"

struct cgroup_subsys_state;
struct dentry;
struct mem_cgroup;
struct sk_buff;

/* One node's counters, in pages, in the order of MEMWALK_A_NODE_ACTIVE_ANON.. */
enum memwalk_node_item {
	MW_NODE_ACTIVE_ANON,
	MW_NODE_INACTIVE_ANON,
	MW_NODE_ACTIVE_FILE,
	MW_NODE_INACTIVE_FILE,
	MW_NODE_UNEVICTABLE,
	MW_NODE_FREE,
	MW_NODE_WMARK_MIN,
	MW_NODE_WMARK_LOW,
	MW_NODE_WMARK_HIGH,

	MW_NODE_NR_ITEMS,
};

struct memwalk_node_sample {
	int nid;
	unsigned long v[MW_NODE_NR_ITEMS];
};

/* Which optional fields of struct memwalk_event are set. */
#define MW_EVF_TASK		BIT(0)	/* pid, tgid, comm, memcg */
#define MW_EVF_NID		BIT(1)
#define MW_EVF_ZID		BIT(2)
#define MW_EVF_ORDER		BIT(3)
#define MW_EVF_GFP		BIT(4)
#define MW_EVF_NR_RECLAIMED	BIT(5)
#define MW_EVF_DURATION		BIT(6)
#define MW_EVF_RECLAIM_ORDER	BIT(7)
#define MW_EVF_OOM_DECISION	BIT(8)	/* oom.constraint .. oom.totalpages */

struct memwalk_oom_victim {
	pid_t pid;
	pid_t tgid;
	u32 uid;
	s32 score_adj;
	char comm[TASK_COMM_LEN];
	unsigned long total_vm;
	unsigned long rss_anon;
	unsigned long rss_file;
	unsigned long rss_shmem;
	struct cgroup_subsys_state *memcg;	/* pinned, or NULL */
	/* the decision, with MW_EVF_OOM_DECISION */
	u32 constraint;				/* enum memwalk_oom_constraint */
	long points;
	unsigned long totalpages;
	struct cgroup_subsys_state *oom_memcg;	/* pinned, or NULL */
};

/*
 * One event as a hook records it: fixed size, no pointers but the pinned
 * cgroup states, which the delivery work resolves to paths and releases.
 */
struct memwalk_event {
	u64 seq;
	u64 time_ns;
	u32 type;		/* enum memwalk_event_type */
	u32 leg;		/* enum memwalk_leg */
	u32 cpu;
	u32 present;		/* MW_EVF_* */
	pid_t pid;
	pid_t tgid;
	char comm[TASK_COMM_LEN];
	struct cgroup_subsys_state *memcg;	/* pinned, or NULL */
	int nid;
	int zid;
	int order;
	int reclaim_order;
	u32 gfp;
	u64 nr_reclaimed;
	u64 duration_ns;
	struct memwalk_oom_victim oom;	/* MEMWALK_EV_OOM_KILL only */
	unsigned int nr_nodes;
	struct memwalk_node_sample nodes[MEMWALK_EVENT_MAX_NODES];
};

/* The OOM killer's decision, as the oom_kill_process() kprobe saw it. */
struct memwalk_oom_decision {
	struct task_struct *trigger;	/* current then; compared, never used */
	struct mem_cgroup *memcg;	/* OOM domain, NULL for a global OOM */
	u32 constraint;			/* enum memwalk_oom_constraint */
	int order;
	long points;
	unsigned long totalpages;
};

/* What a hook hands to memwalk_event_record(). */
struct memwalk_event_args {
	u32 present;			/* MW_EVF_* */
	int nid;
	int zid;
	int order;
	int reclaim_order;
	u32 gfp;
	u64 nr_reclaimed;
	u64 duration_ns;
	struct task_struct *task;	/* with MW_EVF_TASK */
	struct task_struct *victim;	/* MEMWALK_EV_OOM_KILL */
	u32 victim_uid;
	const struct memwalk_oom_decision *decision; /* MW_EVF_OOM_DECISION */
};

/* events.c */
int memwalk_events_init(void);
void memwalk_events_exit(void);

bool memwalk_event_record(u32 type, u32 leg,
			  const struct memwalk_event_args *a);
enum memwalk_mcgrp_idx memwalk_event_group(u32 type);
const char *memwalk_event_name(u32 type);
bool memwalk_events_listening(enum memwalk_mcgrp_idx grp);
u64 memwalk_events_next_seq(enum memwalk_mcgrp_idx grp);
void memwalk_events_lost(enum memwalk_mcgrp_idx grp, u64 nr);
void memwalk_events_sent(enum memwalk_mcgrp_idx grp, u64 nr);
bool memwalk_events_mod_delayed(struct delayed_work *dwork,
				unsigned long delay);
int memwalk_events_put_header(struct sk_buff *skb, u32 type, u64 seq,
			      u32 cpu, u64 time_ns, u32 leg);
size_t memwalk_events_header_size(void);
struct sk_buff *memwalk_events_new_msg(size_t size);

size_t memwalk_events_status_size(void);
int memwalk_events_put_status(struct sk_buff *skb);

/* probes.c */
int memwalk_probes_init(void);
void memwalk_probes_exit(void);
void memwalk_probes_debugfs_init(struct dentry *dir);
size_t memwalk_probes_status_size(void);
int memwalk_probes_put_status(struct sk_buff *skb);

/* lru.c */
void memwalk_lru_sample_node(int nid, struct memwalk_node_sample *s);
int memwalk_lru_put_node(struct sk_buff *skb,
			 const struct memwalk_node_sample *s);
size_t memwalk_lru_node_size(void);
void memwalk_lru_init(void);
void memwalk_lru_exit(void);
unsigned int memwalk_lru_interval_ms(void);

/* netlink.c: the multicast path of the events */
bool memwalk_netlink_multicast(struct sk_buff *skb,
			       enum memwalk_mcgrp_idx grp);

#endif /* _MEMWALK_EVENTS_H */

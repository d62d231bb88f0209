// SPDX-License-Identifier: GPL-2.0
/*
 * memwalk: delivery of reclaim and OOM events (the drop_monitor model).
 *
 * Hooks (probes.c) run in atomic context, sometimes NMI-like: they must
 * not allocate nor take any lock but their CPU's buffer lock.  They record
 * a fixed-size struct memwalk_event into a per-CPU buffer, only while the
 * event's multicast group has subscribers, and queue an irq_work, which
 * queues the delivery work on a WQ_MEM_RECLAIM workqueue.
 *
 * The delivery work swaps every CPU's buffer for its spare, sorts what it
 * took by group and sequence number, and multicasts one MEMWALK_CMD_EVENT
 * message per event, several per datagram, in init_net.  Its allocations
 * never enter reclaim (see memwalk_events_new_msg()).
 *
 * Nothing is lost silently.  A full buffer counts the event against its CPU
 * and group, a message that cannot be allocated against its group, and the
 * next delivery to the group starts with a MEMWALK_EV_LOST message saying
 * how many.  Sequence numbers are handed out before the buffer is tried,
 * so lost events also leave a gap.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/cgroup.h>
#include <linux/cpumask.h>
#include <linux/irq_work.h>
#include <linux/kernel.h>
#include <linux/kprobes.h>
#include <linux/ktime.h>
#include <linux/limits.h>
#include <linux/memcontrol.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/nodemask.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/workqueue.h>
#include <net/genetlink.h>
#include <net/net_namespace.h>
#include <net/netlink.h>

#include "events.h"

#define MW_BUFFER_EVENTS_MAX	65536
#define MW_DELIVERY_DELAY_MAX	1000

static unsigned int buffer_events = 128;
module_param(buffer_events, uint, 0444);
MODULE_PARM_DESC(buffer_events,
		 "Events each CPU holds between two deliveries (1-65536, default 128)");

/*
 * 10 ms: at a few thousand reclaim events a second, delivering each at
 * once (a wakeup and a multicast per event) cost a reclaim-heavy
 * workload 2.4-6.3% of its instructions, batching 0-1.2% (make bench).
 */
static unsigned int delivery_delay_ms = 10;
module_param(delivery_delay_ms, uint, 0444);
MODULE_PARM_DESC(delivery_delay_ms,
		 "Deliver events at most this long after they happen, in batches; 0: each at once (0-1000, default 10)");

/*
 * One CPU's event buffers.  Hooks fill buf[fill]; the delivery work swaps
 * the two and then owns the other one until its next swap (the work never
 * runs concurrently with itself).
 */
struct ev_cpu {
	/*
	 * Protects buf, fill, len and recorded.  Hooks take it with interrupts
	 * off, and only try it in NMI context; the delivery work takes it to
	 * swap buffers, GET_STATUS to read recorded.  Nothing that takes
	 * another lock runs under it.  Raw, because hooks run in atomic
	 * context and on PREEMPT_RT a spinlock_t sleeps: every lock a hook
	 * takes must be raw (the 6.12-rt line tests this).
	 */
	raw_spinlock_t lock;
	struct memwalk_event *buf[2];
	unsigned int fill;
	unsigned int len;		/* events in buf[fill] */
	u64 recorded;
	/* Lock-free: also counted when the lock could not be had. */
	atomic64_t overflow[MEMWALK_MCGRP_IDX_COUNT];	/* since load */
	atomic64_t unreported[MEMWALK_MCGRP_IDX_COUNT];	/* not yet in a LOST */
};

struct ev_group {
	atomic64_t seq;		/* last sequence number handed out */
	atomic64_t sent;	/* events passed to netlink */
	atomic64_t delivery;	/* events lost for want of memory */
	atomic64_t unreported;	/* delivery losses not yet in a LOST */
};

static struct ev_cpu __percpu *ev_cpus;
static struct ev_group ev_groups[MEMWALK_MCGRP_IDX_COUNT];
static struct workqueue_struct *ev_wq;
/*
 * Not IRQ_WORK_INIT_HARD: its function only queues the delivery work,
 * which hard interrupt context and PREEMPT_RT's irq_work thread may both do.
 */
static struct irq_work ev_irq_work;
static struct delayed_work ev_work;

/*
 * EV_ARMED: a delivery is due for recorded events, at most
 * delivery_delay_ms away.  Set by ev_irq_work_fn(), cleared by the
 * delivery work before it takes the buffers.  Not ev_work's PENDING bit,
 * which a loss report (memwalk_events_lost()) also sets, 100 ms away.
 */
static unsigned long ev_flags;
#define EV_ARMED	0

/* Owned by the delivery work. */
static struct memwalk_event **ev_batch;
static char *ev_path;

/* A datagram that does not fit even one event is retried this large. */
#define EV_BIG_MSG	(3 * PATH_MAX + 4096)

static const char *const ev_names[] = {
	[MEMWALK_EV_UNSPEC]		= "unspec",
	[MEMWALK_EV_LOST]		= "lost",
	[MEMWALK_EV_KSWAPD_WAKE]	= "kswapd_wake",
	[MEMWALK_EV_KSWAPD_RUN_BEGIN]	= "kswapd_run_begin",
	[MEMWALK_EV_KSWAPD_RUN_END]	= "kswapd_run_end",
	[MEMWALK_EV_DIRECT_RECLAIM_BEGIN] = "direct_reclaim_begin",
	[MEMWALK_EV_DIRECT_RECLAIM_END]	= "direct_reclaim_end",
	[MEMWALK_EV_MEMCG_RECLAIM_BEGIN] = "memcg_reclaim_begin",
	[MEMWALK_EV_MEMCG_RECLAIM_END]	= "memcg_reclaim_end",
	[MEMWALK_EV_OOM_KILL]		= "oom_kill",
	[MEMWALK_EV_LRU_SAMPLE]		= "lru_sample",
};

static_assert(ARRAY_SIZE(ev_names) == MEMWALK_EV_MAX + 1);

const char *memwalk_event_name(u32 type)
{
	return type < ARRAY_SIZE(ev_names) ? ev_names[type] : "?";
}

enum memwalk_mcgrp_idx memwalk_event_group(u32 type)
{
	switch (type) {
	case MEMWALK_EV_OOM_KILL:
		return MEMWALK_MCGRP_IDX_OOM;
	case MEMWALK_EV_LRU_SAMPLE:
		return MEMWALK_MCGRP_IDX_LRU;
	default:
		return MEMWALK_MCGRP_IDX_RECLAIM;
	}
}

NOKPROBE_SYMBOL(memwalk_event_group);

/*
 * Any context: netlink_has_listeners() is RCU and a bit test.  Until the
 * family is registered its group ids are not yet its own: nobody listens.
 */
bool memwalk_events_listening(enum memwalk_mcgrp_idx grp)
{
	return memwalk_netlink_registered() &&
	       genl_has_listeners(&memwalk_genl_family, &init_net, grp) > 0;
}

NOKPROBE_SYMBOL(memwalk_events_listening);

u64 memwalk_events_next_seq(enum memwalk_mcgrp_idx grp)
{
	return atomic64_inc_return(&ev_groups[grp].seq);
}

NOKPROBE_SYMBOL(memwalk_events_next_seq);

/* Process context: @nr events of @grp could not be delivered. */
void memwalk_events_lost(enum memwalk_mcgrp_idx grp, u64 nr)
{
	atomic64_add(nr, &ev_groups[grp].delivery);
	atomic64_add(nr, &ev_groups[grp].unreported);
	/*
	 * Report it soon; never postpone a delivery already due.  The next
	 * event's delivery brings it forward (ev_irq_work_fn()).
	 */
	queue_delayed_work(ev_wq, &ev_work, HZ / 10);
}

void memwalk_events_sent(enum memwalk_mcgrp_idx grp, u64 nr)
{
	atomic64_add(nr, &ev_groups[grp].sent);
}

bool memwalk_events_mod_delayed(struct delayed_work *dwork,
				unsigned long delay)
{
	return mod_delayed_work(ev_wq, dwork, delay);
}

/* The pinned memory cgroup of @task, or NULL.  Any context. */
static struct cgroup_subsys_state *task_memcg_get(struct task_struct *task)
{
	struct cgroup_subsys_state *css = NULL;

#ifdef CONFIG_MEMCG
	/* RCU keeps task->cgroups and the css alive until we hold a ref. */
	rcu_read_lock();
	css = task_css(task, memory_cgrp_id);
	if (css && !css_tryget(css))
		css = NULL;
	rcu_read_unlock();
#endif
	return css;
}

NOKPROBE_SYMBOL(task_memcg_get);

static void ev_set_task(struct memwalk_event *ev, struct task_struct *task)
{
	ev->pid = task_pid_nr(task);
	ev->tgid = task_tgid_nr(task);
	/* May race with a rename; always terminated. */
	memcpy(ev->comm, task->comm, sizeof(ev->comm));
	ev->comm[sizeof(ev->comm) - 1] = '\0';
	ev->memcg = task_memcg_get(task);
}

NOKPROBE_SYMBOL(ev_set_task);

/*
 * The victim is task_lock()ed by the OOM killer around mark_oom_victim(),
 * so its mm stays; the counters are read without locks, as the kernel's
 * own "Killed process" line does.
 */
static void ev_set_victim(struct memwalk_oom_victim *o,
			  const struct memwalk_event_args *a)
{
	struct task_struct *v = a->victim;
	struct mm_struct *mm = READ_ONCE(v->mm);

	o->pid = task_pid_nr(v);
	o->tgid = task_tgid_nr(v);
	o->uid = a->victim_uid;
	o->score_adj = READ_ONCE(v->signal->oom_score_adj);
	memcpy(o->comm, v->comm, sizeof(o->comm));
	o->comm[sizeof(o->comm) - 1] = '\0';
	if (mm) {
		o->total_vm = READ_ONCE(mm->total_vm);
		o->rss_anon = get_mm_counter(mm, MM_ANONPAGES);
		o->rss_file = get_mm_counter(mm, MM_FILEPAGES);
		o->rss_shmem = get_mm_counter(mm, MM_SHMEMPAGES);
	}
	o->memcg = task_memcg_get(v);
}

NOKPROBE_SYMBOL(ev_set_victim);

static void ev_set_decision(struct memwalk_oom_victim *o,
			    const struct memwalk_oom_decision *d)
{
	o->constraint = d->constraint;
	o->points = d->points;
	o->totalpages = d->totalpages;
#ifdef CONFIG_MEMCG
	/* The OOM killer's caller holds a reference on its domain. */
	if (d->memcg && css_tryget(&d->memcg->css))
		o->oom_memcg = &d->memcg->css;
#endif
}

NOKPROBE_SYMBOL(ev_set_decision);

static void ev_fill_record(struct memwalk_event *ev, u32 type, u32 leg,
			   u64 seq, const struct memwalk_event_args *a)
{
	int nid;

	memset(ev, 0, sizeof(*ev));
	ev->seq = seq;
	ev->time_ns = ktime_get_mono_fast_ns();
	ev->type = type;
	ev->leg = leg;
	ev->cpu = smp_processor_id();
	ev->present = a->present;
	ev->nid = a->nid;
	ev->zid = a->zid;
	ev->order = a->order;
	ev->reclaim_order = a->reclaim_order;
	ev->gfp = a->gfp;
	ev->nr_reclaimed = a->nr_reclaimed;
	ev->duration_ns = a->duration_ns;
	if ((a->present & MW_EVF_TASK) && a->task)
		ev_set_task(ev, a->task);
	else
		ev->present &= ~MW_EVF_TASK;
	if (a->victim)
		ev_set_victim(&ev->oom, a);
	if ((a->present & MW_EVF_OOM_DECISION) && a->decision)
		ev_set_decision(&ev->oom, a->decision);
	else
		ev->present &= ~MW_EVF_OOM_DECISION;

	if (a->present & MW_EVF_NID) {
		memwalk_lru_sample_node(a->nid, &ev->nodes[0]);
		ev->nr_nodes = 1;
		return;
	}
	for_each_online_node(nid) {
		if (ev->nr_nodes == MEMWALK_EVENT_MAX_NODES)
			break;
		memwalk_lru_sample_node(nid, &ev->nodes[ev->nr_nodes++]);
	}
}

NOKPROBE_SYMBOL(ev_fill_record);

/*
 * Have the delivery work run.  With delivery_delay_ms, a delivery already
 * armed takes this event too (the work clears EV_ARMED, then a full
 * barrier, before it takes each CPU's buffer lock, under which the event
 * was recorded before we looked), so no irq_work, an interrupt, per event.
 */
static void ev_kick(void)
{
	if (delivery_delay_ms && test_bit(EV_ARMED, &ev_flags))
		return;
	irq_work_queue(&ev_irq_work);
}

NOKPROBE_SYMBOL(ev_kick);

/**
 * memwalk_event_record() - record an event for delivery
 * @type: MEMWALK_EV_*
 * @leg: MEMWALK_LEG_* of the calling hook
 * @a: the event's fields
 *
 * Context: any, including NMI; does not allocate or sleep.  Takes this
 * CPU's buffer lock with interrupts off (only tries it in NMI).
 * Return: true if recorded; false if nobody listens or it was lost (and
 * counted).
 */
bool memwalk_event_record(u32 type, u32 leg,
			  const struct memwalk_event_args *a)
{
	enum memwalk_mcgrp_idx grp = memwalk_event_group(type);
	struct memwalk_event *ev;
	unsigned long flags;
	struct ev_cpu *c;
	u64 seq;

	if (!memwalk_events_listening(grp))
		return false;

	local_irq_save(flags);
	c = this_cpu_ptr(ev_cpus);
	seq = memwalk_events_next_seq(grp);
	if (unlikely(in_nmi())) {
		/* The interrupted code may hold it: never spin. */
		if (!raw_spin_trylock(&c->lock))
			goto out_lost;
	} else {
		raw_spin_lock(&c->lock);
	}
	if (c->len >= buffer_events) {
		raw_spin_unlock(&c->lock);
		goto out_lost;
	}
	ev = &c->buf[c->fill][c->len++];
	c->recorded++;
	ev_fill_record(ev, type, leg, seq, a);
	raw_spin_unlock(&c->lock);
	local_irq_restore(flags);

	ev_kick();
	return true;

out_lost:
	atomic64_inc(&c->overflow[grp]);
	atomic64_inc(&c->unreported[grp]);
	local_irq_restore(flags);
	ev_kick();
	return false;
}

NOKPROBE_SYMBOL(memwalk_event_record);

/*
 * Hard interrupt context: hand over to process context, at once or, with
 * delivery_delay_ms, once the burst had that long to gather.  A delivery
 * already armed is left as it is; a loss report due later is brought
 * forward: it must not hold back the events.
 */
static void ev_irq_work_fn(struct irq_work *work)
{
	if (!delivery_delay_ms)
		mod_delayed_work(ev_wq, &ev_work, 0);
	else if (!test_and_set_bit(EV_ARMED, &ev_flags))
		mod_delayed_work(ev_wq, &ev_work,
				 msecs_to_jiffies(delivery_delay_ms));
}

NOKPROBE_SYMBOL(ev_irq_work_fn);

/* ---- delivery ---------------------------------------------------------- */

size_t memwalk_events_header_size(void)
{
	return nla_total_size(sizeof(u32)) +		/* TYPE */
	       nla_total_size_64bit(sizeof(u64)) +	/* SEQ */
	       nla_total_size(sizeof(u32)) +		/* CPU */
	       nla_total_size_64bit(sizeof(u64)) +	/* TIME_NS */
	       nla_total_size(sizeof(u32));		/* LEG */
}

/* The attributes every event has; @seq 0 (LOST) is left out. */
int memwalk_events_put_header(struct sk_buff *skb, u32 type, u64 seq,
			      u32 cpu, u64 time_ns, u32 leg)
{
	if (nla_put_u32(skb, MEMWALK_A_EVENT_TYPE, type) ||
	    (seq && nla_put_u64_64bit(skb, MEMWALK_A_EVENT_SEQ, seq,
				      MEMWALK_A_PAD)) ||
	    nla_put_u32(skb, MEMWALK_A_EVENT_CPU, cpu) ||
	    nla_put_u64_64bit(skb, MEMWALK_A_EVENT_TIME_NS, time_ns,
			      MEMWALK_A_PAD) ||
	    nla_put_u32(skb, MEMWALK_A_EVENT_LEG, leg))
		return -EMSGSIZE;
	return 0;
}

static int ev_put_memcg(struct sk_buff *skb, int path_attr, int id_attr,
			struct cgroup_subsys_state *css)
{
	if (!css)
		return 0;
	/* Relative to the hierarchy's root, i.e. the initial cgroup ns. */
	if (cgroup_path(css->cgroup, ev_path, PATH_MAX) >= 0 &&
	    nla_put_string(skb, path_attr, ev_path))
		return -EMSGSIZE;
	return nla_put_u64_64bit(skb, id_attr, cgroup_id(css->cgroup),
				 MEMWALK_A_PAD);
}

static int ev_put_task(struct sk_buff *skb, const struct memwalk_event *ev)
{
	if (nla_put_u32(skb, MEMWALK_A_EVENT_PID, ev->pid) ||
	    nla_put_u32(skb, MEMWALK_A_EVENT_TGID, ev->tgid) ||
	    nla_put_string(skb, MEMWALK_A_EVENT_COMM, ev->comm))
		return -EMSGSIZE;
	return ev_put_memcg(skb, MEMWALK_A_EVENT_MEMCG_PATH,
			    MEMWALK_A_EVENT_MEMCG_ID, ev->memcg);
}

static int ev_put_reclaim(struct sk_buff *skb, const struct memwalk_event *ev)
{
	u32 p = ev->present;

	if (((p & MW_EVF_NID) &&
	     nla_put_u32(skb, MEMWALK_A_EVENT_NID, ev->nid)) ||
	    ((p & MW_EVF_ZID) &&
	     nla_put_u32(skb, MEMWALK_A_EVENT_ZID, ev->zid)) ||
	    ((p & MW_EVF_ORDER) &&
	     nla_put_s32(skb, MEMWALK_A_EVENT_ORDER, ev->order)) ||
	    ((p & MW_EVF_GFP) &&
	     nla_put_u32(skb, MEMWALK_A_EVENT_GFP, ev->gfp)) ||
	    ((p & MW_EVF_NR_RECLAIMED) &&
	     nla_put_u64_64bit(skb, MEMWALK_A_EVENT_NR_RECLAIMED,
			       ev->nr_reclaimed, MEMWALK_A_PAD)) ||
	    ((p & MW_EVF_DURATION) &&
	     nla_put_u64_64bit(skb, MEMWALK_A_EVENT_DURATION_NS,
			       ev->duration_ns, MEMWALK_A_PAD)) ||
	    ((p & MW_EVF_RECLAIM_ORDER) &&
	     nla_put_s32(skb, MEMWALK_A_EVENT_RECLAIM_ORDER,
			 ev->reclaim_order)))
		return -EMSGSIZE;
	return 0;
}

static int ev_put_oom(struct sk_buff *skb, const struct memwalk_event *ev)
{
	const struct memwalk_oom_victim *o = &ev->oom;

	if (nla_put_u32(skb, MEMWALK_A_OOM_VICTIM_PID, o->pid) ||
	    nla_put_u32(skb, MEMWALK_A_OOM_VICTIM_TGID, o->tgid) ||
	    nla_put_string(skb, MEMWALK_A_OOM_VICTIM_COMM, o->comm) ||
	    nla_put_u32(skb, MEMWALK_A_OOM_VICTIM_UID, o->uid) ||
	    ev_put_memcg(skb, MEMWALK_A_OOM_VICTIM_MEMCG_PATH,
			 MEMWALK_A_OOM_VICTIM_MEMCG_ID, o->memcg) ||
	    nla_put_u64_64bit(skb, MEMWALK_A_OOM_TOTAL_VM, o->total_vm,
			      MEMWALK_A_PAD) ||
	    nla_put_u64_64bit(skb, MEMWALK_A_OOM_RSS_ANON, o->rss_anon,
			      MEMWALK_A_PAD) ||
	    nla_put_u64_64bit(skb, MEMWALK_A_OOM_RSS_FILE, o->rss_file,
			      MEMWALK_A_PAD) ||
	    nla_put_u64_64bit(skb, MEMWALK_A_OOM_RSS_SHMEM, o->rss_shmem,
			      MEMWALK_A_PAD) ||
	    nla_put_s32(skb, MEMWALK_A_OOM_SCORE_ADJ, o->score_adj))
		return -EMSGSIZE;
	if (!(ev->present & MW_EVF_OOM_DECISION))
		return 0;
	if (nla_put_u32(skb, MEMWALK_A_OOM_CONSTRAINT, o->constraint) ||
	    nla_put_s64(skb, MEMWALK_A_OOM_POINTS, o->points, MEMWALK_A_PAD) ||
	    nla_put_u64_64bit(skb, MEMWALK_A_OOM_TOTALPAGES, o->totalpages,
			      MEMWALK_A_PAD))
		return -EMSGSIZE;
	return ev_put_memcg(skb, MEMWALK_A_OOM_MEMCG_PATH,
			    MEMWALK_A_OOM_MEMCG_ID, o->oom_memcg);
}

/* One MEMWALK_CMD_EVENT message for @ev, or -EMSGSIZE and nothing. */
static int ev_fill_msg(struct sk_buff *skb, const struct memwalk_event *ev)
{
	unsigned int i;
	void *hdr;

	hdr = genlmsg_put(skb, 0, 0, &memwalk_genl_family, 0,
			  MEMWALK_CMD_EVENT);
	if (!hdr)
		return -EMSGSIZE;

	if (memwalk_events_put_header(skb, ev->type, ev->seq, ev->cpu,
				      ev->time_ns, ev->leg) ||
	    ((ev->present & MW_EVF_TASK) && ev_put_task(skb, ev)) ||
	    ev_put_reclaim(skb, ev) ||
	    (ev->type == MEMWALK_EV_OOM_KILL && ev_put_oom(skb, ev)))
		goto out_cancel_msg;
	for (i = 0; i < ev->nr_nodes; i++)
		if (memwalk_lru_put_node(skb, &ev->nodes[i]))
			goto out_cancel_msg;

	genlmsg_end(skb, hdr);
	return 0;

out_cancel_msg:
	genlmsg_cancel(skb, hdr);
	return -EMSGSIZE;
}

static int ev_fill_lost(struct sk_buff *skb, u64 lost)
{
	void *hdr;

	hdr = genlmsg_put(skb, 0, 0, &memwalk_genl_family, 0,
			  MEMWALK_CMD_EVENT);
	if (!hdr)
		return -EMSGSIZE;
	if (memwalk_events_put_header(skb, MEMWALK_EV_LOST, 0,
				      raw_smp_processor_id(),
				      ktime_get_mono_fast_ns(),
				      MEMWALK_LEG_NONE) ||
	    nla_put_u64_64bit(skb, MEMWALK_A_EVENT_LOST, lost,
			      MEMWALK_A_PAD)) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(skb, hdr);
	return 0;
}

/* A datagram being filled for one group. */
struct ev_dgram {
	enum memwalk_mcgrp_idx grp;
	struct sk_buff *skb;
	unsigned int nr_events;		/* event messages in skb */
	unsigned int nr_msgs;		/* messages in skb, LOST included */
};

static void ev_flush(struct ev_dgram *d)
{
	if (!d->skb)
		return;
	/* Not sent when the family is going: its subscribers are gone. */
	if (memwalk_netlink_multicast(d->skb, d->grp))
		memwalk_events_sent(d->grp, d->nr_events);
	d->skb = NULL;
	d->nr_events = 0;
	d->nr_msgs = 0;
}

/**
 * memwalk_events_new_msg() - allocate a datagram for events
 * @size: its netlink payload (nlmsg_new() units)
 *
 * Never enters reclaim: that could fire our own hooks from the work that
 * drains them.  Events matter most when memory is short, so when nothing
 * is left above the watermarks it dips into the atomic reserves before the
 * caller has to count a loss.
 *
 * Context: process context, any locks.
 */
struct sk_buff *memwalk_events_new_msg(size_t size)
{
	struct sk_buff *skb;

	skb = nlmsg_new(size, GFP_NOWAIT | __GFP_NOWARN);
	if (!skb)
		skb = nlmsg_new(size, GFP_NOWAIT | __GFP_HIGH | __GFP_NOWARN);
	return skb;
}

/* Make sure d->skb exists; false if out of memory. */
static bool ev_dgram_get(struct ev_dgram *d, size_t size)
{
	if (d->skb)
		return true;
	d->skb = memwalk_events_new_msg(size);
	return d->skb;
}

/* Add @ev to the datagram, flushing it when full; false if @ev is lost. */
static bool ev_dgram_add(struct ev_dgram *d, const struct memwalk_event *ev)
{
	if (!ev_dgram_get(d, NLMSG_DEFAULT_SIZE))
		return false;
	if (!ev_fill_msg(d->skb, ev))
		goto out_added;
	if (d->nr_msgs) {
		ev_flush(d);
		if (!ev_dgram_get(d, NLMSG_DEFAULT_SIZE))
			return false;
		if (!ev_fill_msg(d->skb, ev))
			goto out_added;
	}
	/* Does not fit an empty datagram (long cgroup paths): a big one. */
	nlmsg_free(d->skb);
	d->skb = NULL;
	if (!ev_dgram_get(d, EV_BIG_MSG) || ev_fill_msg(d->skb, ev))
		return false;
out_added:
	d->nr_events++;
	d->nr_msgs++;
	return true;
}

static void ev_deliver_group(enum memwalk_mcgrp_idx grp, u64 lost,
			     struct memwalk_event **evs, unsigned int nr)
{
	struct ev_dgram d = { .grp = grp };
	unsigned int i;

	/* Subscribers may have left since the hooks checked: drop quietly. */
	if (!memwalk_events_listening(grp))
		return;

	if (lost) {
		if (!ev_dgram_get(&d, NLMSG_DEFAULT_SIZE)) {
			/* Keep the count for the next try, add these. */
			atomic64_add(lost, &ev_groups[grp].unreported);
			memwalk_events_lost(grp, nr);
			return;
		}
		/* Cannot fail: an empty datagram has room for it. */
		if (!ev_fill_lost(d.skb, lost))
			d.nr_msgs++;
	}
	for (i = 0; i < nr; i++)
		if (!ev_dgram_add(&d, evs[i]))
			memwalk_events_lost(grp, 1);
	ev_flush(&d);
}

static void ev_release(struct memwalk_event *ev)
{
	if (ev->memcg)
		css_put(ev->memcg);
	if (ev->oom.memcg)
		css_put(ev->oom.memcg);
	if (ev->oom.oom_memcg)
		css_put(ev->oom.oom_memcg);
}

static int ev_cmp(const void *a, const void *b)
{
	const struct memwalk_event *x = *(struct memwalk_event * const *)a;
	const struct memwalk_event *y = *(struct memwalk_event * const *)b;
	enum memwalk_mcgrp_idx gx = memwalk_event_group(x->type);
	enum memwalk_mcgrp_idx gy = memwalk_event_group(y->type);

	if (gx != gy)
		return gx < gy ? -1 : 1;
	if (x->seq != y->seq)
		return x->seq < y->seq ? -1 : 1;
	return 0;
}

static void ev_deliver(struct work_struct *work)
{
	u64 lost[MEMWALK_MCGRP_IDX_COUNT] = { 0 };
	unsigned int n = 0, i, first;
	int cpu, g;

	/* Events recorded from here on need another run. */
	clear_bit(EV_ARMED, &ev_flags);
	/* The clear before the buffer locks; ev_kick() tests after its. */
	smp_mb__after_atomic();

	for_each_possible_cpu(cpu) {
		struct ev_cpu *c = per_cpu_ptr(ev_cpus, cpu);
		struct memwalk_event *buf;
		unsigned long flags;
		unsigned int len, j;

		raw_spin_lock_irqsave(&c->lock, flags);
		buf = c->buf[c->fill];
		len = c->len;
		c->fill ^= 1;
		c->len = 0;
		raw_spin_unlock_irqrestore(&c->lock, flags);

		for (j = 0; j < len; j++)
			ev_batch[n++] = &buf[j];
		for (g = 0; g < MEMWALK_MCGRP_IDX_COUNT; g++)
			lost[g] += atomic64_xchg(&c->unreported[g], 0);
	}
	for (g = 0; g < MEMWALK_MCGRP_IDX_COUNT; g++)
		lost[g] += atomic64_xchg(&ev_groups[g].unreported, 0);

	sort(ev_batch, n, sizeof(*ev_batch), ev_cmp, NULL);

	for (i = 0, g = 0; g < MEMWALK_MCGRP_IDX_COUNT; g++) {
		for (first = i; i < n; i++)
			if (memwalk_event_group(ev_batch[i]->type) != g)
				break;
		if (lost[g] || i > first)
			ev_deliver_group(g, lost[g], &ev_batch[first],
					 i - first);
	}

	for (i = 0; i < n; i++)
		ev_release(ev_batch[i]);
}

/* ---- status -------------------------------------------------------------- */

static size_t ev_group_nest_size(void)
{
	return nla_total_size(0) + nla_total_size(GENL_NAMSIZ) +
	       4 * nla_total_size_64bit(sizeof(u64));
}

static size_t ev_cpu_nest_size(void)
{
	return nla_total_size(0) + nla_total_size(sizeof(u32)) +
	       2 * nla_total_size_64bit(sizeof(u64));
}

size_t memwalk_events_status_size(void)
{
	return nla_total_size(sizeof(u32)) +			/* BUFFER_EVENTS */
	       2 * nla_total_size_64bit(sizeof(u64)) +		/* DROPS_* */
	       MEMWALK_MCGRP_IDX_COUNT * ev_group_nest_size() +
	       num_possible_cpus() * ev_cpu_nest_size();
}

static int ev_put_group(struct sk_buff *skb, enum memwalk_mcgrp_idx g,
			u64 overflow)
{
	static const char *const names[MEMWALK_MCGRP_IDX_COUNT] = {
		[MEMWALK_MCGRP_IDX_RECLAIM]	= MEMWALK_MCGRP_RECLAIM,
		[MEMWALK_MCGRP_IDX_OOM]		= MEMWALK_MCGRP_OOM,
		[MEMWALK_MCGRP_IDX_LRU]		= MEMWALK_MCGRP_LRU,
	};
	struct ev_group *eg = &ev_groups[g];
	struct nlattr *nest;

	nest = nla_nest_start(skb, MEMWALK_A_STATUS_GROUP);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put_string(skb, MEMWALK_A_GROUP_NAME, names[g]) ||
	    nla_put_u64_64bit(skb, MEMWALK_A_GROUP_SEQ,
			      atomic64_read(&eg->seq), MEMWALK_A_GROUP_PAD) ||
	    nla_put_u64_64bit(skb, MEMWALK_A_GROUP_SENT,
			      atomic64_read(&eg->sent), MEMWALK_A_GROUP_PAD) ||
	    nla_put_u64_64bit(skb, MEMWALK_A_GROUP_DROPS_OVERFLOW, overflow,
			      MEMWALK_A_GROUP_PAD) ||
	    nla_put_u64_64bit(skb, MEMWALK_A_GROUP_DROPS_DELIVERY,
			      atomic64_read(&eg->delivery),
			      MEMWALK_A_GROUP_PAD)) {
		nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	return 0;
}

static int ev_put_cpu(struct sk_buff *skb, int cpu, u64 recorded,
		      u64 overflow)
{
	struct nlattr *nest;

	nest = nla_nest_start(skb, MEMWALK_A_STATUS_CPU);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u32(skb, MEMWALK_A_CPU_ID, cpu) ||
	    nla_put_u64_64bit(skb, MEMWALK_A_CPU_RECORDED, recorded,
			      MEMWALK_A_CPU_PAD) ||
	    nla_put_u64_64bit(skb, MEMWALK_A_CPU_DROPS_OVERFLOW, overflow,
			      MEMWALK_A_CPU_PAD)) {
		nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	return 0;
}

static u64 ev_cpu_overflow(struct ev_cpu *c)
{
	u64 sum = 0;
	int g;

	for (g = 0; g < MEMWALK_MCGRP_IDX_COUNT; g++)
		sum += atomic64_read(&c->overflow[g]);
	return sum;
}

/* GET_STATUS: the counters, each read once; they keep moving. */
int memwalk_events_put_status(struct sk_buff *skb)
{
	u64 overflow[MEMWALK_MCGRP_IDX_COUNT] = { 0 };
	u64 total_overflow = 0, total_delivery = 0;
	int cpu, g;

	for_each_possible_cpu(cpu) {
		struct ev_cpu *c = per_cpu_ptr(ev_cpus, cpu);

		for (g = 0; g < MEMWALK_MCGRP_IDX_COUNT; g++)
			overflow[g] += atomic64_read(&c->overflow[g]);
	}
	for (g = 0; g < MEMWALK_MCGRP_IDX_COUNT; g++) {
		total_overflow += overflow[g];
		total_delivery += atomic64_read(&ev_groups[g].delivery);
	}

	if (nla_put_u32(skb, MEMWALK_A_STATUS_BUFFER_EVENTS, buffer_events) ||
	    nla_put_u64_64bit(skb, MEMWALK_A_STATUS_DROPS_OVERFLOW,
			      total_overflow, MEMWALK_A_PAD) ||
	    nla_put_u64_64bit(skb, MEMWALK_A_STATUS_DROPS_DELIVERY,
			      total_delivery, MEMWALK_A_PAD))
		return -EMSGSIZE;
	for (g = 0; g < MEMWALK_MCGRP_IDX_COUNT; g++)
		if (ev_put_group(skb, g, overflow[g]))
			return -EMSGSIZE;

	for_each_possible_cpu(cpu) {
		struct ev_cpu *c = per_cpu_ptr(ev_cpus, cpu);
		unsigned long flags;
		u64 recorded, cpu_overflow;

		raw_spin_lock_irqsave(&c->lock, flags);
		recorded = c->recorded;
		raw_spin_unlock_irqrestore(&c->lock, flags);
		cpu_overflow = ev_cpu_overflow(c);
		if (!recorded && !cpu_overflow)
			continue;
		if (ev_put_cpu(skb, cpu, recorded, cpu_overflow))
			return -EMSGSIZE;
	}
	return 0;
}

/* ---- init / exit --------------------------------------------------------- */

static void ev_free_buffers(void)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		struct ev_cpu *c = per_cpu_ptr(ev_cpus, cpu);

		kvfree(c->buf[0]);
		kvfree(c->buf[1]);
	}
	free_percpu(ev_cpus);
	ev_cpus = NULL;
}

/*
 * Allocate the buffers and the workqueue.  Nothing records events before
 * memwalk_probes_init() attaches the hooks and the family is registered.
 */
int memwalk_events_init(void)
{
	size_t size;
	int cpu;

	if (!buffer_events || buffer_events > MW_BUFFER_EVENTS_MAX) {
		pr_warn("buffer_events=%u out of range, using 128\n",
			buffer_events);
		buffer_events = 128;
	}
	if (delivery_delay_ms > MW_DELIVERY_DELAY_MAX) {
		pr_warn("delivery_delay_ms=%u out of range, using %u\n",
			delivery_delay_ms, MW_DELIVERY_DELAY_MAX);
		delivery_delay_ms = MW_DELIVERY_DELAY_MAX;
	}
	size = array_size(buffer_events, sizeof(struct memwalk_event));

	ev_cpus = alloc_percpu(struct ev_cpu);
	if (!ev_cpus)
		goto out_nomem;
	for_each_possible_cpu(cpu) {
		struct ev_cpu *c = per_cpu_ptr(ev_cpus, cpu);
		int node = cpu_to_node(cpu);

		raw_spin_lock_init(&c->lock);
		c->buf[0] = kvzalloc_node(size, GFP_KERNEL, node);
		c->buf[1] = kvzalloc_node(size, GFP_KERNEL, node);
		if (!c->buf[0] || !c->buf[1])
			goto out_free_buffers;
	}

	ev_batch = kvmalloc_array(array_size(num_possible_cpus(),
					     buffer_events),
				  sizeof(*ev_batch), GFP_KERNEL);
	if (!ev_batch)
		goto out_free_buffers;
	ev_path = kmalloc(PATH_MAX, GFP_KERNEL);
	if (!ev_path)
		goto out_free_batch;

	/* The rescuer keeps delivery going when memory is short. */
	ev_wq = alloc_ordered_workqueue("memwalk_events",
					WQ_MEM_RECLAIM | WQ_HIGHPRI);
	if (!ev_wq)
		goto out_free_path;
	init_irq_work(&ev_irq_work, ev_irq_work_fn);
	INIT_DELAYED_WORK(&ev_work, ev_deliver);
	return 0;

out_free_path:
	kfree(ev_path);
out_free_batch:
	kvfree(ev_batch);
out_free_buffers:
	ev_free_buffers();
out_nomem:
	pr_err("cannot allocate the event buffers (%u per CPU)\n",
	       buffer_events);
	return -ENOMEM;
}

/*
 * After memwalk_probes_exit() and memwalk_lru_exit(): nothing queues the
 * irq_work nor the works any more.  Wait for the irq_work, then for the
 * delivery it may have queued, then for the workqueue's rescuer; free
 * the buffers last, with what they still hold.
 */
void memwalk_events_exit(void)
{
	int cpu;

	irq_work_sync(&ev_irq_work);
	cancel_delayed_work_sync(&ev_work);
	destroy_workqueue(ev_wq);
	ev_wq = NULL;

	/* Events recorded but never delivered still pin their cgroups. */
	for_each_possible_cpu(cpu) {
		struct ev_cpu *c = per_cpu_ptr(ev_cpus, cpu);
		unsigned int i;

		for (i = 0; i < c->len; i++)
			ev_release(&c->buf[c->fill][i]);
		c->len = 0;
	}
	kfree(ev_path);
	kvfree(ev_batch);
	ev_free_buffers();
}

// SPDX-License-Identifier: GPL-2.0
/*
 * memwalk: the reclaim and OOM hooks.
 *
 * Each event has a list of hooks in order of preference ("slot"): the
 * vmscan and oom tracepoints where they say what we need, kprobes and
 * kretprobes for what they do not (durations, the OOM decision) and as
 * fallbacks where a tracepoint is missing.  The first hook of a slot that
 * attaches reports the event; a hook that cannot attach is logged and
 * reported (debugfs memwalk/probes, GET_STATUS), never fatal.  The
 * "disable" parameter keeps hooks off, e.g. to exercise a fallback.
 *
 * The tracepoints are not exported: for_each_kernel_tracepoint() finds
 * them by name.  Their probes' prototypes are checked at build time
 * against the kernel's TP_PROTO through the register_trace_*() inlines,
 * which are never called (they would need the unexported symbols).
 *
 * Handlers run in atomic context: tracepoints with preemption off, kprobes
 * through ftrace with preemption off or, through int3, NMI-like.  They
 * read what they need without locks and hand it to memwalk_event_record().
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cred.h>
#include <linux/debugfs.h>
#include <linux/kallsyms.h>
#include <linux/kernel.h>
#include <linux/kprobes.h>
#include <linux/ktime.h>
#include <linux/mm.h>
#include <linux/mmzone.h>
#include <linux/module.h>
#include <linux/oom.h>
#include <linux/percpu.h>
#include <linux/ptrace.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/tracepoint.h>
#include <linux/vmstat.h>
#include <net/netlink.h>
#include <trace/events/oom.h>
#include <trace/events/vmscan.h>

#include "events.h"

static unsigned int kretprobe_maxactive = 1024;
module_param(kretprobe_maxactive, uint, 0444);
MODULE_PARM_DESC(kretprobe_maxactive,
		 "Concurrent calls each kretprobe follows (1-4096, default 1024)");

static char *disable;
module_param(disable, charp, 0444);
MODULE_PARM_DESC(disable,
		 "Hooks not to attach, comma-separated: NAME or LEG:NAME, LEG = tracepoint|kprobe|kretprobe");

enum hook_slot {
	SLOT_KSWAPD_WAKE,
	SLOT_KSWAPD_RUN_BEGIN,
	SLOT_KSWAPD_RUN_END,
	SLOT_DIRECT_BEGIN,
	SLOT_DIRECT_END,
	SLOT_MEMCG_BEGIN,
	SLOT_MEMCG_END,
	SLOT_OOM_DECISION,
	SLOT_OOM_KILL,

	NR_SLOTS,
};

/* In order of preference within each slot. */
enum hook_id {
	H_TP_WAKEUP_KSWAPD,
	H_KP_WAKEUP_KSWAPD,
#ifdef MEMWALK_TP_BALANCE_PGDAT
	H_TP_BALANCE_PGDAT_BEGIN,
#endif
	H_TP_KSWAPD_WAKE,
	H_KP_BALANCE_PGDAT,
#ifdef MEMWALK_TP_BALANCE_PGDAT
	H_TP_BALANCE_PGDAT_END,
#endif
	H_KRP_BALANCE_PGDAT,
	H_TP_DIRECT_BEGIN,
	H_KP_TRY_TO_FREE_PAGES,
	H_KRP_TRY_TO_FREE_PAGES,
	H_TP_DIRECT_END,
	H_TP_MEMCG_BEGIN,
	H_KP_TRY_TO_FREE_MEMCG,
	H_KRP_TRY_TO_FREE_MEMCG,
	H_TP_MEMCG_END,
	H_KP_OOM_KILL_PROCESS,
	H_TP_MARK_VICTIM,
	H_KP_MARK_OOM_VICTIM,

	NR_HOOKS,
};

/*
 * Not a uapi state: a hook memwalk_probes_init() has not tried yet.  Never
 * reported: the debugfs file and the family that show hooks are created
 * after it (main.c), and memwalk_probes_put_status() would refuse.
 */
#define HOOK_UNTRIED	U32_MAX

struct hook {
	const char *name;	/* tracepoint; see hook_name() */
	u8 leg;			/* MEMWALK_LEG_* */
	u8 slot;		/* enum hook_slot */
	u8 event;		/* MEMWALK_EV_* reported, 0 for context only */
	void *tp_probe;
	struct tracepoint *tp;
	struct kprobe kp;
	struct kretprobe krp;
	/* Written by memwalk_probes_init() before anything reads them. */
	u32 state;		/* MEMWALK_PROBE_*, or HOOK_UNTRIED */
	int err;
};

/* Handler runs per hook; per-CPU so hot hooks do not share a line. */
static DEFINE_PER_CPU(u64 [NR_HOOKS], hook_hits);

static __always_inline void hit(enum hook_id id)
{
	this_cpu_inc(hook_hits[id]);
}

static int arg_int(struct pt_regs *regs, unsigned int n)
{
	return (int)regs_get_kernel_argument(regs, n);
}

NOKPROBE_SYMBOL(arg_int);

static void *arg_ptr(struct pt_regs *regs, unsigned int n)
{
	return (void *)regs_get_kernel_argument(regs, n);
}

NOKPROBE_SYMBOL(arg_ptr);

/* ---- kswapd wake --------------------------------------------------------- */

static void kswapd_wake(u32 leg, int nid, int zid, int order, gfp_t gfp)
{
	struct memwalk_event_args a = {
		.present = MW_EVF_NID | MW_EVF_ZID | MW_EVF_ORDER | MW_EVF_GFP,
		.nid = nid,
		.zid = zid,
		.order = order,
		.gfp = (__force u32)gfp,
	};

	memwalk_event_record(MEMWALK_EV_KSWAPD_WAKE, leg, &a);
}

NOKPROBE_SYMBOL(kswapd_wake);

static void tp_wakeup_kswapd(void *data, int nid, int zid, int order,
			     gfp_t gfp)
{
	hit(H_TP_WAKEUP_KSWAPD);
	kswapd_wake(MEMWALK_LEG_TRACEPOINT, nid, zid, order, gfp);
}

NOKPROBE_SYMBOL(tp_wakeup_kswapd);

/* wakeup_kswapd(zone, gfp_flags, order, highest_zoneidx) */
static int kp_wakeup_kswapd(struct kprobe *p, struct pt_regs *regs)
{
	struct zone *zone = arg_ptr(regs, 0);

	hit(H_KP_WAKEUP_KSWAPD);
	kswapd_wake(MEMWALK_LEG_KPROBE, zone_to_nid(zone), arg_int(regs, 3),
		    arg_int(regs, 2), (__force gfp_t)arg_int(regs, 1));
	return 0;
}

NOKPROBE_SYMBOL(kp_wakeup_kswapd);

/* ---- kswapd runs ----------------------------------------------------------- */

/*
 * The run each node's kswapd is in, for the legs whose end does not see
 * the begin.  Each entry is only used by its node's kswapd thread.
 */
struct kswapd_run {
	u64 t0;			/* 0: no begin seen */
	int order;
	int zid;
};

static struct kswapd_run *kswapd_runs;	/* [nr_node_ids] */

static void run_begin(u32 leg, int nid, int order, int zid)
{
	struct memwalk_event_args a = {
		.present = MW_EVF_NID | MW_EVF_ZID | MW_EVF_ORDER,
		.nid = nid,
		.zid = zid,
		.order = order,
	};

	if (nid >= 0 && nid < nr_node_ids) {
		struct kswapd_run *r = &kswapd_runs[nid];

		WRITE_ONCE(r->order, order);
		WRITE_ONCE(r->zid, zid);
		WRITE_ONCE(r->t0, ktime_get_mono_fast_ns());
	}
	memwalk_event_record(MEMWALK_EV_KSWAPD_RUN_BEGIN, leg, &a);
}

NOKPROBE_SYMBOL(run_begin);

#ifdef MEMWALK_TP_BALANCE_PGDAT
static void tp_balance_pgdat_begin(void *data, int nid, int order, int zid)
{
	hit(H_TP_BALANCE_PGDAT_BEGIN);
	run_begin(MEMWALK_LEG_TRACEPOINT, nid, order, zid);
}

NOKPROBE_SYMBOL(tp_balance_pgdat_begin);

static void tp_balance_pgdat_end(void *data, int nid, int order, int zid,
				 unsigned long nr_reclaimed)
{
	struct memwalk_event_args a = {
		.present = MW_EVF_NID | MW_EVF_ZID | MW_EVF_RECLAIM_ORDER |
			   MW_EVF_NR_RECLAIMED,
		.nid = nid,
		.zid = zid,
		.reclaim_order = order,
		.nr_reclaimed = nr_reclaimed,
	};

	hit(H_TP_BALANCE_PGDAT_END);
	if (nid >= 0 && nid < nr_node_ids) {
		struct kswapd_run *r = &kswapd_runs[nid];
		u64 t0 = READ_ONCE(r->t0);

		if (t0) {
			a.present |= MW_EVF_ORDER | MW_EVF_DURATION;
			a.order = READ_ONCE(r->order);
			a.duration_ns = ktime_get_mono_fast_ns() - t0;
			WRITE_ONCE(r->t0, 0);
		}
	}
	memwalk_event_record(MEMWALK_EV_KSWAPD_RUN_END, MEMWALK_LEG_TRACEPOINT,
			     &a);
}

NOKPROBE_SYMBOL(tp_balance_pgdat_end);
#endif

/* Right before balance_pgdat(), one per pageoutrun. */
static void tp_kswapd_wake(void *data, int nid, int zid, int order)
{
	hit(H_TP_KSWAPD_WAKE);
	run_begin(MEMWALK_LEG_TRACEPOINT, nid, order, zid);
}

NOKPROBE_SYMBOL(tp_kswapd_wake);

/* balance_pgdat(pgdat, order, highest_zoneidx) */
static int kp_balance_pgdat(struct kprobe *p, struct pt_regs *regs)
{
	struct pglist_data *pgdat = arg_ptr(regs, 0);

	hit(H_KP_BALANCE_PGDAT);
	run_begin(MEMWALK_LEG_KPROBE, pgdat->node_id, arg_int(regs, 1),
		  arg_int(regs, 2));
	return 0;
}

NOKPROBE_SYMBOL(kp_balance_pgdat);

struct balance_data {
	u64 t0;
	unsigned long steal0;
	int nid;
	int order;
	int zid;
};

static int krp_balance_pgdat_entry(struct kretprobe_instance *ri,
				   struct pt_regs *regs)
{
	struct balance_data *d = (struct balance_data *)ri->data;
	struct pglist_data *pgdat = arg_ptr(regs, 0);

	d->nid = pgdat->node_id;
	d->order = arg_int(regs, 1);
	d->zid = arg_int(regs, 2);
	d->steal0 = mw_pgsteal_kswapd(pgdat);
	d->t0 = ktime_get_mono_fast_ns();
	return 0;
}

NOKPROBE_SYMBOL(krp_balance_pgdat_entry);

static int krp_balance_pgdat_ret(struct kretprobe_instance *ri,
				 struct pt_regs *regs)
{
	struct balance_data *d = (struct balance_data *)ri->data;
	unsigned long steal = mw_pgsteal_kswapd(NODE_DATA(d->nid)) - d->steal0;
	struct memwalk_event_args a = {
		.present = MW_EVF_NID | MW_EVF_ZID | MW_EVF_ORDER |
			   MW_EVF_RECLAIM_ORDER | MW_EVF_NR_RECLAIMED |
			   MW_EVF_DURATION,
		.nid = d->nid,
		.zid = d->zid,
		.order = d->order,
		.reclaim_order = (int)regs_return_value(regs),
		/* Per-CPU sums may run a little behind: never "negative". */
		.nr_reclaimed = (long)steal < 0 ? 0 : steal,
		.duration_ns = ktime_get_mono_fast_ns() - d->t0,
	};

	hit(H_KRP_BALANCE_PGDAT);
	memwalk_event_record(MEMWALK_EV_KSWAPD_RUN_END, MEMWALK_LEG_KRETPROBE,
			     &a);
	return 0;
}

NOKPROBE_SYMBOL(krp_balance_pgdat_ret);

/* ---- direct and memcg reclaim ------------------------------------------- */

static void reclaim_begin(u32 type, u32 leg, bool has_order, int order,
			  gfp_t gfp)
{
	struct memwalk_event_args a = {
		.present = MW_EVF_TASK | MW_EVF_GFP |
			   (has_order ? MW_EVF_ORDER : 0),
		.task = current,
		.order = order,
		.gfp = (__force u32)gfp,
	};

	memwalk_event_record(type, leg, &a);
}

NOKPROBE_SYMBOL(reclaim_begin);

static void reclaim_end_tp(u32 type, unsigned long nr_reclaimed)
{
	struct memwalk_event_args a = {
		.present = MW_EVF_TASK | MW_EVF_NR_RECLAIMED,
		.task = current,
		.nr_reclaimed = nr_reclaimed,
	};

	memwalk_event_record(type, MEMWALK_LEG_TRACEPOINT, &a);
}

NOKPROBE_SYMBOL(reclaim_end_tp);

#ifdef MEMWALK_TP_RECLAIM_MEMCG
static void tp_direct_begin(void *data, gfp_t gfp, int order,
			    struct mem_cgroup *memcg)
#else
static void tp_direct_begin(void *data, int order, gfp_t gfp)
#endif
{
	hit(H_TP_DIRECT_BEGIN);
	reclaim_begin(MEMWALK_EV_DIRECT_RECLAIM_BEGIN, MEMWALK_LEG_TRACEPOINT,
		      true, order, gfp);
}

NOKPROBE_SYMBOL(tp_direct_begin);

#ifdef MEMWALK_TP_RECLAIM_MEMCG
static void tp_direct_end(void *data, unsigned long nr_reclaimed,
			  struct mem_cgroup *memcg)
#else
static void tp_direct_end(void *data, unsigned long nr_reclaimed)
#endif
{
	hit(H_TP_DIRECT_END);
	reclaim_end_tp(MEMWALK_EV_DIRECT_RECLAIM_END, nr_reclaimed);
}

NOKPROBE_SYMBOL(tp_direct_end);

/* The memcg tracepoints pass order 0 whatever the charge: not reported. */
#ifdef MEMWALK_TP_RECLAIM_MEMCG
static void tp_memcg_begin(void *data, gfp_t gfp, int order,
			   struct mem_cgroup *memcg)
#else
static void tp_memcg_begin(void *data, int order, gfp_t gfp)
#endif
{
	hit(H_TP_MEMCG_BEGIN);
	reclaim_begin(MEMWALK_EV_MEMCG_RECLAIM_BEGIN, MEMWALK_LEG_TRACEPOINT,
		      false, 0, gfp);
}

NOKPROBE_SYMBOL(tp_memcg_begin);

#ifdef MEMWALK_TP_RECLAIM_MEMCG
static void tp_memcg_end(void *data, unsigned long nr_reclaimed,
			 struct mem_cgroup *memcg)
#else
static void tp_memcg_end(void *data, unsigned long nr_reclaimed)
#endif
{
	hit(H_TP_MEMCG_END);
	reclaim_end_tp(MEMWALK_EV_MEMCG_RECLAIM_END, nr_reclaimed);
}

NOKPROBE_SYMBOL(tp_memcg_end);

/* try_to_free_pages(zonelist, order, gfp_mask, nodemask) */
static int kp_try_to_free_pages(struct kprobe *p, struct pt_regs *regs)
{
	hit(H_KP_TRY_TO_FREE_PAGES);
	reclaim_begin(MEMWALK_EV_DIRECT_RECLAIM_BEGIN, MEMWALK_LEG_KPROBE,
		      true, arg_int(regs, 1), (__force gfp_t)arg_int(regs, 2));
	return 0;
}

NOKPROBE_SYMBOL(kp_try_to_free_pages);

/* try_to_free_mem_cgroup_pages(memcg, nr_pages, gfp_mask, ...) */
static int kp_try_to_free_memcg(struct kprobe *p, struct pt_regs *regs)
{
	hit(H_KP_TRY_TO_FREE_MEMCG);
	reclaim_begin(MEMWALK_EV_MEMCG_RECLAIM_BEGIN, MEMWALK_LEG_KPROBE,
		      false, 0, (__force gfp_t)arg_int(regs, 2));
	return 0;
}

NOKPROBE_SYMBOL(kp_try_to_free_memcg);

struct reclaim_data {
	u64 t0;
	u32 gfp;
	int order;
};

static int krp_reclaim_entry(struct kretprobe_instance *ri,
			     struct pt_regs *regs)
{
	struct reclaim_data *d = (struct reclaim_data *)ri->data;

	/* Both functions take gfp_mask third; order is second of one. */
	d->order = arg_int(regs, 1);
	d->gfp = (u32)arg_int(regs, 2);
	d->t0 = ktime_get_mono_fast_ns();
	return 0;
}

NOKPROBE_SYMBOL(krp_reclaim_entry);

static void reclaim_end_krp(u32 type, struct kretprobe_instance *ri,
			    struct pt_regs *regs, bool has_order)
{
	struct reclaim_data *d = (struct reclaim_data *)ri->data;
	struct memwalk_event_args a = {
		.present = MW_EVF_TASK | MW_EVF_GFP | MW_EVF_NR_RECLAIMED |
			   MW_EVF_DURATION | (has_order ? MW_EVF_ORDER : 0),
		.task = current,
		.order = d->order,
		.gfp = d->gfp,
		.nr_reclaimed = regs_return_value(regs),
		.duration_ns = ktime_get_mono_fast_ns() - d->t0,
	};

	memwalk_event_record(type, MEMWALK_LEG_KRETPROBE, &a);
}

NOKPROBE_SYMBOL(reclaim_end_krp);

static int krp_try_to_free_pages_ret(struct kretprobe_instance *ri,
				     struct pt_regs *regs)
{
	hit(H_KRP_TRY_TO_FREE_PAGES);
	reclaim_end_krp(MEMWALK_EV_DIRECT_RECLAIM_END, ri, regs, true);
	return 0;
}

NOKPROBE_SYMBOL(krp_try_to_free_pages_ret);

static int krp_try_to_free_memcg_ret(struct kretprobe_instance *ri,
				     struct pt_regs *regs)
{
	hit(H_KRP_TRY_TO_FREE_MEMCG);
	reclaim_end_krp(MEMWALK_EV_MEMCG_RECLAIM_END, ri, regs, false);
	return 0;
}

NOKPROBE_SYMBOL(krp_try_to_free_memcg_ret);

/* ---- OOM ------------------------------------------------------------------ */

/*
 * The OOM kill in progress: the decision oom_kill_process() got, and the
 * oom_kill vm event count at the last mark_oom_victim().  Both hooks run
 * under the kernel's oom_lock, which every OOM kill and every
 * mark_oom_victim() holds, so no lock of ours is needed.
 */
static struct memwalk_oom_decision oom_decision;
static unsigned long oom_kills_seen;

static unsigned long oom_kill_count(void)
{
	unsigned long sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += per_cpu(vm_event_states, cpu).event[OOM_KILL];
	return sum;
}

NOKPROBE_SYMBOL(oom_kill_count);

static u32 oom_constraint(enum oom_constraint c)
{
	switch (c) {
	case CONSTRAINT_CPUSET:
		return MEMWALK_OOM_CONSTRAINT_CPUSET;
	case CONSTRAINT_MEMORY_POLICY:
		return MEMWALK_OOM_CONSTRAINT_MEMORY_POLICY;
	case CONSTRAINT_MEMCG:
		return MEMWALK_OOM_CONSTRAINT_MEMCG;
	default:
		return MEMWALK_OOM_CONSTRAINT_NONE;
	}
}

NOKPROBE_SYMBOL(oom_constraint);

/* oom_kill_process(oc, message): the victim is chosen, not yet killed. */
static int kp_oom_kill_process(struct kprobe *p, struct pt_regs *regs)
{
	struct oom_control *oc = arg_ptr(regs, 0);

	hit(H_KP_OOM_KILL_PROCESS);
	oom_decision.memcg = oc->memcg;
	oom_decision.constraint = oom_constraint(oc->constraint);
	oom_decision.order = oc->order;
	oom_decision.points = oc->chosen_points;
	oom_decision.totalpages = oc->totalpages;
	WRITE_ONCE(oom_decision.trigger, current);
	return 0;
}

NOKPROBE_SYMBOL(kp_oom_kill_process);

/*
 * Every kill counts oom_kill and then marks its victim; a victim that is
 * merely exiting is marked without a kill.  Report only the former.
 */
static void oom_victim(u32 leg, struct task_struct *victim, u32 uid)
{
	unsigned long kills = oom_kill_count();
	struct memwalk_event_args a = {
		.present = MW_EVF_TASK,
		.task = current,
		.victim = victim,
		.victim_uid = uid,
	};

	if (kills == oom_kills_seen)
		return;
	oom_kills_seen = kills;
	if (READ_ONCE(oom_decision.trigger) == current) {
		a.present |= MW_EVF_OOM_DECISION | MW_EVF_ORDER;
		a.decision = &oom_decision;
		a.order = oom_decision.order;
	}
	memwalk_event_record(MEMWALK_EV_OOM_KILL, leg, &a);
}

NOKPROBE_SYMBOL(oom_victim);

static void tp_mark_victim(void *data, struct task_struct *task, uid_t uid)
{
	hit(H_TP_MARK_VICTIM);
	oom_victim(MEMWALK_LEG_TRACEPOINT, task, uid);
}

NOKPROBE_SYMBOL(tp_mark_victim);

/* mark_oom_victim(tsk) */
static int kp_mark_oom_victim(struct kprobe *p, struct pt_regs *regs)
{
	struct task_struct *task = arg_ptr(regs, 0);

	hit(H_KP_MARK_OOM_VICTIM);
	oom_victim(MEMWALK_LEG_KPROBE, task, __kuid_val(task_uid(task)));
	return 0;
}

NOKPROBE_SYMBOL(kp_mark_oom_victim);

/* ---- the table ------------------------------------------------------------- */

#define TP_HOOK(_id, _name, _slot, _ev, _fn)				\
	[_id] = { .name = _name, .leg = MEMWALK_LEG_TRACEPOINT,		\
		  .slot = _slot, .event = _ev, .state = HOOK_UNTRIED,	\
		  .tp_probe = _fn }
#define KP_HOOK(_id, _sym, _slot, _ev, _pre)				\
	[_id] = { .leg = MEMWALK_LEG_KPROBE,				\
		  .slot = _slot, .event = _ev, .state = HOOK_UNTRIED,	\
		  .kp = { .symbol_name = _sym, .pre_handler = _pre } }
#define KRP_HOOK(_id, _sym, _slot, _ev, _entry, _ret, _data)		\
	[_id] = { .leg = MEMWALK_LEG_KRETPROBE,				\
		  .slot = _slot, .event = _ev, .state = HOOK_UNTRIED,	\
		  .krp = { .kp.symbol_name = _sym,			\
			   .entry_handler = _entry, .handler = _ret,	\
			   .data_size = sizeof(_data) } }

static struct hook hooks[NR_HOOKS] = {
	TP_HOOK(H_TP_WAKEUP_KSWAPD, "mm_vmscan_wakeup_kswapd",
		SLOT_KSWAPD_WAKE, MEMWALK_EV_KSWAPD_WAKE, tp_wakeup_kswapd),
	KP_HOOK(H_KP_WAKEUP_KSWAPD, "wakeup_kswapd",
		SLOT_KSWAPD_WAKE, MEMWALK_EV_KSWAPD_WAKE, kp_wakeup_kswapd),
#ifdef MEMWALK_TP_BALANCE_PGDAT
	TP_HOOK(H_TP_BALANCE_PGDAT_BEGIN, "mm_vmscan_balance_pgdat_begin",
		SLOT_KSWAPD_RUN_BEGIN, MEMWALK_EV_KSWAPD_RUN_BEGIN,
		tp_balance_pgdat_begin),
#endif
	TP_HOOK(H_TP_KSWAPD_WAKE, "mm_vmscan_kswapd_wake",
		SLOT_KSWAPD_RUN_BEGIN, MEMWALK_EV_KSWAPD_RUN_BEGIN,
		tp_kswapd_wake),
	KP_HOOK(H_KP_BALANCE_PGDAT, "balance_pgdat",
		SLOT_KSWAPD_RUN_BEGIN, MEMWALK_EV_KSWAPD_RUN_BEGIN,
		kp_balance_pgdat),
#ifdef MEMWALK_TP_BALANCE_PGDAT
	TP_HOOK(H_TP_BALANCE_PGDAT_END, "mm_vmscan_balance_pgdat_end",
		SLOT_KSWAPD_RUN_END, MEMWALK_EV_KSWAPD_RUN_END,
		tp_balance_pgdat_end),
#endif
	KRP_HOOK(H_KRP_BALANCE_PGDAT, "balance_pgdat",
		 SLOT_KSWAPD_RUN_END, MEMWALK_EV_KSWAPD_RUN_END,
		 krp_balance_pgdat_entry, krp_balance_pgdat_ret,
		 struct balance_data),
	TP_HOOK(H_TP_DIRECT_BEGIN, "mm_vmscan_direct_reclaim_begin",
		SLOT_DIRECT_BEGIN, MEMWALK_EV_DIRECT_RECLAIM_BEGIN,
		tp_direct_begin),
	KP_HOOK(H_KP_TRY_TO_FREE_PAGES, "try_to_free_pages",
		SLOT_DIRECT_BEGIN, MEMWALK_EV_DIRECT_RECLAIM_BEGIN,
		kp_try_to_free_pages),
	KRP_HOOK(H_KRP_TRY_TO_FREE_PAGES, "try_to_free_pages",
		 SLOT_DIRECT_END, MEMWALK_EV_DIRECT_RECLAIM_END,
		 krp_reclaim_entry, krp_try_to_free_pages_ret,
		 struct reclaim_data),
	TP_HOOK(H_TP_DIRECT_END, "mm_vmscan_direct_reclaim_end",
		SLOT_DIRECT_END, MEMWALK_EV_DIRECT_RECLAIM_END, tp_direct_end),
	TP_HOOK(H_TP_MEMCG_BEGIN, "mm_vmscan_memcg_reclaim_begin",
		SLOT_MEMCG_BEGIN, MEMWALK_EV_MEMCG_RECLAIM_BEGIN,
		tp_memcg_begin),
	KP_HOOK(H_KP_TRY_TO_FREE_MEMCG, "try_to_free_mem_cgroup_pages",
		SLOT_MEMCG_BEGIN, MEMWALK_EV_MEMCG_RECLAIM_BEGIN,
		kp_try_to_free_memcg),
	KRP_HOOK(H_KRP_TRY_TO_FREE_MEMCG, "try_to_free_mem_cgroup_pages",
		 SLOT_MEMCG_END, MEMWALK_EV_MEMCG_RECLAIM_END,
		 krp_reclaim_entry, krp_try_to_free_memcg_ret,
		 struct reclaim_data),
	TP_HOOK(H_TP_MEMCG_END, "mm_vmscan_memcg_reclaim_end",
		SLOT_MEMCG_END, MEMWALK_EV_MEMCG_RECLAIM_END, tp_memcg_end),
	KP_HOOK(H_KP_OOM_KILL_PROCESS, "oom_kill_process",
		SLOT_OOM_DECISION, 0, kp_oom_kill_process),
	TP_HOOK(H_TP_MARK_VICTIM, "mark_victim",
		SLOT_OOM_KILL, MEMWALK_EV_OOM_KILL, tp_mark_victim),
	KP_HOOK(H_KP_MARK_OOM_VICTIM, "mark_oom_victim",
		SLOT_OOM_KILL, MEMWALK_EV_OOM_KILL, kp_mark_oom_victim),
};

/* The tracepoint's name, or the probed function's: set in the table. */
static const char *hook_name(const struct hook *h)
{
	switch (h->leg) {
	case MEMWALK_LEG_KPROBE:
		return h->kp.symbol_name;
	case MEMWALK_LEG_KRETPROBE:
		return h->krp.kp.symbol_name;
	default:
		return h->name;
	}
}

/*
 * Build-time check of every tracepoint probe against its TP_PROTO: the
 * register_trace_*() inlines are only looked at by sizeof, never called.
 */
#define TP_CHECK(tp, fn) \
	BUILD_BUG_ON(sizeof(register_trace_##tp(fn, NULL)) != sizeof(int))

static void __maybe_unused tp_check_protos(void)
{
	TP_CHECK(mm_vmscan_wakeup_kswapd, tp_wakeup_kswapd);
	TP_CHECK(mm_vmscan_kswapd_wake, tp_kswapd_wake);
#ifdef MEMWALK_TP_BALANCE_PGDAT
	TP_CHECK(mm_vmscan_balance_pgdat_begin, tp_balance_pgdat_begin);
	TP_CHECK(mm_vmscan_balance_pgdat_end, tp_balance_pgdat_end);
#endif
	TP_CHECK(mm_vmscan_direct_reclaim_begin, tp_direct_begin);
	TP_CHECK(mm_vmscan_direct_reclaim_end, tp_direct_end);
	TP_CHECK(mm_vmscan_memcg_reclaim_begin, tp_memcg_begin);
	TP_CHECK(mm_vmscan_memcg_reclaim_end, tp_memcg_end);
	TP_CHECK(mark_victim, tp_mark_victim);
}

static const char *const leg_names[] = {
	[MEMWALK_LEG_NONE]		= "none",
	[MEMWALK_LEG_TRACEPOINT]	= "tracepoint",
	[MEMWALK_LEG_KPROBE]		= "kprobe",
	[MEMWALK_LEG_KRETPROBE]		= "kretprobe",
	[MEMWALK_LEG_SAMPLER]		= "sampler",
};

static const char *const state_names[] = {
	[MEMWALK_PROBE_ATTACHED]	= "attached",
	[MEMWALK_PROBE_STANDBY]		= "standby",
	[MEMWALK_PROBE_FAILED]		= "failed",
	[MEMWALK_PROBE_ABSENT]		= "absent",
	[MEMWALK_PROBE_DISABLED]	= "disabled",
};

static const char *hook_state_name(const struct hook *h)
{
	return h->state < ARRAY_SIZE(state_names) ? state_names[h->state] :
						    "untried";
}

static u64 hook_hits_sum(enum hook_id id)
{
	u64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += per_cpu(hook_hits, cpu)[id];
	return sum;
}

static u64 hook_nmissed(const struct hook *h)
{
	switch (h->leg) {
	case MEMWALK_LEG_KPROBE:
		return h->kp.nmissed;
	case MEMWALK_LEG_KRETPROBE:
		return h->krp.kp.nmissed + h->krp.nmissed;
	default:
		return 0;
	}
}

/* ---- attach / detach ---------------------------------------------------- */

static void tp_lookup(struct tracepoint *tp, void *priv)
{
	int i;

	for (i = 0; i < NR_HOOKS; i++)
		if (hooks[i].leg == MEMWALK_LEG_TRACEPOINT &&
		    !strcmp(tp->name, hooks[i].name))
			hooks[i].tp = tp;
}

/* Is @h named in the "disable" parameter (NAME or LEG:NAME)? */
static bool hook_disabled(const struct hook *h)
{
	const char *p = disable;

	while (p && *p) {
		size_t len = strcspn(p, ",");
		const char *colon = memchr(p, ':', len);
		const char *name = p;
		size_t name_len = len;

		if (colon) {
			const char *leg = leg_names[h->leg];

			name = colon + 1;
			name_len = len - (name - p);
			if (colon - p != strlen(leg) ||
			    strncmp(p, leg, colon - p))
				goto next;
		}
		if (name_len == strlen(hook_name(h)) &&
		    !strncmp(name, hook_name(h), name_len))
			return true;
next:
		p += len;
		if (*p == ',')
			p++;
	}
	return false;
}

static int hook_attach(struct hook *h)
{
	switch (h->leg) {
	case MEMWALK_LEG_TRACEPOINT:
		if (!h->tp)
			return -ENOENT;
		return tracepoint_probe_register(h->tp, h->tp_probe, NULL);
	case MEMWALK_LEG_KPROBE:
		return register_kprobe(&h->kp);
	case MEMWALK_LEG_KRETPROBE:
		h->krp.maxactive = kretprobe_maxactive;
		return register_kretprobe(&h->krp);
	default:
		return -EINVAL;
	}
}

static void attach_all(void)
{
	bool live[NR_SLOTS] = { false };
	int i;

	for (i = 0; i < NR_HOOKS; i++) {
		struct hook *h = &hooks[i];

		if (hook_disabled(h)) {
			h->state = MEMWALK_PROBE_DISABLED;
			continue;
		}
		if (live[h->slot]) {
			h->state = MEMWALK_PROBE_STANDBY;
			continue;
		}
		h->err = hook_attach(h);
		if (!h->err) {
			h->state = MEMWALK_PROBE_ATTACHED;
			live[h->slot] = true;
			continue;
		}
		/* kprobes say ENOENT for unknown and EINVAL for inlined. */
		h->state = h->err == -ENOENT ? MEMWALK_PROBE_ABSENT :
					       MEMWALK_PROBE_FAILED;
		pr_warn("cannot attach %s %s: %d%s\n", leg_names[h->leg],
			hook_name(h), h->err,
			h->event ? ", trying the next hook for its event" : "");
	}

	/* Say once per event (or the OOM decision) if nothing reports it. */
	for (i = 0; i < NR_HOOKS; i++) {
		if (live[hooks[i].slot])
			continue;
		pr_warn("no hook for %s: not reported\n",
			hooks[i].event ? memwalk_event_name(hooks[i].event) :
					 "the OOM decision");
		live[hooks[i].slot] = true;
	}
}

/* Kprobes first, in two batches: one RCU grace period each. */
static void detach_all(void)
{
	struct kretprobe *krps[NR_HOOKS];
	struct kprobe *kps[NR_HOOKS];
	int nkp = 0, nkrp = 0, ntp = 0, i;

	for (i = 0; i < NR_HOOKS; i++) {
		struct hook *h = &hooks[i];

		if (h->state != MEMWALK_PROBE_ATTACHED)
			continue;
		if (h->leg == MEMWALK_LEG_KPROBE)
			kps[nkp++] = &h->kp;
		else if (h->leg == MEMWALK_LEG_KRETPROBE)
			krps[nkrp++] = &h->krp;
	}
	if (nkp)
		unregister_kprobes(kps, nkp);
	if (nkrp)
		unregister_kretprobes(krps, nkrp);

	for (i = 0; i < NR_HOOKS; i++) {
		struct hook *h = &hooks[i];

		if (h->state != MEMWALK_PROBE_ATTACHED ||
		    h->leg != MEMWALK_LEG_TRACEPOINT)
			continue;
		/* Cannot fail for lack of memory: it then stubs the probe. */
		WARN_ON_ONCE(tracepoint_probe_unregister(h->tp, h->tp_probe,
							 NULL));
		ntp++;
	}
	/* No probe runs, nor will, once this returns. */
	if (ntp)
		tracepoint_synchronize_unregister();

	for (i = 0; i < NR_HOOKS; i++) {
		struct hook *h = &hooks[i];
		u64 missed = hook_nmissed(h);

		if (h->state == MEMWALK_PROBE_ATTACHED && missed)
			pr_info("%s %s missed %llu hits\n", leg_names[h->leg],
				hook_name(h), missed);
	}
}

/* ---- reporting ------------------------------------------------------------ */

static int probes_show(struct seq_file *m, void *unused)
{
	int i;

	seq_printf(m, "%-10s %-30s %-20s %-8s %5s %12s %8s\n", "leg", "name",
		   "event", "state", "error", "hits", "nmissed");
	for (i = 0; i < NR_HOOKS; i++) {
		const struct hook *h = &hooks[i];

		seq_printf(m, "%-10s %-30s %-20s %-8s %5d %12llu %8llu\n",
			   leg_names[h->leg], hook_name(h),
			   h->event ? memwalk_event_name(h->event) :
				      "(oom decision)",
			   hook_state_name(h), h->err, hook_hits_sum(i),
			   hook_nmissed(h));
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(probes);

static size_t probe_nest_size(void)
{
	return nla_total_size(0) + nla_total_size(KSYM_NAME_LEN) +
	       4 * nla_total_size(sizeof(u32)) +
	       2 * nla_total_size_64bit(sizeof(u64));
}

size_t memwalk_probes_status_size(void)
{
	return nla_total_size(sizeof(u32)) + NR_HOOKS * probe_nest_size();
}

static int put_probe(struct sk_buff *skb, int i)
{
	const struct hook *h = &hooks[i];
	struct nlattr *nest;

	/* No uapi state says "not tried yet"; not reachable (see main.c). */
	if (h->state == HOOK_UNTRIED)
		return -EAGAIN;
	nest = nla_nest_start(skb, MEMWALK_A_STATUS_PROBE);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put_string(skb, MEMWALK_A_PROBE_NAME, hook_name(h)) ||
	    nla_put_u32(skb, MEMWALK_A_PROBE_LEG, h->leg) ||
	    nla_put_u32(skb, MEMWALK_A_PROBE_EVENT, h->event) ||
	    nla_put_u32(skb, MEMWALK_A_PROBE_ATTACHED,
			h->state == MEMWALK_PROBE_ATTACHED) ||
	    nla_put_u32(skb, MEMWALK_A_PROBE_STATE, h->state) ||
	    nla_put_s32(skb, MEMWALK_A_PROBE_ERROR, h->err) ||
	    nla_put_u64_64bit(skb, MEMWALK_A_PROBE_HITS, hook_hits_sum(i),
			      MEMWALK_A_PROBE_PAD) ||
	    nla_put_u64_64bit(skb, MEMWALK_A_PROBE_NMISSED, hook_nmissed(h),
			      MEMWALK_A_PROBE_PAD)) {
		nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	return 0;
}

/* GET_STATUS: the hooks; -EMSGSIZE, or -EAGAIN before they were tried. */
int memwalk_probes_put_status(struct sk_buff *skb)
{
	int i, ret;

	if (nla_put_u32(skb, MEMWALK_A_STATUS_KRETPROBE_MAXACTIVE,
			kretprobe_maxactive))
		return -EMSGSIZE;
	for (i = 0; i < NR_HOOKS; i++) {
		ret = put_probe(skb, i);
		if (ret)
			return ret;
	}
	return 0;
}

/* From memwalk_debugfs_init(), after memwalk_probes_init(). */
void memwalk_probes_debugfs_init(struct dentry *dir)
{
	debugfs_create_file("probes", 0400, dir, NULL, &probes_fops);
}

/* ---- init / exit ---------------------------------------------------------- */

/*
 * After memwalk_events_init(), before the debugfs file and the family that
 * report the hooks: hooks record events once the family is registered
 * (memwalk_events_listening()).  Only fails for want of memory; hooks that
 * do not attach are reported instead.
 */
int memwalk_probes_init(void)
{
	if (!kretprobe_maxactive || kretprobe_maxactive > 4096) {
		pr_warn("kretprobe_maxactive=%u out of range, using 1024\n",
			kretprobe_maxactive);
		kretprobe_maxactive = 1024;
	}
	kswapd_runs = kcalloc(nr_node_ids, sizeof(*kswapd_runs), GFP_KERNEL);
	if (!kswapd_runs)
		return -ENOMEM;
	oom_kills_seen = oom_kill_count();

	for_each_kernel_tracepoint(tp_lookup, NULL);
	attach_all();
	return 0;
}

/* Afterwards no handler runs or will run; memwalk_events_stop() may go. */
void memwalk_probes_exit(void)
{
	detach_all();
	kfree(kswapd_runs);
	kswapd_runs = NULL;
}

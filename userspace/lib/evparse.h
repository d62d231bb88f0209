/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libmemwalk: the reclaim/OOM event stream, split so each part can be
 * tested on its own without the module (tests/events-test.c):
 *
 *   lib/evparse.c  MEMWALK_CMD_EVENT and GET_STATUS messages into structs
 *                  (libnl attribute policies), names of event types, legs,
 *                  constraints, gfp flags
 *   lib/evstate.c  what the stream needs remembered: sequence numbers and
 *                  losses per group, begin/end pairing, filters, and the ring
 *                  of recent reclaim events an OOM kill's story is told from
 *   lib/genl.c     the family, requests, multicast subscriptions
 *   evprint.c      one event as a text line or a JSON object (the command's)
 *   events.c       the command: options, signals, the loop
 */
#ifndef MEMWALK_EVPARSE_H
#define MEMWALK_EVPARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/memwalk.h>

struct nlmsghdr;

/* Multicast groups, in the module's order (the order they are read in). */
enum mw_group {
	MW_GRP_RECLAIM,
	MW_GRP_OOM,
	MW_GRP_LRU,

	MW_NR_GROUPS,
};

const char *mw_group_name(enum mw_group grp);	/* MEMWALK_MCGRP_* */
enum mw_group mw_event_group(uint32_t type);	/* the group of an event type */

const char *mw_event_name(uint32_t type);	/* "direct_reclaim_begin", NULL if unknown */
const char *mw_leg_name(uint32_t leg);		/* "tracepoint", NULL if unknown */
const char *mw_constraint_name(uint32_t c);	/* "memcg", NULL if unknown */
const char *mw_probe_state_name(uint32_t s);	/* "attached", NULL if unknown */

/*
 * gfp flags as the kernel's show_gfp_flags() spells them: composite names
 * first, then single flags, then what is left in hex; "0x140cca" style hex
 * in front is up to the caller.  Bits 0-23 have had the same meaning from
 * 6.1 on, except bit 9 (__GFP_ATOMIC, removed in 6.3): @atomic_bit says
 * whether the running kernel still has it.  Returns @buf.
 */
const char *mw_gfp_names(uint32_t gfp, bool atomic_bit, char *buf, size_t len);

/* Whether kernel release @release ("6.1.0-56-amd64") is older than @major.@minor. */
bool mw_release_before(const char *release, unsigned int major,
		       unsigned int minor);

/* ---- events ---------------------------------------------------------- */

#define MW_HAS(attr)	(UINT64_C(1) << (attr))

_Static_assert(MEMWALK_A_MAX < 64, "event attributes must fit a u64 mask");

/* Node counters in MEMWALK_A_NODE_ACTIVE_ANON.. order. */
enum mw_node_item {
	MW_N_ACTIVE_ANON,
	MW_N_INACTIVE_ANON,
	MW_N_ACTIVE_FILE,
	MW_N_INACTIVE_FILE,
	MW_N_UNEVICTABLE,
	MW_N_FREE,
	MW_N_WMARK_MIN,
	MW_N_WMARK_LOW,
	MW_N_WMARK_HIGH,

	MW_N_ITEMS,
};

extern const char *const mw_node_item_names[MW_N_ITEMS];	/* JSON keys */

struct mw_ev_node {
	uint32_t id;
	bool has_id;
	uint32_t has;			/* 1 << enum mw_node_item */
	uint64_t v[MW_N_ITEMS];		/* pages */
};

#define MW_EV_MAX_NODES	64		/* more are counted, not kept */
#define MW_EV_COMM_LEN	64

/*
 * One MEMWALK_CMD_EVENT message.  Strings point into the message: the
 * struct is only valid while the message is.  @has says which attributes
 * were present (MW_HAS(MEMWALK_A_*)); absent ones are zero.
 */
struct mw_event {
	uint64_t has;
	uint32_t type;
	uint64_t seq;
	uint32_t cpu;
	uint64_t time_ns;
	uint32_t leg;
	uint64_t lost;
	uint32_t pid, tgid;
	const char *comm;
	const char *memcg_path;
	uint64_t memcg_id;
	uint32_t nid, zid;
	int32_t order;
	uint32_t gfp;
	uint64_t nr_reclaimed;
	uint64_t duration_ns;
	int32_t reclaim_order;
	/* MEMWALK_EV_OOM_KILL */
	uint32_t victim_pid, victim_tgid;
	const char *victim_comm;
	uint32_t victim_uid;
	const char *victim_memcg_path;
	uint64_t victim_memcg_id;
	uint64_t total_vm, rss_anon, rss_file, rss_shmem;
	int32_t score_adj;
	uint32_t constraint;
	const char *oom_memcg_path;
	uint64_t oom_memcg_id;
	int64_t points;
	uint64_t totalpages;
	unsigned int unknown_attrs;	/* newer than this client: ignored */
	/* MEMWALK_A_EVENT_NODE, in message order (nodes[] is last) */
	unsigned int nr_nodes;
	unsigned int nodes_dropped;	/* beyond MW_EV_MAX_NODES */
	struct mw_ev_node nodes[MW_EV_MAX_NODES];
};

/*
 * Parse one generic netlink message of the family.  Returns 0, or -EBADMSG
 * with a reason in @why (static text) for a message that is not a well-formed
 * event: not MEMWALK_CMD_EVENT, an attribute of the wrong size, a string
 * without its NUL, no MEMWALK_A_EVENT_TYPE.  Unknown attributes are
 * counted and skipped.
 */
int mw_event_parse(const struct nlmsghdr *nlh, struct mw_event *ev,
		   const char **why);

/* ---- GET_STATUS ---------------------------------------------------------- */

#define MW_STATUS_MAX_PROBES	64
#define MW_STATUS_MAX_CPUS	1024

struct mw_status_probe {
	const char *name;
	uint32_t leg, event, attached, state;
	int32_t error;
	uint64_t hits, nmissed;
	uint32_t has;			/* 1 << MEMWALK_A_PROBE_* */
};

struct mw_status_group {
	const char *name;
	uint64_t seq, sent, drops_overflow, drops_delivery;
	uint32_t has;			/* 1 << MEMWALK_A_GROUP_* */
};

struct mw_status_cpu {
	uint32_t id;
	uint64_t recorded, drops_overflow;
	uint32_t has;			/* 1 << MEMWALK_A_CPU_* */
};

/*
 * A GET_STATUS reply; strings point into the message, like mw_event.
 * mw_genl_get_status() keeps its own copy of the message in @reply (free
 * it with mw_status_release()), since libnl frees the one it received.
 */
struct mw_status {
	uint64_t has;			/* MW_HAS(MEMWALK_A_*) */
	const char *module_version;
	uint32_t uapi_version;
	const char *release;
	uint32_t page_size;
	uint32_t buffer_events;
	uint32_t sample_interval_ms;
	uint32_t kretprobe_maxactive;
	uint64_t drops_overflow, drops_delivery;
	unsigned int nr_probes, nr_groups, nr_cpus;
	unsigned int dropped;		/* nests beyond the arrays */
	struct mw_status_probe probes[MW_STATUS_MAX_PROBES];
	struct mw_status_group groups[MW_NR_GROUPS + 8];
	struct mw_status_cpu cpus[MW_STATUS_MAX_CPUS];
	void *reply;			/* mw_genl_get_status()'s copy */
};

/* Like mw_event_parse(), for a GET_STATUS reply. */
int mw_status_parse(const struct nlmsghdr *nlh, struct mw_status *st,
		    const char **why);

/* The group named @name in @st, or NULL. */
const struct mw_status_group *mw_status_group(const struct mw_status *st,
					      const char *name);

/* CLOCK_MONOTONIC now, in ns: the clock of the events' time_ns. */
uint64_t mw_now_ns(void);

#endif /* MEMWALK_EVPARSE_H */

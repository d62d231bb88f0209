/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What memwalk_events (the suite) and memwalk_evbench (the benchmark)
 * share: generic netlink spoken raw (requests with their extack, GET_STATUS,
 * a subscriber that collects events in a thread), /proc/vmstat, memory
 * cgroups, swap on zram, reloading the module, workloads, and the client in
 * the background.  Independent of kselftest_harness.h, like memwalk_util.
 */
#ifndef MEMWALK_EVLIB_H
#define MEMWALK_EVLIB_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <linux/memwalk.h>

#include "memwalk_util.h"

#define CG		"/sys/fs/cgroup"
#define MOD_PARAMS	"/sys/module/memwalk/parameters"
#define KO_DEFAULT	"/lib/memwalk/memwalk.ko"
#define ZRAM		"/sys/block/zram0"
#define MiB		(1024UL * 1024)
#define NSEC		1000000000ULL

enum { GRP_RECLAIM, GRP_OOM, GRP_LRU, NR_GRPS };

extern const char *const grp_names[NR_GRPS];

uint64_t now_ns(void);			/* CLOCK_MONOTONIC, as the events' TIME_NS */
void msleep(unsigned int ms);

/* ---- the family ---- */

struct family {
	int id;
	int grp[NR_GRPS];
	int ctrl_notify;
};

/* Resolve the family, its groups and nlctrl's "notify"; 0, or -1 if the module is not there. */
int family_resolve(struct family *f);

/* ---- raw requests ---- */

/* A NETLINK_GENERIC socket asking for extended acks (capped). */
int nl_open(void);

struct req {
	unsigned char buf[1024] __attribute__((aligned(8)));
	size_t len;
};

void req_init(struct req *r, int family, uint8_t cmd, uint16_t flags);
void req_attr(struct req *r, uint16_t type, const void *data, uint16_t len);

struct reply {
	bool answered;		/* an NLMSG_ERROR (ack or error) came */
	int error;		/* its errno, 0 for an ack */
	bool has_msg;		/* NLMSGERR_ATTR_MSG */
	char msg[256];
	bool has_offs;		/* NLMSGERR_ATTR_OFFS */
	uint32_t offs;
	int nr_replies;		/* messages of the family */
	unsigned char data[65536] __attribute__((aligned(8)));	/* the first */
	size_t len;
};

/*
 * Send @len bytes of @buf and read until the kernel's NLMSG_ERROR, or
 * @timeout_ms of silence.  Returns 0, or -errno if sending failed.
 */
int nl_transact(int fd, const void *buf, size_t len, struct reply *r, int timeout_ms);

typedef void (*attr_fn)(uint16_t type, const unsigned char *d, size_t len, void *arg);

/* Call @fn for each attribute in [@p, @p + @len); stops at a malformed one. */
void walk(const unsigned char *p, size_t len, attr_fn fn, void *arg);
uint32_t u32_of(const unsigned char *d, size_t len);
uint64_t u64_of(const unsigned char *d, size_t len);
void str_of(char *dst, size_t size, const unsigned char *d, size_t len);

/* ---- GET_STATUS ---- */

#define MAX_PROBES	64

struct status {
	uint32_t page_size, buffer_events, sample_ms, maxactive;
	uint64_t drops_overflow, drops_delivery;
	struct {
		char name[32];
		uint64_t seq, sent, overflow, delivery;
	} grp[NR_GRPS];
	int nr_grps_named;
	uint64_t cpu_overflow;		/* sum over the CPU nests */
	int nr_cpus;
	struct {
		char name[64];
		uint32_t leg, event, attached, state;
		int32_t error;
		uint64_t hits, nmissed;
	} probe[MAX_PROBES];
	int nr_probes;
};

/* GET_STATUS on a fresh socket; 0, or the errno (ENOENT: no family). */
int status_get(struct status *st);

/* ---- the subscriber ---- */

struct evrec {
	int grp;
	uint32_t type, leg;
	uint64_t seq, time_ns, recv_ns;
	bool has_pid;
	uint32_t pid, tgid;
	uint64_t nr_reclaimed, lost;
	bool has_duration;
	uint32_t victim_pid, victim_tgid;
	bool has_constraint;
	uint32_t constraint;
	uint32_t nr_nodes;
	char memcg[64];
	char oom_memcg[64];
};

struct sub {
	struct family fam;
	int fd[NR_GRPS];
	int ctrl_fd;
	pthread_t thread;
	bool running;
	volatile bool stop;
	pthread_mutex_t lock;
	struct evrec *recs;
	size_t nr, cap;
	uint64_t lost[NR_GRPS];		/* sum of LOST */
	uint64_t enobufs[NR_GRPS];
	uint64_t malformed;
	bool family_gone;
};

/*
 * Subscribe to the groups in @mask (1 << GRP_*) and nlctrl, and collect in
 * a thread: 0, or -errno (-ENOENT: no family).
 */
int sub_start(struct sub *s, unsigned int mask);
void sub_stop(struct sub *s);
/*
 * Wait up to @ms for every seq of @grp in (lo, hi] to be accounted for:
 * received, or counted in a LOST record.  Returns the number received.
 */
uint64_t sub_wait(struct sub *s, int grp, uint64_t lo, uint64_t hi, unsigned int ms);

struct tally {
	uint64_t n;		/* events of the type */
	uint64_t with_pid;	/* ... by the pid asked for */
	uint64_t nr_reclaimed;	/* sum */
	uint64_t other_legs;	/* ... not on the leg of the first */
	uint64_t with_task;	/* ... with a MEMWALK_A_EVENT_PID */
	uint64_t without_nodes;	/* ... without a MEMWALK_A_EVENT_NODE */
	uint32_t leg;
};

/* The events of @type in (lo, hi]; with @memcg, only those of that memcg. */
struct tally sub_tally(struct sub *s, int grp, uint32_t type, uint64_t lo, uint64_t hi, uint32_t pid, const char *memcg);

/* ---- the kernel's counters ---- */

struct vmstat {
	uint64_t allocstall, pageoutrun, lwhq, hwhq, oom_kill, throttle;
	uint64_t pgsteal_kswapd;
};

void vmstat_read(struct vmstat *v);

/* A /proc/meminfo line, in bytes. */
uint64_t meminfo(const char *key);

/* ---- cgroups, swap, the module ---- */

int cg_write(const char *cg, const char *file, const char *val);

/* A key of memory.events; -1 if absent. */
long long cg_event(const char *cg, const char *key);
/* The value of "KEY VALUE" in a flat keyed file (memory.stat, ...); -1 if absent. */
long long flat_key(const char *path, const char *key);
/* Kill what is left in @cg and remove it; quiet if there is none. */
void cg_remove(const char *cg);
/* A fresh cgroup @cg with memory.max @max (bytes, 0: max); @swap false: memory.swap.max 0. */
int cg_create(const char *cg, uint64_t max, bool swap);

bool swap_active(void);
/*
 * Swap on zram0 (2 GiB: same-filled pages cost nothing) unless some swap
 * is on.  Returns 1 if it turned it on (so turn it off), 0 if it was on,
 * -1 if there is none to be had.
 */
int swap_on(void);
/*
 * The same, saying why there is none: -EOPNOTSUPP if the kernel offers no
 * swap (CONFIG_SWAP, CONFIG_ZRAM), another -errno if a step failed.
 */
int swap_on_why(char *why, size_t len);
void swap_off(void);

/* $MEMWALK_KO or KO_DEFAULT */
const char *ko_path(void);
bool module_loaded(void);

/* rmmod memwalk; insmod with @param (NULL: defaults): the exit code, or -1. */
int module_unload(struct mw_run *r);
int module_load(struct mw_run *r, const char *param);
int module_load2(struct mw_run *r, const char *p1, const char *p2);
unsigned int module_param_value(const char *name);

/*
 * Back to the module loaded with default parameters, whatever its state:
 * NULL, or what failed (in a static buffer).
 */
const char *module_defaults(void);

/* ---- workloads ---- */

/*
 * Child: join @cg (NULL: stay), oom_score_adj @adj, then fill @bytes of
 * anonymous memory (MADV_NOHUGEPAGE) page by page, @passes times (0:
 * until killed), each page with one byte value.  Exits 0.
 */
pid_t spawn_hog(const char *cg, size_t bytes, int passes, int adj);
/* ... in @chunks pieces with a pause of @pause_ms before each but the first. */
pid_t spawn_hog_paced(const char *cg, size_t bytes, int passes, int adj,
		     unsigned int chunks, unsigned int pause_ms);
/* waitpid with a deadline (the child is killed past it): the status, or < 0. */
int wait_child(pid_t pid, unsigned int seconds);
/*
 * Wait until nothing reclaims: the reclaim group's seq, pageoutrun and
 * allocstall unchanged over @quiet_ms, for at most @max_ms.
 */
bool settle(unsigned int quiet_ms, unsigned int max_ms);

/* ---- the client in the background ---- */

struct bg {
	pid_t pid;
	int out, err;
};

int bg_start(struct bg *b, const char *const argv[]);
void bg_read(int fd, char *buf, size_t len);
bool bg_wait_for(struct bg *b, bool err, const char *needle, unsigned int ms);
int bg_stop(struct bg *b, int sig, unsigned int seconds);

/* The client's summary line on stderr. */
struct summary {
	unsigned long long events, filtered, lost, missing, overflows;
};

bool parse_summary(const char *err, struct summary *s);

#endif /* MEMWALK_EVLIB_H */

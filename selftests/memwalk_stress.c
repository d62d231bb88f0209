// SPDX-License-Identifier: GPL-2.0
/*
 * Stress for memwalk, bounded in time, seeded, reproducible in its choices:
 *
 *   mixed:   targets that keep mmap/munmap/mremap/mprotect-ing, forking and
 *            exiting, collapsing and splitting THPs, paging out and back in;
 *            a memory hog in a small cgroup that keeps getting OOM-killed;
 *            khugepaged made aggressive; several clients snapshotting the
 *            targets with small buffers; an event subscriber reading.
 *   modload: insmod/rmmod in a loop while clients hold fds, snapshot and
 *            subscribe.
 *   thp_split: targets that fault THPs and split them (split_huge_pages in
 *            debugfs, MADV_DONTNEED/mprotect of a subpage, MADV_PAGEOUT)
 *            and collapse them again (MADV_COLLAPSE), and memory compaction,
 *            while clients take full snapshots (folio state) without
 *            pause: a split installs migration entries and splits the
 *            folio behind them, so the snapshots read pages whose folio
 *            changes under them.  How many migration entries they saw is
 *            reported; none is a failure (the path was not reached).
 *
 *   MEMWALK_STRESS_SECONDS (default 15), MEMWALK_STRESS_SEED, MEMWALK_KO
 *
 * The verdict on the kernel comes from the guest's dmesg (the VM harness
 * fails on any splat); here every snapshot's records must be well formed,
 * and the operation counts are reported.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>

#include <linux/memwalk.h>

#include "kselftest_harness.h"
#include "memwalk_util.h"

#ifndef MADV_PAGEOUT
#define MADV_PAGEOUT	21
#endif
#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE	25
#endif

#define NR_TARGETS	3
#define NR_CLIENTS	2
#define HUGE_SZ		(2UL << 20)

/* Counters the children report through a shared page. */
struct counters {
	unsigned long target_ops;
	unsigned long forks;
	unsigned long snapshots;
	unsigned long snapshot_errors;
	unsigned long records;
	unsigned long bad_records;
	unsigned long events;
	unsigned long loads;
	unsigned long busy_unloads;
	unsigned long errnos[64];
	unsigned long migration_runs;	/* runs of migration entries seen */
	unsigned long migration_pages;
	unsigned long migration_pmd;	/* of them PMD-level runs */
	unsigned long migration_snaps;	/* snapshots that saw any */
	unsigned long splits;		/* split_huge_pages writes that worked */
	unsigned long collapses;	/* MADV_COLLAPSE calls that worked */
	unsigned long compactions;
	unsigned long joins;		/* subscriber sockets in all three groups */
	unsigned long join_failures;	/* ... that could not join one */
	unsigned long hog_rounds;	/* hogs started in the cgroup */
	unsigned long hog_kills;	/* ... ended by SIGKILL (the OOM killer) */
	unsigned long setup_failures;	/* children that could not start their work */
	int hold_off;		/* modload: clients, stay closed */
	int open_fds;		/* clients holding /dev/memwalk */
	char first_bad[160];
	char first_setup_failure[160];
};

static struct counters *ctr;

/* Something could not be set up: counted, and the first one said. */
static void note_setup_failure(const char *what, int err)
{
	if (__atomic_add_fetch(&ctr->setup_failures, 1, __ATOMIC_RELAXED) == 1)
		snprintf(ctr->first_setup_failure, sizeof(ctr->first_setup_failure),
			 "pid %d: %s: %s", getpid(), what, strerror(err));
}

/* A child could not start its work: noted, and it exits. */
static void setup_failed(const char *what)
{
	note_setup_failure(what, errno);
	_exit(1);
}

static uint64_t rnd_next(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545F4914F6CDD1DULL;
}

static uint64_t env_u64(const char *name, uint64_t def)
{
	const char *s = getenv(name);

	return s && *s ? strtoull(s, NULL, 0) : def;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* One target: an address space that never sits still. */
static void target_loop(uint64_t seed)
{
	long psz = sysconf(_SC_PAGESIZE);
	char *slots[16] = { 0 };
	size_t lens[16] = { 0 };

	for (;;) {
		int i = rnd_next(&seed) % 16;
		char *p = slots[i];
		size_t len = lens[i];

		switch (rnd_next(&seed) % 9) {
		case 0:		/* map (sometimes a THP-able 2 MiB-aligned region) */
			if (p)
				munmap(p, len);
			len = rnd_next(&seed) % 2 ? 2 * HUGE_SZ : psz * (1 + rnd_next(&seed) % 256);
			p = mmap(NULL, len + HUGE_SZ, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			if (p == MAP_FAILED) {
				p = NULL;
				break;
			}
			{	/* trim to a 2 MiB boundary */
				char *a = (char *)(((uintptr_t)p + HUGE_SZ - 1) & ~(HUGE_SZ - 1));

				if (a > p)
					munmap(p, a - p);
				munmap(a + len, (p + len + HUGE_SZ) - (a + len));
				p = a;
			}
			madvise(p, len, MADV_HUGEPAGE);
			memset(p, i, len / 2);
			break;
		case 1:		/* (it may have been mprotect()ed read-only) */
			if (p && !mprotect(p, len, PROT_READ | PROT_WRITE))
				memset(p, 7, len);
			break;
		case 2:		/* split a THP by unmapping a page in the middle */
			if (p && len > 4 * psz) {
				munmap(p + len / 2, psz);
				munmap(p, len);
				p = NULL;
			}
			break;
		case 3:
			if (p)
				mprotect(p, len / 2, rnd_next(&seed) % 2 ? PROT_READ : PROT_NONE);
			break;
		case 4:
			if (p) {
				char *q = mremap(p, len, len * 2, MREMAP_MAYMOVE);

				if (q != MAP_FAILED) {
					p = q;
					len *= 2;
				}
			}
			break;
		case 5:
			if (p)
				madvise(p, len, MADV_PAGEOUT);
			break;
		case 6:
			if (p)
				madvise(p, len, MADV_COLLAPSE);
			break;
		case 7: {	/* fork: the child writes (COW) and exits */
			pid_t c = fork();

			if (c == 0) {
				if (p)
					memset(p, 3, len / 4);
				_exit(0);
			}
			if (c > 0) {
				waitpid(c, NULL, 0);
				__atomic_add_fetch(&ctr->forks, 1, __ATOMIC_RELAXED);
			}
			break;
		}
		default:
			if (p) {
				munmap(p, len);
				p = NULL;
			}
		}
		slots[i] = p;
		lens[i] = p ? len : 0;
		__atomic_add_fetch(&ctr->target_ops, 1, __ATOMIC_RELAXED);
	}
}

static void snapshot_pid(int fd, pid_t pid, void *vbuf, size_t vlen, void *rbuf,
			 size_t rlen);

#define SPLIT_THPS	8
#define SPLIT_DEBUGFS	"/sys/kernel/debug/split_huge_pages"

/*
 * One split target: SPLIT_THPS THPs faulted, then split (the whole folio,
 * or only its PMD, in various ways), written again and collapsed, over and
 * over: each split installs migration entries for a moment.
 */
static void split_loop(uint64_t seed)
{
	long psz = sysconf(_SC_PAGESIZE);
	size_t len = SPLIT_THPS * HUGE_SZ;
	char *raw = mmap(NULL, len + HUGE_SZ, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *p, cmd[96];

	if (raw == MAP_FAILED)
		setup_failed("split target: mmap");
	p = (char *)(((uintptr_t)raw + HUGE_SZ - 1) & ~(HUGE_SZ - 1));
	snprintf(cmd, sizeof(cmd), "%d,%#lx,%#lx", getpid(), (unsigned long)p,
		 (unsigned long)(p + len));
	for (;;) {
		madvise(p, len, MADV_HUGEPAGE);
		mprotect(p, len, PROT_READ | PROT_WRITE);
		for (size_t off = 0; off < len; off += psz)
			p[off] = (char)off;
		switch (rnd_next(&seed) % 4) {
		case 0:		/* split every folio (migration entries) */
		case 1:
			if (!mw_write_file(SPLIT_DEBUGFS, cmd))
				__atomic_add_fetch(&ctr->splits, 1, __ATOMIC_RELAXED);
			break;
		case 2:		/* split the PMDs: one page gone, one read-only */
			for (size_t off = 0; off < len; off += HUGE_SZ) {
				madvise(p + off + 7 * psz, psz, MADV_DONTNEED);
				mprotect(p + off + 9 * psz, psz, PROT_READ);
			}
			mprotect(p, len, PROT_READ | PROT_WRITE);
			break;
		default:	/* reclaim splits what it pages out */
			madvise(p + psz, len / 2, MADV_PAGEOUT);
			break;
		}
		/* Write into what was split, then make THPs of it again. */
		for (size_t off = 0; off < len; off += 3 * psz)
			p[off]++;
		if (!madvise(p, len, MADV_COLLAPSE))
			__atomic_add_fetch(&ctr->collapses, 1, __ATOMIC_RELAXED);
		if (rnd_next(&seed) % 8 == 0)
			madvise(p, len, MADV_DONTNEED);
		__atomic_add_fetch(&ctr->target_ops, 1, __ATOMIC_RELAXED);
	}
}

/* Compaction migrates the targets' small pages: more migration entries. */
static void compact_loop(uint64_t seed)
{
	for (;;) {
		if (!mw_write_file("/proc/sys/vm/compact_memory", "1"))
			__atomic_add_fetch(&ctr->compactions, 1, __ATOMIC_RELAXED);
		usleep(20000 + rnd_next(&seed) % 80000);
	}
}

/* Full snapshots of the targets, one after the other, never pausing. */
static void split_client_loop(uint64_t seed, const pid_t *targets)
{
	size_t vlen = 64 << 10, rlen = 256 << 10;
	void *vbuf = malloc(vlen), *rbuf = malloc(rlen);
	int fd = open(MEMWALK_DEVICE_PATH, O_RDWR);

	if (!vbuf || !rbuf)
		setup_failed("split client: malloc");
	if (fd < 0)
		setup_failed("split client: open " MEMWALK_DEVICE_PATH);
	for (;;)
		snapshot_pid(fd, targets[rnd_next(&seed) % NR_TARGETS], vbuf, vlen, rbuf, rlen);
}

static void note_bad(const char *why, unsigned long long a, unsigned long long b)
{
	if (__atomic_add_fetch(&ctr->bad_records, 1, __ATOMIC_RELAXED) == 1)
		snprintf(ctr->first_bad, sizeof(ctr->first_bad), "%s (%#llx, %#llx)", why, a, b);
}

/* Whole-address-space snapshots with small buffers; validate every record. */
static void snapshot_pid(int fd, pid_t pid, void *vbuf, size_t vlen, void *rbuf, size_t rlen)
{
	struct memwalk_snapshot s;
	uint64_t start = 0, last_end = 0;
	unsigned long migration = 0;

	for (int calls = 0; calls < 100000; calls++) {
		memset(&s, 0, sizeof(s));
		s.size = sizeof(s);
		s.flags = MEMWALK_SNAP_ALL;
		s.pid = pid;
		s.start = start;
		s.vma_buf = (uintptr_t)vbuf;
		s.vma_buf_len = vlen;
		s.run_buf = (uintptr_t)rbuf;
		s.run_buf_len = rlen;
		if (ioctl(fd, MEMWALK_IOC_SNAPSHOT, &s)) {
			__atomic_add_fetch(&ctr->snapshot_errors, 1, __ATOMIC_RELAXED);
			if (errno > 0 && errno < 64)
				__atomic_add_fetch(&ctr->errnos[errno], 1, __ATOMIC_RELAXED);
			if (errno != ESRCH && errno != ENOSPC && errno != EINTR)
				note_bad("snapshot errno", errno, pid);
			return;
		}
		for (uint64_t i = 0; i < s.nr_runs; i++) {
			struct memwalk_page_run *r = (void *)((char *)rbuf + i * s.run_size);
			unsigned int st = r->flags & MEMWALK_RUN_STATE_MASK;

			/* walk_end 0 (end 0): the whole space is done. */
			uint64_t bound = s.walk_end ? s.walk_end : UINT64_MAX;

			if (r->nr_pages == 0 || st == 0 || st > MEMWALK_STATE_SHMEM_SWAP ||
			    r->start < start || r->start < last_end ||
			    r->start + (uint64_t)r->nr_pages * 4096 > bound)
				note_bad("run", r->start, r->nr_pages);
			last_end = r->start + (uint64_t)r->nr_pages * 4096;
			if (st == MEMWALK_STATE_MIGRATION) {
				migration++;
				__atomic_add_fetch(&ctr->migration_pages, r->nr_pages,
						   __ATOMIC_RELAXED);
				if ((r->flags & MEMWALK_RUN_LEVEL_MASK) ==
				    MEMWALK_LEVEL_PMD << MEMWALK_RUN_LEVEL_SHIFT)
					__atomic_add_fetch(&ctr->migration_pmd, 1,
							   __ATOMIC_RELAXED);
				/* Only what is safe to read of a folio being split. */
				if (r->mapcount || r->order)
					note_bad("migration run with mapcount/order",
						 r->start, r->mapcount | (uint64_t)r->order << 32);
			}
		}
		for (uint64_t off = 0; off < s.vma_bytes;) {
			struct memwalk_vma *v = (void *)((char *)vbuf + off);

			if (v->size < sizeof(*v) || v->size % 8 || off + v->size > s.vma_bytes ||
			    v->start >= v->end || v->name_len >= v->size - sizeof(*v) + 1) {
				note_bad("vma", v->start, v->end);
				break;
			}
			off += v->size;
		}
		__atomic_add_fetch(&ctr->records, s.nr_runs, __ATOMIC_RELAXED);
		if (s.walk_end != s.end && s.walk_end <= start) {
			note_bad("no progress", start, s.walk_end);
			return;
		}
		/* Done when walk_end == end (0 for "the whole space"). */
		if (s.walk_end == s.end)
			break;
		start = s.walk_end;
	}
	__atomic_add_fetch(&ctr->snapshots, 1, __ATOMIC_RELAXED);
	if (migration) {
		__atomic_add_fetch(&ctr->migration_runs, migration, __ATOMIC_RELAXED);
		__atomic_add_fetch(&ctr->migration_snaps, 1, __ATOMIC_RELAXED);
	}
}

static void client_loop(uint64_t seed, const pid_t *targets, bool reopen)
{
	size_t vlen = 4096 + rnd_next(&seed) % 8192, rlen = 40 * (1 + rnd_next(&seed) % 200);
	void *vbuf = malloc(vlen), *rbuf = malloc(rlen);
	int fd = -1;

	if (!vbuf || !rbuf)
		setup_failed("client: malloc");
	for (;;) {
		if (fd < 0) {
			/* The reload loop asks for a moment with no fd open. */
			if (__atomic_load_n(&ctr->hold_off, __ATOMIC_ACQUIRE)) {
				usleep(2000);
				continue;
			}
			__atomic_add_fetch(&ctr->open_fds, 1, __ATOMIC_ACQ_REL);
			fd = open(MEMWALK_DEVICE_PATH, O_RDWR);
			if (fd < 0) {
				__atomic_sub_fetch(&ctr->open_fds, 1, __ATOMIC_ACQ_REL);
				usleep(20000);
				continue;
			}
		}
		snapshot_pid(fd, targets[rnd_next(&seed) % NR_TARGETS], vbuf, vlen, rbuf, rlen);
		if (reopen) {
			close(fd);
			fd = -1;
			__atomic_sub_fetch(&ctr->open_fds, 1, __ATOMIC_ACQ_REL);
			usleep(5000 + rnd_next(&seed) % 30000);
		}
	}
}

/* Subscribe to every group the family has and count what arrives. */
static int count_event(struct nl_msg *msg, void *arg)
{
	__atomic_add_fetch(&ctr->events, 1, __ATOMIC_RELAXED);
	return NL_OK;
}

static void subscriber_loop(void)
{
	static const char *const groups[] = {
		MEMWALK_MCGRP_RECLAIM, MEMWALK_MCGRP_OOM, MEMWALK_MCGRP_LRU,
	};

	for (;;) {
		struct nl_sock *sk = nl_socket_alloc();
		int joined = 0;

		if (!sk)
			setup_failed("subscriber: nl_socket_alloc");
		nl_socket_disable_seq_check(sk);
		nl_socket_modify_cb(sk, NL_CB_VALID, NL_CB_CUSTOM, count_event, NULL);
		if (genl_connect(sk) == 0) {
			int g[3];

			/*
			 * Every group's id first, then the joins: once in a
			 * group, an event can arrive where the next lookup
			 * waits for the controller's reply, and fail it.
			 */
			for (int i = 0; i < 3; i++)
				g[i] = genl_ctrl_resolve_grp(sk, MEMWALK_GENL_NAME, groups[i]);
			for (int i = 0; i < 3; i++)
				if (g[i] >= 0 && nl_socket_add_membership(sk, g[i]) == 0)
					joined++;
			__atomic_add_fetch(joined == 3 ? &ctr->joins : &ctr->join_failures, 1,
					   __ATOMIC_RELAXED);
			nl_socket_set_nonblocking(sk);
			for (int i = 0; joined && i < 200; i++) {
				nl_recvmsgs_default(sk);
				usleep(5000);
			}
		}
		nl_socket_free(sk);
		usleep(50000);
	}
}

#define HOG_CG		"/sys/fs/cgroup/memwalk-stress"

/* Kill what is left in the hog's cgroup (a hog outlives its loop) and remove it. */
static void hog_cgroup_remove(void)
{
	if (access(HOG_CG, F_OK))
		return;
	mw_write_file(HOG_CG "/cgroup.kill", "1");
	for (int i = 0; i < 100 && rmdir(HOG_CG) && errno == EBUSY; i++)
		usleep(20000);
}

/*
 * The hog's cgroup: 32 MiB, 8 MiB of swap, small enough that even a slow
 * (debug) kernel's hog reaches the limit soon.  NULL, or what failed.
 */
static const char *hog_cgroup(void)
{
	int ret;

	hog_cgroup_remove();
	if (mkdir(HOG_CG, 0755))
		return "mkdir " HOG_CG;
	mw_write_file("/sys/fs/cgroup/cgroup.subtree_control", "+memory");
	if (mw_write_file(HOG_CG "/memory.max", "32M"))
		return HOG_CG "/memory.max (memory controller not enabled?)";
	/* No such file without swap accounting: then no swap for it either. */
	ret = mw_write_file(HOG_CG "/memory.swap.max", "8M");
	if (ret && ret != -ENOENT)
		return HOG_CG "/memory.swap.max";
	return NULL;
}

/* A key of the hog cgroup's memory.events, or -1. */
static long long hog_event(const char *key)
{
	char buf[1024], *p;
	size_t klen = strlen(key);

	if (mw_read_file(HOG_CG "/memory.events", buf, sizeof(buf)))
		return -1;
	for (p = buf; p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, key, klen) && p[klen] == ' ')
			return atoll(p + klen + 1);
	return -1;
}

/* A hog in a small cgroup: keeps the guest under pressure, gets OOM-killed. */
static void hog_loop(void)
{
	for (;;) {
		pid_t c = fork();
		int status = 0;

		if (c == 0) {
			/* Never outside the cgroup: it would take all the guest's memory. */
			if (mw_write_file(HOG_CG "/cgroup.procs", "0"))
				setup_failed("hog: " HOG_CG "/cgroup.procs");
			for (;;) {
				char *p = malloc(1 << 20);

				if (p)
					memset(p, 1, 1 << 20);
			}
		}
		if (c < 0)
			setup_failed("hog: fork");
		__atomic_add_fetch(&ctr->hog_rounds, 1, __ATOMIC_RELAXED);
		if (waitpid(c, &status, 0) == c && WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
			__atomic_add_fetch(&ctr->hog_kills, 1, __ATOMIC_RELAXED);
		if (WIFEXITED(status) && WEXITSTATUS(status))
			_exit(1);	/* setup_failed() said why */
		usleep(200000);
	}
}

static pid_t spawn(void (*fn)(uint64_t), uint64_t seed)
{
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		fn(seed);
		_exit(0);
	}
	if (pid < 0)
		note_setup_failure("fork", errno);
	return pid;
}

static const pid_t *client_targets;
static bool client_reopen;

static void run_client(uint64_t seed) { client_loop(seed, client_targets, client_reopen); }
static void run_target(uint64_t seed) { target_loop(seed); }
static void run_subscriber(uint64_t seed) { subscriber_loop(); }
static void run_hog(uint64_t seed) { hog_loop(); }
static void run_split(uint64_t seed) { split_loop(seed); }
static void run_compact(uint64_t seed) { compact_loop(seed); }
static void run_split_client(uint64_t seed) { split_client_loop(seed, client_targets); }

/* khugepaged scanning without pause, where the kernel has THP. */
static void khugepaged_aggressive(struct __test_metadata *_metadata)
{
	static const char *const knobs[][2] = {
		{ "scan_sleep_millisecs", "0" },
		{ "alloc_sleep_millisecs", "0" },
		{ "pages_to_scan", "4096" },
	};
	const char *k = "/sys/kernel/mm/transparent_hugepage/khugepaged";
	char path[128];

	if (access(k, F_OK)) {
		TH_LOG("kernel without THP: no khugepaged to make aggressive");
		return;
	}
	for (size_t i = 0; i < ARRAY_SIZE(knobs); i++) {
		snprintf(path, sizeof(path), "%s/%s", k, knobs[i][0]);
		EXPECT_EQ(0, mw_write_file(path, knobs[i][1])) TH_LOG("%s", path);
	}
}

static void kill_all(pid_t *pids, int n)
{
	for (int i = 0; i < n; i++)
		if (pids[i] > 0)
			kill(pids[i], SIGKILL);
	for (int i = 0; i < n; i++)
		if (pids[i] > 0)
			waitpid(pids[i], NULL, 0);
}

/* Which documented errnos the snapshots ended with (ESRCH, ENOSPC, ...). */
static void log_errnos(struct __test_metadata *_metadata)
{
	for (int e = 1; e < 64; e++)
		if (ctr->errnos[e])
			TH_LOG("  %lu snapshots ended with %s", ctr->errnos[e], strerror(e));
}

FIXTURE(stress) {
	uint64_t seed;
	int seconds;
};

FIXTURE_SETUP(stress)
{
	ctr = mmap(NULL, sizeof(*ctr), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, ctr);
	memset(ctr, 0, sizeof(*ctr));
	self->seed = env_u64("MEMWALK_STRESS_SEED", (uint64_t)time(NULL));
	self->seconds = env_u64("MEMWALK_STRESS_SECONDS", 15);
	TH_LOG("seed %llu, %d s (replay: MEMWALK_STRESS_SEED=%llu)",
	       (unsigned long long)self->seed, self->seconds,
	       (unsigned long long)self->seed);
}

FIXTURE_TEARDOWN(stress)
{
	hog_cgroup_remove();
	munmap(ctr, sizeof(*ctr));
}

TEST_F_TIMEOUT(stress, mixed, 900)
{
	pid_t targets[NR_TARGETS], others[NR_CLIENTS + 2];
	uint64_t s = self->seed | 1;
	long long at_max, oom_kills;
	const char *bad;
	int n = 0;

	ASSERT_EQ(0, access(MEMWALK_DEVICE_PATH, F_OK)) TH_LOG("module not loaded");
	bad = hog_cgroup();
	ASSERT_EQ(NULL, bad) TH_LOG("the hog's cgroup: %s: %s", bad, strerror(errno));
	khugepaged_aggressive(_metadata);
	for (int i = 0; i < NR_TARGETS; i++)
		targets[i] = spawn(run_target, rnd_next(&s));
	client_targets = targets;
	client_reopen = false;
	for (int i = 0; i < NR_CLIENTS; i++)
		others[n++] = spawn(run_client, rnd_next(&s));
	others[n++] = spawn(run_subscriber, 0);
	others[n++] = spawn(run_hog, 0);

	sleep(self->seconds);
	/*
	 * The pressure is what this test is for: on a slow kernel (KASAN under
	 * TCG, a loaded host) the hog may need longer than the stress lasts to
	 * reach its limit and be heard of, so wait for both, up to two minutes.
	 */
	for (int w = 0; w < 240 && (hog_event("max") <= 0 ||
				    !__atomic_load_n(&ctr->events, __ATOMIC_RELAXED)); w++)
		usleep(500 * 1000);
	kill_all(others, n);
	kill_all(targets, NR_TARGETS);
	at_max = hog_event("max");
	oom_kills = hog_event("oom_kill");

	TH_LOG("%lu target ops, %lu forks, %lu snapshots (%lu ended in an error), "
	       "%lu runs checked, %lu events received by %lu subscriptions; "
	       "%lu hogs, %lu OOM-killed (memory.events max %lld, oom_kill %lld)",
	       ctr->target_ops, ctr->forks, ctr->snapshots, ctr->snapshot_errors,
	       ctr->records, ctr->events, ctr->joins, ctr->hog_rounds, ctr->hog_kills,
	       at_max, oom_kills);
	log_errnos(_metadata);
	EXPECT_EQ(0, ctr->setup_failures) TH_LOG("first: %s", ctr->first_setup_failure);
	EXPECT_EQ(0, ctr->bad_records) TH_LOG("first bad record: %s", ctr->first_bad);
	EXPECT_LT(0, ctr->snapshots);
	EXPECT_LT(0, ctr->target_ops);
	/* The pressure was there (the hog reclaimed at its limit), and OOM kills the kernel counted. */
	EXPECT_LT(0, at_max) TH_LOG("the hog never reached its memory.max: no pressure");
	EXPECT_LE((long long)ctr->hog_kills, oom_kills);
	/* ... and the subscriber, always in every group, heard of it. */
	EXPECT_LT(0, ctr->joins);
	EXPECT_EQ(0, ctr->join_failures) TH_LOG("subscriptions that missed a group");
	EXPECT_LT(0, ctr->events) TH_LOG("memcg reclaim %lld times, no event", at_max);
}

/*
 * THP splits and collapses under continuous full snapshots.  The verdict
 * on reading a folio mid-split is the debug kernel's (DEBUG_VM:
 * VM_BUG_ON in folio_entire_mapcount(), VM_WARN in folio_large_mapcount());
 * here: records well formed, migration runs without mapcount or order
 * (nothing of a folio being split may be read for them), and the path
 * reached.
 */
TEST_F_TIMEOUT(stress, thp_split, 900)
{
	pid_t targets[NR_TARGETS], others[NR_CLIENTS + 1];
	uint64_t s = self->seed | 1;
	int n = 0;

	int ret;

	ASSERT_EQ(0, access(MEMWALK_DEVICE_PATH, F_OK)) TH_LOG("module not loaded");
	if (access("/sys/kernel/mm/transparent_hugepage/enabled", F_OK))
		SKIP(return, "kernel without THP (CONFIG_TRANSPARENT_HUGEPAGE)");
	ret = mw_debugfs();
	if (ret == -ENODEV)
		SKIP(return, "kernel without debugfs (CONFIG_DEBUG_FS): no split_huge_pages");
	ASSERT_EQ(0, ret) TH_LOG("debugfs is not mounted at " MW_DEBUGFS);
	ASSERT_EQ(0, access(SPLIT_DEBUGFS, W_OK)) TH_LOG("%s: %s", SPLIT_DEBUGFS, strerror(errno));
	for (int i = 0; i < NR_TARGETS; i++)
		targets[i] = spawn(run_split, rnd_next(&s));
	client_targets = targets;
	for (int i = 0; i < NR_CLIENTS; i++)
		others[n++] = spawn(run_split_client, rnd_next(&s));
	others[n++] = spawn(run_compact, rnd_next(&s));

	sleep(self->seconds);
	kill_all(others, n);
	kill_all(targets, NR_TARGETS);

	TH_LOG("%lu target rounds, %lu splits, %lu collapses, %lu compactions",
	       ctr->target_ops, ctr->splits, ctr->collapses, ctr->compactions);
	EXPECT_EQ(0, ctr->setup_failures) TH_LOG("first: %s", ctr->first_setup_failure);
	ksft_print_msg("thp_split: %lu of %lu snapshots saw migration entries: %lu runs, %lu pages, %lu runs PMD-level\n",
		       ctr->migration_snaps, ctr->snapshots, ctr->migration_runs,
		       ctr->migration_pages, ctr->migration_pmd);
	log_errnos(_metadata);
	EXPECT_EQ(0, ctr->bad_records) TH_LOG("first bad record: %s", ctr->first_bad);
	EXPECT_LT(0, ctr->snapshots);
	EXPECT_LT(0, ctr->splits);
	EXPECT_LT(0, ctr->migration_runs)
		TH_LOG("no snapshot met a migration entry: the path was not reached");
}

/* insmod/rmmod with open fds, running snapshots and live subscribers. */
TEST_F_TIMEOUT(stress, modload, 900)
{
	const char *ko = getenv("MEMWALK_KO");
	pid_t targets[NR_TARGETS], others[NR_CLIENTS + 1];
	uint64_t s = self->seed | 1;
	double end = now_s() + self->seconds;
	char insmod_failed[256] = "";
	int n = 0;

	ASSERT_NE(NULL, ko) TH_LOG("MEMWALK_KO is not set");
	for (int i = 0; i < NR_TARGETS; i++)
		targets[i] = spawn(run_target, rnd_next(&s));
	client_targets = targets;
	client_reopen = true;
	for (int i = 0; i < NR_CLIENTS; i++)
		others[n++] = spawn(run_client, rnd_next(&s));
	others[n++] = spawn(run_subscriber, 0);

	while (now_s() < end) {
		const char *rm[] = { "rmmod", "memwalk", NULL };
		const char *ins[] = { "insmod", ko, NULL };
		struct mw_run r;

		/*
		 * Every other round, first ask the clients to close and wait
		 * until none holds the device (however slow the kernel), so
		 * reloads happen; otherwise rmmod races them and is refused
		 * while an fd is open, which is the other half of the point.
		 */
		bool quiet = ctr->loads <= ctr->busy_unloads;

		if (quiet) {
			__atomic_store_n(&ctr->hold_off, 1, __ATOMIC_RELEASE);
			while (__atomic_load_n(&ctr->open_fds, __ATOMIC_ACQUIRE) && now_s() < end + 60)
				usleep(2000);
		}
		if (mw_run(&r, 0, rm) == 0 && mw_exit_code(&r) == 0) {
			usleep(rnd_next(&s) % 20000);
			if (mw_run(&r, 0, ins) || mw_exit_code(&r)) {
				/* Stop the children first: an ASSERT here would leave them. */
				snprintf(insmod_failed, sizeof(insmod_failed),
					 "insmod after %lu reloads: status %#x: %.200s",
					 ctr->loads, r.status, r.err);
				break;
			}
			ctr->loads++;
		} else {
			ctr->busy_unloads++;
		}
		__atomic_store_n(&ctr->hold_off, 0, __ATOMIC_RELEASE);
		usleep(rnd_next(&s) % 50000);
	}
	__atomic_store_n(&ctr->hold_off, 0, __ATOMIC_RELEASE);
	kill_all(others, n);
	kill_all(targets, NR_TARGETS);
	ASSERT_STREQ("", insmod_failed);
	/* Leave it loaded, as the suite expects. */
	if (access(MEMWALK_DEVICE_PATH, F_OK)) {
		const char *ins[] = { "insmod", ko, NULL };
		struct mw_run r;

		ASSERT_EQ(0, mw_run(&r, 0, ins));
		ASSERT_EQ(0, mw_exit_code(&r)) TH_LOG("insmod: %s", r.err);
	}
	TH_LOG("%lu reloads, %lu unloads refused while busy, %lu snapshots, %lu events",
	       ctr->loads, ctr->busy_unloads, ctr->snapshots, ctr->events);
	log_errnos(_metadata);
	EXPECT_EQ(0, ctr->setup_failures) TH_LOG("first: %s", ctr->first_setup_failure);
	EXPECT_EQ(0, ctr->bad_records) TH_LOG("first bad record: %s", ctr->first_bad);
	EXPECT_LT(0, ctr->loads);
	EXPECT_LT(0, ctr->snapshots) TH_LOG("no snapshot between the reloads");
}

TEST_HARNESS_MAIN

// SPDX-License-Identifier: GPL-2.0
/*
 * A seeded, time-bounded fuzzer for memwalk's two surfaces: the ioctls of
 * /dev/memwalk and the generic netlink family.  Every call's inputs come
 * from one PRNG stream, so a failing seed reproduces:
 *
 *   MEMWALK_FUZZ_SEED=N     seed (default: time-based, always printed)
 *   MEMWALK_FUZZ_SECONDS=S  time per surface (default 10)
 *
 * The kernel must answer every call with success or an errno of the
 * documented set, and every success must be self-consistent; the real
 * verdict on memory safety comes from the guest's dmesg (KASAN, lockdep),
 * which the VM harness checks after the run.
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
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>

#include <linux/memwalk.h>

#include "kselftest_harness.h"

static uint64_t rng_state;

/* xorshift64*: small, fast and the same on every libc. */
static uint64_t rnd(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545F4914F6CDD1DULL;
}

static uint64_t rnd_below(uint64_t n)
{
	return n ? rnd() % n : 0;
}

static uint64_t fuzz_seed(void)
{
	const char *s = getenv("MEMWALK_FUZZ_SEED");

	if (s && *s)
		return strtoull(s, NULL, 0);
	return (uint64_t)time(NULL) * 2654435761ULL ^ (uint64_t)getpid();
}

static int fuzz_seconds(void)
{
	const char *s = getenv("MEMWALK_FUZZ_SECONDS");

	return s && *s ? atoi(s) : 10;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * The arena: pages of every kind a buffer pointer may land in.  Page 0 RW,
 * 1 read-only, 2 PROT_NONE, 3 unmapped (a hole), 4-7 RW.
 */
#define ARENA_PAGES	8

struct arena {
	char *base;
	long psz;
};

static void arena_init(struct arena *a)
{
	a->psz = sysconf(_SC_PAGESIZE);
	a->base = mmap(NULL, ARENA_PAGES * a->psz, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (a->base == MAP_FAILED)
		abort();
	memset(a->base, 0, ARENA_PAGES * a->psz);
	mprotect(a->base + a->psz, a->psz, PROT_READ);
	mprotect(a->base + 2 * a->psz, a->psz, PROT_NONE);
	munmap(a->base + 3 * a->psz, a->psz);
}

/* A user pointer for a buffer of @len bytes: valid, or any kind of bad. */
static uint64_t arena_ptr(struct arena *a, size_t len)
{
	char *rw = a->base + 4 * a->psz;

	switch (rnd_below(8)) {
	case 0:
		return 0;				/* NULL */
	case 1:
		return (uint64_t)(a->base + a->psz);	/* read-only */
	case 2:
		return (uint64_t)(a->base + 2 * a->psz); /* PROT_NONE */
	case 3:
		return (uint64_t)(a->base + 3 * a->psz); /* unmapped */
	case 4:						/* straddles into the hole */
		return (uint64_t)(a->base + 3 * a->psz - (len ? rnd_below(len) + 1 : 1));
	case 5:
		return rnd();				/* anywhere */
	default:					/* valid, within 4 RW pages */
		if (len >= 4 * (size_t)a->psz)
			return (uint64_t)rw;
		return (uint64_t)(rw + rnd_below(4 * a->psz - len) / 8 * 8);
	}
}

static uint32_t fuzz_size(uint32_t known, uint32_t ver0)
{
	static const int64_t delta[] = { 0, 0, 0, 8, 16, -8 };

	switch (rnd_below(8)) {
	case 0:
		return rnd_below(ver0 + 1);
	case 1:
		return 4096 + rnd_below(64);
	case 2:
		return (uint32_t)rnd();
	default:
		return known + delta[rnd_below(6)];
	}
}

static uint64_t fuzz_addr(long psz)
{
	switch (rnd_below(7)) {
	case 0:
		return 0;
	case 1:
		return rnd_below(1ULL << 47) & ~(uint64_t)(psz - 1);
	case 2:
		return rnd();					/* unaligned */
	case 3:
		return (1ULL << 47) - psz * rnd_below(4);	/* edge of user space */
	case 4:
		return (1ULL << 56) + psz * rnd_below(4);	/* LA57 edge */
	case 5:
		return ~0ULL & ~(uint64_t)(psz - 1);
	default:
		return 0x400000ULL + psz * rnd_below(1 << 20);
	}
}

static pid_t fuzz_pid(pid_t target)
{
	switch (rnd_below(8)) {
	case 0:
		return 0;
	case 1:
		return 2;			/* kthreadd: no mm */
	case 2:
		return -1;
	case 3:
		return 0x7fffffff;
	case 4:
		return getpid();
	case 5:
		return (pid_t)rnd();
	default:
		return target;
	}
}

/* A target that keeps changing its address space while it is walked. */
static pid_t start_churn(void)
{
	pid_t pid = fork();

	if (pid == 0) {
		long psz = sysconf(_SC_PAGESIZE);

		for (;;) {
			size_t len = psz * (1 + rnd_below(512));
			char *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
				       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

			if (p == MAP_FAILED)
				continue;
			memset(p, 1, len / 2);
			if (rnd_below(2))
				mprotect(p, len / 2, PROT_READ);
			if (rnd_below(3) == 0)
				p = mremap(p, len, len * 2, MREMAP_MAYMOVE);
			if (p != MAP_FAILED)
				munmap(p, len);
		}
	}
	return pid;
}

static void stop_churn(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

static bool errno_expected(int e)
{
	switch (e) {
	case EINVAL: case E2BIG: case EFAULT: case ENOTTY: case ESRCH:
	case ENOSPC: case EPERM: case EINTR: case ENOMEM: case ENXIO:
	case EOVERFLOW:
		return true;
	}
	return false;
}

/* A success of MEMWALK_IOC_SNAPSHOT must describe what it wrote. */
static const char *snapshot_inconsistency(const struct memwalk_snapshot *req,
					  uint64_t end)
{
	/* A whole-space walk (end 0) that finished reports walk_end 0. */
	if (!req->end && !req->walk_end)
		return NULL;
	if (req->walk_end < req->start || req->walk_end > end)
		return "walk_end outside [start, end]";
	if (req->vma_bytes > req->vma_buf_len)
		return "vma_bytes beyond vma_buf_len";
	if (req->run_size && req->nr_runs * req->run_size > req->run_buf_len)
		return "runs beyond run_buf_len";
	if (req->max_lock_ns > req->total_lock_ns)
		return "max_lock_ns > total_lock_ns";
	return NULL;
}

/*
 * A success of MEMWALK_IOC_VMA_SUMMARY must describe what it wrote; the
 * records are read back unless the request itself lies among them (its
 * own copy-out comes last and overwrites them there).
 */
static const char *summary_inconsistency(const struct memwalk_summary *req,
					 uint64_t end)
{
	const struct memwalk_vma_summary *r = (const void *)(uintptr_t)req->buf;
	uint64_t last, before = req->start, i;
	uintptr_t self = (uintptr_t)req;

	if (req->max_lock_ns > req->total_lock_ns)
		return "max_lock_ns > total_lock_ns";
	if (req->nr_recs && req->rec_size != sizeof(*r))
		return "rec_size is not the record's size";
	if (req->nr_recs > req->buf_len / sizeof(*r))
		return "records beyond buf_len";
	if (req->__pad || !memchr(req->comm, 0, sizeof(req->comm)))
		return "__pad set, or comm not NUL-terminated";
	/* A whole-space walk (end 0) that finished reports walk_end 0. */
	last = req->walk_end ? req->walk_end : end;
	if (req->walk_end && (req->walk_end < req->start || req->walk_end > end))
		return "walk_end outside [start, end]";
	if (req->buf < self + sizeof(*req) &&
	    self < req->buf + req->nr_recs * sizeof(*r))
		return NULL;
	for (i = 0; i < req->nr_recs; i++, r++) {
		if (r->start < before || r->end <= r->start || r->end > last)
			return "a record overlaps another or lies outside the walk";
		if (r->rss > r->end - r->start ||
		    r->private_clean + r->private_dirty > r->rss ||
		    (r->pss >> MEMWALK_PSS_SHIFT) > r->rss)
			return "a record counts more than its range holds";
		before = r->end;
	}
	return NULL;
}

/* The same for MEMWALK_IOC_PHYS, whose census ends at max_pfn. */
static const char *phys_inconsistency(const struct memwalk_phys *req, uint64_t end)
{
	const struct memwalk_phys_run *r = (const void *)(uintptr_t)req->run_buf;
	uint64_t before = req->start_pfn, i;
	uintptr_t self = (uintptr_t)req;

	if (!end)
		end = req->max_pfn;
	if (!req->max_pfn || end > req->max_pfn)
		return "max_pfn is 0 or below the end asked for";
	if (req->next_pfn <= req->start_pfn || req->next_pfn > end)
		return "next_pfn outside (start_pfn, end]";
	if (req->nr_runs && req->run_size != sizeof(*r))
		return "run_size is not the record's size";
	if (req->nr_runs > req->run_buf_len / sizeof(*r))
		return "runs beyond run_buf_len";
	if (req->run_buf < self + sizeof(*req) &&
	    self < req->run_buf + req->nr_runs * sizeof(*r))
		return NULL;
	for (i = 0; i < req->nr_runs; i++, r++) {
		if (r->pfn < before || !r->nr_pages || r->pfn + r->nr_pages > req->next_pfn)
			return "a run overlaps another or lies outside the census";
		if (r->class >= MEMWALK_PHYS_NR_CLASSES)
			return "a run of no class";
		before = r->pfn + r->nr_pages;
	}
	return NULL;
}

static uint32_t fuzz_cmd(void)
{
	static const uint32_t known[] = {
		MEMWALK_IOC_INFO, MEMWALK_IOC_SNAPSHOT, MEMWALK_IOC_TRANSLATE,
		MEMWALK_IOC_VMA_SUMMARY, MEMWALK_IOC_PHYS,
	};

	switch (rnd_below(10)) {
	case 0:
		return (uint32_t)rnd();
	case 1:
		return _IOC(rnd_below(4), MEMWALK_IOC_MAGIC, rnd_below(16),
			    rnd_below(1 << 14));
	default:
		return known[rnd_below(5)];
	}
}

/* The census's end, learnt once (0 until then): PFNs around it are edges. */
static uint64_t max_pfn;

static uint64_t fuzz_pfn(void)
{
	switch (rnd_below(7)) {
	case 0:
		return 0;
	case 1:
		return rnd();
	case 2:
		return ~0ULL - rnd_below(4);
	case 3:
		return max_pfn + rnd_below(4) - 2;	/* around the end */
	default:
		return rnd_below(max_pfn + 1);
	}
}

/* A buffer length: a few records, less than one, or anything. */
static uint64_t fuzz_len(size_t rec, long psz)
{
	switch (rnd_below(6)) {
	case 0:
		return rnd_below(rec);			/* not one record */
	case 1:
		return rnd();
	case 2:
		return rec * (1 + rnd_below(4)) + rnd_below(rec);
	default:
		return rnd_below(2 * psz);
	}
}

/* Fill a well-formed-looking request for @cmd at @buf (in the arena). */
static void fill_request(struct arena *a, uint32_t cmd, void *buf, pid_t target,
			 uint64_t *end_out)
{
	long psz = a->psz;

	switch (cmd) {
	case MEMWALK_IOC_INFO: {
		struct memwalk_info *in = buf;

		in->size = fuzz_size(sizeof(*in), MEMWALK_INFO_SIZE_VER0);
		in->flags = rnd_below(4) ? 0 : (uint32_t)rnd();
		break;
	}
	case MEMWALK_IOC_SNAPSHOT: {
		struct memwalk_snapshot *s = buf;
		size_t vlen = rnd_below(3) ? rnd_below(2 * psz) : rnd_below(64);
		size_t rlen = rnd_below(3) ? rnd_below(2 * psz) : rnd_below(64);
		size_t plen = rnd_below(3) ? rnd_below(2 * psz) : rnd_below(64);

		s->size = fuzz_size(sizeof(*s), MEMWALK_SNAPSHOT_SIZE_VER0);
		/* All MEMWALK_SNAP_* combinations, PFN_LIST (1 << 5) included. */
		s->flags = rnd_below(4) ? rnd_below(64) : (uint32_t)rnd();
		s->pid = fuzz_pid(target);
		s->__reserved = rnd_below(8) ? 0 : (uint32_t)rnd();
		s->start = rnd_below(3) ? 0 : fuzz_addr(psz);
		s->end = rnd_below(3) ? 0 : fuzz_addr(psz);
		s->vma_buf = arena_ptr(a, vlen);
		s->vma_buf_len = rnd_below(16) ? vlen : rnd();
		s->run_buf = arena_ptr(a, rlen);
		s->run_buf_len = rnd_below(16) ? rlen : rnd();
		s->pfn_buf = arena_ptr(a, plen);
		s->pfn_buf_len = rnd_below(16) ? plen : rnd();
		*end_out = s->end;
		break;
	}
	case MEMWALK_IOC_VMA_SUMMARY: {
		struct memwalk_summary *m = buf;
		uint64_t len = fuzz_len(sizeof(struct memwalk_vma_summary), psz);

		m->size = fuzz_size(sizeof(*m), MEMWALK_SUMMARY_SIZE_VER0);
		m->flags = rnd_below(4) ? 0 : (uint32_t)rnd();
		m->pid = fuzz_pid(target);
		m->__reserved = rnd_below(8) ? 0 : (uint32_t)rnd();
		m->start = rnd_below(3) ? 0 : fuzz_addr(psz);
		m->end = rnd_below(3) ? 0 : fuzz_addr(psz);
		m->buf = arena_ptr(a, len < 4 * (uint64_t)psz ? len : 0);
		m->buf_len = len;
		/* Out fields on input: the kernel must ignore them. */
		if (!rnd_below(4)) {
			m->walk_end = rnd();
			m->nr_recs = rnd();
			m->rec_size = (uint32_t)rnd();
			m->__pad = (uint32_t)rnd();
		}
		*end_out = m->end;
		break;
	}
	case MEMWALK_IOC_PHYS: {
		struct memwalk_phys *ph = buf;
		uint64_t len = fuzz_len(sizeof(struct memwalk_phys_run), psz);

		ph->size = fuzz_size(sizeof(*ph), MEMWALK_PHYS_SIZE_VER0);
		ph->flags = rnd_below(4) ? 0 : (uint32_t)rnd();
		ph->__reserved = rnd_below(8) ? 0 : (uint32_t)rnd();
		ph->start_pfn = fuzz_pfn();
		/* A census to the end now and then, a stretch of it mostly. */
		ph->end_pfn = rnd_below(4) ? ph->start_pfn + 1 + rnd_below(1 << 16) : fuzz_pfn();
		if (!rnd_below(8))
			ph->end_pfn = 0;
		ph->run_buf = arena_ptr(a, len < 4 * (uint64_t)psz ? len : 0);
		ph->run_buf_len = len;
		if (!rnd_below(4)) {
			ph->next_pfn = rnd();
			ph->nr_runs = rnd();
			ph->max_pfn = rnd();
			ph->run_size = (uint32_t)rnd();
		}
		*end_out = ph->end_pfn;
		break;
	}
	case MEMWALK_IOC_TRANSLATE: {
		struct memwalk_translate *t = buf;

		t->size = fuzz_size(sizeof(*t), MEMWALK_TRANSLATE_SIZE_VER0);
		t->flags = rnd_below(4) ? 0 : (uint32_t)rnd();
		t->pid = fuzz_pid(target);
		t->addr = fuzz_addr(psz);
		break;
	}
	}
}

/* The harness's 30 s default is shorter than a long fuzzing run. */
FIXTURE(fuzz) {};
FIXTURE_SETUP(fuzz) {}
FIXTURE_TEARDOWN(fuzz) {}

TEST_F_TIMEOUT(fuzz, ioctl_surface, 900)
{
	uint64_t seed = fuzz_seed(), iter = 0, ok = 0, failed_calls = 0, checked = 0;
	uint64_t checked_sum = 0, checked_phys = 0;
	struct memwalk_phys_run first;
	struct memwalk_phys census = {
		.size = sizeof(census), .run_buf = (uintptr_t)&first,
		.run_buf_len = sizeof(first),
	};
	double deadline = now_s() + fuzz_seconds();
	struct arena a;
	pid_t target;
	int fd;

	fd = open(MEMWALK_DEVICE_PATH, O_RDWR);
	ASSERT_LE(0, fd) TH_LOG("open %s: %s", MEMWALK_DEVICE_PATH, strerror(errno));
	arena_init(&a);
	ASSERT_EQ(0, ioctl(fd, MEMWALK_IOC_PHYS, &census))
		TH_LOG("MEMWALK_IOC_PHYS of one run: %s", strerror(errno));
	max_pfn = census.max_pfn;
	rng_state = seed | 1;
	target = start_churn();
	ASSERT_LT(0, target) TH_LOG("fork: %s", strerror(errno));
	TH_LOG("seed %llu (replay with MEMWALK_FUZZ_SEED=%llu)",
	       (unsigned long long)seed, (unsigned long long)seed);

	while (now_s() < deadline) {
		/* The request lives in RW arena pages 4-7 (valid) at an offset. */
		char *req = a.base + 4 * a.psz + rnd_below(a.psz) / 8 * 8;
		uint32_t cmd = fuzz_cmd();
		uint64_t end = 0, arg;
		int ret;

		memset(req, 0, 2 * a.psz);
		if (rnd_below(8) == 0)
			for (size_t i = 0; i < 512; i++)
				req[i] = (char)rnd();
		else
			fill_request(&a, cmd, req, target, &end);
		arg = rnd_below(10) ? (uint64_t)req : arena_ptr(&a, 256);

		iter++;
		ret = ioctl(fd, cmd, (void *)arg);
		if (ret < 0) {
			failed_calls++;
			ASSERT_TRUE(errno_expected(errno))
				TH_LOG("iteration %llu: cmd %#x errno %d (%s) not documented",
				       (unsigned long long)iter, cmd, errno, strerror(errno));
			continue;
		}
		ok++;
		if (cmd == MEMWALK_IOC_SNAPSHOT && arg == (uint64_t)req) {
			struct memwalk_snapshot *s = (void *)req;
			const char *why;

			if (!end)
				end = UINT64_MAX;
			why = snapshot_inconsistency(s, end);
			ASSERT_EQ(NULL, why)
				TH_LOG("iteration %llu: %s", (unsigned long long)iter, why);
			checked++;
		}
		if (cmd == MEMWALK_IOC_VMA_SUMMARY && arg == (uint64_t)req) {
			const char *why = summary_inconsistency((void *)req,
								end ? end : UINT64_MAX);

			ASSERT_EQ(NULL, why)
				TH_LOG("iteration %llu: summary: %s", (unsigned long long)iter, why);
			checked_sum++;
		}
		if (cmd == MEMWALK_IOC_PHYS && arg == (uint64_t)req) {
			const char *why = phys_inconsistency((void *)req, end);

			ASSERT_EQ(NULL, why)
				TH_LOG("iteration %llu: phys: %s", (unsigned long long)iter, why);
			checked_phys++;
		}
	}
	stop_churn(target);
	close(fd);
	TH_LOG("%llu calls: %llu succeeded (%llu snapshots, %llu summaries, %llu censuses checked), %llu failed with documented errnos",
	       (unsigned long long)iter, (unsigned long long)ok, (unsigned long long)checked,
	       (unsigned long long)checked_sum, (unsigned long long)checked_phys,
	       (unsigned long long)failed_calls);
	/* Both halves reached: refusals, and successes whose answer was checked. */
	EXPECT_LT(0, failed_calls);
	EXPECT_LT(0, checked) TH_LOG("no snapshot succeeded: its answer was never checked");
	EXPECT_LT(0, checked_sum) TH_LOG("no summary succeeded: its answer was never checked");
	EXPECT_LT(0, checked_phys) TH_LOG("no census succeeded: its answer was never checked");
}

/* ---- generic netlink ---------------------------------------------------- */

static int resolve_family(void)
{
	struct nl_sock *sk = nl_socket_alloc();
	int id;

	if (!sk)
		return -ENOMEM;
	if (genl_connect(sk)) {
		nl_socket_free(sk);
		return -ENOTCONN;
	}
	id = genl_ctrl_resolve(sk, MEMWALK_GENL_NAME);
	nl_socket_free(sk);
	return id;
}

/*
 * One random message: a genetlink header with a random command and version,
 * random attributes (types around the family's, random lengths and
 * payloads), and sometimes a lying nlmsg_len or nla_len.
 */
static size_t build_message(char *buf, size_t cap, int family, uint32_t seq)
{
	struct nlmsghdr *nlh = (void *)buf;
	struct genlmsghdr *g = NLMSG_DATA(nlh);
	size_t len = NLMSG_LENGTH(GENL_HDRLEN);
	int nattr = rnd_below(6);

	memset(buf, 0, cap);
	nlh->nlmsg_type = rnd_below(16) ? family : (uint16_t)rnd();
	nlh->nlmsg_flags = NLM_F_REQUEST | (rnd_below(2) ? NLM_F_ACK : 0) |
			   (rnd_below(6) ? 0 : NLM_F_DUMP);
	nlh->nlmsg_seq = seq;
	g->cmd = rnd_below(8) ? rnd_below(MEMWALK_CMD_MAX + 3) : (uint8_t)rnd();
	g->version = rnd_below(4) ? MEMWALK_GENL_VERSION : (uint8_t)rnd();

	while (nattr--) {
		struct nlattr *na = (void *)(buf + NLMSG_ALIGN(len));
		size_t plen = rnd_below(4) ? rnd_below(12) : rnd_below(200);

		if (NLMSG_ALIGN(len) + NLA_HDRLEN + plen + 8 > cap)
			break;
		na->nla_type = rnd_below(4) ? rnd_below(MEMWALK_A_MAX + 4) : (uint16_t)rnd();
		if (rnd_below(8) == 0)
			na->nla_type |= NLA_F_NESTED;
		na->nla_len = NLA_HDRLEN + plen;
		for (size_t i = 0; i < plen; i++)
			((char *)na + NLA_HDRLEN)[i] = rnd_below(3) ? 0 : (char)rnd();
		if (rnd_below(10) == 0)
			na->nla_len = (uint16_t)rnd();		/* lies */
		len = NLMSG_ALIGN(len) + NLA_ALIGN(NLA_HDRLEN + plen);
	}
	nlh->nlmsg_len = len;
	if (rnd_below(10) == 0)
		nlh->nlmsg_len = rnd_below(len + 16);		/* truncated or long */
	return rnd_below(12) ? len : rnd_below(len + 1);
}

TEST_F_TIMEOUT(fuzz, netlink_surface, 900)
{
	uint64_t seed = fuzz_seed() ^ 0x9e3779b97f4a7c15ULL, iter = 0, errors = 0, replies = 0;
	double deadline = now_s() + fuzz_seconds();
	struct timeval tv = { .tv_usec = 200 * 1000 };
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
	static char buf[4096], rbuf[65536];
	int family, sk;

	family = resolve_family();
	ASSERT_LT(0, family) TH_LOG("family %s not found: %d", MEMWALK_GENL_NAME, family);
	sk = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	ASSERT_LE(0, sk);
	ASSERT_EQ(0, setsockopt(sk, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)));
	rng_state = seed | 1;
	TH_LOG("seed %llu", (unsigned long long)(seed ^ 0x9e3779b97f4a7c15ULL));

	while (now_s() < deadline) {
		size_t len = build_message(buf, sizeof(buf), family, ++iter);
		ssize_t n;

		/* Sometimes join or leave a random group id as well. */
		if (rnd_below(20) == 0) {
			int grp = rnd_below(64);

			setsockopt(sk, SOL_NETLINK, rnd_below(2) ? NETLINK_ADD_MEMBERSHIP :
				   NETLINK_DROP_MEMBERSHIP, &grp, sizeof(grp));
		}
		if (sendto(sk, buf, len, 0, (void *)&kernel, sizeof(kernel)) < 0)
			continue;
		/* Drain replies: an answer or an error, never a hang. */
		while ((n = recv(sk, rbuf, sizeof(rbuf), MSG_DONTWAIT)) > 0) {
			struct nlmsghdr *r = (void *)rbuf;

			ASSERT_TRUE(NLMSG_OK(r, (size_t)n))
				TH_LOG("iteration %llu: malformed reply", (unsigned long long)iter);
			if (r->nlmsg_type == NLMSG_ERROR) {
				struct nlmsgerr *e = NLMSG_DATA(r);

				ASSERT_GE(0, e->error);
				if (e->error)
					errors++;
			} else if (r->nlmsg_type == family &&
				   r->nlmsg_len >= NLMSG_LENGTH(GENL_HDRLEN) &&
				   ((struct genlmsghdr *)NLMSG_DATA(r))->cmd ==
				   MEMWALK_CMD_GET_STATUS) {
				replies++;
			}
		}
	}
	close(sk);
	TH_LOG("%llu messages, %llu answered with an error, %llu with a GET_STATUS reply",
	       (unsigned long long)iter, (unsigned long long)errors, (unsigned long long)replies);
	/* Both halves reached: refusals, and requests the family answered. */
	EXPECT_LT(0, errors);
	EXPECT_LT(0, replies);
}

TEST_HARNESS_MAIN

// SPDX-License-Identifier: GPL-2.0
/*
 * MEMWALK_IOC_PHYS, the census of physical memory, against its oracles:
 * a census of /proc/kpageflags over the same PFNs taken back to back (the
 * same page frames, each put in a class by the bits that decide the
 * module's class), /proc/meminfo's counters, the census itself taken in
 * pieces, and every error path with its exact errno.
 *
 * The system moves while either census runs, so each comparison allows
 * for what moved: the module's census is taken before and after the
 * oracle's, and the oracle must fall within what the two saw, widened by
 * a slack per class that says what kpageflags or meminfo cannot see the
 * way the module does (see class_slack[] and the meminfo test).
 *
 * Needs root and the module loaded (in lab mode too: only the
 * unprivileged test differs).  uid/gid 65534 is the unprivileged user.
 */
#include "kselftest_harness.h"

#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <linux/memwalk.h>

#include "memwalk_phys_oracle.h"
#include "memwalk_phys_vmstat.h"
#include "memwalk_util.h"

#define DEV		MEMWALK_DEVICE_PATH
#define NR_CLASSES	MEMWALK_PHYS_NR_CLASSES
#define RUN_CAP		(1 << 16)	/* records per call in the one-call census */
/*
 * Seconds for a test: the fixture writes a file of page cache and most
 * tests take several censuses, a few seconds each, but under the debug
 * kernel (KASAN) in a guest beside others tests took 11 to 25 s, near
 * the harness's default 30.
 */
#define PHYS_TIMEOUT	300

/*
 * Pages by which kpageflags may differ from the module on a quiet guest,
 * beyond what moved between the module's two censuses:
 *  - file/other: kpageflags has no bit for "in a file's page cache"; the
 *    oracle takes LRU or mapped pages for it, so page cache folios off the
 *    LRU (in a per-CPU LRU batch, isolated by reclaim or compaction) are
 *    other there and file here.  A few batches of 15-31 folios per CPU.
 *  - zero: the huge zero folio is found by its shape here (unexported.h),
 *    by its address there: at most one PMD-sized folio either way.
 *  - free: pages on the per-CPU free lists and buddy blocks merging or
 *    splitting while each looks are the moving part; 64 pages of slack.
 *  - the others: the same bits on both sides; 64 pages for what moves
 *    between two reads of one page.
 */
static const uint64_t class_slack[NR_CLASSES] = {
	[MEMWALK_PHYS_CLASS_FILE] = 1024,
	[MEMWALK_PHYS_CLASS_OTHER] = 1024,
	[MEMWALK_PHYS_CLASS_ZERO] = 512,
};
#define DEFAULT_SLACK	64

struct census {
	uint64_t pages[NR_CLASSES];
	uint64_t total;			/* pages counted */
	uint64_t mapped_anon;		/* ANON with MAPPED */
	uint64_t swapcache;		/* ANON with SWAPCACHE */
	uint64_t hugetlb_free;		/* HUGETLB with HUGETLB_FREE */
	uint64_t runs;			/* records */
	uint64_t calls;			/* ioctls */
	uint64_t max_pfn;
};

static int phys_ioctl(int fd, struct memwalk_phys *req)
{
	return ioctl(fd, MEMWALK_IOC_PHYS, req) < 0 ? errno : 0;
}

static void count_run(struct census *c, const struct memwalk_phys_run *r)
{
	c->pages[r->class] += r->nr_pages;
	c->total += r->nr_pages;
	if (r->class == MEMWALK_PHYS_CLASS_ANON && (r->flags & MEMWALK_PHYS_MAPPED))
		c->mapped_anon += r->nr_pages;
	if (r->class == MEMWALK_PHYS_CLASS_ANON && (r->flags & MEMWALK_PHYS_SWAPCACHE))
		c->swapcache += r->nr_pages;
	if (r->class == MEMWALK_PHYS_CLASS_HUGETLB && (r->flags & MEMWALK_PHYS_HUGETLB_FREE))
		c->hugetlb_free += r->nr_pages;
}

/*
 * The census of [start, end) (end 0: all) in calls of @cap records each,
 * into @c; every record is checked to lie in the range, after the one
 * before it, and to be of a known class.  0, or the errno of a call.
 */
static int take_census(struct __test_metadata *_metadata, int fd,
		       struct memwalk_phys_run *buf, size_t cap,
		       uint64_t start, uint64_t end, struct census *c)
{
	struct memwalk_phys req;
	uint64_t pfn = start, last_end = start, i;
	int ret;

	memset(c, 0, sizeof(*c));
	do {
		memset(&req, 0, sizeof(req));
		req.size = sizeof(req);
		req.start_pfn = pfn;
		req.end_pfn = end;
		req.run_buf = (uintptr_t)buf;
		req.run_buf_len = cap * sizeof(*buf);
		ret = phys_ioctl(fd, &req);
		if (ret)
			return ret;
		c->calls++;
		c->max_pfn = req.max_pfn;
		if (!end)
			end = req.max_pfn;
		EXPECT_EQ(sizeof(*buf), req.run_size);
		EXPECT_LE(req.nr_runs, cap);
		EXPECT_GT(req.next_pfn, pfn);
		EXPECT_LE(req.next_pfn, end);
		for (i = 0; i < req.nr_runs; i++) {
			const struct memwalk_phys_run *r = &buf[i];

			EXPECT_LT(r->class, NR_CLASSES);
			EXPECT_GE(r->pfn, last_end);
			EXPECT_LE(r->pfn + r->nr_pages, req.next_pfn);
			EXPECT_NE(0, r->nr_pages);
			if (r->class >= NR_CLASSES || !_metadata->passed)
				return EPROTO;
			last_end = r->pfn + r->nr_pages;
			count_run(c, r);
		}
		c->runs += req.nr_runs;
		if (req.next_pfn <= pfn)
			return EPROTO;
		pfn = req.next_pfn;
	} while (pfn < end);
	return 0;
}

/*
 * Whether the memory block holding @pfn is online, by
 * /sys/devices/system/memory (true where the kernel has no such view).
 * On arm64 7.2, kpageflags read the 262144 PFNs below the guest's RAM
 * (which starts at 1 GiB) as 0, not KPF_NOPAGE: they would count as pages
 * of no flags ("kernel, other").  The module counts online pages only.
 */
static bool pfn_block_online(uint64_t pfn, uint64_t *block_pages)
{
	char path[96], buf[32];

	if (!*block_pages) {
		if (mw_read_file("/sys/devices/system/memory/block_size_bytes", buf, sizeof(buf)))
			*block_pages = UINT64_MAX;
		else
			*block_pages = strtoull(buf, NULL, 16) / (uint64_t)sysconf(_SC_PAGESIZE) ?: UINT64_MAX;
	}
	if (*block_pages == UINT64_MAX)
		return true;
	snprintf(path, sizeof(path), "/sys/devices/system/memory/memory%" PRIu64 "/online",
		 pfn / *block_pages);
	return !mw_read_file(path, buf, sizeof(buf)) && buf[0] == '1';
}

/*
 * The same census from /proc/kpageflags over the online memory blocks of
 * [0, @end): each page's class by mw_kpf_class() (memwalk_phys_oracle.h).
 */
static int kpageflags_census(uint64_t *buf, size_t cap, uint64_t end,
			     struct census *c)
{
	uint64_t pfn = 0, head = 0, block_pages = 0, stop;
	int fd = open("/proc/kpageflags", O_RDONLY);
	ssize_t n;

	memset(c, 0, sizeof(*c));
	if (fd < 0)
		return errno;
	while (pfn < end) {
		size_t want = end - pfn < cap ? end - pfn : cap;
		bool online = pfn_block_online(pfn, &block_pages);

		/* one block at a time: it is online or not as a whole */
		if (block_pages != UINT64_MAX) {
			stop = (pfn / block_pages + 1) * block_pages;
			if (stop - pfn < want)
				want = stop - pfn;
			if (!online) {
				pfn += want;
				continue;
			}
		}
		n = pread(fd, buf, want * 8, pfn * 8);
		if (n <= 0) {
			close(fd);
			return n ? errno : EPROTO;
		}
		c->total += mw_kpf_count(buf, n / 8, &head, c->pages);
		pfn += n / 8;
	}
	close(fd);
	c->max_pfn = end;
	return 0;
}

static uint64_t min_u64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

static uint64_t max_u64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

/* Whether @v lies within [min(a, b) - slack, max(a, b) + slack]. */
static bool within(uint64_t v, uint64_t a, uint64_t b, uint64_t slack)
{
	uint64_t lo = min_u64(a, b), hi = max_u64(a, b);

	return v + slack >= lo && v <= hi + slack;
}

/* @v (what @what counted of class @name) within what censuses @a and @b saw. */
static void expect_within(struct __test_metadata *_metadata, const char *what,
			  const char *name, uint64_t v, uint64_t a, uint64_t b,
			  uint64_t slack)
{
	EXPECT_TRUE(within(v, a, b, slack))
		TH_LOG("%s: %s %llu, memwalk %llu then %llu, slack %llu", name, what,
		       (unsigned long long)v, (unsigned long long)a,
		       (unsigned long long)b, (unsigned long long)slack);
}

/* /proc/meminfo field @name in kB, or -1. */
static long long meminfo_kb(const char *name)
{
	char buf[8192], key[64];
	const char *p;
	long long v;

	if (mw_read_file("/proc/meminfo", buf, sizeof(buf)))
		return -1;
	snprintf(key, sizeof(key), "\n%s:", name);
	p = strstr(buf, key);
	if (!p && !strncmp(buf, key + 1, strlen(key + 1)))
		p = buf - 1;
	if (!p || sscanf(p + strlen(key), "%lld", &v) != 1)
		return -1;
	return v;
}

/*
 * Drain the per-CPU LRU batches (writing compact_memory calls
 * lru_add_drain_all() first) and let the guest settle, so that page cache
 * folios are on their LRU lists when kpageflags looks.
 */
static void settle(void)
{
	mw_write_file("/proc/sys/vm/compact_memory", "1");
	sync();
	usleep(200 * 1000);
}

#define DISK_FILE_PAGES	1024

/*
 * Page cache of a disk file system, when the guest has one
 * ($MEMWALK_DISK, scripts/guest/selftests.sh): a file of DISK_FILE_PAGES
 * written and synced, so that the file class and Cached have pages
 * (tmpfs, the guest's root, is shmem).  Its pages stay cached: the guest
 * has no memory pressure.  Whether there is one.
 */
static bool make_page_cache(struct __test_metadata *_metadata)
{
	const char *disk = getenv("MEMWALK_DISK");
	char path[4096], *buf;
	int fd;

	if (!disk || !*disk)
		return false;
	snprintf(path, sizeof(path), "%s/memwalk-phys", disk);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	buf = calloc(DISK_FILE_PAGES, getpagesize());
	if (fd < 0 || !buf) {
		TH_LOG("cannot make %s: %s", path, strerror(errno));
		return false;
	}
	memset(buf, 'p', (size_t)DISK_FILE_PAGES * getpagesize());
	if (write(fd, buf, (size_t)DISK_FILE_PAGES * getpagesize()) < 0 || fsync(fd))
		TH_LOG("cannot write %s: %s", path, strerror(errno));
	free(buf);
	close(fd);
	return true;
}

FIXTURE(phys) {
	int fd;
	bool disk;
	struct memwalk_phys_run *runs;
	uint64_t *kpf;
	size_t kpf_cap;
};

FIXTURE_SETUP(phys)
{
	struct memwalk_info info = { .size = sizeof(info) };

	self->fd = open(DEV, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, self->fd) TH_LOG("open %s: %s", DEV, strerror(errno));
	ASSERT_EQ(0, ioctl(self->fd, MEMWALK_IOC_INFO, &info));
	ASSERT_NE(0, info.features & MEMWALK_FEAT_PHYS)
		TH_LOG("the module does not report MEMWALK_FEAT_PHYS");
	/* Touched now, so that no census faults them in while the other runs. */
	self->runs = calloc(RUN_CAP, sizeof(*self->runs));
	self->kpf_cap = 1 << 16;
	self->kpf = calloc(self->kpf_cap, sizeof(*self->kpf));
	ASSERT_NE(NULL, self->runs);
	ASSERT_NE(NULL, self->kpf);
	memset(self->runs, 1, RUN_CAP * sizeof(*self->runs));
	memset(self->kpf, 1, self->kpf_cap * sizeof(*self->kpf));
	self->disk = make_page_cache(_metadata);
}

FIXTURE_TEARDOWN(phys)
{
	free(self->runs);
	free(self->kpf);
	close(self->fd);
}

static void log_census(struct __test_metadata *_metadata, const char *what,
		       const struct census *c)
{
	int i;

	for (i = 0; i < NR_CLASSES; i++)
		TH_LOG("%s %-9s %8llu pages", what, mw_phys_class_names[i],
		       (unsigned long long)c->pages[i]);
}

/*
 * Class by class, the kpageflags census within what the module's two
 * censuses around it saw, widened by class_slack[]; the same page frames
 * counted on both sides, exactly.
 */
TEST_F_TIMEOUT(phys, matches_kpageflags, PHYS_TIMEOUT)
{
	struct census before, oracle, after;
	int i;

	settle();
	ASSERT_EQ(0, take_census(_metadata, self->fd, self->runs, RUN_CAP, 0, 0, &before));
	ASSERT_EQ(0, kpageflags_census(self->kpf, self->kpf_cap, before.max_pfn, &oracle));
	ASSERT_EQ(0, take_census(_metadata, self->fd, self->runs, RUN_CAP, 0, 0, &after));

	TH_LOG("%llu page frames, %llu records (%.1f pages each), max_pfn %llu",
	       (unsigned long long)before.total, (unsigned long long)before.runs,
	       (double)before.total / before.runs, (unsigned long long)before.max_pfn);
	EXPECT_EQ(oracle.total, before.total);
	EXPECT_EQ(oracle.total, after.total);
	for (i = 0; i < NR_CLASSES; i++) {
		uint64_t slack = class_slack[i] ? class_slack[i] : DEFAULT_SLACK;

		expect_within(_metadata, "kpageflags", mw_phys_class_names[i], oracle.pages[i],
			      before.pages[i], after.pages[i], slack);
	}
	/* A census that put everything in one class would pass nothing above. */
	EXPECT_NE(0, before.pages[MEMWALK_PHYS_CLASS_FREE]);
	EXPECT_NE(0, before.pages[MEMWALK_PHYS_CLASS_RESERVED]);
	EXPECT_NE(0, before.pages[MEMWALK_PHYS_CLASS_SLAB]);
	EXPECT_NE(0, before.pages[MEMWALK_PHYS_CLASS_ANON]);
	EXPECT_NE(0, before.pages[MEMWALK_PHYS_CLASS_SHMEM]);
	if (self->disk)
		EXPECT_LE(DISK_FILE_PAGES, before.pages[MEMWALK_PHYS_CLASS_FILE]);
	EXPECT_NE(0, before.pages[MEMWALK_PHYS_CLASS_PGTABLE]);
	EXPECT_EQ(1, before.pages[MEMWALK_PHYS_CLASS_ZERO] % 512)
		TH_LOG("zero pages: %llu, expected the zero page (and a huge zero folio)",
		       (unsigned long long)before.pages[MEMWALK_PHYS_CLASS_ZERO]);
	if (!_metadata->passed) {
		log_census(_metadata, "memwalk", &before);
		log_census(_metadata, "kpageflags", &oracle);
	}
}

/*
 * A /proc/meminfo field (kB) against the census's pages of it, read
 * before and after, within @slack pages: what meminfo counts otherwise.
 */
static void expect_meminfo(struct __test_metadata *_metadata, const char *field,
			   long long kb_before, long long kb_after,
			   uint64_t pages, uint64_t slack)
{
	uint64_t page_kb = getpagesize() / 1024;

	ASSERT_LE(0, kb_before) TH_LOG("no %s in /proc/meminfo", field);
	EXPECT_TRUE(within(pages, kb_before / page_kb, kb_after / page_kb, slack))
		TH_LOG("%s: meminfo %lld then %lld kB, census %llu kB, slack %llu pages",
		       field, kb_before, kb_after,
		       (unsigned long long)(pages * page_kb),
		       (unsigned long long)slack);
}

struct meminfo {
	long long free, anon, swapcached, shmem, cached, buffers, slab,
		  pagetables, hugetlb, hp_free, hp_size;
};

static void read_meminfo(struct meminfo *m)
{
	m->free = meminfo_kb("MemFree");
	m->anon = meminfo_kb("AnonPages");
	m->swapcached = meminfo_kb("SwapCached");
	m->shmem = meminfo_kb("Shmem");
	m->cached = meminfo_kb("Cached");
	m->buffers = meminfo_kb("Buffers");
	m->slab = meminfo_kb("Slab");
	m->pagetables = meminfo_kb("PageTables");
	m->hugetlb = meminfo_kb("Hugetlb");
	m->hp_free = meminfo_kb("HugePages_Free");	/* pages of Hugepagesize */
	m->hp_size = meminfo_kb("Hugepagesize");
}

/*
 * The census against /proc/meminfo, read before and after it.  Slack, in
 * pages, for what meminfo counts differently:
 *  - MemFree (NR_FREE_PAGES): buddy pages, as the census; pageblocks
 *    being isolated (compaction, offlining) leave it: 256.
 *  - AnonPages (NR_ANON_MAPPED) counts anon pages as they are mapped and
 *    unmapped; the census, folios that are mapped, whole (a THP partly
 *    unmapped, a folio unmapped but not yet freed): 256.
 *  - SwapCached, Shmem, PageTables: the same pages, counted when they
 *    join or leave: 64.
 *  - Cached + Buffers = NR_FILE_PAGES - SwapCached, the page cache of
 *    files, block devices and shmem: the census's file and shmem, but
 *    folios truncated and not yet freed (still on the LRU): 512.
 *  - Slab (SReclaimable + SUnreclaim) counts large kmalloc() allocations
 *    too (over 8 KiB: whole pages from the page allocator), which are no
 *    slab pages; a 7.2 guest has a quarter of its Slab in them: 1/4 of
 *    Slab + 256.
 *  - Hugetlb and HugePages_Free: the pool, exactly (one page size).
 */
TEST_F_TIMEOUT(phys, reconciles_with_meminfo, PHYS_TIMEOUT)
{
	struct meminfo a, b;
	struct census c;
	long long nr_huge = 0;
	char buf[32];

	/* A hugetlb pool to count: it is the one class meminfo counts exactly. */
	if (!mw_read_file("/proc/sys/vm/nr_hugepages", buf, sizeof(buf)))
		nr_huge = atoll(buf);
	if (nr_huge < 4)
		ASSERT_EQ(0, mw_write_file("/proc/sys/vm/nr_hugepages", "8"));
	settle();
	read_meminfo(&a);
	ASSERT_EQ(0, take_census(_metadata, self->fd, self->runs, RUN_CAP, 0, 0, &c));
	read_meminfo(&b);

	expect_meminfo(_metadata, "MemFree", a.free, b.free,
		       c.pages[MEMWALK_PHYS_CLASS_FREE], 256);
	expect_meminfo(_metadata, "AnonPages", a.anon, b.anon, c.mapped_anon, 256);
	expect_meminfo(_metadata, "SwapCached", a.swapcached, b.swapcached, c.swapcache, 64);
	expect_meminfo(_metadata, "Shmem", a.shmem, b.shmem,
		       c.pages[MEMWALK_PHYS_CLASS_SHMEM], 64);
	expect_meminfo(_metadata, "Cached + Buffers", a.cached + a.buffers,
		       b.cached + b.buffers,
		       c.pages[MEMWALK_PHYS_CLASS_FILE] + c.pages[MEMWALK_PHYS_CLASS_SHMEM], 512);
	expect_meminfo(_metadata, "Slab", a.slab, b.slab, c.pages[MEMWALK_PHYS_CLASS_SLAB],
		       a.slab / 4 / (getpagesize() / 1024) + 256);
	expect_meminfo(_metadata, "PageTables", a.pagetables, b.pagetables,
		       c.pages[MEMWALK_PHYS_CLASS_PGTABLE], 64);
	expect_meminfo(_metadata, "Hugetlb", a.hugetlb, b.hugetlb,
		       c.pages[MEMWALK_PHYS_CLASS_HUGETLB], 0);
	ASSERT_LT(0, a.hp_size);
	expect_meminfo(_metadata, "HugePages_Free * Hugepagesize", a.hp_free * a.hp_size,
		       b.hp_free * b.hp_size, c.hugetlb_free, 0);
	EXPECT_NE(0, c.pages[MEMWALK_PHYS_CLASS_HUGETLB]);
	TH_LOG("kernel, other: %llu kB; KernelStack %lld + VmallocUsed %lld + Percpu %lld kB",
	       (unsigned long long)c.pages[MEMWALK_PHYS_CLASS_OTHER] * (getpagesize() / 1024),
	       meminfo_kb("KernelStack"), meminfo_kb("VmallocUsed"), meminfo_kb("Percpu"));
	if (nr_huge < 4) {
		snprintf(buf, sizeof(buf), "%lld", nr_huge);
		mw_write_file("/proc/sys/vm/nr_hugepages", buf);
	}
}

/*
 * Resumed by PFN, one record per call and in pieces cut at odd PFNs, the
 * census counts the same page frames as in one call, and classes within
 * what two one-call censuses around them saw, widened by how far the
 * kernel's own counters moved meanwhile (a class may go up and down
 * between the two: slab under KASAN's quarantine and kmemleak moved
 * ~900 pages, free up to 2300, within one census).
 */
TEST_F_TIMEOUT(phys, resumes_by_pfn, PHYS_TIMEOUT)
{
	struct census one, small, after, piece, sum = { 0 };
	struct mw_vmstat_range moved;
	uint64_t cut[4], i;
	int k;

	settle();
	ASSERT_EQ(0, mw_vmstat_range_start(&moved));
	ASSERT_EQ(0, take_census(_metadata, self->fd, self->runs, RUN_CAP, 0, 0, &one));
	ASSERT_EQ(0, take_census(_metadata, self->fd, self->runs, 1, 0, 0, &small));
	/* Inside buddy blocks and folios, mostly: odd PFNs. */
	cut[0] = 0;
	cut[1] = one.max_pfn / 3 + 1;
	cut[2] = one.max_pfn / 2 + 7;
	cut[3] = one.max_pfn;
	for (i = 0; i < 3; i++) {
		ASSERT_EQ(0, take_census(_metadata, self->fd, self->runs, 7, cut[i],
					 cut[i + 1], &piece));
		for (k = 0; k < NR_CLASSES; k++)
			sum.pages[k] += piece.pages[k];
		sum.total += piece.total;
	}
	ASSERT_EQ(0, take_census(_metadata, self->fd, self->runs, RUN_CAP, 0, 0, &after));
	ASSERT_EQ(0, mw_vmstat_range_stop(&moved));

	TH_LOG("one call: %llu records; one record per call: %llu calls; /proc/vmstat read %llu times: free moved %llu pages, slab %llu",
	       (unsigned long long)one.runs, (unsigned long long)small.calls,
	       (unsigned long long)moved.reads,
	       (unsigned long long)mw_vmstat_range_moved(&moved, MEMWALK_PHYS_CLASS_FREE),
	       (unsigned long long)mw_vmstat_range_moved(&moved, MEMWALK_PHYS_CLASS_SLAB));
	EXPECT_EQ(1, one.calls);
	EXPECT_EQ(small.runs, small.calls);
	EXPECT_EQ(one.total, small.total);
	EXPECT_EQ(one.total, sum.total);
	for (k = 0; k < NR_CLASSES; k++) {
		uint64_t slack = DEFAULT_SLACK + mw_vmstat_range_moved(&moved, k);

		expect_within(_metadata, "one record per call", mw_phys_class_names[k],
			      small.pages[k], one.pages[k], after.pages[k], slack);
		expect_within(_metadata, "in three pieces", mw_phys_class_names[k],
			      sum.pages[k], one.pages[k], after.pages[k], slack);
	}
}

static void phys_req(struct memwalk_phys *req, void *buf, size_t len)
{
	memset(req, 0, sizeof(*req));
	req->size = sizeof(*req);
	req->run_buf = (uintptr_t)buf;
	req->run_buf_len = len;
}

/* Each bad request, with its errno; nothing written back on failure. */
TEST_F_TIMEOUT(phys, bad_input, PHYS_TIMEOUT)
{
	struct memwalk_phys req;
	struct { struct memwalk_phys req; uint64_t tail; } big;
	size_t len = 16 * sizeof(*self->runs);
	uint64_t max;

	phys_req(&req, self->runs, len);
	ASSERT_EQ(0, phys_ioctl(self->fd, &req));
	max = req.max_pfn;
	ASSERT_LT(0, max);

	phys_req(&req, self->runs, len);
	req.size = MEMWALK_PHYS_SIZE_VER0 - 8;
	EXPECT_EQ(EINVAL, phys_ioctl(self->fd, &req));
	phys_req(&req, self->runs, len);
	req.size = getpagesize() + 8;
	EXPECT_EQ(E2BIG, phys_ioctl(self->fd, &req));
	phys_req(&big.req, self->runs, len);
	big.req.size = sizeof(big);
	big.tail = 1;
	EXPECT_EQ(E2BIG, phys_ioctl(self->fd, &big.req));
	big.tail = 0;	/* a longer struct with a zero tail is fine */
	EXPECT_EQ(0, phys_ioctl(self->fd, &big.req));
	EXPECT_EQ(sizeof(req), big.req.size);

	phys_req(&req, self->runs, len);
	req.flags = 1;
	EXPECT_EQ(EINVAL, phys_ioctl(self->fd, &req));
	phys_req(&req, self->runs, len);
	req.__reserved = 1;
	EXPECT_EQ(EINVAL, phys_ioctl(self->fd, &req));
	phys_req(&req, self->runs, len);
	req.start_pfn = max;
	EXPECT_EQ(EINVAL, phys_ioctl(self->fd, &req));
	EXPECT_EQ(0, req.next_pfn);
	phys_req(&req, self->runs, len);
	req.end_pfn = max + 1;
	EXPECT_EQ(EINVAL, phys_ioctl(self->fd, &req));
	phys_req(&req, self->runs, len);
	req.start_pfn = 100;
	req.end_pfn = 100;
	EXPECT_EQ(EINVAL, phys_ioctl(self->fd, &req));
	phys_req(&req, self->runs, sizeof(*self->runs) - 1);
	EXPECT_EQ(ENOSPC, phys_ioctl(self->fd, &req));
	phys_req(&req, NULL, len);
	EXPECT_EQ(EFAULT, phys_ioctl(self->fd, &req));
	phys_req(&req, (void *)8, len);
	EXPECT_EQ(EFAULT, phys_ioctl(self->fd, &req));
	EXPECT_EQ(EFAULT, phys_ioctl(self->fd, (void *)8));
}

/*
 * The top-level lines of "memwalk-client phys -J -o class,pages": each class's pages
 * into @pages (by mw_phys_class_names[], the client saying "pagetables" and
 * "kernel-other" for pgtable and other), and the total; the number of
 * classes found.  Only objects at depth 2 ({"phys": [ {...} ]}) count:
 * deeper ones are a class's parts.
 */
static int parse_client_json(const char *s, uint64_t *pages, uint64_t *total)
{
	static const char *const client_name[NR_CLASSES] = {
		"offline", "hwpoison", "free", "hugetlb", "slab", "pagetables", "zero",
		"reserved", "anon", "shmem", "file", "kernel-other",
	};
	char name[32] = "";
	int depth = 0, found = 0, k;
	unsigned long long v;

	for (; *s; s++) {
		if (*s == '{')
			depth++;
		else if (*s == '}')
			depth--;
		if (depth != 2)
			continue;
		if (!strncmp(s, "\"class\": \"", 10))
			sscanf(s + 10, "%31[^\"]", name);
		if (strncmp(s, "\"pages\": ", 9) || sscanf(s + 9, "%llu", &v) != 1)
			continue;
		if (!strcmp(name, "total"))
			*total = v;
		for (k = 0; k < NR_CLASSES; k++)
			if (!strcmp(name, client_name[k])) {
				pages[k] = v;
				found++;
			}
	}
	return found;
}

/*
 * The client's -J: every class's pages within what two censuses around
 * it saw, and its total the census's page frames.  The slack is the
 * client's own memory, there only while it runs: its heap, stack, the
 * data of its libraries and its page tables, taken from the free pages
 * and the per-CPU lists ("other"), some hundreds of pages.
 */
#define CLIENT_SLACK	1024

TEST_F_TIMEOUT(phys, client_json_matches_census, PHYS_TIMEOUT)
{
	/* Two columns: mw_run keeps 4 KiB of output. */
	const char *const argv[] = { mw_client_path(), "phys", "-J", "-b", "-o", "class,pages",
				     NULL };
	struct census before, after;
	uint64_t pages[NR_CLASSES] = { 0 }, total = 0;
	static struct mw_run r;
	int k;

	settle();
	ASSERT_EQ(0, take_census(_metadata, self->fd, self->runs, RUN_CAP, 0, 0, &before));
	ASSERT_EQ(0, mw_run(&r, 0, argv));
	ASSERT_EQ(0, take_census(_metadata, self->fd, self->runs, RUN_CAP, 0, 0, &after));
	ASSERT_EQ(0, mw_exit_code(&r)) TH_LOG("stderr: %s", r.err);
	ASSERT_EQ(NR_CLASSES, parse_client_json(r.out, pages, &total))
		TH_LOG("stdout: %s", r.out);
	EXPECT_EQ(before.total, total);
	for (k = 0; k < NR_CLASSES; k++)
		expect_within(_metadata, "client", mw_phys_class_names[k], pages[k], before.pages[k],
			      after.pages[k], CLIENT_SLACK);
}

static bool lab_mode(void)
{
	char buf[8];

	return !mw_read_file("/sys/module/memwalk/parameters/lab_mode", buf, sizeof(buf)) &&
	       buf[0] == 'Y';
}

/* As nobody: open /dev/memwalk and ask for a census; the errno. */
static int census_as_user(void *arg)
{
	struct memwalk_phys_run runs[4];
	struct memwalk_phys req;
	int fd = open(DEV, O_RDONLY | O_CLOEXEC), ret;

	if (fd < 0)
		return errno;
	phys_req(&req, runs, sizeof(runs));
	ret = phys_ioctl(fd, &req);
	close(fd);
	return ret;
}

/*
 * Unprivileged callers get no census, from the module's own check: the
 * node opened to everybody (lab mode does it, else it is done here),
 * without lab mode open() refuses, with it the request; the client says
 * why in one line and exits 2.
 */
TEST_F_TIMEOUT(phys, unprivileged_refused, PHYS_TIMEOUT)
{
	const char *const argv[] = { mw_client_path(), "phys", NULL };
	bool lab = lab_mode();
	struct mw_run r;

	if (!lab)
		ASSERT_EQ(0, chmod(DEV, 0666));
	EXPECT_EQ(EPERM, mw_as_user(MW_NOBODY, census_as_user, NULL));
	ASSERT_EQ(0, mw_run(&r, MW_NOBODY, argv));
	if (!lab)
		ASSERT_EQ(0, chmod(DEV, 0600));
	EXPECT_EQ(2, mw_exit_code(&r)) TH_LOG("stderr: %s", r.err);
	EXPECT_EQ(0, r.out[0]) TH_LOG("stdout: %s", r.out);
	if (lab) {
		EXPECT_NE(NULL, strstr(r.err, "phys: a census of physical memory needs root"))
			TH_LOG("stderr: %s", r.err);
	} else {
		EXPECT_NE(NULL, strstr(r.err, "need root (CAP_SYS_ADMIN)"))
			TH_LOG("stderr: %s", r.err);
	}
}

TEST_HARNESS_MAIN

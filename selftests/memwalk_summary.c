// SPDX-License-Identifier: GPL-2.0
/*
 * MEMWALK_IOC_VMA_SUMMARY against /proc/PID/smaps and smaps_rollup.
 *
 * The target is memwalk_target's states (anonymous pages, fork-shared COW
 * pages, shared anonymous memory, page cache of tmpfs and disk files, THP,
 * pages swapped to zram, shmem pages in swap, hugetlb pages, mlocked
 * pages, ...), started once and stopped (SIGSTOP), so it keeps still.
 * Every VMA's record must be what smaps prints for it, field by field, in
 * kB as smaps rounds each (Pss shifted down from 1/4096 bytes), and the
 * records summed must be what smaps_rollup prints.  smaps is read before
 * and after the call; if the two reads differ (a page moved meanwhile) the
 * comparison is taken again, a few times at most.
 *
 * Then the bad input, one error per test, with its errno, and lab mode:
 * the root variant runs as root, the lab variant (module loaded with
 * lab_mode=1, memwalk_labmode.h) on an fd opened by an unprivileged user
 * of a target of that user's, and must be refused others' processes as a
 * snapshot is (EACCES), and get the same counts as smaps shows its owner.
 */
#include "kselftest_harness.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <linux/memwalk.h>

#include "memwalk_idle.h"
#include "memwalk_labmode.h"
#include "memwalk_snapshot_lib.h"
#include "memwalk_util.h"

/*
 * Reads of records and smaps alike: a guest beside a busy host saw the
 * target change during each of 3 (LRU batches, reclaim), so more, with a
 * pause between them.
 */
#define ATTEMPTS	10
#define MAX_FIELDS	48
#define NR_RECS		4096

/* ---- smaps as printed: "Key:   N kB" per VMA ---------------------------- */

struct smaps_vma {
	uint64_t start, end;
	unsigned int nr;
	char key[MAX_FIELDS][24];
	uint64_t kb[MAX_FIELDS];
};

/* The kB of @key in @v, or -1 if smaps does not print it (older kernel). */
static int64_t smaps_get(const struct smaps_vma *v, const char *key)
{
	unsigned int i;

	for (i = 0; i < v->nr; i++)
		if (!strcmp(v->key[i], key))
			return (int64_t)v->kb[i];
	return -1;
}

/* /proc/PID/@file (smaps or smaps_rollup) into a malloc()ed array. */
static int smaps_parse(pid_t pid, const char *file, struct smaps_vma **out, size_t *nr)
{
	struct smaps_vma *vmas = NULL, *v = NULL, *p;
	size_t n = 0, cap = 0;
	char path[64], line[4400], key[64];
	unsigned long long a, b, kb;
	FILE *fp;

	snprintf(path, sizeof(path), "/proc/%d/%s", pid, file);
	fp = fopen(path, "re");
	if (!fp)
		return errno;
	while (fgets(line, sizeof(line), fp)) {
		if (sscanf(line, "%llx-%llx ", &a, &b) == 2 && strchr(line, ' ') &&
		    strchr(line, '-') < strchr(line, ' ')) {
			if (n == cap) {
				cap = cap ? 2 * cap : 64;
				p = realloc(vmas, cap * sizeof(*p));
				if (!p)
					break;
				vmas = p;
			}
			v = &vmas[n++];
			memset(v, 0, sizeof(*v));
			v->start = a;
			v->end = b;
			continue;
		}
		if (v && v->nr < MAX_FIELDS &&
		    sscanf(line, "%63[^:]: %llu kB", key, &kb) == 2 &&
		    strlen(key) < sizeof(v->key[0])) {
			snprintf(v->key[v->nr], sizeof(v->key[0]), "%s", key);
			v->kb[v->nr++] = kb;
		}
	}
	fclose(fp);
	*out = vmas;
	*nr = n;
	return vmas || !n ? 0 : ENOMEM;
}

static bool smaps_same(const struct smaps_vma *a, size_t na,
		       const struct smaps_vma *b, size_t nb)
{
	return na == nb && !memcmp(a, b, na * sizeof(*a));
}

/* ---- the request --------------------------------------------------------- */

static int sum_ioctl(int fd, struct memwalk_summary *req)
{
	return ioctl(fd, MEMWALK_IOC_VMA_SUMMARY, req) ? errno : 0;
}

/*
 * Every record of @pid's whole address space, @per_call records a call
 * at most, into @recs (NR_RECS); the number in *@nr.  0 or errno.
 */
static int sum_all(int fd, pid_t pid, size_t per_call,
		   struct memwalk_vma_summary *recs, size_t *nr)
{
	uint64_t start = 0;
	int ret;

	*nr = 0;
	do {
		struct memwalk_summary req = {
			.size = sizeof(req), .pid = pid, .start = start,
			.buf = (uintptr_t)(recs + *nr),
			.buf_len = per_call * sizeof(*recs),
		};

		if (*nr + per_call > NR_RECS)
			return E2BIG;
		ret = sum_ioctl(fd, &req);
		if (ret)
			return ret;
		if (req.rec_size != sizeof(*recs) || (req.walk_end && req.walk_end <= start))
			return EPROTO;
		*nr += req.nr_recs;
		start = req.walk_end;
	} while (start);
	return 0;
}

static uint64_t kb(uint64_t bytes)
{
	return bytes >> 10;
}

static uint64_t pss_kb(uint64_t pss)
{
	return pss >> MEMWALK_PSS_SHIFT >> 10;
}

/* smaps' keys and what a record says of each, in kB. */
struct field {
	const char *key;
	uint64_t (*of)(const struct memwalk_vma_summary *r);
};

#define BYTES(name, member) \
	static uint64_t f_##member(const struct memwalk_vma_summary *r) { return kb(r->member); }
#define PSS(name, member) \
	static uint64_t f_##member(const struct memwalk_vma_summary *r) { return pss_kb(r->member); }
BYTES("Rss", rss)
PSS("Pss", pss)
PSS("Pss_Dirty", pss_dirty)
BYTES("Shared_Clean", shared_clean)
BYTES("Shared_Dirty", shared_dirty)
BYTES("Private_Clean", private_clean)
BYTES("Private_Dirty", private_dirty)
BYTES("Referenced", referenced)
BYTES("Anonymous", anonymous)
BYTES("LazyFree", lazyfree)
BYTES("KSM", ksm)
BYTES("AnonHugePages", anon_thp)
BYTES("ShmemPmdMapped", shmem_thp)
BYTES("FilePmdMapped", file_thp)
BYTES("Shared_Hugetlb", shared_hugetlb)
BYTES("Private_Hugetlb", private_hugetlb)
BYTES("Swap", swap)
#undef BYTES
#undef PSS

static uint64_t f_locked(const struct memwalk_vma_summary *r)
{
	return r->flags & MEMWALK_VMA_LOCKED ? pss_kb(r->pss) : 0;
}

#define F(key, member) { key, f_##member }
static const struct field fields[] = {
	F("Rss", rss), F("Pss", pss), F("Pss_Dirty", pss_dirty),
	F("Shared_Clean", shared_clean), F("Shared_Dirty", shared_dirty),
	F("Private_Clean", private_clean), F("Private_Dirty", private_dirty),
	F("Referenced", referenced), F("Anonymous", anonymous),
	F("LazyFree", lazyfree), F("KSM", ksm), F("AnonHugePages", anon_thp),
	F("ShmemPmdMapped", shmem_thp), F("FilePmdMapped", file_thp),
	F("Shared_Hugetlb", shared_hugetlb), F("Private_Hugetlb", private_hugetlb),
	F("Swap", swap), F("Locked", locked),
};
#undef F

/* ---- the fixture ---------------------------------------------------------- */

FIXTURE(summary) {
	int fd;			/* the variant's: the unprivileged user's in lab */
	struct mw_target t;
	struct memwalk_vma_summary *recs;
};

FIXTURE_VARIANT(summary) {
	bool lab;		/* unprivileged opener and target (lab_mode=1) */
};

FIXTURE_VARIANT_ADD(summary, root) {
	.lab = false,
};

FIXTURE_VARIANT_ADD(summary, lab) {
	.lab = true,
};

/* One target for the whole program, built once, then only read. */
static struct mw_target summary_target = { .pid = -1, .to = -1, .from = -1 };
static struct mw_why target_why;
static int target_err = -1;

static void target_stop(void)
{
	mw_target_kill(&summary_target);
}

static void target_start(bool lab)
{
	const struct rlimit memlock = { 64 << 20, 64 << 20 };

	/* What root's target may do: mlock() (the mlocked region). */
	if (lab && setrlimit(RLIMIT_MEMLOCK, &memlock)) {
		target_err = errno;
		mw_why_set(&target_why, "RLIMIT_MEMLOCK: %s", strerror(errno));
		return;
	}
	/* The unprivileged target's files on the tmpfs; root's on the disk too. */
	target_err = mw_states_start(&summary_target, lab ? MW_NOBODY : 0,
				     lab ? NULL : mw_disk_dir(), &target_why);
	atexit(target_stop);
}

FIXTURE_SETUP(summary)
{
	struct memwalk_info info;
	struct mw_why why;
	int root_fd;

	self->fd = -1;
	ASSERT_EQ(0, geteuid()) TH_LOG("these tests need root");
	ASSERT_EQ(variant->lab, mw_lab_loaded())
		TH_LOG("main() runs only the variants of the loaded module");
	root_fd = mw_dev_open(&info, &why);
	ASSERT_LE(0, root_fd) TH_LOG("%s", why.msg);
	close(root_fd);
	ASSERT_TRUE(info.features & MEMWALK_FEAT_VMA_SUMMARY)
		TH_LOG("the module does not report MEMWALK_FEAT_VMA_SUMMARY");
	self->fd = mw_open_as(variant->lab ? MW_NOBODY : 0, MEMWALK_DEVICE_PATH,
			      O_RDONLY, &why);
	ASSERT_LE(0, self->fd) TH_LOG("%s", why.msg);
	ASSERT_EQ(0, target_err) TH_LOG("the states target: %s", target_why.msg);
	self->t = summary_target;
	self->recs = calloc(NR_RECS, sizeof(*self->recs));
	ASSERT_NE(NULL, self->recs);
}

FIXTURE_TEARDOWN(summary)
{
	free(self->recs);
	if (self->fd >= 0)
		close(self->fd);
}

/*
 * The records and /proc/PID/@file, read in turn twice each, all alike:
 * *@sm; @per_call records a call.  A process elsewhere in the guest that
 * maps a page the target shares (a library) only while the records are
 * read moves their Pss and not smaps' around them: the second read of
 * the records sees that.
 */
static void read_still(struct __test_metadata *_metadata, int fd, pid_t pid,
		       const char *file, size_t per_call,
		       struct memwalk_vma_summary *recs, size_t *nr,
		       struct smaps_vma **sm, size_t *nsm)
{
	struct memwalk_vma_summary *again = calloc(NR_RECS, sizeof(*again));
	struct smaps_vma *mid, *after;
	size_t nmid, nafter, nagain;
	int attempt;

	ASSERT_NE(NULL, again);
	for (attempt = 0; attempt < ATTEMPTS; attempt++) {
		bool same;

		ASSERT_EQ(0, smaps_parse(pid, file, sm, nsm));
		ASSERT_EQ(0, sum_all(fd, pid, per_call, recs, nr));
		ASSERT_EQ(0, smaps_parse(pid, file, &mid, &nmid));
		ASSERT_EQ(0, sum_all(fd, pid, per_call, again, &nagain));
		ASSERT_EQ(0, smaps_parse(pid, file, &after, &nafter));
		same = smaps_same(*sm, *nsm, mid, nmid) &&
		       smaps_same(*sm, *nsm, after, nafter) && *nr == nagain &&
		       !memcmp(recs, again, *nr * sizeof(*recs));
		free(mid);
		free(after);
		if (same) {
			free(again);
			return;
		}
		free(*sm);
		usleep(100 * 1000);
	}
	free(again);
	ASSERT_TRUE(false) TH_LOG("%s of %d changed during each of %d attempts",
				  file, pid, ATTEMPTS);
}

/* Every field smaps prints of @v equals the record's (but @skip). */
static void expect_fields(struct __test_metadata *_metadata,
			  const struct smaps_vma *v, const struct memwalk_vma_summary *r,
			  const char *skip, size_t *compared)
{
	size_t f;

	for (f = 0; f < sizeof(fields) / sizeof(fields[0]); f++) {
		int64_t want = smaps_get(v, fields[f].key);

		if (want < 0 || (skip && !strcmp(skip, fields[f].key)))
			continue;	/* not printed by this kernel */
		++*compared;
		EXPECT_EQ((uint64_t)want, fields[f].of(r))
			TH_LOG("VMA %llx-%llx: smaps %s %lld kB, summary %llu kB",
			       (unsigned long long)v->start, (unsigned long long)v->end,
			       fields[f].key, (long long)want,
			       (unsigned long long)fields[f].of(r));
	}
}

/* The regions whose states the comparison must cover, and what they give. */
static const struct {
	const char *region;
	const char *key;	/* nonzero in the VMA holding the region */
} covered[] = {
	{ "anon_touched", "Private_Dirty" },
	{ "cow_before", "Shared_Dirty" },	/* shared with the forked child */
	{ "shared_anon", "Rss" },		/* shmem */
	{ "file_scattered", "Rss" },		/* page cache */
	{ "thp", "AnonHugePages" },
	{ "swapped", "Swap" },			/* zram */
	{ "shmem_swapped", "Swap" },		/* shmem pages in swap, no entry */
	{ "hugetlb", "Private_Hugetlb" },
	{ "mlocked", "Locked" },
};

/* Each VMA's record is what smaps prints for it, field by field. */
TEST_F(summary, every_vma_equals_smaps)
{
	struct smaps_vma *sm;
	size_t nr, nsm, i, j = 0, compared = 0;

	for (i = 0; i < sizeof(covered) / sizeof(covered[0]); i++)
		MW_REGION(&self->t, covered[i].region);
	read_still(_metadata, self->fd, self->t.pid, "smaps", NR_RECS, self->recs,
		   &nr, &sm, &nsm);
	for (i = 0; i < nsm; i++) {
		if (sm[i].start >= mw_task_size)
			continue;	/* [vsyscall]: outside user space */
		ASSERT_LT(j, nr);
		EXPECT_EQ(sm[i].start, self->recs[j].start);
		EXPECT_EQ(sm[i].end, self->recs[j].end);
		expect_fields(_metadata, &sm[i], &self->recs[j], NULL, &compared);
		j++;
	}
	EXPECT_EQ(j, nr);
	EXPECT_LT(10 * nr, compared);
	/* Each known state is there, and counted where smaps counts it. */
	for (i = 0; i < sizeof(covered) / sizeof(covered[0]); i++) {
		const struct mw_region *reg = mw_target_region(&self->t, covered[i].region);
		const char *why = mw_region_unsupported(covered[i].region);

		if (why) {	/* e.g. no THP under PREEMPT_RT */
			ksft_print_msg("region %s not covered: %s\n", covered[i].region, why);
			continue;
		}
		for (j = 0; j < nsm; j++)
			if (sm[j].start <= reg->start && reg->start < sm[j].end)
				break;
		ASSERT_LT(j, nsm);
		EXPECT_LT(0, smaps_get(&sm[j], covered[i].key))
			TH_LOG("region %s: smaps %s is 0", covered[i].region, covered[i].key);
	}
	free(sm);
}

/* Summed unrounded and shifted once, the records are smaps_rollup. */
TEST_F(summary, records_sum_to_smaps_rollup)
{
	struct memwalk_vma_summary sum = { 0 };
	struct smaps_vma *roll;
	size_t nr, nroll, i, compared = 0;
	uint64_t locked = 0;

	read_still(_metadata, self->fd, self->t.pid, "smaps_rollup", NR_RECS,
		   self->recs, &nr, &roll, &nroll);
	ASSERT_EQ(1, nroll);
	for (i = 0; i < nr; i++) {
		const struct memwalk_vma_summary *r = &self->recs[i];
		__u64 *d = &sum.rss;
		const __u64 *s = &r->rss;

		/* rss .. swap: every counter, all __u64 in a row */
		for (; s <= &r->swap; s++, d++)
			*d += *s;
		if (r->flags & MEMWALK_VMA_LOCKED)
			locked += r->pss;
	}
	/* Locked: the Pss of the locked VMAs */
	EXPECT_EQ((uint64_t)smaps_get(&roll[0], "Locked"), pss_kb(locked));
	EXPECT_LT(0, pss_kb(locked));
	expect_fields(_metadata, &roll[0], &sum, "Locked", &compared);
	EXPECT_EQ((uint64_t)smaps_get(&roll[0], "Pss_Anon"), pss_kb(sum.pss_anon));
	EXPECT_EQ((uint64_t)smaps_get(&roll[0], "Pss_File"), pss_kb(sum.pss_file));
	EXPECT_EQ((uint64_t)smaps_get(&roll[0], "Pss_Shmem"), pss_kb(sum.pss_shmem));
	EXPECT_LT(10, compared);
	free(roll);
}

/* One record a call: each call resumes where the last stopped, no VMA twice. */
TEST_F(summary, one_record_a_call_resumes)
{
	struct memwalk_vma_summary *whole;
	size_t nr, nwhole, i;

	whole = calloc(NR_RECS, sizeof(*whole));
	ASSERT_NE(NULL, whole);
	ASSERT_EQ(0, sum_all(self->fd, self->t.pid, NR_RECS, whole, &nwhole));
	ASSERT_EQ(0, sum_all(self->fd, self->t.pid, 1, self->recs, &nr));
	ASSERT_EQ(nwhole, nr);
	for (i = 0; i < nr; i++) {
		EXPECT_EQ(whole[i].start, self->recs[i].start);
		EXPECT_EQ(whole[i].end, self->recs[i].end);
		EXPECT_EQ(whole[i].rss, self->recs[i].rss);
		EXPECT_EQ(whole[i].swap, self->recs[i].swap);
	}
	free(whole);
}

/* uid and comm: the target's, as /proc/PID/status and comm tell. */
TEST_F(summary, reply_names_the_target)
{
	struct memwalk_summary req = {
		.size = sizeof(req), .pid = self->t.pid,
		.buf = (uintptr_t)self->recs, .buf_len = NR_RECS * sizeof(*self->recs),
	};
	char path[64], comm[32] = "";

	ASSERT_EQ(0, sum_ioctl(self->fd, &req));
	EXPECT_EQ(variant->lab ? MW_NOBODY : 0, req.uid);
	snprintf(path, sizeof(path), "/proc/%d/comm", self->t.pid);
	ASSERT_EQ(0, mw_read_file(path, comm, sizeof(comm)));
	comm[strcspn(comm, "\n")] = '\0';
	EXPECT_STREQ(comm, req.comm);
	EXPECT_EQ(0, req.walk_end);
	EXPECT_LT(10, req.nr_recs);
}

/* ---- young folios are referenced ------------------------------------------ */

/*
 * smaps counts a page referenced when its PTE is young, or its folio
 * referenced or young (smaps_account()).  Idle-page tracking and DAMON
 * (7.2 runs DAMON_STAT by default) leave folios young behind old PTEs:
 * the summary must count those too.  The anonymous pages touched once have
 * no PG_referenced, so they are counted only through the young flag.
 */
TEST_F(summary, young_folios_are_referenced)
{
	const struct mw_region *reg = MW_REGION(&self->t, "anon_touched");
	struct smaps_vma *roll, *sm;
	uint64_t referenced = 0;
	size_t nr, nroll, nsm, i, idle;

	MW_IDLE_MAKE(self->t.pid, reg, idle);
	/*
	 * The pages made idle had young PTEs (touched, then still): their
	 * folios are young now behind old PTEs, and smaps counts them.
	 */
	ASSERT_EQ(0, smaps_parse(self->t.pid, "smaps", &sm, &nsm));
	for (i = 0; i < nsm; i++)
		if (sm[i].start <= reg->start && reg->start < sm[i].end)
			break;
	ASSERT_LT(i, nsm);
	EXPECT_LE(idle * (MW_PAGE >> 10), (uint64_t)smaps_get(&sm[i], "Referenced"))
		TH_LOG("smaps counts fewer of anon_touched's VMA referenced than were made young");
	free(sm);
	read_still(_metadata, self->fd, self->t.pid, "smaps_rollup", NR_RECS,
		   self->recs, &nr, &roll, &nroll);
	ASSERT_EQ(1, nroll);
	for (i = 0; i < nr; i++)
		referenced += self->recs[i].referenced;
	EXPECT_EQ((uint64_t)smaps_get(&roll[0], "Referenced"), kb(referenced));
	free(roll);
}

/* ---- bad input: one error each, with its errno ------------------------------ */

/* The call with @req's fields on the target, or on @pid if nonzero: its errno. */
static int sum_with(FIXTURE_DATA(summary) *self, struct memwalk_summary req, pid_t pid)
{
	req.pid = pid ? pid : self->t.pid;
	if (!req.buf && req.buf_len)
		return sum_ioctl(self->fd, &req);
	if (!req.buf) {
		req.buf = (uintptr_t)self->recs;
		req.buf_len = NR_RECS * sizeof(*self->recs);
	}
	return sum_ioctl(self->fd, &req);
}

#define REQ(...) ((struct memwalk_summary){ .size = sizeof(struct memwalk_summary), __VA_ARGS__ })

TEST_F(summary, size_below_ver0_is_einval)
{
	EXPECT_EQ(EINVAL, sum_with(self, REQ(.size = MEMWALK_SUMMARY_SIZE_VER0 - 8), 0));
}

TEST_F(summary, size_above_a_page_is_e2big)
{
	EXPECT_EQ(E2BIG, sum_with(self, REQ(.size = 8192), 0));
}

TEST_F(summary, nonzero_unknown_tail_is_e2big)
{
	struct {
		struct memwalk_summary req;
		uint64_t tail;
	} big = { .req = REQ(.pid = self->t.pid, .buf = (uintptr_t)self->recs,
			     .buf_len = NR_RECS * sizeof(*self->recs)), .tail = 1 };

	big.req.size = sizeof(big);
	EXPECT_EQ(E2BIG, sum_ioctl(self->fd, &big.req));
	big.tail = 0;
	EXPECT_EQ(0, sum_ioctl(self->fd, &big.req));
}

TEST_F(summary, unknown_flags_are_einval)
{
	EXPECT_EQ(EINVAL, sum_with(self, REQ(.flags = 1), 0));
}

TEST_F(summary, reserved_set_is_einval)
{
	EXPECT_EQ(EINVAL, sum_with(self, REQ(.__reserved = 1), 0));
}

TEST_F(summary, unaligned_start_is_einval)
{
	EXPECT_EQ(EINVAL, sum_with(self, REQ(.start = 1), 0));
}

TEST_F(summary, empty_range_is_einval)
{
	EXPECT_EQ(EINVAL, sum_with(self, REQ(.start = 0x200000, .end = 0x200000), 0));
}

TEST_F(summary, end_beyond_user_space_is_einval)
{
	EXPECT_EQ(EINVAL, sum_with(self, REQ(.end = mw_task_size + 4096), 0));
}

TEST_F(summary, buffer_below_a_record_is_enospc)
{
	EXPECT_EQ(ENOSPC, sum_with(self, REQ(.buf = (uintptr_t)self->recs,
					     .buf_len = sizeof(*self->recs) - 8), 0));
}

TEST_F(summary, null_buffer_with_a_length_is_efault)
{
	EXPECT_EQ(EFAULT, sum_with(self, REQ(.buf_len = sizeof(*self->recs)), 0));
}

TEST_F(summary, unmapped_buffer_is_efault)
{
	EXPECT_EQ(EFAULT, sum_with(self, REQ(.buf = 4096, .buf_len = 4096), 0));
}

TEST_F(summary, no_such_pid_is_esrch)
{
	EXPECT_EQ(ESRCH, sum_with(self, REQ(), mw_free_pid()));
}

/* kthreadd (pid 2) has no mm: as process_vm_readv(), ESRCH. */
TEST_F(summary, kernel_thread_is_esrch)
{
	EXPECT_EQ(ESRCH, sum_with(self, REQ(), 2));
}

/* Another user's process (init, root's): refused in lab mode, as a snapshot. */
TEST_F(summary, others_process_refused_in_lab_mode)
{
	struct memwalk_snapshot snap = {
		.size = sizeof(snap), .flags = MEMWALK_SNAP_VMAS, .pid = 1,
		.vma_buf = (uintptr_t)self->recs, .vma_buf_len = 4096,
	};
	int snap_err = ioctl(self->fd, MEMWALK_IOC_SNAPSHOT, &snap) ? errno : 0;

	EXPECT_EQ(variant->lab ? EACCES : 0, sum_with(self, REQ(), 1));
	EXPECT_EQ(snap_err, sum_with(self, REQ(), 1));
}

MW_LAB_HARNESS_MAIN(summary, target_start)

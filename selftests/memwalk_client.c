// SPDX-License-Identifier: GPL-2.0
/*
 * memwalk-client against the kernel's own answers on memwalk_target's
 * states: its pmap-like columns against smaps, and the PFNs of its
 * entry-only page listing against pagemap.  The client's behaviour on
 * its own (options, JSON, errors) is tested on the host
 * (userspace/tests); these need the module, so they run in the VM.
 *
 * Needs root and the module loaded.  Environment: MEMWALK_CLIENT (default
 * /bin/memwalk-client), MEMWALK_TMPFS, MEMWALK_DISK, MEMWALK_TARGET.
 */
#include "kselftest_harness.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/memwalk.h>

#include "memwalk_idle.h"
#include "memwalk_snapshot_lib.h"
#include "memwalk_util.h"

FIXTURE(client) {
	struct mw_target t;
};

FIXTURE_SETUP(client)
{
	struct memwalk_info info;
	struct mw_why why;
	int fd;

	self->t.pid = -1;
	self->t.to = self->t.from = -1;
	ASSERT_EQ(0, geteuid()) TH_LOG("these tests need root");
	ASSERT_EQ(0, access(mw_client_path(), X_OK)) TH_LOG("%s: %s", mw_client_path(),
							    strerror(errno));
	fd = mw_dev_open(&info, &why);
	ASSERT_LE(0, fd) TH_LOG("%s", why.msg);
	close(fd);
	ASSERT_EQ(0, mw_states_start(&self->t, 0, mw_disk_dir(), &why)) TH_LOG("%s", why.msg);
}

FIXTURE_TEARDOWN(client)
{
	mw_target_kill(&self->t);
}

/*
 * memwalk-client PID -o ... -n -b: one line per VMA, its sizes (bytes) equal to
 * smaps (Size, Rss, Pss, Shared_Dirty + Private_Dirty, Swap, Anonymous,
 * the three PmdMapped, the two Hugetlb, Referenced), its mode and mapping
 * equal to maps ("[ anon ]" for a VMA without a name).
 */
static void columns_equal_smaps(struct __test_metadata *_metadata,
				FIXTURE_DATA(client) *self)
{
	char pidstr[16];
	const char *argv[] = { mw_client_path(), pidstr, "-o",
			       "address,kbytes,rss,pss,dirty,swap,anon,thp,hugetlb,referenced,mode,mapping",
			       "-n", "-b", NULL };
	struct mw_smaps *sm;
	char *out, *err, *line, *save;
	size_t nr, i = 0, n = 0;
	int status;

	snprintf(pidstr, sizeof(pidstr), "%d", self->t.pid);
	ASSERT_EQ(0, mw_smaps_read(self->t.pid, &sm, &nr));
	ASSERT_EQ(0, mw_capture(argv, &status, &out, &err));
	ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
		TH_LOG("status %#x, stderr: %s", status, err);
	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		unsigned long long addr, v[10];
		const struct mw_smaps *m;
		const char *mapping;
		char mode[8];
		int pos = 0, k;

		ASSERT_EQ(12, sscanf(line, "%llx %llu %llu %llu %llu %llu %llu %llu %llu %llu %7s %n",
				     &addr, &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6],
				     &v[7], &v[8], mode, &pos) + !!pos) TH_LOG("line: %s", line);
		/* -b: bytes, where smaps says kB */
		for (k = 0; k < 9; k++) {
			EXPECT_EQ(0, v[k] % 1024) TH_LOG("not whole kB: %s", line);
			v[k] /= 1024;
		}
		while (i < nr && sm[i].map.start != addr)
			i++;
		ASSERT_LT(i, nr) TH_LOG("no smaps VMA at %llx", addr);
		m = &sm[i++];
		mapping = m->map.name[0] ? m->map.name : "[ anon ]";
		EXPECT_EQ(m->size, v[0]) TH_LOG("kbytes: %s", line);
		EXPECT_EQ(m->rss, v[1]) TH_LOG("rss: %s", line);
		EXPECT_EQ(m->pss, v[2]) TH_LOG("pss: %s", line);
		EXPECT_EQ(m->shared_dirty + m->private_dirty, v[3]) TH_LOG("dirty: %s", line);
		EXPECT_EQ(m->swap, v[4]) TH_LOG("swap: %s", line);
		EXPECT_EQ(m->anonymous, v[5]) TH_LOG("anon: %s", line);
		EXPECT_EQ(m->anon_huge + m->shmem_pmd + m->file_pmd, v[6]) TH_LOG("thp: %s", line);
		EXPECT_EQ(m->shared_hugetlb + m->private_hugetlb, v[7]) TH_LOG("hugetlb: %s", line);
		EXPECT_EQ(m->referenced, v[8]) TH_LOG("referenced: %s", line);
		EXPECT_STREQ(m->map.perms, mode) TH_LOG("%s", line);
		EXPECT_STREQ(mapping, line + pos) TH_LOG("%s", line);
		n++;
	}
	EXPECT_LT(20, n);
	free(out);
	free(err);
	free(sm);
}

TEST_F(client, client_columns_equal_smaps)
{
	columns_equal_smaps(_metadata, self);
}

/*
 * The same after anon_touched's pages were made idle (idle-page tracking,
 * or DAMON, which 7.2 runs from boot as DAMON_STAT): their accessed bits
 * cleared and their folios young, which smaps counts as referenced and the
 * client learns from MEMWALK_RUN_FOLIO_YOUNG.  Touched once and never
 * again, those pages have no PG_referenced to be counted by instead.
 */
TEST_F(client, young_folios_count_as_referenced)
{
	size_t idle;

	MW_IDLE_MAKE(self->t.pid, MW_REGION(&self->t, "anon_touched"), idle);
	columns_equal_smaps(_metadata, self);
}

/*
 * memwalk-client PID --entry-only --pages, which takes PFN lists: every
 * present page of every run at the PFN pagemap gives, the zero page
 * region's pages (listed by the module: one PFN throughout) included.
 */
TEST_F(client, client_entry_only_pfns_equal_pagemap)
{
	const struct mw_region *zero = MW_REGION(&self->t, "zero");
	char pidstr[16];
	const char *argv[] = { mw_client_path(), pidstr, "--entry-only", "--pages", "-n", NULL };
	char *out, *err, *line, *save;
	size_t compared = 0, bad = 0, zero_pages = 0;
	struct mw_logcap cap = MW_LOGCAP(MW_LOG_FIRST);
	int status;

	snprintf(pidstr, sizeof(pidstr), "%d", self->t.pid);
	ASSERT_EQ(0, mw_capture(argv, &status, &out, &err));
	ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
		TH_LOG("status %#x, stderr: %s", status, err);
	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		unsigned long long start, end, pages, pfn, k;
		char state[16], pfnstr[64];
		uint64_t pm[512];

		/* "  START-END PAGES STATE LEVEL BITS TYPE PFN ..." under each VMA */
		if (strncmp(line, "  ", 2) ||
		    sscanf(line, "%llx-%llx %llu %15s %*s %*s %*s %63s", &start, &end, &pages,
			   state, pfnstr) != 5 || strcmp(state, "present"))
			continue;
		pfn = strtoull(pfnstr, NULL, 16);
		for (k = 0; k < pages; k += 512) {
			size_t n = pages - k < 512 ? pages - k : 512, i;

			ASSERT_EQ(0, mw_pagemap_read(self->t.pid, start + k * MW_PAGE, n, pm));
			for (i = 0; i < n; i++, compared++) {
				if ((pm[i] & PM_PRESENT) && (pm[i] & PM_PFN_MASK) == pfn + k + i)
					continue;
				bad++;
				MW_LOG_CAPPED(&cap, "page %#llx: pagemap %#llx; client: %s",
					      start + (k + i) * MW_PAGE, (unsigned long long)pm[i],
					      line);
			}
		}
		if (start >= zero->start && end <= zero->end)
			zero_pages += pages;
	}
	MW_LOG_REST(&cap, "pages differ from pagemap");
	EXPECT_EQ(0, bad) TH_LOG("%zu of %zu pages differ from pagemap", bad, compared);
	EXPECT_LT(1000, compared);
	EXPECT_EQ((zero->end - zero->start) >> MW_PAGE_SHIFT, zero_pages);
	free(out);
	free(err);
}

/*
 * memwalk-client translate decodes each architecture's entries (x86-64,
 * arm64; lib/ptedecode.c): the physical address it computes from the leaf
 * entry is pagemap's PFN for the page, in every region of the target where
 * a page is present (PTE pages, THP and hugetlb blocks, shmem, file).
 */
TEST_F(client, translate_physical_address_equals_pagemap)
{
	char pidstr[16], addrstr[32];
	const char *argv[] = { mw_client_path(), "translate", pidstr, addrstr, NULL };
	size_t compared = 0, r;
	int status;

	snprintf(pidstr, sizeof(pidstr), "%d", self->t.pid);
	for (r = 0; r < self->t.nr_regions; r++) {
		const struct mw_region *reg = &self->t.regions[r];
		unsigned long long phys = 0;
		uint64_t addr, pm = 0;
		char *out, *err, *line;

		/* the region's first present page, and an offset inside it */
		for (addr = reg->start; addr < reg->end; addr += MW_PAGE)
			if (!mw_pagemap_read(self->t.pid, addr, 1, &pm) && (pm & PM_PRESENT))
				break;
		if (addr >= reg->end || !(pm & PM_PFN_MASK))
			continue;
		snprintf(addrstr, sizeof(addrstr), "%#llx", (unsigned long long)addr + 0x123);
		ASSERT_EQ(0, mw_capture(argv, &status, &out, &err));
		ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
			TH_LOG("translate %s %s: status %#x, stderr: %s", pidstr, addrstr, status, err);
		line = strstr(out, "physical address: ");
		EXPECT_TRUE(line && sscanf(line, "physical address: %llx", &phys) == 1)
			TH_LOG("region %s: no physical address decoded:\n%s", reg->name, out);
		EXPECT_EQ((pm & PM_PFN_MASK) * MW_PAGE + 0x123, phys)
			TH_LOG("region %s at %s: pagemap %#llx:\n%s", reg->name, addrstr,
			       (unsigned long long)pm, out);
		compared++;
		free(out);
		free(err);
	}
	EXPECT_LE(5, compared) TH_LOG("only %zu regions had a present page", compared);
}

TEST_HARNESS_MAIN

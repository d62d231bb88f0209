// SPDX-License-Identifier: GPL-2.0
/*
 * gen-snapshot: a synthetic snapshot of a large process, written as the
 * client writes -J (through lib/snapjson.c), for the benchmark of `show`
 * (scripts/bench.sh) and the host tests that read it back.
 *
 *   gen-snapshot VMAS RUNS_PER_VMA > FILE
 *
 * VMAS VMAs of RUNS_PER_VMA runs each, in the states a real process has
 * (anon 4K pages with scattered PFNs, THP, swap, page cache; file VMAs
 * named by a path, anon ones unnamed): neighbouring runs differ, as the
 * kernel's would.  The same arguments give the same file.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "print.h"
#include "snapjson.h"

#define PAGE		4096ULL
#define BASE		0x7f0000000000ULL

/* xorshift64: reproducible PFNs without libc's rand() state */
static uint64_t next(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void make_run(struct memwalk_page_run *r, uint64_t start, size_t i,
		     bool file, uint64_t *seed)
{
	memset(r, 0, sizeof(*r));
	r->start = start;
	r->pfn = next(seed) % (1ULL << 30);
	r->lru_gen = (int8_t)(i % 4);
	r->nid = 0;
	switch (i % 8) {
	case 5:		/* in swap: type 0, offset in pfn */
		r->flags = MEMWALK_STATE_SWAP | MEMWALK_RUN_ANON;
		r->lru_gen = -1;
		return;
	case 7:		/* one THP page's worth, PMD-mapped */
		if (!file) {
			r->flags = MEMWALK_STATE_PRESENT |
				   (MEMWALK_LEVEL_PMD << MEMWALK_RUN_LEVEL_SHIFT) |
				   MEMWALK_RUN_ANON | MEMWALK_RUN_DIRTY |
				   MEMWALK_RUN_ACCESSED;
			r->folio_flags = 1U << MEMWALK_KPF_ANON |
					 1U << MEMWALK_KPF_THP |
					 1U << MEMWALK_KPF_SWAPBACKED;
			r->mapcount = 1;
			r->refcount = 1;
			r->order = 9;
			return;
		}
		break;
	}
	r->flags = MEMWALK_STATE_PRESENT | MEMWALK_RUN_ACCESSED |
		   (file ? MEMWALK_RUN_FILE : MEMWALK_RUN_ANON | MEMWALK_RUN_DIRTY);
	r->folio_flags = file ? 1U << MEMWALK_KPF_LRU | 1U << MEMWALK_KPF_UPTODATE :
			 1U << MEMWALK_KPF_ANON | 1U << MEMWALK_KPF_SWAPBACKED |
			 1U << MEMWALK_KPF_LRU;
	r->mapcount = 1 + i % 2;
	r->refcount = r->mapcount;
}

static size_t run_pages(size_t i, bool file)
{
	return i % 8 == 7 && !file ? 512 : 1 + i % 3;
}

int main(int argc, char **argv)
{
	struct mw_snapshot *snap = mw_snapshot_new();
	uint64_t addr = BASE, seed = 0x9e3779b97f4a7c15ULL;
	unsigned long nr_vmas, nr_runs;
	char *end1, *end2;
	size_t v, i;

	if (argc != 3 || !(nr_vmas = strtoul(argv[1], &end1, 10)) || *end1 ||
	    !(nr_runs = strtoul(argv[2], &end2, 10)) || *end2) {
		fprintf(stderr, "usage: %s VMAS RUNS_PER_VMA > FILE\n", argv[0]);
		return 1;
	}
	if (!snap)
		goto out_oom;
	snap->generator = mw_strdup("gen-snapshot");
	snap->module_version = mw_strdup("0.1.0");
	snap->uapi_version = MEMWALK_UAPI_VERSION;
	snap->release = mw_strdup("6.12.0-synthetic");
	snap->machine = mw_strdup("x86_64");
	snap->page_size = PAGE;
	snap->pgtable_levels = 4;
	snap->time_ns = 1795428000000000000ULL;
	snap->pid = 4242;
	snap->comm = mw_strdup("synthetic");
	snap->flags = MEMWALK_SNAP_VMAS | MEMWALK_SNAP_PAGES | MEMWALK_SNAP_FOLIO;
	snap->cost.calls = 1;
	if (!snap->generator || !snap->module_version || !snap->release ||
	    !snap->machine || !snap->comm)
		goto out_oom;

	for (v = 0; v < nr_vmas; v++) {
		bool file = v % 4 == 1;
		char name[96];
		struct mw_vma tmpl = {
			.flags = MEMWALK_VMA_READ | MEMWALK_VMA_MAYREAD |
				 (file ? MEMWALK_VMA_FILE :
				  MEMWALK_VMA_WRITE | MEMWALK_VMA_MAYWRITE | MEMWALK_VMA_ANON),
			.page_shift = 12,
			.name_kind = file ? MEMWALK_NAME_FILE : MEMWALK_NAME_NONE,
			.name = name,
		};
		struct mw_vma *vma;
		uint64_t a;

		/* THP runs start 2 MiB aligned; a guard page between VMAs */
		addr = (addr + (2ULL << 20) - 1) & ~((2ULL << 20) - 1);
		tmpl.start = addr;
		for (a = addr, i = 0; i < nr_runs; i++) {
			if (run_pages(i, file) == 512)
				a = (a + (2ULL << 20) - 1) & ~((2ULL << 20) - 1);
			a += run_pages(i, file) * PAGE + PAGE;
		}
		tmpl.end = a;
		if (file) {
			snprintf(name, sizeof(name), "/usr/lib/x86_64-linux-gnu/libsynthetic-%zu.so.1", v);
			tmpl.ino = 1000 + v;
			tmpl.dev_major = 8;
			tmpl.dev_minor = 1;
		} else {
			name[0] = '\0';
		}
		vma = mw_snapshot_add_vma(snap, &tmpl);
		if (!vma)
			goto out_oom;
		for (a = addr, i = 0; i < nr_runs; i++) {
			struct memwalk_page_run r;

			if (run_pages(i, file) == 512)
				a = (a + (2ULL << 20) - 1) & ~((2ULL << 20) - 1);
			make_run(&r, a, i, file, &seed);
			r.nr_pages = run_pages(i, file);
			if (mw_vma_add_run(vma, &r))
				goto out_oom;
			a += r.nr_pages * PAGE + PAGE;
		}
		addr = tmpl.end + PAGE;
	}
	mw_snapshot_print_json(snap);
	mw_snapshot_free(snap);
	return fflush(stdout) || ferror(stdout) ? 1 : 0;

out_oom:
	fprintf(stderr, "%s: out of memory\n", argv[0]);
	return 1;
}

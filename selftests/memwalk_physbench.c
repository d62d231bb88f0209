// SPDX-License-Identifier: GPL-2.0
/*
 * make bench, phys half: the census of all physical memory
 * (MEMWALK_IOC_PHYS, resumed until done, each record added to its class)
 * against reading /proc/kpageflags for every PFN in 64 Ki-entry preads,
 * as page-types -a does, (a) alone and (b) with each entry put in the
 * same classes (what a tool needs to give the census's answer).  In the
 * same run, the best of MEMWALK_BENCH_REPS (default 5) of each; and the
 * output each produces per GiB of RAM.
 *
 * Under TCG only the ratios mean anything (the guest runs with -icount:
 * its clock counts instructions); absolute times are for the record.  The
 * ratio depends on the guest: free memory comes in buddy blocks of up to
 * 4 MiB, each one record, while slab and scattered anon pages are a record
 * every page or few.  So the run prints where the records went.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>

#include <linux/memwalk.h>

#include "memwalk_phys_oracle.h"

#define RUN_BUF_RECORDS	4096		/* as the client asks */
#define KPF_BATCH	(64 << 10)	/* entries per pread, as page-types */
#define NR_CLASSES	MEMWALK_PHYS_NR_CLASSES

struct result {
	uint64_t pages[NR_CLASSES];
	uint64_t records[NR_CLASSES];
	uint64_t total, bytes, max_pfn;
	double secs;
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int census(int fd, struct memwalk_phys_run *buf, struct result *r)
{
	struct memwalk_phys req;
	uint64_t pfn = 0, end = 0, i;
	double t0 = now();

	memset(r, 0, sizeof(*r));
	do {
		memset(&req, 0, sizeof(req));
		req.size = sizeof(req);
		req.start_pfn = pfn;
		req.run_buf = (uintptr_t)buf;
		req.run_buf_len = RUN_BUF_RECORDS * sizeof(*buf);
		if (ioctl(fd, MEMWALK_IOC_PHYS, &req))
			return -errno;
		for (i = 0; i < req.nr_runs; i++) {
			if (buf[i].class >= NR_CLASSES)
				return -EPROTO;
			r->pages[buf[i].class] += buf[i].nr_pages;
			r->records[buf[i].class]++;
			r->total += buf[i].nr_pages;
		}
		r->bytes += req.nr_runs * req.run_size;
		end = r->max_pfn = req.max_pfn;
		if (req.next_pfn <= pfn)
			return -EPROTO;
		pfn = req.next_pfn;
	} while (pfn < end);
	r->secs = now() - t0;
	return 0;
}

/* Every PFN of [0, @end) from /proc/kpageflags; classified if @classify. */
static int kpageflags(uint64_t *buf, uint64_t end, bool classify, struct result *r)
{
	uint64_t pfn = 0, head = 0;
	double t0 = now();
	int fd = open("/proc/kpageflags", O_RDONLY);
	ssize_t n;

	memset(r, 0, sizeof(*r));
	if (fd < 0)
		return -errno;
	while (pfn < end) {
		size_t want = end - pfn < KPF_BATCH ? end - pfn : KPF_BATCH;

		n = pread(fd, buf, want * 8, pfn * 8);
		if (n <= 0) {
			close(fd);
			return n ? -errno : -EPROTO;
		}
		r->bytes += n;
		if (classify)
			r->total += mw_kpf_count(buf, n / 8, &head, r->pages);
		pfn += n / 8;
	}
	close(fd);
	r->secs = now() - t0;
	return 0;
}

static void best(struct result *b, const struct result *r, int rep)
{
	if (!rep || r->secs < b->secs)
		*b = *r;
}

int main(void)
{
	const char *s = getenv("MEMWALK_BENCH_REPS");
	int reps = s ? atoi(s) : 5, rep, fd, i, ret = 0;
	struct result c = { 0 }, k = { 0 }, kc = { 0 }, r;
	struct memwalk_phys_run *runs;
	uint64_t *kbuf, records = 0;
	double gib;

	fd = open(MEMWALK_DEVICE_PATH, O_RDONLY | O_CLOEXEC);
	runs = calloc(RUN_BUF_RECORDS, sizeof(*runs));
	kbuf = calloc(KPF_BATCH, sizeof(*kbuf));
	if (fd < 0 || !runs || !kbuf) {
		fprintf(stderr, "phys bench: cannot open %s or allocate: %s\n",
			MEMWALK_DEVICE_PATH, strerror(errno));
		return 1;
	}
	if (reps < 1)
		reps = 1;
	/* Interleaved, so that each sees the guest as the others do. */
	for (rep = 0; rep < reps && !ret; rep++) {
		ret = census(fd, runs, &r);
		if (ret)
			break;
		best(&c, &r, rep);
		ret = kpageflags(kbuf, c.max_pfn, false, &r);
		if (ret)
			break;
		best(&k, &r, rep);
		ret = kpageflags(kbuf, c.max_pfn, true, &r);
		best(&kc, &r, rep);
	}
	if (ret) {
		fprintf(stderr, "phys bench failed: %s\n", strerror(-ret));
		return 1;
	}
	for (i = 0; i < NR_CLASSES; i++)
		records += c.records[i];
	gib = (double)c.total * getpagesize() / (1 << 30);
	printf("# phys: %llu page frames (%.2f GiB) up to PFN %llu, %d reps, best of each\n",
	       (unsigned long long)c.total, gib, (unsigned long long)c.max_pfn, reps);
	for (i = 0; i < NR_CLASSES; i++)
		if (c.pages[i])
			printf("#   %-9s %9llu pages in %7llu records (%.1f pages each)\n",
			       mw_phys_class_names[i], (unsigned long long)c.pages[i],
			       (unsigned long long)c.records[i],
			       (double)c.pages[i] / c.records[i]);
	printf("phys census vs reading /proc/kpageflags (page-types -a): %.1fx faster (target >= 10x) (%.4f s vs %.4f s)\n",
	       k.secs / c.secs, c.secs, k.secs);
	printf("phys census vs kpageflags read and classified:           %.1fx faster (%.4f s vs %.4f s)\n",
	       kc.secs / c.secs, c.secs, kc.secs);
	printf("phys output per GiB of RAM: census %.0f B (%llu records of %zu B), kpageflags %.0f B: %.0fx smaller\n",
	       c.bytes / gib, (unsigned long long)records, sizeof(*runs), k.bytes / gib,
	       (double)k.bytes / c.bytes);
	free(runs);
	free(kbuf);
	close(fd);
	return 0;
}

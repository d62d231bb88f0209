// SPDX-License-Identifier: GPL-2.0
/*
 * libmemwalk: a process's smaps counts from MEMWALK_IOC_VMA_SUMMARY.
 *
 * The module counts each VMA with smaps' rules and returns one record per
 * VMA (Pss still in 1/4096 bytes); summing them unrounded is what
 * /proc/PID/smaps_rollup does before it prints.  A call stops when the
 * buffer is full, at a VMA boundary, and the next resumes there, so
 * records of successive calls never overlap and all are summed.  The
 * buffer belongs to the device handle and is kept for the next process.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "vmasummary.h"

#define SUM_BUF_RECS	256
#define SUM_BUF_MAX	(64 * 1024 * 1024)
/* The records' fields this client reads: all of version 0. */
#define REC_SIZE_MIN	MEMWALK_VMA_SUMMARY_SIZE_VER0

bool mw_vma_summary_supported(const struct mw_device *dev)
{
	return dev->info.features & MEMWALK_FEAT_VMA_SUMMARY;
}

static int bad_reply(struct mw_error *err, int32_t pid, const char *what,
		     uint64_t value)
{
	return mw_error_set(err, -EPROTO,
			    "summary of pid %d: the module returned %s (%#" PRIx64 ")",
			    pid, what, value);
}

/* The device's buffer, allocated for its first summary or doubled (ENOSPC). */
static int sum_buffer(struct mw_device *dev, bool grow)
{
	size_t len = dev->sum_len ? dev->sum_len : SUM_BUF_RECS * sizeof(struct memwalk_vma_summary);
	void *p;

	if (dev->sum_buf && !grow)
		return 0;
	if (grow) {
		if (len >= SUM_BUF_MAX)
			return -ENOSPC;
		len *= 2;
	}
	p = realloc(dev->sum_buf, len);
	if (!p)
		return -ENOMEM;
	dev->sum_buf = p;
	dev->sum_len = len;
	return 0;
}

/* One record into the totals; Locked is the Pss of locked VMAs. */
static void add_record(struct mw_smaps_stats *st, const struct memwalk_vma_summary *r)
{
	st->size += r->end - r->start;
	st->resident += r->rss;
	st->pss += r->pss;
	if (r->flags & MEMWALK_VMA_LOCKED)
		st->pss_locked += r->pss;
	st->pss_anon += r->pss_anon;
	st->pss_file += r->pss_file;
	st->pss_shmem += r->pss_shmem;
	st->shared_clean += r->shared_clean;
	st->shared_dirty += r->shared_dirty;
	st->private_clean += r->private_clean;
	st->private_dirty += r->private_dirty;
	st->referenced += r->referenced;
	st->anonymous += r->anonymous;
	st->lazyfree += r->lazyfree;
	st->ksm += r->ksm;
	st->anon_thp += r->anon_thp;
	st->shmem_thp += r->shmem_thp;
	st->file_thp += r->file_thp;
	st->shared_hugetlb += r->shared_hugetlb;
	st->private_hugetlb += r->private_hugetlb;
	st->swap += r->swap;
}

int mw_vma_totals(struct mw_device *dev, int32_t pid, struct mw_vma_totals *t,
		  struct mw_error *err)
{
	uint64_t start = 0, i, end_before = 0;
	int ret;

	memset(t, 0, sizeof(*t));
	if (!mw_vma_summary_supported(dev))
		return mw_error_set(err, -EOPNOTSUPP,
				    "the memwalk module (version %s) lacks the 'vma summary' feature",
				    dev->info.module_version);
	ret = sum_buffer(dev, false);
	for (;;) {
		struct memwalk_summary req = {
			.size = sizeof(req),
			.pid = pid,
			.start = start,
			.buf = (uintptr_t)dev->sum_buf,
			.buf_len = dev->sum_len,
		};

		if (ret)
			return mw_error_set(err, ret, "summary of pid %d: %s", pid,
					    ret == -ENOSPC ? "a record does not fit in the largest buffer" :
					    "out of memory");
		ret = mw_device_ioctl(dev, MEMWALK_IOC_VMA_SUMMARY, &req);
		if (ret == -ENOSPC) {
			ret = sum_buffer(dev, true);
			continue;
		}
		if (ret)
			return mw_pid_error(err, "summary", pid, -ret);
		if (req.nr_recs && (req.rec_size < REC_SIZE_MIN || req.rec_size % 8 ||
				    req.nr_recs > dev->sum_len / req.rec_size))
			return bad_reply(err, pid, "a bad rec_size or nr_recs", req.rec_size);
		if (req.walk_end && req.walk_end <= start)
			return bad_reply(err, pid, "a walk_end that does not advance",
					 req.walk_end);
		t->calls++;
		if (req.max_lock_ns > t->max_lock_ns)
			t->max_lock_ns = req.max_lock_ns;
		if (t->calls == 1) {
			t->uid = req.uid;
			memcpy(t->comm, req.comm, MEMWALK_COMM_LEN);
			t->comm[MEMWALK_COMM_LEN] = '\0';
		}
		for (i = 0; i < req.nr_recs; i++) {
			struct memwalk_vma_summary r;

			memcpy(&r, (char *)dev->sum_buf + i * req.rec_size, sizeof(r));
			if (r.start < end_before || r.end <= r.start ||
			    (req.walk_end && r.end > req.walk_end))
				return bad_reply(err, pid, "overlapping or misplaced records",
						 r.start);
			end_before = r.end;
			add_record(&t->st, &r);
		}
		if (!req.walk_end)
			return 0;
		start = req.walk_end;
	}
}

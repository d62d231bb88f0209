// SPDX-License-Identifier: GPL-2.0
/*
 * memwalk: MEMWALK_IOC_VMA_SUMMARY, what smaps counts for each VMA of a
 * process, without the page runs.
 *
 * The snapshot's walk (walk.c) and decoder (decode.h) with another sink:
 * the decoder merges pages into runs as it does for a snapshot (without
 * PFNs, so that pages alike in all else merge), and each run it closes is
 * counted (sum_fold()) into the record of the VMA it lies in, instead of
 * being kept.  The record is written to a bounce buffer and copied out
 * between lock holds (->flush), as snapshot.c does, because the caller
 * may be summarizing itself.  Memory: the state and at most SUM_BOUNCE
 * records per call, however large the target.
 *
 * The counting rules are smaps' (fs/proc/task_mmu.c), applied per run,
 * the same as the client's for a snapshot (userspace/lib/summary.c), so a
 * summary and a snapshot of a still process count alike (a young folio is
 * referenced: MEMWALK_RUN_FOLIO_YOUNG in a snapshot):
 *  - Swap: swap entries, and shmem pages in swap where no entry is.
 *  - Pages with a struct page smaps would count (present but the zero
 *    page and special entries; migration, device, hwpoison entries) are
 *    resident; PUD leaves outside hugetlb count for nothing (smaps does
 *    not walk them).
 *  - A run's pages are private when its folio's refcount is 1 or its
 *    mapcount below 2, or shared; non-present entries count whole and as
 *    shared; Pss is each page's size << PSS_SHIFT divided by its mapcount
 *    when shared, as smaps divides page by page.
 *  - PMD leaves also count for AnonHugePages, ShmemPmdMapped or
 *    FilePmdMapped by the folio's kind (device entries for none).
 *  - hugetlb VMAs count only Shared_Hugetlb/Private_Hugetlb.
 *
 * Locking: the walker's (walk.c); sum_fold() runs in its entry callbacks
 * under a page-table lock and touches only this call's state.
 */
#include <linux/cred.h>
#include <linux/errno.h>
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/sched/mm.h>
#include <linux/sched/task.h>
#include <linux/shmem_fs.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/uidgid.h>

#include "memwalk.h"

static_assert(sizeof(struct memwalk_summary) == MEMWALK_SUMMARY_SIZE_VER0);
static_assert(sizeof(struct memwalk_vma_summary) == MEMWALK_VMA_SUMMARY_SIZE_VER0);
static_assert(MEMWALK_COMM_LEN == TASK_COMM_LEN);

/*
 * Records per bounce buffer.  With the call's state they fit a 4 KiB
 * kmalloc: anything larger comes from the page allocator, zeroed a page
 * at a time where init_on_alloc is on (Debian's default), which cost more
 * than the whole walk of a small process.  A hold that finishes more VMAs
 * pauses to copy them out.
 */
#define SUM_BOUNCE	16

#define KPF_TEST(run, bit)	((run)->folio_flags & (1U << MEMWALK_KPF_##bit))

struct memwalk_sum {
	struct memwalk_summary req;
	struct memwalk_decoding dw;	/* its sink's ->fold set: no run is kept */

	/* Records: recs[nr - 1] is counted into while @counting. */
	u32 nr;
	u32 cap;
	u64 nr_out;		/* copied to the caller */
	u64 slots;		/* records the caller's buffer holds */
	bool counting;
	bool hugetlb;		/* of the VMA counted */
	unsigned long vm_start;	/* the VMA counted, as it was found */
	unsigned long vm_end;
	unsigned long vm_flags;
	struct memwalk_vma_summary recs[];
};

static_assert(sizeof(struct memwalk_sum) +
	      SUM_BOUNCE * sizeof(struct memwalk_vma_summary) <= 4096);

static struct memwalk_vma_summary *sum_cur(struct memwalk_sum *s)
{
	return &s->recs[s->nr - 1];
}

static bool run_is_anon(const struct memwalk_page_run *r)
{
	return (r->flags & MEMWALK_RUN_ANON) || KPF_TEST(r, ANON);
}

static bool run_is_shmem(const struct memwalk_page_run *r)
{
	return (r->flags & MEMWALK_RUN_SHMEM) || KPF_TEST(r, SWAPBACKED);
}

/* smaps_page_accumulate(): @bytes of @r, whose Pss is @pss. */
static void sum_accumulate(struct memwalk_vma_summary *rec,
			   const struct memwalk_page_run *r, u64 bytes, u64 pss,
			   bool dirty, bool private)
{
	rec->pss += pss;
	if (run_is_anon(r))
		rec->pss_anon += pss;
	else if (run_is_shmem(r))
		rec->pss_shmem += pss;
	else
		rec->pss_file += pss;
	if (dirty) {
		rec->pss_dirty += pss;
		if (private)
			rec->private_dirty += bytes;
		else
			rec->shared_dirty += bytes;
	} else {
		if (private)
			rec->private_clean += bytes;
		else
			rec->shared_clean += bytes;
	}
}

/* smaps_account(), for the pages of a run with a struct page. */
static void sum_account(struct memwalk_vma_summary *rec,
			const struct memwalk_page_run *r)
{
	unsigned int state = r->flags & MEMWALK_RUN_STATE_MASK;
	bool present = state == MEMWALK_STATE_PRESENT;
	bool dirty = (present && (r->flags & (MEMWALK_RUN_DIRTY |
					      MEMWALK_RUN_FOLIO_DIRTY))) ||
		     KPF_TEST(r, DIRTY);
	u64 bytes = (u64)r->nr_pages << PAGE_SHIFT;

	if (run_is_anon(r)) {
		rec->anonymous += bytes;
		if (!KPF_TEST(r, SWAPBACKED) && !dirty)
			rec->lazyfree += bytes;
	}
	if (KPF_TEST(r, KSM))
		rec->ksm += bytes;
	rec->rss += bytes;
	if ((present && (r->flags & MEMWALK_RUN_ACCESSED)) ||
	    KPF_TEST(r, REFERENCED))
		rec->referenced += bytes;

	if (r->refcount == 1 || !present)
		sum_accumulate(rec, r, bytes, bytes << MEMWALK_PSS_SHIFT, dirty,
			       present);
	else if (r->mapcount >= 2)
		sum_accumulate(rec, r, bytes,
			       r->nr_pages * div_u64((u64)PAGE_SIZE << MEMWALK_PSS_SHIFT,
						     r->mapcount),
			       dirty, false);
	else
		sum_accumulate(rec, r, bytes, bytes << MEMWALK_PSS_SHIFT, dirty,
			       true);
}

/* smaps_hugetlb_range(): present or pfn-swap entries, shared or not. */
static void sum_hugetlb(struct memwalk_vma_summary *rec,
			const struct memwalk_page_run *r)
{
	unsigned int state = r->flags & MEMWALK_RUN_STATE_MASK;
	u64 bytes = (u64)r->nr_pages << PAGE_SHIFT;

	if (state == MEMWALK_STATE_SWAP || state == MEMWALK_STATE_MARKER)
		return;
	if (state != MEMWALK_STATE_PRESENT || r->mapcount >= 2)
		rec->shared_hugetlb += bytes;
	else
		rec->private_hugetlb += bytes;
}

/* Whether smaps finds a struct page behind the run's entries. */
static bool run_has_page(const struct memwalk_page_run *r)
{
	switch (r->flags & MEMWALK_RUN_STATE_MASK) {
	case MEMWALK_STATE_PRESENT:
		return !(r->flags & (MEMWALK_RUN_ZERO | MEMWALK_RUN_SPECIAL));
	case MEMWALK_STATE_MIGRATION:
	case MEMWALK_STATE_DEVICE:
	case MEMWALK_STATE_HWPOISON:
		return true;
	default:
		return false;
	}
}

/* ->fold: a closed run, counted into the record of its VMA. */
static void sum_fold(struct memwalk_run_sink *sink,
		     const struct memwalk_page_run *r)
{
	struct memwalk_sum *s = container_of(sink, struct memwalk_sum, dw.sink);
	struct memwalk_vma_summary *rec = sum_cur(s);
	unsigned int state = r->flags & MEMWALK_RUN_STATE_MASK;
	u32 level = (r->flags & MEMWALK_RUN_LEVEL_MASK) >> MEMWALK_RUN_LEVEL_SHIFT;

	if (s->hugetlb) {
		sum_hugetlb(rec, r);
		return;
	}
	if (state == MEMWALK_STATE_SWAP || state == MEMWALK_STATE_SHMEM_SWAP) {
		rec->swap += (u64)r->nr_pages << PAGE_SHIFT;
		return;
	}
	if (level == MEMWALK_LEVEL_PUD || !run_has_page(r))
		return;
	if (level == MEMWALK_LEVEL_PMD && state != MEMWALK_STATE_DEVICE) {
		u64 bytes = (u64)r->nr_pages << PAGE_SHIFT;

		if (run_is_anon(r))
			rec->anon_thp += bytes;
		else if (run_is_shmem(r))
			rec->shmem_thp += bytes;
		else
			rec->file_thp += bytes;
	}
	sum_account(rec, r);
}

/* The open run, which the record counted last takes, is closed. */
static void sum_close_open(struct memwalk_sum *s)
{
	if (!s->dw.sink.have_open)
		return;
	sum_fold(&s->dw.sink, &s->dw.sink.open);
	s->dw.sink.have_open = false;
}

static bool sum_same_vma(const struct memwalk_sum *s,
			 const struct vm_area_struct *vma)
{
	return s->counting && s->vm_start == vma->vm_start &&
	       s->vm_end == vma->vm_end && s->vm_flags == vma->vm_flags;
}

/*
 * ->vma: the VMA counted on, after a lock drop, or a new record.  A VMA
 * that changed while the lock was dropped ends the record counted so far
 * where this one starts, so records never overlap.  Locking: mmap_lock
 * held.
 */
static int sum_vma(struct memwalk_walk *w, struct vm_area_struct *vma,
		   unsigned long start, unsigned long end)
{
	struct memwalk_sum *s = w->private;
	struct memwalk_vma_summary *rec;

	if (!sum_same_vma(s, vma)) {
		sum_close_open(s);
		if (s->counting && start < sum_cur(s)->end)
			sum_cur(s)->end = start;
		s->counting = false;
		if (s->nr_out + s->nr >= s->slots)
			return MEMWALK_WALK_STOP;
		if (s->nr == s->cap)
			return MEMWALK_WALK_PAUSE;
		rec = &s->recs[s->nr++];
		memset(rec, 0, sizeof(*rec));
		rec->start = start;
		rec->end = end;
		rec->flags = memwalk_vma_flags(vma);
		s->counting = true;
		s->hugetlb = is_vm_hugetlb_page(vma);
		s->vm_start = vma->vm_start;
		s->vm_end = vma->vm_end;
		s->vm_flags = vma->vm_flags;
	}
	/* smaps counts a shmem mapping's pages in swap for any reader. */
	memwalk_decoding_vma(&s->dw, vma, true);
	return MEMWALK_WALK_CONTINUE;
}

/*
 * ->flush: copy out the records done; the one still counted moves to the
 * front.  Locking: no lock held.
 */
static int sum_flush(struct memwalk_walk *w)
{
	struct memwalk_sum *s = w->private;
	u32 done = s->nr - (s->counting ? 1 : 0);
	void __user *dst;

	if (!done)
		return 0;
	dst = u64_to_user_ptr(s->req.buf + s->nr_out * sizeof(*s->recs));
	if (copy_to_user(dst, s->recs, done * sizeof(*s->recs)))
		return -EFAULT;
	s->nr_out += done;
	if (s->counting)
		s->recs[0] = s->recs[done];
	s->nr -= done;
	return 0;
}

static const struct memwalk_walk_ops sum_ops = {
	.vma		= sum_vma,
	.table		= memwalk_decoding_table,
	.pte_range	= memwalk_decoding_ptes,
	.pmd_entry	= memwalk_decoding_entry,
	.pud_entry	= memwalk_decoding_entry,
	.hugetlb_entry	= memwalk_decoding_entry,
	.flush		= sum_flush,
};

static int sum_check(const struct memwalk_summary *req)
{
	if (req->flags || req->__reserved ||
	    memwalk_range_check(req->start, req->end))
		return -EINVAL;
	if (req->buf_len && !req->buf)
		return -EFAULT;
	return 0;
}

/*
 * Count [start, end) of @mm; fills the out fields of s->req but uid and
 * comm.  Locking: none held; takes @mm's mmap_lock in chunks.
 */
static int sum_run(struct memwalk_sum *s, struct mm_struct *mm)
{
	int walked, ret;

	s->dw.walk.ops = &sum_ops;
	s->dw.walk.mm = mm;
	s->dw.walk.private = s;
	walked = memwalk_walk_request(&s->dw.walk, s->req.start, s->req.end);
	if (walked < 0)
		return walked;
	sum_close_open(s);
	s->counting = false;
	ret = sum_flush(&s->dw.walk);
	if (ret)
		return ret;
	s->req.walk_end = memwalk_walk_end(&s->dw.walk, s->req.end);
	/* Not one record fitted. */
	if (!s->nr_out && walked == MEMWALK_WALK_STOP)
		return -ENOSPC;
	s->req.nr_recs = s->nr_out;
	s->req.rec_size = sizeof(struct memwalk_vma_summary);
	s->req.lock_drops = s->dw.walk.lock_drops;
	s->req.max_lock_ns = s->dw.walk.max_lock_ns;
	s->req.total_lock_ns = s->dw.walk.total_lock_ns;
	return 0;
}

/**
 * memwalk_ioctl_summary() - MEMWALK_IOC_VMA_SUMMARY
 * @acc: the opener's access (chardev.c)
 * @uarg: the caller's struct memwalk_summary
 *
 * Locking: none held; sleeps.  Takes the target's mmap_lock for read in
 * bounded holds (walk.c) and copies to user space only between them.
 *
 * Return: 0, or -EINVAL/-E2BIG (bad struct), -EFAULT, -ESRCH/-EACCES
 * (target), -ENOSPC (not one record fits), -EINTR, -ENOMEM.
 */
long memwalk_ioctl_summary(const struct memwalk_access *acc,
			   struct memwalk_summary __user *uarg)
{
	struct task_struct *task;
	struct mm_struct *mm;
	struct memwalk_sum *s;
	u64 slots;
	u32 usize, cap;
	long ret;

	if (get_user(usize, &uarg->size))
		return -EFAULT;
	if (usize < MEMWALK_SUMMARY_SIZE_VER0)
		return -EINVAL;
	if (usize > PAGE_SIZE)
		return -E2BIG;
	if (get_user(slots, &uarg->buf_len))
		return -EFAULT;
	slots = div_u64(slots, sizeof(struct memwalk_vma_summary));
	cap = max_t(u64, 1, min_t(u64, slots, SUM_BOUNCE));

	/* The records are cleared as they are begun (sum_vma()). */
	s = kmalloc(struct_size(s, recs, cap), GFP_KERNEL_ACCOUNT);
	if (!s)
		return -ENOMEM;
	memset(s, 0, offsetof(struct memwalk_sum, recs));
	ret = copy_struct_from_user(&s->req, sizeof(s->req), uarg, usize);
	if (ret)
		goto out_free;
	ret = sum_check(&s->req);
	if (ret)
		goto out_free;

	s->slots = div_u64(s->req.buf_len, sizeof(struct memwalk_vma_summary));
	s->cap = min_t(u64, cap, s->slots);
	/* Folio state for Pss; no PFNs, so that pages alike merge. */
	s->dw.dec.folio = true;
	s->dw.dec.smaps = true;
	s->dw.dec.key_ignore = ~(BIT(PG_dirty) | BIT(PG_referenced) |
				 BIT(PG_swapbacked) | MW_PG_YOUNG_MASK);
	s->dw.dec.hide_pfn = true;
	s->dw.sink.slots = U64_MAX;
	s->dw.sink.fold = sum_fold;

	ret = memwalk_target(acc, s->req.pid, &mm, &task);
	if (ret)
		goto out_free;
	ret = sum_run(s, mm);
	mmput(mm);
	if (!ret) {
		s->req.uid = from_kuid_munged(acc->file->f_cred->user_ns,
					      task_euid(task));
		get_task_comm(s->req.comm, task);
	}
	put_task_struct(task);
	if (ret)
		goto out_free;

	s->req.size = min_t(u32, usize, sizeof(s->req));
	s->req.__pad = 0;	/* out: 0, whatever the caller left there */
	if (copy_to_user(uarg, &s->req, s->req.size))
		ret = -EFAULT;

out_free:
	kfree(s);
	return ret;
}

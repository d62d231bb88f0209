// SPDX-License-Identifier: GPL-2.0
/*
 * memwalk: MEMWALK_IOC_SNAPSHOT, the VMAs and page runs of a process.
 *
 * The walk (walk.c) fills kernel bounce buffers while the target's
 * mmap_lock is held and copies them out only after dropping it (->flush):
 * the caller may be snapshotting itself, and a page fault on its own mm
 * under that lock, or under a page-table lock, would deadlock or sleep in
 * atomic context.  Memory is bounded: at most RUN_BOUNCE_BYTES of runs,
 * VMA_BOUNCE_BYTES of VMA records, RUN_BOUNCE_BYTES of listed PFNs and one
 * name buffer per call, however large the target or the caller's buffers.
 *
 * Run merging (runs.c): a page joins the open run when every field
 * but start, pfn and nr_pages is equal, it follows the run's last page,
 * and (when PFNs are shown and the state carries one) its PFN or swap
 * offset follows the run's last one.  The decoder writes finished runs
 * straight into the bounce buffer (struct memwalk_run_sink); the open run
 * is kept out of it until it cannot grow, across entries, PTE ranges and
 * lock drops, and always has a slot kept in the caller's buffer, so what
 * was accepted is always written.  A listed run (MEMWALK_SNAP_PFN_LIST)
 * has its PFNs in a bounce buffer of their own, flushed with the runs; its
 * pfn is their index counted from the start of the caller's pfn_buf.
 * Both bounce buffers start at BOUNCE_FIRST_BYTES and grow each time they
 * filled up: most calls need little, and every allocation is zeroed
 * (init_on_alloc), which a small walk would notice.  For the same reason
 * an open file keeps the last call's state and buffers for the next one
 * (struct memwalk_file's spare): a client reading a large process in
 * many calls allocates once.  What is kept lives as long as the file, so
 * it is charged to the caller's memory cgroup (GFP_KERNEL_ACCOUNT): in
 * lab mode an unprivileged user could otherwise pin ~150K per open file.
 */
#include <linux/errno.h>
#include <linux/mm.h>
#include <linux/sched/mm.h>
#include <linux/shmem_fs.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "arch.h"
#include "memwalk.h"

static_assert(sizeof(struct memwalk_snapshot) == MEMWALK_SNAPSHOT_SIZE_VER1);
static_assert(sizeof(struct memwalk_page_run) % 8 == 0);
static_assert(sizeof(struct memwalk_vma) % 8 == 0);

#define RUN_BOUNCE_BYTES	SZ_64K
#define BOUNCE_FIRST_BYTES	SZ_4K
#define VMA_BOUNCE_BYTES	SZ_16K
static_assert(sizeof(struct memwalk_vma) + MEMWALK_VMA_NAME_MAX + 8 <=
	      VMA_BOUNCE_BYTES);

#define SNAP_KNOWN_FLAGS	(MEMWALK_SNAP_VMAS | MEMWALK_SNAP_PAGES | \
				 MEMWALK_SNAP_FOLIO | MEMWALK_SNAP_NO_PFN | \
				 MEMWALK_SNAP_ENTRY_ONLY | MEMWALK_SNAP_PFN_LIST | \
				 MEMWALK_SNAP_NO_ACCESSED)

/* Bounce buffers and their allocated sizes: kept across calls. */
struct snap_buffers {
	struct memwalk_page_run *runs;
	u64 *pfns;
	u8 *vbuf;		/* VMA_BOUNCE_BYTES */
	char *namebuf;		/* MEMWALK_VMA_NAME_MAX */
	u32 run_alloc;		/* runs allocated */
	u32 pfn_alloc;		/* PFNs allocated */
};

struct memwalk_snap {
	struct snap_buffers buf;	/* first: not cleared for reuse */
	const struct memwalk_access *acc;	/* the opener's (chardev.c) */
	struct memwalk_snapshot req;
	/* The walk; page runs: bounce buffer and open run, runs copied out. */
	struct memwalk_decoding dw;
	u64 nr_out;
	u64 run_slots;		/* runs the caller's buffer holds */
	u64 pfn_total;		/* PFNs its pfn_buf holds */
	bool finishing;		/* the last flush: no bounce buffer grows */

	/* VMA records: bytes in the bounce buffer and copied, last one emitted. */
	u32 vbuf_used;
	u64 vma_out;
	bool vma_emitted;
	unsigned long last_start;
	unsigned long last_end;
	unsigned long last_vm_flags;
	unsigned long last_walk_start;	/* where this call entered it */
	u32 last_size;
	/* End of the records kept, and before the last one was written */
	unsigned long records_end;
	unsigned long prev_records_end;
};

/* snap_get() clears what follows buf. */
static_assert(offsetof(struct memwalk_snap, buf) == 0);

/* Take back the last VMA record written (none of its pages were walked). */
static void snap_unemit_vma(struct memwalk_snap *s)
{
	if (s->vbuf_used >= s->last_size)
		s->vbuf_used -= s->last_size;
	else
		s->vma_out -= s->last_size;
	s->vma_emitted = false;
	s->records_end = s->prev_records_end;
}

static bool snap_vma_same(const struct memwalk_snap *s, const struct vm_area_struct *vma)
{
	return s->vma_emitted && s->last_start == vma->vm_start &&
	       s->last_end == vma->vm_end && s->last_vm_flags == vma->vm_flags;
}

/*
 * ->vma: the VMA's record, once per call.  If the VMA last reported
 * changed while the lock was dropped (split, merged, mprotect()ed), the
 * records of one call must still not overlap: a record none of whose
 * pages were walked yet is replaced, otherwise the call ends here and the
 * next one reports the VMA as it is then.  The same when the VMA now
 * reaches back over an earlier record (merged with it).
 * Locking: mmap_lock held.
 */
static int snap_vma(struct memwalk_walk *w, struct vm_area_struct *vma,
		    unsigned long start, unsigned long end)
{
	struct memwalk_snap *s = w->private;
	struct memwalk_vma_info info;
	u8 *dst;

	if (s->vma_emitted && !snap_vma_same(s, vma) &&
	    vma->vm_start < s->last_end && vma->vm_end > s->last_start) {
		if (start > s->last_walk_start)
			return MEMWALK_WALK_STOP;
		snap_unemit_vma(s);
	}
	if ((s->req.flags & MEMWALK_SNAP_VMAS) && !snap_vma_same(s, vma) &&
	    vma->vm_start < s->records_end)
		return MEMWALK_WALK_STOP;
	if ((s->req.flags & MEMWALK_SNAP_VMAS) && !snap_vma_same(s, vma)) {
		memwalk_vma_describe(vma, s->buf.namebuf, &info);
		if (s->vma_out + s->vbuf_used + info.rec.size > s->req.vma_buf_len)
			return MEMWALK_WALK_STOP;
		if (s->vbuf_used + info.rec.size > VMA_BOUNCE_BYTES)
			return MEMWALK_WALK_PAUSE;
		dst = s->buf.vbuf + s->vbuf_used;
		memset(dst, 0, info.rec.size);
		memcpy(dst, &info.rec, sizeof(info.rec));
		memcpy(dst + sizeof(info.rec), info.name, info.rec.name_len);
		s->vbuf_used += info.rec.size;
		s->vma_emitted = true;
		s->last_walk_start = start;
		s->last_size = info.rec.size;
		s->last_start = vma->vm_start;
		s->last_end = vma->vm_end;
		s->last_vm_flags = vma->vm_flags;
		s->prev_records_end = s->records_end;
		s->records_end = vma->vm_end;
	}
	if (!(s->req.flags & MEMWALK_SNAP_PAGES))
		return MEMWALK_WALK_SKIP;
	/* Pages in swap where no entry is: where mincore() would tell. */
	memwalk_decoding_vma(&s->dw, vma, !s->dw.dec.entry_only && vma->vm_file &&
			     shmem_mapping(vma->vm_file->f_mapping) &&
			     memwalk_may_mincore(s->acc, vma));
	return MEMWALK_WALK_CONTINUE;
}

/*
 * Room for @want elements of @size bytes in *@buf, of which *@alloc are
 * allocated: a smaller one is replaced, its contents dropped.
 */
static int bounce_room(void **buf, u32 *alloc, u64 want, size_t size)
{
	void *bigger;

	if (want <= *alloc)
		return 0;
	bigger = kvmalloc_array(want, size, GFP_KERNEL_ACCOUNT);
	if (!bigger)
		return -ENOMEM;
	kvfree(*buf);
	*buf = bigger;
	*alloc = want;
	return 0;
}

/*
 * The first bounce buffer for a caller who can take @slots elements of
 * @size bytes: BOUNCE_FIRST_BYTES' worth, or the larger one kept from
 * the last call; *@cap is how much of it this call uses (0: none).
 */
static int bounce_first(void **buf, u32 *alloc, u32 *cap, u64 slots,
			size_t size)
{
	int ret;

	*cap = min_t(u64, slots, BOUNCE_FIRST_BYTES / size);
	if (!*cap)
		return 0;
	ret = bounce_room(buf, alloc, *cap, size);
	if (ret)
		return ret;
	*cap = min_t(u64, slots, *alloc);
	return 0;
}

/*
 * A full bounce buffer of *@cap elements of @size bytes, its contents
 * copied out, for a caller who can take @slots: four times larger, at
 * most RUN_BOUNCE_BYTES, if that can be had.
 */
static void bounce_grow(void **buf, u32 *alloc, u32 *cap, u64 slots,
			size_t size)
{
	u64 want = min_t(u64, slots, min_t(u64, (u64)*cap * 4,
					   RUN_BOUNCE_BYTES / size));

	if (want > *cap && !bounce_room(buf, alloc, want, size))
		*cap = want;
}

/*
 * ->flush: copy the bounce buffers out; a full one grows (while the walk
 * goes on: not at the end).  Locking: no lock held.
 */
static int snap_flush(struct memwalk_walk *w)
{
	struct memwalk_snap *s = w->private;
	struct memwalk_run_sink *sink = &s->dw.sink;
	bool runs_full = sink->nr == sink->cap, pfns_full = sink->pfn_nr == sink->pfn_cap;
	void __user *dst;

	if (sink->nr) {
		dst = u64_to_user_ptr(s->req.run_buf +
				      s->nr_out * sizeof(struct memwalk_page_run));
		if (copy_to_user(dst, sink->runs,
				 sink->nr * sizeof(struct memwalk_page_run)))
			return -EFAULT;
		s->nr_out += sink->nr;
		sink->slots -= sink->nr;
		sink->nr = 0;
	}
	if (sink->pfn_nr) {
		dst = u64_to_user_ptr(s->req.pfn_buf + sink->pfn_base * sizeof(u64));
		if (copy_to_user(dst, sink->pfns, sink->pfn_nr * sizeof(u64)))
			return -EFAULT;
		sink->pfn_base += sink->pfn_nr;
		sink->pfn_nr = 0;
	}
	if (runs_full && !s->finishing) {
		bounce_grow((void **)&s->buf.runs, &s->buf.run_alloc, &sink->cap,
			    s->run_slots, sizeof(*sink->runs));
		sink->runs = s->buf.runs;
	}
	if (pfns_full && sink->pfns && !s->finishing) {
		bounce_grow((void **)&s->buf.pfns, &s->buf.pfn_alloc,
			    &sink->pfn_cap, s->pfn_total, sizeof(u64));
		sink->pfns = s->buf.pfns;
	}
	if (s->vbuf_used) {
		dst = u64_to_user_ptr(s->req.vma_buf + s->vma_out);
		if (copy_to_user(dst, s->buf.vbuf, s->vbuf_used))
			return -EFAULT;
		s->vma_out += s->vbuf_used;
		s->vbuf_used = 0;
	}
	return 0;
}

static const struct memwalk_walk_ops snap_ops = {
	.vma		= snap_vma,
	.table		= memwalk_decoding_table,
	.pte_range	= memwalk_decoding_ptes,
	.pmd_entry	= memwalk_decoding_entry,
	.pud_entry	= memwalk_decoding_entry,
	.hugetlb_entry	= memwalk_decoding_entry,
	.flush		= snap_flush,
};

/* The open run is written last; its slot was kept. */
static int snap_finish(struct memwalk_snap *s)
{
	struct memwalk_run_sink *sink = &s->dw.sink;
	int ret;

	s->finishing = true;
	if (!sink->have_open)
		return 0;
	if (sink->nr == sink->cap) {
		ret = snap_flush(&s->dw.walk);
		if (ret)
			return ret;
	}
	sink->runs[sink->nr++] = sink->open;
	sink->have_open = false;
	return snap_flush(&s->dw.walk);
}

static int snap_check(const struct memwalk_snapshot *req)
{
	if (req->flags & ~SNAP_KNOWN_FLAGS || req->__reserved)
		return -EINVAL;
	if (!(req->flags & (MEMWALK_SNAP_VMAS | MEMWALK_SNAP_PAGES)))
		return -EINVAL;
	/* Folio state is read from the page, which entry-only never looks at. */
	if ((req->flags & MEMWALK_SNAP_FOLIO) &&
	    (req->flags & MEMWALK_SNAP_ENTRY_ONLY))
		return -EINVAL;
	if (memwalk_range_check(req->start, req->end))
		return -EINVAL;
	/* A buffer that is asked for and has a size needs an address. */
	if ((req->flags & MEMWALK_SNAP_VMAS) && req->vma_buf_len &&
	    !req->vma_buf)
		return -EFAULT;
	if ((req->flags & MEMWALK_SNAP_PAGES) && req->run_buf_len &&
	    !req->run_buf)
		return -EFAULT;
	if ((req->flags & MEMWALK_SNAP_PFN_LIST) && req->pfn_buf_len &&
	    !req->pfn_buf)
		return -EFAULT;
	return 0;
}

/*
 * The bounce buffers this call needs: those kept from the last call on
 * the file where they are large enough (a larger one is used whole).
 */
static int snap_alloc(struct memwalk_snap *s)
{
	struct memwalk_run_sink *sink = &s->dw.sink;
	struct snap_buffers *buf = &s->buf;
	int ret;

	if (s->req.flags & MEMWALK_SNAP_PAGES) {
		sink->slots = div_u64(s->req.run_buf_len,
				      sizeof(struct memwalk_page_run));
		s->run_slots = sink->slots;
		ret = bounce_first((void **)&buf->runs, &buf->run_alloc,
				   &sink->cap, sink->slots, sizeof(*buf->runs));
		if (ret)
			return ret;
		if (sink->cap)
			sink->runs = buf->runs;
	}
	if (s->dw.dec.pfn_list) {
		sink->pfn_slots = div_u64(s->req.pfn_buf_len, sizeof(u64));
		s->pfn_total = sink->pfn_slots;
		ret = bounce_first((void **)&buf->pfns, &buf->pfn_alloc,
				   &sink->pfn_cap, sink->pfn_slots, sizeof(u64));
		if (ret)
			return ret;
		if (sink->pfn_cap)
			sink->pfns = buf->pfns;
		else
			s->dw.dec.pfn_list = false;
	}
	if (s->req.flags & MEMWALK_SNAP_VMAS) {
		if (!buf->namebuf)
			buf->namebuf = kmalloc(MEMWALK_VMA_NAME_MAX, GFP_KERNEL_ACCOUNT);
		if (!buf->namebuf)
			return -ENOMEM;
		if (s->req.vma_buf_len && !buf->vbuf)
			buf->vbuf = kvmalloc(VMA_BOUNCE_BYTES, GFP_KERNEL_ACCOUNT);
		if (s->req.vma_buf_len && !buf->vbuf)
			return -ENOMEM;
	}
	return 0;
}

/**
 * memwalk_snap_free() - free a snapshot's state and its bounce buffers
 * @s: what memwalk_ioctl_snapshot() kept in struct memwalk_file, or NULL
 *
 * Locking: none.
 */
void memwalk_snap_free(struct memwalk_snap *s)
{
	if (!s)
		return;
	kvfree(s->buf.runs);
	kvfree(s->buf.pfns);
	kvfree(s->buf.vbuf);
	kfree(s->buf.namebuf);
	kfree(s);
}

/* The state kept in *@spare, cleared but for its buffers, or a new one. */
static struct memwalk_snap *snap_get(struct memwalk_snap **spare)
{
	struct memwalk_snap *s = xchg(spare, NULL);

	if (!s)
		return kzalloc(sizeof(*s), GFP_KERNEL_ACCOUNT);
	memset((u8 *)s + sizeof(s->buf), 0, sizeof(*s) - sizeof(s->buf));
	return s;
}

/* Keep @s in *@spare for the next call, unless another call did. */
static void snap_put(struct memwalk_snap **spare, struct memwalk_snap *s)
{
	if (cmpxchg(spare, NULL, s))
		memwalk_snap_free(s);
}

/*
 * Walk [start, end) of @mm into the caller's buffers; fills the out
 * fields of s->req.  Locking: none held; takes @mm's mmap_lock in chunks.
 */
static int snap_run(struct memwalk_snap *s, struct mm_struct *mm)
{
	unsigned long start = s->req.start;
	int ret;

	s->dw.walk.ops = &snap_ops;
	s->dw.walk.mm = mm;
	s->dw.walk.private = s;
	ret = memwalk_walk_request(&s->dw.walk, start, s->req.end);
	if (ret < 0)
		return ret;
	/*
	 * Stopped before walking any of the last VMA reported: its record
	 * belongs to the next call.  It is the last record written, in the
	 * bounce buffer or, if that was flushed since, at the end of the
	 * caller's bytes (which vma_bytes then no longer counts).
	 */
	if (ret == MEMWALK_WALK_STOP && s->vma_emitted &&
	    s->dw.walk.next <= s->last_walk_start)
		snap_unemit_vma(s);
	/* A full buffer before any progress, or before any record at all. */
	if (ret == MEMWALK_WALK_STOP &&
	    (s->dw.walk.next == start ||
	     (!s->vma_out && !s->vbuf_used && !s->nr_out && !s->dw.sink.nr &&
	      !s->dw.sink.have_open)))
		ret = -ENOSPC;
	if (ret == -ENOSPC)
		s->dw.walk.next = start;
	else
		ret = snap_finish(s);

	s->req.walk_end = memwalk_walk_end(&s->dw.walk, s->req.end);
	s->req.vma_bytes = s->vma_out;
	s->req.nr_runs = s->nr_out;
	s->req.nr_pfns = s->dw.sink.pfn_base;
	s->req.run_size = sizeof(struct memwalk_page_run);
	s->req.lock_drops = s->dw.walk.lock_drops;
	s->req.max_lock_ns = s->dw.walk.max_lock_ns;
	s->req.total_lock_ns = s->dw.walk.total_lock_ns;
	return ret;
}

/**
 * memwalk_ioctl_snapshot() - MEMWALK_IOC_SNAPSHOT
 * @acc: the opener's access (chardev.c)
 * @spare: the file's kept state and buffers: taken, and given back
 * @uarg: the caller's struct memwalk_snapshot
 *
 * Locking: none held; sleeps.  Takes the target's mmap_lock for read in
 * bounded holds (walk.c) and copies to user space only between them.
 *
 * Return: 0, or -EINVAL/-E2BIG (bad struct), -EFAULT, -ESRCH/-EACCES
 * (target), -ENOSPC (not one record fits), -EINTR, -ENOMEM.
 */
long memwalk_ioctl_snapshot(const struct memwalk_access *acc,
			    struct memwalk_snap **spare,
			    struct memwalk_snapshot __user *uarg)
{
	struct mm_struct *mm;
	struct memwalk_snap *s;
	u32 usize;
	long ret;

	if (get_user(usize, &uarg->size))
		return -EFAULT;
	if (usize < MEMWALK_SNAPSHOT_SIZE_VER0)
		return -EINVAL;
	if (usize > PAGE_SIZE)
		return -E2BIG;

	s = snap_get(spare);
	if (!s)
		return -ENOMEM;
	ret = copy_struct_from_user(&s->req, sizeof(s->req), uarg, usize);
	if (ret)
		goto out_free;
	ret = snap_check(&s->req);
	if (ret)
		goto out_free;

	s->acc = acc;
	/* Folio state is root's, as /proc/kpageflags and kpagecount are. */
	s->dw.dec.folio = (s->req.flags & MEMWALK_SNAP_FOLIO) && acc->full;
	s->dw.dec.entry_only = s->req.flags & MEMWALK_SNAP_ENTRY_ONLY;
	s->dw.dec.hide_pfn = !acc->full || (s->req.flags & MEMWALK_SNAP_NO_PFN);
	s->dw.dec.pfn_list = (s->req.flags & MEMWALK_SNAP_PFN_LIST) &&
			  (s->req.flags & MEMWALK_SNAP_PAGES) && !s->dw.dec.hide_pfn;
	if (s->req.flags & MEMWALK_SNAP_NO_ACCESSED) {
		s->dw.dec.pte_ign = mw_arch_pte_accessed_bits();
		s->dw.dec.run_drop = MEMWALK_RUN_ACCESSED | MEMWALK_RUN_FOLIO_YOUNG;
		s->dw.dec.kpf_drop = 1U << MEMWALK_KPF_IDLE;
		s->dw.dec.key_ignore = MW_PG_YOUNG_MASK | MW_PG_IDLE_MASK;
	}
	ret = snap_alloc(s);
	if (ret)
		goto out_free;

	ret = memwalk_target_mm(acc, s->req.pid, &mm);
	if (ret)
		goto out_free;
	ret = snap_run(s, mm);
	mmput(mm);
	if (ret && ret != -ENOSPC)
		goto out_free;

	/* Tell the caller what was hidden, asked for or not (lab mode). */
	if (s->dw.dec.hide_pfn)
		s->req.flags |= MEMWALK_SNAP_NO_PFN;
	if (!s->dw.dec.folio)
		s->req.flags &= ~MEMWALK_SNAP_FOLIO;
	s->req.size = min_t(u32, usize, sizeof(s->req));
	if (copy_to_user(uarg, &s->req, s->req.size))
		ret = -EFAULT;

out_free:
	snap_put(spare, s);
	return ret;
}

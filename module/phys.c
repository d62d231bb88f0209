// SPDX-License-Identifier: GPL-2.0
/*
 * memwalk: MEMWALK_IOC_PHYS, a census of physical memory.
 *
 * Every page frame of a PFN range that pfn_to_online_page() accepts is put
 * in one class (enum memwalk_phys_class) from what /proc/kpageflags reads
 * of it (fs/proc/page.c stable_page_flags()): its page type, its own flags
 * word, its folio's flags word and mapping.  Like kpageflags the census
 * takes no reference, no lock and writes nothing, so it is a census of a
 * moving system: a page allocated, freed, split or moved meanwhile is
 * counted in its old or its new state, and a value read torn (a buddy
 * order, a folio order) is bounded before it is used to skip ahead.
 *
 * What kpageflags reads per page (buddy, offline, page table, hwpoison,
 * reserved) is read per page here too; what it reads of the folio (slab,
 * hugetlb, anon, swap cache, LRU, dirty) once per folio, which then counts
 * as a whole: a free buddy block and a large folio are one step each (so
 * a poisoned page inside a large folio counts as the folio's).
 * Consecutive steps alike in class, flags, order, node and zone make one
 * record.  Between chunks of PFNs the census reschedules and stops for a
 * fatal signal.
 *
 * Locking: none held.  The struct pages of an online section stay while
 * we look (offlining a section does not free its memmap; removing memory
 * races with us exactly as it races with kpageflags_read()).
 */
#include <linux/errno.h>
#include <linux/hugetlb.h>
#include <linux/memory_hotplug.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/mmzone.h>
#include <linux/nodemask.h>
#include <linux/page-flags.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "memwalk.h"
#include "unexported.h"

static_assert(sizeof(struct memwalk_phys) == MEMWALK_PHYS_SIZE_VER0);
static_assert(sizeof(struct memwalk_phys_run) == 24);

/* Records gathered before one copy_to_user(). */
#define PHYS_BOUNCE_RUNS	256
/* PFNs (at least) between two cond_resched(). */
#define PHYS_CHUNK_PFNS		4096
/* The largest folio taken as one step: a PUD-sized hugetlb page. */
#define PHYS_MAX_FOLIO_ORDER	(PUD_SHIFT - PAGE_SHIFT)

/* Stop: the caller's buffer is full (not an error). */
#define PHYS_FULL		1

struct phys_census {
	struct memwalk_phys_run __user *ubuf;
	u64 slots;		/* records the caller's buffer still takes */
	u64 written;		/* records copied out */
	struct memwalk_phys_run *bounce;
	u32 nr;			/* records in @bounce */
	struct memwalk_phys_run open;	/* the record still growing */
	bool have_open;
};

/*
 * The census end: the last node's end rounded up to a section, as
 * /proc/kpageflags' get_max_dump_pfn() rounds max_pfn (not exported):
 * the memmap of a boot section is there to its end.
 */
static unsigned long phys_max_pfn(void)
{
	unsigned long end = 0;
	int nid;

	for_each_online_node(nid)
		end = max(end, node_end_pfn(nid));
	return round_up(end, PAGES_PER_SECTION);
}

static u32 flag_if(unsigned long k, int pg, u32 flag)
{
	return (k & BIT(pg)) ? flag : 0;
}

/* MAPPED, DIRTY, WRITEBACK, LRU of a folio in the page cache or anon. */
static u32 folio_census_flags(struct folio *folio, unsigned long k)
{
	u32 f = flag_if(k, PG_dirty, MEMWALK_PHYS_DIRTY) |
		flag_if(k, PG_writeback, MEMWALK_PHYS_WRITEBACK) |
		flag_if(k, PG_lru, MEMWALK_PHYS_LRU);

	if (folio_mapped(folio))
		f |= MEMWALK_PHYS_MAPPED;
	return f;
}

static bool folio_hugetlb_free(struct folio *folio)
{
#ifdef CONFIG_HUGETLB_PAGE
	return folio_test_hugetlb_freed(folio);
#else
	return false;
#endif
}

/*
 * The class of a folio's pages by what the folio is, once its page's own
 * state (buddy, offline, hwpoison, page table, reserved) said nothing.
 * @k is the folio's flags word, read once.
 */
static u8 folio_class(struct folio *folio, unsigned long k, u32 *flags)
{
	unsigned long mapping = (unsigned long)READ_ONCE(folio->mapping);
	bool swapcache = (k & BIT(PG_swapbacked)) && (k & BIT(PG_swapcache));

	if (mapping & MW_MAPPING_ANON) {
		*flags = folio_census_flags(folio, k);
		if (swapcache)
			*flags |= MEMWALK_PHYS_SWAPCACHE;
		return MEMWALK_PHYS_CLASS_ANON;
	}
	if (k & BIT(PG_swapbacked)) {
		*flags = folio_census_flags(folio, k);
		/* A shmem folio moved to swap cache left its file: as SwapCached. */
		if (swapcache) {
			*flags |= MEMWALK_PHYS_SWAPCACHE;
			return MEMWALK_PHYS_CLASS_ANON;
		}
		return MEMWALK_PHYS_CLASS_SHMEM;
	}
	/* A truncated folio still on the LRU is page cache on its way out. */
	if ((mapping && !(mapping & MW_MAPPING_MOVABLE)) || (k & BIT(PG_lru))) {
		*flags = folio_census_flags(folio, k);
		return MEMWALK_PHYS_CLASS_FILE;
	}
	return MEMWALK_PHYS_CLASS_OTHER;
}

/*
 * A free page that is not a buddy block's head: in a block whose head is
 * below.  Refcount 0 and no folio around it first (tail pages have 0 too).
 */
static bool phys_free_tail(unsigned long pfn, struct memwalk_phys_run *u)
{
	unsigned int order;
	unsigned long head = mw_free_buddy_head(pfn, &order);

	if (head == ULONG_MAX)
		return false;
	u->class = MEMWALK_PHYS_CLASS_FREE;
	u->order = order;
	u->nr_pages = head + (1UL << order) - pfn;
	return true;
}

/*
 * Fill @u (class, flags, order, node, zone, nr_pages from @pfn on) for the
 * online @page at @pfn.  nr_pages may reach past the range: the caller
 * clips it.
 */
static void phys_classify(unsigned long pfn, struct page *page,
			  struct memwalk_phys_run *u)
{
	unsigned long pk = mw_page_flags_word(page);
	struct folio *folio;
	unsigned long k, head_pfn;
	unsigned int order;

	u->pfn = pfn;
	u->nr_pages = 1;
	u->flags = 0;
	u->order = 0;
	u->nid = page_to_nid(page);
	u->zone = page_zonenum(page);

	if (PageOffline(page)) {
		u->class = MEMWALK_PHYS_CLASS_OFFLINE;
		return;
	}
	if (pk & MW_PG_HWPOISON_MASK) {
		u->class = MEMWALK_PHYS_CLASS_HWPOISON;
		return;
	}
	if (PageBuddy(page)) {
		unsigned long o = READ_ONCE(page->private);

		u->class = MEMWALK_PHYS_CLASS_FREE;
		/* buddy_order_unsafe(): a torn order counts the head alone. */
		if (o <= MW_MAX_PAGE_ORDER && !(pfn & ((1UL << o) - 1))) {
			u->order = o;
			u->nr_pages = 1UL << o;
		}
		return;
	}

	folio = page_folio(page);
	if (&folio->page == page && !page_ref_count(page) &&
	    phys_free_tail(pfn, u))
		return;

	/* The folio's size, bounded: it may be split or freed meanwhile. */
	k = mw_folio_flags_word(folio);
	order = compound_order(&folio->page);
	head_pfn = page_to_pfn(&folio->page);
	if (order > PHYS_MAX_FOLIO_ORDER || pfn - head_pfn >= (1UL << order)) {
		order = 0;
		head_pfn = pfn;
	}

	/* What the folio is, for all its pages. */
	u->order = order;
	u->nr_pages = head_pfn + (1UL << order) - pfn;
	if (folio_test_hugetlb(folio)) {
		u->class = MEMWALK_PHYS_CLASS_HUGETLB;
		if (folio_hugetlb_free(folio))
			u->flags = MEMWALK_PHYS_HUGETLB_FREE;
		return;
	}
	if (folio_test_slab(folio)) {
		u->class = MEMWALK_PHYS_CLASS_SLAB;
		return;
	}

	/* What the page is, for itself (kpageflags reads these per page). */
	if (PageTable(page))
		u->class = MEMWALK_PHYS_CLASS_PGTABLE;
	else if (is_zero_pfn(pfn))
		u->class = MEMWALK_PHYS_CLASS_ZERO;
	else if (pk & BIT(PG_reserved))
		u->class = MEMWALK_PHYS_CLASS_RESERVED;
	else
		u->class = MEMWALK_PHYS_NR_CLASSES;
	if (u->class != MEMWALK_PHYS_NR_CLASSES) {
		u->order = 0;
		u->nr_pages = 1;
		return;
	}

	if (!(k & BIT(PG_lru)) && mw_folio_huge_zero(folio))
		u->class = MEMWALK_PHYS_CLASS_ZERO;
	else
		u->class = folio_class(folio, k, &u->flags);
}

/* Copy the bounce buffer out; no lock is held. */
static int phys_flush(struct phys_census *c)
{
	size_t len = c->nr * sizeof(*c->bounce);

	if (!c->nr)
		return 0;
	if (copy_to_user(c->ubuf + c->written, c->bounce, len))
		return -EFAULT;
	c->written += c->nr;
	c->nr = 0;
	return 0;
}

/* The open record is complete: to the bounce buffer, if the caller has room. */
static int phys_close(struct phys_census *c)
{
	if (!c->slots)
		return PHYS_FULL;
	c->bounce[c->nr++] = c->open;
	c->slots--;
	c->have_open = false;
	if (c->nr == PHYS_BOUNCE_RUNS)
		return phys_flush(c);
	return 0;
}

static bool phys_alike(const struct memwalk_phys_run *a,
		       const struct memwalk_phys_run *b)
{
	return a->class == b->class && a->flags == b->flags &&
	       a->order == b->order && a->nid == b->nid && a->zone == b->zone &&
	       a->pfn + a->nr_pages == b->pfn &&
	       (u64)a->nr_pages + b->nr_pages <= U32_MAX;
}

/* Add the pages of @u: to the open record, or as a new one. */
static int phys_put(struct phys_census *c, const struct memwalk_phys_run *u)
{
	int ret;

	if (c->have_open && phys_alike(&c->open, u)) {
		c->open.nr_pages += u->nr_pages;
		return 0;
	}
	if (c->have_open) {
		ret = phys_close(c);
		if (ret)
			return ret;
	}
	c->open = *u;
	c->have_open = true;
	return 0;
}

/*
 * The census of [@start, @end) into @c; *@next says where it stopped (at
 * the first record that did not fit).  0 or a negative errno.
 */
static int phys_census(struct phys_census *c, unsigned long start,
		       unsigned long end, unsigned long *next)
{
	struct memwalk_phys_run u = {};
	unsigned long pfn = start, chunk_end;
	int ret = 0;

	while (pfn < end) {
		chunk_end = min(end, pfn + PHYS_CHUNK_PFNS);
		while (pfn < chunk_end) {
			struct page *page = pfn_to_online_page(pfn);

			if (!page) {
				/* Offline or a hole: skip its subsection. */
				pfn = min(end, ALIGN(pfn + 1, PAGES_PER_SUBSECTION));
				continue;
			}
			phys_classify(pfn, page, &u);
			u.nr_pages = min_t(unsigned long, u.nr_pages, end - pfn);
			ret = phys_put(c, &u);
			if (ret)
				goto stop;
			pfn += u.nr_pages;
		}
		if (fatal_signal_pending(current))
			return -EINTR;
		cond_resched();
	}
	if (c->have_open)
		ret = phys_close(c);
stop:
	/* Full: the open record is the next call's first. */
	*next = ret == PHYS_FULL ? c->open.pfn : pfn;
	if (ret < 0)
		return ret;
	return phys_flush(c);
}

/*
 * Check @req (copied in) against the census end @max; sets its end_pfn.
 * copy_struct_from_user() rules for the size, as every request.
 */
static int phys_check(struct memwalk_phys *req, unsigned long max)
{
	if (req->flags || req->__reserved)
		return -EINVAL;
	if (!req->end_pfn)
		req->end_pfn = max;
	if (req->end_pfn > max || req->start_pfn >= req->end_pfn)
		return -EINVAL;
	if (req->run_buf_len && !req->run_buf)
		return -EFAULT;
	if (req->run_buf_len < sizeof(struct memwalk_phys_run))
		return -ENOSPC;
	return 0;
}

/**
 * memwalk_ioctl_phys() - MEMWALK_IOC_PHYS
 * @acc: the opener's access (chardev.c): full access only
 * @uarg: the request
 *
 * Context: process context, may sleep.  Locking: none held or taken (see
 * the file's comment).
 *
 * Return: 0, or -EPERM (lab-mode opener), -EINVAL/-E2BIG (bad struct),
 * -EFAULT, -ENOSPC (not one record fits), -EINTR, -ENOMEM.
 */
long memwalk_ioctl_phys(const struct memwalk_access *acc,
			struct memwalk_phys __user *uarg)
{
	struct phys_census c = {};
	struct memwalk_phys req;
	unsigned long next, max;
	u32 usize;
	int ret;

	/* Physical memory is everyone's: no lab mode. */
	if (!acc->full)
		return -EPERM;
	if (get_user(usize, &uarg->size))
		return -EFAULT;
	if (usize < MEMWALK_PHYS_SIZE_VER0)
		return -EINVAL;
	if (usize > PAGE_SIZE)
		return -E2BIG;
	ret = copy_struct_from_user(&req, sizeof(req), uarg, usize);
	if (ret)
		return ret;
	max = phys_max_pfn();
	ret = phys_check(&req, max);
	if (ret)
		return ret;

	c.bounce = kmalloc_array(PHYS_BOUNCE_RUNS, sizeof(*c.bounce),
				 GFP_KERNEL_ACCOUNT);
	if (!c.bounce)
		return -ENOMEM;
	c.ubuf = u64_to_user_ptr(req.run_buf);
	c.slots = req.run_buf_len / sizeof(*c.bounce);
	ret = phys_census(&c, req.start_pfn, req.end_pfn, &next);
	kfree(c.bounce);
	if (ret)
		return ret;

	req.size = min_t(u32, usize, sizeof(req));
	req.next_pfn = next;
	req.nr_runs = c.written;
	req.max_pfn = max;
	req.run_size = sizeof(struct memwalk_phys_run);
	if (copy_to_user(uarg, &req, req.size))
		return -EFAULT;
	return 0;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * memwalk: MEMWALK_IOC_TRANSLATE, one address walked level by level.
 *
 * The walker visits the one page at addr with want_none set, so every
 * level down to the first none entry or the leaf is reported: its index,
 * raw value and the physical address of the table holding it.  With
 * 4-level paging the folded P4D is not reported (the top table is the
 * PGD), so nr_levels is 4 for a PTE-mapped page, 3 for a PMD leaf, fewer
 * where the walk met a none entry.  Outside any VMA nothing is walked:
 * tables there may be being freed (munmap after downgrading mmap_lock).
 *
 * Without full access (lab mode) the table addresses, the PFN bits of raw
 * entries, the offset bits of swap-format ones and the page's PFN or swap
 * offset read as 0, the page has no folio state, and a shmem page in swap
 * is looked up only where mincore() would tell (memwalk_may_mincore()).
 */
#include <linux/errno.h>
#include <linux/mm.h>
#include <linux/mmap_lock.h>
#include <linux/sched/mm.h>
#include <linux/shmem_fs.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "arch.h"
#include "memwalk.h"

static_assert(sizeof(struct memwalk_translate) == MEMWALK_TRANSLATE_SIZE_VER0);

struct xlate {
	const struct memwalk_access *acc;	/* the opener's (chardev.c) */
	struct memwalk_translate t;
	struct memwalk_decoder dec;
	struct memwalk_run_sink sink;	/* one run, no bounce buffer */
};

/* No entry at the address: in a shmem VMA its page may be in swap. */
static void xlate_hole(struct xlate *x, struct memwalk_walk *w,
		       unsigned long addr)
{
	if (!x->dec.shmem)
		return;
	x->sink.slots = 1;
	memwalk_decode_shmem_hole(&x->dec, w, addr, addr + PAGE_SIZE, &x->sink);
	if (x->sink.have_open)
		x->t.page = x->sink.open;
}

static void xlate_level(struct xlate *x, const struct memwalk_entry *e)
{
	struct memwalk_level *l;

	/* A level seen again (the walker re-read a changed PMD) replaces. */
	if (x->t.nr_levels && x->t.levels[x->t.nr_levels - 1].level == e->level)
		x->t.nr_levels--;
	if (x->t.nr_levels >= MEMWALK_MAX_LEVELS)
		return;
	l = &x->t.levels[x->t.nr_levels++];
	l->table_pa = e->table_pa;
	l->entry = e->val;
	l->index = e->index;
	l->level = e->level;
	if (x->dec.hide_pfn) {
		l->table_pa = 0;
		l->entry = mw_arch_hidden_entry(l->entry);
	}
}

/* ->table: an upper level (or a none one); stop below a none entry. */
static int xlate_table(struct memwalk_walk *w, const struct memwalk_entry *e)
{
	struct xlate *x = w->private;

	xlate_level(x, e);
	if (e->val)
		return MEMWALK_WALK_CONTINUE;
	xlate_hole(x, w, e->addr);
	return MEMWALK_WALK_STOP;
}

/* Entry callbacks: the leaf level and the page. */
static int xlate_leaf(struct memwalk_walk *w, const struct memwalk_entry *e)
{
	struct xlate *x = w->private;

	xlate_level(x, e);
	memwalk_decode_page(&x->dec, e, e->addr, &x->t.page);
	if (!x->t.page.nr_pages && e->level == MEMWALK_PGT_PTE)
		xlate_hole(x, w, e->addr);
	return MEMWALK_WALK_STOP;
}

static const struct memwalk_walk_ops xlate_ops = {
	.table		= xlate_table,
	.pte_entry	= xlate_leaf,
	.pmd_entry	= xlate_leaf,
	.pud_entry	= xlate_leaf,
	.hugetlb_entry	= xlate_leaf,
};

static int xlate_run(struct xlate *x, struct mm_struct *mm)
{
	unsigned long addr = x->t.addr & PAGE_MASK;
	struct memwalk_walk w = {
		.ops = &xlate_ops,
		.mm = mm,
		.private = x,
		.want_none = true,
		.no_pause = true,
	};
	struct vm_area_struct *vma;
	int ret = 0;

	if (mmap_read_lock_killable(mm))
		return -EINTR;
	vma = find_vma(mm, addr);
	if (vma && vma->vm_start <= addr) {
		x->t.vma_start = vma->vm_start;
		x->t.vma_end = vma->vm_end;
		x->dec.vma = vma;
		if (vma->vm_file && shmem_mapping(vma->vm_file->f_mapping) &&
		    memwalk_may_mincore(x->acc, vma))
			x->dec.shmem = vma->vm_file->f_mapping;
		ret = memwalk_walk_vma(&w, vma, addr, addr + PAGE_SIZE);
	}
	mmap_read_unlock(mm);
	return ret < 0 ? ret : 0;
}

/**
 * memwalk_ioctl_translate() - MEMWALK_IOC_TRANSLATE
 * @acc: the opener's access (chardev.c)
 * @uarg: the caller's struct memwalk_translate
 *
 * Locking: none held; sleeps.  Takes the target's mmap_lock for read once,
 * for one page's walk.
 *
 * Return: 0, or -EINVAL/-E2BIG (bad struct or address), -EFAULT,
 * -ESRCH/-EACCES (target), -EINTR.
 */
long memwalk_ioctl_translate(const struct memwalk_access *acc,
			     struct memwalk_translate __user *uarg)
{
	struct mm_struct *mm;
	struct xlate x = {};
	u32 usize;
	long ret;

	if (get_user(usize, &uarg->size))
		return -EFAULT;
	if (usize < MEMWALK_TRANSLATE_SIZE_VER0)
		return -EINVAL;
	if (usize > PAGE_SIZE)
		return -E2BIG;
	ret = copy_struct_from_user(&x.t, sizeof(x.t), uarg, usize);
	if (ret)
		return ret;
	if (x.t.flags || x.t.addr >= mw_arch_user_end())
		return -EINVAL;

	/* Outputs start zeroed whatever the caller left in them. */
	x.t.nr_levels = 0;
	memset(x.t.levels, 0, sizeof(x.t.levels));
	memset(&x.t.page, 0, sizeof(x.t.page));
	x.t.page.lru_gen = -1;
	x.t.vma_start = 0;
	x.t.vma_end = 0;
	x.acc = acc;
	/* Folio state is root's, as /proc/kpageflags and kpagecount are. */
	x.dec.folio = acc->full;
	x.dec.hide_pfn = !acc->full;

	ret = memwalk_target_mm(acc, x.t.pid, &mm);
	if (ret)
		return ret;
	ret = xlate_run(&x, mm);
	mmput(mm);
	if (ret)
		return ret;

	x.t.size = min_t(u32, usize, sizeof(x.t));
	if (copy_to_user(uarg, &x.t, x.t.size))
		return -EFAULT;
	return 0;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * memwalk: VMA records (struct memwalk_vma) and names as /proc/PID/maps
 * shows them.
 *
 * What maps uses and what we do instead, on 6.1, 6.12 and 7.2:
 *  - seq_file_path(): d_path() (exported) with '\n' escaped as "\012";
 *    since 6.8 maps prints file_user_path() (inline, it calls the exported
 *    backing_file_user_path()), see mw_file_user_path().
 *  - vma->vm_ops->name(): called through the pointer ([vdso], [vvar],
 *    [vvar_vclock], ...); no export needed.
 *  - arch_vma_name(): not exported, and x86-64 has only the weak default
 *    returning NULL, so it is skipped.
 *  - vma_is_initial_heap()/_stack(): inline since 6.7, 6.1's own test
 *    otherwise (compat.h).
 *  - anon_vma_name(): out of line and not exported; with
 *    CONFIG_ANON_VMA_NAME (off in all three Debian kernels) the name is
 *    read from vma->anon_name, stable under mmap_lock, which we hold.
 */
#include <linux/dcache.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/hugetlb.h>
#include <linux/kdev_t.h>
#include <linux/log2.h>
#include <linux/magic.h>
#include <linux/mm.h>
#include <linux/mm_types.h>
#include <linux/mmap_lock.h>
#include <linux/path.h>
#include <linux/string.h>

#include "memwalk.h"

static const struct {
	unsigned long vm;
	u64 mw;
} vma_flag_map[] = {
	{ VM_READ,		MEMWALK_VMA_READ },
	{ VM_WRITE,		MEMWALK_VMA_WRITE },
	{ VM_EXEC,		MEMWALK_VMA_EXEC },
	{ VM_SHARED,		MEMWALK_VMA_SHARED },
	{ VM_MAYREAD,		MEMWALK_VMA_MAYREAD },
	{ VM_MAYWRITE,		MEMWALK_VMA_MAYWRITE },
	{ VM_MAYEXEC,		MEMWALK_VMA_MAYEXEC },
	{ VM_MAYSHARE,		MEMWALK_VMA_MAYSHARE },
	{ VM_GROWSDOWN,		MEMWALK_VMA_GROWSDOWN },
	{ VM_LOCKED,		MEMWALK_VMA_LOCKED },
	{ VM_LOCKONFAULT,	MEMWALK_VMA_LOCKONFAULT },
	{ VM_HUGETLB,		MEMWALK_VMA_HUGETLB },
	{ VM_PFNMAP,		MEMWALK_VMA_PFNMAP },
	{ VM_MIXEDMAP,		MEMWALK_VMA_MIXEDMAP },
	{ VM_IO,		MEMWALK_VMA_IO },
	{ VM_DONTDUMP,		MEMWALK_VMA_DONTDUMP },
	{ VM_DONTEXPAND,	MEMWALK_VMA_DONTEXPAND },
	{ VM_DONTCOPY,		MEMWALK_VMA_DONTCOPY },
	{ VM_WIPEONFORK,	MEMWALK_VMA_WIPEONFORK },
	{ VM_HUGEPAGE,		MEMWALK_VMA_HUGEPAGE },
	{ VM_NOHUGEPAGE,	MEMWALK_VMA_NOHUGEPAGE },
	{ VM_MERGEABLE,		MEMWALK_VMA_MERGEABLE },
	{ VM_SOFTDIRTY,		MEMWALK_VMA_SOFTDIRTY },	/* 0 without soft-dirty */
	{ VM_UFFD_MISSING,	MEMWALK_VMA_UFFD_MISSING },
	{ VM_UFFD_WP,		MEMWALK_VMA_UFFD_WP },
};

/* shmem and tmpfs files, SysV SHM and shared anonymous memory included. */
static bool vma_is_shmem_backed(const struct vm_area_struct *vma)
{
	/* shmem_mapping()/vma_is_shmem() are not exported on every line. */
	return vma->vm_file &&
	       file_inode(vma->vm_file)->i_sb->s_magic == TMPFS_MAGIC;
}

/**
 * memwalk_vma_flags() - MEMWALK_VMA_* flags of a VMA
 * @vma: the VMA
 *
 * Locking: @vma's mm's mmap_lock held.
 *
 * Return: the flags.
 */
u64 memwalk_vma_flags(struct vm_area_struct *vma)
{
	unsigned long vm = vma->vm_flags;
	u64 f = 0;
	size_t i;

	mmap_assert_locked(vma->vm_mm);
	for (i = 0; i < ARRAY_SIZE(vma_flag_map); i++)
		if (vm & vma_flag_map[i].vm)
			f |= vma_flag_map[i].mw;
	if (vma_is_anonymous(vma))
		f |= MEMWALK_VMA_ANON;
	if (vma_is_shmem_backed(vma))
		f |= MEMWALK_VMA_SHMEM;
	if (vma->vm_file)
		f |= MEMWALK_VMA_FILE;
	return f;
}

static const char *vma_anon_name(struct vm_area_struct *vma)
{
#ifdef CONFIG_ANON_VMA_NAME
	return vma->anon_name ? vma->anon_name->name : NULL;
#else
	return NULL;
#endif
}

/* @buf (MEMWALK_VMA_NAME_MAX bytes) gets "prefix" "name" "]" */
static u32 name_fmt(char *buf, const char *prefix, const char *name)
{
	int n = snprintf(buf, MEMWALK_VMA_NAME_MAX, "%s%s]", prefix, name);

	return min_t(int, n, MEMWALK_VMA_NAME_MAX - 1);
}

/*
 * The file's path as seq_file_path(m, file, "\n") prints it: d_path()
 * into the second half of @buf, then copied to the first half with '\n'
 * as "\012" (cut short, never overlapping, if that does not fit).  A path
 * d_path() cannot produce is shown empty.
 */
static u32 name_path(char *buf, struct file *file)
{
	const size_t half = MEMWALK_VMA_NAME_MAX / 2;
	char *p = d_path(mw_file_user_path(file), buf + half, half);
	u32 n = 0;

	if (IS_ERR(p)) {
		buf[0] = '\0';
		return 0;
	}
	for (; *p && n + 4 < half; p++) {
		if (*p == '\n') {
			memcpy(buf + n, "\\012", 4);
			n += 4;
		} else {
			buf[n++] = *p;
		}
	}
	buf[n] = '\0';
	return n;
}

/**
 * memwalk_vma_describe() - the record of a VMA, with its maps name
 * @vma: the VMA
 * @namebuf: MEMWALK_VMA_NAME_MAX bytes; info->name may point into it
 * @info: filled; info->rec.size accounts for the name and padding
 *
 * Locking: @vma's mm's mmap_lock held (names and brk/stack bounds are
 * stable under it).  May not sleep for long: d_path() only takes
 * rename_lock/mount_lock seqlocks and RCU.
 */
void memwalk_vma_describe(struct vm_area_struct *vma, char *namebuf,
			  struct memwalk_vma_info *info)
{
	struct memwalk_vma *rec = &info->rec;
	const char *anon_name = vma_anon_name(vma);
	const char *name = NULL;
	u32 kind = MEMWALK_NAME_NONE;
	u32 len = 0;

	mmap_assert_locked(vma->vm_mm);
	memset(rec, 0, sizeof(*rec));
	rec->start = vma->vm_start;
	rec->end = vma->vm_end;
	rec->flags = memwalk_vma_flags(vma);
	rec->page_shift = is_vm_hugetlb_page(vma) ?
			  ilog2(vma_kernel_pagesize(vma)) : PAGE_SHIFT;

	if (vma->vm_file) {
		struct inode *inode = file_inode(vma->vm_file);

		rec->pgoff = vma->vm_pgoff;
		rec->ino = inode->i_ino;
		rec->dev_major = MAJOR(inode->i_sb->s_dev);
		rec->dev_minor = MINOR(inode->i_sb->s_dev);
		if (anon_name) {
			kind = MEMWALK_NAME_ANON_SHMEM;
			len = name_fmt(namebuf, "[anon_shmem:", anon_name);
		} else {
			kind = MEMWALK_NAME_FILE;
			len = name_path(namebuf, vma->vm_file);
		}
		name = namebuf;
		goto out;
	}

	if (vma->vm_ops && vma->vm_ops->name) {
		name = vma->vm_ops->name(vma);
		if (name) {
			kind = MEMWALK_NAME_SPECIAL;
			goto out_const;
		}
	}
	if (mw_vma_is_initial_heap(vma)) {
		kind = MEMWALK_NAME_HEAP;
		name = "[heap]";
		goto out_const;
	}
	if (mw_vma_is_initial_stack(vma)) {
		kind = MEMWALK_NAME_STACK;
		name = "[stack]";
		goto out_const;
	}
	if (anon_name) {
		kind = MEMWALK_NAME_ANON;
		len = name_fmt(namebuf, "[anon:", anon_name);
		name = namebuf;
	}
	goto out;

out_const:
	len = min_t(size_t, strlen(name), MEMWALK_VMA_NAME_MAX - 1);
out:
	info->name = name ? name : "";
	rec->name_kind = kind;
	rec->name_len = len;
	rec->size = memwalk_vma_rec_size(len);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * memwalk: <debugfs>/memwalk/, for debugging only; not a stable interface.
 *
 *   info       the module and kernel (as MEMWALK_IOC_INFO)
 *   target     write a PID (resolved in the writer's pid namespace); read
 *              shows it in the reader's, or "none"
 *   maps       the target's VMAs in /proc/PID/maps format, with memwalk's
 *              VMA flags appended as "mw=0x..."
 *   pagetable  the target's page tables: each populated entry at each
 *              level with its index, the physical address of the table
 *              holding it, its raw value, decoded bits and what it points
 *              to (next table or page)
 *   probes     the reclaim and OOM hooks and their state (probes.c)
 *   fast_path_check  pages checked, mismatched and raced under the
 *              check_fast_paths parameter (fastcheck.c)
 *
 * All files are root-only (0400/0600, and debugfs itself is root's).  maps
 * and pagetable are rendered at open() into a bounded buffer (walk.c drops
 * the target's mmap_lock in chunks as for the ioctl), then read from it,
 * so no lock is held across read() calls; output beyond the bound ends
 * with a "truncated" line.
 *
 * Return values of debugfs_create_*() are ignored on purpose (kernel
 * convention): the module works without debugfs, and the only thing we
 * remember is whether the directory exists, for MEMWALK_FEAT_DEBUGFS.
 */
#include <linux/debugfs.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/kdev_t.h>
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/pid.h>
#include <linux/sched/mm.h>
#include <linux/sched/task.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "events.h"
#include "arch.h"
#include "memwalk.h"

struct dentry *memwalk_debugfs_root;

/* target_lock protects target_pid (a counted reference, or NULL). */
static DEFINE_MUTEX(target_lock);
static struct pid *target_pid;

#define MAPS_MAX_BYTES		SZ_1M
#define PAGETABLE_MAX_BYTES	SZ_4M
#define TRUNCATED_MSG		"... truncated\n"

static int info_show(struct seq_file *m, void *unused)
{
	struct memwalk_info info;

	memwalk_fill_info(&info);

	seq_printf(m, "module_version: %s\n", info.module_version);
	seq_printf(m, "uapi_version: %u\n", info.uapi_version);
	seq_printf(m, "features: 0x%llx\n", info.features);
	seq_printf(m, "page_shift: %u\n", info.page_shift);
	seq_printf(m, "pgtable_levels: %u\n", info.pgtable_levels);
	seq_printf(m, "nr_node_ids: %u\n", info.nr_node_ids);
	seq_printf(m, "release: %s\n", info.release);
	seq_printf(m, "machine: %s\n", info.machine);

	return 0;
}
DEFINE_SHOW_ATTRIBUTE(info);

static int fast_path_check_show(struct seq_file *m, void *unused)
{
	memwalk_fastcheck_show(m);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(fast_path_check);

/* ---- target --------------------------------------------------------- */

static ssize_t target_write(struct file *file, const char __user *ubuf,
			    size_t count, loff_t *ppos)
{
	struct pid *pid, *old;
	int nr, ret;

	ret = kstrtoint_from_user(ubuf, count, 0, &nr);
	if (ret)
		return ret;
	if (nr <= 0)
		return -EINVAL;
	pid = find_get_pid(nr);
	if (!pid)
		return -ESRCH;

	mutex_lock(&target_lock);
	old = target_pid;
	target_pid = pid;
	mutex_unlock(&target_lock);
	put_pid(old);

	return count;
}

static ssize_t target_read(struct file *file, char __user *ubuf,
			   size_t count, loff_t *ppos)
{
	char buf[24];
	int len;

	mutex_lock(&target_lock);
	if (target_pid)
		len = scnprintf(buf, sizeof(buf), "%d\n", pid_vnr(target_pid));
	else
		len = scnprintf(buf, sizeof(buf), "none\n");
	mutex_unlock(&target_lock);

	return simple_read_from_buffer(ubuf, count, ppos, buf, len);
}

static const struct file_operations target_fops = {
	.owner	= THIS_MODULE,
	.read	= target_read,
	.write	= target_write,
	.llseek	= default_llseek,
};

/* The target's mm with an mm_users reference, or an error. */
static int target_mm(struct mm_struct **mmp)
{
	struct task_struct *task = NULL;
	struct mm_struct *mm;

	mutex_lock(&target_lock);
	if (target_pid)
		task = get_pid_task(target_pid, PIDTYPE_PID);
	mutex_unlock(&target_lock);
	if (!task)
		return -ESRCH;
	mm = get_task_mm(task);
	put_task_struct(task);
	if (!mm)
		return -ESRCH;
	*mmp = mm;
	return 0;
}

/* ---- rendered text (maps, pagetable) -------------------------------- */

struct dump {
	char *buf;
	size_t len;
	size_t cap;		/* room for text; TRUNCATED_MSG fits beyond */
	bool truncated;
	bool pagetable;
	struct memwalk_decoder dec;
	char *namebuf;
	/* Upper entries already printed (several VMAs share them). */
	phys_addr_t last_pa[MEMWALK_MAX_LEVELS];
	unsigned int last_index[MEMWALK_MAX_LEVELS];
	bool last_valid[MEMWALK_MAX_LEVELS];
};

static __printf(2, 3) int dump_printf(struct dump *d, const char *fmt, ...)
{
	va_list args;
	int n;

	if (d->truncated)
		return MEMWALK_WALK_STOP;
	va_start(args, fmt);
	n = vsnprintf(d->buf + d->len, d->cap - d->len, fmt, args);
	va_end(args);
	if (n >= d->cap - d->len) {
		d->truncated = true;
		return MEMWALK_WALK_STOP;
	}
	d->len += n;
	return MEMWALK_WALK_CONTINUE;
}

/* One line per VMA, as /proc/PID/maps.  Locking: mmap_lock held. */
static int dump_vma_line(struct memwalk_walk *w, struct vm_area_struct *vma,
			 unsigned long start, unsigned long end)
{
	struct dump *d = w->private;
	struct memwalk_vma_info info;
	unsigned long vm = vma->vm_flags;
	int n, ret;

	memwalk_vma_describe(vma, d->namebuf, &info);
	n = d->len;
	ret = dump_printf(d, "%08llx-%08llx %c%c%c%c %08llx %02x:%02x %llu ",
			  info.rec.start, info.rec.end,
			  vm & VM_READ ? 'r' : '-', vm & VM_WRITE ? 'w' : '-',
			  vm & VM_EXEC ? 'x' : '-', vm & VM_MAYSHARE ? 's' : 'p',
			  info.rec.pgoff << PAGE_SHIFT, info.rec.dev_major,
			  info.rec.dev_minor, info.rec.ino);
	if (ret)
		return ret;
	/* maps pads the name to column 73 (seq_setwidth + seq_pad) */
	n = d->len - n;
	if (info.rec.name_len && n < 73)
		ret = dump_printf(d, "%*s", 73 - n, "");
	if (!ret)
		ret = dump_printf(d, "%s  mw=0x%llx page_shift=%u\n", info.name,
				  info.rec.flags, info.rec.page_shift);
	if (ret || !d->pagetable)
		return ret ? ret : MEMWALK_WALK_SKIP;
	d->dec.vma = vma;
	d->dec.part_folio = NULL;
	return MEMWALK_WALK_CONTINUE;
}

static const char * const level_names[] = {
	[MEMWALK_PGT_PGD] = "PGD",
	[MEMWALK_PGT_P4D] = "P4D",
	[MEMWALK_PGT_PUD] = "PUD",
	[MEMWALK_PGT_PMD] = "PMD",
	[MEMWALK_PGT_PTE] = "PTE",
};

/* The named bits of an entry at any level (arch.h). */
static int dump_entry_bits(struct dump *d, u64 v)
{
	const struct mw_arch_bit *bits;
	unsigned int i, nr;
	int ret = 0;

	bits = mw_arch_entry_bits(&nr);
	for (i = 0; i < nr && !ret; i++)
		if (v & bits[i].mask)
			ret = dump_printf(d, " %s", bits[i].name);
	return ret;
}

static int dump_entry_head(struct dump *d, const struct memwalk_entry *e)
{
	return dump_printf(d, "%*s%s[%3u] @%#llx = %#018llx", 2 * e->level, "",
			   level_names[e->level], e->index,
			   (unsigned long long)e->table_pa,
			   (unsigned long long)e->val);
}

/* ->table: an upper entry pointing to a table, printed once. */
static int dump_table_entry(struct memwalk_walk *w, const struct memwalk_entry *e)
{
	struct dump *d = w->private;
	unsigned int l = e->level;
	int ret;

	if (d->last_valid[l] && d->last_pa[l] == e->table_pa &&
	    d->last_index[l] == e->index)
		return MEMWALK_WALK_CONTINUE;
	d->last_valid[l] = true;
	d->last_pa[l] = e->table_pa;
	d->last_index[l] = e->index;
	/* A new entry here means new tables below it. */
	for (l++; l < MEMWALK_MAX_LEVELS; l++)
		d->last_valid[l] = false;

	ret = dump_entry_head(d, e);
	if (!ret)
		ret = dump_entry_bits(d, e->val);
	if (!ret)
		ret = dump_printf(d, " -> table %#llx\n",
				  (unsigned long long)mw_arch_table_pa(e->val));
	return ret;
}

/* Entry callbacks: a leaf (or non-present entry) and what it maps. */
static int dump_leaf_entry(struct memwalk_walk *w, const struct memwalk_entry *e)
{
	static const char * const states[] = {
		"none", "present", "swap", "migration", "device", "hwpoison",
		"marker", "?",
	};
	struct dump *d = w->private;
	struct memwalk_page_run run;
	int ret;

	memwalk_decode_page(&d->dec, e, e->addr, &run);
	ret = dump_entry_head(d, e);
	if (!ret && (run.flags & MEMWALK_RUN_STATE_MASK) == MEMWALK_STATE_PRESENT)
		ret = dump_entry_bits(d, e->val);
	if (!ret)
		ret = dump_printf(d,
				  " va=%#llx %s%s pfn=%#llx flags=%#x kpf=%#x map=%u ref=%u order=%u nid=%u gen=%d\n",
				  run.start,
				  states[run.flags & MEMWALK_RUN_STATE_MASK],
				  e->hugetlb ? " hugetlb" : "", run.pfn,
				  run.flags, run.folio_flags, run.mapcount,
				  run.refcount, run.order, run.nid,
				  run.lru_gen);
	return ret;
}

static const struct memwalk_walk_ops dump_ops = {
	.vma		= dump_vma_line,
	.table		= dump_table_entry,
	.pte_entry	= dump_leaf_entry,
	.pmd_entry	= dump_leaf_entry,
	.pud_entry	= dump_leaf_entry,
	.hugetlb_entry	= dump_leaf_entry,
};

static int dump_open(struct inode *inode, struct file *file, bool pagetable)
{
	struct memwalk_walk w = {
		.ops = &dump_ops,
	};
	size_t cap = pagetable ? PAGETABLE_MAX_BYTES : MAPS_MAX_BYTES;
	struct mm_struct *mm;
	struct dump *d;
	int ret;

	d = kzalloc(sizeof(*d), GFP_KERNEL);
	if (!d)
		return -ENOMEM;
	d->pagetable = pagetable;
	d->dec.folio = true;
	d->cap = cap;
	ret = -ENOMEM;
	d->buf = kvmalloc(cap + sizeof(TRUNCATED_MSG), GFP_KERNEL);
	if (!d->buf)
		goto out_free;
	d->namebuf = kmalloc(MEMWALK_VMA_NAME_MAX, GFP_KERNEL);
	if (!d->namebuf)
		goto out_free;

	ret = target_mm(&mm);
	if (ret)
		goto out_free;
	w.mm = mm;
	w.private = d;
	ret = memwalk_walk_mm(&w, 0, mw_arch_user_end());
	mmput(mm);
	if (ret < 0)
		goto out_free;
	if (d->truncated) {
		memcpy(d->buf + d->len, TRUNCATED_MSG, sizeof(TRUNCATED_MSG) - 1);
		d->len += sizeof(TRUNCATED_MSG) - 1;
	}

	kfree(d->namebuf);
	d->namebuf = NULL;
	file->private_data = d;
	return 0;

out_free:
	kfree(d->namebuf);
	kvfree(d->buf);
	kfree(d);
	return ret;
}

static ssize_t dump_read(struct file *file, char __user *ubuf, size_t count,
			 loff_t *ppos)
{
	struct dump *d = file->private_data;

	return simple_read_from_buffer(ubuf, count, ppos, d->buf, d->len);
}

static int dump_release(struct inode *inode, struct file *file)
{
	struct dump *d = file->private_data;

	kvfree(d->buf);
	kfree(d);
	return 0;
}

static int maps_open(struct inode *inode, struct file *file)
{
	return dump_open(inode, file, false);
}

static int pagetable_open(struct inode *inode, struct file *file)
{
	return dump_open(inode, file, true);
}

static const struct file_operations maps_fops = {
	.owner		= THIS_MODULE,
	.open		= maps_open,
	.read		= dump_read,
	.llseek		= default_llseek,
	.release	= dump_release,
};

static const struct file_operations pagetable_fops = {
	.owner		= THIS_MODULE,
	.open		= pagetable_open,
	.read		= dump_read,
	.llseek		= default_llseek,
	.release	= dump_release,
};

/*
 * After what the files show (main.c): a file can be read as soon as it
 * exists.
 */
void memwalk_debugfs_init(void)
{
	memwalk_debugfs_root = debugfs_create_dir("memwalk", NULL);
	/* Read-only files stay readable under lockdown=integrity. */
	debugfs_create_file("info", 0400, memwalk_debugfs_root, NULL,
			    &info_fops);
	debugfs_create_file("target", 0600, memwalk_debugfs_root, NULL,
			    &target_fops);
	debugfs_create_file("maps", 0400, memwalk_debugfs_root, NULL,
			    &maps_fops);
	debugfs_create_file("pagetable", 0400, memwalk_debugfs_root, NULL,
			    &pagetable_fops);
	debugfs_create_file("fast_path_check", 0400, memwalk_debugfs_root,
			    NULL, &fast_path_check_fops);
	memwalk_probes_debugfs_init(memwalk_debugfs_root);
}

void memwalk_debugfs_exit(void)
{
	/* Waits for readers still inside our file operations. */
	debugfs_remove(memwalk_debugfs_root);
	memwalk_debugfs_root = NULL;
	put_pid(target_pid);
	target_pid = NULL;
}

bool memwalk_debugfs_present(void)
{
	return !IS_ERR_OR_NULL(memwalk_debugfs_root);
}

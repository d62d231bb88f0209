// SPDX-License-Identifier: GPL-2.0
/*
 * memwalk: the /dev/memwalk misc device and its ioctls.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/build_bug.h>
#include <linux/capability.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/minmax.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/user_namespace.h>

#include "memwalk.h"

/* The layout is shared with 32-bit callers (compat_ptr_ioctl). */
static_assert(sizeof(struct memwalk_info) >= MEMWALK_INFO_SIZE_VER0);
static_assert(sizeof(struct memwalk_info) % 8 == 0);

/*
 * Lab mode: set at load time only (0444), because it changes who may open
 * the device (the node is created 0666 instead of 0600) and what they may
 * see.  See target.c for the rules; they bypass the LSM ptrace hooks.
 */
static bool lab_mode;
module_param(lab_mode, bool, 0444);
MODULE_PARM_DESC(lab_mode,
		 "Let unprivileged users snapshot/translate the processes whose /proc/PID/maps they may read (ptrace-read rules), seeing what pagemap shows them: no PFN, swap offset or folio state. Bypasses LSM ptrace checks (Yama ptrace_scope, SELinux, AppArmor). Load-time only. Default: off");

static int chardev_open(struct inode *inode, struct file *file)
{
	struct memwalk_file *mf;
	struct memwalk_access *acc;

	/*
	 * From the opener's credentials (file->f_cred), like pagemap's PFN
	 * check: full access here once, lab-mode checks per request with the
	 * same f_cred (target.c).  A process that hands the fd on lends its
	 * access, and later ioctls never consult current.
	 */
	mf = kzalloc(sizeof(*mf), GFP_KERNEL_ACCOUNT);
	if (!mf)
		return -ENOMEM;
	acc = &mf->acc;
	acc->full = file_ns_capable(file, &init_user_ns, CAP_SYS_ADMIN);
	if (!acc->full && !lab_mode) {
		kfree(mf);
		return -EPERM;
	}
	acc->file = file;
	file->private_data = mf;

	return 0;
}

static int chardev_release(struct inode *inode, struct file *file)
{
	struct memwalk_file *mf = file->private_data;

	memwalk_snap_free(mf->spare);
	kfree(mf);
	return 0;
}

/*
 * copy_struct_from_user() rules: the caller's size says which version of
 * the struct it knows; a shorter one is zero-extended, a longer one must
 * have a zero tail.  We write back no more than the caller gave.
 */
static long ioctl_info(struct memwalk_info __user *uarg)
{
	struct memwalk_info info = {};
	size_t len;
	u32 usize;
	int ret;

	if (get_user(usize, &uarg->size))
		return -EFAULT;
	if (usize < MEMWALK_INFO_SIZE_VER0)
		return -EINVAL;
	/* Like openat2(): a struct can grow, but not beyond a page. */
	if (usize > PAGE_SIZE)
		return -E2BIG;

	ret = copy_struct_from_user(&info, sizeof(info), uarg, usize);
	if (ret)
		return ret;
	if (info.flags)
		return -EINVAL;

	memwalk_fill_info(&info);
	len = min_t(size_t, usize, sizeof(info));
	info.size = len;

	if (copy_to_user(uarg, &info, len))
		return -EFAULT;

	return 0;
}

static long chardev_ioctl(struct file *file, unsigned int cmd,
			  unsigned long arg)
{
	struct memwalk_file *mf = file->private_data;
	const struct memwalk_access *acc = &mf->acc;
	void __user *uarg = (void __user *)arg;

	/*
	 * Match on type, number and direction but not on the size bits:
	 * the struct's own size field versions it, so a client built with
	 * a larger struct still reaches us (like the DRM core does).
	 */
	switch (cmd & ~IOCSIZE_MASK) {
	case MEMWALK_IOC_INFO & ~IOCSIZE_MASK:
		return ioctl_info(uarg);
	case MEMWALK_IOC_SNAPSHOT & ~IOCSIZE_MASK:
		return memwalk_ioctl_snapshot(acc, &mf->spare, uarg);
	case MEMWALK_IOC_TRANSLATE & ~IOCSIZE_MASK:
		return memwalk_ioctl_translate(acc, uarg);
	case MEMWALK_IOC_VMA_SUMMARY & ~IOCSIZE_MASK:
		return memwalk_ioctl_summary(acc, uarg);
	case MEMWALK_IOC_PHYS & ~IOCSIZE_MASK:
		return memwalk_ioctl_phys(acc, uarg);
	default:
		return -ENOTTY;
	}
}

/* No .llseek: the device is not seekable (lseek fails with ESPIPE). */
static const struct file_operations chardev_fops = {
	.owner		= THIS_MODULE,
	.open		= chardev_open,
	.release	= chardev_release,
	.unlocked_ioctl	= chardev_ioctl,
	.compat_ioctl	= compat_ptr_ioctl,
};

static struct miscdevice chardev_misc = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= MEMWALK_DEVICE_NAME,
	.fops	= &chardev_fops,
	.mode	= 0600,
};

int memwalk_chardev_init(void)
{
	int ret;

	/* Lab mode needs unprivileged openers; target.c restricts them. */
	if (lab_mode)
		chardev_misc.mode = 0666;
	ret = misc_register(&chardev_misc);
	if (ret)
		pr_err("cannot register /dev/%s: %d\n", MEMWALK_DEVICE_NAME, ret);

	return ret;
}

void memwalk_chardev_exit(void)
{
	misc_deregister(&chardev_misc);
}

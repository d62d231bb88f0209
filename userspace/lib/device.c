// SPDX-License-Identifier: GPL-2.0
/* libmemwalk: the character device, and what its errors mean. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device.h"

const char *mw_device_path(void)
{
	const char *path = getenv("MEMWALK_DEVICE");

	return path && *path ? path : MEMWALK_DEVICE_PATH;
}

/*
 * MEMWALK_IOC_INFO.  The strings come back NUL-terminated from the module;
 * they are terminated here again so that a broken module cannot make us
 * read past them.
 */
static int read_info(struct mw_device *dev, struct mw_error *err)
{
	struct memwalk_info *info = &dev->info;
	int ret;

	memset(info, 0, sizeof(*info));
	info->size = sizeof(*info);
	ret = mw_device_ioctl(dev, MEMWALK_IOC_INFO, info);
	if (ret == -ENOTTY)
		return mw_error_set(err, ret,
				    "%s is not a memwalk device: MEMWALK_IOC_INFO failed [%s]",
				    dev->path, mw_errno_text(-ret));
	if (ret)
		return mw_error_set(err, ret, "MEMWALK_IOC_INFO on %s failed [%s]",
				    dev->path, mw_errno_text(-ret));
	if (info->size < MEMWALK_INFO_SIZE_VER0 || info->size > sizeof(*info))
		return mw_error_set(err, -EPROTO,
				    "MEMWALK_IOC_INFO returned a bad size %u (expected %u to %zu)",
				    info->size, MEMWALK_INFO_SIZE_VER0, sizeof(*info));
	info->module_version[sizeof(info->module_version) - 1] = '\0';
	info->release[sizeof(info->release) - 1] = '\0';
	info->machine[sizeof(info->machine) - 1] = '\0';
	return 0;
}

int mw_device_open(struct mw_device **devp, struct mw_error *err)
{
	struct mw_device *dev;
	const char *path = mw_device_path();
	int fd, ret;

	*devp = NULL;
	fd = mw_sys_open(path);
	switch (fd) {
	case -ENOENT:
	case -ENXIO:
	case -ENODEV:
		return mw_error_unavailable(err, fd,
					    "memwalk module not loaded: run 'modprobe memwalk' [%s: %s]",
					    path, mw_errno_text(-fd));
	case -EACCES:
	case -EPERM:
		return mw_error_unavailable(err, fd,
					    "permission denied opening %s: need root (CAP_SYS_ADMIN) [%s]",
					    path, mw_errno_text(-fd));
	default:
		if (fd < 0)
			return mw_error_set(err, fd, "cannot open %s [%s]", path,
					    mw_errno_text(-fd));
	}
	dev = calloc(1, sizeof(*dev));
	if (!dev) {
		mw_sys_close(fd);
		return mw_error_set(err, -ENOMEM, "out of memory");
	}
	dev->fd = fd;
	dev->path = path;
	ret = read_info(dev, err);
	if (ret) {
		mw_device_close(dev);
		return ret;
	}
	*devp = dev;
	return 0;
}

void mw_device_close(struct mw_device *dev)
{
	if (!dev)
		return;
	mw_sys_close(dev->fd);
	free(dev->vma_buf);
	free(dev->run_buf);
	free(dev->pfn_buf);
	free(dev->sum_buf);
	free(dev);
}

int mw_device_ioctl(struct mw_device *dev, unsigned long request, void *arg)
{
	return mw_sys_ioctl(dev->fd, request, arg);
}

/*
 * What an errno from a request about one process means: the one table, as
 * module/snapshot.c, translate.c and target.c return them.
 */
static const struct {
	int err;
	bool unavailable;
	const char *text;	/* %d: the PID */
} pid_errors[] = {
	{ ESRCH, false,
	  "no such process, or it has no user address space (a kernel thread, or exited): %d" },
	{ EINVAL, false,
	  "the kernel rejected the request for pid %d: the range or address lies beyond the end of user space, or the request is malformed" },
	{ EACCES, true,
	  "permission denied for pid %d: in lab mode only processes whose /proc/PID/maps you may read; root reads every process" },
	{ EPERM, true,
	  "permission denied reading the page tables of pid %d: need root (CAP_SYS_ADMIN)" },
	{ ENOTTY, false,
	  "the memwalk module does not know this request (pid %d): it is older than this client" },
	{ E2BIG, false,
	  "the memwalk module rejected the request size (pid %d): it is older than this client" },
	{ EINTR, false, "interrupted while reading the page tables of pid %d" },
	{ ENOMEM, false, "the kernel ran out of memory reading the page tables of pid %d" },
	{ EFAULT, false, "the kernel could not write the buffers for pid %d (a client bug)" },
};

int mw_pid_error(struct mw_error *e, const char *what, int32_t pid, int err)
{
	char text[256];
	size_t i;

	for (i = 0; i < sizeof(pid_errors) / sizeof(pid_errors[0]); i++) {
		if (pid_errors[i].err != err)
			continue;
		snprintf(text, sizeof(text), pid_errors[i].text, pid);
		if (pid_errors[i].unavailable)
			return mw_error_unavailable(e, -err, "%s: %s [%s]", what, text,
						    mw_errno_text(err));
		return mw_error_set(e, -err, "%s: %s [%s]", what, text,
				    mw_errno_text(err));
	}
	return mw_error_set(e, -err, "%s: request for pid %d failed [%s]", what, pid,
			    mw_errno_text(err));
}

int mw_translate(struct mw_device *dev, int32_t pid, uint64_t addr,
		 struct memwalk_translate *t, struct mw_error *err)
{
	int ret;

	if (!(dev->info.features & MEMWALK_FEAT_SNAPSHOT))
		return mw_error_set(err, -EOPNOTSUPP,
				    "the memwalk module (version %s) cannot translate: it lacks the 'snapshot' feature; upgrade it",
				    dev->info.module_version);
	memset(t, 0, sizeof(*t));
	t->size = sizeof(*t);
	t->pid = pid;
	t->addr = addr;
	ret = mw_device_ioctl(dev, MEMWALK_IOC_TRANSLATE, t);
	if (ret)
		return mw_pid_error(err, "translate", pid, -ret);
	if (t->nr_levels > MEMWALK_MAX_LEVELS)
		return mw_error_set(err, -EPROTO,
				    "translate: the module returned %u levels (at most %d)",
				    t->nr_levels, MEMWALK_MAX_LEVELS);
	return 0;
}

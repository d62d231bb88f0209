// SPDX-License-Identifier: GPL-2.0
/* memwalk-client: the character device, and what its errors mean. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>

#include "memwalk-client.h"

/* MEMWALK_DEVICE overrides the node, for tests. */
const char *mw_device_path(void)
{
	const char *path = getenv("MEMWALK_DEVICE");

	return path && *path ? path : MEMWALK_DEVICE_PATH;
}

/* Open the device; on failure say why and return the exit status. */
int mw_device_open(int *fdp)
{
	const char *path = mw_device_path();
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd >= 0) {
		*fdp = fd;
		return MW_EXIT_OK;
	}
	switch (errno) {
	case ENOENT:
	case ENXIO:
	case ENODEV:
		mw_err("memwalk module not loaded: run 'modprobe memwalk' [%s: %s]",
		       path, mw_errno_text(errno));
		return MW_EXIT_UNAVAILABLE;
	case EACCES:
	case EPERM:
		mw_err("permission denied opening %s: need root (CAP_SYS_ADMIN) [%s]",
		       path, mw_errno_text(errno));
		return MW_EXIT_UNAVAILABLE;
	default:
		mw_err("cannot open %s [%s]", path, mw_errno_text(errno));
		return MW_EXIT_FAILURE;
	}
}

/* Every ioctl on the device goes through here (tests link a fake instead). */
int mw_device_ioctl(int fd, unsigned long request, void *arg)
{
	return ioctl(fd, request, arg);
}

/*
 * MEMWALK_IOC_INFO.  The strings come back NUL-terminated from the module;
 * they are terminated here again so that a broken module cannot make us
 * read past them.
 */
int mw_device_info(int fd, struct memwalk_info *info)
{
	memset(info, 0, sizeof(*info));
	info->size = sizeof(*info);
	if (mw_device_ioctl(fd, MEMWALK_IOC_INFO, info) < 0) {
		if (errno == ENOTTY)
			mw_err("%s is not a memwalk device: MEMWALK_IOC_INFO failed [%s]",
			       mw_device_path(), mw_errno_text(errno));
		else
			mw_err("MEMWALK_IOC_INFO on %s failed [%s]",
			       mw_device_path(), mw_errno_text(errno));
		return MW_EXIT_FAILURE;
	}
	if (info->size < MEMWALK_INFO_SIZE_VER0 || info->size > sizeof(*info)) {
		mw_err("MEMWALK_IOC_INFO returned a bad size %u (expected %u to %zu)",
		       info->size, MEMWALK_INFO_SIZE_VER0, sizeof(*info));
		return MW_EXIT_FAILURE;
	}
	info->module_version[sizeof(info->module_version) - 1] = '\0';
	info->release[sizeof(info->release) - 1] = '\0';
	info->machine[sizeof(info->machine) - 1] = '\0';
	mw_check_uapi("module", info->uapi_version);
	return MW_EXIT_OK;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * libmemwalk: the system calls under the device, alone in this file so
 * that tests/fake-device.c can stand in for them.
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "device.h"

int mw_sys_open(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

int mw_sys_ioctl(int fd, unsigned long request, void *arg)
{
	return ioctl(fd, request, arg) < 0 ? -errno : 0;
}

void mw_sys_close(int fd)
{
	close(fd);
}

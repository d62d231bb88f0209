/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libmemwalk: the character device.  One struct mw_device per process
 * run: opened once, MEMWALK_IOC_INFO read once, and kept open with its
 * snapshot buffers for every request that follows (watch takes one
 * snapshot after another on it).
 */
#ifndef MEMWALK_DEVICE_H
#define MEMWALK_DEVICE_H

#include <stddef.h>
#include <stdint.h>

#include <linux/memwalk.h>

#include "error.h"

struct mw_device {
	int fd;
	const char *path;
	struct memwalk_info info;	/* checked, strings terminated */
	/* MEMWALK_IOC_SNAPSHOT's buffers, grown as needed, kept (collect.c) */
	void *vma_buf, *run_buf;
	uint64_t *pfn_buf;
	size_t vma_len, run_len;
	/* MEMWALK_IOC_VMA_SUMMARY's records, kept (vmasummary.c) */
	void *sum_buf;
	size_t sum_len;
};

/* $MEMWALK_DEVICE if set (tests), else MEMWALK_DEVICE_PATH. */
const char *mw_device_path(void);

/*
 * Open the device and read MEMWALK_IOC_INFO.  Returns 0 with *@devp set,
 * or a negative errno with @err saying why (unavailable when the module
 * is not loaded or we may not open it).
 */
int mw_device_open(struct mw_device **devp, struct mw_error *err);
void mw_device_close(struct mw_device *dev);

/* One ioctl on the device: 0 or a negative errno. */
int mw_device_ioctl(struct mw_device *dev, unsigned long request, void *arg);

/*
 * Fill @e for request @what about process @pid that failed with errno
 * @err, in the words of the one table of what the module's errnos mean;
 * returns -@err.
 */
int mw_pid_error(struct mw_error *e, const char *what, int32_t pid, int err);

/*
 * MEMWALK_IOC_TRANSLATE: walk @pid's page tables for @addr into @t.
 * Returns 0 or a negative errno with @err saying why.
 */
int mw_translate(struct mw_device *dev, int32_t pid, uint64_t addr,
		 struct memwalk_translate *t, struct mw_error *err);

/*
 * The system calls under the device (device-sys.c), so that the host
 * tests can link a fake device instead (tests/fake-device.c).  Each
 * returns a negative errno on failure.
 */
int mw_sys_open(const char *path);		/* the fd */
int mw_sys_ioctl(int fd, unsigned long request, void *arg);
void mw_sys_close(int fd);

#endif /* MEMWALK_DEVICE_H */

/* SPDX-License-Identifier: GPL-2.0 */
/* The fake device's MEMWALK_IOC_PHYS (tests/fake-phys.c). */
#ifndef MEMWALK_FAKE_PHYS_H
#define MEMWALK_FAKE_PHYS_H

#include <linux/memwalk.h>

/* 0, or -1 with errno set; @injected: MW_FAKE_ERRNO's errno, or 0. */
int mw_fake_phys(struct memwalk_phys *q, int injected);

#endif /* MEMWALK_FAKE_PHYS_H */

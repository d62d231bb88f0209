/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Making a target's pages idle, as idle-page tracking and DAMON do: their
 * accessed bits cleared and their folios marked young and idle, so that
 * smaps counts them referenced only through the young flag.
 */
#ifndef MEMWALK_IDLE_H
#define MEMWALK_IDLE_H

#include <stddef.h>
#include <sys/types.h>

#include "memwalk_snapshot_lib.h"

#define MW_IDLE_SKIP	"kernel without idle-page tracking (CONFIG_IDLE_PAGE_TRACKING) and DAMON's sysfs interface (CONFIG_DAMON_SYSFS)"

/*
 * Make the present pages of @reg in @pid idle: through
 * /sys/kernel/mm/page_idle/bitmap where the kernel has it, else through
 * a DAMON vaddr kdamond, a few seconds at most.  0 with the pages of @reg
 * that kpageflags then shows idle in @idle (none is possible under DAMON,
 * which samples) and what made them so in @how; -EOPNOTSUPP when the
 * kernel has neither; -1 with @why when a step failed.
 */
int mw_idle_make(pid_t pid, const struct mw_region *reg, size_t *idle,
		 const char **how, struct mw_why *why);

/*
 * In a test (kselftest_harness.h): mw_idle_make() on @reg of @pid, the
 * test skipped where the kernel has neither way, failed where a step
 * failed or no page turned idle; the number made idle in @idle.
 */
#define MW_IDLE_MAKE(pid, reg, idle) do {					\
	struct mw_why __why;							\
	const char *__how;							\
	int __ret = mw_idle_make(pid, reg, &(idle), &__how, &__why);		\
										\
	if (__ret == -EOPNOTSUPP)						\
		SKIP(return, MW_IDLE_SKIP);					\
	ASSERT_EQ(0, __ret) TH_LOG("%s", __why.msg);				\
	ASSERT_LT(0, idle) TH_LOG("%s made no page of %s idle", __how, (reg)->name); \
	TH_LOG("%s made %zu pages of %s young and idle", __how, idle, (reg)->name); \
} while (0)

#endif

// SPDX-License-Identifier: GPL-2.0
/*
 * memwalk: module entry points and the information shared by the ioctl,
 * debugfs and netlink front ends.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/init.h>
#include <linux/module.h>
#include <linux/nodemask.h>
#include <linux/pgtable.h>
#include <linux/string.h>
#include <linux/utsname.h>

#include "events.h"
#include "memwalk.h"

/**
 * memwalk_fill_info() - describe the running module and kernel
 * @info: filled completely, padding and unused bytes zeroed
 *
 * Context: process context (uses current's UTS namespace).  No locks: the
 * release and machine strings are never written after boot (only the
 * nodename and domainname change, under uts_sem), and the feature state is
 * only changed while no front end can call us (see main.c init/exit order).
 */
void memwalk_fill_info(struct memwalk_info *info)
{
	struct new_utsname *uts = utsname();

	memset(info, 0, sizeof(*info));
	info->size = sizeof(*info);
	info->uapi_version = MEMWALK_UAPI_VERSION;
	info->page_shift = PAGE_SHIFT;
	if (memwalk_netlink_registered())
		info->features |= MEMWALK_FEAT_NETLINK;
	if (memwalk_debugfs_present())
		info->features |= MEMWALK_FEAT_DEBUGFS;
	info->features |= MEMWALK_FEAT_SNAPSHOT;
	if (memwalk_mglru_reported())
		info->features |= MEMWALK_FEAT_MGLRU;
	info->pgtable_levels = pgtable_l5_enabled() ? 5 : 4;
	info->nr_node_ids = nr_node_ids;
	strscpy(info->module_version, MEMWALK_MODULE_VERSION,
		sizeof(info->module_version));
	strscpy(info->release, uts->release, sizeof(info->release));
	strscpy(info->machine, uts->machine, sizeof(info->machine));
}

/*
 * Internal pieces first, the user-visible device last, so nobody can reach
 * a half-initialised module; exit tears down in the reverse order.
 */
static int __init memwalk_init(void)
{
	int ret;

	/* Event buffers and workqueue: idle until the probes attach. */
	ret = memwalk_events_init();
	if (ret)
		return ret;

	/* Before the probes: events are multicast through the family. */
	ret = memwalk_netlink_init();
	if (ret)
		goto out_events_free;

	/* Cannot fail: debugfs is optional (see memwalk_debugfs_present()). */
	memwalk_debugfs_init();

	/* Hooks that cannot attach are reported, not fatal. */
	ret = memwalk_probes_init();
	if (ret)
		goto out_debugfs_exit;
	memwalk_lru_init();

	ret = memwalk_chardev_init();
	if (ret)
		goto out_events_stop;

	return 0;

out_events_stop:
	memwalk_lru_exit();
	memwalk_probes_exit();
	memwalk_events_stop();
out_debugfs_exit:
	memwalk_debugfs_exit();
	memwalk_netlink_exit();
out_events_free:
	memwalk_events_free();
	return ret;
}

/*
 * Events stop before the family goes: probes off, then the delivery work,
 * which multicasts through the family; the counters GET_STATUS reads are
 * freed last.
 */
static void __exit memwalk_exit(void)
{
	memwalk_chardev_exit();
	memwalk_lru_exit();
	memwalk_probes_exit();
	memwalk_events_stop();
	memwalk_debugfs_exit();
	memwalk_netlink_exit();
	memwalk_events_free();
}

module_init(memwalk_init);
module_exit(memwalk_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("memwalk: inspect process page tables, LRU and reclaim state");
MODULE_VERSION(MEMWALK_MODULE_VERSION);
MODULE_AUTHOR("memwalk developers");

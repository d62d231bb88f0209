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
#include "arch.h"
#include "memwalk.h"

/**
 * memwalk_fill_info() - describe the running module and kernel
 * @info: filled completely, padding and unused bytes zeroed
 *
 * Context: process context (uses current's UTS namespace).  No locks: the
 * release and machine strings are never written after boot (only the
 * nodename and domainname change, under uts_sem); the feature state is
 * read once each, and changes only while the module loads or unloads.
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
	info->features |= MEMWALK_FEAT_SNAPSHOT | MEMWALK_FEAT_VMA_SUMMARY |
			  MEMWALK_FEAT_PHYS | MEMWALK_FEAT_FOLIO_YOUNG |
			  MEMWALK_FEAT_NO_ACCESSED;
	if (memwalk_mglru_reported())
		info->features |= MEMWALK_FEAT_MGLRU;
	if (mw_arch_has_contiguous())
		info->features |= MEMWALK_FEAT_CONTIGUOUS;
	info->pgtable_levels = mw_arch_pgtable_levels();
	info->nr_node_ids = nr_node_ids;
	strscpy(info->module_version, MEMWALK_MODULE_VERSION,
		sizeof(info->module_version));
	strscpy(info->release, uts->release, sizeof(info->release));
	strscpy(info->machine, uts->machine, sizeof(info->machine));
}

/*
 * What the front ends report on first, then the front ends themselves
 * (debugfs files, the netlink family, the device), so none can reach a
 * half-initialised module; exit removes the front ends first.
 */
static int __init memwalk_init(void)
{
	int ret;

	/* Event buffers and workqueue: idle until the probes attach. */
	ret = memwalk_events_init();
	if (ret)
		return ret;

	/*
	 * Hooks that cannot attach are reported, not fatal.  They record
	 * nothing before the family is registered: nobody can listen.
	 */
	ret = memwalk_probes_init();
	if (ret) {
		pr_err("cannot set up the hooks: %d\n", ret);
		goto out_events_exit;
	}
	memwalk_lru_init();

	/* Cannot fail: debugfs is optional (see memwalk_debugfs_present()). */
	memwalk_debugfs_init();

	ret = memwalk_netlink_init();
	if (ret)
		goto out_debugfs_exit;

	ret = memwalk_chardev_init();
	if (ret)
		goto out_netlink_exit;

	return 0;

out_netlink_exit:
	memwalk_netlink_exit();
out_debugfs_exit:
	memwalk_debugfs_exit();
	/* memwalk_lru_init() cannot fail: undone with the probes. */
	memwalk_lru_exit();
	memwalk_probes_exit();
out_events_exit:
	memwalk_events_exit();
	return ret;
}

/*
 * The front ends go first: the family (no multicast under way once it is
 * gone, see memwalk_netlink_exit()), then the hooks and the sampler, then
 * the delivery work and the counters GET_STATUS read.
 */
static void __exit memwalk_exit(void)
{
	memwalk_chardev_exit();
	memwalk_netlink_exit();
	memwalk_debugfs_exit();
	memwalk_lru_exit();
	memwalk_probes_exit();
	memwalk_events_exit();
}

module_init(memwalk_init);
module_exit(memwalk_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("memwalk: inspect process page tables, LRU and reclaim state");
MODULE_VERSION(MEMWALK_MODULE_VERSION);
MODULE_AUTHOR("memwalk developers");

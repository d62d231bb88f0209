// SPDX-License-Identifier: GPL-2.0
/*
 * libmemwalk: /proc/meminfo's fields and /proc/zoneinfo's zone names, for
 * the census of physical memory (phys.h).
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "phys.h"

struct field {
	const char *name;
	size_t offset;
};

#define FIELD(name, member) { name, offsetof(struct mw_meminfo, member) }

static const struct field fields[] = {
	FIELD("MemTotal", mem_total), FIELD("MemFree", mem_free),
	FIELD("Buffers", buffers), FIELD("Cached", cached),
	FIELD("SwapCached", swap_cached), FIELD("AnonPages", anon_pages),
	FIELD("Mapped", mapped), FIELD("Shmem", shmem), FIELD("Dirty", dirty),
	FIELD("Writeback", writeback), FIELD("Slab", slab),
	FIELD("SReclaimable", sreclaimable), FIELD("SUnreclaim", sunreclaim),
	FIELD("KernelStack", kernel_stack), FIELD("PageTables", page_tables),
	FIELD("SecPageTables", sec_page_tables),
	FIELD("VmallocUsed", vmalloc_used), FIELD("Percpu", percpu),
	FIELD("HardwareCorrupted", hardware_corrupted),
	FIELD("Hugetlb", hugetlb), FIELD("HugePages_Free", hugepages_free),
	FIELD("Hugepagesize", hugepagesize),
};

int mw_meminfo_read(const char *path, struct mw_meminfo *m, struct mw_error *err)
{
	char line[256], name[64];
	long long v;
	size_t i;
	FILE *f;

	for (i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		*(long long *)((char *)m + fields[i].offset) = -1;
	f = fopen(path, "re");
	if (!f)
		return mw_error_set(err, -errno, "cannot open %s [%s]", path,
				    mw_errno_text(errno));
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%63[^:]: %lld", name, &v) != 2)
			continue;
		for (i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
			if (!strcmp(name, fields[i].name))
				*(long long *)((char *)m + fields[i].offset) = v;
	}
	fclose(f);
	if (m->mem_total < 0)
		return mw_error_set(err, -EPROTO, "%s: no MemTotal line", path);
	return 0;
}

void mw_zone_name(unsigned int nid, unsigned int zone, char *buf, size_t len)
{
	char line[256], name[32];
	unsigned int n, idx = 0;
	bool found = false;
	FILE *f = fopen("/proc/zoneinfo", "re");

	/* "Node 0, zone    DMA32": every zone of a node, in index order. */
	while (f && !found && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "Node %u, zone %31s", &n, name) != 2 || n != nid)
			continue;
		found = idx++ == zone;
	}
	if (f)
		fclose(f);
	if (found)
		snprintf(buf, len, "%s", name);
	else
		snprintf(buf, len, "zone %u", zone);
}

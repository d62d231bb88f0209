// SPDX-License-Identifier: GPL-2.0
/* The range of /proc/vmstat's page counters during a census (see the .h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "memwalk_phys_vmstat.h"
#include "memwalk_util.h"

/* The counters that stand for a class, in pages; "-" subtracts. */
static const struct {
	int class;
	const char *add[2];
	const char *sub;
} class_counters[] = {
	{ MEMWALK_PHYS_CLASS_FREE, { "nr_free_pages" } },
	{ MEMWALK_PHYS_CLASS_SLAB, { "nr_slab_reclaimable", "nr_slab_unreclaimable" } },
	{ MEMWALK_PHYS_CLASS_PGTABLE, { "nr_page_table_pages" } },
	{ MEMWALK_PHYS_CLASS_ANON, { "nr_anon_pages" } },
	{ MEMWALK_PHYS_CLASS_SHMEM, { "nr_shmem" } },
	/* nr_file_pages counts shmem and swap cache too. */
	{ MEMWALK_PHYS_CLASS_FILE, { "nr_file_pages" }, "nr_shmem" },
};

static int64_t counter(const char *buf, const char *name)
{
	size_t len = strlen(name);
	const char *p = buf;

	while ((p = strstr(p, name))) {
		if ((p == buf || p[-1] == '\n') && p[len] == ' ')
			return strtoll(p + len + 1, NULL, 10);
		p += len;
	}
	return 0;
}

static int read_once(struct mw_vmstat_range *r)
{
	static char buf[16384];
	size_t i, j;
	int ret = mw_read_file("/proc/vmstat", buf, sizeof(buf));

	if (ret)
		return -ret;
	for (i = 0; i < sizeof(class_counters) / sizeof(class_counters[0]); i++) {
		int k = class_counters[i].class;
		int64_t v = 0;

		for (j = 0; j < 2 && class_counters[i].add[j]; j++)
			v += counter(buf, class_counters[i].add[j]);
		if (class_counters[i].sub)
			v -= counter(buf, class_counters[i].sub);
		if (!r->seen[k] || v < r->lo[k])
			r->lo[k] = v;
		if (!r->seen[k] || v > r->hi[k])
			r->hi[k] = v;
		r->seen[k] = true;
	}
	r->reads++;
	return 0;
}

static void *watch(void *arg)
{
	struct mw_vmstat_range *r = arg;

	while (!r->stop && !r->err) {
		r->err = read_once(r);
		usleep(1000);
	}
	return NULL;
}

int mw_vmstat_range_start(struct mw_vmstat_range *r)
{
	memset(r, 0, sizeof(*r));
	r->err = read_once(r);
	if (r->err)
		return r->err;
	return pthread_create(&r->thread, NULL, watch, r);
}

int mw_vmstat_range_stop(struct mw_vmstat_range *r)
{
	r->stop = true;
	pthread_join(r->thread, NULL);
	return r->err ? r->err : read_once(r);
}

uint64_t mw_vmstat_range_moved(const struct mw_vmstat_range *r, int k)
{
	uint64_t sum = 0;
	int i;

	if (r->seen[k])
		return r->hi[k] - r->lo[k];
	for (i = 0; i < MEMWALK_PHYS_NR_CLASSES; i++)
		if (r->seen[i])
			sum += r->hi[i] - r->lo[i];
	return sum;
}

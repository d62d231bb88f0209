// SPDX-License-Identifier: GPL-2.0
/* memwalk-client: the snapshot model, and the rules every snapshot obeys. */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "snapshot.h"

struct mw_snapshot *mw_snapshot_new(void)
{
	return calloc(1, sizeof(struct mw_snapshot));
}

void mw_snapshot_free(struct mw_snapshot *snap)
{
	size_t i;

	if (!snap)
		return;
	for (i = 0; i < snap->nr_vmas; i++) {
		free(snap->vmas[i].name);
		free(snap->vmas[i].runs);
	}
	free(snap->vmas);
	free(snap->generator);
	free(snap->module_version);
	free(snap->release);
	free(snap->machine);
	free(snap->hostname);
	free(snap->boot_id);
	free(snap->comm);
	free(snap);
}

char *mw_strdup(const char *s)
{
	return strdup(s ? s : "");
}

/*
 * The host and its boot, so that `diff` can tell snapshots of two
 * machines, or of two boots, apart (their PFNs do not compare).  A boot
 * id that cannot be read stays "".
 */
int mw_snapshot_set_host(struct mw_snapshot *snap)
{
	char boot_id[64] = "";
	struct utsname uts;
	FILE *fp;

	if (uname(&uts))
		uts.nodename[0] = '\0';
	fp = fopen("/proc/sys/kernel/random/boot_id", "r");
	if (fp) {
		if (!fgets(boot_id, sizeof(boot_id), fp))
			boot_id[0] = '\0';
		boot_id[strcspn(boot_id, "\n")] = '\0';
		fclose(fp);
	}
	snap->hostname = mw_strdup(uts.nodename);
	snap->boot_id = mw_strdup(boot_id);
	return snap->hostname && snap->boot_id ? 0 : -ENOMEM;
}

/*
 * Grow *@items (of @size bytes each) to hold one more than *@count, from
 * @first: most VMAs have a few runs, and a snapshot may have 60,000 VMAs.
 */
static int grow(void **items, size_t *cap, size_t count, size_t size,
		size_t first)
{
	size_t new_cap;
	void *p;

	if (count < *cap)
		return 0;
	new_cap = *cap ? *cap * 2 : first;
	if (new_cap > SIZE_MAX / size)
		return -ENOMEM;
	p = realloc(*items, new_cap * size);
	if (!p)
		return -ENOMEM;
	*items = p;
	*cap = new_cap;
	return 0;
}

struct mw_vma *mw_snapshot_add_vma(struct mw_snapshot *snap,
				   const struct mw_vma *vma)
{
	struct mw_vma *v;
	char *name = mw_strdup(vma->name);

	if (!name || grow((void **)&snap->vmas, &snap->cap_vmas, snap->nr_vmas,
			  sizeof(*snap->vmas), 64)) {
		free(name);
		return NULL;
	}
	v = &snap->vmas[snap->nr_vmas++];
	*v = *vma;
	v->name = name;
	v->runs = NULL;
	v->nr_runs = v->cap_runs = 0;
	return v;
}

int mw_vma_add_run(struct mw_vma *vma, const struct memwalk_page_run *run)
{
	int err = grow((void **)&vma->runs, &vma->cap_runs, vma->nr_runs,
		       sizeof(*vma->runs), 2);

	if (err)
		return err;
	vma->runs[vma->nr_runs++] = *run;
	return 0;
}

void mw_vma_trim(struct mw_vma *vma)
{
	struct memwalk_page_run *p;

	if (vma->nr_runs == vma->cap_runs)
		return;
	if (!vma->nr_runs) {
		free(vma->runs);
		vma->runs = NULL;
		vma->cap_runs = 0;
		return;
	}
	p = realloc(vma->runs, vma->nr_runs * sizeof(*vma->runs));
	if (p) {
		vma->runs = p;
		vma->cap_runs = vma->nr_runs;
	}
}

/*
 * Whether run @b continues run @a: the kernel's rule for one run (alike in
 * every field, pages consecutive, and PFNs or swap offsets consecutive
 * where they are shown).  Used to join a run cut by the end of one call
 * with its continuation in the next.
 */
bool mw_run_joins(const struct mw_snapshot *snap,
		  const struct memwalk_page_run *a,
		  const struct memwalk_page_run *b)
{
	if (b->start != mw_run_end(snap, a) ||
	    a->flags != b->flags || a->folio_flags != b->folio_flags ||
	    a->mapcount != b->mapcount || a->refcount != b->refcount ||
	    a->nid != b->nid || a->order != b->order || a->lru_gen != b->lru_gen ||
	    (uint64_t)a->nr_pages + b->nr_pages > UINT32_MAX)
		return false;
	if (!mw_snap_has_pfn(snap) || mw_run_state(a) == MEMWALK_STATE_MARKER)
		return a->pfn == b->pfn;
	return b->pfn == a->pfn + a->nr_pages;
}

/* ---- checks ------------------------------------------------------------ */

static bool __attribute__((format(printf, 3, 4)))
bad(char *msg, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, len, fmt, ap);
	va_end(ap);
	return false;
}

static bool is_power_of_two(uint64_t v)
{
	return v && !(v & (v - 1));
}

static bool check_run(const struct mw_snapshot *snap, const struct mw_vma *vma,
		      size_t vi, size_t ri, uint64_t prev_end, char *msg, size_t len)
{
	const struct memwalk_page_run *r = &vma->runs[ri];
	unsigned int state = mw_run_state(r), level = mw_run_level(r);
	uint64_t bytes;

	if (!r->nr_pages)
		return bad(msg, len, "vmas[%zu].runs[%zu]: nr_pages is 0", vi, ri);
	if (r->start & (snap->page_size - 1))
		return bad(msg, len, "vmas[%zu].runs[%zu]: start 0x%llx is not page aligned",
			   vi, ri, (unsigned long long)r->start);
	if (state < MEMWALK_STATE_PRESENT || state > MEMWALK_STATE_SHMEM_SWAP)
		return bad(msg, len, "vmas[%zu].runs[%zu]: unknown state %u in flags",
			   vi, ri, state);
	if (level > MEMWALK_LEVEL_PUD)
		return bad(msg, len, "vmas[%zu].runs[%zu]: unknown level %u in flags",
			   vi, ri, level);
	bytes = (uint64_t)r->nr_pages * snap->page_size;
	if (r->start < vma->start || r->start >= vma->end ||
	    bytes > vma->end - r->start)
		return bad(msg, len, "vmas[%zu].runs[%zu]: pages 0x%llx+%u lie outside the VMA 0x%llx-0x%llx",
			   vi, ri, (unsigned long long)r->start, r->nr_pages,
			   (unsigned long long)vma->start,
			   (unsigned long long)vma->end);
	if (r->start < prev_end)
		return bad(msg, len, "vmas[%zu].runs[%zu]: start 0x%llx overlaps or precedes the run before it",
			   vi, ri, (unsigned long long)r->start);
	return true;
}

bool mw_snapshot_check(const struct mw_snapshot *snap, char *msg, size_t len)
{
	uint64_t prev_end = 0;
	size_t vi, ri;

	if (!is_power_of_two(snap->page_size) || snap->page_size < 1024 ||
	    snap->page_size > (1ULL << 30))
		return bad(msg, len, "page_size %llu is not a power of two from 1024 to 1G",
			   (unsigned long long)snap->page_size);
	if (snap->range_end && snap->range_start >= snap->range_end)
		return bad(msg, len, "range: start 0x%llx is not below end 0x%llx",
			   (unsigned long long)snap->range_start,
			   (unsigned long long)snap->range_end);
	for (vi = 0; vi < snap->nr_vmas; vi++) {
		const struct mw_vma *vma = &snap->vmas[vi];
		uint64_t run_end = 0;

		if (vma->start >= vma->end)
			return bad(msg, len, "vmas[%zu]: start 0x%llx is not below end 0x%llx",
				   vi, (unsigned long long)vma->start,
				   (unsigned long long)vma->end);
		if ((vma->start | vma->end) & (snap->page_size - 1))
			return bad(msg, len, "vmas[%zu]: 0x%llx-0x%llx is not page aligned",
				   vi, (unsigned long long)vma->start,
				   (unsigned long long)vma->end);
		if (vma->start < prev_end)
			return bad(msg, len, "vmas[%zu]: 0x%llx-0x%llx overlaps or precedes the VMA before it",
				   vi, (unsigned long long)vma->start,
				   (unsigned long long)vma->end);
		if (vma->page_shift >= 64 ||
		    (1ULL << vma->page_shift) < snap->page_size)
			return bad(msg, len, "vmas[%zu]: page_shift %u is below the page size",
				   vi, vma->page_shift);
		prev_end = vma->end;
		for (ri = 0; ri < vma->nr_runs; ri++) {
			if (!check_run(snap, vma, vi, ri, run_end, msg, len))
				return false;
			run_end = mw_run_end(snap, &vma->runs[ri]);
		}
	}
	return true;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * libmemwalk: the processes of a scan (procscan.c) summed per user, or
 * their VMAs summed per mapping, for "memwalk-client ps --by".
 *
 * Per user, a group's numbers are the sum of its processes' (each as
 * smaps_rollup rounds it).  Per mapping, each VMA is rounded to kB as its
 * smaps entry prints it and the entries are summed: a file's Pss is the
 * sum of the Pss lines of its smaps entries in every process that maps
 * it.  A file is its device and inode (a path may be reached by several
 * names); any other mapping is its name ([heap], [stack], [vdso],
 * [anon:NAME]), and the unnamed anonymous ones are one, "[ anon ]".
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "names.h"
#include "procscan.h"

/* One VMA of one process, until they are grouped. */
struct mw_map_entry {
	uint32_t kind;			/* MEMWALK_NAME_* */
	uint32_t dev_major, dev_minor;
	uint64_t ino;			/* files: the key; else 0 and the name is */
	char *name;
	int32_t pid;
	bool folio;
	struct mw_usage usage;
};

static int out_of_memory(struct mw_error *err)
{
	return mw_error_set(err, -ENOMEM, "ps: out of memory");
}

int mw_group_users(const struct mw_procscan *scan, struct mw_groups *g,
		   struct mw_error *err)
{
	size_t i, k;

	memset(g, 0, sizeof(*g));
	for (i = 0; i < scan->nr_procs; i++) {
		const struct mw_proc *p = &scan->procs[i];
		struct mw_group *grp;

		for (k = 0; k < g->nr_groups && g->groups[k].uid != p->uid; k++)
			;
		if (k == g->nr_groups) {
			grp = realloc(g->groups, (k + 1) * sizeof(*grp));
			if (!grp)
				return out_of_memory(err);
			g->groups = grp;
			grp = &g->groups[g->nr_groups++];
			memset(grp, 0, sizeof(*grp));
			grp->uid = p->uid;
			grp->folio = true;
		}
		grp = &g->groups[k];
		grp->nr_procs++;
		grp->folio &= p->folio;
		mw_usage_add(&grp->usage, &p->usage);
	}
	return 0;
}

int mw_group_take_vmas(void *arg, const struct mw_proc *p,
		       const struct mw_snapshot *snap, struct mw_error *err)
{
	struct mw_groups *g = arg;
	size_t v;

	for (v = 0; v < snap->nr_vmas; v++) {
		const struct mw_vma *vma = &snap->vmas[v];
		struct mw_smaps_stats st = { 0 };
		struct mw_map_entry *e;

		if (g->nr_entries == g->cap_entries) {
			size_t cap = g->cap_entries ? g->cap_entries * 2 : 1024;

			e = realloc(g->entries, cap * sizeof(*e));
			if (!e)
				return out_of_memory(err);
			g->entries = e;
			g->cap_entries = cap;
		}
		e = &g->entries[g->nr_entries];
		memset(e, 0, sizeof(*e));
		e->kind = vma->name_kind;
		if (vma->name_kind == MEMWALK_NAME_FILE && vma->ino) {
			e->dev_major = vma->dev_major;
			e->dev_minor = vma->dev_minor;
			e->ino = vma->ino;
		}
		e->name = mw_strdup(mw_vma_label(vma));
		if (!e->name)
			return out_of_memory(err);
		e->pid = p->pid;
		e->folio = mw_snap_has_folio(snap);
		mw_smaps_accumulate(snap, vma, &st);
		mw_usage_from_stats(&st, &e->usage);
		g->nr_entries++;
	}
	return 0;
}

/* The mapping an entry belongs to: kind, then file or name. */
static int cmp_mapping(const struct mw_map_entry *a, const struct mw_map_entry *b)
{
	if (a->kind != b->kind)
		return a->kind < b->kind ? -1 : 1;
	if (a->ino || b->ino) {
		if (a->dev_major != b->dev_major)
			return a->dev_major < b->dev_major ? -1 : 1;
		if (a->dev_minor != b->dev_minor)
			return a->dev_minor < b->dev_minor ? -1 : 1;
		if (a->ino != b->ino)
			return a->ino < b->ino ? -1 : 1;
		return 0;
	}
	return strcmp(a->name, b->name);
}

static int cmp_entry(const void *x, const void *y)
{
	const struct mw_map_entry *a = x, *b = y;
	int c = cmp_mapping(a, b);

	if (c)
		return c;
	return (a->pid > b->pid) - (a->pid < b->pid);
}

int mw_group_mappings(struct mw_groups *g, struct mw_error *err)
{
	struct mw_group *grp = NULL;
	size_t i;

	qsort(g->entries, g->nr_entries, sizeof(*g->entries), cmp_entry);
	for (i = 0; i < g->nr_entries; i++) {
		struct mw_map_entry *e = &g->entries[i];
		bool same = i && !cmp_mapping(&g->entries[i - 1], e);

		if (!same) {
			grp = realloc(g->groups, (g->nr_groups + 1) * sizeof(*grp));
			if (!grp)
				return out_of_memory(err);
			g->groups = grp;
			grp = &g->groups[g->nr_groups++];
			memset(grp, 0, sizeof(*grp));
			grp->name = mw_strdup(e->name);	/* the first name seen */
			if (!grp->name)
				return out_of_memory(err);
			grp->folio = true;
		}
		if (!same || g->entries[i - 1].pid != e->pid)
			grp->nr_procs++;
		grp->folio &= e->folio;
		mw_usage_add(&grp->usage, &e->usage);
	}
	for (i = 0; i < g->nr_entries; i++)
		free(g->entries[i].name);
	free(g->entries);
	g->entries = NULL;
	g->nr_entries = g->cap_entries = 0;
	return 0;
}

void mw_groups_free(struct mw_groups *g)
{
	size_t i;

	for (i = 0; i < g->nr_groups; i++)
		free(g->groups[i].name);
	for (i = 0; i < g->nr_entries; i++)
		free(g->entries[i].name);
	free(g->groups);
	free(g->entries);
	memset(g, 0, sizeof(*g));
}

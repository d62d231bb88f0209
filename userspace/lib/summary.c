// SPDX-License-Identifier: GPL-2.0
/*
 * memwalk-client: what each page run counts for, with the rules of
 * /proc/PID/smaps (fs/proc/task_mmu.c: smaps_pte_entry(), smaps_pmd_entry(),
 * smaps_account(), smaps_page_accumulate(), smaps_hugetlb_range()), so that
 * the table, JSON and diff agree with smaps VMA by VMA.  This is the only
 * place that decides it.
 *
 * The rules, per entry of a non-hugetlb VMA:
 *  - Swap: a swap entry (not migration, device, hwpoison or marker), and
 *    a shmem page in swap where the entry is none (shmem-swap runs).
 *  - Rss ("resident") counts the pages smaps finds a struct page for:
 *    present entries except the zero page (4K or huge) and special/PFN-map
 *    entries (vm_normal_page() gives NULL), and the pages behind
 *    migration, device and hwpoison entries (pfn swap entries).  PUD-level
 *    entries are not walked by smaps and count for nothing.
 *  - Everything below only for pages counted in Rss:
 *    Anonymous for anon folios, LazyFree for clean anon folios that are not
 *    swap-backed (MADV_FREE), KSM for KSM folios, Referenced when the entry
 *    is young or the folio referenced or young (MEMWALK_RUN_FOLIO_YOUNG).
 *  - Dirty when the entry is dirty (present entries only) or the folio is.
 *  - A page is private when its folio's refcount is 1 or its mapcount is
 *    below 2, shared otherwise; non-present entries count whole and as
 *    shared (6.12; 6.1 counted migration entries as private: the sums
 *    Shared_Dirty + Private_Dirty etc. are the same on both).
 *  - Pss: each page's size divided by its mapcount when shared, summed in
 *    1/4096 units (PSS_SHIFT 12) and shifted down at the end, as smaps
 *    does; Locked is the Pss of VM_LOCKED VMAs.
 *  - PMD-level entries also count for AnonHugePages (anon folio),
 *    ShmemPmdMapped (swap-backed) or FilePmdMapped (other, not device).
 * Hugetlb VMAs count only Shared_Hugetlb/Private_Hugetlb: the size of each
 * present, migration, device or hwpoison entry, shared when not present or
 * mapped more than once.
 *
 * Without folio state (--no-folio) mapcount, refcount and folio flags read
 * as 0: pages count as private and whole, so Pss, the shared/private split,
 * Referenced, LazyFree, KSM and Locked are not exact; without the struct
 * page (--entry-only) neither are Rss, Dirty, Anonymous and the THP fields.
 * mw_summary_exact() says which, from the fields' needs below.
 */
#include <stddef.h>
#include <string.h>

#include "summary.h"

#define FIELD(name, needs) { #name, offsetof(struct mw_summary, name), MW_NEEDS_##needs, #name "_kb" }

/*
 * Rss needs the page (the huge zero page, special entries), Dirty the
 * folio's dirty bit (a run flag read from the page), the THP fields the
 * folio's kind; Hugetlb counts entries, its split needs the mapcount.
 */
const struct mw_summary_field mw_summary_fields[] = {
	FIELD(size, ENTRY), FIELD(rss, PAGE), FIELD(pss, FOLIO),
	FIELD(shared_clean, FOLIO), FIELD(shared_dirty, FOLIO),
	FIELD(private_clean, FOLIO), FIELD(private_dirty, FOLIO), FIELD(dirty, PAGE),
	FIELD(referenced, FOLIO), FIELD(anonymous, PAGE), FIELD(lazyfree, FOLIO),
	FIELD(ksm, FOLIO), FIELD(anon_thp, PAGE), FIELD(shmem_thp, PAGE),
	FIELD(file_thp, PAGE), FIELD(thp, PAGE),
	FIELD(shared_hugetlb, FOLIO), FIELD(private_hugetlb, FOLIO), FIELD(hugetlb, ENTRY),
	FIELD(swap, ENTRY), FIELD(locked, FOLIO),
};

const size_t mw_nr_summary_fields =
	sizeof(mw_summary_fields) / sizeof(mw_summary_fields[0]);

bool mw_summary_exact(const struct mw_snapshot *snap,
		      const struct mw_summary_field *f)
{
	switch (f->needs) {
	case MW_NEEDS_FOLIO:
		return mw_snap_has_folio(snap);
	case MW_NEEDS_PAGE:
		return !(snap->flags & MEMWALK_SNAP_ENTRY_ONLY);
	default:
		return true;
	}
}

const struct mw_summary_field *mw_summary_field(const char *key)
{
	size_t f;

	for (f = 0; f < mw_nr_summary_fields; f++)
		if (!strcmp(mw_summary_fields[f].key, key))
			return &mw_summary_fields[f];
	return NULL;
}

/* Whether smaps finds a struct page behind the entry (and counts it). */
static bool has_page(const struct memwalk_page_run *r)
{
	switch (mw_run_state(r)) {
	case MEMWALK_STATE_PRESENT:
		return !(r->flags & (MEMWALK_RUN_ZERO | MEMWALK_RUN_SPECIAL));
	case MEMWALK_STATE_MIGRATION:
	case MEMWALK_STATE_DEVICE:
	case MEMWALK_STATE_HWPOISON:
		return true;
	default:
		return false;
	}
}

static bool is_anon(const struct memwalk_page_run *r)
{
	return (r->flags & MEMWALK_RUN_ANON) || mw_folio_test(r, MEMWALK_KPF_ANON);
}

bool mw_run_dirty(const struct memwalk_page_run *r)
{
	return (mw_run_state(r) == MEMWALK_STATE_PRESENT &&
		(r->flags & (MEMWALK_RUN_DIRTY | MEMWALK_RUN_FOLIO_DIRTY))) ||
	       mw_folio_test(r, MEMWALK_KPF_DIRTY);
}

/*
 * smaps_page_accumulate(), for @bytes of @r whose Pss is @pss: Pss_Anon
 * for anon folios, Pss_Shmem for other swap-backed ones, else Pss_File.
 */
static void accumulate(struct mw_smaps_stats *st, const struct memwalk_page_run *r,
		       uint64_t bytes, uint64_t pss, bool dirty, bool locked,
		       bool private)
{
	st->pss += pss;
	if (is_anon(r))
		st->pss_anon += pss;
	else if ((r->flags & MEMWALK_RUN_SHMEM) ||
		 mw_folio_test(r, MEMWALK_KPF_SWAPBACKED))
		st->pss_shmem += pss;
	else
		st->pss_file += pss;
	if (locked)
		st->pss_locked += pss;
	if (dirty) {
		if (private)
			st->private_dirty += bytes;
		else
			st->shared_dirty += bytes;
	} else {
		if (private)
			st->private_clean += bytes;
		else
			st->shared_clean += bytes;
	}
}

/* smaps_account(), for a whole run. */
static void account(struct mw_smaps_stats *st, const struct mw_snapshot *snap,
		    const struct memwalk_page_run *r, bool locked)
{
	bool present = mw_run_state(r) == MEMWALK_STATE_PRESENT;
	bool dirty = mw_run_dirty(r);
	uint64_t page = snap->page_size;
	uint64_t bytes = r->nr_pages * page;

	if (is_anon(r)) {
		st->anonymous += bytes;
		if (mw_snap_has_folio(snap) &&
		    !mw_folio_test(r, MEMWALK_KPF_SWAPBACKED) && !dirty)
			st->lazyfree += bytes;
	}
	if (mw_folio_test(r, MEMWALK_KPF_KSM))
		st->ksm += bytes;
	st->resident += bytes;
	if ((present && (r->flags & MEMWALK_RUN_ACCESSED)) ||
	    (r->flags & MEMWALK_RUN_FOLIO_YOUNG) ||
	    mw_folio_test(r, MEMWALK_KPF_REFERENCED))
		st->referenced += bytes;

	if (r->refcount == 1 || !present) {
		accumulate(st, r, bytes, bytes << MW_PSS_SHIFT, dirty, locked, present);
	} else if (r->mapcount >= 2) {
		/* per page, as smaps divides: (PAGE_SIZE << 12) / mapcount */
		accumulate(st, r, bytes,
			   r->nr_pages * ((page << MW_PSS_SHIFT) / r->mapcount),
			   dirty, locked, false);
	} else {
		accumulate(st, r, bytes, bytes << MW_PSS_SHIFT, dirty, locked, true);
	}
}

static void account_hugetlb(struct mw_smaps_stats *st, const struct mw_snapshot *snap,
			    const struct memwalk_page_run *r)
{
	uint64_t bytes = r->nr_pages * snap->page_size;
	unsigned int state = mw_run_state(r);

	/* any present entry (no vm_normal_page() here), or a pfn swap entry */
	if (state == MEMWALK_STATE_SWAP || state == MEMWALK_STATE_MARKER)
		return;
	if (state != MEMWALK_STATE_PRESENT || r->mapcount >= 2)
		st->shared_hugetlb += bytes;
	else
		st->private_hugetlb += bytes;
}

static void account_pmd(struct mw_smaps_stats *st, const struct mw_snapshot *snap,
			const struct memwalk_page_run *r)
{
	uint64_t bytes = r->nr_pages * snap->page_size;

	if (mw_run_state(r) == MEMWALK_STATE_DEVICE)
		return;		/* zone-device folio: smaps counts none */
	if (is_anon(r))
		st->anon_thp += bytes;
	else if ((r->flags & MEMWALK_RUN_SHMEM) ||
		 mw_folio_test(r, MEMWALK_KPF_SWAPBACKED))
		st->shmem_thp += bytes;
	else
		st->file_thp += bytes;
}

void mw_smaps_accumulate(const struct mw_snapshot *snap, const struct mw_vma *vma,
			 struct mw_smaps_stats *st)
{
	bool hugetlb = vma->flags & MEMWALK_VMA_HUGETLB;
	bool locked = vma->flags & MEMWALK_VMA_LOCKED;
	size_t i;

	st->size += vma->end - vma->start;
	for (i = 0; i < vma->nr_runs; i++) {
		const struct memwalk_page_run *r = &vma->runs[i];
		unsigned int level = mw_run_level(r);

		if (hugetlb) {
			account_hugetlb(st, snap, r);
			continue;
		}
		if (mw_state_in_swap(mw_run_state(r))) {
			st->swap += r->nr_pages * snap->page_size;
			continue;
		}
		if (level == MEMWALK_LEVEL_PUD || !has_page(r))
			continue;
		if (level == MEMWALK_LEVEL_PMD)
			account_pmd(st, snap, r);
		account(st, snap, r, locked);
	}
}

void mw_smaps_summary(const struct mw_smaps_stats *st, struct mw_summary *sum)
{
	memset(sum, 0, sizeof(*sum));
	sum->size = st->size >> 10;
	sum->rss = st->resident >> 10;
	sum->pss = st->pss >> MW_PSS_SHIFT >> 10;
	sum->shared_clean = st->shared_clean >> 10;
	sum->shared_dirty = st->shared_dirty >> 10;
	sum->private_clean = st->private_clean >> 10;
	sum->private_dirty = st->private_dirty >> 10;
	sum->dirty = sum->shared_dirty + sum->private_dirty;
	sum->referenced = st->referenced >> 10;
	sum->anonymous = st->anonymous >> 10;
	sum->lazyfree = st->lazyfree >> 10;
	sum->ksm = st->ksm >> 10;
	sum->anon_thp = st->anon_thp >> 10;
	sum->shmem_thp = st->shmem_thp >> 10;
	sum->file_thp = st->file_thp >> 10;
	sum->thp = sum->anon_thp + sum->shmem_thp + sum->file_thp;
	sum->shared_hugetlb = st->shared_hugetlb >> 10;
	sum->private_hugetlb = st->private_hugetlb >> 10;
	sum->hugetlb = sum->shared_hugetlb + sum->private_hugetlb;
	sum->swap = st->swap >> 10;
	sum->locked = st->pss_locked >> MW_PSS_SHIFT >> 10;
}

void mw_summarize_vma(const struct mw_snapshot *snap, const struct mw_vma *vma,
		      struct mw_summary *sum)
{
	struct mw_smaps_stats st = { 0 };

	mw_smaps_accumulate(snap, vma, &st);
	mw_smaps_summary(&st, sum);
}

void mw_summary_add(struct mw_summary *total, const struct mw_summary *sum)
{
	size_t f;

	for (f = 0; f < mw_nr_summary_fields; f++)
		*(uint64_t *)((char *)total + mw_summary_fields[f].offset) +=
			mw_summary_get(sum, &mw_summary_fields[f]);
}

void mw_summarize_all(const struct mw_snapshot *snap, struct mw_summary *total)
{
	struct mw_summary sum;
	size_t i;

	memset(total, 0, sizeof(*total));
	for (i = 0; i < snap->nr_vmas; i++) {
		mw_summarize_vma(snap, &snap->vmas[i], &sum);
		mw_summary_add(total, &sum);
	}
}

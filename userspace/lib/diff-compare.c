// SPDX-License-Identifier: GPL-2.0
/*
 * libmemwalk: whether two snapshots compare as they are (same process,
 * kernel, machine and boot, mode), in words for the refusal or the
 * warning of `diff --force`, and what mw_diff() then left out.  See
 * diff.h.
 */
#include <stdio.h>
#include <string.h>

#include "diff.h"

#define SNAP_MODE	(MEMWALK_SNAP_FOLIO | MEMWALK_SNAP_NO_PFN | \
			 MEMWALK_SNAP_ENTRY_ONLY)

static bool both_differ(const char *x, const char *y)
{
	return x && y && x[0] && y[0] && strcmp(x, y);
}

unsigned int mw_diff_mismatches(const struct mw_snapshot *a,
				const struct mw_snapshot *b)
{
	unsigned int m = 0;

	if (a->pid != b->pid)
		m |= MW_MISMATCH_PID;
	if (strcmp(a->release, b->release))
		m |= MW_MISMATCH_KERNEL;
	if (both_differ(a->hostname, b->hostname) || both_differ(a->boot_id, b->boot_id))
		m |= MW_MISMATCH_MACHINE;
	if ((a->flags ^ b->flags) & SNAP_MODE)
		m |= MW_MISMATCH_MODE;
	return m;
}

/* @s with bytes that are not printable ASCII as '?': file contents. */
static const char *printable(const char *s, char *buf, size_t len)
{
	size_t i;

	snprintf(buf, len, "%s", s ? s : "");
	for (i = 0; buf[i]; i++)
		if (buf[i] < 0x20 || buf[i] > 0x7e)
			buf[i] = '?';
	return buf;
}

static const char *mode_name(uint32_t flags)
{
	bool hidden = flags & MEMWALK_SNAP_NO_PFN;

	if (flags & MEMWALK_SNAP_ENTRY_ONLY)
		return hidden ? "entry-only, PFNs hidden" : "entry-only";
	if (flags & MEMWALK_SNAP_FOLIO)
		return hidden ? "full, PFNs hidden" : "full";
	return hidden ? "without folio state, PFNs hidden" : "without folio state";
}

void mw_diff_mismatch_text(const struct mw_snapshot *a,
			   const struct mw_snapshot *b, unsigned int mismatch,
			   char *buf, size_t len)
{
	char x[80], y[80];

	switch (mismatch) {
	case MW_MISMATCH_PID:
		snprintf(buf, len, "different processes (pid %d and %d)", a->pid, b->pid);
		break;
	case MW_MISMATCH_KERNEL:
		snprintf(buf, len, "different kernels (%s and %s)",
			 printable(a->release, x, sizeof(x)),
			 printable(b->release, y, sizeof(y)));
		break;
	case MW_MISMATCH_MACHINE:
		if (both_differ(a->hostname, b->hostname))
			snprintf(buf, len, "different machines (%s and %s)",
				 printable(a->hostname, x, sizeof(x)),
				 printable(b->hostname, y, sizeof(y)));
		else
			snprintf(buf, len, "different boots (boot id %s and %s)",
				 printable(a->boot_id, x, sizeof(x)),
				 printable(b->boot_id, y, sizeof(y)));
		break;
	case MW_MISMATCH_MODE:
		snprintf(buf, len, "different modes (%s and %s)", mode_name(a->flags),
			 mode_name(b->flags));
		break;
	default:
		snprintf(buf, len, "?");
	}
}

/* Indexed by bit number. */
static const char *const mismatch_keys[MW_NR_MISMATCHES] = {
	"pid", "kernel", "machine", "mode",
};
static const char *const not_compared_keys[MW_NR_NOT_COMPARED] = {
	"pfn", "folio", "page",
};
static const char *const not_compared_texts[MW_NR_NOT_COMPARED] = {
	"PFNs and swap slots (so no move, nor a shared page's COW break, is seen)",
	"folio state (folio flags, mapcount, refcount, order, node, generation)",
	"anon, file, shmem, exclusive and folio-dirty bits (entry-only)",
};

/* The name of a single bit @bit of a mask from @table of @n names. */
static const char *bit_entry(const char *const *table, unsigned int n,
			     unsigned int bit)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (bit == 1u << i)
			return table[i];
	return "?";
}

const char *mw_diff_mismatch_key(unsigned int mismatch)
{
	return bit_entry(mismatch_keys, MW_NR_MISMATCHES, mismatch);
}

const char *mw_not_compared_key(unsigned int bit)
{
	return bit_entry(not_compared_keys, MW_NR_NOT_COMPARED, bit);
}

const char *mw_not_compared_text(unsigned int bit)
{
	return bit_entry(not_compared_texts, MW_NR_NOT_COMPARED, bit);
}

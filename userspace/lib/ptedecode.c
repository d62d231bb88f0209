// SPDX-License-Identifier: GPL-2.0
/*
 * memwalk-client: page-table entries decoded per architecture.
 *
 * x86-64: the bit positions of arch/x86/include/asm/pgtable_types.h, and
 * its swap format.  arm64: the VMSAv8-64 descriptor format with the 4K
 * granule (Arm ARM D8.3), and Linux's software bits
 * (arch/arm64/include/asm/pgtable-prot.h and pgtable.h): 55 dirty,
 * 56 special on every line; 57 devmap until 6.15; 58 PROT_NONE before
 * 6.9 and uffd-wp since.  Entries that are not valid hold Linux's software
 * format: PROT_NONE (the page stays mapped: decoded as a leaf), or a swap
 * entry (type, offset), laid out as 6.9 changed it.  The module's debugfs
 * pagetable view names the bits with the kernel's own macros.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "ptedecode.h"

#define ADD(d, used, ...)						\
	((used) += snprintf((d)->bits + (used),				\
			    (used) < sizeof((d)->bits) ? sizeof((d)->bits) - (used) : 0, \
			    __VA_ARGS__))

struct mw_pte_format mw_pte_format(const struct memwalk_info *info)
{
	struct mw_pte_format f = { .arch = MW_PTE_RAW };
	unsigned int major = 0, minor = 0;

	if (!strcmp(info->machine, "x86_64")) {
		f.arch = MW_PTE_X86_64;
	} else if (!strcmp(info->machine, "aarch64") && info->page_shift == 12 &&
		   sscanf(info->release, "%u.%u", &major, &minor) == 2) {
		f.arch = MW_PTE_ARM64_4K;
		/* With 4K pages arm64 runs 5 levels only with 52-bit addresses. */
		f.lpa2 = info->pgtable_levels == 5;
		f.present_invalid_ng = major > 6 || (major == 6 && minor >= 9);
	}
	return f;
}

/* --- x86-64 ---------------------------------------------------------------- */

#define X86_PFN_MASK		0x000ffffffffff000ULL
#define X86_PMD_LEAF_MASK	0x000fffffffe00000ULL
#define X86_PUD_LEAF_MASK	0x000fffffc0000000ULL

/* Bits of a present (or PROTNONE) x86-64 entry; leaf-only ones where noted. */
static const struct {
	unsigned int bit;
	const char *name;
	bool leaf;
} x86_bits[] = {
	{ 1, "RW", false }, { 2, "US", false }, { 3, "PWT", false },
	{ 4, "PCD", false }, { 5, "A", false }, { 6, "D", true },
	{ 8, "G", true }, { 9, "SPECIAL", true }, { 10, "UFFD_WP", true },
	{ 11, "SOFT_DIRTY", true }, { 57, "DEVMAP", true },
	{ 58, "SAVED_DIRTY", true }, { 63, "NX", false },
};

static void decode_x86(uint64_t e, unsigned int level, struct mw_pte_decoded *d)
{
	bool p = e & 1, protnone = !p && (e & (1ULL << 8));
	bool pse = level != MEMWALK_PGT_PTE && (e & (1ULL << 7));
	size_t used = 0, i;
	uint64_t frame;

	d->leaf = level == MEMWALK_PGT_PTE || pse;
	if (!p && !(protnone && d->leaf)) {
		/* swap or migration entry: type in the top bits, offset inverted */
		ADD(d, used, "not present: swap format, type %" PRIu64 " offset 0x%" PRIx64,
		    e >> 59, (~e << 5) >> 14);
		if (e & (1ULL << 1))
			ADD(d, used, ",SWP_SOFT_DIRTY");
		if (e & (1ULL << 2))
			ADD(d, used, ",SWP_UFFD_WP");
		if (e & (1ULL << 3))
			ADD(d, used, ",SWP_EXCLUSIVE");
		return;
	}
	d->present = true;
	ADD(d, used, "%s", p ? "P" : "PROTNONE");
	for (i = 0; i < sizeof(x86_bits) / sizeof(x86_bits[0]); i++) {
		if (!(e & (1ULL << x86_bits[i].bit)) || (x86_bits[i].leaf && !d->leaf))
			continue;
		if (x86_bits[i].bit == 8 && protnone)
			continue;	/* bit 8 is PROTNONE here, said above */
		ADD(d, used, ",%s", x86_bits[i].name);
	}
	if (e & (1ULL << 7))
		ADD(d, used, ",%s", pse ? "PSE" : "PAT");
	if (pse && (e & (1ULL << 12)))
		ADD(d, used, ",PAT");
	if (d->leaf && ((e >> 59) & 0xf))
		ADD(d, used, ",PKEY=%u", (unsigned int)((e >> 59) & 0xf));
	/* PROTNONE entries hold the PFN inverted (L1TF mitigation) */
	frame = protnone ? ~e : e;
	if (pse && level == MEMWALK_PGT_PMD) {
		d->next = frame & X86_PMD_LEAF_MASK;
		d->size = 1ULL << 21;
	} else if (pse) {
		d->next = frame & X86_PUD_LEAF_MASK;
		d->size = 1ULL << 30;
	} else {
		d->next = frame & X86_PFN_MASK;
		d->size = 4096;
	}
}

/* --- arm64, 4K granule ------------------------------------------------------- */

#define ARM64_OA_47_12		UINT64_C(0x0000fffffffff000)
#define ARM64_OA_49_12		UINT64_C(0x0003fffffffff000)

/* Named bits of a page or block descriptor (table descriptors: see below). */
static const struct {
	unsigned int bit;
	const char *name;
} arm64_leaf_bits[] = {
	{ 5, "NS" }, { 6, "AP1" }, { 7, "AP2" }, { 10, "AF" }, { 11, "nG" },
	{ 51, "DBM" }, { 52, "CONT" }, { 53, "PXN" }, { 54, "UXN" },
	{ 55, "SWDIRTY" }, { 56, "SPECIAL" }, { 57, "SW57" },
};

static void decode_arm64_swap(uint64_t e, const struct mw_pte_format *f,
			      struct mw_pte_decoded *d, size_t used)
{
	unsigned int type_shift = f->present_invalid_ng ? 6 : 3;
	unsigned int off_shift = f->present_invalid_ng ? 12 : 8;

	ADD(d, used, "not valid: swap format, type %" PRIu64 " offset 0x%" PRIx64,
	    (e >> type_shift) & 0x1f, (e >> off_shift) & ((UINT64_C(1) << 50) - 1));
	if (e & (1ULL << 2))
		ADD(d, used, ",SWP_EXCLUSIVE");
	if (f->present_invalid_ng && (e & (1ULL << 3)))
		ADD(d, used, ",SWP_UFFD_WP");
}

static void decode_arm64(uint64_t e, unsigned int level, const struct mw_pte_format *f,
			 struct mw_pte_decoded *d)
{
	bool valid = e & 1, page_or_table = e & 2, protnone;
	uint64_t oa;
	size_t used = 0, i;

	/* Bits 49:12, and with LPA2 51:50 in 9:8; else 47:12 (9:8 are SH). */
	oa = f->lpa2 ? (e & ARM64_OA_49_12) | (((e >> 8) & 3) << 50) : e & ARM64_OA_47_12;
	if (!valid) {
		protnone = f->present_invalid_ng ? e & (1ULL << 11) : e & (1ULL << 58);
		if (!protnone || (level != MEMWALK_PGT_PTE && level != MEMWALK_PGT_PMD &&
				  level != MEMWALK_PGT_PUD)) {
			decode_arm64_swap(e, f, d, used);
			return;
		}
		ADD(d, used, "PROTNONE");
	} else if (level == MEMWALK_PGT_PTE ? !page_or_table :
		   !page_or_table && level != MEMWALK_PGT_PMD && level != MEMWALK_PGT_PUD) {
		/* A PTE with bit 1 clear, or a block at a level that has none. */
		ADD(d, used, "V,reserved descriptor");
		return;
	} else {
		ADD(d, used, "V");
	}
	d->present = true;
	d->leaf = !valid || level == MEMWALK_PGT_PTE || !page_or_table;
	if (!d->leaf) {
		ADD(d, used, ",T");
		if (e & (1ULL << 59))
			ADD(d, used, ",PXNT");
		if (e & (1ULL << 60))
			ADD(d, used, ",UXNT");
		if ((e >> 61) & 3)
			ADD(d, used, ",APT=%u", (unsigned int)((e >> 61) & 3));
		if (e & (1ULL << 63))
			ADD(d, used, ",NST");
		d->next = oa;
		return;
	}
	ADD(d, used, ",%s,ATTR=%u", level == MEMWALK_PGT_PTE ? "PAGE" : "BLOCK",
	    (unsigned int)((e >> 2) & 7));
	for (i = 0; i < sizeof(arm64_leaf_bits) / sizeof(arm64_leaf_bits[0]); i++) {
		if (!(e & (1ULL << arm64_leaf_bits[i].bit)))
			continue;
		if (arm64_leaf_bits[i].bit == 11 && !valid && f->present_invalid_ng)
			continue;	/* nG is PROTNONE here, said above */
		ADD(d, used, ",%s", arm64_leaf_bits[i].name);
	}
	/* Bit 58: uffd-wp since 6.9; before, PROT_NONE when not valid (said above). */
	if ((e & (1ULL << 58)) && (f->present_invalid_ng || valid))
		ADD(d, used, ",%s", f->present_invalid_ng ? "UFFD_WP" : "SW58");
	if (!f->lpa2)
		ADD(d, used, ",SH=%u", (unsigned int)((e >> 8) & 3));
	d->size = level == MEMWALK_PGT_PTE ? 1ULL << 12 :
		  level == MEMWALK_PGT_PMD ? 1ULL << 21 : 1ULL << 30;
	d->next = oa & ~(d->size - 1);
}

void mw_pte_decode(const struct mw_pte_format *fmt, uint64_t e, unsigned int level,
		   struct mw_pte_decoded *d)
{
	size_t used = 0;

	memset(d, 0, sizeof(*d));
	if (!e) {
		ADD(d, used, "none");
		return;
	}
	switch (fmt->arch) {
	case MW_PTE_X86_64:
		decode_x86(e, level, d);
		break;
	case MW_PTE_ARM64_4K:
		decode_arm64(e, level, fmt, d);
		break;
	default:
		ADD(d, used, "-");
		break;
	}
}

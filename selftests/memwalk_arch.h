/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Raw page-table entries as each architecture's manual defines them: the
 * tests' own reading of what MEMWALK_IOC_TRANSLATE returns, independent of
 * the module's module/arch-*.h.  4K pages on both.
 */
#ifndef MEMWALK_ARCH_H
#define MEMWALK_ARCH_H

#include <stdint.h>
#include <stdio.h>
#include <sys/utsname.h>

#if defined(__x86_64__)

#define MW_E_ADDR_MASK		0x000ffffffffff000ULL	/* PTE, table */
#define MW_E_PMD_ADDR_MASK	0x000fffffffe00000ULL	/* 2 MiB leaf */
#define MW_E_WRITE(e)		(((e) >> 1) & 1)	/* R/W */
#define MW_E_USER(e)		(((e) >> 2) & 1)	/* U/S */
#define MW_E_ACCESSED(e)	(((e) >> 5) & 1)	/* A */
/*
 * Dirty (6), or since 6.6 SavedDirty (58), where x86 moves Dirty when it
 * write-protects an entry; on 6.1 bit 58 is devmap, never set on the
 * tests' pages.
 */
#define MW_E_DIRTY(e)		((((e) >> 6) | ((e) >> 58)) & 1)
#define MW_E_NX(e)		(((e) >> 63) & 1)	/* XD */
#define MW_E_PMD_LEAF(e)	(((e) >> 7) & 1)	/* PS */
/* Swap entries: flags in 0-8, the offset inverted in 9-58, type in 59-63. */
#define MW_E_SWP_OFFSET_BITS	0x07fffffffffffe00ULL
#define MW_E_SWP_OFFSET(e)	((~(e) & MW_E_SWP_OFFSET_BITS) >> 9)

#elif defined(__aarch64__)

/*
 * The output address in 49:12; under LPA2 its bits 51:50 are in 9:8,
 * which the test guests (far below 1 PiB) never set, and which without
 * LPA2 hold the shareability field: so they are left out.
 */
#define MW_E_ADDR_MASK		0x0003fffffffff000ULL
#define MW_E_PMD_ADDR_MASK	0x0003ffffffe00000ULL
#define MW_E_WRITE(e)		(((e) >> 51) & 1)	/* DBM: pte_write() */
/* AP[1], or executable at EL0 (UXN clear): an execute-only page too. */
#define MW_E_USER(e)		((((e) >> 6) & 1) | (~((e) >> 54) & 1))
#define MW_E_ACCESSED(e)	(((e) >> 10) & 1)	/* AF */
/* The software dirty bit (55), or writable and not read-only (DBM, !AP[2]). */
#define MW_E_DIRTY(e)		((((e) >> 55) & 1) | (((e) >> 51) & ~((e) >> 7) & 1))
#define MW_E_NX(e)		(((e) >> 54) & 1)	/* UXN */
#define MW_E_PMD_LEAF(e)	(((e) & 3) == 1)	/* a block descriptor */
/*
 * Swap entries: bits 0-1 zero, a 50-bit offset above the type: type in
 * 6-10 and the offset in 12-61 by 6.12 (since 6.10, when arm64's
 * PTE_PROT_NONE gave way); on 6.1 type in 3-7 and the offset in 8-57.
 */
static inline unsigned int mw_e_swp_offset_shift(void)
{
	static unsigned int shift;
	unsigned int major, minor;
	struct utsname u;

	if (!shift) {
		shift = 12;
		if (!uname(&u) && sscanf(u.release, "%u.%u", &major, &minor) == 2 &&
		    (major < 6 || (major == 6 && minor < 10)))
			shift = 8;
	}
	return shift;
}
#define MW_E_SWP_OFFSET_BITS	(0x3ffffffffffffULL << mw_e_swp_offset_shift())
#define MW_E_SWP_OFFSET(e)	(((e) & MW_E_SWP_OFFSET_BITS) >> mw_e_swp_offset_shift())

#else
#error "memwalk's selftests read x86-64 and arm64 entries only"
#endif

#define MW_E_PFN(e)		(((e) & MW_E_ADDR_MASK) >> 12)

#endif /* MEMWALK_ARCH_H */

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * memwalk: arm64 page-table entries (included through arch.h only).
 *
 * Block (PMD, PUD) and page descriptors share the attribute bits and the
 * swap-entry format, so an entry of any level is decoded as a pte_t.  The
 * output address lies in bits 49:PAGE_SHIFT, and with 52-bit PAs under
 * LPA2 its top bits in 9:8 (4K pages), where CPUs without LPA2 keep the
 * shareability field: only __pte_to_phys() knows which, so PFNs are always
 * pte_pfn()'s to read and the raw-word shortcuts are off
 * (mw_arch_pte_words_native()).  A contiguous (contpte) block's young and
 * dirty bits are folded by ptep_get(), as pagemap sees them.  Paging has
 * 3 to 5 levels, folded at boot (pgtable_l5_enabled(), pgtable_l4_enabled()).
 * There is one zero page.
 *
 * Generic run bits: AF -> accessed, nG -> not global, DBM/AP[2] (through
 * pte_write()/pte_dirty()) -> write and dirty, UXN -> nx, AP[1] or
 * user-executable -> user.
 *
 * Locking: none (see arch.h).
 */
#ifndef _MEMWALK_ARCH_ARM64_H
#define _MEMWALK_ARCH_ARM64_H

#include <linux/kernel.h>
#include <linux/memwalk.h>
#include <linux/mm.h>
#include <linux/pgtable.h>

/*
 * The bits that may hold the output address; without LPA2, 9:8 are the
 * shareability field, the same in every user entry, so masking them out
 * of a comparison of two entries loses nothing.
 */
#ifdef CONFIG_ARM64_PA_BITS_52
#define MW_ARCH_PTE_PFN_MASK	((u64)(PTE_ADDR_LOW | PTE_ADDR_HIGH))
#else
#define MW_ARCH_PTE_PFN_MASK	((u64)PTE_ADDR_LOW)
#endif

/* How a present entry's word changes from one PFN to the next. */
#define MW_ARCH_PTE_PFN_STEP	PAGE_SIZE

/* The PFN in the address bits of a word. */
static __always_inline unsigned long mw_arch_word_pfn(u64 pfn_bits)
{
	return pte_pfn(__pte(pfn_bits));
}

/* Paging levels in use, as MEMWALK_IOC_INFO reports them. */
static inline unsigned int mw_arch_pgtable_levels(void)
{
	unsigned int levels = CONFIG_PGTABLE_LEVELS;

#if CONFIG_PGTABLE_LEVELS > 4
	if (!pgtable_l5_enabled())
		levels--;
#endif
#if CONFIG_PGTABLE_LEVELS > 3
	if (!pgtable_l4_enabled())
		levels--;
#endif
	return levels;
}

/* Whether the P4D level is folded into the PGD. */
static inline bool mw_arch_p4d_folded(void)
{
	return mm_p4d_folded(NULL);
}

/* A leaf or non-present entry of @level (MEMWALK_PGT_*) as a pte_t. */
static __always_inline pte_t mw_arch_leaf_pte(unsigned int level, u64 val)
{
	return __pte(val);
}

/*
 * Whether the stretch loops may read PTE words themselves: not here.  The
 * address bits move with LPA2 (see above) and a contpte block's access
 * and dirty state is ptep_get()'s fold of its entries, not one word.
 */
static __always_inline bool mw_arch_pte_words_native(void)
{
	return false;
}

/* arm64 keeps no entry's PFN inverted. */
static __always_inline bool mw_arch_pte_pfn_inverted(u64 val)
{
	return false;
}

/* The zero page's PFN: arm64 has one. */
static __always_inline unsigned long mw_arch_zero_pfn(void)
{
	return page_to_pfn(ZERO_PAGE(0));
}

/* MEMWALK_RUN_* hardware and software bits of a present entry, any level. */
static inline u32 mw_arch_present_bits(pte_t pte)
{
	pteval_t v = pte_val(pte);
	u32 f = 0;

	if (pte_write(pte))
		f |= MEMWALK_RUN_WRITE;
	/* Execute-only user mappings have AP[1] clear but UXN clear too. */
	if (pte_user(pte) || pte_user_exec(pte))
		f |= MEMWALK_RUN_USER;
	if (pte_dirty(pte))
		f |= MEMWALK_RUN_DIRTY;
	if (pte_young(pte))
		f |= MEMWALK_RUN_ACCESSED;
	if (v & PTE_UXN)
		f |= MEMWALK_RUN_NX;
	/* In a PROT_NONE entry (not valid) nG marks it present instead. */
	if (pte_valid(pte) && !(v & PTE_NG))
		f |= MEMWALK_RUN_GLOBAL;
	if (pte_soft_dirty(pte))
		f |= MEMWALK_RUN_SOFT_DIRTY;
	if (pte_uffd_wp(pte))
		f |= MEMWALK_RUN_UFFD_WP;
	return f;
}

/* The bits named, any level, in the order printed; *@nr of them. */
static inline const struct mw_arch_bit *mw_arch_entry_bits(unsigned int *nr)
{
	static const struct mw_arch_bit bits[] = {
		{ PTE_VALID, "V" },
		{ PTE_TABLE_BIT, "T" },
		{ PTE_USER, "AP1" },
		{ PTE_RDONLY, "AP2" },
		{ PTE_AF, "AF" },
		{ PTE_NG, "nG" },
		{ PTE_DBM, "DBM" },
		{ PTE_CONT, "CONT" },
		{ PTE_PXN, "PXN" },
		{ PTE_UXN, "UXN" },
		{ PTE_DIRTY, "SWDIRTY" },
	};

	*nr = ARRAY_SIZE(bits);
	return bits;
}

/* The physical address of the table an upper-level entry @val points to. */
static inline u64 mw_arch_table_pa(u64 val)
{
	return __pte_to_phys(__pte(val));
}

#endif /* _MEMWALK_ARCH_ARM64_H */

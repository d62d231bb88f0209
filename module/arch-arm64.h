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
 * 3 to 5 levels, folded at boot (LPA2) or at build time (mm_p4d_folded()).
 * There is one zero page.
 *
 * Generic run bits: AF -> accessed, nG -> not global, DBM/AP[2] (through
 * pte_write()/pte_dirty()) -> write and dirty, UXN -> nx, AP[1] or
 * user-executable -> user.  The contiguous bit -> MEMWALK_RUN_CONTIGUOUS.
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
 * Bit 1 of a valid descriptor: a table (or, at the last level, a page)
 * rather than a block.  The kernel's name for it, PTE_TABLE_BIT, is gone
 * by 7.2; the architecture's bit stays.
 */
#define MW_ARM64_DESC_TABLE	BIT_ULL(1)

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

/*
 * Paging levels in use, as MEMWALK_IOC_INFO reports them: LPA2 kernels
 * (6.9 on) fold the P4D and PUD at boot on CPUs without it, older ones at
 * build time; mm_*_folded() say either.
 */
static inline unsigned int mw_arch_pgtable_levels(void)
{
	return 5 - mm_p4d_folded(NULL) - mm_pud_folded(NULL) - mm_pmd_folded(NULL);
}

/*
 * arm64 defines p4d_index() only where the P4D level is built in
 * (CONFIG_PGTABLE_LEVELS > 4); folded at build time (pgtable-nop4d.h) a
 * P4D table has one entry, as this formula then says.
 */
#ifndef p4d_index
#define p4d_index(addr)		(((addr) >> P4D_SHIFT) & (PTRS_PER_P4D - 1))
#endif

/* Whether the P4D level is folded into the PGD. */
static inline bool mw_arch_p4d_folded(void)
{
	return mm_p4d_folded(NULL);
}

/*
 * The index of @addr's top-level entry when the P4D is folded.  Folded at
 * boot (an LPA2 kernel on a CPU without it), the top table is the P4D
 * table and pgd_index() (5 levels' PGDIR_SHIFT) is 0 for every user
 * address; folded at build time, the PGD is the top table.
 */
static inline unsigned int mw_arch_folded_p4d_index(unsigned long addr)
{
#if CONFIG_PGTABLE_LEVELS > 4
	return p4d_index(addr);
#else
	return pgd_index(addr);
#endif
}

/*
 * The end of the user address space on this boot: TASK_SIZE_MAX is that
 * of VA_BITS (52 with LPA2), which a CPU without LPA2 does not reach
 * (48, and beyond it a folded P4D table would be indexed again from 0).
 */
static inline u64 mw_arch_user_end(void)
{
	return TASK_SIZE_64;
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
	if (pte_cont(pte))
		f |= MEMWALK_RUN_CONTIGUOUS;
	return f;
}

/*
 * The entry bits MEMWALK_RUN_ACCESSED is read from (MEMWALK_SNAP_NO_ACCESSED):
 * the access flag.  Only in present entries: a swap entry's offset lies
 * there.
 */
static inline u64 mw_arch_pte_accessed_bits(void)
{
	return PTE_AF;
}

/* Runs report the contiguous bit (MEMWALK_RUN_CONTIGUOUS). */
static inline bool mw_arch_has_contiguous(void)
{
	return true;
}

/* The bits named, any level, in the order printed; *@nr of them. */
static inline const struct mw_arch_bit *mw_arch_entry_bits(unsigned int *nr)
{
	static const struct mw_arch_bit bits[] = {
		{ PTE_VALID, "V" },
		{ MW_ARM64_DESC_TABLE, "T" },
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

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * memwalk: x86-64 page-table entries (included through arch.h only).
 *
 * PMD and PUD leaves share the PTE bit layout and the swap-entry format,
 * so an entry of any level is decoded as a pte_t.  A raw PTE word holds
 * the PFN at PAGE_SHIFT within PTE_PFN_MASK, except in PROT_NONE entries
 * (L1TF: PFN inverted, __pte_needs_invert()) and in a Xen PV guest
 * (machine frames: pte_val() translates them).  Paging has 4 or 5 levels;
 * with 4 the P4D is folded into the PGD.  There is one zero page.
 *
 * Locking: none (see arch.h).
 */
#ifndef _MEMWALK_ARCH_X86_H
#define _MEMWALK_ARCH_X86_H

#include <linux/kernel.h>
#include <linux/memwalk.h>
#include <linux/mm.h>
#include <linux/pgtable.h>
#include <asm/cpufeature.h>

/* The bits that hold the PFN, or the next table's address, in a word. */
#define MW_ARCH_PTE_PFN_MASK	((u64)PTE_PFN_MASK)

/* How a present entry's word changes from one PFN to the next. */
#define MW_ARCH_PTE_PFN_STEP	PAGE_SIZE

/* The PFN in the PFN bits of a word as it is in memory (see above). */
static __always_inline unsigned long mw_arch_word_pfn(u64 pfn_bits)
{
	return pfn_bits >> PAGE_SHIFT;
}

/* Paging levels in use, as MEMWALK_IOC_INFO reports them. */
static inline unsigned int mw_arch_pgtable_levels(void)
{
	return pgtable_l5_enabled() ? 5 : 4;
}

/* Whether the P4D level is folded into the PGD (4-level paging). */
static inline bool mw_arch_p4d_folded(void)
{
	return !pgtable_l5_enabled();
}

/* The index of @addr's top-level entry when the P4D is folded. */
static inline unsigned int mw_arch_folded_p4d_index(unsigned long addr)
{
	return pgd_index(addr);
}

/* The end of the user address space on this boot (LA57 or not). */
static inline u64 mw_arch_user_end(void)
{
	return TASK_SIZE_MAX;
}

/* A leaf or non-present entry of @level (MEMWALK_PGT_*) as a pte_t. */
static __always_inline pte_t mw_arch_leaf_pte(unsigned int level, u64 val)
{
	return __pte(val);
}

/*
 * Whether a PTE word in memory is what pte_val() makes of it: everywhere
 * but in a Xen PV guest, whose entries hold machine frames.  The stretch
 * loops then read the words themselves, without pte_val()'s paravirt
 * call: they cost a load and a compare per page.
 */
static __always_inline bool mw_arch_pte_words_native(void)
{
	return !cpu_feature_enabled(X86_FEATURE_XENPV);
}

/*
 * Whether the present word @val keeps its PFN inverted (a PROT_NONE
 * entry, the L1TF mitigation): its PFN is then pte_pfn()'s to read.
 */
static __always_inline bool mw_arch_pte_pfn_inverted(u64 val)
{
	return __pte_needs_invert(val);
}

/*
 * The zero page's PFN.  x86 has one (no per-colour zero pages as MIPS and
 * s390 have), so a run of consecutive PFNs stops before this one.
 */
static __always_inline unsigned long mw_arch_zero_pfn(void)
{
	return page_to_pfn(ZERO_PAGE(0));
}

/* MEMWALK_RUN_* hardware and software bits of a present entry, any level. */
static inline u32 mw_arch_present_bits(pte_t pte)
{
	pteval_t v = pte_flags(pte);
	u32 f = 0;

	if (v & _PAGE_RW)
		f |= MEMWALK_RUN_WRITE;
	if (v & _PAGE_USER)
		f |= MEMWALK_RUN_USER;
	/*
	 * pte_dirty(), not _PAGE_DIRTY: since 6.6 x86 moves Dirty to the
	 * software SavedDirty bit when it write-protects an entry (fork COW,
	 * mprotect, clear_refs), and the page is no less dirty for it.
	 */
	if (pte_dirty(pte))
		f |= MEMWALK_RUN_DIRTY;
	if (v & _PAGE_ACCESSED)
		f |= MEMWALK_RUN_ACCESSED;
	if (v & _PAGE_NX)
		f |= MEMWALK_RUN_NX;
	if (v & _PAGE_GLOBAL)
		f |= MEMWALK_RUN_GLOBAL;
	if (pte_soft_dirty(pte))
		f |= MEMWALK_RUN_SOFT_DIRTY;
	if (pte_uffd_wp(pte))
		f |= MEMWALK_RUN_UFFD_WP;
	return f;
}

/* The entry bits MEMWALK_RUN_ACCESSED is read from (MEMWALK_SNAP_NO_ACCESSED). */
static inline u64 mw_arch_pte_accessed_bits(void)
{
	return _PAGE_ACCESSED;
}

/* x86 has no contiguous bit: MEMWALK_RUN_CONTIGUOUS is never set. */
static inline bool mw_arch_has_contiguous(void)
{
	return false;
}

/* The bits named, any level, in the order printed; *@nr of them. */
static inline const struct mw_arch_bit *mw_arch_entry_bits(unsigned int *nr)
{
	static const struct mw_arch_bit bits[] = {
		{ _PAGE_PRESENT, "P" },
		{ _PAGE_RW, "W" },
		{ _PAGE_USER, "U" },
		{ _PAGE_PWT, "PWT" },
		{ _PAGE_PCD, "PCD" },
		{ _PAGE_ACCESSED, "A" },
		{ _PAGE_DIRTY, "D" },
		{ _PAGE_PSE, "PS" },
		{ _PAGE_GLOBAL, "G" },
		{ _PAGE_NX, "NX" },
	};

	*nr = ARRAY_SIZE(bits);
	return bits;
}

/* The physical address of the table an upper-level entry @val points to. */
static inline u64 mw_arch_table_pa(u64 val)
{
	return val & MW_ARCH_PTE_PFN_MASK;
}

#endif /* _MEMWALK_ARCH_X86_H */

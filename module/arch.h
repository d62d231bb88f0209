/* SPDX-License-Identifier: GPL-2.0 */
/*
 * memwalk: the one place for architecture differences (compat.h holds the
 * kernel-version ones).  Each architecture's file says how its entries
 * read: which bits of a present entry mean what (present_bits and the
 * names the debugfs view prints), where the PFN lies in a raw word, how
 * the levels fold, what the zero page and PROT_NONE entries look like,
 * and what lab mode hides of a raw entry.  Only the decoder (decode.h),
 * translate.c, debugfs.c, main.c and the walker's level folding use it;
 * snapshot, events and netlink code never do.
 *
 * Locking: none; pure functions of their arguments and of boot-time
 * constants (paging mode, CPU features).
 */
#ifndef _MEMWALK_ARCH_H
#define _MEMWALK_ARCH_H

/*
 * The page-table walker maps PTE tables with pte_offset_kernel(); with
 * HIGHPTE they may live in highmem and would need kmap_local().
 */
#ifdef CONFIG_HIGHPTE
#error "memwalk does not support CONFIG_HIGHPTE"
#endif

#include <linux/types.h>

/* A bit of an entry the debugfs pagetable view names (mw_arch_entry_bits()). */
struct mw_arch_bit {
	u64 mask;
	const char *name;
};

#if defined(CONFIG_X86_64)
#include "arch-x86.h"
#elif defined(CONFIG_ARM64)
#include "arch-arm64.h"
#else
#error "memwalk decodes x86-64 and arm64 page-table entries only (no module/arch-*.h here)"
#endif

/*
 * The bits of a swap-format entry (swap, migration, hwpoison, marker) that
 * hold its offset or PFN, wherever the architecture's __swp_entry() puts
 * them (x86 stores them inverted); its type and flag bits are the others.
 */
static inline u64 mw_arch_swp_offset_bits(void)
{
	return pte_val(__swp_entry_to_pte(__swp_entry(0, 0))) ^
	       pte_val(__swp_entry_to_pte(__swp_entry(0, ~0UL)));
}

/*
 * A raw entry as lab mode shows it: what pagemap would tell.  A present
 * (or PROT_NONE) entry loses its PFN bits; a swap-format one (swap,
 * migration, hwpoison, marker) keeps its type and flag bits but not the
 * offset or PFN, wherever the architecture's __swp_entry() puts them
 * (x86 stores them inverted).
 */
static inline u64 mw_arch_hidden_entry(u64 val)
{
	pte_t pte = __pte(val);

	if (pte_none(pte) || pte_present(pte))
		return val & ~MW_ARCH_PTE_PFN_MASK;
	return val & ~mw_arch_swp_offset_bits();
}

#endif /* _MEMWALK_ARCH_H */

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * memwalk-client: a raw page-table entry's bits, named as its architecture
 * names them.  The kernel gives translate the raw entries; these decode
 * them, one decoder per architecture (and the page size it has).
 */
#ifndef MW_PTEDECODE_H
#define MW_PTEDECODE_H

#include <stdbool.h>
#include <stdint.h>

#include <linux/memwalk.h>

enum mw_pte_arch {
	MW_PTE_RAW,		/* not known here: printed undecoded */
	MW_PTE_X86_64,		/* arch/x86/include/asm/pgtable_types.h */
	MW_PTE_ARM64_4K,	/* VMSAv8-64, 4K granule */
};

struct mw_pte_format {
	enum mw_pte_arch arch;
	bool lpa2;		/* arm64: 52-bit output addresses (FEAT_LPA2) */
	/*
	 * arm64: Linux's software format of entries that are not valid, as
	 * 6.9 changed it: PROT_NONE marked by nG (was bit 58), swap type in
	 * bits 10:6 and offset from bit 12 (were 7:3 and from bit 8).
	 */
	bool present_invalid_ng;
};

struct mw_pte_decoded {
	char bits[192];		/* the bits by name, comma separated */
	bool present;		/* maps something (table or page), or PROT_NONE on x86 */
	bool leaf;		/* maps a page: a PTE, or a block/huge entry */
	uint64_t next;		/* physical address of the table or page it points to */
	uint64_t size;		/* of the page, for a leaf */
};

/* The format of the entries of the machine and kernel @info describes. */
struct mw_pte_format mw_pte_format(const struct memwalk_info *info);

/* Decode entry @e of level @level (MEMWALK_PGT_*) into @d. */
void mw_pte_decode(const struct mw_pte_format *fmt, uint64_t e, unsigned int level,
		   struct mw_pte_decoded *d);

#endif

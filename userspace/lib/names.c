// SPDX-License-Identifier: GPL-2.0
/*
 * memwalk-client: the names of flag bits and enumerations.  Text, JSON and
 * the JSON reader all use these tables; the names are part of the JSON
 * schema (docs/json-schema.md): never rename one, only add.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "names.h"

#define BIT_NAMES(sym, ...)						\
	static const char *const sym##_table[] = { __VA_ARGS__ };	\
	const struct mw_bit_names sym = {				\
		.names = sym##_table,					\
		.nbits = sizeof(sym##_table) / sizeof(sym##_table[0]),	\
	}

BIT_NAMES(mw_vma_flag_names,
	[0] = "read", [1] = "write", [2] = "exec", [3] = "shared",
	[4] = "mayread", [5] = "maywrite", [6] = "mayexec", [7] = "mayshare",
	[8] = "growsdown", [9] = "locked", [10] = "lockonfault",
	[11] = "hugetlb", [12] = "pfnmap", [13] = "mixedmap", [14] = "io",
	[15] = "dontdump", [16] = "dontexpand", [17] = "dontcopy",
	[18] = "wipeonfork", [19] = "hugepage", [20] = "nohugepage",
	[21] = "mergeable", [22] = "softdirty", [23] = "uffd_missing",
	[24] = "uffd_wp", [25] = "anon", [26] = "shmem", [27] = "file",
	[63] = NULL);

/* The attribute bits of a run (state, level and swap type are separate). */
BIT_NAMES(mw_run_flag_names,
	[5] = "write", [6] = "user", [7] = "dirty", [8] = "accessed",
	[9] = "soft_dirty", [10] = "uffd_wp", [11] = "nx", [12] = "global",
	[13] = "zero", [14] = "anon", [15] = "file", [16] = "shmem",
	[17] = "exclusive", [18] = "special", [19] = "migration_write",
	[20] = "folio_dirty", [22] = "contiguous", [23] = "folio_young",
	[24] = NULL);

/* The BITS column of --pages: the entry's hardware and software bits. */
BIT_NAMES(mw_run_bit_letters,
	[5] = "W", [6] = "U", [7] = "D", [8] = "A", [9] = "SD", [10] = "WP",
	[11] = "NX", [12] = "G", [22] = "C");

/* The TYPE column of --pages: what is mapped. */
BIT_NAMES(mw_run_type_names,
	[13] = "zero", [14] = "anon", [15] = "file", [16] = "shmem",
	[17] = "excl", [18] = "special", [19] = "mwrite", [20] = "fdirty",
	[23] = "young");

/* Bits 0-26: /proc/kpageflags numbering; 27-31: memwalk's own. */
BIT_NAMES(mw_folio_flag_names,
	[0] = "locked", [1] = "error", [2] = "referenced", [3] = "uptodate",
	[4] = "dirty", [5] = "lru", [6] = "active", [7] = "slab",
	[8] = "writeback", [9] = "reclaim", [10] = "buddy", [11] = "mmap",
	[12] = "anon", [13] = "swapcache", [14] = "swapbacked",
	[15] = "compound_head", [16] = "compound_tail", [17] = "huge",
	[18] = "unevictable", [19] = "hwpoison", [20] = "nopage", [21] = "ksm",
	[22] = "thp", [23] = "offline", [24] = "zero", [25] = "idle",
	[26] = "pgtable", [27] = "mlocked", [28] = "pmd_mapped",
	[29] = "pte_mapped", [30] = "partial", [31] = "workingset");

BIT_NAMES(mw_snap_flag_names,
	[0] = "vmas", [1] = "pages", [2] = "folio", [3] = "no_pfn",
	[4] = "entry_only", [6] = "no_accessed",
	[31] = NULL);

const char *mw_bit_name(const struct mw_bit_names *t, unsigned int bit,
			char tmp[16])
{
	if (bit < t->nbits && t->names[bit])
		return t->names[bit];
	snprintf(tmp, 16, "bit%u", bit);
	return tmp;
}

uint64_t mw_bits_mask(const struct mw_bit_names *t)
{
	uint64_t mask = 0;
	unsigned int bit;

	for (bit = 0; bit < t->nbits; bit++)
		if (t->names[bit])
			mask |= 1ULL << bit;
	return mask;
}

const char *mw_bits_text(const struct mw_bit_names *t, uint64_t value,
			 const char *sep, char *buf, size_t len)
{
	size_t used = 0;
	unsigned int bit;

	buf[0] = '\0';
	for (bit = 0; bit < t->nbits; bit++) {
		if (!(value & (1ULL << bit)) || !t->names[bit])
			continue;
		used += snprintf(buf + used, used < len ? len - used : 0, "%s%s",
				 used ? sep : "", t->names[bit]);
	}
	if (!used)
		snprintf(buf, len, "-");
	return buf;
}

int mw_bit_lookup(const struct mw_bit_names *t, const char *name)
{
	unsigned int bit;
	char *end;

	for (bit = 0; bit < t->nbits; bit++)
		if (t->names[bit] && !strcmp(t->names[bit], name))
			return bit;
	if (!strncmp(name, "bit", 3) && name[3] >= '0' && name[3] <= '9') {
		unsigned long v = strtoul(name + 3, &end, 10);

		if (!*end && v < 64)
			return (int)v;
	}
	return -1;
}

static const char *enum_name(const char *const *names, size_t n,
			     unsigned int value, const char *prefix, char tmp[16])
{
	if (value < n && names[value])
		return names[value];
	snprintf(tmp, 16, "%s%u", prefix, value);
	return tmp;
}

static const char *const state_names[] = {
	[MEMWALK_STATE_PRESENT]		= "present",
	[MEMWALK_STATE_SWAP]		= "swap",
	[MEMWALK_STATE_MIGRATION]	= "migration",
	[MEMWALK_STATE_DEVICE]		= "device",
	[MEMWALK_STATE_HWPOISON]	= "hwpoison",
	[MEMWALK_STATE_MARKER]		= "marker",
	[MEMWALK_STATE_SHMEM_SWAP]	= "shmem-swap",
};

static const char *const level_names[] = {
	[MEMWALK_LEVEL_PTE]	= "pte",
	[MEMWALK_LEVEL_PMD]	= "pmd",
	[MEMWALK_LEVEL_PUD]	= "pud",
};

static const char *const name_kind_names[] = {
	[MEMWALK_NAME_NONE]		= "none",
	[MEMWALK_NAME_FILE]		= "file",
	[MEMWALK_NAME_HEAP]		= "heap",
	[MEMWALK_NAME_STACK]		= "stack",
	[MEMWALK_NAME_SPECIAL]		= "special",
	[MEMWALK_NAME_ANON]		= "anon",
	[MEMWALK_NAME_ANON_SHMEM]	= "anon_shmem",
};

#define N(a) (sizeof(a) / sizeof((a)[0]))

const char *mw_state_name(unsigned int state, char tmp[16])
{
	return enum_name(state_names, N(state_names), state, "state", tmp);
}

const char *mw_level_name(unsigned int level, char tmp[16])
{
	return enum_name(level_names, N(level_names), level, "level", tmp);
}

const char *mw_name_kind_name(unsigned int kind, char tmp[16])
{
	return enum_name(name_kind_names, N(name_kind_names), kind, "kind", tmp);
}

int mw_name_kind_lookup(const char *name)
{
	unsigned int i;
	char *end;

	for (i = 0; i < N(name_kind_names); i++)
		if (!strcmp(name_kind_names[i], name))
			return i;
	if (!strncmp(name, "kind", 4) && name[4] >= '0' && name[4] <= '9') {
		unsigned long v = strtoul(name + 4, &end, 10);

		if (!*end && v <= UINT32_MAX / 2)
			return (int)v;
	}
	return -1;
}

void mw_vma_mode(const struct mw_vma *vma, char mode[5])
{
	mode[0] = vma->flags & MEMWALK_VMA_READ ? 'r' : '-';
	mode[1] = vma->flags & MEMWALK_VMA_WRITE ? 'w' : '-';
	mode[2] = vma->flags & MEMWALK_VMA_EXEC ? 'x' : '-';
	/* As /proc/PID/maps: MAYSHARE, so that a read-only shared map says 's'. */
	mode[3] = vma->flags & MEMWALK_VMA_MAYSHARE ? 's' : 'p';
	mode[4] = '\0';
}

const char *mw_vma_label(const struct mw_vma *vma)
{
	return vma->name[0] ? vma->name : "[ anon ]";
}

void mw_format_time(uint64_t time_ns, char *buf, size_t len)
{
	time_t t = (time_t)(time_ns / 1000000000);
	struct tm tm;

	if (!gmtime_r(&t, &tm) || !strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm))
		snprintf(buf, len, "?");
}

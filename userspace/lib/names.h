/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libmemwalk: names of flag bits and enumerations, as text and JSON use
 * them (names.c).
 */
#ifndef MEMWALK_NAMES_H
#define MEMWALK_NAMES_H

#include <stddef.h>
#include <stdint.h>

#include "snapshot.h"

struct mw_bit_names {
	const char *const *names;	/* by bit; NULL: unnamed ("bitN") */
	unsigned int nbits;
};

extern const struct mw_bit_names mw_vma_flag_names;
extern const struct mw_bit_names mw_run_flag_names;	/* bits 5-23 only */
extern const struct mw_bit_names mw_run_bit_letters;	/* W U D A SD WP NX G */
extern const struct mw_bit_names mw_run_type_names;	/* zero anon ... */
extern const struct mw_bit_names mw_folio_flag_names;
extern const struct mw_bit_names mw_snap_flag_names;

/* Name of @bit in @t, or "bitN" in @tmp. */
const char *mw_bit_name(const struct mw_bit_names *t, unsigned int bit,
			char tmp[16]);
/* Bits of @value named in @t (others ignored), joined by @sep; "-" if none. */
const char *mw_bits_text(const struct mw_bit_names *t, uint64_t value,
			 const char *sep, char *buf, size_t len);
/* Bits of @value that @t covers. */
uint64_t mw_bits_mask(const struct mw_bit_names *t);
/* Parse a name back into a bit number (including "bitN"); -1 if unknown. */
int mw_bit_lookup(const struct mw_bit_names *t, const char *name);

const char *mw_state_name(unsigned int state, char tmp[16]);
const char *mw_level_name(unsigned int level, char tmp[16]);
const char *mw_name_kind_name(unsigned int kind, char tmp[16]);
int mw_name_kind_lookup(const char *name);	/* -1 if unknown */
/* "rw-p", like /proc/PID/maps */
void mw_vma_mode(const struct mw_vma *vma, char mode[5]);
/* The Mapping column: the name, or "[ anon ]" */
const char *mw_vma_label(const struct mw_vma *vma);
/* "2026-11-23T10:11:12Z" */
void mw_format_time(uint64_t time_ns, char *buf, size_t len);

#endif /* MEMWALK_NAMES_H */

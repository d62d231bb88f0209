// SPDX-License-Identifier: GPL-2.0
/*
 * memwalk-client translate: one address of a process walked level by level
 * (MEMWALK_IOC_TRANSLATE).  The kernel gives the raw entries; their bits
 * are decoded here, with the x86-64 bit positions
 * (arch/x86/include/asm/pgtable_types.h); on other machines the raw values
 * are printed undecoded.  The walk stops at the leaf or at the first none
 * entry; outside every VMA nothing is walked (nr_levels 0).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "device.h"
#include "memwalk-client.h"
#include "view.h"

#define X86_PFN_MASK		0x000ffffffffff000ULL
#define X86_PMD_LEAF_MASK	0x000fffffffe00000ULL
#define X86_PUD_LEAF_MASK	0x000fffffc0000000ULL

static const char *const pgt_names[] = {
	[MEMWALK_PGT_PGD] = "PGD", [MEMWALK_PGT_P4D] = "P4D",
	[MEMWALK_PGT_PUD] = "PUD", [MEMWALK_PGT_PMD] = "PMD",
	[MEMWALK_PGT_PTE] = "PTE",
};

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

struct decoded {
	char bits[160];
	bool present;		/* P, or PROTNONE */
	bool leaf;		/* maps a page (PTE, or PSE at PMD/PUD) */
	uint64_t next;		/* table or page frame it points to */
	uint64_t size;		/* of the page, for a leaf */
};

static void decode_x86(uint64_t e, unsigned int level, struct decoded *d)
{
	bool p = e & 1, protnone = !p && (e & (1ULL << 8));
	bool pse = level != MEMWALK_PGT_PTE && (e & (1ULL << 7));
	size_t used = 0, len = sizeof(d->bits), i;
	uint64_t frame;

#define ADD(...) (used += snprintf(d->bits + used, used < len ? len - used : 0, __VA_ARGS__))
	memset(d, 0, sizeof(*d));
	if (!e) {
		ADD("none");
		return;
	}
	d->leaf = level == MEMWALK_PGT_PTE || pse;
	if (!p && !(protnone && d->leaf)) {
		/* swap or migration entry: type in the top bits, offset inverted */
		ADD("not present: swap format, type %" PRIu64 " offset 0x%" PRIx64,
		    e >> 59, (~e << 5) >> 14);
		if (e & (1ULL << 1))
			ADD(",SWP_SOFT_DIRTY");
		if (e & (1ULL << 2))
			ADD(",SWP_UFFD_WP");
		if (e & (1ULL << 3))
			ADD(",SWP_EXCLUSIVE");
		return;
	}
	d->present = true;
	ADD("%s", p ? "P" : "PROTNONE");
	for (i = 0; i < sizeof(x86_bits) / sizeof(x86_bits[0]); i++) {
		if (!(e & (1ULL << x86_bits[i].bit)) || (x86_bits[i].leaf && !d->leaf))
			continue;
		if (x86_bits[i].bit == 8 && protnone)
			continue;	/* bit 8 is PROTNONE here, said above */
		ADD(",%s", x86_bits[i].name);
	}
	if (e & (1ULL << 7))
		ADD(",%s", pse ? "PSE" : "PAT");
	if (pse && (e & (1ULL << 12)))
		ADD(",PAT");
	if (d->leaf && ((e >> 59) & 0xf))
		ADD(",PKEY=%u", (unsigned int)((e >> 59) & 0xf));
#undef ADD
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

static bool parse_addr(const char *cmd, const char *arg, uint64_t *addr)
{
	const char *s = arg;
	char *end;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	errno = 0;
	if (*s && strspn(s, "0123456789abcdefABCDEF") == strlen(s)) {
		*addr = strtoull(s, &end, 16);
		if (!errno)
			return true;
	}
	mw_err("%s: bad address '%s': expected a hexadecimal number, e.g. 0x7f0000001000",
	       cmd, arg);
	return false;
}

/* The /proc/PID/maps line of the VMA, from its permissions on; NULL if none. */
static char *maps_rest(int32_t pid, uint64_t start, uint64_t end)
{
	char path[64], *line = NULL, *rest = NULL;
	unsigned long long s, e;
	size_t cap = 0;
	FILE *fp;
	int n;

	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	fp = fopen(path, "r");
	if (!fp)
		return NULL;
	while (getline(&line, &cap, fp) > 0) {
		if (sscanf(line, "%llx-%llx %n", &s, &e, &n) != 2 ||
		    s != start || e != end)
			continue;
		line[strcspn(line, "\n")] = '\0';
		rest = mw_strdup(line + n);
		break;
	}
	free(line);
	fclose(fp);
	return rest;
}

static void print_translation(const struct memwalk_translate *t,
			      const struct memwalk_info *info, int32_t pid)
{
	bool x86 = !strcmp(info->machine, "x86_64");
	struct mw_snapshot snap = {
		.page_size = 1ULL << info->page_shift,
		.flags = MEMWALK_SNAP_ALL,
	};
	uint64_t phys = 0;
	bool mapped = false;
	unsigned int i;
	char *rest;

	printf("pid %d address 0x%" PRIx64 "\n", pid, (uint64_t)t->addr);
	if (t->nr_levels)
		printf("LEVEL INDEX ENTRY            TABLE            NEXT             BITS\n");
	for (i = 0; i < t->nr_levels; i++) {
		const struct memwalk_level *l = &t->levels[i];
		struct decoded d = { .bits = "-" };
		char next[20] = "-";

		if (x86) {
			decode_x86(l->entry, l->level, &d);
			/* frame 0: hidden (lab mode), never a table or a user page */
			if (d.present && d.next)
				snprintf(next, sizeof(next), "%016" PRIx64, d.next);
			if (d.present && d.leaf && d.next) {
				mapped = true;
				phys = d.next + (t->addr & (d.size - 1));
			}
		}
		printf("%-5s %5u %016" PRIx64 " %016" PRIx64 " %-16s %s\n",
		       l->level <= MEMWALK_PGT_PTE ? pgt_names[l->level] : "?",
		       l->index, (uint64_t)l->entry, (uint64_t)l->table_pa, next,
		       d.bits);
	}
	if (mapped)
		printf("physical address: 0x%" PRIx64 "\n", phys);
	if (!t->vma_start && !t->vma_end) {
		printf("VMA: none\n");
	} else {
		rest = maps_rest(pid, t->vma_start, t->vma_end);
		printf("VMA: %016" PRIx64 "-%016" PRIx64 "%s%s\n", (uint64_t)t->vma_start,
		       (uint64_t)t->vma_end, rest ? " " : "", rest ? rest : "");
		free(rest);
	}
	if (!t->page.nr_pages)
		printf("page: none\n");
	else
		mw_view_one_run(&snap, &t->page);
}

static int translate_run(const struct mw_command *cmd, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct memwalk_translate t;
	struct mw_device *dev;
	struct mw_error err;
	int32_t pid;
	uint64_t addr;
	int c, ret;

	opterr = 0;
	optind = 0;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		if (c != 'h') {
			mw_bad_option(cmd, argv);
			return MW_EXIT_FAILURE;
		}
		printf("Usage: %s %s %s\n\n"
		       "Walk the page tables of process PID for the virtual address ADDR\n"
		       "(hexadecimal, with or without 0x) and print each level's entry, decoded,\n"
		       "then the VMA and the page.\n\n"
		       "Options:\n"
		       "  -h, --help    show this help and exit\n\n"
		       "See %s(1).\n", MW_PROG, cmd->name, cmd->args, MW_PROG);
		return MW_EXIT_OK;
	}
	ret = mw_check_args(cmd, argc, argv, 2);
	if (ret)
		return ret;
	if (!mw_parse_pid(cmd->name, argv[optind], &pid) ||
	    !parse_addr(cmd->name, argv[optind + 1], &addr))
		return MW_EXIT_FAILURE;

	ret = mw_open_device(&dev);
	if (ret)
		return ret;
	if (mw_translate(dev, pid, addr, &t, &err))
		ret = mw_report(&err);
	else
		print_translation(&t, &dev->info, pid);
	mw_device_close(dev);
	return ret;
}

MW_COMMAND(translate,
	.name = "translate",
	.args = "PID ADDR",
	.help = "walk the page tables of PID for one address",
	.run = translate_run);

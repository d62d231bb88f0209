// SPDX-License-Identifier: GPL-2.0
/*
 * memwalk-client translate: one address of a process walked level by level
 * (MEMWALK_IOC_TRANSLATE).  The kernel gives the raw entries; their bits
 * are decoded here as their architecture names them (lib/ptedecode.c:
 * x86-64, arm64); on other machines the raw values are printed undecoded.
 * The walk stops at the leaf or at the first none entry; outside every VMA
 * nothing is walked (nr_levels 0).
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
#include "print.h"
#include "ptedecode.h"
#include "snapjson.h"
#include "view.h"

static const char *const pgt_names[] = {
	[MEMWALK_PGT_PGD] = "PGD", [MEMWALK_PGT_P4D] = "P4D",
	[MEMWALK_PGT_PUD] = "PUD", [MEMWALK_PGT_PMD] = "PMD",
	[MEMWALK_PGT_PTE] = "PTE",
};

/*
 * ADDR as strtoull(3) with base 0 reads it, but octal: "4096" is decimal,
 * "0x1000" hexadecimal, and a leading 0 before digits ("0755") is refused
 * rather than read as octal, which no one means for an address.  Hex
 * without 0x ("7f0000001000") is refused too, with the hint: "1000" alone
 * would silently mean another page.
 */
static bool parse_addr(const char *cmd, const char *arg, uint64_t *addr)
{
	bool hex = arg[0] == '0' && (arg[1] == 'x' || arg[1] == 'X');
	const char *digits = hex ? arg + 2 : arg;
	char *end;

	if (!hex && arg[0] == '0' && arg[1]) {
		mw_err("%s: bad address '%s': a leading 0 is not octal here; write it in decimal, or in hex with 0x",
		       cmd, arg);
		return false;
	}
	if (*digits && strspn(digits, hex ? "0123456789abcdefABCDEF" : "0123456789") ==
			       strlen(digits)) {
		errno = 0;
		*addr = strtoull(arg, &end, hex ? 16 : 10);
		if (!errno && !*end)
			return true;
	} else if (!hex && *digits && strspn(digits, "0123456789abcdefABCDEF") == strlen(digits)) {
		mw_err("%s: bad address '%s': hexadecimal needs 0x, as in 0x%s", cmd, arg, arg);
		return false;
	}
	mw_err("%s: bad address '%s': expected a decimal number or a hexadecimal one with 0x, e.g. 0x7f0000001000",
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

/*
 * Decode level @l of @t into @d; true, with *@phys, when it maps the page.
 * Frame 0 is hidden (lab mode), never a table or a user page.
 */
static bool decode_level(const struct memwalk_translate *t, const struct memwalk_level *l,
			 const struct mw_pte_format *fmt, struct mw_pte_decoded *d, uint64_t *phys)
{
	mw_pte_decode(fmt, l->entry, l->level, d);
	if (!d->present || !d->leaf || !d->next)
		return false;
	*phys = d->next + (t->addr & (d->size - 1));
	return true;
}

/* -J: the levels with their raw values and what they decode to. */
static void print_translation_json(const struct memwalk_translate *t,
				   const struct mw_snapshot *snap, const struct mw_pte_format *fmt, int32_t pid)
{
	uint64_t phys = 0;
	bool mapped = false;
	unsigned int i;

	print_begin(true);
	print_int(PRINT_JSON, "pid", "", pid);
	print_uint(PRINT_JSON, "address", "", t->addr);
	open_json_array(PRINT_JSON, "levels");
	for (i = 0; i < t->nr_levels; i++) {
		const struct memwalk_level *l = &t->levels[i];
		struct mw_pte_decoded d;

		open_json_object(PRINT_JSON, NULL);
		print_string(PRINT_JSON, "level", "",
			     l->level <= MEMWALK_PGT_PTE ? pgt_names[l->level] : "?");
		print_uint(PRINT_JSON, "index", "", l->index);
		print_uint(PRINT_JSON, "entry", "", l->entry);
		print_uint(PRINT_JSON, "table", "", l->table_pa);
		mapped |= decode_level(t, l, fmt, &d, &phys);
		if (d.present && d.next)
			print_uint(PRINT_JSON, "next", "", d.next);
		if (fmt->arch != MW_PTE_RAW)
			print_string(PRINT_JSON, "bits", "", d.bits);
		close_json_object(PRINT_JSON);
	}
	close_json_array(PRINT_JSON);
	if (mapped)
		print_uint(PRINT_JSON, "physical_address", "", phys);
	if (t->vma_start || t->vma_end) {
		open_json_object(PRINT_JSON, "vma");
		print_uint(PRINT_JSON, "start", "", t->vma_start);
		print_uint(PRINT_JSON, "end", "", t->vma_end);
		close_json_object(PRINT_JSON);
	}
	if (t->page.nr_pages) {
		open_json_object(PRINT_JSON, "page");
		mw_run_print_json_members(snap, &t->page);
		close_json_object(PRINT_JSON);
	}
	print_end();
}

/* The levels, decoded in format @fmt, and the physical address, as text to @fp. */
void mw_translation_levels(FILE *fp, const struct memwalk_translate *t,
			   const struct mw_pte_format *fmt)
{
	uint64_t phys = 0;
	bool mapped = false;
	unsigned int i;

	if (t->nr_levels)
		fprintf(fp, "LEVEL INDEX ENTRY            TABLE            NEXT             BITS\n");
	for (i = 0; i < t->nr_levels; i++) {
		const struct memwalk_level *l = &t->levels[i];
		struct mw_pte_decoded d;
		char next[20] = "-";

		mapped |= decode_level(t, l, fmt, &d, &phys);
		if (d.present && d.next)
			snprintf(next, sizeof(next), "%016" PRIx64, d.next);
		fprintf(fp, "%-5s %5u %016" PRIx64 " %016" PRIx64 " %-16s %s\n",
			l->level <= MEMWALK_PGT_PTE ? pgt_names[l->level] : "?",
			l->index, (uint64_t)l->entry, (uint64_t)l->table_pa, next,
			d.bits);
	}
	if (mapped)
		fprintf(fp, "physical address: 0x%" PRIx64 "\n", phys);
}

/* @snap: an empty one with the page size, for the page's run. */
static void print_translation(const struct memwalk_translate *t,
			      const struct mw_snapshot *snap, const struct mw_pte_format *fmt, int32_t pid)
{
	char *rest;

	printf("pid %d address 0x%" PRIx64 "\n", pid, (uint64_t)t->addr);
	mw_translation_levels(stdout, t, fmt);
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
		mw_view_one_run(snap, &t->page);
}

static int translate_run(const struct mw_command *cmd, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'J' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct mw_snapshot snap = { .flags = MEMWALK_SNAP_ALL };
	struct memwalk_translate t;
	struct mw_device *dev;
	struct mw_error err;
	struct mw_pte_format fmt;
	bool json = false;
	int32_t pid;
	uint64_t addr;
	int c, ret;

	opterr = 0;
	optind = 0;
	while ((c = getopt_long(argc, argv, ":Jh", longopts, NULL)) != -1) {
		if (c == 'J') {
			json = true;
			continue;
		}
		if (c != 'h') {
			mw_bad_command_option(cmd, argv, c);
			return MW_EXIT_FAILURE;
		}
		printf("Usage: %s %s %s\n\n"
		       "Walk the page tables of process PID for the virtual address ADDR\n"
		       "(decimal, or hexadecimal with 0x) and print each level's entry, decoded,\n"
		       "then the VMA and the page.\n\n"
		       "Options:\n"
		       "  -J, --json    print one JSON object\n"
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
	snap.page_size = 1ULL << dev->info.page_shift;
	fmt = mw_pte_format(&dev->info);
	if (mw_translate(dev, pid, addr, &t, &err))
		ret = mw_report(&err);
	else if (json)
		print_translation_json(&t, &snap, &fmt, pid);
	else
		print_translation(&t, &snap, &fmt, pid);
	mw_device_close(dev);
	return ret;
}

MW_COMMAND(translate,
	.name = "translate",
	.args = "PID ADDR",
	.help = "walk the page tables of PID for one address",
	.run = translate_run);

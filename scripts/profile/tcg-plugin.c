// SPDX-License-Identifier: GPL-2.0
/*
 * A QEMU TCG plugin for scripts/profile.sh: how many guest instructions
 * ran in each translation block at a kernel address, written at exit as
 * "VADDR INSNS EXECS" lines to out=FILE.  One vCPU: the counters are
 * added inline, without atomics.
 *
 * With mark=VADDR (a user-space address) every block counts, user space
 * too, and each execution of the block at VADDR ends a phase: the counts
 * so far are written out after a "PHASE N" line and start again from 0.
 *
 * QEMU's plugin API (qemu-plugin.h, API version 1, QEMU 4.2 and later) is
 * not packaged by Debian; the few calls used are declared here.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef uint64_t qemu_plugin_id_t;
struct qemu_plugin_tb;
enum qemu_plugin_op { QEMU_PLUGIN_INLINE_ADD_U64 };
typedef void (*tb_trans_cb_t)(qemu_plugin_id_t id, struct qemu_plugin_tb *tb);
typedef void (*udata_cb_t)(qemu_plugin_id_t id, void *userdata);

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id, tb_trans_cb_t cb);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
uint64_t qemu_plugin_tb_vaddr(const struct qemu_plugin_tb *tb);
void qemu_plugin_register_vcpu_tb_exec_inline(struct qemu_plugin_tb *tb,
					      enum qemu_plugin_op op,
					      void *ptr, uint64_t imm);
typedef void (*vcpu_udata_cb_t)(unsigned int vcpu_index, void *userdata);
void qemu_plugin_register_vcpu_tb_exec_cb(struct qemu_plugin_tb *tb,
					  vcpu_udata_cb_t cb, int flags,
					  void *userdata);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id, udata_cb_t cb,
				    void *userdata);

__attribute__((visibility("default"))) int qemu_plugin_version = 1;

#define KERNEL_START	0xffff800000000000ULL
#define BUCKETS		(1U << 20)

struct block {
	uint64_t vaddr, insns, execs;
	struct block *next;
};

static struct block *table[BUCKETS];
static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
static const char *out_path = "tcg-profile.txt";
static uint64_t mark_vaddr;
static unsigned int phase;
static FILE *out_file;

/* A block is its address and length: a TB may be retranslated shorter. */
static struct block *block_get(uint64_t vaddr, uint64_t insns)
{
	unsigned int h = (vaddr ^ (vaddr >> 20) ^ insns * 7919) & (BUCKETS - 1);
	struct block *b;

	for (b = table[h]; b; b = b->next)
		if (b->vaddr == vaddr && b->insns == insns)
			return b;
	b = calloc(1, sizeof(*b));
	if (!b)
		abort();
	b->vaddr = vaddr;
	b->insns = insns;
	b->next = table[h];
	table[h] = b;
	return b;
}

static void dump(FILE *f)
{
	unsigned int i;
	struct block *b;

	for (i = 0; i < BUCKETS; i++)
		for (b = table[i]; b; b = b->next)
			if (b->execs) {
				fprintf(f, "%llx %llu %llu\n", (unsigned long long)b->vaddr,
					(unsigned long long)b->insns,
					(unsigned long long)b->execs);
				b->execs = 0;
			}
}

/* The marker ran: what ran since the last one is a phase. */
static void phase_end(unsigned int vcpu_index, void *userdata)
{
	if (!out_file)
		out_file = fopen(out_path, "w");
	if (!out_file)
		abort();
	fprintf(out_file, "PHASE %u\n", phase++);
	dump(out_file);
	fflush(out_file);
}

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	uint64_t vaddr = qemu_plugin_tb_vaddr(tb);
	struct block *b;

	if (mark_vaddr && vaddr == mark_vaddr)
		qemu_plugin_register_vcpu_tb_exec_cb(tb, phase_end, 0, NULL);
	if (vaddr < KERNEL_START && !mark_vaddr)
		return;
	pthread_mutex_lock(&table_lock);
	b = block_get(vaddr, qemu_plugin_tb_n_insns(tb));
	pthread_mutex_unlock(&table_lock);
	qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64,
						 &b->execs, 1);
}

static void at_exit(qemu_plugin_id_t id, void *userdata)
{
	FILE *f = out_file ? out_file : fopen(out_path, "w");

	if (!f)
		return;
	if (mark_vaddr)
		fprintf(f, "PHASE %u\n", phase);
	dump(f);
	fclose(f);
}

__attribute__((visibility("default")))
int qemu_plugin_install(qemu_plugin_id_t id, const void *info, int argc, char **argv)
{
	int i;

	for (i = 0; i < argc; i++)
		if (!strncmp(argv[i], "out=", 4))
			out_path = strdup(argv[i] + 4);
		else if (!strncmp(argv[i], "mark=", 5))
			mark_vaddr = strtoull(argv[i] + 5, NULL, 0);
	qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
	qemu_plugin_register_atexit_cb(id, at_exit, NULL);
	return 0;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * memwalk-client status: the module's status over generic netlink: what it
 * is, how its event pipeline is set up and how it is doing (the hooks, the
 * multicast groups, the per-CPU buffers).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>

#include "evparse.h"
#include "genl.h"
#include "memwalk-client.h"
#include "print.h"
#include "table.h"

#define ST_HAS(st, attr)	((st)->has & MW_HAS(attr))

static const int required_attrs[] = {
	MEMWALK_A_MODULE_VERSION,
	MEMWALK_A_UAPI_VERSION,
	MEMWALK_A_RELEASE,
};

static const char *const required_names[] = {
	"MEMWALK_A_MODULE_VERSION",
	"MEMWALK_A_UAPI_VERSION",
	"MEMWALK_A_RELEASE",
};

/*
 * The three lists, as tables in text (libsmartcols: aligned, escaped, -n
 * and -r) and as the arrays "groups", "probes", "cpus" in JSON (the print
 * layer, as ever).
 */
enum {
	COL_NAME, COL_SEQ, COL_SENT, COL_LOST_OVERFLOW, COL_LOST_NOMEM,
	COL_LEG, COL_EVENT, COL_STATE, COL_ERROR, COL_HITS, COL_NMISSED,
	COL_CPU, COL_RECORDED,
};

#define NUM	(MW_COL_RIGHT | MW_COL_NUMBER)

static const struct mw_col group_columns[] = {
	{ "group", 1, 0, COL_NAME, NULL, "multicast group" },
	{ "seq", 1, NUM, COL_SEQ, NULL, "last sequence number given out" },
	{ "sent", 1, NUM, COL_SENT, NULL, "events sent" },
	{ "lost_overflow", 1, NUM, COL_LOST_OVERFLOW, NULL, "lost: buffer full" },
	{ "lost_nomem", 1, NUM, COL_LOST_NOMEM, NULL, "lost: no memory to send" },
};

static const struct mw_col probe_columns[] = {
	{ "leg", 1, 0, COL_LEG, NULL, "tracepoint, kprobe, kretprobe" },
	{ "probe", 0.3, MW_COL_TRUNC, COL_NAME, NULL, "the hook" },
	{ "event", 1, 0, COL_EVENT, NULL, "the event it reports" },
	{ "state", 1, 0, COL_STATE, NULL, "attached, standby, failed, absent, disabled" },
	{ "error", 1, MW_COL_RIGHT, COL_ERROR, NULL, "error of its registration" },
	{ "hits", 1, NUM, COL_HITS, NULL, "times it ran" },
	{ "nmissed", 1, NUM, COL_NMISSED, NULL, "hits the kprobe machinery missed" },
};

static const struct mw_col cpu_columns[] = {
	{ "cpu", 1, NUM, COL_CPU, NULL, "CPU" },
	{ "recorded", 1, NUM, COL_RECORDED, NULL, "events recorded" },
	{ "lost_overflow", 1, NUM, COL_LOST_OVERFLOW, NULL, "lost: buffer full" },
};

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* A name, or the number when this client does not know it. */
static void name_cell(struct mw_table *t, struct mw_line *ln, size_t i,
		      const char *name, uint64_t num)
{
	if (name)
		mw_table_text(t, ln, i, name);
	else
		mw_table_number(t, ln, i, num);
}

static void group_row(struct mw_table *t, struct mw_line *ln,
		      const struct mw_status_group *g)
{
	size_t i;

	for (i = 0; i < t->nr_cols; i++) {
		switch (mw_table_col(t, i)->id) {
		case COL_NAME:
			mw_table_text(t, ln, i, g->name ? g->name : "?");
			break;
		case COL_SEQ:
			mw_table_number(t, ln, i, g->seq);
			break;
		case COL_SENT:
			mw_table_number(t, ln, i, g->sent);
			break;
		case COL_LOST_OVERFLOW:
			mw_table_number(t, ln, i, g->drops_overflow);
			break;
		case COL_LOST_NOMEM:
			mw_table_number(t, ln, i, g->drops_delivery);
			break;
		}
	}
}

static void probe_row(struct mw_table *t, struct mw_line *ln,
		      const struct mw_status_probe *p)
{
	char num[24];
	size_t i;

	for (i = 0; i < t->nr_cols; i++) {
		switch (mw_table_col(t, i)->id) {
		case COL_LEG:
			name_cell(t, ln, i, mw_leg_name(p->leg), p->leg);
			break;
		case COL_NAME:
			mw_table_text(t, ln, i, p->name ? p->name : "?");
			break;
		case COL_EVENT:
			name_cell(t, ln, i, p->event ? mw_event_name(p->event) : "(context)",
				  p->event);
			break;
		case COL_STATE:
			name_cell(t, ln, i, mw_probe_state_name(p->state), p->state);
			break;
		case COL_ERROR:
			snprintf(num, sizeof(num), "%" PRId64, (int64_t)p->error);
			mw_table_text(t, ln, i, num);
			break;
		case COL_HITS:
			mw_table_number(t, ln, i, p->hits);
			break;
		case COL_NMISSED:
			mw_table_number(t, ln, i, p->nmissed);
			break;
		}
	}
}

static void cpu_row(struct mw_table *t, struct mw_line *ln,
		    const struct mw_status_cpu *c)
{
	size_t i;

	for (i = 0; i < t->nr_cols; i++) {
		switch (mw_table_col(t, i)->id) {
		case COL_CPU:
			mw_table_number(t, ln, i, c->id);
			break;
		case COL_RECORDED:
			mw_table_number(t, ln, i, c->recorded);
			break;
		case COL_LOST_OVERFLOW:
			mw_table_number(t, ln, i, c->drops_overflow);
			break;
		}
	}
}

/* One list as a text table, after a blank line; @row fills line @k. */
static bool print_list(const struct mw_table_opts *opts, const struct mw_col *cols,
		       size_t n, const char *name, unsigned int count,
		       void (*row)(struct mw_table *, struct mw_line *,
				   const struct mw_status *, unsigned int),
		       const struct mw_status *st)
{
	struct mw_table t;
	struct mw_line *ln;
	unsigned int k;

	if (!mw_table_columns(&t, cols, n, NULL, opts, "status", name) ||
	    !mw_table_start(&t, name))
		return false;
	for (k = 0; k < count; k++) {
		ln = mw_table_line(&t, NULL);
		if (!ln) {
			mw_table_free(&t);
			mw_err("status: cannot build the table [%s]", mw_errno_text(ENOMEM));
			return false;
		}
		row(&t, ln, st, k);
	}
	if (!opts->noheadings)
		putchar('\n');
	return mw_table_print(&t);
}

static void group_at(struct mw_table *t, struct mw_line *ln,
		     const struct mw_status *st, unsigned int k)
{
	group_row(t, ln, &st->groups[k]);
}

static void probe_at(struct mw_table *t, struct mw_line *ln,
		     const struct mw_status *st, unsigned int k)
{
	probe_row(t, ln, &st->probes[k]);
}

static void cpu_at(struct mw_table *t, struct mw_line *ln,
		   const struct mw_status *st, unsigned int k)
{
	cpu_row(t, ln, &st->cpus[k]);
}

static void json_groups(const struct mw_status *st)
{
	unsigned int i;

	open_json_array(PRINT_JSON, "groups");
	for (i = 0; i < st->nr_groups; i++) {
		const struct mw_status_group *g = &st->groups[i];

		open_json_object(PRINT_JSON, NULL);
		print_string(PRINT_JSON, "name", NULL, g->name ? g->name : "?");
		print_uint(PRINT_JSON, "seq", NULL, g->seq);
		print_uint(PRINT_JSON, "sent", NULL, g->sent);
		print_uint(PRINT_JSON, "drops_overflow", NULL, g->drops_overflow);
		print_uint(PRINT_JSON, "drops_delivery", NULL, g->drops_delivery);
		close_json_object(PRINT_JSON);
	}
	close_json_array(PRINT_JSON);
}

/* A name, or the number when this client does not know it. */
static void json_name(const char *key, const char *name, uint64_t num)
{
	if (name)
		print_string(PRINT_JSON, key, NULL, name);
	else
		print_uint(PRINT_JSON, key, NULL, num);
}

static void json_probes(const struct mw_status *st)
{
	unsigned int i;

	open_json_array(PRINT_JSON, "probes");
	for (i = 0; i < st->nr_probes; i++) {
		const struct mw_status_probe *p = &st->probes[i];

		open_json_object(PRINT_JSON, NULL);
		print_string(PRINT_JSON, "name", NULL, p->name ? p->name : "?");
		json_name("leg", mw_leg_name(p->leg), p->leg);
		json_name("event", p->event ? mw_event_name(p->event) : "(context)", p->event);
		json_name("state", mw_probe_state_name(p->state), p->state);
		print_bool(PRINT_JSON, "attached", NULL, p->attached);
		print_int(PRINT_JSON, "error", NULL, p->error);
		print_uint(PRINT_JSON, "hits", NULL, p->hits);
		print_uint(PRINT_JSON, "nmissed", NULL, p->nmissed);
		close_json_object(PRINT_JSON);
	}
	close_json_array(PRINT_JSON);
}

static void json_cpus(const struct mw_status *st)
{
	unsigned int i;

	open_json_array(PRINT_JSON, "cpus");
	for (i = 0; i < st->nr_cpus; i++) {
		const struct mw_status_cpu *c = &st->cpus[i];

		open_json_object(PRINT_JSON, NULL);
		print_uint(PRINT_JSON, "id", NULL, c->id);
		print_uint(PRINT_JSON, "recorded", NULL, c->recorded);
		print_uint(PRINT_JSON, "drops_overflow", NULL, c->drops_overflow);
		close_json_object(PRINT_JSON);
	}
	close_json_array(PRINT_JSON);
}

static void print_pipeline(const struct mw_status *st)
{
	if (ST_HAS(st, MEMWALK_A_STATUS_PAGE_SIZE))
		print_uint(PRINT_ANY, "page_size", "page size:       %" PRIu64 "\n",
			   st->page_size);
	if (ST_HAS(st, MEMWALK_A_STATUS_BUFFER_EVENTS))
		print_uint(PRINT_ANY, "buffer_events",
			   "event buffer:    %" PRIu64 " events per CPU\n",
			   st->buffer_events);
	if (ST_HAS(st, MEMWALK_A_STATUS_SAMPLE_INTERVAL_MS)) {
		print_uint(PRINT_JSON, "sample_interval_ms", NULL, st->sample_interval_ms);
		if (st->sample_interval_ms)
			print_uint(PRINT_FP, NULL, "LRU sampler:     every %" PRIu64 " ms\n",
				   st->sample_interval_ms);
		else
			print_string(PRINT_FP, NULL, "%s", "LRU sampler:     off\n");
	}
	if (ST_HAS(st, MEMWALK_A_STATUS_KRETPROBE_MAXACTIVE))
		print_uint(PRINT_ANY, "kretprobe_maxactive",
			   "kretprobes:      %" PRIu64 " concurrent calls followed each\n",
			   st->kretprobe_maxactive);
	if (ST_HAS(st, MEMWALK_A_STATUS_DROPS_OVERFLOW))
		print_uint(PRINT_ANY, "drops_overflow",
			   "events lost:     %" PRIu64 " (buffer full)",
			   st->drops_overflow);
	if (ST_HAS(st, MEMWALK_A_STATUS_DROPS_DELIVERY))
		print_uint(PRINT_ANY, "drops_delivery",
			   ", %" PRIu64 " (no memory to send)\n", st->drops_delivery);
	else if (ST_HAS(st, MEMWALK_A_STATUS_DROPS_OVERFLOW))
		print_string(PRINT_FP, NULL, "%s", "\n");
}

static bool print_lists(const struct mw_status *st, const struct mw_table_opts *opts)
{
	bool cpus = ST_HAS(st, MEMWALK_A_STATUS_BUFFER_EVENTS);

	if (opts->json) {
		if (st->nr_groups)
			json_groups(st);
		if (st->nr_probes)
			json_probes(st);
		if (cpus)
			json_cpus(st);
		return true;
	}
	if (st->nr_groups && !print_list(opts, group_columns, N(group_columns),
					 "groups", st->nr_groups, group_at, st))
		return false;
	if (st->nr_probes && !print_list(opts, probe_columns, N(probe_columns),
					 "probes", st->nr_probes, probe_at, st))
		return false;
	if (cpus && !st->nr_cpus) {
		printf("\nno CPU has recorded an event yet\n");
		return true;
	}
	return !cpus || print_list(opts, cpu_columns, N(cpu_columns), "cpus",
				   st->nr_cpus, cpu_at, st);
}

/* A string from the module, escaped for a terminal. */
static void print_text(const char *label, const char *key, const char *value)
{
	if (print_is_json()) {
		print_string(PRINT_JSON, key, NULL, value);
		return;
	}
	fputs(label, stdout);
	print_escaped(stdout, value);
	putchar('\n');
}

static int print_status(const struct mw_status *st, const struct mw_table_opts *opts)
{
	bool ok;
	unsigned int i;

	for (i = 0; i < sizeof(required_attrs) / sizeof(required_attrs[0]); i++) {
		if (!ST_HAS(st, required_attrs[i])) {
			mw_err("malformed GET_STATUS reply: no %s", required_names[i]);
			return MW_EXIT_FAILURE;
		}
	}
	mw_check_uapi("module", st->uapi_version);

	print_begin(opts->json);
	print_text("module version:  ", "module_version", st->module_version);
	print_uint(PRINT_ANY, "uapi_version", "uapi version:    %" PRIu64 "\n",
		   st->uapi_version);
	print_text("kernel release:  ", "release", st->release);
	print_pipeline(st);
	ok = print_lists(st, opts);
	print_end();
	return ok ? MW_EXIT_OK : MW_EXIT_FAILURE;
}

static void usage(const struct mw_command *cmd)
{
	printf("Usage: %s %s %s\n\n"
	       "The module's status and event pipeline, over generic netlink.\n\n"
	       "Options:\n"
	       "  -J, --json             one JSON object\n"
	       "  -n, --noheadings       the tables without their heading lines\n"
	       "  -r, --raw              the tables unaligned, blanks escaped as \\x20\n"
	       "  -h, --help             show this help and exit\n",
	       MW_PROG, cmd->name, cmd->args);
	printf("\nSee %s(1).\n", MW_PROG);
}

/* -J, -n, -r; -1 to go on, or the status to exit with. */
static int parse_options(const struct mw_command *cmd, int argc, char **argv,
			 struct mw_table_opts *opts)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'J' },
		{ "noheadings", no_argument, NULL, 'n' },
		{ "raw", no_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	opterr = 0;
	optind = 0;
	while ((c = getopt_long(argc, argv, "+Jnrh", longopts, NULL)) != -1) {
		if (c != 'h' && mw_table_option(opts, c, optarg))
			continue;
		if (c == 'h') {
			usage(cmd);
			return MW_EXIT_OK;
		}
		mw_bad_option(cmd, argv);
		return MW_EXIT_FAILURE;
	}
	return mw_check_args(cmd, argc, argv, 0) ? MW_EXIT_FAILURE : -1;
}

static int status_run(const struct mw_command *cmd, int argc, char **argv)
{
	static struct mw_status st;	/* large */
	struct mw_error err;
	struct mw_table_opts opts = { 0 };
	struct mw_genl genl;
	int ret;

	ret = parse_options(cmd, argc, argv, &opts);
	if (ret >= 0)
		return ret;
	if (mw_genl_open(&genl, &err))
		return mw_report(&err);
	if (mw_genl_get_status(&genl, &st, &err))
		ret = mw_report(&err);
	else
		ret = print_status(&st, &opts);
	mw_status_release(&st);
	mw_genl_close(&genl);
	return ret;
}

MW_COMMAND(status,
	.name = "status",
	.args = "[-J] [-n] [-r]",
	.help = "show the module's status and event pipeline (netlink)",
	.run = status_run);

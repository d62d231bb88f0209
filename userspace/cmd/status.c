// SPDX-License-Identifier: GPL-2.0
/*
 * memwalk-client status: the module's status over generic netlink: what it
 * is, how its event pipeline is set up and how it is doing (the hooks, the
 * multicast groups, the per-CPU buffers).
 */
#include <inttypes.h>
#include <stdio.h>

#include "evparse.h"
#include "genl.h"
#include "memwalk-client.h"
#include "print.h"

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

static void print_groups(const struct mw_status *st)
{
	unsigned int i;

	if (!st->nr_groups)
		return;
	print_string(PRINT_FP, NULL, "%s",
		     "\nGROUP                  SEQ           SENT  LOST:OVERFLOW  LOST:NOMEM\n");
	open_json_array(PRINT_JSON, "groups");
	for (i = 0; i < st->nr_groups; i++) {
		const struct mw_status_group *g = &st->groups[i];

		open_json_object(PRINT_JSON, NULL);
		print_string(PRINT_ANY, "name", "%-12s", g->name ? g->name : "?");
		print_uint(PRINT_ANY, "seq", " %12" PRIu64, g->seq);
		print_uint(PRINT_ANY, "sent", " %14" PRIu64, g->sent);
		print_uint(PRINT_ANY, "drops_overflow", " %14" PRIu64, g->drops_overflow);
		print_uint(PRINT_ANY, "drops_delivery", " %11" PRIu64 "\n",
			   g->drops_delivery);
		close_json_object(PRINT_JSON);
	}
	close_json_array(PRINT_JSON);
}

static void print_probes(const struct mw_status *st)
{
	unsigned int i;
	char num[16];

	if (!st->nr_probes)
		return;
	print_string(PRINT_FP, NULL, "%s",
		     "\nLEG         PROBE                           EVENT                 STATE     ERROR         HITS   NMISSED\n");
	open_json_array(PRINT_JSON, "probes");
	for (i = 0; i < st->nr_probes; i++) {
		const struct mw_status_probe *p = &st->probes[i];
		const char *leg = mw_leg_name(p->leg);
		const char *state = mw_probe_state_name(p->state);
		const char *event = p->event ? mw_event_name(p->event) : "(context)";

		open_json_object(PRINT_JSON, NULL);
		print_string(PRINT_JSON, "name", NULL, p->name ? p->name : "?");
		if (leg) {
			print_string(PRINT_ANY, "leg", "%-11s", leg);
		} else {
			snprintf(num, sizeof(num), "%u", p->leg);
			print_string(PRINT_FP, NULL, "%-11s", num);
			print_uint(PRINT_JSON, "leg", NULL, p->leg);
		}
		print_string(PRINT_FP, NULL, " %-31s", p->name ? p->name : "?");
		if (event) {
			print_string(PRINT_ANY, "event", " %-21s", event);
		} else {
			snprintf(num, sizeof(num), "%u", p->event);
			print_string(PRINT_FP, NULL, " %-21s", num);
			print_uint(PRINT_JSON, "event", NULL, p->event);
		}
		if (state) {
			print_string(PRINT_ANY, "state", " %-9s", state);
		} else {
			snprintf(num, sizeof(num), "%u", p->state);
			print_string(PRINT_FP, NULL, " %-9s", num);
			print_uint(PRINT_JSON, "state", NULL, p->state);
		}
		print_bool(PRINT_JSON, "attached", NULL, p->attached);
		print_int(PRINT_ANY, "error", " %5" PRId64, p->error);
		print_uint(PRINT_ANY, "hits", " %12" PRIu64, p->hits);
		print_uint(PRINT_ANY, "nmissed", " %9" PRIu64 "\n", p->nmissed);
		close_json_object(PRINT_JSON);
	}
	close_json_array(PRINT_JSON);
}

static void print_cpus(const struct mw_status *st)
{
	unsigned int i;

	print_string(PRINT_FP, NULL, "%s", st->nr_cpus ?
		     "\nCPU        RECORDED  LOST:OVERFLOW\n" :
		     "\nno CPU has recorded an event yet\n");
	open_json_array(PRINT_JSON, "cpus");
	for (i = 0; i < st->nr_cpus; i++) {
		const struct mw_status_cpu *c = &st->cpus[i];

		open_json_object(PRINT_JSON, NULL);
		print_uint(PRINT_ANY, "id", "%-5" PRIu64, c->id);
		print_uint(PRINT_ANY, "recorded", " %14" PRIu64, c->recorded);
		print_uint(PRINT_ANY, "drops_overflow", " %14" PRIu64 "\n",
			   c->drops_overflow);
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
	print_groups(st);
	print_probes(st);
	if (ST_HAS(st, MEMWALK_A_STATUS_BUFFER_EVENTS))
		print_cpus(st);
}

static int print_status(const struct mw_status *st, bool json)
{
	unsigned int i;

	for (i = 0; i < sizeof(required_attrs) / sizeof(required_attrs[0]); i++) {
		if (!ST_HAS(st, required_attrs[i])) {
			mw_err("malformed GET_STATUS reply: no %s", required_names[i]);
			return MW_EXIT_FAILURE;
		}
	}
	mw_check_uapi("module", st->uapi_version);

	print_begin(json);
	print_string(PRINT_ANY, "module_version", "module version:  %s\n",
		     st->module_version);
	print_uint(PRINT_ANY, "uapi_version", "uapi version:    %" PRIu64 "\n",
		   st->uapi_version);
	print_string(PRINT_ANY, "release", "kernel release:  %s\n", st->release);
	print_pipeline(st);
	print_end();
	return MW_EXIT_OK;
}

static int status_run(const struct mw_command *cmd, int argc, char **argv)
{
	static struct mw_status st;	/* large */
	struct mw_error err;
	struct mw_genl genl;
	bool json;
	int ret;

	ret = mw_parse_output_opts(cmd, argc, argv, &json);
	if (ret >= 0)
		return ret;
	if (mw_genl_open(&genl, &err))
		return mw_report(&err);
	if (mw_genl_get_status(&genl, &st, &err))
		ret = mw_report(&err);
	else
		ret = print_status(&st, json);
	mw_status_release(&st);
	mw_genl_close(&genl);
	return ret;
}

MW_COMMAND(status,
	.name = "status",
	.args = "[-J|--json]",
	.help = "show the module's status and event pipeline (netlink)",
	.run = status_run);

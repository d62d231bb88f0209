// SPDX-License-Identifier: GPL-2.0
/*
 * libmemwalk: the event stream as Prometheus metrics.  See metrics.h.
 *
 * Counting follows the uapi header's "Events" notes: a direct reclaim stall
 * is its BEGIN (what /proc/vmstat allocstall_* counts once per call), a
 * kswapd run its RUN_BEGIN (pageoutrun), an OOM kill its OOM_KILL
 * (oom_kill); latencies and pages reclaimed come from the ENDs.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "metrics.h"

static const uint64_t hist_bounds_ns[MW_HIST_BUCKETS] = {
	10000, 100000, 500000, 1000000, 5000000, 10000000, 50000000,
	100000000, 500000000, 1000000000, 5000000000ULL, 10000000000ULL,
};

static const char *const hist_bounds[MW_HIST_BUCKETS] = {
	"1e-05", "0.0001", "0.0005", "0.001", "0.005", "0.01", "0.05",
	"0.1", "0.5", "1", "5", "10",
};

int mw_metrics_init(struct mw_metrics *m, uint32_t page_size, uint64_t start_ns)
{
	memset(m, 0, sizeof(*m));
	m->page_size = page_size;
	return mw_evstate_init(&m->state, start_ns);
}

static void series_set_free(struct mw_series_set *s)
{
	unsigned int i;

	for (i = 0; i < s->nr; i++) {
		free(s->v[i].key);
		free(s->v[i].victim_comm);
	}
	free(s->v);
	s->v = NULL;
	s->nr = 0;
}

void mw_metrics_free(struct mw_metrics *m)
{
	series_set_free(&m->direct);
	series_set_free(&m->memcg);
	series_set_free(&m->kswapd);
	series_set_free(&m->oom);
	mw_evstate_free(&m->state);
}

/*
 * The series labelled @key, made if new; past MW_METRICS_MAX_KEYS the one
 * labelled "other".  NULL only when out of memory (the event is not counted).
 */
static struct mw_series *series_get(struct mw_series_set *s, const char *key)
{
	struct mw_series *v;
	unsigned int i;

	for (i = 0; i < s->nr; i++)
		if (!strcmp(s->v[i].key, key))
			return &s->v[i];
	if (s->nr >= MW_METRICS_MAX_KEYS && strcmp(key, "other"))
		return series_get(s, "other");
	v = realloc(s->v, (s->nr + 1) * sizeof(*v));
	if (!v)
		return NULL;
	s->v = v;
	v = &s->v[s->nr];
	memset(v, 0, sizeof(*v));
	v->key = strdup(key);
	if (!v->key)
		return NULL;
	s->nr++;
	return v;
}

static struct mw_series *node_series(struct mw_series_set *s, uint32_t nid)
{
	char key[16];

	snprintf(key, sizeof(key), "%" PRIu32, nid);
	return series_get(s, key);
}

static void hist_add(struct mw_hist *h, uint64_t ns)
{
	unsigned int i = 0;

	while (i < MW_HIST_BUCKETS && ns > hist_bounds_ns[i])
		i++;
	h->bucket[i]++;
	h->count++;
	h->sum_ns += ns;
}

static void count_end(struct mw_series *v, const struct mw_event *ev,
		      const struct mw_ev_extra *x)
{
	if (ev->has & MW_HAS(MEMWALK_A_EVENT_NR_RECLAIMED))
		v->reclaimed += ev->nr_reclaimed;
	if (x->has_latency)
		hist_add(&v->latency, x->latency_ns);
}

static void count_oom(struct mw_metrics *m, const struct mw_event *ev)
{
	const char *memcg = ev->victim_memcg_path ? ev->victim_memcg_path : "";
	struct mw_series *v = series_get(&m->oom, memcg);
	char *comm;

	if (!v)
		return;
	v->begins++;
	if (!(ev->has & MW_HAS(MEMWALK_A_OOM_VICTIM_TGID)))
		return;
	comm = strdup(ev->victim_comm ? ev->victim_comm : "");
	if (!comm)
		return;
	free(v->victim_comm);
	v->victim_comm = comm;
	v->victim_pid = ev->victim_tgid;
}

/* The newest values of each node the event carries. */
static void keep_nodes(struct mw_metrics *m, const struct mw_event *ev)
{
	unsigned int i;

	for (i = 0; i < ev->nr_nodes; i++) {
		const struct mw_ev_node *n = &ev->nodes[i];
		struct mw_node_gauges *g;

		if (!n->has_id || n->id >= MW_EV_MAX_NODES)
			continue;
		g = &m->nodes[n->id];
		if (g->node.has_id && g->time_ns > ev->time_ns)
			continue;
		g->time_ns = ev->time_ns;
		g->node = *n;
	}
}

void mw_metrics_event(struct mw_metrics *m, enum mw_group grp,
		      const struct mw_event *ev)
{
	const char *memcg = ev->memcg_path ? ev->memcg_path : "";
	struct mw_ev_extra x;
	struct mw_series *v = NULL;

	mw_evstate_event(&m->state, grp, ev, &x);
	if (ev->type == MEMWALK_EV_LOST)
		return;
	m->received[grp]++;
	keep_nodes(m, ev);
	switch (ev->type) {
	case MEMWALK_EV_DIRECT_RECLAIM_BEGIN:
	case MEMWALK_EV_DIRECT_RECLAIM_END:
		v = series_get(&m->direct, memcg);
		break;
	case MEMWALK_EV_MEMCG_RECLAIM_BEGIN:
	case MEMWALK_EV_MEMCG_RECLAIM_END:
		v = series_get(&m->memcg, memcg);
		break;
	case MEMWALK_EV_KSWAPD_WAKE:
	case MEMWALK_EV_KSWAPD_RUN_BEGIN:
	case MEMWALK_EV_KSWAPD_RUN_END:
		if (ev->has & MW_HAS(MEMWALK_A_EVENT_NID))
			v = node_series(&m->kswapd, ev->nid);
		break;
	case MEMWALK_EV_OOM_KILL:
		count_oom(m, ev);
		return;
	}
	if (!v)
		return;
	switch (ev->type) {
	case MEMWALK_EV_KSWAPD_WAKE:
		v->wakes++;
		break;
	case MEMWALK_EV_DIRECT_RECLAIM_BEGIN:
	case MEMWALK_EV_MEMCG_RECLAIM_BEGIN:
	case MEMWALK_EV_KSWAPD_RUN_BEGIN:
		v->begins++;
		break;
	default:
		count_end(v, ev, &x);
	}
}

void mw_metrics_overflow(struct mw_metrics *m, enum mw_group grp, uint64_t now_ns)
{
	mw_evstate_overflow(&m->state, grp, now_ns);
}

/* ---- the text ------------------------------------------------------------ */

void mw_label_escape(FILE *out, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	while (*p) {
		unsigned int len = 0, i;

		if (*p == '\\' || *p == '"') {
			fputc('\\', out);
			fputc(*p++, out);
			continue;
		}
		if (*p == '\n') {
			fputs("\\n", out);
			p++;
			continue;
		}
		if (*p >= 0x20 && *p < 0x7f) {
			fputc(*p++, out);
			continue;
		}
		/* A well-formed UTF-8 sequence, shortest form, no surrogate. */
		if (*p >= 0xc2 && *p <= 0xdf)
			len = 2;
		else if (*p >= 0xe0 && *p <= 0xef)
			len = 3;
		else if (*p >= 0xf0 && *p <= 0xf4)
			len = 4;
		for (i = 1; i < len; i++)
			if ((p[i] & 0xc0) != 0x80)
				len = 0;
		if (len == 3 && ((p[0] == 0xe0 && p[1] < 0xa0) ||
				 (p[0] == 0xed && p[1] >= 0xa0)))
			len = 0;
		if (len == 4 && ((p[0] == 0xf0 && p[1] < 0x90) ||
				 (p[0] == 0xf4 && p[1] >= 0x90)))
			len = 0;
		if (!len) {
			fputs("\xef\xbf\xbd", out);	/* U+FFFD */
			p++;
			continue;
		}
		fwrite(p, 1, len, out);
		p += len;
	}
}

static void family(FILE *f, const char *name, const char *type, const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* name{label="value"} N */
static void sample(FILE *f, const char *name, const char *label,
		   const char *value, uint64_t n)
{
	fprintf(f, "%s{%s=\"", name, label);
	mw_label_escape(f, value);
	fprintf(f, "\"} %" PRIu64 "\n", n);
}

static void hist_samples(FILE *f, const char *name, const char *label,
			 const char *value, const struct mw_hist *h)
{
	uint64_t cum = 0;
	unsigned int i;

	for (i = 0; i <= MW_HIST_BUCKETS; i++) {
		cum += h->bucket[i];
		fprintf(f, "%s_bucket{%s=\"", name, label);
		mw_label_escape(f, value);
		fprintf(f, "\",le=\"%s\"} %" PRIu64 "\n",
			i < MW_HIST_BUCKETS ? hist_bounds[i] : "+Inf", cum);
	}
	fprintf(f, "%s_sum{%s=\"", name, label);
	mw_label_escape(f, value);
	fprintf(f, "\"} %" PRIu64 ".%09" PRIu64 "\n", h->sum_ns / UINT64_C(1000000000),
		h->sum_ns % UINT64_C(1000000000));
	fprintf(f, "%s_count{%s=\"", name, label);
	mw_label_escape(f, value);
	fprintf(f, "\"} %" PRIu64 "\n", h->count);
}

/* A stall family: memwalk_PREFIX_stalls_total, _stall_seconds, _reclaimed_bytes_total. */
static void render_stalls(FILE *f, const struct mw_metrics *m,
			  const struct mw_series_set *s, const char *prefix,
			  const char *what)
{
	char name[96], help[256];
	unsigned int i;

	snprintf(name, sizeof(name), "memwalk_%s_stalls_total", prefix);
	snprintf(help, sizeof(help), "%s stalls begun, by the stalled task's memory cgroup.", what);
	family(f, name, "counter", help);
	for (i = 0; i < s->nr; i++)
		sample(f, name, "memcg", s->v[i].key, s->v[i].begins);

	snprintf(name, sizeof(name), "memwalk_%s_stall_seconds", prefix);
	snprintf(help, sizeof(help), "%s stall latency, of the stalls whose end and latency were seen.", what);
	family(f, name, "histogram", help);
	for (i = 0; i < s->nr; i++)
		hist_samples(f, name, "memcg", s->v[i].key, &s->v[i].latency);

	snprintf(name, sizeof(name), "memwalk_%s_reclaimed_bytes_total", prefix);
	snprintf(help, sizeof(help), "Memory reclaimed by %s stalls, by the stalled task's memory cgroup.", what);
	family(f, name, "counter", help);
	for (i = 0; i < s->nr; i++)
		sample(f, name, "memcg", s->v[i].key, s->v[i].reclaimed * m->page_size);
}

static void render_kswapd(FILE *f, const struct mw_metrics *m)
{
	const struct mw_series_set *s = &m->kswapd;
	unsigned int i;

	family(f, "memwalk_kswapd_wakeups_total", "counter",
	       "Allocations that woke a sleeping kswapd, by node.");
	for (i = 0; i < s->nr; i++)
		sample(f, "memwalk_kswapd_wakeups_total", "node", s->v[i].key, s->v[i].wakes);
	family(f, "memwalk_kswapd_runs_total", "counter",
	       "kswapd balance_pgdat() runs begun, by node (vmstat pageoutrun).");
	for (i = 0; i < s->nr; i++)
		sample(f, "memwalk_kswapd_runs_total", "node", s->v[i].key, s->v[i].begins);
	family(f, "memwalk_kswapd_run_seconds", "histogram",
	       "kswapd run duration, of the runs whose end and duration were seen.");
	for (i = 0; i < s->nr; i++)
		hist_samples(f, "memwalk_kswapd_run_seconds", "node", s->v[i].key,
			     &s->v[i].latency);
	family(f, "memwalk_kswapd_reclaimed_bytes_total", "counter",
	       "Memory kswapd reclaimed, by node.");
	for (i = 0; i < s->nr; i++)
		sample(f, "memwalk_kswapd_reclaimed_bytes_total", "node", s->v[i].key,
		       s->v[i].reclaimed * m->page_size);
}

static void render_oom(FILE *f, const struct mw_metrics *m)
{
	const struct mw_series_set *s = &m->oom;
	unsigned int i;

	family(f, "memwalk_oom_kills_total", "counter",
	       "Processes the OOM killer killed, by the victim's memory cgroup (vmstat oom_kill).");
	for (i = 0; i < s->nr; i++)
		sample(f, "memwalk_oom_kills_total", "memcg", s->v[i].key, s->v[i].begins);
	family(f, "memwalk_oom_last_victim_info", "gauge",
	       "The last OOM victim of each memory cgroup: pid and comm as labels, value 1.");
	for (i = 0; i < s->nr; i++) {
		if (!s->v[i].victim_comm)
			continue;
		fputs("memwalk_oom_last_victim_info{memcg=\"", f);
		mw_label_escape(f, s->v[i].key);
		fprintf(f, "\",pid=\"%" PRIu32 "\",comm=\"", s->v[i].victim_pid);
		mw_label_escape(f, s->v[i].victim_comm);
		fputs("\"} 1\n", f);
	}
}

static void render_nodes(FILE *f, const struct mw_metrics *m)
{
	static const char *const wmarks[] = { "min", "low", "high" };
	unsigned int i, k;

	family(f, "memwalk_node_lru_bytes", "gauge",
	       "Memory on each LRU list of a node, as the module last reported it.");
	for (i = 0; i < MW_EV_MAX_NODES; i++)
		for (k = MW_N_ACTIVE_ANON; k <= MW_N_UNEVICTABLE; k++)	/* the LRU lists */
			if (m->nodes[i].node.has_id && (m->nodes[i].node.has & (1u << k)))
				fprintf(f, "memwalk_node_lru_bytes{node=\"%u\",lru=\"%s\"} %" PRIu64 "\n",
					i, mw_node_item_names[k],
					m->nodes[i].node.v[k] * m->page_size);
	family(f, "memwalk_node_free_bytes", "gauge",
	       "Free memory of a node, summed over its zones, as the module last reported it.");
	for (i = 0; i < MW_EV_MAX_NODES; i++)
		if (m->nodes[i].node.has_id && (m->nodes[i].node.has & (1u << MW_N_FREE)))
			fprintf(f, "memwalk_node_free_bytes{node=\"%u\"} %" PRIu64 "\n", i,
				m->nodes[i].node.v[MW_N_FREE] * m->page_size);
	family(f, "memwalk_node_watermark_bytes", "gauge",
	       "A node's zone watermarks (with any boost), summed over its zones.");
	for (i = 0; i < MW_EV_MAX_NODES; i++)
		for (k = 0; k < 3; k++)
			if (m->nodes[i].node.has_id &&
			    (m->nodes[i].node.has & (1u << (MW_N_WMARK_MIN + k))))
				fprintf(f, "memwalk_node_watermark_bytes{node=\"%u\",watermark=\"%s\"} %" PRIu64 "\n",
					i, wmarks[k],
					m->nodes[i].node.v[MW_N_WMARK_MIN + k] * m->page_size);
}

static void render_stream(FILE *f, const struct mw_metrics *m)
{
	int g;

	family(f, "memwalk_events_received_total", "counter",
	       "Events received from the module, by multicast group.");
	for (g = 0; g < MW_NR_GROUPS; g++)
		sample(f, "memwalk_events_received_total", "group", mw_group_name(g),
		       m->received[g]);
	family(f, "memwalk_events_lost_total", "counter",
	       "Events the module reported lost (LOST records), by multicast group.");
	for (g = 0; g < MW_NR_GROUPS; g++)
		sample(f, "memwalk_events_lost_total", "group", mw_group_name(g),
		       m->state.seq[g].lost_reported);
	family(f, "memwalk_receive_overflows_total", "counter",
	       "Times the exporter's socket overflowed (ENOBUFS: events lost, number unknown).");
	for (g = 0; g < MW_NR_GROUPS; g++)
		sample(f, "memwalk_receive_overflows_total", "group", mw_group_name(g),
		       m->state.seq[g].overflows);
	family(f, "memwalk_malformed_messages_total", "counter",
	       "Messages from the module the exporter could not parse.");
	fprintf(f, "memwalk_malformed_messages_total %" PRIu64 "\n", m->state.malformed);
	family(f, "memwalk_exporter_scrapes_total", "counter",
	       "Requests for the metrics served, this one included.");
	fprintf(f, "memwalk_exporter_scrapes_total %" PRIu64 "\n", m->scrapes);
}

static const char *name_or(const char *name, char *num, size_t size, uint32_t v)
{
	if (name)
		return name;
	snprintf(num, size, "%" PRIu32, v);
	return num;
}

/* The probe's identity labels: probe, leg, event. */
static void probe_labels(FILE *f, const struct mw_status_probe *p)
{
	char leg[16], ev[16];

	fputs("probe=\"", f);
	mw_label_escape(f, p->name ? p->name : "");
	fprintf(f, "\",leg=\"%s\",event=\"%s\"",
		name_or(mw_leg_name(p->leg), leg, sizeof(leg), p->leg),
		p->event ? name_or(mw_event_name(p->event), ev, sizeof(ev), p->event) :
			   "context");
}

static void render_probes(FILE *f, const struct mw_status *st)
{
	unsigned int i, s;

	family(f, "memwalk_probe_state", "gauge",
	       "1 for the state each hook of the module is in, 0 for the others.");
	for (i = 0; i < st->nr_probes; i++) {
		for (s = MEMWALK_PROBE_ATTACHED; s <= MEMWALK_PROBE_DISABLED; s++) {
			fputs("memwalk_probe_state{", f);
			probe_labels(f, &st->probes[i]);
			fprintf(f, ",state=\"%s\"} %d\n", mw_probe_state_name(s),
				st->probes[i].state == s);
		}
	}
	family(f, "memwalk_probe_hits_total", "counter", "Runs of each hook's handler.");
	for (i = 0; i < st->nr_probes; i++) {
		fputs("memwalk_probe_hits_total{", f);
		probe_labels(f, &st->probes[i]);
		fprintf(f, "} %" PRIu64 "\n", st->probes[i].hits);
	}
	family(f, "memwalk_probe_missed_total", "counter",
	       "kprobe misses and kretprobe maxactive misses of each hook.");
	for (i = 0; i < st->nr_probes; i++) {
		fputs("memwalk_probe_missed_total{", f);
		probe_labels(f, &st->probes[i]);
		fprintf(f, "} %" PRIu64 "\n", st->probes[i].nmissed);
	}
}

static void render_status(FILE *f, const struct mw_status *st)
{
	unsigned int i;

	family(f, "memwalk_module_info", "gauge",
	       "The memwalk module: version, uapi version and kernel release as labels, value 1.");
	fputs("memwalk_module_info{version=\"", f);
	mw_label_escape(f, st->module_version ? st->module_version : "");
	fprintf(f, "\",uapi=\"%" PRIu32 "\",release=\"", st->uapi_version);
	mw_label_escape(f, st->release ? st->release : "");
	fputs("\"} 1\n", f);
	if (st->has & MW_HAS(MEMWALK_A_STATUS_SAMPLE_INTERVAL_MS)) {
		family(f, "memwalk_lru_sample_interval_seconds", "gauge",
		       "Period of the module's LRU sampler (0: off).");
		fprintf(f, "memwalk_lru_sample_interval_seconds %" PRIu32 ".%03" PRIu32 "\n",
			st->sample_interval_ms / 1000, st->sample_interval_ms % 1000);
	}
	family(f, "memwalk_module_events_dropped_total", "counter",
	       "Events the module lost, by multicast group and reason (buffer overflow, no memory to send).");
	for (i = 0; i < st->nr_groups; i++) {
		const struct mw_status_group *g = &st->groups[i];
		const char *name = g->name ? g->name : "";

		if (g->has & (1u << MEMWALK_A_GROUP_DROPS_OVERFLOW)) {
			fputs("memwalk_module_events_dropped_total{group=\"", f);
			mw_label_escape(f, name);
			fprintf(f, "\",reason=\"overflow\"} %" PRIu64 "\n", g->drops_overflow);
		}
		if (g->has & (1u << MEMWALK_A_GROUP_DROPS_DELIVERY)) {
			fputs("memwalk_module_events_dropped_total{group=\"", f);
			mw_label_escape(f, name);
			fprintf(f, "\",reason=\"delivery\"} %" PRIu64 "\n", g->drops_delivery);
		}
	}
	family(f, "memwalk_module_events_sent_total", "counter",
	       "Events the module multicast, by group.");
	for (i = 0; i < st->nr_groups; i++)
		if (st->groups[i].has & (1u << MEMWALK_A_GROUP_SENT))
			sample(f, "memwalk_module_events_sent_total", "group",
			       st->groups[i].name ? st->groups[i].name : "",
			       st->groups[i].sent);
	render_probes(f, st);
}

int mw_metrics_render(const struct mw_metrics *m, const struct mw_status *st,
		      char **text, size_t *len)
{
	FILE *f = open_memstream(text, len);

	if (!f)
		return -ENOMEM;
	render_stalls(f, m, &m->direct, "direct_reclaim",
		      "Global direct reclaim (try_to_free_pages, vmstat allocstall)");
	render_stalls(f, m, &m->memcg, "memcg_reclaim",
		      "Memory cgroup limit reclaim (try_to_free_mem_cgroup_pages)");
	render_kswapd(f, m);
	render_oom(f, m);
	render_nodes(f, m);
	render_stream(f, m);
	if (st)
		render_status(f, st);
	if (ferror(f)) {
		fclose(f);
		free(*text);
		*text = NULL;
		return -ENOMEM;
	}
	if (fclose(f)) {
		free(*text);
		*text = NULL;
		return -ENOMEM;
	}
	return 0;
}

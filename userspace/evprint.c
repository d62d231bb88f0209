// SPDX-License-Identifier: GPL-2.0
/*
 * memwalk-client events: one event as a text line or a JSON object.
 *
 * Text: TIME (CLOCK_MONOTONIC seconds, as the event's TIME_NS), EVENT, PID,
 * COMM, then the details as key=value words, sizes in bytes for reading;
 * an OOM kill is followed by the lines of its story.  JSON: one object per
 * line with every attribute the module sent, under stable keys, values in
 * the module's units (pages, ns), plus what the client derived (latency of
 * paired events, gfp flag names, the story).
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "evprint.h"
#include "memwalk-client.h"
#include "print.h"

#define HAS(ev, attr)	((ev)->has & MW_HAS(attr))

/* ---- text helpers -------------------------------------------------------------- */

struct line {
	char buf[8192];
	size_t len;
};

static void addf(struct line *l, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void addf(struct line *l, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (l->len >= sizeof(l->buf) - 1)
		return;
	va_start(ap, fmt);
	n = vsnprintf(l->buf + l->len, sizeof(l->buf) - l->len, fmt, ap);
	va_end(ap);
	if (n > 0)
		l->len += (size_t)n;
	if (l->len > sizeof(l->buf) - 1)
		l->len = sizeof(l->buf) - 1;
}

/* "12.3M": binary units, as free(1) -h does. */
static const char *human(uint64_t bytes, char *buf, size_t len)
{
	static const char units[] = "KMGTPE";
	double v = bytes;
	int u = -1;

	if (bytes < 1024) {
		snprintf(buf, len, "%" PRIu64 "B", bytes);
		return buf;
	}
	while (v >= 1024 && u < 5) {
		v /= 1024;
		u++;
	}
	snprintf(buf, len, v < 10 ? "%.1f%c" : "%.0f%c", v, units[u]);
	return buf;
}

static const char *pages(const struct mw_print_opts *o, uint64_t n)
{
	static char buf[32];

	return human(n * (o->page_size ? o->page_size : 4096), buf, sizeof(buf));
}

/* "350us", "12.345ms", "2.100s" */
static const char *duration(uint64_t ns, char *buf, size_t len)
{
	if (ns < 1000 * 1000)
		snprintf(buf, len, "%.1fus", ns / 1e3);
	else if (ns < 1000ULL * 1000 * 1000)
		snprintf(buf, len, "%.3fms", ns / 1e6);
	else
		snprintf(buf, len, "%.3fs", ns / 1e9);
	return buf;
}

static void add_gfp(struct line *l, uint32_t gfp, const struct mw_print_opts *o)
{
	char names[256];

	addf(l, " gfp=%#x(%s)", gfp,
	     mw_gfp_names(gfp, o->gfp_atomic_bit, names, sizeof(names)));
}

static void add_nodes(struct line *l, const struct mw_event *ev,
		      const struct mw_print_opts *o)
{
	unsigned int i;
	char a[16], b[16], c[16];

	for (i = 0; i < ev->nr_nodes; i++) {
		const struct mw_ev_node *n = &ev->nodes[i];
		const uint64_t *v = n->v;

		addf(l, " node%u[free=%s", n->id, pages(o, v[MW_N_FREE]));
		addf(l, " wmark=%s/", human(v[MW_N_WMARK_MIN] * (o->page_size ?: 4096), a, sizeof(a)));
		addf(l, "%s/", human(v[MW_N_WMARK_LOW] * (o->page_size ?: 4096), b, sizeof(b)));
		addf(l, "%s", human(v[MW_N_WMARK_HIGH] * (o->page_size ?: 4096), c, sizeof(c)));
		addf(l, " anon=%s/", pages(o, v[MW_N_ACTIVE_ANON]));
		addf(l, "%s", pages(o, v[MW_N_INACTIVE_ANON]));
		addf(l, " file=%s/", pages(o, v[MW_N_ACTIVE_FILE]));
		addf(l, "%s", pages(o, v[MW_N_INACTIVE_FILE]));
		if (v[MW_N_UNEVICTABLE])
			addf(l, " unevictable=%s", pages(o, v[MW_N_UNEVICTABLE]));
		addf(l, "]");
	}
	if (ev->nodes_dropped)
		addf(l, " (+%u nodes)", ev->nodes_dropped);
}

static void add_story_part(struct line *l, const char *what,
			   const struct mw_story_part *p, const char *noun,
			   const struct mw_story *s, bool scoped)
{
	char d[32];

	addf(l, "  | %-15s %" PRIu64 " %s", what, p->begins, noun);
	if (scoped && s->scope)
		addf(l, " %s", s->scope);
	if (!scoped && p->in_scope && s->scope)
		addf(l, " (%" PRIu64 " in %s)", p->in_scope, s->scope);
	if (p->by_victim)
		addf(l, " (%" PRIu64 " by the victim)", p->by_victim);
	addf(l, ", %" PRIu64 " ended", p->ends);
	addf(l, ", %s", duration(p->time_ns, d, sizeof(d)));
	addf(l, ", %" PRIu64 " pages reclaimed\n", p->reclaimed);
}

static void add_story(struct line *l, const struct mw_story *s)
{
	char d[32], c[32];

	addf(l, "  | what led to it, the %s before", duration(s->window_ns, d, sizeof(d)));
	if (s->covered_ns < s->window_ns)
		addf(l, " (watched only the last %s)", duration(s->covered_ns, c, sizeof(c)));
	addf(l, ", %s:\n", s->scope ? "in the OOM domain and globally" : "global OOM");
	addf(l, "  | %-15s %" PRIu64 " wakes, %" PRIu64 " runs, %" PRIu64 " ended, %s, %" PRIu64
	     " pages reclaimed\n", "kswapd:", s->kswapd_wakes, s->kswapd.begins,
	     s->kswapd.ends, duration(s->kswapd.time_ns, d, sizeof(d)), s->kswapd.reclaimed);
	add_story_part(l, "direct reclaim:", &s->direct, "stalls", s, false);
	if (s->scope)
		add_story_part(l, "memcg reclaim:", &s->memcg, "stalls in", s, true);
	else
		add_story_part(l, "memcg reclaim:", &s->memcg, "stalls", s, true);
	if (s->nr_events)
		addf(l, "  | first reclaim event %s before the kill",
		     duration(s->first_ns, d, sizeof(d)));
	else
		addf(l, "  | no reclaim events before the kill");
	addf(l, "; %" PRIu64 " reclaim events lost meanwhile%s\n", s->lost,
	     s->truncated ? "; older events dropped (too many to keep)" : "");
}

static void text_event(const struct mw_event *ev, const struct mw_ev_extra *x,
		       const struct mw_print_opts *o)
{
	const char *name = mw_event_name(ev->type);
	char when[32], pid[16], comm[32], d[32], unknown[32];
	struct line *l;
	static struct line line;

	l = &line;
	l->len = 0;
	l->buf[0] = '\0';
	if (!name) {
		snprintf(unknown, sizeof(unknown), "event_%u", ev->type);
		name = unknown;
	}
	snprintf(when, sizeof(when), "%.6f", ev->time_ns / 1e9);
	if (HAS(ev, MEMWALK_A_EVENT_PID))
		snprintf(pid, sizeof(pid), "%u", ev->pid);
	else
		snprintf(pid, sizeof(pid), "-");
	if (ev->comm)
		snprintf(comm, sizeof(comm), "%s", ev->comm);
	else if (HAS(ev, MEMWALK_A_EVENT_NID) &&
		 (ev->type == MEMWALK_EV_KSWAPD_RUN_BEGIN ||
		  ev->type == MEMWALK_EV_KSWAPD_RUN_END))
		snprintf(comm, sizeof(comm), "[kswapd%u]", ev->nid);
	else
		snprintf(comm, sizeof(comm), "-");
	addf(l, "%-15s %-20s %7s %-16s", when, name, pid, comm);

	switch (ev->type) {
	case MEMWALK_EV_LOST:
		addf(l, " group=%s lost=%" PRIu64, mw_group_name(x->grp), ev->lost);
		break;
	case MEMWALK_EV_LRU_SAMPLE:
		break;
	default:
		if (HAS(ev, MEMWALK_A_EVENT_NID))
			addf(l, " node=%u", ev->nid);
		if (HAS(ev, MEMWALK_A_EVENT_ZID))
			addf(l, " zone=%u", ev->zid);
		if (HAS(ev, MEMWALK_A_EVENT_ORDER))
			addf(l, " order=%d", ev->order);
		else if (x->has_begin && (x->begin_has & MW_HAS(MEMWALK_A_EVENT_ORDER)))
			addf(l, " order=%d", x->begin_order);
		if (HAS(ev, MEMWALK_A_EVENT_RECLAIM_ORDER))
			addf(l, " reclaim_order=%d", ev->reclaim_order);
		if (HAS(ev, MEMWALK_A_EVENT_GFP))
			add_gfp(l, ev->gfp, o);
		else if (x->has_begin && (x->begin_has & MW_HAS(MEMWALK_A_EVENT_GFP)))
			add_gfp(l, x->begin_gfp, o);
		if (HAS(ev, MEMWALK_A_EVENT_NR_RECLAIMED))
			addf(l, " reclaimed=%" PRIu64 "(%s)", ev->nr_reclaimed,
			     pages(o, ev->nr_reclaimed));
		if (x->has_latency)
			addf(l, " latency=%s", duration(x->latency_ns, d, sizeof(d)));
		if (ev->memcg_path)
			addf(l, " memcg=%s", ev->memcg_path);
		break;
	}
	if (ev->type == MEMWALK_EV_OOM_KILL) {
		addf(l, " victim=%u(%s)", ev->victim_pid,
		     ev->victim_comm ? ev->victim_comm : "?");
		if (HAS(ev, MEMWALK_A_OOM_VICTIM_TGID) && ev->victim_tgid != ev->victim_pid)
			addf(l, " victim_tgid=%u", ev->victim_tgid);
		if (HAS(ev, MEMWALK_A_OOM_VICTIM_UID))
			addf(l, " uid=%u", ev->victim_uid);
		if (ev->victim_memcg_path)
			addf(l, " victim_memcg=%s", ev->victim_memcg_path);
		addf(l, " rss=anon:%s", pages(o, ev->rss_anon));
		addf(l, ",file:%s", pages(o, ev->rss_file));
		addf(l, ",shmem:%s", pages(o, ev->rss_shmem));
		addf(l, " total_vm=%s", pages(o, ev->total_vm));
		if (HAS(ev, MEMWALK_A_OOM_SCORE_ADJ))
			addf(l, " oom_score_adj=%d", ev->score_adj);
		if (HAS(ev, MEMWALK_A_OOM_POINTS))
			addf(l, " points=%" PRId64 "/%" PRIu64, ev->points, ev->totalpages);
		if (HAS(ev, MEMWALK_A_OOM_CONSTRAINT)) {
			const char *c = mw_constraint_name(ev->constraint);

			if (c)
				addf(l, " constraint=%s", c);
			else
				addf(l, " constraint=%u", ev->constraint);
		}
		if (ev->oom_memcg_path)
			addf(l, " oom_memcg=%s", ev->oom_memcg_path);
	}
	if (ev->type != MEMWALK_EV_LOST)
		add_nodes(l, ev, o);
	while (l->len && l->buf[l->len - 1] == ' ')
		l->buf[--l->len] = '\0';
	addf(l, "\n");
	if (x->story)
		add_story(l, x->story);
	print_string(PRINT_FP, NULL, "%s", l->buf);
}

/* ---- JSON ------------------------------------------------------------------------------ */

static void json_u32(const struct mw_event *ev, int attr, const char *key,
		     uint32_t v)
{
	if (HAS(ev, attr))
		print_uint(PRINT_JSON, key, NULL, v);
}

static void json_u64(const struct mw_event *ev, int attr, const char *key,
		     uint64_t v)
{
	if (HAS(ev, attr))
		print_uint(PRINT_JSON, key, NULL, v);
}

static void json_s64(const struct mw_event *ev, int attr, const char *key,
		     int64_t v)
{
	if (HAS(ev, attr))
		print_int(PRINT_JSON, key, NULL, v);
}

static void json_str(const char *key, const char *v)
{
	if (v)
		print_string(PRINT_JSON, key, NULL, v);
}

static void json_part(const char *key, const struct mw_story_part *p,
		      const char *begins)
{
	open_json_object(PRINT_JSON, key);
	print_uint(PRINT_JSON, begins, NULL, p->begins);
	print_uint(PRINT_JSON, "ends", NULL, p->ends);
	print_uint(PRINT_JSON, "time_ns", NULL, p->time_ns);
	print_uint(PRINT_JSON, "reclaimed", NULL, p->reclaimed);
	print_uint(PRINT_JSON, "in_scope", NULL, p->in_scope);
	print_uint(PRINT_JSON, "by_victim", NULL, p->by_victim);
	close_json_object(PRINT_JSON);
}

static void json_story(const struct mw_story *s)
{
	open_json_object(PRINT_JSON, "story");
	print_uint(PRINT_JSON, "window_ns", NULL, s->window_ns);
	print_uint(PRINT_JSON, "covered_ns", NULL, s->covered_ns);
	json_str("scope", s->scope);
	open_json_object(PRINT_JSON, "kswapd");
	print_uint(PRINT_JSON, "wakes", NULL, s->kswapd_wakes);
	print_uint(PRINT_JSON, "runs", NULL, s->kswapd.begins);
	print_uint(PRINT_JSON, "ends", NULL, s->kswapd.ends);
	print_uint(PRINT_JSON, "time_ns", NULL, s->kswapd.time_ns);
	print_uint(PRINT_JSON, "reclaimed", NULL, s->kswapd.reclaimed);
	close_json_object(PRINT_JSON);
	json_part("direct", &s->direct, "stalls");
	json_part("memcg", &s->memcg, "stalls");
	print_uint(PRINT_JSON, "events", NULL, s->nr_events);
	if (s->nr_events)
		print_uint(PRINT_JSON, "first_ns_before", NULL, s->first_ns);
	print_uint(PRINT_JSON, "lost", NULL, s->lost);
	print_bool(PRINT_JSON, "truncated", NULL, s->truncated);
	close_json_object(PRINT_JSON);
}

static void json_event(const struct mw_event *ev, const struct mw_ev_extra *x,
		       const struct mw_print_opts *o)
{
	const char *name = mw_event_name(ev->type);
	const char *leg = mw_leg_name(ev->leg);
	char gfp[256];
	unsigned int i, j;

	print_begin(true);
	print_string(PRINT_JSON, "event", NULL, name ? name : "unknown");
	print_uint(PRINT_JSON, "type", NULL, ev->type);
	print_string(PRINT_JSON, "group", NULL, mw_group_name(x->grp));
	json_u64(ev, MEMWALK_A_EVENT_SEQ, "seq", ev->seq);
	json_u64(ev, MEMWALK_A_EVENT_TIME_NS, "time_ns", ev->time_ns);
	json_u32(ev, MEMWALK_A_EVENT_CPU, "cpu", ev->cpu);
	if (HAS(ev, MEMWALK_A_EVENT_LEG)) {
		if (leg)
			print_string(PRINT_JSON, "leg", NULL, leg);
		else
			print_uint(PRINT_JSON, "leg", NULL, ev->leg);
	}
	json_u64(ev, MEMWALK_A_EVENT_LOST, "lost", ev->lost);
	json_u32(ev, MEMWALK_A_EVENT_PID, "pid", ev->pid);
	json_u32(ev, MEMWALK_A_EVENT_TGID, "tgid", ev->tgid);
	json_str("comm", ev->comm);
	json_str("memcg", ev->memcg_path);
	json_u64(ev, MEMWALK_A_EVENT_MEMCG_ID, "memcg_id", ev->memcg_id);
	json_u32(ev, MEMWALK_A_EVENT_NID, "nid", ev->nid);
	json_u32(ev, MEMWALK_A_EVENT_ZID, "zid", ev->zid);
	json_s64(ev, MEMWALK_A_EVENT_ORDER, "order", ev->order);
	if (HAS(ev, MEMWALK_A_EVENT_GFP)) {
		print_uint(PRINT_JSON, "gfp", NULL, ev->gfp);
		print_string(PRINT_JSON, "gfp_flags", NULL,
			     mw_gfp_names(ev->gfp, o->gfp_atomic_bit, gfp, sizeof(gfp)));
	}
	json_u64(ev, MEMWALK_A_EVENT_NR_RECLAIMED, "nr_reclaimed", ev->nr_reclaimed);
	json_u64(ev, MEMWALK_A_EVENT_DURATION_NS, "duration_ns", ev->duration_ns);
	json_s64(ev, MEMWALK_A_EVENT_RECLAIM_ORDER, "reclaim_order", ev->reclaim_order);
	if (x->has_latency) {
		print_uint(PRINT_JSON, "latency_ns", NULL, x->latency_ns);
		print_string(PRINT_JSON, "latency_from", NULL,
			     x->latency_paired ? "begin" : "module");
	}
	if (x->has_begin) {
		if (x->begin_has & MW_HAS(MEMWALK_A_EVENT_ORDER))
			print_int(PRINT_JSON, "begin_order", NULL, x->begin_order);
		if (x->begin_has & MW_HAS(MEMWALK_A_EVENT_GFP))
			print_uint(PRINT_JSON, "begin_gfp", NULL, x->begin_gfp);
	}
	if (ev->type == MEMWALK_EV_OOM_KILL) {
		const char *c = mw_constraint_name(ev->constraint);

		open_json_object(PRINT_JSON, "victim");
		json_u32(ev, MEMWALK_A_OOM_VICTIM_PID, "pid", ev->victim_pid);
		json_u32(ev, MEMWALK_A_OOM_VICTIM_TGID, "tgid", ev->victim_tgid);
		json_str("comm", ev->victim_comm);
		json_u32(ev, MEMWALK_A_OOM_VICTIM_UID, "uid", ev->victim_uid);
		json_str("memcg", ev->victim_memcg_path);
		json_u64(ev, MEMWALK_A_OOM_VICTIM_MEMCG_ID, "memcg_id", ev->victim_memcg_id);
		json_u64(ev, MEMWALK_A_OOM_TOTAL_VM, "total_vm", ev->total_vm);
		json_u64(ev, MEMWALK_A_OOM_RSS_ANON, "rss_anon", ev->rss_anon);
		json_u64(ev, MEMWALK_A_OOM_RSS_FILE, "rss_file", ev->rss_file);
		json_u64(ev, MEMWALK_A_OOM_RSS_SHMEM, "rss_shmem", ev->rss_shmem);
		json_s64(ev, MEMWALK_A_OOM_SCORE_ADJ, "oom_score_adj", ev->score_adj);
		close_json_object(PRINT_JSON);
		if (HAS(ev, MEMWALK_A_OOM_CONSTRAINT)) {
			if (c)
				print_string(PRINT_JSON, "constraint", NULL, c);
			else
				print_uint(PRINT_JSON, "constraint", NULL, ev->constraint);
		}
		json_str("oom_memcg", ev->oom_memcg_path);
		json_u64(ev, MEMWALK_A_OOM_MEMCG_ID, "oom_memcg_id", ev->oom_memcg_id);
		json_s64(ev, MEMWALK_A_OOM_POINTS, "points", ev->points);
		json_u64(ev, MEMWALK_A_OOM_TOTALPAGES, "totalpages", ev->totalpages);
	}
	if (ev->nr_nodes) {
		open_json_array(PRINT_JSON, "nodes");
		for (i = 0; i < ev->nr_nodes; i++) {
			const struct mw_ev_node *n = &ev->nodes[i];

			open_json_object(PRINT_JSON, NULL);
			if (n->has_id)
				print_uint(PRINT_JSON, "id", NULL, n->id);
			for (j = 0; j < MW_N_ITEMS; j++)
				if (n->has & (1u << j))
					print_uint(PRINT_JSON, mw_node_item_names[j],
						   NULL, n->v[j]);
			close_json_object(PRINT_JSON);
		}
		close_json_array(PRINT_JSON);
	}
	if (ev->nodes_dropped)
		print_uint(PRINT_JSON, "nodes_dropped", NULL, ev->nodes_dropped);
	if (x->story)
		json_story(x->story);
	print_end();
}

/* ---- entry points ------------------------------------------------------------------------- */

void mw_ev_print_header(const struct mw_print_opts *o)
{
	if (o->json)
		return;
	print_begin(false);
	print_string(PRINT_FP, NULL, "%s",
		     "TIME(s)         EVENT                    PID COMM             DETAILS\n");
	fflush(stdout);
}

void mw_ev_print(const struct mw_event *ev, const struct mw_ev_extra *x,
		 const struct mw_print_opts *o)
{
	if (o->json) {
		json_event(ev, x, o);
	} else {
		print_begin(false);
		text_event(ev, x, o);
	}
	fflush(stdout);
}

void mw_ev_print_summary(const struct mw_ev_totals *t,
			 const struct mw_print_opts *o)
{
	fprintf(stderr,
		"%s: %" PRIu64 " events shown, %" PRIu64 " filtered out; lost: %" PRIu64
		" reported by the module, %" PRIu64 " missing by sequence number, %" PRIu64
		" socket overflows%s\n",
		MW_PROG, t->events, t->filtered, t->lost_reported, t->missing,
		t->overflows, t->malformed ? " (and malformed messages)" : "");
	if (!o->json)
		return;
	print_begin(true);
	print_string(PRINT_JSON, "event", NULL, "summary");
	print_uint(PRINT_JSON, "events", NULL, t->events);
	print_uint(PRINT_JSON, "filtered", NULL, t->filtered);
	print_uint(PRINT_JSON, "malformed", NULL, t->malformed);
	print_uint(PRINT_JSON, "lost_reported", NULL, t->lost_reported);
	print_uint(PRINT_JSON, "missing", NULL, t->missing);
	print_uint(PRINT_JSON, "overflows", NULL, t->overflows);
	print_end();
	fflush(stdout);
}

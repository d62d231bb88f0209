// SPDX-License-Identifier: GPL-2.0
/*
 * libmemwalk: what the event stream needs remembered.  See evstate.h.
 *
 * The story of an OOM kill is told from a ring of the reclaim events of the
 * last MW_STORY_WINDOW_NS: every kswapd run and direct or memcg reclaim stall,
 * whether or not it was printed (filters only choose what is shown).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "evstate.h"

/* ---- sequence numbers ------------------------------------------------------- */

void mw_seq_set_base(struct mw_seqtrack *s, uint64_t base)
{
	s->has_base = true;
	s->base = base;
	if (s->max_seen < base)
		s->max_seen = base;
}

void mw_seq_event(struct mw_seqtrack *s, uint64_t seq)
{
	/* Without a base, the first event is the start. */
	if (!s->has_base)
		mw_seq_set_base(s, seq ? seq - 1 : 0);
	if (seq <= s->base) {
		s->early++;
		return;
	}
	s->received++;
	if (seq > s->max_seen)
		s->max_seen = seq;
}

uint64_t mw_seq_missing(const struct mw_seqtrack *s, uint64_t last)
{
	uint64_t top = last > s->max_seen ? last : s->max_seen;
	uint64_t expected;

	if (!s->has_base || top <= s->base)
		return 0;
	expected = top - s->base;
	return expected > s->received ? expected - s->received : 0;
}

/* ---- filters ------------------------------------------------------------------ */

bool mw_memcg_under(const char *path, const char *prefix)
{
	size_t len = strlen(prefix);

	if (!path)
		return false;
	while (len > 1 && prefix[len - 1] == '/')
		len--;
	if (len == 1 && prefix[0] == '/')
		return path[0] == '/';
	return !strncmp(path, prefix, len) &&
	       (path[len] == '\0' || path[len] == '/');
}

static bool has(const struct mw_event *ev, int attr)
{
	return ev->has & MW_HAS(attr);
}

bool mw_filter_match(const struct mw_filter *f, const struct mw_event *ev)
{
	bool task = has(ev, MEMWALK_A_EVENT_PID) || has(ev, MEMWALK_A_OOM_VICTIM_PID);

	if (ev->type == MEMWALK_EV_LOST)
		return true;
	if (!f->has_pid && !f->memcg)
		return true;
	if (!task)
		return false;
	if (f->has_pid) {
		bool hit = (has(ev, MEMWALK_A_EVENT_PID) && ev->pid == f->pid) ||
			   (has(ev, MEMWALK_A_EVENT_TGID) && ev->tgid == f->pid) ||
			   (has(ev, MEMWALK_A_OOM_VICTIM_PID) && ev->victim_pid == f->pid) ||
			   (has(ev, MEMWALK_A_OOM_VICTIM_TGID) && ev->victim_tgid == f->pid);

		if (!hit)
			return false;
	}
	if (f->memcg) {
		if (!mw_memcg_under(ev->memcg_path, f->memcg) &&
		    !mw_memcg_under(ev->victim_memcg_path, f->memcg) &&
		    !mw_memcg_under(ev->oom_memcg_path, f->memcg))
			return false;
	}
	return true;
}

/* ---- state ------------------------------------------------------------------------ */

int mw_evstate_init(struct mw_evstate *st, uint64_t start_ns)
{
	memset(st, 0, sizeof(*st));
	st->start_ns = start_ns;
	st->window_ns = MW_STORY_WINDOW_NS;
	st->ring = calloc(MW_RING_MAX, sizeof(*st->ring));
	return st->ring ? 0 : -ENOMEM;
}

static struct mw_ring_rec *ring_at(struct mw_evstate *st, unsigned int i)
{
	return &st->ring[(st->ring_head + i) % MW_RING_MAX];
}

static void ring_pop(struct mw_evstate *st)
{
	struct mw_ring_rec *r = ring_at(st, 0);

	free(r->memcg);
	r->memcg = NULL;
	st->ring_head = (st->ring_head + 1) % MW_RING_MAX;
	st->ring_len--;
}

void mw_evstate_free(struct mw_evstate *st)
{
	while (st->ring && st->ring_len)
		ring_pop(st);
	free(st->ring);
	st->ring = NULL;
}

/* Forget what is older than the window before @now. */
static void ring_expire(struct mw_evstate *st, uint64_t now)
{
	uint64_t horizon = now > st->window_ns ? now - st->window_ns : 0;

	while (st->ring_len && ring_at(st, 0)->t < horizon)
		ring_pop(st);
}

static void ring_push(struct mw_evstate *st, const struct mw_event *ev,
		      const struct mw_ev_extra *x)
{
	struct mw_ring_rec *r;

	ring_expire(st, ev->time_ns);
	if (st->ring_len == MW_RING_MAX) {
		st->ring_truncated_at = true;
		st->ring_dropped_t = ring_at(st, 0)->t;
		ring_pop(st);
	}
	r = ring_at(st, st->ring_len++);
	r->t = ev->time_ns;
	r->type = ev->type;
	r->pid = ev->pid;
	r->tgid = ev->tgid;
	r->nr_reclaimed = ev->nr_reclaimed;
	r->has_latency = x->has_latency;
	r->latency_ns = x->latency_ns;
	r->memcg = ev->memcg_path ? strdup(ev->memcg_path) : NULL;
}

/* Reclaim losses are remembered with their time, for the stories. */
static void note_reclaim_lost(struct mw_evstate *st, uint64_t t, uint64_t n)
{
	const unsigned int max = sizeof(st->reclaim_lost_t) / sizeof(st->reclaim_lost_t[0]);

	if (st->reclaim_lost_len == max) {
		/* Fold the oldest two: the sum stays, the time is the newer. */
		st->reclaim_lost_n[1] += st->reclaim_lost_n[0];
		memmove(st->reclaim_lost_t, st->reclaim_lost_t + 1,
			(max - 1) * sizeof(st->reclaim_lost_t[0]));
		memmove(st->reclaim_lost_n, st->reclaim_lost_n + 1,
			(max - 1) * sizeof(st->reclaim_lost_n[0]));
		st->reclaim_lost_len--;
	}
	st->reclaim_lost_t[st->reclaim_lost_len] = t;
	st->reclaim_lost_n[st->reclaim_lost_len++] = n;
}

void mw_evstate_overflow(struct mw_evstate *st, enum mw_group grp,
			 uint64_t now_ns)
{
	st->seq[grp].overflows++;
	if (grp == MW_GRP_RECLAIM)
		note_reclaim_lost(st, now_ns, 1);	/* at least one */
}

/* ---- begin/end pairing ------------------------------------------------------------ */

static bool pair_key(const struct mw_event *ev, uint32_t *kind, uint32_t *id,
		     bool *begin)
{
	switch (ev->type) {
	case MEMWALK_EV_DIRECT_RECLAIM_BEGIN:
	case MEMWALK_EV_DIRECT_RECLAIM_END:
		*kind = 0;
		break;
	case MEMWALK_EV_MEMCG_RECLAIM_BEGIN:
	case MEMWALK_EV_MEMCG_RECLAIM_END:
		*kind = 1;
		break;
	case MEMWALK_EV_KSWAPD_RUN_BEGIN:
	case MEMWALK_EV_KSWAPD_RUN_END:
		*kind = 2;
		break;
	default:
		return false;
	}
	*begin = ev->type == MEMWALK_EV_DIRECT_RECLAIM_BEGIN ||
		 ev->type == MEMWALK_EV_MEMCG_RECLAIM_BEGIN ||
		 ev->type == MEMWALK_EV_KSWAPD_RUN_BEGIN;
	if (*kind == 2) {
		if (!has(ev, MEMWALK_A_EVENT_NID))
			return false;
		*id = ev->nid;
	} else {
		if (!has(ev, MEMWALK_A_EVENT_PID))
			return false;
		*id = ev->pid;
	}
	return true;
}

static struct mw_pair *pair_slot(struct mw_evstate *st, uint32_t kind,
				 uint32_t id)
{
	uint32_t h = (id * 2654435761u) ^ (kind * 40503u);

	return &st->pairs[h % MW_PAIR_SLOTS];
}

static void pair(struct mw_evstate *st, const struct mw_event *ev,
		 struct mw_ev_extra *x)
{
	uint32_t kind, id;
	struct mw_pair *p;
	bool begin;

	if (has(ev, MEMWALK_A_EVENT_DURATION_NS)) {
		x->has_latency = true;
		x->latency_ns = ev->duration_ns;
	}
	if (!pair_key(ev, &kind, &id, &begin))
		return;
	p = pair_slot(st, kind, id);
	if (begin) {
		/* A begin the slot still holds lost its end, or collided. */
		p->used = true;
		p->kind = kind;
		p->id = id;
		p->t = ev->time_ns;
		p->has = ev->has;
		p->order = ev->order;
		p->gfp = ev->gfp;
		return;
	}
	if (!p->used || p->kind != kind || p->id != id || p->t > ev->time_ns)
		return;
	x->has_begin = true;
	x->begin_has = p->has;
	x->begin_order = p->order;
	x->begin_gfp = p->gfp;
	if (!x->has_latency) {
		x->has_latency = true;
		x->latency_paired = true;
		x->latency_ns = ev->time_ns - p->t;
	}
	p->used = false;
}

/* ---- the story ----------------------------------------------------------------------- */

static void story_add(struct mw_story_part *part, const struct mw_ring_rec *r,
		      bool begin, bool in_scope, bool by_victim)
{
	if (begin) {
		part->begins++;
		part->in_scope += in_scope;
		part->by_victim += by_victim;
		return;
	}
	part->ends++;
	part->reclaimed += r->nr_reclaimed;
	if (r->has_latency)
		part->time_ns += r->latency_ns;
}

static void tell_story(struct mw_evstate *st, const struct mw_event *ev)
{
	struct mw_story *s = &st->story;
	uint64_t t = ev->time_ns;
	uint64_t from = t > st->window_ns ? t - st->window_ns : 0;
	unsigned int i;

	memset(s, 0, sizeof(*s));
	s->window_ns = st->window_ns;
	s->oom_time_ns = t;
	s->scope = has(ev, MEMWALK_A_OOM_MEMCG_PATH) ? ev->oom_memcg_path : NULL;
	s->covered_ns = t > st->start_ns ? t - (from > st->start_ns ? from : st->start_ns) : 0;
	s->truncated = st->ring_truncated_at && st->ring_dropped_t >= from;

	for (i = 0; i < st->ring_len; i++) {
		const struct mw_ring_rec *r = ring_at(st, i);
		bool in_scope = s->scope ? mw_memcg_under(r->memcg, s->scope) : true;
		bool by_victim = has(ev, MEMWALK_A_OOM_VICTIM_TGID) &&
				 r->tgid == ev->victim_tgid && r->pid;

		if (r->t < from || r->t > t)
			continue;
		if (!s->nr_events++ || t - r->t > s->first_ns)
			s->first_ns = t - r->t;
		switch (r->type) {
		case MEMWALK_EV_KSWAPD_WAKE:
			s->kswapd_wakes++;
			break;
		case MEMWALK_EV_KSWAPD_RUN_BEGIN:
		case MEMWALK_EV_KSWAPD_RUN_END:
			story_add(&s->kswapd, r, r->type == MEMWALK_EV_KSWAPD_RUN_BEGIN,
				  false, false);
			break;
		case MEMWALK_EV_DIRECT_RECLAIM_BEGIN:
		case MEMWALK_EV_DIRECT_RECLAIM_END:
			story_add(&s->direct, r,
				  r->type == MEMWALK_EV_DIRECT_RECLAIM_BEGIN,
				  s->scope && in_scope, by_victim);
			break;
		case MEMWALK_EV_MEMCG_RECLAIM_BEGIN:
		case MEMWALK_EV_MEMCG_RECLAIM_END:
			if (!in_scope)
				break;
			story_add(&s->memcg, r,
				  r->type == MEMWALK_EV_MEMCG_RECLAIM_BEGIN,
				  s->scope != NULL, by_victim);
			break;
		}
	}
	for (i = 0; i < st->reclaim_lost_len; i++)
		if (st->reclaim_lost_t[i] >= from && st->reclaim_lost_t[i] <= t)
			s->lost += st->reclaim_lost_n[i];
}

/* ---- one event ------------------------------------------------------------------------- */

void mw_evstate_event(struct mw_evstate *st, enum mw_group grp,
		      const struct mw_event *ev, struct mw_ev_extra *x)
{
	memset(x, 0, sizeof(*x));
	x->grp = grp;
	if (ev->time_ns > st->last_ns)
		st->last_ns = ev->time_ns;

	if (ev->type == MEMWALK_EV_LOST) {
		st->seq[grp].lost_records++;
		st->seq[grp].lost_reported += ev->lost;
		if (grp == MW_GRP_RECLAIM)
			note_reclaim_lost(st, ev->time_ns, ev->lost);
		return;
	}
	if (has(ev, MEMWALK_A_EVENT_SEQ))
		mw_seq_event(&st->seq[grp], ev->seq);

	pair(st, ev, x);

	switch (ev->type) {
	case MEMWALK_EV_KSWAPD_WAKE:
	case MEMWALK_EV_KSWAPD_RUN_BEGIN:
	case MEMWALK_EV_KSWAPD_RUN_END:
	case MEMWALK_EV_DIRECT_RECLAIM_BEGIN:
	case MEMWALK_EV_DIRECT_RECLAIM_END:
	case MEMWALK_EV_MEMCG_RECLAIM_BEGIN:
	case MEMWALK_EV_MEMCG_RECLAIM_END:
		ring_push(st, ev, x);
		break;
	case MEMWALK_EV_OOM_KILL:
		tell_story(st, ev);
		x->story = &st->story;
		break;
	}
}

/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/* CONGA's core (rtr_conga.h, doc/conga.md). No EAL, no packets. */

#include <stdlib.h>
#include <string.h>

#include "rtr_conga.h"

void
rtr_conga_dre_advance(struct rtr_conga_dre *d, const struct rtr_conga_dre_params *p, uint64_t now)
{
	if (d->next_ns == 0) {
		d->next_ns = now + p->period_ns;
		return;
	}
	/* Every boundary that passed decays once (a late call catches up). */
	while (now >= d->next_ns) {
		d->x = (uint64_t)((double)d->x * (1.0 - p->alpha));
		d->next_ns += p->period_ns;
		if (d->x == 0 && now >= d->next_ns) {
			/* Nothing left to decay: skip to the next boundary. */
			d->next_ns += (now - d->next_ns) / p->period_ns * p->period_ns +
				      p->period_ns;
			break;
		}
	}
}

void
rtr_conga_dre_add(struct rtr_conga_dre *d, const struct rtr_conga_dre_params *p, uint64_t now,
		uint32_t bytes)
{
	rtr_conga_dre_advance(d, p, now);
	d->x += bytes;
}

uint8_t
rtr_conga_dre_q(const struct rtr_conga_dre *d, const struct rtr_conga_dre_params *p)
{
	/* X is proportional to the rate times tau = Tdre / alpha: at the
	 * link's full rate X = rate * tau / 8 bytes, the top of the scale. */
	double full = p->rate_bps * ((double)p->period_ns * 1e-9) / p->alpha;
	double v = (double)d->x * 8.0 * (double)(1u << p->q) / full;
	unsigned int max = (1u << p->q) - 1;

	return v >= (double)max ? (uint8_t)max : (uint8_t)v;
}

void
rtr_conga_hdr_pack(uint8_t h[4], const struct rtr_conga_hdr *f)
{
	h[0] = (uint8_t)(f->src_leaf >> 8);
	h[1] = (uint8_t)f->src_leaf;
	h[2] = f->fb_path;
	h[3] = (uint8_t)((f->ce & 0xf) << 4 | (f->fb_metric & 0xf));
}

void
rtr_conga_hdr_unpack(const uint8_t h[4], struct rtr_conga_hdr *f)
{
	f->src_leaf = (uint16_t)(h[0] << 8 | h[1]);
	f->fb_path = h[2];
	f->ce = h[3] >> 4;
	f->fb_metric = h[3] & 0xf;
}

void
rtr_conga_hdr_hop(uint8_t h[4], uint8_t link_ce)
{
	uint8_t ce = rtr_conga_hop_ce(h[3] >> 4, link_ce > 15 ? 15 : link_ce);

	h[3] = (uint8_t)(ce << 4 | (h[3] & 0xf));
}

struct fl_entry {
	uint64_t last_ns; /* 0: never used */
	uint8_t path;
};

struct tl_entry {
	uint64_t updated_ns; /* 0: never set */
	uint8_t metric;
};

struct fr_entry {
	uint64_t updated_ns; /* 0: never set */
	uint8_t ce;
	bool changed; /* not fed back since it last changed */
};

struct rtr_conga_tables {
	struct rtr_conga_params p;
	struct rtr_conga_counts n;
	uint64_t rng;
	struct tl_entry *to_leaf;   /* [leaf][path] */
	struct fr_entry *from_leaf; /* [leaf][path] */
	uint8_t *rr;                /* [leaf]: the next path to feed back */
	struct fl_entry *flowlets;  /* [flowlet_slots] */
};

static uint64_t
rng_next(struct rtr_conga_tables *t)
{
	uint64_t z = (t->rng += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

struct rtr_conga_tables *
rtr_conga_tables_create(const struct rtr_conga_params *p)
{
	struct rtr_conga_tables *t;
	size_t cells = (size_t)p->n_leaves * p->n_paths;

	if (p->n_leaves == 0 || p->n_paths == 0 || p->n_paths > RTR_CONGA_MAX_PATHS ||
			p->gap_ns == 0 || p->flowlet_slots == 0 ||
			(p->flowlet_slots & (p->flowlet_slots - 1)) != 0)
		return NULL;
	t = calloc(1, sizeof(*t));
	if (t == NULL)
		return NULL;
	t->p = *p;
	t->rng = p->rng_seed ^ 0x6a09e667f3bcc909ULL;
	t->to_leaf = calloc(cells, sizeof(*t->to_leaf));
	t->from_leaf = calloc(cells, sizeof(*t->from_leaf));
	t->rr = calloc(p->n_leaves, 1);
	t->flowlets = calloc(p->flowlet_slots, sizeof(*t->flowlets));
	if (t->to_leaf == NULL || t->from_leaf == NULL || t->rr == NULL || t->flowlets == NULL) {
		rtr_conga_tables_free(t);
		return NULL;
	}
	return t;
}

void
rtr_conga_tables_free(struct rtr_conga_tables *t)
{
	if (t == NULL)
		return;
	free(t->to_leaf);
	free(t->from_leaf);
	free(t->rr);
	free(t->flowlets);
	free(t);
}

const struct rtr_conga_counts *
rtr_conga_counts(const struct rtr_conga_tables *t)
{
	return &t->n;
}

void
rtr_conga_from_leaf_put(struct rtr_conga_tables *t, unsigned int src, unsigned int path, uint8_t ce,
		uint64_t now)
{
	struct fr_entry *e;

	if (src >= t->p.n_leaves || path >= t->p.n_paths)
		return;
	e = &t->from_leaf[(size_t)src * t->p.n_paths + path];
	if (e->updated_ns == 0 || e->ce != ce)
		e->changed = true;
	e->ce = ce;
	e->updated_ns = now;
	t->n.metric_updates++;
}

bool
rtr_conga_feedback(struct rtr_conga_tables *t, unsigned int dst, uint8_t *path, uint8_t *metric)
{
	unsigned int np = t->p.n_paths, start, i, pick = np;
	struct fr_entry *row;

	if (dst >= t->p.n_leaves)
		return false;
	row = &t->from_leaf[(size_t)dst * np];
	start = t->rr[dst] % np;
	/* A changed entry first, from the round-robin position on; else the
	 * next entry ever set. */
	for (i = 0; i < np && pick == np; i++)
		if (row[(start + i) % np].changed)
			pick = (start + i) % np;
	for (i = 0; i < np && pick == np; i++)
		if (row[(start + i) % np].updated_ns != 0)
			pick = (start + i) % np;
	if (pick == np)
		return false;
	row[pick].changed = false;
	t->rr[dst] = (uint8_t)((pick + 1) % np);
	*path = (uint8_t)pick;
	*metric = row[pick].ce;
	t->n.fb_sent++;
	return true;
}

void
rtr_conga_to_leaf_put(struct rtr_conga_tables *t, unsigned int from, unsigned int path,
		uint8_t metric, uint64_t now)
{
	struct tl_entry *e;

	if (from >= t->p.n_leaves || path >= t->p.n_paths)
		return;
	e = &t->to_leaf[(size_t)from * t->p.n_paths + path];
	e->metric = metric;
	e->updated_ns = now;
	t->n.fb_received++;
}

uint8_t
rtr_conga_to_leaf_get(const struct rtr_conga_tables *t, unsigned int leaf, unsigned int path,
		uint64_t now)
{
	const struct tl_entry *e;

	if (leaf >= t->p.n_leaves || path >= t->p.n_paths)
		return 0;
	e = &t->to_leaf[(size_t)leaf * t->p.n_paths + path];
	/* An entry stamped after now (the worker's horizon may lag the
	 * packets' clock) is fresh. */
	if (e->updated_ns == 0 || (now > e->updated_ns && now - e->updated_ns > t->p.aging_ns))
		return 0;
	return e->metric;
}

void
rtr_conga_leaf_reset(struct rtr_conga_tables *t, unsigned int leaf)
{
	size_t np = t->p.n_paths;

	if (leaf >= t->p.n_leaves)
		return;
	memset(&t->to_leaf[leaf * np], 0, np * sizeof(*t->to_leaf));
	memset(&t->from_leaf[leaf * np], 0, np * sizeof(*t->from_leaf));
	t->rr[leaf] = 0;
}

void
rtr_conga_age(struct rtr_conga_tables *t, uint64_t now)
{
	for (unsigned int leaf = 0; leaf < t->p.n_leaves; leaf++)
		rtr_conga_age_leaf(t, leaf, now);
}

void
rtr_conga_age_leaf(struct rtr_conga_tables *t, unsigned int leaf, uint64_t now)
{
	if (leaf >= t->p.n_leaves)
		return;
	for (size_t i = (size_t)leaf * t->p.n_paths; i < ((size_t)leaf + 1) * t->p.n_paths; i++) {
		struct tl_entry *e = &t->to_leaf[i];

		if (e->updated_ns != 0 && now > e->updated_ns &&
				now - e->updated_ns > t->p.aging_ns) {
			if (e->metric != 0)
				t->n.aged++;
			e->metric = 0;
			e->updated_ns = 0;
		}
	}
}

int
rtr_conga_best(struct rtr_conga_tables *t, unsigned int dst, uint64_t live, const uint8_t *local,
		int prefer, uint64_t now)
{
	unsigned int np = t->p.n_paths, best = 256, k = 0, i;
	uint64_t ties = 0;
	uint32_t r;

	if (np < 64)
		live &= (1ULL << np) - 1;
	if (live == 0)
		return -1;
	if (t->p.samples > 0 && t->p.samples < np) {
		/* The artifact's GetBestPath: samples consecutive paths from a
		 * random offset in 0 .. np - samples; all live paths when none
		 * of them is. */
		unsigned int o = (unsigned int)(((rng_next(t) >> 32) * (np - t->p.samples + 1)) >>
						32);
		uint64_t win = ((1ULL << t->p.samples) - 1) << o;

		if (live & win)
			live &= win;
	}
	for (i = 0; i < np; i++) {
		unsigned int remote, m;

		if (!((live >> i) & 1))
			continue;
		remote = rtr_conga_to_leaf_get(t, dst, i, now);
		m = local[i] > remote ? local[i] : remote;
		if (m < best) {
			best = m;
			ties = 0;
		}
		if (m == best)
			ties |= 1ULL << i;
	}
	if (prefer >= 0 && prefer < (int)np && ((ties >> prefer) & 1))
		return prefer;
	k = (unsigned int)__builtin_popcountll(ties);
	r = (uint32_t)(((rng_next(t) >> 32) * k) >> 32);
	while (r-- > 0)
		ties &= ties - 1;
	return __builtin_ctzll(ties);
}

int
rtr_conga_flowlet_path(struct rtr_conga_tables *t, uint32_t hash, unsigned int dst, uint64_t live,
		const uint8_t *local, uint64_t now)
{
	struct fl_entry *e = &t->flowlets[hash & (t->p.flowlet_slots - 1)];
	bool seen = e->last_ns != 0;
	int p;

	if (seen && now - e->last_ns < t->p.gap_ns && e->path < t->p.n_paths &&
			((live >> e->path) & 1)) {
		e->last_ns = now;
		return e->path;
	}
	p = rtr_conga_best(t, dst, live, local, seen ? e->path : -1, now);
	if (p < 0)
		return -1;
	t->n.flowlets++;
	if (seen && p != e->path)
		t->n.path_changes++;
	e->path = (uint8_t)p;
	e->last_ns = now;
	return p;
}

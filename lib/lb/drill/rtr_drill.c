/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * DRILL, ALGORITHMS.md 7 (doc/drill.md). Where the paper leaves a choice
 * open, this file says what it chose: the d samples are distinct (with
 * fewer live paths than d, every live path is a candidate), a tie goes to
 * the candidate first in the order samples then memory (so with every
 * queue empty the packet goes to a random sample, and the memory holds on
 * to a path only while it is strictly better), and the memory is per
 * uplink group and per worker (each worker owns its egress queues).
 */

#include <stdatomic.h>
#include <stdlib.h>

#include <rte_common.h>

#include "drill_config.h"
#include "rtr_common.h"
#include "rtr_drill.h"
#include "rtr_lb.h"
#include "rtr_stats.h"

#define DR_NONE 0xff

struct dr_group {
	uint8_t mem[RTR_DRILL_MEMORY_MAX]; /* best of the last decision first */
	uint8_t n_mem;
	uint8_t last; /* the last decision's path, DR_NONE before one */
};

struct rtr_dr {
	struct rtr_dr_params p;
	uint64_t rng;
	struct dr_group grp[RTR_MAX_GROUPS];
};

static inline uint64_t
rng_next(struct rtr_dr *dr)
{
	uint64_t z = (dr->rng += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* A draw in [0, n), n >= 1. */
static inline uint32_t
draw(struct rtr_dr *dr, uint32_t n)
{
	if (unlikely(dr->p.rand != NULL))
		return dr->p.rand(dr->p.rand_arg, n) % n;
	return (uint32_t)(((rng_next(dr) >> 32) * n) >> 32);
}

static inline uint32_t
qbytes(const struct rtr_dr *dr, uint16_t port)
{
	return dr->p.queue_bytes != NULL ? dr->p.queue_bytes(dr->p.queue_arg, port) : 0;
}

struct rtr_dr *
rtr_dr_create(const struct rtr_dr_params *p)
{
	struct rtr_dr *dr;

	if (p->samples < 1 || p->samples > RTR_DRILL_SAMPLES_MAX ||
			p->memory > RTR_DRILL_MEMORY_MAX)
		return NULL;
	dr = calloc(1, sizeof(*dr));
	if (dr == NULL)
		return NULL;
	dr->p = *p;
	dr->rng = p->rng_seed ^ ((uint64_t)p->worker << 32) ^ 0xbb67ae8584caa73bULL;
	for (unsigned int i = 0; i < RTR_MAX_GROUPS; i++)
		dr->grp[i].last = DR_NONE;
	return dr;
}

void
rtr_dr_free(void *state)
{
	free(state);
}

unsigned int
rtr_dr_memory(const struct rtr_dr *dr, unsigned int g_idx, uint8_t *out, unsigned int max)
{
	unsigned int n;

	if (g_idx >= RTR_MAX_GROUPS)
		return 0;
	n = RTE_MIN((unsigned int)dr->grp[g_idx].n_mem, max);
	for (unsigned int i = 0; i < n; i++)
		out[i] = dr->grp[g_idx].mem[i];
	return n;
}

int
rtr_dr_pick(void *state, const struct rtr_group *g, unsigned int g_idx, struct rte_mbuf *m,
		struct rtr_meta *meta, uint64_t now, struct rtr_lcore_stats *stats)
{
	struct rtr_dr *dr = state;
	uint64_t *c = stats->lb;
	uint64_t live = atomic_load_explicit(&g->live_mask, memory_order_relaxed);
	uint8_t lp[RTR_MAX_PATHS];
	uint8_t cand[RTR_DRILL_SAMPLES_MAX + RTR_DRILL_MEMORY_MAX];
	uint32_t cq[RTR_DRILL_SAMPLES_MAX + RTR_DRILL_MEMORY_MAX];
	struct dr_group *gr = g_idx < RTR_MAX_GROUPS ? &dr->grp[g_idx] : NULL;
	unsigned int k = 0, n_cand = 0, n_samp, best = 0;

	(void)m;
	(void)meta;
	(void)now;
	if (g->n_paths < 64)
		live &= (1ULL << g->n_paths) - 1;
	if (unlikely(live == 0))
		return -1;
	for (uint64_t l = live; l != 0; l &= l - 1)
		lp[k++] = (uint8_t)__builtin_ctzll(l);
	/* d distinct samples: a partial Fisher-Yates shuffle of the live
	 * paths. */
	n_samp = RTE_MIN(dr->p.samples, k);
	cand[0] = lp[0]; /* n_samp >= 1: what the compiler cannot see */
	for (unsigned int i = 0; i < n_samp; i++) {
		unsigned int j = i + draw(dr, k - i);
		uint8_t t = lp[i];

		lp[i] = lp[j];
		lp[j] = t;
		cand[n_cand] = lp[i];
		cq[n_cand++] = qbytes(dr, g->port[lp[i]]);
	}
	/* The memory, still live and not sampled again, weighed now. */
	for (unsigned int i = 0; gr != NULL && i < gr->n_mem; i++) {
		uint8_t r = gr->mem[i];
		bool dup = false;

		if (r >= g->n_paths || !((live >> r) & 1))
			continue;
		for (unsigned int j = 0; j < n_cand; j++)
			dup |= cand[j] == r;
		if (dup)
			continue;
		cand[n_cand] = r;
		cq[n_cand++] = qbytes(dr, g->port[r]);
	}
	for (unsigned int i = 1; i < n_cand; i++)
		if (cq[i] < cq[best])
			best = i;
	c[RTR_LBC_drill_picks]++;
	if (best >= n_samp)
		c[RTR_LBC_drill_memory_picks]++;
	if (gr == NULL)
		return cand[best];
	if (gr->last != DR_NONE && gr->last != cand[best])
		c[RTR_LBC_drill_port_changes]++;
	gr->last = cand[best];
	/* The m best, ascending; among equals the earlier candidate first,
	 * so the chosen path heads the memory. A selection of m <= 4 from at
	 * most 20: no sort needed. */
	gr->n_mem = 0;
	for (unsigned int r = 0; r < dr->p.memory && r < n_cand; r++) {
		unsigned int b = n_cand;

		for (unsigned int i = 0; i < n_cand; i++)
			if (cand[i] != DR_NONE && (b == n_cand || cq[i] < cq[b]))
				b = i;
		gr->mem[gr->n_mem++] = cand[b];
		cand[b] = DR_NONE;
	}
	return gr->last;
}

/* The config's d and m; the worker's egress queues. */
void *
rtr_dr_init(const struct rtr_lb_init *in)
{
	const struct rtr_drill_cfg *dc = rtr_drill_config(in->cfg);
	struct rtr_dr_params p = {
			.samples = dc->samples,
			.memory = dc->memory,
			.queue_bytes = in->queue_bytes,
			.queue_arg = in->queue_arg,
			.rng_seed = (uint64_t)in->cfg->sw.id << 16 ^ in->hash_seed,
			.worker = in->worker,
	};

	return rtr_dr_create(&p);
}

const struct rtr_lb_ops rtr_lb_drill = {
		.name = "drill",
		.mode = RTR_LB_DRILL,
		/* No per-flow state: any worker may place any packet. */
		.flow_affinity = false,
		/* No header of its own: on fabric ports a ConWeave DATA header
	 * or control packet is read, to be removed before a host. */
		.fabric_parse_flags = RTR_LB_PARSE_FOREIGN,
		.init = rtr_dr_init,
		.fini = rtr_dr_free,
		.pick = rtr_dr_pick,
};

const struct rtr_lb_desc rtr_lb_drill_desc = {
		.name = "drill",
		.summary = "DRILL(d,m): per packet, the shortest local queue of d samples and m "
			   "remembered",
		.ops = &rtr_lb_drill,
		.config = &rtr_drill_section,
		/* Every switch with equal-cost uplinks decides by its own
	 * queues (ALGORITHMS.md 7): a spine runs it too. */
		.spine = RTR_LB_SPINE_RUN,
		.counter_first = RTR_LBC_DR_FIRST,
		.n_counters = RTR_LBC_DR_N,
		/* No fields of its own: nothing to check from hosts or to strip
	 * before them. */
};

/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * LetFlow, ALGORITHMS.md 7 (doc/letflow.md). The paper places a flowlet on
 * a random port; here "random" is a uniform draw among the group's live
 * paths, so a path that is down is never drawn.
 */

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include <rte_common.h>
#include <rte_mbuf.h>

#include "letflow_config.h"
#include "rtr_common.h"
#include "rtr_flowtab.h"
#include "rtr_lb.h"
#include "rtr_lb_flowlet.h"
#include "rtr_lb_fs.h"
#include "rtr_letflow.h"
#include "rtr_stats.h"

#define NEVER     UINT64_MAX
#define KIND_FLOW 1

struct rtr_lf {
	struct rtr_lb_fs fs; /* first: the flow-state base (rtr_lb_fs.h) */
	struct rtr_lf_params p;
	uint64_t rng;
};

static inline bool
from_host(const struct rtr_lf *lf, const struct rtr_meta *meta)
{
	return meta->in_port < 32 && (lf->p.host_port_mask & (1u << meta->in_port));
}

/* splitmix64: a flowlet's path needs no more than a fast, well-mixed
 * draw. */
static inline uint64_t
rng_next(struct rtr_lf *lf)
{
	uint64_t z = (lf->rng += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* A path drawn uniformly among the live ones of the n_paths (live has at
 * least one of them). */
static unsigned int
random_live(struct rtr_lf *lf, uint64_t live, unsigned int n_paths)
{
	uint32_t k, r;

	if (n_paths < 64)
		live &= (1ULL << n_paths) - 1;
	k = (uint32_t)__builtin_popcountll(live);
	r = (uint32_t)(((rng_next(lf) >> 32) * k) >> 32);
	/* The r-th set bit of live. */
	while (r-- > 0)
		live &= live - 1;
	return (unsigned int)__builtin_ctzll(live);
}

struct rtr_lf *
rtr_lf_create(const struct rtr_lf_params *p)
{
	struct rtr_lf *lf;

	if (p->gap_ns == 0)
		return NULL;
	lf = calloc(1, sizeof(*lf));
	if (lf == NULL)
		return NULL;
	lf->p = *p;
	lf->rng = p->rng_seed ^ ((uint64_t)p->worker << 32) ^ 0x6a09e667f3bcc909ULL;
	rtr_lb_flowlet_table(&lf->fs, "lf_flows", p->worker, p->flow_entries, p->ft_limits,
			p->gap_ns, p->socket_id, p->use_rte_malloc);
	lf->p.ft_limits = NULL; /* the caller's, gone after create */
	if (lf->fs.ft == NULL) {
		free(lf);
		return NULL;
	}
	return lf;
}

void
rtr_lf_free(void *state)
{
	struct rtr_lf *lf = state;

	if (lf == NULL)
		return;
	rtr_ft_free(lf->fs.ft);
	free(lf);
}

int
rtr_lf_pick(void *state, const struct rtr_group *g, unsigned int g_idx, struct rte_mbuf *m,
		struct rtr_meta *meta, uint64_t now, struct rtr_lcore_stats *stats)
{
	struct rtr_lf *lf = state;
	uint64_t *c = stats->lb;
	uint64_t live = atomic_load_explicit(&g->live_mask, memory_order_relaxed);
	struct rtr_ft_entry *e;
	enum rtr_ft_status st;
	struct rtr_ft_key k;
	struct rtr_lb_flowlet *f;
	unsigned int p;

	/* Flowlets are a SrcToR's: transit packets, and anything but RoCE,
	 * go by ECMP. */
	if (!(meta->flags & RTR_MF_ROCE) || !from_host(lf, meta)) {
		c[RTR_LBC_ecmp_packets]++;
		return rtr_group_pick(g, meta->flow_hash);
	}
	if (g->n_paths < 64)
		live &= (1ULL << g->n_paths) - 1;
	if (unlikely(live == 0))
		return -1;
	rtr_ft_key_from_frame(&k, rte_pktmbuf_mtod(m, const uint8_t *), meta, KIND_FLOW, false);
	e = rtr_ft_lookup(lf->fs.ft, &k, meta->flow_hash, now, true, meta->in_port, &st);
	if (unlikely(e == NULL)) {
		/* No state: the path ECMP gives, stable for the flow. */
		rtr_ft_count_refusal(st, c);
		c[RTR_LBC_ecmp_packets]++;
		return rtr_group_pick(g, meta->flow_hash);
	}
	f = rtr_lb_flowlet_of(e);
	c[RTR_LBC_letflow_packets]++;
	switch (rtr_lb_flowlet_step(&lf->fs, e, st, g, g_idx, live, meta, now, lf->p.gap_ns)) {
	case RTR_FLOWLET_SAME:
		return f->path;
	case RTR_FLOWLET_NEW:
		p = random_live(lf, live, g->n_paths);
		if (st != RTR_FT_NEW && (p != f->path || f->group != g_idx))
			c[RTR_LBC_letflow_path_changes]++;
		c[RTR_LBC_letflow_flowlets]++;
		f->flowlets++;
		break;
	default:
		/* Within a flowlet, its path went down (nothing gets through
		 * a dead link) or the route moved the flow: a new random path
		 * now, the flowlet goes on there. */
		p = random_live(lf, live, g->n_paths);
		c[RTR_LBC_letflow_path_changes]++;
		c[RTR_LBC_reroutes]++;
		break;
	}
	rtr_lb_flowlet_set(e, p, g, g_idx, now);
	return (int)p;
}

void
rtr_lf_tick(void *state, uint64_t now, struct rtr_lcore_stats *stats)
{
	struct rtr_lf *lf = state;

	(void)stats;
	rtr_lb_fs_age(&lf->fs, now);
}

static uint64_t
lf_next_deadline(const void *state)
{
	(void)state;
	/* Nothing timed but aging, which every control poll runs. */
	return NEVER;
}

/* Config microseconds become nanoseconds here; the switch's flow table size
 * is split between the workers. */
void *
rtr_lf_init(const struct rtr_lb_init *in)
{
	const struct rtr_letflow_cfg *lc = rtr_letflow_config(in->cfg);
	unsigned int nw = in->n_workers ? in->n_workers : 1;
	struct rtr_ft_limit lim[RTR_FT_ORIGINS];
	struct rtr_lf_params p = {
			.gap_ns = (uint64_t)lc->flowlet_gap_us * 1000,
			.flow_entries = (lc->flow_table_size + nw - 1) / nw,
			.ft_limits = lim,
			.host_port_mask = in->host_port_mask,
			.rng_seed = (uint64_t)in->cfg->sw.id << 16 ^ in->hash_seed,
			.worker = in->worker,
			.socket_id = in->socket,
			.use_rte_malloc = in->use_rte_malloc,
	};

	rtr_lb_ft_limits(in, p.flow_entries, lim);
	return rtr_lb_fs_clock(rtr_lf_create(&p), in->clock);
}

const struct rtr_lb_ops rtr_lb_letflow = {
		.name = "letflow",
		.mode = RTR_LB_LETFLOW,
		.flow_affinity = true,
		/* No header of its own: on fabric ports a ConWeave DATA header
	 * or control packet is read, to be removed before a host. */
		.fabric_parse_flags = RTR_LB_PARSE_FOREIGN,
		.table = rtr_lb_fs_table,
		.init = rtr_lf_init,
		.fini = rtr_lf_free,
		.pick = rtr_lf_pick,
		.prefetch = rtr_lb_fs_prefetch,
		.tick = rtr_lf_tick,
		.next_deadline = lf_next_deadline,
		.flows = rtr_lb_fs_flows,
};

/* A worker's flow table, from the DPDK heap; nothing shared. */
static void
lf_state_bytes(const struct rtr_config *cfg, unsigned int n_workers, uint64_t *per_worker,
		uint64_t *shared)
{
	*per_worker = rtr_lb_ft_bytes(rtr_letflow_config(cfg)->flow_table_size, n_workers,
			sizeof(struct rtr_lb_flowlet));
	*shared = 0;
}

const struct rtr_lb_desc rtr_lb_letflow_desc = {
		.name = "letflow",
		.summary = "LetFlow: each flowlet (100 us gap) on a random live path",
		.ops = &rtr_lb_letflow,
		.config = &rtr_letflow_section,
		/* A path is the SrcToR's uplink: a spine routes by ECMP. */
		.spine = RTR_LB_SPINE_ECMP,
		.state_bytes = lf_state_bytes,
		.flow_view = rtr_lb_fs_flowlet_view,
		.counter_first = RTR_LBC_LF_FIRST,
		.n_counters = RTR_LBC_LF_N,
		/* No fields of its own: nothing to check from hosts or to strip
	 * before them. */
};

/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * `lb: seqbalance`: the ops table around the state machines of
 * rtr_seqbalance.c. Config microseconds become nanoseconds here; the
 * switch's flow table size is split between the workers.
 */

#include <stddef.h>

#include <rte_common.h>

#include "rtr_flowtab.h"
#include "rtr_lb.h"
#include "rtr_lb_ctrl.h"
#include "rtr_pathmark.h"
#include "rtr_seqbalance.h"
#include "seqbalance/seqbalance_config.h"

static void *
sb_shared_create(const struct rtr_config *cfg, unsigned int n_groups, bool rte, int socket)
{
	struct rtr_pm_group groups[RTR_MAX_GROUPS];
	struct rtr_pm_params p = {
		.n_groups = RTE_MIN(n_groups, (unsigned int)RTR_MAX_GROUPS),
		.groups = groups,
		.dst_prefix_len = rtr_seqbalance_config(cfg)->dst_prefix_len,
		.dst_prefix_len6 = rtr_seqbalance_config(cfg)->dst_prefix_len6,
		.use_rte_malloc = rte,
		.socket = socket,
	};

	rtr_pm_groups_of(cfg, groups, p.n_groups);
	return rtr_sb_shared_create_dst(&p);
}

static void
sb_shared_free(void *shared)
{
	rtr_sb_shared_free(shared);
}

static void *
sb_init(const struct rtr_lb_init *in)
{
	const struct rtr_seqbalance_cfg *sc = rtr_seqbalance_config(in->cfg);
	unsigned int nw = in->n_workers ? in->n_workers : 1;
	struct rtr_ft_limit lim[RTR_FT_ORIGINS];
	struct rtr_sb_params p = {
		.phi_ns = (uint64_t)sc->phi_us * 1000,
		.subflow_idle_ns = (uint64_t)sc->subflow_idle_us * 1000,
		.flow_entries = (sc->flow_table_size + nw - 1) / nw,
		.ft_limits = lim,
		.host_port_mask = in->host_port_mask,
		.hash_seed = in->hash_seed,
		.worker = in->worker,
		.socket_id = in->socket,
		.use_rte_malloc = in->use_rte_malloc,
		.shared = in->shared,
	};
	struct rtr_sb_io io = {
		.control = in->io.control,
		.alloc = in->io.alloc,
		.arg = in->io.arg,
	};

	rtr_lb_ft_limits(in, p.flow_entries, lim);
	return rtr_sb_create(&p, &io);
}

static void
sb_fini(void *state)
{
	rtr_sb_free(state);
}

static int
sb_pick(void *state, const struct rtr_group *g, unsigned int g_idx, struct rte_mbuf *m,
		struct rtr_meta *meta, uint64_t now_ns, struct rtr_lcore_stats *st)
{
	return rtr_sb_pick(state, g, g_idx, m, meta, now_ns, st->lb);
}

static void
sb_control_rx(void *state, struct rte_mbuf *m, struct rtr_meta *meta, uint64_t now_ns,
		struct rtr_lcore_stats *st)
{
	rtr_sb_control_rx(state, m, meta, now_ns, st->lb);
}

static int
sb_deliver(void *state, struct rte_mbuf *m, struct rtr_meta *meta, uint16_t port,
		uint64_t now_ns, struct rtr_lcore_stats *st)
{
	rtr_sb_deliver(state, m, meta, port, now_ns, st->lb);
	return RTR_LB_FORWARD; /* nothing is ever held */
}

static void
sb_tick(void *state, uint64_t now_ns, struct rtr_lcore_stats *st)
{
	rtr_sb_tick(state, now_ns, st->lb);
}

static uint64_t
sb_next_deadline(const void *state)
{
	return rtr_sb_next_deadline(state);
}

static unsigned int
sb_flows(void *state, uint64_t now_ns, unsigned int max,
		void (*fn)(void *arg, const struct rtr_lb_flow_info *f), void *arg)
{
	return rtr_sb_flows(state, now_ns, max, fn, arg);
}

static void
sb_prefetch_op(const void *state, const struct rtr_meta *meta, unsigned int step)
{
	rtr_sb_prefetch(state, meta, step);
}

static const struct rtr_ft *
sb_table(const void *state)
{
	return rtr_sb_table(state);
}

const struct rtr_lb_ops rtr_lb_seqbalance = {
	.name = "seqbalance",
	.mode = RTR_LB_SEQBALANCE,
	.flow_affinity = true,
	/* Data packets carry no header (only byte 4): on fabric ports the
	 * Congestion Packets are read with theirs, and a ConWeave DATA
	 * header by its length signature, to be removed before a host. */
	.fabric_parse_flags = RTR_PARSE_CW_FOREIGN,
	.table = sb_table,
	/* Every RoCE packet toward a host: byte 4 must be zeroed. */
	.deliver_flags = RTR_MF_ROCE,
	.shared_create = sb_shared_create,
	.shared_free = sb_shared_free,
	.init = sb_init,
	.fini = sb_fini,
	.pick = sb_pick,
	.prefetch = sb_prefetch_op,
	.control_rx = sb_control_rx,
	.deliver = sb_deliver,
	.tick = sb_tick,
	.next_deadline = sb_next_deadline,
	.flows = sb_flows,
};

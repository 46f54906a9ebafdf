/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * `lb: conweave`: the ops table around the state machines of rtr_conweave.c.
 * Config microseconds become nanoseconds here; the switch's flow table size
 * is split between the workers.
 */

#include <stddef.h>

#include <rte_common.h>

#include "rtr_conweave.h"
#include "rtr_flowtab.h"
#include "rtr_lb.h"
#include "rtr_lb_ctrl.h"
#include "conweave/conweave_config.h"
#include "rtr_pathmark.h"

static void *
cw_shared_create(const struct rtr_config *cfg, unsigned int n_groups, bool rte, int socket)
{
	struct rtr_pm_group groups[RTR_MAX_GROUPS];
	struct rtr_pm_params p = {
		.n_groups = RTE_MIN(n_groups, (unsigned int)RTR_MAX_GROUPS),
		.groups = groups,
		.dst_prefix_len = rtr_conweave_config(cfg)->dst_prefix_len,
		.dst_prefix_len6 = rtr_conweave_config(cfg)->dst_prefix_len6,
		.use_rte_malloc = rte,
		.socket = socket,
	};

	rtr_pm_groups_of(cfg, groups, p.n_groups);
	return rtr_cw_shared_create_dst(&p);
}

static void
cw_shared_free(void *shared)
{
	rtr_cw_shared_free(shared);
}

static void *
cw_init(const struct rtr_lb_init *in)
{
	const struct rtr_conweave_cfg *cc = rtr_conweave_config(in->cfg);
	unsigned int nw = in->n_workers ? in->n_workers : 1;
	struct rtr_ft_limit lim[RTR_FT_ORIGINS];
	struct rtr_cw_params p = {
		.base_rtt_ns = (uint64_t)cc->base_rtt_us * 1000,
		.theta_reply_ns = (uint64_t)cc->theta_reply_us * 1000,
		.theta_path_busy_ns = (uint64_t)cc->theta_path_busy_us * 1000,
		.theta_inactive_ns = (uint64_t)cc->theta_inactive_us * 1000,
		.resume_extra_ns = (uint64_t)cc->resume_extra_us * 1000,
		.resume_default_ns = (uint64_t)cc->resume_default_us * 1000,
		.clear_timeout_ns = (uint64_t)cc->clear_timeout_us * 1000,
		.flow_entries = (cc->flow_table_size + nw - 1) / nw,
		.ft_limits = lim,
		.host_port_mask = in->host_port_mask,
		.n_rings = cc->reorder_queues_per_port,
		.ring_depth = cc->reorder_queue_depth,
		.hold_budget = in->hold_budget,
		.hash_seed = in->hash_seed,
		.rng_seed = (uint64_t)in->cfg->sw.id << 16 ^ in->hash_seed,
		.worker = in->worker,
		.socket_id = in->socket,
		.use_rte_malloc = in->use_rte_malloc,
		.shared = in->shared,
	};
	struct rtr_cw_io io = {
		.deliver = in->io.deliver,
		.control = in->io.control,
		.alloc = in->io.alloc,
		.arg = in->io.arg,
	};

	rtr_lb_ft_limits(in, p.flow_entries, lim);
	return rtr_cw_create(&p, &io);
}

static void
cw_fini(void *state)
{
	rtr_cw_free(state);
}

static int
cw_pick(void *state, const struct rtr_group *g, unsigned int g_idx, struct rte_mbuf *m,
		struct rtr_meta *meta, uint64_t now_ns, struct rtr_lcore_stats *st)
{
	return rtr_cw_pick(state, g, g_idx, m, meta, now_ns, st->lb);
}

static void
cw_depart(void *state, struct rte_mbuf *m, struct rtr_meta *meta, uint64_t now_ns,
		struct rtr_lcore_stats *st)
{
	rtr_cw_depart(state, m, meta, now_ns, st->lb);
}

static void
cw_control_rx(void *state, struct rte_mbuf *m, struct rtr_meta *meta, uint64_t now_ns,
		struct rtr_lcore_stats *st)
{
	rtr_cw_control_rx(state, m, meta, now_ns, st->lb);
}

static int
cw_deliver(void *state, struct rte_mbuf *m, struct rtr_meta *meta, uint16_t port,
		uint64_t now_ns, struct rtr_lcore_stats *st)
{
	return rtr_cw_deliver(state, m, meta, port, now_ns, st->lb) == RTR_CW_HELD ?
		RTR_LB_TAKEN : RTR_LB_FORWARD;
}

static void
cw_tick(void *state, uint64_t now_ns, struct rtr_lcore_stats *st)
{
	rtr_cw_tick(state, now_ns, st->lb);
}

static uint64_t
cw_next_deadline(const void *state)
{
	return rtr_cw_next_deadline(state);
}

static unsigned int
cw_flush(void *state, int port, uint64_t now_ns, struct rtr_lcore_stats *st)
{
	if (port < 0)
		return rtr_cw_flush(state, now_ns, st->lb);
	return rtr_cw_flush_port(state, (uint16_t)port, now_ns, st->lb);
}

static uint64_t
cw_held(const void *state)
{
	return rtr_cw_held(state);
}

static unsigned int
cw_flows(void *state, uint64_t now_ns, unsigned int max,
		void (*fn)(void *arg, const struct rtr_lb_flow_info *f), void *arg)
{
	return rtr_cw_flows(state, now_ns, max, fn, arg);
}

static void
cw_prefetch_op(const void *state, const struct rtr_meta *meta, unsigned int step)
{
	rtr_cw_prefetch(state, meta, step);
}

static const struct rtr_ft *
cw_table(const void *state)
{
	return rtr_cw_table(state);
}

const struct rtr_lb_ops rtr_lb_conweave = {
	.name = "conweave",
	.mode = RTR_LB_CONWEAVE,
	.flow_affinity = true,
	.fabric_parse_flags = RTR_PARSE_CW_HDR,
	.table = cw_table,
	.deliver_flags = RTR_MF_CW_HDR,
	.shared_create = cw_shared_create,
	.shared_free = cw_shared_free,
	.init = cw_init,
	.fini = cw_fini,
	.pick = cw_pick,
	.prefetch = cw_prefetch_op,
	.control_rx = cw_control_rx,
	.depart = cw_depart,
	.deliver = cw_deliver,
	.tick = cw_tick,
	.next_deadline = cw_next_deadline,
	.flush = cw_flush,
	.held = cw_held,
	.flows = cw_flows,
};

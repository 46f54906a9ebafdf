/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * `lb: caver`: the ops table around the state machines of rtr_caver.c.
 * Config microseconds become nanoseconds here; the switch's flow table size
 * is split between the workers; port rates, fabric ports and the attached
 * hosts (IPv4 /32 routes to host ports) come from the config.
 */

#include <stddef.h>
#include <stdlib.h>
#include <sys/socket.h>

#include "rtr_caver.h"
#include "rtr_flowtab.h"
#include "rtr_lb.h"
#include "caver/caver_config.h"

static void *
cv_shared_create(const struct rtr_config *cfg, unsigned int n_groups, bool rte, int socket)
{
	(void)n_groups;
	return rtr_caver_shared_create(RTR_CAVER_HOSTS,
			(uint64_t)rtr_caver_config(cfg)->aging_us * 1000, rte, socket);
}

static void
cv_shared_free(void *shared)
{
	rtr_caver_shared_free(shared);
}

static void *
cv_init(const struct rtr_lb_init *in)
{
	const struct rtr_config *cfg = in->cfg;
	const struct rtr_caver_cfg *cc = rtr_caver_config(cfg);
	unsigned int nw = in->n_workers ? in->n_workers : 1;
	struct rtr_ft_limit lim[RTR_FT_ORIGINS];
	struct rtr_caver_host *hosts = NULL;
	struct rtr_caver_params p = {
		.dre_period_ns = (uint64_t)cc->dre_period_us * 1000,
		.alpha = cc->alpha,
		.q = cc->q,
		.aging_ns = (uint64_t)cc->aging_us * 1000,
		.flow_idle_ns = (uint64_t)cc->flow_idle_us * 1000,
		.flow_entries = (cc->flow_table_size + nw - 1) / nw,
		.ft_limits = lim,
		.host_port_mask = in->host_port_mask,
		.switch_id = cfg->sw.id,
		.hash_seed = in->hash_seed,
		.rng_seed = (uint64_t)cfg->sw.id << 16 ^ in->hash_seed,
		.worker = in->worker,
		.n_workers = nw,
		.socket_id = in->socket,
		.use_rte_malloc = in->use_rte_malloc,
		.shared = in->shared,
		.link_down = in->link_down,
	};
	struct rtr_caver *cv;

	for (unsigned int i = 0; i < cfg->n_ports; i++) {
		const struct rtr_port_cfg *pc = &cfg->ports[i];

		if (pc->port >= RTR_MAX_PORTS)
			continue;
		if (pc->role == RTR_PORT_FABRIC)
			p.fabric_port_mask |= 1u << pc->port;
		/* The DRE measures against the rate the port really has:
		 * its shaper's when it is shaped. 0 = 100 Gb/s. */
		p.rate_bps[pc->port] = pc->shape_gbps > 0 ? pc->shape_gbps * 1e9 :
			(double)pc->speed_gbps * 1e9;
	}
	if (cfg->n_routes > 0) {
		hosts = calloc(cfg->n_routes, sizeof(*hosts));
		if (hosts == NULL)
			return NULL;
	}
	for (unsigned int i = 0; i < cfg->n_routes; i++) {
		const struct rtr_route_cfg *r = &cfg->routes[i];
		uint16_t port = r->paths[0].port;

		if (r->prefix.family != AF_INET || r->prefix.depth != 32 || r->is_group ||
				r->n_paths < 1 || port >= RTR_MAX_PORTS ||
				!(in->host_port_mask & (1u << port)))
			continue;
		hosts[p.n_hosts].addr = r->prefix.v4.s_addr;
		hosts[p.n_hosts].port = port;
		p.n_hosts++;
	}
	p.hosts = hosts;
	rtr_lb_ft_limits(in, p.flow_entries, lim);
	cv = rtr_caver_create(&p, &in->io);
	free(hosts); /* create keeps a copy */
	return cv;
}

static void
cv_fini(void *state)
{
	rtr_caver_free(state);
}

static int
cv_pick(void *state, const struct rtr_group *g, unsigned int g_idx, struct rte_mbuf *m,
		struct rtr_meta *meta, uint64_t now_ns, struct rtr_lcore_stats *st)
{
	return rtr_caver_pick(state, g, g_idx, m, meta, now_ns, st->lb);
}

static void
cv_post_route(void *state, struct rte_mbuf *m, struct rtr_meta *meta, uint16_t out_port,
		uint64_t now_ns, struct rtr_lcore_stats *st)
{
	rtr_caver_post_route(state, m, meta, out_port, now_ns, st->lb);
}

static void
cv_queued(void *state, const struct rte_mbuf *m, const struct rtr_meta *meta, uint16_t out_port)
{
	rtr_caver_queued(state, m, meta, out_port);
}

static const struct rtr_ft *
cv_table(const void *state)
{
	return rtr_caver_table(state);
}

static void
cv_tick(void *state, uint64_t now_ns, struct rtr_lcore_stats *st)
{
	rtr_caver_tick(state, now_ns, st->lb);
}

static uint64_t
cv_next_deadline(const void *state)
{
	return rtr_caver_next_deadline(state);
}

static unsigned int
cv_flows(void *state, uint64_t now_ns, unsigned int max,
		void (*fn)(void *arg, const struct rtr_lb_flow_info *f), void *arg)
{
	return rtr_caver_flows(state, now_ns, max, fn, arg);
}

static void
cv_prefetch_op(const void *state, const struct rtr_meta *meta, unsigned int step)
{
	rtr_caver_prefetch(state, meta, step);
}

const struct rtr_lb_ops rtr_lb_caver = {
	.name = "caver",
	.mode = RTR_LB_CAVER,
	.flow_affinity = true,
	/* ConWeave fields read, so that a host never gets them. */
	.fabric_parse_flags = RTR_PARSE_CW_FOREIGN,
	.deliver_flags = 0,
	.shared_create = cv_shared_create,
	.shared_free = cv_shared_free,
	.init = cv_init,
	.fini = cv_fini,
	.pick = cv_pick,
	.prefetch = cv_prefetch_op,
	.post_route = cv_post_route,
	.queued = cv_queued,
	.table = cv_table,
	.tick = cv_tick,
	.next_deadline = cv_next_deadline,
	.flows = cv_flows,
};

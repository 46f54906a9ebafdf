/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <rte_common.h>

#include "rtr_lb_flowlet.h"
#include "rtr_lb_fs.h"

const struct rtr_ft *
rtr_lb_fs_table(const void *state)
{
	const struct rtr_lb_fs *fs = state;

	return fs->ft;
}

unsigned int
rtr_lb_fs_flows(void *state, uint64_t now_ns, unsigned int max,
		void (*fn)(void *arg, const struct rtr_lb_flow_info *f), void *arg)
{
	struct rtr_lb_fs *fs = state;
	uint32_t cursor = 0;
	struct rtr_ft_entry *e;
	unsigned int n = 0;

	while ((max == 0 || n < max) && (e = rtr_ft_next(fs->ft, &cursor)) != NULL) {
		struct rtr_lb_flow_info fi;

		rtr_ft_flow_info(&fi, fs->ft, e, now_ns);
		fi.dst_role = false;
		fi.reply_deadline_in_ns = UINT64_MAX;
		fi.deadline_in_ns = UINT64_MAX;
		fi.next_hop = RTR_LB_HOP_NONE;
		fs->fill(state, e, now_ns, &fi);
		fn(arg, &fi);
		n++;
	}
	return n;
}

void
rtr_lb_ft_limits(const struct rtr_lb_init *in, uint32_t entries, struct rtr_ft_limit *lim)
{
	const struct rtr_config *cfg = in->cfg;
	unsigned int nw = in->n_workers ? in->n_workers : 1;
	uint32_t cap = rte_align32pow2(RTE_MAX(entries, (uint32_t)RTR_FT_MIN));

	memset(lim, 0, sizeof(*lim) * RTR_FT_ORIGINS);
	for (unsigned int i = 0; i < cfg->n_ports; i++) {
		const struct rtr_port_cfg *pc = &cfg->ports[i];
		struct rtr_ft_limit *l;
		double share;

		if (pc->port >= RTR_FT_ORIGINS || pc->role != RTR_PORT_HOST)
			continue;
		l = &lim[pc->port];
		share = rtr_config_flow_share(cfg, pc);
		if (share < 1.0)
			l->max_entries = RTE_MAX((uint32_t)(share * cap), 1u);
		if (pc->flow_rate != 0) {
			l->rate = RTE_MAX((pc->flow_rate + nw - 1) / nw, 1u);
			l->burst = RTE_MAX((pc->flow_burst + nw - 1) / nw, 1u);
		}
	}
}

uint64_t
rtr_lb_ft_bytes(uint32_t table_size, unsigned int n_workers, uint32_t value_size)
{
	unsigned int nw = n_workers ? n_workers : 1;
	struct rtr_ft_params fp = {
			.entries = (table_size + nw - 1) / nw,
			.value_size = value_size,
	};

	return rtr_ft_memsize(&fp);
}

uint32_t
rtr_lb_host_ports(const struct rtr_config *cfg)
{
	uint32_t mask = 0;

	for (unsigned int i = 0; i < cfg->n_ports; i++)
		if (cfg->ports[i].role == RTR_PORT_HOST && cfg->ports[i].port < 32)
			mask |= 1u << cfg->ports[i].port;
	return mask;
}

void
rtr_lb_fs_flowlet_view(const struct rtr_lb_flow_info *f, const struct rtr_lb_kv *kv)
{
	kv->u64(kv->arg, "path", f->path);
	kv->u64(kv->arg, "flowlets", f->flowlets);
}

uint64_t
rtr_lb_flowlet_aging_ns(uint64_t gap_ns)
{
	return RTE_MAX(1000000ULL, 4 * gap_ns);
}

static void
flowlet_fill(const void *state, struct rtr_ft_entry *e, uint64_t now, struct rtr_lb_flow_info *fi)
{
	(void)state;
	(void)now;
	fi->path = rtr_lb_flowlet_of(e)->path;
	fi->flowlets = rtr_lb_flowlet_of(e)->flowlets;
}

struct rtr_ft *
rtr_lb_flowlet_table(struct rtr_lb_fs *fs, const char *prefix, unsigned int worker,
		uint32_t entries, const struct rtr_ft_limit *lim, uint64_t gap_ns, int socket_id,
		bool use_rte_malloc)
{
	char name[64];
	struct rtr_ft_params fp = {
			.name = name,
			.entries = entries,
			.limits = lim,
			.value_size = sizeof(struct rtr_lb_flowlet),
			.aging_ns = rtr_lb_flowlet_aging_ns(gap_ns),
			.pinned = NULL, /* nothing is held: every entry may go */
			.socket_id = socket_id,
			.use_rte_malloc = use_rte_malloc,
	};

	snprintf(name, sizeof(name), "%s_%u", prefix, worker);
	fs->ft = rtr_ft_create(&fp);
	fs->fill = flowlet_fill;
	return fs->ft;
}

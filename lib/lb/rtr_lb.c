/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

#include <stddef.h>
#include <string.h>

#include <rte_common.h>

#include "rtr_flowtab.h"
#include "rtr_lb.h"

static const struct rtr_lb_ops *const lb_table[RTR_LB_MAX] = {
	[RTR_LB_ECMP] = &rtr_lb_ecmp,
	[RTR_LB_CONWEAVE] = &rtr_lb_conweave,
	[RTR_LB_SEQBALANCE] = &rtr_lb_seqbalance,
	[RTR_LB_CAVER] = &rtr_lb_caver,
	/* spray is added by its issue. */
};

const struct rtr_lb_ops *
rtr_lb_get(enum rtr_lb_mode mode)
{
	if ((unsigned int)mode >= RTR_LB_MAX)
		return NULL;
	return lb_table[mode];
}

void
rtr_lb_ft_limits(const struct rtr_lb_init *in, uint32_t entries, struct rtr_ft_limit *lim)
{
	const struct rtr_config *cfg = in->cfg;
	unsigned int nw = in->n_workers ? in->n_workers : 1;
	uint32_t cap = rte_align32pow2(RTE_MAX(entries, (uint32_t)RTR_FT_WAYS));

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

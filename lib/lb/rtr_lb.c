/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>

#include "rtr_flowtab.h"
#include "rtr_lb.h"
#include "caver/caver_config.h"
#include "conweave/conweave_config.h"
#include "seqbalance/seqbalance_config.h"

/* ------------------------------------------------ per-mode pieces (to move) */

static uint64_t
cw_mbuf_budget(const struct rtr_config *cfg, const char **key)
{
	const struct rtr_conweave_cfg *cc = rtr_conweave_config(cfg);
	uint64_t n = 0;

	/* conweave.hold_budget, or per host port what its rings can hold,
	 * capped like an egress port's share of the pool. */
	if (cc->hold_budget != 0) {
		*key = "conweave.hold_budget";
		return cc->hold_budget;
	}
	*key = NULL;
	for (unsigned int i = 0; i < cfg->n_ports; i++)
		if (cfg->ports[i].role == RTR_PORT_HOST)
			n += RTE_MIN((uint64_t)cc->reorder_queues_per_port *
						cc->reorder_queue_depth,
					(uint64_t)RTR_LB_HOLD_PORT_MAX);
	return n;
}

static void
cw_flow_view(const struct rtr_lb_flow_info *f, const struct rtr_lb_kv *kv)
{
	kv->u64(kv->arg, "epoch", f->epoch);
	if (f->dst_role) {
		kv->u64(kv->arg, "rx_phase", f->phase);
		kv->u64(kv->arg, "held", f->held);
		if (f->deadline_in_ns != UINT64_MAX)
			kv->u64(kv->arg, "deadline_in_us", f->deadline_in_ns / 1000);
		return;
	}
	kv->u64(kv->arg, "phase", f->phase);
	kv->u64(kv->arg, "path", f->path);
	kv->u64(kv->arg, "stabilized", f->stabilized);
	if (f->reply_deadline_in_ns != UINT64_MAX)
		kv->u64(kv->arg, "reply_deadline_in_us", f->reply_deadline_in_ns / 1000);
}

/* SeqBalance sub-flows: where they were placed. */
static void
sb_flow_view(const struct rtr_lb_flow_info *f, const struct rtr_lb_kv *kv)
{
	kv->u64(kv->arg, "path", f->path);
}

static void
caver_flow_view(const struct rtr_lb_flow_info *f, const struct rtr_lb_kv *kv)
{
	kv->u64(kv->arg, "path", f->path);
	if (f->next_hop != RTR_LB_HOP_NONE)
		kv->u64(kv->arg, "next_hop", f->next_hop);
	kv->u64(kv->arg, "ce", f->ce);
	kv->str(kv->arg, "placed_by", f->by_table ? "table" : "ecmp");
}

/* ------------------------------------------------------------ the registry */

/* Index = mode id = enum rtr_lb_mode. One line per mode. */
static const struct rtr_lb_desc lb_modes[] = {
	{.name = "ecmp", .summary = "per-flow hash over the group's live paths",
		.ops = &rtr_lb_ecmp, .spine = RTR_LB_SPINE_RUN},
	{.name = "conweave", .summary = "ConWeave: reroute every RTT, reorder at the DstToR",
		.ops = &rtr_lb_conweave, .spine = RTR_LB_SPINE_ECMP,
		.mbuf_budget = cw_mbuf_budget, .flow_view = cw_flow_view,
		.config = &rtr_conweave_section},
	{.name = "seqbalance", .summary = "SeqBalance: congestion table and PathTag",
		.ops = &rtr_lb_seqbalance, .spine = RTR_LB_SPINE_ECMP,
		.flow_view = sb_flow_view, .config = &rtr_seqbalance_section},
	{.name = "caver", .summary = "CAVER: DRE and path vectors on ACKs",
		.ops = &rtr_lb_caver, .spine = RTR_LB_SPINE_RUN, .flow_view = caver_flow_view,
		.config = &rtr_caver_section},
	{.name = "spray", .summary = "per-packet spraying with in-network reordering (reserved)"},
};
_Static_assert(RTE_DIM(lb_modes) == RTR_LB_MAX, "lb_modes[] out of step with enum rtr_lb_mode");
_Static_assert(RTE_DIM(lb_modes) <= RTR_LB_MODES_MAX, "more modes than a config can hold");

/*
 * lib/config learns the modes (switch.lb's names, each mode's section)
 * from here, before main(): it must not depend on lib/lb, so the registry
 * hands them over. Every program that loads configs links this library
 * whole (meson link_whole), so this runs even where nothing else of it is
 * called.
 */
RTE_INIT(lb_modes_to_config)
{
	struct rtr_config_lb_mode m[RTE_DIM(lb_modes)];

	for (unsigned int i = 0; i < RTE_DIM(lb_modes); i++)
		m[i] = (struct rtr_config_lb_mode){lb_modes[i].name, lb_modes[i].config};
	if (rtr_config_set_lb_modes(m, RTE_DIM(lb_modes)) != 0)
		abort();
}

unsigned int
rtr_lb_mode_count(void)
{
	return RTE_DIM(lb_modes);
}

const struct rtr_lb_desc *
rtr_lb_mode_at(unsigned int id)
{
	return id < RTE_DIM(lb_modes) ? &lb_modes[id] : NULL;
}

int
rtr_lb_mode_find(const char *name)
{
	for (unsigned int i = 0; i < RTE_DIM(lb_modes); i++)
		if (strcmp(lb_modes[i].name, name) == 0)
			return (int)i;
	return -1;
}

const char *
rtr_lb_mode_list(char *buf, size_t len, const char *sep, bool implemented_only)
{
	size_t off = 0;

	if (len == 0)
		return buf;
	buf[0] = '\0';
	for (unsigned int i = 0; i < RTE_DIM(lb_modes); i++) {
		int n;

		if (implemented_only && lb_modes[i].ops == NULL)
			continue;
		n = snprintf(buf + off, len - off, "%s%s", off ? sep : "", lb_modes[i].name);
		if (n < 0 || (size_t)n >= len - off)
			break;
		off += (size_t)n;
	}
	return buf;
}

const struct rtr_lb_ops *
rtr_lb_get(enum rtr_lb_mode mode)
{
	const struct rtr_lb_desc *d = rtr_lb_mode_at((unsigned int)mode);

	return d != NULL ? d->ops : NULL;
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

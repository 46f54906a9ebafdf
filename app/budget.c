/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * The mempool formula (doc/egress.md; a mode's hold budget: its doc). Every
 * descriptor may hold an mbuf, every worker may hold a burst per port in
 * TX buffers plus an RX burst and its mempool cache, and every ring may be
 * full; the egress queues and the LB mode's reorder rings are the switch's
 * shared buffer. Rounded to 2^k - 1, the mempool's best size.
 */

#include <errno.h>
#include <stddef.h>

#include <rte_common.h>
#include <rte_ether.h>
#include <rte_mbuf_core.h>

#include "budget.h"
#include "rtr_pipeline.h"
#include "rtr_lb_registry.h"

/* Per port: the "shared buffer" its egress queues may fill. */
#define EGRESS_QUEUE_MBUFS_MAX 4096

void
rtr_budget_queues(const struct rtr_config *cfg, unsigned int workers, struct rtr_budget_in *in)
{
	in->workers = workers;
	for (unsigned int i = 0; i < cfg->n_ports && i < RTR_MAX_PORTS; i++) {
		const struct rtr_port_cfg *pc = &cfg->ports[i];

		in->rxq[i] = pc->rx_queues ? pc->rx_queues : (uint16_t)workers;
		in->txq[i] = RTE_MAX((uint16_t)workers, pc->tx_queues);
	}
}

static uint32_t
round_pow2_minus1(uint64_t n)
{
	uint64_t p = 1;

	while (p < n + 1)
		p <<= 1;
	return (uint32_t)(p - 1);
}

/* Egress: each port may fill what its class queues hold in 1500-byte
 * packets, capped at EGRESS_QUEUE_MBUFS_MAX (deeper queues need
 * switch.mbufs; without them the pool runs dry first and the NIC drops at
 * RX, rx_nombuf), plus the packets in flight on its delay line. */
static uint64_t
egress_part(const struct rtr_config *cfg)
{
	uint64_t n = 0;

	for (unsigned int i = 0; i < cfg->n_ports; i++) {
		const struct rtr_port_cfg *pc = &cfg->ports[i];
		double gbps = pc->shape_gbps > 0   ? pc->shape_gbps
			      : pc->speed_gbps > 0 ? pc->speed_gbps
						   : 100.0;
		uint64_t qb = 0;

		for (unsigned int c = 0; c < cfg->qos.classes; c++)
			qb += (uint64_t)cfg->qos.cls[c].queue_kb * 1024 / 1500;
		n += RTE_MIN(qb, (uint64_t)EGRESS_QUEUE_MBUFS_MAX) +
		     (uint64_t)((double)pc->delay_us * 1000 * gbps / (8 * 1024));
	}
	return n;
}

/*
 * What the LB mode may hold: the running mode's mbuf_budget. With
 * --telemetry-rw the mode may change at runtime (/rocetor/lb/set), so the
 * pool is sized from the start for the implemented mode that holds the
 * most.
 */
static void
hold_part(const struct rtr_config *cfg, bool any_mode, struct rtr_budget *out)
{
	out->hold = 0;
	out->hold_mode = NULL;
	out->hold_key = NULL;
	for (unsigned int id = 0; id < rtr_lb_mode_count(); id++) {
		const struct rtr_lb_desc *d = rtr_lb_mode_at(id);
		const char *key = NULL;
		uint64_t n;

		if (d->mbuf_budget == NULL)
			continue;
		if (any_mode ? d->ops == NULL : id != (unsigned int)cfg->sw.lb)
			continue;
		n = d->mbuf_budget(cfg, &key);
		if (out->hold_mode == NULL || n > out->hold) {
			out->hold = n;
			out->hold_mode = d;
			out->hold_key = key;
		}
	}
}

/*
 * The hold budget: the mbufs the LB state of all workers
 * may hold at once, split evenly between the workers (flows are spread
 * over them by hash). Holding past it takes the mode's overflow path, so
 * holds never take the mbufs RX needs.
 *
 * The pool was sized to hold `hold` on top of what the formula gives
 * everything else. A switch.mbufs smaller than the formula leaves holding
 * what remains, but at least a quarter of the pool (such a pool is below
 * the formula anyway); a budget set by a config key is taken as given (the
 * validator keeps it below switch.mbufs).
 */
static void
hold_budget(unsigned int workers, struct rtr_budget *out)
{
	uint64_t others = out->need - out->hold, total = out->hold, left, per;

	out->hold_per_worker = 0;
	out->hold_cut = false;
	if (out->hold_mode == NULL)
		return;
	if (out->hold_key == NULL && out->mbufs < out->need) {
		left = out->mbufs > others ? out->mbufs - others : 0;
		if (left < out->mbufs / 4)
			left = out->mbufs / 4;
		if (left < total)
			total = left;
	}
	per = total / workers;
	out->hold_per_worker = per > 0 ? (uint32_t)per : 1;
	out->hold_cut = total < out->hold;
}

unsigned int
rtr_data_room(unsigned int mtu)
{
	unsigned int buf = RTE_MAX(2048u, mtu + RTE_ETHER_HDR_LEN + 2 * 4 + RTE_ETHER_CRC_LEN + 4);

	return RTE_PKTMBUF_HEADROOM + RTE_ALIGN_CEIL(buf, RTR_RX_BUF_ALIGN);
}

int
rtr_mbuf_budget(const struct rtr_config *cfg, const struct rtr_budget_in *in,
		struct rtr_budget *out)
{
	unsigned int max_mtu = RTE_ETHER_MTU;

	if (in->workers == 0 || cfg->n_ports > RTR_MAX_PORTS)
		return -EINVAL;
	out->rx_desc = 0;
	out->tx_desc = 0;
	for (unsigned int i = 0; i < cfg->n_ports; i++) {
		if (in->rxq[i] == 0 || in->txq[i] == 0)
			return -EINVAL;
		out->rx_desc += (uint64_t)in->rxq[i] * RTR_RX_DESC;
		out->tx_desc += (uint64_t)in->txq[i] * RTR_TX_DESC;
		if (cfg->ports[i].mtu > max_mtu)
			max_mtu = cfg->ports[i].mtu;
	}
	out->per_worker = RTR_BURST * (cfg->n_ports + 1) + RTR_POOL_CACHE * 3 / 2 +
			  cfg->sw.handoff_ring + RTR_INJECT_RING_SIZE;
	out->workers = (uint64_t)in->workers * out->per_worker;
	out->control = RTR_CTRL_RING_SIZE + 1024; /* control ring + control/pdump slack */
	out->egress = egress_part(cfg);
	hold_part(cfg, in->telemetry_rw, out);
	out->need = out->rx_desc + out->tx_desc + out->workers + out->control + out->egress +
		    out->hold;
	out->mbufs_set = cfg->sw.mbufs != 0;
	out->mbufs = out->mbufs_set ? cfg->sw.mbufs : round_pow2_minus1(out->need);
	hold_budget(in->workers, out);
	out->data_room = rtr_data_room(max_mtu);
	return 0;
}

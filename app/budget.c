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
#include <string.h>

#include <rte_common.h>
#include <rte_ether.h>
#include <rte_mbuf_core.h>
#include <rte_ring.h>

#include "budget.h"
#include "rtr_egress.h"
#include "rtr_pipeline.h"
#include "rtr_route.h"
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
		/* One per worker and hardware queue (qos.hw_queues, issue 31). */
		in->txq[i] = RTE_MAX((uint16_t)(workers * (cfg->qos.hw_queues ? cfg->qos.hw_queues
									      : 1u)),
				pc->tx_queues);
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

uint32_t
rtr_budget_cell(const struct rtr_config *cfg)
{
	return cfg->qos.buffer.cell_bytes ? cfg->qos.buffer.cell_bytes : RTR_BUFFER_CELL_AUTO;
}

/* Egress, static buffer: each port may fill what its class queues hold in
 * 1500-byte packets, capped at EGRESS_QUEUE_MBUFS_MAX (deeper queues need
 * switch.mbufs; without them the pool runs dry first and the NIC drops at
 * RX, rx_nombuf). Shared buffer (qos.buffer.mode shared): the pool holds
 * at most size / cell packets (lib/egress counts each as at least a cell),
 * every one of them, shared out evenly between the ports (the part of
 * where each lives). Both plus the packets in flight on its delay line. */
static uint64_t
egress_port_part(const struct rtr_config *cfg, const struct rtr_port_cfg *pc)
{
	double gbps = pc->shape_gbps > 0   ? pc->shape_gbps
		      : pc->speed_gbps > 0 ? pc->speed_gbps
					   : 100.0;
	uint64_t qb = 0;

	if (cfg->qos.buffer.mode == RTR_BUFFER_SHARED) {
		uint64_t cell = rtr_budget_cell(cfg);
		uint64_t cells = ((uint64_t)cfg->qos.buffer.size_kb * 1024 + cell - 1) / cell;

		qb = (cells + cfg->n_ports - 1) / (cfg->n_ports ? cfg->n_ports : 1);
	} else {
		for (unsigned int c = 0; c < cfg->qos.classes; c++)
			qb += (uint64_t)cfg->qos.cls[c].queue_kb * 1024 / 1500;
		qb = RTE_MIN(qb, (uint64_t)EGRESS_QUEUE_MBUFS_MAX);
	}
	return qb + (uint64_t)((double)pc->delay_us * 1000 * gbps / (8 * 1024));
}

static uint64_t
egress_part(const struct rtr_config *cfg)
{
	uint64_t n = 0;

	for (unsigned int i = 0; i < cfg->n_ports; i++)
		n += egress_port_part(cfg, &cfg->ports[i]);
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
			  cfg->sw.handoff_ring + RTR_INJECT_RING_SIZE + RTR_CTRL_STASH;
	out->workers = (uint64_t)in->workers * out->per_worker;
	out->control = RTR_CTRL_RING_SIZE + 1024; /* control ring + control/pdump slack */
	out->egress = egress_part(cfg);
	hold_part(cfg, in->telemetry_rw, out);
	out->need = out->rx_desc + out->tx_desc + out->workers + out->control + out->egress +
		    out->hold;
	out->mbufs_set = cfg->sw.mbufs != 0;
	out->mbufs = out->mbufs_set ? cfg->sw.mbufs : round_pow2_minus1(out->need);
	hold_budget(in->workers, out);
	/* A driver that starts the frame past the headroom (af_xdp) needs
	 * that much more room for the same frame. */
	out->data_room = rtr_data_room(max_mtu + in->rx_headroom_extra);
	return 0;
}

/* The LB state counted: the running mode's, or with telemetry_rw the
 * implemented mode's that takes the most (as hold_part). */
static void
lb_state_part(const struct rtr_config *cfg, unsigned int workers, bool any_mode,
		struct rtr_budget_sockets *out)
{
	out->lb_mode = NULL;
	out->lb_per_worker = 0;
	out->lb_shared = 0;
	for (unsigned int id = 0; id < rtr_lb_mode_count(); id++) {
		const struct rtr_lb_desc *d = rtr_lb_mode_at(id);
		uint64_t pw = 0, sh = 0;

		if (d->state_bytes == NULL)
			continue;
		if (any_mode ? d->ops == NULL : id != (unsigned int)cfg->sw.lb)
			continue;
		d->state_bytes(cfg, workers, &pw, &sh);
		if (out->lb_mode == NULL ||
				pw * workers + sh > out->lb_per_worker * workers + out->lb_shared) {
			out->lb_mode = d;
			out->lb_per_worker = pw;
			out->lb_shared = sh;
		}
	}
}

static uint64_t
ring_bytes(unsigned int count)
{
	ssize_t n = rte_ring_get_memsize(count);

	return n < 0 ? 0 : (uint64_t)n;
}

/* A socket as given, -1 (any) the main lcore's. */
static int
real_socket(int s, int main_socket)
{
	return s < 0 ? main_socket : s;
}

int
rtr_budget_sockets(const struct rtr_config *cfg, const struct rtr_budget_in *in,
		const struct rtr_budget *b, const struct rtr_budget_where *where,
		struct rtr_budget_sockets *out)
{
	const int ms = where->main_socket;
	uint64_t hold_share, handoff, inject, elt;
	struct rtr_budget_socket *s = out->s;
	int ps[RTR_MAX_PORTS], ws[RTR_MAX_LCORES];

	memset(out, 0, sizeof(*out));
	if (ms < 0 || ms >= RTR_BUDGET_MAX_SOCKETS || cfg->n_ports == 0 ||
			cfg->n_ports > RTR_MAX_PORTS || in->workers == 0 ||
			in->workers > RTR_MAX_LCORES)
		return -EINVAL;
	s[ms].used = true;
	for (unsigned int i = 0; i < cfg->n_ports; i++) {
		ps[i] = real_socket(where->port_socket[i], ms);
		if (ps[i] >= RTR_BUDGET_MAX_SOCKETS)
			return -EINVAL;
		s[ps[i]].used = s[ps[i]].pool = true;
		s[ps[i]].n_ports++;
	}
	for (unsigned int w = 0; w < in->workers; w++) {
		ws[w] = real_socket(where->worker_socket[w], ms);
		if (ws[w] >= RTR_BUDGET_MAX_SOCKETS)
			return -EINVAL;
		s[ws[w]].used = true;
		s[ws[w]].n_workers++;
	}
	out->main_pool = ms;
	if (!s[ms].pool)
		for (int k = RTR_BUDGET_MAX_SOCKETS - 1; k >= 0; k--)
			if (s[k].pool)
				out->main_pool = k;

	/* The mbufs: each part in the pool of where it lives. */
	for (unsigned int i = 0; i < cfg->n_ports; i++) {
		s[ps[i]].rx_desc += (uint64_t)in->rxq[i] * RTR_RX_DESC;
		s[ps[i]].tx_desc += (uint64_t)in->txq[i] * RTR_TX_DESC;
		s[ps[i]].egress += egress_port_part(cfg, &cfg->ports[i]);
	}
	hold_share = b->hold / in->workers;
	for (unsigned int w = 0; w < in->workers; w++) {
		int t = s[ws[w]].pool ? ws[w] : out->main_pool;

		s[t].workers += b->per_worker;
		s[t].hold += hold_share;
	}
	s[out->main_pool].hold += b->hold - hold_share * in->workers;
	s[s[ms].pool ? ms : out->main_pool].control += b->control;
	for (int k = 0; k < RTR_BUDGET_MAX_SOCKETS; k++) {
		if (!s[k].pool)
			continue;
		s[k].need = s[k].rx_desc + s[k].tx_desc + s[k].workers + s[k].egress + s[k].hold +
			    s[k].control;
		if (b->mbufs_set)
			/* In proportion to the needs, rounded up. */
			s[k].mbufs = (uint32_t)(((uint64_t)b->mbufs * s[k].need + b->need - 1) /
						b->need);
		else
			s[k].mbufs = round_pow2_minus1(s[k].need);
		out->n_pools++;
		out->pools_mbufs += s[k].mbufs;
	}

	/* The memory: mbufs in their pools; LB state, egress queues and rings
	 * where app/setup.c and app/lb.c allocate them (the worker's lcore's
	 * socket; shared state and the control ring on the main lcore's). */
	lb_state_part(cfg, in->workers, in->telemetry_rw, out);
	out->egress_per_worker = rtr_egress_memsize(
			cfg, (uint32_t)RTE_MIN(out->pools_mbufs, (uint64_t)UINT32_MAX));
	elt = (uint64_t)b->data_room + where->priv_size + RTR_MBUF_OVERHEAD;
	handoff = ring_bytes(rte_align32pow2(cfg->sw.handoff_ring + 1)); /* RING_F_EXACT_SZ */
	inject = ring_bytes(RTR_INJECT_RING_SIZE);
	for (unsigned int w = 0; w < in->workers; w++) {
		s[ws[w]].lb_bytes += out->lb_per_worker;
		s[ws[w]].egress_bytes += out->egress_per_worker;
		s[ws[w]].ring_bytes += handoff + inject;
	}
	s[ms].lb_bytes += out->lb_shared;
	s[ms].ring_bytes += ring_bytes(RTR_CTRL_RING_SIZE);
	s[ms].route_bytes = rtr_route_memsize(rtr_route_runtime_possible(cfg, in->telemetry_rw));
	for (int k = 0; k < RTR_BUDGET_MAX_SOCKETS; k++) {
		s[k].mbuf_bytes = (uint64_t)s[k].mbufs * elt;
		s[k].total_bytes = s[k].mbuf_bytes + s[k].lb_bytes + s[k].egress_bytes +
				   s[k].ring_bytes + s[k].route_bytes;
	}
	return 0;
}

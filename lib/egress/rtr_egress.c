/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * The egress stage's construction: one worker's class queues and wires, the
 * per-port state all workers share (its clock, the NIC ring's bound), the
 * memory that takes. What a packet meets afterwards is in the eg_*.c files
 * (eg_internal.h lists them).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_malloc.h>

#include "eg_internal.h"
#include "rtr_egress.h"

/* ------------------------------------------------------------ helpers */

static void *
eg_zalloc(size_t n, int socket)
{
	if (socket < 0)
		return calloc(1, n);
	return rte_zmalloc_socket("rtr_egress", n, RTE_CACHE_LINE_SIZE, socket);
}

static void
eg_free(void *p, bool rte)
{
	if (rte)
		rte_free(p);
	else
		free(p);
}

static uint32_t
pow2_at_least(uint64_t n)
{
	uint32_t v = 1;

	while (v < n && v < (1u << 30))
		v <<= 1;
	return v;
}

static double
port_gbps(const struct rtr_port_cfg *pc, uint32_t link_mbps)
{
	if (pc->shape_gbps > 0)
		return pc->shape_gbps;
	if (pc->speed_gbps > 0)
		return pc->speed_gbps;
	if (link_mbps > 0)
		return link_mbps / 1000.0;
	return 100.0;
}

/* ------------------------------------------------------------ shared */

int
rtr_egress_shared_init(struct rtr_egress_shared *sh, const struct rtr_config *cfg,
		const uint32_t *link_speed_mbps)
{
	memset(sh, 0, sizeof(*sh));
	sh->cfg = cfg;
	for (unsigned int i = 0; i < cfg->n_ports; i++) {
		const struct rtr_port_cfg *pc = &cfg->ports[i];
		struct rtr_eg_shared_port *sp;
		double gbps;

		if (pc->port >= RTR_MAX_PORTS)
			return -EINVAL;
		sp = &sh->port[pc->port];
		sp->configured = true;
		gbps = port_gbps(pc, link_speed_mbps ? link_speed_mbps[pc->port] : 0);
		if (pc->shape_gbps > 0) {
			sp->shaped = true;
			sp->ps_per_byte_q10 = (uint64_t)(8000.0 * 1024.0 / pc->shape_gbps + 0.5);
			sp->burst_ps = ((uint64_t)pc->shape_burst_kb * 1024 *
						       sp->ps_per_byte_q10) >>
				       10;
		}
		sp->quantum_ns_q10 = (uint64_t)(512.0 * 1024.0 / gbps + 0.5);
		sp->link_ps_per_byte_q10 = (uint64_t)(8000.0 * 1024.0 / gbps + 0.5);
		sp->ahead_ps = sp->burst_ps;
		rte_spinlock_init(&sp->pfc.lock);
		if (pc->nic_ring_kb != RTR_NIC_RING_AUTO && pc->nic_ring_kb > 0)
			rtr_egress_set_ring(
					sh, pc->port, pc->nic_ring_kb * 1024u, pc->nic_ring_desc);
	}
	return 0;
}

void
rtr_egress_set_ring(
		struct rtr_egress_shared *sh, uint16_t port, uint32_t ring_bytes, uint16_t desc_cap)
{
	struct rtr_eg_shared_port *sp;

	if (port >= RTR_MAX_PORTS || !sh->port[port].configured)
		return;
	sp = &sh->port[port];
	sp->paced = ring_bytes > 0;
	sp->ring_bytes = ring_bytes;
	sp->desc_cap = sp->paced ? desc_cap : 0;
	/* A shaped port's clock runs at the shaping rate, else the link's. */
	if (!sp->shaped)
		sp->ps_per_byte_q10 = sp->paced ? sp->link_ps_per_byte_q10 : 0;
	sp->ring_ps = ((uint64_t)ring_bytes * sp->ps_per_byte_q10) >> 10;
	if (!sp->paced)
		sp->ahead_ps = sp->burst_ps;
	else if (sp->shaped)
		sp->ahead_ps = RTE_MIN(sp->burst_ps, sp->ring_ps);
	else
		sp->ahead_ps = sp->ring_ps;
}

uint64_t
rtr_egress_ring_bound_ns(const struct rtr_egress_shared *sh, uint16_t port, uint32_t frame_len,
		uint32_t ctrl_len)
{
	const struct rtr_eg_shared_port *sp;

	if (port >= RTR_MAX_PORTS || !sh->port[port].paced)
		return 0;
	sp = &sh->port[port];
	return (sp->ahead_ps + eg_frame_ps(sp, frame_len) + eg_frame_ps(sp, ctrl_len) + 999) / 1000;
}

/* ------------------------------------------------------------ create */

/* Slots of a class queue: as many 60-byte frames as its limit holds, no
 * more than the mempool has mbufs, a burst at least. */
static uint32_t
cq_slots(const struct rtr_class_cfg *cc, uint32_t max_pkts)
{
	uint64_t limit = (uint64_t)cc->queue_kb * 1024;
	uint32_t slots = pow2_at_least(RTE_MIN(limit / 60 + 1, (uint64_t)max_pkts));

	return slots < RTR_BURST ? RTR_BURST : slots;
}

/* Slots of a port's wire: what is in flight on its delay line at the
 * port's rate in minimum-size frames, plus room for one burst and PFC
 * frames, no more than the mempool allows. */
static uint64_t
wire_slots(const struct rtr_port_cfg *pc, uint32_t max_pkts)
{
	uint64_t wire = (uint64_t)((double)pc->delay_us * 1000 * port_gbps(pc, 0) / (84 * 8)) +
			4 * RTR_BURST + RTR_EG_WIRE_RESERVE;

	return pow2_at_least(
			RTE_MIN(wire, (uint64_t)max_pkts + 4 * RTR_BURST + RTR_EG_WIRE_RESERVE));
}

static int
cq_init(struct rtr_cq *q, const struct rtr_class_cfg *cc, uint32_t max_pkts, int socket)
{
	uint64_t limit = (uint64_t)cc->queue_kb * 1024;
	uint32_t slots = cq_slots(cc, max_pkts);

	q->slot = eg_zalloc(sizeof(*q->slot) * slots, socket);
	if (q->slot == NULL)
		return -ENOMEM;
	q->mask = slots - 1;
	q->limit = (uint32_t)RTE_MIN(limit, (uint64_t)UINT32_MAX);
	q->ecn = cc->ecn.enabled;
	q->kmin = cc->ecn.kmin_kb * 1024;
	q->kmax = cc->ecn.kmax_kb * 1024;
	q->pmax_q32 = (uint64_t)(cc->ecn.pmax * 4294967296.0);
	q->quantum = (uint32_t)cc->weight * RTR_EG_DWRR_QUANTUM;
	return 0;
}

/* Levels: distinct priorities, highest first; the control class on top. */
static void
eport_levels(struct rtr_eport *ep, const struct rtr_qos_cfg *q)
{
	int prio[RTR_MAX_CLASSES];
	bool done[RTR_MAX_CLASSES] = {false};

	for (unsigned int c = 0; c < ep->n_classes; c++)
		prio[c] = c == ep->top ? 1000 : q->cls[c].priority;
	ep->n_levels = 0;
	for (;;) {
		int best = -1;

		for (unsigned int c = 0; c < ep->n_classes; c++)
			if (!done[c] && prio[c] > best)
				best = prio[c];
		if (best < 0)
			break;
		uint8_t l = ep->n_levels++;

		ep->level_n[l] = 0;
		ep->level_mask[l] = 0;
		/* Classes of a level in descending class order (DWRR visit order). */
		for (int c = ep->n_classes - 1; c >= 0; c--) {
			if (!done[c] && prio[c] == best) {
				done[c] = true;
				ep->level_cls[l][ep->level_n[l]++] = (uint8_t)c;
				ep->level_mask[l] |= (uint8_t)(1u << c);
			}
		}
		ep->fresh[l] = true;
	}
	/* Default layout: each class alone, in class order: the pick is the
	 * highest set bit of the eligible mask. */
	ep->simple_prio = ep->n_levels == ep->n_classes;
	for (unsigned int l = 0; ep->simple_prio && l < ep->n_levels; l++)
		if (ep->level_cls[l][0] != ep->n_classes - 1 - l)
			ep->simple_prio = false;
}

static void
eport_free(struct rtr_eport *ep, bool rte)
{
	if (ep == NULL)
		return;
	for (unsigned int c = 0; c < RTR_MAX_CLASSES; c++)
		eg_free(ep->cq[c].slot, rte);
	for (unsigned int h = 0; h < RTR_MAX_HW_QUEUES; h++) {
		eg_free(ep->wire[h].slot, rte);
		eg_free(ep->wire[h].due, rte);
	}
	eg_free(ep->ledger.end_ps, rte);
	eg_free(ep->ledger.len, rte);
	eg_free(ep->ledger.in, rte);
	eg_free(ep->ledger.cls, rte);
	eg_free(ep, rte);
}

/* Ledger entries: every frame of the ring's bytes at the minimum size,
 * and the bursts let in beyond it. */
static uint32_t
ledger_slots(uint32_t ring_bytes)
{
	return pow2_at_least((uint64_t)ring_bytes / 60 + 4 * RTR_BURST);
}

static struct rtr_eport *
eport_create(struct rtr_egress *eg, const struct rtr_port_cfg *pc, uint32_t max_pkts, int socket)
{
	const struct rtr_qos_cfg *q = &eg->sh->cfg->qos;
	struct rtr_eport *ep = eg_zalloc(sizeof(*ep), socket);
	uint64_t wire;

	if (ep == NULL)
		return NULL;
	ep->port = pc->port;
	ep->n_classes = q->classes;
	ep->top = (uint8_t)(q->classes - 1);
	ep->sh = &eg->sh->port[pc->port];
	for (unsigned int c = 0; c < q->classes; c++)
		if (cq_init(&ep->cq[c], &q->cls[c], max_pkts, socket) != 0)
			goto fail;
	eport_levels(ep, q);
	ep->delay_ns = (uint64_t)pc->delay_us * 1000;
	ep->n_hwq = (uint8_t)eg_n_hwq(q);
	for (unsigned int c = 0; c < q->classes; c++) {
		uint8_t h = rtr_config_hw_queue(eg->sh->cfg, c);

		ep->cls_hwq[c] = h < ep->n_hwq ? h : (uint8_t)(ep->n_hwq - 1);
		ep->hwq_cls[ep->cls_hwq[c]] |= (uint8_t)(1u << c);
	}
	wire = wire_slots(pc, max_pkts);
	for (unsigned int h = 0; h < ep->n_hwq; h++) {
		struct rtr_ewire *w = &ep->wire[h];

		w->slot = eg_zalloc(sizeof(*w->slot) * wire, socket);
		w->due = eg_zalloc(sizeof(*w->due) * wire, socket);
		if (w->slot == NULL || w->due == NULL)
			goto fail;
		w->mask = (uint32_t)wire - 1;
	}
	if (eg->lossless && ep->sh->paced) {
		struct rtr_eledger *l = &ep->ledger;
		uint32_t n = ledger_slots(ep->sh->ring_bytes);

		l->end_ps = eg_zalloc(sizeof(*l->end_ps) * n, socket);
		l->len = eg_zalloc(sizeof(*l->len) * n, socket);
		l->in = eg_zalloc(n, socket);
		l->cls = eg_zalloc(n, socket);
		if (l->end_ps == NULL || l->len == NULL || l->in == NULL || l->cls == NULL)
			goto fail;
		l->mask = n - 1;
	}
	if (pc->loss >= 1.0)
		ep->loss_q64 = UINT64_MAX;
	else if (pc->loss > 0)
		ep->loss_q64 = (uint64_t)(pc->loss * 18446744073709551616.0);
	ep->loss_rng = pc->loss_seed ^ ((uint64_t)eg->worker * 0xd1b54a32d192ed03ull);
	ep->red_rng = 0x5eed0000ull + pc->port * 131 + eg->worker;
	ep->clocked = ep->sh->shaped || ep->sh->paced;
	ep->plain = ep->delay_ns == 0 && ep->loss_q64 == 0 && !ep->clocked && !eg->lossless;
	return ep;
fail:
	eport_free(ep, socket >= 0);
	return NULL;
}

size_t
rtr_egress_memsize(const struct rtr_config *cfg, uint32_t max_pkts)
{
	const struct rtr_qos_cfg *q = &cfg->qos;
	size_t n = sizeof(struct rtr_egress);

	for (unsigned int i = 0; i < cfg->n_ports; i++) {
		const struct rtr_port_cfg *pc = &cfg->ports[i];

		n += sizeof(struct rtr_eport);
		for (unsigned int c = 0; c < q->classes && c < RTR_MAX_CLASSES; c++)
			n += sizeof(struct rte_mbuf *) * cq_slots(&q->cls[c], max_pkts);
		n += (sizeof(struct rte_mbuf *) + sizeof(uint64_t)) * wire_slots(pc, max_pkts) *
		     eg_n_hwq(q);
		/* The PFC ledger of a paced port (auto counts as 32 KB). */
		if (q->pfc.mode != RTR_PFC_OFF && pc->nic_ring_kb > 0) {
			uint32_t kb = pc->nic_ring_kb == RTR_NIC_RING_AUTO ? RTR_NIC_RING_AUTO_KB
									   : pc->nic_ring_kb;

			n += (sizeof(uint64_t) + sizeof(uint32_t) + 2) * ledger_slots(kb * 1024u);
		}
	}
	return n;
}

struct rtr_egress *
rtr_egress_create(struct rtr_egress_shared *sh, unsigned int worker, const struct rtr_egress_io *io,
		struct rtr_lcore_stats *stats, uint32_t max_pkts, int socket)
{
	const struct rtr_config *cfg = sh->cfg;
	const struct rtr_qos_cfg *q = &cfg->qos;
	struct rtr_egress *eg;

	if (worker >= 64 || q->classes == 0 || q->classes > RTR_MAX_CLASSES) {
		errno = EINVAL;
		return NULL;
	}
	eg = eg_zalloc(sizeof(*eg), socket);
	if (eg == NULL)
		return NULL;
	eg->rte_mem = socket >= 0;
	eg->sh = sh;
	eg->io = *io;
	if (eg->io.depart == NULL)
		eg->io.depart_flags = 0;
	eg->stats = stats;
	eg->worker = worker;
	eg->n_classes = q->classes;
	eg->top = (uint8_t)(q->classes - 1);
	eg->trust_pcp = q->trust_pcp;
	eg->direct = true;
	eg->wire_burst = RTR_BURST;
	eg->trim = q->trim;
	eg->trim_update_lengths = q->trim_update_lengths;
	eg->trim_dscp = q->trim_dscp;
	eg->admit = eg_admit_choose(q);
	for (unsigned int i = 0; i < q->n_dscp; i++)
		eg->dscp_class[q->dscp[i].dscp & 63] = q->dscp[i].class;
	for (unsigned int i = 0; i < q->n_pcp; i++)
		eg->pcp_class[q->pcp[i].pcp & 7] = q->pcp[i].class;
	eg->pfc = q->pfc.mode == RTR_PFC_SOFTWARE;
	eg->lossless = q->pfc.mode != RTR_PFC_OFF && q->pfc.class_mask != 0;
	eg->pfc_mask = q->pfc.class_mask;
	eg->xoff_bytes = q->pfc.xoff_kb * 1024;
	eg->xon_bytes = q->pfc.xon_kb * 1024;
	eg->pfc_quanta = q->pfc.quanta;
	if (eg->admit == EG_ADMIT_SHARED) {
		const struct rtr_buffer_cfg *b = &q->buffer;
		uint64_t hdrm;

		eg->sb_size = (uint64_t)b->size_kb * 1024;
		eg->sb_hdrm = eg->lossless ? b->headroom_kb * 1024u : 0;
		hdrm = (uint64_t)eg->sb_hdrm * cfg->n_ports;
		eg->sb_shared = hdrm < eg->sb_size ? eg->sb_size - hdrm : 0;
		eg->sb_alpha_q16 = (uint64_t)(b->alpha * 65536.0 + 0.5);
		eg->sb_pfc_shift = (uint8_t)__builtin_ctz(b->pfc_divisor ? b->pfc_divisor : 1);
		eg->sb_xon_off = b->xon_offset_kb * 1024u;
		eg->sb_batch = RTR_EG_SB_BATCH;
		/* 0 (auto) counts bytes: rocetor resolves auto before this
		 * (app/budget.c: RTR_BUFFER_CELL_AUTO), the simulator keeps it. */
		eg->sb_cell = b->cell_bytes ? b->cell_bytes : 1;
	}
	for (unsigned int i = 0; i < cfg->n_ports; i++) {
		const struct rtr_port_cfg *pc = &cfg->ports[i];

		eg->port[pc->port] = eport_create(eg, pc, max_pkts, socket);
		if (eg->port[pc->port] == NULL) {
			rtr_egress_free(eg);
			return NULL;
		}
	}
	return eg;
}

void
rtr_egress_free(struct rtr_egress *eg)
{
	if (eg == NULL)
		return;
	/* The pool bytes this worker still counted (its packets are freed by
	 * the caller's flush or are lost with it). */
	if (eg->sb_delta != 0)
		eg_sb_flush(eg);
	for (unsigned int p = 0; p < RTR_MAX_PORTS; p++)
		eport_free(eg->port[p], eg->rte_mem);
	eg_free(eg, eg->rte_mem);
}

uint32_t
rtr_egress_queue_bytes(const void *arg, uint16_t port)
{
	const struct rtr_egress *eg = arg;
	const struct rtr_eport *ep;
	uint32_t b = 0;

	if (port >= RTR_MAX_PORTS || (ep = eg->port[port]) == NULL)
		return 0;
	for (unsigned int c = 0; c < ep->n_classes; c++)
		b += ep->cq[c].bytes;
	return b;
}

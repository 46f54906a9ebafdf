/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_ip.h>
#include <rte_malloc.h>

#include "rtr_cksum.h"
#include "rtr_egress.h"
#include "rtr_mbuf.h"
#include "rtr_parse.h"

const char *const rtr_eg_counter_names[RTR_EGC_MAX] = {
#define RTR_EG_NAME(n, d) #n,
		RTR_EG_CLASS_COUNTERS(RTR_EG_NAME)
#undef RTR_EG_NAME
};
const char *const rtr_eg_counter_help[RTR_EGC_MAX] = {
#define RTR_EG_HELP(n, d) d,
		RTR_EG_CLASS_COUNTERS(RTR_EG_HELP)
#undef RTR_EG_HELP
};

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

/* Wire time of a frame of len bytes (no FCS) on the port's clock, ps: the
 * frame padded to 60 bytes, FCS, preamble and gap. */
static inline uint64_t
frame_ps(const struct rtr_eg_shared_port *sp, uint32_t len)
{
	if (len < 60)
		len = 60;
	return ((uint64_t)(len + RTR_EG_FRAME_OVERHEAD) * sp->ps_per_byte_q10) >> 10;
}

uint64_t
rtr_egress_ring_bound_ns(const struct rtr_egress_shared *sh, uint16_t port, uint32_t frame_len,
		uint32_t ctrl_len)
{
	const struct rtr_eg_shared_port *sp;

	if (port >= RTR_MAX_PORTS || !sh->port[port].paced)
		return 0;
	sp = &sh->port[port];
	return (sp->ahead_ps + frame_ps(sp, frame_len) + frame_ps(sp, ctrl_len) + 999) / 1000;
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

static unsigned int
n_hwq(const struct rtr_qos_cfg *q)
{
	return q->hw_queues == 0 ? 1u : RTE_MIN((unsigned int)q->hw_queues, RTR_MAX_HW_QUEUES);
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
	ep->n_hwq = (uint8_t)n_hwq(q);
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
	if (eg->pfc && ep->sh->paced) {
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
	ep->plain = ep->delay_ns == 0 && ep->loss_q64 == 0 && !ep->clocked && !eg->pfc;
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
		     n_hwq(q);
		/* The PFC ledger of a paced port (auto counts as 32 KB). */
		if (q->pfc.mode == RTR_PFC_SOFTWARE && pc->nic_ring_kb > 0) {
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
	for (unsigned int i = 0; i < q->n_dscp; i++)
		eg->dscp_class[q->dscp[i].dscp & 63] = q->dscp[i].class;
	for (unsigned int i = 0; i < q->n_pcp; i++)
		eg->pcp_class[q->pcp[i].pcp & 7] = q->pcp[i].class;
	eg->pfc = q->pfc.mode == RTR_PFC_SOFTWARE;
	eg->pfc_mask = q->pfc.class_mask;
	eg->xoff_bytes = q->pfc.xoff_kb * 1024;
	eg->xon_bytes = q->pfc.xon_kb * 1024;
	eg->pfc_quanta = q->pfc.quanta;
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
	for (unsigned int p = 0; p < RTR_MAX_PORTS; p++)
		eport_free(eg->port[p], eg->rte_mem);
	eg_free(eg, eg->rte_mem);
}

/* ------------------------------------------------------------ ECN */

bool
rtr_ecn_mark(uint8_t *frame, uint8_t l3, uint8_t l3_off)
{
	uint8_t *h = frame + l3_off;

	if (l3 == RTR_L3_IPV4) {
		uint8_t ecn = h[1] & 3;
		uint16_t old_w, new_w, ck;

		if (ecn != RTR_ECN_ECT0 && ecn != RTR_ECN_ECT1)
			return false;
		/* RFC 1624 incremental update of the word (version/IHL, TOS). */
		old_w = (uint16_t)(h[0] << 8 | h[1]);
		h[1] |= RTR_ECN_CE;
		new_w = (uint16_t)(h[0] << 8 | h[1]);
		ck = rtr_cksum_update16((uint16_t)(h[10] << 8 | h[11]), old_w, new_w);
		h[10] = (uint8_t)(ck >> 8);
		h[11] = (uint8_t)ck;
		return true;
	}
	if (l3 == RTR_L3_IPV6) {
		/* Traffic class = low nibble of byte 0, high nibble of byte 1;
		 * ECN is its two low bits: bits 5..4 of byte 1. */
		uint8_t ecn = (h[1] >> 4) & 3;

		if (ecn != RTR_ECN_ECT0 && ecn != RTR_ECN_ECT1)
			return false;
		h[1] |= 0x30;
		return true;
	}
	return false;
}

/* ------------------------------------------------------------ PFC */

void
rtr_pfc_build(uint8_t *buf, const uint8_t src_mac[6], uint8_t class_vector,
		const uint16_t quanta[8])
{
	static const uint8_t dst[6] = {0x01, 0x80, 0xc2, 0x00, 0x00, 0x01};

	memset(buf, 0, RTR_PFC_FRAME_LEN);
	memcpy(buf, dst, 6);
	memcpy(buf + 6, src_mac, 6);
	buf[12] = RTR_PFC_ETHERTYPE >> 8;
	buf[13] = RTR_PFC_ETHERTYPE & 0xff;
	buf[14] = RTR_PFC_OPCODE >> 8;
	buf[15] = RTR_PFC_OPCODE & 0xff;
	buf[16] = 0;
	buf[17] = class_vector;
	for (unsigned int i = 0; i < 8; i++) {
		buf[18 + 2 * i] = (uint8_t)(quanta[i] >> 8);
		buf[19 + 2 * i] = (uint8_t)quanta[i];
	}
}

/* Close the pause interval of one class at now, under the lock. */
static void
pause_account(struct rtr_eg_pfc_port *pp, unsigned int c, uint64_t now_ns)
{
	uint64_t until = atomic_load_explicit(&pp->pause_until[c], memory_order_relaxed);

	if (until > pp->pause_start[c])
		pp->paused_ns[c] += RTE_MIN(now_ns, until) - pp->pause_start[c];
	pp->pause_start[c] = now_ns;
}

int
rtr_egress_mac_control_rx(struct rtr_egress_shared *sh, uint16_t port, const uint8_t *frame,
		uint32_t len, uint64_t now_ns)
{
	struct rtr_eg_shared_port *sp;
	struct rtr_eg_pfc_port *pp;
	const struct rtr_qos_cfg *q = &sh->cfg->qos;
	uint16_t opcode;
	uint8_t vector;

	if (port >= RTR_MAX_PORTS || !sh->port[port].configured || len < 34)
		return -1;
	sp = &sh->port[port];
	pp = &sp->pfc;
	opcode = (uint16_t)(frame[14] << 8 | frame[15]);
	if (opcode == RTR_PAUSE_OPCODE) {
		rte_spinlock_lock(&pp->lock);
		pp->rx_pause++;
		rte_spinlock_unlock(&pp->lock);
		return 0;
	}
	if (opcode != RTR_PFC_OPCODE)
		return -1;
	vector = frame[17];
	rte_spinlock_lock(&pp->lock);
	pp->rx_pfc++;
	if (q->pfc.mode != RTR_PFC_SOFTWARE) {
		pp->rx_ignored++;
		rte_spinlock_unlock(&pp->lock);
		return 0;
	}
	for (unsigned int c = 0; c < q->classes; c++) {
		uint16_t quanta;
		uint64_t until;

		if (!(vector & (1u << c)) || !(q->pfc.class_mask & (1u << c)))
			continue;
		quanta = (uint16_t)(frame[18 + 2 * c] << 8 | frame[19 + 2 * c]);
		pause_account(pp, c, now_ns);
		until = now_ns + ((quanta * sp->quantum_ns_q10) >> 10);
		atomic_store_explicit(&pp->pause_until[c], until, memory_order_release);
	}
	rte_spinlock_unlock(&pp->lock);
	return 0;
}

uint64_t
rtr_egress_paused_ns(struct rtr_egress_shared *sh, uint16_t port, uint8_t cls, uint64_t now_ns)
{
	struct rtr_eg_pfc_port *pp = &sh->port[port].pfc;
	uint64_t v, until;

	rte_spinlock_lock(&pp->lock);
	until = atomic_load_explicit(&pp->pause_until[cls], memory_order_relaxed);
	v = pp->paused_ns[cls];
	if (until > pp->pause_start[cls])
		v += RTE_MIN(now_ns, until) - pp->pause_start[cls];
	rte_spinlock_unlock(&pp->lock);
	return v;
}

/* Queue a PFC frame toward port (ahead of nothing: it joins the wire FIFO,
 * which no pause or shaper holds back). */
static void
pfc_send(struct rtr_egress *eg, uint16_t port, uint8_t cls, bool xoff, uint64_t now_ns)
{
	struct rtr_eport *ep = eg->port[port];
	struct rtr_ewire *w;
	struct rte_mbuf *m;
	uint16_t quanta[8] = {0};
	uint8_t *buf;

	if (ep == NULL || eg->io.alloc == NULL)
		return;
	/* The control class's hardware queue: not behind paused data. */
	w = &ep->wire[ep->cls_hwq[ep->top]];
	if (w->tail - w->head > w->mask) {
		eg->stats->originated_dropped++;
		return;
	}
	m = eg->io.alloc(eg->io.arg);
	if (m == NULL) {
		eg->stats->originated_dropped++;
		return;
	}
	quanta[cls] = xoff ? eg->pfc_quanta : 0;
	buf = rte_pktmbuf_mtod(m, uint8_t *);
	rtr_pfc_build(buf, ep->sh->mac, (uint8_t)(1u << cls), quanta);
	m->data_len = RTR_PFC_FRAME_LEN;
	m->pkt_len = RTR_PFC_FRAME_LEN;
	memset(rtr_meta(m), 0, sizeof(struct rtr_meta));
	rtr_meta(m)->in_port = RTR_PORT_NONE;
	rtr_meta(m)->out_port = (uint8_t)port;
	rtr_eg_wire_push(w, m, now_ns + ep->delay_ns);
	eg->held++;
	eg->active |= 1u << port;
	if (xoff)
		atomic_fetch_add_explicit(&ep->sh->pfc.tx_xoff, 1, memory_order_relaxed);
	else
		atomic_fetch_add_explicit(&ep->sh->pfc.tx_xon, 1, memory_order_relaxed);
}

/* Refresh interval of an XOFF toward port: half the pause it asked for. */
static uint64_t
xoff_refresh_ns(const struct rtr_egress *eg, uint16_t port)
{
	return ((uint64_t)eg->pfc_quanta * eg->sh->port[port].quantum_ns_q10) >> 11;
}

static inline void
pfc_in_add(struct rtr_egress *eg, uint8_t in, uint8_t cls, uint32_t len, uint64_t now_ns)
{
	struct rtr_eg_pfc_port *pp;
	uint64_t bit, old;

	if (in >= RTR_MAX_PORTS || !(eg->pfc_mask & (1u << cls)))
		return;
	eg->in_bytes[in][cls] += len;
	if (eg->in_bytes[in][cls] < eg->xoff_bytes || (eg->in_xoff[in] & (1u << cls)))
		return;
	eg->in_xoff[in] |= (uint8_t)(1u << cls);
	eg->pfc_active |= 1u << in;
	eg->pfc_refresh_at[in] = now_ns + xoff_refresh_ns(eg, in);
	pp = &eg->sh->port[in].pfc;
	bit = 1ull << eg->worker;
	old = atomic_fetch_or_explicit(&pp->xoff_workers[cls], bit, memory_order_acq_rel);
	if (old == 0)
		pfc_send(eg, in, cls, true, now_ns);
}

static inline void
pfc_in_sub(struct rtr_egress *eg, uint8_t in, uint8_t cls, uint32_t len, uint64_t now_ns)
{
	struct rtr_eg_pfc_port *pp;
	uint64_t bit, old;

	if (in >= RTR_MAX_PORTS || !(eg->pfc_mask & (1u << cls)))
		return;
	eg->in_bytes[in][cls] -= len;
	if (!(eg->in_xoff[in] & (1u << cls)) || eg->in_bytes[in][cls] >= eg->xon_bytes)
		return;
	eg->in_xoff[in] &= (uint8_t) ~(1u << cls);
	if (eg->in_xoff[in] == 0)
		eg->pfc_active &= ~(1u << in);
	pp = &eg->sh->port[in].pfc;
	bit = 1ull << eg->worker;
	old = atomic_fetch_and_explicit(&pp->xoff_workers[cls], ~bit, memory_order_acq_rel);
	if (old == bit)
		pfc_send(eg, in, cls, false, now_ns);
}

void
rtr_egress_tick(struct rtr_egress *eg, uint64_t now_ns)
{
	uint32_t act = eg->pfc_active;

	while (act) {
		unsigned int in = (unsigned int)__builtin_ctz(act);

		act &= act - 1;
		if (now_ns < eg->pfc_refresh_at[in])
			continue;
		eg->pfc_refresh_at[in] = now_ns + xoff_refresh_ns(eg, (uint16_t)in);
		for (unsigned int c = 0; c < eg->n_classes; c++)
			if (eg->in_xoff[in] & (1u << c))
				pfc_send(eg, (uint16_t)in, (uint8_t)c, true, now_ns);
	}
}

/* ------------------------------------------------------------ admission */

static inline void
cq_push(struct rtr_egress *eg, struct rtr_eport *ep, uint8_t cls, struct rte_mbuf *m, uint32_t len)
{
	struct rtr_cq *q = &ep->cq[cls];

	q->slot[q->tail & q->mask] = m;
	q->tail++;
	q->bytes += len;
	ep->nonempty |= (uint8_t)(1u << cls);
	ep->c[cls][RTR_EGC_enqueued]++;
	if (q->bytes > ep->c[cls][RTR_EGC_max_depth])
		ep->c[cls][RTR_EGC_max_depth] = q->bytes;
	eg->held++;
	eg->active |= 1u << ep->port;
}

/*
 * Cut a RoCE data packet to its headers: Ethernet .. BTH and the LB
 * header when present (io.trim_lb_hdr_len bytes). Only ICRC-masked fields change unless
 * trim_update_lengths (then IP/UDP lengths and the IPv4 checksum follow the
 * new size). Returns false if the packet cannot be trimmed.
 */
static bool
trim_packet(struct rtr_egress *eg, struct rte_mbuf *m)
{
	struct rtr_meta *meta = rtr_meta(m);
	uint8_t *f = rte_pktmbuf_mtod(m, uint8_t *);
	uint32_t keep;

	if (!rtr_meta_is_roce_data(meta))
		return false;
	keep = meta->l4_off + 8u + RTR_BTH_LEN +
	       ((meta->flags & RTR_MF_LB_HDR) ? eg->io.trim_lb_hdr_len : 0u);
	if (keep >= m->pkt_len || m->nb_segs != 1)
		return false;
	m->data_len = (uint16_t)keep;
	m->pkt_len = keep;
	meta->flags |= RTR_MF_TRIMMED;
	meta->ext = 0;
	if (eg->trim_dscp >= 0) {
		uint8_t *h = f + meta->l3_off;

		if (meta->l3 == RTR_L3_IPV4) {
			h[1] = (uint8_t)(eg->trim_dscp << 2 | (h[1] & 3));
		} else {
			uint8_t tc = (uint8_t)(eg->trim_dscp << 2 | ((h[1] >> 4) & 3));

			h[0] = (uint8_t)((h[0] & 0xf0) | (tc >> 4));
			h[1] = (uint8_t)((h[1] & 0x0f) | (tc << 4));
		}
		meta->tos = (uint8_t)(eg->trim_dscp << 2 | (meta->tos & 3));
	}
	if (eg->trim_update_lengths) {
		uint8_t *h = f + meta->l3_off;
		uint8_t *udp = f + meta->l4_off;
		uint16_t udp_len = (uint16_t)(keep - meta->l4_off);

		udp[4] = (uint8_t)(udp_len >> 8);
		udp[5] = (uint8_t)udp_len;
		udp[6] = udp[7] = 0;
		if (meta->l3 == RTR_L3_IPV4) {
			uint16_t ip_len = (uint16_t)(keep - meta->l3_off);

			h[2] = (uint8_t)(ip_len >> 8);
			h[3] = (uint8_t)ip_len;
			h[10] = h[11] = 0;
			uint16_t ck = rte_ipv4_cksum((const struct rte_ipv4_hdr *)h);

			memcpy(h + 10, &ck, 2);
		} else {
			uint16_t pl = (uint16_t)(keep - meta->l4_off);

			h[4] = (uint8_t)(pl >> 8);
			h[5] = (uint8_t)pl;
		}
	} else if (eg->trim_dscp >= 0 && meta->l3 == RTR_L3_IPV4) {
		uint8_t *h = f + meta->l3_off;

		h[10] = h[11] = 0;
		uint16_t ck = rte_ipv4_cksum((const struct rte_ipv4_hdr *)h);

		memcpy(h + 10, &ck, 2);
	}
	return true;
}

static inline int
admit(struct rtr_egress *eg, uint16_t port, struct rte_mbuf *m, uint8_t cls, uint64_t now_ns,
		bool held)
{
	struct rtr_eport *ep = eg->port[port];
	struct rtr_cq *q;
	uint32_t len = m->pkt_len;

	if (unlikely(ep == NULL || cls >= eg->n_classes)) {
		eg->io.drop(eg->io.arg, m, RTR_DROP_PORT_DOWN);
		return -1;
	}
	/*
	 * Fast path: on a port without shaping, delay, loss or PFC whose class
	 * queues are empty and whose staged burst has room, the scheduler
	 * would move this packet to the staged burst at its next pass, with
	 * nothing queued behind it for RED to see. Do it now; the counters
	 * are those of the queue it went through.
	 */
	if (rtr_eg_direct_ok(eg, ep, cls)) {
		rtr_eg_direct(eg, ep, m, cls, now_ns);
		return 0;
	}
	q = &ep->cq[cls];
	if (unlikely((!held && q->bytes + len > q->limit) || q->tail - q->head > q->mask)) {
		uint8_t trim_cls = cls;

		if (eg->trim && cls != ep->top && trim_packet(eg, m)) {
			struct rtr_cq *t = &ep->cq[ep->top];

			len = m->pkt_len;
			ep->c[trim_cls][RTR_EGC_trimmed]++;
			if (t->bytes + len <= t->limit && t->tail - t->head <= t->mask) {
				cls = ep->top;
				goto push;
			}
		}
		ep->c[trim_cls][RTR_EGC_drop_queue_full]++;
		eg->io.drop(eg->io.arg, m, RTR_DROP_QUEUE_FULL);
		return -1;
	}
push:
	cq_push(eg, ep, cls, m, len);
	if (eg->pfc)
		pfc_in_add(eg, rtr_meta(m)->in_port, cls, len, now_ns);
	return 0;
}

int
rtr_egress_enqueue(struct rtr_egress *eg, uint16_t port, struct rte_mbuf *m, uint8_t cls,
		uint64_t now_ns)
{
	return admit(eg, port, m, cls, now_ns, false);
}

int
rtr_egress_enqueue_held(struct rtr_egress *eg, uint16_t port, struct rte_mbuf *m, uint8_t cls,
		uint64_t now_ns)
{
	return admit(eg, port, m, cls, now_ns, true);
}

/* ------------------------------------------------------------ scheduler */

/* Classes that may send now: non-empty and not paused by PFC. */
static inline uint8_t
eligible_mask(const struct rtr_egress *eg, const struct rtr_eport *ep, uint64_t now_ns)
{
	uint8_t mask = ep->nonempty;

	if (eg->pfc) {
		uint8_t pm = mask & eg->pfc_mask;

		while (pm) {
			unsigned int c = (unsigned int)__builtin_ctz(pm);

			pm &= (uint8_t)(pm - 1);
			if (now_ns < atomic_load_explicit(&ep->sh->pfc.pause_until[c],
						     memory_order_acquire))
				mask &= (uint8_t) ~(1u << c);
		}
	}
	return mask;
}

/* Which class sends next, given the eligible mask (non-zero). */
static inline unsigned int
pick_class(struct rtr_eport *ep, uint8_t elig)
{
	if (likely(ep->simple_prio))
		return 31u - (unsigned int)__builtin_clz(elig);
	for (unsigned int l = 0; l < ep->n_levels; l++) {
		uint8_t in = elig & ep->level_mask[l];

		if (in == 0)
			continue;
		if (ep->level_n[l] == 1)
			return ep->level_cls[l][0];
		/* DWRR: a class keeps the turn while its head fits its deficit. */
		for (;;) {
			unsigned int c = ep->level_cls[l][ep->rr[l]];
			struct rtr_cq *q = &ep->cq[c];

			if (in & (1u << c)) {
				if (ep->fresh[l]) {
					q->deficit += (int32_t)q->quantum;
					ep->fresh[l] = false;
				}
				if ((int32_t)q->slot[q->head & q->mask]->pkt_len <= q->deficit)
					return c;
			} else if (!(ep->nonempty & (1u << c))) {
				q->deficit = 0;
			}
			ep->rr[l] = (uint8_t)((ep->rr[l] + 1) % ep->level_n[l]);
			ep->fresh[l] = true;
		}
	}
	return 0; /* not reached: elig is non-zero */
}

/* ------------------------------------------------------------ the NIC ring */

/* Software PFC on a paced port: a frame handed to the NIC still counts
 * toward its ingress port's XOFF until its last bit has left by the link
 * clock (end_ps). A full ledger releases at once (never blocks). */
static inline void
ledger_push(struct rtr_egress *eg, struct rtr_eport *ep, uint8_t in, uint8_t cls, uint32_t len,
		uint64_t end_ps, uint64_t now_ns)
{
	struct rtr_eledger *l = &ep->ledger;
	uint32_t i;

	if (l->tail - l->head > l->mask) {
		pfc_in_sub(eg, in, cls, len, now_ns);
		return;
	}
	i = l->tail++ & l->mask;
	l->end_ps[i] = end_ps;
	l->len[i] = len;
	l->in[i] = in;
	l->cls[i] = cls;
}

/* Release the ledger's frames that have left by now (all with force). */
static void
ledger_release(struct rtr_egress *eg, struct rtr_eport *ep, uint64_t now_ns, bool force)
{
	struct rtr_eledger *l = &ep->ledger;
	uint64_t now_ps = now_ns * 1000;

	while (l->head != l->tail) {
		uint32_t i = l->head & l->mask;

		if (!force && l->end_ps[i] > now_ps)
			break;
		l->head++;
		pfc_in_sub(eg, l->in[i], l->cls[i], l->len[i], now_ns);
	}
}

static inline bool
ledger_empty(const struct rtr_eport *ep)
{
	return ep->ledger.head == ep->ledger.tail;
}

/*
 * A packet leaves its class queue q (class c) for the wire of its hardware
 * queue: PFC accounting (now, or at end_ps through the ledger), the
 * departure hook at dep_ns, RED on depth (the class bytes it left behind
 * plus the ring bytes the NIC holds ahead of it), the loss impairment.
 * Returns false if it was lost.
 */
static inline bool
depart_one(struct rtr_egress *eg, struct rtr_eport *ep, unsigned int c, struct rte_mbuf *m,
		uint64_t now_ns, uint64_t dep_ns, uint32_t depth, uint64_t end_ps, bool force)
{
	struct rtr_cq *q = &ep->cq[c];
	struct rtr_meta *meta = rtr_meta(m);
	uint32_t len = m->pkt_len;

	if (eg->pfc) {
		if (ep->ledger.end_ps != NULL && !force)
			ledger_push(eg, ep, meta->in_port, (uint8_t)c, len, end_ps, now_ns);
		else
			pfc_in_sub(eg, meta->in_port, (uint8_t)c, len, now_ns);
	}
	/* It departs now, or when the NIC ring ahead of it has drained: the
	 * delay line is the link after it. */
	rtr_eg_depart(eg, m, meta, dep_ns, force);
	if (q->ecn && depth > q->kmin && rtr_red_decide_depth(q, depth, &ep->red_rng) &&
			rtr_ecn_mark(rte_pktmbuf_mtod(m, uint8_t *), meta->l3, meta->l3_off)) {
		meta->tos |= RTR_ECN_CE;
		ep->c[c][RTR_EGC_ecn_marked]++;
		eg->stats->port[ep->port].ecn_marked++;
	}
	if (unlikely(ep->loss_q64) && !force &&
			(ep->loss_q64 == UINT64_MAX || rtr_eg_rand(&ep->loss_rng) < ep->loss_q64)) {
		ep->c[c][RTR_EGC_drop_loss]++;
		eg->held--;
		eg->io.drop(eg->io.arg, m, RTR_DROP_IMPAIR_LOSS);
		return false;
	}
	rtr_eg_wire_push(&ep->wire[ep->cls_hwq[c]], m, force ? 0 : now_ns + ep->delay_ns);
	return true;
}

/*
 * The classes whose hardware queue can take frames in this pass, and the
 * room of each queue's wire (room[h]). Without a delay line a wire is only
 * the NIC staging burst: at most max frames wait there, so a control packet
 * never queues behind more than one staged burst. A queue the NIC refused
 * (blocked) or that holds more than desc_cap frames in the NIC (io.nic_busy)
 * is closed.
 */
static inline uint8_t
open_classes(struct rtr_egress *eg, struct rtr_eport *ep, bool force, uint32_t max,
		uint32_t room[RTR_MAX_HW_QUEUES])
{
	uint8_t open = 0;

	for (unsigned int h = 0; h < ep->n_hwq; h++) {
		struct rtr_ewire *w = &ep->wire[h];
		uint32_t used = w->tail - w->head;
		uint32_t r = w->mask + 1 - RTR_EG_WIRE_RESERVE;

		room[h] = 0;
		if (!(ep->nonempty & ep->hwq_cls[h]) || (!force && w->blocked))
			continue;
		if (ep->delay_ns == 0 && !force && r > max)
			r = max;
		if (used >= r)
			continue;
		if (!force && ep->sh->desc_cap && eg->io.nic_busy != NULL &&
				eg->io.nic_busy(eg->io.arg, ep->port, (uint16_t)h,
						ep->sh->desc_cap)) {
			ep->desc_holds++;
			continue;
		}
		room[h] = RTE_MIN(r - used, max);
		open |= ep->hwq_cls[h];
	}
	return open;
}

/* Take the head of class c (the scheduler picked it). */
static inline struct rte_mbuf *
cq_pop(struct rtr_eport *ep, unsigned int c, uint8_t *elig)
{
	struct rtr_cq *q = &ep->cq[c];
	struct rte_mbuf *m = q->slot[q->head & q->mask];
	uint32_t len = m->pkt_len;

	q->head++;
	q->bytes -= len;
	q->deficit -= (int32_t)len;
	if (q->head == q->tail) {
		ep->nonempty &= (uint8_t) ~(1u << c);
		*elig &= (uint8_t) ~(1u << c);
		q->deficit = 0;
	}
	ep->c[c][RTR_EGC_sent]++;
	ep->c[c][RTR_EGC_sent_bytes] += len;
	return m;
}

/*
 * Move up to max packets from the class queues to the wires. On a clocked
 * port (shaped, or paced at the link rate: the bounded NIC ring) a frame
 * goes only while the link clock is at most ahead_ps ahead of now; the
 * burst takes the clock at once (one atomic for the burst, shared by the
 * workers of the port), and each frame learns when it starts on the wire.
 */
static unsigned int
schedule(struct rtr_egress *eg, struct rtr_eport *ep, uint64_t now_ns, bool force, uint32_t max)
{
	struct rtr_eg_shared_port *sp = ep->sh;
	uint32_t room[RTR_MAX_HW_QUEUES];
	struct rte_mbuf *bm[RTR_BURST];
	uint64_t bstart[RTR_BURST];
	uint32_t bleft[RTR_BURST]; /* class bytes behind it */
	uint8_t bc[RTR_BURST];
	bool clock = ep->clocked && !force;
	uint64_t now_ps = now_ns * 1000, base = 0, limit = 0, cum = 0;
	unsigned int moved = 0, nb = 0;
	uint8_t elig;

	if (ep->nonempty == 0)
		return 0;
	elig = open_classes(eg, ep, force, max, room);
	if (elig == 0)
		return 0;
	elig &= force ? ep->nonempty : eligible_mask(eg, ep, now_ns);
	if (clock) {
		uint64_t next = atomic_load_explicit(&sp->next_ps, memory_order_relaxed);

		base = next > now_ps ? next : now_ps;
		limit = now_ps + sp->ahead_ps;
		if (max > RTR_BURST)
			max = RTR_BURST;
	}
	while (elig && moved < max) {
		unsigned int c = pick_class(ep, elig);
		uint8_t h = ep->cls_hwq[c];
		struct rte_mbuf *m;

		if (clock && base + cum > limit) {
			ep->ring_holds += sp->paced;
			break;
		}
		m = cq_pop(ep, c, &elig);
		if (clock) {
			bm[nb] = m;
			bc[nb] = (uint8_t)c;
			bleft[nb] = ep->cq[c].bytes;
			bstart[nb++] = cum;
			cum += frame_ps(sp, m->pkt_len);
			moved++;
		} else if (depart_one(eg, ep, c, m, now_ns, now_ns, ep->cq[c].bytes, 0, force)) {
			moved++;
		} else {
			continue;
		}
		if (--room[h] == 0)
			elig &= (uint8_t)~ep->hwq_cls[h];
	}
	if (nb > 0) {
		uint64_t cur = atomic_load_explicit(&sp->next_ps, memory_order_relaxed), b;

		do {
			b = cur > now_ps ? cur : now_ps;
		} while (!atomic_compare_exchange_weak_explicit(&sp->next_ps, &cur, b + cum,
				memory_order_relaxed, memory_order_relaxed));
		if (b + bstart[nb - 1] - now_ps > ep->ring_max_ps)
			ep->ring_max_ps = b + bstart[nb - 1] - now_ps;
		for (unsigned int i = 0; i < nb; i++) {
			uint64_t start = b + bstart[i];
			uint32_t ring = 0;
			uint64_t dep = now_ns;

			if (sp->paced) {
				ring = (uint32_t)(((start - now_ps) << 10) / sp->ps_per_byte_q10);
				dep = start / 1000;
			}
			depart_one(eg, ep, bc[i], bm[i], now_ns, dep, bleft[i] + ring,
					start + frame_ps(sp, bm[i]->pkt_len), false);
		}
	}
	return moved;
}

/* Hand due frames of hardware queue h to the NIC. Returns how many it took. */
static unsigned int
wire_tx(struct rtr_egress *eg, struct rtr_eport *ep, unsigned int h, uint64_t now_ns, bool force)
{
	struct rte_mbuf *burst[RTR_BURST];
	struct rtr_lcore_stats *st = eg->stats;
	struct rtr_ewire *w = &ep->wire[h];
	unsigned int total = 0;

	while (w->head != w->tail) {
		uint16_t n = 0, sent;
		uint64_t bytes = 0;
		uint32_t i = w->head;

		while (n < RTR_BURST && i != w->tail && (force || w->due[i & w->mask] <= now_ns)) {
			burst[n++] = w->slot[i & w->mask];
			i++;
		}
		if (n == 0)
			break;
		/* Counters first: sent mbufs belong to the PMD afterwards. */
		unsigned int orig = 0;

		for (uint16_t k = 0; k < n; k++) {
			bytes += burst[k]->pkt_len;
			orig += rtr_meta(burst[k])->in_port == RTR_PORT_NONE;
		}
		sent = eg->io.tx(eg->io.arg, ep->port, (uint16_t)h, burst, n);
		if (sent < n) {
			/* Unsent frames stay at the head, in order. */
			for (uint16_t k = sent; k < n; k++) {
				bytes -= burst[k]->pkt_len;
				orig -= rtr_meta(burst[k])->in_port == RTR_PORT_NONE;
			}
		}
		w->head += sent;
		w->blocked = sent < n;
		eg->held -= sent;
		st->port[ep->port].tx_packets += sent;
		st->port[ep->port].tx_bytes += bytes;
		st->originated += orig;
		st->forwarded += sent - orig;
		total += sent;
		if (sent < n)
			break;
	}
	return total;
}

static inline bool
wires_empty(const struct rtr_eport *ep)
{
	for (unsigned int h = 0; h < ep->n_hwq; h++)
		if (ep->wire[h].head != ep->wire[h].tail)
			return false;
	return true;
}

static inline unsigned int
service_port(struct rtr_egress *eg, struct rtr_eport *ep, uint64_t now_ns)
{
	unsigned int sent = 0, blocked = 0, with_work = 0;

	if (unlikely(!ledger_empty(ep)))
		ledger_release(eg, ep, now_ns, false);
	/* A NIC that refused frames last time gets them again first; while it
	 * still refuses, nothing more leaves the classes of that queue, so the
	 * backlog (and the wait of a later control packet) stays in the
	 * classes. */
	for (unsigned int h = 0; h < ep->n_hwq; h++) {
		struct rtr_ewire *w = &ep->wire[h];

		if (w->blocked)
			sent += wire_tx(eg, ep, h, now_ns, false);
		with_work += w->head != w->tail || (ep->nonempty & ep->hwq_cls[h]);
		blocked += w->blocked;
	}
	/* Up to four bursts per call, while the NIC keeps taking them. The
	 * staged burst may already be full (packets that took the fast path
	 * of admit()): then the first pass only sends it. */
	for (unsigned int k = 0; k < 4 && (blocked == 0 || blocked < with_work); k++) {
		unsigned int moved = schedule(eg, ep, now_ns, false, eg->wire_burst);
		unsigned int tx = 0;

		blocked = 0;
		for (unsigned int h = 0; h < ep->n_hwq; h++) {
			if (!ep->wire[h].blocked)
				tx += wire_tx(eg, ep, h, now_ns, false);
			blocked += ep->wire[h].blocked;
		}
		sent += tx;
		if ((blocked && ep->n_hwq == 1) || ep->nonempty == 0 || (moved == 0 && tx == 0))
			break;
	}
	if (ep->nonempty == 0 && wires_empty(ep) && ledger_empty(ep))
		eg->active &= ~(1u << ep->port);
	return sent;
}

unsigned int
rtr_egress_service_port(struct rtr_egress *eg, uint16_t port, uint64_t now_ns)
{
	if (port >= RTR_MAX_PORTS || eg->port[port] == NULL)
		return 0;
	return service_port(eg, eg->port[port], now_ns);
}

unsigned int
rtr_egress_service(struct rtr_egress *eg, uint64_t now_ns)
{
	uint32_t act = eg->active;
	unsigned int sent = 0;

	while (act) {
		unsigned int p = (unsigned int)__builtin_ctz(act);

		act &= act - 1;
		sent += service_port(eg, eg->port[p], now_ns);
	}
	return sent;
}

/*
 * Drop everything port ep holds, class queues and wire, under reason why;
 * class_counter (an RTR_EGC_*, or RTR_EGC_MAX for none) counts the class
 * drops. Returns the number dropped.
 */
static unsigned int
drop_held(struct rtr_egress *eg, struct rtr_eport *ep, enum rtr_drop_reason why,
		unsigned int class_counter)
{
	unsigned int n = 0;

	for (unsigned int c = 0; c < ep->n_classes; c++) {
		struct rtr_cq *q = &ep->cq[c];

		while (q->head != q->tail) {
			struct rte_mbuf *m = q->slot[q->head & q->mask];

			q->head++;
			q->bytes -= m->pkt_len;
			if (eg->pfc)
				pfc_in_sub(eg, rtr_meta(m)->in_port, (uint8_t)c, m->pkt_len, 0);
			if (class_counter < RTR_EGC_MAX)
				ep->c[c][class_counter]++;
			eg->io.drop(eg->io.arg, m, why);
			n++;
		}
		q->deficit = 0;
	}
	ep->nonempty = 0;
	/* Frames in the NIC count no more toward an XOFF (an XON this queues
	 * on this port is dropped below with the rest). */
	ledger_release(eg, ep, 0, true);
	for (unsigned int h = 0; h < ep->n_hwq; h++) {
		struct rtr_ewire *w = &ep->wire[h];

		w->blocked = false;
		while (w->head != w->tail) {
			eg->io.drop(eg->io.arg, w->slot[w->head & w->mask], why);
			w->head++;
			n++;
		}
	}
	eg->held -= n;
	eg->active &= ~(1u << ep->port);
	return n;
}

unsigned int
rtr_egress_port_down(struct rtr_egress *eg, uint16_t port)
{
	struct rtr_eport *ep = port < RTR_MAX_PORTS ? eg->port[port] : NULL;

	return ep == NULL ? 0 : drop_held(eg, ep, RTR_DROP_PORT_DOWN, RTR_EGC_drop_port_down);
}

static unsigned int
flush_port(struct rtr_egress *eg, struct rtr_eport *ep, unsigned int max_tries)
{
	unsigned int sent = 0, tries = 0;

	ledger_release(eg, ep, 0, true);
	while (ep->nonempty || !wires_empty(ep)) {
		unsigned int s = 0;

		schedule(eg, ep, 0, true, UINT32_MAX);
		for (unsigned int h = 0; h < ep->n_hwq; h++)
			s += wire_tx(eg, ep, h, 0, true);
		sent += s;
		if (s == 0 && ++tries >= max_tries)
			break;
	}
	/* What the NIC would not take is dropped, counted. */
	drop_held(eg, ep, RTR_DROP_SHUTDOWN, RTR_EGC_MAX);
	return sent;
}

unsigned int
rtr_egress_flush_all(struct rtr_egress *eg, unsigned int max_tries)
{
	unsigned int sent = 0;

	/* Draining one port can queue an XON on another (PFC): repeat until
	 * every port is empty; the XONs themselves queue nothing further. */
	for (unsigned int pass = 0; pass < 4 && eg->active; pass++) {
		uint32_t act = eg->active;

		while (act) {
			unsigned int p = (unsigned int)__builtin_ctz(act);

			act &= act - 1;
			if (eg->port[p] != NULL)
				sent += flush_port(eg, eg->port[p], max_tries);
		}
	}
	return sent;
}

void
rtr_egress_counters_add(
		const struct rtr_egress *eg, uint16_t port, uint8_t cls, uint64_t acc[RTR_EGC_MAX])
{
	const struct rtr_eport *ep = port < RTR_MAX_PORTS ? eg->port[port] : NULL;

	if (ep == NULL || cls >= ep->n_classes)
		return;
	for (unsigned int i = 0; i < RTR_EGC_MAX; i++) {
		if (i == RTR_EGC_max_depth)
			acc[i] = RTE_MAX(acc[i], ep->c[cls][i]);
		else
			acc[i] += ep->c[cls][i];
	}
}

/* ------------------------------------------------------------ reports */

void
rtr_egress_report(struct rtr_egress *const *egs, unsigned int n, struct rtr_egress_shared *sh,
		uint16_t port, uint64_t now_ns, struct rtr_eg_port_report *r)
{
	struct rtr_eg_pfc_port *pp;

	memset(r, 0, sizeof(*r));
	if (port >= RTR_MAX_PORTS || !sh->port[port].configured)
		return;
	r->n_classes = sh->cfg->qos.classes;
	for (unsigned int i = 0; i < n; i++) {
		if (egs[i] == NULL || egs[i]->port[port] == NULL)
			continue;
		for (unsigned int c = 0; c < r->n_classes; c++) {
			rtr_egress_counters_add(egs[i], port, (uint8_t)c, r->c[c]);
			r->depth[c] += egs[i]->port[port]->cq[c].bytes;
		}
	}
	for (unsigned int c = 0; c < r->n_classes; c++)
		r->paused_ns[c] = rtr_egress_paused_ns(sh, port, (uint8_t)c, now_ns);
	pp = &sh->port[port].pfc;
	rte_spinlock_lock(&pp->lock);
	r->rx_pfc = pp->rx_pfc;
	r->rx_pause = pp->rx_pause;
	r->rx_ignored = pp->rx_ignored;
	rte_spinlock_unlock(&pp->lock);
	r->tx_xoff = atomic_load_explicit(&pp->tx_xoff, memory_order_relaxed);
	r->tx_xon = atomic_load_explicit(&pp->tx_xon, memory_order_relaxed);
	r->paced = sh->port[port].paced;
	r->ring_bytes = sh->port[port].ring_bytes;
	r->desc_cap = sh->port[port].desc_cap;
	r->hw_queues = (uint8_t)n_hwq(&sh->cfg->qos);
	for (unsigned int i = 0; i < n; i++) {
		const struct rtr_eport *ep = egs[i] != NULL ? egs[i]->port[port] : NULL;

		if (ep == NULL)
			continue;
		r->ring_holds += ep->ring_holds;
		r->desc_holds += ep->desc_holds;
		r->ring_max_ns = RTE_MAX(r->ring_max_ns, ep->ring_max_ps / 1000);
	}
}

void
rtr_egress_report_json(struct rtr_json *w, const struct rtr_eg_port_report *r)
{
	rtr_json_key(w, "classes");
	rtr_json_arr(w);
	for (unsigned int c = 0; c < r->n_classes; c++) {
		rtr_json_obj(w);
		rtr_json_kv_u64(w, "class", c);
		for (unsigned int i = 0; i < RTR_EGC_MAX; i++)
			rtr_json_kv_u64(w, rtr_eg_counter_names[i], r->c[c][i]);
		rtr_json_kv_u64(w, "depth", r->depth[c]);
		rtr_json_kv_u64(w, "pfc_paused_ns", r->paused_ns[c]);
		rtr_json_obj_end(w);
	}
	rtr_json_arr_end(w);
	rtr_json_key(w, "pfc");
	rtr_json_obj(w);
	rtr_json_kv_u64(w, "rx_pfc", r->rx_pfc);
	rtr_json_kv_u64(w, "rx_pause", r->rx_pause);
	rtr_json_kv_u64(w, "rx_ignored", r->rx_ignored);
	rtr_json_kv_u64(w, "tx_xoff", r->tx_xoff);
	rtr_json_kv_u64(w, "tx_xon", r->tx_xon);
	rtr_json_obj_end(w);
	rtr_json_key(w, "nic_ring");
	rtr_json_obj(w);
	rtr_json_kv_bool(w, "paced", r->paced);
	rtr_json_kv_u64(w, "limit_bytes", r->ring_bytes);
	rtr_json_kv_u64(w, "desc_cap", r->desc_cap);
	rtr_json_kv_u64(w, "hw_queues", r->hw_queues);
	rtr_json_kv_u64(w, "ring_holds", r->ring_holds);
	rtr_json_kv_u64(w, "desc_holds", r->desc_holds);
	rtr_json_kv_u64(w, "max_ahead_ns", r->ring_max_ns);
	rtr_json_obj_end(w);
}

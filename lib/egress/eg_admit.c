/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * Admission: the fast path to the staged burst, then the admission policy
 * (eg_internal.h: its test inline per packet, its overflow handler here)
 * and trimming; an admitted packet joins its class FIFO.
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <rte_common.h>
#include <rte_ip.h>
#include <rte_mbuf.h>

#include "eg_internal.h"
#include "rtr_egress.h"
#include "rtr_mbuf.h"
#include "rtr_parse.h"

/* A packet of len bytes joins the pool (queued or held): its charge, and
 * the peak as this worker sees it. */
static inline void
sb_take(struct rtr_egress *eg, uint32_t len)
{
	uint64_t u;

	eg_sb_move(eg, eg_sb_charge(eg, len));
	u = eg_sb_used(eg);
	if (u > eg->sb_peak)
		eg->sb_peak = u;
}

static inline void
cq_push(struct rtr_egress *eg, struct rtr_eport *ep, uint8_t cls, struct rte_mbuf *m, uint32_t len)
{
	struct rtr_cq *q = &ep->cq[cls];

	q->slot[q->tail & q->mask] = m;
	q->tail++;
	q->bytes += len;
	if (eg->admit == EG_ADMIT_SHARED)
		sb_take(eg, len);
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

/*
 * EG_ADMIT_STATIC's overflow: trim a RoCE data packet into the control
 * class if qos.trim and the control class has room, else tail drop. Both
 * are counted in the packet's own class.
 */
static int
static_overflow(struct rtr_egress *eg, struct rtr_eport *ep, struct rte_mbuf *m, uint8_t cls,
		uint64_t now_ns)
{
	(void)now_ns;
	if (eg->trim && cls != ep->top && trim_packet(eg, m)) {
		ep->c[cls][RTR_EGC_trimmed]++;
		if (eg_admit_fits(eg, &ep->cq[ep->top], m->pkt_len, false))
			return ep->top;
	}
	ep->c[cls][RTR_EGC_drop_queue_full]++;
	eg->io.drop(eg->io.arg, m, RTR_DROP_QUEUE_FULL);
	return -1;
}

/*
 * EG_ADMIT_SHARED's overflow: a packet of a PFC class is never dropped
 * while its ingress port's headroom (headroom_kb: what arrives after the
 * XOFF) and the whole pool have room: the ingress is XOFFed now if it was
 * not yet (the buffer is short: its bytes passed the queue's limit before
 * they reached free / pfc_divisor, or free shrank since its last packet),
 * and the packet is queued in the headroom. Anything else as static
 * (trim, or tail drop).
 */
static int
shared_overflow(struct rtr_egress *eg, struct rtr_eport *ep, struct rte_mbuf *m, uint8_t cls,
		uint64_t now_ns)
{
	uint8_t in = rtr_meta(m)->in_port;
	uint32_t len = m->pkt_len;
	const struct rtr_cq *q = &ep->cq[cls];

	if (eg->lossless && in < RTR_MAX_PORTS && (eg->pfc_mask >> cls & 1) &&
			eg->in_hdrm[in] + len <= eg->sb_hdrm &&
			eg_sb_used(eg) + eg_sb_charge(eg, len) <= eg->sb_size &&
			q->tail - q->head <= q->mask) {
		if (!(eg->in_xoff[in] >> cls & 1))
			eg_pfc_xoff(eg, in, cls, now_ns);
		eg->in_hdrm[in] += len;
		return cls;
	}
	return static_overflow(eg, ep, m, cls, now_ns);
}

/* The admission policies, by enum eg_admit (eg_internal.h says how to add
 * one). */
const struct eg_admit_ops eg_admit_policies[EG_ADMIT_MAX] = {
		[EG_ADMIT_STATIC] = {.name = "static", .overflow = static_overflow},
		[EG_ADMIT_SHARED] = {.name = "shared", .overflow = shared_overflow},
};

static inline int
admit(struct rtr_egress *eg, uint16_t port, struct rte_mbuf *m, uint8_t cls, uint64_t now_ns,
		bool held)
{
	struct rtr_eport *ep = eg->port[port];
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
	/* The policy's test inline; its overflow handler only for a packet
	 * that does not fit. */
	if (unlikely(!eg_admit_fits(eg, &ep->cq[cls], len, held))) {
		int to = eg_admit_policies[eg->admit].overflow(eg, ep, m, cls, now_ns);

		if (to < 0)
			return -1;
		cls = (uint8_t)to;
		len = m->pkt_len;
	}
	cq_push(eg, ep, cls, m, len);
	if (eg->lossless)
		eg_pfc_in_add(eg, rtr_meta(m)->in_port, cls, len, now_ns);
	return 0;
}

int
rtr_egress_enqueue(struct rtr_egress *eg, uint16_t port, struct rte_mbuf *m, uint8_t cls,
		uint64_t now_ns)
{
	return admit(eg, port, m, cls, now_ns, false);
}

/* ------------------------------------------------------------ held packets */

/* m's bytes in its ingress's PFC count, if it is on a PFC class. */
static inline bool
held_pfc(const struct rtr_egress *eg, const struct rtr_meta *meta, uint8_t cls)
{
	return eg->lossless && meta->in_port < RTR_MAX_PORTS && cls < eg->n_classes &&
	       (eg->pfc_mask >> cls & 1);
}

void
rtr_egress_hold(struct rtr_egress *eg, struct rte_mbuf *m, uint8_t cls, uint64_t now_ns)
{
	struct rtr_meta *meta = rtr_meta(m);

	if (eg->admit != EG_ADMIT_SHARED || (meta->flags & RTR_MF_HELD))
		return;
	meta->flags |= RTR_MF_HELD;
	sb_take(eg, m->pkt_len);
	if (held_pfc(eg, meta, cls))
		eg_pfc_in_add(eg, meta->in_port, cls, m->pkt_len, now_ns);
}

/* Take back what rtr_egress_hold counted for m, without an XON decision
 * (the caller counts m again at once, or the tick decides). */
static inline void
held_uncount(struct rtr_egress *eg, struct rte_mbuf *m, uint8_t cls)
{
	struct rtr_meta *meta = rtr_meta(m);

	meta->flags &= (uint8_t)~RTR_MF_HELD;
	eg_sb_move(eg, -(int64_t)eg_sb_charge(eg, m->pkt_len));
	if (held_pfc(eg, meta, cls))
		eg->in_bytes[meta->in_port][cls] -= m->pkt_len;
}

void
rtr_egress_unhold(struct rtr_egress *eg, struct rte_mbuf *m, uint8_t cls, uint64_t now_ns)
{
	struct rtr_meta *meta = rtr_meta(m);

	if (!(meta->flags & RTR_MF_HELD))
		return;
	held_uncount(eg, m, cls);
	/* Its XON, if it held one back. */
	if (held_pfc(eg, meta, cls))
		eg_pfc_in_sub(eg, meta->in_port, cls, 0, now_ns);
}

int
rtr_egress_enqueue_held(struct rtr_egress *eg, uint16_t port, struct rte_mbuf *m, uint8_t cls,
		uint64_t now_ns)
{
	/* Counted while held: the class queue (or the drop) takes over. */
	if (unlikely(rtr_meta(m)->flags & RTR_MF_HELD))
		held_uncount(eg, m, cls);
	return admit(eg, port, m, cls, now_ns, true);
}

/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * The scheduler: which hardware queues can take frames (open_classes),
 * which class sends next (strict priority between levels, DWRR within one,
 * PFC-paused classes skipped), the link clock shared by the workers of a
 * port (the shaper, and the pacer of a bounded NIC ring), and the move from
 * a class FIFO to the wire of its hardware queue with PFC accounting (or
 * the ledger), the departure hook, RED/ECN marking and random loss on the
 * way (depart_one).
 */
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <rte_common.h>
#include <rte_mbuf.h>

#include "eg_internal.h"
#include "rtr_egress.h"
#include "rtr_mbuf.h"

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

	if (eg->lossless) {
		if (ep->ledger.end_ps != NULL && !force)
			eg_ledger_push(eg, ep, meta->in_port, (uint8_t)c, len, end_ps, now_ns);
		else
			eg_pfc_in_sub(eg, meta->in_port, (uint8_t)c, len, now_ns);
	}
	/* It departs now, or when the NIC ring ahead of it has drained: the
	 * delay line is the link after it. */
	rtr_eg_depart(eg, m, meta, dep_ns, force);
	eg_mark(eg, ep, q, c, m, meta, depth);
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
unsigned int
eg_schedule(struct rtr_egress *eg, struct rtr_eport *ep, uint64_t now_ns, bool force, uint32_t max)
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
		if (eg->admit == EG_ADMIT_SHARED)
			eg_sb_move(eg, -(int64_t)eg_sb_charge(eg, m->pkt_len));
		if (clock) {
			bm[nb] = m;
			bc[nb] = (uint8_t)c;
			bleft[nb] = ep->cq[c].bytes;
			bstart[nb++] = cum;
			cum += eg_frame_ps(sp, m->pkt_len);
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
		uint64_t b = eg_clock_take(sp, now_ps, cum);

		if (b + bstart[nb - 1] - now_ps > ep->ring_max_ps)
			ep->ring_max_ps = b + bstart[nb - 1] - now_ps;
		for (unsigned int i = 0; i < nb; i++) {
			uint64_t start = b + bstart[i];
			uint32_t ring = 0;
			uint64_t dep = now_ns;

			if (sp->paced) {
				/* The ring's bytes ahead count only for RED: no
				 * division per frame in a class that does not mark. */
				if (ep->cq[bc[i]].ecn)
					ring = (uint32_t)(((start - now_ps) << 10) /
							  sp->ps_per_byte_q10);
				dep = start / 1000;
			}
			depart_one(eg, ep, bc[i], bm[i], now_ns, dep, bleft[i] + ring,
					start + eg_frame_ps(sp, bm[i]->pkt_len), false);
		}
	}
	return moved;
}

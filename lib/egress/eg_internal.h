/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * Private to lib/egress: what its files share. The stage is built in the
 * order a packet meets it (doc/egress.md "How the egress is built"):
 *
 *   rtr_egress.c  create, free, memory size, the shared per-port state
 *                 (its clock's rate, the NIC ring: rtr_egress_set_ring)
 *   eg_admit.c    admission: the policy table, tail drop, trimming
 *   eg_sched.c    the scheduler: hardware queues open, eligible classes,
 *                 strict priority and DWRR, the link clock (shaper and
 *                 NIC ring pacer), class queue -> wire (depart_one)
 *   eg_mark.c     ECN marking (RED decides at dequeue, below)
 *   eg_pfc.c      PFC: frames built, received, sent; XOFF refresh; the
 *                 ledger of frames in the NIC ring
 *   eg_wire.c     the wires (one per hardware queue) -> NIC, service,
 *                 flush, port down
 *   eg_report.c   counters, the per-port report and its JSON
 *
 * Calls between them go one way only (tools/deps.py fails on a circle):
 * eg_wire -> eg_sched -> eg_mark; eg_wire, eg_sched, eg_admit and
 * eg_report -> eg_pfc. rtr_egress.c calls none of them: the admission
 * policy it picks is an index into the table of eg_admit.c.
 *
 * What runs per packet across those files is static inline here, as it was
 * inside the one file before, so that splitting costs no call.
 */
#ifndef EG_INTERNAL_H
#define EG_INTERNAL_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <rte_common.h>
#include <rte_mbuf.h>

#include "rtr_egress.h"

/* ------------------------------------------------------------ admission */

/*
 * The admission policies: which packets a class queue takes. One is chosen
 * per egress at rtr_egress_create (struct rtr_egress.admit) and stays. A
 * policy has two parts:
 *
 * - its test, "does a packet of len bytes fit class queue q?", asked for
 *   every packet that does not take the fast path. It is a case of the
 *   switch in eg_admit_fits() below, inline, so that choosing a policy
 *   costs no call per packet (with one policy the switch compiles away);
 * - its overflow handler in eg_admit_policies[] (eg_admit.c), called only
 *   for a packet that does not fit: trim it into another class, or drop
 *   it under a named reason.
 *
 * EG_ADMIT_STATIC (the default): each class holds up to its own
 * queue_kb (tail drop), and with qos.trim a RoCE data packet that does not
 * fit is cut to its headers and queued in the control class.
 *
 * EG_ADMIT_SHARED (qos.buffer.mode shared; doc/egress.md "Shared buffer"):
 * one pool per switch (struct rtr_egress_shared.sb_used, atomic, with
 * per-worker batching: eg_sb_move); a class queue takes a packet while its
 * depth stays within alpha x free (and its queue_kb) and the pool has room;
 * PFC XOFF at free >> sb_pfc_shift (eg_pfc_in_add). Its overflow: headroom
 * for an ingress already XOFFed, else that of static.
 *
 * A new policy is an enum value, a case in eg_admit_fits(), an entry in eg_admit_policies[] and a
 * line in eg_admit_choose(); its state goes in struct rtr_eport or
 * rtr_egress_shared. Enqueue, scheduler and wire do not change.
 */
enum eg_admit {
	EG_ADMIT_STATIC, /* per-class queue_kb; tail drop or trim */
	EG_ADMIT_SHARED, /* one pool per switch, alpha x free (qos.buffer) */
	EG_ADMIT_MAX
};

struct eg_admit_ops {
	const char *name; /* as a config value would name it */
	/*
	 * A packet m of class cls on ep that does not fit (eg_admit_fits()
	 * false: over the policy's threshold, or no free slot). Either
	 * return another class that has room for it (it may have changed m,
	 * e.g. trimmed it: the caller queues m->pkt_len bytes there), or
	 * free it through io.drop, count it, and return -1.
	 */
	int (*overflow)(struct rtr_egress *eg, struct rtr_eport *ep, struct rte_mbuf *m,
			uint8_t cls, uint64_t now_ns);
};

extern const struct eg_admit_ops eg_admit_policies[EG_ADMIT_MAX];

/* The policy of a config (rtr_egress_create). */
static inline uint8_t
eg_admit_choose(const struct rtr_qos_cfg *q)
{
	return q->buffer.mode == RTR_BUFFER_SHARED ? EG_ADMIT_SHARED : EG_ADMIT_STATIC;
}

/* ------------------------------------------------------------ shared buffer */

/* What a packet of len bytes takes of the pool: at least a cell
 * (qos.buffer.cell_bytes), so that the pool holds at most size / cell
 * packets, as many as the mbufs app/budget.c sets aside for it. */
static inline uint32_t
eg_sb_charge(const struct rtr_egress *eg, uint32_t len)
{
	return len < eg->sb_cell ? eg->sb_cell : len;
}

/* Bytes of the pool in use as this worker sees them: the switch's count
 * and its own delta (exact with one worker; off by less than
 * RTR_EG_SB_BATCH per other worker). */
static inline uint64_t
eg_sb_used(const struct rtr_egress *eg)
{
	int64_t u = atomic_load_explicit(&eg->sh->sb_used, memory_order_relaxed) + eg->sb_delta;

	return u < 0 ? 0 : (uint64_t)u;
}

/* The free shared buffer (the pool less the ports' headroom, less what is
 * in use). */
static inline uint64_t
eg_sb_free(const struct rtr_egress *eg)
{
	uint64_t u = eg_sb_used(eg);

	return u < eg->sb_shared ? eg->sb_shared - u : 0;
}

/* Flush this worker's delta into the switch's count (one atomic). */
static inline void
eg_sb_flush(struct rtr_egress *eg)
{
	atomic_fetch_add_explicit(&eg->sh->sb_used, eg->sb_delta, memory_order_relaxed);
	eg->sb_delta = 0;
}

/* d bytes joined (> 0) or left (< 0) the class queues of this worker: an
 * atomic only once the delta reaches sb_batch. */
static inline void
eg_sb_move(struct rtr_egress *eg, int64_t d)
{
	eg->sb_delta += d;
	if (eg->sb_delta >= (int64_t)eg->sb_batch || eg->sb_delta <= -(int64_t)eg->sb_batch)
		eg_sb_flush(eg);
}

/* The XOFF threshold of an ingress (port, class): free / pfc_divisor. */
static inline uint32_t
eg_sb_xoff(const struct rtr_egress *eg)
{
	uint64_t t = eg_sb_free(eg) >> eg->sb_pfc_shift;

	return t > UINT32_MAX ? UINT32_MAX : (uint32_t)t;
}

/*
 * Whether a packet of len bytes may join class queue q. held: it was
 * admitted once already (rtr_egress_enqueue_held): only the slots count.
 */
static inline bool
eg_admit_fits(const struct rtr_egress *eg, const struct rtr_cq *q, uint32_t len, bool held)
{
	bool room;

	switch (eg->admit) {
	case EG_ADMIT_SHARED:
		if (held) {
			room = true;
		} else {
			uint64_t used = eg_sb_used(eg);
			uint64_t free = used < eg->sb_shared ? eg->sb_shared - used : 0;

			room = used + eg_sb_charge(eg, len) <= eg->sb_shared &&
			       q->bytes + len <= q->limit &&
			       q->bytes + len <= ((free * eg->sb_alpha_q16) >> 16);
		}
		break;
	case EG_ADMIT_STATIC:
	default:
		room = held || q->bytes + len <= q->limit;
		break;
	}
	return room && q->tail - q->head <= q->mask;
}

/* ------------------------------------------------------------ the port */

/* Hardware TX queues of a port (rtr_egress_create, the report). */
static inline unsigned int
eg_n_hwq(const struct rtr_qos_cfg *q)
{
	return q->hw_queues == 0 ? 1u
				 : RTE_MIN((unsigned int)q->hw_queues,
						   (unsigned int)RTR_MAX_HW_QUEUES);
}

/* Wire time of a frame of len bytes (no FCS) on the port's clock, ps: the
 * frame padded to 60 bytes, FCS, preamble and gap (the scheduler's clock,
 * rtr_egress_ring_bound_ns). */
static inline uint64_t
eg_frame_ps(const struct rtr_eg_shared_port *sp, uint32_t len)
{
	if (len < 60)
		len = 60;
	return ((uint64_t)(len + RTR_EG_FRAME_OVERHEAD) * sp->ps_per_byte_q10) >> 10;
}

/* Take cost_ps of the port's link clock from now_ps on (one atomic, shared
 * by the port's workers): returns when that wire time starts. */
static inline uint64_t
eg_clock_take(struct rtr_eg_shared_port *sp, uint64_t now_ps, uint64_t cost_ps)
{
	uint64_t cur = atomic_load_explicit(&sp->next_ps, memory_order_relaxed), b;

	do {
		b = cur > now_ps ? cur : now_ps;
	} while (!atomic_compare_exchange_weak_explicit(&sp->next_ps, &cur, b + cost_ps,
			memory_order_relaxed, memory_order_relaxed));
	return b;
}

/* ------------------------------------------------------------ PFC */

/* Queue a PFC frame toward port (eg_pfc.c). */
void eg_pfc_send(struct rtr_egress *eg, uint16_t port, uint8_t cls, bool xoff, uint64_t now_ns);

/* Refresh interval of an XOFF toward port: half the pause it asked for. */
static inline uint64_t
eg_xoff_refresh_ns(const struct rtr_egress *eg, uint16_t port)
{
	return ((uint64_t)eg->pfc_quanta * eg->sh->port[port].quantum_ns_q10) >> 11;
}

/* XOFF of (in, cls) from this worker: the frame (software) or the RX hold,
 * unless another worker holds it already. */
static inline void
eg_pfc_xoff(struct rtr_egress *eg, uint8_t in, uint8_t cls, uint64_t now_ns)
{
	struct rtr_eg_pfc_port *pp;
	uint64_t bit, old;

	eg->in_xoff[in] |= (uint8_t)(1u << cls);
	pp = &eg->sh->port[in].pfc;
	bit = 1ull << eg->worker;
	old = atomic_fetch_or_explicit(&pp->xoff_workers[cls], bit, memory_order_acq_rel);
	if (!eg->pfc) {
		/* The NIC sends the pause: hold the port's RX instead
		 * (doc/egress.md "When the NIC sends the PFC"). */
		if (old == 0 && atomic_fetch_add_explicit(&pp->rx_hold, 1, memory_order_relaxed) ==
						0)
			atomic_fetch_add_explicit(&pp->rx_holds, 1, memory_order_relaxed);
		return;
	}
	eg->pfc_active |= 1u << in;
	eg->pfc_refresh_at[in] = now_ns + eg_xoff_refresh_ns(eg, in);
	if (old == 0)
		eg_pfc_send(eg, in, cls, true, now_ns);
}

/* Ingress accounting: len bytes of class cls received on port in joined a
 * class queue; XOFF toward in when they reach xoff_bytes (the shared
 * buffer: free / pfc_divisor). */
static inline void
eg_pfc_in_add(struct rtr_egress *eg, uint8_t in, uint8_t cls, uint32_t len, uint64_t now_ns)
{
	if (in >= RTR_MAX_PORTS || !(eg->pfc_mask & (1u << cls)))
		return;
	eg->in_bytes[in][cls] += len;
	if (eg->in_xoff[in] & (1u << cls))
		return;
	if (eg->in_bytes[in][cls] <
			(eg->admit == EG_ADMIT_SHARED ? eg_sb_xoff(eg) : eg->xoff_bytes))
		return;
	eg_pfc_xoff(eg, in, cls, now_ns);
}

/* Whether an XOFFed ingress (in, cls) may have its XON: below xon_bytes,
 * or with the shared buffer below free / pfc_divisor minus xon_offset
 * (or empty, should free have shrunk below the offset) and with none of
 * its headroom in use. The headroom is what absorbs the sender's bytes in
 * flight after an XOFF: an XON while part of it is still taken leaves the
 * next XOFF less than the round trip it must absorb, and a queue held
 * past alpha x free by other ingresses then drops this one's lossless
 * packets a few cycles later (the artifact's switch-mmu.cc resumes a PG
 * only when its headroom bytes are 0, GetResumeClasses). */
static inline bool
eg_pfc_xon_ok(const struct rtr_egress *eg, uint8_t in, uint8_t cls)
{
	uint32_t b = eg->in_bytes[in][cls], x;

	if (eg->admit != EG_ADMIT_SHARED)
		return b < eg->xon_bytes;
	if (eg->in_hdrm[in] != 0)
		return false;
	x = eg_sb_xoff(eg);
	return b == 0 || b + eg->sb_xon_off < x;
}

/* XON of (in, cls) from this worker: the frame (or the RX hold's end) when
 * no other worker holds it. */
static inline void
eg_pfc_xon(struct rtr_egress *eg, uint8_t in, uint8_t cls, uint64_t now_ns)
{
	struct rtr_eg_pfc_port *pp;
	uint64_t bit, old;

	eg->in_xoff[in] &= (uint8_t) ~(1u << cls);
	if (eg->in_xoff[in] == 0)
		eg->pfc_active &= ~(1u << in);
	pp = &eg->sh->port[in].pfc;
	bit = 1ull << eg->worker;
	old = atomic_fetch_and_explicit(&pp->xoff_workers[cls], ~bit, memory_order_acq_rel);
	if (old != bit)
		return;
	if (eg->pfc)
		eg_pfc_send(eg, in, cls, false, now_ns);
	else
		atomic_fetch_sub_explicit(&pp->rx_hold, 1, memory_order_relaxed);
}

/* They left it (sent, dropped, or their last bit left the NIC ring: the
 * ledger below); XON when below the XON threshold again. Headroom the
 * ingress port used (shared buffer) is given back first. */
static inline void
eg_pfc_in_sub(struct rtr_egress *eg, uint8_t in, uint8_t cls, uint32_t len, uint64_t now_ns)
{
	if (in >= RTR_MAX_PORTS || !(eg->pfc_mask & (1u << cls)))
		return;
	eg->in_bytes[in][cls] -= len;
	if (unlikely(eg->in_hdrm[in] != 0))
		eg->in_hdrm[in] -= RTE_MIN(eg->in_hdrm[in], len);
	if (!(eg->in_xoff[in] & (1u << cls)) || !eg_pfc_xon_ok(eg, in, cls))
		return;
	eg_pfc_xon(eg, in, cls, now_ns);
}

/*
 * The ledger (software PFC on a paced port): a frame handed to the NIC
 * still counts toward its ingress port's XOFF until its last bit has left
 * by the link clock (end_ps). A full ledger releases at once (never
 * blocks). Pushed per frame by the scheduler, released by the wire
 * (eg_ledger_release, eg_pfc.c).
 */
static inline void
eg_ledger_push(struct rtr_egress *eg, struct rtr_eport *ep, uint8_t in, uint8_t cls, uint32_t len,
		uint64_t end_ps, uint64_t now_ns)
{
	struct rtr_eledger *l = &ep->ledger;
	uint32_t i;

	if (l->tail - l->head > l->mask) {
		eg_pfc_in_sub(eg, in, cls, len, now_ns);
		return;
	}
	i = l->tail++ & l->mask;
	l->end_ps[i] = end_ps;
	l->len[i] = len;
	l->in[i] = in;
	l->cls[i] = cls;
}

/* Release the ledger's frames that have left by now (all with force). */
void eg_ledger_release(struct rtr_egress *eg, struct rtr_eport *ep, uint64_t now_ns, bool force);

static inline bool
eg_ledger_empty(const struct rtr_eport *ep)
{
	return ep->ledger.head == ep->ledger.tail;
}

/* ------------------------------------------------------------ marking */

/* RED/ECN on a packet leaving class queue q (class c) of ep, on depth (the
 * class bytes it leaves behind plus the ring bytes the NIC holds ahead of
 * it): CE on an ECT packet, counted. */
static inline void
eg_mark(struct rtr_egress *eg, struct rtr_eport *ep, struct rtr_cq *q, unsigned int c,
		struct rte_mbuf *m, struct rtr_meta *meta, uint32_t depth)
{
	if (q->ecn && depth > q->kmin && rtr_red_decide_depth(q, depth, &ep->red_rng) &&
			rtr_ecn_mark(rte_pktmbuf_mtod(m, uint8_t *), meta->l3, meta->l3_off)) {
		meta->tos |= RTR_ECN_CE;
		ep->c[c][RTR_EGC_ecn_marked]++;
		eg->stats->port[ep->port].ecn_marked++;
	}
}

/* ------------------------------------------------------------ scheduler */

/*
 * Move up to max packets from the class queues of ep to its wires
 * (eg_sched.c). force: at exit, ignoring pauses, the clock, delay and
 * loss. Returns how many moved.
 */
unsigned int eg_schedule(struct rtr_egress *eg, struct rtr_eport *ep, uint64_t now_ns, bool force,
		uint32_t max);

#endif /* EG_INTERNAL_H */

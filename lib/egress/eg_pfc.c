/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * PFC (802.1Qbb). Received: a MAC control frame pauses classes of a port
 * for every worker (struct rtr_eg_pfc_port, shared). Sent, in software
 * mode: the ingress accounting of eg_internal.h (eg_pfc_in_add/_sub, inline
 * on the enqueue and dequeue paths) asks for XOFF and XON here, and
 * rtr_egress_tick refreshes an XOFF before it expires. On a paced port the
 * ledger holds a frame's bytes on its ingress port's account until its last
 * bit has left the NIC ring (eg_ledger_push inline, released here).
 */
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <rte_common.h>
#include <rte_mbuf.h>
#include <rte_spinlock.h>

#include "eg_internal.h"
#include "rtr_egress.h"
#include "rtr_mbuf.h"

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
void
eg_pfc_send(struct rtr_egress *eg, uint16_t port, uint8_t cls, bool xoff, uint64_t now_ns)
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
	/* It goes ahead of everything, but takes its wire time on a clocked
	 * port's link clock like any frame, or the clock would run ahead of
	 * the wire by 84 bytes per PFC frame. */
	if (ep->clocked)
		eg_clock_take(ep->sh, now_ns * 1000, eg_frame_ps(ep->sh, RTR_PFC_FRAME_LEN));
	eg->held++;
	eg->active |= 1u << port;
	if (xoff)
		atomic_fetch_add_explicit(&ep->sh->pfc.tx_xoff, 1, memory_order_relaxed);
	else
		atomic_fetch_add_explicit(&ep->sh->pfc.tx_xon, 1, memory_order_relaxed);
}

/* The bit of xoff_workers an RX-overflow XOFF holds (workers are < 64). */
#define OVERFLOW_BIT (1ull << 63)

void
rtr_egress_rx_overflow(
		struct rtr_egress_shared *sh, uint16_t port, uint64_t now_ns, uint64_t hold_ns)
{
	if (sh->cfg->qos.pfc.mode != RTR_PFC_SOFTWARE || port >= RTR_MAX_PORTS ||
			!sh->port[port].configured)
		return;
	atomic_store_explicit(
			&sh->port[port].pfc.overflow_until, now_ns + hold_ns, memory_order_relaxed);
	atomic_fetch_or_explicit(&sh->overflow_ports, 1u << port, memory_order_release);
}

/*
 * Worker 0: XOFF the PFC classes toward ports whose RX ring overflowed
 * (rtr_egress_rx_overflow), refreshed every half pause until the overflow
 * is over, then XON for the classes no worker holds for its own queues.
 */
static void
overflow_tick(struct rtr_egress *eg, uint32_t ov, uint64_t now_ns)
{
	struct rtr_egress_shared *sh = eg->sh;

	while (ov) {
		unsigned int p = (unsigned int)__builtin_ctz(ov);
		struct rtr_eg_pfc_port *pp = &sh->port[p].pfc;
		uint64_t until = atomic_load_explicit(&pp->overflow_until, memory_order_relaxed);

		ov &= ov - 1;
		if (now_ns < until) {
			bool first = !(eg->ov_xoff & (1u << p));

			if (!first && now_ns < eg->ov_refresh_at[p])
				continue;
			if (first) {
				eg->ov_xoff |= 1u << p;
				atomic_fetch_add_explicit(
						&pp->xoff_imissed, 1, memory_order_relaxed);
			}
			eg->ov_refresh_at[p] = now_ns + eg_xoff_refresh_ns(eg, (uint16_t)p);
			for (unsigned int c = 0; c < eg->n_classes; c++) {
				if (!(eg->pfc_mask & (1u << c)))
					continue;
				if (first)
					atomic_fetch_or_explicit(&pp->xoff_workers[c], OVERFLOW_BIT,
							memory_order_acq_rel);
				eg_pfc_send(eg, (uint16_t)p, (uint8_t)c, true, now_ns);
			}
			continue;
		}
		if (eg->ov_xoff & (1u << p)) {
			eg->ov_xoff &= ~(1u << p);
			for (unsigned int c = 0; c < eg->n_classes; c++) {
				uint64_t old;

				if (!(eg->pfc_mask & (1u << c)))
					continue;
				old = atomic_fetch_and_explicit(&pp->xoff_workers[c], ~OVERFLOW_BIT,
						memory_order_acq_rel);
				if (old == OVERFLOW_BIT)
					eg_pfc_send(eg, (uint16_t)p, (uint8_t)c, false, now_ns);
			}
		}
		atomic_fetch_and_explicit(&sh->overflow_ports, ~(1u << p), memory_order_relaxed);
		/* Renewed meanwhile: keep the port flagged. */
		if (atomic_load_explicit(&pp->overflow_until, memory_order_relaxed) > now_ns)
			atomic_fetch_or_explicit(
					&sh->overflow_ports, 1u << p, memory_order_relaxed);
	}
}

void
rtr_egress_tick(struct rtr_egress *eg, uint64_t now_ns)
{
	uint32_t act = eg->pfc_active;

	if (eg->worker == 0 && eg->pfc) {
		uint32_t ov = atomic_load_explicit(&eg->sh->overflow_ports, memory_order_acquire) |
			      eg->ov_xoff;

		if (unlikely(ov != 0))
			overflow_tick(eg, ov, now_ns);
	}

	while (act) {
		unsigned int in = (unsigned int)__builtin_ctz(act);

		act &= act - 1;
		/* The shared buffer's XON threshold moves with free: an ingress
		 * none of whose bytes leave may still get its XON. */
		if (eg->admit == EG_ADMIT_SHARED) {
			for (unsigned int c = 0; c < eg->n_classes; c++)
				if ((eg->in_xoff[in] & (1u << c)) &&
						eg_pfc_xon_ok(eg, (uint8_t)in, (uint8_t)c))
					eg_pfc_xon(eg, (uint8_t)in, (uint8_t)c, now_ns);
			if (!(eg->pfc_active & (1u << in)))
				continue;
		}
		if (now_ns < eg->pfc_refresh_at[in])
			continue;
		eg->pfc_refresh_at[in] = now_ns + eg_xoff_refresh_ns(eg, (uint16_t)in);
		for (unsigned int c = 0; c < eg->n_classes; c++)
			if (eg->in_xoff[in] & (1u << c))
				eg_pfc_send(eg, (uint16_t)in, (uint8_t)c, true, now_ns);
	}
}

/* Release the ledger's frames that have left by now (all with force). */
void
eg_ledger_release(struct rtr_egress *eg, struct rtr_eport *ep, uint64_t now_ns, bool force)
{
	struct rtr_eledger *l = &ep->ledger;
	uint64_t now_ps = now_ns * 1000;

	while (l->head != l->tail) {
		uint32_t i = l->head & l->mask;

		if (!force && l->end_ps[i] > now_ps)
			break;
		l->head++;
		eg_pfc_in_sub(eg, l->in[i], l->cls[i], l->len[i], now_ns);
	}
}

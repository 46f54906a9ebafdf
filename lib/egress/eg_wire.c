/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * The wires: one FIFO per hardware TX queue of a port, frames ordered by
 * due time (the delay line and the NIC's staged burst), handed to the TX
 * callback; the service loop that releases the PFC ledger and alternates
 * scheduler and TX; and what empties a port at once, port down and the
 * flush at exit.
 */
#include <stdbool.h>
#include <stdint.h>

#include <rte_common.h>
#include <rte_mbuf.h>

#include "eg_internal.h"
#include "rtr_egress.h"
#include "rtr_mbuf.h"

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

	if (unlikely(!eg_ledger_empty(ep)))
		eg_ledger_release(eg, ep, now_ns, false);
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
		unsigned int moved = eg_schedule(eg, ep, now_ns, false, eg->wire_burst);
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
	if (ep->nonempty == 0 && wires_empty(ep) && eg_ledger_empty(ep))
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
	/* The shared buffer: this worker's pool bytes to the switch's count
	 * once per pass (the batch bounds the error between passes). */
	if (unlikely(eg->sb_delta != 0))
		eg_sb_flush(eg);
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
			if (eg->admit == EG_ADMIT_SHARED)
				eg_sb_move(eg, -(int64_t)eg_sb_charge(eg, m->pkt_len));
			if (eg->lossless)
				eg_pfc_in_sub(eg, rtr_meta(m)->in_port, (uint8_t)c, m->pkt_len, 0);
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
	eg_ledger_release(eg, ep, 0, true);
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
	/* Off the data path: the pool's count exact at once. */
	if (eg->sb_delta != 0)
		eg_sb_flush(eg);
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

	eg_ledger_release(eg, ep, 0, true);
	while (ep->nonempty || !wires_empty(ep)) {
		unsigned int s = 0;

		eg_schedule(eg, ep, 0, true, UINT32_MAX);
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
	if (eg->sb_delta != 0)
		eg_sb_flush(eg);
	return sent;
}

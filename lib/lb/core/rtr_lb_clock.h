/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * Time as the LB stage may judge it (ALGORITHMS.md "Time", doc/architecture.md
 * "Time: what the switch has seen"). A worker that falls behind (preempted,
 * or a burst larger than a poll) leaves packets that have arrived waiting in
 * its RX queues. A hold whose deadline passes then, or a flow that looks idle
 * then, is the switch's own delay, not the network's: releasing the hold
 * reorders the flow whose gap-filling packets are already in the RX ring, and
 * re-placing the "idle" flow moves a flow that never paused.
 *
 * So every worker keeps a horizon, seen_ns: every packet that reached the
 * worker's inputs (its RX queues and its hand-off ring) before seen_ns has
 * been taken from them. It is moved on by evidence only:
 *   - a poll that took fewer packets than it asked for found its queue
 *     empty: what arrived before the poll began has been taken;
 *   - a queue that keeps giving full bursts cannot hold more than cap
 *     packets: once cap packets were taken after a poll began at t,
 *     everything that arrived before t has been taken (so an overloaded
 *     worker's horizon lags by at most about two ring's worth, never
 *     forever);
 *   - the hand-off ring carries packets other workers received: its
 *     "time" is the smallest horizon the other workers had published
 *     before the ring was read (rtr_lb_hz_others), since a worker
 *     publishes its horizon only after handing off what it took.
 * Horizons are kept for host and for fabric inputs apart (in_ns), and for
 * the worker (seen_ns, the smallest).
 *
 * What the LB stage does with it (the rule, once, for every mode):
 *   - tick() gets seen_ns as its clock, so every deadline it expires (hold
 *     deadlines, T_resume, spray's gap deadline, aging) expires only when
 *     the worker has looked at everything that came before it;
 *   - a per-packet hook that judges time (a flow idle, a reply late, a
 *     skew sample) compares the horizon of the input the awaited packets
 *     come from (rtr_lb_seen_in for the packet in hand's own input,
 *     rtr_lb_seen_fabric for replies): during a hook it is at or before
 *     the packet's arrival, so an idle gap it measures is one the network
 *     made. Stamps a hook stores (last_ns, a hold's start) stay
 *     the hook's now_ns: an upper bound of the arrival, which only makes
 *     the judgments more careful.
 * seen_ns is at or before now_ns; differences between it and stamps taken at
 * now_ns must not be taken unsigned (rtr_lb_since).
 *
 * No EAL: unit tests drive the tracker with a virtual clock.
 */
#ifndef RTR_LB_CLOCK_H
#define RTR_LB_CLOCK_H

#include <stdbool.h>
#include <stdint.h>

/* The two kinds of input a horizon is kept for (rtr_lb_clock.in_ns). */
#define RTR_LB_IN_HOST   0 /* host ports' RX queues */
#define RTR_LB_IN_FABRIC 1 /* fabric ports' RX queues */

struct rtr_lb_clock {
	/* Everything that reached the worker before it has been taken from
	 * its inputs; 0 before the first poll. What tick() gets. */
	uint64_t seen_ns;
	/* The same for the packets that came in on host ports, and on
	 * fabric ports (either way through the hand-off ring included): a
	 * deadline that waits for a packet from one kind of port (a reply
	 * from the fabric) is judged by that kind's, so that a host port
	 * that is always behind (a pcap replayed at full speed, a host at
	 * line rate) does not hold back what the fabric ports show. */
	uint64_t in_ns[2];
	uint32_t fabric_ports; /* bit p: port p is a fabric port */
};

/* The horizon a hook may judge by: clock's, or now_ns where there is no
 * clock (unit tests, the simulator: they have no RX queues to fall
 * behind on) or where the clock is ahead of the caller's now. */
static inline uint64_t
rtr_lb_seen(const struct rtr_lb_clock *c, uint64_t now_ns)
{
	return c != NULL && c->seen_ns < now_ns ? c->seen_ns : now_ns;
}

/* The horizon of the input port `port` is of (its kind's; any port number
 * past the mask, e.g. RTR_PORT_NONE: every input's). For a packet in hand
 * received on port, it is at or before the packet's arrival. */
static inline uint64_t
rtr_lb_seen_in(const struct rtr_lb_clock *c, uint64_t now_ns, unsigned int port)
{
	uint64_t s;

	if (c == NULL)
		return now_ns;
	s = port < 32 ? c->in_ns[(c->fabric_ports >> port) & 1] : c->seen_ns;
	return s < now_ns ? s : now_ns;
}

/* The fabric ports' horizon: for what only the fabric brings (an LB
 * reply, a CLEAR). */
static inline uint64_t
rtr_lb_seen_fabric(const struct rtr_lb_clock *c, uint64_t now_ns)
{
	return c != NULL && c->in_ns[RTR_LB_IN_FABRIC] < now_ns ? c->in_ns[RTR_LB_IN_FABRIC]
								: now_ns;
}

/* Time from stamp t to horizon seen, 0 when t is later (t was an upper
 * bound taken at a later now_ns). */
static inline uint64_t
rtr_lb_since(uint64_t seen, uint64_t t)
{
	return seen > t ? seen - t : 0;
}

/* A flow last seen at last_ns (a hook's now_ns), whose packet in hand came
 * in on port, idle for more than idle_ns as far as the network shows. */
static inline bool
rtr_lb_idle(const struct rtr_lb_clock *c, uint64_t now_ns, unsigned int port, uint64_t last_ns,
		uint64_t idle_ns)
{
	return rtr_lb_since(rtr_lb_seen_in(c, now_ns, port), last_ns) > idle_ns;
}

/* ------------------------------------------------------ the horizon tracker */

/* One input queue (an RX queue, a ring). */
struct rtr_lb_hz_q {
	uint64_t h_ns;     /* what arrived before it has been taken */
	uint64_t ck_ns;    /* a poll of a full queue began then ... */
	uint64_t ck_taken; /* ... with this many packets taken before it */
	uint64_t taken;    /* packets taken from the queue, in all */
	uint32_t cap;      /* most packets the queue holds (0: unknown) */
	bool ck;           /* ck_ns / ck_taken are set */
};

/* Start tracking a queue that can hold cap packets (0: unknown, then only
 * a short poll moves its horizon on). */
static inline void
rtr_lb_hz_init(struct rtr_lb_hz_q *q, uint32_t cap)
{
	*q = (struct rtr_lb_hz_q){.cap = cap};
}

/* A poll that began at t (at or before the dequeue started; for a ring of
 * other workers' packets, rtr_lb_hz_others read before it) asked for burst
 * packets and took n. Returns the queue's horizon. */
static inline uint64_t
rtr_lb_hz_poll(struct rtr_lb_hz_q *q, uint64_t t, unsigned int n, unsigned int burst)
{
	if (n < burst) {
		/* The queue was empty when the poll ended. */
		if (t > q->h_ns)
			q->h_ns = t;
		q->ck = false;
		q->taken += n;
		return q->h_ns;
	}
	if (!q->ck) {
		q->ck = true;
		q->ck_ns = t;
		q->ck_taken = q->taken;
	}
	q->taken += n;
	if (q->cap != 0 && q->taken - q->ck_taken >= q->cap) {
		/* The queue could not hold more than cap packets when the
		 * checkpoint's poll began: all of them are taken now. A new
		 * checkpoint starts at this poll. */
		if (q->ck_ns > q->h_ns)
			q->h_ns = q->ck_ns;
		q->ck_ns = t;
		q->ck_taken = q->taken - n;
	}
	return q->h_ns;
}

/* The input is not polled at t and will not be (the worker stopped
 * receiving): nothing that waits there is the LB stage's concern. */
static inline void
rtr_lb_hz_idle(struct rtr_lb_hz_q *q, uint64_t t)
{
	if (t > q->h_ns)
		q->h_ns = t;
	q->ck = false;
}

#endif /* RTR_LB_CLOCK_H */

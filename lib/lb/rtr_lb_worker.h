/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * The LB stage's fast path: which hook of struct rtr_lb_ops runs when, as
 * inline functions (what rte_graph_worker.h is to rte_graph.h; rtr_lb.h
 * stays the control API). Every caller of a hook goes through these: the
 * forwarding step (lib/fwd/rtr_fwd.h, which the pipeline, the simulator
 * and the LB fuzzer share), the pipeline's loop for timers and flushes,
 * the egress for departures. They take the facts of the caller's
 * forwarding decision (the route's kind, the ports' roles) and touch
 * nothing else: no port, queue or EAL call.
 *
 * One packet through the hooks (doc/architecture.md "The packet's walk"):
 *
 *   parse ----------- rtr_lb_prefetch(0)   (fabric ports: fabric_parse_flags)
 *   before routing -- rtr_lb_prefetch(1)
 *   route to a group  rtr_lb_pick: pick, or the inline ECMP hash
 *   route to a host   rtr_lb_ctrl_rx: an LB control packet is consumed
 *   MACs, TTL done -- rtr_lb_out: deliver (DstToR) / post_route /
 *                     rtr_lb_host_egress
 *   class enqueue --- rtr_lb_queued, if the queue took it
 *   class dequeue --- rtr_lb_depart (by the egress: RTR_LB_DEPART_FLAGS)
 *
 * The worker's loop, not a packet:
 *
 *   every pass ------ rtr_lb_tick: tick once next_deadline has passed
 *                     (every pass without next_deadline), on the horizon
 *   every control     rtr_lb_age: tick whatever the deadline (aging)
 *   poll
 *   port seen down -- rtr_lb_flush(port) once; runtime switch:
 *                     rtr_lb_flush(-1); exit: rtr_lb_flush_final
 *   idle sleep ------ only while rtr_lb_held is 0
 *
 * Hooks that come together: deliver with deliver_flags (a mode that
 * delivers declares which packets it wants); next_deadline with tick;
 * flush with held where the mode can hold (without held, flush is called
 * whenever a flush is due). Re-entry: a hook may send a packet it built
 * through io.control, which parses it and runs the forwarding step again
 * (as a frame with in_port RTR_PORT_NONE) before the hook returns; io.deliver
 * queues on a host port without re-entering the LB stage.
 */
#ifndef RTR_LB_WORKER_H
#define RTR_LB_WORKER_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_branch_prediction.h>
#include <rte_common.h>

#include "rtr_common.h"
#include "rtr_lb.h"
#include "rtr_lb_host.h"
#include "rtr_parse.h"
#include "rtr_route.h"
#include "rtr_stats.h"

/* The egress calls ops->depart for packets with any of these meta flags
 * that were received on a host port (only those carry fields this switch
 * stamped; on other ports the header is a transit packet's). */
#define RTR_LB_DEPART_FLAGS RTR_MF_LB_HDR

/* What a trim keeps after the BTH of a packet with RTR_MF_LB_HDR (the
 * egress's io.trim_lb_hdr_len): the header of the shared LB layout, which
 * every mode's parse flags describe (the registry refuses to start
 * otherwise, rtr_lb_registry.c). */
#define RTR_LB_TRIM_HDR_LEN RTR_LB_HDR_LEN

/* The facts of one forwarding decision the hooks depend on. */
struct rtr_lb_hop {
	uint32_t fabric_ports; /* bit p: port p is a fabric port */
	uint16_t in_port;      /* meta->in_port (RTR_PORT_NONE: built by this switch) */
	uint16_t out_port;
	bool group;    /* routed by an uplink group (a path was picked) */
	bool out_host; /* out_port is a host port */
};

/* Received on a fabric port. Tested last where it is used, as the pipeline
 * always did. */
static __rte_always_inline bool
rtr_lb_hop_in_fabric(const struct rtr_lb_hop *h)
{
	return h->in_port < RTR_MAX_PORTS && (h->fabric_ports >> h->in_port & 1);
}

/* Step 0 at parse (the table bucket), step 1 before routing (the entry). */
static __rte_always_inline void
rtr_lb_prefetch(const struct rtr_lb_ops *ops, const void *state, const struct rtr_meta *meta,
		unsigned int step)
{
	if (ops->prefetch != NULL)
		ops->prefetch(state, meta, step);
}

/*
 * A packet routed to uplink group g (index g_idx): the mode's pick, or
 * with no pick (ECMP, a ToR-only mode on a spine) the group's hash without
 * a call, counted ecmp_packets. Returns the path, -1 when none is usable
 * (the caller drops it as port_down).
 */
static __rte_always_inline int
rtr_lb_pick(const struct rtr_lb_ops *ops, void *state, const struct rtr_group *g,
		unsigned int g_idx, struct rte_mbuf *m, struct rtr_meta *meta, uint64_t now_ns,
		struct rtr_lcore_stats *st)
{
	if (ops->pick == NULL) {
		st->lb[RTR_LBC_ecmp_packets]++;
		return rtr_group_pick(g, meta->flow_hash);
	}
	return ops->pick(state, g, g_idx, m, meta, now_ns, st);
}

/*
 * Right after routing, before anything else is checked (link, neighbour,
 * TTL): an LB control packet (parsed with its header) routed to a host port
 * by a host route is consumed, whatever the host link does, by the mode
 * that reads it (control_rx) or, in a mode that has no use for it, counted
 * foreign_ctrl: it has no ICRC, a host must never get it. Returns true when
 * it was consumed: the caller frees m and counts it consumed.
 */
static __rte_always_inline bool
rtr_lb_ctrl_rx(const struct rtr_lb_ops *ops, void *state, struct rte_mbuf *m, struct rtr_meta *meta,
		const struct rtr_lb_hop *h, uint64_t now_ns, struct rtr_lcore_stats *st)
{
	if (likely(!rtr_meta_lb_control(meta)) || h->group || !h->out_host)
		return false;
	if (ops->control_rx != NULL)
		ops->control_rx(state, m, meta, now_ns, st);
	else
		st->lb[RTR_LBC_foreign_ctrl]++;
	return true;
}

/*
 * The packet is routed and rewritten (TTL, MACs, meta->out_port), about to
 * be queued on h->out_port:
 * - deliver (DstToR), only for a frame from a fabric port to a host port by
 *   a host route with one of the mode's deliver_flags; RTR_LB_TAKEN: the
 *   mode took it (held, or sent ahead of a ring), the caller is done;
 * - post_route, every other packet;
 * - toward a host from a fabric port, whatever LB field is left goes, in
 *   every mode (a fabric in mixed modes, a runtime switch:
 *   doc/wire-formats.md); a plain RoCE frame pays the test of two
 *   metadata bytes.
 * Returns RTR_LB_FORWARD (the caller queues m) or RTR_LB_TAKEN.
 */
static __rte_always_inline int
rtr_lb_out(const struct rtr_lb_ops *ops, void *state, struct rte_mbuf *m, struct rtr_meta *meta,
		const struct rtr_lb_hop *h, uint64_t now_ns, struct rtr_lcore_stats *st)
{
	if (unlikely(meta->flags & ops->deliver_flags) && !h->group && h->out_host &&
			rtr_lb_hop_in_fabric(h) && ops->deliver != NULL &&
			ops->deliver(state, m, meta, h->out_port, now_ns, st) == RTR_LB_TAKEN)
		return RTR_LB_TAKEN;
	if (ops->post_route != NULL)
		ops->post_route(state, m, meta, h->out_port, now_ns, st);
	if (unlikely(rtr_lb_host_egress_needed(meta)) && h->out_host && rtr_lb_hop_in_fabric(h))
		rtr_lb_host_egress(m, meta, st->lb);
	return RTR_LB_FORWARD;
}

/* The egress queue of out_port took m (not tail-dropped): only that counts
 * as load (CAVER's DRE). */
static __rte_always_inline void
rtr_lb_queued(const struct rtr_lb_ops *ops, void *state, const struct rte_mbuf *m,
		const struct rtr_meta *meta, uint16_t out_port)
{
	if (ops->queued != NULL)
		ops->queued(state, m, meta, out_port);
}

/* A packet with RTR_LB_DEPART_FLAGS received on a host port leaves its
 * egress class queue (ConWeave's TX timestamps are departure times). */
static __rte_always_inline void
rtr_lb_depart(const struct rtr_lb_ops *ops, void *state, struct rte_mbuf *m, struct rtr_meta *meta,
		uint64_t now_ns, struct rtr_lcore_stats *st)
{
	if (ops->depart != NULL)
		ops->depart(state, m, meta, now_ns, st);
}

/* Timers, once per loop pass: tick when next_deadline() has passed (every
 * pass when the mode has no next_deadline). seen_ns is the worker's horizon
 * (rtr_lb_clock.h), never the wall clock. */
static __rte_always_inline void
rtr_lb_tick(const struct rtr_lb_ops *ops, void *state, uint64_t seen_ns, struct rtr_lcore_stats *st)
{
	if (ops->tick != NULL &&
			(ops->next_deadline == NULL || ops->next_deadline(state) <= seen_ns))
		ops->tick(state, seen_ns, st);
}

/* Every control poll: tick whatever the deadline (flow-table aging). */
static __rte_always_inline void
rtr_lb_age(const struct rtr_lb_ops *ops, void *state, uint64_t seen_ns, struct rtr_lcore_stats *st)
{
	if (ops->tick != NULL)
		ops->tick(state, seen_ns, st);
}

/* mbufs the mode holds now (0 for a mode without held). */
static __rte_always_inline uint64_t
rtr_lb_held(const struct rtr_lb_ops *ops, const void *state)
{
	return ops->held != NULL ? ops->held(state) : 0;
}

/* Release what the mode holds for port (-1: everything); returns how many
 * it released. Skipped when held() says nothing is held (the flush walks
 * the flow table); a mode with flush and no held is flushed every time. */
static __rte_always_inline unsigned int
rtr_lb_flush(const struct rtr_lb_ops *ops, void *state, int port, uint64_t now_ns,
		struct rtr_lcore_stats *st)
{
	if (ops->flush == NULL || (ops->held != NULL && ops->held(state) == 0))
		return 0;
	return ops->flush(state, port, now_ns, st);
}

/* At exit: flush everything, whatever held() says (the last chance for
 * anything a mode keeps beside its held count). */
static __rte_always_inline unsigned int
rtr_lb_flush_final(const struct rtr_lb_ops *ops, void *state, uint64_t now_ns,
		struct rtr_lcore_stats *st)
{
	return ops->flush != NULL ? ops->flush(state, -1, now_ns, st) : 0;
}

#endif /* RTR_LB_WORKER_H */

/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * LetFlow (Vanini et al., NSDI'17), as ALGORITHMS.md 7 fixes it and the
 * ConWeave paper runs it (flowlet gap 100 us): at the SrcToR, per flow, the
 * time of its last packet and its path. A RoCE packet from a host port
 * after a gap of at least flowlet_gap_us starts a flowlet on a path drawn
 * uniformly at random among the group's live paths; otherwise it keeps
 * the flow's path. No feedback, no header, nothing at the DstToR.
 *
 * One flow's state:
 *
 *        first packet, or gap >= flowlet_gap_us
 *   ---------------------------------------------> [path = random live path]
 *                                                     |        ^
 *               gap < flowlet_gap_us: same path  <----+        |
 *               path down, or the route moved    --------------+
 *               the flow to another group: a new random live path
 *
 * No EAL I/O: time is a parameter, so unit tests drive every transition on
 * a virtual clock. One instance per worker (its flow table).
 */
#ifndef RTR_LETFLOW_H
#define RTR_LETFLOW_H

#include <stdbool.h>
#include <stdint.h>

#include "rtr_lb.h"
#include "rtr_parse.h"
#include "rtr_route.h"

struct rte_mbuf;
struct rtr_ft_limit;

struct rtr_lf_params {
	uint64_t gap_ns;                      /* flowlet gap, at least 1 */
	uint32_t flow_entries;                /* this worker's flow table */
	const struct rtr_ft_limit *ft_limits; /* per host port, read at create; NULL: none */
	uint32_t host_port_mask;              /* what is a host's packet */
	uint64_t rng_seed;                    /* the random paths */
	unsigned int worker;
	int socket_id;
	bool use_rte_malloc; /* false: no EAL (unit tests) */
};

struct rtr_lf;

struct rtr_lf *rtr_lf_create(const struct rtr_lf_params *p);
void rtr_lf_free(void *state);

/* rtr_lb_ops.init: the parameters from the letflow section. */
void *rtr_lf_init(const struct rtr_lb_init *in);

/*
 * The path of a packet routed to uplink group g (index g_idx): a RoCE
 * packet from a host port takes its flow's flowlet path (a new flowlet, a
 * random live path, when the flow is new or idle for at least the gap);
 * every other packet, and a flow the table has no room for, the ECMP
 * hash. Returns the path, or -1 when no path of g is live.
 */
int rtr_lf_pick(void *state, const struct rtr_group *g, unsigned int g_idx, struct rte_mbuf *m,
		struct rtr_meta *meta, uint64_t now_ns, struct rtr_lcore_stats *st);

/* Timers: a step of flow-table aging. */
void rtr_lf_tick(void *state, uint64_t now_ns, struct rtr_lcore_stats *st);

#endif /* RTR_LETFLOW_H */

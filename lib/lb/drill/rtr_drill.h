/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * DRILL (Ghorbani et al., SIGCOMM'17), as ALGORITHMS.md 7 fixes it and the
 * ConWeave paper runs it, DRILL(2,1): per packet, at every switch with
 * several equal-cost uplinks, the uplink with the smallest local egress
 * queue (bytes) among d uplinks drawn at random and the m best of the
 * previous decision (the memory). No per-flow state, no header, no
 * feedback: the packets of one flow take different uplinks and may arrive
 * out of order (by design: the ConWeave paper's point about DRILL on RDMA).
 *
 * One decision, for group g:
 *
 *   candidates = d distinct live paths drawn at random (all live paths
 *                when fewer), then the remembered paths still live;
 *   chosen     = the first candidate with the fewest queued bytes (a
 *                remembered path wins only when strictly shorter than
 *                every sample);
 *   memory[g]  = the m candidates with the fewest bytes, ascending
 *                (chosen first).
 *
 * The queue of a path is its egress port's class queues on this worker
 * (rtr_lb_init.queue_bytes), read at every decision: a remembered path is
 * weighed by its depth now, not by what it had.
 *
 * No EAL I/O: the queue depths and the random draws come through the
 * parameters, so unit tests fix both and compute the choice by hand.
 */
#ifndef RTR_DRILL_H
#define RTR_DRILL_H

#include <stdbool.h>
#include <stdint.h>

#include "rtr_lb.h"
#include "rtr_parse.h"
#include "rtr_route.h"

struct rte_mbuf;

struct rtr_dr_params {
	unsigned int samples; /* d, 1..RTR_DRILL_SAMPLES_MAX */
	unsigned int memory;  /* m, 0..RTR_DRILL_MEMORY_MAX */
	/* Bytes queued on a port (rtr_lb_init.queue_bytes); NULL: 0. */
	uint32_t (*queue_bytes)(const void *arg, uint16_t port);
	const void *queue_arg;
	/* A draw in [0, n) (unit tests script the samples); NULL: the
	 * worker's own generator, seeded by rng_seed. */
	uint32_t (*rand)(void *arg, uint32_t n);
	void *rand_arg;
	uint64_t rng_seed;
	unsigned int worker;
};

struct rtr_dr;

struct rtr_dr *rtr_dr_create(const struct rtr_dr_params *p);
void rtr_dr_free(void *state);

/* rtr_lb_ops.init: the parameters from the drill section and the worker's
 * egress queues (in->queue_bytes). */
void *rtr_dr_init(const struct rtr_lb_init *in);

/* The path of any packet routed to uplink group g (index g_idx): the
 * decision above. Returns the path, or -1 when no path of g is live. */
int rtr_dr_pick(void *state, const struct rtr_group *g, unsigned int g_idx, struct rte_mbuf *m,
		struct rtr_meta *meta, uint64_t now_ns, struct rtr_lcore_stats *st);

/* The memory of group g_idx: up to max paths, best first, into out;
 * returns how many (unit tests, telemetry). */
unsigned int rtr_dr_memory(
		const struct rtr_dr *dr, unsigned int g_idx, uint8_t *out, unsigned int max);

#endif /* RTR_DRILL_H */

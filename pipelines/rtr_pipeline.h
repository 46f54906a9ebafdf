/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * How the stages are composed into the per-lcore run-to-completion loop.
 *
 *   RX burst -> parse -> ingress checks -> route -> LB pick -> L3 rewrite
 *            -> egress (class queues, scheduler, shaper, delay, TX) every loop
 *
 * Packets for the switch itself (ARP, ND, echo to our addresses) are punted
 * to the control plane through ctrl_ring; the control plane's own frames
 * come back through a worker's inject ring so that every TX queue keeps
 * exactly one writer. A packet of a flow owned by another worker (when the
 * LB mode keeps per-flow state) goes to that worker's handoff ring.
 *
 * Stop is two-phase so that nothing is lost: STOP_RX makes every worker stop
 * polling ports but keep draining its rings; once all workers have
 * acknowledged and the control plane is quiet, STOP_FINAL makes each drain
 * its rings one last time, send what its egress holds and return.
 */
#ifndef RTR_PIPELINE_H
#define RTR_PIPELINE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <rte_mbuf.h>
#include <rte_mbuf_dyn.h>
#include <rte_mempool.h>
#include <rte_ring.h>

#include "rtr_common.h"
#include "rtr_config.h"
#include "rtr_egress.h"
#include "rtr_fault.h"
#include "rtr_lb.h"
#include "rtr_mbuf.h"
#include "rtr_neigh.h"
#include "rtr_parse.h"
#include "rtr_route.h"
#include "rtr_stats.h"
/* The control plane's API comes with the pipeline's for the app: the
 * worker loop calls the control plane (single-lcore mode), never the
 * other way (rtr_control.c needs only rtr_switch.h). */
#include "rtr_control.h"
#include "rtr_switch.h"

/*
 * Register the metadata dynamic field; call once after rte_eal_init and
 * before creating the mempool. Returns 0 when the dynamic field is used, 1
 * when there was no room and *priv_size bytes of mbuf private area must be
 * given to rte_pktmbuf_pool_create instead.
 */
int rtr_meta_register(uint16_t *priv_size);

/* The worker loop (lcore entry point argument: struct rtr_worker *). */
int rtr_worker_main(void *arg);

/* Egress I/O callbacks for worker w (set up by the app). */
void rtr_worker_egress_io(struct rtr_worker *w, struct rtr_egress_io *io);

/* LB I/O callbacks for worker w: released and control packets. */
void rtr_worker_lb_io(struct rtr_worker *w, struct rtr_lb_io *io);

/* Read worker w's LB mode and state as one pair (another thread; the pair
 * stays valid while the caller holds sw->lb_lock). */
void rtr_worker_lb_read(const struct rtr_worker *w, const struct rtr_lb_ops **ops, void **state);

/*
 * Switch every worker to ops, whose per-worker states (states[i] for
 * worker i) and shared state were created by the caller. Posts the
 * requests, waits until every worker has taken its own (each releases what
 * its old mode holds first), then frees the old states and the old shared
 * state. Control side only, one switch at a time; the workers must be
 * running (RTR_RUN or RTR_STOP_RX). Returns the packets released by the old
 * mode, or -errno.
 */
int64_t rtr_pipeline_lb_switch(struct rtr_switch *sw, const struct rtr_lb_ops *ops, void *shared,
		void *const *states);

/* Packets held anywhere in the pipeline right now (rings, egress queues,
 * delay lines). Takes sw->lb_lock. */
uint64_t rtr_pipeline_held(const struct rtr_switch *sw);

/* Fill the per-port flow_entries / flow_limit_share / flow_limit_rate of
 * summed counters from the workers' LB flow tables. */
void rtr_pipeline_flow_counters(const struct rtr_switch *sw, struct rtr_lcore_stats *sum);

#endif /* RTR_PIPELINE_H */

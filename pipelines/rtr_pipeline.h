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

#define RTR_CTRL_RING_SIZE   1024
/* Hand-off rings hold switch.handoff_ring packets (default 4096). */
#define RTR_INJECT_RING_SIZE 1024
#define RTR_CTRL_POLL_MASK   255 /* single-lcore: control work every 256 loops */

/*
 * Register the metadata dynamic field; call once after rte_eal_init and
 * before creating the mempool. Returns 0 when the dynamic field is used, 1
 * when there was no room and *priv_size bytes of mbuf private area must be
 * given to rte_pktmbuf_pool_create instead.
 */
int rtr_meta_register(uint16_t *priv_size);

enum rtr_run_state {
	RTR_RUN = 0,
	RTR_STOP_RX,	/* stop polling ports, keep draining rings */
	RTR_STOP_FINAL, /* drain rings once more, flush, return */
};

struct rtr_port_rt {
	uint16_t port_id;
	uint8_t configured;
	uint8_t role;		   /* enum rtr_port_role */
	uint8_t l2_filter;
	uint8_t mac[6];
	_Atomic uint8_t link_up;   /* written by the control plane */
	_Atomic uint8_t admin_down; /* config, or telemetry /rocetor/port/admin (rw) */
	_Atomic uint8_t lsc_event; /* set by the LSC interrupt callback */
	uint8_t link_known;	   /* control plane: link_up has been set once */
	uint8_t source_check;	   /* host port: sources must route back here */
};

struct rtr_rxq {
	uint16_t port;
	uint16_t queue;
};

struct rtr_switch;

/*
 * A runtime LB switch (doc/user-guide.md "Switching the LB mode at
 * runtime"), one request per worker, handed over field by field:
 *   control  fills ops and state (created off the data path), then stores
 *            the request in worker->lb_req (release);
 *   worker   at its next control poll takes it (exchange, acquire),
 *            releases what the old mode holds (in order, to its ports, as
 *            at exit), writes old_ops/old_state/released, installs the new
 *            pair and stores done = 1 (release);
 *   control  once every worker is done, frees the old states and the old
 *            shared state (under lb_lock, off the data path).
 */
struct rtr_lb_req {
	const struct rtr_lb_ops *ops;	  /* control -> worker */
	void *state;
	const struct rtr_lb_ops *old_ops; /* worker -> control */
	void *old_state;
	uint64_t released;		  /* packets the old mode held */
	_Atomic int done;
};

struct rtr_worker {
	unsigned int idx;	/* 0..n_workers-1; also its TX queue on every port */
	unsigned int lcore_id;
	bool is_control;	/* single-lcore mode: also runs the control plane */
	unsigned int n_rxq;
	struct rtr_rxq rxq[RTR_MAX_PORTS * 4];
	struct rte_ring *handoff; /* MP/SC: packets of flows this worker owns */
	struct rte_ring *inject;  /* SP/SC: frames from the control plane to send */
	struct rtr_switch *sw;
	struct rtr_lcore_stats *stats;
	/* The LB mode this worker runs: written only by the worker (at a
	 * runtime switch, inside lb_gen odd/even so that other threads read
	 * the pair whole: rtr_worker_lb_read). */
	const struct rtr_lb_ops *lb;
	void *lb_state;
	uint32_t lb_fabric_ports; /* bit p: port p is a fabric port (rtr_lb_hop) */
	_Atomic uint32_t lb_gen;
	struct rtr_lb_req *_Atomic lb_req; /* a pending runtime switch, or NULL */
	uint64_t last_rx_tsc;	/* read by the main lcore for --exit-on-idle */
	_Atomic int stopped;	/* acknowledged RTR_STOP_RX */
	struct rtr_egress *eg;	/* class queues, scheduler and TX of every port */
	struct rtr_fault *fault; /* faults.ctrl_loss generator; NULL when off */
	uint32_t down_seen;	/* ports this worker has seen down (queues flushed) */
	uint64_t now_ns;	/* the clock of the loop pass in progress */
	uint64_t bursts;	/* RX bursts that had packets (stage timing samples) */
} __rte_cache_aligned;

struct rtr_switch {
	const struct rtr_config *cfg;
	/* The LB mode of the switch: what every worker runs once no runtime
	 * switch is in progress. Workers use their own copy (worker->lb);
	 * lb and lb_shared change only under lb_lock. */
	const struct rtr_lb_ops *lb;
	void *lb_shared;	/* the LB mode's per-switch state (busy paths) */
	pthread_mutex_t lb_lock; /* held by readers of other workers' LB state */
	_Atomic int lb_switching; /* a runtime switch is in progress: no STOP_FINAL */
	_Atomic uint64_t lb_switches; /* runtime LB switches completed */
	struct rtr_route *route;
	struct rtr_neigh *neigh;
	struct rte_mempool *pool;
	struct rte_ring *ctrl_ring; /* MP/SC: punted frames for the control plane */
	struct rtr_port_rt ports[RTR_MAX_PORTS];
	/* Bit p: port p's link is down (ports[p].link_up as one word, for
	 * the LB stage: rtr_lb_init.link_down). Starts 0, as the groups
	 * start with every path live. Written by the control plane. */
	_Atomic uint32_t link_down_mask;
	unsigned int n_workers;
	struct rtr_worker *workers[RTR_MAX_LCORES];
	uint32_t hash_seed;
	struct rtr_egress_shared *egress; /* per-port state all workers share */
	uint64_t tsc_hz;
	uint32_t idle_sleep_us;
	uint32_t idle_threshold;
	_Atomic int run_state;	 /* enum rtr_run_state */
	/* Control-plane state (control lcore only). */
	uint64_t ctrl_last_tick_tsc;
	uint64_t ctrl_last_link_tsc;
	struct rtr_lcore_stats *ctrl_stats; /* counters of the control plane itself */
	/* Called by the control lcore on every control poll: the app's duration,
	 * idle and stats-interval checks. */
	void (*main_tick)(struct rtr_switch *sw, uint64_t now_tsc);
	void *main_arg;
};

/* The data path's clock: TSC to nanoseconds. */
static inline uint64_t
rtr_tsc_to_ns(const struct rtr_switch *sw, uint64_t tsc)
{
	return (uint64_t)((double)tsc * 1e9 / (double)sw->tsc_hz);
}

/* The worker loop (lcore entry point argument: struct rtr_worker *). */
int rtr_worker_main(void *arg);

/* One pass of the control plane: punted frames, neighbour timers, link
 * state. Returns how many frames it handled. Control lcore only. */
unsigned int rtr_control_poll(struct rtr_switch *sw, uint64_t now_tsc);

/* Control lcore: re-read link state of every port and update path liveness. */
void rtr_control_links(struct rtr_switch *sw);

/* Free every mbuf still in the control ring (at exit, after workers stop). */
unsigned int rtr_control_drain(struct rtr_switch *sw);

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

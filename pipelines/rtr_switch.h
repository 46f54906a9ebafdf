/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * The state of one switch that the worker loop (rtr_pipeline.c), the
 * control plane (rtr_control.c) and the app share: ports as the data path
 * sees them, workers, the runtime LB switch hand-over. Types and inline
 * helpers only, so that the control plane needs nothing of the worker
 * loop's file and the worker loop calls the control plane, one way.
 */
#ifndef RTR_SWITCH_H
#define RTR_SWITCH_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include <rte_common.h>
#include <rte_mempool.h>
#include <rte_rcu_qsbr.h>
#include <rte_ring.h>

#include "rtr_common.h"
#include "rtr_config.h"
#include "rtr_egress.h"
#include "rtr_fault.h"
#include "rtr_fwd.h"
#include "rtr_rss.h"
#include "rtr_lb.h"
#include "rtr_neigh.h"
#include "rtr_route.h"
#include "rtr_stats.h"

/* The punt ring from the workers to the control plane, and what each
 * worker may punt into it: a token bucket of RTR_PUNT_BURST frames refilled
 * at RTR_PUNT_RATE_PPS. The control plane drains the whole ring at every
 * poll, so with workers * RTR_PUNT_BURST <= RTR_CTRL_RING_SIZE (up to 8
 * workers) the ring cannot fill; a flood above the rate (a replayed capture
 * full of ARP/ND) is dropped as punt_rate_limited instead of
 * crowding out the other workers' punts as control_ring_full. The ring's
 * size is in every pool's budget (app/budget.c): a larger ring would cost
 * each switch that many mbufs. */
#define RTR_CTRL_RING_SIZE 1024
#define RTR_PUNT_RATE_PPS  50000
#define RTR_PUNT_BURST     128
/* Hand-off rings hold switch.handoff_ring packets (default 4096). */
#define RTR_INJECT_RING_SIZE 1024
#define RTR_CTRL_POLL_MASK   255 /* single-lcore: control work every 256 loops */
/* LB control packets' mbufs a worker allocates at a time (struct
 * rtr_worker ctrl_mb; in every pool's budget, app/budget.c). */
#define RTR_CTRL_STASH 16

enum rtr_run_state {
	RTR_RUN = 0,
	RTR_STOP_RX,    /* stop polling ports, keep draining rings */
	RTR_STOP_FINAL, /* drain rings once more, flush, return */
};

struct rtr_rxq {
	uint16_t port;
	uint16_t queue;
	/* Most packets the queue can hold before the worker takes them:
	 * twice its descriptors (the NIC's own buffer besides the ring;
	 * doc/architecture.md "Time"). 0: unknown. */
	uint32_t cap;
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
	const struct rtr_lb_ops *ops; /* control -> worker */
	void *state;
	const struct rtr_lb_ops *old_ops; /* worker -> control */
	void *old_state;
	uint64_t released; /* packets the old mode held */
	_Atomic int done;
};

struct rtr_worker {
	unsigned int idx; /* 0..n_workers-1; also its TX queue on every port */
	unsigned int lcore_id;
	bool is_control; /* single-lcore mode: also runs the control plane */
	/* The thread's CPU-time clock (pthread_getcpuclockid), for the stats
	 * document's worker_cpu_s; valid once cpu_clock_ok is set. */
	clockid_t cpu_clock;
	_Atomic bool cpu_clock_ok;
	unsigned int n_rxq;
	struct rtr_rxq rxq[RTR_MAX_PORTS * 4];
	struct rte_ring *handoff; /* MP/SC: packets of flows this worker owns */
	struct rte_ring *inject;  /* SP/SC: frames from the control plane to send */
	struct rtr_switch *sw;
	struct rtr_lcore_stats *stats;
	/* The forwarding step's tables (lib/fwd), set at start. fwd.lb and
	 * fwd.lb_state, the LB mode this worker runs, are written only by
	 * the worker (at a runtime switch, inside lb_gen odd/even so that
	 * other threads read the pair whole: rtr_worker_lb_read). */
	struct rtr_fwd fwd;
	_Atomic uint32_t lb_gen;
	struct rtr_lb_req *_Atomic lb_req; /* a pending runtime switch, or NULL */
	uint64_t last_rx_tsc;              /* read by the main lcore for --exit-on-idle */
	_Atomic int stopped;               /* acknowledged RTR_STOP_RX */
	struct rtr_egress *eg;             /* class queues, scheduler and TX of every port */
	/* Its TX queue on every port for each hardware queue of the egress
	 * (qos.hw_queues): idx + h * n_workers. */
	uint16_t txq[RTR_MAX_HW_QUEUES];
	/* Per port, for the bounded NIC ring's descriptor cap: the driver's
	 * descriptor-status convention (enum rtr_eg_ds; NONE: not read) and
	 * the TX ring's size. */
	uint8_t tx_ds[RTR_MAX_PORTS];
	uint16_t tx_ring[RTR_MAX_PORTS];
	/* qos.pfc.mode nic, pause or external: skip the RX queues of a port
	 * the egress holds (rtr_egress_rx_held; doc/egress.md "When the NIC
	 * sends the PFC"). */
	bool rx_hold_on;
	/* The pool this worker allocates from (frames the LB stage and the
	 * egress build): its socket's, or the switch's main pool when its
	 * socket has no ports (app/numa.c). NULL: sw->pool. */
	struct rte_mempool *pool;
	struct rtr_fault *fault; /* faults.ctrl_loss generator; NULL when off */
	uint32_t down_seen;      /* ports this worker has seen down (queues flushed) */
	uint64_t now_ns;         /* the clock of the loop pass in progress */
	/* Time as the LB stage may judge it (rtr_lb_clock.h): the horizon
	 * of each RX queue and of the hand-off ring's packets from host and
	 * from fabric ports (RTR_LB_IN_*); clock (the LB state's
	 * rtr_lb_init.clock) has their minima. rx_seen_ns, the RX queues'
	 * by kind (published after what they gave was handed off), is what
	 * the other workers' hand-off rings are judged by. */
	struct rtr_lb_clock clock;
	struct rtr_lb_hz_q hz_rxq[RTR_MAX_PORTS * 4];
	struct rtr_lb_hz_q hz_ring[2];
	_Atomic uint64_t rx_seen_ns[2];
	uint32_t stall_left; /* faults.stall_every: polls to the next stall */
	uint64_t bursts;     /* RX bursts that had packets (stage timing samples) */
	/* Punt rate limit (GCRA): the time at which the bucket would be full
	 * again, in the worker's now_ns clock. */
	uint64_t punt_tat_ns;
	/* LB control packets (a DstToR's RTT_REPLY, CLEAR, NOTIFY), in
	 * batches: the mbufs they are built in, allocated RTR_CTRL_STASH at
	 * a time and given back when the worker is idle; the built ones,
	 * forwarded as one burst at the end of the burst that made them
	 * (ctrl_flush). */
	unsigned int ctrl_mb_n;
	unsigned int ctrl_out_n;
	struct rte_mbuf *ctrl_mb[RTR_CTRL_STASH];
	struct rte_mbuf *ctrl_out[RTR_BURST];
} __rte_cache_aligned;

struct rtr_switch {
	const struct rtr_config *cfg;
	/* The LB mode of the switch: what every worker runs once no runtime
	 * switch is in progress. Workers use their own copy (worker->lb);
	 * lb and lb_shared change only under lb_lock. */
	const struct rtr_lb_ops *lb;
	void *lb_shared;              /* the LB mode's per-switch state (busy paths) */
	pthread_mutex_t lb_lock;      /* held by readers of other workers' LB state */
	_Atomic int lb_switching;     /* a runtime switch is in progress: no STOP_FINAL */
	_Atomic uint64_t lb_switches; /* runtime LB switches completed */
	struct rtr_route *route;
	/* Workers report quiescence on it once per loop (thread id = worker
	 * index): what run-time route changes wait for before they free or
	 * reuse what a worker may still read (lib/route). NULL: none. */
	struct rte_rcu_qsbr *qsbr;
	/* Route changes other threads ask the control lcore for. */
	struct rtr_route_mbox route_mbox;
	struct rtr_neigh *neigh;
	struct rte_mempool *pool; /* the main pool: the control plane's */
	/* Every mempool, one per socket that has ports (sw->pool among
	 * them): what the in-use count sums (rtr_switch_pool_in_use). */
	unsigned int n_pools;
	struct rte_mempool *pools[RTE_MAX_NUMA_NODES];
	struct rte_ring *ctrl_ring; /* MP/SC: punted frames for the control plane */
	struct rtr_fwd_port ports[RTR_MAX_PORTS];
	/* Bit p: port p's link is down (ports[p].link_up as one word, for
	 * the LB stage: rtr_lb_init.link_down). Starts 0, as the groups
	 * start with every path live. Written by the control plane. */
	_Atomic uint32_t link_down_mask;
	unsigned int n_workers;
	struct rtr_worker *workers[RTR_MAX_LCORES];
	uint32_t hash_seed;
	/* Which worker owns a flow: the Toeplitz hash of rocetor's key and
	 * its owner slots (lib/rss/rtr_rss.h), the ports' RETAs agree. */
	struct rtr_rss rss;
	/* Bit p: port p delivers that hash in the mbuf (RTE_MBUF_F_RX_RSS_HASH
	 * with rocetor's key and UDP ports hashed, read back at start-up). */
	uint32_t rss_nic_hash;
	struct rtr_egress_shared *egress; /* per-port state all workers share */
	uint64_t tsc_hz;
	uint32_t idle_sleep_us;
	uint32_t idle_threshold;
	_Atomic int run_state; /* enum rtr_run_state */
	/* Control-plane state (control lcore only). */
	uint64_t ctrl_last_tick_tsc;
	uint64_t ctrl_last_link_tsc;
	struct rtr_lcore_stats *ctrl_stats; /* counters of the control plane itself */
	/* The control plane's punted frames that a kernel interface takes
	 * (the exception path, app/tap.c): true if it took m; reply_len: what
	 * the control plane answered itself. NULL: none. */
	bool (*kernel_punt)(struct rtr_switch *sw, struct rte_mbuf *m, uint32_t reply_len);
	/* Called by the control lcore on every control poll: the app's duration,
	 * idle and stats-interval checks. */
	void (*main_tick)(struct rtr_switch *sw, uint64_t now_tsc);
	void *main_arg;
};

/* Seconds the workers' threads have been on a CPU, summed (what a
 * polling worker costs on a shared machine); -1 if a clock is missing. */
static inline double
rtr_workers_cpu_s(const struct rtr_switch *sw)
{
	double total = 0;

	for (unsigned int i = 0; i < sw->n_workers; i++) {
		const struct rtr_worker *w = sw->workers[i];
		struct timespec ts;

		if (w == NULL || !atomic_load_explicit(&w->cpu_clock_ok, memory_order_acquire) ||
				clock_gettime(w->cpu_clock, &ts) != 0)
			return -1;
		total += (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
	}
	return total;
}

/* mbufs out of the switch's pools now (all sockets). */
static inline unsigned int
rtr_switch_pool_in_use(const struct rtr_switch *sw)
{
	unsigned int n = 0;

	if (sw->n_pools == 0)
		return sw->pool != NULL ? rte_mempool_in_use_count(sw->pool) : 0;
	for (unsigned int k = 0; k < sw->n_pools; k++)
		n += rte_mempool_in_use_count(sw->pools[k]);
	return n;
}

/* The pool a worker allocates from. */
static inline struct rte_mempool *
rtr_worker_pool(const struct rtr_worker *w)
{
	return w->pool != NULL ? w->pool : w->sw->pool;
}

/* The data path's clock: TSC to nanoseconds. */
static inline uint64_t
rtr_tsc_to_ns(const struct rtr_switch *sw, uint64_t tsc)
{
	return (uint64_t)((double)tsc * 1e9 / (double)sw->tsc_hz);
}

#endif /* RTR_SWITCH_H */

/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * NUMA for the port set-up (app/ports.c): where the ports and the workers
 * are, the RX queues dealt by socket (app/deal.h), one mempool per socket
 * that has ports, sized by the budget split per socket (app/budget.h), and
 * the start-up lines that say so.
 */
#ifndef RTR_APP_NUMA_H
#define RTR_APP_NUMA_H

#include <rte_mempool.h>

#include "budget.h"
#include "rtr_app.h"

/* After the queue counts (app->rxq): read the sockets of the ports, the
 * workers and the main lcore (for the pools and the dealing); warn of each
 * port on a socket without workers. Returns 0 or -EINVAL (a port with more
 * queues than the dealing takes). */
int rtr_numa_sockets(struct rtr_app *app);

/* Before port i's RX queues are set up, once app->rss_owner[i] is known:
 * deal them (app/deal.h) and warn of RSS owner queues on another socket.
 * Returns 0 or -EINVAL. */
int rtr_numa_deal_port(struct rtr_app *app, unsigned int i);

/* The worker that polls RX queue q of configured port i (after
 * rtr_numa_deal_port(app, i)). */
unsigned int rtr_numa_rx_worker(unsigned int i, unsigned int q);

/* Create the pools (sw->pools, sw->pool the main one, each worker's
 * pool), set app->n_mbufs to their sum.
 * in and b: the budget (app/budget.h). Returns 0 or -ENOMEM/-EINVAL. */
int rtr_numa_pools_create(
		struct rtr_app *app, const struct rtr_budget_in *in, const struct rtr_budget *b);

/* One line per socket in use (ports, workers, pool parts, memory in MiB)
 * and the LB state's size, after rtr_numa_pools_create. */
void rtr_numa_print(void);

/* The pool of configured port i's RX queues: its socket's. */
struct rte_mempool *rtr_numa_rx_pool(const struct rtr_app *app, unsigned int i);

#endif /* RTR_APP_NUMA_H */

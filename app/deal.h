/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * Dealing the ports' RX queues to the workers by NUMA socket: a pure
 * function (no EAL), so a unit test drives it with any socket map
 * (app/test_deal.c) and the port set-up (app/ports.c) only asks the
 * devices and the lcores where they are.
 *
 * The rule, per configured port i on socket s:
 *   - rss_owner[i] (the NIC's RETA makes queue q the owner of the flows
 *     it receives, pipelines/ and app/rss.*): queue q goes to worker q,
 *     whatever socket it is on; queues whose worker is on another socket
 *     than the port are a warning (RTR_DEAL_W_OWNER_REMOTE, one per port);
 *   - otherwise queue q goes to L[(q + i) % |L|], L the workers on s in
 *     index order: rotated by the port's index, so one-queue ports spread
 *     over the workers. A port or a worker on SOCKET_ID_ANY (-1: virtual
 *     devices) is on every socket. No worker on s: every worker is in L
 *     and the port is a warning (RTR_DEAL_W_NO_LOCAL_WORKER).
 * With every socket equal or "any", L is every worker: queue q of port i
 * goes to worker (q + i) % n_workers, as before NUMA was considered.
 */
#ifndef RTR_APP_DEAL_H
#define RTR_APP_DEAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rtr_common.h"

/* RX queues per port the dealing takes (ports[].rx_queues is 0..64). */
#define RTR_DEAL_MAX_RXQ RTR_MAX_LCORES
/* A socket that stands for every socket (DPDK's SOCKET_ID_ANY). */
#define RTR_DEAL_ANY (-1)

struct rtr_deal_in {
	unsigned int n_workers; /* 1..RTR_MAX_LCORES */
	int worker_socket[RTR_MAX_LCORES];
	unsigned int n_ports; /* configured ports, 0..RTR_MAX_PORTS */
	int port_socket[RTR_MAX_PORTS];
	uint16_t rxq[RTR_MAX_PORTS];   /* 1..RTR_DEAL_MAX_RXQ */
	bool rss_owner[RTR_MAX_PORTS]; /* queue q must go to worker q */
};

enum rtr_deal_warn_code {
	/* The port's socket has no worker: its queues go to all workers
	 * (every packet crosses the socket interconnect). */
	RTR_DEAL_W_NO_LOCAL_WORKER = 1,
	/* rss_owner: some queues q go to workers q on another socket (one
	 * warning per port: how many, and the first of them). */
	RTR_DEAL_W_OWNER_REMOTE,
};

struct rtr_deal_warn {
	enum rtr_deal_warn_code code;
	unsigned int port; /* index in the config's ports */
	/* OWNER_REMOTE: the first remote queue, its worker and the worker's
	 * socket, and how many of the port's queues are remote; else 0, 0,
	 * -1, 0. */
	unsigned int queue;
	unsigned int worker;
	int port_socket;
	int worker_socket;
	unsigned int n_remote;
	unsigned int n_queues; /* the port's RX queues */
};

/* At most one warning per port. */
#define RTR_DEAL_MAX_WARN RTR_MAX_PORTS

struct rtr_deal_out {
	/* worker[i][q]: the worker that polls RX queue q of port i. */
	uint16_t worker[RTR_MAX_PORTS][RTR_DEAL_MAX_RXQ];
	unsigned int n_warn;
	struct rtr_deal_warn warn[RTR_DEAL_MAX_WARN];
};

/*
 * Deal every port's RX queues. Returns 0, or -EINVAL (out untouched
 * beyond what was dealt) when in is out of range: no worker, too many
 * workers or ports, a port without queues or with more than
 * RTR_DEAL_MAX_RXQ, or an rss_owner port whose queue count is not the
 * worker count.
 */
int rtr_deal_rxq(const struct rtr_deal_in *in, struct rtr_deal_out *out);

/* One warning as a sentence (no newline), for the start-up log; port_id
 * is the DPDK port id of the config's port w->port. Returns buf. */
const char *rtr_deal_warn_str(
		const struct rtr_deal_warn *w, unsigned int port_id, char *buf, size_t len);

#endif /* RTR_APP_DEAL_H */

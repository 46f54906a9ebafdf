/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * NUMA at start-up (numa.h). The EAL allocates from the socket it is asked
 * for and does not fall back to another: a single pool on the main lcore's
 * socket needed the whole budget there, and the NICs of the other socket
 * DMA'd into remote memory. Here each socket with ports has its own pool,
 * sized by what lives there (app/budget.c rtr_budget_sockets), and the
 * workers poll the queues of their own socket's ports (app/deal.c).
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "deal.h"
#include "numa.h"

/* One process, one switch: the dealing and the sockets it was made with. */
static struct {
	struct rtr_budget_where where;
	struct rtr_deal_in in;
	struct rtr_deal_out deal;
	bool no_local[RTR_MAX_PORTS]; /* the port's socket has no worker */
	struct rtr_budget_sockets sockets;
	struct rte_mempool *pool_of[RTR_BUDGET_MAX_SOCKETS];
} numa;

static int
socket_or_any(int s)
{
	return s < 0 || s >= RTR_BUDGET_MAX_SOCKETS ? RTR_DEAL_ANY : s;
}

int
rtr_numa_sockets(struct rtr_app *app)
{
	const struct rtr_config *cfg = &app->cfg;
	const struct rtr_switch *sw = &app->sw;
	struct rtr_budget_where *wh = &numa.where;
	struct rtr_deal_in *in = &numa.in;
	char msg[320];

	memset(in, 0, sizeof(*in));
	memset(numa.no_local, 0, sizeof(numa.no_local));
	memset(wh, 0, sizeof(*wh));
	wh->main_socket = socket_or_any((int)rte_lcore_to_socket_id(rte_get_main_lcore()));
	if (wh->main_socket < 0)
		wh->main_socket = 0;
	wh->priv_size = app->mbuf_priv_size;
	in->n_workers = sw->n_workers;
	for (unsigned int w = 0; w < sw->n_workers; w++)
		wh->worker_socket[w] = in->worker_socket[w] = socket_or_any(
				(int)rte_lcore_to_socket_id(sw->workers[w]->lcore_id));
	in->n_ports = cfg->n_ports;
	for (unsigned int i = 0; i < cfg->n_ports; i++) {
		/* SOCKET_ID_ANY for virtual devices: as near to every worker. */
		wh->port_socket[i] = in->port_socket[i] =
				socket_or_any(rte_eth_dev_socket_id(cfg->ports[i].port));
		in->rxq[i] = app->rxq[i];
	}
	/* Checked now, before the pools (RSS owner flags come with each
	 * port's configuration): a port on a socket without workers is said
	 * before a pool on that socket may fail. */
	if (rtr_deal_rxq(in, &numa.deal) != 0) {
		fprintf(stderr,
				"rocetor: cannot deal the RX queues to %u workers (a port with "
				"more than %u queues)\n",
				sw->n_workers, RTR_DEAL_MAX_RXQ);
		return -EINVAL;
	}
	for (unsigned int k = 0; k < numa.deal.n_warn; k++) {
		const struct rtr_deal_warn *w = &numa.deal.warn[k];

		if (w->code != RTR_DEAL_W_NO_LOCAL_WORKER)
			continue;
		numa.no_local[w->port] = true;
		printf("rocetor: warning: %s\n",
				rtr_deal_warn_str(w, cfg->ports[w->port].port, msg, sizeof(msg)));
	}
	return 0;
}

int
rtr_numa_deal_port(struct rtr_app *app, unsigned int i)
{
	const struct rtr_config *cfg = &app->cfg;
	char msg[320];

	numa.in.rss_owner[i] = app->rss_owner[i];
	if (rtr_deal_rxq(&numa.in, &numa.deal) != 0) {
		fprintf(stderr,
				"rocetor: port %u: cannot deal its %u RX queues to %u workers (RSS "
				"owner queues must be one per worker)\n",
				cfg->ports[i].port, app->rxq[i], numa.in.n_workers);
		return -EINVAL;
	}
	for (unsigned int k = 0; k < numa.deal.n_warn; k++) {
		const struct rtr_deal_warn *w = &numa.deal.warn[k];

		/* A port on a socket without workers was said already. */
		if (w->port == i && !numa.no_local[i])
			printf("rocetor: warning: %s\n",
					rtr_deal_warn_str(w, cfg->ports[i].port, msg, sizeof(msg)));
	}
	return 0;
}

unsigned int
rtr_numa_rx_worker(unsigned int i, unsigned int q)
{
	return numa.deal.worker[i][q];
}

static double
mib(uint64_t bytes)
{
	return (double)bytes / (1 << 20);
}

static void
print_socket(int k, const struct rtr_budget_socket *s, const char *pool)
{
	char parts[256] = "no pool (no port)";

	if (s->pool)
		snprintf(parts, sizeof(parts),
				"pool %s %u mbufs = rx %" PRIu64 " + tx %" PRIu64
				" descriptors + workers %" PRIu64 " + egress %" PRIu64
				" + hold %" PRIu64 " + control %" PRIu64,
				pool, s->mbufs, s->rx_desc, s->tx_desc, s->workers, s->egress,
				s->hold, s->control);
	printf("rocetor: socket %d: %u port%s, %u worker%s; %s; memory %.1f MiB: mbufs %.1f, "
	       "LB state %.1f, egress %.1f, rings %.1f, routes %.1f\n",
			k, s->n_ports, s->n_ports == 1 ? "" : "s", s->n_workers,
			s->n_workers == 1 ? "" : "s", parts, mib(s->total_bytes),
			mib(s->mbuf_bytes), mib(s->lb_bytes), mib(s->egress_bytes),
			mib(s->ring_bytes), mib(s->route_bytes));
}

int
rtr_numa_pools_create(
		struct rtr_app *app, const struct rtr_budget_in *in, const struct rtr_budget *b)
{
	struct rtr_switch *sw = &app->sw;
	struct rtr_budget_sockets *bs = &numa.sockets;
	char name[RTE_MEMPOOL_NAMESIZE];
	int rc;

	numa.where.priv_size = app->mbuf_priv_size;
	rc = rtr_budget_sockets(&app->cfg, in, b, &numa.where, bs);
	if (rc != 0) {
		fprintf(stderr, "rocetor: cannot split the mempool budget by socket\n");
		return rc;
	}
	app->n_mbufs = (uint32_t)RTE_MIN(bs->pools_mbufs, (uint64_t)UINT32_MAX);
	/* The main pool first, under the name it always had. */
	for (int pass = 0; pass < 2; pass++) {
		for (int k = 0; k < RTR_BUDGET_MAX_SOCKETS; k++) {
			const struct rtr_budget_socket *s = &bs->s[k];
			struct rte_mempool *mp;

			if (!s->pool || (pass == 0) != (k == bs->main_pool))
				continue;
			if (k == bs->main_pool)
				snprintf(name, sizeof(name), "rtr_pool");
			else
				snprintf(name, sizeof(name), "rtr_pool_s%d", k);
			mp = rte_pktmbuf_pool_create(name, s->mbufs, RTR_POOL_CACHE,
					app->mbuf_priv_size, (uint16_t)app->mbuf_data_room, k);
			if (mp == NULL) {
				fprintf(stderr,
						"cannot create the mempool of %u mbufs on socket "
						"%d "
						"(%.1f MiB): %s (hugepages on that socket: "
						"doc/user-guide.md)\n",
						s->mbufs, k, mib(s->mbuf_bytes),
						rte_strerror(rte_errno));
				return -ENOMEM;
			}
			numa.pool_of[k] = mp;
			sw->pools[sw->n_pools++] = mp;
		}
	}
	sw->pool = numa.pool_of[bs->main_pool];
	for (unsigned int w = 0; w < sw->n_workers; w++) {
		int ws = numa.where.worker_socket[w];

		ws = ws < 0 ? numa.where.main_socket : ws;
		sw->workers[w]->pool = numa.pool_of[ws] != NULL ? numa.pool_of[ws] : sw->pool;
	}
	return 0;
}

void
rtr_numa_print(void)
{
	const struct rtr_budget_sockets *bs = &numa.sockets;

	for (int k = 0; k < RTR_BUDGET_MAX_SOCKETS; k++)
		if (bs->s[k].used)
			print_socket(k, &bs->s[k],
					numa.pool_of[k] != NULL ? numa.pool_of[k]->name : "");
	if (bs->lb_mode != NULL)
		printf("rocetor: %s state %.1f MiB per worker + %.1f MiB shared\n",
				bs->lb_mode->name, mib(bs->lb_per_worker), mib(bs->lb_shared));
}

struct rte_mempool *
rtr_numa_rx_pool(const struct rtr_app *app, unsigned int i)
{
	int s = numa.where.port_socket[i];

	s = s < 0 ? numa.where.main_socket : s;
	return numa.pool_of[s] != NULL ? numa.pool_of[s] : app->sw.pool;
}

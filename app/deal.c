/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * The RX queue dealing by socket (deal.h has the rule). A worker polls the
 * queues of the ports on its own socket where it can: the descriptors, the
 * mbufs (the pool of the port's socket, app/ports.c) and the worker's
 * state are then in one socket's memory, and only what is forwarded to a
 * port of the other socket crosses the interconnect.
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "deal.h"

static bool
same_socket(int a, int b)
{
	return a == RTR_DEAL_ANY || b == RTR_DEAL_ANY || a == b;
}

static struct rtr_deal_warn *
warn(struct rtr_deal_out *out, enum rtr_deal_warn_code code, unsigned int port, int port_socket,
		unsigned int n_queues)
{
	struct rtr_deal_warn *w;

	if (out->n_warn >= RTR_DEAL_MAX_WARN)
		return NULL;
	w = &out->warn[out->n_warn++];
	memset(w, 0, sizeof(*w));
	w->code = code;
	w->port = port;
	w->port_socket = port_socket;
	w->worker_socket = RTR_DEAL_ANY;
	w->n_queues = n_queues;
	return w;
}

static int
check_in(const struct rtr_deal_in *in)
{
	if (in->n_workers == 0 || in->n_workers > RTR_MAX_LCORES || in->n_ports > RTR_MAX_PORTS)
		return -EINVAL;
	for (unsigned int i = 0; i < in->n_ports; i++) {
		if (in->rxq[i] == 0 || in->rxq[i] > RTR_DEAL_MAX_RXQ)
			return -EINVAL;
		if (in->rss_owner[i] && in->rxq[i] != in->n_workers)
			return -EINVAL;
	}
	return 0;
}

int
rtr_deal_rxq(const struct rtr_deal_in *in, struct rtr_deal_out *out)
{
	uint16_t local[RTR_MAX_LCORES];

	if (in == NULL || out == NULL || check_in(in) != 0)
		return -EINVAL;
	out->n_warn = 0;
	for (unsigned int i = 0; i < in->n_ports; i++) {
		int ps = in->port_socket[i];
		unsigned int n_local = 0;

		if (in->rss_owner[i]) {
			struct rtr_deal_warn *w = NULL;

			for (unsigned int q = 0; q < in->rxq[i]; q++) {
				out->worker[i][q] = (uint16_t)q;
				if (same_socket(ps, in->worker_socket[q]))
					continue;
				if (w == NULL) {
					w = warn(out, RTR_DEAL_W_OWNER_REMOTE, i, ps, in->rxq[i]);
					if (w == NULL)
						continue;
					w->queue = q;
					w->worker = q;
					w->worker_socket = in->worker_socket[q];
				}
				w->n_remote++;
			}
			continue;
		}
		for (unsigned int w = 0; w < in->n_workers; w++)
			if (same_socket(ps, in->worker_socket[w]))
				local[n_local++] = (uint16_t)w;
		if (n_local == 0) {
			warn(out, RTR_DEAL_W_NO_LOCAL_WORKER, i, ps, in->rxq[i]);
			for (unsigned int w = 0; w < in->n_workers; w++)
				local[n_local++] = (uint16_t)w;
		}
		for (unsigned int q = 0; q < in->rxq[i]; q++)
			out->worker[i][q] = local[(q + i) % n_local];
	}
	return 0;
}

const char *
rtr_deal_warn_str(const struct rtr_deal_warn *w, unsigned int port_id, char *buf, size_t len)
{
	switch (w->code) {
	case RTR_DEAL_W_NO_LOCAL_WORKER:
		snprintf(buf, len,
				"port %u is on socket %d, which has no worker: its RX queues "
				"go to the workers of other sockets (every packet crosses the "
				"interconnect; give the EAL an lcore on socket %d)",
				port_id, w->port_socket, w->port_socket);
		break;
	case RTR_DEAL_W_OWNER_REMOTE:
		snprintf(buf, len,
				"port %u (socket %d): %u of its %u RX queues go to the workers "
				"that own their flows on another socket (RSS owner; the first: "
				"queue %u to worker %u on socket %d)",
				port_id, w->port_socket, w->n_remote, w->n_queues, w->queue,
				w->worker, w->worker_socket);
		break;
	default:
		snprintf(buf, len, "port %u: dealing warning %d", port_id, (int)w->code);
		break;
	}
	return buf;
}

/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * The RX queue dealing (app/deal.c) on fake socket maps: one socket (the
 * old (q + i) % n exactly), two sockets with ports on each and workers on
 * both or on one, virtual devices on any socket, and ports whose queues
 * are their flows' owners (rss_owner).
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_common.h>

#include "deal.h"
#include "rtr_test.h"

static void
in_init(struct rtr_deal_in *in, unsigned int n_workers, unsigned int n_ports, uint16_t rxq)
{
	memset(in, 0, sizeof(*in));
	in->n_workers = n_workers;
	in->n_ports = n_ports;
	for (unsigned int i = 0; i < n_ports && i < RTR_MAX_PORTS; i++)
		in->rxq[i] = rxq;
}

/* Count of warnings with code c for port i. */
static unsigned int
n_warn(const struct rtr_deal_out *out, enum rtr_deal_warn_code c, unsigned int port)
{
	unsigned int n = 0;

	for (unsigned int k = 0; k < out->n_warn; k++)
		if (out->warn[k].code == c && out->warn[k].port == port)
			n++;
	return n;
}

/* Every socket equal (0, or all "any", or a mix of 1 and "any"): the
 * dealing is (q + i) % n for every worker count, port count and queue
 * count, and nothing is warned. */
static void
test_one_socket(void)
{
	static const int maps[][2] = {
			{0, 0}, {RTR_DEAL_ANY, RTR_DEAL_ANY}, {1, RTR_DEAL_ANY}, {RTR_DEAL_ANY, 1}};
	struct rtr_deal_in in;
	static struct rtr_deal_out out;
	unsigned int bad = 0, warned = 0, cases = 0;

	printf("1. one socket: (q + i) %% n\n");
	for (unsigned int m = 0; m < RTE_DIM(maps); m++)
		for (unsigned int nw = 1; nw <= 8; nw++)
			for (unsigned int np = 1; np <= 6; np++)
				for (uint16_t rxq = 1; rxq <= 9; rxq++) {
					in_init(&in, nw, np, rxq);
					for (unsigned int w = 0; w < nw; w++)
						in.worker_socket[w] = maps[m][0];
					for (unsigned int i = 0; i < np; i++)
						in.port_socket[i] = maps[m][1];
					if (rtr_deal_rxq(&in, &out) != 0) {
						bad++;
						continue;
					}
					cases++;
					warned += out.n_warn;
					for (unsigned int i = 0; i < np; i++)
						for (unsigned int q = 0; q < rxq; q++)
							if (out.worker[i][q] != (q + i) % nw)
								bad++;
				}
	CHECK_EQ(cases, 4 * 8 * 6 * 9);
	CHECK_EQ(bad, 0);
	CHECK_EQ(warned, 0);
	/* One hand-checked case: 3 workers, ports of 1, 2 and 3 queues. */
	in_init(&in, 3, 3, 1);
	in.rxq[1] = 2;
	in.rxq[2] = 3;
	CHECK_EQ(rtr_deal_rxq(&in, &out), 0);
	CHECK_EQ(out.worker[0][0], 0);
	CHECK_EQ(out.worker[1][0], 1);
	CHECK_EQ(out.worker[1][1], 2);
	CHECK_EQ(out.worker[2][0], 2);
	CHECK_EQ(out.worker[2][1], 0);
	CHECK_EQ(out.worker[2][2], 1);
}

/* Two sockets, workers 0, 1 on socket 0 and 2, 3 on socket 1; ports 0, 1
 * on socket 0, ports 2, 3 on socket 1, one queue per worker each: every
 * queue stays on its port's socket, and each local worker gets the same
 * number of queues. */
static void
test_two_sockets(void)
{
	static const int ws[4] = {0, 0, 1, 1};
	static const int ps[4] = {0, 0, 1, 1};
	struct rtr_deal_in in;
	static struct rtr_deal_out out;
	unsigned int per_worker[4] = {0}, remote = 0;

	printf("2. two sockets, workers on both\n");
	in_init(&in, 4, 4, 4);
	memcpy(in.worker_socket, ws, sizeof(ws));
	memcpy(in.port_socket, ps, sizeof(ps));
	CHECK_EQ(rtr_deal_rxq(&in, &out), 0);
	CHECK_EQ(out.n_warn, 0);
	for (unsigned int i = 0; i < 4; i++)
		for (unsigned int q = 0; q < 4; q++) {
			unsigned int w = out.worker[i][q];

			CHECK(w < 4, "port %u queue %u: worker %u", i, q, w);
			if (w >= 4)
				continue;
			per_worker[w]++;
			if (ws[w] != ps[i])
				remote++;
		}
	CHECK_EQ(remote, 0);
	for (unsigned int w = 0; w < 4; w++)
		CHECK_EQ(per_worker[w], 4);
	/* The rotation: L = {0, 1} for ports 0 and 1, {2, 3} for 2 and 3;
	 * queue q of port i is L[(q + i) % 2]. */
	CHECK_EQ(out.worker[0][0], 0);
	CHECK_EQ(out.worker[0][1], 1);
	CHECK_EQ(out.worker[1][0], 1);
	CHECK_EQ(out.worker[1][1], 0);
	CHECK_EQ(out.worker[2][0], 2);
	CHECK_EQ(out.worker[2][1], 3);
	CHECK_EQ(out.worker[3][0], 3);
	CHECK_EQ(out.worker[3][1], 2);

	/* Single-queue ports on socket 1 with three workers there (1, 2, 3)
	 * and one on socket 0: ports spread over the three by their index. */
	in_init(&in, 4, 4, 1);
	in.worker_socket[0] = 0;
	in.worker_socket[1] = in.worker_socket[2] = in.worker_socket[3] = 1;
	for (unsigned int i = 0; i < 4; i++)
		in.port_socket[i] = 1;
	CHECK_EQ(rtr_deal_rxq(&in, &out), 0);
	CHECK_EQ(out.n_warn, 0);
	CHECK_EQ(out.worker[0][0], 1);
	CHECK_EQ(out.worker[1][0], 2);
	CHECK_EQ(out.worker[2][0], 3);
	CHECK_EQ(out.worker[3][0], 1);
}

/* Workers on socket 0 only, ports on both: the socket-1 ports fall back
 * to all workers, (q + i) % n, with one warning each; the socket-0 ports
 * are not warned. */
static void
test_no_local_worker(void)
{
	struct rtr_deal_in in;
	static struct rtr_deal_out out;
	char buf[256];

	printf("3. a socket without workers\n");
	in_init(&in, 3, 4, 3);
	in.port_socket[0] = 0;
	in.port_socket[1] = 1;
	in.port_socket[2] = 0;
	in.port_socket[3] = 1;
	CHECK_EQ(rtr_deal_rxq(&in, &out), 0);
	CHECK_EQ(out.n_warn, 2);
	CHECK_EQ(n_warn(&out, RTR_DEAL_W_NO_LOCAL_WORKER, 1), 1);
	CHECK_EQ(n_warn(&out, RTR_DEAL_W_NO_LOCAL_WORKER, 3), 1);
	CHECK_EQ(n_warn(&out, RTR_DEAL_W_NO_LOCAL_WORKER, 0), 0);
	CHECK_EQ(out.warn[0].port_socket, 1);
	for (unsigned int i = 0; i < 4; i++)
		for (unsigned int q = 0; q < 3; q++)
			CHECK_EQ(out.worker[i][q], (q + i) % 3);
	rtr_deal_warn_str(&out.warn[0], 7, buf, sizeof(buf));
	CHECK(strstr(buf, "port 7 is on socket 1, which has no worker") != NULL, "%s", buf);

	/* A port on socket 1 with workers 0 and 2 on socket 1, worker 1 on
	 * socket 0: only 0 and 2 poll it. */
	in_init(&in, 3, 2, 4);
	in.worker_socket[1] = 0;
	in.worker_socket[0] = in.worker_socket[2] = 1;
	in.port_socket[0] = 1;
	in.port_socket[1] = 0;
	CHECK_EQ(rtr_deal_rxq(&in, &out), 0);
	CHECK_EQ(out.n_warn, 0);
	CHECK_EQ(out.worker[0][0], 0);
	CHECK_EQ(out.worker[0][1], 2);
	CHECK_EQ(out.worker[0][2], 0);
	CHECK_EQ(out.worker[0][3], 2);
	for (unsigned int q = 0; q < 4; q++)
		CHECK_EQ(out.worker[1][q], 1);
}

/* Virtual devices (socket any) next to a socket-1 NIC, workers on both
 * sockets: the vdev's queues go to every worker, (q + i) % n, unwarned;
 * a worker on "any" is local to every port. */
static void
test_any(void)
{
	struct rtr_deal_in in;
	static struct rtr_deal_out out;

	printf("4. any-socket devices and workers\n");
	in_init(&in, 4, 2, 4);
	in.worker_socket[0] = in.worker_socket[1] = 0;
	in.worker_socket[2] = in.worker_socket[3] = 1;
	in.port_socket[0] = RTR_DEAL_ANY;
	in.port_socket[1] = 1;
	CHECK_EQ(rtr_deal_rxq(&in, &out), 0);
	CHECK_EQ(out.n_warn, 0);
	for (unsigned int q = 0; q < 4; q++)
		CHECK_EQ(out.worker[0][q], q % 4);
	CHECK_EQ(out.worker[1][0], 3);
	CHECK_EQ(out.worker[1][1], 2);

	/* A worker whose lcore spans sockets (any) polls socket-1 ports;
	 * socket-0 workers do not. */
	in_init(&in, 3, 1, 2);
	in.worker_socket[0] = 0;
	in.worker_socket[1] = RTR_DEAL_ANY;
	in.worker_socket[2] = 0;
	in.port_socket[0] = 1;
	CHECK_EQ(rtr_deal_rxq(&in, &out), 0);
	CHECK_EQ(out.n_warn, 0);
	CHECK_EQ(out.worker[0][0], 1);
	CHECK_EQ(out.worker[0][1], 1);
}

/* rss_owner: queue q to worker q whatever the sockets; a port with queues
 * whose owners are on another socket is warned once, with their count. */
static void
test_rss_owner(void)
{
	struct rtr_deal_in in;
	static struct rtr_deal_out out;
	char buf[256];

	printf("5. rss_owner: queue q is worker q's\n");
	in_init(&in, 4, 3, 4);
	in.worker_socket[0] = in.worker_socket[1] = 0;
	in.worker_socket[2] = in.worker_socket[3] = 1;
	in.port_socket[0] = 0;
	in.port_socket[1] = 1;
	in.port_socket[2] = RTR_DEAL_ANY;
	in.rss_owner[0] = in.rss_owner[1] = in.rss_owner[2] = true;
	CHECK_EQ(rtr_deal_rxq(&in, &out), 0);
	for (unsigned int i = 0; i < 3; i++)
		for (unsigned int q = 0; q < 4; q++)
			CHECK_EQ(out.worker[i][q], q);
	CHECK_EQ(out.n_warn, 2);
	CHECK_EQ(n_warn(&out, RTR_DEAL_W_OWNER_REMOTE, 0), 1);
	CHECK_EQ(n_warn(&out, RTR_DEAL_W_OWNER_REMOTE, 1), 1);
	CHECK_EQ(n_warn(&out, RTR_DEAL_W_OWNER_REMOTE, 2), 0);
	CHECK_EQ(out.warn[0].queue, 2);
	CHECK_EQ(out.warn[0].worker, 2);
	CHECK_EQ(out.warn[0].worker_socket, 1);
	CHECK_EQ(out.warn[0].n_remote, 2);
	CHECK_EQ(out.warn[0].n_queues, 4);
	CHECK_EQ(out.warn[1].queue, 0);
	CHECK_EQ(out.warn[1].worker_socket, 0);
	CHECK_EQ(out.warn[1].n_remote, 2);
	rtr_deal_warn_str(&out.warn[0], 0, buf, sizeof(buf));
	CHECK(strstr(buf, "2 of its 4 RX queues go to the workers that own their flows") != NULL,
			"%s", buf);
	CHECK(strstr(buf, "queue 2 to worker 2 on socket 1") != NULL, "%s", buf);

	/* Port 1 an owner port, port 0 not: port 0 keeps the rotation. */
	in_init(&in, 2, 2, 2);
	in.rss_owner[1] = true;
	CHECK_EQ(rtr_deal_rxq(&in, &out), 0);
	CHECK_EQ(out.worker[0][0], 0);
	CHECK_EQ(out.worker[0][1], 1);
	CHECK_EQ(out.worker[1][0], 0); /* (0 + 1) % 2 would be 1 */
	CHECK_EQ(out.worker[1][1], 1);
}

static void
test_invalid(void)
{
	struct rtr_deal_in in;
	static struct rtr_deal_out out;

	printf("6. bad input\n");
	in_init(&in, 0, 1, 1);
	CHECK_EQ(rtr_deal_rxq(&in, &out), -EINVAL);
	in_init(&in, RTR_MAX_LCORES + 1, 1, 1);
	CHECK_EQ(rtr_deal_rxq(&in, &out), -EINVAL);
	in_init(&in, 2, 1, 0);
	CHECK_EQ(rtr_deal_rxq(&in, &out), -EINVAL);
	in_init(&in, 2, 1, RTR_DEAL_MAX_RXQ + 1);
	CHECK_EQ(rtr_deal_rxq(&in, &out), -EINVAL);
	in_init(&in, 2, 1, 3);
	in.rss_owner[0] = true;
	CHECK_EQ(rtr_deal_rxq(&in, &out), -EINVAL);
	in_init(&in, 2, RTR_MAX_PORTS + 1, 1);
	CHECK_EQ(rtr_deal_rxq(&in, &out), -EINVAL);
	CHECK_EQ(rtr_deal_rxq(NULL, &out), -EINVAL);
}

int
main(void)
{
	test_one_socket();
	test_two_sockets();
	test_no_local_worker();
	test_any();
	test_rss_owner();
	test_invalid();
	return rtr_test_done("deal");
}

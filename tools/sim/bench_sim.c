/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * How fast the simulator runs (doc/simulator.md): the ConWeave paper's
 * fabric (8 ToRs x 16 hosts, 8 spines, 100G, 1 us links, ECMP), each host
 * queueing one flow of N 1 KB frames at time 0 to a random host behind
 * another ToR, run to the end. No transport: senders blast at line rate,
 * so the incasts drop (queue_full). Prints events per second, frames per
 * second and the peak resident memory. The EAL gets 3 GB (not touched: the
 * LPM tables of a switch reserve about 130 MB, IPv4 and IPv6, of which a
 * run touches a few pages).
 *
 *   build/tools/sim/bench_sim [frames per host, default 1000]
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rtr_drop.h"
#include "rtr_egress.h"
#include "sim_net.h"

static uint64_t got;

static void
rx(struct sim_net *net, uint32_t host, struct sim_pkt *p)
{
	(void)host;
	got++;
	sim_pkt_free(net, p);
}

static void
print_status(const char *what)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];

	if (f == NULL)
		return;
	while (fgets(line, sizeof(line), f) != NULL)
		if (strncmp(line, "VmHWM", 5) == 0)
			printf("%s: %s", what, line);
	fclose(f);
}

int
main(int argc, char **argv)
{
	struct sim_leafspine p = {.tors = 8,
			.spines = 8,
			.hosts_per_tor = 16,
			.host_gbps = 100,
			.link_delay_ns = 1000};
	unsigned int npk = argc > 1 ? (unsigned int)strtoul(argv[1], NULL, 0) : 1000;
	struct timespec a, b;
	struct sim_topo t;
	struct sim_net net;
	struct sim_rng r;
	char err[256];
	double s;

	if (sim_eal_init("bench_sim", 3072) != 0) {
		fprintf(stderr, "EAL init failed\n");
		return 1;
	}
	if (sim_topo_leafspine(&t, &p, "bench_", err, sizeof(err)) != 0 ||
			sim_net_init(&net, &t, RTR_EG_FRAME_OVERHEAD, err, sizeof(err)) != 0) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	print_status("set up");
	net.host_rx = rx;
	sim_rng_seed(&r, 1);
	for (uint32_t h = 0; h < t.n_hosts; h++) {
		uint32_t d;

		do
			d = (uint32_t)sim_rng_below(&r, t.n_hosts);
		while (d / p.hosts_per_tor == h / p.hosts_per_tor);
		for (uint32_t i = 0; i < npk; i++) {
			struct sim_pkt *pk = sim_pkt_alloc(&net);
			struct sim_roce rr = {.src_ip = t.nodes[h].ip,
					.dst_ip = t.nodes[d].ip,
					.sport = (uint16_t)(49152 + h),
					.dqp = 1,
					.psn = i,
					.opcode = 1,
					.dscp = 26,
					.ecn = 2,
					.payload = 1000};

			if (pk == NULL) {
				fprintf(stderr, "out of memory\n");
				return 1;
			}
			sim_roce_build(pk, &rr);
			sim_net_send(&net, h, 0, pk);
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &a);
	sim_run(&net.sim, UINT64_MAX);
	clock_gettime(CLOCK_MONOTONIC, &b);
	s = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
	printf("%u hosts x %u frames: %llu delivered, %llu dropped (queue_full %llu), "
	       "%llu events in %.3f s: %.2f M events/s, %.0f k frames/s; %.3f ms simulated\n",
			t.n_hosts, npk, (unsigned long long)got,
			(unsigned long long)sim_net_drops(&net, -1),
			(unsigned long long)sim_net_drops(&net, RTR_DROP_QUEUE_FULL),
			(unsigned long long)net.sim.n_run, s, (double)net.sim.n_run / s / 1e6,
			(double)got / s / 1e3, (double)net.sim.now_ns / 1e6);
	print_status("peak");
	sim_net_fini(&net);
	sim_topo_free(&t);
	return 0;
}

/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * What run-time routes add to a worker's loop pass (doc/routing.md,
 * doc/performance.md "Run-time routes"): rte_rcu_qsbr_quiescent, once per
 * pass, in cycles, against the same loop without it; and an IPv6 lookup
 * through rtr_route_lookup6 (the table pointer loaded each time) against
 * rte_lpm6_lookup on a pointer held in a register. Medians of 9 rounds.
 * Not a test: it prints figures.
 */

#include <stdio.h>
#include <stdlib.h>

#include <rte_cycles.h>
#include <rte_malloc.h>
#include <rte_rcu_qsbr.h>

#include "rtr_route.h"
#include "rtr_test_eal.h"

#define ROUNDS 9
#define ITERS  (1u << 24)

static int
cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double
median(double *v)
{
	qsort(v, ROUNDS, sizeof(*v), cmp_d);
	return v[ROUNDS / 2];
}

static int
no_nh(void *arg, uint16_t port, const struct rtr_addr *ip, const uint8_t *mac)
{
	(void)arg;
	(void)ip;
	(void)mac;
	return port;
}

int
main(void)
{
	static struct rtr_config cfg;
	struct rte_rcu_qsbr *v;
	double base[ROUNDS], qs[ROUNDS], l6[ROUNDS], l6r[ROUNDS];
	volatile uint64_t sink = 0;
	struct rtr_route *r;
	char err[256];
	uint8_t dst[16] = {0xfd, 0, 0, 2};

	if (rtr_test_eal_init("bench_route") != 0)
		return 1;
	v = rte_zmalloc(NULL, rte_rcu_qsbr_get_memsize(2), RTE_CACHE_LINE_SIZE);
	rte_rcu_qsbr_init(v, 2);
	rte_rcu_qsbr_thread_register(v, 0);
	rte_rcu_qsbr_thread_online(v, 0);
	cfg.n_ports = 1;
	r = rtr_route_create("bench", &cfg, 0, no_nh, NULL, err, sizeof(err));
	if (r == NULL) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	for (unsigned int k = 0; k < ROUNDS; k++) {
		uint64_t t0 = rte_rdtsc_precise();

		for (unsigned int i = 0; i < ITERS; i++) {
			sink += i;
			rte_compiler_barrier();
		}
		base[k] = (double)(rte_rdtsc_precise() - t0) / ITERS;
		t0 = rte_rdtsc_precise();
		for (unsigned int i = 0; i < ITERS; i++) {
			sink += i;
			rte_rcu_qsbr_quiescent(v, 0);
			rte_compiler_barrier();
		}
		qs[k] = (double)(rte_rdtsc_precise() - t0) / ITERS;
		t0 = rte_rdtsc_precise();
		for (unsigned int i = 0; i < ITERS / 16; i++) {
			dst[15] = (uint8_t)i;
			sink += (uint64_t)rtr_route_lookup6(r, dst);
		}
		l6[k] = (double)(rte_rdtsc_precise() - t0) / (ITERS / 16);
		t0 = rte_rdtsc_precise();
		{
			struct rte_lpm6 *t = r->lpm6;

			for (unsigned int i = 0; i < ITERS / 16; i++) {
				uint32_t res;

				dst[15] = (uint8_t)i;
				sink += (uint64_t)rte_lpm6_lookup(t, dst, &res);
			}
		}
		l6r[k] = (double)(rte_rdtsc_precise() - t0) / (ITERS / 16);
	}
	printf("bench_route: loop pass %.2f cycles, with rte_rcu_qsbr_quiescent %.2f: %.2f cycles "
	       "per "
	       "pass\n",
			median(base), median(qs), median(qs) - median(base));
	printf("bench_route: IPv6 lookup %.1f cycles through rtr_route_lookup6, %.1f with the "
	       "table pointer held\n",
			median(l6), median(l6r));
	rtr_route_free(r);
	rte_free(v);
	rte_eal_cleanup();
	rtr_test_eal_done();
	return sink == 42;
}

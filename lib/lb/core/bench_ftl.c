/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * Not a test: the cost of a flow-table lookup in rtr_flowtab, as a stateful
 * mode makes it: per burst of 32 packets the keys built and hashed, every
 * packet's flow prefetched (both steps, as rtr_lb_fs_prefetch), then each
 * looked up and its state read and written (last_ns and two value bytes,
 * at 0 and value_size - 8). Flows visited in a random order, the table
 * sized 4 x the flows (the bench's flow_table_size rule). Prints TSC
 * cycles per lookup, the median of 7 rounds. doc/performance.md.
 *
 *   bench_ftl [FLOWS...]   (default 1000 100000 1000000)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_cycles.h>

#include "rtr_flowtab.h"

#define BURST  32
#define ROUNDS 7

static void
key_of(uint32_t i, struct rtr_ft_key *k)
{
	memset(k, 0, sizeof(*k));
	k->src[0] = 10;
	k->src[1] = 1 + (uint8_t)(i >> 16);
	k->src[2] = (uint8_t)(i >> 8);
	k->src[3] = (uint8_t)i;
	k->dst[0] = 10;
	k->dst[1] = 200;
	k->dst[2] = (uint8_t)(i >> 12);
	k->dst[3] = (uint8_t)(i * 7);
	k->sport = (uint16_t)(0xC000 + (i & 0x3fff));
	k->kind = 1;
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* One pass over order[] (n lookups); returns TSC cycles. */
static uint64_t
pass(struct rtr_ft *ft, const uint32_t *order, uint32_t n, uint32_t vsize, uint64_t now)
{
	struct rtr_ft_key k[BURST];
	uint32_t h[BURST];
	enum rtr_ft_status st;
	uint64_t t0 = rte_rdtsc();

	for (uint32_t b = 0; b + BURST <= n; b += BURST) {
		for (unsigned int j = 0; j < BURST; j++) {
			key_of(order[b + j], &k[j]);
			h[j] = rtr_hash_mix(order[b + j]);
			rtr_ft_prefetch(ft, h[j], 0);
		}
		for (unsigned int j = 0; j < BURST; j++)
			rtr_ft_prefetch(ft, h[j], 1);
		for (unsigned int j = 0; j < BURST; j++) {
			struct rtr_ft_entry *e = rtr_ft_lookup(
					ft, &k[j], h[j], now, false, RTR_FT_ORIGIN_NONE, &st);
			uint8_t *v;

			if (e == NULL) /* a flow its full window refused */
				continue;
			e->last_ns = now;
			v = rtr_ft_value(e);
			v[0]++;
			v[vsize - 8]++;
		}
	}
	return rte_rdtsc() - t0;
}

static void
run(uint32_t flows, uint32_t vsize)
{
	struct rtr_ft_params fp = {.name = "ft",
			.entries = 4 * flows,
			.value_size = vsize,
			.aging_ns = UINT64_MAX / 4};
	struct rtr_ft *ft = rtr_ft_create(&fp);
	uint32_t n = flows - flows % BURST, *order = malloc(sizeof(*order) * n);
	uint64_t cf[ROUNDS], s = 0x2545F4914F6CDD1Dull;
	uint32_t in_ft = 0;
	enum rtr_ft_status st;
	struct rtr_ft_key k;

	if (ft == NULL || order == NULL) {
		fprintf(stderr, "bench_ftl: no memory for %u flows\n", flows);
		exit(1);
	}
	for (uint32_t i = 0; i < n; i++) {
		key_of(i, &k);
		in_ft += rtr_ft_lookup(ft, &k, rtr_hash_mix(i), 1, true, RTR_FT_ORIGIN_NONE, &st) !=
			 NULL;
		order[i] = i;
	}
	if (in_ft < n - n / 100) {
		fprintf(stderr, "bench_ftl: %u flows: %u inserted\n", n, in_ft);
		exit(1);
	}
	for (uint32_t i = n - 1; i > 0; i--) { /* Fisher-Yates, xorshift64 */
		uint32_t j;

		s ^= s << 13;
		s ^= s >> 7;
		s ^= s << 17;
		j = (uint32_t)(s % (i + 1));
		RTE_SWAP(order[i], order[j]);
	}
	pass(ft, order, n, vsize, 2); /* warm once */
	for (int r = 0; r < ROUNDS; r++)
		cf[r] = pass(ft, order, n, vsize, 3 + (uint64_t)r);
	qsort(cf, ROUNDS, sizeof(cf[0]), cmp_u64);
	printf("| %u | %u | %u | %u | %u | %.1f |\n", flows, vsize, fp.entries, ft->stride,
			n - in_ft, (double)cf[ROUNDS / 2] / n);
	fflush(stdout);
	rtr_ft_free(ft);
	free(order);
}

int
main(int argc, char **argv)
{
	uint32_t def[] = {1000, 100000, 1000000};
	unsigned int nf = argc > 1 ? (unsigned int)argc - 1 : RTE_DIM(def);

	printf("| flows | value B | entries | slot B | refused | rtr_flowtab cyc |\n"
	       "|---|---|---|---|---|---|\n");
	for (unsigned int f = 0; f < nf; f++) {
		uint32_t flows = argc > 1 ? (uint32_t)strtoul(argv[f + 1], NULL, 0) : def[f];

		run(flows, 8);
		run(flows, 32);
		run(flows, 48);
	}
	return 0;
}

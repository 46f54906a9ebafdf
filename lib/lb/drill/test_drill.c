/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * Unit tests of DRILL (rtr_drill, ALGORITHMS.md 7) without the EAL:
 * DRILL(2,1) against queue states and random draws fixed by the test, each
 * choice computed by hand in the comments (the samples the draws give, the
 * memory, the depths); a remembered path weighed at its depth now and
 * dropped when it is no longer best; ties; a down path never chosen; with
 * the worker's own generator, the spread over empty queues and a long
 * queue avoided.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtr_drill.h"
#include "rtr_lb.h"
#include "rtr_route.h"
#include "rtr_stats.h"
#include "rtr_test.h"
#include "test_lb_group.h"
#include "test_lb_stats.h"

#define NP 4

/* The counters: the lb block of a real struct rtr_lcore_stats (LB_ST). */
static struct rtr_lcore_stats st;
static uint64_t *const c = st.lb;
static uint32_t depth[8]; /* bytes queued, by port (path i is port i + 1) */
static unsigned int port_reads[8];

/* The scripted draws: each call returns the next value, which must be
 * below n (the test checks it asked what the hand computation expects). */
static uint32_t script[64];
static unsigned int n_script, at_script, bad_draws;
static uint32_t asked[64];

static uint32_t
qb(const void *arg, uint16_t port)
{
	(void)arg;
	port_reads[port]++;
	return depth[port];
}

static uint32_t
scripted(void *arg, uint32_t n)
{
	(void)arg;
	if (at_script >= n_script || script[at_script] >= n) {
		bad_draws++;
		return 0;
	}
	asked[at_script] = n;
	return script[at_script++];
}

static void
draws(unsigned int n, const uint32_t *v)
{
	memcpy(script, v, n * sizeof(*v));
	n_script = n;
	at_script = 0;
}

static struct rtr_dr *
make(unsigned int d, unsigned int m, bool script_rand)
{
	struct rtr_dr_params p = {
			.samples = d,
			.memory = m,
			.queue_bytes = qb,
			.rand = script_rand ? scripted : NULL,
			.rng_seed = 5,
	};

	memset(&st, 0, sizeof(st));
	return rtr_dr_create(&p);
}

/* NP paths on ports 1..NP, the live ones the bits of live. */
static void
group(struct rtr_group *g, uint64_t live)
{
	test_lb_group(g, NP, live);
}

static int
pick(struct rtr_dr *dr, const struct rtr_group *g)
{
	struct rtr_meta meta;

	memset(&meta, 0, sizeof(meta));
	return rtr_dr_pick(dr, g, 0, NULL, &meta, 0, LB_ST(c));
}

static void
set_depths(uint32_t p0, uint32_t p1, uint32_t p2, uint32_t p3)
{
	depth[1] = p0, depth[2] = p1, depth[3] = p2, depth[4] = p3;
}

/*
 * The samples are a partial Fisher-Yates shuffle of the live paths in
 * index order: draw r0 in [0, k) swaps slots 0 and r0, draw r1 in
 * [0, k - 1) swaps slots 1 and 1 + r1; slots 0 and 1 are the samples.
 */
static void
test_hand(void)
{
	struct rtr_dr *dr = make(2, 1, true);
	struct rtr_group g;
	uint8_t mem[4];

	group(&g, 0xf);
	CHECK(dr != NULL);

	/* 1. Depths 300, 100, 500, 50. Draws 2, 2: [0 1 2 3] -> [2 1 0 3]
	 * -> [2 3 0 1]: samples 2 (500 B) and 3 (50 B); no memory yet.
	 * Path 3. Memory [3]. */
	set_depths(300, 100, 500, 50);
	draws(2, (const uint32_t[]){2, 2});
	CHECK_EQ(pick(dr, &g), 3);
	CHECK_EQ(asked[0], 4);
	CHECK_EQ(asked[1], 3);
	CHECK_EQ(rtr_dr_memory(dr, 0, mem, 4), 1);
	CHECK_EQ(mem[0], 3);
	CHECK_EQ(c[RTR_LBC_drill_port_changes], 0);

	/* 2. Path 3's queue grew to 1000 B. Draws 0, 0: samples 0 (300 B)
	 * and 1 (100 B); the remembered 3 is read again: 1000 B. Path 1.
	 * Memory [1]; a change of port. */
	set_depths(300, 100, 500, 1000);
	memset(port_reads, 0, sizeof(port_reads));
	draws(2, (const uint32_t[]){0, 0});
	CHECK_EQ(pick(dr, &g), 1);
	CHECK_EQ(port_reads[4], 1); /* the remembered path's queue, read now */
	CHECK_EQ(rtr_dr_memory(dr, 0, mem, 4), 1);
	CHECK_EQ(mem[0], 1);
	CHECK_EQ(c[RTR_LBC_drill_port_changes], 1);
	CHECK_EQ(c[RTR_LBC_drill_memory_picks], 0);

	/* 3. Depths 400, 100, 500, 1000. Draws 2, 2: samples 2 (500 B) and
	 * 3 (1000 B); the remembered 1 (100 B) is shorter than both: path 1,
	 * from the memory. */
	set_depths(400, 100, 500, 1000);
	draws(2, (const uint32_t[]){2, 2});
	CHECK_EQ(pick(dr, &g), 1);
	CHECK_EQ(c[RTR_LBC_drill_memory_picks], 1);
	CHECK_EQ(c[RTR_LBC_drill_port_changes], 1);

	/* 4. Every queue empty. Draws 0, 0: samples 0 and 1, the remembered
	 * 1 is one of them (not counted twice). A tie: the first sample,
	 * path 0. Memory [0]. */
	set_depths(0, 0, 0, 0);
	draws(2, (const uint32_t[]){0, 0});
	CHECK_EQ(pick(dr, &g), 0);
	CHECK_EQ(c[RTR_LBC_drill_memory_picks], 1);
	CHECK_EQ(rtr_dr_memory(dr, 0, mem, 4), 1);
	CHECK_EQ(mem[0], 0);

	/* 5. Path 0 (remembered, and the emptiest) goes down. Live paths
	 * [1 2 3]; draws 0, 0: samples 1 (10 B) and 2 (10 B); the memory's 0
	 * is not live. A tie: path 1. */
	atomic_store(&g.live_mask, 0xe);
	set_depths(0, 10, 10, 10);
	draws(2, (const uint32_t[]){0, 0});
	CHECK_EQ(pick(dr, &g), 1);
	CHECK_EQ(asked[0], 3);
	CHECK_EQ(asked[1], 2);

	/* 6. One live path: the draw asks for [0, 1) once, that path. */
	atomic_store(&g.live_mask, 0x4);
	draws(1, (const uint32_t[]){0});
	CHECK_EQ(pick(dr, &g), 2);
	CHECK_EQ(at_script, 1);
	atomic_store(&g.live_mask, 0);
	CHECK_EQ(pick(dr, &g), -1);

	CHECK_EQ(bad_draws, 0);
	CHECK_EQ(c[RTR_LBC_drill_picks], 6);
	rtr_dr_free(dr);
}

/* DRILL(2,2): the memory keeps the two best of the last decision, best
 * first, and both are reconsidered. */
static void
test_memory2(void)
{
	struct rtr_dr *dr = make(2, 2, true);
	struct rtr_group g;
	uint8_t mem[4];

	group(&g, 0xf);
	/* Depths 40, 30, 20, 10; draws 0, 0: samples 0 (40), 1 (30): path 1;
	 * memory [1 0]. */
	set_depths(40, 30, 20, 10);
	draws(2, (const uint32_t[]){0, 0});
	CHECK_EQ(pick(dr, &g), 1);
	CHECK_EQ(rtr_dr_memory(dr, 0, mem, 4), 2);
	CHECK(mem[0] == 1 && mem[1] == 0, "memory %u %u", mem[0], mem[1]);
	/* Depths 5, 30, 20, 10; draws 2, 2 (samples 2 (20), 3 (10)); memory
	 * 1 (30), 0 (5): path 0, from memory; memory [0 3]. */
	set_depths(5, 30, 20, 10);
	draws(2, (const uint32_t[]){2, 2});
	CHECK_EQ(pick(dr, &g), 0);
	CHECK_EQ(c[RTR_LBC_drill_memory_picks], 1);
	CHECK_EQ(rtr_dr_memory(dr, 0, mem, 4), 2);
	CHECK(mem[0] == 0 && mem[1] == 3, "memory %u %u", mem[0], mem[1]);
	CHECK_EQ(bad_draws, 0);
	rtr_dr_free(dr);
}

/* The worker's own draws: over empty queues every path gets its share
 * (per packet: the packets of a flow change ports, drill_port_changes);
 * a path whose queue is longer than the others' is never chosen while
 * two distinct samples are compared; m = 0 never uses the memory. */
static void
test_random(void)
{
	struct rtr_dr *dr = make(2, 1, false);
	struct rtr_group g;
	unsigned int n[NP] = {0};

	group(&g, 0xf);
	set_depths(0, 0, 0, 0);
	for (unsigned int i = 0; i < 8000; i++) {
		int p = pick(dr, &g);

		if (p >= 0 && p < NP)
			n[p]++;
	}
	for (unsigned int p = 0; p < NP; p++)
		CHECK(n[p] > 1800 && n[p] < 2200, "path %u: %u of 8000", p, n[p]);
	CHECK(c[RTR_LBC_drill_port_changes] > 5000, "%llu changes of port",
			(unsigned long long)c[RTR_LBC_drill_port_changes]);
	memset(n, 0, sizeof(n));
	set_depths(0, 0, 0, 4096);
	for (unsigned int i = 0; i < 8000; i++) {
		int p = pick(dr, &g);

		if (p >= 0 && p < NP)
			n[p]++;
	}
	CHECK_EQ(n[3], 0);
	rtr_dr_free(dr);

	dr = make(2, 0, false);
	set_depths(0, 0, 0, 0);
	for (unsigned int i = 0; i < 1000; i++)
		pick(dr, &g);
	CHECK_EQ(c[RTR_LBC_drill_memory_picks], 0);
	CHECK_EQ(c[RTR_LBC_drill_picks], 1000);
	rtr_dr_free(dr);

	/* Out of range: refused. */
	CHECK(make(0, 1, false) == NULL);
	CHECK(make(17, 1, false) == NULL);
	CHECK(make(2, 5, false) == NULL);
}

int
main(void)
{
	test_hand();
	test_memory2();
	test_random();
	return rtr_test_done("drill");
}

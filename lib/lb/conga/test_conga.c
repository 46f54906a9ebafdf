/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * Unit tests of CONGA's core (rtr_conga.h, doc/conga.md) on a virtual
 * clock, no EAL: the DRE against a hand computation for a known byte
 * sequence and its quantisation at the scale's steps; the CE carried
 * forward as the max over a three-switch chain (source leaf -> spine ->
 * destination leaf), stored in the destination's from-leaf table and fed
 * back on reverse traffic (round-robin, changed entries first) into the
 * source's to-leaf table, and the same through the header's bytes; a
 * new flowlet's choice against a hand-computed
 * table; flowlet boundaries exactly at the gap; ageing of stale entries.
 * Expected values come from the specification, computed by hand below.
 */
#include <stdio.h>
#include <string.h>

#include "rtr_conga.h"
#include "rtr_test.h"

#define US  1000ULL
#define T0  1000000000ULL /* the virtual clock starts at 1 s */
#define GAP (100 * US)    /* flowlet_gap_us 100 */
#define AGE (500 * US)    /* the artifact's ageing time */
#define NP  4
#define A   0 /* source leaf */
#define B   1 /* destination leaf */

/* 100 Gb/s, Tdre 50 us, alpha 0.5 (exact in binary), Q = 3: the top of the
 * scale is 100e9 * 50e-6 / 0.5 = 10^7 bits = 1 250 000 bytes, so
 * q = floor(X * 64 / 10^7). */
static const struct rtr_conga_dre_params DP = {
		.period_ns = 50 * US, .alpha = 0.5, .q = 3, .rate_bps = 100e9};

static struct rtr_conga_tables *
tables(uint64_t seed)
{
	struct rtr_conga_params p = {
			.n_leaves = 4,
			.n_paths = NP,
			.aging_ns = AGE,
			.gap_ns = GAP,
			.flowlet_slots = 1024,
			.rng_seed = seed,
	};
	struct rtr_conga_tables *t = rtr_conga_tables_create(&p);

	CHECK(t != NULL, "create");
	return t;
}

/* A DRE holding exactly x bytes (started, no decay due before T0 + 50 us). */
static struct rtr_conga_dre
dre_of(uint64_t x)
{
	struct rtr_conga_dre d = {0};

	rtr_conga_dre_add(&d, &DP, T0, (uint32_t)x);
	return d;
}

static void
test_dre(void)
{
	struct rtr_conga_dre d = {0};

	/* Boundaries at T0 + 50, 100, 150, 200 us. */
	rtr_conga_dre_add(&d, &DP, T0, 1000);
	rtr_conga_dre_add(&d, &DP, T0 + 10 * US, 4000);
	CHECK_EQ(d.x, 5000);
	rtr_conga_dre_add(&d, &DP, T0 + 50 * US - 1, 0);
	CHECK_EQ(d.x, 5000); /* 1 ns before the boundary: no decay */
	rtr_conga_dre_add(&d, &DP, T0 + 50 * US, 0);
	CHECK_EQ(d.x, 2500); /* at the boundary: 5000 * 0.5 */
	rtr_conga_dre_add(&d, &DP, T0 + 60 * US, 1500);
	CHECK_EQ(d.x, 4000);
	/* A late call: the boundaries at 100 and 150 us both decay. */
	rtr_conga_dre_advance(&d, &DP, T0 + 160 * US);
	CHECK_EQ(d.x, 1000);
	CHECK_EQ(d.next_ns, T0 + 200 * US);

	/* Quantisation: q = floor(X * 64 / 10^7), at most 7. */
	d = dre_of(156249);
	CHECK_EQ(rtr_conga_dre_q(&d, &DP), 0); /* 0.99999 */
	d = dre_of(156250);
	CHECK_EQ(rtr_conga_dre_q(&d, &DP), 1);
	d = dre_of(624999);
	CHECK_EQ(rtr_conga_dre_q(&d, &DP), 3);
	d = dre_of(625000);
	CHECK_EQ(rtr_conga_dre_q(&d, &DP), 4); /* half the rate: half the scale */
	d = dre_of(1093750);
	CHECK_EQ(rtr_conga_dre_q(&d, &DP), 7);
	d = dre_of(4000000);
	CHECK_EQ(rtr_conga_dre_q(&d, &DP), 7); /* above the line rate: capped */

	/* The steady state: a link sending at rate R holds X near R * tau
	 * (tau = Tdre / alpha = 100 us). 2 500 bytes every 1 us (20 Gb/s)
	 * for 1 ms: X oscillates between about 125 000 and 250 000 bytes,
	 * i.e. q 0.8 .. 1.6 times 1 .. 2 on the Q = 3 scale (20% of 8 is
	 * 1.6). */
	memset(&d, 0, sizeof(d));
	for (uint64_t t = 0; t <= 1000; t++)
		rtr_conga_dre_add(&d, &DP, T0 + t * US, 2500);
	CHECK(d.x >= 125000 && d.x <= 250000, "steady-state X %llu", (unsigned long long)d.x);
	CHECK(rtr_conga_dre_q(&d, &DP) <= 1, "20%% of the rate is 1.6 at most: q %u",
			rtr_conga_dre_q(&d, &DP));
}

/* Source leaf A -> spine S -> destination leaf B, and back. */
static void
test_chain(void)
{
	struct rtr_conga_tables *ta = tables(1), *tb = tables(2);
	struct rtr_conga_dre up = dre_of(312500);    /* A's uplink of path 2: q 2 */
	struct rtr_conga_dre down = dre_of(781250);  /* S's link to B: q 5 */
	struct rtr_conga_dre up2 = dre_of(968750);   /* q 6 */
	struct rtr_conga_dre down2 = dre_of(160000); /* q 1 */
	uint8_t ce, path, metric;

	/* Forward: A writes its uplink's CE, S the max with its own. */
	ce = rtr_conga_hop_ce(0, rtr_conga_dre_q(&up, &DP));
	CHECK_EQ(ce, 2);
	ce = rtr_conga_hop_ce(ce, rtr_conga_dre_q(&down, &DP));
	CHECK_EQ(ce, 5); /* the spine's link is the worse one */
	rtr_conga_from_leaf_put(tb, A, 2, ce, T0);
	/* Path 0: the source's uplink is the worse one. */
	ce = rtr_conga_hop_ce(rtr_conga_hop_ce(0, rtr_conga_dre_q(&up2, &DP)),
			rtr_conga_dre_q(&down2, &DP));
	CHECK_EQ(ce, 6);
	rtr_conga_from_leaf_put(tb, A, 0, ce, T0 + 1 * US);
	CHECK_EQ(rtr_conga_counts(tb)->metric_updates, 2);

	/* Reverse: B feeds one metric per packet back to A; A stores it. */
	CHECK(!rtr_conga_feedback(tb, 2, &path, &metric), "nothing for leaf 2");
	CHECK(rtr_conga_feedback(tb, A, &path, &metric), "feedback");
	CHECK_EQ(path, 0); /* round-robin from path 0: path 0 changed */
	CHECK_EQ(metric, 6);
	rtr_conga_to_leaf_put(ta, B, path, metric, T0 + 5 * US);
	CHECK(rtr_conga_feedback(tb, A, &path, &metric), "feedback");
	CHECK_EQ(path, 2);
	CHECK_EQ(metric, 5);
	rtr_conga_to_leaf_put(ta, B, path, metric, T0 + 6 * US);
	CHECK_EQ(rtr_conga_to_leaf_get(ta, B, 0, T0 + 6 * US), 6);
	CHECK_EQ(rtr_conga_to_leaf_get(ta, B, 2, T0 + 6 * US), 5);
	CHECK_EQ(rtr_conga_to_leaf_get(ta, B, 1, T0 + 6 * US), 0); /* never fed back */
	CHECK_EQ(rtr_conga_to_leaf_get(ta, 2, 2, T0 + 6 * US), 0); /* another leaf */

	/* Nothing changed since: round-robin over the entries ever set
	 * (path 3 from the position after 2, none: back to 0, then 2). */
	CHECK(rtr_conga_feedback(tb, A, &path, &metric), "feedback");
	CHECK_EQ(path, 0);
	/* Path 3 changes: it goes first, out of turn. */
	rtr_conga_from_leaf_put(tb, A, 3, 4, T0 + 7 * US);
	CHECK(rtr_conga_feedback(tb, A, &path, &metric), "feedback");
	CHECK_EQ(path, 3);
	CHECK_EQ(metric, 4);
	CHECK(rtr_conga_feedback(tb, A, &path, &metric), "feedback");
	CHECK_EQ(path, 0);
	CHECK(rtr_conga_feedback(tb, A, &path, &metric), "feedback");
	CHECK_EQ(path, 2);
	/* The same CE again is no change: plain round-robin goes on. */
	rtr_conga_from_leaf_put(tb, A, 0, 6, T0 + 8 * US);
	CHECK(rtr_conga_feedback(tb, A, &path, &metric), "feedback");
	CHECK_EQ(path, 3);
	CHECK_EQ(rtr_conga_counts(tb)->fb_sent, 7);
	CHECK_EQ(rtr_conga_counts(ta)->fb_received, 2);
	rtr_conga_tables_free(ta);
	rtr_conga_tables_free(tb);
}

/* local {3,1,0,2}, remote {0,4,2,1}: max {3,4,2,2}, best 2 on paths 2, 3. */
/* The same chain through the header's bytes: the source leaf packs its
 * uplink's CE and a feedback entry, the spine raises the CE nibble, the
 * destination leaf reads the header back. */
static void
test_header(void)
{
	struct rtr_conga_hdr f = {.src_leaf = 0x0102, .fb_path = 3, .ce = 2, .fb_metric = 6}, g;
	uint8_t h[4];

	rtr_conga_hdr_pack(h, &f);
	CHECK_EQ(h[0], 0x01);
	CHECK_EQ(h[1], 0x02);
	CHECK_EQ(h[2], 3);
	CHECK_EQ(h[3], 0x26);
	rtr_conga_hdr_hop(h, 5); /* the spine's link is worse: 5 */
	CHECK_EQ(h[3], 0x56);
	rtr_conga_hdr_hop(h, 1); /* a better link leaves the max */
	CHECK_EQ(h[3], 0x56);
	rtr_conga_hdr_unpack(h, &g);
	CHECK_EQ(g.src_leaf, 0x0102);
	CHECK_EQ(g.fb_path, 3);
	CHECK_EQ(g.ce, 5);
	CHECK_EQ(g.fb_metric, 6);
	f = (struct rtr_conga_hdr){.src_leaf = 7, .fb_path = RTR_CONGA_NO_FB, .ce = 0};
	rtr_conga_hdr_pack(h, &f);
	rtr_conga_hdr_hop(h, 200); /* beyond a nibble: the top of the field */
	rtr_conga_hdr_unpack(h, &g);
	CHECK_EQ(g.fb_path, RTR_CONGA_NO_FB);
	CHECK_EQ(g.ce, 15);
	CHECK_EQ(g.fb_metric, 0);
}

static void
test_choice(void)
{
	static const uint8_t local[NP] = {3, 1, 0, 2};
	static const uint8_t remote[NP] = {0, 4, 2, 1};
	struct rtr_conga_tables *t = tables(3);
	unsigned int seen[NP] = {0};

	for (unsigned int i = 0; i < NP; i++)
		rtr_conga_to_leaf_put(t, B, i, remote[i], T0);
	CHECK_EQ(rtr_conga_best(t, B, 0xf, local, 3, T0), 3); /* the previous path, a best one */
	CHECK_EQ(rtr_conga_best(t, B, 0xf, local, 2, T0), 2);
	for (unsigned int i = 0; i < 400; i++)
		seen[rtr_conga_best(t, B, 0xf, local, 0, T0)]++; /* 0 is not a best */
	CHECK_EQ(seen[0] + seen[1], 0);
	CHECK(seen[2] > 100 && seen[3] > 100, "ties at random: %u %u", seen[2], seen[3]);
	CHECK_EQ(rtr_conga_best(t, B, 0x7, local, -1, T0), 2); /* path 3 down */
	CHECK_EQ(rtr_conga_best(t, B, 0x3, local, -1, T0), 0); /* {3, 4}: path 0 */
	CHECK_EQ(rtr_conga_best(t, B, 0, local, -1, T0), -1);
	/* Toward leaf 2 nothing is known: the local CE alone, path 2. */
	CHECK_EQ(rtr_conga_best(t, 2, 0xf, local, -1, T0), 2);
	/* Stale remote metrics count 0: {3,1,0,2} again, path 2; with path 2
	 * down, path 1 (1 < 2). */
	CHECK_EQ(rtr_conga_best(t, B, 0xb, local, -1, T0 + AGE + 1), 1);
	CHECK_EQ(rtr_conga_best(t, B, 0xb, local, -1, T0 + AGE), 3); /* not yet stale */
	rtr_conga_tables_free(t);
}

/* path_samples (the artifact's GetBestPath(dst, 4)): 8 paths, the best
 * (metric 0) is path 7 and the next best path 0 (1), the rest 5. Sampling
 * 4 consecutive paths from an offset in 0..4, path 7 is seen only from
 * offset 4 (1 in 5) and path 0 only from offset 0; the other offsets take
 * the least of 5s, never a path outside their window. Every path weighed
 * (0): always 7. A window with no live path: every live path. */
static void
test_samples(void)
{
	struct rtr_conga_params p = {.n_leaves = 4,
			.n_paths = 8,
			.aging_ns = AGE,
			.gap_ns = GAP,
			.flowlet_slots = 1024,
			.rng_seed = 5,
			.samples = 4};
	static const uint8_t local[8] = {1, 5, 5, 5, 5, 5, 5, 0};
	struct rtr_conga_tables *t = rtr_conga_tables_create(&p);
	unsigned int seen[8] = {0}, n = 5000;

	for (unsigned int i = 0; i < n; i++)
		seen[rtr_conga_best(t, B, 0xff, local, -1, T0)]++;
	/* offsets 0 -> 0, 1..3 -> one of their 4 paths with 5, 4 -> 7 */
	CHECK(seen[7] > n / 5 - n / 25 && seen[7] < n / 5 + n / 25, "path 7: %u of %u", seen[7], n);
	CHECK(seen[0] > n / 5 - n / 25 && seen[0] < n / 5 + n / 25, "path 0: %u of %u", seen[0], n);
	CHECK(seen[1] + seen[2] + seen[3] + seen[4] + seen[5] + seen[6] == n - seen[0] - seen[7]);
	CHECK(seen[6] > 0 && seen[1] > 0, "the windows' other paths %u %u", seen[1], seen[6]);
	/* Only path 7 live: a window without it falls back to it. */
	for (unsigned int i = 0; i < 200; i++)
		CHECK_EQ(rtr_conga_best(t, B, 0x80, local, -1, T0), 7);
	rtr_conga_tables_free(t);
	p.samples = 0;
	t = rtr_conga_tables_create(&p);
	for (unsigned int i = 0; i < 200; i++)
		CHECK_EQ(rtr_conga_best(t, B, 0xff, local, -1, T0), 7);
	rtr_conga_tables_free(t);
}

static void
test_flowlets(void)
{
	uint8_t local[NP] = {0, 0, 0, 0};
	struct rtr_conga_tables *t = tables(4);
	uint64_t now = T0;
	int p, q;

	/* Path 1 best: the others carry a remote metric. */
	rtr_conga_to_leaf_put(t, B, 0, 3, now);
	rtr_conga_to_leaf_put(t, B, 2, 3, now);
	rtr_conga_to_leaf_put(t, B, 3, 3, now);
	p = rtr_conga_flowlet_path(t, 77, B, 0xf, local, now);
	CHECK_EQ(p, 1);
	CHECK_EQ(rtr_conga_counts(t)->flowlets, 1);
	/* Path 1 becomes the worst, path 3 the best. */
	local[1] = 7;
	rtr_conga_to_leaf_put(t, B, 3, 0, now);
	now += GAP - 1; /* 1 ns short of the gap: the same flowlet */
	CHECK_EQ(rtr_conga_flowlet_path(t, 77, B, 0xf, local, now), 1);
	now += GAP - 1; /* the gap runs from the last packet, not the first */
	CHECK_EQ(rtr_conga_flowlet_path(t, 77, B, 0xf, local, now), 1);
	CHECK_EQ(rtr_conga_counts(t)->flowlets, 1);
	now += GAP; /* exactly the gap: a new flowlet, on path 3 */
	q = rtr_conga_flowlet_path(t, 77, B, 0xf, local, now);
	CHECK_EQ(q, 3);
	CHECK_EQ(rtr_conga_counts(t)->flowlets, 2);
	CHECK_EQ(rtr_conga_counts(t)->path_changes, 1);
	/* Within a flowlet, its path goes down: a new flowlet now, on path 0
	 * (max {3, 7, 4} over the live paths 0, 1, 2). */
	rtr_conga_to_leaf_put(t, B, 2, 4, now);
	now += 1 * US;
	CHECK_EQ(rtr_conga_flowlet_path(t, 77, B, 0x7, local, now), 0);
	CHECK_EQ(rtr_conga_counts(t)->path_changes, 2);
	/* A new flowlet whose previous path is among the best stays there. */
	local[1] = 0;
	rtr_conga_to_leaf_put(t, B, 0, 0, now);
	now += GAP;
	CHECK_EQ(rtr_conga_flowlet_path(t, 77, B, 0xf, local, now), 0);
	CHECK_EQ(rtr_conga_counts(t)->flowlets, 4);
	CHECK_EQ(rtr_conga_counts(t)->path_changes, 2);
	rtr_conga_tables_free(t);
}

static void
test_aging(void)
{
	struct rtr_conga_tables *t = tables(5);

	rtr_conga_to_leaf_put(t, B, 1, 5, T0);
	rtr_conga_to_leaf_put(t, B, 2, 0, T0);
	rtr_conga_to_leaf_put(t, 3, 0, 6, T0 + 10 * US);
	CHECK_EQ(rtr_conga_to_leaf_get(t, B, 1, T0 + AGE), 5); /* exactly the age: valid */
	CHECK_EQ(rtr_conga_to_leaf_get(t, B, 1, T0 + AGE + 1), 0);
	rtr_conga_age(t, T0 + AGE);
	CHECK_EQ(rtr_conga_counts(t)->aged, 0);
	rtr_conga_age(t, T0 + AGE + 1);
	CHECK_EQ(rtr_conga_counts(t)->aged, 1); /* path 2 held 0 already */
	CHECK_EQ(rtr_conga_to_leaf_get(t, B, 1, T0 + AGE + 1), 0);
	CHECK_EQ(rtr_conga_to_leaf_get(t, 3, 0, T0 + AGE + 1), 6); /* younger */
	rtr_conga_age(t, T0 + AGE + 2);
	CHECK_EQ(rtr_conga_counts(t)->aged, 1); /* counted once */
	/* Fresh feedback after ageing counts again. */
	rtr_conga_to_leaf_put(t, B, 1, 4, T0 + AGE + 3);
	CHECK_EQ(rtr_conga_to_leaf_get(t, B, 1, T0 + AGE + 3), 4);
	rtr_conga_tables_free(t);
}

int
main(void)
{
	test_dre();
	test_chain();
	test_header();
	test_choice();
	test_samples();
	test_flowlets();
	test_aging();
	return rtr_test_done("conga");
}

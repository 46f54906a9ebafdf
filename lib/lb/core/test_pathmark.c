/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * Unit tests of the per-destination path-mark table (rtr_pathmark, the busy
 * paths of ConWeave and the inactive paths of SeqBalance), without the EAL:
 * slot counts per group, destinations that must not share marks, the group
 * as its only destination, collisions (take-over and eviction), the gauge.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "rtr_common.h"
#include "rtr_pathmark.h"
#include "rtr_test.h"

#define T 1000000000ULL

enum { G_AGG4, G_TOR4, G_ONE4, G_AGG6, G_TOR6, G_ANY, G_N };

static const struct rtr_pm_group groups[G_N] = {
		[G_AGG4] = {AF_INET, 8, 4},   /* 10.0.0.0/8: 2^16 /24s, hashed */
		[G_TOR4] = {AF_INET, 16, 4},  /* 10.2.0.0/16: 256 /24s, one slot each */
		[G_ONE4] = {AF_INET, 24, 3},  /* 10.3.0.0/24: one destination */
		[G_AGG6] = {AF_INET6, 16, 8}, /* fd00::/16: hashed /64s */
		[G_TOR6] = {AF_INET6, 56, 2}, /* fd00:1::/56: 256 /64s, one slot each */
		[G_ANY] = {0, 0, 0},          /* unknown: the group, 64 paths */
};

static void
a4(uint8_t *d, uint8_t b, uint8_t c, uint8_t e)
{
	memset(d, 0, 16);
	d[0] = 10, d[1] = b, d[2] = c, d[3] = e;
}

/* fd00:0:0:<b><c>::<e> (b: byte 6, c: byte 7) */
static void
a6(uint8_t *d, uint8_t b, uint8_t c, uint8_t e)
{
	memset(d, 0, 16);
	d[0] = 0xfd, d[6] = b, d[7] = c, d[15] = e;
}

static bool
marked(const struct rtr_pm *t, unsigned int g, const uint8_t *d, bool v6, unsigned int path,
		uint64_t now)
{
	struct rtr_pm_ref r;

	return rtr_pm_ref(t, g, d, v6, &r) && rtr_pm_marked(t, &r, path, now);
}

static int
mark(struct rtr_pm *t, unsigned int g, const uint8_t *d, bool v6, unsigned int path, uint64_t until,
		uint64_t now)
{
	struct rtr_pm_ref r;

	CHECK(rtr_pm_ref(t, g, d, v6, &r));
	return rtr_pm_mark(t, &r, path, until, now);
}

static struct rtr_pm *
mk(unsigned int len, unsigned int len6)
{
	struct rtr_pm_params p = {
			.n_groups = G_N,
			.groups = groups,
			.dst_prefix_len = len,
			.dst_prefix_len6 = len6,
	};
	struct rtr_pm *t = rtr_pm_create(&p);

	CHECK(t != NULL);
	return t;
}

static void
test_slots(void)
{
	struct rtr_pm *t = mk(24, 64), *u;

	printf("1. slots per group\n");
	CHECK_EQ(rtr_pm_slots(t, G_AGG4), RTR_PM_SLOTS);
	CHECK_EQ(rtr_pm_slots(t, G_TOR4), 256);
	CHECK_EQ(rtr_pm_slots(t, G_ONE4), 1);
	CHECK_EQ(rtr_pm_slots(t, G_AGG6), RTR_PM_SLOTS);
	CHECK_EQ(rtr_pm_slots(t, G_TOR6), 256);
	CHECK_EQ(rtr_pm_slots(t, G_ANY), 1);
	CHECK_EQ(rtr_pm_slots(t, G_N), 0);
	rtr_pm_free(t);
	/* Shorter than the group's prefix: the group prefix (one slot). */
	u = mk(4, 8);
	for (unsigned int g = 0; g < G_N; g++)
		CHECK_EQ(rtr_pm_slots(u, g), 1);
	rtr_pm_free(u);
	/* /26 in a /24: 4 destinations, 4 slots; /32 in a /8: hashed. */
	u = mk(26, 128);
	CHECK_EQ(rtr_pm_slots(u, G_ONE4), 4);
	CHECK_EQ(rtr_pm_slots(u, G_AGG4), RTR_PM_SLOTS);
	CHECK_EQ(rtr_pm_slots(u, G_TOR6), RTR_PM_SLOTS);
	rtr_pm_free(u);
	/* No specs: every group keyed by the group, 64 paths. */
	{
		struct rtr_pm_params p = {.n_groups = 3};
		uint8_t d[16];

		u = rtr_pm_create(&p);
		CHECK(u != NULL);
		CHECK_EQ(rtr_pm_slots(u, 2), 1);
		a4(d, 2, 0, 5);
		CHECK_EQ(mark(u, 2, d, false, 63, T + 10, T), RTR_PM_MARKED);
		a4(d, 9, 9, 9);
		CHECK(marked(u, 2, d, false, 63, T));
		a6(d, 1, 2, 3);
		CHECK(marked(u, 2, d, true, 63, T));
		rtr_pm_free(u);
	}
	rtr_pm_free(NULL);
}

/* Per destination: the marks of one /24 (/64) are its own, shared by its
 * hosts; a group that is one destination shares them with every address. */
static void
test_per_destination(void)
{
	struct rtr_pm *t = mk(24, 64);
	uint8_t x[16], x2[16], y[16];
	struct rtr_pm_ref r;

	printf("2. marks per destination\n");
	a4(x, 2, 0, 5);
	a4(x2, 2, 0, 77);
	a4(y, 3, 0, 5);
	CHECK_EQ(mark(t, G_AGG4, x, false, 1, T + 100, T), RTR_PM_MARKED);
	CHECK(marked(t, G_AGG4, x, false, 1, T));
	CHECK(marked(t, G_AGG4, x, false, 1, T + 99));
	CHECK(!marked(t, G_AGG4, x, false, 1, T + 100));
	CHECK(!marked(t, G_AGG4, x, false, 0, T));
	CHECK(marked(t, G_AGG4, x2, false, 1, T)); /* same /24 */
	CHECK(!marked(t, G_AGG4, y, false, 1, T)); /* another ToR */
	CHECK(!marked(t, G_TOR4, x, false, 1, T)); /* another group */
	CHECK(rtr_pm_marked_any(t, G_AGG4, 1, T));
	CHECK(!rtr_pm_marked_any(t, G_AGG4, 2, T));
	CHECK(!rtr_pm_marked_any(t, G_AGG4, 1, T + 100));
	CHECK(!rtr_pm_marked_any(t, G_AGG4, 4, T)); /* beyond the group's paths */
	/* A path beyond the group's: no mark. */
	CHECK(rtr_pm_ref(t, G_AGG4, x, false, &r));
	CHECK_EQ(r.n_paths, 4);
	CHECK_EQ(rtr_pm_mark(t, &r, 4, T + 100, T), RTR_PM_LOST);
	CHECK(!rtr_pm_marked(t, &r, 4, T));
	/* Refresh: a later mark sets the expiry, shorter or longer. */
	CHECK_EQ(mark(t, G_AGG4, x2, false, 1, T + 50, T + 10), RTR_PM_MARKED);
	CHECK(!marked(t, G_AGG4, x, false, 1, T + 50));
	/* The other family has no slot in a group. */
	CHECK(!rtr_pm_ref(t, G_AGG4, x, true, &r));
	CHECK_EQ(r.n_paths, 0);
	CHECK(!rtr_pm_marked(t, &r, 1, T));
	CHECK_EQ(rtr_pm_mark(t, &r, 1, T + 10, T), RTR_PM_LOST);
	CHECK(!rtr_pm_ref(t, G_N, x, false, &r));
	CHECK(!rtr_pm_ref(NULL, 0, x, false, &r));
	/* One destination: every address of the group shares the marks. */
	CHECK_EQ(mark(t, G_ONE4, x, false, 2, T + 100, T), RTR_PM_MARKED);
	CHECK(marked(t, G_ONE4, y, false, 2, T));
	/* IPv6 /64s. */
	{
		uint8_t p[16], q[16], p2[16];

		a6(p, 2, 0, 5);
		a6(p2, 2, 0, 99);
		a6(q, 3, 0, 5);
		CHECK_EQ(mark(t, G_AGG6, p, true, 7, T + 100, T), RTR_PM_MARKED);
		CHECK(marked(t, G_AGG6, p, true, 7, T));
		CHECK(marked(t, G_AGG6, p2, true, 7, T));
		CHECK(!marked(t, G_AGG6, q, true, 7, T));
		p2[8] = 1; /* below /64: the same destination */
		CHECK(marked(t, G_AGG6, p2, true, 7, T));
	}
	rtr_pm_free(t);
}

/* Up to the slot count, the destinations of a group never share a slot:
 * all 256 /24s of a /16 (all 256 /64s of a /56) hold marks at once. */
static void
test_direct(void)
{
	struct rtr_pm *t = mk(24, 64);
	unsigned int wrong = 0;
	uint8_t d[16];

	printf("3. one slot per destination: 256 at once, no eviction\n");
	for (unsigned int i = 0; i < 256; i++) {
		a4(d, 2, (uint8_t)i, 1);
		CHECK_EQ(mark(t, G_TOR4, d, false, i % 4, T + 1000, T), RTR_PM_MARKED);
		a6(d, 0, (uint8_t)i, 1);
		d[5] = 1; /* fd00:1:0:00ii:: in fd00:1::/56 */
		CHECK_EQ(mark(t, G_TOR6, d, true, i % 2, T + 1000, T), RTR_PM_MARKED);
	}
	for (unsigned int i = 0; i < 256; i++) {
		for (unsigned int p = 0; p < 4; p++) {
			a4(d, 2, (uint8_t)i, 200);
			wrong += marked(t, G_TOR4, d, false, p, T + 1) != (p == i % 4);
			a6(d, 0, (uint8_t)i, 7);
			d[5] = 1;
			wrong += p < 2 && marked(t, G_TOR6, d, true, p, T + 1) != (p == i % 2);
		}
	}
	CHECK_EQ(wrong, 0);
	CHECK_EQ(rtr_pm_count(t, T + 1), 512);
	CHECK_EQ(rtr_pm_count(t, T + 1000), 0);
	rtr_pm_free(t);
}

/* Two destinations hashed to one slot. */
static void
test_collision(void)
{
	struct rtr_pm *t = mk(24, 64);
	struct rtr_pm_ref ra, rb;
	uint8_t a[16], b[16];
	unsigned int i;

	printf("4. two destinations in one slot: take-over, eviction\n");
	a4(a, 2, 0, 5);
	CHECK(rtr_pm_ref(t, G_AGG4, a, false, &ra));
	for (i = 1; i < 65536; i++) {
		a4(b, (uint8_t)(2 + (i >> 8)), (uint8_t)i, 5);
		CHECK(rtr_pm_ref(t, G_AGG4, b, false, &rb));
		if (rb.word == ra.word)
			break;
	}
	CHECK(i < 65536 && rb.tag != ra.tag);
	/* A marks 1 and 3; B marks 2 while A's are live: A's marks go. */
	CHECK_EQ(rtr_pm_mark(t, &ra, 1, T + 100, T), RTR_PM_MARKED);
	CHECK_EQ(rtr_pm_mark(t, &ra, 3, T + 50, T), RTR_PM_MARKED);
	CHECK(!rtr_pm_marked(t, &rb, 1, T + 5));
	CHECK_EQ(rtr_pm_count(t, T + 5), 2);
	CHECK_EQ(rtr_pm_mark(t, &rb, 2, T + 200, T + 10), RTR_PM_EVICTED);
	CHECK(!rtr_pm_marked(t, &ra, 1, T + 11));
	CHECK(!rtr_pm_marked(t, &ra, 3, T + 11));
	CHECK(!rtr_pm_marked(t, &ra, 2, T + 11));
	CHECK(rtr_pm_marked(t, &rb, 2, T + 11));
	CHECK(!rtr_pm_marked(t, &rb, 1, T + 11)); /* A's old expiry is not B's */
	CHECK(!rtr_pm_marked(t, &rb, 3, T + 11));
	CHECK_EQ(rtr_pm_count(t, T + 11), 1);
	/* B refreshes: its own slot, a plain store. */
	CHECK_EQ(rtr_pm_mark(t, &rb, 0, T + 300, T + 20), RTR_PM_MARKED);
	/* Once B's marks expired, A takes the slot back at no cost. */
	CHECK_EQ(rtr_pm_mark(t, &ra, 1, T + 500, T + 300), RTR_PM_MARKED);
	CHECK(rtr_pm_marked(t, &ra, 1, T + 301));
	CHECK(!rtr_pm_marked(t, &rb, 0, T + 299)); /* the slot is A's now */
	CHECK(!rtr_pm_marked(t, &ra, 0, T + 299));
	rtr_pm_free(t);
}

/* rtr_pm_groups_of: the config's groups in route order, the rest zero. */
static void
test_groups_of(void)
{
	struct rtr_route_cfg routes[4];
	struct rtr_config cfg;
	struct rtr_pm_group g[5];

	printf("5. groups of a config\n");
	memset(&cfg, 0, sizeof(cfg));
	memset(routes, 0, sizeof(routes));
	routes[0].prefix = (struct rtr_addr){.family = AF_INET, .depth = 32};
	routes[0].n_paths = 1;
	routes[1].prefix = (struct rtr_addr){.family = AF_INET, .depth = 8};
	routes[1].is_group = true;
	routes[1].n_paths = 4;
	routes[2].prefix = (struct rtr_addr){.family = AF_INET6, .depth = 16};
	routes[2].is_group = true;
	routes[2].n_paths = 64;
	routes[3].prefix = (struct rtr_addr){.family = AF_INET, .depth = 24};
	routes[3].n_paths = 1;
	cfg.routes = routes;
	cfg.n_routes = 4;
	memset(g, 0xee, sizeof(g));
	CHECK_EQ(rtr_pm_groups_of(&cfg, g, 5), 2);
	CHECK(g[0].family == AF_INET && g[0].depth == 8 && g[0].n_paths == 4);
	CHECK(g[1].family == AF_INET6 && g[1].depth == 16 && g[1].n_paths == 64);
	CHECK(g[2].family == 0 && g[2].depth == 0 && g[2].n_paths == 0);
	CHECK(g[4].family == 0 && g[4].n_paths == 0);
	CHECK_EQ(rtr_pm_groups_of(&cfg, g, 1), 2);
	CHECK_EQ(rtr_pm_groups_of(NULL, g, 1), 0);
}

int
main(void)
{
	test_slots();
	test_per_destination();
	test_direct();
	test_collision();
	test_groups_of();
	return rtr_test_done("pathmark");
}

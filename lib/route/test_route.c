/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * Routing and ECMP: LPM answers (longest match, host routes, IPv6, local
 * addresses, misses), ECMP per ALGORITHMS.md 1 on hashes computed by the
 * real parser from real frames: a flow always maps to one path, 1000 flows
 * spread within 10% of even over 4 paths, another seed gives another
 * mapping, and a dead path takes nothing while the others keep their flows.
 */

#include <arpa/inet.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_lpm.h>
#include <rte_malloc.h>
#include <rte_rcu_qsbr.h>

#include "rtr_parse.h"
#include "rtr_route.h"
#include "rtr_test.h"
#include "rtr_test_eal.h"

static int next_nh;

static int
fake_nh(void *arg, uint16_t port, const struct rtr_addr *ip, const uint8_t *mac)
{
	(void)arg;
	(void)ip;
	(void)mac;
	return next_nh++ * 100 + port; /* encodes the port for the checks */
}

static void
pfx(struct rtr_addr *a, const char *s, unsigned int depth)
{
	memset(a, 0, sizeof(*a));
	if (strchr(s, ':') != NULL) {
		a->family = AF_INET6;
		inet_pton(AF_INET6, s, &a->v6);
	} else {
		a->family = AF_INET;
		inet_pton(AF_INET, s, &a->v4);
	}
	a->depth = (uint8_t)depth;
}

/* A RoCEv2 frame from src to dst with UDP source port sport. */
static unsigned int
roce_frame(uint8_t *f, uint32_t src, uint32_t dst, uint16_t sport)
{
	static const uint8_t hdr[] = {/* Ethernet */
			2, 0, 0, 0, 1, 0, 2, 0, 0, 0, 0xaa, 1, 0x08, 0x00,
			/* IPv4: len 20 + 8 + 12 + 4 = 44 */
			0x45, 0, 0, 44, 0, 0, 0x40, 0, 64, 17, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
			/* UDP: len 24 */
			0, 0, 0x12, 0xb7, 0, 24, 0, 0,
			/* BTH: SEND ONLY, pkey ffff, qp 0x11, psn 1 */
			0x04, 0x40, 0xff, 0xff, 0, 0, 0, 0x11, 0, 0, 0, 1,
			/* ICRC (value irrelevant here) */
			0, 0, 0, 0};
	uint32_t s = htonl(src), d = htonl(dst);
	uint16_t sp = htons(sport);

	memcpy(f, hdr, sizeof(hdr));
	memcpy(f + 26, &s, 4);
	memcpy(f + 30, &d, 4);
	memcpy(f + 34, &sp, 2);
	return sizeof(hdr);
}

static uint32_t
flow_hash(uint32_t src, uint32_t dst, uint16_t sport, uint32_t seed)
{
	uint8_t f[128];
	struct rtr_meta m;
	unsigned int len = roce_frame(f, src, dst, sport);

	CHECK(rtr_parse(f, len, seed, 0, &m) == RTR_DROP_NONE);
	CHECK(m.flags & RTR_MF_ROCE);
	return m.flow_hash;
}

static void
test_lpm(struct rtr_route *r)
{
	uint8_t v6[16];
	int64_t res;

	/* 10.1.0.1/32 host route (nh 0, port 0) beats 10.1.0.0/16 (nh 1, port 0). */
	res = rtr_route_lookup4(r, inet_addr("10.1.0.1"));
	CHECK_EQ(res, RTR_RT_NH | 0);
	res = rtr_route_lookup4(r, inet_addr("10.1.0.2"));
	CHECK_EQ(res, RTR_RT_NH | 101);
	/* 10.2.0.0/16: the group. */
	res = rtr_route_lookup4(r, inet_addr("10.2.3.4"));
	CHECK_EQ(res, RTR_RT_GROUP | 0);
	/* Local address of port 0. */
	res = rtr_route_lookup4(r, inet_addr("10.1.0.254"));
	CHECK_EQ(res, RTR_RT_LOCAL | 0);
	/* Miss. */
	CHECK_EQ(rtr_route_lookup4(r, inet_addr("192.0.2.1")), -1);
	/* IPv6 group and miss. */
	inet_pton(AF_INET6, "fd00:2::99", v6);
	CHECK_EQ(rtr_route_lookup6(r, v6), RTR_RT_GROUP | 1);
	inet_pton(AF_INET6, "fd00:3::1", v6);
	CHECK_EQ(rtr_route_lookup6(r, v6), -1);
	CHECK_EQ(r->n_groups, 2);
	CHECK_EQ(r->groups[0].n_paths, 4);
	CHECK_EQ(r->groups[0].port[3], 4);
	CHECK_STR(r->groups[0].name, "10.2.0.0/16");
}

static void
test_ecmp(struct rtr_route *r)
{
	struct rtr_group *g = &r->groups[0];
	unsigned int count[4] = {0}, moved_seed = 0, i;
	int first[1000];

	for (i = 0; i < 1000; i++) {
		uint32_t src = 0x0a010000 + (i % 250) + 1, dst = 0x0a020000 + (i * 7919) % 65536;
		uint16_t sport = (uint16_t)(49152 + (i * 31) % 16384);
		uint32_t h = flow_hash(src, dst, sport, 0x1234);
		int p = rtr_group_pick(g, h);

		CHECK(p >= 0 && p < 4);
		first[i] = p;
		count[p]++;
		/* The same flow maps to the same path on every packet. */
		for (int k = 0; k < 3; k++)
			CHECK_EQ(rtr_group_pick(g, flow_hash(src, dst, sport, 0x1234)), p);
		/* Exactly hash mod n_paths while all paths are live. */
		CHECK_EQ(p, h % 4);
		if (rtr_group_pick(g, flow_hash(src, dst, sport, 0xbeef)) != p)
			moved_seed++;
	}
	for (i = 0; i < 4; i++) {
		printf("ecmp: path %u carries %u of 1000 flows\n", i, count[i]);
		CHECK(count[i] >= 225 && count[i] <= 275, "path %u has %u flows, not 250 +- 10%%",
				i, count[i]);
	}
	/* Another seed must remap flows independently: about 3/4 of them move.
	 * All 1000 moving means the seed only permuted the paths (a linear
	 * hash), which would make a ToR and a spine polarise. */
	printf("ecmp: seed change moved %u of 1000 flows\n", moved_seed);
	CHECK(moved_seed > 650 && moved_seed < 850);

	/* Port 2 (path 1) goes down: nothing lands on it, every flow lands on
	 * a live path (test_resilient checks that the others do not move). */
	/* Port 2 is path 1 of the IPv4 group and path 1 of the IPv6 group. */
	CHECK_EQ(rtr_route_port_state(r, 2, false), 2);
	memset(count, 0, sizeof(count));
	for (i = 0; i < 1000; i++) {
		uint32_t src = 0x0a010000 + (i % 250) + 1, dst = 0x0a020000 + (i * 7919) % 65536;
		uint16_t sport = (uint16_t)(49152 + (i * 31) % 16384);
		int p = rtr_group_pick(g, flow_hash(src, dst, sport, 0x1234));

		CHECK(p == 0 || p == 2 || p == 3);
		if (p >= 0)
			count[p]++;
	}
	CHECK_EQ(count[1], 0);
	CHECK(count[0] > 250 && count[2] > 250 && count[3] > 250);
	/* Port 2 back: the original mapping returns exactly. */
	CHECK_EQ(rtr_route_port_state(r, 2, true), 2);
	for (i = 0; i < 1000; i++) {
		uint32_t src = 0x0a010000 + (i % 250) + 1, dst = 0x0a020000 + (i * 7919) % 65536;
		uint16_t sport = (uint16_t)(49152 + (i * 31) % 16384);

		CHECK_EQ(rtr_group_pick(g, flow_hash(src, dst, sport, 0x1234)), first[i]);
	}
	/* All down: no path. */
	for (uint16_t port = 1; port <= 4; port++)
		rtr_route_port_state(r, port, false);
	CHECK_EQ(rtr_group_pick(g, 12345), -1);
}

/*
 * Resilient groups (ALGORITHMS.md 1), through the control path the app uses
 * (rtr_route_port_state): a group of n paths on ports 1..n, N_RES flows with
 * real parser hashes. One path down: no flow whose path stayed up moves, and
 * the down path's flows spread over the live paths; back up: the flows that
 * move are exactly the ones that were on it. Then two down in sequence, a
 * path up while another stays down, all down and back. Prints the figures
 * the issue asks for (flows moved with 4 and 8 uplinks).
 */
#define N_RES 24000

/* cfg and rt cleared; ports 0 (host) .. n (fabric); cfg routes to rt. */
static void
one_route_cfg(struct rtr_config *cfg, struct rtr_route_cfg *rt, unsigned int n)
{
	memset(cfg, 0, sizeof(*cfg));
	memset(rt, 0, sizeof(*rt));
	cfg->n_ports = n + 1;
	for (unsigned int i = 0; i <= n; i++) {
		cfg->ports[i].port = (uint16_t)i;
		cfg->ports[i].role = i ? RTR_PORT_FABRIC : RTR_PORT_HOST;
	}
	cfg->routes = rt;
	cfg->n_routes = 1;
}

static struct rtr_route *
res_route(unsigned int n, const char *name)
{
	static struct rtr_config cfg;
	static struct rtr_route_cfg rt;
	char err[256];
	struct rtr_route *r;

	one_route_cfg(&cfg, &rt, n);
	pfx(&rt.prefix, "10.2.0.0", 16);
	rt.is_group = true;
	rt.n_paths = (uint8_t)n;
	for (unsigned int i = 0; i < n; i++)
		rt.paths[i].port = (uint16_t)(i + 1);
	r = rtr_route_create(name, &cfg, 0, fake_nh, NULL, err, sizeof(err));
	CHECK(r != NULL, "%s", err);
	return r;
}

static uint32_t res_hash[N_RES];

static void
res_map(const struct rtr_group *g, int *map)
{
	for (unsigned int i = 0; i < N_RES; i++)
		map[i] = rtr_group_pick(g, res_hash[i]);
}

static unsigned int
res_differ(const int *a, const int *b)
{
	unsigned int n = 0;

	for (unsigned int i = 0; i < N_RES; i++)
		n += a[i] != b[i];
	return n;
}

/* Flows that changed path from a to b: moved_live counts those whose path in
 * a is still live (they had no reason to move), moved those that changed. */
static void
res_diff(const struct rtr_group *g, const int *a, const int *b, unsigned int *moved,
		unsigned int *moved_live)
{
	uint64_t live = atomic_load(&g->live_mask);

	*moved = *moved_live = 0;
	for (unsigned int i = 0; i < N_RES; i++) {
		if (a[i] == b[i])
			continue;
		(*moved)++;
		if (a[i] >= 0 && ((live >> a[i]) & 1))
			(*moved_live)++;
	}
}

/* Every flow on a live path, and each live path's load within tol of even. */
static void
res_balanced(const struct rtr_group *g, const int *map, double tol, const char *what)
{
	uint64_t live = atomic_load(&g->live_mask);
	unsigned int count[RTR_MAX_PATHS] = {0}, n_live = (unsigned int)__builtin_popcountll(live);
	unsigned int bad = 0;

	for (unsigned int i = 0; i < N_RES; i++) {
		if (map[i] < 0 || !((live >> map[i]) & 1))
			bad++;
		else
			count[map[i]]++;
	}
	CHECK_EQ(bad, 0);
	for (unsigned int p = 0; p < g->n_paths; p++) {
		double even = (double)N_RES / n_live;

		if (!((live >> p) & 1))
			continue;
		CHECK(count[p] >= even * (1 - tol) && count[p] <= even * (1 + tol),
				"%s: path %u carries %u flows, %.0f +- %.0f%% expected", what, p,
				count[p], even, tol * 100);
	}
}

static void
test_resilient(unsigned int n)
{
	static int base[N_RES], down[N_RES], map[N_RES], prev[N_RES];
	unsigned int on_down = 0, moved, moved_live, spread[RTR_MAX_PATHS] = {0};
	const unsigned int d = 1, d2 = n - 1; /* paths taken down (ports d+1, d2+1) */
	char name[16];
	struct rtr_route *r;
	struct rtr_group *g;

	snprintf(name, sizeof(name), "trs%u", n);
	r = res_route(n, name);
	if (r == NULL)
		return;
	g = &r->groups[0];
	for (unsigned int i = 0; i < N_RES; i++) {
		uint32_t src = 0x0a010000 + (i % 250) + 1, dst = 0x0a020000 + (i * 7919) % 65536;

		res_hash[i] = flow_hash(src, dst, (uint16_t)(49152 + (i * 31) % 16384), 0x77);
	}
	res_map(g, base);
	moved = 0;
	for (unsigned int i = 0; i < N_RES; i++)
		moved += base[i] != (int)(res_hash[i] % n); /* all live: exactly hash mod n */
	CHECK_EQ(moved, 0);

	/* One path down: only its flows move, spread over the live paths. */
	CHECK_EQ(rtr_route_port_state(r, (uint16_t)(d + 1), false), 1);
	res_map(g, down);
	res_diff(g, base, down, &moved, &moved_live);
	for (unsigned int i = 0; i < N_RES; i++) {
		if (base[i] == (int)d) {
			on_down++;
			if (down[i] >= 0)
				spread[down[i]]++;
		}
	}
	printf("resilient n=%u: path %u down: %u of %u flows on live paths moved "
	       "(%u flows were on it)\n",
			n, d, moved_live, N_RES - on_down, on_down);
	CHECK_EQ(moved_live, 0);
	CHECK_EQ(moved, on_down);
	CHECK_EQ(spread[d], 0);
	for (unsigned int p = 0; p < n; p++) {
		double even = (double)on_down / (n - 1);

		if (p != d)
			CHECK(spread[p] >= even * 0.75 && spread[p] <= even * 1.25,
					"n=%u: path %u took %u of the %u flows of path %u, %.0f +- "
					"25%% "
					"expected",
					n, p, spread[p], on_down, d, even);
	}
	printf("resilient n=%u: its flows went to", n);
	for (unsigned int p = 0; p < n; p++)
		if (p != d)
			printf(" path %u: %u", p, spread[p]);
	printf(" (%.0f each if even)\n", (double)on_down / (n - 1));
	res_balanced(g, down, 0.1, "one down");

	/* Back up: the flows that move are exactly the ones that were on it,
	 * and they go home. */
	CHECK_EQ(rtr_route_port_state(r, (uint16_t)(d + 1), true), 1);
	res_map(g, map);
	res_diff(g, down, map, &moved, &moved_live);
	printf("resilient n=%u: path %u up: %u flows moved (%u were on it)\n", n, d, moved,
			on_down);
	CHECK_EQ(moved, on_down);
	CHECK_EQ(res_differ(map, base), 0);

	/* Two down in sequence: the second moves only the flows on it (its own
	 * and those the first one sent there). */
	rtr_route_port_state(r, (uint16_t)(d + 1), false);
	res_map(g, prev);
	CHECK_EQ(rtr_route_port_state(r, (uint16_t)(d2 + 1), false), 1);
	res_map(g, map);
	res_diff(g, prev, map, &moved, &moved_live);
	printf("resilient n=%u: then path %u down: %u flows on live paths moved\n", n, d2,
			moved_live);
	CHECK_EQ(moved_live, 0);
	res_balanced(g, map, 0.1, "two down");
	/* The first comes back while the second stays down: only its own
	 * flows move (back to it); the second's stay where they went. */
	memcpy(prev, map, sizeof(prev));
	rtr_route_port_state(r, (uint16_t)(d + 1), true);
	res_map(g, map);
	moved = moved_live = 0;
	for (unsigned int i = 0; i < N_RES; i++) {
		if (map[i] == prev[i])
			continue;
		moved++;
		if (base[i] != (int)d || map[i] != (int)d)
			moved_live++; /* moved, but not home to path d */
	}
	printf("resilient n=%u: path %u up, %u still down: %u flows moved, %u of them not "
	       "home to it (%u were on it)\n",
			n, d, d2, moved, moved_live, on_down);
	CHECK_EQ(moved, on_down);
	CHECK_EQ(moved_live, 0);
	CHECK_EQ(rtr_route_port_state(r, (uint16_t)(d2 + 1), true), 1);
	res_map(g, map);
	CHECK_EQ(res_differ(map, base), 0);

	/* All down: no path; one back: it takes everything; all back: the
	 * original mapping. */
	for (unsigned int p = 1; p <= n; p++)
		rtr_route_port_state(r, (uint16_t)p, false);
	res_map(g, map);
	moved = 0;
	for (unsigned int i = 0; i < N_RES; i++)
		moved += map[i] != -1;
	CHECK_EQ(moved, 0);
	rtr_route_port_state(r, (uint16_t)(d2 + 1), true);
	res_map(g, map);
	moved = 0;
	for (unsigned int i = 0; i < N_RES; i++)
		moved += map[i] != (int)d2;
	CHECK_EQ(moved, 0);
	/* A second one back takes its own flows and nothing else. */
	rtr_route_port_state(r, (uint16_t)(d + 1), true);
	res_map(g, prev);
	moved = 0;
	for (unsigned int i = 0; i < N_RES; i++)
		moved += prev[i] != (base[i] == (int)d ? (int)d : (int)d2);
	CHECK_EQ(moved, 0);
	for (unsigned int p = 1; p <= n; p++)
		rtr_route_port_state(r, (uint16_t)p, true);
	res_map(g, map);
	CHECK_EQ(res_differ(map, base), 0);
	rtr_route_free(r);
}

static uint64_t walk_rng = 0x9e3779b97f4a7c15ULL;

static uint64_t
walk_next(void)
{
	return rtr_test_xorshift(&walk_rng);
}

/* Buckets on the most and the least loaded live path. */
static unsigned int
bucket_spread(const struct rtr_group *g)
{
	uint64_t live = atomic_load(&g->live_mask);
	unsigned int count[RTR_MAX_PATHS], lo = ~0u, hi = 0;

	rtr_group_bucket_counts(g, count);
	for (unsigned int p = 0; p < g->n_paths; p++) {
		if (!((live >> p) & 1)) {
			CHECK_EQ(count[p], 0);
			continue;
		}
		lo = count[p] < lo ? count[p] : lo;
		hi = count[p] > hi ? count[p] : hi;
	}
	return hi - lo;
}

/*
 * rtr_group_set_live on random sequences of masks (several paths at once,
 * all down, all up) for groups of 1 to 64 paths, checking after each step:
 * every flow is on a live path (-1 only with none live); a flow whose home
 * is live is on it; a flow that was on a path still live either stayed or
 * went home to a path that came back. Taking paths down one by one from all
 * live keeps the live paths' bucket counts within one of each other.
 */
#define N_WALK 4096

static void
test_resilient_walk(void)
{
	static const unsigned int sizes[] = {1, 2, 3, 5, 8, 12, 33, 64};
	static uint32_t h[N_WALK];
	static int prev[N_WALK], cur[N_WALK];

	for (unsigned int i = 0; i < N_WALK; i++)
		h[i] = (uint32_t)walk_next();
	for (unsigned int si = 0; si < RTR_ARRAY_SIZE(sizes); si++) {
		const unsigned int n = sizes[si];
		const uint64_t all = n == 64 ? ~0ULL : (1ULL << n) - 1;
		unsigned int bad_dead = 0, bad_home = 0, bad_moved = 0, worst = 0;
		struct rtr_group g;

		memset(&g, 0, sizeof(g));
		CHECK_EQ(rtr_group_init(&g, n), 0);
		CHECK_EQ(g.n_buckets % n, 0);
		CHECK(g.n_buckets >= 64 * n && g.n_buckets <= RTR_GROUP_BUCKETS);
		for (unsigned int i = 0; i < N_WALK; i++)
			prev[i] = rtr_group_pick(&g, h[i]);
		for (unsigned int step = 0; step < 1500; step++) {
			uint64_t old = atomic_load(&g.live_mask), live = old, up;
			unsigned int r = (unsigned int)(walk_next() % 20);

			if (r == 0)
				live = 0;
			else if (r == 1)
				live = all;
			else
				for (unsigned int k = 0; k <= r % 3; k++)
					live ^= 1ULL << (walk_next() % n);
			CHECK_EQ(rtr_group_set_live(&g, live),
					__builtin_popcountll((live ^ old) & all));
			live &= all;
			CHECK_EQ(atomic_load(&g.live_mask), live);
			up = live & ~old;
			for (unsigned int i = 0; i < N_WALK; i++) {
				int p = rtr_group_pick(&g, h[i]), home = (int)(h[i] % n);

				cur[i] = p;
				if (live == 0 ? p != -1 : p < 0 || !((live >> p) & 1))
					bad_dead++;
				if (((live >> home) & 1) && p != home)
					bad_home++;
				if (prev[i] >= 0 && ((live >> prev[i]) & 1) && p != prev[i] &&
						!(p == home && ((up >> home) & 1)))
					bad_moved++;
			}
			memcpy(prev, cur, sizeof(prev));
		}
		CHECK(bad_dead == 0, "n=%u: %u picks of a dead path", n, bad_dead);
		CHECK(bad_home == 0, "n=%u: %u flows off their live home", n, bad_home);
		CHECK(bad_moved == 0, "n=%u: %u flows moved off a live path", n, bad_moved);

		/* Down one at a time from all live: balanced to a bucket. */
		rtr_group_set_live(&g, all);
		for (uint64_t live = all; __builtin_popcountll(live) > 1;) {
			unsigned int p = (unsigned int)(walk_next() % n);

			if (!((live >> p) & 1))
				continue;
			live &= ~(1ULL << p);
			rtr_group_set_live(&g, live);
			worst = RTE_MAX(worst, bucket_spread(&g));
		}
		CHECK(worst <= 1, "n=%u: live paths' bucket counts %u apart", n, worst);
		rtr_group_fini(&g);
	}
}

/*
 * The live mask is the authority: a bucket naming a path the reader's mask
 * has down (an update in progress) and a group with no table (built by hand)
 * both give a live path: the home if live, else the (hash mod n_live)-th.
 */
static void
test_resilient_fallback(void)
{
	struct rtr_group g;
	unsigned int bad = 0;

	memset(&g, 0, sizeof(g));
	CHECK_EQ(rtr_group_init(&g, 4), 0);
	rtr_group_set_live(&g, 0xb); /* path 2 down */
	/* Point every bucket at path 2 behind the control's back. */
	for (unsigned int b = 0; b < g.n_buckets; b++)
		atomic_store(&g.bucket[b], 2);
	for (uint32_t hash = 0; hash < 4000; hash++) {
		int p = rtr_group_pick(&g, hash);

		bad += p < 0 || p == 2 || (hash % 4 != 2 && p != (int)(hash % 4));
	}
	CHECK_EQ(bad, 0);
	rtr_group_fini(&g);

	/* No table: the live mask alone. */
	memset(&g, 0, sizeof(g));
	g.n_paths = 4;
	atomic_store(&g.live_mask, 0x6);
	CHECK_EQ(rtr_group_pick(&g, 5), 1); /* home 1 live */
	CHECK_EQ(rtr_group_pick(&g, 6), 2); /* home 2 live */
	CHECK_EQ(rtr_group_pick(&g, 4), 1); /* home 0 down: 4 mod 2 = 0th live */
	CHECK_EQ(rtr_group_pick(&g, 7), 2); /* home 3 down: 7 mod 2 = 1st live */
	atomic_store(&g.live_mask, 0);
	CHECK_EQ(rtr_group_pick(&g, 7), -1);
	CHECK_EQ(rtr_group_pick_live(&g, 0x8, 5), 3);
}

/*
 * Run-time routes (issue 35). Next hops as rocetor's table gives them: one
 * index per (port, address), the same index again for the same pair; the
 * index encodes the port (index % 100) for the checks.
 */
static struct {
	uint16_t port;
	struct rtr_addr ip;
} rt_nhs[512];
static unsigned int rt_n_nhs;

static int
rt_nh(void *arg, uint16_t port, const struct rtr_addr *ip, const uint8_t *mac)
{
	(void)arg;
	(void)mac;
	for (unsigned int i = 0; i < rt_n_nhs; i++)
		if (rt_nhs[i].port == port && ip != NULL &&
				memcmp(&rt_nhs[i].ip, ip, sizeof(*ip)) == 0)
			return (int)(i * 100 + port);
	if (rt_n_nhs == RTR_ARRAY_SIZE(rt_nhs) || ip == NULL)
		return -1;
	rt_nhs[rt_n_nhs].port = port;
	rt_nhs[rt_n_nhs].ip = *ip;
	return (int)(rt_n_nhs++ * 100 + port);
}

/* Path k: port 1 + k % 4, neighbour 10.0.<k>.1 (or fe80::<k>). */
static struct rtr_route_path
rt_path(unsigned int k, bool v6)
{
	struct rtr_route_path p;
	char a[64];

	memset(&p, 0, sizeof(p));
	p.port = (uint16_t)(1 + k % 4);
	if (v6)
		snprintf(a, sizeof(a), "fe80::%x", k + 1);
	else
		snprintf(a, sizeof(a), "10.0.%u.1", k);
	pfx(&p.ip, a, v6 ? 128 : 32);
	return p;
}

static struct rtr_route *
rt_route(const char *name)
{
	static struct rtr_config cfg;
	static struct rtr_route_cfg rt;
	char err[256];
	struct rtr_route *r;

	one_route_cfg(&cfg, &rt, 4);
	cfg.ports[0].n_addrs = 1;
	pfx(&cfg.ports[0].addrs[0], "10.1.0.254", 16);
	pfx(&rt.prefix, "10.1.0.0", 16);
	rt.n_paths = 1;
	rt.paths[0].port = 0;
	pfx(&rt.paths[0].ip, "10.1.0.1", 32);
	r = rtr_route_create(name, &cfg, 0, rt_nh, NULL, err, sizeof(err));
	CHECK(r != NULL, "%s", err);
	return r;
}

/* The next hop a flow of hash h to dst takes now (-1: no route or path). */
static int
rt_flow_nh(const struct rtr_route *r, uint32_t dst_host, uint32_t h)
{
	int64_t v = rtr_route_lookup4(r, htonl(dst_host));
	const struct rtr_group *g;
	int p;

	if (v < 0)
		return -1;
	if ((v & RTR_RT_KIND_MASK) != RTR_RT_GROUP)
		return (int)(v & RTR_RT_INDEX_MASK);
	g = &r->groups[v & RTR_RT_INDEX_MASK];
	p = rtr_group_pick(g, h);
	return p < 0 ? -1 : g->nh[p];
}

static void
test_runtime_basic(void)
{
	struct rtr_route *r = rt_route("rtb");
	struct rtr_route_path paths[4];
	struct rtr_route_info info;
	struct rtr_addr p;
	char err[256];
	bool pend;
	int64_t v;

	printf("run-time routes: add, replace, remove, refusals\n");
	if (r == NULL)
		return;
	paths[0] = rt_path(0, false);
	paths[1] = rt_path(1, false);
	pfx(&p, "10.9.7.5", 16); /* host bits are cleared */
	CHECK((rtr_route_set(r, &p, paths, 2, RTR_RS_API, &pend, err, sizeof(err))) == (0), "%s",
			err);
	CHECK(!pend);
	v = rtr_route_lookup4(r, htonl(0x0a090102));
	CHECK(v >= 0 && (v & RTR_RT_KIND_MASK) == RTR_RT_GROUP);
	pfx(&p, "10.9.0.0", 16);
	CHECK(rtr_route_find(r, &p, &info) && info.src == RTR_RS_API && info.val == (uint32_t)v);
	CHECK_EQ(rtr_route_count(r), 3); /* the config's route, the port's address, this */
	/* One next hop: a next-hop route... but the group keeps its slot. */
	CHECK_EQ(rtr_route_set(r, &p, paths, 1, RTR_RS_API, NULL, err, sizeof(err)), 0);
	CHECK((rtr_route_lookup4(r, htonl(0x0a090102))) == (v), "a group route keeps its group");
	CHECK_EQ(atomic_load(&r->groups[v & RTR_RT_INDEX_MASK].live_mask), 1);
	/* A next-hop route. */
	pfx(&p, "10.8.0.0", 24);
	CHECK_EQ(rtr_route_set(r, &p, &paths[1], 1, RTR_RS_FPM, NULL, err, sizeof(err)), 0);
	v = rtr_route_lookup4(r, htonl(0x0a080005));
	CHECK(v >= 0 && (v & RTR_RT_KIND_MASK) == RTR_RT_NH && (v & RTR_RT_INDEX_MASK) % 100 == 2);
	/* Refusals change nothing. */
	pfx(&p, "10.1.0.0", 16);
	CHECK_EQ(rtr_route_set(r, &p, paths, 2, RTR_RS_API, NULL, err, sizeof(err)), -EPERM);
	CHECK(strstr(err, "config") != NULL, "%s", err);
	CHECK_EQ(rtr_route_del(r, &p, err, sizeof(err)), -EPERM);
	pfx(&p, "10.1.0.254", 32);
	CHECK_EQ(rtr_route_set(r, &p, paths, 1, RTR_RS_API, NULL, err, sizeof(err)), -EPERM);
	pfx(&p, "10.1.0.0", 33);
	CHECK_EQ(rtr_route_set(r, &p, paths, 1, RTR_RS_API, NULL, err, sizeof(err)), -EINVAL);
	pfx(&p, "10.7.0.0", 16);
	CHECK_EQ(rtr_route_del(r, &p, err, sizeof(err)), -ENOENT);
	CHECK_EQ(rtr_route_set(r, &p, paths, 0, RTR_RS_API, NULL, err, sizeof(err)), -EINVAL);
	paths[2] = rt_path(2, false);
	paths[2].port = RTR_MAX_PORTS;
	CHECK_EQ(rtr_route_set(r, &p, &paths[2], 1, RTR_RS_API, NULL, err, sizeof(err)), -EINVAL);
	CHECK_EQ(rtr_route_lookup4(r, htonl(0x0a070001)), -1);
	CHECK_EQ(rtr_route_counters(r)->refused, 7);
	/* Removal: the less specific route answers again. */
	pfx(&p, "10.8.0.0", 24);
	CHECK_EQ(rtr_route_del(r, &p, err, sizeof(err)), 0);
	CHECK_EQ(rtr_route_lookup4(r, htonl(0x0a080005)), -1);
	pfx(&p, "10.9.0.0", 16);
	CHECK_EQ(rtr_route_del(r, &p, err, sizeof(err)), 0);
	CHECK_EQ(rtr_route_lookup4(r, htonl(0x0a090102)), -1);
	CHECK_EQ(rtr_route_count(r), 2);
	CHECK_EQ(rtr_route_counters(r)->added, 2);
	CHECK_EQ(rtr_route_counters(r)->removed, 2);
	/* Without RCU the group is free at once. */
	for (unsigned int g = 0; g < r->n_groups; g++)
		CHECK(!r->groups[g].in_use, "group %u still in use", g);
	/* IPv6 without RCU: in place. */
	paths[0] = rt_path(0, true);
	paths[1] = rt_path(1, true);
	pfx(&p, "fd00:9::", 64);
	CHECK((rtr_route_set(r, &p, paths, 2, RTR_RS_API, &pend, err, sizeof(err))) == (0), "%s",
			err);
	CHECK(!pend);
	{
		struct in6_addr a;

		inet_pton(AF_INET6, "fd00:9::5", &a);
		v = rtr_route_lookup6(r, a.s6_addr);
		CHECK(v >= 0 && (v & RTR_RT_KIND_MASK) == RTR_RT_GROUP);
		CHECK_EQ(rtr_route_del(r, &p, err, sizeof(err)), 0);
		CHECK_EQ(rtr_route_lookup6(r, a.s6_addr), -1);
	}
	rtr_route_free(r);
}

/*
 * A group's next hops change in place (ALGORITHMS.md 1): one leaves, only
 * its flows move; it comes back, exactly those flows return; a new next
 * hop takes the free slot, only that slot's flows move to it; one more
 * than the slots builds a new group.
 */
static void
test_runtime_resilient(void)
{
	enum { NF = 24000 };
	static int before[NF], after[NF];
	struct rtr_route *r = rt_route("rtr");
	struct rtr_route_path paths[6];
	struct rtr_addr p;
	char err[256];
	unsigned int moved = 0, bad = 0, on_c = 0, k;
	int64_t v0;

	printf("run-time routes: next hops join and leave a group in place\n");
	if (r == NULL)
		return;
	for (k = 0; k < 6; k++)
		paths[k] = rt_path(k, false);
	pfx(&p, "10.20.0.0", 16);
	CHECK((rtr_route_set(r, &p, paths, 4, RTR_RS_FPM, NULL, err, sizeof(err))) == (0), "%s",
			err);
	v0 = rtr_route_lookup4(r, htonl(0x0a140001));
	for (k = 0; k < NF; k++)
		before[k] = rt_flow_nh(r, 0x0a140001, flow_hash(k, 0x0a140001, 0xc000, 1));
	/* C (path 2) leaves. */
	{
		struct rtr_route_path abd[3] = {paths[0], paths[1], paths[3]};

		CHECK_EQ(rtr_route_set(r, &p, abd, 3, RTR_RS_FPM, NULL, err, sizeof(err)), 0);
	}
	CHECK((rtr_route_lookup4(r, htonl(0x0a140001))) == (v0), "the group stays");
	for (k = 0; k < NF; k++) {
		after[k] = rt_flow_nh(r, 0x0a140001, flow_hash(k, 0x0a140001, 0xc000, 1));
		if (before[k] == after[k])
			continue;
		moved++;
		bad += before[k] % 100 != 3 || after[k] % 100 == 3; /* only C's, off C */
	}
	for (k = 0; k < NF; k++)
		on_c += before[k] % 100 == 3;
	printf("  C leaves: %u of %u flows moved, %u were on C, %u moved wrongly\n", moved, NF,
			on_c, bad);
	CHECK_EQ(moved, on_c);
	CHECK_EQ(bad, 0);
	/* C comes back: the flows that return are exactly C's. */
	CHECK_EQ(rtr_route_set(r, &p, paths, 4, RTR_RS_FPM, NULL, err, sizeof(err)), 0);
	for (k = 0, bad = 0; k < NF; k++)
		bad += rt_flow_nh(r, 0x0a140001, flow_hash(k, 0x0a140001, 0xc000, 1)) != before[k];
	CHECK((bad) == (0), "C back: %u flows not where they started", bad);
	/* C leaves for good and E (new) takes its slot. */
	{
		struct rtr_route_path abde[4] = {paths[0], paths[1], paths[3], paths[4]};

		CHECK_EQ(rtr_route_set(r, &p, abde, 4, RTR_RS_FPM, NULL, err, sizeof(err)), 0);
	}
	CHECK_EQ(rtr_route_lookup4(r, htonl(0x0a140001)), v0);
	for (k = 0, bad = 0, moved = 0; k < NF; k++) {
		int now = rt_flow_nh(r, 0x0a140001, flow_hash(k, 0x0a140001, 0xc000, 1));

		if (now == before[k])
			continue;
		moved++;
		bad += !(before[k] % 100 == 3 &&
				now == rt_nh(NULL, paths[4].port, &paths[4].ip, NULL));
	}
	printf("  C replaced by E: %u flows moved, %u not from C to E\n", moved, bad);
	CHECK_EQ(moved, on_c);
	CHECK_EQ(bad, 0);
	CHECK_EQ(rtr_route_counters(r)->groups_in_place, 3);
	/* Five next hops in a group of four slots: a new group. */
	{
		struct rtr_route_path five[5] = {paths[0], paths[1], paths[3], paths[4], paths[5]};

		CHECK_EQ(rtr_route_set(r, &p, five, 5, RTR_RS_FPM, NULL, err, sizeof(err)), 0);
	}
	CHECK(rtr_route_lookup4(r, htonl(0x0a140001)) != v0);
	CHECK_EQ(r->groups[rtr_route_lookup4(r, htonl(0x0a140001)) & RTR_RT_INDEX_MASK].n_paths, 5);
	CHECK_EQ(rtr_route_counters(r)->groups_new, 1);
	CHECK(!r->groups[v0 & RTR_RT_INDEX_MASK].in_use, "the old group is freed (no RCU)");
	/* A port down takes its path out of the group's live mask; a next
	 * hop that joins on a down port stays out until the port is up. */
	rtr_route_port_state(r, 1, false);
	CHECK_EQ(atomic_load(&r->groups[rtr_route_lookup4(r, htonl(0x0a140001)) & RTR_RT_INDEX_MASK]
						 .live_mask),
			0x16ULL); /* paths 0 and 3 are on port 1 */
	rtr_route_port_state(r, 1, true);
	rtr_route_free(r);
}

/*
 * With RCU: IPv6 changes wait for the workers' quiescence (the standby
 * table), a removed group's slot too; the two IPv6 tables end equal.
 */
static void
test_runtime_rcu(void)
{
	struct rtr_route *r = rt_route("rtq");
	struct rtr_route_path paths[2] = {rt_path(0, true), rt_path(1, true)};
	struct rte_rcu_qsbr *v;
	struct rtr_route_info info;
	struct in6_addr a1, a2;
	struct rtr_addr p1, p2, p4;
	char err[256];
	bool pend;
	int64_t g4;

	printf("run-time routes under RCU: IPv6 standby table, deferred group frees\n");
	if (r == NULL)
		return;
	v = rte_zmalloc(NULL, rte_rcu_qsbr_get_memsize(1), RTE_CACHE_LINE_SIZE);
	CHECK(v != NULL && rte_rcu_qsbr_init(v, 1) == 0);
	CHECK_EQ(rte_rcu_qsbr_thread_register(v, 0), 0);
	rte_rcu_qsbr_thread_online(v, 0);
	CHECK_EQ(rtr_route_rcu(r, v), 0);
	inet_pton(AF_INET6, "fd00:1::1", &a1);
	inet_pton(AF_INET6, "fd00:2::1", &a2);
	pfx(&p1, "fd00:1::", 64);
	pfx(&p2, "fd00:2::", 64);
	/* The first change is published at once (no grace period under way). */
	CHECK((rtr_route_set(r, &p1, paths, 2, RTR_RS_FPM, &pend, err, sizeof(err))) == (0), "%s",
			err);
	CHECK(!pend);
	CHECK(rtr_route_lookup6(r, a1.s6_addr) >= 0);
	/* The second waits: the reader has not been quiescent since. */
	CHECK_EQ(rtr_route_set(r, &p2, paths, 1, RTR_RS_FPM, &pend, err, sizeof(err)), 0);
	CHECK(pend);
	CHECK_EQ(rtr_route_lookup6(r, a2.s6_addr), -1);
	CHECK(rtr_route_find(r, &p2, &info) && info.state == 1);
	CHECK(rtr_route_poll(r) > 0);
	CHECK((rtr_route_lookup6(r, a2.s6_addr)) == (-1), "published before the grace period");
	rte_rcu_qsbr_quiescent(v, 0);
	rtr_route_poll(r); /* grace over: the old table catches up, p2 is published */
	CHECK(rtr_route_lookup6(r, a1.s6_addr) >= 0, "p1 lost in the table p2 went into");
	CHECK(rtr_route_lookup6(r, a2.s6_addr) >= 0);
	CHECK(rtr_route_find(r, &p2, &info) && info.state == 0);
	/* A replace queued behind a grace period is listed pending, whether
	 * or not the caller asked (the FPM server passes no flag). */
	CHECK_EQ(rtr_route_set(r, &p2, &paths[1], 1, RTR_RS_FPM, NULL, err, sizeof(err)), 0);
	CHECK(rtr_route_find(r, &p2, &info) && info.state == 1, "state %u", info.state);
	rte_rcu_qsbr_quiescent(v, 0);
	rtr_route_poll(r);
	CHECK(rtr_route_find(r, &p2, &info) && info.state == 0);
	rte_rcu_qsbr_quiescent(v, 0);
	CHECK_EQ(rtr_route_poll(r), 0);
	/* Remove p1: still there until published; then its group waits. */
	CHECK_EQ(rtr_route_del(r, &p1, err, sizeof(err)), 0);
	CHECK_EQ(rtr_route_lookup6(r, a1.s6_addr), -1);
	CHECK(rtr_route_lookup6(r, a2.s6_addr) >= 0);
	rte_rcu_qsbr_quiescent(v, 0);
	rtr_route_poll(r); /* the other table drops p1, the group is retired */
	CHECK_EQ(rtr_route_counters(r)->deferred_frees, 0);
	rte_rcu_qsbr_quiescent(v, 0);
	CHECK_EQ(rtr_route_poll(r), 0);
	CHECK_EQ(rtr_route_counters(r)->deferred_frees, 1);
	/* Both tables: p2 there, p1 gone (each change lands in the other one). */
	for (unsigned int i = 0; i < 2; i++) {
		CHECK_EQ(rtr_route_set(r, &p2, &paths[i], 1, RTR_RS_FPM, NULL, err, sizeof(err)),
				0);
		rte_rcu_qsbr_quiescent(v, 0);
		rtr_route_poll(r);
		CHECK_EQ(rtr_route_lookup6(r, a1.s6_addr), -1);
		CHECK_EQ(rtr_route_lookup6(r, a2.s6_addr) & RTR_RT_INDEX_MASK,
				rt_nh(NULL, paths[i].port, &paths[i].ip, NULL));
	}
	/* An IPv4 group route removed: its slot waits for the reader. */
	{
		struct rtr_route_path p4s[2] = {rt_path(0, false), rt_path(1, false)};

		pfx(&p4, "10.30.0.0", 16);
		CHECK_EQ(rtr_route_set(r, &p4, p4s, 2, RTR_RS_API, NULL, err, sizeof(err)), 0);
	}
	g4 = rtr_route_lookup4(r, htonl(0x0a1e0001)) & RTR_RT_INDEX_MASK;
	CHECK_EQ(rtr_route_del(r, &p4, err, sizeof(err)), 0);
	rtr_route_poll(r);
	CHECK(r->groups[g4].in_use, "group freed before the reader was quiescent");
	rte_rcu_qsbr_quiescent(v, 0);
	rtr_route_poll(r);
	CHECK(!r->groups[g4].in_use);
	rte_rcu_qsbr_thread_offline(v, 0);
	rtr_route_free(r);
	rte_free(v);
}

/*
 * Churn: a reader thread looks up and picks as a worker does (reporting
 * quiescence between bursts) while the writer adds, replaces and removes
 * 64 prefixes, IPv4 and IPv6, with 1 to 4 of 6 next hops. The reader must
 * never see a next hop outside the candidates nor lose the stable routes;
 * under ASan, a group freed too early is a use-after-free.
 */
#define CHURN_PFX 64
static struct {
	struct rtr_route *r;
	struct rte_rcu_qsbr *v;
	_Atomic int stop;
	uint64_t lookups, bad, lost;
} churn;

static void *
churn_reader(void *arg)
{
	uint64_t i = 0;

	(void)arg;
	rte_rcu_qsbr_thread_register(churn.v, 0);
	rte_rcu_qsbr_thread_online(churn.v, 0);
	while (!atomic_load(&churn.stop)) {
		for (unsigned int b = 0; b < 32; b++, i++) {
			unsigned int k = (unsigned int)(i * 2654435761u) % CHURN_PFX;
			uint32_t h = (uint32_t)(i * 0x9e3779b9u);
			uint8_t a6[16] = {0xfd, 0, 0, 0, 0, 0x60, 0, (uint8_t)k, 0, 0, 0, 0, 0, 0,
					0, 1};
			int64_t v = k & 1 ? rtr_route_lookup6(churn.r, a6)
					  : rtr_route_lookup4(churn.r, htonl(0x0a3c0001u | k << 8));
			int nh = -1;

			churn.lookups++;
			if (rtr_route_lookup4(churn.r, htonl(0x0a010005)) < 0)
				churn.lost++;
			if (v < 0)
				continue;
			if ((v & RTR_RT_KIND_MASK) == RTR_RT_GROUP) {
				const struct rtr_group *g = &churn.r->groups[v & RTR_RT_INDEX_MASK];
				int p = rtr_group_pick(g, h);

				if (p >= 0)
					nh = g->nh[p];
			} else {
				nh = (int)(v & RTR_RT_INDEX_MASK);
			}
			/* Next hops of the churned prefixes: on ports 1..4. */
			if (nh >= 0 && (nh % 100 < 1 || nh % 100 > 4))
				churn.bad++;
		}
		rte_rcu_qsbr_quiescent(churn.v, 0);
	}
	rte_rcu_qsbr_thread_offline(churn.v, 0);
	return NULL;
}

static void
test_runtime_churn(unsigned int ops)
{
	struct rtr_route *r = rt_route("rtc");
	bool present[CHURN_PFX] = {false};
	struct rtr_route_path cand[2][6];
	uint64_t rng = 0x12345678abcdefULL;
	unsigned int sets = 0, dels = 0, retries = 0, i;
	pthread_t th;
	int rc;
	char err[256];

	printf("run-time routes: %u changes while a reader looks up\n", ops);
	if (r == NULL)
		return;
	for (i = 0; i < 6; i++) {
		cand[0][i] = rt_path(i, false);
		cand[1][i] = rt_path(i, true);
	}
	churn.r = r;
	churn.v = rte_zmalloc(NULL, rte_rcu_qsbr_get_memsize(1), RTE_CACHE_LINE_SIZE);
	CHECK(churn.v != NULL && rte_rcu_qsbr_init(churn.v, 1) == 0);
	CHECK_EQ(rtr_route_rcu(r, churn.v), 0);
	atomic_store(&churn.stop, 0);
	CHECK_EQ(pthread_create(&th, NULL, churn_reader, NULL), 0);
	for (i = 0; i < ops; i++) {
		unsigned int k, n, v6;
		struct rtr_route_path ps[4];
		struct rtr_addr p;
		char a[64];

		rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
		k = (unsigned int)(rng >> 33) % CHURN_PFX;
		v6 = k & 1;
		if (v6)
			snprintf(a, sizeof(a), "fd00:0:60:%x::", k);
		else
			snprintf(a, sizeof(a), "10.60.%u.0", k);
		pfx(&p, a, v6 ? 64 : 24);
		if (present[k] && (rng >> 20) % 4 == 0) {
			CHECK((rtr_route_del(r, &p, err, sizeof(err))) == (0), "%s", err);
			present[k] = false;
			dels++;
		} else {
			n = 1 + (unsigned int)(rng >> 40) % 4;
			for (unsigned int j = 0; j < n; j++)
				ps[j] = cand[v6][(k + j * (1 + (rng >> 50) % 5)) % 6];
			/* Group slots wait for the reader (preempted on a busy
			 * machine): retry as the FPM server does. */
			do {
				rc = rtr_route_set(
						r, &p, ps, n, RTR_RS_FPM, NULL, err, sizeof(err));
				if (rc == -EAGAIN) {
					retries++;
					rtr_route_poll(r);
					usleep(10);
				}
			} while (rc == -EAGAIN && retries < 1000000);
			CHECK(rc == 0, "%s", err);
			present[k] = true;
			sets++;
		}
		rtr_route_poll(r);
	}
	/* Let every change land, then the tables answer as the list says. */
	for (i = 0; i < 100000 && rtr_route_poll(r) != 0; i++)
		usleep(10);
	CHECK((rtr_route_poll(r)) == (0), "changes still pending");
	{
		unsigned int used = 0, want = 0;

		for (unsigned int g = 0; g < RTR_MAX_GROUPS; g++)
			used += r->groups[g].in_use;
		for (unsigned int k = 0; k < rtr_route_slots(r); k++) {
			struct rtr_route_info in;

			want += rtr_route_get(r, k, &in) &&
				(in.val & RTR_RT_KIND_MASK) == RTR_RT_GROUP;
		}
		CHECK(used == want, "%u group slots in use, %u routes name a group", used, want);
	}
	atomic_store(&churn.stop, 1);
	pthread_join(th, NULL);
	for (unsigned int k = 0; k < CHURN_PFX; k++) {
		uint8_t a6[16] = {0xfd, 0, 0, 0, 0, 0x60, 0, (uint8_t)k, 0, 0, 0, 0, 0, 0, 0, 1};
		int64_t v = k & 1 ? rtr_route_lookup6(r, a6)
				  : rtr_route_lookup4(r, htonl(0x0a3c0001u | k << 8));

		CHECK((v >= 0) == (present[k]), "prefix %u: table and list disagree", k);
	}
	printf("  %u adds/replaces (%u retries: groups waiting), %u removals; the reader: %" PRIu64
	       " lookups, %" PRIu64 " wrong next hops, %" PRIu64 " stable-route misses; %" PRIu64
	       " IPv6 swaps, %" PRIu64 " groups freed after grace\n",
			sets, retries, dels, churn.lookups, churn.bad, churn.lost,
			rtr_route_counters(r)->lpm6_swaps, rtr_route_counters(r)->deferred_frees);
	CHECK_EQ(churn.bad, 0);
	CHECK_EQ(churn.lost, 0);
	CHECK(churn.lookups > 0);
	CHECK(rtr_route_counters(r)->deferred_frees > 0);
	rtr_route_free(r);
	rte_free(churn.v);
}

int
main(int argc, char **argv)
{
	char err[256];
	static struct rtr_config cfg;
	static struct rtr_route_cfg routes[4];
	struct rtr_route *r;

	(void)argc;
	(void)argv;
	if (rtr_test_eal_init("test_route") != 0)
		return 1;
	cfg.n_ports = 5;
	for (unsigned int i = 0; i < 5; i++) {
		cfg.ports[i].port = (uint16_t)i;
		cfg.ports[i].role = i ? RTR_PORT_FABRIC : RTR_PORT_HOST;
	}
	cfg.ports[0].n_addrs = 1;
	pfx(&cfg.ports[0].addrs[0], "10.1.0.254", 16);
	pfx(&routes[0].prefix, "10.1.0.1", 32);
	routes[0].n_paths = 1;
	routes[0].paths[0].port = 0;
	pfx(&routes[1].prefix, "10.1.0.0", 16);
	routes[1].n_paths = 1;
	routes[1].paths[0].port = 1;
	pfx(&routes[2].prefix, "10.2.0.0", 16);
	routes[2].is_group = true;
	routes[2].n_paths = 4;
	for (unsigned int i = 0; i < 4; i++)
		routes[2].paths[i].port = (uint16_t)(i + 1);
	pfx(&routes[3].prefix, "fd00:2::", 64);
	routes[3].is_group = true;
	routes[3].n_paths = 2;
	routes[3].paths[0].port = 1;
	routes[3].paths[1].port = 2;
	cfg.routes = routes;
	cfg.n_routes = 4;

	r = rtr_route_create("trt", &cfg, 0, fake_nh, NULL, err, sizeof(err));
	CHECK(r != NULL, "%s", err);
	if (r != NULL) {
		test_lpm(r);
		test_ecmp(r);
		rtr_route_free(r);
	}
	test_resilient(4);
	test_resilient(8);
	test_resilient_walk();
	test_resilient_fallback();
	test_runtime_basic();
	test_runtime_resilient();
	test_runtime_rcu();
	test_runtime_churn(20000);
	rte_eal_cleanup();
	rtr_test_eal_done();
	return rtr_test_done("route");
}

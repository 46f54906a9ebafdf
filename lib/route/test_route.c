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
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_lpm.h>

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

static struct rtr_route *
res_route(unsigned int n, const char *name)
{
	static struct rtr_config cfg;
	static struct rtr_route_cfg rt;
	char err[256];
	struct rtr_route *r;

	memset(&cfg, 0, sizeof(cfg));
	memset(&rt, 0, sizeof(rt));
	cfg.n_ports = n + 1;
	for (unsigned int i = 0; i <= n; i++) {
		cfg.ports[i].port = (uint16_t)i;
		cfg.ports[i].role = i ? RTR_PORT_FABRIC : RTR_PORT_HOST;
	}
	pfx(&rt.prefix, "10.2.0.0", 16);
	rt.is_group = true;
	rt.n_paths = (uint8_t)n;
	for (unsigned int i = 0; i < n; i++)
		rt.paths[i].port = (uint16_t)(i + 1);
	cfg.routes = &rt;
	cfg.n_routes = 1;
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
	rte_eal_cleanup();
	rtr_test_eal_done();
	return rtr_test_done("route");
}

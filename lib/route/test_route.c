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
	static const uint8_t hdr[] = {
		/* Ethernet */
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
		CHECK(count[i] >= 225 && count[i] <= 275, "path %u has %u flows, not 250 +- 10%%", i,
			count[i]);
	}
	/* Another seed must remap flows independently: about 3/4 of them move.
	 * All 1000 moving means the seed only permuted the paths (a linear
	 * hash), which would make a ToR and a spine polarise. */
	printf("ecmp: seed change moved %u of 1000 flows\n", moved_seed);
	CHECK(moved_seed > 650 && moved_seed < 850);

	/* Port 2 (path 1) goes down: nothing lands on it; flows of other
	 * paths may move (hash mod n_live), but all land on live paths. */
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

int
main(int argc, char **argv)
{
	char prefix[64], err[256];
	char a[][32] = {"test_route", "--no-huge", "-m", "256", "--no-pci", "-l", "0",
		"--log-level", "error", "--file-prefix"};
	char *eal[RTR_ARRAY_SIZE(a) + 2];
	static struct rtr_config cfg;
	static struct rtr_route_cfg routes[4];
	struct rtr_route *r;

	(void)argc;
	(void)argv;
	for (unsigned int i = 0; i < RTR_ARRAY_SIZE(a); i++)
		eal[i] = a[i];
	eal[RTR_ARRAY_SIZE(a)] = prefix;
	eal[RTR_ARRAY_SIZE(a) + 1] = NULL;
	snprintf(prefix, sizeof(prefix), "test_route_%d", getpid());
	if (rte_eal_init((int)RTR_ARRAY_SIZE(eal) - 1, eal) < 0) {
		fprintf(stderr, "EAL init failed\n");
		return 1;
	}
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
	rte_eal_cleanup();
	return rtr_test_done("route");
}

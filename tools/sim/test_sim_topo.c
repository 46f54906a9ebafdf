/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * The leaf-spine builder: node, host and port counts, links that pair up,
 * the oversubscription, each switch's config as rocetor loaded it (roles,
 * the uplink group), and every host pair routable by the switches' own
 * route tables: from the source's ToR, lookups and ECMP picks lead to the
 * destination in two links (same ToR) or four, and flows of one pair spread
 * over every spine.
 */

#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

#include "rtr_test.h"
#include "sim_topo.h"

/* Follow the route tables from host src to host dst, the ECMP hash being
 * hash; returns the number of links crossed (-1: lost, no route or a loop),
 * *spine the spine crossed (-1: none). */
static int
walk(const struct sim_topo *t, uint32_t src, uint32_t dst, uint32_t hash, int *spine)
{
	uint32_t node = t->nodes[src].ports[0].peer, ip = t->nodes[dst].ip;
	int links = 1;

	*spine = -1;
	while (links < 8) {
		const struct sim_node *n = &t->nodes[node];
		int64_t r;
		uint16_t port;

		if (n->kind == SIM_HOST)
			return node == dst ? links : -1;
		if (n->kind == SIM_SPINE)
			*spine = (int)n->index;
		r = rtr_route_lookup4(n->route, htonl(ip));
		if (r < 0)
			return -1;
		if ((r & RTR_RT_KIND_MASK) == RTR_RT_GROUP) {
			const struct rtr_group *g = &n->route->groups[r & RTR_RT_INDEX_MASK];
			int path = rtr_group_pick(g, hash);

			if (path < 0)
				return -1;
			port = g->port[path];
		} else if ((r & RTR_RT_KIND_MASK) == RTR_RT_NH) {
			port = n->nh[r & RTR_RT_INDEX_MASK].port;
		} else {
			return -1;
		}
		if (port >= n->n_ports)
			return -1;
		node = n->ports[port].peer;
		links++;
	}
	return -1;
}

static void
test_leafspine(unsigned int T, unsigned int S, unsigned int H, double oversub_want)
{
	struct sim_leafspine p = {.tors = T, .spines = S, .hosts_per_tor = H, .host_gbps = 100,
		.link_delay_ns = 1000};
	struct sim_topo t;
	char err[256], prefix[32];
	unsigned int i, k, bad = 0, n_pairs = 0, ports = 0;
	uint64_t spines_seen = 0;

	snprintf(prefix, sizeof(prefix), "ls%ux%ux%u_", T, S, H);
	if (sim_topo_leafspine(&t, &p, prefix, err, sizeof(err)) != 0) {
		CHECK(0, "%s", err);
		return;
	}
	CHECK_EQ(t.n_hosts, T * H);
	CHECK_EQ(t.n_switches, T + S);
	CHECK_EQ(t.n_nodes, T * H + T + S);
	CHECK(t.oversub > oversub_want - 1e-9 && t.oversub < oversub_want + 1e-9, "oversub %f",
		t.oversub);
	for (i = 0; i < t.n_nodes; i++) {
		const struct sim_node *n = &t.nodes[i];

		ports += n->n_ports;
		for (k = 0; k < n->n_ports; k++) {
			const struct sim_port *pt = &n->ports[k];
			const struct sim_port *back = &t.nodes[pt->peer].ports[pt->peer_port];

			if (back->peer != i || back->peer_port != k || pt->gbps != 100 ||
					pt->delay_ns != 1000)
				bad++;
		}
		if (n->kind == SIM_HOST) {
			if (sim_topo_host_by_ip(&t, n->ip) != i)
				bad++;
			continue;
		}
		CHECK_EQ(n->cfg->n_ports, n->n_ports);
		CHECK(n->lb_ops != NULL, "%s: no LB ops", n->name);
		if (n->kind == SIM_TOR) {
			CHECK_EQ(n->cfg->sw.role, RTR_ROLE_TOR);
			CHECK_EQ(n->fabric_ports, ((1u << S) - 1) << H);
			CHECK_EQ(n->route->n_groups, 1);
			CHECK_EQ(n->route->groups[0].n_paths, S);
		} else {
			CHECK_EQ(n->cfg->sw.role, RTR_ROLE_SPINE);
			CHECK_EQ(n->fabric_ports, (1u << T) - 1);
			CHECK_EQ(n->route->n_groups, 0);
		}
	}
	CHECK_EQ(bad, 0);
	/* Host ports, both ends; uplinks, both ends. */
	CHECK_EQ(ports, 2 * T * H + 2 * T * S);

	for (uint32_t a = 0; a < t.n_hosts; a++) {
		for (uint32_t b = 0; b < t.n_hosts; b++) {
			int sp, want = (a / H == b / H) ? 2 : 4, got;

			if (a == b)
				continue;
			n_pairs++;
			for (uint32_t h = 0; h < 4; h++) {
				got = walk(&t, a, b, a * 7919 + b * 104729 + h * 0x9e3779b9u, &sp);
				if (got != want || (want == 2) != (sp < 0)) {
					if (bad++ < 5)
						fprintf(stderr, "h%u -> h%u: %d links, spine %d\n", a, b,
							got, sp);
				}
			}
		}
	}
	CHECK_EQ(bad, 0);
	CHECK_EQ(n_pairs, T * H * (T * H - 1));
	/* One pair, many flows: every spine carries some. */
	for (uint32_t h = 0; h < 64 * S; h++) {
		int sp;

		if (walk(&t, 0, t.n_hosts - 1, h * 2654435761u, &sp) == 4 && sp >= 0)
			spines_seen |= 1ULL << sp;
	}
	CHECK_EQ(spines_seen, S == 64 ? ~0ULL : (1ULL << S) - 1);
	sim_topo_free(&t);
}

static void
test_bad_args(void)
{
	struct sim_leafspine p = {.tors = 2, .spines = 4, .hosts_per_tor = 30, .host_gbps = 100};
	struct sim_topo t;
	char err[256];

	CHECK_EQ(sim_topo_leafspine(&t, &p, "bad_", err, sizeof(err)), -1);
	CHECK(strstr(err, "ports") != NULL, "%s", err);
	sim_topo_free(&t);
}

int
main(void)
{
	if (sim_eal_init("test_sim_topo", 1024) != 0) {
		fprintf(stderr, "EAL init failed\n");
		return 1;
	}
	test_leafspine(2, 2, 2, 1.0);
	test_leafspine(4, 2, 8, 4.0);
	test_bad_args();
	return rtr_test_done("test_sim_topo");
}

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
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "rtr_egress.h"
#include "rtr_lb.h"
#include "rtr_lb_registry.h"
#include "rtr_parse.h"
#include "rtr_test.h"
#include "sim_net.h"
#include "sim_topo.h"

/* A RoCEv2 frame of the flow (src, dst, sport) to hash with each switch's
 * own parser and seed, as the switch step does. */
static struct {
	struct sim_pkt p;
	uint8_t data[SIM_PKT_BUFSZ];
} frame_buf __rte_aligned(RTE_CACHE_LINE_SIZE);

static uint32_t
frame_of(uint32_t src_ip, uint32_t dst_ip, uint16_t sport)
{
	struct sim_pkt *p = &frame_buf.p;
	struct sim_roce r = {.src_ip = src_ip,
			.dst_ip = dst_ip,
			.sport = sport,
			.dqp = 17,
			.opcode = 4,
			.payload = 64};

	memset(p, 0, sizeof(*p));
	p->mb.buf_addr = frame_buf.data;
	p->mb.buf_len = SIM_PKT_BUFSZ;
	p->mb.data_off = SIM_PKT_HEADROOM;
	return sim_roce_build(p, &r);
}

/* Follow the route tables from host src to host dst for the flow of UDP
 * source port sport, each switch hashing the frame with its own seed and
 * picking with rtr_group_pick; returns the number of links crossed (-1:
 * lost, no route, a down link or a loop). via[] gets the switches crossed
 * (up to 7), *n_via their number. */
static int
walk(const struct sim_topo *t, uint32_t src, uint32_t dst, uint16_t sport, uint32_t *via,
		unsigned int *n_via)
{
	uint32_t node = t->nodes[src].ports[0].peer, ip = t->nodes[dst].ip;
	uint32_t len = frame_of(t->nodes[src].ip, ip, sport);
	int links = 1;

	*n_via = 0;
	while (links < 8) {
		const struct sim_node *n = &t->nodes[node];
		struct rtr_meta meta;
		int64_t r;
		uint16_t port;

		if (n->kind == SIM_HOST)
			return node == dst ? links : -1;
		via[(*n_via)++] = node;
		if (rtr_parse(sim_pkt_data(&frame_buf.p), len, n->cfg->sw.seed, 0, &meta) !=
				RTR_DROP_NONE)
			return -1;
		r = rtr_route_lookup4(n->route, htonl(ip));
		if (r < 0)
			return -1;
		if ((r & RTR_RT_KIND_MASK) == RTR_RT_GROUP) {
			const struct rtr_group *g = &n->route->groups[r & RTR_RT_INDEX_MASK];
			int path = rtr_group_pick(g, meta.flow_hash);

			if (path < 0)
				return -1;
			port = g->port[path];
		} else if ((r & RTR_RT_KIND_MASK) == RTR_RT_NH) {
			port = rtr_neigh_nh(n->neigh, r & RTR_RT_INDEX_MASK)->port;
		} else {
			return -1;
		}
		if (port >= n->n_ports || n->ports[port].down)
			return -1;
		node = n->ports[port].peer;
		links++;
	}
	return -1;
}

/* The spine (or agg) a walk crossed, or -1. */
static int
via_kind(const struct sim_topo *t, const uint32_t *via, unsigned int n_via, enum sim_node_kind k,
		unsigned int nth)
{
	for (unsigned int i = 0; i < n_via; i++)
		if (t->nodes[via[i]].kind == k && nth-- == 0)
			return (int)t->nodes[via[i]].index;
	return -1;
}

static void
test_leafspine(unsigned int T, unsigned int S, unsigned int H, double oversub_want)
{
	struct sim_leafspine p = {.tors = T,
			.spines = S,
			.hosts_per_tor = H,
			.host_gbps = 100,
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
		/* Hosts 9000, fabric ports 100 more (the MTU rule's room for
		 * an LB header, doc/config.md). */
		for (k = 0; k < n->cfg->n_ports; k++)
			CHECK_EQ(n->cfg->ports[k].mtu,
					n->cfg->ports[k].role == RTR_PORT_FABRIC ? 9100 : 9000);
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
			uint32_t via[8];
			unsigned int nv;

			if (a == b)
				continue;
			n_pairs++;
			for (uint32_t h = 0; h < 4; h++) {
				got = walk(&t, a, b, (uint16_t)(49152 + h), via, &nv);
				sp = via_kind(&t, via, nv, SIM_SPINE, 0);
				if (got != want || (want == 2) != (sp < 0)) {
					if (bad++ < 5)
						fprintf(stderr, "h%u -> h%u: %d links, spine %d\n",
								a, b, got, sp);
				}
			}
		}
	}
	CHECK_EQ(bad, 0);
	CHECK_EQ(n_pairs, T * H * (T * H - 1));
	/* One pair, many flows: every spine carries some. */
	for (uint32_t h = 0; h < 64 * S; h++) {
		uint32_t via[8];
		unsigned int nv;
		int sp;

		if (walk(&t, 0, t.n_hosts - 1, (uint16_t)(1024 + h), via, &nv) == 4 &&
				(sp = via_kind(&t, via, nv, SIM_SPINE, 0)) >= 0)
			spines_seen |= 1ULL << sp;
	}
	CHECK_EQ(spines_seen, S == 64 ? ~0ULL : (1ULL << S) - 1);
	sim_topo_free(&t);
}

/* Every link's two ends name each other; returns the ports counted. */
static unsigned int
check_links(const struct sim_topo *t, double gbps, uint64_t delay_ns)
{
	unsigned int ports = 0, bad = 0;

	for (uint32_t i = 0; i < t->n_nodes; i++) {
		const struct sim_node *n = &t->nodes[i];

		ports += n->n_ports;
		for (uint16_t k = 0; k < n->n_ports; k++) {
			const struct sim_port *pt = &n->ports[k];
			const struct sim_port *back = &t->nodes[pt->peer].ports[pt->peer_port];

			if (back->peer != i || back->peer_port != k || pt->gbps != gbps ||
					pt->delay_ns != delay_ns)
				bad++;
		}
		if (n->kind == SIM_HOST && sim_topo_host_by_ip(t, n->ip) != i)
			bad++;
	}
	CHECK_EQ(bad, 0);
	return ports;
}

/*
 * A k-ary fat-tree of H hosts per edge (0: k/2): counts, links, roles and
 * groups as rocetor loaded them; every ordered host pair, four flows each,
 * reaches its host in 2 links (same edge), 4 (same pod, through an agg of
 * the pod) or 6 (through an agg of each pod and a core between them);
 * flows of one pair spread over every core (inter-pod) or agg (intra-pod).
 */
static void
test_fattree(unsigned int k, unsigned int hp, unsigned int want_hosts, unsigned int want_sw,
		double want_oversub)
{
	struct sim_fattree p = {.k = k, .gbps = 100, .link_delay_ns = 1000, .hosts_per_tor = hp};
	unsigned int h = k / 2, H = hp ? hp : k / 2, bad = 0, n_pairs = 0;
	uint64_t cores_seen = 0, aggs_seen = 0;
	struct sim_topo t;
	char err[256], prefix[32];

	snprintf(prefix, sizeof(prefix), "ft%u_%u_", k, hp);
	if (sim_topo_fattree(&t, &p, prefix, err, sizeof(err)) != 0) {
		CHECK(0, "%s", err);
		return;
	}
	CHECK_EQ(t.n_hosts, want_hosts);
	CHECK_EQ(t.n_switches, want_sw);
	CHECK_EQ(t.first_spine - t.first_tor, k * h);
	CHECK_EQ(t.first_core - t.first_spine, k * h);
	CHECK_EQ(t.n_nodes - t.first_core, h * h);
	CHECK(t.oversub > want_oversub - 1e-9 && t.oversub < want_oversub + 1e-9, "oversub %f",
			t.oversub);
	/* Host links, edge-agg links and agg-core links, both ends each. */
	CHECK_EQ(check_links(&t, 100, 1000), 2 * (want_hosts + k * h * h + k * h * h));
	for (uint32_t i = t.first_tor; i < t.n_nodes; i++) {
		const struct sim_node *n = &t.nodes[i];

		if (n->lb_ops == NULL || n->cfg->n_ports != n->n_ports)
			bad++;
		if (n->kind == SIM_TOR) {
			if (n->cfg->sw.role != RTR_ROLE_TOR ||
					n->fabric_ports != ((1u << h) - 1) << H ||
					n->route->n_groups != 1 || n->route->groups[0].n_paths != h)
				bad++;
		} else if (n->kind == SIM_SPINE) {
			/* An agg: its uplinks (ports h..k-1) are the default's group. */
			if (n->cfg->sw.role != RTR_ROLE_SPINE || n->fabric_ports != (1u << k) - 1 ||
					n->route->n_groups != 1 ||
					n->route->groups[0].n_paths != h ||
					n->route->groups[0].port[0] != h)
				bad++;
		} else if (n->cfg->sw.role != RTR_ROLE_SPINE || n->fabric_ports != (1u << k) - 1 ||
				n->route->n_groups != 0) {
			bad++;
		}
	}
	CHECK_EQ(bad, 0);
	for (uint32_t a = 0; a < t.n_hosts; a++) {
		for (uint32_t b = 0; b < t.n_hosts; b++) {
			unsigned int ea = a / H, eb = b / H, pa = ea / h, pb = eb / h, nv;
			int want = ea == eb ? 2 : pa == pb ? 4 : 6, got, ag0, ag1, co;
			uint32_t via[8];

			if (a == b)
				continue;
			n_pairs++;
			for (uint16_t f = 0; f < 4; f++) {
				got = walk(&t, a, b, (uint16_t)(49152 + f), via, &nv);
				ag0 = via_kind(&t, via, nv, SIM_SPINE, 0);
				ag1 = via_kind(&t, via, nv, SIM_SPINE, 1);
				co = via_kind(&t, via, nv, SIM_CORE, 0);
				if (got != want || (want == 2 && (ag0 >= 0 || co >= 0)) ||
						(want == 4 && ((unsigned int)ag0 / h != pa ||
									      ag1 >= 0 ||
									      co >= 0)) ||
						(want == 6 && ((unsigned int)ag0 / h != pa ||
									      (unsigned int)ag1 / h !=
											      pb ||
									      co < 0 ||
									      (unsigned int)co / h !=
											      (unsigned int)ag0 %
													      h ||
									      (unsigned int)co / h !=
											      (unsigned int)ag1 %
													      h))) {
					if (bad++ < 5)
						fprintf(stderr,
								"h%u -> h%u: %d links, aggs %d %d "
								"core %d\n",
								a, b, got, ag0, ag1, co);
				}
			}
		}
	}
	CHECK_EQ(bad, 0);
	CHECK_EQ(n_pairs, want_hosts * (want_hosts - 1));
	/* One inter-pod pair: every core; one intra-pod pair: every agg of the pod. */
	for (uint16_t f = 0; f < 64 * h * h; f++) {
		uint32_t via[8];
		unsigned int nv;
		int x;

		if (walk(&t, 0, t.n_hosts - 1, (uint16_t)(1024 + f), via, &nv) == 6 &&
				(x = via_kind(&t, via, nv, SIM_CORE, 0)) >= 0)
			cores_seen |= 1ULL << x;
		if (walk(&t, 0, H, (uint16_t)(1024 + f), via, &nv) == 4 &&
				(x = via_kind(&t, via, nv, SIM_SPINE, 0)) >= 0)
			aggs_seen |= 1ULL << x;
	}
	CHECK_EQ(cores_seen, (1ULL << (h * h)) - 1);
	CHECK_EQ(aggs_seen, (1ULL << h) - 1);
	sim_topo_free(&t);
}

/* The switches crossed by the flows from host a to host b over n source
 * ports, as a bit set per kind; -1 if a flow was lost or crossed a down
 * link, else 0. */
static int
spread(const struct sim_topo *t, uint32_t a, uint32_t b, unsigned int n, uint64_t *spines,
		uint64_t *cores)
{
	*spines = *cores = 0;
	for (uint16_t f = 0; f < n; f++) {
		uint32_t via[8];
		unsigned int nv;

		if (walk(t, a, b, (uint16_t)(2000 + f), via, &nv) < 0)
			return -1;
		for (unsigned int i = 0; i < nv; i++) {
			if (t->nodes[via[i]].kind == SIM_SPINE)
				*spines |= 1ULL << t->nodes[via[i]].index;
			else if (t->nodes[via[i]].kind == SIM_CORE)
				*cores |= 1ULL << t->nodes[via[i]].index;
		}
	}
	return 0;
}

/*
 * Down links, leaf-spine 4 ToRs x 3 spines x 2 hosts without tor0-spine1
 * and tor3-spine0: the ports are admin_down in both configs; every pair
 * is still reachable in 16 flows each, never over a down link (walk fails
 * on one); ToR u's set toward ToR d is the spines linked to both (by hand:
 * tor0 -> tor3 only spine2, tor1 -> tor0 spines 0 and 2, tor1 -> tor3
 * spines 1 and 2, tor1 -> tor2 all three), so tor0 and tor3 have 2 groups
 * (default and one /16), tor1 and tor2 3.
 */
static void
test_down_leafspine(void)
{
	struct sim_leafspine p = {.tors = 4,
			.spines = 3,
			.hosts_per_tor = 2,
			.host_gbps = 100,
			.link_delay_ns = 1000,
			.down_links = "tor0:spine1,tor3:spine0"};
	const unsigned int H = 2;
	struct sim_topo t;
	uint64_t sp, co;
	unsigned int bad = 0;
	char err[256];

	if (sim_topo_leafspine(&t, &p, "down_ls_", err, sizeof(err)) != 0) {
		CHECK(0, "%s", err);
		return;
	}
	CHECK(t.nodes[t.first_tor].ports[H + 1].down && t.nodes[t.first_spine + 1].ports[0].down,
			"tor0-spine1 not down");
	CHECK(t.nodes[t.first_tor].cfg->ports[H + 1].admin_down, "tor0 port 3 not admin_down");
	CHECK(t.nodes[t.first_spine].cfg->ports[3].admin_down, "spine0 port 3 not admin_down");
	CHECK(!t.nodes[t.first_tor].ports[H].down, "tor0-spine0 down");
	CHECK_EQ(t.nodes[t.first_tor].route->n_groups, 2);
	CHECK_EQ(t.nodes[t.first_tor + 1].route->n_groups, 3);
	CHECK_EQ(t.nodes[t.first_tor + 2].route->n_groups, 3);
	CHECK_EQ(t.nodes[t.first_tor + 3].route->n_groups, 2);
	for (uint32_t a = 0; a < t.n_hosts; a++)
		for (uint32_t b = 0; b < t.n_hosts; b++)
			if (a != b && spread(&t, a, b, 16, &sp, &co) != 0)
				bad++;
	CHECK_EQ(bad, 0);
	/* h0 (tor0) -> h6 (tor3): spine2 only; h2 (tor1) -> h0: 0 and 2;
	 * h2 -> h6: 1 and 2; h2 -> h4 (tor2): all. */
	CHECK_EQ(spread(&t, 0, 6, 64, &sp, &co), 0);
	CHECK_EQ(sp, 0x4);
	CHECK_EQ(spread(&t, 6, 0, 64, &sp, &co), 0);
	CHECK_EQ(sp, 0x4);
	CHECK_EQ(spread(&t, 2, 0, 64, &sp, &co), 0);
	CHECK_EQ(sp, 0x5);
	CHECK_EQ(spread(&t, 2, 6, 64, &sp, &co), 0);
	CHECK_EQ(sp, 0x6);
	CHECK_EQ(spread(&t, 2, 4, 64, &sp, &co), 0);
	CHECK_EQ(sp, 0x7);
	sim_topo_free(&t);
}

/*
 * Down links, k=4 fat-tree without agg0-core0 and tor0-agg1 (pod 0): every
 * pair still reachable, never over a down link. By hand: tor0 goes up only
 * through agg0, and agg0 only to core1, so tor0 -> pod 1 crosses core1
 * alone; tor1 -> pod 1 crosses agg0 (core1) or agg1 (cores 2, 3); into
 * tor0 only agg0 leads, and to agg0 only core1 (core0's link is down):
 * tor2 (pod 1) -> tor0 crosses core1 and, in pod 1, agg2 (core1's); tor1
 * -> tor0 crosses agg0 only.
 */
static void
test_down_fattree(void)
{
	struct sim_fattree p = {.k = 4,
			.gbps = 100,
			.link_delay_ns = 1000,
			.down_links = "agg0:core0,tor0:agg1"};
	struct sim_topo t;
	uint64_t sp, co;
	unsigned int bad = 0;
	char err[256];

	if (sim_topo_fattree(&t, &p, "down_ft_", err, sizeof(err)) != 0) {
		CHECK(0, "%s", err);
		return;
	}
	for (uint32_t a = 0; a < t.n_hosts; a++)
		for (uint32_t b = 0; b < t.n_hosts; b++)
			if (a != b && spread(&t, a, b, 16, &sp, &co) != 0)
				bad++;
	CHECK_EQ(bad, 0);
	/* Hosts 0-1 behind tor0, 2-3 tor1, 4-5 tor2 (pod 1). */
	CHECK_EQ(spread(&t, 0, 4, 64, &sp, &co), 0);
	CHECK_EQ(co, 0x2);
	CHECK_EQ(sp & 0x3, 0x1);
	CHECK_EQ(spread(&t, 2, 4, 64, &sp, &co), 0);
	CHECK_EQ(co, 0xe);
	CHECK_EQ(sp & 0x3, 0x3);
	CHECK_EQ(spread(&t, 4, 0, 64, &sp, &co), 0);
	CHECK_EQ(co, 0x2);
	CHECK_EQ(sp, 0x1 | 0x4);
	CHECK_EQ(spread(&t, 2, 0, 64, &sp, &co), 0);
	CHECK_EQ(co, 0);
	CHECK_EQ(sp, 0x1);
	sim_topo_free(&t);
}

/* link_find by names, link_set_gbps on both ends and both configs. */
static void
test_link_gbps(void)
{
	struct sim_leafspine p = {.tors = 2,
			.spines = 2,
			.hosts_per_tor = 2,
			.host_gbps = 100,
			.link_delay_ns = 1000};
	struct sim_topo t;
	uint32_t node;
	uint16_t port;
	char err[256];

	if (sim_topo_leafspine(&t, &p, "gbps_", err, sizeof(err)) != 0) {
		CHECK(0, "%s", err);
		return;
	}
	CHECK_EQ(sim_topo_link_find(&t, "tor0", "spine1", &node, &port), 0);
	CHECK_EQ(node, t.first_tor);
	CHECK_EQ(port, 3);
	CHECK_EQ(sim_topo_link_set_gbps(&t, node, port, 25), 0);
	CHECK(t.nodes[t.first_tor].ports[3].gbps == 25, "%f", t.nodes[t.first_tor].ports[3].gbps);
	CHECK(t.nodes[t.first_spine + 1].ports[0].gbps == 25, "%f",
			t.nodes[t.first_spine + 1].ports[0].gbps);
	CHECK_EQ(t.nodes[t.first_tor].cfg->ports[3].speed_gbps, 25);
	CHECK_EQ(t.nodes[t.first_spine + 1].cfg->ports[0].speed_gbps, 25);
	/* The other uplink and the reverse direction's lookup. */
	CHECK(t.nodes[t.first_tor].ports[2].gbps == 100, "tor0 port 2 changed");
	CHECK_EQ(sim_topo_link_find(&t, "spine1", "tor0", &node, &port), 0);
	CHECK_EQ(node, t.first_spine + 1);
	CHECK_EQ(port, 0);
	CHECK_EQ(sim_topo_link_set_gbps(&t, node, port, 12.4), 0);
	CHECK_EQ(t.nodes[t.first_tor].cfg->ports[3].speed_gbps, 12);
	CHECK(t.nodes[t.first_tor].ports[3].gbps == 12.4, "not both directions");
	/* A host link: only the ToR end has a config. */
	CHECK_EQ(sim_topo_link_find(&t, "h1", "tor0", &node, &port), 0);
	CHECK_EQ(node, 1);
	CHECK_EQ(port, 0);
	CHECK_EQ(sim_topo_link_set_gbps(&t, node, port, 40), 0);
	CHECK_EQ(t.nodes[t.first_tor].cfg->ports[1].speed_gbps, 40);
	CHECK(t.nodes[1].ports[0].gbps == 40, "host end");
	CHECK_EQ(sim_topo_link_find(&t, "tor0", "tor1", &node, &port), -1);
	CHECK_EQ(sim_topo_link_find(&t, "tor0", "spine9", &node, &port), -1);
	CHECK_EQ(sim_topo_link_set_gbps(&t, node, 99, 10), -1);
	sim_topo_free(&t);
}

static void
test_bad_args(void)
{
	struct sim_leafspine p = {.tors = 2, .spines = 4, .hosts_per_tor = 30, .host_gbps = 100};
	struct sim_fattree f = {.k = 3, .gbps = 100};
	struct sim_topo t;
	char err[256], yaml[8192];

	CHECK_EQ(sim_topo_leafspine(&t, &p, "bad_", err, sizeof(err)), -1);
	CHECK(strstr(err, "ports") != NULL, "%s", err);
	sim_topo_free(&t);
	CHECK_EQ(sim_topo_fattree(&t, &f, "bad_", err, sizeof(err)), -1);
	CHECK(strstr(err, "even") != NULL, "%s", err);
	sim_topo_free(&t);
	/* A partition, a link that does not exist, a host's link. */
	p = (struct sim_leafspine){.tors = 2,
			.spines = 1,
			.hosts_per_tor = 1,
			.host_gbps = 100,
			.down_links = "tor0:spine0"};
	CHECK_EQ(sim_topo_leafspine(&t, &p, "bad2_", err, sizeof(err)), -1);
	CHECK(strstr(err, "cannot reach") != NULL, "%s", err);
	sim_topo_free(&t);
	p.down_links = "tor0:tor1";
	CHECK_EQ(sim_topo_leafspine(&t, &p, "bad3_", err, sizeof(err)), -1);
	CHECK(strstr(err, "no such link") != NULL, "%s", err);
	sim_topo_free(&t);
	p.down_links = "h0:tor0";
	CHECK_EQ(sim_topo_leafspine(&t, &p, "bad4_", err, sizeof(err)), -1);
	CHECK(strstr(err, "host") != NULL, "%s", err);
	sim_topo_free(&t);
	/* The text wrappers: what the builder loads. */
	p.down_links = NULL;
	CHECK(sim_topo_tor_yaml(&p, 1, yaml, sizeof(yaml)) > 0 &&
					strstr(yaml, "role: tor") != NULL &&
					strstr(yaml, "10.2.0.1/32") != NULL,
			"%s", yaml);
	CHECK(sim_topo_spine_yaml(&p, 0, yaml, sizeof(yaml)) > 0 &&
					strstr(yaml, "role: spine") != NULL &&
					strstr(yaml, "10.2.0.0/16") != NULL,
			"%s", yaml);
}

/* ------------------------------------------- frames across a fat-tree */

#define E2E_PKTS    200
#define E2E_PAYLOAD 1000
#define E2E_DATA    (14 + 20 + 8 + 12 + E2E_PAYLOAD + 4)
#define E2E_ACK     (14 + 20 + 8 + 12 + 4 + 4) /* BTH, AETH, ICRC */

struct e2e {
	uint32_t src, dst;
	uint64_t data[2], acks, ooo, not_plain, wrong;
	uint32_t next_psn[2];
	uint64_t last_ns[2];
};

/* The receiver answers every data frame with an RC ACK (what CAVER's
 * shims ride on); the sender counts the ACKs, which must arrive as the
 * receiver wrote them (the shim removed). */
static void
e2e_rx(struct sim_net *net, uint32_t host, struct sim_pkt *p)
{
	struct e2e *e = net->host_arg;
	const uint8_t *f = sim_pkt_data(p), *bth = f + 42;
	uint32_t psn = (uint32_t)bth[9] << 16 | (uint32_t)bth[10] << 8 | bth[11];
	unsigned int fl = (unsigned int)p->flow;

	if (host == e->dst && bth[0] != RTR_BTH_OP_RC_ACK) {
		struct sim_pkt *a;
		struct sim_roce r = {.src_ip = net->topo->nodes[e->dst].ip,
				.dst_ip = net->topo->nodes[e->src].ip,
				.dqp = 0x200 + fl,
				.psn = psn,
				.opcode = RTR_BTH_OP_RC_ACK,
				.dscp = 26,
				.payload = 4};

		if (p->mb.pkt_len != E2E_DATA || bth[4] != 0 || (bth[8] & 0x7f) != 0)
			e->not_plain++;
		if (psn != e->next_psn[fl])
			e->ooo++;
		e->next_psn[fl] = psn + 1;
		e->data[fl]++;
		e->last_ns[fl] = net->sim.now_ns;
		r.sport = (uint16_t)(f[34] << 8 | f[35]);
		sim_pkt_free(net, p);
		a = sim_pkt_alloc(net);
		sim_roce_build(a, &r);
		a->flow = fl;
		sim_net_send(net, host, 0, a);
		return;
	}
	if (host == e->src && bth[0] == RTR_BTH_OP_RC_ACK) {
		if (p->mb.pkt_len != E2E_ACK || (bth[8] & 0x7f) != 0)
			e->not_plain++;
		e->acks++;
	} else {
		e->wrong++;
	}
	sim_pkt_free(net, p);
}

static void
e2e_send(struct sim *s, void *arg, uint64_t fl)
{
	struct sim_net *net = (struct sim_net *)s;
	struct e2e *e = arg;

	for (uint32_t i = 0; i < E2E_PKTS; i++) {
		struct sim_pkt *p = sim_pkt_alloc(net);
		struct sim_roce r = {.src_ip = net->topo->nodes[e->src].ip,
				.dst_ip = net->topo->nodes[e->dst].ip,
				.sport = (uint16_t)(49152 + fl),
				.dqp = 0x100 + (uint32_t)fl,
				.psn = i,
				.dscp = 26,
				.payload = E2E_PAYLOAD};

		r.opcode = i == 0 ? 0 : i == E2E_PKTS - 1 ? 2 : 1;
		sim_roce_build(p, &r);
		p->flow = fl;
		p->sent_ns = s->now_ns;
		sim_net_send(net, e->src, 0, p);
	}
}

static uint64_t
lbc_sum(const struct sim_net *net, uint32_t from, uint32_t to, unsigned int c)
{
	uint64_t n = 0;

	for (uint32_t i = from; i < to; i++)
		n += net->st[i].lb[c];
	return n;
}

/*
 * sim_net's switch step, unchanged, on the k=4 fat-tree, each mode: h0
 * (pod 0) sends two flows of 200 frames to h15 (pod 3), the second 100 us
 * after the first; h15 ACKs each frame. Every frame arrives in order as
 * sent, every ACK as h15 wrote it, nothing is dropped, no buffer is left.
 * ECMP's first flow ends at the store-and-forward time over 6 links,
 * (N + 5) x ser + 6 x delay. CAVER runs on the aggs and cores (role
 * spine): each ACK gets its shim at tor7 and is rewritten by three
 * switches (agg, core, agg) before tor0 strips it, so the path vector
 * holds three hops; the second flow is placed from the table: on the
 * advertised uplink every one of its frames is source-routed at the pod-0
 * agg (its stored next hop); on the other uplink (no entry: its local CE,
 * doc/caver.md) none is. ToR-only modes run ECMP on aggs and cores.
 */
static void
test_fattree_frames(void)
{
	static const char *const modes[] = {"ecmp", "conweave", "seqbalance", "caver"};

	for (unsigned int i = 0; i < RTR_ARRAY_SIZE(modes); i++) {
		struct sim_fattree p = {.k = 4, .gbps = 100, .link_delay_ns = 1000, .lb = modes[i]};
		int id = rtr_lb_mode_find(modes[i]);
		struct sim_topo t;
		struct sim_net net;
		struct e2e e;
		char err[256], prefix[32];

		if (id < 0 || rtr_lb_mode_at((unsigned int)id)->ops == NULL) {
			printf("%s: not in this build, skipped\n", modes[i]);
			continue;
		}
		snprintf(prefix, sizeof(prefix), "ftf_%s_", modes[i]);
		if (sim_topo_fattree(&t, &p, prefix, err, sizeof(err)) != 0 ||
				sim_net_init(&net, &t, RTR_EG_FRAME_OVERHEAD, err, sizeof(err)) !=
						0) {
			CHECK(0, "%s: %s", modes[i], err);
			continue;
		}
		memset(&e, 0, sizeof(e));
		e.src = 0;
		e.dst = t.n_hosts - 1;
		net.host_rx = e2e_rx;
		net.host_arg = &e;
		sim_at(&net.sim, 0, e2e_send, &e, 0);
		sim_at(&net.sim, 100000, e2e_send, &e, 1);
		sim_run(&net.sim, 2 * 1000 * 1000);
		CHECK(e.data[0] == E2E_PKTS && e.data[1] == E2E_PKTS, "%s: %llu + %llu frames",
				modes[i], (unsigned long long)e.data[0],
				(unsigned long long)e.data[1]);
		CHECK(e.acks == 2 * E2E_PKTS, "%s: %llu ACKs", modes[i],
				(unsigned long long)e.acks);
		CHECK(e.ooo == 0 && e.not_plain == 0 && e.wrong == 0,
				"%s: %llu out of order, %llu not as sent, %llu misdelivered",
				modes[i], (unsigned long long)e.ooo,
				(unsigned long long)e.not_plain, (unsigned long long)e.wrong);
		CHECK(sim_net_drops(&net, -1) == 0 && net.tx_late == 0, "%s: %llu drops", modes[i],
				(unsigned long long)sim_net_drops(&net, -1));
		if (strcmp(modes[i], "ecmp") == 0) {
			double ser = (E2E_DATA + RTR_EG_FRAME_OVERHEAD) * 8.0 / 100;
			double want = (E2E_PKTS + 5) * ser + 6 * 1000;

			CHECK(fabs((double)e.last_ns[0] - want) <= 6,
					"ecmp: FCT %llu ns, analytic %.2f",
					(unsigned long long)e.last_ns[0], want);
			printf("fat-tree ecmp: FCT %llu ns, analytic %.2f ns\n",
					(unsigned long long)e.last_ns[0], want);
		}
		if (strcmp(modes[i], "caver") == 0) {
			uint64_t added = net.st[t.first_tor + t.n_tors - 1]
							 .lb[RTR_LBC_caver_shims_added];
			uint64_t rewr = lbc_sum(&net, t.first_spine, t.n_nodes,
					RTR_LBC_caver_shims_rewritten);
			uint64_t strip = net.st[t.first_tor].lb[RTR_LBC_caver_shims_stripped];
			uint64_t table = net.st[t.first_tor].lb[RTR_LBC_caver_flows_table];
			uint64_t sr = lbc_sum(&net, t.first_spine, t.first_spine + 2,
					RTR_LBC_caver_source_routed);
			uint64_t unadv = net.st[t.first_tor].lb[RTR_LBC_caver_flows_unadvertised];

			printf("fat-tree caver: shims added %llu, rewritten %llu, stripped %llu; "
			       "flows from the table %llu (%llu on an uplink without an entry), "
			       "source-routed at pod 0's aggs %llu\n",
					(unsigned long long)added, (unsigned long long)rewr,
					(unsigned long long)strip, (unsigned long long)table,
					(unsigned long long)unadv, (unsigned long long)sr);
			CHECK_EQ(added, 2 * E2E_PKTS);
			CHECK_EQ(rewr, 3 * 2 * E2E_PKTS);
			CHECK_EQ(strip, 2 * E2E_PKTS);
			CHECK_EQ(table, 1);
			CHECK(unadv <= 1);
			CHECK_EQ(sr, unadv == 0 ? E2E_PKTS : 0);
		}
		sim_net_fini(&net);
		CHECK(net.pkts_live == 0, "%s: %llu buffers not returned", modes[i],
				(unsigned long long)net.pkts_live);
		sim_topo_free(&t);
	}
}

int
main(void)
{
	if (sim_eal_init("test_sim_topo", 3072) != 0) {
		fprintf(stderr, "EAL init failed\n");
		return 1;
	}
	test_leafspine(2, 2, 2, 1.0);
	test_leafspine(4, 2, 8, 4.0);
	/* k=4: 16 hosts, 8 edges + 8 aggs + 4 cores; the artifact's 2:1 k=4 (4
	 * hosts per edge): 32 hosts. */
	test_fattree(4, 0, 16, 20, 1.0);
	test_fattree(4, 4, 32, 20, 2.0);
	test_fattree_frames();
	test_down_leafspine();
	test_down_fattree();
	test_link_gbps();
	test_bad_args();
	return rtr_test_done("test_sim_topo");
}

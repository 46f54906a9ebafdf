/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

#define _GNU_SOURCE /* sched_getaffinity, pthread_setaffinity_np */
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <unistd.h>

#include <rte_eal.h>
#include <rte_memory.h>

#include "rtr_lb_registry.h"
#include "sim_topo.h"

/* Appends to buf at *off; -1 once it no longer fits. */
static int
put(char *buf, size_t len, size_t *off, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (*off >= len)
		return -1;
	va_start(ap, fmt);
	n = vsnprintf(buf + *off, len - *off, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= len - *off) {
		*off = len;
		return -1;
	}
	*off += (size_t)n;
	return 0;
}

static double
uplink_gbps(const struct sim_leafspine *p)
{
	return p->uplink_gbps > 0 ? p->uplink_gbps : p->host_gbps;
}

/* A config's speed_gbps is a whole number: the nearest, at least 1. */
static unsigned int
cfg_gbps(double gbps)
{
	return gbps < 1.5 ? 1 : (unsigned int)(gbps + 0.5);
}

static int
put_ip(char *buf, size_t len, size_t *off, uint32_t ip)
{
	return put(buf, len, off, "%u.%u.%u.%u", ip >> 24, (ip >> 16) & 0xff, (ip >> 8) & 0xff,
			ip & 0xff);
}

/* rtr_route_create's next-hop callback: the sim knows each port's peer, so
 * every next hop is static and resolved at once (the config's MAC, else a
 * made-up one: nothing in the sim reads it). */
static int
sim_nh_add(void *arg, uint16_t port, const struct rtr_addr *ip, const uint8_t *mac)
{
	struct sim_node *n = arg;
	const uint8_t made_up[6] = {0x02, 0x51, 0x4d, (uint8_t)(n->index >> 8), (uint8_t)n->index,
			(uint8_t)port};

	return rtr_neigh_add(n->neigh, port, ip, mac != NULL ? mac : made_up);
}

/* A link between (a, pa) and (b, pb); a fabric link's /31 is ip_a (a's
 * end) and ip_a + 1 (b's). */
static void
link_ports(struct sim_topo *t, uint32_t a, uint16_t pa, uint32_t b, uint16_t pb, double gbps,
		uint64_t delay_ns, bool fabric, uint32_t ip_a)
{
	struct sim_port *x = &t->nodes[a].ports[pa], *y = &t->nodes[b].ports[pb];

	x->peer = b;
	x->peer_port = pb;
	y->peer = a;
	y->peer_port = pa;
	x->gbps = y->gbps = gbps;
	x->delay_ns = y->delay_ns = delay_ns;
	if (fabric) {
		x->fabric = y->fabric = true;
		x->ip = ip_a;
		y->ip = ip_a + 1;
	}
}

/* Nodes hosts, ToRs, spines, cores, with their ports (no links yet). */
static int
topo_alloc(struct sim_topo *t, unsigned int tors, unsigned int H, unsigned int spines,
		unsigned int cores, uint16_t tor_ports, uint16_t spine_ports, uint16_t core_ports,
		char *err, size_t errlen)
{
	uint32_t i;

	memset(t, 0, sizeof(*t));
	t->n_tors = tors;
	t->hosts_per_tor = H;
	t->n_hosts = tors * H;
	t->n_switches = tors + spines + cores;
	t->n_nodes = t->n_hosts + t->n_switches;
	t->first_tor = t->n_hosts;
	t->first_spine = t->n_hosts + tors;
	t->first_core = t->first_spine + spines;
	t->nodes = calloc(t->n_nodes, sizeof(*t->nodes));
	if (t->nodes == NULL)
		goto nomem;
	for (i = 0; i < t->n_nodes; i++) {
		struct sim_node *n = &t->nodes[i];

		if (i < t->first_tor) {
			n->kind = SIM_HOST;
			n->index = i;
			n->n_ports = 1;
			n->ip = sim_host_ip(i / H, i % H);
			snprintf(n->name, sizeof(n->name), "h%u", i);
		} else if (i < t->first_spine) {
			n->kind = SIM_TOR;
			n->index = i - t->first_tor;
			n->n_ports = tor_ports;
			snprintf(n->name, sizeof(n->name), "tor%u", n->index);
		} else if (i < t->first_core) {
			n->kind = SIM_SPINE;
			n->index = i - t->first_spine;
			n->n_ports = spine_ports;
			snprintf(n->name, sizeof(n->name), cores > 0 ? "agg%u" : "spine%u",
					n->index);
		} else {
			n->kind = SIM_CORE;
			n->index = i - t->first_core;
			n->n_ports = core_ports;
			snprintf(n->name, sizeof(n->name), "core%u", n->index);
		}
		n->tick_at = UINT64_MAX;
		n->ports = calloc(n->n_ports, sizeof(*n->ports));
		if (n->ports == NULL)
			goto nomem;
	}
	return 0;
nomem:
	snprintf(err, errlen, "topology: out of memory");
	return -1;
}

int64_t
sim_topo_node_by_name(const struct sim_topo *t, const char *name)
{
	for (uint32_t i = 0; i < t->n_nodes; i++)
		if (strcmp(t->nodes[i].name, name) == 0)
			return i;
	return -1;
}

int
sim_topo_link_find(const struct sim_topo *t, const char *a, const char *b, uint32_t *node,
		uint16_t *port)
{
	int64_t x = sim_topo_node_by_name(t, a), y = sim_topo_node_by_name(t, b);

	if (x < 0 || y < 0)
		return -1;
	for (uint16_t q = 0; q < t->nodes[x].n_ports; q++) {
		if (t->nodes[x].ports[q].peer == (uint32_t)y) {
			*node = (uint32_t)x;
			*port = q;
			return 0;
		}
	}
	return -1;
}

/* The config entry of a switch's port, or NULL. */
static struct rtr_port_cfg *
port_cfg(struct sim_node *n, uint16_t port)
{
	if (n->cfg == NULL)
		return NULL;
	for (unsigned int i = 0; i < n->cfg->n_ports; i++)
		if (n->cfg->ports[i].port == port)
			return &n->cfg->ports[i];
	return NULL;
}

int
sim_topo_link_set_gbps(struct sim_topo *t, uint32_t node, uint16_t port, double gbps)
{
	struct sim_port *x, *y;
	struct rtr_port_cfg *pc;

	if (node >= t->n_nodes || port >= t->nodes[node].n_ports || !(gbps > 0) || gbps > 1600)
		return -1;
	x = &t->nodes[node].ports[port];
	y = &t->nodes[x->peer].ports[x->peer_port];
	x->gbps = y->gbps = gbps;
	pc = port_cfg(&t->nodes[node], port);
	if (pc != NULL)
		pc->speed_gbps = cfg_gbps(gbps);
	pc = port_cfg(&t->nodes[x->peer], x->peer_port);
	if (pc != NULL)
		pc->speed_gbps = cfg_gbps(gbps);
	return 0;
}

/* Marks the links of "a:b,c:d" down, both ends. */
static int
apply_down(struct sim_topo *t, const char *list, char *err, size_t errlen)
{
	const char *s = list;

	while (s != NULL && *s != '\0') {
		char a[32], b[32];
		const char *comma = strchr(s, ','), *colon = strchr(s, ':');
		size_t item = comma != NULL ? (size_t)(comma - s) : strlen(s);
		struct sim_port *x, *y;
		uint32_t node;
		uint16_t port;

		if (colon == NULL || (size_t)(colon - s) >= item ||
				(size_t)(colon - s) >= sizeof(a) ||
				item - (size_t)(colon - s) - 1 >= sizeof(b)) {
			snprintf(err, errlen, "down link \"%.*s\": want NODE:NODE", (int)item, s);
			return -1;
		}
		memcpy(a, s, (size_t)(colon - s));
		a[colon - s] = '\0';
		memcpy(b, colon + 1, item - (size_t)(colon - s) - 1);
		b[item - (size_t)(colon - s) - 1] = '\0';
		if (sim_topo_link_find(t, a, b, &node, &port) != 0) {
			snprintf(err, errlen, "down link %s:%s: no such link", a, b);
			return -1;
		}
		x = &t->nodes[node].ports[port];
		y = &t->nodes[x->peer].ports[x->peer_port];
		if (t->nodes[node].kind == SIM_HOST || t->nodes[x->peer].kind == SIM_HOST) {
			snprintf(err, errlen, "down link %s:%s: a host's only link", a, b);
			return -1;
		}
		x->down = y->down = true;
		s = comma != NULL ? comma + 1 : NULL;
	}
	return 0;
}

/* Whether port q of node x leads to a switch over a link that is up. */
static bool
live_fabric(const struct sim_topo *t, uint32_t x, uint16_t q)
{
	const struct sim_port *pt = &t->nodes[x].ports[q];

	return pt->fabric && !pt->down && t->nodes[pt->peer].kind != SIM_HOST;
}

/*
 * Converged routes: mask[(x - first_tor) * n_tors + d] is the set of
 * switch x's ports toward ToR d, those to neighbours one hop closer on a
 * shortest path that crosses no other ToR (a breadth-first search from d
 * that does not go on from a ToR). A ToR that cannot reach another is an
 * error: the scenario partitions the fabric.
 */
static uint32_t *
topo_routes(const struct sim_topo *t, char *err, size_t errlen)
{
	uint32_t *mask = calloc((size_t)t->n_switches * t->n_tors, sizeof(*mask));
	uint32_t *dist = malloc(sizeof(*dist) * t->n_nodes);
	uint32_t *queue = malloc(sizeof(*queue) * t->n_nodes);

	if (mask == NULL || dist == NULL || queue == NULL) {
		snprintf(err, errlen, "routes: out of memory");
		goto fail;
	}
	for (uint32_t d = 0; d < t->n_tors; d++) {
		uint32_t head = 0, tail = 0, dn = t->first_tor + d;

		for (uint32_t i = 0; i < t->n_nodes; i++)
			dist[i] = UINT32_MAX;
		dist[dn] = 0;
		queue[tail++] = dn;
		while (head < tail) {
			uint32_t x = queue[head++];

			if (x != dn && t->nodes[x].kind == SIM_TOR)
				continue;
			for (uint16_t q = 0; q < t->nodes[x].n_ports; q++) {
				uint32_t y = t->nodes[x].ports[q].peer;

				if (live_fabric(t, x, q) && dist[y] == UINT32_MAX) {
					dist[y] = dist[x] + 1;
					queue[tail++] = y;
				}
			}
		}
		for (uint32_t x = t->first_tor; x < t->n_nodes; x++) {
			uint32_t m = 0;

			if (x == dn)
				continue;
			if (dist[x] == UINT32_MAX) {
				if (t->nodes[x].kind == SIM_TOR) {
					snprintf(err, errlen, "%s cannot reach %s (down links)",
							t->nodes[x].name, t->nodes[dn].name);
					goto fail;
				}
				continue;
			}
			for (uint16_t q = 0; q < t->nodes[x].n_ports; q++) {
				uint32_t y = t->nodes[x].ports[q].peer;

				if (live_fabric(t, x, q) && dist[y] + 1 == dist[x] &&
						(y == dn || t->nodes[y].kind != SIM_TOR))
					m |= 1u << q;
			}
			mask[(x - t->first_tor) * t->n_tors + d] = m;
		}
	}
	free(dist);
	free(queue);
	return mask;
fail:
	free(mask);
	free(dist);
	free(queue);
	return NULL;
}

static void
put_paths(char *buf, size_t len, size_t *off, const struct sim_node *n, uint32_t m)
{
	put(buf, len, off, "    paths:\n");
	for (uint16_t q = 0; q < n->n_ports; q++) {
		if (!(m >> q & 1))
			continue;
		put(buf, len, off, "      - {port: %u, nexthop: \"", q);
		put_ip(buf, len, off, n->ports[q].ip ^ 1);
		put(buf, len, off, "\"}\n");
	}
}

/* The YAML text of switch node x's config, mask its row of topo_routes. */
static int
switch_yaml(const struct sim_topo *t, uint32_t x, const uint32_t *mask, const char *lb,
		uint16_t mtu_in, const char *sections, char *buf, size_t len)
{
	const struct sim_node *n = &t->nodes[x];
	/* Fabric ports 100 bytes above the hosts': a fabric port must carry a
	 * host's largest frame plus the LB header a mode adds there (the MTU
	 * rule of doc/config.md; spines run their ToRs' uplink MTU). */
	unsigned int mtu = mtu_in ? mtu_in : 9000, fmtu = mtu + 100 < 9600 ? mtu + 100 : 9600;
	unsigned int id, best_count = 0;
	bool tor = n->kind == SIM_TOR;
	uint32_t own = tor ? n->index : UINT32_MAX, dflt = 0;
	size_t off = 0;

	id = tor ? n->index + 1 : n->kind == SIM_SPINE ? 1000 + n->index : 2000 + n->index;
	put(buf, len, &off, "switch:\n  name: %s\n  role: %s\n  id: %u\n  lb: %s\n", n->name,
			tor ? "tor" : "spine", id, lb != NULL ? lb : "ecmp");
	put(buf, len, &off, "ports:\n");
	for (uint16_t q = 0; q < n->n_ports; q++) {
		const struct sim_port *pt = &n->ports[q];

		put(buf, len, &off, "  - {port: %u, role: %s, speed_gbps: %u, mtu: %u, ", q,
				pt->fabric ? "fabric" : "host", cfg_gbps(pt->gbps),
				pt->fabric ? fmtu : mtu);
		if (pt->down)
			put(buf, len, &off, "admin_down: true, ");
		if (pt->fabric) {
			put(buf, len, &off, "ip: [\"");
			put_ip(buf, len, &off, pt->ip);
			put(buf, len, &off, "/31\"]}\n");
		} else {
			put(buf, len, &off, "ip: [\"10.%u.%u.254/24\"]}\n", n->index + 1, q);
		}
	}
	/* The default route: the set most destinations share (on a tie the
	 * one with more ports, then the first found: the full uplink set
	 * over a destination's own); off a ToR only a group that two or
	 * more share. */
	for (uint32_t d = 0; d < t->n_tors; d++) {
		unsigned int c = 0;

		if (d == own || mask[d] == 0)
			continue;
		for (uint32_t e = 0; e < t->n_tors; e++)
			if (e != own && mask[e] == mask[d])
				c++;
		bool wider = __builtin_popcount(mask[d]) > __builtin_popcount(dflt);

		if (c > best_count || (c == best_count && wider)) {
			best_count = c;
			dflt = mask[d];
		}
	}
	if (!tor && (best_count < 2 || __builtin_popcount(dflt) < 2))
		dflt = 0;
	put(buf, len, &off, "routes:\n");
	if (tor)
		for (unsigned int j = 0; j < t->hosts_per_tor; j++)
			put(buf, len, &off, "  - {prefix: \"10.%u.%u.1/32\", port: %u}\n", own + 1,
					j, j);
	if (dflt != 0) {
		put(buf, len, &off, "  - prefix: \"10.0.0.0/8\"\n");
		put_paths(buf, len, &off, n, dflt);
	}
	for (uint32_t d = 0; d < t->n_tors; d++) {
		uint32_t m = mask[d];

		if (d == own || m == 0 || m == dflt)
			continue;
		if (!tor && __builtin_popcount(m) == 1) {
			uint16_t q = (uint16_t)__builtin_ctz(m);

			put(buf, len, &off, "  - {prefix: \"10.%u.0.0/16\", port: %u, nexthop: \"",
					d + 1, q);
			put_ip(buf, len, &off, n->ports[q].ip ^ 1);
			put(buf, len, &off, "\"}\n");
		} else {
			put(buf, len, &off, "  - prefix: \"10.%u.0.0/16\"\n", d + 1);
			put_paths(buf, len, &off, n, m);
		}
	}
	if (sections != NULL)
		put(buf, len, &off, "%s\n", sections);
	return off >= len ? -1 : (int)off;
}

static size_t
yaml_size(const struct sim_topo *t, const char *sections)
{
	return 8192 + (size_t)RTR_MAX_PORTS * 200 + (size_t)t->n_tors * (100 + RTR_MAX_PORTS * 48) +
	       (sections != NULL ? strlen(sections) : 0);
}

static int
load_switch(struct sim_node *n, const char *yaml, size_t ylen, const char *name_prefix, char *err,
		size_t errlen)
{
	char name[96], e[256];
	uint8_t macs[RTR_MAX_PORTS][6];
	int id;

	n->cfg = calloc(1, sizeof(*n->cfg));
	if (n->cfg == NULL) {
		snprintf(err, errlen, "%s: out of memory", n->name);
		return -1;
	}
	if (rtr_config_load_buf(n->name, "yaml", yaml, ylen, n->cfg, e, sizeof(e)) != 0) {
		snprintf(err, errlen, "%s: config: %s", n->name, e);
		return -1;
	}
	memset(macs, 0, sizeof(macs));
	for (unsigned int i = 0; i < n->cfg->n_ports; i++) {
		const struct rtr_port_cfg *pc = &n->cfg->ports[i];
		struct rtr_fwd_port *fp = &n->fwd_ports[pc->port];

		memcpy(macs[pc->port], pc->mac, 6);
		fp->port_id = pc->port;
		fp->configured = 1;
		fp->role = (uint8_t)pc->role;
		memcpy(fp->mac, pc->mac, 6);
		atomic_store(&fp->link_up, pc->port < n->n_ports && !n->ports[pc->port].down);
	}
	n->neigh = rtr_neigh_create(n->cfg, (const uint8_t(*)[6])macs, 0);
	if (n->neigh == NULL) {
		snprintf(err, errlen, "%s: out of memory", n->name);
		return -1;
	}
	snprintf(name, sizeof(name), "%s%s", name_prefix, n->name);
	n->route = rtr_route_create(name, n->cfg, SOCKET_ID_ANY, sim_nh_add, n, e, sizeof(e));
	if (n->route == NULL) {
		snprintf(err, errlen, "%s: routes: %s", n->name, e);
		return -1;
	}
	for (unsigned int i = 0; i < n->cfg->n_ports; i++)
		if (n->cfg->ports[i].role == RTR_PORT_FABRIC)
			n->fabric_ports |= 1u << n->cfg->ports[i].port;
	n->fwd.route = n->route;
	n->fwd.nh = rtr_neigh_nh_table(n->neigh);
	n->fwd.ports = n->fwd_ports;
	n->fwd.fabric_ports = n->fabric_ports;
	id = (int)n->cfg->sw.lb;
	/* Aggregation and core switches are spines to rocetor (role spine):
	 * a ToR-only mode runs ECMP there, CAVER runs whole. */
	n->lb_ops = rtr_lb_mode_ops((unsigned int)id, n->kind != SIM_TOR);
	if (n->lb_ops == NULL) {
		snprintf(err, errlen, "%s: LB mode %d is not implemented", n->name, id);
		return -1;
	}
	return 0;
}

/* Down links, routes, every switch's config and route table. */
static int
topo_finish(struct sim_topo *t, const char *down_links, const char *lb, uint16_t mtu,
		const char *sections, const char *name_prefix, char *err, size_t errlen)
{
	size_t ylen = yaml_size(t, sections);
	uint32_t *mask;
	char *yaml;
	int rc = 0;

	if (apply_down(t, down_links, err, errlen) != 0)
		return -1;
	mask = topo_routes(t, err, errlen);
	if (mask == NULL)
		return -1;
	yaml = malloc(ylen);
	if (yaml == NULL) {
		free(mask);
		snprintf(err, errlen, "topology: out of memory");
		return -1;
	}
	for (uint32_t x = t->first_tor; x < t->n_nodes && rc == 0; x++) {
		struct sim_node *n = &t->nodes[x];
		int len = switch_yaml(t, x, &mask[(x - t->first_tor) * t->n_tors], lb, mtu,
				sections, yaml, ylen);

		if (len < 0) {
			snprintf(err, errlen, "%s: config text too long", n->name);
			rc = -1;
		} else {
			rc = load_switch(n, yaml, (size_t)len, name_prefix, err, errlen);
		}
	}
	free(yaml);
	free(mask);
	return rc;
}

/* A leaf-spine's nodes and links, no configs yet. */
static int
leafspine_nodes(struct sim_topo *t, const struct sim_leafspine *p, char *err, size_t errlen)
{
	unsigned int T = p->tors, S = p->spines, H = p->hosts_per_tor, i, j;

	memset(t, 0, sizeof(*t));
	if (T == 0 || S == 0 || H == 0 || H + S > RTR_MAX_PORTS || T > RTR_MAX_PORTS || T > 254 ||
			H > 255 || S > RTR_MAX_PATHS || p->host_gbps <= 0) {
		snprintf(err, errlen,
				"leafspine: %u ToRs x %u spines x %u hosts: a ToR has at most "
				"%u ports, a spine %u",
				T, S, H, RTR_MAX_PORTS, RTR_MAX_PORTS);
		return -1;
	}
	if (topo_alloc(t, T, H, S, 0, (uint16_t)(H + S), (uint16_t)T, 0, err, errlen) != 0)
		return -1;
	t->oversub = (H * p->host_gbps) / (S * uplink_gbps(p));
	for (i = 0; i < T; i++) {
		for (j = 0; j < H; j++)
			link_ports(t, i * H + j, 0, t->first_tor + i, (uint16_t)j, p->host_gbps,
					p->link_delay_ns, false, 0);
		for (j = 0; j < S; j++)
			link_ports(t, t->first_tor + i, (uint16_t)(H + j), t->first_spine + j,
					(uint16_t)i, uplink_gbps(p), p->link_delay_ns, true,
					(172u << 24) | (16u << 16) | (j << 8) | (2 * i));
	}
	return 0;
}

/* Switch node x's YAML as the builder writes it, for the two wrappers. */
static int
leafspine_yaml(const struct sim_leafspine *p, bool spine, unsigned int idx, char *buf, size_t len)
{
	struct sim_topo t;
	char err[128];
	uint32_t *mask, x;
	int rc = -1;

	if (leafspine_nodes(&t, p, err, sizeof(err)) != 0)
		goto out;
	if (apply_down(&t, p->down_links, err, sizeof(err)) != 0)
		goto out;
	mask = topo_routes(&t, err, sizeof(err));
	if (mask == NULL)
		goto out;
	x = (spine ? t.first_spine : t.first_tor) + idx;
	if (x < t.n_nodes && (spine || idx < p->tors))
		rc = switch_yaml(&t, x, &mask[(x - t.first_tor) * t.n_tors], p->lb, p->mtu,
				p->sections, buf, len);
	free(mask);
out:
	sim_topo_free(&t);
	return rc;
}

int
sim_topo_tor_yaml(const struct sim_leafspine *p, unsigned int t, char *buf, size_t len)
{
	return leafspine_yaml(p, false, t, buf, len);
}

int
sim_topo_spine_yaml(const struct sim_leafspine *p, unsigned int s, char *buf, size_t len)
{
	return leafspine_yaml(p, true, s, buf, len);
}

int
sim_topo_leafspine(struct sim_topo *t, const struct sim_leafspine *p, const char *name_prefix,
		char *err, size_t errlen)
{
	if (leafspine_nodes(t, p, err, errlen) != 0)
		return -1;
	return topo_finish(t, p->down_links, p->lb, p->mtu, p->sections, name_prefix, err, errlen);
}

int
sim_topo_fattree(struct sim_topo *t, const struct sim_fattree *p, const char *name_prefix,
		char *err, size_t errlen)
{
	unsigned int k = p->k, h = k / 2, H = p->hosts_per_tor ? p->hosts_per_tor : k / 2;
	unsigned int pod, e, a, j, l1 = 0, l2 = 0;

	memset(t, 0, sizeof(*t));
	if (k < 2 || k % 2 != 0 || k > 22 || H + h > RTR_MAX_PORTS || H > 255 || !(p->gbps > 0)) {
		snprintf(err, errlen,
				"fattree: k %u with %u hosts per edge: k is even, 2..22 (254 "
				"edges), an edge has at most %u ports",
				k, H, RTR_MAX_PORTS);
		return -1;
	}
	/* Edges k x k/2, aggs k x k/2, cores (k/2)^2. */
	if (topo_alloc(t, k * h, H, k * h, h * h, (uint16_t)(H + h), (uint16_t)k, (uint16_t)k, err,
			    errlen) != 0)
		return -1;
	t->k = k;
	t->oversub = (double)H / h;
	for (pod = 0; pod < k; pod++) {
		for (e = 0; e < h; e++) {
			uint32_t tor = t->first_tor + pod * h + e;

			for (j = 0; j < H; j++)
				link_ports(t, (pod * h + e) * H + j, 0, tor, (uint16_t)j, p->gbps,
						p->link_delay_ns, false, 0);
			for (a = 0; a < h; a++)
				link_ports(t, tor, (uint16_t)(H + a), t->first_spine + pod * h + a,
						(uint16_t)e, p->gbps, p->link_delay_ns, true,
						(172u << 24) | (16u << 16) | (2 * l1++));
		}
		for (a = 0; a < h; a++)
			for (j = 0; j < h; j++)
				link_ports(t, t->first_spine + pod * h + a, (uint16_t)(h + j),
						t->first_core + a * h + j, (uint16_t)pod, p->gbps,
						p->link_delay_ns, true,
						(172u << 24) | (18u << 16) | (2 * l2++));
	}
	return topo_finish(t, p->down_links, p->lb, p->mtu, p->sections, name_prefix, err, errlen);
}

static void
topo_free(struct sim_topo *t, bool routes)
{
	if (t->nodes == NULL)
		return;
	for (uint32_t i = 0; i < t->n_nodes; i++) {
		struct sim_node *n = &t->nodes[i];

		if (n->route != NULL && routes)
			rtr_route_free(n->route);
		if (n->neigh != NULL && routes)
			rtr_neigh_free(n->neigh);
		if (n->cfg != NULL) {
			rtr_config_free(n->cfg);
			free(n->cfg);
		}
		free(n->ports);
	}
	free(t->nodes);
	memset(t, 0, sizeof(*t));
}

void
sim_topo_free(struct sim_topo *t)
{
	topo_free(t, true);
}

void
sim_topo_release(struct sim_topo *t)
{
	topo_free(t, false);
}

int64_t
sim_topo_host_by_ip(const struct sim_topo *t, uint32_t ip)
{
	unsigned int tor = ((ip >> 16) & 0xff) - 1, j = (ip >> 8) & 0xff;

	if (t->n_hosts == 0 || (ip >> 24) != 10 || (ip & 0xff) != 1)
		return -1;
	if (tor >= t->n_tors || j >= t->hosts_per_tor)
		return -1;
	return (int64_t)tor * t->hosts_per_tor + j;
}

int
sim_eal_init(const char *name, unsigned int mb)
{
	char prefix[96], mem[16];
	char *argv[] = {(char *)(uintptr_t)name, (char *)(uintptr_t) "--no-huge",
			(char *)(uintptr_t) "-m", mem, (char *)(uintptr_t) "--no-pci",
			(char *)(uintptr_t) "--no-shconf", (char *)(uintptr_t) "-l",
			(char *)(uintptr_t) "0", (char *)(uintptr_t) "--log-level",
			(char *)(uintptr_t) "error", (char *)(uintptr_t) "--file-prefix", prefix,
			NULL};

	cpu_set_t cpus;
	bool have_cpus;

	snprintf(mem, sizeof(mem), "%u", mb);
	snprintf(prefix, sizeof(prefix), "%s_%d", name, (int)getpid());
	/*
	 * The EAL pins its main thread to lcore 0's CPU. The simulator is one
	 * thread that needs no pinning, and runs side by side (evaluate.py
	 * --jobs): pinned, two runs shared CPU 0 and each took twice its time.
	 * Give the thread back the CPUs it had.
	 *
	 * --no-shconf: no runtime files. The simulator shares its memory with
	 * no other process, and each run's files stayed behind in
	 * /run/dpdk/<prefix>: up to 145 MB per run (the memory segment lists
	 * of a 2.5 GB reservation), 81 GB on this machine's disk after the
	 * evaluation and earlier sessions' tests, which filled it.
	 */
	have_cpus = sched_getaffinity(0, sizeof(cpus), &cpus) == 0;
	if (rte_eal_init((int)RTR_ARRAY_SIZE(argv) - 1, argv) < 0)
		return -1;
	if (have_cpus)
		pthread_setaffinity_np(pthread_self(), sizeof(cpus), &cpus);
	return 0;
}

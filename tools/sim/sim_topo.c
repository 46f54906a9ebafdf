/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

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

int
sim_topo_tor_yaml(const struct sim_leafspine *p, unsigned int t, char *buf, size_t len)
{
	unsigned int H = p->hosts_per_tor, j, s;
	unsigned int mtu = p->mtu ? p->mtu : 9000;
	size_t off = 0;

	put(buf, len, &off, "switch:\n  name: tor%u\n  role: tor\n  id: %u\n  lb: %s\n", t, t + 1,
		p->lb ? p->lb : "ecmp");
	put(buf, len, &off, "ports:\n");
	for (j = 0; j < H; j++)
		put(buf, len, &off,
			"  - {port: %u, role: host, speed_gbps: %u, mtu: %u, ip: [\"10.%u.%u.254/24\"]}\n",
			j, (unsigned int)p->host_gbps, mtu, t + 1, j);
	for (s = 0; s < p->spines; s++)
		put(buf, len, &off,
			"  - {port: %u, role: fabric, speed_gbps: %u, mtu: %u, ip: [\"172.16.%u.%u/31\"]}\n",
			H + s, (unsigned int)uplink_gbps(p), mtu, s, 2 * t);
	put(buf, len, &off, "routes:\n");
	for (j = 0; j < H; j++)
		put(buf, len, &off, "  - {prefix: \"10.%u.%u.1/32\", port: %u}\n", t + 1, j, j);
	put(buf, len, &off, "  - prefix: \"10.0.0.0/8\"\n    paths:\n");
	for (s = 0; s < p->spines; s++)
		put(buf, len, &off, "      - {port: %u, nexthop: \"172.16.%u.%u\"}\n", H + s, s,
			2 * t + 1);
	if (p->sections != NULL)
		put(buf, len, &off, "%s\n", p->sections);
	return off >= len ? -1 : (int)off;
}

int
sim_topo_spine_yaml(const struct sim_leafspine *p, unsigned int s, char *buf, size_t len)
{
	unsigned int mtu = p->mtu ? p->mtu : 9000, t;
	size_t off = 0;

	put(buf, len, &off, "switch:\n  name: spine%u\n  role: spine\n  id: %u\n  lb: %s\n", s,
		1000 + s, p->lb ? p->lb : "ecmp");
	put(buf, len, &off, "ports:\n");
	for (t = 0; t < p->tors; t++)
		put(buf, len, &off,
			"  - {port: %u, role: fabric, speed_gbps: %u, mtu: %u, ip: [\"172.16.%u.%u/31\"]}\n",
			t, (unsigned int)uplink_gbps(p), mtu, s, 2 * t + 1);
	put(buf, len, &off, "routes:\n");
	for (t = 0; t < p->tors; t++)
		put(buf, len, &off, "  - {prefix: \"10.%u.0.0/16\", port: %u, nexthop: \"172.16.%u.%u\"}\n",
			t + 1, t, s, 2 * t);
	if (p->sections != NULL)
		put(buf, len, &off, "%s\n", p->sections);
	return off >= len ? -1 : (int)off;
}

/* rtr_route_create's next-hop callback: the sim knows each port's peer, so a
 * next hop is just its port. */
static int
sim_nh_add(void *arg, uint16_t port, const struct rtr_addr *ip, const uint8_t *mac)
{
	struct sim_node *n = arg;

	(void)ip;
	(void)mac;
	if (n->n_nh >= RTR_ARRAY_SIZE(n->nh))
		return -1;
	n->nh[n->n_nh].port = port;
	return (int)n->n_nh++;
}

static void
link_ports(struct sim_topo *t, uint32_t a, uint16_t pa, uint32_t b, uint16_t pb, double gbps,
		uint64_t delay_ns)
{
	struct sim_port *x = &t->nodes[a].ports[pa], *y = &t->nodes[b].ports[pb];

	x->peer = b;
	x->peer_port = pb;
	y->peer = a;
	y->peer_port = pa;
	x->gbps = y->gbps = gbps;
	x->delay_ns = y->delay_ns = delay_ns;
}

static int
load_switch(struct sim_node *n, const char *yaml, size_t ylen, const char *name_prefix, char *err,
		size_t errlen)
{
	char name[96], e[256];
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
	snprintf(name, sizeof(name), "%s%s", name_prefix, n->name);
	n->route = rtr_route_create(name, n->cfg, SOCKET_ID_ANY, sim_nh_add, n, e, sizeof(e));
	if (n->route == NULL) {
		snprintf(err, errlen, "%s: routes: %s", n->name, e);
		return -1;
	}
	for (unsigned int i = 0; i < n->cfg->n_ports; i++)
		if (n->cfg->ports[i].role == RTR_PORT_FABRIC)
			n->fabric_ports |= 1u << n->cfg->ports[i].port;
	id = (int)n->cfg->sw.lb;
	n->lb_ops = rtr_lb_mode_ops((unsigned int)id, n->kind == SIM_SPINE);
	if (n->lb_ops == NULL) {
		snprintf(err, errlen, "%s: LB mode %d is not implemented", n->name, id);
		return -1;
	}
	return 0;
}

int
sim_topo_leafspine(struct sim_topo *t, const struct sim_leafspine *p, const char *name_prefix,
		char *err, size_t errlen)
{
	unsigned int T = p->tors, S = p->spines, H = p->hosts_per_tor, i, j;
	size_t ylen = 4096 + 160 * (size_t)(2 * H + 2 * S + T) +
		(p->sections != NULL ? strlen(p->sections) : 0);
	char *yaml;

	memset(t, 0, sizeof(*t));
	if (T == 0 || S == 0 || H == 0 || H + S > RTR_MAX_PORTS || T > RTR_MAX_PORTS || T > 254 ||
			H > 255 || S > RTR_MAX_PATHS || p->host_gbps <= 0) {
		snprintf(err, errlen, "leafspine: %u ToRs x %u spines x %u hosts: a ToR has at most "
			"%u ports, a spine %u", T, S, H, RTR_MAX_PORTS, RTR_MAX_PORTS);
		return -1;
	}
	t->n_hosts = T * H;
	t->n_switches = T + S;
	t->n_nodes = t->n_hosts + t->n_switches;
	t->first_tor = t->n_hosts;
	t->first_spine = t->n_hosts + T;
	t->oversub = (H * p->host_gbps) / (S * uplink_gbps(p));
	t->nodes = calloc(t->n_nodes, sizeof(*t->nodes));
	yaml = malloc(ylen);
	if (t->nodes == NULL || yaml == NULL) {
		free(yaml);
		snprintf(err, errlen, "leafspine: out of memory");
		return -1;
	}
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
			n->n_ports = (uint16_t)(H + S);
			snprintf(n->name, sizeof(n->name), "tor%u", n->index);
		} else {
			n->kind = SIM_SPINE;
			n->index = i - t->first_spine;
			n->n_ports = (uint16_t)T;
			snprintf(n->name, sizeof(n->name), "spine%u", n->index);
		}
		n->ports = calloc(n->n_ports, sizeof(*n->ports));
		if (n->ports == NULL) {
			free(yaml);
			snprintf(err, errlen, "leafspine: out of memory");
			return -1;
		}
	}
	for (i = 0; i < T; i++) {
		for (j = 0; j < H; j++)
			link_ports(t, i * H + j, 0, t->first_tor + i, (uint16_t)j, p->host_gbps,
				p->link_delay_ns);
		for (j = 0; j < S; j++) {
			link_ports(t, t->first_tor + i, (uint16_t)(H + j), t->first_spine + j,
				(uint16_t)i, uplink_gbps(p), p->link_delay_ns);
			t->nodes[t->first_tor + i].ports[H + j].fabric = true;
			t->nodes[t->first_spine + j].ports[i].fabric = true;
		}
	}
	for (i = t->first_tor; i < t->n_nodes; i++) {
		struct sim_node *n = &t->nodes[i];
		int len = n->kind == SIM_TOR ? sim_topo_tor_yaml(p, n->index, yaml, ylen)
					     : sim_topo_spine_yaml(p, n->index, yaml, ylen);

		if (len < 0) {
			free(yaml);
			snprintf(err, errlen, "%s: config text too long", n->name);
			return -1;
		}
		if (load_switch(n, yaml, (size_t)len, name_prefix, err, errlen) != 0) {
			free(yaml);
			return -1;
		}
	}
	free(yaml);
	return 0;
}

void
sim_topo_free(struct sim_topo *t)
{
	if (t->nodes == NULL)
		return;
	for (uint32_t i = 0; i < t->n_nodes; i++) {
		struct sim_node *n = &t->nodes[i];

		if (n->route != NULL)
			rtr_route_free(n->route);
		if (n->cfg != NULL) {
			rtr_config_free(n->cfg);
			free(n->cfg);
		}
		free(n->ports);
	}
	free(t->nodes);
	memset(t, 0, sizeof(*t));
}

int64_t
sim_topo_host_by_ip(const struct sim_topo *t, uint32_t ip)
{
	unsigned int tor = ((ip >> 16) & 0xff) - 1, j = (ip >> 8) & 0xff, H;

	if (t->n_hosts == 0 || (ip >> 24) != 10 || (ip & 0xff) != 1)
		return -1;
	H = t->n_hosts / (t->first_spine - t->first_tor);
	if (tor >= t->first_spine - t->first_tor || j >= H)
		return -1;
	return (int64_t)tor * H + j;
}

int
sim_eal_init(const char *name, unsigned int mb)
{
	char prefix[96], mem[16];
	char *argv[] = {(char *)(uintptr_t)name, (char *)(uintptr_t)"--no-huge",
		(char *)(uintptr_t)"-m", mem, (char *)(uintptr_t)"--no-pci",
		(char *)(uintptr_t)"-l", (char *)(uintptr_t)"0", (char *)(uintptr_t)"--log-level",
		(char *)(uintptr_t)"error", (char *)(uintptr_t)"--file-prefix", prefix, NULL};

	snprintf(mem, sizeof(mem), "%u", mb);
	snprintf(prefix, sizeof(prefix), "%s_%d", name, (int)getpid());
	return rte_eal_init((int)RTR_ARRAY_SIZE(argv) - 1, argv) < 0 ? -1 : 0;
}

/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * rte_telemetry commands under /rocetor/ (DESIGN.md B6), one table of
 * {path, help, callback}. They run in the telemetry thread and only read:
 * counters are summed from the per-lcore blocks, nothing is written into
 * worker memory. Query with `dpdk-telemetry.py -f PREFIX`.
 */

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>

#include <rte_cycles.h>
#include <rte_malloc.h>
#include <rte_mempool.h>
#include <rte_telemetry.h>

#include "rtr_app.h"

static struct rtr_lcore_stats *
summed(void)
{
	struct rtr_lcore_stats *s = rte_zmalloc(NULL, sizeof(*s), 64);

	if (s != NULL)
		rtr_app_stats(&rtr_app, s);
	return s;
}

static bool
ready(void)
{
	return rtr_app.sw.route != NULL && rtr_app.start_tsc != 0;
}

static int
add_u64(struct rte_tel_data *d, const char *k, uint64_t v)
{
	return rte_tel_data_add_dict_u64(d, k, v);
}

static int
tel_stats(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct rtr_lcore_stats *s;
	struct rte_tel_data *drops;
	uint64_t total = 0;

	(void)cmd;
	(void)params;
	if (!ready())
		return -EAGAIN;
	s = summed();
	drops = rte_tel_data_alloc();
	if (s == NULL || drops == NULL) {
		rte_free(s);
		rte_tel_data_free(drops);
		return -ENOMEM;
	}
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_string(d, "switch", rtr_app.cfg.sw.name);
	rte_tel_data_add_dict_string(d, "lb", rtr_app.sw.lb->name);
	add_u64(d, "uptime_ms",
		(rte_rdtsc() - rtr_app.start_tsc) * 1000 / rtr_app.sw.tsc_hz);
	rte_tel_data_start_dict(drops);
	for (unsigned int i = 1; i < RTR_DROP_MAX; i++) {
		add_u64(drops, rtr_drop_names[i], s->drops[i]);
		total += s->drops[i];
	}
	rte_tel_data_add_dict_container(d, "drops", drops, 0);
	add_u64(d, "forwarded", s->forwarded);
	add_u64(d, "consumed", s->consumed);
	add_u64(d, "originated", s->originated);
	add_u64(d, "originated_dropped", s->originated_dropped);
	add_u64(d, "dropped", total);
	add_u64(d, "handoff_tx", s->handoff_tx);
	add_u64(d, "handoff_rx", s->handoff_rx);
	add_u64(d, "held_packets", rtr_pipeline_held(&rtr_app.sw));
	add_u64(d, "mempool_in_use", rte_mempool_in_use_count(rtr_app.sw.pool));
	add_u64(d, "busy_cycles_per_packet",
		s->busy_packets ? s->busy_cycles / s->busy_packets : 0);
	rte_free(s);
	return 0;
}

static int
tel_ports(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct rtr_lcore_stats *s;

	(void)cmd;
	(void)params;
	if (!ready())
		return -EAGAIN;
	s = summed();
	if (s == NULL)
		return -ENOMEM;
	rte_tel_data_start_dict(d);
	for (unsigned int i = 0; i < rtr_app.n_cfg_ports; i++) {
		uint16_t p = rtr_app.port_ids[i];
		const struct rtr_port_rt *pr = &rtr_app.sw.ports[p];
		const struct rtr_port_counters *c = &s->port[p];
		struct rte_tel_data *pd = rte_tel_data_alloc();
		char key[16], mac[32];

		if (pd == NULL)
			break;
		snprintf(key, sizeof(key), "%u", p);
		snprintf(mac, sizeof(mac), "%02x:%02x:%02x:%02x:%02x:%02x", pr->mac[0], pr->mac[1],
			pr->mac[2], pr->mac[3], pr->mac[4], pr->mac[5]);
		rte_tel_data_start_dict(pd);
		rte_tel_data_add_dict_string(pd, "role", pr->role == RTR_PORT_HOST ? "host" : "fabric");
		rte_tel_data_add_dict_string(pd, "mac", mac);
		add_u64(pd, "link_up", atomic_load(&pr->link_up));
		add_u64(pd, "rx_packets", c->rx_packets);
		add_u64(pd, "tx_packets", c->tx_packets);
		add_u64(pd, "rx_bytes", c->rx_bytes);
		add_u64(pd, "tx_bytes", c->tx_bytes);
		add_u64(pd, "drops", c->drops);
		add_u64(pd, "ecn_marked", c->ecn_marked);
		add_u64(pd, "host_b4_cleared", c->host_b4_cleared);
		add_u64(pd, "flow_entries", c->flow_entries);
		add_u64(pd, "flow_limit_share", c->flow_limit_share);
		add_u64(pd, "flow_limit_rate", c->flow_limit_rate);
		rte_tel_data_add_dict_container(d, key, pd, 0);
	}
	rte_free(s);
	return 0;
}

static int
tel_lb(const char *cmd, const char *params, struct rte_tel_data *d)
{
	const struct rtr_route *r = rtr_app.sw.route;
	struct rtr_lcore_stats *s;
	struct rte_tel_data *c;

	(void)cmd;
	(void)params;
	if (!ready())
		return -EAGAIN;
	s = summed();
	c = rte_tel_data_alloc();
	if (s == NULL || c == NULL) {
		rte_free(s);
		rte_tel_data_free(c);
		return -ENOMEM;
	}
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_string(d, "mode", rtr_app.sw.lb->name);
	rte_tel_data_start_dict(c);
	for (unsigned int i = 0; i < RTR_LBC_MAX; i++)
		add_u64(c, rtr_lb_counter_names[i], s->lb[i]);
	rte_tel_data_add_dict_container(d, "counters", c, 0);
	for (unsigned int g = 0; g < r->n_groups && g < RTR_STATS_GROUPS; g++) {
		struct rte_tel_data *a = rte_tel_data_alloc();
		char key[32];

		if (a == NULL)
			break;
		rte_tel_data_start_array(a, RTE_TEL_U64_VAL);
		for (unsigned int p = 0; p < r->groups[g].n_paths; p++)
			rte_tel_data_add_array_u64(a, s->path_tx[g][p]);
		snprintf(key, sizeof(key), "group_%u_path_tx", g);
		rte_tel_data_add_dict_container(d, key, a, 0);
		snprintf(key, sizeof(key), "group_%u_live_mask", g);
		add_u64(d, key, atomic_load(&r->groups[g].live_mask));
	}
	rte_free(s);
	return 0;
}

/* /rocetor/lb/flows,N: the LB stage's per-flow state, up to N flows
 * (default 16, at most 64: the reply must fit the telemetry buffer). Read
 * while the workers run: a racy snapshot, good for watching, not for
 * accounting. */
#define TEL_FLOWS_DEFAULT 16
#define TEL_FLOWS_MAX	  64

struct tel_flows_ctx {
	struct rte_tel_data *d;
	enum rtr_lb_mode mode;
	unsigned int n;
	unsigned int worker;
};

static void
tel_flow_one(void *arg, const struct rtr_lb_flow_info *f)
{
	struct tel_flows_ctx *x = arg;
	struct rte_tel_data *e = rte_tel_data_alloc();
	char key[24], a[INET6_ADDRSTRLEN], b[INET6_ADDRSTRLEN];
	int af = f->v6 ? AF_INET6 : AF_INET;

	if (e == NULL)
		return;
	rte_tel_data_start_dict(e);
	inet_ntop(af, f->src, a, sizeof(a));
	inet_ntop(af, f->dst, b, sizeof(b));
	rte_tel_data_add_dict_string(e, "role", f->dst_role ? "dsttor" : "srctor");
	rte_tel_data_add_dict_string(e, "src", a);
	rte_tel_data_add_dict_string(e, "dst", b);
	add_u64(e, "sport", f->sport);
	add_u64(e, "worker", x->worker);
	add_u64(e, "idle_us", f->idle_ns / 1000);
	if (x->mode != RTR_LB_CONWEAVE) {
		/* SeqBalance sub-flows, CAVER flows: where they were placed. */
		add_u64(e, "path", f->path);
		if (x->mode == RTR_LB_CAVER) {
			if (f->next_hop != RTR_LB_HOP_NONE)
				add_u64(e, "next_hop", f->next_hop);
			add_u64(e, "ce", f->ce);
			rte_tel_data_add_dict_string(e, "placed_by", f->by_table ? "table" : "ecmp");
		}
	} else if (f->dst_role) {
		add_u64(e, "epoch", f->epoch);
		add_u64(e, "rx_phase", f->phase);
		add_u64(e, "held", f->held);
		if (f->deadline_in_ns != UINT64_MAX)
			add_u64(e, "deadline_in_us", f->deadline_in_ns / 1000);
	} else {
		add_u64(e, "epoch", f->epoch);
		add_u64(e, "phase", f->phase);
		add_u64(e, "path", f->path);
		add_u64(e, "stabilized", f->stabilized);
		if (f->reply_deadline_in_ns != UINT64_MAX)
			add_u64(e, "reply_deadline_in_us", f->reply_deadline_in_ns / 1000);
	}
	snprintf(key, sizeof(key), "flow_%u", x->n++);
	rte_tel_data_add_dict_container(x->d, key, e, 0);
}

static int
tel_lb_flows(const char *cmd, const char *params, struct rte_tel_data *d)
{
	const struct rtr_switch *sw = &rtr_app.sw;
	struct tel_flows_ctx x = {.d = d, .mode = sw->lb->mode};
	unsigned long max = TEL_FLOWS_DEFAULT;
	uint64_t now;

	(void)cmd;
	if (!ready())
		return -EAGAIN;
	if (params != NULL && *params != '\0') {
		char *end;

		max = strtoul(params, &end, 10);
		if (*end != '\0' || max == 0)
			return -EINVAL;
		if (max > TEL_FLOWS_MAX)
			max = TEL_FLOWS_MAX;
	}
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_string(d, "mode", sw->lb->name);
	if (sw->lb->flows == NULL)
		return 0;
	now = rtr_tsc_to_ns(sw, rte_rdtsc());
	for (unsigned int i = 0; i < sw->n_workers && x.n < max; i++) {
		x.worker = i;
		sw->lb->flows(sw->workers[i]->lb_state, now, (unsigned int)max - x.n, tel_flow_one,
			&x);
	}
	add_u64(d, "shown", x.n);
	return 0;
}

static int
tel_config(const char *cmd, const char *params, struct rte_tel_data *d)
{
	const struct rtr_config *cfg = &rtr_app.cfg;
	struct rte_tel_data *ports, *routes;

	(void)cmd;
	(void)params;
	if (!ready())
		return -EAGAIN;
	ports = rte_tel_data_alloc();
	routes = rte_tel_data_alloc();
	if (ports == NULL || routes == NULL) {
		rte_tel_data_free(ports);
		rte_tel_data_free(routes);
		return -ENOMEM;
	}
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_string(d, "file", cfg->path);
	rte_tel_data_add_dict_string(d, "name", cfg->sw.name);
	rte_tel_data_add_dict_string(d, "role", cfg->sw.role == RTR_ROLE_TOR ? "tor" : "spine");
	add_u64(d, "id", cfg->sw.id);
	rte_tel_data_add_dict_string(d, "lb", rtr_app.sw.lb->name);
	add_u64(d, "seed", cfg->sw.seed);
	add_u64(d, "workers", rtr_app.sw.n_workers);
	add_u64(d, "mbufs", rtr_app.n_mbufs);
	rte_tel_data_start_array(ports, RTE_TEL_STRING_VAL);
	for (unsigned int i = 0; i < cfg->n_ports; i++) {
		char line[RTE_TEL_MAX_STRING_LEN];

		snprintf(line, sizeof(line), "port %u %s", cfg->ports[i].port,
			cfg->ports[i].role == RTR_PORT_HOST ? "host" : "fabric");
		rte_tel_data_add_array_string(ports, line);
	}
	rte_tel_data_add_dict_container(d, "ports", ports, 0);
	rte_tel_data_start_array(routes, RTE_TEL_STRING_VAL);
	for (unsigned int i = 0; i < cfg->n_routes && i < RTE_TEL_MAX_ARRAY_ENTRIES; i++) {
		const struct rtr_route_cfg *rc = &cfg->routes[i];
		char ip[INET6_ADDRSTRLEN], line[RTE_TEL_MAX_STRING_LEN];

		inet_ntop(rc->prefix.family, rc->prefix.family == AF_INET ?
			(const void *)&rc->prefix.v4 : (const void *)&rc->prefix.v6, ip, sizeof(ip));
		snprintf(line, sizeof(line), "%s/%u %s %u", ip, rc->prefix.depth,
			rc->is_group ? "paths" : "port", rc->is_group ? rc->n_paths : rc->paths[0].port);
		rte_tel_data_add_array_string(routes, line);
	}
	rte_tel_data_add_dict_container(d, "routes", routes, 0);
	return 0;
}

/* /rocetor/port/admin,PORT,down|up: take a port down (or back up) while
 * running, like ports[].admin_down (lab fault injection, doc/faults.md).
 * The control plane applies it at its next poll: the port leaves (or
 * rejoins) every uplink group and what its queues hold is dropped as
 * port_down. */
static int
tel_port_admin(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct rtr_switch *sw = &rtr_app.sw;
	unsigned long v;
	char *end;
	bool down;

	(void)cmd;
	if (!ready())
		return -EAGAIN;
	if (params == NULL)
		return -EINVAL;
	v = strtoul(params, &end, 10);
	if (end == params || *end != ',' || v >= RTR_MAX_PORTS || !sw->ports[v].configured)
		return -EINVAL;
	if (strcmp(end + 1, "down") == 0)
		down = true;
	else if (strcmp(end + 1, "up") == 0)
		down = false;
	else
		return -EINVAL;
	atomic_store(&sw->ports[v].admin_down, down);
	atomic_store(&sw->ports[v].lsc_event, 1);
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_u64(d, "port", v);
	rte_tel_data_add_dict_string(d, "admin", down ? "down" : "up");
	return 0;
}

/* /rocetor/egress,PORT: per-class queues and PFC of one port (the first
 * configured port without a parameter). One level of nesting: what
 * DPDK 22.11's telemetry can encode. */
static int
tel_egress(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct rtr_eg_port_report r;
	struct rte_tel_data *cls[RTR_MAX_CLASSES] = {NULL}, *pfc;
	unsigned int port;
	char *end;

	(void)cmd;
	if (!ready())
		return -EAGAIN;
	port = rtr_app.port_ids[0];
	if (params != NULL && *params != '\0') {
		unsigned long v = strtoul(params, &end, 10);

		if (*end != '\0' || v >= RTR_MAX_PORTS || !rtr_app.sw.ports[v].configured)
			return -EINVAL;
		port = (unsigned int)v;
	}
	rtr_app_egress_report(&rtr_app, (uint16_t)port, &r);
	pfc = rte_tel_data_alloc();
	for (unsigned int c = 0; c < r.n_classes; c++)
		cls[c] = rte_tel_data_alloc();
	for (unsigned int c = 0; c < r.n_classes; c++) {
		if (cls[c] == NULL || pfc == NULL) {
			for (unsigned int k = 0; k < r.n_classes; k++)
				rte_tel_data_free(cls[k]);
			rte_tel_data_free(pfc);
			return -ENOMEM;
		}
	}
	rte_tel_data_start_dict(d);
	add_u64(d, "port", port);
	for (unsigned int c = 0; c < r.n_classes; c++) {
		char key[16];

		rte_tel_data_start_dict(cls[c]);
		for (unsigned int i = 0; i < RTR_EGC_MAX; i++)
			add_u64(cls[c], rtr_eg_counter_names[i], r.c[c][i]);
		add_u64(cls[c], "depth", r.depth[c]);
		add_u64(cls[c], "pfc_paused_ns", r.paused_ns[c]);
		snprintf(key, sizeof(key), "class%u", c);
		rte_tel_data_add_dict_container(d, key, cls[c], 0);
	}
	rte_tel_data_start_dict(pfc);
	add_u64(pfc, "rx_pfc", r.rx_pfc);
	add_u64(pfc, "rx_pause", r.rx_pause);
	add_u64(pfc, "rx_ignored", r.rx_ignored);
	add_u64(pfc, "tx_xoff", r.tx_xoff);
	add_u64(pfc, "tx_xon", r.tx_xon);
	rte_tel_data_add_dict_container(d, "pfc", pfc, 0);
	return 0;
}

static const struct {
	const char *path;
	telemetry_cb fn;
	const char *help;
} commands[] = {
	{"/rocetor/stats", tel_stats, "Switch totals: drops by reason, forwarded, consumed, held."},
	{"/rocetor/ports", tel_ports, "Per-port counters and link state."},
	{"/rocetor/lb", tel_lb, "LB mode, LB counters, per-path TX and live masks."},
	{"/rocetor/lb/flows", tel_lb_flows,
		"Per-flow LB state (path; ConWeave epoch/phase/held, CAVER next hop/cost). "
		"Parameter: max flows (default 16, at most 64)."},
	{"/rocetor/config", tel_config, "The running configuration (summary)."},
	{"/rocetor/port/admin", tel_port_admin,
		"Take a port down or up while running. Parameter: PORT,down or PORT,up."},
	{"/rocetor/egress", tel_egress,
		"Egress of one port: per-class counters, depth, PFC. Parameter: port id."},
};

int
rtr_telemetry_register(void)
{
	for (unsigned int i = 0; i < RTR_ARRAY_SIZE(commands); i++) {
		int rc = rte_telemetry_register_cmd(commands[i].path, commands[i].fn,
			commands[i].help);

		if (rc < 0) {
			fprintf(stderr, "rocetor: telemetry %s: %s\n", commands[i].path, strerror(-rc));
			return rc;
		}
	}
	return 0;
}

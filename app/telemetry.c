/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * rte_telemetry commands under /rocetor/ (DESIGN.md B6), one table of
 * {path, help, callback}. They run in the telemetry threads (one per
 * client). Most only read: counters are summed from the per-lcore blocks,
 * nothing is written into worker memory. The commands that change state
 * (marked rw in the table: the runtime LB switch, port admin state) answer
 * {"ok": 0, "error": ...} unless rocetor runs with --telemetry-rw, and hand
 * their change to the workers through the control poll, never by writing
 * worker memory. The socket is owner-only (rtr_telemetry_harden). Query
 * with `dpdk-telemetry.py -f PREFIX`.
 */

#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <dirent.h>
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/stat.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_lpm.h>
#include <rte_lpm6.h>
#include <rte_malloc.h>
#include <rte_mempool.h>
#include <rte_telemetry.h>

#include "lb.h"
#include "nic.h"
#include "stats_doc.h"
#include "fpm.h"
#include "tap.h"
#include "telemetry.h"
#include "rtr_lb_registry.h"

/* The rocetor the commands answer about (rtr_telemetry_register). */
static struct rtr_app *tel_app;

static struct rtr_lcore_stats *
summed(void)
{
	struct rtr_lcore_stats *s = rte_zmalloc(NULL, sizeof(*s), 64);

	if (s != NULL)
		rtr_app_stats(tel_app, s);
	return s;
}

static bool
ready(void)
{
	return tel_app->sw.route != NULL && tel_app->start_tsc != 0;
}

static int
add_u64(struct rte_tel_data *d, const char *k, uint64_t v)
{
	return rte_tel_data_add_dict_u64(d, k, v);
}

/*
 * The numbers of /rocetor/stats: (key, type, help, value). The value is an
 * expression of tel_stats' locals (s: the summed counters, total: their
 * drops summed, sw: the switch, cpu: the workers' CPU seconds, < 0 when
 * unknown, and then worker_cpu_us is left out). /rocetor/counters serves
 * the keys, types and help from here.
 */
#define TEL_STATS(X)                                                                               \
	X(uptime_ms, GAUGE, "time since forwarding started",                                       \
			(rte_rdtsc() - tel_app->start_tsc) * 1000 / sw->tsc_hz)                    \
	X(forwarded, COUNTER, "received packets sent out again", s->forwarded)                     \
	X(consumed, COUNTER,                                                                       \
			"received packets taken by the switch (ARP, ND, echo, PFC, LB control)",   \
			s->consumed)                                                               \
	X(originated, COUNTER, "frames the switch built and sent", s->originated)                  \
	X(originated_dropped, COUNTER, "frames the switch built and could not send",               \
			s->originated_dropped)                                                     \
	X(dropped, COUNTER, "packets dropped, all reasons (the sum of drops)", total)              \
	X(handoff_tx, COUNTER, "packets passed to another worker, the flow's owner",               \
			s->handoff_tx)                                                             \
	X(handoff_rx, COUNTER, "packets received from another worker", s->handoff_rx)              \
	X(held_packets, GAUGE, "packets held now in reorder rings, egress queues and delay lines", \
			rtr_pipeline_held(sw))                                                     \
	X(mempool_in_use, GAUGE, "mbufs not in the pool now", rtr_switch_pool_in_use(sw))          \
	X(lb_switches, COUNTER, "runtime LB mode switches completed",                              \
			atomic_load(&sw->lb_switches))                                             \
	X(lb_switch_released, COUNTER, "held packets released in order at runtime LB switches",    \
			s->lb_switch_released)                                                     \
	X(busy_cycles_per_packet, GAUGE, "TSC cycles per received packet over busy loop passes",   \
			s->busy_packets ? s->busy_cycles / s->busy_packets : 0)                    \
	X(worker_cpu_us, COUNTER, "microseconds the worker threads have been on a CPU",            \
			(uint64_t)(cpu * 1e6))
enum tel_stat {
#define TEL_STAT_ENUM(n, t, h, v) TEL_STAT_##n,
	TEL_STATS(TEL_STAT_ENUM)
#undef TEL_STAT_ENUM
			TEL_STAT_MAX
};

static int
tel_stats(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct rtr_switch *sw = &tel_app->sw;
	struct rtr_lcore_stats *s;
	struct rte_tel_data *drops;
	uint64_t total = 0;
	double cpu;

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
	rte_tel_data_add_dict_string(d, "switch", tel_app->cfg.sw.name);
	rte_tel_data_add_dict_string(d, "lb", sw->lb->name);
	rte_tel_data_start_dict(drops);
	for (unsigned int i = 1; i < RTR_DROP_MAX; i++) {
		add_u64(drops, rtr_drop_names[i], s->drops[i]);
		total += s->drops[i];
	}
	rte_tel_data_add_dict_container(d, "drops", drops, 0);
	/* Microseconds of CPU (telemetry has no floats in 22.11's u64 dicts
	 * without losing precision); the stats document has seconds. */
	cpu = rtr_workers_cpu_s(sw);
#define TEL_STAT_ADD(n, t, h, v)                                \
	if (TEL_STAT_##n != TEL_STAT_worker_cpu_us || cpu >= 0) \
		add_u64(d, #n, v);
	TEL_STATS(TEL_STAT_ADD)
#undef TEL_STAT_ADD
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
	for (unsigned int i = 0; i < tel_app->n_cfg_ports; i++) {
		uint16_t p = tel_app->port_ids[i];
		const struct rtr_fwd_port *pr = &tel_app->sw.ports[p];
		const struct rtr_port_counters *c = &s->port[p];
		struct rte_tel_data *pd = rte_tel_data_alloc();
		char key[16], mac[32];

		if (pd == NULL)
			break;
		snprintf(key, sizeof(key), "%u", p);
		snprintf(mac, sizeof(mac), "%02x:%02x:%02x:%02x:%02x:%02x", pr->mac[0], pr->mac[1],
				pr->mac[2], pr->mac[3], pr->mac[4], pr->mac[5]);
		rte_tel_data_start_dict(pd);
		rte_tel_data_add_dict_string(
				pd, "role", pr->role == RTR_PORT_HOST ? "host" : "fabric");
		rte_tel_data_add_dict_string(pd, "mac", mac);
		add_u64(pd, "link_up", atomic_load(&pr->link_up));
#define TEL_PORT_ADD(n, t, h) add_u64(pd, #n, c->n);
		RTR_PORT_COUNTERS(TEL_PORT_ADD)
#undef TEL_PORT_ADD
		rte_tel_data_add_dict_container(d, key, pd, 0);
	}
	rte_free(s);
	return 0;
}

/*
 * /rocetor/nic: per configured port, what the NIC itself counts and what
 * the capability table says of its driver (app/nic_caps.c): rx_nombuf,
 * imissed, ierrors (rte_eth_stats) and the driver's pause / discard xstats
 * where it has them (doc/counters.md "NIC counters"), read now.
 */
static int
tel_nic(const char *cmd, const char *params, struct rte_tel_data *d)
{
	(void)cmd;
	(void)params;
	if (!ready())
		return -EAGAIN;
	rtr_app_nic_snapshot(tel_app);
	rte_tel_data_start_dict(d);
	for (unsigned int i = 0; i < tel_app->n_cfg_ports; i++) {
		const struct rtr_nic_caps *caps = tel_app->nic[i].caps;
		struct rte_tel_data *pd = rte_tel_data_alloc();
		struct rte_eth_dev_info info;
		char key[16];

		if (pd == NULL)
			break;
		snprintf(key, sizeof(key), "%u", tel_app->port_ids[i]);
		rte_tel_data_start_dict(pd);
		if (rte_eth_dev_info_get(tel_app->port_ids[i], &info) == 0)
			rte_tel_data_add_dict_string(pd, "driver", info.driver_name);
		rte_tel_data_add_dict_string(pd, "caps", caps != NULL ? caps->driver : "none");
		rte_tel_data_add_dict_string(pd, "flow_control", rtr_nic_fc_support(caps));
		add_u64(pd, "rx_nombuf", tel_app->nic_rx_nombuf[i]);
		add_u64(pd, "imissed", tel_app->nic_imissed[i]);
		add_u64(pd, "ierrors", tel_app->nic_ierrors[i]);
		for (unsigned int c = 0; c < RTR_NIC_CTR_MAX; c++)
			if (rtr_nic_has(tel_app, i, c))
				add_u64(pd, rtr_nic_ctr_names[c], tel_app->nic[i].value[c]);
		rte_tel_data_add_dict_container(d, key, pd, 0);
	}
	return 0;
}

static int
tel_lb(const char *cmd, const char *params, struct rte_tel_data *d)
{
	const struct rtr_route *r = tel_app->sw.route;
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
	rte_tel_data_add_dict_string(d, "mode", tel_app->sw.lb->name);
	add_u64(d, "lb_switches", atomic_load(&tel_app->sw.lb_switches));
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
#define TEL_FLOWS_MAX     64

struct tel_flows_ctx {
	struct rte_tel_data *d;
	const struct rtr_lb_desc *desc; /* the mode of the worker being walked */
	unsigned int n;
	unsigned int worker;
};

static void
tel_kv_u64(void *arg, const char *key, uint64_t v)
{
	add_u64(arg, key, v);
}

static void
tel_kv_str(void *arg, const char *key, const char *v)
{
	rte_tel_data_add_dict_string(arg, key, v);
}

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
	/* The mode's own members (doc/user-guide.md lists them). */
	if (x->desc != NULL && x->desc->flow_view != NULL) {
		const struct rtr_lb_kv kv = {.u64 = tel_kv_u64, .str = tel_kv_str, .arg = e};

		x->desc->flow_view(f, &kv);
	}
	snprintf(key, sizeof(key), "flow_%u", x->n++);
	rte_tel_data_add_dict_container(x->d, key, e, 0);
}

static int
tel_lb_flows(const char *cmd, const char *params, struct rte_tel_data *d)
{
	const struct rtr_switch *sw = &tel_app->sw;
	struct tel_flows_ctx x = {.d = d};
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
	/* Each worker's own mode and state (they differ for a moment during a
	 * runtime switch); lb_lock keeps the states from being freed. */
	pthread_mutex_lock(&tel_app->sw.lb_lock);
	for (unsigned int i = 0; i < sw->n_workers && x.n < max; i++) {
		const struct rtr_lb_ops *ops;
		void *state;

		rtr_worker_lb_read(sw->workers[i], &ops, &state);
		if (ops->flows == NULL)
			continue;
		x.worker = i;
		x.desc = rtr_lb_mode_at((unsigned int)ops->mode);
		ops->flows(state, now, (unsigned int)max - x.n, tel_flow_one, &x);
	}
	pthread_mutex_unlock(&tel_app->sw.lb_lock);
	add_u64(d, "shown", x.n);
	return 0;
}

static int
tel_config(const char *cmd, const char *params, struct rte_tel_data *d)
{
	const struct rtr_config *cfg = &tel_app->cfg;
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
	rte_tel_data_add_dict_string(d, "lb", tel_app->sw.lb->name);
	add_u64(d, "seed", cfg->sw.seed);
	add_u64(d, "workers", tel_app->sw.n_workers);
	add_u64(d, "mbufs", tel_app->n_mbufs);
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

		inet_ntop(rc->prefix.family,
				rc->prefix.family == AF_INET ? (const void *)&rc->prefix.v4
							     : (const void *)&rc->prefix.v6,
				ip, sizeof(ip));
		snprintf(line, sizeof(line), "%s/%u %s %u", ip, rc->prefix.depth,
				rc->is_group ? "paths" : "port",
				rc->is_group ? rc->n_paths : rc->paths[0].port);
		rte_tel_data_add_array_string(routes, line);
	}
	rte_tel_data_add_dict_container(d, "routes", routes, 0);
	return 0;
}

/*
 * /rocetor/route/list[,START]: the routing table as the workers use it
 * (DESIGN.md B6), TEL_ROUTES_PAGE routes from slot START (default 0) of
 * the route list: the config's routes in config order, then the ports'
 * own addresses, then run-time routes (telemetry, FPM) in the slots they
 * took. One key per route, "route_N" (N its slot: telemetry names allow
 * no '.' or ':'), each an array of strings: the prefix, where it came from
 * ("config", "local", "api" or "fpm", with " pending" while an IPv6 change
 * waits for the workers, " failed" if the table refused it, " stale" for
 * an FPM route not yet confirmed since zebra reconnected), what it is
 * ("nexthop", "group G live 0xMASK", "local port P" or "blackhole") and, for a next hop
 * or each path of a group, "path I port P ADDR MAC STATE up|down" (MAC "-"
 * while unresolved; STATE static, incomplete, reachable or probe; up: the
 * path is in the group's live mask, or a next hop's port is up). "start",
 * "count", "total" and "next" (the START of the next page, or -1) say
 * where the page is; a page ends early when its reply would not fit
 * (TEL_ROUTES_BYTES). Read under the route list's lock: a snapshot.
 */
#define TEL_ROUTES_PAGE 24
/* JSON bytes a page may take: DPDK 22.11's telemetry replies are at most
 * 16 KiB (a group of 64 paths takes about 5 KiB), so a page ends early
 * rather than overflow. */
#define TEL_ROUTES_BYTES 12000

static const char *
nh_state_name(uint8_t st)
{
	static const char *const names[] = {
			[RTR_NH_STATIC] = "static",
			[RTR_NH_INCOMPLETE] = "incomplete",
			[RTR_NH_REACHABLE] = "reachable",
			[RTR_NH_PROBE] = "probe",
	};

	return st < RTE_DIM(names) && names[st] != NULL ? names[st] : "?";
}

static size_t
tel_route_path(struct rte_tel_data *a, unsigned int i, unsigned int nh_idx, bool up)
{
	const struct rtr_nh *nh = rtr_neigh_nh(tel_app->sw.neigh, nh_idx);
	uint64_t w = atomic_load_explicit(&nh->mac_word, memory_order_relaxed);
	char ip[INET6_ADDRSTRLEN] = "-", mac[24] = "-", line[RTE_TEL_MAX_STRING_LEN];

	if (nh->ip.family != 0)
		inet_ntop(nh->ip.family,
				nh->ip.family == AF_INET ? (const void *)&nh->ip.v4
							 : (const void *)&nh->ip.v6,
				ip, sizeof(ip));
	if (w >> 63)
		snprintf(mac, sizeof(mac), "%02x:%02x:%02x:%02x:%02x:%02x",
				(unsigned int)(w >> 40) & 0xff, (unsigned int)(w >> 32) & 0xff,
				(unsigned int)(w >> 24) & 0xff, (unsigned int)(w >> 16) & 0xff,
				(unsigned int)(w >> 8) & 0xff, (unsigned int)w & 0xff);
	snprintf(line, sizeof(line), "path %u port %u %s %s %s %s", i, nh->port, ip, mac,
			nh_state_name(nh->state), up ? "up" : "down");
	rte_tel_data_add_array_string(a, line);
	return strlen(line) + 3;
}

/* One route of the list into a (bytes of JSON it takes, about). */
static size_t
tel_route_one(struct rte_tel_data *a, const struct rtr_route_info *in)
{
	const struct rtr_route *r = tel_app->sw.route;
	const struct rtr_addr *p = &in->prefix;
	char ip[INET6_ADDRSTRLEN], pfx[INET6_ADDRSTRLEN + 8], what[RTE_TEL_MAX_STRING_LEN];
	static const char *const states[] = {"", " pending", " failed"};
	unsigned int idx = in->val & RTR_RT_INDEX_MASK;
	size_t b = 0;

	inet_ntop(p->family, p->family == AF_INET ? (const void *)&p->v4 : (const void *)&p->v6, ip,
			sizeof(ip));
	snprintf(pfx, sizeof(pfx), "%s/%u", ip, p->depth);
	rte_tel_data_add_array_string(a, pfx);
	snprintf(what, sizeof(what), "%s%s%s", rtr_route_src_name(in->src),
			states[in->state < 3 ? in->state : 0], in->stale ? " stale" : "");
	rte_tel_data_add_array_string(a, what);
	b += strlen(pfx) + strlen(what) + 6;
	if ((in->val & RTR_RT_KIND_MASK) == RTR_RT_GROUP && idx < r->n_groups) {
		const struct rtr_group *g = &r->groups[idx];
		uint64_t live = atomic_load(&g->live_mask);

		snprintf(what, sizeof(what), "group %u live 0x%" PRIx64, idx, live);
		rte_tel_data_add_array_string(a, what);
		for (unsigned int k = 0; k < g->n_paths; k++)
			if ((g->member >> k) & 1) /* slots left by a next hop: not shown */
				b += tel_route_path(a, k, g->nh[k], (live >> k) & 1);
	} else if ((in->val & RTR_RT_KIND_MASK) == RTR_RT_LOCAL) {
		snprintf(what, sizeof(what), "local port %u", idx);
		rte_tel_data_add_array_string(a, what);
	} else if ((in->val & RTR_RT_KIND_MASK) == RTR_RT_DROP) {
		snprintf(what, sizeof(what), "blackhole");
		rte_tel_data_add_array_string(a, what);
	} else {
		const struct rtr_nh *nh = rtr_neigh_nh(tel_app->sw.neigh, idx);

		rte_tel_data_add_array_string(a, "nexthop");
		b += tel_route_path(a, 0, idx, atomic_load(&tel_app->sw.ports[nh->port].link_up));
	}
	return b + strlen(what);
}

static int
tel_route_list(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct rtr_route *r = tel_app->sw.route;
	unsigned int start = 0, count = 0, bound, i;
	size_t bytes = 0;
	char *end;

	(void)cmd;
	if (!ready())
		return -EAGAIN;
	rtr_route_lock(r);
	bound = rtr_route_slots(r);
	if (params != NULL && *params != '\0') {
		unsigned long v = strtoul(params, &end, 10);

		if (*end != '\0' || v > bound) {
			rtr_route_unlock(r);
			return -EINVAL;
		}
		start = (unsigned int)v;
	}
	rte_tel_data_start_dict(d);
	for (i = start; i < bound && count < TEL_ROUTES_PAGE; i++) {
		struct rtr_route_info in;
		struct rte_tel_data *a;
		char key[32];
		size_t b;

		if (!rtr_route_get(r, i, &in))
			continue;
		a = rte_tel_data_alloc();
		if (a == NULL) {
			rtr_route_unlock(r);
			return -ENOMEM;
		}
		rte_tel_data_start_array(a, RTE_TEL_STRING_VAL);
		snprintf(key, sizeof(key), "route_%u", i);
		b = tel_route_one(a, &in) + strlen(key) + 40;
		if (count > 0 && bytes + b > TEL_ROUTES_BYTES) {
			rte_tel_data_free(a); /* on the next page */
			break;
		}
		bytes += b;
		if (rte_tel_data_add_dict_container(d, key, a, 0) != 0)
			rte_tel_data_free(a);
		count++;
	}
	while (i < bound && !rtr_route_get(r, i, &(struct rtr_route_info){0}))
		i++;
	add_u64(d, "start", start);
	add_u64(d, "count", count);
	add_u64(d, "total", rtr_route_count(r));
	rte_tel_data_add_dict_int(d, "next", i < bound ? (int)i : -1);
	rtr_route_unlock(r);
	return 0;
}

/* /rocetor/tap: the exception path's counters, per port with a tap. */
static int
tel_tap(const char *cmd, const char *params, struct rte_tel_data *d)
{
	(void)cmd;
	(void)params;
	if (!ready())
		return -EAGAIN;
	rte_tel_data_start_dict(d);
	for (unsigned int i = 0; i < tel_app->cfg.n_ports; i++) {
		const struct rtr_port_cfg *pc = &tel_app->cfg.ports[i];
		struct rtr_tap_counters c;
		struct rte_tel_data *p;
		char key[16];

		if (!rtr_tap_counters(tel_app, pc->port, &c) || (p = rte_tel_data_alloc()) == NULL)
			continue;
		rte_tel_data_start_dict(p);
		rte_tel_data_add_dict_string(p, "ifname", pc->ifname);
		add_u64(p, "to_kernel", c.to_kernel);
		add_u64(p, "to_kernel_dropped", c.to_kernel_dropped);
		add_u64(p, "from_kernel", c.from_kernel);
		add_u64(p, "from_kernel_dropped", c.from_kernel_dropped);
		snprintf(key, sizeof(key), "%u", pc->port);
		if (rte_tel_data_add_dict_container(d, key, p, 0) != 0)
			rte_tel_data_free(p);
	}
	return 0;
}

/* /rocetor/fpm: the FPM server (zebra's routes, doc/routing.md). */
static int
tel_fpm(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct rtr_fpm_status st;

	(void)cmd;
	(void)params;
	if (!ready())
		return -EAGAIN;
	rte_tel_data_start_dict(d);
	add_u64(d, "enabled", tel_app->fpm != NULL);
	if (tel_app->fpm == NULL)
		return 0;
	rtr_fpm_status(tel_app->fpm, &st);
	add_u64(d, "listening", st.listening);
	add_u64(d, "connected", st.connected);
	rte_tel_data_add_dict_string(d, "peer", st.peer);
	add_u64(d, "routes", st.fpm_routes);
	add_u64(d, "stale", st.stale);
#define FPM_C(k) add_u64(d, #k, st.c.k)
	FPM_C(connects);
	FPM_C(disconnects);
	FPM_C(frames);
	FPM_C(bad_frames);
	FPM_C(routes_set);
	FPM_C(routes_removed);
	FPM_C(nexthops);
	FPM_C(skipped_table);
	FPM_C(skipped_connected);
	FPM_C(skipped_linklocal);
	FPM_C(skipped_type);
	FPM_C(shadowed);
	FPM_C(no_port);
	FPM_C(nh_unresolved);
	FPM_C(refused);
	FPM_C(stale_swept);
#undef FPM_C
	rte_tel_data_add_dict_string(d, "last_error", st.last_error);
	return 0;
}

/* /rocetor/route/stats: what run-time route changes did, and the tables'
 * sizes. */
static int
tel_route_stats(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct rtr_route *r = tel_app->sw.route;
	struct rtr_route_counters c;
	unsigned int groups = 0;

	(void)cmd;
	(void)params;
	if (!ready())
		return -EAGAIN;
	rtr_route_lock(r);
	c = *rtr_route_counters(r);
	for (unsigned int g = 0; g < r->n_groups; g++)
		groups += r->groups[g].in_use;
	rte_tel_data_start_dict(d);
	add_u64(d, "routes", rtr_route_count(r));
	add_u64(d, "routes4", r->n_routes4);
	add_u64(d, "routes6", r->n_routes6);
	add_u64(d, "groups", groups);
	add_u64(d, "added", c.added);
	add_u64(d, "replaced", c.replaced);
	add_u64(d, "removed", c.removed);
	add_u64(d, "refused", c.refused);
	add_u64(d, "groups_in_place", c.groups_in_place);
	add_u64(d, "groups_new", c.groups_new);
	add_u64(d, "lpm6_swaps", c.lpm6_swaps);
	add_u64(d, "deferred_frees", c.deferred_frees);
	add_u64(d, "errors", c.errors);
	rtr_route_unlock(r);
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
	port = tel_app->port_ids[0];
	if (params != NULL && *params != '\0') {
		unsigned long v = strtoul(params, &end, 10);

		if (*end != '\0' || v >= RTR_MAX_PORTS || !tel_app->sw.ports[v].configured)
			return -EINVAL;
		port = (unsigned int)v;
	}
	rtr_app_egress_report(tel_app, (uint16_t)port, &r);
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

/* /rocetor/lb/buckets,G: the resilient bucket table of uplink group G
 * (default 0): how many buckets each path carries (n_buckets / n_paths each
 * while every path is live) and how many are off their home path (the flows
 * of down paths, ALGORITHMS.md 1). Read while the control lcore may update
 * it: a racy snapshot. */
static int
tel_lb_buckets(const char *cmd, const char *params, struct rte_tel_data *d)
{
	const struct rtr_route *r = tel_app->sw.route;
	unsigned int count[RTR_MAX_PATHS], moved = 0, g = 0;
	const struct rtr_group *grp;
	struct rte_tel_data *a;
	char *end;

	(void)cmd;
	if (!ready())
		return -EAGAIN;
	if (params != NULL && *params != '\0') {
		unsigned long v = strtoul(params, &end, 10);

		if (*end != '\0' || v >= r->n_groups)
			return -EINVAL;
		g = (unsigned int)v;
	} else if (r->n_groups == 0) {
		return -EINVAL;
	}
	grp = &r->groups[g];
	a = rte_tel_data_alloc();
	if (a == NULL)
		return -ENOMEM;
	rtr_group_bucket_counts(grp, count);
	for (unsigned int b = 0; b < grp->n_buckets; b++)
		moved += atomic_load_explicit(&grp->bucket[b], memory_order_relaxed) !=
			 b % grp->n_paths;
	rte_tel_data_start_dict(d);
	add_u64(d, "group", g);
	rte_tel_data_add_dict_string(d, "prefix", grp->name);
	add_u64(d, "live_mask", atomic_load(&grp->live_mask));
	add_u64(d, "n_buckets", grp->n_buckets);
	add_u64(d, "moved", moved);
	rte_tel_data_start_array(a, RTE_TEL_U64_VAL);
	for (unsigned int p = 0; p < grp->n_paths; p++)
		rte_tel_data_add_array_u64(a, count[p]);
	rte_tel_data_add_dict_container(d, "buckets", a, 0);
	return 0;
}

/*
 * /rocetor/counters: what each number of the replies above and of the
 * stats document is, served from the lists that define the counters (the
 * X-macros), so that no reader keeps its own copy (rocetor-exporter builds
 * its metrics from it). Without a parameter: the families and a line on
 * each; /rocetor/counters,FAMILY: {"family", "help": {name: help},
 * "type": {name: "counter" | "gauge"}} in the order rocetor writes them.
 */
static void
tel_counter(struct rte_tel_data *help, struct rte_tel_data *type, const char *name,
		enum rtr_counter_type t, const char *h)
{
	rte_tel_data_add_dict_string(help, name, h);
	rte_tel_data_add_dict_string(type, name, rtr_counter_type_names[t]);
}

static void
fam_stats(struct rte_tel_data *help, struct rte_tel_data *type)
{
#define TEL_STAT_DESC(n, t, h, v) tel_counter(help, type, #n, RTR_##t, h);
	TEL_STATS(TEL_STAT_DESC)
#undef TEL_STAT_DESC
}

static void
fam_drops(struct rte_tel_data *help, struct rte_tel_data *type)
{
	for (unsigned int i = 1; i < RTR_DROP_MAX; i++)
		tel_counter(help, type, rtr_drop_names[i], RTR_COUNTER, rtr_drop_help[i]);
}

static void
fam_ports(struct rte_tel_data *help, struct rte_tel_data *type)
{
	tel_counter(help, type, "link_up", RTR_GAUGE, "1 if the port's link is up");
#define TEL_PORT_DESC(n, t, h) tel_counter(help, type, #n, RTR_##t, h);
	RTR_PORT_COUNTERS(TEL_PORT_DESC)
#undef TEL_PORT_DESC
}

static void
fam_lb(struct rte_tel_data *help, struct rte_tel_data *type)
{
	/* An LB counter is a gauge when its help says "(gauge" (the rule of
	 * the lists in lib/lb/core/rtr_lb_core_counters.h and the modes'). */
	for (unsigned int i = 0; i < RTR_LBC_MAX; i++)
		tel_counter(help, type, rtr_lb_counter_names[i],
				strstr(rtr_lb_counter_help[i], "(gauge") != NULL ? RTR_GAUGE
										 : RTR_COUNTER,
				rtr_lb_counter_help[i]);
}

static void
fam_paths(struct rte_tel_data *help, struct rte_tel_data *type)
{
	tel_counter(help, type, "path_tx", RTR_COUNTER,
			"packets sent on each path of the uplink group (/rocetor/lb "
			"group_G_path_tx)");
	tel_counter(help, type, "live_mask", RTR_GAUGE,
			"whether each path of the uplink group is live (/rocetor/lb "
			"group_G_live_mask: bit i for path i)");
}

static void
fam_neigh(struct rte_tel_data *help, struct rte_tel_data *type)
{
#define TEL_NEIGH_DESC(n, h) tel_counter(help, type, #n, RTR_COUNTER, h);
	RTR_NEIGH_COUNTERS(TEL_NEIGH_DESC)
#undef TEL_NEIGH_DESC
}

static void
fam_egress(struct rte_tel_data *help, struct rte_tel_data *type)
{
#define TEL_EG_DESC(n, h) \
	tel_counter(help, type, #n, RTR_EGC_##n == RTR_EGC_max_depth ? RTR_GAUGE : RTR_COUNTER, h);
	RTR_EG_CLASS_COUNTERS(TEL_EG_DESC)
#undef TEL_EG_DESC
	tel_counter(help, type, "depth", RTR_GAUGE, "bytes queued in the class now");
	tel_counter(help, type, "pfc_paused_ns", RTR_COUNTER,
			"nanoseconds the class was paused by received PFC");
}

static void
fam_nic(struct rte_tel_data *help, struct rte_tel_data *type)
{
	tel_counter(help, type, "rx_nombuf", RTR_COUNTER,
			"frames the NIC lost for want of an mbuf (rte_eth_stats)");
	tel_counter(help, type, "imissed", RTR_COUNTER,
			"frames the NIC lost for want of an RX descriptor (rte_eth_stats)");
	tel_counter(help, type, "ierrors", RTR_COUNTER,
			"frames the NIC received in error (rte_eth_stats)");
	for (unsigned int c = 0; c < RTR_NIC_CTR_MAX; c++)
		tel_counter(help, type, rtr_nic_ctr_names[c], RTR_COUNTER, rtr_nic_ctr_help[c]);
}

static const struct tel_family {
	const char *name;
	const char *help;
	void (*fill)(struct rte_tel_data *help, struct rte_tel_data *type);
} tel_families[] = {
		{"stats", "the numbers of /rocetor/stats", fam_stats},
		{"drops",
				"packets dropped, by reason (/rocetor/stats drops, the stats "
				"document's "
				"drops)",
				fam_drops},
		{"ports", "per port (/rocetor/ports, the stats document's ports[])", fam_ports},
		{"lb", "LB counters (/rocetor/lb counters, the stats document's lb)", fam_lb},
		{"paths", "per path of an uplink group (/rocetor/lb)", fam_paths},
		{"neigh", "ARP, ND and ICMP echo (the stats document's neigh)", fam_neigh},
		{"egress",
				"per port and class (/rocetor/egress classN, the stats document's "
				"ports[].classes[])",
				fam_egress},
		{"nic",
				"per port, counted by the NIC (/rocetor/nic, the stats document's "
				"ports[])",
				fam_nic},
};

static int
tel_counters(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct rte_tel_data *help, *type;

	(void)cmd;
	help = rte_tel_data_alloc();
	type = rte_tel_data_alloc();
	if (help == NULL || type == NULL) {
		rte_tel_data_free(help);
		rte_tel_data_free(type);
		return -ENOMEM;
	}
	rte_tel_data_start_dict(d);
	rte_tel_data_start_dict(help);
	if (params == NULL || *params == '\0') {
		rte_tel_data_start_array(type, RTE_TEL_STRING_VAL);
		for (unsigned int i = 0; i < RTR_ARRAY_SIZE(tel_families); i++) {
			rte_tel_data_add_array_string(type, tel_families[i].name);
			rte_tel_data_add_dict_string(
					help, tel_families[i].name, tel_families[i].help);
		}
		rte_tel_data_add_dict_container(d, "families", type, 0);
		rte_tel_data_add_dict_container(d, "help", help, 0);
		return 0;
	}
	for (unsigned int i = 0; i < RTR_ARRAY_SIZE(tel_families); i++) {
		if (strcmp(params, tel_families[i].name) != 0)
			continue;
		rte_tel_data_start_dict(type);
		tel_families[i].fill(help, type);
		rte_tel_data_add_dict_string(d, "family", tel_families[i].name);
		rte_tel_data_add_dict_container(d, "help", help, 0);
		rte_tel_data_add_dict_container(d, "type", type, 0);
		return 0;
	}
	rte_tel_data_free(help);
	rte_tel_data_free(type);
	return -EINVAL;
}

/* ------------------------------------------------------------------ rw commands */

/* The answer of a command that changes state: {"ok": 1, ...} or
 * {"ok": 0, "error": why} (a clear message; a negative return would only
 * show null). */
static int
tel_refuse(struct rte_tel_data *d, const char *why)
{
	rte_tel_data_start_dict(d);
	add_u64(d, "ok", 0);
	rte_tel_data_add_dict_string(d, "error", why);
	return 0;
}

static bool
tel_writable(struct rte_tel_data *d)
{
	if (tel_app->telemetry_rw)
		return true;
	tel_refuse(d, "read-only telemetry: start rocetor with --telemetry-rw to allow this");
	return false;
}

/* The implemented modes, "a, b, c or d", for the help and usage texts. */
static const char *
tel_mode_list(char *buf, size_t len)
{
	char *last;

	rtr_lb_mode_list(buf, len, ", ", true);
	last = strrchr(buf, ',');
	if (last != NULL && strlen(last) + 2 < len - (size_t)(last - buf)) {
		memmove(last + 3, last + 1, strlen(last + 1) + 1);
		memcpy(last, " or", 3);
	}
	return buf;
}

/* /rocetor/lb/set,MODE: switch the LB mode at runtime (doc/user-guide.md). */
static int
tel_lb_set(const char *cmd, const char *params, struct rte_tel_data *d)
{
	char err[RTE_TEL_MAX_STRING_LEN], modes[RTE_TEL_MAX_STRING_LEN];
	const char *from;
	int64_t released;
	int mode;

	(void)cmd;
	if (!ready())
		return -EAGAIN;
	if (!tel_writable(d))
		return 0;
	if (params == NULL || *params == '\0') {
		snprintf(err, sizeof(err), "usage: /rocetor/lb/set,MODE (%s)",
				rtr_lb_mode_list(modes, sizeof(modes), ", ", true));
		return tel_refuse(d, err);
	}
	mode = rtr_lb_mode_find(params);
	if (mode < 0) {
		const char *near = rtr_lb_mode_suggest(params);

		snprintf(err, sizeof(err), "unknown LB mode%s%s%s (%s)",
				near != NULL ? ", did you mean " : "", near != NULL ? near : "",
				near != NULL ? "?" : "",
				rtr_lb_mode_list(modes, sizeof(modes), ", ", true));
		return tel_refuse(d, err);
	}
	from = tel_app->sw.lb->name;
	released = rtr_app_lb_switch(tel_app, (enum rtr_lb_mode)mode, err, sizeof(err));
	if (released < 0)
		return tel_refuse(d, err);
	rte_tel_data_start_dict(d);
	add_u64(d, "ok", 1);
	rte_tel_data_add_dict_string(d, "from", from);
	rte_tel_data_add_dict_string(d, "mode", tel_app->sw.lb->name);
	add_u64(d, "released", (uint64_t)released);
	add_u64(d, "lb_switches", atomic_load(&tel_app->sw.lb_switches));
	return 0;
}

/* /rocetor/route/add,SPEC and /rocetor/route/remove,PREFIX (rw): a route
 * change, made by the control lcore (the routes' one writer) at its next
 * poll; the command waits for its answer (doc/routing.md). */
#define TEL_ROUTE_WAIT_MS 2000

static int
tel_route_change(struct rte_tel_data *d, struct rtr_route_req *q)
{
	char pfx[INET6_ADDRSTRLEN + 8], ip[INET6_ADDRSTRLEN];
	int rc = rtr_route_mbox_call(&tel_app->sw.route_mbox, q, TEL_ROUTE_WAIT_MS);

	if (rc == 0 && q->rc == -EAGAIN) { /* group slots in their grace period */
		usleep(1000);
		rc = rtr_route_mbox_call(&tel_app->sw.route_mbox, q, TEL_ROUTE_WAIT_MS);
	}
	if (rc < 0)
		return tel_refuse(d, "the control lcore did not answer within 2 s (stopping?)");
	if (q->rc < 0)
		return tel_refuse(d, q->err);
	inet_ntop(q->prefix.family,
			q->prefix.family == AF_INET ? (const void *)&q->prefix.v4
						    : (const void *)&q->prefix.v6,
			ip, sizeof(ip));
	snprintf(pfx, sizeof(pfx), "%s/%u", ip, q->prefix.depth);
	rte_tel_data_start_dict(d);
	add_u64(d, "ok", 1);
	rte_tel_data_add_dict_string(d, "prefix", pfx);
	rte_tel_data_add_dict_string(d, "done", q->del ? "removed" : "set");
	add_u64(d, "pending", q->pending);
	return 0;
}

static int
tel_route_add(const char *cmd, const char *params, struct rte_tel_data *d)
{
	static struct rtr_route_req q; /* commands run one at a time (tel_lock) */
	char err[RTE_TEL_MAX_STRING_LEN];

	(void)cmd;
	if (!ready())
		return -EAGAIN;
	if (!tel_writable(d))
		return 0;
	memset(&q, 0, sizeof(q));
	if (params == NULL || rtr_route_parse_spec(params, &q.prefix, q.paths, &q.n_paths, err,
					      sizeof(err)) < 0) {
		char msg[RTE_TEL_MAX_STRING_LEN];

		snprintf(msg, sizeof(msg),
				"usage: /rocetor/route/add,PREFIX via ADDR port N ... (%.60s)",
				params == NULL ? "no route" : err);
		return tel_refuse(d, msg);
	}
	q.src = RTR_RS_API;
	return tel_route_change(d, &q);
}

static int
tel_route_del(const char *cmd, const char *params, struct rte_tel_data *d)
{
	static struct rtr_route_req q;

	(void)cmd;
	if (!ready())
		return -EAGAIN;
	if (!tel_writable(d))
		return 0;
	memset(&q, 0, sizeof(q));
	if (params == NULL || rtr_route_parse_prefix(params, &q.prefix) < 0)
		return tel_refuse(
				d, "usage: /rocetor/route/remove,PREFIX (a.b.c.d/len or x::/len)");
	q.del = true;
	return tel_route_change(d, &q);
}

/* /rocetor/port/admin,PORT,up|down: a port's admin state, as the config's
 * admin_down. The control plane applies it at its next poll (link state
 * poll): paths leave or rejoin their groups, workers drop what they queued
 * for a port that went down (port_down). */
static int
tel_port_admin(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct rtr_fwd_port *pr;
	unsigned long port;
	char *end;
	bool down;

	(void)cmd;
	if (!ready())
		return -EAGAIN;
	if (!tel_writable(d))
		return 0;
	if (params == NULL)
		return tel_refuse(d, "usage: /rocetor/port/admin,PORT,up|down");
	port = strtoul(params, &end, 10);
	if (end == params || *end != ',' || port >= RTR_MAX_PORTS ||
			!tel_app->sw.ports[port].configured)
		return tel_refuse(d, "usage: /rocetor/port/admin,PORT,up|down (a configured port)");
	if (strcmp(end + 1, "up") == 0)
		down = false;
	else if (strcmp(end + 1, "down") == 0)
		down = true;
	else
		return tel_refuse(d, "usage: /rocetor/port/admin,PORT,up|down");
	pr = &tel_app->sw.ports[port];
	atomic_store(&pr->admin_down, down);
	atomic_store(&pr->lsc_event, 1); /* re-read link state at the next poll */
	rte_tel_data_start_dict(d);
	add_u64(d, "ok", 1);
	add_u64(d, "port", port);
	rte_tel_data_add_dict_string(d, "admin", down ? "down" : "up");
	return 0;
}

/* ------------------------------------------------------------------ socket */

static int
owner_only(const char *path, mode_t want)
{
	struct stat st;

	if (chmod(path, want) != 0 || stat(path, &st) != 0) {
		fprintf(stderr, "rocetor: telemetry: cannot make %s owner-only: %s\n", path,
				strerror(errno));
		return -1;
	}
	if ((st.st_mode & 07777) != want) {
		fprintf(stderr, "rocetor: telemetry: %s is mode %04o, wanted %04o\n", path,
				(unsigned int)(st.st_mode & 07777), (unsigned int)want);
		return -1;
	}
	return 0;
}

int
rtr_telemetry_harden(const struct rtr_app *app)
{
	const char *dir = rte_eal_get_runtime_dir();
	char path[PATH_MAX];
	unsigned int n = 0;
	struct dirent *e;
	DIR *dh;
	int rc;

	if (dir == NULL || *dir == '\0')
		return 0;
	rc = owner_only(dir, 0700);
	dh = opendir(dir);
	if (dh == NULL)
		return -1;
	/* dpdk_telemetry.v2 and, when built, the legacy socket "telemetry". */
	while ((e = readdir(dh)) != NULL) {
		struct stat st;

		if (snprintf(path, sizeof(path), "%s/%s", dir, e->d_name) >= (int)sizeof(path) ||
				lstat(path, &st) != 0 || !S_ISSOCK(st.st_mode) ||
				(strncmp(e->d_name, "dpdk_telemetry", 14) != 0 &&
						strcmp(e->d_name, "telemetry") != 0))
			continue;
		if (owner_only(path, 0600) < 0)
			rc = -1;
		else
			n++;
	}
	closedir(dh);
	if (rc == 0)
		printf("rocetor: telemetry: %u socket%s in %s, owner-only (0600, directory 0700), "
		       "%s\n",
				n, n == 1 ? "" : "s", dir,
				app->telemetry_rw ? "read-write (--telemetry-rw)" : "read-only");
	return rc;
}

/* The help of /rocetor/lb/set, from the registry (tel_register). */
static char tel_lb_set_help[RTE_TEL_MAX_STRING_LEN];

static const struct tel_cmd {
	const char *path;
	telemetry_cb fn;
	const char *help;
} commands[] = {
		{"/rocetor/stats", tel_stats,
				"Switch totals: drops by reason, forwarded, consumed, held."},
		{"/rocetor/ports", tel_ports, "Per-port counters and link state."},
		{"/rocetor/nic", tel_nic,
				"Per-port NIC counters (rx_nombuf, imissed, ierrors, the driver's "
				"pause and discard xstats) and its capability entry."},
		{"/rocetor/lb", tel_lb, "LB mode, LB counters, per-path TX and live masks."},
		{"/rocetor/lb/flows", tel_lb_flows,
				"Per-flow LB state: the running mode's view of each flow (path, "
				"phase, held...). "
				"Parameter: max flows (default 16, at most 64)."},
		{"/rocetor/lb/buckets", tel_lb_buckets,
				"Resilient bucket table of an uplink group: buckets per path, "
				"buckets off home. "
				"Parameter: group (default 0)."},
		{"/rocetor/config", tel_config, "The running configuration (summary)."},
		{"/rocetor/route/list", tel_route_list,
				"Routes: prefix, source, kind (group live mask), each path's port, "
				"address, MAC, state. Parameter: first route."},
		{"/rocetor/tap", tel_tap,
				"The exception path: per port with a tap, frames given to the "
				"kernel "
				"and taken from it."},
		{"/rocetor/fpm", tel_fpm,
				"The FPM server: zebra's connection, the routes it gave, what was "
				"skipped and why (doc/routing.md)."},
		{"/rocetor/route/stats", tel_route_stats,
				"Route table sizes and what run-time changes did (added, removed, "
				"groups changed in place...)."},
		{"/rocetor/counters", tel_counters,
				"What each counter is: name, type (counter or gauge) and help, by "
				"family. Parameter: a family (none: the list of families)."},
		{"/rocetor/egress", tel_egress,
				"Egress of one port: per-class counters, depth, PFC. Parameter: "
				"port id."},
		{"/rocetor/lb/set", tel_lb_set, tel_lb_set_help},
		{"/rocetor/route/add", tel_route_add,
				"rw (--telemetry-rw): add or replace a route. Parameter: PREFIX "
				"via "
				"ADDR port N [via ADDR port N ...]."},
		{"/rocetor/route/remove", tel_route_del,
				"rw (--telemetry-rw): remove a run-time route. Parameter: PREFIX."},
		{"/rocetor/port/admin", tel_port_admin,
				"rw (--telemetry-rw): a port's admin state. Parameters: PORT,up or "
				"PORT,down."},
};

/*
 * Every command runs through here, under tel_lock: telemetry threads live
 * until the process ends, while the exit sequence frees what the commands
 * read (workers, their counters and LB states, the route table). Once
 * rtr_telemetry_close() has run, commands answer null (-EAGAIN).
 */
static pthread_mutex_t tel_lock = PTHREAD_MUTEX_INITIALIZER;
static bool tel_closed;

static int
tel_dispatch(const char *cmd, const char *params, struct rte_tel_data *d)
{
	int rc = -EAGAIN;

	pthread_mutex_lock(&tel_lock);
	for (unsigned int i = 0; i < RTR_ARRAY_SIZE(commands); i++) {
		if (strcmp(cmd, commands[i].path) != 0)
			continue;
		if (!tel_closed)
			rc = commands[i].fn(cmd, params, d);
		break;
	}
	pthread_mutex_unlock(&tel_lock);
	return rc;
}

void
rtr_telemetry_close(void)
{
	/* Waits for a command in progress (a runtime LB switch ends before
	 * the workers stop, see main_tick). */
	pthread_mutex_lock(&tel_lock);
	tel_closed = true;
	pthread_mutex_unlock(&tel_lock);
}

int
rtr_telemetry_register(struct rtr_app *app)
{
	char modes[RTE_TEL_MAX_STRING_LEN];
	int n;

	tel_app = app;
	/*
	 * DPDK 22.11 refuses a help of RTE_TEL_MAX_STRING_LEN characters or
	 * more, and a refused command would leave the later ones unregistered:
	 * a list of modes too long for it is left out.
	 */
	n = snprintf(tel_lb_set_help, sizeof(tel_lb_set_help),
			"rw (--telemetry-rw): switch the LB mode at runtime. Parameter: %s.",
			tel_mode_list(modes, sizeof(modes)));
	if (n < 0 || (size_t)n >= sizeof(tel_lb_set_help))
		snprintf(tel_lb_set_help, sizeof(tel_lb_set_help),
				"rw (--telemetry-rw): switch the LB mode at runtime. Parameter: a "
				"mode "
				"(rocetor --help lists them).");
	for (unsigned int i = 0; i < RTR_ARRAY_SIZE(commands); i++) {
		int rc = rte_telemetry_register_cmd(
				commands[i].path, tel_dispatch, commands[i].help);

		if (rc < 0) {
			fprintf(stderr, "rocetor: telemetry %s: %s\n", commands[i].path,
					strerror(-rc));
			return rc;
		}
	}
	return 0;
}

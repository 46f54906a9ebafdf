/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * The stats document (DESIGN.md B5): the per-lcore counters summed (never
 * written), the ports' egress reports and NIC losses, the groups and the
 * neighbour table, handed to lib/stats to write as JSON. Telemetry,
 * --stats-interval and --stats-json all read it from here.
 */

#include <string.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_malloc.h>
#include <rte_mempool.h>

#include "nic.h"
#include "stats_doc.h"

void
rtr_app_stats(struct rtr_app *app, struct rtr_lcore_stats *sum)
{
	/* Local list: telemetry and the control lcore may sum at the same time. */
	struct rtr_lcore_stats *list[RTR_MAX_LCORES + 1];
	unsigned int n = 0;

	for (unsigned int i = 0; i < app->sw.n_workers; i++)
		list[n++] = app->sw.workers[i]->stats;
	list[n++] = app->sw.ctrl_stats;
	rtr_stats_sum(list, n, rtr_lb_counter_max, rtr_lb_counter_n_max, sum);
	rtr_pipeline_flow_counters(&app->sw, sum);
}

void
rtr_app_egress_report(struct rtr_app *app, uint16_t port, struct rtr_eg_port_report *r)
{
	struct rtr_switch *sw = &app->sw;
	struct rtr_egress *egs[RTR_MAX_LCORES];
	uint64_t now_ns = rtr_tsc_to_ns(sw, rte_rdtsc());

	for (unsigned int i = 0; i < sw->n_workers; i++)
		egs[i] = sw->workers[i]->eg;
	if (sw->egress == NULL) {
		memset(r, 0, sizeof(*r));
		return;
	}
	rtr_egress_report(egs, sw->n_workers, sw->egress, port, now_ns, r);
}

void
rtr_app_nic_snapshot(struct rtr_app *app)
{
	for (unsigned int i = 0; i < app->n_cfg_ports; i++) {
		struct rte_eth_stats es;

		if (rte_eth_stats_get(app->port_ids[i], &es) == 0) {
			app->nic_rx_nombuf[i] = es.rx_nombuf;
			app->nic_imissed[i] = es.imissed;
			app->nic_ierrors[i] = es.ierrors;
		}
	}
	rtr_nic_snapshot(app);
}

/* The egress report of the document's port i (its members). */
static void
port_egress_json(struct rtr_json *w, unsigned int i, void *arg)
{
	struct rtr_app *app = arg;
	struct rtr_eg_port_report rep;

	/* The driver's pause / discard xstats, where it has them (app/nic.c),
	 * beside the NIC counters; then the egress report. */
	rtr_nic_json(w, app, i);
	rtr_app_egress_report(app, app->port_ids[i], &rep);
	rtr_egress_report_json(w, &rep);
}

/* The shared buffer (qos.buffer; doc/counters.md "buffer"). */
static void
buffer_json(struct rtr_json *w, void *arg)
{
	struct rtr_app *app = arg;
	struct rtr_switch *sw = &app->sw;
	struct rtr_egress *egs[RTR_MAX_LCORES];
	struct rtr_eg_buffer_report r;

	for (unsigned int i = 0; i < sw->n_workers; i++)
		egs[i] = sw->workers[i]->eg;
	rtr_egress_buffer_report(egs, sw->n_workers, sw->egress, &r);
	rtr_egress_buffer_json(w, &r);
}

void
rtr_app_write_stats(struct rtr_app *app, FILE *f)
{
	static const char *const neigh_names[] = {
#define NEIGH_NAME(n, d) #n,
			RTR_NEIGH_COUNTERS(NEIGH_NAME)
#undef NEIGH_NAME
	};
	uint64_t neigh_values[RTR_ARRAY_SIZE(neigh_names)];
	const char *roles[RTR_MAX_PORTS], *group_names[RTR_STATS_GROUPS];
	uint16_t group_paths[RTR_STATS_GROUPS];
	uint16_t group_ports[RTR_STATS_GROUPS][RTR_MAX_PATHS];
	uint8_t up[RTR_MAX_PORTS];
	struct rtr_lcore_stats *sum = rte_zmalloc(NULL, sizeof(*sum), 64);
	struct rtr_switch *sw = &app->sw;
	struct rtr_stats_doc doc;
	unsigned int i;

	if (sum == NULL)
		return;
	rtr_app_stats(app, sum);
	memset(&doc, 0, sizeof(doc));
	doc.switch_name = app->cfg.sw.name;
	doc.lb = sw->lb->name;
	doc.lb_names = rtr_lb_counter_names;
	doc.n_lb = RTR_LBC_MAX;
	doc.uptime_s = (double)(rte_rdtsc() - app->start_tsc) / (double)sw->tsc_hz;
	doc.worker_cpu_s = rtr_workers_cpu_s(sw);
	doc.n_ports = app->n_cfg_ports;
	doc.port_ids = app->port_ids;
	for (i = 0; i < app->n_cfg_ports; i++) {
		roles[i] = sw->ports[app->port_ids[i]].role == RTR_PORT_HOST ? "host" : "fabric";
		up[i] = atomic_load(&sw->ports[app->port_ids[i]].link_up);
	}
	doc.port_roles = roles;
	doc.port_up = up;
	if (!app->nic_closed)
		rtr_app_nic_snapshot(app);
	doc.port_rx_nombuf = app->nic_rx_nombuf;
	doc.port_imissed = app->nic_imissed;
	doc.port_ierrors = app->nic_ierrors;
	doc.port_extra = port_egress_json;
	doc.port_extra_arg = app;
	doc.n_groups = RTE_MIN(sw->route->n_groups, (unsigned int)RTR_STATS_GROUPS);
	for (i = 0; i < doc.n_groups; i++) {
		group_names[i] = sw->route->groups[i].name;
		group_paths[i] = sw->route->groups[i].n_paths;
		memcpy(group_ports[i], sw->route->groups[i].port, sizeof(group_ports[i]));
	}
	doc.group_names = group_names;
	doc.group_paths = group_paths;
	doc.group_ports = (const uint16_t(*)[RTR_MAX_PATHS])group_ports;
	memcpy(neigh_values, rtr_neigh_stats(sw->neigh), sizeof(neigh_values));
	doc.n_neigh = RTR_ARRAY_SIZE(neigh_names);
	doc.neigh_names = neigh_names;
	doc.neigh_values = neigh_values;
	doc.held_packets = rtr_pipeline_held(sw);
	doc.mempool_in_use = rtr_switch_pool_in_use(sw);
	doc.mempool_baseline = app->mempool_baseline;
	doc.mempool_in_use_stopped = app->mempool_stopped;
	doc.lb_switches = atomic_load(&sw->lb_switches);
	doc.doc_extra = buffer_json;
	doc.doc_extra_arg = app;
	if (rtr_stats_write_json(f, &doc, sum) < 0)
		fprintf(stderr, "rocetor: the stats document was not written in full\n");
	fflush(f);
	rte_free(sum);
}

/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include <rte_common.h>

#include "rtr_json.h"
#include "rtr_stats.h"

const char *const rtr_stage_names[RTR_STAGE_MAX] = {
#define RTR_STAGE_NAME(n) [RTR_STAGE_##n] = #n,
		RTR_STAGES(RTR_STAGE_NAME)
#undef RTR_STAGE_NAME
};

const char *const rtr_counter_type_names[2] = {"counter", "gauge"};

void
rtr_stats_sum(struct rtr_lcore_stats *const *lcores, unsigned int n, const uint16_t *lb_max,
		unsigned int n_lb_max, struct rtr_lcore_stats *out)
{
	/* The struct is all uint64_t; summing it as an array keeps this in step
	 * with any counter added later. */
	const unsigned int words = sizeof(*out) / sizeof(uint64_t);
	uint64_t *o = (uint64_t *)out;

	memset(out, 0, sizeof(*out));
	for (unsigned int l = 0; l < n; l++) {
		const volatile uint64_t *s = (const volatile uint64_t *)lcores[l];

		if (s == NULL)
			continue;
		for (unsigned int w = 0; w < words; w++)
			o[w] += s[w];
	}
	/* Gauges that are maxima: the largest value of any lcore, not the sum. */
	for (unsigned int g = 0; g < n_lb_max; g++) {
		uint64_t *o_g;

		if (lb_max[g] >= RTR_STATS_LB_SLOTS)
			continue;
		o_g = &out->lb[lb_max[g]];
		*o_g = 0;
		for (unsigned int l = 0; l < n; l++)
			if (lcores[l] != NULL)
				*o_g = RTE_MAX(*o_g, lcores[l]->lb[lb_max[g]]);
	}
}

int
rtr_stats_write_json(FILE *f, const struct rtr_stats_doc *doc, const struct rtr_lcore_stats *s)
{
	uint64_t total_drops = 0;
	struct rtr_json w;
	unsigned int i, p;

	rtr_json_init(&w, f);
	/* DESIGN.md B5 names the mode "lb" and the LB counters "lb" too; both
	 * are written as the contract shows, and "lb_mode" repeats the mode
	 * because JSON readers keep only the last of two equal keys. The line
	 * breaks are part of the layout scripts see: the document starts a
	 * line with {"switch" (tools/bench finds --stats-interval documents
	 * so). */
	rtr_json_obj(&w);
	rtr_json_kv_str(&w, "switch", doc->switch_name);
	rtr_json_kv_str(&w, "lb", doc->lb);
	rtr_json_kv_str(&w, "lb_mode", doc->lb);
	rtr_json_kv_fixed(&w, "uptime_s", doc->uptime_s, 3);
	rtr_json_break(&w, 1);
	rtr_json_key(&w, "ports");
	rtr_json_arr(&w);
	for (i = 0; i < doc->n_ports; i++) {
		const struct rtr_port_counters *c = &s->port[doc->port_ids[i]];

		rtr_json_break(&w, 2);
		rtr_json_obj(&w);
		rtr_json_kv_u64(&w, "port", doc->port_ids[i]);
		rtr_json_kv_str(&w, "role", doc->port_roles[i]);
		rtr_json_kv_bool(&w, "link_up", doc->port_up[i] != 0);
#define PORT_COUNTER(n, t, h)                           \
	if (RTR_PORTC_##n == RTR_PORTC_host_b4_cleared) \
		rtr_json_break(&w, 3);                  \
	rtr_json_kv_u64(&w, #n, c->n);
		RTR_PORT_COUNTERS(PORT_COUNTER)
#undef PORT_COUNTER
		if (doc->port_rx_nombuf != NULL && doc->port_imissed != NULL) {
			rtr_json_kv_u64(&w, "rx_nombuf", doc->port_rx_nombuf[i]);
			rtr_json_kv_u64(&w, "imissed", doc->port_imissed[i]);
			if (doc->port_ierrors != NULL)
				rtr_json_kv_u64(&w, "ierrors", doc->port_ierrors[i]);
		}
		if (doc->port_extra != NULL) {
			rtr_json_break(&w, 3);
			doc->port_extra(&w, i, doc->port_extra_arg);
		}
		rtr_json_obj_end(&w);
	}
	rtr_json_arr_end(&w);
	rtr_json_break(&w, 1);
	rtr_json_key(&w, "drops");
	rtr_json_obj(&w);
	for (i = 1; i < RTR_DROP_MAX; i++) {
		rtr_json_kv_u64(&w, rtr_drop_names[i], s->drops[i]);
		total_drops += s->drops[i];
	}
	rtr_json_obj_end(&w);
	rtr_json_break(&w, 1);
	rtr_json_key(&w, "lb");
	rtr_json_obj(&w);
	for (i = 0; i < doc->n_lb && i < RTR_STATS_LB_SLOTS; i++)
		rtr_json_kv_u64(&w, doc->lb_names[i], s->lb[i]);
	rtr_json_obj_end(&w);
	rtr_json_break(&w, 1);
	rtr_json_key(&w, "paths");
	rtr_json_arr(&w);
	for (i = 0; i < doc->n_groups && i < RTR_STATS_GROUPS; i++) {
		rtr_json_break(&w, 2);
		rtr_json_obj(&w);
		rtr_json_kv_u64(&w, "group", i);
		rtr_json_kv_str(&w, "prefix", doc->group_names[i]);
		rtr_json_key(&w, "tx_packets");
		rtr_json_arr(&w);
		for (p = 0; p < doc->group_paths[i]; p++)
			rtr_json_u64(&w, s->path_tx[i][p]);
		rtr_json_arr_end(&w);
		rtr_json_key(&w, "ports");
		rtr_json_arr(&w);
		for (p = 0; p < doc->group_paths[i]; p++)
			rtr_json_u64(&w, doc->group_ports[i][p]);
		rtr_json_arr_end(&w);
		rtr_json_obj_end(&w);
	}
	rtr_json_arr_end(&w);
	rtr_json_break(&w, 1);
	rtr_json_key(&w, "neigh");
	rtr_json_obj(&w);
	for (i = 0; i < doc->n_neigh; i++)
		rtr_json_kv_u64(&w, doc->neigh_names[i], doc->neigh_values[i]);
	rtr_json_obj_end(&w);
	rtr_json_break(&w, 1);
	rtr_json_kv_fixed(&w, "busy_cycles_per_packet",
			s->busy_packets ? (double)s->busy_cycles / (double)s->busy_packets : 0.0,
			1);
	if (doc->worker_cpu_s >= 0)
		rtr_json_kv_fixed(&w, "worker_cpu_s", doc->worker_cpu_s, 6);
	else
		rtr_json_kv_str(&w, "worker_cpu_s", NULL);
	rtr_json_key(&w, "stage_cycles");
	rtr_json_obj(&w);
	for (i = 0; i < RTR_STAGE_MAX; i++)
		rtr_json_kv_fixed(&w, rtr_stage_names[i],
				s->stage_packets ? (double)s->stage_cycles[i] /
								   (double)s->stage_packets
						 : 0.0,
				1);
	rtr_json_kv_u64(&w, "sampled_packets", s->stage_packets);
	rtr_json_obj_end(&w);
	rtr_json_break(&w, 1);
	rtr_json_kv_u64(&w, "forwarded", s->forwarded);
	rtr_json_kv_u64(&w, "consumed", s->consumed);
	rtr_json_kv_u64(&w, "originated", s->originated);
	rtr_json_kv_u64(&w, "originated_dropped", s->originated_dropped);
	rtr_json_kv_u64(&w, "dropped", total_drops);
	rtr_json_break(&w, 1);
	rtr_json_kv_u64(&w, "handoff_tx", s->handoff_tx);
	rtr_json_kv_u64(&w, "handoff_rx", s->handoff_rx);
	rtr_json_kv_u64(&w, "idle_sleeps", s->idle_sleeps);
	rtr_json_kv_u64(&w, "fault_stalls", s->fault_stalls);
	rtr_json_break(&w, 1);
	rtr_json_kv_u64(&w, "lb_switches", doc->lb_switches);
	rtr_json_kv_u64(&w, "lb_switch_released", s->lb_switch_released);
	rtr_json_break(&w, 1);
	rtr_json_kv_u64(&w, "held_packets", doc->held_packets);
	rtr_json_kv_u64(&w, "mempool_in_use", doc->mempool_in_use);
	rtr_json_break(&w, 1);
	rtr_json_kv_u64(&w, "mempool_baseline", doc->mempool_baseline);
	if (doc->mempool_in_use_stopped < 0)
		rtr_json_kv_str(&w, "mempool_in_use_stopped", NULL);
	else
		rtr_json_kv_i64(&w, "mempool_in_use_stopped", doc->mempool_in_use_stopped);
	if (doc->doc_extra != NULL) {
		rtr_json_break(&w, 1);
		doc->doc_extra(&w, doc->doc_extra_arg);
	}
	rtr_json_obj_end(&w);
	return rtr_json_finish(&w);
}

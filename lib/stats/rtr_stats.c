/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include <rte_common.h>

#include "rtr_stats.h"

const char *const rtr_stage_names[RTR_STAGE_MAX] = {
#define RTR_STAGE_NAME(n) [RTR_STAGE_##n] = #n,
		RTR_STAGES(RTR_STAGE_NAME)
#undef RTR_STAGE_NAME
};

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
	unsigned int i, p;

	/* DESIGN.md B5 names the mode "lb" and the LB counters "lb" too; both
	 * are written as the contract shows, and "lb_mode" repeats the mode
	 * because JSON readers keep only the last of two equal keys. */
	fprintf(f,
			"{\"switch\": \"%s\", \"lb\": \"%s\", \"lb_mode\": \"%s\", \"uptime_s\": "
			"%.3f,\n",
			doc->switch_name, doc->lb, doc->lb, doc->uptime_s);
	fprintf(f, " \"ports\": [");
	for (i = 0; i < doc->n_ports; i++) {
		const struct rtr_port_counters *c = &s->port[doc->port_ids[i]];

		fprintf(f,
				"%s\n  {\"port\": %u, \"role\": \"%s\", \"link_up\": %s, "
				"\"rx_packets\": %" PRIu64 ", \"tx_packets\": %" PRIu64
				", \"rx_bytes\": %" PRIu64 ", \"tx_bytes\": %" PRIu64
				", \"drops\": %" PRIu64 ", \"ecn_marked\": %" PRIu64
				",\n   \"host_b4_cleared\": %" PRIu64 ", \"flow_entries\": %" PRIu64
				", \"flow_limit_share\": %" PRIu64
				", \"flow_limit_rate\": %" PRIu64,
				i ? "," : "", doc->port_ids[i], doc->port_roles[i],
				doc->port_up[i] ? "true" : "false", c->rx_packets, c->tx_packets,
				c->rx_bytes, c->tx_bytes, c->drops, c->ecn_marked,
				c->host_b4_cleared, c->flow_entries, c->flow_limit_share,
				c->flow_limit_rate);
		if (doc->port_rx_nombuf != NULL && doc->port_imissed != NULL)
			fprintf(f, ", \"rx_nombuf\": %" PRIu64 ", \"imissed\": %" PRIu64,
					doc->port_rx_nombuf[i], doc->port_imissed[i]);
		if (doc->port_extra && doc->port_extra[i])
			fprintf(f, ",\n   %s", doc->port_extra[i]);
		fputc('}', f);
	}
	fprintf(f, "],\n \"drops\": {");
	for (i = 1; i < RTR_DROP_MAX; i++) {
		fprintf(f, "%s\"%s\": %" PRIu64, i > 1 ? ", " : "", rtr_drop_names[i], s->drops[i]);
		total_drops += s->drops[i];
	}
	fprintf(f, "},\n \"lb\": {");
	for (i = 0; i < doc->n_lb && i < RTR_STATS_LB_SLOTS; i++)
		fprintf(f, "%s\"%s\": %" PRIu64, i ? ", " : "", doc->lb_names[i], s->lb[i]);
	fprintf(f, "},\n \"paths\": [");
	for (i = 0; i < doc->n_groups && i < RTR_STATS_GROUPS; i++) {
		fprintf(f, "%s\n  {\"group\": %u, \"prefix\": \"%s\", \"tx_packets\": [",
				i ? "," : "", i, doc->group_names[i]);
		for (p = 0; p < doc->group_paths[i]; p++)
			fprintf(f, "%s%" PRIu64, p ? ", " : "", s->path_tx[i][p]);
		fprintf(f, "], \"ports\": [");
		for (p = 0; p < doc->group_paths[i]; p++)
			fprintf(f, "%s%u", p ? ", " : "", doc->group_ports[i][p]);
		fprintf(f, "]}");
	}
	fprintf(f, "],\n \"neigh\": {");
	for (i = 0; i < doc->n_neigh; i++)
		fprintf(f, "%s\"%s\": %" PRIu64, i ? ", " : "", doc->neigh_names[i],
				doc->neigh_values[i]);
	fprintf(f, "},\n \"busy_cycles_per_packet\": %.1f, ",
			s->busy_packets ? (double)s->busy_cycles / (double)s->busy_packets : 0.0);
	if (doc->worker_cpu_s >= 0)
		fprintf(f, "\"worker_cpu_s\": %.6f, ", doc->worker_cpu_s);
	else
		fprintf(f, "\"worker_cpu_s\": null, ");
	fprintf(f, "\"stage_cycles\": {");
	for (i = 0; i < RTR_STAGE_MAX; i++)
		fprintf(f, "%s\"%s\": %.1f", i ? ", " : "", rtr_stage_names[i],
				s->stage_packets ? (double)s->stage_cycles[i] /
								   (double)s->stage_packets
						 : 0.0);
	fprintf(f, ", \"sampled_packets\": %" PRIu64, s->stage_packets);
	fprintf(f,
			"},\n \"forwarded\": %" PRIu64 ", \"consumed\": %" PRIu64
			", \"originated\": %" PRIu64 ", \"originated_dropped\": %" PRIu64
			", \"dropped\": %" PRIu64 ",\n \"handoff_tx\": %" PRIu64
			", \"handoff_rx\": %" PRIu64 ", \"idle_sleeps\": %" PRIu64
			", \"fault_stalls\": %" PRIu64 ",\n \"lb_switches\": %" PRIu64
			", \"lb_switch_released\": %" PRIu64 ",\n \"held_packets\": %" PRIu64
			", \"mempool_in_use\": %" PRIu64 ",\n \"mempool_baseline\": %" PRIu64,
			s->forwarded, s->consumed, s->originated, s->originated_dropped,
			total_drops, s->handoff_tx, s->handoff_rx, s->idle_sleeps, s->fault_stalls,
			doc->lb_switches, s->lb_switch_released, doc->held_packets,
			doc->mempool_in_use, doc->mempool_baseline);
	if (doc->mempool_in_use_stopped < 0)
		fprintf(f, ", \"mempool_in_use_stopped\": null}\n");
	else
		fprintf(f, ", \"mempool_in_use_stopped\": %" PRId64 "}\n",
				doc->mempool_in_use_stopped);
	return ferror(f) ? -EIO : 0;
}

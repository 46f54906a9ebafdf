/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * The `spray:` section as the schema engine reads it. Nothing here needs
 * EAL: the loader runs in unit tests and fuzzers without it.
 */
#include <stdint.h>

#include <rte_common.h>

#include "rtr_cfg_schema.h"
#include "rtr_config.h"
#include "spray/spray_config.h"

/* Timeouts: 100 ms is far beyond any datacenter path skew; a gap held
 * longer than that only delays the RNIC's own go-back-N recovery. */
#define SP_US_MAX 100000

static int
spray_check(struct rtr_cfg_ctx *c, const struct cfg_node *node, int line,
		const struct cfg_path *path, void *base)
{
	const struct rtr_config *cfg = rtr_cfg_config(c);
	struct rtr_spray_cfg *sp = base;

	/* A window is indexed by seq % W with a mask. */
	if (!rte_is_power_of_2(sp->window_slots))
		return rtr_cfg_error(c, rtr_cfg_rule_line(node, line, "window_slots", NULL, NULL),
				path, "window_slots", "must be a power of two, got %u",
				sp->window_slots);
	if (sp->timeout_min_us > sp->timeout_max_us)
		return rtr_cfg_error(c,
				rtr_cfg_rule_line(node, line, "timeout_min_us", "timeout_max_us",
						NULL),
				path, "timeout_min_us",
				"must not exceed timeout_max_us (%u), got %u", sp->timeout_max_us,
				sp->timeout_min_us);
	/* The switch section is read first. A pool no larger than what the
	 * windows may hold leaves nothing for RX: the NIC would starve. */
	if (sp->hold_budget != 0 && cfg->sw.mbufs != 0 && sp->hold_budget >= cfg->sw.mbufs)
		return rtr_cfg_error(c, rtr_cfg_rule_line(node, line, "hold_budget", NULL, NULL),
				path, "hold_budget",
				"must be below switch.mbufs (%u): the pool also fills the RX "
				"rings, got %u",
				cfg->sw.mbufs, sp->hold_budget);
	return 0;
}

static const struct rtr_cfg_field spray_fields[] = {
		RTR_CFG_UINT("flow_table_size", struct rtr_spray_cfg, flow_table_size, 1024,
				16777216, 1048576),
		/* 40 us of skew at 100 Gb/s of 1 KB packets is 500 numbers. */
		RTR_CFG_UINT("window_slots", struct rtr_spray_cfg, window_slots, 2, 4096, 1024),
		/* A flow stores its window's index in 16 bits, 0xffff meaning
		 * none. */
		/* As many flows holding packets at once as ConWeave's reorder
		 * queues per port (4096): with one uplink at a quarter of the
		 * speed and 80% load the simulator's busiest ToR had 956 at
		 * p99.9, and 256 overflowed 743,000 times (doc/spray.md). */
		RTR_CFG_UINT("windows_per_worker", struct rtr_spray_cfg, windows_per_worker, 1,
				65535, 4096),
		RTR_CFG_UINT("timeout_us", struct rtr_spray_cfg, timeout_us, 0, SP_US_MAX, 0),
		RTR_CFG_UINT("timeout_min_us", struct rtr_spray_cfg, timeout_min_us, 1, SP_US_MAX,
				10),
		RTR_CFG_UINT("timeout_max_us", struct rtr_spray_cfg, timeout_max_us, 1, SP_US_MAX,
				500),
		RTR_CFG_UINT("timeout_margin_us", struct rtr_spray_cfg, timeout_margin_us, 0,
				SP_US_MAX, 5),
		RTR_CFG_UINT("hold_budget", struct rtr_spray_cfg, hold_budget, 0, 16777216, 0),
		RTR_CFG_UINT("queue_slack", struct rtr_spray_cfg, queue_slack, 0, 1000000, 8),
		RTR_CFG_UINT("busy_us", struct rtr_spray_cfg, busy_us, 0, SP_US_MAX, 16),
		RTR_CFG_UINT("dst_prefix_len", struct rtr_spray_cfg, dst_prefix_len, 0, 32, 24),
		RTR_CFG_UINT("dst_prefix_len6", struct rtr_spray_cfg, dst_prefix_len6, 0, 128, 64),
};

_Static_assert(sizeof(struct rtr_spray_cfg) <= RTR_LB_CFG_SIZE, "section too large");

const struct rtr_cfg_section rtr_spray_section =
		RTR_CFG_SECTION(struct rtr_spray_cfg, spray_fields, spray_check);

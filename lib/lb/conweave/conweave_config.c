/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * The `conweave:` section as the schema engine reads it. Nothing here needs
 * EAL: the loader runs in unit tests and fuzzers without it.
 */
#include <inttypes.h>
#include <stdint.h>

#include "rtr_cfg_schema.h"
#include "rtr_config.h"
#include "rtr_cw_bounds.h"
#include "conweave/conweave_config.h"

/* ConWeave stamps 16-bit timestamps in 1.024 us units: 65.5 ms wrap, and
 * differences are only unambiguous below half of it.
 */
#define CW_US_MAX 31999
#define CW_US_WHY "below 32000: half the 16-bit timestamp wrap"
#define CW_US(k, m, lo, d) \
	RTR_CFG_UINT(k, struct rtr_conweave_cfg, m, lo, CW_US_MAX, d, .why = CW_US_WHY)

static int
conweave_check(struct rtr_cfg_ctx *c, const struct cfg_node *node, int line,
		const struct cfg_path *path, void *base)
{
	const struct rtr_config *cfg = rtr_cfg_config(c);
	struct rtr_conweave_cfg *cw = base;
	/* The longest hold, as the DstToR's hold code applies it. */
	uint64_t hold = rtr_cw_bound_hold_ns((uint64_t)cw->resume_default_us * 1000,
					(uint64_t)cw->resume_extra_us * 1000) /
			1000;
	uint64_t floor = cw->base_rtt_us + hold;

	/*
	 * An idle flow's new epoch (and its idle move) must not start while
	 * the DstToR may still hold packets of the last one: holds end within
	 * the longest hold of their first packet's arrival (resume_default +
	 * resume_extra), and base_rtt covers the paths' difference in delay.
	 */
	if (cw->theta_inactive_us <= floor)
		return rtr_cfg_error(c,
				rtr_cfg_rule_line(node,
						rtr_cfg_rule_line(node, line, "resume_default_us",
								"base_rtt_us", NULL),
						"theta_inactive_us", "resume_extra_us", NULL),
				path, "theta_inactive_us",
				"must exceed base_rtt_us + the longest reorder hold "
				"(resume_default_us + resume_extra_us): %u + %u + %u = %" PRIu64
				", got %u",
				cw->base_rtt_us, cw->resume_default_us, cw->resume_extra_us, floor,
				cw->theta_inactive_us);
	/* The same for a new epoch started because the CLEAR did not come. */
	if (cw->clear_timeout_us != 0 && cw->clear_timeout_us <= floor)
		return rtr_cfg_error(c,
				rtr_cfg_rule_line(node, line, "clear_timeout_us", NULL, NULL), path,
				"clear_timeout_us",
				"must be 0 (derived) or exceed base_rtt_us + the longest reorder "
				"hold "
				"(resume_default_us + resume_extra_us): %u + %u + %u = %" PRIu64
				", got %u",
				cw->base_rtt_us, cw->resume_default_us, cw->resume_extra_us, floor,
				cw->clear_timeout_us);
	/* The switch section is read first. A pool no larger than what the
	 * rings may hold leaves nothing for RX: the NIC would starve. */
	if (cw->hold_budget != 0 && cfg->sw.mbufs != 0 && cw->hold_budget >= cfg->sw.mbufs)
		return rtr_cfg_error(c, rtr_cfg_rule_line(node, line, "hold_budget", NULL, NULL),
				path, "hold_budget",
				"must be below switch.mbufs (%u): the pool also fills the RX "
				"rings, "
				"got %u",
				cfg->sw.mbufs, cw->hold_budget);
	return 0;
}

static const struct rtr_cfg_field conweave_fields[] = {
		CW_US("base_rtt_us", base_rtt_us, 0, 4),
		CW_US("theta_reply_us", theta_reply_us, 1, 4),
		CW_US("theta_path_busy_us", theta_path_busy_us, 1, 16),
		CW_US("theta_inactive_us", theta_inactive_us, 1, 300),
		CW_US("resume_extra_us", resume_extra_us, 0, 16),
		CW_US("resume_default_us", resume_default_us, 1, 200),
		/* A flow stores its ring's index in 16 bits and 0xffff means
		 * "no ring", so 65535 rings (indices 0..65534) at most. */
		RTR_CFG_UINT("reorder_queues_per_port", struct rtr_conweave_cfg,
				reorder_queues_per_port, 1, 65535, 1024),
		RTR_CFG_UINT("reorder_queue_depth", struct rtr_conweave_cfg, reorder_queue_depth, 1,
				65535, 2048),
		RTR_CFG_UINT("flow_table_size", struct rtr_conweave_cfg, flow_table_size, 1024,
				16777216, 1048576),
		RTR_CFG_UINT("dst_prefix_len", struct rtr_conweave_cfg, dst_prefix_len, 0, 32, 24),
		RTR_CFG_UINT("dst_prefix_len6", struct rtr_conweave_cfg, dst_prefix_len6, 0, 128,
				64),
		CW_US("clear_timeout_us", clear_timeout_us, 0, 0),
		RTR_CFG_UINT("hold_budget", struct rtr_conweave_cfg, hold_budget, 0, 16777216, 0),
};

_Static_assert(sizeof(struct rtr_conweave_cfg) <= RTR_LB_CFG_SIZE, "section too large");

const struct rtr_cfg_section rtr_conweave_section =
		RTR_CFG_SECTION(struct rtr_conweave_cfg, conweave_fields, conweave_check);

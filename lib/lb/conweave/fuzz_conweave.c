/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/* lb: conweave in the LB fuzz target (rtr_lb_fuzz.h). */

#include <stdio.h>

#include "rtr_lb_fuzz.h"

/* Few, shallow rings so overflow and reuse are reached; short or default
 * thresholds. */
static const char *
cw_fuzz_config(uint8_t p, char *buf, size_t n)
{
	snprintf(buf, n,
			"conweave: {reorder_queues_per_port: %u, reorder_queue_depth: %u, "
			"flow_table_size: 1024%s}\n",
			1 + (p & 3), 1 + ((p >> 2) & 7),
			(p & 0x20) ? ", base_rtt_us: 2, theta_reply_us: 2, theta_path_busy_us: 4, "
				     "theta_inactive_us: 50, resume_extra_us: 2, "
				     "resume_default_us: 20"
				   : "");
	return buf;
}

const struct rtr_lb_fuzz rtr_lb_fuzz_entry = {
		.mode = RTR_LB_CONWEAVE,
		.config = cw_fuzz_config,
};

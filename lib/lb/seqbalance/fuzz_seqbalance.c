/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/* lb: seqbalance in the LB fuzz target (rtr_lb_fuzz.h). */

#include <stdio.h>

#include "rtr_lb_fuzz.h"

static const char *
sb_fuzz_config(uint8_t p, char *buf, size_t n)
{
	snprintf(buf, n, "seqbalance: {phi_us: %u, subflow_idle_us: %u, flow_table_size: 1024}\n",
			1 + (p & 63), 1 + (p >> 6) * 200);
	return buf;
}

const struct rtr_lb_fuzz rtr_lb_fuzz_entry = {
		.mode = RTR_LB_SEQBALANCE,
		.config = sb_fuzz_config,
};

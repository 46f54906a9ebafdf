/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/* lb: letflow in the LB fuzz target (rtr_lb_fuzz.h). */

#include <stdio.h>

#include "rtr_lb_fuzz.h"

/* Gaps from 1 us (every clock step starts a flowlet) to the default, and a
 * small table that fills up. */
static const char *
lf_fuzz_config(uint8_t p, char *buf, size_t n)
{
	static const unsigned int gap[4] = {1, 5, 40, 100};

	snprintf(buf, n, "letflow: {flowlet_gap_us: %u, flow_table_size: 1024}\n", gap[p & 3]);
	return buf;
}

const struct rtr_lb_fuzz rtr_lb_fuzz_entry = {
		.mode = RTR_LB_LETFLOW,
		.config = lf_fuzz_config,
};

/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/* lb: spray in the LB fuzz target (rtr_lb_fuzz.h). */

#include <stdio.h>

#include "rtr_lb_fuzz.h"

/* Few, narrow windows so overflow, pool exhaustion and reuse are reached by
 * short inputs; a fixed short timeout or the auto estimate. */
static const char *
sp_fuzz_config(uint8_t p, char *buf, size_t n)
{
	snprintf(buf, n,
			"spray: {window_slots: %u, windows_per_worker: %u, flow_table_size: "
			"1024%s}\n",
			2u << (p & 3), 1 + ((p >> 2) & 3),
			(p & 0x20) ? ", timeout_us: 2" : ", timeout_min_us: 1, timeout_max_us: 20");
	return buf;
}

const struct rtr_lb_fuzz rtr_lb_fuzz_entry = {
		.mode = RTR_LB_SPRAY,
		.config = sp_fuzz_config,
};

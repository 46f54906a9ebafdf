/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/* lb: conga in the LB fuzz target (rtr_lb_fuzz.h). */

#include <stdio.h>

#include "rtr_lb_fuzz.h"

/* Gaps from 1 us to the default, DRE periods short enough for the fuzzer's
 * clock steps, ageing that fires, every Q, and few leaf slots that fill. */
static const char *
cg_fuzz_config(uint8_t p, char *buf, size_t n)
{
	static const unsigned int gap[4] = {1, 5, 40, 100};

	snprintf(buf, n,
			"conga: {flowlet_gap_us: %u, dre_period_us: %u, dre_alpha: %s, "
			"quantize_bits: %u, aging_us: %u, flow_table_size: 1024, leaf_slots: %u}\n",
			gap[p & 3], 1 + ((p >> 2) & 3) * 20, (p & 0x80) ? "1.0" : "0.2",
			1 + ((p >> 4) & 3), (p & 0x40) ? 20 : 500, (p & 0x40) ? 2 : 64);
	return buf;
}

const struct rtr_lb_fuzz rtr_lb_fuzz_entry = {
		.mode = RTR_LB_CONGA,
		.config = cg_fuzz_config,
};

/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/* lb: drill in the LB fuzz target (rtr_lb_fuzz.h). The fuzzer has no
 * egress: every queue reads 0, so the draws and the memory are what it
 * exercises. */

#include <stdio.h>

#include "rtr_lb_fuzz.h"

static const char *
dr_fuzz_config(uint8_t p, char *buf, size_t n)
{
	snprintf(buf, n, "drill: {samples: %u, memory: %u}\n", 1 + (p & 15), (p >> 4) % 5);
	return buf;
}

const struct rtr_lb_fuzz rtr_lb_fuzz_entry = {
		.mode = RTR_LB_DRILL,
		.config = dr_fuzz_config,
};

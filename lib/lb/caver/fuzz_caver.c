/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/* lb: caver in the LB fuzz target (rtr_lb_fuzz.h). */

#include <stdbool.h>
#include <stdio.h>

#include "caver_config.h"
#include "rtr_caver.h"
#include "rtr_lb_fuzz.h"

static const char *
cv_fuzz_config(uint8_t p, char *buf, size_t n)
{
	snprintf(buf, n,
			"caver: {dre_period_us: %u, q: %u, alpha: %s, aging_us: %u, flow_idle_us: "
			"%u, flow_table_size: 1024}\n",
			1 + (p & 7) * 10, 1 + ((p >> 3) & 15), (p & 0x80) ? "1.0" : "0.2",
			(p & 0x80) ? 20 : 500, (p & 0x40) ? 5 : 1000);
	return buf;
}

/* The ops' table holds RTR_CAVER_HOSTS hosts (4 MB to zero per input); a
 * small one runs 20 times faster and can fill up. */
static void *
cv_fuzz_shared_create(const struct rtr_config *cfg)
{
	return rtr_caver_shared_create(
			16, (uint64_t)rtr_caver_config(cfg)->aging_us * 1000, false, 0);
}

const struct rtr_lb_fuzz rtr_lb_fuzz_entry = {
		.mode = RTR_LB_CAVER,
		.config = cv_fuzz_config,
		.shared_create = cv_fuzz_shared_create,
};

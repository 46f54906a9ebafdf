/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/* The `caver:` section as the schema engine reads it (no EAL needed). */
#include "rtr_cfg_schema.h"
#include "caver/caver_config.h"

static const struct rtr_cfg_field caver_fields[] = {
		RTR_CFG_UINT("dre_period_us", struct rtr_caver_cfg, dre_period_us, 1, 1000000, 50),
		RTR_CFG_DOUBLE("alpha", struct rtr_caver_cfg, alpha, 0, 1, 0.2,
				.flags = RTR_CFG_MIN_EXCL),
		RTR_CFG_UINT("q", struct rtr_caver_cfg, q, 1, 16, 8),
		RTR_CFG_UINT("aging_us", struct rtr_caver_cfg, aging_us, 1, 10000000, 500),
		RTR_CFG_UINT("flow_idle_us", struct rtr_caver_cfg, flow_idle_us, 1, 10000000, 1000),
		RTR_CFG_UINT("flow_table_size", struct rtr_caver_cfg, flow_table_size, 1024,
				16777216, 1048576),
};

_Static_assert(sizeof(struct rtr_caver_cfg) <= RTR_LB_CFG_SIZE, "section too large");

const struct rtr_cfg_section rtr_caver_section =
		RTR_CFG_SECTION(struct rtr_caver_cfg, caver_fields, NULL);

/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/* The `seqbalance:` section as the schema engine reads it (no EAL needed). */
#include "rtr_cfg_schema.h"
#include "seqbalance/seqbalance_config.h"

static const struct rtr_cfg_field seqbalance_fields[] = {
		RTR_CFG_UINT("phi_us", struct rtr_seqbalance_cfg, phi_us, 1, 1000000, 32),
		RTR_CFG_UINT("subflow_idle_us", struct rtr_seqbalance_cfg, subflow_idle_us, 1,
				10000000, 1000),
		RTR_CFG_UINT("flow_table_size", struct rtr_seqbalance_cfg, flow_table_size, 1024,
				16777216, 1048576),
		RTR_CFG_UINT("dst_prefix_len", struct rtr_seqbalance_cfg, dst_prefix_len, 0, 32,
				24),
		RTR_CFG_UINT("dst_prefix_len6", struct rtr_seqbalance_cfg, dst_prefix_len6, 0, 128,
				64),
};

_Static_assert(sizeof(struct rtr_seqbalance_cfg) <= RTR_LB_CFG_SIZE, "section too large");

const struct rtr_cfg_section rtr_seqbalance_section =
		RTR_CFG_SECTION(struct rtr_seqbalance_cfg, seqbalance_fields, NULL);

/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/* The `letflow:` section as the schema engine reads it (no EAL needed). */
#include "rtr_cfg_schema.h"
#include "letflow/letflow_config.h"

static const struct rtr_cfg_field letflow_fields[] = {
		/* The ConWeave paper's gap for CONGA and LetFlow (section 4.1);
		 * a second is far beyond any flowlet. */
		RTR_CFG_UINT("flowlet_gap_us", struct rtr_letflow_cfg, flowlet_gap_us, 1, 1000000,
				100),
		RTR_CFG_UINT("flow_table_size", struct rtr_letflow_cfg, flow_table_size, 1024,
				16777216, 1048576),
};

_Static_assert(sizeof(struct rtr_letflow_cfg) <= RTR_LB_CFG_SIZE, "section too large");

const struct rtr_cfg_section rtr_letflow_section =
		RTR_CFG_SECTION(struct rtr_letflow_cfg, letflow_fields, NULL);

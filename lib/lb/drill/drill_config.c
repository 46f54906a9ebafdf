/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/* The `drill:` section as the schema engine reads it (no EAL needed). */
#include "rtr_cfg_schema.h"
#include "drill/drill_config.h"

static const struct rtr_cfg_field drill_fields[] = {
		/* DRILL(2,1), the paper's recommendation and the ConWeave
		 * paper's setting (section 4.1). */
		RTR_CFG_UINT("samples", struct rtr_drill_cfg, samples, 1, RTR_DRILL_SAMPLES_MAX, 2),
		RTR_CFG_UINT("memory", struct rtr_drill_cfg, memory, 0, RTR_DRILL_MEMORY_MAX, 1),
};

_Static_assert(sizeof(struct rtr_drill_cfg) <= RTR_LB_CFG_SIZE, "section too large");

const struct rtr_cfg_section rtr_drill_section =
		RTR_CFG_SECTION(struct rtr_drill_cfg, drill_fields, NULL);

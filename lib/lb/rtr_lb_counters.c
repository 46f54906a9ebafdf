/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

#include <rte_common.h>

#include "rtr_lb_counters.h"

const char *const rtr_lb_counter_names[RTR_LBC_MAX] = {
#define RTR_LB_CNT_NAME(n, d) [RTR_LBC_##n] = #n,
		RTR_LB_COUNTERS(RTR_LB_CNT_NAME)
#undef RTR_LB_CNT_NAME
};

const char *const rtr_lb_counter_help[RTR_LBC_MAX] = {
#define RTR_LB_CNT_HELP(n, d) [RTR_LBC_##n] = d,
		RTR_LB_COUNTERS(RTR_LB_CNT_HELP)
#undef RTR_LB_CNT_HELP
};

const uint16_t rtr_lb_counter_max[] = {
#define RTR_LB_CNT_MAX(n) RTR_LBC_##n,
		RTR_LB_MODE_MAX_GAUGES(RTR_LB_CNT_MAX)
#undef RTR_LB_CNT_MAX
};
const unsigned int rtr_lb_counter_n_max = RTE_DIM(rtr_lb_counter_max);

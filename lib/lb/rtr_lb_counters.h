/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * The LB counters (struct rtr_lcore_stats.lb): the core's, then each
 * mode's own, in registry order, composed from the lists in the folders
 * (core/rtr_lb_core_counters.h, <mode>/rtr_<mode>_counters.h) into one
 * enum and one table of names and help lines. lib/stats only keeps the
 * slots; the stats JSON and telemetry take the names from here.
 */
#ifndef RTR_LB_COUNTERS_H
#define RTR_LB_COUNTERS_H

#include <stdint.h>

#include "rtr_lb_core_counters.h"
#include "rtr_lb_modes.h"
#include "rtr_stats.h"

#define RTR_LB_COUNTERS(X) RTR_LB_CORE_COUNTERS(X) RTR_LB_MODE_COUNTERS(X)

enum rtr_lb_counter {
#define RTR_LB_CNT_ENUM(n, d) RTR_LBC_##n,
	RTR_LB_COUNTERS(RTR_LB_CNT_ENUM)
#undef RTR_LB_CNT_ENUM
			RTR_LBC_MAX
};

/* Each list's range in the enum: [RTR_LBC_<LIST>_FIRST, + RTR_LBC_<LIST>_N). */
#define RTR_LB_CNT_ONE(n, d) +1
enum {
	RTR_LBC_CORE_FIRST = 0,
	RTR_LBC_CORE_N = 0 RTR_LB_CORE_COUNTERS(RTR_LB_CNT_ONE),
	RTR_LB_MODE_COUNTER_RANGES(RTR_LB_CNT_ONE)
};
#undef RTR_LB_CNT_ONE
_Static_assert(RTR_LB_MODE_COUNTERS_END == RTR_LBC_MAX, "a list out of the ranges");
_Static_assert(RTR_LBC_CORE_N <= RTR_STATS_LB_SLOTS, "LB core counters beyond RTR_STATS_LB_SLOTS");
RTR_LB_MODE_COUNTER_CHECKS

extern const char *const rtr_lb_counter_names[RTR_LBC_MAX];
extern const char *const rtr_lb_counter_help[RTR_LBC_MAX];

/* The counters that are maxima, not sums, over the workers (for
 * rtr_stats_sum). */
extern const uint16_t rtr_lb_counter_max[];
extern const unsigned int rtr_lb_counter_n_max;

#endif /* RTR_LB_COUNTERS_H */

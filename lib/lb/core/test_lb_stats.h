/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * For the unit tests of the modes: they keep a switch's LB counters as an
 * array (c[RTR_LBC_x]) that is always the lb member of a struct
 * rtr_lcore_stats, and LB_ST(c) is that block, what the modes' entry points
 * (the rtr_lb_ops signatures) take.
 */
#ifndef RTR_TEST_LB_STATS_H
#define RTR_TEST_LB_STATS_H

#include <stddef.h>

#include "rtr_stats.h"

#define LB_ST(c) \
	((struct rtr_lcore_stats *)(void *)((char *)(c)-offsetof(struct rtr_lcore_stats, lb)))

#endif /* RTR_TEST_LB_STATS_H */

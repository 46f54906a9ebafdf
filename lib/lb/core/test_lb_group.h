/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * For the unit tests of the modes that pick among a group's uplinks
 * (letflow, drill): a group of n paths on ports 1..n whose live paths are
 * the bits of live.
 */
#ifndef RTR_TEST_LB_GROUP_H
#define RTR_TEST_LB_GROUP_H

#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#include "rtr_route.h"

static inline void
test_lb_group(struct rtr_group *g, unsigned int n, uint64_t live)
{
	memset(g, 0, sizeof(*g));
	g->n_paths = (uint16_t)n;
	for (unsigned int i = 0; i < n; i++)
		g->port[i] = (uint16_t)(1 + i);
	atomic_store(&g->live_mask, live);
}

#endif /* RTR_TEST_LB_GROUP_H */

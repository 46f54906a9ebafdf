/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

#include <stddef.h>

#include "rtr_lb.h"

static const struct rtr_lb_ops *const lb_table[RTR_LB_MAX] = {
	[RTR_LB_ECMP] = &rtr_lb_ecmp,
	[RTR_LB_CONWEAVE] = &rtr_lb_conweave,
	[RTR_LB_SEQBALANCE] = &rtr_lb_seqbalance,
	[RTR_LB_CAVER] = &rtr_lb_caver,
	/* spray is added by its issue. */
};

const struct rtr_lb_ops *
rtr_lb_get(enum rtr_lb_mode mode)
{
	if ((unsigned int)mode >= RTR_LB_MAX)
		return NULL;
	return lb_table[mode];
}

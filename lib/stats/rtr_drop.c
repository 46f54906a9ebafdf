/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

#include "rtr_drop.h"

const char *const rtr_drop_names[RTR_DROP_MAX] = {
#define RTR_DROP_NAME(e, s, d) [RTR_DROP_##e] = s,
		RTR_DROP_REASONS(RTR_DROP_NAME)
#undef RTR_DROP_NAME
};

const char *const rtr_drop_help[RTR_DROP_MAX] = {
#define RTR_DROP_HELP(e, s, d) [RTR_DROP_##e] = d,
		RTR_DROP_REASONS(RTR_DROP_HELP)
#undef RTR_DROP_HELP
};

/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */
#include "rtr_app.h"
int
rtr_telemetry_register(void)
{
	return 0;
}

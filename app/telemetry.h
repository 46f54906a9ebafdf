/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/* rte_telemetry commands under /rocetor/ (DESIGN.md B6). */
#ifndef RTR_APP_TELEMETRY_H
#define RTR_APP_TELEMETRY_H

#include "rtr_app.h"

/* Register the commands; they answer about app from then on. */
int rtr_telemetry_register(struct rtr_app *app);
/* From now on telemetry commands answer null: the exit frees what they read. */
void rtr_telemetry_close(void);
/* Owner-only permissions on the EAL runtime directory and the telemetry
 * sockets in it; checked and logged. Returns 0, or -1 if one could not be
 * made owner-only. */
int rtr_telemetry_harden(const struct rtr_app *app);

#endif /* RTR_APP_TELEMETRY_H */

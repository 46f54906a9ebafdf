/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/* Building the switch from the config: workers on the lcores, then (once
 * the ports are up) neighbours, routes, LB states and egress; and freeing
 * it all at exit. */
#ifndef RTR_APP_SETUP_H
#define RTR_APP_SETUP_H

#include "rtr_app.h"

/* One worker per forwarding lcore, with its rings and counters, and the
 * control plane's. Returns 0 or -ENOMEM. */
int rtr_app_workers_setup(struct rtr_app *app);
/* Neighbours, routes, the LB states, egress and the run parameters.
 * Returns 0 or -errno (said on stderr). */
int rtr_app_switch_setup(struct rtr_app *app);
/* Free what the two above made (LB states, workers, egress, routes...);
 * the mempool too. */
void rtr_app_switch_free(struct rtr_app *app);

#endif /* RTR_APP_SETUP_H */

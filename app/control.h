/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/* The control lcore: exit conditions (signals, --duration,
 * --exit-on-idle), periodic stats, and its loop when it does not forward. */
#ifndef RTR_APP_CONTROL_H
#define RTR_APP_CONTROL_H

#include <signal.h>
#include <stdint.h>

#include "rtr_app.h"

/* The signal that asked to stop (SIGINT, SIGTERM), 0 before. A signal
 * handler only sets it. */
extern volatile sig_atomic_t rtr_signal;

/* Every control poll (sw->main_tick, sw->main_arg = the app): start the
 * exit sequence when asked, print stats every --stats-interval. */
void rtr_app_main_tick(struct rtr_switch *sw, uint64_t now_tsc);
/* The main lcore's loop when it does not forward: poll the control plane
 * until the exit sequence ends. */
void rtr_app_control_loop(struct rtr_app *app);

#endif /* RTR_APP_CONTROL_H */

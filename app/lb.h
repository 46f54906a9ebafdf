/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * The LB stage as the app runs it: which mode (switch.lb, --lb), its ops
 * on this switch (the spine override), its shared and per-worker states,
 * and the runtime switch (/rocetor/lb/set). Modes are known only through
 * the registry (lib/lb/rtr_lb.h).
 */
#ifndef RTR_APP_LB_H
#define RTR_APP_LB_H

#include <stddef.h>
#include <stdint.h>

#include "rtr_app.h"

/* Apply --lb to the config and set app->sw.lb. Returns 0, or -1 with a
 * message on stderr naming the modes (exit status 2). */
int rtr_app_lb_select(struct rtr_app *app);
/* The ops of LB mode `mode` for this switch (on a spine, a ToR-only mode
 * runs as ECMP under its name), or NULL when this build does not implement
 * it. */
const struct rtr_lb_ops *rtr_app_lb_ops(struct rtr_app *app, enum rtr_lb_mode mode);
/* Mode ops's shared state and one state per worker (states has
 * app->sw.n_workers entries). Returns 0 or -ENOMEM (said on stderr). */
int rtr_app_lb_create(
		struct rtr_app *app, const struct rtr_lb_ops *ops, void **shared, void **states);
/* Free what rtr_app_lb_create made (n states). */
void rtr_app_lb_destroy(const struct rtr_lb_ops *ops, void *shared, void **states, unsigned int n);
/* Switch the running switch to LB mode `mode` (doc/user-guide.md). Returns
 * the packets the old mode held and released, or -errno with a message in
 * err. */
int64_t rtr_app_lb_switch(struct rtr_app *app, enum rtr_lb_mode mode, char *err, size_t len);

#endif /* RTR_APP_LB_H */

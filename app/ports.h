/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/* The DPDK ports of the config: checked, configured with the mempool,
 * started, waited for and closed. */
#ifndef RTR_APP_PORTS_H
#define RTR_APP_PORTS_H

#include <stdint.h>

#include "rtr_app.h"

/* Every configured port exists. Returns 0, or -EINVAL said on stderr. */
int rtr_ports_check(struct rtr_app *app);
/* Queue counts, the mempool (app/budget.c), each port configured and
 * started. Returns 0 or -errno (said on stderr). */
int rtr_ports_setup(struct rtr_app *app);
/* --wait-links MS: wait up to ms for every port not admin_down to be up. */
void rtr_ports_wait_links(const struct rtr_app *app, uint64_t ms);
void rtr_ports_close(struct rtr_app *app);

#endif /* RTR_APP_PORTS_H */

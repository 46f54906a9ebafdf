/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * The stats document (DESIGN.md B5, doc/counters.md): the counters summed
 * over the workers, written as JSON by --stats-json, --stats-interval and
 * read by telemetry. Only reads worker memory.
 */
#ifndef RTR_APP_STATS_DOC_H
#define RTR_APP_STATS_DOC_H

#include <stdint.h>
#include <stdio.h>

#include "rtr_app.h"

/* Every worker's and the control plane's counters, summed into sum. */
void rtr_app_stats(struct rtr_app *app, struct rtr_lcore_stats *sum);
/* One port's egress report (classes, PFC), summed over workers. */
void rtr_app_egress_report(struct rtr_app *app, uint16_t port, struct rtr_eg_port_report *r);
/* Keep the NIC-level RX losses of the configured ports (while they are
 * open): the exit document has them after the ports closed. */
void rtr_app_nic_snapshot(struct rtr_app *app);
/* The stats document, as JSON, to f. */
void rtr_app_write_stats(struct rtr_app *app, FILE *f);

#endif /* RTR_APP_STATS_DOC_H */

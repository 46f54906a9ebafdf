/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * The NIC capability table (nic_caps.h) put to use on real ports: the
 * warnings it decides at port setup, the fields of each port's start-up
 * line, and the pause / discard xstats of the driver (found by name) in the
 * stats document and telemetry (doc/counters.md, doc/nic-facts.md).
 */
#ifndef RTR_APP_NIC_H
#define RTR_APP_NIC_H

#include <stddef.h>
#include <stdint.h>

#include <rte_ethdev.h>

#include "rtr_app.h"

struct rtr_json;

/* Port setup, configured port i (before rte_eth_dev_configure, after the
 * mempool): find its entry and print what the table decides. Returns
 * -ENOTSUP when qos.pfc.mode is refused on it (said on stderr), else 0. */
int rtr_nic_port_check(struct rtr_app *app, unsigned int i, const struct rte_eth_dev_info *info);
/* Once the ports are started: look the driver's pause / discard xstats up
 * by name and print which were found. */
void rtr_nic_port_xstats(struct rtr_app *app, unsigned int i);
/* The fields the start-up line of port i ends with (" speed ... caps ..."):
 * link speed, RSS types in effect, flow control in effect, PFC and LSC
 * support, the capability entry. Returns buf. */
const char *rtr_nic_port_line(const struct rtr_app *app, unsigned int i, char *buf, size_t len);
/* Read the xstats of every configured port into app->nic[].value. */
void rtr_nic_snapshot(struct rtr_app *app);
/* Whether configured port i has counter c (the driver has such xstats). */
bool rtr_nic_has(const struct rtr_app *app, unsigned int i, enum rtr_nic_ctr c);
/* The NIC counters of port i the driver has, as JSON members. */
void rtr_nic_json(struct rtr_json *w, const struct rtr_app *app, unsigned int i);

#endif /* RTR_APP_NIC_H */

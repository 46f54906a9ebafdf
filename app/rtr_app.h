/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/* What the pieces of app/ share: the process-wide state of one rocetor. */
#ifndef RTR_APP_H
#define RTR_APP_H

#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "rtr_config.h"
#include "rtr_pipeline.h"

struct rtr_app {
	/* command line (DESIGN.md B2) */
	const char *config_path;
	const char *lb_override;
	double duration_s;	/* 0 = run until a signal */
	uint64_t exit_on_idle_ms;
	const char *stats_json;
	double stats_interval_s;
	bool telemetry_rw;	/* --telemetry-rw: commands that change state are allowed */

	struct rtr_config cfg;
	struct rtr_switch sw;
	unsigned int n_cfg_ports;
	uint16_t port_ids[RTR_MAX_PORTS];
	uint16_t rxq[RTR_MAX_PORTS], txq[RTR_MAX_PORTS];
	uint32_t n_mbufs;
	uint32_t hold_budget;	/* mbufs each worker's LB state may hold (app/budget.c) */
	uint32_t mbuf_data_room;
	uint16_t mbuf_priv_size; /* metadata in the private area (no dynfield room) */
	unsigned int mempool_baseline;	/* in use when forwarding started */
	int64_t mempool_stopped;	/* in use once the workers stopped; -1 before */
	/* NIC RX losses (rte_eth_stats rx_nombuf, imissed) per configured
	 * port, kept when the ports close so the exit document has them. */
	bool nic_closed;
	uint64_t nic_rx_nombuf[RTR_MAX_PORTS], nic_imissed[RTR_MAX_PORTS];
	uint64_t start_tsc;
	uint64_t last_stats_tsc;
	bool stopping;
	bool pdump_ready;
	/* switch.role spine with a ToR-only mode: ECMP under that mode's name */
	struct rtr_lb_ops spine_ops[RTR_LB_MAX];
	pthread_mutex_t switch_lock; /* one runtime LB switch at a time */
};

extern struct rtr_app rtr_app;
extern volatile sig_atomic_t rtr_signal;

/* ports.c */
int rtr_ports_check(struct rtr_app *app);
int rtr_ports_setup(struct rtr_app *app);
void rtr_ports_close(struct rtr_app *app);

/* telemetry.c */
int rtr_telemetry_register(void);
/* From now on telemetry commands answer null: the exit frees what they read. */
void rtr_telemetry_close(void);
/* Owner-only permissions on the EAL runtime directory and the telemetry
 * sockets in it; checked and logged. Returns 0, or -1 if one could not be
 * made owner-only. */
int rtr_telemetry_harden(void);

/* The ops of LB mode `mode` for this switch (a spine runs ConWeave and
 * SeqBalance as ECMP under their names), or NULL when this build does not
 * implement it. */
const struct rtr_lb_ops *rtr_app_lb_ops(struct rtr_app *app, enum rtr_lb_mode mode);
/* Switch the running switch to LB mode `mode` (doc/user-guide.md). Returns
 * the packets the old mode held and released, or -errno with a message in
 * err. */
int64_t rtr_app_lb_switch(struct rtr_app *app, enum rtr_lb_mode mode, char *err, size_t len);

/* stats view shared by the JSON writer and telemetry */
struct rtr_stats_doc;
void rtr_app_stats(struct rtr_app *app, struct rtr_lcore_stats *sum);
void rtr_app_write_stats(struct rtr_app *app, FILE *f);
/* One port's egress report (classes, PFC), summed over workers. */
void rtr_app_egress_report(struct rtr_app *app, uint16_t port, struct rtr_eg_port_report *r);

#endif /* RTR_APP_H */

/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * The process-wide state of one rocetor, shared by the files of app/ (each
 * has its own header for its functions: args.h, ports.h, budget.h, lb.h,
 * setup.h, control.h, stats_doc.h, telemetry.h).
 */
#ifndef RTR_APP_H
#define RTR_APP_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "nic_caps.h"
#include "rtr_config.h"
#include "rtr_pipeline.h"

struct rtr_fpm_server;

struct rtr_app {
	/* command line (DESIGN.md B2) */
	const char *config_path;
	const char *lb_override;
	double duration_s; /* 0 = run until a signal */
	uint64_t exit_on_idle_ms;
	const char *stats_json;
	double stats_interval_s;
	uint64_t wait_links_ms; /* --wait-links MS, 0 = do not wait */
	bool main_forwards;     /* --main-forwards: the main lcore is worker 0 too */
	bool telemetry_rw;      /* --telemetry-rw: commands that change state are allowed */

	struct rtr_config cfg;
	struct rtr_switch sw;
	unsigned int n_cfg_ports;
	uint16_t port_ids[RTR_MAX_PORTS];
	uint16_t rxq[RTR_MAX_PORTS], txq[RTR_MAX_PORTS];
	/* Per configured port: ports[].mtu was unset and the device's own MTU
	 * (what the kernel netdev has on mlx5) was kept; the descriptors the
	 * device took (rte_eth_dev_adjust_nb_rx_tx_desc). */
	bool mtu_from_device[RTR_MAX_PORTS];
	uint16_t nb_rxd[RTR_MAX_PORTS], nb_txd[RTR_MAX_PORTS];
	/* Per configured port: its RX queue q is worker q's, because its RSS
	 * was asked to send each flow to its owner's queue (one RX queue per
	 * worker, RSS with UDP ports; whether the key and RETA took is said
	 * at start-up, app/ports.c rss_owner_start). */
	bool rss_owner[RTR_MAX_PORTS];
	uint32_t n_mbufs;
	uint32_t hold_budget; /* mbufs each worker's LB state may hold (app/budget.c) */
	uint32_t mbuf_data_room;
	uint16_t mbuf_priv_size;       /* metadata in the private area (no dynfield room) */
	unsigned int mempool_baseline; /* in use when forwarding started */
	int64_t mempool_stopped;       /* in use once the workers stopped; -1 before */
	/* NIC RX losses (rte_eth_stats rx_nombuf, imissed) per configured
	 * port, kept when the ports close so the exit document has them. */
	bool nic_closed;
	uint64_t nic_rx_nombuf[RTR_MAX_PORTS], nic_imissed[RTR_MAX_PORTS];
	uint64_t nic_ierrors[RTR_MAX_PORTS];
	/* Per configured port: its capability entry and the driver's pause /
	 * discard xstats (app/nic.c), read with the NIC counters above. */
	struct rtr_nic_port nic[RTR_MAX_PORTS];
	uint64_t start_tsc;
	uint64_t last_stats_tsc;
	/* Software PFC: each port's imissed at the last look, every
	 * RTR_IMISSED_POLL_US (rtr_app_main_tick). */
	uint64_t last_imissed[RTR_MAX_PORTS];
	uint64_t last_imissed_tsc;
	bool pdump_ready;
	pthread_mutex_t switch_lock; /* one runtime LB switch at a time */
	struct rtr_fpm_server *fpm;  /* fpm.address: zebra's routes (app/fpm.c); NULL: none */
};

#endif /* RTR_APP_H */

/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * Port bring-up for any PMD the EAL was given: one TX queue per worker so TX
 * is lock-free, RX queues spread over workers, RSS on the 5-tuple where the
 * device offers it, link-status interrupts where it has them, and a mempool
 * sized by formula. RX is never drained at start-up: a pcap port's first
 * packets are real traffic.
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_log.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#define EGRESS_QUEUE_MBUFS_MAX 4096 /* per port: the "shared buffer" a port may fill */

#include "rtr_app.h"
#include "conweave/conweave_config.h"

#define RX_DESC	    1024
#define TX_DESC	    1024
#define POOL_CACHE  256

int
rtr_ports_check(struct rtr_app *app)
{
	const struct rtr_config *cfg = &app->cfg;
	uint16_t avail = rte_eth_dev_count_avail();

	for (unsigned int i = 0; i < cfg->n_ports; i++) {
		const struct rtr_port_cfg *pc = &cfg->ports[i];

		if (!rte_eth_dev_is_valid_port(pc->port)) {
			fprintf(stderr,
				"%s:%d: ports[%u].port: DPDK port %u does not exist (the EAL has %u "
				"port%s: add a --vdev or a PCI device)\n",
				cfg->path, pc->line, i, pc->port, avail, avail == 1 ? "" : "s");
			return -EINVAL;
		}
	}
	return 0;
}

static int
lsc_event(uint16_t port, enum rte_eth_event_type type, void *arg, void *ret_param)
{
	struct rtr_switch *sw = arg;

	(void)type;
	(void)ret_param;
	/* Interrupt thread: only raise a flag; the control lcore does the rest. */
	if (port < RTR_MAX_PORTS)
		atomic_store(&sw->ports[port].lsc_event, 1);
	return 0;
}

static uint32_t
round_pow2_minus1(uint64_t n)
{
	uint64_t p = 1;

	while (p < n + 1)
		p <<= 1;
	return (uint32_t)(p - 1);
}

/*
 * qos.pfc.mode nic: the NIC itself sends and honours PFC for the configured
 * classes (802.1p priority = class), with its own watermarks from xoff_kb /
 * xon_kb. A PMD without PFC support is a start-up error, not a silent
 * downgrade: the user asked for lossless behaviour.
 */
static int
nic_pfc(const struct rtr_config *cfg, uint16_t port)
{
	const struct rtr_pfc_cfg *pfc = &cfg->qos.pfc;

	for (unsigned int c = 0; c < cfg->qos.classes; c++) {
		struct rte_eth_pfc_conf pc;
		int rc;

		if (!(pfc->class_mask & (1u << c)))
			continue;
		memset(&pc, 0, sizeof(pc));
		pc.fc.mode = RTE_ETH_FC_FULL;
		pc.fc.high_water = pfc->xoff_kb * 1024;
		pc.fc.low_water = pfc->xon_kb * 1024;
		pc.fc.pause_time = pfc->quanta;
		pc.fc.send_xon = 1;
		pc.priority = (uint8_t)c;
		rc = rte_eth_dev_priority_flow_ctrl_set(port, &pc);
		if (rc != 0) {
			fprintf(stderr, "port %u: qos.pfc.mode nic: the PMD cannot do PFC on priority "
					"%u: %s (use qos.pfc.mode: software)\n", port, c,
				rc == -ENOTSUP ? "not supported" : strerror(-rc));
			return rc;
		}
	}
	printf("rocetor: port %u: NIC PFC on classes 0x%02x\n", port, pfc->class_mask);
	return 0;
}

/*
 * ConWeave's hold budget (issue 15 item 7): the mbufs the reorder rings of
 * all workers may hold at once, split evenly between the workers (flows
 * are spread over them by hash). Holding past it takes the overflow path
 * (the ring released in order, reorder_over_budget), so holds never take
 * the mbufs RX needs: the rings' own limits (up to 1024 x 2048 packets per
 * host port and worker) are far above any pool.
 *
 * share is what the pool was sized to hold (conweave.hold_budget, or the
 * reorder share of the formula), others what the formula gives everything
 * else (RX and TX descriptors, worker bursts and caches, rings, egress). A
 * switch.mbufs smaller than others + share leaves holding what remains,
 * but at least a quarter of the pool (such a pool is below the formula
 * anyway); an explicit hold_budget is taken as given (the validator keeps
 * it below switch.mbufs).
 */
static void
hold_budget(struct rtr_app *app, uint64_t others, uint64_t share)
{
	const struct rtr_config *cfg = &app->cfg;
	unsigned int nw = app->sw.n_workers ? app->sw.n_workers : 1;
	uint64_t total = share, left, per;

	app->cw_hold_budget = 0;
	if (cfg->sw.lb != RTR_LB_CONWEAVE && !app->telemetry_rw)
		return;
	if (rtr_conweave_config(cfg)->hold_budget == 0 && app->n_mbufs < others + share) {
		left = app->n_mbufs > others ? app->n_mbufs - others : 0;
		if (left < app->n_mbufs / 4)
			left = app->n_mbufs / 4;
		if (left < total)
			total = left;
	}
	per = total / nw;
	app->cw_hold_budget = per > 0 ? (uint32_t)per : 1;
	printf("rocetor: conweave hold budget %u mbufs per worker (%s%s)\n", app->cw_hold_budget,
		rtr_conweave_config(cfg)->hold_budget ? "conweave.hold_budget" :
			"derived from the mempool",
		total < share ? ", cut: switch.mbufs is below the formula" : "");
}

int
rtr_ports_setup(struct rtr_app *app)
{
	struct rtr_config *cfg = &app->cfg;
	struct rtr_switch *sw = &app->sw;
	uint64_t need = 0, rx_desc_total = 0, tx_desc_total = 0, worker_part, ring_part, egress_part = 0;
	uint64_t reorder_part = 0;
	unsigned int max_mtu = RTE_ETHER_MTU;
	char name[RTE_MEMPOOL_NAMESIZE];
	unsigned int i, q;
	int rc;

	/* Queue counts first: the mempool size depends on them. */
	for (i = 0; i < cfg->n_ports; i++) {
		struct rtr_port_cfg *pc = &cfg->ports[i];
		struct rte_eth_dev_info info;

		rc = rte_eth_dev_info_get(pc->port, &info);
		if (rc != 0) {
			fprintf(stderr, "port %u: cannot read device info: %s\n", pc->port,
				strerror(-rc));
			return rc;
		}
		app->rxq[i] = pc->rx_queues ? pc->rx_queues : (uint16_t)sw->n_workers;
		if (app->rxq[i] > info.max_rx_queues)
			app->rxq[i] = info.max_rx_queues;
		app->txq[i] = (uint16_t)sw->n_workers;
		if (pc->tx_queues > app->txq[i])
			app->txq[i] = pc->tx_queues;
		if (app->txq[i] > info.max_tx_queues) {
			fprintf(stderr,
				"port %u (%s) has %u TX queue%s but %u worker lcores need one each: "
				"run with fewer lcores or give the device more queues (net_pcap: one "
				"tx_pcap per queue)\n",
				pc->port, info.driver_name, info.max_tx_queues,
				info.max_tx_queues == 1 ? "" : "s", sw->n_workers);
			return -EINVAL;
		}
		if (app->rxq[i] == 0) {
			fprintf(stderr, "port %u (%s) has no RX queue\n", pc->port, info.driver_name);
			return -EINVAL;
		}
		rx_desc_total += (uint64_t)app->rxq[i] * RX_DESC;
		tx_desc_total += (uint64_t)app->txq[i] * TX_DESC;
		if (pc->mtu > max_mtu)
			max_mtu = pc->mtu;
	}

	/*
	 * Mempool: every descriptor may hold an mbuf, every worker may hold a
	 * burst per port in TX buffers plus an RX burst and its mempool cache,
	 * and every ring may be full. Rounded to 2^n - 1 (the mempool's best size).
	 */
	worker_part = (uint64_t)sw->n_workers *
		(RTR_BURST * (cfg->n_ports + 1) + POOL_CACHE * 3 / 2 + cfg->sw.handoff_ring +
			RTR_INJECT_RING_SIZE);
	ring_part = RTR_CTRL_RING_SIZE + 1024; /* control ring + control/pdump slack */
	/* Egress: the mempool is the switch's shared buffer. Each port may
	 * fill what its class queues hold in 1500-byte packets, capped at
	 * EGRESS_QUEUE_MBUFS_MAX (deeper queues need switch.mbufs; without
	 * them the pool runs dry first and the NIC drops at RX, rx_nombuf),
	 * plus the packets in flight on its delay line. */
	for (i = 0; i < cfg->n_ports; i++) {
		const struct rtr_port_cfg *pc = &cfg->ports[i];
		double gbps = pc->shape_gbps > 0 ? pc->shape_gbps :
			pc->speed_gbps > 0 ? pc->speed_gbps : 100.0;
		uint64_t qb = 0;

		for (unsigned int c = 0; c < cfg->qos.classes; c++)
			qb += (uint64_t)cfg->qos.cls[c].queue_kb * 1024 / 1500;
		egress_part += RTE_MIN(qb, (uint64_t)EGRESS_QUEUE_MBUFS_MAX) +
			(uint64_t)((double)pc->delay_us * 1000 * gbps / (8 * 1024));
	}
	/* ConWeave reorder queues hold packets too: conweave.hold_budget, or
	 * per host port what its rings can hold, capped like the egress share.
	 * With --telemetry-rw the mode may become ConWeave at runtime: the
	 * pool is sized for it from the start. */
	if (cfg->sw.lb == RTR_LB_CONWEAVE || app->telemetry_rw) {
		if (rtr_conweave_config(cfg)->hold_budget != 0)
			reorder_part = rtr_conweave_config(cfg)->hold_budget;
		else
			for (i = 0; i < cfg->n_ports; i++)
				if (cfg->ports[i].role == RTR_PORT_HOST)
					reorder_part += RTE_MIN(
						(uint64_t)rtr_conweave_config(cfg)->
							reorder_queues_per_port *
							rtr_conweave_config(cfg)->reorder_queue_depth,
						(uint64_t)EGRESS_QUEUE_MBUFS_MAX);
	}
	need = rx_desc_total + tx_desc_total + worker_part + ring_part + egress_part + reorder_part;
	app->n_mbufs = cfg->sw.mbufs ? cfg->sw.mbufs : round_pow2_minus1(need);
	hold_budget(app, need - reorder_part, reorder_part);
	app->mbuf_data_room = RTE_PKTMBUF_HEADROOM +
		RTE_MAX(2048u, max_mtu + RTE_ETHER_HDR_LEN + 2 * 4 + RTE_ETHER_CRC_LEN + 4);
	snprintf(name, sizeof(name), "rtr_pool");
	sw->pool = rte_pktmbuf_pool_create(name, app->n_mbufs, POOL_CACHE, app->mbuf_priv_size,
		(uint16_t)app->mbuf_data_room, (int)rte_socket_id());
	if (sw->pool == NULL) {
		fprintf(stderr, "cannot create the mempool of %u mbufs: %s\n", app->n_mbufs,
			rte_strerror(rte_errno));
		return -ENOMEM;
	}
	printf("rocetor: mempool %u mbufs x %u B (%.1f MiB) = rx %" PRIu64 " + tx %" PRIu64
	       " descriptors + %u workers x %" PRIu64 " + egress %" PRIu64 " + reorder %" PRIu64
	       " + %" PRIu64 " control%s\n",
		app->n_mbufs, app->mbuf_data_room,
		(double)app->n_mbufs * (app->mbuf_data_room + 128 + 64) / (1 << 20), rx_desc_total,
		tx_desc_total, sw->n_workers, worker_part / sw->n_workers, egress_part, reorder_part,
		ring_part,
		cfg->sw.mbufs ? " (switch.mbufs overrides)" : "");

	for (i = 0; i < cfg->n_ports; i++) {
		struct rtr_port_cfg *pc = &cfg->ports[i];
		struct rtr_port_rt *pr = &sw->ports[pc->port];
		struct rte_eth_conf conf;
		struct rte_eth_dev_info info;
		struct rte_ether_addr mac;
		uint16_t nb_rxd = RX_DESC, nb_txd = TX_DESC;

		memset(&conf, 0, sizeof(conf));
		rte_eth_dev_info_get(pc->port, &info);
		if (app->rxq[i] > 1 && info.flow_type_rss_offloads != 0) {
			conf.rxmode.mq_mode = RTE_ETH_MQ_RX_RSS;
			conf.rx_adv_conf.rss_conf.rss_hf = (RTE_ETH_RSS_IP | RTE_ETH_RSS_UDP |
				RTE_ETH_RSS_TCP) & info.flow_type_rss_offloads;
		}
		if (*info.dev_flags & RTE_ETH_DEV_INTR_LSC)
			conf.intr_conf.lsc = 1;
		if (pc->mtu)
			conf.rxmode.mtu = pc->mtu;
		rc = rte_eth_dev_configure(pc->port, app->rxq[i], app->txq[i], &conf);
		if (rc != 0) {
			fprintf(stderr, "port %u (%s): configure %u rx / %u tx queues failed: %s\n",
				pc->port, info.driver_name, app->rxq[i], app->txq[i], strerror(-rc));
			return rc;
		}
		rte_eth_dev_adjust_nb_rx_tx_desc(pc->port, &nb_rxd, &nb_txd);
		for (q = 0; q < app->rxq[i]; q++) {
			struct rtr_worker *w = sw->workers[(q + i) % sw->n_workers];

			rc = rte_eth_rx_queue_setup(pc->port, (uint16_t)q, nb_rxd,
				rte_eth_dev_socket_id(pc->port), NULL, sw->pool);
			if (rc != 0) {
				fprintf(stderr, "port %u: rx queue %u setup failed: %s\n", pc->port, q,
					strerror(-rc));
				return rc;
			}
			w->rxq[w->n_rxq].port = pc->port;
			w->rxq[w->n_rxq].queue = (uint16_t)q;
			w->n_rxq++;
		}
		for (q = 0; q < app->txq[i]; q++) {
			rc = rte_eth_tx_queue_setup(pc->port, (uint16_t)q, nb_txd,
				rte_eth_dev_socket_id(pc->port), NULL);
			if (rc != 0) {
				fprintf(stderr, "port %u: tx queue %u setup failed: %s\n", pc->port, q,
					strerror(-rc));
				return rc;
			}
		}
		/* The configured MAC is the port's identity on the wire; the device
		 * takes it where it can, and promiscuous mode covers the rest since
		 * L2 filtering is done in software (ports[].l2_filter). */
		if (pc->mac_set) {
			memcpy(mac.addr_bytes, pc->mac, 6);
			rte_eth_dev_default_mac_addr_set(pc->port, &mac);
		} else if (rte_eth_macaddr_get(pc->port, &mac) == 0) {
			memcpy(pc->mac, mac.addr_bytes, 6);
		}
		memcpy(pr->mac, pc->mac, 6);
		pr->port_id = pc->port;
		pr->configured = 1;
		pr->role = (uint8_t)pc->role;
		pr->l2_filter = pc->l2_filter;
		pr->source_check = pc->source_check;
		pr->admin_down = pc->admin_down;
		if (conf.intr_conf.lsc)
			rte_eth_dev_callback_register(pc->port, RTE_ETH_EVENT_INTR_LSC, lsc_event, sw);
		app->port_ids[i] = pc->port;
	}
	app->n_cfg_ports = cfg->n_ports;

	for (i = 0; i < cfg->n_ports; i++) {
		uint16_t port = cfg->ports[i].port;

		rc = rte_eth_dev_start(port);
		if (rc != 0) {
			fprintf(stderr, "port %u: start failed: %s\n", port, strerror(-rc));
			return rc;
		}
		rte_eth_promiscuous_enable(port);
		rte_eth_allmulticast_enable(port);
		if (cfg->qos.pfc.mode == RTR_PFC_NIC && (rc = nic_pfc(cfg, port)) != 0)
			return rc;
	}
	return 0;
}

void
rtr_ports_close(struct rtr_app *app)
{
	for (unsigned int i = 0; i < app->n_cfg_ports; i++) {
		uint16_t port = app->port_ids[i];

		/* Fails harmlessly where no callback was registered. */
		rte_eth_dev_callback_unregister(port, RTE_ETH_EVENT_INTR_LSC, lsc_event, &app->sw);
		rte_eth_dev_stop(port);
		rte_eth_dev_close(port);
	}
}

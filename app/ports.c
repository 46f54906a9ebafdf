/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * Port bring-up for any PMD the EAL was given: one TX queue per worker so TX
 * is lock-free, RX queues spread over workers, RSS on the 5-tuple where the
 * device offers it, link-status interrupts where it has them, and a mempool
 * sized by the budget (app/budget.c). RX is never drained at start-up: a
 * pcap port's first packets are real traffic.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_log.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "budget.h"
#include "nic.h"
#include "nic_caps.h"
#include "nic_tm.h"
#include "numa.h"
#include "ports.h"
#include "rtr_rss.h"

int
rtr_ports_check(struct rtr_app *app)
{
	const struct rtr_config *cfg = &app->cfg;
	uint16_t avail = rte_eth_dev_count_avail();

	for (unsigned int i = 0; i < cfg->n_ports; i++) {
		const struct rtr_port_cfg *pc = &cfg->ports[i];

		if (!rte_eth_dev_is_valid_port(pc->port)) {
			fprintf(stderr,
					"%s:%d: ports[%u].port: DPDK port %u does not exist (the "
					"EAL has %u "
					"port%s: add a --vdev or a PCI device)\n",
					cfg->path, pc->line, i, pc->port, avail,
					avail == 1 ? "" : "s");
			return -EINVAL;
		}
		if (pc->tap && pc->ifname[0] == '\0') {
			fprintf(stderr,
					"%s:%d: ports[%u].tap: a tap needs ports[%u].ifname, the "
					"kernel interface's name\n",
					cfg->path, pc->line, i, i);
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

/* The capability entry of a started port's driver, or NULL. */
static const struct rtr_nic_caps *
port_caps(uint16_t port)
{
	struct rte_eth_dev_info info;

	if (rte_eth_dev_info_get(port, &info) != 0)
		return NULL;
	return rtr_nic_caps_find(info.driver_name);
}

/*
 * qos.pfc.mode pause: 802.3x link pause, both ways, on the whole port
 * (rtr_nic_pfc_decide has refused it on drivers without flow_ctrl_set).
 * pause_time is qos.pfc.quanta; the watermarks are xoff_kb / xon_kb in
 * KB, the unit i40e takes (i40e_ethdev.c i40e_flow_ctrl_set: high_water
 * at most I40E_RXPBSIZE >> I40E_KILOSHIFT); mlx5 ignores them (ethtool
 * pause parameters only, linux/mlx5_ethdev_os.c).
 */
static int
nic_pause(const struct rtr_config *cfg, uint16_t port)
{
	const struct rtr_pfc_cfg *pfc = &cfg->qos.pfc;
	struct rte_eth_fc_conf fc;
	int rc;

	memset(&fc, 0, sizeof(fc));
	fc.mode = RTE_ETH_FC_FULL;
	fc.high_water = pfc->xoff_kb;
	fc.low_water = pfc->xon_kb;
	fc.pause_time = pfc->quanta;
	fc.send_xon = 1;
	rc = rte_eth_dev_flow_ctrl_set(port, &fc);
	if (rc != 0) {
		fprintf(stderr,
				"port %u: qos.pfc.mode pause: the PMD cannot do 802.3x pause: %s "
				"(use qos.pfc.mode %s)\n",
				port, rc == -ENOTSUP ? "not supported" : strerror(-rc),
				rtr_nic_pfc_instead(port_caps(port)));
		return rc;
	}
	printf("rocetor: port %u: NIC 802.3x pause on (quanta %u, xoff %u KB, xon %u KB)\n", port,
			pfc->quanta, pfc->xoff_kb, pfc->xon_kb);
	return 0;
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
			fprintf(stderr,
					"port %u: qos.pfc.mode nic: the PMD cannot do PFC on "
					"priority "
					"%u: %s (use qos.pfc.mode %s)\n",
					port, c, rc == -ENOTSUP ? "not supported" : strerror(-rc),
					rtr_nic_pfc_instead(port_caps(port)));
			return rc;
		}
	}
	printf("rocetor: port %u: NIC PFC on classes 0x%02x\n", port, pfc->class_mask);
	return 0;
}

/*
 * Queue counts, before the mempool (its size depends on them): what
 * rtr_budget_queues() asks for, RX capped by the device, TX one per worker
 * (TX is lock-free) or a start-up error.
 */
static int
queue_counts(struct rtr_app *app, struct rtr_budget_in *in)
{
	struct rtr_config *cfg = &app->cfg;
	unsigned int n_workers = app->sw.n_workers;

	rtr_budget_queues(cfg, n_workers, in);
	in->telemetry_rw = app->telemetry_rw;
	in->rx_headroom_extra = 0;
	for (unsigned int i = 0; i < cfg->n_ports; i++) {
		const struct rtr_port_cfg *pc = &cfg->ports[i];
		struct rte_eth_dev_info info;
		int rc;

		rc = rte_eth_dev_info_get(pc->port, &info);
		if (rc != 0) {
			fprintf(stderr, "port %u: cannot read device info: %s\n", pc->port,
					strerror(-rc));
			return rc;
		}
		{
			const struct rtr_nic_caps *caps = rtr_nic_caps_find(info.driver_name);

			if (caps != NULL && caps->rx_headroom_extra > in->rx_headroom_extra)
				in->rx_headroom_extra = caps->rx_headroom_extra;
		}
		if (pc->mtu == 0) {
			/* Unset: the device's MTU as it is (mlx5 reads the kernel
			 * netdev's at probe, mlx5_os.c; configuring with MTU 0
			 * would set 1500 and push it down to the netdev). */
			uint16_t mtu = RTE_ETHER_MTU;

			rc = rte_eth_dev_get_mtu(pc->port, &mtu);
			if (rc != 0 || mtu < RTE_ETHER_MIN_MTU) {
				fprintf(stderr,
						"rocetor: port %u (%s): cannot read its MTU (%s): "
						"set ports[].mtu\n",
						pc->port, info.driver_name,
						rc != 0 ? strerror(-rc) : "below 68");
				return rc != 0 ? rc : -EINVAL;
			}
			app->cfg.ports[i].mtu = mtu;
			app->mtu_from_device[i] = true;
		}
		if (in->rxq[i] > info.max_rx_queues)
			in->rxq[i] = info.max_rx_queues;
		if (in->txq[i] > info.max_tx_queues) {
			unsigned int hwq = app->cfg.qos.hw_queues ? app->cfg.qos.hw_queues : 1;

			fprintf(stderr,
					"port %u (%s) has %u TX queue%s but %u worker lcores need "
					"%u each (qos.hw_queues %u): "
					"run with fewer lcores or hardware queues, or give the "
					"device "
					"more queues (net_pcap: one tx_pcap per queue)\n",
					pc->port, info.driver_name, info.max_tx_queues,
					info.max_tx_queues == 1 ? "" : "s", n_workers, hwq, hwq);
			return -EINVAL;
		}
		if (in->rxq[i] == 0) {
			fprintf(stderr, "port %u (%s) has no RX queue\n", pc->port,
					info.driver_name);
			return -EINVAL;
		}
		app->rxq[i] = in->rxq[i];
		app->txq[i] = in->txq[i];
	}
	/* Where the ports and workers are, for the pools and the dealing of
	 * the RX queues (app/numa.c). */
	return rtr_numa_sockets(app);
}

/* The mempools, one per socket with ports, sized by the budget
 * (app/budget.c) split by socket (app/numa.c); prints the budget. */
static int
mempool_create(struct rtr_app *app, const struct rtr_budget_in *in)
{
	struct rtr_switch *sw = &app->sw;
	struct rtr_budget b;

	if (rtr_mbuf_budget(&app->cfg, in, &b) < 0) {
		fprintf(stderr, "rocetor: cannot size the mempool\n");
		return -EINVAL;
	}
	app->n_mbufs = b.mbufs;
	app->hold_budget = b.hold_per_worker;
	app->mbuf_data_room = b.data_room;
	if (b.hold_mode != NULL)
		printf("rocetor: %s hold budget %u mbufs per worker (%s%s)\n", b.hold_mode->name,
				b.hold_per_worker,
				b.hold_key != NULL ? b.hold_key : "derived from the mempool",
				b.hold_cut ? ", cut: switch.mbufs is below the formula" : "");
	if (rtr_numa_pools_create(app, in, &b) != 0 || sw->pool == NULL)
		return -ENOMEM;
	/* app->n_mbufs: the pools summed (b.mbufs with every port on one
	 * socket). */
	printf("rocetor: mempool %u mbufs x %u B (%.1f MiB) = rx %" PRIu64 " + tx %" PRIu64
	       " descriptors + %u workers x %" PRIu64 " + egress %" PRIu64 " + reorder %" PRIu64
	       " + %" PRIu64 " control%s\n",
			app->n_mbufs, app->mbuf_data_room,
			(double)app->n_mbufs * (app->mbuf_data_room + 128 + 64) / (1 << 20),
			b.rx_desc, b.tx_desc, in->workers, b.per_worker, b.egress, b.hold,
			b.control, b.mbufs_set ? " (switch.mbufs overrides)" : "");
	rtr_numa_print();
	return 0;
}

/* RoCE flows differ by their UDP source port only (the RNIC picks it per
 * QP): a device that does not hash UDP ports puts every flow between two
 * hosts on one queue. What it took is read back (ice in safe mode, a device
 * with a narrower set than it advertises). */
static void
rss_check(uint16_t port, const char *driver, uint64_t asked)
{
	struct rte_eth_rss_conf rc = {0};
	const uint64_t udp = RTE_ETH_RSS_NONFRAG_IPV4_UDP | RTE_ETH_RSS_NONFRAG_IPV6_UDP;
	int err = rte_eth_dev_rss_hash_conf_get(port, &rc);

	if (err != 0) {
		printf("rocetor: port %u (%s): the RSS hash in effect cannot be read (%s); asked "
		       "for 0x%" PRIx64 "\n",
				port, driver, strerror(-err), asked);
		return;
	}
	if ((rc.rss_hf & udp) == 0)
		printf("rocetor: port %u (%s): warning: RSS hashes 0x%" PRIx64 " (no UDP ports): "
		       "the RoCE flows between two hosts share one queue\n",
				port, driver, rc.rss_hf);
}

/* Configure port cfg->ports[i]: RSS, link interrupts, MTU, its queues
 * (RX queues dealt over the workers), its MAC; then its run-time view. */
static int
port_configure(struct rtr_app *app, unsigned int i)
{
	struct rtr_port_cfg *pc = &app->cfg.ports[i];
	struct rtr_switch *sw = &app->sw;
	struct rtr_fwd_port *pr = &sw->ports[pc->port];
	struct rte_eth_conf conf;
	struct rte_eth_dev_info info;
	struct rte_ether_addr mac;
	uint16_t nb_rxd = RTR_RX_DESC, nb_txd = RTR_TX_DESC;
	uint8_t rss_key[RTR_RSS_KEY_MAX];
	unsigned int q;
	int rc;

	memset(&conf, 0, sizeof(conf));
	rc = rte_eth_dev_info_get(pc->port, &info);
	if (rc != 0) {
		fprintf(stderr, "port %u: cannot read device info: %s\n", pc->port, strerror(-rc));
		return rc;
	}
	/* What the capability table says of this driver (app/nic_caps.c). */
	rc = rtr_nic_port_check(app, i, &info);
	if (rc != 0)
		return rc;
	if (app->rxq[i] > 1 && info.flow_type_rss_offloads != 0) {
		conf.rxmode.mq_mode = RTE_ETH_MQ_RX_RSS;
		conf.rx_adv_conf.rss_conf.rss_hf =
				(RTE_ETH_RSS_IP | RTE_ETH_RSS_UDP | RTE_ETH_RSS_TCP) &
				info.flow_type_rss_offloads;
		/* rocetor's key from the start: i40e loads the configured key
		 * at every start and its default otherwise (i40e_ethdev.c
		 * i40e_pf_reset_rss_key), mlx5 wants exactly its key size
		 * (mlx5_ethdev.c mlx5_dev_configure). A device that reports no
		 * key size (net_null) gets it by rss_hash_update after start. */
		if (info.hash_key_size != 0 && info.hash_key_size <= RTR_RSS_KEY_MAX) {
			rtr_rss_key(rss_key, info.hash_key_size);
			conf.rx_adv_conf.rss_conf.rss_key = rss_key;
			conf.rx_adv_conf.rss_conf.rss_key_len = info.hash_key_size;
		}
		if (info.rx_offload_capa & RTE_ETH_RX_OFFLOAD_RSS_HASH)
			conf.rxmode.offloads |= RTE_ETH_RX_OFFLOAD_RSS_HASH;
		/* One RX queue per worker: queue q is worker q's and the RETA
		 * sends each flow to its owner's queue. */
		app->rss_owner[i] = app->rxq[i] == sw->n_workers;
	} else if (app->rxq[i] > 1) {
		printf("rocetor: port %u (%s): warning: no RSS: every packet arrives on RX queue "
		       "0, the other %u stay idle and one worker receives the whole port\n",
				pc->port, info.driver_name, app->rxq[i] - 1);
	}
	if (*info.dev_flags & RTE_ETH_DEV_INTR_LSC)
		conf.intr_conf.lsc = 1;
	conf.rxmode.mtu = pc->mtu; /* the config's, or the device's (queue_counts) */
	rc = rte_eth_dev_configure(pc->port, app->rxq[i], app->txq[i], &conf);
	if (rc != 0) {
		fprintf(stderr, "port %u (%s): configure %u rx / %u tx queues failed: %s\n",
				pc->port, info.driver_name, app->rxq[i], app->txq[i],
				strerror(-rc));
		return rc;
	}
	if (conf.rxmode.mq_mode == RTE_ETH_MQ_RX_RSS)
		rss_check(pc->port, info.driver_name, conf.rx_adv_conf.rss_conf.rss_hf);
	rc = rte_eth_dev_adjust_nb_rx_tx_desc(pc->port, &nb_rxd, &nb_txd);
	if (rc != 0) {
		fprintf(stderr, "port %u (%s): descriptor counts %u rx / %u tx refused: %s\n",
				pc->port, info.driver_name, nb_rxd, nb_txd, strerror(-rc));
		return rc;
	}
	app->nb_rxd[i] = nb_rxd;
	app->nb_txd[i] = nb_txd;
	rc = rtr_numa_deal_port(app, i);
	if (rc != 0)
		return rc;
	for (q = 0; q < app->rxq[i]; q++) {
		/* Dealt by socket (app/deal.h): queue q is worker q's on an
		 * RSS owner port; mbufs from the port's socket's pool. */
		struct rtr_worker *w = sw->workers[rtr_numa_rx_worker(i, q)];

		rc = rte_eth_rx_queue_setup(pc->port, (uint16_t)q, nb_rxd,
				rte_eth_dev_socket_id(pc->port), NULL, rtr_numa_rx_pool(app, i));
		if (rc != 0) {
			fprintf(stderr, "port %u: rx queue %u setup failed: %s\n", pc->port, q,
					strerror(-rc));
			return rc;
		}
		w->rxq[w->n_rxq].port = pc->port;
		w->rxq[w->n_rxq].queue = (uint16_t)q;
		w->rxq[w->n_rxq].cap = 2u * nb_rxd;
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
		rc = rte_eth_dev_default_mac_addr_set(pc->port, &mac);
		if (rc != 0)
			printf("rocetor: port %u (%s): the device keeps its own MAC (%s); "
			       "promiscuous mode receives for the configured one\n",
					pc->port, info.driver_name, strerror(-rc));
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
	if (conf.intr_conf.lsc) {
		rc = rte_eth_dev_callback_register(pc->port, RTE_ETH_EVENT_INTR_LSC, lsc_event, sw);
		if (rc != 0)
			printf("rocetor: port %u (%s): no link-change callback (%s): link "
			       "changes are seen by polling\n",
					pc->port, info.driver_name, strerror(-rc));
	}
	app->port_ids[i] = pc->port;
	return 0;
}

/*
 * RSS that sends each flow to its owner (lib/rss/rtr_rss.h), once the port
 * runs (i40e loads its RSS state at start, mlx5 restarts its traffic on a
 * RETA update): rocetor's key, checked and set again where the device did
 * not take it; a RETA whose entry i is owner slot i; both read back. What
 * fails is said and the port's flows are handed over in software.
 */
static const char *
rss_owner_program(struct rtr_app *app, unsigned int i, const struct rte_eth_dev_info *info)
{
	static char why[160];
	uint16_t port = app->cfg.ports[i].port;
	struct rtr_switch *sw = &app->sw;
	unsigned int key_len = info->hash_key_size != 0 ? info->hash_key_size : 40;
	uint8_t key[RTR_RSS_KEY_MAX], got[RTR_RSS_KEY_MAX];
	/* 512 entries at most: mlx5 (linux/mlx5_os.c:249-251) and ice
	 * (ice_ethdev.c:1577-1579) cap their RETA there, i40e has 512. */
	struct rte_eth_rss_reta_entry64 reta[RTE_ETH_RSS_RETA_SIZE_512 / RTE_ETH_RETA_GROUP_SIZE];
	static uint16_t want[RTE_ETH_RSS_RETA_SIZE_512];
	const uint64_t udp = RTE_ETH_RSS_NONFRAG_IPV4_UDP | RTE_ETH_RSS_NONFRAG_IPV6_UDP;
	unsigned int size = info->reta_size, g;
	struct rte_eth_rss_conf rc;
	int err;

	if (key_len > RTR_RSS_KEY_MAX) {
		snprintf(why, sizeof(why), "its key of %u bytes is longer than %u", key_len,
				RTR_RSS_KEY_MAX);
		return why;
	}
	rtr_rss_key(key, key_len);
	for (int attempt = 0;; attempt++) {
		memset(&rc, 0, sizeof(rc));
		memset(got, 0, sizeof(got));
		rc.rss_key = got;
		rc.rss_key_len = (uint8_t)key_len;
		err = rte_eth_dev_rss_hash_conf_get(port, &rc);
		if (err != 0) {
			snprintf(why, sizeof(why), "its RSS key cannot be read (%s)",
					strerror(-err));
			return why;
		}
		if ((rc.rss_hf & udp) != udp) {
			snprintf(why, sizeof(why), "it hashes 0x%" PRIx64 ", not the UDP ports",
					rc.rss_hf);
			return why;
		}
		if (memcmp(got, key, key_len) == 0)
			break;
		if (attempt == 1) {
			snprintf(why, sizeof(why), "it does not keep rocetor's key");
			return why;
		}
		rc.rss_key = key;
		err = rte_eth_dev_rss_hash_update(port, &rc);
		if (err != 0) {
			snprintf(why, sizeof(why), "it refuses rocetor's key (%s)", strerror(-err));
			return why;
		}
	}
	if (size > RTE_DIM(want) || !rtr_rss_reta(&sw->rss, want, size)) {
		snprintf(why, sizeof(why), "its RETA of %u entries cannot name every flow's owner",
				size);
		return why;
	}
	memset(reta, 0, sizeof(reta));
	for (unsigned int e = 0; e < size; e++) {
		g = e / RTE_ETH_RETA_GROUP_SIZE;
		reta[g].mask |= 1ULL << (e % RTE_ETH_RETA_GROUP_SIZE);
		reta[g].reta[e % RTE_ETH_RETA_GROUP_SIZE] = want[e];
	}
	err = rte_eth_dev_rss_reta_update(port, reta, (uint16_t)size);
	if (err != 0) {
		snprintf(why, sizeof(why), "it refuses a RETA of %u entries (%s)", size,
				strerror(-err));
		return why;
	}
	for (g = 0; g < (size + RTE_ETH_RETA_GROUP_SIZE - 1) / RTE_ETH_RETA_GROUP_SIZE; g++)
		memset(reta[g].reta, 0xff, sizeof(reta[g].reta));
	err = rte_eth_dev_rss_reta_query(port, reta, (uint16_t)size);
	for (unsigned int e = 0; err == 0 && e < size; e++)
		if (reta[e / RTE_ETH_RETA_GROUP_SIZE].reta[e % RTE_ETH_RETA_GROUP_SIZE] != want[e])
			err = -EIO;
	if (err != 0) {
		snprintf(why, sizeof(why), "its RETA reads back otherwise (%s)", strerror(-err));
		return why;
	}
	return NULL;
}

/*
 * qos.hw_queues > 1 (doc/egress.md "Hardware TX queues per class"): the
 * control class's TX queues first at the NIC where rte_tm gives queue
 * priorities (ice), else say the NIC serves them as it does (round-robin).
 */
static void
tx_queue_priorities(struct rtr_app *app, unsigned int i)
{
	static struct rtr_tm_node nodes[3 + RTR_MAX_LCORES + 1024];
	const struct rtr_nic_caps *caps = app->nic[i].caps;
	unsigned int hwq = app->cfg.qos.hw_queues ? app->cfg.qos.hw_queues : 1;
	uint16_t port = app->cfg.ports[i].port;
	char err[256] = "";
	int n, rc;

	if (hwq < 2)
		return;
	if (caps == NULL || !caps->tm_prio) {
		printf("rocetor: port %u: %u hardware TX queues per worker; the NIC serves them as "
		       "it does (%s): the control class has its own queue, not priority at the "
		       "NIC\n",
				port, hwq,
				caps == NULL ? "no capability entry"
					     : "no rte_tm queue priorities");
		return;
	}
	n = rtr_tm_plan(app->sw.n_workers, hwq, app->txq[i], nodes, RTE_DIM(nodes));
	rc = n < 0 ? -EINVAL
		   : rtr_tm_apply(port, app->txq[i], nodes, (unsigned int)n, err, sizeof(err));
	if (rc != 0)
		printf("rocetor: port %u: warning: rte_tm queue priorities refused (%s): the NIC "
		       "serves the %u hardware TX queues round-robin\n",
				port, n < 0 ? "too many queues for the plan" : err, hwq);
	else
		printf("rocetor: port %u: rte_tm: the control class's TX queues first, the others "
		       "round-robin (%d nodes)\n",
				port, n);
}

/* After start: program a port's owner RSS and say what it does. */
static void
rss_owner_start(struct rtr_app *app, unsigned int i)
{
	uint16_t port = app->cfg.ports[i].port;
	struct rte_eth_dev_info info;
	struct rte_eth_conf conf;
	const char *why;

	if (!app->rss_owner[i])
		return;
	if (rte_eth_dev_info_get(port, &info) != 0)
		memset(&info, 0, sizeof(info));
	why = rss_owner_program(app, i, &info);
	if (why != NULL) {
		printf("rocetor: port %u (%s): warning: RSS cannot send each flow to its owner "
		       "worker (%s): stateful modes hand its packets over in software\n",
				port, info.driver_name, why);
		return;
	}
	/* The NIC's hash in the mbuf saves the software one (the same). */
	if (rte_eth_dev_conf_get(port, &conf) == 0 &&
			(conf.rxmode.offloads & RTE_ETH_RX_OFFLOAD_RSS_HASH))
		app->sw.rss_nic_hash |= 1u << port;
	printf("rocetor: port %u (%s): RSS owner: queue q is worker q's, key 0x%04x x %u B, "
	       "RETA %u entries read back, %s hash\n",
			port, info.driver_name, RTR_RSS_KEY_WORD,
			info.hash_key_size != 0 ? info.hash_key_size : 40, info.reta_size,
			(app->sw.rss_nic_hash >> port) & 1 ? "NIC" : "software");
}

static int
port_start(const struct rtr_config *cfg, uint16_t port)
{
	int rc = rte_eth_dev_start(port);

	if (rc != 0) {
		fprintf(stderr, "port %u: start failed: %s\n", port, strerror(-rc));
		return rc;
	}
	/* L2 filtering is rocetor's (ports[].l2_filter): the device must
	 * pass every frame. */
	rc = rte_eth_promiscuous_enable(port);
	if (rc != 0)
		printf("rocetor: port %u: promiscuous mode refused (%s): only frames for "
		       "its MAC, broadcast and multicast arrive\n",
				port, strerror(-rc));
	rc = rte_eth_allmulticast_enable(port);
	if (rc != 0 && rte_eth_promiscuous_get(port) != 1)
		printf("rocetor: port %u: all-multicast refused (%s): IPv6 neighbour "
		       "discovery may not arrive\n",
				port, strerror(-rc));
	if (cfg->qos.pfc.mode == RTR_PFC_NIC)
		return nic_pfc(cfg, port);
	if (cfg->qos.pfc.mode == RTR_PFC_PAUSE)
		return nic_pause(cfg, port);
	return 0;
}

int
rtr_ports_setup(struct rtr_app *app)
{
	const struct rtr_config *cfg = &app->cfg;
	struct rtr_budget_in in;
	unsigned int i;
	int rc;

	rc = queue_counts(app, &in);
	if (rc == 0)
		rc = mempool_create(app, &in);
	for (i = 0; rc == 0 && i < cfg->n_ports; i++)
		rc = port_configure(app, i);
	if (rc != 0)
		return rc;
	app->n_cfg_ports = cfg->n_ports;
	for (i = 0; i < cfg->n_ports; i++) {
		rc = port_start(cfg, cfg->ports[i].port);
		if (rc != 0)
			return rc;
		rss_owner_start(app, i);
		tx_queue_priorities(app, i);
	}
	return 0;
}

/* --wait-links MS: some devices come up after rte_eth_dev_start() (memif
 * waits for its peer, real NICs negotiate). Poll every configured port that
 * is not admin_down every 10 ms until all report link up or MS ms passed;
 * then name the ports still down and go on anyway (not an error). */
void
rtr_ports_wait_links(const struct rtr_app *app, uint64_t ms)
{
	const struct timespec tick = {.tv_sec = 0, .tv_nsec = 10 * 1000 * 1000};
	uint64_t hz = rte_get_tsc_hz(), t0 = rte_rdtsc(), waited_ms;
	char down[256];
	bool said = false;

	for (;;) {
		unsigned int n_down = 0;
		size_t len = 0;

		down[0] = '\0';
		for (unsigned int i = 0; i < app->cfg.n_ports; i++) {
			const struct rtr_port_cfg *pc = &app->cfg.ports[i];
			struct rte_eth_link link;

			memset(&link, 0, sizeof(link));
			if (pc->admin_down || (rte_eth_link_get_nowait(pc->port, &link) == 0 &&
							      link.link_status == RTE_ETH_LINK_UP))
				continue;
			n_down++;
			if (len < sizeof(down))
				len += (size_t)snprintf(
						down + len, sizeof(down) - len, " %u", pc->port);
		}
		waited_ms = (rte_rdtsc() - t0) * 1000 / hz;
		if (n_down == 0) {
			printf("rocetor: --wait-links: all links up after %" PRIu64 " ms\n",
					waited_ms);
			fflush(stdout);
			return;
		}
		/* Ports are started: a memif peer may connect from now on. */
		if (!said) {
			printf("rocetor: --wait-links: waiting up to %" PRIu64 " ms for port%s%s\n",
					ms, n_down == 1 ? "" : "s", down);
			fflush(stdout);
			said = true;
		}
		if (waited_ms >= ms) {
			fprintf(stderr,
					"rocetor: --wait-links %" PRIu64 ": after %" PRIu64 " ms, "
					"port%s still down:%s\n",
					ms, waited_ms, n_down == 1 ? "" : "s", down);
			return;
		}
		nanosleep(&tick, NULL);
	}
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

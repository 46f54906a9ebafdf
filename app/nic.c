/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * The capability table on real ports (nic.h). The decisions are
 * rtr_nic_decide()'s (nic_caps.c, unit-tested without EAL); this file only
 * asks the device what they need and says what they decided.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "nic.h"
#include "rtr_json.h"

/* qos.pfc.mode against the entry (rtr_nic_pfc_decide): said, and -ENOTSUP
 * for a refusal. */
static int
pfc_check(const struct rtr_app *app, unsigned int i, const struct rtr_nic_caps *caps,
		const char *drv)
{
	enum rtr_pfc_mode mode = app->cfg.qos.pfc.mode;
	const char *name = rtr_pfc_mode_names[mode];
	struct rtr_pfc_decision d = rtr_nic_pfc_decide(caps, mode, app->cfg.qos.pfc.xoff_kb);
	unsigned int port = app->cfg.ports[i].port;

	if (d.verdict == RTR_PFCV_REFUSE) {
		fprintf(stderr,
				"port %u (%s): qos.pfc.mode %s refused: %s; use qos.pfc.mode %s "
				"instead (doc/egress.md \"Lossless on each NIC family\")\n",
				port, drv, name, d.why, d.instead);
		return -ENOTSUP;
	}
	if (d.verdict == RTR_PFCV_WARN)
		printf("rocetor: port %u (%s): warning: qos.pfc.mode %s: %s%s%s\n", port, drv, name,
				d.why,
				mode == RTR_PFC_NIC && caps != NULL && caps->pfc_hint ? ": " : "",
				mode == RTR_PFC_NIC && caps != NULL && caps->pfc_hint
						? caps->pfc_hint
						: "");
	if (mode == RTR_PFC_EXTERNAL)
		printf("rocetor: port %u (%s): qos.pfc.mode external: rocetor sets no flow "
		       "control; set PFC outside DPDK: %s; %s%s%s%s\n",
				port, drv,
				d.recipe != NULL ? d.recipe
						 : "no recipe known for this driver (no capability "
						   "entry or no NIC)",
				d.no_pause_xstats ? "no pause counter to watch" : "watching ",
				d.no_pause_xstats ? "" : rtr_nic_ctr_names[RTR_NIC_RX_PAUSE],
				d.no_pause_xstats ? "" : "/",
				d.no_pause_xstats ? "" : rtr_nic_ctr_names[RTR_NIC_TX_PAUSE]);
	return 0;
}

int
rtr_nic_port_check(struct rtr_app *app, unsigned int i, const struct rte_eth_dev_info *info)
{
	const struct rtr_port_cfg *pc = &app->cfg.ports[i];
	const struct rtr_nic_caps *caps = rtr_nic_caps_find(info->driver_name);
	const char *drv = info->driver_name;
	struct rtr_nic_in in = {
			.driver = drv,
			.rss_offered = info->flow_type_rss_offloads,
			.max_mtu = info->max_mtu,
			.max_rx_pktlen = info->max_rx_pktlen,
			.mtu = pc->mtu,
			.rx_queues = app->rxq[i],
			.data_room = app->mbuf_data_room,
			.headroom = RTE_PKTMBUF_HEADROOM,
			.mtu_from_config = !app->mtu_from_device[i],
			.reta_size = info->reta_size,
			.key_size = info->hash_key_size,
			.lsc = (*info->dev_flags & RTE_ETH_DEV_INTR_LSC) != 0,
	};
	unsigned int w = rtr_nic_decide(caps, &in);
	char a[256], b[256];

	memset(&app->nic[i], 0, sizeof(app->nic[i]));
	app->nic[i].caps = caps;
	if (w & RTR_NICW_NO_ENTRY)
		printf("rocetor: port %u (%s): no capability entry: RSS, flow control and NIC "
		       "counters are only what the device reports (app/nic_caps.c)\n",
				pc->port, drv);
	if (w & RTR_NICW_LESS_RSS)
		printf("rocetor: port %u (%s): warning: the device offers RSS on %s, its driver "
		       "can do %s%s%s\n",
				pc->port, drv,
				in.rss_offered ? rtr_nic_rss_str(in.rss_offered, a, sizeof(a))
					       : "nothing",
				rtr_nic_rss_str(caps->rss_hf, b, sizeof(b)),
				caps->no_rss_hint ? ": " : "",
				caps->no_rss_hint ? caps->no_rss_hint : "");
	if (w & RTR_NICW_NO_UDP_RSS)
		printf("rocetor: port %u (%s): warning: its driver hashes no UDP ports: the RoCE "
		       "flows between two hosts share one RX queue\n",
				pc->port, drv);
	if (w & RTR_NICW_RX_BUF)
		printf("rocetor: port %u (%s): warning: the RX buffer is programmed as %u bytes "
		       "(rounded down to %u) while frames up to %u bytes arrive unscattered: "
		       "longer ones are cut\n",
				pc->port, drv, rtr_nic_rx_buf(caps, in.data_room, in.headroom),
				caps->rx_buf_align, in.data_room - in.headroom);
	if (w & RTR_NICW_MAX_MTU)
		printf("rocetor: port %u (%s): warning: the device's largest MTU is %u: RoCE's "
		       "4096-byte path MTU needs %u\n",
				pc->port, drv, rtr_nic_max_mtu(in.max_mtu, in.max_rx_pktlen),
				RTR_NIC_ROCE4096_MTU);
	if (w & RTR_NICW_MTU_ABOVE_MAX)
		printf("rocetor: port %u (%s): warning: mtu %u is above the largest the device "
		       "takes (%u): it will refuse the configuration\n",
				pc->port, drv, in.mtu,
				rtr_nic_max_mtu(in.max_mtu, in.max_rx_pktlen));
	if (w & RTR_NICW_MTU_KERNEL)
		printf("rocetor: port %u (%s): note: ports[].mtu %u is set on the kernel netdev "
		       "too\n",
				pc->port, drv, in.mtu);
	if (rtr_nic_table_diff(caps, &in, a, sizeof(a)) > 0)
		printf("rocetor: port %u (%s): the device differs from its capability entry: %s "
		       "(doc/nic-facts.md: worth reporting)\n",
				pc->port, drv, a);
	if (caps != NULL && caps->note != NULL)
		printf("rocetor: port %u (%s): note: %s\n", pc->port, drv, caps->note);
	return pfc_check(app, i, caps, drv);
}

void
rtr_nic_port_xstats(struct rtr_app *app, unsigned int i)
{
	struct rtr_nic_port *np = &app->nic[i];
	uint16_t port = app->port_ids[i];
	struct rte_eth_xstat_name *names;
	char drv[64] = "?";
	struct rte_eth_dev_info info;
	int n;

	np->looked_up = true;
	memset(np->n_ids, 0, sizeof(np->n_ids));
	if (rte_eth_dev_info_get(port, &info) == 0)
		snprintf(drv, sizeof(drv), "%s", info.driver_name);
	n = rte_eth_xstats_get_names(port, NULL, 0);
	names = n > 0 ? calloc((size_t)n, sizeof(*names)) : NULL;
	if (names != NULL && rte_eth_xstats_get_names(port, names, (unsigned int)n) == n) {
		for (int x = 0; x < n; x++)
			for (unsigned int c = 0; c < RTR_NIC_CTR_MAX; c++)
				if (np->n_ids[c] < RTR_NIC_MAX_IDS &&
						rtr_nic_xstat_match(np->caps, c, names[x].name))
					np->ids[c][np->n_ids[c]++] = (uint64_t)x;
	} else if (n != 0) {
		printf("rocetor: port %u (%s): its xstats names cannot be read (%s): the NIC "
		       "counters of its driver are left out\n",
				port, drv, n < 0 ? strerror(-n) : "out of memory or changed");
	}
	free(names);
	printf("rocetor: port %u (%s): NIC xstats summed: %s %u, %s %u, %s %u (0: the driver "
	       "has none, the counter is left out)\n",
			port, drv, rtr_nic_ctr_names[RTR_NIC_RX_PAUSE], np->n_ids[RTR_NIC_RX_PAUSE],
			rtr_nic_ctr_names[RTR_NIC_TX_PAUSE], np->n_ids[RTR_NIC_TX_PAUSE],
			rtr_nic_ctr_names[RTR_NIC_RX_DISCARDS], np->n_ids[RTR_NIC_RX_DISCARDS]);
}

static const char *
speed_str(uint32_t mbps, char *buf, size_t len)
{
	if (mbps == RTE_ETH_SPEED_NUM_NONE)
		snprintf(buf, len, "none");
	else if (mbps == RTE_ETH_SPEED_NUM_UNKNOWN)
		snprintf(buf, len, "unknown");
	else if (mbps % 1000 == 0)
		snprintf(buf, len, "%uG", mbps / 1000);
	else
		snprintf(buf, len, "%uM", mbps);
	return buf;
}

static const char *
fc_mode_str(enum rte_eth_fc_mode m)
{
	switch (m) {
	case RTE_ETH_FC_NONE:
		return "off";
	case RTE_ETH_FC_RX_PAUSE:
		return "rx";
	case RTE_ETH_FC_TX_PAUSE:
		return "tx";
	case RTE_ETH_FC_FULL:
		return "full";
	}
	return "?";
}

const char *
rtr_nic_port_line(const struct rtr_app *app, unsigned int i, char *buf, size_t len)
{
	const struct rtr_nic_caps *caps = app->nic[i].caps;
	uint16_t port = app->port_ids[i];
	struct rte_eth_link link;
	struct rte_eth_conf conf;
	struct rte_eth_fc_conf fc;
	struct rte_eth_dev_info info;
	char speed[16], rss[160] = "off";
	const char *fcs = "n/a";
	bool lsc = false;

	memset(&link, 0, sizeof(link));
	if (rte_eth_link_get_nowait(port, &link) != 0)
		link.link_speed = RTE_ETH_SPEED_NUM_UNKNOWN;
	/* RSS types in effect: what the device took, when RSS is on. */
	memset(&conf, 0, sizeof(conf));
	if (rte_eth_dev_conf_get(port, &conf) == 0 && conf.rxmode.mq_mode == RTE_ETH_MQ_RX_RSS) {
		struct rte_eth_rss_conf rc;

		memset(&rc, 0, sizeof(rc));
		if (rte_eth_dev_rss_hash_conf_get(port, &rc) == 0)
			rtr_nic_rss_str(rc.rss_hf, rss, sizeof(rss));
		else
			snprintf(rss, sizeof(rss), "unreadable");
	}
	memset(&fc, 0, sizeof(fc));
	if (rte_eth_dev_flow_ctrl_get(port, &fc) == 0)
		fcs = fc_mode_str(fc.mode);
	if (rte_eth_dev_info_get(port, &info) == 0)
		lsc = (*info.dev_flags & RTE_ETH_DEV_INTR_LSC) != 0;
	snprintf(buf, len, " speed %s rss %s fc %s pfc %s lsc %s caps %s",
			speed_str(link.link_speed, speed, sizeof(speed)), rss, fcs,
			caps == NULL ? "?"
			: caps->pfc  ? "yes"
				     : "no",
			lsc ? "yes" : "no", caps == NULL ? "none" : caps->driver);
	return buf;
}

void
rtr_nic_snapshot(struct rtr_app *app)
{
	for (unsigned int i = 0; i < app->n_cfg_ports; i++) {
		struct rtr_nic_port *np = &app->nic[i];
		uint64_t v[RTR_NIC_MAX_IDS];

		if (!np->looked_up)
			continue;
		for (unsigned int c = 0; c < RTR_NIC_CTR_MAX; c++) {
			uint64_t sum = 0;

			if (np->n_ids[c] == 0)
				continue;
			if (rte_eth_xstats_get_by_id(app->port_ids[i], np->ids[c], v,
					    np->n_ids[c]) != np->n_ids[c])
				continue; /* keeps the last value */
			for (unsigned int k = 0; k < np->n_ids[c]; k++)
				sum += v[k];
			np->value[c] = sum;
		}
	}
}

bool
rtr_nic_has(const struct rtr_app *app, unsigned int i, enum rtr_nic_ctr c)
{
	return c < RTR_NIC_CTR_MAX && app->nic[i].n_ids[c] > 0;
}

void
rtr_nic_json(struct rtr_json *w, const struct rtr_app *app, unsigned int i)
{
	for (unsigned int c = 0; c < RTR_NIC_CTR_MAX; c++)
		if (rtr_nic_has(app, i, c))
			rtr_json_kv_u64(w, rtr_nic_ctr_names[c], app->nic[i].value[c]);
}

/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * The switch built from the config, in two steps around the ports (the
 * ports need the workers to deal their RX queues, the egress needs the
 * ports' link speeds): workers on the lcores first; then neighbours,
 * routes, the LB states, egress and the run parameters.
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_mempool.h>
#include <rte_ring.h>

#include "control.h"
#include "lb.h"
#include "nic_caps.h"
#include "setup.h"

static int
nh_add(void *arg, uint16_t port, const struct rtr_addr *ip, const uint8_t *mac)
{
	return rtr_neigh_add(arg, port, ip, mac);
}

int
rtr_app_workers_setup(struct rtr_app *app)
{
	struct rtr_switch *sw = &app->sw;
	unsigned int lcores[RTR_MAX_LCORES], n_lcores = 0, lcore, i, n = 0;
	char name[RTE_RING_NAMESIZE];

	/* With one lcore the main lcore forwards too; with more, the main
	 * lcore runs the control plane and every other lcore forwards. */
	if (rte_lcore_count() == 1 || app->main_forwards) {
		lcores[n_lcores++] = rte_get_main_lcore();
	}
	if (rte_lcore_count() > 1) {
		RTE_LCORE_FOREACH_WORKER(lcore)
		{
			if (n_lcores < RTR_MAX_LCORES)
				lcores[n_lcores++] = lcore;
		}
	}
	for (i = 0; i < n_lcores; i++) {
		struct rtr_worker *w;

		lcore = lcores[i];
		w = rte_zmalloc_socket("rtr_worker", sizeof(*w), RTE_CACHE_LINE_SIZE,
				(int)rte_lcore_to_socket_id(lcore));

		if (w == NULL)
			return -ENOMEM;
		w->idx = n;
		w->lcore_id = lcore;
		w->sw = sw;
		w->is_control = lcore == rte_get_main_lcore();
		w->stats = rte_zmalloc_socket("rtr_stats", sizeof(*w->stats), RTE_CACHE_LINE_SIZE,
				(int)rte_lcore_to_socket_id(lcore));
		snprintf(name, sizeof(name), "rtr_handoff_%u", n);
		w->handoff = rte_ring_create(name, app->cfg.sw.handoff_ring,
				(int)rte_lcore_to_socket_id(lcore),
				RING_F_SC_DEQ | RING_F_EXACT_SZ);
		snprintf(name, sizeof(name), "rtr_inject_%u", n);
		w->inject = rte_ring_create(name, RTR_INJECT_RING_SIZE,
				(int)rte_lcore_to_socket_id(lcore), RING_F_SP_ENQ | RING_F_SC_DEQ);
		if (w->stats == NULL || w->handoff == NULL || w->inject == NULL)
			return -ENOMEM;
		if (rtr_fault_enabled(&app->cfg.faults)) {
			w->fault = rte_zmalloc_socket("rtr_fault", sizeof(*w->fault),
					RTE_CACHE_LINE_SIZE, (int)rte_lcore_to_socket_id(lcore));
			if (w->fault == NULL)
				return -ENOMEM;
			rtr_fault_init(w->fault, &app->cfg.faults, n);
		}
		sw->workers[n++] = w;
	}
	sw->n_workers = n;
	/* Worker w's TX queue for hardware queue h: w + h * workers (with one
	 * hardware queue, w: as before issue 31). */
	for (i = 0; i < n; i++) {
		enum rtr_pfc_mode pm = app->cfg.qos.pfc.mode;

		for (unsigned int h = 0; h < RTR_MAX_HW_QUEUES; h++)
			sw->workers[i]->txq[h] = (uint16_t)(i + h * n);
		sw->workers[i]->rx_hold_on =
				pm == RTR_PFC_NIC || pm == RTR_PFC_PAUSE || pm == RTR_PFC_EXTERNAL;
	}
	rtr_rss_init(&sw->rss, n);
	sw->ctrl_stats = rte_zmalloc("rtr_stats", sizeof(*sw->ctrl_stats), RTE_CACHE_LINE_SIZE);
	sw->ctrl_ring = rte_ring_create(
			"rtr_ctrl", RTR_CTRL_RING_SIZE, (int)rte_socket_id(), RING_F_SC_DEQ);
	if (sw->ctrl_stats == NULL || sw->ctrl_ring == NULL)
		return -ENOMEM;
	return 0;
}

/* Descriptors in flight per TX queue when nic_ring_desc is auto and the
 * driver's descriptor status can be read: four bursts. */
#define RTR_NIC_DESC_AUTO (4 * RTR_BURST)

/*
 * The bounded NIC ring of config port i (doc/egress.md "The NIC ring"):
 * nic_ring_kb auto bounds hardware NICs (the capability table's hw_ring)
 * and leaves virtual ports as they were; the descriptor cap is read where
 * the driver's descriptor status is trusted. Says what it did.
 */
static void
setup_nic_ring(struct rtr_app *app, unsigned int i)
{
	const struct rtr_port_cfg *pc = &app->cfg.ports[i];
	const struct rtr_nic_caps *caps = app->nic[i].caps;
	struct rtr_switch *sw = &app->sw;
	uint8_t ds = caps != NULL ? caps->tx_ds : RTR_EG_DS_NONE;
	uint32_t kb = pc->nic_ring_kb;
	uint16_t cap = 0;

	if (kb == RTR_NIC_RING_AUTO)
		kb = caps != NULL && caps->hw_ring ? RTR_NIC_RING_AUTO_KB : 0;
	if (kb > 0 && ds != RTR_EG_DS_NONE)
		cap = pc->nic_ring_desc ? pc->nic_ring_desc
					: RTE_MIN(RTR_NIC_DESC_AUTO, app->nb_txd[i] / 2);
	rtr_egress_set_ring(sw->egress, pc->port, kb * 1024u, cap);
	for (unsigned int w = 0; w < sw->n_workers; w++) {
		sw->workers[w]->tx_ds[pc->port] = cap ? ds : RTR_EG_DS_NONE;
		sw->workers[w]->tx_ring[pc->port] = app->nb_txd[i];
	}
	if (kb == 0) {
		printf("rocetor: port %u: NIC ring unbounded (%s): frames go while the TX queue "
		       "takes them\n",
				pc->port,
				pc->nic_ring_kb == 0 ? "nic_ring_kb 0"
				: caps == NULL       ? "no capability entry: set nic_ring_kb"
						     : "a virtual port");
		return;
	}
	char capstr[96];

	if (cap)
		snprintf(capstr, sizeof(capstr), "%u (driver descriptor status)", cap);
	else
		snprintf(capstr, sizeof(capstr), "off%s",
				caps != NULL && caps->hw_ring
						? " (this driver's descriptor status is not "
						  "trusted: doc/nic-facts.md)"
						: "");
	printf("rocetor: port %u: NIC ring bounded: %u KB of wire time ahead at %.1f Gb/s, a "
	       "control frame waits at most %.1f us behind 4 KB data per worker; descriptor "
	       "cap %s\n",
			pc->port, kb,
			8000.0 * 1024 / (double)sw->egress->port[pc->port].ps_per_byte_q10,
			rtr_egress_ring_bound_ns(sw->egress, pc->port, 4096, 64) / 1000.0, capstr);
}

/* Shared per-port egress state, then one egress per worker. */
static int
setup_egress(struct rtr_app *app)
{
	struct rtr_switch *sw = &app->sw;
	uint32_t speed[RTR_MAX_PORTS] = {0};

	for (unsigned int i = 0; i < app->cfg.n_ports; i++) {
		uint16_t port = app->cfg.ports[i].port;
		struct rte_eth_link link;

		if (rte_eth_link_get_nowait(port, &link) == 0 &&
				link.link_speed != RTE_ETH_SPEED_NUM_NONE &&
				link.link_speed != RTE_ETH_SPEED_NUM_UNKNOWN)
			speed[port] = link.link_speed;
	}
	sw->egress = rte_zmalloc("rtr_egress_shared", sizeof(*sw->egress), RTE_CACHE_LINE_SIZE);
	if (sw->egress == NULL || rtr_egress_shared_init(sw->egress, &app->cfg, speed) != 0) {
		fprintf(stderr, "rocetor: cannot set up the egress\n");
		return -ENOMEM;
	}
	for (unsigned int p = 0; p < RTR_MAX_PORTS; p++)
		memcpy(sw->egress->port[p].mac, sw->ports[p].mac, 6);
	for (unsigned int i = 0; i < app->cfg.n_ports; i++)
		setup_nic_ring(app, i);
	for (unsigned int i = 0; i < sw->n_workers; i++) {
		struct rtr_worker *w = sw->workers[i];
		struct rtr_egress_io io;

		rtr_worker_egress_io(w, &io);
		w->eg = rtr_egress_create(sw->egress, w->idx, &io, w->stats, app->n_mbufs,
				(int)rte_lcore_to_socket_id(w->lcore_id));
		if (w->eg == NULL) {
			fprintf(stderr,
					"rocetor: cannot allocate the egress queues of worker %u "
					"(qos.queue_kb and the ports' delay_us size them)\n",
					i);
			return -ENOMEM;
		}
	}
	return 0;
}

int
rtr_app_switch_setup(struct rtr_app *app)
{
	struct rtr_switch *sw = &app->sw;
	struct rtr_config *cfg = &app->cfg;
	uint8_t macs[RTR_MAX_PORTS][6];
	void *states[RTR_MAX_LCORES];
	char err[512];

	memset(macs, 0, sizeof(macs));
	for (unsigned int i = 0; i < cfg->n_ports; i++)
		memcpy(macs[cfg->ports[i].port], cfg->ports[i].mac, 6);
	sw->neigh = rtr_neigh_create(cfg, (const uint8_t(*)[6])macs,
			(uint64_t)cfg->sw.neigh_timeout_s * 1000000000ULL);
	if (sw->neigh == NULL) {
		fprintf(stderr, "rocetor: cannot create the neighbour table\n");
		return -ENOMEM;
	}
	sw->route = rtr_route_create(
			"rtr_rt", cfg, (int)rte_socket_id(), nh_add, sw->neigh, err, sizeof(err));
	if (sw->route == NULL) {
		fprintf(stderr, "%s: %s\n", cfg->path, err);
		return -EINVAL;
	}
	sw->qsbr = rte_zmalloc_socket("rtr_qsbr", rte_rcu_qsbr_get_memsize(sw->n_workers),
			RTE_CACHE_LINE_SIZE, (int)rte_socket_id());
	if (sw->qsbr == NULL || rte_rcu_qsbr_init(sw->qsbr, sw->n_workers) != 0 ||
			rtr_route_rcu(sw->route, sw->qsbr) != 0) {
		fprintf(stderr, "rocetor: cannot set up RCU for the route tables\n");
		return -ENOMEM;
	}
	rtr_route_mbox_init(&sw->route_mbox);
	/* Routes change at run time only through FPM or rw telemetry: then the
	 * second IPv6 table now, as the memory plan counts it (lib/route). */
	if (rtr_route_runtime_possible(cfg, app->telemetry_rw) &&
			rtr_route_runtime(sw->route) < 0) {
		fprintf(stderr, "rocetor: out of memory for the standby IPv6 route table (68 "
				"MiB)\n");
		return -ENOMEM;
	}
	sw->hash_seed = cfg->sw.seed;
	if (rtr_app_lb_create(app, sw->lb, &sw->lb_shared, states) < 0)
		return -ENOMEM;
	for (unsigned int i = 0; i < sw->n_workers; i++) {
		sw->workers[i]->fwd.lb = sw->lb;
		sw->workers[i]->fwd.lb_state = states[i];
	}
	if (setup_egress(app) < 0)
		return -ENOMEM;
	sw->tsc_hz = rte_get_tsc_hz();
	sw->idle_sleep_us = cfg->sw.idle_sleep_us;
	sw->idle_threshold = cfg->sw.idle_threshold;
	sw->main_tick = rtr_app_main_tick;
	sw->main_arg = app;
	sw->cfg = cfg;
	/* Paths whose port is down at start leave their groups now. */
	rtr_control_links(sw);
	return 0;
}

void
rtr_app_switch_free(struct rtr_app *app)
{
	struct rtr_switch *sw = &app->sw;

	for (unsigned int i = 0; i < sw->n_workers; i++) {
		if (sw->workers[i]->fwd.lb != NULL && sw->workers[i]->fwd.lb_state != NULL)
			sw->workers[i]->fwd.lb->fini(sw->workers[i]->fwd.lb_state);
		rtr_egress_free(sw->workers[i]->eg);
		rte_ring_free(sw->workers[i]->handoff);
		rte_ring_free(sw->workers[i]->inject);
		rte_free(sw->workers[i]->fault);
		rte_free(sw->workers[i]->stats);
		rte_free(sw->workers[i]);
	}
	if (sw->lb != NULL && sw->lb->shared_free != NULL && sw->lb_shared != NULL)
		sw->lb->shared_free(sw->lb_shared);
	rte_free(sw->egress);
	rte_ring_free(sw->ctrl_ring);
	rtr_route_free(sw->route);
	rte_free(sw->qsbr);
	rtr_neigh_free(sw->neigh);
	rte_free(sw->ctrl_stats);
	/* One pool per socket with ports; sw->pool is one of them. */
	for (unsigned int k = 0; k < sw->n_pools; k++)
		rte_mempool_free(sw->pools[k]);
	if (sw->n_pools == 0)
		rte_mempool_free(sw->pool);
}

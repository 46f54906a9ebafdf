/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * rocetor: the executable. It only wires things together: arguments, EAL,
 * config, ports, lcores, signals, telemetry and the exit sequence
 * (DESIGN.md B2). The switching itself lives in lib/ and pipelines/; the
 * other files of app/ each do one step (doc/architecture.md).
 */

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_mempool.h>
#include <rte_pdump.h>

#include "args.h"
#include "budget.h"
#include "control.h"
#include "fpm.h"
#include "tap.h"
#include "lb.h"
#include "nic.h"
#include "nic_caps.h"
#include "ports.h"
#include "rtr_lb_registry.h"
#include "setup.h"
#include "stats_doc.h"
#include "telemetry.h"

static struct rtr_app rtr_app;

static void
on_signal(int sig)
{
	/* Only a flag: the control lcore starts the exit sequence. */
	rtr_signal = sig;
}

/*
 * RoCE's usual path MTU is 4096 bytes: an RDMA WRITE's IPv4 datagram is
 * then 4096 + 20 (IP) + 8 (UDP) + 12 (BTH) + 16 (RETH) + 4 (ICRC) = 4156
 * bytes (IPv6: 4176), and a fabric port carries the running mode's LB
 * header too where it inserts one (its DstToR takes packets with it). A
 * port below that gets a line saying which path MTU it does carry.
 */
#define RTR_ROCE_OVERHEAD4 (20 + 8 + 12 + 16 + 4)

static void
roce_mtu_warning(const struct rtr_app *app, const struct rtr_fwd_port *pr, unsigned int mtu)
{
	const struct rtr_lb_ops *lb = app->sw.lb;
	unsigned int hdr = 0, pmtu = 4096;

	if (pr->role == RTR_PORT_FABRIC && (lb->deliver_flags & RTR_MF_LB_HDR))
		hdr = RTR_PARSE_HDR_LEN(lb->fabric_parse_flags);
	if (mtu >= 4096 + RTR_ROCE_OVERHEAD4 + hdr)
		return;
	while (pmtu > 256 && mtu < pmtu + RTR_ROCE_OVERHEAD4 + hdr)
		pmtu /= 2;
	printf("rocetor: port %u: warning: mtu %u carries RoCE over IPv4 up to a %u-byte path "
	       "MTU; 4096 needs mtu %u%s (ports[].mtu)\n",
			pr->port_id, mtu, mtu >= pmtu + RTR_ROCE_OVERHEAD4 + hdr ? pmtu : 0,
			4096 + RTR_ROCE_OVERHEAD4 + hdr, hdr ? " with the LB header" : "");
}

/*
 * The LB header of the MTU rule (rtr_config_check_mtu, doc/config.md
 * "mtu"): what the running mode adds on fabric ports (--lb's when given);
 * under --telemetry-rw the largest any implemented mode adds, since
 * /rocetor/lb/set may switch to it while the ports keep their MTUs. who:
 * how a message names it.
 */
static unsigned int
mtu_rule_hdr(const struct rtr_app *app, char *who, size_t len)
{
	bool spine = app->cfg.sw.role == RTR_ROLE_SPINE;
	unsigned int run = app->cfg.sw.lb, best = run;
	unsigned int hdr = rtr_lb_mode_fabric_hdr(run, spine);

	if (app->telemetry_rw)
		for (unsigned int i = 0; i < rtr_lb_mode_count(); i++)
			if (rtr_lb_mode_fabric_hdr(i, spine) > hdr) {
				hdr = rtr_lb_mode_fabric_hdr(i, spine);
				best = i;
			}
	if (best != run)
		snprintf(who, len, "of %s, which --telemetry-rw lets /rocetor/lb/set switch to",
				rtr_lb_mode_at(best)->name);
	else
		snprintf(who, len, "of %s (%s)", rtr_lb_mode_at(run)->name,
				app->lb_override != NULL ? "--lb" : "switch.lb");
	return hdr;
}

/* The MTU rule with --lb's mode or --telemetry-rw (the validator applied
 * switch.lb's): a bad config, exit status 2. */
static int
mtu_check_args(const struct rtr_app *app)
{
	char who[128], err[1024];
	unsigned int hdr;

	if (app->lb_override == NULL && !app->telemetry_rw)
		return 0;
	hdr = mtu_rule_hdr(app, who, sizeof(who));
	if (rtr_config_check_mtu(&app->cfg, hdr, who, NULL, err, sizeof(err)) == 0)
		return 0;
	fprintf(stderr, "%s\n", err);
	return -1;
}

/*
 * The MTU rule once the devices' MTUs are known (app/ports.c puts them in
 * place of the unset ones): an error (exit status 2) when one port of a
 * pair has the device's MTU and the other the config's; a warning when
 * both have the devices' (nothing in the file is wrong, and the vdevs all
 * say 1500: set ports[].mtu on real NICs).
 */
static int
mtu_check_devices(const struct rtr_app *app)
{
	const struct rtr_config *cfg = &app->cfg;
	char who[128], err[1024];
	unsigned int hdr = mtu_rule_hdr(app, who, sizeof(who));

	if (rtr_config_check_mtu(cfg, hdr, who, app->mtu_from_device, err, sizeof(err)) < 0) {
		fprintf(stderr, "%s\n", err);
		return -1;
	}
	for (unsigned int f = 0; f < cfg->n_ports; f++) {
		const struct rtr_port_cfg *fp = &cfg->ports[f], *hp = NULL;

		if (fp->role != RTR_PORT_FABRIC || !app->mtu_from_device[f])
			continue;
		for (unsigned int h = 0; h < cfg->n_ports; h++)
			if (cfg->ports[h].role == RTR_PORT_HOST && app->mtu_from_device[h] &&
					(hp == NULL || cfg->ports[h].mtu > hp->mtu))
				hp = &cfg->ports[h];
		if (hp != NULL && (unsigned int)fp->mtu < hp->mtu + hdr)
			printf("rocetor: port %u: warning: mtu %u (the device's) cannot carry host "
			       "port %u's largest frame (mtu %u, the device's) plus the %u-byte LB "
			       "header %s: set ports[].mtu, %u or more on this port "
			       "(doc/config.md)\n",
					fp->port, fp->mtu, hp->port, hp->mtu, hdr, who,
					hp->mtu + hdr);
	}
	return 0;
}

static void
print_summary(const struct rtr_app *app)
{
	const struct rtr_switch *sw = &app->sw;

	printf("rocetor: switch %s (id %u, %s), lb %s, %u worker%s%s, %u port%s, %u uplink "
	       "group%s, seed 0x%08x\n",
			app->cfg.sw.name, app->cfg.sw.id,
			app->cfg.sw.role == RTR_ROLE_TOR ? "tor" : "spine", sw->lb->name,
			sw->n_workers, sw->n_workers == 1 ? "" : "s",
			sw->workers[0]->is_control ? " (main lcore forwards)" : "",
			app->n_cfg_ports, app->n_cfg_ports == 1 ? "" : "s", sw->route->n_groups,
			sw->route->n_groups == 1 ? "" : "s", sw->hash_seed);
	for (unsigned int i = 0; i < app->n_cfg_ports; i++) {
		const struct rtr_fwd_port *pr = &sw->ports[app->port_ids[i]];
		struct rte_eth_dev_info info;

		const struct rtr_port_cfg *pc = &app->cfg.ports[i];
		char nic[256];

		if (rte_eth_dev_info_get(pr->port_id, &info) != 0)
			info.driver_name = "?";
		printf("rocetor: port %u %-6s %02x:%02x:%02x:%02x:%02x:%02x %s rxq %u txq %u %s "
		       "socket %d mtu %u (%s) desc %u/%u%s\n",
				pr->port_id, pr->role == RTR_PORT_HOST ? "host" : "fabric",
				pr->mac[0], pr->mac[1], pr->mac[2], pr->mac[3], pr->mac[4],
				pr->mac[5], info.driver_name, app->rxq[i], app->txq[i],
				atomic_load(&pr->link_up) ? "up" : "down",
				rte_eth_dev_socket_id(pr->port_id), pc->mtu,
				app->mtu_from_device[i] ? "device" : "config", app->nb_rxd[i],
				app->nb_txd[i], rtr_nic_port_line(app, i, nic, sizeof(nic)));
		roce_mtu_warning(app, pr, pc->mtu);
	}
	fflush(stdout);
}

/* ------------------------------------------------------------------ exit */

/*
 * Mbufs a PMD keeps after its port is closed (keeps_rx_mbufs in its
 * app/nic_caps.c entry). net_af_xdp (DPDK 22.11) fills
 * its RX rings with mbufs of our pool and never gives them back: close
 * deletes the UMEM without freeing what its fill ring holds
 * (drivers/net/af_xdp/rte_eth_af_xdp.c, eth_dev_close, xdp_umem_destroy),
 * and the last TX burst of each queue waits for a next tx_burst that never
 * comes (pull_umem_cq). Those are not ours to leak: at most what was in use
 * when forwarding started plus the TX rings. Returns that bound, 0 when no
 * port has such a driver; must be called before the ports close.
 */
static unsigned int
kept_by_pmds(const struct rtr_app *app)
{
	unsigned int tx = 0;
	bool any = false;

	for (unsigned int i = 0; i < app->n_cfg_ports; i++) {
		struct rte_eth_dev_info info;

		const struct rtr_nic_caps *caps;

		if (rte_eth_dev_info_get(app->port_ids[i], &info) != 0 ||
				(caps = rtr_nic_caps_find(info.driver_name)) == NULL ||
				!caps->keeps_rx_mbufs)
			continue;
		any = true;
		tx += (unsigned int)app->txq[i] * app->nb_txd[i];
	}
	return any ? app->mempool_baseline + tx : 0;
}

static int
shutdown_all(struct rtr_app *app, int status)
{
	struct rtr_switch *sw = &app->sw;
	unsigned int freed, kept;

	rtr_telemetry_close();
	freed = sw->ctrl_ring ? rtr_control_drain(sw) : 0;
	if (freed)
		printf("rocetor: %u punted frames freed at exit\n", freed);
	/* Everything held was released: the pool is back to what the ports
	 * held when forwarding started, unless something leaked. */
	if (sw->pool != NULL && app->start_tsc != 0)
		app->mempool_stopped = rtr_switch_pool_in_use(sw);
	rtr_app_nic_snapshot(app);
	app->nic_closed = true;
	kept = app->start_tsc != 0 ? kept_by_pmds(app) : 0;
	rtr_ports_close(app);
	rtr_tap_close(app);
	if (sw->pool != NULL) {
		unsigned int in_use = rtr_switch_pool_in_use(sw);
		bool leak = in_use > kept;

		printf("rocetor: mempool in use after ports closed: %u of %u%s\n", in_use,
				app->n_mbufs, leak ? " (LEAK)" : "");
		if (in_use && !leak)
			printf("rocetor: net_af_xdp keeps its rings' mbufs after close (at most "
			       "%u): "
			       "not a leak\n",
					kept);
		if (leak && status == RTR_EXIT_OK)
			status = RTR_EXIT_FAILURE;
	}
	if (app->stats_json != NULL && sw->route != NULL) {
		FILE *f = fopen(app->stats_json, "w");

		if (f == NULL) {
			fprintf(stderr, "rocetor: --stats-json %s: %s\n", app->stats_json,
					strerror(errno));
			status = RTR_EXIT_FAILURE;
		} else {
			rtr_app_write_stats(app, f);
			fclose(f);
		}
	}
	rtr_fpm_free(app->fpm);
	app->fpm = NULL;
	rtr_app_switch_free(app);
	if (app->pdump_ready)
		rte_pdump_uninit();
	rtr_config_free(&app->cfg);
	rte_eal_cleanup();
	return status;
}

int
main(int argc, char **argv)
{
	struct rtr_app *app = &rtr_app;
	struct rtr_switch *sw = &app->sw;
	char err[1024];
	int ret;

	app->mempool_stopped = -1;
	/* -h anywhere: the EAL prints its usage and ours follows it. */
	rte_set_application_usage_hook(rtr_args_usage);
	ret = rte_eal_init(argc, argv);
	if (ret < 0) {
		fprintf(stderr, "rocetor: EAL initialisation failed: %s\n",
				rte_strerror(rte_errno));
		return rte_errno == EINVAL ? RTR_EXIT_USAGE : RTR_EXIT_FAILURE;
	}
	argc -= ret;
	argv += ret;
	argv[0] = (char *)(uintptr_t) "rocetor";
	/* Before any worker checks an ICRC (rtr_parse.h). */
	rtr_parse_init();
	if (rtr_args_parse(app, argc, argv) < 0) {
		rte_eal_cleanup();
		return RTR_EXIT_USAGE;
	}
	/* The EAL made the runtime directory 0700 when it created it; the
	 * socket in it is made 0600 too, and a directory that existed before
	 * (a reused --file-prefix) is made 0700 again. Not by umask around
	 * rte_eal_init: that would make the files PMDs create then (net_pcap's
	 * tx_pcap) owner-only too. */
	rtr_telemetry_harden(app);
	if (rtr_config_load(app->config_path, &app->cfg, err, sizeof(err)) < 0) {
		fprintf(stderr, "%s\n", err);
		rte_eal_cleanup();
		return RTR_EXIT_USAGE;
	}
	/* The shared buffer's auto cell, so that lib/egress bounds the pool
	 * by the mbufs the budget gives it. */
	app->cfg.qos.buffer.cell_bytes = rtr_budget_cell(&app->cfg);
	if (rtr_app_lb_select(app) < 0 || mtu_check_args(app) < 0) {
		rtr_config_free(&app->cfg);
		rte_eal_cleanup();
		return RTR_EXIT_USAGE;
	}
	pthread_mutex_init(&sw->lb_lock, NULL);
	pthread_mutex_init(&app->switch_lock, NULL);
	if (rtr_ports_check(app) < 0) {
		rtr_config_free(&app->cfg);
		rte_eal_cleanup();
		return RTR_EXIT_USAGE;
	}
	if (rtr_meta_register(&app->mbuf_priv_size) != 0)
		printf("rocetor: no room for the %zu-byte mbuf dynamic field: metadata kept in "
		       "the mbuf private area\n",
				sizeof(struct rtr_meta));
	if (rtr_app_workers_setup(app) < 0) {
		fprintf(stderr, "rocetor: out of memory setting up workers\n");
		return shutdown_all(app, RTR_EXIT_FAILURE);
	}
	if (rtr_ports_setup(app) < 0)
		return shutdown_all(app, RTR_EXIT_FAILURE);
	if (mtu_check_devices(app) < 0)
		return shutdown_all(app, RTR_EXIT_USAGE);
	if (app->wait_links_ms)
		rtr_ports_wait_links(app, app->wait_links_ms);
	if (rtr_app_switch_setup(app) < 0)
		return shutdown_all(app, RTR_EXIT_FAILURE);
	{
		bool failed;

		app->fpm = rtr_fpm_create(&app->cfg, sw->route, err, sizeof(err), &failed);
		if (failed) {
			fprintf(stderr, "%s: %s\n", app->cfg.path, err);
			return shutdown_all(app, RTR_EXIT_FAILURE);
		}
	}
	/* The exception path: kernel interfaces for FRR (app/tap.c). */
	if (rtr_tap_setup(app) < 0)
		return shutdown_all(app, RTR_EXIT_FAILURE);
	app->mempool_baseline = rtr_switch_pool_in_use(sw);
	/* dpdk-dumpcap attaches as a secondary process (needs hugepages). */
	if (rte_pdump_init() == 0)
		app->pdump_ready = true;
	else
		printf("rocetor: pdump unavailable: %s\n", rte_strerror(rte_errno));
	if (rtr_telemetry_register(app) < 0)
		printf("rocetor: telemetry commands not registered\n");
	/* The driver's pause / discard xstats, found by name now that the
	 * ports are started (app/nic.c). */
	for (unsigned int i = 0; i < app->n_cfg_ports; i++)
		rtr_nic_port_xstats(app, i);
	print_summary(app);

	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	app->start_tsc = app->last_stats_tsc = rte_rdtsc();
	atomic_store(&sw->run_state, RTR_RUN);
	if (sw->workers[0]->is_control) {
		/* The main lcore is worker 0 and the control plane; any other
		 * lcores (--main-forwards) are workers. */
		for (unsigned int i = 1; i < sw->n_workers; i++)
			rte_eal_remote_launch(
					rtr_worker_main, sw->workers[i], sw->workers[i]->lcore_id);
		rtr_worker_main(sw->workers[0]);
		rte_eal_mp_wait_lcore();
	} else {
		for (unsigned int i = 0; i < sw->n_workers; i++)
			rte_eal_remote_launch(
					rtr_worker_main, sw->workers[i], sw->workers[i]->lcore_id);
		rtr_app_control_loop(app);
		rte_eal_mp_wait_lcore();
	}
	return shutdown_all(app, RTR_EXIT_OK);
}

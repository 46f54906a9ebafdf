/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * rocetor: the executable. It only wires things together: arguments, EAL,
 * config, ports, lcores, signals, telemetry and the exit sequence
 * (DESIGN.md B2). The switching itself lives in lib/ and pipelines/.
 */

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_log.h>
#include <rte_malloc.h>
#include <rte_mempool.h>
#include <rte_pdump.h>
#include <rte_ring.h>

#include "rtr_app.h"

struct rtr_app rtr_app;
volatile sig_atomic_t rtr_signal;
static uint64_t wait_links_ms;	/* --wait-links MS, 0 = do not wait */
static bool main_forwards;	/* --main-forwards: the main lcore is worker 0 too */

static void
usage(const char *prog)
{
	char modes[256];

	rtr_lb_mode_list(modes, sizeof(modes), " | ", false);
	printf("\nrocetor options (after the EAL options and --):\n"
	       "  %s [EAL options] -- --config FILE [--lb MODE] [--duration SEC]\n"
	       "        [--exit-on-idle MS] [--stats-json FILE] [--stats-interval SEC]\n"
	       "        [--wait-links MS] [--main-forwards] [--telemetry-rw]\n"
	       "  --config FILE         switch config: .yaml/.yml (libyaml) or .cfg/.conf (libconfig)\n"
	       "  --lb MODE             override switch.lb: %s\n"
	       "  --duration SEC        run SEC seconds (fractions allowed), then exit cleanly\n"
	       "  --exit-on-idle MS     exit once no port has received a packet for MS ms\n"
	       "  --stats-json FILE     write the stats document (doc/counters.md) at exit\n"
	       "  --stats-interval SEC  print the stats document to stdout every SEC seconds\n"
	       "  --wait-links MS       before forwarding, wait up to MS ms for every port that is\n"
	       "                        not admin_down to report link up (default 0: no wait)\n"
	       "  --main-forwards       with several lcores, the main lcore forwards too (worker 0,\n"
	       "                        running the control plane between bursts as with one lcore)\n"
	       "  --telemetry-rw        allow telemetry commands that change state (/rocetor/lb/set,\n"
	       "                        /rocetor/port/admin); without it telemetry is read-only\n"
	       "  -h, --help            this help\n"
	       "Exit status: 0 success (also on SIGINT/SIGTERM), 2 bad arguments or config, 1 other failure.\n",
		prog, modes);
}

static int
parse_number(const char *opt, const char *s, double min, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno != 0 || end == s || *end != '\0' || v < min || v > 1e9) {
		fprintf(stderr, "rocetor: %s: expected a number >= %g, got \"%s\"\n", opt, min, s);
		return -1;
	}
	*out = v;
	return 0;
}

static int
parse_args(struct rtr_app *app, int argc, char **argv)
{
	static const struct option opts[] = {
		{"config", required_argument, NULL, 'c'},
		{"lb", required_argument, NULL, 'l'},
		{"duration", required_argument, NULL, 'd'},
		{"exit-on-idle", required_argument, NULL, 'i'},
		{"stats-json", required_argument, NULL, 'j'},
		{"stats-interval", required_argument, NULL, 's'},
		{"wait-links", required_argument, NULL, 'w'},
		{"main-forwards", no_argument, NULL, 'm'},
		{"telemetry-rw", no_argument, NULL, 't'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	double v;
	int c;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'c':
			app->config_path = optarg;
			break;
		case 'l':
			app->lb_override = optarg;
			break;
		case 'd':
			if (parse_number("--duration", optarg, 0, &app->duration_s) < 0)
				return -1;
			break;
		case 'i':
			if (parse_number("--exit-on-idle", optarg, 1, &v) < 0)
				return -1;
			app->exit_on_idle_ms = (uint64_t)v;
			break;
		case 'j':
			app->stats_json = optarg;
			break;
		case 's':
			if (parse_number("--stats-interval", optarg, 0.01, &app->stats_interval_s) < 0)
				return -1;
			break;
		case 'w':
			if (parse_number("--wait-links", optarg, 0, &v) < 0)
				return -1;
			wait_links_ms = (uint64_t)v;
			break;
		case 'm':
			main_forwards = true;
			break;
		case 't':
			app->telemetry_rw = true;
			break;
		case 'h':
			usage(argv[0]);
			exit(RTR_EXIT_OK);
		default:
			fprintf(stderr, "rocetor: unknown or incomplete option \"%s\" (see --help)\n",
				argv[optind - 1]);
			return -1;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "rocetor: unexpected argument \"%s\" (see --help)\n", argv[optind]);
		return -1;
	}
	if (app->config_path == NULL) {
		fprintf(stderr, "rocetor: --config FILE is required (see --help)\n");
		return -1;
	}
	return 0;
}

static void
on_signal(int sig)
{
	/* Only a flag: the control lcore starts the exit sequence. */
	rtr_signal = sig;
}

/* ------------------------------------------------------------------ stats */

void
rtr_app_stats(struct rtr_app *app, struct rtr_lcore_stats *sum)
{
	/* Local list: telemetry and the control lcore may sum at the same time. */
	struct rtr_lcore_stats *list[RTR_MAX_LCORES + 1];
	unsigned int n = 0;

	for (unsigned int i = 0; i < app->sw.n_workers; i++)
		list[n++] = app->sw.workers[i]->stats;
	list[n++] = app->sw.ctrl_stats;
	rtr_stats_sum(list, n, rtr_lb_counter_max, rtr_lb_counter_n_max, sum);
	rtr_pipeline_flow_counters(&app->sw, sum);
}

void
rtr_app_egress_report(struct rtr_app *app, uint16_t port, struct rtr_eg_port_report *r)
{
	struct rtr_switch *sw = &app->sw;
	struct rtr_egress *egs[RTR_MAX_LCORES];
	uint64_t now_ns = rtr_tsc_to_ns(sw, rte_rdtsc());

	for (unsigned int i = 0; i < sw->n_workers; i++)
		egs[i] = sw->workers[i]->eg;
	if (sw->egress == NULL) {
		memset(r, 0, sizeof(*r));
		return;
	}
	rtr_egress_report(egs, sw->n_workers, sw->egress, port, now_ns, r);
}

/* NIC-level RX losses of the configured ports (while they are open). */
static void
nic_snapshot(struct rtr_app *app)
{
	for (unsigned int i = 0; i < app->n_cfg_ports; i++) {
		struct rte_eth_stats es;

		if (rte_eth_stats_get(app->port_ids[i], &es) == 0) {
			app->nic_rx_nombuf[i] = es.rx_nombuf;
			app->nic_imissed[i] = es.imissed;
		}
	}
}

void
rtr_app_write_stats(struct rtr_app *app, FILE *f)
{
	static const char *const neigh_names[] = {
#define NEIGH_NAME(n, d) #n,
		RTR_NEIGH_COUNTERS(NEIGH_NAME)
#undef NEIGH_NAME
	};
	uint64_t neigh_values[RTR_ARRAY_SIZE(neigh_names)];
	const char *roles[RTR_MAX_PORTS], *group_names[RTR_STATS_GROUPS];
	char *extra[RTR_MAX_PORTS] = {NULL};
	uint16_t group_paths[RTR_STATS_GROUPS];
	uint16_t group_ports[RTR_STATS_GROUPS][RTR_MAX_PATHS];
	uint8_t up[RTR_MAX_PORTS];
	struct rtr_lcore_stats *sum = rte_zmalloc(NULL, sizeof(*sum), 64);
	struct rtr_switch *sw = &app->sw;
	struct rtr_stats_doc doc;
	unsigned int i;

	if (sum == NULL)
		return;
	rtr_app_stats(app, sum);
	memset(&doc, 0, sizeof(doc));
	doc.switch_name = app->cfg.sw.name;
	doc.lb = sw->lb->name;
	doc.lb_names = rtr_lb_counter_names;
	doc.n_lb = RTR_LBC_MAX;
	doc.uptime_s = (double)(rte_rdtsc() - app->start_tsc) / (double)sw->tsc_hz;
	doc.n_ports = app->n_cfg_ports;
	doc.port_ids = app->port_ids;
	for (i = 0; i < app->n_cfg_ports; i++) {
		roles[i] = sw->ports[app->port_ids[i]].role == RTR_PORT_HOST ? "host" : "fabric";
		up[i] = atomic_load(&sw->ports[app->port_ids[i]].link_up);
	}
	doc.port_roles = roles;
	doc.port_up = up;
	if (!app->nic_closed)
		nic_snapshot(app);
	doc.port_rx_nombuf = app->nic_rx_nombuf;
	doc.port_imissed = app->nic_imissed;
	for (i = 0; i < app->n_cfg_ports; i++) {
		struct rtr_eg_port_report rep;
		int len;

		rtr_app_egress_report(app, app->port_ids[i], &rep);
		len = rtr_egress_report_json(NULL, 0, &rep);
		extra[i] = len > 0 ? malloc((size_t)len + 1) : NULL;
		if (extra[i] != NULL)
			rtr_egress_report_json(extra[i], (size_t)len + 1, &rep);
	}
	doc.port_extra = (const char *const *)extra;
	doc.n_groups = RTE_MIN(sw->route->n_groups, (unsigned int)RTR_STATS_GROUPS);
	for (i = 0; i < doc.n_groups; i++) {
		group_names[i] = sw->route->groups[i].name;
		group_paths[i] = sw->route->groups[i].n_paths;
		memcpy(group_ports[i], sw->route->groups[i].port, sizeof(group_ports[i]));
	}
	doc.group_names = group_names;
	doc.group_paths = group_paths;
	doc.group_ports = (const uint16_t(*)[RTR_MAX_PATHS])group_ports;
	memcpy(neigh_values, rtr_neigh_stats(sw->neigh), sizeof(neigh_values));
	doc.n_neigh = RTR_ARRAY_SIZE(neigh_names);
	doc.neigh_names = neigh_names;
	doc.neigh_values = neigh_values;
	doc.held_packets = rtr_pipeline_held(sw);
	doc.mempool_in_use = rte_mempool_in_use_count(sw->pool);
	doc.mempool_baseline = app->mempool_baseline;
	doc.mempool_in_use_stopped = app->mempool_stopped;
	doc.lb_switches = atomic_load(&sw->lb_switches);
	rtr_stats_write_json(f, &doc, sum);
	fflush(f);
	for (i = 0; i < app->n_cfg_ports; i++)
		free(extra[i]);
	rte_free(sum);
}

/* ------------------------------------------------------------------ run control */

static bool
all_workers_stopped(const struct rtr_switch *sw)
{
	for (unsigned int i = 0; i < sw->n_workers; i++)
		if (!atomic_load_explicit(&sw->workers[i]->stopped, memory_order_acquire))
			return false;
	return true;
}

/* Control lcore, every control poll: exit conditions and periodic stats. */
static void
main_tick(struct rtr_switch *sw, uint64_t now_tsc)
{
	struct rtr_app *app = sw->main_arg;
	int state = atomic_load(&sw->run_state);

	if (state == RTR_RUN) {
		const char *why = NULL;

		if (rtr_signal)
			why = rtr_signal == SIGINT ? "SIGINT" : "SIGTERM";
		else if (app->duration_s > 0 &&
				now_tsc - app->start_tsc > (uint64_t)(app->duration_s * sw->tsc_hz))
			why = "--duration reached";
		if (why == NULL && app->exit_on_idle_ms) {
			uint64_t last = 0;

			for (unsigned int i = 0; i < sw->n_workers; i++)
				last = RTE_MAX(last, sw->workers[i]->last_rx_tsc);
			if (now_tsc > last && now_tsc - last > app->exit_on_idle_ms * sw->tsc_hz / 1000)
				why = "--exit-on-idle: no packet received";
		}
		if (why != NULL) {
			printf("rocetor: stopping (%s)\n", why);
			atomic_store(&sw->run_state, RTR_STOP_RX);
		}
	} else if (state == RTR_STOP_RX && all_workers_stopped(sw) &&
			!atomic_load(&sw->lb_switching)) {
		/* Nobody polls ports any more; what the control plane still has
		 * to answer was answered in this poll, so the rings can close. */
		atomic_store(&sw->run_state, RTR_STOP_FINAL);
	}
	if (app->stats_interval_s > 0 &&
			now_tsc - app->last_stats_tsc > (uint64_t)(app->stats_interval_s * sw->tsc_hz)) {
		app->last_stats_tsc = now_tsc;
		rtr_app_write_stats(app, stdout);
	}
}

static void
control_loop(struct rtr_app *app)
{
	struct rtr_switch *sw = &app->sw;
	struct timespec ts = {.tv_sec = 0, .tv_nsec = 200 * 1000};

	while (atomic_load(&sw->run_state) != RTR_STOP_FINAL) {
		if (rtr_control_poll(sw, rte_rdtsc()) == 0)
			nanosleep(&ts, NULL);
	}
	/* Last answers to anything punted before the workers stopped. */
	rtr_control_poll(sw, rte_rdtsc());
}

/* ------------------------------------------------------------------ LB modes */

const struct rtr_lb_ops *
rtr_app_lb_ops(struct rtr_app *app, enum rtr_lb_mode mode)
{
	const struct rtr_lb_desc *d = rtr_lb_mode_at((unsigned int)mode);
	const struct rtr_lb_ops *ops = d != NULL ? d->ops : NULL;

	if (ops == NULL || app->cfg.sw.role != RTR_ROLE_SPINE || d->spine != RTR_LB_SPINE_ECMP)
		return ops;
	/*
	 * A ToR-only mode (a path is the SrcToR's uplink): a spine routes its
	 * packets by ECMP and never touches its fields. It still parses its
	 * headers (the mode's fabric_parse_flags), so trimming and the
	 * control class see them whole.
	 */
	if (app->spine_ops[mode].name != NULL)
		return &app->spine_ops[mode]; /* made once: workers may be using it */
	app->spine_ops[mode] = rtr_lb_ecmp;
	app->spine_ops[mode].name = ops->name;
	app->spine_ops[mode].mode = mode;
	app->spine_ops[mode].fabric_parse_flags = ops->fabric_parse_flags;
	return &app->spine_ops[mode];
}

static void
lb_destroy(const struct rtr_lb_ops *ops, void *shared, void **states, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		if (states[i] != NULL && ops->fini != NULL)
			ops->fini(states[i]);
	if (shared != NULL && ops->shared_free != NULL)
		ops->shared_free(shared);
}

/* Mode ops's shared state and one state per worker, from the config (a
 * mode whose section is absent gets the defaults the validator filled in). */
static int
lb_create(struct rtr_app *app, const struct rtr_lb_ops *ops, void **shared, void **states)
{
	struct rtr_switch *sw = &app->sw;
	const struct rtr_config *cfg = &app->cfg;

	*shared = NULL;
	memset(states, 0, sizeof(states[0]) * sw->n_workers);
	if (ops->shared_create != NULL) {
		*shared = ops->shared_create(cfg, sw->route->n_groups, true, (int)rte_socket_id());
		if (*shared == NULL) {
			fprintf(stderr, "rocetor: LB mode %s: cannot allocate its shared state\n",
				ops->name);
			return -ENOMEM;
		}
	}
	for (unsigned int i = 0; i < sw->n_workers; i++) {
		struct rtr_lb_init in = {
			.cfg = cfg,
			.worker = i,
			.n_workers = sw->n_workers,
			.socket = (int)rte_lcore_to_socket_id(sw->workers[i]->lcore_id),
			.n_groups = sw->route->n_groups,
			.hash_seed = sw->hash_seed,
			.hold_budget = app->hold_budget,
			.use_rte_malloc = true,
			.shared = *shared,
			.link_down = &sw->link_down_mask,
		};

		for (unsigned int p = 0; p < cfg->n_ports; p++)
			if (cfg->ports[p].role == RTR_PORT_HOST)
				in.host_port_mask |= 1u << cfg->ports[p].port;
		rtr_worker_lb_io(sw->workers[i], &in.io);
		states[i] = ops->init(&in);
		if (states[i] == NULL) {
			/* The mode's state is sized by its config section. */
			fprintf(stderr, "rocetor: LB mode %s: cannot initialise worker %u (out of "
					"memory for its flow table and state: see %s.flow_table_size "
					"and the other sizes of its config section)\n",
				ops->name, i, ops->name);
			lb_destroy(ops, *shared, states, i);
			*shared = NULL;
			return -ENOMEM;
		}
	}
	return 0;
}

int64_t
rtr_app_lb_switch(struct rtr_app *app, enum rtr_lb_mode mode, char *err, size_t len)
{
	struct rtr_switch *sw = &app->sw;
	const struct rtr_lb_ops *ops, *old;
	void *states[RTR_MAX_LCORES], *shared;
	int64_t released;

	ops = rtr_app_lb_ops(app, mode);
	if (ops == NULL) {
		const struct rtr_lb_desc *d = rtr_lb_mode_at((unsigned int)mode);

		snprintf(err, len, "LB mode %s is not available in this build",
			d != NULL ? d->name : "?");
		return -ENOTSUP;
	}
	pthread_mutex_lock(&app->switch_lock);
	old = sw->lb;
	if (old->mode == mode) {
		pthread_mutex_unlock(&app->switch_lock);
		return 0;
	}
	/* Set before the run state is read: the exit sequence reads them in
	 * the other order (main_tick), so one of the two sees the other. */
	atomic_store(&sw->lb_switching, 1);
	if (atomic_load(&sw->run_state) != RTR_RUN) {
		atomic_store(&sw->lb_switching, 0);
		pthread_mutex_unlock(&app->switch_lock);
		snprintf(err, len, "the switch is not running (starting or stopping)");
		return -EBUSY;
	}
	if (lb_create(app, ops, &shared, states) < 0) {
		atomic_store(&sw->lb_switching, 0);
		pthread_mutex_unlock(&app->switch_lock);
		snprintf(err, len, "cannot allocate the state of LB mode %s", ops->name);
		return -ENOMEM;
	}
	released = rtr_pipeline_lb_switch(sw, ops, shared, states);
	if (released < 0) {
		lb_destroy(ops, shared, states, sw->n_workers);
		snprintf(err, len, "out of memory");
	} else {
		printf("rocetor: LB mode switched from %s to %s at runtime (%" PRId64
		       " held packets released by %s)\n", old->name, ops->name, released, old->name);
		fflush(stdout);
	}
	atomic_store(&sw->lb_switching, 0);
	pthread_mutex_unlock(&app->switch_lock);
	return released;
}

/* ------------------------------------------------------------------ set-up */

static int
nh_add(void *arg, uint16_t port, const struct rtr_addr *ip, const uint8_t *mac)
{
	return rtr_neigh_add(arg, port, ip, mac);
}

static int
setup_workers(struct rtr_app *app)
{
	struct rtr_switch *sw = &app->sw;
	unsigned int lcores[RTR_MAX_LCORES], n_lcores = 0, lcore, i, n = 0;
	char name[RTE_RING_NAMESIZE];

	/* With one lcore the main lcore forwards too; with more, the main
	 * lcore runs the control plane and every other lcore forwards. */
	if (rte_lcore_count() == 1 || main_forwards) {
		lcores[n_lcores++] = rte_get_main_lcore();
	}
	if (rte_lcore_count() > 1) {
		RTE_LCORE_FOREACH_WORKER(lcore) {
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
			(int)rte_lcore_to_socket_id(lcore), RING_F_SC_DEQ | RING_F_EXACT_SZ);
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
	sw->ctrl_stats = rte_zmalloc("rtr_stats", sizeof(*sw->ctrl_stats), RTE_CACHE_LINE_SIZE);
	sw->ctrl_ring = rte_ring_create("rtr_ctrl", RTR_CTRL_RING_SIZE, (int)rte_socket_id(),
		RING_F_SC_DEQ);
	if (sw->ctrl_stats == NULL || sw->ctrl_ring == NULL)
		return -ENOMEM;
	return 0;
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

		if (rte_eth_link_get_nowait(port, &link) == 0 && link.link_speed != RTE_ETH_SPEED_NUM_NONE &&
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
	for (unsigned int i = 0; i < sw->n_workers; i++) {
		struct rtr_worker *w = sw->workers[i];
		struct rtr_egress_io io;

		rtr_worker_egress_io(w, &io);
		w->eg = rtr_egress_create(sw->egress, w->idx, &io, w->stats, app->n_mbufs,
			(int)rte_lcore_to_socket_id(w->lcore_id));
		if (w->eg == NULL) {
			fprintf(stderr, "rocetor: cannot allocate the egress queues of worker %u "
					"(qos.queue_kb and the ports' delay_us size them)\n", i);
			return -ENOMEM;
		}
	}
	return 0;
}

static int
setup_switch(struct rtr_app *app)
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
	sw->route = rtr_route_create("rtr_rt", cfg, (int)rte_socket_id(), nh_add, sw->neigh, err,
		sizeof(err));
	if (sw->route == NULL) {
		fprintf(stderr, "%s: %s\n", cfg->path, err);
		return -EINVAL;
	}
	sw->hash_seed = cfg->sw.seed;
	if (lb_create(app, sw->lb, &sw->lb_shared, states) < 0)
		return -ENOMEM;
	for (unsigned int i = 0; i < sw->n_workers; i++) {
		sw->workers[i]->lb = sw->lb;
		sw->workers[i]->lb_state = states[i];
	}
	if (setup_egress(app) < 0)
		return -ENOMEM;
	sw->tsc_hz = rte_get_tsc_hz();
	sw->idle_sleep_us = cfg->sw.idle_sleep_us;
	sw->idle_threshold = cfg->sw.idle_threshold;
	sw->main_tick = main_tick;
	sw->main_arg = app;
	sw->cfg = cfg;
	/* Paths whose port is down at start leave their groups now. */
	rtr_control_links(sw);
	return 0;
}

/* --wait-links MS: some devices come up after rte_eth_dev_start() (memif
 * waits for its peer, real NICs negotiate). Poll every configured port that
 * is not admin_down every 10 ms until all report link up or MS ms passed;
 * then name the ports still down and go on anyway (not an error). */
static void
wait_links(const struct rtr_app *app, uint64_t ms)
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
				len += (size_t)snprintf(down + len, sizeof(down) - len, " %u", pc->port);
		}
		waited_ms = (rte_rdtsc() - t0) * 1000 / hz;
		if (n_down == 0) {
			printf("rocetor: --wait-links: all links up after %" PRIu64 " ms\n", waited_ms);
			fflush(stdout);
			return;
		}
		/* Ports are started: a memif peer may connect from now on. */
		if (!said) {
			printf("rocetor: --wait-links: waiting up to %" PRIu64 " ms for port%s%s\n", ms,
				n_down == 1 ? "" : "s", down);
			fflush(stdout);
			said = true;
		}
		if (waited_ms >= ms) {
			fprintf(stderr, "rocetor: --wait-links %" PRIu64 ": after %" PRIu64 " ms, "
					"port%s still down:%s\n", ms, waited_ms, n_down == 1 ? "" : "s",
				down);
			return;
		}
		nanosleep(&tick, NULL);
	}
}

static void
print_summary(const struct rtr_app *app)
{
	const struct rtr_switch *sw = &app->sw;

	printf("rocetor: switch %s (id %u, %s), lb %s, %u worker%s%s, %u port%s, %u uplink "
	       "group%s, seed 0x%08x\n",
		app->cfg.sw.name, app->cfg.sw.id, app->cfg.sw.role == RTR_ROLE_TOR ? "tor" : "spine",
		sw->lb->name, sw->n_workers, sw->n_workers == 1 ? "" : "s",
		sw->workers[0]->is_control ? " (main lcore forwards)" : "",
		app->n_cfg_ports, app->n_cfg_ports == 1 ? "" : "s", sw->route->n_groups,
		sw->route->n_groups == 1 ? "" : "s", sw->hash_seed);
	for (unsigned int i = 0; i < app->n_cfg_ports; i++) {
		const struct rtr_port_rt *pr = &sw->ports[app->port_ids[i]];
		struct rte_eth_dev_info info;

		rte_eth_dev_info_get(pr->port_id, &info);
		printf("rocetor: port %u %-6s %02x:%02x:%02x:%02x:%02x:%02x %s rxq %u txq %u %s\n",
			pr->port_id, pr->role == RTR_PORT_HOST ? "host" : "fabric", pr->mac[0],
			pr->mac[1], pr->mac[2], pr->mac[3], pr->mac[4], pr->mac[5], info.driver_name,
			app->rxq[i], app->txq[i], atomic_load(&pr->link_up) ? "up" : "down");
	}
	fflush(stdout);
}

/* ------------------------------------------------------------------ exit */

static int
shutdown_all(struct rtr_app *app, int status)
{
	struct rtr_switch *sw = &app->sw;
	unsigned int freed;

	rtr_telemetry_close();
	freed = sw->ctrl_ring ? rtr_control_drain(sw) : 0;
	if (freed)
		printf("rocetor: %u punted frames freed at exit\n", freed);
	/* Everything held was released: the pool is back to what the ports
	 * held when forwarding started, unless something leaked. */
	if (sw->pool != NULL && app->start_tsc != 0)
		app->mempool_stopped = rte_mempool_in_use_count(sw->pool);
	nic_snapshot(app);
	app->nic_closed = true;
	rtr_ports_close(app);
	if (sw->pool != NULL) {
		unsigned int in_use = rte_mempool_in_use_count(sw->pool);

		printf("rocetor: mempool in use after ports closed: %u of %u%s\n", in_use,
			app->n_mbufs, in_use ? " (LEAK)" : "");
		if (in_use && status == RTR_EXIT_OK)
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
	for (unsigned int i = 0; i < sw->n_workers; i++) {
		if (sw->workers[i]->lb != NULL && sw->workers[i]->lb_state != NULL)
			sw->workers[i]->lb->fini(sw->workers[i]->lb_state);
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
	rtr_neigh_free(sw->neigh);
	rte_free(sw->ctrl_stats);
	rte_mempool_free(sw->pool);
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
	char err[1024], modes[256];
	int ret, mode;

	app->mempool_stopped = -1;
	/* -h anywhere: the EAL prints its usage and ours follows it. */
	rte_set_application_usage_hook(usage);
	ret = rte_eal_init(argc, argv);
	if (ret < 0) {
		fprintf(stderr, "rocetor: EAL initialisation failed: %s\n", rte_strerror(rte_errno));
		return rte_errno == EINVAL ? RTR_EXIT_USAGE : RTR_EXIT_FAILURE;
	}
	argc -= ret;
	argv += ret;
	argv[0] = (char *)(uintptr_t)"rocetor";
	/* Before any worker checks an ICRC (rtr_parse.h). */
	rtr_parse_init();
	if (parse_args(app, argc, argv) < 0) {
		rte_eal_cleanup();
		return RTR_EXIT_USAGE;
	}
	/* The EAL made the runtime directory 0700 when it created it; the
	 * socket in it is made 0600 too, and a directory that existed before
	 * (a reused --file-prefix) is made 0700 again. Not by umask around
	 * rte_eal_init: that would make the files PMDs create then (net_pcap's
	 * tx_pcap) owner-only too. */
	rtr_telemetry_harden();
	if (rtr_config_load(app->config_path, &app->cfg, err, sizeof(err)) < 0) {
		fprintf(stderr, "%s\n", err);
		rte_eal_cleanup();
		return RTR_EXIT_USAGE;
	}
	if (app->lb_override != NULL) {
		mode = rtr_lb_mode_find(app->lb_override);
		if (mode < 0) {
			fprintf(stderr, "rocetor: --lb: unknown mode \"%s\" (%s)\n", app->lb_override,
				rtr_lb_mode_list(modes, sizeof(modes), ", ", false));
			rtr_config_free(&app->cfg);
			rte_eal_cleanup();
			return RTR_EXIT_USAGE;
		}
		app->cfg.sw.lb = (enum rtr_lb_mode)mode;
	}
	sw->lb = rtr_app_lb_ops(app, app->cfg.sw.lb);
	if (sw->lb == NULL) {
		fprintf(stderr, "%s: switch.lb: mode \"%s\" is not available in this build yet "
				"(available: %s)\n", app->lb_override ? "--lb" : app->cfg.path,
			rtr_lb_mode_at(app->cfg.sw.lb)->name,
			rtr_lb_mode_list(modes, sizeof(modes), ", ", true));
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
		       "the mbuf private area\n", sizeof(struct rtr_meta));
	if (setup_workers(app) < 0) {
		fprintf(stderr, "rocetor: out of memory setting up workers\n");
		return shutdown_all(app, RTR_EXIT_FAILURE);
	}
	if (rtr_ports_setup(app) < 0)
		return shutdown_all(app, RTR_EXIT_FAILURE);
	if (wait_links_ms)
		wait_links(app, wait_links_ms);
	if (setup_switch(app) < 0)
		return shutdown_all(app, RTR_EXIT_FAILURE);
	app->mempool_baseline = rte_mempool_in_use_count(sw->pool);
	/* dpdk-dumpcap attaches as a secondary process (needs hugepages). */
	if (rte_pdump_init() == 0)
		app->pdump_ready = true;
	else
		printf("rocetor: pdump unavailable: %s\n", rte_strerror(rte_errno));
	if (rtr_telemetry_register() < 0)
		printf("rocetor: telemetry commands not registered\n");
	print_summary(app);

	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	app->start_tsc = app->last_stats_tsc = rte_rdtsc();
	atomic_store(&sw->run_state, RTR_RUN);
	if (sw->workers[0]->is_control) {
		/* The main lcore is worker 0 and the control plane; any other
		 * lcores (--main-forwards) are workers. */
		for (unsigned int i = 1; i < sw->n_workers; i++)
			rte_eal_remote_launch(rtr_worker_main, sw->workers[i],
				sw->workers[i]->lcore_id);
		rtr_worker_main(sw->workers[0]);
		rte_eal_mp_wait_lcore();
	} else {
		for (unsigned int i = 0; i < sw->n_workers; i++)
			rte_eal_remote_launch(rtr_worker_main, sw->workers[i],
				sw->workers[i]->lcore_id);
		control_loop(app);
		rte_eal_mp_wait_lcore();
	}
	return shutdown_all(app, RTR_EXIT_OK);
}

/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * rocetor-info: what rocetor would do, without the EAL, as JSON for scripts
 * (tools/bench, tests; doc/tools.md):
 *
 *   rocetor-info modes
 *   rocetor-info budget --config FILE [--workers N] [--lb MODE] [--telemetry-rw]
 *                       [--port-sockets LIST] [--worker-sockets LIST]
 *                       [--main-socket N] [--no-rss-owner]
 *
 * `modes` lists the LB mode registry; `budget` prints the mempool budget
 * rocetor computes for a config (app/budget.c), taking the queue counts
 * rocetor asks for (rx_queues or one RX queue per worker, one TX queue per
 * worker or tx_queues) as the device gives them, as net_null and net_pcap
 * do. With a socket map (default: everything on socket 0) it adds the
 * budget split by socket as rocetor splits it (one pool per socket with
 * ports, the memory each socket needs) and the RX queue dealing with its
 * warnings. Exit status as rocetor's: 0, 2 bad arguments or config.
 */

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

#include "budget.h"
#include "deal.h"
#include "rtr_common.h"
#include "rtr_config.h"
#include "rtr_json.h"
#include "rtr_lb.h"
#include "rtr_lb_registry.h"

static void
usage(FILE *f)
{
	fprintf(f, "usage: rocetor-info modes\n"
		   "       rocetor-info budget --config FILE [--workers N] [--lb MODE] "
		   "[--telemetry-rw]\n"
		   "                           [--port-sockets LIST] [--worker-sockets LIST] "
		   "[--main-socket N]\n"
		   "                           [--no-rss-owner]\n"
		   "  modes                 the LB modes of this build, as JSON\n"
		   "  budget                the mempool budget rocetor computes for FILE, as "
		   "JSON:\n"
		   "    --config FILE       switch config (.yaml/.yml or .cfg/.conf)\n"
		   "    --workers N         forwarding lcores (default 1)\n"
		   "    --lb MODE           override switch.lb, as rocetor --lb\n"
		   "    --telemetry-rw      as rocetor --telemetry-rw (the mode may change at "
		   "runtime)\n"
		   "    --port-sockets LIST NUMA socket of each configured port, in config "
		   "order,\n"
		   "                        comma-separated (-1 or any: a virtual device; "
		   "default 0)\n"
		   "    --worker-sockets LIST  socket of each worker, as many as --workers "
		   "(without\n"
		   "                        --workers: their count; default all 0)\n"
		   "    --main-socket N     the main lcore's socket (default 0)\n"
		   "    --no-rss-owner      the devices have no RSS: queues are dealt by "
		   "socket even\n"
		   "                        with one per worker (default: queue q is worker "
		   "q's then)\n"
		   "Exit status: 0 success, 2 bad arguments or config.\n");
}

static int
cmd_modes(void)
{
	struct rtr_json w;

	rtr_json_init(&w, stdout);
	rtr_json_obj(&w);
	rtr_json_key(&w, "modes");
	rtr_json_arr(&w);
	for (unsigned int id = 0; id < rtr_lb_mode_count(); id++) {
		const struct rtr_lb_desc *d = rtr_lb_mode_at(id);

		rtr_json_break(&w, 2);
		rtr_json_obj(&w);
		rtr_json_kv_u64(&w, "id", id);
		rtr_json_kv_str(&w, "name", d->name);
		rtr_json_kv_str(&w, "summary", d->summary != NULL ? d->summary : "");
		rtr_json_kv_bool(&w, "implemented", d->ops != NULL);
		rtr_json_kv_str(&w, "spine", d->spine == RTR_LB_SPINE_ECMP ? "ecmp" : "run");
		rtr_json_kv_bool(&w, "holds", d->mbuf_budget != NULL);
		rtr_json_kv_bool(&w, "flow_table", d->ops != NULL && d->ops->table != NULL);
		rtr_json_obj_end(&w);
	}
	rtr_json_break(&w, 0);
	rtr_json_arr_end(&w);
	rtr_json_obj_end(&w);
	return rtr_json_finish(&w) < 0 ? RTR_EXIT_FAILURE : RTR_EXIT_OK;
}

/* A comma-separated list of sockets: 0..RTR_BUDGET_MAX_SOCKETS-1, or -1 /
 * "any". Returns how many, or -1 on a bad list or more than max. */
static int
socket_list(const char *arg, int *out, unsigned int max)
{
	const char *p = arg;
	unsigned int n = 0;

	for (;;) {
		char *end;
		long v;

		if (n >= max)
			return -1;
		if (strncmp(p, "any", 3) == 0 && (p[3] == ',' || p[3] == '\0')) {
			v = -1;
			end = (char *)(uintptr_t)(p + 3);
		} else {
			errno = 0;
			v = strtol(p, &end, 10);
			if (errno != 0 || end == p || v < -1 || v >= RTR_BUDGET_MAX_SOCKETS)
				return -1;
		}
		out[n++] = (int)v;
		if (*end == '\0')
			return (int)n;
		if (*end != ',')
			return -1;
		p = end + 1;
	}
}

static double
mib(uint64_t bytes)
{
	return (double)bytes / (1 << 20);
}

/* "sockets", "pools_mbufs", "lb_state": the budget split by socket. */
static void
json_sockets(struct rtr_json *w, const struct rtr_budget_sockets *bs)
{
	rtr_json_kv_u64(w, "pools_mbufs", bs->pools_mbufs);
	rtr_json_kv_u64(w, "main_pool_socket", (uint64_t)bs->main_pool);
	rtr_json_key(w, "lb_state");
	rtr_json_obj(w);
	rtr_json_kv_str(w, "mode", bs->lb_mode != NULL ? bs->lb_mode->name : NULL);
	rtr_json_kv_u64(w, "per_worker_bytes", bs->lb_per_worker);
	rtr_json_kv_u64(w, "shared_bytes", bs->lb_shared);
	rtr_json_obj_end(w);
	rtr_json_kv_u64(w, "egress_per_worker_bytes", bs->egress_per_worker);
	rtr_json_key(w, "sockets");
	rtr_json_arr(w);
	for (int k = 0; k < RTR_BUDGET_MAX_SOCKETS; k++) {
		const struct rtr_budget_socket *s = &bs->s[k];
		char pool[32];

		if (!s->used)
			continue;
		if (k == bs->main_pool)
			snprintf(pool, sizeof(pool), "rtr_pool");
		else
			snprintf(pool, sizeof(pool), "rtr_pool_s%d", k);
		rtr_json_break(w, 2);
		rtr_json_obj(w);
		rtr_json_kv_u64(w, "socket", (uint64_t)k);
		rtr_json_kv_u64(w, "ports", s->n_ports);
		rtr_json_kv_u64(w, "workers", s->n_workers);
		rtr_json_kv_str(w, "pool", s->pool ? pool : NULL);
		rtr_json_kv_u64(w, "mbufs", s->mbufs);
		rtr_json_kv_u64(w, "need", s->need);
		rtr_json_key(w, "parts");
		rtr_json_obj(w);
		rtr_json_kv_u64(w, "rx_desc", s->rx_desc);
		rtr_json_kv_u64(w, "tx_desc", s->tx_desc);
		rtr_json_kv_u64(w, "workers", s->workers);
		rtr_json_kv_u64(w, "egress", s->egress);
		rtr_json_kv_u64(w, "hold", s->hold);
		rtr_json_kv_u64(w, "control", s->control);
		rtr_json_obj_end(w);
		rtr_json_key(w, "memory_bytes");
		rtr_json_obj(w);
		rtr_json_kv_u64(w, "mbufs", s->mbuf_bytes);
		rtr_json_kv_u64(w, "lb_state", s->lb_bytes);
		rtr_json_kv_u64(w, "egress", s->egress_bytes);
		rtr_json_kv_u64(w, "rings", s->ring_bytes);
		rtr_json_kv_u64(w, "routes", s->route_bytes);
		rtr_json_kv_u64(w, "total", s->total_bytes);
		rtr_json_obj_end(w);
		rtr_json_kv_fixed(w, "memory_mib", mib(s->total_bytes), 1);
		rtr_json_obj_end(w);
	}
	rtr_json_break(w, 0);
	rtr_json_arr_end(w);
}

/* "rx_queues": the worker of each RX queue of each port; "warnings". */
static void
json_deal(struct rtr_json *w, const struct rtr_config *cfg, const struct rtr_deal_in *in,
		const struct rtr_deal_out *out)
{
	char msg[256];

	rtr_json_key(w, "rx_queues");
	rtr_json_arr(w);
	for (unsigned int i = 0; i < cfg->n_ports; i++) {
		rtr_json_break(w, 2);
		rtr_json_obj(w);
		rtr_json_kv_u64(w, "port", cfg->ports[i].port);
		rtr_json_kv_i64(w, "socket", in->port_socket[i]);
		rtr_json_kv_bool(w, "rss_owner", in->rss_owner[i]);
		rtr_json_key(w, "workers");
		rtr_json_arr(w);
		for (unsigned int q = 0; q < in->rxq[i]; q++)
			rtr_json_u64(w, out->worker[i][q]);
		rtr_json_arr_end(w);
		rtr_json_obj_end(w);
	}
	rtr_json_break(w, 0);
	rtr_json_arr_end(w);
	rtr_json_key(w, "warnings");
	rtr_json_arr(w);
	for (unsigned int k = 0; k < out->n_warn; k++)
		rtr_json_str(w, rtr_deal_warn_str(&out->warn[k], cfg->ports[out->warn[k].port].port,
						msg, sizeof(msg)));
	rtr_json_arr_end(w);
}

static int
cmd_budget(int argc, char **argv)
{
	static const struct option opts[] = {
			{"config", required_argument, NULL, 'c'},
			{"workers", required_argument, NULL, 'w'},
			{"lb", required_argument, NULL, 'l'},
			{"telemetry-rw", no_argument, NULL, 't'},
			{"port-sockets", required_argument, NULL, 'p'},
			{"worker-sockets", required_argument, NULL, 's'},
			{"main-socket", required_argument, NULL, 'm'},
			{"no-rss-owner", no_argument, NULL, 'n'},
			{NULL, 0, NULL, 0},
	};
	static struct rtr_deal_out deal;
	struct rtr_budget_where where;
	struct rtr_budget_sockets bs;
	struct rtr_deal_in din;
	int n_psock = -1, n_wsock = -1;
	const char *path = NULL, *lb = NULL;
	struct rtr_budget_in in;
	struct rtr_config cfg;
	struct rtr_budget b;
	struct rtr_json w;
	unsigned long workers = 1;
	bool workers_set = false, rss_owner = true;
	long main_socket = 0;
	int where_ports[RTR_MAX_PORTS] = {0}, where_workers[RTR_MAX_LCORES] = {0};
	bool rw = false;
	char err[1024], *end;
	int c;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'c':
			path = optarg;
			break;
		case 'w':
			errno = 0;
			workers = strtoul(optarg, &end, 10);
			if (errno != 0 || end == optarg || *end != '\0' || workers < 1 ||
					workers > RTR_MAX_LCORES) {
				fprintf(stderr,
						"rocetor-info: --workers: expected 1..%u, got "
						"\"%s\"\n",
						RTR_MAX_LCORES, optarg);
				return RTR_EXIT_USAGE;
			}
			workers_set = true;
			break;
		case 'l':
			lb = optarg;
			break;
		case 't':
			rw = true;
			break;
		case 'p':
			n_psock = socket_list(optarg, where_ports, RTR_MAX_PORTS);
			if (n_psock < 0) {
				fprintf(stderr,
						"rocetor-info: --port-sockets: expected up to %u "
						"sockets -1..%d, comma-separated, got \"%s\"\n",
						RTR_MAX_PORTS, RTR_BUDGET_MAX_SOCKETS - 1, optarg);
				return RTR_EXIT_USAGE;
			}
			break;
		case 's':
			n_wsock = socket_list(optarg, where_workers, RTR_MAX_LCORES);
			if (n_wsock < 0) {
				fprintf(stderr,
						"rocetor-info: --worker-sockets: expected up to %u "
						"sockets -1..%d, comma-separated, got \"%s\"\n",
						RTR_MAX_LCORES, RTR_BUDGET_MAX_SOCKETS - 1, optarg);
				return RTR_EXIT_USAGE;
			}
			break;
		case 'n':
			rss_owner = false;
			break;
		case 'm':
			errno = 0;
			main_socket = strtol(optarg, &end, 10);
			if (errno != 0 || end == optarg || *end != '\0' || main_socket < 0 ||
					main_socket >= RTR_BUDGET_MAX_SOCKETS) {
				fprintf(stderr,
						"rocetor-info: --main-socket: expected 0..%d, got "
						"\"%s\"\n",
						RTR_BUDGET_MAX_SOCKETS - 1, optarg);
				return RTR_EXIT_USAGE;
			}
			break;
		default:
			fprintf(stderr,
					"rocetor-info: budget: unknown or incomplete option "
					"\"%s\"\n",
					argv[optind - 1]);
			return RTR_EXIT_USAGE;
		}
	}
	if (optind < argc || path == NULL) {
		fprintf(stderr, "rocetor-info: budget: --config FILE is required (see --help)\n");
		return RTR_EXIT_USAGE;
	}
	memset(&cfg, 0, sizeof(cfg));
	if (rtr_config_load(path, &cfg, err, sizeof(err)) < 0) {
		fprintf(stderr, "%s\n", err);
		return RTR_EXIT_USAGE;
	}
	if (lb != NULL) {
		char modes[256];
		int mode = rtr_lb_mode_find(lb);

		if (mode < 0) {
			const char *near = rtr_lb_mode_suggest(lb);

			fprintf(stderr, "rocetor-info: --lb: unknown mode \"%s\"%s%s%s (%s)\n", lb,
					near != NULL ? ", did you mean " : "",
					near != NULL ? near : "", near != NULL ? "?" : "",
					rtr_lb_mode_list(modes, sizeof(modes), ", ", false));
			rtr_config_free(&cfg);
			return RTR_EXIT_USAGE;
		}
		cfg.sw.lb = (enum rtr_lb_mode)mode;
	}
	/* --worker-sockets alone: one worker per socket given. */
	if (!workers_set && n_wsock > 0)
		workers = (unsigned long)n_wsock;
	memset(&in, 0, sizeof(in));
	rtr_budget_queues(&cfg, (unsigned int)workers, &in);
	in.telemetry_rw = rw;
	if (rtr_mbuf_budget(&cfg, &in, &b) < 0) {
		fprintf(stderr, "%s: cannot size the mempool\n", path);
		rtr_config_free(&cfg);
		return RTR_EXIT_USAGE;
	}
	if ((n_psock >= 0 && (unsigned int)n_psock != cfg.n_ports) ||
			(n_wsock >= 0 && (unsigned long)n_wsock != workers)) {
		fprintf(stderr, "rocetor-info: %s: one socket per port (%u) and per worker (%lu)\n",
				n_psock >= 0 && (unsigned int)n_psock != cfg.n_ports
						? "--port-sockets"
						: "--worker-sockets",
				cfg.n_ports, workers);
		rtr_config_free(&cfg);
		return RTR_EXIT_USAGE;
	}
	memset(&where, 0, sizeof(where));
	memset(&din, 0, sizeof(din));
	where.main_socket = (int)main_socket;
	din.n_workers = (unsigned int)workers;
	din.n_ports = cfg.n_ports;
	for (unsigned int i = 0; i < cfg.n_ports; i++) {
		where.port_socket[i] = din.port_socket[i] = where_ports[i];
		din.rxq[i] = in.rxq[i];
		/* As app/ports.c on a device with RSS: one RX queue per worker
		 * (several) makes queue q worker q's. */
		din.rss_owner[i] = rss_owner && in.rxq[i] > 1 && in.rxq[i] == workers;
	}
	for (unsigned int k = 0; k < workers; k++)
		where.worker_socket[k] = din.worker_socket[k] = where_workers[k];
	if (rtr_budget_sockets(&cfg, &in, &b, &where, &bs) < 0 || rtr_deal_rxq(&din, &deal) < 0) {
		fprintf(stderr, "%s: cannot split the budget by socket\n", path);
		rtr_config_free(&cfg);
		return RTR_EXIT_USAGE;
	}
	rtr_json_init(&w, stdout);
	rtr_json_obj(&w);
	rtr_json_kv_u64(&w, "mbufs", b.mbufs);
	rtr_json_kv_u64(&w, "need", b.need);
	rtr_json_key(&w, "parts");
	rtr_json_obj(&w);
	rtr_json_kv_u64(&w, "rx_desc", b.rx_desc);
	rtr_json_kv_u64(&w, "tx_desc", b.tx_desc);
	rtr_json_kv_u64(&w, "workers", b.workers);
	rtr_json_kv_u64(&w, "egress", b.egress);
	rtr_json_kv_u64(&w, "hold", b.hold);
	rtr_json_kv_u64(&w, "control", b.control);
	rtr_json_obj_end(&w);
	rtr_json_kv_u64(&w, "hold_budget_per_worker", b.hold_per_worker);
	rtr_json_kv_str(&w, "hold_key", b.hold_key);
	rtr_json_kv_u64(&w, "data_room", b.data_room);
	json_sockets(&w, &bs);
	json_deal(&w, &cfg, &din, &deal);
	rtr_json_obj_end(&w);
	if (rtr_json_finish(&w) < 0) {
		rtr_config_free(&cfg);
		return RTR_EXIT_FAILURE;
	}
	rtr_config_free(&cfg);
	return RTR_EXIT_OK;
}

int
main(int argc, char **argv)
{
	if (argc >= 2 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)) {
		usage(stdout);
		return RTR_EXIT_OK;
	}
	if (argc == 2 && strcmp(argv[1], "modes") == 0)
		return cmd_modes();
	if (argc >= 2 && strcmp(argv[1], "budget") == 0)
		return cmd_budget(argc - 1, argv + 1);
	usage(stderr);
	return RTR_EXIT_USAGE;
}

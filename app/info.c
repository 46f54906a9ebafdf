/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * rocetor-info: what rocetor would do, without the EAL, as JSON for scripts
 * (tools/bench, tests; doc/tools.md):
 *
 *   rocetor-info modes
 *   rocetor-info budget --config FILE [--workers N] [--lb MODE] [--telemetry-rw]
 *
 * `modes` lists the LB mode registry; `budget` prints the mempool budget
 * rocetor computes for a config (app/budget.c), taking the queue counts
 * rocetor asks for (rx_queues or one RX queue per worker, one TX queue per
 * worker or tx_queues) as the device gives them, as net_null and net_pcap
 * do. Exit status as rocetor's: 0, 2 bad arguments or config.
 */

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "budget.h"
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
		   "  modes                 the LB modes of this build, as JSON\n"
		   "  budget                the mempool budget rocetor computes for FILE, as "
		   "JSON:\n"
		   "    --config FILE       switch config (.yaml/.yml or .cfg/.conf)\n"
		   "    --workers N         forwarding lcores (default 1)\n"
		   "    --lb MODE           override switch.lb, as rocetor --lb\n"
		   "    --telemetry-rw      as rocetor --telemetry-rw (the mode may change at "
		   "runtime)\n"
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

static int
cmd_budget(int argc, char **argv)
{
	static const struct option opts[] = {
			{"config", required_argument, NULL, 'c'},
			{"workers", required_argument, NULL, 'w'},
			{"lb", required_argument, NULL, 'l'},
			{"telemetry-rw", no_argument, NULL, 't'},
			{NULL, 0, NULL, 0},
	};
	const char *path = NULL, *lb = NULL;
	struct rtr_budget_in in;
	struct rtr_config cfg;
	struct rtr_budget b;
	struct rtr_json w;
	unsigned long workers = 1;
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
			break;
		case 'l':
			lb = optarg;
			break;
		case 't':
			rw = true;
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
	memset(&in, 0, sizeof(in));
	rtr_budget_queues(&cfg, (unsigned int)workers, &in);
	in.telemetry_rw = rw;
	if (rtr_mbuf_budget(&cfg, &in, &b) < 0) {
		fprintf(stderr, "%s: cannot size the mempool\n", path);
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

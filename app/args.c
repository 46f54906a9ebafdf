/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * rocetor's options (DESIGN.md B2): getopt_long over what the EAL left.
 * The list of LB modes comes from the registry.
 */

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "args.h"
#include "rtr_lb.h"
#include "rtr_lb_registry.h"

void
rtr_args_usage(const char *prog)
{
	char modes[256];

	rtr_lb_mode_list(modes, sizeof(modes), " | ", false);
	printf("\nrocetor options (after the EAL options and --):\n"
	       "  %s [EAL options] -- --config FILE [--lb MODE] [--duration SEC]\n"
	       "        [--exit-on-idle MS] [--stats-json FILE] [--stats-interval SEC]\n"
	       "        [--wait-links MS] [--main-forwards] [--telemetry-rw]\n"
	       "  --config FILE         switch config: .yaml/.yml (libyaml) or .cfg/.conf "
	       "(libconfig)\n"
	       "  --lb MODE             override switch.lb: %s\n"
	       "  --duration SEC        run SEC seconds (fractions allowed), then exit cleanly\n"
	       "  --exit-on-idle MS     exit once no port has received a packet for MS ms\n"
	       "  --stats-json FILE     write the stats document (doc/counters.md) at exit\n"
	       "  --stats-interval SEC  print the stats document to stdout every SEC seconds\n"
	       "  --wait-links MS       before forwarding, wait up to MS ms for every port that "
	       "is\n"
	       "                        not admin_down to report link up (default 0: no wait)\n"
	       "  --main-forwards       with several lcores, the main lcore forwards too (worker "
	       "0,\n"
	       "                        running the control plane between bursts as with one "
	       "lcore)\n"
	       "  --telemetry-rw        allow telemetry commands that change state "
	       "(/rocetor/lb/set,\n"
	       "                        /rocetor/port/admin); without it telemetry is read-only\n"
	       "  -h, --help            this help\n"
	       "Exit status: 0 success (also on SIGINT/SIGTERM), 2 bad arguments or config, 1 "
	       "other failure.\n",
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

int
rtr_args_parse(struct rtr_app *app, int argc, char **argv)
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
			if (parse_number("--stats-interval", optarg, 0.01, &app->stats_interval_s) <
					0)
				return -1;
			break;
		case 'w':
			if (parse_number("--wait-links", optarg, 0, &v) < 0)
				return -1;
			app->wait_links_ms = (uint64_t)v;
			break;
		case 'm':
			app->main_forwards = true;
			break;
		case 't':
			app->telemetry_rw = true;
			break;
		case 'h':
			rtr_args_usage(argv[0]);
			exit(RTR_EXIT_OK);
		default:
			fprintf(stderr,
					"rocetor: unknown or incomplete option \"%s\" (see "
					"--help)\n",
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

/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * LetFlow's own LB counters (doc/letflow.md).
 * (name, help): the name is the key in the stats JSON and telemetry (a
 * contract: never rename one), the help a line for docs and telemetry.
 * lib/lb/rtr_lb_counters.h composes every list into enum rtr_lb_counter.
 */
#ifndef RTR_LF_COUNTERS_H
#define RTR_LF_COUNTERS_H

#define RTR_LF_COUNTERS(X)                                                                         \
	X(letflow_packets,                                                                         \
			"RoCE packets from hosts placed by their flow's flowlet (letflow SrcToR)") \
	X(letflow_flowlets, "flowlets started: a flow's first packet, or one after a gap of at "   \
			    "least flowlet_gap_us")                                                \
	X(letflow_path_changes, "flowlets that took another path than the flow's previous one, "   \
				"and flows moved off a path that went down")

/* None of them is a maximum over the workers. */
#define RTR_LF_MAX_GAUGES(X)

#endif /* RTR_LF_COUNTERS_H */

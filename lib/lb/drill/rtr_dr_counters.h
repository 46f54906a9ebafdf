/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * DRILL's own LB counters (doc/drill.md). drill_port_changes is how often
 * consecutive packets of a group left by different uplinks: DRILL keeps no
 * flow state, so that is the reordering it risks (a flow's packets on two
 * uplinks with different queues).
 * (name, help): the name is the key in the stats JSON and telemetry (a
 * contract: never rename one), the help a line for docs and telemetry.
 * lib/lb/rtr_lb_counters.h composes every list into enum rtr_lb_counter.
 */
#ifndef RTR_DR_COUNTERS_H
#define RTR_DR_COUNTERS_H

#define RTR_DR_COUNTERS(X)                                                                        \
	X(drill_picks, "packets placed by DRILL on the shortest queue of its samples and memory") \
	X(drill_memory_picks,                                                                     \
			"DRILL placements on a remembered uplink, shorter than every sample")     \
	X(drill_port_changes, "DRILL placements on another uplink than the group's previous "     \
			      "packet (a flow's packets may reorder)")

/* None of them is a maximum over the workers. */
#define RTR_DR_MAX_GAUGES(X)

#endif /* RTR_DR_COUNTERS_H */
